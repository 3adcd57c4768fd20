// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record report DIR: per-event and per-CPU summary of an LRB trace
 * directory, read straight from its packets (no CTF library needed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/lrb.h>

#define MAX_EVENTS	65536

struct event_name {
	char *name;
	__u64 count;
};

static struct event_name events[MAX_EVENTS];

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
		fprintf(stderr, "lrb-record report: %s: %s\n", path, strerror(errno));
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
	__u64 packets, events, discarded, missing, bytes;
	__u64 first_ts, last_ts;
	bool bad;
};

static void read_stream(const char *path, struct stream_sum *s)
{
	struct lrb_packet_header ph;
	unsigned char *pkt = NULL;
	__u64 next_seq = 0;
	bool first = true;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		s->bad = true;
		return;
	}
	while (fread(&ph, sizeof(ph), 1, f) == 1) {
		size_t psize = ph.packet_size / 8, csize = ph.content_size / 8;
		size_t off = sizeof(ph);

		if (ph.magic != LRB_PACKET_MAGIC || psize < sizeof(ph) ||
		    csize > psize || psize > (64UL << 20)) {
			s->bad = true;
			break;
		}
		pkt = realloc(pkt, psize);
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
		while (off < csize) {
			const struct lrb_record_header *rh = (void *)(pkt + off);
			const struct lrb_record_header_ext *rx = (void *)(pkt + off);
			unsigned int id = rh->id;
			size_t hlen = sizeof(*rh);

			if (off + sizeof(*rh) > csize)
				break;
			if (id == LRB_ID_EXTENDED) {
				id = rx->id;
				hlen = sizeof(*rx);
			}
			if (id < MAX_EVENTS)
				events[id].count++;
			s->events++;
			off += hlen + rh->len;
			if (off < csize)
				off = (off + LRB_RECORD_ALIGN - 1) &
				      ~(size_t)(LRB_RECORD_ALIGN - 1);
		}
		if (off != csize)
			s->bad = true;
	}
	free(pkt);
	fclose(f);
}

int lrb_report(const char *dir)
{
	struct stream_sum sums[1024], tot = { 0 };
	__u64 t0 = ~0ULL, t1 = 0;
	char path[4096];
	struct dirent *de;
	int n = 0, ret = 0;
	DIR *d;

	if (read_metadata(dir))
		return 1;
	d = opendir(dir);
	if (!d) {
		fprintf(stderr, "lrb-record report: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(d)) && n < 1024) {
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
	printf("%-32s %12s\n", "event", "count");
	for (int id = 0; id < MAX_EVENTS; id++) {
		if (!events[id].count)
			continue;
		printf("%-32s %12llu\n",
		       events[id].name ? events[id].name : "(unknown id)",
		       events[id].count);
		if (!events[id].name)
			ret = 1;
	}
	if (t1 > t0)
		printf("\nspan %.6f s; events discarded (from packet headers) %llu; %s %llu\n",
		       (t1 - t0) / 1e9, tot.discarded,
		       "packets lost to overwriting", tot.missing);
	return ret;
}
