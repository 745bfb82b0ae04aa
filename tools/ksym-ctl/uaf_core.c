// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: the options and what is written to tracefs (uaf.h).
 *
 * Owns: the parsing and checks of uaf's options (--offset, --len, -s,
 * --cache, --type, --field) and the spec they make (uaf_spec_finish()); the
 * text uaf writes to tracefs (the free and allocation events, their filters,
 * the ksym_watch/ksym_unwatch/stacktrace triggers, the hit's name); the
 * reading back of a trigger file, of trace_stat/ksym_triggers (coverage)
 * and of a CPU buffer's stats (how full).
 * Calls: utils.c (messages, counts, strv) only; pure, no tracefs. The pairing
 * and classification are uaf_pair.c's, the report uaf_print.c's, the reading
 * of records uaf_read.c's, the run uaf.c's.
 *
 * The events of the kernel this is written for (6.12,
 * include/trace/events/kmem.h): kmem_cache_free has call_site, ptr and the
 * cache's name; kmem_cache_alloc has call_site, ptr, bytes_req (the
 * cache's object_size), bytes_alloc, gfp_flags, node and accounted, no
 * name; kfree has call_site and ptr only, so objects freed by kfree() are
 * told by their call site and never by their size; kmalloc has call_site,
 * ptr, bytes_req, bytes_alloc, gfp_flags and node.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "uaf.h"

/* ------------------------------------------------------------------
 * Options.
 */

int uaf_parse_offset(const char *s, unsigned long *off)
{
	unsigned long v = ULONG_MAX;
	char *end = NULL;
	bool hex = s && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	/* Decimal, or 0x hex: never octal (010 is ten). */
	errno = 0;
	if (s && isxdigit((unsigned char)s[hex ? 2 : 0]) &&
	    (hex || isdigit((unsigned char)*s)))
		v = strtoul(s + (hex ? 2 : 0), &end, hex ? 16 : 10);
	if (v == ULONG_MAX || errno || !end || *end || v > UAF_OFFSET_MAX) {
		err_msg("--offset %s: not a byte offset from 0 to %d (e.g. 0, 16, 0x18)\n",
			s ? s : "", UAF_OFFSET_MAX);
		return -1;
	}
	*off = v;
	return 0;
}

int uaf_parse_len(const char *s, unsigned int *len)
{
	long v = parse_count(s);

	if (v != 1 && v != 2 && v != 4 && v != 8) {
		err_msg("--len %s: a watch is 1, 2, 4 or 8 bytes\n", s ? s : "");
		return -1;
	}
	*len = v;
	return 0;
}

int uaf_parse_slots(const char *s, int *slots)
{
	long v = parse_count(s);

	if (v < 1 || v > UAF_SLOTS_MAX) {
		err_msg("-s %s: ksym_trigger_slots takes 1 to %d (each slot is a debug register on every CPU)\n",
			s ? s : "", UAF_SLOTS_MAX);
		return -1;
	}
	*slots = v;
	return 0;
}

int uaf_check_cache_name(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("_-.:()", *p))
			break;
	if (!*name || *p || p - name > 64 || !strcmp(name, ".") ||
	    !strcmp(name, "..")) {
		err_msg("--cache '%s': not a slab cache name (/proc/slabinfo, /sys/kernel/slab list them)\n",
			name);
		return -1;
	}
	return 0;
}

static bool ident(const char **p)
{
	const char *s = *p;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	while (isalnum((unsigned char)*s) || *s == '_')
		s++;
	*p = s;
	return true;
}

int uaf_check_type(const char *type)
{
	const char *p = type;

	if (!strncmp(p, "struct ", 7))
		p += 7;
	else if (!strncmp(p, "union ", 6))
		p += 6;
	else
		p = NULL;
	if (!p || !ident(&p) || *p) {
		err_msg("--type '%s': give 'struct NAME' or 'union NAME' (the objects' type, from BTF)\n",
			type);
		return -1;
	}
	return 0;
}

int uaf_check_field(const char *path)
{
	const char *p = path;

	if (!ident(&p))
		goto bad;
	while (*p) {
		if (*p == '.') {
			p++;
			if (!ident(&p))
				goto bad;
		} else if (*p == '[') {
			p++;
			/* As the kernel prints it: no leading zero ([1], not [01]). */
			if (!isdigit((unsigned char)*p) ||
			    (*p == '0' && isdigit((unsigned char)p[1])))
				goto bad;
			while (isdigit((unsigned char)*p))
				p++;
			if (*p++ != ']')
				goto bad;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	err_msg("--field '%s': not a member path (MEMBER, MEMBER.MEMBER, MEMBER[N])\n",
		path);
	return -1;
}

unsigned long uaf_word_offset(const struct uaf_spec *sp)
{
	return (sp->field ? sp->field_offset : 0) + sp->offset;
}

unsigned int uaf_word_len(const struct uaf_spec *sp)
{
	unsigned long fs = sp->field ? sp->field_size : 0;

	if (sp->len)
		return sp->len;
	/* As the kernel: a field of 1, 2, 4 or 8 bytes is watched whole. */
	if (!sp->offset && (fs == 1 || fs == 2 || fs == 4 || fs == 8))
		return fs;
	return 8;
}

unsigned long uaf_object_extent(const struct uaf_spec *sp)
{
	unsigned long end = uaf_word_offset(sp) + uaf_word_len(sp);

	return sp->object_size > end ? sp->object_size : end;
}

const char *uaf_access(const struct uaf_spec *sp)
{
	return sp->write_only ? "-w-" : "rw-";
}

/* A malloc()ed string, or NULL. */
static char *str_vprintf(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static char *str_vprintf(const char *fmt, va_list ap)
{
	char *s = NULL;

	return vasprintf(&s, fmt, ap) < 0 ? NULL : s;
}

static char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *str_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = str_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

static int warn(struct strv *warnings, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int warn(struct strv *warnings, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int ret;

	va_start(ap, fmt);
	s = str_vprintf(fmt, ap);
	va_end(ap);
	ret = s ? strv_add(warnings, s) : -1;
	free(s);
	return ret;
}

int uaf_spec_finish(struct uaf_spec *sp, struct strv *warnings)
{
	unsigned long off, size = sp->object_size, fp;
	unsigned int len;

	if (sp->field && sp->len && sp->field_size && !sp->offset &&
	    sp->len > sp->field_size) {
		err_msg("--len %u: %s %s is %lu bytes\n", sp->len, sp->type,
			sp->field, sp->field_size);
		return -1;
	}
	off = uaf_word_offset(sp);
	len = uaf_word_len(sp);
	if (off % len) {
		err_msg("offset %lu is not aligned to --len %u: a watch is naturally aligned\n",
			off, len);
		return -1;
	}
	if (off > UAF_OFFSET_MAX) {
		err_msg("offset %lu: a trigger watches at most %d bytes into an object\n",
			off, UAF_OFFSET_MAX);
		return -1;
	}
	if (size && off + len > size) {
		err_msg("the word +%lu/%u is past the end of the %lu-byte objects\n",
			off, len, size);
		return -1;
	}
	if (!size)
		return 0;
	/*
	 * SLUB keeps its free pointer inside a free object, at
	 * ALIGN_DOWN(object_size / 2, sizeof(void *)) (calculate_sizes(),
	 * unless a constructor, RCU freeing or debugging puts it after the
	 * object): every free writes it, every allocation reads it.
	 */
	fp = (size / 2) & ~7UL;
	if (size < 16)
		if (warn(warnings, "the objects are %lu bytes: SLUB's free pointer is at +%lu, so the allocator touches the word on every free and allocation (counted as 'allocator', not as findings)",
			 size, fp))
			return -1;
	if (size >= 16 && off < fp + 8 && fp < off + len)
		if (warn(warnings, "the word +%lu/%u holds SLUB's free pointer (+%lu of %lu bytes): the allocator writes it on every free (counted as 'allocator'); +0 is usually free of it",
			 off, len, fp, size))
			return -1;
	return 0;
}

/* ------------------------------------------------------------------
 * What is written to tracefs.
 */

const char *uaf_free_event(const struct uaf_spec *sp)
{
	return sp->mode == UAF_CACHE ? "kmem:kmem_cache_free" : "kmem:kfree";
}

const char *uaf_alloc_event(const struct uaf_spec *sp)
{
	return sp->mode == UAF_CACHE ? "kmem:kmem_cache_alloc" : "kmem:kmalloc";
}

const char *uaf_alloc_event2(const struct uaf_spec *sp)
{
	/* kfree() takes objects of named caches too: their cache gives them out. */
	return sp->mode == UAF_CACHE ? NULL : "kmem:kmem_cache_alloc";
}

char *uaf_unwatch_trigger2(const struct uaf_spec *sp)
{
	const char *ev = uaf_alloc_event2(sp);

	return ev ? str_printf("%s:ksym_unwatch:ptr", ev) : NULL;
}

char *uaf_free_filter(const struct uaf_spec *sp)
{
	if (sp->mode == UAF_CACHE)
		return str_printf("name == \"%s\"", sp->cache);
	return str_printf("call_site >= 0x%llx && call_site < 0x%llx",
			  sp->site_start, sp->site_end);
}

char *uaf_alloc_filter(const struct uaf_spec *sp)
{
	/* kmem_cache_alloc's bytes_req is the cache's object_size. */
	if (sp->mode == UAF_CACHE && sp->object_size)
		return str_printf("bytes_req == %lu", sp->object_size);
	return NULL;
}

/* "+0x10/8" past the field or the object's start: the word. */
static void word_text(const struct uaf_spec *sp, char *buf, size_t size)
{
	int n = 0;

	buf[0] = '\0';
	if (sp->offset)
		n = snprintf(buf, size, "+0x%lx", sp->offset);
	if (sp->len || !sp->field)
		snprintf(buf + n, size - n, "/%u", uaf_word_len(sp));
}

char *uaf_watch_trigger(const struct uaf_spec *sp)
{
	char word[64], *filter = uaf_free_filter(sp), *t;

	if (!filter)
		return NULL;
	word_text(sp, word, sizeof(word));
	if (sp->field)
		t = str_printf("%s:ksym_watch:(%s)ptr.%s%s:%s if %s",
			       uaf_free_event(sp), sp->type, sp->field, word,
			       uaf_access(sp), filter);
	else
		t = str_printf("%s:ksym_watch:ptr%s:%s if %s", uaf_free_event(sp),
			       word, uaf_access(sp), filter);
	free(filter);
	return t;
}

char *uaf_unwatch_trigger(const struct uaf_spec *sp)
{
	char *filter = uaf_alloc_filter(sp), *t;

	t = str_printf("%s:ksym_unwatch:ptr%s%s", uaf_alloc_event(sp),
		       filter ? " if " : "", filter ? filter : "");
	free(filter);
	return t;
}

char *uaf_stack_trigger(const struct uaf_spec *sp)
{
	char *filter = uaf_free_filter(sp), *t;

	if (!filter)
		return NULL;
	t = str_printf("%s:stacktrace if %s", uaf_free_event(sp), filter);
	free(filter);
	return t;
}

char *uaf_hit_name(const struct uaf_spec *sp)
{
	const char *type = sp->type ? strchr(sp->type, ' ') : NULL;

	if (sp->field)
		return str_printf("%s.%s%s%.0lx", type ? type + 1 : "", sp->field,
				  sp->offset ? "+0x" : "", sp->offset);
	return str_printf("ptr%s%.0lx", sp->offset ? "+0x" : "", sp->offset);
}

int uaf_trigger_shown(const char *trigger_file, char *buf, size_t size)
{
	const char *line = trigger_file;

	while (line && *line) {
		const char *end = strchr(line, '\n'), *stop, *colon;
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > 11 && !strncmp(line, "ksym_watch:", 11)) {
			/* "ksym_watch:CANON:COUNT[ if FILTER]" */
			for (stop = line; stop < line + len; stop++)
				if (!strncmp(stop, " if ", 4))
					break;
			for (colon = stop - 1; colon > line + 10 && *colon != ':'; colon--)
				;
			if (colon <= line + 10 || (size_t)(colon - line) >= size)
				return -1;
			memcpy(buf, line, colon - line);
			buf[colon - line] = '\0';
			return 0;
		}
		line = end ? end + 1 : NULL;
	}
	return -1;
}

void uaf_coverage_parse(struct uaf_coverage *cov, const char *text,
			const char *event, const char *what)
{
	size_t elen = strlen(event), wlen = strlen(what);
	const char *line = text;

	memset(cov, 0, sizeof(*cov));
	/* "EVENT  TRIGGER  SLOTS/ASKED  ARMED  MISSED  REFUSED  UNWATCHED  TOOHOT  LIVE  HITS  ..." */
	while (line && *line) {
		const char *end = strchr(line, '\n');
		struct uaf_coverage c = { 0 };
		char rest[256];
		size_t len = end ? (size_t)(end - line) : strlen(line);

		if (len > elen + wlen + 4 && !strncmp(line, event, elen) &&
		    !strncmp(line + elen, "  ", 2) &&
		    !strncmp(line + elen + 2, what, wlen) &&
		    !strncmp(line + elen + 2 + wlen, "  ", 2)) {
			const char *p = line + elen + wlen + 4;

			snprintf(rest, sizeof(rest), "%.*s", (int)(len - (p - line)), p);
			if (sscanf(rest, "%d/%d %lu %lu %lu %lu %lu %*d %lu", &c.slots,
				   &c.nr_slots, &c.armed, &c.missed, &c.refused,
				   &c.unwatched, &c.too_hot, &c.hits) == 8) {
				c.rows = cov->rows + 1;
				*cov = c;
			}
		}
		line = end ? end + 1 : NULL;
	}
	cov->known = cov->rows == 1;
}

unsigned long uaf_pages_buffer_kb(unsigned long long mem_kb, long ncpus)
{
	unsigned long long kb = mem_kb / 32 / (ncpus > 0 ? ncpus : 1);

	if (kb > UAF_PAGES_BUFFER_KB)
		return UAF_PAGES_BUFFER_KB;
	return kb < UAF_BUFFER_KB ? UAF_BUFFER_KB : kb;
}

bool uaf_buffer_half_full(const char *stats, unsigned long buffer_kb)
{
	const char *line = stats;
	unsigned long long bytes;
	char end;

	while (line && *line) {
		if (sscanf(line, "bytes: %llu%c", &bytes, &end) == 2 && end == '\n')
			return bytes > (unsigned long long)buffer_kb * 512;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return false;
}
