#!/usr/bin/env python3
"""Compare the verdicts of two builds from their --json reports.

    python3 bench/same_verdicts.py before1.json before2.json -- after1.json after2.json

Each test's outcome and each measured claim's outcome (FASTER, SIMILAR,
CROSSOVER, sync checks, BASELINE) is keyed by test and claim text without
its file:line, so a rewritten perf-test file still lines up; TRUE and NEAR
result checks are counted apart. Prints every key whose outcome is not the
same in all runs of both sides, then the counts. Exit code 1 when any
differs, 0 otherwise, 2 on bad input.
"""
import collections
import json
import re
import sys


def outcomes(path):
    """(test, claim) -> outcome for one report, and its result-check counts."""
    with open(path) as f:
        report = json.load(f)
    keyed, checks = {}, collections.Counter()
    for test in report["tests"]:
        keyed[(test["name"], "(test)")] = test["outcome"]
        for claim in test.get("claims", []):
            head = re.sub(r" at [^ ]+:\d+", "", claim["message"].split(": ")[0])
            if head.startswith(("TRUE(", "NEAR")):
                checks[claim["outcome"]] += 1
                continue
            key, n = (test["name"], head), 2
            while key in keyed:
                key, n = (test["name"], "%s #%d" % (head, n)), n + 1
            keyed[key] = claim["outcome"]
    return keyed, checks


def main(argv):
    if "--" not in argv or argv.index("--") in (0, len(argv) - 1):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    cut = argv.index("--")
    try:
        sides = [[outcomes(p) for p in argv[:cut]], [outcomes(p) for p in argv[cut + 1:]]]
    except (OSError, ValueError, KeyError) as e:
        print("same_verdicts: %s" % e, file=sys.stderr)
        return 2
    keys = sorted(set().union(*[set(k) for side in sides for k, _ in side]))
    differ = 0
    for key in keys:
        seen = [[run.get(key, "-") for run, _ in side] for side in sides]
        if len(set(seen[0] + seen[1])) == 1:
            continue
        differ += 1
        print("%-60s %-44s %s | %s" % (key[0][:60], key[1][:44], " ".join(seen[0]), " ".join(seen[1])))
    print("%d tests and measured claims the same in all %d + %d runs; %d differ or flip"
          % (len(keys) - differ, len(sides[0]), len(sides[1]), differ))
    for name, side in zip(("before", "after"), sides):
        checks = collections.Counter()
        for _, c in side:
            checks.update(c)
        print("%s: TRUE/NEAR result checks %s" % (name, dict(checks)))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
