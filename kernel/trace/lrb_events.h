/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LRB event registry, as the tracefs interface uses it (lrb_events.c).
 */
#ifndef _KERNEL_TRACE_LRB_EVENTS_H
#define _KERNEL_TRACE_LRB_EVENTS_H

#include <linux/list.h>

struct lrb_channel;
struct lrb_event;
struct seq_file;

/**
 * struct lrb_events_owner - a channel's side of the registry
 * @list: in the list of owners.
 * @globs: the names and globs the channel enabled.
 * @chan: the buffers while the channel is enabled, else NULL.
 */
struct lrb_events_owner {
	struct list_head list;
	struct list_head globs;
	struct lrb_channel *chan;
};

#ifdef CONFIG_LRB_MARKERS
int lrb_event_register(struct lrb_event *ev);
void lrb_event_unregister(struct lrb_event *ev);
void lrb_events_owner_init(struct lrb_events_owner *o);
void lrb_events_owner_release(struct lrb_events_owner *o);
int lrb_events_command(struct lrb_events_owner *o, const char *cmd);
void lrb_events_start(struct lrb_events_owner *o, struct lrb_channel *chan);
void lrb_events_stop(struct lrb_events_owner *o);
void lrb_events_show(struct seq_file *m, struct lrb_events_owner *o);
void lrb_events_metadata(struct seq_file *m);
#else
static inline void lrb_events_owner_init(struct lrb_events_owner *o) { }
static inline void lrb_events_owner_release(struct lrb_events_owner *o) { }
static inline int lrb_events_command(struct lrb_events_owner *o,
				     const char *cmd)
{
	return -EOPNOTSUPP;
}

static inline void lrb_events_start(struct lrb_events_owner *o,
				    struct lrb_channel *chan) { }
static inline void lrb_events_stop(struct lrb_events_owner *o) { }
static inline void lrb_events_show(struct seq_file *m,
				   struct lrb_events_owner *o) { }
static inline void lrb_events_metadata(struct seq_file *m) { }
#endif

#endif /* _KERNEL_TRACE_LRB_EVENTS_H */
