// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl report: per watched symbol, its accessors with hit counts and
 * percentages, and with -g the call paths below each accessor as a tree,
 * the way perf report -g prints them; where the hits have old values, how
 * many changed the value. Reads a trace.dat (ksym-ctl record, trace-cmd
 * record -p ksym -O ksym-stack) with libtracecmd.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ksym-ctl.h"
#include "report_tree.h"
#include "tracedat.h"
#include "utils.h"

static void report_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl report [-i FILE] [-g] [-c] [--sort KEYS] [--json]\n"
		"\n"
		"Who accessed the watched symbols in FILE (default ./ksym.dat): per\n"
		"symbol, its accessors with hits and shares; with -g, below each\n"
		"accessor the call paths that reached it, as a tree with percentages\n"
		"(needs a file recorded with --stack).\n"
		"\n"
		"A hit is counted for the function the kernel names in the hit's caller\n"
		"field: the accessor, or for a hit inside lock code (a lock word) the\n"
		"first function outside it, as 'ksym-ctl stat' counts it; a symbol is\n"
		"named as its watch (pid_max/4, runqueues.nr_running/4). Files from\n"
		"kernels without these fields: the accessor, and the name of the address.\n"
		"\n"
		"Where the hits carry the value before the access (ksym_hit's old field),\n"
		"each entry also counts the hits that changed the value (old known and\n"
		"not the new value): \"changed\" in JSON; with -c, after the hits in the text.\n"
		"\n"
		"options:\n"
		"  -i, --input FILE    trace.dat to read (default ksym.dat)\n"
		"  -g, --call-graph    show the call paths\n"
		"  -c, --changed       show how many hits changed the value (files with old values)\n"
		"  -s, --sort KEYS     tree levels, from: symbol, caller, comm, cpu\n"
		"                      (default symbol,caller)\n"
		"  -j, --json          print JSON (with -g, each accessor's call path tree)\n"
		"\n"
		"examples:\n"
		"  ksym-ctl record --stack total_forks:-w- -- sh -c 'true & wait'\n"
		"  ksym-ctl report -g\n"
		"  ksym-ctl report -i /tmp/ksym.dat --sort caller,comm\n"
		"  ksym-ctl report -c --sort symbol,caller,comm\n"
		"  trace-cmd record -p ksym -O ksym-stack -o k.dat sleep 1 && ksym-ctl report -g -i k.dat\n");
}

int report_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "call-graph", no_argument, NULL, 'g' },
		{ "changed", no_argument, NULL, 'c' },
		{ "sort", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *file = "ksym.dat", *sort = "symbol,caller";
	struct report r = { 0 };
	struct tracedat_info info;
	char title[600];
	int c, json = 0, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+i:gcs:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			file = optarg;
			break;
		case 'g':
			r.callchain = true;
			break;
		case 'c':
			r.show_changed = true;
			break;
		case 's':
			sort = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			report_usage(stdout);
			return 0;
		default:
			report_usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		report_usage(stderr);
		return 1;
	}
	if (report_parse_sort(&r, sort))
		return 1;
	if (tracedat_read(file, &r, &info))
		goto cleanup;
	report_sort(&r);
	if (r.callchain && !info.stacks)
		err_msg("%s has no callchains: record with --stack for -g\n", file);
	if (r.show_changed && !r.old_values)
		err_msg("%s has no old values (its kernel's ksym_hit has no old field): no changed count for -c\n",
			file);
	if (json) {
		report_print_json(stdout, &r, file);
	} else {
		snprintf(title, sizeof(title), "ksym-ctl report of %s%s", file,
			 info.missed ? " (events were lost)" : "");
		report_print(stdout, &r, title);
	}
	ret = 0;
cleanup:
	report_free(&r);
	return ret;
}
