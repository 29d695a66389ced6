#!/usr/bin/env python3
"""claimpath.py — the path one claim takes through the framework's files, from a call trace.

Reads the logs bench/claimpath/hook.c wrote (one per process: "> ADDR" on entering a
function, "< ADDR" on leaving it) for a binary built with -finstrument-functions, finds the
process that ran the claim's entry point (perf__faster by default) and follows the calls
from it until it returns. Addresses are named with addr2line.

Each distinct call (caller function -> callee function) counts once, at its first
occurrence, so that the sampling loop's thousands of repeats do not swamp the count:
  files      the framework files the claim's calls reach
  entries    distinct calls that cross from one file into another
  re-entries those of them into a file the path had already entered
  edges      distinct (caller file -> callee file) pairs
Usage: claimpath.py BINARY LOGDIR [ENTRY] [SRCROOT]
"""
import collections
import os
import subprocess
import sys


def events(path):
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2 and parts[0] in "<>":  # a last line cut short is passed over
                yield parts[0], int(parts[1], 16)


def names(binary, addrs):
    """{addr: (function, file)} by addr2line; file '' where unknown."""
    addrs = sorted(addrs)
    out = subprocess.run(["addr2line", "-f", "-e", binary] + [hex(a) for a in addrs],
                         capture_output=True, text=True, check=True).stdout.split("\n")
    got = {}
    for i, a in enumerate(addrs):
        fn, where = out[2 * i], out[2 * i + 1]
        got[a] = (fn, where.split(":")[0])
    return got


def claim_trace(logdir, binary, entry):
    """The events from entering entry to leaving it, and the address names."""
    for name in sorted(os.listdir(logdir)):
        evs = list(events(os.path.join(logdir, name)))
        named = names(binary, {a for _, a in evs})
        start = [i for i, (k, a) in enumerate(evs) if k == ">" and named[a][0] == entry]
        if not start:
            continue
        depth, i0 = 0, start[0]
        for i in range(i0, len(evs)):
            depth += 1 if evs[i][0] == ">" else -1
            if depth == 0:
                return evs[i0:i + 1], named
        return evs[i0:], named
    sys.exit(f"claimpath: no process in {logdir} entered {entry}")


def follow(evs, named, root):
    """The counts of the module docstring over trace evs."""
    file_of = lambda a: os.path.relpath(named[a][1], root) if named[a][1] else "?"
    stack, seen_calls, entered = [], set(), []
    counts = collections.Counter()
    edges, files = set(), set()
    for kind, a in evs:
        if kind == "<":
            if stack:
                stack.pop()
            continue
        f = file_of(a)
        files.add(f)
        if stack:
            caller = stack[-1]
            call = (caller, a)
            if call not in seen_calls:
                seen_calls.add(call)
                cf = file_of(caller)
                if cf != f:
                    counts["entries"] += 1
                    edges.add((cf, f))
                    if f in entered:
                        counts["re-entries"] += 1
                    entered.append(f)
        else:
            entered.append(f)
        stack.append(a)
    return files, counts, edges


def main():
    binary, logdir = sys.argv[1], sys.argv[2]
    entry = sys.argv[3] if len(sys.argv) > 3 else "perf__faster"
    root = sys.argv[4] if len(sys.argv) > 4 else os.getcwd()
    evs, named = claim_trace(logdir, binary, entry)
    files, counts, edges = follow(evs, named, root)
    fw = sorted(f for f in files if f.startswith("framework/src/"))
    print(f"{entry}: {len(fw)} framework files reached; {counts['entries']} distinct calls "
          f"into another file, {counts['re-entries']} of them re-entering one; "
          f"{len(edges)} file-to-file edges; {sum(1 for k, _ in evs if k == '>')} calls in all")
    for f in fw:
        print(f"  {f}")


if __name__ == "__main__":
    main()
