// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: hits counted from ksym_hit entries (hitcount.h).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "hitcount.h"

/* HW_BREAKPOINT_R/W/X bits, as a ksym_hit's access field holds them. */
static const char *access_str(unsigned int access)
{
	switch (access) {
	case 1: return "r--";
	case 2: return "-w-";
	case 3: return "rw-";
	case 4: return "--x";
	default: return "???";
	}
}

/*
 * The address of a TARGET, when kallsyms alone tells it; 0 for a struct
 * member or an array element (BTF), a cast, or a per-CPU variable (each
 * CPU has its own copy: kallsyms gives an offset into the per-CPU area).
 */
static unsigned long long target_addr(const struct kallsyms *ks,
				      const char *target)
{
	unsigned long long addr, off = 0;
	char sym[512], *plus, *end;

	if (!strncmp(target, "0x", 2)) {
		addr = strtoull(target, &end, 16);
		return *end ? 0 : addr;
	}
	if (strpbrk(target, ".[(") || strlen(target) >= sizeof(sym))
		return 0;
	strcpy(sym, target);
	plus = strchr(sym, '+');
	if (plus) {
		*plus = '\0';
		off = strtoull(plus + 1, &end, 0);
		if (*end)
			return 0;
	}
	addr = kallsyms_addr(ks, sym);
	if (addr < 0x100000000ULL)
		return 0;
	return addr + off;
}

/* "TARGET/LEN:ACCESS[@CPUS][ # comment]" -> a watch; -1 if not one. */
static int parse_watch(const struct kallsyms *ks, const char *line,
		       const struct strv *targets, struct hc_watch *w)
{
	char *text, *p, *colon, *slash, *end;
	int ret = -1;

	/* A line may be longer than any fixed buffer: 1023-byte targets. */
	text = strdup(line);
	if (!text)
		return -1;
	p = strstr(text, " #");
	if (p)
		*p = '\0';
	colon = strrchr(text, ':');
	if (!colon)
		goto out;
	*colon = '\0';
	for (slash = colon; slash > text && *slash != '/'; slash--)
		;
	if (slash == text)
		goto out;
	*slash = '\0';
	memset(w, 0, sizeof(*w));
	w->len = strtoul(slash + 1, &end, 10);
	if (*end || !w->len)
		goto out;
	snprintf(w->access, sizeof(w->access), "%.3s", colon + 1);
	w->target = strdup(text);
	if (!w->target)
		goto out;
	w->ours = strv_find(targets, text) >= 0;
	w->addr = target_addr(ks, text);
	ret = 0;
out:
	free(text);
	return ret;
}

int hitcount_init(struct hitcount *hc, const char *filter,
		  const struct strv *targets, char *kallsyms)
{
	struct strv lines = { 0 };
	char *copy = NULL;
	int i, ret = -1;

	memset(hc, 0, sizeof(*hc));
	if (kallsyms_load(&hc->syms, kallsyms)) {
		err_msg("/proc/kallsyms shows no addresses (run as root, or see kptr_restrict): -p needs them to name the accessors\n");
		return -1;
	}
	copy = strdup(filter ? filter : "");
	if (!copy || split_lines(copy, &lines))
		goto out;
	hc->w = calloc(lines.n + 1, sizeof(*hc->w));
	if (!hc->w)
		goto out;
	for (i = 0; i < lines.n; i++)
		if (!parse_watch(&hc->syms, lines.v[i], targets, &hc->w[hc->nr_w]))
			hc->nr_w++;
	ret = 0;
out:
	free(copy);
	strv_free(&lines);
	return ret;
}

/* The watch of a hit, or -1 (see hitcount_add()). */
static int find_watch(const struct hitcount *hc, const char *sym,
		      unsigned long long addr, unsigned int len,
		      unsigned int access)
{
	int i, unknown = -1, nr_unknown = 0;

	for (i = 0; sym && *sym && i < hc->nr_w; i++)
		if (!strcmp(target_name(hc->w[i].target), sym))
			return i;
	for (i = 0; i < hc->nr_w; i++) {
		const struct hc_watch *w = &hc->w[i];

		if (w->addr && w->addr == addr && w->len == len)
			return i;
		if (!w->addr && w->len == len &&
		    !strcmp(w->access, access_str(access))) {
			unknown = i;
			nr_unknown++;
		}
	}
	return nr_unknown == 1 ? unknown : -1;
}

void hitcount_add(struct hitcount *hc, const char *sym,
		  unsigned long long addr, unsigned int len,
		  unsigned int access, unsigned long long caller)
{
	struct hc_caller *c;
	char name[300];
	int i, w = find_watch(hc, sym, addr, len, access);

	if (w < 0) {
		hc->unattributed++;
		return;
	}
	/* A watch of someone else's, armed by our instance too. */
	if (!hc->w[w].ours)
		return;
	hc->w[w].hits++;
	kallsyms_name(&hc->syms, caller, name, sizeof(name));
	for (i = 0; i < hc->nr_c; i++) {
		if (hc->c[i].watch == w && !strcmp(hc->c[i].name, name)) {
			hc->c[i].hits++;
			return;
		}
	}
	c = realloc(hc->c, (hc->nr_c + 1) * sizeof(*c));
	if (!c)
		return;
	hc->c = c;
	c = &c[hc->nr_c];
	c->name = strdup(name);
	if (!c->name)
		return;
	c->watch = w;
	c->hits = 1;
	hc->nr_c++;
}

/* Append to a growing string; -1 when out of memory. */
static int appendf(char **buf, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int appendf(char **buf, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *s, *n;
	int l;

	va_start(ap, fmt);
	l = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (l < 0)
		return -1;
	n = realloc(*buf, *len + l + 1);
	if (!n) {
		free(s);
		return -1;
	}
	memcpy(n + *len, s, l + 1);
	*buf = n;
	*len += l;
	free(s);
	return 0;
}

int hitcount_stats(const struct hitcount *hc, struct ksym_stats *st)
{
	char *watches = NULL, *callers = NULL;
	size_t wl = 0, cl = 0;
	int i, j, ret = 0;

	/* The layout of trace_stat/ksym_tracer and ksym_callers. */
	for (i = 0; i < hc->nr_w && !ret; i++) {
		const struct hc_watch *w = &hc->w[i];
		int nr = 0;

		if (!w->ours)
			continue;
		for (j = 0; j < hc->nr_c; j++)
			nr += hc->c[j].watch == i;
		/* trace_stat names a watch by its TARGET without the cast. */
		ret |= appendf(&watches, &wl, "  %-11s  %s/%u  %lu  %d  -\n",
			       w->access, target_name(w->target), w->len, w->hits, nr);
		for (j = 0; j < hc->nr_c && !ret; j++) {
			unsigned long pct;

			if (hc->c[j].watch != i)
				continue;
			pct = w->hits ? hc->c[j].hits * 10000 / w->hits : 0;
			ret |= appendf(&callers, &cl, "  %s  %s  %lu  %lu.%02lu%%\n",
				       target_name(w->target), hc->c[j].name, hc->c[j].hits,
				       pct / 100, pct % 100);
		}
	}
	if (!ret)
		ret = stats_parse(st, watches ? watches : "", callers ? callers : "");
	free(watches);
	free(callers);
	return ret;
}

void hitcount_free(struct hitcount *hc)
{
	int i;

	for (i = 0; i < hc->nr_w; i++)
		free(hc->w[i].target);
	for (i = 0; i < hc->nr_c; i++)
		free(hc->c[i].name);
	free(hc->w);
	free(hc->c);
	kallsyms_free(&hc->syms);
	memset(hc, 0, sizeof(*hc));
}

unsigned long counter_step(unsigned long prev, unsigned long now)
{
	/* Gone down: the watch was removed and added again, counting from 0. */
	return now >= prev ? now - prev : now;
}

/* @r with @hits added to @rows (or its row there grown by @hits). */
static int row_add(struct stat_row **rows, int *nr, const struct stat_row *r,
		   unsigned long hits, bool by_name)
{
	struct stat_row *row = stats_find_row(*rows, *nr, r->target, by_name ? r->name : NULL);

	if (row) {
		row->hits += hits;
		return 0;
	}
	row = realloc(*rows, (*nr + 1) * sizeof(*row));
	if (!row)
		return -1;
	*rows = row;
	row = &row[(*nr)++];
	*row = *r;
	row->hits = hits;
	row->target = strdup(r->target);
	row->name = strdup(r->name);
	return row->target && row->name ? 0 : -1;
}

static int rows_advance(struct stat_row **total, int *nr_total,
			struct stat_row **interval, int *nr_interval,
			struct stat_row *now, int nr_now,
			struct stat_row *prev, int nr_prev, bool by_name)
{
	int i;

	for (i = 0; i < nr_now; i++) {
		const struct stat_row *p = stats_find_row(prev, nr_prev, now[i].target,
						    by_name ? now[i].name : NULL);
		unsigned long step = counter_step(p ? p->hits : 0, now[i].hits);

		if (row_add(total, nr_total, &now[i], step, by_name) ||
		    row_add(interval, nr_interval, &now[i], step, by_name))
			return -1;
	}
	return 0;
}

int stats_advance(struct ksym_stats *total, struct ksym_stats *interval,
		  const struct ksym_stats *now, const struct ksym_stats *prev)
{
	stats_free(interval);
	return rows_advance(&total->watch, &total->nr_watch, &interval->watch,
			    &interval->nr_watch, now->watch, now->nr_watch,
			    prev->watch, prev->nr_watch, false) ||
	       rows_advance(&total->caller, &total->nr_caller, &interval->caller,
			    &interval->nr_caller, now->caller, now->nr_caller,
			    prev->caller, prev->nr_caller, true) ? -1 : 0;
}
