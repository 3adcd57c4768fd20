#!/bin/sh
# /init of the two guests of multitest.sh, booted side by side: guest a and
# guest b (lrb_guest= on the command line) each record their own LRB trace
# while they pass a token through the host's 9p share: a writes "tick 0",
# then b "tick 1", and so on, each tick written after the previous one was
# seen on the host. Ticks are 1.5 s apart, more than the known error of
# the guests' real-time clocks (set from the host's RTC at boot, to the
# second), so the ticks of the two traces merged on real time must come
# out in order.
. /etc/lrb-setup.sh
me=$(sed -n 's/.*lrb_guest=\([ab]\).*/\1/p' /proc/cmdline)
[ "$me" = a ] && other=b || other=a
hostname lrb-guest-$me
S=/host
A=/sys/kernel/tracing/lrb/mm/annotate
echo "LRB-MULTI: guest $me up"
touch $S/ready-$me
i=0
while [ ! -e $S/ready-$other ] && [ $i -lt 1200 ]; do
	sleep 0.1
	i=$((i + 1))
done
cat > /tmp/pingpong.sh <<W
#!/bin/sh
# Even ticks are a's, odd ones b's.
n=\$([ $me = a ] && echo 0 || echo 1)
while [ \$n -lt 8 ]; do
	if [ \$n -gt 0 ]; then
		i=0
		while [ ! -e $S/tick-\$((n - 1)) ] && [ \$i -lt 600 ]; do
			sleep 0.02
			i=\$((i + 1))
		done
		sleep 1.5
	fi
	echo "tick \$n from $me" > $A
	touch $S/tick-\$n
	n=\$((n + 2))
done
W
chmod +x /tmp/pingpong.sh
lrb-record -q -e none -B mm -o /tmp/trace -- /tmp/pingpong.sh
echo "LRB-MULTI: record exit $?"
cp -r /tmp/trace $S/trace-$me && echo "LRB-MULTI: copied"
sync
poweroff -f
