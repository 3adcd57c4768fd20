// SPDX-License-Identifier: GPL-2.0
/*
 * LRB benchmark: the cost of the synchronization primitives LRB can be
 * built on, and the cost per event of LRB against the ftrace ring buffer
 * and against a floor loop, all in the same run, with the same clock.
 * Table 5: the cost of a trace event recorded by LRB's probe or ftrace's.
 * Table 6: sub-buffer switches by sub-buffer size, the worst single write
 * and the reader's worst get; table 7: cache-cold writes. The "writer"
 * parameter starts a thread that hits the bench trace event for a while,
 * for user-space readers to drain.
 * Table 8: the bench event with a filter, LRB's against ftrace's.
 *
 * Built in, it runs at boot with lrb_bench.run=1; as a module, at load
 * with run=1, and the module can be removed once it has run. Every
 * figure is the min / median / max over lrb_bench.reps repetitions, and
 * every comparison is a ratio of figures measured in the same
 * repetition.
 * Timings are only meaningful where the kernel runs natively (UML here,
 * or real hardware); under an emulator they are not timings.
 */

#define pr_fmt(fmt) "lrb_bench: " fmt

#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/kthread.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/ring_buffer.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/trace.h>
#include <linux/trace_events.h>
#include <linux/vmalloc.h>
#include <asm/local.h>

#include "lrb_events.h"
#if IS_BUILTIN(CONFIG_LRB_BENCHMARK)
#include "trace.h"		/* apply_event_filter(), for table 8 */
#endif

#ifdef CONFIG_LRB_TRACE_EVENTS
#define CREATE_TRACE_POINTS
#include "lrb_bench_trace.h"
#endif

static bool run;
module_param(run, bool, 0444);
MODULE_PARM_DESC(run, "run the benchmark at boot or at load");
static int reps = 11;
module_param(reps, int, 0444);
MODULE_PARM_DESC(reps, "repetitions of every measurement (at least 3)");
static int loops = 200000;
module_param(loops, int, 0444);
MODULE_PARM_DESC(loops, "operations per repetition of a primitive");
static int batches = 200;
module_param(batches, int, 0444);
MODULE_PARM_DESC(batches, "batches of events per repetition");

#define MAX_REPS	101
#define BATCH		256	/* events per batch: fits every buffer below */
#define SUBBUF		4096
#define NSUBBUF		64

/* Timestamps: fine-grained on every architecture, UML included. */
static u64 bench_now(void)
{
	return ktime_get_ns();
}

/* min / median / max of @n values (sorted in place). */
static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

struct mmm {
	u64 min, med, max;	/* in 1/1000 units */
};

static struct mmm summarize(u64 *v, int n)
{
	struct mmm r;

	sort(v, n, sizeof(*v), cmp_u64, NULL);
	r.min = v[0];
	r.med = v[n / 2];
	r.max = v[n - 1];
	return r;
}

static void pr_mmm(const char *what, struct mmm m, const char *unit)
{
	pr_info("  %-34s %6llu.%03llu %6llu.%03llu %6llu.%03llu %s\n", what,
		m.min / 1000, m.min % 1000, m.med / 1000, m.med % 1000,
		m.max / 1000, m.max % 1000, unit);
}

/* @a / @b in thousandths, as summarize() and pr_mmm() take ratios. */
static u64 bench_ratio(u64 a, u64 b)
{
	return div64_u64(1000 * a, max_t(u64, 1, b));
}

/* ---- 1. primitives ---- */

static local_t bench_local;
static unsigned long bench_word;
static long bench_long;

/*
 * The bus-locked operations, spelled out on x86-64: a uniprocessor kernel
 * (UML is one) drops the LOCK prefix of cmpxchg() and atomic_*().
 */
#ifdef CONFIG_X86_64
static __always_inline unsigned long locked_cmpxchg(unsigned long *p,
						    unsigned long old,
						    unsigned long new)
{
	unsigned long prev;

	asm volatile("lock; cmpxchgq %2,%1"
		     : "=a" (prev), "+m" (*p) : "r" (new), "0" (old) : "memory");
	return prev;
}

static __always_inline long locked_add_return(long v, long *p)
{
	long old = v;

	asm volatile("lock; xaddq %0,%1" : "+r" (v), "+m" (*p) : : "memory");
	return v + old;
}

#define LOCKED_REAL	true
#else
#define locked_cmpxchg(p, o, n)		cmpxchg(p, o, n)
#define locked_add_return(v, p)		\
	atomic_long_add_return(v, (atomic_long_t *)(p))
#define LOCKED_REAL	IS_ENABLED(CONFIG_SMP)
#endif

enum prim {
	P_BASELINE, P_LOCAL_CMPXCHG, P_CMPXCHG, P_LOCAL_ADD_RETURN,
	P_ADD_RETURN, P_IRQ_ENABLE, P_IRQ_DISABLE, P_IRQ_PAIR, P_NR
};

static const char *const prim_name[P_NR] = {
	"baseline (empty loop)", "local_cmpxchg", "cmpxchg (locked)",
	"local_add_return", "add_return (locked xadd)",
	"local_irq_enable (sti)", "local_irq_disable (cli)",
	"local_irq_save + restore (cli+sti)",
};

/* Picoseconds per operation of one primitive, over @loops iterations. */
static u64 time_prim(enum prim p)
{
	unsigned long flags, f2;
	u64 t0, t1;
	int i;

	/* Interrupts off around the loop, except where the loop enables. */
	local_irq_save(flags);
	if (p == P_IRQ_ENABLE || p == P_IRQ_PAIR)
		local_irq_enable();
	t0 = bench_now();
	switch (p) {
	case P_BASELINE:
		for (i = 0; i < loops; i++)
			barrier();
		break;
	case P_LOCAL_CMPXCHG:
		for (i = 0; i < loops; i++)
			local_cmpxchg(&bench_local, 0, 0);
		break;
	case P_CMPXCHG:
		for (i = 0; i < loops; i++)
			locked_cmpxchg(&bench_word, 0, 0);
		break;
	case P_LOCAL_ADD_RETURN:
		for (i = 0; i < loops; i++)
			local_add_return(1, &bench_local);
		break;
	case P_ADD_RETURN:
		for (i = 0; i < loops; i++)
			locked_add_return(1, &bench_long);
		break;
	case P_IRQ_ENABLE:
		for (i = 0; i < loops; i++)
			local_irq_enable();
		break;
	case P_IRQ_DISABLE:
		for (i = 0; i < loops; i++)
			local_irq_disable();
		break;
	case P_IRQ_PAIR:
		for (i = 0; i < loops; i++) {
			local_irq_save(f2);
			local_irq_restore(f2);
		}
		break;
	default:
		break;
	}
	t1 = bench_now();
	local_irq_disable();
	local_irq_restore(flags);
	local_set(&bench_local, 0);
	return div_u64((t1 - t0) * 1000, loops);
}

static void bench_primitives(void)
{
	static u64 v[P_NR][MAX_REPS], ratio[MAX_REPS];
	bool soft_irq_flag = IS_ENABLED(CONFIG_UML);
	struct mmm m;
	int r, p;

	for (r = 0; r < reps; r++) {
		u64 pair, cas;

		for (p = 0; p < P_NR; p++)
			v[p][r] = time_prim(p);
		/* speedup = (cli + sti) / local cmpxchg, each net of the loop */
		pair = v[P_IRQ_PAIR][r] - min(v[P_IRQ_PAIR][r], v[P_BASELINE][r]);
		cas = v[P_LOCAL_CMPXCHG][r] -
		      min(v[P_LOCAL_CMPXCHG][r], v[P_BASELINE][r]);
		ratio[r] = bench_ratio(pair, cas);
	}
	pr_info("table 1: primitives, ns per operation (min median max over %d reps of %d)\n",
		reps, loops);
	for (p = 0; p < P_NR; p++) {
		if (soft_irq_flag && p >= P_IRQ_ENABLE) {
			pr_info("  %-34s not measurable in UML: its interrupt flag is software, not cli/sti\n",
				prim_name[p]);
			continue;
		}
		if (!LOCKED_REAL && (p == P_CMPXCHG || p == P_ADD_RETURN)) {
			pr_info("  %-34s not measurable: uniprocessor build, no LOCK prefix\n",
				prim_name[p]);
			continue;
		}
		pr_mmm(prim_name[p], summarize(v[p], reps), "ns");
	}
	if (soft_irq_flag) {
		pr_info("  speedup (cli + sti) / local cmpxchg: not measurable in UML\n");
		return;
	}
	m = summarize(ratio, reps);
	pr_mmm("speedup (cli + sti) / local cmpxchg", m, "x");
	/* The columns of the 2009 cli/sti vs local_cmpxchg table: medians, ns. */
	pr_info("  | speedup (cli+sti)/local cmpxchg | CAS local | CAS sync | enable (sti) | disable (cli) |\n");
	pr_info("  | %llu.%03llu | %llu.%03llu | %llu.%03llu | %llu.%03llu | %llu.%03llu |\n",
		m.med / 1000, m.med % 1000,
		summarize(v[P_LOCAL_CMPXCHG], reps).med / 1000,
		summarize(v[P_LOCAL_CMPXCHG], reps).med % 1000,
		summarize(v[P_CMPXCHG], reps).med / 1000,
		summarize(v[P_CMPXCHG], reps).med % 1000,
		summarize(v[P_IRQ_ENABLE], reps).med / 1000,
		summarize(v[P_IRQ_ENABLE], reps).med % 1000,
		summarize(v[P_IRQ_DISABLE], reps).med / 1000,
		summarize(v[P_IRQ_DISABLE], reps).med % 1000);
}

/* ---- 2. write cost per event ---- */

static u8 payload[256];
static u8 floor_area[BATCH * (256 + sizeof(u64))];
static local_t floor_count, proto_offset, proto_commit;

enum target { T_LRB, T_FTRACE, T_FLOOR, T_PROTO, T_NR };

struct bench_ctx {
	struct lrb_channel *lrb;
	struct trace_buffer *rb;
	struct buffer_data_read_page *rb_page;
};

static void drain(struct bench_ctx *c, int cpu)
{
	struct lrb_subbuf sb;

	while (!lrb_get_subbuf(c->lrb, cpu, &sb))
		lrb_put_subbuf(c->lrb, cpu, &sb);
	while (ring_buffer_read_page(c->rb, c->rb_page, PAGE_SIZE, cpu, 0) >= 0)
		;
}

/*
 * Each payload length its own id, whose length is fixed as a trace
 * event's is (lrb_set_record_len()); 256 bytes cannot be, and keep their
 * length word.
 */
static unsigned int bench_id(size_t len)
{
	return ilog2(len);
}

/*
 * One function per target, each starting a cache line, so that no loop's
 * placement depends on the code of the loops before it: UML builds
 * without function alignment. What the loops call (the clock, memcpy())
 * still lies where the rest of the kernel puts it: compare the ratios of
 * one run, not nanoseconds across kernels.
 */
static noinline __aligned(SMP_CACHE_BYTES) void write_batch_lrb(struct bench_ctx *c, size_t len)
{
	struct lrb_slot slot;
	int i;

	for (i = 0; i < BATCH; i++) {
		if (lrb_reserve(c->lrb, &slot, bench_id(len), len))
			continue;
		lrb_write(&slot, 0, payload, len);
		lrb_commit(&slot);
	}
}

static noinline __aligned(SMP_CACHE_BYTES) void write_batch_ftrace(struct bench_ctx *c, size_t len)
{
	struct ring_buffer_event *ev;
	int i;

	for (i = 0; i < BATCH; i++) {
		ev = ring_buffer_lock_reserve(c->rb, len);
		if (!ev)
			continue;
		memcpy(ring_buffer_event_data(ev), payload, len);
		ring_buffer_unlock_commit(c->rb);
	}
}

static noinline __aligned(SMP_CACHE_BYTES) void write_batch_floor(size_t len)
{
	int i;

	preempt_disable();
	for (i = 0; i < BATCH; i++) {
		u8 *slot = floor_area + i * (len + sizeof(u64));
		u64 ts = local_clock();

		memcpy(slot, &ts, sizeof(ts));
		memcpy(slot + sizeof(ts), payload, len);
		local_add(1, &floor_count);
	}
	preempt_enable();
}

/*
 * The floor plus the two read-modify-writes that LRB's protocol cannot do
 * without: the local_cmpxchg() that reserves the slot and the
 * local_add_return() that commits it. What LRB costs above this is its
 * own bookkeeping.
 */
static noinline __aligned(SMP_CACHE_BYTES) void write_batch_proto(size_t len)
{
	long old, size = len + sizeof(u64);
	int i;

	preempt_disable();
	local_set(&proto_offset, 0);
	for (i = 0; i < BATCH; i++) {
		u8 *slot;
		u64 ts;

		old = local_read(&proto_offset);
		ts = local_clock();
		if (local_cmpxchg(&proto_offset, old, old + size) != old)
			continue;
		slot = floor_area + old;
		memcpy(slot, &ts, sizeof(ts));
		memcpy(slot + sizeof(ts), payload, len);
		local_add_return(size, &proto_commit);
	}
	preempt_enable();
}

static void write_batch(struct bench_ctx *c, enum target t, size_t len)
{
	if (t == T_LRB)
		write_batch_lrb(c, len);
	else if (t == T_FTRACE)
		write_batch_ftrace(c, len);
	else if (t == T_FLOOR)
		write_batch_floor(len);
	else
		write_batch_proto(len);
}

/* Picoseconds per event for @t; the reader drains inside the timing or not. */
static u64 time_writes(struct bench_ctx *c, enum target t, size_t len,
		       bool reader)
{
	int cpu, b;
	u64 t0, sum = 0;

	for (b = 0; b < batches; b++) {
		cpu = get_cpu();
		put_cpu();
		if (!reader) {
			lrb_flush(c->lrb, cpu);
			drain(c, cpu);
			ring_buffer_reset_cpu(c->rb, cpu);
		}
		t0 = bench_now();
		write_batch(c, t, len);
		if (reader) {
			if (t == T_LRB) {
				struct lrb_subbuf sb;

				while (!lrb_get_subbuf(c->lrb, cpu, &sb))
					lrb_put_subbuf(c->lrb, cpu, &sb);
			} else if (t == T_FTRACE) {
				while (ring_buffer_read_page(c->rb, c->rb_page,
							     PAGE_SIZE, cpu, 0) >= 0)
					;
			}
		}
		sum += bench_now() - t0;
	}
	return div_u64(sum * 1000, batches * BATCH);
}

static void bench_writes(void)
{
	static const size_t lens[] = { 4, 8, 16, 64, 256 };
	static u64 v[T_NR][MAX_REPS], rf[MAX_REPS], rfl[MAX_REPS], rp[MAX_REPS];
	/* LRB's default clock is local_clock(), the one given to the others. */
	struct lrb_config cfg = {
		.subbuf_size = SUBBUF,
		.num_subbufs = NSUBBUF,
		.mode = LRB_MODE_OVERWRITE,
	};
	struct bench_ctx c = {};
	int l, r, t, rd, cpu;

	c.lrb = lrb_channel_create(&cfg);
	c.rb = ring_buffer_alloc(SUBBUF * NSUBBUF, RB_FL_OVERWRITE);
	cpu = raw_smp_processor_id();
	if (!IS_ERR(c.lrb) && c.rb)
		ring_buffer_alloc_read_page(c.rb, cpu, &c.rb_page);
	if (IS_ERR(c.lrb) || !c.rb || !c.rb_page) {
		pr_err("table 2: setup failed\n");
		goto out;
	}
	ring_buffer_set_clock(c.rb, local_clock);
	for (l = 0; l < ARRAY_SIZE(lens); l++)
		lrb_set_record_len(c.lrb, bench_id(lens[l]), lens[l]);
	pr_info("table 2: write cost per event, ns (min median max over %d reps of %d events); clock local_clock() under all three; %s\n",
		reps, batches * BATCH, IS_ENABLED(CONFIG_LRB_SYNC_LOCAL) ?
		"LRB_SYNC_LOCAL" : "LRB_SYNC_IRQOFF");
	for (rd = 0; rd < 2; rd++) {
		for (l = 0; l < ARRAY_SIZE(lens); l++) {
			for (r = 0; r < reps; r++) {
				for (t = 0; t < T_NR; t++)
					v[t][r] = time_writes(&c, t, lens[l], rd);
				rf[r] = bench_ratio(v[T_LRB][r], v[T_FTRACE][r]);
				rfl[r] = bench_ratio(v[T_LRB][r], v[T_FLOOR][r]);
				rp[r] = bench_ratio(v[T_LRB][r], v[T_PROTO][r]);
			}
			pr_info(" payload %zu bytes, %s:\n", lens[l],
				rd ? "reader draining" : "writer only");
			pr_mmm("lrb reserve+write+commit",
			       summarize(v[T_LRB], reps), "ns");
			pr_mmm("ftrace lock_reserve+unlock_commit",
			       summarize(v[T_FTRACE], reps), "ns");
			if (!rd) {
				pr_mmm("floor (clock+store+local_add)",
				       summarize(v[T_FLOOR], reps), "ns");
				pr_mmm("floor+cmpxchg+add_return (local)",
				       summarize(v[T_PROTO], reps), "ns");
			}
			pr_mmm("ratio lrb / ftrace", summarize(rf, reps), "x");
			if (!rd) {
				pr_mmm("ratio lrb / floor", summarize(rfl, reps), "x");
				pr_mmm("ratio lrb / floor+rmw",
				       summarize(rp, reps), "x");
			}
		}
	}
out:
	if (c.rb_page)
		ring_buffer_free_read_page(c.rb, cpu, c.rb_page);
	if (c.rb)
		ring_buffer_free(c.rb);
	if (!IS_ERR(c.lrb))
		lrb_channel_destroy(c.lrb);
}

/* ---- 3. marker sites: the method of the 2007 markers thread ---- */

#ifdef CONFIG_LRB_MARKERS

#define MARK_ARRAY	(10UL << 20)	/* bytes read at random between calls */
#define MARK_SITES	40

static int mark_loops = 100000;
module_param(mark_loops, int, 0444);
MODULE_PARM_DESC(mark_loops, "calls per repetition of the marker table");

static u32 *mark_array;
static u32 mark_sink;

/* The function as CONFIG_LRB_MARKERS=n compiles it: no site left. */
static noinline void mark_none(u32 v)
{
	WRITE_ONCE(mark_sink, v);
}

/* The same function with 40 marker sites. */
static noinline void mark_40(u32 v)
{
	WRITE_ONCE(mark_sink, v);
	LRB_MARK(lrb_bench_m00, u32, v, v);
	LRB_MARK(lrb_bench_m01, u32, v, v);
	LRB_MARK(lrb_bench_m02, u32, v, v);
	LRB_MARK(lrb_bench_m03, u32, v, v);
	LRB_MARK(lrb_bench_m04, u32, v, v);
	LRB_MARK(lrb_bench_m05, u32, v, v);
	LRB_MARK(lrb_bench_m06, u32, v, v);
	LRB_MARK(lrb_bench_m07, u32, v, v);
	LRB_MARK(lrb_bench_m08, u32, v, v);
	LRB_MARK(lrb_bench_m09, u32, v, v);
	LRB_MARK(lrb_bench_m10, u32, v, v);
	LRB_MARK(lrb_bench_m11, u32, v, v);
	LRB_MARK(lrb_bench_m12, u32, v, v);
	LRB_MARK(lrb_bench_m13, u32, v, v);
	LRB_MARK(lrb_bench_m14, u32, v, v);
	LRB_MARK(lrb_bench_m15, u32, v, v);
	LRB_MARK(lrb_bench_m16, u32, v, v);
	LRB_MARK(lrb_bench_m17, u32, v, v);
	LRB_MARK(lrb_bench_m18, u32, v, v);
	LRB_MARK(lrb_bench_m19, u32, v, v);
	LRB_MARK(lrb_bench_m20, u32, v, v);
	LRB_MARK(lrb_bench_m21, u32, v, v);
	LRB_MARK(lrb_bench_m22, u32, v, v);
	LRB_MARK(lrb_bench_m23, u32, v, v);
	LRB_MARK(lrb_bench_m24, u32, v, v);
	LRB_MARK(lrb_bench_m25, u32, v, v);
	LRB_MARK(lrb_bench_m26, u32, v, v);
	LRB_MARK(lrb_bench_m27, u32, v, v);
	LRB_MARK(lrb_bench_m28, u32, v, v);
	LRB_MARK(lrb_bench_m29, u32, v, v);
	LRB_MARK(lrb_bench_m30, u32, v, v);
	LRB_MARK(lrb_bench_m31, u32, v, v);
	LRB_MARK(lrb_bench_m32, u32, v, v);
	LRB_MARK(lrb_bench_m33, u32, v, v);
	LRB_MARK(lrb_bench_m34, u32, v, v);
	LRB_MARK(lrb_bench_m35, u32, v, v);
	LRB_MARK(lrb_bench_m36, u32, v, v);
	LRB_MARK(lrb_bench_m37, u32, v, v);
	LRB_MARK(lrb_bench_m38, u32, v, v);
	LRB_MARK(lrb_bench_m39, u32, v, v);
}

/*
 * ns per iteration, in 1/1000: three random reads in a 10 MB array (cache
 * misses, as a real workload has around its instrumentation), then a call.
 */
static u64 time_marks(void (*fn)(u32 v))
{
	u32 x = 2463534242U, sum = 0;
	u64 t0, t1;
	int i;

	t0 = bench_now();
	for (i = 0; i < mark_loops; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		sum += READ_ONCE(mark_array[x % (MARK_ARRAY / 4)]);
		sum += READ_ONCE(mark_array[(x >> 7) % (MARK_ARRAY / 4)]);
		sum += READ_ONCE(mark_array[(x >> 13) % (MARK_ARRAY / 4)]);
		fn(sum);
	}
	t1 = bench_now();
	return div_u64((t1 - t0) * 1000, mark_loops);
}

static void bench_markers(void)
{
	static u64 none[MAX_REPS], off[MAX_REPS], on[MAX_REPS];
	struct lrb_config cfg = {
		.subbuf_size = SUBBUF, .num_subbufs = NSUBBUF,
		.mode = LRB_MODE_OVERWRITE,
	};
	struct lrb_events_owner owner;
	struct lrb_channel *chan;
	struct mmm n, d, e;
	u64 q;
	int r;

	mark_loops = max(mark_loops, 100);
	mark_array = vmalloc(MARK_ARRAY);
	chan = lrb_channel_create(&cfg);
	if (!mark_array || IS_ERR(chan)) {
		pr_info("table 3: no memory\n");
		goto out;
	}
	memset(mark_array, 1, MARK_ARRAY);
	/* Compiled out and disabled alternate, so drift hits both alike. */
	for (r = 0; r < reps; r++) {
		none[r] = time_marks(mark_none);
		off[r] = time_marks(mark_40);
	}
	lrb_events_owner_init(&owner);
	if (lrb_events_command(&owner, "enable lrb_bench_m*") ||
	    lrb_events_start(&owner, chan)) {
		pr_info("table 3: cannot enable the bench markers\n");
		lrb_events_owner_release(&owner);
		goto out;
	}
	for (r = 0; r < reps; r++)
		on[r] = time_marks(mark_40);
	lrb_events_stop(&owner);
	lrb_events_owner_release(&owner);

	n = summarize(none, reps);
	d = summarize(off, reps);
	e = summarize(on, reps);
	pr_info("table 3: %d marker sites in a function called between 3 random reads of a 10 MB array; ns per call (min median max over %d reps of %d calls)%s\n",
		MARK_SITES, reps, mark_loops,
		IS_ENABLED(CONFIG_JUMP_LABEL) ? "" :
		"; no CONFIG_JUMP_LABEL here: a disabled site is a load and a branch, not a NOP");
	pr_mmm("compiled out (CONFIG_LRB_MARKERS=n)", n, "");
	pr_mmm("40 sites, disabled", d, "");
	pr_mmm("40 sites, enabled (40 records/call)", e, "");
	q = bench_ratio(d.med, n.med);
	pr_info("  disabled / compiled out (medians): %llu.%03llu; per disabled site: %lld ps\n",
		q / 1000, q % 1000, div_s64((s64)(d.med - n.med), MARK_SITES));
out:
	if (!IS_ERR_OR_NULL(chan))
		lrb_channel_destroy(chan);
	vfree(mark_array);
}

#else

static void bench_markers(void)
{
	pr_info("table 3: CONFIG_LRB_MARKERS is not set\n");
}

#endif /* CONFIG_LRB_MARKERS */

/* ---- 4. reader throughput ---- */

static void bench_reader(void)
{
	struct lrb_config cfg = {
		.subbuf_size = SUBBUF,
		.num_subbufs = NSUBBUF,
		.mode = LRB_MODE_DISCARD,
		.clock = local_clock,
	};
	static u64 v[MAX_REPS], vc[MAX_REPS];
	struct lrb_channel *chan;
	int r, cpu, i;

	chan = lrb_channel_create(&cfg);
	if (IS_ERR(chan)) {
		pr_err("table 4: setup failed\n");
		return;
	}
	for (r = 0; r < reps; r++) {
		struct lrb_subbuf sb;
		u64 bytes = 0, content = 0, t0, t;

		cpu = get_cpu();
		for (i = 0; i < SUBBUF * NSUBBUF /
			    (LRB_HEADER_SIZE + LRB_LEN_SIZE + 16); i++)
			lrb_write_record(chan, 1, payload, 16);
		put_cpu();
		lrb_flush(chan, cpu);
		t0 = bench_now();
		while (!lrb_get_subbuf(chan, cpu, &sb)) {
			struct lrb_record_iter it = {};
			struct lrb_record rec;

			while (lrb_record_next(&sb, &it, &rec))
				bytes += rec.len;
			content += sb.content_size;
			lrb_put_subbuf(chan, cpu, &sb);
		}
		t = max_t(u64, 1, bench_now() - t0);
		/* MB/s of payload, x1000 */
		v[r] = div64_u64(bytes * 1000 * 1000, t);
		vc[r] = div64_u64(content * 1000 * 1000, t);
	}
	pr_info("table 4: in-kernel reader, decoding every record (min median max over %d reps)\n",
		reps);
	pr_mmm("payload drained", summarize(v, reps), "MB/s");
	pr_mmm("packets drained (headers included)", summarize(vc, reps), "MB/s");
	lrb_channel_destroy(chan);
}

/* Events of @len bytes written on this CPU until @chan refuses one. */
static unsigned long fill_lrb(struct lrb_channel *chan, unsigned int id,
			      size_t len)
{
	unsigned long n = 0;

	while (!lrb_write_record(chan, id, payload, len))
		n++;
	return n;
}

/*
 * How many 8-byte events one CPU's 1 MiB holds: LRB's in 64 sub-buffers of
 * 16 KiB (lrb-record's default), with and without a fixed length; the
 * ftrace ring buffer's in 256 pages, each with a 16-byte header
 * (BUF_PAGE_HDR_SIZE, private to ring_buffer.c), and the reader page it
 * adds.
 */
#define RB_PAGE_DATA	(PAGE_SIZE - 16)

static void bench_capacity(void)
{
	struct lrb_config cfg = {
		.subbuf_size = 16384,
		.num_subbufs = 64,
		.mode = LRB_MODE_DISCARD,
	};
	unsigned long fixed = 0, sized = 0, ftrace = 0;
	struct lrb_channel *chan;
	struct trace_buffer *rb;
	int cpu;

	chan = lrb_channel_create(&cfg);
	rb = ring_buffer_alloc(256 * RB_PAGE_DATA, 0);
	if (IS_ERR(chan) || !rb) {
		pr_err("table 2b: setup failed\n");
		goto out;
	}
	cpu = get_cpu();
	lrb_set_record_len(chan, 2, 8);
	fixed = fill_lrb(chan, 2, 8);
	put_cpu();
	lrb_channel_destroy(chan);
	chan = lrb_channel_create(&cfg);
	if (IS_ERR(chan))
		goto out;
	cpu = get_cpu();
	sized = fill_lrb(chan, 3, 8);
	while (!ring_buffer_write(rb, 8, payload))
		ftrace++;
	pr_info("table 2b: 8-byte events one CPU's 1 MiB holds (ftrace: %lu pages)\n",
		ring_buffer_size(rb, cpu) / RB_PAGE_DATA);
	put_cpu();
	pr_info(" lrb, fixed length          %lu\n", fixed);
	pr_info(" lrb, with its length word  %lu\n", sized);
	pr_info(" ftrace ring buffer         %lu\n", ftrace);
out:
	if (rb)
		ring_buffer_free(rb);
	if (!IS_ERR(chan))
		lrb_channel_destroy(chan);
}

/* ---- 5. a trace event: LRB's generated probe against ftrace's ---- */

#ifdef CONFIG_LRB_TRACE_EVENTS

#define TE_EVENTS	4096	/* per repetition: fits the channel */

/* ns per event x1000 of @TE_EVENTS hits of the bench tracepoint. */
static u64 time_trace_event(void)
{
	u64 t0 = bench_now();
	int i;

	for (i = 0; i < TE_EVENTS; i++)
		trace_lrb_bench_event(i, i + 1, i + 2, i + 3, i + 4, "lrb_bench");
	return div_u64((bench_now() - t0) * 1000, TE_EVENTS);
}

/*
 * The same record written by a direct lrb_reserve() + lrb_commit(): what
 * the probe costs beyond the buffer (the tracepoint, the size and
 * TP_fast_assign()).
 */
static u64 time_direct(struct lrb_channel *chan, size_t len)
{
	struct lrb_slot slot;
	u64 t0;
	int i;

	preempt_disable();
	t0 = bench_now();
	for (i = 0; i < TE_EVENTS; i++) {
		if (lrb_reserve(chan, &slot, 1, len))
			continue;
		memset(slot.data, i, len);
		lrb_commit(&slot);
	}
	t0 = bench_now() - t0;
	preempt_enable();
	return div_u64(t0 * 1000, TE_EVENTS);
}

/*
 * Each repetition times the tracepoint with no probe, with LRB's probe
 * (recording into an LRB channel) and with ftrace's (recording into an
 * ftrace instance, "lrb_bench", whose buffers have the size any new
 * instance gets), one after the other. The run creates the instance and
 * removes it; an instance of that name made by someone else is used and
 * removed too, so leave the name to the benchmark.
 */
static void bench_trace_event(void)
{
	struct lrb_config cfg = {
		.subbuf_size = SUBBUF,
		.num_subbufs = NSUBBUF,
		.mode = LRB_MODE_OVERWRITE,
	};
	static u64 vn[MAX_REPS], vl[MAX_REPS], vf[MAX_REPS], vd[MAX_REPS];
	static u64 rr[MAX_REPS];
	/*
	 * The record of the bench event: 5 * 4 + 4 bytes, "lrb_bench"; its
	 * entry less the 8 bytes of common fields, which ftrace's has and
	 * the channel does not record.
	 */
	size_t len = 24 + sizeof("lrb_bench");
	struct lrb_events_owner owner;
	struct lrb_channel *chan;
	struct trace_array *tr;
	int r;

	chan = lrb_channel_create(&cfg);
	if (IS_ERR(chan)) {
		pr_err("table 5: setup failed\n");
		return;
	}
	lrb_events_owner_init(&owner);
	tr = trace_array_get_by_name("lrb_bench", NULL);
	if (!tr ||
	    lrb_events_command(&owner, "enable lrb_bench:lrb_bench_event"))
		goto fail;
	for (r = 0; r < reps; r++) {
		vn[r] = time_trace_event();
		vd[r] = time_direct(chan, len);
		if (lrb_events_start(&owner, chan))
			goto fail;
		vl[r] = time_trace_event();
		lrb_events_stop(&owner);
		if (trace_array_set_clr_event(tr, "lrb_bench",
					      "lrb_bench_event", true))
			goto fail;
		vf[r] = time_trace_event();
		if (trace_array_set_clr_event(tr, "lrb_bench",
					      "lrb_bench_event", false))
			goto fail;
		rr[r] = bench_ratio(vl[r], vf[r]);
	}
	pr_info("table 5: one trace event (5 ints and a 10-byte string), ns per event (min median max over %d reps of %d events); %s\n",
		reps, TE_EVENTS, IS_ENABLED(CONFIG_LRB_SYNC_LOCAL) ?
		"LRB_SYNC_LOCAL" : "LRB_SYNC_IRQOFF");
	pr_mmm("tracepoint, no probe attached", summarize(vn, reps), "ns");
	pr_mmm("LRB reserve+memset+commit, same size", summarize(vd, reps), "ns");
	pr_mmm("LRB stage probe into a channel", summarize(vl, reps), "ns");
	pr_mmm("ftrace trace event into an instance", summarize(vf, reps), "ns");
	pr_mmm("ratio lrb / ftrace", summarize(rr, reps), "x");
	goto out;
fail:
	pr_err("table 5: cannot attach the bench event\n");
out:
	if (tr) {
		trace_array_put(tr);
		if (trace_array_destroy(tr))
			pr_warn("table 5: ftrace instance lrb_bench in use: not removed\n");
	}
	lrb_events_owner_release(&owner);
	lrb_channel_destroy(chan);
}

#else

static void bench_trace_event(void)
{
	pr_info("table 5: CONFIG_LRB_TRACE_EVENTS is not set\n");
}

#endif /* CONFIG_LRB_TRACE_EVENTS */

/* ---- 6. sub-buffer switches, by sub-buffer size ---- */

#define SW_SIZES	6	/* 4 KiB to 4 MiB, by factors of 4 */
#define SW_NSUB		4

/*
 * Events per repetition of tables 6 and 7 at the default batches (200),
 * the same for every size so that each size has the same chances of
 * meeting host noise: a lap and a half of the largest channel of table 6.
 */
#define SW_EVENTS	(6UL * (LRB_SUBBUF_SIZE_MAX / 16))

static unsigned long sw_events(void)
{
	return max(SW_EVENTS * batches / 200, 1024UL);
}

/* Picoseconds per event of @n 8-byte records, written back to back. */
static u64 time_stream(struct lrb_channel *chan, unsigned long n)
{
	unsigned long i;
	u64 t0 = bench_now();

	for (i = 0; i < n; i++)
		lrb_write_record(chan, 1, payload, 8);
	return div_u64((bench_now() - t0) * 1000, n);
}

/*
 * Single writes are timed with the cycle counter: ktime advances by 256 ns
 * in UML. On x86 (UML included, which runs natively) that is the TSC, at a
 * rate calibrated against ktime; elsewhere ktime itself.
 */
#ifdef CONFIG_X86_64
static __always_inline u64 bench_cycles(void)
{
	u32 lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return ((u64)hi << 32) | lo;
}
#else
static __always_inline u64 bench_cycles(void)
{
	return ktime_get_ns();
}
#endif

static u64 cycles_per_ms;

static void bench_calibrate(void)
{
	u64 t0 = bench_now(), c0 = bench_cycles(), t;

	do {
		t = bench_now() - t0;
	} while (t < 20 * NSEC_PER_MSEC);
	cycles_per_ms = max_t(u64, 1, div64_u64((bench_cycles() - c0) *
						NSEC_PER_MSEC, t));
}

static u64 cycles_to_ps(u64 c)
{
	return div64_u64(c * 1000 * NSEC_PER_MSEC, cycles_per_ms);
}

struct worst {
	u64 switch_sum;		/* cycles of the writes that opened a sub-buffer */
	unsigned long switches;
	u64 switch_max;
	u64 other_max;		/* the longest of the other writes */
};

/* What time_each_write() does before each write, outside the timing. */
#define TW_WARM		BIT(0)	/* read the two headers the next switch writes */
#define TW_DRAIN	BIT(1)	/* smp_mb(): wait for the stores of earlier writes */
#define TW_EVICT	BIT(2)	/* before a switch, store into evict_mem */
#define TW_CODE		BIT(3)	/* before a switch, switch code_chan */

/* TW_CODE's channel: small, so that filling it costs little. */
static struct lrb_channel *code_chan;

/* TW_EVICT's memory: as much as a sub-buffer of the largest size. */
static u64 *evict_mem;
#define EVICT_SIZE	LRB_SUBBUF_SIZE_MAX

static void drain_stores(void)
{
	/* Not paired: the stores before it reach the caches here. */
	smp_mb();
}

/*
 * Time each of @n writes, interrupts off so that an interrupt is not timed
 * with it. A write whose slot does not follow the previous one opened a
 * sub-buffer (switching out of the previous one, and here taking one back
 * from the reader). With TW_WARM in @how, the two packet headers the next
 * switch writes (the open sub-buffer's and the next one's) are read before
 * each write, outside the timing: what is left of the switch is not the
 * cache and TLB misses on headers last touched a lap ago. With TW_DRAIN as
 * well, a full barrier before each write waits for the stores of the
 * writes before it: the switch's own full barriers (LRB-W3, LRB-W4) would
 * otherwise wait for them, which in a buffer larger than the caches takes
 * as long as the memory takes to accept them (see time_drain()). With
 * TW_EVICT, before each write that opens a sub-buffer, EVICT_SIZE bytes
 * are stored elsewhere: small sub-buffers then open as they would after
 * writing the largest, with the switch's code and data evicted. With
 * TW_CODE, before each write that opens a sub-buffer, code_chan is written
 * until it switches: the switch's code is then in cache, its data not.
 */
static void time_each_write(struct lrb_channel *chan, unsigned long n,
			    unsigned int how, struct worst *w)
{
	const struct lrb_config *cfg = lrb_channel_config(chan);
	const void *prev = NULL, *cur = NULL, *next = NULL, *lo = NULL;
	unsigned long i, j, flags, seen = 0;
	struct lrb_slot slot;
	bool opens;
	u64 c0, c;

	memset(w, 0, sizeof(*w));
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		/* The next record, 16 bytes from prev + 8, opens a sub-buffer. */
		opens = cur && prev + 8 + 16 > cur + cfg->subbuf_size;
		if ((how & TW_EVICT) && opens)
			for (j = 0; j < EVICT_SIZE / sizeof(u64); j += 2)
				WRITE_ONCE(evict_mem[j], i);
		if ((how & TW_CODE) && opens)
			for (j = 0; j <= lrb_channel_config(code_chan)->subbuf_size / 16; j++)
				lrb_write_record(code_chan, 1, payload, 8);
		if ((how & TW_WARM) && next) {
			READ_ONCE(*(const u8 *)cur);
			READ_ONCE(*(const u8 *)(cur + 64));
			READ_ONCE(*(const u8 *)next);
			READ_ONCE(*(const u8 *)(next + 64));
		}
		if (how & TW_DRAIN)
			drain_stores();
		c0 = bench_cycles();
		if (!lrb_reserve(chan, &slot, 1, 8)) {
			lrb_write(&slot, 0, payload, 8);
			lrb_commit(&slot);
		}
		c = bench_cycles() - c0;
		/*
		 * The same sub-buffer: the record after a compact header and
		 * its length (14 bytes on), an extended one (23: the clock
		 * jumped), or none (refused).
		 */
		if (slot.data == prev + 14 || slot.data == prev + 23 ||
		    slot.data == prev) {
			w->other_max = max(w->other_max, c);
			prev = slot.data;
			continue;
		}
		w->switch_sum += c;
		w->switches++;
		w->switch_max = max(w->switch_max, c);
		prev = slot.data;
		/*
		 * The sub-buffers are contiguous: after a lap, we know them
		 * all, and after the last comes the first. An extended header
		 * (2^27 ns since the last record; on 32-bit, the clock's bits
		 * above 27 changed) puts cur, or lo, 9 bytes
		 * on: testing where next's sub-buffer would end keeps next in
		 * the buffer either way, at worst warming the first sub-buffer
		 * where the last comes next.
		 */
		cur = slot.data - LRB_HEADER_SIZE - LRB_LEN_SIZE -
		      sizeof(struct lrb_packet_header);
		if (!lo || cur < lo)
			lo = cur;
		if (++seen > cfg->num_subbufs) {
			next = cur + cfg->subbuf_size;
			if (next + cfg->subbuf_size >
			    lo + cfg->subbuf_size * cfg->num_subbufs)
				next = lo;
		}
	}
	local_irq_restore(flags);
}

/*
 * The reference for the switches of @cfg's channel: @n 16-byte stores, as
 * many as the records of time_each_write(), into @mem, of the channel's
 * size, lap after lap, and a full barrier timed where a sub-buffer would
 * end, into @w as if each barrier were a switch. Its cost is the memory's:
 * waiting for the stores before it.
 */
static void time_drain(const struct lrb_config *cfg, u64 *mem,
		       unsigned long n, struct worst *w)
{
	size_t size = cfg->subbuf_size * cfg->num_subbufs;
	unsigned long i, flags, per_subbuf = cfg->subbuf_size / 16;
	u64 c0, c;

	memset(w, 0, sizeof(*w));
	local_irq_save(flags);
	for (i = 0; i < n; i++) {
		u64 *p = mem + 2 * (i % (size / 16));

		WRITE_ONCE(p[0], i);
		WRITE_ONCE(p[1], i);
		if ((i + 1) % per_subbuf)
			continue;
		c0 = bench_cycles();
		/* Measured, not paired: what a switch's barriers wait for. */
		smp_mb();
		c = bench_cycles() - c0;
		w->switch_sum += c;
		w->switches++;
		w->switch_max = max(w->switch_max, c);
	}
	local_irq_restore(flags);
}

static u64 worst_mean(const struct worst *w)
{
	return cycles_to_ps(div64_u64(w->switch_sum, max(w->switches, 1UL)));
}

/*
 * The longest lrb_get_subbuf() + lrb_put_subbuf() draining @cpu, in ps:
 * the reader's time with interrupts off, at most.
 */
static u64 time_worst_get(struct lrb_channel *chan, int cpu)
{
	struct lrb_subbuf sb;
	u64 c0, c, worst = 0;
	int ret;

	lrb_flush(chan, cpu);
	do {
		c0 = bench_cycles();
		ret = lrb_get_subbuf(chan, cpu, &sb);
		if (!ret)
			lrb_put_subbuf(chan, cpu, &sb);
		c = bench_cycles() - c0;
		if (!ret)
			worst = max(worst, c);
	} while (!ret);
	return cycles_to_ps(worst);
}

/*
 * 4 KiB sub-buffers that open as if 4 MiB had been written since the last
 * switch: the cost that grows with the sub-buffer size, on its own.
 */
static void bench_switches_evicted(void)
{
	static u64 em[MAX_REPS], ex[MAX_REPS], dm[MAX_REPS], dx[MAX_REPS];
	struct lrb_config cfg = {
		.subbuf_size = 4096,
		.num_subbufs = SW_NSUB,
		.mode = LRB_MODE_OVERWRITE,
	};
	/* 64 timed switches after the first lap at the default batches. */
	unsigned long n = (max(64UL * batches / 200, 4UL) + SW_NSUB) *
			  (cfg.subbuf_size / 16);
	struct lrb_channel *chan = lrb_channel_create(&cfg);
	struct worst w;
	int r;

	evict_mem = vmalloc(EVICT_SIZE);
	if (IS_ERR(chan) || !evict_mem) {
		pr_err("table 6: setup failed\n");
		goto out;
	}
	for (r = 0; r < reps; r++) {
		get_cpu();
		time_each_write(chan, n, TW_EVICT, &w);
		em[r] = worst_mean(&w);
		ex[r] = cycles_to_ps(w.switch_max);
		time_each_write(chan, n, TW_EVICT | TW_WARM | TW_DRAIN, &w);
		dm[r] = worst_mean(&w);
		dx[r] = cycles_to_ps(w.switch_max);
		put_cpu();
	}
	pr_info(" sub-buffers of 4 KiB, %lu KiB stored elsewhere before each switch:\n",
		EVICT_SIZE >> 10);
	pr_mmm("write opening a sub-buffer, mean", summarize(em, reps), "ns");
	pr_mmm("write opening a sub-buffer, worst", summarize(ex, reps), "ns");
	pr_mmm("the same, stores drained, mean", summarize(dm, reps), "ns");
	pr_mmm("the same, stores drained, worst", summarize(dx, reps), "ns");
out:
	if (!IS_ERR(chan))
		lrb_channel_destroy(chan);
	vfree(evict_mem);
	evict_mem = NULL;
}

static void bench_switches(void)
{
	static u64 v[MAX_REPS], sm[MAX_REPS], sx[MAX_REPS], ox[MAX_REPS];
	static u64 wm[MAX_REPS], dm[MAX_REPS], dx[MAX_REPS], bm[MAX_REPS];
	static u64 cm[MAX_REPS], cx[MAX_REPS], g[MAX_REPS];
	struct lrb_config small = {
		.subbuf_size = 4096,
		.num_subbufs = SW_NSUB,
		.mode = LRB_MODE_OVERWRITE,
	};
	unsigned long n = sw_events();
	struct worst w;
	int s, r, cpu;
	u64 *mem;

	code_chan = lrb_channel_create(&small);
	if (IS_ERR(code_chan)) {
		pr_err("table 6: setup failed\n");
		return;
	}
	bench_calibrate();
	pr_info("table 6: overwrite mode without a reader (each sub-buffer switch takes one back from the reader), %d sub-buffers, 8-byte payload, %lu events per rep; single writes timed by the cycle counter (%llu per ms), interrupts off; min median max over %d reps\n",
		SW_NSUB, n, cycles_per_ms, reps);
	for (s = 0; s < SW_SIZES; s++) {
		struct lrb_config cfg = {
			.subbuf_size = 4096UL << (2 * s),
			.num_subbufs = SW_NSUB,
			.mode = LRB_MODE_OVERWRITE,
		};
		struct lrb_channel *chan = lrb_channel_create(&cfg);

		mem = vmalloc(cfg.subbuf_size * cfg.num_subbufs);
		if (IS_ERR(chan) || !mem) {
			pr_err("table 6: setup failed\n");
			if (!IS_ERR(chan))
				lrb_channel_destroy(chan);
			vfree(mem);
			break;
		}
		for (r = 0; r < reps; r++) {
			cpu = get_cpu();
			v[r] = time_stream(chan, n);
			time_each_write(chan, n, 0, &w);
			sm[r] = worst_mean(&w);
			sx[r] = cycles_to_ps(w.switch_max);
			ox[r] = cycles_to_ps(w.other_max);
			time_each_write(chan, n, TW_WARM, &w);
			wm[r] = worst_mean(&w);
			time_each_write(chan, n, TW_WARM | TW_DRAIN, &w);
			dm[r] = worst_mean(&w);
			dx[r] = cycles_to_ps(w.switch_max);
			time_each_write(chan, n, TW_WARM | TW_DRAIN | TW_CODE, &w);
			cm[r] = worst_mean(&w);
			cx[r] = cycles_to_ps(w.switch_max);
			time_drain(&cfg, mem, n, &w);
			bm[r] = worst_mean(&w);
			put_cpu();
			g[r] = time_worst_get(chan, cpu);
		}
		pr_info(" sub-buffers of %lu KiB (%lu records each):\n",
			cfg.subbuf_size >> 10, cfg.subbuf_size / 16);
		pr_mmm("ns per event", summarize(v, reps), "ns");
		pr_mmm("write opening a sub-buffer, mean", summarize(sm, reps), "ns");
		pr_mmm("write opening a sub-buffer, worst", summarize(sx, reps), "ns");
		pr_mmm("the same, headers in cache, mean", summarize(wm, reps), "ns");
		pr_mmm("the same, stores drained, mean", summarize(dm, reps), "ns");
		pr_mmm("the same, stores drained, worst", summarize(dx, reps), "ns");
		pr_mmm("the same, switch code hot, mean", summarize(cm, reps), "ns");
		pr_mmm("the same, switch code hot, worst", summarize(cx, reps), "ns");
		pr_mmm("smp_mb() after the stores, mean", summarize(bm, reps), "ns");
		pr_mmm("any other write, worst", summarize(ox, reps), "ns");
		pr_mmm("get+put, worst (draining)", summarize(g, reps), "ns");
		lrb_channel_destroy(chan);
		vfree(mem);
	}
	lrb_channel_destroy(code_chan);
	code_chan = NULL;
	if (s == SW_SIZES)
		bench_switches_evicted();
}

/* ---- 7. cache-cold writes ---- */

static void bench_cold(void)
{
	struct lrb_config hot = {
		.subbuf_size = 4096,
		.num_subbufs = SW_NSUB,
		.mode = LRB_MODE_OVERWRITE,
	};
	struct lrb_config cold = {
		.subbuf_size = LRB_SUBBUF_SIZE_MAX,
		.num_subbufs = LRB_CPU_BUF_SIZE_MAX / LRB_SUBBUF_SIZE_MAX,
		.mode = LRB_MODE_OVERWRITE,
	};
	static u64 vh[MAX_REPS], vc[MAX_REPS], ratio[MAX_REPS];
	unsigned long n = max(sw_events(), LRB_CPU_BUF_SIZE_MAX / 16 *
			      batches / 200);
	struct lrb_channel *ch, *cc;
	int r;

	ch = lrb_channel_create(&hot);
	cc = lrb_channel_create(&cold);
	if (IS_ERR(ch) || IS_ERR(cc)) {
		pr_err("table 7: setup failed\n");
		goto out;
	}
	pr_info("table 7: cache-cold writes: a %lu MiB buffer, each slot written once per lap, against a %lu KiB one that stays in cache; 8-byte payload, %lu events per rep, ns per event (min median max over %d reps)\n",
		LRB_CPU_BUF_SIZE_MAX >> 20, (hot.subbuf_size * SW_NSUB) >> 10,
		n, reps);
	for (r = 0; r < reps; r++) {
		get_cpu();
		vh[r] = time_stream(ch, n);
		vc[r] = time_stream(cc, n);
		put_cpu();
		ratio[r] = bench_ratio(vc[r], vh[r]);
	}
	pr_mmm("hot (16 KiB buffer)", summarize(vh, reps), "ns");
	pr_mmm("cold (64 MiB buffer)", summarize(vc, reps), "ns");
	pr_mmm("ratio cold / hot", summarize(ratio, reps), "x");
out:
	if (!IS_ERR(ch))
		lrb_channel_destroy(ch);
	if (!IS_ERR(cc))
		lrb_channel_destroy(cc);
}

/* ---- 8. a writer for user-space readers ---- */

#ifdef CONFIG_LRB_TRACE_EVENTS

/*
 * Writing MS to the "writer" parameter starts a kernel thread on CPU 0
 * that hits the bench tracepoint for MS milliseconds as fast as it can,
 * for user-space readers to drain whatever has the event enabled (an LRB
 * channel's stream files, an ftrace instance's trace_pipe_raw), mapped or
 * read. Reading the parameter gives 1 while the thread writes, 0
 * otherwise. The thread yields whenever the scheduler asks: on one CPU,
 * readers run when it does.
 */
static DEFINE_MUTEX(writer_lock);
static struct task_struct *writer_task;	/* under writer_lock; holds a ref */
static atomic_t writer_busy;

static int writer_fn(void *data)
{
	u64 end = bench_now() + (u64)(unsigned long)data * NSEC_PER_MSEC;
	u32 i = 0;

	while (!kthread_should_stop() && bench_now() < end) {
		do {
			trace_lrb_bench_event(i, i + 1, i + 2, i + 3, i + 4,
					      "lrb_bench");
		} while (++i % 64);
		cond_resched();
	}
	/* Pairs with atomic_read_acquire() in writer_get(). */
	atomic_set_release(&writer_busy, 0);
	return 0;
}

/* Stop and release the thread of the last start, done or not. */
static void writer_stop(void)
{
	if (writer_task)
		kthread_stop_put(writer_task);
	writer_task = NULL;
	/* A thread stopped before it ran did not clear it. */
	atomic_set(&writer_busy, 0);
}

/*
 * Starts wait for the module to be initialized (a parameter given at load
 * or on the kernel command line is set before kthreads can run, and the
 * tables would run beside the writer) and stop once its exit has begun.
 */
static bool writer_may_start(void)
{
#ifdef MODULE
	return THIS_MODULE->state == MODULE_STATE_LIVE;
#else
	return system_state == SYSTEM_RUNNING;
#endif
}

static int writer_set(const char *val, const struct kernel_param *kp)
{
	struct task_struct *t;
	unsigned int ms;
	int ret;

	ret = kstrtouint(val, 0, &ms);
	if (ret)
		return ret;
	if (!ms || ms > 60 * MSEC_PER_SEC)
		return -EINVAL;
	mutex_lock(&writer_lock);
	ret = -EBUSY;
	if (!writer_may_start() || atomic_read(&writer_busy))
		goto out;
	writer_stop();
	/* CPU 0 stays online from the check to the wakeup. */
	cpus_read_lock();
	ret = -ENODEV;
	if (!cpu_online(0))
		goto out_cpus;
	t = kthread_create(writer_fn, (void *)(unsigned long)ms,
			   "lrb_bench_writer");
	ret = PTR_ERR_OR_ZERO(t);
	if (ret)
		goto out_cpus;
	kthread_bind(t, 0);
	get_task_struct(t);
	writer_task = t;
	atomic_set(&writer_busy, 1);
	wake_up_process(t);
out_cpus:
	cpus_read_unlock();
out:
	mutex_unlock(&writer_lock);
	return ret;
}

static int writer_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read_acquire(&writer_busy));
}

static const struct kernel_param_ops writer_ops = {
	.set = writer_set,
	.get = writer_get,
};
module_param_cb(writer, &writer_ops, NULL, 0600);
MODULE_PARM_DESC(writer, "write MS: hit the bench event for MS ms (at most 60000) from a thread on CPU 0; reads 1 while it writes");

static void writer_exit(void)
{
	mutex_lock(&writer_lock);
	writer_stop();
	mutex_unlock(&writer_lock);
}

#else

static void writer_exit(void)
{
}

#endif /* CONFIG_LRB_TRACE_EVENTS */

/* ---- 8. filters: a filtered trace event, LRB's against ftrace's ---- */

#ifdef CONFIG_LRB_TRACE_EVENTS

#if IS_BUILTIN(CONFIG_LRB_BENCHMARK)
/*
 * Set the filter of the bench event in ftrace's instance lrb_bench as its
 * filter file does. ftrace exports no way to, so only a built-in
 * benchmark (UML's, where the timings are) compares filters.
 */
static int ftrace_bench_filter(char *expr)
{
	struct trace_event_file *file;
	int ret;

	file = trace_get_event_file("lrb_bench", "lrb_bench", "lrb_bench_event");
	if (IS_ERR(file))
		return PTR_ERR(file);
	mutex_lock(&event_mutex);
	ret = apply_event_filter(file, expr);
	mutex_unlock(&event_mutex);
	trace_put_event_file(file);
	return ret;
}
#else
static int ftrace_bench_filter(char *expr)
{
	return -EOPNOTSUPP;
}
#endif

/* A channel's owner of the bench event, with @expr as its filter if any. */
static int bench_owner(struct lrb_events_owner *o, const char *expr)
{
	char cmd[64];

	lrb_events_owner_init(o);
	if (lrb_events_command(o, "enable lrb_bench:lrb_bench_event"))
		return -EINVAL;
	if (!expr)
		return 0;
	snprintf(cmd, sizeof(cmd), "lrb_bench:lrb_bench_event %s", expr);
	return lrb_events_filter(o, cmd);
}

/* Time the bench event with @o's events running in @chan. */
static int time_owner(struct lrb_events_owner *o, struct lrb_channel *chan,
		      u64 *v)
{
	if (lrb_events_start(o, chan))
		return -EINVAL;
	*v = time_trace_event();
	lrb_events_stop(o);
	return 0;
}

/*
 * Each repetition times the bench event recorded by LRB without a
 * filter, with one that takes every record ("a >= 0") and with one that
 * takes none ("a < 0"), then by ftrace with the latter: a record a filter
 * refuses, LRB's cost against ftrace's, and what a filter costs a record
 * it takes. One channel, one owner per filter, started in turn.
 */
static void bench_filters(void)
{
	struct lrb_config cfg = {
		.subbuf_size = SUBBUF,
		.num_subbufs = NSUBBUF,
		.mode = LRB_MODE_OVERWRITE,
	};
	static u64 vn[MAX_REPS], vm[MAX_REPS], vo[MAX_REPS], vf[MAX_REPS];
	static u64 ro[MAX_REPS], rm[MAX_REPS];
	/* A channel whose targets leave this task out (a uid list). */
	static u64 vt[MAX_REPS], rt[MAX_REPS];
	struct lrb_events_owner other;
	char uid[] = "4242";
	int other_ret;
	struct lrb_events_owner none, all, out;
	char expr[] = "a < 0";
	struct lrb_channel *chan;
	struct trace_array *tr;
	int r;

	if (!IS_BUILTIN(CONFIG_LRB_BENCHMARK)) {
		pr_info("table 8: skipped: ftrace exports no way to set a filter to a module (lrb_bench built in runs it)\n");
		return;
	}
	chan = lrb_channel_create(&cfg);
	if (IS_ERR(chan)) {
		pr_err("table 8: setup failed\n");
		return;
	}
	tr = trace_array_get_by_name("lrb_bench", NULL);
	/* Set up whatever fails below, so that it can be released. */
	other_ret = bench_owner(&other, NULL);
	/* Not ||: each owner is set up, so that each can be released. */
	if (bench_owner(&none, NULL) | bench_owner(&all, "a >= 0") |
	    bench_owner(&out, "a < 0") || !tr || ftrace_bench_filter(expr))
		goto fail;
	if (other_ret || lrb_target_uids(&other, uid))
		goto fail;
	for (r = 0; r < reps; r++) {
		if (time_owner(&none, chan, &vn[r]) ||
		    time_owner(&all, chan, &vm[r]) ||
		    time_owner(&out, chan, &vo[r]) ||
		    time_owner(&other, chan, &vt[r]) ||
		    trace_array_set_clr_event(tr, "lrb_bench",
					      "lrb_bench_event", true))
			goto fail;
		vf[r] = time_trace_event();
		if (trace_array_set_clr_event(tr, "lrb_bench",
					      "lrb_bench_event", false))
			goto fail;
		ro[r] = bench_ratio(vo[r], vf[r]);
		rm[r] = bench_ratio(vm[r], vn[r]);
		rt[r] = bench_ratio(vt[r], vn[r]);
	}
	pr_info("table 8: the bench event with a filter, ns per event (min median max over %d reps of %d events); %s\n",
		reps, TE_EVENTS, IS_ENABLED(CONFIG_LRB_SYNC_LOCAL) ?
		"LRB_SYNC_LOCAL" : "LRB_SYNC_IRQOFF");
	pr_mmm("LRB, no filter", summarize(vn, reps), "ns");
	pr_mmm("LRB, a filter that takes it", summarize(vm, reps), "ns");
	pr_mmm("LRB, a filter that refuses it", summarize(vo, reps), "ns");
	pr_mmm("ftrace, a filter that refuses it", summarize(vf, reps), "ns");
	pr_mmm("ratio refused: lrb / ftrace", summarize(ro, reps), "x");
	pr_mmm("ratio taken / no filter, lrb", summarize(rm, reps), "x");
	pr_mmm("LRB, a task its targets leave out", summarize(vt, reps), "ns");
	pr_mmm("ratio left out / no filter, lrb", summarize(rt, reps), "x");
	goto out;
fail:
	pr_err("table 8: cannot attach the bench event or set its filters\n");
out:
	if (tr) {
		trace_array_put(tr);
		if (trace_array_destroy(tr))
			pr_warn("table 8: ftrace instance lrb_bench in use: not removed\n");
	}
	lrb_events_owner_release(&none);
	lrb_events_owner_release(&all);
	lrb_events_owner_release(&out);
	lrb_target_release(&other);
	lrb_events_owner_release(&other);
	lrb_channel_destroy(chan);
}

#else

static void bench_filters(void)
{
	pr_info("table 8: CONFIG_LRB_TRACE_EVENTS is not set\n");
}

#endif /* CONFIG_LRB_TRACE_EVENTS */

static int __init lrb_bench_init(void)
{
	if (!run)
		return 0;
	reps = clamp(reps, 3, MAX_REPS);
	loops = max(loops, 1000);
	batches = max(batches, 1);
	pr_info("start: %d reps; timings are meaningful only on native execution (UML or hardware), not under an emulator\n",
		reps);
	bench_primitives();
	bench_writes();
	bench_capacity();
	bench_markers();
	bench_reader();
	bench_trace_event();
	/* Beside table 5, which it extends. */
	bench_filters();
	bench_switches();
	bench_cold();
	pr_info("done\n");
	return 0;
}

/* Built in: after every other initcall, LRB's own (linked earlier) too. */
late_initcall_sync(lrb_bench_init);

/* Everything the run used was freed when it ended; a writer may be left. */
static void __exit lrb_bench_exit(void)
{
	writer_exit();
}
module_exit(lrb_bench_exit);

MODULE_DESCRIPTION("LRB benchmark against the ftrace ring buffer");
MODULE_LICENSE("GPL");
