/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace event of the LRB sample module: module trace events are
 * recorded into LRB channels like built-in ones (CONFIG_LRB_TRACE_EVENTS).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lrb_sample

#if !defined(_LRB_SAMPLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _LRB_SAMPLE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(lrb_sample_step,
	    TP_PROTO(unsigned int seq, const char *tag),
	    TP_ARGS(seq, tag),
	    TP_STRUCT__entry(__field(unsigned int, seq)
			     __string(tag, tag)
			     __array(u8, bytes, 3)),
	    TP_fast_assign(__entry->seq = seq;
			   __assign_str(tag);
			   __entry->bytes[0] = seq;
			   __entry->bytes[1] = seq >> 8;
			   __entry->bytes[2] = 0xab;),
	    TP_printk("seq=%u tag=%s", __entry->seq, __get_str(tag)));

#endif /* _LRB_SAMPLE_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE lrb_sample_trace
#include <trace/define_trace.h>
