// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl stat: like perf stat, for ksym watches. The watches are added,
 * armed only while COMMAND runs (an instance of our own with the ksym
 * tracer current and tracing off: counting only), then the kernel's
 * per-watch and per-caller counters are read, minus what they held before,
 * and everything is put back as it was.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "stats.h"

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl stat [--json] SPEC... -- COMMAND [ARG...]\n"
		"\n"
		"Count the hits of each watch while COMMAND runs, and the functions that\n"
		"made them, with their shares. The watches are armed only while COMMAND\n"
		"runs (ksym-ctl's own fork is not counted; other tasks' accesses are:\n"
		"a watch sees the whole system). The watch set, tracer and options are\n"
		"left as they were found, also on SIGINT. Exit status: COMMAND's.\n"
		"\n"
		"options:\n"
		"  -j, --json   print JSON\n"
		"\n"
		"examples:\n"
		"  ksym-ctl stat pid_max/4:-w- -- sh -c 'echo 4000 > /proc/sys/kernel/pid_max'\n"
		"  ksym-ctl stat total_forks:-w- jiffies_64/8:rw- -- sleep 1\n"
		"  ksym-ctl stat --json ksym_hitgen_var/8:-w- -- \\\n"
		"        sh -c 'echo 10 > /sys/kernel/debug/ksym_hitgen/write_a'\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
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

int stat_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ksym_session s = { 0 };
	struct ksym_stats before = { 0 }, after = { 0 };
	struct ksym_cmd cmd = { .pid = -1, .go_fd = -1 };
	struct strv specs = { 0 };
	char **command, title[512];
	int c, i, json = 0, status = 1;
	double t0, t1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			stat_usage(stdout);
			return 0;
		default:
			stat_usage(stderr);
			return 1;
		}
	}
	if (split_specs_command(argc - optind, argv + optind, true, &specs,
				&command)) {
		stat_usage(stderr);
		goto out;
	}
	if (ksym_check())
		goto out;
	ksym_catch_signals();
	if (ksym_cmd_fork(&cmd, command))
		goto out;
	if (ksym_session_watch(&s, &specs) || read_stats(&before) ||
	    ksym_session_instance(&s, "stat", false, true) || ksym_stop) {
		ksym_cmd_abort(&cmd);
		goto cleanup;
	}

	t0 = now_s();
	ksym_cmd_start(&cmd);
	status = ksym_cmd_wait(&cmd);
	t1 = now_s();
	/* Disarm (the tracer leaves our instance) before reading. */
	ksym_session_disarm(&s);
	if (read_stats(&after)) {
		err_msg("cannot read trace_stat/ksym_tracer\n");
		goto cleanup;
	}
	stats_sub(&after, &before);
	stats_sort_callers(&after, &s.targets);

	title[0] = '\0';
	for (i = 0; command[i] && strlen(title) < sizeof(title) - 64; i++) {
		if (i)
			strcat(title, " ");
		strncat(title, command[i], sizeof(title) - strlen(title) - 32);
	}
	if (json) {
		printf("{\"command\": ");
		json_str(stdout, title);
		printf(", \"exit_status\": %d, \"result\": ", status);
		stats_print(stdout, &after, &s.targets, 1, NULL, t1 - t0);
		printf("}\n");
	} else {
		char head[600];

		snprintf(head, sizeof(head), "ksym watch hits for '%s':", title);
		stats_print(stdout, &after, &s.targets, 0, head, t1 - t0);
	}
cleanup:
	ksym_session_restore(&s);
	stats_free(&before);
	stats_free(&after);
out:
	strv_free(&specs);
	return status;
}
