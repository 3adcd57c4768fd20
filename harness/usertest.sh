#!/bin/bash
# usertest.sh VARIANT: the user-space side of LRB in the x86_64 guest.
# Builds lrb-record and the selftests (static), boots the VARIANT kernel on
# 2 CPUs with them and a 9p share, counts the selftests (TAP), and checks
# the two traces lrb-record wrote with babeltrace2: no warning or error,
# as many events as the kernel delivered, discarded-event notices adding
# up to the kernel's lost count.  Prints "ok: NAME" / "FAIL: NAME" lines
# and a last line "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
variant=${1:-local}
work=$top/build/user-$variant
share=$work/share
rm -rf "$work"
mkdir -p "$work/bin" "$share"

pass() { passed=$((passed + 1)); echo "ok: $variant: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $variant: $1"; }
expect() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }

# The sanitized uapi headers of the series, as user space sees them.
out=$top/build/out/x86_64-$variant
hdr=(-isystem "$out/usr/include")
if ! make -s -C "$tree" O="$out" ARCH=x86_64 headers >"$work/headers.log" 2>&1 ||
   ! gcc -static -O2 -Wall -Werror "${hdr[@]}" -o "$work/bin/lrb-record" \
	"$tree/tools/tracing/lrb/lrb-record.c" "$tree/tools/tracing/lrb/report.c" ||
   ! gcc -static -O2 -Wall -Werror "${hdr[@]}" -o "$work/bin/lrb_test" \
	"$tree/tools/testing/selftests/lrb/lrb_test.c"; then
	fail "build lrb-record and selftests"
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 1
fi
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/user-init.sh" \
	"$work/bin/lrb-record" "$work/bin/lrb_test" \
	$(ls "$out/samples/lrb/lrb_sample.ko" 2>/dev/null)
log=$logdir/user-$variant.log
LRB_INITRD=$work/initramfs.cpio.gz LRB_SHARE=$share LRB_SMP=2 LRB_TCG_THREAD=single \
	LRB_CMDLINE="kunit.filter_glob=none.none" \
	"$here/boot.sh" x86_64 "$variant" "$log"
tr -d '\r' <"$log" >"$log.txt"
expect "guest ran the user tests to the end" "grep -q 'LRB-USER: done' '$log.txt'"

# Selftests: one check per TAP line of the kselftest harness.
while IFS= read -r line; do
	case $line in
	"ok "*"# SKIP"*) skipped=$((skipped + 1)); echo "skip: $variant: selftest ${line#ok * }" ;;
	"ok "*) pass "selftest ${line#ok [0-9]* }" ;;
	"not ok "*) fail "selftest ${line#not ok [0-9]* }" ;;
	esac
done < <(sed -n '/LRB-USER: selftests$/,/LRB-USER: selftests exit/p' "$log.txt" | grep -E '^(not )?ok [0-9]+ ')
expect "selftests exit status 0" "grep -q 'LRB-USER: selftests exit 0' '$log.txt'"
expect "lrb-record workload exit status 0" "grep -q 'LRB-USER: record workload exit 0' '$log.txt'"
expect "lrb-record losses exit status 0" "grep -q 'LRB-USER: record losses exit 0' '$log.txt'"
expect "lrb-record report exit status 0" "grep -q 'LRB-USER: report exit 0' '$log.txt'"
expect "lrb-record fails on a bad output dir" "grep -q 'LRB-USER: bad dir exit 1' '$log.txt'"
expect "lrb-record fails without tracefs, says why" \
	"grep -q 'LRB-USER: no tracefs exit 1' '$log.txt' && grep -q 'tracefs is not mounted' '$log.txt'"

# stat NAME FILE: a counter lrb-record saved from the kernel's stats file.
stat() { awk -v k="$1" '$1 == k { print $2 }' "$2"; }

expect "lrb-record -e with an unknown event fails, says why" \
	"grep -q 'LRB-USER: bad event exit 1' '$log.txt' && grep -q 'no such event' '$log.txt'"
expect "lrb-record probes exit status 0" "grep -q 'LRB-USER: record probes exit 0' '$log.txt'"

for t in workload losses probes; do
	d=$share/trace-$t
	if [ ! -f "$d/metadata" ] || [ ! -f "$d/.lrb-stats" ]; then
		fail "trace $t copied to the host"
		continue
	fi
	pass "trace $t copied to the host"
	babeltrace2 "$d" >"$work/$t.out" 2>"$work/$t.err"
	expect "babeltrace2 reads trace $t (exit 0)" "[ $? -eq 0 ]"
	# Anything on stderr but discarded-event notices is a warning or error.
	grep -v '^WARNING: Tracer discarded [0-9]* events between' "$work/$t.err" >"$work/$t.warn"
	expect "babeltrace2: no warning or error on trace $t" "[ ! -s '$work/$t.warn' ]" ||
		head -n 5 "$work/$t.warn"
	events=$(wc -l <"$work/$t.out")
	delivered=$(stat delivered "$d/.lrb-stats")
	lost=$(($(stat lost_full "$d/.lrb-stats") + $(stat lost_too_big "$d/.lrb-stats") +
		$(stat lost_nested "$d/.lrb-stats") + $(stat lost_nmi "$d/.lrb-stats")))
	notices=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events between.*/\1/p' "$work/$t.err" |
		awk '{ s += $1 } END { print s + 0 }')
	echo "    trace $t: babeltrace2 events $events, kernel delivered $delivered; discarded notices $notices, kernel lost $lost"
	expect "trace $t: babeltrace2 event count = kernel delivered ($delivered)" \
		"[ '$events' = '$delivered' ] && [ '$delivered' -gt 0 ]"
	expect "trace $t: babeltrace2 discarded = kernel lost ($lost)" "[ '$notices' = '$lost' ]"
done
# Trace event and marker fields as babeltrace2 decodes them.
p=$work/probes.out
has() { grep -E " $1: " "$p" | grep -E "$2" >/dev/null; }
count() { grep -E " $1: " "$p" | grep -cE "$2"; }
for ev in sched:sched_switch sched:sched_wakeup sched:sched_process_fork sched:sched_process_exec \
	sched:sched_process_exit raw_syscalls:sys_enter raw_syscalls:sys_exit irq:softirq_entry \
	irq:softirq_exit lrb_sample:lrb_sample_step; do
	expect "trace probes has $ev events" "has $ev ."
done
expect "sched_switch fields: common fields, prev/next comm, pid, prio, state" \
	"has sched:sched_switch 'common_pid = [0-9]+, prev_comm = \"[^\"]+\", prev_pid = [0-9]+, prev_prio = [0-9]+, prev_state = [0-9]+, next_comm = \"[^\"]+\", next_pid = [0-9]+, next_prio = [0-9]+ }'"
expect "sched_process_exec of the command (sh): pid, old_pid, filename" \
	"has sched:sched_process_exec 'pid = [1-9][0-9]*, old_pid = [1-9][0-9]*, filename = \"/bin/sh\"'"
expect "raw_syscalls:sys_enter fields: id and 6 args" "has raw_syscalls:sys_enter 'id = [0-9]+, args = \[ \[0\] = '"
expect "module markers: 20 lrb_sample_burst events, seq 0..19" \
	"[ \$(count lrb_sample_burst 'tag = \"burst\"') -eq 20 ] && has lrb_sample_burst 'seq = 19,'"
expect "module trace event: 20 lrb_sample:lrb_sample_step, tag and bytes" \
	"[ \$(count lrb_sample:lrb_sample_step 'bytes = \\[ \\[0\\] = [0-9]+, \\[1\\] = 0, \\[2\\] = 171 \\], tag = \"step\"') -eq 20 ]"
expect "module marker at unload: lrb_sample_bye total = 20" "has lrb_sample_bye 'total = 20 }'"

# ftrace as the oracle (harness/oracle.py): for the workload's processes,
# the same count of every event type and the same field values; and with
# every event enabled, every available event described and decoded.
# oracle SUBCOMMAND DIR PATTERN NAME: run oracle.py, quote its summary.
oracle() {
	local out=$work/$1.out rc
	if [ ! -d "$share/$2/lrb" ]; then
		fail "$2 traces copied to the host"
		return
	fi
	/usr/bin/python3 "$here/oracle.py" "$1" "$share/$2" >"$out" 2>&1
	rc=$?
	grep -E "^($3): " "$out" | sed 's/^/    /'
	expect "$4" "[ $rc -eq 0 ]" || head -n 40 "$out"
}
oracle compare oracle 'oracle' "oracle: LRB and ftrace record the same events with the same fields"
oracle coverage all 'coverage|opaque' "coverage: every available event described, babeltrace2 decodes 'all' cleanly"
lost=$(stat lost_full "$share/trace-losses/.lrb-stats" 2>/dev/null)
expect "the loss trace did lose records (lost_full ${lost:-?} > 0)" "[ '${lost:-0}' -gt 0 ]"
expect "workload trace has annotations from both CPUs" \
	"grep -q 'cpu_id = 0' '$work/workload.out' && grep -q 'cpu_id = 1' '$work/workload.out'"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
