// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_watch.c - the ksym tracer's watch set: one perf breakpoint per
 * watch and CPU, changed by writes to ksym_trace_filter all or nothing,
 * armed while consumers exist, and kept right across CPU hotplug and module
 * unload. Lock rules: see trace_ksym.h.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/cpu.h>
#include <linux/cpufeature.h>
#include <linux/cpuhotplug.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include <kunit/visibility.h>

#include "trace.h"
#include "trace_ksym.h"

/* The watch set and everything that changes it: see trace_ksym.h. */
DEFINE_MUTEX(ksym_mutex);
EXPORT_SYMBOL_IF_KUNIT(ksym_mutex);
LIST_HEAD(ksym_watches);
EXPORT_SYMBOL_IF_KUNIT(ksym_watches);
static unsigned int ksym_nr_watches;
static bool ksym_armed;

/*
 * Consumers: ksym tracepoints in use and the ksym tracer, and those of them
 * that want branch snippets. The tracepoint core tells us under event_mutex
 * (and tracepoints_mutex), and the tracer's callbacks run under
 * trace_types_lock, where perf_event_enable() must not be called: perf
 * takes a context's mutex and then event_mutex (a forking task inheriting a
 * tracepoint event), and lockdep does not tell that task context from the
 * CPU context of our breakpoints. So ksym_arm_work applies the counts,
 * and the task whose write or perf_event_open() brought a consumer waits
 * for it on its way back to user space, with no lock held
 * (ksym_arm_soon()); ksym_sync_arming() waits for it too.
 */
atomic_t ksym_consumers = ATOMIC_INIT(0);
atomic_t ksym_branch_users = ATOMIC_INIT(0);

/* Hits per second per CPU above which a watch is disarmed; 0: no limit. */
u64 ksym_max_hit_rate = 1000000;

static void ksym_hot_workfn(struct work_struct *work);
static DECLARE_WORK(ksym_hot_work, ksym_hot_workfn);

static void ksym_hot_irq_workfn(struct irq_work *work)
{
	schedule_work(&ksym_hot_work);
}

static DEFINE_IRQ_WORK(ksym_hot_irq_work, ksym_hot_irq_workfn);

/**
 * ksym_watch_too_hot - from the hit path: disarm a watch that is too hot
 * @watch: the watch
 * @bp:    its breakpoint that hit, on this CPU
 *
 * NMI-safe: stops this CPU's breakpoint at once and leaves the other CPUs
 * and the error_log line to ksym_hot_work, through an irq_work.
 */
void ksym_watch_too_hot(struct ksym_watch *watch, struct perf_event *bp)
{
	/* A trigger's watch ends, and its slot serves the next object. */
	if (watch->dyn) {
		ksym_dyn_too_hot(watch->dyn);
		return;
	}
	perf_event_disable_inatomic(bp);
	if (READ_ONCE(watch->hot))
		return;
	WRITE_ONCE(watch->hot, true);
	irq_work_queue(&ksym_hot_irq_work);
}

/* ------------------------------------------------------------------------
 * Breakpoints: one perf event per watch and CPU.
 */

/*
 * Writes reserve the slot with the breakpoint disabled; consumers enable it
 * (ksym_set_armed), and a write enables what it changed only once all of
 * it succeeded (ksym_txn_commit).
 */
static void ksym_fill_attr(struct perf_event_attr *attr,
			   const struct ksym_spec *spec, int cpu, bool disabled)
{
	hw_breakpoint_init(attr);
	/* A per-CPU watch: each CPU watches its own copy. */
	attr->bp_addr = ksym_spec_addr(spec, cpu);
	attr->bp_len = spec->len;
	attr->bp_type = spec->access;
	attr->disabled = disabled;
}

static bool ksym_spec_on_cpu(const struct ksym_spec *spec, int cpu)
{
	return spec->all_cpus || cpumask_test_cpu(cpu, &spec->cpus);
}

/*
 * arm64 without LSE atomics updates atomics and locks with LDXR/STXR
 * loops: a hit on the store-exclusive returns through an exception, which
 * clears the exclusive monitor, so the store fails and the loop traps
 * again, forever (perf's breakpoints too). Said once, at the first watch.
 */
static void ksym_warn_llsc(void)
{
#ifdef CONFIG_ARM64
	if (!IS_ENABLED(CONFIG_ARM64_LSE_ATOMICS) ||
	    !cpus_have_final_cap(ARM64_HAS_LSE_ATOMICS))
		pr_warn_once("no LSE atomics: a watch on a word that atomics or locks update (LDXR/STXR loops) livelocks at its first store\n");
#endif
}

/**
 * ksym_bp_create - register a watch's breakpoint on one CPU
 * @watch:    the watch, whose bps slot of @cpu is empty
 * @spec:     what to watch
 * @cpu:      an online CPU
 * @disabled: register it disabled (it still takes its slot)
 *
 * Return: 0, or the breakpoint core's error (-ENOSPC: no free slot).
 */
int ksym_bp_create(struct ksym_watch *watch, const struct ksym_spec *spec,
		   int cpu, bool disabled)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	/*
	 * Created disabled: arm64 traps before the access and steps over it
	 * only for a handler that asks, which must be asked before the
	 * breakpoint can hit (else the access traps forever).
	 */
	ksym_fill_attr(&attr, spec, cpu, true);
	bp = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      ksym_hit_handler, watch);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	WRITE_ONCE(bp->hw.bp_step_over, true);
#ifdef CONFIG_ARM64
	/* The new value is read once the access is done. */
	WRITE_ONCE(bp->hw.bp_stepped, ksym_hit_stepped);
#endif
	ksym_warn_llsc();
	/* Read locklessly by the trigger slots' irq_work. */
	WRITE_ONCE(*per_cpu_ptr(watch->bps, cpu), bp);
	if (!disabled) {
		/*
		 * A CPU's own copy; a shared one is kept by the other CPUs'
		 * hits (and read when the watch is armed: ksym_watch_seed_all()).
		 */
		if (spec->percpu)
			ksym_watch_seed(watch, cpu);
		perf_event_enable(bp);
	}
	return 0;
}

/**
 * ksym_bp_release - unregister a watch's breakpoint on one CPU, if any
 * @watch: the watch
 * @cpu:   the CPU
 */
void ksym_bp_release(struct ksym_watch *watch, int cpu)
{
	struct perf_event **slot = per_cpu_ptr(watch->bps, cpu);
	struct perf_event *bp = *slot;

	/* Gone for the trigger slots' irq_work before it is freed. */
	if (bp) {
		WRITE_ONCE(*slot, NULL);
		unregister_hw_breakpoint(bp);
	}
}

static void ksym_bp_set_enabled(struct perf_event *bp, bool enabled)
{
	if (enabled)
		perf_event_enable(bp);
	else
		perf_event_disable(bp);
}

/*
 * A watch about to be armed: the value each copy holds, for the first
 * hit's old value (ksym_last). Read before any of its breakpoints is on:
 * this CPU's would take the read of an rw- watch as a hit.
 */
static void ksym_watch_seed_all(struct ksym_watch *watch)
{
	int cpu;

	if (!watch->spec.percpu) {
		ksym_watch_seed(watch, raw_smp_processor_id());
		return;
	}
	for_each_possible_cpu(cpu)
		ksym_watch_seed(watch, cpu);
}

/*
 * Changed in place, or off for a while (a failed write undone): nothing
 * known before the next hit.
 */
static void ksym_watch_forget(struct ksym_watch *watch)
{
	int cpu;

	if (!watch->spec.percpu) {
		ksym_last_seed(&watch->last_one, 0, 0);
		return;
	}
	for_each_possible_cpu(cpu)
		ksym_last_seed(per_cpu_ptr(watch->last_pcpu, cpu), 0, 0);
}

static int ksym_bp_modify(struct ksym_watch *watch,
			  const struct ksym_spec *spec, int cpu, bool disabled)
{
	struct perf_event *bp = *per_cpu_ptr(watch->bps, cpu);
	struct perf_event_attr attr;
	int ret;

	ksym_fill_attr(&attr, spec, cpu, disabled);
	ret = modify_user_hw_breakpoint(bp, &attr);
	/*
	 * On failure the event keeps its old settings but may be left
	 * enabled or disabled according to its creation-time attr: put it
	 * back as the watch set wants it.
	 */
	if (ret) {
		ksym_watch_forget(watch);
		ksym_bp_set_enabled(bp, ksym_armed && !READ_ONCE(watch->hot));
	}
	return ret;
}

/**
 * ksym_watch_missing - online CPUs of a watch without their breakpoint
 * @watch:   the watch, under ksym_mutex
 * @missing: where to put those CPUs, or NULL
 *
 * A slot can be taken by ptrace or perf while a failed write was undone,
 * or be missing when a CPU came online with no free slot.
 *
 * Return: how many CPUs miss their breakpoint.
 */
int ksym_watch_missing(struct ksym_watch *watch, struct cpumask *missing)
{
	int cpu, nr = 0;

	if (missing)
		cpumask_clear(missing);
	for_each_online_cpu(cpu) {
		if (ksym_spec_on_cpu(&watch->spec, cpu) &&
		    !*per_cpu_ptr(watch->bps, cpu)) {
			nr++;
			if (missing)
				cpumask_set_cpu(cpu, missing);
		}
	}
	return nr;
}

/* Every online CPU of the watch has its breakpoint. */
static bool ksym_watch_complete(struct ksym_watch *watch)
{
	return !ksym_watch_missing(watch, NULL);
}

/**
 * ksym_watch_new_id - an id for a new watch, unique for the boot
 *
 * Every struct ksym_watch takes one, those of ksym_trace_filter and the
 * trigger slots' alike: a watch freed and another allocated at the same
 * address (or whose breakpoint lands at the freed one's) are told apart
 * by it (arm64's pending hits, ksym_hit_stepped()).
 *
 * Return: the id, never 0.
 */
u64 ksym_watch_new_id(void)
{
	static atomic64_t ksym_watch_ids;

	return atomic64_inc_return(&ksym_watch_ids);
}

static struct ksym_watch *ksym_watch_alloc(const struct ksym_spec *spec)
{
	struct ksym_watch *watch;

	watch = kzalloc(sizeof(*watch), GFP_KERNEL);
	if (!watch)
		return NULL;
	watch->bps = alloc_percpu(struct perf_event *);
	watch->stats = alloc_percpu(struct ksym_cpu_stats);
	/* A watch keeps its target: per-CPU it stays. */
	if (spec->percpu)
		watch->last_pcpu = alloc_percpu(struct ksym_last);
	if (!watch->bps || !watch->stats ||
	    (spec->percpu && !watch->last_pcpu)) {
		free_percpu(watch->bps);
		free_percpu(watch->stats);
		free_percpu(watch->last_pcpu);
		kfree(watch);
		return NULL;
	}
	watch->spec = *spec;
	watch->id = ksym_watch_new_id();
	return watch;
}

/* Caller has released every breakpoint of @watch and waited for RCU. */
static void ksym_watch_free(struct ksym_watch *watch)
{
	free_percpu(watch->bps);
	free_percpu(watch->stats);
	free_percpu(watch->last_pcpu);
	kfree(watch);
}

/**
 * ksym_watch_release_all - unregister every breakpoint of a watch
 * @watch: the watch; its hit handlers may run until an RCU grace period
 *         has passed
 */
void ksym_watch_release_all(struct ksym_watch *watch)
{
	int cpu;

	for_each_possible_cpu(cpu)
		ksym_bp_release(watch, cpu);
}

/* Enable or disable every breakpoint: consumers come and go. */
static void ksym_set_armed(bool armed)
{
	struct ksym_watch *watch;
	struct perf_event *bp;
	int cpu;

	lockdep_assert_held(&ksym_mutex);
	if (ksym_armed == armed)
		return;
	ksym_armed = armed;
	list_for_each_entry(watch, &ksym_watches, list) {
		if (armed && READ_ONCE(watch->hot))
			continue;
		if (armed)
			ksym_watch_seed_all(watch);
		for_each_possible_cpu(cpu) {
			bp = *per_cpu_ptr(watch->bps, cpu);
			if (bp)
				ksym_bp_set_enabled(bp, armed);
		}
	}
}

/*
 * Disarm, on every CPU, the watches the hit path found too hot, and say so
 * in error_log, once per watch until it is written again.
 */
static void ksym_hot_workfn(struct work_struct *work)
{
	char *buf = kmalloc(KSYM_ENTRY_MAX, GFP_KERNEL);
	struct ksym_watch *watch;
	struct perf_event *bp;
	int cpu;

	cpus_read_lock();
	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list) {
		if (!READ_ONCE(watch->hot) || watch->hot_logged)
			continue;
		watch->hot_logged = true;
		for_each_possible_cpu(cpu) {
			bp = *per_cpu_ptr(watch->bps, cpu);
			if (bp)
				ksym_bp_set_enabled(bp, false);
		}
		if (buf) {
			ksym_spec_format(buf, KSYM_ENTRY_MAX, &watch->spec);
			ksym_log(buf, KSYM_ERR_TOO_HOT, 0);
		}
		pr_warn("%s: over %llu hits/s on a CPU: disarmed\n",
			watch->spec.target, ksym_max_hit_rate);
	}
	mutex_unlock(&ksym_mutex);
	cpus_read_unlock();
	kfree(buf);
}

/* Arm or disarm, and start or stop branch snippets, as the counts say. */
static void ksym_arm_workfn(struct work_struct *work)
{
	ksym_branches_update(atomic_read(&ksym_branch_users) > 0);

	cpus_read_lock();
	mutex_lock(&ksym_mutex);
	ksym_set_armed(atomic_read(&ksym_consumers) > 0);
	mutex_unlock(&ksym_mutex);
	cpus_read_unlock();
}

DECLARE_WORK(ksym_arm_work, ksym_arm_workfn);

/**
 * ksym_sync_arming - wait until the watches are armed as the consumers say
 *
 * Never with a
 * tracing lock held: the work takes perf context mutexes, and perf takes
 * ctx->mutex before event_mutex (inheriting a tracepoint event at fork),
 * while the tracing core holds event_mutex and trace_types_lock (taken
 * after event_mutex) around every tracer callback. So the tracer's
 * callbacks only schedule the work, and opening ksym_trace_filter, with no
 * lock held, is where a user waits for it.
 */
void ksym_sync_arming(void)
{
	flush_work(&ksym_arm_work);
}

/* The task that brought a consumer waits for the arming: ksym_arm_soon(). */
struct ksym_arm_wait {
	struct callback_head	twork;
};

static void ksym_arm_wait_fn(struct callback_head *head)
{
	flush_work(&ksym_arm_work);
	kfree(container_of(head, struct ksym_arm_wait, twork));
}

/**
 * ksym_arm_soon - apply the consumer counts before the caller's syscall returns
 *
 * Called where a consumer comes or goes, under the tracing core's locks
 * (event_mutex, trace_types_lock), where the arming cannot be waited for:
 * it schedules ksym_arm_work and has the calling task wait for it on its
 * way back to user space (task work, no lock held). So "echo ksym >
 * current_tracer", enabling a ksym event, perf_event_open() of one or
 * trace-cmd starting returns with the watches armed, and the next access
 * is recorded. A kernel thread never returns to user space: for it (and
 * if the small allocation fails) the arming is only scheduled. A write
 * made by an io_uring worker completes before the worker runs its task
 * work: armed a moment after the completion.
 */
void ksym_arm_soon(void)
{
	struct ksym_arm_wait *w;

	schedule_work(&ksym_arm_work);
	if (current->flags & (PF_KTHREAD | PF_EXITING))
		return;
	/* Every caller holds a mutex at most: it may sleep. */
	w = kmalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return;
	init_task_work(&w->twork, ksym_arm_wait_fn);
	if (task_work_add(current, &w->twork, TWA_RESUME))
		kfree(w);
}

/**
 * ksym_event_reg - a ksym event got its first probe
 *
 * Called by the tracepoint core (TRACE_EVENT_FN) when the first probe of a
 * ksym event is registered (an instance enabled it, perf or BPF attached)
 * and, through ksym_event_unreg(), when its last one goes: the watches are
 * armed while any ksym event is in use.
 *
 * Return: 0.
 */
int ksym_event_reg(void)
{
	atomic_inc(&ksym_consumers);
	ksym_arm_soon();
	return 0;
}

/**
 * ksym_event_unreg - a ksym event lost its last probe
 */
void ksym_event_unreg(void)
{
	atomic_dec(&ksym_consumers);
	ksym_arm_soon();
}

/* ------------------------------------------------------------------------
 * Applying a write: all entries or none.
 *
 * The entries are folded into the desired watch set first (later entries
 * win), then the breakpoints are changed one CPU at a time, logging how to
 * undo each step. Breakpoints that go away are released first, so that a
 * write can replace a watch even when every debug register is in use. If a
 * step fails, the log is replayed backwards and the watch set is exactly as
 * it was; nothing is published until every step has succeeded.
 */

/* One watch of the desired set. */
struct ksym_want {
	struct ksym_spec	spec;
	struct ksym_watch	*watch;		/* existing, or NULL: new */
	struct ksym_entry	*entry;		/* that asked for it, or NULL */
	bool			keep;		/* exists and is unchanged */
};

enum ksym_undo_op { KSYM_UNDO_CREATE, KSYM_UNDO_RELEASE, KSYM_UNDO_MODIFY,
		   KSYM_NR_UNDO };

/*
 * The undo log of one watch: a CPU bitmap per kind of step. A write
 * touches at most the watches there are plus the ones it adds, so the log
 * is bounded by KSYM_MAX_WATCHES and the number of CPU ids, never by the
 * size of the write.
 */
struct ksym_undo {
	struct ksym_watch	*watch;
	unsigned long		*cpus[KSYM_NR_UNDO];
};

struct ksym_txn {
	struct ksym_want	*want;
	int			nr_want;
	struct ksym_undo	*undo;
	int			nr_undo;
	int			max_undo;
	unsigned long		*bits;		/* the bitmaps of @undo */
	int			lost;		/* not restored by rollback */
};

/*
 * A watch is its address; a per-CPU watch's is an offset into the per-CPU
 * area, never the same watch as a plain address of that number.
 */
static bool ksym_spec_same_addr(const struct ksym_spec *a,
				const struct ksym_spec *b)
{
	return a->addr == b->addr && a->percpu == b->percpu;
}

static struct ksym_want *ksym_txn_find(struct ksym_txn *txn,
				       const struct ksym_spec *spec)
{
	int i;

	for (i = 0; i < txn->nr_want; i++)
		if (ksym_spec_same_addr(&txn->want[i].spec, spec))
			return &txn->want[i];
	return NULL;
}

/* Fold the entries into the desired set, starting from the current one. */
static int ksym_txn_fold(struct ksym_txn *txn, struct ksym_entry *entries,
			 int nr_entries)
{
	struct ksym_watch *watch;
	struct ksym_want *w;
	int i;

	list_for_each_entry(watch, &ksym_watches, list) {
		w = &txn->want[txn->nr_want++];
		w->spec = watch->spec;
		w->watch = watch;
		w->keep = true;
	}

	for (i = 0; i < nr_entries; i++) {
		struct ksym_entry *e = &entries[i];

		switch (e->op) {
		case KSYM_OP_CLEAR:
			txn->nr_want = 0;
			break;
		case KSYM_OP_REMOVE:
			w = ksym_txn_find(txn, &e->spec);
			if (!w)
				return ksym_entry_fail(e, KSYM_ERR_NO_SUCH_WATCH,
						       0, -ENOENT);
			*w = txn->want[--txn->nr_want];
			break;
		case KSYM_OP_SET:
			w = ksym_txn_find(txn, &e->spec);
			if (!w) {
				if (txn->nr_want >= KSYM_MAX_WATCHES)
					return ksym_entry_fail(e,
							KSYM_ERR_TOO_MANY, 0,
							-ENOSPC);
				w = &txn->want[txn->nr_want++];
				w->watch = NULL;
				/*
				 * A watch removed earlier in this write and
				 * set again keeps its breakpoints and counters.
				 */
				list_for_each_entry(watch, &ksym_watches, list)
					if (ksym_spec_same_addr(&watch->spec,
								&e->spec))
						w->watch = watch;
			}
			w->spec = e->spec;
			w->entry = e;
			/* Unchanged, and not missing a CPU (see hotplug). */
			w->keep = w->watch &&
				  ksym_spec_equal(&w->spec, &w->watch->spec) &&
				  ksym_watch_complete(w->watch) &&
				  !READ_ONCE(w->watch->hot);
			break;
		}
	}
	return 0;
}

static void ksym_txn_log(struct ksym_txn *txn, enum ksym_undo_op op,
			 struct ksym_watch *watch, int cpu)
{
	struct ksym_undo *u;
	int i;

	for (i = 0; i < txn->nr_undo; i++)
		if (txn->undo[i].watch == watch)
			break;
	if (i == txn->nr_undo) {
		if (WARN_ON_ONCE(i == txn->max_undo))
			return;
		txn->nr_undo++;
		txn->undo[i].watch = watch;
	}
	u = &txn->undo[i];
	__set_bit(cpu, u->cpus[op]);
}

/*
 * Undo what ksym_txn_apply() did: first drop what it created and put back
 * what it modified, which frees the slots taken, then re-create what it
 * released. Specs of existing watches are unchanged. Returns the number of
 * breakpoints that could not be put back (someone, ptrace or perf, took
 * the slot in between): those watches are now incomplete, which the
 * read-back and trace_stat show.
 */
static int ksym_txn_rollback(struct ksym_txn *txn)
{
	struct ksym_undo *u;
	int i, cpu, ret, lost = 0;

	for (i = txn->nr_undo - 1; i >= 0; i--) {
		u = &txn->undo[i];
		for_each_set_bit(cpu, u->cpus[KSYM_UNDO_CREATE], nr_cpu_ids)
			ksym_bp_release(u->watch, cpu);
		for_each_set_bit(cpu, u->cpus[KSYM_UNDO_MODIFY], nr_cpu_ids) {
			ret = ksym_bp_modify(u->watch, &u->watch->spec, cpu,
					     !ksym_armed ||
					     READ_ONCE(u->watch->hot));
			if (ret) {
				/* Old settings kept, new ones refused: drop. */
				ksym_bp_release(u->watch, cpu);
				lost++;
			}
		}
	}
	for (i = txn->nr_undo - 1; i >= 0; i--) {
		u = &txn->undo[i];
		for_each_set_bit(cpu, u->cpus[KSYM_UNDO_RELEASE], nr_cpu_ids) {
			/* As it was: a watch found too hot stays off. */
			ret = ksym_bp_create(u->watch, &u->watch->spec, cpu,
					     !ksym_armed ||
					     READ_ONCE(u->watch->hot));
			if (ret) {
				pr_warn("could not restore %s on CPU %d: %d\n",
					u->watch->spec.target, cpu, ret);
				lost++;
			}
		}
	}
	/* Off for a while, writes were not seen: after the undo (ksym_last). */
	for (i = 0; i < txn->nr_undo; i++) {
		u = &txn->undo[i];
		if (!bitmap_empty(u->cpus[KSYM_UNDO_MODIFY], nr_cpu_ids) ||
		    !bitmap_empty(u->cpus[KSYM_UNDO_RELEASE], nr_cpu_ids))
			ksym_watch_forget(u->watch);
	}
	txn->nr_undo = 0;
	return lost;
}

static bool ksym_txn_wants(struct ksym_txn *txn, struct ksym_watch *watch)
{
	int i;

	for (i = 0; i < txn->nr_want; i++)
		if (txn->want[i].watch == watch)
			return true;
	return false;
}

static int ksym_txn_errno_to_err(int ret)
{
	switch (ret) {
	case -ENOSPC:	return KSYM_ERR_NO_SLOT;
	case -ENOMEM:	return KSYM_ERR_NO_MEM;
	}
	return KSYM_ERR_REG_FAILED;
}

/*
 * Change the breakpoints to the desired set. On failure the entry that
 * asked for the failing watch gets the error, and everything is rolled
 * back.
 */
static int ksym_txn_apply(struct ksym_txn *txn, struct list_head *gone)
{
	struct ksym_watch *watch;
	struct ksym_want *w;
	struct perf_event *bp;
	int i, cpu, ret = 0;

	/* 1. Release what goes away: removed watches, CPUs dropped. */
	list_for_each_entry(watch, &ksym_watches, list) {
		w = NULL;
		for (i = 0; i < txn->nr_want; i++)
			if (txn->want[i].watch == watch)
				w = &txn->want[i];
		for_each_online_cpu(cpu) {
			if (!*per_cpu_ptr(watch->bps, cpu))
				continue;
			if (w && ksym_spec_on_cpu(&w->spec, cpu))
				continue;
			ksym_bp_release(watch, cpu);
			ksym_txn_log(txn, KSYM_UNDO_RELEASE, watch, cpu);
		}
	}

	/* 2. Change and create. New watches get their objects here. */
	for (i = 0; i < txn->nr_want; i++) {
		w = &txn->want[i];
		if (w->keep)
			continue;
		if (!w->watch) {
			w->watch = ksym_watch_alloc(&w->spec);
			if (!w->watch) {
				ret = -ENOMEM;
				goto fail;
			}
		}
		for_each_online_cpu(cpu) {
			if (!ksym_spec_on_cpu(&w->spec, cpu))
				continue;
			/* Disabled until the whole write has succeeded. */
			bp = *per_cpu_ptr(w->watch->bps, cpu);
			if (bp) {
				ret = ksym_bp_modify(w->watch, &w->spec, cpu,
						     true);
				if (ret)
					goto fail;
				ksym_txn_log(txn, KSYM_UNDO_MODIFY, w->watch,
					     cpu);
			} else {
				ret = ksym_bp_create(w->watch, &w->spec, cpu,
						     true);
				if (ret)
					goto fail;
				ksym_txn_log(txn, KSYM_UNDO_CREATE, w->watch,
					     cpu);
			}
		}
	}
	return 0;

fail:
	if (w->entry)
		ksym_entry_fail(w->entry, ksym_txn_errno_to_err(ret), 0, ret);
	txn->lost = ksym_txn_rollback(txn);
	/* Objects of watches that were to be new go after an RCU wait. */
	for (i = 0; i < txn->nr_want; i++) {
		watch = txn->want[i].watch;
		if (watch && !watch->list.next)
			list_add(&watch->list, gone);
	}
	return ret;
}

/* Publish the desired set; returns the watches to free after RCU. */
static void ksym_txn_commit(struct ksym_txn *txn, struct list_head *gone)
{
	struct ksym_watch *watch, *tmp;
	int i;

	list_for_each_entry_safe(watch, tmp, &ksym_watches, list) {
		if (!ksym_txn_wants(txn, watch)) {
			list_move(&watch->list, gone);
			ksym_nr_watches--;
		}
	}
	for (i = 0; i < txn->nr_want; i++) {
		struct ksym_want *w = &txn->want[i];
		struct perf_event *bp;
		bool fresh;
		int cpu;

		/* Armed breakpoints of kept watches read their spec: leave it. */
		if (!w->keep) {
			w->watch->spec = w->spec;
			/* Written again: a watch that was too hot is re-armed. */
			if (READ_ONCE(w->watch->hot)) {
				for_each_possible_cpu(cpu)
					per_cpu_ptr(w->watch->stats,
						    cpu)->window_hits = 0;
				WRITE_ONCE(w->watch->hot, false);
				w->watch->hot_logged = false;
			}
		}
		fresh = !w->watch->list.next;
		if (fresh) {
			list_add_tail(&w->watch->list, &ksym_watches);
			ksym_nr_watches++;
		}
		if (w->keep || !ksym_armed)
			continue;
		/*
		 * A watch changed in place may be armed on this CPU, and an rw-
		 * one would take the read as a hit: it forgets instead.
		 */
		if (fresh)
			ksym_watch_seed_all(w->watch);
		else
			ksym_watch_forget(w->watch);
		for_each_online_cpu(cpu) {
			bp = *per_cpu_ptr(w->watch->bps, cpu);
			if (bp)
				perf_event_enable(bp);
		}
	}
}

static void ksym_free_gone(struct list_head *gone)
{
	struct ksym_watch *watch, *tmp;

	if (list_empty(gone))
		return;
	/* Breakpoints are released; wait out handlers still running. */
	synchronize_rcu();
	list_for_each_entry_safe(watch, tmp, gone, list) {
		list_del(&watch->list);
		ksym_watch_free(watch);
	}
}

static void ksym_txn_free(struct ksym_txn *txn)
{
	kvfree(txn->want);
	kvfree(txn->undo);
	kvfree(txn->bits);
}

static int ksym_txn_alloc(struct ksym_txn *txn, int nr_entries)
{
	size_t longs = BITS_TO_LONGS(nr_cpu_ids);
	int i, op;

	/* Existing watches, plus at most KSYM_MAX_WATCHES new ones. */
	txn->max_undo = ksym_nr_watches + KSYM_MAX_WATCHES;
	txn->want = kvcalloc(ksym_nr_watches + nr_entries, sizeof(*txn->want),
			     GFP_KERNEL);
	txn->undo = kvcalloc(txn->max_undo, sizeof(*txn->undo), GFP_KERNEL);
	txn->bits = kvcalloc(array3_size(txn->max_undo, KSYM_NR_UNDO, longs),
			     sizeof(long), GFP_KERNEL);
	if (!txn->want || !txn->undo || !txn->bits) {
		ksym_txn_free(txn);
		return -ENOMEM;
	}
	for (i = 0; i < txn->max_undo; i++)
		for (op = 0; op < KSYM_NR_UNDO; op++)
			txn->undo[i].cpus[op] =
				txn->bits + (i * KSYM_NR_UNDO + op) * longs;
	return 0;
}

static void ksym_log_err(struct ksym_entry *e)
{
	ksym_log(e->text, e->err, e->err_pos);
}

/*
 * Parse and apply the entries, all or none, under ksym_mutex (with the
 * CPUs held), so that what a symbol resolves to is still there when its
 * breakpoints are made. The first bad entry gets the error_log line.
 */
static int ksym_apply_locked(struct ksym_entry *entries, int nr)
{
	struct ksym_entry *failed = NULL;
	struct ksym_txn txn = { };
	LIST_HEAD(gone);
	int i, ret = 0;

	lockdep_assert_cpus_held();
	lockdep_assert_held(&ksym_mutex);

	for (i = 0; i < nr; i++) {
		ret = ksym_parse_entry(&entries[i]);
		if (ret) {
			ksym_log_err(&entries[i]);
			return ret;
		}
	}

	ret = ksym_txn_alloc(&txn, nr);
	if (ret)
		return ret;
	ret = ksym_txn_fold(&txn, entries, nr);
	if (!ret)
		ret = ksym_txn_apply(&txn, &gone);
	if (!ret)
		ksym_txn_commit(&txn, &gone);
	ksym_free_gone(&gone);
	for (i = 0; ret && i < nr; i++)
		if (entries[i].err >= 0)
			failed = &entries[i];
	if (failed)
		ksym_log_err(failed);
	if (txn.lost)
		ksym_log(failed ? failed->text : "", KSYM_ERR_ROLLBACK, 0);
	ksym_txn_free(&txn);
	return ret;
}

/**
 * ksym_entry_end - the end of an entry, or of a trigger's parameter
 * @p: where it starts
 *
 * Return: the next blank, but for spaces and tabs in a cast,
 * "(struct task_struct)init_task.flags:-w-".
 */
char *ksym_entry_end(char *p)
{
	bool in_cast = false;

	for (; *p; p++) {
		if (*p == '(')
			in_cast = true;
		else if (*p == ')')
			in_cast = false;
		else if (ksym_is_blank(*p) &&
			 !(in_cast && (*p == ' ' || *p == '\t')))
			break;
	}
	return p;
}

/**
 * ksym_write_entries - parse and apply one write of ksym_trace_filter
 * @buf: the entries, whitespace-separated, NUL-terminated; modified in place
 *
 * '#' starts a comment that runs to the end of the line. A write with no
 * entry changes nothing: a blank line is not "clear" (ksym_filter_flush()
 * says which empty write is). All entries are applied, or none.
 *
 * Return: the number of entries applied, or a negative errno.
 */
int ksym_write_entries(char *buf)
{
	struct ksym_entry *entries;
	int nr = 0, ret;
	char *p, *tok, *end;

	/* Comments: the read-back marks incomplete watches with one. */
	for (p = strchr(buf, '#'); p; p = strchr(p, '#'))
		for (; *p && *p != '\n'; p++)
			*p = ' ';

	/* Count first: the entries are sized by their number, not by bytes. */
	for (p = buf; *p; ) {
		while (ksym_is_blank(*p))
			p++;
		if (!*p)
			break;
		tok = p;
		p = ksym_entry_end(p);
		if (++nr > KSYM_MAX_ENTRIES) {
			*p = '\0';
			ksym_log(tok, KSYM_ERR_TOO_MANY_ENTRIES, 0);
			return -E2BIG;
		}
	}
	if (!nr)
		return 0;

	entries = kvcalloc(nr, sizeof(*entries), GFP_KERNEL);
	if (!entries)
		return -ENOMEM;
	p = buf;
	nr = 0;
	for (;;) {
		while (ksym_is_blank(*p))
			p++;
		if (!*p)
			break;
		tok = p;
		end = ksym_entry_end(p);
		p = *end ? end + 1 : end;
		*end = '\0';
		entries[nr].text = tok;
		entries[nr].err = -1;
		nr++;
	}

	cpus_read_lock();
	mutex_lock(&ksym_mutex);
	ret = ksym_apply_locked(entries, nr);
	mutex_unlock(&ksym_mutex);
	cpus_read_unlock();

	kvfree(entries);
	return ret ? ret : nr;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_write_entries);

/* ------------------------------------------------------------------------
 * CPU hotplug and module unload
 */

static int ksym_cpu_online(unsigned int cpu)
{
	struct ksym_watch *watch;
	int ret;

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list) {
		if (!ksym_spec_on_cpu(&watch->spec, cpu))
			continue;
		ret = ksym_bp_create(watch, &watch->spec, cpu,
				     !ksym_armed || READ_ONCE(watch->hot));
		if (ret)
			pr_warn("cannot watch %s on CPU %u: %d\n",
				watch->spec.target, cpu, ret);
	}
	ksym_dyn_cpu_online(cpu);
	mutex_unlock(&ksym_mutex);
	return 0;
}

static int ksym_cpu_offline(unsigned int cpu)
{
	struct ksym_watch *watch;

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list)
		ksym_bp_release(watch, cpu);
	ksym_dyn_cpu_offline(cpu);
	mutex_unlock(&ksym_mutex);
	return 0;
}

/*
 * Does @mod's going away (@going), or the freeing of its init sections,
 * take the memory of @spec? A module's per-CPU data is in the per-CPU
 * area, freed with the module.
 */
static bool ksym_watch_in_module(const struct ksym_spec *spec,
				 struct module *mod, bool going)
{
	if (spec->percpu) {
#ifdef CONFIG_SMP
		unsigned long base = (unsigned long)mod->percpu;

		return going && base && spec->addr >= base &&
		       spec->addr < base + mod->percpu_size;
#else
		return false;
#endif
	}
	return going ? within_module(spec->addr, mod) :
		       within_module_init(spec->addr, mod);
}

static int ksym_module_notify(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct module *mod = data;
	struct ksym_watch *watch, *tmp;
	LIST_HEAD(gone);

	bool going = action == MODULE_STATE_GOING;

	/* Going: all its memory goes. Live: its init sections are freed. */
	if (!going && action != MODULE_STATE_LIVE)
		return NOTIFY_DONE;

	cpus_read_lock();
	mutex_lock(&ksym_mutex);
	list_for_each_entry_safe(watch, tmp, &ksym_watches, list) {
		if (!ksym_watch_in_module(&watch->spec, mod, going))
			continue;
		pr_info("module %s %s: removing watch %s\n", mod->name,
			going ? "is going" : "freed its init sections",
			watch->spec.target);
		ksym_watch_release_all(watch);
		list_move(&watch->list, &gone);
		ksym_nr_watches--;
	}
	mutex_unlock(&ksym_mutex);
	cpus_read_unlock();
	ksym_free_gone(&gone);
	return NOTIFY_OK;
}

static struct notifier_block ksym_module_nb = {
	.notifier_call = ksym_module_notify,
};

/**
 * ksym_watch_init - follow CPU hotplug and module unload
 *
 * Return: 0; what cannot be set up is warned about.
 */
int ksym_watch_init(void)
{
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "trace/ksym:online",
					ksym_cpu_online, ksym_cpu_offline);
	if (ret < 0)
		pr_warn("no CPU hotplug support: %d\n", ret);

	ret = register_module_notifier(&ksym_module_nb);
	if (ret)
		pr_warn("no module unload support: %d\n", ret);
	return 0;
}
