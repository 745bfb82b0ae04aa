// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: trace_stat/ksym_tracer and trace_stat/ksym_callers (stats.h).
 *
 *   Access Type  Symbol                              Counter     Callers
 *   -----------  ------                              -------     -------
 *   -w-          pid_max/4                           1           1
 *
 *   Symbol                              Caller                                    Hits        Share
 *   ------                              ------                                    ----        -----
 *   ksym_hitgen_var                     ksym_hitgen_write_a [ksym_hitgen]         300         30.00%
 */
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "stats.h"

static int add_row(struct stat_row **rows, int *nr, const char *target,
		   const char *name, const char *access, unsigned long hits)
{
	struct stat_row *r = realloc(*rows, (*nr + 1) * sizeof(**rows));

	if (!r)
		return -1;
	*rows = r;
	r = &r[(*nr)++];
	memset(r, 0, sizeof(*r));
	r->target = strdup(target);
	r->name = strdup(name);
	snprintf(r->access, sizeof(r->access), "%s", access ? access : "");
	r->hits = hits;
	return r->target && r->name ? 0 : -1;
}

/* Whitespace-separated words of a line, at most @max. */
static int words(char *line, char **w, int max)
{
	char *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(line, " \t", &save); t && n < max;
	     t = strtok_r(NULL, " \t", &save))
		w[n++] = t;
	return n;
}

static int parse_watches(struct ksym_stats *st, char *text)
{
	struct strv lines = { 0 };
	int i, ret = 0;

	split_lines(text, &lines);
	for (i = 0; i < lines.n && !ret; i++) {
		char *w[8], target[1100], *slash;
		int n = words(lines.v[i], w, 8);

		/* access, TARGET/LEN, hits, callers; skip the header */
		if (n < 4 || !strchr(w[1], '/'))
			continue;
		snprintf(target, sizeof(target), "%s", w[1]);
		slash = strrchr(target, '/');
		if (slash)
			*slash = '\0';
		ret = add_row(&st->watch, &st->nr_watch, target, w[1], w[0],
			      strtoul(w[2], NULL, 10));
	}
	strv_free(&lines);
	return ret;
}

static int parse_callers(struct ksym_stats *st, char *text)
{
	struct strv lines = { 0 };
	int i, j, ret = 0;

	split_lines(text, &lines);
	for (i = 0; i < lines.n && !ret; i++) {
		char *w[8], name[512] = "";
		int n = words(lines.v[i], w, 8);

		/* TARGET CALLER [MODULE] HITS SHARE% */
		if (n < 4 || !strcmp(w[0], "Symbol") || !strcmp(w[0], "------") ||
		    !strchr(w[n - 1], '%'))
			continue;
		for (j = 1; j < n - 2; j++) {
			if (j > 1)
				strncat(name, " ", sizeof(name) - strlen(name) - 1);
			strncat(name, w[j], sizeof(name) - strlen(name) - 1);
		}
		ret = add_row(&st->caller, &st->nr_caller, w[0], name, NULL,
			      strtoul(w[n - 2], NULL, 10));
	}
	strv_free(&lines);
	return ret;
}

int stats_parse(struct ksym_stats *st, const char *watches_text,
		const char *callers_text)
{
	char *copy;
	int ret = 0;

	memset(st, 0, sizeof(*st));
	if (watches_text) {
		copy = strdup(watches_text);
		ret |= copy ? parse_watches(st, copy) : -1;
		free(copy);
	}
	if (callers_text) {
		copy = strdup(callers_text);
		ret |= copy ? parse_callers(st, copy) : -1;
		free(copy);
	}
	return ret;
}

struct stat_row *stats_find_row(const struct stat_row *rows, int nr,
			       const char *target, const char *name)
{
	int i;

	for (i = 0; i < nr; i++)
		if (target_same(rows[i].target, target) &&
		    (!name || !strcmp(rows[i].name, name)))
			return (struct stat_row *)&rows[i];
	return NULL;
}

void stats_sub(struct ksym_stats *st, const struct ksym_stats *before)
{
	const struct stat_row *b;
	int i;

	for (i = 0; i < st->nr_watch; i++) {
		b = stats_find_row(before->watch, before->nr_watch, st->watch[i].target, NULL);
		if (b)
			st->watch[i].hits -= b->hits < st->watch[i].hits ?
					     b->hits : st->watch[i].hits;
	}
	for (i = 0; i < st->nr_caller; i++) {
		b = stats_find_row(before->caller, before->nr_caller,
			     st->caller[i].target, st->caller[i].name);
		if (b)
			st->caller[i].hits -= b->hits < st->caller[i].hits ?
					      b->hits : st->caller[i].hits;
	}
}

long stats_watch_hits(const struct ksym_stats *st, const char *target)
{
	const struct stat_row *r = stats_find_row(st->watch, st->nr_watch, target, NULL);

	return r ? (long)r->hits : -1;
}

static const struct strv *sort_targets;

static int target_index(const char *t)
{
	int i;

	for (i = 0; sort_targets && i < sort_targets->n; i++)
		if (target_same(sort_targets->v[i], t))
			return i;
	return 1 << 20;
}

static int cmp_callers(const void *pa, const void *pb)
{
	const struct stat_row *a = pa, *b = pb;
	int ia = target_index(a->target), ib = target_index(b->target);
	int oa = !strcmp(a->name, "[other]"), ob = !strcmp(b->name, "[other]");

	if (ia != ib)
		return ia < ib ? -1 : 1;
	if (ia == 1 << 20 && strcmp(a->target, b->target))
		return strcmp(a->target, b->target);
	if (oa != ob)
		return oa - ob;
	if (a->hits != b->hits)
		return a->hits > b->hits ? -1 : 1;
	return strcmp(a->name, b->name);
}

void stats_sort_callers(struct ksym_stats *st, const struct strv *targets)
{
	/* No caller row (a run without hits): no array, and qsort() takes no NULL. */
	if (!st->nr_caller)
		return;
	sort_targets = targets;
	qsort(st->caller, st->nr_caller, sizeof(*st->caller), cmp_callers);
	sort_targets = NULL;
}

static double share(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

static const struct json_look watches_look = { 2, 0, NULL };
static const struct json_look callers_look = { 4, 2, NULL };

/* The JSON of stats_print(): seconds, each watch with its hits and callers. */
static struct json_object *stats_json(const struct ksym_stats *st,
				      const struct strv *targets, double wall_s)
{
	struct json_object *o = json_object_new_object(), *watches, *callers, *w, *c;
	int i, j;

	if (!o)
		return NULL;
	if (wall_s > 0)
		json_object_object_add(o, "seconds", json_fixed(wall_s, 3));
	watches = json_look(json_object_new_array(), &watches_look);
	json_object_object_add(o, "watches", watches);
	for (i = 0; watches && i < targets->n; i++) {
		const struct stat_row *r = stats_find_row(st->watch, st->nr_watch,
							  targets->v[i], NULL);
		unsigned long hits = r ? r->hits : 0;

		w = json_object_new_object();
		json_object_object_add(w, "watch", json_text(r ? r->name : targets->v[i]));
		json_object_object_add(w, "access", json_text(r ? r->access : ""));
		json_object_object_add(w, "hits", json_object_new_uint64(hits));
		callers = json_look(json_object_new_array(), &callers_look);
		json_object_object_add(w, "callers", callers);
		for (j = 0; callers && j < st->nr_caller; j++) {
			const struct stat_row *cr = &st->caller[j];

			if (!target_same(cr->target, targets->v[i]) || !cr->hits)
				continue;
			c = json_object_new_object();
			json_object_object_add(c, "caller", json_text(cr->name));
			json_object_object_add(c, "hits", json_object_new_uint64(cr->hits));
			json_object_object_add(c, "percent", json_fixed(share(cr->hits, hits), 2));
			json_object_array_add(callers, c);
		}
		json_object_array_add(watches, w);
	}
	return o;
}

void stats_print(FILE *f, const struct ksym_stats *st,
		 const struct strv *targets, int json, const char *title,
		 double wall_s)
{
	int i, j;

	if (json) {
		struct json_object *o = stats_json(st, targets, wall_s);

		json_print(f, o);
		fputc('\n', f);
		json_object_put(o);
		return;
	}
	if (title)
		fprintf(f, "\n %s\n\n", title);
	for (i = 0; i < targets->n; i++) {
		const struct stat_row *w = stats_find_row(st->watch, st->nr_watch,
						    targets->v[i], NULL);
		unsigned long hits = w ? w->hits : 0;

		fprintf(f, "  %12lu   hits    %s %s\n", hits,
			w ? w->name : targets->v[i], w ? w->access : "");
		for (j = 0; j < st->nr_caller; j++) {
			const struct stat_row *c = &st->caller[j];

			if (!target_same(c->target, targets->v[i]) || !c->hits)
				continue;
			fprintf(f, "  %12lu  %6.2f%%   %s\n", c->hits,
				share(c->hits, hits), c->name);
		}
		fputc('\n', f);
	}
	if (wall_s > 0)
		fprintf(f, "  %.3f seconds time elapsed\n\n", wall_s);
}

void stats_free(struct ksym_stats *st)
{
	int i;

	for (i = 0; i < st->nr_watch; i++) {
		free(st->watch[i].target);
		free(st->watch[i].name);
	}
	for (i = 0; i < st->nr_caller; i++) {
		free(st->caller[i].target);
		free(st->caller[i].name);
	}
	free(st->watch);
	free(st->caller);
	memset(st, 0, sizeof(*st));
}
