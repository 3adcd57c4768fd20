#!/usr/bin/python3
"""lttngcmp.py RUN-DIR [--lossless]: compare the LTTng and LRB traces of one
run of guest/lttng-init.sh (RUN-DIR/lttng, RUN-DIR/lrb), read with
babeltrace2's Python bindings: events per type, events the tracers say they
discarded, bytes per event (stream files, and the packets' contents), and
the exec events of the workload, which both must have seen alike (LTTng
also saw lrb-record start, LRB the script that runs the workload and
lttng stop: those are left out); and, per
event type, the bytes of a record in each trace (LRB's split into payload,
record header and length word), from a walk of each trace's records that
must add up to its packets' content; then each tracer's bytes per event at
the other's mix of events, which compares the formats where the raw
averages compare different mixes.

Prints a table, then result lines (harness/result.sh).  With --lossless,
neither trace may have discarded an event.
"""
import collections
import os
import re
import struct
import subprocess
import sys

import bt2

# LTTng's name of each event the guest records, and the kernel's.
EVENTS = {
    'sched_switch': 'sched:sched_switch',
    'sched_wakeup': 'sched:sched_wakeup',
    'sched_process_fork': 'sched:sched_process_fork',
    'sched_process_exec': 'sched:sched_process_exec',
    'sched_process_exit': 'sched:sched_process_exit',
    'irq_handler_entry': 'irq:irq_handler_entry',
    'irq_softirq_entry': 'irq:softirq_entry',
    'timer_hrtimer_start': 'timer:hrtimer_start',
    'timer_hrtimer_expire_entry': 'timer:hrtimer_expire_entry',
}
# Programs that one tracer ran while the other recorded.
TRACERS = {'lrb-record', 'lttng', 'window.sh'}
# Where the packet context's content_size and packet_size (u64, bits) are
# in a packet: after LTTng's 32-byte header and timestamp_begin and _end;
# in struct lrb_packet_header (include/uapi/linux/lrb.h).
SIZES_AT = {'lttng': 48, 'lrb': 32}
CTF_MAGIC = 0xC1FC1FC1
LRB_PACKET_HEADER = 72		# sizeof(struct lrb_packet_header)
# LTTng's packet header and context (its metadata's trace packet.header and
# struct packet_context, byte-aligned on x86_64): 32 + 52 bytes.
LTTNG_PACKET_HEADER = 84

# What lttngcmp.py takes from one trace.
Trace = collections.namedtuple('Trace', 'counts discarded execs file content metadata')


def stream_files(path):
    """The stream files of a trace: not metadata, not indexes."""
    for dirpath, dirnames, files in os.walk(path):
        dirnames[:] = [d for d in dirnames if d != 'index']
        for f in files:
            if f != 'metadata' and not f.startswith('.'):
                yield os.path.join(dirpath, f)


def content_bytes(path, at):
    """Bytes of packet content in the stream files of a trace, walking
    packet by packet; None if a packet does not start with the CTF magic
    or sizes do not add up to the file."""
    total = 0
    for f in stream_files(path):
        data = open(f, 'rb').read()
        pos = 0
        while pos < len(data):
            magic, = struct.unpack_from('<I', data, pos)
            content, packet = struct.unpack_from('<QQ', data, pos + at)
            if magic != CTF_MAGIC or not packet or packet % 8 or content > packet:
                return None
            total += content // 8
            pos += packet // 8
        if pos != len(data):
            return None
    return total


def read(path, name_of):
    """Event counts by kernel name, discarded count, and exec events by
    (program, pid) of the trace at @path."""
    counts = collections.Counter()
    execs = collections.Counter()
    discarded = 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst:
            name = name_of(msg.event.name)
            counts[name] += 1
            if name == 'sched:sched_process_exec':
                ev = msg.event.payload_field
                prog = str(ev['filename'])
                if os.path.basename(prog) not in TRACERS:
                    pid = ev['pid'] if 'pid' in ev else ev['tid']
                    execs[(prog, int(pid))] += 1
        elif type(msg) is bt2._DiscardedEventsMessageConst:
            discarded += msg.count or 0
    return counts, discarded, execs


def walk_records(path, tracer, payload):
    """Walk the records of every packet of a trace. Each begins with
    LTTng's compact event header, 4 bytes (5-bit id, 27-bit time), or its
    extended one, 13 bytes (id 31, then a 32-bit id and a 64-bit time),
    unaligned: the two tracers' common format (little-endian here, as
    make lttng's traces are). @payload(id, data, at, end) gives the
    record's event name, the bytes of its length word and of its payload,
    or None if it cannot tell. Returns ({name: [records, payload, header,
    length words]}, packet header bytes), or None if a packet's records
    do not end exactly at its content_size."""
    hdr = {'lttng': LTTNG_PACKET_HEADER, 'lrb': LRB_PACKET_HEADER}[tracer]
    per = collections.defaultdict(lambda: [0, 0, 0, 0])
    headers = 0
    for f in stream_files(path):
        data = open(f, 'rb').read()
        pos = 0
        while pos < len(data):
            content, packet = struct.unpack_from('<QQ', data, pos + SIZES_AT[tracer])
            end, off = pos + content // 8, pos + hdr
            headers += hdr
            while off < end:
                rid, hlen = data[off] & 31, 4
                if rid == 31:
                    rid, = struct.unpack_from('<I', data, off + 1)
                    hlen = 13
                rec = payload(rid, data, off + hlen, end)
                if rec is None:
                    return None
                name, lsize, length = rec
                off += hlen + lsize + length
                if off > end:
                    return None
                for i, v in enumerate((1, length, hlen, lsize)):
                    per[name][i] += v
            pos += packet // 8
    return per, headers


def lrb_record_bytes(path):
    """Where LRB's packet bytes go (walk_records()): after the record
    header of include/uapi/linux/lrb.h, a 16-bit length unless the
    metadata gives the event a fixed length or says where the payload
    holds it (a u32 at byte AT, whose 16-bit halves less BASE make it),
    then the payload."""
    text = open(os.path.join(path, 'metadata')).read()
    names, fixed, held = {}, {}, {}
    for block in text.split('event {')[1:]:
        m = re.search(r'name = "([^"]+)";\s*id = (\d+);', block)
        if not m:
            continue
        names[int(m.group(2))] = m.group(1)
        f = re.search(r'/\* lrb: fixed length (\d+) \*/', block)
        if f:
            fixed[int(m.group(2))] = int(f.group(1))
        h = re.search(r'/\* lrb: length at (\d+) (-?\d+) \*/', block)
        if h:
            held[int(m.group(2))] = (int(h.group(1)), int(h.group(2)))

    def payload(rid, data, at, end):
        name = names.get(rid, str(rid))
        if rid < 31 and rid in fixed:
            return name, 0, fixed[rid]
        if rid < 31 and rid in held:
            word, = struct.unpack_from('<I', data, at + held[rid][0])
            return name, 0, (word & 0xffff) + (word >> 16) - held[rid][1]
        length, = struct.unpack_from('<H', data, at)
        return name, 2, length
    return walk_records(path, 'lrb', payload)


def lttng_fields(path):
    """{event id: (name, [(kind, bytes, name or length field)])} from the
    metadata of LTTng's trace at @path, for the field declarations its
    kernel events use: integers and enumerations of whole bytes, arrays,
    sequences and strings, all byte-aligned; None for anything else."""
    kernel = os.path.dirname(next(iter(stream_files(path))))
    text = subprocess.run(['babeltrace2', '--output-format=ctf-metadata', kernel],
                          capture_output=True, text=True, check=True).stdout
    events = {}
    for block in text.split('\nevent {')[1:]:
        name = re.search(r'name = "([^"]+)";', block).group(1)
        eid = int(re.search(r'\bid = (\d+);', block).group(1))
        body = block.split('fields := struct {', 1)[1].split('\n\t};', 1)[0]
        fields = []
        for line in filter(None, (x.strip() for x in body.split('\n'))):
            s = re.fullmatch(r'string (\w+);', line)
            m = re.fullmatch(r'(?:enum : )?integer \{ size = (\d+); align = (\d+);[^}]*\}'
                             r'(?: \{.*\})? (\w+)(?:\[ ?(\w+) ?\])?;', line)
            if s:
                fields.append(('string', 0, s.group(1)))
            elif m and int(m.group(1)) % 8 == 0 and m.group(2) == '8':
                size, fname, count = int(m.group(1)) // 8, m.group(3), m.group(4)
                if count is None:
                    fields.append(('int', size, fname))
                elif count.isdigit():
                    fields.append(('int', size * int(count), fname))
                else:
                    fields.append(('seq', size, count))
            else:
                return None
        events[eid] = (name, fields)
    return events


def lttng_record_bytes(path):
    """Where LTTng's packet bytes go (walk_records()): after the record
    header, the fields as its metadata lays them out, nothing aligned on
    x86_64; None if the metadata has a field this walk does not know."""
    events = lttng_fields(path)
    if events is None:
        return None

    def payload(rid, data, at, end):
        if rid not in events:
            return None
        name, fields = events[rid]
        p, ints = at, {}
        for kind, size, fname in fields:
            if kind == 'string':
                p = data.find(b'\0', p, end) + 1
                if not p:
                    return None
            elif kind == 'seq':
                p += size * ints.get(fname, 0)
            else:
                ints[fname] = int.from_bytes(data[p:p + size], 'little')
                p += size
        return EVENTS.get(name, name), 0, p - at
    return walk_records(path, 'lttng', payload)


def lrb_stats(path):
    """The total block of the kernel's counters that lrb-record saved."""
    stats, block = {}, False
    for line in open(os.path.join(path, '.lrb-stats')):
        if line.strip() == 'cpu: total':
            block = True
        elif block and ':' in line:
            key, val = line.split(':', 1)
            stats[key.strip()] = int(val)
    return stats


def print_record_bytes(name, walks, traces):
    """Bytes per record by event type, from both walks; then each
    tracer's bytes per event at the other's mix of events (the two keep
    different mixes when they lose events, and see different spans): its
    records' bytes by type weighted by the other's counts, plus its own
    packet header bytes per event (content), plus its own bytes past the
    content per event (file)."""
    (lt, lth), (lr, lrh) = walks['lttng'], walks['lrb']
    print(f'{name}: bytes per record, by event type (LRB: payload + record header '
          '+ length word)')
    print(f'  {"event":32} {"LTTng":>7} {"bytes":>6}   {"LRB":>7} {"bytes":>28}')
    for ev in sorted(set(lt) | set(lr), key=lambda e: -lr[e][0]):
        a, b = lt[ev], lr[ev]
        la = f'{sum(a[1:]) / a[0]:6.1f}' if a[0] else '     -'
        lb = (f'{b[1] / b[0]:6.1f} + {b[2] / b[0]:4.1f} + {b[3] / b[0]:3.1f} = '
              f'{sum(b[1:]) / b[0]:5.1f}') if b[0] else '-'
        print(f'  {ev:32} {a[0]:7} {la}   {b[0]:7} {lb:>28}')
    for label, w, h in (('LTTng', lt, lth), ('LRB', lr, lrh)):
        n = sum(v[0] for v in w.values())
        print(f'  {label + " packet headers":32} {h / max(n, 1):.1f} bytes per event')

    def at_mix(tracer, counts):
        """Content and file bytes per event of @tracer at the mix @counts."""
        w, h = walks[tracer]
        t = traces[tracer]
        n = sum(v[0] for v in w.values())
        kinds = [e for e in counts if w[e][0]]
        events = max(sum(counts[e] for e in kinds), 1)
        recs = sum(counts[e] * sum(w[e][1:]) / w[e][0] for e in kinds)
        content = recs / events + h / max(n, 1)
        return content, content + (t.file - t.content) / max(n, 1)

    for mix_of, counts in (('LTTng', lt), ('LRB', lr)):
        c = {e: v[0] for e, v in counts.items()}
        (lc, lf), (rc, rf) = at_mix('lttng', c), at_mix('lrb', c)
        label = f"at {mix_of}'s mix of events:"
        print(f'  {label:28} content bytes per event LTTng '
              f'{lc:.1f}, LRB {rc:.1f}; file bytes per event LTTng {lf:.1f}, LRB {rf:.1f}')


def main():
    run = sys.argv[1]
    lossless = '--lossless' in sys.argv[2:]
    name = os.path.basename(os.path.normpath(run))
    res = []
    traces = {}
    for tracer, conv in (('lttng', lambda n: EVENTS.get(n, n)),
                         ('lrb', lambda n: n)):
        path = os.path.join(run, tracer)
        try:
            traces[tracer] = Trace(*read(path, conv),
                file=sum(os.path.getsize(f) for f in stream_files(path)),
                content=content_bytes(path, SIZES_AT[tracer]),
                metadata=sum(os.path.getsize(os.path.join(d, 'metadata'))
                             for d, _, fs in os.walk(path) if 'metadata' in fs))
            res.append(('ok', f'{name}: babeltrace2 decodes the {tracer} trace'))
        except Exception as e:  # bt2 raises its own errors; any is a failure
            res.append(('FAIL', f'{name}: babeltrace2 cannot read {path}: {e}'))
    if len(traces) == 2:
        lt, lr = traces['lttng'], traces['lrb']
        print(f'{name}: events per type (LTTng traced from before lrb-record '
              'started, LRB until after lttng stop)')
        print(f'  {"event":32} {"LTTng":>9} {"LRB":>9}')
        for ev in EVENTS.values():
            print(f'  {ev:32} {lt.counts[ev]:9} {lr.counts[ev]:9}')
        tl, tr = sum(lt.counts.values()), sum(lr.counts.values())
        print(f'  {"total":32} {tl:9} {tr:9}')
        print(f'  {"discarded, as the traces say":32} {lt.discarded:9} {lr.discarded:9}')
        print(f'  {"stream file bytes per event":32} {lt.file / max(tl, 1):9.1f} '
              f'{lr.file / max(tr, 1):9.1f}')
        if lt.content is None or lr.content is None:
            res.append(('FAIL', f'{name}: packets do not add up to the stream files'))
        else:
            print(f'  {"packet content bytes per event":32} {lt.content / max(tl, 1):9.1f} '
                  f'{lr.content / max(tr, 1):9.1f}')
        print(f'  {"metadata bytes":32} {lt.metadata:9} {lr.metadata:9}')
        nl, nr = sum(lt.execs.values()), sum(lr.execs.values())
        print(f'  {"workload exec events":32} {nl:9} {nr:9}')
        missing = [ev for ev in EVENTS.values() if not lr.counts[ev] or not lt.counts[ev]]
        res.append(('FAIL' if missing else 'ok',
                    f'{name}: every event type in both traces'
                    + (f' (missing: {", ".join(missing)})' if missing else '')))
        if lossless:
            res.append(('ok' if lt.discarded == 0 and lr.discarded == 0 else 'FAIL',
                        f'{name}: nothing discarded by either tracer'))
            res.append(('ok' if lt.execs == lr.execs and nl > 0 else 'FAIL',
                        f'{name}: both saw the same {nl} exec events of the workload'))
        else:
            res.append(('ok' if lt.discarded > 0 and lr.discarded > 0 else 'FAIL',
                        f'{name}: both tracers report the events they lost'))
    walks = {}
    for tracer, walk in (('lttng', lttng_record_bytes), ('lrb', lrb_record_bytes)):
        if tracer not in traces:
            continue
        w = walk(os.path.join(run, tracer))
        total = w and sum(sum(v[1:]) for v in w[0].values()) + w[1]
        res.append(('ok' if w and total == traces[tracer].content else 'FAIL',
                    f'{name}: {tracer} records and packet headers add up to the '
                    f'packets\' content ({total} bytes)'))
        if w and total == traces[tracer].content:
            walks[tracer] = w
    if len(walks) == 2:
        print_record_bytes(name, walks, traces)
    if 'lrb' in traces:
        st = lrb_stats(os.path.join(run, 'lrb'))
        lost = sum(v for k, v in st.items() if k.startswith('lost_'))
        ev, disc = sum(traces['lrb'].counts.values()), traces['lrb'].discarded
        res.append(('ok' if st['delivered'] == ev and lost == disc and
                    st['written'] == ev + lost else 'FAIL',
                    f'{name}: LRB trace and kernel counters agree: {ev} events '
                    f'= delivered {st["delivered"]}, {disc} discarded = lost {lost}, '
                    f'written {st["written"]}'))
    for r, text in res:
        print(f'{r}: lttng: {text}')
    return 1 if any(r == 'FAIL' for r, _ in res) else 0


if __name__ == '__main__':
    sys.exit(main())
