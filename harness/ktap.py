#!/usr/bin/env python3
"""ktap.py LOG LABEL [SOURCE CONFIG]: the KUnit cases of one boot log, as
results.

Prints a result line (harness/result.sh) per case: 'ok: LABEL: kunit
SUITE.CASE', 'FAIL: ...' or 'skip: ...'.  A boot that did not reach the
tests, a suite whose plan does not match its results, or a kernel splat
(WARNING, BUG, Oops, KASAN, UBSAN, lockdep, RCU stalls, hung
tasks, lockups) is a FAIL line of its own.

With SOURCE (the test's C file) and CONFIG (the kernel's .config), the
cases of SOURCE's case list that CONFIG compiles must be the cases that
ran, no more and no fewer, and a case may skip only for a reason of
SKIPS whose option CONFIG leaves off; any other skip is a FAIL.
Exits 1 after any FAIL line.
"""
import re
import sys

# Case -> (option, reason): the skips a kernel built without the option
# takes, and only then.
SKIPS = {
    'lrb_test_hotplug': ('CONFIG_HOTPLUG_CPU',
                         'no CPU hotplug (UML): nothing can go offline'),
}
CASE = re.compile(r'^\s*KUNIT_CASE(?:_PARAM)?\((\w+)')
IFDEF = re.compile(r'^#\s*if(n?)def\s+(CONFIG_\w+)')


def config_options(path):
    """The options CONFIG sets to y or m."""
    opts = set()
    for l in open(path):
        m = re.match(r'^(CONFIG_\w+)=[ym]$', l.strip())
        if m:
            opts.add(m.group(1))
    return opts


def expected_cases(source, opts):
    """The KUNIT_CASE names of SOURCE that a kernel with OPTS compiles
    (#ifdef/#ifndef CONFIG_X blocks, nested; #else flips the last)."""
    live, names = [], []
    for l in open(source):
        m = IFDEF.match(l)
        if m:
            live.append((m.group(2) in opts) != (m.group(1) == 'n'))
        elif re.match(r'^#\s*if', l):
            live.append(True)
        elif re.match(r'^#\s*else', l) and live:
            live[-1] = not live[-1]
        elif re.match(r'^#\s*endif', l) and live:
            live.pop()
        else:
            m = CASE.match(l)
            if m and all(live):
                names.append(m.group(1))
    return names


def check_expected(results, source, config):
    """Problems of RESULTS against the cases SOURCE and CONFIG expect."""
    opts = config_options(config)
    want = expected_cases(source, opts)
    ran = [r.split('.')[-1] for r in results if ': kunit ' in r]
    problems = []
    if not want:
        problems.append('no KUNIT_CASE in %s' % source)
    missing = [c for c in want if c not in ran]
    extra = [c for c in ran if c not in want]
    if missing or extra or len(ran) != len(want):
        problems.append('%d cases ran, %d expected from %s (missing: %s; '
                        'not expected: %s)' % (len(ran), len(want), source,
                                               ' '.join(missing) or '-',
                                               ' '.join(extra) or '-'))
    out = []
    for r in results:
        case = r.split('.')[-1]
        if r.startswith('skip: ') and ': kunit ' in r:
            opt, why = SKIPS.get(case, (None, None))
            if opt is None or opt in opts:
                out.append('FAIL: ' + r[6:] + ' skipped, and %s' %
                           ('%s is set' % opt if opt else
                            'no option of this kernel explains it'))
                continue
            r += ' (%s is not set: %s)' % (opt, why)
        out.append(r)
    return out, problems


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
    if len(sys.argv) > 4:
        results, more = check_expected(results, sys.argv[3], sys.argv[4])
        problems += more
    results += ['FAIL: %s: %s' % (label, p) for p in problems]
    for r in results:
        print(r)
    return 1 if any(r.startswith('FAIL:') for r in results) else 0


if __name__ == '__main__':
    sys.exit(main())
