/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace event of lrb_bench's table 5: a typical payload of five
 * integers and a string, recorded by LRB's probe or by ftrace's.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM lrb_bench

#if !defined(_LRB_BENCH_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _LRB_BENCH_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(lrb_bench_event,
	    TP_PROTO(int a, int b, int c, int d, int e, const char *s),
	    TP_ARGS(a, b, c, d, e, s),
	    TP_STRUCT__entry(__field(int, a)
			     __field(int, b)
			     __field(int, c)
			     __field(int, d)
			     __field(int, e)
			     __string(s, s)),
	    TP_fast_assign(__entry->a = a;
			   __entry->b = b;
			   __entry->c = c;
			   __entry->d = d;
			   __entry->e = e;
			   __assign_str(s);),
	    TP_printk("a=%d b=%d c=%d d=%d e=%d s=%s", __entry->a, __entry->b,
		      __entry->c, __entry->d, __entry->e, __get_str(s)));

#endif /* _LRB_BENCH_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE lrb_bench_trace
#include <trace/define_trace.h>
