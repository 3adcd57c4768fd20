#!/bin/sh
# /init of the user-space test guest: the LRB selftests, then lrb-record on
# a workload, the traces copied to the host through 9p (tag host0).
. /etc/lrb-setup.sh
echo "LRB-USER: start"
cd /tmp

echo "LRB-USER: selftests"
/bin/lrb_test
echo "LRB-USER: selftests exit $?"

# Annotations written from every CPU by several processes.
cat > /tmp/workload.sh <<'W'
#!/bin/sh
a=/sys/kernel/tracing/lrb/$1/annotate
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c "i=0; while [ \$i -lt 400 ]; do echo \"cpu $cpu line \$i\" > $a; i=\$((i + 1)); done" &
done
wait
W
chmod +x /tmp/workload.sh
echo "LRB-USER: record workload"
lrb-record -q -o /tmp/trace-workload -c workload -- /tmp/workload.sh workload
echo "LRB-USER: record workload exit $?"

# The recorder stopped while a burst overflows its 4 x 4 KiB buffers:
# losses, which the trace must report.
echo "LRB-USER: record losses"
lrb-record -q -o /tmp/trace-losses -c losses -s 4096 -n 4 -- sh -c '
	kill -STOP $PPID
	i=0
	while [ $i -lt 2000 ]; do
		echo "burst $i" > /sys/kernel/tracing/lrb/losses/annotate 2>/dev/null
		i=$((i + 1))
	done
	kill -CONT $PPID'
echo "LRB-USER: record losses exit $?"

# Probes and markers: processes, syscalls, interrupts, and a module with
# markers loaded and unloaded while tracing.
if [ -f /lib/lrb_sample.ko ]; then
	echo "LRB-USER: record probes"
	lrb-record -q -o /tmp/trace-probes -c probes -s 65536 -n 8 \
		-e 'sched_*' -e 'irq_*' -e 'softirq_*' -e 'sys_*' -e 'lrb_sample_*' -- sh -c '
		insmod /lib/lrb_sample.ko burst=20
		ls / > /dev/null
		echo hello | cat > /dev/null
		sleep 0.1
		rmmod lrb_sample'
	echo "LRB-USER: record probes exit $?"
	lrb-record -q -o /tmp/t -c bad -e no_such_event -- true
	echo "LRB-USER: bad event exit $?"
fi

echo "LRB-USER: report"
lrb-record report /tmp/trace-workload
echo "LRB-USER: report exit $?"

echo "LRB-USER: errors"
lrb-record -q -o /proc/no-such-dir -c err -- true
echo "LRB-USER: bad dir exit $?"
umount /sys/kernel/tracing
lrb-record -q -o /tmp/t -c err -- true
echo "LRB-USER: no tracefs exit $?"

cp -r /tmp/trace-workload /tmp/trace-losses /tmp/trace-probes /host/ 2>/dev/null && echo "LRB-USER: copied"
sync
echo "LRB-USER: done"
poweroff -f
