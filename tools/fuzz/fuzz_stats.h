/* SPDX-License-Identifier: GPL-2.0 */
/* tools/fuzz: stats_print()'s JSON checked (fuzz_stats.c). */
#ifndef KSYM_FUZZ_STATS_H
#define KSYM_FUZZ_STATS_H

#include "stats.h"

/* Print @st as JSON, parse it and check its counts; aborts when wrong. */
void fuzz_stats_json(const struct ksym_stats *st, const struct strv *targets,
		     double wall_s);

#endif
