// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_trigger.c - watch objects found at run time: the ksym_watch
 * and ksym_unwatch event triggers.
 *
 *	echo 'ksym_watch:obj.count:-w-' > events/ksym_hitgen/ksym_hitgen_obj_alloc/trigger
 *	echo 'ksym_unwatch:obj' > events/ksym_hitgen/ksym_hitgen_obj_free/trigger
 *
 * When ksym_watch fires, the object whose address the event's FIELD holds
 * is watched, at the offset its field path names, on every CPU; when
 * ksym_unwatch fires on another event, the watch of the object its FIELD
 * holds ends. Hits are ksym_hit events and profile rows like any other.
 *
 * A trigger may fire in any context (NMI, hardirq, locks held), so it
 * never registers a breakpoint: it takes a slot, a wide breakpoint that
 * was registered when the trigger was created and parked on a word of a
 * page nothing stores to (ksym_dyn_parking), and retargets it. The slot
 * is claimed with a cmpxchg, its new address published with a generation
 * number, and the firing CPU moves its own breakpoint at once, before the
 * event returns (modify_wide_hw_breakpoint_local(), interrupts off; not
 * in NMI or inside the tracer's breakpoint handler, where its irq_work
 * does it when the exception is over). An irq_work on this CPU queues one
 * on every other online CPU; each moves its own breakpoint the same way.
 * The CPU that moves the last one makes the watch live and measures the
 * window from the trigger. No free slot: the trigger counts a miss and
 * goes on.
 *
 * Slot states, kept with the generation in one word that only moves by
 * cmpxchg, so that a late CPU cannot act on a generation that is gone:
 *
 *	OFF --(registered)--> PARKED --(trigger claims)--> CLAIMED
 *	CLAIMED --(address published, generation + 1)--> ARMING
 *	ARMING --(every CPU moved)--> LIVE
 *	ARMING, LIVE --(unwatch, too hot, address refused)--> CLAIMED
 *	CLAIMED --(parking word published, generation + 1)--> ENDING
 *	ENDING --(every CPU parked)--> PARKED
 *	CLAIMED --(another slot claims the same object)--> YIELDED
 *	CLAIMED, YIELDED --(claim given up, generation + 1)--> PARKED
 *	YIELDED --(an end's parking word published)--> ENDING
 *
 * One object is watched by one slot: a claim for it that meets another
 * slot's (the event fired on two CPUs at once, or in an NMI over itself)
 * gives way, see ksym_dyn_claim_won().
 *
 * CLAIMED is held by one publisher, which never waits: an unwatch that
 * meets it is lost (the watch then stays until its slot is needed or the
 * trigger goes, as for an object freed without its unwatch).
 *
 * Triggers are created and freed under event_mutex, where perf's mutexes
 * may not be taken: the slots' breakpoints are registered and released by
 * an ordered work item. Until it has run, the trigger counts misses;
 * opening trace_stat/ksym_triggers waits for it.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/irq_work.h>
#include <linux/mm.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <kunit/visibility.h>
#include <asm/sections.h>
#ifdef CONFIG_X86_64
#include <asm/debugreg.h>
#endif

#include "trace.h"
#include "trace_stat.h"
#include "trace_dynevent.h"
#include "trace_ksym.h"

enum ksym_dyn_state {
	KSYM_DYN_OFF,		/* no breakpoints (yet, or any more) */
	KSYM_DYN_PARKED,	/* free: breakpoints on @parking */
	KSYM_DYN_CLAIMED,	/* a trigger is publishing an address */
	KSYM_DYN_ARMING,	/* the CPUs are moving to it */
	KSYM_DYN_LIVE,		/* every CPU watches the object */
	KSYM_DYN_ENDING,	/* the CPUs are moving back to @parking */
	KSYM_DYN_YIELDED,	/* CLAIMED, told to give way to another slot */
};

#define KSYM_DYN_STATE_BITS	3
#define KSYM_DYN_STATE_MASK	(BIT(KSYM_DYN_STATE_BITS) - 1)
/* A CPU whose breakpoint must be moved whatever is published. */
#define KSYM_DYN_GEN_NONE	ULONG_MAX

static inline unsigned long ksym_ctl(unsigned long gen, int state)
{
	return gen << KSYM_DYN_STATE_BITS | state;
}

static inline unsigned long ksym_ctl_gen(unsigned long ctl)
{
	return ctl >> KSYM_DYN_STATE_BITS;
}

static inline int ksym_ctl_state(unsigned long ctl)
{
	return ctl & KSYM_DYN_STATE_MASK;
}

struct ksym_trigger;

/**
 * struct ksym_dyn - a trigger's slot: one object watched at a time
 * @watch:    the watch: breakpoints, counters and the name events show
 * @trig:     the trigger it belongs to
 * @node:     entry in ksym_dyns (RCU; changed under ksym_mutex)
 * @ctl:      generation << KSYM_DYN_STATE_BITS | enum ksym_dyn_state; the
 *            generation grows when @want is published (store-release)
 * @obj:      the object's address, kept after the watch ends for the
 *            profile rows; 0 before the first
 * @want:     the address the breakpoints are to watch
 * @claiming: the object a ksym_watch claim is for until it is published
 *            or given up, else 0
 * @claim_gen: the generation that claim was taken at: an end's CLAIMED
 *            of a later generation is no claim of @claiming
 * @cpu_gen:  the generation each CPU's breakpoint has taken
 * @arm_gen:  the generation that armed the slot for @obj
 * @cpu_arm:  the @arm_gen each CPU's counters are of
 * @retired:  each CPU's hits of earlier objects
 * @retire_seq: each CPU's count of retires begun and ended (odd: under
 *            way), so that a reader never sees a CPU's hits twice or not
 *            at all
 * @fired_ns: local_clock() when the trigger fired, for the window
 * @bad:      a CPU's breakpoint refused @want (the architecture's check)
 * @stray_said: a stray hit was reported on the console
 * @parking:  the address of the word the breakpoints watch while the
 *            slot is free, in ksym_dyn_parking
 */
struct ksym_dyn {
	struct ksym_watch	watch;
	struct ksym_trigger	*trig;
	struct list_head	node;
	atomic_long_t		ctl;
	unsigned long		obj;
	unsigned long		want;
	unsigned long		claiming;
	unsigned long		claim_gen;
	unsigned long __percpu	*cpu_gen;
	unsigned long		arm_gen;
	unsigned long __percpu	*cpu_arm;
	unsigned long __percpu	*retired;
	unsigned int __percpu	*retire_seq;
	u64			fired_ns;
	bool			bad;
	bool			stray_said;
	unsigned long		parking;
#if IS_ENABLED(CONFIG_KSYM_TRACER_KUNIT_TEST)
	bool			test_park_fails;
#endif
};

/**
 * struct ksym_trigger - one ksym_watch or ksym_unwatch trigger
 * @list:      entry in ksym_triggers, under ksym_trigger_mutex
 * @unwatch:   a ksym_unwatch trigger (no slots)
 * @call:      the event, whose module (if any) the trigger holds
 * @tr:        the instance of the event file it is set in: an unwatch
 *             ends watches of that instance's triggers only (compared,
 *             never followed)
 * @event:     "system:event", for the stat file and error_log
 * @canon:     the trigger's canonical text, without count and filter
 * @name:      what events and profiles call the watched field:
 *             "ksym_hitgen_obj.count", or the event field's name
 * @field_off: where the address is in the event's record
 * @off:       bytes from the object to the watched field, or (unwatch)
 *             from the field's address to the object; negative below it
 *             (a local below the stack pointer a probe fetched)
 * @len:       bytes watched
 * @access:    HW_BREAKPOINT_W or _RW
 * @nr_slots:  slots asked for (ksym_trigger_slots when created)
 * @slots:     the slots
 * @nr_live_slots: slots whose breakpoints were registered
 * @armed:     objects a slot was taken for
 * @missed:    firings that found no free slot
 * @refused:   firings whose address is no kernel RAM, or misaligned
 * @unwatched: watches ended by ksym_unwatch
 * @too_hot:   watches ended by the hit-rate guard
 * @stray:     hits of a slot's breakpoint while it was parked
 * @window_last: ns from the last firing to its watch live everywhere
 * @window_max:  the longest such window
 * @reg_work:  registers the slots' breakpoints
 * @free_work: releases them and frees the trigger
 */
struct ksym_trigger {
	struct list_head	list;
	bool			unwatch;
	struct trace_event_call	*call;
	const struct trace_array *tr;
	char			event[2 * MAX_EVENT_NAME_LEN + 2];
	char			*canon;
	char			*name;
	unsigned int		field_off;
	long			off;
	unsigned int		len;
	unsigned int		access;
	int			nr_slots;
	struct ksym_dyn		*slots[KSYM_TRIGGER_SLOTS_MAX];
	int			nr_live_slots;
	atomic_long_t		armed;
	atomic_long_t		missed;
	atomic_long_t		refused;
	atomic_long_t		unwatched;
	atomic_long_t		too_hot;
	atomic_long_t		stray;
	u64			window_last;
	u64			window_max;
	struct work_struct	reg_work;
	struct work_struct	free_work;
};

/* Every slot with breakpoints, for the irq_work and the profiles. */
LIST_HEAD(ksym_dyns);

/*
 * The words free slots' breakpoints watch: a page of their own, which
 * nothing stores to. Not a word of the slot's own (kmalloc memory, the
 * first version): QEMU's TCG (7.2, Debian 12) takes an unaligned store to
 * a page as reaching back to the page's start, so it reported one above a
 * watched word of the same page as a hit on it, and the stat files' rows
 * (unaligned string stores) were allocated there.
 */
static unsigned long ksym_dyn_parking[PAGE_SIZE / sizeof(unsigned long)]
	__page_aligned_bss;
static atomic_t ksym_dyn_parked = ATOMIC_INIT(0);

/* The triggers, for trace_stat/ksym_triggers; a leaf lock. */
static DEFINE_MUTEX(ksym_trigger_mutex);
static LIST_HEAD(ksym_triggers);

/* Slots a new ksym_watch trigger takes (tracefs ksym_trigger_slots). */
static u64 ksym_trigger_slots = 1;
static u64 ksym_trigger_slots_min = 1;
static u64 ksym_trigger_slots_max = KSYM_TRIGGER_SLOTS_MAX;

static struct workqueue_struct *ksym_trigger_wq;

/* ------------------------------------------------------------------------
 * Moving the breakpoints: an irq_work on each CPU.
 */

static void ksym_dyn_sync_fn(struct irq_work *work);
static void ksym_dyn_kick_fn(struct irq_work *work);

static DEFINE_PER_CPU(struct irq_work, ksym_dyn_sync_work) =
	IRQ_WORK_INIT_HARD(ksym_dyn_sync_fn);
static DEFINE_PER_CPU(struct irq_work, ksym_dyn_kick_work) =
	IRQ_WORK_INIT_HARD(ksym_dyn_kick_fn);

/*
 * Set while this CPU moves a breakpoint (ksym_dyn_apply()): a trigger that
 * fires inside (a tracepoint on the move's path) leaves its own move to
 * the irq_work.
 */
static DEFINE_PER_CPU(bool, ksym_dyn_applying);

static void ksym_dyn_apply(struct ksym_dyn *d);

/* From any context, NMI included: have every CPU look at the slots. */
static void ksym_dyn_kick(void)
{
	irq_work_queue(this_cpu_ptr(&ksym_dyn_kick_work));
}

/*
 * The firing CPU moves its breakpoint of @d before the event returns, in
 * any context but three, where it waits for its irq_work as the other
 * CPUs do: NMI (x86's debug exception is one; DR7 written there would be
 * put back by a debug exception the NMI interrupted), inside the tracer's
 * breakpoint handler (arm64 steps over the access with the breakpoints
 * off, and would find one back on), and inside a move already running on
 * this CPU (ksym_dyn_apply() returns at once there).
 */
static void ksym_dyn_apply_here(struct ksym_dyn *d)
{
	struct perf_event *bp;
	unsigned long flags;

	if (in_nmi() || ksym_in_hit_handler())
		return;
	local_irq_save(flags);
	/*
	 * Nor inside perf's own install or removal on this CPU (a probe
	 * event's trigger there): between setting the state and adding the
	 * breakpoint, a move would install it twice. Held by another CPU
	 * for a moment, the lock only sends this move to the irq_work.
	 */
	bp = READ_ONCE(*this_cpu_ptr(d->watch.bps));
	if (!bp || !raw_spin_is_locked(&bp->ctx->lock))
		ksym_dyn_apply(d);
	local_irq_restore(flags);
}

/* Hardirq: the other CPUs are asked from here, never from NMI. */
static void ksym_dyn_kick_fn(struct irq_work *work)
{
	int cpu, self = smp_processor_id();

	for_each_online_cpu(cpu)
		if (cpu != self)
			irq_work_queue_on(per_cpu_ptr(&ksym_dyn_sync_work, cpu),
					  cpu);
	ksym_dyn_sync_fn(NULL);
}

/* The slot's control word; pairs with the release in ksym_dyn_publish(). */
static unsigned long ksym_dyn_ctl(struct ksym_dyn *d)
{
	return atomic_long_read_acquire(&d->ctl);
}

/* Take @d from control word @from to CLAIMED: only the taker publishes. */
static bool ksym_dyn_take(struct ksym_dyn *d, unsigned long from)
{
	long old = from;

	return atomic_long_try_cmpxchg(&d->ctl, &old,
				       ksym_ctl(ksym_ctl_gen(from),
						KSYM_DYN_CLAIMED));
}

/*
 * From CLAIMED (generation @gen): publish @want as the next generation in
 * @state, ARMING or ENDING, and have every CPU move its breakpoint. A
 * cmpxchg, not a store: the trigger's free may have switched the slot off
 * meanwhile, or another slot's claim of the same object may have told
 * this one to yield. An end goes on when told to yield (its breakpoints
 * are on the object; the other slot takes the object), an arming does not.
 *
 * Return: true if published; else the caller still holds the claim
 * (ksym_dyn_unclaim()) or the slot is off.
 */
static bool ksym_dyn_publish(struct ksym_dyn *d, unsigned long gen,
			     unsigned long want, int state)
{
	unsigned long new = ksym_ctl(gen + 1, state);
	long old = ksym_ctl(gen, KSYM_DYN_CLAIMED);

	/*
	 * The object's first hit finds what it held when it was taken; an
	 * object never read (vmalloc space) has no last value.
	 */
	if (!KSYM_TRAPS_BEFORE && state == KSYM_DYN_ARMING)
		ksym_last_seed(&d->watch.last_one,
			       ksym_addr_stays_ram(want, d->watch.spec.len,
						   NULL) ? want : 0,
			       d->watch.spec.len);
	WRITE_ONCE(d->want, want);
	d->fired_ns = local_clock();
	if (!atomic_long_try_cmpxchg_release(&d->ctl, &old, new) &&
	    (state != KSYM_DYN_ENDING ||
	     old != ksym_ctl(gen, KSYM_DYN_YIELDED) ||
	     !atomic_long_try_cmpxchg_release(&d->ctl, &old, new)))
		return false;
	ksym_dyn_apply_here(d);
	ksym_dyn_kick();
	return true;
}

/*
 * Give up a ksym_watch claim taken at generation @gen, told to yield or
 * not: back to PARKED with the breakpoints where they are (on the parking
 * word), at a new generation so that a claimer who saw this claim cannot
 * mistake the slot's next claim for it.
 */
static void ksym_dyn_unclaim(struct ksym_dyn *d, unsigned long gen)
{
	long old = ksym_ctl(gen, KSYM_DYN_CLAIMED);
	unsigned long new = ksym_ctl(gen + 1, KSYM_DYN_PARKED);

	WRITE_ONCE(d->want, d->parking);
	WRITE_ONCE(d->claiming, 0);
	if (!atomic_long_try_cmpxchg_release(&d->ctl, &old, new) &&
	    (old != ksym_ctl(gen, KSYM_DYN_YIELDED) ||
	     !atomic_long_try_cmpxchg_release(&d->ctl, &old, new)))
		return;
	/*
	 * A CPU may have read the claim's address before its publication
	 * failed (one come online, or whose irq_work looked then) and moved
	 * its breakpoint there: the new generation brings it back.
	 */
	ksym_dyn_apply_here(d);
	ksym_dyn_kick();
}

/*
 * End the slot's watch (of @obj, if not 0), from any context: back to the
 * parking word. Only one ender wins a generation.
 */
static bool ksym_dyn_end(struct ksym_dyn *d, unsigned long obj)
{
	unsigned long c;
	int s;

	do {
		c = ksym_dyn_ctl(d);
		s = ksym_ctl_state(c);
		if (s != KSYM_DYN_ARMING && s != KSYM_DYN_LIVE)
			return false;
		if (obj && READ_ONCE(d->obj) != obj)
			return false;
	} while (!ksym_dyn_take(d, c));
	return ksym_dyn_publish(d, ksym_ctl_gen(c), d->parking,
				KSYM_DYN_ENDING);
}

/* The CPUs with a breakpoint of @d have all taken generation @gen. */
static bool ksym_dyn_settled(struct ksym_dyn *d, unsigned long gen)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (READ_ONCE(*per_cpu_ptr(d->watch.bps, cpu)) &&
		    /* Pairs with ksym_dyn_apply(): that CPU's @bad first. */
		    smp_load_acquire(per_cpu_ptr(d->cpu_gen, cpu)) != gen)
			return false;
	return true;
}

/*
 * Move to the next state once every CPU has moved its breakpoint to the
 * generation of control word @c; a cmpxchg on the whole word, so nothing
 * moves if another generation was published meanwhile.
 */
static void ksym_dyn_settle(struct ksym_dyn *d, unsigned long c)
{
	struct ksym_trigger *trig = d->trig;
	unsigned long gen = ksym_ctl_gen(c);
	int s = ksym_ctl_state(c);
	long old = c;
	u64 window, max;

	if (s != KSYM_DYN_ARMING && s != KSYM_DYN_ENDING)
		return;
	if (!ksym_dyn_settled(d, gen))
		return;
	if (s == KSYM_DYN_ARMING && READ_ONCE(d->bad)) {
		/* A CPU refused the address: end it, count it refused. */
		if (!ksym_dyn_take(d, c))
			return;
		atomic_long_dec(&trig->armed);
		atomic_long_inc(&trig->refused);
		ksym_dyn_publish(d, gen, d->parking, KSYM_DYN_ENDING);
		return;
	}
	if (!atomic_long_try_cmpxchg(&d->ctl, &old,
				     ksym_ctl(gen, s == KSYM_DYN_ARMING ?
					      KSYM_DYN_LIVE : KSYM_DYN_PARKED)))
		return;
	if (s == KSYM_DYN_ENDING) {
		WRITE_ONCE(d->bad, false);
		return;
	}
	/*
	 * Only the winner of the cmpxchg writes window_last. The trigger
	 * fired on another CPU, whose local_clock() may be a little ahead:
	 * a negative window is 0, never a huge one. Slots of a trigger
	 * settle at once: the maximum by cmpxchg.
	 */
	window = local_clock() - d->fired_ns;
	if ((s64)window < 0)
		window = 0;
	WRITE_ONCE(trig->window_last, window);
	max = READ_ONCE(trig->window_max);
	while (window > max && !try_cmpxchg64(&trig->window_max, &max, window))
		;
}

/*
 * This CPU's counters start again for a new object (a new arming: a new
 * object may have the address of the last); what they held is kept in
 * @retired for the trigger's total. Interrupts are off and only this CPU
 * writes them.
 */
static void ksym_dyn_new_object(struct ksym_dyn *d, unsigned long arm_gen)
{
	struct ksym_cpu_stats *stats = this_cpu_ptr(d->watch.stats);
	unsigned int *seq = this_cpu_ptr(d->retire_seq);

	WRITE_ONCE(*seq, *seq + 1);
	/* Odd before the move: pairs with ksym_dyn_cpu_hits(). */
	smp_wmb();
	WRITE_ONCE(*this_cpu_ptr(d->retired),
		   *this_cpu_ptr(d->retired) +
		   ksym_watch_hits(&d->watch, smp_processor_id()));
	/* Readers retry over it (ksym_dyn_cpu_hits()). */
	data_race(memset(stats, 0, sizeof(*stats)));
	/* The move before even again. */
	smp_wmb();
	WRITE_ONCE(*seq, *seq + 1);
	*this_cpu_ptr(d->cpu_arm) = arm_gen;
}

/* A slot's hits on @cpu, of every object: retired ones and the current. */
static unsigned long ksym_dyn_cpu_hits(struct ksym_dyn *d, int cpu)
{
	unsigned int *seqp = per_cpu_ptr(d->retire_seq, cpu), seq;
	unsigned long hits;

	do {
		seq = READ_ONCE(*seqp);
		/* Pairs with the first smp_wmb() of ksym_dyn_new_object(). */
		smp_rmb();
		hits = READ_ONCE(*per_cpu_ptr(d->retired, cpu)) +
		       ksym_watch_hits(&d->watch, cpu);
		/* And with its second: no retire began meanwhile. */
		smp_rmb();
	} while ((seq & 1) || seq != READ_ONCE(*seqp));
	return hits;
}

/*
 * This CPU's breakpoint of @d refused the address published (the
 * architecture's check). An object's: the slot ends, counted refused. The
 * parking word's (which parses, so this is not seen): the breakpoint must
 * not stay on an object that is about to be freed, so it is switched off
 * on this CPU, which then watches nothing for the slot until the trigger
 * goes.
 */
static void ksym_dyn_move_failed(struct ksym_dyn *d, struct perf_event *bp,
				 unsigned long want)
{
	if (want != d->parking) {
		WRITE_ONCE(d->bad, true);
		return;
	}
	perf_event_disable_local(bp);
	pr_warn_ratelimited("%s: %s: CPU %d cannot park its breakpoint: off\n",
			    d->trig->event, d->trig->canon,
			    smp_processor_id());
}

/*
 * Move this CPU's breakpoint of @d to @attr's address. KUnit can make the
 * move to the parking word fail, which the architecture's check never
 * does (the word parses): ksym_dyn_test_park_fail().
 */
static int ksym_dyn_move(struct ksym_dyn *d, struct perf_event *bp,
			 struct perf_event_attr *attr)
{
#if IS_ENABLED(CONFIG_KSYM_TRACER_KUNIT_TEST)
	if (d->test_park_fails && attr->bp_addr == d->parking)
		return -EINVAL;
#endif
	return modify_wide_hw_breakpoint_local(bp, attr);
}

/*
 * Bring this CPU's breakpoint of @d to the generation published last, then
 * see whether it was the last CPU to. Interrupts off, not nested.
 */
static void __ksym_dyn_apply(struct ksym_dyn *d)
{
	unsigned long c = ksym_dyn_ctl(d), gen = ksym_ctl_gen(c);
	unsigned long *cpu_gen = this_cpu_ptr(d->cpu_gen);
	struct perf_event *bp = READ_ONCE(*this_cpu_ptr(d->watch.bps));
	struct perf_event_attr attr;
	unsigned long arm_gen;

	/*
	 * Off; or claimed: its holder publishes and kicks, or gives the
	 * claim back with the breakpoints where they are (a CPU that came
	 * online must not take the address of a claim given up).
	 */
	if (ksym_ctl_state(c) == KSYM_DYN_OFF ||
	    ksym_ctl_state(c) == KSYM_DYN_CLAIMED ||
	    ksym_ctl_state(c) == KSYM_DYN_YIELDED)
		return;
	if (*cpu_gen != gen) {
		arm_gen = READ_ONCE(d->arm_gen);
		if (*this_cpu_ptr(d->cpu_arm) != arm_gen)
			ksym_dyn_new_object(d, arm_gen);
		if (bp) {
			attr = bp->attr;
			attr.bp_addr = READ_ONCE(d->want);
			if (ksym_dyn_move(d, bp, &attr))
				ksym_dyn_move_failed(d, bp, attr.bp_addr);
		}
		/*
		 * Only a CPU with its breakpoint takes a generation: a CPU
		 * coming online is kicked before its breakpoint is published,
		 * and must still move it once it is (ksym_dyn_cpu_online()).
		 */
		if (bp)
			/* Pairs with ksym_dyn_settled(): @bad before it. */
			smp_store_release(cpu_gen, gen);
	}
	/*
	 * Our generation before the others': of two CPUs that move last at
	 * once, one sees the other's.
	 */
	smp_mb();
	ksym_dyn_settle(d, c);
}

/*
 * The same, interrupts off, from every caller (the irq_work, the firing
 * CPU, a CPU come online): one move at a time on a CPU. A move that a
 * trigger inside another would start returns at once; that trigger's
 * irq_work makes it.
 */
static void ksym_dyn_apply(struct ksym_dyn *d)
{
	if (this_cpu_read(ksym_dyn_applying))
		return;
	this_cpu_write(ksym_dyn_applying, true);
	__ksym_dyn_apply(d);
	this_cpu_write(ksym_dyn_applying, false);
}

static void ksym_dyn_sync_fn(struct irq_work *work)
{
	struct ksym_dyn *d;

	/* Interrupts are off: an RCU read-side section. */
	list_for_each_entry_rcu(d, &ksym_dyns, node)
		ksym_dyn_apply(d);
}

/* ------------------------------------------------------------------------
 * The triggers: from the tracepoint, any context.
 */

/*
 * What a trigger may watch, checked without a lock and without sleeping:
 * aligned, not the freed init sections, and either memory that stays RAM
 * while watched, as ksym_addr_stays_ram() says (the direct map, the kernel
 * image, module space), or vmalloc space (vmalloc'd objects, vmap'd
 * stacks), which is watched and never read: a vfree() may leave a
 * device's registers at the address. Not the registers saved at a
 * stack's top (ksym_addr_stack_regs()), no other device memory, no user
 * address.
 */
static bool ksym_dyn_addr_ok(unsigned long addr, unsigned int len)
{
	return IS_ALIGNED(addr, len) &&
	       !init_section_intersects((void *)addr, len) &&
	       (ksym_addr_stays_ram(addr, len, NULL) ||
		(ksym_addr_vmalloc(addr, len) &&
		 !ksym_addr_stack_regs(addr, len)));
}

static unsigned long ksym_trigger_field(struct ksym_trigger *trig, void *rec)
{
	return *(unsigned long *)(rec + trig->field_off);
}

/*
 * Whether @d's claim of @obj stands against the trigger's other slots, so
 * that one object is never watched by two (its hits counted twice). Each
 * claimer sets @claiming and then (smp_mb) looks at the others, so of two
 * claims at once at least one sees the other. A slot arming or watching
 * @obj wins; of two claims, the lower slot: a higher one that sees a lower
 * one gives way, a lower one that sees a higher one tells it to
 * (CLAIMED -> YIELDED, which fails its publish).
 */
static bool ksym_dyn_claim_won(struct ksym_trigger *trig, struct ksym_dyn *d,
			       unsigned long obj)
{
	bool lower = true;
	struct ksym_dyn *o;
	unsigned long c;
	long old;
	int i, s;

	/* Our @claiming before the others': pairs with theirs. */
	smp_mb();
	for (i = 0; i < trig->nr_slots; i++) {
		o = trig->slots[i];
		if (o == d) {
			lower = false;
			continue;
		}
		do {
			c = ksym_dyn_ctl(o);
			s = ksym_ctl_state(c);
			if ((s == KSYM_DYN_ARMING || s == KSYM_DYN_LIVE) &&
			    READ_ONCE(o->obj) == obj)
				return false;
			if (s != KSYM_DYN_CLAIMED ||
			    READ_ONCE(o->claim_gen) != ksym_ctl_gen(c))
				break;
			/* Pairs with ksym_dyn_claim(): its generation last. */
			smp_rmb();
			if (READ_ONCE(o->claiming) != obj)
				break;
			if (lower)
				return false;
			old = c;
		} while (!atomic_long_try_cmpxchg(&o->ctl, &old,
						  ksym_ctl(ksym_ctl_gen(c),
							   KSYM_DYN_YIELDED)));
	}
	return true;
}

/*
 * The first free slot of @trig, claimed for @obj: CLAIMED, with @claiming
 * set. Return: the slot and its generation in @gen, or NULL if none.
 */
static struct ksym_dyn *ksym_dyn_claim(struct ksym_trigger *trig,
				       unsigned long obj, unsigned long *gen)
{
	struct ksym_dyn *d;
	unsigned long c;
	int i;

	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		c = ksym_dyn_ctl(d);
		if (ksym_ctl_state(c) == KSYM_DYN_PARKED && ksym_dyn_take(d, c)) {
			WRITE_ONCE(d->claiming, obj);
			/* Pairs with ksym_dyn_claim_won(): the object first. */
			smp_wmb();
			WRITE_ONCE(d->claim_gen, ksym_ctl_gen(c));
			*gen = ksym_ctl_gen(c);
			return d;
		}
	}
	return NULL;
}

/*
 * Arm slot @d, claimed at generation @gen, for @obj at @addr, unless
 * another slot has the object. Return: true if it was armed.
 */
static bool ksym_dyn_arm(struct ksym_trigger *trig, struct ksym_dyn *d,
			 unsigned long gen, unsigned long obj,
			 unsigned long addr)
{
	unsigned long old_obj = d->obj, old_arm_gen = d->arm_gen;

	if (!ksym_dyn_claim_won(trig, d, obj))
		goto give_up;
	WRITE_ONCE(d->obj, obj);
	WRITE_ONCE(d->arm_gen, gen + 1);
	if (!ksym_dyn_publish(d, gen, addr, KSYM_DYN_ARMING)) {
		/* Told to yield, or the trigger is going: as it was. */
		WRITE_ONCE(d->obj, old_obj);
		WRITE_ONCE(d->arm_gen, old_arm_gen);
		goto give_up;
	}
	/* After the publish: a claimer looking now sees ARMING and @obj. */
	WRITE_ONCE(d->claiming, 0);
	atomic_long_inc(&trig->armed);
	return true;

give_up:
	ksym_dyn_unclaim(d, gen);
	return false;
}

static void ksym_watch_trigger(struct event_trigger_data *data,
			       struct trace_buffer *buffer, void *rec,
			       struct ring_buffer_event *rbe)
{
	struct ksym_trigger *trig = data->private_data;
	unsigned long obj, addr, gen;
	struct ksym_dyn *d;
	int i, s;

	if (!rec)
		return;
	obj = ksym_trigger_field(trig, rec);
	addr = obj + trig->off;
	if (!obj || (trig->off < 0 ? addr > obj : addr < obj) ||
	    !ksym_dyn_addr_ok(addr, trig->len)) {
		atomic_long_inc(&trig->refused);
		return;
	}
	/* An object already watched by this trigger is not watched twice. */
	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		s = ksym_ctl_state(ksym_dyn_ctl(d));
		if ((s == KSYM_DYN_ARMING || s == KSYM_DYN_LIVE) &&
		    READ_ONCE(d->obj) == obj)
			return;
	}
	d = ksym_dyn_claim(trig, obj, &gen);
	if (!d) {
		atomic_long_inc(&trig->missed);
		return;
	}
	ksym_dyn_arm(trig, d, gen, obj, addr);
}

static void ksym_unwatch_trigger(struct event_trigger_data *data,
				 struct trace_buffer *buffer, void *rec,
				 struct ring_buffer_event *rbe)
{
	struct ksym_trigger *trig = data->private_data;
	unsigned long obj;
	struct ksym_dyn *d;

	if (!rec)
		return;
	obj = ksym_trigger_field(trig, rec) + trig->off;
	if (!obj)
		return;
	/*
	 * Tracepoints run with preemption off: an RCU read-side section.
	 * Another instance's watches are another user's.
	 */
	list_for_each_entry_rcu(d, &ksym_dyns, node)
		if (d->trig->tr == trig->tr && ksym_dyn_end(d, obj))
			atomic_long_inc(&d->trig->unwatched);
}

/**
 * ksym_dyn_too_hot - from the hit path: end a trigger's watch that is hot
 * @dyn: the slot
 *
 * NMI-safe. The slot goes back to its parking word and serves the next
 * object; the trigger's too_hot count says why.
 */
void ksym_dyn_too_hot(struct ksym_dyn *dyn)
{
	if (ksym_dyn_end(dyn, 0))
		atomic_long_inc(&dyn->trig->too_hot);
}

#ifdef CONFIG_ARM64
/* Watchpoint @n's value and control registers; @n < 4. */
static void ksym_dyn_read_wp(int n, u64 *wvr, u64 *wcr)
{
	switch (n) {
	case 0:
		AARCH64_DBG_READ(0, wvr, *wvr);
		AARCH64_DBG_READ(0, wcr, *wcr);
		break;
	case 1:
		AARCH64_DBG_READ(1, wvr, *wvr);
		AARCH64_DBG_READ(1, wcr, *wcr);
		break;
	case 2:
		AARCH64_DBG_READ(2, wvr, *wvr);
		AARCH64_DBG_READ(2, wcr, *wcr);
		break;
	default:
		AARCH64_DBG_READ(3, wvr, *wvr);
		AARCH64_DBG_READ(3, wcr, *wcr);
		break;
	}
}
#endif

/*
 * A stray hit's report: taken in the debug exception, where nothing is
 * formatted, and printed from an irq_work on the same CPU. A report still
 * pending or printing there drops the next (each slot reports once).
 */
struct ksym_stray_report {
	struct irq_work		work;
	char			event[2 * MAX_EVENT_NAME_LEN + 2];
	char			canon[128];
	unsigned long		ip;
	unsigned long		parking;
	int			state;
	int			cpu;
	unsigned long		ips[16];
	unsigned int		nr_ips;
	u64			hw[2 * 4 + 1];
	unsigned int		nr_hw;
};

static DEFINE_PER_CPU(struct ksym_stray_report, ksym_stray_reports);

/* What the CPU's data watchpoints hold, taken for a stray hit's report. */
static void ksym_stray_take_hw(struct ksym_stray_report *r,
			       struct perf_event *bp)
{
#if defined(CONFIG_X86_64)
	unsigned long dr;

	get_debugreg(dr, 0);
	r->hw[0] = dr;
	get_debugreg(dr, 1);
	r->hw[1] = dr;
	get_debugreg(dr, 2);
	r->hw[2] = dr;
	get_debugreg(dr, 3);
	r->hw[3] = dr;
	/* #DB clears DR7 while it runs: the value the kernel set. */
	r->hw[4] = this_cpu_read(cpu_dr7);
	r->nr_hw = 5;
#elif defined(CONFIG_ARM64)
	/* Only those implemented may be read; the first four are taken. */
	int n, nr = min(hw_breakpoint_slots(TYPE_DATA), 4);

	for (n = 0; n < nr; n++)
		ksym_dyn_read_wp(n, &r->hw[2 * n], &r->hw[2 * n + 1]);
	/* Last, the address the CPU reported (FAR_EL1). */
	r->hw[2 * nr] = counter_arch_bp(bp)->trigger;
	r->nr_hw = 2 * nr + 1;
#else
	r->nr_hw = 0;
#endif
}

static void ksym_stray_print(struct irq_work *work)
{
	struct ksym_stray_report *r = container_of(work, struct ksym_stray_report,
						   work);
	unsigned int n;

	pr_warn("%s: %s: stray hit at %pS on CPU %d: the breakpoint is parked on %p (state %d)\n",
		r->event, r->canon, (void *)r->ip, r->cpu, (void *)r->parking,
		r->state);
	if (IS_ENABLED(CONFIG_X86_64) && r->nr_hw == 5)
		pr_warn("  DR0-3 %llx %llx %llx %llx, DR7 %llx\n", r->hw[0],
			r->hw[1], r->hw[2], r->hw[3], r->hw[4]);
	if (IS_ENABLED(CONFIG_ARM64) && r->nr_hw) {
		for (n = 0; n + 1 < r->nr_hw; n += 2)
			pr_warn("  DBGWVR%u %llx DBGWCR%u %llx\n", n / 2,
				r->hw[n], n / 2, r->hw[n + 1]);
		pr_warn("  reported address %llx\n", r->hw[r->nr_hw - 1]);
	}
	stack_trace_print(r->ips, r->nr_ips, 2);
}

/**
 * ksym_dyn_stray - from the hit path: is this a hit of a parked breakpoint?
 * @dyn:  the slot
 * @bp:   its breakpoint that hit, on this CPU
 * @regs: the registers of the access
 *
 * From the debug exception. A parked breakpoint watches a word of
 * ksym_dyn_parking, which nothing stores to: its hit is no object's. It
 * is counted apart (the Stray column of trace_stat/ksym_triggers); the
 * first of a write-only slot is reported on the console with what the
 * hardware holds and the accessing context's callchain, as no write
 * should have hit (a read may: kmemleak scans .bss). The report is taken
 * into this CPU's buffer here and printed from an irq_work: nothing is
 * formatted in the exception, which may have come with the console's
 * locks held (arm64's is not in_nmi()).
 *
 * Return: true if the hit is stray and must not be counted or recorded.
 */
bool ksym_dyn_stray(struct ksym_dyn *dyn, struct perf_event *bp,
		    struct pt_regs *regs)
{
	struct ksym_stray_report *r;

	if (likely(bp->attr.bp_addr != dyn->parking))
		return false;
	atomic_long_inc(&dyn->trig->stray);
	if (bp->attr.bp_type != HW_BREAKPOINT_W ||
	    READ_ONCE(dyn->stray_said) || xchg(&dyn->stray_said, true))
		return true;
	r = this_cpu_ptr(&ksym_stray_reports);
	if (irq_work_is_busy(&r->work))
		return true;
	init_irq_work(&r->work, ksym_stray_print);
	strscpy(r->event, dyn->trig->event, sizeof(r->event));
	strscpy(r->canon, dyn->trig->canon, sizeof(r->canon));
	r->ip = instruction_pointer(regs);
	r->parking = dyn->parking;
	r->state = ksym_ctl_state(ksym_dyn_ctl(dyn));
	r->cpu = smp_processor_id();
	r->nr_ips = stack_trace_save_regs(regs, r->ips, ARRAY_SIZE(r->ips), 0);
	ksym_stray_take_hw(r, bp);
	irq_work_queue(&r->work);
	return true;
}

#if IS_ENABLED(CONFIG_KSYM_TRACER_KUNIT_TEST)
static struct ksym_dyn *ksym_dyn_alloc(struct ksym_trigger *trig,
				       const char *name);
static void ksym_dyn_free(struct ksym_dyn *d);
static int ksym_dyn_bp_create(struct ksym_dyn *d, int cpu, unsigned long gen);
static int ksym_dyn_online_slot(struct ksym_dyn *d, int cpu);

/* The irq_work the test's publishes kicked, on any CPU, is done. */
static void ksym_dyn_test_sync_kicks(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&ksym_dyn_kick_work, cpu));
}

/**
 * ksym_dyn_test_stray - for KUnit: hits of a slot's breakpoint, parked or not
 * @type:   the slot's access, HW_BREAKPOINT_W or HW_BREAKPOINT_RW
 * @parked: the breakpoint on the slot's parking word (else on its object)
 * @hits:   how many hits
 * @stray:  the trigger's stray count after them
 * @said:   whether the slot reported one on the console
 *
 * A slot, trigger and breakpoint of its own, never registered; the hits
 * come with this function's registers.
 *
 * Return: how many of the hits ksym_dyn_stray() took as stray, or -ENOMEM.
 */
int ksym_dyn_test_stray(unsigned int type, bool parked, int hits,
			long *stray, bool *said)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	struct ksym_dyn *d = kzalloc(sizeof(*d), GFP_KERNEL);
	struct perf_event *bp = kzalloc(sizeof(*bp), GFP_KERNEL);
	struct pt_regs regs;
	int i, ret = -ENOMEM;

	if (!trig || !d || !bp)
		goto out;
	strscpy(trig->event, "ksym_test:stray", sizeof(trig->event));
	trig->canon = "obj.count/8:-w-";
	d->trig = trig;
	d->parking = (unsigned long)&ksym_dyn_parking[0];
	bp->attr.bp_type = type;
	bp->attr.bp_addr = parked ? d->parking : (unsigned long)&d->obj;
	perf_fetch_caller_regs(&regs);
	ret = 0;
	preempt_disable();
	for (i = 0; i < hits; i++)
		ret += ksym_dyn_stray(d, bp, &regs);
	preempt_enable();
	*stray = atomic_long_read(&trig->stray);
	*said = d->stray_said;
out:
	kfree(bp);
	kfree(d);
	kfree(trig);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_stray);

/**
 * ksym_dyn_test_claims - for KUnit: two claims of one object, interleaved
 * @steps: what the two claimers do, in order: 'a' (A claims a slot), 'A'
 *         (A arms it), 'b' and 'B' the same for B
 * @armed: the trigger's armed count after them
 *
 * A trigger of two slots of its own, never registered: no breakpoints
 * (the firing CPU's move finds none, so an arming settles at once, and
 * the kick finds no slot in ksym_dyns). Each claimer does what
 * ksym_watch_trigger() does after its "already watched" look, split
 * where another CPU or an NMI can come in between.
 *
 * Return: how many slots arm or watch the object, or -ENOMEM, -EINVAL.
 */
int ksym_dyn_test_claims(const char *steps, long *armed)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	struct ksym_dyn *slot[2] = { }, *who[2] = { };
	unsigned long obj = (unsigned long)&ksym_dyn_parked, gen[2] = { };
	int i, n, ret = -ENOMEM;

	if (!trig)
		return -ENOMEM;
	trig->len = sizeof(long);
	trig->access = HW_BREAKPOINT_W;
	for (i = 0; i < 2; i++) {
		slot[i] = ksym_dyn_alloc(trig, "ksym_test_claims");
		if (!slot[i])
			goto out;
		atomic_long_set(&slot[i]->ctl, ksym_ctl(0, KSYM_DYN_PARKED));
		trig->slots[i] = slot[i];
	}
	trig->nr_slots = 2;
	ret = -EINVAL;
	preempt_disable();
	for (; *steps; steps++) {
		n = tolower(*steps) - 'a';
		if (n < 0 || n > 1)
			break;
		if (islower(*steps))
			who[n] = ksym_dyn_claim(trig, obj, &gen[n]);
		else if (who[n])
			ksym_dyn_arm(trig, who[n], gen[n], obj, obj);
	}
	preempt_enable();
	if (*steps)
		goto out;
	*armed = atomic_long_read(&trig->armed);
	ret = 0;
	for (i = 0; i < 2; i++) {
		unsigned long c = atomic_long_read(&slot[i]->ctl);

		if ((ksym_ctl_state(c) == KSYM_DYN_ARMING ||
		     ksym_ctl_state(c) == KSYM_DYN_LIVE) && slot[i]->obj == obj)
			ret++;
		/* Given up: parked, nothing claimed, nothing to move to. */
		else if (ksym_ctl_state(c) != KSYM_DYN_PARKED ||
			 slot[i]->claiming || slot[i]->want != slot[i]->parking)
			ret = -EINVAL;
		if (ret < 0)
			break;
	}
out:
	ksym_dyn_test_sync_kicks();
	ksym_dyn_free(slot[0]);
	ksym_dyn_free(slot[1]);
	kfree(trig);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_claims);

/**
 * ksym_dyn_test_retire - for KUnit: a slot's Hits total across objects
 * @rounds: objects watched one after the other
 * @hits:   hits counted on this CPU for each
 * @total:  the slot's total after them, as trace_stat reads it
 *
 * A slot of its own, not in ksym_dyns and without breakpoints, taken
 * through every state by the functions the triggers and the irq_work
 * use: each object is claimed (this CPU's irq_work looks at the claim),
 * armed (it moves twice to the generation), counts @hits, is ended
 * (twice again) and parked; the retire moves the counts of the object
 * before into the slot's retired total.
 *
 * Return: 0, or -ENOMEM, or -EINVAL if a state was not as it should be.
 */
int ksym_dyn_test_retire(int rounds, int hits, unsigned long *total)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	unsigned long obj = (unsigned long)&ksym_dyn_parked, gen, sum = 0;
	struct ksym_dyn *d = NULL;
	int r, cpu, ret = -ENOMEM;

	if (!trig)
		return -ENOMEM;
	trig->len = sizeof(long);
	trig->access = HW_BREAKPOINT_W;
	d = ksym_dyn_alloc(trig, "ksym_test_retire");
	if (!d)
		goto out;
	trig->slots[0] = d;
	trig->nr_slots = 1;
	atomic_long_set(&d->ctl, ksym_ctl(0, KSYM_DYN_PARKED));
	ret = -EINVAL;
	for (r = 0; r < rounds; r++) {
		preempt_disable();
		if (ksym_dyn_claim(trig, obj, &gen) != d)
			goto out_preempt;
		local_irq_disable();
		ksym_dyn_apply(d);	/* a stale look: still claimed */
		local_irq_enable();
		if (!ksym_dyn_arm(trig, d, gen, obj, obj))
			goto out_preempt;
		local_irq_disable();
		ksym_dyn_apply(d);
		ksym_dyn_apply(d);
		local_irq_enable();
		if (ksym_ctl_state(ksym_dyn_ctl(d)) != KSYM_DYN_LIVE)
			goto out_preempt;
		this_cpu_add(d->watch.stats->other, hits);
		if (!ksym_dyn_end(d, obj))
			goto out_preempt;
		local_irq_disable();
		ksym_dyn_apply(d);
		ksym_dyn_apply(d);
		local_irq_enable();
		preempt_enable();
		if (ksym_ctl_state(ksym_dyn_ctl(d)) != KSYM_DYN_PARKED)
			goto out;
	}
	for_each_possible_cpu(cpu)
		sum += ksym_dyn_cpu_hits(d, cpu);
	*total = sum;
	ret = 0;
	goto out;
out_preempt:
	preempt_enable();
out:
	ksym_dyn_test_sync_kicks();
	ksym_dyn_free(d);
	kfree(trig);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_retire);

/* Objects of the tests with breakpoints: nothing else touches them. */
static unsigned long ksym_dyn_test_obj[2];

/*
 * A one-slot trigger of its own for the tests with a breakpoint on this
 * CPU, *@cpu, with migration and CPU hotplug off until
 * ksym_dyn_test_slot_free(); or NULL.
 * Not in ksym_dyns: nothing but the test moves its breakpoint.
 */
static struct ksym_dyn *ksym_dyn_test_slot(int *cpu)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	struct ksym_dyn *d;

	if (!trig)
		return NULL;
	trig->len = sizeof(long);
	trig->access = HW_BREAKPOINT_W;
	strscpy(trig->event, "ksym_test:slot", sizeof(trig->event));
	trig->canon = "obj/8:-w-";
	d = ksym_dyn_alloc(trig, "ksym_test_slot");
	if (!d) {
		kfree(trig);
		return NULL;
	}
	trig->slots[0] = d;
	trig->nr_slots = 1;
	atomic_long_set(&d->ctl, ksym_ctl(0, KSYM_DYN_PARKED));
	/* Not in ksym_dyns: an offline would not release its breakpoint. */
	cpus_read_lock();
	migrate_disable();
	*cpu = smp_processor_id();
	return d;
}

static void ksym_dyn_test_slot_free(struct ksym_dyn *d, int cpu)
{
	struct ksym_trigger *trig = d->trig;

	ksym_bp_release(&d->watch, cpu);
	ksym_dyn_test_sync_kicks();
	migrate_enable();
	cpus_read_unlock();
	ksym_dyn_free(d);
	kfree(trig);
}

/**
 * ksym_dyn_test_park_fail - for KUnit: a slot whose move to parking fails
 * @fail:  make this CPU's move back to the parking word fail
 * @off:   set if this CPU's breakpoint is off after the slot ended
 * @addr:  where it points then
 *
 * A slot with a real breakpoint on this CPU watches an object, ends, and
 * this CPU moves the breakpoint back to the parking word, which fails if
 * @fail: the breakpoint must then be switched off, never left on the
 * object (which its owner is about to free). The moves are the firing
 * CPU's own, made by the arming and the end themselves; the applies after
 * them find nothing left to do, as the irq_work would.
 *
 * Return: 0, or a negative errno if the slot could not be set up or was
 * not in the expected state.
 */
int ksym_dyn_test_park_fail(bool fail, bool *off, unsigned long *addr)
{
	unsigned long obj = (unsigned long)&ksym_dyn_test_obj[0], gen;
	struct ksym_dyn *d;
	struct perf_event *bp;
	int cpu, ret;

	d = ksym_dyn_test_slot(&cpu);
	if (!d)
		return -ENOMEM;
	ret = ksym_dyn_bp_create(d, cpu, 0);
	if (ret)
		goto out;
	bp = *per_cpu_ptr(d->watch.bps, cpu);
	ret = -EINVAL;
	preempt_disable();
	if (ksym_dyn_claim(d->trig, obj, &gen) != d ||
	    !ksym_dyn_arm(d->trig, d, gen, obj, obj))
		goto out_preempt;
	local_irq_disable();
	ksym_dyn_apply(d);
	local_irq_enable();
	if (bp->attr.bp_addr != obj)
		goto out_preempt;
	d->test_park_fails = fail;
	if (!ksym_dyn_end(d, obj))
		goto out_preempt;
	local_irq_disable();
	ksym_dyn_apply(d);
	local_irq_enable();
	*off = READ_ONCE(bp->state) <= PERF_EVENT_STATE_OFF;
	*addr = bp->attr.bp_addr;
	ret = 0;
out_preempt:
	preempt_enable();
out:
	ksym_dyn_test_slot_free(d, cpu);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_park_fail);

/**
 * ksym_dyn_test_online - for KUnit: a slot's breakpoint on a CPU come online
 * @claimed: the slot is claimed (its object not yet published), else live
 * @where:   where this CPU's new breakpoint points afterwards: 0 the
 *           parking word, 1 the live object, 2 the stale one, 3 elsewhere
 *
 * The slot was moving while this CPU was down: its last published address
 * (@want) is a stale object when @claimed, the live one otherwise. The CPU
 * must take the live object, and never a claim's stale address.
 *
 * Return: 0, or a negative errno.
 */
int ksym_dyn_test_online(bool claimed, int *where)
{
	unsigned long live = (unsigned long)&ksym_dyn_test_obj[0];
	unsigned long stale = (unsigned long)&ksym_dyn_test_obj[1];
	unsigned long addr;
	struct ksym_dyn *d;
	int cpu, ret;

	d = ksym_dyn_test_slot(&cpu);
	if (!d)
		return -ENOMEM;
	d->obj = claimed ? stale : live;
	d->want = d->obj;
	atomic_long_set(&d->ctl, ksym_ctl(4, claimed ? KSYM_DYN_CLAIMED :
					  KSYM_DYN_LIVE));
	ret = ksym_dyn_online_slot(d, cpu);
	if (!ret) {
		addr = (*per_cpu_ptr(d->watch.bps, cpu))->attr.bp_addr;
		*where = addr == d->parking ? 0 : addr == live ? 1 :
			 addr == stale ? 2 : 3;
	}
	ksym_dyn_test_slot_free(d, cpu);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_online);
#endif

/**
 * ksym_dyn_object - the object a slot watches or watched last
 * @dyn:  the slot
 * @live: set if it is watched now
 *
 * Return: its address, 0 if the slot never had one.
 */
unsigned long ksym_dyn_object(const struct ksym_dyn *dyn, bool *live)
{
	*live = ksym_ctl_state(atomic_long_read(&dyn->ctl)) == KSYM_DYN_LIVE;
	return READ_ONCE(dyn->obj);
}

/**
 * ksym_dyn_next_watch - the next slot that has watched an object
 * @prev: a slot's watch, or NULL for the first
 *
 * For the profiles, under ksym_mutex.
 *
 * Return: the watch, or NULL after the last.
 */
struct ksym_watch *ksym_dyn_next_watch(struct ksym_watch *prev)
{
	struct ksym_dyn *d;

	lockdep_assert_held(&ksym_mutex);
	d = prev ? list_next_entry(prev->dyn, node) :
		   list_first_entry(&ksym_dyns, struct ksym_dyn, node);
	for (; !list_entry_is_head(d, &ksym_dyns, node);
	     d = list_next_entry(d, node))
		if (READ_ONCE(d->obj))
			return &d->watch;
	return NULL;
}

/* A count, as the tracing core's: the number of firings left, or -1. */
static bool ksym_trigger_count(struct event_trigger_data *data,
			       struct trace_buffer *buffer, void *rec,
			       struct ring_buffer_event *rbe)
{
	unsigned long n = READ_ONCE(data->count);

	/*
	 * Any CPU, NMI too: a cmpxchg, so that a :1 fires once however
	 * many CPUs reach it at once (the core's own count is a plain
	 * decrement).
	 */
	do {
		if (!n)
			return false;
		if (n == -1)
			return true;
	} while (!try_cmpxchg(&data->count, &n, n - 1));
	return true;
}

/* Why a slot of @obj is still moving, for the console. */
static void ksym_dyn_report_stuck(unsigned long obj)
{
	unsigned long c;
	struct ksym_dyn *d;
	int cpu;

	rcu_read_lock();
	list_for_each_entry_rcu(d, &ksym_dyns, node) {
		if (READ_ONCE(d->obj) != obj)
			continue;
		c = ksym_dyn_ctl(d);
		pr_warn("%s: %s: slot of %p in state %d, generation %lu\n",
			d->trig->event, d->trig->canon, (void *)obj,
			ksym_ctl_state(c), ksym_ctl_gen(c));
		for_each_online_cpu(cpu)
			pr_warn("  CPU %d: breakpoint %s, generation %lu\n",
				cpu, READ_ONCE(*per_cpu_ptr(d->watch.bps, cpu)) ?
				"yes" : "no",
				READ_ONCE(*per_cpu_ptr(d->cpu_gen, cpu)));
	}
	rcu_read_unlock();
}

/**
 * ksym_trigger_settle - wait until the watches of an object stop moving
 * @obj: the object's address (what the trigger's field held), or the
 *       address a slot watches (a local's, whose object is the stack
 *       pointer a probe fetched)
 *
 * For the hit generator, after it emitted the event that names @obj:
 * waits (up to ten seconds, for a loaded host) until each slot that took
 * @obj is live or parked again, so that what it does next is watched
 * exactly, or not. Process context, no lock held.
 *
 * Return: 1 if a watch of @obj is live, 0 if not, -ETIMEDOUT if a slot
 * was still moving after the wait (its state goes to the console).
 */
int ksym_trigger_settle(unsigned long obj)
{
	u64 deadline = ktime_get_ns() + 10 * NSEC_PER_SEC;
	bool moving, live;
	struct ksym_dyn *d;
	int s;

	for (;;) {
		moving = false;
		live = false;
		rcu_read_lock();
		list_for_each_entry_rcu(d, &ksym_dyns, node) {
			if (READ_ONCE(d->obj) != obj &&
			    READ_ONCE(d->want) != obj)
				continue;
			s = ksym_ctl_state(ksym_dyn_ctl(d));
			moving |= s == KSYM_DYN_CLAIMED ||
				  s == KSYM_DYN_YIELDED ||
				  s == KSYM_DYN_ARMING ||
				  s == KSYM_DYN_ENDING;
			live |= s == KSYM_DYN_LIVE;
		}
		rcu_read_unlock();
		if (!moving)
			return live;
		if (ktime_get_ns() > deadline)
			break;
		usleep_range(50, 100);
	}
	ksym_dyn_report_stuck(obj);
	return -ETIMEDOUT;
}
EXPORT_SYMBOL_GPL(ksym_trigger_settle);

/**
 * ksym_trigger_sync - wait until triggers just set have their slots
 *
 * Process context, no lock held: the slots are registered by a work item.
 */
void ksym_trigger_sync(void)
{
	flush_workqueue(ksym_trigger_wq);
}
EXPORT_SYMBOL_GPL(ksym_trigger_sync);

/* ------------------------------------------------------------------------
 * Slots: registered and released by ksym_trigger_wq.
 */

static void ksym_dyn_free(struct ksym_dyn *d)
{
	if (!d)
		return;
	free_percpu(d->watch.bps);
	free_percpu(d->watch.stats);
	free_percpu(d->cpu_gen);
	free_percpu(d->cpu_arm);
	free_percpu(d->retired);
	free_percpu(d->retire_seq);
	kfree(d);
}

static struct ksym_dyn *ksym_dyn_alloc(struct ksym_trigger *trig,
				       const char *name)
{
	struct ksym_dyn *d = kzalloc(sizeof(*d), GFP_KERNEL);
	struct ksym_spec *spec;
	unsigned int park;

	if (!d)
		return NULL;
	d->watch.bps = alloc_percpu(struct perf_event *);
	d->watch.stats = alloc_percpu(struct ksym_cpu_stats);
	d->cpu_gen = alloc_percpu(unsigned long);
	d->cpu_arm = alloc_percpu(unsigned long);
	d->retired = alloc_percpu(unsigned long);
	d->retire_seq = alloc_percpu(unsigned int);
	if (!d->watch.bps || !d->watch.stats || !d->cpu_gen || !d->cpu_arm ||
	    !d->retired || !d->retire_seq) {
		ksym_dyn_free(d);
		return NULL;
	}
	d->trig = trig;
	d->watch.dyn = d;
	park = (unsigned int)atomic_inc_return(&ksym_dyn_parked) %
	       ARRAY_SIZE(ksym_dyn_parking);
	d->parking = (unsigned long)&ksym_dyn_parking[park];
	d->want = d->parking;
	spec = &d->watch.spec;
	spec->addr = d->want;
	spec->len = trig->len;
	spec->access = trig->access;
	spec->all_cpus = true;
	spec->has_value = true;
	strscpy(spec->target, name, sizeof(spec->target));
	spec->name_len = strlen(spec->target) + 1;
	return d;
}

/*
 * @cpu's breakpoint of a slot, on its parking word whatever the slot
 * watches: registering sleeps, and the object published when it started
 * may be freed before it ends. A slot not yet in ksym_dyns has nothing
 * published, so its breakpoints are where they should be (@gen, the
 * generation they have taken); after, see ksym_dyn_cpu_online().
 */
static int ksym_dyn_bp_create(struct ksym_dyn *d, int cpu, unsigned long gen)
{
	int ret;

	d->watch.spec.addr = d->parking;
	WRITE_ONCE(*per_cpu_ptr(d->cpu_gen, cpu), gen);
	ret = ksym_bp_create(&d->watch, &d->watch.spec, cpu, false);
	return ret;
}

/*
 * @cpu (this CPU, come online) gets its breakpoint of @d: created on the
 * parking word and taken by no generation, so that from the moment it is
 * published a moving slot waits for this CPU, which then moves it to what
 * was published last, and never to an object of before its sleep in
 * perf (ksym_dyn_test_online()).
 */
static int ksym_dyn_online_slot(struct ksym_dyn *d, int cpu)
{
	int ret = ksym_dyn_bp_create(d, cpu, KSYM_DYN_GEN_NONE);

	if (ret)
		return ret;
	local_irq_disable();
	ksym_dyn_apply(d);
	local_irq_enable();
	return 0;
}

/**
 * ksym_dyn_cpu_online - give a CPU that came online its slot breakpoints
 * @cpu: the CPU
 *
 * Called with ksym_mutex held, on @cpu. A slot that cannot get one on
 * @cpu watches the other CPUs, as a watch of ksym_trace_filter does.
 */
void ksym_dyn_cpu_online(unsigned int cpu)
{
	struct ksym_dyn *d;
	int ret;

	lockdep_assert_held(&ksym_mutex);
	if (WARN_ON_ONCE(cpu != raw_smp_processor_id()))
		return;
	list_for_each_entry(d, &ksym_dyns, node) {
		ret = ksym_dyn_online_slot(d, cpu);
		if (ret)
			pr_warn("cannot watch %s on CPU %u: %d\n",
				d->watch.spec.target, cpu, ret);
	}
}

/*
 * A CPU without its breakpoint any more may have been the last one a
 * moving slot waited for.
 */
static void ksym_dyn_settle_all(void)
{
	struct ksym_dyn *d;

	/* A publication from here kicks this CPU's irq_work. */
	preempt_disable();
	list_for_each_entry(d, &ksym_dyns, node)
		ksym_dyn_settle(d, ksym_dyn_ctl(d));
	preempt_enable();
}

/**
 * ksym_dyn_cpu_offline - drop a CPU's slot breakpoints
 * @cpu: the CPU going down
 *
 * Called with ksym_mutex held.
 */
void ksym_dyn_cpu_offline(unsigned int cpu)
{
	struct ksym_dyn *d;

	lockdep_assert_held(&ksym_mutex);
	list_for_each_entry(d, &ksym_dyns, node)
		ksym_bp_release(&d->watch, cpu);
	ksym_dyn_settle_all();
}

static void ksym_trigger_reg_workfn(struct work_struct *work)
{
	struct ksym_trigger *trig = container_of(work, struct ksym_trigger,
						 reg_work);
	struct ksym_dyn *d;
	int i, cpu, ret = 0;

	cpus_read_lock();
	mutex_lock(&ksym_mutex);
	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		for_each_online_cpu(cpu) {
			ret = ksym_dyn_bp_create(d, cpu, 0);
			if (ret)
				break;
		}
		if (ret) {
			ksym_watch_release_all(&d->watch);
			break;
		}
		list_add_tail_rcu(&d->node, &ksym_dyns);
		trig->nr_live_slots++;
		atomic_long_set_release(&d->ctl, ksym_ctl(0, KSYM_DYN_PARKED));
	}
	mutex_unlock(&ksym_mutex);
	cpus_read_unlock();
	if (ret) {
		pr_warn("%s: %s: %d of %d slots: %d\n", trig->event, trig->canon,
			trig->nr_live_slots, trig->nr_slots, ret);
		ksym_log_at(NULL, trig->event, trig->canon, KSYM_ERR_T_NO_SLOT,
			    0);
	}
}

static void ksym_trigger_free_workfn(struct work_struct *work)
{
	struct ksym_trigger *trig = container_of(work, struct ksym_trigger,
						 free_work);
	struct ksym_dyn *d;
	int i;

	mutex_lock(&ksym_mutex);
	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		if (atomic_long_xchg(&d->ctl, KSYM_DYN_OFF) != KSYM_DYN_OFF)
			list_del_rcu(&d->node);
	}
	mutex_unlock(&ksym_mutex);
	/* Triggers and irq_works that may still see the slots are done. */
	synchronize_rcu();
	for (i = 0; i < trig->nr_slots; i++)
		ksym_watch_release_all(&trig->slots[i]->watch);
	/* And so are the hit handlers of their breakpoints. */
	synchronize_rcu();
	for (i = 0; i < trig->nr_slots; i++)
		ksym_dyn_free(trig->slots[i]);
	kfree(trig->canon);
	kfree(trig->name);
	kfree(trig);
}

/* ------------------------------------------------------------------------
 * Parsing: ksym_watch:[(struct TYPE)]FIELD[PATH][+OFFSET][/LEN]:ACCESS[:N]
 * and ksym_unwatch:FIELD[:N], each with an optional "if FILTER".
 */

/* Says that a number field holds an address, with no type. */
#define KSYM_VOID_CAST	"(void *)"

/* "struct foo", from a field's type "struct foo *" or "const struct foo *". */
static bool ksym_field_struct(const char *type, char *out, size_t size)
{
	const char *p = type, *end;

	if (str_has_prefix(p, "const "))
		p += strlen("const ");
	if (!str_has_prefix(p, "struct ") && !str_has_prefix(p, "union "))
		return false;
	end = strchr(p, '*');
	if (!end || strchr(end + 1, '*'))
		return false;
	while (end > p && end[-1] == ' ')
		end--;
	if (end - p >= size)
		return false;
	strscpy(out, p, end - p + 1);
	return true;
}

static bool ksym_btf_ident(const char *s);

#ifdef CONFIG_DYNAMIC_EVENTS
/*
 * The function and what was fetched for argument @field of probe event
 * @call, from the probe's definition as dynamic_events shows it:
 * "p:GROUP/EVENT [MOD:]SYMBOL[+OFFSET] NAME=FETCH..." (kprobe, "r" for a
 * return probe) or "f:GROUP/EVENT SYMBOL[%return] NAME=FETCH..." (fprobe).
 * Cut in place in @text. Only arguments at the function's entry, or saved
 * there for its return: a probe at +OFFSET has none.
 */
static bool ksym_probe_def_arg(char *text, const char *field, char **func,
			       char **fetch)
{
	char *tok = strsep(&text, " "), *eq;

	if (!tok || !strchr("prf", tok[0]))
		return false;
	*func = strsep(&text, " ");
	if (!*func || strchr(*func, '+'))
		return false;
	(*func)[strcspn(*func, "%")] = '\0';
	if (strchr(*func, ':'))
		*func = strchr(*func, ':') + 1;
	while ((tok = strsep(&text, " "))) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(tok, field)) {
			*fetch = eq + 1;
			return true;
		}
	}
	return false;
}

/* The struct of @field in one probe's definition, @m's text: see below. */
static bool ksym_probe_def_struct(struct seq_file *m, const char *field,
				  char *out, size_t size)
{
	char *func = NULL, *fetch = NULL, *name = NULL;
	int index = -1;

	if (!m->count || m->count >= m->size)
		return false;
	m->buf[m->count] = '\0';
	m->buf[strcspn(m->buf, "\n")] = '\0';
	if (!ksym_probe_def_arg(m->buf, field, &func, &fetch))
		return false;
	if (str_has_prefix(fetch, "$arg")) {
		if (kstrtoint(fetch + strlen("$arg"), 10, &index) || index < 1)
			return false;
		index--;
	} else if (ksym_btf_ident(fetch)) {
		name = fetch;
	} else {
		return false;
	}
	return ksym_btf_func_arg_struct(func, name, index, out, size);
}

/*
 * The struct a kprobe's or fprobe's argument @field points to, where BTF
 * knows it: the event's format has a u64, but the probe fetched its
 * function's argument N ($argN, in an entry or a return probe) or the
 * argument BTF names. An event may have several probes (on several
 * functions): each must give the same struct. "struct NAME" at @out.
 * Called with event_mutex held (trigger files are written under it),
 * which keeps the list of dynamic events.
 */
static bool ksym_probe_arg_struct(struct trace_event_call *call,
				  const char *field, char *out, size_t size)
{
	struct seq_file m = { .size = PAGE_SIZE - 1 };
	char one[KSYM_NAME_LEN];
	struct dyn_event *ev;
	bool found = false;

	if (!(call->flags & (TRACE_EVENT_FL_KPROBE | TRACE_EVENT_FL_FPROBE)))
		return false;
	lockdep_assert_held(&event_mutex);
	m.buf = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!m.buf)
		return false;
	for_each_dyn_event(ev) {
		if (!ev->ops->match(call->class->system, trace_event_name(call),
				    0, NULL, ev))
			continue;
		m.count = 0;
		ev->ops->show(&m, ev);
		if (!ksym_probe_def_struct(&m, field, one, sizeof(one)) ||
		    (found && strcmp(one, out))) {
			found = false;
			break;
		}
		if (!found && strscpy(out, one, size) < 0)
			break;
		found = true;
	}
	kfree(m.buf);
	return found;
}
#else
static bool ksym_probe_arg_struct(struct trace_event_call *call,
				  const char *field, char *out, size_t size)
{
	return false;
}
#endif

/* An identifier, as BTF names an argument. */
static bool ksym_btf_ident(const char *s)
{
	if (!isalpha(*s) && *s != '_')
		return false;
	while (isalnum(*s) || *s == '_')
		s++;
	return !*s;
}

/*
 * The "+OFFSET" or "-OFFSET" that ends @path (a struct path's, or a frame
 * offset from a stack pointer a probe fetched), cut off; @param and @pos
 * place the caret. Within KSYM_TRIGGER_OFFSET_MAX either way: a stack's
 * size (x86-64 and arm64, without KASAN), whatever the kernel's config.
 */
#define KSYM_TRIGGER_OFFSET_MAX	SZ_16K

static int ksym_trigger_parse_offset(struct ksym_entry *e, char *path,
				     char *param, int pos, long *off)
{
	char *sign = strpbrk(path, "+-");
	unsigned long n;

	*off = 0;
	if (!sign)
		return 0;
	if (kstrtoul(sign + 1, 0, &n) || n > KSYM_TRIGGER_OFFSET_MAX)
		return ksym_entry_fail(e, KSYM_ERR_BAD_OFFSET,
				       pos + (sign + 1 - param), -EINVAL);
	*off = *sign == '-' ? -(long)n : (long)n;
	*sign = '\0';
	return 0;
}

/* "+0x10" or "-0x28" for names and canonical texts, "" for none. */
static void ksym_trigger_offset_str(char *buf, size_t size, long off)
{
	if (!off)
		buf[0] = '\0';
	else
		scnprintf(buf, size, "%c0x%lx", off < 0 ? '-' : '+',
			  off < 0 ? -(unsigned long)off : (unsigned long)off);
}

/*
 * Parse @param (at @pos in the command, for the caret) for @file's event
 * into @trig; on error, @e->err and @e->err_pos say what and where.
 */
static int ksym_trigger_parse_param(struct ksym_entry *e,
				    struct trace_event_file *file,
				    char *param, int pos,
				    struct ksym_trigger *trig, char **count)
{
	struct ksym_target *t __free(kfree) = kzalloc(sizeof(*t), GFP_KERNEL);
	char type[KSYM_NAME_LEN], *p = param, *field, *path, *colon, *slash;
	char off_str[24], *name __free(kfree) = kzalloc(KSYM_TARGET_MAX,
							 GFP_KERNEL);
	const char *cast = "", *cast_end = "";
	struct ftrace_event_field *f;
	unsigned long size = 0, nr;
	long off = 0;
	int n, ret, field_pos, len_pos = 0;
	bool is_addr = false, probe_typed = false;
	unsigned int len = 0;

	*count = NULL;
	if (!t || !name)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos, -ENOMEM);
	/* Its types first: the event's own struct (it holds the event). */
	t->mod = file->event_call->module;
	/* "(void *)": a number field that holds an address, untyped. */
	if (!strncmp(p, KSYM_VOID_CAST, strlen(KSYM_VOID_CAST))) {
		p += strlen(KSYM_VOID_CAST);
		is_addr = true;
	} else if (!trig->unwatch && *p == '(') {
		n = ksym_parse_cast(e, p, pos, t);
		if (n < 0)
			return n;
		p += n;
		is_addr = true;
	}
	/* FIELD: an identifier, as in the event's format. */
	field = p;
	field_pos = pos + (p - param);
	while (isalnum(*p) || *p == '_')
		p++;
	if (p == field || isdigit(*field))
		return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, field_pos,
				       -EINVAL);
	path = p;
	colon = strchr(p, ':');
	if (trig->unwatch) {
		if (colon)
			*colon = '\0';
		ret = ksym_trigger_parse_offset(e, path, param, pos, &off);
		if (ret)
			return ret;
		if (*path)
			return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX,
					       pos + (path - param), -EINVAL);
		if (colon)
			*count = colon + 1;
	} else {
		unsigned int access;

		if (!colon)
			return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX,
					       pos + strlen(param), -EINVAL);
		*colon = '\0';
		p = colon + 1;
		colon = strchr(p, ':');
		if (colon) {
			*colon = '\0';
			*count = colon + 1;
		}
		if (ksym_parse_access(p, &access))
			return ksym_entry_fail(e, KSYM_ERR_BAD_ACCESS,
					       pos + (p - param), -EINVAL);
		if (access != KSYM_ACCESS_W && access != KSYM_ACCESS_RW)
			return ksym_entry_fail(e, KSYM_ERR_T_DATA_ONLY,
					       pos + (p - param), -EINVAL);
		trig->access = access;
		slash = strchr(path, '/');
		if (slash) {
			*slash = '\0';
			len_pos = pos + (slash + 1 - param);
			if (kstrtouint(slash + 1, 0, &len) ||
			    (len != 1 && len != 2 && len != 4 && len != 8))
				return ksym_entry_fail(e, KSYM_ERR_BAD_LEN,
						       pos + (slash + 1 - param),
						       -EINVAL);
		}
		ret = ksym_trigger_parse_offset(e, path, param, pos, &off);
		if (ret)
			return ret;
	}
	if (*count && (kstrtoul(*count, 0, &nr) || nr > LONG_MAX))
		return ksym_entry_fail(e, KSYM_ERR_T_BAD_COUNT,
				       pos + (*count - param), -EINVAL);

	n = *path;
	*path = '\0';
	f = trace_find_event_field(file->event_call, field);
	*path = n;
	if (!f)
		return ksym_entry_fail(e, KSYM_ERR_T_NO_FIELD, field_pos,
				       -ENOENT);
	/* A probe's argument that BTF types: its struct, as if cast. */
	if (!is_addr &&
	    ksym_probe_arg_struct(file->event_call, f->name, type,
				  sizeof(type))) {
		probe_typed = true;
		is_addr = true;
		if (!trig->unwatch) {
			t->cast = type;
			t->cast_pos = field_pos;
		}
	}
	/*
	 * An address: a pointer, or a number the user says holds one (a
	 * probe's u64 argument, an unsigned long call_site). Never a count
	 * or a size taken for one (kmalloc's bytes_req).
	 */
	if (f->size != sizeof(long) ||
	    (f->filter_type != FILTER_OTHER &&
	     f->filter_type != FILTER_PTR_STRING) ||
	    (!is_addr && !strchr(f->type, '*')))
		return ksym_entry_fail(e, KSYM_ERR_T_NOT_ADDR, field_pos,
				       -EINVAL);
	trig->field_off = f->offset;
	ksym_trigger_offset_str(off_str, sizeof(off_str), off);
	if (trig->unwatch) {
		trig->off = off;
		trig->canon = kasprintf(GFP_KERNEL, "%s%s%s",
					is_addr && !probe_typed ?
					KSYM_VOID_CAST : "",
					f->name, off_str);
		return trig->canon ? 0 : -ENOMEM;
	}

	/* The type: the cast, or the field's own "struct foo *". */
	if (!t->cast && ksym_field_struct(f->type, type, sizeof(type)))
		t->cast = type;
	if (!t->cast && *path)
		return ksym_entry_fail(e, KSYM_ERR_T_NEED_TYPE,
				       pos + (path - param), -EINVAL);
	if (t->cast) {
		t->path = path;
		t->path_pos = pos + (path - param);
		ret = ksym_btf_resolve_type(e, t);
		if (ret)
			return ret;
		size = t->size;
		/* Events and profiles name the type and the path. */
		scnprintf(name, KSYM_TARGET_MAX, "%s%s",
			  strchr(t->cast, ' ') + 1, t->canon);
	} else {
		strscpy(name, f->name, KSYM_TARGET_MAX);
	}
	trig->off = t->off + off;
	if (off) {
		size = 0;
		n = strlen(name);
		scnprintf(name + n, KSYM_TARGET_MAX - n, "%s", off_str);
	}
	if (len && size && len > size)
		return ksym_entry_fail(e, KSYM_ERR_LEN_TOO_BIG, len_pos,
				       -EINVAL);
	if (!len)
		len = ksym_default_len(trig->off, size);
	if (!len)
		return ksym_entry_fail(e, KSYM_ERR_NEED_LEN, field_pos, -EINVAL);
	trig->len = len;

	/* Canonical: the cast only where the field does not give it. */
	if (t->cast && t->cast != type) {
		cast = t->cast;
		cast_end = ")";
	} else if (is_addr && !t->cast) {
		cast_end = KSYM_VOID_CAST;
	}
	trig->canon = kasprintf(GFP_KERNEL, "%s%s%s%s%s%s/%u:%s",
				*cast ? "(" : "", cast, cast_end, f->name,
				t->canon, off_str, len,
				ksym_access_str(trig->access));
	if (!trig->canon)
		return -ENOMEM;
	trig->name = no_free_ptr(name);
	return 0;
}

static void ksym_trigger_destroy(struct ksym_trigger *trig)
{
	int i;

	for (i = 0; i < trig->nr_slots; i++)
		ksym_dyn_free(trig->slots[i]);
	kfree(trig->canon);
	kfree(trig->name);
	kfree(trig);
}

/*
 * Only one of each trigger text per event; matched by that text. With
 * @shown, @canon may also be the trigger as its file shows it (count
 * included), or that cut before its first '[': the ftrace selftests
 * remove triggers by writing back what they read, up to the first '['.
 */
static struct event_trigger_data *
ksym_trigger_find(struct trace_event_file *file, struct event_command *cmd,
		  const char *canon, bool shown)
{
	struct event_trigger_data *data;
	struct ksym_trigger *trig;
	char count[32];
	size_t n;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(data, &file->triggers, list) {
		if (data->cmd_ops != cmd)
			continue;
		trig = data->private_data;
		if (!strcmp(trig->canon, canon))
			return data;
		if (!shown)
			continue;
		n = strlen(canon);
		if (n < strlen(trig->canon)) {
			if (!strncmp(trig->canon, canon, n) &&
			    trig->canon[n] == '[')
				return data;
			continue;
		}
		n = strlen(trig->canon);
		if (strncmp(trig->canon, canon, n))
			continue;
		if (data->count == -1)
			strscpy(count, ":unlimited", sizeof(count));
		else
			snprintf(count, sizeof(count), ":count=%ld",
				 data->count);
		if (!strcmp(count, canon + n))
			return data;
	}
	return NULL;
}

static int ksym_trigger_reg(char *glob, struct event_trigger_data *data,
			    struct trace_event_file *file)
{
	struct ksym_trigger *trig = data->private_data;
	int ret;

	if (ksym_trigger_find(file, data->cmd_ops, trig->canon, false))
		return -EEXIST;
	if (data->cmd_ops->init) {
		ret = data->cmd_ops->init(data);
		if (ret < 0)
			return ret;
	}
	list_add_rcu(&data->list, &file->triggers);
	update_cond_flag(file);
	ret = trace_event_trigger_enable_disable(file, 1);
	if (ret < 0) {
		list_del_rcu(&data->list);
		update_cond_flag(file);
	}
	return ret;
}

static void ksym_trigger_unreg(char *glob, struct event_trigger_data *test,
			       struct trace_event_file *file)
{
	struct ksym_trigger *trig = test->private_data;
	struct event_trigger_data *data;

	data = ksym_trigger_find(file, test->cmd_ops, trig->canon, false);
	if (!data)
		return;
	list_del_rcu(&data->list);
	trace_event_trigger_enable_disable(file, 0);
	update_cond_flag(file);
	if (data->cmd_ops->free)
		data->cmd_ops->free(data);
}

static int ksym_trigger_init_data(struct event_trigger_data *data)
{
	data->ref++;
	return 0;
}

/*
 * The last reference: the trigger is off the event's list. Its slots are
 * released by the work item, after the triggers still running are done.
 */
static void ksym_trigger_free_data(struct event_trigger_data *data)
{
	struct ksym_trigger *trig = data->private_data;

	if (WARN_ON_ONCE(data->ref <= 0))
		return;
	if (--data->ref)
		return;
	mutex_lock(&ksym_trigger_mutex);
	list_del(&trig->list);
	mutex_unlock(&ksym_trigger_mutex);
	trace_event_put_ref(trig->call);
	queue_work(ksym_trigger_wq, &trig->free_work);
	trigger_data_free(data);
}

static int ksym_trigger_print(struct seq_file *m,
			      struct event_trigger_data *data)
{
	struct ksym_trigger *trig = data->private_data;

	seq_printf(m, "%s:%s", data->cmd_ops->name, trig->canon);
	if (data->count == -1)
		seq_puts(m, ":unlimited");
	else
		seq_printf(m, ":count=%ld", data->count);
	if (data->filter_str)
		seq_printf(m, " if %s\n", data->filter_str);
	else
		seq_putc(m, '\n');
	return 0;
}

static int ksym_trigger_parse(struct event_command *cmd_ops,
			      struct trace_event_file *file, char *glob,
			      char *cmd, char *param_and_filter)
{
	bool remove = event_trigger_check_remove(glob);
	struct trace_event_call *call = file->event_call;
	struct event_trigger_data *data = NULL;
	struct ksym_entry *e __free(kfree) = kzalloc(sizeof(*e), GFP_KERNEL);
	struct ksym_trigger *trig;
	char *text, *param, *filter, *end, *count;
	int i = 0, pos, ret;

	lockdep_assert_held(&event_mutex);
	/* For error_log: the command as written, the caret in it. */
	text = kasprintf(GFP_KERNEL, "%s:%s", glob,
			 param_and_filter ? param_and_filter : "");
	trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	if (!text || !trig || !e) {
		ret = -ENOMEM;
		goto out_free;
	}
	e->err = -1;
	pos = strlen(glob) + 1;
	trig->unwatch = cmd_ops->trigger == ksym_unwatch_trigger;
	trig->tr = file->tr;
	snprintf(trig->event, sizeof(trig->event), "%s:%s",
		 call->class->system, trace_event_name(call));
	INIT_LIST_HEAD(&trig->list);
	INIT_WORK(&trig->reg_work, ksym_trigger_reg_workfn);
	INIT_WORK(&trig->free_work, ksym_trigger_free_workfn);

	param = param_and_filter;
	if (!param || !*param) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, pos, -EINVAL);
		goto out_log;
	}
	/* It ends at a blank, but for blanks in a cast. */
	end = ksym_entry_end(param);
	filter = *end ? skip_spaces(end + 1) : NULL;
	*end = '\0';
	if (filter && !*filter)
		filter = NULL;
	/*
	 * After the entry only "if FILTER" may come (set_trigger_filter()
	 * splits at a space or tab); the filter's own errors are the filter
	 * parser's to log, this one would not be.
	 */
	if (filter && (!str_has_prefix(filter, "if") ||
		       (filter[2] != ' ' && filter[2] != '\t') ||
		       !*skip_spaces(filter + 2))) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, pos + (filter - param),
				      -EINVAL);
		goto out_log;
	}

	/* Removal: the trigger as its file shows it, or as it was set. */
	if (remove) {
		struct event_trigger_data *found;

		found = ksym_trigger_find(file, cmd_ops, param, true);
		if (!found) {
			ret = ksym_trigger_parse_param(e, file, param, pos,
						       trig, &count);
			if (ret)
				goto out_log;
			found = ksym_trigger_find(file, cmd_ops, trig->canon,
						  false);
		}
		if (!found) {
			ret = ksym_entry_fail(e, KSYM_ERR_T_NOT_FOUND, pos,
					      -ENOENT);
			goto out_log;
		}
		kfree(trig->canon);
		trig->canon = kstrdup(((struct ksym_trigger *)
				       found->private_data)->canon, GFP_KERNEL);
		if (trig->canon) {
			struct event_trigger_data test = {
				.cmd_ops = cmd_ops, .private_data = trig,
			};

			event_trigger_unregister(cmd_ops, file, glob + 1, &test);
		}
		ret = trig->canon ? 0 : -ENOMEM;
		goto out_free;
	}

	/*
	 * What ksym_trace_filter refuses under lockdown: value= reads
	 * memory. Removing a trigger only lowers exposure: not refused.
	 */
	if (!trig->unwatch && security_locked_down(LOCKDOWN_KPROBES)) {
		ret = ksym_entry_fail(e, KSYM_ERR_LOCKDOWN, pos, -EPERM);
		goto out_log;
	}
	ret = ksym_trigger_parse_param(e, file, param, pos, trig, &count);
	if (ret)
		goto out_log;
	if (ksym_trigger_find(file, cmd_ops, trig->canon, false)) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_EXISTS, pos, -EEXIST);
		goto out_log;
	}

	/* The slots, parked until their breakpoints are registered. */
	if (!trig->unwatch) {
		mutex_lock(&ksym_trigger_mutex);
		trig->nr_slots = ksym_trigger_slots;
		mutex_unlock(&ksym_trigger_mutex);
		for (i = 0; i < trig->nr_slots; i++) {
			trig->slots[i] = ksym_dyn_alloc(trig, trig->name);
			if (!trig->slots[i])
				break;
		}
	}
	if (i < trig->nr_slots) {
		ret = -ENOMEM;
		goto out_free;
	}

	ret = -ENOMEM;
	data = trigger_data_alloc(cmd_ops, cmd, count, trig);
	if (!data)
		goto out_free;
	if (count && kstrtol(count, 0, &data->count)) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = event_trigger_set_filter(cmd_ops, file, filter, data);
	if (ret < 0)
		goto out_free;
	/*
	 * The module of the event stays while the trigger is on it: its
	 * tracepoint must lose this probe before the module goes (the core
	 * leaves a soft-enabled event's probe at unload), and its BTF types
	 * name the watches.
	 */
	if (!trace_event_try_get_ref(call)) {
		ret = -ENODEV;
		goto out_free;
	}
	trig->call = call;
	/* Held across registration, as event_trigger_parse() does. */
	ksym_trigger_init_data(data);
	ret = event_trigger_register(cmd_ops, file, glob, data);
	if (ret) {
		data->ref--;
		trace_event_put_ref(call);
		event_trigger_reset_filter(cmd_ops, data);
		goto out_free;
	}
	mutex_lock(&ksym_trigger_mutex);
	list_add_tail(&trig->list, &ksym_triggers);
	mutex_unlock(&ksym_trigger_mutex);
	if (trig->nr_slots)
		queue_work(ksym_trigger_wq, &trig->reg_work);
	/* Drop the reference taken above: the event's list holds one. */
	ksym_trigger_free_data(data);
	kfree(text);
	return 0;

out_log:
	if (e->err >= 0)
		ksym_log_at(file->tr, trig ? trig->event : "ksym_watch", text,
			    e->err, e->err_pos);
out_free:
	if (data)
		trigger_data_free(data);
	if (trig) {
		/* Slots not allocated yet are NULL. */
		trig->nr_slots = i;
		ksym_trigger_destroy(trig);
	}
	kfree(text);
	return ret;
}

/* The two commands differ in their name and what they do when they fire. */
#define KSYM_TRIGGER_CMD(_name, _fn)					\
	{								\
		.name		= _name,				\
		.trigger_type	= ETT_NONE,				\
		.flags		= EVENT_CMD_FL_NEEDS_REC,		\
		.parse		= ksym_trigger_parse,			\
		.reg		= ksym_trigger_reg,			\
		.unreg		= ksym_trigger_unreg,			\
		.set_filter	= set_trigger_filter,			\
		.trigger	= _fn,					\
		.count_func	= ksym_trigger_count,			\
		.init		= ksym_trigger_init_data,		\
		.free		= ksym_trigger_free_data,		\
		.print		= ksym_trigger_print,			\
	}

static struct event_command ksym_watch_cmd =
	KSYM_TRIGGER_CMD("ksym_watch", ksym_watch_trigger);
static struct event_command ksym_unwatch_cmd =
	KSYM_TRIGGER_CMD("ksym_unwatch", ksym_unwatch_trigger);

/* ------------------------------------------------------------------------
 * trace_stat/ksym_triggers: what each trigger did.
 */

struct ksym_trigger_row {
	struct ksym_trigger_row	*next;
	char		event[2 * MAX_EVENT_NAME_LEN + 2];
	char		what[KSYM_ENTRY_MAX];
	int		slots, nr_slots;
	unsigned long	armed, missed, refused, unwatched, too_hot, hits;
	unsigned long	stray;
	int		live;
	u64		window_last, window_max;
};

static void ksym_trigger_row_fill(struct ksym_trigger_row *row,
				  struct ksym_trigger *trig)
{
	struct ksym_dyn *d;
	int i, cpu;

	strscpy(row->event, trig->event, sizeof(row->event));
	snprintf(row->what, sizeof(row->what), "%s:%s",
		 trig->unwatch ? "ksym_unwatch" : "ksym_watch", trig->canon);
	row->slots = READ_ONCE(trig->nr_live_slots);
	row->nr_slots = trig->nr_slots;
	row->armed = atomic_long_read(&trig->armed);
	row->missed = atomic_long_read(&trig->missed);
	row->refused = atomic_long_read(&trig->refused);
	row->unwatched = atomic_long_read(&trig->unwatched);
	row->too_hot = atomic_long_read(&trig->too_hot);
	row->stray = atomic_long_read(&trig->stray);
	row->window_last = READ_ONCE(trig->window_last);
	row->window_max = READ_ONCE(trig->window_max);
	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		row->live += ksym_ctl_state(atomic_long_read(&d->ctl)) ==
			     KSYM_DYN_LIVE;
		for_each_possible_cpu(cpu)
			row->hits += ksym_dyn_cpu_hits(d, cpu);
	}
}

static void *ksym_trigger_stat_start(struct tracer_stat *trace)
{
	struct ksym_trigger_row *head = NULL, **tail = &head, *row;
	struct ksym_trigger *trig;

	/* Triggers just set: their slots first. */
	ksym_trigger_sync();
	mutex_lock(&ksym_trigger_mutex);
	list_for_each_entry(trig, &ksym_triggers, list) {
		row = kzalloc(sizeof(*row), GFP_KERNEL);
		if (!row)
			break;
		ksym_trigger_row_fill(row, trig);
		*tail = row;
		tail = &row->next;
	}
	mutex_unlock(&ksym_trigger_mutex);
	return head;
}

static void *ksym_trigger_stat_next(void *prev, int idx)
{
	return ((struct ksym_trigger_row *)prev)->next;
}

static void ksym_trigger_stat_release(void *stat)
{
	kfree(stat);
}

static int ksym_trigger_stat_headers(struct seq_file *m)
{
	seq_puts(m, "# Event  Trigger  Slots  Armed  Missed  Refused  Unwatched  TooHot  Live  Hits  Window(last/max ns)  Stray\n");
	return 0;
}

static int ksym_trigger_stat_show(struct seq_file *m, void *v)
{
	struct ksym_trigger_row *row = v;

	seq_printf(m, "%s  %s  %d/%d  %lu  %lu  %lu  %lu  %lu  %d  %lu  %llu/%llu  %lu\n",
		   row->event, row->what, row->slots, row->nr_slots,
		   row->armed, row->missed, row->refused, row->unwatched,
		   row->too_hot, row->live, row->hits, row->window_last,
		   row->window_max, row->stray);
	return 0;
}

static struct tracer_stat ksym_trigger_stat = {
	.name		= "ksym_triggers",
	.stat_start	= ksym_trigger_stat_start,
	.stat_next	= ksym_trigger_stat_next,
	.stat_show	= ksym_trigger_stat_show,
	.stat_release	= ksym_trigger_stat_release,
	.stat_headers	= ksym_trigger_stat_headers,
};

static struct trace_min_max_param ksym_trigger_slots_param = {
	.lock	= &ksym_trigger_mutex,
	.val	= &ksym_trigger_slots,
	.min	= &ksym_trigger_slots_min,
	.max	= &ksym_trigger_slots_max,
};

/**
 * ksym_trigger_init - register the triggers and their files
 *
 * Return: 0, or the first error.
 */
int __init ksym_trigger_init(void)
{
	int ret;

	ksym_trigger_wq = alloc_ordered_workqueue("ksym_trigger", 0);
	if (!ksym_trigger_wq)
		return -ENOMEM;
	ret = register_event_command(&ksym_watch_cmd);
	if (!ret)
		ret = register_event_command(&ksym_unwatch_cmd);
	if (ret)
		return ret;
	trace_create_file("ksym_trigger_slots", TRACE_MODE_WRITE, NULL,
			  &ksym_trigger_slots_param, &trace_min_max_fops);
	return register_stat_tracer(&ksym_trigger_stat);
}
