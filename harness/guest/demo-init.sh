#!/bin/sh
# /init of the demo guest: trace a real workload with lrb-record and leave
# the trace on the host (9p, tag host0).
. /etc/lrb-setup.sh

# Every CPU: processes forking and exec'ing, pipes, timers, syscalls
# (lrb-workload); and a module with markers and a trace event loaded and
# unloaded in the middle.
cat > /tmp/workload.sh <<'W'
#!/bin/sh
lrb-workload &
insmod /lib/lrb_sample.ko burst=10
sleep 0.05
rmmod lrb_sample
wait
W
chmod +x /tmp/workload.sh

E=/sys/kernel/tracing/lrb/probe/events
echo "LRB-DEMO: events this kernel can record:"
echo "create probe" > /sys/kernel/tracing/lrb/control
echo "$(grep -c ':' $E) trace events in $(grep ':' $E | cut -d: -f1 | sort -u | wc -l) systems, and $(grep -v '^#' $E | grep -vc ':') markers; a few:"
grep -E '^(sched:sched_(switch|process_exec)|irq:irq_handler_entry|syscalls:sys_enter_openat|timer:hrtimer_start) ' $E
echo "remove probe" > /sys/kernel/tracing/lrb/control
echo "LRB-DEMO: lrb-record -o /tmp/trace -e all -b 16M -- workload"
lrb-record -q -o /tmp/trace -B demo -b 16M -e all -- /tmp/workload.sh
echo "LRB-DEMO: lrb-record exit $?"
# The same workload in the LTTng layout, for the LTTng analyses on the
# host (without -e: what they read, and the statedump).
lrb-record -q --layout lttng -o /tmp/lttng-trace -b 16M -- /tmp/workload.sh
echo "LRB-DEMO: lrb-record --layout lttng exit $?"
rm -rf /host/trace /host/lttng-trace
cp -r /tmp/trace /host/trace && echo "LRB-DEMO: trace copied to the host"
cp -r /tmp/lttng-trace /host/lttng-trace
sync
poweroff -f
