#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz: a busybox-static initramfs whose /init mounts
# the usual file systems and powers the guest off (the KUnit suites have
# already run by then, from the kernel's initcalls).
set -euo pipefail
out=$1
bb=$(command -v busybox)
file "$bb" 2>/dev/null | grep -q 'statically linked' || bb=/bin/busybox
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,tmp}
cp "$bb" "$root/bin/busybox"
for t in sh mount echo cat reboot poweroff sleep ls; do ln -s busybox "$root/bin/$t"; done
cat > "$root/init" <<'INIT'
#!/bin/sh
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
echo "LRB-INIT: reached /init"
reboot -f
INIT
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) > "$out"
