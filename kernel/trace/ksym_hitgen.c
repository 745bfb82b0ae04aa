// SPDX-License-Identifier: GPL-2.0
/*
 * ksym_hitgen - deterministic hit generator for the ksym tracer selftests
 *
 * Watching a busy global gives counts nobody can predict. This module owns
 * variables that nothing else touches and a debugfs directory whose files
 * touch them an exact number of times from named, non-inlined functions:
 *
 *	/sys/kernel/debug/ksym_hitgen/write_a	N: ksym_hitgen_write_a() stores
 *						1..N into ksym_hitgen_var
 *	/sys/kernel/debug/ksym_hitgen/write_all	N: every online CPU at once
 *						(an IPI each) stores into
 *						ksym_hitgen_var N / CPUs times
 *	/sys/kernel/debug/ksym_hitgen/write_b	N: same from ksym_hitgen_write_b()
 *	/sys/kernel/debug/ksym_hitgen/write_same	N: ksym_hitgen_write_same()
 *						stores ksym_hitgen_var's value
 *						back into it N times
 *	/sys/kernel/debug/ksym_hitgen/read	N: ksym_hitgen_read() loads
 *						ksym_hitgen_var N times
 *	/sys/kernel/debug/ksym_hitgen/spread	N: each of the KSYM_HITGEN_CALLERS
 *						functions ksym_hitgen_caller_NN()
 *						stores into ksym_hitgen_var N times
 *	/sys/kernel/debug/ksym_hitgen/write_u32	N: stores 1..N into ksym_hitgen_u32
 *	/sys/kernel/debug/ksym_hitgen/var	reads ksym_hitgen_var
 *	/sys/kernel/debug/ksym_hitgen/mmio_addr	address of a device register
 *						(HPET main counter, ioremapped;
 *						arm64: the virt PL011's flags)
 *	/sys/kernel/debug/ksym_hitgen/mmio_read	N: ksym_hitgen_mmio() reads
 *						that register N times
 *	/sys/kernel/debug/ksym_hitgen/vmalloc_addr	address of a word in a
 *						vmalloc'd page the module keeps
 *	/sys/kernel/debug/ksym_hitgen/vmalloc_write	N: ksym_hitgen_vmalloc_write()
 *						stores 1..N into that word
 *	/sys/kernel/debug/ksym_hitgen/rec_count	N: stores 1..N into
 *						ksym_hitgen_rec.count (a struct
 *						field: "(struct ksym_hitgen_rec)
 *						ksym_hitgen_rec.count")
 *	/sys/kernel/debug/ksym_hitgen/rec_name	N: stores N times into
 *						ksym_hitgen_rec.name[2]
 *	/sys/kernel/debug/ksym_hitgen/pcpu_write	N: stores 1..N into this CPU's
 *						ksym_hitgen_pcpu.count (per-CPU)
 *	/sys/kernel/debug/ksym_hitgen/pcpu_remote	N: stores 1..N into the next
 *						online CPU's ksym_hitgen_pcpu.count,
 *						from this CPU (what a per-CPU
 *						watch cannot see)
 *	/sys/kernel/debug/ksym_hitgen/write_irq	N: ksym_hitgen_write_irq()
 *						stores 1..N into ksym_hitgen_var,
 *						each store just after an
 *						interrupt (an irq_work making
 *						KSYM_HITGEN_IRQ_CALLS calls of
 *						ksym_hitgen_irq_noise()) that came
 *						after its last call,
 *						ksym_hitgen_irq_mark()
 *	/sys/kernel/debug/ksym_hitgen/write_hardirq	N: stores 1..N into
 *						ksym_hitgen_var from
 *						ksym_hitgen_ctx_store(), called
 *						by an irq_work (hardirq context)
 *	/sys/kernel/debug/ksym_hitgen/write_softirq	N: the same called by a
 *						timer (softirq context; one tick
 *						a store)
 *	/sys/kernel/debug/ksym_hitgen/object	N: kmallocs object_count
 *						struct ksym_hitgen_obj, each
 *						announced by the event
 *						ksym_hitgen:ksym_hitgen_obj_alloc;
 *						ksym_hitgen_obj_write() stores
 *						1..N into each one's count; each
 *						is announced by
 *						ksym_hitgen_obj_free and freed
 *	/sys/kernel/debug/ksym_hitgen/event_hot	N: N ksym_hitgen_obj_free
 *						events of a static object nothing
 *						watches (make bench)
 *	/sys/kernel/debug/ksym_hitgen/cache_loop	N: N kmem_cache_alloc() and
 *						kmem_cache_free() of one object of
 *						ksym_hitgen_cache (200 bytes,
 *						unmerged; make bench)
 *	/sys/kernel/debug/ksym_hitgen/object_count	objects at once (1-16)
 *	/sys/kernel/debug/ksym_hitgen/object_memory	where object's objects are:
 *						0 kzalloc, 1 vzalloc (vmalloc
 *						space), 2 the module's data
 *	/sys/kernel/debug/ksym_hitgen/uaf	N: N rounds of a planted use
 *						after free in ksym_hitgen_cache:
 *						ksym_hitgen_uaf_use() stores into
 *						the first word of an object, it is
 *						freed, ksym_hitgen_uaf_stray_now()
 *						stores 0xdead0000 + round into it
 *						at once, ksym_hitgen_uaf_stray_late()
 *						0xbeef0000 + round 20 ms later
 *	/sys/kernel/debug/ksym_hitgen/local	N: ksym_hitgen_local(N, 1):
 *						ksym_hitgen_local_callee() stores
 *						1..N into its local; then an
 *						interrupt's ksym_hitgen_local_stray()
 *						stores 0x5001..0x5000+N into it
 *						through a leaked pointer
 *	/sys/kernel/debug/ksym_hitgen/local_nested	N: ksym_hitgen_local(N, 2):
 *						the same in a call and in the
 *						call it makes of itself
 *	/sys/kernel/debug/ksym_hitgen/local_addr	the local's address in
 *						the last (innermost) call
 *	/sys/kernel/debug/ksym_hitgen/local_loop	N: 10 calls back to back of
 *						ksym_hitgen_local_quick(N), whose
 *						callee stores 1..N into its local,
 *						each followed by
 *						ksym_hitgen_local_after() storing
 *						1..N into 32 words over the same
 *						stack (local_addr: the local's)
 *	/sys/kernel/debug/ksym_hitgen/after_covers	1 if those 32 words held
 *						the local's
 *	/sys/kernel/debug/ksym_hitgen/kfree_reuse	N: N objects of
 *						ksym_hitgen_cache kfree()d by
 *						ksym_hitgen_kfree_site(), given out
 *						again by kmem_cache_alloc() and
 *						written by ksym_hitgen_new_owner()
 *	/sys/kernel/debug/ksym_hitgen/kfree_reuse_same	of them, the rounds that
 *						got the same object back
 *	/sys/kernel/debug/ksym_hitgen/local_deep	N: one such call under 4 KiB
 *						of frame
 *	/sys/kernel/debug/ksym_hitgen/local_stale	N: one such call and its
 *						after, 300 ms of sleep, the after
 *						again (interrupts off but in the
 *						sleep)
 *	/sys/kernel/debug/ksym_hitgen/call_scope	N: ksym_hitgen_scoped(obj, N)
 *						stores 1..N into a kzalloc'd
 *						object's count; after it returns
 *						ksym_hitgen_obj_stray() stores
 *						1..N again
 *	/sys/kernel/debug/ksym_hitgen/twin_arg	N: ksym_hitgen_twin_arg(p, N)
 *						stores 1..N into a kzalloc'd
 *						struct ksym_test_twin's b, then
 *						ksym_hitgen_pair_arg(pair, p)
 *						(pair by value) 0x101..0x100+N
 *	/sys/kernel/debug/ksym_hitgen/object_now	N: one object, interrupts
 *						off from its alloc event to
 *						after its free event: N stores
 *						by ksym_hitgen_obj_write() right
 *						after the alloc event, N by
 *						ksym_hitgen_obj_stray() right
 *						after the free event
 *	/sys/kernel/debug/ksym_hitgen/object_now_irqon	N: the same with
 *						interrupts on
 *	/sys/kernel/debug/ksym_hitgen/floor	1: a write breakpoint on
 *						ksym_hitgen_var on every CPU whose
 *						overflow handler only counts; 0:
 *						none; reads the hits it counted
 *	/sys/kernel/debug/ksym_hitgen/bare	1: the same breakpoint counting
 *						(no sample period), so no overflow
 *						handler runs; 0: none; reads
 *						perf's count of its hits
 *	/sys/kernel/debug/ksym_hitgen/foreign	1: a write breakpoint on
 *						ksym_hitgen_var on every CPU whose
 *						handler counts and does not ask
 *						for a step over (arm64: another
 *						in-kernel user that steps by
 *						other means); 0: none; reads
 *						the hits it counted
 *
 * floor is for make bench: what perf's breakpoint core costs with the
 * least overflow handler there is, the floor of any tracer built on it. It
 * takes a debug register on the CPUs online when it is set (not on CPUs
 * that come online later): leave it off while other tests count slots.
 * bare is the bare trap below the floor: the debug exception,
 * hw_breakpoint_handler and perf's count, with nothing to call.
 * foreign shares an access with a ksym watch: on arm64 the access is
 * stepped over if any handler of its watchpoints asks, once.
 *
 * Each write of N to a control file runs on the writing task's CPU, so
 * "taskset -c 1 sh -c 'echo 100 > write_a'" makes 100 hits on CPU 1.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/io.h>
#include <linux/hw_breakpoint.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/irq_work.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kasan.h>
#include <linux/sched/signal.h>

#include "trace_ksym.h"

#define CREATE_TRACE_POINTS
#include <trace/events/ksym_hitgen.h>

/* Watched by the tests: 8-byte, 4-byte and 16-byte (no default LEN) data. */
unsigned long ksym_hitgen_var;
u32 ksym_hitgen_u32 __aligned(8);
u8 ksym_hitgen_buf[16] __aligned(8);

/*
 * A struct variable for field paths. BTF types only per-CPU variables (as
 * pahole 1.24 encodes them), so it is watched with a cast.
 */
struct ksym_hitgen_rec {
	u32		flags;
	u32		state;
	unsigned long	count;
	char		name[8];
	struct {
		u16	lo;
		u16	hi;
	} pair[2];
};

struct ksym_hitgen_rec ksym_hitgen_rec;

/* A per-CPU struct: each CPU's copy is watched on that CPU. */
struct ksym_hitgen_pcpu {
	unsigned long	pad;
	unsigned long	count;
	u32		small;
};

DEFINE_PER_CPU(struct ksym_hitgen_pcpu, ksym_hitgen_pcpu);

/*
 * Twins of the KUnit file's (built in) for ksym-btf-twin.tc: names are
 * not unique across BTFs. A struct of the same name laid out otherwise,
 * which a cast of this module's symbols must take, and a per-CPU
 * variable of the same name and another type, which must be typed by
 * this module's BTF.
 */
struct ksym_test_twin {
	u32		a;
	u32		b;
};

static struct ksym_test_twin ksym_hitgen_twin_obj __used;
static DEFINE_PER_CPU(unsigned long, ksym_hitgen_twin_pcpu) __used;

/*
 * An object found at run time: the object scenario allocates it, names it
 * in an event, writes its count and frees it. Its type is in the module's
 * BTF, so "ksym_watch:obj.count:-w-" resolves the path.
 */
struct ksym_hitgen_obj {
	unsigned long	id;
	unsigned long	count;
	u32		flags;
};

#define KSYM_HITGEN_OBJECTS_MAX	16
static u64 ksym_hitgen_objects = 1;

/* Keeps the loads of ksym_hitgen_read() from being optimized away. */
static unsigned long ksym_hitgen_sink;

static noinline void ksym_hitgen_write_a(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_var, i);
}

/*
 * write_all: every online CPU stores into ksym_hitgen_var N / CPUs times at
 * once (each in an IPI, interrupts off): a global watch hit on every CPU,
 * for make bench.
 */
static void ksym_hitgen_write_all_fn(void *info)
{
	ksym_hitgen_write_a(*(unsigned long *)info);
}

static noinline void ksym_hitgen_write_all(unsigned long n)
{
	unsigned long each;

	cpus_read_lock();
	each = n / num_online_cpus();
	on_each_cpu(ksym_hitgen_write_all_fn, &each, 1);
	cpus_read_unlock();
}

static noinline void ksym_hitgen_write_b(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_var, i);
}

/* Stores that change nothing: the value it holds, back into it. */
static noinline void ksym_hitgen_write_same(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		WRITE_ONCE(ksym_hitgen_var, READ_ONCE(ksym_hitgen_var));
}

static noinline void ksym_hitgen_read(unsigned long n)
{
	unsigned long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += READ_ONCE(ksym_hitgen_var);
	WRITE_ONCE(ksym_hitgen_sink, sum);
}

/*
 * Device memory for the "never read a register" rule, a register whose
 * reads have no side effect: on x86 the main counter of the PC platform's
 * HPET (QEMU's too); on arm64 the flag register of the PL011 UART of
 * QEMU's virt machine (elsewhere the register may not exist: the tests
 * that read it run on that machine).
 */
#ifdef CONFIG_ARM64
#define KSYM_HITGEN_MMIO_BASE	0x09000000UL
#define KSYM_HITGEN_MMIO_REG	0x18
#else
#define KSYM_HITGEN_MMIO_BASE	0xfed00000UL
#define KSYM_HITGEN_MMIO_REG	0xf0
#endif
static void __iomem *ksym_hitgen_mmio_base;

static noinline void ksym_hitgen_mmio(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		readl(ksym_hitgen_mmio_base + KSYM_HITGEN_MMIO_REG);
}

static int ksym_hitgen_mmio_addr_get(void *data, u64 *val)
{
	*val = (unsigned long)ksym_hitgen_mmio_base + KSYM_HITGEN_MMIO_REG;
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_mmio_addr_fops, ksym_hitgen_mmio_addr_get,
			 NULL, "0x%llx\n");

/*
 * A word of vmalloc space: vmalloc and ioremap share one range, so the
 * tracer must not read a watch there on a hit (the area may have become a
 * device's by then).
 */
static unsigned long *ksym_hitgen_vmalloc_page;

static noinline void ksym_hitgen_vmalloc_write(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_vmalloc_page[1], i);
}

static int ksym_hitgen_vmalloc_addr_get(void *data, u64 *val)
{
	*val = (unsigned long)&ksym_hitgen_vmalloc_page[1];
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_vmalloc_addr_fops,
			 ksym_hitgen_vmalloc_addr_get, NULL, "0x%llx\n");

static noinline void ksym_hitgen_write_u32(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_u32, (u32)i);
}

static noinline void ksym_hitgen_rec_count(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_rec.count, i);
}

static noinline void ksym_hitgen_rec_name(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(ksym_hitgen_rec.name[2], 'a' + i % 26);
}

/* this_cpu_write(): one store to this CPU's copy, as per-CPU code does. */
static noinline void ksym_hitgen_pcpu_write(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		this_cpu_write(ksym_hitgen_pcpu.count, i);
}

/* per_cpu(x, other) from this CPU: not seen by a per-CPU watch. */
static noinline void ksym_hitgen_pcpu_remote(unsigned long n)
{
	unsigned long i;
	int cpu;

	cpus_read_lock();
	cpu = cpumask_next(raw_smp_processor_id(), cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first(cpu_online_mask);
	for (i = 1; i <= n; i++)
		WRITE_ONCE(per_cpu(ksym_hitgen_pcpu, cpu).count, i);
	cpus_read_unlock();
}

/*
 * An interrupt between an accessor's last call and its store: a branch
 * snippet of the store should show the accessor's calls, not the
 * interrupt's. The irq_work runs in hardirq context (also on PREEMPT_RT).
 */
#define KSYM_HITGEN_IRQ_CALLS	64

static noinline void ksym_hitgen_irq_noise(void)
{
	barrier();
}

static void ksym_hitgen_irq_fn(struct irq_work *work)
{
	int i;

	for (i = 0; i < KSYM_HITGEN_IRQ_CALLS; i++)
		ksym_hitgen_irq_noise();
}

static struct irq_work ksym_hitgen_irq_work =
	IRQ_WORK_INIT_HARD(ksym_hitgen_irq_fn);

static noinline void ksym_hitgen_irq_mark(void)
{
	barrier();
}

static noinline void ksym_hitgen_write_irq(unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n && !fatal_signal_pending(current); i++) {
		cond_resched();
		local_irq_disable();
		irq_work_queue(&ksym_hitgen_irq_work);
		ksym_hitgen_irq_mark();
		/* The self-IPI comes in here (or at the next tick). */
		local_irq_enable();
		irq_work_sync(&ksym_hitgen_irq_work);
		WRITE_ONCE(ksym_hitgen_var, i);
	}
}

/*
 * Stores made in an interrupt or a softirq: their snippets come from
 * that context's calls, not from the task's that asked for them.
 */
struct ksym_hitgen_ctx {
	struct irq_work		work;
	struct timer_list	timer;
	struct completion	done;
	unsigned long		val;
};

static noinline void ksym_hitgen_ctx_store(unsigned long val)
{
	WRITE_ONCE(ksym_hitgen_var, val);
}

static void ksym_hitgen_hardirq_fn(struct irq_work *work)
{
	struct ksym_hitgen_ctx *ctx = container_of(work, struct ksym_hitgen_ctx,
						   work);

	ksym_hitgen_ctx_store(ctx->val);
}

static noinline void ksym_hitgen_write_hardirq(unsigned long n)
{
	struct ksym_hitgen_ctx ctx = {
		.work = IRQ_WORK_INIT_HARD(ksym_hitgen_hardirq_fn),
	};

	for (ctx.val = 1; ctx.val <= n && !fatal_signal_pending(current);
	     ctx.val++) {
		cond_resched();
		irq_work_queue(&ctx.work);
		irq_work_sync(&ctx.work);
	}
}

static void ksym_hitgen_softirq_fn(struct timer_list *timer)
{
	struct ksym_hitgen_ctx *ctx = from_timer(ctx, timer, timer);

	ksym_hitgen_ctx_store(ctx->val);
	complete(&ctx->done);
}

static noinline void ksym_hitgen_write_softirq(unsigned long n)
{
	struct ksym_hitgen_ctx ctx;

	timer_setup_on_stack(&ctx.timer, ksym_hitgen_softirq_fn, 0);
	for (ctx.val = 1; ctx.val <= n && !fatal_signal_pending(current);
	     ctx.val++) {
		init_completion(&ctx.done);
		mod_timer(&ctx.timer, jiffies);
		wait_for_completion(&ctx.done);
	}
	/* The callback may still be returning from complete(). */
	timer_delete_sync(&ctx.timer);
	destroy_timer_on_stack(&ctx.timer);
}

/* Many distinct accessors, to overflow the per-CPU caller slots. */
#define KSYM_HITGEN_CALLER(nn)						\
static noinline void ksym_hitgen_caller_##nn(unsigned long n)		\
{									\
	unsigned long i;						\
									\
	for (i = 1; i <= n; i++)					\
		WRITE_ONCE(ksym_hitgen_var, i);				\
}

KSYM_HITGEN_CALLER(00) KSYM_HITGEN_CALLER(01) KSYM_HITGEN_CALLER(02)
KSYM_HITGEN_CALLER(03) KSYM_HITGEN_CALLER(04) KSYM_HITGEN_CALLER(05)
KSYM_HITGEN_CALLER(06) KSYM_HITGEN_CALLER(07) KSYM_HITGEN_CALLER(08)
KSYM_HITGEN_CALLER(09) KSYM_HITGEN_CALLER(10) KSYM_HITGEN_CALLER(11)
KSYM_HITGEN_CALLER(12) KSYM_HITGEN_CALLER(13) KSYM_HITGEN_CALLER(14)
KSYM_HITGEN_CALLER(15) KSYM_HITGEN_CALLER(16) KSYM_HITGEN_CALLER(17)
KSYM_HITGEN_CALLER(18) KSYM_HITGEN_CALLER(19)

static void (* const ksym_hitgen_callers[])(unsigned long n) = {
	ksym_hitgen_caller_00, ksym_hitgen_caller_01, ksym_hitgen_caller_02,
	ksym_hitgen_caller_03, ksym_hitgen_caller_04, ksym_hitgen_caller_05,
	ksym_hitgen_caller_06, ksym_hitgen_caller_07, ksym_hitgen_caller_08,
	ksym_hitgen_caller_09, ksym_hitgen_caller_10, ksym_hitgen_caller_11,
	ksym_hitgen_caller_12, ksym_hitgen_caller_13, ksym_hitgen_caller_14,
	ksym_hitgen_caller_15, ksym_hitgen_caller_16, ksym_hitgen_caller_17,
	ksym_hitgen_caller_18, ksym_hitgen_caller_19,
};

static noinline void ksym_hitgen_spread(unsigned long n)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_hitgen_callers); i++)
		ksym_hitgen_callers[i](n);
}

/* Largest N per write: keeps one write well under a second under TCG. */
#define KSYM_HITGEN_MAX_N	10000000UL

static int ksym_hitgen_run(void *data, u64 n)
{
	void (*fn)(unsigned long n) = data;

	if (n > KSYM_HITGEN_MAX_N)
		return -ERANGE;
	fn(n);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_fops, NULL, ksym_hitgen_run, "%llu\n");

static int ksym_hitgen_var_get(void *data, u64 *val)
{
	*val = READ_ONCE(ksym_hitgen_var);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_var_fops, ksym_hitgen_var_get, NULL,
			 "%llu\n");

static noinline void ksym_hitgen_obj_write(struct ksym_hitgen_obj *obj,
					   unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(obj->count, i);
}

/*
 * Where the object scenario's objects live (object_memory): the direct map
 * (kzalloc), vmalloc space (vzalloc, a page each) or the module's own data.
 */
enum {
	KSYM_HITGEN_MEM_KMALLOC,
	KSYM_HITGEN_MEM_VMALLOC,
	KSYM_HITGEN_MEM_MODULE,
	KSYM_HITGEN_MEM_NR,
};

static int ksym_hitgen_obj_memory;
static struct ksym_hitgen_obj ksym_hitgen_module_objs[KSYM_HITGEN_OBJECTS_MAX];

static struct ksym_hitgen_obj *ksym_hitgen_obj_new(int memory, int i)
{
	struct ksym_hitgen_obj *obj;

	switch (memory) {
	case KSYM_HITGEN_MEM_VMALLOC:
		obj = vzalloc(sizeof(*obj));
		break;
	case KSYM_HITGEN_MEM_MODULE:
		obj = &ksym_hitgen_module_objs[i];
		memset(obj, 0, sizeof(*obj));
		break;
	default:
		obj = kzalloc(sizeof(*obj), GFP_KERNEL);
		break;
	}
	if (obj)
		obj->id = i;
	return obj;
}

static void ksym_hitgen_obj_del(int memory, struct ksym_hitgen_obj *obj)
{
	if (memory == KSYM_HITGEN_MEM_VMALLOC)
		vfree(obj);
	else if (memory == KSYM_HITGEN_MEM_KMALLOC)
		kfree(obj);
}

static int ksym_hitgen_obj_memory_get(void *data, u64 *val)
{
	*val = READ_ONCE(ksym_hitgen_obj_memory);
	return 0;
}

static int ksym_hitgen_obj_memory_set(void *data, u64 val)
{
	if (val >= KSYM_HITGEN_MEM_NR)
		return -ERANGE;
	WRITE_ONCE(ksym_hitgen_obj_memory, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_obj_memory_fops,
			 ksym_hitgen_obj_memory_get,
			 ksym_hitgen_obj_memory_set, "%llu\n");

/*
 * object_count objects at once: all allocated and announced, then each
 * written N times, then each announced as freed and freed. After each
 * event, ksym_trigger_settle() waits until a watch the event's trigger
 * started is live on every CPU (or one its unwatch ended is parked), so
 * the counts are exact: N hits per object watched, none for the others.
 */
static int ksym_hitgen_object(void *data, u64 n)
{
	struct ksym_hitgen_obj *objs[KSYM_HITGEN_OBJECTS_MAX];
	int i, nr = READ_ONCE(ksym_hitgen_objects), ret = 0, settled;
	int memory = READ_ONCE(ksym_hitgen_obj_memory);

	if (n > KSYM_HITGEN_MAX_N)
		return -ERANGE;
	/* Triggers just set: their slots are registered by a work item. */
	ksym_trigger_sync();
	for (i = 0; i < nr; i++) {
		objs[i] = ksym_hitgen_obj_new(memory, i);
		if (!objs[i]) {
			ret = -ENOMEM;
			nr = i;
			break;
		}
		objs[i]->id = i;
		trace_ksym_hitgen_obj_alloc(objs[i]);
		settled = ksym_trigger_settle((unsigned long)objs[i]);
		if (settled < 0 && !ret)
			ret = settled;
	}
	for (i = 0; !ret && i < nr; i++)
		ksym_hitgen_obj_write(objs[i], n);
	for (i = 0; i < nr; i++) {
		trace_ksym_hitgen_obj_free(objs[i]);
		settled = ksym_trigger_settle((unsigned long)objs[i]);
		if (settled < 0 && !ret)
			ret = settled;
		ksym_hitgen_obj_del(memory, objs[i]);
	}
	return ret;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_object_fops, NULL, ksym_hitgen_object,
			 "%llu\n");

/*
 * An object nothing watches, announced as freed N times: the cost of a
 * trigger on a hot event whose address is not watched (make bench).
 */
static struct ksym_hitgen_obj ksym_hitgen_hot_obj;

static noinline void ksym_hitgen_event_hot(unsigned long n)
{
	unsigned long i;

	for (i = 0; i < n; i++)
		trace_ksym_hitgen_obj_free(&ksym_hitgen_hot_obj);
}

/*
 * N allocations and frees from a cache of its own (no merging: its name
 * and size tell its kmem:kmem_cache_alloc/free events apart), as a
 * use-after-free hunt's triggers see them (make bench).
 */
#define KSYM_HITGEN_CACHE_SIZE	200
static struct kmem_cache *ksym_hitgen_cache;

/* A constructor keeps the allocator's own words out of the object. */
static void ksym_hitgen_cache_ctor(void *obj)
{
	memset(obj, 0, KSYM_HITGEN_CACHE_SIZE);
}

static noinline void ksym_hitgen_cache_loop(unsigned long n)
{
	unsigned long i;
	void *p;

	/* Triggers just set: their slots are registered by a work item. */
	ksym_trigger_sync();
	for (i = 0; i < n && ksym_hitgen_cache; i++) {
		p = kmem_cache_alloc(ksym_hitgen_cache, GFP_KERNEL);
		if (!p)
			return;
		kmem_cache_free(ksym_hitgen_cache, p);
	}
}

/*
 * kfree_reuse: N rounds of an object of ksym_hitgen_cache given back with
 * kfree() by ksym_hitgen_kfree_site() (legal for an object of a named
 * cache), handed out again by kmem_cache_alloc() (the same object, from
 * this CPU's free list, unless KASAN's quarantine holds it), written by
 * its new owner ksym_hitgen_new_owner() and freed with kmem_cache_free():
 * no use after free. kfree_reuse_same: the rounds whose allocation gave
 * the same object back.
 */
static unsigned long ksym_hitgen_kfree_same;

static unsigned long ksym_hitgen_kfree_calls;

static noinline void ksym_hitgen_kfree_site(void *obj)
{
	kfree(obj);
	/* After the call: no tail call, the free's call site is here. */
	WRITE_ONCE(ksym_hitgen_kfree_calls, ksym_hitgen_kfree_calls + 1);
}

static noinline void ksym_hitgen_new_owner(unsigned long *word,
					   unsigned long v)
{
	WRITE_ONCE(*word, v);
}

static noinline void ksym_hitgen_kfree_reuse(unsigned long n)
{
	unsigned long i, *a, *b;

	ksym_trigger_sync();
	ksym_hitgen_kfree_same = 0;
	for (i = 1; i <= n && ksym_hitgen_cache; i++) {
		a = kmem_cache_alloc(ksym_hitgen_cache, GFP_KERNEL);
		if (!a)
			return;
		ksym_hitgen_kfree_site(a);
		/* The free's watch is live everywhere. */
		ksym_trigger_settle((unsigned long)a);
		b = kmem_cache_alloc(ksym_hitgen_cache, GFP_KERNEL);
		if (!b)
			return;
		/* And the allocation's unwatch, if it is the same object. */
		ksym_trigger_settle((unsigned long)b);
		ksym_hitgen_kfree_same += a == b;
		ksym_hitgen_new_owner(b, i);
		kmem_cache_free(ksym_hitgen_cache, b);
	}
}

static int ksym_hitgen_kfree_same_get(void *data, u64 *val)
{
	*val = ksym_hitgen_kfree_same;
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_kfree_same_fops,
			 ksym_hitgen_kfree_same_get, NULL, "%llu\n");

/*
 * The planted use after free (uaf): N rounds of one object of
 * ksym_hitgen_cache. ksym_hitgen_uaf_use() stores into its first word,
 * the object is freed, and ksym_hitgen_uaf_stray_now() stores into that
 * word right after kmem_cache_free() returns, on the same CPU; once
 * KSYM_HITGEN_UAF_LATE_MS have passed, ksym_hitgen_uaf_stray_late() stores
 * into it again. Two stray stores a round, the next round's allocation
 * (ksym_trigger_settle() after it) takes the object back. The cache has a
 * constructor, so that neither SLUB's free pointer nor KASAN's free
 * metadata (its quarantine link) is in the object: the planted stores
 * corrupt nothing of the allocator's. KASAN's report of them is turned
 * off: they are the test's, not a bug.
 */
#define KSYM_HITGEN_UAF_LATE_MS	20

static noinline void ksym_hitgen_uaf_use(unsigned long *word, unsigned long v)
{
	WRITE_ONCE(*word, v);
}

static noinline void ksym_hitgen_uaf_stray_now(unsigned long *word,
					       unsigned long v)
{
	kasan_disable_current();
	WRITE_ONCE(*word, v);
	kasan_enable_current();
}

static noinline void ksym_hitgen_uaf_stray_late(unsigned long *word,
						unsigned long v)
{
	kasan_disable_current();
	WRITE_ONCE(*word, v);
	kasan_enable_current();
}

static noinline void ksym_hitgen_uaf(unsigned long n)
{
	unsigned long i, *word;
	struct folio *folio;
	int settled;

	ksym_trigger_sync();
	for (i = 1; i <= n && ksym_hitgen_cache; i++) {
		word = kmem_cache_alloc(ksym_hitgen_cache, GFP_KERNEL);
		if (!word)
			return;
		ksym_trigger_settle((unsigned long)word);
		ksym_hitgen_uaf_use(word, 0x1000 + i);
		/*
		 * A reference to the slab's page keeps it from the page
		 * allocator until the late store is done, should SLUB give
		 * the emptied slab back meanwhile.
		 */
		folio = virt_to_folio(word);
		folio_get(folio);
		preempt_disable();
		kmem_cache_free(ksym_hitgen_cache, word);
		ksym_hitgen_uaf_stray_now(word, 0xdead0000 + i);
		preempt_enable();
		settled = ksym_trigger_settle((unsigned long)word);
		msleep(KSYM_HITGEN_UAF_LATE_MS);
		ksym_hitgen_uaf_stray_late(word, 0xbeef0000 + i);
		folio_put(folio);
		if (settled < 0)
			return;
	}
}

/*
 * A call that owns an object while it runs (call_scope): the function an
 * entry and a return probe are put on, its object its first argument.
 * Not static, so that the compiler keeps its name and its arguments.
 */
noinline void ksym_hitgen_scoped(struct ksym_hitgen_obj *obj, unsigned long n);
noinline void ksym_hitgen_scoped(struct ksym_hitgen_obj *obj, unsigned long n)
{
	/* An entry probe's ksym_watch is live everywhere before the stores. */
	ksym_trigger_settle((unsigned long)obj);
	ksym_hitgen_obj_write(obj, n);
}

/* Stores into an object after its free event: a use after free. */
static noinline void ksym_hitgen_obj_stray(struct ksym_hitgen_obj *obj,
					   unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(obj->count, i);
}

/*
 * call_scope N: ksym_hitgen_scoped() stores 1..N into a kzalloc'd
 * object's count through ksym_hitgen_obj_write(); once it has returned
 * (and the return probe's ksym_unwatch has parked the slot everywhere),
 * ksym_hitgen_obj_stray() stores 1..N into it again: N hits inside the
 * call, none after.
 */
static noinline void ksym_hitgen_call_scope(unsigned long n)
{
	struct ksym_hitgen_obj *obj;

	ksym_trigger_sync();
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return;
	ksym_hitgen_scoped(obj, n);
	ksym_trigger_settle((unsigned long)obj);
	ksym_hitgen_obj_stray(obj, n);
	kfree(obj);
}

/*
 * A local variable and who writes it (local, local_nested): the stack
 * watch's case. ksym_hitgen_local() lets ksym_hitgen_local_callee() store
 * 1..N into its local through a pointer (legitimate), then, once the
 * nested call (if any) is back, an interrupt on its CPU runs
 * ksym_hitgen_local_stray(), which stores N times through the pointer
 * the function handed it (the planted bug; each call its own work, so
 * that tasks in the function at once each have their own). The
 * local's address of the outermost call is kept for local_addr, so that
 * a test can find its offset from the stack pointer an entry probe
 * fetched.
 */
static unsigned long ksym_hitgen_local_addr;

static noinline void ksym_hitgen_local_callee(unsigned long *local,
					      unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(*local, i);
}

/* The interrupt's work: the pointer it was handed, and how often. */
struct ksym_hitgen_stray_work {
	struct irq_work	work;
	unsigned long	*leak;
	unsigned long	n;
};

static noinline void ksym_hitgen_local_stray(unsigned long *p,
					     unsigned long n)
{
	unsigned long i;

	for (i = 1; i <= n; i++)
		WRITE_ONCE(*p, 0x5000 + i);
}

static void ksym_hitgen_local_irq_fn(struct irq_work *work)
{
	struct ksym_hitgen_stray_work *w =
		container_of(work, struct ksym_hitgen_stray_work, work);

	ksym_hitgen_local_stray(w->leak, w->n);
}

/* Not static: probes find it by name, with its arguments where they were. */
noinline unsigned long ksym_hitgen_local(unsigned long n, unsigned long depth);
noinline unsigned long ksym_hitgen_local(unsigned long n, unsigned long depth)
{
	struct ksym_hitgen_stray_work stray = {
		.work	= IRQ_WORK_INIT_HARD(ksym_hitgen_local_irq_fn),
		.n	= n,
	};
	unsigned long local __uninitialized;

	/* An entry probe's watch of the local is live everywhere. */
	ksym_trigger_settle((unsigned long)&local);
	ksym_hitgen_local_callee(&local, n);
	if (depth > 1)
		ksym_hitgen_local(n, depth - 1);
	else
		WRITE_ONCE(ksym_hitgen_local_addr, (unsigned long)&local);
	/* The leak: an interrupt on this CPU, waited for, stores through it. */
	stray.leak = &local;
	irq_work_queue(&stray.work);
	irq_work_sync(&stray.work);
	/* N = 0: the callee stored nothing, nothing to read. */
	return n ? READ_ONCE(local) : 0;
}

static noinline void ksym_hitgen_local_1(unsigned long n)
{
	/* Triggers just set: their slots are registered by a work item. */
	ksym_trigger_sync();
	ksym_hitgen_local(n, 1);
}

static noinline void ksym_hitgen_local_2(unsigned long n)
{
	ksym_trigger_sync();
	ksym_hitgen_local(n, 2);
}

/*
 * The stack variables below are __uninitialized: a kernel built with
 * CONFIG_INIT_STACK_ALL_ZERO (the default where the compiler has it)
 * zeroes them at entry where it cannot prove the first store comes first
 * (UBSAN's bounds checks, KASAN), and a watched word would take those
 * stores as hits too: the counts the cases check are the stores written
 * here, on every kernel.
 *
 * A function called back to back (local_loop): each call of
 * ksym_hitgen_local_quick() has the callee store 1..N into its local and
 * returns at once (no wait for the other CPUs, unlike ksym_hitgen_local());
 * then ksym_hitgen_local_after(), called from the same frame, stores
 * 1..N into every word of a buffer over the same stack words. A watch
 * taken at each call's entry and ended at its return takes every call's
 * stores and none of the after's, however fast the calls follow.
 */
#define KSYM_HITGEN_LOOP_CALLS	10
#define KSYM_HITGEN_AFTER_WORDS	32

static unsigned long ksym_hitgen_after_lo, ksym_hitgen_after_hi;

/* Not static: probes find it by name. */
noinline unsigned long ksym_hitgen_local_quick(unsigned long n);
noinline unsigned long ksym_hitgen_local_quick(unsigned long n)
{
	/*
	 * The local below 15 words of its frame: not where an interrupt
	 * taken at the entry or at the return pushes its frame (under TCG
	 * such a hit of a watched word loses the interrupt).
	 */
	struct {
		unsigned long	local;
		unsigned long	above[15];
	} f __uninitialized;

	WRITE_ONCE(f.above[0], n);
	ksym_hitgen_local_callee(&f.local, READ_ONCE(f.above[0]));
	WRITE_ONCE(ksym_hitgen_local_addr, (unsigned long)&f.local);
	return n ? READ_ONCE(f.local) : 0;
}

static noinline void ksym_hitgen_local_after(unsigned long n)
{
	unsigned long buf[KSYM_HITGEN_AFTER_WORDS] __uninitialized;
	unsigned long i;
	int w;

	for (i = 1; i <= n; i++)
		for (w = 0; w < KSYM_HITGEN_AFTER_WORDS; w++)
			WRITE_ONCE(buf[w], i);
	ksym_hitgen_after_lo = (unsigned long)&buf[0];
	ksym_hitgen_after_hi = (unsigned long)&buf[KSYM_HITGEN_AFTER_WORDS];
}

/*
 * local_deep: one ksym_hitgen_local_quick(N) under 4 KiB of frames, so that
 * what the task does after (its exit) never reaches the local's word:
 * a watch left on it is hit by nothing, and ends with the task.
 */
static noinline unsigned long ksym_hitgen_deeper(unsigned long n, int depth)
{
	unsigned long frame[112] __uninitialized;

	WRITE_ONCE(frame[0], n);
	if (depth)
		ksym_hitgen_deeper(n, depth - 1);
	else
		ksym_hitgen_local_quick(n);
	/* Read after the call: no tail call, the frame stays. */
	return READ_ONCE(frame[0]);
}

static noinline void ksym_hitgen_local_deep(unsigned long n)
{
	ksym_trigger_sync();
	ksym_hitgen_deeper(n, 4);
}

static noinline void ksym_hitgen_local_loop(unsigned long n)
{
	int i;

	ksym_trigger_sync();
	for (i = 0; i < KSYM_HITGEN_LOOP_CALLS; i++) {
		ksym_hitgen_local_quick(n);
		ksym_hitgen_local_after(n);
	}
}

/*
 * Sleep with interrupts on inside a call, for local_stale: its caller runs
 * with them off, so that no interrupt pushes its frame over the dead
 * local below the caller's stack pointer (under QEMU's TCG such a hit
 * loses the interrupt: ksym.rst, Local variables); here the local lies in
 * this call's own frame, and the after's second stores take its hits.
 */
static noinline void ksym_hitgen_sleep_irqs_on(unsigned int ms)
{
	unsigned long frame[KSYM_HITGEN_AFTER_WORDS] __uninitialized;

	/* The frame covers the local's word (as the after's buffer does). */
	WRITE_ONCE(frame[0], ms);
	local_irq_enable();
	msleep(READ_ONCE(frame[0]));
	local_irq_disable();
}

/*
 * local_stale: one call of ksym_hitgen_local_quick(N), then
 * ksym_hitgen_local_after(N) over its finished frame, a sleep of
 * local_stale_ms, and ksym_hitgen_local_after(N) again. A watch taken at
 * the call's entry and never ended is hit by the first after's N stores,
 * and is stale by the second (ksym_stack_watch_ms below the sleep).
 */
static unsigned int ksym_hitgen_local_stale_ms = 300;

static noinline void ksym_hitgen_local_stale(unsigned long n)
{
	ksym_trigger_sync();
	local_irq_disable();
	ksym_hitgen_local_quick(n);
	ksym_hitgen_local_after(n);
	ksym_hitgen_sleep_irqs_on(ksym_hitgen_local_stale_ms);
	ksym_hitgen_local_after(n);
	local_irq_enable();
}

/*
 * Probe targets whose struct argument BTF must type from this module's
 * own BTF (ksym-btf-module-arg.tc): struct ksym_test_twin is the KUnit
 * file's name too, laid out otherwise (b at 8, not 4). Not static:
 * probes find them by name, with their arguments where they were.
 */
noinline void ksym_hitgen_twin_arg(struct ksym_test_twin *p, unsigned long n);
noinline void ksym_hitgen_twin_arg(struct ksym_test_twin *p, unsigned long n)
{
	unsigned long i;

	/* An entry probe's ksym_watch is live everywhere before the stores. */
	ksym_trigger_settle((unsigned long)p);
	for (i = 1; i <= n; i++)
		WRITE_ONCE(p->b, i);
}

/*
 * Passed by value in two registers (x86-64, arm64): the object is the
 * second C parameter but the third register argument, $arg3.
 */
struct ksym_hitgen_pair {
	unsigned long	lo;
	unsigned long	hi;
};

noinline void ksym_hitgen_pair_arg(struct ksym_hitgen_pair pair,
				   struct ksym_test_twin *p);
noinline void ksym_hitgen_pair_arg(struct ksym_hitgen_pair pair,
				   struct ksym_test_twin *p)
{
	unsigned long i;

	ksym_trigger_settle((unsigned long)p);
	for (i = 1; i <= pair.lo; i++)
		WRITE_ONCE(p->b, i + pair.hi);
}

/*
 * twin_arg N: ksym_hitgen_twin_arg() stores 1..N into a kzalloc'd
 * struct ksym_test_twin's b, then ksym_hitgen_pair_arg() stores
 * 0x100 + 1..N into it.
 */
static noinline void ksym_hitgen_twin_args(unsigned long n)
{
	struct ksym_hitgen_pair pair = { .lo = n, .hi = 0x100 };
	struct ksym_test_twin *p;

	ksym_trigger_sync();
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return;
	ksym_hitgen_twin_arg(p, n);
	ksym_hitgen_pair_arg(pair, p);
	ksym_trigger_settle((unsigned long)p);
	kfree(p);
}

/* 1 if local_loop's after covered the quick call's local: the test holds. */
static int ksym_hitgen_after_covers_get(void *data, u64 *val)
{
	unsigned long local = READ_ONCE(ksym_hitgen_local_addr);

	*val = local >= ksym_hitgen_after_lo &&
	       local + sizeof(long) <= ksym_hitgen_after_hi;
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_after_covers_fops,
			 ksym_hitgen_after_covers_get, NULL, "%llu\n");

static int ksym_hitgen_local_addr_get(void *data, u64 *val)
{
	*val = READ_ONCE(ksym_hitgen_local_addr);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_local_addr_fops,
			 ksym_hitgen_local_addr_get, NULL, "0x%llx\n");

/*
 * One object, its events and stores on this CPU with nothing between
 * them: the alloc event, N stores, the free event, N stray stores; with
 * interrupts off (@irqs_off: the CPU's irq_work cannot run before the
 * stores) or on. A watch the alloc event's trigger starts must take the
 * N stores, one the free event's trigger ends none of the stray ones.
 * Then ksym_trigger_settle() (the other CPUs) and the object is freed.
 */
static int ksym_hitgen_object_now(bool irqs_off, u64 n)
{
	struct ksym_hitgen_obj *obj;
	unsigned long flags = 0;
	int settled;

	if (n > KSYM_HITGEN_MAX_N)
		return -ERANGE;
	ksym_trigger_sync();
	obj = kzalloc(sizeof(*obj), GFP_KERNEL);
	if (!obj)
		return -ENOMEM;
	preempt_disable();
	if (irqs_off)
		local_irq_save(flags);
	trace_ksym_hitgen_obj_alloc(obj);
	ksym_hitgen_obj_write(obj, n);
	trace_ksym_hitgen_obj_free(obj);
	ksym_hitgen_obj_stray(obj, n);
	if (irqs_off)
		local_irq_restore(flags);
	preempt_enable();
	settled = ksym_trigger_settle((unsigned long)obj);
	kfree(obj);
	return settled < 0 ? settled : 0;
}

static int ksym_hitgen_object_now_irqoff(void *data, u64 n)
{
	return ksym_hitgen_object_now(true, n);
}

static int ksym_hitgen_object_now_irqon(void *data, u64 n)
{
	return ksym_hitgen_object_now(false, n);
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_object_now_fops, NULL,
			 ksym_hitgen_object_now_irqoff, "%llu\n");
DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_object_now_irqon_fops, NULL,
			 ksym_hitgen_object_now_irqon, "%llu\n");

static int ksym_hitgen_objects_get(void *data, u64 *val)
{
	*val = READ_ONCE(ksym_hitgen_objects);
	return 0;
}

static int ksym_hitgen_objects_set(void *data, u64 val)
{
	if (!val || val > KSYM_HITGEN_OBJECTS_MAX)
		return -ERANGE;
	WRITE_ONCE(ksym_hitgen_objects, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_objects_fops, ksym_hitgen_objects_get,
			 ksym_hitgen_objects_set, "%llu\n");

/* The floor: a breakpoint whose overflow handler does nothing but count. */
static DEFINE_MUTEX(ksym_hitgen_floor_lock);
static struct perf_event * __percpu *ksym_hitgen_floor_bp;
static DEFINE_PER_CPU(unsigned long, ksym_hitgen_floor_hits);

static notrace void ksym_hitgen_floor_hit(struct perf_event *bp,
					  struct perf_sample_data *data,
					  struct pt_regs *regs)
{
	this_cpu_inc(ksym_hitgen_floor_hits);
}

/*
 * Register (@on 1) or unregister (0) a breakpoint on every CPU on writes of
 * ksym_hitgen_var, kept in @slot, with @handler; without one, a counting
 * event (no sample period): the trap and perf's count, nothing called.
 * @step_over: whether arm64 steps over the hits for this handler. Under
 * ksym_hitgen_floor_lock.
 */
static int ksym_hitgen_bp_set(struct perf_event * __percpu **slot, u64 on,
			      perf_overflow_handler_t handler, bool step_over)
{
	struct perf_event_attr attr;
	struct perf_event * __percpu *bp;
	int cpu;

	lockdep_assert_held(&ksym_hitgen_floor_lock);
	if (!on) {
		if (*slot)
			unregister_wide_hw_breakpoint(*slot);
		*slot = NULL;
		return 0;
	}
	if (*slot)
		return 0;
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&ksym_hitgen_var;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	if (!handler)
		attr.sample_period = 0;
	/*
	 * arm64 steps over the write only for handlers that ask: registered
	 * disabled, asked (or not), then enabled. CPUs offline at registration have
	 * no event.
	 */
	attr.disabled = 1;
	bp = register_wide_hw_breakpoint(&attr, handler, NULL);
	if (IS_ERR(bp))
		return PTR_ERR(bp);
	for_each_possible_cpu(cpu) {
		if (!per_cpu(*bp, cpu))
			continue;
		WRITE_ONCE(per_cpu(*bp, cpu)->hw.bp_step_over, step_over);
		perf_event_enable(per_cpu(*bp, cpu));
	}
	*slot = bp;
	return 0;
}

/* A breakpoint whose handler counts its hits per CPU: floor, foreign. */
struct ksym_hitgen_counted {
	struct perf_event * __percpu	**bp;
	unsigned long __percpu		*hits;
	perf_overflow_handler_t		handler;
	bool				step_over;
};

static int ksym_hitgen_counted_set(void *data, u64 on)
{
	struct ksym_hitgen_counted *c = data;
	int cpu;

	if (on > 1)
		return -EINVAL;
	guard(mutex)(&ksym_hitgen_floor_lock);
	if (on && !*c->bp)
		for_each_possible_cpu(cpu)
			WRITE_ONCE(*per_cpu_ptr(c->hits, cpu), 0);
	return ksym_hitgen_bp_set(c->bp, on, c->handler, c->step_over);
}

static int ksym_hitgen_counted_get(void *data, u64 *val)
{
	struct ksym_hitgen_counted *c = data;
	unsigned long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(c->hits, cpu);
	*val = sum;
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_counted_fops, ksym_hitgen_counted_get,
			 ksym_hitgen_counted_set, "%llu\n");

static struct ksym_hitgen_counted ksym_hitgen_floor = {
	.bp		= &ksym_hitgen_floor_bp,
	.hits		= &ksym_hitgen_floor_hits,
	.handler	= ksym_hitgen_floor_hit,
	.step_over	= true,
};

/*
 * A foreign in-kernel breakpoint: its handler counts and does not ask for a
 * step over. Alone on arm64 it would trap again forever; beside a ksym
 * watch on the same word the step the ksym handler asks for covers it.
 * Should the step not come (the access traps again and again), it asks for
 * one itself after KSYM_HITGEN_FOREIGN_RETRAPS hits on one CPU, so that a
 * broken step over shows as a count, not as a hung CPU.
 */
#define KSYM_HITGEN_FOREIGN_RETRAPS	10000
static struct perf_event * __percpu *ksym_hitgen_foreign_bp;
static DEFINE_PER_CPU(unsigned long, ksym_hitgen_foreign_hits);

static notrace void ksym_hitgen_foreign_hit(struct perf_event *bp,
					    struct perf_sample_data *data,
					    struct pt_regs *regs)
{
	if (this_cpu_inc_return(ksym_hitgen_foreign_hits) >=
	    KSYM_HITGEN_FOREIGN_RETRAPS)
		WRITE_ONCE(bp->hw.bp_step_over, true);
}

static struct ksym_hitgen_counted ksym_hitgen_foreign = {
	.bp		= &ksym_hitgen_foreign_bp,
	.hits		= &ksym_hitgen_foreign_hits,
	.handler	= ksym_hitgen_foreign_hit,
	.step_over	= false,
};

/* The bare trap: the floor's breakpoint counting, no handler to call. */
static struct perf_event * __percpu *ksym_hitgen_bare_bp;

static int ksym_hitgen_bare_set(void *data, u64 on)
{
	if (on > 1)
		return -EINVAL;
	guard(mutex)(&ksym_hitgen_floor_lock);
	return ksym_hitgen_bp_set(&ksym_hitgen_bare_bp, on, NULL, true);
}

static int ksym_hitgen_bare_get(void *data, u64 *val)
{
	struct perf_event *bp;
	u64 enabled, running;
	int cpu;

	*val = 0;
	guard(mutex)(&ksym_hitgen_floor_lock);
	if (!ksym_hitgen_bare_bp)
		return 0;
	for_each_possible_cpu(cpu) {
		bp = per_cpu(*ksym_hitgen_bare_bp, cpu);
		if (bp)
			*val += perf_event_read_value(bp, &enabled, &running);
	}
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(ksym_hitgen_bare_fops, ksym_hitgen_bare_get,
			 ksym_hitgen_bare_set, "%llu\n");

static struct dentry *ksym_hitgen_dir;

static int __init ksym_hitgen_init(void)
{
	static const struct {
		const char	*name;
		void		(*fn)(unsigned long n);
	} files[] = {
		{ "write_a",	ksym_hitgen_write_a },
		{ "write_all",	ksym_hitgen_write_all },
		{ "write_b",	ksym_hitgen_write_b },
		{ "write_same",	ksym_hitgen_write_same },
		{ "read",	ksym_hitgen_read },
		{ "spread",	ksym_hitgen_spread },
		{ "write_u32",	ksym_hitgen_write_u32 },
		{ "rec_count",	ksym_hitgen_rec_count },
		{ "rec_name",	ksym_hitgen_rec_name },
		{ "pcpu_write",	ksym_hitgen_pcpu_write },
		{ "pcpu_remote", ksym_hitgen_pcpu_remote },
		{ "write_irq",	ksym_hitgen_write_irq },
		{ "write_hardirq", ksym_hitgen_write_hardirq },
		{ "event_hot",	ksym_hitgen_event_hot },
		{ "cache_loop",	ksym_hitgen_cache_loop },
		{ "write_softirq", ksym_hitgen_write_softirq },
		{ "uaf",	ksym_hitgen_uaf },
		{ "call_scope",	ksym_hitgen_call_scope },
		{ "local",	ksym_hitgen_local_1 },
		{ "local_nested", ksym_hitgen_local_2 },
		{ "local_loop",	ksym_hitgen_local_loop },
		{ "local_stale", ksym_hitgen_local_stale },
		{ "local_deep",	ksym_hitgen_local_deep },
		{ "kfree_reuse", ksym_hitgen_kfree_reuse },
		{ "twin_arg",	ksym_hitgen_twin_args },
	};
	int i;

	ksym_hitgen_cache = kmem_cache_create("ksym_hitgen_cache",
					      KSYM_HITGEN_CACHE_SIZE, 0,
					      SLAB_NO_MERGE,
					      ksym_hitgen_cache_ctor);
	ksym_hitgen_dir = debugfs_create_dir("ksym_hitgen", NULL);
	for (i = 0; i < ARRAY_SIZE(files); i++)
		debugfs_create_file_unsafe(files[i].name, 0200, ksym_hitgen_dir,
					   files[i].fn, &ksym_hitgen_fops);
	debugfs_create_file_unsafe("var", 0400, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_var_fops);
	debugfs_create_file_unsafe("floor", 0600, ksym_hitgen_dir,
				   &ksym_hitgen_floor, &ksym_hitgen_counted_fops);
	debugfs_create_file_unsafe("bare", 0600, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_bare_fops);
	debugfs_create_file_unsafe("foreign", 0600, ksym_hitgen_dir,
				   &ksym_hitgen_foreign, &ksym_hitgen_counted_fops);
	debugfs_create_file_unsafe("object", 0200, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_object_fops);
	debugfs_create_file_unsafe("object_count", 0600, ksym_hitgen_dir,
				   NULL, &ksym_hitgen_objects_fops);
	debugfs_create_file_unsafe("local_addr", 0400, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_local_addr_fops);
	debugfs_create_file_unsafe("after_covers", 0400, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_after_covers_fops);
	debugfs_create_file_unsafe("kfree_reuse_same", 0400, ksym_hitgen_dir,
				   NULL, &ksym_hitgen_kfree_same_fops);
	debugfs_create_file_unsafe("object_memory", 0600, ksym_hitgen_dir,
				   NULL, &ksym_hitgen_obj_memory_fops);
	debugfs_create_file_unsafe("object_now", 0200, ksym_hitgen_dir, NULL,
				   &ksym_hitgen_object_now_fops);
	debugfs_create_file_unsafe("object_now_irqon", 0200, ksym_hitgen_dir,
				   NULL, &ksym_hitgen_object_now_irqon_fops);
	ksym_hitgen_mmio_base = ioremap(KSYM_HITGEN_MMIO_BASE, PAGE_SIZE);
	if (ksym_hitgen_mmio_base) {
		debugfs_create_file_unsafe("mmio_addr", 0400, ksym_hitgen_dir,
					   NULL, &ksym_hitgen_mmio_addr_fops);
		debugfs_create_file_unsafe("mmio_read", 0200, ksym_hitgen_dir,
					   ksym_hitgen_mmio, &ksym_hitgen_fops);
	}
	ksym_hitgen_vmalloc_page = vzalloc(PAGE_SIZE);
	if (ksym_hitgen_vmalloc_page) {
		debugfs_create_file_unsafe("vmalloc_addr", 0400,
					   ksym_hitgen_dir, NULL,
					   &ksym_hitgen_vmalloc_addr_fops);
		debugfs_create_file_unsafe("vmalloc_write", 0200,
					   ksym_hitgen_dir,
					   ksym_hitgen_vmalloc_write,
					   &ksym_hitgen_fops);
	}
	return 0;
}

static void __exit ksym_hitgen_exit(void)
{
	debugfs_remove(ksym_hitgen_dir);
	ksym_hitgen_counted_set(&ksym_hitgen_floor, 0);
	ksym_hitgen_bare_set(NULL, 0);
	ksym_hitgen_counted_set(&ksym_hitgen_foreign, 0);
	if (ksym_hitgen_mmio_base)
		iounmap(ksym_hitgen_mmio_base);
	vfree(ksym_hitgen_vmalloc_page);
	kmem_cache_destroy(ksym_hitgen_cache);
}

module_init(ksym_hitgen_init);
module_exit(ksym_hitgen_exit);
MODULE_DESCRIPTION("Deterministic hit generator for the ksym tracer selftests");
MODULE_LICENSE("GPL");
