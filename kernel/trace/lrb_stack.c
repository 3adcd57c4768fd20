// SPDX-License-Identifier: GPL-2.0
/*
 * LRB kernel stacks: the kernel call stack of a trace event's record, as
 * ftrace's stacktrace trigger and LTTng's callstack-kernel context give
 * it, for the links a channel asked for with "stack SELECTOR DEPTH".
 *
 * The stack is a record of its own, kernel_stack, written right after the
 * event's record was committed, as ftrace writes a kernel_stack entry
 * beside the event: the event's record stays ftrace's entry, byte for
 * byte, and the metadata of a channel does not depend on its links, so
 * stacks can be turned on and off while it runs. The record names the
 * event it belongs to by id. A reader pairs it with the last record of
 * that id before it on the same CPU that has no stack yet: an interrupt
 * that comes between the two writes its own records and their stacks in
 * full before the interrupted writer goes on, so the pairs nest.
 *
 * The first address is the return address into the function that hit
 * the tracepoint: the frames of LRB's write path, of the link's probe and
 * of the tracepoint's iterator, if it has one, are left out. Their code
 * is looked up in kallsyms once, when the link starts
 * (lrb_stack_skip_set()), so a record only compares addresses: no name
 * lookup in the probe, which may run in an NMI. The stack of a probe hit
 * that has registers (a kprobe's, an fprobe's) is taken from them, as
 * ftrace takes it: it starts at the probed instruction. Without kallsyms
 * nothing is known to skip, and the probe's frames stay. A record is
 * written only for a record the channel took: one a filter refused, or
 * the channel lost, has none.
 *
 * Each CPU has one array of addresses per level of nesting, as a channel
 * takes that many writers at once; a stack for a fifth level is counted
 * lost.
 */

#include <linux/kallsyms.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/percpu.h>
#include <linux/seq_buf.h>
#include <linux/stacktrace.h>

#include "lrb_events.h"

/* Frames of the probe and of the iterator, at most, above the caller. */
#define LRB_STACK_SKIP_MAX	8
#define LRB_STACK_SAVE		(LRB_STACK_DEPTH_MAX + LRB_STACK_SKIP_MAX)

/**
 * struct lrb_stack_record - the record of kernel_stack
 * @event_id: the id of the event whose record it follows.
 * @nr: entries of @ips.
 * @ips: the return addresses, innermost first.
 */
struct lrb_stack_record {
	u32 event_id;
	u32 nr;
	u64 ips[];
};

/**
 * struct lrb_stack_cpu - a CPU's arrays of addresses
 * @depth: arrays in use; only this CPU's writers change it, each one
 *	restoring it.
 * @ips: one array per level of nesting.
 */
struct lrb_stack_cpu {
	unsigned int depth;
	unsigned long ips[LRB_NESTING_MAX][LRB_STACK_SAVE];
};

/* Made for the first stack asked for and kept. */
static struct lrb_stack_cpu __percpu *lrb_stack_cpus;

static int lrb_stack_describe(struct lrb_event *ev, struct seq_buf *s)
{
	lrb_tsdl_integer(s, "event_id", 32, 0, "");
	lrb_tsdl_integer(s, "_ips_length", 32, 0, "");
	lrb_tsdl_integer(s, "ips", 64, LRB_TSDL_HEX, "[__ips_length]");
	return 0;
}

/* In an oops dump: the caller, by name. */
static void lrb_stack_print(struct lrb_event *ev, struct seq_buf *s,
			    const void *data, size_t len)
{
	const struct lrb_stack_record *r = data;

	if (len < sizeof(*r) || !r->nr || len < struct_size(r, ips, r->nr))
		return;
	seq_buf_printf(s, " event_id=%u nr=%u %pS", r->event_id, r->nr,
		       (void *)(unsigned long)r->ips[0]);
}

/* Written after the records of the links with stacks: nothing to attach. */
static int lrb_stack_start(struct lrb_event_link *l)
{
	return 0;
}

static void lrb_stack_stop(struct lrb_event_link *l)
{
}

static struct lrb_event lrb_stack_ev = {
	.name = "kernel_stack",
	.start = lrb_stack_start,
	.stop = lrb_stack_stop,
	.describe = lrb_stack_describe,
	.print = lrb_stack_print,
};

/**
 * lrb_stack_alloc() - make the arrays the stacks are taken into
 *
 * Called under the registry's mutex when a channel asks for stacks.
 *
 * Return: the id of the kernel_stack event, which the channel's metadata
 * must describe; -ENOMEM; -ENODEV if the event is not registered.
 */
int lrb_stack_alloc(void)
{
	struct lrb_stack_cpu __percpu *cpus;

	if (!lrb_stack_ev.id)
		return -ENODEV;
	if (lrb_stack_cpus)
		return lrb_stack_ev.id;
	cpus = alloc_percpu(struct lrb_stack_cpu);
	if (!cpus)
		return -ENOMEM;
	/* Links get a depth after this, with a release (lrb_events.c). */
	WRITE_ONCE(lrb_stack_cpus, cpus);
	return lrb_stack_ev.id;
}

/* LRB's own frames above a probe, looked up once (lrb_stack_init()). */
static struct lrb_code lrb_stack_own[2] __ro_after_init;

/* The code of the function at @fn, by kallsyms; empty if unknown. */
static void lrb_code_set(struct lrb_code *c, const void *fn)
{
	unsigned long ip = (unsigned long)fn, size, off;

	c->start = 0;
	c->end = 0;
	if (fn && kallsyms_lookup_size_offset(ip, &size, &off)) {
		c->start = ip - off;
		c->end = c->start + size;
	}
}

static bool lrb_code_has(const struct lrb_code *c, unsigned long ip)
{
	return ip - c->start < c->end - c->start;
}

/**
 * lrb_stack_skip_set() - the code whose frames a link's stacks leave out
 * @l: the link, starting.
 * @fns: the functions between the function that hit the event and
 *	lrb_trace_event_commit(): the probe, the writers it calls, the
 *	tracepoint's iterator (which calls the probe when the tracepoint
 *	has more than one or no static call); NULL entries are ignored.
 * @n: how many, at most LRB_STACK_SKIP_FNS.
 *
 * In process context, before @l runs: their bounds are looked up here,
 * once, so that lrb_stack_write() compares addresses only.
 */
void lrb_stack_skip_set(struct lrb_event_link *l, const void *const *fns,
			unsigned int n)
{
	unsigned int i;

	for (i = 0; i < LRB_STACK_SKIP_FNS; i++)
		lrb_code_set(&l->stack_skip[i], i < n ? fns[i] : NULL);
}

/* Is @ip in LRB's write path, or in @l's probe path? */
static bool lrb_stack_is_probe(const struct lrb_event_link *l,
			       unsigned long ip)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lrb_stack_own); i++)
		if (lrb_code_has(&lrb_stack_own[i], ip))
			return true;
	for (i = 0; i < LRB_STACK_SKIP_FNS; i++)
		if (lrb_code_has(&l->stack_skip[i], ip))
			return true;
	return false;
}

/* The frames above the function that hit the tracepoint. */
static unsigned int lrb_stack_skip(const struct lrb_event_link *l,
				   const unsigned long *ips, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr && i < LRB_STACK_SKIP_MAX; i++)
		if (!lrb_stack_is_probe(l, ips[i]))
			break;
	return i;
}

/* The record of @nr addresses from @ips, for the event of @l. */
static void lrb_stack_commit(struct lrb_event_link *l, const unsigned long *ips,
			     unsigned int nr)
{
	struct lrb_slot slot __uninitialized;
	struct lrb_stack_record *r;
	unsigned int i;

	if (lrb_reserve(l->chan, &slot, l->owner->stack_id,
			struct_size(r, ips, nr)))
		return;
	r = slot.data;
	r->event_id = l->id;
	r->nr = nr;
	for (i = 0; i < nr; i++)
		r->ips[i] = ips[i];
	lrb_commit(&slot);
}

/**
 * lrb_stack_write() - record the kernel stack of the record just committed
 * @l: the link whose record it was, with a stack depth.
 * @regs: the registers of the probe hit that wrote it (a kprobe's, an
 *	fprobe's), from which its stack is taken; NULL for the probe of a
 *	tracepoint, whose stack starts at the function that hit it.
 *
 * Called by the event's probe, in the context of its tracepoint; at most
 * @l's depth of addresses.
 */
noinline void lrb_stack_write(struct lrb_event_link *l, struct pt_regs *regs)
{
	unsigned int d, nr, skip;
	struct lrb_stack_cpu *c;
	unsigned long *ips;

	/*
	 * Pairs with the release that gave @l its depth (lrb_stack_set()),
	 * after the arrays were made and zeroed and the channel had an id
	 * for stacks: the caller read the depth.
	 */
	smp_rmb();
	c = this_cpu_ptr(READ_ONCE(lrb_stack_cpus));
	d = READ_ONCE(c->depth);
	if (unlikely(d >= LRB_NESTING_MAX)) {
		lrb_count_lost(l->chan, LRB_LOST_NESTED);
		return;
	}
	/* An interrupt that comes now takes the next array. */
	WRITE_ONCE(c->depth, d + 1);
	barrier();
	ips = c->ips[d];
	if (regs) {
		nr = stack_trace_save_regs(regs, ips, LRB_STACK_SAVE, 0);
		skip = 0;
	} else {
		nr = stack_trace_save(ips, LRB_STACK_SAVE, 0);
		skip = lrb_stack_skip(l, ips, nr);
	}
	lrb_stack_commit(l, ips + skip,
			 min(nr - skip, READ_ONCE(l->stack)));
	barrier();
	WRITE_ONCE(c->depth, d);
}

static int __init lrb_stack_init(void)
{
	int ret = lrb_event_register(&lrb_stack_ev);

	lrb_code_set(&lrb_stack_own[0], lrb_stack_write);
	lrb_code_set(&lrb_stack_own[1], lrb_trace_event_commit);

	if (ret)
		pr_warn("lrb: kernel_stack not registered: %d\n", ret);
	return 0;
}
device_initcall(lrb_stack_init);
