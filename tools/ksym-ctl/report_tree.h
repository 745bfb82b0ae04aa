/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl report: the hits as a tree, keyed by the --sort keys (symbol,
 * caller, comm, cpu), each last-level entry with the tree of its call paths
 * (-g), printed as perf report -g prints it, or as JSON. Pure: it is fed
 * hits and unit tested on the host; report.c reads them from a trace.dat.
 *
 * Where the file's hits carry the value before the access (ksym_hit's old
 * and has_old), each entry also counts the hits that changed the value.
 */
#ifndef KSYM_CTL_REPORT_TREE_H
#define KSYM_CTL_REPORT_TREE_H

#include <stdbool.h>
#include <stdio.h>

enum report_key { KEY_SYMBOL, KEY_CALLER, KEY_COMM, KEY_CPU, NR_KEYS };

#define REPORT_MAX_KEYS	NR_KEYS

struct rnode {
	char		*name;
	unsigned long	hits;
	unsigned long	changed;	/* hits that changed the value (not in chains) */
	struct rnode	**kids;
	int		nr_kids;
	int		cap;
	struct rnode	*chain;		/* call paths, on last-level entries */
};

struct report {
	enum report_key	keys[REPORT_MAX_KEYS];
	int		nr_keys;
	bool		callchain;	/* -g: build the call path trees */
	/* the hits say whether they changed the value: "changed" in JSON */
	bool		old_values;
	/* -c: and in the text, after the hits (with old_values only) */
	bool		show_changed;
	struct rnode	root;
	unsigned long	hits;		/* every hit added */
	unsigned long	with_chain;	/* hits that came with a callchain, -g or not */
};

/* The values of one hit. */
struct report_hit {
	const char	*val[NR_KEYS];	/* indexed by enum report_key */
	const char	**frames;	/* accessor first; NULL: no callchain */
	int		nr_frames;
	/* its old value is known (has_old read, last or stale) and is not its value */
	bool		changed;
};

/* "symbol,caller" -> keys; 0, or -1 with a message. */
int report_parse_sort(struct report *r, const char *sort);
const char *report_key_name(enum report_key k);

int report_add(struct report *r, const struct report_hit *hit);

/* Sort every level: most hits first, then by name. */
void report_sort(struct report *r);

/* Text, perf report style; @title is printed as the first comment line. */
void report_print(FILE *f, const struct report *r, const char *title);
void report_print_json(FILE *f, const struct report *r, const char *file);

void report_free(struct report *r);

#endif
