// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl top: a live table of hits per watch and accessor, from the
 * kernel's counters (trace_stat), refreshed every few seconds. The watches
 * are armed by an instance of our own with the ksym tracer current and
 * tracing off (counting only); everything is put back on exit or SIGINT.
 */
#include <getopt.h>
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
		"also ends when the tasks have exited.\n"
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
	char *w = ksym_read_file("trace_stat/ksym_tracer");
	char *c = ksym_read_file("trace_stat/ksym_callers");
	int ret = stats_parse(st, w, c);

	free(w);
	free(c);
	return ret;
}

/*
 * One interval: with -p, the entries of the instance's buffer are taken
 * out every 100 ms meanwhile (a busy watch would fill it up).
 */
static void top_sleep(long ms, struct ksym_count *kc)
{
	while (!ksym_stop && ms > 0) {
		long step = kc && ms > 100 ? 100 : ms;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000L };

		while (!ksym_stop && nanosleep(&ts, &ts))
			;
		if (kc)
			ksym_count_read(kc);
		ms -= step;
	}
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

static void print_table(FILE *f, const struct ksym_stats *now,
			const struct ksym_stats *prev, const struct strv *targets,
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
		long h = stats_watch_hits(now, t), p = stats_watch_hits(prev, t);
		const char *name = t, *access = "";

		for (j = 0; j < now->nr_watch; j++)
			if (target_same(now->watch[j].target, t)) {
				name = now->watch[j].name;
				access = now->watch[j].access;
			}
		if (h < 0)
			h = 0;
		if (p < 0)
			p = 0;
		fprintf(f, "%12ld %12ld  %s %s\n", h, h - p, name, access);
		for (j = 0; j < now->nr_caller; j++) {
			const struct stat_row *c = &now->caller[j];

			if (!target_same(c->target, t) || !c->hits)
				continue;
			fprintf(f, "%12lu %12lu    %s\n", c->hits,
				c->hits - caller_hits(prev, t, c->name), c->name);
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
	struct ksym_session s = { 0 };
	struct ksym_stats base = { 0 }, prev = { 0 }, now = { 0 };
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
	if (ksym_session_watch(&s, &specs) ||
	    (count ? ksym_count_open(count, &s) : read_stats(&base)) ||
	    ksym_session_instance(&s, "top", count != NULL, true))
		goto cleanup;
	stats_parse(&prev, NULL, NULL);
	for (iter = 1; !ksym_stop && (!iters || iter <= iters); iter++) {
		bool gone = count && !scope_alive(&scope, "/proc");

		if (!gone)
			top_sleep(delay_ms, count);
		if (ksym_stop)
			break;
		if (top_read(&now, count))
			goto cleanup;
		stats_sub(&now, &base);
		stats_sort_callers(&now, &s.targets);
		if (screen)
			fputs("\033[H\033[2J", stdout);
		print_table(stdout, &now, &prev, &s.targets, iter, iters,
			    delay_ms / 1000.0);
		stats_free(&prev);
		prev = now;
		memset(&now, 0, sizeof(now));
		if (count)
			ksym_count_notes(stdout, count, ksym_session_lost(&s), 0);
		/* The reader is gone (EPIPE: SIGPIPE is ignored): stop and restore. */
		if (fflush(stdout) == EOF)
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
	stats_free(&base);
	stats_free(&prev);
	stats_free(&now);
out:
	free(pids);
	scope_free(&scope);
	strv_free(&specs);
	return ret;
}
