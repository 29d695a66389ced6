#!/usr/bin/env python3
"""commit_plant.py — how often --commit-report finds a planted change in a
real history of unchanged code (bench/commit-noise.sh records one).

For each workload series of the history's GPU (or those named by --match),
a copy of the history gets one more commit, "planted": a copy of the newest
run with that workload's median (and its interval) times 1 + SIZE, and the
ratios of the claims that measured it moved with it, nothing else changed; then --commit-report=planted says REGRESSED (by that workload or
its claims' ratios), or not. Prints each series with its noise between runs (the
standard deviation of its log medians over the history) and the verdict,
then a table by noise. A benchmark of the rule on real noise with a
synthetic change, not a test.

  bench/commit_plant.py BINARY HISTORY.db [--size=0.05] [--match=SUBSTRING]
"""
import argparse, math, os, shutil, sqlite3, statistics, subprocess, tempfile

def series_of(db):
    c = sqlite3.connect(db)
    rows = c.execute("SELECT r.id, w.test, w.workload, w.clock, w.sweep_value, w.median_s FROM "
                     "perfgate_workloads w JOIN perfgate_runs r ON r.id = w.run_id ORDER BY r.id").fetchall()
    by = {}
    for rid, t, w, clk, sv, m in rows:
        by.setdefault((t, w, clk, sv), {}).setdefault(rid, []).append(m)
    out = {}
    for k, runs in by.items():
        logs = [math.log(statistics.median(v)) for v in runs.values() if all(x and x > 0 for x in v)]
        if len(logs) >= 3:
            out[k] = statistics.stdev(logs)
    return out

def plant(src, dst, key, size):
    shutil.copy(src, dst)
    c = sqlite3.connect(dst)
    last = c.execute("SELECT max(id) FROM perfgate_runs").fetchone()[0]
    cols = [r[1] for r in c.execute("PRAGMA table_info(perfgate_runs)")]
    new = last + 1
    sel = ", ".join(str(new) if x == "id" else "'planted'" if x == "commit_id" else x for x in cols)
    c.execute(f"INSERT INTO perfgate_runs ({', '.join(cols)}) SELECT {sel} FROM perfgate_runs WHERE id = ?", (last,))
    for table in ("perfgate_workloads", "perfgate_claims"):
        tc = [r[1] for r in c.execute(f"PRAGMA table_info({table})")]
        sel = ", ".join(str(new) if x == "run_id" else x for x in tc)
        c.execute(f"INSERT INTO {table} ({', '.join(tc)}) SELECT {sel} FROM {table} WHERE run_id = ?", (last,))
    t, w, clk, sv = key
    f = 1 + size
    c.execute("UPDATE perfgate_workloads SET median_s = median_s * ?, median_lo_s = median_lo_s * ?, "
              "median_hi_s = median_hi_s * ? WHERE run_id = ? AND test = ? AND workload = ? AND clock = ? "
              "AND coalesce(sweep_value, -1) = coalesce(?, -1)", (f, f, f, new, t, w, clk, sv))
    # the claims that measured it: a FASTER or SIMILAR ratio is b's median over a's
    for seq, role in c.execute("SELECT claim_seq, role FROM perfgate_workloads WHERE run_id = ? AND test = ? "
                               "AND workload = ? AND clock = ? AND coalesce(sweep_value, -1) = coalesce(?, -1)",
                               (new, t, w, clk, sv)).fetchall():
        g = f if role == "b" else 1 / f
        c.execute("UPDATE perfgate_claims SET ratio = ratio * ?, ratio_lo = ratio_lo * ?, ratio_hi = ratio_hi * ? "
                  "WHERE run_id = ? AND seq = ?", (g, g, g, new, seq))
    c.commit()
    c.close()

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("history")
    ap.add_argument("--size", type=float, default=0.05)
    ap.add_argument("--match", default="")
    a = ap.parse_args()
    noise = series_of(a.history)
    tmp = tempfile.mkdtemp()
    env = dict(os.environ, GIT_DIR="/nonexistent")
    bins = [(0.01, "<= 1 %"), (0.03, "1-3 %"), (1e9, "> 3 %")]
    table = {b: [0, 0, 0] for _, b in bins}  # found, undecided, series
    for key, sd in sorted(noise.items(), key=lambda kv: kv[1]):
        label = f"{key[0]}: {key[1]} [{key[2]}]" + (f" n={key[3]}" if key[3] is not None else "")
        if a.match not in label:
            continue
        db = os.path.join(tmp, "h.db")
        plant(a.history, db, key, a.size)
        r = subprocess.run([a.binary, f"--history={db}", "--commit-report=planted"], env=env,
                           capture_output=True, text=True)
        found = r.returncode == 1  # the planted change is the only one: a REGRESSED is its
        undecided = r.returncode == 125
        b = next(b for lim, b in bins if sd <= lim)
        table[b][0] += found
        table[b][1] += undecided
        table[b][2] += 1
        print(f"{'FOUND' if found else 'undecided' if undecided else 'missed'}  {100 * sd:5.2f} %  {label}")
    print(f"\n+{100 * a.size:.0f} % planted in one workload (and its claims' ratios) at a new commit; its noise between runs over the history:")
    print("| noise between runs | series | REGRESSED | not decided (125) |\n|---|---|---|---|")
    for _, b in bins:
        f, u, n = table[b]
        if n:
            print(f"| {b} | {n} | {f} ({100 * f / n:.0f} %) | {u} |")
    shutil.rmtree(tmp)

if __name__ == "__main__":
    main()
