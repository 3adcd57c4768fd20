#!/bin/sh
# /init of the KUnit boots of x86_64 and UML: the suites have run from the
# kernel's initcalls by now.  Say that the boot got past them, and end.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
grep -qw devtmpfs /proc/filesystems && mount -t devtmpfs devtmpfs /dev
echo "LRB-INIT: reached /init"
# UML ends at power-off (a reboot starts it again); QEMU runs with
# -no-reboot, and a kernel without ACPI cannot power the machine off.
if grep -q 'User Mode Linux' /proc/cpuinfo; then
	poweroff -f
else
	reboot -f
fi
