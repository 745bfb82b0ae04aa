// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: the ring buffer's records as uaf.h's events (uaf_read.h).
 *
 * ksym-ctl's instance holds, on each CPU in the order they happened there:
 * the free events (kmem:kmem_cache_free or kmem:kfree, filtered), each
 * followed by the kernel_stack of its stacktrace trigger; the allocation
 * events (kmem:kmem_cache_alloc or kmem:kmalloc); and the ksym tracer's
 * ksym_hit entries, each followed by its ksym_stack (options/ksym-stack).
 * A callchain belongs to the last free (kernel_stack) or hit (ksym_stack,
 * or a kernel_stack when there is no free waiting) of its CPU. Every field
 * is read through tracedat.c's checked readers: a record is never read
 * past its end.
 *
 * A slab page that empties goes back to the page allocator, and whatever
 * gets it next writes the watched word: kmem:mm_page_alloc says which page
 * (pfn) is given out, the hits say which address is written. The direct
 * map between them, virt = base + pfn * PAGE_SIZE, is learnt from a large
 * kmalloc of ksym-ctl's own (uaf.c): its page allocation's pfn, then its
 * kmalloc's ptr, by the same task; a base not aligned as the direct map
 * is, or above a freed object, is not used.
 *
 * The CPUs are read one after the other, so a reuse read on one CPU may
 * come before the free, earlier, on a CPU read after it: allocations and
 * page allocations wait (struct pending) until every CPU has been read
 * past them (uaf_reader_tick()), then are kept when an earlier free was
 * of their object or page.
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "tracedat.h"
#include "uaf_read.h"

/* CPUs whose events wait for their callchain (as tracedat.c). */
#define UAF_MAX_CPUS	8192
/* The largest order of a page allocation (MAX_PAGE_ORDER is 10 or so). */
#define UAF_PAGE_ORDER_MAX	20

struct waiting {
	int	free;		/* index in d->frees waiting for a stack, or -1 */
	int	hit;		/* index in d->hits, or -1 */
	unsigned long long last_ts;	/* of the CPU's last record read */
};

/*
 * A map of non-zero numbers to the earliest time they were seen (open
 * addressing).
 */
struct u64set {
	unsigned long long	*v, *ts;
	int			size, n;
};

/*
 * An allocation or page allocation read, not yet judged: whether a free
 * before it is of its object (or page) is known only when every CPU has
 * been read past it (the CPUs are read one after the other).
 */
struct pending {
	unsigned long long	ts, ptr;	/* ptr: the object, or the pfn */
	unsigned int		order;
	bool			page;
	unsigned int		tick;		/* read in which */
};

struct uaf_reader {
	struct tep_handle	*tep;
	struct uaf_data		*d;
	char			*hit_name;	/* the watch's "sym" */
	unsigned long		extent, word_offset;
	unsigned int		word_len;
	int			base_pid;
	struct tep_event	*free_ev, *alloc_ev, *hit, *kstack, *fstack;
	struct tep_event	*page_ev, *kmalloc_ev, *alloc2_ev;
	struct tep_format_field	*free_ptr, *free_site, *alloc_ptr, *alloc2_ptr;
	struct tep_format_field	*addr, *ip, *caller, *value, *old, *len, *access;
	struct tep_format_field	*has_value, *has_old, *sym;
	struct tep_format_field	*kstack_ips, *fstack_caller, *fstack_size;
	struct tep_format_field	*page_pfn, *page_order, *kmalloc_ptr, *kmalloc_bytes;
	struct waiting		*wait;
	int			nr_cpus;
	/* the objects freed so far: an allocation of another is not kept */
	struct u64set		freed;
	/* allocations and pages read, judged once every CPU is read past them */
	struct pending		*pend;
	int			nr_pend, cap_pend;
	unsigned int		tick;
	unsigned long long	limit;	/* min last_ts of the CPUs not drained */
	/* their pages (pfn + 1), once the direct map's base is known */
	struct u64set		freed_pages;
	/* base_pid's last page allocation of order 1 or more (and its task) */
	unsigned long long	probe_pfn;
	int			probe_pid;
	unsigned int		probe_order;
	bool			probe_seen;
	int			err;
};

static struct tep_event *event_of(struct tep_handle *tep, const char *name)
{
	char sys[64];
	const char *colon = strchr(name, ':');

	if (!colon || colon - name >= (long)sizeof(sys))
		return NULL;
	snprintf(sys, sizeof(sys), "%.*s", (int)(colon - name), name);
	return tep_find_event_by_name(tep, sys, colon + 1);
}

int uaf_reader_new(struct tep_handle *tep, struct uaf_data *d,
		   const struct uaf_reader_opts *o, struct uaf_reader **out)
{
	const char *free_event = o->free_event ? o->free_event : "";
	struct uaf_reader *r = calloc(1, sizeof(*r));

	*out = NULL;
	if (!r)
		return -1;
	r->tep = tep;
	r->d = d;
	r->hit_name = strdup(o->hit_name ? o->hit_name : "");
	r->extent = o->extent ? o->extent : 1;
	r->word_offset = o->word_offset;
	r->word_len = o->word_len;
	r->base_pid = o->base_pid;
	r->limit = ~0ULL;
	d->page_size = o->page_size;
	r->free_ev = event_of(tep, free_event);
	r->alloc_ev = o->alloc_event ? event_of(tep, o->alloc_event) : NULL;
	r->alloc2_ev = o->alloc_event2 ? event_of(tep, o->alloc_event2) : NULL;
	r->page_ev = tep_find_event_by_name(tep, "kmem", "mm_page_alloc");
	r->kmalloc_ev = tep_find_event_by_name(tep, "kmem", "kmalloc");
	r->hit = tep_find_event_by_name(tep, "ksym", "ksym_hit");
	r->kstack = tep_find_event_by_name(tep, "ksym", "ksym_stack");
	r->fstack = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
	if (!r->hit_name || !r->free_ev || !r->hit) {
		err_msg("cannot read the formats of %s and ksym:ksym_hit\n", free_event);
		uaf_reader_free(r);
		return -1;
	}
	r->free_ptr = tep_find_field(r->free_ev, "ptr");
	r->free_site = tep_find_field(r->free_ev, "call_site");
	r->alloc_ptr = r->alloc_ev ? tep_find_field(r->alloc_ev, "ptr") : NULL;
	r->alloc2_ptr = r->alloc2_ev ? tep_find_field(r->alloc2_ev, "ptr") : NULL;
	r->addr = tep_find_field(r->hit, "addr");
	r->ip = tep_find_field(r->hit, "ip");
	r->caller = tep_find_field(r->hit, "caller");
	r->value = tep_find_field(r->hit, "value");
	r->old = tep_find_field(r->hit, "old");
	r->len = tep_find_field(r->hit, "len");
	r->access = tep_find_field(r->hit, "access");
	r->has_value = tep_find_field(r->hit, "has_value");
	r->has_old = tep_find_field(r->hit, "has_old");
	r->sym = tep_find_field(r->hit, "sym");
	r->kstack_ips = r->kstack ? tep_find_field(r->kstack, "ips") : NULL;
	r->fstack_caller = r->fstack ? tep_find_field(r->fstack, "caller") : NULL;
	r->fstack_size = r->fstack ? tep_find_field(r->fstack, "size") : NULL;
	r->page_pfn = r->page_ev ? tep_find_field(r->page_ev, "pfn") : NULL;
	r->page_order = r->page_ev ? tep_find_field(r->page_ev, "order") : NULL;
	r->kmalloc_ptr = r->kmalloc_ev ? tep_find_field(r->kmalloc_ev, "ptr") : NULL;
	r->kmalloc_bytes = r->kmalloc_ev ? tep_find_field(r->kmalloc_ev, "bytes_alloc") : NULL;
	if (!r->free_ptr || !r->addr) {
		err_msg("%s has no ptr, or ksym:ksym_hit no addr: not the events of this ksym-ctl\n",
			free_event);
		uaf_reader_free(r);
		return -1;
	}
	*out = r;
	return 0;
}

/* Where the events of @cpu wait for their callchain; NULL past UAF_MAX_CPUS. */
static struct waiting *waiting_of(struct uaf_reader *r, int cpu)
{
	struct waiting *w;
	int i, n;

	if (cpu < 0 || cpu >= UAF_MAX_CPUS)
		return NULL;
	if (cpu >= r->nr_cpus) {
		n = cpu + 1;
		w = realloc(r->wait, n * sizeof(*w));
		if (!w) {
			r->err = -1;
			return NULL;
		}
		for (i = r->nr_cpus; i < n; i++) {
			w[i].free = w[i].hit = -1;
			w[i].last_ts = 0;
		}
		r->wait = w;
		r->nr_cpus = n;
	}
	return &r->wait[cpu];
}

static unsigned int u64_hash(unsigned long long p)
{
	p ^= p >> 33;
	p *= 0xff51afd7ed558ccdULL;
	p ^= p >> 33;
	return (unsigned int)p;
}

/* The slot of @p in @s, or -1. */
static int set_find(const struct u64set *s, unsigned long long p)
{
	unsigned int j;

	if (!s->size || !p)
		return -1;
	for (j = u64_hash(p) & (s->size - 1); s->v[j]; j = (j + 1) & (s->size - 1))
		if (s->v[j] == p)
			return j;
	return -1;
}

/* Whether @p was seen at or before @ts. */
static bool set_has_by(const struct u64set *s, unsigned long long p,
		       unsigned long long ts)
{
	int j = set_find(s, p);

	return j >= 0 && s->ts[j] <= ts;
}

static void set_put(unsigned long long *v, unsigned long long *t, int size,
		    unsigned long long p, unsigned long long ts)
{
	unsigned int j = u64_hash(p) & (size - 1);

	while (v[j] && v[j] != p)
		j = (j + 1) & (size - 1);
	v[j] = p;
	t[j] = ts;
}

/* Add @p seen at @ts (0 is never kept); 0, or -1 when out of memory. */
static int set_add(struct u64set *s, unsigned long long p, unsigned long long ts)
{
	int j = set_find(s, p);

	if (!p)
		return 0;
	if (j >= 0) {
		if (ts < s->ts[j])
			s->ts[j] = ts;
		return 0;
	}
	if (2 * (s->n + 1) > s->size) {
		int size = s->size ? 2 * s->size : 1024, i;
		unsigned long long *v = calloc(size, sizeof(*v));
		unsigned long long *t = calloc(size, sizeof(*t));

		if (!v || !t) {
			free(v);
			free(t);
			return -1;
		}
		for (i = 0; i < s->size; i++)
			if (s->v[i])
				set_put(v, t, size, s->v[i], s->ts[i]);
		free(s->v);
		free(s->ts);
		s->v = v;
		s->ts = t;
		s->size = size;
	}
	set_put(s->v, s->ts, s->size, p, ts);
	s->n++;
	return 0;
}

/*
 * The pages (pfn + 1: never 0) of freed object @ptr's watched word (a hit
 * is on no other; review 11-28 L5: a middle page of a large object), or
 * without a word its first and last, once the base is known.
 */
static int freed_pages_add(struct uaf_reader *r, unsigned long long ptr,
			   unsigned long long ts)
{
	unsigned long long first, last, start = ptr, end = ptr + r->extent - 1;

	if (r->word_len) {
		start = ptr + r->word_offset;
		end = start + r->word_len - 1;
	}
	if (!uaf_pfn(r->d, start, &first) || !uaf_pfn(r->d, end, &last))
		return 0;
	return set_add(&r->freed_pages, first + 1, ts) ||
	       set_add(&r->freed_pages, last + 1, ts) ? -1 : 0;
}

/* The learnt base given up: page reuse is not told apart. */
static void base_distrust(struct uaf_reader *r)
{
	r->d->base_known = false;
	r->d->base_bad = true;
}

static int freed_add(struct uaf_reader *r, unsigned long long p,
		     unsigned long long ts)
{
	/* An object below the direct map's base: the base is wrong. */
	if (r->d->base_known && p < r->d->page_base)
		base_distrust(r);
	return set_add(&r->freed, p, ts) || freed_pages_add(r, p, ts) ? -1 : 0;
}

static void pend_add(struct uaf_reader *r, const struct pending *p)
{
	if (r->nr_pend == r->cap_pend) {
		int cap = r->cap_pend ? 2 * r->cap_pend : 256;
		struct pending *v = realloc(r->pend, (size_t)cap * sizeof(*v));

		if (!v) {
			r->err = -1;
			return;
		}
		r->pend = v;
		r->cap_pend = cap;
	}
	r->pend[r->nr_pend] = *p;
	r->pend[r->nr_pend++].tick = r->tick;
}

/* Keep @p if it gave out an object, or a page, freed before it. */
static void judge(struct uaf_reader *r, const struct pending *p)
{
	unsigned long long i;

	if (!p->page) {
		struct uaf_alloc a = { .ts = p->ts, .ptr = p->ptr };

		if (set_has_by(&r->freed, p->ptr, p->ts) && uaf_add_alloc(r->d, &a))
			r->err = -1;
		return;
	}
	if (!r->d->base_known)
		return;
	for (i = 0; i < (1ULL << p->order); i++)
		if (set_has_by(&r->freed_pages, p->ptr + i + 1, p->ts)) {
			struct uaf_page pg = { .ts = p->ts, .pfn = p->ptr, .order = p->order };

			if (uaf_add_page(r->d, &pg))
				r->err = -1;
			return;
		}
}

void uaf_reader_capped(struct uaf_reader *r, int cpu)
{
	struct waiting *w = waiting_of(r, cpu);

	if (w && w->last_ts < r->limit)
		r->limit = w->last_ts;
}

int uaf_reader_tick(struct uaf_reader *r, bool final)
{
	int i, n = 0;

	/*
	 * A record of an earlier tick is judged when every CPU not drained
	 * in this one was read past it: every free before it has been read.
	 */
	for (i = 0; i < r->nr_pend; i++) {
		const struct pending *p = &r->pend[i];

		if (final || (p->tick < r->tick && p->ts <= r->limit))
			judge(r, p);
		else
			r->pend[n++] = *p;
	}
	r->nr_pend = n;
	r->tick++;
	r->limit = ~0ULL;
	return r->err;
}

static void on_free(struct uaf_reader *r, struct tep_record *rec, int cpu)
{
	struct uaf_free f = { .ts = rec->ts, .cpu = cpu, .stack = -1 };
	struct waiting *w = waiting_of(r, cpu);

	if (!tracedat_field_val(r->free_ptr, rec, &f.ptr) || !f.ptr)
		return;
	tracedat_field_val(r->free_site, rec, &f.call_site);
	f.pid = tep_data_pid(r->tep, rec);
	if (uaf_add_free(r->d, &f) || freed_add(r, f.ptr, f.ts)) {
		r->err = -1;
		return;
	}
	if (w)
		w->free = r->d->nr_frees - 1;
}

static void on_alloc(struct uaf_reader *r, struct tep_record *rec,
		     struct tep_format_field *ptr)
{
	struct pending p = { .ts = rec->ts };

	/*
	 * Only an object freed before can be one a later hit is in; its free
	 * may be on a CPU not read yet: judged later (uaf_reader_tick()).
	 */
	if (!tracedat_field_val(ptr, rec, &p.ptr) || !p.ptr)
		return;
	pend_add(r, &p);
}

/*
 * Whether @base, learnt from the probe, is likely right: aligned as the
 * direct map is (x86-64 puts it on a 1 GiB boundary, KASLR or not;
 * elsewhere at least a page) and below every object freed so far.
 */
static bool base_sane(const struct uaf_reader *r, unsigned long long base)
{
#if defined(__x86_64__)
	unsigned long long align = 1ULL << 30;
#else
	unsigned long long align = r->d->page_size;
#endif
	int i;

	if (!align || base % align)
		return false;
	for (i = 0; i < r->freed.size; i++)
		if (r->freed.v[i] && r->freed.v[i] < base)
			return false;
	return true;
}

/* The direct map's base, from base_pid's page allocation and its kmalloc. */
static void learn_base(struct uaf_reader *r, struct tep_record *rec)
{
	unsigned long long ptr, bytes;
	int i;

	if (r->d->base_known || !r->probe_seen || !r->d->page_size ||
	    tep_data_pid(r->tep, rec) != r->probe_pid ||
	    !tracedat_field_val(r->kmalloc_ptr, rec, &ptr) ||
	    !tracedat_field_val(r->kmalloc_bytes, rec, &bytes) ||
	    r->probe_order >= 32 ||
	    bytes != (unsigned long long)r->d->page_size << r->probe_order ||
	    ptr < r->probe_pfn * r->d->page_size)
		return;
	r->probe_seen = false;
	if (!base_sane(r, ptr - r->probe_pfn * r->d->page_size)) {
		r->d->base_bad = true;
		return;
	}
	r->d->page_base = ptr - r->probe_pfn * r->d->page_size;
	r->d->base_known = true;
	r->d->base_bad = false;
	/* The objects freed before. */
	for (i = 0; i < r->freed.size; i++)
		if (r->freed.v[i] && freed_pages_add(r, r->freed.v[i], r->freed.ts[i]))
			r->err = -1;
}

/* A page allocation: base_pid's probe, or a freed object's page given out. */
static void on_page(struct uaf_reader *r, struct tep_record *rec)
{
	struct pending p = { .ts = rec->ts, .page = true };
	unsigned long long pfn, order;

	/* No page allocation is of more than 2^UAF_PAGE_ORDER_MAX pages. */
	if (!tracedat_field_val(r->page_pfn, rec, &pfn) ||
	    !tracedat_field_val(r->page_order, rec, &order) ||
	    order > UAF_PAGE_ORDER_MAX || pfn == ~0ULL || pfn == 0xffffffffULL)
		return;
	if (!r->d->base_known && r->base_pid && order &&
	    (r->base_pid < 0 || tep_data_pid(r->tep, rec) == r->base_pid)) {
		r->probe_pid = tep_data_pid(r->tep, rec);
		r->probe_pfn = pfn;
		r->probe_order = order;
		r->probe_seen = true;
	}
	/* Whether it holds a freed object's page: judged later, as allocations. */
	p.ptr = pfn;
	p.order = order;
	pend_add(r, &p);
}

/* Whether the hit's "sym" names our watch (a kernel without sym: any). */
static bool our_watch(struct uaf_reader *r, struct tep_record *rec)
{
	unsigned int len = 0;
	const char *s;

	if (!r->sym)
		return true;
	s = tracedat_field_data(r->sym, rec, &len);
	if (!s)
		return false;
	len = strnlen(s, len);
	return len == strlen(r->hit_name) && !memcmp(s, r->hit_name, len);
}

static void on_hit(struct uaf_reader *r, struct tep_record *rec, int cpu)
{
	struct uaf_hit h = { .ts = rec->ts, .cpu = cpu, .stack = -1 };
	struct waiting *w = waiting_of(r, cpu);
	unsigned long long v = 0;

	/* The hit of another watch: its stack must not go to ours. */
	if (w)
		w->hit = -1;
	if (!our_watch(r, rec) || !tracedat_field_val(r->addr, rec, &h.addr)) {
		r->d->other_hits++;
		return;
	}
	tracedat_field_val(r->ip, rec, &h.ip);
	if (!tracedat_field_val(r->caller, rec, &h.caller))
		h.caller = h.ip;
	tracedat_field_val(r->value, rec, &h.value);
	tracedat_field_val(r->old, rec, &h.old);
	if (tracedat_field_val(r->len, rec, &v))
		h.len = v;
	if (tracedat_field_val(r->access, rec, &v))
		h.access = v;
	/* A kernel whose hit has no has_value read every value. */
	h.has_value = !r->has_value || (tracedat_field_val(r->has_value, rec, &v) && v);
	if (tracedat_field_val(r->has_old, rec, &v) && v <= UAF_OLD_STALE)
		h.has_old = v;
	h.pid = tep_data_pid(r->tep, rec);
	if (uaf_add_hit(r->d, &h)) {
		r->err = -1;
		return;
	}
	if (w)
		w->hit = r->d->nr_hits - 1;
}

static void on_stack(struct uaf_reader *r, struct tep_record *rec, int cpu,
		     bool ftrace)
{
	struct waiting *w = waiting_of(r, cpu);
	unsigned long long ip[UAF_FRAMES_MAX];
	int nr, idx, *to = NULL;

	if (!w)
		return;
	/* The trigger's kernel_stack follows its free; ksym_stack its hit. */
	if (ftrace && w->free >= 0)
		to = &r->d->frees[w->free].stack;
	else if (w->hit >= 0)
		to = &r->d->hits[w->hit].stack;
	if (ftrace && w->free >= 0)
		w->free = -1;
	else
		w->hit = -1;
	if (!to)
		return;
	nr = tracedat_stack_frames(r->tep, ftrace ? r->fstack_caller : r->kstack_ips,
				   r->fstack_size, ftrace, rec, ip, UAF_FRAMES_MAX);
	if (nr < 0)
		return;
	idx = uaf_add_stack(r->d, ip, nr);
	if (idx < 0)
		r->err = -1;
	else
		*to = idx;
}

static int reader_add(struct uaf_reader *r, struct tep_record *rec, int cpu,
		      bool pages)
{
	struct tep_event *ev;
	struct waiting *w;
	int id;

	/* A negative count (-1) says events were lost, not how many. */
	if (rec->missed_events)
		*(pages ? &r->d->pages_lost : &r->d->lost) +=
			rec->missed_events > 0 ? rec->missed_events : 1;
	/* libtraceevent reads the type and pid without looking at the size. */
	if (!rec->data || rec->size < 8)
		return r->err;
	w = waiting_of(r, cpu);
	if (w && !pages && rec->ts > w->last_ts)
		w->last_ts = rec->ts;
	id = tep_data_type(r->tep, rec);
	ev = tep_find_event(r->tep, id);
	if (!ev)
		return r->err;
	/* kmalloc: kfree's allocation event, and the base's probe. */
	if (ev == r->kmalloc_ev && r->kmalloc_ptr && r->kmalloc_bytes)
		learn_base(r, rec);
	if (ev == r->free_ev)
		on_free(r, rec, cpu);
	else if (ev == r->alloc_ev)
		on_alloc(r, rec, r->alloc_ptr);
	else if (ev == r->alloc2_ev && ev != r->free_ev)
		on_alloc(r, rec, r->alloc2_ptr);
	else if (ev == r->page_ev && r->page_pfn && r->page_order)
		on_page(r, rec);
	else if (ev == r->hit)
		on_hit(r, rec, cpu);
	else if (ev == r->kstack && r->kstack_ips)
		on_stack(r, rec, cpu, false);
	else if (ev == r->fstack && r->fstack_caller)
		on_stack(r, rec, cpu, true);
	return r->err;
}

int uaf_reader_add(struct uaf_reader *r, struct tep_record *rec, int cpu)
{
	return reader_add(r, rec, cpu, false);
}

int uaf_reader_add_pages(struct uaf_reader *r, struct tep_record *rec, int cpu)
{
	return reader_add(r, rec, cpu, true);
}

void uaf_reader_free(struct uaf_reader *r)
{
	if (!r)
		return;
	free(r->hit_name);
	free(r->wait);
	free(r->freed.v);
	free(r->freed.ts);
	free(r->freed_pages.v);
	free(r->freed_pages.ts);
	free(r->pend);
	free(r);
}
