// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record: record an LRB channel into a CTF trace directory.
 *
 *   lrb-record -o DIR [options] [-- COMMAND [ARGS]]
 *   lrb-record snapshot -c NAME -o DIR
 *   lrb-record report DIR
 *
 * It creates a channel in /sys/kernel/tracing/lrb, enables it, copies every
 * delivered sub-buffer (a CTF packet) from the read-only mmap of each CPU
 * buffer to DIR/stream_N, and stops on --duration, when COMMAND exits, or
 * on SIGINT/SIGTERM. At stop it disables the channel (which flushes every
 * CPU), drains, flushes again so losses at the very end are reported in a
 * packet, drains again, writes DIR/metadata and removes the channel.
 * Where the kernel can splice() a stream into a pipe, the packets move to
 * the files that way instead, without passing through user space.
 *
 * With --flight-recorder the channel overwrites and nothing is consumed:
 * "lrb-record snapshot" writes what a running channel holds to a new
 * trace directory, as often as asked, and the recorder takes one last
 * snapshot to DIR when it stops.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

#define MAX_CPUS	1024
#define NR_LOST		5

static const char * const lost_names[NR_LOST] = {
	"full", "overwritten", "too_big", "nested", "nmi",
};

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

struct counts {
	__u64 written, delivered, lost[NR_LOST], subbufs;
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

/* Remove the channel this run created; returns 0 or -errno. */
static int remove_channel(void)
{
	char path[600];
	int fd, ret = 0;

	if (!chan_created)
		return 0;
	for (int i = 0; i < nr_streams; i++)
		close(streams[i].fd);
	nr_streams = 0;
	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	fd = open(path, O_WRONLY);
	if (fd < 0 || dprintf(fd, "remove %s\n", chan_name) < 0)
		ret = -errno;
	if (fd >= 0)
		close(fd);
	chan_created = false;
	return ret;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lrb-record: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	remove_channel();
	exit(1);
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

static char *read_all(const char *path, size_t *lenp)
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

/* Totals from the channel's stats file. */
static int read_counts(struct counts *c)
{
	char path[600], *text, *line;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/stats", chan_dir);
	text = read_all(path, NULL);
	if (!text)
		return -1;
	line = strstr(text, "\ntotal ");
	if (!line || sscanf(line + 7, "%llu %llu %llu %llu %llu %llu %llu %llu",
			    &c->written, &c->delivered, &c->lost[0], &c->lost[1],
			    &c->lost[2], &c->lost[3], &c->lost[4], &c->subbufs) != 8) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
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
		die("%s: permission denied (run as root)", path);
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	if (access(path, F_OK))
		die("tracefs is not mounted at %s (mount -t tracefs nodev %s)",
		    tracefs, tracefs);
	die("%s/lrb does not exist: kernel built without CONFIG_LRB_TRACEFS",
	    tracefs);
}

static void create_channel(const char *name)
{
	char path[600];
	int fd;

	snprintf(chan_name, sizeof(chan_name), "%s", name);
	snprintf(path, sizeof(path), "%s/lrb/control", tracefs);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (dprintf(fd, "create %s\n", chan_name) < 0)
		die("cannot create channel %s: %s", chan_name,
		    errno == EEXIST ? "it exists (use -c to pick another name)" :
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

static void open_streams(const char *outdir)
{
	int cpus[MAX_CPUS], n = 0;
	char path[700];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/streams", chan_dir);
	d = opendir(path);
	if (!d)
		die("%s: %s", path, strerror(errno));
	while ((de = readdir(d)) && n < MAX_CPUS)
		if (!strncmp(de->d_name, "cpu", 3))
			cpus[n++] = atoi(de->d_name + 3);
	closedir(d);
	qsort(cpus, n, sizeof(int), cmp_int);
	for (int i = 0; i < n; i++) {
		struct stream *s = &streams[nr_streams];

		s->cpu = cpus[i];
		snprintf(path, sizeof(path), "%s/streams/cpu%d", chan_dir, s->cpu);
		s->fd = open(path, O_RDONLY | O_NONBLOCK);
		if (s->fd < 0)
			die("%s: %s", path, strerror(errno));
		if (ioctl(s->fd, LRB_IOC_GET_INFO, &s->info))
			die("%s: LRB_IOC_GET_INFO: %s", path, strerror(errno));
		s->map = mmap(NULL, s->info.mmap_size, PROT_READ, MAP_SHARED,
			      s->fd, 0);
		if (s->map == MAP_FAILED)
			die("%s: mmap: %s", path, strerror(errno));
		open_pipe(s);
		snprintf(path, sizeof(path), "%s/stream_%d", outdir, s->cpu);
		s->out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (s->out < 0)
			die("%s: %s", path, strerror(errno));
		nr_streams++;
	}
	if (!nr_streams)
		die("%s/streams: no stream files", chan_dir);
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
 * Move every complete sub-buffer of @s to its file through the pipe.
 * Returns false, with nothing moved, if the kernel cannot splice.
 */
static bool drain_splice(struct stream *s)
{
	for (;;) {
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
		s->bytes += n;
		s->packets += n / s->info.subbuf_size;
	}
}

/* Copy every complete sub-buffer of @s to its file. */
static void drain(struct stream *s)
{
	__u64 pos, off, padded;

	if (s->pipe[0] >= 0) {
		if (drain_splice(s))
			return;
		close_pipe(s);
	}

	while (!ioctl(s->fd, LRB_IOC_GET_SUBBUF, &pos)) {
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
	if (errno != EAGAIN)
		die("cpu %d: get: %s", s->cpu, strerror(errno));
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

static void progress(double elapsed)
{
	struct counts c;

	if (read_counts(&c))
		return;
	fprintf(stderr,
		"\r%6.1f s  %llu events  %.1f MiB  lost: full %llu overwritten %llu other %llu   ",
		elapsed, c.delivered, total_bytes() / 1048576.0, c.lost[0], c.lost[1],
		c.lost[2] + c.lost[3] + c.lost[4]);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void start_child(char **argv)
{
	child = fork();
	if (child < 0)
		die("fork: %s", strerror(errno));
	if (!child) {
		execvp(argv[0], argv);
		fprintf(stderr, "lrb-record: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
}

static void copy_metadata(const char *outdir)
{
	char path[700], *text;
	size_t len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", chan_dir);
	text = read_all(path, &len);
	if (!text)
		die("%s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/metadata", outdir);
	f = fopen(path, "w");
	if (!f || fwrite(text, 1, len, f) != len || fclose(f))
		die("%s: %s", path, strerror(errno));
	free(text);
}

/* Save the kernel's counters next to the trace (a hidden file: CTF readers skip it). */
static void save_counts(const char *outdir, const struct counts *c)
{
	char path[700];
	FILE *f;

	snprintf(path, sizeof(path), "%s/.lrb-stats", outdir);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	fprintf(f, "written %llu\ndelivered %llu\n", c->written,
		c->delivered);
	for (int i = 0; i < NR_LOST; i++)
		fprintf(f, "lost_%s %llu\n", lost_names[i], c->lost[i]);
	fprintf(f, "subbufs %llu\n", c->subbufs);
	if (fclose(f))
		die("%s: %s", path, strerror(errno));
}

/* What a snapshot of one CPU skipped. */
struct snap_count {
	__u64 packets, reused, incomplete;
};

/* Copy the snapshot window of one CPU to @dir/stream_N; 0, or -1 if no CPU. */
static int snapshot_stream(const char *dir, int cpu, struct snap_count *sc,
			   FILE *info)
{
	struct stream s = { .cpu = cpu };
	size_t n, i, first, last, sbs;
	struct lrb_snapshot snap;
	unsigned char *copy;
	__u64 pos, off;
	char path[700];

	snprintf(path, sizeof(path), "%s/streams/cpu%d", chan_dir, cpu);
	s.fd = open(path, O_RDONLY);
	if (s.fd < 0 && errno == ENOENT)
		return -1;
	if (s.fd < 0)
		die("%s: %s", path, errno == EBUSY ?
		    "open by another reader (a recorder consuming the channel?)" :
		    strerror(errno));
	if (ioctl(s.fd, LRB_IOC_GET_INFO, &s.info))
		die("%s: LRB_IOC_GET_INFO: %s", path, strerror(errno));
	s.map = mmap(NULL, s.info.mmap_size, PROT_READ, MAP_SHARED, s.fd, 0);
	if (s.map == MAP_FAILED)
		die("%s: mmap: %s", path, strerror(errno));
	if (ioctl(s.fd, LRB_IOC_SNAPSHOT, &snap))
		die("%s: snapshot: %s", chan_name, errno == EINVAL ?
		    "the channel does not overwrite (mode discard): record it instead" :
		    strerror(errno));
	snprintf(path, sizeof(path), "%s/stream_%d", dir, cpu);
	s.out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (s.out < 0)
		die("%s: %s", path, strerror(errno));
	sbs = s.info.subbuf_size;
	n = (snap.end - snap.begin) / sbs;
	/* A 32-bit kernel's positions wrap at 4 GiB. */
	if (snap.end < snap.begin && snap.begin <= 0xffffffffULL)
		n = (__u32)(snap.end - snap.begin) / sbs;
	if (n > s.info.num_subbufs)
		die("cpu %d: snapshot window %llu..%llu larger than the buffer",
		    cpu, (unsigned long long)snap.begin,
		    (unsigned long long)snap.end);
	first = n;
	last = n;
	copy = malloc(n ? n * sbs : 1);
	if (!copy)
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
		if (ret || ioctl(s.fd, LRB_IOC_GET_MMAP_OFFSET, &off))
			die("cpu %d: snapshot get: %s", cpu, strerror(errno));
		memcpy(copy + i * sbs, s.map + off, sbs);
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
	write_out(&s, copy + first * sbs, (last - first) * sbs);
	free(copy);
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
 * Write what the running channel holds to the new trace directory @dir,
 * consuming nothing: each CPU flushed, then its complete sub-buffers but
 * those writers reuse meanwhile (skipped and counted in @dir/.lrb-snapshot).
 */
static void take_snapshot(const char *dir, bool create)
{
	struct snap_count sum = {};
	char path[700];
	int cpus = 0;
	FILE *info;

	if (create && mkdir(dir, 0755))
		die("%s: %s", dir, errno == EEXIST ?
		    "exists (a snapshot goes to a new directory)" : strerror(errno));
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
	fprintf(stderr,
		"lrb-record: snapshot of %s to %s: %llu packets from %d CPUs, %llu reused by writers (skipped), %llu incomplete\n",
		chan_name, dir, sum.packets, cpus, sum.reused, sum.incomplete);
}

/* lrb-record snapshot -c NAME -o DIR */
static int snapshot_main(int argc, char **argv)
{
	const char *dir = NULL;
	char path[600], *mode;
	int opt;

	while ((opt = getopt(argc, argv, "c:o:h")) != -1) {
		switch (opt) {
		case 'c':
			snprintf(chan_name, sizeof(chan_name), "%s", optarg);
			break;
		case 'o':
			dir = optarg;
			break;
		default:
			fprintf(stderr, "usage: lrb-record snapshot -c NAME -o DIR\n");
			return 2;
		}
	}
	if (!dir || !chan_name[0] || optind != argc) {
		fprintf(stderr, "usage: lrb-record snapshot -c NAME -o DIR\n");
		return 2;
	}
	find_tracefs();
	snprintf(chan_dir, sizeof(chan_dir), "%s/lrb/%s", tracefs, chan_name);
	if (access(chan_dir, F_OK))
		die("no channel %s in %s/lrb", chan_name, tracefs);
	snprintf(path, sizeof(path), "%s/mode", chan_dir);
	mode = read_all(path, NULL);
	if (!mode || strncmp(mode, "overwrite", 9))
		die("channel %s does not overwrite (mode %s): record it instead",
		    chan_name, mode ? strtok(mode, "\n") : "unknown");
	free(mode);
	take_snapshot(dir, true);
	return 0;
}

static void print_usage(void)
{
	fprintf(stderr,
		"usage: lrb-record -o DIR [options] [-- COMMAND [ARGS]]\n"
		"       lrb-record snapshot -c NAME -o DIR\n"
		"       lrb-record report DIR\n"
		"  -o DIR          trace directory to write (created)\n"
		"  -c NAME         channel name (default lrb-record-PID)\n"
		"  -s BYTES        sub-buffer size (power of two)\n"
		"  -n COUNT        sub-buffers per CPU (power of two)\n"
		"  -m MODE         discard or overwrite\n"
		"  -k CLOCK        local or global\n"
		"  -e EVENT        enable events: SYSTEM:EVENT, SYSTEM, a glob, or\n"
		"                  all (repeatable; a glob also takes events of\n"
		"                  modules loaded later)\n"
		"  -d SECONDS      stop after SECONDS\n"
		"  -F, --flight-recorder\n"
		"                  overwrite, consume nothing, and write a snapshot to\n"
		"                  DIR at the end (lrb-record snapshot takes more)\n"
		"  -T, --switch-timer USEC\n"
		"                  close a sub-buffer open for USEC microseconds, so\n"
		"                  records of quiet CPUs arrive (0 off, 100..3600000000)\n"
		"  --no-splice     copy packets through the mmap, not with splice()\n"
		"  -q              no progress display\n");
	exit(2);
}

int lrb_report(const char *dir);

enum { OPT_NO_SPLICE = 256 };

static const struct option long_opts[] = {
	{ "flight-recorder", no_argument, NULL, 'F' },
	{ "switch-timer", required_argument, NULL, 'T' },
	{ "no-splice", no_argument, NULL, OPT_NO_SPLICE },
	{ NULL, 0, NULL, 0 },
};

int main(int argc, char **argv)
{
	const char *outdir = NULL, *subbuf = NULL, *num = NULL, *mode = NULL;
	const char *clock_name = NULL, *events[64];
	int nr_events = 0, opt, ret = 0;
	double duration = 0, start, last = 0;
	bool quiet = false, tty;
	struct pollfd pfd[MAX_CPUS];
	struct sigaction sa = { .sa_handler = on_signal };
	char name[64];
	struct counts c;
	const char *switch_timer = NULL;
	bool flight = false;

	if (argc == 3 && !strcmp(argv[1], "report"))
		return lrb_report(argv[2]);
	if (argc >= 2 && !strcmp(argv[1], "snapshot"))
		return snapshot_main(argc - 1, argv + 1);
	snprintf(name, sizeof(name), "lrb-record-%d", (int)getpid());
	while ((opt = getopt_long(argc, argv, "+o:c:s:n:m:k:e:d:qhFT:",
				  long_opts, NULL)) != -1) {
		switch (opt) {
		case 'F':
			flight = true;
			break;
		case 'T':
			switch_timer = optarg;
			break;
		case OPT_NO_SPLICE:
			use_splice = false;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'c':
			snprintf(name, sizeof(name), "%s", optarg);
			break;
		case 's':
			subbuf = optarg;
			break;
		case 'n':
			num = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'k':
			clock_name = optarg;
			break;
		case 'e':
			if (nr_events == 64)
				die("too many -e");
			events[nr_events++] = optarg;
			break;
		case 'd':
			duration = atof(optarg);
			break;
		case 'q':
			quiet = true;
			break;
		default:
			print_usage();
		}
	}
	if (!outdir)
		print_usage();
	if (flight && mode && strcmp(mode, "overwrite"))
		die("--flight-recorder overwrites: -m %s contradicts it", mode);
	if (flight)
		mode = "overwrite";
	if (mkdir(outdir, 0755) && errno != EEXIST)
		die("%s: %s", outdir, strerror(errno));

	find_tracefs();
	create_channel(name);
	if (subbuf)
		set("subbuf_size", subbuf);
	if (num)
		set("num_subbufs", num);
	if (mode)
		set("mode", mode);
	if (clock_name)
		set("clock", clock_name);
	if (switch_timer && put_file("switch_timer", switch_timer))
		die("--switch-timer %s: microseconds, 0 (off) or %u to %u",
		    switch_timer, 100, 3600000000U);
	for (int i = 0; i < nr_events; i++) {
		char cmd[300];
		int ret;

		snprintf(cmd, sizeof(cmd), "enable %s\n", events[i]);
		ret = put_file("events", cmd);
		if (ret == -ENOENT && !access(chan_dir, F_OK))
			die("-e %s: no such event (see %s/events)", events[i],
			    chan_dir);
		if (ret)
			die("-e %s: %s", events[i], strerror(-ret));
	}
	if (!flight)
		open_streams(outdir);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	set("enable", "1");
	if (optind < argc)
		start_child(argv + optind);
	tty = !quiet && isatty(STDERR_FILENO);
	start = now();
	for (int i = 0; i < nr_streams; i++)
		pfd[i] = (struct pollfd){ .fd = streams[i].fd, .events = POLLIN };

	while (!stop_signal) {
		double t = now() - start;

		if (duration && t >= duration)
			break;
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (poll(pfd, nr_streams, 200) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
		for (int i = 0; i < nr_streams; i++) {
			if (pfd[i].revents & (POLLIN | POLLHUP))
				drain(&streams[i]);
			/*
			 * Hang-up: the CPU is offline and drained. Poll it
			 * again only with the next progress tick, not in a
			 * busy loop, in case it comes back.
			 */
			if (pfd[i].revents & POLLHUP)
				pfd[i].fd = -1;
		}
		if (t - last >= 0.5) {
			if (tty)
				progress(t);
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
	if (flight)
		take_snapshot(outdir, false);
	if (tty)
		fputc('\n', stderr);
	copy_metadata(outdir);
	if (read_counts(&c))
		die("cannot read %s/stats", chan_dir);
	save_counts(outdir, &c);

	if (!flight)
		fprintf(stderr,
			"lrb-record: %.1f s, %llu events in %llu packets, %.1f MiB to %s\n",
			now() - start, c.delivered,
			c.subbufs, total_bytes() / 1048576.0, outdir);
	fprintf(stderr, "lrb-record: written %llu, lost:", c.written);
	for (int i = 0; i < NR_LOST; i++)
		fprintf(stderr, " %s %llu", lost_names[i], c.lost[i]);
	fputc('\n', stderr);
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
		ret = 1;
	}
	if (stop_signal)
		fprintf(stderr, "lrb-record: stopped by signal %d\n", stop_signal);
	if (WIFEXITED(child_status) && WEXITSTATUS(child_status) && !ret)
		fprintf(stderr, "lrb-record: command exited with status %d\n",
			WEXITSTATUS(child_status));
	return ret;
}
