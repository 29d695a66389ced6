"""perftests/torch, the PyTorch suite of docs/python.md, where PyTorch is not installed (hidden from
the inner session whether or not this machine has it): skipped, saying why, exit 0, and recorded as skipped in --perf-json."""
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

HIDE_TORCH = '''
import sys

class HideTorch:
    """import torch fails here, as where PyTorch is not installed."""
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r} (hidden by the test)", name=name)
        return None

sys.meta_path.insert(0, HideTorch())
'''


def test_the_torch_suite_without_torch_skips_saying_why(tmp_path):
    """docs/python.md's command: exit 0, each file a skip with the reason, the
    report written (before: a traceback from conftest.py and exit 1)."""
    (tmp_path / "hide").mkdir()
    (tmp_path / "hide" / "sitecustomize.py").write_text(HIDE_TORCH)
    out = tmp_path / "torch.json"
    env = dict(os.environ, PYTHONPATH=f"{tmp_path / 'hide'}{os.pathsep}{os.path.join(REPO, 'python')}")
    r = subprocess.run([sys.executable, "-m", "pytest", "perftests/torch", "-rA", "-p", "perfgate.plugin",
                        "-p", "no:cacheprovider", f"--perf-json={out}"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=120)
    files = sorted(f for f in os.listdir(os.path.join(REPO, "perftests", "torch"))
                   if f.startswith("test_") and f.endswith(".py"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert f"{len(files)} skipped" in r.stdout, r.stdout
    for f in files:
        assert f"SKIPPED [1] perftests/torch/{f}: PyTorch is not installed (No module named 'torch'" \
            in r.stdout, r.stdout
    doc = json.loads(out.read_text())  # the skips are in the report, with their reason
    assert doc["totals"] == {**doc["totals"], "tests": len(files), "skipped": len(files)}
    assert all(t["outcome"] == "SKIP" and t["reason"].startswith("PyTorch is not installed")
               for t in doc["tests"]), doc["tests"]
