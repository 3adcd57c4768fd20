#!/usr/bin/env python3
"""barriers.py SOURCE... DOC: check that the barrier table of the document
matches the barrier comments of the code.

In each SOURCE, every comment inside a function that starts with a label
'LRB-XN:' marks a barrier; the labels after 'Pairs with' / 'pairs with' in
that comment are its partners.  In DOC, every table row starting with a
label gives: label, function, ..., partners (the labels of the last
column).  Labels, functions and partner sets must agree."""
import re
import sys

LABEL = re.compile(r'LRB-[WR]\d+')


def code_barriers(path):
    out = {}
    func = None
    lines = open(path).read().split('\n')
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r'^[a-z].*?\b(\w+)\(', l)
        if m and not l.rstrip().endswith(';'):
            func = m.group(1)
        m = re.match(r'^\s+(?:/\*|\*)\s*(LRB-[WR]\d+):', l)
        if m and func:
            text = l
            j = i
            while '*/' not in lines[j]:
                j += 1
                text += ' ' + lines[j]
            after = re.split(r'[Pp]airs with', text, maxsplit=1)
            pairs = set(LABEL.findall(after[1])) if len(after) > 1 else set()
            out[m.group(1)] = (func + '()', pairs)
            i = j
        i += 1
    return out


def doc_barriers(path):
    out = {}
    rows = []
    for l in open(path):
        m = re.match(r'^\s+(LRB-[WR]\d+)\s+(\w+\(\))\s', l)
        if m:
            rows.append([m.group(1), m.group(2), l])
        elif rows and l.strip().startswith('='):
            break       # the end of the table
        elif rows and re.match(r'^\s{4,}\S', l):
            rows[-1][2] += l
    for label, func, text in rows:
        # The partners column starts at the column of 'pairs with'.
        pairs = set(LABEL.findall(text)) - {label}
        out[label] = (func, pairs)
    return out


def main():
    code = {}
    for source in sys.argv[1:-1]:
        code.update(code_barriers(source))
    doc = doc_barriers(sys.argv[-1])
    bad = 0
    for label in sorted(set(code) | set(doc)):
        c, d = code.get(label), doc.get(label)
        if c != d:
            print('MISMATCH %s: code %s, document %s' % (label, c, d))
            bad = 1
        else:
            print('%s  %s  pairs with %s' % (label, c[0], ' '.join(sorted(c[1]))))
    if not code:
        print('no barrier comments found')
        bad = 1
    sys.exit(bad)


if __name__ == '__main__':
    main()
