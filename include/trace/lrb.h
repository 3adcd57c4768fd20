/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The LRB stage of the TRACE_EVENT machinery, included by define_trace.h
 * after the ftrace, perf and BPF stages.
 *
 * For every event class it generates lrb_trace_event_<class>(), a
 * tracepoint probe whose data is the (event, channel) pair the LRB event
 * registry attached (kernel/trace/lrb_trace_events.c). The probe computes
 * the size of the record as the ftrace stage does, reserves it in the
 * channel, fills the common fields, runs the event's own TP_fast_assign()
 * straight into the reserved slot and commits. The record is the ftrace
 * entry, byte for byte, so the CTF metadata is generated from the same
 * field descriptions that ftrace's format files print; only the tail
 * padding of the fixed part, which ftrace keeps after the dynamic data,
 * is left out, so a reader that decodes the fields in order ends exactly
 * at the end of the record.
 */

#undef TRACE_SYSTEM_VAR

#ifdef CONFIG_LRB_TRACE_EVENTS

#include <linux/lrb.h>

/*
 * __entry, the __get_*() accessors and the __assign_*() helpers of
 * TP_fast_assign(), as the perf and BPF stages take them; __perf_count()
 * and __perf_task() are the identity there, which is what LRB wants.
 */
#include "stages/stage6_event_callback.h"

/* The print format, last, is the ftrace stage's: unnamed here. */
#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, ...)	\
static notrace void							\
lrb_trace_event_##call(void *__data, proto)				\
{									\
	struct trace_event_data_offsets_##call __maybe_unused __data_offsets;\
	struct trace_event_raw_##call *entry;				\
	struct lrb_slot __slot __uninitialized;	/* lrb_reserve() fills it */ \
	int __data_size;						\
									\
	__data_size = trace_event_get_offsets_##call(&__data_offsets, args); \
									\
	entry = lrb_trace_event_reserve(__data, &__slot,		\
			offsetof(typeof(*entry), __data) + __data_size); \
	if (!entry)							\
		return;							\
									\
	tstruct								\
									\
	{ assign; }							\
									\
	lrb_trace_event_commit(__data, entry, &__slot);			\
}

/*
 * Compiled out: a build-time check that the probe still matches its
 * tracepoint, as the perf stage has.
 */
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, call, ...)				\
static inline void lrb_test_probe_##call(void)				\
{									\
	check_trace_callback_type_##call(lrb_trace_event_##template);	\
}

#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, name, ...)	DEFINE_EVENT(template, name)

#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#endif /* CONFIG_LRB_TRACE_EVENTS */
