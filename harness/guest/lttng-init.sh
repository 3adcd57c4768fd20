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

# The demo's workload (lrb-workload) with reads of the 9p share (virtio
# interrupts) and, with "burst", on each CPU 20,000 one-byte pipe writes
# that wake a reader: far more events than the small run's buffers hold
# between two reads.
cat > /tmp/workload.sh <<'W'
#!/bin/sh
lrb-workload /host &
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

# run NAME SUBBUF NUM [burst]
run() {
	mkdir -p /tmp/$1
	{
		lttng create "$1" --output=/tmp/$1/lttng &&
		lttng enable-channel -k c0 --discard --subbuf-size="$2" --num-subbuf="$3" &&
		lttng enable-event -k -c c0 "$lt" &&
		lttng start
	} >/tmp/$1/lttng.txt 2>&1 || { echo "LRB-LTTNG: $1: lttng setup failed"; cat /tmp/$1/lttng.txt; return 1; }
	# shellcheck disable=SC2086
	lrb-record -q -o /tmp/$1/lrb -B "$1" --subbuf-size "$2" --num-subbufs "$3" $lr -- /tmp/workload.sh $4
	echo "LRB-LTTNG: $1: lrb-record exit $?"
	{ lttng stop && lttng destroy; } >>/tmp/$1/lttng.txt 2>&1
	echo "LRB-LTTNG: $1: lttng stop+destroy exit $?"
	rm -rf /host/$1
	cp -r /tmp/$1 /host/$1 && echo "LRB-LTTNG: $1: traces copied to the host"
}
run big 256k 8
run small 4k 2 burst
sync
poweroff -f
