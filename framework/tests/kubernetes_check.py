"""kubernetes_check.py — validates Kubernetes manifests against one version's API schema.

Strict, with kubernetes-validate, and against perfgate's shard rules.
"""
# python3 kubernetes_check.py VERSION FILE...   (framework/tests/kubernetes.c runs it)
# Prints "ok FILE: ..." or "FAIL FILE: ..." per resource. Exit 0 all valid, 1 one is
# not, 2 a file cannot be read or parsed, 3 the validator cannot be used here (the
# line says why: the caller skips). The package's own CLI is not used: it only warns
# about a kind or apiVersion it has no schema for, and fails on resources that have
# generateName but no name.
import sys

try:
    import yaml
    import kubernetes_validate
    from kubernetes_validate.utils import SchemaNotFoundError, ValidationError
except Exception as e:  # ImportError, or a broken install
    print("cannot import kubernetes_validate: %s" % e)
    sys.exit(3)


def label(doc):
    meta = doc.get("metadata") or {}
    return "%s/%s" % (doc.get("kind"), meta.get("name") or meta.get("generateName") or "?")


def shard_rules(doc):
    """What breaks perfgate's rules for an Indexed Job, as a list of strings."""
    spec = doc.get("spec") or {}
    if doc.get("kind") != "Job" or spec.get("completionMode") != "Indexed":
        return []
    bad, n = [], spec.get("completions")
    if spec.get("parallelism") != n:
        bad.append("parallelism %r is not completions %r" % (spec.get("parallelism"), n))
    pod = spec["template"]["spec"]
    if not (pod.get("nodeSelector") or {}).get("nvidia.com/gpu.product"):
        bad.append("no nodeSelector on nvidia.com/gpu.product")
    for c in pod["containers"]:
        env = {e["name"]: e for e in c.get("env") or []}
        total = env.get("PERFGATE_TOTAL_SHARDS", {}).get("value")
        if total != str(n):
            bad.append("container %s: PERFGATE_TOTAL_SHARDS %r is not completions %r"
                       % (c["name"], total, n))
        ref = ((env.get("PERFGATE_RUN_ID", {}).get("valueFrom") or {}).get("fieldRef") or {})
        if "controller-uid" not in ref.get("fieldPath", ""):
            bad.append("container %s: PERFGATE_RUN_ID is not the Job's controller-uid label"
                       % c["name"])
        gpus = ((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu")
        if str(gpus) != "1":
            bad.append("container %s: limits nvidia.com/gpu is %r, not 1" % (c["name"], gpus))
    return bad


def main():
    if len(sys.argv) < 3:
        print("usage: kubernetes_check.py VERSION FILE...")
        return 2
    version, rc = sys.argv[1], 0
    for path in sys.argv[2:]:
        try:
            with open(path) as f:
                docs = [d for d in yaml.safe_load_all(f) if d]
        except (OSError, yaml.YAMLError) as e:
            print("FAIL %s: cannot be read as YAML: %s" % (path, e))
            return 2
        if not docs:
            print("FAIL %s: no resource in it" % path)
            rc = 1
        for doc in docs:
            try:
                got = kubernetes_validate.validate(doc, version, strict=True)
            except ValidationError as e:
                where = ".".join(str(p) for p in e.path)
                print("FAIL %s: %s: %s: %s" % (path, label(doc), where, e.message))
                rc = 1
                continue
            except SchemaNotFoundError as e:
                print("FAIL %s: %s: %s" % (path, label(doc), e.message))
                rc = 1
                continue
            except Exception as e:  # VersionNotSupportedError and the like
                print("cannot validate against Kubernetes %s with kubernetes-validate %s: %s"
                      % (version, kubernetes_validate.__version__, getattr(e, "message", e)))
                return 3
            if got != version:  # an older package falls back to the newest it has
                print("kubernetes-validate %s has no schema for Kubernetes %s (newest %s)"
                      % (kubernetes_validate.__version__, version, got))
                return 3
            bad = shard_rules(doc)
            for b in bad:
                print("FAIL %s: %s: %s" % (path, label(doc), b))
            rc |= 1 if bad else 0
            if not bad:
                print("ok %s: %s valid against Kubernetes %s (kubernetes-validate %s, strict)"
                      % (path, label(doc), got, kubernetes_validate.__version__))
    return rc


if __name__ == "__main__":
    sys.exit(main())
