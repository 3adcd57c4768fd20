// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record: the counters of a channel, from its stats file or the copy
 * saved in a trace directory.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "lrb-record.h"

const char * const lost_names[NR_LOST] = {
	"full", "overwritten", "too_big", "nested", "nmi",
};

static void counts_add(struct counts *c, const char *key,
		       unsigned long long v)
{
	if (!strcmp(key, "written"))
		c->written += v;
	else if (!strcmp(key, "delivered"))
		c->delivered += v;
	else if (!strcmp(key, "subbufs"))
		c->subbufs += v;
	else if (!strcmp(key, "corrupt"))
		c->corrupt += v;
	else if (!strcmp(key, "filtered"))
		c->filtered += v;
	else if (!strncmp(key, "lost_", 5))
		for (int i = 0; i < NR_LOST; i++)
			if (!strcmp(key + 5, lost_names[i]))
				c->lost[i] += v;
}

/*
 * Sum the "key: value" lines of a stats file (blocks opened by "cpu: N" or
 * "cpu: total") over the CPUs below @max that @cpus selects, or take the
 * total block if @cpus is NULL; keys it does not know are skipped. @text
 * is cut up. Returns 0, or -1 if no block was selected.
 */
int parse_counts(char *text, struct counts *c, const bool *cpus, int max)
{
	bool in = false, found = false;
	char *line, *save;

	memset(c, 0, sizeof(*c));
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v;
		char key[32];
		int cpu;

		if (!strncmp(line, "cpu: ", 5)) {
			if (!strcmp(line + 5, "total"))
				in = !cpus;
			else
				in = cpus && sscanf(line + 5, "%d", &cpu) == 1 &&
				     cpu >= 0 && cpu < max && cpus[cpu];
			found |= in;
			continue;
		}
		if (in && sscanf(line, "%31[^:]: %llu", key, &v) == 2)
			counts_add(c, key, v);
	}
	return found ? 0 : -1;
}
