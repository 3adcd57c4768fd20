// SPDX-License-Identifier: GPL-2.0
/*
 * LRB trace events: every trace event of the kernel and of its modules
 * recordable into LRB channels, named SYSTEM:EVENT as in ftrace.
 *
 * Events defined with TRACE_EVENT() are recorded by the probe the LRB
 * stage generates for their class (include/trace/lrb.h), registered on
 * the tracepoint once per (event, channel) link. The system call events
 * (syscalls:sys_enter_NAME, syscalls:sys_exit_NAME) have no class of
 * their own: one pair of probes on the raw sys_enter/sys_exit tracepoints
 * serves them all, as in ftrace.
 *
 * Dynamic events (kprobes, ...) are written by their provider, where it
 * writes them for perf, through a scratch entry that LRB copies into each
 * channel (lrb_trace_event_put()); they join the registry when they are
 * created and leave it when they are removed.
 *
 * A record is the ftrace entry of the event byte for byte, from its first
 * field on: the event's fields, then its dynamic data. ftrace's common
 * fields (struct trace_entry: type, flags, preempt count, pid) come first
 * only in a channel that asks for them (lrb_events_common()): the type
 * repeats the record's id, and the rest is a context most traces do not
 * need in every record. Either way the fields keep ftrace's offsets, so
 * the probes assign them where ftrace's do, and the CTF description is
 * generated from the same field list that ftrace's format file prints
 * (trace_get_fields()): no layout is written down twice.
 */

#include <kunit/visibility.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/prio.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/syscalls.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/unaligned.h>
#include <asm/syscall.h>
#include <trace/syscall.h>
#ifdef CONFIG_FTRACE_SYSCALLS
#include <trace/events/syscalls.h>
#endif

#include "trace.h"
#include "lrb_events.h"

/**
 * struct lrb_trace_event - a trace event in the LRB registry
 * @ev: the registry's event.
 * @call: ftrace's event.
 * @list: in lrb_trace_events.
 * @lttng_name: lttng-modules' name for it, if it has the event.
 * @sc_strs: a system call entry's arguments that are user-space strings,
 *	a bit each (set once, at registration).
 * @fixed: a dynamic event's bytes before its dynamic data.
 * @nr_locs: the number of its dynamic data.
 * @locs: the offsets of their locations in its entry.
 * @name: SYSTEM:EVENT.
 */
struct lrb_trace_event {
	struct lrb_event ev;
	struct trace_event_call *call;
	struct list_head list;
	char lttng_name[LRB_LTTNG_NAME_MAX];
	u8 sc_strs;
	unsigned int fixed;
	unsigned int nr_locs;
	unsigned int *locs;
	char name[];
};

static DEFINE_MUTEX(lrb_te_mutex);
static LIST_HEAD(lrb_trace_events);

static struct lrb_trace_event *to_te(struct lrb_event *ev)
{
	return container_of(ev, struct lrb_trace_event, ev);
}

/*
 * Filters, ftrace's (kernel/trace/trace_events_filter.c), run on the
 * record as ftrace's entry.
 *
 * While a link has a filter, its probe writes the record into a scratch
 * entry of the CPU rather than into the channel, as ftrace writes a
 * filtered event into its buffered event (trace_buffered_event): the
 * commit runs the filter on it and only then reserves the record in the
 * channel and copies it in. A refused record costs the probe and the
 * filter, touches nothing of the channel, and is counted as filtered,
 * not as lost. The timestamp is taken at the copy, as ftrace's is.
 *
 * A CPU has one scratch entry per level of nesting (task, softirq,
 * hardirq, NMI), as a channel takes that many writers at once; a record
 * for a fifth level, or larger than a scratch entry, is counted as lost
 * as the channel would count it.
 *
 * A dynamic event's provider fills a scratch entry too, whatever the
 * filters: it measures its data before it fetches them, and the copy
 * into each channel takes only what it fetched (lrb_trace_event_put()).
 */
#define LRB_TE_SCRATCH_SIZE	PAGE_SIZE

/**
 * struct lrb_te_scratch - the scratch entries of a CPU
 * @depth: entries in use; only this CPU's writers change it, each one
 *	restoring it.
 * @len: the record's bytes, per entry.
 * @filter: the filter that runs on it at commit, per entry: the link's
 *	may have been replaced meanwhile.
 * @ev: the dynamic event whose record it holds, per entry
 *	(lrb_trace_event_get()).
 * @buf: LRB_NESTING_MAX entries of LRB_TE_SCRATCH_SIZE bytes.
 */
struct lrb_te_scratch {
	unsigned int depth;
	size_t len[LRB_NESTING_MAX];
	struct lrb_te_filter *filter[LRB_NESTING_MAX];
	struct lrb_event *ev[LRB_NESTING_MAX];
	char *buf;
};

/**
 * struct lrb_te_filter - a link's filter
 * @ef: ftrace's compiled filter.
 * @scratch: the scratch entries (lrb_te_scratch), through the filter
 *	so that a writer that sees the filter sees them.
 * @filtered: the channel's count of the records its filters refused.
 * @common: the filter reads the common fields: the probe sets them in the
 *	scratch entry. If not, they are set only in a record the filter
 *	takes, from the same context: a refused record does not pay for
 *	them.
 */
struct lrb_te_filter {
	struct event_filter *ef;
	struct lrb_te_scratch __percpu *scratch;
	struct lrb_counter __percpu *filtered;
	bool common;
};

/* Made for the first filter and kept: they are small. */
static struct lrb_te_scratch __percpu *lrb_te_scratch;

/* Serialized by the registry's mutex, which filter_new() is called under. */
static int lrb_te_scratch_alloc(void)
{
	struct lrb_te_scratch __percpu *scratch;
	int cpu;

	if (lrb_te_scratch)
		return 0;
	scratch = alloc_percpu(struct lrb_te_scratch);
	if (!scratch)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		per_cpu_ptr(scratch, cpu)->buf =
			kmalloc_node(LRB_NESTING_MAX * LRB_TE_SCRATCH_SIZE,
				     GFP_KERNEL, cpu_to_node(cpu));
		if (!per_cpu_ptr(scratch, cpu)->buf)
			goto fail;
	}
	lrb_te_scratch = scratch;
	return 0;
fail:
	for_each_possible_cpu(cpu)
		kfree(per_cpu_ptr(scratch, cpu)->buf);
	free_percpu(scratch);
	return -ENOMEM;
}

/*
 * A scratch entry of this CPU for a record of @len bytes that @f filters,
 * its common fields set if @f reads them; NULL if none is free, the
 * record counted lost. The slot says the record is in the scratch: no
 * data yet.
 */
static void *lrb_te_scratch_get(struct lrb_event_link *l,
				struct lrb_te_filter *f, struct lrb_slot *slot,
				size_t len)
{
	struct lrb_te_scratch *s = this_cpu_ptr(f->scratch);
	unsigned int d = READ_ONCE(s->depth);
	void *entry;

	if (unlikely(d >= LRB_NESTING_MAX)) {
		lrb_count_lost(l->chan, LRB_LOST_NESTED);
		return NULL;
	}
	if (unlikely(len > LRB_TE_SCRATCH_SIZE)) {
		lrb_count_lost(l->chan, LRB_LOST_TOO_BIG);
		return NULL;
	}
	/* An interrupt that comes now takes the next entry. */
	WRITE_ONCE(s->depth, d + 1);
	barrier();
	s->len[d] = len;
	s->filter[d] = f;
	entry = s->buf + d * LRB_TE_SCRATCH_SIZE;
	if (f->common)
		tracing_generic_entry_update(entry,
					     to_te(l->ev)->call->event.type,
					     tracing_gen_ctx_dec());
	slot->data = NULL;
	return entry;
}

/*
 * Reserve the record in @entry, which @f took, and copy it in: from its
 * first field on if the channel does not record the common fields, else
 * whole, its common fields set now if @f did not read them, from the
 * event's context still. Return: the copy as an entry (it may begin
 * before the slot, as lrb_trace_event_reserve()'s), or NULL if the
 * channel lost it.
 */
static void *lrb_te_scratch_copy(struct lrb_event_link *l,
				 struct lrb_te_filter *f, void *entry,
				 size_t len, struct lrb_slot *slot)
{
	size_t skip = lrb_link_skip(l);
	bool set = l->common && !f->common;
	unsigned int ctx = set ? tracing_gen_ctx_dec() : 0;

	if (lrb_reserve(l->chan, slot, l->id, len - skip))
		return NULL;
	memcpy(slot->data, entry + skip, len - skip);
	if (set)
		tracing_generic_entry_update(slot->data,
					     to_te(l->ev)->call->event.type,
					     ctx);
	return slot->data - skip;
}

/*
 * Run the filter on the record in this CPU's last scratch entry, @entry,
 * and give the entry back. Return: the record copied into a slot of the
 * channel, or NULL if the filter refused it or the channel lost it.
 */
static void *lrb_te_scratch_put(struct lrb_event_link *l, void *entry,
				struct lrb_slot *slot)
{
	struct lrb_te_scratch *s = this_cpu_ptr(lrb_te_scratch);
	unsigned int d = s->depth - 1;
	struct lrb_te_filter *f = s->filter[d];
	void *rec = NULL;

	if (filter_match_preds(f->ef, entry))
		rec = lrb_te_scratch_copy(l, f, entry, s->len[d], slot);
	else
		lrb_counter_add(this_cpu_ptr(f->filtered), 1);
	/* Done with the entry: a later interrupt may take it again. */
	barrier();
	WRITE_ONCE(s->depth, d);
	return rec;
}

/**
 * lrb_trace_event_reserve() - reserve the record of a trace event
 * @data: the link the probe was registered with.
 * @slot: the reservation, for lrb_commit().
 * @len: bytes of the entry: common fields, fields and dynamic data.
 *
 * Called by the probes of the LRB stage (include/trace/lrb.h), in the
 * context of the tracepoint.
 *
 * Return: the entry, its common fields set, for TP_fast_assign() to fill;
 * NULL when the record is lost (the channel counts it). If the channel
 * does not record the common fields, the slot holds the entry from its
 * first field on, and the entry returned begins before the slot: its
 * common fields are neither written nor read.
 * While the link has a filter, the entry is a scratch one (no slot->data
 * yet), whose common fields are set if the filter reads them.
 */
void *lrb_trace_event_reserve(void *data, struct lrb_slot *slot, size_t len)
{
	struct lrb_event_link *l = data;
	size_t skip = lrb_link_skip(l);
	struct lrb_te_filter *f;
	unsigned int ctx;

	/* A process, user or CPU the channel does not target. */
	if (lrb_link_ignores(l))
		return NULL;
	f = rcu_dereference_sched(l->filter);
	if (unlikely(f))
		return lrb_te_scratch_get(l, f, slot, len);
	if (skip) {
		if (lrb_reserve(l->chan, slot, l->id, len - skip))
			return NULL;
		return slot->data - skip;
	}
	/*
	 * The interrupt state and preempt count of the event, as ftrace
	 * takes them: before lrb_reserve(), which may disable interrupts
	 * (LRB_SYNC_IRQOFF).
	 */
	ctx = tracing_gen_ctx_dec();
	if (lrb_reserve(l->chan, slot, l->id, len))
		return NULL;
	tracing_generic_entry_update(slot->data,
				     to_te(l->ev)->call->event.type, ctx);
	return slot->data;
}
EXPORT_SYMBOL_GPL(lrb_trace_event_reserve);

/**
 * lrb_trace_event_commit() - commit the record of an LRB stage probe
 * @data: the probe's data, the link of lrb_trace_event_reserve().
 * @entry: the record, filled by TP_fast_assign().
 * @slot: its slot.
 *
 * In &LRB_LAYOUT_LTTNG, the priorities of the record become
 * lttng-modules' first (lrb_te_lttng_prios()).
 * So does a block event's rwbs (lrb_te_lttng_rwbs()).
 * A record in a scratch entry is first filtered, then copied into the
 * channel; the changes are made on the copy.
 * If the link records kernel stacks, a kernel_stack record follows
 * (lrb_stack_write()).
 */
void lrb_trace_event_commit(void *data, void *entry, struct lrb_slot *slot)
{
	struct lrb_event_link *l = data;
	unsigned long words = l->lttng_prios;
	unsigned int i;

	if (unlikely(!slot->data)) {
		entry = lrb_te_scratch_put(l, entry, slot);
		if (!entry)
			return;
	}

	if (unlikely(words))
		for_each_set_bit(i, &words, BITS_PER_LONG)
			((int *)entry)[i] -= MAX_RT_PRIO;
	if (unlikely(l->lttng_rwbs))
		lrb_lttng_rwbs(entry + l->lttng_rwbs);
	lrb_commit(slot);
	/* After the record it belongs to, which the channel took. */
	if (unlikely(READ_ONCE(l->stack)))
		lrb_stack_write(l, NULL);
}
EXPORT_SYMBOL_GPL(lrb_trace_event_commit);

/* CTF description */

#define LRB_TE_FIELDS_MAX	64

/*
 * The declarations of the common fields, which begin the description of
 * every trace event: made once, before the first event is described.
 */
static char lrb_te_common_tsdl[512];
static size_t lrb_te_common_len;

static void __init lrb_te_common_init(void)
{
	struct seq_buf s;

	seq_buf_init(&s, lrb_te_common_tsdl, sizeof(lrb_te_common_tsdl));
	lrb_tsdl_integer(&s, "common_type", 16, 0, "");
	lrb_tsdl_integer(&s, "common_flags", 8, 0, "");
	lrb_tsdl_integer(&s, "common_preempt_count", 8, 0, "");
	lrb_tsdl_integer(&s, "common_pid", 32, LRB_TSDL_SIGNED, "");
	if (WARN_ON(seq_buf_has_overflowed(&s)))
		return;
	lrb_te_common_len = seq_buf_used(&s);
	lrb_te_common_tsdl[lrb_te_common_len] = '\0';
}

/**
 * lrb_tsdl_fields() - the fields of an event as a channel records them
 * @o: the channel's owner.
 * @tsdl: the event's description.
 *
 * Return: @tsdl, less the common fields it begins with (a trace event's)
 * if @o does not record them.
 */
const char *lrb_tsdl_fields(const struct lrb_events_owner *o,
			    const char *tsdl)
{
	if (!lrb_events_common(o) && lrb_te_common_len &&
	    !strncmp(tsdl, lrb_te_common_tsdl, lrb_te_common_len))
		return tsdl + lrb_te_common_len;
	return tsdl;
}

static int lrb_te_field_cmp(const void *a, const void *b)
{
	const struct ftrace_event_field *fa = *(void * const *)a;
	const struct ftrace_event_field *fb = *(void * const *)b;

	return fa->offset - fb->offset;
}

/* Bytes of an element of a C type, from its name; 0 if unknown. */
static unsigned int lrb_te_elem_size(const char *type)
{
	static const struct {
		const char *name;
		unsigned int size;
	} types[] = {
		{ "char", 1 }, { "unsigned char", 1 }, { "signed char", 1 },
		{ "u8", 1 }, { "s8", 1 }, { "bool", 1 }, { "__u8", 1 },
		{ "short", 2 }, { "unsigned short", 2 }, { "u16", 2 },
		{ "s16", 2 }, { "__u16", 2 }, { "__be16", 2 },
		{ "int", 4 }, { "unsigned int", 4 }, { "u32", 4 },
		{ "s32", 4 }, { "__u32", 4 }, { "pid_t", 4 }, { "__be32", 4 },
		{ "long", sizeof(long) }, { "unsigned long", sizeof(long) },
		{ "u64", 8 }, { "s64", 8 }, { "__u64", 8 },
		/* __cpumask(): a bitmap, in longs as __bitmask() */
		{ "cpumask_t", sizeof(long) },
	};
	size_t n = strcspn(type, "[");
	unsigned int i;

	if (memchr(type, '*', n))
		return sizeof(void *);
	for (i = 0; i < ARRAY_SIZE(types); i++)
		if (strlen(types[i].name) == n && !strncmp(type, types[i].name, n))
			return types[i].size;
	return 0;
}

static bool lrb_te_is_text(const char *type)
{
	return !strncmp(type, "char[", 5) || !strncmp(type, "char ", 5) ||
	       !strcmp(type, "char");
}

static bool lrb_te_is_signed(const char *type)
{
	return !strncmp(type, "char", 4) || !strncmp(type, "short", 5) ||
	       !strncmp(type, "int", 3) || !strncmp(type, "long", 4) ||
	       !strncmp(type, "s8", 2) || !strncmp(type, "s16", 3) ||
	       !strncmp(type, "s32", 3) || !strncmp(type, "s64", 3) ||
	       !strncmp(type, "pid_t", 5) || !strncmp(type, "signed", 6);
}

/* Bytes of an element of the dynamic array @f, as its CTF type has it. */
static unsigned int lrb_te_loc_elem(const struct ftrace_event_field *f)
{
	const char *elem = strchr(f->type, ' ') + 1;
	unsigned int esize = lrb_te_elem_size(elem);

	if (lrb_te_is_text(elem) || !esize || !is_power_of_2(esize))
		return 1;
	return esize;
}

/**
 * lrb_te_loc_parts() - the fields that describe a dynamic data location
 * @esize: bytes of an element of the data, a power of two up to 8.
 * @part: the fields, in the order of the metadata (three at most).
 *
 * The location of __data_loc or __rel_loc data is one native u32,
 * (length in bytes << 16) | offset. CTF packs bit fields from the least
 * significant bit of a little-endian word and from the most significant
 * bit of a big-endian one: the offset comes first on a little-endian CPU,
 * last on a big-endian one. For elements of 2^k bytes, the length is split
 * so that its high 16 - k bits ("len") are the element count that the CTF
 * sequence needs, its low k bits "len_low".
 *
 * Return: the number of fields, 2 or 3.
 */
VISIBLE_IF_KUNIT unsigned int lrb_te_loc_parts(unsigned int esize,
					       struct lrb_te_loc_part *part)
{
	unsigned int k = ilog2(esize), i, n = 0;
	const struct lrb_te_loc_part le[] = {
		{ "off", 16 }, { "len_low", k }, { "len", 16 - k },
	};

	for (i = 0; i < ARRAY_SIZE(le); i++) {
		const struct lrb_te_loc_part *p = &le[i];

		if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
			p = &le[ARRAY_SIZE(le) - 1 - i];
		if (p->bits)
			part[n++] = *p;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(lrb_te_loc_parts);

static void lrb_te_loc(struct seq_buf *s, const char *name, unsigned int esize)
{
	struct lrb_te_loc_part part[3];
	unsigned int i, n = lrb_te_loc_parts(esize, part);
	char fname[80];

	for (i = 0; i < n; i++) {
		snprintf(fname, sizeof(fname), "_%s_%s", name, part[i].name);
		lrb_tsdl_integer(s, fname, part[i].bits, 0, "");
	}
}

/* The dynamic data of @f, after the fixed part. */
static void lrb_te_dynamic(struct seq_buf *s,
			   const struct ftrace_event_field *f)
{
	const char *elem = strchr(f->type, ' ') + 1;
	unsigned int esize = lrb_te_loc_elem(f);
	char suffix[80];

	snprintf(suffix, sizeof(suffix), "[__%s_len]", f->name);
	if (lrb_te_is_text(elem))
		lrb_tsdl_integer(s, f->name, 8, LRB_TSDL_TEXT, suffix);
	else if (esize > 1 || lrb_te_elem_size(elem) == 1)
		lrb_tsdl_integer(s, f->name, esize * 8,
				 lrb_te_is_signed(elem) ? LRB_TSDL_SIGNED : 0,
				 suffix);
	else
		lrb_tsdl_integer(s, f->name, 8, LRB_TSDL_OPAQUE, suffix);
}

/*
 * The mappings of a __print_symbolic() over REC->@name in @fmt, written
 * to @s as CTF enumerator text ("LABEL" = VALUE, ...) if @s is not NULL.
 * Return: the number of mappings, or 0 if there is no such call or one of
 * its values is not a plain number (an enum that TRACE_DEFINE_ENUM did not
 * turn into one) or a label needs escaping.
 */
static int lrb_te_symbols(const char *fmt, const char *name, bool is_signed,
			  struct seq_buf *s)
{
	char key[80], num[24];
	const char *p, *end;
	long long v;
	int n = 0;
	size_t len;

	snprintf(key, sizeof(key), "__print_symbolic(REC->%s,", name);
	p = fmt ? strstr(fmt, key) : NULL;
	if (!p)
		return 0;
	for (p += strlen(key);; p++) {
		p = skip_spaces(p);
		if (*p == ')')
			return n;
		if (*p != '{')
			return 0;
		/* { VALUE, "LABEL" } */
		p = skip_spaces(p + 1);
		len = strcspn(p, ",}");
		if (!len || len >= sizeof(num) || p[len] != ',')
			return 0;
		memcpy(num, p, len);
		num[len] = '\0';
		strim(num);
		p = skip_spaces(p + len + 1);
		/* { -1, NULL } ends some tables. */
		if (!strncmp(p, "0 }", 3) || !strncmp(p, "NULL }", 6)) {
			p = strchr(p, '}');
			goto next;
		}
		if (kstrtoll(num, 0, &v) || (v < 0 && !is_signed) || *p != '"')
			return 0;
		end = strpbrk(p + 1, "\"\\");
		if (!end || *end != '"' || end == p + 1)
			return 0;
		if (s)
			seq_buf_printf(s, "%s\"%.*s\" = %lld", n ? ", " : "",
				       (int)(end - p - 1), p + 1, v);
		n++;
		p = skip_spaces(end + 1);
		if (*p != '}')
			return 0;
next:
		p = skip_spaces(p + 1);
		if (*p == ')')
			return n;
		if (*p != ',')
			return 0;
	}
}

/*
 * @f as a CTF enumeration if the print format maps its values to names;
 * false if it does not, or if the mappings do not fit.
 */
static bool lrb_te_enum(struct seq_buf *s, const struct ftrace_event_field *f,
			const char *fmt)
{
	struct seq_buf m;
	char *buf;
	bool ok;

	if (!lrb_te_symbols(fmt, f->name, f->is_signed, NULL))
		return false;
	buf = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!buf)
		return false;
	seq_buf_init(&m, buf, PAGE_SIZE);
	lrb_te_symbols(fmt, f->name, f->is_signed, &m);
	seq_buf_putc(&m, '\0');
	ok = !seq_buf_has_overflowed(&m);
	if (ok)
		lrb_tsdl_enum(s, f->name, f->size * 8,
			      f->is_signed ? LRB_TSDL_SIGNED : 0, buf);
	kfree(buf);
	return ok;
}

/* A fixed field at the current offset. */
static void lrb_te_fixed(struct seq_buf *s, const struct ftrace_event_field *f,
			 const char *fmt)
{
	unsigned int esize = lrb_te_elem_size(f->type);
	unsigned int flags = f->is_signed ? LRB_TSDL_SIGNED : 0;
	const char *bracket = strchr(f->type, '[');
	char suffix[24] = "";

	if (bracket && esize && f->size % esize == 0 && is_power_of_2(esize)) {
		snprintf(suffix, sizeof(suffix), "[%u]", f->size / esize);
		if (lrb_te_is_text(f->type))
			flags = LRB_TSDL_TEXT;
		lrb_tsdl_integer(s, f->name, esize * 8, flags, suffix);
	} else if (!bracket && f->size <= 8 && is_power_of_2(f->size)) {
		if (strchr(f->type, '*'))
			flags = LRB_TSDL_HEX;
		else if (lrb_te_enum(s, f, fmt))
			return;
		lrb_tsdl_integer(s, f->name, f->size * 8, flags, "");
	} else {
		snprintf(suffix, sizeof(suffix), "[%d]", f->size);
		lrb_tsdl_integer(s, f->name, 8, LRB_TSDL_OPAQUE, suffix);
	}
}

static bool lrb_te_is_loc(const struct ftrace_event_field *f)
{
	return !strncmp(f->type, "__data_loc ", 11) ||
	       !strncmp(f->type, "__rel_loc ", 10);
}

/*
 * The fields in offset order, each after the gap the entry leaves before
 * it, declared as padding (records are packed); then the dynamic data in
 * the order of their locations, which is the order the entry holds them
 * in.
 */
static int lrb_te_describe(struct lrb_event *ev, struct seq_buf *s)
{
	struct ftrace_event_field *fields[LRB_TE_FIELDS_MAX], *f;
	struct list_head *head = trace_get_fields(to_te(ev)->call);
	unsigned int n = 0, i, cur = sizeof(struct trace_entry);
	char pad[80];

	list_for_each_entry(f, head, link) {
		if (n == ARRAY_SIZE(fields))
			return -E2BIG;
		fields[n++] = f;
	}
	sort(fields, n, sizeof(fields[0]), lrb_te_field_cmp, NULL);
	seq_buf_puts(s, lrb_te_common_tsdl);
	for (i = 0; i < n; i++) {
		f = fields[i];
		if (f->offset < cur)
			return -EINVAL;
		/* The record is packed: the gap before a field is declared. */
		if (cur != f->offset) {
			snprintf(pad, sizeof(pad), "_%s_pad[%d]", f->name,
				 f->offset - cur);
			lrb_tsdl_integer(s, pad, 8, 0, "");
		}
		if (lrb_te_is_loc(f))
			lrb_te_loc(s, f->name, lrb_te_loc_elem(f));
		else
			lrb_te_fixed(s, f, to_te(ev)->call->print_fmt);
		/* The rest of a wider slot (a synthetic event's u64) */
		if (lrb_te_is_loc(f) && f->size > 4) {
			snprintf(pad, sizeof(pad), "_%s_loc_pad[%d]", f->name,
				 f->size - 4);
			lrb_tsdl_integer(s, pad, 8, 0, "");
		}
		cur = f->offset + f->size;
	}
	for (i = 0; i < n; i++)
		if (lrb_te_is_loc(fields[i]))
			lrb_te_dynamic(s, fields[i]);
	return 0;
}

/* Trace events: the stage's probe, once per link */

/*
 * One field of an ftrace entry as name=value, for a crash dump: @data is
 * where the entry begins and @len where it ends, and only the bytes after
 * its common fields are read (they may not be in the record).
 */
static void lrb_te_print_field(struct seq_buf *s,
			       const struct ftrace_event_field *f,
			       const void *data, size_t len)
{
	const void *p = data + f->offset;
	size_t off, n;
	void *v;
	u32 loc;

	if (lrb_te_is_loc(f)) {
		loc = get_unaligned((const u32 *)p);
		/* __rel_loc counts from the end of the field. */
		off = loc & 0xffff;
		if (!strncmp(f->type, "__rel_loc ", 10))
			off += f->offset + f->size;
		n = loc >> 16;
		if (off < sizeof(struct trace_entry) || off + n > len)
			seq_buf_puts(s, "?");
		else if (lrb_te_is_text(strchr(f->type, ' ') + 1))
			seq_buf_printf(s, "\"%.*s\"", (int)strnlen(data + off, n),
				       (const char *)data + off);
		else
			seq_buf_printf(s, "[%zu bytes]", n);
		return;
	}
	if (strchr(f->type, '[')) {
		if (lrb_te_is_text(f->type))
			seq_buf_printf(s, "\"%.*s\"", (int)strnlen(p, f->size),
				       (const char *)p);
		else
			seq_buf_printf(s, "[%d bytes]", f->size);
		return;
	}
	/*
	 * A pointer as %p prints it: hashed, as kptr_restrict wants. So is
	 * an unsigned long whose top bit is set, where kernel addresses are
	 * (kmem's call_site, which ftrace's format prints with %pS).
	 */
	if (f->size == sizeof(void *) && !f->is_signed) {
		v = get_unaligned((void * const *)p);
		if (strchr(f->type, '*') || (long)v < 0) {
			seq_buf_printf(s, "%p", v);
			return;
		}
	}
	lrb_print_int(s, p, f->size, f->is_signed);
}

/*
 * The fields of an ftrace entry, in the order of the format, from the
 * record @data of @len bytes that holds the entry from its first field on
 * (lrb_events_print() printed the common fields, if it had them).
 */
static void lrb_te_print(struct lrb_event *ev, struct seq_buf *s,
			 const void *data, size_t len)
{
	struct list_head *head = trace_get_fields(to_te(ev)->call);
	/* Where the entry would begin: ftrace's offsets count from there. */
	const void *entry = data - sizeof(struct trace_entry);
	size_t end = len + sizeof(struct trace_entry);
	struct ftrace_event_field *f;

	list_for_each_entry_reverse(f, head, link) {
		if (f->offset < sizeof(struct trace_entry) ||
		    f->offset + f->size > end)
			continue;
		seq_buf_printf(s, " %s=", f->name);
		lrb_te_print_field(s, f, entry, end);
	}
}

/*
 * The record of its own that the event of @l has in the LTTng layout, if
 * the link's channel is in it. A channel's layout does not change while
 * its links run.
 */
static const struct lrb_lttng_record *
lrb_te_lttng_rec(const struct lrb_event_link *l)
{
	if (l->owner->layout != LRB_LAYOUT_LTTNG || !l->ev->describe_lttng)
		return NULL;
	return lrb_lttng_record(l->ev->name);
}

/* The probe that writes that record, if any. */
static void *lrb_te_lttng_probe(const struct lrb_event_link *l)
{
	const struct lrb_lttng_record *rec = lrb_te_lttng_rec(l);

	return rec ? rec->probe : NULL;
}

/*
 * The 32-bit words of @l's records that hold a priority, if its channel
 * is in the LTTng layout; set before the probe runs, and fixed while it
 * does, as the layout is.
 */
static unsigned long lrb_te_lttng_prios(struct lrb_event_link *l)
{
	struct ftrace_event_field *f;
	unsigned long words = 0;

	if (l->owner->layout != LRB_LAYOUT_LTTNG || !l->ev->lttng_name)
		return 0;
	list_for_each_entry(f, trace_get_fields(to_te(l->ev)->call), link)
		if (f->size == sizeof(int) && f->offset % sizeof(int) == 0 &&
		    f->offset / sizeof(int) < BITS_PER_LONG &&
		    lrb_lttng_is_prio(l->ev->lttng_name, f->name))
			words |= BIT(f->offset / sizeof(int));
	return words;
}

/*
 * The offset of the rwbs field in @l's records, if its channel is in the
 * LTTng layout and its event a block event that lttng-modules records
 * with one; 0 otherwise. Set and fixed as lrb_te_lttng_prios() is.
 */
static unsigned short lrb_te_lttng_rwbs(struct lrb_event_link *l)
{
	struct ftrace_event_field *f;

	if (l->owner->layout != LRB_LAYOUT_LTTNG || !l->ev->lttng_name)
		return 0;
	list_for_each_entry(f, trace_get_fields(to_te(l->ev)->call), link)
		if (f->offset > 0 && f->offset <= USHRT_MAX &&
		    lrb_lttng_is_rwbs(l->ev->lttng_name, f->name, f->size))
			return f->offset;
	return 0;
}

/*
 * Whether @te's record in a channel of @layout is ftrace's entry, which
 * is what a filter reads: not where the LTTng layout has a record of its
 * own, or a system call entry with the strings in it.
 */
static bool lrb_te_filterable(struct lrb_trace_event *te,
			      enum lrb_layout layout)
{
	if (layout != LRB_LAYOUT_LTTNG || !te->ev.describe_lttng)
		return true;
	return !lrb_lttng_record(te->name) && !te->sc_strs;
}

/* A link with a filter starts only where the filter reads its record. */
static int lrb_te_check_filter(struct lrb_event_link *l)
{
	if (rcu_access_pointer(l->filter) &&
	    !lrb_te_filterable(to_te(l->ev), l->owner->layout))
		return -EOPNOTSUPP;
	return 0;
}

static void *lrb_te_filter_new(struct lrb_event *ev, char *expr,
			       enum lrb_layout layout,
			       struct lrb_counter __percpu *filtered, char **err)
{
	struct event_filter *ef = NULL;
	struct lrb_te_filter *f;
	int ret;

	if (!lrb_te_filterable(to_te(ev), layout))
		return ERR_PTR(-EOPNOTSUPP);
	ret = lrb_te_scratch_alloc();
	if (ret)
		return ERR_PTR(ret);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return ERR_PTR(-ENOMEM);
	/* ftrace names the fields of struct trace_entry common_*. */
	f->common = !!strstr(expr, "common_");
	/* A parse error also goes to tracefs's error_log, as ftrace's do. */
	ret = create_event_filter(NULL, to_te(ev)->call, expr, true, &ef);
	if (ret) {
		if (ef && ef->filter_string)
			*err = kstrdup(ef->filter_string, GFP_KERNEL);
		free_event_filter(ef);
		kfree(f);
		/*
		 * The parser's own codes (-1 to -3) are not errnos: every
		 * failure but a lack of memory is the expression's.
		 */
		return ERR_PTR(ret == -ENOMEM ? ret : -EINVAL);
	}
	f->ef = ef;
	f->scratch = lrb_te_scratch;
	f->filtered = filtered;
	return f;
}

static void lrb_te_filter_free(void *filter)
{
	struct lrb_te_filter *f = filter;

	free_event_filter(f->ef);
	kfree(f);
}

static int lrb_te_start(struct lrb_event_link *l)
{
	struct trace_event_call *call = to_te(l->ev)->call;
	void *lttng = lrb_te_lttng_probe(l);
	const void *probe[] = { lttng ?: call->class->lrb_probe,
				call->tp->iterator };

	if (lrb_te_check_filter(l))
		return -EOPNOTSUPP;

	l->lttng_prios = lrb_te_lttng_prios(l);
	l->lttng_rwbs = lrb_te_lttng_rwbs(l);
	lrb_stack_skip_set(l, probe, ARRAY_SIZE(probe));
	if (lttng)
		return tracepoint_probe_register(call->tp, lttng, l);
	return tracepoint_probe_register(call->tp, call->class->lrb_probe, l);
}

static void lrb_te_stop(struct lrb_event_link *l)
{
	struct trace_event_call *call = to_te(l->ev)->call;
	void *lttng = lrb_te_lttng_probe(l);

	if (lttng) {
		WARN_ON_ONCE(tracepoint_probe_unregister(call->tp, lttng, l));
		return;
	}
	WARN_ON_ONCE(tracepoint_probe_unregister(call->tp,
						 call->class->lrb_probe, l));
}

/* A class without dynamic fields has entries of one length. */
static long lrb_te_fixed_len(const struct lrb_event_link *l)
{
	const struct lrb_lttng_record *rec = lrb_te_lttng_rec(l);
	unsigned int len = to_te(l->ev)->call->class->lrb_entry_len;

	/* A record of its own in the LTTng layout has its own length. */
	if (rec)
		len = rec->entry_len;
	return len ? len - lrb_link_skip(l) : -1;
}

/*
 * A class with dynamic fields has entries that end where the data of the
 * last one does: at the offset plus the length its __data_loc word holds,
 * counted from the start of the entry (for a __rel_loc, from the end of
 * the word), whose first lrb_link_skip() bytes the record leaves out.
 */
static int lrb_te_len_at(const struct lrb_event_link *l, int *base)
{
	struct ftrace_event_field *f, *last = NULL;
	int skip = lrb_link_skip(l);

	/* A record of its own in the LTTng layout carries its length. */
	if (lrb_te_lttng_rec(l))
		return -1;
	list_for_each_entry(f, trace_get_fields(to_te(l->ev)->call), link)
		if (lrb_te_is_loc(f) && (!last || f->offset > last->offset))
			last = f;
	if (!last || last->size != sizeof(u32) || last->offset < skip)
		return -1;
	*base = skip;
	if (!strncmp(last->type, "__rel_loc ", 10))
		*base -= last->offset + last->size;
	return last->offset - skip;
}

#ifdef CONFIG_LRB_DYNAMIC_EVENTS
/*
 * Dynamic events: the provider fills a scratch entry of the CPU
 * (lrb_trace_event_get()) where it fills perf's buffer, and LRB copies it
 * into every running link of the event (lrb_trace_event_put()). The
 * first link to start registers the event with the provider, the last to
 * stop unregisters it. A link starts before it is on the event's list and
 * stops while it still is: both under the registry's mutex and
 * event_mutex (lrb_events.c takes it first for a channel's commands; the
 * provider's add and remove hold it).
 */
static int lrb_te_dyn_start(struct lrb_event_link *l)
{
	struct trace_event_call *call = to_te(l->ev)->call;
	int ret;

	lockdep_assert_held(&event_mutex);
	/* Without registers, a stack starts at the provider's handler. */
	lrb_stack_skip_set(l, (const void *[]){ lrb_trace_event_put }, 1);
	if (!list_empty(&l->ev->links))
		return 0;
	ret = lrb_te_scratch_alloc();
	if (ret)
		return ret;
	return call->class->reg(call, TRACE_REG_LRB_REGISTER, NULL);
}

static void lrb_te_dyn_stop(struct lrb_event_link *l)
{
	struct trace_event_call *call = to_te(l->ev)->call;

	lockdep_assert_held(&event_mutex);
	if (list_is_singular(&l->ev->links))
		WARN_ON_ONCE(call->class->reg(call, TRACE_REG_LRB_UNREGISTER,
					      NULL));
}

/*
 * The bytes of @te's entry @entry that a CTF reader decodes: the fixed
 * part, then each dynamic datum, back to back as the provider stores
 * them. The provider reserved @len for data it measured before it fetched
 * them again: a string that got shorter meanwhile leaves bytes that no
 * field describes, and a record must end where its last field does.
 */
static size_t lrb_te_used(struct lrb_trace_event *te, const void *entry,
			  size_t len)
{
	size_t used = te->fixed;
	unsigned int i;

	for (i = 0; i < te->nr_locs; i++)
		used += *(const u32 *)(entry + te->locs[i]) >> 16;
	return min(used, len);
}

/* Count a record none of @ev's channels got as lost in each, for @why. */
static void lrb_te_dyn_lost(struct lrb_event *ev, enum lrb_lost_cause why)
{
	struct lrb_event_link *l;

	list_for_each_entry_rcu(l, &ev->links, ev_node)
		if (!lrb_link_ignores(l))
			lrb_count_lost(l->chan, why);
}

/**
 * lrb_trace_event_get() - a scratch entry for a dynamic event's record
 * @call: the event, flagged %TRACE_EVENT_FL_LRB.
 * @len: the most bytes the entry may take: common fields, fields, data.
 *
 * The provider fills the entry and hands it to lrb_trace_event_put(),
 * as a perf writer fills perf_trace_buf_alloc()'s buffer for
 * perf_trace_buf_submit(). With preemption disabled, which keeps the
 * entry this CPU's and the event's channels (an RCU-sched list) alive.
 *
 * Return: the entry, zeroed, its common fields set; NULL if no channel
 * records the event or RCU is not watching, or if the CPU has no scratch
 * entry free (the nesting
 * is too deep: counted lost in each channel) or @len is more than one
 * (counted too big). Zeroed: a fetch that fails leaves its bytes as they
 * were, and an earlier record's must not show through (perf's writers
 * clear their buffer for the same reason).
 */
void *lrb_trace_event_get(struct trace_event_call *call, size_t len)
{
	/* Cleared, and the event's links stopped, before the event goes. */
	struct lrb_event *ev = READ_ONCE(call->lrb_event);
	struct lrb_te_scratch *s;
	unsigned int d;
	void *entry;

	/*
	 * The links and filters are read under RCU: where it is not
	 * watching (an fprobe on a function of the idle loop) nothing is
	 * written, as a marker site writes nothing there.
	 */
	if (unlikely(!ev) || !rcu_is_watching())
		return NULL;
	/* Made before the first link started, which TP_FLAG_LRB published. */
	s = this_cpu_ptr(lrb_te_scratch);
	d = READ_ONCE(s->depth);
	if (unlikely(d >= LRB_NESTING_MAX || len > LRB_TE_SCRATCH_SIZE)) {
		lrb_te_dyn_lost(ev, d >= LRB_NESTING_MAX ? LRB_LOST_NESTED :
			       LRB_LOST_TOO_BIG);
		return NULL;
	}
	/* An interrupt that comes now takes the next entry. */
	WRITE_ONCE(s->depth, d + 1);
	barrier();
	s->len[d] = len;
	s->ev[d] = ev;
	entry = s->buf + d * LRB_TE_SCRATCH_SIZE;
	memset(entry, 0, len);
	tracing_generic_entry_update(entry, call->event.type,
				     tracing_gen_ctx_dec());
	return entry;
}
EXPORT_SYMBOL_GPL(lrb_trace_event_get);

/*
 * Write @entry, @len bytes, into @l's channel if it takes it: from its
 * first field on if the channel does not record the common fields.
 * Inlined: a kernel stack taken without registers leaves out the frame
 * of lrb_trace_event_put() only (lrb_te_dyn_start()).
 */
static __always_inline void lrb_te_dyn_write(struct lrb_event_link *l,
					     void *entry, size_t len,
					     struct pt_regs *regs)
{
	struct lrb_slot slot __uninitialized;	/* lrb_reserve() fills it */
	size_t skip = lrb_link_skip(l);
	struct lrb_te_filter *f;

	if (lrb_link_ignores(l))
		return;
	f = rcu_dereference_sched(l->filter);
	if (unlikely(f) && !filter_match_preds(f->ef, entry)) {
		lrb_counter_add(this_cpu_ptr(f->filtered), 1);
		return;
	}
	if (lrb_reserve(l->chan, &slot, l->id, len - skip))
		return;
	memcpy(slot.data, entry + skip, len - skip);
	lrb_commit(&slot);
	/* After the record it belongs to, which the channel took. */
	if (unlikely(READ_ONCE(l->stack)))
		lrb_stack_write(l, regs);
}

/**
 * lrb_trace_event_put() - write a dynamic event's record into its channels
 * @call: the event of lrb_trace_event_get().
 * @entry: the entry it returned, filled.
 * @regs: the kernel registers of the probe hit, which kernel stacks start
 *	from (a kprobe's, an fprobe's), or NULL (a uprobe's are the user's).
 *
 * Each channel that records the event, targets its task and whose filter
 * takes it gets a copy, up to the end of its data (lrb_te_used()); the
 * scratch entry is given back.
 */
void lrb_trace_event_put(struct trace_event_call *call, void *entry,
			 struct pt_regs *regs)
{
	struct lrb_te_scratch *s = this_cpu_ptr(lrb_te_scratch);
	unsigned int d = s->depth - 1;
	struct lrb_event *ev = s->ev[d];
	size_t len = lrb_te_used(to_te(ev), entry, s->len[d]);
	struct lrb_event_link *l;

	list_for_each_entry_rcu(l, &ev->links, ev_node)
		lrb_te_dyn_write(l, entry, len, regs);
	/* Done with the entry: a later interrupt may take it again. */
	barrier();
	WRITE_ONCE(s->depth, d);
}
EXPORT_SYMBOL_GPL(lrb_trace_event_put);

/*
 * Set up @te if it is a dynamic event LRB can record: where its dynamic
 * data's locations are (lrb_te_used()). Return: 1 if it is one, 0 if not,
 * -ENOMEM.
 */
static int lrb_te_dyn_init(struct lrb_trace_event *te)
{
	struct list_head *head = trace_get_fields(te->call);
	struct ftrace_event_field *f;
	unsigned int n = 0;

	if (!(te->call->flags & TRACE_EVENT_FL_LRB))
		return 0;
	te->fixed = sizeof(struct trace_entry);
	list_for_each_entry(f, head, link) {
		te->fixed = max_t(unsigned int, te->fixed,
				  f->offset + f->size);
		n += lrb_te_is_loc(f);
	}
	te->locs = kcalloc(n, sizeof(*te->locs), GFP_KERNEL);
	if (n && !te->locs)
		return -ENOMEM;
	list_for_each_entry(f, head, link)
		if (lrb_te_is_loc(f))
			te->locs[te->nr_locs++] = f->offset;
	te->ev.start = lrb_te_dyn_start;
	te->ev.stop = lrb_te_dyn_stop;
	return 1;
}

/* What the event's writers find: set before it starts, cleared after. */
static void lrb_te_set_call(struct trace_event_call *call,
			    struct lrb_event *ev)
{
	WRITE_ONCE(call->lrb_event, ev);
}
#else
static int lrb_te_dyn_init(struct lrb_trace_event *te)
{
	return 0;
}

static void lrb_te_set_call(struct trace_event_call *call,
			    struct lrb_event *ev)
{
}
#endif /* CONFIG_LRB_DYNAMIC_EVENTS */

#ifdef CONFIG_FTRACE_SYSCALLS
/*
 * System call events: the event of each system call number, set once at
 * boot; the probes on sys_enter and sys_exit run while any link of a
 * system call event runs. lrb_sc_links is serialized by the registry,
 * which calls start() and stop() under its mutex.
 */
static struct lrb_event *lrb_sc_enter_ev[NR_syscalls] __read_mostly;
static struct lrb_event *lrb_sc_exit_ev[NR_syscalls] __read_mostly;
static unsigned int lrb_sc_links;

static int lrb_sc_nr(struct pt_regs *regs)
{
#ifdef ARCH_TRACE_IGNORE_COMPAT_SYSCALLS
	/* As ftrace: compat numbers are not the native table's. */
	if (unlikely(arch_trace_is_compat_syscall(regs)))
		return -1;
#endif
	return syscall_get_nr(current, regs);
}

/*
 * The entry of a system call with @nargs arguments, up to its last field:
 * without arguments, the padding after nr is no field, and a record ends
 * where the description of its fields does.
 */
static size_t lrb_sc_enter_len(unsigned int nargs)
{
	if (!nargs)
		return offsetofend(struct syscall_trace_enter, nr);
	return struct_size_t(struct syscall_trace_enter, args, nargs);
}

/*
 * In the LTTng layout the entry of a system call records, as
 * lttng-modules does, the text of the arguments that are user-space
 * strings, "const char __user *" (the file names and paths of open,
 * stat, rename...), rather
 * than their addresses, and the other arguments as ftrace does. Each is
 * copied without faulting (the probe runs with preemption disabled), up
 * to LRB_SC_STR_MAX bytes: one that is not in memory is recorded empty,
 * one that is longer is cut. The copies go through a per-CPU buffer, so
 * the record's size is known before it is reserved: no other entry
 * probe runs on this CPU meanwhile.
 */
#define LRB_SC_STR_MAX	256

struct lrb_sc_strs {
	char s[6][LRB_SC_STR_MAX];
};

static DEFINE_PER_CPU(struct lrb_sc_strs, lrb_sc_strs);

/* "const char __user *", as the metadata spells it: __user is gone. */
static bool lrb_sc_is_str(const struct syscall_metadata *meta, int i)
{
	return !strcmp(meta->types[i], "const char *");
}

/* The string arguments of @meta, a bit each: worked out once, not per call. */
static u8 lrb_sc_str_mask(const struct syscall_metadata *meta)
{
	u8 mask = 0;
	int i;

	for (i = 0; i < meta->nb_args; i++)
		if (lrb_sc_is_str(meta, i))
			mask |= BIT(i);
	return mask;
}

/* The record: the common fields, the number, then each argument, packed. */
static int lrb_sc_describe_lttng(struct lrb_event *ev, struct seq_buf *s)
{
	struct syscall_metadata *meta = to_te(ev)->call->data;
	u8 strs = to_te(ev)->sc_strs;
	int i;

	if (!strs)
		return lrb_lttng_describe(ev, s);
	lrb_lttng_describe_common(s);
	lrb_tsdl_integer(s, "__syscall_nr", 32, LRB_TSDL_SIGNED, "");
	for (i = 0; i < meta->nb_args; i++) {
		if (strs & BIT(i))
			lrb_tsdl_string(s, meta->args[i]);
		else
			lrb_tsdl_integer(s, meta->args[i], 64,
					 strchr(meta->types[i], '*') ?
					 LRB_TSDL_HEX : 0, "");
	}
	return 0;
}

/* A sys_enter_NAME record with strings, in the channel of @l. */
static void lrb_sc_enter_write_lttng(struct lrb_event_link *l, int nr,
				     const unsigned long *args,
				     unsigned int nargs, u8 mask)
{
	struct lrb_sc_strs *strs = this_cpu_ptr(&lrb_sc_strs);
	size_t lens[6], len = sizeof(struct trace_entry) + sizeof(int);
	struct lrb_slot slot __uninitialized;
	long n;
	char *p;
	int i;

	for (i = 0; i < nargs; i++) {
		lens[i] = sizeof(u64);
		if (!(mask & BIT(i)))
			goto next;
		n = strncpy_from_user_nofault(strs->s[i],
					      (const char __user *)args[i],
					      LRB_SC_STR_MAX);
		if (n <= 0)
			strs->s[i][0] = '\0';
		strs->s[i][LRB_SC_STR_MAX - 1] = '\0';
		/* What a reader takes: the text to its first NUL, and the NUL. */
		lens[i] = strlen(strs->s[i]) + 1;
next:
		len += lens[i];
	}
	p = lrb_trace_event_reserve(l, &slot, len);
	if (!p)
		return;
	*(int *)(p + sizeof(struct trace_entry)) = nr;
	p += sizeof(struct trace_entry) + sizeof(int);
	for (i = 0; i < nargs; i++) {
		if (mask & BIT(i))
			memcpy(p, strs->s[i], lens[i]);
		else
			put_unaligned((u64)args[i], (u64 *)p);
		p += lens[i];
	}
	lrb_commit(&slot);
}

/* One sys_enter_NAME record in the channel of @l. */
static void lrb_sc_enter_write(struct lrb_event_link *l, int nr,
			       const unsigned long *args, unsigned int nargs)
{
	struct syscall_trace_enter *ent;
	struct lrb_slot slot __uninitialized;

	if (l->owner->layout == LRB_LAYOUT_LTTNG && to_te(l->ev)->sc_strs) {
		lrb_sc_enter_write_lttng(l, nr, args, nargs,
					 to_te(l->ev)->sc_strs);
		return;
	}

	ent = lrb_trace_event_reserve(l, &slot, lrb_sc_enter_len(nargs));
	if (!ent)
		return;
	ent->nr = nr;
	memcpy(ent->args, args, sizeof(*args) * nargs);
	lrb_trace_event_commit(l, ent, &slot);
}

static void lrb_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct syscall_metadata *meta;
	struct lrb_event_link *l;
	unsigned long args[6];
	struct lrb_event *ev;
	int nr;

	/* The ftrace entry's preempt_count, as ftrace takes it. */
	preempt_disable_notrace();
	nr = lrb_sc_nr(regs);
	if (nr < 0 || nr >= NR_syscalls || !lrb_sc_enter_ev[nr])
		goto out;
	ev = lrb_sc_enter_ev[nr];
	meta = to_te(ev)->call->data;
	syscall_get_arguments(current, regs, args);
	list_for_each_entry_rcu(l, &ev->links, ev_node)
		lrb_sc_enter_write(l, nr, args, meta->nb_args);
out:
	preempt_enable_notrace();
}

/* A system call's entries have one length: its arguments are words. */
static long lrb_sc_fixed_len(const struct lrb_event_link *l)
{
	struct trace_event_call *call = to_te(l->ev)->call;
	struct syscall_metadata *meta = call->data;

	/* In the LTTng layout, the texts of string arguments vary. */
	if (l->owner->layout == LRB_LAYOUT_LTTNG && to_te(l->ev)->sc_strs)
		return -1;
	if (call->class != &event_class_syscall_enter)
		return sizeof(struct syscall_trace_exit) - lrb_link_skip(l);
	return lrb_sc_enter_len(meta->nb_args) - lrb_link_skip(l);
}

/* One sys_exit_NAME record in the channel of @l. */
static void lrb_sc_exit_write(struct lrb_event_link *l, int nr, long ret)
{
	struct syscall_trace_exit *ent;
	struct lrb_slot slot __uninitialized;

	ent = lrb_trace_event_reserve(l, &slot, sizeof(*ent));
	if (!ent)
		return;
	ent->nr = nr;
	ent->ret = ret;
	lrb_trace_event_commit(l, ent, &slot);
}

static void lrb_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct lrb_event_link *l;
	int nr;

	preempt_disable_notrace();
	nr = lrb_sc_nr(regs);
	if (nr < 0 || nr >= NR_syscalls || !lrb_sc_exit_ev[nr])
		goto out;
	ret = syscall_get_return_value(current, regs);
	list_for_each_entry_rcu(l, &lrb_sc_exit_ev[nr]->links, ev_node)
		lrb_sc_exit_write(l, nr, ret);
out:
	preempt_enable_notrace();
}

/* The frames a stack of a system call event leaves out. */
static void lrb_sc_stack_skip_set(struct lrb_event_link *l)
{
	const void *enter[] = { lrb_sys_enter, lrb_sc_enter_write,
				lrb_sc_enter_write_lttng,
				__tracepoint_sys_enter.iterator };
	const void *exit[] = { lrb_sys_exit, lrb_sc_exit_write,
			       __tracepoint_sys_exit.iterator };

	if (to_te(l->ev)->call->class == &event_class_syscall_enter)
		lrb_stack_skip_set(l, enter, ARRAY_SIZE(enter));
	else
		lrb_stack_skip_set(l, exit, ARRAY_SIZE(exit));
}

static int lrb_sc_start(struct lrb_event_link *l)
{
	int ret;

	if (lrb_te_check_filter(l))
		return -EOPNOTSUPP;
	lrb_sc_stack_skip_set(l);
	if (lrb_sc_links++)
		return 0;
	ret = register_trace_sys_enter(lrb_sys_enter, NULL);
	if (!ret) {
		ret = register_trace_sys_exit(lrb_sys_exit, NULL);
		if (ret)
			unregister_trace_sys_enter(lrb_sys_enter, NULL);
	}
	if (ret)
		lrb_sc_links--;
	return ret;
}

static void lrb_sc_stop(struct lrb_event_link *l)
{
	if (--lrb_sc_links)
		return;
	unregister_trace_sys_enter(lrb_sys_enter, NULL);
	unregister_trace_sys_exit(lrb_sys_exit, NULL);
}

/* Set up @te if it is a system call event; false if it is not one. */
static bool lrb_sc_init(struct lrb_trace_event *te)
{
	struct syscall_metadata *meta = te->call->data;
	struct lrb_event **table;

	if (!is_syscall_trace_event(te->call))
		return false;
	table = te->call->class == &event_class_syscall_enter ?
		lrb_sc_enter_ev : lrb_sc_exit_ev;
	if (meta->syscall_nr >= 0 && meta->syscall_nr < NR_syscalls)
		table[meta->syscall_nr] = &te->ev;
	te->ev.start = lrb_sc_start;
	te->ev.stop = lrb_sc_stop;
	te->ev.fixed_len = lrb_sc_fixed_len;
	if (table == lrb_sc_enter_ev && te->ev.describe_lttng) {
		te->sc_strs = lrb_sc_str_mask(meta);
		te->ev.describe_lttng = lrb_sc_describe_lttng;
	}
	return true;
}
#else
static bool lrb_sc_init(struct lrb_trace_event *te)
{
	return false;
}
#endif /* CONFIG_FTRACE_SYSCALLS */

/* Registration */

/* Add ftrace's event @call to the registry, if LRB can record it. */
static void lrb_te_add(struct trace_event_call *call)
{
	const char *sys = call->class->system, *name;
	struct lrb_trace_event *te;
	int ret;

	/* Not initialized by ftrace (a system call the table lacks). */
	if (!call->event.type)
		return;
	name = trace_event_name(call);
	te = kzalloc(struct_size(te, name, strlen(sys) + strlen(name) + 2),
		     GFP_KERNEL);
	if (!te)
		goto fail;
	sprintf(te->name, "%s:%s", sys, name);
	te->call = call;
	te->ev.name = te->name;
	te->ev.describe = lrb_te_describe;
	te->ev.print = lrb_te_print;
	te->ev.filter_new = lrb_te_filter_new;
	te->ev.filter_free = lrb_te_filter_free;
	if (lrb_lttng_event_name(sys, name, te->lttng_name,
				 sizeof(te->lttng_name))) {
		te->ev.lttng_name = te->lttng_name;
		te->ev.describe_lttng = lrb_lttng_describe;
	}
	te->ev.common = true;
	ret = lrb_te_dyn_init(te);
	if (ret < 0) {
		kfree(te);
		goto fail;
	}
	if (!ret && !lrb_sc_init(te) && !lrb_fn_init(call, &te->ev)) {
		/* Dynamic events of no LRB provider (user_events): no probe. */
		if (!(call->flags & TRACE_EVENT_FL_TRACEPOINT) ||
		    !call->class->lrb_probe) {
			kfree(te);
			return;
		}
		te->ev.start = lrb_te_start;
		te->ev.stop = lrb_te_stop;
		te->ev.fixed_len = lrb_te_fixed_len;
		te->ev.len_at = lrb_te_len_at;
	}
	/*
	 * Before it can start, which a channel selecting it does at once:
	 * from then on its provider writes into the channel.
	 */
	lrb_te_set_call(call, &te->ev);
	ret = lrb_event_register(&te->ev);
	if (ret) {
		lrb_te_set_call(call, NULL);
		pr_warn("lrb: trace event %s not registered: %d\n", te->name,
			ret);
		kfree(te->locs);
		kfree(te);
		return;
	}
	list_add_tail(&te->list, &lrb_trace_events);
	return;
fail:
	pr_warn("lrb: no memory for trace event %s\n", trace_event_name(call));
}

#if defined(CONFIG_MODULES) || defined(CONFIG_LRB_DYNAMIC_EVENTS)
static void lrb_te_remove(struct trace_event_call *call)
{
	struct lrb_trace_event *te;

	list_for_each_entry(te, &lrb_trace_events, list) {
		if (te->call != call)
			continue;
		lrb_event_unregister(&te->ev);
		lrb_te_set_call(call, NULL);
		/* Its writers are done: lrb_event_unregister() waited. */
		kfree(te->locs);
		list_del(&te->list);
		kvfree_rcu_mightsleep(te);	/* lrb_events_print() may be reading it */
		return;
	}
}
#endif

#ifdef CONFIG_MODULES

static void lrb_te_module(struct module *mod, bool coming)
{
	unsigned int i;

	mutex_lock(&lrb_te_mutex);
	for (i = 0; i < mod->num_trace_events; i++) {
		if (coming)
			lrb_te_add(mod->trace_events[i]);
		else
			lrb_te_remove(mod->trace_events[i]);
	}
	mutex_unlock(&lrb_te_mutex);
	/*
	 * ftrace frees the field lists of the module's events after this
	 * notifier, with no grace period: a crash dump that found one of the
	 * events under RCU (lrb_events_print()) is done with it first.
	 */
	if (!coming && mod->num_trace_events)
		synchronize_rcu();
}

/* After ftrace's notifier (priority 1) has set up the module's events. */
static int lrb_te_coming(struct notifier_block *nb, unsigned long val,
			 void *data)
{
	if (val == MODULE_STATE_COMING)
		lrb_te_module(data, true);
	return NOTIFY_OK;
}

/* Before ftrace removes them, and before the module's tracepoints go. */
static int lrb_te_going(struct notifier_block *nb, unsigned long val,
			void *data)
{
	if (val == MODULE_STATE_GOING)
		lrb_te_module(data, false);
	return NOTIFY_OK;
}

static struct notifier_block lrb_te_coming_nb = {
	.notifier_call = lrb_te_coming,
	.priority = 0,
};

static struct notifier_block lrb_te_going_nb = {
	.notifier_call = lrb_te_going,
	.priority = 2,
};
#endif /* CONFIG_MODULES */

#ifdef CONFIG_LRB_DYNAMIC_EVENTS
/* Set at boot, once the dynamic events created before are registered. */
static bool lrb_te_dyn_ready;

/**
 * lrb_dynamic_event_add() - add a dynamic event to the registry
 * @call: the event, just added to ftrace's; left out unless flagged
 *	%TRACE_EVENT_FL_LRB.
 *
 * A channel whose selectors match it starts recording it at once.
 * Called by trace_add_event_call(), under event_mutex.
 */
void lrb_dynamic_event_add(struct trace_event_call *call)
{
	lockdep_assert_held(&event_mutex);
	if (!(call->flags & TRACE_EVENT_FL_LRB))
		return;
	mutex_lock(&lrb_te_mutex);
	if (lrb_te_dyn_ready)
		lrb_te_add(call);
	mutex_unlock(&lrb_te_mutex);
}

/**
 * lrb_dynamic_event_remove() - remove a dynamic event from the registry
 * @call: the event, about to leave ftrace's.
 *
 * Detaches it from the channels that still record it and waits for its
 * writers; its description stays in their metadata. A provider refuses
 * to remove an event LRB records (TP_FLAG_LRB), so a channel records it
 * here only if its creation failed after it was added. Called by
 * trace_remove_event_call(), under event_mutex.
 */
void lrb_dynamic_event_remove(struct trace_event_call *call)
{
	lockdep_assert_held(&event_mutex);
	if (!call->lrb_event)
		return;
	mutex_lock(&lrb_te_mutex);
	lrb_te_remove(call);
	mutex_unlock(&lrb_te_mutex);
}

/* The dynamic events created before the registry (kprobe_event=). */
static void lrb_te_dyn_boot(void)
{
	struct trace_event_call *call;

	list_for_each_entry(call, &ftrace_events, list)
		if (call->flags & TRACE_EVENT_FL_LRB)
			lrb_te_add(call);
	lrb_te_dyn_ready = true;
}
#else
static void lrb_te_dyn_boot(void)
{
}
#endif /* CONFIG_LRB_DYNAMIC_EVENTS */

static __init int lrb_trace_events_init(void)
{
	struct trace_event_call **call;

	lrb_te_common_init();
	/* Taken before the registry's locks, as a provider's add takes it. */
	mutex_lock(&event_mutex);
	mutex_lock(&lrb_te_mutex);
	for (call = __start_ftrace_events; call < __stop_ftrace_events; call++)
		lrb_te_add(*call);
	lrb_te_dyn_boot();
	mutex_unlock(&lrb_te_mutex);
	mutex_unlock(&event_mutex);
#ifdef CONFIG_MODULES
	register_module_notifier(&lrb_te_coming_nb);
	register_module_notifier(&lrb_te_going_nb);
#endif
	return 0;
}

/*
 * An event is described from its print_fmt and field types, which
 * ftrace's eval-map work rewrites in place until trace_eval_sync(), a
 * late_initcall_sync of trace.o: LRB's objects link after trace.o, so
 * this runs once that work is done.
 */
late_initcall_sync(lrb_trace_events_init);
