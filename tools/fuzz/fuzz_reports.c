// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl report's reader and printers as the harnesses that feed it
 * records run them (fuzz_report on the fixtures' formats, fuzz_format on
 * crafted ones): the records fed as libtracecmd would, the report built and
 * printed as text or as JSON, the JSON parsed and its counts checked
 * (review 11-28 L11).
 */
#include <stdlib.h>

#include <event-parse.h>
#include <json-c/json.h>

#include "fuzz.h"
#include "fuzz_reports.h"
#include "tracedat.h"

/* The hits of a level's entries, each equal to its own entries' sum. */
static unsigned long long level_hits(struct json_object *entries)
{
	unsigned long long sum = 0, hits;
	struct json_object *e, *sub;
	size_t i;

	for (i = 0; i < json_object_array_length(entries); i++) {
		e = json_object_array_get_idx(entries, i);
		hits = fuzz_json_uint(e, "hits");
		if (json_object_object_get_ex(e, "entries", &sub) &&
		    level_hits(sub) != hits)
			abort();
		sum += hits;
	}
	return sum;
}

/* The JSON parses, and every hit is there once at the top level. */
static void check_json(const struct report *r)
{
	struct json_object *o, *entries;
	struct fuzz_json j;

	report_print_json(fuzz_json_open(&j), r, "fuzz.dat");
	o = fuzz_json_end(&j);
	if (fuzz_json_uint(o, "hits") != r->hits ||
	    fuzz_json_uint(o, "with_callchain") != r->with_chain ||
	    !json_object_object_get_ex(o, "entries", &entries) ||
	    level_hits(entries) != r->hits)
		abort();
	json_object_put(o);
}

int fuzz_report_records(struct report *r, struct tep_handle *tep,
			const struct fuzz_record *recs, int nr, bool json)
{
	struct tracedat_reader *rd = NULL;
	struct tracedat_info info = { 0 };
	int i;

	if (tracedat_reader_new(tep, r, &info, &rd) || !rd)
		return -1;
	for (i = 0; i < nr; i++) {
		struct tep_record rec;

		fuzz_tep_record(&rec, &recs[i], 1000 * (i + 1));
		if (tracedat_reader_add(rd, &rec, rec.cpu))
			break;
	}
	tracedat_reader_end(rd);
	/* Every hit the reader counted is in the report (not lost on the way). */
	if (r->hits != info.hits)
		abort();
	report_sort(r);
	if (json)
		check_json(r);
	else
		report_print(fuzz_devnull(), r, "ksym-ctl report of fuzz.dat");
	return 0;
}
