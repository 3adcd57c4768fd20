// SPDX-License-Identifier: GPL-2.0
/*
 * LRB function tracer: ftrace's function and function_graph events,
 * ftrace:function, ftrace:funcgraph_entry and ftrace:funcgraph_exit,
 * recorded into LRB channels through each channel's own ftrace_ops.
 *
 * A channel has one function tracer (struct lrb_fn), made the first time
 * it is needed and kept until the channel goes. Its ftrace_ops says which
 * functions it traces: the channel's set_ftrace_filter and
 * set_ftrace_notrace files are ftrace's own (ftrace_regex_open() and its
 * kin) on that ops, with ftrace's globs, "!" and ":mod:". Its fgraph_ops
 * shares the ops' hashes (fgraph_init_ops()), as the function_graph
 * tracer of an ftrace instance shares its function tracer's.
 *
 * The ops is registered while the channel's ftrace:function link runs;
 * the fgraph_ops while either graph link does. A callback finds the link
 * through the function tracer, not through the event's list of links:
 *
 *   writer                           start / stop (registry mutex)
 *   ------                           ------------
 *   l = smp_load_acquire(&fn->fn)    start: publish the link (release),
 *   write l's record                        then register the ops
 *                                    stop:  unregister the ops, which
 *                                           waits for its callbacks,
 *                                           then clear the link
 *
 * A graph link that stops is cleared, then synchronize_rcu_tasks_rude()
 * waits for the callbacks that may have read it: they run with preemption
 * disabled, but maybe where RCU is not watching, which the registry's own
 * wait does not cover, nor the unregistration of the last graph link
 * (ftrace's graph_ops is not a dynamic ops: it waits for no task). The
 * graph's return handler is called preemptible, between loading the
 * fgraph_ops and calling it: the ops is freed after
 * synchronize_rcu_tasks().
 *
 * The fgraph_ops shares the ops' hashes, and ftrace carries a change of
 * them to the graph only while the ops is unregistered ("Shared filters
 * are only allowed to have one ops set at a time"): after a write to the
 * filter files, a running graph is registered again, so that it follows
 * the new filter as ftrace:function does (lrb_fn_filter_changed()).
 *
 * Records are ftrace's entries byte for byte, as trace events' are (from
 * their first field on unless the channel records the common fields),
 * their common fields taken as ftrace's function and function_graph
 * tracers take them (preemption count included), and the channel's
 * targets apply, as they do to the probes of trace events. The events
 * take no filter and no kernel stack: set_ftrace_filter is their filter,
 * and a filter is freed once no RCU reader can see it, which a callback
 * where RCU is not watching would not be.
 *
 * Recursion: a callback holds ftrace's recursion lock of its context
 * (ftrace_test_recursion_trylock(); the graph's entry callback is called
 * with it held), so a function that LRB's write calls is not recorded
 * inside the record of another. kernel/trace/ is built without the
 * function tracer's instrumentation anyway.
 *
 * Contexts: any, NMI included. With LRB_SYNC_IRQOFF a record in NMI
 * context is refused and counted (lost_nmi), as every other one.
 */

#include <linux/ftrace.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>

#include "trace.h"
#include "lrb_events.h"

/**
 * struct lrb_fn - a channel's function tracer
 * @ops: which functions it traces; its callback records ftrace:function.
 * @fn: the channel's ftrace:function link while it runs, else NULL.
 * @gops: the function_graph callbacks, on @ops' hashes.
 * @entry: the ftrace:funcgraph_entry link while it runs, else NULL.
 * @exit: the ftrace:funcgraph_exit link while it runs, else NULL.
 * @graph_ran: @gops was registered once: its return handlers are waited
 *	for before it is freed.
 */
struct lrb_fn {
	struct ftrace_ops ops;
	struct lrb_event_link *fn;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	struct fgraph_ops gops;
	struct lrb_event_link *entry;
	struct lrb_event_link *exit;
	bool graph_ran;
#endif
};

/*
 * Serializes the making of a channel's function tracer, and the
 * registration of its graph with the filter files' changes.
 */
static DEFINE_MUTEX(lrb_fn_mutex);

/*
 * Reserve @l's record of ftrace's entry of @type, @len bytes, and return
 * the entry: with its common fields from @ctx if the channel records
 * them, else from its first field on, the entry beginning before the
 * slot (as lrb_trace_event_reserve()'s); NULL if the channel does not
 * target the task or lost the record. The context is taken as ftrace's
 * tracer of the event takes it, by the caller: a function's, or a
 * return's before the callback's own recursion lock.
 */
static void *lrb_fn_reserve(struct lrb_event_link *l, struct lrb_slot *slot,
			    size_t len, unsigned short type, unsigned int ctx)
{
	size_t skip = lrb_link_skip(l);

	if (lrb_link_ignores(l) ||
	    lrb_reserve(l->chan, slot, l->id, len - skip))
		return NULL;
	if (!skip)
		tracing_generic_entry_update(slot->data, type, ctx);
	return slot->data - skip;
}

/* ftrace:function: the function and its caller. */
static void lrb_fn_call(unsigned long ip, unsigned long parent_ip,
			struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct lrb_fn *fn = container_of(op, struct lrb_fn, ops);
	struct lrb_slot slot __uninitialized;	/* lrb_reserve() fills it */
	struct lrb_event_link *l;
	struct ftrace_entry *e;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0)
		return;
	/* Pairs with the release in lrb_fn_start(). */
	l = smp_load_acquire(&fn->fn);
	/* The context as function_trace_call() takes it, in the lock. */
	e = likely(l) ? lrb_fn_reserve(l, &slot, sizeof(*e), TRACE_FN,
				       tracing_gen_ctx_dec()) : NULL;
	if (e) {
		e->ip = ip;
		e->parent_ip = parent_ip;
		lrb_commit(&slot);
	}
	ftrace_test_recursion_unlock(bit);
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/*
 * ftrace:funcgraph_entry: the function and its depth. Called by
 * function_graph_enter() with the recursion lock held and preemption
 * disabled. Return: whether to call lrb_fn_graph_return() at its return.
 */
static int lrb_fn_graph_entry(struct ftrace_graph_ent *trace,
			      struct fgraph_ops *gops)
{
	struct lrb_fn *fn = container_of(gops, struct lrb_fn, gops);
	struct lrb_slot slot __uninitialized;	/* lrb_reserve() fills it */
	struct ftrace_graph_ent_entry *e;
	struct lrb_event_link *l;

	/* Pairs with the release in lrb_fn_graph_start(). */
	l = smp_load_acquire(&fn->entry);
	/* The context as trace_graph_entry() takes it. */
	e = l ? lrb_fn_reserve(l, &slot, sizeof(*e), TRACE_GRAPH_ENT,
			       tracing_gen_ctx()) : NULL;
	if (e) {
		e->graph_ent = *trace;
		lrb_commit(&slot);
	}
	return !!READ_ONCE(fn->exit);
}

/*
 * ftrace:funcgraph_exit: the function, its depth, the calls the return
 * stack had no room for, and the times of its call and return (the
 * graph's clock, trace_clock_local()). Called where the function
 * returns, preemptible maybe: the recursion lock disables preemption.
 *
 * The record ends with @ret, the last member ftrace's format describes:
 * struct ftrace_graph_ret_entry declares calltime and rettime once more
 * after it, 16 bytes that ftrace leaves unset in its own entries, and
 * that a CTF reader would take for the next record.
 */
#define LRB_FN_GRAPH_RET_SIZE	offsetofend(struct ftrace_graph_ret_entry, ret)

static void lrb_fn_graph_return(struct ftrace_graph_ret *trace,
				struct fgraph_ops *gops)
{
	struct lrb_fn *fn = container_of(gops, struct lrb_fn, gops);
	struct lrb_slot slot __uninitialized;	/* lrb_reserve() fills it */
	/* As trace_graph_return() takes it: the function's, not the lock's. */
	unsigned int ctx = tracing_gen_ctx();
	struct ftrace_graph_ret_entry *e;
	struct lrb_event_link *l;
	int bit;

	bit = ftrace_test_recursion_trylock(trace->func, 0);
	if (bit < 0)
		return;
	/* Pairs with the release in lrb_fn_graph_start(). */
	l = smp_load_acquire(&fn->exit);
	e = l ? lrb_fn_reserve(l, &slot, LRB_FN_GRAPH_RET_SIZE,
			       TRACE_GRAPH_RET, ctx) : NULL;
	if (e) {
		e->ret = *trace;
		lrb_commit(&slot);
	}
	ftrace_test_recursion_unlock(bit);
}

static void lrb_fn_graph_init(struct lrb_fn *fn)
{
	fn->gops.entryfunc = lrb_fn_graph_entry;
	fn->gops.retfunc = lrb_fn_graph_return;
	fgraph_init_ops(&fn->gops.ops, &fn->ops);
}

#else
static void lrb_fn_graph_init(struct lrb_fn *fn)
{
}
#endif /* CONFIG_FUNCTION_GRAPH_TRACER */

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
static bool lrb_fn_graph_running(struct lrb_fn *fn)
{
	return fn->entry || fn->exit;
}
#endif

/*
 * The function tracer of the channel of @o, made if it has none yet.
 * Called from its filter files and from the start of its links.
 */
static struct lrb_fn *lrb_fn_get(struct lrb_events_owner *o)
{
	struct lrb_fn *fn;

	guard(mutex)(&lrb_fn_mutex);
	if (o->fn)
		return o->fn;
	fn = kzalloc(sizeof(*fn), GFP_KERNEL);
	if (!fn)
		return NULL;
	fn->ops.func = lrb_fn_call;
	/* It takes ftrace's recursion lock itself. */
	fn->ops.flags = FTRACE_OPS_FL_RECURSION;
	lrb_fn_graph_init(fn);
	o->fn = fn;
	return fn;
}

/**
 * lrb_fn_ops() - the ftrace_ops whose hashes say what a channel traces
 * @o: the channel's owner.
 *
 * For the channel's set_ftrace_filter and set_ftrace_notrace files,
 * opened with ftrace_regex_open() on it; it lives as long as the channel.
 *
 * Return: the ops, or NULL if there is no memory for it.
 */
struct ftrace_ops *lrb_fn_ops(struct lrb_events_owner *o)
{
	struct lrb_fn *fn = lrb_fn_get(o);

	return fn ? &fn->ops : NULL;
}

/**
 * lrb_fn_release() - free a channel's function tracer
 * @o: the channel's owner, whose links are all stopped.
 */
void lrb_fn_release(struct lrb_events_owner *o)
{
	struct lrb_fn *fn = o->fn;

	if (!fn)
		return;
	WARN_ON_ONCE(fn->ops.flags & FTRACE_OPS_FL_ENABLED);
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	/* A return handler may still hold @fn->gops, preemptible. */
	if (fn->graph_ran)
		synchronize_rcu_tasks();
#endif
	ftrace_free_filter(&fn->ops);
	kfree(fn);
	o->fn = NULL;
}

/**
 * lrb_fn_filter_changed() - a channel's filter files were written
 * @o: the channel's owner.
 *
 * A running graph takes the new filter: it is registered again, and
 * records nothing meanwhile. May sleep.
 */
void lrb_fn_filter_changed(struct lrb_events_owner *o)
{
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	struct lrb_fn *fn;

	guard(mutex)(&lrb_fn_mutex);
	fn = o->fn;
	if (!fn || !lrb_fn_graph_running(fn))
		return;
	unregister_ftrace_graph(&fn->gops);
	if (register_ftrace_graph(&fn->gops))
		pr_warn_ratelimited("lrb: a channel's function graph stopped: cannot register it again\n");
#endif
}

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
/* Start @l, the link of funcgraph_exit if @exit, else of funcgraph_entry. */
static int lrb_fn_graph_start(struct lrb_event_link *l, bool exit)
{
	struct lrb_fn *fn = lrb_fn_get(l->owner);
	struct lrb_event_link **link;
	bool running;
	int ret;

	if (!fn)
		return -ENOMEM;
	guard(mutex)(&lrb_fn_mutex);
	link = exit ? &fn->exit : &fn->entry;
	running = lrb_fn_graph_running(fn);
	/* Pairs with the acquires of the callbacks. */
	smp_store_release(link, l);
	if (running)
		return 0;
	ret = register_ftrace_graph(&fn->gops);
	if (ret)
		WRITE_ONCE(*link, NULL);
	else
		fn->graph_ran = true;
	return ret;
}

static void lrb_fn_graph_stop(struct lrb_event_link *l, bool exit)
{
	struct lrb_fn *fn = l->owner->fn;

	scoped_guard(mutex, &lrb_fn_mutex) {
		WRITE_ONCE(*(exit ? &fn->exit : &fn->entry), NULL);
		if (!lrb_fn_graph_running(fn))
			unregister_ftrace_graph(&fn->gops);
	}
	/* Callbacks that read the link, wherever they run, are done. */
	synchronize_rcu_tasks_rude();
}

static int lrb_fn_entry_start(struct lrb_event_link *l)
{
	return lrb_fn_graph_start(l, false);
}

static void lrb_fn_entry_stop(struct lrb_event_link *l)
{
	lrb_fn_graph_stop(l, false);
}

static int lrb_fn_exit_start(struct lrb_event_link *l)
{
	return lrb_fn_graph_start(l, true);
}

static void lrb_fn_exit_stop(struct lrb_event_link *l)
{
	lrb_fn_graph_stop(l, true);
}
#endif

static int lrb_fn_start(struct lrb_event_link *l)
{
	struct lrb_fn *fn = lrb_fn_get(l->owner);
	int ret;

	if (!fn)
		return -ENOMEM;
	/* Pairs with the acquire of lrb_fn_call(). */
	smp_store_release(&fn->fn, l);
	ret = register_ftrace_function(&fn->ops);
	if (ret)
		WRITE_ONCE(fn->fn, NULL);
	return ret;
}

static void lrb_fn_stop(struct lrb_event_link *l)
{
	struct lrb_fn *fn = l->owner->fn;

	WARN_ON_ONCE(unregister_ftrace_function(&fn->ops));
	WRITE_ONCE(fn->fn, NULL);
}

/* Each event of the function tracer has entries of one length. */
static long lrb_fn_fixed_len(const struct lrb_event_link *l)
{
	size_t len = sizeof(struct ftrace_entry);

#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	if (l->ev->start == lrb_fn_entry_start)
		len = sizeof(struct ftrace_graph_ent_entry);
	else if (l->ev->start == lrb_fn_exit_start)
		len = LRB_FN_GRAPH_RET_SIZE;
#endif
	return len - lrb_link_skip(l);
}

/**
 * lrb_fn_init() - make a function tracer event recordable
 * @call: one of ftrace's events.
 * @ev: its event in the registry, being set up.
 *
 * Return: whether @call is ftrace:function or, with the function_graph
 * tracer, ftrace:funcgraph_entry or ftrace:funcgraph_exit: @ev then
 * starts and stops through the channel's function tracer, and takes no
 * filter.
 */
bool lrb_fn_init(struct trace_event_call *call, struct lrb_event *ev)
{
	if (call == &event_function) {
		ev->start = lrb_fn_start;
		ev->stop = lrb_fn_stop;
#ifdef CONFIG_FUNCTION_GRAPH_TRACER
	} else if (call == &event_funcgraph_entry) {
		ev->start = lrb_fn_entry_start;
		ev->stop = lrb_fn_entry_stop;
	} else if (call == &event_funcgraph_exit) {
		ev->start = lrb_fn_exit_start;
		ev->stop = lrb_fn_exit_stop;
#endif
	} else {
		return false;
	}
	ev->fixed_len = lrb_fn_fixed_len;
	ev->filter_new = NULL;
	ev->filter_free = NULL;
	ev->by_name = true;
	return true;
}
