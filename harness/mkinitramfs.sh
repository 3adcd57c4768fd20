#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz [INIT [BIN...]]: a busybox-static initramfs.
# Without INIT, /init mounts the usual file systems and powers the guest
# off (the KUnit suites have already run by then, from the kernel's
# initcalls); with INIT, that script is /init and each BIN goes to /bin
# (modules, *.ko, to /lib).
set -euo pipefail
out=$1
init=${2:-}
shift $(($# > 1 ? 2 : 1))
bb=$(command -v busybox)
file "$bb" 2>/dev/null | grep -q 'statically linked' || bb=/bin/busybox
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
# mktemp makes it 0700: the guest's / would shut out every user but root.
chmod 755 "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,host}
cp "$bb" "$root/bin/busybox"
for t in $("$bb" --list); do
	[ -e "$root/bin/$t" ] || ln -s busybox "$root/bin/$t"
done
if [ -n "$init" ]; then
	cp "$init" "$root/init"
	mkdir -p "$root/etc"
	cp "$(dirname "$0")/guest/setup.sh" "$root/etc/lrb-setup.sh"
	mkdir -p "$root/lib"
	for b in "$@"; do
		case $b in *.ko) cp "$b" "$root/lib/" ;; *) cp "$b" "$root/bin/" ;; esac
	done
else
	cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "LRB-INIT: reached /init"
reboot -f
INIT
fi
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) > "$out"
