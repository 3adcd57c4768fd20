#!/bin/sh
# /init of the LTTng side-by-side guest (harness/lttng.sh): the demo's
# workload traced by LTTng 2.13 and by LRB at the same time, with the same
# events and the same buffer geometry, in two runs:
#   big    8 x 256 KiB per CPU: nothing should be lost;
#   small  2 x 4 KiB per CPU and a burst of events: both lose events and
#          must say how many.
# Each run leaves /host/RUN/lttng (lttng's trace), /host/RUN/lrb (lrb-record's)
# and /host/RUN/lttng.txt (what lttng printed).
. /etc/lrb-setup.sh
PATH=/usr/bin:/bin:/usr/sbin:/sbin
mkdir -p /var/run /dev/shm /root
mount -t tmpfs tmpfs /dev/shm
export HOME=/root LTTNG_HOME=/root

# The demo's workload (lrb-workload) three times, with reads of the 9p
# share (virtio interrupts), so that the workload rather than the tracers'
# start and stop makes most of each trace, and, with "burst", on each CPU
# 20,000 one-byte pipe writes that wake a reader: far more events than the
# small run's buffers hold between two reads.
cat > /tmp/workload.sh <<'W'
#!/bin/sh
(for i in 1 2 3; do lrb-workload /host; done) &
if [ "$1" = burst ]; then
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c "$cpu" sh -c 'dd if=/dev/zero bs=1 count=20000 2>/dev/null | cat > /dev/null' &
	done
fi
wait
W
chmod +x /tmp/workload.sh

# The events both record: LTTng's name, then the kernel's SYSTEM:NAME.
EVENTS="sched_switch sched:sched_switch
sched_wakeup sched:sched_wakeup
sched_process_fork sched:sched_process_fork
sched_process_exec sched:sched_process_exec
sched_process_exit sched:sched_process_exit
irq_handler_entry irq:irq_handler_entry
irq_softirq_entry irq:softirq_entry
timer_hrtimer_start timer:hrtimer_start
timer_hrtimer_expire_entry timer:hrtimer_expire_entry"
lt=$(echo "$EVENTS" | cut -d' ' -f1 | paste -sd,)
lr=$(echo "$EVENTS" | cut -d' ' -f2 | sed 's/^/-e /' | paste -sd' ')

echo "LRB-LTTNG: kernel $(uname -r), $(nproc) CPUs"
if ! lttng-sessiond --daemonize >/tmp/sessiond.log 2>&1; then
	echo "LRB-LTTNG: lttng-sessiond failed"
	cat /tmp/sessiond.log
	poweroff -f
fi
echo "LRB-LTTNG: lttng-sessiond up; LTTng modules loaded: $(grep -c '^lttng' /proc/modules)"

# The windows of the two traces: LTTng starts before lrb-record, and
# lrb-record runs this, which stops LTTng once the workload is done. Each
# trace then holds one start-up or tear-down of the other tracer (LTTng's,
# lrb-record's start; LRB's, lttng stop) around the same workload, where
# starting and stopping one tracer inside the other would give the outer
# one both, with the idle time they take.
cat > /tmp/window.sh <<'W'
#!/bin/sh
/tmp/workload.sh $2
lttng stop >>"$1" 2>&1
W
chmod +x /tmp/window.sh

# run NAME SUBBUF NUM [burst]
# LTTng's read timer is its shortest, one jiffy (4 ms at the guest's
# HZ=250): its consumer is then woken about as soon as a sub-buffer fills,
# as lrb-record is (by the writer's irq_work), instead of every 200 ms by
# default; the small run then measures the two formats under the same
# pressure, not two wake-up policies.
run() {
	mkdir -p /tmp/$1
	{
		lttng create "$1" --output=/tmp/$1/lttng &&
		lttng enable-channel -k c0 --discard --subbuf-size="$2" --num-subbuf="$3" --read-timer=1000 &&
		lttng enable-event -k -c c0 "$lt" &&
		lttng start
	} >/tmp/$1/lttng.txt 2>&1 || { echo "LRB-LTTNG: $1: lttng setup failed"; cat /tmp/$1/lttng.txt; return 1; }
	# shellcheck disable=SC2086
	lrb-record -q -o /tmp/$1/lrb -B "$1" --subbuf-size "$2" --num-subbufs "$3" $lr -- /tmp/window.sh /tmp/$1/lttng.txt $4
	echo "LRB-LTTNG: $1: lrb-record exit $?"
	lttng destroy >>/tmp/$1/lttng.txt 2>&1
	echo "LRB-LTTNG: $1: lttng destroy exit $?"
	rm -rf /host/$1
	cp -r /tmp/$1 /host/$1 && echo "LRB-LTTNG: $1: traces copied to the host"
}
run big 256k 8
run small 4k 2 burst
sync
poweroff -f
