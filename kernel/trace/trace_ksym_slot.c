// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_slot.c - the slots of the ksym_watch triggers: claims,
 * generations, publication, parking and retirement of one object's watch,
 * and the per-CPU moves of the slots' breakpoints.
 *
 * Owns: struct ksym_dyn and its state word, ksym_dyns (every slot with
 * breakpoints), the parking page, the per-CPU irq_works that apply a
 * published generation, the stray-hit reports, the slots' breakpoints on
 * CPU hotplug, and the KUnit hooks that play the slot states.
 * Interface (trace_ksym.h): ksym_dyn_alloc/free, ksym_dyn_watching,
 * ksym_dyn_claim, ksym_dyn_arm (publish), ksym_dyn_end, ksym_dyn_unwatch,
 * ksym_dyn_register_all (park), ksym_dyn_release_all (retire),
 * ksym_dyn_cpu_online/offline (the per-CPU apply), ksym_dyn_cpu_hits,
 * ksym_dyn_object; and for the hit path ksym_dyn_stray, ksym_dyn_too_hot.
 * May call: the watch set's breakpoints (trace_ksym_watch.c:
 * ksym_bp_create/release, ksym_watch_release_all, ksym_mutex), the hit
 * path's ksym_in_hit_handler and ksym_last_seed (trace_ksym.c) and the
 * address rules (trace_ksym_parse.c). Never the trigger commands
 * (trace_ksym_trigger.c), which call it: it only reads and counts in
 * their struct ksym_trigger.
 *
 * How a trigger watches an object:
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
 *	ENDING --(trigger claims)--> CLAIMED
 *	CLAIMED --(another slot claims the same object)--> YIELDED
 *	CLAIMED, YIELDED --(claim given up, generation + 1)--> PARKED
 *	YIELDED --(an end's parking word published)--> ENDING
 *
 * One object is watched by one slot: a claim for it that meets another
 * slot's (the event fired on two CPUs at once, or in an NMI over itself)
 * gives way, see ksym_dyn_claim_won().
 *
 * A slot is free again the moment its watch ends: a claim takes it while
 * it is ENDING, and the CPUs still moving to the parking word move
 * straight to the new object (each applies the generation published
 * last). A hit of the old object on a CPU that has not moved yet is
 * told apart by its breakpoint's address and counted late, never as the
 * new object's (ksym_dyn_stray()).
 *
 * CLAIMED is held by one publisher, which never waits: an unwatch that
 * meets it is lost (the watch then stays until the trigger goes, as for
 * an object freed without its unwatch; a stack watch ends sooner, below).
 *
 * A watch of a word on a task's stack belongs to that task: it ends when
 * the task exits (ksym_dyn_task_exit()), and, as a watch on this CPU's
 * interrupt stack does, ksym_stack_watch_ms after it was armed at the
 * latest, at its next hit or at the next claim that
 * finds no free slot, whichever comes first; so an entry trigger without
 * its unwatch, an unwatch that never matches or a return probe that ran
 * out of instances leaves no slot taken for longer. Each is counted
 * stale.
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
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/stacktrace.h>
#include <trace/events/sched.h>
#include <kunit/visibility.h>
#include <asm/sections.h>
#ifdef CONFIG_X86_64
#include <asm/debugreg.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/stacktrace.h>
#endif

#include "trace.h"
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
 * @stack:    the owner task's stack, if the watched word is on it; else 0
 * @deadline: jiffies after which that stack watch is stale; 0: never
 * @bad:      the generation + 1 whose @want a CPU's breakpoint refused (the
 *            architecture's check), 0 if none: a late refusal of an object
 *            before is not the new one's
 * @stray_said: a stray hit was reported on the console
 * @parking:  the address of the word the breakpoints watch while the
 *            slot is free, in ksym_dyn_parking
 * @test_park_fails: KUnit only: the move to @parking fails
 *            (ksym_dyn_test_park_fail())
 * @test_busy: KUnit only: every move is refused for now, -EBUSY
 *            (ksym_dyn_test_busy())
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
	unsigned long		stack;
	unsigned long		deadline;
	unsigned long		bad;
	bool			stray_said;
	unsigned long		parking;
#if IS_ENABLED(CONFIG_KSYM_TRACER_KUNIT_TEST)
	bool			test_park_fails;
	bool			test_busy;
#endif
};

/* Every slot with breakpoints, for the irq_work and the profiles. */
static LIST_HEAD(ksym_dyns);

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

/* How long a watch of a word on a task's stack may last; 0: no bound. */
u64 ksym_stack_watch_ms = 1000;

/* ------------------------------------------------------------------------
 * Moving the breakpoints: an irq_work on each CPU.
 */

static void ksym_dyn_sync_fn(struct irq_work *work);
static void ksym_dyn_busy_fn(struct irq_work *work);
static void ksym_dyn_kick_fn(struct irq_work *work);

static DEFINE_PER_CPU(struct irq_work, ksym_dyn_sync_work) =
	IRQ_WORK_INIT_HARD(ksym_dyn_sync_fn);
/* The retry of a refused move, at the tick's pace: ksym_dyn_retry_here(). */
static DEFINE_PER_CPU(struct irq_work, ksym_dyn_busy_work) =
	IRQ_WORK_INIT_LAZY(ksym_dyn_busy_fn);
/* This CPU's moves refused (-EBUSY) in a row; a move done resets it. */
static DEFINE_PER_CPU(unsigned int, ksym_dyn_busy);
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
 * any context but four, where it waits for its irq_work as the other
 * CPUs do: NMI (x86's debug exception is one; DR7 written there would be
 * put back by a debug exception the NMI interrupted), inside the tracer's
 * breakpoint handler (arm64 steps over the access with the breakpoints
 * off, and would find one back on), inside a move already running on
 * this CPU (ksym_dyn_apply() returns at once there), and where the debug
 * registers are not the kernel's (KVM's guest window: the helper says
 * -EBUSY, __ksym_dyn_apply()).
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
 * not: back to the parking word, ENDING at a new generation, so that a
 * claimer who saw this claim cannot mistake the slot's next claim for
 * it. ENDING, not PARKED: the claim may have been taken while the CPUs
 * were still moving off the object before, and a CPU may have read the
 * claim's address before its publication failed (one come online, or
 * whose irq_work looked then) and moved there; the slot is parked once
 * every CPU is back.
 */
static void ksym_dyn_unclaim(struct ksym_dyn *d, unsigned long gen)
{
	WRITE_ONCE(d->claiming, 0);
	ksym_dyn_publish(d, gen, d->parking, KSYM_DYN_ENDING);
}

/**
 * ksym_dyn_end - end a slot's watch, from any context
 * @d:   the slot
 * @obj: the object whose watch ends, or 0 for whatever it watches
 *
 * Back to the parking word. Only one ender wins a generation.
 *
 * Return: true if this call ended the watch.
 */
bool ksym_dyn_end(struct ksym_dyn *d, unsigned long obj)
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
	if (s == KSYM_DYN_ARMING && READ_ONCE(d->bad) == gen + 1) {
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
	if (s == KSYM_DYN_ENDING)
		return;
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

/**
 * ksym_dyn_cpu_hits - a slot's hits on a CPU, of every object
 * @d:   the slot
 * @cpu: the CPU
 *
 * Return: the hits of the objects retired and of the current one.
 */
unsigned long ksym_dyn_cpu_hits(struct ksym_dyn *d, int cpu)
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
				 unsigned long want, unsigned long gen)
{
	if (want != d->parking) {
		WRITE_ONCE(d->bad, gen + 1);
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
	if (d->test_busy)
		return -EBUSY;
#endif
	return modify_wide_hw_breakpoint_local(bp, attr);
}

/*
 * This CPU's move was refused for now (-EBUSY: the debug registers are not
 * the kernel's). Its irq_work tries again: at once the first time (the
 * firing CPU inside KVM's guest window, whose irq_work runs once the host's
 * registers are back: the usual case), then at the tick's pace, a lazy
 * irq_work, so that a state outlasting the irq_work (none is known) does
 * not keep the CPU retrying (review L-H). After KSYM_DYN_BUSY_TRIES in a
 * row the move is given up, as one the architecture refused.
 *
 * Return: false when given up.
 */
#define KSYM_DYN_BUSY_TRIES	64

static bool ksym_dyn_retry_here(void)
{
	unsigned int n = this_cpu_inc_return(ksym_dyn_busy);

	if (n > KSYM_DYN_BUSY_TRIES) {
		this_cpu_write(ksym_dyn_busy, 0);
		pr_warn_ratelimited("CPU %d: debug registers not the kernel's for %u tries: move given up\n",
				    smp_processor_id(), KSYM_DYN_BUSY_TRIES);
		return false;
	}
	irq_work_queue(this_cpu_ptr(n == 1 ? &ksym_dyn_sync_work :
					     &ksym_dyn_busy_work));
	return true;
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
	int err;

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
			err = ksym_dyn_move(d, bp, &attr);
			/*
			 * -EBUSY: the debug registers are not the kernel's
			 * now (a KVM guest's, a step's): nothing moved, and
			 * this CPU's irq_work moves it once they are back.
			 */
			if (err == -EBUSY && ksym_dyn_retry_here())
				return;
			if (err)
				ksym_dyn_move_failed(d, bp, attr.bp_addr, gen);
			else
				this_cpu_write(ksym_dyn_busy, 0);
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

/* A lazy irq_work may run in a thread (PREEMPT_RT): interrupts off here. */
static void ksym_dyn_busy_fn(struct irq_work *work)
{
	unsigned long flags;

	local_irq_save(flags);
	ksym_dyn_sync_fn(work);
	local_irq_restore(flags);
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

/* When a stack watch armed now is stale; 0: not a stack watch, or no bound. */
static unsigned long ksym_dyn_deadline(unsigned long stack)
{
	unsigned long ms = READ_ONCE(ksym_stack_watch_ms);

	return stack && ms ? (jiffies + msecs_to_jiffies(ms)) | 1 : 0;
}

/* A stack watch past ksym_stack_watch_ms (see the comment at the top). */
static bool ksym_dyn_expired(struct ksym_dyn *d)
{
	unsigned long deadline = READ_ONCE(d->deadline);

	return deadline && time_after(jiffies, deadline);
}

/* End @d's watch if it is a stack watch past its time: counted stale. */
static bool ksym_dyn_end_expired(struct ksym_dyn *d)
{
	unsigned long obj = READ_ONCE(d->obj);

	/* Pairs with ksym_dyn_arm(): @obj's own deadline, or a later one. */
	smp_rmb();
	if (!ksym_dyn_expired(d) || !ksym_dyn_end(d, obj))
		return false;
	atomic_long_inc(&d->trig->stale);
	return true;
}

/* The first slot of @trig that is parked or ending, taken for @obj. */
static struct ksym_dyn *ksym_dyn_take_free(struct ksym_trigger *trig,
					   unsigned long obj,
					   unsigned long *gen)
{
	struct ksym_dyn *d;
	unsigned long c;
	int i, s;

	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		c = ksym_dyn_ctl(d);
		s = ksym_ctl_state(c);
		if ((s == KSYM_DYN_PARKED || s == KSYM_DYN_ENDING) &&
		    ksym_dyn_take(d, c)) {
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

/**
 * ksym_dyn_claim - claim the first free slot of a trigger for an object
 * @trig: the trigger
 * @obj:  the object's address
 * @gen:  set to the generation the claim was taken at
 *
 * A slot is free when parked, or ending (its CPUs move straight to the
 * new object). None free: the trigger's stack watches past their time
 * are ended, and one of them is taken.
 * The slot is CLAIMED, with @claiming set; ksym_dyn_arm() publishes it.
 *
 * Return: the slot, or NULL if none is free.
 */
struct ksym_dyn *ksym_dyn_claim(struct ksym_trigger *trig, unsigned long obj,
				unsigned long *gen)
{
	struct ksym_dyn *d = ksym_dyn_take_free(trig, obj, gen);
	bool ended = false;
	int i;

	if (d)
		return d;
	for (i = 0; i < trig->nr_slots; i++)
		ended |= ksym_dyn_end_expired(trig->slots[i]);
	return ended ? ksym_dyn_take_free(trig, obj, gen) : NULL;
}

/* This CPU's interrupt stack (hardirqs and softirqs run there), or 0. */
static unsigned long ksym_dyn_irq_stack(unsigned long *size)
{
#if defined(CONFIG_X86_64)
	unsigned long top = (unsigned long)this_cpu_read(pcpu_hot.hardirq_stack_ptr);

	*size = IRQ_STACK_SIZE;
	return top ? top + 8 - IRQ_STACK_SIZE : 0;
#elif defined(CONFIG_ARM64)
	*size = IRQ_STACK_SIZE;
	return (unsigned long)raw_cpu_read(irq_stack_ptr);
#else
	*size = 0;
	return 0;
#endif
}

/*
 * The stack @addr is on, if it is the running task's or this CPU's
 * interrupt stack (a local of a function that runs in an interrupt); else
 * 0. Only a task's ends with the task; both end ksym_stack_watch_ms on.
 */
static unsigned long ksym_dyn_stack_of(unsigned long addr)
{
	unsigned long base = (unsigned long)task_stack_page(current), size;

	if (addr - base < THREAD_SIZE)
		return base;
	base = ksym_dyn_irq_stack(&size);
	return base && addr - base < size ? base : 0;
}

/**
 * ksym_dyn_arm - publish a claimed slot's object
 * @trig: the trigger
 * @d:    its slot, claimed by ksym_dyn_claim()
 * @gen:  the generation of the claim
 * @obj:  the object
 * @addr: the address to watch in it
 *
 * Unless another slot has the object, or the trigger is going, the CPUs
 * are moved to @addr; else the claim is given up.
 *
 * Return: true if it was armed.
 */
bool ksym_dyn_arm(struct ksym_trigger *trig, struct ksym_dyn *d,
		  unsigned long gen, unsigned long obj, unsigned long addr)
{
	unsigned long old_obj = d->obj, old_arm_gen = d->arm_gen;
	unsigned long stack = ksym_dyn_stack_of(addr);

	/*
	 * A task past its exit tracepoint (closing its files, say) would
	 * leave a watch of its stack that nothing ends with it.
	 */
	if (stack && (current->flags & PF_EXITING)) {
		atomic_long_inc(&trig->refused);
		goto give_up;
	}
	if (!ksym_dyn_claim_won(trig, d, obj))
		goto give_up;
	WRITE_ONCE(d->stack, stack);
	WRITE_ONCE(d->deadline, ksym_dyn_deadline(stack));
	/*
	 * Whose stack and when stale before @obj: pairs with the smp_rmb()
	 * of ksym_dyn_end_expired() and ksym_dyn_task_exit(), which read
	 * @obj first.
	 */
	smp_wmb();
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

/**
 * ksym_dyn_watching - whether a slot of a trigger arms or watches an object
 * @trig: the trigger
 * @obj:  the object's address
 *
 * From the trigger, any context: an object already watched by the trigger
 * is not watched twice. A stack watch of it past its time ends here (the
 * call it was armed for is gone): the object is watched anew.
 *
 * Return: true if one of @trig's slots is arming for @obj or watches it.
 */
bool ksym_dyn_watching(struct ksym_trigger *trig, unsigned long obj)
{
	struct ksym_dyn *d;
	int i, s;

	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		s = ksym_ctl_state(ksym_dyn_ctl(d));
		if ((s == KSYM_DYN_ARMING || s == KSYM_DYN_LIVE) &&
		    READ_ONCE(d->obj) == obj && !ksym_dyn_end_expired(d)) {
			/* A call at the same address: its own time. */
			if (READ_ONCE(d->deadline))
				WRITE_ONCE(d->deadline,
					   ksym_dyn_deadline(READ_ONCE(d->stack)));
			return true;
		}
	}
	return false;
}

/**
 * ksym_dyn_unwatch - end the watches of an object, for a ksym_unwatch
 * @tr:  the instance of the unwatch trigger: only its triggers' watches end
 * @obj: the object's address
 *
 * From the trigger, in an RCU read-side section (a tracepoint). Each
 * watch ended is counted in its trigger's unwatched.
 */
void ksym_dyn_unwatch(const struct trace_array *tr, unsigned long obj)
{
	struct ksym_dyn *d;

	list_for_each_entry_rcu(d, &ksym_dyns, node)
		if (d->trig->tr == tr && ksym_dyn_end(d, obj))
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
 * ksym_dyn_stray - from the hit path: is this hit none of the object's?
 * @dyn:  the slot
 * @bp:   its breakpoint that hit, on this CPU
 * @regs: the registers of the access
 *
 * From the debug exception. A hit on an address the slot no longer
 * watches (its watch ended, or moved to another object, before this
 * CPU's breakpoint moved) is counted late. A stack watch past its time
 * ends at its hit, counted stale. A parked breakpoint watches a word of
 * ksym_dyn_parking, which nothing stores to: its hit is no object's. It
 * is counted apart (the Stray column of trace_stat/ksym_triggers); the
 * first of a write-only slot is reported on the console with what the
 * hardware holds and the accessing context's callchain, as no write
 * should have hit (a read may: kmemleak scans .bss). The report is taken
 * into this CPU's buffer here and printed from an irq_work: nothing is
 * formatted in the exception, which may have come with the console's
 * locks held (arm64's is not in_nmi()).
 *
 * Return: true if the hit must not be counted or recorded.
 */
bool ksym_dyn_stray(struct ksym_dyn *dyn, struct perf_event *bp,
		    struct pt_regs *regs)
{
	unsigned long addr = bp->attr.bp_addr;
	struct ksym_stray_report *r;

	if (likely(addr != dyn->parking)) {
		if (likely(addr == READ_ONCE(dyn->want)))
			return unlikely(READ_ONCE(dyn->stack)) &&
			       ksym_dyn_end_expired(dyn);
		/* An object whose watch ended, this CPU not moved yet. */
		atomic_long_inc(&dyn->trig->late);
		return true;
	}
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
	d->want = bp->attr.bp_addr;
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
 * ksym_dyn_test_watch - for KUnit: a new slot's watch, as hits see it
 * @trig: the slot's trigger (its length and access)
 * @d:    set to the slot, for ksym_dyn_free()
 *
 * Return: the slot's watch, or NULL.
 */
struct ksym_watch *ksym_dyn_test_watch(struct ksym_trigger *trig,
				       struct ksym_dyn **d)
{
	*d = ksym_dyn_alloc(trig, "ksym_test_watch");
	return *d ? &(*d)->watch : NULL;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_watch);

/**
 * ksym_dyn_test_reclaim - for KUnit: a slot taken again while it ends
 * @late:  the trigger's late count after a hit of the old object
 * @stale: its stale count after a hit of a stack watch past its time
 *
 * A trigger of one slot of its own, never registered, whose CPUs are
 * still moving off object A (ENDING, as after an unwatch on a machine
 * whose other CPUs have not moved yet). A claim for object B takes it
 * and arms it; a hit of A's address on a CPU not moved yet is late and
 * not counted, one of B's is counted. Then B is made a stack watch past
 * its time: its next hit ends it, counted stale.
 *
 * Return: 0, or -ENOMEM, or -EINVAL at the first step that was not so.
 */
int ksym_dyn_test_reclaim(long *late, long *stale)
{
	struct ksym_trigger *trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	struct perf_event *bp = kzalloc(sizeof(*bp), GFP_KERNEL);
	unsigned long a = (unsigned long)&ksym_dyn_parked;
	unsigned long b = a + sizeof(long), gen;
	struct ksym_dyn *d = NULL;
	struct pt_regs regs;
	int ret = -ENOMEM;

	if (!trig || !bp)
		goto out;
	trig->len = sizeof(long);
	trig->access = HW_BREAKPOINT_W;
	d = ksym_dyn_alloc(trig, "ksym_test_reclaim");
	if (!d)
		goto out;
	trig->slots[0] = d;
	trig->nr_slots = 1;
	d->obj = a;
	WRITE_ONCE(d->want, d->parking);
	atomic_long_set(&d->ctl, ksym_ctl(5, KSYM_DYN_ENDING));
	bp->attr.bp_type = HW_BREAKPOINT_W;
	bp->attr.bp_addr = a;
	perf_fetch_caller_regs(&regs);
	ret = -EINVAL;
	preempt_disable();
	if (ksym_dyn_claim(trig, b, &gen) != d || gen != 5 ||
	    !ksym_dyn_arm(trig, d, gen, b, b) ||
	    ksym_ctl_state(ksym_dyn_ctl(d)) != KSYM_DYN_LIVE ||
	    !ksym_dyn_stray(d, bp, &regs))
		goto out_preempt;
	bp->attr.bp_addr = b;
	if (ksym_dyn_stray(d, bp, &regs))
		goto out_preempt;
	/* Armed on this CPU's stack? Not here: b is in .bss. */
	if (READ_ONCE(d->stack) || READ_ONCE(d->deadline))
		goto out_preempt;
	WRITE_ONCE(d->stack, (unsigned long)task_stack_page(current));
	WRITE_ONCE(d->deadline, (jiffies - 3) | 1);
	if (!ksym_dyn_stray(d, bp, &regs) ||
	    ksym_ctl_state(ksym_dyn_ctl(d)) == KSYM_DYN_LIVE)
		goto out_preempt;
	ret = 0;
out_preempt:
	preempt_enable();
	*late = atomic_long_read(&trig->late);
	*stale = atomic_long_read(&trig->stale);
out:
	ksym_dyn_test_sync_kicks();
	ksym_dyn_free(d);
	kfree(bp);
	kfree(trig);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_reclaim);

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
		/*
		 * The end moved this CPU at a new generation of the same
		 * arming: the object's own count stays (its profile row),
		 * retired only by the next object's arming (review L7).
		 */
		if (ksym_watch_hits(&d->watch, smp_processor_id()) != hits)
			goto out_preempt;
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

/*
 * A test slot (ksym_dyn_test_slot()) with this CPU's breakpoint, on its
 * parking word. Return: the slot, or NULL with @ret the errno (the slot
 * then freed).
 */
static struct ksym_dyn *ksym_dyn_test_slot_bp(int *cpu, struct perf_event **bp,
					      int *ret)
{
	struct ksym_dyn *d = ksym_dyn_test_slot(cpu);

	*ret = -ENOMEM;
	if (!d)
		return NULL;
	*ret = ksym_dyn_bp_create(d, *cpu, 0);
	if (*ret) {
		ksym_dyn_test_slot_free(d, *cpu);
		return NULL;
	}
	*bp = *per_cpu_ptr(d->watch.bps, *cpu);
	return d;
}

/* Claim @obj for @d and arm it there, preemption off. */
static bool ksym_dyn_test_arm(struct ksym_dyn *d, unsigned long obj)
{
	unsigned long gen;

	return ksym_dyn_claim(d->trig, obj, &gen) == d &&
	       ksym_dyn_arm(d->trig, d, gen, obj, obj);
}

/* One apply on this CPU, interrupts off as in the irq_work. */
static void ksym_dyn_test_apply(struct ksym_dyn *d)
{
	local_irq_disable();
	ksym_dyn_apply(d);
	local_irq_enable();
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
 * not in the expected state (without @fail: not on the parking word).
 */
int ksym_dyn_test_park_fail(bool fail, bool *off, unsigned long *addr)
{
	unsigned long obj = (unsigned long)&ksym_dyn_test_obj[0];
	struct perf_event *bp;
	struct ksym_dyn *d;
	int cpu, ret;

	d = ksym_dyn_test_slot_bp(&cpu, &bp, &ret);
	if (!d)
		return ret;
	ret = -EINVAL;
	preempt_disable();
	if (!ksym_dyn_test_arm(d, obj))
		goto out_preempt;
	ksym_dyn_test_apply(d);
	if (bp->attr.bp_addr != obj)
		goto out_preempt;
	d->test_park_fails = fail;
	if (!ksym_dyn_end(d, obj))
		goto out_preempt;
	ksym_dyn_test_apply(d);
	*off = READ_ONCE(bp->state) <= PERF_EVENT_STATE_OFF;
	*addr = bp->attr.bp_addr;
	/* A park that works is on the parking word (a no-op move is not). */
	if (!fail && *addr != d->parking)
		goto out_preempt;
	ret = 0;
out_preempt:
	preempt_enable();
	ksym_dyn_test_slot_free(d, cpu);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_park_fail);

/**
 * ksym_dyn_test_busy - for KUnit: a slot whose moves stay refused (-EBUSY)
 * @tries: the applies after the arm (whose own move is the first tried)
 *         until the slot's object was given up (refused)
 * @moved: this CPU's breakpoint left its parking word meanwhile
 * @reset: this CPU's count of refusals in a row is back to 0 after
 *
 * As if the debug registers never became the kernel's again (review L-H):
 * the move must be retried, then given up as refused after a bound.
 *
 * Return: 0, or a negative errno.
 */
int ksym_dyn_test_busy(unsigned int *tries, bool *moved, bool *reset)
{
	unsigned long obj = (unsigned long)&ksym_dyn_test_obj[0];
	struct perf_event *bp;
	struct ksym_dyn *d;
	int cpu, ret;

	d = ksym_dyn_test_slot_bp(&cpu, &bp, &ret);
	if (!d)
		return ret;
	ret = -EINVAL;
	preempt_disable();
	d->test_busy = true;
	if (!ksym_dyn_test_arm(d, obj))
		goto out_preempt;
	for (*tries = 0; *tries < 4 * KSYM_DYN_BUSY_TRIES && !READ_ONCE(d->bad);
	     (*tries)++)
		ksym_dyn_test_apply(d);
	*moved = bp->attr.bp_addr != d->parking;
	*reset = !this_cpu_read(ksym_dyn_busy);
	ret = 0;
out_preempt:
	d->test_busy = false;
	preempt_enable();
	ksym_dyn_test_slot_free(d, cpu);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_dyn_test_busy);

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

/*
 * A task exits: the watches of words on its stack end, counted stale.
 * The tracepoint runs in the task (do_exit()), its stack still its own,
 * with preemption off: an RCU read-side section. A slot that moves
 * meanwhile to another object is not ended: ksym_dyn_end() compares the
 * object read first.
 */
static void ksym_dyn_task_exit(void *data, struct task_struct *p)
{
	unsigned long base = (unsigned long)task_stack_page(p), obj;
	struct ksym_dyn *d;

	list_for_each_entry_rcu(d, &ksym_dyns, node) {
		obj = READ_ONCE(d->obj);
		/* Pairs with ksym_dyn_arm(): @obj's own owner, or a later one. */
		smp_rmb();
		if (READ_ONCE(d->stack) == base && ksym_dyn_end(d, obj))
			atomic_long_inc(&d->trig->stale);
	}
}

/**
 * ksym_dyn_init - what the slots need from boot on
 *
 * The end of stack watches at their task's exit. Registered once, not
 * with the first slot: the slots are registered under ksym_mutex, which
 * the CPU hotplug callbacks take inside cpus_read_lock(), and a
 * tracepoint's registration takes that lock too.
 *
 * Return: 0, or the tracepoint's error.
 */
int __init ksym_dyn_init(void)
{
	return register_trace_sched_process_exit(ksym_dyn_task_exit, NULL);
}

/* ------------------------------------------------------------------------
 * Slots: registered and released by the triggers' work items.
 */

/**
 * ksym_dyn_free - free a slot
 * @d: the slot, its breakpoints released (or never registered); or NULL
 */
void ksym_dyn_free(struct ksym_dyn *d)
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

/**
 * ksym_dyn_alloc - a new slot of a trigger, parked and without breakpoints
 * @trig: the trigger: its length and access
 * @name: what events and profiles call the watched field
 *
 * Return: the slot, OFF until ksym_dyn_register_all(), or NULL.
 */
struct ksym_dyn *ksym_dyn_alloc(struct ksym_trigger *trig, const char *name)
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
	d->watch.id = ksym_watch_new_id();
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

/**
 * ksym_dyn_register_all - register a trigger's slots, parked
 * @trig: the trigger, its slots allocated
 *
 * From the trigger's work item: each slot gets its breakpoint on every
 * online CPU, on its parking word, joins ksym_dyns and is PARKED. Stops at
 * the first slot that cannot; the slots registered are counted in
 * @trig->nr_live_slots.
 *
 * Return: 0, or the error of the slot that could not be registered.
 */
int ksym_dyn_register_all(struct ksym_trigger *trig)
{
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
	return ret;
}

/**
 * ksym_dyn_release_all - switch a trigger's slots off and free them
 * @trig: the trigger, off its event's list
 *
 * From the trigger's work item. Waits until the triggers, irq_works and
 * hit handlers that may still see the slots are done.
 */
void ksym_dyn_release_all(struct ksym_trigger *trig)
{
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
}
