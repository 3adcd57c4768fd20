#!/bin/bash
# usertest.sh VARIANT: the user-space side of LRB in the x86_64 guest.
# Builds lrb-record and the selftests (static), boots the VARIANT kernel on
# 2 CPUs with them and a 9p share, counts the selftests (TAP), and checks
# the two traces lrb-record wrote with babeltrace2: no warning or error,
# as many events as the kernel delivered, discarded-event notices adding
# up to the kernel's lost count.  Prints a result line per check
# (harness/result.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
variant=${1:-local}
work=$top/build/user-$variant
share=$work/share
rm -rf "$work"
mkdir -p "$work/bin" "$share"

result_prefix="$variant: "

# Built against the sanitized uapi headers of the series, installed in
# the O= dir of the kernel, as user space sees them.
out=$top/build/out/x86_64-$variant
# The selftests through kselftest's own Makefile, as their users build
# them (into $out/kselftest/lrb), static for the busybox guest.
if ! build_lrb_record "$work/bin" "$variant" >"$work/tool.log" 2>&1 ||
   ! make -s -C "$tree/tools/testing/selftests" TARGETS=lrb O="$out" \
	USERCFLAGS="-O2 -Werror" USERLDFLAGS=-static >>"$work/tool.log" 2>&1 ||
   ! cp "$out/kselftest/lrb/lrb_test" "$work/bin/lrb_test"; then
	fail "build lrb-record and selftests"
	exit 1
fi
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/user-init.sh" \
	"$work/bin/lrb-record" "$work/bin/lrb_test" \
	$(ls "$out/samples/lrb/lrb_sample.ko" "$out/kernel/trace/lrb_bench.ko" 2>/dev/null)
log=$logdir/user-$variant.log
boot_guest() {
	rm -rf "$share" "$log" "$log.txt" && mkdir -p "$share"
	LRB_INITRD=$work/initramfs.cpio.gz LRB_SHARE=$share LRB_SMP=2 LRB_TCG_THREAD=single \
		LRB_CMDLINE="kunit.filter_glob=none.none" \
		"$here/boot.sh" x86_64 "$variant" "$log"
	tr -d '\r' <"$log" >"$log.txt"
	# The guest's traces come as one archive (guest/user-init.sh).
	if [ -s "$share/traces.tar.gz" ]; then
		tar -xzf "$share/traces.tar.gz" -C "$share" && rm -f "$share/traces.tar.gz"
	fi
}
boot_guest
# QEMU's TCG now and then runs a stale translation of kernel text that
# text_poke_bp() has patched, and the guest dies on an int3 that is no
# longer there (harness/boot.sh; thread=single makes it rare, not
# impossible). That death, and only that one, gets a second boot; the
# first one's oops is shown, and the retry is a check of its own: a
# second int3 death fails it, so a bug of LRB's marker patching that
# kills one boot in two cannot hide behind the retry.
int3_oops='^(\[ *[0-9.]+\] )?int3: 0000 \[#1\]'
int3_deaths=0
if ! grep -q 'LRB-USER: done' "$log.txt" && grep -qE "$int3_oops" "$log.txt"; then
	int3_deaths=1
	echo "    the guest died on an int3 (QEMU TCG and text patching): booting it again; the first boot's oops:"
	grep -E -A3 "$int3_oops" "$log.txt" | indent
	cp "$log.txt" "$log.first.txt"
	boot_guest
	! grep -q 'LRB-USER: done' "$log.txt" && grep -qE "$int3_oops" "$log.txt" &&
		int3_deaths=2
fi
expect "guest did not die on an int3 twice (boots that did: $int3_deaths, one retry allowed)" \
	"[ $int3_deaths -lt 2 ]"
if ! expect "guest ran the user tests to the end" "grep -q 'LRB-USER: done' '$log.txt'"; then
	# Where it stopped: the console from the last step it began (with,
	# for a stuck guest, the backtraces boot.sh asked it for).
	last=$(grep -n 'LRB-USER: ' "$log.txt" | tail -n 1 | cut -d: -f1)
	tail -n +"${last:-1}" "$log.txt" | head -n 80 | indent
fi

# Selftests: one check per TAP line of the kselftest harness. The guest's
# kernel has every option the selftests use (harness/config), so a skip
# is an interface gone missing: a FAIL. And every test of the source ran.
ran=0
while IFS= read -r line; do
	ran=$((ran + 1))
	case $line in
	"ok "*"# SKIP"*) fail "selftest ${line#ok * } (skipped on a kernel with every option it needs)" ;;
	"ok "*) pass "selftest ${line#ok [0-9]* }" ;;
	"not ok "*) fail "selftest ${line#not ok [0-9]* }" ;;
	esac
done < <(sed -n '/LRB-USER: selftests$/,/LRB-USER: selftests exit/p' "$log.txt" | grep -E '^(not )?ok [0-9]+ ')
want=$(grep -cE '^TEST(_F)?(_TIMEOUT)?\(' "$tree/tools/testing/selftests/lrb/lrb_test.c")
expect "selftests: all $want tests of lrb_test.c ran ($ran)" "[ '$ran' -eq '$want' ] && [ '$want' -gt 0 ]"
expect "selftests exit status 0" "grep -q 'LRB-USER: selftests exit 0\>' '$log.txt'"
expect "lrb-record workload exit status 0" "grep -q 'LRB-USER: record workload exit 0\>' '$log.txt'"
expect "lrb-record losses exit status 0" "grep -q 'LRB-USER: record losses exit 0\>' '$log.txt'"
expect "lrb-record report exit status 0" "grep -q 'LRB-USER: report exit 0\>' '$log.txt'"
expect "lrb-record fails on a bad output dir" "grep -q 'LRB-USER: bad dir exit 1\>' '$log.txt'"
expect "lrb-record fails without tracefs, says why" \
	"grep -q 'LRB-USER: no tracefs exit 1\>' '$log.txt' && grep -q 'tracefs is not mounted' '$log.txt'"

# first_discarded DIR: the events_discarded of the first packet of each
# stream of the trace in DIR, summed, and how many streams have one.
first_discarded() {
	python3 - "$1" <<'P'
import glob, struct, sys
total = n = 0
for f in glob.glob(sys.argv[1] + '/stream_*'):
    h = open(f, 'rb').read(72)
    if len(h) == 72:
        d = struct.unpack_from('<Q', h, 56)[0]
        total += d
        n += d > 0
print(total, n)
P
}

# stat NAME FILE: a counter of the total block of a saved stats file.
stat() { awk -v k="$1:" '$0 == "cpu: total" { t = 1 } t && $1 == k { print $2 }' "$2"; }

expect "lrb-record -e with an unknown event fails, says why" \
	"grep -q 'LRB-USER: bad event exit 1\>' '$log.txt' && grep -q 'no such event' '$log.txt'"
expect "an on-demand statedump is refused while the channel is disabled, for a value other than 1, and without statedump events" \
	"grep -q 'LRB-USER: statedump disabled: .*Invalid argument' '$log.txt' &&
	 grep -q 'LRB-USER: statedump of 2: .*Invalid argument' '$log.txt' &&
	 grep -q 'LRB-USER: statedump without its events: .*No such file' '$log.txt'"
expect "lrb-record probes exit status 0" "grep -q 'LRB-USER: record probes exit 0\>' '$log.txt'"

expect "lrb-record torture exit status 0" "grep -q 'LRB-USER: record torture exit 0\>' '$log.txt'"
# Every other lrb-record run whose status the guest prints: exit 0.
for r in 'flight' 'record all' 'record dynamic' 'record dynamic late' 'record filter' \
	'record function' 'record oracle' 'record stack' 'record target'; do
	expect "lrb-record $r: exit status 0" "grep -q 'LRB-USER: $r exit 0\>' '$log.txt'"
done
# lrb_bench as a module: loaded, run to the end with every table, unloaded.
expect "lrb_bench module: insmod ran the benchmark (exit 0), rmmod removed it (exit 0), nothing left" \
	"grep -q 'LRB-USER: bench insmod exit 0\>' '$log.txt' && grep -q 'LRB-USER: bench rmmod exit 0\>' '$log.txt' &&
	 ! grep -qE 'LRB-USER: bench (still loaded|instance left)' '$log.txt'"
for tbl in 1 2 3 4 5 6 7; do
	expect "lrb_bench module: table $tbl printed" "grep -q 'lrb_bench: table $tbl: ' '$log.txt'"
done
expect "lrb_bench module: ran to the end, no setup failed" \
	"grep -q 'lrb_bench: done' '$log.txt' && ! grep -qE 'lrb_bench: .*(failed|cannot)' '$log.txt'"

for t in workload losses torture probes dynchurn fnall; do
	d=$share/trace-$t
	if [ ! -f "$d/metadata" ] || [ ! -f "$d/.lrb-stats" ]; then
		fail "trace $t copied to the host"
		continue
	fi
	pass "trace $t copied to the host"
	babeltrace2 "$d" >"$work/$t.out" 2>"$work/$t.err"
	expect "babeltrace2 reads trace $t (exit 0)" "[ $? -eq 0 ]"
	# Anything on stderr but discarded-event notices is a warning or error.
	# Losses within a stream's first packet: babeltrace2 cannot count
	# them (it cannot know where the counter started) and says "may have
	# discarded"; take their count from the first packets' headers, and
	# accept that notice once per such stream, no more.
	read -r first nfirst < <(first_discarded "$d")
	grep -v -e '^WARNING: Tracer discarded [0-9]* events\? between' \
		-e '^WARNING: Tracer may have discarded events between' "$work/$t.err" >"$work/$t.warn"
	maybe=$(grep -c '^WARNING: Tracer may have discarded events between' "$work/$t.err")
	[ "$maybe" = "$nfirst" ] || echo "babeltrace2: $maybe uncounted discard notices, $nfirst first packets with losses" >>"$work/$t.warn"
	expect "babeltrace2: no warning or error on trace $t" "[ ! -s '$work/$t.warn' ]" ||
		excerpt 5 "$work/$t.warn"
	events=$(wc -l <"$work/$t.out")
	delivered=$(stat delivered "$d/.lrb-stats")
	lost=$(($(stat lost_full "$d/.lrb-stats") + $(stat lost_too_big "$d/.lrb-stats") +
		$(stat lost_nested "$d/.lrb-stats") + $(stat lost_nmi "$d/.lrb-stats")))
	notices=$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events\? between.*/\1/p' "$work/$t.err" |
		awk -v f="$first" '{ s += $1 } END { print s + f }')
	echo "    trace $t: babeltrace2 events $events, kernel delivered $delivered; discarded notices $notices (first packets: $first), kernel lost $lost"
	expect "trace $t: babeltrace2 event count = kernel delivered ($delivered)" \
		"[ '$events' = '$delivered' ] && [ '$delivered' -gt 0 ]"
	expect "trace $t: babeltrace2 discarded = kernel lost ($lost)" "[ '$notices' = '$lost' ]"
done
# The clock: a UUID per boot, the same in every trace of the boot, and
# absolute (its offset makes it real time), so traces of several machines
# merge without --clock-force-correlate (tested with two guests by
# harness/multitest.sh).
uuid() { sed -n 's/^\tuuid = "\([0-9a-f-]\{36\}\)";$/\1/p' "$1/metadata"; }
u1=$(uuid "$share/trace-workload") u2=$(uuid "$share/trace-probes")
expect "CTF clock: a UUID per boot ($u1), the same in two traces, declared absolute" \
	"[ -n '$u1' ] && [ '$u1' = '$u2' ] && grep -q '^	absolute = true;' '$share/trace-workload/metadata'"
# Trace event and marker fields as babeltrace2 decodes them.
p=$work/probes.out
has() { grep -E " $1: " "$p" | grep -E "$2" >/dev/null; }
count() { grep -E " $1: " "$p" | grep -cE "$2"; }
for ev in sched:sched_switch sched:sched_wakeup sched:sched_process_fork sched:sched_process_exec \
	sched:sched_process_exit raw_syscalls:sys_enter raw_syscalls:sys_exit irq:softirq_entry \
	irq:softirq_exit lrb_sample:lrb_sample_step; do
	expect "trace probes has $ev events" "has $ev ."
done
expect "sched_switch fields: prev/next comm, pid, prio, state, and no common fields (not asked for)" \
	"has sched:sched_switch '\\{ prev_comm = \"[^\"]+\", prev_pid = [0-9]+, prev_prio = [0-9]+, prev_state = [0-9]+, next_comm = \"[^\"]+\", next_pid = [0-9]+, next_prio = [0-9]+ }'"
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
# oracle SUBCOMMAND DIR PATTERN NAME [MIN_EVENTS]: run oracle.py, quote
# its summary.
oracle() {
	local out=$work/$1-$2.out rc
	if [ ! -d "$share/$2/lrb" ]; then
		fail "$2 traces copied to the host"
		return
	fi
	/usr/bin/python3 "$here/oracle.py" ${5:+--min-events "$5"} "$1" "$share/$2" >"$out" 2>&1
	rc=$?
	grep -E "^($3): " "$out" | sed 's/^/    /'
	expect "$4" "[ $rc -eq 0 ]" || excerpt 40 "$out"
}
oracle compare oracle 'oracle' "oracle: LRB and ftrace record the same events with the same fields"
oracle coverage all 'coverage|opaque' "coverage: every available event described, babeltrace2 decodes 'all' cleanly"
oracle lttng oracle 'lttng' "LTTng layout: every LTTng analysis runs; cputop, syscallstats, memtop, irqstats, iousagetop agree with ftrace"
oracle filter ofilter 'filter' "filters: LRB keeps the records ftrace's filters keep, and those the predicates accept"
oracle target otarget 'target' "targets: lrb-record --follow records what ftrace's set_event_pid with event-fork does, and no other task's"
oracle stack ostack 'stack' "stacks: every kmem:kmalloc of the workload has its kernel stack, the one ftrace's stacktrace trigger shows"
oracle compare odyn 'oracle' "dynamic events: LRB records what ftrace records of two kprobes, a kretprobe, a uprobe, two fprobes (entry, return), an eprobe and a synthetic event (string, integer and hex fetch arguments)" 100
expect "dynamic events: the oracle compared all 9 event types (sched_process_fork and the 8 dynamic events)" \
	"grep -q '^oracle: 9 event types' '$work/compare-odyn.out'"
oracle compare ofn 'oracle' "function tracer: LRB records the functions and callers ftrace's function tracer records with set_ftrace_filter 'vfs_*'" 100
expect "function tracer: the oracle compared ftrace:function (and sched_process_fork)" \
	"grep -q '^oracle: 2 event types' '$work/compare-ofn.out'"
oracle compare ofg 'oracle' "function_graph: LRB records the entries and returns ftrace's function_graph tracer records, with their depths and call and return times" 100
expect "function_graph: the oracle compared ftrace:funcgraph_entry and ftrace:funcgraph_exit (and sched_process_fork)" \
	"grep -q '^oracle: 3 event types' '$work/compare-ofg.out'"
lost=$(stat lost_full "$share/trace-losses/.lrb-stats" 2>/dev/null)
expect "the loss trace did lose records (lost_full ${lost:-?} > 0)" "[ '${lost:-0}' -gt 0 ]"
expect "workload trace has annotations from both CPUs" \
	"grep -q 'cpu_id = 0' '$work/workload.out' && grep -q 'cpu_id = 1' '$work/workload.out'"

# The torture trace (many writers, every context, losses): the counts above
# reconcile; here each writer's lines come in the order written (global
# clock), none twice, and the interrupt and NMI writers are there. NMI
# writes are recorded with LRB_SYNC_LOCAL and refused, counted, with
# LRB_SYNC_IRQOFF.
t=$work/torture.out
ann=$(grep -c ' annotation: ' "$t")
tlost=$(($(stat lost_full "$share/trace-torture/.lrb-stats" 2>/dev/null) + 0))
tnmi=$(($(stat lost_nmi "$share/trace-torture/.lrb-stats" 2>/dev/null) + 0))
order=$(sed -nE 's/.* annotation: .*text = "w([0-7]) ([0-9]+)".*/\1 \2/p' "$t" |
	awk '{ if ($1 in last && $2 <= last[$1]) bad++; last[$1] = $2; n[$1]++ }
	     END { w = 0; for (k in n) w++; print w, bad + 0 }')
nmi=$(grep -c ' nmi:nmi_handler: ' "$t")
hard=$(grep -cE ' (irq:irq_handler_entry|timer:hrtimer_expire_entry): ' "$t")
soft=$(grep -c ' irq:softirq_entry: ' "$t")
echo "    torture trace: $ann annotations of 2400 (writers, out of order: $order), lost_full $tlost; hardirq events $hard, softirq $soft, NMI $nmi, lost_nmi $tnmi"
expect "torture trace: every writer's lines in order, none twice (8 writers)" "[ '$order' = '8 0' ]"
expect "torture trace: records were lost (lost_full $tlost > 0), and $ann of the 2400 annotations kept" \
	"[ $tlost -gt 0 ] && [ $ann -le 2400 ] && [ $ann -gt 0 ]"
expect "torture trace: hardirq ($hard) and softirq ($soft) events beside the annotations" \
	"[ $hard -gt 0 ] && [ $soft -gt 0 ]"
if [ "$variant" = irqoff ]; then
	expect "torture trace: NMI writes refused and counted with LRB_SYNC_IRQOFF (lost_nmi $tnmi > 0, $nmi recorded)" \
		"[ $tnmi -gt 0 ] && [ $nmi -eq 0 ]"
else
	expect "torture trace: NMI events recorded ($nmi > 0, lost_nmi $tnmi = 0)" \
		"[ $nmi -gt 0 ] && [ $tnmi -eq 0 ]"
fi

# Snapshots: every one babeltrace2 opens, with events and no warning.
# clean_trace DIR NAME: babeltrace2 decodes DIR, exit 0, nothing on stderr.
clean_trace() {
	local out=$work/bt-$2
	babeltrace2 "$1" >"$out.out" 2>"$out.err" && [ ! -s "$out.err" ] &&
		[ "$(wc -l <"$out.out")" -gt 0 ]
}
n=0; bad=0
for d in "$share"/snaps/*/; do
	[ -f "$d/metadata" ] || continue
	n=$((n + 1))
	clean_trace "$d" "snap$n" || { bad=$((bad + 1)); excerpt 3 "$work/bt-snap$n.err"; }
done
expect "selftest snapshots: $n saved, each decoded by babeltrace2 without a warning ($bad bad)" \
	"[ $n -ge 10 ] && [ $bad -eq 0 ]"
grep -E '^# snapshot [0-9]+ cpu' "$log.txt" | awk '
	{ n++; r += $8; if ($8 > m) m = $8 }
	END { printf "    selftest snapshots: %d CPU windows, sub-buffers reused while read: %d in all, at most %d in one\n", n, r, m }'
n=0; bad=0; reused=0
for d in "$share"/flight/snap* "$share"/flight/final; do
	[ -f "$d/metadata" ] || continue
	n=$((n + 1))
	clean_trace "$d" "flight$n" || { bad=$((bad + 1)); excerpt 3 "$work/bt-flight$n.err"; }
	reused=$((reused + $(awk '{ s += $10 } END { print s + 0 }' "$d/.lrb-snapshot")))
done
echo "    lrb-record snapshots: $n, sub-buffers reused while read: $reused"
expect "lrb-record --flight-recorder: 10 snapshots while writing and one at the end, all decoded cleanly ($bad bad)" \
	"grep -q 'LRB-USER: flight snapshots 10' '$log.txt' && [ $n -eq 11 ] && [ $bad -eq 0 ]"
expect "flight recorder snapshots hold the writers' annotations" \
	"grep -q 'fr 1 ' '$work/bt-flight11.out'"
expect "lrb-record snapshot: no channel, discard channel refused (exit 1, says why)" \
	"grep -q 'LRB-USER: snapshot of no channel exit 1\>' '$log.txt' &&
	 grep -q 'LRB-USER: snapshot of a discard channel exit 1\>' '$log.txt' &&
	 grep -q 'does not overwrite (mode discard)' '$log.txt' && [ ! -e '$share/flight/discard' ]"

# Switch timer, through lrb-record: latency of a lone record on CPU 1.
lat() { sed -n "s/^LRB-USER: timer $1 latency \([0-9.]*\) \([0-9.]*\) size \([0-9]*\).*/\1 \2 \3/p" "$log.txt"; }
read -r t0 t1 size < <(lat 100000)
ms=$(awk -v a="${t0:-0}" -v b="${t1:-0}" 'BEGIN { printf "%d", (b - a) * 1000 }')
echo "    switch timer 100 ms: record in lrb-record's file after ${ms} ms (uptime clock, 10 ms steps)"
case $variant in
debug | kcsan)
	# A sanitizer kernel runs several times slower: only that it came.
	expect "switch timer 100 ms: a lone record reaches lrb-record's output (${ms} ms; no bound on a sanitizer kernel)" \
		"[ -n '$t0' ] && [ '${size:-0}' -gt 0 ]" ;;
*)
	expect "switch timer 100 ms: a lone record reaches lrb-record's output within 2 periods (${ms} ms)" \
		"[ -n '$t0' ] && [ '${size:-0}' -gt 0 ] && [ $ms -lt 200 ]" ;;
esac
read -r t0 t1 size < <(lat 0)
expect "switch timer off: the record waits for the flush (file empty after 0.5 s, there at the end)" \
	"[ -n '$t0' ] && [ '${size:-1}' -eq 0 ] && [ -s '$share/timer/t0/stream_1' ] &&
	 babeltrace2 '$share/timer/t0' 2>/dev/null | grep lone >/dev/null"
expect "lrb-record --switch-timer out of range is bad usage (2), says why" \
	"grep -q 'LRB-USER: timer bad exit 2\>' '$log.txt' && grep -q 'switch-timer 50: microseconds' '$log.txt'"

# Nothing the kernel complains about before the deliberate panic: no
# WARN, stall or hung task anywhere, and on the debug and KCSAN kernels
# (make sanitize) no KASAN, UBSAN, lockdep or data-race report behind the
# tracefs files and lrb-record's use. Only lib.sh's splat_allowed pass
# (KCSAN's races outside LRB code); they are listed.
sed -E '/LRB-USER: (bug|oops)$/q' "$log.txt" >"$work/console"
splats "$work/console" >"$work/splats"
sed 's/^/    /' "$work/splats" | head -n 5
expect "no kernel splat before the deliberate panic, in LRB code or not" "! grep -qE '^(lrb|other): ' '$work/splats'"

# Dump on oops: what the console shows after the panic.
d=$work/oops.txt
sed -n '/LRB-USER: oops/,$p' "$log.txt" | sed -nE 's/^(\[ *[0-9.]+\] )?(lrb oops: .*)/\2/p' >"$d"
ann=$(sed -nE 's/.* annotation: text="oops ([0-9]+)"$/\1/p' "$d" | tr '\n' ' ')
echo "    dump on oops: $(grep -c '\] cpu[0-9]' "$d") records printed; annotations: ${ann:-none}"
expect "dump on oops: header and end of the dump on the console" \
	"grep -q 'lrb oops: the last 64 records of each CPU, oldest first' '$d' && grep -q 'lrb oops: end of the dump' '$d'"
ann_ok=$(echo "$ann" | awk '{ ok = NF >= 5 && $NF == 99; for (i = 2; i <= NF; i++) if ($i <= $(i - 1)) ok = 0; print ok + 0 }')
expect "dump on oops: the last annotations in the order written, oops 99 last" "[ '$ann_ok' = 1 ]"
sed -nE 's/^lrb oops: \[ *([0-9]+\.[0-9]+)\] cpu.*/\1/p' "$d" >"$d.times"
expect "dump on oops: records of both CPUs, in time order" \
	"grep -q '\] cpu0 ' '$d' && grep -q '\] cpu1 ' '$d' && [ -s '$d.times' ] && sort -c -n '$d.times'"
expect "dump on oops: an annotation's newline, escape and backslash printed escaped, no line forged" \
	"grep -qF 'annotation: text=\"evil\\x0alrb oops: [    1.000000] cpu0 annotation: text=\"forged\"\\x1b[2J\\x5c\"' '$d' &&
	 ! grep -q '^lrb oops: \[    1.000000\]' '$d'"
expect "lockdown (confidentiality): no LRB file opens, as no ftrace file does" \
	"grep -q 'LRB-USER: lockdown .*\[confidentiality\]: lrb refused 5 of 5, ftrace refused 1' '$log.txt'"
expect "dump on oops: trace event fields decoded (sched_switch name=value, after the pid of its common fields)" \
	"grep -qE 'cpu[0-9] sched:sched_switch: pid=[0-9]+ prev_comm=\"[^\"]*\" prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[0-9]+ next_comm=\"[^\"]*\" next_pid=[0-9]+ next_prio=[0-9]+' '$d'"

# Dump on a non-fatal oops (LKDTM's BUG): channel "bug" dumped, its
# kmem:kmalloc pointers hashed (no raw ffff... address), disarmed, armed
# again by a write of 1, and dumped again at the panic.
b=$work/bug.txt
sed -n '/LRB-USER: bug$/,/LRB-USER: bug disarmed/p' "$log.txt" | sed -nE 's/^(\[ *[0-9.]+\] )?(lrb (bug|oops): .*)/\2/p' >"$b"
echo "    dump on a non-fatal oops: $(grep -c '\] cpu[0-9]' "$b") records printed, $(grep -c 'kmem:kmalloc:' "$b") kmem:kmalloc"
expect "dump on a non-fatal oops: the armed channel dumped, no other" \
	"grep -q 'lrb bug: the last 64 records of each CPU, oldest first' '$b' && grep -q 'lrb bug: end of the dump' '$b' && ! grep -q '^lrb oops:' '$b'"
h='(0{8}[0-9a-f]{8}|\(____ptrval____\))'
expect "dump on a non-fatal oops: kmem:kmalloc's ptr and call_site hashed as %p hashes them, none raw; no pid (no common fields)" \
	"grep -qE \"kmem:kmalloc: call_site=\$h ptr=\$h \" '$b' &&
	 ! grep -E 'kmem:kmalloc:' '$b' | grep -vE \"call_site=\$h ptr=\$h \" >/dev/null"
expect "dump on a non-fatal oops: the channel disarmed (reads 0), armed again by a write of 1" \
	"grep -q 'LRB-USER: bug disarmed 0' '$log.txt' && grep -q 'LRB-USER: bug armed again 1' '$log.txt'"
expect "dump on a non-fatal oops: armed again, the channel dumped again at the panic" \
	"sed -n '/LRB-USER: oops/,\$p' '$log.txt' | grep 'lrb bug: end of the dump' >/dev/null"

# lrb-record as a trace-cmd or perf user runs it (harness/guest/user-init.sh).
g() { grep -q "LRB-USER: $1" "$log.txt"; }
t=$share/tool
expect "lrb-record without --event: sched and irq recorded, and a notice says so" \
	"g 'default events exit 0\>' && grep -q 'no --event given: recording -e sched -e irq' '$t/default.err' &&
	 clean_trace '$t/default' default && grep -q ' sched:sched_switch: ' '$work/bt-default.out' &&
	 grep -q ' irq:' '$work/bt-default.out'"
expect "lrb-record passes the command's exit status through (3; 128 + 9; 0 after --duration)" \
	"g 'command exit 3 gives 3\>' && g 'command killed by 9 gives 137\>' && g 'duration stop gives 0\>'"
expect "the command inherits no stream or trace file of lrb-record" \
	"g 'command fds exit 0\>' && grep -q ' 1 -> ' '$t/fds.txt' && ! grep -qE 'streams/cpu|stream_[0-9]|lrb/' '$t/fds.txt'"
expect "lrb-record refuses a non-empty --output (1, says why), takes it with --force" \
	"g 'existing dir gives 1\>' && grep -q 'exists and is not empty: pick another --output, or add --force' '$t/exists.err' &&
	 g 'existing dir with --force gives 0\>'"
expect "kill -9 of a recording: its channel listed as orphaned, removed by lrb-record reset" \
	"g 'orphan 1 listed 1' && g 'list shows the orphan' && g 'reset exit 0 orphan listed 0' &&
	 grep -q 'removed channel lrb-record-' '$t/reset.err'"
expect "kill -9 of a recording: the next recording removes its channel and says so" \
	"g 'record after a kill exit 0 orphan listed 0' && g 'record said it removed the orphan'"
expect "a named channel left by a kill: refused (1) with a hint, free after lrb-record reset NAME" \
	"g 'named channel left by a kill gives 1\>' && grep -q 'lrb-record reset NAME removes it' '$t/named.err' &&
	 g 'reset named exit 0\>' && g 'named channel after reset gives 0\>' && g 'reset of no channel exit 1\>' &&
	 grep -q 'no_such_channel: no such channel' '$t/reset-bad.err'"
missing=$(grep -vxFf <(sed -n 's/^    \([^ ]*:[^ ]*\)$/\1/p' "$t/events.txt") "$share/all/available_events" | wc -l)
expect "lrb-record list events: every event of ftrace's available_events, by system ($missing missing)" \
	"g 'list events exit 0\>' && [ -s '$share/all/available_events' ] && [ $missing -eq 0 ] &&
	 grep -q '^  sched:$' '$t/events.txt'"
n=$(babeltrace2 "$t/cat" 2>/dev/null | grep -c 'text = \"cat [0-9]* [0-9]*\"')
expect "cat of a stream with 1 MiB sub-buffers: whole packets (content rounded up to 8 bytes, not to the sub-buffer) in pieces, babeltrace2 reads all 100 annotations ($n)" \
	"g 'cat cpu0 exit 0 bytes [1-9]' && g 'cat cpu1 exit 0 bytes' && clean_trace '$t/cat' cat &&
	 catsz=\$(wc -c <'$t/cat/stream_0') && [ \$((catsz % 8)) -eq 0 ] && [ \$catsz -lt 1048576 ] && [ '$n' -eq 100 ]"

# report against babeltrace2: the same count of every event, the same first
# and last event; view prints what babeltrace2 prints.
d=$share/trace-probes
"$work/bin/lrb-record" report "$d" >"$work/report.out" 2>&1
rc=$?
awk '{ print $4 }' "$work/probes.out" | sed 's/:$//' | sort | uniq -c | awk '{ print $2, $1 }' >"$work/bt-counts"
awk '/^event +count/ { t = 1; next } t && NF == 3 { print $1, $2 } t && NF == 0 { t = 0 }' "$work/report.out" |
	sort >"$work/report-counts"
expect "lrb-record report: the count of every event equals babeltrace2's ($(wc -l <"$work/bt-counts") event types)" \
	"[ $rc -eq 0 ] && [ -s '$work/bt-counts' ] && diff '$work/bt-counts' '$work/report-counts' >/dev/null"
# (By time: events of the same nanosecond may come in another order.)
babeltrace2 --clock-cycles "$d" 2>/dev/null | sed -n 's/^\[0*\([0-9]*\)\].*/\1/p' >"$work/cycles"
ns() { awk '{ printf "%d.%09d\n", $1 / 1000000000, $1 % 1000000000 }'; }
first=$(head -n 1 "$work/cycles" | ns) last=$(tail -n 1 "$work/cycles" | ns)
expect "lrb-record report: first ($first s) and last ($last s) events at babeltrace2's times, and the kernel's counters" \
	"grep -q '^first event $first cpu' '$work/report.out' && grep -q '^last event  $last cpu' '$work/report.out' &&
	 grep -q '^kernel: written ' '$work/report.out'"
"$work/bin/lrb-record" view "$d" >"$work/view.out" 2>/dev/null
expect "lrb-record view prints what babeltrace2 prints" "cmp -s '$work/view.out' '$work/probes.out'"
PATH=/nonexistent "$work/bin/lrb-record" view "$d" >/dev/null 2>"$work/view.err"
expect "lrb-record view without babeltrace2: exit 1, says how to get it" \
	"[ $? -eq 1 ] && grep -q 'babeltrace2 is not installed' '$work/view.err'"

# Dynamic events: created while a channel runs, refused removal while it
# records them, and lrb-record's own probes.
said() { grep -q "LRB-USER: $1" "$log.txt"; }
bt_count() { babeltrace2 "$1" 2>/dev/null | grep -c " $2: "; }
busy='exit 1 (Device or resource busy)$'
expect "dynamic events: removing a kprobe a channel records fails (EBUSY)" \
	"said 'dynamic remove while recorded $busy' && ! said 'dynamic: cannot'"
expect "dynamic events: removing a uprobe a channel records fails (EBUSY), as a kprobe" \
	"said 'dynamic remove uprobe while recorded $busy'"
expect "dynamic events: removing an fprobe, an eprobe or a synthetic event a channel records fails (EBUSY)" \
	"said 'dynamic remove fprobe while recorded $busy' &&
	 said 'dynamic remove eprobe while recorded $busy' &&
	 said 'dynamic remove synthetic while recorded $busy'"
n=$(bt_count "$share/odyn/late" kprobes:dyn_late)
expect "dynamic events: a kprobe created while a kprobes channel runs is recorded ($n records)" \
	"said 'dynamic create while recording exit 0\>' && [ '$n' -ge 5 ]"
n=$(bt_count "$share/all/lrb" kprobes:all_late)
expect "dynamic events: a kprobe created while an 'all' channel runs is recorded ($n records)" "[ '$n' -gt 0 ]"
d=$share/odyn/opts
expect "lrb-record --kprobe, --probe, --function: each probe recorded, all removed after" \
	"said 'dynamic lrb-record probes exit 0\>' && said 'dynamic events left: 0' &&
	 [ \$(bt_count $d kprobes:opt_open) -gt 0 ] && [ \$(bt_count $d kprobes:p_vfs_write_0) -gt 0 ] &&
	 [ \$(bt_count $d kprobes:do_sys_openat2_entry) -gt 0 ] &&
	 [ \$(bt_count $d kprobes:do_sys_openat2_return) -gt 0 ]"
# A kprobe's stacks come from the hit's registers: the first address of
# each is in the probed function (by the guest's kallsyms, DIR/.kallsyms),
# not in the kprobe machinery above it.
kstack=$(python3 - "$share/odyn/kstack" <<'PY'
import bisect, re, subprocess, sys
d = sys.argv[1]
syms = sorted((int(f[0], 16), f[2]) for f in
              (l.split() for l in open(d + '/.kallsyms')) if f[1] in 'tT')
addrs = [a for a, _ in syms]
out = subprocess.run(['babeltrace2', d], capture_output=True, text=True).stdout
first = [int(m, 0) for m in
         re.findall(r'kernel_stack: .*?ips = \[ \[0\] = (0x[0-9a-fA-F]+|[0-9]+)', out)]
names = [syms[bisect.bisect_right(addrs, a) - 1][1] for a in first]
other = sorted(set(n for n in names if n != 'do_sys_openat2'))
print(len(names), names.count('do_sys_openat2'), ' '.join(other[:3]) or '-')
PY
)
read -r n_st n_in other_st <<<"${kstack:-0 0 -}"
expect "kernel stacks of a kprobe start in the probed function, do_sys_openat2 ($n_in of $n_st stacks; elsewhere: $other_st)" \
	"said 'dynamic kprobe stack exit 0\>' && [ '$n_st' -gt 0 ] && [ '$n_in' -eq '$n_st' ]"
# A kprobe is hit from its breakpoint, NMI context, until it is optimized:
# with LRB_SYNC_IRQOFF those hits are counted lost_nmi.
n=$(bt_count "$share/trace-dynchurn" 'kprobes:churn_[0-9]*')
nmi=$(stat lost_nmi "$share/trace-dynchurn/.lrb-stats" 2>/dev/null)
expect "dynamic events: 100 kprobes created, recorded, disabled and removed while a channel runs ($n records, $nmi lost_nmi); one on exc_nmi refused" \
	"said 'dynamic churn 100 probes, 0 failures' && said 'record dynamic churn exit 0\>' &&
	 said 'dynamic churn kprobe on exc_nmi exit 1\>' && said 'dynamic churn events left: 0' &&
	 [ \$((n + ${nmi:-0})) -ge 100 ] && [ '$n' -gt 0 ]"
expect "lrb-record --kprobe and --uprobe of a bad definition: exit 1 with ftrace's error" \
	"said 'dynamic bad kprobe exit 1\>' && said 'dynamic bad uprobe exit 1\>' &&
	 grep -q 'trace_kprobe: error: Invalid probed address or symbol' '$log.txt'"

# The function tracer: a glob of nothing refused, a module's functions
# taken with :mod:, the whole kernel recorded with losses, and report
# --symbols naming the functions from DIR/.kallsyms.
expect "lrb-record -l of a glob that matches no function: exit 1, says so" \
	"said 'function glob of nothing exit 1 lrb-record: --function-filter .no_such_function_xyz.*matches no function'"
expect "a channel's set_ftrace_filter takes a module's functions (*:mod:lrb_sample)" \
	"said 'function mod exit 0 [1-9]'"
# After the annotation "after", the names of the functions of each
# event's records: a graph on the old filter would still show vfs_*.
fn_after() {
	python3 - "$share/ofn/change" <<'PY'
import bisect, os, re, subprocess, sys
d = sys.argv[1]
syms = []
for line in open(os.path.join(d, '.kallsyms')):
    f = line.split()
    if len(f) >= 3 and f[1] in 'tT':
        syms.append((int(f[0], 16), f[2]))
syms.sort()
addrs = [a for a, _ in syms]
out = subprocess.run(['babeltrace2', d], capture_output=True, text=True).stdout
after, names = False, {}
for line in out.splitlines():
    if 'annotation:' in line:
        after = after or 'text = "after"' in line
        continue
    m = re.search(r' (ftrace:\w+): .*?\b(?:ip|func) = (0x[0-9a-fA-F]+|[0-9]+)', line)
    if not m or not after:
        continue
    i = bisect.bisect_right(addrs, int(m.group(2), 0)) - 1
    name = syms[i][1] if i >= 0 else '?'
    kind = 'ksys' if name.startswith('ksys_') else 'other'
    key = m.group(1) + ':' + kind
    names[key] = names.get(key, 0) + 1
print(' '.join('%s=%d' % kv for kv in sorted(names.items())))
PY
}
fa=$(fn_after 2>&1)
expect "set_ftrace_filter changed while the function tracer and the graph record: both follow it ($fa)" \
	"said 'function filter change exit 0\>' && echo '$fa' | grep -q 'ftrace:funcgraph_entry:ksys=[1-9]' &&
	 echo '$fa' | grep -q 'ftrace:function:ksys=[1-9]' && ! echo '$fa' | grep -q ':other='"
expect "function tracer churn: graph links, an fprobe and a channel made, changed and removed 10 times while they fire" \
	"said 'function churn 10 rounds, 0 failures, channels left 0, probes left 0'"
expect "set_ftrace_filter: a glob of nothing written with '>' fails and leaves the filter as it was" \
	"said 'function bad filter exit 1 kept vfs_read \$'"
d=$share/trace-fnall
"$work/bin/lrb-record" report --symbols "$d" >"$work/fnall.out" 2>&1
rc=$?
delivered=$(stat delivered "$d/.lrb-stats" 2>/dev/null) lost=$(stat lost_full "$d/.lrb-stats" 2>/dev/null)
nfn=$(sed -n 's/^functions: [0-9]* ftrace:function records, \([0-9]*\) functions$/\1/p' "$work/fnall.out")
expect "function tracer, whole kernel for 2 s: ${delivered:-?} records of ${nfn:-?} functions, ${lost:-?} lost and counted, named by report --symbols" \
	"[ $rc -eq 0 ] && said 'record function all exit 0\>' && [ '${lost:-0}' -gt 0 ] &&
	 grep -q '^functions: $delivered ftrace:function records, ' '$work/fnall.out' && [ '${nfn:-0}' -gt 100 ]" ||
	excerpt 30 "$work/fnall.out"
"$work/bin/lrb-record" report --symbols "$share/ofn/lrb" >"$work/ofn-symbols.out" 2>&1
expect "lrb-record report --symbols: the function tracer's functions named, all vfs_*" \
	"sed -n '/^functions: /,/^\$/p' '$work/ofn-symbols.out' | grep -Eq '^ *[0-9]+[[:space:]]+vfs_[a-z_0-9.]*[+]0x0\$' &&
	 ! sed -n '/^functions: /,/^\$/p' '$work/ofn-symbols.out' |
	   grep -Ev -e '^functions: ' -e 'calls[[:space:]]+function' -e '^\$' -e 'more[)]\$' -e '[[:space:]]vfs_[a-z_0-9.]*[+]0x0\$' | grep -q ." ||
	excerpt 30 "$work/ofn-symbols.out"

# report --symbols against babeltrace2: every kernel_stack counted, each
# kmalloc with its stack, the addresses named from DIR/.kallsyms.
d=$share/ostack/lrb
"$work/bin/lrb-record" report --symbols "$d" >"$work/symbols.out" 2>&1
rc=$?
babeltrace2 "$d" >"$work/ostack.out" 2>/dev/null
n=$(grep -c ' kernel_stack: ' "$work/ostack.out") k=$(grep -c ' kmem:kmalloc: ' "$work/ostack.out")
expect "lrb-record report --symbols: $n stacks, as babeltrace2's kernel_stack events, one per kmem:kmalloc ($k), named from .kallsyms" \
	"[ $rc -eq 0 ] && [ '$n' -gt 0 ] && grep -q '^kernel stacks: $n\$' '$work/symbols.out' &&
	 grep -q '^kmem:kmalloc: $n of $k records with a stack' '$work/symbols.out' &&
	 grep -q '^	trace_kmalloc+0x' '$work/symbols.out' && ! grep -q '^	0x' '$work/symbols.out'" ||
	excerpt 20 "$work/symbols.out"

exit "$result_status"
