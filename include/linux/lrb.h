/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRB: a lockless per-CPU tracing ring buffer.
 *
 * A channel holds one buffer per possible CPU. Each buffer is split into
 * num_subbufs sub-buffers of subbuf_size bytes; each sub-buffer is one CTF
 * packet: a struct lrb_packet_header followed by records. A writer reserves
 * a slot on its own CPU, fills it and commits it; a reader on any CPU takes
 * complete sub-buffers one at a time, in order.
 *
 * Who may call what (CONFIG_LRB_SYNC_LOCAL):
 *
 *              | reserve/commit | get/put_subbuf | flush | create/destroy
 * -------------+----------------+----------------+-------+---------------
 * task         |       Y        |       Y        |   Y   |       Y
 * softirq      |       Y        |       Y        |   N   |       N
 * hardirq      |       Y        |       Y        |   N   |       N
 * NMI          |       Y        |       N        |   N   |       N
 *
 * Writers nest: a reserve may be made while the same CPU holds up to
 * LRB_NESTING_MAX - 1 open reservations (task, softirq, hardirq, NMI);
 * deeper writes are dropped and counted as LRB_LOST_NESTED. A writer only
 * ever touches the buffer of the CPU it runs on, so writers never contend
 * across CPUs and use local (non-LOCK) atomics.
 *
 * With CONFIG_LRB_SYNC_IRQOFF, a reservation runs with interrupts disabled
 * until its commit and uses plain loads and stores; a write from NMI context
 * is dropped and counted as LRB_LOST_NMI.
 *
 * Readers of one CPU buffer are serialized by the buffer's reader lock;
 * readers of different CPU buffers run in parallel.
 *
 * Snapshot readers (overwrite mode) consume nothing and take no lock:
 * lrb_snapshot() may be called where lrb_flush() may, lrb_snapshot_get()
 * and lrb_snapshot_put() where lrb_get_subbuf() may, beside a consuming
 * reader and other snapshot readers.
 */
#ifndef _LINUX_LRB_H
#define _LINUX_LRB_H

#include <linux/types.h>
#include <linux/string.h>
#include <linux/bits.h>
#include <linux/limits.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/sched/clock.h>
#include <linux/unaligned.h>
#include <uapi/linux/lrb.h>
#include <asm/barrier.h>
#include <asm/local.h>

struct lrb_channel;
struct lrb_cpu_buf;
struct vm_area_struct;

/* Size bounds of a channel (all powers of two). */
#define LRB_SUBBUF_SIZE_MIN	256UL
#define LRB_SUBBUF_SIZE_MAX	(4UL << 20)
#define LRB_NUM_SUBBUFS_MIN	2U
#define LRB_NUM_SUBBUFS_MAX	1024U
#define LRB_CPU_BUF_SIZE_MAX	(64UL << 20)

/* Depth of writers a CPU may have open at once: task, softirq, irq, NMI. */
#define LRB_NESTING_MAX		4

/* Switch timer periods, in microseconds (0 is off). */
#define LRB_SWITCH_TIMER_MIN_US	100U
#define LRB_SWITCH_TIMER_MAX_US	3600000000U

/* Event ids 0..LRB_EVENT_ID_MAX are valid. */
#define LRB_EVENT_ID_MAX	0xfffeU

/**
 * enum lrb_mode - what a writer does when the buffer is full
 * @LRB_MODE_DISCARD: drop the new record and count it as LRB_LOST_FULL.
 * @LRB_MODE_OVERWRITE: reuse the oldest unread sub-buffer (flight recorder)
 *	and count the records it held as LRB_LOST_OVERWRITTEN.
 */
enum lrb_mode {
	LRB_MODE_DISCARD,
	LRB_MODE_OVERWRITE,
};

/**
 * enum lrb_lost_cause - why a record was not delivered
 * @LRB_LOST_FULL: discard mode, the buffer was full; or, in either mode,
 *	the next sub-buffer still had a reservation open (pending commit).
 * @LRB_LOST_OVERWRITTEN: overwrite mode, the record's sub-buffer was
 *	reused before the reader took it.
 * @LRB_LOST_TOO_BIG: the record does not fit in an empty sub-buffer, or
 *	its payload exceeds LRB_RECORD_LEN_MAX.
 * @LRB_LOST_NESTED: more than LRB_NESTING_MAX writers were open on the CPU.
 * @LRB_LOST_NMI: written from NMI context with CONFIG_LRB_SYNC_IRQOFF.
 * @LRB_LOST_NR: number of causes.
 */
enum lrb_lost_cause {
	LRB_LOST_FULL,
	LRB_LOST_OVERWRITTEN,
	LRB_LOST_TOO_BIG,
	LRB_LOST_NESTED,
	LRB_LOST_NMI,
	LRB_LOST_NR,
};

/**
 * struct lrb_config - shape of a channel
 * @subbuf_size: bytes per sub-buffer, a power of two within
 *	[LRB_SUBBUF_SIZE_MIN, LRB_SUBBUF_SIZE_MAX].
 * @num_subbufs: sub-buffers per CPU, a power of two within
 *	[LRB_NUM_SUBBUFS_MIN, LRB_NUM_SUBBUFS_MAX]; their product may not
 *	exceed LRB_CPU_BUF_SIZE_MAX.
 * @mode: &enum lrb_mode.
 * @clock: timestamp source in ns: NMI-safe, and non-decreasing on each
 *	CPU even across nested calls, or slots are not in timestamp order;
 *	NULL selects local_clock().
 * @wakeup: called from irq_work on the writer's CPU after a sub-buffer of
 *	@cpu was delivered; may be NULL. Never called from the write path.
 * @priv: passed to @wakeup.
 */
struct lrb_config {
	size_t subbuf_size;
	unsigned int num_subbufs;
	enum lrb_mode mode;
	u64 (*clock)(void);
	void (*wakeup)(struct lrb_channel *chan, int cpu, void *priv);
	void *priv;
};

/**
 * struct lrb_stats - counters of one CPU buffer
 * @written: records written or lost: committed, or refused by lrb_reserve()
 *	for another reason than a bad id.
 * @delivered: records in sub-buffers a reader took and put back.
 * @lost: records lost, indexed by &enum lrb_lost_cause.
 * @subbufs_delivered: sub-buffers a reader took and put back.
 * @subbufs_corrupt: sub-buffers a reader found corrupt and skipped; their
 *	records are in neither @delivered nor @lost.
 * @filtered: records the filters of a tracefs channel's events refused
 *	(kernel/trace/lrb_events.c), counted in @written there; lrb_stats_read()
 *	leaves it 0: the buffer never sees them.
 *
 * Once the buffer is flushed and drained, @written equals @delivered plus
 * the sum of @lost. While writers run, the counts are read one by one and
 * may not add up.
 */
struct lrb_stats {
	u64 written;
	u64 delivered;
	u64 lost[LRB_LOST_NR];
	u64 subbufs_delivered;
	u64 subbufs_corrupt;
	u64 filtered;
};

/**
 * struct lrb_counter - a 64-bit count kept by one CPU, NMI-safe everywhere
 * @lo: the count; on 32-bit, its low word.
 * @hi: 32-bit only: the carries out of @lo.
 *
 * Only the owning CPU adds, from any context (NMI included), with local_t
 * operations. local64_t would do on 64-bit, but on 32-bit it is an
 * atomic64_t, which takes a hashed spinlock (GENERIC_ATOMIC64) or
 * disables interrupts (i386 without CMPXCHG8B): neither is safe in NMI.
 * ftrace's ring buffer keeps its counts in local_t and lets them wrap;
 * this one carries instead. Between the add that wraps @lo and the carry
 * into @hi, a reader sees the count 2^32 too small; a reader on another
 * CPU retries while @hi changes under it. Nothing else is lost.
 */
struct lrb_counter {
	local_t lo;
#if BITS_PER_LONG == 32
	local_t hi;
#endif
};

/**
 * lrb_counter_add() - add to a count, on its CPU
 * @c: the count.
 * @n: what to add.
 */
static __always_inline void lrb_counter_add(struct lrb_counter *c,
					    unsigned long n)
{
#if BITS_PER_LONG == 32
	if (local_add_return(n, &c->lo) < n) {
		/* The wrapped @lo before the carry: lrb_counter_read(). */
		smp_wmb();
		local_inc(&c->hi);
	}
#else
	local_add(n, &c->lo);
#endif
}

/**
 * lrb_counter_read() - read a count, from any CPU
 * @c: the count.
 *
 * Return: the count.
 */
static inline u64 lrb_counter_read(struct lrb_counter *c)
{
#if BITS_PER_LONG == 32
	unsigned long hi, lo;

	do {
		hi = local_read(&c->hi);
		/* A carry seen, its wrapped @lo seen: lrb_counter_add(). */
		smp_rmb();
		lo = local_read(&c->lo);
		/* A carry after @lo is seen below, and @lo read again. */
		smp_rmb();
	} while (local_read(&c->hi) != hi);
	return (u64)hi << 32 | lo;
#else
	return local_read(&c->lo);
#endif
}

/*
 * The layout of what a writer touches: in this header, not in lrb.c, only
 * so that the common case of the write path can be inline in its callers.
 * Private to LRB: nothing but this header and kernel/trace/lrb.c uses it.
 */

/*
 * struct lrb_cc - commit count of one sub-buffer
 * @count: free-running bytes committed into the sub-buffer; on 64-bit, plus
 *	LRB_CC_RECORD per record committed.
 * @base: record mark (lrb_cc_mark()) of the count when the current
 *	generation was opened; written by the writer that opened it.
 * @records: 32-bit only: free-running records committed into it.
 */
struct lrb_cc {
	local_t count;
	unsigned long base;
#if BITS_PER_LONG == 32
	local_t records;
#endif
};

/*
 * struct lrb_wbuf - the write side of one CPU buffer
 * @offset: free-running write position; written by the owning CPU only.
 * @nesting: writers open on the owning CPU.
 * @subbuf_order: log2(subbuf_size).
 * @last_ts: timestamp of a recent record, or on 32-bit its bits above 27
 *	(see lrb_ts_compact()).
 * @subbuf_mask: subbuf_size - 1.
 * @buf_mask: bytes of the CPU buffer - 1.
 * @data: the sub-buffers, contiguous.
 * @cc: per sub-buffer commit counts.
 * @clock: the channel's clock; NULL for local_clock().
 *
 * The first member of a CPU buffer. The channel's geometry and clock are
 * copied here so that a write that fits touches this cache line, its slot
 * and one commit count, and no line of the channel.
 */
struct lrb_wbuf {
	local_t offset;
	int nesting;
	unsigned int subbuf_order;
	unsigned long last_ts;
	unsigned long subbuf_mask;
	unsigned long buf_mask;
	void *data;
	struct lrb_cc *cc;
	u64 (*clock)(void);
};

/*
 * struct lrb_len - where readers find the payload length of an id's records
 * @fixed: 0, or 1 + the length of every record (lrb_set_record_len()).
 * @at: 0, or 1 + where each payload holds its length, less @base
 *	(lrb_set_record_len_at()).
 * @base: see @at.
 *
 * With neither, each record carries its length. Set once.
 */
struct lrb_len {
	u8 fixed;
	u8 at;
	s16 base;
};

/*
 * struct lrb_channel_head - the first member of a channel
 * @wbufs: the write sides of its CPU buffers, indexed by CPU.
 * @lens: by id below LRB_ID_EXTENDED, how readers find the length of its
 *	records.
 */
struct lrb_channel_head {
	struct lrb_wbuf **wbufs;
	struct lrb_len lens[LRB_ID_EXTENDED];
};

/**
 * struct lrb_slot - a reservation, filled in by lrb_reserve()
 * @data: where the payload goes; @len bytes.
 * @len: payload length asked for.
 * @ts: the record's timestamp.
 */
struct lrb_slot {
	void *data;
	size_t len;
	u64 ts;
	/* private: for lrb_commit() */
	struct lrb_wbuf *w;
	/* the sub-buffer whose commit count the commit adds to */
	unsigned long cc_index;
	/* bytes it adds: the slot, and the packet header if it opened it */
	unsigned long commit_size;
	/* saved interrupt state (CONFIG_LRB_SYNC_IRQOFF) */
	unsigned long flags;
};

/**
 * struct lrb_subbuf - a sub-buffer a reader holds
 * @data: start of the sub-buffer (its packet header).
 * @content_size: bytes of header and records.
 * @padded_size: bytes of the packet, as its packet_size says: the content
 *	rounded up to 8 bytes. What a reader copies.
 * @records: number of records in it.
 */
struct lrb_subbuf {
	const void *data;
	size_t content_size;
	size_t padded_size;
	unsigned long records;
	/* private: position of the sub-buffer, 64-bit on every architecture */
	u64 pos;
	/* how its channel's records give their lengths */
	const struct lrb_len *lens;
};

/**
 * struct lrb_record - one record, decoded by lrb_record_next()
 * @id: event id.
 * @len: payload bytes.
 * @ts: full timestamp.
 * @data: payload.
 */
struct lrb_record {
	unsigned int id;
	size_t len;
	u64 ts;
	const void *data;
};

/**
 * struct lrb_record_iter - cursor over the records of a sub-buffer
 *
 * Zero it before the first lrb_record_next().
 */
struct lrb_record_iter {
	/* private: byte offset of the next record */
	size_t offset;
	/* timestamp of the previous record */
	u64 ts;
};

/**
 * struct lrb_dump - cursor over the newest records of a CPU buffer
 *
 * Filled in by lrb_dump_begin(), for lrb_dump_next().
 */
struct lrb_dump {
	/* private: the CPU buffer */
	struct lrb_cpu_buf *buf;
	/* a view of the sub-buffer being read, and the cursor in it */
	struct lrb_subbuf sb;
	struct lrb_record_iter it;
	/* the write position when the dump began */
	unsigned long end;
};

#ifdef CONFIG_LRB

struct lrb_channel *lrb_channel_create(const struct lrb_config *config);
void lrb_channel_destroy(struct lrb_channel *chan);
const struct lrb_config *lrb_channel_config(const struct lrb_channel *chan);
void lrb_stats_read(struct lrb_channel *chan, int cpu, struct lrb_stats *stats);
void lrb_count_lost(struct lrb_channel *chan, enum lrb_lost_cause cause);
int lrb_get_subbuf(struct lrb_channel *chan, int cpu, struct lrb_subbuf *sb);
int lrb_put_subbuf(struct lrb_channel *chan, int cpu, struct lrb_subbuf *sb);
void lrb_unget_subbuf(struct lrb_channel *chan, int cpu,
		      struct lrb_subbuf *sb);
bool lrb_subbuf_ready(struct lrb_channel *chan, int cpu);
int lrb_mmap(struct lrb_channel *chan, int cpu, struct vm_area_struct *vma);
void lrb_flush(struct lrb_channel *chan, int cpu);
bool lrb_cpu_closed(struct lrb_channel *chan, int cpu);
int lrb_switch_timer_set(struct lrb_channel *chan, unsigned int period_us);
int lrb_snapshot(struct lrb_channel *chan, int cpu, u64 *begin, u64 *end);
int lrb_snapshot_get(struct lrb_channel *chan, int cpu, u64 pos,
		     struct lrb_subbuf *sb);
int lrb_snapshot_put(struct lrb_channel *chan, int cpu,
		     const struct lrb_subbuf *sb);
bool lrb_record_next(const struct lrb_subbuf *sb, struct lrb_record_iter *it,
		     struct lrb_record *rec);
int lrb_dump_begin(struct lrb_channel *chan, int cpu, unsigned int max,
		   struct lrb_dump *d);
bool lrb_dump_next(struct lrb_dump *d, struct lrb_record *rec);

int lrb_set_record_len(struct lrb_channel *chan, unsigned int id,
		       size_t len);
int lrb_record_len(const struct lrb_channel *chan, unsigned int id);
int lrb_set_record_len_at(struct lrb_channel *chan, unsigned int id,
			  size_t at, int base);
int lrb_record_len_at(const struct lrb_channel *chan, unsigned int id,
		      int *base);

int __lrb_reserve_slow(struct lrb_wbuf *w, struct lrb_slot *slot,
		       unsigned int id, size_t len, size_t lsize);
int __lrb_reserve_refused(struct lrb_wbuf *w, struct lrb_slot *slot,
			  bool nmi_ok);
void __lrb_deliver(struct lrb_wbuf *w);
void __lrb_prefetch_switch(struct lrb_wbuf *w, unsigned long pos);

/*
 * A write whose slot crosses the point this many bytes before the end of
 * its sub-buffer calls __lrb_prefetch_switch(): once per sub-buffer, some
 * dozens of writes before the switch. Sub-buffers of this size or less
 * never cross it in the common case; they stay in the caches anyway.
 */
#define LRB_PREFETCH_AHEAD	1024

/*
 * The write path's common case, inline: the slot fits in the open
 * sub-buffer without ending it, and the CPU has room for one more nested
 * writer. All else, opening and closing sub-buffers and counting losses,
 * is out of line in kernel/trace/lrb.c.
 */

/* Synchronization primitives of the two variants. */
#ifdef CONFIG_LRB_SYNC_LOCAL

static __always_inline bool lrb_writer_enter(struct lrb_slot *slot)
{
	preempt_disable_notrace();
	return true;
}

static __always_inline void lrb_writer_exit(struct lrb_slot *slot)
{
	preempt_enable_notrace();
}

static __always_inline bool lrb_offset_publish(struct lrb_wbuf *w,
					       unsigned long old,
					       unsigned long new)
{
	return local_cmpxchg(&w->offset, old, new) == old;
}

static __always_inline unsigned long lrb_commit_add(local_t *cc,
						    unsigned long bytes)
{
	return local_add_return(bytes, cc);
}

#else /* CONFIG_LRB_SYNC_IRQOFF */

static __always_inline bool lrb_writer_enter(struct lrb_slot *slot)
{
	local_irq_save(slot->flags);
	return !in_nmi();
}

static __always_inline void lrb_writer_exit(struct lrb_slot *slot)
{
	local_irq_restore(slot->flags);
}

/* Interrupts are off and NMIs do not write: nothing can interleave. */
static __always_inline bool lrb_offset_publish(struct lrb_wbuf *w,
					       unsigned long old,
					       unsigned long new)
{
	local_set(&w->offset, new);
	return true;
}

static __always_inline unsigned long lrb_commit_add(local_t *cc,
						    unsigned long bytes)
{
	unsigned long v = local_read(cc) + bytes;

	local_set(cc, v);
	return v;
}

#endif /* CONFIG_LRB_SYNC_LOCAL */

#if BITS_PER_LONG == 64
/* A record's commit adds 2^32 to the count: the upper half counts records. */
#define LRB_CC_RECORD		BIT(32)

static __always_inline void lrb_cc_count_record(struct lrb_cc *c)
{
}
#else
#define LRB_CC_RECORD		0UL

static __always_inline void lrb_cc_count_record(struct lrb_cc *c)
{
	local_inc(&c->records);
}
#endif

/* The write side of this CPU's buffer: a channel begins with its head. */
static __always_inline struct lrb_wbuf *lrb_this_wbuf(struct lrb_channel *chan)
{
	const struct lrb_channel_head *head = (const void *)chan;

	return head->wbufs[smp_processor_id()];
}

#ifdef CONFIG_HAVE_UNSTABLE_SCHED_CLOCK
/*
 * local_clock() is a traceable function there: a function tracer that
 * records into LRB would record it inside every record it writes.
 */
u64 lrb_local_clock(void);
#else
#define lrb_local_clock local_clock
#endif

static __always_inline u64 lrb_clock(const struct lrb_wbuf *w)
{
	if (w->clock)
		return w->clock();
	return lrb_local_clock();
}

/*
 * Add committed bytes, and the record they end if @record, to a sub-buffer;
 * deliver it when that completes it.
 */
static __always_inline void lrb_commit_bytes(struct lrb_wbuf *w,
					     unsigned long index,
					     unsigned long bytes, bool record)
{
	struct lrb_cc *c = &w->cc[index];
	unsigned long count;

	if (record) {
		lrb_cc_count_record(c);
		bytes += LRB_CC_RECORD;
	}
	/*
	 * LRB-W1: order the record, the packet header fields and, for the
	 * commit that completes the sub-buffer, every earlier commit's
	 * stores of this CPU, before the count. Pairs with LRB-R1 in
	 * lrb_get_subbuf() and LRB-R5 in lrb_snapshot_get().
	 */
	smp_wmb();
	count = lrb_commit_add(&c->count, bytes);
	if (unlikely(!(count & w->subbuf_mask)))
		__lrb_deliver(w);
}

/*
 * The bytes of the length word of a record of @id with @len bytes of
 * payload: none if the channel fixed the length of @id, which must then be
 * @len, or if the payload holds it, which must then fit (-EINVAL
 * otherwise), else LRB_LEN_SIZE.
 */
static __always_inline int lrb_len_size(struct lrb_channel *chan,
					unsigned int id, size_t len)
{
	const struct lrb_channel_head *head = (const void *)chan;
	unsigned int fixed, at;

	if (id >= LRB_ID_EXTENDED)
		return LRB_LEN_SIZE;
	/* The common case, a fixed length, loads one byte. */
	fixed = READ_ONCE(head->lens[id].fixed);
	if (fixed)
		return fixed == len + 1 ? 0 : -EINVAL;
	at = READ_ONCE(head->lens[id].at);
	if (at)
		return len >= at - 1 + sizeof(u32) ? 0 : -EINVAL;
	return LRB_LEN_SIZE;
}

#ifdef CONFIG_64BIT
/*
 * Whether a record at @ts may have a compact header: it comes less than
 * 2^LRB_TS_BITS ns after the previous record, whose bits above
 * LRB_TS_BITS a reader takes, plus one if the low bits went down (the one
 * wrap CTF readers allow). lrb_slot_fill() stores each record's @ts in
 * last_ts after the publish, so last_ts is the timestamp of a record
 * before this one in the buffer, at most the previous one's: a nested
 * writer that stores a later one has published, and the interrupted
 * reservation's cmpxchg fails and reads the clock and last_ts again; one
 * interrupted after its publish stores an older one last. Either way the
 * test overestimates the gap, and errs towards the extended header only.
 */
static __always_inline bool lrb_ts_compact(const struct lrb_wbuf *w, u64 ts)
{
	return !((ts - READ_ONCE(w->last_ts)) >> LRB_TS_BITS);
}

static __always_inline void lrb_ts_save(struct lrb_wbuf *w, u64 ts, bool ext)
{
	WRITE_ONCE(w->last_ts, ts);
}
#else
/*
 * On 32-bit, where a u64 is not stored in one instruction, last_ts keeps
 * the bits above LRB_TS_BITS of the last extended header, up to bit 58,
 * and a compact header serves while they do not change: the compact
 * header of a record that comes 2^59 ns (18 years) after the previous one
 * could take the previous one's.
 */
static __always_inline bool lrb_ts_compact(const struct lrb_wbuf *w, u64 ts)
{
	return (unsigned long)(ts >> LRB_TS_BITS) == READ_ONCE(w->last_ts);
}

static __always_inline void lrb_ts_save(struct lrb_wbuf *w, u64 ts, bool ext)
{
	if (unlikely(ext))
		WRITE_ONCE(w->last_ts, (unsigned long)(ts >> LRB_TS_BITS));
}
#endif

/* The header of a record of @id at @ts: compact if the id and time fit. */
static __always_inline size_t lrb_header_len(const struct lrb_wbuf *w,
					     unsigned int id, u64 ts)
{
	if (likely(id < LRB_ID_EXTENDED && lrb_ts_compact(w, ts)))
		return LRB_HEADER_SIZE;
	return sizeof(struct lrb_record_header_ext);
}

/*
 * The header at @p: @hlen bytes, the length word included when the record
 * has one (the header sizes with and without it are all different).
 */
static __always_inline void lrb_write_header(void *p, unsigned int id,
					     size_t len, u64 ts, size_t hlen)
{
	const size_t ext = sizeof(struct lrb_record_header_ext);

	if (likely(hlen < ext)) {
		put_unaligned(LRB_HEADER(id, ts), (u32 *)p);
	} else {
		struct lrb_record_header_ext *rx = p;

		rx->tag = LRB_HEADER_EXT_TAG;
		rx->id = id;
		rx->ts = ts;
	}
	/* len <= LRB_RECORD_LEN_MAX: the mask only says so to sparse */
	if (hlen == LRB_HEADER_SIZE + LRB_LEN_SIZE || hlen == ext + LRB_LEN_SIZE)
		put_unaligned(len & U16_MAX, (u16 *)(p + hlen - LRB_LEN_SIZE));
}

/*
 * Write the record header of the slot published at @begin and fill in
 * @slot; @commit_size counts what the commit adds: the bytes from the end
 * of the previous slot, or from the start of the sub-buffer the slot
 * opened, to its end.
 */
static __always_inline void lrb_slot_fill(struct lrb_wbuf *w,
					  struct lrb_slot *slot,
					  unsigned int id, size_t len,
					  unsigned long begin, size_t hlen,
					  u64 ts, unsigned long commit_size)
{
	void *p = w->data + (begin & w->buf_mask);

	lrb_ts_save(w, ts, hlen >= sizeof(struct lrb_record_header_ext));
	lrb_write_header(p, id, len, ts, hlen);
	slot->data = p + hlen;
	slot->len = len;
	slot->ts = ts;
	slot->w = w;
	slot->cc_index = (begin & w->buf_mask) >> w->subbuf_order;
	slot->commit_size = commit_size;
}

/**
 * lrb_reserve() - reserve a slot for one record on this CPU
 * @chan: the channel.
 * @slot: filled in; pass it to lrb_write() and lrb_commit().
 * @id: event id, at most LRB_EVENT_ID_MAX.
 * @len: payload bytes.
 *
 * Callable from any context, NMI included (see the table above). On
 * success, preemption (or, with CONFIG_LRB_SYNC_IRQOFF, interrupts) stays
 * disabled until lrb_commit(), which must follow on the same CPU.
 *
 * Return: 0; -EINVAL for a bad id, a length other than the one the
 * channel fixed for @id, or one too short to hold the u32 where the
 * channel said its payload holds its length (not counted); or, with the
 * record counted as lost: -E2BIG when it can never fit in a sub-buffer or
 * @len exceeds LRB_RECORD_LEN_MAX, -ENOSPC when the buffer is full,
 * -EBUSY when writers are nested too deep or (irq-off variant) the caller
 * is an NMI.
 */
static __always_inline int lrb_reserve(struct lrb_channel *chan,
				       struct lrb_slot *slot,
				       unsigned int id, size_t len)
{
	unsigned long old, end;
	struct lrb_wbuf *w;
	int lsize;
	bool nmi_ok;
	size_t hlen;
	u64 ts;

	lsize = lrb_len_size(chan, id, len);
	if (unlikely(id > LRB_EVENT_ID_MAX || lsize < 0))
		return -EINVAL;
	nmi_ok = lrb_writer_enter(slot);
	w = lrb_this_wbuf(chan);
	/* The length check also keeps the size computations from overflowing. */
	if (unlikely(!nmi_ok || READ_ONCE(w->nesting) >= LRB_NESTING_MAX ||
		     len > LRB_RECORD_LEN_MAX))
		return __lrb_reserve_refused(w, slot, nmi_ok);
	/* Only this CPU's writers touch it, each one restoring it. */
	WRITE_ONCE(w->nesting, w->nesting + 1);
	barrier();

	/* One pass: a sub-buffer is open and the slot fits without ending it. */
	old = local_read(&w->offset);
	ts = lrb_clock(w);
	hlen = lrb_header_len(w, id, ts) + lsize;
	end = old + hlen + len;
	if (unlikely(!(old & w->subbuf_mask) || ((old ^ end) & ~w->subbuf_mask) ||
		     !lrb_offset_publish(w, old, end)))
		return __lrb_reserve_slow(w, slot, id, len, lsize);
	/* Near the end of the sub-buffer: get the switch's lines coming. */
	if (unlikely(((old + LRB_PREFETCH_AHEAD) ^ (end + LRB_PREFETCH_AHEAD)) &
		     ~w->subbuf_mask))
		__lrb_prefetch_switch(w, old);
	lrb_slot_fill(w, slot, id, len, old, hlen, ts, end - old);
	return 0;
}

/**
 * lrb_commit() - make a reserved record visible to readers
 * @slot: the reservation, from a successful lrb_reserve() on this CPU.
 *
 * Delivers the sub-buffer when this commit completes it, and re-enables
 * what lrb_reserve() disabled.
 */
static __always_inline void lrb_commit(struct lrb_slot *slot)
{
	struct lrb_wbuf *w = slot->w;

	lrb_commit_bytes(w, slot->cc_index, slot->commit_size, true);
	barrier();
	WRITE_ONCE(w->nesting, w->nesting - 1);
	lrb_writer_exit(slot);
}

/**
 * lrb_write() - copy payload bytes into a reserved slot
 * @slot: the reservation, from a successful lrb_reserve().
 * @offset: byte offset in the payload.
 * @src: bytes to copy.
 * @len: how many; @offset + @len may not exceed the reserved length.
 */
static __always_inline void lrb_write(struct lrb_slot *slot, size_t offset,
				      const void *src, size_t len)
{
	memcpy(slot->data + offset, src, len);
}

/**
 * lrb_write_record() - reserve, write and commit one record
 * @chan: the channel.
 * @id: event id, at most LRB_EVENT_ID_MAX.
 * @src: payload.
 * @len: payload bytes.
 *
 * Return: 0, or the error of lrb_reserve() (the record is counted lost).
 */
static __always_inline int lrb_write_record(struct lrb_channel *chan,
					    unsigned int id, const void *src,
					    size_t len)
{
	/* Filled in by lrb_reserve(): no need for stack auto-init to zero it. */
	struct lrb_slot slot __uninitialized;
	int ret;

	ret = lrb_reserve(chan, &slot, id, len);
	if (ret)
		return ret;
	lrb_write(&slot, 0, src, len);
	lrb_commit(&slot);
	return 0;
}

#endif /* CONFIG_LRB */

#ifdef CONFIG_LRB_TRACE_EVENTS
/* For the probes of the LRB stage of TRACE_EVENT (include/trace/lrb.h). */
void *lrb_trace_event_reserve(void *data, struct lrb_slot *slot, size_t len);
void lrb_trace_event_commit(void *data, void *entry, struct lrb_slot *slot);
#endif

#ifdef CONFIG_LRB_DYNAMIC_EVENTS
/* For the providers of dynamic events (kernel/trace/lrb_trace_events.c). */
struct pt_regs;
struct trace_event_call;

void *lrb_trace_event_get(struct trace_event_call *call, size_t len);
void lrb_trace_event_put(struct trace_event_call *call, void *entry,
			 struct pt_regs *regs);
#endif

#endif /* _LINUX_LRB_H */
