// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl top: a live table of hits per watch and accessor, from the
 * kernel's counters (trace_stat), refreshed every few seconds. The watches
 * are armed by an instance of our own with the ksym tracer current and
 * tracing off (counting only); everything is put back on exit or SIGINT.
 * The counters are read, not reset: the intervals are the differences of
 * two readings, and a counter that went down (its watch removed and added
 * again by someone else) counts from 0.
 */
#include <getopt.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "scope.h"
#include "stats.h"

static void top_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl top [-d SECONDS] [-n ITERATIONS] [-p PID[,PID...]]\n"
		"                    [-C CPULIST] [-a] SPEC...\n"
		"\n"
		"Watch SPECs and show, every SECONDS (default 2), the hits per watch and\n"
		"per accessing function: since the start, and in the last interval. On a\n"
		"terminal the screen is redrawn until Ctrl-C; with -n it ends after N\n"
		"refreshes and prints plain text, one table after another. With -p it\n"
		"also ends when the tasks have exited; it also ends when its output's\n"
		"reader is gone (top | head). The counters are not reset: another\n"
		"ksym-ctl run may share the watches (man ksym-ctl, CONCURRENCY).\n"
		"\n"
		"options:\n"
		"  -d, --delay SECONDS     refresh interval (e.g. 1, 0.5, 250ms)\n"
		"  -n, --iterations N      stop after N refreshes\n");
	scope_usage(f, false);
	fprintf(f,
		"\n"
		"examples:\n"
		"  ksym-ctl top jiffies_64/8:rw- total_forks:-w-\n"
		"  ksym-ctl top -d 1 -n 3 total_forks:-w- > forks.txt\n"
		"  ksym-ctl top -p 1234 -C 0-1 jiffies_64/8:rw-\n");
}

static int read_stats(struct ksym_stats *st)
{
	char *w = tracefs_instance_file_read(NULL, "trace_stat/ksym_tracer", NULL);
	char *c = tracefs_instance_file_read(NULL, "trace_stat/ksym_callers", NULL);
	int ret = w && c ? stats_parse(st, w, c) : -1;

	free(w);
	free(c);
	return ret;
}

/*
 * One interval: with -p, the entries of the instance's buffer are taken
 * out every 100 ms meanwhile (a busy watch would fill it up).
 */
/*
 * Whether stdout is a pipe or socket whose reader is gone (top | head):
 * then top ends at once, not at its next refresh.
 */
static bool reader_gone(void)
{
	struct pollfd pfd = { .fd = STDOUT_FILENO, .events = 0 };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLERR | POLLHUP));
}

static bool top_done(void *unused)
{
	(void)unused;
	return reader_gone();
}

static void top_tick(void *kc)
{
	if (kc)
		ksym_count_read(kc);
}

static void top_sleep(long ms, struct ksym_count *kc)
{
	if (ms > 0)
		scope_sleep(ms, &ksym_stop, top_done, top_tick, kc);
}

/* The counts now: the kernel's counters, or with -p the instance's entries. */
static int top_read(struct ksym_stats *st, struct ksym_count *kc)
{
	if (!kc)
		return read_stats(st);
	ksym_count_read(kc);
	return hitcount_stats(&kc->hc, st);
}

static unsigned long caller_hits(const struct ksym_stats *st, const char *t,
				 const char *name)
{
	int i;

	for (i = 0; i < st->nr_caller; i++)
		if (target_same(st->caller[i].target, t) &&
		    !strcmp(st->caller[i].name, name))
			return st->caller[i].hits;
	return 0;
}

/* @total: since top started, @interval: since the refresh before. */
static void print_table(FILE *f, const struct ksym_stats *total,
			const struct ksym_stats *interval, const struct strv *targets,
			int iter, int iters, double delay)
{
	int i, j;

	if (iters)
		fprintf(f, "ksym-ctl top: refresh %d of %d, every %.3g s\n", iter, iters, delay);
	else
		fprintf(f, "ksym-ctl top: refresh %d, every %.3g s (Ctrl-C quits)\n", iter, delay);
	fprintf(f, "%12s %12s  %s\n", "TOTAL", "INTERVAL", "WATCH / ACCESSOR");
	for (i = 0; i < targets->n; i++) {
		const char *t = targets->v[i];
		long h = stats_watch_hits(total, t), d = stats_watch_hits(interval, t);
		const char *name = t, *access = "";

		for (j = 0; j < total->nr_watch; j++)
			if (target_same(total->watch[j].target, t)) {
				name = total->watch[j].name;
				access = total->watch[j].access;
			}
		fprintf(f, "%12ld %12ld  %s %s\n", h < 0 ? 0 : h, d < 0 ? 0 : d,
			name, access);
		for (j = 0; j < total->nr_caller; j++) {
			const struct stat_row *c = &total->caller[j];

			if (!target_same(c->target, t) || !c->hits)
				continue;
			fprintf(f, "%12lu %12lu    %s\n", c->hits,
				caller_hits(interval, t, c->name), c->name);
		}
	}
	fputc('\n', f);
	fflush(f);
}

int top_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		SCOPE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ksym_session s = KSYM_SESSION_INIT;
	struct ksym_stats prev = { 0 }, now = { 0 }, total = { 0 }, interval = { 0 };
	struct strv specs = { 0 };
	struct ksym_scope scope = { 0 };
	struct ksym_count kc = { 0 }, *count = NULL;
	long delay_ms = 2000, iters = 0;
	char **command, *pids = NULL;
	int c, iter, ret = 1, screen;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:n:h" SCOPE_OPTSTRING, opts,
				NULL)) != -1) {
		switch (c) {
		case 'd':
			delay_ms = parse_duration_ms(optarg);
			if (delay_ms < 0) {
				err_msg("-d %s: not a time in seconds\n", optarg);
				return 1;
			}
			break;
		case 'n':
			iters = parse_count(optarg);
			if (iters < 0) {
				err_msg("-n %s: not a positive count\n", optarg);
				return 1;
			}
			break;
		case 'h':
			top_usage(stdout);
			ret = 0;
			goto out;
		default:
			if (scope_option(&scope, c, optarg, top_usage) > 0)
				break;
			goto out;
		}
	}
	if (split_specs_command(argc - optind, argv + optind, false, &specs,
				&command)) {
		top_usage(stderr);
		goto out;
	}
	if (scope_prepare(&scope, &specs, "/proc", &pids) || ksym_check())
		goto out;
	s.event_pids = pids;
	if (pids)
		count = &kc;
	screen = !iters && isatty(STDOUT_FILENO);
	ksym_catch_signals();
	/* -p: the instance records those tasks' hits, counted from its buffer. */
	if (ksym_session_create(&s, "top") || ksym_session_watch(&s, &specs) ||
	    (count ? ksym_count_open(count, &s) : read_stats(&prev)) ||
	    ksym_session_instance(&s, "top", count != NULL, true))
		goto cleanup;
	for (iter = 1; !ksym_stop && (!iters || iter <= iters); iter++) {
		bool gone = count && !scope_alive(&scope, "/proc");

		if (!gone)
			top_sleep(delay_ms, count);
		if (ksym_stop || reader_gone())
			break;
		if (top_read(&now, count) ||
		    stats_advance(&total, &interval, &now, &prev))
			goto cleanup;
		stats_free(&prev);
		prev = now;
		memset(&now, 0, sizeof(now));
		stats_sort_callers(&total, &s.targets);
		if (screen)
			fputs("\033[H\033[2J", stdout);
		print_table(stdout, &total, &interval, &s.targets, iter, iters,
			    delay_ms / 1000.0);
		if (count)
			ksym_count_notes(stdout, count, ksym_session_lost(&s), 0);
		/* The reader is gone (EPIPE: SIGPIPE is ignored): stop and restore. */
		if (ksym_stdout_failed())
			break;
		if (gone) {
			printf("ksym-ctl top: the tasks of -p have exited\n");
			break;
		}
	}
	ret = 0;
cleanup:
	ksym_session_restore(&s);
	ksym_count_close(&kc);
	stats_free(&prev);
	stats_free(&now);
	stats_free(&total);
	stats_free(&interval);
out:
	free(pids);
	scope_free(&scope);
	strv_free(&specs);
	return ret;
}
