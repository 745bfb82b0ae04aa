// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit test of stats.c with no rows: `ksym-ctl stat` of a run without
 * hits sorts, counts and prints an empty ksym_callers. Under UBSan, so
 * that handing a library function a NULL array (qsort()'s first argument
 * must not be NULL, even for no elements) fails the test.
 */
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "test.h"

void test_stats_empty(void)
{
	struct ksym_stats st = { 0 };
	struct strv targets = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(stats_parse(&st, "", "") == 0);
	CHECK(st.nr_caller == 0 && st.caller == NULL);
	strv_add(&targets, "pid_max");
	stats_sort_callers(&st, &targets);
	CHECK(st.nr_caller == 0);
	CHECK(stats_watch_hits(&st, "pid_max") == -1);
	f = open_memstream(&buf, &len);
	if (f) {
		stats_print(f, &st, &targets, 1, NULL, 0);
		fclose(f);
	}
	CHECK_HAS(buf, "pid_max");
	free(buf);
	strv_free(&targets);
	stats_free(&st);
}
