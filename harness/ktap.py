#!/usr/bin/env python3
"""ktap.py LOG LABEL: count the KUnit cases of one boot log.

Prints one line per failing case and a line 'LABEL: P passed, F failed,
S skipped'; writes 'P F S' to stdout's last line for the caller.  A boot
that did not reach the tests, a suite whose plan does not match the
results, or a kernel splat (WARNING, BUG, Oops, KASAN, UBSAN, lockdep)
counts as a failure.
"""
import re
import sys

PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+) (\S+)(.*)$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)$')
SPLAT = re.compile(r'(WARNING:|BUG:|Oops|general protection|KASAN:|UBSAN:|'
                   r'possible recursive locking|circular locking|'
                   r'Kernel panic|RCU stall|INFO: task .* blocked)')


def main():
    path, label = sys.argv[1], sys.argv[2]
    lines = [PREFIX.sub('', l.rstrip('\r\n'))
             for l in open(path, errors='replace')]
    passed = failed = skipped = 0
    plans = {}
    counted = {}
    problems = []
    for l in lines:
        m = PLAN.match(l)
        if m:
            plans[len(m.group(1))] = int(m.group(2))
            counted[len(m.group(1))] = 0
            continue
        m = RESULT.match(l)
        if not m:
            if SPLAT.search(l):
                problems.append('kernel splat: ' + l.strip())
            continue
        depth = len(m.group(1))
        counted[depth] = counted.get(depth, 0) + 1
        if depth == 0:
            continue  # a suite's own line; its cases are counted below
        if '# SKIP' in m.group(5):
            skipped += 1
        elif m.group(2) == 'ok':
            passed += 1
        else:
            failed += 1
            problems.append('case failed: %s' % m.group(4))
    if not plans:
        problems.append('no KTAP output: the boot did not reach the tests')
    elif passed + failed + skipped == 0:
        problems.append('no test case ran (is CONFIG_LRB_KUNIT_TEST set?)')
    for depth, n in plans.items():
        if counted.get(depth, 0) != n:
            problems.append('plan 1..%d at depth %d but %d results '
                            '(a test hung or the kernel died)'
                            % (n, depth, counted.get(depth, 0)))
    if not any('LRB-INIT: reached' in l for l in lines):
        problems.append('the guest did not reach /init after the tests')
    # Problems that are not failed cases count as one failure each.
    failed += sum(1 for p in problems if not p.startswith('case failed'))
    for p in problems:
        print('%s: FAIL: %s' % (label, p))
    print('%s: %d passed, %d failed, %d skipped' % (label, passed, failed,
                                                    skipped))
    print('%d %d %d' % (passed, failed, skipped))


if __name__ == '__main__':
    main()
