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
 */

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/lrb.h>
#include <linux/lrb_marker.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_buf.h>

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
	lrb_tsdl_integer(s, "tid", 32, 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "pid", 32, 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "ppid", 32, 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "name", 8, 8, LRB_TSDL_TEXT, comm);
	for (i = 0; i < ARRAY_SIZE(ints); i++)
		lrb_tsdl_integer(s, ints[i], 32, 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "cpu", 32, 32, 0, "");
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

static struct lrb_event lrb_statedump_end_ev = {
	.name = "lttng_statedump_end",
	.start = lrb_statedump_start,
	.stop = lrb_statedump_stop,
};

static struct lrb_event * const lrb_statedump_events[] = {
	&lrb_statedump_start_ev,
	&lrb_statedump_process_ev,
	&lrb_statedump_end_ev,
};

/* A record without fields of the event of @l, if any, in its channel. */
static void lrb_statedump_mark(struct lrb_event_link *l)
{
	struct lrb_slot slot __uninitialized;

	if (!l)
		return;
	if (lrb_reserve(l->chan, &slot, l->ev->id, 0))
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

	if (lrb_reserve(l->chan, &slot, l->ev->id, sizeof(*p)))
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

/**
 * lrb_statedump() - record the threads alive into a starting channel
 * @o: the channel's owner, its links just started.
 *
 * Writes the statedump events the channel selected, if any. Called by
 * the registry with its mutex held, so the links stay; may sleep.
 */
void lrb_statedump(struct lrb_events_owner *o)
{
	struct lrb_event_link *start, *process, *end;

	start = lrb_events_owner_link(o, &lrb_statedump_start_ev);
	process = lrb_events_owner_link(o, &lrb_statedump_process_ev);
	end = lrb_events_owner_link(o, &lrb_statedump_end_ev);
	if (!start && !process && !end)
		return;
	lrb_statedump_mark(start);
	/* The idle threads (pid 0) have no struct pid: lttng-modules skips them too. */
	if (process)
		lrb_statedump_tasks(process);
	lrb_statedump_mark(end);
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
