// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: the ksym tracer from user space. One small main that dispatches
 * to the subcommands, in the style of rtla.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ksym-ctl.h"
#include "utils.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what;
} commands[] = {
	{ "watch",	watch_main,	"add or change watches (SPEC...)" },
	{ "unwatch",	unwatch_main,	"remove watches (TARGET or SPEC...)" },
	{ "list",	list_main,	"list the watches with their hits [--json]" },
	{ "clear",	clear_main,	"remove every watch" },
	{ "stat",	stat_main,	"count hits while COMMAND runs, per accessor" },
	{ "record",	record_main,	"record hits while COMMAND runs into a trace.dat" },
	{ "report",	report_main,	"accessors and call paths of a recorded trace.dat" },
	{ "top",	top_main,	"live table of hits per watch and accessor" },
	{ "fields",	fields_main,	"members of a variable or type as filter paths (BTF)" },
	{ "uaf",	uaf_main,	"hunt uses after free of a slab cache's or kfree site's objects" },
	{ "local",	local_main,	"who writes a function's local variable, by name (DWARF)" },
	{ "reset",	reset_main,	"remove what killed ksym-ctl runs left behind" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"usage: ksym-ctl [-d|--debug] COMMAND [OPTIONS] [ARGS]\n"
		"\n"
		"Watch kernel variables with the ksym tracer (hardware breakpoints) and\n"
		"see who accesses them, from where and how often.\n"
		"\n"
		"commands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s  %s\n", commands[i].name, commands[i].what);
	fprintf(f,
		"\n"
		"SPEC is a ksym_trace_filter entry: TARGET[/LEN]:ACCESS[@CPULIST], ACCESS\n"
		"one of rw- -w- --x (see Documentation/trace/ksym.rst). stat, record and\n"
		"top see every task on every CPU (-a), or as perf: -p PID[,PID...] only\n"
		"those tasks, -C CPULIST only those CPUs.\n"
		"\n"
		"examples:\n"
		"  ksym-ctl stat pid_max/4:-w- -- sh -c 'echo 4000 > /proc/sys/kernel/pid_max'\n"
		"  ksym-ctl record --stack total_forks:-w- -- sh -c 'for i in 1 2 3; do true & done; wait'\n"
		"  ksym-ctl report -g\n"
		"  ksym-ctl top -d 1 jiffies_64/8:rw-\n"
		"  ksym-ctl stat -p 1234 -C 0 total_forks:-w-    # until 1234 exits or Ctrl-C\n"
		"  ksym-ctl fields runqueues       # runqueues.nr_running:rw- and the like\n"
		"  ksym-ctl uaf --cache ksym_hitgen_cache -s 4 -- \\\n"
		"        sh -c 'echo 3 > /sys/kernel/debug/ksym_hitgen/uaf'\n"
		"\n"
		"'ksym-ctl COMMAND --help' tells more; man ksym-ctl.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	while (argc > 1 && (!strcmp(argv[1], "-d") || !strcmp(argv[1], "--debug"))) {
		config_debug = 1;
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	err_msg("unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
