#!/bin/bash
# fncost.sh: what the function tracer costs per traced function, LRB's
# against ftrace's, on the x86_64-local kernel (build.sh x86_64 local).
# UML has no function tracer and QEMU's TCG no timing worth quoting, so
# the cost is counted in instructions: the guest (guest/fncost-init.sh)
# traces vfs_open with an LRB channel and an ftrace instance at once,
# and gdb single-steps each tracer's callback from its first instruction
# to its return (fncost.py), FNCOST_N times each. Also the text each
# tracer adds (size of its objects).
# Output: build/fncost/summary, and the lines "fncost: ...".
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$top/build/out/x86_64-local
work=$top/build/fncost
n=${FNCOST_N:-30}
port=${FNCOST_PORT:-$((20000 + $$ % 10000))}
[ -f "$out/vmlinux" ] || { echo "fncost: build x86_64-local first (harness/build.sh x86_64 local)"; exit 1; }
command -v gdb >/dev/null || { echo "fncost: gdb is not installed"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/fncost-init.sh"
LRB_INITRD=$work/initramfs.cpio.gz LRB_SMP=2 LRB_TCG_THREAD=single \
	LRB_CMDLINE="kunit.filter_glob=none.none nokaslr" LRB_BOOT_TIMEOUT=900 \
	LRB_QEMU_ARGS="-gdb tcp::$port" "$here/boot.sh" x86_64 local "$work/console.log" &
qemu=$!
for _ in $(seq 300); do
	grep -q 'LRB-COST: ready' "$work/console.log" 2>/dev/null && break
	sleep 1
done
grep -q 'LRB-COST: ready' "$work/console.log" || { echo "fncost: the guest did not get ready"; kill $qemu; exit 1; }
sleep 3
FNCOST_PORT=$port FNCOST_N=$n FNCOST_FUNCS="lrb_fn_call function_trace_call" \
	gdb -q -batch -ex "file $out/vmlinux" -x "$here/fncost.py" >"$work/gdb.log" 2>&1 || true
wait $qemu 2>/dev/null || true
grep '^fncost: ' "$work/gdb.log" | grep -v ' all ' >"$work/summary" || true
for o in kernel/trace/lrb_function.o kernel/trace/trace_functions.o kernel/trace/trace_functions_graph.o; do
	echo "fncost: text $(size "$out/$o" | awk 'NR == 2 { print $1 }') $o"
done >>"$work/summary"
cat "$work/summary"
[ "$(grep -c '^fncost: [a-z_]* [0-9]' "$work/summary")" = 2 ]
