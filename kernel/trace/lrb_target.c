// SPDX-License-Identifier: GPL-2.0
/*
 * LRB targets: the processes, users and CPUs a tracefs channel records.
 *
 * A channel records every task on every CPU until it is given targets: a
 * pid list, as ftrace's set_event_pid, that with pid_follow also takes the
 * children its tasks fork, as ftrace's options/event-fork; a uid list, as
 * LTTng's user tracker; and a CPU mask. A task is recorded if it is in
 * each list that is set, on a CPU of the mask.
 *
 * Looking the task up at every event would cost, and the pid list's
 * lookups take a lock that an NMI must not take; so, as ftrace does, a
 * probe on sched_switch decides for the task a CPU switches to whether the
 * channel ignores it there, and writes that into a per-CPU flag that the
 * channel's events read before they reserve anything (a link's ignore;
 * lrb_trace_event_reserve(), __lrb_mark()). An event in interrupt context
 * is the interrupted task's, as in ftrace; a task that changes its uid is
 * judged again at its next switch.
 *
 * Who writes what:
 *
 *   sched_switch probe      this CPU's ignore flag, for the next task
 *   fork and free probes    the pid list (its own lock), when following,
 *                           or when a task leaves
 *   tracefs writes          the lists and the mask, under lrb_target_mutex;
 *                           then each CPU's flag, for its current task
 *                           (an offline CPU's for its idle task)
 *   events                  read this CPU's flag
 */

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/export.h>
#include <linux/lrb_marker.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "trace.h"
#include "lrb_events.h"

#define LRB_TARGET_UIDS_MAX	64

/* A uid list: replaced whole, freed after a grace period. */
struct lrb_uids {
	unsigned int n;
	uid_t uid[];
};

/**
 * struct lrb_target - what a channel targets
 * @list: in lrb_targets while the channel targets anything.
 * @ignore: per CPU, whether the channel ignores the task running there.
 * @pids: the pid list, or NULL for every task.
 * @uids: the uid list, or NULL for every user.
 * @cpus: the CPUs it records on.
 * @follow: a task of @pids that forks adds its child.
 */
struct lrb_target {
	struct list_head list;
	bool __percpu *ignore;
	struct trace_pid_list __rcu *pids;
	struct lrb_uids __rcu *uids;
	cpumask_var_t cpus;
	bool follow;
};

static DEFINE_MUTEX(lrb_target_mutex);
static LIST_HEAD(lrb_targets);

static bool lrb_target_uid_in(const struct lrb_uids *uids, uid_t uid)
{
	unsigned int i;

	for (i = 0; i < uids->n; i++)
		if (uids->uid[i] == uid)
			return true;
	return false;
}

/* Does @t ignore @task on @cpu? Under RCU (sched). */
static bool lrb_target_ignores(struct lrb_target *t, struct task_struct *task,
			       int cpu)
{
	struct trace_pid_list *pids = rcu_dereference_sched(t->pids);
	struct lrb_uids *uids = rcu_dereference_sched(t->uids);

	if (!cpumask_test_cpu(cpu, t->cpus))
		return true;
	if (pids && !trace_pid_list_is_set(pids, task->pid))
		return true;
	return uids && !lrb_target_uid_in(uids,
				from_kuid(&init_user_ns, task_uid(task)));
}

static void lrb_target_switch(void *data, bool preempt,
			      struct task_struct *prev,
			      struct task_struct *next, unsigned int prev_state)
{
	struct lrb_target *t;
	int cpu = smp_processor_id();

	list_for_each_entry_rcu(t, &lrb_targets, list)
		this_cpu_write(*t->ignore, lrb_target_ignores(t, next, cpu));
}

static void lrb_target_fork(void *data, struct task_struct *parent,
			    struct task_struct *child)
{
	struct lrb_target *t;

	list_for_each_entry_rcu(t, &lrb_targets, list)
		if (READ_ONCE(t->follow))
			trace_filter_add_remove_task(rcu_dereference_sched(t->pids),
						     parent, child);
}

/* A pid that is freed may be reused: it leaves the lists, as in ftrace. */
static void lrb_target_free(void *data, struct task_struct *task)
{
	struct lrb_target *t;

	list_for_each_entry_rcu(t, &lrb_targets, list)
		trace_filter_add_remove_task(rcu_dereference_sched(t->pids),
					     NULL, task);
}

static int lrb_target_probes(bool on)
{
	int ret;

	if (!on) {
		unregister_trace_sched_process_free(lrb_target_free, NULL);
		unregister_trace_sched_process_fork(lrb_target_fork, NULL);
		unregister_trace_sched_switch(lrb_target_switch, NULL);
		return 0;
	}
	ret = register_trace_sched_switch(lrb_target_switch, NULL);
	if (ret)
		return ret;
	ret = register_trace_sched_process_fork(lrb_target_fork, NULL);
	if (ret)
		goto fork;
	ret = register_trace_sched_process_free(lrb_target_free, NULL);
	if (!ret)
		return 0;
	unregister_trace_sched_process_fork(lrb_target_fork, NULL);
fork:
	unregister_trace_sched_switch(lrb_target_switch, NULL);
	return ret;
}

/* Each CPU's flag, for the task it runs now: an IPI. */
static void lrb_target_cpu_update(void *data)
{
	struct lrb_target *t = data;

	this_cpu_write(*t->ignore,
		       lrb_target_ignores(t, current, smp_processor_id()));
}

/*
 * Every CPU's flag: an online CPU's for the task it runs, an offline
 * CPU's for its idle task, which it runs first when it comes up, until
 * its first switch. Hotplug waits meanwhile.
 */
static void lrb_target_update(struct lrb_target *t)
{
	int cpu;

	cpus_read_lock();
	on_each_cpu(lrb_target_cpu_update, t, 1);
	rcu_read_lock_sched();
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			*per_cpu_ptr(t->ignore, cpu) =
				lrb_target_ignores(t, idle_task(cpu), cpu);
	rcu_read_unlock_sched();
	cpus_read_unlock();
}

/* The target of @o, made on first use. Under lrb_target_mutex. */
static struct lrb_target *lrb_target_get(struct lrb_events_owner *o)
{
	struct lrb_target *t = o->target;

	if (t)
		return t;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	INIT_LIST_HEAD(&t->list);
	t->ignore = alloc_percpu(bool);
	if (!t->ignore || !zalloc_cpumask_var(&t->cpus, GFP_KERNEL)) {
		free_percpu(t->ignore);
		kfree(t);
		return NULL;
	}
	cpumask_setall(t->cpus);
	o->target = t;
	return t;
}

static bool lrb_target_any(struct lrb_target *t)
{
	return rcu_access_pointer(t->pids) || rcu_access_pointer(t->uids) ||
	       !cpumask_subset(cpu_possible_mask, t->cpus);
}

/*
 * After a change to @o's target: work out every CPU's flag, then let the
 * channel's events read it, or stop them reading it if nothing is
 * targeted. Under lrb_target_mutex.
 */
static int lrb_target_apply(struct lrb_events_owner *o)
{
	struct lrb_target *t = o->target;
	bool any = lrb_target_any(t);
	int ret = 0;

	if (any && list_empty(&t->list)) {
		if (list_empty(&lrb_targets))
			ret = lrb_target_probes(true);
		if (ret)
			return ret;
		list_add_tail_rcu(&t->list, &lrb_targets);
	}
	if (any) {
		lrb_target_update(t);
		lrb_events_set_ignore(o, t->ignore);
		return 0;
	}
	lrb_events_set_ignore(o, NULL);
	if (!list_empty(&t->list)) {
		list_del_rcu(&t->list);
		INIT_LIST_HEAD(&t->list);
		if (list_empty(&lrb_targets))
			lrb_target_probes(false);
		/* No probe walks the list past this. */
		tracepoint_synchronize_unregister();
	}
	return 0;
}

/**
 * lrb_target_pids() - set a channel's pid list
 * @o: the channel's owner.
 * @ubuf: pids, as ftrace's set_event_pid takes them; none to clear.
 * @cnt: bytes of @ubuf.
 * @append: add to the list rather than replace it.
 *
 * Return: bytes taken, or -EINVAL for a bad pid (the list is then as it
 * was), -ENOMEM.
 */
ssize_t lrb_target_pids(struct lrb_events_owner *o, const char __user *ubuf,
			size_t cnt, bool append)
{
	struct trace_pid_list *old, *new = NULL;
	struct lrb_target *t;
	ssize_t ret;
	int err;

	mutex_lock(&lrb_target_mutex);
	t = lrb_target_get(o);
	if (!t) {
		ret = -ENOMEM;
		goto out;
	}
	old = rcu_dereference_protected(t->pids,
					lockdep_is_held(&lrb_target_mutex));
	ret = trace_pid_write(append ? old : NULL, &new, ubuf, cnt);
	/* A pid beyond PID_MAX_LIMIT comes back as a bare -1. */
	if (ret == -EPERM)
		ret = -EINVAL;
	if (ret < 0)
		goto out;
	rcu_assign_pointer(t->pids, new);
	err = lrb_target_apply(o);
	if (err) {
		rcu_assign_pointer(t->pids, old);
		old = new;
		ret = err;
	}
	tracepoint_synchronize_unregister();
	if (old)
		trace_pid_list_free(old);
out:
	mutex_unlock(&lrb_target_mutex);
	return ret;
}

/**
 * lrb_target_uids() - set a channel's uid list
 * @o: the channel's owner.
 * @text: uids, separated by spaces or commas, at most 64; empty to clear.
 *	Cut up.
 *
 * Return: 0; -EINVAL for a bad uid or too many (the list is then as it
 * was); -ENOMEM.
 */
int lrb_target_uids(struct lrb_events_owner *o, char *text)
{
	struct lrb_uids *uids, *old;
	struct lrb_target *t;
	char *tok;
	int ret = 0;

	uids = kzalloc(struct_size(uids, uid, LRB_TARGET_UIDS_MAX),
		       GFP_KERNEL);
	if (!uids)
		return -ENOMEM;
	while ((tok = strsep(&text, " ,\t\n"))) {
		if (!*tok)
			continue;
		if (uids->n == LRB_TARGET_UIDS_MAX ||
		    kstrtouint(tok, 10, &uids->uid[uids->n]) ||
		    uids->uid[uids->n] == (uid_t)-1) {
			kfree(uids);
			return -EINVAL;
		}
		uids->n++;
	}
	if (!uids->n) {
		kfree(uids);
		uids = NULL;
	}
	mutex_lock(&lrb_target_mutex);
	t = lrb_target_get(o);
	if (!t) {
		ret = -ENOMEM;
		old = uids;
		goto out;
	}
	old = rcu_replace_pointer(t->uids, uids,
				  lockdep_is_held(&lrb_target_mutex));
	ret = lrb_target_apply(o);
	if (ret)
		old = rcu_replace_pointer(t->uids, old,
					  lockdep_is_held(&lrb_target_mutex));
out:
	mutex_unlock(&lrb_target_mutex);
	kfree_rcu_mightsleep(old);
	return ret;
}
EXPORT_SYMBOL_GPL(lrb_target_uids);

/**
 * lrb_target_cpus() - set a channel's CPU mask
 * @o: the channel's owner.
 * @list: a CPU list ("0,2-3"), or empty for every CPU.
 *
 * Its events on the other CPUs are not written at all: neither delivered
 * nor counted lost.
 *
 * Return: 0; -EINVAL for a bad list or one without a possible CPU;
 * -ENOMEM.
 */
int lrb_target_cpus(struct lrb_events_owner *o, const char *list)
{
	cpumask_var_t mask, old;
	struct lrb_target *t;
	int ret = 0;

	if (!zalloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	if (!alloc_cpumask_var(&old, GFP_KERNEL)) {
		free_cpumask_var(mask);
		return -ENOMEM;
	}
	if (!*list)
		cpumask_setall(mask);
	else if (cpulist_parse(list, mask) ||
		 !cpumask_intersects(mask, cpu_possible_mask))
		ret = -EINVAL;
	if (ret)
		goto free;
	mutex_lock(&lrb_target_mutex);
	t = lrb_target_get(o);
	if (!t) {
		ret = -ENOMEM;
	} else {
		cpumask_copy(old, t->cpus);
		cpumask_copy(t->cpus, mask);
		ret = lrb_target_apply(o);
		if (ret)
			cpumask_copy(t->cpus, old);
	}
	mutex_unlock(&lrb_target_mutex);
free:
	free_cpumask_var(old);
	free_cpumask_var(mask);
	return ret;
}

/**
 * lrb_target_follow() - let a channel's pid list take the children of its
 *	tasks, as ftrace's options/event-fork does
 * @o: the channel's owner.
 * @on: whether it does.
 *
 * Return: 0, or -ENOMEM.
 */
int lrb_target_follow(struct lrb_events_owner *o, bool on)
{
	struct lrb_target *t;

	mutex_lock(&lrb_target_mutex);
	t = lrb_target_get(o);
	if (t)
		WRITE_ONCE(t->follow, on);
	mutex_unlock(&lrb_target_mutex);
	return t ? 0 : -ENOMEM;
}

/**
 * lrb_target_show() - print one of a channel's targets
 * @m: its tracefs file.
 * @o: the channel's owner.
 * @what: which: its pids, one per line; its uids, one per line; its CPUs,
 *	as a CPU list; whether it follows forks, 0 or 1.
 */
void lrb_target_show(struct seq_file *m, struct lrb_events_owner *o,
		     enum lrb_target_what what)
{
	struct trace_pid_list *pids;
	struct lrb_target *t;
	struct lrb_uids *uids;
	unsigned int i, pid;
	int more;

	mutex_lock(&lrb_target_mutex);
	t = o->target;
	switch (what) {
	case LRB_TARGET_PIDS:
		pids = t ? rcu_dereference_protected(t->pids,
				lockdep_is_held(&lrb_target_mutex)) : NULL;
		for (more = pids ? trace_pid_list_first(pids, &pid) : -1;
		     !more; more = trace_pid_list_next(pids, pid + 1, &pid))
			seq_printf(m, "%u\n", pid);
		break;
	case LRB_TARGET_UIDS:
		uids = t ? rcu_dereference_protected(t->uids,
				lockdep_is_held(&lrb_target_mutex)) : NULL;
		for (i = 0; uids && i < uids->n; i++)
			seq_printf(m, "%u\n", uids->uid[i]);
		break;
	case LRB_TARGET_CPUS:
		seq_printf(m, "%*pbl\n",
			   cpumask_pr_args(t ? t->cpus : cpu_possible_mask));
		break;
	case LRB_TARGET_FOLLOW:
		seq_printf(m, "%d\n", t && t->follow);
		break;
	}
	mutex_unlock(&lrb_target_mutex);
}

/**
 * lrb_target_release() - drop a channel's targets
 * @o: the channel's owner, whose events no longer run.
 */
void lrb_target_release(struct lrb_events_owner *o)
{
	struct lrb_target *t = o->target;

	if (!t)
		return;
	mutex_lock(&lrb_target_mutex);
	if (!list_empty(&t->list)) {
		list_del_rcu(&t->list);
		if (list_empty(&lrb_targets))
			lrb_target_probes(false);
	}
	mutex_unlock(&lrb_target_mutex);
	lrb_events_set_ignore(o, NULL);
	tracepoint_synchronize_unregister();
	trace_pid_list_free(rcu_dereference_protected(t->pids, true));
	kfree(rcu_dereference_protected(t->uids, true));
	free_cpumask_var(t->cpus);
	free_percpu(t->ignore);
	kfree(t);
	o->target = NULL;
}
