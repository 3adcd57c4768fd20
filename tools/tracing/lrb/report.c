// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record report DIR: per-CPU and per-event summary of an LRB trace
 * directory, read straight from its packets (no CTF library needed): the
 * counts, the rate of each event over the trace, its first and last
 * events, and the kernel's counters that lrb-record saved beside it.
 * With --symbols, the kernel stacks of the trace (kernel_stack records),
 * grouped, their addresses named from the DIR/.kallsyms saved beside it.
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

/* By compact id: 1 + the fixed payload length the metadata gives, or 0. */
static unsigned int fixed_len[LRB_ID_EXTENDED];
/* By compact id: 1 + where the payload holds its length, or 0; the base. */
static unsigned int len_at[LRB_ID_EXTENDED];
static int len_base[LRB_ID_EXTENDED];

/* One event, for the first and last of the trace. */
struct event_at {
	unsigned long long ts;
	int cpu;
	unsigned int id;
	bool set;
};

static struct event_at first_ev, last_ev;

/* --symbols: the distinct stacks, in a hash table, and their counts. */
#define STACK_BUCKETS	65536
#define STACK_TOP	10

struct stack_ent {
	struct stack_ent *next;
	unsigned int event_id, nr;
	unsigned long long count;
	unsigned long long ips[];
};

static struct stack_ent *stacks[STACK_BUCKETS];
static unsigned long long stack_records, stack_bad;
bool lrb_report_symbols;

/*
 * --symbols: the functions of the function tracer's records, in a hash
 * table: how often ftrace:function recorded each, and how many returns
 * and nanoseconds ftrace:funcgraph_exit recorded of it.
 */
#define FN_BUCKETS	16384
#define FN_TOP		20

struct fn_ent {
	struct fn_ent *next;
	unsigned long long ip, calls, returns, ns;
};

static struct fn_ent *fns[FN_BUCKETS];
static unsigned long long fn_records, graph_records, fn_bad;
static int report_functions(const char *dir);

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

/*
 * The function tracer's records begin with ftrace's common fields
 * (lrb-record --common-fields): the description of its events says.
 */
static bool fn_common;

/*
 * Event names and ids from the TSDL: the name and id of each event block,
 * and the fixed length of its records or where their payload holds it.
 */
static int read_metadata(const char *dir)
{
	char path[4096], line[512], name[256] = "";
	unsigned int id, len, last = MAX_EVENTS;
	bool in_event = false;
	bool in_fn = false;
	const char *fixed;
	FILE *f;
	int base;

	snprintf(path, sizeof(path), "%s/metadata", dir);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "lrb-record report: %s: %s%s\n", path,
			strerror(errno),
			errno == ENOENT ? " (not a trace directory)" : "");
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		fixed = strstr(line, LRB_FIXED_LEN_TSDL);
		if (fixed && last < LRB_ID_EXTENDED &&
		    sscanf(fixed + strlen(LRB_FIXED_LEN_TSDL), "%u", &len) == 1)
			fixed_len[last] = len + 1;
		fixed = strstr(line, LRB_LEN_AT_TSDL);
		if (fixed && last < LRB_ID_EXTENDED &&
		    sscanf(fixed + strlen(LRB_LEN_AT_TSDL), "%u %d", &len,
			   &base) == 2) {
			len_at[last] = len + 1;
			len_base[last] = base;
		}
		if (in_fn && strstr(line, " _common_pid;"))
			fn_common = true;
		if (!strncmp(line, "event {", 7)) {
			in_event = true;
			in_fn = false;
			name[0] = '\0';
			last = MAX_EVENTS;
		} else if (in_event && sscanf(line, " name = \"%255[^\"]\";", name) == 1) {
			continue;
		} else if (in_event && sscanf(line, " id = %u;", &id) == 1) {
			if (id < MAX_EVENTS && name[0])
				events[id].name = strdup(name);
			last = id;
			in_event = false;
			in_fn = !strncmp(name, "ftrace:", 7);
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

/*
 * Decode the record at @off of a packet whose records end at @csize: its
 * id, its timestamp (@ts holds the previous record's), where its payload
 * starts and its length. The offset of the next record, or 0 if the
 * record does not fit.
 */
static size_t record_at(const unsigned char *pkt, size_t off, size_t csize,
			unsigned int *id, unsigned long long *ts,
			size_t *data, size_t *len)
{
	const struct lrb_record_header_ext *rx = (const void *)(pkt + off);
	size_t hlen = LRB_HEADER_SIZE, at;
	unsigned long long low;
	__u16 len16;
	__u32 word;
	long slen;

	if (off + LRB_HEADER_SIZE > csize)
		return 0;
	memcpy(&word, pkt + off, sizeof(word));
	*id = LRB_HEADER_ID(word);
	if (*id == LRB_ID_EXTENDED) {
		hlen = sizeof(*rx);
		if (off + hlen > csize)
			return 0;
		*id = rx->id;
		*ts = rx->ts;
	} else {
		/* The bits above 27 of the previous record, plus a wrap. */
		low = LRB_HEADER_TS(word);
		if (low < (*ts & LRB_TS_MASK))
			*ts += 1ULL << LRB_TS_BITS;
		*ts = (*ts & ~(unsigned long long)LRB_TS_MASK) | low;
	}
	if (*id < LRB_ID_EXTENDED && fixed_len[*id]) {
		*len = fixed_len[*id] - 1;
	} else if (*id < LRB_ID_EXTENDED && len_at[*id]) {
		/* The u32 at byte len_at - 1 of the payload: halves less base */
		at = off + hlen + len_at[*id] - 1;
		if (at + sizeof(word) > csize)
			return 0;
		memcpy(&word, pkt + at, sizeof(word));
		slen = (long)(word & 0xffff) + (word >> 16) - len_base[*id];
		if (slen < (long)(at + sizeof(word) - off - hlen))
			return 0;
		*len = slen;
	} else {
		if (off + hlen + LRB_LEN_SIZE > csize)
			return 0;
		memcpy(&len16, pkt + off + hlen, sizeof(len16));
		*len = len16;
		hlen += LRB_LEN_SIZE;
	}
	*data = off + hlen;
	if (*len > csize - *data)
		return 0;
	return *data + *len;
}

/* Count the stack of a kernel_stack record, its payload @p of @len bytes. */
static void note_stack(const unsigned char *p, size_t len)
{
	unsigned int event_id, nr;
	unsigned long long h = 14695981039346656037ULL;
	struct stack_ent *e;

	if (len < 8) {
		stack_bad++;
		return;
	}
	memcpy(&event_id, p, 4);
	memcpy(&nr, p + 4, 4);
	if (len < 8 + 8ULL * nr) {
		stack_bad++;
		return;
	}
	stack_records++;
	/* FNV-1a over the id and the addresses */
	for (size_t i = 0; i < 8 + 8ULL * nr; i++)
		h = (h ^ p[i]) * 1099511628211ULL;
	for (e = stacks[h % STACK_BUCKETS]; e; e = e->next)
		if (e->event_id == event_id && e->nr == nr &&
		    !memcmp(e->ips, p + 8, 8ULL * nr)) {
			e->count++;
			return;
		}
	e = malloc(sizeof(*e) + 8ULL * nr);
	if (!e) {
		stack_bad++;
		return;
	}
	e->event_id = event_id;
	e->nr = nr;
	e->count = 1;
	memcpy(e->ips, p + 8, 8ULL * nr);
	e->next = stacks[h % STACK_BUCKETS];
	stacks[h % STACK_BUCKETS] = e;
}

static struct fn_ent *fn_get(unsigned long long ip)
{
	struct fn_ent **head = &fns[(ip >> 4) % FN_BUCKETS], *e;

	for (e = *head; e; e = e->next)
		if (e->ip == ip)
			return e;
	e = calloc(1, sizeof(*e));
	if (e) {
		e->ip = ip;
		e->next = *head;
		*head = e;
	}
	return e;
}

/* An address of @size bytes (that of the kernel's unsigned long) at @p. */
static unsigned long long read_word(const unsigned char *p, size_t size)
{
	unsigned int w32;
	unsigned long long w64;

	if (size == 4) {
		memcpy(&w32, p, 4);
		return w32;
	}
	memcpy(&w64, p, 8);
	return w64;
}

/*
 * Count the function of a function tracer record, its payload @p of @len
 * bytes: ftrace's entry, 8 bytes of common fields (if fn_common) then,
 * for ftrace:function, ip and parent_ip; for ftrace:funcgraph_exit, func,
 * depth, overrun, calltime and rettime, packed. The kernel's word size
 * is what the length of the entry leaves.
 */
static void note_function(const unsigned char *p, size_t len, bool ret)
{
	unsigned long long calltime, rettime;
	size_t first = fn_common ? 8 : 0, full = len + 8 - first;
	size_t word = ret ? full - 32 : (full - 8) / 2;
	struct fn_ent *e;

	if ((ret && full != 36 && full != 40) ||
	    (!ret && full != 16 && full != 24)) {
		fn_bad++;
		return;
	}
	e = fn_get(read_word(p + first, word));
	if (!e) {
		fn_bad++;
		return;
	}
	if (!ret) {
		fn_records++;
		e->calls++;
		return;
	}
	graph_records++;
	memcpy(&calltime, p + len - 16, 8);
	memcpy(&rettime, p + len - 8, 8);
	e->returns++;
	e->ns += rettime - calltime;
}

/* Count a function tracer record of event @id, its payload @p of @len bytes. */
static void note_fn_record(unsigned int id, const unsigned char *p, size_t len)
{
	const char *name = id < MAX_EVENTS ? events[id].name : NULL;

	if (name && !strcmp(name, "ftrace:function"))
		note_function(p, len, false);
	else if (name && !strcmp(name, "ftrace:funcgraph_exit"))
		note_function(p, len, true);
}

/* Count the records of one packet; false if they do not end at @csize. */
static bool read_records(const unsigned char *pkt, size_t csize,
			 struct stream_sum *s, unsigned long long ts)
{
	size_t off = sizeof(struct lrb_packet_header), next, data, len;
	unsigned int id;

	while (off < csize) {
		next = record_at(pkt, off, csize, &id, &ts, &data, &len);
		if (!next)
			break;
		if (id < MAX_EVENTS)
			events[id].count++;
		note_event(ts, s->cpu, id);
		if (lrb_report_symbols && id < MAX_EVENTS && events[id].name &&
		    !strcmp(events[id].name, "kernel_stack"))
			note_stack(pkt + data, len);
		if (lrb_report_symbols)
			note_fn_record(id, pkt + data, len);
		s->events++;
		off = next;
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
	if (lrb_report_symbols && report_functions(dir))
		ret = 1;
	return ret;
}

/* A kernel symbol of DIR/.kallsyms. */
struct ksym {
	unsigned long long addr;
	char *name;
};

static struct ksym *ksyms;
static size_t nr_ksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The text symbols of @path, sorted; 0 if it has any with addresses. */
static int read_kallsyms(const char *path)
{
	char line[600], name[520], mod[80], full[610], type;
	unsigned long long addr;
	size_t cap = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	/* Read once: the functions and the stacks of a report both name. */
	if (nr_ksyms) {
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%llx %c %519s %79s", &addr, &type, name, mod);

		if (n < 3 || !addr || (type != 't' && type != 'T'))
			continue;
		if (nr_ksyms == cap) {
			struct ksym *k;

			cap = cap ? 2 * cap : 65536;
			k = realloc(ksyms, cap * sizeof(*ksyms));
			if (!k)
				break;
			ksyms = k;
		}
		snprintf(full, sizeof(full), "%s%s%s", name, n == 4 ? " " : "",
			 n == 4 ? mod : "");
		ksyms[nr_ksyms].addr = addr;
		ksyms[nr_ksyms].name = strdup(full);
		if (ksyms[nr_ksyms].name)
			nr_ksyms++;
	}
	fclose(f);
	qsort(ksyms, nr_ksyms, sizeof(*ksyms), ksym_cmp);
	return nr_ksyms ? 0 : -1;
}

/* @ip as function+offset, or in hex if no symbol holds it. */
static void print_ip(unsigned long long ip)
{
	size_t lo = 0, hi = nr_ksyms;

	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;

		if (ksyms[mid].addr <= ip)
			lo = mid;
		else
			hi = mid;
	}
	if (nr_ksyms && ksyms[lo].addr <= ip)
		printf("\t%s+0x%llx\n", ksyms[lo].name, ip - ksyms[lo].addr);
	else
		printf("\t0x%llx\n", ip);
}

static int stack_cmp(const void *a, const void *b)
{
	const struct stack_ent *x = *(void * const *)a, *y = *(void * const *)b;

	if (x->event_id != y->event_id)
		return x->event_id < y->event_id ? -1 : 1;
	return x->count > y->count ? -1 : x->count < y->count;
}

/*
 * lrb-record report --symbols: after lrb_report(), which collected them,
 * the stacks of each event, the most frequent first, named from
 * DIR/.kallsyms. 1 if the trace has malformed stack records.
 */
int lrb_report_stacks(const char *dir)
{
	struct stack_ent **all, *e;
	size_t n = 0, i, j;
	char path[4200];

	dir = lrb_trace_dir(dir);
	printf("\nkernel stacks: %llu\n", stack_records);
	if (!stack_records)
		return stack_bad ? 1 : 0;
	snprintf(path, sizeof(path), "%s/.kallsyms", dir);
	if (read_kallsyms(path))
		printf("(no symbols: %s has none; addresses in hex)\n", path);
	for (i = 0; i < STACK_BUCKETS; i++)
		for (e = stacks[i]; e; e = e->next)
			n++;
	all = malloc(n * sizeof(*all));
	if (!all)
		return 1;
	n = 0;
	for (i = 0; i < STACK_BUCKETS; i++)
		for (e = stacks[i]; e; e = e->next)
			all[n++] = e;
	qsort(all, n, sizeof(*all), stack_cmp);
	for (i = 0; i < n; i = j) {
		unsigned long long with = 0;
		unsigned int id = all[i]->event_id, shown = 0;

		for (j = i; j < n && all[j]->event_id == id; j++)
			with += all[j]->count;
		printf("\n%s: %llu of %llu records with a stack, %zu distinct\n",
		       event_name(id), with, id < MAX_EVENTS ? events[id].count : 0ULL,
		       j - i);
		for (size_t k = i; k < j && shown < STACK_TOP; k++, shown++) {
			printf("  %llu times:\n", all[k]->count);
			for (unsigned int f = 0; f < all[k]->nr; f++)
				print_ip(all[k]->ips[f]);
		}
		if (j - i > STACK_TOP)
			printf("  (%zu more)\n", j - i - STACK_TOP);
	}
	free(all);
	if (stack_bad)
		printf("malformed kernel_stack records: %llu\n", stack_bad);
	return stack_bad ? 1 : 0;
}

static int fn_calls_cmp(const void *a, const void *b)
{
	const struct fn_ent *x = *(void * const *)a, *y = *(void * const *)b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

static int fn_ns_cmp(const void *a, const void *b)
{
	const struct fn_ent *x = *(void * const *)a, *y = *(void * const *)b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->ip < y->ip ? -1 : x->ip > y->ip;
}

/*
 * lrb-record report --symbols: at the end of lrb_report(), the functions
 * of the function tracer's records, named from DIR/.kallsyms: those
 * ftrace:function recorded most often, then those whose returns
 * (ftrace:funcgraph_exit) took the most time. 1 if the trace has
 * malformed ones.
 */
static int report_functions(const char *dir)
{
	struct fn_ent **all, *e;
	char path[4200];
	size_t n = 0, i;

	if (!fn_records && !graph_records)
		return fn_bad ? 1 : 0;
	snprintf(path, sizeof(path), "%s/.kallsyms", dir);
	if (read_kallsyms(path))
		printf("(no symbols: %s has none; addresses in hex)\n", path);
	for (i = 0; i < FN_BUCKETS; i++)
		for (e = fns[i]; e; e = e->next)
			n++;
	all = malloc(n * sizeof(*all));
	if (!all)
		return 1;
	n = 0;
	for (i = 0; i < FN_BUCKETS; i++)
		for (e = fns[i]; e; e = e->next)
			all[n++] = e;
	if (fn_records) {
		size_t called = 0;

		qsort(all, n, sizeof(*all), fn_calls_cmp);
		while (called < n && all[called]->calls)
			called++;
		printf("\nfunctions: %llu ftrace:function records, %zu functions\n",
		       fn_records, called);
		printf("%12s\t%s\n", "calls", "function");
		for (i = 0; i < called && i < FN_TOP; i++) {
			printf("%12llu", all[i]->calls);
			print_ip(all[i]->ip);
		}
		if (called > FN_TOP)
			printf("%12s\t(%zu more)\n", "", called - FN_TOP);
	}
	if (graph_records) {
		size_t returned = 0;

		qsort(all, n, sizeof(*all), fn_ns_cmp);
		for (i = 0; i < n; i++)
			returned += !!all[i]->returns;
		printf("\nfunction returns: %llu ftrace:funcgraph_exit records, %zu functions\n",
		       graph_records, returned);
		printf("%12s %14s %12s\t%s\n", "returns", "total_ns", "mean_ns",
		       "function");
		for (i = 0; i < n && i < FN_TOP && all[i]->returns; i++) {
			printf("%12llu %14llu %12llu", all[i]->returns,
			       all[i]->ns, all[i]->ns / all[i]->returns);
			print_ip(all[i]->ip);
		}
		if (returned > FN_TOP)
			printf("%12s\t(%zu more)\n", "", returned - FN_TOP);
	}
	free(all);
	if (fn_bad)
		printf("malformed function tracer records: %llu\n", fn_bad);
	return fn_bad ? 1 : 0;
}
