// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: the pure parts (uaf.h).
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

#include <json.h>

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

/* ------------------------------------------------------------------
 * The events.
 */

/* Room for one more of @size in *@v (of *@cap, @n used); 0 or -1. */
static int grow(void **v, int *cap, int n, size_t size)
{
	void *p;
	int c;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : 64;
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return -1;
	*v = p;
	*cap = c;
	return 0;
}

/* @item appended to *@v; 0 or -1. */
static int append(void **v, int *n, int *cap, const void *item, size_t size)
{
	if (grow(v, cap, *n, size))
		return -1;
	memcpy((char *)*v + (size_t)(*n)++ * size, item, size);
	return 0;
}

int uaf_add_free(struct uaf_data *d, const struct uaf_free *f)
{
	d->analyzed = false;
	return append((void **)&d->frees, &d->nr_frees, &d->cap_frees, f, sizeof(*f));
}

int uaf_add_alloc(struct uaf_data *d, const struct uaf_alloc *a)
{
	d->analyzed = false;
	return append((void **)&d->allocs, &d->nr_allocs, &d->cap_allocs, a, sizeof(*a));
}

int uaf_add_hit(struct uaf_data *d, const struct uaf_hit *h)
{
	struct uaf_hit copy = *h;

	copy.cls = UAF_UNPAIRED;
	copy.free = -1;
	d->analyzed = false;
	return append((void **)&d->hits, &d->nr_hits, &d->cap_hits, &copy, sizeof(copy));
}

int uaf_add_page(struct uaf_data *d, const struct uaf_page *p)
{
	d->analyzed = false;
	return append((void **)&d->pages, &d->nr_pages, &d->cap_pages, p, sizeof(*p));
}

bool uaf_pfn(const struct uaf_data *d, unsigned long long addr,
	     unsigned long long *pfn)
{
	if (!d->base_known || !d->page_size || addr < d->page_base)
		return false;
	*pfn = (addr - d->page_base) / d->page_size;
	return true;
}

static unsigned int stack_hash(const unsigned long long *ip, int nr)
{
	unsigned long long h = 1469598103934665603ULL;
	int i;

	for (i = 0; i < nr; i++)
		h = (h ^ ip[i]) * 1099511628211ULL;
	return (unsigned int)(h ^ (h >> 32)) ^ (unsigned int)nr;
}

static bool stack_same(const struct uaf_stack *s, const unsigned long long *ip, int nr)
{
	return s->nr == nr && !memcmp(s->ip, ip, nr * sizeof(*ip));
}

static int rehash(struct uaf_data *d, int size)
{
	int *t = malloc(size * sizeof(*t)), i;

	if (!t)
		return -1;
	for (i = 0; i < size; i++)
		t[i] = -1;
	for (i = 0; i < d->nr_stacks; i++) {
		unsigned int j = stack_hash(d->stacks[i].ip, d->stacks[i].nr) & (size - 1);

		while (t[j] >= 0)
			j = (j + 1) & (size - 1);
		t[j] = i;
	}
	free(d->stack_hash);
	d->stack_hash = t;
	d->hash_size = size;
	return 0;
}

int uaf_add_stack(struct uaf_data *d, const unsigned long long *ip, int nr)
{
	struct uaf_stack *s;
	unsigned int j;

	if (nr < 0)
		return -1;
	if (nr > UAF_FRAMES_MAX)
		nr = UAF_FRAMES_MAX;
	/* Callchains repeat (one free site, one accessor): kept once. */
	if (2 * (d->nr_stacks + 1) > d->hash_size &&
	    rehash(d, d->hash_size ? 2 * d->hash_size : 256))
		return -1;
	j = stack_hash(ip, nr) & (d->hash_size - 1);
	for (; d->stack_hash[j] >= 0; j = (j + 1) & (d->hash_size - 1))
		if (stack_same(&d->stacks[d->stack_hash[j]], ip, nr))
			return d->stack_hash[j];
	if (grow((void **)&d->stacks, &d->cap_stacks, d->nr_stacks, sizeof(*s)))
		return -1;
	s = &d->stacks[d->nr_stacks];
	s->ip = malloc((nr ? nr : 1) * sizeof(*ip));
	if (!s->ip)
		return -1;
	memcpy(s->ip, ip, nr * sizeof(*ip));
	s->nr = nr;
	d->stack_hash[j] = d->nr_stacks;
	return d->nr_stacks++;
}

/* ------------------------------------------------------------------
 * Who touched the object.
 */

bool uaf_allocator_function(const char *fn)
{
	/* Prefixes: the slab allocator's entries and insides, 6.12's names. */
	static const char * const prefix[] = {
		"kmem_cache_alloc", "kmem_cache_free", "__kmem_cache_",
		"kmalloc", "__kmalloc", "kmalloc_large", "krealloc",
		"__do_krealloc", "__do_kmalloc", "kvmalloc", "kvrealloc",
		"slab_", "__slab_", "___slab_", "do_slab_free", "free_to_partial_list",
		"alloc_debug_processing", "free_debug_processing",
		"maybe_wipe_obj_freeptr", "set_freepointer", "get_freepointer",
		"init_object", "setup_object", "memcg_slab_", "__memcg_slab_",
		"alloc_tagging_slab_", "kasan_", "__kasan_", "qlist_", "qlink_",
		"kfence_", "__kfence_", "kmsan_", "__kmsan_", "rcu_free_sheaf",
		"deactivate_slab", "build_detached_freelist", "allocate_slab",
		"new_slab", "shuffle_freelist", "get_partial", "put_cpu_partial",
		"unfreeze_partials", "__unfreeze_partials", "discard_slab",
		"free_slab", "__free_slab", "rcu_free_slab", "check_object",
		"check_slab", "on_freelist", "validate_slab", "freelist_",
		/* the page allocator's, clearing or checking a page it hands out */
		"__alloc_pages", "alloc_pages", "__alloc_frozen_pages",
		"get_page_from_freelist", "prep_new_page", "post_alloc_hook",
		"kernel_init_pages", "clear_page", "clear_highpage", "free_pages",
		"__free_pages", "free_unref_page", "free_unref_folios",
		"free_pcppages_bulk", "__free_one_page", "free_pages_prepare",
		"__free_pages_ok", "rmqueue",
	};
	/* Whole names: prefixes of these would take in kfree_skb and the like. */
	static const char * const whole[] = {
		"kfree", "kfree_sensitive", "kvfree", "kvfree_sensitive",
		"kfree_const", "__kfree", "kmem_cache_free_bulk",
		"kvfree_rcu_bulk", "kfree_rcu_work", "kfree_rcu_monitor",
		"kvfree_call_rcu", "__kvfree_call_rcu",
	};
	size_t i;

	if (!fn)
		return false;
	for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
		if (!strcmp(fn, whole[i]))
			return true;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(fn, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/* Frames of the stacktrace trigger itself, before the free's own. */
static bool tracing_function(const char *fn)
{
	static const char * const prefix[] = {
		"__traceiter_", "trace_event_", "event_trigger", "event_triggers_",
		"stacktrace_trigger", "stacktrace_count_trigger", "__trace_stack",
		"__ftrace_trace_stack", "ftrace_trace_stack", "trace_buffer_unlock_commit",
		"perf_trace_", "trace_dump_stack",
	};
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (fn && !strncmp(fn, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static const char *fn_name(const struct kallsyms *ks, unsigned long long addr)
{
	const struct kallsym *s = ks ? kallsyms_find(ks, addr) : NULL;

	return s && s->addr ? s->name : NULL;
}

bool uaf_helper_function(const char *fn)
{
	/* The string and page helpers, and their arch and instrumented names. */
	static const char * const prefix[] = {
		"memset", "memcpy", "memmove", "memzero_explicit", "__memset",
		"__memcpy", "__memmove", "__pi_", "clear_page",
		"__clear_page", "copy_page", "__copy_page", "clear_user",
		"__clear_user", "rep_stos_", "rep_movs_",
	};
	size_t i;

	if (!fn)
		return false;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(fn, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

bool uaf_entry_function(const char *fn)
{
	static const char * const prefix[] = {
		"asm_", "exc_", "irq_exit", "__irq_exit", "el0_", "el1_", "el0t_",
		"el1h_", "handle_softirqs", "__do_softirq", "do_softirq",
		"sysvec_", "__sysvec_", "common_interrupt", "do_interrupt",
	};
	size_t i;

	if (!fn)
		return false;
	if (strstr(fn, "interrupt") || strstr(fn, "irq_work"))
		return true;
	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (!strncmp(fn, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

/*
 * Where SLUB calls a cache's constructor, filling a new slab
 * (setup_object(), often inlined into its callers): the constructor's
 * writes are the allocator's.
 */
static bool ctor_caller(const char *fn)
{
	static const char * const name[] = {
		"setup_object", "shuffle_freelist", "allocate_slab", "new_slab",
	};
	size_t i;

	for (i = 0; fn && i < sizeof(name) / sizeof(name[0]); i++)
		if (!strncmp(fn, name[i], strlen(name[i])))
			return true;
	return false;
}

bool uaf_allocator_frames(const char * const *fn, int nr)
{
	int i;

	/*
	 * The innermost frame that is not memset and the like decides: a
	 * use after free in an interrupt that came in inside kmalloc, or a
	 * shrinker the page allocator called, is not the allocator's even
	 * though the allocator is further out. A cache's constructor is
	 * (its caller says so).
	 */
	for (i = 0; i < nr; i++) {
		if (uaf_entry_function(fn[i]))
			return false;
		if (!uaf_helper_function(fn[i]))
			return uaf_allocator_function(fn[i]) ||
			       (i + 1 < nr && ctor_caller(fn[i + 1]));
	}
	return false;
}

static bool allocated_between(const struct uaf_data *d, unsigned long long ptr,
			      unsigned long long from, unsigned long long to);

/*
 * Without a callchain (no ksym-stack), a hit in memset() and the like is
 * the allocator's when the object's allocation event comes right after it:
 * init_on_alloc and __GFP_ZERO clear the object before the event (review
 * 11-28 L6).
 */
#define UAF_ZEROING_NS	1000000ULL

static bool by_allocator(const struct uaf_data *d, const struct uaf_hit *h,
			 const struct kallsyms *ks)
{
	const char *fn[UAF_FRAMES_MAX + 1];
	const struct uaf_stack *s = NULL;
	int i, nr = 0, from = 0;

	if (h->stack >= 0 && h->stack < d->nr_stacks)
		s = &d->stacks[h->stack];
	/* The accessor, then its callers (the callchain's first frame is it, too). */
	fn[nr++] = fn_name(ks, h->ip);
	if (s && s->nr && s->ip[0] == h->ip)
		from = 1;
	for (i = from; s && i < s->nr && nr < UAF_FRAMES_MAX + 1; i++)
		fn[nr++] = fn_name(ks, s->ip[i]);
	if (nr == 1 && uaf_helper_function(fn[0]) && h->free >= 0 &&
	    h->free < d->nr_frees && h->ts &&
	    allocated_between(d, d->frees[h->free].ptr, h->ts - 1,
			      h->ts + UAF_ZEROING_NS))
		return true;
	return uaf_allocator_frames(fn, nr);
}

/* By object, then by time. */
static int cmp_ptr_ts(unsigned long long p1, unsigned long long t1,
		      unsigned long long p2, unsigned long long t2)
{
	if (p1 != p2)
		return p1 < p2 ? -1 : 1;
	return t1 < t2 ? -1 : t1 > t2;
}

static int cmp_free(const void *a, const void *b)
{
	const struct uaf_free *x = a, *y = b;

	return cmp_ptr_ts(x->ptr, x->ts, y->ptr, y->ts);
}

static int cmp_alloc(const void *a, const void *b)
{
	const struct uaf_alloc *x = a, *y = b;

	return cmp_ptr_ts(x->ptr, x->ts, y->ptr, y->ts);
}

static int cmp_ull(const void *a, const void *b)
{
	const unsigned long long *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int cmp_hit(const void *a, const void *b)
{
	const struct uaf_hit *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->cpu - y->cpu;
}

/* The first free of an object above @ptr (frees sorted by ptr, ts). */
static int frees_above(const struct uaf_data *d, unsigned long long ptr)
{
	int lo = 0, hi = d->nr_frees;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (d->frees[mid].ptr <= ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The first free of @ptr (or of the next object above it). */
static int frees_from(const struct uaf_data *d, unsigned long long ptr)
{
	int lo = 0, hi = d->nr_frees;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (d->frees[mid].ptr < ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The latest free, at or before @ts, of an object [ptr, ptr + @extent)
 * that holds @addr; -1 when there is none.
 */
static int find_free(const struct uaf_data *d, unsigned long long addr,
		     unsigned long long ts, unsigned long extent)
{
	int i = frees_above(d, addr) - 1, best = -1;

	while (i >= 0 && addr - d->frees[i].ptr < extent) {
		int start = frees_from(d, d->frees[i].ptr), lo = start, hi = i + 1;

		/* The last free of this object at or before @ts. */
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (d->frees[mid].ts <= ts)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > start && (best < 0 || d->frees[lo - 1].ts > d->frees[best].ts))
			best = lo - 1;
		i = start - 1;
	}
	return best;
}

/* Whether @ptr was allocated again after @from and at or before @to. */
static bool allocated_between(const struct uaf_data *d, unsigned long long ptr,
			      unsigned long long from, unsigned long long to)
{
	int lo = 0, hi = d->nr_allocs;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		const struct uaf_alloc *a = &d->allocs[mid];

		if (a->ptr < ptr || (a->ptr == ptr && a->ts <= from))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < d->nr_allocs && d->allocs[lo].ptr == ptr &&
	       d->allocs[lo].ts <= to;
}

/*
 * Whether the page of @addr was given out again by the page allocator after
 * @from and at or before @to: the slab page was freed (it emptied) and
 * someone else has it now.
 */
static bool page_given_out(const struct uaf_data *d, unsigned long long addr,
			   unsigned long long from, unsigned long long to)
{
	unsigned long long pfn;
	int i;

	if (!uaf_pfn(d, addr, &pfn))
		return false;
	for (i = 0; i < d->nr_pages; i++) {
		const struct uaf_page *p = &d->pages[i];

		if (p->ts > from && p->ts <= to && p->order < 64 && pfn >= p->pfn &&
		    pfn - p->pfn < (1ULL << p->order))
			return true;
	}
	return false;
}

/*
 * Whether free @i's object is freed again later with no allocation seen
 * between: it was handed out without an allocation event (bulk
 * allocation), so a hit between the two frees is its new owner's.
 */
static bool freed_again_unseen(const struct uaf_data *d, int i)
{
	const struct uaf_free *f = &d->frees[i], *next;

	if (i + 1 >= d->nr_frees || d->frees[i + 1].ptr != f->ptr)
		return false;
	next = &d->frees[i + 1];
	return !allocated_between(d, f->ptr, f->ts, next->ts);
}

void uaf_analyze(struct uaf_data *d, unsigned long extent,
		 const struct kallsyms *ks)
{
	unsigned long long *obj;
	int i, n;

	if (d->nr_frees)
		qsort(d->frees, d->nr_frees, sizeof(*d->frees), cmp_free);
	if (d->nr_allocs)
		qsort(d->allocs, d->nr_allocs, sizeof(*d->allocs), cmp_alloc);
	if (d->nr_hits)
		qsort(d->hits, d->nr_hits, sizeof(*d->hits), cmp_hit);
	memset(d->count, 0, sizeof(d->count));
	d->objects = 0;
	if (!extent)
		extent = 1;
	for (i = 0, n = 0; i < d->nr_hits; i++) {
		struct uaf_hit *h = &d->hits[n];
		const struct uaf_free *f;

		d->hits[n] = d->hits[i];
		h->free = find_free(d, h->addr, h->ts, extent);
		f = h->free >= 0 ? &d->frees[h->free] : NULL;
		/*
		 * Our watch starts at a free this instance recorded before the
		 * trigger fired: with no event lost, a hit no free explains is
		 * another hunt's (its watch has the same name, review 11-28 L7).
		 */
		if (!f && !d->lost) {
			d->other_hits++;
			continue;
		}
		n++;
		if (!f)
			h->cls = UAF_UNPAIRED;
		else if (by_allocator(d, h, ks))
			h->cls = UAF_ALLOCATOR;
		else if (allocated_between(d, f->ptr, f->ts, h->ts) ||
			 page_given_out(d, h->addr, f->ts, h->ts))
			h->cls = UAF_REALLOCATED;
		else if (freed_again_unseen(d, h->free))
			h->cls = UAF_UNSEEN_REALLOC;
		else
			h->cls = UAF_USE;
		d->count[h->cls]++;
	}
	d->nr_hits = n;
	/* Objects used after free: the distinct objects of the findings' frees. */
	obj = malloc((d->count[UAF_USE] + 1) * sizeof(*obj));
	for (i = 0, n = 0; obj && i < d->nr_hits; i++)
		if (d->hits[i].cls == UAF_USE)
			obj[n++] = d->frees[d->hits[i].free].ptr;
	if (n)
		qsort(obj, n, sizeof(*obj), cmp_ull);
	for (i = 0; i < n; i++)
		d->objects += !i || obj[i] != obj[i - 1];
	free(obj);
	d->analyzed = true;
}

void uaf_data_free(struct uaf_data *d)
{
	int i;

	for (i = 0; i < d->nr_stacks; i++)
		free(d->stacks[i].ip);
	free(d->stacks);
	free(d->stack_hash);
	free(d->frees);
	free(d->allocs);
	free(d->hits);
	free(d->pages);
	memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------
 * The report.
 */

static void duration(char *buf, size_t size, unsigned long long ns)
{
	if (ns < 1000000ULL)
		snprintf(buf, size, "%.3f us", ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, size, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
}

/* What the access was: rw- cannot tell a read from a write on x86. */
static const char *access_word(const struct uaf_hit *h)
{
	bool changed = h->has_value && h->has_old != UAF_OLD_NONE &&
		       h->old != h->value;

	if (h->access == 2)
		return "write";
	if (h->access == 1)
		return "read";
	return changed ? "write" : "read or write";
}

static const char *old_source(unsigned int has_old)
{
	switch (has_old) {
	case UAF_OLD_READ:
		return "read";
	case UAF_OLD_LAST:
		return "last";
	case UAF_OLD_STALE:
		return "stale";
	default:
		return "none";
	}
}

/* The frames of stack @idx to print: the tracing frames before the rest left out. */
static int stack_frames(const struct uaf_data *d, int idx,
			const struct kallsyms *ks, const unsigned long long **ip)
{
	const struct uaf_stack *s;
	int i = 0;

	if (idx < 0 || idx >= d->nr_stacks) {
		*ip = NULL;
		return 0;
	}
	s = &d->stacks[idx];
	while (i < s->nr && tracing_function(fn_name(ks, s->ip[i])))
		i++;
	*ip = s->ip + i;
	return s->nr - i;
}

static void print_stack(FILE *f, const struct uaf_data *d, int idx,
			const struct kallsyms *ks, const char *indent)
{
	const unsigned long long *ip;
	int i, nr = stack_frames(d, idx, ks, &ip);
	char name[300];

	if (!nr)
		fprintf(f, "%s(no callchain)\n", indent);
	for (i = 0; i < nr; i++) {
		kallsyms_name_off(ks, ip[i], name, sizeof(name));
		fprintf(f, "%s%s\n", indent, name);
	}
}

static void print_task(FILE *f, const char *comm, int pid, int cpu)
{
	if (*comm && strcmp(comm, "<...>"))
		fput_printable(f, comm);
	else
		fputs("task", f);
	fprintf(f, " (pid %d) on CPU %d", pid, cpu);
}

static void print_hit(FILE *f, const struct uaf_data *d, const struct uaf_hit *h,
		      const char *what, int n, const struct kallsyms *ks)
{
	const struct uaf_free *fr = h->free >= 0 ? &d->frees[h->free] : NULL;
	char name[300], site[300], since[32];

	kallsyms_name_off(ks, h->ip, name, sizeof(name));
	fprintf(f, "%s %d: %s by %s", what, n, access_word(h), name);
	if (fr) {
		duration(since, sizeof(since), h->ts - fr->ts);
		fprintf(f, ", %s after the free", since);
	}
	fputc('\n', f);
	if (fr)
		fprintf(f, "    object 0x%llx +0x%llx/%u:", fr->ptr, h->addr - fr->ptr,
			h->len);
	else
		fprintf(f, "    address 0x%llx/%u:", h->addr, h->len);
	if (h->has_value)
		fprintf(f, " value=0x%llx", h->value);
	else
		fputs(" value=unread", f);
	if (h->has_old == UAF_OLD_NONE)
		fputs(" old=none", f);
	else
		fprintf(f, " old=%s0x%llx", h->has_old == UAF_OLD_STALE ? "stale:" : "",
			h->old);
	fputc('\n', f);
	fputs("    accessed by ", f);
	print_task(f, h->comm, h->pid, h->cpu);
	fputs(":\n", f);
	print_stack(f, d, h->stack, ks, "        ");
	if (!fr)
		return;
	kallsyms_name_off(ks, fr->call_site, site, sizeof(site));
	fprintf(f, "    freed at %s by ", site);
	print_task(f, fr->comm, fr->pid, fr->cpu);
	fputs(":\n", f);
	print_stack(f, d, fr->stack, ks, "        ");
}

struct accessor {
	char	name[300];
	int	n;
};

/* The findings' accessors (by function), most first; *@nr of them. */
static struct accessor *accessors(const struct uaf_data *d,
				  const struct kallsyms *ks, int *nr)
{
	struct accessor *a = calloc(d->count[UAF_USE] + 1, sizeof(*a));
	int i, j;

	*nr = 0;
	if (!a)
		return NULL;
	for (i = 0; i < d->nr_hits; i++) {
		char name[300];

		if (d->hits[i].cls != UAF_USE)
			continue;
		kallsyms_name(ks, d->hits[i].ip, name, sizeof(name));
		for (j = 0; j < *nr && strcmp(a[j].name, name); j++)
			;
		if (j == *nr)
			snprintf(a[(*nr)++].name, sizeof(a->name), "%s", name);
		a[j].n++;
	}
	/* Most first; equal counts in the order they came. */
	for (i = 1; i < *nr; i++)
		for (j = i; j > 0 && a[j].n > a[j - 1].n; j--) {
			struct accessor t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	return a;
}

static const char sampling_note[] =
	"sampling, like KFENCE: a free is watched only when it finds a slot free "
	"(each slot is a debug register on every CPU: 4 at most, shared with perf "
	"and gdb), until its object is allocated again; missed frees were not "
	"watched, so they are not known to be clean";

static void print_words(FILE *f, const struct uaf_report *rep)
{
	const struct uaf_spec *sp = rep->spec;

	if (sp->mode == UAF_CACHE) {
		fprintf(f, "objects of slab cache %s", sp->cache);
		if (sp->object_size)
			fprintf(f, " (object_size %lu)", sp->object_size);
		else
			fputs(" (object_size unknown)", f);
	} else {
		fprintf(f, "objects kfree()d by %s [0x%llx-0x%llx)", sp->site,
			sp->site_start, sp->site_end);
	}
	if (sp->field)
		fprintf(f, ", (%s)ptr.%s", sp->type, sp->field);
	fprintf(f, ", word +0x%lx/%u %s", uaf_word_offset(sp), uaf_word_len(sp),
		uaf_access(sp));
}

void uaf_print(FILE *f, const struct uaf_data *d, const struct uaf_report *rep,
	       const struct kallsyms *ks)
{
	const struct uaf_coverage *cov = rep->cov;
	struct accessor *a;
	int i, n = 0, nr_a = 0;

	fputs("ksym-ctl uaf: ", f);
	print_words(f, rep);
	if (rep->title) {
		fputs(", while '", f);
		fput_printable(f, rep->title);
		fputs("' ran", f);
	}
	fputs("\n\n", f);
	for (i = 0; i < d->nr_hits; i++)
		if (d->hits[i].cls == UAF_USE) {
			print_hit(f, d, &d->hits[i], "use after free", ++n, ks);
			fputc('\n', f);
		}
	if (rep->verbose) {
		static const char * const what[] = {
			[UAF_ALLOCATOR] = "allocator access",
			[UAF_REALLOCATED] = "access after reallocation",
			[UAF_UNPAIRED] = "access without a free",
			[UAF_UNSEEN_REALLOC] = "access before a second free (reallocated, not seen)",
		};
		int nth[UAF_NR_CLASSES] = { 0 };

		for (i = 0; i < d->nr_hits; i++)
			if (d->hits[i].cls != UAF_USE) {
				print_hit(f, d, &d->hits[i], what[d->hits[i].cls],
					  ++nth[d->hits[i].cls], ks);
				fputc('\n', f);
			}
	}
	fprintf(f, "%d use%s after free in %d object%s", d->count[UAF_USE],
		d->count[UAF_USE] == 1 ? "" : "s", d->objects,
		d->objects == 1 ? "" : "s");
	a = accessors(d, ks, &nr_a);
	fprintf(f, ", by %d accessor%s%s\n", nr_a, nr_a == 1 ? "" : "s",
		nr_a ? ":" : "");
	for (i = 0; a && i < nr_a; i++)
		fprintf(f, "%10d  %s\n", a[i].n, a[i].name);
	free(a);
	fprintf(f, "not uses after free: %d access%s by the allocator itself, %d after the object or its page was given out again, %d reallocated, not seen (before a second free), %d without a free seen%s\n",
		d->count[UAF_ALLOCATOR], d->count[UAF_ALLOCATOR] == 1 ? "" : "es",
		d->count[UAF_REALLOCATED], d->count[UAF_UNSEEN_REALLOC],
		d->count[UAF_UNPAIRED],
		!rep->verbose && (d->count[UAF_ALLOCATOR] || d->count[UAF_REALLOCATED] ||
				  d->count[UAF_UNSEEN_REALLOC] ||
				  d->count[UAF_UNPAIRED]) ? " (-v lists them)" : "");
	if (cov->known) {
		unsigned long seen = cov->armed + cov->missed + cov->refused;

		fprintf(f, "coverage: %lu free%s seen, %lu watched, %lu missed (every slot busy), %lu refused; %d of %d slot%s\n",
			seen, seen == 1 ? "" : "s", cov->armed, cov->missed,
			cov->refused, cov->slots, cov->nr_slots,
			cov->nr_slots == 1 ? "" : "s");
	} else {
		fprintf(f, "coverage: %d free%s seen, watched unknown (%d rows of the trigger in trace_stat/ksym_triggers)\n",
			d->nr_frees, d->nr_frees == 1 ? "" : "s", cov->rows);
	}
	fprintf(f, "note: %s\n", sampling_note);
	if (!d->base_known)
		fprintf(f, "note: the direct map's base is %s: an access after the object's page went back to the page allocator and was given out again is not told apart\n",
			d->base_bad ? "not trusted (the one learnt failed its checks)" : "not known");
	if (rep->rcu_cache)
		fprintf(f, "note: %s is SLAB_TYPESAFE_BY_RCU (destroy_by_rcu): its objects may be read after free by design, under RCU, until a grace period ends\n",
			rep->spec->cache ? rep->spec->cache : "the cache");
	if (d->other_hits)
		fprintf(f, "warning: %lu hits of other watches in this instance's events: another hunt or watch shares them\n",
			d->other_hits);
	if (d->lost)
		fprintf(f, "warning: %lu events lost (the buffer filled up): uses after free may be missing, or lack their free\n",
			d->lost);
}

/* @addr as %ps (@off: as %pS, without the size). */
static struct json_object *json_name(const struct kallsyms *ks,
				     unsigned long long addr, bool off)
{
	char name[300];

	if (off)
		kallsyms_name_off(ks, addr, name, sizeof(name));
	else
		kallsyms_name(ks, addr, name, sizeof(name));
	return json_text(name);
}

static struct json_object *json_stack(const struct uaf_data *d, int idx,
				      const struct kallsyms *ks)
{
	const unsigned long long *ip;
	int i, nr = stack_frames(d, idx, ks, &ip);
	struct json_object *a = json_object_new_array();

	for (i = 0; a && i < nr; i++)
		json_object_array_add(a, json_name(ks, ip[i], true));
	return a;
}

static void json_task(struct json_object *o, const char *comm, int pid, int cpu)
{
	json_object_object_add(o, "task", json_text(comm));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "cpu", json_object_new_int(cpu));
}

static const char *class_name(enum uaf_class cls)
{
	switch (cls) {
	case UAF_USE:
		return "use_after_free";
	case UAF_ALLOCATOR:
		return "allocator";
	case UAF_REALLOCATED:
		return "reallocated";
	case UAF_UNSEEN_REALLOC:
		return "reallocated_unseen";
	default:
		return "unpaired";
	}
}

static struct json_object *json_free(const struct uaf_data *d,
				     const struct uaf_free *fr,
				     const struct kallsyms *ks)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "call_site", json_name(ks, fr->call_site, true));
	json_task(o, fr->comm, fr->pid, fr->cpu);
	json_object_object_add(o, "callchain", json_stack(d, fr->stack, ks));
	return o;
}

static struct json_object *json_hit(const struct uaf_data *d,
				    const struct uaf_hit *h,
				    const struct kallsyms *ks)
{
	const struct uaf_free *fr = h->free >= 0 ? &d->frees[h->free] : NULL;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "class", json_text(class_name(h->cls)));
	json_object_object_add(o, "accessor", json_name(ks, h->ip, true));
	json_object_object_add(o, "function", json_name(ks, h->ip, false));
	json_object_object_add(o, "ip", json_hexnum(h->ip));
	json_object_object_add(o, "access", json_text(access_word(h)));
	json_object_object_add(o, "addr", json_hexnum(h->addr));
	json_object_object_add(o, "object", fr ? json_hexnum(fr->ptr) : NULL);
	json_object_object_add(o, "offset", fr ? json_object_new_uint64(h->addr - fr->ptr) : NULL);
	json_object_object_add(o, "len", json_object_new_int64(h->len));
	json_object_object_add(o, "value", h->has_value ? json_hexnum(h->value) : NULL);
	json_object_object_add(o, "old", h->has_old != UAF_OLD_NONE ? json_hexnum(h->old) : NULL);
	json_object_object_add(o, "old_source", json_text(old_source(h->has_old)));
	json_object_object_add(o, "since_free_ns",
			       fr ? json_object_new_uint64(h->ts - fr->ts) : NULL);
	json_task(o, h->comm, h->pid, h->cpu);
	json_object_object_add(o, "callchain", json_stack(d, h->stack, ks));
	json_object_object_add(o, "free", fr ? json_free(d, fr, ks) : NULL);
	return o;
}

/* The findings (@uses), or the other hits: one a line. */
static const struct json_look hits_look = { 2, -1, NULL };

static struct json_object *json_hits(const struct uaf_data *d, bool uses,
				     const struct kallsyms *ks)
{
	struct json_object *a = json_look(json_object_new_array(), &hits_look);
	int i;

	for (i = 0; a && i < d->nr_hits; i++)
		if ((d->hits[i].cls == UAF_USE) == uses)
			json_object_array_add(a, json_hit(d, &d->hits[i], ks));
	return a;
}

static struct json_object *json_accessors(const struct uaf_data *d,
					  const struct kallsyms *ks)
{
	struct json_object *arr = json_object_new_array(), *o;
	struct accessor *a;
	int i, nr_a = 0;

	a = accessors(d, ks, &nr_a);
	for (i = 0; arr && a && i < nr_a; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "function", json_text(a[i].name));
		json_object_object_add(o, "uses", json_object_new_int(a[i].n));
		json_object_array_add(arr, o);
	}
	free(a);
	return arr;
}

static struct json_object *json_coverage(const struct uaf_data *d,
					 const struct uaf_coverage *cov)
{
	struct json_object *o = json_object_new_object();
	bool k = cov->known;

	if (!o)
		return NULL;
	json_object_object_add(o, "known", json_object_new_boolean(k));
	json_object_object_add(o, "frees_recorded", json_object_new_int(d->nr_frees));
	json_object_object_add(o, "frees_seen", json_object_new_uint64(k ?
			       cov->armed + cov->missed + cov->refused :
			       (unsigned long)d->nr_frees));
	json_object_object_add(o, "watched", k ? json_object_new_uint64(cov->armed) : NULL);
	json_object_object_add(o, "missed", k ? json_object_new_uint64(cov->missed) : NULL);
	json_object_object_add(o, "refused", k ? json_object_new_uint64(cov->refused) : NULL);
	json_object_object_add(o, "slots", k ? json_object_new_int(cov->slots) : NULL);
	json_object_object_add(o, "slots_asked", k ? json_object_new_int(cov->nr_slots) : NULL);
	json_object_object_add(o, "note", json_text(sampling_note));
	return o;
}

/* What the hunt watched: mode, objects, word. */
static void json_spec(struct json_object *o, const struct uaf_spec *sp)
{
	struct json_object *range = NULL;
	bool kfree = sp->mode == UAF_KFREE;

	json_object_object_add(o, "mode", json_text(kfree ? "kfree_site" : "cache"));
	json_object_object_add(o, "cache", kfree ? NULL : json_text(sp->cache));
	json_object_object_add(o, "kfree_site", kfree ? json_text(sp->site) : NULL);
	if (kfree) {
		range = json_object_new_array();
		json_object_array_add(range, json_hexnum(sp->site_start));
		json_object_array_add(range, json_hexnum(sp->site_end));
		json_object_object_add(o, "kfree_site_range", range);
	}
	json_object_object_add(o, "object_size", sp->object_size ?
			       json_object_new_uint64(sp->object_size) : NULL);
	json_object_object_add(o, "type", sp->field ? json_text(sp->type) : NULL);
	json_object_object_add(o, "field", sp->field ? json_text(sp->field) : NULL);
	json_object_object_add(o, "offset", json_object_new_uint64(uaf_word_offset(sp)));
	json_object_object_add(o, "len", json_object_new_int64(uaf_word_len(sp)));
	json_object_object_add(o, "watch_access", json_text(uaf_access(sp)));
}

static const char * const uaf_breaks[] = {
	"findings", "uses_after_free", "allocator", "not_uses", "coverage", NULL
};
static const struct json_look uaf_look = { -1, -1, uaf_breaks };

void uaf_print_json(FILE *f, const struct uaf_data *d,
		    const struct uaf_report *rep, const struct kallsyms *ks)
{
	struct json_object *o = json_look(json_object_new_object(), &uaf_look);

	if (!o)
		return;
	json_spec(o, rep->spec);
	json_object_object_add(o, "command", json_text(rep->title));
	json_object_object_add(o, "exit_status", json_object_new_int(rep->exit_status));
	json_object_object_add(o, "findings", json_hits(d, true, ks));
	json_object_object_add(o, "uses_after_free", json_object_new_int(d->count[UAF_USE]));
	json_object_object_add(o, "objects", json_object_new_int(d->objects));
	json_object_object_add(o, "accessors", json_accessors(d, ks));
	json_object_object_add(o, "allocator", json_object_new_int(d->count[UAF_ALLOCATOR]));
	json_object_object_add(o, "reallocated", json_object_new_int(d->count[UAF_REALLOCATED]));
	json_object_object_add(o, "reallocated_unseen",
			       json_object_new_int(d->count[UAF_UNSEEN_REALLOC]));
	json_object_object_add(o, "unpaired", json_object_new_int(d->count[UAF_UNPAIRED]));
	json_object_object_add(o, "other_hits", json_object_new_uint64(d->other_hits));
	json_object_object_add(o, "events_lost", json_object_new_uint64(d->lost));
	json_object_object_add(o, "page_reuse_seen", json_object_new_boolean(d->base_known));
	json_object_object_add(o, "typesafe_by_rcu", json_object_new_boolean(rep->rcu_cache));
	if (rep->verbose)
		json_object_object_add(o, "not_uses", json_hits(d, false, ks));
	json_object_object_add(o, "coverage", json_coverage(d, rep->cov));
	json_print(f, o);
	fputc('\n', f);
	json_object_put(o);
}
