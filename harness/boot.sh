#!/bin/bash
# boot.sh ARCH VARIANT LOG: boot a built kernel, run what its initcalls and
# /init run, and write the console to LOG.  x86_64 boots under QEMU (KVM if
# it works, else TCG) with 2 CPUs and a busybox initramfs; UML boots on a
# hostfs root.  Exits non-zero on timeout.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
arch=$1 variant=$2 log=$3
out=${LRB_OUT:-$top/build/out}/$arch-$variant
timeout=${LRB_BOOT_TIMEOUT:-600}
cmdline=${LRB_CMDLINE:-}

# ask_stuck_guest SOCKET SECONDS: after SECONDS, type sysrq l, then w, on
# the keyboard of the QEMU whose monitor listens on SOCKET (one process,
# for the caller to kill when QEMU ends first).
ask_stuck_guest() {
	exec python3 - "$@" <<-'P'
	import socket, sys, time
	time.sleep(int(sys.argv[2]))
	s = socket.socket(socket.AF_UNIX)
	s.connect(sys.argv[1])
	for key in 'lw':
	    s.sendall(b'sendkey alt-sysrq-%s\n' % key.encode())
	    time.sleep(5)
	P
}

case $arch in
x86_64)
	# LRB_INITRD: another initramfs; LRB_SHARE: a host directory the
	# guest mounts with 9p (mount tag host0).
	initrd=${LRB_INITRD:-$top/build/initramfs.cpio.gz}
	[ -f "$initrd" ] || "$here/mkinitramfs.sh" "$initrd"
	share=()
	[ -n "${LRB_SHARE:-}" ] &&
		share=(-virtfs "local,path=$LRB_SHARE,mount_tag=host0,security_model=none")
	# LRB_TCG_THREAD=single: one host thread for all vCPUs.  The user-space
	# boots use it: they patch kernel text at run time (static keys,
	# tracepoints), and one boot in 7 under multi-threaded TCG died on an
	# int3 of text_poke_bp() hit after the patch had completed; with one
	# thread the vCPUs run serialized.
	accel=tcg,thread=${LRB_TCG_THREAD:-multi}
	# tsc=reliable: under TCG the emulated TSC drifts from the HPET when
	# the host is loaded, and the clocksource watchdog then marks it
	# unstable, which flips sched_clock's static key: kernel text patched
	# at run time, which multi-threaded TCG does not always survive (the
	# torture guest died without a word right after "sched_clock: Marking
	# unstable" in 4 of 9 torture boots on 6.12, and passed with it).
	# A guest still running 30 s before the timeout is stuck: sysrq l and
	# w on its keyboard (QEMU's monitor) print on its console where every
	# CPU is and what every blocked task waits for.
	mon=$(mktemp -u "${TMPDIR:-/tmp}/lrb-monitor.XXXXXX")
	ask_stuck_guest "$mon" $((timeout > 60 ? timeout - 30 : timeout / 2)) \
		</dev/null >/dev/null 2>&1 &
	asker=$!
	rc=0
	timeout "$timeout" qemu-system-x86_64 -accel "$accel" -smp "${LRB_SMP:-2}" -m 1024 \
		"${share[@]}" -monitor "unix:$mon,server,nowait" \
		-kernel "$out/arch/x86/boot/bzImage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic tsc=reliable $cmdline" \
		${LRB_QEMU_ARGS:-} -nographic -no-reboot </dev/null >"$log" 2>&1 || rc=$?
	kill "$asker" 2>/dev/null || true
	rm -f "$mon"
	exit "$rc"
	;;
i386)
	# KUnit only: a 32-bit /init without libc reports that the boot got
	# past the tests and reboots, which ends QEMU (-no-reboot).
	initrd=$top/build/initramfs-i386.cpio.gz
	"$here/mkinitramfs.sh" --tiny "$initrd" gcc -m32 -fno-pie -no-pie
	timeout "$timeout" qemu-system-i386 -accel tcg,thread=multi -smp "${LRB_SMP:-2}" -m 512 \
		-kernel "$out/arch/x86/boot/bzImage" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic $cmdline" \
		-nographic -no-reboot </dev/null >"$log" 2>&1
	;;
arm64)
	# KUnit only, as i386, on the virt machine with 4 CPUs.
	initrd=$top/build/initramfs-arm64.cpio.gz
	"$here/mkinitramfs.sh" --tiny "$initrd" aarch64-linux-gnu-gcc
	timeout "$timeout" qemu-system-aarch64 -M virt -cpu cortex-a57 -accel tcg,thread=multi \
		-smp "${LRB_SMP:-4}" -m 512 \
		-kernel "$out/arch/arm64/boot/Image" -initrd "$initrd" \
		-append "console=ttyAMA0 panic=-1 oops=panic $cmdline" \
		-nographic -no-reboot </dev/null >"$log" 2>&1
	;;
s390x)
	# KUnit only, as i386, on the big-endian guest: the s390-ccw-virtio
	# machine, whose console on stdio is the SCLP VT220 one (ttysclp0).
	# cmma=off: QEMU's TCG has no ESSA instruction (it says
	# "unimplemented opcode 0xb9ab" and the boot stops without a word).
	initrd=$top/build/initramfs-s390x.cpio.gz
	"$here/mkinitramfs.sh" --tiny "$initrd" s390x-linux-gnu-gcc
	timeout "$timeout" qemu-system-s390x -M s390-ccw-virtio -cpu qemu -accel tcg,thread=multi \
		-smp "${LRB_SMP:-2}" -m 512 \
		-kernel "$out/arch/s390/boot/bzImage" -initrd "$initrd" \
		-append "console=ttysclp0 cmma=off panic=-1 oops=panic $cmdline" \
		-nographic -no-reboot </dev/null >"$log" 2>&1
	;;
um)
	# LRB_UML_ROOT: a root made by "mkinitramfs.sh --dir" with an /init
	# of the caller's; by default the KUnit one.
	root=${LRB_UML_ROOT:-$top/build/umlroot}
	[ -n "${LRB_UML_ROOT:-}" ] || "$here/mkinitramfs.sh" --dir "$root"
	# UML maps its memory from a file in TMPDIR, which must allow exec
	# (/dev/shm may be small or noexec on some machines).
	mkdir -p "$top/build/tmp"
	TMPDIR=$top/build/tmp timeout "$timeout" "$out/linux" mem=512M root=/dev/root rootfstype=hostfs rootflags="$root" \
		rw init=/init con=null con0=fd:0,fd:1 panic=-1 oops=panic $cmdline \
		</dev/null >"$log" 2>&1 || rc=$?
	# Some hosts run no UML user space at all (seen with a 6.18 host
	# kernel: every process faults at its first instruction). Busybox's
	# "true" as init tells: it exits 0 where user space runs. The log
	# says which, for ktap.py.
	if grep -q 'Attempted to kill init! exitcode=0x0000000b' "$log"; then
		TMPDIR=$top/build/tmp timeout 60 "$out/linux" mem=256M root=/dev/root rootfstype=hostfs \
			rootflags="$root" rw init=/bin/true con=null con0=fd:0,fd:1 panic=-1 \
			kunit.filter_glob=none.none </dev/null >"$log.true" 2>&1 || true
		grep -q 'Attempted to kill init! exitcode=0x0000000b' "$log.true" &&
			echo "LRB-HOST: UML runs no user space on this host ($(uname -r)): /bin/true faults too" >>"$log"
	fi
	exit "${rc:-0}"
	;;
esac
