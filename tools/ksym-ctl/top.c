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
#include "stats.h"

static void top_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl top [-d SECONDS] [-n ITERATIONS] SPEC...\n"
		"\n"
		"Watch SPECs and show, every SECONDS (default 2), the hits per watch and\n"
		"per accessing function: since the start, and in the last interval. On a\n"
		"terminal the screen is redrawn until Ctrl-C; with -n it ends after N\n"
		"refreshes and prints plain text, one table after another.\n"
		"\n"
		"options:\n"
		"  -d, --delay SECONDS     refresh interval (e.g. 1, 0.5, 250ms)\n"
		"  -n, --iterations N      stop after N refreshes\n"
		"\n"
		"examples:\n"
		"  ksym-ctl top jiffies_64/8:rw- total_forks:-w-\n"
		"  ksym-ctl top -d 1 -n 3 total_forks:-w- > forks.txt\n");
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

static unsigned long caller_hits(const struct ksym_stats *st, const char *t,
				 const char *name)
{
	int i;

	for (i = 0; i < st->nr_caller; i++)
		if (!strcmp(st->caller[i].target, t) && !strcmp(st->caller[i].name, name))
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
			if (!strcmp(now->watch[j].target, t)) {
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

			if (strcmp(c->target, t) || !c->hits)
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
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ksym_session s = { 0 };
	struct ksym_stats base = { 0 }, prev = { 0 }, now = { 0 };
	struct strv specs = { 0 };
	long delay_ms = 2000, iters = 0;
	char **command;
	int c, iter, ret = 1, screen;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+d:n:h", opts, NULL)) != -1) {
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
			return 0;
		default:
			top_usage(stderr);
			return 1;
		}
	}
	if (split_specs_command(argc - optind, argv + optind, false, &specs,
				&command)) {
		top_usage(stderr);
		goto out;
	}
	if (ksym_check())
		goto out;
	screen = !iters && isatty(STDOUT_FILENO);
	ksym_catch_signals();
	if (ksym_session_watch(&s, &specs) || read_stats(&base) ||
	    ksym_session_instance(&s, "top", false, true))
		goto cleanup;
	stats_parse(&prev, NULL, NULL);
	for (iter = 1; !ksym_stop && (!iters || iter <= iters); iter++) {
		struct timespec ts = { delay_ms / 1000, (delay_ms % 1000) * 1000000L };

		while (!ksym_stop && nanosleep(&ts, &ts))
			;
		if (ksym_stop)
			break;
		if (read_stats(&now))
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
		/* The reader is gone (EPIPE: SIGPIPE is ignored): stop and restore. */
		if (fflush(stdout) == EOF)
			break;
	}
	ret = 0;
cleanup:
	ksym_session_restore(&s);
	stats_free(&base);
	stats_free(&prev);
	stats_free(&now);
out:
	strv_free(&specs);
	return ret;
}
