#!/bin/bash
# demo.sh: the main job.  Apply the series, build the x86_64 kernel with
# LRB (LRB_SYNC_LOCAL), boot it on 2 CPUs under QEMU and show LRB at work.
#
# Today the series has the ring buffer core and its KUnit suite; the
# tracefs interface, lrb-record and the tracepoint probes that let this
# demo trace a real workload and print it with babeltrace2 come with the
# next patches.  Until then the demo shows the suite exercising the buffer
# from task and hardirq context on every CPU and across CPU hotplug.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
stage "apply the series" "$here/tree.sh" || exit 1
echo "building the x86_64 kernel (first time: ~5 min; then incremental)"
stage "build x86_64 LRB_SYNC_LOCAL" "$here/build.sh" x86_64 local >"$logdir/build-x86_64-local.log" 2>&1 ||
	{ tail -n 30 "$logdir/build-x86_64-local.log"; exit 1; }
echo "booting it under QEMU with 2 CPUs"
stage "boot" "$here/boot.sh" x86_64 local "$logdir/demo.log" || exit 1
sed -n 's/^\[ *[0-9.]*\] //p' "$logdir/demo.log" | grep -E '^(    )?(KTAP|# |ok|not ok|1\.\.)' 
"$here/ktap.py" "$logdir/demo.log" demo | head -n -1
echo "full console log: ${logdir#"$top"/}/demo.log"
