/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal /init for the KUnit-only boots (i386, arm64), built without libc:
 * say that the boot got past the tests, then reboot, which ends QEMU
 * (-no-reboot).
 */
#if defined(__i386__)
#define SYS_write	4
#define SYS_reboot	88

static long sys4(long n, long a, long b, long c, long d)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
	return ret;
}
#elif defined(__aarch64__)
#define SYS_write	64
#define SYS_reboot	142

static long sys4(long n, long a, long b, long c, long d)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc #0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
	return x0;
}
#else
#error "init-kunit.c: no system call wrapper for this architecture"
#endif

void _start(void)
{
	static const char msg[] = "LRB-INIT: reached /init\n";

	sys4(SYS_write, 1, (long)msg, sizeof(msg) - 1, 0);
	/* LINUX_REBOOT_MAGIC1, MAGIC2, LINUX_REBOOT_CMD_RESTART */
	sys4(SYS_reboot, 0xfee1dead, 672274793, 0x01234567, 0);
	for (;;)
		;
}
