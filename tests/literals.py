#!/usr/bin/env python3
"""literals: every literal of one of the project's structs with more than four values names its
fields (designated initialisers), so no table reads as a list of values whose meaning is the
order of a struct declared elsewhere. Looks at compound literals, initialised variables and the
elements of initialised arrays whose type is a struct the sources define; fails listing each
file:line. Usage: literals.py SOURCE_DIR."""
import glob
import os
import re
import sys

DIRS = ("models", "io", "sim", "real", "cmd", "tests", "bench", "fuzz")


def skip_quoted(s, i):
    """The index past the string or character literal that starts at s[i]."""
    q, i = s[i], i + 1
    while s[i] != q:
        i += 2 if s[i] == "\\" else 1
    return i + 1


def without_comments(s):
    out, i = [], 0
    while i < len(s):
        if s.startswith("/*", i):
            j = s.index("*/", i) + 2
            out.append("\n" * s.count("\n", i, j))  # keep the line numbers
            i = j
        elif s.startswith("//", i):
            i = s.find("\n", i) if "\n" in s[i:] else len(s)
        elif s[i] in "\"'":
            j = skip_quoted(s, i)
            out.append(s[i:j])
            i = j
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def close(s, i):
    """The index past the bracket that closes the one just before s[i]."""
    depth = 1
    while depth:
        c = s[i]
        if c in "\"'":
            i = skip_quoted(s, i)
            continue
        depth += c in "([{"
        depth -= c in ")]}"
        i += 1
    return i


def top_level(body):
    """body's values: the count of its top-level commas plus one, and whether one is named."""
    parts, depth, cur, i = [], 0, [], 0
    while i < len(body):
        c = body[i]
        if c in "\"'":
            j = skip_quoted(body, i)
            cur.append(body[i:j])
            i = j
            continue
        depth += c in "([{"
        depth -= c in ")]}"
        if c == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    if "".join(cur).strip():
        parts.append("".join(cur))
    named = any(re.match(r"\s*\.\w+\s*=", p) for p in parts)
    return len(parts), named


def main():
    root = sys.argv[1]
    files = sorted(f for d in DIRS for f in glob.glob(os.path.join(root, d, "*.[ch]")))
    texts = {f: without_comments(open(f, encoding="utf-8").read()) for f in files}
    structs = set()
    for s in texts.values():
        structs.update(re.findall(r"typedef struct\s*\w*\s*\{[^}]*\}\s*(\w+)\s*;", s))
        structs.update(re.findall(r"typedef struct (\w+)\s*\{", s))
    bad = []
    lit = re.compile(r"\((?:const )?(\w+)\)\s*\{|\b(?:const\s+)?(\w+)\s+(?:const\s+)?\w+\s*="
                     r"\s*\{|\b(?:const\s+)?(\w+)\s+(?:const\s+)?\w+\[\w*\]\s*=\s*\{")
    for f in files:
        if not f.endswith(".c"):
            continue
        s = texts[f]
        for m in lit.finditer(s):
            t = m.group(1) or m.group(2) or m.group(3)
            if t not in structs:
                continue
            end = close(s, m.end())
            body = s[m.end():end - 1]
            bodies = [(m.end(), body)]
            if m.group(3):  # an array: each of its braced elements
                bodies, i = [], m.end()
                while i < end - 1:
                    if s[i] in "\"'":
                        i = skip_quoted(s, i)
                    elif s[i] == "{":
                        j = close(s, i + 1)
                        bodies.append((i + 1, s[i + 1:j - 1]))
                        i = j
                    else:
                        i += 1
            for at, b in bodies:
                n, named = top_level(b)
                if n > 4 and not named:
                    bad.append(f"{os.path.relpath(f, root)}:{s.count(chr(10), 0, at) + 1}: a {t} "
                               f"of {n} values without field names")
    for b in bad:
        print(b)
    print(f"literals: {len(bad)} struct literals of more than four values without field names")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
