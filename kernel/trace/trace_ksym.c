// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym.c - trace accesses to kernel symbols with hardware breakpoints
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

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/kallsyms.h>
#include <linux/uaccess.h>
#include <linux/cpumask.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/ctype.h>
#include <linux/rculist.h>
#include <linux/stacktrace.h>
#include <linux/static_call.h>
#include <linux/ftrace.h>
#include <linux/security.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <asm/sections.h>

#include "trace.h"
#include "trace_stat.h"

static int ksym_event_reg(void);
static void ksym_event_unreg(void);
static int ksym_branches_reg(void);
static void ksym_branches_unreg(void);

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

#define CREATE_TRACE_POINTS
#include <trace/events/ksym.h>

/*
 * Limits. An entry is one TARGET[/LEN]:ACCESS[@CPULIST] token; a write may
 * hold several, and a token may be split over several write() calls.
 */
#define KSYM_ENTRY_MAX		1024	/* longest entry, with its NUL */
#define KSYM_WRITE_MAX		4096	/* most data applied as one write */
#define KSYM_TARGET_MAX		(MODULE_NAME_LEN + KSYM_NAME_LEN + 24)
#define KSYM_MAX_WATCHES	32
#define KSYM_MAX_ENTRIES	(2 * KSYM_MAX_WATCHES)	/* in one write */
#define KSYM_CALLER_SLOTS	16	/* accessor slots per watch and CPU */
#define KSYM_STACK_MAX		64	/* deepest callchain */
#define KSYM_BRANCH_MAX		64	/* longest branch snippet */

#define KSYM_ACCESS_R	HW_BREAKPOINT_R
#define KSYM_ACCESS_W	HW_BREAKPOINT_W
#define KSYM_ACCESS_RW	HW_BREAKPOINT_RW
#define KSYM_ACCESS_X	HW_BREAKPOINT_X

/* The numbers are spelled out in show_ksym_access() for user space. */
static_assert(HW_BREAKPOINT_R == 1 && HW_BREAKPOINT_W == 2 &&
	      HW_BREAKPOINT_RW == 3 && HW_BREAKPOINT_X == 4);

/*
 * x86 debug registers cannot trigger on reads alone: R alone is refused by
 * the arch code at registration. Refuse it while parsing instead, where the
 * caret can point at it.
 */
#ifdef CONFIG_X86
#define KSYM_CAN_WATCH_READS	false
#else
#define KSYM_CAN_WATCH_READS	true
#endif

/* ------------------------------------------------------------------------
 * Data structures
 */

/**
 * struct ksym_spec - what one watch is, as parsed and as shown when read
 * @addr:     first byte watched
 * @len:      bytes watched: 1, 2, 4 or 8
 * @access:   HW_BREAKPOINT_R/W/X bits
 * @all_cpus: no @CPULIST was given: watch on every CPU
 * @has_value: the range is RAM, so the hit path may read the value the
 *            access left; never for device memory, where a read can have
 *            side effects, nor for execute watches
 * @cpus:     CPUs to watch on when !@all_cpus
 * @target:   canonical spelling of the target, e.g. "jiffies_64",
 *            "mod:sym+0x8" or "0xffffffff81234560"
 */
struct ksym_spec {
	unsigned long		addr;
	unsigned int		len;
	unsigned int		access;
	bool			all_cpus;
	bool			has_value;
	struct cpumask		cpus;
	char			target[KSYM_TARGET_MAX];
};

/* Hits of one accessing instruction on one CPU. */
struct ksym_caller {
	unsigned long		ip;
	unsigned long		hits;
};

/*
 * Per-CPU profile of a watch. Only the CPU that takes the hit writes it,
 * from the #DB handler, which cannot nest (DR7 is off while it runs); the
 * stat files sum it up with READ_ONCE and tolerate a hit in flight.
 */
struct ksym_cpu_stats {
	unsigned long		other;	/* callers that found no free slot */
	struct ksym_caller	callers[KSYM_CALLER_SLOTS];
};

/**
 * struct ksym_watch - one watched address and its breakpoints
 * @list:  entry in ksym_watches, under ksym_mutex
 * @spec:  what is watched
 * @bps:   the breakpoint of each CPU it is registered on, or NULL
 * @stats: hit counts, per CPU; kept when the access or CPU list changes
 */
struct ksym_watch {
	struct list_head		list;
	struct ksym_spec		spec;
	struct perf_event * __percpu	*bps;
	struct ksym_cpu_stats __percpu	*stats;
};

/*
 * ksym_mutex serializes the watch set: writes to ksym_trace_filter, arming,
 * CPU hotplug and module unload. Lock order: cpus_read_lock, then
 * ksym_mutex. The hit path takes no lock: a watch is freed only after all
 * its breakpoints are released and an RCU grace period has passed.
 */
static DEFINE_MUTEX(ksym_mutex);
static LIST_HEAD(ksym_watches);
static unsigned int ksym_nr_watches;
static bool ksym_armed;

/*
 * Consumers: ksym tracepoints in use, and those of them that want branch
 * snippets. The tracepoint core tells us under event_mutex (and
 * tracepoints_mutex), where perf_event_enable() must not be called: perf
 * takes a context's mutex and then event_mutex (a forking task inheriting a
 * tracepoint event), and lockdep does not tell that task context from the
 * CPU context of our breakpoints. So ksym_arm_work applies the counts;
 * ksym_sync_arming() waits for it.
 */
static atomic_t ksym_consumers = ATOMIC_INIT(0);
static atomic_t ksym_branch_users = ATOMIC_INIT(0);

/* Settings in tracefs (trace_min_max_fops), under ksym_mutex. */
static u64 ksym_stack_depth = 16;
static u64 ksym_branch_entries = 16;
static u64 ksym_one = 1;
static u64 ksym_stack_max = KSYM_STACK_MAX;
static u64 ksym_branch_max = KSYM_BRANCH_MAX;

/* Per-CPU scratch of the hit path; #DB does not nest on a CPU. */
struct ksym_scratch {
	unsigned long		stack[KSYM_STACK_MAX];
	unsigned long		from_to[2 * KSYM_BRANCH_MAX];
	struct perf_branch_entry lbr[KSYM_BRANCH_MAX];
};

static DEFINE_PER_CPU(struct ksym_scratch, ksym_scratch);

/*
 * Software branch trail: the last function entries (call site -> callee)
 * on each CPU, kept by an ftrace_ops callback while branch snippets are on.
 */
struct ksym_trail {
	unsigned long		head;
	unsigned long		from[KSYM_BRANCH_MAX];
	unsigned long		to[KSYM_BRANCH_MAX];
};

static DEFINE_PER_CPU(struct ksym_trail, ksym_trail);

/*
 * ksym_branch_source: what the user asked for, and what is in use; under
 * ksym_branch_mutex, which is taken before cpus_read_lock.
 */
static DEFINE_MUTEX(ksym_branch_mutex);
enum ksym_branch_mode { KSYM_BRANCH_AUTO, KSYM_BRANCH_HARDWARE,
			KSYM_BRANCH_SOFTWARE };
static enum ksym_branch_mode ksym_branch_mode;
static enum ksym_branch_src ksym_branch_active;
static struct perf_event * __percpu *ksym_lbr_events;

/* ------------------------------------------------------------------------
 * Hit path: runs in the #DB exception, NMI-like. No locks, no allocation.
 */

static unsigned long ksym_regs_flags(struct pt_regs *regs)
{
#ifdef CONFIG_X86
	return regs->flags;
#else
	return 0;
#endif
}

/*
 * Load the watched range as an integer of its size, so that the value is
 * right on either endianness. Only called for RAM (ksym_spec.has_value);
 * the nofault copy still covers memory freed under a watch.
 */
static bool ksym_read_value(unsigned long addr, unsigned int len, u64 *val)
{
	union {
		u8	b;
		u16	h;
		u32	w;
		u64	q;
	} v;

	if (copy_from_kernel_nofault(&v, (void *)addr, len))
		return false;
	switch (len) {
	case 1:
		*val = v.b;
		break;
	case 2:
		*val = v.h;
		break;
	case 4:
		*val = v.w;
		break;
	default:
		*val = v.q;
		break;
	}
	return true;
}

static void ksym_count_hit(struct ksym_cpu_stats *stats, unsigned long ip)
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

/*
 * The callchain from the exception's regs: its first frame is the function
 * that made the access, with no #DB, perf or tracing frame above it.
 */
static void ksym_hit_stack(struct pt_regs *regs)
{
	unsigned long *ips = this_cpu_ptr(&ksym_scratch)->stack;
	unsigned int nr;

	nr = stack_trace_save_regs(regs, ips, READ_ONCE(ksym_stack_depth), 0);
	trace_ksym_stack(ips, nr);
}

/* The last branches before the hit, from the source in use, oldest first. */
static void ksym_hit_branches(void)
{
	struct ksym_scratch *scratch = this_cpu_ptr(&ksym_scratch);
	unsigned int want = READ_ONCE(ksym_branch_entries);
	unsigned long *ft = scratch->from_to;
	enum ksym_branch_src src = READ_ONCE(ksym_branch_active);
	struct ksym_trail *trail;
	unsigned long head, k;
	unsigned int nr = 0;
	int cnt, i;

	if (src == KSYM_BRANCH_HW) {
		/* Newest first in the snapshot; the #DB entry path included. */
		cnt = static_call(perf_snapshot_branch_stack)(scratch->lbr,
							      want);
		for (i = cnt - 1; i >= 0; i--) {
			ft[2 * nr] = scratch->lbr[i].from;
			ft[2 * nr + 1] = scratch->lbr[i].to;
			nr++;
		}
	} else if (src == KSYM_BRANCH_SW) {
		trail = this_cpu_ptr(&ksym_trail);
		head = READ_ONCE(trail->head);
		k = head > want ? head - want : 0;
		for (; k < head; k++) {
			ft[2 * nr] = trail->from[k % KSYM_BRANCH_MAX];
			ft[2 * nr + 1] = trail->to[k % KSYM_BRANCH_MAX];
			nr++;
		}
	}
	trace_ksym_branches(ft, nr, src);
}

static void ksym_hit_handler(struct perf_event *bp,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct ksym_watch *watch = bp->overflow_handler_context;
	struct ksym_hit_rec rec = {
		.addr	= bp->attr.bp_addr,
		.len	= bp->attr.bp_len,
		.access	= bp->attr.bp_type,
		.ip	= instruction_pointer(regs),
		.sp	= kernel_stack_pointer(regs),
		.bp	= frame_pointer(regs),
		.flags	= ksym_regs_flags(regs),
	};

	/*
	 * Data breakpoints trap after the access: this reads the value the
	 * access left. DR7 is cleared while #DB runs, so it cannot recurse.
	 */
	if (READ_ONCE(watch->spec.has_value))
		rec.has_value = ksym_read_value(rec.addr, rec.len, &rec.value);

	ksym_count_hit(this_cpu_ptr(watch->stats), rec.ip);
	trace_ksym_hit(&rec);

#ifdef CONFIG_X86_64
	if (trace_ksym_regs_enabled())
		trace_ksym_regs(regs);
#endif
	if (trace_ksym_stack_enabled())
		ksym_hit_stack(regs);
	if (trace_ksym_branches_enabled())
		ksym_hit_branches();
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
			   const struct ksym_spec *spec, bool disabled)
{
	hw_breakpoint_init(attr);
	attr->bp_addr = spec->addr;
	attr->bp_len = spec->len;
	attr->bp_type = spec->access;
	attr->disabled = disabled;
}

static bool ksym_spec_on_cpu(const struct ksym_spec *spec, int cpu)
{
	return spec->all_cpus || cpumask_test_cpu(cpu, &spec->cpus);
}

static int ksym_bp_create(struct ksym_watch *watch,
			  const struct ksym_spec *spec, int cpu, bool disabled)
{
	struct perf_event_attr attr;
	struct perf_event *bp;

	ksym_fill_attr(&attr, spec, disabled);
	bp = perf_event_create_kernel_counter(&attr, cpu, NULL,
					      ksym_hit_handler, watch);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	*per_cpu_ptr(watch->bps, cpu) = bp;
	return 0;
}

static void ksym_bp_release(struct ksym_watch *watch, int cpu)
{
	struct perf_event **slot = per_cpu_ptr(watch->bps, cpu);

	if (*slot) {
		unregister_hw_breakpoint(*slot);
		*slot = NULL;
	}
}

static void ksym_bp_set_enabled(struct perf_event *bp, bool enabled)
{
	if (enabled)
		perf_event_enable(bp);
	else
		perf_event_disable(bp);
}

static int ksym_bp_modify(struct ksym_watch *watch,
			  const struct ksym_spec *spec, int cpu, bool disabled)
{
	struct perf_event *bp = *per_cpu_ptr(watch->bps, cpu);
	struct perf_event_attr attr;
	int ret;

	ksym_fill_attr(&attr, spec, disabled);
	ret = modify_user_hw_breakpoint(bp, &attr);
	/*
	 * On failure the event keeps its old settings but may be left
	 * enabled or disabled according to its creation-time attr: put it
	 * back as the watch set wants it.
	 */
	if (ret)
		ksym_bp_set_enabled(bp, ksym_armed);
	return ret;
}

/*
 * Online CPUs of the watch without their breakpoint, into @missing when
 * given: a slot taken by ptrace or perf while a failed write was undone,
 * or none free when a CPU came online. Returns how many.
 */
static int ksym_watch_missing(struct ksym_watch *watch,
			      struct cpumask *missing)
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

static struct ksym_watch *ksym_watch_alloc(const struct ksym_spec *spec)
{
	struct ksym_watch *watch;

	watch = kzalloc(sizeof(*watch), GFP_KERNEL);
	if (!watch)
		return NULL;
	watch->bps = alloc_percpu(struct perf_event *);
	watch->stats = alloc_percpu(struct ksym_cpu_stats);
	if (!watch->bps || !watch->stats) {
		free_percpu(watch->bps);
		free_percpu(watch->stats);
		kfree(watch);
		return NULL;
	}
	watch->spec = *spec;
	return watch;
}

/* Caller has released every breakpoint of @watch and waited for RCU. */
static void ksym_watch_free(struct ksym_watch *watch)
{
	free_percpu(watch->bps);
	free_percpu(watch->stats);
	kfree(watch);
}

static void ksym_watch_release_all(struct ksym_watch *watch)
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
		for_each_possible_cpu(cpu) {
			bp = *per_cpu_ptr(watch->bps, cpu);
			if (bp)
				ksym_bp_set_enabled(bp, armed);
		}
	}
}

static void ksym_branches_update(bool on);

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

static DECLARE_WORK(ksym_arm_work, ksym_arm_workfn);

/*
 * Wait until the watches are armed as the consumers say. Never with a
 * tracing lock held: the work takes perf context mutexes, and perf takes
 * ctx->mutex before event_mutex (inheriting a tracepoint event at fork),
 * while the tracing core holds event_mutex and trace_types_lock (taken
 * after event_mutex) around every tracer callback. So the tracer's
 * callbacks only schedule the work, and opening ksym_trace_filter, with no
 * lock held, is where a user waits for it.
 */
static void ksym_sync_arming(void)
{
	flush_work(&ksym_arm_work);
}

/*
 * Called by the tracepoint core when the first probe of a ksym event is
 * registered (an instance enabled it, perf or BPF attached, or the ksym
 * tracer became current), and when its last one goes: the watches are
 * armed while any ksym event is in use.
 */
static int ksym_event_reg(void)
{
	atomic_inc(&ksym_consumers);
	schedule_work(&ksym_arm_work);
	return 0;
}

static void ksym_event_unreg(void)
{
	atomic_dec(&ksym_consumers);
	schedule_work(&ksym_arm_work);
}

/* ------------------------------------------------------------------------
 * Branch snippets: a hardware branch recorder, or the software trail.
 */

static bool ksym_lbr_available(void)
{
	return static_call_query(perf_snapshot_branch_stack) !=
	       (void *)__static_call_return0;
}

static void ksym_lbr_stop(void)
{
	if (ksym_lbr_events)
		unregister_wide_hw_breakpoint(ksym_lbr_events);
	ksym_lbr_events = NULL;
}

/*
 * The recorder runs only while some perf event samples branches: keep one
 * per CPU, counting cycles with a period so long it never overflows.
 * unregister_wide_hw_breakpoint() releases any kind of per-CPU event.
 */
static int ksym_lbr_start(void)
{
	struct perf_event_attr attr = {
		.type			= PERF_TYPE_HARDWARE,
		.config			= PERF_COUNT_HW_CPU_CYCLES,
		.size			= sizeof(attr),
		.sample_period		= 1ULL << 62,
		.sample_type		= PERF_SAMPLE_BRANCH_STACK,
		.branch_sample_type	= PERF_SAMPLE_BRANCH_KERNEL |
					  PERF_SAMPLE_BRANCH_ANY,
		.exclude_user		= 1,
		.pinned			= 1,
	};
	struct perf_event *event;
	int cpu, ret = 0;

	ksym_lbr_events = alloc_percpu(struct perf_event *);
	if (!ksym_lbr_events)
		return -ENOMEM;
	/*
	 * Not under cpus_read_lock: the first branch-sampling event enables
	 * perf's sched_events static key, which takes it again. A CPU going
	 * away meanwhile fails with -ENODEV and is skipped.
	 */
	for_each_online_cpu(cpu) {
		event = perf_event_create_kernel_counter(&attr, cpu, NULL,
							 NULL, NULL);
		if (PTR_ERR_OR_ZERO(event) == -ENODEV)
			continue;
		if (IS_ERR(event)) {
			ret = PTR_ERR(event);
			break;
		}
		*per_cpu_ptr(ksym_lbr_events, cpu) = event;
	}
	if (ret)
		ksym_lbr_stop();
	return ret;
}

#ifdef CONFIG_FUNCTION_TRACER
static void ksym_trail_func(unsigned long ip, unsigned long parent_ip,
			    struct ftrace_ops *op, struct ftrace_regs *fregs)
{
	struct ksym_trail *trail;
	unsigned long i;

	/* Not the #DB handler's own calls (it runs as an NMI), nor NMIs. */
	if (in_nmi())
		return;
	trail = this_cpu_ptr(&ksym_trail);
	i = this_cpu_inc_return(ksym_trail.head) - 1;
	trail->from[i % KSYM_BRANCH_MAX] = parent_ip;
	trail->to[i % KSYM_BRANCH_MAX] = ip;
}

static struct ftrace_ops ksym_trail_ops = {
	.func	= ksym_trail_func,
	.flags	= FTRACE_OPS_FL_RECURSION,
};

static int ksym_trail_start(void)
{
	return register_ftrace_function(&ksym_trail_ops);
}

static void ksym_trail_stop(void)
{
	unregister_ftrace_function(&ksym_trail_ops);
}
#else
static int ksym_trail_start(void)
{
	return -ENODEV;
}

static void ksym_trail_stop(void)
{
}
#endif /* CONFIG_FUNCTION_TRACER */

/* Start the source ksym_branch_mode asks for. Under ksym_branch_mutex. */
static int ksym_branches_start(void)
{
	int ret = -ENODEV;

	if (ksym_branch_mode != KSYM_BRANCH_SOFTWARE && ksym_lbr_available()) {
		ret = ksym_lbr_start();
		if (!ret) {
			ksym_branch_active = KSYM_BRANCH_HW;
			return 0;
		}
	}
	if (ksym_branch_mode == KSYM_BRANCH_HARDWARE)
		return ret;
	ret = ksym_trail_start();
	if (!ret)
		ksym_branch_active = KSYM_BRANCH_SW;
	return ret;
}

static void ksym_branches_stop(void)
{
	if (ksym_branch_active == KSYM_BRANCH_HW)
		ksym_lbr_stop();
	else if (ksym_branch_active == KSYM_BRANCH_SW)
		ksym_trail_stop();
	WRITE_ONCE(ksym_branch_active, KSYM_BRANCH_NONE);
}

/* From ksym_arm_work: snippets are wanted (@on) or not. */
static void ksym_branches_update(bool on)
{
	int ret;

	mutex_lock(&ksym_branch_mutex);
	if (on && ksym_branch_active == KSYM_BRANCH_NONE) {
		ret = ksym_branches_start();
		if (ret)
			pr_warn("no branch snippets: %d\n", ret);
	} else if (!on && ksym_branch_active != KSYM_BRANCH_NONE) {
		ksym_branches_stop();
	}
	mutex_unlock(&ksym_branch_mutex);
}

static int ksym_branches_reg(void)
{
	atomic_inc(&ksym_branch_users);
	return ksym_event_reg();
}

static void ksym_branches_unreg(void)
{
	atomic_dec(&ksym_branch_users);
	ksym_event_unreg();
}

/* ------------------------------------------------------------------------
 * Parser: one entry, TARGET[/LEN]:ACCESS[@CPULIST], into a ksym_spec.
 */

/*
 * Errors of ksym_trace_filter, with their error_log texts: one list makes
 * both the codes and the texts.
 */
#define KSYM_ERRORS							\
	C(BAD_ENTRY,	"Expected TARGET[/LEN]:ACCESS[@CPULIST]"),	\
	C(TOO_LONG,	"Entry is too long"),				\
	C(TOO_MANY_ENTRIES, "Too many entries in one write"),		\
	C(NUL_BYTE,	"NUL byte in the written data"),		\
	C(BAD_ACCESS,	"Access must be one of rw-, -w-, r--, --x or ---"), \
	C(NO_READ_ONLY,	"This CPU cannot watch reads alone: use rw-"),	\
	C(BAD_SYMBOL,	"Invalid character in symbol name"),		\
	C(NO_SYMBOL,	"Unknown symbol"),				\
	C(BAD_OFFSET,	"Invalid offset"),				\
	C(BAD_ADDR,	"Invalid address"),				\
	C(USER_ADDR,	"User-space address: only kernel addresses can be watched"), \
	C(NO_MEMORY_AT,	"No kernel memory at this address"),		\
	C(INIT_FREED,	"Init memory, freed after initialization"),	\
	C(BAD_LEN,	"Length must be 1, 2, 4 or 8"),			\
	C(NEED_LEN,	"Symbol size is not 1, 2, 4 or 8 bytes: give /LEN"), \
	C(MISALIGNED,	"Address is not aligned to the length"),	\
	C(NOT_TEXT,	"--x needs an instruction address"),		\
	C(EXEC_LEN,	"--x watches are sizeof(long) bytes: give no /LEN"), \
	C(BAD_CPULIST,	"Invalid CPU list"),				\
	C(NO_SUCH_WATCH, "No such watch to remove"),			\
	C(TOO_MANY,	"Too many watches"),				\
	C(MODULE_GOING,	"The module of this address is going away"),	\
	C(LOCKDOWN,	"Kernel is locked down: no new watches"),	\
	C(NO_SLOT,	"No free hardware breakpoint slot"),		\
	C(REG_FAILED,	"The breakpoint core refused this watch"),	\
	C(NO_MEM,	"Out of memory"),				\
	C(ROLLBACK,	"Failed write not fully undone: a watch lost CPUs, see ksym_trace_filter")

#undef C
#define C(a, b)		KSYM_ERR_##a
enum ksym_err { KSYM_ERRORS };

/*
 * For error_log: tracing_log_err() keeps a pointer to these. Not "* const":
 * its prototype takes "const char **", as for trace_probe_err_text.
 */
#undef C
#define C(a, b)		b
static const char *ksym_err_text[] = { KSYM_ERRORS };
#undef C

enum ksym_op {
	KSYM_OP_SET,		/* add the watch or change its access/len/CPUs */
	KSYM_OP_REMOVE,		/* TARGET:--- */
	KSYM_OP_CLEAR,		/* 0, *:--- or an empty write */
};

/**
 * struct ksym_entry - one parsed entry of a write
 * @op:      what to do
 * @spec:    the watch, for KSYM_OP_SET and KSYM_OP_REMOVE
 * @text:    the entry as written, NUL-terminated, for error_log
 * @err:     KSYM_ERR_* when parsing or applying it failed
 * @err_pos: offset of the bad token in @text
 */
struct ksym_entry {
	enum ksym_op		op;
	struct ksym_spec	spec;
	char			*text;
	int			err;
	int			err_pos;
};

static int ksym_entry_fail(struct ksym_entry *e, int err, int pos, int ret)
{
	e->err = err;
	e->err_pos = pos;
	return ret;
}

/* The historical ACCESS spellings; "---" (0) removes. */
static const struct {
	const char	*text;
	unsigned int	access;
} ksym_access_forms[] = {
	{ "rw-", KSYM_ACCESS_RW },
	{ "-w-", KSYM_ACCESS_W },
	{ "r--", KSYM_ACCESS_R },
	{ "--x", KSYM_ACCESS_X },
	{ "---", 0 },
};

static int ksym_parse_access(const char *s, unsigned int *access)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_access_forms); i++) {
		if (!strcmp(s, ksym_access_forms[i].text)) {
			*access = ksym_access_forms[i].access;
			return 0;
		}
	}
	return -EINVAL;
}

static const char *ksym_access_str(unsigned int access)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_access_forms); i++)
		if (ksym_access_forms[i].access == access)
			return ksym_access_forms[i].text;
	return "???";
}

/* Symbol names as kallsyms spells them, with an optional "module:" prefix. */
static int ksym_check_symbol(const char *s)
{
	const char *p;
	bool module_seen = false;

	for (p = s; *p; p++) {
		if (isalnum(*p) || *p == '_' || *p == '.' || *p == '$')
			continue;
		if (*p == ':' && !module_seen && p != s && p[1]) {
			module_seen = true;
			continue;
		}
		return p - s;
	}
	return p == s ? 0 : -1;
}

static bool ksym_is_text(unsigned long addr)
{
	return core_kernel_text(addr) || is_module_text_address(addr);
}

/*
 * Resolve TARGET (symbol, symbol+offset, module:symbol[+offset] or
 * 0xADDRESS) in @tgt, which starts at @pos in the entry, into spec->addr
 * and spec->target; *symsize gets the symbol size when TARGET names a
 * symbol with no offset, else 0.
 */
static int ksym_resolve_target(struct ksym_entry *e, char *tgt, int pos,
			       unsigned long *symsize)
{
	struct ksym_spec *spec = &e->spec;
	unsigned long off = 0, size, symoff;
	char *plus;
	int bad;

	*symsize = 0;
	if (tgt[0] == '0' && (tgt[1] == 'x' || tgt[1] == 'X')) {
		if (kstrtoul(tgt, 16, &spec->addr))
			return ksym_entry_fail(e, KSYM_ERR_BAD_ADDR, pos, -EINVAL);
		snprintf(spec->target, sizeof(spec->target), "0x%lx",
			 spec->addr);
		return 0;
	}

	plus = strchr(tgt, '+');
	if (plus) {
		*plus = '\0';
		if (kstrtoul(plus + 1, 0, &off))
			return ksym_entry_fail(e, KSYM_ERR_BAD_OFFSET,
					       pos + (plus + 1 - tgt), -EINVAL);
	}
	bad = ksym_check_symbol(tgt);
	if (bad >= 0)
		return ksym_entry_fail(e, KSYM_ERR_BAD_SYMBOL, pos + bad,
				       -EINVAL);
	spec->addr = kallsyms_lookup_name(tgt);
	if (!spec->addr)
		return ksym_entry_fail(e, KSYM_ERR_NO_SYMBOL, pos, -ENOENT);

	if (!off && kallsyms_lookup_size_offset(spec->addr, &size, &symoff) &&
	    !symoff)
		*symsize = size;
	spec->addr += off;
	if (off)
		snprintf(spec->target, sizeof(spec->target), "%s+0x%lx", tgt,
			 off);
	else
		strscpy(spec->target, tgt, sizeof(spec->target));
	return 0;
}

/*
 * The page frame mapped at @addr, if any: through the direct map and the
 * kernel image, or through the page tables of vmalloc and module space.
 * No vm_struct is looked at: a concurrent vfree() may free it.
 */
static bool ksym_pfn_of(unsigned long addr, unsigned long *pfn)
{
	struct page *page;

	if (virt_addr_valid((void *)addr)) {
		*pfn = page_to_pfn(virt_to_page((void *)addr));
		return true;
	}
	if (!is_vmalloc_or_module_addr((void *)addr))
		return false;
	page = vmalloc_to_page((void *)addr);
	if (!page)
		return false;
	*pfn = page_to_pfn(page);
	return true;
}

/*
 * Last checks of a watch's memory, with ksym_mutex held so that a module
 * cannot finish going away under them (its notifier waits for the mutex):
 * refuse what kprobes refuse under lockdown, init memory (freed, or soon
 * to be), a module that is going, and addresses with nothing mapped; find
 * out whether the value may be read on a hit (RAM only).
 */
static int ksym_check_memory(struct ksym_entry *e)
{
	struct ksym_spec *spec = &e->spec;
	unsigned long addr = spec->addr, pfn;
	struct module *mod;
	u64 dummy;
	int err = -1;

	/* Before memory is touched: it would tell what is mapped. */
	if (security_locked_down(LOCKDOWN_KPROBES))
		return ksym_entry_fail(e, KSYM_ERR_LOCKDOWN, 0, -EPERM);

	/* The kernel's init sections are freed after boot. */
	if (init_section_intersects((void *)addr, spec->len))
		return ksym_entry_fail(e, KSYM_ERR_INIT_FREED, 0, -EFAULT);

	/* A module's init sections are freed once it is live. */
	preempt_disable();
	mod = __module_address(addr);
	if (mod && mod->state == MODULE_STATE_GOING)
		err = KSYM_ERR_MODULE_GOING;
	else if (mod && within_module_init(addr, mod) &&
		 mod->state != MODULE_STATE_COMING)
		err = KSYM_ERR_INIT_FREED;
#ifdef MODULES_VADDR
	/*
	 * Module space that no module owns: a module not yet formed, init
	 * memory being freed, BPF programs. Nothing would drop the watch
	 * when it goes.
	 */
	else if (!mod && addr >= MODULES_VADDR && addr < MODULES_END)
		err = KSYM_ERR_NO_MEMORY_AT;
#endif
	preempt_enable();
	if (err == KSYM_ERR_MODULE_GOING)
		return ksym_entry_fail(e, err, 0, -ENOENT);
	if (err >= 0)
		return ksym_entry_fail(e, err, 0, -EFAULT);

	if (spec->access == KSYM_ACCESS_X)
		return 0;
	if (!ksym_pfn_of(addr, &pfn))
		return ksym_entry_fail(e, KSYM_ERR_NO_MEMORY_AT, 0, -EFAULT);
	/* Device memory (ioremap space) is watched, never read. */
	spec->has_value = page_is_ram(pfn) == 1;
	if (spec->has_value && !ksym_read_value(addr, spec->len, &dummy))
		return ksym_entry_fail(e, KSYM_ERR_NO_MEMORY_AT, 0, -EFAULT);
	return 0;
}

/*
 * The length of a watch given without /LEN: the symbol's extent (0 when
 * unknown, as for SYMBOL+OFFSET and 0xADDRESS) when it is a length a debug
 * register takes, else 0: the user must say.
 */
static unsigned int ksym_default_len(unsigned long symsize)
{
	switch (symsize) {
	case 1:
	case 2:
	case 4:
	case 8:
		return symsize;
	}
	return 0;
}

/**
 * ksym_parse_entry - parse one ksym_trace_filter entry
 * @e:    entry with @e->text set to the NUL-terminated entry text
 *
 * Fills @e->op and @e->spec. Symbols are resolved with kallsyms, lengths
 * defaulted and checked, so that the entry is known good before any
 * breakpoint is touched. On error, @e->err and @e->err_pos say what is
 * wrong and where, for error_log.
 *
 * Return: 0, or -EINVAL, -ENOENT, -E2BIG, -EFAULT or -EOPNOTSUPP.
 */
static int ksym_parse_entry(struct ksym_entry *e)
{
	char *buf __free(kfree) = kmalloc(KSYM_ENTRY_MAX, GFP_KERNEL);
	struct ksym_spec *spec = &e->spec;
	char *at, *colon, *slash;
	unsigned long symsize;
	unsigned int len = 0;
	int ret;

	memset(spec, 0, sizeof(*spec));
	spec->all_cpus = true;
	e->op = KSYM_OP_SET;

	if (!buf)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, 0, -ENOMEM);
	if (strscpy(buf, e->text, KSYM_ENTRY_MAX) < 0)
		return ksym_entry_fail(e, KSYM_ERR_TOO_LONG, 0, -E2BIG);
	if (!strcmp(buf, "0") || !strcmp(buf, "*:---")) {
		e->op = KSYM_OP_CLEAR;
		return 0;
	}

	/* Split at '@' (CPU list), then at the last ':' before it (access). */
	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		if (!at[1] || cpulist_parse(at + 1, &spec->cpus) ||
		    cpumask_empty(&spec->cpus) ||
		    !cpumask_subset(&spec->cpus, cpu_possible_mask))
			return ksym_entry_fail(e, KSYM_ERR_BAD_CPULIST,
					       at + 1 - buf, -EINVAL);
		spec->all_cpus = false;
	}
	colon = strrchr(buf, ':');
	if (!colon || colon == buf)
		return ksym_entry_fail(e, KSYM_ERR_BAD_ENTRY,
				       colon ? 0 : strlen(buf), -EINVAL);
	*colon = '\0';
	if (ksym_parse_access(colon + 1, &spec->access))
		return ksym_entry_fail(e, KSYM_ERR_BAD_ACCESS,
				       colon + 1 - buf, -EINVAL);
	if (spec->access == KSYM_ACCESS_R && !KSYM_CAN_WATCH_READS)
		return ksym_entry_fail(e, KSYM_ERR_NO_READ_ONLY,
				       colon + 1 - buf, -EOPNOTSUPP);
	if (!spec->access) {
		e->op = KSYM_OP_REMOVE;
		if (at)
			return ksym_entry_fail(e, KSYM_ERR_BAD_CPULIST,
					       at - buf, -EINVAL);
	}

	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (kstrtouint(slash + 1, 0, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != 8))
			return ksym_entry_fail(e, KSYM_ERR_BAD_LEN,
					       slash + 1 - buf, -EINVAL);
	}
	if (!buf[0])
		return ksym_entry_fail(e, KSYM_ERR_BAD_ENTRY, 0, -EINVAL);

	ret = ksym_resolve_target(e, buf, 0, &symsize);
	if (ret)
		return ret;
	if (e->op == KSYM_OP_REMOVE)
		return 0;

	if (access_ok((void __user *)spec->addr, 1))
		return ksym_entry_fail(e, KSYM_ERR_USER_ADDR, 0, -EINVAL);

	if (spec->access == KSYM_ACCESS_X) {
		if (len && len != sizeof(long))
			return ksym_entry_fail(e, KSYM_ERR_EXEC_LEN,
					       slash + 1 - buf, -EINVAL);
		if (!ksym_is_text(spec->addr))
			return ksym_entry_fail(e, KSYM_ERR_NOT_TEXT, 0, -EINVAL);
		len = sizeof(long);
	} else if (!len) {
		len = ksym_default_len(symsize);
		if (!len)
			return ksym_entry_fail(e, KSYM_ERR_NEED_LEN,
					       colon - buf, -EINVAL);
	}
	spec->len = len;

	/* Instruction breakpoints take any address; data ones are aligned. */
	if (spec->access != KSYM_ACCESS_X && !IS_ALIGNED(spec->addr, len))
		return ksym_entry_fail(e, KSYM_ERR_MISALIGNED, 0, -EINVAL);
	return ksym_check_memory(e);
}

/*
 * The canonical form of a watch: what reading ksym_trace_filter shows, and
 * what, written back, gives the same watch.
 */
static int ksym_spec_format(char *buf, size_t size,
			    const struct ksym_spec *spec)
{
	int n;

	n = scnprintf(buf, size, "%s/%u:%s", spec->target, spec->len,
		      ksym_access_str(spec->access));
	if (!spec->all_cpus)
		n += scnprintf(buf + n, size - n, "@%*pbl",
			       cpumask_pr_args(&spec->cpus));
	return n;
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

static bool ksym_spec_equal(const struct ksym_spec *a,
			    const struct ksym_spec *b)
{
	return a->addr == b->addr && a->len == b->len &&
	       a->access == b->access && a->all_cpus == b->all_cpus &&
	       (a->all_cpus || cpumask_equal(&a->cpus, &b->cpus)) &&
	       !strcmp(a->target, b->target);
}

static struct ksym_want *ksym_txn_find(struct ksym_txn *txn,
				       unsigned long addr)
{
	int i;

	for (i = 0; i < txn->nr_want; i++)
		if (txn->want[i].spec.addr == addr)
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
			w = ksym_txn_find(txn, e->spec.addr);
			if (!w)
				return ksym_entry_fail(e, KSYM_ERR_NO_SUCH_WATCH,
						       0, -ENOENT);
			*w = txn->want[--txn->nr_want];
			break;
		case KSYM_OP_SET:
			w = ksym_txn_find(txn, e->spec.addr);
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
					if (watch->spec.addr == e->spec.addr)
						w->watch = watch;
			}
			w->spec = e->spec;
			w->entry = e;
			/* Unchanged, and not missing a CPU (see hotplug). */
			w->keep = w->watch &&
				  ksym_spec_equal(&w->spec, &w->watch->spec) &&
				  ksym_watch_complete(w->watch);
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
					     !ksym_armed);
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
			ret = ksym_bp_create(u->watch, &u->watch->spec, cpu,
					     !ksym_armed);
			if (ret) {
				pr_warn("could not restore %s on CPU %d: %d\n",
					u->watch->spec.target, cpu, ret);
				lost++;
			}
		}
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
		int cpu;

		/* Armed breakpoints of kept watches read their spec: leave it. */
		if (!w->keep)
			w->watch->spec = w->spec;
		if (!w->watch->list.next) {
			list_add_tail(&w->watch->list, &ksym_watches);
			ksym_nr_watches++;
		}
		if (w->keep || !ksym_armed)
			continue;
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

/* ------------------------------------------------------------------------
 * ksym_trace_filter
 */

static void ksym_log(const char *text, int err, int pos)
{
	tracing_log_err(NULL, "ksym_trace_filter", text, ksym_err_text, err,
			pos);
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

/*
 * Parse and apply the entries in @buf (whitespace-separated, NUL-terminated,
 * modified in place; '#' starts a comment that runs to the end of the
 * line). A write with no entry changes nothing: a blank line is not "clear"
 * (ksym_filter_flush() says which empty write is). Returns the number of
 * entries applied, or an error.
 */
static int ksym_write_entries(char *buf)
{
	struct ksym_entry *entries;
	int nr = 0, ret;
	char *p, *tok;

	/* Comments: the read-back marks incomplete watches with one. */
	for (p = strchr(buf, '#'); p; p = strchr(p, '#'))
		for (; *p && *p != '\n'; p++)
			*p = ' ';

	/* Count first: the entries are sized by their number, not by bytes. */
	for (p = buf; *p; ) {
		while (isspace(*p))
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && !isspace(*p))
			p++;
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
	while ((tok = strsep(&p, " \t\n\r\v\f"))) {
		if (!*tok)
			continue;
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
		fb->wrote = !isspace(fb->data[end]);
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
	if (ksym_watch_missing(watch, missing))
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
 * Profiles: trace_stat/ksym_tracer and trace_stat/ksym_callers.
 *
 * Reading a stat file takes a snapshot of the per-CPU counters; the rows
 * are allocated here, in process context, and freed by stat_release.
 */

struct ksym_stat_row {
	struct ksym_stat_row	*next;
	int			watch_idx;
	char			target[KSYM_TARGET_MAX];
	unsigned int		len;
	unsigned int		access;
	unsigned long		hits;		/* of the watch */
	unsigned long		caller;		/* function start, 0: other */
	unsigned long		caller_hits;
	unsigned int		nr_callers;
	char			missing[40];	/* CPUs, or "-" */
};

static struct ksym_stat_row *ksym_row_new(struct ksym_watch *watch, int idx)
{
	struct ksym_stat_row *row;

	row = kzalloc(sizeof(*row), GFP_KERNEL);
	if (!row)
		return NULL;
	row->watch_idx = idx;
	strscpy(row->target, watch->spec.target, sizeof(row->target));
	row->len = watch->spec.len;
	row->access = watch->spec.access;
	strscpy(row->missing, "-", sizeof(row->missing));
	return row;
}

/* Function that holds @ip, for grouping accessing instructions. */
static unsigned long ksym_func_of(unsigned long ip)
{
	unsigned long size, off;

	if (kallsyms_lookup_size_offset(ip, &size, &off))
		return ip - off;
	return ip;
}

/*
 * Sum one watch's per-CPU tables into @rows (one per distinct function,
 * then "other"); returns the number of rows used.
 */
static int ksym_sum_callers(struct ksym_watch *watch,
			    struct ksym_stat_row **rows, int max, int idx,
			    unsigned long *total)
{
	unsigned long other = 0, ip, hits, func;
	struct ksym_cpu_stats *s;
	int cpu, i, j, nr = 0;

	*total = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(watch->stats, cpu);
		other += READ_ONCE(s->other);
		for (i = 0; i < KSYM_CALLER_SLOTS; i++) {
			/* Pairs with ksym_count_hit(): ip, then hits. */
			ip = smp_load_acquire(&s->callers[i].ip);
			if (!ip)
				break;
			hits = READ_ONCE(s->callers[i].hits);
			func = ksym_func_of(ip);
			for (j = 0; j < nr; j++)
				if (rows[j]->caller == func)
					break;
			if (j == nr) {
				if (nr == max - 1)
					return -ENOMEM;
				rows[nr] = ksym_row_new(watch, idx);
				if (!rows[nr])
					return -ENOMEM;
				rows[nr]->caller = func;
				nr++;
			}
			rows[j]->caller_hits += hits;
			*total += hits;
		}
	}
	*total += other;
	if (other) {
		rows[nr] = ksym_row_new(watch, idx);
		if (!rows[nr])
			return -ENOMEM;
		rows[nr]->caller_hits = other;
		nr++;
	}
	for (i = 0; i < nr; i++) {
		rows[i]->hits = *total;
		rows[i]->nr_callers = nr;
	}
	return nr;
}

/*
 * Build the snapshot: one row per watch (@per_caller false) or one row
 * per watch and accessing function (@per_caller true).
 */
static struct ksym_stat_row *ksym_snapshot(bool per_caller)
{
	/* Distinct functions: at most all slots of all CPUs, plus other. */
	int max = KSYM_CALLER_SLOTS * num_possible_cpus() + 1;
	struct ksym_stat_row *head = NULL, **tail = &head;
	struct ksym_stat_row **rows;
	struct ksym_watch *watch;
	cpumask_var_t missing;
	unsigned long total;
	int idx = 0, i, nr;

	if (!zalloc_cpumask_var(&missing, GFP_KERNEL))
		return NULL;
	rows = kvcalloc(max, sizeof(*rows), GFP_KERNEL);
	if (!rows) {
		free_cpumask_var(missing);
		return NULL;
	}

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list) {
		nr = ksym_sum_callers(watch, rows, max, idx, &total);
		if (nr < 0) {
			for (i = 0; i < max && rows[i]; i++)
				kfree(rows[i]);
			break;
		}
		if (!per_caller) {
			struct ksym_stat_row *row = ksym_row_new(watch, idx);

			for (i = 0; i < nr; i++)
				kfree(rows[i]);
			if (!row)
				break;
			row->hits = total;
			row->nr_callers = nr;
			if (ksym_watch_missing(watch, missing) &&
			    snprintf(row->missing, sizeof(row->missing),
				     "%*pbl", cpumask_pr_args(missing)) >=
			    sizeof(row->missing))
				strscpy(row->missing + sizeof(row->missing) - 4,
					"...", 4);
			nr = 1;
			rows[0] = row;
		}
		for (i = 0; i < nr; i++) {
			*tail = rows[i];
			tail = &rows[i]->next;
		}
		memset(rows, 0, max * sizeof(*rows));
		idx++;
	}
	mutex_unlock(&ksym_mutex);
	kvfree(rows);
	free_cpumask_var(missing);
	return head;
}

static void *ksym_stat_start_watches(struct tracer_stat *trace)
{
	return ksym_snapshot(false);
}

static void *ksym_stat_start_callers(struct tracer_stat *trace)
{
	return ksym_snapshot(true);
}

static void *ksym_stat_next(void *prev, int idx)
{
	return ((struct ksym_stat_row *)prev)->next;
}

/* trace_stat's rbtree owns each row: free them one at a time. */
static void ksym_stat_release(void *stat)
{
	kfree(stat);
}

/* Watches in their order; within a watch, most hits first, other last. */
static int ksym_stat_cmp_callers(const void *p1, const void *p2)
{
	const struct ksym_stat_row *a = p1, *b = p2;

	if (a->watch_idx != b->watch_idx)
		return a->watch_idx < b->watch_idx ? 1 : -1;
	if (!a->caller != !b->caller)
		return a->caller ? 1 : -1;
	if (a->caller_hits != b->caller_hits)
		return a->caller_hits > b->caller_hits ? 1 : -1;
	return -1;
}

static int ksym_stat_headers_watches(struct seq_file *m)
{
	seq_puts(m, "  Access Type  Symbol                              Counter     Callers  Missing CPUs\n");
	seq_puts(m, "  -----------  ------                              -------     -------  ------------\n");
	return 0;
}

static int ksym_stat_show_watches(struct seq_file *m, void *v)
{
	struct ksym_stat_row *row = v;
	char sym[48];

	snprintf(sym, sizeof(sym), "%s/%u", row->target, row->len);
	seq_printf(m, "  %-11s  %-34s  %-10lu  %-7u  %s\n",
		   ksym_access_str(row->access), sym, row->hits,
		   row->nr_callers, row->missing);
	return 0;
}

static int ksym_stat_headers_callers(struct seq_file *m)
{
	seq_puts(m, "  Symbol                              Caller                                    Hits        Share\n");
	seq_puts(m, "  ------                              ------                                    ----        -----\n");
	return 0;
}

static int ksym_stat_show_callers(struct seq_file *m, void *v)
{
	struct ksym_stat_row *row = v;
	unsigned long pct = row->hits ?
		div64_u64((u64)row->caller_hits * 10000, row->hits) : 0;

	seq_printf(m, "  %-34s  ", row->target);
	if (row->caller)
		seq_printf(m, "%-40ps  ", (void *)row->caller);
	else
		seq_printf(m, "%-40s  ", "[other]");
	seq_printf(m, "%-10lu  %3lu.%02lu%%\n", row->caller_hits,
		   pct / 100, pct % 100);
	return 0;
}

static struct tracer_stat ksym_stat_watches = {
	.name		= "ksym_tracer",
	.stat_start	= ksym_stat_start_watches,
	.stat_next	= ksym_stat_next,
	.stat_show	= ksym_stat_show_watches,
	.stat_release	= ksym_stat_release,
	.stat_headers	= ksym_stat_headers_watches,
};

static struct tracer_stat ksym_stat_callers = {
	.name		= "ksym_callers",
	.stat_start	= ksym_stat_start_callers,
	.stat_next	= ksym_stat_next,
	.stat_cmp	= ksym_stat_cmp_callers,
	.stat_show	= ksym_stat_show_callers,
	.stat_release	= ksym_stat_release,
	.stat_headers	= ksym_stat_headers_callers,
};

/* ------------------------------------------------------------------------
 * The ksym tracer.
 *
 * When current in an instance, it writes the ksym events into that
 * instance's buffer from its own probes on the tracepoints, through
 * stand-ins for the instance's event files, so the entries are exactly
 * those the events write. Enabling the events in the instance instead would
 * take event_mutex, which must not be taken under trace_types_lock.
 */

enum ksym_ev { KSYM_EV_HIT, KSYM_EV_REGS, KSYM_EV_STACK, KSYM_EV_BRANCHES,
	       KSYM_NR_EV };

struct ksym_instance {
	struct list_head	list;
	struct trace_array	*tr;
	struct trace_event_file	files[KSYM_NR_EV];
};

/* Modified under trace_types_lock (tracer callbacks), read under RCU. */
static LIST_HEAD(ksym_instances);

/* Tracer options: extra events for every hit, off by default. */
#define KSYM_OPT_STACK		BIT(0)
#define KSYM_OPT_REGS		BIT(1)
#define KSYM_OPT_BRANCHES	BIT(2)

static struct tracer_opt ksym_tracer_opts[] = {
	{ TRACER_OPT(ksym-stack, KSYM_OPT_STACK) },
	{ TRACER_OPT(ksym-regs, KSYM_OPT_REGS) },
	{ TRACER_OPT(ksym-branches, KSYM_OPT_BRANCHES) },
	{ } /* Terminator */
};

static struct tracer_flags ksym_tracer_flags = {
	.val  = 0,
	.opts = ksym_tracer_opts,
};

#define KSYM_PROBE(ev, name, proto, args)				\
static void ksym_tracer_##name(void *data, proto)			\
{									\
	struct ksym_instance *ins;					\
									\
	list_for_each_entry_rcu(ins, &ksym_instances, list)		\
		trace_event_raw_event_ksym_##name(&ins->files[ev], args); \
}

KSYM_PROBE(KSYM_EV_HIT, hit, const struct ksym_hit_rec *rec, rec)
KSYM_PROBE(KSYM_EV_STACK, stack,
	   PARAMS(const unsigned long *ips, unsigned int nr), PARAMS(ips, nr))
KSYM_PROBE(KSYM_EV_BRANCHES, branches,
	   PARAMS(const unsigned long *ft, unsigned int nr, unsigned int src),
	   PARAMS(ft, nr, src))
#ifdef CONFIG_X86_64
KSYM_PROBE(KSYM_EV_REGS, regs, const struct pt_regs *regs, regs)
#endif

/* Register (@on) or unregister the tracer's probe for option @bit. */
static int ksym_tracer_probe(u32 bit, bool on)
{
	switch (bit) {
	case 0:
		return on ? register_trace_ksym_hit(ksym_tracer_hit, NULL) :
			    unregister_trace_ksym_hit(ksym_tracer_hit, NULL);
	case KSYM_OPT_STACK:
		return on ? register_trace_ksym_stack(ksym_tracer_stack, NULL) :
			    unregister_trace_ksym_stack(ksym_tracer_stack, NULL);
	case KSYM_OPT_BRANCHES:
		return on ?
			register_trace_ksym_branches(ksym_tracer_branches, NULL) :
			unregister_trace_ksym_branches(ksym_tracer_branches,
						       NULL);
	case KSYM_OPT_REGS:
#ifdef CONFIG_X86_64
		return on ? register_trace_ksym_regs(ksym_tracer_regs, NULL) :
			    unregister_trace_ksym_regs(ksym_tracer_regs, NULL);
#else
		return on ? -EOPNOTSUPP : 0;
#endif
	}
	return -EINVAL;
}

/* Every probe the options ask for: hit, then the set options. */
static int ksym_tracer_probes(bool on)
{
	u32 bits[] = { 0, KSYM_OPT_STACK, KSYM_OPT_REGS, KSYM_OPT_BRANCHES };
	int i, ret = 0;

	for (i = 0; i < ARRAY_SIZE(bits); i++) {
		if (bits[i] && !(ksym_tracer_flags.val & bits[i]))
			continue;
		ret = ksym_tracer_probe(bits[i], on);
		if (ret && on) {
			while (--i >= 0)
				if (!bits[i] || (ksym_tracer_flags.val & bits[i]))
					ksym_tracer_probe(bits[i], false);
			return ret;
		}
	}
	return 0;
}

static int ksym_tracer_set_flag(struct trace_array *tr, u32 old_flags,
				u32 bit, int set)
{
	/* Unchanged, or not current anywhere: nothing to (un)register. */
	if (!!(old_flags & bit) == !!set || list_empty(&ksym_instances))
		return 0;
	/* Under event_mutex (trace_options): no waiting for the arming. */
	return ksym_tracer_probe(bit, set);
}

static int ksym_tracer_init(struct trace_array *tr)
{
	static struct trace_event_call *calls[KSYM_NR_EV] = {
		[KSYM_EV_HIT]		= &event_ksym_hit,
#ifdef CONFIG_X86_64
		[KSYM_EV_REGS]		= &event_ksym_regs,
#endif
		[KSYM_EV_STACK]		= &event_ksym_stack,
		[KSYM_EV_BRANCHES]	= &event_ksym_branches,
	};
	struct ksym_instance *ins;
	bool first = list_empty(&ksym_instances);
	int i, ret;

	ins = kzalloc(sizeof(*ins), GFP_KERNEL);
	if (!ins)
		return -ENOMEM;
	ins->tr = tr;
	for (i = 0; i < KSYM_NR_EV; i++) {
		ins->files[i].tr = tr;
		ins->files[i].event_call = calls[i];
		INIT_LIST_HEAD(&ins->files[i].triggers);
	}
	list_add_tail_rcu(&ins->list, &ksym_instances);

	/* The first probes on the ksym events arm the watches. */
	if (first) {
		ret = ksym_tracer_probes(true);
		if (ret) {
			list_del_rcu(&ins->list);
			synchronize_rcu();
			kfree(ins);
			return ret;
		}
	}
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

	list_for_each_entry(ins, &ksym_instances, list)
		if (ins->tr == tr)
			found = ins;
	if (WARN_ON_ONCE(!found))
		return;
	list_del_rcu(&found->list);
	tracing_stop_cmdline_record();
	/* Under event_mutex on rmdir: the arming work is not waited for. */
	if (list_empty(&ksym_instances))
		ksym_tracer_probes(false);
	tracepoint_synchronize_unregister();
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

/* ------------------------------------------------------------------------
 * ksym_branch_source: "auto", "hardware" or "software"; reading shows the
 * choices with the chosen one in brackets, then the source in use.
 */

static const char * const ksym_branch_mode_names[] = {
	[KSYM_BRANCH_AUTO]	= "auto",
	[KSYM_BRANCH_HARDWARE]	= "hardware",
	[KSYM_BRANCH_SOFTWARE]	= "software",
};

static const char * const ksym_branch_src_names[] = {
	[KSYM_BRANCH_NONE]	= "none",
	[KSYM_BRANCH_HW]	= "hardware",
	[KSYM_BRANCH_SW]	= "software",
};

enum { KSYM_BERR_BAD_MODE, KSYM_BERR_NO_HW, KSYM_BERR_BUSY };

static const char *ksym_branch_err_text[] = {
	[KSYM_BERR_BAD_MODE]	= "Expected auto, hardware or software",
	[KSYM_BERR_NO_HW]	= "No hardware branch recorder on this CPU",
	[KSYM_BERR_BUSY]	= "Branch snippets are on: turn them off first",
};

static int ksym_branch_source_show(struct seq_file *m, void *v)
{
	int i;

	ksym_sync_arming();
	mutex_lock(&ksym_branch_mutex);
	for (i = 0; i < ARRAY_SIZE(ksym_branch_mode_names); i++)
		seq_printf(m, i == ksym_branch_mode ? "%s[%s]" : "%s%s",
			   i ? " " : "", ksym_branch_mode_names[i]);
	seq_printf(m, "\nin use: %s\nhardware: %s\n",
		   ksym_branch_src_names[ksym_branch_active],
		   ksym_lbr_available() ? "available" : "none");
	mutex_unlock(&ksym_branch_mutex);
	return 0;
}

static int ksym_branch_source_open(struct inode *inode, struct file *file)
{
	int ret = tracing_check_open_get_tr(NULL);

	if (ret)
		return ret;
	return single_open(file, ksym_branch_source_show, NULL);
}

static ssize_t ksym_branch_source_write(struct file *file,
					const char __user *ubuf, size_t cnt,
					loff_t *ppos)
{
	char buf[16], *mode;
	int i, err = -1;

	if (cnt >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, cnt))
		return -EFAULT;
	buf[cnt] = '\0';
	mode = strim(buf);

	i = match_string(ksym_branch_mode_names,
			 ARRAY_SIZE(ksym_branch_mode_names), mode);
	ksym_sync_arming();
	mutex_lock(&ksym_branch_mutex);
	if (i < 0)
		err = KSYM_BERR_BAD_MODE;
	else if (ksym_branch_active != KSYM_BRANCH_NONE)
		err = KSYM_BERR_BUSY;
	else if (i == KSYM_BRANCH_HARDWARE && !ksym_lbr_available())
		err = KSYM_BERR_NO_HW;
	else
		ksym_branch_mode = i;
	mutex_unlock(&ksym_branch_mutex);

	if (err >= 0) {
		tracing_log_err(NULL, "ksym_branch_source", mode,
				ksym_branch_err_text, err, 0);
		return err == KSYM_BERR_BUSY ? -EBUSY :
		       err == KSYM_BERR_NO_HW ? -ENODEV : -EINVAL;
	}
	*ppos += cnt;
	return cnt;
}

static const struct file_operations ksym_branch_source_fops = {
	.open		= ksym_branch_source_open,
	.read		= seq_read,
	.write		= ksym_branch_source_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static struct trace_min_max_param ksym_stack_depth_param = {
	.lock	= &ksym_mutex,
	.val	= &ksym_stack_depth,
	.min	= &ksym_one,
	.max	= &ksym_stack_max,
};

static struct trace_min_max_param ksym_branch_entries_param = {
	.lock	= &ksym_mutex,
	.val	= &ksym_branch_entries,
	.min	= &ksym_one,
	.max	= &ksym_branch_max,
};

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
		ret = ksym_bp_create(watch, &watch->spec, cpu, !ksym_armed);
		if (ret)
			pr_warn("cannot watch %s on CPU %u: %d\n",
				watch->spec.target, cpu, ret);
	}
	mutex_unlock(&ksym_mutex);
	return 0;
}

static int ksym_cpu_offline(unsigned int cpu)
{
	struct ksym_watch *watch;

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list)
		ksym_bp_release(watch, cpu);
	mutex_unlock(&ksym_mutex);
	return 0;
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
		if (going ? !within_module(watch->spec.addr, mod) :
			    !within_module_init(watch->spec.addr, mod))
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

/* ------------------------------------------------------------------------
 * Registration
 */

static __init int ksym_tracer_register(void)
{
	int ret;

	ret = register_tracer(&ksym_tracer);
	if (ret)
		return ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "trace/ksym:online",
					ksym_cpu_online, ksym_cpu_offline);
	if (ret < 0)
		pr_warn("no CPU hotplug support: %d\n", ret);

	ret = register_module_notifier(&ksym_module_nb);
	if (ret)
		pr_warn("no module unload support: %d\n", ret);

	if (tracing_init_dentry())
		return 0;
	trace_create_file("ksym_trace_filter", TRACE_MODE_WRITE, NULL, NULL,
			  &ksym_filter_fops);
	trace_create_file("ksym_stack_depth", TRACE_MODE_WRITE, NULL,
			  &ksym_stack_depth_param, &trace_min_max_fops);
	trace_create_file("ksym_branch_entries", TRACE_MODE_WRITE, NULL,
			  &ksym_branch_entries_param, &trace_min_max_fops);
	trace_create_file("ksym_branch_source", TRACE_MODE_WRITE, NULL, NULL,
			  &ksym_branch_source_fops);
	register_stat_tracer(&ksym_stat_watches);
	register_stat_tracer(&ksym_stat_callers);
	return 0;
}
late_initcall(ksym_tracer_register);

#ifdef CONFIG_KSYM_TRACER_KUNIT_TEST
#include "trace_ksym_kunit.c"
#endif
