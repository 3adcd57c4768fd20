// SPDX-License-Identifier: GPL-2.0
/*
 * LRB torture test: writers in every context on every CPU, a concurrent
 * reader, CPU hotplug, and exact accounting at the end.
 *
 * Built in, it runs from boot when lrb_torture.duration is set, for
 * example
 *	lrb_torture.duration=600 lrb_torture.mode=1
 * As a module it runs from its loading, for duration seconds or, with
 * duration=0, until it is unloaded:
 *	modprobe lrb_torture duration=60; ...; rmmod lrb_torture
 * Either way the test runs in kthreads and boot or modprobe goes on; at
 * the end, or at rmmod if that comes first, it stops every writer,
 * reconciles, prints a result block ending in "lrb_torture: PASS" or
 * "FAIL", and frees what it allocated. CPU hotplug is kernel/torture.c's
 * (torture_onoff), so one torture test runs at a time.
 *
 * Writers, on every online CPU: a kthread (task), a pinned timer
 * (softirq), a pinned hard hrtimer (hardirq) and, on x86, an NMI handler
 * fed by NMI IPIs that a sender thread sends to the other online CPUs.
 * Each record carries its CPU, context, writer, sequence number, length
 * and a checksum of a payload of varying length. The reader takes
 * sub-buffers while the writers run and checks every record; the counts
 * of writers, reader and buffer are reconciled exactly at the end.
 */

#define pr_fmt(fmt) "lrb_torture: " fmt

#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/init.h>
#include <linux/kthread.h>
#include <linux/lrb.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nmi.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <linux/torture.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#endif

static int duration;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run; 0: built in, do not run; a module runs until unloaded");
static int mode;
module_param(mode, int, 0444);
MODULE_PARM_DESC(mode, "0: discard, 1: overwrite");
static int subbuf_size = 512;
module_param(subbuf_size, int, 0444);
MODULE_PARM_DESC(subbuf_size, "bytes per sub-buffer");
static int num_subbufs = 4;
module_param(num_subbufs, int, 0444);
MODULE_PARM_DESC(num_subbufs, "sub-buffers per CPU");
static int hrtimer_us = 50;
module_param(hrtimer_us, int, 0444);
MODULE_PARM_DESC(hrtimer_us, "hardirq writer period, us");
static int nmi_us = 20;
module_param(nmi_us, int, 0444);
MODULE_PARM_DESC(nmi_us, "NMI IPI period, us; 0: no NMI writers");
static int hotplug_ms = 300;
module_param(hotplug_ms, int, 0444);
MODULE_PARM_DESC(hotplug_ms, "CPU hotplug period (an offline and an online), ms; 0: none");
static int reader_us = 200;
module_param(reader_us, int, 0444);
MODULE_PARM_DESC(reader_us, "reader sleep when nothing is ready, us");

enum { CTX_TASK, CTX_SOFTIRQ, CTX_HARDIRQ, CTX_NMI, CTX_NR };
static const char *const ctx_name[CTX_NR] = {
	"task", "softirq", "hardirq", "nmi"
};

#define MAX_EXTRA	40
#define TOO_BIG_EVERY	997

struct torture_rec {
	u16 cpu;
	u8 ctx;
	u8 extra;
	u32 writer;
	u64 seq;
	u32 csum;
	u32 pad;
	u8 data[];
};

/* Per CPU (the CPU whose buffer was written) and context. */
struct torture_count {
	atomic_long_t attempts;
	atomic_long_t reserved;
	atomic_long_t delivered;
	atomic_long_t enospc;
	atomic_long_t e2big;
	atomic_long_t ebusy;
};

/* One writer: a home CPU and a context. */
struct torture_writer {
	int cpu;
	int ctx;
	u64 seq;
	struct task_struct *task;
	struct timer_list timer;
	struct hrtimer hrtimer;
};

static struct lrb_channel *chan;
static struct torture_count (*counts)[CTX_NR];
static struct torture_writer *writers;	/* [nr_cpu_ids * CTX_NR] */
static u64 *last_seq;			/* [nr_cpu_ids * nr writers] */
static atomic_long_t *open_slots;	/* [nr_cpu_ids] */
static atomic_long_t *nmis, *nmis_inside;
static atomic_long_t bad_csum, bad_order, bad_cpu, bad_len, put_eio;
static atomic_long_t bad_packet;

/* The last packet the reader took from a CPU, as a CTF reader sees it. */
struct torture_packet {
	u64 seq, discarded;
	bool seen;
};

static struct torture_packet *packets;	/* [nr_cpu_ids] */
static u64 *rd_scratch;			/* [nr writers], for the reader */
static atomic_long_t hotplug_cycles;
static int setup_errors;
static bool stop;
static char *lrb_torture_name = "lrb_torture";
static struct task_struct *reader, *control;

static u32 torture_csum(const struct torture_rec *r)
{
	u32 h = 2166136261u;
	const u8 *p = (const u8 *)r;
	size_t i;

	for (i = 0; i < offsetof(struct torture_rec, csum); i++)
		h = (h ^ p[i]) * 16777619u;
	for (i = 0; i < r->extra; i++)
		h = (h ^ r->data[i]) * 16777619u;
	return h;
}

/* One record from writer @w, in its context, on the current CPU. */
static void torture_write(struct torture_writer *w)
{
	u8 buf[sizeof(struct torture_rec) + MAX_EXTRA] __aligned(8);
	struct torture_rec *r = (void *)buf;
	struct torture_count *c;
	struct lrb_slot slot;
	size_t len;
	int cpu, ret, i, id;

	preempt_disable();
	cpu = smp_processor_id();
	c = &counts[cpu][w->ctx];
	w->seq++;
	r->cpu = cpu;
	r->ctx = w->ctx;
	r->extra = w->seq % (MAX_EXTRA + 1);
	r->writer = w - writers;
	r->seq = w->seq;
	r->pad = 0;
	for (i = 0; i < r->extra; i++)
		r->data[i] = w->seq * 7 + i;
	r->csum = torture_csum(r);
	len = sizeof(*r) + r->extra;
	if (w->ctx == CTX_TASK && !(w->seq % TOO_BIG_EVERY))
		len = subbuf_size + 1;
	/* Records without extra bytes have an id of fixed length. */
	id = len == sizeof(*r) ? CTX_NR + w->ctx : w->ctx;

	atomic_long_inc(&c->attempts);
	if (w->ctx != CTX_NMI)
		atomic_long_inc(&open_slots[cpu]);
	ret = lrb_reserve(chan, &slot, id, len);
	if (!ret) {
		/* Keep the slot open a while so interrupts land inside. */
		lrb_write(&slot, 0, r, sizeof(*r));
		lrb_write(&slot, sizeof(*r), r->data, r->extra);
		lrb_commit(&slot);
		atomic_long_inc(&c->reserved);
	} else if (ret == -ENOSPC) {
		atomic_long_inc(&c->enospc);
	} else if (ret == -E2BIG) {
		atomic_long_inc(&c->e2big);
	} else {
		atomic_long_inc(&c->ebusy);
	}
	if (w->ctx != CTX_NMI)
		atomic_long_dec(&open_slots[cpu]);
	preempt_enable();
}

static int torture_task(void *arg)
{
	struct torture_writer *w = arg;

	while (!kthread_should_stop()) {
		torture_write(w);
		if (!(w->seq % 64))
			cond_resched();
	}
	return 0;
}

static void torture_timer_fn(struct timer_list *t)
{
	struct torture_writer *w = from_timer(w, t, timer);
	int i;

	for (i = 0; i < 8; i++)
		torture_write(w);
	if (!READ_ONCE(stop))
		mod_timer(&w->timer, jiffies + 1);
}

static enum hrtimer_restart torture_hrtimer_fn(struct hrtimer *t)
{
	struct torture_writer *w = container_of(t, struct torture_writer,
						hrtimer);

	torture_write(w);
	if (READ_ONCE(stop))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(hrtimer_us * NSEC_PER_USEC));
	return HRTIMER_RESTART;
}

static void torture_hrtimer_start(void *arg)
{
	struct torture_writer *w = arg;

	hrtimer_start(&w->hrtimer, ns_to_ktime(hrtimer_us * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

#ifdef CONFIG_X86_LOCAL_APIC
static struct task_struct *nmi_sender;
static bool nmi_armed;

static int torture_nmi(unsigned int type, struct pt_regs *regs)
{
	int cpu = smp_processor_id();

	if (!READ_ONCE(nmi_armed))
		return NMI_DONE;
	atomic_long_inc(&nmis[cpu]);
	if (atomic_long_read(&open_slots[cpu]))
		atomic_long_inc(&nmis_inside[cpu]);
	torture_write(&writers[cpu * CTX_NR + CTX_NMI]);
	return NMI_HANDLED;
}

/*
 * NMI IPIs only to online CPUs, with hotplug held off while sending: an
 * NMI that reaches a CPU while it boots kills it.
 */
static int torture_nmi_sender(void *arg)
{
	while (!kthread_should_stop()) {
		cpus_read_lock();
		apic->send_IPI_mask_allbutself(cpu_online_mask, NMI_VECTOR);
		cpus_read_unlock();
		udelay(nmi_us);
		cond_resched();
	}
	return 0;
}
#endif

/* Called by kernel/torture.c's torture_onoff after each offline. */
static void torture_offlined(void)
{
	atomic_long_inc(&hotplug_cycles);
}

/* What the check of one sub-buffer found. */
struct torture_check {
	long n[CTX_NR];
	long bad_csum, bad_order, bad_cpu, bad_len;
	long records;
	u64 first_ts, last_ts;
};

/*
 * Check one sub-buffer into @k, using and updating the sequence state
 * @seqs. Returns false if it is malformed (the rest is not parsed).
 */
static bool torture_check_subbuf(int cpu, const struct lrb_subbuf *sb,
				 struct torture_check *k, u64 *seqs)
{
	u8 copy[sizeof(struct torture_rec) + MAX_EXTRA] __aligned(8);
	const struct torture_rec *r = (void *)copy;
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	int nw = nr_cpu_ids * CTX_NR;

	while (lrb_record_next(sb, &it, &rec)) {
		/*
		 * In overwrite mode a writer may be reusing the sub-buffer
		 * (lrb_put_subbuf() will tell): check a copy, never the
		 * bytes that may change under us.
		 */
		if (rec.len < sizeof(*r) || rec.len > sizeof(copy)) {
			k->bad_len++;
			return false;
		}
		/* Racy by design in overwrite mode; the put validates. */
		data_race(memcpy(copy, rec.data, rec.len));
		if (rec.len != sizeof(*r) + r->extra || r->ctx >= CTX_NR ||
		    r->writer >= nw || rec.id % CTX_NR != r->ctx ||
		    rec.id / CTX_NR != !r->extra) {
			k->bad_len++;
			return false;
		}
		if (torture_csum(r) != r->csum) {
			k->bad_csum++;
			return false;
		}
		if (r->cpu != cpu)
			k->bad_cpu++;
		if (r->seq <= seqs[r->writer])
			k->bad_order++;
		seqs[r->writer] = r->seq;
		k->n[r->ctx]++;
		if (!k->records++)
			k->first_ts = rec.ts;
		k->last_ts = rec.ts;
	}
	return true;
}

/*
 * What a CTF reader relies on, per CPU: events_discarded never decreases,
 * packet_seq_num has no gap in discard mode (overwrite mode skips the
 * packets it reuses), and every record lies within its packet's time.
 */
static void torture_check_packet(int cpu, const struct lrb_packet_header *h,
				 const struct torture_check *k)
{
	struct torture_packet *p = &packets[cpu];
	const char *why = NULL;

	if (p->seen && h->events_discarded < p->discarded)
		why = "events_discarded decreased";
	else if (p->seen && !mode && h->packet_seq_num != p->seq + 1)
		why = "packet_seq_num gap";
	else if (k->records && (k->first_ts < h->timestamp_begin ||
				k->last_ts > h->timestamp_end))
		why = "record outside the packet's time";
	if (why) {
		atomic_long_inc(&bad_packet);
		pr_err("cpu %d packet %llu: %s (discarded %llu after %llu)\n",
		       cpu, h->packet_seq_num, why, h->events_discarded,
		       p->discarded);
	}
	p->seq = h->packet_seq_num;
	p->discarded = h->events_discarded;
	p->seen = true;
}

/*
 * Take every complete sub-buffer of @cpu; returns how many. What a
 * sub-buffer held counts only once lrb_put_subbuf() confirms that no
 * writer reused it meanwhile.
 */
static int torture_drain_cpu(int cpu, u64 *scratch)
{
	u64 *seqs = &last_seq[cpu * nr_cpu_ids * CTX_NR];
	size_t sz = nr_cpu_ids * CTX_NR * sizeof(u64);
	struct lrb_subbuf sb;
	int got = 0, ctx;

	while (!lrb_get_subbuf(chan, cpu, &sb)) {
		struct torture_check k = {};
		struct lrb_packet_header h;
		bool ok;

		memcpy(scratch, seqs, sz);
		/* Racy by design in overwrite mode; the put validates. */
		data_race(memcpy(&h, sb.data, sizeof(h)));
		ok = torture_check_subbuf(cpu, &sb, &k, scratch);
		if (lrb_put_subbuf(chan, cpu, &sb)) {
			atomic_long_inc(&put_eio);
			continue;
		}
		atomic_long_add(k.bad_csum, &bad_csum);
		atomic_long_add(k.bad_order, &bad_order);
		atomic_long_add(k.bad_cpu, &bad_cpu);
		atomic_long_add(k.bad_len, &bad_len);
		if (!ok) {
			pr_err("cpu %d: malformed sub-buffer at %llu\n", cpu, sb.pos);
			continue;
		}
		memcpy(seqs, scratch, sz);
		torture_check_packet(cpu, &h, &k);
		for (ctx = 0; ctx < CTX_NR; ctx++)
			atomic_long_add(k.n[ctx], &counts[cpu][ctx].delivered);
		got++;
	}
	return got;
}

static int torture_reader(void *arg)
{
	int cpu, got;

	while (!kthread_should_stop()) {
		got = 0;
		for_each_possible_cpu(cpu)
			got += torture_drain_cpu(cpu, rd_scratch);
		if (!got)
			usleep_range(reader_us, 2 * reader_us);
	}
	return 0;
}

static long cnt(atomic_long_t *a)
{
	return atomic_long_read(a);
}

/* Reconcile and print; returns the number of failed checks. */
static int torture_report(void)
{
	int cpu, ctx, fails = 0;

	pr_info("mode %s, %d x %d bytes, %s, %d s\n",
		mode ? "overwrite" : "discard", num_subbufs, subbuf_size,
		IS_ENABLED(CONFIG_LRB_SYNC_LOCAL) ? "LRB_SYNC_LOCAL" :
		"LRB_SYNC_IRQOFF", duration);
	for_each_possible_cpu(cpu) {
		long att = 0, res = 0, del = 0, full = 0, big = 0, busy = 0;
		long lost_sum = 0;
		struct lrb_stats st;
		int i;

		for (ctx = 0; ctx < CTX_NR; ctx++) {
			struct torture_count *c = &counts[cpu][ctx];

			pr_info("cpu %d %-7s written %ld reserved %ld delivered %ld lost: full %ld too_big %ld busy %ld overwritten %ld\n",
				cpu, ctx_name[ctx], cnt(&c->attempts),
				cnt(&c->reserved), cnt(&c->delivered),
				cnt(&c->enospc), cnt(&c->e2big), cnt(&c->ebusy),
				cnt(&c->reserved) - cnt(&c->delivered));
			att += cnt(&c->attempts);
			res += cnt(&c->reserved);
			del += cnt(&c->delivered);
			full += cnt(&c->enospc);
			big += cnt(&c->e2big);
			busy += cnt(&c->ebusy);
			if (!mode && cnt(&c->reserved) != cnt(&c->delivered)) {
				pr_err("FAIL cpu %d %s: reserved != delivered in discard mode\n",
				       cpu, ctx_name[ctx]);
				fails++;
			}
		}
		if (IS_ENABLED(CONFIG_LRB_SYNC_IRQOFF) &&
		    cnt(&counts[cpu][CTX_NMI].reserved)) {
			pr_err("FAIL cpu %d: NMI writes reserved with LRB_SYNC_IRQOFF\n",
			       cpu);
			fails++;
		}
		lrb_stats_read(chan, cpu, &st);
		for (i = 0; i < LRB_LOST_NR; i++)
			lost_sum += st.lost[i];
		pr_info("cpu %d buffer: written %llu delivered %llu lost: full %llu overwritten %llu too_big %llu nested %llu nmi %llu; corrupt sub-buffers %llu; NMIs %ld, inside a reservation %ld\n",
			cpu, st.written, st.delivered, st.lost[LRB_LOST_FULL],
			st.lost[LRB_LOST_OVERWRITTEN], st.lost[LRB_LOST_TOO_BIG],
			st.lost[LRB_LOST_NESTED], st.lost[LRB_LOST_NMI],
			st.subbufs_corrupt, cnt(&nmis[cpu]),
			cnt(&nmis_inside[cpu]));
		/* Skipped records are lost uncounted: never expected here. */
		if (st.subbufs_corrupt) {
			pr_err("FAIL cpu %d: the reader skipped corrupt sub-buffers\n",
			       cpu);
			fails++;
		}
		if (st.written != att || st.delivered != del ||
		    st.written != st.delivered + lost_sum ||
		    st.lost[LRB_LOST_FULL] != full ||
		    st.lost[LRB_LOST_TOO_BIG] != big ||
		    st.lost[LRB_LOST_NESTED] + st.lost[LRB_LOST_NMI] != busy ||
		    st.lost[LRB_LOST_OVERWRITTEN] != res - del) {
			pr_err("FAIL cpu %d: counts do not reconcile (written %ld, reserved %ld, delivered %ld)\n",
			       cpu, att, res, del);
			fails++;
		}
	}
	pr_info("hotplug cycles %ld (errors %d); reader: bad checksum %ld, bad order %ld, bad cpu %ld, bad length %ld, bad packet %ld, overwritten while held %ld\n",
		cnt(&hotplug_cycles), torture_onoff_failures(), cnt(&bad_csum),
		cnt(&bad_order), cnt(&bad_cpu), cnt(&bad_len),
		cnt(&bad_packet), cnt(&put_eio));
	if (cnt(&bad_csum) || cnt(&bad_order) || cnt(&bad_cpu) ||
	    cnt(&bad_len) || cnt(&bad_packet) || torture_onoff_failures() ||
	    setup_errors)
		fails++;
	return fails;
}

static void torture_free(void)
{
	if (!IS_ERR_OR_NULL(chan))
		lrb_channel_destroy(chan);
	chan = NULL;
	kfree(counts);
	kfree(writers);
	kfree(last_seq);
	kfree(rd_scratch);
	kfree(open_slots);
	kfree(nmis);
	kfree(nmis_inside);
	kfree(packets);
}

static int torture_alloc(void)
{
	struct lrb_config cfg = {
		.subbuf_size = subbuf_size,
		.num_subbufs = num_subbufs,
		.mode = mode ? LRB_MODE_OVERWRITE : LRB_MODE_DISCARD,
	};
	int nw = nr_cpu_ids * CTX_NR;
	int i;

	chan = lrb_channel_create(&cfg);
	if (IS_ERR(chan))
		return PTR_ERR(chan);
	for (i = 0; i < CTX_NR; i++)
		lrb_set_record_len(chan, CTX_NR + i, sizeof(struct torture_rec));
	counts = kcalloc(nr_cpu_ids, sizeof(*counts), GFP_KERNEL);
	writers = kcalloc(nw, sizeof(*writers), GFP_KERNEL);
	last_seq = kcalloc((size_t)nr_cpu_ids * nw, sizeof(u64), GFP_KERNEL);
	rd_scratch = kcalloc(nw, sizeof(u64), GFP_KERNEL);
	open_slots = kcalloc(nr_cpu_ids, sizeof(*open_slots), GFP_KERNEL);
	nmis = kcalloc(nr_cpu_ids, sizeof(*nmis), GFP_KERNEL);
	nmis_inside = kcalloc(nr_cpu_ids, sizeof(*nmis), GFP_KERNEL);
	packets = kcalloc(nr_cpu_ids, sizeof(*packets), GFP_KERNEL);
	if (!counts || !writers || !last_seq || !rd_scratch || !open_slots ||
	    !nmis || !nmis_inside || !packets)
		return -ENOMEM;
	for (i = 0; i < nw; i++) {
		writers[i].cpu = i / CTX_NR;
		writers[i].ctx = i % CTX_NR;
	}
	return 0;
}

/* Start the writers of every online CPU, the NMI sender and the reader. */
static void torture_start(void)
{
	int cpu;

	reader = kthread_run(torture_reader, NULL, "lrb_torture_rd");
	if (IS_ERR(reader))
		setup_errors++;
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		struct torture_writer *w = &writers[cpu * CTX_NR];

		w[CTX_TASK].task = kthread_create(torture_task, &w[CTX_TASK],
						  "lrb_torture/%d", cpu);
		if (!IS_ERR(w[CTX_TASK].task)) {
			set_cpus_allowed_ptr(w[CTX_TASK].task, cpumask_of(cpu));
			wake_up_process(w[CTX_TASK].task);
		} else {
			setup_errors++;
		}
		timer_setup(&w[CTX_SOFTIRQ].timer, torture_timer_fn, TIMER_PINNED);
		w[CTX_SOFTIRQ].timer.expires = jiffies + 1;
		add_timer_on(&w[CTX_SOFTIRQ].timer, cpu);
		hrtimer_init(&w[CTX_HARDIRQ].hrtimer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_REL_PINNED_HARD);
		w[CTX_HARDIRQ].hrtimer.function = torture_hrtimer_fn;
		smp_call_function_single(cpu, torture_hrtimer_start,
					 &w[CTX_HARDIRQ], 1);
	}
	cpus_read_unlock();
#ifdef CONFIG_X86_LOCAL_APIC
	if (nmi_us && !register_nmi_handler(NMI_LOCAL, torture_nmi, 0,
					    "lrb_torture")) {
		WRITE_ONCE(nmi_armed, true);
		nmi_sender = kthread_run(torture_nmi_sender, NULL,
					 "lrb_torture_nmi");
	}
#endif
	/* Half a period per operation: an offline, then an online. */
	if (hotplug_ms && num_online_cpus() > 1 &&
	    torture_onoff_init(HZ / 10, max(msecs_to_jiffies(hotplug_ms) / 2, 1UL),
			       torture_offlined))
		setup_errors++;
}

/* Stop everything, reconcile, report, free. */
static void torture_stop(void)
{
	int cpu, i;

	/* Hotplug first: kernel/torture.c brings every CPU back online. */
	torture_cleanup_begin();
	WRITE_ONCE(stop, true);
#ifdef CONFIG_X86_LOCAL_APIC
	if (!IS_ERR_OR_NULL(nmi_sender))
		kthread_stop(nmi_sender);
	if (READ_ONCE(nmi_armed)) {
		WRITE_ONCE(nmi_armed, false);
		unregister_nmi_handler(NMI_LOCAL, "lrb_torture");
	}
#endif
	for (i = 0; i < nr_cpu_ids * CTX_NR; i++) {
		struct torture_writer *w = &writers[i];

		if (w->ctx == CTX_TASK && !IS_ERR_OR_NULL(w->task))
			kthread_stop(w->task);
		if (w->ctx == CTX_SOFTIRQ && w->timer.function)
			del_timer_sync(&w->timer);
		if (w->ctx == CTX_HARDIRQ && w->hrtimer.function)
			hrtimer_cancel(&w->hrtimer);
	}
	if (!IS_ERR_OR_NULL(reader))
		kthread_stop(reader);

	/* Deliver the tails and drain. */
	for_each_possible_cpu(cpu) {
		lrb_flush(chan, cpu);
		torture_drain_cpu(cpu, rd_scratch);
	}
	pr_info("%s\n", torture_report() ? "FAIL" : "PASS");
	torture_free();
	torture_cleanup_end();
}

/*
 * Runs the test for its duration, or until the module is unloaded, then
 * stops it. A module's thread then waits for lrb_torture_exit() to stop
 * it, so that the task it stops is still there.
 */
static int torture_control(void *arg)
{
	unsigned long end = jiffies + (unsigned long)duration * HZ;

	while (!kthread_should_stop() &&
	       (!duration || time_before(jiffies, end)))
		schedule_timeout_interruptible(HZ / 10);
	torture_stop();
	while (IS_MODULE(CONFIG_LRB_TORTURE) && !kthread_should_stop())
		schedule_timeout_interruptible(HZ);
	return 0;
}

static int __init lrb_torture_init(void)
{
	int ret;

	if (!duration && !IS_MODULE(CONFIG_LRB_TORTURE))
		return 0;
	if (!torture_init_begin(lrb_torture_name, 0))
		return -EBUSY;
	ret = torture_alloc();
	if (ret)
		goto fail;
	if (duration)
		pr_info("running for %d s\n", duration);
	else
		pr_info("running until the module is unloaded\n");
	torture_start();
	control = kthread_run(torture_control, NULL, "lrb_torture");
	if (IS_ERR(control)) {
		ret = PTR_ERR(control);
		control = NULL;
		torture_init_end();
		torture_stop();
		return ret;
	}
	torture_init_end();
	return 0;
fail:
	pr_err("FAIL: setup (%d)\n", ret);
	torture_free();
	torture_init_end();
	torture_cleanup_begin();
	torture_cleanup_end();
	return ret;
}
late_initcall(lrb_torture_init);

static void __exit lrb_torture_exit(void)
{
	if (control)
		kthread_stop(control);
}
module_exit(lrb_torture_exit);

MODULE_DESCRIPTION("LRB torture test");
MODULE_LICENSE("GPL");
