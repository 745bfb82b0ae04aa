/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: the kernel's per-watch and per-caller counters
 * (trace_stat/ksym_tracer and trace_stat/ksym_callers), parsed, and the
 * difference between two readings. Pure: unit tested on the host.
 */
#ifndef KSYM_CTL_STATS_H
#define KSYM_CTL_STATS_H

#include <stdio.h>

#include "utils.h"

struct stat_row {
	char		*target;	/* as ksym_trace_filter shows it */
	char		*name;		/* TARGET/LEN (watch) or caller */
	char		access[8];	/* watch rows */
	unsigned long	hits;
};

struct ksym_stats {
	struct stat_row	*watch;		/* one per watch */
	int		nr_watch;
	struct stat_row	*caller;	/* one per watch and caller */
	int		nr_caller;
};

/* Parse the two files' text (either may be NULL); 0 or -1. */
int stats_parse(struct ksym_stats *st, const char *watches_text,
		const char *callers_text);

/* Subtract @before from @st (rows matched by target and name). */
/*
 * The row of @target (and of caller @name, if not NULL) in @rows, or NULL;
 * as strchr(), the row is the caller's to change if @rows is.
 */
struct stat_row *stats_find_row(const struct stat_row *rows, int nr,
			       const char *target, const char *name);
void stats_sub(struct ksym_stats *st, const struct ksym_stats *before);

/* Hits of a watch, by target; -1 when it has no row. */
long stats_watch_hits(const struct ksym_stats *st, const char *target);

/* Caller rows sorted: in @targets' order, most hits first, [other] last. */
void stats_sort_callers(struct ksym_stats *st, const struct strv *targets);

/*
 * Print the watches of @targets: their hits, and their callers with hits
 * and share, as a table under @title or as JSON (@json). @wall_s > 0
 * adds the time.
 */
void stats_print(FILE *f, const struct ksym_stats *st,
		 const struct strv *targets, int json, const char *title,
		 double wall_s);

void stats_free(struct ksym_stats *st);

#endif
