#!/bin/sh
# /init of the x86_64 bench boot: lrb_bench is a module there.  Load it
# with the lrb_bench.* parameters of the kernel command line (it runs
# while loading), run mmap-drain once against its writer thread, start
# the writer again and unload the module while it writes (the unload
# must stop it).  bench.sh reads the tables and the LRB-INIT lines on
# the console.
. /etc/lrb-setup.sh
params=$(cmdline_params lrb_bench)
echo "LRB-INIT: insmod lrb_bench.ko $params"
# shellcheck disable=SC2086
if insmod /lib/lrb_bench.ko $params; then
	mmap-drain 1 200
	echo "LRB-INIT: mmap-drain: rc=$?"
	echo 10000 >/sys/module/lrb_bench/parameters/writer &&
		echo "LRB-INIT: writer started"
	rmmod lrb_bench && echo "LRB-INIT: rmmod lrb_bench: ok"
else
	echo "LRB-INIT: insmod lrb_bench failed"
fi
poweroff -f
