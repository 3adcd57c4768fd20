// SPDX-License-Identifier: GPL-2.0
/*
 * A module with LRB markers: a loadable example of LRB_MARK(), and what
 * the tests load and unload while tracing.
 *
 *	insmod lrb_sample.ko burst=N
 *
 * records N lrb_sample_burst events (seq 0..N-1, tag "burst") and one
 * lrb_sample_site event at load, and one lrb_sample_bye event (total = N)
 * at unload, in the channels that enabled them (lrb/NAME/events). Each
 * burst step also hits the trace event lrb_sample:lrb_sample_step, which
 * ftrace and LRB record alike.
 */
#include <linux/lrb_marker.h>
#include <linux/module.h>

#define CREATE_TRACE_POINTS
#include "lrb_sample_trace.h"

static unsigned int burst;
module_param(burst, uint, 0444);
MODULE_PARM_DESC(burst, "lrb_sample_burst events to record at load");

/*
 * One marker and nothing else: the tests disassemble it to show that a
 * disabled site is a NOP with no load, and that CONFIG_LRB_MARKERS=n
 * leaves no code at all (__used keeps the function, empty then).
 */
static noinline __used void lrb_sample_site(u32 v)
{
	LRB_MARK(lrb_sample_site, u32, v, v);
}

static int __init lrb_sample_init(void)
{
	unsigned int i;

	for (i = 0; i < burst; i++) {
		LRB_MARK(lrb_sample_burst, u32, seq, i, string, tag, "burst");
		trace_lrb_sample_step(i, "step");
	}
	lrb_sample_site(burst);
	return 0;
}

static void __exit lrb_sample_exit(void)
{
	LRB_MARK(lrb_sample_bye, u32, total, burst);
}

module_init(lrb_sample_init);
module_exit(lrb_sample_exit);
MODULE_DESCRIPTION("LRB markers sample");
MODULE_LICENSE("GPL");
