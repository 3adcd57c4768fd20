#!/bin/sh
# /init of the function tracer cost guest (harness/fncost.sh): vfs_open
# traced by an LRB channel and by an ftrace instance's function tracer at
# once, then a loop that opens a file, which the host's gdb single-steps.
. /etc/lrb-setup.sh
T=/sys/kernel/tracing
echo "create cost" > $T/lrb/control
echo vfs_open > $T/lrb/cost/set_ftrace_filter
echo "enable ftrace:function" > $T/lrb/cost/events
echo 1 > $T/lrb/cost/enable
mkdir $T/instances/cost
echo vfs_open > $T/instances/cost/set_ftrace_filter
echo function > $T/instances/cost/current_tracer
# Readers drain the channel, so that its records take the common path,
# as ftrace's, which overwrites, always does.
cat $T/lrb/cost/streams/cpu0 > /dev/null &
cat $T/lrb/cost/streams/cpu1 > /dev/null &
echo "LRB-COST: ready"
while :; do : < /proc/version; done
