// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_trace_stat: ksym-ctl's reader of trace_stat/ksym_tracer and
 * trace_stat/ksym_callers (ksym-ctl/stats.c), as stat and top use it: two
 * readings parsed, the first subtracted from the second, the callers
 * sorted, each watch's hits looked up, the table printed as text and as
 * JSON.
 *
 * Input: up to four texts separated by NUL bytes: ksym_tracer and
 * ksym_callers before, then after (a missing one is NULL, as when the
 * file cannot be read).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_stats.h"
#include "stats.h"

#define TARGETS_MAX	32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ksym_stats before, after;
	struct strv targets = { 0 };
	char *text = fuzz_strndup(data, size), *part[4] = { 0 }, *p;
	int i, n = 0;

	if (!text)
		return 0;
	for (p = text; n < 4 && p <= text + size; p += strlen(p) + 1)
		part[n++] = p;
	stats_parse(&before, part[0], part[1]);
	stats_parse(&after, part[2], part[3]);
	stats_sub(&after, &before);
	for (i = 0; i < after.nr_watch && targets.n < TARGETS_MAX; i++)
		if (strv_find(&targets, after.watch[i].target) < 0)
			strv_add(&targets, after.watch[i].target);
	for (i = 0; i < after.nr_caller && targets.n < TARGETS_MAX; i++)
		if (strv_find(&targets, after.caller[i].target) < 0)
			strv_add(&targets, after.caller[i].target);
	stats_sort_callers(&after, &targets);
	for (i = 0; i < targets.n; i++)
		stats_watch_hits(&after, targets.v[i]);
	stats_print(fuzz_devnull(), &after, &targets, 0, "fuzz", 1.5);
	fuzz_stats_json(&after, &targets, 1.5);
	strv_free(&targets);
	stats_free(&before);
	stats_free(&after);
	free(text);
	return 0;
}
