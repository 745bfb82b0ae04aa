/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl uaf: the use-after-free hunt, its pure parts (uaf.c runs it).
 *
 * A free event (kmem:kmem_cache_free of one cache, or kmem:kfree from one
 * call site) watches a word of the object it frees (a ksym_watch trigger),
 * the allocation event of the same kind ends the watch (ksym_unwatch), and
 * every access to a watched word in between is a ksym_hit. Each hit is
 * paired with the latest free, before it, of the object that holds its
 * address; a hit the allocator itself made (SLUB's free pointer, KASAN's
 * free track, init_on_alloc), one after the object was allocated again,
 * and one without a free are told apart from the uses after free.
 *
 * Here: the checks of the options, the trigger and filter texts and the
 * row of trace_stat/ksym_triggers that says how many frees were watched
 * (uaf_core.c); the events as read (uaf_read.c decodes them from the ring
 * buffer's records) and their pairing and classes (uaf_pair.c); the report,
 * as text and as JSON (uaf_print.c). Nothing here touches tracefs: unit
 * tested on the host (tests/test_uaf.c) and fuzzed (tools/fuzz/fuzz_uaf.c).
 */
#ifndef KSYM_CTL_UAF_H
#define KSYM_CTL_UAF_H

#include <stdbool.h>
#include <stdio.h>

#include "kallsyms.h"
#include "utils.h"

/* What ksym_trigger_slots takes (kernel/trace/trace_ksym_trigger.c). */
#define UAF_SLOTS_MAX		4
/*
 * The largest +OFFSET a ksym_watch trigger takes: the kernel's limit is
 * max(PAGE_SIZE, THREAD_SIZE), 16 KiB on x86-64.
 */
#define UAF_OFFSET_MAX		16384
#define UAF_FRAMES_MAX		64

enum uaf_mode {
	UAF_CACHE,	/* --cache NAME: kmem_cache_free / kmem_cache_alloc */
	UAF_KFREE,	/* --kfree-site FUNC: kfree / kmalloc */
};

/* Which objects, which word of them, and how it is watched. */
struct uaf_spec {
	enum uaf_mode		mode;
	const char		*cache;		/* --cache NAME */
	const char		*site;		/* --kfree-site [MODULE:]FUNC */
	unsigned long long	site_start;	/* FUNC's [start, end) in kallsyms */
	unsigned long long	site_end;
	unsigned long		offset;		/* --offset: past the field, if any */
	unsigned int		len;		/* --len; 0: the default */
	bool			write_only;	/* -w: -w- instead of rw- */
	const char		*type;		/* --type 'struct foo' */
	const char		*field;		/* --field PATH, of --type */
	unsigned long		field_offset;	/* the field's, from BTF */
	unsigned long		field_size;
	unsigned long		object_size;	/* 0: not known */
};

/* --offset (decimal or 0x hex, 0 to UAF_OFFSET_MAX); 0, or -1 with a message. */
int uaf_parse_offset(const char *s, unsigned long *off);
/* --len: 1, 2, 4 or 8; 0, or -1 with a message. */
int uaf_parse_len(const char *s, unsigned int *len);
/* -s: 1 to UAF_SLOTS_MAX; 0, or -1 with a message. */
int uaf_parse_slots(const char *s, int *slots);
/*
 * A slab cache's name as /sys/kernel/slab and the kmem_cache_free event
 * spell it (letters, digits, "_-.:()"), which goes into a filter between
 * quotes and into a path: 0, or -1 with a message.
 */
int uaf_check_cache_name(const char *name);
/* --type: "struct NAME" or "union NAME"; 0, or -1 with a message. */
int uaf_check_type(const char *type);
/* --field: MEMBER[.MEMBER|[N]]...; 0, or -1 with a message. */
int uaf_check_field(const char *path);

/*
 * The spec complete (the defaults in, BTF's field offset and size and
 * the object size known where they are): the word checked against the
 * object and the kernel's rules, refusals with a message (-1); what is
 * allowed but likely not what was meant (the word over SLUB's free
 * pointer, an object under 16 bytes) added to @warnings. 0 or -1.
 */
int uaf_spec_finish(struct uaf_spec *sp, struct strv *warnings);

/* The watched word's offset in the object, and its length. */
unsigned long uaf_word_offset(const struct uaf_spec *sp);
unsigned int uaf_word_len(const struct uaf_spec *sp);
/* The bytes of an object a hit may be in: the object size, or the word's end. */
unsigned long uaf_object_extent(const struct uaf_spec *sp);
/* "rw-" or "-w-". */
const char *uaf_access(const struct uaf_spec *sp);

/*
 * The texts uaf.c writes (malloc()ed, NULL when out of memory or, for the
 * alloc filter, when there is none): the free and alloc events as
 * "SYSTEM:EVENT", their filters, and the triggers as
 * "SYSTEM:EVENT:TRIGGER" (ksym_session_set_triggers() takes them so).
 */
const char *uaf_free_event(const struct uaf_spec *sp);
const char *uaf_alloc_event(const struct uaf_spec *sp);
/*
 * kfree mode: kmem:kmem_cache_alloc, which gives out again an object
 * kfree()d into a named cache; NULL in cache mode. Its trigger:
 * uaf_unwatch_trigger2().
 */
const char *uaf_alloc_event2(const struct uaf_spec *sp);
char *uaf_unwatch_trigger2(const struct uaf_spec *sp);
char *uaf_free_filter(const struct uaf_spec *sp);
char *uaf_alloc_filter(const struct uaf_spec *sp);
char *uaf_watch_trigger(const struct uaf_spec *sp);
char *uaf_unwatch_trigger(const struct uaf_spec *sp);
char *uaf_stack_trigger(const struct uaf_spec *sp);
/* The name the kernel gives the watch in ksym_hit's "sym": "ptr", "foo.bar+0x8". */
char *uaf_hit_name(const struct uaf_spec *sp);

/*
 * The trigger as the event's trigger file shows it, "ksym_watch:CANON" (its
 * count and filter left out: what trace_stat/ksym_triggers names it by),
 * from that file's text; 0, or -1 when it has no ksym_watch line.
 */
int uaf_trigger_shown(const char *trigger_file, char *buf, size_t size);

/* A ksym_watch trigger's row of trace_stat/ksym_triggers. */
struct uaf_coverage {
	bool		known;		/* one row of the trigger, read */
	int		rows;		/* rows with its event and text */
	int		slots, nr_slots;	/* slots it has, of those asked */
	unsigned long	armed;		/* frees whose object got a slot */
	unsigned long	missed;		/* frees that found every slot busy */
	unsigned long	refused;	/* addresses it would not watch */
	unsigned long	unwatched, too_hot, hits;
};

/*
 * The rows of trace_stat/ksym_triggers (@text) for event @event
 * ("kmem:kmem_cache_free") and trigger @what (uaf_trigger_shown()): their
 * number in cov->rows, and the last one's columns, cov->known when there
 * is exactly one. Lines that are not rows are skipped.
 */
void uaf_coverage_parse(struct uaf_coverage *cov, const char *text,
			const char *event, const char *what);

/*
 * Whether a CPU's buffer, as its per_cpu/cpuN/stats @stats says ("bytes:",
 * what is not read yet), is more than half of its @buffer_kb: a reader
 * then reads past its cap. False when @stats does not say.
 */
bool uaf_buffer_half_full(const char *stats, unsigned long buffer_kb);

/* The frees' instance's buffer per CPU, and the page allocations' at most. */
#define UAF_BUFFER_KB		4096
#define UAF_PAGES_BUFFER_KB	16384
/*
 * The page allocations' buffer per CPU for a machine of @mem_kb and @ncpus
 * CPUs: UAF_PAGES_BUFFER_KB (some 400,000 page allocations a CPU between
 * two reads), or 1/32 of the memory over the CPUs where that is less, and
 * never under UAF_BUFFER_KB.
 */
unsigned long uaf_pages_buffer_kb(unsigned long long mem_kb, long ncpus);

/* ------------------------------------------------------------------ */

/* A callchain, innermost first. */
struct uaf_stack {
	unsigned long long	*ip;
	int			nr;
};

struct uaf_free {
	unsigned long long	ts;		/* ns, the instance's trace_clock */
	unsigned long long	ptr;
	unsigned long long	call_site;
	int			cpu, pid;
	int			stack;		/* index in stacks, or -1 */
	char			comm[16];
};

struct uaf_alloc {
	unsigned long long	ts;
	unsigned long long	ptr;
};

/* A page allocation (kmem:mm_page_alloc) that gave out a freed object's page. */
struct uaf_page {
	unsigned long long	ts;
	unsigned long long	pfn;
	unsigned int		order;
};

enum uaf_class {
	UAF_USE,		/* a use after free: the finding */
	UAF_ALLOCATOR,		/* the allocator's own access */
	UAF_REALLOCATED,	/* the object, or its page, was given out again before it */
	UAF_UNPAIRED,		/* no free of an object holding the address */
	/*
	 * Between two frees of the object with no allocation seen between:
	 * it was handed out again without an allocation event
	 * (kmem_cache_alloc_bulk fires none), so it was live.
	 */
	UAF_UNSEEN_REALLOC,
	UAF_NR_CLASSES
};

/* ksym_hit's has_old (include/trace/events/ksym.h). */
enum { UAF_OLD_NONE, UAF_OLD_READ, UAF_OLD_LAST, UAF_OLD_STALE };

struct uaf_hit {
	unsigned long long	ts;
	unsigned long long	addr, ip, caller;
	unsigned long long	value, old;
	unsigned int		len, access;	/* access: 1 r, 2 w, 3 rw */
	bool			has_value;
	unsigned int		has_old;
	int			cpu, pid;
	int			stack;		/* index in stacks, or -1 */
	char			comm[16];
	/* uaf_analyze(): */
	enum uaf_class		cls;
	int			free;		/* index in frees, or -1 */
};

/* What was read, and what uaf_analyze() made of it. */
struct uaf_data {
	struct uaf_free		*frees;
	int			nr_frees, cap_frees;
	struct uaf_alloc	*allocs;
	int			nr_allocs, cap_allocs;
	struct uaf_hit		*hits;
	int			nr_hits, cap_hits;
	struct uaf_page		*pages;
	int			nr_pages, cap_pages;
	/*
	 * The direct map, where the objects are: virt = page_base + pfn *
	 * page_size, when base_known (learnt by uaf_read.c from a large
	 * kmalloc of ksym-ctl's own); without it a page given out again is
	 * not seen.
	 */
	unsigned long long	page_base;
	unsigned long		page_size;
	bool			base_known;
	bool			base_bad;	/* one was learnt, and failed its checks */
	struct uaf_stack	*stacks;	/* distinct callchains */
	int			nr_stacks, cap_stacks;
	int			*stack_hash;	/* open addressing, -1 free */
	int			hash_size;
	unsigned long		other_hits;	/* hits of other watches */
	unsigned long		lost;		/* events the buffer lost */
	/* page allocations their own instance lost (uaf_reader_add_pages()) */
	unsigned long		pages_lost;
	/* uaf_analyze(): */
	int			count[UAF_NR_CLASSES];	/* hits per enum uaf_class */
	int			objects;	/* distinct objects used after free */
	bool			analyzed;
};

/* Add one event; 0, or -1 when out of memory. */
int uaf_add_free(struct uaf_data *d, const struct uaf_free *f);
int uaf_add_alloc(struct uaf_data *d, const struct uaf_alloc *a);
int uaf_add_hit(struct uaf_data *d, const struct uaf_hit *h);
int uaf_add_page(struct uaf_data *d, const struct uaf_page *p);
/* The page frame of direct-map address @addr; false when the base is not known. */
bool uaf_pfn(const struct uaf_data *d, unsigned long long addr,
	     unsigned long long *pfn);
/* @nr (at most UAF_FRAMES_MAX) addresses as a callchain: its index, or -1. */
int uaf_add_stack(struct uaf_data *d, const unsigned long long *ip, int nr);
/* The name of the function at @addr in @ks, or NULL (no @ks, or not known). */
const char *uaf_fn_name(const struct kallsyms *ks, unsigned long long addr);

/*
 * Whether kernel function @fn is a helper that writes memory for its
 * caller (memset, memcpy, clear_page, ...): who the access is is its
 * caller.
 */
bool uaf_helper_function(const char *fn);
/*
 * Whether @fn is where an interrupt or exception came in (asm_*, exc_*,
 * *interrupt*, *irq_work*, irq_exit*): what runs above it is not the
 * interrupted code's.
 */
bool uaf_entry_function(const char *fn);
/*
 * Whether a hit at @ip with callchain @ip..., innermost first, is the
 * allocator's: decided on the innermost frame that is not a helper
 * (uaf_helper_function()), or a cache's constructor (called from
 * setup_object() and its inlining callers); an entry frame before it
 * decides "no".
 */
bool uaf_allocator_frames(const char * const *fn, int nr);

/*
 * Whether kernel function @fn is the slab allocator's or its debuggers'
 * (kmem_cache_alloc*, __kmalloc*, kfree, slab_free*, kasan_*, ...): a
 * callchain that holds one is the allocator touching the object.
 */
bool uaf_allocator_function(const char *fn);

/*
 * Pair each hit with the latest free before it of an object holding its
 * address ([ptr, ptr + @extent)), and class it: the allocator's (by its
 * callchain), after the object was allocated again or its page given out
 * again by the page allocator (a slab page freed when it emptied), without
 * a free, or a use after free. Hits are sorted by time, the frees and
 * allocations by object. @ks names the callchains.
 */
void uaf_analyze(struct uaf_data *d, unsigned long extent,
		 const struct kallsyms *ks);

/* What the report says about the run. */
struct uaf_report {
	const struct uaf_spec	*spec;
	const char		*title;		/* COMMAND, or "-p PID", or NULL */
	int			exit_status;	/* COMMAND's */
	const struct uaf_coverage *cov;
	bool			verbose;	/* -v: the allocator's hits too */
	bool			rcu_cache;	/* SLAB_TYPESAFE_BY_RCU */
};

/*
 * The uses after free, each with its accessor, callchain, object, offset,
 * access, value, time since the free and the free's call site and
 * callchain; the accessors; the other hits counted; the coverage and what
 * it means (sampling). As text, or as JSON (one object).
 */
void uaf_print(FILE *f, const struct uaf_data *d, const struct uaf_report *rep,
	       const struct kallsyms *ks);
void uaf_print_json(FILE *f, const struct uaf_data *d,
		    const struct uaf_report *rep, const struct kallsyms *ks);

void uaf_data_free(struct uaf_data *d);

#endif
