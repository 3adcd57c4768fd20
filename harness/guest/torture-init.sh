#!/bin/sh
# /init of the x86_64 torture boots: lrb_torture is a module there.
# Load it with the lrb_torture.* parameters of the kernel command line,
# wait for its verdict and unload it; then load it again to run until
# unloaded, and unload it after a few seconds, which must stop the test,
# report and free everything just the same.  torture.sh reads the two
# verdicts on the console.
. /etc/lrb-setup.sh
params=$(cmdline_params lrb_torture)
# kernel/torture.c, when it is a module: lrb_torture needs it.
[ -f /lib/torture.ko ] && insmod /lib/torture.ko
verdicts() { dmesg | grep -cE 'lrb_torture: (PASS|FAIL)$'; }
echo "LRB-INIT: insmod lrb_torture.ko $params"
# shellcheck disable=SC2086
if insmod /lib/lrb_torture.ko $params; then
	until [ "$(verdicts)" -ge 1 ]; do sleep 1; done
	rmmod lrb_torture && echo "LRB-INIT: rmmod lrb_torture: ok"
	short=$(echo "$params" | sed 's/duration=[0-9]*//')
	echo "LRB-INIT: insmod lrb_torture.ko $short duration=0, rmmod after 3 s"
	# shellcheck disable=SC2086
	if insmod /lib/lrb_torture.ko $short duration=0; then
		sleep 3
		[ "$(verdicts)" -eq 1 ] || echo "LRB-INIT: lrb_torture stopped before its rmmod"
		rmmod lrb_torture && echo "LRB-INIT: rmmod lrb_torture: ok"
	else
		echo "LRB-INIT: insmod lrb_torture failed"
	fi
else
	echo "LRB-INIT: insmod lrb_torture failed"
fi
grep -q '^lrb_torture ' /proc/modules && echo "LRB-INIT: lrb_torture still loaded"
poweroff -f
