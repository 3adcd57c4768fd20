#!/bin/bash
# lttng.sh: LTTng 2.13 and LRB side by side on the x86_64 guest, the same
# workload traced by both at once (guest/lttng-init.sh), compared by
# lttngcmp.py: events per type, losses, bytes per event.  Functional only:
# the guest runs under QEMU TCG, so no timing is reported.  (LTTng's ring
# buffer cannot go into UML's table 2: lttng-modules 2.13 needs kprobes,
# which ARCH=um does not have; see README.md.)
#   build/out/x86_64-lttng  the LRB_SYNC_LOCAL guest kernel with what LTTng
#                           needs (config/lttng.config)
#   build/lttng/src         Debian trixie's lttng-modules-dkms source (2.13.18,
#                           the first 2.13 that builds against 6.12; bookworm's
#                           2.13.9 does not), downloaded with an apt source
#                           list of its own, apart from the system's; with
#                           lttng/hrtimer-was-armed.patch when the tree's
#                           hrtimer_start tracepoint has was_armed and
#                           lttng/compat-old-sigaction.patch; built against
#                           that kernel
#   the guest               busybox, lrb-record, Debian's lttng-tools with
#                           the shared libraries it links, the modules
#                           under /lib/modules with depmod's index
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
work=$top/build/lttng
out=$top/build/out/x86_64-lttng
root=$work/root

build_modules() {
	local src
	if [ ! -f "$work/src/Makefile" ]; then
		rm -rf "$work/src" "$work/deb" "$work/apt"
		mkdir -p "$work/deb" "$work/apt/lists/partial" "$work/apt/cache/archives/partial"
		echo 'deb http://deb.debian.org/debian trixie main' >"$work/apt/sources.list"
		local apt=(apt-get -q -o Dir::Etc::sourcelist="$work/apt/sources.list"
			-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$work/apt/lists"
			-o Dir::Cache="$work/apt/cache")
		"${apt[@]}" update >/dev/null || return 1
		(cd "$work/deb" && "${apt[@]}" download lttng-modules-dkms 2>&1 | grep -v '^W: Download is performed unsandboxed') || return 1
		dpkg-deb -x "$work"/deb/lttng-modules-dkms_*.deb "$work/deb/x" || return 1
		src=$(echo "$work"/deb/x/usr/src/lttng-modules-*)
		mv "$src" "$work/src"
		if grep -q was_armed "$tree/include/trace/events/timer.h"; then
			patch -s -p1 -d "$work/src" <"$here/lttng/hrtimer-was-armed.patch" || return 1
		fi
		patch -s -p1 -d "$work/src" <"$here/lttng/compat-old-sigaction.patch" || return 1
	fi
	make -C "$work/src" KERNELDIR="$out" ARCH=x86_64 CC="ccache gcc" -j"$(nproc)" modules
}

# guest_root: the files the guest needs besides busybox and /init.
guest_root() {
	local kver b lib
	kver=$(cat "$out/include/config/kernel.release")
	rm -rf "$root"
	mkdir -p "$root/lib/modules/$kver/extra" "$root/usr/bin" "$root/etc" \
		"$root/usr/share/xml/lttng" "$root/usr/lib/x86_64-linux-gnu/lttng/libexec"
	find "$work/src" -name '*.ko' -exec cp {} "$root/lib/modules/$kver/extra/" \;
	cp "$out/modules.order" "$out/modules.builtin" "$out/modules.builtin.modinfo" \
		"$root/lib/modules/$kver/" 2>/dev/null
	depmod -b "$root" "$kver" || return 1
	cp /usr/bin/lttng /usr/bin/lttng-sessiond "$work/bin/lrb-record" "$root/usr/bin/"
	cp /usr/lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd \
		"$root/usr/lib/x86_64-linux-gnu/lttng/libexec/"
	cp /usr/share/xml/lttng/session.xsd "$root/usr/share/xml/lttng/"
	# The shared libraries, the loader, and libgcc_s (glibc loads it
	# when a thread is cancelled).
	for b in /usr/bin/lttng /usr/bin/lttng-sessiond \
		/usr/lib/x86_64-linux-gnu/lttng/libexec/lttng-consumerd; do
		ldd "$b" | grep -o '/[^ ]*'
	done | sort -u | while read -r lib; do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
	lib=$(gcc -print-file-name=libgcc_s.so.1)
	mkdir -p "$root/lib/x86_64-linux-gnu"
	cp -L "$lib" "$root/lib/x86_64-linux-gnu/"
	echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
	printf 'root:x:0:\ntracing:x:999:\n' >"$root/etc/group"
}

rm -rf "$work/share" "$work/bin"
mkdir -p "$work/share" "$work/bin"
stage "build x86_64 LRB_SYNC_LOCAL with LTTng's options" \
	"$here/build.sh" x86_64 lttng >"$logdir/build-x86_64-lttng.log" 2>&1 ||
	{ tail -n 30 "$logdir/build-x86_64-lttng.log"; exit 1; }
stage "build lttng-modules against it" build_modules >"$logdir/lttng-modules.log" 2>&1 ||
	{ tail -n 30 "$logdir/lttng-modules.log"; exit 1; }
echo "lttng-modules $(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$work/src/dkms.conf"):" \
	"$(find "$work/src" -name '*.ko' | wc -l) modules"
stage "build lrb-record" build_lrb_record "$work/bin" lttng >"$logdir/lttng-tool.log" 2>&1 ||
	{ cat "$logdir/lttng-tool.log"; exit 1; }
guest_root >"$logdir/lttng-root.log" 2>&1 || { cat "$logdir/lttng-root.log"; exit 1; }
"$here/mkinitramfs.sh" "$work/initramfs.cpio.gz" "$here/guest/lttng-init.sh" "$root/"
LRB_INITRD=$work/initramfs.cpio.gz LRB_SHARE=$work/share LRB_SMP=2 LRB_TCG_THREAD=single \
	LRB_CMDLINE="kunit.filter_glob=none.none quiet" \
	stage "boot and trace with both" "$here/boot.sh" x86_64 lttng "$logdir/lttng.log" || exit 1
tr -d '\r' <"$logdir/lttng.log" | sed -n 's/^.*\(LRB-LTTNG: \)/\1/p'
s=$(splats "$logdir/lttng.log")
expect "lttng: no kernel splat while both trace" '[ -z "$s" ]' || echo "$s" | indent
/usr/bin/python3 "$here/lttngcmp.py" "$work/share/big" --lossless || result_status=1
/usr/bin/python3 "$here/lttngcmp.py" "$work/share/small" || result_status=1
exit $result_status
