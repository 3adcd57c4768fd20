#!/usr/bin/python3
"""lttngcmp.py RUN-DIR [--lossless]: compare the LTTng and LRB traces of one
run of guest/lttng-init.sh (RUN-DIR/lttng, RUN-DIR/lrb), read with
babeltrace2's Python bindings: events per type, events the tracers say they
discarded, bytes per event (stream files, and the packets' contents), and
the exec events of the workload, which both must have seen alike (LTTng
also saw lrb-record start and lttng stop: those are left out); and, per
event type, where LRB's bytes go (payload, record header, length word), from
a walk of its records that must add up to the packets' content.

Prints a table, then result lines (harness/result.sh).  With --lossless,
neither trace may have discarded an event.
"""
import collections
import os
import re
import struct
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
TRACERS = {'lrb-record', 'lttng'}
# Where the packet context's content_size and packet_size (u64, bits) are
# in a packet: after LTTng's 32-byte header and timestamp_begin and _end;
# in struct lrb_packet_header (include/uapi/linux/lrb.h).
SIZES_AT = {'lttng': 48, 'lrb': 32}
CTF_MAGIC = 0xC1FC1FC1
LRB_PACKET_HEADER = 72		# sizeof(struct lrb_packet_header)

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


def lrb_record_bytes(path):
    """Where LRB's packet bytes go, walking the records of every packet
    with the record headers of include/uapi/linux/lrb.h (a 4-byte compact
    header, 5-bit id and 27-bit time, or a 13-byte extended one; then a
    16-bit length unless the metadata gives the event a fixed length;
    nothing aligned, the last record ending at content_size):
    ({name: [records, payload, header, length words]}, packet header
    bytes), or None if a packet's records do not end exactly at its
    content_size. Little-endian traces only, as make lttng's are."""
    text = open(os.path.join(path, 'metadata')).read()
    names, fixed = {}, {}
    for block in text.split('event {')[1:]:
        m = re.search(r'name = "([^"]+)";\s*id = (\d+);', block)
        if not m:
            continue
        names[int(m.group(2))] = m.group(1)
        f = re.search(r'/\* lrb: fixed length (\d+) \*/', block)
        if f:
            fixed[int(m.group(2))] = int(f.group(1))
    per = collections.defaultdict(lambda: [0, 0, 0, 0])
    headers = 0
    for f in stream_files(path):
        data = open(f, 'rb').read()
        pos = 0
        while pos < len(data):
            content, packet = struct.unpack_from('<QQ', data, pos + SIZES_AT['lrb'])
            end, off = pos + content // 8, pos + LRB_PACKET_HEADER
            headers += LRB_PACKET_HEADER
            while off < end:
                word, = struct.unpack_from('<I', data, off)
                rid, hlen = word & 31, 4
                if rid == 31:
                    rid, = struct.unpack_from('<I', data, off + 1)
                    hlen = 13
                if rid < 31 and rid in fixed:
                    length, lsize = fixed[rid], 0
                else:
                    length, = struct.unpack_from('<H', data, off + hlen)
                    lsize = 2
                nxt = off + hlen + lsize + length
                if nxt > end:
                    return None
                rec = per[names.get(rid, str(rid))]
                rec[0] += 1
                rec[1] += length
                rec[2] += hlen
                rec[3] += lsize
                off = nxt
            pos += packet // 8
    return per, headers


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
              'started until after it ended)')
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
    if 'lrb' in traces:
        walk = lrb_record_bytes(os.path.join(run, 'lrb'))
        if walk is None:
            res.append(('FAIL', f'{name}: LRB records do not end at their packets\' content_size'))
        else:
            per, pheaders = walk
            n = sum(v[0] for v in per.values())
            tot = [sum(v[i] for v in per.values()) for i in (1, 2, 3)]
            print(f'{name}: LRB bytes per record, by event type: payload + record header '
                  '+ length word')
            for ev, v in sorted(per.items(), key=lambda kv: -kv[1][0]):
                print(f'  {ev:32} {v[0]:7} records {v[1] / v[0]:6.1f} + {v[2] / v[0]:4.1f} '
                      f'+ {v[3] / v[0]:3.1f} = {sum(v[1:]) / v[0]:5.1f}')
            print(f'  {"all":32} {n:7} records {tot[0] / max(n, 1):6.1f} + '
                  f'{tot[1] / max(n, 1):4.1f} + {tot[2] / max(n, 1):3.1f} = '
                  f'{sum(tot) / max(n, 1):5.1f}; packet headers {pheaders / max(n, 1):.1f}')
            # The two runs keep different mixes of events under load: LRB's
            # sizes by type, weighted by LTTng's counts, compare formats.
            lt = traces.get('lttng')
            if lt is not None:
                both = [e for e in lt.counts if e in per and per[e][0]]
                nl = sum(lt.counts[e] for e in both)
                mix = sum(lt.counts[e] * sum(per[e][1:]) / per[e][0] for e in both)
                print(f'  at LTTng\'s mix of these events: LRB {(mix + pheaders * nl / max(n, 1)) / max(nl, 1):.1f} '
                      f'content bytes per event, LTTng {lt.content / max(sum(lt.counts.values()), 1):.1f}')
            res.append(('ok' if sum(tot) + pheaders == traces['lrb'].content else 'FAIL',
                        f'{name}: LRB records and packet headers add up to the packets\' '
                        f'content ({sum(tot) + pheaders} bytes)'))
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
