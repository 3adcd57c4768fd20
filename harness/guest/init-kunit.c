/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal /init for the KUnit-only boots (i386, arm64), built without libc:
 * say that the boot got past the tests, wait for the verdict of a built-in
 * lrb_torture if one runs (it runs in kthreads, past the boot), then
 * reboot, which ends QEMU (-no-reboot).
 */
#if defined(__i386__)
#define SYS_write	4
#define SYS_reboot	88
#define SYS_syslog	103
#define SYS_nanosleep	162

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
#define SYS_syslog	116
#define SYS_nanosleep	101

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

static char logbuf[1 << 17];

/* SYSLOG_ACTION_READ_ALL: the newest bytes of the kernel log. */
static long log_read(void)
{
	return sys4(SYS_syslog, 3, (long)logbuf, sizeof(logbuf), 0);
}

/* Do the first @n bytes of logbuf hold @s? */
static int log_has(long n, const char *s)
{
	long i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; s[j] && i + j < n && logbuf[i + j] == s[j]; j++)
			;
		if (!s[j])
			return 1;
	}
	return 0;
}

/* A built-in lrb_torture announces itself at boot and ends with a verdict. */
static void wait_torture(void)
{
	static const struct { long sec, nsec; } second = { 1, 0 };
	long n = log_read();

	if (!log_has(n, "lrb_torture: running"))
		return;
	while (!log_has(n, "lrb_torture: PASS") && !log_has(n, "lrb_torture: FAIL")) {
		sys4(SYS_nanosleep, (long)&second, 0, 0, 0);
		n = log_read();
	}
}

void _start(void)
{
	static const char msg[] = "LRB-INIT: reached /init\n";

	sys4(SYS_write, 1, (long)msg, sizeof(msg) - 1, 0);
	wait_torture();
	/* LINUX_REBOOT_MAGIC1, MAGIC2, LINUX_REBOOT_CMD_RESTART */
	sys4(SYS_reboot, 0xfee1dead, 672274793, 0x01234567, 0);
	for (;;)
		;
}
