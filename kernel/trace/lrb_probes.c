// SPDX-License-Identifier: GPL-2.0
/*
 * LRB probes: existing kernel tracepoints recorded into an LRB channel.
 *
 * Each probe is an event of the LRB registry (lrb_events.c): selected per
 * channel through tracefs (lrb/NAME/events) or lrb-record -e, registered on
 * its tracepoint while the channel is enabled, unregistered otherwise. The
 * payload is a packed struct whose layout is the event's field list, so the
 * CTF metadata describes it exactly. Field names follow the ftrace events.
 */

#include <linux/binfmts.h>
#include <linux/interrupt.h>
#include <linux/lrb_marker.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/syscall.h>
#include <trace/events/irq.h>
#include <trace/events/sched.h>
#ifdef CONFIG_HAVE_SYSCALL_TRACEPOINTS
#include <trace/events/syscalls.h>
#endif

#include "lrb_events.h"

#define LRB_PROBE_STR_MAX	128

#define LRB_F(_name, _type)	{ .name = #_name, .type = LRB_FIELD_##_type, .count = 1 }
#define LRB_F_COMM(_name)	{ .name = #_name, .type = LRB_FIELD_CHARS, .count = TASK_COMM_LEN }
#define LRB_F_ARRAY(_name, _type, _n) \
	{ .name = #_name, .type = LRB_FIELD_##_type, .count = _n }

/* The probe's event, as registered on the tracepoint. */
#define LRB_PROBE_EVENT(_tp)						\
static int lrb_start_##_tp(struct lrb_event *ev)			\
{									\
	return register_trace_##_tp(lrb_probe_##_tp, ev);		\
}									\
static void lrb_stop_##_tp(struct lrb_event *ev)			\
{									\
	unregister_trace_##_tp(lrb_probe_##_tp, ev);			\
}									\
static struct lrb_event lrb_event_##_tp = {				\
	.name = #_tp,							\
	.fields = lrb_fields_##_tp,					\
	.nr_fields = ARRAY_SIZE(lrb_fields_##_tp),			\
	.start = lrb_start_##_tp,					\
	.stop = lrb_stop_##_tp,						\
}

static __always_inline struct lrb_channel *lrb_probe_chan(void *data)
{
	/* Tracepoint probes run with preemption disabled. */
	return rcu_dereference_sched(((struct lrb_event *)data)->chan);
}

static __always_inline void lrb_probe_write(void *data, const void *p,
					    size_t len)
{
	struct lrb_event *ev = data;
	struct lrb_channel *chan = lrb_probe_chan(data);

	if (chan)
		lrb_write_record(chan, ev->id, p, len);
}

/*
 * A record made of a fixed part and a string: the string is cut to
 * LRB_PROBE_STR_MAX - 1 bytes and ends with its NUL.
 */
static void lrb_probe_write_str(void *data, const void *fixed, size_t len,
				const char *s)
{
	char buf[64 + LRB_PROBE_STR_MAX];
	size_t n;

	if (!lrb_probe_chan(data) || WARN_ON_ONCE(len > 64))
		return;
	memcpy(buf, fixed, len);
	n = strscpy(buf + len, s ? s : "(null)", LRB_PROBE_STR_MAX);
	if ((ssize_t)n < 0)
		n = LRB_PROBE_STR_MAX - 1;
	lrb_probe_write(data, buf, len + n + 1);
}

/* sched_switch */

struct lrb_sched_switch {
	char prev_comm[TASK_COMM_LEN];
	s32 prev_pid;
	s32 prev_prio;
	s64 prev_state;
	char next_comm[TASK_COMM_LEN];
	s32 next_pid;
	s32 next_prio;
} __packed;

static const struct lrb_field lrb_fields_sched_switch[] = {
	LRB_F_COMM(prev_comm), LRB_F(prev_pid, S32), LRB_F(prev_prio, S32),
	LRB_F(prev_state, S64), LRB_F_COMM(next_comm), LRB_F(next_pid, S32),
	LRB_F(next_prio, S32),
};

static void lrb_probe_sched_switch(void *data, bool preempt,
				   struct task_struct *prev,
				   struct task_struct *next,
				   unsigned int prev_state)
{
	struct lrb_sched_switch e;

	memcpy(e.prev_comm, prev->comm, TASK_COMM_LEN);
	e.prev_pid = prev->pid;
	e.prev_prio = prev->prio;
	/* A preempted task is still runnable: state 0, as ftrace shows R. */
	e.prev_state = preempt ? TASK_RUNNING : prev_state & TASK_REPORT;
	memcpy(e.next_comm, next->comm, TASK_COMM_LEN);
	e.next_pid = next->pid;
	e.next_prio = next->prio;
	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sched_switch);

/* sched_wakeup */

struct lrb_sched_wakeup {
	char comm[TASK_COMM_LEN];
	s32 pid;
	s32 prio;
	s32 target_cpu;
} __packed;

static const struct lrb_field lrb_fields_sched_wakeup[] = {
	LRB_F_COMM(comm), LRB_F(pid, S32), LRB_F(prio, S32),
	LRB_F(target_cpu, S32),
};

static void lrb_probe_sched_wakeup(void *data, struct task_struct *p)
{
	struct lrb_sched_wakeup e;

	memcpy(e.comm, p->comm, TASK_COMM_LEN);
	e.pid = p->pid;
	e.prio = p->prio;
	e.target_cpu = task_cpu(p);
	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sched_wakeup);

/* sched_process_fork */

struct lrb_sched_process_fork {
	char parent_comm[TASK_COMM_LEN];
	s32 parent_pid;
	char child_comm[TASK_COMM_LEN];
	s32 child_pid;
} __packed;

static const struct lrb_field lrb_fields_sched_process_fork[] = {
	LRB_F_COMM(parent_comm), LRB_F(parent_pid, S32),
	LRB_F_COMM(child_comm), LRB_F(child_pid, S32),
};

static void lrb_probe_sched_process_fork(void *data,
					 struct task_struct *parent,
					 struct task_struct *child)
{
	struct lrb_sched_process_fork e;

	memcpy(e.parent_comm, parent->comm, TASK_COMM_LEN);
	e.parent_pid = parent->pid;
	memcpy(e.child_comm, child->comm, TASK_COMM_LEN);
	e.child_pid = child->pid;
	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sched_process_fork);

/* sched_process_exec */

struct lrb_sched_process_exec {
	s32 pid;
	s32 old_pid;
} __packed;

static const struct lrb_field lrb_fields_sched_process_exec[] = {
	LRB_F(pid, S32), LRB_F(old_pid, S32), LRB_F(filename, STRING),
};

static void lrb_probe_sched_process_exec(void *data, struct task_struct *p,
					 pid_t old_pid,
					 struct linux_binprm *bprm)
{
	struct lrb_sched_process_exec e = {
		.pid = p->pid,
		.old_pid = old_pid,
	};

	lrb_probe_write_str(data, &e, sizeof(e), bprm->filename);
}

LRB_PROBE_EVENT(sched_process_exec);

/* sched_process_exit */

struct lrb_sched_process_exit {
	char comm[TASK_COMM_LEN];
	s32 pid;
	s32 prio;
} __packed;

static const struct lrb_field lrb_fields_sched_process_exit[] = {
	LRB_F_COMM(comm), LRB_F(pid, S32), LRB_F(prio, S32),
};

static void lrb_probe_sched_process_exit(void *data, struct task_struct *p)
{
	struct lrb_sched_process_exit e;

	memcpy(e.comm, p->comm, TASK_COMM_LEN);
	e.pid = p->pid;
	e.prio = p->prio;
	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sched_process_exit);

/* irq_handler_entry, irq_handler_exit */

static const struct lrb_field lrb_fields_irq_handler_entry[] = {
	LRB_F(irq, S32), LRB_F(name, STRING),
};

static void lrb_probe_irq_handler_entry(void *data, int irq,
					struct irqaction *action)
{
	s32 e = irq;

	lrb_probe_write_str(data, &e, sizeof(e), action->name);
}

LRB_PROBE_EVENT(irq_handler_entry);

struct lrb_irq_handler_exit {
	s32 irq;
	s32 ret;
} __packed;

static const struct lrb_field lrb_fields_irq_handler_exit[] = {
	LRB_F(irq, S32), LRB_F(ret, S32),
};

static void lrb_probe_irq_handler_exit(void *data, int irq,
				       struct irqaction *action, int ret)
{
	struct lrb_irq_handler_exit e = { .irq = irq, .ret = ret };

	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(irq_handler_exit);

/* softirq_entry, softirq_exit */

static const struct lrb_field lrb_fields_softirq_entry[] = {
	LRB_F(vec, U32),
};

static void lrb_probe_softirq_entry(void *data, unsigned int vec_nr)
{
	u32 vec = vec_nr;

	lrb_probe_write(data, &vec, sizeof(vec));
}

LRB_PROBE_EVENT(softirq_entry);

/* The same record layout and probe: the event (data) tells them apart. */
#define lrb_fields_softirq_exit lrb_fields_softirq_entry
#define lrb_probe_softirq_exit lrb_probe_softirq_entry

LRB_PROBE_EVENT(softirq_exit);

#ifdef CONFIG_HAVE_SYSCALL_TRACEPOINTS
/* sys_enter, sys_exit */

struct lrb_sys_enter {
	s64 id;
	u64 args[6];
} __packed;

static const struct lrb_field lrb_fields_sys_enter[] = {
	LRB_F(id, S64), LRB_F_ARRAY(args, U64, 6),
};

static void lrb_probe_sys_enter(void *data, struct pt_regs *regs, long id)
{
	struct lrb_sys_enter e = { .id = id };
	unsigned long args[6];
	int i;

	syscall_get_arguments(current, regs, args);
	for (i = 0; i < 6; i++)
		e.args[i] = args[i];
	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sys_enter);

struct lrb_sys_exit {
	s64 id;
	s64 ret;
} __packed;

static const struct lrb_field lrb_fields_sys_exit[] = {
	LRB_F(id, S64), LRB_F(ret, S64),
};

static void lrb_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct lrb_sys_exit e = {
		.id = syscall_get_nr(current, regs),
		.ret = ret,
	};

	lrb_probe_write(data, &e, sizeof(e));
}

LRB_PROBE_EVENT(sys_exit);
#endif

static struct lrb_event *lrb_probes[] __initdata = {
	&lrb_event_sched_switch,
	&lrb_event_sched_wakeup,
	&lrb_event_sched_process_fork,
	&lrb_event_sched_process_exec,
	&lrb_event_sched_process_exit,
	&lrb_event_irq_handler_entry,
	&lrb_event_irq_handler_exit,
	&lrb_event_softirq_entry,
	&lrb_event_softirq_exit,
#ifdef CONFIG_HAVE_SYSCALL_TRACEPOINTS
	&lrb_event_sys_enter,
	&lrb_event_sys_exit,
#endif
};

static __init int lrb_probes_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(lrb_probes); i++) {
		ret = lrb_event_register(lrb_probes[i]);
		if (ret)
			pr_warn("lrb: probe %s not registered: %d\n",
				lrb_probes[i]->name, ret);
	}
	return 0;
}
device_initcall(lrb_probes_init);
