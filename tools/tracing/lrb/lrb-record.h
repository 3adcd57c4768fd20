/* SPDX-License-Identifier: GPL-2.0 */
/* lrb-record: what its commands share. */
#ifndef LRB_RECORD_H
#define LRB_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#define NR_LOST		5

/* The causes of loss, as the stats file names them after "lost_". */
extern const char * const lost_names[NR_LOST];

/* Counters of a channel, from its stats file. */
struct counts {
	unsigned long long written, delivered, lost[NR_LOST], subbufs, corrupt;
	/* records the channel's filters refused, counted in written */
	unsigned long long filtered;
};

int parse_counts(char *text, struct counts *c, const bool *cpus, int max);
char *read_all(const char *path, size_t *lenp);
int lrb_report_check(const char *dir);
int lrb_report(const char *dir);
int lrb_report_stacks(const char *dir);
const char *probe_check(const char *opt, const char *def);
int probe_create(const char *tracefs, const char *opt, const char *def,
		 bool keep, char *event, size_t size);
/* lrb-record report --symbols: lrb_report() collects the stacks */
extern bool lrb_report_symbols;

#endif
