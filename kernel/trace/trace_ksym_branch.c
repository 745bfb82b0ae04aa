// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_branch.c - branch snippets of the ksym tracer: the last
 * branches before a hit, from the CPU's branch recorder (Intel LBR, AMD
 * LbrExtV2, through perf_snapshot_branch_stack) or from a software trail of
 * function entries kept by an ftrace_ops. CONFIG_KSYM_TRACER_BRANCHES.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/cpu.h>
#include <linux/ftrace.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/static_call.h>

#ifdef CONFIG_ARM64
#include <asm/sysreg.h>
#endif

#include "trace.h"
#include "trace_ksym.h"
#include <trace/events/ksym.h>

/* Settings in tracefs (trace_min_max_fops), under ksym_mutex. */
u64 ksym_branch_entries = 16;
static u64 ksym_branch_one = 1;
static u64 ksym_branch_max = KSYM_BRANCH_MAX;

/* Per-CPU scratch of the hit path; #DB does not nest on a CPU. */
struct ksym_branch_scratch {
	unsigned long		from_to[2 * KSYM_BRANCH_MAX];
	struct perf_branch_entry lbr[KSYM_BRANCH_MAX];
};

static DEFINE_PER_CPU(struct ksym_branch_scratch, ksym_branch_scratch);

/*
 * Software branch trail: the last function entries (call site -> callee)
 * on each CPU, kept by an ftrace_ops callback while branch snippets are
 * on; one trail for each context a CPU runs code in (task, softirq,
 * hardirq). A hit's snippet comes from the trail of the context the access
 * was made in: an interrupt that came between the accessor's last call
 * and its access is not how the accessor got there. Under QEMU's TCG a
 * tick or a softirq often did, and filled the snippet with its own calls.
 */
enum ksym_trail_context {
	KSYM_TRAIL_TASK,
	KSYM_TRAIL_SOFTIRQ,
	KSYM_TRAIL_HARDIRQ,
	KSYM_TRAIL_CONTEXTS,
};

struct ksym_trail {
	unsigned long		head;
	unsigned long		writing;
	unsigned long		base;		/* head when the trail started */
	unsigned long		from[KSYM_BRANCH_MAX];
	unsigned long		to[KSYM_BRANCH_MAX];
};

struct ksym_trails {
	struct ksym_trail	ctx[KSYM_TRAIL_CONTEXTS];
};

static DEFINE_PER_CPU(struct ksym_trails, ksym_trails);

/*
 * The trail a preempt count's context writes. A context's own calls come
 * one after another: another context on the CPU only interrupts it, and
 * softirqs and hardirqs do not nest in themselves. The calls an interrupt
 * makes before its entry raises the count (irq_enter_rcu()) and after its
 * exit dropped it (before a softirq starts, tick_nohz_irq_exit()) go into
 * the interrupted context's trail; ftrace lets one such call through while
 * the interrupted context is in ksym_trail_func() (its recursion guard's
 * transition bit), and that one is dropped (->writing). Where softirqs and
 * interrupt handlers run in threads (PREEMPT_RT, threadirqs), their calls
 * are task context's. The task trail is the CPU's, not a task's: a task
 * switched in between a call and an access puts its calls in between.
 */
static __always_inline enum ksym_trail_context
ksym_trail_context(unsigned long pc)
{
	if (pc & (NMI_MASK | HARDIRQ_MASK))
		return KSYM_TRAIL_HARDIRQ;
	if (pc & SOFTIRQ_OFFSET)
		return KSYM_TRAIL_SOFTIRQ;
	return KSYM_TRAIL_TASK;
}

/*
 * The trail leaves out the exception a hit is reported in, so that a
 * snippet ends at the last call before the access, and neither the hit's
 * own path (exception entry, perf, the tracer) nor, on arm64, the step
 * over it is in the next hit's snippet. x86 runs the breakpoint handler as
 * an NMI. arm64 runs it as an ordinary exception, but a debug exception
 * taken in the kernel (watchpoint, breakpoint, the step after a hit, BRK)
 * runs with debug exceptions masked (PSTATE.D) throughout, as little else
 * does (suspend, stopping a CPU, kexec: no hit there either). Function
 * entries make no markers for this: debug_exception_exit() is inlined
 * into its callers (the out-of-line copy NOKPROBE_SYMBOL keeps never
 * runs), so a trail stopped at debug_exception_enter() never started again.
 */
static __always_inline bool ksym_trail_in_hit_exception(void)
{
	if (in_nmi())
		return true;
#ifdef CONFIG_ARM64
	if (read_sysreg(daif) & PSR_D_BIT)
		return true;
#endif
	return false;
}

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
 * Branch snippets: a hardware branch recorder, or the software trail.
 */

/*
 * A PMU that snapshots its branch stack set the static call. Without
 * HAVE_STATIC_CALL (arm64) __static_call_return0 is a static inline, each
 * file its own copy, so the comparison would always say yes; and no PMU
 * there sets it in 6.12.
 */
static bool ksym_lbr_available(void)
{
	if (!IS_ENABLED(CONFIG_HAVE_STATIC_CALL))
		return false;
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

	if (ksym_trail_in_hit_exception())
		return;
	trail = &this_cpu_ptr(&ksym_trails)->ctx[ksym_trail_context(preempt_count())];
	if (READ_ONCE(trail->writing))
		return;
	WRITE_ONCE(trail->writing, 1);
	barrier();
	i = READ_ONCE(trail->head);
	trail->from[i % KSYM_BRANCH_MAX] = parent_ip;
	trail->to[i % KSYM_BRANCH_MAX] = ip;
	/* A hit reads up to head: the entry is there first. */
	barrier();
	WRITE_ONCE(trail->head, i + 1);
	barrier();
	WRITE_ONCE(trail->writing, 0);
}

static struct ftrace_ops ksym_trail_ops = {
	.func	= ksym_trail_func,
	.flags	= FTRACE_OPS_FL_RECURSION,
};

static int ksym_trail_start(void)
{
	struct ksym_trail *trail;
	int cpu, c;

	/*
	 * A snippet holds calls made since the trail started, none from an
	 * earlier time it ran. Only this writes base, under
	 * ksym_branch_mutex; hits read it once ksym_branch_active says
	 * software (release, acquire).
	 */
	for_each_possible_cpu(cpu) {
		for (c = 0; c < KSYM_TRAIL_CONTEXTS; c++) {
			trail = &per_cpu_ptr(&ksym_trails, cpu)->ctx[c];
			trail->base = READ_ONCE(trail->head);
		}
	}
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
	if (ret)
		return ret;
	/* After the trails' bases: pairs with ksym_branches_capture(). */
	smp_store_release(&ksym_branch_active, KSYM_BRANCH_SW);
	return 0;
}

static void ksym_branches_stop(void)
{
	if (ksym_branch_active == KSYM_BRANCH_HW)
		ksym_lbr_stop();
	else if (ksym_branch_active == KSYM_BRANCH_SW)
		ksym_trail_stop();
	WRITE_ONCE(ksym_branch_active, KSYM_BRANCH_NONE);
}

/**
 * ksym_branches_update - start or stop branch snippets
 * @on: snippets are wanted
 *
 * From ksym_arm_work, with no tracing lock held.
 */
void ksym_branches_update(bool on)
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

/**
 * ksym_branches_reg - ksym_branches got its first probe: snippets wanted
 *
 * Return: 0.
 */
int ksym_branches_reg(void)
{
	atomic_inc(&ksym_branch_users);
	return ksym_event_reg();
}

/**
 * ksym_branches_unreg - ksym_branches lost its last probe
 */
void ksym_branches_unreg(void)
{
	atomic_dec(&ksym_branch_users);
	ksym_event_unreg();
}

/*
 * The preempt count of the context a hit's access was made in, from the
 * hit handler: x86 runs it as an NMI (nmi_enter() added NMI_OFFSET and
 * HARDIRQ_OFFSET), arm64 as a debug exception that leaves the count alone.
 */
static unsigned long ksym_hit_preempt_count(void)
{
	unsigned long pc = preempt_count();

	if (IS_ENABLED(CONFIG_X86) && (pc & NMI_MASK))
		pc -= NMI_OFFSET + HARDIRQ_OFFSET;
	return pc;
}

/**
 * ksym_branches_capture - the last branches before a hit, oldest first
 * @cap: where the snippet goes (cap->from_to, nr_branches, source)
 *
 * From the hit path, in the #DB handler: from the branch recorder's
 * snapshot, or from this CPU's software trail, whichever is in use.
 */
void ksym_branches_capture(struct ksym_capture *cap)
{
	struct ksym_branch_scratch *scratch = this_cpu_ptr(&ksym_branch_scratch);
	unsigned int want = READ_ONCE(ksym_branch_entries);
	unsigned long *ft = scratch->from_to;
	struct ksym_trail *trail;
	unsigned long head, k, pc;
	enum ksym_branch_src src;
	unsigned int nr = 0;
	int cnt, i;

	/* The trails' bases are set first: see ksym_branches_start(). */
	src = smp_load_acquire(&ksym_branch_active);

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
		/*
		 * Nothing writes this CPU's trails while its hit exception
		 * runs: the last entry of the accessing context's trail is
		 * its last call before the access. An access in an NMI gets
		 * no entries (calls in NMIs are not recorded).
		 */
		pc = ksym_hit_preempt_count();
		trail = &this_cpu_ptr(&ksym_trails)->ctx[ksym_trail_context(pc)];
		head = READ_ONCE(trail->head);
		k = trail->base;
		if (pc & NMI_MASK)
			k = head;
		else if (head - k > want)
			k = head - want;
		for (; k < head; k++) {
			ft[2 * nr] = trail->from[k % KSYM_BRANCH_MAX];
			ft[2 * nr + 1] = trail->to[k % KSYM_BRANCH_MAX];
			nr++;
		}
	}
	cap->from_to = ft;
	cap->nr_branches = nr;
	cap->source = src;
}

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

static struct trace_min_max_param ksym_branch_entries_param = {
	.lock	= &ksym_mutex,
	.val	= &ksym_branch_entries,
	.min	= &ksym_branch_one,
	.max	= &ksym_branch_max,
};

/**
 * ksym_branch_init_tracefs - create ksym_branch_source and
 *                            ksym_branch_entries
 *
 * Return: 0.
 */
int ksym_branch_init_tracefs(void)
{
	trace_create_file("ksym_branch_entries", TRACE_MODE_WRITE, NULL,
			  &ksym_branch_entries_param, &trace_min_max_fops);
	trace_create_file("ksym_branch_source", TRACE_MODE_WRITE, NULL, NULL,
			  &ksym_branch_source_fops);
	return 0;
}
