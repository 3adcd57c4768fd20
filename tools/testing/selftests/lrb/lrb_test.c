// SPDX-License-Identifier: GPL-2.0
/*
 * Selftests of the LRB tracefs interface (/sys/kernel/tracing/lrb): the
 * happy path through read(), mmap + ioctl and poll, and bad input, each
 * case checking the errno and that no data was lost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <dirent.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/lrb.h>

#include "../kselftest_harness.h"

#define LRB_DIR		"/sys/kernel/tracing/lrb"
#define SUBBUF		4096

/* Write @val to @path; 0 or -errno. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, strlen(val)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read all of @path (up to @size - 1 bytes) as a string; 0 or -errno. */
static int get(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	if (n < 0)
		return -errno;
	buf[len] = '\0';
	return 0;
}

FIXTURE(chan) {
	char name[32];
	char dir[128];
};

/* The directory of the test's channel (each test runs in its own process). */
static char chan_dir[128];

static const char *cpath(const char *file)
{
	static char path[256];

	snprintf(path, sizeof(path), "%s/%s", chan_dir, file);
	return path;
}

static int chan_control(const char *cmd, const char *name)
{
	char buf[128];

	if (snprintf(buf, sizeof(buf), "%s %s\n", cmd, name) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	return put(LRB_DIR "/control", buf);
}

FIXTURE_SETUP(chan)
{
	cpu_set_t set;
	char buf[32];

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	if (access(LRB_DIR "/control", W_OK))
		SKIP(return, "no " LRB_DIR " (CONFIG_LRB_TRACEFS) or not root");
	snprintf(self->name, sizeof(self->name), "kst%d", getpid());
	snprintf(self->dir, sizeof(self->dir), LRB_DIR "/%s", self->name);
	snprintf(chan_dir, sizeof(chan_dir), "%s", self->dir);
	chan_control("remove", self->name);
	ASSERT_EQ(0, chan_control("create", self->name));
	snprintf(buf, sizeof(buf), "%d", SUBBUF);
	ASSERT_EQ(0, put(cpath("subbuf_size"), buf));
	ASSERT_EQ(0, put(cpath("num_subbufs"), "4"));
}

FIXTURE_TEARDOWN(chan)
{
	chan_control("remove", self->name);
}

static int open_stream(int cpu, int flags)
{
	char file[32];

	snprintf(file, sizeof(file), "streams/cpu%d", cpu);
	return open(cpath(file), flags);
}

static int annotate(const char *text)
{
	return put(cpath("annotate"), text);
}

/* The value of @key in the block of @cpu ("total" for all) of the stats file. */
static long long stat_of(const char *cpu, const char *key)
{
	static char buf[65536];
	char head[32], *p, *line;
	size_t n = strlen(key);
	long long v;

	if (get(cpath("stats"), buf, sizeof(buf)))
		return -1;
	snprintf(head, sizeof(head), "cpu: %s\n", cpu);
	p = strstr(buf, head);
	if (!p)
		return -1;
	/* The block ends with an empty line. */
	for (line = strtok(p + strlen(head), "\n");
	     line && strncmp(line, "cpu: ", 5); line = strtok(NULL, "\n"))
		if (!strncmp(line, key, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%lld", &v) == 1)
			return v;
	return -1;
}

static long long stat_total(const char *key)
{
	return stat_of("total", key);
}

#define WRITTEN		"written"
#define DELIVERED	"delivered"
#define LOST_FULL	"lost_full"

struct rec {
	int cpu;
	unsigned int id;
	const unsigned char *p;
	size_t len;
};

typedef void (*rec_fn)(const struct rec *r, void *arg);

/* By compact id, 1 + the fixed payload length of its records, or 0. */
static unsigned int fixed_len[LRB_ID_EXTENDED];
/* By compact id, 1 + where the payload holds its length, or 0; the base. */
static unsigned int len_at[LRB_ID_EXTENDED];
static int len_base[LRB_ID_EXTENDED];

/* The id of the event whose metadata block holds @p, which follows it. */
static int meta_id(const char *meta, const char *p)
{
	unsigned int i;

	while (p > meta && strncmp(p, "\tid = ", 6))
		p--;
	if (sscanf(p, "\tid = %u;", &i) != 1 || i >= LRB_ID_EXTENDED)
		return -1;
	return i;
}

/* How the channel's records give their lengths, from its metadata. */
static int read_fixed_lens(void)
{
	static char meta[1 << 20];
	const char *p = meta;
	unsigned int len;
	int i, base;

	memset(fixed_len, 0, sizeof(fixed_len));
	memset(len_at, 0, sizeof(len_at));
	if (get(cpath("metadata"), meta, sizeof(meta)))
		return -1;
	while ((p = strstr(p, LRB_FIXED_LEN_TSDL))) {
		i = meta_id(meta, p);
		if (i >= 0 &&
		    sscanf(p + strlen(LRB_FIXED_LEN_TSDL), "%u", &len) == 1)
			fixed_len[i] = len + 1;
		p++;
	}
	for (p = meta; (p = strstr(p, LRB_LEN_AT_TSDL)); p++) {
		i = meta_id(meta, p);
		if (i >= 0 && sscanf(p + strlen(LRB_LEN_AT_TSDL), "%u %d",
				     &len, &base) == 2) {
			len_at[i] = len + 1;
			len_base[i] = base;
		}
	}
	return 0;
}

/*
 * The payload length of a record of @id whose payload, at @p, holds it:
 * the u32 at byte len_at - 1, its halves less the base; -1 if it is
 * beyond @room bytes.
 */
static long len_in_payload(const unsigned char *p, size_t room,
			   unsigned int id)
{
	size_t at = len_at[id] - 1;
	__u32 loc;

	if (at + sizeof(loc) > room)
		return -1;
	memcpy(&loc, p + at, sizeof(loc));
	return (long)(loc & 0xffff) + (loc >> 16) - len_base[id];
}

/* Decode every record of one packet. */
static int packet_each(const unsigned char *pkt, int cpu, rec_fn fn,
		       void *arg)
{
	const struct lrb_packet_header *ph = (const void *)pkt;
	size_t off = sizeof(*ph), content = ph->content_size / 8;

	if (ph->magic != LRB_PACKET_MAGIC)
		return -1;
	while (off + LRB_HEADER_SIZE <= content) {
		const struct lrb_record_header_ext *rx = (const void *)(pkt + off);
		struct rec r = { .cpu = cpu };
		size_t hlen = LRB_HEADER_SIZE;
		__u16 len16;
		__u32 word;

		memcpy(&word, pkt + off, sizeof(word));
		r.id = LRB_HEADER_ID(word);
		if (r.id == LRB_ID_EXTENDED) {
			r.id = rx->id;
			hlen = sizeof(*rx);
		}
		if (off + hlen > content)
			return -1;
		if (r.id < LRB_ID_EXTENDED && fixed_len[r.id]) {
			r.len = fixed_len[r.id] - 1;
		} else if (r.id < LRB_ID_EXTENDED && len_at[r.id]) {
			long l = len_in_payload(pkt + off + hlen,
						content - off - hlen, r.id);

			if (l < 0)
				return -1;
			r.len = l;
		} else {
			memcpy(&len16, pkt + off + hlen, sizeof(len16));
			r.len = len16;
			hlen += LRB_LEN_SIZE;
		}
		if (off + hlen + r.len > content)
			return -1;
		r.p = pkt + off + hlen;
		fn(&r, arg);
		off += hlen + r.len;
	}
	return off == content ? 0 : -1;
}

struct prefix_count {
	const char *prefix;
	int n, bad;
};

static void count_prefix(const struct rec *r, void *arg)
{
	struct prefix_count *c = arg;

	if (strncmp((const char *)r->p, c->prefix, strlen(c->prefix)))
		c->bad++;
	else
		c->n++;
}

/*
 * The bytes of the packet at @pkt, from its header: its content rounded up
 * to 8 bytes, or -1 if packet_size says otherwise.
 */
static ssize_t packet_len(const unsigned char *pkt)
{
	const struct lrb_packet_header *ph = (const void *)pkt;

	if (ph->packet_size != (ph->content_size + 63) / 64 * 64)
		return -1;
	return ph->packet_size / 8;
}

/* Read a whole packet: its length, which its header gives, or -1. */
static ssize_t read_packet(int fd, unsigned char *pkt)
{
	ssize_t n = read(fd, pkt, SUBBUF);

	if (n < (ssize_t)sizeof(struct lrb_packet_header))
		return -1;
	return n == packet_len(pkt) ? n : -1;
}

/* Count the annotation records of one packet and check their text. */
static int packet_records(const unsigned char *pkt, const char *prefix)
{
	struct prefix_count c = { .prefix = prefix };

	if (read_fixed_lens() || packet_each(pkt, 0, count_prefix, &c) ||
	    c.bad)
		return -1;
	return c.n;
}

TEST_F(chan, happy_read)
{
	unsigned char pkt[SUBBUF];
	int fd, n = 0;
	ssize_t r;

	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, annotate("hello\n"));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	fd = open_stream(0, O_RDONLY);
	ASSERT_LE(0, fd);
	while ((r = read(fd, pkt, sizeof(pkt))) > 0) {
		ASSERT_EQ(packet_len(pkt), r);
		n += packet_records(pkt, "hello");
	}
	EXPECT_EQ(0, r);	/* EOF: disabled and drained */
	EXPECT_EQ(3, n);
	EXPECT_EQ(3, stat_total(DELIVERED));
	close(fd);
}

TEST_F(chan, happy_mmap_ioctl_poll)
{
	struct lrb_stream_info info;
	uint64_t pos, off, size, padded;
	struct pollfd pfd;
	unsigned char *map;
	int fd;

	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_INFO, &info));
	EXPECT_EQ(SUBBUF, info.subbuf_size);
	EXPECT_EQ(4, info.num_subbufs);
	EXPECT_EQ(0, info.cpu);
	map = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	EXPECT_EQ(0, poll(&pfd, 1, 0));
	ASSERT_EQ(0, annotate("mapped"));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_FLUSH));
	/* The delivery wakes the poller through irq_work. */
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_TRUE(pfd.revents & POLLIN);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_MMAP_OFFSET, &off));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF_SIZE, &size));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_PADDED_SIZE, &padded));
	EXPECT_EQ((size + 7) / 8 * 8, padded);
	EXPECT_EQ((ssize_t)padded, packet_len(map + off));
	/*
	 * "mapped" and its NUL, after its length and a compact or (2^27 ns
	 * or more since the buffer's last record, if any) an extended
	 * header.
	 */
	EXPECT_TRUE(size == sizeof(struct lrb_packet_header) + 4 + 2 + 7 ||
		    size == sizeof(struct lrb_packet_header) + 13 + 2 + 7);
	EXPECT_EQ(1, packet_records(map + off, "mapped"));
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(1, stat_total(DELIVERED));
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	EXPECT_EQ(EAGAIN, errno);
	munmap(map, info.mmap_size);
	close(fd);
}

TEST_F(chan, control_errors)
{
	EXPECT_EQ(-EEXIST, chan_control("create", self->name));
	EXPECT_EQ(-ENOENT, chan_control("remove", "no_such_channel"));
	EXPECT_EQ(-EINVAL, chan_control("create", "bad/name"));
	EXPECT_EQ(-EINVAL, chan_control("create", "control"));
	EXPECT_EQ(-EINVAL, chan_control("destroy", self->name));
	EXPECT_EQ(-EINVAL, put(LRB_DIR "/control", "create\n"));
}

static void expect_setting_refused(struct __test_metadata *_metadata,
				   const char *file,
				   const char *val, int err)
{
	char before[64], after[64];

	ASSERT_EQ(0, get(cpath(file), before, sizeof(before)));
	EXPECT_EQ(-err, put(cpath(file), val)) {
		TH_LOG("%s = %s", file, val);
	}
	ASSERT_EQ(0, get(cpath(file), after, sizeof(after)));
	EXPECT_STREQ(before, after);
}

TEST_F(chan, setting_zero)
{
	expect_setting_refused(_metadata, "subbuf_size", "0", EINVAL);
	expect_setting_refused(_metadata, "num_subbufs", "0", EINVAL);
}

TEST_F(chan, setting_not_power_of_two)
{
	expect_setting_refused(_metadata, "subbuf_size", "3000", EINVAL);
	expect_setting_refused(_metadata, "num_subbufs", "6", EINVAL);
}

TEST_F(chan, setting_above_max)
{
	expect_setting_refused(_metadata, "subbuf_size", "8388608", EINVAL);
	expect_setting_refused(_metadata, "num_subbufs", "2048", EINVAL);
	/* Each within bounds, the product above 64 MiB. */
	ASSERT_EQ(0, put(cpath("subbuf_size"), "4194304"));
	expect_setting_refused(_metadata, "num_subbufs", "32", EINVAL);
}

TEST_F(chan, setting_garbage)
{
	expect_setting_refused(_metadata, "subbuf_size", "lots", EINVAL);
	expect_setting_refused(_metadata, "num_subbufs", "4x", EINVAL);
	expect_setting_refused(_metadata, "mode", "sideways", EINVAL);
	expect_setting_refused(_metadata, "clock", "sundial", EINVAL);
	expect_setting_refused(_metadata, "enable", "maybe", EINVAL);
}

/* Write @len bytes of @val, NUL bytes included; 0 or -errno. */
static int put_bytes(const char *path, const char *val, size_t len)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, val, len) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

TEST_F(chan, setting_strict)
{
	char before[64], after[64];

	/* Decimal only: 020000 is not 8192. */
	expect_setting_refused(_metadata, "subbuf_size", "020000", EINVAL);
	expect_setting_refused(_metadata, "subbuf_size", "0x2000", EINVAL);
	/* 0 or 1, nothing else. */
	expect_setting_refused(_metadata, "enable", "tomato", EINVAL);
	expect_setting_refused(_metadata, "enable", "1junk", EINVAL);
	expect_setting_refused(_metadata, "enable", "yes", EINVAL);
	/* Text ends at the newline, never at a NUL. */
	ASSERT_EQ(0, get(cpath("subbuf_size"), before, sizeof(before)));
	EXPECT_EQ(-EINVAL, put_bytes(cpath("subbuf_size"), "16384\0junk", 10));
	EXPECT_EQ(-EINVAL, put_bytes(cpath("enable"), "1\0", 2));
	ASSERT_EQ(0, get(cpath("subbuf_size"), after, sizeof(after)));
	EXPECT_STREQ(before, after);
	EXPECT_EQ(0, put(cpath("subbuf_size"), "8192\n"));
}

/*
 * Every spelling of a value but its own, with at most one newline, is
 * EINVAL and changes nothing: a sign, a leading zero, a second newline,
 * space around it, and Latin-1's no-break space (0xa0, which the kernel's
 * isspace() takes for a space). The value itself is taken, then put back.
 */
static const struct { const char *file, *val; } exact_files[] = {
	{ "subbuf_size", "8192" },
	{ "num_subbufs", "8" },
	{ "enable", "1" },
	{ "switch_timer", "100000" },
	{ "dump_on_oops", "1" },
	{ "pid_follow", "1" },
};

static const char * const bad_spellings[] = {
	"+%s", "0%s", "%s\n\n", "%s\xa0", "\xa0%s", " %s", "%s ", "\t%s\n",
};

TEST_F(chan, setting_exact_text)
{
	char before[64], val[64];

	for (unsigned int f = 0; f < ARRAY_SIZE(exact_files); f++) {
		const char *file = exact_files[f].file;

		if (access(cpath(file), F_OK))
			continue;
		for (unsigned int i = 0; i < ARRAY_SIZE(bad_spellings); i++) {
			snprintf(val, sizeof(val), bad_spellings[i],
				 exact_files[f].val);
			expect_setting_refused(_metadata, file, val, EINVAL);
		}
		ASSERT_EQ(0, get(cpath(file), before, sizeof(before)));
		snprintf(val, sizeof(val), "%s\n", exact_files[f].val);
		EXPECT_EQ(0, put(cpath(file), val)) {
			TH_LOG("%s = %s", file, exact_files[f].val);
		}
		EXPECT_EQ(0, put(cpath(file), before));
	}
}

/* The control file too: one space between the command and the name. */
TEST_F(chan, control_exact_text)
{
	static const char * const bad[] = {
		"create nbsp1\xa0", "\240create nbsp1", "create \xa0nbsp1",
		"create  nbsp1", "create nbsp1\n\n", " create nbsp1",
		"create nbsp1 ",
	};

	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, put(LRB_DIR "/control", bad[i])) {
			TH_LOG("'%s'", bad[i]);
		}
	}
	EXPECT_NE(0, access(LRB_DIR "/nbsp1", F_OK));
	EXPECT_NE(0, access(LRB_DIR "/nbsp1\xa0", F_OK));
	EXPECT_EQ(0, chan_control("create", "nbsp1"));
	EXPECT_EQ(0, chan_control("remove", "nbsp1"));
}

TEST_F(chan, create_bad_names)
{
	EXPECT_EQ(-EINVAL, put_bytes(LRB_DIR "/control",
				     "create nul1\0/../junk", 20));
	EXPECT_NE(0, access(LRB_DIR "/nul1", F_OK));
	/* Not ASCII: not a name, and not in the CTF metadata. */
	EXPECT_EQ(-EINVAL, put(LRB_DIR "/control", "create lat\xe9"));
	EXPECT_NE(0, access(LRB_DIR "/lat\xe9", F_OK));
	chan_control("remove", "nul1");
	chan_control("remove", "lat\xe9");
}

/*
 * 64 MiB per CPU buffer, channel after channel: when memory runs out the
 * setting fails with ENOMEM, and nobody is OOM-killed (this process would
 * be the first).
 */
TEST_F(chan, memory_exhausted)
{
	char name[64], path[128];
	int n, i, ret = 0;

	for (n = 0; n < 64 && !ret; n++) {
		snprintf(name, sizeof(name), "%s-m%d", self->name, n);
		ASSERT_EQ(0, chan_control("create", name));
		snprintf(path, sizeof(path), LRB_DIR "/%s/subbuf_size", name);
		ret = put(path, "4194304");
	}
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s-m%d", self->name, i);
		EXPECT_EQ(0, chan_control("remove", name));
	}
	EXPECT_EQ(-ENOMEM, ret);
	TH_LOG("ENOMEM at channel %d", n);
}

TEST_F(chan, setting_while_enabled)
{
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	expect_setting_refused(_metadata, "subbuf_size", "8192", EBUSY);
	expect_setting_refused(_metadata, "mode", "overwrite", EBUSY);
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	EXPECT_EQ(0, put(cpath("mode"), "overwrite"));
}

/* Enable, write one annotation, flush: one packet ready on CPU 0. */
static int one_packet(void)
{
	int fd = open_stream(0, O_RDONLY | O_NONBLOCK);

	if (fd < 0 || put(cpath("enable"), "1") ||
	    annotate("kept") || ioctl(fd, LRB_IOC_FLUSH))
		return -1;
	return fd;
}

TEST_F(chan, put_without_get)
{
	uint64_t pos = 0;
	int fd = one_packet();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_SIZE, &pos));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was consumed. */
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(1, stat_total(DELIVERED));
	close(fd);
}

TEST_F(chan, get_twice)
{
	uint64_t pos, pos2;
	int fd = one_packet();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos2));
	EXPECT_EQ(EBUSY, errno);
	pos2 = pos + 1;
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos2));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(1, stat_total(DELIVERED));
	close(fd);
}

TEST_F(chan, unknown_ioctl)
{
	uint64_t v;
	int fd = open_stream(0, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, _IOR(LRB_IOC_MAGIC, 0x7f, uint64_t), &v));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, 0x5401 /* TCGETS */, &v));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

TEST_F(chan, ioctl_bad_pointer)
{
	uint64_t pos;
	int fd = one_packet();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_INFO, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	/* The sub-buffer was not taken: it is still there. */
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_PUT_SUBBUF, (void *)8));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(1, stat_total(DELIVERED));
	close(fd);
}

TEST_F(chan, mmap_writable)
{
	struct lrb_stream_info info;
	void *map;
	int fd = open_stream(0, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_INFO, &info));
	map = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		   fd, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EACCES, errno);
	/* A private writable mapping is refused by the driver itself. */
	map = mmap(NULL, info.mmap_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		   fd, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EPERM, errno);
	/* Nor can a read-only mapping be made writable. */
	map = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(-1, mprotect(map, info.mmap_size, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(map, info.mmap_size);
	close(fd);
}

TEST_F(chan, mmap_exec)
{
	struct lrb_stream_info info;
	void *map;
	int fd = open_stream(0, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_INFO, &info));
	map = mmap(NULL, info.mmap_size, PROT_READ | PROT_EXEC, MAP_SHARED,
		   fd, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EPERM, errno);
	map = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, map);
	EXPECT_EQ(-1, mprotect(map, info.mmap_size, PROT_READ | PROT_EXEC));
	EXPECT_EQ(EACCES, errno);
	munmap(map, info.mmap_size);
	close(fd);
}

TEST_F(chan, mmap_beyond_buffer)
{
	struct lrb_stream_info info;
	long page = sysconf(_SC_PAGESIZE);
	void *map;
	int fd = open_stream(0, O_RDONLY);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_INFO, &info));
	map = mmap(NULL, info.mmap_size + page, PROT_READ, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EINVAL, errno);
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, info.mmap_size);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EINVAL, errno);
	map = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 1L << 40);
	EXPECT_EQ(MAP_FAILED, map);
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(chan, read_small_buffers)
{
	unsigned char pkt[SUBBUF], part[SUBBUF];
	size_t got = 0, step = 1;
	uint64_t pos;
	ssize_t n;
	int fd = one_packet();

	ASSERT_LE(0, fd);
	/* One byte, then 10 at a time: the packet comes in pieces. */
	while (got < sizeof(struct lrb_packet_header) ||
	       (ssize_t)got < packet_len(part)) {
		n = read(fd, part + got, step);
		ASSERT_LT(0, n);
		ASSERT_GE((ssize_t)step, n);
		got += n;
		step = 10;
		/* Another way of taking a sub-buffer waits for the end. */
		if (got == 1) {
			EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
			EXPECT_EQ(EBUSY, errno);
		}
	}
	EXPECT_EQ(packet_len(part), (ssize_t)got);
	EXPECT_EQ(1, packet_records(part, "kept"));
	/* Released to the writers when first copied: delivered. */
	EXPECT_EQ(1, stat_total(DELIVERED));
	EXPECT_EQ(-1, read(fd, pkt, 10));
	EXPECT_EQ(EAGAIN, errno);
	/* A second packet, read whole: the same layout as the pieces. */
	ASSERT_EQ(0, annotate("kept"));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_FLUSH));
	EXPECT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "kept"));
	EXPECT_EQ(0, memcmp(pkt, part, 8));
	close(fd);
}

#define TRACEFS_DIR	"/sys/kernel/tracing"
#define TRACING_GID	4242

/* The files of a channel the tracing group may write (lrb.rst). */
static bool group_writes(const char *file)
{
	return !strcmp(file, "enable") || !strcmp(file, "annotate");
}

/*
 * Every file of the channel as a member of the tracing group: only
 * enable and annotate are writable, and a file opens for reading as its
 * mode says. Returns 0, or 20 + the index of the file that failed (named
 * on stderr).
 */
static int member_files(void)
{
	struct dirent *de;
	char name[64];
	struct stat st;
	int i = 0, fd;
	bool want, opened;
	DIR *d = opendir(chan_dir);

	if (!d)
		return 19;
	while ((de = readdir(d))) {
		snprintf(name, sizeof(name), "%.63s", de->d_name);
		if (name[0] == '.' || stat(cpath(name), &st) ||
		    S_ISDIR(st.st_mode))
			continue;
		i++;
		want = group_writes(name);
		fd = open(cpath(name), O_WRONLY);
		opened = fd >= 0;
		if (opened)
			close(fd);
		else if (errno != EACCES)
			break;
		/* Group-writable (0020) exactly when the group may write. */
		if (opened != want || !(st.st_mode & 0020) == want)
			break;
		fd = open(cpath(name), O_RDONLY);
		opened = fd >= 0;
		if (opened)
			close(fd);
		/* Readable exactly when group-readable (0040). */
		if (opened == !(st.st_mode & 0040))
			break;
	}
	closedir(d);
	if (!de)
		return 0;
	fprintf(stderr, "# group member: %s (mode 0%o): %s\n", name,
		(unsigned int)(st.st_mode & 07777), strerror(errno));
	return 20 + i;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * As a member of the tracing group, on the fixture's channel root set
 * up: create nothing, write no setting, but start the channel, annotate,
 * read the record back, and flush no more than once per 10 ms.
 * Returns 0, or the step that failed.
 */
static int member_records(void)
{
	char pkt[SUBBUF];
	double t;
	int fd, i, ret;

	if (chan_control("create", "kstg") != -EACCES ||
	    put(cpath("subbuf_size"), "8192") != -EACCES)
		return 2;
	ret = member_files();
	if (ret)
		return ret;
	if (put(cpath("enable"), "1"))
		return 3;
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || annotate("group") || ioctl(fd, LRB_IOC_FLUSH))
		return 4;
	if (read_packet(fd, (unsigned char *)pkt) < 0 ||
	    packet_records((unsigned char *)pkt, "group") != 1)
		return 5;
	/* 20 periods of jiffies, of which the first may be cut short. */
	t = now_ms();
	for (i = 0; i < 21; i++)
		if (ioctl(fd, LRB_IOC_FLUSH))
			return 6;
	t = now_ms() - t;
	if (t < 180) {
		fprintf(stderr, "# 21 flushes in %.1f ms\n", t);
		return 7;
	}
	close(fd);
	return put(cpath("enable"), "0") ? 8 : 0;
}

/* As a user outside the group: nothing opens. */
static int outsider(void)
{
	if (open(cpath("stats"), O_RDONLY) >= 0 || errno != EACCES ||
	    open(LRB_DIR "/control", O_RDONLY) >= 0 || errno != EACCES)
		return 10;
	return 0;
}

static int run_as(uid_t uid, gid_t gid, const gid_t *groups, int n,
		  int (*fn)(void))
{
	int status;
	pid_t pid = fork();

	if (!pid) {
		if (setgroups(n, groups) || setgid(gid) || setuid(uid))
			_exit(1);
		_exit(fn());
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST_F(chan, tracing_group)
{
	const gid_t member[] = { TRACING_GID };
	char opts[64];
	struct stat st;

	/* tracefs mounted with gid=, as ftrace allows since 5.16. */
	ASSERT_EQ(0, stat(TRACEFS_DIR, &st));
	if (mount("nodev", TRACEFS_DIR, NULL, MS_REMOUNT, "gid=4242,mode=0750"))
		SKIP(return, "cannot remount tracefs: %s", strerror(errno));
	/* A member of the group records on root's channel... */
	EXPECT_EQ(0, run_as(4244, 4243, member, 1, member_records));
	/* ... and a user outside it can neither create nor read one. */
	EXPECT_EQ(0, run_as(4245, 4243, NULL, 0, outsider));
	snprintf(opts, sizeof(opts), "gid=%u,mode=0%o", (unsigned int)st.st_gid,
		 (unsigned int)(st.st_mode & 07777));
	ASSERT_EQ(0, mount("nodev", TRACEFS_DIR, NULL, MS_REMOUNT, opts));
}

/*
 * uid 0 without capabilities: the owner of every file, but root's files
 * also ask for CAP_PERFMON or CAP_SYS_ADMIN. Returns 0, or the step that
 * failed.
 */
static int capless_root(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	int fd;

	if (syscall(SYS_capset, &hdr, data))
		return 1;
	if (open(LRB_DIR "/control", O_WRONLY) >= 0 || errno != EPERM)
		return 2;
	if (put(cpath("num_subbufs"), "8") != -EPERM)
		return 3;
	if (put(cpath("enable"), "1") || annotate("capless"))
		return 4;
	fd = open(cpath("stats"), O_RDONLY);
	if (fd < 0)
		return 5;
	close(fd);
	return put(cpath("enable"), "0") ? 6 : 0;
}

TEST_F(chan, root_without_capabilities)
{
	char buf[16];
	int status;
	pid_t pid = fork();

	ASSERT_LE(0, pid);
	if (!pid)
		_exit(capless_root());
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	/* It recorded; what it was refused changed nothing. */
	EXPECT_EQ(1, stat_total(WRITTEN));
	ASSERT_EQ(0, get(cpath("num_subbufs"), buf, sizeof(buf)));
	EXPECT_STREQ("4\n", buf);
}

/* Channels a control file lists. */
static int chan_count(void)
{
	char buf[8192], *p;
	int n = 0;

	if (get(LRB_DIR "/control", buf, sizeof(buf)))
		return -1;
	for (p = buf; (p = strchr(p, '\n')); p++)
		n++;
	return n;
}

TEST_F(chan, channels_at_most_64)
{
	char name[32];
	int n = chan_count(), i, made = 0;

	ASSERT_LE(1, n);
	for (i = n; i < 64; i++) {
		snprintf(name, sizeof(name), "kstn%d", i);
		if (chan_control("create", name))
			break;
		made++;
	}
	EXPECT_EQ(64 - n, made);
	EXPECT_EQ(64, chan_count());
	EXPECT_EQ(-ENOSPC, chan_control("create", "kstn64"));
	for (i = n; i < n + made; i++) {
		snprintf(name, sizeof(name), "kstn%d", i);
		EXPECT_EQ(0, chan_control("remove", name));
	}
	/* Room again. */
	EXPECT_EQ(0, chan_control("create", "kstn64"));
	EXPECT_EQ(0, chan_control("remove", "kstn64"));
}

TEST_F(chan, stats_keys)
{
	static const char * const keys[] = {
		"written", "delivered", "lost_full", "lost_overwritten",
		"lost_too_big", "lost_nested", "lost_nmi", "subbufs", "corrupt",
	};
	long long sum[ARRAY_SIZE(keys)] = {}, v;
	char cpu[16];
	int fd = one_packet(), c;
	size_t i;
	unsigned char pkt[SUBBUF];

	ASSERT_LE(0, fd);
	ASSERT_LT(0, read_packet(fd, pkt));
	/* A block per possible CPU, numbered from 0. */
	for (c = 0; ; c++) {
		snprintf(cpu, sizeof(cpu), "%d", c);
		if (stat_of(cpu, "written") < 0)
			break;
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			v = stat_of(cpu, keys[i]);
			EXPECT_LE(0, v) TH_LOG("cpu %d: no %s", c, keys[i]);
			sum[i] += v;
		}
	}
	ASSERT_LT(0, c);
	/* The total block is the sum of the CPUs'. */
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		EXPECT_EQ(sum[i], stat_total(keys[i])) TH_LOG("key %zu", i);
	EXPECT_EQ(1, stat_of("0", "written"));
	EXPECT_EQ(1, stat_of("0", "delivered"));
	EXPECT_EQ(1, stat_of("0", "subbufs"));
	EXPECT_EQ(-1, stat_of("0", "no_such_key"));
	close(fd);
}

TEST_F(chan, read_bad_buffer)
{
	unsigned char pkt[SUBBUF];
	/* A mapping user space may not touch: copy_to_user() faults. */
	void *bad = mmap(NULL, SUBBUF, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	int fd = one_packet();

	ASSERT_NE(MAP_FAILED, bad);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, read(fd, bad, SUBBUF));
	EXPECT_EQ(EFAULT, errno);
	EXPECT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "kept"));
	close(fd);
}

TEST_F(chan, read_offline_cpu)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	unsigned char pkt[SUBBUF];
	cpu_set_t set;
	int fd, n = 0;
	ssize_t r;

	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline");
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	/* One record on CPU 1, left in its open sub-buffer. */
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, annotate("cpu1"));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, put(online, "0"));
	fd = open_stream(1, O_RDONLY);
	ASSERT_LE(0, fd);
	/* A blocking read returns what the CPU held, then EOF. */
	while ((r = read(fd, pkt, sizeof(pkt))) > 0)
		n += packet_records(pkt, "cpu1");
	EXPECT_EQ(0, r);
	EXPECT_EQ(1, n);
	close(fd);
	ASSERT_EQ(0, put(online, "1"));
}

TEST_F(chan, read_woken_by_offline)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	unsigned char pkt[SUBBUF];
	int fd, status = 0, i;
	pid_t pid;

	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline");
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	fd = open_stream(1, O_RDONLY);
	ASSERT_LE(0, fd);
	/* A reader blocked on CPU 1, which has nothing to deliver. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(read(fd, pkt, sizeof(pkt)) == 0 ? 0 : 1);
	usleep(200000);
	ASSERT_EQ(0, put(online, "0"));
	/* Going offline ends its wait: end of file within 5 s. */
	for (i = 0; i < 50 && !waitpid(pid, &status, WNOHANG); i++)
		usleep(100000);
	if (i == 50) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	put(online, "1");
	EXPECT_GT(50, i);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	close(fd);
}

/* The number of the CPU hotplug state @name, or -1. */
static int hotplug_state(const char *name)
{
	FILE *f = fopen("/sys/devices/system/cpu/hotplug/states", "r");
	char line[128], *colon;
	int state = -1;

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		colon = strchr(line, ':');
		if (colon && !strcmp(colon + 2, name))
			state = atoi(line);
	}
	if (f)
		fclose(f);
	return state;
}

/*
 * CPU 1 parked between leaving cpu_online_mask and its death's teardown
 * (CONFIG_CPU_HOTPLUG_STATE_CONTROL): its tail is not closed yet, so a read
 * finds nothing and no end of file. The CPU cannot go further down with
 * one other online (EBUSY): back up, nothing was lost, and the flush of
 * the disable delivers the tail, then the end.
 */
TEST_F(chan, read_parked_cpu)
{
	const char *target = "/sys/devices/system/cpu/cpu1/hotplug/target";
	int dead = hotplug_state("trace/lrb:dead"), fd, n = 0;
	unsigned char pkt[SUBBUF];
	char state[16];
	cpu_set_t set;
	ssize_t r;

	if (dead < 0 || access(target, W_OK))
		SKIP(return, "no CONFIG_CPU_HOTPLUG_STATE_CONTROL or CPU 1");
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	ASSERT_EQ(0, annotate("parked"));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(set), &set));
	fd = open_stream(1, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	snprintf(state, sizeof(state), "%d", dead);
	ASSERT_EQ(0, put(target, state));
	EXPECT_EQ(-1, read(fd, pkt, sizeof(pkt)));
	EXPECT_EQ(EAGAIN, errno);
	snprintf(state, sizeof(state), "%d", hotplug_state("online"));
	ASSERT_EQ(0, put(target, state));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	while ((r = read(fd, pkt, sizeof(pkt))) > 0)
		n += packet_records(pkt, "parked");
	EXPECT_EQ(0, r);
	EXPECT_EQ(1, n);
	close(fd);
}

TEST_F(chan, remove_while_open)
{
	unsigned char pkt[SUBBUF];
	int fd = one_packet();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBUSY, chan_control("remove", self->name));
	/* Still usable, nothing lost. */
	EXPECT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "kept"));
	close(fd);
	EXPECT_EQ(0, chan_control("remove", self->name));
	EXPECT_NE(0, access(self->dir, F_OK));
}

TEST_F(chan, stream_exclusive_and_read_only)
{
	int fd = open_stream(0, O_RDONLY);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, open_stream(0, O_RDONLY));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
	EXPECT_EQ(-1, open_stream(0, O_RDWR));
	EXPECT_EQ(EACCES, errno);
	fd = open_stream(0, O_RDONLY);
	EXPECT_LE(0, fd);
	close(fd);
}

TEST_F(chan, annotate_too_long)
{
	char big[SUBBUF + 1];

	ASSERT_EQ(0, put(cpath("enable"), "1"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-EMSGSIZE, annotate(big));
	/*
	 * The limit: a sub-buffer less the packet header, an extended record
	 * header and the record's length, less the NUL.
	 */
	big[SUBBUF - 72 - 13 - 2] = '\0';
	EXPECT_EQ(-EMSGSIZE, annotate(big));
	big[1000] = '\0';
	EXPECT_EQ(0, annotate(big));
	EXPECT_EQ(1, stat_total(WRITTEN));
}

TEST_F(chan, annotate_disabled)
{
	EXPECT_EQ(-ENODEV, annotate("nobody listens"));
	EXPECT_EQ(0, stat_total(WRITTEN));
}

TEST_F(chan, losses_counted)
{
	unsigned char pkt[SUBBUF];
	int fd, n = 0, i, ok = 0, ret;
	uint64_t discarded = 0;
	ssize_t r;

	/*
	 * 4 sub-buffers of 4 KiB hold about 400 of these: the rest is
	 * refused with ENOSPC and counted.
	 */
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (i = 0; i < 1000; i++) {
		ret = annotate("loss test record");
		ASSERT_TRUE(ret == 0 || ret == -ENOSPC);
		ok += !ret;
	}
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	fd = open_stream(0, O_RDONLY);
	ASSERT_LE(0, fd);
	for (i = 0; i < 2; i++) {
		while ((r = read(fd, pkt, sizeof(pkt))) > 0) {
			n += packet_records(pkt, "loss test");
			discarded = ((struct lrb_packet_header *)pkt)->events_discarded;
		}
		ASSERT_EQ(0, r);
		/* Losses after the last packet: a flush reports them. */
		ASSERT_EQ(0, ioctl(fd, LRB_IOC_FLUSH));
	}
	EXPECT_EQ(1000, stat_total(WRITTEN));
	EXPECT_EQ(n, stat_total(DELIVERED));
	EXPECT_EQ(ok, n);
	EXPECT_LT(0, stat_total(LOST_FULL));
	EXPECT_EQ(1000, n + stat_total(LOST_FULL));
	EXPECT_EQ(discarded, stat_total(LOST_FULL));
	close(fd);
}

/* Markers and trace events (CONFIG_LRB_MARKERS, CONFIG_LRB_TRACE_EVENTS). */

#define SAMPLE_KO	"/lib/lrb_sample.ko"
#define FTRACE_DIR	"/sys/kernel/tracing"

/* The events file, metadata and available_events hold hundreds of KiB. */
static char big[4 << 20], big2[1 << 20];

/* Disable the channel, then decode every record of every CPU. */
static int records_each(rec_fn fn, void *arg)
{
	unsigned char pkt[SUBBUF];
	int ncpu = sysconf(_SC_NPROCESSORS_CONF);
	ssize_t r;

	if (put(cpath("enable"), "0") || read_fixed_lens())
		return -1;
	for (int cpu = 0; cpu < ncpu; cpu++) {
		int fd = open_stream(cpu, O_RDONLY);

		if (fd < 0)
			return -1;
		while ((r = read(fd, pkt, sizeof(pkt))) > 0)
			if (packet_each(pkt, cpu, fn, arg))
				return -1;
		close(fd);
		if (r < 0)
			return -1;
	}
	return 0;
}

/*
 * The id of an event's records in the channel, from its events file: 0
 * until the channel selects the event, -1 if there is no such event.
 */
static int event_id(const char *name)
{
	char *line, *save;
	char n[128];
	int id;

	if (get(cpath("events"), big, sizeof(big)))
		return -1;
	for (line = strtok_r(big, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%127s %d", n, &id) == 2 && !strcmp(n, name))
			return id;
	return -1;
}

/* Lines of the events file that end with @state ("enabled"). */
static int events_count(const char *prefix, const char *state)
{
	char *line, *save;
	int n = 0;

	if (get(cpath("events"), big, sizeof(big)))
		return -1;
	for (line = strtok_r(big, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line);

		if (line[0] == '#' || strncmp(line, prefix, strlen(prefix)))
			continue;
		n += l >= strlen(state) &&
		     !strcmp(line + l - strlen(state), state);
	}
	return n;
}

static int events_cmd(const char *cmd, const char *sel)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s %s\n", cmd, sel);
	return put(cpath("events"), buf);
}

/*
 * The offset of @field in the entry of @event (SYSTEM/EVENT), from
 * ftrace's format file: LRB records are ftrace entries. -1 if absent.
 */
static int field_off(const char *event, const char *field)
{
	char path[256], buf[16384], *p = buf;
	size_t n = strlen(field);

	snprintf(path, sizeof(path), FTRACE_DIR "/events/%s/format", event);
	if (get(path, buf, sizeof(buf)))
		return -1;
	while ((p = strstr(p, field))) {
		if (p[-1] == ' ' && (p[n] == ';' || p[n] == '[')) {
			p = strstr(p, "offset:");
			return p ? atoi(p + 7) : -1;
		}
		p += n;
	}
	return -1;
}

/*
 * The bytes of the ftrace entry that a record leaves out, before its
 * first field: ftrace's common fields, unless the channel's common_fields
 * is 1 (common_fields()). The accessors below take entry offsets.
 */
#define TRACE_ENTRY	8	/* struct trace_entry */
static int rec_skip = TRACE_ENTRY;

static int common_fields(const char *val)
{
	if (put(cpath("common_fields"), val))
		return -1;
	rec_skip = strcmp(val, "1") ? TRACE_ENTRY : 0;
	return 0;
}

static int32_t i32_at(const struct rec *r, int off)
{
	int32_t v = 0;

	off -= rec_skip;
	if (off >= 0 && (size_t)off + 4 <= r->len)
		memcpy(&v, r->p + off, 4);
	return v;
}

static int64_t i64_at(const struct rec *r, int off)
{
	int64_t v = 0;

	off -= rec_skip;
	if (off >= 0 && (size_t)off + 8 <= r->len)
		memcpy(&v, r->p + off, 8);
	return v;
}

/* The text of a __data_loc char[] field at @off, or "" if it is bad. */
static const char *loc_str(const struct rec *r, int off)
{
	uint32_t loc = i32_at(r, off);
	size_t o = (loc & 0xffff) - rec_skip, l = loc >> 16;

	if (off < 0 || !l || (loc & 0xffff) < (uint32_t)rec_skip ||
	    o + l > r->len || r->p[o + l - 1])
		return "";
	return (const char *)r->p + o;
}

#define COMMON_PID	4	/* struct trace_entry */
#define COMMON_TYPE	0

TEST_F(chan, events_listed)
{
	char *line, *save, want[160];
	int avail = 0, found = 0;

	if (access(cpath("events"), F_OK))
		SKIP(return, "no events file (CONFIG_LRB_MARKERS=n)");
	if (event_id("sched:sched_switch") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, get(FTRACE_DIR "/available_events", big2, sizeof(big2)));
	/* The metadata describes what the channel selected, ever... */
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_EQ(NULL, strstr(big, "name = \"sched:sched_switch\";"));
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_switch"));
	ASSERT_EQ(0, events_cmd("disable", "sched:sched_switch"));
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_NE(NULL, strstr(big, "name = \"sched:sched_switch\";"));
	EXPECT_EQ(NULL, strstr(big, "name = \"sched:sched_wakeup\";"));
	/* ... so every event ftrace offers, once "all" is selected... */
	ASSERT_EQ(0, events_cmd("enable", "all"));
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	for (line = strtok_r(big2, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		avail++;
		snprintf(want, sizeof(want), "name = \"%s\";", line);
		if (strstr(big, want))
			found++;
		else
			TH_LOG("not in the metadata: %s", line);
	}
	EXPECT_LT(500, avail);
	EXPECT_EQ(avail, found);
	/* ... and listed, beside the markers. */
	EXPECT_LE(avail, events_count("", "enabled"));
	EXPECT_LT(0, event_id("syscalls:sys_enter_getppid"));
	EXPECT_LT(0, event_id("irq:softirq_entry"));
}

TEST_F(chan, events_bad_commands)
{
	static const char * const bad[] = {
		"sched:", ":sched_switch", "a:b:c", "[abc", "x]", "bad/char",
		"sp ace", "[[a]]", "q\xe9q*", "caf\xe9", "name\xa0x",
		"a123456789012345678901234567890123456789012345678901234567890123",
	};

	if (access(cpath("events"), F_OK))
		SKIP(return, "no events file (CONFIG_LRB_MARKERS=n)");
	EXPECT_EQ(-ENOENT, events_cmd("enable", "no_such_event"));
	EXPECT_EQ(-ENOENT, events_cmd("enable", "no_such_system:no_event"));
	EXPECT_EQ(-ENOENT, events_cmd("disable", "sched:sched_switch"));
	EXPECT_EQ(-EINVAL, events_cmd("frobnicate", "sched:sched_switch"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable\n"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable    "));
	/* One space, one newline; 0xa0 is not a space. */
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable  sched\n"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable sched\xa0"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "\240enable sched"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable\xa0sched"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "enable sched\n\n"));
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(-EINVAL, events_cmd("enable", bad[i])) {
			TH_LOG("selector '%s'", bad[i]);
		}
	}
	/* Nothing of the above changed the channel's selection. */
	EXPECT_EQ(0, events_count("", "enabled"));
	get(cpath("events"), big, sizeof(big));
	EXPECT_EQ(NULL, strstr(big, "# enable"));
	/* A glob may match nothing yet: it waits for modules. */
	EXPECT_EQ(0, events_cmd("enable", "no_such_module_*"));
	/* A disable it does not cover has nothing to do: ENOENT, not kept. */
	EXPECT_EQ(-ENOENT, events_cmd("disable", "no_such_event_zz"));
	EXPECT_EQ(-ENOENT, events_cmd("disable", "qqq*"));
	get(cpath("events"), big, sizeof(big));
	EXPECT_EQ(NULL, strstr(big, "# disable"));
	EXPECT_EQ(0, events_cmd("disable", "no_such_module_*"));
	EXPECT_EQ(-ENOENT, events_cmd("disable", "no_such_module_*"));
}

TEST_F(chan, events_selectors)
{
	int sched;

	if (event_id("sched:sched_switch") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	sched = events_count("sched:", "-");
	ASSERT_LT(10, sched);
	/* A system, its events by glob, one event by its own name. */
	ASSERT_EQ(0, events_cmd("enable", "sched"));
	EXPECT_EQ(sched, events_count("sched:", "enabled"));
	EXPECT_EQ(sched, events_count("", "enabled"));
	ASSERT_EQ(0, events_cmd("disable", "sched"));
	EXPECT_EQ(0, events_count("", "enabled"));
	ASSERT_EQ(0, events_cmd("enable", "sched:*"));
	EXPECT_EQ(sched, events_count("", "enabled"));
	ASSERT_EQ(0, events_cmd("disable", "sched:*"));
	ASSERT_EQ(0, events_cmd("enable", "sched_switch"));
	EXPECT_EQ(1, events_count("sched:sched_switch ", "enabled"));
	EXPECT_EQ(1, events_count("", "enabled"));
	ASSERT_EQ(0, events_cmd("enable", "*:sched_wakeup"));
	EXPECT_EQ(2, events_count("", "enabled"));
	ASSERT_EQ(0, events_cmd("disable", "*"));
	/* All of them, and back. */
	ASSERT_EQ(0, events_cmd("enable", "all"));
	EXPECT_EQ(0, events_count("", "-"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	ASSERT_EQ(0, events_cmd("disable", "all"));
	EXPECT_EQ(0, events_count("", "enabled"));
}

struct switch_count {
	int id, prev_pid;
	pid_t pid;
	int n;
};

static void count_switch(const struct rec *r, void *arg)
{
	struct switch_count *c = arg;

	if (r->id == (unsigned int)c->id &&
	    i32_at(r, c->prev_pid) == c->pid)
		c->n++;
}

TEST_F(chan, events_in_two_channels)
{
	struct switch_count a = { .pid = getpid() }, b = a;
	char other[64];

	if (event_id("sched:sched_switch") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	a.prev_pid = field_off("sched/sched_switch", "prev_pid");
	ASSERT_LT(0, a.prev_pid);
	b = a;
	snprintf(other, sizeof(other), "%s_b", self->name);
	ASSERT_EQ(0, chan_control("create", other));
	/*
	 * Each channel numbers the events it selects, from 1 in the order it
	 * first selects them, for good: sched_switch is our second event and
	 * the other channel's first.
	 */
	ASSERT_EQ(0, events_cmd("enable", "irq:softirq_entry"));
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_switch"));
	ASSERT_EQ(0, events_cmd("disable", "irq:softirq_entry"));
	ASSERT_EQ(0, events_cmd("enable", "irq:softirq_entry"));
	EXPECT_EQ(1, event_id("irq:softirq_entry"));
	ASSERT_EQ(0, events_cmd("disable", "irq:softirq_entry"));
	a.id = event_id("sched:sched_switch");
	EXPECT_EQ(2, a.id);
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_NE(NULL, strstr(big, "name = \"sched:sched_switch\";\n\tid = 2;"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	snprintf(chan_dir, sizeof(chan_dir), LRB_DIR "/%s", other);
	ASSERT_EQ(0, put(cpath("subbuf_size"), "4096"));
	EXPECT_EQ(0, event_id("sched:sched_switch"));
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_switch"));
	b.id = event_id("sched:sched_switch");
	EXPECT_EQ(1, b.id);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 10; i++)
		usleep(2000);
	/* The other channel first, then ours: each got every switch. */
	ASSERT_EQ(0, records_each(count_switch, &b));
	snprintf(chan_dir, sizeof(chan_dir), "%s", self->dir);
	ASSERT_EQ(0, records_each(count_switch, &a));
	EXPECT_LE(10, a.n);
	EXPECT_LE(10, b.n);
	/*
	 * sched_switch has no dynamic field: its records leave their length
	 * out, as the metadata says, once it ran; softirq_entry never did.
	 */
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_NE(NULL, strstr(big, "name = \"sched:sched_switch\";\n\tid = 2;\n"
			       "\tstream_id = 0;\n\t" LRB_FIXED_LEN_TSDL));
	EXPECT_NE(NULL, strstr(big, "name = \"irq:softirq_entry\";\n\tid = 1;\n"
			       "\tstream_id = 0;\n\tcontext := struct {\n"
			       "\t\tuint16_t _length;\n"));
	EXPECT_EQ(0, chan_control("remove", other));
	/* Removing the other channel left ours as it was. */
	EXPECT_EQ(1, events_count("sched:sched_switch ", "enabled"));
}

struct sys_count {
	int enter_id, exit_id, nr_off, ret_off;
	long nr, ret;
	pid_t pid;
	int enters, exits;
};

static void count_sys(const struct rec *r, void *arg)
{
	struct sys_count *c = arg;

	/* Without common fields, every process's (a filter picks them). */
	if ((!rec_skip && i32_at(r, COMMON_PID) != c->pid) ||
	    i32_at(r, c->nr_off) != c->nr)
		return;
	if (r->id == (unsigned int)c->enter_id)
		c->enters++;
	if (r->id == (unsigned int)c->exit_id && i64_at(r, c->ret_off) == c->ret)
		c->exits++;
}

TEST_F(chan, trace_event_syscalls)
{
	struct sys_count c = {
		.nr = SYS_getppid, .ret = getppid(), .pid = getpid(),
	};

	if (event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no system call events");
	/* The records name their process: common_pid. */
	ASSERT_EQ(0, common_fields("1"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_*_getppid"));
	c.enter_id = event_id("syscalls:sys_enter_getppid");
	c.exit_id = event_id("syscalls:sys_exit_getppid");
	c.nr_off = field_off("syscalls/sys_enter_getppid", "__syscall_nr");
	c.ret_off = field_off("syscalls/sys_exit_getppid", "ret");
	ASSERT_LT(0, c.nr_off);
	ASSERT_EQ(c.nr_off, field_off("syscalls/sys_exit_getppid", "__syscall_nr"));
	ASSERT_LT(0, c.ret_off);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, records_each(count_sys, &c));
	EXPECT_EQ(100, c.enters);
	EXPECT_EQ(100, c.exits);
	/* Disabled at run time: no more records. */
	ASSERT_EQ(0, events_cmd("disable", "syscalls:*"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	c.enters = 0;
	c.exits = 0;
	ASSERT_EQ(0, records_each(count_sys, &c));
	EXPECT_EQ(0, c.enters);
	EXPECT_EQ(0, c.exits);
}

struct common_check {
	int exit_id, ret_off, type;
	long ret;
	pid_t pid;
	size_t len;
	int n, ours;
};

static void check_common(const struct rec *r, void *arg)
{
	struct common_check *c = arg;

	if (r->id != (unsigned int)c->exit_id || i64_at(r, c->ret_off) != c->ret)
		return;
	c->n++;
	c->len = r->len;
	c->ours += !rec_skip && i32_at(r, COMMON_PID) == c->pid &&
		   (uint16_t)i32_at(r, COMMON_TYPE) == c->type;
}

/* Count @c's records of @calls getppid() calls, in a fresh trace. */
static int common_run(struct common_check *c, int calls)
{
	c->n = 0;
	c->ours = 0;
	if (put(cpath("enable"), "1"))
		return -1;
	for (int i = 0; i < calls; i++)
		syscall(SYS_getppid);
	return records_each(check_common, c);
}

TEST_F(chan, trace_event_common_fields)
{
	struct common_check c = { .ret = getppid(), .pid = getpid() };
	char buf[16];

	if (event_id("syscalls:sys_exit_getppid") < 0)
		SKIP(return, "no system call events");
	ASSERT_EQ(0, get(FTRACE_DIR "/events/syscalls/sys_exit_getppid/id",
			 buf, sizeof(buf)));
	c.type = atoi(buf);
	c.ret_off = field_off("syscalls/sys_exit_getppid", "ret");
	ASSERT_LT(TRACE_ENTRY, c.ret_off);
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_exit_getppid"));
	c.exit_id = event_id("syscalls:sys_exit_getppid");

	/* Off by default: a record is the entry from its first field on. */
	ASSERT_EQ(0, get(cpath("common_fields"), buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, common_run(&c, 10));
	EXPECT_LE(10, c.n);
	EXPECT_EQ(c.ret_off + (int)sizeof(long) - TRACE_ENTRY, (int)c.len);
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_EQ(NULL, strstr(big, "common_pid"));

	/* Set while disabled only, to 0 or 1. */
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	EXPECT_EQ(-EBUSY, put(cpath("common_fields"), "1"));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	EXPECT_EQ(-EINVAL, put(cpath("common_fields"), "2"));

	/* On: ftrace's entry whole, with the event's type and our pid. */
	ASSERT_EQ(0, common_fields("1"));
	ASSERT_EQ(0, common_run(&c, 10));
	EXPECT_LE(10, c.n);
	EXPECT_EQ(10, c.ours);
	EXPECT_EQ(c.ret_off + (int)sizeof(long), (int)c.len);
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_NE(NULL, strstr(big, "common_pid"));
}

struct proc_check {
	int fork_id, exec_id, exit_id;
	int parent_off, child_off, exec_pid_off, filename_off, exit_pid_off;
	pid_t parent, child;
	int forks, execs, exits;
};

static void check_proc(const struct rec *r, void *arg)
{
	struct proc_check *c = arg;

	if (r->id == (unsigned int)c->fork_id)
		c->forks += i32_at(r, c->parent_off) == c->parent &&
			    i32_at(r, c->child_off) == c->child;
	else if (r->id == (unsigned int)c->exec_id)
		c->execs += i32_at(r, c->exec_pid_off) == c->child &&
			    !strcmp(loc_str(r, c->filename_off), "/bin/true");
	else if (r->id == (unsigned int)c->exit_id)
		c->exits += i32_at(r, c->exit_pid_off) == c->child;
}

TEST_F(chan, trace_event_fork_exec_exit)
{
	struct proc_check c = { .parent = getpid() };
	int status;

	if (event_id("sched:sched_process_fork") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_process_*"));
	c.fork_id = event_id("sched:sched_process_fork");
	c.exec_id = event_id("sched:sched_process_exec");
	c.exit_id = event_id("sched:sched_process_exit");
	c.parent_off = field_off("sched/sched_process_fork", "parent_pid");
	c.child_off = field_off("sched/sched_process_fork", "child_pid");
	c.exec_pid_off = field_off("sched/sched_process_exec", "pid");
	c.filename_off = field_off("sched/sched_process_exec", "filename");
	c.exit_pid_off = field_off("sched/sched_process_exit", "pid");
	ASSERT_LT(0, c.filename_off);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	c.child = fork();
	ASSERT_LE(0, c.child);
	if (!c.child) {
		execl("/bin/true", "true", NULL);
		_exit(127);
	}
	ASSERT_EQ(c.child, waitpid(c.child, &status, 0));
	ASSERT_EQ(0, records_each(check_proc, &c));
	EXPECT_EQ(1, c.forks);
	EXPECT_EQ(1, c.execs);
	EXPECT_EQ(1, c.exits);
}

struct sched_check {
	int switch_id, wakeup_id;
	int prev_comm, prev_pid, prev_state, next_pid, wakeup_pid;
	pid_t pid;
	int out_sleeping, in, wakeups;
};

static void check_sched(const struct rec *r, void *arg)
{
	struct sched_check *c = arg;

	if (r->id == (unsigned int)c->switch_id) {
		if (i32_at(r, c->prev_pid) == c->pid &&
		    i64_at(r, c->prev_state) == 1 &&
		    !strncmp((const char *)r->p + c->prev_comm - rec_skip,
			     "lrb_test", 16))
			c->out_sleeping++;
		c->in += i32_at(r, c->next_pid) == c->pid;
	} else if (r->id == (unsigned int)c->wakeup_id) {
		c->wakeups += i32_at(r, c->wakeup_pid) == c->pid;
	}
}

TEST_F(chan, trace_event_sched_switch_wakeup)
{
	struct sched_check c = { .pid = getpid() };

	if (event_id("sched:sched_switch") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_switch"));
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_wakeup"));
	c.switch_id = event_id("sched:sched_switch");
	c.wakeup_id = event_id("sched:sched_wakeup");
	c.prev_comm = field_off("sched/sched_switch", "prev_comm");
	c.prev_pid = field_off("sched/sched_switch", "prev_pid");
	c.prev_state = field_off("sched/sched_switch", "prev_state");
	c.next_pid = field_off("sched/sched_switch", "next_pid");
	c.wakeup_pid = field_off("sched/sched_wakeup", "pid");
	ASSERT_LT(0, c.prev_comm);
	ASSERT_LT(0, c.wakeup_pid);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 10; i++)
		usleep(2000);
	ASSERT_EQ(0, records_each(check_sched, &c));
	/* Each sleep: switched out in state S (1), woken, switched in. */
	EXPECT_LE(10, c.out_sleeping);
	EXPECT_LE(10, c.wakeups);
	EXPECT_LE(10, c.in);
}

struct irq_count {
	int entry_id, exit_id, soft_entry_id, soft_exit_id;
	int name_off, vec_off;
	int entries, named, exits, soft_entries, soft_exits;
};

static void count_irq(const struct rec *r, void *arg)
{
	struct irq_count *c = arg;

	if (r->id == (unsigned int)c->entry_id) {
		c->entries++;
		c->named += strlen(loc_str(r, c->name_off)) > 0;
	} else if (r->id == (unsigned int)c->exit_id) {
		c->exits++;
	} else if ((r->id == (unsigned int)c->soft_entry_id ||
		    r->id == (unsigned int)c->soft_exit_id) &&
		   (uint32_t)i32_at(r, c->vec_off) < 10) {
		c->soft_entries += r->id == (unsigned int)c->soft_entry_id;
		c->soft_exits += r->id == (unsigned int)c->soft_exit_id;
	}
}

TEST_F(chan, trace_event_irq_softirq)
{
	struct irq_count c = {};

	if (event_id("irq:irq_handler_entry") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "irq:irq_handler_*"));
	ASSERT_EQ(0, events_cmd("enable", "irq:softirq_e*"));
	c.entry_id = event_id("irq:irq_handler_entry");
	c.exit_id = event_id("irq:irq_handler_exit");
	c.soft_entry_id = event_id("irq:softirq_entry");
	c.soft_exit_id = event_id("irq:softirq_exit");
	c.name_off = field_off("irq/irq_handler_entry", "name");
	c.vec_off = field_off("irq/softirq_entry", "vec");
	ASSERT_LT(0, c.name_off);
	ASSERT_LT(0, c.vec_off);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	/* Console output interrupts; sleeping runs timer softirqs. */
	for (int i = 0; i < 20; i++) {
		fprintf(stderr, "# irq test line %d\n", i);
		usleep(2000);
	}
	ASSERT_EQ(0, records_each(count_irq, &c));
	EXPECT_LT(0, c.entries);
	EXPECT_EQ(c.entries, c.named);
	EXPECT_LT(0, c.exits);
	EXPECT_LT(0, c.soft_entries);
	EXPECT_LT(0, c.soft_exits);
}

struct sample_check {
	int burst_id, site_id, bye_id, step_id;
	int seq_off, tag_off, bytes_off;
	int bursts, in_order, site, bye, steps, steps_ok;
	uint32_t site_v, bye_total;
};

static void check_sample(const struct rec *r, void *arg)
{
	struct sample_check *c = arg;
	uint32_t v;

	if (r->len < 4)
		return;
	memcpy(&v, r->p, 4);
	if (r->id == (unsigned int)c->burst_id && r->len == 10 &&
	    !strcmp((const char *)r->p + 4, "burst")) {
		c->in_order += v == (uint32_t)c->bursts;
		c->bursts++;
	} else if (r->id == (unsigned int)c->site_id && r->len == 4) {
		c->site++;
		c->site_v = v;
	} else if (r->id == (unsigned int)c->bye_id && r->len == 4) {
		c->bye++;
		c->bye_total = v;
	} else if (r->id == (unsigned int)c->step_id && c->bytes_off > 0) {
		/* The module's trace event, as ftrace lays it out. */
		c->steps_ok += (uint32_t)i32_at(r, c->seq_off) == (uint32_t)c->steps &&
			       !strcmp(loc_str(r, c->tag_off), "step") &&
			       r->p[c->bytes_off - rec_skip] == (uint8_t)c->steps &&
			       r->p[c->bytes_off + 2 - rec_skip] == 0xab;
		c->steps++;
	}
}

/* Load the sample with burst=@n, note its event ids, unload it. */
static int sample_load_unload(struct sample_check *c, int n,
			      bool disable_first)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "insmod " SAMPLE_KO " burst=%d", n);
	if (system(cmd))
		return -1;
	c->burst_id = event_id("lrb_sample_burst");
	c->site_id = event_id("lrb_sample_site");
	c->bye_id = event_id("lrb_sample_bye");
	c->step_id = event_id("lrb_sample:lrb_sample_step");
	c->seq_off = field_off("lrb_sample/lrb_sample_step", "seq");
	c->tag_off = field_off("lrb_sample/lrb_sample_step", "tag");
	c->bytes_off = field_off("lrb_sample/lrb_sample_step", "bytes");
	if (disable_first && events_cmd("disable", "lrb_sample*"))
		return -1;
	return system("rmmod lrb_sample") ? -1 : 0;
}

TEST_F(chan, marker_module_load_unload)
{
	struct sample_check c = {};

	if (access(SAMPLE_KO, F_OK) || access(cpath("events"), F_OK))
		SKIP(return, "no " SAMPLE_KO " or CONFIG_LRB_MARKERS=n");
	/* Enabled before the module exists: the globs wait for it. */
	ASSERT_EQ(0, events_cmd("enable", "lrb_sample_*"));
	ASSERT_EQ(0, events_cmd("enable", "lrb_sample:*"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, sample_load_unload(&c, 50, false));
	EXPECT_EQ(-1, event_id("lrb_sample_burst"));
	EXPECT_EQ(-1, event_id("lrb_sample:lrb_sample_step"));
	ASSERT_EQ(0, records_each(check_sample, &c));
	EXPECT_EQ(50, c.bursts);
	EXPECT_EQ(50, c.in_order);
	EXPECT_EQ(1, c.site);
	EXPECT_EQ(50, c.site_v);
	EXPECT_EQ(1, c.bye);
	EXPECT_EQ(50, c.bye_total);
	if (c.step_id > 0) {
		EXPECT_EQ(50, c.steps);
		EXPECT_EQ(50, c.steps_ok);
	}
	/* Unloaded, still described: the trace stays readable. */
	ASSERT_EQ(0, get(cpath("metadata"), big, sizeof(big)));
	EXPECT_NE(NULL, strstr(big, "name = \"lrb_sample_bye\";"));
	if (c.step_id > 0)
		EXPECT_NE(NULL, strstr(big, "name = \"lrb_sample:lrb_sample_step\";"));
}

/* Whether the channel takes @name of the sample module as it loads. */
static int sample_takes(const char *name)
{
	char prefix[80];
	int n;

	if (system("insmod " SAMPLE_KO))
		return -1;
	snprintf(prefix, sizeof(prefix), "%s ", name);
	n = events_count(prefix, "enabled");
	if (system("rmmod lrb_sample"))
		return -1;
	return n;
}

/* The selectors the channel keeps, from its events file. */
static const char *kept_selectors(void)
{
	if (get(cpath("events"), big, sizeof(big)))
		return "";
	return strstr(big, "\n# ") ? strstr(big, "\n# ") + 1 : "";
}

/*
 * A disable deselects the events of modules loaded later too, whatever
 * spelling the enable had; one that overrides a wider enable is kept.
 */
TEST_F(chan, events_disable_spellings)
{
	const char *step = "lrb_sample:lrb_sample_step";
	bool has_step;

	if (access(SAMPLE_KO, F_OK) || access(cpath("events"), F_OK))
		SKIP(return, "no " SAMPLE_KO " or CONFIG_LRB_MARKERS=n");
	/* Whole names, enabled while the module is loaded, are kept. */
	ASSERT_EQ(0, system("insmod " SAMPLE_KO));
	has_step = event_id(step) >= 0;
	ASSERT_EQ(0, events_cmd("enable", "lrb_sample_burst"));
	if (has_step)
		ASSERT_EQ(0, events_cmd("enable", step));
	ASSERT_EQ(0, system("rmmod lrb_sample"));
	EXPECT_EQ(1, sample_takes("lrb_sample_burst"));
	if (has_step)
		EXPECT_EQ(1, sample_takes(step));
	/*
	 * A glob over the marker's name, the event part alone of
	 * SYSTEM:EVENT: each forgets the enable, the module's next load
	 * records neither.
	 */
	ASSERT_EQ(0, events_cmd("disable", "lrb_sample_b*"));
	if (has_step)
		ASSERT_EQ(0, events_cmd("disable", "lrb_sample_step"));
	EXPECT_STREQ("", kept_selectors());
	EXPECT_EQ(0, sample_takes("lrb_sample_burst"));
	if (has_step)
		EXPECT_EQ(0, sample_takes(step));

	/* A narrower disable is kept after the enable it overrides. */
	ASSERT_EQ(0, events_cmd("enable", "lrb_sample*"));
	ASSERT_EQ(0, events_cmd("disable", "lrb_sample:*"));
	EXPECT_STREQ("# enable lrb_sample*\n# disable lrb_sample:*\n",
		     kept_selectors());
	EXPECT_EQ(1, sample_takes("lrb_sample_burst"));
	if (has_step)
		EXPECT_EQ(0, sample_takes(step));
	/* An enable covering both replaces them; "all" forgets everything. */
	ASSERT_EQ(0, events_cmd("enable", "lrb_*"));
	EXPECT_STREQ("# enable lrb_*\n", kept_selectors());
	if (has_step)
		EXPECT_EQ(1, sample_takes(step));
	ASSERT_EQ(0, events_cmd("disable", "all"));
	EXPECT_STREQ("", kept_selectors());
	EXPECT_EQ(0, sample_takes("lrb_sample_burst"));
}

TEST_F(chan, marker_disabled_at_run_time)
{
	struct sample_check c = {};

	if (access(SAMPLE_KO, F_OK) || access(cpath("events"), F_OK))
		SKIP(return, "no " SAMPLE_KO " or CONFIG_LRB_MARKERS=n");
	ASSERT_EQ(0, events_cmd("enable", "lrb_sample*"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	/* Disabled after the load, before the unload's marker. */
	ASSERT_EQ(0, sample_load_unload(&c, 5, true));
	ASSERT_EQ(0, records_each(check_sample, &c));
	EXPECT_EQ(5, c.bursts);
	EXPECT_EQ(1, c.site);
	EXPECT_EQ(0, c.bye);
}

/* Snapshots, the switch timer and splice. */

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Write one annotation from @cpu, in a child pinned there. */
static int annotate_on(int cpu, const char *text)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		pin(cpu);
		_exit(annotate(text) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -1;
}

TEST_F(chan, snapshot_errors)
{
	struct lrb_snapshot snap;
	unsigned char pkt[SUBBUF];
	uint64_t pos = 0;
	int fd;

	/* Discard mode: nothing is overwritten, consume instead. */
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_SNAPSHOT, &snap));
	EXPECT_EQ(EINVAL, errno);
	close(fd);

	ASSERT_EQ(0, put(cpath("mode"), "overwrite"));
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	/* Before any snapshot. */
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing written: an empty window. */
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_SNAPSHOT, &snap));
	EXPECT_EQ(snap.begin, snap.end);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &snap.begin));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_SNAPSHOT, NULL));
	EXPECT_EQ(EFAULT, errno);

	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, annotate("snap"));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_SNAPSHOT, &snap));
	ASSERT_EQ(SUBBUF, snap.end - snap.begin);
	pos = snap.end;
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos));
	EXPECT_EQ(EINVAL, errno);
	pos = snap.begin + 8;
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos));
	EXPECT_EQ(EINVAL, errno);
	pos = snap.begin;
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos));
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_GET_SUBBUF, &pos));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(-1, read(fd, pkt, sizeof(pkt)));
	EXPECT_EQ(EBUSY, errno);
	EXPECT_EQ(0, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(-1, ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos));
	EXPECT_EQ(EINVAL, errno);
	/* Nothing was consumed: the packet is still there to read. */
	EXPECT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "snap"));
	EXPECT_EQ(1, stat_total(DELIVERED));
	close(fd);
}

/*
 * Writers on every CPU while snapshots are taken: annotations
 * "snap C N S", C the CPU, N a per-CPU sequence number, S a checksum.
 */
#define SNAPSHOTS	12

static unsigned int snap_sum(int cpu, long seq)
{
	return (unsigned int)(cpu * 2654435761u ^ seq * 40503u);
}

struct snap_state {
	int cpu;
	long first, last;	/* sequence numbers seen, -1 for none */
	int bad, gaps, torn;
};

static void snap_check(const struct rec *r, void *arg)
{
	struct snap_state *st = arg;
	unsigned int sum;
	long seq;
	int cpu;

	if (r->id != 0 || strncmp((const char *)r->p, "snap ", 5))
		return;
	if (sscanf((const char *)r->p, "snap %d %ld %u", &cpu, &seq, &sum) != 3 ||
	    sum != snap_sum(cpu, seq) || cpu != st->cpu) {
		st->torn++;
		return;
	}
	if (st->last >= 0 && seq != st->last + 1)
		st->gaps++;
	if (st->first < 0)
		st->first = seq;
	st->last = seq;
}

/* Save a copy of a packet of snapshot @n for babeltrace2, if asked to. */
static void snap_save(int n, int cpu, const unsigned char *pkt)
{
	const char *dir = getenv("LRB_SNAPSHOT_DIR");
	ssize_t len = packet_len(pkt);
	char path[256];
	FILE *f;

	if (!dir || len < 0)
		return;
	snprintf(path, sizeof(path), "%s/%d", dir, n);
	mkdir(dir, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%d/stream_%d", dir, n, cpu);
	f = fopen(path, "a");
	if (f) {
		fwrite(pkt, 1, len, f);
		fclose(f);
	}
}

static void snap_metadata(int n)
{
	const char *dir = getenv("LRB_SNAPSHOT_DIR");
	static char text[1 << 20];
	char path[256];
	FILE *f;

	if (!dir || get(cpath("metadata"), text, sizeof(text)))
		return;
	snprintf(path, sizeof(path), "%s/%d/metadata", dir, n);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

TEST_F(chan, snapshot_while_writing)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned char *pkt = malloc(8 * SUBBUF);	/* a CPU buffer */
	long *seqs;	/* shared with the writers: atomic loads and stores */
	pid_t pids[64];
	int n, cpu;

	ASSERT_NE(NULL, pkt);
	ASSERT_GT(63, ncpu);
	ASSERT_EQ(0, put(cpath("mode"), "overwrite"));
	ASSERT_EQ(0, put(cpath("num_subbufs"), "8"));
	/* Interrupts write too, into the same buffers. */
	events_cmd("enable", "irq");
	events_cmd("enable", "timer");
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	/* The irq and timer events' lengths, fixed when the channel started. */
	ASSERT_EQ(0, read_fixed_lens());
	seqs = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	ASSERT_NE(MAP_FAILED, seqs);
	for (cpu = 0; cpu < ncpu; cpu++) {
		seqs[cpu] = 0;
		pids[cpu] = fork();
		ASSERT_LE(0, pids[cpu]);
		if (pids[cpu])
			continue;
		pin(cpu);
		for (long i = 0; !__atomic_load_n(&seqs[63], __ATOMIC_RELAXED); i++) {
			char text[128];
			int pad = i % 40;

			snprintf(text, sizeof(text), "snap %d %ld %u %.*s", cpu, i,
				 snap_sum(cpu, i), pad,
				 "........................................");
			if (annotate(text))
				_exit(1);
			/* Published once the record is committed. */
			__atomic_store_n(&seqs[cpu], i + 1, __ATOMIC_RELEASE);
		}
		_exit(0);
	}
	pin(0);
	/* Not preempted by the writer of CPU 0 while a window is read. */
	sched_setscheduler(0, SCHED_FIFO, &(struct sched_param){ .sched_priority = 1 });
	for (n = 0; n < SNAPSHOTS; n++) {
		usleep(20000);
		for (cpu = 0; cpu < ncpu; cpu++) {
			struct snap_state st = { .cpu = cpu, .first = -1, .last = -1 };
			int fd = open_stream(cpu, O_RDONLY | O_NONBLOCK);
			long written = __atomic_load_n(&seqs[cpu], __ATOMIC_ACQUIRE);
			struct lrb_stream_info info;
			struct lrb_snapshot snap;
			int kept = 0, reused, incomplete = 0;
			uint64_t pos, off, last_seq_num = 0, i, first = 0;
			unsigned char *map;

			ASSERT_LE(0, fd);
			ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_INFO, &info));
			map = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
			ASSERT_NE(MAP_FAILED, map);
			ASSERT_EQ(0, ioctl(fd, LRB_IOC_SNAPSHOT, &snap));
			ASSERT_GE(8, (snap.end - snap.begin) / SUBBUF);
			/*
			 * Newest first, as lrb-record does: once a sub-buffer
			 * is found reused, the older ones are too.
			 */
			for (i = (snap.end - snap.begin) / SUBBUF; i-- > 0; ) {
				int tries = 0, ret;

				pos = snap.begin + i * SUBBUF;
				while ((ret = ioctl(fd, LRB_IOC_GET_SUBBUF_AT, &pos)) &&
				       errno == EAGAIN && ++tries < 100)
					usleep(100);
				if (ret && errno == EAGAIN && !kept) {
					incomplete++;
					continue;
				}
				if (ret) {
					ASSERT_TRUE(errno == ESTALE || errno == EAGAIN);
					break;
				}
				ASSERT_EQ(0, ioctl(fd, LRB_IOC_GET_MMAP_OFFSET, &off));
				memcpy(pkt + i * SUBBUF, map + off, SUBBUF);
				if (ioctl(fd, LRB_IOC_PUT_SUBBUF, &pos)) {
					ASSERT_EQ(ESTALE, errno);
					break;
				}
				first = i;
				kept++;
			}
			reused = (snap.end - snap.begin) / SUBBUF - kept - incomplete;
			/* Oldest first: packets follow each other, records too. */
			for (i = first; i < first + kept; i++) {
				const struct lrb_packet_header *ph =
					(const void *)(pkt + i * SUBBUF);

				if (i > first)
					EXPECT_EQ(last_seq_num + 1, ph->packet_seq_num);
				last_seq_num = ph->packet_seq_num;
				EXPECT_EQ(0, packet_each(pkt + i * SUBBUF, cpu,
							 snap_check, &st));
				snap_save(n, cpu, pkt + i * SUBBUF);
			}
			/* Everything committed before the snapshot is in it. */
			if (!incomplete)
				EXPECT_LE(written - 1, st.last);
			EXPECT_EQ(0, st.gaps);
			EXPECT_EQ(0, st.torn);
			EXPECT_LT(0, kept);
			printf("# snapshot %d cpu %d: %d packets, %d reused, ",
			       n, cpu, kept, reused);
			printf("%d incomplete, seq %ld..%ld (%ld written before)\n",
			       incomplete, st.first, st.last, written);
			munmap(map, info.mmap_size);
			close(fd);
		}
		snap_metadata(n);
	}
	__atomic_store_n(&seqs[63], 1, __ATOMIC_RELAXED);
	for (cpu = 0; cpu < ncpu; cpu++) {
		int status;

		ASSERT_EQ(pids[cpu], waitpid(pids[cpu], &status, 0));
		EXPECT_EQ(0, WEXITSTATUS(status));
	}
	free(pkt);
}

TEST_F(chan, switch_timer_latency)
{
	unsigned char pkt[SUBBUF];
	struct pollfd pfd;
	char buf[32];
	double t0, ms;
	int fd;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	/* Out of range, garbage: refused, the setting unchanged. */
	EXPECT_EQ(-EINVAL, put(cpath("switch_timer"), "99"));
	EXPECT_EQ(-EINVAL, put(cpath("switch_timer"), "3600000001"));
	EXPECT_EQ(-EINVAL, put(cpath("switch_timer"), "-1"));
	EXPECT_EQ(-EINVAL, put(cpath("switch_timer"), "1ms"));
	ASSERT_EQ(0, get(cpath("switch_timer"), buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, put(cpath("switch_timer"), "100000"));
	ASSERT_EQ(0, get(cpath("switch_timer"), buf, sizeof(buf)));
	EXPECT_STREQ("100000\n", buf);

	fd = open_stream(1, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	/* 100 ms: a lone record on CPU 1 arrives within two periods. */
	ASSERT_EQ(0, annotate_on(1, "lone"));
	t0 = now_ms();
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	ms = now_ms() - t0;
	printf("# switch timer 100 ms: record delivered after %.1f ms\n", ms);
	EXPECT_GT(200, ms);
	ASSERT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "lone"));

	/* Off (changed while enabled): it waits for the flush. */
	ASSERT_EQ(0, put(cpath("switch_timer"), "0"));
	ASSERT_EQ(0, annotate_on(1, "waits"));
	EXPECT_EQ(0, poll(&pfd, 1, 500));
	ASSERT_EQ(0, ioctl(fd, LRB_IOC_FLUSH));
	ASSERT_EQ(1, poll(&pfd, 1, 2000));
	ASSERT_LT(0, read_packet(fd, pkt));
	EXPECT_EQ(1, packet_records(pkt, "waits"));
	close(fd);
}

/* Copy the oldest packet through the mmap, then give it back unread. */
static int peek_packet(unsigned char *pkt, size_t size)
{
	struct lrb_stream_info info;
	uint64_t pos, off;
	unsigned char *map;
	int fd = open_stream(0, O_RDONLY | O_NONBLOCK), ret = -1;

	if (fd < 0 || ioctl(fd, LRB_IOC_GET_INFO, &info))
		return -1;
	map = mmap(NULL, info.mmap_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map != MAP_FAILED && !ioctl(fd, LRB_IOC_GET_SUBBUF, &pos) &&
	    !ioctl(fd, LRB_IOC_GET_MMAP_OFFSET, &off)) {
		memcpy(pkt, map + off, size);
		ret = 0;
	}
	if (map != MAP_FAILED)
		munmap(map, info.mmap_size);
	/* Closing the file gives the held packet back. */
	close(fd);
	return ret;
}

TEST_F(chan, splice_matches_read_and_mmap)
{
	unsigned char mapped[SUBBUF], got[SUBBUF];
	char text[64];
	int fd, p[2], n = 0;
	ssize_t r;

	/* Three packets of about 236 records (four fit: nothing lost). */
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 650; i++) {
		snprintf(text, sizeof(text), "splice %d", i);
		ASSERT_EQ(0, annotate(text));
	}
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	ASSERT_EQ(0, pipe(p));

	/* The same packet through the mmap, then through splice. */
	ASSERT_EQ(0, peek_packet(mapped, SUBBUF));
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	r = splice(fd, NULL, p[1], NULL, 65536, 0);
	ASSERT_LT(0, r);
	ASSERT_EQ(r, read(p[0], got, sizeof(got)));
	EXPECT_EQ(r, packet_len(got));
	EXPECT_EQ(0, memcmp(mapped, got, r));
	EXPECT_LT(0, packet_records(got, "splice"));
	close(fd);

	/* The next one through the mmap, then through read(). */
	ASSERT_EQ(0, peek_packet(mapped, SUBBUF));
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	r = read_packet(fd, got);
	ASSERT_LT(0, r);
	EXPECT_EQ(0, memcmp(mapped, got, r));
	/* And the rest by splice, packet by packet, to the end. */
	while ((r = splice(fd, NULL, p[1], NULL, 65536, 0)) > 0) {
		ASSERT_EQ(r, read(p[0], got, sizeof(got)));
		ASSERT_EQ(r, packet_len(got));
		n += packet_records(got, "splice");
	}
	EXPECT_EQ(0, r);	/* end of file: disabled and drained */
	EXPECT_LT(0, n);
	EXPECT_EQ(650, stat_total(DELIVERED));
	close(fd);
	close(p[0]);
	close(p[1]);
}

TEST_F(chan, splice_small_pipe)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *pkt = malloc(2 * page);
	char *text = malloc(page);
	char size[32];
	int fd, p[2];
	ssize_t n;

	/*
	 * A packet of a page and some bytes (a page of text takes the content
	 * past the first), a pipe of one page: it comes in two pieces.
	 */
	ASSERT_NE(NULL, pkt);
	ASSERT_NE(NULL, text);
	memset(text, 'x', page - 1);
	memcpy(text, "big", 3);
	text[page - 1] = '\0';
	snprintf(size, sizeof(size), "%ld", 2 * page);
	ASSERT_EQ(0, put(cpath("subbuf_size"), size));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, annotate(text));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(page, fcntl(p[1], F_SETPIPE_SZ, page));
	fd = open_stream(0, O_RDONLY | O_NONBLOCK);
	ASSERT_LE(0, fd);
	EXPECT_EQ(page, splice(fd, NULL, p[1], NULL, 65536, 0));
	EXPECT_EQ(page, read(p[0], pkt, page));
	n = splice(fd, NULL, p[1], NULL, 65536, 0);
	EXPECT_LT(0, n);
	EXPECT_EQ(n, read(p[0], pkt + page, page));
	EXPECT_EQ(page + n, packet_len(pkt));
	EXPECT_EQ(1, packet_records(pkt, "big"));
	/* Then end of file: the channel is disabled and drained. */
	EXPECT_EQ(0, splice(fd, NULL, p[1], NULL, 65536, 0));
	free(text);
	free(pkt);
	close(fd);
	close(p[0]);
	close(p[1]);
}

static void on_alarm(int sig)
{
}

/*
 * SPLICE_F_NONBLOCK on a stream opened without O_NONBLOCK: EAGAIN at once
 * while no packet is ready (the alarm, without SA_RESTART, turns a wait
 * into EINTR), then the packet, then end of file.
 */
TEST_F(chan, splice_nonblock)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	int fd, p[2];

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, pipe(p));
	fd = open_stream(0, O_RDONLY);
	ASSERT_LE(0, fd);
	alarm(2);
	EXPECT_EQ(-1, splice(fd, NULL, p[1], NULL, 65536, SPLICE_F_NONBLOCK));
	EXPECT_EQ(EAGAIN, errno);
	alarm(0);
	ASSERT_EQ(0, annotate("nb"));
	ASSERT_EQ(0, put(cpath("enable"), "0"));
	EXPECT_LT(0, splice(fd, NULL, p[1], NULL, 65536, SPLICE_F_NONBLOCK));
	EXPECT_EQ(0, splice(fd, NULL, p[1], NULL, 65536, SPLICE_F_NONBLOCK));
	close(fd);
	close(p[0]);
	close(p[1]);
}

/* Write "SELECTOR EXPR" to the filter file; 0 or -errno. */
static int filter_cmd(const char *sel, const char *expr)
{
	char buf[8192];

	snprintf(buf, sizeof(buf), "%s %s\n", sel, expr);
	return put(cpath("filter"), buf);
}

/* Written equals delivered plus lost plus filtered, once drained. */
static void expect_accounts(struct __test_metadata *_metadata)
{
	static const char * const lost[] = {
		"lost_full", "lost_overwritten", "lost_too_big", "lost_nested",
		"lost_nmi",
	};
	long long sum = stat_total(DELIVERED) + stat_total("filtered");

	for (size_t i = 0; i < ARRAY_SIZE(lost); i++)
		sum += stat_total(lost[i]);
	EXPECT_EQ(stat_total(WRITTEN), sum);
}

TEST_F(chan, filter_bad_input)
{
	static char text[8192], before[256];
	char *caret, *line;

	if (access(cpath("filter"), F_OK))
		SKIP(return, "no filter file (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_switch"));
	ASSERT_EQ(0, filter_cmd("sched:sched_switch", "prev_pid == 1"));
	ASSERT_EQ(0, get(cpath("filter"), before, sizeof(before)));
	EXPECT_STREQ("sched:sched_switch prev_pid == 1\n", before);

	/* Malformed: EINVAL, the filter kept, the message with a caret. */
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "prev_pid == 1 &&"));
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	EXPECT_EQ(0, strncmp(text, before, strlen(before)));
	EXPECT_NE(NULL, strstr(text, "# sched:sched_switch:\n"));
	EXPECT_NE(NULL, strstr(text, "# parse_error: "));
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "prev_pid >> 1"));
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	line = strstr(text, "# prev_pid >> 1\n");
	ASSERT_NE(NULL, line);
	/* The caret points into the expression, at or after the operator. */
	caret = strchr(line + 1, '\n') + 1;
	ASSERT_EQ('#', caret[0]);
	ASSERT_NE(NULL, strchr(caret, '^'));
	EXPECT_LE(strlen("# prev_pid "), (size_t)(strchr(caret, '^') - caret));
	EXPECT_GE(strlen("# prev_pid >> 1"), (size_t)(strchr(caret, '^') - caret));
	/* ftrace's parser codes are not errnos: EINVAL, whatever the error. */
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "(prev_pid == 1"));
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "== 1"));
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "prev_comm == \"abc"));
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "prev_pid == 1)"));
	/* A field the event does not have. */
	EXPECT_EQ(-EINVAL, filter_cmd("sched:sched_switch", "no_such_field == 1"));
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	EXPECT_NE(NULL, strstr(text, "# parse_error: Field not found"));
	/* No expression, a bad selector, a page or more, a NUL: EINVAL. */
	EXPECT_EQ(-EINVAL, put(cpath("filter"), "sched:sched_switch\n"));
	/* Spaces only after the selector. */
	EXPECT_EQ(-EINVAL, put(cpath("filter"), "sched:sched_switch     "));
	EXPECT_EQ(-EINVAL, filter_cmd("bad/char", "prev_pid == 1"));
	EXPECT_EQ(-EINVAL, filter_cmd("sched:", "prev_pid == 1"));
	memset(text, 'a', 4096);
	text[4096] = '\0';
	memcpy(text, "sched:sched_switch ", 19);
	EXPECT_EQ(-EINVAL, put(cpath("filter"), text));
	EXPECT_EQ(-EINVAL, put_bytes(cpath("filter"),
				     "sched:sched_switch prev_pid == 1\0x", 34));
	/* An event the channel does not record: ENOENT. */
	EXPECT_EQ(-ENOENT, filter_cmd("sched:sched_wakeup", "pid == 1"));
	EXPECT_EQ(-ENOENT, filter_cmd("no_such_event", "x == 1"));
	/* One without fields to filter on: EOPNOTSUPP. */
	if (event_id("lttng_statedump_start") >= 0) {
		ASSERT_EQ(0, events_cmd("enable", "lttng_statedump_start"));
		EXPECT_EQ(-EOPNOTSUPP,
			  filter_cmd("lttng_statedump_start", "cpu == 0"));
	}
	/* None of it changed the channel. */
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	EXPECT_EQ(0, strncmp(text, before, strlen(before)));
	EXPECT_EQ(0, events_count("sched:sched_wakeup ", "enabled"));
	/* "0" drops the filter, as in ftrace, and the message with it. */
	EXPECT_EQ(0, filter_cmd("sched:sched_switch", "0"));
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	EXPECT_STREQ("", text);
	/* A wider selector forgets the filters it covers, however spelt. */
	ASSERT_EQ(0, filter_cmd("sched_switch", "prev_pid == 1"));
	ASSERT_EQ(0, filter_cmd("sched:sched_sw*", "prev_pid == 2"));
	EXPECT_EQ(0, filter_cmd("sched", "0"));
	ASSERT_EQ(0, get(cpath("filter"), text, sizeof(text)));
	EXPECT_STREQ("", text);
}

TEST_F(chan, filter_lttng_layout)
{
	if (access(cpath("filter"), F_OK) ||
	    event_id("sched:sched_process_fork") < 0)
		SKIP(return, "no trace events (CONFIG_LRB_TRACE_EVENTS=n)");
	/* Its record in the lttng layout is not ftrace's: no filter. */
	ASSERT_EQ(0, put(cpath("layout"), "lttng"));
	ASSERT_EQ(0, events_cmd("enable", "sched:sched_process_fork"));
	EXPECT_EQ(-EOPNOTSUPP,
		  filter_cmd("sched:sched_process_fork", "child_pid == 1"));
	/* Set in the ftrace layout: the lttng layout cannot start it. */
	ASSERT_EQ(0, put(cpath("layout"), "ftrace"));
	ASSERT_EQ(0, filter_cmd("sched:sched_process_fork", "child_pid == 1"));
	ASSERT_EQ(0, put(cpath("layout"), "lttng"));
	EXPECT_EQ(-EOPNOTSUPP, put(cpath("enable"), "1"));
	ASSERT_EQ(0, put(cpath("layout"), "ftrace"));
	EXPECT_EQ(0, put(cpath("enable"), "1"));
	EXPECT_EQ(0, put(cpath("enable"), "0"));
}

TEST_F(chan, filter_records)
{
	struct sys_count c = {
		.nr = SYS_getppid, .ret = getppid(), .pid = getpid(),
	};
	char expr[64];

	if (access(cpath("filter"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no system call events");
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_*_getppid"));
	c.enter_id = event_id("syscalls:sys_enter_getppid");
	c.exit_id = event_id("syscalls:sys_exit_getppid");
	c.nr_off = field_off("syscalls/sys_enter_getppid", "__syscall_nr");
	c.ret_off = field_off("syscalls/sys_exit_getppid", "ret");
	/* The entries of no process: none recorded, all filtered. */
	ASSERT_EQ(0, filter_cmd("syscalls:sys_enter_getppid", "common_pid < 0"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	/* Replaced while the channel runs: this process's, both events. */
	snprintf(expr, sizeof(expr), "common_pid == %d && ret >= 0",
		 (int)getpid());
	EXPECT_EQ(-EINVAL, filter_cmd("syscalls:sys_*_getppid", expr));
	snprintf(expr, sizeof(expr), "common_pid == %d", (int)getpid());
	ASSERT_EQ(0, filter_cmd("syscalls:sys_*_getppid", expr));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, records_each(count_sys, &c));
	EXPECT_EQ(100, c.enters);
	EXPECT_EQ(200, c.exits);
	/* On CPU 0, where the test runs: every entry of the first 100. */
	EXPECT_LE(100, stat_of("0", "filtered"));
	EXPECT_LE(100, stat_total("filtered"));
	expect_accounts(_metadata);
}

TEST_F(chan, filter_kept_for_later)
{
	struct sys_count c = {
		.nr = SYS_getppid, .ret = getppid(), .pid = getpid(),
	};

	if (access(cpath("filter"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no system call events");
	/* A glob matching no event of the channel yet: kept for later. */
	ASSERT_EQ(0, filter_cmd("syscalls:sys_*_getppid", "common_pid < 0"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_*_getppid"));
	c.enter_id = event_id("syscalls:sys_enter_getppid");
	c.exit_id = event_id("syscalls:sys_exit_getppid");
	c.nr_off = field_off("syscalls/sys_enter_getppid", "__syscall_nr");
	c.ret_off = field_off("syscalls/sys_exit_getppid", "ret");
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, records_each(count_sys, &c));
	EXPECT_EQ(0, c.enters);
	EXPECT_EQ(0, c.exits);
	EXPECT_LE(200, stat_total("filtered"));
	expect_accounts(_metadata);
}

/* getppid() @n times on @cpu; 0, or -1 if the test cannot run there. */
static int getppid_on(int cpu, int n)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return 0;
}

struct cpu_count {
	int id;
	pid_t pid;
	int n[2];
};

static void count_cpu(const struct rec *r, void *arg)
{
	struct cpu_count *c = arg;

	if (r->id == (unsigned int)c->id &&
	    (c->pid < 0 || i32_at(r, COMMON_PID) == c->pid) &&
	    r->cpu >= 0 && r->cpu < 2)
		c->n[r->cpu]++;
}

/*
 * The getppid() entries of @pid (of every task if -1) in the channel,
 * which is disabled and drained.
 */
static int getppid_records(pid_t pid)
{
	struct cpu_count c = {
		.id = event_id("syscalls:sys_enter_getppid"), .pid = pid,
	};

	if (records_each(count_cpu, &c))
		return -1;
	return c.n[0] + c.n[1];
}

TEST_F(chan, target_cpus)
{
	static const char * const lost[] = {
		"lost_full", "lost_overwritten", "lost_too_big", "lost_nested",
		"lost_nmi",
	};
	struct cpu_count c = { .pid = getpid() };
	char buf[64], possible[64] = "";
	size_t i;

	if (access(cpath("cpus"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no targets (CONFIG_LRB_TRACE_EVENTS=n)");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "one CPU online");
	/* The records name their process: common_pid. */
	ASSERT_EQ(0, common_fields("1"));
	get("/sys/devices/system/cpu/possible", possible, sizeof(possible));
	ASSERT_EQ(0, get(cpath("cpus"), buf, sizeof(buf)));
	EXPECT_STREQ(possible, buf);
	/* Bad lists: EINVAL, the mask as it was. */
	EXPECT_EQ(-EINVAL, put(cpath("cpus"), "x"));
	EXPECT_EQ(-EINVAL, put(cpath("cpus"), "0-"));
	EXPECT_EQ(-EINVAL, put(cpath("cpus"), "1-0"));
	EXPECT_EQ(-EINVAL, put(cpath("cpus"), "100000"));
	ASSERT_EQ(0, get(cpath("cpus"), buf, sizeof(buf)));
	EXPECT_STREQ(possible, buf);

	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	c.id = event_id("syscalls:sys_enter_getppid");
	ASSERT_EQ(0, put(cpath("cpus"), "0"));
	ASSERT_EQ(0, get(cpath("cpus"), buf, sizeof(buf)));
	EXPECT_STREQ("0\n", buf);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, getppid_on(1, 100));
	ASSERT_EQ(0, getppid_on(0, 100));
	ASSERT_EQ(0, records_each(count_cpu, &c));
	EXPECT_EQ(100, c.n[0]);
	EXPECT_EQ(0, c.n[1]);
	/* Not written on CPU 1 at all: neither delivered nor lost. */
	EXPECT_EQ(0, stat_of("1", WRITTEN));
	for (i = 0; i < ARRAY_SIZE(lost); i++)
		EXPECT_EQ(0, stat_of("1", lost[i])) TH_LOG("lost key %zu", i);
	/* Empty: every CPU again. */
	ASSERT_EQ(0, put(cpath("cpus"), "\n"));
	ASSERT_EQ(0, get(cpath("cpus"), buf, sizeof(buf)));
	EXPECT_STREQ(possible, buf);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, getppid_on(1, 100));
	memset(c.n, 0, sizeof(c.n));
	ASSERT_EQ(0, records_each(count_cpu, &c));
	EXPECT_EQ(100, c.n[1]);
}

/*
 * A mask set while a CPU is offline holds from the moment it comes up:
 * its first events (the wakeups of its bringup) are not written either.
 */
TEST_F(chan, target_cpus_offline)
{
	const char *online = "/sys/devices/system/cpu/cpu1/online";
	int up;

	if (access(cpath("cpus"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no targets (CONFIG_LRB_TRACE_EVENTS=n)");
	if (access(online, W_OK))
		SKIP(return, "CPU 1 cannot be taken offline");
	ASSERT_EQ(0, events_cmd("enable", "sched"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	ASSERT_EQ(0, put(online, "0"));
	EXPECT_EQ(0, put(cpath("cpus"), "0"));
	EXPECT_EQ(0, put(cpath("enable"), "1"));
	up = put(online, "1");
	EXPECT_EQ(0, getppid_on(1, 100));
	EXPECT_EQ(0, getppid_on(0, 100));
	EXPECT_EQ(0, put(cpath("enable"), "0"));
	ASSERT_EQ(0, up);
	EXPECT_EQ(0, stat_of("1", WRITTEN));
	EXPECT_LE(100, stat_of("0", WRITTEN));
}

/* In a child: @n getppid() calls; returns the child's pid. */
static pid_t getppid_child(int n)
{
	pid_t pid = fork();

	if (!pid) {
		for (int i = 0; i < n; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return pid;
}

TEST_F(chan, target_pids)
{
	char buf[256], mine[32];
	pid_t child;
	int fd;

	if (access(cpath("pids"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no targets (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, common_fields("1"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	ASSERT_EQ(0, get(cpath("pids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	/* Bad pids: EINVAL, the list as it was. */
	EXPECT_EQ(-EINVAL, put(cpath("pids"), "abc"));
	EXPECT_EQ(-EINVAL, put(cpath("pids"), "-5"));
	EXPECT_EQ(-EINVAL, put(cpath("pids"), "1 x"));
	/* Beyond PID_MAX_LIMIT. */
	EXPECT_EQ(-EINVAL, put(cpath("pids"), "1073741824"));
	EXPECT_EQ(-EINVAL, put(cpath("pids"), "4294967295"));
	EXPECT_EQ(-EINVAL, put(cpath("pid_follow"), "2"));
	ASSERT_EQ(0, get(cpath("pids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);

	/* Another task's: this one's events are not written. */
	ASSERT_EQ(0, put(cpath("pids"), "1"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	EXPECT_EQ(0, getppid_records(-1));
	EXPECT_EQ(0, stat_total("lost_full"));
	/* ">>" adds this one, as in ftrace's set_event_pid. */
	snprintf(mine, sizeof(mine), "%d\n", (int)getpid());
	fd = open(cpath("pids"), O_WRONLY | O_APPEND);
	ASSERT_LE(0, fd);
	ASSERT_EQ((ssize_t)strlen(mine), write(fd, mine, strlen(mine)));
	close(fd);
	ASSERT_EQ(0, get(cpath("pids"), buf, sizeof(buf)));
	EXPECT_EQ(0, strncmp(buf, "1\n", 2));
	EXPECT_NE(NULL, strstr(buf, mine));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	/* A child is not followed: only this task's 100... */
	child = getppid_child(50);
	ASSERT_LT(0, child);
	EXPECT_EQ(100, getppid_records(-1));
	/* ... unless pid_follow is set, as ftrace's event-fork. */
	ASSERT_EQ(0, put(cpath("pid_follow"), "1"));
	ASSERT_EQ(0, get(cpath("pid_follow"), buf, sizeof(buf)));
	EXPECT_STREQ("1\n", buf);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	child = getppid_child(50);
	ASSERT_LT(0, child);
	EXPECT_EQ(50, getppid_records(child));
	/* Empty: every task. */
	ASSERT_EQ(0, put(cpath("pids"), "\n"));
	ASSERT_EQ(0, get(cpath("pids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
	/* A write of no bytes clears too, as it does uids and cpus. */
	ASSERT_EQ(0, put(cpath("pids"), "1"));
	ASSERT_EQ(0, put_bytes(cpath("pids"), "", 0));
	ASSERT_EQ(0, get(cpath("pids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

TEST_F(chan, target_uids)
{
	char buf[1024];
	pid_t pid;
	int n = 0;

	if (access(cpath("uids"), F_OK) ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no targets (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	/* Bad lists: EINVAL, the list as it was. */
	EXPECT_EQ(-EINVAL, put(cpath("uids"), "abc"));
	EXPECT_EQ(-EINVAL, put(cpath("uids"), "4294967295"));
	for (int i = 0; i < 65; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%d ", i);
	EXPECT_EQ(-EINVAL, put(cpath("uids"), buf));
	ASSERT_EQ(0, get(cpath("uids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);

	ASSERT_EQ(0, put(cpath("uids"), "4246,4247"));
	ASSERT_EQ(0, get(cpath("uids"), buf, sizeof(buf)));
	EXPECT_STREQ("4246\n4247\n", buf);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	/* Root's calls are not written; user 4246's are. */
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	pid = fork();
	if (!pid) {
		if (setgid(4246) || setuid(4246))
			_exit(1);
		/* Judged again at its next switch: sleep for one. */
		usleep(10000);
		for (int i = 0; i < 30; i++)
			syscall(SYS_getppid);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/* The child's 30, none of this task's 100. */
	EXPECT_EQ(30, getppid_records(-1));
	ASSERT_EQ(0, put(cpath("uids"), "\n"));
	ASSERT_EQ(0, get(cpath("uids"), buf, sizeof(buf)));
	EXPECT_STREQ("", buf);
}

/* Kernel stacks */

/* The kernel_stack record: its event's id, then @nr 64-bit addresses. */
struct stack_count {
	int id;			/* the event whose stacks are counted */
	int stack_id;		/* kernel_stack's */
	pid_t pid;
	int depth;		/* at most this many addresses */
	int records, stacks, bad;
	bool pending[64];	/* per CPU: a record whose stack is due */
	unsigned long long first;	/* the first address of one stack */
};

static void count_stack(const struct rec *r, void *arg)
{
	struct stack_count *c = arg;
	bool *pending = &c->pending[r->cpu & 63];
	uint32_t event_id, nr;

	if (r->id == (unsigned int)c->id) {
		/* The stack comes next, on the same CPU. */
		if (*pending)
			c->bad++;
		*pending = i32_at(r, COMMON_PID) == c->pid;
		c->records += *pending;
		return;
	}
	if (r->id != (unsigned int)c->stack_id)
		return;
	if (r->len < 8) {
		c->bad++;
		return;
	}
	memcpy(&event_id, r->p, 4);
	memcpy(&nr, r->p + 4, 4);
	if (event_id != (uint32_t)c->id || !*pending)
		return;
	*pending = false;
	if (!nr || nr > (uint32_t)c->depth || r->len != 8 + 8 * (size_t)nr) {
		c->bad++;
		return;
	}
	memcpy(&c->first, r->p + 8, 8);
	c->stacks++;
}

/* "stack SELECTOR DEPTH" to the events file; 0 or -errno. */
static int stack_cmd(const char *sel, const char *depth)
{
	char buf[256];

	snprintf(buf, sizeof(buf), "stack %s %s\n", sel, depth);
	return put(cpath("events"), buf);
}

/*
 * The text symbol of /proc/kallsyms that holds @ip, into @name; 0, or -1
 * if none does or the addresses are hidden.
 */
static int ksym_of(unsigned long long ip, char *name, size_t size)
{
	unsigned long long addr, best = 0;
	char line[600], sym[512], type;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %511s", &addr, &type, sym) == 3 &&
		    (type == 't' || type == 'T') && addr <= ip && addr > best) {
			best = addr;
			snprintf(name, size, "%s", sym);
		}
	fclose(f);
	return best ? 0 : -1;
}

TEST_F(chan, stack_bad_input)
{
	char *text;

	if (event_id("kernel_stack") < 0 ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no kernel stacks (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	ASSERT_EQ(0, stack_cmd("syscalls:sys_enter_getppid", "4"));
	/* No depth, a bad one, one out of range, a bad selector: EINVAL. */
	EXPECT_EQ(-EINVAL, put(cpath("events"), "stack\n"));
	EXPECT_EQ(-EINVAL, put(cpath("events"), "stack syscalls:sys_enter_getppid\n"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "x"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "-1"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "129"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "4 5"));
	/* The depth as lrb.rst spells it: no sign, zero, space or 0xa0. */
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "+4"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "04"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", " 4"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "\2404"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "4\xa0"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid", "4\n"));
	EXPECT_EQ(-EINVAL, stack_cmd("syscalls:sys_enter_getppid",
				     "99999999999999999999"));
	EXPECT_EQ(-EINVAL, stack_cmd("bad/char", "4"));
	EXPECT_EQ(-EINVAL, stack_cmd("sched:", "4"));
	/* An event the channel does not record: ENOENT. */
	EXPECT_EQ(-ENOENT, stack_cmd("sched:sched_wakeup", "4"));
	EXPECT_EQ(-ENOENT, stack_cmd("no_such_event", "4"));
	EXPECT_EQ(-ENOENT, stack_cmd("sched:sched_wakeup", "0"));
	/* One without stacks: EOPNOTSUPP. */
	if (event_id("lttng_statedump_start") >= 0) {
		ASSERT_EQ(0, events_cmd("enable", "lttng_statedump_start"));
		EXPECT_EQ(-EOPNOTSUPP, stack_cmd("lttng_statedump_start", "4"));
	}
	/* None of it changed the depths. */
	text = malloc(sizeof(big));
	ASSERT_NE(NULL, text);
	ASSERT_EQ(0, get(cpath("events"), text, sizeof(big)));
	EXPECT_NE(NULL, strstr(text, "\n# stack syscalls:sys_enter_getppid 4\n"));
	EXPECT_EQ(NULL, strstr(text, "# stack sched"));
	EXPECT_EQ(NULL, strstr(text, "# stack lttng"));
	/* 0 drops it. */
	EXPECT_EQ(0, stack_cmd("syscalls:sys_enter_getppid", "0"));
	ASSERT_EQ(0, get(cpath("events"), text, sizeof(big)));
	EXPECT_EQ(NULL, strstr(text, "# stack "));
	/* "stack sched 0" forgets "stack sched_switch 0" too (lrb.rst). */
	ASSERT_EQ(0, events_cmd("enable", "sched"));
	ASSERT_EQ(0, stack_cmd("sched", "8"));
	ASSERT_EQ(0, stack_cmd("sched_switch", "0"));
	ASSERT_EQ(0, get(cpath("events"), text, sizeof(big)));
	EXPECT_NE(NULL, strstr(text, "\n# stack sched_switch 0\n"));
	EXPECT_EQ(0, stack_cmd("sched", "0"));
	ASSERT_EQ(0, get(cpath("events"), text, sizeof(big)));
	EXPECT_EQ(NULL, strstr(text, "# stack "));
	free(text);
}

TEST_F(chan, stack_records)
{
	struct stack_count c = { .pid = getpid(), .depth = 4 };
	char sym[512];

	if (event_id("kernel_stack") < 0 ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no kernel stacks (CONFIG_LRB_TRACE_EVENTS=n)");
	/* The records name their process: common_pid. */
	ASSERT_EQ(0, common_fields("1"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	c.id = event_id("syscalls:sys_enter_getppid");
	ASSERT_EQ(0, stack_cmd("syscalls:sys_enter_getppid", "4"));
	/* The stacks' id is the channel's next once it asks for them. */
	c.stack_id = event_id("kernel_stack");
	EXPECT_EQ(c.id + 1, c.stack_id);
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	ASSERT_EQ(0, records_each(count_stack, &c));
	EXPECT_EQ(100, c.records);
	EXPECT_EQ(100, c.stacks);
	EXPECT_EQ(0, c.bad);
	/* A stack record is counted as any record is. */
	expect_accounts(_metadata);
	EXPECT_EQ(stat_total(WRITTEN), stat_total(DELIVERED));
	/* Its first address is the caller of the tracepoint, not the probe. */
	if (ksym_of(c.first, sym, sizeof(sym)))
		SKIP(return, "no addresses in /proc/kallsyms");
	TH_LOG("first frame: %s", sym);
	EXPECT_NE(0, strncmp(sym, "lrb_", 4));
	EXPECT_NE(0, strncmp(sym, "__traceiter_", 12));
}

TEST_F(chan, stack_filtered_and_off)
{
	struct stack_count c = { .pid = getpid(), .depth = 2 };
	char expr[64];

	if (event_id("kernel_stack") < 0 ||
	    event_id("syscalls:sys_enter_getppid") < 0)
		SKIP(return, "no kernel stacks (CONFIG_LRB_TRACE_EVENTS=n)");
	ASSERT_EQ(0, common_fields("1"));
	/* A glob before the event is selected: kept for it. */
	ASSERT_EQ(0, stack_cmd("syscalls:sys_enter_*", "2"));
	ASSERT_EQ(0, events_cmd("enable", "syscalls:sys_enter_getppid"));
	c.id = event_id("syscalls:sys_enter_getppid");
	c.stack_id = event_id("kernel_stack");
	/* A record the filter refuses gets no stack. */
	ASSERT_EQ(0, filter_cmd("syscalls:sys_enter_getppid", "common_pid < 0"));
	ASSERT_EQ(0, put(cpath("enable"), "1"));
	ASSERT_EQ(0, getppid_on(0, 50));
	snprintf(expr, sizeof(expr), "common_pid == %d", (int)getpid());
	ASSERT_EQ(0, filter_cmd("syscalls:sys_enter_getppid", expr));
	ASSERT_EQ(0, getppid_on(0, 50));
	/* Turned off while the channel runs, by a narrower selector. */
	ASSERT_EQ(0, stack_cmd("syscalls:sys_enter_getppid", "0"));
	ASSERT_EQ(0, get(cpath("events"), big2, sizeof(big2)));
	EXPECT_NE(NULL, strstr(big2, "\n# stack syscalls:sys_enter_* 2\n"
				     "# stack syscalls:sys_enter_getppid 0\n"));
	ASSERT_EQ(0, getppid_on(0, 50));
	ASSERT_EQ(0, records_each(count_stack, &c));
	EXPECT_EQ(100, c.records);
	EXPECT_EQ(50, c.stacks);
	/* Each record without a stack but the last is followed by another. */
	EXPECT_EQ(49, c.bad);
	EXPECT_LE(50, stat_total("filtered"));
	expect_accounts(_metadata);
	/* The wider selector forgets both. */
	ASSERT_EQ(0, stack_cmd("syscalls:sys_enter_*", "0"));
	ASSERT_EQ(0, get(cpath("events"), big2, sizeof(big2)));
	EXPECT_EQ(NULL, strstr(big2, "# stack "));
}

/* Shared between the tracing group's member and root, across fork(). */
struct group_loop {
	int stop;		/* __atomic: root tells the member to end */
	int ready;		/* __atomic: the member's pairs are timed */
	int toggles;
	double pair_ms[64];
	int pairs;
};

/* The median of @n values, sorted in place. */
static double median_ms(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? v[n / 2] : 0;
}

/* Time @n enable/disable pairs of the channel, each in pair_ms. */
static int toggle_pairs(struct group_loop *g, int n)
{
	for (g->pairs = 0; g->pairs < n; g->pairs++) {
		double t = now_ms();

		if (put(cpath("enable"), "1") || put(cpath("enable"), "0"))
			return 1;
		g->pair_ms[g->pairs] = now_ms() - t;
	}
	return 0;
}

static struct group_loop *group_loop;

/* As a member of the group: 8 timed pairs, then toggles until told. */
static int member_toggles(void)
{
	struct group_loop *g = group_loop;

	if (toggle_pairs(g, 8))
		return 1;
	__atomic_store_n(&g->ready, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&g->stop, __ATOMIC_RELAXED)) {
		if (put(cpath("enable"), "1") || put(cpath("enable"), "0"))
			return 2;
		g->toggles++;
	}
	return 0;
}

/* Root's operations: a kprobe made and removed, the sample module in and out. */
static double root_op(const char *what)
{
	double t = now_ms();
	int ret = -1;

	/* Without O_TRUNC, a write to dynamic_events adds to it. */
	if (!strcmp(what, "kprobe")) {
		ret = put(TRACEFS_DIR "/dynamic_events",
			  "p:kprobes/lrbt_group do_sys_openat2\n");
		if (!ret)
			ret = put(TRACEFS_DIR "/dynamic_events",
				  "-:kprobes/lrbt_group\n");
	} else {
		ret = system("insmod /lib/lrb_sample.ko && rmmod lrb_sample");
	}
	return ret ? -1 : now_ms() - t;
}

/*
 * What a member of the tracing group can make the rest of the system wait
 * for through enable, the one file it may write that starts work: each
 * toggle is paced from the end of its work, by at least as long as the
 * work took, so the member keeps the locks of that work at most half of
 * the time; and root's module loading and kprobe creation, which take
 * event_mutex, complete within a bound while the member toggles a
 * channel with the statedump (which holds no global lock) in a loop.
 */
TEST_F(chan, group_enable_bounded)
{
	const gid_t member[] = { TRACING_GID };
	const double bound_ms = 2000;
	double root_ms, member_ms, worst = 0, t;
	int ops = 0, status;
	struct group_loop *g;
	char opts[64];
	pid_t pid, done = 0;
	struct stat st;

	if (event_id("sched:sched_switch") < 0 ||
	    event_id("lttng_statedump_start") < 0 ||
	    access(TRACEFS_DIR "/dynamic_events", W_OK))
		SKIP(return, "no trace events, statedump or dynamic events");
	g = mmap(NULL, sizeof(*g), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, g);
	group_loop = g;
	ASSERT_EQ(0, events_cmd("enable", "sched"));
	ASSERT_EQ(0, events_cmd("enable", "lttng_statedump_*"));
	/* Root is not paced: the work of a pair, as it takes. */
	ASSERT_EQ(0, toggle_pairs(g, 8));
	root_ms = median_ms(g->pair_ms, g->pairs);

	ASSERT_EQ(0, stat(TRACEFS_DIR, &st));
	if (mount("nodev", TRACEFS_DIR, NULL, MS_REMOUNT, "gid=4242,mode=0750"))
		SKIP(return, "cannot remount tracefs: %s", strerror(errno));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (setgroups(1, member) || setgid(4243) || setuid(4244))
			_exit(9);
		_exit(member_toggles());
	}
	/* Root's operations while the member toggles (after its pairs). */
	while (!__atomic_load_n(&g->ready, __ATOMIC_ACQUIRE) &&
	       !(done = waitpid(pid, &status, WNOHANG)))
		usleep(10000);
	for (t = now_ms(); now_ms() - t < 4000 &&
	     __atomic_load_n(&g->ready, __ATOMIC_ACQUIRE); ops++) {
		double ms = root_op(ops % 4 == 3 &&
				    !access("/lib/lrb_sample.ko", R_OK) ?
				    "module" : "kprobe");

		EXPECT_LE(0, ms) TH_LOG("operation %d failed", ops);
		if (ms > worst)
			worst = ms;
	}
	__atomic_store_n(&g->stop, 1, __ATOMIC_RELAXED);
	if (!done)
		done = waitpid(pid, &status, 0);
	snprintf(opts, sizeof(opts), "gid=%u,mode=0%o", (unsigned int)st.st_gid,
		 (unsigned int)(st.st_mode & 07777));
	ASSERT_EQ(0, mount("nodev", TRACEFS_DIR, NULL, MS_REMOUNT, opts));
	ASSERT_EQ(pid, done);
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	member_ms = median_ms(g->pair_ms, g->pairs);
	TH_LOG("pair: root %.1f ms, member %.1f ms; %d toggles; "
	       "%d root operations, the longest %.1f ms",
	       root_ms, member_ms, g->toggles, ops, worst);
	/* Each toggle waits as long as the one before took, 10 ms at least. */
	EXPECT_LE(20, member_ms);
	if (root_ms >= 20)
		EXPECT_LE(1.5 * root_ms, member_ms);
	EXPECT_LE(4, ops);
	EXPECT_LT(0, g->toggles);
	EXPECT_GT(bound_ms, worst);
	munmap(g, sizeof(*g));
}

TEST_HARNESS_MAIN
