/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRB event registry, as the tracefs interface and the event providers
 * use it (lrb_events.c).
 */
#ifndef _KERNEL_TRACE_LRB_EVENTS_H
#define _KERNEL_TRACE_LRB_EVENTS_H

#include <linux/list.h>
#include <linux/lrb_marker.h>
#include <linux/percpu.h>
#include <linux/seq_buf.h>
#include <linux/trace_events.h>
#include <linux/xarray.h>

struct ftrace_ops;
struct lrb_channel;
struct lrb_event;
struct lrb_fn;
struct trace_event_call;
struct seq_buf;
struct seq_file;

/**
 * struct lrb_events_owner - a channel's side of the registry
 * @list: in the list of owners.
 * @globs: the selectors the channel enabled or disabled, kept in order.
 * @links: the channel's links, one per selected event.
 * @chan: the buffers while the channel is enabled, else NULL.
 * @layout: the channel's &enum lrb_layout; set while it is disabled.
 * @filters: the channel's filters, by selector (lrb_events_filter()).
 * @filtered: per CPU, the records its filters refused; NULL until it has
 *	had a filter.
 * @filter_err: the message of the last filter that did not compile, for
 *	lrb_events_filters_show(); NULL after one that did.
 * @target: the processes, users and CPUs it records (lrb_target.c); NULL
 *	until it has had one.
 * @ignore: per CPU, whether it ignores the task running there, while it
 *	has targets; NULL otherwise. Its links have it too.
 * @stacks: the kernel stack depths it asked for, by selector
 *	(lrb_events_command()'s "stack").
 * @described: the events it ever selected, which its metadata describes,
 *	by registry id; each a value entry, the event's id in its records.
 * @nr_ids: the ids its records have given events: 1 to @nr_ids, in the
 *	order it first selected them (0 is the annotation's).
 * @stack_id: the id of its records of kernel stacks, 0 until it asked for
 *	stacks; set before the depths of its links (lrb_stack_set()).
 * @fn: its function tracer (lrb_function.c), once it has needed one.
 * @common: its records of trace events begin with ftrace's common fields
 *	(the channel's common_fields file); changed only while it has no
 *	running link, as lrb_link_start() copies it.
 */
struct lrb_events_owner {
	struct list_head list;
	struct list_head globs;
	struct list_head links;
	struct lrb_channel *chan;
	enum lrb_layout layout;
	struct list_head filters;
	struct lrb_counter __percpu *filtered;
	char *filter_err;
	struct lrb_target *target;
	bool __percpu *ignore;
	struct list_head stacks;
	struct xarray described;
	unsigned int nr_ids;
	unsigned int stack_id;
	struct lrb_fn *fn;
	bool common;
};

/* The functions of a probe's path whose frames a stack leaves out. */
#define LRB_STACK_SKIP_FNS	4

/**
 * struct lrb_code - the text of a function
 * @start: its first byte.
 * @end: the byte after its last; @start if unknown.
 */
struct lrb_code {
	unsigned long start;
	unsigned long end;
};

/**
 * struct lrb_event_link - an event selected by a channel
 * @ev: the event.
 * @chan: the channel's buffers while the link runs; what writers use.
 * @ev_node: in @ev's RCU list of running links.
 * @owner_node: in the owner's list of links.
 * @owner: the channel's owner.
 * @id: the id of @ev's records in the channel.
 * @running: attached by @ev's start().
 * @new: made by the command in progress, undone if it fails.
 * @lttng_prios: the 32-bit words of a trace event's record that hold a
 *	priority, a bit each, while the link runs in &LRB_LAYOUT_LTTNG.
 * @lttng_rwbs: the offset of a block event's rwbs in its record, while
 *	the link runs in &LRB_LAYOUT_LTTNG; 0 (no record starts with it)
 *	if none.
 * @filter: what its event's filter_new() made of the channel's filter
 *	for it, or NULL: replaced under the registry's mutex, freed once no
 *	writer can see it (lrb_events_sync()).
 * @ignore: the owner's @ignore: a writer checks it before it reserves.
 * @stack: the most kernel stack addresses to record after each record,
 *	0 for none: set with a release (lrb_stack.c).
 * @stack_skip: the code of its probe, of the probe's writers and of its
 *	tracepoint's iterator, whose frames its stacks leave out
 *	(lrb_stack_skip_set()).
 * @common: the records of a trace event begin with ftrace's common fields
 *	(lrb_events_common()), while the link runs.
 */
struct lrb_event_link {
	struct lrb_event *ev;
	struct lrb_channel *chan;
	struct list_head ev_node;
	struct list_head owner_node;
	struct lrb_events_owner *owner;
	unsigned int id;
	bool running;
	bool new;
	unsigned long lttng_prios;
	unsigned short lttng_rwbs;
	void __rcu *filter;
	bool __percpu *ignore;
	unsigned int stack;
	struct lrb_code stack_skip[LRB_STACK_SKIP_FNS];
	bool common;
};

/*
 * Whether @o's records of trace events begin with ftrace's common fields
 * (struct trace_entry: type, flags, preempt count, pid). They do not by
 * default: the record's id already names the event, and a channel that
 * wants the rest asks for it, as an LTTng session adds a context.
 */
static inline bool lrb_events_common(const struct lrb_events_owner *o)
{
	/* lttng-modules' block events have the tid that is common_pid. */
	if (o->layout == LRB_LAYOUT_LTTNG)
		return true;
	if (o->common)
		return true;
	return false;
}

/*
 * The bytes at the start of ftrace's entry of an event that @l's records
 * leave out: the common fields, unless the channel records them.
 */
static inline size_t lrb_link_skip(const struct lrb_event_link *l)
{
	return l->common ? 0 : sizeof(struct trace_entry);
}

/*
 * Whether the channel of @l ignores this CPU's task, or this CPU: a
 * writer of @l checks before it reserves (lrb_target.c).
 */
static inline bool lrb_link_ignores(struct lrb_event_link *l)
{
	bool __percpu *ignore = READ_ONCE(l->ignore);

	return unlikely(ignore) && this_cpu_read(*ignore);
}

/* Flags of lrb_tsdl_integer(). */
#define LRB_TSDL_SIGNED		0x1	/* two's complement */
#define LRB_TSDL_HEX		0x2	/* shown in base 16 */
#define LRB_TSDL_TEXT		0x4	/* 8-bit elements shown as text */
#define LRB_TSDL_OPAQUE		0x8	/* bytes of a type CTF cannot tell */

/* The most addresses of a kernel stack (lrb_stack.c). */
#define LRB_STACK_DEPTH_MAX	128

/* What lrb_target_show() prints. */
enum lrb_target_what {
	LRB_TARGET_PIDS,
	LRB_TARGET_UIDS,
	LRB_TARGET_CPUS,
	LRB_TARGET_FOLLOW,
};

#ifdef CONFIG_LRB_TRACE_EVENTS
ssize_t lrb_target_pids(struct lrb_events_owner *o, const char __user *ubuf,
			size_t cnt, bool append);
int lrb_target_uids(struct lrb_events_owner *o, char *text);
int lrb_target_cpus(struct lrb_events_owner *o, const char *list);
int lrb_target_follow(struct lrb_events_owner *o, bool on);
void lrb_target_show(struct seq_file *m, struct lrb_events_owner *o,
		     enum lrb_target_what what);
void lrb_target_release(struct lrb_events_owner *o);
#else
static inline void lrb_target_release(struct lrb_events_owner *o) { }
#endif

#ifdef CONFIG_LRB_TRACE_EVENTS
int lrb_stack_alloc(void);
void lrb_stack_skip_set(struct lrb_event_link *l, const void *const *fns,
			unsigned int n);
void lrb_stack_write(struct lrb_event_link *l, struct pt_regs *regs);
#else
static inline int lrb_stack_alloc(void)
{
	return -EOPNOTSUPP;
}
#endif

#ifdef CONFIG_LRB_FUNCTION_TRACER
bool lrb_fn_init(struct trace_event_call *call, struct lrb_event *ev);
struct ftrace_ops *lrb_fn_ops(struct lrb_events_owner *o);
void lrb_fn_release(struct lrb_events_owner *o);
void lrb_fn_filter_changed(struct lrb_events_owner *o);
#else
static inline bool lrb_fn_init(struct trace_event_call *call,
			       struct lrb_event *ev)
{
	return false;
}

static inline void lrb_fn_release(struct lrb_events_owner *o) { }
#endif

#ifdef CONFIG_LRB_TRACE_EVENTS
/* A field of a __data_loc word in the metadata: "_FIELD_" @name, @bits. */
struct lrb_te_loc_part {
	const char *name;
	unsigned int bits;
};

#if IS_ENABLED(CONFIG_KUNIT)
unsigned int lrb_te_loc_parts(unsigned int esize,
			      struct lrb_te_loc_part *part);
#endif

/* The trace events of vmlinux (include/asm-generic/vmlinux.lds.h). */
extern struct trace_event_call *__start_ftrace_events[];
extern struct trace_event_call *__stop_ftrace_events[];

/* The LTTng layout of trace events (lrb_lttng.c). */
#define LRB_LTTNG_NAME_MAX	64
bool lrb_lttng_event_name(const char *system, const char *event, char *buf,
			  size_t size);
int lrb_lttng_describe(struct lrb_event *ev, struct seq_buf *s);
bool lrb_lttng_is_prio(const char *event, const char *field);
bool lrb_lttng_is_rwbs(const char *event, const char *field,
		       unsigned int size);
void lrb_lttng_rwbs(char *rwbs);

/**
 * struct lrb_lttng_record - an event with a record of its own in the LTTng
 *	layout, where lttng-modules records what ftrace does not
 * @name: the event's ftrace name, SYSTEM:EVENT.
 * @describe: declare the record's fields.
 * @probe: the tracepoint probe that writes the record, run with the link
 *	as its data as the LRB stage's probe is.
 * @entry_len: the length of every entry it writes, or 0 if they vary.
 */
struct lrb_lttng_record {
	const char *name;
	int (*describe)(struct seq_buf *s);
	void *probe;
	unsigned int entry_len;
};

const struct lrb_lttng_record *lrb_lttng_record(const char *event);
void lrb_lttng_describe_common(struct seq_buf *s);

const char *lrb_tsdl_fields(const struct lrb_events_owner *o,
			    const char *tsdl);
#else
static inline const char *lrb_tsdl_fields(const struct lrb_events_owner *o,
					  const char *tsdl)
{
	return tsdl;
}
#endif

#ifdef CONFIG_LRB_MARKERS
int lrb_event_register(struct lrb_event *ev);
void lrb_event_unregister(struct lrb_event *ev);
void lrb_tsdl_integer(struct seq_buf *s, const char *name, unsigned int bits,
		      unsigned int flags, const char *suffix);
void lrb_tsdl_string(struct seq_buf *s, const char *name);
void lrb_tsdl_enum(struct seq_buf *s, const char *name, unsigned int bits,
		   unsigned int flags, const char *mappings);
void lrb_events_owner_init(struct lrb_events_owner *o);
void lrb_events_owner_release(struct lrb_events_owner *o);
int lrb_events_command(struct lrb_events_owner *o, const char *cmd);
int lrb_events_start(struct lrb_events_owner *o, struct lrb_channel *chan);
void lrb_events_stop(struct lrb_events_owner *o);
struct lrb_event_link *lrb_events_owner_link(struct lrb_events_owner *o,
					     struct lrb_event *ev);
bool lrb_statedump(struct lrb_events_owner *o);
int lrb_events_statedump(struct lrb_events_owner *o);
void lrb_events_show(struct seq_file *m, struct lrb_events_owner *o);
int lrb_events_filter(struct lrb_events_owner *o, char *cmd);
void lrb_events_filters_show(struct seq_file *m, struct lrb_events_owner *o);
u64 lrb_events_filtered(struct lrb_events_owner *o, int cpu);
void lrb_events_set_ignore(struct lrb_events_owner *o, bool __percpu *ignore);
void lrb_events_metadata(struct seq_file *m, struct lrb_events_owner *o,
			 const struct lrb_channel *chan);
void lrb_events_metadata_lttng(struct seq_file *m,
			       struct lrb_events_owner *o,
			       const struct lrb_channel *chan);
void lrb_events_print(struct seq_buf *s, struct lrb_events_owner *o,
		      unsigned int id, const void *data, size_t len);
void lrb_print_int(struct seq_buf *s, const void *p, unsigned int size,
		   bool sign);
#else
static inline void lrb_events_owner_init(struct lrb_events_owner *o) { }
static inline void lrb_events_owner_release(struct lrb_events_owner *o) { }
static inline int lrb_events_command(struct lrb_events_owner *o,
				     const char *cmd)
{
	return -EOPNOTSUPP;
}

static inline int lrb_events_start(struct lrb_events_owner *o,
				   struct lrb_channel *chan)
{
	return 0;
}

static inline void lrb_events_stop(struct lrb_events_owner *o) { }

static inline int lrb_events_statedump(struct lrb_events_owner *o)
{
	return -EOPNOTSUPP;
}

static inline void lrb_events_show(struct seq_file *m,
				   struct lrb_events_owner *o) { }
static inline int lrb_events_filter(struct lrb_events_owner *o, char *cmd)
{
	return -EOPNOTSUPP;
}

static inline void lrb_events_filters_show(struct seq_file *m,
					   struct lrb_events_owner *o) { }
static inline u64 lrb_events_filtered(struct lrb_events_owner *o, int cpu)
{
	return 0;
}

static inline void lrb_events_metadata(struct seq_file *m,
				       struct lrb_events_owner *o,
				       const struct lrb_channel *chan) { }
static inline void lrb_events_metadata_lttng(struct seq_file *m,
					     struct lrb_events_owner *o,
					     const struct lrb_channel *chan)
{
}
static inline void lrb_events_print(struct seq_buf *s,
				    struct lrb_events_owner *o,
				    unsigned int id, const void *data,
				    size_t len)
{
	seq_buf_printf(s, "event %u:", id);
}
#endif

#endif /* _KERNEL_TRACE_LRB_EVENTS_H */
