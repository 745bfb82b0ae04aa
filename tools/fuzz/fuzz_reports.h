/* SPDX-License-Identifier: GPL-2.0 */
/* tools/fuzz: ksym-ctl report's reader and printers run (fuzz_reports.c). */
#ifndef KSYM_FUZZ_REPORTS_H
#define KSYM_FUZZ_REPORTS_H

#include <stdbool.h>

#include "report_tree.h"

struct fuzz_record;
struct tep_handle;

/*
 * Feed @nr records to a reader of @tep into @r (its keys set), then sort
 * and print it, as JSON (checked) when @json; aborts when a check fails.
 * -1 when @tep has no ksym_hit (no reader).
 */
int fuzz_report_records(struct report *r, struct tep_handle *tep,
			const struct fuzz_record *recs, int nr, bool json);

#endif
