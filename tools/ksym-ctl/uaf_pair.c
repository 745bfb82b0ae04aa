// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: pairing and classification (uaf.h).
 *
 * Owns: struct uaf_data as it fills (the frees, allocations, hits, pages
 * given out and callchains, these deduplicated by a hash), who touched an
 * object (the allocator's, helper and entry functions, by name), and
 * uaf_analyze(): each hit paired with the latest free of an object that
 * holds it and classed as a use after free, the allocator's, after the
 * object or its page was given out again (live), or without a free
 * (unknown). Calls: kallsyms.c (names of addresses) and utils.c only; pure,
 * no tracefs, no output. Filled by uaf_read.c (records) and the tests,
 * analysed by uaf.c, read by uaf_print.c (which also uses uaf_fn_name()).
 */
#include <stdlib.h>
#include <string.h>

#include "uaf.h"

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

const char *uaf_fn_name(const struct kallsyms *ks, unsigned long long addr)
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
	fn[nr++] = uaf_fn_name(ks, h->ip);
	if (s && s->nr && s->ip[0] == h->ip)
		from = 1;
	for (i = from; s && i < s->nr && nr < UAF_FRAMES_MAX + 1; i++)
		fn[nr++] = uaf_fn_name(ks, s->ip[i]);
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
