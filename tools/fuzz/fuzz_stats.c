// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON of stats_print() (ksym-ctl stat --json, stat -p, top), checked
 * by the harnesses that print it (fuzz_trace_stat, fuzz_filter): it
 * parses, and says each watch's hits and callers as the rows do (review
 * 11-28 L11).
 */
#include <stdlib.h>

#include <json-c/json.h>

#include "fuzz.h"
#include "fuzz_stats.h"
#include "utils.h"

void fuzz_stats_json(const struct ksym_stats *st, const struct strv *targets,
		     double wall_s)
{
	struct json_object *o, *watches, *w;
	const struct stat_row *r;
	struct fuzz_json j;
	size_t callers;
	int i, k;

	stats_print(fuzz_json_open(&j), st, targets, 1, NULL, wall_s);
	o = fuzz_json_end(&j);
	if (fuzz_json_len(o, "watches") != (size_t)targets->n ||
	    !json_object_object_get_ex(o, "watches", &watches))
		abort();
	for (i = 0; i < targets->n; i++) {
		w = json_object_array_get_idx(watches, i);
		r = stats_find_row(st->watch, st->nr_watch, targets->v[i], NULL);
		if (fuzz_json_uint(w, "hits") != (unsigned long long)(r ? r->hits : 0))
			abort();
		for (k = 0, callers = 0; k < st->nr_caller; k++)
			callers += st->caller[k].hits &&
				   target_same(st->caller[k].target, targets->v[i]);
		if (fuzz_json_len(w, "callers") != callers)
			abort();
	}
	json_object_put(o);
}
