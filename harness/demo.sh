#!/bin/bash
# demo.sh: the main job.  Apply the series, build the x86_64 kernel with
# LRB (LRB_SYNC_LOCAL) and lrb-record, boot the kernel on 2 CPUs under
# QEMU, trace a workload (processes, pipes, timers, syscalls, a module with
# markers and a trace event) with every event enabled (lrb-record -e all),
# bring the CTF trace to the host and show it:
# the first events as babeltrace2 prints them, a per-event and per-CPU
# summary, the lost counts, and where the trace directory is.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
work=$top/build/demo
out=$top/build/out/x86_64-local
rm -rf "$work"
mkdir -p "$work/share" "$work/bin"

stage "apply the series" "$here/tree.sh" || exit 1
echo "building the x86_64 kernel with LRB (first time: ~5 min with 2 cores; then incremental)"
stage "build x86_64 LRB_SYNC_LOCAL" "$here/build.sh" x86_64 local >"$logdir/build-x86_64-local.log" 2>&1 ||
	{ tail -n 30 "$logdir/build-x86_64-local.log"; exit 1; }
echo "building lrb-record (tools/tracing/lrb) against the series' uapi headers"
stage "build lrb-record" build_lrb_record "$work/bin" local >"$logdir/demo-tool.log" 2>&1 || { cat "$logdir/demo-tool.log"; exit 1; }
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/demo-init.sh" \
	"$work/bin/lrb-record" "$out/samples/lrb/lrb_sample.ko"

echo "booting it under QEMU (2 CPUs) and tracing the workload in the guest"
LRB_INITRD=$work/initramfs.cpio.gz LRB_SHARE=$work/share LRB_SMP=2 LRB_TCG_THREAD=single \
	LRB_CMDLINE="kunit.filter_glob=none.none quiet" \
	stage "boot and trace" "$here/boot.sh" x86_64 local "$logdir/demo.log" || exit 1
# (The first line may follow the firmware's terminal escapes.)
tr -d '\r' <"$logdir/demo.log" | sed 's/^.*LRB-DEMO: events/LRB-DEMO: events/' |
	sed -n '/^LRB-DEMO: events/,/^LRB-DEMO: lrb-record exit/p' | grep -v '^\['
trace=$work/share/trace
[ -f "$trace/metadata" ] || { echo "demo: no trace came back (console: ${logdir#"$top"/}/demo.log)"; exit 1; }

echo
echo "== the first events, as babeltrace2 prints them"
babeltrace2 "$trace" >"$work/trace.txt" 2>"$work/babeltrace2.err"
head -n 40 "$work/trace.txt" | cut -c1-200
echo "..."
echo "== a few events of each kind"
for ev in sched:sched_switch sched:sched_process_exec irq:irq_handler_entry irq:softirq_entry \
	syscalls:sys_enter_openat syscalls:sys_exit_openat timer:hrtimer_start kmem:kmalloc \
	lrb_sample:lrb_sample_step lrb_sample_burst lrb_sample_bye; do
	grep -m 2 " $ev: " "$work/trace.txt" | cut -c1-200
done
echo
echo "== distinct events in the trace: $(awk '{ print $4 }' "$work/trace.txt" | sort -u | wc -l)" \
	"(of $(grep -c 'name = "' "$trace/metadata") described in its metadata)"
echo
echo "== per-CPU and per-event summary (lrb-record report)"
"$work/bin/lrb-record" report "$trace"
echo
echo "== lost events"
# The total block of the kernel's stats file, which lrb-record saved.
sed -n '/^cpu: total$/,/^$/p' "$trace/.lrb-stats" | grep -E '^(written|delivered|lost_)'
if [ -s "$work/babeltrace2.err" ]; then
	echo "babeltrace2 says:"
	head -n 5 "$work/babeltrace2.err"
else
	echo "babeltrace2 reported no discarded events and no warning"
fi
echo
echo "babeltrace2 printed $(wc -l <"$work/trace.txt") events; the kernel delivered $(sed -n '/^cpu: total$/,/^$/s/^delivered: //p' "$trace/.lrb-stats")."
echo "The trace directory (CTF 1.8; open it in Trace Compass: File > Open Trace, pick metadata):"
echo "    $trace"
echo "Full listing: $work/trace.txt"
lt=$work/share/lttng-trace
if [ -f "$lt/kernel/metadata" ]; then
	echo
	echo "== the same workload recorded with lrb-record --layout lttng, as an LTTng analysis reads it:"
	echo "== lttng-cputop $lt"
	lttng-cputop "$lt" 2>&1 | grep -v -e '^Processing' -e '^Checking' | head -n 30
	echo "lttng-schedtop, lttng-syscallstats, lttng-irqstats, lttng-memtop and the other lttng-* analyses"
	echo "read it too; Trace Compass opens $lt/kernel/metadata with its kernel views."
else
	echo "demo: no LTTng-layout trace came back"
	exit 1
fi
