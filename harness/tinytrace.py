#!/usr/bin/env python3
"""tinytrace.py LOG DIR [le|be]: check the trace a tiny guest printed.

The libc-free /init (guest/init-kunit.c), booted with "lrb_trace", records
printk's console event into an LRB channel while it writes ten lines
"lrb-trace-check N" to /dev/kmsg, then prints the channel's metadata and
streams on the console as "LRB-HEX FILE HEX" lines.  This puts them back
into DIR (metadata, stream_N), has babeltrace2 decode DIR, and checks that
it does so without a word on stderr, that the metadata says the guest's
byte order (le or be, if given), and that the ten lines come out as console events, in order,
each once: the test of the __data_loc description on every kind of guest
(big-endian s390x above all, where a word described in the wrong order
decodes as garbage or not at all).  Exit 0 when every check passes.
"""
import os
import re
import shutil
import subprocess
import sys


def main():
    log, d = sys.argv[1], sys.argv[2]
    files, ended = {}, set()
    with open(log, 'rb') as f:
        for raw in f:
            line = raw.decode('ascii', 'replace').rstrip('\r\n')
            m = re.search(r'LRB-HEX (\S+) ([0-9a-f]*)$', line)
            if m:
                files.setdefault(m.group(1), bytearray()).extend(bytes.fromhex(m.group(2)))
            m = re.search(r'LRB-TRACE: (.*)$', line)
            if m and m.group(1).startswith('end of '):
                ended.add(m.group(1)[7:])
            elif m and m.group(1) != 'done':
                print('guest: ' + m.group(1))
    why = []
    if 'metadata' not in files:
        return 'no trace in ' + log
    why += ['%s cut short' % n for n in files if n not in ended]
    # Only this boot's files: a stream an earlier boot left (its CPU
    # wrote nothing this time) would be decoded as this boot's.
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    for n, data in files.items():
        with open(os.path.join(d, n), 'wb') as f:
            f.write(data)
    meta = files['metadata'].decode('utf-8', 'replace')
    order = re.search(r'byte_order = (\w+);', meta)
    want = sys.argv[3] if len(sys.argv) > 3 else None
    if want and (not order or order.group(1) != want):
        why.append('the metadata says byte_order %s, not %s'
                   % (order.group(1) if order else 'nothing', want))
    print('trace: metadata %d bytes, byte order %s, %d streams, %d stream bytes'
          % (len(files['metadata']), order.group(1) if order else '?',
             len(files) - 1, sum(len(v) for n, v in files.items() if n != 'metadata')))
    r = subprocess.run(['babeltrace2', d], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = r.stdout.decode('utf-8', 'replace').splitlines()
    err = [l for l in r.stderr.decode('utf-8', 'replace').splitlines() if l.strip()]
    for l in err[:10]:
        print('babeltrace2: ' + l)
    if r.returncode or err:
        why.append('babeltrace2 exited %d with %d lines on stderr' % (r.returncode, len(err)))
    checks = []
    for l in out:
        if 'printk:console' not in l:
            continue
        m = re.search(r'lrb-trace-check (\d+)', l)
        if m:
            checks.append(int(m.group(1)))
    consoles = sum('printk:console' in l for l in out)
    print('trace: %d events decoded, %d console events, checks %s'
          % (len(out), consoles, checks))
    if checks != list(range(10)):
        why.append('the ten lines "lrb-trace-check 0..9" decoded as %s' % checks)
    return '; '.join(why)


if __name__ == '__main__':
    why = main()
    print('tinytrace: ' + (why or 'ok'))
    sys.exit(1 if why else 0)
