#!/usr/bin/env python3
"""noise_summary.py — bench-noise's table: injected runs' claims against the quiet run's verdicts.
Each claim of each injected suite run, and the A/A lines (docs/fidelity-noise.md).

Usage: python3 bench/noise_summary.py OUT   (OUT: NOISE_OUT of bench/noise.sh)
       python3 bench/noise_summary.py --injections   (the injections, in order: noise.sh's list)

Reads OUT/INJECTION/suite.K.json (--json reports), suite.K.log (its last line:
"suite_exit RC seconds S") and aa.CLOCK.txt (bench-fidelity aa's output), for
the injections of INJECTIONS. The reference is
OUT/quiet/suite.1.json. Prints one table per run, then the A/A table, the
targets and the summary table (markdown), and writes the same to
OUT/results.md. Exit 2 when the reference cannot be read.

A claim is a record with an "id" in a test's "claims" (FASTER, SIMILAR,
CROSSOVER, BASELINE; TRUE and sync checks have none and are left out), keyed
by its test and id. Against the reference's PASS or FAIL, a run's claim is:
  right       the same verdict; of these, "despite" when its verdict line
              says samples were retaken or kept disturbed or rounds another
              process shared were dropped, or a second attempt decided it
  named       not PASS or FAIL, its verdict line naming the injected cause
              (the co-tenant for gpu, the host for cpu-*, either for both)
  other       not PASS or FAIL, naming a cause that was not injected
  unnamed     not PASS or FAIL, naming no cause: a defect
  wrong       PASS where the reference FAILed, or FAIL where it PASSed
  not reached absent from the run although its test ran (it timed out or
              ended early); claims of tests the run did not run are left out
A reference claim that is neither PASS nor FAIL is counted apart.
"""
import json
import os
import re
import sys

# The injections in order, each with the causes its claims may be named
# with (see CAUSES); idle's co-tenant holds a context and queues nothing, so
# no claim may name it.
EXPECTED = {"quiet": set(), "cpu-all": {"host"}, "cpu-half": {"host"}, "gpu": {"co-tenant"},
            "both": {"host", "co-tenant"}, "copy": {"co-tenant"}, "tiny": {"co-tenant"},
            "matmul": {"co-tenant"}, "bursty": {"co-tenant"}, "idle": set()}
INJECTIONS = list(EXPECTED)

# How perfgate names a cause on a verdict line or a test's reason; the wording
# is the framework's: worker/claim/compare.c and worker/claim/bldoor.c ("another
# process used the GPU"), worker/sample/workload.c ("another process is using the
# GPU"), worker/claim/hostnoise.c ("; the host: " + host/hostcause.c's phrase, whose
# "no host cause seen" names none; "samples the host preempted on every
# retake"), supervisor/supervisor.c (a timeout's "; the host: ").
CAUSES = [
    ("co-tenant", re.compile(r"another process (?:used|is using) the GPU")),
    ("host", re.compile(r"the host: (?!no host cause seen)|samples the host preempted on every retake")),
]
# A verdict line's retake counts (worker/claim/compare.c, perf__compare_disturbed_text).
HOST_RETAKES = re.compile(r"(\d+) samples? retaken and (\d+) kept although the host preempted")
SHARED_RETAKES = re.compile(r"(\d+) samples? retaken and (\d+) kept while another process used the GPU")
UNSHARED_ROUNDS = "decided on the rounds during which no other process used the GPU"
FIRST = "first attempt: "  # report/result.h, PERF__RESULT_FIRST
DECIDED = ("PASS", "FAIL")
COLUMNS = ["right", "despite", "named", "other", "unnamed", "wrong", "missing"]
LABELS = {"right": "decided right", "despite": "of which despite the noise",
          "named": "INCONCLUSIVE, injected cause named", "other": "INCONCLUSIVE, other cause named",
          "unnamed": "INCONCLUSIVE, no cause named", "wrong": "wrong", "missing": "not reached"}


def causes_in(text):
    """The causes text names (a set of CAUSES' names)."""
    return {name for name, rx in CAUSES if rx.search(text or "")}


def head_of(message, outcome):
    """A claim message's head: the text before ": OUTCOME"."""
    at = message.find(": " + outcome)
    return message[:at] if at >= 0 else message


class Report:
    """One --json report: its claims by key, with their verdict lines."""

    def __init__(self, path):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        self.path = path
        self.exit_code = data.get("run", {}).get("exit_code")
        self.totals = data.get("totals", {})
        self.tests = data.get("tests", [])
        self.claims = {}
        for t in self.tests:
            self._read_test(t)

    def _read_test(self, t):
        seen = {}
        used = {}
        first = {c.get("id"): c.get("outcome") for c in (t.get("first_attempt") or {}).get("claims", [])
                 if c.get("id")}
        for c in t.get("claims", []):
            cid = c.get("id")
            if not cid:
                continue
            seen[cid] = seen.get(cid, 0) + 1
            key = "%s :: %s%s" % (t.get("name"), cid, "" if seen[cid] == 1 else " #%d" % seen[cid])
            outcome = c.get("outcome", "?")
            line = self._line(t, c, outcome, used)
            self.claims[key] = {
                "outcome": outcome,
                "text": c.get("message", "") + "\n" + line,
                "line": line,
                "second": c.get("attempt") == 2 and first.get(cid, "PASS") != "PASS",
            }

    @staticmethod
    def _line(t, c, outcome, used):
        """The verdict line of claim c among t's lines (the first attempt's, prefixed,
        for a claim taken from it), each line used once; "" when there is none."""
        head = head_of(c.get("message", ""), outcome) + ": " + outcome
        prefix = FIRST if c.get("attempt") == 1 else ""
        for i, line in enumerate(t.get("lines", [])):
            if i not in used.setdefault(t.get("name"), set()) and line.startswith(prefix + head):
                used[t["name"]].add(i)
                return line
        return ""

    def red(self):
        return [t["name"] for t in self.tests if t.get("outcome") in ("FAIL", "ERROR")]

    def timeouts(self):
        return [t for t in self.tests if "timed out after" in (t.get("reason") or "")]


def disturbed(claim):
    """Why a claim's verdict came despite noise (a list of words; empty: undisturbed)."""
    why = []
    line = claim["line"]
    if any(int(a) or int(b) for a, b in HOST_RETAKES.findall(line)):
        why.append("host retakes")
    if any(int(a) or int(b) for a, b in SHARED_RETAKES.findall(line)) or UNSHARED_ROUNDS in line:
        why.append("co-tenant rounds dropped or retaken")
    if claim["second"]:
        why.append("second attempt")
    return why


def classify(ref, got, injection):
    """The class of one claim (COLUMNS) against the reference's claim ref."""
    if got is None:
        return "missing"
    if got["outcome"] == ref["outcome"]:
        return "right"
    if got["outcome"] in DECIDED:
        return "wrong"
    named = causes_in(got["text"])
    if named & EXPECTED[injection]:
        return "named"
    return "other" if named else "unnamed"


def compare(ref, run, injection):
    """Counts per class, why the "despite" ones were disturbed, the rows worth showing
    (every class but right) and the count of reference claims whose test this run
    did not run (left out)."""
    counts = dict.fromkeys(COLUMNS, 0)
    why = {}
    rows = []
    ran = {t.get("name") for t in run.tests}
    not_run = 0
    for key, r in ref.claims.items():
        if r["outcome"] not in DECIDED:
            continue
        if key.split(" :: ", 1)[0] not in ran:
            not_run += 1
            continue
        got = run.claims.get(key)
        cls = classify(r, got, injection)
        counts[cls] += 1
        if cls == "right":
            for w in disturbed(got):
                why[w] = why.get(w, 0) + 1
            counts["despite"] += bool(disturbed(got))
            continue
        rows.append((key, r["outcome"], got["outcome"] if got else "-", cls, cause_text(got)))
    return counts, why, rows, not_run


def cause_text(got):
    """What a row shows of an undecided or wrong claim's line: the reason in
    "INCONCLUSIVE (...)", a CROSSOVER's undecided points, the host's phrase."""
    if got is None:
        return ""
    line = got["line"] or got["text"]
    parts = []
    m = re.search(r"INCONCLUSIVE \(([^)]*)\)", line)
    if m:
        parts.append(m.group(1))
    m = re.search(r"\d+ points? left undecided: [^;]*", line)
    if m:
        parts.append(m.group(0))
    m = re.search(r"the host: .*", line)  # the last part of a line (worker/claim/hostnoise.c)
    if m:
        parts.append(m.group(0))
    text = "; ".join(parts) or line.split("\n")[0]
    return text[:240].replace("|", "/")


def suite_seconds(log):
    """The suite's exit and seconds from noise.sh's last log line, or (None, None)."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None, None
    for line in reversed(lines):
        m = re.match(r"suite_exit (\d+) seconds ([\d.]+)", line)
        if m:
            return int(m.group(1)), float(m.group(2))
    return None, None


def read_aa(path):
    """bench-fidelity aa's output: its summary fields and its wrong verdicts split
    by word and cause; None when absent or without a summary line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    aa = None
    out = {"fail": 0, "inc_named": 0, "inc_unnamed": 0, "false_pass": 0}
    for line in lines:
        if line.startswith("aa "):
            aa = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
        elif line.startswith("wrong: "):
            verdict = line[len("wrong: "):]
            word = re.search(r": (PASS|FAIL|INCONCLUSIVE)\b", verdict)
            word = word.group(1) if word else "?"
            if word == "PASS":
                out["false_pass"] += 1
            elif word == "FAIL":
                out["fail"] += 1
            else:
                out["inc_named" if causes_in(verdict) else "inc_unnamed"] += 1
    if aa is None:
        return None
    out["must_n"] = int(aa.get("similar_n", 0)) + int(aa.get("not_slower_n", 0))
    out["not_pass"] = int(aa.get("similar_false_fail", 0)) + int(aa.get("not_slower_false_fail", 0))
    out["faster_n"] = int(aa.get("faster_n", 0))
    out["printed_false_pass"] = int(aa.get("faster_false_pass", 0))
    out["seconds"] = "%s, %s, %s" % (aa.get("similar_s", "?"), aa.get("not_slower_s", "?"),
                                     aa.get("faster_s", "?"))
    return out


def runs_of(out, injection):
    """The suite runs of an injection: [(k, json path, log path)], by k."""
    d = os.path.join(out, injection)
    found = []
    for name in os.listdir(d) if os.path.isdir(d) else []:
        m = re.fullmatch(r"suite\.(\d+)\.json", name)
        if m:
            found.append((int(m.group(1)), os.path.join(d, name), os.path.join(d, "suite.%s.log" % m.group(1))))
    return sorted(found)


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return out


def run_section(injection, k, run, result, log):
    """One run's table: the claims that were not decided right."""
    rc, secs = suite_seconds(log)
    if run is None:
        return ["", "### %s, run %d: no report" % (injection, k)]
    counts, why, rows, not_run = result
    red = run.red()
    title = "### %s, run %d: %d of %d tests red%s, %s" % (
        injection, k, len(red), len(run.tests), " (" + ", ".join(red) + ")" if red else "",
        "%.1f s, exit %s" % (secs, rc) if secs is not None else "time unknown")
    out = ["", title, ""]
    out.append(", ".join("%s %d" % (LABELS[c], counts[c]) for c in COLUMNS) +
               (" (despite: %s)" % ", ".join("%s %d" % kv for kv in sorted(why.items())) if why else "") +
               ("; %d claims of tests this run did not run left out" % not_run if not_run else ""))
    out.append("")
    if rows:
        out += table(["claim", "quiet", "this run", "class", "cause"], rows)
    else:
        out.append("(every claim decided as in the quiet run)")
    return out


def wall(secs, quiet_s):
    """The longest run's seconds and its ratio to the quiet reference's, or "-"."""
    if not secs:
        return "-"
    worst = max(float(x) for x in secs)
    if not quiet_s or float(quiet_s) <= 0:
        return "%.1f" % worst
    return "%.1f (%.2fx)" % (worst, worst / float(quiet_s))


def main(argv):
    if argv[1:] == ["--injections"]:
        print(" ".join(INJECTIONS))
        return 0
    if len(argv) != 2:
        print("usage: noise_summary.py OUT | --injections", file=sys.stderr)
        return 2
    out = argv[1]
    ref_path = os.path.join(out, "quiet", "suite.1.json")
    try:
        ref = Report(ref_path)
    except (OSError, ValueError) as e:
        print("noise_summary: no quiet reference: %s: %s" % (ref_path, e), file=sys.stderr)
        return 2
    lines = ["# bench-noise: verdicts under injected noise", ""]
    try:
        with open(os.path.join(out, "gpu.txt"), encoding="utf-8") as f:
            lines.append("GPU: " + f.read().strip())
    except OSError:
        lines.append("GPU: unknown")
    ref_red = ref.red()
    undecided = sum(1 for c in ref.claims.values() if c["outcome"] not in DECIDED)
    if ref_red or ref.exit_code not in (0, None):
        lines.append("")
        lines.append("**The quiet reference run was not green** (exit %s; red: %s): the comparison "
                     "is against a red reference." % (ref.exit_code, ", ".join(ref_red) or "none"))
    lines.append("")
    lines.append("Reference: %s, %d claims with an id, %d of them neither PASS nor FAIL "
                 "(left out of the counts)." % (ref_path, len(ref.claims), undecided))

    summary = {}
    for injection in INJECTIONS:
        for k, path, log in runs_of(out, injection):
            if injection == "quiet" and k == 1:
                continue
            try:
                run = Report(path)
            except (OSError, ValueError):
                run = None
            result = compare(ref, run, injection) if run else None
            lines += run_section(injection, k, run, result, log)
            s = summary.setdefault(injection, {"runs": 0, "noreport": 0, "red": 0, "timeouts": 0,
                                               "timeouts_named": 0, "secs": [],
                                               **dict.fromkeys(COLUMNS, 0)})
            s["runs"] += 1
            secs = suite_seconds(log)[1]
            if secs is not None:
                s["secs"].append(secs)
            if run is None:
                s["noreport"] += 1
                continue
            for c in COLUMNS:
                s[c] += result[0][c]
            s["red"] += len(run.red())
            for t in run.timeouts():
                s["timeouts"] += 1
                s["timeouts_named"] += bool(causes_in(t.get("reason")) & EXPECTED[injection])

    aa_rows = []
    aa_of = {}
    for injection in INJECTIONS:
        for clock in ("events", "device"):
            a = read_aa(os.path.join(out, injection, "aa.%s.txt" % clock))
            if a is None:
                continue
            aa_of[(injection, clock)] = a
            aa_rows.append([injection, clock, a["must_n"], a["not_pass"], a["fail"], a["inc_named"],
                            a["inc_unnamed"], "%d/%d" % (a["false_pass"], a["faster_n"]), a["seconds"]])
    if aa_rows:
        lines += ["", "## A/A (bench-fidelity aa N ew_256k CLOCK)", ""]
        lines += table(["injection", "clock", "must hold", "not PASS", "of which FAIL (false fail)",
                        "INCONCLUSIVE, cause named", "INCONCLUSIVE, none named",
                        "FASTER(1.05) false pass", "s per comparison"], aa_rows)

    total = {c: sum(s[c] for i, s in summary.items() if i != "quiet") for c in COLUMNS}
    lines += ["", "## Targets", ""]
    lines.append("- wrong verdicts under injections (target 0): %d" % total["wrong"])
    lines.append("- INCONCLUSIVE not naming the injected cause (target 0): %d naming another cause, "
                 "%d naming none" % (total["other"], total["unnamed"]))
    lines.append("- decided despite the noise: %d; INCONCLUSIVE naming the injected cause: %d"
                 % (total["despite"], total["named"]))
    for clock in ("events", "device"):
        a = aa_of.get(("cpu-half", clock))
        if a:
            lines.append("- A/A beside cpu-half, %s clock (target at most 1 FAIL per 1000 must-hold "
                         "claims, >= 1000 claims): %d FAIL, %d not PASS of %d"
                         % (clock, a["fail"], a["not_pass"], a["must_n"]))
    lines += ["", "## Summary", ""]
    rows = []
    empty = {"runs": 0, "noreport": 0, "red": 0, "timeouts": 0, "timeouts_named": 0, "secs": [],
             **dict.fromkeys(COLUMNS, 0)}
    quiet_s = suite_seconds(os.path.join(out, "quiet", "suite.1.log"))[1]
    for injection in INJECTIONS:
        s = summary.get(injection)
        if not s and not any(i == injection for i, _ in aa_of):
            continue
        s = s or empty
        aa = ["%d/%d" % (aa_of[(injection, c)]["fail"], aa_of[(injection, c)]["must_n"])
              if (injection, c) in aa_of else "-" for c in ("events", "device")]
        rows.append([injection + (" (runs 2+)" if injection == "quiet" else ""),
                     s["runs"] - s["noreport"]] + [s[c] for c in COLUMNS] +
                    [s["red"], "%d (%d named)" % (s["timeouts"], s["timeouts_named"]),
                     wall(s["secs"], quiet_s)] + aa)
    lines += table(["injection", "runs"] + [LABELS[c] for c in COLUMNS] +
                   ["tests red", "timeouts (injected cause named)",
                    "suite wall s, longest (x quiet run 1)", "A/A events FAIL",
                    "A/A device FAIL"], rows)
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    try:
        with open(os.path.join(out, "results.md"), "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        print("noise_summary: cannot write results.md: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
