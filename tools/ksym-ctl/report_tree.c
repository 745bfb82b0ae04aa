// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl report: the tree of hits and its printing (report_tree.h).
 *
 * Percentages: a first-level entry (a watched symbol, with the default
 * sort) shows its share of all hits; everything below it, the entries of
 * the other keys and the call paths, shows its share of that first-level
 * entry's hits, so the call-path branches of one symbol add up to the
 * share of the accessor they hang from.
 *
 * "changed" (files whose hits have an old value): per entry, the hits that
 * left the watched range other than they found it. A hit whose old value is
 * not known (none, or a has_old the kernel does not write) is not counted.
 * JSON has it wherever the file has old values; the text only with -c, so
 * that its lines stay what scripts (and the selftests) match.
 */
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "report_tree.h"
#include "utils.h"

static const char * const key_names[NR_KEYS] = {
	[KEY_SYMBOL]	= "symbol",
	[KEY_CALLER]	= "caller",
	[KEY_COMM]	= "comm",
	[KEY_CPU]	= "cpu",
};

const char *report_key_name(enum report_key k)
{
	return k < NR_KEYS ? key_names[k] : "?";
}

int report_parse_sort(struct report *r, const char *sort)
{
	char *copy = strdup(sort), *save = NULL, *tok;
	int k, ret = -1;

	if (!copy)
		return -1;
	r->nr_keys = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (k = 0; k < NR_KEYS; k++)
			if (!strcmp(tok, key_names[k]))
				break;
		if (k == NR_KEYS) {
			err_msg("--sort: unknown key '%s' (symbol, caller, comm, cpu)\n", tok);
			goto out;
		}
		for (int i = 0; i < r->nr_keys; i++)
			if (r->keys[i] == (enum report_key)k) {
				err_msg("--sort: key '%s' given twice\n", tok);
				goto out;
			}
		r->keys[r->nr_keys++] = k;
	}
	if (!r->nr_keys) {
		err_msg("--sort: no key\n");
		goto out;
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

static struct rnode *child(struct rnode *n, const char *name)
{
	struct rnode *c;
	int i;

	for (i = 0; i < n->nr_kids; i++)
		if (!strcmp(n->kids[i]->name, name))
			return n->kids[i];
	if (n->nr_kids == n->cap) {
		int cap = n->cap ? 2 * n->cap : 4;
		struct rnode **k = realloc(n->kids, cap * sizeof(*k));

		if (!k)
			return NULL;
		n->kids = k;
		n->cap = cap;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->name = strdup(name);
	if (!c->name) {
		free(c);
		return NULL;
	}
	n->kids[n->nr_kids++] = c;
	return c;
}

int report_add(struct report *r, const struct report_hit *hit)
{
	struct rnode *n = &r->root;
	int i;

	r->hits++;
	n->hits++;
	n->changed += hit->changed;
	for (i = 0; i < r->nr_keys; i++) {
		const char *v = hit->val[r->keys[i]];

		n = child(n, v ? v : "?");
		if (!n)
			return -1;
		n->hits++;
		n->changed += hit->changed;
	}
	if (!hit->frames)
		return 0;
	/* Counted with or without -g: the file has them either way. */
	r->with_chain++;
	if (!r->callchain)
		return 0;
	if (!n->chain) {
		n->chain = calloc(1, sizeof(*n->chain));
		if (!n->chain)
			return -1;
	}
	n = n->chain;
	n->hits++;
	for (i = 0; i < hit->nr_frames; i++) {
		n = child(n, hit->frames[i]);
		if (!n)
			return -1;
		n->hits++;
	}
	return 0;
}

static int cmp_nodes(const void *pa, const void *pb)
{
	const struct rnode *a = *(struct rnode * const *)pa;
	const struct rnode *b = *(struct rnode * const *)pb;

	if (a->hits != b->hits)
		return a->hits > b->hits ? -1 : 1;
	return strcmp(a->name, b->name);
}

static void sort_node(struct rnode *n)
{
	int i;

	if (n->nr_kids > 1)
		qsort(n->kids, n->nr_kids, sizeof(*n->kids), cmp_nodes);
	for (i = 0; i < n->nr_kids; i++)
		sort_node(n->kids[i]);
	if (n->chain)
		sort_node(n->chain);
}

void report_sort(struct report *r)
{
	sort_node(&r->root);
}

static double pct(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

/*
 * A name from the file (a comm, a watch's name, kallsyms), and its line's
 * end: a crafted file may hold terminal escapes (JSON has them escaped).
 */
static void put_name(FILE *f, const char *name)
{
	fput_printable(f, name);
	fputc('\n', f);
}

/* Whether @n goes on in one line: a single child with all of its hits. */
static bool straight(const struct rnode *n)
{
	return n->nr_kids == 1 && n->kids[0]->hits == n->hits;
}

/* The children of @n, as perf's graph: "|--12.50%--name" per branch. */
static void graph_children(FILE *f, const struct rnode *n, const char *prefix,
			   unsigned long total)
{
	char head[32], *p;
	int i;

	if (!n->nr_kids)
		return;
	if (straight(n)) {
		fputs(prefix, f);
		put_name(f, n->kids[0]->name);
		graph_children(f, n->kids[0], prefix, total);
		return;
	}
	fprintf(f, "%s|\n", prefix);
	for (i = 0; i < n->nr_kids; i++) {
		const struct rnode *k = n->kids[i];
		bool last = i == n->nr_kids - 1;
		size_t len;

		snprintf(head, sizeof(head), "--%.2f%%--", pct(k->hits, total));
		fprintf(f, "%s%s%s", prefix, last ? " " : "|", head);
		put_name(f, k->name);
		len = strlen(prefix) + 1 + strlen(head);
		p = malloc(len + 1);
		if (!p)
			return;
		snprintf(p, len + 1, "%s%s%*s", prefix, last ? " " : "|",
			 (int)strlen(head), "");
		graph_children(f, k, p, total);
		free(p);
		if (!last)
			fprintf(f, "%s|\n", prefix);
	}
}

static void print_chain(FILE *f, const struct rnode *chain, const char *prefix,
			unsigned long total)
{
	char *p;

	if (straight(chain)) {
		fprintf(f, "%s|\n", prefix);
		fprintf(f, "%s---", prefix);
		put_name(f, chain->kids[0]->name);
		if (asprintf(&p, "%s   ", prefix) < 0)
			return;
		graph_children(f, chain->kids[0], p, total);
		free(p);
	} else {
		/* A split at the accessor: graph_children prints its "|". */
		graph_children(f, chain, prefix, total);
	}
	fputc('\n', f);
}

/* The text's changed column: asked for (-c), and the file has old values. */
static bool changed_column(const struct report *r)
{
	return r->show_changed && r->old_values;
}

static void print_level(FILE *f, const struct report *r, const struct rnode *n,
			int level, unsigned long total)
{
	int i;

	for (i = 0; i < n->nr_kids; i++) {
		const struct rnode *k = n->kids[i];
		char prefix[64];

		if (level == 0) {
			fput_printable(f, k->name);
			fprintf(f, ": %lu hit%s (%.2f%% of all)",
				k->hits, k->hits == 1 ? "" : "s",
				pct(k->hits, r->hits));
			if (changed_column(r))
				fprintf(f, ", %lu changed", k->changed);
			fputs("\n\n", f);
			total = k->hits;
			snprintf(prefix, sizeof(prefix), "    ");
		} else {
			fprintf(f, "%*s%7.2f%%  %8lu  ", 4 * level, "",
				pct(k->hits, total), k->hits);
			/* the changed column: the call paths go below the name */
			if (changed_column(r))
				fprintf(f, "%8lu  ", k->changed);
			put_name(f, k->name);
			snprintf(prefix, sizeof(prefix), "%*s", 4 * level + 20 +
				 (changed_column(r) ? 10 : 0), "");
		}
		if (k->chain)
			print_chain(f, k->chain, prefix, total);
		else if (level == r->nr_keys - 1 && level > 0 &&
			 i == n->nr_kids - 1)
			fputc('\n', f);
		print_level(f, r, k, level + 1, total);
	}
}

void report_print(FILE *f, const struct report *r, const char *title)
{
	int i;

	fputs("# ", f);
	put_name(f, title);
	fprintf(f, "# %lu hit%s", r->hits, r->hits == 1 ? "" : "s");
	if (r->callchain)
		fprintf(f, ", %lu with a callchain", r->with_chain);
	else if (r->with_chain)
		fprintf(f, ", %lu with a callchain (-g shows them)", r->with_chain);
	fprintf(f, "; sort: ");
	for (i = 0; i < r->nr_keys; i++)
		fprintf(f, "%s%s", i ? "," : "", report_key_name(r->keys[i]));
	fprintf(f, "\n# percentages: a %s's share of all hits; below it, the share of its hits\n",
		report_key_name(r->keys[0]));
	if (changed_column(r))
		fprintf(f, "# changed (after the hits): hits that left the value other than they found it (old != value); %lu of %lu\n",
			r->root.changed, r->hits);
	fputs("#\n", f);
	print_level(f, r, &r->root, 0, r->hits);
}

static struct json_object *json_chain(const struct rnode *n, unsigned long total)
{
	struct json_object *a = json_object_new_array(), *o;
	int i;

	for (i = 0; a && i < n->nr_kids; i++) {
		const struct rnode *k = n->kids[i];

		o = json_object_new_object();
		json_object_object_add(o, "function", json_text(k->name));
		json_object_object_add(o, "hits", json_object_new_uint64(k->hits));
		json_object_object_add(o, "percent", json_fixed(pct(k->hits, total), 2));
		json_object_object_add(o, "children", json_chain(k, total));
		json_object_array_add(a, o);
	}
	return a;
}

/* Level N's entries: one a line, indented by 3 + 2N, the bracket by 1 + 2N. */
_Static_assert(REPORT_MAX_KEYS == 4, "one look per level");
static const struct json_look level_look[REPORT_MAX_KEYS] = {
#define LEVEL_LOOK(n)	[n] = { 3 + 2 * (n), 1 + 2 * (n), NULL }
	LEVEL_LOOK(0), LEVEL_LOOK(1), LEVEL_LOOK(2), LEVEL_LOOK(3),
#undef LEVEL_LOOK
};

static struct json_object *json_level(const struct report *r, const struct rnode *n,
				      int level, unsigned long total)
{
	struct json_object *a = json_look(json_object_new_array(), &level_look[level]), *o;
	int i;

	for (i = 0; a && i < n->nr_kids; i++) {
		const struct rnode *k = n->kids[i];
		unsigned long t = level ? total : k->hits;

		o = json_object_new_object();
		json_object_object_add(o, report_key_name(r->keys[level]), json_text(k->name));
		json_object_object_add(o, "hits", json_object_new_uint64(k->hits));
		json_object_object_add(o, "percent",
				       json_fixed(pct(k->hits, level ? total : r->hits), 2));
		if (r->old_values)
			json_object_object_add(o, "changed", json_object_new_uint64(k->changed));
		if (level + 1 < r->nr_keys)
			json_object_object_add(o, "entries", json_level(r, k, level + 1, t));
		if (k->chain)
			json_object_object_add(o, "callchain", json_chain(k->chain, t));
		json_object_array_add(a, o);
	}
	return a;
}

static const char * const report_breaks[] = { "entries", NULL };
static const struct json_look report_look = { -1, -1, report_breaks };

void report_print_json(FILE *f, const struct report *r, const char *file)
{
	struct json_object *o = json_look(json_object_new_object(), &report_look), *keys;
	int i;

	if (!o)
		return;
	json_object_object_add(o, "file", json_text(file ? file : ""));
	json_object_object_add(o, "hits", json_object_new_uint64(r->hits));
	json_object_object_add(o, "with_callchain", json_object_new_uint64(r->with_chain));
	keys = json_object_new_array();
	for (i = 0; keys && i < r->nr_keys; i++)
		json_object_array_add(keys, json_text(report_key_name(r->keys[i])));
	json_object_object_add(o, "sort", keys);
	/* With -g, each last-level entry has its "callchain" tree. */
	json_object_object_add(o, "call_graph", json_object_new_boolean(r->callchain));
	/* Only from files whose hits have the old value: each entry's too. */
	if (r->old_values)
		json_object_object_add(o, "changed", json_object_new_uint64(r->root.changed));
	json_object_object_add(o, "entries", json_level(r, &r->root, 0, r->hits));
	json_print(f, o);
	fputc('\n', f);
	json_object_put(o);
}

static void free_node(struct rnode *n)
{
	int i;

	for (i = 0; i < n->nr_kids; i++) {
		free_node(n->kids[i]);
		free(n->kids[i]);
	}
	if (n->chain) {
		free_node(n->chain);
		free(n->chain);
	}
	free(n->kids);
	free(n->name);
	memset(n, 0, sizeof(*n));
}

void report_free(struct report *r)
{
	free_node(&r->root);
	r->hits = r->with_chain = 0;
}
