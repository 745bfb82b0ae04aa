// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym.c - trace accesses to kernel symbols with hardware breakpoints:
 * the hit path, the ksym events, the ksym tracer and its tracefs files
 *
 * A watch is a kernel address range (a symbol, symbol+offset or a raw
 * address) of 1, 2, 4 or 8 bytes, watched for writes, reads and writes, or
 * execution on all or some CPUs. Watches are set by writing to the
 * ksym_trace_filter file in tracefs:
 *
 *	echo 'jiffies_64:rw-' > /sys/kernel/tracing/ksym_trace_filter
 *	echo ksym > /sys/kernel/tracing/current_tracer
 *
 * A write registers the breakpoints at once, disabled, through the
 * perf-backed breakpoint core, so that a full set of debug registers or a
 * bad address is reported to the writer. The breakpoints are enabled only
 * while something consumes the hits: the ksym tracer is current in an
 * instance, or a ksym event is enabled (ftrace, perf, BPF). Every hit is
 * counted per CPU and per accessing instruction, and written as a
 * ksym:ksym_hit event. Counts are shown in trace_stat/ksym_tracer and
 * trace_stat/ksym_callers.
 *
 * See Documentation/trace/ksym.rst.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/spinlock.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>

#include "trace.h"
#include "trace_ksym.h"

/* Output of ksym_stack, one line per frame like kernel_stack entries. */
static const char *ksym_print_stack(struct trace_seq *p,
				    const unsigned long *ips, unsigned int nr)
{
	const char *ret = trace_seq_buffer_ptr(p);
	unsigned int i;

	for (i = 0; i < nr; i++)
		trace_seq_printf(p, "\n => %pS", (void *)ips[i]);
	trace_seq_putc(p, 0);
	return ret;
}

#ifdef CONFIG_KSYM_TRACER_BRANCHES
/* Output of ksym_branches, one "from -> to" line per branch. */
static const char *ksym_print_branches(struct trace_seq *p,
				       const unsigned long *from_to,
				       unsigned int nr)
{
	const char *ret = trace_seq_buffer_ptr(p);
	unsigned int i;

	for (i = 0; i < nr; i++)
		trace_seq_printf(p, "\n %pS -> %pS", (void *)from_to[2 * i],
				 (void *)from_to[2 * i + 1]);
	trace_seq_putc(p, 0);
	return ret;
}
#endif

#define CREATE_TRACE_POINTS
#include <trace/events/ksym.h>

/* Settings in tracefs (trace_min_max_fops), under ksym_mutex. */
static u64 ksym_stack_depth = 16;
static u64 ksym_one = 1;
static u64 ksym_stack_max = KSYM_STACK_MAX;

/* Per-CPU scratch of the hit path; #DB does not nest on a CPU. */
static DEFINE_PER_CPU(unsigned long [KSYM_STACK_MAX], ksym_stack_scratch);

/* ------------------------------------------------------------------------
 * Hit path: runs in the #DB exception, NMI-like. No locks, no allocation.
 */

static unsigned long ksym_regs_flags(struct pt_regs *regs)
{
#if defined(CONFIG_X86)
	return regs->flags;
#elif defined(CONFIG_ARM64)
	return regs->pstate;
#else
	return 0;
#endif
}

static __always_inline void ksym_count_hit(struct ksym_cpu_stats *stats,
					   unsigned long ip)
{
	struct ksym_caller *c;
	int i;

	/* A watch's hits are the sum of these: the totals always add up. */
	for (i = 0; i < KSYM_CALLER_SLOTS; i++) {
		c = &stats->callers[i];
		if (c->ip == ip) {
			WRITE_ONCE(c->hits, c->hits + 1);
			return;
		}
		if (!c->ip) {
			WRITE_ONCE(c->hits, 1);
			/* Pairs with ksym_sum_callers(): hits before ip. */
			smp_store_release(&c->ip, ip);
			return;
		}
	}
	WRITE_ONCE(stats->other, stats->other + 1);
}

static u32 ksym_tracer_want(void);
static bool ksym_tracer_recording(void);
static void ksym_tracer_hit(const struct ksym_hit_rec *rec,
			    struct pt_regs *regs, u32 opts,
			    const struct ksym_capture *cap);

/*
 * Lock words are touched by the locking primitives, not by who takes the
 * lock: a hit inside them is counted for the first caller outside them.
 * The primitives are the __lock_text functions (in_lock_functions()), the
 * lock debugging wrappers and the queued-lock slow paths, whose extents
 * are looked up once at boot. The event keeps the raw accessor (its ip).
 */
static const char * const ksym_lock_names[] = {
	"do_raw_spin_lock", "do_raw_spin_trylock", "do_raw_spin_unlock",
	"do_raw_read_lock", "do_raw_read_trylock", "do_raw_read_unlock",
	"do_raw_write_lock", "do_raw_write_trylock", "do_raw_write_unlock",
	"queued_spin_lock_slowpath", "native_queued_spin_lock_slowpath",
	"__pv_queued_spin_lock_slowpath", "__pv_queued_spin_unlock",
	"__pv_queued_spin_unlock_slowpath",
	"queued_read_lock_slowpath", "queued_write_lock_slowpath",
};

static struct {
	unsigned long	start;
	unsigned long	end;
} ksym_lock_ranges[ARRAY_SIZE(ksym_lock_names)] __ro_after_init;

/*
 * Where the primitives are, tested inline on every hit: the __lock_text
 * functions (in_lock_functions()), and what spans the others. Most hits
 * are outside both, and two compares each say so. Until the lookups at
 * boot (or if the text's bounds are not found), any address may be lock
 * code, and ksym_in_lock_code() decides.
 */
static unsigned long ksym_lock_text __ro_after_init;
static unsigned long ksym_lock_text_len __ro_after_init = ULONG_MAX;
static unsigned long ksym_lock_lo __ro_after_init;
static unsigned long ksym_lock_len __ro_after_init;

static void __init ksym_lock_ranges_init(void)
{
	unsigned long addr, size, off, lo = ULONG_MAX, hi = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_lock_names); i++) {
		addr = kallsyms_lookup_name(ksym_lock_names[i]);
		if (addr && kallsyms_lookup_size_offset(addr, &size, &off)) {
			ksym_lock_ranges[i].start = addr;
			ksym_lock_ranges[i].end = addr + size;
			lo = min(lo, addr);
			hi = max(hi, addr + size);
		}
	}
	if (hi > lo) {
		ksym_lock_lo = lo;
		ksym_lock_len = hi - lo;
	}
	lo = kallsyms_lookup_name("__lock_text_start");
	hi = kallsyms_lookup_name("__lock_text_end");
	if (lo && hi >= lo) {
		ksym_lock_text = lo;
		ksym_lock_text_len = hi - lo;
	}
}

/* Can @ip be in the lock primitives at all? (Unsigned: below is far.) */
static __always_inline bool ksym_maybe_lock_code(unsigned long ip)
{
	return ip - ksym_lock_text < ksym_lock_text_len ||
	       ip - ksym_lock_lo < ksym_lock_len;
}

static bool ksym_in_lock_code(unsigned long ip)
{
	int i;

	if (in_lock_functions(ip))
		return true;
	for (i = 0; i < ARRAY_SIZE(ksym_lock_ranges); i++)
		if (ip >= ksym_lock_ranges[i].start &&
		    ip < ksym_lock_ranges[i].end)
			return true;
	return false;
}

/* A hit that may be in lock code: the first caller outside it, or @ip. */
static noinline unsigned long ksym_lock_caller(struct pt_regs *regs,
					       unsigned long ip)
{
	unsigned long *ips = *this_cpu_ptr(&ksym_stack_scratch);
	unsigned int i, nr;

	if (!ksym_in_lock_code(ip))
		return ip;
	nr = stack_trace_save_regs(regs, ips, 8, 0);
	for (i = 0; i < nr; i++)
		if (!ksym_in_lock_code(ips[i]))
			return ips[i];
	return ip;
}

/* The function a hit is counted for: the accessor, or who took the lock. */
static __always_inline unsigned long ksym_hit_caller(struct pt_regs *regs,
						     unsigned long ip)
{
	if (likely(!ksym_maybe_lock_code(ip)))
		return ip;
	return ksym_lock_caller(regs, ip);
}

/*
 * The guard against a careless watch on a hot word: more hits in a second
 * on this CPU than ksym_max_hit_rate (0: no limit) disarm the watch.
 */
static bool ksym_too_hot(struct ksym_cpu_stats *stats)
{
	u64 limit = READ_ONCE(ksym_max_hit_rate);
	unsigned long now = jiffies;

	if (!limit)
		return false;
	if (time_after_eq(now, stats->window + HZ)) {
		stats->window = now;
		stats->window_hits = 0;
	}
	return ++stats->window_hits > limit;
}

/*
 * The callchain from the exception's regs: its first frame is the function
 * that made the access, with no #DB, perf or tracing frame above it.
 */
#ifdef CONFIG_ARM64
/*
 * arm64 unwinds by frame records. A leaf function has none: the first
 * record is its caller's, so the caller itself, in the link register, is
 * skipped. Put it back as the second frame when LR returns into another
 * function than the hit's and is not the next frame already (in a function
 * with a record, LR is either that frame or points into the function).
 */
static void ksym_stack_leaf_caller(struct pt_regs *regs, unsigned long *ips,
				   unsigned int *nr, unsigned int max)
{
	unsigned long lr = ptrauth_strip_kernel_insn_pac(regs->regs[30]);
	unsigned long size, off;

	if (*nr < 1 || max < 2 || (*nr > 1 && ips[1] == lr) ||
	    !kernel_text_address(lr) ||
	    !kallsyms_lookup_size_offset(ips[0], &size, &off) ||
	    lr - (ips[0] - off) < size)
		return;
	if (*nr == max)
		(*nr)--;
	memmove(ips + 2, ips + 1, (*nr - 1) * sizeof(*ips));
	ips[1] = lr;
	(*nr)++;
}
#else
static void ksym_stack_leaf_caller(struct pt_regs *regs, unsigned long *ips,
				   unsigned int *nr, unsigned int max)
{
}
#endif

static void ksym_hit_stack(struct pt_regs *regs, struct ksym_capture *cap)
{
	unsigned long *ips = *this_cpu_ptr(&ksym_stack_scratch);
	unsigned int max = READ_ONCE(ksym_stack_depth);

	cap->ips = ips;
	cap->nr_ips = stack_trace_save_regs(regs, ips, max, 0);
	ksym_stack_leaf_caller(regs, ips, &cap->nr_ips, max);
}

/* Does a ksym event want this hit? Static keys: nothing while all are off. */
static bool ksym_events_want(void)
{
	if (trace_ksym_hit_enabled() || trace_ksym_stack_enabled())
		return true;
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
	if (trace_ksym_regs_enabled())
		return true;
#endif
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	if (trace_ksym_branches_enabled())
		return true;
#endif
	return false;
}

/**
 * ksym_last_enter - a hit (or an arming) begins to use a copy's last value
 * @last: the watch's last value for the copy (ksym_watch_last())
 * @hold: this use, for ksym_last_leave()
 *
 * Of two hits of the same copy on two CPUs whose uses overlap, which
 * access came first is not known: they are told (ksym_last_leave()), by
 * the count of uses in flight and by the number of uses begun: the later
 * always, the earlier unless the later began just as it ended. A hit that
 * runs entirely between another CPU's access and the start of that CPU's
 * handler is not seen: x86's trap, perf's dispatch, come first.
 */
void ksym_last_enter(struct ksym_last *last, struct ksym_last_hold *hold)
{
	hold->last = last;
	hold->seq = atomic_inc_return(&last->seq);
	hold->overlap = atomic_inc_return(&last->busy) != 1;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_last_enter);

/**
 * ksym_last_leave - the end of ksym_last_enter()'s use
 * @hold: the use
 *
 * Return: true if another use was in flight or began meanwhile.
 */
bool ksym_last_leave(struct ksym_last_hold *hold)
{
	struct ksym_last *last = hold->last;

	/* The value's stores and reads before the look at the others. */
	smp_mb();
	hold->overlap |= atomic_read(&last->seq) != hold->seq;
	/*
	 * Overlapped: the value this use left may be older than another's
	 * (it swapped last), so the next use is told none, not a wrong old.
	 */
	if (hold->overlap)
		WRITE_ONCE(last->addr, 0);
	atomic_dec(&last->busy);
	return hold->overlap;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_last_leave);

/**
 * ksym_last_swap - take a hit's old value and leave its new one (x86)
 * @last: the watch's last value for the hit's copy, held
 * @addr: the address hit
 * @val:  the value the access left
 * @old:  where the value seen before goes, if known
 *
 * Return: KSYM_OLD_LAST if @old was known (stale if the hold overlapped
 * another: the caller's to say), else KSYM_OLD_NONE.
 */
u8 ksym_last_swap(struct ksym_last *last, unsigned long addr, u64 val,
		  u64 *old)
{
	u8 src = KSYM_OLD_NONE;

	if (READ_ONCE(last->addr) == addr) {
		*old = READ_ONCE(last->value);
		src = KSYM_OLD_LAST;
	}
	WRITE_ONCE(last->value, val);
	WRITE_ONCE(last->addr, addr);
	return src;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_last_swap);

/* What this CPU reads for itself now (ksym_read_own()); @len 0: nothing. */
struct ksym_own_read {
	unsigned long	addr;
	unsigned int	len;
};

static DEFINE_PER_CPU(struct ksym_own_read, ksym_own_read);

/**
 * ksym_read_own - ksym_read_value() for the tracer's own use
 * @addr: the address, RAM
 * @len:  1, 2, 4 or 8
 * @val:  where the value goes
 *
 * A read of bytes that an armed watch covers (the parser's check of a new
 * watch, the value read at arming) would be a hit of that watch, recorded
 * and counted as an access of the tracer's. The breakpoint's exception is
 * synchronous, on this CPU (after the read on x86, before it on arm64,
 * which still steps over it): a hit of these bytes while this CPU reads
 * them is dropped (ksym_hit_handler()). Interrupts are off meanwhile, so
 * that only an NMI's own access of the same bytes could be dropped with
 * it; nested calls (a trigger's arming in an NMI) put back the outer one.
 *
 * Return: true if the value was read.
 */
bool ksym_read_own(unsigned long addr, unsigned int len, u64 *val)
{
	struct ksym_own_read *own, was;
	unsigned long flags;
	bool ok;

	local_irq_save(flags);
	own = this_cpu_ptr(&ksym_own_read);
	was = *own;
	WRITE_ONCE(own->addr, addr);
	WRITE_ONCE(own->len, len);
	ok = ksym_read_value(addr, len, val);
	WRITE_ONCE(own->len, was.len);
	WRITE_ONCE(own->addr, was.addr);
	local_irq_restore(flags);
	return ok;
}

/* Is @bp's hit this CPU's own read (ksym_read_own())? */
static bool ksym_hit_is_own(struct perf_event *bp)
{
	struct ksym_own_read *own = this_cpu_ptr(&ksym_own_read);
	unsigned long addr = bp->attr.bp_addr;
	unsigned int len = READ_ONCE(own->len);

	return len && addr < READ_ONCE(own->addr) + len &&
	       READ_ONCE(own->addr) < addr + bp->attr.bp_len;
}

/**
 * ksym_last_seed - read what a watched address holds as it is armed
 * @last: the watch's last value for this address (ksym_watch_last())
 * @addr: the address, RAM (ksym_spec.has_value, a trigger's object); 0:
 *        forget the value
 * @len:  its length
 *
 * The first hit after arming then has the old value of its access, where
 * breakpoints trap after it (x86; not called on arm64). Any context. The
 * read is the tracer's own (ksym_read_own()).
 */
void ksym_last_seed(struct ksym_last *last, unsigned long addr,
		    unsigned int len)
{
	struct ksym_last_hold hold;
	bool ok = false;
	u64 val;

	ksym_last_enter(last, &hold);
	if (addr)
		ok = ksym_read_own(addr, len, &val);
	if (ok) {
		WRITE_ONCE(last->value, val);
		WRITE_ONCE(last->addr, addr);
	} else {
		WRITE_ONCE(last->addr, 0);
	}
	ksym_last_leave(&hold);
}
EXPORT_SYMBOL_IF_KUNIT(ksym_last_seed);

/**
 * ksym_watch_seed - ksym_last_seed() for a filter watch's copy
 * @watch: the watch, under ksym_mutex, about to be armed (or, per-CPU, a
 *         CPU of it coming online)
 * @cpu:   the CPU whose copy (a per-CPU watch's) is read
 *
 * Trigger slots seed when an object is published (ksym_dyn_publish()).
 */
void ksym_watch_seed(struct ksym_watch *watch, int cpu)
{
	if (KSYM_TRAPS_BEFORE || watch->dyn || !watch->spec.has_value)
		return;
	ksym_last_seed(ksym_watch_last(watch, cpu),
		       ksym_spec_addr(&watch->spec, cpu), watch->spec.len);
}

/*
 * One hit, from the breakpoint to its records: built at the hit, recorded
 * once its new value is known (at once on x86; on arm64 when the step
 * over the access has ended, ksym_hit_stepped()).
 */
struct ksym_hit_ctx {
	struct ksym_hit_rec	rec;
	struct ksym_capture	cap;
	struct ksym_last_hold	hold;	/* .last: NULL when none is held */
	u32			opts;	/* the tracer's, 0: it records nothing */
	bool			record;	/* an event or the tracer records it */
	bool			changes; /* ksym-changes: only changes count */
};

/* The hit is done with its copy's last value: stale if another was not. */
static void ksym_hit_leave(struct ksym_hit_ctx *h)
{
	if (!h->hold.last)
		return;
	if (ksym_last_leave(&h->hold) && h->rec.has_old != KSYM_OLD_NONE)
		h->rec.has_old = KSYM_OLD_STALE;
	h->hold.last = NULL;
}

/* Read the watched range at a hit: plainly where it stays mapped. */
static bool ksym_hit_read(const struct ksym_watch *watch,
			  const struct ksym_hit_rec *rec, u64 *val)
{
	if (likely(watch->spec.mapped)) {
		*val = ksym_load_mapped(rec->addr, rec->len);
		return true;
	}
	return ksym_read_value(rec->addr, rec->len, val);
}

/*
 * The values around the access, for a hit that something records or that
 * ksym-changes counts (ksym_hit_begin()): x86 reads the new one now (its
 * data breakpoints trap after the access) and takes the old one the watch
 * saw last; arm64 reads the old one now (it traps before) and the new one
 * after its step, holding the copy's last value meanwhile so that another
 * CPU's hit between the two reads marks both stale. Read as close to the
 * access as can be: only the look at who consumes the hit comes first.
 * Debug exceptions cannot recurse here on either: DR7 is cleared while #DB
 * runs, arm64 masks them.
 */
static void ksym_hit_values(struct ksym_watch *watch, struct ksym_hit_ctx *h)
{
	struct ksym_last *last = ksym_watch_last(watch, smp_processor_id());
	struct ksym_hit_rec *rec = &h->rec;

	if (!READ_ONCE(watch->spec.has_value))
		return;
	/*
	 * A trigger's slot moves between objects: read only what stays RAM
	 * (never vmalloc space), judged by the address that was hit.
	 */
	if (unlikely(watch->dyn) &&
	    !ksym_addr_stays_ram(rec->addr, rec->len, NULL))
		return;
	ksym_last_enter(last, &h->hold);
	if (KSYM_TRAPS_BEFORE) {
		if (ksym_hit_read(watch, rec, &rec->old)) {
			rec->has_old = KSYM_OLD_READ;
			return;		/* held until the step ends */
		}
	} else {
		rec->has_value = ksym_hit_read(watch, rec, &rec->value);
		if (rec->has_value)
			rec->has_old = ksym_last_swap(last, rec->addr,
						      rec->value, &rec->old);
		else
			WRITE_ONCE(last->addr, 0);
	}
	ksym_hit_leave(h);
}

/*
 * A hit only counted reads nothing and holds nothing: the copy's last
 * value is forgotten instead, so that the next recorded hit says old=none
 * rather than give a value from before accesses it did not see (x86; on
 * arm64 each hit reads its own old value). The write is made once: later
 * counted hits only read the shared line, which stays in every CPU's cache.
 */
static void ksym_hit_forget(struct ksym_watch *watch)
{
	struct ksym_last *last;

	if (KSYM_TRAPS_BEFORE || !READ_ONCE(watch->spec.has_value))
		return;
	last = ksym_watch_last(watch, smp_processor_id());
	if (READ_ONCE(last->addr)) {
		WRITE_ONCE(last->addr, 0);
		/* A recorded hit swapping meanwhile sees it and forgets too. */
		atomic_inc(&last->seq);
	}
}

/* Stack and branches, only when something records them. */
static noinline void ksym_hit_capture(struct pt_regs *regs,
				      struct ksym_hit_ctx *h)
{
	if (trace_ksym_stack_enabled() || (h->opts & KSYM_OPT_STACK))
		ksym_hit_stack(regs, &h->cap);
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	if (trace_ksym_branches_enabled() || (h->opts & KSYM_OPT_BRANCHES))
		ksym_branches_capture(&h->cap);
#endif
}

/*
 * Who consumes this hit: the tracer's options (0 where it is not current
 * or none of its instances records), whether ksym-changes counts only
 * changes, whether anything records. Returns the last.
 */
static bool ksym_hit_consumers(u32 *opts, bool *changes)
{
	*opts = ksym_tracer_want();
	*changes = *opts & KSYM_OPT_CHANGES;
	/* The tracer's captures only for an instance that records them. */
	if ((*opts & KSYM_TRACER_CURRENT) && !ksym_tracer_recording())
		*opts = 0;
	return *opts || ksym_events_want();
}

/*
 * ksym_hit_begin() sets every field of the context, which is not zeroed
 * (ksym_hit_record()): a field added to these must be set there too.
 */
static_assert(sizeof(struct ksym_hit_rec) == 88);
static_assert(sizeof(struct ksym_capture) == 32);
static_assert(sizeof(struct ksym_last_hold) == 16);

static void ksym_hit_begin(struct ksym_watch *watch, struct perf_event *bp,
			   struct pt_regs *regs, struct ksym_hit_ctx *h,
			   u32 opts, bool changes, bool record)
{
	struct ksym_hit_rec *rec = &h->rec;

	/*
	 * Field by field, not a compound literal: that zeroes the whole
	 * context first (some 20 stores more on every recorded hit). Every
	 * field is set: the record goes into the ring buffer as it is.
	 */
	rec->addr = bp->attr.bp_addr;
	rec->ip = instruction_pointer(regs);
	rec->sym = watch->spec.target + watch->spec.name_off;
	rec->sym_len = watch->spec.name_len;
	rec->sp = kernel_stack_pointer(regs);
	rec->bp = frame_pointer(regs);
	rec->flags = ksym_regs_flags(regs);
	rec->value = 0;
	rec->old = 0;
	rec->len = bp->attr.bp_len;
	rec->access = bp->attr.bp_type;
	rec->has_value = false;
	rec->has_old = KSYM_OLD_NONE;
	rec->changed = false;
	h->cap.ips = NULL;
	h->cap.nr_ips = 0;
	h->cap.from_to = NULL;
	h->cap.nr_branches = 0;
	h->cap.source = 0;
	h->hold.last = NULL;
	h->opts = opts;
	h->changes = changes;
	h->record = record;
	ksym_hit_values(watch, h);
	/* The same attribution as trace_stat's, for every consumer. */
	rec->caller = ksym_hit_caller(regs, rec->ip);
	if (h->record)
		ksym_hit_capture(regs, h);
}

/*
 * Did the access change the watched range, as far as is known? arm64 read
 * both values around the access itself: stale or not, equal values mean
 * nothing changed. x86's stale old value is not this access's.
 */
static bool ksym_hit_changed(const struct ksym_hit_rec *rec)
{
	if (rec->has_old == KSYM_OLD_NONE || !rec->has_value)
		return true;
	if (!KSYM_TRAPS_BEFORE && rec->has_old == KSYM_OLD_STALE)
		return true;
	return rec->old != rec->value;
}

/*
 * The hit, recorded: the events that are on and the tracer's entries,
 * then counted. With ksym-changes, an access that left the value as it
 * was is neither the tracer's entry nor counted; the events see every
 * hit (their filter "changed == 1" does the same).
 */
static void ksym_hit_end(struct ksym_watch *watch, struct pt_regs *regs,
			 struct ksym_hit_ctx *h)
{
	bool counted;

	h->rec.changed = ksym_hit_changed(&h->rec);
	counted = !h->changes || h->rec.changed;
	if (h->record) {
		trace_ksym_hit(&h->rec);
#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
		if (trace_ksym_regs_enabled())
			trace_ksym_regs(regs);
#endif
		if (h->cap.ips)
			trace_ksym_stack(h->cap.ips, h->cap.nr_ips);
#ifdef CONFIG_KSYM_TRACER_BRANCHES
		if (h->cap.from_to)
			trace_ksym_branches(h->cap.from_to,
					    h->cap.nr_branches,
					    h->cap.source);
#endif
		if ((h->opts & KSYM_TRACER_CURRENT) && counted)
			ksym_tracer_hit(&h->rec, regs, h->opts, &h->cap);
	}
	if (counted)
		ksym_count_hit(this_cpu_ptr(watch->stats), h->rec.caller);
}

/* Set while this CPU runs ksym_hit_handler() or ksym_hit_stepped(). */
static DEFINE_PER_CPU(bool, ksym_in_hit);

#ifdef CONFIG_ARM64
/*
 * arm64: hits waiting for the end of the step over their access, with
 * what they captured at the hit. One access can hit several watches (as
 * many as hold its address); each waits here, up to KSYM_PENDING of them,
 * and a hit that finds no room is recorded at once, its new value unread.
 * Every step reports its end (hw_breakpoint.c, kernel_step_report())
 * before the breakpoints are back on, so no entry outlives its step: one
 * found still there by its breakpoint's next hit says a report was lost.
 */
#define KSYM_PENDING	4

struct ksym_pending {
	struct perf_event	*bp;	/* NULL: free */
	struct ksym_watch	*watch;
	u64			watch_id; /* watch->id: still the same watch? */
	struct ksym_hit_ctx	h;
	struct pt_regs		regs;
	unsigned long		ips[KSYM_STACK_MAX];
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	unsigned long		from_to[2 * KSYM_BRANCH_MAX];
#endif
};

static DEFINE_PER_CPU(struct ksym_pending [KSYM_PENDING], ksym_pending);

static void ksym_hit_defer(struct ksym_watch *watch, struct perf_event *bp,
			   struct pt_regs *regs, struct ksym_hit_ctx *h)
{
	struct ksym_pending *p = *this_cpu_ptr(&ksym_pending), *e = NULL;
	int i;

	for (i = 0; i < KSYM_PENDING; i++) {
		if (unlikely(p[i].bp == bp)) {
			/*
			 * Its report was lost (the stepped access oopsed):
			 * this hit takes its place. Its hold is let go only
			 * if it is this watch's (by id: a breakpoint and a
			 * watch freed and allocated again at the same
			 * addresses are another watch's, whose copy may be
			 * gone), alive since its breakpoint just hit. No
			 * WARN: a printk from this exception may find the
			 * console's locks held.
			 */
			if (p[i].watch_id == watch->id)
				ksym_hit_leave(&p[i].h);
			printk_deferred_once(KERN_WARNING "ksym: a step's report was lost on CPU %d\n",
					     smp_processor_id());
			e = &p[i];
			break;
		}
		if (!p[i].bp && !e)
			e = &p[i];
	}
	if (!e) {
		ksym_hit_leave(h);
		ksym_hit_end(watch, regs, h);
		return;
	}
	e->watch = watch;
	e->watch_id = watch->id;
	e->h = *h;
	e->regs = *regs;
	if (h->cap.ips) {
		memcpy(e->ips, h->cap.ips, h->cap.nr_ips * sizeof(*e->ips));
		e->h.cap.ips = e->ips;
	}
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	if (h->cap.from_to) {
		memcpy(e->from_to, h->cap.from_to,
		       2 * h->cap.nr_branches * sizeof(*e->from_to));
		e->h.cap.from_to = e->from_to;
	}
#endif
	e->bp = bp;
}

/**
 * ksym_hit_stepped - the step over a hit's access has ended (arm64)
 * @bp:   the breakpoint that hit (hw_perf_event.bp_stepped)
 * @regs: the registers after the step
 * @done: the step ended at the instruction after the access; false when
 *        it ended in an exception's handler (a fault in the access, whose
 *        handler returns to it; an interrupt in an unmasked step): the
 *        access may or may not have completed
 *
 * Called by the architecture's single-step handler, breakpoints still off:
 * reads the new value and records the hit ksym_hit_handler() began.
 */
void ksym_hit_stepped(struct perf_event *bp, struct pt_regs *regs, bool done)
{
	struct ksym_pending *p = *this_cpu_ptr(&ksym_pending);
	struct ksym_hit_rec *rec;
	bool nested;
	int i;

	for (i = 0; i < KSYM_PENDING; i++)
		if (p[i].bp == bp)
			break;
	if (i == KSYM_PENDING)
		return;
	/*
	 * An entry left by a lost report whose breakpoint was freed, and this
	 * one allocated at the same address for another watch: the entry's
	 * watch may be gone. Dropped untouched; this step's own hit (if the
	 * entry was its, the ids would match: the handler stored this
	 * breakpoint's watch) had none. Should that watch live on, its copy's
	 * last value stays held: its later hits there are marked stale, the
	 * price of the oops that lost the report.
	 */
	if (unlikely(p[i].watch_id !=
		     ((struct ksym_watch *)bp->overflow_handler_context)->id)) {
		p[i].bp = NULL;
		return;
	}
	rec = &p[i].h.rec;
	if (done)
		rec->has_value = ksym_hit_read(p[i].watch, rec, &rec->value);
	ksym_hit_leave(&p[i].h);
	nested = this_cpu_read(ksym_in_hit);
	this_cpu_write(ksym_in_hit, true);
	ksym_hit_end(p[i].watch, &p[i].regs, &p[i].h);
	this_cpu_write(ksym_in_hit, nested);
	p[i].bp = NULL;
}

#if IS_ENABLED(CONFIG_KSYM_TRACER_KUNIT_TEST)
/* Two watches with their ids and counters, of the kind @slots says. */
static int ksym_hit_test_watches(bool slots, struct ksym_watch **w,
				 struct ksym_dyn **d, struct ksym_trigger *trig)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (slots) {
			/* A trigger's slot: its watch as ksym_dyn_alloc() made it. */
			w[i] = ksym_dyn_test_watch(trig, &d[i]);
			if (!w[i])
				return -ENOMEM;
			continue;
		}
		/* A ksym_trace_filter watch's id, as ksym_watch_alloc() sets it. */
		w[i] = kzalloc(sizeof(*w[i]), GFP_KERNEL);
		if (!w[i])
			return -ENOMEM;
		w[i]->stats = alloc_percpu(struct ksym_cpu_stats);
		if (!w[i]->stats)
			return -ENOMEM;
		w[i]->id = ksym_watch_new_id();
	}
	return 0;
}

/**
 * ksym_hit_test_pending_reused - for KUnit: a lost report's entry, its
 *                                breakpoint another watch's since (arm64)
 * @slots: the two watches are trigger slots' (else ksym_trace_filter's)
 * @same:  the hits watch A counted when its own step's report came
 * @other: the hits A counted when the report came for B, whose breakpoint
 *         was allocated at A's breakpoint's address after A's was freed
 * @left:  entries still pending after both reports
 *
 * A hit of A's breakpoint waits for its step's report. Once it is
 * reported, counted for A. Then the report is lost (as when the stepped
 * access oopses) and the breakpoint becomes B's: the next report must drop
 * the entry and not record it for A, whose memory may be gone.
 *
 * Return: 0, or -ENOMEM.
 */
int ksym_hit_test_pending_reused(bool slots, long *same, long *other,
				 int *left)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	struct perf_event *bp = kzalloc(sizeof(*bp), GFP_KERNEL);
	struct ksym_watch *w[2] = { };
	struct ksym_dyn *d[2] = { };
	struct ksym_pending *p;
	struct ksym_hit_ctx h;
	struct pt_regs regs;
	int i, ret = -ENOMEM;

	if (!trig || !bp)
		goto out;
	trig->len = sizeof(long);
	trig->access = HW_BREAKPOINT_W;
	ret = ksym_hit_test_watches(slots, w, d, trig);
	if (ret)
		goto out;
	memset(&regs, 0, sizeof(regs));
	preempt_disable();
	for (i = 0; i < 2; i++) {
		/* Counted, not recorded: no value read, no hold. */
		memset(&h, 0, sizeof(h));
		bp->overflow_handler_context = w[0];
		ksym_hit_defer(w[0], bp, &regs, &h);
		if (i)
			bp->overflow_handler_context = w[1];
		ksym_hit_stepped(bp, &regs, false);
		/* Caller 0 (the zeroed context): counted in the first row. */
		*(i ? other : same) = this_cpu_ptr(w[0]->stats)->callers[0].hits;
	}
	p = *this_cpu_ptr(&ksym_pending);
	*left = 0;
	for (i = 0; i < KSYM_PENDING; i++)
		*left += !!p[i].bp;
	preempt_enable();
	*other -= *same;
out:
	for (i = 0; i < 2; i++) {
		if (slots) {
			ksym_dyn_free(d[i]);
		} else if (w[i]) {
			free_percpu(w[i]->stats);
			kfree(w[i]);
		}
	}
	kfree(bp);
	kfree(trig);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_hit_test_pending_reused);
#endif
#else
static void ksym_hit_defer(struct ksym_watch *watch, struct perf_event *bp,
			   struct pt_regs *regs, struct ksym_hit_ctx *h)
{
}
#endif

/* A hit that something records, or that ksym-changes may not count. */
static noinline void ksym_hit_record(struct ksym_watch *watch,
				     struct perf_event *bp,
				     struct pt_regs *regs, u32 opts,
				     bool changes, bool record)
{
	/*
	 * Not zeroed at entry (CONFIG_INIT_STACK_ALL_ZERO would, some 20
	 * stores): ksym_hit_begin() sets every field.
	 */
	struct ksym_hit_ctx h __uninitialized;

	ksym_hit_begin(watch, bp, regs, &h, opts, changes, record);
	if (unlikely(ksym_too_hot(this_cpu_ptr(watch->stats))))
		ksym_watch_too_hot(watch, bp);
	if (KSYM_TRAPS_BEFORE && h.rec.has_old == KSYM_OLD_READ)
		ksym_hit_defer(watch, bp, regs, &h);
	else
		ksym_hit_end(watch, regs, &h);
}

/*
 * A hit of @watch's breakpoint @bp: counted, recorded where it is wanted.
 * A hit only counted builds no record and reads no value (the path of a
 * watch on a busy word while nothing records, what counting costs); the
 * others, and ksym-changes, go through ksym_hit_record().
 */
static void ksym_hit(struct ksym_watch *watch, struct perf_event *bp,
		     struct pt_regs *regs)
{
	struct ksym_cpu_stats *stats;
	unsigned long caller;
	bool changes, record;
	u32 opts;

	record = ksym_hit_consumers(&opts, &changes);
	if (record || changes) {
		ksym_hit_record(watch, bp, regs, opts, changes, record);
		return;
	}
	caller = ksym_hit_caller(regs, instruction_pointer(regs));
	stats = this_cpu_ptr(watch->stats);
	if (unlikely(ksym_too_hot(stats)))
		ksym_watch_too_hot(watch, bp);
	ksym_hit_forget(watch);
	ksym_count_hit(stats, caller);
}

/**
 * ksym_hit_handler - the overflow handler of every watch's breakpoints
 * @bp:   the breakpoint that hit
 * @data: perf's sample data (unused)
 * @regs: the registers of the accessing context, from the #DB exception
 *
 * Runs in the #DB exception, NMI-like: counts the hit, then writes the ksym
 * events that are enabled and the entries of the ksym tracer where it is
 * current and recording (on arm64, once the step over the access has
 * ended: ksym_hit_stepped()). No lock, no allocation, no formatting (a
 * trigger slot's first stray hit is taken raw and printed from an
 * irq_work). A hit that nothing records (the tracer current with tracing
 * off, say) is only counted, its value not read and no line shared with
 * other CPUs written (ksym_hit_forget()): that path is kept short, since
 * it is what a watch on a busy word costs.
 */
void ksym_hit_handler(struct perf_event *bp, struct perf_sample_data *data,
		      struct pt_regs *regs)
{
	struct ksym_watch *watch = bp->overflow_handler_context;

	/* The tracer's own read of the bytes (ksym_read_own()). */
	if (unlikely(this_cpu_read(ksym_own_read.len)) && ksym_hit_is_own(bp))
		return;
	bool nested = this_cpu_read(ksym_in_hit);

	/*
	 * Put back, not cleared: on x86 an NMI's hit may nest in a hit. Set
	 * before a slot's look at the hit, which may end its watch: no move
	 * of a breakpoint inside this handler (ksym_dyn_apply_here()).
	 */
	this_cpu_write(ksym_in_hit, true);
	if (likely(!watch->dyn) || !ksym_dyn_stray(watch->dyn, bp, regs))
		ksym_hit(watch, bp, regs);
	this_cpu_write(ksym_in_hit, nested);
}

/**
 * ksym_in_hit_handler - whether this CPU runs the tracer's breakpoint handler
 *
 * A trigger on a ksym event fires inside it, where the breakpoints must
 * not be moved (ksym_dyn_apply_here()).
 *
 * Return: true inside ksym_hit_handler() on this CPU.
 */
bool ksym_in_hit_handler(void)
{
	return this_cpu_read(ksym_in_hit);
}

/* ------------------------------------------------------------------------
 * ksym_trace_filter
 */

/*
 * Data of a write not yet applied (an entry still being written), and what
 * this open file has done: see ksym_filter_flush().
 */
struct ksym_filter_buf {
	struct mutex	lock;	/* write() is not always serialized */
	char		*data;
	size_t		len;
	bool		trunc;	/* opened with O_TRUNC, as by "echo >" */
	bool		wrote;	/* some entry was applied or refused */
};

static ssize_t ksym_filter_write(struct file *file, const char __user *ubuf,
				 size_t cnt, loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	struct ksym_filter_buf *fb = m->private;
	char *nul;
	size_t end;
	int ret;

	if (!cnt)
		return 0;
	guard(mutex)(&fb->lock);
	if (fb->len + cnt >= KSYM_WRITE_MAX) {
		fb->len = 0;
		fb->wrote = true;
		ksym_log("", KSYM_ERR_TOO_LONG, 0);
		return -E2BIG;
	}
	if (copy_from_user(fb->data + fb->len, ubuf, cnt)) {
		fb->wrote = true;
		return -EFAULT;
	}
	/*
	 * A NUL would end the entry early and silently: refuse the write,
	 * and the unterminated entry it belongs to.
	 */
	nul = memchr(fb->data + fb->len, '\0', cnt);
	if (nul) {
		size_t pos = nul - fb->data;

		ksym_log(fb->data, KSYM_ERR_NUL_BYTE, pos);
		fb->len = 0;
		fb->wrote = true;
		return -EINVAL;
	}
	/* Anything but blanks, a comment too, is not a truncating clear. */
	for (end = fb->len; end < fb->len + cnt && !fb->wrote; end++)
		fb->wrote = !ksym_is_blank(fb->data[end]);
	fb->len += cnt;
	fb->data[fb->len] = '\0';

	/*
	 * Apply every complete line as one write; a line not yet terminated
	 * waits for the next write() or for close().
	 */
	for (end = fb->len; end && fb->data[end - 1] != '\n'; end--)
		;
	if (!end)
		return cnt;

	fb->data[end - 1] = '\0';
	ret = ksym_write_entries(fb->data);
	fb->len -= end;
	memmove(fb->data, fb->data + end, fb->len + 1);
	if (ret)
		fb->wrote = true;
	if (ret < 0) {
		/* A failed write takes the rest of what it carried with it. */
		fb->len = 0;
		return ret;
	}
	*ppos += cnt;
	return cnt;
}

static void *ksym_filter_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&ksym_mutex);
	return seq_list_start(&ksym_watches, *pos);
}

static void *ksym_filter_next(struct seq_file *m, void *v, loff_t *pos)
{
	return seq_list_next(v, &ksym_watches, pos);
}

static void ksym_filter_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&ksym_mutex);
}

/*
 * One line per watch in canonical form; an incomplete watch gets a comment
 * naming the CPUs it misses, which a write of the line back ignores.
 */
static int ksym_filter_show(struct seq_file *m, void *v)
{
	struct ksym_watch *watch = list_entry(v, struct ksym_watch, list);
	cpumask_var_t missing;
	char *buf;

	buf = kmalloc(KSYM_ENTRY_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (!zalloc_cpumask_var(&missing, GFP_KERNEL)) {
		kfree(buf);
		return -ENOMEM;
	}
	ksym_spec_format(buf, KSYM_ENTRY_MAX, &watch->spec);
	seq_puts(m, buf);
	if (READ_ONCE(watch->hot))
		seq_printf(m, " # disarmed: over %llu hits/s",
			   READ_ONCE(ksym_max_hit_rate));
	else if (ksym_watch_missing(watch, missing))
		seq_printf(m, " # incomplete: not on CPU %*pbl",
			   cpumask_pr_args(missing));
	seq_putc(m, '\n');
	free_cpumask_var(missing);
	kfree(buf);
	return 0;
}

static const struct seq_operations ksym_filter_seq_ops = {
	.start	= ksym_filter_start,
	.next	= ksym_filter_next,
	.stop	= ksym_filter_stop,
	.show	= ksym_filter_show,
};

static int ksym_filter_open(struct inode *inode, struct file *file)
{
	struct ksym_filter_buf *fb = NULL;
	int ret;

	ret = tracing_check_open_get_tr(NULL);
	if (ret)
		return ret;

	/* Readers see, and writers change, the watches armed as they are. */
	ksym_sync_arming();

	if (file->f_mode & FMODE_WRITE) {
		fb = kzalloc(sizeof(*fb), GFP_KERNEL);
		if (fb)
			fb->data = kmalloc(KSYM_WRITE_MAX, GFP_KERNEL);
		if (!fb || !fb->data) {
			kfree(fb);
			return -ENOMEM;
		}
		mutex_init(&fb->lock);
		fb->trunc = file->f_flags & O_TRUNC;
	}
	ret = seq_open(file, &ksym_filter_seq_ops);
	if (ret) {
		if (fb)
			kfree(fb->data);
		kfree(fb);
		return ret;
	}
	((struct seq_file *)file->private_data)->private = fb;
	return 0;
}

/*
 * The last close applies an entry written without a trailing newline. A
 * file opened with O_TRUNC ("echo > ksym_trace_filter", ": >") and closed
 * with nothing but blanks written clears every watch, as truncating
 * set_ftrace_filter does; a blank line among entries, or appended with
 * ">>", changes nothing.
 */
static int ksym_filter_apply_pending(struct ksym_filter_buf *fb)
{
	char clear[] = "0";
	int ret = 0;

	if (!fb)
		return 0;
	guard(mutex)(&fb->lock);
	if (fb->len) {
		ret = ksym_write_entries(fb->data);
		fb->len = 0;
		if (ret)
			fb->wrote = true;
	}
	if (fb->trunc && !fb->wrote) {
		fb->wrote = true;
		ret = ksym_write_entries(clear);
	}
	return ret < 0 ? ret : 0;
}

/*
 * close() of the last descriptor of the file applies the pending entry and
 * returns its error. Closing a copy (a child that inherited the descriptor
 * exits, say) leaves it pending: more of it may still come.
 */
static int ksym_filter_flush(struct file *file, fl_owner_t id)
{
	struct seq_file *m = file->private_data;

	if (file_count(file) > 1)
		return 0;
	return ksym_filter_apply_pending(m->private);
}

static int ksym_filter_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;
	struct ksym_filter_buf *fb = m->private;

	/* Pending data of a file never closed by close() (e.g. fput only). */
	ksym_filter_apply_pending(fb);
	if (fb)
		kfree(fb->data);
	kfree(fb);
	return seq_release(inode, file);
}

static const struct file_operations ksym_filter_fops = {
	.open		= ksym_filter_open,
	.read		= seq_read,
	.write		= ksym_filter_write,
	.flush		= ksym_filter_flush,
	.llseek		= seq_lseek,
	.release	= ksym_filter_release,
};

/* ------------------------------------------------------------------------
 * The ksym tracer.
 *
 * When current in an instance, it writes its own entries into that
 * instance's buffer, as hwlat and osnoise do: from the hit path, with no
 * tracepoint and no event file in between. The entries have the types and
 * layouts of the ksym events, so "cat trace", trace-cmd and KernelShark
 * decode them with the events' formats. The ksym_hit entry is committed
 * with the exception's registers, so options/stacktrace gives a callchain
 * that starts at the accessor. Being tracer entries, the instance's event
 * filters do not apply to them (as for hwlat); its set_event_pid does, as
 * for the events, so that "who touches it from this task" can be asked.
 */

enum {
	KSYM_EV_HIT,
	KSYM_EV_REGS,
	KSYM_EV_STACK,
	KSYM_EV_BRANCHES,
	KSYM_NR_EV
};

/*
 * An instance the tracer is current in, and that instance's real ksym
 * event files: where an event is enabled, it writes its own entry for the
 * hit and the tracer does not, so no hit is recorded twice.
 */
struct ksym_instance {
	struct list_head	list;
	struct trace_array	*tr;
	struct trace_event_file	*files[KSYM_NR_EV];
};

/*
 * Instances the tracer is current in: modified by the tracer callbacks,
 * which the tracing core serializes under trace_types_lock; read by the
 * hit path under RCU (the #DB handler runs with preemption disabled).
 */
static LIST_HEAD(ksym_instances);
static bool ksym_tracer_active;

static struct tracer_opt ksym_tracer_opts[] = {
	{ TRACER_OPT(ksym-stack, KSYM_OPT_STACK) },
	{ TRACER_OPT(ksym-regs, KSYM_OPT_REGS) },
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	{ TRACER_OPT(ksym-branches, KSYM_OPT_BRANCHES) },
#endif
	{ TRACER_OPT(ksym-changes, KSYM_OPT_CHANGES) },
	{ } /* Terminator */
};

static struct tracer_flags ksym_tracer_flags = {
	.val  = 0,
	.opts = ksym_tracer_opts,
};

/* The options the hit path must serve for the tracer, 0 when not current. */
static u32 ksym_tracer_want(void)
{
	if (!READ_ONCE(ksym_tracer_active))
		return 0;
	return READ_ONCE(ksym_tracer_flags.val) | KSYM_TRACER_CURRENT;
}

/* The __data_loc word of a dynamic array of @len bytes at the entry's end. */
#define KSYM_DATA_LOC(type, len)	((u32)(len) << 16 | offsetof(type, __data))

/*
 * The instance's own ksym event @ev writes the entry. Not when it is only
 * soft-enabled, for a trigger (hist, enable_event, ...): then the event
 * runs its triggers but writes nothing, and the tracer's entry is wanted.
 */
static bool ksym_event_on(const struct ksym_instance *ins, int ev)
{
	unsigned long flags;

	if (!ins->files[ev])
		return false;
	flags = READ_ONCE(ins->files[ev]->flags);
	return (flags & EVENT_FILE_FL_ENABLED) &&
	       !(flags & EVENT_FILE_FL_SOFT_DISABLED);
}

static void ksym_tracer_write(const struct ksym_instance *ins,
			      const struct ksym_hit_rec *rec,
			      struct pt_regs *regs, u32 opts,
			      const struct ksym_capture *cap,
			      unsigned int trace_ctx)
{
	struct trace_array *tr = ins->tr;
	struct trace_buffer *buffer = tr->array_buffer.buffer;
	struct trace_event_raw_ksym_stack *stack;
	struct trace_event_raw_ksym_hit *hit;
	struct ring_buffer_event *event;
	size_t len;

	event = NULL;
	if (!ksym_event_on(ins, KSYM_EV_HIT))
		event = trace_buffer_lock_reserve(buffer,
						  event_ksym_hit.event.type,
						  sizeof(*hit) + rec->sym_len,
						  trace_ctx);
	if (event) {
		hit = ring_buffer_event_data(event);
		KSYM_HIT_ASSIGN(hit, rec);
		hit->__data_loc_sym = KSYM_DATA_LOC(typeof(*hit), rec->sym_len);
		memcpy(hit->__data, rec->sym, rec->sym_len);
		/*
		 * options/stacktrace and userstacktrace add their entries
		 * after this one, from the hit's regs; without them, the
		 * plain commit (some 20 instructions fewer).
		 */
		if (READ_ONCE(tr->trace_flags) &
		    (TRACE_ITER_STACKTRACE | TRACE_ITER_USERSTACKTRACE))
			trace_buffer_unlock_commit_regs(tr, buffer, event,
							trace_ctx, regs);
		else
			trace_buffer_unlock_commit_nostack(buffer, event);
	}

#if defined(CONFIG_X86_64) || defined(CONFIG_ARM64)
	if ((opts & KSYM_OPT_REGS) && !ksym_event_on(ins, KSYM_EV_REGS)) {
		struct trace_event_raw_ksym_regs *r;

		event = trace_buffer_lock_reserve(buffer,
						  event_ksym_regs.event.type,
						  sizeof(*r), trace_ctx);
		if (event) {
			r = ring_buffer_event_data(event);
			KSYM_REGS_ASSIGN(r, regs);
			trace_buffer_unlock_commit_nostack(buffer, event);
		}
	}
#endif
	if ((opts & KSYM_OPT_STACK) && !ksym_event_on(ins, KSYM_EV_STACK)) {
		len = cap->nr_ips * sizeof(unsigned long);
		event = trace_buffer_lock_reserve(buffer,
						  event_ksym_stack.event.type,
						  sizeof(*stack) + len, trace_ctx);
		if (event) {
			stack = ring_buffer_event_data(event);
			stack->nr = cap->nr_ips;
			stack->__data_loc_ips = KSYM_DATA_LOC(typeof(*stack), len);
			memcpy(stack->__data, cap->ips, len);
			trace_buffer_unlock_commit_nostack(buffer, event);
		}
	}
#ifdef CONFIG_KSYM_TRACER_BRANCHES
	if ((opts & KSYM_OPT_BRANCHES) &&
	    !ksym_event_on(ins, KSYM_EV_BRANCHES)) {
		struct trace_event_raw_ksym_branches *br;

		len = 2 * cap->nr_branches * sizeof(unsigned long);
		event = trace_buffer_lock_reserve(buffer,
						  event_ksym_branches.event.type,
						  sizeof(*br) + len, trace_ctx);
		if (event) {
			br = ring_buffer_event_data(event);
			br->nr = cap->nr_branches;
			br->source = cap->source;
			br->__data_loc_from_to =
				KSYM_DATA_LOC(typeof(*br), len);
			memcpy(br->__data, cap->from_to, len);
			trace_buffer_unlock_commit_nostack(buffer, event);
		}
	}
#endif
}

/* The instance's buffer takes entries (tracing_on, not disabled). */
static bool ksym_instance_recording(const struct ksym_instance *ins)
{
	return ring_buffer_record_is_on(ins->tr->array_buffer.buffer);
}

/*
 * The instance's set_event_pid (and set_event_notrace_pid) leave out the
 * current task: its events would not be written, nor are its entries.
 */
static bool ksym_instance_ignores_task(const struct ksym_instance *ins)
{
	struct trace_array *tr = ins->tr;

	if (!rcu_dereference_raw(tr->filtered_pids) &&
	    !rcu_dereference_raw(tr->filtered_no_pids))
		return false;
	return this_cpu_read(tr->array_buffer.data->ignore_pid);
}

/* Does an instance with the tracer current record now? */
static bool ksym_tracer_recording(void)
{
	struct ksym_instance *ins;

	list_for_each_entry_rcu(ins, &ksym_instances, list)
		if (ksym_instance_recording(ins))
			return true;
	return false;
}

/* From the hit path: one set of entries into each instance recording. */
static void ksym_tracer_hit(const struct ksym_hit_rec *rec,
			    struct pt_regs *regs, u32 opts,
			    const struct ksym_capture *cap)
{
	unsigned int trace_ctx = tracing_gen_ctx();
	struct ksym_instance *ins;

	/*
	 * Whether the instance's buffer is on was asked just before
	 * (ksym_hit_consumers()); one turned off since refuses the reserve.
	 */
	list_for_each_entry_rcu(ins, &ksym_instances, list)
		if (!ksym_instance_ignores_task(ins))
			ksym_tracer_write(ins, rec, regs, opts, cap,
					  trace_ctx);
}

/* The tracer as a consumer: it arms the watches, and maybe snippets. */
static void ksym_tracer_consume(bool on, u32 opts)
{
	int d = on ? 1 : -1;

	atomic_add(d, &ksym_consumers);
	if (opts & KSYM_OPT_BRANCHES)
		atomic_add(d, &ksym_branch_users);
	/* Under trace_types_lock or event_mutex: waited for on the way out. */
	ksym_arm_soon();
}

static int ksym_tracer_set_flag(struct trace_array *tr, u32 old_flags,
				u32 bit, int set)
{
	/* Only branch snippets need starting: stack and regs cost nothing. */
	if (bit != KSYM_OPT_BRANCHES || !!(old_flags & bit) == !!set ||
	    list_empty(&ksym_instances))
		return 0;
	atomic_add(set ? 1 : -1, &ksym_branch_users);
	ksym_arm_soon();
	return 0;
}

static int ksym_tracer_init(struct trace_array *tr)
{
	struct ksym_instance *ins;

	lockdep_assert_held(&trace_types_lock);
	ins = kzalloc(sizeof(*ins), GFP_KERNEL);
	if (!ins)
		return -ENOMEM;
	ins->tr = tr;
	/*
	 * The instance's event files stay while the tracer is current in it:
	 * instances and modules change tr->events under trace_types_lock.
	 */
	ins->files[KSYM_EV_HIT] = __find_event_file(tr, "ksym", "ksym_hit");
	ins->files[KSYM_EV_REGS] = __find_event_file(tr, "ksym", "ksym_regs");
	ins->files[KSYM_EV_STACK] = __find_event_file(tr, "ksym", "ksym_stack");
	ins->files[KSYM_EV_BRANCHES] = __find_event_file(tr, "ksym",
							 "ksym_branches");
	if (list_empty(&ksym_instances)) {
		WRITE_ONCE(ksym_tracer_active, true);
		ksym_tracer_consume(true, ksym_tracer_flags.val);
	}
	list_add_tail_rcu(&ins->list, &ksym_instances);
	/*
	 * Save the comm of the tasks that hit, as the tracing core does for
	 * its events and the function tracer: without it, the trace and
	 * trace.dat show <...>-PID.
	 */
	tracing_start_cmdline_record();
	return 0;
}

static void ksym_tracer_reset(struct trace_array *tr)
{
	struct ksym_instance *ins, *found = NULL;

	lockdep_assert_held(&trace_types_lock);
	list_for_each_entry(ins, &ksym_instances, list)
		if (ins->tr == tr)
			found = ins;
	if (WARN_ON_ONCE(!found))
		return;
	list_del_rcu(&found->list);
	tracing_stop_cmdline_record();
	if (list_empty(&ksym_instances)) {
		WRITE_ONCE(ksym_tracer_active, false);
		ksym_tracer_consume(false, ksym_tracer_flags.val);
	}
	/* Hit handlers still writing into @tr are done after this. */
	synchronize_rcu();
	kfree(found);
}

static struct tracer ksym_tracer __read_mostly = {
	.name		= "ksym",
	.init		= ksym_tracer_init,
	.reset		= ksym_tracer_reset,
	.flags		= &ksym_tracer_flags,
	.set_flag	= ksym_tracer_set_flag,
	.allow_instances = true,
};

/* Hits per second per CPU and watch before it is disarmed; 0: no limit. */
static struct trace_min_max_param ksym_max_hit_rate_param = {
	.lock	= &ksym_mutex,
	.val	= &ksym_max_hit_rate,
};

static struct trace_min_max_param ksym_stack_depth_param = {
	.lock	= &ksym_mutex,
	.val	= &ksym_stack_depth,
	.min	= &ksym_one,
	.max	= &ksym_stack_max,
};

/* ------------------------------------------------------------------------
 * Registration
 */

static __init int ksym_tracer_register(void)
{
	int ret;

	ret = register_tracer(&ksym_tracer);
	if (ret)
		return ret;
	ksym_lock_ranges_init();
	ksym_watch_init();

	if (tracing_init_dentry())
		return 0;
	trace_create_file("ksym_trace_filter", TRACE_MODE_WRITE, NULL, NULL,
			  &ksym_filter_fops);
	trace_create_file("ksym_stack_depth", TRACE_MODE_WRITE, NULL,
			  &ksym_stack_depth_param, &trace_min_max_fops);
	trace_create_file("ksym_max_hit_rate", TRACE_MODE_WRITE, NULL,
			  &ksym_max_hit_rate_param, &trace_min_max_fops);
	ksym_branch_init_tracefs();
	ret = ksym_stat_init();
	if (ret)
		pr_warn("no trace_stat files: %d\n", ret);
	ret = ksym_trigger_init();
	if (ret)
		pr_warn("no ksym_watch triggers: %d\n", ret);
	return 0;
}
late_initcall(ksym_tracer_register);
