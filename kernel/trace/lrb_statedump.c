// SPDX-License-Identifier: GPL-2.0
/*
 * LRB statedump: when a channel that selected them starts, records of the
 * threads alive at that moment, as lttng-modules writes them at the start
 * of a session (lttng_statedump_start, one lttng_statedump_process_state
 * per thread, lttng_statedump_end), so that the tools that read LTTng
 * kernel traces know the processes that do not fork or exec during the
 * trace, their names and their process ids.
 *
 * The walk takes one thread at a time, by thread id, each under its own
 * RCU read-side section and with a cond_resched() between them: no lock
 * is held across it that the rest of the system waits for, and a thread
 * that starts or ends meanwhile is recorded or not, as with
 * lttng-modules. Its records go to the starting channel only; those that
 * do not fit are counted as lost like any others.
 *
 * lttng_statedump_interrupt, between the threads and the end, lists the
 * handlers of each interrupt, one descriptor at a time, under its lock.
 * lttng_statedump_block_device, after them, names each disk and
 * partition by its device number, one disk at a time.
 */

#include <linux/blkdev.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdesc.h>
#include <linux/irqnr.h>
#include <linux/kernel.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_buf.h>
#include <linux/unaligned.h>

#include "trace.h"
#include "lrb_events.h"

/* lttng-modules' values of the process_state fields (lttng-statedump-impl.c) */
enum lrb_statedump_type {
	LRB_SD_USER_THREAD = 0,
	LRB_SD_KERNEL_THREAD = 1,
};

enum lrb_statedump_status {
	LRB_SD_UNNAMED = 0,
	LRB_SD_WAIT_CPU = 2,
	LRB_SD_ZOMBIE = 4,
	LRB_SD_WAIT = 5,
	LRB_SD_DEAD = 7,
};

#define LRB_SD_MODE_UNKNOWN	5
#define LRB_SD_SUBMODE_NONE	0

/* The record of lttng_statedump_process_state, fields as lttng-modules'. */
struct lrb_statedump_process {
	s32 tid;
	s32 pid;
	s32 ppid;
	char name[TASK_COMM_LEN];
	s32 type;
	s32 mode;
	s32 submode;
	s32 status;
	u32 cpu;
};

/*
 * The record of lttng_statedump_interrupt: u32 irq, the strings name (the
 * IRQ chip's) and action (the handler's, as /proc/interrupts and
 * irq_handler_entry name it), then s32 tid (its thread, if threaded).
 * Names longer than this are cut.
 */
#define LRB_SD_IRQ_NAME_MAX	64

/*
 * The record of lttng_statedump_block_device: u32 dev (dev_t, as the
 * block events have it), then the string diskname, as /proc/partitions
 * names the disk or partition.
 */

/* Written by lrb_statedump() only: nothing to attach. */
static int lrb_statedump_start(struct lrb_event_link *l)
{
	return 0;
}

static void lrb_statedump_stop(struct lrb_event_link *l)
{
}

static int lrb_statedump_process_describe(struct lrb_event *ev,
					  struct seq_buf *s)
{
	static const char * const ints[] = { "type", "mode", "submode",
					     "status" };
	char comm[8];
	unsigned int i;

	snprintf(comm, sizeof(comm), "[%d]", TASK_COMM_LEN);
	lrb_tsdl_integer(s, "tid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "pid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "ppid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "name", 8, LRB_TSDL_TEXT, comm);
	for (i = 0; i < ARRAY_SIZE(ints); i++)
		lrb_tsdl_integer(s, ints[i], 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "cpu", 32, 0, "");
	return 0;
}

static void lrb_statedump_process_print(struct lrb_event *ev,
					struct seq_buf *s, const void *data,
					size_t len)
{
	const struct lrb_statedump_process *p = data;

	if (len < sizeof(*p))
		return;
	seq_buf_printf(s, " tid=%d pid=%d ppid=%d name=%.*s status=%d",
		       p->tid, p->pid, p->ppid, (int)strnlen(p->name,
		       sizeof(p->name)), p->name, p->status);
}

static int lrb_statedump_irq_describe(struct lrb_event *ev,
				      struct seq_buf *s)
{
	lrb_tsdl_integer(s, "irq", 32, 0, "");
	lrb_tsdl_string(s, "name");
	lrb_tsdl_string(s, "action");
	lrb_tsdl_integer(s, "tid", 32, LRB_TSDL_SIGNED, "");
	return 0;
}

static void lrb_statedump_irq_print(struct lrb_event *ev, struct seq_buf *s,
				    const void *data, size_t len)
{
	const char *name = data + sizeof(u32), *end = data + len, *action;
	size_t n;

	if (len < sizeof(u32) + 2 + sizeof(s32))
		return;
	n = strnlen(name, end - name);
	action = name + n + 1;
	if (action >= end)
		return;
	seq_buf_printf(s, " irq=%u name=%.*s action=%.*s",
		       get_unaligned((const u32 *)data), (int)n, name,
		       (int)strnlen(action, end - action), action);
}

static int lrb_statedump_bdev_describe(struct lrb_event *ev,
				       struct seq_buf *s)
{
	lrb_tsdl_integer(s, "dev", 32, 0, "");
	lrb_tsdl_string(s, "diskname");
	return 0;
}

static void lrb_statedump_bdev_print(struct lrb_event *ev, struct seq_buf *s,
				     const void *data, size_t len)
{
	const char *name = data + sizeof(u32);

	if (len < sizeof(u32) + 1)
		return;
	seq_buf_printf(s, " dev=%u diskname=%.*s",
		       get_unaligned((const u32 *)data),
		       (int)strnlen(name, len - sizeof(u32)), name);
}

/* start and end have no fields: described and printed as markers are. */
static struct lrb_event lrb_statedump_start_ev = {
	.name = "lttng_statedump_start",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
};

static struct lrb_event lrb_statedump_process_ev = {
	.name = "lttng_statedump_process_state",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
	.describe = lrb_statedump_process_describe,
	.print = lrb_statedump_process_print,
};

static struct lrb_event lrb_statedump_irq_ev = {
	.name = "lttng_statedump_interrupt",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
	.describe = lrb_statedump_irq_describe,
	.print = lrb_statedump_irq_print,
};

static struct lrb_event lrb_statedump_bdev_ev = {
	.name = "lttng_statedump_block_device",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
	.describe = lrb_statedump_bdev_describe,
	.print = lrb_statedump_bdev_print,
};

static struct lrb_event lrb_statedump_end_ev = {
	.name = "lttng_statedump_end",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
};

static struct lrb_event * const lrb_statedump_events[] = {
	&lrb_statedump_start_ev,
	&lrb_statedump_process_ev,
	&lrb_statedump_irq_ev,
	&lrb_statedump_bdev_ev,
	&lrb_statedump_end_ev,
};

/* A record without fields of the event of @l, if any, in its channel. */
static void lrb_statedump_mark(struct lrb_event_link *l)
{
	struct lrb_slot slot __uninitialized;

	if (!l)
		return;
	if (lrb_reserve(l->chan, &slot, l->id, 0))
		return;
	lrb_commit(&slot);
}

static s32 lrb_statedump_status(struct task_struct *t)
{
	unsigned int state = READ_ONCE(t->__state);

	if (t->exit_state == EXIT_ZOMBIE)
		return LRB_SD_ZOMBIE;
	if (t->exit_state == EXIT_DEAD)
		return LRB_SD_DEAD;
	if (state == TASK_RUNNING)
		return LRB_SD_WAIT_CPU;
	if (state & (TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE))
		return LRB_SD_WAIT;
	return LRB_SD_UNNAMED;
}

/* The process_state record of @t; under rcu_read_lock(). */
static void lrb_statedump_task(struct lrb_event_link *l, struct task_struct *t)
{
	struct lrb_statedump_process *p;
	struct lrb_slot slot __uninitialized;

	if (lrb_reserve(l->chan, &slot, l->id, sizeof(*p)))
		return;
	p = slot.data;
	p->tid = t->pid;
	p->pid = t->tgid;
	p->ppid = task_tgid_nr(rcu_dereference(t->real_parent));
	/* As ftrace's events copy it: a racing rename may tear it. */
	memcpy(p->name, t->comm, sizeof(p->name));
	p->name[sizeof(p->name) - 1] = '\0';
	p->type = t->flags & PF_KTHREAD ? LRB_SD_KERNEL_THREAD :
		  LRB_SD_USER_THREAD;
	p->mode = LRB_SD_MODE_UNKNOWN;
	p->submode = LRB_SD_SUBMODE_NONE;
	p->status = lrb_statedump_status(t);
	p->cpu = task_cpu(t);
	lrb_commit(&slot);
}

/* Every thread, by thread id, one at a time. */
static void lrb_statedump_tasks(struct lrb_event_link *l)
{
	struct task_struct *t;
	struct pid *pid;
	int nr = 0;

	for (;;) {
		rcu_read_lock();
		pid = find_ge_pid(nr, &init_pid_ns);
		if (!pid) {
			rcu_read_unlock();
			break;
		}
		nr = pid_nr(pid) + 1;
		t = pid_task(pid, PIDTYPE_PID);
		if (t)
			lrb_statedump_task(l, t);
		rcu_read_unlock();
		cond_resched();
	}
}

/* One interrupt record of @action, a handler of @irq; under its lock. */
static void lrb_statedump_irq(struct lrb_event_link *l, unsigned int irq,
			      const char *chip, const struct irqaction *action)
{
	const char *name = action->name ? action->name : "";
	size_t clen = strnlen(chip, LRB_SD_IRQ_NAME_MAX - 1);
	size_t alen = strnlen(name, LRB_SD_IRQ_NAME_MAX - 1);
	struct lrb_slot slot __uninitialized;
	char *p;

	if (lrb_reserve(l->chan, &slot, l->id,
			sizeof(u32) + clen + 1 + alen + 1 + sizeof(s32)))
		return;
	p = slot.data;
	put_unaligned(irq, (u32 *)p);
	p += sizeof(u32);
	memcpy(p, chip, clen);
	p[clen] = '\0';
	p += clen + 1;
	memcpy(p, name, alen);
	p[alen] = '\0';
	p += alen + 1;
	put_unaligned(action->thread ? action->thread->pid : 0, (s32 *)p);
	lrb_commit(&slot);
}

/*
 * Every handler of every interrupt, as /proc/interrupts lists them: one
 * descriptor at a time, under RCU (a sparse IRQ's descriptor is freed
 * after a grace period) and its lock, which keeps its handlers.
 */
static void lrb_statedump_irqs(struct lrb_event_link *l)
{
	const struct irqaction *action;
	struct irq_desc *desc;
	struct irq_chip *chip;
	unsigned long flags;
	unsigned int irq;

	for (irq = 0; irq < nr_irqs; irq++) {
		rcu_read_lock();
		desc = irq_to_desc(irq);
		if (desc) {
			raw_spin_lock_irqsave(&desc->lock, flags);
			chip = irq_desc_get_chip(desc);
			for (action = desc->action; action; action = action->next)
				lrb_statedump_irq(l, irq, chip && chip->name ?
						  chip->name : "None", action);
			raw_spin_unlock_irqrestore(&desc->lock, flags);
		}
		rcu_read_unlock();
		cond_resched();
	}
}

#ifdef CONFIG_BLOCK
/* The block_device record of @part, a disk's or a partition's. */
static void lrb_statedump_bdev(struct lrb_event_link *l,
			       struct block_device *part)
{
	struct lrb_slot slot __uninitialized;
	char name[BDEVNAME_SIZE];
	size_t len;

	snprintf(name, sizeof(name), "%pg", part);
	len = strlen(name);
	if (lrb_reserve(l->chan, &slot, l->id, sizeof(u32) + len + 1))
		return;
	put_unaligned(part->bd_dev, (u32 *)slot.data);
	memcpy(slot.data + sizeof(u32), name, len + 1);
	lrb_commit(&slot);
}

/*
 * Every disk but a hidden one (a multipath path, say: it has no device
 * number of its own), and those of its partitions that have sectors, as
 * lttng-modules and /proc/partitions list them: one disk at a time, its
 * partitions under RCU, which keeps them while the walk reads them.
 */
static void lrb_statedump_bdevs(struct lrb_event_link *l)
{
	struct class_dev_iter iter;
	struct block_device *part;
	struct device *dev;
	unsigned long idx;

	class_dev_iter_init(&iter, &block_class, NULL, &disk_type);
	while ((dev = class_dev_iter_next(&iter))) {
		if (dev_to_disk(dev)->flags & GENHD_FL_HIDDEN)
			continue;
		rcu_read_lock();
		xa_for_each(&dev_to_disk(dev)->part_tbl, idx, part) {
			if (bdev_is_partition(part) && !bdev_nr_sectors(part))
				continue;
			lrb_statedump_bdev(l, part);
		}
		rcu_read_unlock();
		cond_resched();
	}
	class_dev_iter_exit(&iter);
}
#else
static void lrb_statedump_bdevs(struct lrb_event_link *l)
{
}
#endif

/**
 * lrb_statedump() - record the threads alive into a starting channel
 * @o: the channel's owner, its links just started.
 *
 * Writes the statedump events the channel selected, if any. Called by
 * the registry, or by its caller, with the owner's commands serialized,
 * so the links stay; under no global lock (neither the registry's nor
 * event_mutex): the walk of every task may take long, and module loading
 * and dynamic events must not wait for it. May sleep.
 *
 * Return: false if the channel selected none.
 */
bool lrb_statedump(struct lrb_events_owner *o)
{
	struct lrb_event_link *start, *process, *irq, *end;
	struct lrb_event_link *bdev;

	lockdep_assert_not_held(&event_mutex);
	start = lrb_events_owner_link(o, &lrb_statedump_start_ev);
	process = lrb_events_owner_link(o, &lrb_statedump_process_ev);
	irq = lrb_events_owner_link(o, &lrb_statedump_irq_ev);
	bdev = lrb_events_owner_link(o, &lrb_statedump_bdev_ev);
	end = lrb_events_owner_link(o, &lrb_statedump_end_ev);
	if (!start && !process && !irq && !bdev && !end)
		return false;
	lrb_statedump_mark(start);
	/* The idle threads (pid 0) have no struct pid: lttng-modules skips them too. */
	if (process)
		lrb_statedump_tasks(process);
	if (irq)
		lrb_statedump_irqs(irq);
	if (bdev)
		lrb_statedump_bdevs(bdev);
	lrb_statedump_mark(end);
	return true;
}

static int __init lrb_statedump_init(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(lrb_statedump_events); i++) {
		ret = lrb_event_register(lrb_statedump_events[i]);
		if (ret)
			pr_warn("lrb: %s not registered: %d\n",
				lrb_statedump_events[i]->name, ret);
	}
	return 0;
}
device_initcall(lrb_statedump_init);
