// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record report DIR: per-CPU and per-event summary of an LRB trace
 * directory, read straight from its packets (no CTF library needed): the
 * counts, the rate of each event over the trace, its first and last
 * events, and the kernel's counters that lrb-record saved beside it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/lrb.h>

#include "lrb-record.h"

#define MAX_EVENTS	65536
#define MAX_STREAMS	1024

struct event_name {
	char *name;
	unsigned long long count;
};

static struct event_name events[MAX_EVENTS];

/* One event, for the first and last of the trace. */
struct event_at {
	unsigned long long ts;
	int cpu;
	unsigned int id;
	bool set;
};

static struct event_at first_ev, last_ev;

/* 0 if @dir holds a CTF metadata file. */
/*
 * The trace in @dir: @dir itself, or DIR/kernel, where lrb-record
 * --layout lttng puts it.
 */
static const char *lrb_trace_dir(const char *dir)
{
	static char kernel[4096];
	char path[4200];

	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (!access(path, F_OK))
		return dir;
	snprintf(kernel, sizeof(kernel), "%s/kernel", dir);
	snprintf(path, sizeof(path), "%s/metadata", kernel);
	return access(path, F_OK) ? dir : kernel;
}

int lrb_report_check(const char *dir)
{
	char path[4096];

	dir = lrb_trace_dir(dir);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	return access(path, R_OK);
}

/* Event names and ids from the TSDL: the name and id of each event block. */
static int read_metadata(const char *dir)
{
	char path[4096], line[512], name[256] = "";
	bool in_event = false;
	unsigned int id;
	FILE *f;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "lrb-record report: %s: %s%s\n", path,
			strerror(errno),
			errno == ENOENT ? " (not a trace directory)" : "");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "event {", 7)) {
			in_event = true;
			name[0] = '\0';
		} else if (in_event && sscanf(line, " name = \"%255[^\"]\";", name) == 1) {
			continue;
		} else if (in_event && sscanf(line, " id = %u;", &id) == 1) {
			if (id < MAX_EVENTS && name[0])
				events[id].name = strdup(name);
			in_event = false;
		}
	}
	fclose(f);
	return 0;
}

struct stream_sum {
	int cpu;
	unsigned long long packets, events, discarded, missing, bytes;
	unsigned long long first_ts, last_ts;
	bool bad;
};

static void note_event(unsigned long long ts, int cpu, unsigned int id)
{
	if (!first_ev.set || ts < first_ev.ts)
		first_ev = (struct event_at){ ts, cpu, id, true };
	if (!last_ev.set || ts >= last_ev.ts)
		last_ev = (struct event_at){ ts, cpu, id, true };
}

/* Count the records of one packet; false if they do not end at @csize. */
static bool read_records(const unsigned char *pkt, size_t csize,
			 struct stream_sum *s, unsigned long long ts)
{
	size_t off = sizeof(struct lrb_packet_header);

	while (off < csize) {
		const struct lrb_record_header *rh = (const void *)(pkt + off);
		const struct lrb_record_header_ext *rx = (const void *)(pkt + off);
		unsigned int id = rh->id;
		size_t hlen = sizeof(*rh);

		if (off + sizeof(*rh) > csize)
			break;
		if (id == LRB_ID_EXTENDED) {
			if (off + sizeof(*rx) > csize)
				break;
			id = rx->id;
			hlen = sizeof(*rx);
			ts = rx->ts;
		} else {
			/* The bits above 32 are those of the previous record. */
			ts = (ts & ~0xffffffffULL) | rh->ts_low;
		}
		if (id < MAX_EVENTS)
			events[id].count++;
		note_event(ts, s->cpu, id);
		s->events++;
		off += hlen + rh->len;
		if (off < csize)
			off = (off + LRB_RECORD_ALIGN - 1) &
			      ~(size_t)(LRB_RECORD_ALIGN - 1);
	}
	return off == csize;
}

static void read_stream(const char *path, struct stream_sum *s)
{
	struct lrb_packet_header ph;
	unsigned char *pkt = NULL;
	unsigned long long next_seq = 0;
	bool first = true;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		s->bad = true;
		return;
	}
	while (fread(&ph, sizeof(ph), 1, f) == 1) {
		size_t psize = ph.packet_size / 8, csize = ph.content_size / 8;
		unsigned char *p;

		if (ph.magic != LRB_PACKET_MAGIC || psize < sizeof(ph) ||
		    csize > psize || psize > (64UL << 20)) {
			s->bad = true;
			break;
		}
		p = realloc(pkt, psize);
		if (!p) {
			s->bad = true;
			break;
		}
		pkt = p;
		memcpy(pkt, &ph, sizeof(ph));
		if (fread(pkt + sizeof(ph), psize - sizeof(ph), 1, f) != 1) {
			s->bad = true;
			break;
		}
		s->cpu = ph.cpu_id;
		if (!first && ph.packet_seq_num > next_seq)
			s->missing += ph.packet_seq_num - next_seq;
		if (first)
			s->first_ts = ph.timestamp_begin;
		first = false;
		next_seq = ph.packet_seq_num + 1;
		s->discarded = ph.events_discarded;
		s->last_ts = ph.timestamp_end;
		s->packets++;
		s->bytes += psize;
		if (!read_records(pkt, csize, s, ph.timestamp_begin))
			s->bad = true;
	}
	free(pkt);
	fclose(f);
}

static const char *event_name(unsigned int id)
{
	return id < MAX_EVENTS && events[id].name ? events[id].name :
	       "(unknown id)";
}

/* The kernel's counters that lrb-record saved with the trace, if any. */
static void print_kernel_counts(const char *dir)
{
	char path[4096], *text;
	struct counts c;

	snprintf(path, sizeof(path), "%s/.lrb-stats", dir);
	text = read_all(path, NULL);
	if (!text)
		return;
	if (!parse_counts(text, &c, NULL, 0)) {
		printf("\nkernel: written %llu, delivered %llu, lost:", c.written,
		       c.delivered);
		for (int i = 0; i < NR_LOST; i++)
			printf(" %s %llu", lost_names[i], c.lost[i]);
		printf("; sub-buffers %llu, corrupt %llu\n", c.subbufs,
		       c.corrupt);
		if (c.filtered)
			printf("kernel: filtered out %llu\n", c.filtered);
	}
	free(text);
}

int lrb_report(const char *dir)
{
	static struct stream_sum sums[MAX_STREAMS];
	struct stream_sum tot = { 0 };
	unsigned long long t0 = ~0ULL, t1 = 0;
	char path[4096];
	struct dirent *de;
	int n = 0, ret = 0;
	double span;
	DIR *d;

	dir = lrb_trace_dir(dir);
	if (read_metadata(dir))
		return 1;
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "lrb-record report: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < MAX_STREAMS) {
		if (strncmp(de->d_name, "stream_", 7))
			continue;
		memset(&sums[n], 0, sizeof(sums[n]));
		sums[n].cpu = atoi(de->d_name + 7);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		read_stream(path, &sums[n]);
		n++;
	}
	closedir(d);

	printf("%-6s %10s %12s %12s %14s %12s\n", "cpu", "packets", "events",
	       "discarded", "packets_lost", "bytes");
	for (int i = 0; i < n; i++) {
		struct stream_sum *s = &sums[i];

		printf("%-6d %10llu %12llu %12llu %14llu %12llu%s\n", s->cpu, s->packets, s->events,
		       s->discarded, s->missing, s->bytes,
		       s->bad ? "  (malformed)" : "");
		tot.packets += s->packets;
		tot.events += s->events;
		tot.discarded += s->discarded;
		tot.missing += s->missing;
		tot.bytes += s->bytes;
		if (s->packets && s->first_ts < t0)
			t0 = s->first_ts;
		if (s->packets && s->last_ts > t1)
			t1 = s->last_ts;
		if (s->bad)
			ret = 1;
	}
	printf("%-6s %10llu %12llu %12llu %14llu %12llu\n\n", "total", tot.packets, tot.events,
	       tot.discarded, tot.missing, tot.bytes);
	span = t1 > t0 ? (t1 - t0) / 1e9 : 0;
	printf("%-40s %12s %12s\n", "event", "count", "per_second");
	for (int id = 0; id < MAX_EVENTS; id++) {
		if (!events[id].count)
			continue;
		printf("%-40s %12llu %12.1f\n", event_name(id), events[id].count,
		       span ? events[id].count / span : 0.0);
		if (!events[id].name)
			ret = 1;
	}
	if (span)
		printf("\nspan %.6f s (%.9f to %.9f); %s %llu; %s %llu\n",
		       span, t0 / 1e9, t1 / 1e9,
		       "events discarded (from packet headers)", tot.discarded,
		       "packets lost to overwriting", tot.missing);
	if (first_ev.set) {
		printf("first event %llu.%09llu cpu %d %s\n",
		       first_ev.ts / 1000000000, first_ev.ts % 1000000000,
		       first_ev.cpu, event_name(first_ev.id));
		printf("last event  %llu.%09llu cpu %d %s\n",
		       last_ev.ts / 1000000000, last_ev.ts % 1000000000,
		       last_ev.cpu, event_name(last_ev.id));
	}
	print_kernel_counts(dir);
	return ret;
}
