// SPDX-License-Identifier: GPL-2.0
/*
 * lrb-record: the dynamic events a recording creates (--kprobe,
 * --uprobe, --probe, --function) in ftrace's dynamic_events, where a
 * channel's selectors take them as any event; removed after the
 * recording unless --keep-probes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lrb-record.h"

#define MAX_PROBES	64

/* The events created, as GROUP/EVENT, for their removal. */
static char *created[MAX_PROBES];
static int nr_created;
static char dynamic_events[600], error_log[600];

/* Append @line to dynamic_events, as ">>" does: 0 or -errno. */
static int append_line(const char *line)
{
	ssize_t n;
	int fd;

	fd = open(dynamic_events, O_WRONLY | O_APPEND);
	if (fd < 0)
		return -errno;
	n = write(fd, line, strlen(line));
	n = n < 0 ? -errno : 0;
	close(fd);
	return n;
}

/* The last entry of ftrace's error_log, the kernel's message, to stderr. */
static void print_last_error(void)
{
	char *log = read_all(error_log, NULL), *last = NULL, *p;

	for (p = log; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		if (*p == '[')
			last = p;
	if (last)
		fprintf(stderr, "%s", last);
	free(log);
}

/* Whether @text has the line @line, @len bytes, whole. */
static bool has_line(const char *text, const char *line, size_t len)
{
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
		if (!strncmp(p, line, len) && (p[len] == '\n' || !p[len]))
			return true;
	return false;
}

/*
 * The GROUP/EVENT of the line of @after that @before lacks, into @buf:
 * the event a definition created, however ftrace named it.
 */
static bool new_event(const char *before, const char *after, char *buf,
		      size_t size)
{
	const char *p, *end, *colon, *sp;

	for (p = after; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, '\n');
		if (has_line(before, p, end - p))
			continue;
		colon = memchr(p, ':', end - p);
		sp = memchr(p, ' ', end - p);
		if (!colon || !sp || colon > sp)
			continue;
		snprintf(buf, size, "%.*s", (int)(sp - colon - 1), colon + 1);
		return true;
	}
	return false;
}

/* Remove the events created, newest first; warn of those kept. */
static void probes_remove(void)
{
	char line[300];
	int err;

	while (nr_created) {
		char *ev = created[--nr_created];

		snprintf(line, sizeof(line), "-:%s\n", ev);
		err = append_line(line);
		if (err)
			fprintf(stderr, "lrb-record: %s not removed: %s\n", ev,
				strerror(-err));
		free(ev);
	}
}

/**
 * probe_check() - check a probe definition before anything is created
 * @opt: the option, for the message.
 * @def: the definition.
 *
 * Return: NULL, or what is wrong with it.
 */
const char *probe_check(const char *opt, const char *def)
{
	const char *target = strchr(def, ' ');
	bool uprobe = !strcmp(opt, "--uprobe");
	size_t len;

	if (strchr(def, '\n') || strlen(def) > 1000)
		return "one line of at most 1000 bytes";
	if ((def[0] != 'p' && def[0] != 'r') || !target)
		return "p[:[GROUP/]EVENT] TARGET [ARGS] or r[N][:[GROUP/]EVENT] TARGET [ARGS]";
	target += strspn(target, " ");
	len = strcspn(target, " ");
	/*
	 * ftrace takes a target with a path (PATH:OFFSET) for a uprobe, and
	 * [MOD:]SYMBOL[+OFFSET] or an address for a kprobe.
	 */
	if (uprobe && !memchr(target, '/', len))
		return "a uprobe's target is PATH:OFFSET";
	if (!uprobe && memchr(target, '/', len))
		return "a target with a path is a uprobe's: use --uprobe";
	return NULL;
}

/**
 * probe_create() - create a dynamic event for the recording
 * @tracefs: where tracefs is mounted.
 * @opt: the option that asked for it, for messages.
 * @def: its line of dynamic_events (probe_check() took it).
 * @keep: leave it after the recording.
 * @event: its SYSTEM:EVENT, out, for the channel to enable.
 * @size: bytes of @event.
 *
 * Return: 0, or -errno after the kernel's message (error_log) is printed.
 */
int probe_create(const char *tracefs, const char *opt, const char *def,
		 bool keep, char *event, size_t size)
{
	char *before, *after, line[1100], *slash;
	bool found;
	int err;

	snprintf(dynamic_events, sizeof(dynamic_events), "%s/dynamic_events",
		 tracefs);
	snprintf(error_log, sizeof(error_log), "%s/error_log", tracefs);
	if (nr_created == MAX_PROBES) {
		fprintf(stderr, "lrb-record: %s: more than %d probes\n", opt,
			MAX_PROBES);
		return -E2BIG;
	}
	before = read_all(dynamic_events, NULL);
	if (!before)
		return -errno;
	snprintf(line, sizeof(line), "%s\n", def);
	err = append_line(line);
	if (err) {
		print_last_error();
		free(before);
		return err;
	}
	after = read_all(dynamic_events, NULL);
	found = after && new_event(before, after, event, size);
	free(before);
	free(after);
	if (!found) {
		fprintf(stderr, "lrb-record: %s '%s': created, but not found in %s\n",
			opt, def, dynamic_events);
		return -ENOENT;
	}
	if (!keep) {
		if (!nr_created)
			atexit(probes_remove);
		created[nr_created++] = strdup(event);
	}
	/* GROUP/EVENT is SYSTEM:EVENT for a channel. */
	slash = strchr(event, '/');
	if (slash)
		*slash = ':';
	return 0;
}
