#!/bin/sh
# lrb-workload [DIR...]: the workload the demo and the LTTng guests trace.
# On every CPU, five rounds of processes forking and exec'ing, pipes,
# timers and syscalls; each DIR is listed in every round as well (a 9p
# share: virtio interrupts).  Returns when all are done.
for cpu in $(seq 0 $(($(nproc) - 1))); do
	taskset -c "$cpu" sh -c '
		for i in 1 2 3 4 5; do
			ls -l /bin "$@" > /dev/null
			seq 1 300 | grep 7 | wc -l > /dev/null
			cat /proc/interrupts > /dev/null
			sleep 0.02
		done' lrb-workload "$@" &
done
wait
