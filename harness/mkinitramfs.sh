#!/bin/bash
# mkinitramfs.sh: the root file system, and /init, of every guest.
#
#   mkinitramfs.sh OUT.cpio.gz [INIT [BIN...]]
#	a busybox-static initramfs.  /init is INIT, or guest/kunit-init.sh
#	(the KUnit boots: report that the boot got past the suites, end);
#	with INIT, guest/setup.sh is /etc/lrb-setup.sh for it to source,
#	guest/workload.sh is /bin/lrb-workload, and
#	each BIN goes to /bin (modules, *.ko, to /lib; a directory, DIR/,
#	is copied over the root: its DIR/usr/bin/x becomes /usr/bin/x).
#   mkinitramfs.sh --dir DIR [INIT [BIN...]]
#	the same root as a directory (UML boots on it through hostfs), with
#	guest/kunit-init.sh as /init unless INIT is given; remade only when
#	INIT or a BIN is newer.
#   mkinitramfs.sh --tiny OUT.cpio.gz CC [FLAGS...]
#	for the guests that have no busybox (i386, arm64): /init is
#	guest/init-kunit.c, built by CC without libc; remade only when
#	init-kunit.c is newer.
set -euo pipefail
guest=$(cd "$(dirname "$0")" && pwd)/guest

# busybox_root DIR INIT [BIN...]
busybox_root() {
	local root=$1 init=$2 bb t b
	shift 2
	bb=$(command -v busybox)
	file "$bb" 2>/dev/null | grep -q 'statically linked' || bb=/bin/busybox
	# mktemp makes it 0700: the guest's / would shut out every user but root.
	chmod 755 "$root"
	mkdir -p "$root"/{bin,dev,proc,sys,tmp,host,etc,lib}
	cp "$bb" "$root/bin/busybox"
	for t in $("$bb" --list); do
		[ -e "$root/bin/$t" ] || ln -s busybox "$root/bin/$t"
	done
	cp "$init" "$root/init"
	chmod +x "$root/init"
	cp "$guest/setup.sh" "$root/etc/lrb-setup.sh"
	cp "$guest/workload.sh" "$root/bin/lrb-workload"
	for b in "$@"; do
		case $b in
		*.ko) cp "$b" "$root/lib/" ;;
		*/) cp -a "$b." "$root/" ;;
		*) cp "$b" "$root/bin/" ;;
		esac
	done
}

# cpio_gz DIR OUT
cpio_gz() {
	(cd "$1" && find . | cpio -o -H newc --quiet | gzip -9) >"$2"
}

case ${1:-} in
--dir)
	dir=$2
	init=${3:-$guest/kunit-init.sh}
	shift $(($# > 2 ? 3 : 2))
	fresh=1
	for f in "$init" "$@"; do
		[ "$dir/init" -nt "$f" ] || fresh=0
	done
	[ $fresh = 1 ] && exit 0
	mkdir -p "$dir"
	busybox_root "$dir" "$init" "$@"
	;;
--tiny)
	out=$2
	shift 2
	[ "$out" -nt "$guest/init-kunit.c" ] && exit 0
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	mkdir -p "$root/dev"
	"$@" -static -nostdlib -ffreestanding -fno-tree-loop-distribute-patterns \
		-O2 -Wall -o "$root/init" "$guest/init-kunit.c"
	cpio_gz "$root" "$out"
	;;
*)
	out=$1
	init=${2:-$guest/kunit-init.sh}
	shift $(($# > 1 ? 2 : 1))
	root=$(mktemp -d)
	trap 'rm -rf "$root"' EXIT
	busybox_root "$root" "$init" "$@"
	cpio_gz "$root" "$out"
	;;
esac
