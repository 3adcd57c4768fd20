/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRB events: struct lrb_event is what the LRB event registry
 * (kernel/trace/lrb_events.c) knows of an event it can record, a marker
 * or a trace event.
 *
 * LRB markers: named, typed instrumentation sites that record into an LRB
 * channel, each guarded by its own static key.
 *
 *	LRB_MARK(my_event, u32, pid, task_pid_nr(p), u64, delta, now - then,
 *		 string, comm, p->comm);
 *
 * A site takes up to six fields, each a (type, name, value) triple; the
 * types are u8, u16, u32, u64, s8, s16, s32, s64 and string (a
 * NUL-terminated text, NULL recorded as "(null)"). The fields are packed in
 * that order into the record, and the same layout is described in the CTF
 * metadata of every channel, so readers decode them exactly.
 *
 * Disabled, a site is the NOP of a static branch (CONFIG_JUMP_LABEL): no
 * load, no call; its arguments are not evaluated. With
 * CONFIG_LRB_MARKERS=n a site compiles to nothing.
 *
 * Sites in modules are registered when the module loads and retired when
 * it unloads; their descriptions stay in the metadata so a trace that
 * holds their events remains readable.
 *
 * Sites are enabled per channel through tracefs (lrb/NAME/events); while
 * the channel is enabled the site writes to it from any context, NMI
 * included, like lrb_reserve().
 */
#ifndef _LINUX_LRB_MARKER_H
#define _LINUX_LRB_MARKER_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/lrb.h>
#include <linux/types.h>

/**
 * enum lrb_field_type - type of a field of a marker
 * @LRB_FIELD_U8: unsigned 8-bit integer.
 * @LRB_FIELD_U16: unsigned 16-bit integer.
 * @LRB_FIELD_U32: unsigned 32-bit integer.
 * @LRB_FIELD_U64: unsigned 64-bit integer.
 * @LRB_FIELD_S8: signed 8-bit integer.
 * @LRB_FIELD_S16: signed 16-bit integer.
 * @LRB_FIELD_S32: signed 32-bit integer.
 * @LRB_FIELD_S64: signed 64-bit integer.
 * @LRB_FIELD_STRING: NUL-terminated text.
 */
enum lrb_field_type {
	LRB_FIELD_U8,
	LRB_FIELD_U16,
	LRB_FIELD_U32,
	LRB_FIELD_U64,
	LRB_FIELD_S8,
	LRB_FIELD_S16,
	LRB_FIELD_S32,
	LRB_FIELD_S64,
	LRB_FIELD_STRING,
};

/**
 * struct lrb_field - one field of a marker
 * @name: CTF field name.
 * @type: &enum lrb_field_type.
 * @count: for an integer type, an array of @count elements if above 1.
 */
struct lrb_field {
	const char *name;
	unsigned short type;
	unsigned short count;
};

struct lrb_event_link;
struct seq_buf;

/**
 * enum lrb_layout - how a channel's metadata names and describes events
 * @LRB_LAYOUT_FTRACE: as ftrace does: SYSTEM:EVENT, ftrace's field names.
 * @LRB_LAYOUT_LTTNG: as lttng-modules 2.13 does, for the tools that read
 *	LTTng kernel traces (Trace Compass, the LTTng analyses).
 */
enum lrb_layout {
	LRB_LAYOUT_FTRACE,
	LRB_LAYOUT_LTTNG,
};

/**
 * struct lrb_event - an event LRB can record: a marker or a trace event
 * @name: event name, unique: the marker's name, or SYSTEM:EVENT.
 * @lttng_name: its name in &LRB_LAYOUT_LTTNG, unique too; NULL for @name.
 * @fields: a marker's payload layout, in record order.
 * @nr_fields: entries of @fields.
 * @id: its id in the registry; 0 until registered.
 * @start: attach a link, that is start writing into one more channel
 *	(marker: its static key; trace event: a tracepoint probe); may sleep.
 * @stop: detach a link.
 * @fixed_len: the payload length of every record of the event in the
 *	link's channel, before start(); -1, or NULL, if they vary. The
 *	channel then leaves the length out of each record (2 bytes).
 * @len_at: for an event without @fixed_len, where the payload of every
 *	record in the link's channel holds its length, as
 *	lrb_set_record_len_at() takes it, and its base in *@base; -1, or
 *	NULL, if it does not. The channel leaves the length out then too.
 * @describe: write the CTF declarations of the payload fields; NULL for
 *	a marker, which is described from @fields.
 * @describe_lttng: write them in &LRB_LAYOUT_LTTNG, from the description
 *	@describe made; NULL where it is the same.
 * @print: write the payload's fields as " name=value" for a crash dump
 *	(lrb_events_print()), reading nothing beyond @len bytes and taking
 *	no lock; NULL for a marker, which is printed from @fields.
 * @common: a trace event: in a channel that records ftrace's common
 *	fields, its records begin with them, which lrb_events_print()
 *	prints before @print prints the rest.
 * @filter_new: compile @expr, a filter of ftrace's language, into a filter
 *	of the event's records in a channel of layout @layout that counts
 *	the records it refuses in @filtered; an ERR_PTR() if it cannot,
 *	with the parser's message in *@err if it has one (kfree() it).
 *	NULL for an event whose records cannot be filtered (a marker).
 * @filter_free: free a filter @filter_new made.
 * @by_name: selected only by its own name, not by a glob, its system or
 *	"all": the function tracer's events, which hook every function.
 */
struct lrb_event {
	const char *name;
	const char *lttng_name;
	const struct lrb_field *fields;
	unsigned int nr_fields;
	unsigned int id;
	int (*start)(struct lrb_event_link *link);
	void (*stop)(struct lrb_event_link *link);
	long (*fixed_len)(const struct lrb_event_link *link);
	int (*len_at)(const struct lrb_event_link *link, int *base);
	int (*describe)(struct lrb_event *ev, struct seq_buf *s);
	int (*describe_lttng)(struct lrb_event *ev, struct seq_buf *s);
	void (*print)(struct lrb_event *ev, struct seq_buf *s,
		      const void *data, size_t len);
	bool common;
	void *(*filter_new)(struct lrb_event *ev, char *expr,
			    enum lrb_layout layout,
			    struct lrb_counter __percpu *filtered, char **err);
	void (*filter_free)(void *filter);
	bool by_name;
	/* private: the CTF declarations, made at registration */
	char *tsdl;
	/* and in the LTTng layout, if not the same */
	char *lttng_tsdl;
	/* the running links, an RCU list the writers walk */
	struct list_head links;
	/* in the registry: changed with the _rcu calls, under its mutex */
	struct list_head list;
};

#ifdef CONFIG_LRB_MARKERS

#include <linux/jump_label.h>
#include <linux/rcupdate.h>

/**
 * struct lrb_marker - a marker site, placed in section __lrb_markers
 * @ev: the event it records.
 * @key: on while a channel records the event.
 */
struct lrb_marker {
	struct lrb_event ev;
	struct static_key_false key;
} __aligned(8);

#define LRB_MARK_FIELDS_MAX	6

/*
 * The fields of a site as two lists, selected by the number of arguments:
 * descriptions, and values each converted to u64 (strings as pointers).
 */
#define __LRB_LIST(kind, ...) \
	CONCATENATE(__LRB_##kind, COUNT_ARGS(__VA_ARGS__))(__VA_ARGS__)

#define __LRB_DESC(t, n)	{ .name = #n, .type = __LRB_FT_##t, .count = 1 }
/* Expands to nothing: the parts of the triples a list does not use. */
#define __LRB_NONE(...)
#define __LRB_DESC0()		{ }
#define __LRB_DESC3(t1, n1, v1)	{ __LRB_DESC(t1, n1) __LRB_NONE(v1) }
#define __LRB_DESC6(t1, n1, v1, t2, n2, v2) \
	{ __LRB_DESC(t1, n1), __LRB_DESC(t2, n2) __LRB_NONE(v1, v2) }
#define __LRB_DESC9(t1, n1, v1, t2, n2, v2, t3, n3, v3) \
	{ __LRB_DESC(t1, n1), __LRB_DESC(t2, n2), __LRB_DESC(t3, n3) \
	  __LRB_NONE(v1, v2, v3) }
#define __LRB_DESC12(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4) \
	{ __LRB_DESC(t1, n1), __LRB_DESC(t2, n2), __LRB_DESC(t3, n3), \
	  __LRB_DESC(t4, n4) __LRB_NONE(v1, v2, v3, v4) }
#define __LRB_DESC15(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4, \
		     t5, n5, v5) \
	{ __LRB_DESC(t1, n1), __LRB_DESC(t2, n2), __LRB_DESC(t3, n3), \
	  __LRB_DESC(t4, n4), __LRB_DESC(t5, n5) __LRB_NONE(v1, v2, v3, v4, v5) }
#define __LRB_DESC18(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4, \
		     t5, n5, v5, t6, n6, v6) \
	{ __LRB_DESC(t1, n1), __LRB_DESC(t2, n2), __LRB_DESC(t3, n3), \
	  __LRB_DESC(t4, n4), __LRB_DESC(t5, n5), __LRB_DESC(t6, n6) \
	  __LRB_NONE(v1, v2, v3, v4, v5, v6) }

#define __LRB_VAL0()		{ }
#define __LRB_VAL3(t1, n1, v1)	{ __LRB_VAL_##t1(v1) __LRB_NONE(n1) }
#define __LRB_VAL6(t1, n1, v1, t2, n2, v2) \
	{ __LRB_VAL_##t1(v1), __LRB_VAL_##t2(v2) __LRB_NONE(n1, n2) }
#define __LRB_VAL9(t1, n1, v1, t2, n2, v2, t3, n3, v3) \
	{ __LRB_VAL_##t1(v1), __LRB_VAL_##t2(v2), __LRB_VAL_##t3(v3) \
	  __LRB_NONE(n1, n2, n3) }
#define __LRB_VAL12(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4) \
	{ __LRB_VAL_##t1(v1), __LRB_VAL_##t2(v2), __LRB_VAL_##t3(v3), \
	  __LRB_VAL_##t4(v4) __LRB_NONE(n1, n2, n3, n4) }
#define __LRB_VAL15(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4, \
		    t5, n5, v5) \
	{ __LRB_VAL_##t1(v1), __LRB_VAL_##t2(v2), __LRB_VAL_##t3(v3), \
	  __LRB_VAL_##t4(v4), __LRB_VAL_##t5(v5) __LRB_NONE(n1, n2, n3, n4, n5) }
#define __LRB_VAL18(t1, n1, v1, t2, n2, v2, t3, n3, v3, t4, n4, v4, \
		    t5, n5, v5, t6, n6, v6) \
	{ __LRB_VAL_##t1(v1), __LRB_VAL_##t2(v2), __LRB_VAL_##t3(v3), \
	  __LRB_VAL_##t4(v4), __LRB_VAL_##t5(v5), __LRB_VAL_##t6(v6) \
	  __LRB_NONE(n1, n2, n3, n4, n5, n6) }

#define __LRB_FT_u8	LRB_FIELD_U8
#define __LRB_FT_u16	LRB_FIELD_U16
#define __LRB_FT_u32	LRB_FIELD_U32
#define __LRB_FT_u64	LRB_FIELD_U64
#define __LRB_FT_s8	LRB_FIELD_S8
#define __LRB_FT_s16	LRB_FIELD_S16
#define __LRB_FT_s32	LRB_FIELD_S32
#define __LRB_FT_s64	LRB_FIELD_S64
#define __LRB_FT_string	LRB_FIELD_STRING

#define __LRB_VAL_u8(v)		((u64)(u8)(v))
#define __LRB_VAL_u16(v)	((u64)(u16)(v))
#define __LRB_VAL_u32(v)	((u64)(u32)(v))
#define __LRB_VAL_u64(v)	((u64)(v))
#define __LRB_VAL_s8(v)		((u64)(s8)(v))
#define __LRB_VAL_s16(v)	((u64)(s16)(v))
#define __LRB_VAL_s32(v)	((u64)(s32)(v))
#define __LRB_VAL_s64(v)	((u64)(s64)(v))
#define __LRB_VAL_string(v)	((u64)(unsigned long)__lrb_string(v))

static inline const char *__lrb_string(const char *s)
{
	return s ? s : "(null)";
}

void __lrb_mark(struct lrb_marker *m, const u64 *vals);

/* The sites of vmlinux (include/asm-generic/vmlinux.lds.h). */
extern struct lrb_marker __start___lrb_markers[];
extern struct lrb_marker __stop___lrb_markers[];

/**
 * LRB_MARK() - a marker site
 * @_name: event name, unique in the kernel (a C identifier).
 * @...: up to six (type, name, value) field triples; see the top of this
 *	file.
 *
 * Each value is evaluated once, and only when the site is enabled; the
 * record is then written by __lrb_mark() into each channel that selected
 * the event, on this CPU, from any context. Records that do not fit are
 * counted as lost by the channel, like any other.
 */
#define LRB_MARK(_name, ...)						\
do {									\
	static const struct lrb_field __lrb_fields_##_name[] =		\
		__LRB_LIST(DESC, ##__VA_ARGS__);			\
	/* __aligned: no bigger alignment from the compiler, a clean array */ \
	static struct lrb_marker __lrb_marker_##_name			\
	__used __aligned(8) __section("__lrb_markers") = {		\
		.ev.name = #_name,					\
		.ev.fields = __lrb_fields_##_name,			\
		.ev.nr_fields = ARRAY_SIZE(__lrb_fields_##_name),	\
		.key = STATIC_KEY_FALSE_INIT,				\
	};								\
	if (static_branch_unlikely(&__lrb_marker_##_name.key)) {	\
		const u64 __lrb_vals[] = __LRB_LIST(VAL, ##__VA_ARGS__); \
									\
		__lrb_mark(&__lrb_marker_##_name, __lrb_vals);		\
	}								\
} while (0)

#else /* !CONFIG_LRB_MARKERS */

#define LRB_MARK(...) do { } while (0)

#endif /* CONFIG_LRB_MARKERS */

#endif /* _LINUX_LRB_MARKER_H */
