#!/usr/bin/env python3
"""barriers.py SOURCE... DOC: check that the barrier table of the document
matches the barriers of the code, statement by statement.

Labels.  In each SOURCE, a comment inside a function with a line that
starts with a label 'LRB-XN:' labels a barrier; the labels after
'Pairs with' / 'pairs with' in that comment are its partners.  The
labelled barrier is the statement right after the comment: the code that
follows the closing '*/' on the next line (no blank line, no other
comment, no preprocessor line in between).  That statement is read up to
its ';', or, for if/while/for/switch, its controlling expression.

Kinds.  In DOC, every row of the barrier table gives: label, function,
what, partners.  The 'what' column names the kind of barrier
('smp_rmb()', 'acquire load of consumed', 'cmpxchg of consumed (full
barrier)', ...).  The labelled statement must call an ordering operation
of that kind (on that object, for 'KIND of OBJECT'); a label comment that
says 'full barrier' must label a full barrier.  The overview comment of
the code ('LRB-XN (function(), what)') must name the same function and
kind for every label.

Coverage.  Every ordering call of a SOURCE (smp_rmb/wmb/mb,
smp_mb__before/after_atomic, acquire and release operations) must be a
labelled statement or be listed in EXEMPT (file, function, call, count),
so that a barrier cannot lose its label silently either.

Labels, functions, kinds and partner sets must agree; exits 1 if not.
refs.py (the Promela model's references) uses this module too."""
import os
import re
import sys

LABEL = re.compile(r'LRB-[WR]\d+')

# Unlabelled ordering calls: they order no access of the LRB-XN protocol
# (the model has no counterpart), each pairs with the one named.
# (file, function, call): (count, why).
EXEMPT = {
    ('lrb.h', 'lrb_counter_add', 'smp_wmb'):
        (1, '32-bit counter: wrapped low word before the carry; '
            'pairs with lrb_counter_read()'),
    ('lrb.h', 'lrb_counter_read', 'smp_rmb'):
        (2, '32-bit counter: high, low, high again; pairs with '
            'lrb_counter_add()'),
    ('lrb.c', 'lrb_cpu_dead', 'smp_store_release'):
        (1, 'closed after the dead CPU\'s last sub-buffer is closed; '
            'pairs with lrb_cpu_closed()'),
    ('lrb.c', 'lrb_cpu_closed', 'smp_load_acquire'):
        (1, 'pairs with lrb_cpu_dead()'),
}

ATOMIC = r'(?:atomic(?:64|_long)?_\w+|(?:try_)?cmpxchg(?:64|128)?|xchg)'
BARRIER_RE = re.compile(r'^(?:(?:smp_)?[rw]?mb|smp_mb__(?:before|after)_atomic'
                        r'|smp_mb__after_spinlock)$')
ACQUIRE_RE = re.compile(r'^(?:smp_(?:cond_)?load_acquire|%s_acquire)$' % ATOMIC)
RELEASE_RE = re.compile(r'^(?:smp_store_release|%s_release)$' % ATOMIC)
# Value-returning atomics, fully ordered (no _relaxed/_acquire/_release).
# local_t operations are not: they order nothing for other CPUs.
FULL_RMW_RE = re.compile(
    r'^(?:atomic(?:64|_long)?_(?:(?:try_)?cmpxchg|xchg|(?:add|sub|inc|dec)_return'
    r'|fetch_[a-z]+|[a-z]+_and_test|add_negative|add_unless|inc_not_zero'
    r'|dec_if_positive|dec_unless_positive|inc_unless_negative)'
    r'|(?:try_)?cmpxchg(?:64|128)?|xchg)$')
CMPXCHG_RE = re.compile(r'^(?:atomic(?:64|_long)?_)?(?:try_)?cmpxchg(?:64|128)?$')
XCHG_RE = re.compile(r'^(?:atomic(?:64|_long)?_)?xchg$')


def call_class(name):
    """The ordering class of a called function: its own name for a
    barrier, 'acquire', 'release', 'full-rmw', or None."""
    if BARRIER_RE.match(name):
        return name
    if ACQUIRE_RE.match(name):
        return 'acquire'
    if RELEASE_RE.match(name):
        return 'release'
    if FULL_RMW_RE.match(name):
        return 'full-rmw'
    return None


def swept(name):
    """Ordering calls that must carry a label or an exemption."""
    return call_class(name) in ('acquire', 'release') or bool(BARRIER_RE.match(name))


# Kinds a text may name, tried at their first occurrence in the text:
# (pattern, description, test of a call name).
KINDS = [
    (r'\b(\w+)\(\)', None, None),     # a named barrier call: that call exactly
    (r'\bfull barrier\b', 'full barrier',
     lambda n: n == 'smp_mb' or call_class(n) == 'full-rmw'),
    (r'\bacquire\b', 'acquire',
     lambda n: call_class(n) == 'acquire'),
    (r'\brelease\b', 'release',
     lambda n: call_class(n) == 'release'),
    (r'\bcmpxchg\b', 'cmpxchg', lambda n: bool(CMPXCHG_RE.match(n))),
    (r'\bxchg\b', 'xchg', lambda n: bool(XCHG_RE.match(n))),
]


def kind_of(text):
    """(description, test, object) of the first barrier kind TEXT names,
    or None.  OBJECT is the word after 'KIND [load|store] of'."""
    best = None
    for pat, desc, test in KINDS:
        for m in re.finditer(pat, text):
            if desc is None:
                name = m.group(1)
                if not call_class(name):
                    continue
                d, t = name + '()', (lambda n, name=name: n == name)
            else:
                d, t = desc, test
            if best is None or m.start() < best[0]:
                obj = re.match(r'(?:\s+(?:load|store|read|write))?\s+of\s+(\w+)',
                               text[m.end():])
                best = (m.start(), d, t, obj.group(1) if obj else None)
            break
    return best[1:] if best else None


def lex(text):
    """(code, comments): CODE is TEXT with comments and the insides of
    string and character literals blanked (newlines kept); COMMENTS the
    (start, end) offsets of each comment, END past its last character."""
    code = list(text)
    comments = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
        elif c in '"\'':
            j = i + 1
            while j < n and text[j] != c and text[j] != '\n':
                j += 2 if text[j] == '\\' else 1
            for k in range(i + 1, min(j, n)):
                code[k] = ' '
            i = j + 1
            continue
        else:
            i += 1
            continue
        comments.append((i, j))
        for k in range(i, j):
            if code[k] != '\n':
                code[k] = ' '
        i = j
    return ''.join(code), comments


HEADER = re.compile(r'^(?!typedef\b)[A-Za-z_][\w \*]*?\b(\w+)\(')


def functions(lines):
    """[(name, first line, last line)], 0-based: a definition starts at
    column 0, continues on indented lines, has its body between '{' and
    '}' alone on their lines."""
    out = []
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i])
        if not m or lines[i].rstrip().endswith(';'):
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j][:1] in (' ', '\t') \
                and not lines[j - 1].rstrip().endswith(';'):
            j += 1
        if j == len(lines) or lines[j] != '{' or lines[j - 1].rstrip().endswith(';'):
            i += 1
            continue
        k = j
        while k < len(lines) and lines[k] != '}':
            k += 1
        out.append((m.group(1), i, k))
        i = k + 1
    return out


def balanced(code, p):
    """The offset past the ')' closing the '(' at P, or None."""
    depth = 0
    for q in range(p, len(code)):
        if code[q] == '(':
            depth += 1
        elif code[q] == ')':
            depth -= 1
            if depth == 0:
                return q + 1
    return None


def statement_after(text, code, end):
    """(start, stop, error): the statement right after a comment ending at
    END, as offsets into CODE, or an error saying why there is none."""
    p = end
    while p < len(text) and text[p] in ' \t\n':
        p += 1
    gap = text[end:p]
    if gap.count('\n') > 1:
        return p, p, 'a blank line follows the comment'
    if p == len(text):
        return p, p, 'nothing follows the comment'
    if text.startswith(('/*', '//'), p):
        return p, p, 'another comment follows the comment'
    if text[p] in '#}{':
        return p, p, 'no statement follows the comment (%r)' % text[p]
    m = re.match(r'(?:if|while|for|switch)\s*\(', code[p:])
    if m:
        q = balanced(code, p + m.end() - 1)
        return (p, q, None) if q else (p, p, 'unbalanced condition')
    if re.match(r'(?:else|do)\b', code[p:]):
        return p, p, 'no simple statement follows the comment'
    depth = 0
    for q in range(p, len(code)):
        ch = code[q]
        if ch in '([':
            depth += 1
        elif ch in ')]':
            depth -= 1
        elif depth == 0 and ch == ';':
            return p, q + 1, None
        elif depth == 0 and ch in '{}':
            return p, q, None
    return p, p, 'unterminated statement'


def calls(code, start, stop):
    """[(name, offset, first argument)] of the calls in CODE[start:stop]."""
    out = []
    for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', code[start:stop]):
        name = m.group(1)
        if name in ('if', 'while', 'for', 'switch', 'return', 'sizeof'):
            continue
        o = start + m.end() - 1
        q = balanced(code, o) or stop
        args, depth, first = code[o + 1:q - 1], 0, None
        for k, ch in enumerate(args):
            depth += ch in '([{'
            depth -= ch in ')]}'
            if ch == ',' and depth == 0:
                first = args[:k]
                break
        out.append((name, start + m.start(), (first if first is not None else args).strip()))
    return out


def oneline(s):
    return ' '.join(s.split())


def parse(path):
    """The barriers of a source file: a dict with 'labels', a list of
    dicts (label, func, pairs, comment, line, stmt, calls, span, error),
    'unlabelled', a list of (func, call, line) of the ordering calls
    outside labelled statements, and 'overview', {label: (func, what)}
    from the comments outside functions."""
    text = open(path).read()
    code, comments = lex(text)
    lines = text.split('\n')
    starts = [0]
    for l in lines:
        starts.append(starts[-1] + len(l) + 1)
    lineno = lambda off: text.count('\n', 0, off) + 1
    funcs = functions(lines)

    def func_at(off):
        ln = lineno(off) - 1
        for name, a, b in funcs:
            if a <= ln <= b:
                return name
        return None

    labels, overview, spans = [], {}, []
    for cs, ce in comments:
        ctext = text[cs:ce]
        func = func_at(cs)
        # The comment's text without its '/*', '*/' and leading '*'s.
        body = '\n'.join(re.sub(r'^\s*(?:/\*+|\*+(?!/))?\s?', '', l)
                         for l in ctext[:-2 if ctext.endswith('*/') else None].split('\n'))
        flat = oneline(body)
        if func is None:
            for m in re.finditer(r'(LRB-[WR]\d+)\s+\(', flat):
                q = balanced(flat, m.end() - 1)
                inner = flat[m.end():q - 1] if q else ''
                f = re.match(r'(\w+)\(\)', inner)
                what = re.split(r':\s', inner, maxsplit=1)
                overview[m.group(1)] = (f.group(1) + '()' if f else None,
                                        what[1] if len(what) > 1 else inner)
            continue
        found = re.findall(r'^(LRB-[WR]\d+):', body, re.M)
        if not found:
            continue
        after = re.split(r'[Pp]airs with', flat, maxsplit=1)
        pairs = set(LABEL.findall(after[1])) if len(after) > 1 else set()
        s, e, err = statement_after(text, code, ce)
        cl = [c for c in calls(code, s, e) if call_class(c[0])] if not err else []
        spans.append((s, e))
        for label in found:
            labels.append(dict(label=label, func=func + '()', pairs=pairs,
                               comment=flat, comment_line=lineno(cs),
                               line=lineno(s), stmt=oneline(code[s:e]),
                               calls=cl, span=(s, e), error=err,
                               comment_span=(cs, ce),
                               file=os.path.basename(path)))
    unlabelled = []
    for m in re.finditer(r'\b([A-Za-z_]\w*)\s*\(', code):
        if not swept(m.group(1)):
            continue
        if any(s <= m.start() < e for s, e in spans):
            continue
        # Not a definition or declaration of the name itself.
        if re.match(r'^\s*#\s*define\b', lines[lineno(m.start()) - 1]):
            continue
        unlabelled.append((func_at(m.start()), m.group(1), lineno(m.start())))
    return dict(labels=labels, overview=overview, unlabelled=unlabelled,
                text=text, code=code, comments=comments, funcs=funcs)


def doc_barriers(path):
    """{label: (function, what, partners)} of the barrier table."""
    lines = open(path).read().split('\n')
    seps = [i for i, l in enumerate(lines)
            if re.match(r'^\s*=+(?: +=+){3,}\s*$', l)]
    out = {}
    if len(seps) < 3:
        return out
    cols = [m.start() for m in re.finditer(r'=+', lines[seps[0]])]
    rows = []
    for l in lines[seps[1] + 1:seps[2]]:
        cell = lambda k: l[cols[k]:cols[k + 1] if k + 1 < len(cols) else None].strip()
        if cell(0):
            rows.append([cell(0), cell(1), cell(2), cell(3)])
        elif rows:
            rows[-1][2] += ' ' + cell(2)
            rows[-1][3] += ' ' + cell(3)
    for label, func, what, pairs in rows:
        out[label] = (func, what.strip(), set(LABEL.findall(pairs)))
    return out


def check_kind(b, kind, where):
    """Errors if the labelled statement B calls no operation of KIND."""
    desc, test, obj = kind
    ok = [c for c in b['calls'] if test(c[0])]
    if obj:
        ok = [c for c in ok if re.search(r'\b%s\b' % re.escape(obj), c[2])]
    if ok:
        return []
    return ['WRONG BARRIER %s in %s: %s names %s%s, but the statement after '
            'the label (%s:%d) is: %s' %
            (b['label'], b['func'], where, desc, ' of ' + obj if obj else '',
             b['file'], b['line'], b['stmt'] or '(none)')]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    sources = [(path, parse(path)) for path in sys.argv[1:-1]]
    doc = doc_barriers(sys.argv[-1])
    errors = []
    code, overview = {}, {}
    for path, p in sources:
        for b in p['labels']:
            if b['label'] in code:
                errors.append('DUPLICATE %s: %s:%d and %s:%d' %
                              (b['label'], code[b['label']]['file'],
                               code[b['label']]['comment_line'], b['file'],
                               b['comment_line']))
            code[b['label']] = b
        overview.update(p['overview'])
    if not code:
        errors.append('no barrier comments found')
    if not doc:
        errors.append('no barrier table found in %s' % sys.argv[-1])
    checked = 0
    for label in sorted(set(code) | set(doc)):
        b, d = code.get(label), doc.get(label)
        if not b or not d or (b['func'], b['pairs']) != (d[0], d[2]):
            errors.append('MISMATCH %s: code %s, document %s' % (
                label, (b['func'], b['pairs']) if b else None,
                (d[0], d[2]) if d else None))
            if not b:
                continue
        if b['error']:
            errors.append('NO BARRIER %s in %s: %s (%s:%d)' %
                          (label, b['func'], b['error'], b['file'], b['line']))
            continue
        if not b['calls']:
            errors.append('NO BARRIER %s in %s: the statement after the label '
                          '(%s:%d) orders nothing: %s' %
                          (label, b['func'], b['file'], b['line'], b['stmt']))
            continue
        bad = len(errors)
        if d:
            kind = kind_of(d[1])
            if not kind:
                errors.append('NO KIND %s: the table of %s names no barrier '
                              'kind: %s' % (label, sys.argv[-1], d[1]))
            else:
                errors += check_kind(b, kind, 'the table')
        if re.search(r'\bfull barrier\b', b['comment']):
            errors += check_kind(b, kind_of('full barrier'), 'its comment')
        if overview:
            o = overview.get(label)
            if not o:
                errors.append('OVERVIEW %s: not in the overview comment' % label)
            else:
                if o[0] != b['func']:
                    errors.append('OVERVIEW %s: the overview says %s, the label '
                                  'is in %s' % (label, o[0], b['func']))
                kind = kind_of(o[1])
                if not kind:
                    errors.append('OVERVIEW %s: names no barrier kind: %s' %
                                  (label, o[1]))
                else:
                    errors += check_kind(b, kind, 'the overview comment')
        checked += 1
        if len(errors) == bad:
            print('%s  %s  %s:%d %s  pairs with %s' % (
                label, b['func'], b['file'], b['line'],
                '+'.join(c[0] for c in b['calls']), ' '.join(sorted(b['pairs']))))
    for label in sorted(set(overview) - set(code)):
        errors.append('OVERVIEW %s: in the overview comment, not in the code'
                      % label)
    # Coverage: every ordering call is labelled or exempt.
    for path, p in sources:
        base = os.path.basename(path)
        found = {}
        for func, name, line in p['unlabelled']:
            found.setdefault((base, func, name), []).append(line)
        for key, lines in sorted(found.items(), key=lambda kv: kv[1][0]):
            want = EXEMPT.get(key, (0, None))[0]
            if len(lines) != want:
                errors.append('UNLABELLED %s() in %s() at %s:%s: %d such call%s, '
                              '%d exempt; label it (LRB-XN) or list it in EXEMPT' %
                              (key[2], key[1], base,
                               ','.join(map(str, lines)), len(lines),
                               's' * (len(lines) != 1), want))
            else:
                print('exempt  %s()  %s:%s %s  (%s)' % (
                    key[1], base, ','.join(map(str, lines)), key[2],
                    EXEMPT[key][1]))
        for key, (n, why) in EXEMPT.items():
            if key[0] == base and key not in found:
                errors.append('EXEMPT %s() in %s() (%s): not found; update '
                              'EXEMPT' % (key[2], key[1], base))
    for e in errors:
        print(e)
    print('%d labels checked, %d errors' % (checked, len(errors)))
    sys.exit(1 if errors else 0)


if __name__ == '__main__':
    main()
