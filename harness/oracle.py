#!/usr/bin/python3
"""LRB oracle: check an LRB CTF trace against ftrace, the reference.

oracle.py [--min-events N] [compare] DIR
    DIR/ftrace/cpuN.raw              trace_pipe_raw of CPU N (ring-buffer pages)
    DIR/ftrace/header_page           page layout (6.1 x86_64 defaults if absent)
    DIR/ftrace/header_event          event header type numbers (idem)
    DIR/ftrace/events/SYS/EV/format  formats of the events enabled in both tracers
    DIR/root_pid                     pid of the shell that ran the workload
    DIR/lrb/                         the CTF trace LRB wrote for the same events
  Decodes every ftrace record into field values as babeltrace2 shows them
  (ints signed per the format, pointers unsigned, char arrays and
  __data_loc char[] as text up to the first NUL, other arrays as lists of
  ints), keeps on both sides the records of the workload (root_pid and its
  descendants, from sched:sched_process_fork), and checks that:
    - ftrace lost nothing (no page with RB_MISSED_EVENTS) and LRB lost
      nothing (no discarded-events or discarded-packets message);
    - every event has as many records in LRB as in ftrace (also per CPU);
    - per (CPU, event) the k-th LRB record has, for every field of the ftrace
      format, the value of the k-th ftrace record (common_flags may differ
      only in the need-resched bits, which each probe samples when it runs,
      and the jiffies that timer_start and timer_expire_entry read in
      TP_fast_assign() by at most one tick, and sched_switch's prev_state
      of an exiting task by zombie versus dead);
    - at least N (default 1000) events were compared field by field.

oracle.py coverage DIR
    DIR/available_events, DIR/lrb/
  Checks that the CTF metadata describes every event of available_events,
  lists the fields marked /* opaque ... */, and that the babeltrace2 CLI
  reads the trace with no error and no warning other than discarded events.

Exit status 0 when every check passes, 1 otherwise (the last line says why).
"""
import argparse
import os
import re
import struct
import subprocess
import sys
from collections import Counter, defaultdict

RB_MISSED_EVENTS, RB_MISSED_STORED = 1 << 31, 1 << 30
# TRACE_FLAG_NEED_RESCHED | TRACE_FLAG_PREEMPT_RESCHED (linux/trace_events.h)
RESCHED_FLAGS = 0x04 | 0x20
# Fields that TP_fast_assign() fills from jiffies, which may tick between
# the ftrace probe and the LRB probe of the same event.
JIFFIES_FIELDS = {('timer:timer_start', 'now'), ('timer:timer_expire_entry', 'now')}
# Ticks between the two probes: under single-threaded TCG a vCPU may be
# stopped for more than one tick between them (seen: 2).
JIFFIES_SLACK = 3
# sched_switch's prev_state of an exiting task reads p->exit_state in each
# probe: another CPU reaping it turns EXIT_ZOMBIE (16) into EXIT_DEAD (32)
# between the two.
EXIT_STATES = {16, 32}
ELEM_SIZES = {t: size for size, names in (
    (1, 'char|signed char|unsigned char|bool|u8|s8|__u8|__s8'),
    (2, 'short|unsigned short|u16|s16|__u16|__s16'),
    (4, 'int|unsigned int|unsigned|u32|s32|__u32|__s32|pid_t'),
    (8, 'long|unsigned long|long long|unsigned long long|u64|s64|__u64|__s64|size_t|cpumask_t'))
    for t in names.split('|')}


# The value of a field the ftrace format lists and the LRB event lacks.
ABSENT = type('Absent', (), {'__repr__': lambda self: '<absent>'})()


def text(b):
    """Bytes up to the first NUL as str, as both sides normalise strings."""
    return bytes(b).split(b'\0', 1)[0].decode('utf-8', 'replace')


class Field:
    """One `field:` line of an ftrace format file."""
    def __init__(self, decl, off, size, signed):
        m = re.match(r'(.*?)\s*\b(\w+)\s*(\[(\d*)\])?$', decl.strip())
        if not m:
            raise ValueError('cannot parse field %r' % decl)
        typ, self.name, arr, n = m.group(1).strip(), m.group(2), m.group(3), m.group(4)
        self.off, self.size, self.signed = off, size, signed
        self.dyn = None                     # None, 'data' or 'rel' (__data_loc, __rel_loc)
        self.scalar = False
        for prefix, kind in (('__data_loc', 'data'), ('__rel_loc', 'rel')):
            if typ.startswith(prefix):
                self.dyn, typ = kind, typ[len(prefix):].replace('[]', '').strip()
        base = re.sub(r'\b(const|volatile)\b', '', typ).strip()
        self.flex = arr is not None and not n
        self.string = base == 'char' and bool(self.dyn or arr is not None)
        if self.dyn or self.flex:
            self.esize = 8 if '*' in base else ELEM_SIZES.get(base, 0)
        elif arr is not None:
            self.esize = size // int(n) if int(n) else 0
        else:
            self.esize, self.scalar = size, True
        if '*' in base:
            self.signed = False             # pointers: unsigned
        if self.esize not in (1, 2, 4, 8):  # unknown type or a struct: bytes
            self.esize, self.signed, self.scalar = 1, False, False

    def value(self, rec):
        """The value of this field in the record bytes, as bt2 shows it."""
        if self.dyn:
            loc, = struct.unpack_from('<I', rec, self.off)
            start = (loc & 0xffff) + (self.off + 4 if self.dyn == 'rel' else 0)
            buf = rec[start:start + (loc >> 16)]
        elif self.flex:                     # flexible array: to the end
            buf = rec[self.off:]
        else:
            buf = rec[self.off:self.off + self.size]
            if len(buf) < self.size:
                raise ValueError('record too short')
        if self.string:
            return text(buf)
        code = {1: 'b', 2: 'h', 4: 'i', 8: 'q'}[self.esize]
        vals = list(struct.unpack_from('<%d%s' % (len(buf) // self.esize,
                                                  code if self.signed else code.upper()), buf))
        return vals[0] if self.scalar else vals


def load_formats(evdir):
    """{id: ('system:event', [Field])} from DIR/ftrace/events/SYS/EV/format."""
    fmts = {}
    for root, _, files in os.walk(evdir):
        if 'format' not in files:
            continue
        with open(os.path.join(root, 'format'), errors='replace') as f:
            t = f.read()
        name, ident = re.search(r'^name:\s*(\S+)', t, re.M), re.search(r'^ID:\s*(\d+)', t, re.M)
        if not (name and ident):
            continue
        system = os.path.basename(os.path.dirname(root))
        fields = [Field(d, int(o), int(s), s2 == '1') for d, o, s, s2 in
                  re.findall(r'field:(.*?);\s*offset:(\d+);\s*size:(\d+);\s*signed:(\d+);', t)]
        fmts[int(ident.group(1))] = ('%s:%s' % (system, name.group(1)), fields)
    return fmts


def read_layout(ftdir):
    """Page and event-header layout from header_page and header_event."""
    lay = {'commit': (8, 8), 'data': (16, 4080), 'padding': 29, 'time_extend': 30,
           'time_stamp': 31, 'max': 28}
    try:
        with open(os.path.join(ftdir, 'header_page')) as f:
            for name, off, size in re.findall(r'field:.*?(\w+);\s*offset:(\d+);\s*size:(\d+);', f.read()):
                if name in ('commit', 'data'):
                    lay[name] = (int(off), int(size))
    except OSError:
        pass
    try:
        with open(os.path.join(ftdir, 'header_event')) as f:
            t = f.read()
        for key, val in re.findall(r'(padding|time_extend|time_stamp)\s*:\s*type\s*==\s*(\d+)', t):
            lay[key] = int(val)
        m = re.search(r'data max type_len\s*==\s*(\d+)', t)
        if m:
            lay['max'] = int(m.group(1))
    except OSError:
        pass
    return lay


def ftrace_payloads(raw, lay, cpu, problems):
    """Yield the data of each data event of the pages, in order.

    Encoding (kernel/trace/ring_buffer.c): u32 header, type_len the low 5 bits;
    type_len 1..28: data of type_len*4 bytes at +4; 0: total length 4+array[0],
    data at +8 of array[0]-4 bytes; padding: 4+array[0] bytes, or, with
    time_delta 0, the end of the page's data; time extend/stamp: 8 bytes.
    """
    (coff, csize), (doff, dsize) = lay['commit'], lay['data']
    psize = doff + dsize
    if len(raw) % psize:
        problems.append('cpu%d: %d trailing bytes (not a whole page)' % (cpu, len(raw) % psize))
    for p in range(0, len(raw) - psize + 1, psize):
        commit = int.from_bytes(raw[p + coff:p + coff + csize], 'little')
        length = commit & (RB_MISSED_STORED - 1)
        if commit & RB_MISSED_EVENTS:
            lost = '?'
            if commit & RB_MISSED_STORED and length + 8 <= dsize:
                lost = int.from_bytes(raw[p + doff + length:p + doff + length + 8], 'little')
            problems.append('cpu%d page %d: ftrace missed events (%s)' % (cpu, p // psize, lost))
        if length > dsize:
            problems.append('cpu%d page %d: bad commit %#x' % (cpu, p // psize, commit))
            continue
        data, i = raw[p + doff:p + doff + length], 0
        while i + 4 <= length:
            hdr, = struct.unpack_from('<I', data, i)
            tl, delta = hdr & 31, hdr >> 5
            arr = struct.unpack_from('<I', data, i + 4)[0] if i + 8 <= length else 0
            if tl == lay['padding']:
                if delta == 0:
                    break
                size = 4 + arr
            elif tl in (lay['time_extend'], lay['time_stamp']):
                size = 8
            elif tl == 0:
                size = 4 + arr
                if size >= 8 and i + size <= length:
                    yield data[i + 8:i + size]
            elif tl <= lay['max']:
                size = 4 + 4 * tl
                if i + size <= length:
                    yield data[i + 4:i + size]
            else:
                size = 0
            if size < 8 or i + size > length:
                problems.append('cpu%d page %d offset %d: bad event header %#x'
                                % (cpu, p // psize, i, hdr))
                break
            i += size


def ftrace_records(ftdir, fmts, problems):
    """[(cpu, 'system:event', {field: value})] in file order per CPU."""
    lay, recs, unknown = read_layout(ftdir), [], Counter()
    cpus = sorted(int(m.group(1)) for m in
                  (re.match(r'cpu(\d+)\.raw$', n) for n in os.listdir(ftdir)) if m)
    for cpu in cpus:
        with open(os.path.join(ftdir, 'cpu%d.raw' % cpu), 'rb') as f:
            raw = f.read()
        for rec in ftrace_payloads(raw, lay, cpu, problems):
            etype = struct.unpack_from('<H', rec)[0] if len(rec) >= 2 else -1
            if etype not in fmts:
                unknown[etype] += 1
                continue
            name, fields = fmts[etype]
            try:
                recs.append((cpu, name, {f.name: f.value(rec) for f in fields}))
            except (ValueError, struct.error) as e:
                problems.append('cpu%d: undecodable %s record (%s)' % (cpu, name, e))
    for etype, n in sorted(unknown.items()):
        print('oracle: warning: %d ftrace records of type %d, which has no format' % (n, etype))
    return recs


def bt2_value(f):
    import bt2
    if isinstance(f, bt2._StringFieldConst):
        return str(f).encode('utf-8', 'surrogateescape').decode('utf-8', 'replace')
    if isinstance(f, bt2._ArrayFieldConst):
        return [bt2_value(x) for x in f]
    if isinstance(f, (bt2._IntegerFieldConst, bt2._BoolFieldConst)):
        return int(f)
    return '<%s>' % type(f).__name__        # structures, variants...: never equal


def lrb_records(path, fmts):
    """([(cpu, 'system:event', {ftrace field: value})], lost, ignored Counter)."""
    import bt2
    byname = {name: fields for name, fields in fmts.values()}
    recs, lost, ignored, keep = [], [], Counter(), []
    for msg in bt2.TraceCollectionMessageIterator(path):
        # babeltrace2 2.0.x leaves an empty string (or a text array starting
        # with NUL) holding the text of the recycled event it reuses; holding
        # every message (~3 KB each) keeps it from recycling events.
        keep.append(msg)
        if isinstance(msg, (bt2._DiscardedEventsMessageConst, bt2._DiscardedPacketsMessageConst)):
            what = 'events' if isinstance(msg, bt2._DiscardedEventsMessageConst) else 'packets'
            lost.append('%s %s' % (msg.count if msg.count is not None else '?', what))
            continue
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        if ev.name not in byname:
            ignored[ev.name] += 1
            continue
        have = {}
        for scope in (ev.payload_field, ev.specific_context_field, ev.common_context_field):
            for k, v in (scope.items() if scope is not None else ()):
                have.setdefault(k, v)
        vals = {}
        for f in byname[ev.name]:
            v = have.get(f.name)
            if v is None and f.name.startswith('_'):
                v = have.get(f.name[1:])
            vals[f.name] = ABSENT if v is None else bt2_value(v)
        pctx = ev.packet.context_field if ev.packet is not None else None
        cpu = int(pctx['cpu_id']) if pctx is not None and 'cpu_id' in pctx else -1
        recs.append((cpu, ev.name, vals))
    return recs, lost, ignored


def workload(ft, root):
    """root and its descendants, from the sched_process_fork records."""
    forks = [(v.get('parent_pid'), v.get('child_pid')) for _, n, v in ft
             if n == 'sched:sched_process_fork']
    w, size = {root}, 0
    while len(w) != size:
        size = len(w)
        w.update(c for p, c in forks if p in w)
    return w, len(forks)


def same(a, b):
    """Field equality; a char array one side shows as str may be ints on the other."""
    if isinstance(a, str) and isinstance(b, list) and all(isinstance(x, int) for x in b):
        b = text(x & 0xff for x in b)
    elif isinstance(b, str) and isinstance(a, list) and all(isinstance(x, int) for x in a):
        a = text(x & 0xff for x in a)
    return a == b


def compare(ft, lr, w, show=20):
    """Compare the workload's records. Returns (stats dict, count problems)."""
    ft = [r for r in ft if r[2].get('common_pid') in w]
    lr = [r for r in lr if r[2].get('common_pid') in w]
    fcount, lcount = Counter(n for _, n, _ in ft), Counter(n for _, n, _ in lr)
    bad = sorted(n for n in set(fcount) | set(lcount) if fcount[n] != lcount[n])
    if bad:
        print('%-40s %10s %10s' % ('event (count mismatch)', 'ftrace', 'lrb'))
        for n in bad:
            print('%-40s %10d %10d' % (n, fcount[n], lcount[n]))
    fseq, lseq = defaultdict(list), defaultdict(list)
    for cpu, n, v in ft:
        fseq[cpu, n].append(v)
    for cpu, n, v in lr:
        lseq[cpu, n].append(v)
    cpubad = []
    st = {'types': set(), 'events': 0, 'fields': 0, 'mismatches': 0, 'resched': 0}
    for key in sorted(set(fseq) | set(lseq), key=str):
        fl, ll = fseq.get(key, []), lseq.get(key, [])
        if len(fl) != len(ll) and key[1] not in bad:
            cpubad.append('%s cpu %d: ftrace %d, lrb %d' % (key[1], key[0], len(fl), len(ll)))
        for k, (fv, lv) in enumerate(zip(fl, ll)):
            st['events'] += 1
            st['types'].add(key[1])
            for name, val in fv.items():
                st['fields'] += 1
                if name == 'common_flags' and isinstance(val, int) and \
                        isinstance(lv.get(name), int) and \
                        not (val ^ lv[name]) & ~RESCHED_FLAGS:
                    # Each probe samples need-resched when it runs; an
                    # interrupt between the ftrace and the LRB probe may
                    # set it. Every other flag must match.
                    st['resched'] += val != lv[name]
                    continue
                if (key[1], name) == ('sched:sched_switch', 'prev_state') and \
                        {val, lv.get(name)} <= EXIT_STATES:
                    st['resched'] += val != lv[name]
                    continue
                if (key[1], name) in JIFFIES_FIELDS and isinstance(val, int) and \
                        isinstance(lv.get(name), int) and abs(lv[name] - val) <= JIFFIES_SLACK:
                    st['resched'] += val != lv[name]
                    continue
                if not same(val, lv.get(name, ABSENT)):
                    st['mismatches'] += 1
                    if st['mismatches'] <= show:
                        print('MISMATCH %s cpu %d #%d field %s: ftrace %s lrb %s'
                              % (key[1], key[0], k, name, ascii(val), ascii(lv.get(name, ABSENT))))
    for line in cpubad:
        print('count mismatch per CPU: ' + line)
    st['types'] = len(st['types'])
    st['ftrace'], st['lrb'] = len(ft), len(lr)
    return st, len(bad) + len(cpubad)


def cmd_compare(d, min_events):
    ftdir = os.path.join(d, 'ftrace')
    fmts = load_formats(os.path.join(ftdir, 'events'))
    if not fmts:
        return 'no ftrace format under %s/events' % ftdir
    with open(os.path.join(d, 'root_pid')) as f:
        root = int(f.read().split()[0])
    problems = []
    ft = ftrace_records(ftdir, fmts, problems)
    lr, lost, ignored = lrb_records(os.path.join(d, 'lrb'), fmts)
    w, nforks = workload(ft, root)
    print('oracle: %d formats; ftrace %d records, lrb %d records (%d ignored: %s); '
          'workload %d pids from %d forks'
          % (len(fmts), len(ft), len(lr), sum(ignored.values()),
             ', '.join(sorted(ignored)) or '-', len(w), nforks))
    for p in problems[:20]:
        print('ftrace: ' + p)
    st, countbad = compare(ft, lr, w)
    print('oracle: %(types)d event types, %(events)d events, %(fields)d field values '
          'compared; mismatches: %(mismatches)d (need-resched flags, jiffies or exit state sampled apart: '
          '%(resched)d)' % st)
    print('oracle: workload records: ftrace %d, lrb %d; count mismatches: %d; '
          'ftrace problems: %d; lrb discarded: %s'
          % (st['ftrace'], st['lrb'], countbad, len(problems), ', '.join(lost) or 'none'))
    why = []
    if problems:
        why.append('ftrace: %s%s' % (problems[0], ' (+%d more)' % (len(problems) - 1)
                                     if len(problems) > 1 else ''))
    if lost:
        why.append('LRB discarded records (%d notices)' % len(lost))
    if countbad:
        why.append('%d count mismatches' % countbad)
    if st['mismatches']:
        why.append('%d field values differ' % st['mismatches'])
    if st['events'] < min_events:
        why.append('only %d events compared (--min-events %d)' % (st['events'], min_events))
    return '; '.join(why)


def tsdl_text(path):
    """The metadata as text, plain or packetized (CTF 1.8 magic 0x75d11d57)."""
    with open(path, 'rb') as f:
        raw = f.read()
    if raw[:4] not in (b'\x57\x1d\xd1\x75', b'\x75\xd1\x1d\x57'):
        return raw.decode('utf-8', 'replace')
    bo, out, p = '<' if raw[:4] == b'\x57\x1d\xd1\x75' else '>', [], 0
    while p + 37 <= len(raw):
        content, packet = struct.unpack_from(bo + 'II', raw, p + 24)
        out.append(raw[p + 37:p + content // 8])
        p += max(packet // 8, 37)
    return b''.join(out).decode('utf-8', 'replace')


def tsdl_events(t):
    """[(name, [(field, comment)])] for the event blocks, with opaque fields."""
    blank = re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\])*"',
                   lambda m: re.sub(r'[^\n]', ' ', m.group()), t, flags=re.S)
    evs = []
    for m in re.finditer(r'\bevent\s*\{', blank):
        depth, i = 0, m.end() - 1
        for i in range(m.end() - 1, len(blank)):
            depth += {'{': 1, '}': -1}.get(blank[i], 0)
            if depth == 0:
                break
        block, b = t[m.start():i + 1], blank[m.start():i + 1]
        name = re.search(r'\bname\s*=\s*"((?:\\.|[^"\\])*)"', block)
        opaque = []
        for c in re.finditer(r'/\*\s*opaque.*?\*/', block, re.S):
            # "T x; /* opaque */" names x; otherwise the declaration the
            # comment is in or precedes: "/* opaque */ T x;", "T /* opaque */ x;"
            before = b[b.rfind('\n', 0, c.start()) + 1:c.start()].rstrip()
            end = (b.rfind(';', 0, c.start()) if before.endswith(';') and before.strip(' \t;')
                   else b.find(';', c.end()))
            f = re.search(r'(\w+)\s*(?:\[[^\]]*\]\s*)*$', b[max(0, end - 300):max(end, 0)])
            opaque.append((f.group(1) if f else '?', ' '.join(c.group().split())))
        evs.append((name.group(1) if name else '?', opaque))
    return evs


def cmd_coverage(d):
    with open(os.path.join(d, 'available_events')) as f:
        avail = [l.strip() for l in f if l.strip()]
    evs = tsdl_events(tsdl_text(os.path.join(d, 'lrb', 'metadata')))
    described = {n for n, _ in evs}
    missing = [e for e in avail if e not in described]
    opaque = [(n, f, c) for n, fs in evs for f, c in fs]
    for e in missing[:20]:
        print('missing: ' + e)
    for n, f, c in opaque:
        print('opaque: %s:%s %s' % (n, f, c))
    r = subprocess.run(['babeltrace2', os.path.join(d, 'lrb')], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    err = [l for l in r.stderr.decode('utf-8', 'replace').splitlines()
           if l.strip() and not re.match(r'WARNING: Tracer discarded [0-9]+ events? between', l)]
    for l in err[:20]:
        print('babeltrace2: ' + l)
    decoded = sum(1 for l in r.stdout.splitlines() if l.startswith(b'['))
    with open(os.path.join(d, 'lrb', 'metadata'), 'rb') as f:
        enums = f.read().count(b'enum : integer {')
    print('coverage: %d available events, %d described, %d missing, %d opaque fields, '
          '%d enumerations, %d events decoded'
          % (len(avail), len(described), len(missing), len(opaque), enums, decoded))
    why = []
    if missing:
        why.append('%d available events not described in the metadata' % len(missing))
    if opaque:
        why.append('%d fields left opaque' % len(opaque))
    if r.returncode:
        why.append('babeltrace2 exited %d' % r.returncode)
    if err:
        why.append('babeltrace2 printed %d unexpected stderr lines' % len(err))
    return '; '.join(why)


def main():
    ap = argparse.ArgumentParser(description='Check an LRB CTF trace against ftrace.',
                                 usage='%(prog)s [--min-events N] [compare|coverage] DIR')
    ap.add_argument('--min-events', type=int, default=1000,
                    help='events that must be compared field by field (compare)')
    ap.add_argument('words', nargs='+', metavar='[compare|coverage] DIR')
    a = ap.parse_args()
    words = a.words if len(a.words) == 2 else ['compare'] + a.words
    if len(words) != 2 or words[0] not in ('compare', 'coverage'):
        ap.error('expected [compare|coverage] DIR')
    cmd, d = words
    try:
        why = cmd_compare(d, a.min_events) if cmd == 'compare' else cmd_coverage(d)
    except Exception as e:                  # bt2 raises its own errors too
        why = 'cannot read the inputs: %s: %s' % (type(e).__name__, e)
    print('%s: %s' % ('oracle' if cmd == 'compare' else 'coverage',
                      'FAIL: ' + why if why else 'PASS'))
    return 1 if why else 0


if __name__ == '__main__':
    sys.exit(main())
