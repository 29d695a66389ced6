"""summarise.py — the docs/fidelity.md table, from bench/fidelity.sh's logs.

The table is printed, and saved as results.md.
"""
import csv
import glob
import os
import statistics as st
import sys

KERNELS = ["ew_256k", "sin4_4m", "ew_64m", "sin4_512m"]
REPS, WARM = 14, 3  # ncu-target: 3 warm-up launches, then 11 measured, per kernel


def us(s):
    return f"{s * 1e6:.2f} µs" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def medians(out):
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "medians.*.txt"))):
        run = {}
        for line in open(path):
            f = line.split()
            if f and f[0] == "median":
                run[(f[1], f[2])] = float(f[3])
        if run:
            runs.append(run)
    return runs


def ncu(path):
    """Median gpu__time_duration per kernel, in launch order, or None."""
    if not os.path.exists(path):
        return None
    rows = [r for r in csv.reader(l for l in open(path) if l.startswith('"'))]
    if not rows or rows[0][0] != "ID":
        return None
    head = rows[0]
    val, unit = head.index("Metric Value"), head.index("Metric Unit")
    t = []
    for r in rows[1:]:
        v = float(r[val].replace(",", ""))
        t.append(v * {"ns": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3,
                      "nsecond": 1e-9}[r[unit]])
    if len(t) != REPS * len(KERNELS):
        return None
    return {k: st.median(t[i * REPS + WARM:(i + 1) * REPS]) for i, k in enumerate(KERNELS)}


def triton(out):
    runs = []
    for path in sorted(glob.glob(os.path.join(out, "triton.*.txt"))):
        run = {f[1]: float(f[2]) for f in (l.split() for l in open(path)) if f and f[0] == "triton"}
        if all(k in run for k in KERNELS):
            runs.append(run)
    return runs


def cv(xs):
    return st.stdev(xs) / st.mean(xs) if len(xs) > 1 else float("nan")


def fields(path, tag):
    if not os.path.exists(path):
        return {}
    for line in open(path):
        f = line.split()
        if f and f[0] == tag:
            return dict(x.split("=", 1) for x in f[1:] if "=" in x)
    return {}


def main(out):
    lines = []
    p = lines.append
    gpu = open(os.path.join(out, "gpu.txt")).read().strip() if os.path.exists(os.path.join(out, "gpu.txt")) else "unknown"
    p(f"GPU: {gpu}")
    runs = medians(out)
    p(f"perfgate processes: {len(runs)}")
    p("")
    p("a. device clock vs Nsight Compute gpu__time_duration.sum (median over the processes; ncu: median of 11 launches, --clock-control none)")
    p("")
    p("| kernel | device clock | ncu (warm L2) | diff | target max(2 %, 0.3 µs) | cold clock | ncu (caches flushed) | diff |")
    p("|---|---|---|---|---|---|---|---|")
    warm, cold = ncu(os.path.join(out, "ncu-none.csv")), ncu(os.path.join(out, "ncu-all.csv"))
    for k in KERNELS:
        d = st.median(r[(k, "device")] for r in runs)
        c = st.median(r[(k, "cold")] for r in runs)
        row = f"| {k} | {us(d)} "
        if warm:
            diff = d - warm[k]
            ok = abs(diff) <= max(0.02 * warm[k], 0.3e-6)
            row += f"| {us(warm[k])} | {diff * 1e6:+.2f} µs ({100 * diff / warm[k]:+.1f} %) | {'met' if ok else 'MISSED'} "
        else:
            row += "| n/a | | not measured "
        row += f"| {us(c)} "
        if cold:
            diff = c - cold[k]
            row += f"| {us(cold[k])} | {diff * 1e6:+.2f} µs ({100 * diff / cold[k]:+.1f} %) |"
        else:
            row += "| n/a | |"
        p(row)
    p("")
    tr = triton(out)
    p(f"b. repeatability: coefficient of variation of the per-process medians ({len(runs)} perfgate processes, {len(tr)} do_bench processes)")
    p("")
    p("| kernel | device clock CV | events clock CV | cold clock CV | do_bench (median mode) CV | device median | events median | cold median | do_bench median |")
    p("|---|---|---|---|---|---|---|---|---|")
    for k in KERNELS:
        vals = {c: [r[(k, c)] for r in runs] for c in ("device", "events", "cold")}
        tv = [r[k] for r in tr]
        row = f"| {k} | " + " | ".join(f"{100 * cv(vals[c]):.2f} %" for c in ("device", "events", "cold"))
        row += f" | {100 * cv(tv):.2f} %" if tv else " | n/a"
        row += " | " + " | ".join(us(st.median(vals[c])) for c in ("device", "events", "cold"))
        row += f" | {us(st.median(tv))} |" if tv else " | n/a |"
        p(row)
    p("")
    aa = fields(os.path.join(out, "aa.txt"), "aa")
    if aa:
        p(f"c. A/A on identical workloads ({aa['kernel']}, {aa['clock']} clock):")
        p(f"   SIMILAR(a, a', 5 %) false fails {aa['similar_false_fail']}/{aa['similar_n']} ({float(aa['similar_s']):.3f} s each); "
          f"FASTER(a, a', 1/1.05) false fails {aa['not_slower_false_fail']}/{aa['not_slower_n']} ({float(aa['not_slower_s']):.3f} s each); "
          f"FASTER(a, a', 1.05) false passes {aa['faster_false_pass']}/{aa['faster_n']} ({float(aa['faster_s']):.3f} s each)")
    pw = fields(os.path.join(out, "power.txt"), "power")
    if pw:
        p(f"d. power: FASTER(fast, slow, 1.05) with slow {float(pw['true_ratio']):.4f}x the time: "
          f"detected {pw['detected']}/{pw['n']} ({float(pw['seconds_per_comparison']):.3f} s each)")
    ov = fields(os.path.join(out, "overhead.txt"), "overhead")
    if ov:
        p(f"e. loop overhead (ew_256k, events clock, batch {ov['batch']}): perfgate {us(float(ov['perfgate']))}, "
          f"hand loop {us(float(ov['hand']))} per iteration; paired difference median "
          f"{float(ov['diff_median']) * 1e9:+.1f} ns, 95 % of pairs in "
          f"[{float(ov['diff_p2.5']) * 1e9:+.1f}, {float(ov['diff_p97.5']) * 1e9:+.1f}] ns")
    for line in open(os.path.join(out, "suite.txt")) if os.path.exists(os.path.join(out, "suite.txt")) else []:
        if line.startswith("suite_exit"):
            f = line.split()
            p(f"f. whole suite (build/perftest): {f[3]} s wall, exit {f[1]}")
        elif " passed, " in line and line[0].isdigit():
            p(f"   {line.strip()}")
    text = "\n".join(lines) + "\n"
    open(os.path.join(out, "results.md"), "w").write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main(sys.argv[1])
