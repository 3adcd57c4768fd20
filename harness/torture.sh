#!/bin/bash
# torture.sh VARIANT MODE DURATION [EXPECT]: boot the x86_64 kernel (the
# arm64 one with LRB_ARCH=arm64) of
# VARIANT (local, irqoff, planted, ...) on 4 CPUs with lrb_torture running for
# DURATION seconds in MODE (0 discard, 1 overwrite); print the result
# block; exit 0 if the outcome is EXPECT (PASS, the default, or FAIL) and
# the console shows no splat.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
variant=$1 mode=$2 duration=$3 expect=${4:-PASS}
arch=${LRB_ARCH:-x86_64}
log=$logdir/torture-$variant-$mode.log
[ "$arch" = x86_64 ] || log=$logdir/torture-$arch-$variant-$mode.log
LRB_SMP=${LRB_SMP:-4} LRB_BOOT_TIMEOUT=$((duration * 3 + 300)) \
LRB_CMDLINE="kunit.filter_glob=none lrb_torture.duration=$duration lrb_torture.mode=$mode ${LRB_TORTURE_ARGS:-}" \
	"$here/boot.sh" "$arch" "$variant" "$log"
rc=$?
sed -i 's/\r$//' "$log"
sed -n 's/^\[ *[0-9.]*\] //p' "$log" | grep -E '^lrb_torture: (mode|cpu|hotplug|FAIL|PASS|running)' |
	grep -vE '^lrb_torture: cpu [0-9]+ (task|softirq|hardirq|nmi) +written 0 '
result=$(sed -n 's/.*lrb_torture: \(PASS\|FAIL\)$/\1/p' "$log" | tail -n 1)
# A splat counts when its report mentions LRB code; others are listed
# but do not fail the run.
reports=$(splats "$log")
splat=$(sed -n 's/^lrb: //p' <<<"$reports")
other=$(sed -n 's/^other: //p' <<<"$reports")
[ -n "$other" ] && printf 'splat not in LRB code: %s\n' "$other" | head -n 3
[ -n "$splat" ] && printf 'splat: %s\n' "$splat" | head -n 5
[ $rc -ne 0 ] && echo "boot exit $rc (timeout?)"
echo "torture $arch-$variant mode $mode ${duration}s: ${result:-no result} (expected $expect)"
if [ "$expect" = FAIL ]; then
	# Caught: the test failed, or the kernel itself complained.
	[ "$result" = FAIL ] || [ -n "$splat" ]
else
	[ "$result" = PASS ] && [ -z "$splat" ]
fi
