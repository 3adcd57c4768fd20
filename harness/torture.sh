#!/bin/bash
# torture.sh VARIANT MODE DURATION [EXPECT]: boot the x86_64 kernel (the
# arm64 one with LRB_ARCH=arm64) of
# VARIANT (local, irqoff, planted, ...) on 4 CPUs with lrb_torture running for
# DURATION seconds in MODE (0 discard, 1 overwrite); print the result
# block; exit 0 if the outcome is EXPECT (PASS, the default, or FAIL) and
# the console shows no splat.
# On x86_64 lrb_torture is a module: guest/torture-init.sh loads it for
# the run, unloads it, then loads it to run until unloaded and unloads it
# after 3 s; both runs must pass.  On arm64 it is built in and runs from
# boot, and the tiny /init waits for its verdict.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
variant=$1 mode=$2 duration=$3 expect=${4:-PASS}
arch=${LRB_ARCH:-x86_64}
log=$logdir/torture-$arch-$variant-$mode.log
runs=1
if [ "$arch" = x86_64 ]; then
	log=$logdir/torture-$variant-$mode.log
	ko=${LRB_OUT:-$top/build/out}/x86_64-$variant/kernel/trace/lrb_torture.ko
	[ -f "$ko" ] || { echo "torture: $ko not built"; exit 1; }
	export LRB_INITRD=$top/build/initramfs-torture-$variant.cpio.gz
	# kernel/torture.c, which lrb_torture selects, is a module too then.
	tko=$(dirname "$(dirname "$ko")")/torture.ko
	[ -f "$tko" ] || tko=
	"$here/mkinitramfs.sh" "$LRB_INITRD" "$here/guest/torture-init.sh" "$ko" $tko
	runs=2
fi
LRB_SMP=${LRB_SMP:-4} LRB_BOOT_TIMEOUT=$((duration * 3 + 300)) \
LRB_CMDLINE="kunit.filter_glob=none lrb_torture.duration=$duration lrb_torture.mode=$mode ${LRB_TORTURE_ARGS:-}" \
	"$here/boot.sh" "$arch" "$variant" "$log"
rc=$?
sed -i 's/\r$//' "$log"
# With LRB's own warnings (a sub-buffer skipped as corrupt names its CPU).
sed -n 's/^\[ *[0-9.]*\] //p' "$log" | grep -E '^lrb_torture: (mode|cpu|hotplug|FAIL|PASS|running)|^lrb: ' |
	grep -vE '^lrb_torture: cpu [0-9]+ (task|softirq|hardirq|nmi) +written 0 '
# The verdict of every run: FAIL if one failed, PASS if all the runs
# the boot makes passed.
verdicts=$(sed -n 's/.*lrb_torture: \(PASS\|FAIL\)$/\1/p' "$log")
result=
if grep -qx FAIL <<<"$verdicts"; then
	result=FAIL
elif [ "$(grep -cx PASS <<<"$verdicts")" -eq "$runs" ]; then
	result=PASS
fi
grep -E '^LRB-INIT: .*(failed|still loaded|before its rmmod)' "$log" && result=ERROR
# Any splat fails the run, in LRB code or not (a stall, a hung task, a
# WARN of the kernel an LRB state left wrong), but those of lib.sh's
# short splat_allowed list, which are listed.
reports=$(splats "$log")
splat=$(sed -nE 's/^(lrb|other): //p' <<<"$reports")
allowed=$(sed -n 's/^allowed: //p' <<<"$reports")
[ -n "$allowed" ] && printf 'splat allowed: %s\n' "$allowed" | head -n 3
[ -n "$splat" ] && printf 'splat: %s\n' "$splat" | head -n 5
[ $rc -ne 0 ] && echo "boot exit $rc (timeout?)"
# Floors: a PASS means something only if each run of the boot wrote and
# delivered on every CPU, cycled a CPU through hotplug, and on x86_64
# took NMIs, some inside a reservation (a reserve that always fails and
# counts its loss reconciles; NMI writers that never registered are
# silent).
nmi=$([ "$arch" = x86_64 ] && echo 1 || echo 0)
floors=$(sed -n 's/^\[ *[0-9.]*\] //p' "$log" | awk -v nmi="$nmi" '
	function check() {
		if (!cpus || nodeliv || !hp || (nmi && (!nmis || !inside)))
			bad = bad sprintf(" run %d: %d CPU buffers, %d delivering nothing, %d hotplug cycles, %d NMIs, %d inside a reservation;",
					  runs, cpus, nodeliv, hp, nmis, inside)
	}
	/^lrb_torture: running/ {
		if (runs)
			check()
		runs++; cpus = nodeliv = nmis = inside = hp = 0
		next
	}
	/^lrb_torture: cpu [0-9]+ buffer:/ {
		cpus++
		for (i = 1; i < NF; i++) {
			if ($i == "delivered" && $(i + 1) + 0 == 0)
				nodeliv++
			if ($i == "NMIs")
				nmis += $(i + 1)
			if ($i == "reservation")
				inside += $(i + 1)
		}
	}
	/^lrb_torture: hotplug cycles/ { hp = $4 + 0 }
	END {
		if (runs)
			check()
		else
			bad = " no run"
		printf "%s", bad
	}')
[ -n "$floors" ] && echo "below the floors:$floors"
echo "torture $arch-$variant mode $mode ${duration}s: ${result:-no result} (expected $expect)"
if [ "$expect" = FAIL ]; then
	# Caught: the test failed, or the kernel itself complained.
	[ "$result" = FAIL ] || [ -n "$splat" ]
else
	[ "$result" = PASS ] && [ -z "$splat" ] && [ -z "$floors" ] && [ $rc -eq 0 ]
fi
