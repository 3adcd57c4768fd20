// SPDX-License-Identifier: GPL-2.0
/*
 * LRB event registry: the markers (built-in and in modules) and the
 * tracepoint probes LRB can record, their ids, their CTF descriptions, and
 * which tracefs channel records each one.
 *
 * An event is selected by at most one channel (its owner) at a time, by
 * name or glob; a glob also selects the events of modules loaded later.
 * A selected event runs (its chan pointer published, then its static key
 * enabled or its probe registered) while its owner is enabled. Writers
 * read chan under rcu_read_lock_sched(); lrb_events_stop() turns the
 * events off and waits for writers in flight before the owner flushes.
 *
 * Event ids are never reused: a module's events retire when it unloads,
 * and their descriptions stay in the metadata, so a trace holding their
 * records stays readable.
 */

#include <linux/glob.h>
#include <linux/idr.h>
#include <linux/lrb_marker.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "lrb_events.h"

#define LRB_EVENTS_GLOB_MAX	64

/* A glob an owner enabled, kept to select events registered later. */
struct lrb_events_glob {
	struct list_head list;
	char glob[LRB_EVENTS_GLOB_MAX];
};

/* A description kept after its module unloaded. */
struct lrb_events_retired {
	struct list_head list;
	struct lrb_event ev;
};

static DEFINE_MUTEX(lrb_events_mutex);
static LIST_HEAD(lrb_events);
static LIST_HEAD(lrb_events_retired);
static LIST_HEAD(lrb_events_owners);
static DEFINE_IDA(lrb_events_ida);

static bool lrb_event_running(struct lrb_event *ev)
{
	return rcu_access_pointer(ev->chan);
}

static int lrb_event_start(struct lrb_event *ev, struct lrb_channel *chan)
{
	int ret;

	rcu_assign_pointer(ev->chan, chan);
	ret = ev->start(ev);
	if (ret)
		RCU_INIT_POINTER(ev->chan, NULL);
	return ret;
}

/* The caller waits for writers with lrb_events_sync() before reuse. */
static void lrb_event_stop(struct lrb_event *ev)
{
	if (!lrb_event_running(ev))
		return;
	ev->stop(ev);
	RCU_INIT_POINTER(ev->chan, NULL);
}

static void lrb_events_sync(void)
{
	/* Markers run under rcu_read_lock_sched(), probes as tracepoints. */
	tracepoint_synchronize_unregister();
}

static bool lrb_events_glob_match(struct lrb_events_owner *o,
				  const char *name)
{
	struct lrb_events_glob *g;

	list_for_each_entry(g, &o->globs, list)
		if (glob_match(g->glob, name))
			return true;
	return false;
}

/* A new event: give it to the first owner whose globs match it. */
static void lrb_events_adopt(struct lrb_event *ev)
{
	struct lrb_events_owner *o;

	list_for_each_entry(o, &lrb_events_owners, list) {
		if (!lrb_events_glob_match(o, ev->name))
			continue;
		ev->owner = o;
		if (o->chan && lrb_event_start(ev, o->chan))
			pr_warn("lrb: cannot start event %s\n", ev->name);
		return;
	}
}

static void lrb_events_retired_free(struct lrb_events_retired *r)
{
	unsigned int i;

	for (i = 0; i < r->ev.nr_fields; i++)
		kfree(r->ev.fields[i].name);
	kfree(r->ev.fields);
	kfree(r->ev.name);
	kfree(r);
}

/*
 * The id of a retired event with the same name and fields as @ev, taken
 * back from the retired list; 0 if there is none. Reloading a module does
 * not use up ids, and the metadata keeps describing the old records.
 */
static int lrb_events_unretire(const struct lrb_event *ev)
{
	struct lrb_events_retired *r;
	unsigned int i;
	int id;

	list_for_each_entry(r, &lrb_events_retired, list) {
		if (strcmp(r->ev.name, ev->name) ||
		    r->ev.nr_fields != ev->nr_fields)
			continue;
		for (i = 0; i < ev->nr_fields; i++)
			if (strcmp(r->ev.fields[i].name, ev->fields[i].name) ||
			    r->ev.fields[i].type != ev->fields[i].type ||
			    r->ev.fields[i].count != ev->fields[i].count)
				break;
		if (i < ev->nr_fields)
			continue;
		id = r->ev.id;
		list_del(&r->list);
		lrb_events_retired_free(r);
		return id;
	}
	return 0;
}

/**
 * lrb_event_register() - add an event to the registry
 * @ev: the event, with name, fields, start and stop set.
 *
 * Return: 0 with an id assigned; -EEXIST for a name already registered;
 * -ENOSPC when no id is left.
 */
int lrb_event_register(struct lrb_event *ev)
{
	struct lrb_event *e;
	int id;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(e, &lrb_events, list) {
		if (!strcmp(e->name, ev->name)) {
			mutex_unlock(&lrb_events_mutex);
			return -EEXIST;
		}
	}
	/* A module loaded again: its events get their ids back. */
	id = lrb_events_unretire(ev);
	/* Id 0 is the annotation of the tracefs interface. */
	if (!id)
		id = ida_alloc_range(&lrb_events_ida, 1, LRB_EVENT_ID_MAX,
				     GFP_KERNEL);
	if (id < 0) {
		mutex_unlock(&lrb_events_mutex);
		return id;
	}
	ev->id = id;
	ev->owner = NULL;
	RCU_INIT_POINTER(ev->chan, NULL);
	list_add_tail(&ev->list, &lrb_events);
	lrb_events_adopt(ev);
	mutex_unlock(&lrb_events_mutex);
	return 0;
}

/* Keep a copy of @ev's description for the metadata. */
static void lrb_events_retire(struct lrb_event *ev)
{
	struct lrb_events_retired *r;
	struct lrb_field *f;
	unsigned int i;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	/* One more entry than needed: kcalloc(0) would be ZERO_SIZE_PTR. */
	f = kcalloc(ev->nr_fields + 1, sizeof(*f), GFP_KERNEL);
	if (!r || !f)
		goto fail;
	r->ev.name = kstrdup(ev->name, GFP_KERNEL);
	if (!r->ev.name)
		goto fail;
	for (i = 0; i < ev->nr_fields; i++) {
		f[i] = ev->fields[i];
		f[i].name = kstrdup(ev->fields[i].name, GFP_KERNEL);
		if (!f[i].name)
			goto fail;
	}
	r->ev.fields = f;
	r->ev.nr_fields = ev->nr_fields;
	r->ev.id = ev->id;
	list_add_tail(&r->list, &lrb_events_retired);
	return;
fail:
	/* The id stays allocated: a stale record never gets a new name. */
	pr_warn("lrb: no memory to keep the description of %s\n", ev->name);
	if (f)
		for (i = 0; i < ev->nr_fields; i++)
			kfree(f[i].name);
	kfree(f);
	if (r)
		kfree(r->ev.name);
	kfree(r);
}

/**
 * lrb_event_unregister() - remove an event from the registry
 * @ev: a registered event.
 *
 * Stops it, waits for writers in flight, and keeps its description in the
 * metadata.
 */
void lrb_event_unregister(struct lrb_event *ev)
{
	mutex_lock(&lrb_events_mutex);
	lrb_event_stop(ev);
	list_del(&ev->list);
	lrb_events_sync();
	lrb_events_retire(ev);
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_owner_init() - set up a channel as an owner of events
 * @o: the owner, embedded in the channel.
 */
void lrb_events_owner_init(struct lrb_events_owner *o)
{
	INIT_LIST_HEAD(&o->globs);
	o->chan = NULL;
	mutex_lock(&lrb_events_mutex);
	list_add_tail(&o->list, &lrb_events_owners);
	mutex_unlock(&lrb_events_mutex);
}

static bool lrb_events_is_glob(const char *s)
{
	return strpbrk(s, "*?[");
}

/* Select events matching @glob for @o; returns how many, or -EBUSY. */
static int lrb_events_enable(struct lrb_events_owner *o, const char *glob)
{
	struct lrb_events_glob *g;
	struct lrb_event *ev;
	int n = 0, busy = 0, ret;

	list_for_each_entry(ev, &lrb_events, list) {
		if (!glob_match(glob, ev->name))
			continue;
		if (ev->owner && ev->owner != o) {
			busy++;
			continue;
		}
		n++;
		if (ev->owner == o)
			continue;
		ev->owner = o;
		if (o->chan) {
			ret = lrb_event_start(ev, o->chan);
			if (ret) {
				ev->owner = NULL;
				return ret;
			}
		}
	}
	if (!n && busy)
		return -EBUSY;
	if (!n && !lrb_events_is_glob(glob))
		return -ENOENT;
	list_for_each_entry(g, &o->globs, list)
		if (!strcmp(g->glob, glob))
			return n;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	strscpy(g->glob, glob, sizeof(g->glob));
	list_add_tail(&g->list, &o->globs);
	return n;
}

/* Deselect @o's events matching @glob and forget the glob. */
static int lrb_events_disable(struct lrb_events_owner *o, const char *glob)
{
	struct lrb_events_glob *g, *tmp;
	struct lrb_event *ev;
	int n = 0;

	list_for_each_entry_safe(g, tmp, &o->globs, list) {
		if (glob_match(glob, g->glob)) {
			list_del(&g->list);
			kfree(g);
			n++;
		}
	}
	list_for_each_entry(ev, &lrb_events, list) {
		if (ev->owner != o || !glob_match(glob, ev->name))
			continue;
		lrb_event_stop(ev);
		ev->owner = NULL;
		n++;
	}
	if (n)
		lrb_events_sync();
	return n ? 0 : -ENOENT;
}

/**
 * lrb_events_command() - run an "enable GLOB" or "disable GLOB" command
 * @o: the channel's owner.
 * @cmd: the command, NUL-terminated, without surrounding space.
 *
 * Return: 0; -EINVAL for a malformed command; -ENOENT when a plain name
 * (not a glob) matches no event, or nothing to disable matches; -EBUSY
 * when every match is recorded by another channel.
 */
int lrb_events_command(struct lrb_events_owner *o, const char *cmd)
{
	const char *arg = strchr(cmd, ' ');
	int ret;

	if (!arg || !*skip_spaces(arg) || strlen(skip_spaces(arg)) >= LRB_EVENTS_GLOB_MAX)
		return -EINVAL;
	mutex_lock(&lrb_events_mutex);
	if (!strncmp(cmd, "enable ", 7))
		ret = lrb_events_enable(o, skip_spaces(arg));
	else if (!strncmp(cmd, "disable ", 8))
		ret = lrb_events_disable(o, skip_spaces(arg));
	else
		ret = -EINVAL;
	mutex_unlock(&lrb_events_mutex);
	/* The enable and disable helpers return a count on success. */
	return min(ret, 0);
}

/**
 * lrb_events_start() - start the events of an owner, writing to @chan
 * @o: the owner.
 * @chan: the channel's buffers.
 */
void lrb_events_start(struct lrb_events_owner *o, struct lrb_channel *chan)
{
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	o->chan = chan;
	list_for_each_entry(ev, &lrb_events, list)
		if (ev->owner == o && lrb_event_start(ev, chan))
			pr_warn("lrb: cannot start event %s\n", ev->name);
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_stop() - stop the events of an owner
 * @o: the owner.
 *
 * Returns once no writer of these events is in flight.
 */
void lrb_events_stop(struct lrb_events_owner *o)
{
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	o->chan = NULL;
	list_for_each_entry(ev, &lrb_events, list)
		if (ev->owner == o)
			lrb_event_stop(ev);
	lrb_events_sync();
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_owner_release() - drop every event and glob of an owner
 * @o: the owner, stopped.
 */
void lrb_events_owner_release(struct lrb_events_owner *o)
{
	struct lrb_events_glob *g, *tmp;
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		if (ev->owner == o)
			ev->owner = NULL;
	list_for_each_entry_safe(g, tmp, &o->globs, list) {
		list_del(&g->list);
		kfree(g);
	}
	list_del(&o->list);
	mutex_unlock(&lrb_events_mutex);
}

/**
 * lrb_events_show() - list the events for a channel's "events" file
 * @m: the file.
 * @o: the channel's owner.
 *
 * One line per event: name, id, and "enabled" if the channel selected it,
 * "busy" if another channel did, "-" otherwise; then the channel's globs.
 */
void lrb_events_show(struct seq_file *m, struct lrb_events_owner *o)
{
	struct lrb_events_glob *g;
	struct lrb_event *ev;

	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		seq_printf(m, "%-32s %5u %s\n", ev->name, ev->id,
			   ev->owner == o ? "enabled" : ev->owner ? "busy" : "-");
	list_for_each_entry(g, &o->globs, list)
		seq_printf(m, "# enable %s\n", g->glob);
	mutex_unlock(&lrb_events_mutex);
}

static const char * const lrb_field_ctf[] = {
	[LRB_FIELD_U8] = "uint8_t",
	[LRB_FIELD_U16] = "uint16_t",
	[LRB_FIELD_U32] = "uint32_t",
	[LRB_FIELD_U64] = "uint64_t",
	[LRB_FIELD_S8] = "int8_t",
	[LRB_FIELD_S16] = "int16_t",
	[LRB_FIELD_S32] = "int32_t",
	[LRB_FIELD_S64] = "int64_t",
	[LRB_FIELD_STRING] = "string",
	[LRB_FIELD_CHARS] = "char_t",
};

static void lrb_event_tsdl(struct seq_file *m, const struct lrb_event *ev)
{
	const struct lrb_field *f;
	unsigned int i;

	seq_printf(m, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = 0;\n",
		   ev->name, ev->id);
	seq_puts(m, "\tfields := struct {\n");
	for (i = 0; i < ev->nr_fields; i++) {
		f = &ev->fields[i];
		if (f->type >= ARRAY_SIZE(lrb_field_ctf))
			continue;
		seq_printf(m, "\t\t%s %s", lrb_field_ctf[f->type], f->name);
		if (f->type == LRB_FIELD_CHARS ||
		    (f->type != LRB_FIELD_STRING && f->count > 1))
			seq_printf(m, "[%u]", f->count);
		seq_puts(m, ";\n");
	}
	seq_puts(m, "\t};\n};\n\n");
}

/**
 * lrb_events_metadata() - print the CTF description of every event
 * @m: the metadata file.
 *
 * Registered and retired events, after the type aliases of the metadata
 * header (uint8_t ... int64_t).
 */
void lrb_events_metadata(struct seq_file *m)
{
	struct lrb_events_retired *r;
	struct lrb_event *ev;

	seq_puts(m, "typealias integer { size = 8; align = 8; signed = false; encoding = UTF8; } := char_t;\n\n");
	mutex_lock(&lrb_events_mutex);
	list_for_each_entry(ev, &lrb_events, list)
		lrb_event_tsdl(m, ev);
	list_for_each_entry(r, &lrb_events_retired, list)
		lrb_event_tsdl(m, &r->ev);
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
 * __lrb_mark() - write the record of an enabled marker site
 * @m: the site.
 * @vals: one value per field, as LRB_MARK() converted them.
 *
 * Called by LRB_MARK() only; any context, NMI included.
 */
void __lrb_mark(struct lrb_marker *m, const u64 *vals)
{
	size_t lens[LRB_MARK_FIELDS_MAX], len = 0, off = 0;
	const struct lrb_event *ev = &m->ev;
	struct lrb_channel *chan;
	struct lrb_slot slot;
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
	chan = rcu_dereference_sched(m->ev.chan);
	if (!chan)
		goto out;
	if (lrb_reserve(chan, &slot, ev->id, len))
		goto out;
	for (i = 0; i < ev->nr_fields; i++) {
		lrb_field_put(&slot, off, &ev->fields[i], vals[i], lens[i]);
		off += lens[i];
	}
	lrb_commit(&slot);
out:
	rcu_read_unlock_sched_notrace();
}
EXPORT_SYMBOL_GPL(__lrb_mark);

static int lrb_marker_start(struct lrb_event *ev)
{
	static_branch_enable(&container_of(ev, struct lrb_marker, ev)->key);
	return 0;
}

static void lrb_marker_stop(struct lrb_event *ev)
{
	static_branch_disable(&container_of(ev, struct lrb_marker, ev)->key);
}

static void lrb_markers_add(struct lrb_marker *start, struct lrb_marker *end)
{
	struct lrb_marker *m;
	int ret;

	for (m = start; m < end; m++) {
		m->ev.start = lrb_marker_start;
		m->ev.stop = lrb_marker_stop;
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
