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
      TP_fast_assign() by at most one tick, sched_switch's prev_state
      of an exiting task by zombie versus dead, and the name of a task
      that exec renames while another CPU records it, by its name before
      versus after, around that exec only, and a synthetic event's preempt
      count by the one level ftrace's ring_buffer_nest_start() adds before
      ftrace takes it, where preemption is counted, in all its records or
      none; each of these in at most as many values as its bound, printed
      with its count); the page allocations and frees, which interrupts
      make too, in either order (UNORDERED);
    - the timestamps of those pairs of records agree: each LRB record's
      within TS_STALL_NS of its ftrace record's plus the CPU's usual
      offset, the intervals between a CPU's consecutive records within
      TS_INTERVAL_NS of ftrace's but for a bounded few, and LRB's clock
      rate, fitted over them all, within TS_RATE_SLACK of ftrace's;
    - at least N (default 1000) events were compared field by field.

oracle.py lttng DIR
    DIR/ftrace/, DIR/root_pid as for compare; DIR/lttng/kernel/ the trace an
    LRB channel in the LTTng layout wrote at the same time
  Runs every analysis of the LTTng analyses (python3-lttnganalyses) on the
  LRB trace, each of which must exit 0 with no error, and checks their
  figures for the workload's threads against ftrace's records:
    - lttng-cputop: each thread's CPU time within one scheduling tick of
      what ftrace's sched_switch records give;
    - lttng-syscallstats: each thread's count of every system call equal to
      ftrace's sys_exit_NAME records (the analysis counts a call at its
      exit);
    - lttng-memtop: each thread's allocated pages equal to ftrace's
      mm_page_alloc records;
    - lttng-irqstats: each hard IRQ's count equal to ftrace's
      irq_handler_entry records in the LRB trace's time range;
    - lttng-schedtop: wakeups of the workload's threads are listed;
    - the workload's system call entries (syscall_entry_NAME, with user
      strings as text): per CPU and system call, as many as ftrace's
      sys_enter_NAME records, each argument that is a number equal to
      ftrace's;
    - lttng-syscallstats names the process of DIR/bg_pid, which ran from
      before the recording to after it, by its process id (which it knows
      from the statedump only), not as '?';
    - two statedumps, the one at the start and one the workload asks for
      (NAME/statedump), each with start and end, and in each, per IRQ,
      the chip and the handler names that DIR/interrupts
      (/proc/interrupts) lists, and every handler that ftrace's
      irq_handler_entry saw run;
    - priorities as lttng-modules writes them, prio - MAX_RT_PRIO: each
      workload thread's sched_switch (prev and next) and sched_wakeup
      priorities, counted per value, equal to ftrace's minus 100, and a
      value other than 20 among them (the workload runs a niced process);
    - the block events' rwbs as lttng-modules' bits: per event, device,
      sector, bits and thread, as many records as ftrace's with the bits
      of its rwbs text (DIR/ftrace recorded the block events too);
    - lttng-iousagetop: each disk's requests and sectors equal to those
      of ftrace's block_rq_issue and block_rq_complete records, the disk
      named by the statedump;
    - in each statedump, the block devices of DIR/blockdevs (the disks,
      and partitions with sectors, of /sys/class/block) with their
      device numbers;
  and that the metadata has what Trace Compass's LTTng 2.9 kernel layout
  and its kernel state provider read (TRACE_COMPASS below): its env,
  cpu_id in the packet context, those events with those fields, integers
  where it takes integers (never enumerations), text where it takes text.

oracle.py filter DIR
    DIR/ftrace/ as for compare, from an ftrace instance with filters set;
    DIR/ftrace-all/ the same events from an instance without them;
    DIR/lrb/ an LRB channel with the same filters (lrb-record -f);
    DIR/filters the filters, a SELECTOR<tab>EXPRESSION line each;
    DIR/root_pid the workload's shell
  Checks, for the workload's processes, that:
    - the filtered ftrace and LRB traces hold the same records, field for
      field (as compare, no loss on either side);
    - each filtered event keeps exactly the unfiltered instance's records
      that FILTERS' Python predicate (written from the expression, not
      from either engine) accepts, and that the filter both kept and
      dropped some (a filter that did nothing cannot pass);
    - the LRB channel counted filtered records, and its written equals
      delivered plus lost plus filtered.

oracle.py target DIR
    DIR/ftrace/ an ftrace instance with set_event_pid (the task that ran
    lrb-record) and options/event-fork; DIR/ftrace-all/ the same events
    untargeted; DIR/lrb/ lrb-record --follow's trace of the workload;
    DIR/root_pid the workload's shell; DIR/bg_pid a task that made system
    calls throughout
  Checks that the workload's records are the same in the targeted ftrace
  instance and in LRB (as compare), that LRB holds no record of any other
  task, that the untargeted instance has the background task's records
  (so targeting had something to leave out) and the targeted ones none,
  and that LRB counted nothing lost or filtered: events of other tasks are
  not written at all.

oracle.py stack DIR
    DIR/ftrace/ an ftrace instance with kmem:kmalloc, its stacktrace
    trigger, and sched_process_fork; DIR/lrb/ lrb-record -e kmem:kmalloc
    --stack=16's trace of the same workload, with the guest's kallsyms (.kallsyms);
    DIR/root_pid the workload's shell
  Pairs each kmalloc record with its stack on both sides (a stack belongs
  to the last record before it on its CPU without one), keeps the
  workload's, and checks per CPU, record for record (the same call_site,
  ptr and bytes_req), that every LRB record has a stack of at most 16
  addresses, each inside a function of kallsyms, and that it is the
  stack ftrace's trigger took, address for address, once ftrace's own
  frames above the function that hit the tracepoint are left out.

oracle.py coverage DIR
    DIR/available_events, DIR/lrb/
  Checks that the CTF metadata describes every event of available_events,
  lists the fields marked /* opaque ... */, and that the babeltrace2 CLI
  reads the trace with no error and no warning other than discarded events.

Exit status 0 when every check passes, 1 otherwise (the last line says why).
"""
import argparse
import bisect
import json
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
# A task's name read by both probes from another CPU (sched_stat_runtime
# of a task running elsewhere, through update_curr()): an exec on the
# task's own CPU may rename it between the two. Such a name may differ
# only between two names the trace shows for that pid, and only in a
# record that ftrace stamped around one of that pid's execs: the rename
# (begin_new_exec()) comes before sched_process_exec, by the time the
# binary takes to load (seen: up to 9 ms under TCG; EXEC_LOAD_NS), and
# ftrace's probe of the record is within TS_STALL_NS of the rename.
COMM_PIDS = {'comm': 'pid', 'prev_comm': 'prev_pid', 'next_comm': 'next_pid'}
EXEC_LOAD_NS = 20000000
# Records whose two probes the rename can fall between, per exec: one
# being written on each other CPU (the guests have two) and one that an
# interrupt writes there inside it.
NAME_RACES_PER_EXEC = 2
# The need-resched bits, the jiffies and an exiting task's state differ
# only when an interrupt, a tick or another CPU's reaping falls between
# the two probes of a record: in the microseconds between them, or in a
# vCPU stall there (the timestamps show a stall of 1 ms or more in fewer
# than one record in 2000). Each of these, and the intervals that
# TS_INTERVAL_NS bounds, in at most RACE_FLOOR values plus one per
# RACE_RECORDS records compared (seen at most: need-resched 10 of 33707
# records, 2 of 367; jiffies 0; exit state 1 of 323; intervals 14 of
# 33705).
RACE_FLOOR, RACE_RECORDS = 8, 1000
# Timestamps: ftrace stamps each record with sched_clock() (trace_clock
# local), LRB with local_clock(), the same clock plus a constant offset
# (and the metadata's offset from origin), each probe as it runs: one
# event's two stamps are apart by that offset plus the microseconds
# between the probes, or a vCPU stall under TCG between them (seen: up to
# 6.2 ms). So every LRB stamp is within TS_STALL_NS of ftrace's plus the
# CPU's median offset (4 times the longest stall seen; a delta that loses
# its bits from 27 up is 134 ms off); the intervals between a CPU's
# consecutive records agree within TS_INTERVAL_NS but for the race bound;
# and LRB's clock rate, the slope of its stamps against ftrace's fitted
# over all the records (a stall at either end would skew a ratio of
# first-to-last spans), is 1 within TS_RATE_SLACK (seen: 0.9998 to
# 1.0002, on runs of 65 ms to 0.7 s per CPU).
TS_STALL_NS = 25000000
TS_INTERVAL_NS = 1000000
TS_RATE_SLACK = 0.01
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
    """Yield (timestamp, data) of each data event of the pages, in order.

    Encoding (kernel/trace/ring_buffer.c): u32 header, type_len the low 5 bits;
    type_len 1..28: data of type_len*4 bytes at +4; 0: total length 4+array[0],
    data at +8 of array[0]-4 bytes; padding: 4+array[0] bytes, or, with
    time_delta 0, the end of the page's data; time extend/stamp: 8 bytes.
    Timestamps as rb_update_read_stamp() keeps them: the page's, plus each
    data event's and time extend's delta; a time stamp sets the low 59 bits.
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
        ts = int.from_bytes(raw[p:p + 8], 'little')
        while i + 4 <= length:
            hdr, = struct.unpack_from('<I', data, i)
            tl, delta = hdr & 31, hdr >> 5
            arr = struct.unpack_from('<I', data, i + 4)[0] if i + 8 <= length else 0
            if tl == lay['padding']:
                if delta == 0:
                    break
                size = 4 + arr
            elif tl == lay['time_extend']:
                ts += (arr << 27) + delta
                size = 8
            elif tl == lay['time_stamp']:
                ts = (ts & ~((1 << 59) - 1)) | (arr << 27) | delta
                size = 8
            elif tl == 0:
                ts += delta
                size = 4 + arr
                if size >= 8 and i + size <= length:
                    yield ts, data[i + 8:i + size]
            elif tl <= lay['max']:
                ts += delta
                size = 4 + 4 * tl
                if i + size <= length:
                    yield ts, data[i + 4:i + size]
            else:
                size = 0
            if size < 8 or i + size > length:
                problems.append('cpu%d page %d offset %d: bad event header %#x'
                                % (cpu, p // psize, i, hdr))
                break
            i += size


def ftrace_records(ftdir, fmts, problems, stamps=None):
    """[(cpu, 'system:event', {field: value})] in file order per CPU; each
    record's timestamp (ns of ftrace's clock) appended to stamps if given."""
    lay, recs, unknown = read_layout(ftdir), [], Counter()
    cpus = sorted(int(m.group(1)) for m in
                  (re.match(r'cpu(\d+)\.raw$', n) for n in os.listdir(ftdir)) if m)
    for cpu in cpus:
        with open(os.path.join(ftdir, 'cpu%d.raw' % cpu), 'rb') as f:
            raw = f.read()
        for ts, rec in ftrace_payloads(raw, lay, cpu, problems):
            etype = struct.unpack_from('<H', rec)[0] if len(rec) >= 2 else -1
            if etype not in fmts:
                unknown[etype] += 1
                continue
            name, fields = fmts[etype]
            try:
                recs.append((cpu, name, {f.name: f.value(rec) for f in fields}))
            except (ValueError, struct.error) as e:
                problems.append('cpu%d: undecodable %s record (%s)' % (cpu, name, e))
                continue
            if stamps is not None:
                stamps.append(ts)
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


def lrb_records(path, fmts, stamps=None):
    """([(cpu, 'system:event', {ftrace field: value})], lost, ignored Counter);
    each record's timestamp (ns from the clock's origin) appended to stamps
    if given."""
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
        if stamps is not None:
            stamps.append(msg.default_clock_snapshot.ns_from_origin)
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


def as_text(v):
    """A char array as str, whichever way a decoder showed it."""
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return text(x & 0xff for x in v)
    return v


def same(a, b):
    """Field equality; a char array one side shows as str may be ints on the other."""
    if isinstance(a, str):
        b = as_text(b)
    elif isinstance(b, str):
        a = as_text(a)
    return a == b


# Events that interrupts write as well as tasks (a page freed by RCU in a
# softirq): one may land between ftrace's probe and LRB's probe of another,
# so each tracer may hold a CPU's records of them in another order; they
# are compared as sets, by their field values.
UNORDERED = {'kmem:mm_page_alloc', 'kmem:mm_page_free'}


def task_names(recs):
    """pid -> the names the records show for it."""
    names = defaultdict(set)
    for _, _, v in recs:
        for cf, pf in COMM_PIDS.items():
            if cf in v and pf in v:
                names[v[pf]].add(as_text(v[cf]))
    return names


def exec_stamps(recs, stamps):
    """pid -> the timestamps of its sched_process_exec records."""
    execs = defaultdict(list)
    for (_, n, v), ts in zip(recs, stamps):
        if n == 'sched:sched_process_exec':
            execs[v.get('pid')].append(ts)
    return execs


def unordered_key(rec):
    """A (timestamp, fields) record of UNORDERED by its fields but common_flags,
    then by its time: records of the same fields pair in the order written."""
    ts, v = rec
    return sorted((n, repr(x)) for n, x in v.items() if n != 'common_flags'), ts


def tolerance(event, name, val, lval, fv, lv, ts, names, execs):
    """The tolerance (a category of tolerance_problems()) that lets field
    name be val in ftrace's record fv, stamped ts, and lval in LRB's lv;
    None if none does."""
    ints = isinstance(val, int) and isinstance(lval, int)
    if name == 'common_flags' and ints and not (val ^ lval) & ~RESCHED_FLAGS:
        # Each probe samples need-resched when it runs; every other flag
        # must match.
        return 'need-resched'
    if (event, name) == ('sched:sched_switch', 'prev_state') and ints and \
            {val, lval} <= EXIT_STATES:
        return 'exit state'
    if (event, name) in JIFFIES_FIELDS and ints and abs(lval - val) <= JIFFIES_SLACK:
        return 'jiffies'
    if event.startswith('synthetic:') and name == 'common_preempt_count' and ints and \
            val == lval + 1:
        # ftrace's synthetic event takes its context after
        # ring_buffer_nest_start() disabled preemption: one more level
        # where preemption is counted.
        return 'preempt count'
    pid = fv.get(COMM_PIDS.get(name))
    if pid is not None and pid == lv.get(COMM_PIDS[name]) and \
            {as_text(val), as_text(lval)} <= names[pid] and \
            any(-EXEC_LOAD_NS - TS_STALL_NS <= ts - t <= TS_STALL_NS for t in execs.get(pid, ())):
        return 'exec name'
    return None


def compare(ft, lr, w, fstamps, lstamps, execs, show=20):
    """Compare the workload's records, ftrace's ft and LRB's lr, stamped
    fstamps and lstamps; execs: exec_stamps() of ftrace's records. Returns
    (stats dict, count problems)."""
    ft = [(r, ts) for r, ts in zip(ft, fstamps) if r[2].get('common_pid') in w]
    lr = [(r, ts) for r, ts in zip(lr, lstamps) if r[2].get('common_pid') in w]
    fcount, lcount = Counter(r[1] for r, _ in ft), Counter(r[1] for r, _ in lr)
    bad = sorted(n for n in set(fcount) | set(lcount) if fcount[n] != lcount[n])
    if bad:
        print('%-40s %10s %10s' % ('event (count mismatch)', 'ftrace', 'lrb'))
        for n in bad:
            print('%-40s %10d %10d' % (n, fcount[n], lcount[n]))
    fseq, lseq = defaultdict(list), defaultdict(list)
    for (cpu, n, v), ts in ft:
        fseq[cpu, n].append((ts, v))
    for (cpu, n, v), ts in lr:
        lseq[cpu, n].append((ts, v))
    cpubad = []
    names = task_names(r for r, _ in ft)
    st = {'types': set(), 'events': 0, 'fields': 0, 'mismatches': 0, 'tolerated': Counter(),
          'synthetic': 0, 'execs': sum(len(execs.get(p, ())) for p in w),
          'stamps': defaultdict(list)}
    for key in sorted(set(fseq) | set(lseq), key=str):
        fl, ll = fseq.get(key, []), lseq.get(key, [])
        if key[1] in UNORDERED:
            fl, ll = sorted(fl, key=unordered_key), sorted(ll, key=unordered_key)
        if len(fl) != len(ll) and key[1] not in bad:
            cpubad.append('%s cpu %d: ftrace %d, lrb %d' % (key[1], key[0], len(fl), len(ll)))
        for k, ((fts, fv), (lts, lv)) in enumerate(zip(fl, ll)):
            st['events'] += 1
            st['types'].add(key[1])
            st['synthetic'] += key[1].startswith('synthetic:')
            st['stamps'][key[0]].append((fts, lts))
            for name, val in fv.items():
                st['fields'] += 1
                lval = lv.get(name, ABSENT)
                if same(val, lval):
                    continue
                why = tolerance(key[1], name, val, lval, fv, lv, fts, names, execs)
                if why:
                    st['tolerated'][why] += 1
                    continue
                st['mismatches'] += 1
                if st['mismatches'] <= show:
                    print('MISMATCH %s cpu %d #%d field %s: ftrace %s lrb %s'
                          % (key[1], key[0], k, name, ascii(val), ascii(lval)))
    for line in cpubad:
        print('count mismatch per CPU: ' + line)
    st['types'] = len(st['types'])
    st['ftrace'], st['lrb'] = len(ft), len(lr)
    return st, len(bad) + len(cpubad)


def tolerance_problems(tag, st):
    """Print the count of each tolerance of compare()'s stats st against its
    bound; [problem] for each over it."""
    race = RACE_FLOOR + st['events'] // RACE_RECORDS
    bounds = {'need-resched': race, 'jiffies': race, 'exit state': race,
              'exec name': NAME_RACES_PER_EXEC * st['execs']}
    n, synth = st['tolerated'], st['synthetic']
    print('%s: sampled apart: %s; synthetic preempt count %d (none or all %d)'
          % (tag, ', '.join('%s %d (at most %d)' % (k, n[k], b) for k, b in bounds.items()),
             n['preempt count'], synth))
    why = ['%s: %d values apart, over the bound of %d' % (k, n[k], b)
           for k, b in bounds.items() if n[k] > b]
    if n['preempt count'] not in (0, synth):
        why.append('synthetic preempt count: %d of %d records one level apart, not none or all'
                   % (n['preempt count'], synth))
    return why


def clock_rate(stamps):
    """The slope of LRB's timestamps against ftrace's, least squares over
    each CPU's [(ftrace ns, LRB ns)] of stamps; 1.0 without two of a CPU."""
    num = den = 0.0
    for ps in stamps.values():
        f0, l0 = ps[0]
        mf, ml = sum(f - f0 for f, _ in ps) / len(ps), sum(l - l0 for _, l in ps) / len(ps)
        num += sum((f - f0 - mf) * (l - l0 - ml) for f, l in ps)
        den += sum((f - f0 - mf) ** 2 for f, _ in ps)
    return num / den if den else 1.0


def stamp_problems(tag, st):
    """Print how the timestamps of compare()'s pairs of records (st) agree;
    [problem] for each bound they exceed."""
    far = apart = intervals = 0
    for ps in st['stamps'].values():
        ps.sort()
        offs = sorted(l - f for f, l in ps)
        far += sum(1 for d in offs if abs(d - offs[len(offs) // 2]) > TS_STALL_NS)
        apart += sum(1 for (f0, l0), (f1, l1) in zip(ps, ps[1:])
                     if abs((l1 - l0) - (f1 - f0)) > TS_INTERVAL_NS)
        intervals += len(ps) - 1
    rate, bound = clock_rate(st['stamps']), RACE_FLOOR + st['events'] // RACE_RECORDS
    print('%s: timestamps: %d records off the CPU\'s median offset by over %d ms; '
          '%d of %d intervals apart by over %d ms (at most %d); LRB clock rate %.5f of '
          'ftrace\'s (1 +- %g)' % (tag, far, TS_STALL_NS // 1000000, apart, intervals,
                                   TS_INTERVAL_NS // 1000000, bound, rate, TS_RATE_SLACK))
    why = []
    if far:
        why.append('timestamps: %d records off ftrace\'s by over %d ms'
                   % (far, TS_STALL_NS // 1000000))
    if apart > bound:
        why.append('timestamps: %d intervals apart by over %d ms, over the bound of %d'
                   % (apart, TS_INTERVAL_NS // 1000000, bound))
    if abs(rate - 1) > TS_RATE_SLACK:
        why.append('timestamps: LRB\'s clock runs at %.5f times ftrace\'s' % rate)
    return why


# The filters of the filter check (DIR/filters), each with a predicate
# written from its expression: event (or system): (expression, predicate).
FILTERS = {
    'sched:sched_switch': ('prev_state != 0', lambda v: v['prev_state'] != 0),
    'sched:sched_process_exec': ('filename ~ "*.sh"',
                                 lambda v: v['filename'].endswith('.sh')),
    'syscalls:sys_enter_openat': ('flags & 0x40', lambda v: v['flags'] & 0x40 != 0),
    'signal': ('sig == 10', lambda v: v['sig'] == 10),
    'raw_syscalls:sys_enter': ('common_pid & 1', lambda v: v['common_pid'] & 1 != 0),
}


def filter_of(name, filters):
    """The predicate that applies to event name, or None."""
    for sel, (_, pred) in filters.items():
        if sel == name or (':' not in sel and name.startswith(sel + ':')):
            return pred
    return None


def lrb_stats(path):
    """The total block of a .lrb-stats file: {key: value}."""
    with open(path) as f:
        block = f.read().split('cpu: total\n', 1)[1]
    return {k: int(v) for k, v in (l.split(': ') for l in block.splitlines() if ': ' in l)}


def cmd_filter(d):
    why = []
    with open(os.path.join(d, 'filters')) as f:
        given = dict(l.rstrip('\n').split('\t', 1) for l in f if l.strip())
    if {k: v[0] for k, v in FILTERS.items()} != given:
        return 'DIR/filters is not the set FILTERS has predicates for: %s' % given
    fmts = load_formats(os.path.join(d, 'ftrace', 'events'))
    with open(os.path.join(d, 'root_pid')) as f:
        root = int(f.read().split()[0])
    problems, fstamps, astamps, lstamps = [], [], [], []
    ft = ftrace_records(os.path.join(d, 'ftrace'), fmts, problems, fstamps)
    fa = ftrace_records(os.path.join(d, 'ftrace-all'), fmts, problems, astamps)
    lr, lost, _ = lrb_records(os.path.join(d, 'lrb'), fmts, lstamps)
    w, nforks = workload(fa, root)
    # The filter keeps few execs: the unfiltered instance, on the same
    # clock, has them all.
    st, countbad = compare(ft, lr, w, fstamps, lstamps, exec_stamps(fa, astamps))
    print('filter: workload %d pids; filtered records: ftrace %d, lrb %d, %d field values '
          'compared, mismatches %d, count mismatches %d'
          % (len(w), st['ftrace'], st['lrb'], st['fields'], st['mismatches'], countbad))
    why += tolerance_problems('filter', st) + stamp_problems('filter', st)
    if problems or lost:
        why.append('records lost: ftrace %d problems, lrb %s' % (len(problems), lost))
    if st['mismatches'] or countbad:
        why.append('filtered traces differ (%d values, %d counts)' % (st['mismatches'], countbad))
    kept, dropped, got = Counter(), Counter(), Counter()
    for _, n, v in fa:
        pred = filter_of(n, FILTERS)
        if pred and v.get('common_pid') in w:
            (kept if pred(v) else dropped)[n] += 1
    for _, n, v in ft:
        if filter_of(n, FILTERS) and v.get('common_pid') in w:
            got[n] += 1
    for n in sorted(set(kept) | set(dropped)):
        print('filter: %-32s unfiltered %4d: predicate keeps %4d, drops %4d; ftrace filter keeps %4d'
              % (n, kept[n] + dropped[n], kept[n], dropped[n], got[n]))
        if got[n] != kept[n]:
            why.append('%s: ftrace kept %d, the predicate %d' % (n, got[n], kept[n]))
    for sel in FILTERS:
        names = [n for n in set(kept) | set(dropped) if filter_of(n, {sel: FILTERS[sel]})]
        if not sum(kept[n] for n in names) or not sum(dropped[n] for n in names):
            why.append('%s: the workload gave the filter nothing to keep or nothing to drop' % sel)
    s = lrb_stats(os.path.join(d, 'lrb', '.lrb-stats'))
    lost_sum = sum(v for k, v in s.items() if k.startswith('lost_'))
    print('filter: lrb stats: written %d = delivered %d + lost %d + filtered %d'
          % (s['written'], s['delivered'], lost_sum, s.get('filtered', -1)))
    if s.get('filtered', 0) <= 0:
        why.append('the LRB channel counted no filtered record')
    if s['written'] != s['delivered'] + lost_sum + s.get('filtered', 0):
        why.append('written != delivered + lost + filtered')
    return '; '.join(why)


def cmd_target(d):
    why = []
    fmts = load_formats(os.path.join(d, 'ftrace', 'events'))
    ids = {}
    for name in ('root_pid', 'bg_pid'):
        with open(os.path.join(d, name)) as f:
            ids[name] = int(f.read().split()[0])
    problems, stamps, lstamps = [], [], []
    ft = ftrace_records(os.path.join(d, 'ftrace'), fmts, problems, stamps)
    fa = ftrace_records(os.path.join(d, 'ftrace-all'), fmts, problems)
    lr, lost, _ = lrb_records(os.path.join(d, 'lrb'), fmts, lstamps)
    root = ids['root_pid']
    w, _ = workload(fa, root)
    # lrb-record forks the command held on a pipe and lets it run once
    # the channel records: the command's system calls until its read()
    # of the pipe returns 0 are lrb-record's, which the instance, targeting
    # lrb-record and its children, records and LRB does not.
    release = min((t for t, (_, n, v) in zip(stamps, ft)
                   if v.get('common_pid') == root and n == 'raw_syscalls:sys_exit'
                   and v.get('id') == 0 and v.get('ret') == 0), default=0)
    held = sum(1 for t, (_, _, v) in zip(stamps, ft) if v.get('common_pid') == root and t < release)
    execs = exec_stamps(ft, stamps)
    keep = [r[2].get('common_pid') != root or t >= release for t, r in zip(stamps, ft)]
    ft, stamps = ([x for x, k in zip(xs, keep) if k] for xs in (ft, stamps))
    print('target: %d records of the command before lrb-record let it run, left out' % held)
    st, countbad = compare(ft, lr, w, stamps, lstamps, execs)
    outside = Counter(v.get('common_pid') for _, _, v in lr if v.get('common_pid') not in w)
    bg = ids['bg_pid']
    bg_all = sum(1 for _, _, v in fa if v.get('common_pid') == bg)
    bg_ft = sum(1 for _, _, v in ft if v.get('common_pid') == bg)
    print('target: workload %d pids; its records: ftrace %d, lrb %d, %d field values compared, '
          'mismatches %d, count mismatches %d'
          % (len(w), st['ftrace'], st['lrb'], st['fields'], st['mismatches'], countbad))
    print('target: lrb records of other tasks: %d %s; background task %d: %d records untargeted, '
          '%d in the targeted ftrace instance'
          % (sum(outside.values()), dict(outside) if outside else '', bg, bg_all, bg_ft))
    why += tolerance_problems('target', st) + stamp_problems('target', st)
    if problems or lost:
        why.append('records lost: ftrace %d problems, lrb %s' % (len(problems), lost))
    if st['mismatches'] or countbad:
        why.append('the workload\'s records differ (%d values, %d counts)' % (st['mismatches'], countbad))
    if not st['lrb']:
        why.append('LRB recorded nothing of the workload')
    if outside:
        why.append('LRB recorded %d events of tasks outside the workload' % sum(outside.values()))
    if not bg_all or bg_ft:
        why.append('the background task: %d untargeted records (want > 0), %d targeted (want 0)'
                   % (bg_all, bg_ft))
    s = lrb_stats(os.path.join(d, 'lrb', '.lrb-stats'))
    lost_sum = sum(v for k, v in s.items() if k.startswith('lost_'))
    print('target: lrb stats: written %d, delivered %d, lost %d, filtered %d'
          % (s['written'], s['delivered'], lost_sum, s.get('filtered', 0)))
    if s['written'] != s['delivered'] or lost_sum or s.get('filtered', 0):
        why.append('LRB counted records it did not deliver')
    return '; '.join(why)


# Frames of ftrace's own path that its stacktrace trigger keeps above the
# function that hit the tracepoint (its skip count is fixed); data_ops_trigger
# is an inline function that the KCSAN kernel does not inline.
FTRACE_STACK_FRAMES = ('trace_event_raw_event_', '__traceiter_', 'event_triggers_',
                       'trace_event_buffer_', 'stacktrace_trigger', 'perf_trace_',
                       'data_ops_trigger')


def read_kallsyms(path):
    """Sorted [(address, name)] of the text symbols of a kallsyms file."""
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in ('t', 'T') and int(p[0], 16):
                syms.append((int(p[0], 16), p[2]))
    syms.sort()
    return syms


def symbol(syms, starts, ip):
    """'name+0xoff' of ip, or None outside every symbol."""
    i = bisect.bisect_right(starts, ip) - 1
    return None if i < 0 else '%s+%#x' % (syms[i][1], ip - syms[i][0])


def pair_stacks(seq):
    """[(fields, stack or None)] of the events of one CPU's sequence of
    ('event', fields) and ('stack', addresses): a stack belongs to the last
    event before it without one (interrupts nest their pairs)."""
    out, pending = [], []
    for kind, v in seq:
        if kind == 'event':
            out.append([v, None])
            pending.append(len(out) - 1)
        elif pending:
            out[pending.pop()][1] = v
    return out


def cmd_stack(d):
    why = []
    ftdir = os.path.join(d, 'ftrace')
    fmts = load_formats(os.path.join(ftdir, 'events'))
    ids = {name: ident for ident, (name, _) in fmts.items()}
    if 'kmem:kmalloc' not in ids or 'ftrace:kernel_stack' not in ids:
        return 'no kmem:kmalloc or ftrace:kernel_stack format under %s/events' % ftdir
    with open(os.path.join(ftdir, 'events', 'ftrace', 'kernel_stack', 'format')) as f:
        t = f.read()
    size_off = int(re.search(r'field:int size;\s*offset:(\d+);', t).group(1))
    caller_off = int(re.search(r'field:unsigned long caller\[\d+\];\s*offset:(\d+);', t).group(1))
    with open(os.path.join(d, 'root_pid')) as f:
        root = int(f.read().split()[0])
    syms = read_kallsyms(os.path.join(d, 'lrb', '.kallsyms'))
    starts = [a for a, _ in syms]
    problems, forks, ftseq = [], [], defaultdict(list)
    lay = read_layout(ftdir)
    kfields = fmts[ids['kmem:kmalloc']][1]
    for name in sorted(os.listdir(ftdir)):
        m = re.match(r'cpu(\d+)\.raw$', name)
        if not m:
            continue
        cpu = int(m.group(1))
        with open(os.path.join(ftdir, name), 'rb') as f:
            raw = f.read()
        for _, rec in ftrace_payloads(raw, lay, cpu, problems):
            etype = struct.unpack_from('<H', rec)[0]
            if etype == ids['kmem:kmalloc']:
                ftseq[cpu].append(('event', {x.name: x.value(rec) for x in kfields}))
            elif etype == ids['ftrace:kernel_stack']:
                n = struct.unpack_from('<i', rec, size_off)[0]
                ftseq[cpu].append(('stack', list(struct.unpack_from('<%dQ' % n, rec, caller_off))))
            elif etype == ids.get('sched:sched_process_fork'):
                v = {x.name: x.value(rec) for x in fmts[etype][1]}
                forks.append((None, 'sched:sched_process_fork', v))
    w, _ = workload(forks, root)
    import bt2
    lrseq, lost, kid, keep = defaultdict(list), [], None, []
    for msg in bt2.TraceCollectionMessageIterator(os.path.join(d, 'lrb')):
        keep.append(msg)
        if isinstance(msg, (bt2._DiscardedEventsMessageConst, bt2._DiscardedPacketsMessageConst)):
            lost.append(msg.count)
            continue
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        cpu = int(ev.packet.context_field['cpu_id'])
        if ev.name == 'kmem:kmalloc':
            kid = ev.cls.id
            lrseq[cpu].append(('event', {k: bt2_value(v) for k, v in ev.payload_field.items()}))
        elif ev.name == 'kernel_stack':
            p = ev.payload_field
            if kid is None or int(p['event_id']) == kid:
                lrseq[cpu].append(('stack', [int(x) for x in p['ips']]))
            else:
                why.append('a kernel_stack of event %d, which has no stack' % int(p['event_id']))
    st = Counter()
    for cpu in sorted(set(ftseq) | set(lrseq)):
        fl = [r for r in pair_stacks(ftseq[cpu]) if r[0].get('common_pid') in w]
        ll = [r for r in pair_stacks(lrseq[cpu]) if r[0].get('common_pid') in w]
        if len(fl) != len(ll):
            why.append('cpu %d: ftrace %d kmalloc records of the workload, lrb %d' % (cpu, len(fl), len(ll)))
        for (fv, fs), (lv, ls) in zip(fl, ll):
            st['records'] += 1
            if (fv['call_site'], fv['ptr'], fv['bytes_req']) != (lv['call_site'], lv['ptr'], lv['bytes_req']):
                st['unpaired'] += 1
                continue
            if not ls:
                st['no lrb stack'] += 1
                continue
            if fs is None:
                st['no ftrace stack'] += 1
                continue
            st['frames'] += len(ls)
            names = [symbol(syms, starts, ip) for ip in ls]
            if None in names or len(ls) > 16:
                st['undecodable'] += 1
                if st['undecodable'] <= 5:
                    print('stack: undecodable: %s' % ' '.join(hex(ip) for ip in ls))
                continue
            fn = [symbol(syms, starts, ip) or hex(ip) for ip in fs]
            i = 0
            while i < len(fn) and fn[i].startswith(FTRACE_STACK_FRAMES):
                i += 1
            fs, fn = fs[i:], fn[i:]
            if not fs or fs[0] != ls[0]:
                st['first differs'] += 1
                if st['first differs'] <= 5:
                    print('stack: first frame: ftrace %s, lrb %s' % (fn[:1], names[0]))
                continue
            st['first same'] += 1
            n = min(len(ls), len(fs))
            if fs[:n] == ls[:n]:
                st['same'] += 1
            elif st['stack differs'] < 5:
                st['stack differs'] += 1
                print('stack: ftrace %s\n       lrb    %s' % (fn[:n], names[:n]))
            st['callers %s' % names[0].split('+')[0]] += 1
    print('stack: workload %d pids; kmem:kmalloc records compared %d; with the same first frame '
          'as ftrace\'s trigger %d; whole stacks the same %d; %d frames named from kallsyms'
          % (len(w), st['records'], st['first same'], st['same'], st['frames']))
    print('stack: first frames: %s' % ', '.join('%s %d' % (k[8:], v) for k, v in sorted(st.items())
                                                  if k.startswith('callers ')))
    if problems or lost:
        why.append('records lost: ftrace %d problems, lrb %s' % (len(problems), lost))
    if not st['records']:
        why.append('no kmem:kmalloc record of the workload')
    for k in ('unpaired', 'no lrb stack', 'no ftrace stack', 'undecodable', 'first differs'):
        if st[k]:
            why.append('%d records: %s' % (st[k], k))
    if st['same'] != st['records']:
        why.append('%d of %d stacks differ from ftrace\'s' % (st['records'] - st['same'], st['records']))
    return '; '.join(why)


def cmd_compare(d, min_events):
    ftdir = os.path.join(d, 'ftrace')
    fmts = load_formats(os.path.join(ftdir, 'events'))
    if not fmts:
        return 'no ftrace format under %s/events' % ftdir
    with open(os.path.join(d, 'root_pid')) as f:
        root = int(f.read().split()[0])
    problems, fstamps, lstamps = [], [], []
    ft = ftrace_records(ftdir, fmts, problems, fstamps)
    lr, lost, ignored = lrb_records(os.path.join(d, 'lrb'), fmts, lstamps)
    w, nforks = workload(ft, root)
    print('oracle: %d formats; ftrace %d records, lrb %d records (%d ignored: %s); '
          'workload %d pids from %d forks'
          % (len(fmts), len(ft), len(lr), sum(ignored.values()),
             ', '.join(sorted(ignored)) or '-', len(w), nforks))
    for p in problems[:20]:
        print('ftrace: ' + p)
    st, countbad = compare(ft, lr, w, fstamps, lstamps, exec_stamps(ft, fstamps))
    print('oracle: %(types)d event types, %(events)d events, %(fields)d field values '
          'compared; mismatches: %(mismatches)d' % st)
    why = tolerance_problems('oracle', st) + stamp_problems('oracle', st)
    print('oracle: workload records: ftrace %d, lrb %d; count mismatches: %d; '
          'ftrace problems: %d; lrb discarded: %s'
          % (st['ftrace'], st['lrb'], countbad, len(problems), ', '.join(lost) or 'none'))
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


LTTNG_ANALYSES = ('cputop', 'iolatencyfreq', 'iolatencystats', 'iolatencytop', 'iolog',
                  'iousagetop', 'irqfreq', 'irqlog', 'irqstats', 'memtop', 'schedfreq',
                  'schedlog', 'schedstats', 'schedtop', 'syscallstats')
TICK_NS = 4000000       # one scheduling tick of the guests (HZ=250)

# What Trace Compass reads from an LTTng kernel trace (its Lttng29EventLayout
# and the handlers of its KernelStateProvider, lttng2.kernel.core): event:
# {field: 'int' or 'text'}.
_HRT = {'hrtimer': 'int'}
_BLK = {'dev': 'int', 'sector': 'int', 'nr_sector': 'int', 'rwbs': 'int'}
TRACE_COMPASS = {
    'sched_switch': {'prev_comm': 'text', 'prev_tid': 'int', 'prev_state': 'int',
                     'prev_prio': 'int', 'next_comm': 'text', 'next_tid': 'int',
                     'next_prio': 'int'},
    'sched_wakeup': {'tid': 'int', 'prio': 'int', 'target_cpu': 'int'},
    'sched_waking': {'tid': 'int', 'prio': 'int', 'target_cpu': 'int'},
    'sched_wakeup_new': {'tid': 'int', 'prio': 'int', 'target_cpu': 'int'},
    'sched_process_fork': {'parent_tid': 'int', 'child_tid': 'int', 'child_pid': 'int',
                           'child_comm': 'text'},
    'sched_process_exit': {'tid': 'int'},
    'sched_process_free': {'tid': 'int'},
    'sched_process_exec': {'tid': 'int', 'filename': 'text'},
    'sched_migrate_task': {'tid': 'int', 'dest_cpu': 'int'},
    'irq_handler_entry': {'irq': 'int', 'name': 'text'},
    'irq_handler_exit': {'irq': 'int', 'ret': 'int'},
    'irq_softirq_entry': {'vec': 'int'},
    'irq_softirq_exit': {'vec': 'int'},
    'irq_softirq_raise': {'vec': 'int'},
    'timer_hrtimer_start': dict(_HRT, function='int', expires='int', softexpires='int'),
    'timer_hrtimer_expire_entry': dict(_HRT, now='int', function='int'),
    'timer_hrtimer_expire_exit': _HRT,
    'timer_hrtimer_cancel': _HRT,
    'kmem_mm_page_alloc': {'order': 'int'},
    'kmem_mm_page_free': {'order': 'int'},
    'lttng_statedump_process_state': {'tid': 'int', 'pid': 'int', 'ppid': 'int',
                                      'status': 'int', 'name': 'text'},
    'syscall_entry_openat': {},
    'block_rq_insert': _BLK,
    'block_rq_issue': _BLK,
    'block_rq_complete': _BLK,
    'block_bio_frontmerge': _BLK,
    'lttng_statedump_block_device': {'dev': 'int', 'diskname': 'text'},
    'syscall_exit_openat': {'ret': 'int'},
    'x86_irq_vectors_local_timer_entry': {'vector': 'int'},
}


def tc_contract(path):
    """What of TRACE_COMPASS the trace at path lacks: [problem]."""
    import bt2
    kinds = {}
    for msg in bt2.TraceCollectionMessageIterator(path):
        if not isinstance(msg, bt2._StreamBeginningMessageConst):
            continue
        env = msg.stream.trace.environment
        for ec in msg.stream.cls.values():
            fields = {}
            for name, m in (ec.payload_field_class.items() if ec.payload_field_class else ()):
                fc = m.field_class
                fields[name] = ('enum' if isinstance(fc, bt2._EnumerationFieldClassConst) else
                                'int' if isinstance(fc, bt2._IntegerFieldClassConst) else
                                'text' if isinstance(fc, (bt2._StringFieldClassConst,
                                                          bt2._ArrayFieldClassConst)) else
                                type(fc).__name__)
            kinds[ec.name] = fields
        pctx = msg.stream.cls.packet_context_field_class
        break
    else:
        return ['no stream']
    bad = []
    want = {'tracer_name': 'lttng-modules', 'domain': 'kernel'}
    for k, v in want.items():
        if k not in env or str(env[k]) != v:
            bad.append('env %s is not "%s"' % (k, v))
    for k in ('tracer_major', 'tracer_minor', 'tracer_patchlevel'):
        if k not in env or not isinstance(env[k], bt2._IntegerValueConst):
            bad.append('env %s is not an integer' % k)
    if not bad and (env['tracer_major'] != 2 or env['tracer_minor'] < 9):
        bad.append('env: tracer %d.%d is not 2.9 or later' % (env['tracer_major'],
                                                               env['tracer_minor']))
    if pctx is None or 'cpu_id' not in pctx:
        bad.append('no cpu_id in the packet context')
    for ev, fields in sorted(TRACE_COMPASS.items()):
        if ev not in kinds:
            bad.append('no event %s' % ev)
            continue
        for f, kind in sorted(fields.items()):
            have = kinds[ev].get(f)
            if have != kind:
                bad.append('%s.%s is %s, not %s' % (ev, f, have or 'missing', kind))
    return bad


def la_mi(name, path, *args):
    """The result tables of lttng-NAME-mi on path: [(class, subtitle, range ns, rows)]."""
    out = subprocess.run(['lttng-%s-mi' % name] + list(args) + [path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, universal_newlines=True, check=True).stdout
    tables = []
    for r in json.loads(out).get('results', []):
        tr = r.get('time-range', {})
        span = tr.get('end', {}).get('value', 0) - tr.get('begin', {}).get('value', 0)
        cls = r.get('class')
        # A table with a subtitle has a class of its own that inherits one.
        if isinstance(cls, dict):
            cls, sub = cls.get('inherit'), cls.get('title', '')
        else:
            sub = ''
        tables.append((cls, sub, span, r.get('data', [])))
    return tables


def cell(c):
    """An MI cell as a plain value: a number's or a name's."""
    if isinstance(c, dict):
        for k in ('value', 'name', 'tid', 'nr'):
            if k in c:
                return c[k]
    return c


def ftrace_cpu_time(ft, stamps, tids):
    """ns each of tids ran, from ftrace's sched_switch records, per CPU."""
    run, since = Counter(), {}
    for (cpu, name, v), ts in zip(ft, stamps):
        if name != 'sched:sched_switch':
            continue
        prev, nxt = v.get('prev_pid'), v.get('next_pid')
        if (cpu, prev) in since:
            run[prev] += ts - since.pop((cpu, prev))
        if nxt in tids:
            since[cpu, nxt] = ts
    return run


def la_lrb_window(path):
    """First and last event timestamps of the LRB trace, in ftrace's clock
    (the clock's cycles, before the metadata's offset to real time), and
    its sched_switch records: [(cpu, prev_tid, next_tid, cycles)]."""
    import bt2
    first = last = None
    switches = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if isinstance(msg, bt2._EventMessageConst):
            cyc = msg.default_clock_snapshot.value
            first = cyc if first is None else first
            last = cyc
            ev = msg.event
            if ev.name == 'sched_switch':
                switches.append((int(ev.packet.context_field['cpu_id']),
                                 int(ev.payload_field['prev_tid']),
                                 int(ev.payload_field['next_tid']), cyc))
    return first, last, switches


def skew_allowance(ft, stamps, switches, tids):
    """(Counter of the ns each of tids may differ by, the usual offset of
    ftrace's clock from LRB's, switches matched). The allowance is the sum,
    over the thread's switches, of how far ftrace's and LRB's timestamps
    of that switch stray from that offset: both probes run one after the
    other at each tracepoint, but under QEMU TCG a vCPU may stop between
    them for milliseconds. (ftrace's local clock is sched_clock(), LRB's
    local_clock(), which adds the offset that aligns it with ktime.)"""
    fsw = defaultdict(list)
    for (cpu, n, v), ts in zip(ft, stamps):
        if n == 'sched:sched_switch':
            fsw[cpu].append((v.get('prev_pid'), v.get('next_pid'), ts))
    lsw = defaultdict(list)
    for cpu, p, n, ts in switches:
        lsw[cpu].append((p, n, ts))
    pairs = []
    for cpu, ls in lsw.items():
        fs = fsw.get(cpu, [])
        # LRB's records are a run of ftrace's (it started later, ended first).
        for k in range(len(fs) - len(ls) + 1):
            if [x[:2] for x in fs[k:k + len(ls)]] == [x[:2] for x in ls]:
                pairs += [(f[0], f[1], f[2] - l[2]) for f, l in zip(fs[k:], ls)]
                break
    if not pairs:
        return Counter(), 0, 0
    offs = sorted(d for _, _, d in pairs)
    mid = offs[len(offs) // 2]
    allow = Counter()
    for p, n, d in pairs:
        for t in (p, n):
            if t in tids:
                allow[t] += abs(d - mid)
    return allow, mid, len(pairs)


# The priority fields of the sched events, as (tid field, prio field),
# by ftrace name: lttng-modules names the tid fields so, its priorities
# are prio - MAX_RT_PRIO.
SCHED_PRIOS = {
    'sched_switch': (('prev_pid', 'prev_prio'), ('next_pid', 'next_prio')),
    'sched_wakeup': (('pid', 'prio'),),
    'sched_waking': (('pid', 'prio'),),
    'sched_wakeup_new': (('pid', 'prio'),),
}


# lttng-modules' rwbs bits (include/instrumentation/events/block.h) for
# the letters of blk_fill_rwbs(): F (a preflush), the operation, then F
# (FUA), A (read-ahead), S (sync), M (metadata).
RWBS = re.compile(r'(F?)(DE|[WDFRN])(F?)(A?)(S?)(M?)')
RWBS_OPS = {'W': 1, 'D': 2, 'DE': 2 | 128, 'F': 256, 'R': 4, 'N': 0}


# Block events lttng-modules 2.13 does not instrument: they keep their
# ftrace layout in LTTng's.
BLOCK_NOT_LTTNG = {'block:block_io_start', 'block:block_io_done', 'block:block_rq_error'}


def rwbs_bits(text):
    """lttng-modules' rwbs for ftrace's rwbs text."""
    m = RWBS.fullmatch(text)
    if not m:
        raise ValueError('rwbs %r' % text)
    pre, op, fua, ra, sync, meta = m.groups()
    return (RWBS_OPS[op] | (1024 if pre else 0) | (512 if fua else 0) | (8 if ra else 0) |
            (32 if sync else 0) | (64 if meta else 0))


def lttng_prios(counts, name, fields, w, shift=0):
    """Count (event, tid, priority) of the workload's threads in @counts,
    from an event's fields by their ftrace names (an int) or LTTng's."""
    for tid, prio in SCHED_PRIOS.get(name, ()):
        lt = tid.replace('pid', 'tid')
        t = int(fields[tid] if tid in fields else fields[lt])
        if t in w:
            counts[name, t, int(fields[prio]) + shift] += 1


def cmd_lttng(d):
    ftdir, path = os.path.join(d, 'ftrace'), os.path.join(d, 'lttng')
    why = []
    for name in LTTNG_ANALYSES:
        r = subprocess.run(['lttng-' + name, path], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        bad = [l for l in r.stdout.splitlines() if l.startswith('Error')]
        lines = len(r.stdout.splitlines())
        print('lttng: lttng-%s exit %d, %d lines%s' % (name, r.returncode, lines,
                                                     ', ' + bad[0] if bad else ''))
        if r.returncode or bad:
            why.append('lttng-%s failed' % name)
    bad = tc_contract(path)
    print('lttng: Trace Compass contract: %d events, %d fields checked; problems: %d%s'
          % (len(TRACE_COMPASS), sum(len(f) for f in TRACE_COMPASS.values()), len(bad),
             ' (%s)' % '; '.join(bad[:5]) if bad else ''))
    if bad:
        why.append('Trace Compass contract: ' + bad[0])
    fmts = load_formats(os.path.join(ftdir, 'events'))
    with open(os.path.join(d, 'root_pid')) as f:
        root = int(f.read().split()[0])
    problems, stamps = [], []
    ft = ftrace_records(ftdir, fmts, problems, stamps)
    w, _ = workload(ft, root)
    if problems:
        why.append('ftrace: ' + problems[0])

    # cputop: CPU time per thread.
    usage = {}
    for cls, _, span, rows in la_mi('cputop', path, '--limit', '100000'):
        if cls == 'per-process':
            for row in rows:
                usage[row[0]['tid']] = cell(row[-1]) * span
    ftime = ftrace_cpu_time(ft, stamps, w)
    first, last, switches = la_lrb_window(path)
    allow, offset, matched = skew_allowance(ft, stamps, switches, w)
    off = [(t, ftime[t], usage.get(t, 0), allow[t]) for t in sorted(w)
           if abs(ftime[t] - usage.get(t, 0)) > TICK_NS + allow[t]]
    print('lttng: cputop: %d workload threads, %.3f ms by ftrace, %.3f ms by lttng-cputop; '
          'apart by more than a tick (plus %.3f ms where a vCPU stopped between the two '
          'probes of a sched_switch, from %d switches both recorded): %d'
          % (len(w), sum(ftime[t] for t in w) / 1e6, sum(usage.get(t, 0) for t in w) / 1e6,
             sum(allow[t] for t in w) / 1e6, matched, len(off)))
    for t, a, b, c in off[:10]:
        print('  tid %d: ftrace %d ns, lttng-cputop %d ns, allowance %d ns' % (t, a, b, c))
    if off or not sum(usage.get(t, 0) for t in w):
        why.append('cputop: %d threads apart' % len(off) if off else 'cputop: no workload time')

    # syscallstats: calls per thread and system call.
    la_calls, subtitles = Counter(), {}
    for cls, sub, _, rows in la_mi('syscallstats', path):
        m = re.search(r'TID: (\d+)', sub)
        if m:
            subtitles[int(m.group(1))] = sub
        if cls == 'per-tid' and m and int(m.group(1)) in w:
            for row in rows:
                la_calls[int(m.group(1)), cell(row[0])] += cell(row[1])
    # The analysis counts a call at its exit, if it saw the thread enter
    # it: not the return of clone() in the child, nor exit_group().
    ft_calls, inside = Counter(), {}
    for (_, n, v), _ in sorted(zip(ft, stamps), key=lambda r: r[1]):
        tid = v.get('common_pid')
        if tid not in w or not n.startswith('syscalls:sys_'):
            continue
        if n.startswith('syscalls:sys_enter_'):
            inside[tid] = n[len('syscalls:sys_enter_'):]
        elif inside.pop(tid, None) == n[len('syscalls:sys_exit_'):]:
            ft_calls[tid, n[len('syscalls:sys_exit_'):]] += 1
    bad = sorted(k for k in set(la_calls) | set(ft_calls) if la_calls[k] != ft_calls[k])
    print('lttng: syscallstats: %d calls of %d kinds by ftrace, %d by lttng-syscallstats; '
          'differing: %d' % (sum(ft_calls.values()), len({k[1] for k in ft_calls}),
                             sum(la_calls.values()), len(bad)))
    for k in bad[:10]:
        print('  tid %d %s: ftrace %d, lttng-syscallstats %d' % (k[0], k[1], ft_calls[k], la_calls[k]))
    if bad or not ft_calls:
        why.append('syscallstats: %d differ' % len(bad) if bad else 'syscallstats: no calls')

    # The statedump: a process that neither forked nor exec'd in the trace.
    with open(os.path.join(d, 'bg_pid')) as f:
        bg = int(f.read().split()[0])
    sub = subtitles.get(bg, '')
    print('lttng: statedump: the process that ran before the recording: %s'
          % (sub or 'not in lttng-syscallstats'))
    if not re.search(r'\(%d, TID: %d\)' % (bg, bg), sub):
        why.append('statedump: process %d not named with its pid' % bg)

    # memtop: allocated pages per thread.
    la_pages = Counter()
    for cls, _, _, rows in la_mi('memtop', path, '--limit', '100000'):
        if cls == 'allocd':
            for row in rows:
                if row[0]['tid'] in w:
                    la_pages[row[0]['tid']] = cell(row[1])
    ft_pages = Counter(v.get('common_pid') for _, n, v in ft
                       if n == 'kmem:mm_page_alloc' and v.get('common_pid') in w)
    bad = sorted(t for t in set(la_pages) | set(ft_pages) if la_pages[t] != ft_pages[t])
    print('lttng: memtop: %d pages allocated by the workload by ftrace, %d by lttng-memtop; '
          'threads differing: %d' % (sum(ft_pages.values()), sum(la_pages.values()), len(bad)))
    if bad or not ft_pages:
        why.append('memtop: %d threads differ' % len(bad) if bad else 'memtop: no pages')

    # irqstats: hard IRQs in the LRB trace's time range.
    la_irqs = Counter()
    for cls, _, _, rows in la_mi('irqstats', path):
        if cls == 'hard-stats':
            for row in rows:
                la_irqs[row[0]['nr']] += cell(row[1])
    ft_irqs = Counter(v.get('irq') for (_, n, v), ts in zip(ft, stamps)
                      if n == 'irq:irq_handler_entry' and
                      first + offset <= ts <= last + offset)
    bad = sorted(i for i in set(la_irqs) | set(ft_irqs) if la_irqs[i] != ft_irqs[i])
    print('lttng: irqstats: %d hard IRQs of %d lines by ftrace, %d by lttng-irqstats; '
          'lines differing: %d' % (sum(ft_irqs.values()), len(ft_irqs),
                                   sum(la_irqs.values()), len(bad)))
    for i in bad[:10]:
        print('  irq %s: ftrace %d, lttng-irqstats %d' % (i, ft_irqs[i], la_irqs[i]))
    if bad or not ft_irqs:
        why.append('irqstats: %d lines differ' % len(bad) if bad else 'irqstats: no IRQ')

    # System call entries: the arguments that are numbers, as ftrace has them.
    import bt2
    lsc, lprio, sd_irqs, sd_marks = defaultdict(list), Counter(), defaultdict(list), []
    lblk, sd_bdevs = Counter(), defaultdict(set)
    for msg in bt2.TraceCollectionMessageIterator(path):
        if not isinstance(msg, bt2._EventMessageConst) or \
                not msg.event.name.startswith(('syscall_entry_', 'sched_',
                                               'lttng_statedump_', 'block_')):
            continue
        ev = msg.event
        if ev.name.startswith('block_'):
            p = ev.payload_field
            if 'rwbs' in p:
                lblk[ev.name, int(p['dev']), int(p['sector']), int(p['rwbs']),
                     int(p['tid'] if 'tid' in p else p['common_pid'])] += 1
            continue
        if ev.name == 'lttng_statedump_block_device':
            sd_bdevs[len(sd_marks)].add((str(ev.payload_field['diskname']),
                                         int(ev.payload_field['dev'])))
        if ev.name in ('lttng_statedump_start', 'lttng_statedump_end'):
            sd_marks.append(ev.name)
        if ev.name == 'lttng_statedump_interrupt':
            p = ev.payload_field
            sd_irqs[len(sd_marks), int(p['irq'])].append((str(p['name']),
                                                           str(p['action'])))
        if ev.name.startswith('lttng_statedump_'):
            continue
        if ev.name.startswith('sched_'):
            lttng_prios(lprio, ev.name, ev.payload_field, w)
            continue
        if int(ev.payload_field['common_pid']) not in w:
            continue
        lsc[int(ev.packet.context_field['cpu_id']), ev.name[len('syscall_entry_'):]].append(
            {k: int(v) for k, v in ev.payload_field.items()
             if isinstance(v, bt2._IntegerFieldConst)})
    fsc = defaultdict(list)
    for cpu, n, v in ft:
        if n.startswith('syscalls:sys_enter_') and v.get('common_pid') in w:
            fsc[cpu, n[len('syscalls:sys_enter_'):]].append(v)
    calls = args = bad = 0
    for key in set(lsc) | set(fsc):
        if len(lsc[key]) != len(fsc[key]):
            bad += 1
            print('  %s cpu %d: ftrace %d entries, lrb %d' % (key[1], key[0], len(fsc[key]),
                                                           len(lsc[key])))
            continue
        for lv, fv in zip(lsc[key], fsc[key]):
            calls += 1
            for k, x in lv.items():
                if k in fv and k != 'common_flags':
                    args += 1
                    if (x - fv[k]) % (1 << 64):
                        bad += 1
                        if bad <= 10:
                            print('  %s cpu %d %s: ftrace %s, lrb %s' % (key[1], key[0], k,
                                                                      fv[k], x))
    print('lttng: system call entries: %d of the workload, %d numbers compared with '
          'ftrace\'s; differing: %d' % (calls, args, bad))
    if bad or not calls:
        why.append('system call entries: %d differ' % bad if bad else 'no system call entry')

    # Priorities: lttng-modules' prio - MAX_RT_PRIO against ftrace's prio.
    fprio = Counter()
    for _, n, v in ft:
        if n.startswith('sched:'):
            lttng_prios(fprio, n[len('sched:'):], v, w, -100)
    bad = sorted(k for k in set(lprio) | set(fprio) if lprio[k] != fprio[k])
    print('lttng: priorities: %d of the workload\'s, values %s; differing from ftrace\'s '
          'prio - 100: %d' % (sum(fprio.values()), sorted({k[2] for k in fprio}), len(bad)))
    for k in bad[:10]:
        print('  %s tid %d prio %d: ftrace %d, lrb %d' % (k[0], k[1], k[2], fprio[k], lprio[k]))
    if bad or not {k[2] for k in fprio} - {20}:
        why.append('priorities: %d differ' % len(bad) if bad else 'priorities: none but 20')

    # The statedump's interrupt handlers: each IRQ's as /proc/interrupts
    # lists them (read after the recording), and every handler that
    # ftrace saw run among them.
    with open(os.path.join(d, 'interrupts')) as f:
        proc = {int(m.group(1)): m.group(2).rstrip() for m in
                (re.match(r'\s*(\d+):(.*)', l) for l in f) if m}
    # Each of the two statedumps (at the start, and the one the workload
    # asks for through NAME/statedump) is whole.
    bad = [] if sd_marks == ['lttng_statedump_start', 'lttng_statedump_end'] * 2 else \
        ['statedumps: start and end records %s, not two of each in turn' % sd_marks]
    seen = {(v['irq'], v['name']) for _, n, v in ft if n == 'irq:irq_handler_entry'}
    for sd in (1, 3):
        irqs = {irq: hs for (i, irq), hs in sd_irqs.items() if i == sd}
        for irq, hs in sorted(irqs.items()):
            line = proc.get(irq, '')
            if not line.endswith('  ' + ', '.join(h[1] for h in hs)) or \
                    hs[0][0] not in line.split():
                bad.append('irq %d %s: /proc/interrupts has %r' % (irq, hs, line))
        bad += ['irq %d handler %s ran, not in statedump %d' % (k + (sd // 2 + 1,))
                for k in sorted(seen) if k[1] not in [h[1] for h in irqs.get(k[0], ())]]
        if not irqs:
            bad.append('statedump %d: no interrupt' % (sd // 2 + 1))
    print('lttng: statedump: %d statedumps; %d interrupt handlers of %d IRQs in the first, '
          '%d of them seen running by ftrace; differing from /proc/interrupts or missing: %d'
          % (sd_marks.count('lttng_statedump_start'),
             sum(len(h) for (i, _), h in sd_irqs.items() if i == 1),
             len([k for k in sd_irqs if k[0] == 1]), len(seen), len(bad)))
    for b in bad[:10]:
        print('  ' + b)
    if bad:
        why.append('statedump: ' + bad[0])

    # Block events: lttng-modules' rwbs bits for ftrace's text, and the
    # same device, sector and thread, in the LRB trace's time range.
    fblk = Counter((n[len('block:'):], v['dev'], v['sector'], rwbs_bits(v['rwbs']),
                    v['common_pid']) for (_, n, v), ts in zip(ft, stamps)
                   if n.startswith('block:') and 'rwbs' in v and
                   n not in BLOCK_NOT_LTTNG and first + offset <= ts <= last + offset)
    bad = sorted(k for k in set(lblk) | set(fblk) if lblk[k] != fblk[k])
    print('lttng: block: %d records with rwbs by ftrace (%s), %d by lrb; differing: %d'
          % (sum(fblk.values()), ', '.join('%s %d' % kv for kv in sorted(
              Counter(k[0] for k in fblk.elements()).items())), sum(lblk.values()), len(bad)))
    for k in bad[:10]:
        print('  %s dev %d sector %d rwbs %d tid %d: ftrace %d, lrb %d' % (k + (fblk[k], lblk[k])))
    if bad or not any(k[0] == 'block_rq_complete' for k in fblk):
        why.append('block: %d differ' % len(bad) if bad else 'block: no request completed')

    # iousagetop: requests and sectors per disk, named by the statedump.
    # The analyses count a request at its completion, if one of as many
    # sectors was issued at its sector (a flush, of none, is not one).
    names = {dev: name for (name, dev) in sd_bdevs[1]}
    issued, ft_reqs, ft_sectors = {}, Counter(), Counter()
    for (_, n, v), ts in sorted(zip(ft, stamps), key=lambda r: r[1]):
        if not first + offset <= ts <= last + offset or not v.get('nr_sector'):
            continue
        key = (v['dev'], v['sector'])
        if n == 'block:block_rq_issue':
            issued[key] = v['nr_sector']
        elif n == 'block:block_rq_complete' and issued.get(key) == v['nr_sector']:
            del issued[key]
            ft_reqs[names.get(v['dev'], v['dev'])] += 1
            ft_sectors[names.get(v['dev'], v['dev'])] += v['nr_sector']
    la_reqs, la_sectors = Counter(), Counter()
    for cls, _, _, rows in la_mi('iousagetop', path):
        for row in rows:
            if cls in ('per-disk-top-request', 'per-disk-top-sector'):
                (la_reqs if cls.endswith('request') else la_sectors)[row[0]['name']] += \
                    cell(row[1])
    bad = sorted(k for k in set(ft_reqs) | set(la_reqs)
                 if (ft_reqs[k], ft_sectors[k]) != (la_reqs[k], la_sectors[k]))
    print('lttng: iousagetop: %s by ftrace, %s by lttng-iousagetop (requests, sectors); '
          'disks differing: %d' % (
              ', '.join('%s %d, %d' % (k, ft_reqs[k], ft_sectors[k]) for k in sorted(ft_reqs)),
              ', '.join('%s %d, %d' % (k, la_reqs[k], la_sectors[k]) for k in sorted(la_reqs)),
              len(bad)))
    if bad or not ft_reqs:
        why.append('iousagetop: %d disks differ' % len(bad) if bad else 'iousagetop: no request')

    # The statedump's block devices: each disk, and each partition with
    # sectors, of /sys/class/block, with its device number.
    want = set()
    with open(os.path.join(d, 'blockdevs')) as f:
        for name, dev, size, kind in (l.split() for l in f):
            major, minor = map(int, dev.split(':'))
            if kind == 'disk' or int(size):
                want.add((name, major << 20 | minor))
    bad = ['statedump %d: block devices %s, /sys/class/block %s'
           % (sd // 2 + 1, sorted(sd_bdevs[sd]), sorted(want))
           for sd in (1, 3) if sd_bdevs[sd] != want]
    print('lttng: statedump: %d block devices in /sys/class/block, %d in the first statedump, '
          '%d in the second; differing: %d' % (len(want), len(sd_bdevs[1]), len(sd_bdevs[3]),
                                              len(bad)))
    if bad or not want:
        why.append(bad[0] if bad else 'statedump: no block device')

    # schedtop: the workload's wakeups.
    wakees = set()
    for cls, _, _, rows in la_mi('schedtop', path, '--limit', '100000'):
        if cls == 'top':
            wakees.update(row[5]['tid'] for row in rows if isinstance(row[5], dict))
    print('lttng: schedtop: %d of its top wakees are workload threads' % len(wakees & w))
    if not wakees & w:
        why.append('schedtop: no workload wakeup')
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


def cmd_coverage(d, min_events):
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
    if decoded < min_events:
        why.append('%d events decoded, fewer than %d' % (decoded, min_events))
    if err:
        why.append('babeltrace2 printed %d unexpected stderr lines' % len(err))
    return '; '.join(why)


def main():
    ap = argparse.ArgumentParser(description='Check an LRB CTF trace against ftrace.',
                                 usage='%(prog)s [--min-events N] [compare|coverage|lttng|filter|target|stack] DIR')
    ap.add_argument('--min-events', type=int, default=1000,
                    help='events that must be compared field by field (compare)')
    ap.add_argument('words', nargs='+', metavar='[compare|coverage|lttng|filter|target|stack] DIR')
    a = ap.parse_args()
    words = a.words if len(a.words) == 2 else ['compare'] + a.words
    if len(words) != 2 or words[0] not in ('compare', 'coverage', 'lttng', 'filter', 'target', 'stack'):
        ap.error('expected [compare|coverage|lttng|filter|target|stack] DIR')
    cmd, d = words
    try:
        why = cmd_compare(d, a.min_events) if cmd == 'compare' else \
            cmd_lttng(d) if cmd == 'lttng' else \
            cmd_filter(d) if cmd == 'filter' else \
            cmd_target(d) if cmd == 'target' else \
            cmd_stack(d) if cmd == 'stack' else cmd_coverage(d, a.min_events)
    except Exception as e:                  # bt2 raises its own errors too
        why = 'cannot read the inputs: %s: %s' % (type(e).__name__, e)
    print('%s: %s' % ({'compare': 'oracle'}.get(cmd, cmd), 'FAIL: ' + why if why else 'PASS'))
    return 1 if why else 0


if __name__ == '__main__':
    sys.exit(main())
