// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: /proc/kallsyms (kallsyms.h). Its lines:
 *
 *   ffffffff81234560 T do_proc_dointvec_minmax_conv
 *   ffffffffc0002000 b ksym_hitgen_var	[ksym_hitgen]
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kallsyms.h"

static int by_addr(const void *a, const void *b)
{
	const struct kallsym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

int kallsyms_load(struct kallsyms *ks, char *text)
{
	char *line, *save = NULL;
	bool any = false;
	int cap = 0;

	memset(ks, 0, sizeof(*ks));
	ks->text = text;
	for (line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *end, *type, *name, *mod;
		unsigned long long addr = strtoull(line, &end, 16);

		if (end == line || *end != ' ')
			continue;
		type = end + 1;
		if (!type[0] || type[1] != ' ' || !type[2])
			continue;
		name = type + 2;
		mod = strchr(name, '\t');
		if (mod) {
			*mod++ = '\0';
			if (*mod == '[' && mod[strlen(mod) - 1] == ']') {
				mod[strlen(mod) - 1] = '\0';
				mod++;
			} else {
				mod = NULL;
			}
		}
		if (addr)
			any = true;
		if (ks->nr == cap) {
			struct kallsym *s;

			cap = cap ? 2 * cap : 4096;
			s = realloc(ks->sym, cap * sizeof(*s));
			if (!s)
				return -1;
			ks->sym = s;
		}
		ks->sym[ks->nr++] = (struct kallsym){ addr, name, mod };
	}
	if (!any)
		return -1;
	qsort(ks->sym, ks->nr, sizeof(*ks->sym), by_addr);
	return 0;
}

const struct kallsym *kallsyms_find(const struct kallsyms *ks,
				    unsigned long long addr)
{
	int lo = 0, hi = ks->nr - 1, found = -1;

	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;

		if (ks->sym[mid].addr <= addr) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid - 1;
		}
	}
	/* Of several names at one address, always the same one. */
	while (found > 0 && ks->sym[found - 1].addr == ks->sym[found].addr)
		found--;
	return found < 0 ? NULL : &ks->sym[found];
}

void kallsyms_name(const struct kallsyms *ks, unsigned long long addr,
		   char *buf, size_t size)
{
	const struct kallsym *s = kallsyms_find(ks, addr);

	if (!s || !s->addr)
		snprintf(buf, size, "0x%llx", addr);
	else if (s->module)
		snprintf(buf, size, "%s [%s]", s->name, s->module);
	else
		snprintf(buf, size, "%s", s->name);
}

void kallsyms_name_off(const struct kallsyms *ks, unsigned long long addr,
		       char *buf, size_t size)
{
	const struct kallsym *s = ks ? kallsyms_find(ks, addr) : NULL;

	if (!s || !s->addr)
		snprintf(buf, size, "0x%llx", addr);
	else if (s->module)
		snprintf(buf, size, "%s+0x%llx [%s]", s->name, addr - s->addr,
			 s->module);
	else
		snprintf(buf, size, "%s+0x%llx", s->name, addr - s->addr);
}

unsigned long long kallsyms_addr(const struct kallsyms *ks, const char *name)
{
	const char *colon = strchr(name, ':');
	const char *sym = colon ? colon + 1 : name;
	size_t modlen = colon ? (size_t)(colon - name) : 0;
	unsigned long long in_module = 0;
	int i;

	for (i = 0; i < ks->nr; i++) {
		const struct kallsym *s = &ks->sym[i];

		if (strcmp(s->name, sym))
			continue;
		if (colon) {
			if (s->module && strlen(s->module) == modlen &&
			    !strncmp(s->module, name, modlen))
				return s->addr;
		} else if (!s->module) {
			return s->addr;
		} else if (!in_module) {
			in_module = s->addr;
		}
	}
	return in_module;
}

/* Whether @s is "[MODULE:]SYMBOL" @name; no MODULE: any. */
static bool sym_is(const struct kallsym *s, const char *name)
{
	const char *colon = strchr(name, ':');
	size_t modlen = colon ? (size_t)(colon - name) : 0;

	if (strcmp(s->name, colon ? colon + 1 : name))
		return false;
	return !colon || (s->module && strlen(s->module) == modlen &&
			  !strncmp(s->module, name, modlen));
}

int kallsyms_count(const struct kallsyms *ks, const char *name, char **list)
{
	size_t size = 0;
	FILE *f = NULL;
	int i, n = 0;

	if (list) {
		*list = NULL;
		f = open_memstream(list, &size);
		if (!f)
			return -1;
	}
	for (i = 0; i < ks->nr; i++) {
		const struct kallsym *s = &ks->sym[i];

		if (!sym_is(s, name))
			continue;
		n++;
		if (f)
			fprintf(f, "0x%llx %s%s%s%s\n", s->addr, s->name,
				s->module ? " [" : "", s->module ? s->module : "",
				s->module ? "]" : "");
	}
	if (f && fclose(f))
		return -1;
	return n;
}

int kallsyms_extent_at(const struct kallsyms *ks, unsigned long long a,
		       unsigned long long *start, unsigned long long *end)
{
	int lo = 0, hi = ks->nr;

	if (!a)
		return -1;
	/* The first symbol above it (the table is sorted by address). */
	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (ks->sym[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ks->nr)
		return -1;
	*start = a;
	*end = ks->sym[lo].addr;
	return 0;
}

int kallsyms_extent(const struct kallsyms *ks, const char *name,
		    unsigned long long *start, unsigned long long *end)
{
	return kallsyms_extent_at(ks, kallsyms_addr(ks, name), start, end);
}

/* *@why: the message (malloc'ed), NULL when out of memory. */
static void say(char **why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(why, fmt, ap) < 0)
		*why = NULL;
	va_end(ap);
}

/* Whether line "0xADDR NAME..." of kallsyms_count()'s @list has @addr. */
static bool listed_at(const char *list, unsigned long long addr)
{
	char needle[32];
	size_t n = snprintf(needle, sizeof(needle), "0x%llx ", addr);
	const char *p;

	for (p = list; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, needle, n))
			return true;
	return false;
}

int kallsyms_function(const struct kallsyms *ks, const char *spec,
		      unsigned long long *start, unsigned long long *end,
		      char **why)
{
	const char *at = strchr(spec, '@');
	char *name, *list = NULL, *e;
	unsigned long long addr = 0;
	int n, ret = -1;

	*why = NULL;
	name = strndup(spec, at ? (size_t)(at - spec) : strlen(spec));
	if (!name)
		return -1;
	if (at) {
		errno = 0;
		addr = strtoull(at + 1, &e, 16);
		if (errno || *e || strncmp(at + 1, "0x", 2) || e == at + 3) {
			say(why, "--kfree-site %s: FUNC@0xADDR wants a hex address\n", spec);
			goto out;
		}
	}
	n = kallsyms_count(ks, name, &list);
	if (n < 0)
		goto out;
	if (!n) {
		say(why, "--kfree-site %s: no such function in /proc/kallsyms\n", name);
		goto out;
	}
	if (at && !listed_at(list, addr)) {
		say(why, "--kfree-site %s: no %s at 0x%llx; /proc/kallsyms has:\n%s",
			 spec, name, addr, list);
		goto out;
	}
	if (!at && n > 1) {
		say(why, "--kfree-site %s: %d functions have that name; say which with MODULE:FUNC or FUNC@0xADDR:\n%s",
			 name, n, list);
		goto out;
	}
	if (kallsyms_extent_at(ks, at ? addr : kallsyms_addr(ks, name), start, end)) {
		say(why, "--kfree-site %s: its end is not known (the last symbol)\n", spec);
		goto out;
	}
	ret = 0;
out:
	free(list);
	free(name);
	return ret;
}

void kallsyms_free(struct kallsyms *ks)
{
	free(ks->sym);
	free(ks->text);
	memset(ks, 0, sizeof(*ks));
}
