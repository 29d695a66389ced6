#!/usr/bin/env python3
"""shape.py — the code's shape against issue 51's limits: long functions, wide ones, long files.
Reads framework/src (C), README.md and docs/*.md; prints what exceeds each limit and a
summary line per limit. Exit 0 always: a measure, not a gate.
Usage: python3 bench/shape.py [--all]   (--all lists every function, longest first)"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMITS = {"function lines": 60, "parameters": 7, "file lines": 700, "README lines": 300,
          "docs page lines": 400}


def functions(path):
    """(name, first line, lines, parameters) of each function defined in a C file: a
    '{' alone at column 0 after its signature, to the '}' at column 0."""
    lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
    out = []
    for i, line in enumerate(lines):
        if line != "{":
            continue
        j = i - 1
        while j >= 0 and lines[j].strip() and not lines[j].rstrip().endswith((";", "*/", "}")) \
                and not lines[j].startswith(("#", "/*", " *")):
            j -= 1
        sig = " ".join(l.strip() for l in lines[j + 1:i])
        m = re.search(r"(\w+)\s*\((.*)\)\s*$", sig)
        if not m:
            continue
        end = next((k for k in range(i + 1, len(lines)) if lines[k] == "}"), len(lines) - 1)
        params = m.group(2).strip()
        depth, n = 0, 0 if params in ("", "void") else 1
        for ch in params:
            depth += ch == "("
            depth -= ch == ")"
            n += ch == "," and depth == 0
        out.append((m.group(1), j + 2, end - j, n))
    return out


def main():
    src = os.path.join(ROOT, "framework", "src")
    funcs, files = [], []
    for d, _, names in os.walk(src):
        for name in names:
            p = os.path.join(d, name)
            rel = os.path.relpath(p, ROOT)
            if name.endswith((".c", ".h")):
                files.append((sum(1 for _ in open(p, encoding="utf-8", errors="replace")), rel))
            if name.endswith(".c"):
                funcs += [(rel,) + f for f in functions(p)]
    long_f = sorted((f for f in funcs if f[3] > LIMITS["function lines"]), key=lambda f: -f[3])
    wide_f = sorted((f for f in funcs if f[4] > LIMITS["parameters"]), key=lambda f: -f[4])
    big = sorted((f for f in files if f[0] > LIMITS["file lines"]), reverse=True)
    docs = [(sum(1 for _ in open(os.path.join(ROOT, "docs", n))), "docs/" + n)
            for n in sorted(os.listdir(os.path.join(ROOT, "docs"))) if n.endswith(".md")]
    readme = sum(1 for _ in open(os.path.join(ROOT, "README.md")))
    for title, rows, fmt in (("functions over 60 lines", long_f, "  {3:4d} lines  {0}:{2} {1}"),
                             ("functions over 7 parameters", wide_f,
                              "  {4:4d} params {0}:{2} {1}"),
                             ("files over 700 lines", big, "  {0:4d} lines  {1}"),
                             ("docs pages over 400 lines", [d for d in docs if d[0] > 400],
                              "  {0:4d} lines  {1}")):
        print(f"{title}: {len(rows)}")
        for r in rows:
            print(fmt.format(*r))
    print(f"functions of 7 parameters: {sum(1 for f in funcs if f[4] == 7)}")
    lens = sorted(f[3] for f in funcs)
    print(f"functions: {len(funcs)}, median {lens[len(lens) // 2]} lines, "
          f"p90 {lens[len(lens) * 9 // 10]}, max {lens[-1]}")
    print(f"README.md: {readme} lines (limit 300); docs pages: {len(docs)}, longest "
          f"{max(docs)[0]} lines ({max(docs)[1]})")
    if "--all" in sys.argv:
        for f in sorted(funcs, key=lambda f: -f[3]):
            print(f"  {f[3]:4d} {f[4]:2d}  {f[0]}:{f[2]} {f[1]}")


if __name__ == "__main__":
    main()
