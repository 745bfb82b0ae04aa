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
#include "scope.h"
#include "stats.h"

static void stat_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl stat [--json] [-p PID[,PID...]] [-C CPULIST] [-a]\n"
		"                     SPEC... -- COMMAND [ARG...]\n"
		"       ksym-ctl stat [--json] -p PID[,PID...] [-C CPULIST] SPEC...\n"
		"\n"
		"Count the hits of each watch while COMMAND runs, and the functions that\n"
		"made them, with their shares. The watches are armed only while COMMAND\n"
		"runs (ksym-ctl's own fork is not counted; other tasks' accesses are:\n"
		"a watch sees the whole system, unless -p or -C narrow it). With -p and\n"
		"no COMMAND: until Ctrl-C, or until the tasks exit. The watch set, tracer\n"
		"and options are left as they were found, also on SIGINT, SIGTERM, SIGHUP\n"
		"and SIGQUIT; a watch another ksym-ctl run holds is shared, and left to\n"
		"it (man ksym-ctl, CONCURRENCY). Exit status: COMMAND's (0 without one),\n"
		"1 when the counts cannot be read.\n"
		"\n"
		"Without -p the kernel's counters are read (trace_stat, nothing is\n"
		"recorded); with -p ksym-ctl's instance records the hits of those tasks\n"
		"only, and they are counted from its buffer.\n"
		"\n"
		"options:\n"
		"  -j, --json          print JSON\n");
	scope_usage(f, true);
	fprintf(f,
		"\n"
		"examples:\n"
		"  ksym-ctl stat pid_max/4:-w- -- sh -c 'echo 4000 > /proc/sys/kernel/pid_max'\n"
		"  ksym-ctl stat total_forks:-w- jiffies_64/8:rw- -- sleep 1\n"
		"  ksym-ctl stat --json ksym_hitgen_var/8:-w- -- \\\n"
		"        sh -c 'echo 10 > /sys/kernel/debug/ksym_hitgen/write_a'\n"
		"  ksym-ctl stat -p 1234 total_forks:-w-         # until 1234 exits or Ctrl-C\n"
		"  ksym-ctl stat -p 1234 total_forks:-w- -- sleep 5   # 1234's, for 5 s\n"
		"  ksym-ctl stat -C 1 jiffies_64/8:rw- -- sleep 1     # CPU 1's only\n");
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The kernel's counters now; -1 when they cannot be read. */
static int read_stats(struct ksym_stats *st)
{
	char *w = tracefs_instance_file_read(NULL, "trace_stat/ksym_tracer", NULL);
	char *c = tracefs_instance_file_read(NULL, "trace_stat/ksym_callers", NULL);
	int ret = w && c ? stats_parse(st, w, c) : -1;

	free(w);
	free(c);
	return ret;
}

/* -p: the hits of the instance's buffer are taken out while they come. */
static void count_tick(void *arg)
{
	ksym_count_read(arg);
}

int stat_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		SCOPE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ksym_session s = KSYM_SESSION_INIT;
	struct ksym_stats before = { 0 }, after = { 0 };
	struct ksym_cmd cmd = { .pid = -1, .go_fd = -1 };
	struct ksym_count kc = { 0 };
	struct ksym_scope scope = { 0 };
	struct strv specs = { 0 };
	char **command, title[512], *pids = NULL;
	unsigned long lost = 0;
	int c, i, json = 0, status = 1;
	double t0, t1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh" SCOPE_OPTSTRING, opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			stat_usage(stdout);
			status = 0;
			goto out;
		default:
			if (scope_option(&scope, c, optarg, stat_usage) > 0)
				break;
			goto out;
		}
	}
	/* With -p, COMMAND is optional: without one, until the tasks exit. */
	if (split_specs_command(argc - optind, argv + optind,
				scope_needs_command(&scope, argc - optind,
						    argv + optind),
				&specs, &command)) {
		stat_usage(stderr);
		goto out;
	}
	if (scope_prepare(&scope, &specs, "/proc", &pids) || ksym_check())
		goto out;
	s.event_pids = pids;
	ksym_catch_signals();
	if (command && ksym_cmd_fork(&cmd, command))
		goto out;
	/*
	 * Counting only (tracing off) reads the kernel's counters; -p records
	 * the tasks' hits in the instance and counts them from its buffer.
	 */
	if (ksym_session_create(&s, "stat") || ksym_session_watch(&s, &specs) ||
	    (pids ? ksym_count_open(&kc, &s) : read_stats(&before)) ||
	    ksym_session_instance(&s, "stat", pids != NULL, true) || ksym_stop) {
		ksym_cmd_abort(&cmd);
		goto cleanup;
	}

	t0 = now_s();
	if (command) {
		ksym_cmd_start(&cmd);
		status = pids ? ksym_cmd_wait_tick(&cmd, count_tick, &kc, 100) :
			 ksym_cmd_wait(&cmd);
	} else {
		scope_wait(&scope, "/proc", &ksym_stop, count_tick, &kc, 100);
		status = 0;
	}
	t1 = now_s();
	if (pids) {
		/* The last entries, before the tracer leaves (that clears them). */
		tracefs_trace_off(s.inst);
		ksym_count_read(&kc);
		lost = ksym_session_lost(&s);
		if (kc.hc.missed > lost)
			lost = kc.hc.missed;
	}
	/* Disarm (the tracer leaves our instance) before reading. */
	ksym_session_disarm(&s);
	if (pids ? hitcount_stats(&kc.hc, &after) : read_stats(&after)) {
		err_msg("cannot read the counters (trace_stat/ksym_tracer, ksym_callers): no counts\n");
		/* An error, whatever COMMAND's status: nothing was counted. */
		if (!status)
			status = 1;
		goto cleanup;
	}
	stats_sub(&after, &before);
	stats_sort_callers(&after, &s.targets);

	scope_title(title, sizeof(title), command, &scope);
	if (json) {
		printf("{\"command\": ");
		if (command)
			json_str(stdout, title);
		else
			printf("null");
		if (pids) {
			printf(", \"pids\": [");
			for (i = 0; i < scope.nr_pids; i++)
				printf("%s%d", i ? ", " : "", scope.pids[i]);
			printf("]");
		}
		printf(", \"exit_status\": %d, \"result\": ", status);
		stats_print(stdout, &after, &s.targets, 1, NULL, t1 - t0);
		if (pids)
			ksym_count_notes(stdout, &kc, lost, 1);
		printf("}\n");
	} else {
		char head[800], who[128];

		scope_title(who, sizeof(who), NULL, &scope);
		if (pids && command)
			snprintf(head, sizeof(head), "ksym watch hits of %s while '%s' ran:",
				 who, title);
		else
			snprintf(head, sizeof(head), "ksym watch hits for '%s':", title);
		stats_print(stdout, &after, &s.targets, 0, head, t1 - t0);
		if (pids)
			ksym_count_notes(stdout, &kc, lost, 0);
	}
	if (ksym_stdout_failed() && !status)
		status = 1;
cleanup:
	ksym_session_restore(&s);
	ksym_count_close(&kc);
	stats_free(&before);
	stats_free(&after);
out:
	free(pids);
	scope_free(&scope);
	strv_free(&specs);
	return status;
}
