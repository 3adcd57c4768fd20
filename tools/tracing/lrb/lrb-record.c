// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record: record LRB channels into CTF trace directories.
 *
 *   lrb-record [record] [OPTION...] [-- COMMAND [ARG...]]
 *   lrb-record report [DIR]
 *   lrb-record view [DIR] [BABELTRACE2-ARG...]
 *   lrb-record list [events | channels]
 *   lrb-record snapshot [-B NAME] [-o DIR]
 *   lrb-record reset [--all | NAME...]
 *
 * record creates a channel in /sys/kernel/tracing/lrb, enables it, copies
 * every delivered sub-buffer (a CTF packet) from the read-only mmap of each
 * CPU buffer to DIR/stream_N, and stops after --duration, when COMMAND
 * exits, or on SIGINT/SIGTERM. At stop it disables the channel (which
 * flushes every CPU), drains, flushes again so losses at the very end are
 * reported in a packet, drains again, writes DIR/metadata and removes the
 * channel.
 * Where the kernel can splice() a stream into a pipe, the packets move to
 * the files that way instead, without passing through user space.
 *
 * With --flight-recorder the channel overwrites and nothing is consumed:
 * "lrb-record snapshot" writes what a running channel holds to a new
 * trace directory, as often as asked, and the recorder takes one last
 * snapshot to DIR when it stops.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/lrb.h>

#include "lrb-record.h"

#ifndef LRB_RECORD_VERSION
#define LRB_RECORD_VERSION	"unknown"
#endif

#define MAX_CPUS	1024

/* The kernel's bounds (Documentation/trace/lrb.rst); it checks them too. */
#define SUBBUF_SIZE_MIN		256ULL
#define SUBBUF_SIZE_MAX		(4ULL << 20)
#define NUM_SUBBUFS_MIN		2ULL
#define NUM_SUBBUFS_MAX		1024ULL
#define CPU_BUF_SIZE_MAX	(64ULL << 20)
#define SWITCH_TIMER_MIN_US	100ULL
#define SWITCH_TIMER_MAX_US	3600000000ULL

/* Recorded when no --event is given. */
static const char * const default_events[] = { "sched", "irq" };
/*
 * With --layout lttng, what lttng-analyses-record enables: the events the
 * LTTng analyses read (those this kernel lacks are skipped).
 */
static const char * const default_lttng_events[] = {
	"sched", "irq", "syscalls", "kmem:mm_page_alloc", "kmem:mm_page_free",
	"block", "net:net_dev_xmit", "net:netif_receive_skb",
	"writeback:writeback_pages_written",
	"vmscan:mm_vmscan_wakeup_kswapd",
	"lttng_statedump_*",
};

/* The prefix of the channels lrb-record names after its process. */
#define AUTO_PREFIX	"lrb-record-"

struct stream {
	int cpu;
	int fd;
	int out;
	const unsigned char *map;
	int pipe[2];	/* for splice(), if pipe[0] >= 0 */
	struct lrb_stream_info info;
	__u64 bytes;
	__u64 packets;
	__u64 dropped;	/* overwritten while being copied */
};

static const char *tracefs = "/sys/kernel/tracing";
static char chan_dir[512];
static char chan_name[64];
static bool chan_created;
static struct stream streams[MAX_CPUS];
static int nr_streams;
static atomic_int stop_signal;
static pid_t child = -1;
static int child_status;

/* Remove the channel named @name; returns 0 or -errno. */
static int remove_named(const char *name)
{
	char path[600];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	fd = open(path, O_WRONLY);
	if (fd < 0 || dprintf(fd, "remove %s\n", name) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Remove the channel this run created; returns 0 or -errno. */
static int remove_channel(void)
{
	if (!chan_created)
		return 0;
	for (int i = 0; i < nr_streams; i++)
		close(streams[i].fd);
	nr_streams = 0;
	chan_created = false;
	return remove_named(chan_name);
}

/* "lrb-record: " and the message on stderr. */
static void vmessage(const char *fmt, va_list ap)
{
	fputs("lrb-record: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* A failure while tracing: exit status 1, the channel removed. */
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	remove_channel();
	exit(EXIT_FAILURE);
}

/* Bad usage: exit status 2, before anything was created. */
static void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	fputs("Try 'lrb-record --help'.\n", stderr);
	exit(2);
}

static void print_help(void)
{
	fputs("usage: lrb-record [record] [OPTION...] [-- COMMAND [ARG...]]\n"
"       lrb-record report [DIR]\n"
"       lrb-record report --symbols [DIR]\n"
"       lrb-record view [DIR] [BABELTRACE2-ARG...]\n"
"       lrb-record list [events | channels]\n"
"       lrb-record snapshot [-B NAME] [-o DIR]\n"
"       lrb-record reset [--all | NAME...]\n"
"       lrb-record --help | --version\n"
"\n"
"record: trace into a new CTF trace directory, until COMMAND exits,\n"
"--duration ends, or Ctrl-C.\n"
"Sizes take a k, M or G suffix (1024-based).\n"
"  -o, --output DIR         trace directory, created (default\n"
"                           lrb-trace-YYYYMMDD-HHMMSS)\n"
"      --force              write into an existing DIR, deleting the files\n"
"                           in it\n"
"  -e, --event EVENT        record EVENT: SYSTEM:NAME, SYSTEM, a glob, all,\n"
"                           or none (annotations only); repeatable; default\n"
"                           -e sched -e irq (lrb-record list shows them)\n"
"  -f, --filter EXPR        record only the events of the -e before it for\n"
"                           which EXPR, an ftrace filter, holds:\n"
"                           -e sched_switch -f 'prev_state != 0'\n"
"      --kprobe DEF         create a kprobe or kretprobe for the recording\n"
"                           and record it: DEF is a line of ftrace's\n"
"                           dynamic_events, 'p:myopen do_sys_openat2\n"
"                           dfd=%di:s32', 'r:myopen_ret do_sys_openat2 $retval'\n"
"      --uprobe DEF         the same for a uprobe or uretprobe,\n"
"                           'p:bash_readline /bin/bash:0x8f2a0'\n"
"      --probe SYM[+OFF]    a kprobe at SYM+OFF (kprobes:p_SYM_OFF)\n"
"      --function SYM       a kprobe at SYM's entry and a kretprobe at its\n"
"                           return (kprobes:SYM_entry, kprobes:SYM_return)\n"
"      --keep-probes        leave the probes created after the recording\n"
"                           (removed otherwise; without --event, only the\n"
"                           probes are recorded)\n"
"      --function-tracer    record kernel function entries (ftrace:function:\n"
"                           ip, parent_ip), as trace-cmd's -p function\n"
"      --graph              record function entries and returns instead\n"
"                           (ftrace:funcgraph_entry, ftrace:funcgraph_exit:\n"
"                           depth, call and return times), as -p\n"
"                           function_graph; implies --function-tracer\n"
"  -l, --function-filter GLOB  trace only the functions GLOB matches, in\n"
"                           set_ftrace_filter's syntax ('vfs_*',\n"
"                           '*:mod:ext4', '!vfs_read'); repeatable; implies\n"
"                           --function-tracer; a GLOB that matches nothing\n"
"                           is an error\n"
"  -n, --function-notrace GLOB  do not trace those (set_ftrace_notrace)\n"
"  -T, --stack[=DEPTH]      record the kernel stack, at most DEPTH (1 to\n"
"                           128, default 32) addresses, after each event of\n"
"                           the -e before it, or of every -e if none is\n"
"                           before it; DIR/.kallsyms names the addresses\n"
"      --common-fields      records of trace events begin with ftrace's\n"
"                           common fields (type, flags, preempt count, pid)\n"
"  -B, --channel NAME       channel name (default lrb-record-PID)\n"
"  -b, --buffer-size SIZE   bytes per CPU, split into sub-buffers\n"
"      --subbuf-size SIZE   bytes per sub-buffer, rounded up to a power of\n"
"                           two, 256 to 4M (default 16k)\n"
"      --num-subbufs N      sub-buffers per CPU, rounded up to a power of\n"
"                           two, 2 to 1024 (default 16); --num-subbuf too\n"
"      --overwrite          when full, overwrite the oldest sub-buffer\n"
"                           instead of dropping new events\n"
"      --flight-recorder    overwrite, consume nothing, and write a snapshot\n"
"                           to DIR at the end (lrb-record snapshot takes more)\n"
"      --switch-timer USEC  close a sub-buffer open for USEC microseconds, so\n"
"                           records of quiet CPUs arrive (0 off, 100 to\n"
"                           3600000000)\n"
"      --no-splice          copy packets through the mmap, not with splice()\n"
"  -C, --clock CLOCK        local (default, per CPU) or global (ordered\n"
"                           across CPUs)\n"
"      --layout LAYOUT      ftrace (default): ftrace's event and field names;\n"
"                           lttng: lttng-modules' names, in DIR/kernel, for\n"
"                           Trace Compass and the LTTng analyses (lttng-*);\n"
"                           without --event, the events they read\n"
"      --cpu LIST           record only these CPUs, as 0,2-3\n"
"                           (the kernel writes nothing on the others)\n"
"  -P, --pid PIDS           record only these processes (each with its\n"
"                           threads), as 1234,5678\n"
"      --follow             record only COMMAND and its descendants\n"
"      --uid UIDS           record only the tasks of these users, as 0,1000\n"
"      --duration SECONDS   stop after SECONDS (a decimal number)\n"
"  -q, --quiet              print nothing but errors\n"
"      --dry-run            check the options, print the settings, trace\n"
"                           nothing\n"
"\n"
"report DIR    events per CPU and per type, rates, first and last events\n"
"              (DIR defaults to the newest lrb-trace-* here)\n"
"              --symbols: the kernel stacks too, the most frequent\n"
"              first, named with DIR/.kallsyms\n"
"              and the functions of the function tracer's records\n"
"view DIR      print the events with babeltrace2\n"
"list          the events that can be recorded, and the channels\n"
"snapshot      write what a --flight-recorder channel holds to a new\n"
"              directory (-o DIR, default NAME-snapshot-YYYYMMDD-HHMMSS);\n"
"              -B is needed only when several channels overwrite\n"
"reset         remove the channels of recordings that were killed;\n"
"              NAME... those channels, --all every channel\n"
"\n"
"Exit status: 0; 1 when tracing failed; 2 for bad usage; with COMMAND,\n"
"its exit status (128 + N if signal N killed it), unless tracing failed.\n",
	      stdout);
}

/* As put_file(), appending: O_APPEND, as ">>" writes. */
static int put_file_append(const char *file, const char *val)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", chan_dir, file);
	fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* Write @val to the channel file @file; returns 0 or -errno. */
static int put_file(const char *file, const char *val)
{
	char path[600];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", chan_dir, file);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

char *read_all(const char *path, size_t *lenp)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap + 1);
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + len, cap - len)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
			if (!buf)
				die("out of memory");
		}
	}
	close(fd);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
}

/*
 * The channel's counters, summed over the CPUs @cpus selects, or its
 * total if @cpus is NULL.
 */
static int read_counts(struct counts *c, const bool *cpus)
{
	char path[600], *text;
	int ret;

	snprintf(path, sizeof(path), "%s/stats", chan_dir);
	text = read_all(path, NULL);
	if (!text)
		return -1;
	ret = parse_counts(text, c, cpus, MAX_CPUS);
	free(text);
	return ret;
}

static void find_tracefs(void)
{
	char path[600];

	if (access("/sys/kernel/tracing/lrb/control", F_OK) &&
	    !access("/sys/kernel/debug/tracing/lrb/control", F_OK))
		tracefs = "/sys/kernel/debug/tracing";
	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	if (!access(path, W_OK))
		return;
	if (errno == EACCES)
		die("%s: permission denied (%s)", path,
		    access(path, R_OK) ? "run as root" :
		    "creating a channel needs root; the tracefs group may only start, stop and read channels");
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	if (access(path, F_OK))
		die("tracefs is not mounted at %s (mount -t tracefs nodev %s)",
		    tracefs, tracefs);
	die("%s/lrb does not exist: kernel built without CONFIG_LRB_TRACEFS",
	    tracefs);
}

/* The channel names, from the control file; NULL-terminated. */
static char **channel_names(void)
{
	char path[600], *text, *line, *save, **names;
	int n = 0;

	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	text = read_all(path, NULL);
	if (!text)
		die("%s: %s", path, strerror(errno));
	names = calloc(strlen(text) + 1, sizeof(*names));
	if (!names)
		die("out of memory");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		names[n++] = strdup(line);
	free(text);
	return names;
}

/* A channel lrb-record named after a process that no longer runs. */
static bool channel_orphaned(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, AUTO_PREFIX, strlen(AUTO_PREFIX)))
		return false;
	pid = strtol(name + strlen(AUTO_PREFIX), &end, 10);
	return pid > 0 && !*end && kill(pid, 0) && errno == ESRCH;
}

/* Remove the channels of killed recordings; returns how many. */
static int remove_orphans(bool quiet)
{
	char **names = channel_names();
	int n = 0;

	for (int i = 0; names[i]; i++) {
		if (channel_orphaned(names[i]) && !remove_named(names[i])) {
			if (!quiet)
				fprintf(stderr,
					"lrb-record: removed channel %s, left by a recording that was killed\n",
					names[i]);
			n++;
		}
		free(names[i]);
	}
	free(names);
	return n;
}

static void create_channel(const char *name)
{
	char path[600];
	int fd;

	snprintf(chan_name, sizeof(chan_name), "%s", name);
	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("%s: %s", path, errno == EPERM ?
		    "creating a channel needs CAP_PERFMON or CAP_SYS_ADMIN" :
		    strerror(errno));
	if (dprintf(fd, "create %s\n", chan_name) < 0)
		die("cannot create channel %s: %s", chan_name,
		    errno == EEXIST ?
		    "it exists (a recording killed? lrb-record reset NAME removes it)" :
		    errno == EINVAL ? "bad name (up to 32 ASCII letters, digits, '_' and '-')" :
		    errno == ENOSPC ?
		    "64 channels exist already (lrb-record reset removes killed recordings')" :
		    strerror(errno));
	close(fd);
	chan_created = true;
	snprintf(chan_dir, sizeof(chan_dir), "%s/lrb/%s", tracefs, chan_name);
}

static void set(const char *file, const char *val)
{
	int ret = put_file(file, val);

	if (ret)
		die("%s = %s: %s", file, val, strerror(-ret));
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static bool use_splice = true;

/* A pipe that holds a whole packet, for splice(); none if it cannot. */
static void close_pipe(struct stream *s)
{
	if (s->pipe[0] >= 0) {
		close(s->pipe[0]);
		close(s->pipe[1]);
	}
	s->pipe[0] = -1;
	s->pipe[1] = -1;
}

static void open_pipe(struct stream *s)
{
	if (!use_splice || pipe2(s->pipe, O_CLOEXEC)) {
		s->pipe[0] = -1;
		return;
	}
	if (fcntl(s->pipe[0], F_SETPIPE_SZ, (int)s->info.subbuf_size) <
	    (int)s->info.subbuf_size)
		close_pipe(s);
}

/* Open the stream file of @cpu and map it; false if the CPU has none. */
static bool open_stream(struct stream *s, int cpu, int flags)
{
	char path[700];

	memset(s, 0, sizeof(*s));
	s->cpu = cpu;
	snprintf(path, sizeof(path), "%s/streams/cpu%d", chan_dir, cpu);
	/* Not for COMMAND: a file it kept open would keep the channel busy. */
	s->fd = open(path, O_RDONLY | O_CLOEXEC | flags);
	if (s->fd < 0 && errno == ENOENT)
		return false;
	if (s->fd < 0)
		die("%s: %s", path, errno == EBUSY ?
		    "open by another reader" : strerror(errno));
	if (ioctl(s->fd, LRB_IOC_GET_INFO, &s->info))
		die("%s: LRB_IOC_GET_INFO: %s", path, strerror(errno));
	s->map = mmap(NULL, s->info.mmap_size, PROT_READ, MAP_SHARED,
		      s->fd, 0);
	if (s->map == MAP_FAILED)
		die("%s: mmap: %s", path, strerror(errno));
	return true;
}

/* Create (truncate) DIR/stream_N for @s. */
static void open_output(struct stream *s, const char *outdir)
{
	char path[700];

	snprintf(path, sizeof(path), "%s/stream_%d", outdir, s->cpu);
	s->out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (s->out < 0)
		die("%s: %s", path, strerror(errno));
}

static void open_streams(const char *outdir, const bool *cpus)
{
	int list[MAX_CPUS], n = 0;
	char path[700];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/streams", chan_dir);
	d = opendir(path);
	if (!d)
		die("%s: %s", path, strerror(errno));
	while ((de = readdir(d)) && n < MAX_CPUS)
		if (!strncmp(de->d_name, "cpu", 3))
			list[n++] = atoi(de->d_name + 3);
	closedir(d);
	qsort(list, n, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++) {
		struct stream *s = &streams[nr_streams];

		if (cpus && !cpus[list[i]])
			continue;
		if (!open_stream(s, list[i], O_NONBLOCK))
			continue;
		open_pipe(s);
		open_output(s, outdir);
		nr_streams++;
	}
	if (!nr_streams)
		die("%s/streams: no stream file%s", chan_dir,
		    cpus ? " of the CPUs given with --cpu" : "");
}

/* Write @left bytes at @p to the stream file of @s. */
static void write_out(struct stream *s, const unsigned char *p, size_t left)
{
	while (left) {
		ssize_t n = write(s->out, p, left);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("writing stream_%d: %s", s->cpu,
			    n < 0 && errno == ENOSPC ? "disk full" :
			    strerror(n < 0 ? errno : EIO));
		p += n;
		left -= n;
	}
}

/*
 * Move the complete sub-buffers of @s to its file through the pipe, at
 * most a buffer's worth, as drain() copies them. Returns false, with
 * nothing moved, if the kernel cannot splice.
 */
static bool drain_splice(struct stream *s)
{
	for (__u64 i = 0; i < s->info.num_subbufs; ) {
		ssize_t n = splice(s->fd, NULL, s->pipe[1], NULL,
				   s->info.subbuf_size, SPLICE_F_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return true;
		if (n < 0 && errno == EINVAL && !s->packets)
			return false;
		if (n < 0)
			die("cpu %d: splice: %s", s->cpu, strerror(errno));
		if (!n)
			return true;	/* end of file */
		for (ssize_t left = n; left; ) {
			ssize_t m = splice(s->pipe[0], NULL, s->out, NULL, left,
					   SPLICE_F_MOVE);

			if (m < 0 && errno == EINTR)
				continue;
			if (m <= 0)
				die("writing stream_%d: %s", s->cpu,
				    m < 0 && errno == ENOSPC ? "disk full" :
				    strerror(m < 0 ? errno : EIO));
			left -= m;
		}
		/* A splice of a sub-buffer's size reads one packet. */
		s->bytes += n;
		s->packets++;
		i++;
	}
	return true;
}

/*
 * Copy the complete sub-buffers of @s to its file, at most a buffer's
 * worth: writers that fill sub-buffers as fast as they are copied (the
 * recorder's own work, traced) must not keep the other CPUs waiting.
 * Once the writers have stopped, one call copies everything.
 */
static void drain(struct stream *s)
{
	__u64 pos, off, padded;

	if (s->pipe[0] >= 0) {
		if (drain_splice(s))
			return;
		close_pipe(s);
	}

	for (__u64 i = 0; i < s->info.num_subbufs; i++) {
		if (ioctl(s->fd, LRB_IOC_GET_SUBBUF, &pos)) {
			if (errno != EAGAIN)
				die("cpu %d: get: %s", s->cpu, strerror(errno));
			return;
		}
		if (ioctl(s->fd, LRB_IOC_GET_MMAP_OFFSET, &off) ||
		    ioctl(s->fd, LRB_IOC_GET_PADDED_SIZE, &padded))
			die("cpu %d: ioctl: %s", s->cpu, strerror(errno));
		write_out(s, s->map + off, padded);
		if (ioctl(s->fd, LRB_IOC_PUT_SUBBUF, &pos)) {
			if (errno != EIO)
				die("cpu %d: put: %s", s->cpu, strerror(errno));
			/* Overwritten while copied: drop the copy. */
			if (ftruncate(s->out, s->bytes) ||
			    lseek(s->out, s->bytes, SEEK_SET) < 0)
				die("stream_%d: %s", s->cpu, strerror(errno));
			s->dropped++;
			continue;
		}
		s->bytes += padded;
		s->packets++;
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static __u64 total_bytes(void)
{
	__u64 b = 0;

	for (int i = 0; i < nr_streams; i++)
		b += streams[i].bytes;
	return b;
}

static void progress(double elapsed, const bool *cpus)
{
	struct counts c;

	if (read_counts(&c, cpus))
		return;
	fprintf(stderr,
		"\r%6.1f s  %llu events  %.1f MiB  lost: full %llu overwritten %llu other %llu   ",
		elapsed, c.delivered, total_bytes() / 1048576.0, c.lost[0], c.lost[1],
		c.lost[2] + c.lost[3] + c.lost[4]);
}

/* The write end of the pipe a --follow command waits on, or -1. */
static int hold_fd = -1;

/*
 * --follow: the command's process, made before the channel starts and
 * held until start_child() lets it exec, so that the channel targets it
 * and its descendants from their first event.
 */
static void start_child_held(char **argv)
{
	int p[2];
	char c;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		close(p[1]);
		/* lrb-record closes its end once the channel runs. */
		if (read(p[0], &c, 1) != 0)
			_exit(127);
		close(p[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "lrb-record: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(p[0]);
	hold_fd = p[1];
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void start_child(char **argv)
{
	/* --follow: made before the channel started; let it run. */
	if (hold_fd >= 0) {
		close(hold_fd);
		hold_fd = -1;
		return;
	}
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		execvp(argv[0], argv);
		fprintf(stderr, "lrb-record: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
}

static void copy_file(const char *from, const char *dir, const char *name)
{
	char path[700], *text;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", chan_dir, from);
	text = read_all(path, &len);
	if (!text)
		die("%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		die("%s: %s", path, strerror(errno));
	free(text);
}

/*
 * The kernel's symbols, DIR/.kallsyms, beside a trace whose channel records
 * kernel stacks ("# stack" in its events file), for lrb-record report
 * --symbols and other readers to name the addresses with. Hidden, as
 * .lrb-stats: babeltrace2 takes any other file of DIR for a stream.
 * The function tracer's records ("ftrace:" events) need it too.
 */
static void save_kallsyms(const char *dir)
{
	char path[700], *text, *events;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/events", chan_dir);
	events = read_all(path, NULL);
	if (!events || (!strstr(events, "\n# stack ") &&
			!strstr(events, "ftrace:"))) {
		free(events);
		return;
	}
	free(events);
	text = read_all("/proc/kallsyms", &len);
	if (!text)
		die("/proc/kallsyms: %s", strerror(errno));
	if (!strncmp(text, "0000000000000000 ", 17) || !strncmp(text, "00000000 ", 9))
		fprintf(stderr, "lrb-record: %s\n",
			"/proc/kallsyms shows no addresses (kptr_restrict): the stacks cannot be named");
	snprintf(path, sizeof(path), "%s/.kallsyms", dir);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		die("%s: %s", path, strerror(errno));
	free(text);
}

static void copy_metadata(const char *outdir)
{
	copy_file("metadata", outdir, "metadata");
	save_kallsyms(outdir);
}

/*
 * Make @dir the empty directory a trace goes to: created, or, with
 * @force, emptied of its files. Only checked with @dry_run.
 */
static void prepare_output(const char *dir, bool force, bool dry_run)
{
	struct dirent *de;
	struct stat st;
	bool empty = true;
	DIR *d;

	if (stat(dir, &st)) {
		if (errno != ENOENT || (!dry_run && mkdir(dir, 0755)))
			die("%s: %s", dir, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode))
		die("%s exists and is not a directory", dir);
	d = opendir(dir);
	if (!d)
		die("%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!force) {
			empty = false;
			break;
		}
		if (de->d_type == DT_DIR)
			die("%s holds the directory %s, %s", dir, de->d_name,
			    "which --force does not remove: pick another --output");
		if (!dry_run && unlinkat(dirfd(d), de->d_name, 0))
			die("%s/%s: %s", dir, de->d_name, strerror(errno));
	}
	closedir(d);
	if (!empty)
		die("%s exists and is not empty: %s", dir,
		    "pick another --output, or add --force to replace what it holds");
}

/* What a snapshot of one CPU skipped. */
struct snap_count {
	__u64 packets, reused, incomplete;
};

/* Copy the snapshot window of one CPU to @dir/stream_N; 0, or -1 if no CPU. */
static int snapshot_stream(const char *dir, int cpu, struct snap_count *sc,
			   FILE *info)
{
	struct stream s;
	size_t n, i, first, last, sbs;
	struct lrb_snapshot snap;
	unsigned char *copy;
	__u64 pos, off, padded;
	size_t *len;

	if (!open_stream(&s, cpu, 0))
		return -1;
	if (ioctl(s.fd, LRB_IOC_SNAPSHOT, &snap))
		die("%s: snapshot: %s", chan_name, errno == EINVAL ?
		    "the channel does not overwrite (mode discard): record it instead" :
		    strerror(errno));
	open_output(&s, dir);
	sbs = s.info.subbuf_size;
	n = (snap.end - snap.begin) / sbs;
	if (n > s.info.num_subbufs)
		die("cpu %d: snapshot window %llu..%llu larger than the buffer",
		    cpu, (unsigned long long)snap.begin,
		    (unsigned long long)snap.end);
	first = n;
	last = n;
	copy = malloc(n ? n * sbs : 1);
	len = calloc(n ? n : 1, sizeof(*len));
	if (!copy || !len)
		die("out of memory");
	/*
	 * Newest first: writers reuse the oldest sub-buffers first, so once
	 * one is found reused the older ones are too, and the packets kept
	 * are a run without gaps up to the snapshot.
	 */
	for (i = n; i-- > 0; ) {
		int tries = 0, ret;

		pos = snap.begin + i * sbs;
		/* A writer the flush interrupted commits in microseconds. */
		while ((ret = ioctl(s.fd, LRB_IOC_GET_SUBBUF_AT, &pos)) &&
		       errno == EAGAIN && ++tries < 100)
			usleep(100);
		if (ret && errno == EAGAIN && first == n) {
			sc->incomplete++;	/* the newest: nothing after it */
			continue;
		}
		if (ret && (errno == ESTALE || errno == EAGAIN))
			break;
		if (ret || ioctl(s.fd, LRB_IOC_GET_MMAP_OFFSET, &off) ||
		    ioctl(s.fd, LRB_IOC_GET_PADDED_SIZE, &padded))
			die("cpu %d: snapshot get: %s", cpu, strerror(errno));
		if (padded > sbs)
			die("cpu %d: a packet of %llu bytes in sub-buffers of %zu",
			    cpu, (unsigned long long)padded, sbs);
		len[i] = padded;
		memcpy(copy + i * sbs, s.map + off, padded);
		if (ioctl(s.fd, LRB_IOC_PUT_SUBBUF, &pos)) {
			if (errno != ESTALE)
				die("cpu %d: snapshot put: %s", cpu, strerror(errno));
			break;	/* reused while copied */
		}
		if (first == n)
			last = i + 1;
		first = i;
	}
	/* Older than the first kept: reused, or about to be. */
	sc->packets = last - first;
	sc->reused = n - sc->packets - sc->incomplete;
	for (i = first; i < last; i++)
		write_out(&s, copy + i * sbs, len[i]);
	free(copy);
	free(len);
	fprintf(info, "cpu %d begin %llu end %llu packets %llu reused %llu incomplete %llu\n",
		cpu, (unsigned long long)snap.begin, (unsigned long long)snap.end,
		sc->packets, sc->reused, sc->incomplete);
	munmap((void *)s.map, s.info.mmap_size);
	close(s.fd);
	if (close(s.out))
		die("closing stream_%d: %s", cpu, strerror(errno));
	return 0;
}

/*
 * Write what the running channel holds to the trace directory @dir,
 * consuming nothing: each CPU flushed, then its complete sub-buffers but
 * those writers reuse meanwhile (skipped and counted in @dir/.lrb-snapshot).
 */
static void take_snapshot(const char *dir, bool quiet)
{
	struct snap_count sum = {};
	char path[700];
	int cpus = 0;
	FILE *info;

	snprintf(path, sizeof(path), "%s/.lrb-snapshot", dir);
	info = fopen(path, "w");
	if (!info)
		die("%s: %s", path, strerror(errno));
	for (int cpu = 0; cpu < MAX_CPUS; cpu++) {
		struct snap_count sc = {};

		if (snapshot_stream(dir, cpu, &sc, info))
			continue;
		sum.packets += sc.packets;
		sum.reused += sc.reused;
		sum.incomplete += sc.incomplete;
		cpus++;
	}
	if (fclose(info))
		die("%s: %s", path, strerror(errno));
	if (!cpus)
		die("%s/streams: no stream files", chan_dir);
	copy_metadata(dir);
	if (!quiet)
		fprintf(stderr,
			"lrb-record: snapshot of %s to %s: %llu packets from %d CPUs, %llu reused by writers (skipped), %llu incomplete\n",
			chan_name, dir, sum.packets, cpus, sum.reused,
			sum.incomplete);
}

/* lrb-trace-20261201-104501 and the like, from the local time. */
static void default_dir(char *buf, size_t size, const char *prefix)
{
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	snprintf(buf, size, "%s", prefix);
	strftime(buf + strlen(buf), size - strlen(buf), "%Y%m%d-%H%M%S", &tm);
}

/* A count: a decimal number, bad usage if it is not one. */
static unsigned long long parse_count(const char *opt, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end || *s == '-' || errno)
		usage_error("%s %s: not a number", opt, s);
	return v;
}

#define NOT_A_SIZE "not a size (a number of bytes, with an optional k, M or G suffix)"

/*
 * A size: a decimal number of bytes with an optional k, M or G suffix
 * (1024-based, "KiB"-style spellings too). Bad usage if it is not one.
 */
static unsigned long long parse_size(const char *opt, const char *s)
{
	unsigned long long v, mul = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *s == '-' || errno)
		usage_error("%s %s: %s", opt, s, NOT_A_SIZE);
	switch (*end) {
	case 'k': case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm': case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g': case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	}
	if (mul > 1 && *end == 'i')
		end++;
	if (mul > 1 && (*end == 'B' || *end == 'b'))
		end++;
	if (*end || v > ~0ULL / mul)
		usage_error("%s %s: %s", opt, s, NOT_A_SIZE);
	return v * mul;
}

static unsigned long long pow2_up(unsigned long long v)
{
	unsigned long long p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static const char *size_str(unsigned long long v, char *buf, size_t size)
{
	if (v && !(v & ((1ULL << 20) - 1)))
		snprintf(buf, size, "%lluM", v >> 20);
	else if (v && !(v & 1023))
		snprintf(buf, size, "%lluk", v >> 10);
	else
		snprintf(buf, size, "%llu", v);
	return buf;
}

/* Round @v up to a power of two within bounds, as LTTng does; say so. */
static unsigned long long round_setting(const char *opt, const char *arg,
					unsigned long long v,
					unsigned long long min,
					unsigned long long max, bool quiet)
{
	unsigned long long r;
	char a[32], b[32];

	/* Checked before rounding: @max is a power of two, pow2_up() not. */
	if (v < 1 || v > max)
		usage_error("%s %s: must be %s to %s", opt, arg,
			    size_str(min, a, sizeof(a)),
			    size_str(max, b, sizeof(b)));
	r = pow2_up(v);
	if (r < min)
		r = min;
	if (r != v && !quiet)
		fprintf(stderr, "lrb-record: %s %s rounded up to %s\n", opt,
			arg, size_str(r, a, sizeof(a)));
	return r;
}

/* A CPU list as 0,2-3: marks them in @cpus (MAX_CPUS entries). */
static void parse_cpus(const char *s, bool *cpus)
{
	const char *p = s;

	while (*p) {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				goto bad;
			b = strtol(end + 1, &end, 10);
		}
		if (a > b || b >= MAX_CPUS)
			goto bad;
		for (long c = a; c <= b; c++)
			cpus[c] = true;
		p = end;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	return;
bad:
	usage_error("--cpu %s: not a CPU list (as 0,2-3; CPUs below %d)", s,
		    MAX_CPUS);
}

static double parse_duration(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(d) || d <= 0)
		usage_error("--duration %s: not a positive number of seconds",
			    s);
	return d;
}

/* The settings of a recording, from the command line. */
struct record_opts {
	const char *outdir;
	char outbuf[64];
	const char *topdir;
	char kernel_dir[4096];
	bool force;
	const char *events[256];
	int nr_events;
	/* the --filter of each --event, or NULL */
	const char *filters[256];
	/* the --stack depth of each --event, 0 for none; of every one */
	unsigned int stacks[256];
	unsigned int stack_all;
	bool common_fields;
	char name[64];
	unsigned long long subbuf_size, num_subbufs;
	const char *subbuf_arg, *num_arg;
	unsigned long long buffer_size;
	const char *buffer_arg;
	const char *mode;
	const char *clock_name;
	const char *layout;
	bool cpus[MAX_CPUS];
	bool cpu_list;
	const char *cpu_arg;
	/* the tasks, users to record; the command's descendants too */
	char pids[4096];
	const char *uids;
	bool follow;
	double duration;
	bool quiet;
	bool dry_run;
	bool default_events;
	bool flight;
	const char *switch_timer;
	unsigned long long switch_us;
	/* the dynamic events to create: the option, the definition */
	const char *probe_opts[64];
	char *probes[64];
	int nr_probes;
	bool keep_probes;
	/* the function tracer: its events, and which functions */
	bool function_tracer;
	bool graph;
	const char *ftrace_filter[64];
	int nr_ftrace_filter;
	const char *ftrace_notrace[64];
	int nr_ftrace_notrace;
};

/* A probe of --kprobe, --uprobe, --probe or --function, checked. */
static void add_probe(struct record_opts *o, const char *opt, char *def)
{
	const char *why;

	if (!def)
		usage_error("out of memory");
	if (o->nr_probes == 64)
		usage_error("more than 64 probes");
	why = probe_check(opt, def);
	if (why)
		usage_error("%s '%s': %s", opt, def, why);
	o->probe_opts[o->nr_probes] = opt;
	o->probes[o->nr_probes++] = def;
}

/* --probe SYM[+OFF] and --function SYM, as LTTng's options take them. */
static void add_symbol_probe(struct record_opts *o, const char *opt,
			     const char *sym)
{
	size_t len = strcspn(sym, "+");
	char *def;

	if (!*sym || strlen(sym) > 200 || strcspn(sym, " \t\n:/") != strlen(sym) ||
	    (!strcmp(opt, "--function") && sym[len]))
		usage_error("%s '%s': %s", opt, sym, strcmp(opt, "--function") ?
			    "a kernel symbol, and +OFFSET" : "a kernel symbol");
	if (!strcmp(opt, "--probe")) {
		add_probe(o, opt, asprintf(&def, "p %s", sym) < 0 ? NULL : def);
		return;
	}
	add_probe(o, opt, asprintf(&def, "p:kprobes/%s_entry %s", sym, sym) < 0 ?
		  NULL : def);
	add_probe(o, opt, asprintf(&def, "r:kprobes/%s_return %s", sym, sym) < 0 ?
		  NULL : def);
}

/*
 * Create the probes, each recorded as the event ftrace names it; after
 * the recording they go (probes.c), unless --keep-probes.
 */
static void create_probes(struct record_opts *o)
{
	static char names[64][256];

	for (int i = 0; i < o->nr_probes; i++) {
		int err = probe_create(tracefs, o->probe_opts[i], o->probes[i],
				       o->keep_probes, names[i],
				       sizeof(names[i]));

		if (err)
			die("%s '%s': %s", o->probe_opts[i], o->probes[i],
			    strerror(-err));
		if (o->nr_events == 256)
			die("more than 256 events with the probes");
		o->events[o->nr_events++] = names[i];
		if (!o->quiet)
			fprintf(stderr, "lrb-record: %s: recording %s\n",
				o->probe_opts[i], names[i]);
	}
}

/* -l and -n: a GLOB of set_ftrace_filter's, kept for set_functions(). */
static void add_function_glob(const char *opt, const char *glob,
			      const char **globs, int *nr)
{
	if (*nr == 64)
		usage_error("more than 64 %s options", opt);
	if (!*glob || strlen(glob) > 200 || strpbrk(glob, " \t\n"))
		usage_error("%s '%s': %s", opt, glob,
			    "a function glob, without spaces");
	globs[(*nr)++] = glob;
}

/*
 * Which functions the channel's function tracer traces: each GLOB
 * written to its set_ftrace_filter (@filter) or set_ftrace_notrace,
 * ended by a newline so that the kernel matches it at once and a GLOB
 * that matches nothing fails the write.
 */
static void set_functions(const char *opt, const char *file,
			  const char *const *globs, int nr)
{
	char line[256];
	int err;

	for (int i = 0; i < nr; i++) {
		snprintf(line, sizeof(line), "%s\n", globs[i]);
		err = put_file(file, line);
		if (err == -ENOENT)
			die("%s: %s", opt,
			    "this kernel's LRB has no function tracer (CONFIG_LRB_FUNCTION_TRACER, CONFIG_DYNAMIC_FTRACE)");
		if (err == -EINVAL)
			die("%s '%s': %s", opt, globs[i],
			    "matches no function that can be traced (available_filter_functions lists them)");
		if (err == -ENODEV)
			die("%s '%s': %s", opt, globs[i],
			    "a command of ftrace's set_ftrace_filter that acts on an ftrace instance, not on a channel");
		if (err)
			die("%s '%s': %s", opt, globs[i], strerror(-err));
	}
}

static bool is_lttng(const struct record_opts *o)
{
	return o->layout && !strcmp(o->layout, "lttng");
}

/*
 * Filter the records of @event with @expr (NAME/filter). A filter that
 * does not compile: the kernel's message, the caret under the error.
 */
static void set_filter(const char *event, const char *expr)
{
	char cmd[4096 + 64], path[600], *msg, *line, *save;
	int err;

	snprintf(cmd, sizeof(cmd), "%s %s\n", event, expr);
	err = put_file("filter", cmd);
	if (!err)
		return;
	if (err == -EOPNOTSUPP)
		die("-e %s -f '%s': %s", event, expr,
		    "its records cannot be filtered (markers, the statedump, or a record of its own in the lttng layout)");
	if (err != -EINVAL)
		die("-e %s -f '%s': %s", event, expr, strerror(-err));
	snprintf(path, sizeof(path), "%s/filter", chan_dir);
	msg = read_all(path, NULL);
	for (line = msg ? strtok_r(msg, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "# ", 2))
			fprintf(stderr, "lrb-record: %s\n", line + 2);
	free(msg);
	die("-e %s -f '%s': %s", event, expr, "the filter does not compile");
}

/* Record the kernel stack after each record of @event ("stack" command). */
static void set_stack(const char *event, unsigned int depth)
{
	char cmd[128];
	int err;

	snprintf(cmd, sizeof(cmd), "stack %s %u\n", event, depth);
	err = put_file("events", cmd);
	if (err == -EOPNOTSUPP)
		die("-e %s --stack: %s", event,
		    "it has no kernel stacks (markers, the statedump)");
	if (err)
		die("-e %s --stack: %s", event, strerror(-err));
}

/* -T/--stack[=DEPTH]: for the -e before it, or for every -e. */
static void set_stack_opt(struct record_opts *o, const char *arg)
{
	unsigned long depth = 32;
	char *end;

	if (arg) {
		errno = 0;
		depth = strtoul(arg, &end, 10);
		if (errno || *end || end == arg || !depth || depth > 128)
			usage_error("--stack=%s: a depth from 1 to 128", arg);
	}
	if (!o->nr_events) {
		if (o->stack_all)
			usage_error("more than one --stack before the first --event");
		o->stack_all = depth;
		return;
	}
	if (o->stacks[o->nr_events - 1])
		usage_error("-e %s: more than one --stack",
			    o->events[o->nr_events - 1]);
	o->stacks[o->nr_events - 1] = depth;
}

/*
 * Add the tasks of the processes of @list ("1234,5678") to @buf, each
 * with its threads (/proc/PID/task), as perf's -p takes a process.
 */
static void add_pids(char *buf, size_t size, const char *list)
{
	char *copy = strdup(list), *tok, *save, *end, dir[64];
	struct dirent *de;
	size_t len;
	DIR *d;

	for (tok = strtok_r(copy, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save)) {
		long pid = strtol(tok, &end, 10);

		if (*end || end == tok || pid <= 0 || pid > 4194304)
			usage_error("--pid %s: %s is not a process id", list, tok);
		snprintf(dir, sizeof(dir), "/proc/%ld/task", pid);
		d = opendir(dir);
		if (!d)
			usage_error("--pid %s: no process %ld", list, pid);
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			len = strlen(buf);
			if (len + strlen(de->d_name) + 2 > size)
				usage_error("--pid %s: too many tasks", list);
			snprintf(buf + len, size - len, "%s%s", len ? " " : "",
				 de->d_name);
		}
		closedir(d);
	}
	free(copy);
}

/* --uid LIST: user ids, as 0,1000, checked here. */
static void parse_uids(const char *list)
{
	char *copy = strdup(list), *tok, *save, *end;
	int n = 0;

	for (tok = strtok_r(copy, ", ", &save); tok;
	     tok = strtok_r(NULL, ", ", &save), n++) {
		unsigned long uid = strtoul(tok, &end, 10);

		if (*end || end == tok || *tok == '-' || uid >= 0xffffffffUL)
			usage_error("--uid %s: %s is not a user id", list, tok);
	}
	if (!n || n > 64)
		usage_error("--uid %s: 1 to 64 user ids", list);
	free(copy);
}

/*
 * The tasks, users and CPUs the channel records, before it starts: the
 * kernel ignores the others' events before it reserves anything.
 */
static void set_targets(const struct record_opts *o, int argc, char **argv)
{
	char pid[32];
	int err;

	if (o->cpu_arg) {
		err = put_file("cpus", o->cpu_arg);
		if (err)
			die("--cpu %s: %s", o->cpu_arg, strerror(-err));
	}
	if (o->uids)
		set("uids", o->uids);
	if (o->pids[0])
		set("pids", o->pids);
	if (!o->follow)
		return;
	start_child_held(argv + optind);
	snprintf(pid, sizeof(pid), "%d", (int)child);
	/* Appended: the --pid tasks stay. */
	err = put_file_append("pids", pid);
	if (!err)
		err = put_file("pid_follow", "1");
	if (err)
		die("--follow: %s", strerror(-err));
}

enum {
	OPT_FORCE = 256,
	OPT_COMMON_FIELDS,
	OPT_SUBBUF_SIZE,
	OPT_NUM_SUBBUFS,
	OPT_OVERWRITE,
	OPT_CPU,
	OPT_DURATION,
	OPT_DRY_RUN,
	OPT_VERSION,
	OPT_FLIGHT,
	OPT_SWITCH_TIMER,
	OPT_NO_SPLICE,
	OPT_LAYOUT,
	OPT_UID,
	OPT_FOLLOW,
	OPT_STACK,
	OPT_KPROBE,
	OPT_UPROBE,
	OPT_PROBE,
	OPT_FUNCTION,
	OPT_KEEP_PROBES,
	OPT_FUNCTION_TRACER,
	OPT_GRAPH,
};

static const struct option record_long[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "event", required_argument, NULL, 'e' },
	{ "filter", required_argument, NULL, 'f' },
	{ "stack", optional_argument, NULL, OPT_STACK },
	{ "kprobe", required_argument, NULL, OPT_KPROBE },
	{ "uprobe", required_argument, NULL, OPT_UPROBE },
	{ "probe", required_argument, NULL, OPT_PROBE },
	{ "function", required_argument, NULL, OPT_FUNCTION },
	{ "keep-probes", no_argument, NULL, OPT_KEEP_PROBES },
	{ "function-tracer", no_argument, NULL, OPT_FUNCTION_TRACER },
	{ "graph", no_argument, NULL, OPT_GRAPH },
	{ "function-filter", required_argument, NULL, 'l' },
	{ "function-notrace", required_argument, NULL, 'n' },
	{ "common-fields", no_argument, NULL, OPT_COMMON_FIELDS },
	{ "channel", required_argument, NULL, 'B' },
	{ "buffer-size", required_argument, NULL, 'b' },
	{ "subbuf-size", required_argument, NULL, OPT_SUBBUF_SIZE },
	{ "num-subbufs", required_argument, NULL, OPT_NUM_SUBBUFS },
	{ "num-subbuf", required_argument, NULL, OPT_NUM_SUBBUFS },
	{ "overwrite", no_argument, NULL, OPT_OVERWRITE },
	{ "flight-recorder", no_argument, NULL, OPT_FLIGHT },
	{ "switch-timer", required_argument, NULL, OPT_SWITCH_TIMER },
	{ "no-splice", no_argument, NULL, OPT_NO_SPLICE },
	{ "clock", required_argument, NULL, 'C' },
	{ "layout", required_argument, NULL, OPT_LAYOUT },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "pid", required_argument, NULL, 'P' },
	{ "uid", required_argument, NULL, OPT_UID },
	{ "follow", no_argument, NULL, OPT_FOLLOW },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "quiet", no_argument, NULL, 'q' },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Sub-buffer size and count from the command line: rounded, checked. */
static void size_buffers(struct record_opts *o)
{
	char a[32], b[32];

	if (o->subbuf_arg)
		o->subbuf_size = round_setting("--subbuf-size", o->subbuf_arg,
					       o->subbuf_size, SUBBUF_SIZE_MIN,
					       SUBBUF_SIZE_MAX, o->quiet);
	if (o->num_arg)
		o->num_subbufs = round_setting("--num-subbufs", o->num_arg,
					       o->num_subbufs, NUM_SUBBUFS_MIN,
					       NUM_SUBBUFS_MAX, o->quiet);
	if (o->buffer_arg) {
		unsigned long long total;

		total = round_setting("--buffer-size", o->buffer_arg,
				      o->buffer_size,
				      SUBBUF_SIZE_MIN * NUM_SUBBUFS_MIN,
				      CPU_BUF_SIZE_MAX, o->quiet);
		if (o->subbuf_arg && o->num_arg &&
		    o->subbuf_size * o->num_subbufs != total)
			usage_error("--buffer-size %s contradicts %s %s x %s %s",
				    o->buffer_arg, "--subbuf-size", o->subbuf_arg,
				    "--num-subbufs", o->num_arg);
		if (!o->subbuf_arg && !o->num_arg) {
			/* 16 sub-buffers, as the kernel's default, if it can. */
			o->subbuf_size = total / 16;
			if (o->subbuf_size < SUBBUF_SIZE_MIN)
				o->subbuf_size = SUBBUF_SIZE_MIN;
			if (o->subbuf_size > SUBBUF_SIZE_MAX)
				o->subbuf_size = SUBBUF_SIZE_MAX;
		}
		if (o->subbuf_arg || !o->num_arg)
			o->num_subbufs = total / o->subbuf_size;
		else
			o->subbuf_size = total / o->num_subbufs;
		if (o->subbuf_size < SUBBUF_SIZE_MIN ||
		    o->subbuf_size > SUBBUF_SIZE_MAX ||
		    o->num_subbufs < NUM_SUBBUFS_MIN ||
		    o->num_subbufs > NUM_SUBBUFS_MAX)
			usage_error("--buffer-size %s: gives %llu sub-buffers of %s bytes %s",
				    o->buffer_arg, o->num_subbufs,
				    size_str(o->subbuf_size, a, sizeof(a)),
				    "(2 to 1024 sub-buffers of 256 to 4M bytes)");
	}
	if (o->subbuf_size * o->num_subbufs > CPU_BUF_SIZE_MAX)
		usage_error("%llu sub-buffers of %s bytes: more than %s bytes per CPU",
			    o->num_subbufs, size_str(o->subbuf_size, a, sizeof(a)),
			    size_str(CPU_BUF_SIZE_MAX, b, sizeof(b)));
}

static void parse_record(int argc, char **argv, struct record_opts *o)
{
	int opt;

	snprintf(o->name, sizeof(o->name), AUTO_PREFIX "%d", (int)getpid());
	o->subbuf_size = 16384;
	o->num_subbufs = 16;
	/* "+": options end at COMMAND; ":" next: report errors ourselves. */
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:o:e:f:T::l:n:P:B:b:C:qh", record_long,
				  NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->outdir = optarg;
			break;
		case OPT_FORCE:
			o->force = true;
			break;
		case 'e':
			if (o->nr_events == 256)
				usage_error("more than 256 --event options");
			o->events[o->nr_events++] = optarg;
			break;
		case OPT_COMMON_FIELDS:
			o->common_fields = true;
			break;
		case 'f':
			/* As trace-cmd's -f: the filter of the -e before it. */
			if (!o->nr_events)
				usage_error("--filter %s: give it after the --event it filters",
					    optarg);
			if (o->filters[o->nr_events - 1])
				usage_error("-e %s: more than one --filter",
					    o->events[o->nr_events - 1]);
			if (!*optarg || strlen(optarg) >= 4000 ||
			    strchr(optarg, '\n'))
				usage_error("--filter '%s': %s", optarg,
					    "one line of 1 to 3999 bytes");
			o->filters[o->nr_events - 1] = optarg;
			break;
		case 'T':
		case OPT_STACK:
			set_stack_opt(o, optarg);
			break;
		case OPT_KPROBE:
			add_probe(o, "--kprobe", strdup(optarg));
			break;
		case OPT_UPROBE:
			add_probe(o, "--uprobe", strdup(optarg));
			break;
		case OPT_PROBE:
			add_symbol_probe(o, "--probe", optarg);
			break;
		case OPT_FUNCTION:
			add_symbol_probe(o, "--function", optarg);
			break;
		case OPT_KEEP_PROBES:
			o->keep_probes = true;
			break;
		case OPT_FUNCTION_TRACER:
			o->function_tracer = true;
			break;
		case OPT_GRAPH:
			o->function_tracer = true;
			o->graph = true;
			break;
		case 'l':
			o->function_tracer = true;
			add_function_glob("--function-filter", optarg,
					  o->ftrace_filter,
					  &o->nr_ftrace_filter);
			break;
		case 'n':
			o->function_tracer = true;
			add_function_glob("--function-notrace", optarg,
					  o->ftrace_notrace,
					  &o->nr_ftrace_notrace);
			break;
		case 'B':
			snprintf(o->name, sizeof(o->name), "%s", optarg);
			break;
		case 'b':
			o->buffer_arg = optarg;
			o->buffer_size = parse_size("--buffer-size", optarg);
			break;
		case OPT_SUBBUF_SIZE:
			o->subbuf_arg = optarg;
			o->subbuf_size = parse_size("--subbuf-size", optarg);
			break;
		case OPT_NUM_SUBBUFS:
			o->num_arg = optarg;
			o->num_subbufs = parse_count("--num-subbufs", optarg);
			break;
		case OPT_OVERWRITE:
			o->mode = "overwrite";
			break;
		case OPT_FLIGHT:
			o->flight = true;
			o->mode = "overwrite";
			break;
		case OPT_SWITCH_TIMER: {
			char *end;

			errno = 0;
			o->switch_timer = optarg;
			o->switch_us = strtoull(optarg, &end, 10);
			if (end == optarg || *end || *optarg == '-' || errno ||
			    (o->switch_us && (o->switch_us < SWITCH_TIMER_MIN_US ||
					      o->switch_us > SWITCH_TIMER_MAX_US)))
				usage_error("--switch-timer %s: %s %llu to %llu",
					    optarg, "microseconds, 0 (off) or",
					    SWITCH_TIMER_MIN_US,
					    SWITCH_TIMER_MAX_US);
			break;
		}
		case OPT_NO_SPLICE:
			use_splice = false;
			break;
		case 'C':
			if (strcmp(optarg, "local") && strcmp(optarg, "global"))
				usage_error("--clock %s: local or global",
					    optarg);
			o->clock_name = optarg;
			break;
		case OPT_LAYOUT:
			if (strcmp(optarg, "ftrace") && strcmp(optarg, "lttng"))
				usage_error("--layout %s: ftrace or lttng",
					    optarg);
			o->layout = optarg;
			break;
		case OPT_CPU:
			o->cpu_list = true;
			parse_cpus(optarg, o->cpus);
			o->cpu_arg = optarg;
			break;
		case 'P':
			add_pids(o->pids, sizeof(o->pids), optarg);
			break;
		case OPT_UID:
			parse_uids(optarg);
			o->uids = optarg;
			break;
		case OPT_FOLLOW:
			o->follow = true;
			break;
		case OPT_DURATION:
			o->duration = parse_duration(optarg);
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_DRY_RUN:
			o->dry_run = true;
			break;
		case 'h':
			print_help();
			exit(0);
		case OPT_VERSION:
			printf("lrb-record %s\n", LRB_RECORD_VERSION);
			exit(0);
		case ':':
			usage_error("%s needs an argument", argv[optind - 1]);
			break;
		default:
			if (optopt)
				usage_error("unknown option -%c", optopt);
			usage_error("unknown option %s", argv[optind - 1]);
		}
	}
	size_buffers(o);
	if (!o->outdir) {
		default_dir(o->outbuf, sizeof(o->outbuf), "lrb-trace-");
		o->outdir = o->outbuf;
	}
	if (is_lttng(o)) {
		/* Where the LTTng analyses look for a kernel trace. */
		if (snprintf(o->kernel_dir, sizeof(o->kernel_dir), "%s/kernel",
			     o->outdir) >= (int)sizeof(o->kernel_dir))
			usage_error("--output %s: too long", o->outdir);
		o->topdir = o->outdir;
		o->outdir = o->kernel_dir;
	}
	/* The function tracer and no -e: its events only, as with probes. */
	if (!o->nr_events && o->function_tracer)
		o->events[o->nr_events++] = "none";
	/* Probes and no -e: the probes only, as -e none and the probes. */
	if (!o->nr_events && o->nr_probes)
		o->events[o->nr_events++] = "none";
	if (o->function_tracer && is_lttng(o))
		usage_error("--function-tracer: %s",
			    "ftrace's records, which the lttng layout does not name");
	if (!o->nr_events && is_lttng(o)) {
		size_t n = sizeof(default_lttng_events) / sizeof(*default_lttng_events);

		o->default_events = true;
		for (size_t i = 0; i < n; i++)
			o->events[o->nr_events++] = default_lttng_events[i];
		if (!o->quiet)
			fprintf(stderr,
				"lrb-record: no --event given: recording what the LTTng analyses read (--dry-run lists it)\n");
	}
	if (!o->nr_events) {
		o->default_events = true;
		for (size_t i = 0; i < sizeof(default_events) / sizeof(*default_events); i++)
			o->events[o->nr_events++] = default_events[i];
		if (!o->quiet)
			fprintf(stderr,
				"lrb-record: no --event given: recording -e sched -e irq (lrb-record list shows the events; -e none for annotations only)\n");
	}
	if (o->nr_events == 1 && !strcmp(o->events[0], "none"))
		o->nr_events = 0;
	for (int i = 0; i < o->nr_events; i++)
		if (!strcmp(o->events[i], "none"))
			usage_error("-e none excludes any other --event");
	if (!o->nr_events && o->filters[0])
		usage_error("-e none: nothing to filter");
	if (!o->nr_events && o->stack_all)
		usage_error("-e none: no event to take the kernel stacks of");
	for (int i = 0; i < o->nr_events; i++)
		if (!o->stacks[i])
			o->stacks[i] = o->stack_all;
	if (!o->function_tracer)
		return;
	if (o->nr_events > 254)
		usage_error("more than 256 events with the function tracer");
	if (o->graph) {
		o->events[o->nr_events++] = "ftrace:funcgraph_entry";
		o->events[o->nr_events++] = "ftrace:funcgraph_exit";
	} else {
		o->events[o->nr_events++] = "ftrace:function";
	}
}

/* --follow needs the command it follows. */
static void check_follow(const struct record_opts *o, int argc)
{
	if (o->follow && optind >= argc)
		usage_error("--follow: give the command to follow, after --");
}

static void print_settings(const struct record_opts *o)
{
	char a[32];

	printf("output: %s\nchannel: %s\nsubbuf_size: %s\nnum_subbufs: %llu\nmode: %s\nclock: %s\n",
	       o->outdir, o->name, size_str(o->subbuf_size, a, sizeof(a)),
	       o->num_subbufs, o->mode ? o->mode : "discard",
	       o->clock_name ? o->clock_name : "local");
	printf("layout: %s\n", o->layout ? o->layout : "ftrace");
	printf("events:");
	for (int i = 0; i < o->nr_events; i++)
		printf(" %s", o->events[i]);
	printf("%s\n", o->nr_events ? "" : " none");
	for (int i = 0; i < o->nr_probes; i++)
		printf("probe: %s\n", o->probes[i]);
	if (o->nr_probes)
		printf("keep_probes: %d\n", o->keep_probes);
	for (int i = 0; i < o->nr_ftrace_filter; i++)
		printf("function_filter: %s\n", o->ftrace_filter[i]);
	for (int i = 0; i < o->nr_ftrace_notrace; i++)
		printf("function_notrace: %s\n", o->ftrace_notrace[i]);
	for (int i = 0; i < o->nr_events; i++)
		if (o->filters[i])
			printf("filter: %s %s\n", o->events[i], o->filters[i]);
	for (int i = 0; i < o->nr_events; i++)
		if (o->stacks[i])
			printf("stack: %s %u\n", o->events[i], o->stacks[i]);
	if (o->pids[0])
		printf("pids: %s\n", o->pids);
	if (o->uids)
		printf("uids: %s\n", o->uids);
	if (o->follow)
		printf("follow: the command and its descendants\n");
	if (o->cpu_list) {
		printf("cpus:");
		for (int c = 0; c < MAX_CPUS; c++)
			if (o->cpus[c])
				printf(" %d", c);
		putchar('\n');
	}
	if (o->duration)
		printf("duration: %g\n", o->duration);
	if (o->flight)
		printf("flight_recorder: 1\n");
	if (o->switch_timer)
		printf("switch_timer: %llu\n", o->switch_us);
}

/* The exit status that the command's @status gives lrb-record. */
static int command_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 0;
}

static int cmd_record(int argc, char **argv)
{
	struct record_opts o = {};
	struct pollfd pfd[MAX_CPUS];
	struct sigaction sa = { .sa_handler = on_signal };
	double start, last = 0;
	bool ended_child = false;
	bool tty;
	int ret = 0;
	struct counts c;
	char num[32];

	parse_record(argc, argv, &o);
	check_follow(&o, argc);
	if (o.dry_run) {
		prepare_output(o.outdir, o.force, true);
		print_settings(&o);
		return 0;
	}
	find_tracefs();
	remove_orphans(o.quiet);
	if (o.topdir && mkdir(o.topdir, 0755) && errno != EEXIST)
		die("%s: %s", o.topdir, strerror(errno));
	prepare_output(o.outdir, o.force, false);
	create_channel(o.name);
	if (o.layout)
		set("layout", o.layout);
	snprintf(num, sizeof(num), "%llu", o.subbuf_size);
	set("subbuf_size", num);
	snprintf(num, sizeof(num), "%llu", o.num_subbufs);
	set("num_subbufs", num);
	if (o.common_fields)
		set("common_fields", "1");
	if (o.mode)
		set("mode", o.mode);
	if (o.clock_name)
		set("clock", o.clock_name);
	if (o.switch_timer)
		set("switch_timer", o.switch_timer);
	create_probes(&o);
	/* Before its events: from its first record on, it traces those. */
	set_functions("--function-filter", "set_ftrace_filter", o.ftrace_filter,
		      o.nr_ftrace_filter);
	set_functions("--function-notrace", "set_ftrace_notrace",
		      o.ftrace_notrace, o.nr_ftrace_notrace);
	for (int i = 0; i < o.nr_events; i++) {
		char cmd[300];
		int err;

		snprintf(cmd, sizeof(cmd), "enable %s\n", o.events[i]);
		err = put_file("events", cmd);
		/* A kernel without trace events records annotations only. */
		if (err == -ENOENT && o.default_events) {
			if (!o.quiet)
				fprintf(stderr,
					"lrb-record: no %s events in this kernel: not recorded\n",
					o.events[i]);
			continue;
		}
		if (err == -ENOENT && !access(chan_dir, F_OK)) {
			char path[600];

			snprintf(path, sizeof(path), "%s/events", chan_dir);
			if (access(path, F_OK))
				die("-e %s: this kernel has no events (%s)",
				    o.events[i], "built without CONFIG_LRB_MARKERS");
			die("-e %s: no such event (lrb-record list shows them)",
			    o.events[i]);
		}
		if (err)
			die("-e %s: %s", o.events[i], strerror(-err));
	}
	for (int i = 0; i < o.nr_events; i++)
		if (o.filters[i])
			set_filter(o.events[i], o.filters[i]);
	for (int i = 0; i < o.nr_events; i++)
		if (o.stacks[i])
			set_stack(o.events[i], o.stacks[i]);
	set_targets(&o, argc, argv);
	if (!o.flight)
		open_streams(o.outdir, o.cpu_list ? o.cpus : NULL);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	set("enable", "1");
	if (optind < argc)
		start_child(argv + optind);
	tty = !o.quiet && isatty(STDERR_FILENO);
	start = now();
	for (int i = 0; i < nr_streams; i++)
		pfd[i] = (struct pollfd){ .fd = streams[i].fd, .events = POLLIN };

	while (!stop_signal) {
		double t = now() - start;

		if (o.duration && t >= o.duration)
			break;
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child = -1;
			ended_child = true;
			break;
		}
		if (poll(pfd, nr_streams, 200) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (int i = 0; i < nr_streams; i++) {
			if (pfd[i].revents & (POLLIN | POLLHUP))
				drain(&streams[i]);
			/*
			 * Hang-up: the CPU is offline and drained. Poll it
			 * again only at the next half-second tick, not in a
			 * busy loop, in case it comes back.
			 */
			if (pfd[i].revents & POLLHUP)
				pfd[i].fd = -1;
		}
		if (t - last >= 0.5) {
			if (tty)
				progress(t, o.cpu_list ? o.cpus : NULL);
			last = t;
			for (int i = 0; i < nr_streams; i++)
				pfd[i].fd = streams[i].fd;
		}
	}
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	}

	/* Disabling flushes every CPU; flush again for trailing losses. */
	set("enable", "0");
	for (int i = 0; i < nr_streams; i++)
		drain(&streams[i]);
	for (int i = 0; i < nr_streams; i++) {
		if (ioctl(streams[i].fd, LRB_IOC_FLUSH))
			die("cpu %d: flush: %s", streams[i].cpu, strerror(errno));
		drain(&streams[i]);
	}
	/* Writers stopped: nothing is reused while the snapshot is read. */
	if (o.flight)
		take_snapshot(o.outdir, o.quiet);
	if (tty)
		fputc('\n', stderr);
	copy_metadata(o.outdir);
	copy_file("stats", o.outdir, ".lrb-stats");
	if (read_counts(&c, o.cpu_list ? o.cpus : NULL))
		die("cannot read %s/stats", chan_dir);

	if (!o.quiet) {
		if (!o.flight)
			fprintf(stderr,
				"lrb-record: %.1f s, %llu events in %llu packets, %.1f MiB to %s\n",
				now() - start, c.delivered,
				c.subbufs, total_bytes() / 1048576.0, o.outdir);
		fprintf(stderr, "lrb-record: written %llu, lost:", c.written);
		for (int i = 0; i < NR_LOST; i++)
			fprintf(stderr, " %s %llu", lost_names[i], c.lost[i]);
		fputc('\n', stderr);
		if (c.filtered)
			fprintf(stderr, "lrb-record: filtered out %llu\n",
				c.filtered);
	}
	for (int i = 0; i < nr_streams; i++) {
		struct stream *s = &streams[i];

		if (s->dropped)
			fprintf(stderr,
				"lrb-record: cpu %d: %llu packets overwritten while copied, dropped\n",
				s->cpu, s->dropped);
		munmap((void *)s->map, s->info.mmap_size);
		close_pipe(s);
		if (close(s->out))
			die("closing stream_%d: %s", s->cpu, strerror(errno));
	}
	ret = remove_channel();
	if (ret) {
		fprintf(stderr, "lrb-record: cannot remove channel %s: %s\n",
			chan_name, strerror(-ret));
		return EXIT_FAILURE;
	}
	if (stop_signal && !o.quiet)
		fprintf(stderr, "lrb-record: stopped by signal %d\n", stop_signal);
	if (!ended_child)
		return 0;
	ret = command_status(child_status);
	if (ret && !o.quiet)
		fprintf(stderr, "lrb-record: %s exited with status %d\n",
			argv[optind], ret);
	return ret;
}

/* The only channel in overwrite mode, for a snapshot without -B. */
static void pick_overwrite_channel(void)
{
	char **names = channel_names(), path[700], *mode;
	int found = 0;

	for (int i = 0; names[i]; i++) {
		snprintf(path, sizeof(path), "%s/lrb/%s/mode", tracefs, names[i]);
		mode = read_all(path, NULL);
		if (mode && !strncmp(mode, "overwrite", 9)) {
			if (!found++)
				snprintf(chan_name, sizeof(chan_name), "%s",
					 names[i]);
		}
		free(mode);
		free(names[i]);
	}
	free(names);
	if (found > 1)
		usage_error("%d channels overwrite: name one with -B", found);
	if (!found)
		die("no channel overwrites (start one with lrb-record --flight-recorder)");
}

/* lrb-record snapshot [-B NAME] [-o DIR] */
static int cmd_snapshot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "channel", required_argument, NULL, 'B' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[600], dirbuf[128], *mode;
	const char *dir = NULL;
	bool quiet = false;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":B:o:qh", opts, NULL)) != -1) {
		switch (opt) {
		case 'B':
			snprintf(chan_name, sizeof(chan_name), "%s", optarg);
			break;
		case 'o':
			dir = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			print_help();
			return 0;
		default:
			usage_error("snapshot: bad option %s", argv[optind - 1]);
		}
	}
	if (optind != argc)
		usage_error("snapshot: unexpected %s", argv[optind]);
	find_tracefs();
	if (!chan_name[0])
		pick_overwrite_channel();
	snprintf(chan_dir, sizeof(chan_dir), "%s/lrb/%s", tracefs, chan_name);
	if (access(chan_dir, F_OK))
		die("no channel %s in %s/lrb", chan_name, tracefs);
	snprintf(path, sizeof(path), "%s/mode", chan_dir);
	mode = read_all(path, NULL);
	if (!mode || strncmp(mode, "overwrite", 9))
		die("channel %s does not overwrite (mode %s): record it instead",
		    chan_name, mode ? strtok(mode, "\n") : "unknown");
	free(mode);
	if (!dir) {
		snprintf(path, sizeof(path), "%s-snapshot-", chan_name);
		default_dir(dirbuf, sizeof(dirbuf), path);
		dir = dirbuf;
	}
	if (mkdir(dir, 0755))
		die("%s: %s", dir, errno == EEXIST ?
		    "exists (a snapshot goes to a new directory)" : strerror(errno));
	take_snapshot(dir, quiet);
	return 0;
}

/* -h or --help, for the commands that take no other option. */
static bool is_help(const char *arg)
{
	return !strcmp(arg, "-h") || !strcmp(arg, "--help");
}

/* The newest lrb-trace-* directory here, for report and view. */
static const char *newest_trace(void)
{
	static char best[256];
	struct dirent *de;
	DIR *d = opendir(".");

	best[0] = '\0';
	while (d && (de = readdir(d)))
		if (!strncmp(de->d_name, "lrb-trace-", 10) &&
		    strcmp(de->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", de->d_name);
	if (d)
		closedir(d);
	if (!best[0])
		usage_error("no lrb-trace-* directory here: name the trace directory");
	return best;
}

static int cmd_report(int argc, char **argv)
{
	const char *dir;
	int ret;

	if (argc >= 2 && !strcmp(argv[1], "--symbols")) {
		if (argc > 3)
			usage_error("report: one trace directory");
		dir = argc == 3 ? argv[2] : newest_trace();
		lrb_report_symbols = true;
		ret = lrb_report(dir);
		return lrb_report_stacks(dir) ? 1 : ret;
	}
	if (argc > 2)
		usage_error("report: one trace directory");
	if (argc == 2 && is_help(argv[1])) {
		print_help();
		return 0;
	}
	return lrb_report(argc == 2 ? argv[1] : newest_trace());
}

/* lrb-record view [DIR] [BABELTRACE2-ARG...] */
static int cmd_view(int argc, char **argv)
{
	const char *dir;
	char **args;
	int n = 0;

	if (argc >= 2 && is_help(argv[1])) {
		print_help();
		return 0;
	}
	dir = argc >= 2 && argv[1][0] != '-' ? argv[1] : newest_trace();
	if (access(dir, F_OK) || lrb_report_check(dir))
		usage_error("view: %s is not a trace directory (no metadata)",
			    dir);
	args = calloc(argc + 2, sizeof(*args));
	if (!args)
		die("out of memory");
	args[n++] = "babeltrace2";
	for (int i = argv[1] == dir ? 2 : 1; i < argc; i++)
		args[n++] = argv[i];
	args[n++] = (char *)dir;
	execvp(args[0], args);
	if (errno == ENOENT)
		die("babeltrace2 is not installed (%s); %s %s %s",
		    "apt install babeltrace2, dnf install babeltrace2",
		    "lrb-record report", dir, "summarizes the trace without it");
	die("babeltrace2: %s", strerror(errno));
	return EXIT_FAILURE;
}

/* A temporary channel for its events file, when none exists. */
static bool list_channel(char **names)
{
	char name[64];

	if (names[0]) {
		snprintf(chan_name, sizeof(chan_name), "%s", names[0]);
		snprintf(chan_dir, sizeof(chan_dir), "%s/lrb/%s", tracefs,
			 chan_name);
		return false;
	}
	snprintf(name, sizeof(name), AUTO_PREFIX "%d", (int)getpid());
	create_channel(name);
	set("subbuf_size", "4096");
	set("num_subbufs", "2");
	return true;
}

static void list_events(char **names)
{
	char path[700], *text, *line, *save, sys[256] = "";
	bool temp = list_channel(names);

	snprintf(path, sizeof(path), "%s/events", chan_dir);
	text = read_all(path, NULL);
	if (!text)
		die("%s: %s (kernel built without CONFIG_LRB_MARKERS?)", path,
		    strerror(errno));
	puts("Events: SYSTEM:NAME for trace events, NAME for markers");
	puts("(-e takes either, a SYSTEM, a glob, or all):");
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[256], *colon;
		unsigned int id;

		if (line[0] == '#' || sscanf(line, "%255s %u", name, &id) != 2)
			continue;
		colon = strchr(name, ':');
		if (colon) {
			*colon = '\0';
			if (strcmp(sys, name)) {
				snprintf(sys, sizeof(sys), "%s", name);
				printf("  %s:\n", sys);
			}
			printf("    %s:%s\n", name, colon + 1);
		} else {
			if (strcmp(sys, "(markers)")) {
				snprintf(sys, sizeof(sys), "(markers)");
				printf("  %s:\n", sys);
			}
			printf("    %s\n", name);
		}
	}
	free(text);
	if (temp)
		remove_channel();
}

static void list_channels(char **names)
{
	static const char * const files[] = {
		"enable", "mode", "subbuf_size", "num_subbufs", "clock",
		"switch_timer",
	};

	printf("Channels:%s\n", names[0] ? "" : " none");
	for (int i = 0; names[i]; i++) {
		printf("  %s:", names[i]);
		for (size_t f = 0; f < sizeof(files) / sizeof(*files); f++) {
			char path[700], *v;

			snprintf(path, sizeof(path), "%s/lrb/%s/%s", tracefs,
				 names[i], files[f]);
			v = read_all(path, NULL);
			if (v)
				printf(" %s=%s", files[f], strtok(v, "\n") ?: "");
			free(v);
		}
		printf("%s\n", channel_orphaned(names[i]) ?
		       " (orphaned: lrb-record reset removes it)" : "");
	}
}

/* lrb-record list [events | channels] */
static int cmd_list(int argc, char **argv)
{
	bool events = true, chans = true;
	char **names;

	if (argc > 2)
		usage_error("list: events, channels, or nothing for both");
	if (argc == 2) {
		if (is_help(argv[1])) {
			print_help();
			return 0;
		}
		events = !strcmp(argv[1], "events");
		chans = !strcmp(argv[1], "channels");
		if (!events && !chans)
			usage_error("list %s: events, channels, or nothing for both",
				    argv[1]);
	}
	find_tracefs();
	names = channel_names();
	if (events)
		list_events(names);
	if (chans)
		list_channels(names);
	return 0;
}

/* lrb-record reset [--all | NAME...] */
static int cmd_reset(int argc, char **argv)
{
	bool all = argc == 2 && !strcmp(argv[1], "--all");
	char **names;
	int ret = 0, n = 0;

	if (argc == 2 && is_help(argv[1])) {
		print_help();
		return 0;
	}
	for (int i = 1; i < argc; i++)
		if (argv[i][0] == '-' && !all)
			usage_error("reset: unknown option %s", argv[i]);
	find_tracefs();
	if (argc == 1) {
		n = remove_orphans(false);
		fprintf(stderr, "lrb-record: %d orphaned channel%s removed\n",
			n, n == 1 ? "" : "s");
		return 0;
	}
	names = all ? channel_names() : argv + 1;
	for (int i = 0; names[i]; i++) {
		int err = remove_named(names[i]);

		if (err)
			fprintf(stderr, "lrb-record: cannot remove channel %s: %s\n",
				names[i], err == -ENOENT ? "no such channel" :
				err == -EBUSY ? "a reader has it open" :
				strerror(-err));
		else
			n++;
		ret |= !!err;
	}
	fprintf(stderr, "lrb-record: %d channel%s removed\n", n,
		n == 1 ? "" : "s");
	return ret ? EXIT_FAILURE : 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "record", cmd_record },
		{ "report", cmd_report },
		{ "view", cmd_view },
		{ "list", cmd_list },
		{ "snapshot", cmd_snapshot },
		{ "reset", cmd_reset },
	};

	if (argc >= 2 && !strcmp(argv[1], "help")) {
		print_help();
		return 0;
	}
	for (size_t i = 0; argc >= 2 && i < sizeof(cmds) / sizeof(*cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	if (argc >= 2 && argv[1][0] != '-')
		usage_error("unknown command %s", argv[1]);
	return cmd_record(argc, argv);
}
