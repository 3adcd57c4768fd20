/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal /init for the guests without busybox (i386, arm64, s390x), built
 * without libc: say that the boot got past the tests, wait for the verdict
 * of a built-in lrb_torture if one runs (it runs in kthreads, past the
 * boot), record a trace if the kernel command line says "lrb_trace", then
 * reboot, which ends QEMU (-no-reboot).
 *
 * The trace: an LRB channel "t" of 4 KiB sub-buffers records printk's
 * console event (its text a __data_loc char[]) while this writes ten
 * lines "lrb-trace-check N" to /dev/kmsg; then its metadata and every
 * CPU's stream go to the console in hex, as "LRB-HEX FILE HEX" lines,
 * which harness/tinytrace.py turns back into a trace directory for
 * babeltrace2.  On a big-endian guest that is the check that the
 * metadata describes the __data_loc word as the CPU stores it.
 */
#if defined(__i386__) || defined(__s390x__)
/* The system calls s390 numbered as i386 did. */
#define SYS_read	3
#define SYS_write	4
#define SYS_close	6
#define SYS_mount	21
#define SYS_reboot	88
#define SYS_syslog	103
#define SYS_nanosleep	162
#endif

#if defined(__i386__)
#define SYS_openat	295
#define SYS_mkdirat	296
#define SYS_mknodat	297

static long sys5(long n, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile("int $0x80" : "=a"(ret)
			 : "a"(n), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return ret;
}
#elif defined(__aarch64__)
#define SYS_read	63
#define SYS_write	64
#define SYS_close	57
#define SYS_mount	40
#define SYS_reboot	142
#define SYS_syslog	116
#define SYS_nanosleep	101
#define SYS_openat	56
#define SYS_mkdirat	34
#define SYS_mknodat	33

static long sys5(long n, long a, long b, long c, long d, long e)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;

	__asm__ volatile("svc #0" : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4)
			 : "memory");
	return x0;
}
#elif defined(__s390x__)
#define SYS_openat	288
#define SYS_mkdirat	289
#define SYS_mknodat	290

static long sys5(long n, long a, long b, long c, long d, long e)
{
	register long r1 __asm__("r1") = n;
	register long r2 __asm__("r2") = a;
	register long r3 __asm__("r3") = b;
	register long r4 __asm__("r4") = c;
	register long r5 __asm__("r5") = d;
	register long r6 __asm__("r6") = e;

	__asm__ volatile("svc 0" : "+d"(r2)
			 : "d"(r1), "d"(r3), "d"(r4), "d"(r5), "d"(r6)
			 : "memory");
	return r2;
}
#else
#error "init-kunit.c: no system call wrapper for this architecture"
#endif

#define sys4(n, a, b, c, d)	sys5(n, a, b, c, d, 0)

#define AT_FDCWD	-100
#define O_RDONLY	0
#define O_WRONLY	1

static char logbuf[1 << 17];

/* SYSLOG_ACTION_READ_ALL: the newest bytes of the kernel log. */
static long log_read(void)
{
	return sys4(SYS_syslog, 3, (long)logbuf, sizeof(logbuf), 0);
}

/* Do the first @n bytes of @buf hold @s? */
static int has(const char *buf, long n, const char *s)
{
	long i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; s[j] && i + j < n && buf[i + j] == s[j]; j++)
			;
		if (!s[j])
			return 1;
	}
	return 0;
}

static void sleep1(void)
{
	static const struct { long sec, nsec; } second = { 1, 0 };

	sys4(SYS_nanosleep, (long)&second, 0, 0, 0);
}

/* A built-in lrb_torture announces itself at boot and ends with a verdict. */
static void wait_torture(void)
{
	long n = log_read();

	if (!has(logbuf, n, "lrb_torture: running"))
		return;
	while (!has(logbuf, n, "lrb_torture: PASS") &&
	       !has(logbuf, n, "lrb_torture: FAIL")) {
		sleep1();
		n = log_read();
	}
}

static long len(const char *s)
{
	long n = 0;

	while (s[n])
		n++;
	return n;
}

static void say(const char *s)
{
	sys4(SYS_write, 1, (long)s, len(s), 0);
}

/* Write @text to the file @path; say so if it fails. */
static int put(const char *path, const char *text)
{
	long fd = sys4(SYS_openat, AT_FDCWD, (long)path, O_WRONLY, 0);
	long n = -1;

	if (fd >= 0) {
		n = sys4(SYS_write, fd, (long)text, len(text), 0);
		sys4(SYS_close, fd, 0, 0, 0);
	}
	if (n != len(text)) {
		say("LRB-TRACE: cannot write ");
		say(path);
		say("\n");
		return -1;
	}
	return 0;
}

/* Print the file @path as "LRB-HEX @name HEX" lines; 0 if it opened. */
static int hexdump(const char *path, const char *name)
{
	static const char digits[] = "0123456789abcdef";
	static unsigned char in[4096];
	static char line[16 + 32 + 2 * 64 + 2];
	long fd = sys4(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0);
	long n, i, j, k;

	if (fd < 0)
		return -1;
	while ((n = sys4(SYS_read, fd, (long)in, sizeof(in), 0)) > 0) {
		for (i = 0; i < n; i += 64) {
			k = 0;
			for (j = 0; "LRB-HEX "[j]; j++)
				line[k++] = "LRB-HEX "[j];
			for (j = 0; name[j]; j++)
				line[k++] = name[j];
			line[k++] = ' ';
			for (j = i; j < n && j < i + 64; j++) {
				line[k++] = digits[in[j] >> 4];
				line[k++] = digits[in[j] & 15];
			}
			line[k++] = '\n';
			sys4(SYS_write, 1, (long)line, k, 0);
		}
	}
	sys4(SYS_close, fd, 0, 0, 0);
	say(n < 0 ? "LRB-TRACE: read error in " : "LRB-TRACE: end of ");
	say(name);
	say("\n");
	return 0;
}

static void lrb_trace(void)
{
	static char path[64] = "/t/lrb/t/streams/cpu";
	static char name[16] = "stream_";
	static char msg[] = "lrb-trace-check 0\n";
	long cpu;
	int i;

	sys4(SYS_mkdirat, AT_FDCWD, (long)"/t", 0755, 0);
	if (sys5(SYS_mount, (long)"tracefs", (long)"/t", (long)"tracefs", 0, 0)) {
		say("LRB-TRACE: cannot mount tracefs\n");
		return;
	}
	/* S_IFCHR | 0600, /dev/kmsg is char 1:11 */
	sys4(SYS_mknodat, AT_FDCWD, (long)"/dev/kmsg", 020600, 1 << 8 | 11);
	if (put("/t/lrb/control", "create t\n") ||
	    put("/t/lrb/t/subbuf_size", "4096\n") ||
	    put("/t/lrb/t/num_subbufs", "4\n") ||
	    put("/t/lrb/t/events", "enable printk:console\n") ||
	    put("/t/lrb/t/enable", "1\n"))
		return;
	for (i = 0; i < 10; i++) {
		msg[16] = '0' + i;
		put("/dev/kmsg", msg);
	}
	if (put("/t/lrb/t/enable", "0\n"))
		return;
	hexdump("/t/lrb/t/metadata", "metadata");
	/* streams/cpuN for every possible CPU, N from 0 */
	for (cpu = 0; cpu < 100; cpu++) {
		char *p = path + 20, *q = name + 7;

		if (cpu >= 10)
			*p++ = *q++ = '0' + cpu / 10;
		*p++ = *q++ = '0' + cpu % 10;
		*p = *q = 0;
		if (hexdump(path, name))
			break;
	}
	say("LRB-TRACE: done\n");
}

void _start(void)
{
	static const char msg[] = "LRB-INIT: reached /init\n";
	long n;

	sys4(SYS_write, 1, (long)msg, sizeof(msg) - 1, 0);
	wait_torture();
	sys4(SYS_mkdirat, AT_FDCWD, (long)"/proc", 0755, 0);
	if (!sys5(SYS_mount, (long)"proc", (long)"/proc", (long)"proc", 0, 0)) {
		long fd = sys4(SYS_openat, AT_FDCWD, (long)"/proc/cmdline",
			       O_RDONLY, 0);

		n = fd < 0 ? 0 : sys4(SYS_read, fd, (long)logbuf, 4096, 0);
		if (n > 0 && has(logbuf, n, "lrb_trace"))
			lrb_trace();
	}
	/* LINUX_REBOOT_MAGIC1, MAGIC2, LINUX_REBOOT_CMD_RESTART */
	sys4(SYS_reboot, 0xfee1dead, 672274793, 0x01234567, 0);
	for (;;)
		;
}
