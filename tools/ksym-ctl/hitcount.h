/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: hits counted from the tracer's ksym_hit entries rather than
 * from the kernel's counters. stat -p and top -p need it: trace_stat counts
 * every task's hits, while the entries of ksym-ctl's instance are only
 * those of the tasks in its set_event_pid. Each hit goes to the watch it
 * came from and to its accessor, and the result reads like
 * trace_stat/ksym_tracer and ksym_callers (struct ksym_stats). Pure: fed
 * hits and unit tested on the host; ksym_tracefs.c reads the entries.
 */
#ifndef KSYM_CTL_HITCOUNT_H
#define KSYM_CTL_HITCOUNT_H

#include "kallsyms.h"
#include "stats.h"
#include "utils.h"

struct hc_watch {
	char			*target;	/* as ksym_trace_filter shows it */
	unsigned int		len;
	char			access[8];
	bool			ours;		/* one of the session's watches */
	unsigned long long	addr;		/* 0: not known here */
	unsigned long		hits;
};

struct hc_caller {
	int		watch;
	char		*name;
	unsigned long	hits;
};

struct hitcount {
	struct kallsyms		syms;
	struct hc_watch		*w;
	int			nr_w;
	struct hc_caller	*c;
	int			nr_c;
	unsigned long		unattributed;	/* hits of ours, watch unknown */
	unsigned long		missed;		/* events the reader missed */
};

/*
 * @filter is ksym_trace_filter's text, every watch (those of others too:
 * their hits are told apart from ours); @targets the session's watches;
 * @kallsyms /proc/kallsyms's text (taken over). Each watch's address is
 * found from its TARGET when kallsyms tells it: SYMBOL, SYMBOL+OFFSET,
 * MODULE:SYMBOL, 0xADDRESS. 0, or -1 with a message.
 */
int hitcount_init(struct hitcount *hc, const char *filter,
		  const struct strv *targets, char *kallsyms);

/*
 * One ksym_hit: the watch's name (its "sym" field, the TARGET without a
 * cast; NULL from a kernel whose entries have none), its address, length
 * and access (HW_BREAKPOINT_R 1, W 2, X 4), and the accessor's address
 * (the attributed caller when the entry has one, else ip). It goes to the
 * watch of that name; without one, to the watch at that address and
 * length, or to the only watch of that length and access whose address is
 * not known here (a per-CPU variable, a struct member); when that is not
 * one watch, to hc->unattributed.
 */
void hitcount_add(struct hitcount *hc, const char *sym,
		  unsigned long long addr, unsigned int len,
		  unsigned int access, unsigned long long caller);

/* What was counted, as the kernel's counters would read (for stats_print). */
int hitcount_stats(const struct hitcount *hc, struct ksym_stats *st);

void hitcount_free(struct hitcount *hc);

/*
 * Counts that came between two readings of a counter that only grows
 * unless its watch is removed and added again (by someone else: it then
 * counts from 0): @now - @prev, or all of @now when it went down.
 */
unsigned long counter_step(unsigned long prev, unsigned long now);

/*
 * One refresh of top: each row of @now (a reading of the counters) less
 * its row of @prev (the reading before), by counter_step(), into
 * @interval (emptied first) and added to @total. 0, or -1.
 */
int stats_advance(struct ksym_stats *total, struct ksym_stats *interval,
		  const struct ksym_stats *now, const struct ksym_stats *prev);

#endif
