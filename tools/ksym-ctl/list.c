// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl list: the watch set, each watch with its hits so far.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include <json.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "stats.h"

static void list_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl list [--json]\n"
		"\n"
		"One line per watch, in the canonical form that 'ksym-ctl watch' accepts\n"
		"back, with the hits counted since it was added (while armed). What a\n"
		"ksym-ctl run that is gone (killed) left behind is pointed out on stderr:\n"
		"'ksym-ctl reset' removes it.\n"
		"\n"
		"examples:\n"
		"  ksym-ctl list\n"
		"  ksym-ctl list --json\n");
}

/*
 * What runs that are gone left (ksym-ctl reset removes it): their instances,
 * and the watches and options only they held.
 */
static void list_leftovers(const struct strv *lines)
{
	struct strv stale = { 0 };
	struct claims c = { 0 };
	int i, lock;

	if (!ksym_stale_instances(&stale))
		for (i = 0; i < stale.n; i++)
			fprintf(stderr, "ksym-ctl list: stale instance %s of a run that is gone: ksym-ctl reset\n",
				stale.v[i]);
	lock = ksym_state_lock(LOCK_SH);
	if (lock >= 0 && !ksym_state_load(&c))
		for (i = 0; i < c.n; i++)
			if (!claim_held_by_other(&c.v[i], NULL, ksym_instance_alive, NULL) &&
			    ksym_claim_in_effect(&c.v[i], lines))
				fprintf(stderr, "ksym-ctl list: %s %s was set to '%s' by a run that is gone: ksym-ctl reset puts back '%s'\n",
					claim_kind_name(c.v[i].kind),
					c.v[i].key, c.v[i].set, c.v[i].orig);
	ksym_state_unlock(lock);
	claims_free(&c);
	strv_free(&stale);
}

int list_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const struct json_look list_look = { 2, 0, NULL };
	struct strv lines = { 0 };
	struct ksym_stats st = { 0 };
	struct json_object *arr = NULL;
	char *filter = NULL, *watches = NULL, target[1100] = "";
	int c, i, json = 0, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'h':
			list_usage(stdout);
			return 0;
		default:
			list_usage(stderr);
			return 1;
		}
	}
	if (optind < argc) {
		list_usage(stderr);
		return 1;
	}
	if (ksym_check())
		return 1;
	filter = ksym_read_file("ksym_trace_filter");
	watches = ksym_read_file("trace_stat/ksym_tracer");
	if (!filter || !watches)
		goto cleanup;
	if (split_lines(filter, &lines) || stats_parse(&st, watches, NULL))
		goto cleanup;

	if (json) {
		arr = json_look(json_object_new_array(), &list_look);
		if (!arr)
			goto cleanup;
	} else if (lines.n) {
		printf("%-40s %12s\n", "# watch", "hits");
	}
	for (i = 0; i < lines.n; i++) {
		long hits = -1;

		target[0] = '\0';
		if (!filter_line_target(lines.v[i], target, sizeof(target)))
			hits = stats_watch_hits(&st, target);
		if (json) {
			struct json_object *w = json_object_new_object();

			json_object_object_add(w, "watch", json_text(lines.v[i]));
			json_object_object_add(w, "target", json_text(target));
			json_object_object_add(w, "hits", json_object_new_int64(hits < 0 ? 0 : hits));
			json_object_array_add(arr, w);
		} else {
			printf("%-40s %12ld\n", lines.v[i], hits < 0 ? 0 : hits);
		}
	}
	if (json) {
		json_print(stdout, arr);
		putchar('\n');
	}
	ret = ksym_stdout_failed() ? 1 : 0;
	list_leftovers(&lines);
cleanup:
	json_object_put(arr);
	free(filter);
	free(watches);
	strv_free(&lines);
	stats_free(&st);
	return ret;
}
