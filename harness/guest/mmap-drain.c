// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-drain: a user-space reader of LRB's mapped stream files against a
 * user-space reader of ftrace's mapped ring buffer (Linux 6.10's
 * TRACE_MMAP_IOCTL_GET_READER on per_cpu/cpuN/trace_pipe_raw), in the
 * same boot, while lrb_bench's writer thread hits the bench trace event
 * on CPU 0 (echo MS > /sys/module/lrb_bench/parameters/writer).
 *
 *   mmap-drain [REPS [MS]]
 *
 * Each repetition drains an LRB channel and then an ftrace instance, both
 * of 64 sub-buffers of 16 KiB (ftrace has its reader page besides) in
 * discard mode with only the bench event enabled, while the writer writes
 * for MS milliseconds; then the reader drains what is left. LRB wakes its
 * reader per sub-buffer; ftrace runs twice, woken at about a sub-buffer
 * (buffer_percent 1) and at its default, half the buffer (50). Each reader walks every record header of what it
 * gets (as a consumer that decodes or copies must) and sums one word of
 * each record, and is checked against the kernel's counters: the records
 * it saw must be exactly those the kernel says it delivered. Prints the
 * records drained per second of each, min / median / max over the
 * repetitions, the ratios LRB / ftrace of each repetition, and the time
 * each reader takes per sub-buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/lrb.h>

/* The ABI of include/uapi/linux/trace_mmap.h (Linux 6.10). */
struct trace_buffer_meta {
	uint32_t meta_page_size;
	uint32_t meta_struct_len;
	uint32_t subbuf_size;
	uint32_t nr_subbufs;
	struct {
		uint64_t lost_events;
		uint32_t id;
		uint32_t read;
	} reader;
	uint64_t flags;
	uint64_t entries;
	uint64_t overrun;
	uint64_t read;
	uint64_t reserved1;
	uint64_t reserved2;
};
#define TRACE_MMAP_IOCTL_GET_READER	_IO('R', 0x20)

#define TRACEFS		"/sys/kernel/tracing"
#define WRITER		"/sys/module/lrb_bench/parameters/writer"
#define CHAN		TRACEFS "/lrb/mmap_drain"
#define INST		TRACEFS "/instances/mmap_drain"
#define SUBBUF_KB	16
#define NSUBBUF		64
#define MAX_REPS	51

struct result {
	uint64_t bytes, records, kernel_delivered, kernel_lost, ns;
	uint64_t subbufs, take_ns;	/* sub-buffers taken, time taking them */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mmap-drain: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void put(const char *path, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0 || write(fd, buf, n) != n)
		die("%s: %s: %s", path, buf, strerror(errno));
	close(fd);
}

static char *get(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, size - 1);

	if (n < 0)
		die("%s: %s", path, strerror(errno));
	buf[n] = 0;
	close(fd);
	return buf;
}

/* The value of "KEY: N" in @text, after @from if not NULL, or die. */
static uint64_t key(const char *text, const char *from, const char *k)
{
	const char *p = from ? strstr(text, from) : text;
	size_t n = strlen(k);

	for (p = p ? p : text; (p = strstr(p, k)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == ':')
			return strtoull(p + n + 1, NULL, 10);
	die("no \"%s\" in:\n%s", k, text);
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}


static int writer_running(void)
{
	char b[16];

	return atoi(get(WRITER, b, sizeof(b)));
}

static volatile uint64_t sink;

/* ---- LRB: LRB_IOC_GET_SUBBUF, the packet in the mapping, PUT ---- */

/* By compact id: 1 + the fixed length, or 1 + where the payload holds it. */
static unsigned int fixed_len[LRB_ID_EXTENDED], len_at[LRB_ID_EXTENDED];
static int len_base[LRB_ID_EXTENDED];

/* The id of the metadata's event block in which @p is. */
static int meta_id(const char *meta, const char *p)
{
	unsigned int id;

	while (p > meta && strncmp(p, "\tid = ", 6))
		p--;
	return sscanf(p, "\tid = %u;", &id) == 1 && id < LRB_ID_EXTENDED ?
	       (int)id : -1;
}

/*
 * How the channel's records give their lengths: the comments of its
 * metadata, once its events' links started. The bench's event
 * (lrb_bench:lrb_bench_event) ends with a string, so its payload holds
 * its length in the string's __data_loc word; the annotations carry
 * theirs after the header.
 */
static void lrb_rules(void)
{
	static char meta[1 << 16];
	unsigned int v;
	const char *p;
	int id, base;

	get(CHAN "/metadata", meta, sizeof(meta));
	for (p = meta; (p = strstr(p, LRB_FIXED_LEN_TSDL)); p++)
		if ((id = meta_id(meta, p)) >= 0 &&
		    sscanf(p + strlen(LRB_FIXED_LEN_TSDL), "%u", &v) == 1)
			fixed_len[id] = v + 1;
	for (p = meta; (p = strstr(p, LRB_LEN_AT_TSDL)); p++)
		if ((id = meta_id(meta, p)) >= 0 &&
		    sscanf(p + strlen(LRB_LEN_AT_TSDL), "%u %d", &v, &base) == 2) {
			len_at[id] = v + 1;
			len_base[id] = base;
		}
}

/* The payload length of the record of @id whose payload is at @d. */
static uint32_t lrb_len(const uint8_t *d, unsigned int id, size_t *hl)
{
	uint32_t loc;
	uint16_t len;

	if (id < LRB_ID_EXTENDED && fixed_len[id])
		return fixed_len[id] - 1;
	if (id < LRB_ID_EXTENDED && len_at[id]) {
		memcpy(&loc, d + len_at[id] - 1, sizeof(loc));
		return (loc & 0xffff) + (loc >> 16) - len_base[id];
	}
	memcpy(&len, d, sizeof(len));
	*hl += LRB_LEN_SIZE;
	return len;
}

/* Walk the records of the packet at @p; count them into @r. */
static void lrb_packet(const uint8_t *p, struct result *r)
{
	const struct lrb_packet_header *h = (const void *)p;
	uint64_t end = h->content_size / 8, off = sizeof(*h), sum = 0;
	const struct lrb_record_header_ext *rx;
	uint32_t word, v, len;
	unsigned int id;

	if (h->magic != LRB_PACKET_MAGIC)
		die("lrb: bad packet magic %#x", h->magic);
	while (off < end) {
		size_t hl = LRB_HEADER_SIZE;

		memcpy(&word, p + off, sizeof(word));
		id = LRB_HEADER_ID(word);
		if (id == LRB_ID_EXTENDED) {
			rx = (const void *)(p + off);
			memcpy(&id, &rx->id, sizeof(id));
			hl = sizeof(*rx);
		}
		len = lrb_len(p + off + hl, id, &hl);
		if (off + hl + len > end)
			die("lrb: record at %llu past the content (%llu)",
			    (unsigned long long)off, (unsigned long long)end);
		if (len >= 4) {
			memcpy(&v, p + off + hl, sizeof(v));
			sum += v;
		}
		off += hl + len;
		r->records++;
	}
	r->bytes += end;
	sink += sum;
}

/* Take every complete sub-buffer; 0 when none is left. */
static int lrb_take(int fd, const uint8_t *map, const struct lrb_stream_info *in,
		    struct result *r)
{
	uint64_t pos, t0 = now_ns();
	int n = 0;

	while (!ioctl(fd, LRB_IOC_GET_SUBBUF, &pos)) {
		lrb_packet(map + (pos & (in->subbuf_size * in->num_subbufs - 1)), r);
		if (ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos))
			die("lrb: put: %s", strerror(errno));
		n++;
	}
	if (errno != EAGAIN)
		die("lrb: get: %s", strerror(errno));
	r->take_ns += now_ns() - t0;
	r->subbufs += n;
	return n;
}

static struct result run_lrb(int ms)
{
	struct pollfd pfd = { .events = POLLIN };
	static char st[65536];
	struct lrb_stream_info in;
	struct result r = { 0 };
	int done;
	uint8_t *map;
	uint64_t t0;

	put(TRACEFS "/lrb/control", "create mmap_drain\n");
	put(CHAN "/subbuf_size", "%d\n", SUBBUF_KB * 1024);
	put(CHAN "/num_subbufs", "%d\n", NSUBBUF);
	put(CHAN "/mode", "discard\n");
	put(CHAN "/events", "enable lrb_bench:lrb_bench_event\n");
	pfd.fd = open(CHAN "/streams/cpu0", O_RDONLY);
	if (pfd.fd < 0 || ioctl(pfd.fd, LRB_IOC_GET_INFO, &in))
		die("lrb: stream: %s", strerror(errno));
	map = mmap(NULL, in.mmap_size, PROT_READ, MAP_SHARED, pfd.fd, 0);
	if (map == MAP_FAILED)
		die("lrb: mmap: %s", strerror(errno));
	put(CHAN "/enable", "1\n");
	lrb_rules();
	t0 = now_ns();
	put(WRITER, "%d\n", ms);
	do {
		if (poll(&pfd, 1, 20) < 0)
			die("lrb: poll: %s", strerror(errno));
		/* Once the writer is done, close the open sub-buffer too. */
		done = !writer_running();
		if (done && ioctl(pfd.fd, LRB_IOC_FLUSH))
			die("lrb: flush: %s", strerror(errno));
		lrb_take(pfd.fd, map, &in, &r);
	} while (!done);
	r.ns = now_ns() - t0;
	put(CHAN "/enable", "0\n");
	lrb_take(pfd.fd, map, &in, &r);
	get(CHAN "/stats", st, sizeof(st));
	r.kernel_delivered = key(st, "cpu: total", "delivered");
	r.kernel_lost = key(st, "cpu: total", "written") - r.kernel_delivered;
	munmap(map, in.mmap_size);
	close(pfd.fd);
	put(TRACEFS "/lrb/control", "remove mmap_drain\n");
	return r;
}

/* ---- ftrace: TRACE_MMAP_IOCTL_GET_READER, the reader sub-buffer ---- */

/* struct ring_buffer_event's type_len values (kernel/trace/ring_buffer.c) */
#define RB_PADDING	29
#define RB_TIME_EXTEND	30
#define RB_TIME_STAMP	31
#define RB_PAGE_HDR	16	/* time_stamp, commit (64-bit) */

/* Walk the events in [@from, @to) of the data of a sub-buffer. */
static void ftrace_data(const uint8_t *d, uint32_t from, uint32_t to,
			struct result *r)
{
	uint64_t sum = 0;
	uint32_t off = from;

	while (off < to) {
		uint32_t w = *(const uint32_t *)(d + off), tl = w & 31, len;

		if (tl == RB_TIME_EXTEND || tl == RB_TIME_STAMP) {
			len = 8;
		} else if (tl == RB_PADDING) {
			if (!(w >> 5))
				break;	/* the rest of the page is padding */
			len = 4 + *(const uint32_t *)(d + off + 4);
		} else if (tl) {
			sum += *(const uint32_t *)(d + off + 4);
			len = 4 + 4 * tl;
			r->records++;
		} else {
			sum += *(const uint32_t *)(d + off + 8);
			len = 4 + *(const uint32_t *)(d + off + 4);
			r->records++;
		}
		off += len;
	}
	r->bytes += to - from;
	sink += sum;
}

/* A mapped trace_pipe_raw, and how far its reader sub-buffer was read. */
struct ftrace_reader {
	int fd;
	struct trace_buffer_meta *meta;
	const uint8_t *data;		/* sub-buffer 0 */
	uint32_t last_id, last_end;
};

/*
 * Swap in reader sub-buffers and walk what they hold that is new, until
 * none is; the number of sub-buffers that had some.
 */
static int ftrace_take(struct ftrace_reader *f, struct result *r)
{
	const struct trace_buffer_meta *m = f->meta;
	uint32_t id, from, to;
	uint64_t t0 = now_ns();
	int n = 0;

	do {
		if (ioctl(f->fd, TRACE_MMAP_IOCTL_GET_READER))
			die("ftrace: get reader: %s", strerror(errno));
		id = m->reader.id;
		to = m->reader.read;
		from = id == f->last_id ? f->last_end : 0;
		f->last_id = id;
		f->last_end = to;
		if (to > from) {
			ftrace_data(f->data + (size_t)id * m->subbuf_size +
				    RB_PAGE_HDR, from, to, r);
			n++;
		}
	} while (to > from);
	r->take_ns += now_ns() - t0;
	r->subbufs += n;
	return n;
}

static struct result run_ftrace(int ms, int percent)
{
	struct pollfd pfd = { .events = POLLIN };
	struct ftrace_reader f = { .last_id = ~0U };
	struct trace_buffer_meta *meta;
	struct result r = { 0 };
	size_t page = getpagesize(), len;
	uint8_t *map;
	char st[1024];
	uint64_t t0;
	int done;

	if (mkdir(INST, 0700) && errno != EEXIST)
		die("%s: %s", INST, strerror(errno));
	put(INST "/tracing_on", "0\n");
	put(INST "/buffer_subbuf_size_kb", "%d\n", SUBBUF_KB);
	/* 64 pages of 16368 bytes of data, and the reader page. */
	put(INST "/buffer_size_kb", "%d\n", SUBBUF_KB * NSUBBUF - 1);
	/* 1: woken at about a sub-buffer, as LRB's reader is; 50: default. */
	put(INST "/buffer_percent", "%d\n", percent);
	put(INST "/options/overwrite", "0\n");
	put(INST "/events/lrb_bench/lrb_bench_event/enable", "1\n");
	pfd.fd = open(INST "/per_cpu/cpu0/trace_pipe_raw", O_RDONLY | O_NONBLOCK);
	if (pfd.fd < 0)
		die("ftrace: trace_pipe_raw: %s", strerror(errno));
	meta = mmap(NULL, page, PROT_READ, MAP_SHARED, pfd.fd, 0);
	if (meta == MAP_FAILED)
		die("ftrace: mmap: %s", strerror(errno));
	if (meta->nr_subbufs != NSUBBUF + 1 || meta->subbuf_size != SUBBUF_KB * 1024)
		die("ftrace: %u sub-buffers of %u bytes, not %d of %d",
		    meta->nr_subbufs, meta->subbuf_size, NSUBBUF + 1, SUBBUF_KB * 1024);
	len = meta->meta_page_size + (size_t)meta->nr_subbufs * meta->subbuf_size;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, pfd.fd, 0);
	if (map == MAP_FAILED)
		die("ftrace: mmap %zu: %s", len, strerror(errno));
	munmap(meta, page);
	f.fd = pfd.fd;
	f.meta = (void *)map;
	f.data = map + f.meta->meta_page_size;
	put(INST "/tracing_on", "1\n");
	t0 = now_ns();
	put(WRITER, "%d\n", ms);
	do {
		if (poll(&pfd, 1, 20) < 0)
			die("ftrace: poll: %s", strerror(errno));
		done = !writer_running();
		ftrace_take(&f, &r);
	} while (!done);
	r.ns = now_ns() - t0;
	put(INST "/tracing_on", "0\n");
	ftrace_take(&f, &r);
	get(INST "/per_cpu/cpu0/stats", st, sizeof(st));
	r.kernel_delivered = key(st, NULL, "read events");
	r.kernel_lost = key(st, NULL, "overrun") + key(st, NULL, "dropped events");
	put(INST "/events/lrb_bench/lrb_bench_event/enable", "0\n");
	munmap(map, len);
	close(pfd.fd);
	if (rmdir(INST))
		die("%s: %s", INST, strerror(errno));
	return r;
}

/* ---- the table ---- */

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void mmm(const char *what, double *v, int n, const char *fmt)
{
	qsort(v, n, sizeof(*v), cmp);
	printf("mmap-drain: %-50s", what);
	printf(fmt, v[0]);
	printf(" / ");
	printf(fmt, v[n / 2]);
	printf(" / ");
	printf(fmt, v[n - 1]);
	printf("\n");
}

static void check(const char *who, int rep, const struct result *r)
{
	if (r->records != r->kernel_delivered)
		die("%s, rep %d: the reader saw %llu records, the kernel delivered %llu",
		    who, rep, (unsigned long long)r->records,
		    (unsigned long long)r->kernel_delivered);
	if (!r->records)
		die("%s, rep %d: no record: is the writer there?", who, rep);
}

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 5, ms = argc > 2 ? atoi(argv[2]) : 500;
	static double le[MAX_REPS], fe[MAX_REPS], ge[MAX_REPS];
	static double rf[MAX_REPS], rg[MAX_REPS], lb[MAX_REPS];
	static double lt[MAX_REPS], ft[MAX_REPS], gt[MAX_REPS];
	static double ll[MAX_REPS], fl[MAX_REPS], gl[MAX_REPS];
	int i;

	if (reps < 1 || reps > MAX_REPS || ms < 1)
		die("usage: mmap-drain [REPS (1-%d) [MS]]", MAX_REPS);
	if (access(WRITER, W_OK))
		die("%s: %s (lrb_bench with its writer?)", WRITER, strerror(errno));
	for (i = 0; i < reps; i++) {
		struct result l = run_lrb(ms), f = run_ftrace(ms, 1);
		struct result g = run_ftrace(ms, 50);

		check("lrb", i, &l);
		check("ftrace", i, &f);
		check("ftrace, buffer_percent 50", i, &g);
		le[i] = l.records * 1e3 / l.ns;	/* M records/s */
		fe[i] = f.records * 1e3 / f.ns;
		ge[i] = g.records * 1e3 / g.ns;
		rf[i] = le[i] / fe[i];
		rg[i] = le[i] / ge[i];
		lb[i] = l.bytes * 1e3 / l.ns;	/* MB/s */
		lt[i] = l.take_ns / 1e3 / l.subbufs;	/* us per sub-buffer */
		ft[i] = f.take_ns / 1e3 / f.subbufs;
		gt[i] = g.take_ns / 1e3 / g.subbufs;
		ll[i] = 100.0 * l.kernel_lost / (l.kernel_lost + l.records);
		fl[i] = 100.0 * f.kernel_lost / (f.kernel_lost + f.records);
		gl[i] = 100.0 * g.kernel_lost / (g.kernel_lost + g.records);
		printf("mmap-drain: rep %d: lrb %llu records, %llu bytes, %llu lost, %.3f s; ftrace %llu records, %llu bytes, %llu lost, %.3f s; ftrace at 50 %% %llu records, %llu lost\n",
		       i, (unsigned long long)l.records, (unsigned long long)l.bytes,
		       (unsigned long long)l.kernel_lost, l.ns / 1e9,
		       (unsigned long long)f.records, (unsigned long long)f.bytes,
		       (unsigned long long)f.kernel_lost, f.ns / 1e9,
		       (unsigned long long)g.records, (unsigned long long)g.kernel_lost);
	}
	printf("mmap-drain: user-space readers of mapped buffers, writer on CPU 0 for %d ms, %d sub-buffers of %d KiB (ftrace: and its reader page), discard mode; min / median / max over %d reps\n",
	       ms, NSUBBUF, SUBBUF_KB, reps);
	mmm("LRB mapped stream, M records/s", le, reps, "%.2f");
	mmm("ftrace mapped, buffer_percent 1, M records/s", fe, reps, "%.2f");
	mmm("ftrace mapped, buffer_percent 50, M records/s", ge, reps, "%.2f");
	mmm("ratio LRB / ftrace at 1 %", rf, reps, "%.2f");
	mmm("ratio LRB / ftrace at 50 %", rg, reps, "%.2f");
	mmm("LRB, MB/s", lb, reps, "%.1f");
	mmm("LRB, us per sub-buffer taken", lt, reps, "%.1f");
	mmm("ftrace at 1 %, us per sub-buffer taken", ft, reps, "%.1f");
	mmm("ftrace at 50 %, us per sub-buffer taken", gt, reps, "%.1f");
	mmm("LRB records lost, %", ll, reps, "%.1f");
	mmm("ftrace at 1 % records lost, %", fl, reps, "%.1f");
	mmm("ftrace at 50 % records lost, %", gl, reps, "%.1f");
	printf("mmap-drain: done\n");
	return 0;
}
