// SPDX-License-Identifier: GPL-2.0
/*
 * LRB: a lockless per-CPU tracing ring buffer.
 *
 * Positions. Each CPU buffer has a free-running write position, offset, in
 * bytes: the sub-buffer of a position is (pos / subbuf_size) % num_subbufs
 * and its generation is pos / (subbuf_size * num_subbufs). The reader has a
 * free-running position too, consumed, always at a sub-buffer start.
 *
 * Commit counts. Each sub-buffer has a free-running count of the bytes
 * committed into it. Every generation of a sub-buffer receives exactly
 * subbuf_size bytes: packet header, records and the padding committed when
 * the sub-buffer is closed. So generation g of sub-buffer i is complete
 * exactly when commit[i] == (g + 1) * subbuf_size, and a commit that leaves
 * the count a multiple of subbuf_size delivers the sub-buffer.
 *
 * Record counts. A record's commit also counts the record: in the upper half
 * of the commit count on 64-bit, in a second counter on 32-bit. The writer
 * that opens a generation notes the count it starts from (struct lrb_cc), so
 * the records of any generation, complete or not, are known without reading
 * them: a writer that takes a sub-buffer from the reader, a reader that
 * takes one, and the statistics all take constant time.
 *
 * Writers (one CPU, nested contexts). A reservation reads offset and the
 * clock, computes its slot and publishes it with local_cmpxchg() on offset;
 * a context that interrupts it and writes makes the cmpxchg fail, and the
 * retry reads the clock again, so slot order is timestamp order. A slot
 * that does not fit closes the sub-buffer (writes its end fields, commits
 * the padding) and opens the next (writes the packet header). The next
 * sub-buffer may be opened only when its previous generation is complete
 * and, in discard mode, consumed; in overwrite mode the writer pushes
 * consumed past it and counts its records as overwritten.
 *
 * Memory ordering. Every barrier is labelled; the pairs are:
 *
 * LRB-W1 (lrb_commit_bytes(), lrb.h: smp_wmb() before the commit count add)
 *	pairs with LRB-R1 (lrb_get_subbuf(): smp_rmb() after the commit count
 *	read). A reader that sees a complete count sees the records and the
 *	packet header fields written before every commit that made it up.
 *
 * LRB-R2 (lrb_put_subbuf(): cmpxchg of consumed, a full barrier) pairs
 *	with LRB-W2 (lrb_next_subbuf_free(): acquire load of consumed). A
 *	writer that sees a sub-buffer released has the reader's loads of it
 *	ordered before its own stores into it.
 *
 * LRB-W3 (lrb_push_reader(): cmpxchg of consumed, a full barrier, before
 *	the writer stores into the reused sub-buffer) pairs with LRB-R2. A
 *	reader whose loads of a sub-buffer saw any store of the writer that
 *	reused it fails its cmpxchg of consumed and reports -EIO.
 *
 * LRB-R3 (lrb_get_subbuf(): smp_rmb() after reading a sub-buffer's header
 *	and record count, before reading consumed again) pairs with LRB-W3.
 *	A reader that found them wrong because a writer was reusing the
 *	sub-buffer sees consumed moved, and takes the next one instead of
 *	reporting corruption.
 *
 * LRB-W4 (lrb_mark_opened(): smp_mb() after raising opened, before any
 *	store into the sub-buffer being opened) pairs with LRB-R4
 *	(lrb_snapshot_stale(): smp_rmb() before reading opened). A snapshot
 *	reader whose loads of a sub-buffer saw a store of its next generation
 *	sees opened past it, and drops what it read.
 *
 * LRB-R5 (lrb_snapshot_get(): smp_rmb() after the commit count read) pairs
 *	with LRB-W1, as LRB-R1 does, for a snapshot reader.
 *
 * LRB-R6 (lrb_snapshot(): smp_rmb() between reading consumed and offset)
 *	pairs with LRB-W3: a snapshot window never ends before it begins.
 *
 * Snapshots. In overwrite mode a reader may also read sub-buffers without
 * consuming them: lrb_snapshot() flushes the CPU and records the window of
 * complete sub-buffers, lrb_snapshot_get() takes one at a position of that
 * window if it is still complete and not reused, and lrb_snapshot_put()
 * tells whether what was read meanwhile is valid. Writers reuse
 * sub-buffers without asking such readers; before opening a sub-buffer
 * they raise opened (LRB-W4), so a snapshot reader detects the reuse.
 *
 * With CONFIG_LRB_SYNC_IRQOFF the same protocol runs with interrupts off
 * from reserve to commit, so the cmpxchg cannot fail and the commit add
 * needs no atomicity; plain local_read()/local_set() replace them.
 */

#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/log2.h>
#include <linux/lrb.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/prefetch.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/sched/clock.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <asm/local.h>
#include <asm/shmparam.h>

#if BITS_PER_LONG == 64
/*
 * A generation adds subbuf_size bytes, far below 2^32: the upper half of the
 * count counts records, and the bytes below never carry into it within one
 * generation.
 */
#define LRB_CC_BYTES_MASK	((unsigned long)U32_MAX)

/* A mark of the records committed into @c, from a read of its count. */
static __always_inline unsigned long lrb_cc_mark(struct lrb_cc *c,
						 unsigned long count)
{
	return count;
}

/* Records committed between two marks of one generation. */
static __always_inline unsigned long lrb_cc_records(unsigned long from,
						    unsigned long to)
{
	return (to - from) >> 32;
}
#else
#define LRB_CC_BYTES_MASK	ULONG_MAX

static __always_inline unsigned long lrb_cc_mark(struct lrb_cc *c,
						 unsigned long count)
{
	return local_read(&c->records);
}

static __always_inline unsigned long lrb_cc_records(unsigned long from,
						    unsigned long to)
{
	return to - from;
}
#endif

/**
 * struct lrb_cpu_buf - the buffer of one CPU
 * @w: the write side, laid out in lrb.h for the inline write path.
 * @lost: records lost, by &enum lrb_lost_cause; 64-bit on every
 *	architecture, so no count wraps, and NMI-safe.
 * @replaced: records of the sub-buffer generations that later ones
 *	replaced; with those of the current generations (struct lrb_cc),
 *	the records committed so far.
 * @discarded_closed: events_discarded of a recently closed packet. On
 *	32-bit a reader may see it torn, which at worst writes one empty
 *	packet that reports no new loss.
 * @opened: overwrite mode: start of the newest sub-buffer a writer opened
 *	or is about to open; written by the owning CPU only.
 * @consumed: free-running reader position (a sub-buffer start).
 * @reader_lock: serializes readers of this buffer.
 * @held: a reader holds the sub-buffer at @held_pos.
 * @held_pos: position of the held sub-buffer.
 * @delivered: records put back by readers.
 * @subbufs_delivered: sub-buffers put back by readers.
 * @subbufs_corrupt: sub-buffers readers found corrupt and skipped.
 * @closed: the CPU is dead and its last sub-buffer closed
 *	(lrb_cpu_closed()).
 * @chan: the channel.
 * @cpu: the owning CPU.
 * @wakeup_work: runs the wakeup after a delivery, off the write path.
 * @switch_timer: closes an old open sub-buffer (lrb_switch_timer_set()).
 * @switch_on: @switch_timer may re-arm itself.
 */
struct lrb_cpu_buf {
	struct lrb_wbuf w ____cacheline_aligned;
	struct lrb_counter lost[LRB_LOST_NR];
	struct lrb_counter replaced;
	u64 discarded_closed;
	local_t opened;

	atomic_long_t consumed ____cacheline_aligned;
	raw_spinlock_t reader_lock;
	bool held;
	u64 held_pos;
	u64 delivered;
	u64 subbufs_delivered;
	u64 subbufs_corrupt;
	bool closed;

	struct lrb_channel *chan ____cacheline_aligned;
	int cpu;
	struct irq_work wakeup_work;
	struct timer_list switch_timer;
	bool switch_on;
};

/**
 * struct lrb_channel - a set of per-CPU buffers
 * @head: what the inline write path reads of it (lrb.h); the first member.
 * @config: the configuration it was created with.
 * @subbuf_order: log2(subbuf_size).
 * @subbuf_mask: subbuf_size - 1.
 * @buf_order: log2(subbuf_size * num_subbufs).
 * @buf_mask: subbuf_size * num_subbufs - 1.
 * @cc_mask: bits of a commit count compared to find completion.
 * @bufs: the CPU buffers, indexed by CPU.
 * @node: instance of the CPU hotplug state.
 * @online_node: instance of the CPU online state (switch timers).
 * @switch_period: switch timer period in ns, 0 when off.
 */
struct lrb_channel {
	struct lrb_channel_head head;
	struct lrb_config config;
	unsigned int subbuf_order;
	unsigned long subbuf_mask;
	unsigned int buf_order;
	unsigned long buf_mask;
	unsigned long cc_mask;
	struct lrb_cpu_buf **bufs;
	struct hlist_node node;
	struct hlist_node online_node;
	u64 switch_period;
};

/* lrb.h's inline write path takes a channel pointer for its head. */
static_assert(offsetof(struct lrb_channel, head) == 0);

static struct lrb_cpu_buf *lrb_cpu_buf(struct lrb_channel *chan, int cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !chan->bufs[cpu])
		return NULL;
	return chan->bufs[cpu];
}

/*
 * Records committed into @buf so far, in constant time per sub-buffer:
 * exact while its writers are quiet, about right while they run.
 */
static u64 lrb_committed(struct lrb_cpu_buf *buf)
{
	u64 n = lrb_counter_read(&buf->replaced);
	unsigned int i;

	for (i = 0; i < buf->chan->config.num_subbufs; i++) {
		struct lrb_cc *c = &buf->w.cc[i];

		n += lrb_cc_records(READ_ONCE(c->base),
				    lrb_cc_mark(c, local_read(&c->count)));
	}
	return n;
}

#define LRB_PHDR_SIZE	sizeof(struct lrb_packet_header)

/* The trace format is user-space ABI: one layout on every architecture. */
static_assert(sizeof(struct lrb_packet_header) == 72);
static_assert(sizeof(struct lrb_record_header_ext) == 13);
static_assert(LRB_HEADER_SIZE + LRB_LEN_SIZE <
	      sizeof(struct lrb_record_header_ext));
static_assert(LRB_ID_EXTENDED == (1 << LRB_ID_BITS) - 1);

/* Sub-buffers lrb_get_subbuf() tries before it gives up for the call. */
#define LRB_GET_TRIES	8

static enum cpuhp_state lrb_cpuhp_online;

static __always_inline unsigned long lrb_subbuf_index(const struct lrb_channel *chan,
						      unsigned long pos)
{
	return (pos & chan->buf_mask) >> chan->subbuf_order;
}

static __always_inline void *lrb_pos_addr(const struct lrb_cpu_buf *buf,
					  unsigned long pos)
{
	return buf->w.data + (pos & buf->w.buf_mask);
}

/* Is the generation of sub-buffer that holds @pos fully committed? */
static bool lrb_commit_done(const struct lrb_channel *chan, unsigned long cc,
			    unsigned long pos)
{
	unsigned long full = ((pos >> chan->buf_order) + 1) << chan->subbuf_order;

	return ((cc - full) & chan->cc_mask) == 0;
}

/*
 * Do header fields read from the sub-buffer at @pos describe it? @seq is
 * its 64-bit position over the sub-buffer size (lrb_seq_num()).
 */
static bool lrb_header_ok(const struct lrb_channel *chan, unsigned long pos,
			  u32 magic, u64 seq, size_t content)
{
	return magic == LRB_PACKET_MAGIC &&
	       (unsigned long)(seq << chan->subbuf_order) == pos &&
	       !(seq >> (64 - chan->subbuf_order)) &&
	       content >= LRB_PHDR_SIZE && content <= chan->config.subbuf_size;
}

/*
 * Can @records records make up @content bytes (header-checked)? Each takes
 * at least a compact header, and there is one unless the packet is empty.
 */
static bool lrb_records_ok(size_t content, unsigned long records)
{
	return records <= (content - LRB_PHDR_SIZE) / LRB_HEADER_SIZE &&
	       !records == (content == LRB_PHDR_SIZE);
}

static void lrb_lost(struct lrb_cpu_buf *buf, enum lrb_lost_cause cause)
{
	lrb_counter_add(&buf->lost[cause], 1);
}

static u64 lrb_lost_discarded(struct lrb_cpu_buf *buf)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < LRB_LOST_NR; i++)
		if (i != LRB_LOST_OVERWRITTEN)
			sum += lrb_counter_read(&buf->lost[i]);
	return sum;
}

/* A record header as read from a sub-buffer. */
struct lrb_rec_view {
	unsigned int id;
	u32 len;
	size_t hlen;
	bool ext;
	u64 ts;		/* full if ext, else the low LRB_TS_BITS */
};

/*
 * The payload length of the record at @p, whose header @v holds and which
 * has @room bytes to the end of the content, by the rule of @lens for its
 * id; false if it is malformed. A length word is added to v->hlen.
 */
static bool lrb_record_parse_len(const void *p, size_t room,
				 const struct lrb_len *lens,
				 struct lrb_rec_view *v)
{
	unsigned int fixed = 0, at = 0;
	u32 loc;
	s32 len;

	if (v->id < LRB_ID_EXTENDED) {
		fixed = READ_ONCE(lens[v->id].fixed);
		at = READ_ONCE(lens[v->id].at);
	}
	if (fixed) {
		v->len = fixed - 1;
	} else if (at) {
		/* The payload holds a u32 at byte at - 1: its halves, less base */
		if (room - v->hlen < at - 1 + sizeof(loc))
			return false;
		loc = get_unaligned((const u32 *)(p + v->hlen + at - 1));
		len = (s32)((loc & 0xffff) + (loc >> 16)) -
		      READ_ONCE(lens[v->id].base);
		if (len < (s32)(at - 1 + sizeof(loc)))
			return false;
		v->len = len;
	} else {
		if (room - v->hlen < LRB_LEN_SIZE)
			return false;
		v->len = get_unaligned((const u16 *)(p + v->hlen));
		v->hlen += LRB_LEN_SIZE;
	}
	return v->len <= room - v->hlen;
}

/*
 * Decode the record at @off of a sub-buffer whose records end at @content
 * (@off < @content), with the length rules @lens of its channel. Each
 * byte is read once, and nothing may cross @content: in overwrite mode
 * the bytes may be changing under a reader. Returns the record's size,
 * header and payload, or 0 if it is malformed.
 */
static size_t lrb_record_parse(const void *sub, size_t off, size_t content,
			       const struct lrb_len *lens,
			       struct lrb_rec_view *v)
{
	const struct lrb_record_header_ext *rx = sub + off;
	size_t room = content - off;
	u32 word;

	if (room < LRB_HEADER_SIZE)
		return 0;
	word = get_unaligned((const u32 *)(sub + off));
	v->id = LRB_HEADER_ID(word);
	v->ext = v->id == LRB_ID_EXTENDED;
	v->hlen = LRB_HEADER_SIZE;
	v->ts = LRB_HEADER_TS(word);
	if (v->ext) {
		v->hlen = sizeof(*rx);
		if (room < v->hlen)
			return 0;
		v->id = get_unaligned(&rx->id);
		v->ts = get_unaligned(&rx->ts);
	}
	if (!lrb_record_parse_len(sub + off, room, lens, v))
		return 0;
	return v->hlen + v->len;
}

static void lrb_wakeup_work(struct irq_work *work)
{
	struct lrb_cpu_buf *buf = container_of(work, struct lrb_cpu_buf,
					       wakeup_work);
	struct lrb_channel *chan = buf->chan;

	if (chan->config.wakeup)
		chan->config.wakeup(chan, buf->cpu, chan->config.priv);
}

#ifdef CONFIG_HAVE_UNSTABLE_SCHED_CLOCK
/**
 * lrb_local_clock() - local_clock(), but not traceable
 *
 * kernel/trace/ is built without the function tracer's instrumentation,
 * and local_clock_noinstr() is noinstr.
 *
 * Return: local_clock().
 */
u64 lrb_local_clock(void)
{
	u64 now;

	preempt_disable_notrace();
	now = local_clock_noinstr();
	preempt_enable_notrace();
	return now;
}
EXPORT_SYMBOL_GPL(lrb_local_clock);
#endif

/**
 * __lrb_deliver() - wake the readers of a sub-buffer a commit completed
 * @w: the write side of the CPU buffer.
 *
 * For lrb_commit() in lrb.h: the wakeup runs from irq_work, never from
 * the write path.
 */
void __lrb_deliver(struct lrb_wbuf *w)
{
	irq_work_queue(&container_of(w, struct lrb_cpu_buf, w)->wakeup_work);
}
EXPORT_SYMBOL_GPL(__lrb_deliver);

/*
 * The bytes of the packet in a sub-buffer with @content bytes of header
 * and records, as its packet_size says: the content rounded up to 8
 * bytes. Readers copy that much, so a trace file holds at most 7 bytes of
 * padding per packet (LTTng's consumers write up to a page), and every
 * packet of a stream file begins 8-aligned, as its header's u64 fields
 * want. The sub-buffer size, a power of two of at least
 * LRB_SUBBUF_SIZE_MIN, bounds the result.
 */
static size_t lrb_packet_size(size_t content)
{
	return ALIGN(content, sizeof(u64));
}

/*
 * Write the end fields of the sub-buffer that holds @pos. @discarded was
 * read before the closer published its position: a closer nested after
 * that publish, which may close the next sub-buffer first, reads it later
 * and so never reports less, and events_discarded never decreases from a
 * packet to the next.
 */
static void lrb_close_fields(struct lrb_cpu_buf *buf, unsigned long pos,
			     size_t content, u64 ts, u64 discarded)
{
	struct lrb_packet_header *ph;

	ph = lrb_pos_addr(buf, pos & ~buf->chan->subbuf_mask);
	ph->timestamp_end = ts;
	ph->content_size = (u64)content * BITS_PER_BYTE;
	ph->packet_size = (u64)lrb_packet_size(content) *
			  BITS_PER_BYTE;
	ph->events_discarded = discarded;
	WRITE_ONCE(buf->discarded_closed, ph->events_discarded);
}

/* Close the sub-buffer holding @old (not at a boundary): pad and commit. */
static void lrb_switch_out(struct lrb_cpu_buf *buf, unsigned long old, u64 ts,
			   u64 discarded)
{
	struct lrb_channel *chan = buf->chan;
	size_t content = old & chan->subbuf_mask;

	lrb_close_fields(buf, old, content, ts, discarded);
	lrb_commit_bytes(&buf->w, lrb_subbuf_index(chan, old),
			 chan->config.subbuf_size - content, false);
}

/*
 * packet_seq_num of the sub-buffer opening at @start, whose header is @ph:
 * its position over the sub-buffer size, in 64 bits, while unsigned long
 * positions wrap every 4 GiB on 32-bit. The previous generation's header,
 * still in @ph, holds the bits above: this CPU wrote it before committing
 * that generation, which had to complete before this one could open
 * (lrb_next_subbuf_free()). A first generation finds zeroed memory.
 */
static u64 lrb_seq_num(const struct lrb_cpu_buf *buf,
		       const struct lrb_packet_header *ph, unsigned long start)
{
	const struct lrb_channel *chan = buf->chan;
	u64 prev = (ph->packet_seq_num << chan->subbuf_order) +
		   chan->buf_mask + 1;

	if (ph->magic == LRB_PACKET_MAGIC && (unsigned long)prev == start)
		return prev >> chan->subbuf_order;
	return start >> chan->subbuf_order;
}

/*
 * Write the begin fields of the packet header of the sub-buffer starting at
 * @start. The end fields belong to whoever closes it, possibly a nested
 * writer that ran before this: leave them alone.
 */
static void lrb_switch_in(struct lrb_cpu_buf *buf, unsigned long start, u64 ts)
{
	struct lrb_packet_header *ph = lrb_pos_addr(buf, start);
	u64 seq = lrb_seq_num(buf, ph, start);

	ph->magic = LRB_PACKET_MAGIC;
	ph->stream_id = 0;
	ph->stream_instance_id = buf->cpu;
	ph->timestamp_begin = ts;
	ph->packet_seq_num = seq;
	ph->cpu_id = buf->cpu;
	ph->reserved = 0;
}

/*
 * Overwrite mode: take the oldest sub-buffer from the reader, counting its
 * @records records as overwritten. Returns false when consumed moved
 * meanwhile (the reader put it back, or a nested writer pushed it): the
 * caller retries.
 */
static bool lrb_push_reader(struct lrb_cpu_buf *buf, unsigned long consumed,
			    unsigned long records)
{
	/*
	 * LRB-W3: full barrier; our stores into the reused sub-buffer come
	 * after it. Pairs with LRB-R2 in lrb_put_subbuf() and LRB-R3 in
	 * lrb_get_subbuf(). If the reader put the sub-buffer back first,
	 * its records were delivered and this cmpxchg fails. Also pairs
	 * with LRB-R6 in lrb_snapshot(): consumed before the offset.
	 */
	if (atomic_long_cmpxchg(&buf->consumed, consumed,
				consumed + buf->chan->config.subbuf_size) !=
	    consumed)
		return false;
	lrb_counter_add(&buf->lost[LRB_LOST_OVERWRITTEN], records);
	return true;
}

/*
 * Overwrite mode: a writer may open the sub-buffer at @start, whose
 * previous generation a snapshot reader may be reading. Raise opened to
 * @start before any store into it; nested writers race to raise it, so
 * only ever raise it. A writer whose publish then fails leaves it raised:
 * the reader drops a sub-buffer that is about to be reused anyway.
 */
static void lrb_mark_opened(struct lrb_cpu_buf *buf, unsigned long start)
{
	unsigned long old = local_read(&buf->opened), prev;

	while ((long)(start - old) > 0) {
		prev = local_cmpxchg(&buf->opened, old, start);
		if (prev == old)
			break;
		old = prev;
	}
	/*
	 * LRB-W4: opened before the stores into the sub-buffer, ours and
	 * those of the writers nested after this point. Pairs with LRB-R4 in
	 * lrb_snapshot_stale().
	 */
	smp_mb();
}

/*
 * May the sub-buffer starting at @start be opened? 0 if so, with @mark set
 * for lrb_gen_open(); -ENOSPC when it is full (discard mode, or @may_push
 * false) or still has a pending commit, -EAGAIN when the caller must
 * recompute: the reader position moved, or @start was computed from an
 * offset that nested writers have since moved far on.
 */
static int lrb_next_subbuf_free(struct lrb_cpu_buf *buf, unsigned long start,
				bool may_push, unsigned long *mark)
{
	struct lrb_channel *chan = buf->chan;
	struct lrb_cc *c = &buf->w.cc[lrb_subbuf_index(chan, start)];
	unsigned long size = chan->buf_mask + 1;
	unsigned long consumed, count;
	long ahead;

	/* Its previous generation must be fully committed. */
	count = local_read(&c->count);
	if (!lrb_commit_done(chan, count, start - size))
		return -ENOSPC;
	/* Complete: no commit comes into it before the next is opened. */
	*mark = lrb_cc_mark(c, count);

	/* LRB-W2: pairs with LRB-R2 in lrb_put_subbuf(). */
	consumed = atomic_long_read_acquire(&buf->consumed);
	ahead = (long)(start - consumed);
	/*
	 * The reader is past @start: interrupts wrote (and the reader read)
	 * more than a whole buffer since our offset was read. Pushing now
	 * would take a sub-buffer that is not the one to reuse.
	 */
	if (ahead < 0)
		return -EAGAIN;
	if (ahead >= (long)size) {
		if (chan->config.mode == LRB_MODE_DISCARD || !may_push)
			return -ENOSPC;
		/* The reader's sub-buffer is the generation just completed. */
		if (!lrb_push_reader(buf, consumed,
				     lrb_cc_records(READ_ONCE(c->base), *mark)))
			return -EAGAIN;
	}
	if (chan->config.mode == LRB_MODE_OVERWRITE)
		lrb_mark_opened(buf, start);
	return 0;
}

/*
 * The writer whose publish opened the sub-buffer at @start notes where the
 * records of the new generation begin, @mark from lrb_next_subbuf_free(),
 * and adds those of the generation it replaces to @replaced. Only it opens
 * this generation, and the next cannot be opened before it commits, so no
 * other writer stores @base meanwhile; its commit (LRB-W1) orders the store
 * before any reader's load of @base (LRB-R1).
 */
static void lrb_gen_open(struct lrb_cpu_buf *buf, unsigned long start,
			 unsigned long mark)
{
	struct lrb_cc *c = &buf->w.cc[lrb_subbuf_index(buf->chan, start)];

	lrb_counter_add(&buf->replaced, lrb_cc_records(c->base, mark));
	WRITE_ONCE(c->base, mark);
}

/* Reservation state computed by one pass of the reserve loop. */
struct lrb_pos {
	unsigned long old;
	unsigned long begin;
	unsigned long end;
	unsigned long mark;
	size_t hlen;
	u64 ts;
	u64 discarded;
	bool switch_out;
	bool switch_in;
	bool closes;
};

/*
 * The slot does not fit in the current sub-buffer, or none is open:
 * move to the next one. Returns 0 with @p updated, or a negative error
 * (-EAGAIN: recompute).
 */
static int lrb_reserve_switch(struct lrb_cpu_buf *buf, struct lrb_pos *p,
			      size_t size)
{
	struct lrb_channel *chan = buf->chan;
	unsigned long start;
	int ret;

	if (size > chan->config.subbuf_size - LRB_PHDR_SIZE)
		return -E2BIG;
	p->switch_out = (p->old & chan->subbuf_mask) != 0;
	start = ALIGN(p->old, chan->config.subbuf_size);
	ret = lrb_next_subbuf_free(buf, start, true, &p->mark);
	/* A refusal computed from a stale offset is no refusal: retry. */
	if (ret == -ENOSPC && local_read(&buf->w.offset) != p->old)
		return -EAGAIN;
	if (ret)
		return ret;
	p->switch_in = true;
	p->begin = start + LRB_PHDR_SIZE;
	p->end = p->begin + size;
	return 0;
}

/**
 * lrb_set_record_len() - fix the payload length of an event's records
 * @chan: the channel.
 * @id: event id, below LRB_ID_EXTENDED (the ids of compact headers).
 * @len: payload bytes of every record of @id, at most U8_MAX - 1.
 *
 * From now on, for the channel's life, the records of @id have @len bytes
 * of payload and no length word: 2 bytes less each. Call it before the
 * first record of @id, and not at once with another call for @id: a
 * reader applies the length to every record of @id. lrb_reserve() refuses
 * another length for @id.
 *
 * Return: 0 (@id had no fixed length, or had @len); -EINVAL if @id or @len
 * is out of range or @id has another fixed length, or its payload holds
 * its length.
 */
int lrb_set_record_len(struct lrb_channel *chan, unsigned int id,
		       size_t len)
{
	struct lrb_len *l;

	if (id >= LRB_ID_EXTENDED || len >= U8_MAX)
		return -EINVAL;
	l = &chan->head.lens[id];
	if (!l->fixed && !l->at)
		WRITE_ONCE(l->fixed, len + 1);
	return l->fixed == len + 1 ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(lrb_set_record_len);

/**
 * lrb_set_record_len_at() - let the payload of an event's records hold
 *	their length
 * @chan: the channel.
 * @id: event id, below LRB_ID_EXTENDED (the ids of compact headers).
 * @at: byte of the payload where a u32 holds the length, at most
 *	U8_MAX - 1.
 * @base: what to take from the sum of that u32's two 16-bit halves to get
 *	the payload length, from S16_MIN to S16_MAX.
 *
 * From now on, for the channel's life, every record of @id has at byte
 * @at of its payload a u32 whose halves add up to its length plus @base,
 * and no length word: 2 bytes less each. ftrace's entries have one: the
 * __data_loc word of their last dynamic field, whose offset and length
 * say where the entry ends. The writers of @id's records must keep that
 * true (lrb_reserve() checks only that the u32 fits), and a reader trusts
 * it: a length that leaves the sub-buffer's content makes it stop there.
 * Call it before the first record of @id, as lrb_set_record_len().
 *
 * Return: 0 (@id had no rule, or this one); -EINVAL if an argument is out
 * of range or @id has another rule.
 */
int lrb_set_record_len_at(struct lrb_channel *chan, unsigned int id,
			  size_t at, int base)
{
	struct lrb_len *l;

	if (id >= LRB_ID_EXTENDED || at >= U8_MAX || base < S16_MIN ||
	    base > S16_MAX)
		return -EINVAL;
	l = &chan->head.lens[id];
	if (!l->fixed && !l->at) {
		WRITE_ONCE(l->base, base);
		WRITE_ONCE(l->at, at + 1);
	}
	return l->at == at + 1 && l->base == base ? 0 : -EINVAL;
}
EXPORT_SYMBOL_GPL(lrb_set_record_len_at);

/**
 * lrb_record_len() - the fixed payload length of an event's records
 * @chan: the channel.
 * @id: event id.
 *
 * Return: what lrb_set_record_len() fixed for @id, or -1 when the records
 * of @id carry their length.
 */
int lrb_record_len(const struct lrb_channel *chan, unsigned int id)
{
	if (id >= LRB_ID_EXTENDED)
		return -1;
	return (int)READ_ONCE(chan->head.lens[id].fixed) - 1;
}
EXPORT_SYMBOL_GPL(lrb_record_len);

/**
 * lrb_record_len_at() - where the payload of an event's records holds
 *	their length
 * @chan: the channel.
 * @id: event id.
 * @base: set to what lrb_set_record_len_at() gave, if it did.
 *
 * Return: the byte lrb_set_record_len_at() gave for @id, or -1.
 */
int lrb_record_len_at(const struct lrb_channel *chan, unsigned int id,
		      int *base)
{
	int at;

	if (id >= LRB_ID_EXTENDED)
		return -1;
	at = READ_ONCE(chan->head.lens[id].at);
	if (at)
		*base = READ_ONCE(chan->head.lens[id].base);
	return at - 1;
}
EXPORT_SYMBOL_GPL(lrb_record_len_at);

/**
 * __lrb_reserve_slow() - all of lrb_reserve() but its common case
 * @w: the write side of this CPU's buffer.
 * @slot: filled in, as by lrb_reserve().
 * @id: event id, at most LRB_EVENT_ID_MAX.
 * @len: payload bytes, at most LRB_RECORD_LEN_MAX.
 * @lsize: bytes of the record's length word, 0 or LRB_LEN_SIZE.
 *
 * Called by lrb_reserve() (lrb.h) with the nesting count raised when the
 * slot opens, ends or does not fit in a sub-buffer, or a nested writer
 * moved the offset. Starts over, the clock included.
 *
 * Return: as lrb_reserve().
 */
int __lrb_reserve_slow(struct lrb_wbuf *w, struct lrb_slot *slot,
		       unsigned int id, size_t len, size_t lsize)
{
	struct lrb_cpu_buf *buf = container_of(w, struct lrb_cpu_buf, w);
	struct lrb_channel *chan = buf->chan;
	struct lrb_pos p;
	size_t size;
	int ret;

	for (;;) {
		p.old = local_read(&w->offset);
		p.ts = lrb_clock(w);
		p.hlen = lrb_header_len(w, id, p.ts) + lsize;
		size = p.hlen + len;
		p.begin = p.old;
		p.end = p.begin + size;
		p.switch_out = false;
		p.switch_in = false;
		if (!(p.old & chan->subbuf_mask) ||
		    (p.old & chan->subbuf_mask) + (p.end - p.old) >
		    chan->config.subbuf_size) {
			ret = lrb_reserve_switch(buf, &p, size);
			if (ret == -EAGAIN)
				continue;
			if (ret)
				goto lost;
		}
		/* A slot that ends the sub-buffer exactly closes it. */
		p.closes = !(p.end & chan->subbuf_mask);
		/* Closing a sub-buffer: its losses, read before the publish. */
		if (p.switch_out || p.closes)
			p.discarded = lrb_lost_discarded(buf);
		if (lrb_offset_publish(w, p.old, p.end))
			break;
	}

	if (p.switch_out)
		lrb_switch_out(buf, p.old, p.ts, p.discarded);
	if (p.switch_in) {
		lrb_gen_open(buf, p.begin - LRB_PHDR_SIZE, p.mark);
		lrb_switch_in(buf, p.begin - LRB_PHDR_SIZE, p.ts);
	}
	if (p.closes)
		lrb_close_fields(buf, p.begin, chan->config.subbuf_size, p.ts,
				 p.discarded);
	lrb_slot_fill(w, slot, id, len, p.begin, p.hlen, p.ts,
		      p.end - (p.switch_in ? p.begin - LRB_PHDR_SIZE : p.old));
	return 0;

lost:
	lrb_lost(buf, ret == -E2BIG ? LRB_LOST_TOO_BIG : LRB_LOST_FULL);
	barrier();
	WRITE_ONCE(w->nesting, w->nesting - 1);
	lrb_writer_exit(slot);
	return ret;
}
EXPORT_SYMBOL_GPL(__lrb_reserve_slow);

/**
 * __lrb_prefetch_switch() - start loading what the coming switch touches
 * @w: the write side of this CPU's buffer.
 * @pos: the write offset, less than LRB_PREFETCH_AHEAD bytes before the
 *	end of the open sub-buffer.
 *
 * Called by lrb_reserve() (lrb.h) once per sub-buffer. The switch out of
 * it reads and writes lines that no write since the previous switch
 * touched: the header of the packet it closes, the next sub-buffer's
 * header and commit count, the loss counters, the reader position and the
 * channel. After a big sub-buffer's worth of stores they have left the
 * caches, and the switch would wait for them one after another inside a
 * single write. Only hints, and one load of a pointer that never changes:
 * callable wherever lrb_reserve() is, NMI included.
 */
void __lrb_prefetch_switch(struct lrb_wbuf *w, unsigned long pos)
{
	struct lrb_cpu_buf *buf = container_of(w, struct lrb_cpu_buf, w);
	unsigned long next = (pos | w->subbuf_mask) + 1;

	prefetchw(w->data + (pos & w->buf_mask & ~w->subbuf_mask));
	prefetchw(w->data + (next & w->buf_mask));
	prefetchw(&w->cc[(next & w->buf_mask) >> w->subbuf_order]);
	prefetchw(buf->lost);
	prefetchw(&buf->consumed);
	prefetch(buf->chan);
}
EXPORT_SYMBOL_GPL(__lrb_prefetch_switch);

/**
 * __lrb_reserve_refused() - count a record refused before any reservation
 * @w: the write side of this CPU's buffer.
 * @slot: the slot lrb_writer_enter() was given; its effect is undone.
 * @nmi_ok: what lrb_writer_enter() returned.
 *
 * Return: as lrb_reserve().
 */
int __lrb_reserve_refused(struct lrb_wbuf *w, struct lrb_slot *slot,
			  bool nmi_ok)
{
	struct lrb_cpu_buf *buf = container_of(w, struct lrb_cpu_buf, w);
	enum lrb_lost_cause cause = LRB_LOST_TOO_BIG;
	int err = -E2BIG;

	if (!nmi_ok) {
		cause = LRB_LOST_NMI;
		err = -EBUSY;
	} else if (READ_ONCE(w->nesting) >= LRB_NESTING_MAX) {
		cause = LRB_LOST_NESTED;
		err = -EBUSY;
	}
	lrb_lost(buf, cause);
	lrb_writer_exit(slot);
	return err;
}
EXPORT_SYMBOL_GPL(__lrb_reserve_refused);

/**
 * lrb_count_lost() - count a record its writer dropped before reserving it
 * @chan: the channel.
 * @cause: why, as lrb_reserve() would have said.
 *
 * For a writer that stages its record outside the channel first (a trace
 * event with a filter) and cannot: the record is counted on this CPU's
 * buffer as a refusal of lrb_reserve() is. Callable wherever lrb_reserve()
 * is, from the CPU the record was for.
 */
void lrb_count_lost(struct lrb_channel *chan, enum lrb_lost_cause cause)
{
	lrb_lost(container_of(lrb_this_wbuf(chan), struct lrb_cpu_buf, w),
		 cause);
}
EXPORT_SYMBOL_GPL(lrb_count_lost);

/**
 * lrb_stats_read() - read the counters of one CPU buffer
 * @chan: the channel.
 * @cpu: the CPU.
 * @stats: filled in; zeroed for a bad CPU.
 */
void lrb_stats_read(struct lrb_channel *chan, int cpu, struct lrb_stats *stats)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long flags;
	int i;

	memset(stats, 0, sizeof(*stats));
	if (!buf)
		return;
	stats->written = lrb_committed(buf);
	for (i = 0; i < LRB_LOST_NR; i++) {
		stats->lost[i] = lrb_counter_read(&buf->lost[i]);
		/* Overwritten records were committed: counted once. */
		if (i != LRB_LOST_OVERWRITTEN)
			stats->written += stats->lost[i];
	}
	raw_spin_lock_irqsave(&buf->reader_lock, flags);
	stats->delivered = buf->delivered;
	stats->subbufs_delivered = buf->subbufs_delivered;
	stats->subbufs_corrupt = buf->subbufs_corrupt;
	raw_spin_unlock_irqrestore(&buf->reader_lock, flags);
}
EXPORT_SYMBOL_GPL(lrb_stats_read);

/*
 * With no sub-buffer open, records lost since the last packet was closed
 * would be reported by no packet if writing stopped now: open and close an
 * empty one at @old to carry the count. Only into free space: never take
 * a sub-buffer from the reader for it. Returns 0 with the packet published,
 * -ENOSPC if there is nothing to report or no room, -EAGAIN to recompute.
 */
static int lrb_switch_empty(struct lrb_cpu_buf *buf, unsigned long old,
			    u64 ts)
{
	struct lrb_channel *chan = buf->chan;
	u64 discarded = lrb_lost_discarded(buf);
	unsigned long mark;
	int ret;

	if (discarded == READ_ONCE(buf->discarded_closed))
		return -ENOSPC;
	ret = lrb_next_subbuf_free(buf, old, false, &mark);
	if (ret)
		return ret;
	/* Opened and closed in one step: nested writers go to the next. */
	if (!lrb_offset_publish(&buf->w, old, old + chan->config.subbuf_size))
		return -EAGAIN;
	lrb_gen_open(buf, old, mark);
	lrb_switch_in(buf, old, ts);
	lrb_close_fields(buf, old, LRB_PHDR_SIZE, ts, discarded);
	lrb_commit_bytes(&buf->w, lrb_subbuf_index(chan, old),
			 chan->config.subbuf_size, false);
	return 0;
}

/* The timestamp of the last record before @pos, in @pos's sub-buffer. */
static u64 lrb_last_ts(struct lrb_cpu_buf *buf, unsigned long pos)
{
	struct lrb_subbuf sb = {
		.data = lrb_pos_addr(buf, pos & ~buf->chan->subbuf_mask),
		.content_size = pos & buf->chan->subbuf_mask,
		.lens = buf->chan->head.lens,
	};
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	u64 ts = 0;

	while (lrb_record_next(&sb, &it, &rec))
		ts = rec.ts;
	return ts;
}

/*
 * Close the open sub-buffer of @buf, if it holds records, on the CPU that
 * owns it (or with that CPU offline); if none is open, write an empty
 * packet when losses are unreported. Runs as a writer would: nested
 * writers make the cmpxchg fail and the loop reads the clock again, so
 * timestamp_end is not before any record of the sub-buffer.
 */
static void lrb_switch_local(struct lrb_cpu_buf *buf)
{
	struct lrb_channel *chan = buf->chan;
	unsigned long old, new;
	struct lrb_slot slot;
	u64 ts, discarded;

	/*
	 * Another CPU's local atomics may be used from here only while that
	 * CPU is dead and stays so: callers hold the CPU hotplug lock.
	 */
	if (buf->cpu != raw_smp_processor_id())
		lockdep_assert_cpus_held();
	lrb_writer_enter(&slot);
	for (;;) {
		old = local_read(&buf->w.offset);
		ts = lrb_clock(&buf->w);
		if (!(old & chan->subbuf_mask)) {
			if (lrb_switch_empty(buf, old, ts) == -EAGAIN)
				continue;
			goto out;
		}
		new = ALIGN(old, chan->config.subbuf_size);
		discarded = lrb_lost_discarded(buf);
		if (lrb_offset_publish(&buf->w, old, new))
			break;
	}
	/* A dead CPU's buffer, closed with another CPU's clock: clamp. */
	if (buf->cpu != raw_smp_processor_id())
		ts = max(ts, lrb_last_ts(buf, old));
	lrb_switch_out(buf, old, ts, discarded);
out:
	lrb_writer_exit(&slot);
}

/* Serializes the flushes of offline CPUs (lrb_flush()). */
static DEFINE_MUTEX(lrb_flush_offline);

static void lrb_switch_ipi(void *info)
{
	lrb_switch_local(info);
}

/**
 * lrb_flush() - deliver the partially filled sub-buffer of a CPU
 * @chan: the channel.
 * @cpu: the CPU whose buffer to flush.
 *
 * Closes the open sub-buffer, padding it, so a reader can take the tail of
 * a trace. If none is open and records were lost since the last packet
 * was closed, writes an empty packet whose events_discarded reports them,
 * provided a sub-buffer is free (in overwrite mode too: a flush never
 * takes one from the reader). Runs on @cpu through an IPI, or directly if
 * @cpu is offline. Records still uncommitted on @cpu complete the delivery
 * when they commit. Process context only.
 */
void lrb_flush(struct lrb_channel *chan, int cpu)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);

	if (!buf)
		return;
	cpus_read_lock();
	if (cpu_online(cpu)) {
		smp_call_function_single(cpu, lrb_switch_ipi, buf, 1);
	} else {
		/*
		 * Local atomics are not atomic across CPUs: two flushes of
		 * the same offline CPU from two CPUs must not interleave.
		 */
		mutex_lock(&lrb_flush_offline);
		lrb_switch_local(buf);
		mutex_unlock(&lrb_flush_offline);
	}
	cpus_read_unlock();
}
EXPORT_SYMBOL_GPL(lrb_flush);

/*
 * Switch timer, on the CPU of @buf: close the open sub-buffer if it was
 * opened @period ns ago or more; with none open, report unreported
 * losses in an empty packet. Returns the ns until the open sub-buffer is
 * that old, or @period.
 */
static u64 lrb_switch_aged(struct lrb_cpu_buf *buf, u64 period)
{
	struct lrb_channel *chan = buf->chan;
	unsigned long off = local_read(&buf->w.offset);
	const struct lrb_packet_header *ph;
	u64 age;

	if (off & chan->subbuf_mask) {
		/*
		 * A writer we interrupted may not have written the header
		 * yet: the stale time only makes us close a young sub-buffer
		 * that holds records, which is harmless.
		 */
		ph = lrb_pos_addr(buf, off & ~chan->subbuf_mask);
		age = lrb_clock(&buf->w) - READ_ONCE(ph->timestamp_begin);
		if ((s64)age >= 0 && age < period)
			return period - age;
	}
	lrb_switch_local(buf);
	return period;
}

static void lrb_switch_timer_fn(struct timer_list *t)
{
	struct lrb_cpu_buf *buf = from_timer(buf, t, switch_timer);
	u64 period = READ_ONCE(buf->chan->switch_period), wait;

	if (!period)
		return;
	wait = lrb_switch_aged(buf, period);
	/* Pinned: re-armed on this CPU. */
	if (READ_ONCE(buf->switch_on))
		mod_timer(t, jiffies + nsecs_to_jiffies(wait) + 1);
}

static void lrb_switch_timer_start(struct lrb_cpu_buf *buf)
{
	if (!buf->chan->switch_period || buf->switch_on)
		return;
	WRITE_ONCE(buf->switch_on, true);
	buf->switch_timer.expires = jiffies +
		nsecs_to_jiffies(buf->chan->switch_period) + 1;
	add_timer_on(&buf->switch_timer, buf->cpu);
}

static void lrb_switch_timer_stop(struct lrb_cpu_buf *buf)
{
	WRITE_ONCE(buf->switch_on, false);
	del_timer_sync(&buf->switch_timer);
}

/* Serializes lrb_switch_timer_set(). */
static DEFINE_MUTEX(lrb_switch_timer_mutex);

/**
 * lrb_switch_timer_set() - close sub-buffers that stay open too long
 * @chan: the channel.
 * @period_us: the period in microseconds, or 0 to stop.
 *
 * Starts a pinned timer on every online CPU (CPUs coming online start
 * theirs) that closes the CPU's open sub-buffer once it has been open for
 * @period_us, so a reader gets every record within about one period
 * even from a quiet CPU. A sub-buffer without records is never closed;
 * with none open, losses not yet reported are, in an empty packet, as
 * lrb_flush() does. The timer runs the switch as a writer on its own
 * CPU. The timers are not deferrable: an idle CPU would not run one until
 * its next wakeup, and an idle CPU is what they are for. Process context;
 * calls are serialized here, so that one's stops and another's starts do
 * not interleave.
 *
 * Return: 0, or -EINVAL if @period_us is outside [LRB_SWITCH_TIMER_MIN_US,
 * LRB_SWITCH_TIMER_MAX_US] and not 0.
 */
int lrb_switch_timer_set(struct lrb_channel *chan, unsigned int period_us)
{
	int cpu;

	if (period_us && (period_us < LRB_SWITCH_TIMER_MIN_US ||
			  period_us > LRB_SWITCH_TIMER_MAX_US))
		return -EINVAL;
	mutex_lock(&lrb_switch_timer_mutex);
	cpus_read_lock();
	/* Cheap on an idle timer; one may remain from a CPU that went down. */
	for_each_possible_cpu(cpu)
		lrb_switch_timer_stop(chan->bufs[cpu]);
	WRITE_ONCE(chan->switch_period, (u64)period_us * NSEC_PER_USEC);
	for_each_online_cpu(cpu)
		lrb_switch_timer_start(chan->bufs[cpu]);
	cpus_read_unlock();
	mutex_unlock(&lrb_switch_timer_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(lrb_switch_timer_set);

/**
 * lrb_get_subbuf() - take the oldest complete sub-buffer of a CPU
 * @chan: the channel.
 * @cpu: the CPU.
 * @sb: filled in with the sub-buffer; read it, then lrb_put_subbuf().
 *
 * In overwrite mode a writer may reuse the sub-buffer while it is held;
 * lrb_put_subbuf() then fails and what was read must be dropped.
 *
 * A corrupt sub-buffer is skipped and counted (&lrb_stats.subbufs_corrupt).
 * Nothing is read but the packet header and counts: the time spent with
 * interrupts off is bounded, whatever the sub-buffer size, and so is the
 * number of sub-buffers a call skips (LRB_GET_TRIES).
 *
 * Return: 0; -EAGAIN if no complete sub-buffer is ready, or if writers
 * reused (or corruption took) LRB_GET_TRIES sub-buffers in a row during
 * the call: call again; -EBUSY if one is already held; -EINVAL for a bad
 * CPU.
 */
int lrb_get_subbuf(struct lrb_channel *chan, int cpu, struct lrb_subbuf *sb)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	const struct lrb_packet_header *ph;
	unsigned long pos, count, flags, n;
	int tries = LRB_GET_TRIES, ret = 0;
	struct lrb_cc *c;
	size_t content;
	u64 seq;

	if (!buf)
		return -EINVAL;
	raw_spin_lock_irqsave(&buf->reader_lock, flags);
	if (buf->held) {
		ret = -EBUSY;
		goto out;
	}
retry:
	if (!tries--) {
		ret = -EAGAIN;
		goto out;
	}
	pos = atomic_long_read(&buf->consumed);
	c = &buf->w.cc[lrb_subbuf_index(chan, pos)];
	count = local_read(&c->count);
	if (!lrb_commit_done(chan, count, pos)) {
		if (atomic_long_read(&buf->consumed) != pos)
			goto retry;
		ret = -EAGAIN;
		goto out;
	}
	/* LRB-R1: pairs with LRB-W1 in lrb_commit_bytes(). */
	smp_rmb();
	n = lrb_cc_records(READ_ONCE(c->base), lrb_cc_mark(c, count));
	ph = lrb_pos_addr(buf, pos);
	content = READ_ONCE(ph->content_size) / BITS_PER_BYTE;
	seq = READ_ONCE(ph->packet_seq_num);
	if (!lrb_header_ok(chan, pos, READ_ONCE(ph->magic), seq, content) ||
	    !lrb_records_ok(content, n)) {
		/*
		 * LRB-R3: our loads of the sub-buffer before consumed.
		 * Pairs with LRB-W3 in lrb_push_reader(): if they saw a
		 * writer reusing it, consumed has moved. Overwritten under
		 * us: take the next one.
		 */
		smp_rmb();
		if (atomic_long_read(&buf->consumed) != pos)
			goto retry;
		/*
		 * Corrupt: skip it rather than stop the stream for good. The
		 * gap in packet_seq_num tells CTF readers a packet is missing.
		 */
		if (atomic_long_cmpxchg(&buf->consumed, pos,
					pos + chan->config.subbuf_size) == pos) {
			buf->subbufs_corrupt++;
			pr_warn_ratelimited("lrb: cpu %d: corrupt sub-buffer %lu skipped\n",
					    cpu, pos >> chan->subbuf_order);
		}
		goto retry;
	}
	sb->data = ph;
	sb->lens = chan->head.lens;
	sb->content_size = content;
	sb->padded_size = lrb_packet_size(content);
	sb->records = n;
	sb->pos = seq << chan->subbuf_order;
	buf->held = true;
	buf->held_pos = sb->pos;
out:
	raw_spin_unlock_irqrestore(&buf->reader_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_get_subbuf);

/**
 * lrb_put_subbuf() - give back a sub-buffer taken with lrb_get_subbuf()
 * @chan: the channel.
 * @cpu: the CPU.
 * @sb: the sub-buffer.
 *
 * Return: 0, the records counted as delivered; -EINVAL if @sb is not the
 * held sub-buffer; -EIO if a writer reused it meanwhile (overwrite mode):
 * what was read is invalid and its records are counted as overwritten.
 */
int lrb_put_subbuf(struct lrb_channel *chan, int cpu, struct lrb_subbuf *sb)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long flags, pos;
	int ret = 0;

	if (!buf)
		return -EINVAL;
	raw_spin_lock_irqsave(&buf->reader_lock, flags);
	if (!buf->held || buf->held_pos != sb->pos) {
		ret = -EINVAL;
		goto out;
	}
	buf->held = false;
	pos = sb->pos;
	/*
	 * LRB-R2: full barrier; our loads of the sub-buffer happen before
	 * the writer may reuse it. Pairs with LRB-W2 in
	 * lrb_next_subbuf_free() and LRB-W3 in lrb_push_reader().
	 */
	if (atomic_long_cmpxchg(&buf->consumed, pos,
				pos + chan->config.subbuf_size) != pos) {
		ret = -EIO;
		goto out;
	}
	buf->delivered += sb->records;
	buf->subbufs_delivered++;
out:
	raw_spin_unlock_irqrestore(&buf->reader_lock, flags);
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_put_subbuf);

/**
 * lrb_unget_subbuf() - give back a held sub-buffer without consuming it
 * @chan: the channel.
 * @cpu: the CPU.
 * @sb: the sub-buffer, from lrb_get_subbuf().
 *
 * For a reader that could not pass the sub-buffer on (a fault copying it
 * to user space, a file closed while holding it): the next
 * lrb_get_subbuf() takes the same one again, unless a writer reused it
 * meanwhile in overwrite mode. Nothing is counted.
 */
void lrb_unget_subbuf(struct lrb_channel *chan, int cpu,
		      struct lrb_subbuf *sb)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long flags;

	if (!buf)
		return;
	raw_spin_lock_irqsave(&buf->reader_lock, flags);
	if (buf->held && buf->held_pos == sb->pos)
		buf->held = false;
	raw_spin_unlock_irqrestore(&buf->reader_lock, flags);
}
EXPORT_SYMBOL_GPL(lrb_unget_subbuf);

/**
 * lrb_subbuf_ready() - is a complete sub-buffer waiting for a reader?
 * @chan: the channel.
 * @cpu: the CPU.
 *
 * A hint for poll(): the answer may be stale as soon as it is returned.
 *
 * Return: true if lrb_get_subbuf() would find a sub-buffer, or one is held.
 */
bool lrb_subbuf_ready(struct lrb_channel *chan, int cpu)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long pos;

	if (!buf)
		return false;
	pos = atomic_long_read(&buf->consumed);
	return lrb_commit_done(chan,
			       local_read(&buf->w.cc[lrb_subbuf_index(chan, pos)].count),
			       pos);
}
EXPORT_SYMBOL_GPL(lrb_subbuf_ready);

/*
 * Did a writer open the next generation of the sub-buffer at @pos, after
 * the caller's loads of it?
 */
static bool lrb_snapshot_stale(struct lrb_cpu_buf *buf, unsigned long pos)
{
	unsigned long next = pos + buf->chan->buf_mask + 1;

	/*
	 * LRB-R4: the caller's loads of the sub-buffer before opened.
	 * Pairs with LRB-W4 in lrb_mark_opened().
	 */
	smp_rmb();
	return (long)(local_read(&buf->opened) - next) >= 0;
}

/*
 * The 64-bit position of @pos, the end of the sub-buffers opened so far:
 * unsigned long positions wrap every 4 GiB on 32-bit. The packet headers
 * hold the bits above (lrb_seq_num()): take them from the newest header
 * written, that of the sub-buffer before @pos or, while a writer that
 * opened it has still to write it, of an older one or the generation before.
 */
static u64 lrb_pos64(struct lrb_cpu_buf *buf, unsigned long pos)
{
	struct lrb_channel *chan = buf->chan;
	unsigned long size = chan->buf_mask + 1, p = pos, q;
	const struct lrb_packet_header *ph;
	unsigned int i;
	u64 at;

	for (i = 0; i < chan->config.num_subbufs; i++) {
		p -= chan->config.subbuf_size;
		ph = lrb_pos_addr(buf, p);
		at = READ_ONCE(ph->packet_seq_num) << chan->subbuf_order;
		q = at;
		if (READ_ONCE(ph->magic) == LRB_PACKET_MAGIC &&
		    (q == p || q == p - size))
			return at + (pos - q);
	}
	return pos;	/* no header written yet: the first 4 GiB */
}

/**
 * lrb_snapshot() - the window of complete sub-buffers of a running CPU buffer
 * @chan: the channel, in overwrite mode.
 * @cpu: the CPU.
 * @begin: set to the position of the oldest sub-buffer that may hold data.
 * @end: set to the position after the newest complete sub-buffer.
 *
 * Flushes @cpu first, so the window ends with what was written before the
 * call. Writers go on: the oldest sub-buffers of the window may be reused
 * before they are read, which lrb_snapshot_get() and lrb_snapshot_put()
 * report. Nothing is consumed. Process context.
 *
 * Return: 0; -EINVAL for a bad CPU or a channel in discard mode, where
 * writers would not reuse a sub-buffer a reader has not consumed: read
 * it with lrb_get_subbuf() instead.
 */
int lrb_snapshot(struct lrb_channel *chan, int cpu, u64 *begin, u64 *end)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long size = chan->buf_mask + 1, consumed, b, e;

	if (!buf || chan->config.mode != LRB_MODE_OVERWRITE)
		return -EINVAL;
	lrb_flush(chan, cpu);
	consumed = atomic_long_read(&buf->consumed);
	/*
	 * LRB-R6: consumed before offset. A writer pushes consumed only up
	 * to the sub-buffer it then opens, so the window cannot end before
	 * it begins. Pairs with LRB-W3 in lrb_push_reader().
	 */
	smp_rmb();
	e = local_read(&buf->w.offset) & ~chan->subbuf_mask;
	if ((long)(e - consumed) < 0)
		consumed = e;
	b = (long)(e - consumed) > (long)size ? e - size : consumed;
	*end = lrb_pos64(buf, e);
	*begin = *end - (e - b);
	return 0;
}
EXPORT_SYMBOL_GPL(lrb_snapshot);

/**
 * lrb_snapshot_get() - take a sub-buffer of a snapshot, without consuming it
 * @chan: the channel, in overwrite mode.
 * @cpu: the CPU.
 * @pos: a position of the window lrb_snapshot() returned.
 * @sb: filled in with the sub-buffer (@sb->records is not counted: 0).
 *
 * Any number of snapshot readers may read the same sub-buffer, beside a
 * consuming reader. After reading it, call lrb_snapshot_put() to learn
 * whether what was read is valid. Any context but NMI.
 *
 * Return: 0; -EINVAL for a bad CPU, a discard-mode channel or an unaligned
 * @pos; -EAGAIN if the sub-buffer is not complete yet (a writer
 * interrupted by the flush has still to commit: retry); -ESTALE if a
 * writer reused it since; -EIO if it is corrupt.
 */
int lrb_snapshot_get(struct lrb_channel *chan, int cpu, u64 pos,
		     struct lrb_subbuf *sb)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	const struct lrb_packet_header *ph;
	unsigned long p = pos, cc;
	size_t content;
	u64 seq;
	u32 magic;

	if (!buf || chan->config.mode != LRB_MODE_OVERWRITE ||
	    (p & chan->subbuf_mask))
		return -EINVAL;
	cc = local_read(&buf->w.cc[lrb_subbuf_index(chan, p)].count);
	if (!lrb_commit_done(chan, cc, p))
		return lrb_snapshot_stale(buf, p) ? -ESTALE : -EAGAIN;
	/* LRB-R5: pairs with LRB-W1 in lrb_commit_bytes(). */
	smp_rmb();
	ph = lrb_pos_addr(buf, p);
	magic = READ_ONCE(ph->magic);
	seq = READ_ONCE(ph->packet_seq_num);
	content = READ_ONCE(ph->content_size) / BITS_PER_BYTE;
	if (lrb_snapshot_stale(buf, p))
		return -ESTALE;
	if (!lrb_header_ok(chan, p, magic, seq, content))
		return -EIO;
	/* Generations 4 GiB of positions apart share @p on 32-bit. */
	if (seq << chan->subbuf_order != pos)
		return -ESTALE;
	sb->data = ph;
	sb->lens = chan->head.lens;
	sb->content_size = content;
	sb->padded_size = lrb_packet_size(content);
	sb->records = 0;
	sb->pos = pos;
	return 0;
}
EXPORT_SYMBOL_GPL(lrb_snapshot_get);

/**
 * lrb_snapshot_put() - is what was read of a snapshot sub-buffer valid?
 * @chan: the channel.
 * @cpu: the CPU.
 * @sb: the sub-buffer, from lrb_snapshot_get().
 *
 * Call it after the last load of the sub-buffer. Any context but NMI.
 *
 * Return: 0 if no writer reused the sub-buffer meanwhile; -ESTALE if one
 * did: what was read must be dropped; -EINVAL for a bad CPU.
 */
int lrb_snapshot_put(struct lrb_channel *chan, int cpu,
		     const struct lrb_subbuf *sb)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);

	if (!buf)
		return -EINVAL;
	return lrb_snapshot_stale(buf, sb->pos) ? -ESTALE : 0;
}
EXPORT_SYMBOL_GPL(lrb_snapshot_put);

/**
 * lrb_mmap() - map the buffer of a CPU into user space
 * @chan: the channel.
 * @cpu: the CPU.
 * @vma: the mapping; vm_pgoff is the page offset in the buffer. The caller
 *	decides whether it may be writable (a reader's should not be).
 *
 * Return: 0, or -EINVAL for a bad CPU or a mapping beyond the buffer.
 */
int lrb_mmap(struct lrb_channel *chan, int cpu, struct vm_area_struct *vma)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);

	if (!buf)
		return -EINVAL;
	return remap_vmalloc_range(vma, buf->w.data, vma->vm_pgoff);
}
EXPORT_SYMBOL_GPL(lrb_mmap);

/**
 * lrb_record_next() - decode the next record of a held sub-buffer
 * @sb: the sub-buffer, from lrb_get_subbuf().
 * @it: cursor, zeroed before the first call.
 * @rec: filled in with the record.
 *
 * Return: true with @rec filled in, false after the last record.
 */
bool lrb_record_next(const struct lrb_subbuf *sb, struct lrb_record_iter *it,
		     struct lrb_record *rec)
{
	const struct lrb_packet_header *ph = sb->data;
	struct lrb_rec_view v;
	size_t size;

	if (!it->offset) {
		it->offset = LRB_PHDR_SIZE;
		it->ts = READ_ONCE(ph->timestamp_begin);
	}
	if (it->offset >= sb->content_size)
		return false;
	size = lrb_record_parse(sb->data, it->offset, sb->content_size,
				sb->lens, &v);
	if (!size)
		return false;
	if (!v.ext) {
		v.ts |= it->ts & ~(u64)LRB_TS_MASK;
		if (v.ts < it->ts)
			v.ts += 1ULL << LRB_TS_BITS;
	}
	rec->id = v.id;
	rec->len = v.len;
	rec->ts = v.ts;
	rec->data = sb->data + it->offset + v.hlen;
	it->ts = v.ts;
	it->offset += size;
	return true;
}
EXPORT_SYMBOL_GPL(lrb_record_next);

/**
 * lrb_channel_config() - the configuration a channel was created with
 * @chan: the channel.
 *
 * Return: the configuration.
 */
const struct lrb_config *lrb_channel_config(const struct lrb_channel *chan)
{
	return &chan->config;
}
EXPORT_SYMBOL_GPL(lrb_channel_config);

static int lrb_config_check(const struct lrb_config *c)
{
	u64 total;

	if (!c || !is_power_of_2(c->subbuf_size) ||
	    c->subbuf_size < LRB_SUBBUF_SIZE_MIN ||
	    c->subbuf_size > LRB_SUBBUF_SIZE_MAX)
		return -EINVAL;
	if (!is_power_of_2(c->num_subbufs) ||
	    c->num_subbufs < LRB_NUM_SUBBUFS_MIN ||
	    c->num_subbufs > LRB_NUM_SUBBUFS_MAX)
		return -EINVAL;
	if ((u64)c->subbuf_size * c->num_subbufs > LRB_CPU_BUF_SIZE_MAX)
		return -EINVAL;
	if (c->mode != LRB_MODE_DISCARD && c->mode != LRB_MODE_OVERWRITE)
		return -EINVAL;
	/* All CPU buffers together may take at most half of the memory. */
	total = (u64)c->subbuf_size * c->num_subbufs * num_possible_cpus();
	if (total > ((u64)totalram_pages() << PAGE_SHIFT) / 2)
		return -ENOMEM;
	/*
	 * Nor more than is available now, as the ftrace ring buffer checks:
	 * a request too big must fail, not wake the OOM killer.
	 */
	if (total > ((u64)si_mem_available() << PAGE_SHIFT))
		return -ENOMEM;
	return 0;
}

static void lrb_cpu_buf_free(struct lrb_cpu_buf *buf)
{
	if (!buf)
		return;
	irq_work_sync(&buf->wakeup_work);
	vfree(buf->w.data);
	kfree(buf->w.cc);
	kfree(buf);
}

static struct lrb_cpu_buf *lrb_cpu_buf_alloc(struct lrb_channel *chan,
					     int cpu)
{
	int node = cpu_to_node(cpu);
	struct lrb_cpu_buf *buf;

	buf = kzalloc_node(sizeof(*buf), GFP_KERNEL_ACCOUNT, node);
	if (!buf)
		return NULL;
	buf->chan = chan;
	buf->cpu = cpu;
	raw_spin_lock_init(&buf->reader_lock);
	init_irq_work(&buf->wakeup_work, lrb_wakeup_work);
	timer_setup(&buf->switch_timer, lrb_switch_timer_fn, TIMER_PINNED);
	buf->w.subbuf_order = chan->subbuf_order;
	buf->w.subbuf_mask = chan->subbuf_mask;
	buf->w.buf_mask = chan->buf_mask;
	buf->w.clock = chan->config.clock;
	buf->w.cc = kcalloc_node(chan->config.num_subbufs, sizeof(*buf->w.cc),
				 GFP_KERNEL_ACCOUNT, node);
	/*
	 * Zeroed, and mappable to user space by a later reader (as
	 * vmalloc_user()); failing rather than invoking the OOM killer;
	 * charged, as the rest of the buffer, to the creator's memory cgroup.
	 */
	buf->w.data = __vmalloc_node_range(chan->buf_mask + 1, SHMLBA,
					   VMALLOC_START, VMALLOC_END,
					   GFP_KERNEL_ACCOUNT | __GFP_ZERO |
					   __GFP_RETRY_MAYFAIL | __GFP_NOWARN,
					   PAGE_KERNEL, VM_USERMAP, node,
					   __builtin_return_address(0));
	if (!buf->w.cc || !buf->w.data) {
		lrb_cpu_buf_free(buf);
		return NULL;
	}
	return buf;
}

static void lrb_channel_free(struct lrb_channel *chan)
{
	int cpu;

	if (chan->bufs)
		for_each_possible_cpu(cpu)
			lrb_cpu_buf_free(chan->bufs[cpu]);
	kfree(chan->bufs);
	kfree(chan->head.wbufs);
	kfree(chan);
}

/**
 * lrb_channel_create() - allocate a channel with a buffer per possible CPU
 * @config: its shape; copied.
 *
 * Buffers exist for every possible CPU, so a CPU that goes offline keeps
 * its data readable and one that comes online can trace at once.
 * Process context.
 *
 * Return: the channel, or ERR_PTR(-EINVAL) for a bad @config,
 * ERR_PTR(-ENOMEM) when it does not fit in memory.
 */
struct lrb_channel *lrb_channel_create(const struct lrb_config *config)
{
	struct lrb_channel *chan;
	int cpu, ret;

	ret = lrb_config_check(config);
	if (ret)
		return ERR_PTR(ret);
	chan = kzalloc(sizeof(*chan), GFP_KERNEL);
	if (!chan)
		return ERR_PTR(-ENOMEM);
	chan->config = *config;
	chan->subbuf_order = ilog2(config->subbuf_size);
	chan->subbuf_mask = config->subbuf_size - 1;
	chan->buf_order = chan->subbuf_order + ilog2(config->num_subbufs);
	chan->buf_mask = (1UL << chan->buf_order) - 1;
	chan->cc_mask = LRB_CC_BYTES_MASK >> ilog2(config->num_subbufs);
	chan->bufs = kcalloc(nr_cpu_ids, sizeof(*chan->bufs), GFP_KERNEL);
	chan->head.wbufs = kcalloc(nr_cpu_ids, sizeof(*chan->head.wbufs),
				   GFP_KERNEL);
	if (!chan->bufs || !chan->head.wbufs)
		goto nomem;
	for_each_possible_cpu(cpu) {
		chan->bufs[cpu] = lrb_cpu_buf_alloc(chan, cpu);
		if (!chan->bufs[cpu])
			goto nomem;
		chan->head.wbufs[cpu] = &chan->bufs[cpu]->w;
	}
	/* No CPU changes state meanwhile: a dead one is closed already. */
	cpus_read_lock();
	for_each_possible_cpu(cpu)
		chan->bufs[cpu]->closed = !cpu_online(cpu);
	ret = cpuhp_state_add_instance_nocalls_cpuslocked(CPUHP_LRB_PREPARE,
							  &chan->node);
	cpus_read_unlock();
	if (ret)
		goto err;
	ret = cpuhp_state_add_instance_nocalls(lrb_cpuhp_online,
					       &chan->online_node);
	if (ret) {
		cpuhp_state_remove_instance_nocalls(CPUHP_LRB_PREPARE,
						    &chan->node);
		goto err;
	}
	return chan;
nomem:
	ret = -ENOMEM;
err:
	lrb_channel_free(chan);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(lrb_channel_create);

/*
 * A view of the sub-buffer at @pos for lrb_record_next(), the write
 * position being @off; false if it does not look like one.
 */
static bool lrb_dump_view(struct lrb_cpu_buf *buf, unsigned long pos,
			  unsigned long off, struct lrb_dump *d)
{
	struct lrb_channel *chan = buf->chan;
	const struct lrb_packet_header *ph = lrb_pos_addr(buf, pos);
	size_t content;

	if ((off & chan->subbuf_mask) && pos == (off & ~chan->subbuf_mask))
		content = off & chan->subbuf_mask;	/* still open */
	else
		content = READ_ONCE(ph->content_size) / BITS_PER_BYTE;
	if (!lrb_header_ok(chan, pos, READ_ONCE(ph->magic),
			   READ_ONCE(ph->packet_seq_num), content))
		return false;
	d->sb.data = ph;
	d->sb.lens = chan->head.lens;
	d->sb.content_size = content;
	d->sb.padded_size = lrb_packet_size(content);
	d->sb.records = 0;
	d->sb.pos = pos;
	d->it.offset = 0;
	d->it.ts = 0;
	return true;
}

/**
 * lrb_dump_begin() - start reading the newest records of a CPU buffer
 * @chan: the channel.
 * @cpu: the CPU.
 * @max: how many records, at most, lrb_dump_next() will return.
 * @d: the cursor to set up.
 *
 * For oops and panic handlers: takes no lock and waits for nothing, so
 * it may run in any context, NMI included, while the CPU that crashed
 * holds any lock. Writers may still be writing on other CPUs: the dump
 * stops at the write position it found, reads only inside the buffer and
 * stops at a sub-buffer or record that does not parse, but a record being
 * overwritten or not yet committed may show wrong values, and where its
 * payload holds its length (lrb_set_record_len_at()), end the dump of its
 * sub-buffer early.
 *
 * Return: 0; -EINVAL for a bad CPU; -ENODATA if the buffer holds no
 * record.
 */
int lrb_dump_begin(struct lrb_channel *chan, int cpu, unsigned int max,
		   struct lrb_dump *d)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);
	unsigned long off, pos, first = 0, total = 0, n, k;
	bool found = false;
	struct lrb_record rec;

	if (!buf)
		return -EINVAL;
	off = local_read(&buf->w.offset);
	if (!off || !max)
		return -ENODATA;
	d->buf = buf;
	d->end = off;
	/* Back from the sub-buffer of the newest record, to @max records. */
	pos = (off - 1) & ~chan->subbuf_mask;
	for (k = 0; k < chan->config.num_subbufs; k++) {
		if (!lrb_dump_view(buf, pos, off, d)) {
			/* The newest may not have its header yet: go on. */
			if (found || k || pos < chan->config.subbuf_size)
				break;
			pos -= chan->config.subbuf_size;
			continue;
		}
		for (n = 0; lrb_record_next(&d->sb, &d->it, &rec); n++)
			;
		found = true;
		first = pos;
		total += n;
		if (total >= max || pos < chan->config.subbuf_size)
			break;
		pos -= chan->config.subbuf_size;
	}
	if (!found || !lrb_dump_view(buf, first, off, d))
		return -ENODATA;
	for (; total > max; total--)
		lrb_record_next(&d->sb, &d->it, &rec);
	return 0;
}
EXPORT_SYMBOL_GPL(lrb_dump_begin);

/**
 * lrb_dump_next() - the next record of a dump, oldest first
 * @d: the cursor, from lrb_dump_begin().
 * @rec: filled in with the record.
 *
 * Return: true with @rec filled in, false after the last record.
 */
bool lrb_dump_next(struct lrb_dump *d, struct lrb_record *rec)
{
	struct lrb_cpu_buf *buf = d->buf;
	unsigned long pos;

	while (!lrb_record_next(&d->sb, &d->it, rec)) {
		pos = d->sb.pos + buf->chan->config.subbuf_size;
		if ((long)(pos - d->end) >= 0 ||
		    !lrb_dump_view(buf, pos, d->end, d))
			return false;
	}
	return true;
}
EXPORT_SYMBOL_GPL(lrb_dump_next);

/**
 * lrb_channel_destroy() - free a channel
 * @chan: the channel, or NULL.
 *
 * The caller must ensure no writer or reader uses it any more (for
 * writers called from probes: unregister them, then synchronize_rcu()).
 * Process context.
 */
void lrb_channel_destroy(struct lrb_channel *chan)
{
	if (!chan)
		return;
	/* First: with no period, a CPU coming online starts nothing. */
	lrb_switch_timer_set(chan, 0);
	cpuhp_state_remove_instance_nocalls(lrb_cpuhp_online,
					    &chan->online_node);
	cpuhp_state_remove_instance_nocalls(CPUHP_LRB_PREPARE, &chan->node);
	lrb_channel_free(chan);
}
EXPORT_SYMBOL_GPL(lrb_channel_destroy);

/*
 * A CPU is dead: close its open sub-buffer so the reader gets its tail.
 * Runs on a control CPU once nothing can write on the dead one any more,
 * so it also catches records written by interrupts late in its shutdown.
 */
static int lrb_cpu_dead(unsigned int cpu, struct hlist_node *node)
{
	struct lrb_channel *chan = hlist_entry(node, struct lrb_channel, node);

	lrb_switch_local(chan->bufs[cpu]);
	/* Pairs with the acquire in lrb_cpu_closed(): the close comes first. */
	smp_store_release(&chan->bufs[cpu]->closed, true);
	/* Nothing more will come: readers waiting for the CPU may stop. */
	if (chan->config.wakeup)
		chan->config.wakeup(chan, cpu, chan->config.priv);
	return 0;
}

/* Before a CPU comes up: its buffer takes records again. */
static int lrb_cpu_prepare(unsigned int cpu, struct hlist_node *node)
{
	struct lrb_channel *chan = hlist_entry(node, struct lrb_channel, node);

	WRITE_ONCE(chan->bufs[cpu]->closed, false);
	return 0;
}

/**
 * lrb_cpu_closed() - whether a CPU's buffer is closed for good
 * @chan: the channel.
 * @cpu: the CPU.
 *
 * True once @cpu is dead and its last sub-buffer closed, until it comes
 * up again: a reader that saw true, then found nothing to get, is at the
 * end of the CPU's records. !cpu_online() is not that: it turns true
 * while the CPU may still write (take_cpu_down() runs before the dying
 * CPU's last interrupts) and before the sub-buffer is closed.
 *
 * Return: true if closed, or for a bad CPU; false otherwise.
 */
bool lrb_cpu_closed(struct lrb_channel *chan, int cpu)
{
	struct lrb_cpu_buf *buf = lrb_cpu_buf(chan, cpu);

	/* Pairs with the release in lrb_cpu_dead(). */
	return !buf || smp_load_acquire(&buf->closed);
}
EXPORT_SYMBOL_GPL(lrb_cpu_closed);

/* On the CPU coming online: start its switch timer if the channel has one. */
static int lrb_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct lrb_channel *chan = hlist_entry(node, struct lrb_channel,
					       online_node);

	lrb_switch_timer_start(chan->bufs[cpu]);
	return 0;
}

/* On the CPU going offline: a pinned timer would migrate, so stop it. */
static int lrb_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct lrb_channel *chan = hlist_entry(node, struct lrb_channel,
					       online_node);

	lrb_switch_timer_stop(chan->bufs[cpu]);
	return 0;
}

/*
 * A fixed state below CPUHP_RCUTREE_PREP, not a dynamic one above it: a
 * CPU parked at LRB's state (CONFIG_CPU_HOTPLUG_STATE_CONTROL) comes back
 * up through rcutree_prepare_cpu(), which its RCU callbacks need.
 */
static int __init lrb_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "trace/lrb:online",
				      lrb_cpu_online, lrb_cpu_offline);
	if (ret < 0)
		return ret;
	lrb_cpuhp_online = ret;

	return cpuhp_setup_state_multi(CPUHP_LRB_PREPARE, "trace/lrb:dead",
				       lrb_cpu_prepare, lrb_cpu_dead);
}
core_initcall(lrb_init);
