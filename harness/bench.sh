#!/bin/bash
# bench.sh: run lrb_bench in UML (native execution, built in) for both sync
# variants, then in the same boot guest/mmap-drain.c (user-space readers of
# LRB's mapped stream files and of ftrace's mapped ring buffer, while
# lrb_bench's writer thread writes), and once in the x86_64 guest (QEMU
# TCG: functional only, not timings), as a module loaded and unloaded;
# then LTTng beside LRB in the x86_64 guest (lttng.sh; LRB_BENCH_LTTNG=0
# leaves it out).
# Prints the tables with the CPU model and the date.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
logdir=$top/build/log
mkdir -p "$logdir"
args="kunit.filter_glob=none lrb_bench.run=1 ${LRB_BENCH_ARGS:-}"
echo "lrb_bench on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) CPUs, $(date -u +%F)"
rc=0
# The UML root: /init runs mmap-drain after the tables.
drain=$top/build/mmap-drain
gcc -static -O2 -Wall -Werror -I"$top/include/uapi" -o "$drain" "$here/guest/mmap-drain.c" || exit 1
umlroot=$top/build/umlroot-bench
"$here/mkinitramfs.sh" --dir "$umlroot" "$here/guest/bench-uml-init.sh" "$drain"
for v in local irqoff; do
	"$here/build.sh" um "$v" >"$logdir/build-um-$v.log" 2>&1 || { tail -n 20 "$logdir/build-um-$v.log"; exit 1; }
	echo
	echo "=== UML, LRB_SYNC_${v^^} (native execution: these are timings)"
	LRB_UML_ROOT=$umlroot LRB_CMDLINE="$args ${LRB_MMAP_ARGS:-}" \
		"$here/boot.sh" um "$v" "$logdir/bench-um-$v.log" || rc=1
	sed -n 's/^\[ *[0-9.]*\] lrb_bench: //p; s/^mmap-drain: //p' "$logdir/bench-um-$v.log"
	grep -q 'lrb_bench: done' "$logdir/bench-um-$v.log" || { echo "bench did not finish"; rc=1; }
	grep -q '^mmap-drain: done' "$logdir/bench-um-$v.log" ||
		{ grep '^mmap-drain\|LRB-INIT' "$logdir/bench-um-$v.log"; echo "mmap-drain did not finish"; rc=1; }
done
if [ "${LRB_BENCH_X86:-1}" = 1 ]; then
	"$here/build.sh" x86_64 local >"$logdir/build-x86_64-local.log" 2>&1 || exit 1
	echo
	echo "=== x86_64 guest under QEMU TCG, LRB_SYNC_LOCAL (emulated: functional check only, NOT timings)"
	# lrb_bench is a module there: guest/bench-init.sh loads it (it runs
	# while loading) with the lrb_bench.* parameters, then unloads it.
	ko=$top/build/out/x86_64-local/kernel/trace/lrb_bench.ko
	[ -f "$ko" ] || { echo "bench: $ko not built"; exit 1; }
	initrd=$top/build/initramfs-bench.cpio.gz
	"$here/mkinitramfs.sh" "$initrd" "$here/guest/bench-init.sh" "$ko" "$drain"
	LRB_INITRD=$initrd \
	LRB_CMDLINE="$args lrb_bench.reps=3 lrb_bench.batches=10 lrb_bench.loops=10000 lrb_bench.mark_loops=1000" \
		"$here/boot.sh" x86_64 local "$logdir/bench-x86_64-local.log" || rc=1
	if grep -q 'lrb_bench: done' "$logdir/bench-x86_64-local.log" &&
	   grep -q 'LRB-INIT: mmap-drain: rc=0' "$logdir/bench-x86_64-local.log" &&
	   grep -q 'LRB-INIT: writer started' "$logdir/bench-x86_64-local.log" &&
	   grep -q 'LRB-INIT: rmmod lrb_bench: ok' "$logdir/bench-x86_64-local.log"; then
		echo "loaded, ran to completion, mmap-drain ran against its writer, unloaded while the writer wrote (figures in build/log/bench-x86_64-local.log)"
	else
		grep '^mmap-drain\|LRB-INIT' "$logdir/bench-x86_64-local.log"
		echo "bench did not finish, or mmap-drain failed, or it did not unload"; rc=1
	fi
fi
if [ "${LRB_BENCH_LTTNG:-1}" = 1 ]; then
	echo
	echo "=== LTTng 2.13 and LRB tracing one workload at once, x86_64 guest under QEMU TCG (functional, NOT timings)"
	"$here/lttng.sh" || rc=1
fi
exit $rc
