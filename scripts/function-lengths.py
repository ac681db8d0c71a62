#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lists the functions in src/ longer than a limit (default 80 lines, docs/design.md), longest
first, and exits 1 when there is any. A function is a brace block whose head has a parameter
list and is not a control statement, namespace, type or initializer; its length runs from its
opening brace's line to its closing brace's, comments included. Comments, string and character
literals (raw strings too) and preprocessor lines are blanked first, so braces in them do not
count. Usage: scripts/function-lengths.py [LIMIT]"""
import re
import subprocess
import sys


def blank(text):
    """`text` with everything but its newlines replaced by spaces."""
    return re.sub(r"[^\n]", " ", text)


def strip(src):
    """`src` with comments and literals blanked, line structure kept."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif src.startswith('R"', i) and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', src[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = src.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
        elif c == '"' or (c == "'" and not (i > 0 and src[i - 1].isdigit())):
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j += 1
        else:
            out.append(c)
            i += 1
            continue
        out.append(blank(src[i:j]))
        i = j
    text = "".join(out)
    return re.sub(r"(?m)^[ \t]*#.*$", lambda m: " " * len(m.group()), text)


def long_functions(path, limit):
    s = strip(open(path, encoding="utf-8").read())
    stack, last, found = [], 0, []
    for m in re.finditer(r"[{};]", s):
        pos = m.start()
        if m.group() == "{":
            head = s[last:pos].strip()
            in_function = any(kind == "fn" for kind, _, _ in stack)
            is_function = (not in_function and ")" in head
                           and not re.match(r"^(namespace|struct|class|enum|union)\b", head)
                           and not re.search(r"=\s*$", head)
                           and not re.match(r"^(if|for|while|switch|catch|do)\b", head))
            stack.append(("fn" if is_function else "block", s.count("\n", 0, pos) + 1,
                          " ".join(head.split())[:70]))
        elif m.group() == "}" and stack:
            kind, start, head = stack.pop()
            lines = s.count("\n", 0, pos) + 1 - start + 1
            if kind == "fn" and lines > limit:
                found.append((lines, path, start, head))
        last = pos + 1
    return found


def main():
    limit = int(sys.argv[1]) if len(sys.argv) > 1 else 80
    files = subprocess.run(["git", "ls-files", "src"], capture_output=True, text=True,
                           check=True).stdout.split()
    found = []
    for f in files:
        if f.endswith((".cpp", ".h")):
            found += long_functions(f, limit)
    for lines, path, start, head in sorted(found, reverse=True):
        print(f"{path}:{start}: {lines} lines: {head}")
    print(f"{len(found)} functions over {limit} lines")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
