#!/bin/bash
# multitest.sh: traces of two machines on one timeline. Boots two x86_64
# guests (LRB_SYNC_LOCAL, one CPU each) side by side, each recording an LRB
# trace while they pass a token through the host (guest/multi-init.sh);
# then checks that "babeltrace2 trace-a trace-b" merges the two traces on
# real time, without --clock-force-correlate, in the causal order of the
# token, and that it is the clock's "absolute" that allows it. Prints a
# result line per check (harness/result.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
work=$top/build/multi
rm -rf "$work"
mkdir -p "$work/bin" "$work/share"

if ! build_lrb_record "$work/bin" local >"$work/build.log" 2>&1; then
	fail "multi-machine: build lrb-record"
	exit 1
fi
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/multi-init.sh" "$work/bin/lrb-record"
for g in a b; do
	LRB_INITRD=$work/initramfs.cpio.gz LRB_SHARE=$work/share LRB_SMP=1 LRB_TCG_THREAD=single \
		LRB_BOOT_TIMEOUT=300 LRB_CMDLINE="kunit.filter_glob=none.none lrb_guest=$g" \
		"$here/boot.sh" x86_64 local "$logdir/multi-$g.log" &
done
wait
for g in a b; do
	expect "multi-machine: guest $g recorded its trace" \
		"grep -q 'LRB-MULTI: record exit 0' '$logdir/multi-$g.log' && [ -f '$work/share/trace-$g/metadata' ]"
	splats "$logdir/multi-$g.log" >"$work/splats-$g"
	expect "multi-machine: guest $g's console has no kernel splat" \
		"! grep -qE '^(lrb|other): ' '$work/splats-$g'" || excerpt 3 "$work/splats-$g"
done

# Merged on real time: babeltrace2 sorts the events of both traces.
m=$work/merged
babeltrace2 --clock-seconds "$work/share/trace-a" "$work/share/trace-b" >"$m.out" 2>"$m.err"
rc=$?
sed -n 's/^\[\([0-9.]*\)\].* lrb-guest-\([ab]\) annotation: .*text = "tick \([0-9]*\) from \([ab]\)".*/\1 \2 \3 \4/p' \
	"$m.out" >"$m.ticks"
order=$(awk '{ printf "%s%s", sep, $3; sep = " " }' "$m.ticks")
expect "multi-machine: babeltrace2 merges the two traces without forcing (exit 0, no warning)" \
	"[ $rc -eq 0 ] && [ ! -s '$m.err' ]" || excerpt 5 "$m.err"
expect "multi-machine: the ticks of the two machines in causal order on one timeline ($order)" \
	"[ '$order' = '0 1 2 3 4 5 6 7' ] && awk '\$2 != \$4 || \$2 != (\$3 % 2 ? \"b\" : \"a\") { bad = 1 } END { exit bad }' '$m.ticks'"
# A tick follows the other machine's by the 1.5 s sleep plus the hand-off;
# the difference between the a-to-b and b-to-a gaps is twice the offset
# between the two clocks.
awk 'NR > 1 { g = $1 - t; if ($2 == "b") ab += g; else ba += g; n++ } { t = $1 }
     END { if (n) printf "    merged timeline: a->b gap %.3f s, b->a gap %.3f s: clock offset b - a about %.0f ms\n",
	   ab / (n / 2), ba / (n / 2), (ab - ba) / n * 1000 }' "$m.ticks"
# Without "absolute", the same traces cannot be merged without forcing.
for g in a b; do
	cp -r "$work/share/trace-$g" "$work/rel-$g"
	sed -i 's/^\tabsolute = true;/\tabsolute = false;/' "$work/rel-$g/metadata"
done
babeltrace2 "$work/rel-a" "$work/rel-b" >/dev/null 2>"$work/rel.err"
rc=$?
ua=$(sed -n 's/^\tuuid = "\(.*\)";/\1/p' "$work/share/trace-a/metadata")
ub=$(sed -n 's/^\tuuid = "\(.*\)";/\1/p' "$work/share/trace-b/metadata")
expect "multi-machine: with absolute = false babeltrace2 refuses to merge them (the clock's UUIDs differ: ${ua:-none}, ${ub:-none})" \
	"[ $rc -ne 0 ] && [ -n '$ua' ] && [ -n '$ub' ] && [ '$ua' != '$ub' ]"

exit "$result_status"
