// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_filter: ksym-ctl's readers of ksym_trace_filter's text. The tools
 * read it back after writing their watches (which lines are theirs:
 * filter_line_target(), utils.c), to restore it (filter_restore_text()),
 * to list the watches (list.c) and, with -p, to count hits per watch from
 * the ksym_hit entries (hitcount_init() and hitcount_add(), hitcount.c,
 * with /proc/kallsyms for the addresses and accessors), whose counts then
 * go through the trace_stat parser (hitcount_stats()) and the printers.
 *
 * Input: up to three parts separated by NUL bytes: the filter's text,
 * /proc/kallsyms's text, then hits of 20 bytes each: u64 address, u64
 * accessor, u8 length, u8 access, u8 the line whose target names the hit
 * (0xff: no sym field), u8 unused.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_stats.h"
#include "hitcount.h"
#include "utils.h"

#define TARGET_MAX	1100	/* as ksym_tracefs.c and list.c size it */
#define HIT_SIZE	20
#define HITS_MAX	256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long long get64(const uint8_t *p)
{
	unsigned long long v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strv lines = { 0 }, targets = { 0 };
	struct hitcount hc;
	struct ksym_stats st;
	char *text = fuzz_strndup(data, size), *filter, *syms, *restore;
	char *copy = NULL, target[TARGET_MAX];
	const uint8_t *hits = NULL;
	size_t nr_hits = 0, i;

	if (!text)
		return 0;
	filter = text;
	syms = filter + strlen(filter) + 1;
	if (syms > text + size) {
		syms = "";
	} else {
		const char *end = memchr(syms, '\0', text + size + 1 - syms);

		hits = (const uint8_t *)end + 1;
		if (end < text + size)
			nr_hits = (text + size - (const char *)hits) / HIT_SIZE;
	}
	if (nr_hits > HITS_MAX)
		nr_hits = HITS_MAX;

	copy = strdup(filter);
	if (!copy || split_lines(copy, &lines))
		goto out;
	for (i = 0; i < (size_t)lines.n; i++)
		if (!filter_line_target(lines.v[i], target, sizeof(target)) &&
		    strv_find(&targets, target) < 0)
			strv_add(&targets, target);

	restore = filter_restore_text(filter, &targets);
	if (!restore)
		abort();
	/* Each of our watches gets a line: its own, or its removal. */
	for (i = 0; i < (size_t)targets.n; i++)
		if (!strstr(restore, targets.v[i]))
			abort();
	free(restore);

	/* As ksym_count_open(): on failure the table is freed all the same. */
	if (hitcount_init(&hc, filter, &targets, strdup(syms))) {
		hitcount_free(&hc);
		goto out;
	}
	for (i = 0; i < nr_hits; i++) {
		const uint8_t *h = hits + i * HIT_SIZE;
		const char *sym = NULL;

		if (h[18] < targets.n)
			sym = target_name(targets.v[h[18]]);
		hitcount_add(&hc, sym, get64(h), h[16], h[17], get64(h + 8));
	}
	if (!hitcount_stats(&hc, &st)) {
		stats_sort_callers(&st, &targets);
		stats_print(fuzz_devnull(), &st, &targets, 0, "fuzz", 0);
		fuzz_stats_json(&st, &targets, 0);
		stats_free(&st);
	}
	hitcount_free(&hc);
out:
	strv_free(&lines);
	strv_free(&targets);
	free(copy);
	free(text);
	return 0;
}
