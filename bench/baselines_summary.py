#!/usr/bin/env python3
"""baselines_summary.py — the detection table of make bench-baselines (bench/baselines.sh).

With --plant, it sizes the planted delays from the baseline file.
"""
import glob
import os
import re
import statistics
import sys

OUTCOME = re.compile(r"^(PASS|FAIL|INCONCLUSIVE|ERROR|SKIP)\s+(bbr?\.\S+) \(([0-9.]+) s wall\)")
CHANGE = re.compile(r"BASELINE\(w\) at \S+: [A-Z]+[^:]*: .* per iteration .*?, ([+-]\d+\.\d)% \+-")


def entries(out, suite="bb."):
    """{test: {field: value}} of the entries of tests named suite* in the
    baseline file(s) in out/baselines ('perfgate': {workload: {...}} for
    perfgate's reference entries)."""
    rows = []
    for path in glob.glob(os.path.join(out, "baselines", "*.yaml")):
        cur = None
        for line in open(path):
            m = re.match(r"^- test: (\S+)", line)
            if m:
                cur = {"test": m.group(1)}
                rows.append(cur)
                continue
            m = re.match(r"^  (\w+): (.*)$", line)
            if cur is not None and m:
                cur[m.group(1)] = m.group(2).strip()
            if line.startswith("ratios:"):
                cur = None
    if suite == "perfgate":
        return {r["workload"]: r for r in rows if r["test"] == "perfgate"}
    return {r["test"]: r for r in rows if r["test"].startswith(suite)}


def runs_of(e):
    text = e.get("runs_s", "").strip("[]")
    return [float(x) for x in text.split(",") if x.strip()]


def plant(out, pct):
    """Prints 'test ns' lines: pct % of each entry's median."""
    for test, e in sorted(entries(out).items()):
        print(f"{test} {float(e['median_s']) * pct / 100 * 1e9:.1f}")


def parse(path):
    """{test: (outcome, wall s, change % or None)} of one log."""
    got, cur = {}, None
    for line in open(path, errors="replace"):
        m = OUTCOME.match(line)
        if m:
            cur = m.group(2)
            # a test whose claim was not decided ends FAIL, its line says so
            undecided = m.group(1) == "FAIL" and line.rstrip().endswith(": INCONCLUSIVE")
            got[cur] = ["INCONCLUSIVE" if undecided else m.group(1), float(m.group(3)), None]
            continue
        m = CHANGE.search(line)
        if cur and m and "first attempt:" not in line:
            got[cur][2] = float(m.group(1))
    return got


def unit(s):
    return f"{s * 1e6:.2f} us" if s < 1e-3 else f"{s * 1e3:.3f} ms"


def cell(results, want):
    """'10/10' (how many checks ended `want`), with any other outcome named."""
    if not results:
        return "-"
    n = sum(r[0] == want for r in results)
    other = [r[0] for r in results if r[0] not in ("PASS", "FAIL")]
    extra = f" ({len(other)} {other[0]})" if other else ""
    return f"{n}/{len(results)}{extra}"


def summary(out):
    es = entries(out)
    logs = {}
    for path in sorted(glob.glob(os.path.join(out, "*.log"))):
        kind = os.path.basename(path).split(".")
        if kind[0] == "unchanged":
            key = "unchanged"
        elif kind[0] == "planted":
            key = f"+{kind[1]}%"
        elif kind[0] == "ratio":
            key = "ratio"
        else:
            continue
        for test, r in parse(path).items():
            logs.setdefault((key, test), []).append(r)
    plants = sorted({k for k, _ in logs if k.startswith("+")}, key=lambda k: float(k[1:-1]))
    head = ["workload", "clock", "median", "runs' spread", "tolerance", "unchanged PASS",
            "max change"] + [f"{p} FAIL" for p in plants] + ["check s", "ratio claim s"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    false_alarms = checks = 0
    for test, e in sorted(es.items(), key=lambda kv: float(kv[1]["median_s"])):
        runs = runs_of(e)
        med = float(e["median_s"])
        spread = statistics.stdev(runs) / med * 100 if len(runs) > 1 else float("nan")
        un = logs.get(("unchanged", test), [])
        checks += len(un)
        false_alarms += sum(r[0] == "FAIL" for r in un)
        changes = [r[2] for r in un if r[2] is not None]
        worst = f"{max(changes, key=abs):+.1f}%" if changes else "-"
        walls = [r[1] for r in un]
        ratio = [r[1] for r in logs.get(("ratio", "bbr." + test[3:]), [])]
        row = [test[3:], e.get("clock", "?"), unit(med), f"{spread:.2f}% ({len(runs)} runs)",
               f"{float(e['tolerance']) * 100:.1f}%", cell(un, "PASS"), worst]
        row += [cell(logs.get((p, test), []), "FAIL") for p in plants]
        row += [f"{statistics.median(walls):.2f}" if walls else "-",
                f"{statistics.median(ratio):.2f}" if ratio else "-"]
        print("| " + " | ".join(row) + " |")
    print(f"\nunchanged checks that FAILed: {false_alarms} of {checks}")
    for name, e in sorted(entries(out, "perfgate").items()):
        runs = runs_of(e)
        spread = statistics.stdev(runs) / float(e["median_s"]) * 100 if len(runs) > 1 else 0
        print(f"perfgate's {name} ({e.get('clock', '?')} clock): {unit(float(e['median_s']))}, "
              f"runs' spread {spread:.2f}% ({len(runs)} runs), tolerance "
              f"{float(e['tolerance']) * 100:.1f}%")


def main(argv):
    if len(argv) == 4 and argv[1] == "--plant":
        plant(argv[3], float(argv[2]))
    elif len(argv) == 2:
        summary(argv[1])
    else:
        sys.stderr.write("usage: baselines_summary.py [--plant PCT] OUT\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
