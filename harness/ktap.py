#!/usr/bin/env python3
"""ktap.py LOG LABEL: the KUnit cases of one boot log, as results.

Prints a result line (harness/result.sh) per case: 'ok: LABEL: kunit
SUITE.CASE', 'FAIL: ...' or 'skip: ...'.  A boot that did not reach the
tests, a suite whose plan does not match its results, or a kernel splat
(WARNING, BUG, Oops, KASAN, UBSAN, lockdep, RCU stalls, hung
tasks, lockups) is a FAIL line of its own.
Exits 1 after any FAIL line.
"""
import re
import sys

PREFIX = re.compile(r'^\[\s*\d+\.\d+\]\s?')
RESULT = re.compile(r'^(\s*)(not ok|ok) (\d+) (\S+)(.*)$')
PLAN = re.compile(r'^(\s*)1\.\.(\d+)$')
SUITE = re.compile(r'^(\s*)# Subtest: (\S+)$')
# The same reports as harness/lib.sh's splat_pattern, RCU stalls as the
# kernel prints them ("rcu: INFO: rcu_preempt detected stalls on CPUs").
SPLAT = re.compile(r'(WARNING:|BUG:|Oops|general protection|KASAN:|UBSAN:|'
                   r'KCSAN:|possible recursive locking|circular locking|'
                   r'inconsistent lock state|suspicious RCU usage|'
                   r'rcu: INFO: |detected stalls? on CPU|hard LOCKUP|'
                   r'workqueue lockup|Kernel panic|INFO: task .* blocked)')


def main():
    path, label = sys.argv[1], sys.argv[2]
    lines = [PREFIX.sub('', l.rstrip('\r\n'))
             for l in open(path, errors='replace')]
    results = []
    plans = {}
    counted = {}
    problems = []
    suites = {}  # indentation -> name of the (sub)test it opens
    for l in lines:
        m = PLAN.match(l)
        if m:
            plans[len(m.group(1))] = int(m.group(2))
            counted[len(m.group(1))] = 0
            continue
        m = SUITE.match(l)
        if m:
            depth = len(m.group(1))
            suites = {d: n for d, n in suites.items() if d < depth}
            suites[depth] = m.group(2)
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
        # A case is named by the (sub)tests that enclose it: suite.case,
        # or suite.case.param for a parameterized case's results.
        path = [n for d, n in sorted(suites.items()) if d <= depth]
        name = '%s: kunit %s' % (label, '.'.join(path + [m.group(4)]))
        if '# SKIP' in m.group(5):
            results.append('skip: ' + name)
        elif m.group(2) == 'ok':
            results.append('ok: ' + name)
        else:
            results.append('FAIL: ' + name)
    if not plans:
        problems.append('no KTAP output: the boot did not reach the tests')
    elif not results:
        problems.append('no test case ran (is CONFIG_LRB_KUNIT_TEST set?)')
    for depth, n in plans.items():
        if counted.get(depth, 0) != n:
            problems.append('plan 1..%d at depth %d but %d results '
                            '(a test hung or the kernel died)'
                            % (n, depth, counted.get(depth, 0)))
    # boot.sh found that this host runs no UML user space: /init, and
    # the panic of its fault, are the host's, not the kernel's.
    nouser = [l for l in lines if l.startswith('LRB-HOST: UML runs no user space')]
    if nouser:
        problems = [p for p in problems
                    if 'Attempted to kill init! exitcode=0x0000000b' not in p]
        results.append('skip: %s: /init after the tests (%s)' % (label, nouser[0][10:]))
    elif not any('LRB-INIT: reached' in l for l in lines):
        problems.append('the guest did not reach /init after the tests')
    results += ['FAIL: %s: %s' % (label, p) for p in problems]
    for r in results:
        print(r)
    return 1 if any(r.startswith('FAIL:') for r in results) else 0


if __name__ == '__main__':
    sys.exit(main())
