// SPDX-License-Identifier: GPL-2.0
/*
 * LRB's LTTng layout: the names that lttng-modules 2.13 gives the trace
 * events it instruments, and their fields, so that the tools that read
 * LTTng kernel traces (Trace Compass's kernel analyses, the LTTng
 * analyses) read LRB's.
 *
 * An event keeps its record: this table only renames it and its fields.
 * It is the one place that says how the two layouts differ; the rest of
 * each description comes from the event's ftrace field list, as in the
 * ftrace layout. Events that lttng-modules does not have, or whose record
 * holds other values there, keep their ftrace name (SYSTEM:EVENT, which
 * no LTTng name can be) and fields.
 *
 * Some of those have a record of their own in the LTTng layout instead
 * (lrb_lttng_records[]), written by a probe of their own.
 *
 * One value differs in the records that keep their layout: priorities,
 * which lttng-modules writes as prio - MAX_RT_PRIO (lrb_lttng_prios[]).
 * The block events' rwbs differs too: lttng-modules writes it as bits
 * (lrb_lttng_rwbs()).
 */

#include <linux/glob.h>
#include <linux/kernel.h>
#include <linux/lrb.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/stringify.h>
#include <linux/trace_events.h>
#include <linux/unaligned.h>
#include <trace/events/sched.h>

#include "lrb_events.h"

/*
 * The trace events lttng-modules 2.13 instruments on Linux 6.12, by their
 * ftrace names, and the names it gives them (include/instrumentation/
 * events/ of lttng-modules: each header maps a tracepoint to a name of
 * its choosing, so there is no rule to derive them). Left out, to keep
 * their ftrace names: the events whose LTTng record holds values that
 * ftrace's does not (sched_pi_setprio's newprio, the strings of rcu's
 * events, skb_kfree's 8-bit reason), until
 * they have a record of their own.
 */
static const struct lrb_lttng_event {
	const char *system;
	const char *event;
	const char *lttng;	/* NULL: the same as @event */
} lrb_lttng_events[] = {
	/* sched */
	{ "sched", "sched_kthread_stop" },
	{ "sched", "sched_kthread_stop_ret" },
	{ "sched", "sched_waking" },
	{ "sched", "sched_wakeup" },
	{ "sched", "sched_wakeup_new" },
	{ "sched", "sched_switch" },
	{ "sched", "sched_migrate_task" },
	{ "sched", "sched_process_free" },
	{ "sched", "sched_process_exit" },
	{ "sched", "sched_wait_task" },
	{ "sched", "sched_process_wait" },
	{ "sched", "sched_process_fork" },
	{ "sched", "sched_process_exec" },
	{ "sched", "sched_stat_wait" },
	{ "sched", "sched_stat_sleep" },
	{ "sched", "sched_stat_iowait" },
	{ "sched", "sched_stat_blocked" },
	{ "sched", "sched_stat_runtime" },
	/* irq */
	{ "irq", "irq_handler_entry" },
	{ "irq", "irq_handler_exit" },
	{ "irq", "softirq_entry", "irq_softirq_entry" },
	{ "irq", "softirq_exit", "irq_softirq_exit" },
	{ "irq", "softirq_raise", "irq_softirq_raise" },
	/* timer */
	{ "timer", "timer_init" },
	{ "timer", "timer_start" },
	{ "timer", "timer_expire_entry" },
	{ "timer", "timer_expire_exit" },
	{ "timer", "timer_cancel" },
	{ "timer", "hrtimer_init", "timer_hrtimer_init" },
	{ "timer", "hrtimer_start", "timer_hrtimer_start" },
	{ "timer", "hrtimer_expire_entry", "timer_hrtimer_expire_entry" },
	{ "timer", "hrtimer_expire_exit", "timer_hrtimer_expire_exit" },
	{ "timer", "hrtimer_cancel", "timer_hrtimer_cancel" },
	{ "timer", "itimer_state", "timer_itimer_state" },
	{ "timer", "itimer_expire", "timer_itimer_expire" },
	/* kmem */
	{ "kmem", "kmem_cache_alloc" },
	{ "kmem", "kmalloc", "kmem_kmalloc" },
	{ "kmem", "kfree", "kmem_kfree" },
	{ "kmem", "kmem_cache_free" },
	{ "kmem", "mm_page_free", "kmem_mm_page_free" },
	{ "kmem", "mm_page_free_batched", "kmem_mm_page_free_batched" },
	{ "kmem", "mm_page_alloc", "kmem_mm_page_alloc" },
	{ "kmem", "mm_page_alloc_zone_locked",
	  "kmem_mm_page_alloc_zone_locked" },
	{ "kmem", "mm_page_pcpu_drain", "kmem_mm_page_pcpu_drain" },
	{ "kmem", "mm_page_alloc_extfrag", "kmem_mm_page_alloc_extfrag" },
	/* block */
	{ "block", "block_touch_buffer" },
	{ "block", "block_dirty_buffer" },
	{ "block", "block_rq_requeue" },
	{ "block", "block_rq_complete" },
	{ "block", "block_rq_insert" },
	{ "block", "block_rq_issue" },
	{ "block", "block_rq_merge" },
	{ "block", "block_bio_complete" },
	{ "block", "block_bio_bounce" },
	{ "block", "block_bio_backmerge" },
	{ "block", "block_bio_frontmerge" },
	{ "block", "block_bio_queue" },
	{ "block", "block_getrq" },
	{ "block", "block_plug" },
	{ "block", "block_unplug" },
	{ "block", "block_split" },
	{ "block", "block_bio_remap" },
	{ "block", "block_rq_remap" },
	/* net */
	{ "net", "net_dev_xmit" },
	{ "net", "net_dev_queue" },
	{ "net", "netif_receive_skb", "net_if_receive_skb" },
	{ "net", "netif_rx", "net_if_rx" },
	{ "net", "napi_gro_frags_entry", "net_napi_gro_frags_entry" },
	{ "net", "napi_gro_receive_entry", "net_napi_gro_receive_entry" },
	{ "net", "netif_receive_skb_entry", "net_if_receive_skb_entry" },
	{ "net", "netif_receive_skb_list_entry",
	  "net_if_receive_skb_list_entry" },
	{ "net", "netif_rx_entry", "net_if_rx_entry" },
	{ "net", "napi_gro_frags_exit", "net_napi_gro_frags_exit" },
	{ "net", "napi_gro_receive_exit", "net_napi_gro_receive_exit" },
	{ "net", "netif_receive_skb_exit", "net_if_receive_skb_exit" },
	{ "net", "netif_rx_exit", "net_if_rx_exit" },
	{ "net", "netif_receive_skb_list_exit",
	  "net_if_receive_skb_list_exit" },
	/* power */
	{ "power", "cpu_idle", "power_cpu_idle" },
	{ "power", "cpu_frequency", "power_cpu_frequency" },
	{ "power", "wakeup_source_activate", "power_wakeup_source_activate" },
	{ "power", "wakeup_source_deactivate",
	  "power_wakeup_source_deactivate" },
	{ "power", "clock_enable", "power_clock_enable" },
	{ "power", "clock_disable", "power_clock_disable" },
	{ "power", "clock_set_rate", "power_clock_set_rate" },
	{ "power", "power_domain_target" },
	/* workqueue */
	{ "workqueue", "workqueue_queue_work" },
	{ "workqueue", "workqueue_activate_work" },
	{ "workqueue", "workqueue_execute_start" },
	{ "workqueue", "workqueue_execute_end" },
	/* signal */
	{ "signal", "signal_generate" },
	{ "signal", "signal_deliver" },
	/* module */
	{ "module", "module_load" },
	{ "module", "module_free" },
	{ "module", "module_get" },
	{ "module", "module_put" },
	{ "module", "module_request" },
	/* irq_vectors */
	{ "irq_vectors", "local_timer_entry",
	  "x86_irq_vectors_local_timer_entry" },
	{ "irq_vectors", "local_timer_exit",
	  "x86_irq_vectors_local_timer_exit" },
	{ "irq_vectors", "spurious_apic_entry",
	  "x86_irq_vectors_spurious_apic_entry" },
	{ "irq_vectors", "spurious_apic_exit",
	  "x86_irq_vectors_spurious_apic_exit" },
	{ "irq_vectors", "error_apic_entry",
	  "x86_irq_vectors_error_apic_entry" },
	{ "irq_vectors", "error_apic_exit", "x86_irq_vectors_error_apic_exit" },
	{ "irq_vectors", "x86_platform_ipi_entry",
	  "x86_irq_vectors_ipi_entry" },
	{ "irq_vectors", "x86_platform_ipi_exit", "x86_irq_vectors_ipi_exit" },
	{ "irq_vectors", "irq_work_entry", "x86_irq_vectors_irq_work_entry" },
	{ "irq_vectors", "irq_work_exit", "x86_irq_vectors_irq_work_exit" },
	{ "irq_vectors", "reschedule_entry",
	  "x86_irq_vectors_reschedule_entry" },
	{ "irq_vectors", "reschedule_exit", "x86_irq_vectors_reschedule_exit" },
	{ "irq_vectors", "call_function_entry",
	  "x86_irq_vectors_call_function_entry" },
	{ "irq_vectors", "call_function_exit",
	  "x86_irq_vectors_call_function_exit" },
	{ "irq_vectors", "call_function_single_entry",
	  "x86_irq_vectors_call_function_single_entry" },
	{ "irq_vectors", "call_function_single_exit",
	  "x86_irq_vectors_call_function_single_exit" },
	{ "irq_vectors", "threshold_apic_entry",
	  "x86_irq_vectors_threshold_apic_entry" },
	{ "irq_vectors", "threshold_apic_exit",
	  "x86_irq_vectors_threshold_apic_exit" },
	{ "irq_vectors", "deferred_error_apic_entry",
	  "x86_irq_vectors_deferred_error_apic_entry" },
	{ "irq_vectors", "deferred_error_apic_exit",
	  "x86_irq_vectors_deferred_error_apic_exit" },
	{ "irq_vectors", "thermal_apic_entry",
	  "x86_irq_vectors_thermal_apic_entry" },
	{ "irq_vectors", "thermal_apic_exit",
	  "x86_irq_vectors_thermal_apic_exit" },
	/* writeback */
	{ "writeback", "writeback_mark_inode_dirty" },
	{ "writeback", "writeback_dirty_inode_start" },
	{ "writeback", "writeback_dirty_inode" },
	{ "writeback", "writeback_write_inode_start" },
	{ "writeback", "writeback_write_inode" },
	{ "writeback", "writeback_queue" },
	{ "writeback", "writeback_exec" },
	{ "writeback", "writeback_start" },
	{ "writeback", "writeback_written" },
	{ "writeback", "writeback_wait" },
	{ "writeback", "writeback_pages_written" },
	{ "writeback", "writeback_wake_background" },
	{ "writeback", "writeback_bdi_register" },
	{ "writeback", "wbc_writepage", "writeback_wbc_writepage" },
	{ "writeback", "writeback_queue_io" },
	{ "writeback", "global_dirty_state", "writeback_global_dirty_state" },
	{ "writeback", "bdi_dirty_ratelimit", "writeback_bdi_dirty_ratelimit" },
	{ "writeback", "balance_dirty_pages", "writeback_balance_dirty_pages" },
	{ "writeback", "writeback_sb_inodes_requeue" },
	{ "writeback", "writeback_single_inode" },
	/* vmscan */
	{ "vmscan", "mm_vmscan_kswapd_sleep" },
	{ "vmscan", "mm_vmscan_kswapd_wake" },
	{ "vmscan", "mm_vmscan_wakeup_kswapd" },
	{ "vmscan", "mm_vmscan_direct_reclaim_begin" },
	{ "vmscan", "mm_vmscan_memcg_reclaim_begin" },
	{ "vmscan", "mm_vmscan_memcg_softlimit_reclaim_begin" },
	{ "vmscan", "mm_vmscan_direct_reclaim_end" },
	{ "vmscan", "mm_vmscan_memcg_reclaim_end" },
	{ "vmscan", "mm_vmscan_memcg_softlimit_reclaim_end" },
	{ "vmscan", "mm_shrink_slab_start", "mm_vmscan_shrink_slab_start" },
	{ "vmscan", "mm_shrink_slab_end", "mm_vmscan_shrink_slab_end" },
	{ "vmscan", "mm_vmscan_lru_isolate" },
	{ "vmscan", "mm_vmscan_lru_shrink_inactive" },
	/* skb */
	{ "skb", "consume_skb", "skb_consume" },
	{ "skb", "skb_copy_datagram_iovec" },
	/* napi */
	{ "napi", "napi_poll" },
	/* sock */
	{ "sock", "sock_rcvqueue_full" },
	{ "sock", "sock_exceed_buf_limit" },
	/* udp */
	{ "udp", "udp_fail_queue_rcv_skb" },
	/* printk */
	{ "printk", "console", "printk_console" },
};

/* Fields lttng-modules names otherwise, in the events @event matches. */
static const struct lrb_lttng_field {
	const char *event;
	const char *ftrace;
	const char *lttng;
} lrb_lttng_fields[] = {
	/* A pid in ftrace's sched events is a thread id: LTTng says tid. */
	{ "sched_*", "pid", "tid" },
	{ "sched_switch", "prev_pid", "prev_tid" },
	{ "sched_switch", "next_pid", "next_tid" },
	{ "sched_process_exec", "old_pid", "old_tid" },
	/* The thread that plugged or unplugged the queue. */
	{ "block_*plug", "common_pid", "tid" },
	/*
	 * The thread that queued, issued, merged or split the I/O, in the
	 * block events whose LTTng record has it (current->pid).
	 */
	{ "block_rq_i*", "common_pid", "tid" },
	{ "block_rq_merge", "common_pid", "tid" },
	{ "block_bio_[bfq]*", "common_pid", "tid" },
	{ "block_getrq", "common_pid", "tid" },
	{ "block_split", "common_pid", "tid" },
	{ "mm_vmscan_lru_isolate", "highest_zoneidx", "classzone_idx" },
	{ "mm_vmscan_lru_shrink_inactive", "nr_activate0", "nr_activate_anon" },
	{ "mm_vmscan_lru_shrink_inactive", "nr_activate1", "nr_activate_file" },
};

/*
 * The fields that hold a priority, by their ftrace names, in the events
 * whose LTTng names @event matches. ftrace writes the kernel's prio (100
 * to 139 for the nice levels, less for real time), lttng-modules prio -
 * MAX_RT_PRIO (0 to 39, negative for real time): the tools show it, and
 * Trace Compass keeps it in its thread states. The stage's probe writes
 * ftrace's value; lrb_trace_event_commit() turns it into lttng-modules'.
 */
static const struct lrb_lttng_prio {
	const char *event;
	const char *field;
} lrb_lttng_prios[] = {
	{ "sched_*", "prio" },
	{ "sched_switch", "prev_prio" },
	{ "sched_switch", "next_prio" },
};

/* Records of their own */

/**
 * lrb_lttng_describe_common() - declare the common fields of a record of
 *	its own, those of ftrace's struct trace_entry
 * @s: where the declarations go.
 */
void lrb_lttng_describe_common(struct seq_buf *s)
{
	lrb_tsdl_integer(s, "common_type", 16, 0, "");
	lrb_tsdl_integer(s, "common_flags", 8, 0, "");
	lrb_tsdl_integer(s, "common_preempt_count", 8, 0, "");
	lrb_tsdl_integer(s, "common_pid", 32, LRB_TSDL_SIGNED, "");
}

/*
 * sched_process_fork as lttng-modules writes it: the thread id (tid) and
 * the process id (pid, the thread group's) of both tasks, and the inode
 * of their pid namespace; ftrace's has the thread ids only, which it
 * calls pid. The analyses tell processes from threads with them.
 */
struct lrb_lttng_fork {
	struct trace_entry ent;
	char parent_comm[TASK_COMM_LEN];
	pid_t parent_tid;
	pid_t parent_pid;
	unsigned int parent_ns_inum;
	char child_comm[TASK_COMM_LEN];
	pid_t child_tid;
	pid_t child_pid;
	unsigned int child_ns_inum;
};

/* Its fields, in record order, each at its natural alignment. */
static_assert(TASK_COMM_LEN == 16 && sizeof(struct lrb_lttng_fork) == 64);

static int lrb_lttng_fork_describe(struct seq_buf *s)
{
	lrb_lttng_describe_common(s);
	lrb_tsdl_integer(s, "parent_comm", 8, LRB_TSDL_TEXT, "[16]");
	lrb_tsdl_integer(s, "parent_tid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "parent_pid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "parent_ns_inum", 32, 0, "");
	lrb_tsdl_integer(s, "child_comm", 8, LRB_TSDL_TEXT, "[16]");
	lrb_tsdl_integer(s, "child_tid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "child_pid", 32, LRB_TSDL_SIGNED, "");
	lrb_tsdl_integer(s, "child_ns_inum", 32, 0, "");
	return 0;
}

/* Under the tracepoint's RCU read side, as task_active_pid_ns() needs. */
static unsigned int lrb_lttng_ns_inum(struct task_struct *t)
{
	struct pid_namespace *ns = task_active_pid_ns(t);

	return ns ? ns->ns.inum : 0;
}

static notrace void lrb_lttng_fork_probe(void *data, struct task_struct *parent,
					 struct task_struct *child)
{
	struct lrb_slot slot __uninitialized;
	struct lrb_lttng_fork *ent;

	ent = lrb_trace_event_reserve(data, &slot, sizeof(*ent));
	if (!ent)
		return;
	memcpy(ent->parent_comm, parent->comm, TASK_COMM_LEN);
	ent->parent_tid = parent->pid;
	ent->parent_pid = parent->tgid;
	ent->parent_ns_inum = lrb_lttng_ns_inum(parent);
	memcpy(ent->child_comm, child->comm, TASK_COMM_LEN);
	ent->child_tid = child->pid;
	ent->child_pid = child->tgid;
	ent->child_ns_inum = lrb_lttng_ns_inum(child);
	lrb_commit(&slot);
}

/* A build-time check that the probe matches its tracepoint. */
static inline void lrb_lttng_fork_check(void)
{
	check_trace_callback_type_sched_process_fork(lrb_lttng_fork_probe);
}

static const struct lrb_lttng_record lrb_lttng_records[] = {
	{ "sched:sched_process_fork", lrb_lttng_fork_describe,
	  lrb_lttng_fork_probe, sizeof(struct lrb_lttng_fork) },
};

/**
 * lrb_lttng_record() - the record of its own an event has in the LTTng
 *	layout
 * @event: the event's ftrace name, SYSTEM:EVENT.
 *
 * Return: its description and probe; NULL if the event keeps its ftrace
 * record.
 */
const struct lrb_lttng_record *lrb_lttng_record(const char *event)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lrb_lttng_records); i++)
		if (!strcmp(lrb_lttng_records[i].name, event))
			return &lrb_lttng_records[i];
	return NULL;
}

/**
 * lrb_lttng_event_name() - the name lttng-modules gives a trace event
 * @system: the event's ftrace system.
 * @event: its ftrace name.
 * @buf: where the name goes.
 * @size: bytes at @buf.
 *
 * Return: true with the name in @buf; false if the event keeps its
 * ftrace name in the LTTng layout.
 */
bool lrb_lttng_event_name(const char *system, const char *event, char *buf,
			  size_t size)
{
	const struct lrb_lttng_event *e;
	unsigned int i;
	int len;

	/* syscalls:sys_enter_NAME and sys_exit_NAME, one per system call */
	if (!strcmp(system, "syscalls")) {
		if (str_has_prefix(event, "sys_enter_"))
			len = snprintf(buf, size, "syscall_entry_%s", event + 10);
		else if (str_has_prefix(event, "sys_exit_"))
			len = snprintf(buf, size, "syscall_exit_%s", event + 9);
		else
			return false;
		return len < size;
	}
	for (i = 0; i < ARRAY_SIZE(lrb_lttng_events); i++) {
		e = &lrb_lttng_events[i];
		if (strcmp(e->system, system) || strcmp(e->event, event))
			continue;
		return strscpy(buf, e->lttng ? e->lttng : e->event, size) > 0;
	}
	return false;
}

/* The field @field of @event (its LTTng name) as lttng-modules names it. */
static const char *lrb_lttng_field_name(const char *event, const char *field)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lrb_lttng_fields); i++)
		if (!strcmp(lrb_lttng_fields[i].ftrace, field) &&
		    glob_match(lrb_lttng_fields[i].event, event))
			return lrb_lttng_fields[i].lttng;
	return field;
}

/**
 * lrb_lttng_is_prio() - whether the LTTng layout writes a field as a
 *	priority of lttng-modules
 * @event: the event's LTTng name.
 * @field: the field's ftrace name.
 *
 * Return: true if lttng-modules writes @field as prio - MAX_RT_PRIO.
 */
bool lrb_lttng_is_prio(const char *event, const char *field)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lrb_lttng_prios); i++)
		if (!strcmp(lrb_lttng_prios[i].field, field) &&
		    glob_match(lrb_lttng_prios[i].event, event))
			return true;
	return false;
}

/* lttng-modules' bits of rwbs (include/instrumentation/events/block.h) */
enum lrb_lttng_rwbs_flag {
	LRB_RWBS_WRITE		= BIT(0),
	LRB_RWBS_DISCARD	= BIT(1),
	LRB_RWBS_READ		= BIT(2),
	LRB_RWBS_RAHEAD		= BIT(3),
	LRB_RWBS_SYNC		= BIT(5),
	LRB_RWBS_META		= BIT(6),
	LRB_RWBS_SECURE		= BIT(7),
	LRB_RWBS_FLUSH		= BIT(8),
	LRB_RWBS_FUA		= BIT(9),
	LRB_RWBS_PREFLUSH	= BIT(10),
};

/* ftrace's rwbs: text of this many bytes (RWBS_LEN, trace/events/block.h) */
#define LRB_RWBS_LEN	8

/**
 * lrb_lttng_is_rwbs() - whether the LTTng layout writes a field as the
 *	rwbs bits of lttng-modules
 * @event: the event's LTTng name.
 * @field: the field's ftrace name.
 * @size: its size in bytes.
 *
 * Return: true for the rwbs text of a block event.
 */
bool lrb_lttng_is_rwbs(const char *event, const char *field,
		       unsigned int size)
{
	return size == LRB_RWBS_LEN && !strcmp(field, "rwbs") &&
	       str_has_prefix(event, "block_");
}

/**
 * lrb_lttng_rwbs() - turn the rwbs text of a block event into the bits
 *	lttng-modules writes
 * @rwbs: the field's %LRB_RWBS_LEN bytes, as blk_fill_rwbs() wrote them.
 *
 * blk_fill_rwbs() writes F for REQ_PREFLUSH, the operation (W, D, DE for a
 * secure erase, F for a flush, R, N for any other), then F, A, S and M for
 * REQ_FUA, REQ_RAHEAD, REQ_SYNC and REQ_META. lttng-modules writes the
 * same as bits of an unsigned int, which the tools test (Trace Compass,
 * and the LTTng analyses' rwbs % 2 for a write): the field's first four
 * bytes become those bits, the others zero. Called from a probe: no
 * lock, no allocation.
 */
void lrb_lttng_rwbs(char *rwbs)
{
	const char *p = rwbs, *end = rwbs + LRB_RWBS_LEN;
	u32 bits = 0;

	if (p[0] == 'F' && p[1] && strchr("WDFRN", p[1])) {
		bits |= LRB_RWBS_PREFLUSH;
		p++;
	}
	switch (*p) {
	case 'W':
		bits |= LRB_RWBS_WRITE;
		break;
	case 'D':
		bits |= LRB_RWBS_DISCARD;
		if (p[1] == 'E') {
			bits |= LRB_RWBS_SECURE;
			p++;
		}
		break;
	case 'F':
		bits |= LRB_RWBS_FLUSH;
		break;
	case 'R':
		bits |= LRB_RWBS_READ;
		break;
	}
	for (p += !!*p; p < end && *p; p++) {
		if (*p == 'F')
			bits |= LRB_RWBS_FUA;
		else if (*p == 'A')
			bits |= LRB_RWBS_RAHEAD;
		else if (*p == 'S')
			bits |= LRB_RWBS_SYNC;
		else if (*p == 'M')
			bits |= LRB_RWBS_META;
	}
	put_unaligned(bits, (u32 *)rwbs);
	memset(rwbs + sizeof(bits), 0, LRB_RWBS_LEN - sizeof(bits));
}

/* The last @c in [@p, @end), or NULL. */
static const char *lrb_lttng_rchr(const char *p, const char *end, int c)
{
	while (end > p)
		if (*--end == c)
			return end;
	return NULL;
}

/*
 * One line of an ftrace description, as lrb_tsdl_integer(),
 * lrb_tsdl_enum() and lrb_tsdl_string() write them ("\t\tTYPE _NAME;",
 * "[N]" or "[LENGTH]" before the semicolon, a comment after it), in the
 * LTTng layout: the field renamed, an enumeration as its integer.
 */
static void lrb_lttng_line(struct seq_buf *s, const char *event,
			   const char *line, const char *eol)
{
	static const char enum_type[] = "\t\tenum : ";
	const char *end, *name, *type, *close;
	char field[LRB_LTTNG_NAME_MAX];

	end = lrb_lttng_rchr(line, eol, ';');
	if (end && end > line && end[-1] == ']')
		end = lrb_lttng_rchr(line, end, '[');
	for (name = end; name && name > line && name[-1] != ' '; name--)
		;
	if (!name || *name != '_' || end - name - 1 >= sizeof(field)) {
		seq_buf_printf(s, "%.*s\n", (int)(eol - line), line);
		return;
	}
	memcpy(field, name + 1, end - name - 1);
	field[end - name - 1] = '\0';
	if (!strncmp(end, "[" __stringify(LRB_RWBS_LEN) "];", 4) &&
	    lrb_lttng_is_rwbs(event, field, LRB_RWBS_LEN)) {
		/* lrb_lttng_rwbs()'s bits, then what it zeroed */
		lrb_tsdl_integer(s, "rwbs", 32, 0, "");
		lrb_tsdl_integer(s, "rwbs_pad", 8, 0, "[4]");
		return;
	}
	type = line;
	close = name;
	if (str_has_prefix(line, enum_type)) {
		/* "enum : integer { ... } { MAPPINGS } _NAME": the integer */
		type = line + strlen(enum_type);
		close = strchr(type, '}');
		if (!close || close > name) {
			seq_buf_printf(s, "%.*s\n", (int)(eol - line), line);
			return;
		}
		seq_buf_puts(s, "\t\t");
		close += 2;
	}
	seq_buf_printf(s, "%.*s_%s%.*s\n", (int)(close - type), type,
		       lrb_lttng_field_name(event, field), (int)(eol - end), end);
}

/**
 * lrb_lttng_describe() - a trace event's description in the LTTng layout
 * @ev: the event, with an LTTng name and its ftrace description.
 * @s: where the description goes.
 *
 * The same declarations, with lttng-modules' field names and without
 * enumerations: lttng-modules declares those fields as integers, and the
 * tools read them as numbers.
 * A block event's rwbs is lttng-modules' bits (lrb_lttng_rwbs()) and four
 * bytes of padding.
 *
 * Return: 0.
 */
int lrb_lttng_describe(struct lrb_event *ev, struct seq_buf *s)
{
	const struct lrb_lttng_record *rec = lrb_lttng_record(ev->name);
	const char *p = ev->tsdl, *eol;

	if (rec)
		return rec->describe(s);

	while (*p) {
		eol = strchrnul(p, '\n');
		lrb_lttng_line(s, ev->lttng_name, p, eol);
		p = *eol ? eol + 1 : eol;
	}
	return 0;
}
