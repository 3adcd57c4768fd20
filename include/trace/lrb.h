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

#undef __entry
#define __entry entry

#undef __get_dynamic_array
#define __get_dynamic_array(field)	\
		((void *)__entry + (__entry->__data_loc_##field & 0xffff))

#undef __get_dynamic_array_len
#define __get_dynamic_array_len(field)	\
		((__entry->__data_loc_##field >> 16) & 0xffff)

#undef __get_str
#define __get_str(field) ((char *)__get_dynamic_array(field))

#undef __get_bitmask
#define __get_bitmask(field) ((char *)__get_dynamic_array(field))

#undef __get_cpumask
#define __get_cpumask(field) ((char *)__get_dynamic_array(field))

#undef __get_sockaddr
#define __get_sockaddr(field) ((struct sockaddr *)__get_dynamic_array(field))

#undef __get_rel_dynamic_array
#define __get_rel_dynamic_array(field)	\
		((void *)__entry +					\
		 offsetof(typeof(*__entry), __rel_loc_##field) +	\
		 sizeof(__entry->__rel_loc_##field) +			\
		 (__entry->__rel_loc_##field & 0xffff))

#undef __get_rel_dynamic_array_len
#define __get_rel_dynamic_array_len(field)	\
		((__entry->__rel_loc_##field >> 16) & 0xffff)

#undef __get_rel_str
#define __get_rel_str(field) ((char *)__get_rel_dynamic_array(field))

#undef __get_rel_bitmask
#define __get_rel_bitmask(field) ((char *)__get_rel_dynamic_array(field))

#undef __get_rel_cpumask
#define __get_rel_cpumask(field) ((char *)__get_rel_dynamic_array(field))

#undef __get_rel_sockaddr
#define __get_rel_sockaddr(field) ((struct sockaddr *)__get_rel_dynamic_array(field))

#undef __perf_count
#define __perf_count(c)	(c)

#undef __perf_task
#define __perf_task(t)	(t)

#undef DECLARE_EVENT_CLASS
#define DECLARE_EVENT_CLASS(call, proto, args, tstruct, assign, print)	\
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
	lrb_commit(&__slot);						\
}

/*
 * Compiled out: a build-time check that the probe still matches its
 * tracepoint, as the perf stage has.
 */
#undef DEFINE_EVENT
#define DEFINE_EVENT(template, call, proto, args)			\
static inline void lrb_test_probe_##call(void)				\
{									\
	check_trace_callback_type_##call(lrb_trace_event_##template);	\
}

#undef DEFINE_EVENT_PRINT
#define DEFINE_EVENT_PRINT(template, name, proto, args, print)	\
	DEFINE_EVENT(template, name, PARAMS(proto), PARAMS(args))

#include TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#endif /* CONFIG_LRB_TRACE_EVENTS */
