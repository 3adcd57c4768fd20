#!/bin/sh
# /init of make bench's UML boots: lrb_bench's tables have run from the
# kernel's initcalls by now; run mmap-drain, the user-space readers of
# mapped buffers (LRB's stream files against ftrace's trace_pipe_raw),
# with the kernel command line's mmap_reps= and mmap_ms=, and end.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t tracefs nodev /sys/kernel/tracing
echo "LRB-INIT: reached /init"
mmap-drain "${mmap_reps:-11}" "${mmap_ms:-500}"
echo "LRB-INIT: mmap-drain: rc=$?"
poweroff -f
