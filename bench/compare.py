"""compare.py — the side-by-side table of docs/fidelity.md, from bench/compare.sh's outputs.

The table is printed, and saved as results.md.
"""
import glob
import math
import json
import os
import re
import statistics as st
import sys

# in order of duration on an H100
KERNELS = ["ew_4k", "ew_256k", "sin4_4m", "gemm_f16_2k", "ew_64m", "sin4_512m", "sin4_2g"]
TARGETS = [0.01, 0.001]  # the CVs whose time to reach is reported


def us(s):
    return f"{s * 1e6:.3f} µs" if s < 1e-4 else f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def cv(xs):
    return st.stdev(xs) / st.mean(xs) if len(xs) > 1 else float("nan")


def runs_of(pattern):
    """{setting: {run: path}} for files named <tool>.<setting>.<run>.<ext>."""
    out = {}
    for path in glob.glob(pattern):
        m = re.search(r"\.([^.]+)\.(\d+)\.[a-z]+$", path)
        if m:
            out.setdefault(m.group(1), {})[int(m.group(2))] = path
    return out


def perfgate(out):
    """{samples: [{(kernel, clock): (median, wall)}]} per process."""
    res = {}
    for setting, files in runs_of(os.path.join(out, "pg.*.*.txt")).items():
        for _, path in sorted(files.items()):
            run, wall = {}, {}
            for f in (line.split() for line in open(path)):
                if f and f[0] in ("median", "mean"):  # the mean of the same samples: "cold-mean"
                    run[(f[1], f[2] if f[0] == "median" else f[2] + "-mean")] = float(f[3])
                elif f and f[0] == "wall":
                    wall[(f[1], f[2])] = wall[(f[1], f[2] + "-mean")] = float(f[3])
            res.setdefault(setting, []).append({k: (v, wall.get(k)) for k, v in run.items()})
    return res


def summary(state, tag):
    for s in state.get("summaries", []):
        if s.get("tag") == tag:
            for d in s.get("data", []):
                if d.get("name") == "value":
                    return float(d["value"])
    return None


def nvbench(out):
    """{setting: [{(kernel, "cold"|"batch"): (mean, wall)}]} per process."""
    res = {}
    for setting, files in runs_of(os.path.join(out, "nv.*.*.json")).items():
        for _, path in sorted(files.items()):
            try:
                doc = json.load(open(path))
            except (OSError, ValueError):
                continue
            run = {}
            for b in doc.get("benchmarks", []):
                for state in b.get("states", [])[:1]:
                    for kind in ("cold", "batch"):
                        v = summary(state, f"nv/{kind}/time/gpu/mean")
                        if v is not None:
                            run[(b["name"], kind)] = (v, summary(state, f"nv/{kind}/walltime"))
            res.setdefault(setting, []).append(run)
    return res


def do_bench(out):
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "db.*.txt"))):
        run = {}
        for f in (line.split() for line in open(path)):
            if f and f[0] == "triton":
                run[(f[1], "median")] = (float(f[2]), float(f[3]) if len(f) > 3 else None)
        runs.append(run)
    return {"1": runs} if runs else {}


def column(runs, key):
    """The per-process values and walls of one measurement, or ([], [])."""
    got = [r[key] for r in runs if key in r]
    return [v for v, _ in got], [w for _, w in got if w is not None]


def cell(vals):
    return f"{us(st.median(vals))}, CV {cv(vals) * 100:.2f} %" if len(vals) > 1 else "n/a"


def main(out):
    pg, nv, db = perfgate(out), nvbench(out), do_bench(out)
    lines = []
    p = lines.append
    gpu = open(os.path.join(out, "gpu.txt")).read().strip() if os.path.exists(os.path.join(out, "gpu.txt")) else "unknown"
    # perfgate's main setting: the precision rule (pREL) when run, else the most samples
    pg_main = next((k for k in sorted(pg) if k.startswith("p")), None) or (
        max(pg, key=int) if pg else None)
    nv_sets = {k: open(os.path.join(out, f"nv.{k}.set")).read().strip() for k in nv
               if os.path.exists(os.path.join(out, f"nv.{k}.set"))}
    nv_main = next((k for k, s in nv_sets.items() if s == "default"), min(nv) if nv else None)
    n = len(pg.get(pg_main, []))
    p(f"GPU: {gpu}; {n} processes per tool and setting, interleaved")
    p(f"perfgate: {setting_text(pg_main)}; nvbench: {nv_sets.get(nv_main, 'n/a')}; "
      f"do_bench: median mode. Cell: median over the processes, CV of the per-process values.")
    p("")
    cols = [("perfgate cold", pg, pg_main, "cold"), ("perfgate cold, mean", pg, pg_main, "cold-mean"),
            ("nvbench cold", nv, nv_main, "cold"),
            ("perfgate device", pg, pg_main, "device"), ("nvbench batch", nv, nv_main, "batch"),
            ("perfgate events", pg, pg_main, "events"), ("do_bench", db, "1", "median")]
    cols = [c for c in cols if c[2] in c[1]]
    p("| kernel | " + " | ".join(c[0] for c in cols) + " |")
    p("|---" * (len(cols) + 1) + "|")
    for k in KERNELS:
        p(f"| {k} | " + " | ".join(cell(column(c[1][c[2]], (k, c[3]))[0]) for c in cols) + " |")
    p("")
    p("Wall time per process (s): " + "; ".join(
        f"{tool} {name}: {min(w):.1f}-{max(w):.1f}" for tool, name, w in walls(out)))
    p("")
    p("Wall time per measurement, median over processes (warm-up included):")
    p("| kernel | " + " | ".join(c[0] for c in cols) + " |")
    p("|---" * (len(cols) + 1) + "|")
    for k in KERNELS:
        cells = []
        for c in cols:
            w = column(c[1][c[2]], (k, c[3]))[1]
            cells.append(f"{st.median(w):.3f} s" if w else "n/a")
        p(f"| {k} | " + " | ".join(cells) + " |")
    p("")
    p("Time to reach a CV: the least median wall time per measurement among a tool's settings")
    p("whose cross-process CV is at most the target (settings: perfgate " + ", ".join(
        setting_text(s) for s in sorted(pg)) + "; nvbench " + ", ".join(
        f"'{nv_sets.get(s, s)}'" for s in sorted(nv)) + ").")
    pairs = [("cold", "cold", "cold"), ("cold, mean", "cold-mean", "cold"),
             ("device vs batch", "device", "batch")]
    for target in TARGETS:
        p(f"| kernel, CV <= {target * 100:g} % | " + " | ".join(
            f"perfgate {a} | nvbench {b}" for _, a, b in pairs) + " |")
        p("|---" * (2 * len(pairs) + 1) + "|")
        for k in KERNELS:
            cells = []
            for _, a, b in pairs:
                cells.append(reach(pg, (k, a), target))
                cells.append(reach(nv, (k, b), target))
            p(f"| {k} | " + " | ".join(cells) + " |")
        p("")
    matched = pairs if pg_main is not None and nv_main is not None else []
    p("Issue 21's targets (perfgate's CV at most nvbench's on the matching measurement, in at most")
    p("a fifth of nvbench's wall time):")
    for _, a, b in matched:
        for k in KERNELS:
            pv, pw = column(pg[pg_main], (k, a))
            nvv, nw = column(nv[nv_main], (k, b))
            if len(pv) > 1 and len(nvv) > 1 and pw and nw:
                ok_cv = cv(pv) <= cv(nvv)
                ratio = st.median(nw) / st.median(pw)
                p(f"  {k} {a} vs {b}: CV {cv(pv) * 100:.3f} % vs {cv(nvv) * 100:.3f} % "
                  f"({'met' if ok_cv else 'NOT met'}; p = {f_test(pv, nvv):.2f} that perfgate "
                  f"varies more); time {st.median(pw):.3f} s vs {st.median(nw):.3f} s, "
                  f"nvbench/perfgate {ratio:.1f}x ({'met' if ratio >= 5 else 'NOT met'})")
    p("")
    p("Per process (round by round), the matched measurements; r: correlation of perfgate's")
    p("and nvbench's values over the rounds (near 1: both follow the GPU's state, not their own noise):")
    for _, a, b in matched:
        for k in KERNELS:
            pv = [r.get((k, a), (None,))[0] for r in pg[pg_main]]
            nvv = [r.get((k, b), (None,))[0] for r in nv[nv_main]]
            both = [(x, y) for x, y in zip(pv, nvv) if x is not None and y is not None]
            r = corr(both)
            p(f"  {k} {a}/{b}: " + " ".join(f"{x * 1e6:.3f}/{y * 1e6:.3f}" for x, y in both) +
              f" µs; r = {r:.2f}")
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write(text + "\n")


def incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b) (continued fraction)."""
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    if x > (a + 1) / (a + b + 2):
        return 1 - incomplete_beta(b, a, 1 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
                     b * math.log1p(-x)) / a
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 + num * d
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = 1 + num / (c if abs(c) > 1e-300 else 1e-300)
        f *= c * d
        if abs(1 - c * d) < 1e-12:
            return front * (f - 1)
    return front * (f - 1)


def f_test(xs, ys):
    """One-sided p that xs vary more than ys (F-test of the variances; the
    per-process values need not be normal, so read it as a guide)."""
    if len(xs) < 3 or len(ys) < 3 or st.variance(ys) == 0:
        return float("nan")
    d1, d2 = len(xs) - 1, len(ys) - 1
    F = st.variance(xs) / st.mean(xs) ** 2 / (st.variance(ys) / st.mean(ys) ** 2)
    return 1 - incomplete_beta(d1 / 2, d2 / 2, d1 * F / (d1 * F + d2))


def setting_text(s):
    if s is None:
        return "n/a"
    return (f"samples until the median's 95 % interval is within ±{float(s[1:]) * 100:g} % (8-2001, 1 s)"
            if s.startswith("p") else f"{s} samples")


def corr(pairs):
    if len(pairs) < 3:
        return float("nan")
    xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    mx, my = st.mean(xs), st.mean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx, syy = sum((x - mx) ** 2 for x in xs), sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx > 0 and syy > 0 else float("nan")


def reach(tool, key, target):
    best = None
    for setting, runs in tool.items():
        vals, w = column(runs, key)
        if len(vals) > 1 and w and cv(vals) <= target:
            t = st.median(w)
            best = t if best is None or t < best else best
    return f"{best:.3f} s" if best is not None else "not reached"


def walls(out):
    per = {}
    path = os.path.join(out, "wall.txt")
    for f in (line.split() for line in open(path)) if os.path.exists(path) else []:
        if len(f) == 4:
            per.setdefault((f[0], f[1]), []).append(float(f[3]))
    return [(tool, setting, w) for (tool, setting), w in sorted(per.items())]


if __name__ == "__main__":
    main(sys.argv[1])
