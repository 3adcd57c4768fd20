#!/usr/bin/env python3
"""refs.py MODEL SOURCE...: check that every step of the model names code that
exists.  A step is tagged '@function "fragment"'; the fragment must occur in
the body of that function in one of the SOURCE files, in its code.  A
fragment that occurs only in a comment names code only if the comment
labels a barrier ('LRB-XN:', see harness/barriers.py): the step then stands
for the statement right after that comment, which must be an ordering
operation (a barrier, an acquire or release, a fully ordered atomic).
Prints 'function:line  model line N  fragment' for each step (the line of
the source it stands for, and for a barrier its label and call) and exits
1 if any fragment is missing, or stands for a comment that labels no
barrier statement."""
import bisect
import os
import re
import sys

sys.dont_write_bytecode = True     # no __pycache__ in harness/
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'harness'))
import barriers  # noqa: E402


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


class Source:
    def __init__(self, path):
        self.path = path
        self.text = open(path).read()
        self.funcs, self.lines = functions(self.text)
        self.starts = [0]
        for l in self.lines:
            self.starts.append(self.starts[-1] + len(l) + 1)
        b = barriers.parse(path)
        self.comments = b['comments']
        self.comment_starts = [c[0] for c in self.comments]
        self.labelled = {x['comment_span']: x for x in b['labels']}
        self.overview = b['overview']

    def comment_at(self, off):
        """The (start, end) of the comment holding offset OFF, or None."""
        k = bisect.bisect_right(self.comment_starts, off) - 1
        if k >= 0 and self.comments[k][0] <= off < self.comments[k][1]:
            return self.comments[k]
        return None


def find(sources, name, frag):
    """(source, line, label entry or None) of FRAG in function NAME: the
    first occurrence in code, else the first in a comment that labels a
    barrier; (None, None, reason) if neither."""
    labelled = None
    in_comment = False
    for s in sources:
        for a, b in s.funcs.get(name, []):
            for n in range(a, b + 1):
                col = s.lines[n - 1].find(frag)
                while col >= 0:
                    c = s.comment_at(s.starts[n - 1] + col)
                    if c is None:
                        return s, n, None
                    in_comment = True
                    if labelled is None and c in s.labelled:
                        labelled = (s, s.labelled[c])
                    col = s.lines[n - 1].find(frag, col + 1)
    if labelled:
        s, x = labelled
        return s, x['line'], x
    return None, None, ('only in a comment that labels no barrier'
                        if in_comment else 'not in %s()' % name)


def kind_errors(x, overview):
    """Errors if the barrier statement of label entry X is not of the
    kind the overview comment of the code names for its label."""
    o = overview.get(x['label'])
    kind = o and barriers.kind_of(o[1])
    return barriers.check_kind(x, kind, 'the overview comment') if kind else []


def main():
    model = sys.argv[1]
    sources = [Source(path) for path in sys.argv[2:]]
    overview = {}
    for s in sources:
        overview.update(s.overview)
    bad = 0
    for ln, l in enumerate(open(model), 1):
        for m in re.finditer(r'@(\w+) "((?:[^"\\]|\\.)*)"', l):
            name, frag = m.group(1), m.group(2)
            s, where, x = find(sources, name, frag)
            if s is None:
                print('MISSING: model line %d: %s "%s" %s' % (ln, name, frag, x))
                bad = 1
            elif x is None:
                print('%s:%d  model line %d  %s' % (name, where, ln, frag))
            elif x['error'] or not x['calls']:
                print('MISSING: model line %d: %s "%s": the %s comment of %s() '
                      'labels no barrier: %s (%s:%d)' % (
                          ln, name, frag, x['label'], name,
                          x['error'] or 'the statement after it orders '
                          'nothing: ' + x['stmt'], x['file'], x['line']))
                bad = 1
            elif kind_errors(x, overview):
                for e in kind_errors(x, overview):
                    print('MISSING: model line %d: %s "%s": %s' % (ln, name, frag, e))
                bad = 1
            else:
                print('%s:%d  model line %d  %s  (%s: %s)' % (
                    name, where, ln, frag, x['label'],
                    '+'.join(c[0] for c in x['calls'])))
    sys.exit(bad)


if __name__ == '__main__':
    main()
