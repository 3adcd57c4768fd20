#!/usr/bin/env python3
"""refs.py MODEL SOURCE...: check that every step of the model names code that
exists.  A step is tagged '@function "fragment"'; the fragment must occur in
the body of that function in one of the SOURCE files.  Prints 'function:line  fragment' for
each step (the line it stands for) and exits 1 if any fragment is missing."""
import re
import sys


def functions(src):
    """function name -> (first line, last line), 1-based."""
    lines = src.split('\n')
    out = {}
    for i, l in enumerate(lines):
        m = re.match(r'^(?:static |inline |__always_inline |\w+ )*[\w \*]*?\b(\w+)\(', l)
        if not m or l.startswith((' ', '\t', '#', '/', '*')) or l.rstrip().endswith(';'):
            continue
        j = i
        while j < len(lines) and lines[j] != '{':
            if lines[j].rstrip().endswith(';'):
                break
            j += 1
        if j == len(lines) or lines[j] != '{':
            continue
        k = j
        while k < len(lines) and lines[k] != '}':
            k += 1
        out.setdefault(m.group(1), []).append((i + 1, k + 1))
    return out, lines


def main():
    model = sys.argv[1]
    funcs, lines = {}, []
    for source in sys.argv[2:]:
        f, l = functions(open(source).read())
        for name, spans in f.items():
            funcs.setdefault(name, []).extend(
                (a + len(lines), b + len(lines)) for a, b in spans)
        lines += l
    bad = 0
    for ln, l in enumerate(open(model), 1):
        for m in re.finditer(r'@(\w+) "((?:[^"\\]|\\.)*)"', l):
            name, frag = m.group(1), m.group(2)
            where = None
            for a, b in funcs.get(name, []):
                for n in range(a, b + 1):
                    if frag in lines[n - 1]:
                        where = n
                        break
            if where:
                print('%s:%d  model line %d  %s' % (name, where, ln, frag))
            else:
                print('MISSING: model line %d: %s "%s" not in %s()' % (ln, name, frag, name))
                bad = 1
    sys.exit(bad)


if __name__ == '__main__':
    main()
