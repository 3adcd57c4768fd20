#!/bin/sh
# /init of the user-space test guest: the LRB selftests, then lrb-record on
# a workload, the traces copied to the host through 9p (tag host0).
. /etc/lrb-setup.sh
echo "LRB-USER: start"
cd /tmp

echo "LRB-USER: selftests"
# snapshot_while_writing also saves its snapshots as CTF traces there.
LRB_SNAPSHOT_DIR=/tmp/snaps /bin/lrb_test
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
lrb-record -q -o /tmp/trace-workload -B workload -- /tmp/workload.sh workload
echo "LRB-USER: record workload exit $?"

# The recorder stopped while a burst overflows its 4 x 4 KiB buffers:
# losses, which the trace must report.
echo "LRB-USER: record losses"
lrb-record -q -o /tmp/trace-losses -B losses -e none --subbuf-size 4096 --num-subbufs 4 -- sh -c '
	kill -STOP $PPID
	i=0
	while [ $i -lt 2000 ]; do
		echo "burst $i" > /sys/kernel/tracing/lrb/losses/annotate 2>/dev/null
		i=$((i + 1))
	done
	kill -CONT $PPID'
echo "LRB-USER: record losses exit $?"

# Torture through lrb-record: eight annotation writers (processes on both
# CPUs, each numbering its lines) and, into the same channel, the kernel's
# interrupt, softirq and hrtimer events and nmi:nmi_handler from the NMI
# IPIs of sysrq l (backtraces kept off the slow console); a small buffer
# (8 KiB per CPU) and the recorder stopped while the writers write their
# first 150 lines each: 1,200 records of 16 bytes, about 19 KiB, more than
# the two CPUs hold however the writers spread (with 16 KiB per CPU, a
# run with the writers spread evenly lost nothing), so records are lost;
# then the recorder consumes while they write the rest. With
# LRB_SYNC_IRQOFF the NMI writes are refused and counted (lost_nmi).
echo "LRB-USER: record torture"
lvl=$(cut -f1 /proc/sys/kernel/printk)
echo 1 > /proc/sys/kernel/printk
lrb-record -q -o /tmp/trace-torture -B torture -C global --subbuf-size 4096 --num-subbufs 2 \
	-e irq -e timer:hrtimer_expire_entry -e nmi -- sh -c '
	a=/sys/kernel/tracing/lrb/torture/annotate
	nmis() { n=0; while [ $n -lt 15 ]; do echo l > /proc/sysrq-trigger; n=$((n + 1)); done; }
	rm -f /tmp/half* /tmp/go
	kill -STOP $PPID
	for w in 0 1 2 3 4 5 6 7; do
		sh -c "i=0; while [ \$i -lt 300 ]; do
			if [ \$i = 150 ]; then touch /tmp/half$w; while [ ! -e /tmp/go ]; do sleep 1; done; fi
			echo \"w$w \$i\" > $a; i=\$((i + 1)); done" &
	done
	nmis
	while [ $(ls /tmp/half* 2>/dev/null | wc -l) -lt 8 ]; do sleep 1; done
	kill -CONT $PPID
	touch /tmp/go
	nmis
	wait'
echo "LRB-USER: record torture exit $?"
echo "$lvl" > /proc/sys/kernel/printk

# Trace events and markers: processes, syscalls, interrupts, and a module
# with markers and a trace event loaded and unloaded while tracing.
if [ -f /lib/lrb_sample.ko ]; then
	echo "LRB-USER: record probes"
	lrb-record -q -o /tmp/trace-probes -B probes --subbuf-size 64k --num-subbufs 8 \
		-e sched -e irq:irq_handler_entry -e 'irq:softirq_*' -e raw_syscalls \
		-e 'lrb_sample*' -- sh -c '
		insmod /lib/lrb_sample.ko burst=20
		ls / > /dev/null
		echo hello | cat > /dev/null
		sleep 0.1
		rmmod lrb_sample'
	echo "LRB-USER: record probes exit $?"
	lrb-record -q -o /tmp/t -B bad -e no_such_event -- true
	echo "LRB-USER: bad event exit $?"
fi

# lrb_bench as a module: a short run at load (QEMU TCG: a functional
# check, not timings), then unloaded; neither the module nor its ftrace
# instance may be left behind.
if [ -f /lib/lrb_bench.ko ]; then
	echo "LRB-USER: bench module"
	insmod /lib/lrb_bench.ko run=1 reps=3 batches=10 loops=10000 mark_loops=1000
	echo "LRB-USER: bench insmod exit $?"
	rmmod lrb_bench
	echo "LRB-USER: bench rmmod exit $?"
	grep -q '^lrb_bench ' /proc/modules && echo "LRB-USER: bench still loaded"
	[ -d /sys/kernel/tracing/instances/lrb_bench ] && echo "LRB-USER: bench instance left"
fi

# dump_instance INSTANCE DIR: an ftrace instance's ring buffers (raw
# pages, per CPU), page and event headers and the formats of its events.
dump_instance() {
	mkdir -p $2/events
	cp $T/events/header_page $T/events/header_event $2/
	for c in $(seq 0 $(($(nproc) - 1))); do
		timeout 3 cat $1/per_cpu/cpu$c/trace_pipe_raw > $2/cpu$c.raw
	done
	for f in $1/events/*/*/format; do
		d=${f#$1/events/}
		d=$2/events/${d%/format}
		mkdir -p $d && cp $f $d/
	done
}

# settle CMD...: CMD, then a pause before the recording stops. A task's
# parent reaps it as soon as exit_notify() wakes it, which is before the
# task's last context switch (do_task_dead()): a recording stopped as
# soon as the workload is reaped may miss that sched_switch, which the
# ftrace instances, still on, record.
cat > /tmp/settle <<'W'
#!/bin/sh
"$@"
s=$?
sleep 0.2
exit $s
W
chmod +x /tmp/settle

# ftrace as the oracle: the same events recorded by an ftrace instance and
# by an LRB channel while a workload runs; the host compares them. A
# second channel, in the LTTng layout, records them too (its lrb-record
# runs the first), for the LTTng analyses, checked against ftrace's.
T=/sys/kernel/tracing
O=$T/instances/oracle
mkdir $O
echo 16384 > $O/buffer_size_kb
for s in sched irq timer signal syscalls raw_syscalls kmem/mm_page_alloc kmem/mm_page_free block; do
	echo 1 > $O/events/$s/enable
done
cat > /tmp/oracle-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/root_pid
echo go > /tmp/oracle-bg
# The statedump again, on demand, into the LTTng-layout channel.
echo 1 > /sys/kernel/tracing/lrb/oracle_lttng/statedump
for i in 1 2 3 4 5 6; do
	ls -l /bin > /dev/null
	echo "pipe $i" | cat | wc -c > /dev/null
	sleep 0.02
done
sh -c 'trap "" USR1; kill -USR1 $$; kill -0 $$' 
# A niced thread: its priorities differ from the default's.
sh -c 'renice 5 -p $$ > /dev/null; i=0; while [ $i -lt 200 ]; do i=$((i + 1)); done'
taskset -c 1 sh -c 'i=0; while [ $i -lt 300 ]; do i=$((i + 1)); done; cat /proc/self/stat > /dev/null' &
taskset -c 0 dd if=/dev/zero of=/tmp/oracle-file bs=4k count=64 2>/dev/null
# Hard interrupts: I/O on the 9p share's virtio device.
dd if=/dev/zero of=/host/.oracle-io bs=4k count=16 2>/dev/null
cat /host/.oracle-io > /dev/null
rm -f /host/.oracle-io
# Block I/O: a loop device over a file in /tmp, written and read around
# the page cache, then through it and synced.
dd if=/dev/zero of=/tmp/oracle-disk bs=64k count=16 2>/dev/null
losetup /dev/loop0 /tmp/oracle-disk
dd if=/dev/zero of=/dev/loop0 bs=4k count=8 oflag=direct 2>/dev/null
dd if=/dev/loop0 of=/dev/null bs=4k count=8 iflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/loop0 bs=4k count=16 seek=8 conv=fsync 2>/dev/null
losetup -d /dev/loop0
rm -f /tmp/oracle-disk
wait
rm -f /tmp/oracle-file
W
chmod +x /tmp/oracle-workload.sh
# A process that runs from before the recording to after it: the LTTng
# analyses know its process id from the statedump alone. It waits in
# open() on a FIFO until the workload opens it, so its first system call
# to return does so after the statedump: lttng-syscallstats takes a
# thread's process id at its first return and never again, so one on
# another CPU during the statedump's walk would show the id as unknown
# (a race LTTng's own statedump has as well).
mkfifo /tmp/oracle-bg
sh -c 'read x < /tmp/oracle-bg; while [ ! -e /tmp/oracle-stop ]; do sleep 0.05; done' &
echo $! > /tmp/bg_pid
echo "LRB-USER: record oracle"
mkdir -p /tmp/oracle
lrb-record -q --layout lttng -o /tmp/oracle/lttng -B oracle_lttng --subbuf-size 1M --num-subbufs 16 \
	-e sched -e irq -e timer -e syscalls -e kmem:mm_page_alloc -e kmem:mm_page_free \
	-e block -e 'lttng_statedump_*' -e irq_vectors:local_timer_entry -- \
lrb-record -q -o /tmp/trace-oracle -B oracle --common-fields --subbuf-size 1M --num-subbufs 16 \
	-e sched -e irq -e timer -e signal -e syscalls -e raw_syscalls \
	-e kmem:mm_page_alloc -e kmem:mm_page_free -e block \
	-- /tmp/settle /tmp/oracle-workload.sh
echo "LRB-USER: record oracle exit $?"
echo 0 > $O/tracing_on
touch /tmp/oracle-stop
wait "$(cat /tmp/bg_pid)"
cp /tmp/root_pid /tmp/bg_pid /tmp/oracle/
cat /proc/interrupts > /tmp/oracle/interrupts
for b in /sys/class/block/*; do
	p=disk
	[ -e $b/partition ] && p=partition
	echo "${b##*/} $(cat $b/dev) $(cat $b/size) $p"
done > /tmp/oracle/blockdevs
dump_instance $O /tmp/oracle/ftrace
mv /tmp/trace-oracle /tmp/oracle/lrb
echo "LRB-USER: oracle dumped"

# Filters, against ftrace's: the same filters set in an ftrace instance
# and, through lrb-record -f, in an LRB channel, over one workload; a
# second ftrace instance records the same events unfiltered, so that the
# host can check what each filter kept and dropped (oracle.py filter).
# Each line: SELECTOR (an event, or a system: a subsystem filter), a tab,
# the expression.
echo "LRB-USER: record filter"
D=/tmp/ofilter
mkdir -p $D
printf '%s\t%s\n' \
	'sched:sched_switch' 'prev_state != 0' \
	'sched:sched_process_exec' 'filename ~ "*.sh"' \
	'syscalls:sys_enter_openat' 'flags & 0x40' \
	'signal' 'sig == 10' \
	'raw_syscalls:sys_enter' 'common_pid & 1' > $D/filters
F=$T/instances/ofilter
A=$T/instances/onofilter
mkdir $F $A
set --
for i in $F $A; do
	echo 4096 > $i/buffer_size_kb
	for s in sched/sched_process_fork sched/sched_switch sched/sched_process_exec \
		syscalls/sys_enter_openat signal raw_syscalls/sys_enter; do
		echo 1 > $i/events/$s/enable
	done
done
while IFS="$(printf '\t')" read -r sel expr; do
	echo "$expr" > $F/events/$(echo "$sel" | tr : /)/filter
	set -- "$@" -e "$sel" -f "$expr"
done < $D/filters
cat > /tmp/filter-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/ofilter/root_pid
# Two loops on one CPU: preempted, they switch out running (prev_state 0).
for i in 1 2; do
	taskset -c 0 sh -c 'i=0; while [ $i -lt 3000 ]; do i=$((i + 1)); done' &
done
wait
for i in 1 2 3 4; do
	ls / > /dev/null
	cat /proc/self/stat > /dev/null
	sleep 0.02
done
sh -c 'trap "" USR1; kill -USR1 $$; kill -0 $$'
dd if=/dev/zero of=/tmp/ofilter-file bs=4k count=4 2>/dev/null
rm -f /tmp/ofilter-file
W
chmod +x /tmp/filter-workload.sh
lrb-record -q -o $D/lrb -B ofilter --common-fields -e sched:sched_process_fork "$@" -- /tmp/settle /tmp/filter-workload.sh
echo "LRB-USER: record filter exit $?"
echo 0 > $F/tracing_on
echo 0 > $A/tracing_on
dump_instance $F $D/ftrace
dump_instance $A $D/ftrace-all
cat $F/events/*/*/filter $F/events/*/filter > $D/ftrace-filters
echo "LRB-USER: filter dumped"

# Targets, against ftrace's: lrb-record --follow, and an ftrace instance
# with set_event_pid (the wrapper that runs lrb-record) and
# options/event-fork, over one workload; a background task makes system
# calls meanwhile, which an untargeted instance records and neither
# targeted tracer may (oracle.py target).
echo "LRB-USER: record target"
D=/tmp/otarget
mkdir -p $D
P=$T/instances/otarget
N=$T/instances/onotarget
mkdir $P $N
# Nothing until the wrapper below adds its own pid. It adds it (>>): an
# open with O_TRUNC clears ftrace's list, and until the write after it,
# which may be a grace period later, ftrace records every task.
echo 1 > $P/options/event-fork
echo 4194303 > $P/set_event_pid
for i in $P $N; do
	echo 4096 > $i/buffer_size_kb
	for s in sched/sched_process_fork sched/sched_process_exec \
		sched/sched_process_exit raw_syscalls signal; do
		echo 1 > $i/events/$s/enable
	done
done
cat > /tmp/target-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/otarget/root_pid
for i in 1 2 3; do
	ls / > /dev/null
	sh -c 'cat /proc/self/stat > /dev/null'
	sleep 0.02
done
sh -c 'trap "" USR1; kill -USR1 $$; kill -0 $$'
W
chmod +x /tmp/target-workload.sh
sh -c 'while [ ! -e /tmp/otarget-stop ]; do cat /proc/self/stat > /dev/null; done' &
echo $! > $D/bg_pid
sh -c "echo \$\$ >> $P/set_event_pid; exec lrb-record -q -o $D/lrb -B otarget --common-fields --follow \
	-e sched:sched_process_fork -e sched:sched_process_exec -e sched:sched_process_exit \
	-e raw_syscalls -e signal -- /tmp/target-workload.sh"
echo "LRB-USER: record target exit $?"
touch /tmp/otarget-stop
wait "$(cat $D/bg_pid)"
echo 0 > $P/tracing_on
echo 0 > $N/tracing_on
dump_instance $P $D/ftrace
dump_instance $N $D/ftrace-all
echo "LRB-USER: target dumped"

# Kernel stacks, against ftrace's: kmem:kmalloc recorded by lrb-record
# --stack and by an ftrace instance with the stacktrace trigger over one
# workload; the host pairs each record with its stack on both sides and
# compares the addresses (oracle.py stack).
echo "LRB-USER: record stack"
D=/tmp/ostack
mkdir -p $D
K=$T/instances/ostack
mkdir $K
echo 4096 > $K/buffer_size_kb
echo 1 > $K/events/sched/sched_process_fork/enable
echo 1 > $K/events/kmem/kmalloc/enable
echo stacktrace > $K/events/kmem/kmalloc/trigger
cat > /tmp/stack-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/ostack/root_pid
for i in 1 2 3 4 5 6; do
	ls -l / > /dev/null
	cat /proc/self/stat > /dev/null
	sleep 0.02
done
W
chmod +x /tmp/stack-workload.sh
lrb-record -q -o $D/lrb -B ostack --common-fields -e sched:sched_process_fork -e kmem:kmalloc --stack=16 \
	-- /tmp/settle /tmp/stack-workload.sh
echo "LRB-USER: record stack exit $?"
echo 0 > $K/tracing_on
dump_instance $K $D/ftrace
echo "LRB-USER: stack dumped"

# Dynamic events, against ftrace's: kprobes with integer, string and hex
# fetch arguments, a kretprobe, a uprobe on busybox's entry point, an
# fprobe on a function's entry and one on its return, an eprobe on
# sched_process_fork and a synthetic event that histogram
# triggers generate from the kprobe and the kretprobe (its string's
# location, in a u64 slot, before a 4-byte field, and its last field
# shorter than its slot), created in dynamic_events, enabled in
# an ftrace instance and recorded by lrb-record -e kprobes -e uprobes
# -e fprobes -e eprobes -e synthetic over one workload (oracle.py compare). The
# uprobe's offset in the file is its entry point's, from the ELF header
# and the first PT_LOAD.
echo "LRB-USER: record dynamic"
D=/tmp/odyn
mkdir -p $D
elf_u() { od -An -t "u$1" -j "$3" -N "$1" "$2" | tr -d ' '; }
B=/bin/busybox
entry=$(elf_u 8 $B 24) phoff=$(elf_u 8 $B 32) i=0
while [ "$(elf_u 4 $B $((phoff + i * 56)))" != 1 ] && [ $i -lt 32 ]; do i=$((i + 1)); done
uoff=$((entry - $(elf_u 8 $B $((phoff + i * 56 + 16))) + $(elf_u 8 $B $((phoff + i * 56 + 8)))))
printf '%s\n' \
	'p:kprobes/dyn_open do_sys_openat2 dfd=%di:s32 filename=+0(%si):ustring flags=+0(%dx):x64' \
	'r:kprobes/dyn_open_ret do_sys_openat2 ret=$retval:s64' \
	'p:kprobes/dyn_read ksys_read count=%dx:u64 comm=$comm' \
	"p:uprobes/dyn_bb_start $B:$(printf 0x%x $uoff) argc=+0(%sp):u64" \
	'f:fprobes/dyn_fread ksys_read fd=$arg1:u32 count=$arg3:u64' \
	'f:fprobes/dyn_fread_ret ksys_read%return ret=$retval:s64' \
	'e:eprobes/dyn_fork sched/sched_process_fork parent=$parent_pid:s32 child=$child_pid:s32 comm=$child_comm:string' \
	's:synthetic/dyn_open_lat int pid; char name[]; s32 dfd; s64 ret; u64 lat; s32 dfd2' > $D/probes
while read -r l; do
	echo "$l" >> $T/dynamic_events || echo "LRB-USER: dynamic: cannot create $l"
done < $D/probes
H1='hist:keys=common_pid:ts0=common_timestamp.usecs:fn=filename:d=dfd:e=dfd'
H2='hist:keys=common_pid:lat=common_timestamp.usecs-$ts0:onmatch(kprobes.dyn_open).trace(dyn_open_lat,common_pid,$fn,$d,ret,$lat,$e)'
echo "$H1" >> $T/events/kprobes/dyn_open/trigger || echo "LRB-USER: dynamic: cannot create $H1"
echo "$H2" >> $T/events/kprobes/dyn_open_ret/trigger || echo "LRB-USER: dynamic: cannot create $H2"
Y=$T/instances/odyn
mkdir $Y
echo 4096 > $Y/buffer_size_kb
for s in sched/sched_process_fork kprobes uprobes fprobes eprobes synthetic; do
	echo 1 > $Y/events/$s/enable
done
# A kprobe runs from its breakpoint, in NMI context (which LRB_SYNC_IRQOFF
# refuses), until the kernel optimizes it into a jump: a few jiffies.
sleep 1
cat > /tmp/dyn-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/odyn/root_pid
for i in 1 2 3 4 5 6 7 8; do
	cat /proc/self/stat > /dev/null
	ls / > /dev/null
	head -c 100 /dev/zero > /dev/null
done
W
chmod +x /tmp/dyn-workload.sh
lrb-record -q -o $D/lrb -B odyn --common-fields -e sched:sched_process_fork -e kprobes -e uprobes \
	-e fprobes -e eprobes -e synthetic -- /tmp/settle /tmp/dyn-workload.sh
echo "LRB-USER: record dynamic exit $?"
echo 0 > $Y/tracing_on
dump_instance $Y $D/ftrace
for s in sched/sched_process_fork kprobes uprobes fprobes eprobes synthetic; do
	echo 0 > $Y/events/$s/enable
done
rmdir $Y
echo "!$H2" >> $T/events/kprobes/dyn_open_ret/trigger || echo "LRB-USER: dynamic: cannot remove $H2"
echo "!$H1" >> $T/events/kprobes/dyn_open/trigger || echo "LRB-USER: dynamic: cannot remove $H1"
# An event that a channel records cannot be removed (EBUSY); one created
# while a channel whose selectors match it runs is recorded.
# The write error is printed after the status (busybox: "sh: write
# error: Device or resource busy"): the error, not only its failure.
lrb-record -q -o $D/late -B odyn_late -e kprobes -e uprobes -e fprobes -e eprobes -e synthetic -- sh -c '
	rm_dyn() {
		e=$( { echo "$2" >> /sys/kernel/tracing/dynamic_events; } 2>&1 )
		echo "LRB-USER: dynamic $1 while recorded exit $? (${e##*: })"
	}
	rm_dyn remove "-:kprobes/dyn_open"
	rm_dyn "remove uprobe" "-:uprobes/dyn_bb_start"
	rm_dyn "remove fprobe" "-:fprobes/dyn_fread"
	rm_dyn "remove eprobe" "-:eprobes/dyn_fork"
	rm_dyn "remove synthetic" "!s:synthetic/dyn_open_lat"
	echo "p:kprobes/dyn_late vfs_write count=%dx:u64" >> /sys/kernel/tracing/dynamic_events
	echo "LRB-USER: dynamic create while recording exit $?"
	sleep 0.3
	for i in 1 2 3 4 5; do echo x > /dev/null; done'
echo "LRB-USER: record dynamic late exit $?"
for e in kprobes/dyn_open kprobes/dyn_open_ret kprobes/dyn_read kprobes/dyn_late \
	uprobes/dyn_bb_start fprobes/dyn_fread fprobes/dyn_fread_ret \
	eprobes/dyn_fork synthetic/dyn_open_lat; do
	echo "-:$e" >> $T/dynamic_events || echo "LRB-USER: dynamic: cannot remove $e"
done
# lrb-record's own probes: made for the recording, gone after it.
lrb-record -q -o $D/opts -B odyn_opts --kprobe 'p:kprobes/opt_open do_sys_openat2 dfd=%di:s32' \
	--probe vfs_write --function do_sys_openat2 -- sh -c 'sleep 0.3; echo x > /dev/null; cat /proc/self/stat > /dev/null'
echo "LRB-USER: dynamic lrb-record probes exit $?"
echo "LRB-USER: dynamic events left: $(grep -c . $T/dynamic_events)"
# A kprobe's kernel stack starts in the probed function, taken from the
# hit's registers as ftrace takes it: no frame of the kprobe machinery.
# (After the kprobe optimizer's delay: with LRB_SYNC_IRQOFF a hit taken
# from the breakpoint, NMI context, is counted lost_nmi.)
echo 'p:kprobes/kstack_open do_sys_openat2' >> $T/dynamic_events
sleep 0.5
lrb-record -q -o $D/kstack -B odyn_kstack -e kprobes:kstack_open --stack=4 \
	-- sh -c 'for i in 1 2 3 4 5; do cat /proc/self/stat; done' >/dev/null
echo "LRB-USER: dynamic kprobe stack exit $?"
echo '-:kprobes/kstack_open' >> $T/dynamic_events
lrb-record -q -o $D/bad -B odyn_bad --kprobe 'p:kprobes/bad no_such_symbol_xyz' -- true
echo "LRB-USER: dynamic bad kprobe exit $?"
lrb-record -q -o $D/bad2 -B odyn_bad --uprobe 'p:uprobes/bad /no/such/file:0x10' -- true
echo "LRB-USER: dynamic bad uprobe exit $?"
# 100 kprobes created while a kprobes:* channel runs, each recorded, then
# disabled in the channel and removed, on functions the workload calls;
# and one on a function kprobes refuse, created and failing while the
# channel takes it (its event comes and goes with the channel running).
# The trace's counts are checked as the other traces' are.
lrb-record -q -o /tmp/trace-dynchurn -B dynchurn -e 'kprobes:*' -- sh -c '
	E=/sys/kernel/tracing/dynamic_events C=/sys/kernel/tracing/lrb/dynchurn/events
	i=0 bad=0
	for f in ksys_read ksys_write do_sys_openat2 kernel_clone getname_flags; do
		echo $f; echo $f; echo $f; echo $f; echo $f
		echo $f; echo $f; echo $f; echo $f; echo $f
		echo $f; echo $f; echo $f; echo $f; echo $f
		echo $f; echo $f; echo $f; echo $f; echo $f
	done > /tmp/churn-funcs
	while read -r f; do
		i=$((i + 1))
		echo "p:kprobes/churn_$i $f" >> $E || bad=$((bad + 1))
		cat /proc/self/stat > /dev/null
		# Optimized by now: hit from the jump too (LRB_SYNC_IRQOFF
		# counts the hits from the breakpoint as lost_nmi).
		sleep 0.05
		cat /proc/self/stat > /dev/null
		echo "disable kprobes:churn_$i" > $C || bad=$((bad + 1))
		echo "-:kprobes/churn_$i" >> $E || bad=$((bad + 1))
	done < /tmp/churn-funcs
	echo "LRB-USER: dynamic churn $i probes, $bad failures"
	echo "p:kprobes/churn_nmi exc_nmi" >> $E 2>/dev/null
	echo "LRB-USER: dynamic churn kprobe on exc_nmi exit $?"'
echo "LRB-USER: record dynamic churn exit $?"
echo "LRB-USER: dynamic churn events left: $(grep -c . $T/dynamic_events)"
echo "LRB-USER: dynamic dumped"

# The function tracer, against ftrace's: lrb-record --function-tracer -l
# 'vfs_*' and an ftrace instance with the function tracer and the same
# set_ftrace_filter, and lrb-record --graph beside an instance with
# function_graph, all four on during one workload, each with
# sched_process_fork for the workload's processes (oracle.py compare:
# the same functions, callers, depths and call and return times). Then a
# glob that matches nothing, a module's functions (:mod:), and the whole
# kernel, unfiltered, for 2 s: what the consumer does not drain is
# counted as lost.
echo "LRB-USER: record function"
for g in ofn ofg; do
	mkdir -p /tmp/$g
	Y=$T/instances/$g
	mkdir $Y
	echo 8192 > $Y/buffer_size_kb
	echo 'vfs_*' > $Y/set_ftrace_filter
	echo 1 > $Y/events/sched/sched_process_fork/enable
done
echo function > $T/instances/ofn/current_tracer
echo function_graph > $T/instances/ofg/current_tracer
cat > /tmp/fn-workload.sh <<'W'
#!/bin/sh
echo $$ > /tmp/ofn/root_pid
echo $$ > /tmp/ofg/root_pid
for i in 1 2 3 4; do
	cat /proc/self/stat > /dev/null
	ls / > /dev/null
	echo x > /tmp/fn-file
	cat /tmp/fn-file > /dev/null
done
rm -f /tmp/fn-file
W
chmod +x /tmp/fn-workload.sh
lrb-record -q -o /tmp/ofn/lrb -B ofn --common-fields -b 8M -e sched:sched_process_fork -l 'vfs_*' -- \
	lrb-record -q -o /tmp/ofg/lrb -B ofg --common-fields -b 8M -e sched:sched_process_fork --graph -l 'vfs_*' -- \
	/tmp/settle /tmp/fn-workload.sh
echo "LRB-USER: record function exit $?"
# Both off before either is dumped: the dump's own processes call vfs_*.
echo 0 > $T/instances/ofn/tracing_on
echo 0 > $T/instances/ofg/tracing_on
for g in ofn ofg; do
	Y=$T/instances/$g
	dump_instance $Y /tmp/$g/ftrace
	echo nop > $Y/current_tracer
	echo 0 > $Y/events/sched/sched_process_fork/enable
	rmdir $Y
done
lrb-record -q -o /tmp/ofn/none -B ofn_none -l 'no_such_function_xyz*' -- true 2> /tmp/ofn/none.err
echo "LRB-USER: function glob of nothing exit $? $(cat /tmp/ofn/none.err)"
if [ -f /lib/lrb_sample.ko ] && insmod /lib/lrb_sample.ko; then
	echo "create fnmod" > $T/lrb/control
	echo '*:mod:lrb_sample' > $T/lrb/fnmod/set_ftrace_filter
	echo "LRB-USER: function mod exit $? $(grep -c 'lrb_sample' $T/lrb/fnmod/set_ftrace_filter)"
	echo "remove fnmod" > $T/lrb/control
	rmmod lrb_sample
fi
# A filter changed while a channel records the function tracer and the
# graph at once: the graph takes the new filter, as the function tracer
# does (annotations mark the change).
lrb-record -q -o /tmp/ofn/change -B fnchange --common-fields -l 'vfs_*' --function-tracer \
	-e ftrace:funcgraph_entry -- sh -c '
	A=/sys/kernel/tracing/lrb/fnchange
	cat /proc/self/stat > /dev/null
	echo before > $A/annotate
	echo "ksys_*" > $A/set_ftrace_filter
	echo after > $A/annotate
	for i in 1 2 3; do cat /proc/self/stat > /dev/null; done'
echo "LRB-USER: function filter change exit $?"
# A glob of nothing written with ">" leaves the filter as it was (and the
# file installs nothing when closed): not an empty filter, which would
# trace every function.
if echo "create fnbad" > $T/lrb/control; then
	echo vfs_read > $T/lrb/fnbad/set_ftrace_filter
	echo nosuch_function_zz > $T/lrb/fnbad/set_ftrace_filter
	r=$?
	echo "LRB-USER: function bad filter exit $r kept $(tr '\n' ' ' < $T/lrb/fnbad/set_ftrace_filter)"
	echo "remove fnbad" > $T/lrb/control
fi
lrb-record -q -o /tmp/trace-fnall -B fnall --subbuf-size 64k --num-subbufs 8 --function-tracer --duration 2
echo "LRB-USER: record function all exit $?"
echo "LRB-USER: function dumped"

# Graph links, an fprobe and a function-tracer channel made, changed and
# removed in a loop while they fire, under make sanitize's lockdep,
# KASAN and KCSAN too: the waits of lrb.rst's rule for writers where RCU
# is not watching (a graph link stopped while the other runs, the last
# one stopped, the graph registered again by a filter change, the
# channel's function tracer freed).
echo "LRB-USER: function churn"
(while [ ! -e /tmp/fnchurn-stop ]; do cat /proc/self/stat > /dev/null; ls / > /dev/null; done) &
busy=$!
i=0 bad=0
while [ $i -lt 10 ]; do
	C=$T/lrb/fnchurn
	{ echo "create fnchurn" > $T/lrb/control &&
	  echo 'vfs_*' > $C/set_ftrace_filter &&
	  echo 'f:fprobes/fnchurn_read vfs_read' >> $T/dynamic_events &&
	  echo 'enable ftrace:function' > $C/events &&
	  echo 'enable ftrace:funcgraph_entry' > $C/events &&
	  echo 'enable ftrace:funcgraph_exit' > $C/events &&
	  echo 'enable fprobes:fnchurn_read' > $C/events &&
	  echo 1 > $C/enable && sleep 0.1 &&
	  echo 'disable ftrace:funcgraph_exit' > $C/events &&
	  echo 'ksys_* vfs_read' > $C/set_ftrace_filter && sleep 0.1 &&
	  echo 'disable ftrace:funcgraph_entry' > $C/events &&
	  echo 0 > $C/enable &&
	  echo '-:fprobes/fnchurn_read' >> $T/dynamic_events &&
	  echo "remove fnchurn" > $T/lrb/control; } || bad=$((bad + 1))
	i=$((i + 1))
done
touch /tmp/fnchurn-stop
wait $busy
echo "LRB-USER: function churn $i rounds, $bad failures, channels left $(grep -c fnchurn $T/lrb/control), probes left $(grep -c fnchurn $T/dynamic_events)"

# Coverage: every event at once.
echo "LRB-USER: record all"
mkdir -p /tmp/all
lrb-record -q -o /tmp/all/lrb -B all -b 8M -e all -- sh -c '
	ls -l / > /dev/null; echo x | cat > /dev/null; sleep 0.05
	echo "p:kprobes/all_late do_sys_openat2" >> /sys/kernel/tracing/dynamic_events
	sleep 0.3; ls / > /dev/null'
echo "LRB-USER: record all exit $?"
echo "-:kprobes/all_late" >> $T/dynamic_events
cp $T/available_events /tmp/all/

# Flight recorder: an overwrite channel that nobody consumes, writers on
# every CPU, ten snapshots taken while they write, one more at the end.
echo "LRB-USER: flight"
mkdir -p /tmp/flight
lrb-record -q --flight-recorder -B flight --subbuf-size 4k --num-subbufs 8 -e irq -e timer -e sched \
	-o /tmp/flight/final -- sh -c '
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		taskset -c $cpu sh -c "i=0; while [ ! -e /tmp/flight/stop ]; do echo \"fr $cpu \$i\" > /sys/kernel/tracing/lrb/flight/annotate; i=\$((i + 1)); done" &
	done
	n=0
	while [ $n -lt 10 ]; do
		sleep 0.1
		lrb-record snapshot -q -B flight -o /tmp/flight/snap$n || break
		n=$((n + 1))
	done
	touch /tmp/flight/stop
	wait
	echo "LRB-USER: flight snapshots $n"'
echo "LRB-USER: flight exit $?"
lrb-record snapshot -B flight -o /tmp/flight/gone
echo "LRB-USER: snapshot of no channel exit $?"
echo "create disc" > /sys/kernel/tracing/lrb/control
lrb-record snapshot -B disc -o /tmp/flight/discard
echo "LRB-USER: snapshot of a discard channel exit $?"
# An on-demand statedump: refused while the channel is disabled, for a
# value other than 1, and for a channel without statedump events.
sd=/sys/kernel/tracing/lrb/disc/statedump
echo "LRB-USER: statedump disabled: $( (echo 1 > $sd) 2>&1)"
echo 1 > /sys/kernel/tracing/lrb/disc/enable
echo "LRB-USER: statedump of 2: $( (echo 2 > $sd) 2>&1)"
echo "LRB-USER: statedump without its events: $( (echo 1 > $sd) 2>&1)"
echo 0 > /sys/kernel/tracing/lrb/disc/enable
echo "remove disc" > /sys/kernel/tracing/lrb/control

# Switch timer: how long a lone record on CPU 1 takes to reach
# lrb-record's stream file, with a 100 ms timer and without one.
echo "LRB-USER: timer"
mkdir -p /tmp/timer
for t in 100000 0; do
	lrb-record -q -e none --switch-timer $t -o /tmp/timer/t$t -B timer -- sh -c "
		sleep 0.3
		t0=\$(cut -d' ' -f1 /proc/uptime)
		taskset -c 1 sh -c 'echo lone > /sys/kernel/tracing/lrb/timer/annotate'
		i=0
		while [ ! -s /tmp/timer/t$t/stream_1 ] && [ \$i -lt 50 ]; do
			sleep 0.01
			i=\$((i + 1))
		done
		t1=\$(cut -d' ' -f1 /proc/uptime)
		echo \"LRB-USER: timer $t latency \$t0 \$t1 size \$(wc -c < /tmp/timer/t$t/stream_1)\""
	echo "LRB-USER: timer $t exit $?"
done
lrb-record -q --switch-timer 50 -o /tmp/timer/bad -B timer -- true
echo "LRB-USER: timer bad exit $?"

echo "LRB-USER: report"
lrb-record report /tmp/trace-workload
echo "LRB-USER: report exit $?"

# What a trace-cmd or perf user tries first.
L=/sys/kernel/tracing/lrb
mkdir -p /tmp/tool
# No --event: the default set, and a notice that says so.
lrb-record -o /tmp/tool/default -- sh -c 'ls -l / > /dev/null; sleep 0.2' 2> /tmp/tool/default.err
echo "LRB-USER: default events exit $?"
# The command's exit status passes through; a stop by --duration is 0.
lrb-record -q -e none -o /tmp/tool/exit3 -- sh -c 'exit 3'
echo "LRB-USER: command exit 3 gives $?"
lrb-record -q -e none -o /tmp/tool/killed9 -- sh -c 'kill -9 $$'
echo "LRB-USER: command killed by 9 gives $?"
lrb-record -q -e none -o /tmp/tool/duration --duration 0.3 -- sleep 5
echo "LRB-USER: duration stop gives $?"
# COMMAND inherits no file of the recorder.
lrb-record -q -e none -o /tmp/tool/fds -- sh -c 'ls -l /proc/$$/fd/' > /tmp/tool/fds.txt
echo "LRB-USER: command fds exit $?"
# An existing directory is not reused without --force.
lrb-record -q -e none -o /tmp/tool/exit3 -- true 2> /tmp/tool/exists.err
echo "LRB-USER: existing dir gives $?"
lrb-record -q -e none --force -o /tmp/tool/exit3 -- true
echo "LRB-USER: existing dir with --force gives $?"
# kill -9 of a recording leaves its channel; reset and the next recording
# remove it.
orphan() {
	lrb-record -q -e none -o /tmp/tool/orphan$1 $2 -- sleep 30 &
	op=$!
	i=0
	while ! grep -q "^${3:-lrb-record-$op}\$" $L/control && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -9 $op
	wait $op 2>/dev/null
}
orphan 1
echo "LRB-USER: orphan 1 listed $(grep -c "^lrb-record-$op\$" $L/control)"
lrb-record list channels > /tmp/tool/channels.txt
grep -q "lrb-record-$op:.*orphaned" /tmp/tool/channels.txt && echo "LRB-USER: list shows the orphan"
lrb-record reset 2> /tmp/tool/reset.err
echo "LRB-USER: reset exit $? orphan listed $(grep -c "^lrb-record-$op\$" $L/control)"
orphan 2
lrb-record -e none -o /tmp/tool/after -- true 2> /tmp/tool/after.err
echo "LRB-USER: record after a kill exit $? orphan listed $(grep -c "^lrb-record-$op\$" $L/control)"
grep -q "removed channel lrb-record-$op, left by a recording that was killed" /tmp/tool/after.err &&
	echo "LRB-USER: record said it removed the orphan"
orphan 3 "-B named" named
lrb-record -q -e none -B named -o /tmp/tool/named -- true 2> /tmp/tool/named.err
echo "LRB-USER: named channel left by a kill gives $?"
lrb-record reset named 2> /dev/null
echo "LRB-USER: reset named exit $?"
lrb-record -q -e none -B named -o /tmp/tool/named -- true
echo "LRB-USER: named channel after reset gives $?"
lrb-record reset no_such_channel 2> /tmp/tool/reset-bad.err
echo "LRB-USER: reset of no channel exit $?"
lrb-record list events > /tmp/tool/events.txt
echo "LRB-USER: list events exit $?"
# Stream files read with any buffer: cat takes packets in pieces.
echo "create catter" > $L/control
echo 1048576 > $L/catter/subbuf_size
echo 4 > $L/catter/num_subbufs
echo 1 > $L/catter/enable
for cpu in $(seq 0 $(($(nproc) - 1))); do
	i=0
	while [ $i -lt 50 ]; do
		taskset -c $cpu sh -c "echo cat $cpu $i > $L/catter/annotate"
		i=$((i + 1))
	done
done
echo 0 > $L/catter/enable
mkdir -p /tmp/tool/cat
for cpu in $(seq 0 $(($(nproc) - 1))); do
	cat $L/catter/streams/cpu$cpu > /tmp/tool/cat/stream_$cpu
	echo "LRB-USER: cat cpu$cpu exit $? bytes $(wc -c < /tmp/tool/cat/stream_$cpu)"
done
cp $L/catter/metadata /tmp/tool/cat/
echo "remove catter" > $L/control

echo "LRB-USER: errors"
lrb-record -q -o /proc/no-such-dir -B err -- true
echo "LRB-USER: bad dir exit $?"
umount /sys/kernel/tracing
lrb-record -q -o /tmp/t2 -B err -- true
echo "LRB-USER: no tracefs exit $?"
mount -t tracefs nodev /sys/kernel/tracing

# One compressed archive, which the host unpacks into the share
# (usertest.sh): about 140 MB of traces written file by file through 9p
# took the KASAN kernel of make sanitize more than half an hour under
# TCG, past its boot timeout; gzip runs in user space, uninstrumented.
dirs=
for d in trace-workload trace-losses trace-torture trace-probes oracle ofilter otarget ostack odyn trace-dynchurn all \
	ofn ofg trace-fnall snaps flight timer tool; do
	[ -e "/tmp/$d" ] && dirs="$dirs $d"
done
# shellcheck disable=SC2086
tar -C /tmp -cf - $dirs | gzip -1 > /host/traces.tar.gz && echo "LRB-USER: copied"
sync
echo "LRB-USER: done"

# A non-fatal oops first (LKDTM's BUG, panic_on_oops off for it): the
# channel "bug", armed and recording kmem:kmalloc and the sample module's
# events, is dumped, pointers hashed, and disarmed; armed again, it is
# dumped once more at the panic. The sample module is loaded and
# unloaded meanwhile: its events register and retire while the dump
# walks the registry (make sanitize: under KASAN).
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
B=/sys/kernel/tracing/lrb/bug
if [ -w /sys/kernel/debug/provoke-crash/DIRECT ] &&
   echo "create bug" > /sys/kernel/tracing/lrb/control; then
	echo 1 > $B/dump_on_oops
	echo "enable kmem:kmalloc" > $B/events
	echo "enable lrb_sample*" > $B/events
	echo "enable lrb_sample:*" > $B/events
	echo 1 > $B/enable
	ls -R /proc/self > /dev/null
	echo "LRB-USER: bug" > /dev/kmsg
	if echo 0 > /proc/sys/kernel/panic_on_oops; then
		(i=0; while [ $i -lt 40 ] && [ -f /lib/lrb_sample.ko ]; do
			insmod /lib/lrb_sample.ko burst=5 && rmmod lrb_sample
			i=$((i + 1))
		done) 2>/dev/null &
		sleep 1
		sh -c 'echo BUG > /sys/kernel/debug/provoke-crash/DIRECT' 2>/dev/null
		wait
		echo 1 > /proc/sys/kernel/panic_on_oops
	fi
	echo "LRB-USER: bug disarmed $(cat $B/dump_on_oops)" > /dev/kmsg
	echo 1 > $B/dump_on_oops
	echo "LRB-USER: bug armed again $(cat $B/dump_on_oops)" > /dev/kmsg
fi

# Dump on oops: a channel with dump_on_oops set, annotations "oops N"
# written in turn on each CPU and scheduler events with ftrace's common
# fields (the "bug" channel above has none), then a panic (sysrq
# c). The console shows the channel's last records; panic=-1 reboots and
# QEMU (-no-reboot) exits.
C=/sys/kernel/tracing/lrb/oops
if [ -w /proc/sysrq-trigger ] && echo "create oops" > /sys/kernel/tracing/lrb/control; then
	echo 1 > $C/dump_on_oops
	echo 1 > $C/common_fields
	echo "enable sched:sched_switch" > $C/events
	echo 1 > $C/enable
	i=0
	while [ $i -lt 100 ]; do
		taskset -c $((i % $(nproc))) sh -c "echo oops $i > $C/annotate"
		i=$((i + 1))
	done
	# An annotation that would forge lines of the crash log (a newline,
	# a line of the dump's own form, an escape sequence, a backslash):
	# the dump prints it escaped, on its own line.
	printf 'evil\nlrb oops: [    1.000000] cpu0 annotation: text="forged"\033[2J\\' > $C/annotate
	# Lockdown for confidentiality: no LRB file opens any more, as no
	# ftrace file does; the dump on oops still prints.
	S=/sys/kernel/security
	mount -t securityfs none $S 2>/dev/null
	if echo confidentiality > $S/lockdown; then
		n=0
		cat $C/stats > /dev/null 2>&1 || n=$((n + 1))
		cat /sys/kernel/tracing/lrb/control > /dev/null 2>&1 || n=$((n + 1))
		(exec 3< $C/streams/cpu0) 2>/dev/null || n=$((n + 1))
		echo 0 > $C/enable 2>/dev/null || n=$((n + 1))
		echo "lockdown" > $C/annotate 2>/dev/null || n=$((n + 1))
		f=0
		cat /sys/kernel/tracing/trace > /dev/null 2>&1 || f=1
		echo "LRB-USER: lockdown $(cat $S/lockdown): lrb refused $n of 5, ftrace refused $f" > /dev/kmsg
	fi
	# Through the kernel's log: a line still in the serial port's
	# buffer when the panic stops the machine would be lost.
	echo "LRB-USER: oops" > /dev/kmsg
	echo c > /proc/sysrq-trigger
fi
poweroff -f
