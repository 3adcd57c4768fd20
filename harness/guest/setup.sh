# Sourced by the /init scripts of the guests (installed as /etc/lrb-setup.sh
# by mkinitramfs.sh): the file systems they need, tracefs and the host's
# 9p share (tag host0) at /host.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
hostname lrb-guest
mount -t tracefs nodev /sys/kernel/tracing
mount -t 9p -o trans=virtio,version=9p2000.L host0 /host || echo "LRB: no 9p share at /host"

# The NAME=VALUE of every PREFIX.NAME=VALUE on the kernel command line:
# the parameters of a module that insmod loads instead of the kernel.
cmdline_params() {
	tr ' ' '\n' </proc/cmdline | sed -n "s/^$1\\.//p" | tr '\n' ' '
}
