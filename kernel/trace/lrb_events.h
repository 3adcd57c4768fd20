/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRB event registry, as the tracefs interface and the event providers
 * use it (lrb_events.c).
 */
#ifndef _KERNEL_TRACE_LRB_EVENTS_H
#define _KERNEL_TRACE_LRB_EVENTS_H

#include <linux/list.h>
#include <linux/seq_buf.h>

struct lrb_channel;
struct lrb_event;
struct trace_event_call;
struct seq_buf;
struct seq_file;

/**
 * struct lrb_events_owner - a channel's side of the registry
 * @list: in the list of owners.
 * @globs: the selectors the channel enabled.
 * @links: the channel's links, one per selected event.
 * @chan: the buffers while the channel is enabled, else NULL.
 */
struct lrb_events_owner {
	struct list_head list;
	struct list_head globs;
	struct list_head links;
	struct lrb_channel *chan;
};

/**
 * struct lrb_event_link - an event selected by a channel
 * @ev: the event.
 * @chan: the channel's buffers while the link runs; what writers use.
 * @ev_node: in @ev's RCU list of running links.
 * @owner_node: in the owner's list of links.
 * @owner: the channel's owner.
 * @running: attached by @ev's start().
 * @new: made by the command in progress, undone if it fails.
 */
struct lrb_event_link {
	struct lrb_event *ev;
	struct lrb_channel *chan;
	struct list_head ev_node;
	struct list_head owner_node;
	struct lrb_events_owner *owner;
	bool running;
	bool new;
};

/* Flags of lrb_tsdl_integer(). */
#define LRB_TSDL_SIGNED		0x1	/* two's complement */
#define LRB_TSDL_HEX		0x2	/* shown in base 16 */
#define LRB_TSDL_TEXT		0x4	/* 8-bit elements shown as text */
#define LRB_TSDL_OPAQUE		0x8	/* bytes of a type CTF cannot tell */

#ifdef CONFIG_LRB_TRACE_EVENTS
/* The trace events of vmlinux (include/asm-generic/vmlinux.lds.h). */
extern struct trace_event_call *__start_ftrace_events[];
extern struct trace_event_call *__stop_ftrace_events[];
#endif

#ifdef CONFIG_LRB_MARKERS
int lrb_event_register(struct lrb_event *ev);
void lrb_event_unregister(struct lrb_event *ev);
void lrb_tsdl_integer(struct seq_buf *s, const char *name, unsigned int bits,
		      unsigned int align, unsigned int flags,
		      const char *suffix);
void lrb_tsdl_string(struct seq_buf *s, const char *name);
void lrb_tsdl_enum(struct seq_buf *s, const char *name, unsigned int bits,
		   unsigned int align, unsigned int flags, const char *mappings);
void lrb_events_owner_init(struct lrb_events_owner *o);
void lrb_events_owner_release(struct lrb_events_owner *o);
int lrb_events_command(struct lrb_events_owner *o, const char *cmd);
int lrb_events_start(struct lrb_events_owner *o, struct lrb_channel *chan);
void lrb_events_stop(struct lrb_events_owner *o);
void lrb_events_show(struct seq_file *m, struct lrb_events_owner *o);
void lrb_events_metadata(struct seq_file *m);
void lrb_events_print(struct seq_buf *s, unsigned int id, const void *data,
		      size_t len);
void lrb_print_int(struct seq_buf *s, const void *p, unsigned int size,
		   unsigned int flags);
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
static inline void lrb_events_show(struct seq_file *m,
				   struct lrb_events_owner *o) { }
static inline void lrb_events_metadata(struct seq_file *m) { }
static inline void lrb_events_print(struct seq_buf *s, unsigned int id,
				    const void *data, size_t len)
{
	seq_buf_printf(s, "event %u:", id);
}
#endif

#endif /* _KERNEL_TRACE_LRB_EVENTS_H */
