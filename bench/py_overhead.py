"""What the Python call adds per iteration, and whether a sync check leaves timing changed.

  PERFGATE_LIB=build/libperfgate.so PYTHONPATH=python python3 bench/py_overhead.py

Prints, from claim records (wall clock, medians per iteration):
  - an empty Python callable (lambda: None): the ctypes callback + Python call cost;
  - a small CUDA op (x.add_(1), 2^16 floats) on the default stream, then again after a
    perf.no_sync_in check attached and detached CUPTI in this process (3 rounds each)."""
import sys

import perfgate


def median_of(perf, name):
    for c in perf.claims:
        for side in ("a", "b"):
            if c.get(side, {}).get("name") == name:
                return c[side]["median_s"], c["clock"]
    return None, None


def measure(name, fn, budget=1.0):
    p = perfgate.Perf(name, budget=budget)
    w = p.workload(fn, name="w")
    p.expect_similar(w, w, 0.5)
    m, clock = median_of(p, "w")
    p.close()
    return m, clock


m, clock = measure("noop", lambda: None)
print(f"empty Python callable: {m * 1e9:.0f} ns per iteration ({clock} clock)")
try:
    import torch
except ImportError:
    sys.exit(0)
if not torch.cuda.is_available():
    sys.exit(0)
x = torch.zeros(1 << 16, device="cuda")
before = [measure(f"add{k}", lambda: x.add_(1))[0] for k in range(3)]
p = perfgate.Perf("sync-check")
p.no_sync_in(lambda: x.add_(1))
p.close()
after = [measure(f"add-after{k}", lambda: x.add_(1))[0] for k in range(3)]
fmt = ", ".join
print("x.add_(1), 2^16 floats, before any sync check: " + fmt(f"{v * 1e6:.3f} us" for v in before))
print("the same after a no_sync_in check in this process: " + fmt(f"{v * 1e6:.3f} us" for v in after))
print(f"after / before (medians of 3): {sorted(after)[1] / sorted(before)[1]:.4f}")

# The device clock holds the stream until a batch's launches are all queued, so what the
# host spends per call (the Python call, the launch) is not in the GPU time it reports.
s = torch.cuda.Stream()
y = torch.zeros(1 << 10, device="cuda")


def tiny():
    with torch.cuda.stream(s):
        y.add_(1)


for clock in ("events", "device", "wall"):
    p = perfgate.Perf(f"tiny-{clock}", budget=1.0)
    w = p.workload(tiny, name="w", stream=s, clock=clock)
    p.expect_similar(w, w, 0.5)
    m, _ = median_of(p, "w")
    p.close()
    print(f"y.add_(1), 2^10 floats, on a declared stream, {clock} clock: {m * 1e6:.3f} us per iteration")
