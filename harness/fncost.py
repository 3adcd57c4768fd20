# gdb -batch -x fncost.py: run by harness/fncost.sh with FNCOST_PORT,
# FNCOST_N and FNCOST_FUNCS in the environment. For each callback of
# FNCOST_FUNCS, N times: stop at its first instruction, single-step the
# vCPU until it returns to its caller (the same return address, the stack
# pointer back above it), and count the instructions. QEMU's gdbstub
# steps with interrupts and timers off: the count is the callback's own
# path, not a timing. Prints "fncost: FUNC min median max N".
import os
import gdb

port = os.environ.get('FNCOST_PORT', '1234')
n = int(os.environ.get('FNCOST_N', '30'))
funcs = os.environ.get('FNCOST_FUNCS', 'lrb_fn_call function_trace_call').split()

gdb.execute('set pagination off')
gdb.execute('set confirm off')
gdb.execute('target remote :%s' % port)


def reg(name):
    return int(gdb.parse_and_eval('$' + name)) & 0xffffffffffffffff


def count_one(limit=100000):
    sp = reg('sp')
    ret = int(gdb.parse_and_eval('*(unsigned long *)$sp')) & 0xffffffffffffffff
    k = 0
    while k < limit:
        gdb.execute('stepi', to_string=True)
        k += 1
        if reg('pc') == ret and reg('sp') == sp + 8:
            return k
    return -1


for f in funcs:
    bp = gdb.Breakpoint(f, type=gdb.BP_HARDWARE_BREAKPOINT, internal=True)
    counts = []
    for _ in range(n):
        bp.enabled = True
        gdb.execute('continue', to_string=True)
        bp.enabled = False
        counts.append(count_one())
    bp.delete()
    s = sorted(counts)
    print('fncost: %s %d %d %d %d' % (f, s[0], s[len(s) // 2], s[-1], len(s)))
    print('fncost: %s all %s' % (f, ' '.join(map(str, counts))))
gdb.execute('kill')
