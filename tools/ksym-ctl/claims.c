// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: the claims of running ksym-ctl on watches and tracer options
 * (claims.h). The state file, one claim a line, its fields separated by
 * tabs (a tab, newline or backslash in a field is written \t, \n, \\):
 *
 *   boot	BOOT_ID
 *   w	TARGET	ORIGINAL LINE	LINE SET	OWNER,OWNER...
 *   o	OPTION	ORIGINAL VALUE	VALUE SET	OWNER,OWNER...
 *   s	FILE	ORIGINAL VALUE	VALUE SET	OWNER,OWNER...
 *   r	INSTANCE			INSTANCE
 */
#include <stdlib.h>
#include <string.h>

#include "claims.h"

/* Field @text (escaped) of length @len -> a malloc'ed, unescaped string. */
static char *unescape(const char *text, size_t len)
{
	char *s = malloc(len + 1), *o = s;
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		if (text[i] == '\\' && i + 1 < len) {
			i++;
			*o++ = text[i] == 't' ? '\t' : text[i] == 'n' ? '\n' : text[i];
		} else {
			*o++ = text[i];
		}
	}
	*o = '\0';
	return s;
}

static void escape(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\t')
			fputs("\\t", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else if (*s == '\\')
			fputs("\\\\", f);
		else
			fputc(*s, f);
	}
}

static void claim_free(struct claim *cl)
{
	free(cl->key);
	free(cl->orig);
	free(cl->set);
	strv_free(&cl->owners);
	memset(cl, 0, sizeof(*cl));
}

/* A new, empty claim at the end of @c (NULL: no memory). */
static struct claim *claim_new(struct claims *c, char kind, const char *key,
			       const char *orig, const char *set)
{
	struct claim *v = realloc(c->v, (c->n + 1) * sizeof(*v)), *cl;

	if (!v)
		return NULL;
	c->v = v;
	cl = &v[c->n];
	memset(cl, 0, sizeof(*cl));
	cl->kind = kind;
	cl->key = strdup(key);
	cl->orig = strdup(orig);
	cl->set = strdup(set);
	if (!cl->key || !cl->orig || !cl->set) {
		claim_free(cl);
		return NULL;
	}
	c->n++;
	return cl;
}

/* Split @line at tabs into at most @max fields (pointers and lengths). */
static int fields(const char *line, const char **f, size_t *len, int max)
{
	int n = 0;

	while (n < max) {
		const char *tab = strchr(line, '\t');

		f[n] = line;
		len[n] = tab ? (size_t)(tab - line) : strlen(line);
		n++;
		if (!tab)
			break;
		line = tab + 1;
	}
	return n;
}

static int parse_owners(struct claim *cl, const char *text)
{
	char *copy = strdup(text), *save = NULL, *o;
	int ret = 0;

	if (!copy)
		return -1;
	for (o = strtok_r(copy, ",", &save); o && !ret; o = strtok_r(NULL, ",", &save))
		if (strv_find(&cl->owners, o) < 0)
			ret = strv_add(&cl->owners, o);
	free(copy);
	return ret;
}

int claims_parse(struct claims *c, const char *text, const char *boot_id)
{
	char *copy = NULL, *save = NULL, *line;
	int ret = -1;

	memset(c, 0, sizeof(*c));
	c->boot_id = strdup(boot_id ? boot_id : "");
	copy = strdup(text ? text : "");
	if (!c->boot_id || !copy)
		goto out;
	ret = 0;
	for (line = strtok_r(copy, "\n", &save); line && !ret;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *f[6];
		char *v[5] = { NULL };
		size_t len[6];
		struct claim *cl;
		int n = fields(line, f, len, 6), i;

		if (n == 2 && len[0] == 4 && !strncmp(f[0], "boot", 4)) {
			/* Claims of an earlier boot: none of it holds now. */
			if (strlen(c->boot_id) != len[1] ||
			    strncmp(f[1], c->boot_id, len[1]))
				goto other_boot;
			continue;
		}
		if (n != 5 || len[0] != 1 ||
		    (f[0][0] != CLAIM_WATCH && f[0][0] != CLAIM_OPTION &&
		     f[0][0] != CLAIM_SETTING && f[0][0] != CLAIM_RUN) || !len[1])
			continue;
		for (i = 1; i < 5; i++) {
			v[i] = unescape(f[i], len[i]);
			if (!v[i])
				ret = -1;
		}
		if (!ret && !claims_find(c, f[0][0], v[1])) {
			cl = claim_new(c, f[0][0], v[1], v[2], v[3]);
			if (!cl || parse_owners(cl, v[4]))
				ret = -1;
		}
		for (i = 1; i < 5; i++)
			free(v[i]);
	}
out:
	free(copy);
	if (ret)
		claims_free(c);
	return ret;
other_boot:
	free(copy);
	while (c->n > 0)
		claim_free(&c->v[--c->n]);
	return 0;
}

char *claims_format(const struct claims *c)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int i, j;

	if (!f)
		return NULL;
	fputs("# ksym-ctl: watches and tracer options held by ksym-ctl runs (ksym-ctl(8), CONCURRENCY)\n", f);
	fputs("boot\t", f);
	escape(f, c->boot_id ? c->boot_id : "");
	fputc('\n', f);
	for (i = 0; i < c->n; i++) {
		const struct claim *cl = &c->v[i];

		fprintf(f, "%c\t", cl->kind);
		escape(f, cl->key);
		fputc('\t', f);
		escape(f, cl->orig);
		fputc('\t', f);
		escape(f, cl->set);
		fputc('\t', f);
		for (j = 0; j < cl->owners.n; j++) {
			if (j)
				fputc(',', f);
			escape(f, cl->owners.v[j]);
		}
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

const char *claim_kind_name(char kind)
{
	return kind == CLAIM_WATCH ? "watch" : kind == CLAIM_OPTION ? "option" :
	       kind == CLAIM_RUN ? "run" : "setting";
}

struct claim *claims_find(struct claims *c, char kind, const char *key)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].kind == kind &&
		    (kind == CLAIM_WATCH ? target_same(c->v[i].key, key) :
		     !strcmp(c->v[i].key, key)))
			return &c->v[i];
	return NULL;
}

bool claim_held_by_other(const struct claim *cl, const char *self,
			 claim_alive_fn alive, void *arg)
{
	int i;

	for (i = 0; i < cl->owners.n; i++)
		if ((!self || strcmp(cl->owners.v[i], self)) &&
		    (!alive || alive(cl->owners.v[i], arg)))
			return true;
	return false;
}

static int replace(char **s, const char *with)
{
	char *d = strdup(with);

	if (!d)
		return -1;
	free(*s);
	*s = d;
	return 0;
}

int claims_take(struct claims *c, char kind, const char *key,
		const char *before, const char *after, const char *owner,
		claim_alive_fn alive, void *arg)
{
	struct claim *cl = claims_find(c, kind, key);

	if (!cl)
		cl = claim_new(c, kind, key, before, after);
	else if (!claim_held_by_other(cl, owner, alive, arg)) {
		/*
		 * Its runs are gone. What they set is still there: the
		 * original is still theirs. Otherwise someone changed it
		 * since: what is there now is the original.
		 */
		if (strcmp(cl->set, CLAIM_PENDING) && strcmp(before, cl->set) &&
		    replace(&cl->orig, before))
			return -1;
		strv_free(&cl->owners);
		if (replace(&cl->set, after))
			return -1;
	}
	if (!cl)
		return -1;
	if (strv_find(&cl->owners, owner) >= 0)
		return 0;
	return strv_add(&cl->owners, owner);
}

static int strv_remove(struct strv *sv, int i)
{
	free(sv->v[i]);
	memmove(&sv->v[i], &sv->v[i + 1], (sv->n - i - 1) * sizeof(*sv->v));
	sv->n--;
	return 0;
}

/* Claim @i of @c moved to the end of @freed (or freed, without one). */
static int claim_move(struct claims *c, int i, struct claims *freed)
{
	struct claim *cl = &c->v[i];

	if (freed) {
		struct claim *f = realloc(freed->v, (freed->n + 1) * sizeof(*f));

		if (!f)
			return -1;
		freed->v = f;
		freed->v[freed->n++] = *cl;
	} else {
		claim_free(cl);
	}
	memmove(cl, cl + 1, (c->n - i - 1) * sizeof(*cl));
	c->n--;
	return 0;
}

int claims_release(struct claims *c, const char *owner, claim_alive_fn alive,
		   void *arg, struct claims *freed)
{
	int i, j;

	for (i = 0; i < c->n; i++) {
		struct claim *cl = &c->v[i];
		bool had = false;

		for (j = cl->owners.n - 1; j >= 0; j--) {
			const char *o = cl->owners.v[j];

			if (owner && !strcmp(o, owner))
				had = true;
			else if (!alive || alive(o, arg))
				continue;
			strv_remove(&cl->owners, j);
		}
		if (cl->owners.n || (owner && !had && cl->kind != CLAIM_RUN))
			continue;
		if (claim_move(c, i, cl->kind == CLAIM_RUN ? NULL : freed))
			return -1;
		i--;
	}
	return 0;
}

int claims_drop(struct claims *c, char kind, const char *key, const char *owner,
		struct claims *freed)
{
	struct claim *cl = claims_find(c, kind, key);
	int j;

	if (!cl || (j = strv_find(&cl->owners, owner)) < 0)
		return 0;
	strv_remove(&cl->owners, j);
	return cl->owners.n ? 0 : claim_move(c, cl - c->v, freed);
}

void claims_free(struct claims *c)
{
	int i;

	for (i = 0; i < c->n; i++)
		claim_free(&c->v[i]);
	free(c->v);
	free(c->boot_id);
	memset(c, 0, sizeof(*c));
}

/* Whether @s (of @len) is an ACCESS: [r-][w-][x-]. */
static bool is_access(const char *s, size_t len)
{
	return len == 3 && (s[0] == 'r' || s[0] == '-') &&
	       (s[1] == 'w' || s[1] == '-') && (s[2] == 'x' || s[2] == '-');
}

/* The ':' before a real ACCESS[@CPULIST] at the end of @s, or NULL. */
static const char *access_colon(const char *s)
{
	const char *colon = strrchr(s, ':');

	if (!colon)
		return NULL;
	/* "@CPULIST": digits, ',' and '-' */
	if (!is_access(colon + 1, strcspn(colon + 1, "@")))
		return NULL;
	if (colon[4] == '@' && (!colon[5] || strspn(colon + 5, "0123456789,-") != strlen(colon + 5)))
		return NULL;
	return colon;
}

void spec_target(const char *spec, char *buf, size_t size)
{
	const char *colon = access_colon(spec), *slash, *p;
	size_t len = colon ? (size_t)(colon - spec) : strlen(spec);

	/* "/LEN": digits after the last '/' of what is left. */
	for (slash = NULL, p = spec; p < spec + len; p++)
		if (*p == '/')
			slash = p;
	if (slash && slash + 1 < spec + len &&
	    strspn(slash + 1, "0123456789") == (size_t)(spec + len - slash - 1))
		len = slash - spec;
	if (!size)
		return;
	if (len >= size)
		len = size - 1;
	memcpy(buf, spec, len);
	buf[len] = '\0';
}

/*
 * The parts of @spec (or a canonical line, its comment dropped): "/LEN"'s
 * digits and "@CPULIST", each "" when it has none.
 */
static void spec_parts(const char *spec, char *len, size_t lsize, char *cpus,
		       size_t csize)
{
	char line[1100], target[1100];
	const char *colon, *p;

	snprintf(line, sizeof(line), "%.*s", (int)strcspn(spec, "#"), spec);
	while (*line && line[strlen(line) - 1] == ' ')
		line[strlen(line) - 1] = '\0';
	colon = access_colon(line);
	spec_target(line, target, sizeof(target));
	p = line + strlen(target);
	snprintf(len, lsize, "%.*s", *p == '/' ? (int)strspn(p + 1, "0123456789") : 0,
		 *p == '/' ? p + 1 : "");
	snprintf(cpus, csize, "%s", colon && colon[4] == '@' ? colon + 5 : "");
}

/* CPU list @list ("0-1,3") as a set in @set (CPUs up to @nr); -1 if bad. */
static int cpus_set(const char *list, unsigned char *set, unsigned int nr)
{
	const char *p = list;

	memset(set, 0, nr / 8);
	while (*p) {
		char *end;
		unsigned long a = strtoul(p, &end, 10), b = a;

		if (end == p)
			return -1;
		if (*end == '-') {
			p = end + 1;
			b = strtoul(p, &end, 10);
			if (end == p || b < a)
				return -1;
		}
		for (; a <= b && a < nr; a++)
			set[a / 8] |= 1 << (a % 8);
		if (b >= nr)
			return -1;
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return 0;
}

bool spec_differs(const char *want, const char *have)
{
	char wa[8], ha[8], wl[32], hl[32], wc[256], hc[256];
	unsigned char ws[1024], hs[1024];

	spec_access(want, wa, sizeof(wa));
	spec_access(have, ha, sizeof(ha));
	spec_parts(want, wl, sizeof(wl), wc, sizeof(wc));
	spec_parts(have, hl, sizeof(hl), hc, sizeof(hc));
	if ((*wa && strcmp(wa, ha)) || (*wl && strcmp(wl, hl)))
		return true;
	if (!*wc && !*hc)
		return false;
	if (!*wc || !*hc)
		return true;
	if (cpus_set(wc, ws, sizeof(ws) * 8) || cpus_set(hc, hs, sizeof(hs) * 8))
		return strcmp(wc, hc) != 0;
	return memcmp(ws, hs, sizeof(ws)) != 0;
}

void spec_access(const char *spec, char *buf, size_t size)
{
	char line[1100];
	const char *colon;

	/* A canonical line may end in a comment: "# disarmed: ...". */
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(spec, "#"), spec);
	while (*line && line[strlen(line) - 1] == ' ')
		line[strlen(line) - 1] = '\0';
	colon = access_colon(line);
	snprintf(buf, size, "%.*s", colon ? 3 : 0, colon ? colon + 1 : "");
}
