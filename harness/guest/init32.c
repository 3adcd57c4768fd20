/* SPDX-License-Identifier: GPL-2.0 */
/* Minimal /init for the i386 KUnit boot (no libc): say so, then reboot. */
#define SYS_write	4
#define SYS_reboot	88

static long sys3(long n, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return ret;
}

void _start(void)
{
	static const char msg[] = "LRB-INIT: reached /init\n";

	sys3(SYS_write, 1, (long)msg, sizeof(msg) - 1, 0);
	/* LINUX_REBOOT_MAGIC1, MAGIC2, LINUX_REBOOT_CMD_RESTART: QEMU runs
	 * with -no-reboot, so it exits. */
	sys3(SYS_reboot, 0xfee1dead, 672274793, 0x01234567, 0);
	for (;;)
		;
}
