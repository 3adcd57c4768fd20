// SPDX-License-Identifier: GPL-2.0
/*
 * LRB tracefs interface, in /sys/kernel/tracing/lrb/:
 *
 *   control              "create NAME" / "remove NAME"; reads the names
 *   NAME/subbuf_size     settings, writable while the channel is disabled
 *   NAME/num_subbufs       (-EBUSY otherwise); a write reallocates the
 *   NAME/mode              buffers, so what they held is dropped
 *   NAME/clock
 *   NAME/layout            how the metadata names the events and their
 *                            fields: "ftrace", or "lttng" as lttng-modules
 *                            does, for the tools that read LTTng traces
 *   NAME/common_fields     1: records of trace events begin with ftrace's
 *                            common fields (type, flags, preempt count,
 *                            pid); 0, the default: they do not
 *   NAME/enable          0 or 1; disabling flushes every CPU
 *   NAME/statedump       a write of 1 records the statedump again into the
 *                        enabled channel
 *   NAME/switch_timer    microseconds after which an open sub-buffer is
 *                        closed, 0 for never; writable at any time
 *   NAME/dump_on_oops    1: print the channel's last records on an oops or
 *                        a panic; writable at any time
 *   NAME/stats           per-CPU counters
 *   NAME/metadata        the CTF 1.8 description of the trace (TSDL)
 *   NAME/annotate        a write() is one "annotation" event on this CPU
 *   NAME/events          "enable SELECTOR" / "disable SELECTOR": markers and
 *                        trace events
 *                        "stack SELECTOR DEPTH": kernel stacks after the
 *                          records of trace events (lrb_stack.c)
 *   NAME/filter          "SELECTOR EXPR": an ftrace filter on the records of
 *                          the selected trace events; "SELECTOR 0" drops it
 *   NAME/pids            the tasks whose events it records, as ftrace's
 *                          set_event_pid (">>" adds); empty: every task
 *   NAME/pid_follow      1: a listed task's children are added at fork
 *   NAME/uids            the users whose tasks it records; empty: all
 *   NAME/cpus            the CPUs it records on, a CPU list; empty: all
 *   NAME/set_ftrace_filter  the functions its function tracer events
 *   NAME/set_ftrace_notrace   trace and do not trace: ftrace's files, on
 *                          the channel's own ftrace_ops (lrb_function.c)
 *   NAME/streams/cpuN    the CTF packets of CPU N: ioctl, mmap, read, poll;
 *                          the settings are -EBUSY while one is open
 *
 * A control file rather than mkdir/rmdir: tracefs offers directory
 * callbacks only to the ftrace instances directory.
 *
 * Lifetime. Every open file of a channel holds a reference (users) taken
 * under lrb_fs_mutex after checking the channel is still listed, as ftrace
 * does for its instances; "remove" fails with -EBUSY while any is open.
 * Writers into a channel run with preemption disabled and check enabled
 * with an acquire before they write; the disable path waits for them with
 * synchronize_rcu() before flushing, and the buffers are only reallocated
 * while disabled.
 */

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/kdebug.h>
#include <linux/kernel.h>
#include <linux/lrb.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/nmi.h>
#include <linux/panic_notifier.h>
#include <linux/poll.h>
#include <linux/security.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/splice.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/trace_clock.h>
#include <linux/tracefs.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/uuid.h>
#include <linux/utsname.h>
#include <linux/sched/clock.h>
#include <linux/sched/signal.h>

#include "trace.h"
#include "lrb_events.h"

#define LRB_FS_NAME_MAX		32
#define LRB_FS_ANNOTATION_MAX	4096
#define LRB_FS_SETTING_MAX	32
#define LRB_FS_DUMP_RECORDS	64	/* per CPU, on an oops */
#define LRB_FS_DUMP_MAX		1024	/* in all, fewer per CPU if need be */
#define LRB_FS_DUMP_LINE	256
#define LRB_FS_CHANS_MAX	64
#define LRB_FS_PACE_MS		10
/* The longest wait for a turn, in jiffies: what a work beyond it took. */
#define LRB_FS_PACE_MAX		(10 * HZ)

/*
 * File modes: who may do what (lrb.rst has the table). Root decides what
 * is recorded, as with ftrace's 0640 files: the control and setting
 * files are root's to write, and lrb_fs_may_open() also asks their
 * writer for CAP_PERFMON, as perf does for tracepoints. The group
 * tracefs is mounted with (gid=) reads them, and may start and stop a
 * channel (enable); nobody else gets in, as tracefs's root is 0700
 * unless mounted with another mode=.
 */
#define LRB_FS_MODE_WRITE	0640
#define LRB_FS_MODE_GROUP	0660
#define LRB_FS_MODE_READ	0440
#define LRB_FS_MODE_WRITE_ONLY	0220
#define LRB_FS_MODE_ROOT_ONLY	0200

/* The user-space ABI: the same layout on every architecture. */
static_assert(sizeof(struct lrb_stream_info) == 32);
static_assert(sizeof(struct lrb_snapshot) == 16);

/* Event ids of the events this interface writes itself. */
#define LRB_FS_EVENT_ANNOTATION	0

enum lrb_fs_clock {
	LRB_FS_CLOCK_LOCAL,
	LRB_FS_CLOCK_GLOBAL,
};

static const char * const lrb_fs_clock_names[] = { "local", "global" };
static const char * const lrb_fs_mode_names[] = { "discard", "overwrite" };
static const char * const lrb_fs_layout_names[] = {
	[LRB_LAYOUT_FTRACE] = "ftrace",
	[LRB_LAYOUT_LTTNG] = "lttng",
};

struct lrb_fs_chan;

/**
 * struct lrb_fs_dump - where the dump of one CPU buffer is
 * @d: the cursor.
 * @rec: the record to print next, if @has.
 * @has: @rec is valid.
 * @left: records still to print.
 */
struct lrb_fs_dump {
	struct lrb_dump d;
	struct lrb_record rec;
	bool has;
	unsigned int left;
};

/**
 * struct lrb_fs_stream - the stream file of one CPU
 * @fc: the channel.
 * @cpu: the CPU.
 * @paced: lrb_fs_pace() of the flush.
 * @lock: serializes the operations on the open file.
 * @open: the file is open (one reader at a time); under lrb_fs_mutex.
 * @held: @sb is held, taken by LRB_IOC_GET_SUBBUF or by a read().
 * @held_by_read: a read() took it and could not copy it out yet.
 * @sb: the held sub-buffer.
 * @part: a copy of the packet that read()s smaller than a sub-buffer
 *	return in pieces; allocated on the first such read.
 * @part_off: bytes of @part already returned.
 * @part_len: bytes in @part, 0 when none are left to return.
 * @held_snapshot: @sb is a sub-buffer of the snapshot, not consumed.
 * @snapshot: the window of the last LRB_IOC_SNAPSHOT, if @snapshot_taken.
 * @snapshot_taken: LRB_IOC_SNAPSHOT succeeded on this open file.
 * @wait: readers and pollers waiting for a delivery.
 * @wakeups: deliveries seen by the wakeup callback.
 */
struct lrb_fs_stream {
	struct lrb_fs_chan *fc;
	int cpu;
	unsigned long paced;
	struct mutex lock;	/* serializes the file operations */
	bool open;
	bool held;
	bool held_by_read;
	struct lrb_subbuf sb;
	void *part;
	size_t part_off;
	size_t part_len;
	bool held_snapshot;
	struct lrb_snapshot snapshot;
	bool snapshot_taken;
	wait_queue_head_t wait;
	unsigned long wakeups;
};

/**
 * struct lrb_fs_chan - a channel of the tracefs interface
 * @list: in lrb_fs_chans.
 * @name: the directory name.
 * @dir: the directory.
 * @paced: lrb_fs_pace() of enable.
 * @config: the settings the buffers were allocated with.
 * @clock: &enum lrb_fs_clock.
 * @chan: the buffers.
 * @enabled: writers may write.
 * @switch_timer_us: the switch timer period, 0 for none.
 * @dump_on_oops: print the last records on an oops or a panic.
 * @dumps: per possible CPU, the cursors of that dump (allocated when
 *	@dump_on_oops is first set: nothing is allocated on an oops).
 * @flushed: disabled and flushed: a reader that finds nothing is at EOF.
 * @users: open files of the channel; under lrb_fs_mutex.
 * @readers: open stream files; under lrb_fs_mutex.
 * @streams: per possible CPU.
 * @events: the events the channel records (lrb_events.c).
 */
struct lrb_fs_chan {
	struct list_head list;
	char name[LRB_FS_NAME_MAX + 1];
	struct dentry *dir;
	unsigned long paced;
	struct lrb_config config;
	enum lrb_fs_clock clock;
	struct lrb_channel *chan;
	bool enabled;
	unsigned int switch_timer_us;
	bool dump_on_oops;
	struct lrb_fs_dump *dumps;
	bool flushed;
	int users;
	int readers;
	struct lrb_fs_stream *streams;
	struct lrb_events_owner events;
};

static DEFINE_MUTEX(lrb_fs_mutex);
/* Changed under lrb_fs_mutex, with the _rcu calls: readable without it. */
static LIST_HEAD(lrb_fs_chans);
static unsigned int lrb_fs_nr_chans;	/* under lrb_fs_mutex */
static struct dentry *lrb_fs_root;

/*
 * The UUID of this boot's clocks, in every trace's metadata: traces of one
 * boot have it in common. Made when the first channel is created, when the
 * random pool is ready; under lrb_fs_mutex.
 */
static uuid_t lrb_fs_clock_uuid;

static u64 lrb_fs_clock_global(void)
{
	return trace_clock_global();
}

static u64 (*const lrb_fs_clocks[])(void) = {
	[LRB_FS_CLOCK_LOCAL] = local_clock,
	[LRB_FS_CLOCK_GLOBAL] = lrb_fs_clock_global,
};

/*
 * Find the channel of an open file and count a user, or -ENODEV. A file
 * of a removed channel is unhashed (tracefs_remove() ran under
 * lrb_fs_mutex): its i_private may point to freed memory, and is not
 * even compared.
 * A stream file's i_private is a &struct lrb_fs_stream, any other file's
 * the channel.
 */
static struct lrb_fs_chan *lrb_fs_get(struct file *file, bool stream)
{
	struct dentry *dentry = file_dentry(file);
	void *priv = d_inode(dentry)->i_private;
	struct lrb_fs_chan *fc;
	unsigned long off;

	lockdep_assert_held(&lrb_fs_mutex);
	if (d_unhashed(dentry))
		return ERR_PTR(-ENODEV);
	list_for_each_entry(fc, &lrb_fs_chans, list) {
		off = (unsigned long)priv - (unsigned long)fc->streams;
		if (stream && (off >= nr_cpu_ids * sizeof(*fc->streams) ||
			       off % sizeof(*fc->streams)))
			continue;
		if (!stream && priv != fc)
			continue;
		fc->users++;
		return fc;
	}
	return ERR_PTR(-ENODEV);
}

/*
 * Every right is decided at open, as ftrace decides them: a kernel locked
 * down for confidentiality opens no LRB file (ftrace's
 * tracing_check_open_get_tr() refuses its own files the same way; tracefs
 * only stops creating files). A file the group may write (its mode has
 * 0020) needs no more. Any other file opened for writing decides what is
 * recorded or how: its writer must be able to use perf's tracepoints too,
 * even if the file mode lets it in (uid 0 without CAP_PERFMON or
 * CAP_SYS_ADMIN, or a mode root changed).
 */
static int lrb_fs_may_open(struct inode *inode, struct file *file)
{
	int ret = security_locked_down(LOCKDOWN_TRACEFS);

	if (ret)
		return ret;
	if (!(file->f_mode & FMODE_WRITE) || (inode->i_mode & 0020))
		return 0;
	return perfmon_capable() ? 0 : -EPERM;
}

/* perfmon_capable() of the opener of @file: rights go with the file. */
static bool lrb_fs_opener_capable(const struct file *file)
{
	return file_ns_capable(file, &init_user_ns, CAP_PERFMON) ||
	       file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN);
}

/*
 * Pace what an opener without CAP_PERFMON makes every CPU do (the IPIs of
 * a flush or a snapshot, the text patching of an enable): one at a time
 * for each @next, the earliest jiffies of the next one. A caller whose
 * turn has not come sleeps until it has; -EINTR if a signal ends the
 * sleep. A @next further ahead than the longest wait is stale (jiffies
 * wrapped around it): the turn has come. The turn is taken for one
 * LRB_FS_PACE_MS period; lrb_fs_paced() moves the next one past the end
 * of the work.
 */
static int lrb_fs_pace(const struct file *file, unsigned long *next)
{
	unsigned long period = msecs_to_jiffies(LRB_FS_PACE_MS);
	unsigned long now, old, wait;

	if (lrb_fs_opener_capable(file))
		return 0;
	for (;;) {
		now = jiffies;
		old = READ_ONCE(*next);
		wait = old - now;
		if (wait && wait <= LRB_FS_PACE_MAX) {
			if (msleep_interruptible(jiffies_to_msecs(wait)))
				return -EINTR;
			continue;
		}
		if (try_cmpxchg(next, &old, now + period))
			return 0;
	}
}

/*
 * The paced work of lrb_fs_pace() is done: the next turn comes one
 * period after its end, or as long after as the work took (at most
 * LRB_FS_PACE_MAX), so that an opener without CAP_PERFMON keeps what the
 * work holds at most half of the time, however long it takes.
 */
static void lrb_fs_paced(const struct file *file, unsigned long *next)
{
	unsigned long period = msecs_to_jiffies(LRB_FS_PACE_MS);
	unsigned long now = jiffies, took;

	if (lrb_fs_opener_capable(file))
		return;
	took = now - (READ_ONCE(*next) - period);
	WRITE_ONCE(*next, now + clamp(took, period, LRB_FS_PACE_MAX));
}

static int lrb_fs_open(struct inode *inode, struct file *file)
{
	struct lrb_fs_chan *fc;
	int ret;

	ret = lrb_fs_may_open(inode, file);
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	fc = lrb_fs_get(file, false);
	mutex_unlock(&lrb_fs_mutex);
	if (IS_ERR(fc))
		return PTR_ERR(fc);
	file->private_data = fc;
	return 0;
}

static void lrb_fs_put(struct lrb_fs_chan *fc)
{
	mutex_lock(&lrb_fs_mutex);
	fc->users--;
	mutex_unlock(&lrb_fs_mutex);
}

static int lrb_fs_release(struct inode *inode, struct file *file)
{
	lrb_fs_put(file->private_data);
	return 0;
}

/*
 * Copy a short setting written by the user, without its trailing newline.
 * The text is exact: one newline may end it, no other space may start or
 * end it ("1\n\n", " 1" and "1 " are not "1"). isspace() also takes the
 * byte 0xa0 (Latin-1's no-break space) for one, so it is refused too.
 */
static int lrb_fs_get_text(const char __user *ubuf, size_t count,
			   char *buf, size_t size)
{
	if (!count || count >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	/* A NUL would cut the text short: "1\0junk" is not "1". */
	if (memchr(buf, '\0', count))
		return -EINVAL;
	if (buf[count - 1] == '\n')
		count--;
	buf[count] = '\0';
	if (count && (isspace(buf[0]) || isspace(buf[count - 1])))
		return -EINVAL;
	return 0;
}

/*
 * A number as the settings spell it: decimal digits, without a sign or a
 * leading zero, which kstrtouint() would take ("+1", "01").
 */
static int lrb_fs_decimal(const char *text, unsigned int *v)
{
	const char *p;

	if (!*text || (text[0] == '0' && text[1]))
		return -EINVAL;
	for (p = text; *p; p++)
		if (!isdigit(*p))
			return -EINVAL;
	return kstrtouint(text, 10, v) ? -EINVAL : 0;
}

static void lrb_fs_wakeup(struct lrb_channel *chan, int cpu, void *priv)
{
	struct lrb_fs_chan *fc = priv;
	struct lrb_fs_stream *st = &fc->streams[cpu];

	WRITE_ONCE(st->wakeups, st->wakeups + 1);
	wake_up_interruptible(&st->wait);
}

/* Allocate buffers of shape @config for @fc, replacing the old ones. */
static int lrb_fs_realloc(struct lrb_fs_chan *fc,
			  const struct lrb_config *config,
			  enum lrb_fs_clock clock)
{
	struct lrb_config c = *config;
	struct lrb_channel *chan, *old;

	lockdep_assert_held(&lrb_fs_mutex);
	/* NULL: the ring buffer calls local_clock() directly, no indirect call. */
	c.clock = clock == LRB_FS_CLOCK_LOCAL ? NULL : lrb_fs_clocks[clock];
	c.wakeup = lrb_fs_wakeup;
	c.priv = fc;
	chan = lrb_channel_create(&c);
	if (IS_ERR(chan))
		return PTR_ERR(chan);
	old = fc->chan;
	WRITE_ONCE(fc->chan, chan);
	/* An oops dump (lrb_fs_dump_all()) may be reading the old one. */
	if (old)
		synchronize_rcu();
	lrb_channel_destroy(old);
	fc->config = c;
	fc->clock = clock;
	return 0;
}

/*
 * Reallocate @fc's buffers as they are, before a setting of its records
 * changes: only while it is disabled and no stream file is open, so that
 * no record is read in a form other than the one it was written in.
 */
static int lrb_fs_realloc_idle(struct lrb_fs_chan *fc)
{
	lockdep_assert_held(&lrb_fs_mutex);
	if (fc->enabled || fc->readers)
		return -EBUSY;
	return lrb_fs_realloc(fc, &fc->config, fc->clock);
}

/*
 * Settings: files that reshape a disabled channel's buffers. Each shows
 * and parses one value; lrb_channel_create() judges the result (powers
 * of two, bounds), so the rules live in one place.
 */

struct lrb_fs_setting {
	const char *name;
	int (*show)(const struct lrb_fs_chan *fc, char *buf, size_t size);
	int (*parse)(const char *text, struct lrb_config *c,
		     enum lrb_fs_clock *clock);
};

static int lrb_fs_subbuf_size_show(const struct lrb_fs_chan *fc, char *buf,
				   size_t size)
{
	return scnprintf(buf, size, "%zu\n", fc->config.subbuf_size);
}

static int lrb_fs_subbuf_size_parse(const char *text, struct lrb_config *c,
				    enum lrb_fs_clock *clock)
{
	unsigned int v;

	if (lrb_fs_decimal(text, &v))
		return -EINVAL;
	c->subbuf_size = v;
	return 0;
}

static int lrb_fs_num_subbufs_show(const struct lrb_fs_chan *fc, char *buf,
				   size_t size)
{
	return scnprintf(buf, size, "%u\n", fc->config.num_subbufs);
}

static int lrb_fs_num_subbufs_parse(const char *text, struct lrb_config *c,
				    enum lrb_fs_clock *clock)
{
	return lrb_fs_decimal(text, &c->num_subbufs);
}

static int lrb_fs_mode_show(const struct lrb_fs_chan *fc, char *buf,
			    size_t size)
{
	return scnprintf(buf, size, "%s\n", lrb_fs_mode_names[fc->config.mode]);
}

static int lrb_fs_mode_parse(const char *text, struct lrb_config *c,
			     enum lrb_fs_clock *clock)
{
	int i = match_string(lrb_fs_mode_names, ARRAY_SIZE(lrb_fs_mode_names),
			     text);

	if (i < 0)
		return -EINVAL;
	c->mode = i;
	return 0;
}

static int lrb_fs_clock_show(const struct lrb_fs_chan *fc, char *buf,
			     size_t size)
{
	return scnprintf(buf, size, "%s\n", lrb_fs_clock_names[fc->clock]);
}

static int lrb_fs_clock_parse(const char *text, struct lrb_config *c,
			      enum lrb_fs_clock *clock)
{
	int i = match_string(lrb_fs_clock_names,
			     ARRAY_SIZE(lrb_fs_clock_names), text);

	if (i < 0)
		return -EINVAL;
	*clock = i;
	return 0;
}

static const struct lrb_fs_setting lrb_fs_settings[] = {
	{ "subbuf_size", lrb_fs_subbuf_size_show, lrb_fs_subbuf_size_parse },
	{ "num_subbufs", lrb_fs_num_subbufs_show, lrb_fs_num_subbufs_parse },
	{ "mode", lrb_fs_mode_show, lrb_fs_mode_parse },
	{ "clock", lrb_fs_clock_show, lrb_fs_clock_parse },
};

/* The setting of a file: the entry of lrb_fs_settings[] it was made from. */
static const struct lrb_fs_setting *lrb_fs_setting_of(struct file *file)
{
	const char *name = file_dentry(file)->d_name.name;
	int i;

	for (i = 0; i < ARRAY_SIZE(lrb_fs_settings); i++)
		if (!strcmp(name, lrb_fs_settings[i].name))
			return &lrb_fs_settings[i];
	/* Setting files are made from the table's names only. */
	WARN_ON_ONCE(1);
	return &lrb_fs_settings[0];
}

static ssize_t lrb_fs_setting_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	const struct lrb_fs_setting *set = lrb_fs_setting_of(file);
	struct lrb_fs_chan *fc = file->private_data;
	char buf[64];
	int len;

	mutex_lock(&lrb_fs_mutex);
	len = set->show(fc, buf, sizeof(buf));
	mutex_unlock(&lrb_fs_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t lrb_fs_setting_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	const struct lrb_fs_setting *set = lrb_fs_setting_of(file);
	struct lrb_fs_chan *fc = file->private_data;
	char text[LRB_FS_SETTING_MAX];
	enum lrb_fs_clock clock;
	struct lrb_config c;
	int ret;

	ret = lrb_fs_get_text(ubuf, count, text, sizeof(text));
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	ret = -EBUSY;
	if (fc->enabled || fc->readers)
		goto out;
	c = fc->config;
	clock = fc->clock;
	ret = set->parse(text, &c, &clock);
	if (!ret)
		ret = lrb_fs_realloc(fc, &c, clock);
out:
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

/*
 * layout: a setting of the metadata, not of the buffers; a write
 * reallocates them all the same, as the other settings do, so that no
 * record is described in a layout other than the one it was written in.
 */
static ssize_t lrb_fs_layout_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	char buf[16];
	int len;

	mutex_lock(&lrb_fs_mutex);
	len = scnprintf(buf, sizeof(buf), "%s\n",
			lrb_fs_layout_names[fc->events.layout]);
	mutex_unlock(&lrb_fs_mutex);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t lrb_fs_layout_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	char text[LRB_FS_SETTING_MAX];
	int layout, ret;

	ret = lrb_fs_get_text(ubuf, count, text, sizeof(text));
	if (ret)
		return ret;
	layout = match_string(lrb_fs_layout_names,
			      ARRAY_SIZE(lrb_fs_layout_names), text);
	if (layout < 0)
		return -EINVAL;
	mutex_lock(&lrb_fs_mutex);
	ret = lrb_fs_realloc_idle(fc);
	if (!ret)
		fc->events.layout = layout;
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_layout_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_layout_read,
	.write = lrb_fs_layout_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

static const struct file_operations lrb_fs_setting_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_setting_read,
	.write = lrb_fs_setting_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/* enable */

static void lrb_fs_wake_all(struct lrb_fs_chan *fc)
{
	int cpu;

	for_each_possible_cpu(cpu)
		wake_up_interruptible(&fc->streams[cpu].wait);
}

static int lrb_fs_set_enabled(struct lrb_fs_chan *fc, bool on)
{
	int cpu;
	int ret;

	lockdep_assert_held(&lrb_fs_mutex);
	if (on == fc->enabled)
		return 0;
	if (on) {
		/* The channel's events, or none if one cannot start. */
		ret = lrb_events_start(&fc->events, fc->chan);
		if (ret)
			return ret;
		WRITE_ONCE(fc->flushed, false);
		/*
		 * Publishes fc->chan to the channel's writers; pairs with the
		 * acquire with which each checks enabled before it writes.
		 */
		smp_store_release(&fc->enabled, true);
		/* Checked when it was written. */
		lrb_switch_timer_set(fc->chan, fc->switch_timer_us);
		return 0;
	}
	lrb_switch_timer_set(fc->chan, 0);
	/* Waits for markers and trace events in flight. */
	lrb_events_stop(&fc->events);
	WRITE_ONCE(fc->enabled, false);
	/* Writers run with preemption disabled: wait until they are done. */
	synchronize_rcu();
	for_each_possible_cpu(cpu)
		lrb_flush(fc->chan, cpu);
	/* After the flushes: pairs with the readers' smp_rmb(). */
	smp_store_release(&fc->flushed, true);
	lrb_fs_wake_all(fc);
	return 0;
}

/* A boolean setting as "0\n" or "1\n". */
static ssize_t lrb_fs_bool_read(char __user *ubuf, size_t count, loff_t *ppos,
				bool v)
{
	char buf[2] = { v ? '1' : '0', '\n' };

	return simple_read_from_buffer(ubuf, count, ppos, buf, sizeof(buf));
}

/* A decimal setting written by the user, as an unsigned int. */
static int lrb_fs_get_uint(const char __user *ubuf, size_t count,
			   unsigned int *v)
{
	char text[LRB_FS_SETTING_MAX];
	int ret;

	ret = lrb_fs_get_text(ubuf, count, text, sizeof(text));
	if (ret)
		return ret;
	return lrb_fs_decimal(text, v);
}

/* A boolean setting written by the user: "0" or "1", nothing else. */
static int lrb_fs_get_bool(const char __user *ubuf, size_t count, bool *on)
{
	unsigned int v;
	int ret;

	ret = lrb_fs_get_uint(ubuf, count, &v);
	if (ret)
		return ret;
	if (v > 1)
		return -EINVAL;
	*on = v;
	return 0;
}

static ssize_t lrb_fs_enable_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;

	return lrb_fs_bool_read(ubuf, count, ppos, READ_ONCE(fc->enabled));
}

static ssize_t lrb_fs_enable_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	bool on;
	int ret;

	ret = lrb_fs_get_bool(ubuf, count, &on);
	if (!ret)
		ret = lrb_fs_pace(file, &fc->paced);
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	ret = lrb_fs_set_enabled(fc, on);
	mutex_unlock(&lrb_fs_mutex);
	lrb_fs_paced(file, &fc->paced);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_enable_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_enable_read,
	.write = lrb_fs_enable_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/* common_fields: a setting of the records (lrb_fs_realloc_idle()). */
static ssize_t lrb_fs_common_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;

	return lrb_fs_bool_read(ubuf, count, ppos, READ_ONCE(fc->events.common));
}

static ssize_t lrb_fs_common_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	bool on;
	int ret;

	ret = lrb_fs_get_bool(ubuf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	ret = lrb_fs_realloc_idle(fc);
	if (!ret)
		WRITE_ONCE(fc->events.common, on);
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_common_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_common_read,
	.write = lrb_fs_common_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/*
 * statedump: lrb_fs_mutex orders it with enable and disable, and with the
 * channel's events commands, which keeps the statedump's links.
 */
static ssize_t lrb_fs_statedump_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	bool on;
	int ret;

	ret = lrb_fs_get_bool(ubuf, count, &on);
	if (ret)
		return ret;
	if (!on)
		return -EINVAL;
	mutex_lock(&lrb_fs_mutex);
	ret = lrb_events_statedump(&fc->events);
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_statedump_fops = {
	.open = lrb_fs_open,
	.write = lrb_fs_statedump_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/* switch_timer */

static ssize_t lrb_fs_switch_timer_read(struct file *file, char __user *ubuf,
					size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	char buf[16];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u\n", READ_ONCE(fc->switch_timer_us));
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t lrb_fs_switch_timer_write(struct file *file,
					 const char __user *ubuf,
					 size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	unsigned int us;
	int ret;

	ret = lrb_fs_get_uint(ubuf, count, &us);
	if (ret)
		return ret;
	if (us && (us < LRB_SWITCH_TIMER_MIN_US || us > LRB_SWITCH_TIMER_MAX_US))
		return -EINVAL;
	mutex_lock(&lrb_fs_mutex);
	if (fc->enabled)
		ret = lrb_switch_timer_set(fc->chan, us);
	if (!ret)
		WRITE_ONCE(fc->switch_timer_us, us);
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_switch_timer_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_switch_timer_read,
	.write = lrb_fs_switch_timer_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/* dump_on_oops */

static ssize_t lrb_fs_dump_read(struct file *file, char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;

	return lrb_fs_bool_read(ubuf, count, ppos, READ_ONCE(fc->dump_on_oops));
}

static ssize_t lrb_fs_dump_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	bool on;
	int ret;

	ret = lrb_fs_get_bool(ubuf, count, &on);
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	if (on && !fc->dumps)
		fc->dumps = kcalloc(nr_cpu_ids, sizeof(*fc->dumps), GFP_KERNEL);
	if (on && !fc->dumps)
		ret = -ENOMEM;
	else
		WRITE_ONCE(fc->dump_on_oops, on);
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_dump_fops = {
	.open = lrb_fs_open,
	.read = lrb_fs_dump_read,
	.write = lrb_fs_dump_write,
	.release = lrb_fs_release,
	.llseek = default_llseek,
};

/*
 * @line with every byte but printable ASCII written as \xNN (and '\' as
 * \x5c), into @out: a file name, a comm or an annotation is the user's,
 * and a newline or an escape sequence of its own would forge lines of
 * the crash log.
 */
static const char *lrb_fs_dump_escape(const char *line, char *out,
				      size_t size)
{
	size_t o = 0;

	for (; *line && o + 5 <= size; line++) {
		unsigned char c = *line;

		if (c >= ' ' && c <= '~' && c != '\\')
			out[o++] = c;
		else
			o += snprintf(out + o, size - o, "\\x%02x", c);
	}
	out[o] = '\0';
	return out;
}

/* Print one record of a dump: time, CPU, event and fields. */
static void lrb_fs_dump_record(struct lrb_fs_chan *fc, int cpu,
			       const struct lrb_record *rec)
{
	static char line[LRB_FS_DUMP_LINE], esc[LRB_FS_DUMP_LINE];
	struct seq_buf s;
	u64 sec = rec->ts;
	u32 ns = do_div(sec, NSEC_PER_SEC);

	seq_buf_init(&s, line, sizeof(line));
	if (rec->id == LRB_FS_EVENT_ANNOTATION)
		seq_buf_printf(&s, "annotation: text=\"%.*s\"",
			       (int)strnlen(rec->data, rec->len),
			       (const char *)rec->data);
	else
		lrb_events_print(&s, &fc->events, rec->id, rec->data,
				 rec->len);
	/* Truncated if too long. */
	pr_emerg("lrb %s: [%5llu.%06u] cpu%d %s\n", fc->name, sec,
		 (unsigned int)(ns / NSEC_PER_USEC), cpu,
		 lrb_fs_dump_escape(seq_buf_str(&s), esc, sizeof(esc)));
}

/*
 * Print the last records of every CPU buffer of @fc, merged in time
 * order. Runs on an oops or a panic: no lock, no allocation.
 */
static void lrb_fs_dump(struct lrb_fs_chan *fc, struct lrb_channel *chan)
{
	unsigned int per = clamp_t(unsigned int,
				   LRB_FS_DUMP_MAX / num_possible_cpus(), 1,
				   LRB_FS_DUMP_RECORDS);
	struct lrb_fs_dump *x;
	int cpu, best;

	pr_emerg("lrb %s: the last %u records of each CPU, oldest first\n",
		 fc->name, per);
	for_each_possible_cpu(cpu) {
		x = &fc->dumps[cpu];
		x->left = per;
		x->has = !lrb_dump_begin(chan, cpu, per, &x->d) &&
			 lrb_dump_next(&x->d, &x->rec);
	}
	for (;;) {
		best = -1;
		for_each_possible_cpu(cpu) {
			x = &fc->dumps[cpu];
			if (x->has && (best < 0 ||
				       x->rec.ts < fc->dumps[best].rec.ts))
				best = cpu;
		}
		if (best < 0)
			break;
		x = &fc->dumps[best];
		lrb_fs_dump_record(fc, best, &x->rec);
		touch_nmi_watchdog();
		x->has = --x->left && lrb_dump_next(&x->d, &x->rec);
	}
	pr_emerg("lrb %s: end of the dump\n", fc->name);
}

static atomic_t lrb_fs_dumping = ATOMIC_INIT(0);

/*
 * Dump the channels that asked for it, one oops at a time (an oops on
 * another CPU meanwhile prints none). A dump disarms its channel, so a
 * panic after an oops does not print it twice, and a non-fatal oops does
 * not use the dump up for the boot: writing 1 arms it again. The
 * crashing context may hold lrb_fs_mutex: walk the list under RCU instead
 * (channels are removed, and buffers replaced, after a grace period).
 */
static void lrb_fs_dump_all(void)
{
	struct lrb_fs_chan *fc;

	if (atomic_xchg(&lrb_fs_dumping, 1))
		return;
	rcu_read_lock();
	list_for_each_entry_rcu(fc, &lrb_fs_chans, list) {
		if (!READ_ONCE(fc->dump_on_oops) || !READ_ONCE(fc->dumps))
			continue;
		WRITE_ONCE(fc->dump_on_oops, false);
		lrb_fs_dump(fc, READ_ONCE(fc->chan));
	}
	rcu_read_unlock();
	atomic_set_release(&lrb_fs_dumping, 0);
}

static int lrb_fs_die(struct notifier_block *nb, unsigned long val,
		      void *data)
{
	if (val == DIE_OOPS)
		lrb_fs_dump_all();
	return NOTIFY_DONE;
}

static int lrb_fs_panic(struct notifier_block *nb, unsigned long val,
			void *data)
{
	lrb_fs_dump_all();
	return NOTIFY_DONE;
}

static struct notifier_block lrb_fs_die_nb = {
	.notifier_call = lrb_fs_die,
};

static struct notifier_block lrb_fs_panic_nb = {
	.notifier_call = lrb_fs_panic,
};

/* stats */

static const char * const lrb_fs_lost_names[LRB_LOST_NR] = {
	[LRB_LOST_FULL] = "lost_full",
	[LRB_LOST_OVERWRITTEN] = "lost_overwritten",
	[LRB_LOST_TOO_BIG] = "lost_too_big",
	[LRB_LOST_NESTED] = "lost_nested",
	[LRB_LOST_NMI] = "lost_nmi",
};

/* One block of "key: value" lines, as ftrace's per_cpu/cpuN/stats. */
static void lrb_fs_stats_block(struct seq_file *m, const char *what,
			       const struct lrb_stats *st)
{
	int i;

	seq_printf(m, "cpu: %s\nwritten: %llu\ndelivered: %llu\n", what,
		   st->written, st->delivered);
	for (i = 0; i < LRB_LOST_NR; i++)
		seq_printf(m, "%s: %llu\n", lrb_fs_lost_names[i], st->lost[i]);
	seq_printf(m, "filtered: %llu\n", st->filtered);
	seq_printf(m, "subbufs: %llu\ncorrupt: %llu\n\n",
		   st->subbufs_delivered, st->subbufs_corrupt);
}

static int lrb_fs_stats_show(struct seq_file *m, void *v)
{
	struct lrb_fs_chan *fc = m->private;
	struct lrb_stats st, sum = {};
	char what[16];
	int cpu, i;

	mutex_lock(&lrb_fs_mutex);
	for_each_possible_cpu(cpu) {
		lrb_stats_read(fc->chan, cpu, &st);
		/* Written: delivered, lost, or refused by a filter. */
		st.filtered = lrb_events_filtered(&fc->events, cpu);
		st.written += st.filtered;
		snprintf(what, sizeof(what), "%d", cpu);
		lrb_fs_stats_block(m, what, &st);
		sum.written += st.written;
		sum.delivered += st.delivered;
		for (i = 0; i < LRB_LOST_NR; i++)
			sum.lost[i] += st.lost[i];
		sum.subbufs_delivered += st.subbufs_delivered;
		sum.subbufs_corrupt += st.subbufs_corrupt;
		sum.filtered += st.filtered;
	}
	mutex_unlock(&lrb_fs_mutex);
	lrb_fs_stats_block(m, "total", &sum);
	return 0;
}

/* metadata: CTF 1.8 TSDL */

static void lrb_fs_tsdl_string(struct seq_file *m, const char *key,
			       const char *val)
{
	seq_printf(m, "\t%s = \"", key);
	for (; *val; val++)
		seq_putc(m, isalnum(*val) || strchr("._-+ ", *val) ? *val : '_');
	seq_puts(m, "\";\n");
}

static void lrb_fs_metadata_types(struct seq_file *m)
{
	static const unsigned int sizes[] = { 8, 16, 32, 64 };
	int i;

	seq_puts(m, "/* CTF 1.8 */\n\n");
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		seq_printf(m, "typealias integer { size = %u; align = 8; signed = false; } := uint%u_t;\n",
			   sizes[i], sizes[i]);
	seq_printf(m, "\ntrace {\n\tmajor = 1;\n\tminor = 8;\n\tbyte_order = %s;\n",
		   IS_ENABLED(CONFIG_CPU_BIG_ENDIAN) ? "be" : "le");
	seq_puts(m, "\tpacket.header := struct {\n"
		 "\t\tuint32_t magic;\n"
		 "\t\tuint32_t stream_id;\n"
		 "\t\tuint64_t stream_instance_id;\n"
		 "\t};\n};\n\n");
}

static void lrb_fs_metadata_clock(struct seq_file *m, struct lrb_fs_chan *fc)
{
	const char *name = lrb_fs_clock_names[fc->clock];
	u64 (*clock)(void) = lrb_fs_clocks[fc->clock];
	s64 offset, secs;
	s32 ns;

	/*
	 * Clock value 0 in real time (CLOCK_REALTIME): with it the clock is
	 * absolute, its values dates, and CTF readers put the traces of
	 * several machines on one timeline.
	 */
	preempt_disable();
	offset = ktime_get_real_ns() - clock();
	preempt_enable();
	/*
	 * Negative where real time is behind the clock (a machine without a
	 * battery-backed clock, still in 1970): offset_s is signed in CTF,
	 * offset the nanoseconds after it.
	 */
	secs = div_s64_rem(offset, NSEC_PER_SEC, &ns);
	if (ns < 0) {
		secs--;
		ns += NSEC_PER_SEC;
	}
	seq_printf(m, "clock {\n\tname = \"lrb_%s\";\n\tuuid = \"%pUb\";\n", name,
		   &lrb_fs_clock_uuid);
	seq_printf(m, "\tdescription = \"%s\";\n",
		   fc->clock == LRB_FS_CLOCK_LOCAL ? "local_clock()" :
		   "trace_clock_global()");
	seq_printf(m, "\tfreq = 1000000000;\n\tprecision = 1;\n"
		   "\toffset_s = %lld;\n\toffset = %d;\n\tabsolute = true;\n};\n\n",
		   secs, ns);
	seq_printf(m, "typealias integer { size = 27; align = 1; signed = false; map = clock.lrb_%s.value; } := uint27_clock_t;\n",
		   name);
	seq_printf(m, "typealias integer { size = 64; align = 8; signed = false; map = clock.lrb_%s.value; } := uint64_clock_t;\n\n",
		   name);
}

/*
 * The record header, LTTng's compact one: the 5-bit id and 27 bits of
 * timestamp, or 31 and the extended struct, byte-aligned.
 */
static const char lrb_fs_metadata_stream[] =
	"typealias integer { size = 5; align = 1; signed = false; } := uint5_t;\n\n"
	"stream {\n"
	"\tid = 0;\n"
	"\tpacket.context := struct {\n"
	"\t\tuint64_clock_t timestamp_begin;\n"
	"\t\tuint64_clock_t timestamp_end;\n"
	"\t\tuint64_t content_size;\n"
	"\t\tuint64_t packet_size;\n"
	"\t\tuint64_t packet_seq_num;\n"
	"\t\tuint64_t events_discarded;\n"
	"\t\tuint32_t cpu_id;\n"
	"\t\tuint32_t reserved;\n"
	"\t};\n"
	"\tevent.header := struct {\n"
	"\t\tenum : uint5_t { compact = 0 ... 30, extended = 31 } id;\n"
	"\t\tvariant <id> {\n"
	"\t\t\tstruct {\n"
	"\t\t\t\tuint27_clock_t timestamp;\n"
	"\t\t\t} compact;\n"
	"\t\t\tstruct {\n"
	"\t\t\t\tuint32_t id;\n"
	"\t\t\t\tuint64_clock_t timestamp;\n"
	"\t\t\t} extended;\n"
	"\t\t} v;\n"
	"\t} align(8);\n"
	"};\n\n";

/*
 * The tracer the tools take an LTTng-layout trace for: lttng-modules 2.13,
 * whose event layouts it follows. Trace Compass picks its layout of event
 * names by tracer_name, tracer_major and tracer_minor; the LTTng analyses
 * refuse a trace without the three version numbers. Patch level 0 and the
 * writer say that LRB wrote it.
 */
static void lrb_fs_metadata_env_lttng(struct seq_file *m)
{
	seq_puts(m, "\ttracer_major = 2;\n\ttracer_minor = 13;\n\ttracer_patchlevel = 0;\n");
	lrb_fs_tsdl_string(m, "trace_buffering_scheme", "global");
	lrb_fs_tsdl_string(m, "writer", "lrb");
}

static int lrb_fs_metadata_show(struct seq_file *m, void *v)
{
	struct lrb_fs_chan *fc = m->private;
	bool lttng;

	/* One hold, so that one read describes one set of settings. */
	mutex_lock(&lrb_fs_mutex);
	lttng = fc->events.layout == LRB_LAYOUT_LTTNG;
	lrb_fs_metadata_types(m);
	seq_puts(m, "env {\n");
	lrb_fs_tsdl_string(m, "domain", "kernel");
	lrb_fs_tsdl_string(m, "tracer_name", lttng ? "lttng-modules" : "lrb");
	if (lttng)
		lrb_fs_metadata_env_lttng(m);
	lrb_fs_tsdl_string(m, "sysname", utsname()->sysname);
	lrb_fs_tsdl_string(m, "hostname", utsname()->nodename);
	lrb_fs_tsdl_string(m, "kernel_release", utsname()->release);
	lrb_fs_tsdl_string(m, "channel", fc->name);
	seq_puts(m, "};\n\n");
	lrb_fs_metadata_clock(m, fc);
	seq_puts(m, lrb_fs_metadata_stream);
	seq_printf(m, "event {\n\tname = \"annotation\";\n\tid = %u;\n\tstream_id = 0;\n"
		   "\tcontext := struct {\n\t\tuint16_t _length;\n\t};\n"
		   "\tfields := struct {\n\t\tstring text;\n\t};\n};\n\n",
		   LRB_FS_EVENT_ANNOTATION);
	/* The buffers, which a change of settings replaces, say the lengths. */
	if (lttng)
		lrb_events_metadata_lttng(m, &fc->events, fc->chan);
	else
		lrb_events_metadata(m, &fc->events, fc->chan);
	mutex_unlock(&lrb_fs_mutex);
	return 0;
}

static int lrb_fs_seq_open(struct inode *inode, struct file *file,
			   int (*show)(struct seq_file *, void *))
{
	struct lrb_fs_chan *fc;
	int ret;

	ret = lrb_fs_open(inode, file);
	if (ret)
		return ret;
	fc = file->private_data;
	file->private_data = NULL;	/* the seq_file's, from here */
	ret = single_open(file, show, fc);
	if (ret)
		lrb_fs_put(fc);
	return ret;
}

static int lrb_fs_seq_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;

	single_release(inode, file);
	lrb_fs_put(fc);
	return 0;
}

static int lrb_fs_stats_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_stats_show);
}

static const struct file_operations lrb_fs_stats_fops = {
	.open = lrb_fs_stats_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

static int lrb_fs_metadata_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_metadata_show);
}

static const struct file_operations lrb_fs_metadata_fops = {
	.open = lrb_fs_metadata_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

/* events */

static int lrb_fs_events_show(struct seq_file *m, void *v)
{
	struct lrb_fs_chan *fc = m->private;

	lrb_events_show(m, &fc->events);
	return 0;
}

static int lrb_fs_events_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_events_show);
}

static ssize_t lrb_fs_events_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;
	char text[96];
	int ret;

	ret = lrb_fs_get_text(ubuf, count, text, sizeof(text));
	if (!ret)
		ret = lrb_events_command(&fc->events, text);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_events_fops = {
	.open = lrb_fs_events_open,
	.read = seq_read,
	.write = lrb_fs_events_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

/* filter */

static int lrb_fs_filter_show(struct seq_file *m, void *v)
{
	struct lrb_fs_chan *fc = m->private;

	lrb_events_filters_show(m, &fc->events);
	return 0;
}

static int lrb_fs_filter_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_filter_show);
}

/* "SELECTOR EXPR": a filter as long as one of ftrace's, up to a page. */
static ssize_t lrb_fs_filter_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;
	char *text;
	int ret;

	if (!count || count >= PAGE_SIZE)
		return -EINVAL;
	text = kmalloc(count + 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	ret = lrb_fs_get_text(ubuf, count, text, count + 1);
	if (!ret)
		ret = lrb_events_filter(&fc->events, text);
	kfree(text);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_filter_fops = {
	.open = lrb_fs_filter_open,
	.read = seq_read,
	.write = lrb_fs_filter_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

/* pids, pid_follow, uids, cpus: the channel's targets (lrb_target.c) */

#ifdef CONFIG_LRB_TRACE_EVENTS
static int lrb_fs_pids_show(struct seq_file *m, void *v)
{
	lrb_target_show(m, &((struct lrb_fs_chan *)m->private)->events,
			LRB_TARGET_PIDS);
	return 0;
}

static int lrb_fs_uids_show(struct seq_file *m, void *v)
{
	lrb_target_show(m, &((struct lrb_fs_chan *)m->private)->events,
			LRB_TARGET_UIDS);
	return 0;
}

static int lrb_fs_cpus_show(struct seq_file *m, void *v)
{
	lrb_target_show(m, &((struct lrb_fs_chan *)m->private)->events,
			LRB_TARGET_CPUS);
	return 0;
}

static int lrb_fs_follow_show(struct seq_file *m, void *v)
{
	lrb_target_show(m, &((struct lrb_fs_chan *)m->private)->events,
			LRB_TARGET_FOLLOW);
	return 0;
}

static int lrb_fs_pids_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_pids_show);
}

static int lrb_fs_uids_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_uids_show);
}

static int lrb_fs_cpus_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_cpus_show);
}

static int lrb_fs_follow_open(struct inode *inode, struct file *file)
{
	return lrb_fs_seq_open(inode, file, lrb_fs_follow_show);
}

/* As ftrace's set_event_pid: "echo PIDS >" replaces, ">>" adds. */
static ssize_t lrb_fs_pids_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;
	ssize_t ret;

	/* Empty clears, as the other lists. */
	ret = lrb_target_pids(&fc->events, ubuf, count,
			      file->f_flags & O_APPEND);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

/* A page of text, for the lists: empty clears. */
static ssize_t lrb_fs_target_write(struct file *file, const char __user *ubuf,
				   size_t count,
				   int (*set)(struct lrb_events_owner *o,
					      char *text))
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;
	char *text;
	int ret;

	if (count >= PAGE_SIZE)
		return -EINVAL;
	text = kmalloc(count + 1, GFP_KERNEL);
	if (!text)
		return -ENOMEM;
	text[0] = '\0';
	ret = count ? lrb_fs_get_text(ubuf, count, text, count + 1) : 0;
	if (!ret)
		ret = set(&fc->events, text);
	kfree(text);
	return ret ? ret : count;
}

static int lrb_fs_set_cpus(struct lrb_events_owner *o, char *text)
{
	return lrb_target_cpus(o, text);
}

static ssize_t lrb_fs_uids_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return lrb_fs_target_write(file, ubuf, count, lrb_target_uids);
}

static ssize_t lrb_fs_cpus_write(struct file *file, const char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	return lrb_fs_target_write(file, ubuf, count, lrb_fs_set_cpus);
}

static ssize_t lrb_fs_follow_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct lrb_fs_chan *fc = m->private;
	bool on;
	int ret;

	ret = lrb_fs_get_bool(ubuf, count, &on);
	if (!ret)
		ret = lrb_target_follow(&fc->events, on);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_pids_fops = {
	.open = lrb_fs_pids_open,
	.read = seq_read,
	.write = lrb_fs_pids_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

static const struct file_operations lrb_fs_uids_fops = {
	.open = lrb_fs_uids_open,
	.read = seq_read,
	.write = lrb_fs_uids_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

static const struct file_operations lrb_fs_cpus_fops = {
	.open = lrb_fs_cpus_open,
	.read = seq_read,
	.write = lrb_fs_cpus_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

static const struct file_operations lrb_fs_follow_fops = {
	.open = lrb_fs_follow_open,
	.read = seq_read,
	.write = lrb_fs_follow_write,
	.llseek = seq_lseek,
	.release = lrb_fs_seq_release,
};

static int lrb_fs_target_files(struct lrb_fs_chan *fc)
{
	if (!tracefs_create_file("pids", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_pids_fops) ||
	    !tracefs_create_file("pid_follow", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_follow_fops) ||
	    !tracefs_create_file("uids", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_uids_fops) ||
	    !tracefs_create_file("cpus", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_cpus_fops))
		return -ENOMEM;
	return 0;
}
#else
static int lrb_fs_target_files(struct lrb_fs_chan *fc)
{
	return 0;
}
#endif /* CONFIG_LRB_TRACE_EVENTS */

#ifdef CONFIG_LRB_FUNCTION_TRACER
/*
 * set_ftrace_filter and set_ftrace_notrace: ftrace's own files, opened
 * on the channel's ftrace_ops. The open file keeps the channel, whose
 * ops lives as long as it does.
 */
static int lrb_fs_ftrace_open(struct inode *inode, struct file *file,
			      int flag)
{
	struct lrb_fs_chan *fc;
	struct ftrace_ops *ops;
	int ret;

	ret = lrb_fs_open(inode, file);
	if (ret)
		return ret;
	fc = file->private_data;
	file->private_data = NULL;	/* ftrace's iterator's, from here */
	ops = lrb_fn_ops(&fc->events);
	ret = ops ? ftrace_regex_open(NULL, ops, flag, inode, file) : -ENOMEM;
	if (ret)
		lrb_fs_put(fc);
	return ret;
}

static int lrb_fs_ftrace_filter_open(struct inode *inode, struct file *file)
{
	return lrb_fs_ftrace_open(inode, file, FTRACE_ITER_FILTER);
}

static int lrb_fs_ftrace_notrace_open(struct inode *inode, struct file *file)
{
	return lrb_fs_ftrace_open(inode, file, FTRACE_ITER_NOTRACE);
}

static int lrb_fs_ftrace_release(struct inode *inode, struct file *file)
{
	/* Still the channel's: the file kept it. */
	struct lrb_fs_chan *fc = inode->i_private;
	bool wrote = file->f_mode & FMODE_WRITE;

	ftrace_regex_release(inode, file);
	if (wrote)
		lrb_fn_filter_changed(&fc->events);
	lrb_fs_put(fc);
	return 0;
}

/*
 * A write that fails leaves the filter as it was. ftrace's release
 * installs the file's hash whatever its writes did, and a file opened
 * with O_TRUNC starts from an empty one: "echo nosuch > set_ftrace_filter"
 * would leave a filter of nothing, which traces every function. The
 * file loses its write mode instead: its release installs nothing, and
 * its later writes fail (EBADF).
 */
static ssize_t lrb_fs_ftrace_failed(struct file *file, ssize_t ret)
{
	if (ret < 0)
		file->f_mode &= ~FMODE_WRITE;
	return ret;
}

static ssize_t lrb_fs_ftrace_filter_write(struct file *file,
					  const char __user *ubuf,
					  size_t count, loff_t *ppos)
{
	return lrb_fs_ftrace_failed(file, ftrace_filter_write(file, ubuf,
							      count, ppos));
}

static ssize_t lrb_fs_ftrace_notrace_write(struct file *file,
					   const char __user *ubuf,
					   size_t count, loff_t *ppos)
{
	return lrb_fs_ftrace_failed(file, ftrace_notrace_write(file, ubuf,
							       count, ppos));
}

static const struct file_operations lrb_fs_ftrace_filter_fops = {
	.open = lrb_fs_ftrace_filter_open,
	.read = seq_read,
	.write = lrb_fs_ftrace_filter_write,
	.llseek = tracing_lseek,
	.release = lrb_fs_ftrace_release,
};

static const struct file_operations lrb_fs_ftrace_notrace_fops = {
	.open = lrb_fs_ftrace_notrace_open,
	.read = seq_read,
	.write = lrb_fs_ftrace_notrace_write,
	.llseek = tracing_lseek,
	.release = lrb_fs_ftrace_release,
};

static int lrb_fs_function_files(struct lrb_fs_chan *fc)
{
	if (!tracefs_create_file("set_ftrace_filter", LRB_FS_MODE_WRITE,
				 fc->dir, fc, &lrb_fs_ftrace_filter_fops) ||
	    !tracefs_create_file("set_ftrace_notrace", LRB_FS_MODE_WRITE,
				 fc->dir, fc, &lrb_fs_ftrace_notrace_fops))
		return -ENOMEM;
	return 0;
}
#else
static int lrb_fs_function_files(struct lrb_fs_chan *fc)
{
	return 0;
}
#endif /* CONFIG_LRB_FUNCTION_TRACER */

/* annotate */

static size_t lrb_fs_annotation_max(size_t subbuf_size)
{
	size_t room = subbuf_size - sizeof(struct lrb_packet_header) -
		      sizeof(struct lrb_record_header_ext) - LRB_LEN_SIZE;

	/* Text bytes, without the terminating NUL the record carries. */
	return min_t(size_t, room, LRB_FS_ANNOTATION_MAX) - 1;
}

static ssize_t lrb_fs_annotate_write(struct file *file, const char __user *ubuf,
				     size_t count, loff_t *ppos)
{
	struct lrb_fs_chan *fc = file->private_data;
	size_t len = count;
	char *text;
	int ret;

	if (!count)
		return 0;
	if (count >= LRB_FS_ANNOTATION_MAX)
		return -EMSGSIZE;
	text = memdup_user_nul(ubuf, count);
	if (IS_ERR(text))
		return PTR_ERR(text);
	if (strlen(text) != count) {
		ret = -EINVAL;		/* a NUL inside would cut the text */
		goto out;
	}
	if (text[len - 1] == '\n')
		text[--len] = '\0';
	preempt_disable();
	/*
	 * Pairs with the release in lrb_fs_set_enabled(): fc->chan is set,
	 * and stays while we write (the disable waits for us). Its size is
	 * the one to check, not the settings, which may change meanwhile.
	 */
	if (!smp_load_acquire(&fc->enabled))
		ret = -ENODEV;
	else if (count > lrb_fs_annotation_max(lrb_channel_config(fc->chan)->subbuf_size))
		ret = -EMSGSIZE;
	else
		ret = lrb_write_record(fc->chan, LRB_FS_EVENT_ANNOTATION, text,
				       len + 1);
	preempt_enable();
out:
	kfree(text);
	return ret ? ret : count;
}

static const struct file_operations lrb_fs_annotate_fops = {
	.open = lrb_fs_open,
	.write = lrb_fs_annotate_write,
	.release = lrb_fs_release,
	.llseek = noop_llseek,
};

/* streams/cpuN */

static int lrb_fs_stream_open(struct inode *inode, struct file *file)
{
	struct lrb_fs_stream *st;
	struct lrb_fs_chan *fc;
	int ret = 0;

	if (file->f_mode & FMODE_WRITE)
		return -EACCES;
	ret = lrb_fs_may_open(inode, file);
	if (ret)
		return ret;
	mutex_lock(&lrb_fs_mutex);
	fc = lrb_fs_get(file, true);
	if (IS_ERR(fc)) {
		mutex_unlock(&lrb_fs_mutex);
		return PTR_ERR(fc);
	}
	st = inode->i_private;
	if (st->open) {
		fc->users--;
		ret = -EBUSY;
	} else {
		st->open = true;
		fc->readers++;
	}
	mutex_unlock(&lrb_fs_mutex);
	if (ret)
		return ret;
	file->private_data = st;
	return nonseekable_open(inode, file);
}

static int lrb_fs_stream_release(struct inode *inode, struct file *file)
{
	struct lrb_fs_stream *st = file->private_data;
	struct lrb_fs_chan *fc = st->fc;

	/* A sub-buffer still held goes back unread: nothing is lost. */
	if (st->held && !st->held_snapshot)
		lrb_unget_subbuf(fc->chan, st->cpu, &st->sb);
	st->held = false;
	st->held_by_read = false;
	st->held_snapshot = false;
	st->snapshot_taken = false;
	kvfree(st->part);
	st->part = NULL;
	WRITE_ONCE(st->part_len, 0);
	mutex_lock(&lrb_fs_mutex);
	st->open = false;
	fc->readers--;
	fc->users--;
	mutex_unlock(&lrb_fs_mutex);
	return 0;
}

/*
 * Nothing more will come: the channel is disabled and flushed, or the CPU
 * is dead and its last sub-buffer closed (not merely offline: its tail is
 * closed after it dies, lrb_cpu_closed()).
 */
static bool lrb_fs_stream_eof(struct lrb_fs_stream *st)
{
	return READ_ONCE(st->fc->flushed) ||
	       lrb_cpu_closed(st->fc->chan, st->cpu);
}

/* Take the next sub-buffer for read(), waiting unless O_NONBLOCK. */
static int lrb_fs_stream_take(struct lrb_fs_stream *st, struct file *file)
{
	struct lrb_channel *chan = st->fc->chan;
	unsigned long seen;
	bool eof;
	int ret;

	for (;;) {
		seen = READ_ONCE(st->wakeups);
		/*
		 * End of file only if it was already so before a get found
		 * nothing: what the last flush delivered is taken first.
		 */
		eof = lrb_fs_stream_eof(st);
		/* Pairs with the release of fc->flushed. */
		smp_rmb();
		ret = lrb_get_subbuf(chan, st->cpu, &st->sb);
		if (ret != -EAGAIN)
			return ret;
		if (eof)
			return -ENODATA;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		mutex_unlock(&st->lock);
		ret = wait_event_interruptible(st->wait,
					       READ_ONCE(st->wakeups) != seen ||
					       lrb_fs_stream_eof(st));
		mutex_lock(&st->lock);
		if (ret)
			return ret;
		if (st->held || st->part_len)
			return -EBUSY;
	}
}

/*
 * Hold the next sub-buffer for read(), or keep the one a failed copy left
 * held. Returns 0, -ENODATA at end of file, or an error.
 */
static int lrb_fs_stream_hold(struct lrb_fs_stream *st, struct file *file)
{
	int ret;

	if (st->held)
		return st->held_by_read ? 0 : -EBUSY;
	ret = lrb_fs_stream_take(st, file);
	if (ret)
		return ret;
	st->held = true;
	st->held_by_read = true;
	return 0;
}

/*
 * Put back what read() held. -EIO if writers reused it while it was
 * copied: the copy is invalid, the caller takes the next one; -EINTR
 * instead when a signal is pending, since writers that lap the reader
 * every time would otherwise keep the read going round for ever.
 */
static int lrb_fs_stream_put_read(struct lrb_fs_stream *st)
{
	int ret;

	st->held = false;
	st->held_by_read = false;
	ret = lrb_put_subbuf(st->fc->chan, st->cpu, &st->sb);
	if (ret != -EIO)
		return ret;
	if (signal_pending(current))
		return -EINTR;
	cond_resched();
	return ret;
}

/*
 * Copy the next packet to @st->part, for reads smaller than a packet, and
 * release it at once. Returns 0, -ENODATA at end of file, or an error.
 */
static int lrb_fs_stream_fill_part(struct lrb_fs_stream *st,
				   struct file *file)
{
	int ret;

	if (!st->part) {
		/* The reader's memory: charged to its memory cgroup. */
		st->part = kvmalloc(st->fc->config.subbuf_size,
				    GFP_KERNEL_ACCOUNT);
		if (!st->part)
			return -ENOMEM;
	}
	do {
		ret = lrb_fs_stream_hold(st, file);
		if (ret)
			return ret;
		memcpy(st->part, st->sb.data, st->sb.padded_size);
		/* Overwritten while copied: the copy is invalid, take the next. */
		ret = lrb_fs_stream_put_read(st);
	} while (ret == -EIO);
	if (ret)
		return ret;
	st->part_off = 0;
	WRITE_ONCE(st->part_len, st->sb.padded_size);
	return 0;
}

/* The rest of the packet in @st->part, or of the next one, up to @to's size. */
static ssize_t lrb_fs_stream_read_part(struct lrb_fs_stream *st,
				       struct file *file, struct iov_iter *to)
{
	size_t size;
	int ret;

	if (!st->part_len) {
		ret = lrb_fs_stream_fill_part(st, file);
		if (ret)
			return ret == -ENODATA ? 0 : ret;
	}
	size = min(iov_iter_count(to), st->part_len - st->part_off);
	size = copy_to_iter(st->part + st->part_off, size, to);
	if (!size)
		return -EFAULT;
	st->part_off += size;
	if (st->part_off == st->part_len)
		WRITE_ONCE(st->part_len, 0);
	return size;
}

/* One whole packet, copied straight from the buffer. */
static ssize_t lrb_fs_stream_read_whole(struct lrb_fs_stream *st,
					struct file *file, struct iov_iter *to)
{
	size_t size;
	int ret;

	for (;;) {
		ret = lrb_fs_stream_hold(st, file);
		if (ret)
			return ret == -ENODATA ? 0 : ret;
		/* On a fault the sub-buffer stays held for the next read. */
		size = copy_to_iter(st->sb.data, st->sb.padded_size, to);
		if (size != st->sb.padded_size) {
			iov_iter_revert(to, size);
			return -EFAULT;
		}
		ret = lrb_fs_stream_put_read(st);
		if (ret != -EIO)
			return ret ? ret : size;
		/* Overwritten while copied: what was copied is invalid. */
		iov_iter_revert(to, size);
	}
}

static ssize_t lrb_fs_stream_read(struct kiocb *iocb, struct iov_iter *to)
{
	struct file *file = iocb->ki_filp;
	struct lrb_fs_stream *st = file->private_data;
	ssize_t ret;

	if (!iov_iter_count(to))
		return 0;
	mutex_lock(&st->lock);
	/* A packet that a smaller read began is finished first. */
	if (st->part_len || iov_iter_count(to) < st->fc->config.subbuf_size)
		ret = lrb_fs_stream_read_part(st, file, to);
	else
		ret = lrb_fs_stream_read_whole(st, file, to);
	mutex_unlock(&st->lock);
	return ret;
}

static __poll_t lrb_fs_stream_poll(struct file *file, poll_table *wait)
{
	struct lrb_fs_stream *st = file->private_data;
	bool eof;

	poll_wait(file, &st->wait, wait);
	/* As in lrb_fs_stream_take(): end of file sampled first. */
	eof = lrb_fs_stream_eof(st);
	/* Pairs with the release of fc->flushed. */
	smp_rmb();
	if (READ_ONCE(st->part_len) ||
	    lrb_subbuf_ready(st->fc->chan, st->cpu))
		return EPOLLIN | EPOLLRDNORM;
	if (eof)
		return EPOLLHUP;
	return 0;
}

static long lrb_fs_stream_get(struct lrb_fs_stream *st, u64 __user *up)
{
	struct lrb_channel *chan = st->fc->chan;
	int ret;

	if (st->held || st->part_len)
		return -EBUSY;
	ret = lrb_get_subbuf(chan, st->cpu, &st->sb);
	if (ret)
		return ret;
	if (put_user(st->sb.pos, up)) {
		lrb_unget_subbuf(chan, st->cpu, &st->sb);
		return -EFAULT;
	}
	st->held = true;
	return 0;
}

static long lrb_fs_stream_put(struct lrb_fs_stream *st, u64 __user *up)
{
	u64 pos;

	if (get_user(pos, up))
		return -EFAULT;
	if (!st->held || st->held_by_read || pos != st->sb.pos)
		return -EINVAL;
	st->held = false;
	if (st->held_snapshot) {
		st->held_snapshot = false;
		return lrb_snapshot_put(st->fc->chan, st->cpu, &st->sb);
	}
	return lrb_put_subbuf(st->fc->chan, st->cpu, &st->sb);
}

static long lrb_fs_stream_snapshot(struct file *file,
				   struct lrb_snapshot __user *up)
{
	struct lrb_fs_stream *st = file->private_data;
	u64 begin, end;
	int ret;

	ret = lrb_fs_pace(file, &st->paced);
	if (ret)
		return ret;
	ret = lrb_snapshot(st->fc->chan, st->cpu, &begin, &end);
	lrb_fs_paced(file, &st->paced);
	if (ret)
		return ret;
	st->snapshot.begin = begin;
	st->snapshot.end = end;
	st->snapshot_taken = true;
	return copy_to_user(up, &st->snapshot, sizeof(*up)) ? -EFAULT : 0;
}

static long lrb_fs_stream_get_at(struct lrb_fs_stream *st, u64 __user *up)
{
	const struct lrb_snapshot *snap = &st->snapshot;
	u64 pos;
	int ret;

	if (get_user(pos, up))
		return -EFAULT;
	if (st->held || st->part_len)
		return -EBUSY;
	/* Positions wrap at 2^64: compare distances from the window's start. */
	if (!st->snapshot_taken ||
	    pos - snap->begin >= snap->end - snap->begin)
		return -EINVAL;
	ret = lrb_snapshot_get(st->fc->chan, st->cpu, pos, &st->sb);
	if (ret)
		return ret;
	st->held = true;
	st->held_snapshot = true;
	return 0;
}

static long lrb_fs_stream_info(struct lrb_fs_stream *st,
			       struct lrb_stream_info __user *up)
{
	const struct lrb_config *c = &st->fc->config;
	struct lrb_stream_info info = {
		.subbuf_size = c->subbuf_size,
		.num_subbufs = c->num_subbufs,
		.mmap_size = c->subbuf_size * c->num_subbufs,
		.cpu = st->cpu,
		.mode = c->mode,
	};

	return copy_to_user(up, &info, sizeof(info)) ? -EFAULT : 0;
}

/* A value of the held sub-buffer, for the size and offset queries. */
static long lrb_fs_stream_query(struct lrb_fs_stream *st, unsigned int cmd,
				u64 __user *up)
{
	const struct lrb_config *c = &st->fc->config;
	u64 v;

	if (!st->held || st->held_by_read)
		return -EINVAL;
	if (cmd == LRB_IOC_GET_SUBBUF_SIZE)
		v = st->sb.content_size;
	else if (cmd == LRB_IOC_GET_PADDED_SIZE)
		v = st->sb.padded_size;
	else
		v = st->sb.pos & (c->subbuf_size * c->num_subbufs - 1);
	return put_user(v, up);
}

static long lrb_fs_stream_ioctl(struct file *file, unsigned int cmd,
				unsigned long arg)
{
	struct lrb_fs_stream *st = file->private_data;
	void __user *up = (void __user *)arg;
	long ret;

	mutex_lock(&st->lock);
	switch (cmd) {
	case LRB_IOC_GET_SUBBUF:
		ret = lrb_fs_stream_get(st, up);
		break;
	case LRB_IOC_PUT_SUBBUF:
		ret = lrb_fs_stream_put(st, up);
		break;
	case LRB_IOC_GET_SUBBUF_SIZE:
	case LRB_IOC_GET_PADDED_SIZE:
	case LRB_IOC_GET_MMAP_OFFSET:
		ret = lrb_fs_stream_query(st, cmd, up);
		break;
	case LRB_IOC_FLUSH:
		ret = lrb_fs_pace(file, &st->paced);
		if (ret)
			break;
		lrb_flush(st->fc->chan, st->cpu);
		lrb_fs_paced(file, &st->paced);
		break;
	case LRB_IOC_GET_INFO:
		ret = lrb_fs_stream_info(st, up);
		break;
	case LRB_IOC_SNAPSHOT:
		ret = lrb_fs_stream_snapshot(file, up);
		break;
	case LRB_IOC_GET_SUBBUF_AT:
		ret = lrb_fs_stream_get_at(st, up);
		break;
	default:
		ret = -ENOTTY;
		break;
	}
	mutex_unlock(&st->lock);
	return ret;
}

static int lrb_fs_stream_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct lrb_fs_stream *st = file->private_data;

	/* Read-only data: the buffer belongs to the writers. */
	if (vma->vm_flags & (VM_WRITE | VM_EXEC))
		return -EPERM;
	vm_flags_clear(vma, VM_MAYWRITE | VM_MAYEXEC);
	return lrb_mmap(st->fc->chan, st->cpu, vma);
}

/* Hold the next packet for read() if one is ready, without waiting. */
static int lrb_fs_stream_hold_ready(struct lrb_fs_stream *st)
{
	bool eof;
	int ret;

	if (st->held || st->part_len)
		return 0;
	eof = lrb_fs_stream_eof(st);
	/* Pairs with the release of fc->flushed, as in lrb_fs_stream_take(). */
	smp_rmb();
	ret = lrb_get_subbuf(st->fc->chan, st->cpu, &st->sb);
	if (!ret) {
		st->held = true;
		st->held_by_read = true;
	}
	/* At end of file, read() returns 0 at once. */
	return ret == -EAGAIN && eof ? 0 : ret;
}

/*
 * splice() reads with the rules of read(): copy_splice_read() calls
 * lrb_fs_stream_read(), the pipe locked. It does not pass SPLICE_F_NONBLOCK
 * on, so a splice that must not wait holds the next packet here first, or
 * fails with EAGAIN, as read() does with O_NONBLOCK.
 */
static ssize_t lrb_fs_stream_splice_read(struct file *in, loff_t *ppos,
					 struct pipe_inode_info *pipe,
					 size_t len, unsigned int flags)
{
	struct lrb_fs_stream *st = in->private_data;
	int ret = 0;

	if (flags & SPLICE_F_NONBLOCK) {
		mutex_lock(&st->lock);
		ret = lrb_fs_stream_hold_ready(st);
		mutex_unlock(&st->lock);
		if (ret)
			return ret;
	}
	return copy_splice_read(in, ppos, pipe, len, flags);
}

static const struct file_operations lrb_fs_stream_fops = {
	.open = lrb_fs_stream_open,
	.read_iter = lrb_fs_stream_read,
	.splice_read = lrb_fs_stream_splice_read,
	.poll = lrb_fs_stream_poll,
	.unlocked_ioctl = lrb_fs_stream_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = lrb_fs_stream_mmap,
	.release = lrb_fs_stream_release,
};

/* Channels. */

static int lrb_fs_create_files(struct lrb_fs_chan *fc)
{
	struct dentry *streams;
	char name[16];
	int i;
	int cpu;

	fc->dir = tracefs_create_dir(fc->name, lrb_fs_root);
	if (!fc->dir)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(lrb_fs_settings); i++)
		if (!tracefs_create_file(lrb_fs_settings[i].name,
					 LRB_FS_MODE_WRITE, fc->dir, fc,
					 &lrb_fs_setting_fops))
			return -ENOMEM;
	if (!tracefs_create_file("layout", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_layout_fops))
		return -ENOMEM;
	if (IS_ENABLED(CONFIG_LRB_TRACE_EVENTS) &&
	    !tracefs_create_file("common_fields", LRB_FS_MODE_WRITE, fc->dir,
				 fc, &lrb_fs_common_fops))
		return -ENOMEM;
	if (IS_ENABLED(CONFIG_LRB_MARKERS) &&
	    !tracefs_create_file("statedump", LRB_FS_MODE_ROOT_ONLY, fc->dir,
				 fc, &lrb_fs_statedump_fops))
		return -ENOMEM;
	if (!tracefs_create_file("enable", LRB_FS_MODE_GROUP, fc->dir, fc,
				 &lrb_fs_enable_fops) ||
	    !tracefs_create_file("switch_timer", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_switch_timer_fops) ||
	    !tracefs_create_file("dump_on_oops", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_dump_fops) ||
	    !tracefs_create_file("stats", LRB_FS_MODE_READ, fc->dir, fc,
				 &lrb_fs_stats_fops) ||
	    !tracefs_create_file("metadata", LRB_FS_MODE_READ, fc->dir, fc,
				 &lrb_fs_metadata_fops) ||
	    !tracefs_create_file("annotate", LRB_FS_MODE_WRITE_ONLY, fc->dir, fc,
				 &lrb_fs_annotate_fops) ||
	    (IS_ENABLED(CONFIG_LRB_MARKERS) &&
	     !tracefs_create_file("events", LRB_FS_MODE_WRITE, fc->dir, fc,
				  &lrb_fs_events_fops)))
		return -ENOMEM;
	if (IS_ENABLED(CONFIG_LRB_TRACE_EVENTS) &&
	    !tracefs_create_file("filter", LRB_FS_MODE_WRITE, fc->dir, fc,
				 &lrb_fs_filter_fops))
		return -ENOMEM;
	if (lrb_fs_target_files(fc))
		return -ENOMEM;
	if (lrb_fs_function_files(fc))
		return -ENOMEM;
	streams = tracefs_create_dir("streams", fc->dir);
	if (!streams)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		snprintf(name, sizeof(name), "cpu%d", cpu);
		if (!tracefs_create_file(name, LRB_FS_MODE_READ, streams, &fc->streams[cpu],
					 &lrb_fs_stream_fops))
			return -ENOMEM;
	}
	return 0;
}

static void lrb_fs_chan_free(struct lrb_fs_chan *fc)
{
	lrb_target_release(&fc->events);
	lrb_events_owner_release(&fc->events);
	tracefs_remove(fc->dir);
	if (fc->chan)
		lrb_channel_destroy(fc->chan);
	kfree(fc->dumps);
	kfree(fc->streams);
	kfree(fc);
}

static struct lrb_fs_chan *lrb_fs_find(const char *name)
{
	struct lrb_fs_chan *fc;

	list_for_each_entry(fc, &lrb_fs_chans, list)
		if (!strcmp(fc->name, name))
			return fc;
	return NULL;
}

static bool lrb_fs_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > LRB_FS_NAME_MAX || !strcmp(name, "control"))
		return false;
	for (; *name; name++)
		if (!isascii(*name) ||
		    (!isalnum(*name) && *name != '_' && *name != '-'))
			return false;
	return true;
}

static int lrb_fs_create(const char *name)
{
	struct lrb_config c = {
		.subbuf_size = 16384,
		.num_subbufs = 16,
		.mode = LRB_MODE_DISCARD,
	};
	struct lrb_fs_chan *fc;
	int cpu, ret;

	lockdep_assert_held(&lrb_fs_mutex);
	if (uuid_is_null(&lrb_fs_clock_uuid))
		uuid_gen(&lrb_fs_clock_uuid);
	if (!lrb_fs_name_ok(name))
		return -EINVAL;
	if (lrb_fs_find(name))
		return -EEXIST;
	if (lrb_fs_nr_chans >= LRB_FS_CHANS_MAX)
		return -ENOSPC;
	fc = kzalloc(sizeof(*fc), GFP_KERNEL);
	if (!fc)
		return -ENOMEM;
	fc->streams = kcalloc(nr_cpu_ids, sizeof(*fc->streams), GFP_KERNEL);
	if (!fc->streams) {
		kfree(fc);
		return -ENOMEM;
	}
	strscpy(fc->name, name, sizeof(fc->name));
	fc->flushed = true;
	lrb_events_owner_init(&fc->events);
	for_each_possible_cpu(cpu) {
		fc->streams[cpu].fc = fc;
		fc->streams[cpu].cpu = cpu;
		mutex_init(&fc->streams[cpu].lock);
		init_waitqueue_head(&fc->streams[cpu].wait);
	}
	ret = lrb_fs_realloc(fc, &c, LRB_FS_CLOCK_LOCAL);
	if (!ret)
		ret = lrb_fs_create_files(fc);
	if (ret) {
		lrb_fs_chan_free(fc);
		return ret;
	}
	list_add_tail_rcu(&fc->list, &lrb_fs_chans);
	lrb_fs_nr_chans++;
	return 0;
}

static int lrb_fs_remove(const char *name)
{
	struct lrb_fs_chan *fc;

	lockdep_assert_held(&lrb_fs_mutex);
	fc = lrb_fs_find(name);
	if (!fc)
		return -ENOENT;
	if (fc->users)
		return -EBUSY;
	lrb_fs_set_enabled(fc, false);
	list_del_rcu(&fc->list);
	lrb_fs_nr_chans--;
	synchronize_rcu();	/* for lrb_fs_dump_all() */
	lrb_fs_chan_free(fc);
	return 0;
}

static ssize_t lrb_fs_control_write(struct file *file, const char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	char text[LRB_FS_NAME_MAX + 16], *name;
	int ret;

	ret = lrb_fs_get_text(ubuf, count, text, sizeof(text));
	if (ret)
		return ret;
	name = strchr(text, ' ');
	if (!name)
		return -EINVAL;
	*name++ = '\0';
	mutex_lock(&lrb_fs_mutex);
	if (!strcmp(text, "create"))
		ret = lrb_fs_create(name);
	else if (!strcmp(text, "remove"))
		ret = lrb_fs_remove(name);
	else
		ret = -EINVAL;
	mutex_unlock(&lrb_fs_mutex);
	return ret ? ret : count;
}

static int lrb_fs_control_show(struct seq_file *m, void *v)
{
	struct lrb_fs_chan *fc;

	mutex_lock(&lrb_fs_mutex);
	list_for_each_entry(fc, &lrb_fs_chans, list)
		seq_printf(m, "%s\n", fc->name);
	mutex_unlock(&lrb_fs_mutex);
	return 0;
}

static int lrb_fs_control_open(struct inode *inode, struct file *file)
{
	int ret = lrb_fs_may_open(inode, file);

	return ret ? ret : single_open(file, lrb_fs_control_show, NULL);
}

static const struct file_operations lrb_fs_control_fops = {
	.open = lrb_fs_control_open,
	.read = seq_read,
	.write = lrb_fs_control_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static __init int lrb_fs_init(void)
{
	if (tracing_init_dentry())
		return 0;
	lrb_fs_root = tracefs_create_dir("lrb", NULL);
	if (!lrb_fs_root ||
	    !tracefs_create_file("control", LRB_FS_MODE_WRITE, lrb_fs_root, NULL,
				 &lrb_fs_control_fops)) {
		pr_warn("lrb: cannot create the tracefs directory\n");
		return -ENOMEM;
	}
	register_die_notifier(&lrb_fs_die_nb);
	atomic_notifier_chain_register(&panic_notifier_list, &lrb_fs_panic_nb);
	return 0;
}
late_initcall(lrb_fs_init);
