// SPDX-License-Identifier: GPL-2.0
/*
 * LRB event registry: the events LRB can record (markers, built-in and in
 * modules, and the kernel's trace events), their ids and their CTF
 * descriptions.
 *
 * Event ids are never reused for another description: a module's events
 * retire when it unloads, their descriptions stay in the metadata, so a
 * trace holding their records stays readable, and the same events get
 * their ids back when the module loads again.
 *
 * The registry also knows which tracefs channels record each event. A
 * channel (an owner) selects events with selectors (see
 * lrb_events_command()); a selector also takes the events of modules
 * loaded later. An event may be selected by any number of channels: each
 * (event, channel) pair is a link. A link runs (it is on its event's RCU
 * list, and the event's start() attached it: a marker's static key, a
 * tracepoint probe) while its channel is enabled. Writers walk the running
 * links under rcu_read_lock_sched() or in a tracepoint probe;
 * lrb_events_stop() detaches the links and waits for writers in flight
 * before the owner flushes.
 */

#include <kunit/visibility.h>
#include <linux/glob.h>
#include <linux/idr.h>
#include <linux/lrb_marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_buf.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/string_choices.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>
#include <linux/unaligned.h>
#include <linux/xarray.h>

#include "lrb_events.h"
#ifdef CONFIG_LRB_DYNAMIC_EVENTS
#include "trace.h"
#endif

#define LRB_EVENTS_GLOB_MAX	64
#define LRB_EVENTS_TSDL_MAX	(16 * 1024)

/*
 * A selector an owner enabled or disabled, kept to select events registered
 * later: the last kept selector that matches a new event decides.
 */
struct lrb_events_glob {
	struct list_head list;
	bool enable;
	char glob[LRB_EVENTS_GLOB_MAX];
};

/*
 * A description kept after its module unloaded. lrb_events_retired, as
 * lrb_events, changes under lrb_events_mutex with the _rcu calls, and an
 * entry taken off it is freed after a grace period: both lists can be
 * walked under RCU alone.
 */
struct lrb_events_retired {
	struct list_head list;
	struct rcu_head rcu;
	unsigned int id;
	char *name;
	char *tsdl;
	/* in the LTTng layout, where not the same */
	char *lttng_name;
	char *lttng_tsdl;
};

static DEFINE_MUTEX(lrb_events_mutex);
static LIST_HEAD(lrb_events);
static LIST_HEAD(lrb_events_retired);
static LIST_HEAD(lrb_events_owners);
static DEFINE_IDA(lrb_events_ida);

/*
 * For a channel's command that may start or stop links, before the
 * registry's mutex: a dynamic event starts and stops under event_mutex
 * (its provider's reg() wants it), which its provider holds when it adds
 * or removes the event (lrb_trace_events.c), so it is taken first.
 */
static void lrb_events_dyn_lock(void)
{
#ifdef CONFIG_LRB_DYNAMIC_EVENTS
	mutex_lock(&event_mutex);
#endif
}

static void lrb_events_dyn_unlock(void)
{
#ifdef CONFIG_LRB_DYNAMIC_EVENTS
	mutex_unlock(&event_mutex);
#endif
}

static void lrb_events_sync(void)
{
	/* Markers run under rcu_read_lock_sched(), trace events as tracepoints. */
	tracepoint_synchronize_unregister();
}

/* TSDL: the one place that writes CTF field declarations. */

/*
 * A field's name in TSDL has one more leading underscore than the name
 * readers show (CTF readers strip one): names that are TSDL keywords
 * ("event", "struct", "string") are then valid, and names that start
 * with an underscore keep it.
 */

/**
 * lrb_tsdl_integer() - declare an integer field or array
 * @s: where the declaration goes.
 * @name: the field name, as readers show it.
 * @bits: size in bits.
 * @flags: LRB_TSDL_* flags.
 * @suffix: "" for a scalar, "[N]" for an array, "[_LENGTH_FIELD]" for a
 *	sequence (the length field's TSDL name).
 *
 * Records are packed byte to byte and start anywhere, so a field of whole
 * bytes is declared byte-aligned, and a gap before it is the caller's to
 * declare; a bit field follows the previous one bit to bit.
 */
void lrb_tsdl_integer(struct seq_buf *s, const char *name, unsigned int bits,
		      unsigned int flags, const char *suffix)
{
	seq_buf_printf(s, "\t\tinteger { size = %u; align = %u; signed = %s;%s%s } _%s%s;",
		       bits, bits % 8 ? 1 : 8,
		       str_true_false(flags & LRB_TSDL_SIGNED),
		       flags & LRB_TSDL_HEX ? " base = 16;" : "",
		       flags & LRB_TSDL_TEXT ? " encoding = UTF8;" : "",
		       name, suffix);
	if (flags & LRB_TSDL_OPAQUE)
		seq_buf_puts(s, " /* opaque */");
	seq_buf_putc(s, '\n');
}
EXPORT_SYMBOL_IF_KUNIT(lrb_tsdl_integer);

/**
 * lrb_tsdl_enum() - declare an integer field as a CTF enumeration
 * @s: where the declaration goes.
 * @name: the field name, as readers show it.
 * @bits: size in bits, a multiple of 8.
 * @flags: LRB_TSDL_SIGNED or 0.
 * @mappings: the enumerators: "LABEL" = VALUE, ...
 */
void lrb_tsdl_enum(struct seq_buf *s, const char *name, unsigned int bits,
		   unsigned int flags, const char *mappings)
{
	/* Byte-aligned, as lrb_tsdl_integer() declares whole bytes. */
	seq_buf_printf(s, "\t\tenum : integer { size = %u; align = 8; signed = %s; }",
		       bits, str_true_false(flags & LRB_TSDL_SIGNED));
	seq_buf_printf(s, " { %s } _%s;\n", mappings, name);
}

/**
 * lrb_tsdl_string() - declare a NUL-terminated string field
 * @s: where the declaration goes.
 * @name: the field name, as readers show it.
 */
void lrb_tsdl_string(struct seq_buf *s, const char *name)
{
	seq_buf_printf(s, "\t\tstring _%s;\n", name);
}

/* The fields of a marker: packed, in the order of the site's arguments. */
static int lrb_marker_describe(struct lrb_event *ev, struct seq_buf *s)
{
	static const u8 bits[] = {
		[LRB_FIELD_U8] = 8, [LRB_FIELD_U16] = 16,
		[LRB_FIELD_U32] = 32, [LRB_FIELD_U64] = 64,
		[LRB_FIELD_S8] = 8, [LRB_FIELD_S16] = 16,
		[LRB_FIELD_S32] = 32, [LRB_FIELD_S64] = 64,
	};
	const struct lrb_field *f;
	char suffix[16];
	unsigned int i;

	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->type == LRB_FIELD_STRING) {
			lrb_tsdl_string(s, f->name);
			continue;
		}
		if (f->type >= ARRAY_SIZE(bits))
			return -EINVAL;
		snprintf(suffix, sizeof(suffix), f->count > 1 ? "[%u]" : "",
			 f->count);
		lrb_tsdl_integer(s, f->name, bits[f->type],
				 f->type >= LRB_FIELD_S8 ? LRB_TSDL_SIGNED : 0,
				 suffix);
	}
	return 0;
}

/* @ev in the LTTng layout, rendered in @buf from its description. */
static int lrb_event_describe_lttng(struct lrb_event *ev, char *buf)
{
	struct seq_buf s;
	int ret;

	seq_buf_init(&s, buf, LRB_EVENTS_TSDL_MAX);
	ret = ev->describe_lttng(ev, &s);
	if (!ret && seq_buf_has_overflowed(&s))
		ret = -E2BIG;
	if (!ret) {
		seq_buf_putc(&s, '\0');
		ev->lttng_tsdl = kstrdup(buf, GFP_KERNEL);
		if (!ev->lttng_tsdl)
			ret = -ENOMEM;
	}
	if (ret) {
		kfree(ev->tsdl);
		ev->tsdl = NULL;
	}
	return ret;
}

/* The name and the description of @ev in the LTTng layout. */
static const char *lrb_event_lttng_name(const struct lrb_event *ev)
{
	return ev->lttng_name ? ev->lttng_name : ev->name;
}

static const char *lrb_event_lttng_tsdl(const struct lrb_event *ev)
{
	return ev->lttng_tsdl ? ev->lttng_tsdl : ev->tsdl;
}

/* Render @ev's fields once, at registration. */
static int lrb_event_describe(struct lrb_event *ev)
{
	struct seq_buf s;
	char *buf;
	int ret;

	buf = kmalloc(LRB_EVENTS_TSDL_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	seq_buf_init(&s, buf, LRB_EVENTS_TSDL_MAX);
	ret = ev->describe ? ev->describe(ev, &s) : lrb_marker_describe(ev, &s);
	if (!ret && seq_buf_has_overflowed(&s))
		ret = -E2BIG;
	if (!ret) {
		seq_buf_putc(&s, '\0');
		ev->tsdl = kstrdup(buf, GFP_KERNEL);
		if (!ev->tsdl)
			ret = -ENOMEM;
	}
	if (!ret && ev->describe_lttng)
		ret = lrb_event_describe_lttng(ev, buf);
	kfree(buf);
	return ret;
}

/* Links */

static unsigned int lrb_stack_depth(struct lrb_events_owner *o,
				    struct lrb_event *ev);
static int lrb_link_filter_init(struct lrb_event_link *l);
static void lrb_link_filter_free(struct lrb_event_link *l);

static struct lrb_event_link *lrb_link_find(struct lrb_events_owner *o,
					    struct lrb_event *ev)
{
	struct lrb_event_link *l;

	list_for_each_entry(l, &o->links, owner_node)
		if (l->ev == ev)
			return l;
	return NULL;
}

/*
 * The payload of every record of @l's event in @l's channel has the same
 * length (up to 254 bytes), or holds its length: let its records leave
 * their length out if their id can (a compact one). An id that has
 * another rule already is a bug.
 */
static int lrb_link_fix_len(struct lrb_event_link *l)
{
	long len = l->ev->fixed_len ? l->ev->fixed_len(l) : -1;
	int at = -1, base;

	if (l->id >= LRB_ID_EXTENDED)
		return 0;
	if (len < 0 && l->ev->len_at)
		at = l->ev->len_at(l, &base);
	if (at >= 0 && at < U8_MAX)
		return WARN_ON_ONCE(lrb_set_record_len_at(l->chan, l->id, at,
							  base));
	if (len < 0 || len >= U8_MAX)
		return 0;
	return WARN_ON_ONCE(lrb_set_record_len(l->chan, l->id, len));
}

static int lrb_link_start(struct lrb_event_link *l, struct lrb_channel *chan)
{
	int ret;

	l->chan = chan;
	l->common = lrb_events_common(l->owner);
	ret = lrb_link_fix_len(l);
	if (ret)
		return ret;
	/*
	 * Attach first, publish after: a link that failed to start was never
	 * seen by a writer, and its caller may free it at once.
	 */
	ret = l->ev->start(l);
	if (ret)
		return ret;
	list_add_tail_rcu(&l->ev_node, &l->ev->links);
	l->running = true;
	return 0;
}

/* The caller waits for writers with lrb_events_sync() before reuse. */
static void lrb_link_stop(struct lrb_event_link *l)
{
	if (!l->running)
		return;
	l->ev->stop(l);
	list_del_rcu(&l->ev_node);
	l->running = false;
}

/*
 * Event @id has records in @o's channel from now on: describe it there.
 * The id of its records in the channel, the next one the first time, or
 * -errno.
 */
static int lrb_owner_describe(struct lrb_events_owner *o, unsigned int id)
{
	void *entry = xa_load(&o->described, id);
	int ret;

	if (entry)
		return xa_to_value(entry);
	if (o->nr_ids >= INT_MAX)
		return -ENOSPC;
	ret = xa_err(xa_store(&o->described, id, xa_mk_value(o->nr_ids + 1),
			      GFP_KERNEL));
	return ret ?: ++o->nr_ids;
}

/* The id of the records of the event of registry id @id in @o, or 0. */
static unsigned int lrb_owner_id(struct lrb_events_owner *o,
				 unsigned int id)
{
	void *entry = xa_load(&o->described, id);

	return entry ? xa_to_value(entry) : 0;
}

/* Select @ev for @o; start it if @o is enabled. 1 if new, 0, or -errno. */
static int lrb_link_add(struct lrb_events_owner *o, struct lrb_event *ev)
{
	struct lrb_event_link *l;
	int ret;

	if (lrb_link_find(o, ev))
		return 0;
	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	l->ev = ev;
	l->owner = o;
	/* As the channel's targets say, from its first record. */
	l->ignore = o->ignore;
	/* Not seen by a writer yet: no release. */
	l->stack = lrb_stack_depth(o, ev);
	/* Described from now on: its records may outlive the link. */
	ret = lrb_owner_describe(o, ev->id);
	if (ret < 0) {
		kfree(l);
		return ret;
	}
	l->id = ret;
	/* A filter the channel set for it applies from its first record. */
	ret = lrb_link_filter_init(l);
	if (ret) {
		kfree(l);
		return ret;
	}
	if (o->chan) {
		ret = lrb_link_start(l, o->chan);
		if (ret) {
			lrb_link_filter_free(l);
			kfree(l);
			return ret;
		}
	}
	list_add_tail(&l->owner_node, &o->links);
	return 1;
}

/* Unlink and free @o's links for which @match is true. */
static int lrb_links_drop(struct lrb_events_owner *o,
			  bool (*match)(struct lrb_event_link *l,
					const void *arg),
			  const void *arg)
{
	struct lrb_event_link *l, *tmp;
	LIST_HEAD(dead);
	int n = 0;

	list_for_each_entry_safe(l, tmp, &o->links, owner_node) {
		if (!match(l, arg))
			continue;
		lrb_link_stop(l);
		list_move(&l->owner_node, &dead);
		n++;
	}
	if (!n)
		return 0;
	lrb_events_sync();
	list_for_each_entry(l, &dead, owner_node)
		lrb_link_filter_free(l);
	list_for_each_entry_safe(l, tmp, &dead, owner_node)
		kfree(l);
	return n;
}

/* Selectors */

/*
 * A selector is "all", "SYSTEM:EVENT" (either part a glob), or a name or
 * glob without ':', which matches a whole name (a marker), an event part,
 * or a system: "sched", "sched_switch", "sched_*", "lrb_sample_*".
 */
static bool lrb_selector_valid(const char *sel)
{
	const char *p, *colon = strchr(sel, ':');
	int depth = 0;

	if (!*sel || (colon && (colon == sel || !colon[1] ||
				strchr(colon + 1, ':'))))
		return false;
	for (p = sel; *p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']')
			depth--;
		else if (!isascii(*p) ||
			 (!isalnum(*p) && !strchr("_-:*?!.", *p)))
			return false;
		if (depth < 0 || depth > 1)
			return false;
	}
	return !depth;
}

static bool lrb_selector_match(const char *sel, const char *name)
{
	const char *colon = strchr(name, ':');
	char sys[LRB_EVENTS_GLOB_MAX];

	if (!strcmp(sel, "all") || glob_match(sel, name))
		return true;
	if (strchr(sel, ':') || !colon)
		return false;
	if (glob_match(sel, colon + 1))
		return true;
	if (colon - name >= sizeof(sys))
		return false;
	strscpy(sys, name, colon - name + 1);
	return glob_match(sel, sys);
}

static bool lrb_selector_is_glob(const char *s)
{
	return !strcmp(s, "all") || strpbrk(s, "*?[");
}

/*
 * Whether the glob @wide matches every string the glob @text matches
 * (false when unsure). Matching the text is exact when @text has no
 * wildcard, and when @wide has no '?' or '[' and @text no '[': @wide's
 * '*' then takes @text's wildcards whole, and those never meet a literal
 * character of @wide.
 */
static bool lrb_glob_covers(const char *wide, const char *text)
{
	if (strpbrk(text, "*?[") && (strpbrk(wide, "?[") || strchr(text, '[')))
		return false;
	return glob_match(wide, text);
}

/* Whether every event @sel matches, @wide matches too (false when unsure). */
static bool lrb_selector_covers(const char *wide, const char *sel)
{
	const char *colon = strchr(sel, ':');
	char sys[LRB_EVENTS_GLOB_MAX];

	if (!strcmp(wide, "all") || !strcmp(wide, sel))
		return true;
	if (!strcmp(sel, "all") || (strchr(wide, ':') && !colon))
		return false;
	if (lrb_glob_covers(wide, sel))
		return true;
	if (!colon || strchr(wide, ':'))
		return false;
	/* "sched" covers "sched:*" by its system, "*_switch" "*:sched_switch". */
	strscpy(sys, sel, min_t(size_t, colon - sel + 1, sizeof(sys)));
	return lrb_glob_covers(wide, sys) || lrb_glob_covers(wide, colon + 1);
}

static bool lrb_events_owner_match(struct lrb_events_owner *o,
				   const char *name)
{
	struct lrb_events_glob *g;
	bool on = false;

	list_for_each_entry(g, &o->globs, list)
		if (lrb_selector_match(g->glob, name))
			on = g->enable;
	return on;
}

/* A new event: link it to every owner whose selectors match it. */
static void lrb_events_adopt(struct lrb_event *ev)
{
	struct lrb_events_owner *o;

	list_for_each_entry(o, &lrb_events_owners, list)
		if (lrb_events_owner_match(o, ev->name) &&
		    lrb_link_add(o, ev) < 0)
			pr_warn("lrb: cannot start event %s\n", ev->name);
}

/* Filters */

/*
 * A filter a channel set, "SELECTOR EXPR": kept to filter the events the
 * selector matches that the channel selects later, an event of a module
 * loaded later included, so that none of their records is written
 * unfiltered.
 */
struct lrb_events_filter {
	struct list_head list;
	char glob[LRB_EVENTS_GLOB_MAX];
	char expr[];
};

/* The filter @o keeps for @ev: the last one set whose selector matches. */
static struct lrb_events_filter *lrb_filter_find(struct lrb_events_owner *o,
						 struct lrb_event *ev)
{
	struct lrb_events_filter *kf, *found = NULL;

	list_for_each_entry(kf, &o->filters, list)
		if (lrb_selector_match(kf->glob, ev->name))
			found = kf;
	return found;
}

/* @expr compiled for @ev in @o; an ERR_PTR() with @o's message set. */
static void *lrb_filter_compile(struct lrb_events_owner *o,
				struct lrb_event *ev, const char *expr)
{
	char *err = NULL, *text;
	void *f;

	if (!o->filtered) {
		o->filtered = alloc_percpu(struct lrb_counter);
		if (!o->filtered)
			return ERR_PTR(-ENOMEM);
	}
	/* The parser may write into the text it is given. */
	text = kstrdup(expr, GFP_KERNEL);
	if (!text)
		return ERR_PTR(-ENOMEM);
	f = ev->filter_new(ev, text, o->layout, o->filtered, &err);
	kfree(text);
	if (IS_ERR(f)) {
		kfree(o->filter_err);
		/* ftrace's message: the expression, a caret, the error. */
		o->filter_err = err ?
			kasprintf(GFP_KERNEL, "%s:\n%s", ev->name, err) :
			kasprintf(GFP_KERNEL, "%s: %s: error %ld", ev->name,
				  expr, PTR_ERR(f));
		kfree(err);
	}
	return f;
}

/* Give the new link @l the filter its channel keeps for its event. */
static int lrb_link_filter_init(struct lrb_event_link *l)
{
	struct lrb_events_filter *kf = lrb_filter_find(l->owner, l->ev);
	void *f;

	if (!kf || !l->ev->filter_new)
		return 0;
	f = lrb_filter_compile(l->owner, l->ev, kf->expr);
	if (IS_ERR(f))
		return PTR_ERR(f);
	RCU_INIT_POINTER(l->filter, f);
	return 0;
}

/* Free the filter of @l, which no writer can see any more. */
static void lrb_link_filter_free(struct lrb_event_link *l)
{
	void *f = rcu_dereference_protected(l->filter, true);

	if (f)
		l->ev->filter_free(f);
	RCU_INIT_POINTER(l->filter, NULL);
}

/* Is @l a link whose records can be filtered, of an event @sel matches? */
static bool lrb_link_filtered_by(struct lrb_event_link *l, const char *sel)
{
	return l->ev->filter_new && lrb_selector_match(sel, l->ev->name);
}

/*
 * Free @f[i], made for the i-th link of @o that lrb_link_filtered_by()
 * @sel, up to the first that is an error or @n.
 */
static void lrb_filters_free(struct lrb_events_owner *o, const char *sel,
			     void **f, unsigned int n)
{
	struct lrb_event_link *l;
	unsigned int i = 0;

	list_for_each_entry(l, &o->links, owner_node) {
		if (i == n || IS_ERR(f[i]))
			return;
		if (!lrb_link_filtered_by(l, sel))
			continue;
		if (f[i])
			l->ev->filter_free(f[i]);
		i++;
	}
}

/*
 * Put @f[i] on the i-th link of @o that lrb_link_filtered_by() @sel,
 * and free what they had once no writer can see it.
 */
static void lrb_filters_swap(struct lrb_events_owner *o, const char *sel,
			     void **f, unsigned int n)
{
	struct lrb_event_link *l;
	bool old = false;
	unsigned int i = 0;

	list_for_each_entry(l, &o->links, owner_node) {
		if (!lrb_link_filtered_by(l, sel))
			continue;
		f[i] = rcu_replace_pointer(l->filter, f[i],
					   lockdep_is_held(&lrb_events_mutex));
		if (f[i++])
			old = true;
	}
	if (!old)
		return;
	lrb_events_sync();
	lrb_filters_free(o, sel, f, n);
}

/*
 * Whether what a channel keeps for the selector @kept (a filter, a stack
 * depth) goes when it is set for @sel: @sel covers @kept, or @kept is a
 * name without wildcards whose events in the registry @sel all matches,
 * as "sched" matches every event "sched_switch" names. Under the
 * registry's mutex.
 */
static bool lrb_selector_replaces(const char *sel, const char *kept)
{
	struct lrb_event *ev;
	bool any = false;

	if (lrb_selector_covers(sel, kept))
		return true;
	if (lrb_selector_is_glob(kept))
		return false;
	list_for_each_entry(ev, &lrb_events, list) {
		if (!lrb_selector_match(kept, ev->name))
			continue;
		if (!lrb_selector_match(sel, ev->name))
			return false;
		any = true;
	}
	return any;
}

/* Forget the filters @o keeps that one set for @sel replaces; how many. */
static int lrb_filters_forget(struct lrb_events_owner *o, const char *sel)
{
	struct lrb_events_filter *kf, *tmp;
	int n = 0;

	list_for_each_entry_safe(kf, tmp, &o->filters, list) {
		if (!lrb_selector_replaces(sel, kf->glob))
			continue;
		list_del(&kf->list);
		kfree(kf);
		n++;
	}
	return n;
}

/*
 * Filter the records of @o's events matching @sel with @expr, or stop
 * filtering them if @expr is NULL. All or nothing: a filter that does not
 * compile for one of them changes nothing.
 */
static int lrb_filter_set(struct lrb_events_owner *o, const char *sel,
			  const char *expr)
{
	struct lrb_events_filter *kf = NULL;
	unsigned int n = 0, matched = 0, i;
	struct lrb_event_link *l;
	void **f;
	int ret = 0;

	list_for_each_entry(l, &o->links, owner_node) {
		matched += lrb_selector_match(sel, l->ev->name);
		n += lrb_link_filtered_by(l, sel);
	}
	if (!lrb_selector_is_glob(sel) && !matched)
		return -ENOENT;
	/* Markers and the statedump have no fields to filter on. */
	if (!lrb_selector_is_glob(sel) && !n)
		return -EOPNOTSUPP;
	if (expr) {
		kf = kzalloc(struct_size(kf, expr, strlen(expr) + 1),
			     GFP_KERNEL);
		if (!kf)
			return -ENOMEM;
		strscpy(kf->glob, sel, sizeof(kf->glob));
		strscpy(kf->expr, expr, strlen(expr) + 1);
	}
	f = kcalloc(max(n, 1U), sizeof(*f), GFP_KERNEL);
	if (!f) {
		kfree(kf);
		return -ENOMEM;
	}
	i = 0;
	list_for_each_entry(l, &o->links, owner_node) {
		if (!expr || !lrb_link_filtered_by(l, sel))
			continue;
		f[i] = lrb_filter_compile(o, l->ev, expr);
		if (IS_ERR(f[i])) {
			ret = PTR_ERR(f[i]);
			break;
		}
		i++;
	}
	if (ret) {
		lrb_filters_free(o, sel, f, n);
		kfree(f);
		kfree(kf);
		return ret;
	}
	lrb_filters_swap(o, sel, f, n);
	kfree(f);
	kfree(o->filter_err);
	o->filter_err = NULL;
	if (!expr)
		return lrb_filters_forget(o, sel) || matched ? 0 : -ENOENT;
	lrb_filters_forget(o, sel);
	list_add_tail(&kf->list, &o->filters);
	return 0;
}

/**
 * lrb_events_filter() - filter the records of a channel's events
 * @o: the channel's owner.
 * @cmd: "SELECTOR EXPR", NUL-terminated, without surrounding space; cut
 *	up. SELECTOR is as lrb_events_command() takes it, EXPR a filter in
 *	the language of ftrace's events/SYSTEM/EVENT/filter files, or "0"
 *	to stop filtering, as there.
 *
 * The filter applies to the trace events the channel selects that
 * SELECTOR matches, and to those it selects later: a record it refuses is
 * neither written nor lost, but counted as filtered. Setting it again
 * replaces it. Markers and the statedump are not filtered.
 *
 * Return: 0; -EINVAL for a malformed command or a filter that does not
 * compile for one of the events (the channel keeps its filters, and
 * lrb_events_filters_show() says where the expression is wrong); -ENOENT
 * when a selector that is not a glob matches no event of the channel;
 * -EOPNOTSUPP when it matches none that can be filtered, or one whose
 * record in the channel's layout is not ftrace's; -ENOMEM.
 */
int lrb_events_filter(struct lrb_events_owner *o, char *cmd)
{
	char *expr = strpbrk(cmd, " \t");
	int ret;

	if (!expr)
		return -EINVAL;
	*expr = '\0';
	expr = skip_spaces(expr + 1);
	if (strlen(cmd) >= LRB_EVENTS_GLOB_MAX || !lrb_selector_valid(cmd))
		return -EINVAL;
	mutex_lock(&lrb_events_mutex);
	ret = lrb_filter_set(o, cmd, strcmp(expr, "0") ? expr : NULL);
	mutex_unlock(&lrb_events_mutex);
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_events_filter);

/**
 * lrb_events_filters_show() - list a channel's filters
 * @m: the channel's "filter" file.
 * @o: the channel's owner.
 *
 * One "SELECTOR EXPR" line per filter, in the order they were set; then,
 * if the last filter set did not compile, the parser's message as
 * comment lines, a caret under where the expression went wrong.
 */
void lrb_events_filters_show(struct seq_file *m, struct lrb_events_owner *o)
{
	struct lrb_events_filter *kf;
	const char *p, *nl;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(kf, &o->filters, list)
		seq_printf(m, "%s %s\n", kf->glob, kf->expr);
	for (p = o->filter_err; p && *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		seq_printf(m, "# %.*s\n", (int)(nl - p), p);
		if (!*nl)
			break;
	}
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_filtered() - the records a channel's filters refused
 * @o: the channel's owner.
 * @cpu: the CPU they were for.
 *
 * Return: the count, never reset.
 */
u64 lrb_events_filtered(struct lrb_events_owner *o, int cpu)
{
	struct lrb_counter __percpu *filtered = READ_ONCE(o->filtered);

	return filtered ? lrb_counter_read(per_cpu_ptr(filtered, cpu)) : 0;
}
EXPORT_SYMBOL_GPL(lrb_events_filtered);

/* Targets */

/**
 * lrb_events_set_ignore() - let a channel's events read its ignore flags
 * @o: the channel's owner.
 * @ignore: its per-CPU flags, each set while the task running there is
 *	not one the channel targets; NULL when it targets every task on
 *	every CPU.
 *
 * lrb_target.c's: the flags are set before they are given here.
 */
void lrb_events_set_ignore(struct lrb_events_owner *o, bool __percpu *ignore)
{
	struct lrb_event_link *l;

	mutex_lock(&lrb_events_mutex);
	o->ignore = ignore;
	list_for_each_entry(l, &o->links, owner_node)
		WRITE_ONCE(l->ignore, ignore);
	mutex_unlock(&lrb_events_mutex);
}

/* Kernel stacks */

/*
 * A stack depth a channel asked for, "stack SELECTOR DEPTH": kept, as a
 * filter is, for the events the selector matches that it selects later.
 */
struct lrb_events_stack {
	struct list_head list;
	char glob[LRB_EVENTS_GLOB_MAX];
	unsigned int depth;
};

/*
 * The stack depth @o keeps for @ev: that of the last selector set that
 * matches it, 0 if none does. Stacks are recorded for the events that
 * filters apply to, the trace events.
 */
static unsigned int lrb_stack_depth(struct lrb_events_owner *o,
				    struct lrb_event *ev)
{
	struct lrb_events_stack *ks;
	unsigned int depth = 0;

	if (!ev->filter_new)
		return 0;
	list_for_each_entry(ks, &o->stacks, list)
		if (lrb_selector_match(ks->glob, ev->name))
			depth = ks->depth;
	return depth;
}

/* Forget the stack depths @o keeps that one set for @sel replaces. */
static int lrb_stacks_forget(struct lrb_events_owner *o, const char *sel)
{
	struct lrb_events_stack *ks, *tmp;
	int n = 0;

	list_for_each_entry_safe(ks, tmp, &o->stacks, list) {
		if (!lrb_selector_replaces(sel, ks->glob))
			continue;
		list_del(&ks->list);
		kfree(ks);
		n++;
	}
	return n;
}

/* Does a depth @o keeps apply to one of its trace events @sel matches? */
static bool lrb_stack_kept_for(struct lrb_events_owner *o, const char *sel)
{
	struct lrb_event_link *l;

	list_for_each_entry(l, &o->links, owner_node)
		if (lrb_link_filtered_by(l, sel) && lrb_stack_depth(o, l->ev))
			return true;
	return false;
}

/*
 * Record at most @depth addresses of the kernel stack after each record
 * of @o's trace events matching @sel, or none if @depth is 0: the last
 * selector set that matches an event gives its depth.
 */
static int lrb_stack_set(struct lrb_events_owner *o, const char *sel,
			 unsigned int depth)
{
	struct lrb_events_stack *ks;
	unsigned int matched = 0, n = 0;
	struct lrb_event_link *l;
	int ret, forgot;

	list_for_each_entry(l, &o->links, owner_node) {
		matched += lrb_selector_match(sel, l->ev->name);
		n += lrb_link_filtered_by(l, sel);
	}
	if (!lrb_selector_is_glob(sel) && !matched)
		return -ENOENT;
	if (!lrb_selector_is_glob(sel) && !n)
		return -EOPNOTSUPP;
	if (depth) {
		ret = lrb_stack_alloc();
		if (ret < 0)
			return ret;
		/* Its records follow those of @sel's events from now on. */
		ret = lrb_owner_describe(o, ret);
		if (ret < 0)
			return ret;
		o->stack_id = ret;
	}
	ks = kzalloc(sizeof(*ks), GFP_KERNEL);
	if (!ks)
		return -ENOMEM;
	strscpy(ks->glob, sel, sizeof(ks->glob));
	ks->depth = depth;
	forgot = lrb_stacks_forget(o, sel);
	/* A 0 is kept only where it overrides a wider selector's depth. */
	if (depth || lrb_stack_kept_for(o, sel))
		list_add_tail(&ks->list, &o->stacks);
	else
		kfree(ks);
	list_for_each_entry(l, &o->links, owner_node) {
		/* Pairs with the smp_rmb() of lrb_stack_write(): arrays made. */
		smp_store_release(&l->stack, lrb_stack_depth(o, l->ev));
	}
	return depth || forgot || matched ? 0 : -ENOENT;
}

/*
 * "SELECTOR DEPTH", the arguments of lrb_events_command()'s "stack": one
 * space between them, DEPTH in decimal without a sign or a leading zero.
 */
static int lrb_events_stack(struct lrb_events_owner *o, const char *arg)
{
	const char *num = strchr(arg, ' ');
	char sel[LRB_EVENTS_GLOB_MAX];
	unsigned int depth;
	int ret;

	if (!num || num - arg >= sizeof(sel))
		return -EINVAL;
	memcpy(sel, arg, num - arg);
	sel[num - arg] = '\0';
	num++;
	if (!lrb_selector_valid(sel) || !isdigit(num[0]) ||
	    (num[0] == '0' && num[1]) || kstrtouint(num, 10, &depth) ||
	    depth > LRB_STACK_DEPTH_MAX)
		return -EINVAL;
	mutex_lock(&lrb_events_mutex);
	ret = lrb_stack_set(o, sel, depth);
	mutex_unlock(&lrb_events_mutex);
	return ret;
}

/* Registration */

static void lrb_events_retired_free(struct rcu_head *rcu)
{
	struct lrb_events_retired *r =
		container_of(rcu, struct lrb_events_retired, rcu);

	kfree(r->name);
	kfree(r->tsdl);
	kfree(r->lttng_name);
	kfree(r->lttng_tsdl);
	kfree(r);
}

/* Do @r and @ev agree in the LTTng layout? */
static bool lrb_events_retired_lttng_same(const struct lrb_events_retired *r,
					  const struct lrb_event *ev)
{
	return !strcmp(r->lttng_name ? r->lttng_name : r->name,
		       lrb_event_lttng_name(ev)) &&
	       !strcmp(r->lttng_tsdl ? r->lttng_tsdl : r->tsdl,
		       lrb_event_lttng_tsdl(ev));
}

/*
 * The id of a retired event with the same name and description as @ev,
 * taken back from the retired list; 0 if there is none.
 */
static int lrb_events_unretire(const struct lrb_event *ev)
{
	struct lrb_events_retired *r;
	int id;

	list_for_each_entry(r, &lrb_events_retired, list) {
		if (strcmp(r->name, ev->name) || strcmp(r->tsdl, ev->tsdl))
			continue;
		if (!lrb_events_retired_lttng_same(r, ev))
			continue;
		id = r->id;
		list_del_rcu(&r->list);
		call_rcu(&r->rcu, lrb_events_retired_free);
		return id;
	}
	return 0;
}

/**
 * lrb_event_register() - add an event to the registry
 * @ev: the event, every member but @id and the private ones set.
 *
 * Return: 0 with an id assigned; -EEXIST for a name already registered;
 * -ENOSPC when no id is left; -ENOMEM; -EINVAL or -E2BIG for a
 * description that cannot be written.
 */
int lrb_event_register(struct lrb_event *ev)
{
	struct lrb_event *e;
	int id, ret;

	INIT_LIST_HEAD(&ev->links);
	ret = lrb_event_describe(ev);
	if (ret)
		return ret;
	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(e, &lrb_events, list) {
		if (!strcmp(e->name, ev->name)) {
			ret = -EEXIST;
			goto fail;
		}
		/* Taken in the LTTng layout: keep the ftrace name there. */
		if (ev->lttng_name &&
		    !strcmp(lrb_event_lttng_name(e), ev->lttng_name))
			ev->lttng_name = NULL;
	}
	/* A module loaded again: its events get their ids back. */
	id = lrb_events_unretire(ev);
	/* Id 0 is the annotation of the tracefs interface. */
	if (!id)
		id = ida_alloc_range(&lrb_events_ida, 1, LRB_EVENT_ID_MAX,
				     GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto fail;
	}
	ev->id = id;
	list_add_tail_rcu(&ev->list, &lrb_events);
	lrb_events_adopt(ev);
	mutex_unlock(&lrb_events_mutex);
	return 0;
fail:
	mutex_unlock(&lrb_events_mutex);
	kfree(ev->tsdl);
	ev->tsdl = NULL;
	kfree(ev->lttng_tsdl);
	ev->lttng_tsdl = NULL;
	return ret;
}

/* Keep @ev's description for the metadata; takes its TSDL text. */
static void lrb_events_retire(struct lrb_event *ev)
{
	struct lrb_events_retired *r;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (r)
		r->name = kstrdup(ev->name, GFP_KERNEL);
	if (!r || !r->name) {
		/* The id stays allocated: a stale record never gets a new name. */
		pr_warn("lrb: no memory to keep the description of %s\n",
			ev->name);
		kfree(r);
		kfree(ev->tsdl);
		ev->tsdl = NULL;
		kfree(ev->lttng_tsdl);
		ev->lttng_tsdl = NULL;
		return;
	}
	r->id = ev->id;
	r->tsdl = ev->tsdl;
	ev->tsdl = NULL;
	/* Without memory for its LTTng name, it keeps its name there. */
	if (ev->lttng_name)
		r->lttng_name = kstrdup(ev->lttng_name, GFP_KERNEL);
	r->lttng_tsdl = ev->lttng_tsdl;
	ev->lttng_tsdl = NULL;
	list_add_tail_rcu(&r->list, &lrb_events_retired);
}

static bool lrb_link_of_event(struct lrb_event_link *l, const void *ev)
{
	return l->ev == ev;
}

/**
 * lrb_event_unregister() - remove an event from the registry
 * @ev: a registered event.
 *
 * Detaches it from every channel and waits for writers in flight.
 * Keeps its description in the metadata.
 */
void lrb_event_unregister(struct lrb_event *ev)
{
	struct lrb_events_owner *o;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(o, &lrb_events_owners, list)
		lrb_links_drop(o, lrb_link_of_event, ev);
	list_del_rcu(&ev->list);
	lrb_events_retire(ev);
	mutex_unlock(&lrb_events_mutex);
}

/* Owners */

/**
 * lrb_events_owner_init() - set up a channel as an owner of events
 * @o: the owner, embedded in the channel.
 */
void lrb_events_owner_init(struct lrb_events_owner *o)
{
	INIT_LIST_HEAD(&o->globs);
	INIT_LIST_HEAD(&o->links);
	INIT_LIST_HEAD(&o->filters);
	INIT_LIST_HEAD(&o->stacks);
	o->filtered = NULL;
	o->filter_err = NULL;
	o->target = NULL;
	o->ignore = NULL;
	xa_init(&o->described);
	o->chan = NULL;
	o->layout = LRB_LAYOUT_FTRACE;
	mutex_lock(&lrb_events_mutex);
	list_add_tail(&o->list, &lrb_events_owners);
	mutex_unlock(&lrb_events_mutex);
}
EXPORT_SYMBOL_GPL(lrb_events_owner_init);

static bool lrb_link_is_new(struct lrb_event_link *l, const void *arg)
{
	return l->new;
}

/*
 * Keep "enable @sel" or "disable @sel" for events registered later, last,
 * in place of the selectors it covers. A disable is kept only after an
 * enable it may override: one with no enable before it goes, the new one
 * as well as one whose enables a later command forgot. Return: the number
 * of selectors forgotten, plus one for a disable kept; or -ENOMEM, and
 * @o's selectors are left as they were.
 */
static int lrb_events_keep_selector(struct lrb_events_owner *o,
				    const char *sel, bool enable)
{
	struct lrb_events_glob *g, *tmp, *new;
	bool after_enable = false;
	int n = 0;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	new->enable = enable;
	strscpy(new->glob, sel, sizeof(new->glob));
	list_for_each_entry_safe(g, tmp, &o->globs, list) {
		if (lrb_selector_covers(sel, g->glob)) {
			list_del(&g->list);
			kfree(g);
			n++;
		}
	}
	list_add_tail(&new->list, &o->globs);
	list_for_each_entry_safe(g, tmp, &o->globs, list) {
		after_enable |= g->enable;
		if (after_enable)
			continue;
		if (g == new)
			n--;
		list_del(&g->list);
		kfree(g);
	}
	return enable ? n : n + 1;
}

/*
 * Select the events matching @sel for @o. All or nothing: an event that
 * cannot start undoes the links this call made.
 */
static int lrb_events_enable(struct lrb_events_owner *o, const char *sel)
{
	struct lrb_event_link *l;
	struct lrb_event *ev;
	int n = 0, ret = 0;

	list_for_each_entry(ev, &lrb_events, list) {
		/* Not by a glob, a system or "all". */
		if (ev->by_name && strcmp(sel, ev->name))
			continue;
		if (!lrb_selector_match(sel, ev->name))
			continue;
		n++;
		ret = lrb_link_add(o, ev);
		if (ret < 0)
			break;
		if (ret)
			list_last_entry(&o->links, struct lrb_event_link,
					owner_node)->new = true;
	}
	if (ret >= 0 && !n && !lrb_selector_is_glob(sel))
		ret = -ENOENT;
	if (ret >= 0)
		ret = lrb_events_keep_selector(o, sel, true);
	if (ret < 0) {
		lrb_links_drop(o, lrb_link_is_new, NULL);
		return ret;
	}
	list_for_each_entry(l, &o->links, owner_node)
		l->new = false;
	return 0;
}

static bool lrb_link_match(struct lrb_event_link *l, const void *sel)
{
	return lrb_selector_match(sel, l->ev->name);
}

/*
 * Whether "disable @sel" has anything to do in @o: an event it selected
 * to deselect, a selector to forget, or an enable kept for later events
 * that covers @sel, which it then overrides.
 */
static bool lrb_events_disables(struct lrb_events_owner *o, const char *sel)
{
	struct lrb_events_glob *g;
	struct lrb_event_link *l;

	list_for_each_entry(l, &o->links, owner_node)
		if (lrb_selector_match(sel, l->ev->name))
			return true;
	list_for_each_entry(g, &o->globs, list)
		if (lrb_selector_covers(sel, g->glob) ||
		    (g->enable && lrb_selector_covers(g->glob, sel)))
			return true;
	return false;
}

/*
 * Deselect @o's events matching @sel, forget the selectors it covers, and
 * keep it where it overrides an enable for events registered later: after
 * "enable sched", "disable sched:*" also keeps a later sched event out.
 * A disable with nothing to do fails, and is not kept.
 */
static int lrb_events_disable(struct lrb_events_owner *o, const char *sel)
{
	int n;

	if (!lrb_events_disables(o, sel))
		return -ENOENT;
	n = lrb_events_keep_selector(o, sel, false);
	if (n < 0)
		return n;
	lrb_links_drop(o, lrb_link_match, sel);
	return 0;
}

/**
 * lrb_events_command() - run an "enable SELECTOR" or "disable SELECTOR"
 * @o: the channel's owner.
 * @cmd: the command, NUL-terminated, without surrounding space.
 *
 * A selector is "all", "SYSTEM:EVENT" where either part may be a glob,
 * or a name or glob without ':' that matches a whole event name, the
 * event part of a name, or a system ("sched", "sched_switch", "irq_*").
 * The owner keeps its selectors for events registered later (a module's):
 * the last one that matches a new event decides. A command forgets those
 * it covers (lrb_selector_covers()); a disable is kept where it overrides
 * an enable.
 *
 * "stack SELECTOR DEPTH" records, after each record of the selected trace
 * events SELECTOR matches, and of those it selects later, a kernel_stack
 * record of at most DEPTH (1 to LRB_STACK_DEPTH_MAX) addresses of the
 * kernel stack (lrb_stack.c); "stack SELECTOR 0" stops.
 *
 * Return: 0; -EINVAL for a malformed command or selector; -ENOENT when a
 * selector that is not a glob matches no event, or nothing to disable
 * matches; the error of an event that cannot start (the channel is then
 * left as it was); -ENOMEM.
 * "stack" also fails with -EINVAL for a depth out of range, and with
 * -EOPNOTSUPP when a selector that is not a glob matches only events
 * without stacks (markers, the statedump).
 */
int lrb_events_command(struct lrb_events_owner *o, const char *cmd)
{
	const char *arg = strchr(cmd, ' ');
	int ret;

	if (!arg)
		return -EINVAL;
	arg++;
	if (!strncmp(cmd, "stack ", 6))
		return lrb_events_stack(o, arg);
	if (strlen(arg) >= LRB_EVENTS_GLOB_MAX || !lrb_selector_valid(arg))
		return -EINVAL;
	lrb_events_dyn_lock();
	mutex_lock(&lrb_events_mutex);
	if (!strncmp(cmd, "enable ", 7))
		ret = lrb_events_enable(o, arg);
	else if (!strncmp(cmd, "disable ", 8))
		ret = lrb_events_disable(o, arg);
	else
		ret = -EINVAL;
	mutex_unlock(&lrb_events_mutex);
	lrb_events_dyn_unlock();
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_events_command);

/**
 * lrb_events_start() - start the events of an owner, writing to @chan
 * @o: the owner.
 * @chan: the channel's buffers.
 *
 * Once they run, the statedump events the owner selected record the
 * threads alive (lrb_statedump()).
 *
 * Return: 0, or the error of an event that cannot start; then none of
 * the owner's events runs.
 */
int lrb_events_start(struct lrb_events_owner *o, struct lrb_channel *chan)
{
	struct lrb_event_link *l;
	int ret = 0;

	lrb_events_dyn_lock();
	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(l, &o->links, owner_node) {
		ret = lrb_link_start(l, chan);
		if (ret) {
			/* The tracing group may enable: no flood. */
			pr_warn_ratelimited("lrb: cannot start event %s: %d\n",
					    l->ev->name, ret);
			break;
		}
	}
	if (ret) {
		list_for_each_entry(l, &o->links, owner_node)
			lrb_link_stop(l);
		lrb_events_sync();
	} else {
		o->chan = chan;
	}
	mutex_unlock(&lrb_events_mutex);
	lrb_events_dyn_unlock();
	/* It may walk thousands of tasks: under no lock of the registry's. */
	if (!ret)
		lrb_statedump(o);
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_events_start);

/**
 * lrb_events_owner_link() - the running link of an event in a channel
 * @o: the channel's owner.
 * @ev: the event.
 *
 * Return: the link; NULL if the channel does not record @ev. It stays
 * until the owner's next command, which its caller serializes with this
 * call, or until @ev leaves the registry, which a built-in event (the
 * statedump's) never does.
 */
struct lrb_event_link *lrb_events_owner_link(struct lrb_events_owner *o,
					     struct lrb_event *ev)
{
	struct lrb_event_link *l;

	mutex_lock(&lrb_events_mutex);
	l = lrb_link_find(o, ev);
	if (l && !l->running)
		l = NULL;
	mutex_unlock(&lrb_events_mutex);
	return l;
}

/**
 * lrb_events_statedump() - record the statedump again into a running
 *	channel
 * @o: the channel's owner.
 *
 * As when the channel started (lrb_statedump()): for a trace that must
 * know the processes of a later moment, as LTTng's "regenerate
 * statedump" does. The caller serializes it with its other calls on @o
 * (start, stop, commands), and holds no lock of the registry's. May
 * sleep.
 *
 * Return: 0; -EINVAL if the owner's events do not run, -ENOENT if it
 * selected no statedump event.
 */
int lrb_events_statedump(struct lrb_events_owner *o)
{
	if (!o->chan)
		return -EINVAL;
	return lrb_statedump(o) ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(lrb_events_statedump);

/**
 * lrb_events_stop() - stop the events of an owner
 * @o: the owner.
 *
 * Returns once no writer of these events is in flight.
 */
void lrb_events_stop(struct lrb_events_owner *o)
{
	struct lrb_event_link *l;

	lrb_events_dyn_lock();
	mutex_lock(&lrb_events_mutex);
	o->chan = NULL;
	list_for_each_entry(l, &o->links, owner_node)
		lrb_link_stop(l);
	lrb_events_sync();
	mutex_unlock(&lrb_events_mutex);
	lrb_events_dyn_unlock();
}
EXPORT_SYMBOL_GPL(lrb_events_stop);

static bool lrb_link_any(struct lrb_event_link *l, const void *arg)
{
	return true;
}

/**
 * lrb_events_owner_release() - drop every event and selector of an owner
 * @o: the owner.
 */
void lrb_events_owner_release(struct lrb_events_owner *o)
{
	struct lrb_events_glob *g, *tmp;

	lrb_events_dyn_lock();
	mutex_lock(&lrb_events_mutex);
	o->chan = NULL;
	lrb_links_drop(o, lrb_link_any, NULL);
	list_for_each_entry_safe(g, tmp, &o->globs, list) {
		list_del(&g->list);
		kfree(g);
	}
	xa_destroy(&o->described);
	lrb_filters_forget(o, "all");
	lrb_stacks_forget(o, "all");
	free_percpu(o->filtered);
	kfree(o->filter_err);
	lrb_fn_release(o);
	list_del(&o->list);
	mutex_unlock(&lrb_events_mutex);
	lrb_events_dyn_unlock();
}
EXPORT_SYMBOL_GPL(lrb_events_owner_release);

/**
 * lrb_events_show() - list the events for a channel's "events" file
 * @m: the file.
 * @o: the channel's owner.
 *
 * One line per event: name (SYSTEM:EVENT for trace events), the id of its
 * records in the channel (0 until the channel first selects it), and
 * "enabled" if the channel selected it, "-" otherwise; then the channel's
 * selectors.
 * Then the stack depths it asked for, as "# stack SELECTOR DEPTH".
 */
void lrb_events_show(struct seq_file *m, struct lrb_events_owner *o)
{
	struct lrb_events_glob *g;
	struct lrb_events_stack *ks;
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		seq_printf(m, "%-40s %5u %s\n", ev->name,
			   lrb_owner_id(o, ev->id),
			   lrb_link_find(o, ev) ? "enabled" :
			   ev->by_name ? "- (by its name only)" : "-");
	list_for_each_entry(g, &o->globs, list)
		seq_printf(m, "# %s %s\n", str_enable_disable(g->enable),
			   g->glob);
	list_for_each_entry(ks, &o->stacks, list)
		seq_printf(m, "# stack %s %u\n", ks->glob, ks->depth);
	mutex_unlock(&lrb_events_mutex);
}

/*
 * An event of the metadata of @chan: a record of it has the fixed length
 * the channel gave its id, or holds its length where the channel said,
 * which a comment says, or begins with its length, the event's context.
 */
static void lrb_tsdl_event(struct seq_file *m, const struct lrb_channel *chan,
			   const char *name, unsigned int id,
			   const char *fields)
{
	int len = lrb_record_len(chan, id), at, base;

	seq_printf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n",
		   name, id);
	at = lrb_record_len_at(chan, id, &base);
	if (len >= 0)
		seq_printf(m, "\t" LRB_FIXED_LEN_TSDL "%d */\n", len);
	else if (at >= 0)
		seq_printf(m, "\t" LRB_LEN_AT_TSDL "%d %d */\n", at, base);
	else
		seq_puts(m, "\tcontext := struct {\n\t\tuint16_t _length;\n\t};\n");
	seq_printf(m, "\tfields := struct {\n%s\t};\n};\n\n", fields);
}

/**
 * lrb_events_metadata() - print the CTF description of an owner's events
 * @m: the metadata file.
 * @o: the channel's owner.
 * @chan: the channel's buffers, which say what lengths are fixed.
 *
 * The events, registered or retired, that @o selected since it was made:
 * a trace holds records only of those, and a reader that reads the file
 * after the last "enable" finds every one described.
 */
void lrb_events_metadata(struct seq_file *m, struct lrb_events_owner *o,
			 const struct lrb_channel *chan)
{
	struct lrb_events_retired *r;
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		if (xa_load(&o->described, ev->id))
			lrb_tsdl_event(m, chan, ev->name, lrb_owner_id(o, ev->id),
				       lrb_tsdl_fields(o, ev->tsdl));
	list_for_each_entry(r, &lrb_events_retired, list)
		if (xa_load(&o->described, r->id))
			lrb_tsdl_event(m, chan, r->name, lrb_owner_id(o, r->id),
				       lrb_tsdl_fields(o, r->tsdl));
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_metadata_lttng() - print the CTF description of an owner's
 *	events in the LTTng layout
 * @m: the metadata file.
 * @o: the channel's owner.
 * @chan: the channel's buffers, which say what lengths are fixed.
 *
 * The events of lrb_events_metadata(), with their LTTng names and fields
 * where they have them.
 */
void lrb_events_metadata_lttng(struct seq_file *m,
			       struct lrb_events_owner *o,
			       const struct lrb_channel *chan)
{
	struct lrb_events_retired *r;
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		if (xa_load(&o->described, ev->id))
			lrb_tsdl_event(m, chan, lrb_event_lttng_name(ev),
				       lrb_owner_id(o, ev->id),
				       lrb_event_lttng_tsdl(ev));
	list_for_each_entry(r, &lrb_events_retired, list)
		if (xa_load(&o->described, r->id))
			lrb_tsdl_event(m, chan, r->lttng_name ?: r->name,
				       lrb_owner_id(o, r->id),
				       r->lttng_tsdl ?: r->tsdl);
	mutex_unlock(&lrb_events_mutex);
}

/* Markers */

static size_t lrb_field_size(const struct lrb_field *f, u64 val)
{
	switch (f->type) {
	case LRB_FIELD_U8:
	case LRB_FIELD_S8:
		return 1;
	case LRB_FIELD_U16:
	case LRB_FIELD_S16:
		return 2;
	case LRB_FIELD_U32:
	case LRB_FIELD_S32:
		return 4;
	case LRB_FIELD_STRING:
		return strlen((const char *)(unsigned long)val) + 1;
	default:
		return 8;
	}
}

/**
 * lrb_print_int() - print an integer of a record, for a crash dump
 * @s: where to print.
 * @p: the integer, in the traced machine's byte order, at any alignment.
 * @size: its bytes: 1, 2, 4 or 8 ("?" is printed for any other).
 * @sign: it is signed.
 */
void lrb_print_int(struct seq_buf *s, const void *p, unsigned int size,
		   bool sign)
{
	u64 v;

	switch (size) {
	case 1:
		v = sign ? (s64)*(const s8 *)p : *(const u8 *)p;
		break;
	case 2:
		v = sign ? (s64)(s16)get_unaligned((const u16 *)p) :
			   get_unaligned((const u16 *)p);
		break;
	case 4:
		v = sign ? (s64)(s32)get_unaligned((const u32 *)p) :
			   get_unaligned((const u32 *)p);
		break;
	case 8:
		v = get_unaligned((const u64 *)p);
		break;
	default:
		seq_buf_puts(s, "?");
		return;
	}
	if (sign)
		seq_buf_printf(s, "%lld", (s64)v);
	else
		seq_buf_printf(s, "%llu", v);
}

/* The fields of a marker record, packed in the order of the site's. */
static void lrb_marker_print(struct lrb_event *ev, struct seq_buf *s,
			     const void *data, size_t len)
{
	const struct lrb_field *f;
	size_t off = 0, size;
	unsigned int i, k;

	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->type == LRB_FIELD_STRING) {
			size = strnlen(data + off, len - off);
			seq_buf_printf(s, " %s=\"%.*s\"", f->name, (int)size,
				       (const char *)data + off);
			off += size + 1;
			if (off > len)
				return;
			continue;
		}
		size = lrb_field_size(f, 0);
		for (k = 0; k < max_t(unsigned int, f->count, 1); k++) {
			if (off + size > len)
				return;
			if (k)
				seq_buf_putc(s, ',');
			else
				seq_buf_printf(s, " %s=", f->name);
			lrb_print_int(s, data + off, size,
				      f->type >= LRB_FIELD_S8);
			off += size;
		}
	}
}

/**
 * lrb_events_print() - print an event's name and fields, for a crash dump
 * @s: where to print.
 * @o: the owner of the record's channel.
 * @id: the record's event id, the channel's (never the annotation's).
 * @data: the record's payload.
 * @len: its length.
 *
 * Prints "NAME:" and " field=value" for each field, after " pid=PID" if
 * the record begins with ftrace's common fields. Takes no lock but
 * RCU's, as an oops may come while the registry is being changed: both
 * lists change with the _rcu calls, an event's memory and what its
 * printer reads go only after a grace period (for trace events of a
 * module, lrb_te_module() waits for one before ftrace frees their field
 * lists), and an id names one event of the channel for good (@o's map of
 * ids is an xarray, read under RCU, that grows only). It never reads outside
 * @data.
 */
void lrb_events_print(struct seq_buf *s, struct lrb_events_owner *o,
		      unsigned int id, const void *data, size_t len)
{
	struct lrb_events_retired *r;
	struct lrb_event *ev;

	rcu_read_lock();
	list_for_each_entry_rcu(ev, &lrb_events, list) {
		if (lrb_owner_id(o, ev->id) != id)
			continue;
		seq_buf_printf(s, "%s:", ev->name);
		if (ev->common && lrb_events_common(o)) {
			const struct trace_entry *ent = data;

			if (len < sizeof(*ent))
				goto out;
			seq_buf_printf(s, " pid=%d", get_unaligned(&ent->pid));
			data += sizeof(*ent);
			len -= sizeof(*ent);
		}
		if (ev->print)
			ev->print(ev, s, data, len);
		else
			lrb_marker_print(ev, s, data, len);
		goto out;
	}
	list_for_each_entry_rcu(r, &lrb_events_retired, list) {
		if (lrb_owner_id(o, r->id) == id) {
			seq_buf_printf(s, "%s: (its module is gone)", r->name);
			goto out;
		}
	}
	seq_buf_printf(s, "event %u:", id);
out:
	rcu_read_unlock();
}

/* One field: an integer's low @len bytes, or exactly @len bytes of text. */
static void lrb_field_put(struct lrb_slot *slot, size_t off,
			  const struct lrb_field *f, u64 val, size_t len)
{
	static const char nul;
	u8 v8 = val;
	u16 v16 = val;
	u32 v32 = val;

	if (f->type == LRB_FIELD_STRING) {
		/* Ends with a NUL even if the text grew since it was measured. */
		lrb_write(slot, off, (const char *)(unsigned long)val, len - 1);
		lrb_write(slot, off + len - 1, &nul, 1);
		return;
	}
	switch (len) {
	case 1:
		lrb_write(slot, off, &v8, 1);
		break;
	case 2:
		lrb_write(slot, off, &v16, 2);
		break;
	case 4:
		lrb_write(slot, off, &v32, 4);
		break;
	default:
		lrb_write(slot, off, &val, 8);
		break;
	}
}

/**
 * __lrb_mark() - write the records of an enabled marker site
 * @m: the site.
 * @vals: one value per field, as LRB_MARK() converted them.
 *
 * One record in each channel that selected the event. Called by
 * LRB_MARK() only; any context, NMI included.
 */
void __lrb_mark(struct lrb_marker *m, const u64 *vals)
{
	/* Both filled in before use: no need for stack auto-init to zero them. */
	size_t lens[LRB_MARK_FIELDS_MAX] __uninitialized, len = 0, off;
	const struct lrb_event *ev = &m->ev;
	struct lrb_slot slot __uninitialized;
	struct lrb_event_link *l;
	unsigned int i;

	/*
	 * Writers are waited for with RCU grace periods: where RCU is not
	 * watching (idle, early entry) a site does not write.
	 */
	if (WARN_ON_ONCE(ev->nr_fields > LRB_MARK_FIELDS_MAX) ||
	    !rcu_is_watching())
		return;
	for (i = 0; i < ev->nr_fields; i++) {
		lens[i] = lrb_field_size(&ev->fields[i], vals[i]);
		len += lens[i];
	}
	rcu_read_lock_sched_notrace();
	list_for_each_entry_rcu(l, &ev->links, ev_node) {
		/* A process, user or CPU the channel does not target. */
		if (lrb_link_ignores(l))
			continue;
		if (lrb_reserve(l->chan, &slot, l->id, len))
			continue;
		for (i = 0, off = 0; i < ev->nr_fields; i++) {
			lrb_field_put(&slot, off, &ev->fields[i], vals[i],
				      lens[i]);
			off += lens[i];
		}
		lrb_commit(&slot);
	}
	rcu_read_unlock_sched_notrace();
}
EXPORT_SYMBOL_GPL(__lrb_mark);

static int lrb_marker_start(struct lrb_event_link *l)
{
	static_branch_inc(&container_of(l->ev, struct lrb_marker, ev)->key);
	return 0;
}

static void lrb_marker_stop(struct lrb_event_link *l)
{
	static_branch_dec(&container_of(l->ev, struct lrb_marker, ev)->key);
}

/* A marker without a string field writes records of one length. */
static long lrb_marker_fixed_len(const struct lrb_event_link *l)
{
	const struct lrb_event *ev = l->ev;
	unsigned int i;
	long len = 0;

	for (i = 0; i < ev->nr_fields; i++) {
		if (ev->fields[i].type == LRB_FIELD_STRING)
			return -1;
		len += lrb_field_size(&ev->fields[i], 0);
	}
	return len;
}

static void lrb_markers_add(struct lrb_marker *start, struct lrb_marker *end)
{
	struct lrb_marker *m;
	int ret;

	for (m = start; m < end; m++) {
		m->ev.start = lrb_marker_start;
		m->ev.stop = lrb_marker_stop;
		m->ev.fixed_len = lrb_marker_fixed_len;
		ret = lrb_event_register(&m->ev);
		if (ret) {
			m->ev.id = 0;
			pr_warn("lrb: marker %s not registered: %d\n",
				m->ev.name, ret);
		}
	}
}

#ifdef CONFIG_MODULES
static void lrb_markers_remove(struct lrb_marker *start,
			       struct lrb_marker *end)
{
	struct lrb_marker *m;

	for (m = start; m < end; m++)
		if (m->ev.id)
			lrb_event_unregister(&m->ev);
}

/* After jump_label's notifier (priority 1) has set up the module's keys. */
static int lrb_markers_coming(struct notifier_block *nb, unsigned long val,
			      void *data)
{
	struct module *mod = data;

	if (val == MODULE_STATE_COMING)
		lrb_markers_add(mod->lrb_markers,
				mod->lrb_markers + mod->num_lrb_markers);
	return NOTIFY_OK;
}

/* Before jump_label's notifier forgets the module's keys. */
static int lrb_markers_going(struct notifier_block *nb, unsigned long val,
			     void *data)
{
	struct module *mod = data;

	if (val == MODULE_STATE_GOING)
		lrb_markers_remove(mod->lrb_markers,
				   mod->lrb_markers + mod->num_lrb_markers);
	return NOTIFY_OK;
}

static struct notifier_block lrb_markers_coming_nb = {
	.notifier_call = lrb_markers_coming,
	.priority = 0,
};

static struct notifier_block lrb_markers_going_nb = {
	.notifier_call = lrb_markers_going,
	.priority = 2,
};
#endif

static __init int lrb_markers_init(void)
{
	lrb_markers_add(__start___lrb_markers, __stop___lrb_markers);
#ifdef CONFIG_MODULES
	register_module_notifier(&lrb_markers_coming_nb);
	register_module_notifier(&lrb_markers_going_nb);
#endif
	return 0;
}
core_initcall(lrb_markers_init);
