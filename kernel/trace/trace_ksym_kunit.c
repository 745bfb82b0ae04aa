// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ksym tracer's ksym_trace_filter parser: entries into
 * specs, the default length, error codes and carets, and the canonical form
 * reading back as the same watch. The functions under test are exported to
 * KUnit only (EXPORT_SYMBOL_IF_KUNIT).
 */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/sched/task.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/kernel_stat.h>
#include <linux/sched/stat.h>
#include <linux/vmalloc.h>

#include "trace_ksym.h"

/*
 * A kernel variable with the name of ksym_hitgen's (static) per-CPU
 * counter, for ksym-btf-twin.tc: BTF names are not unique, and the
 * module's variable must not type this one.
 */
struct ksym_test_twin {
	unsigned long	a;
	unsigned long	b;
};

static struct ksym_test_twin ksym_hitgen_floor_hits __used;

/*
 * A per-CPU variable of the name of one of ksym_hitgen's, of another
 * type: vmlinux's BTF is searched first, and the module's must still be
 * typed by its own (ksym-btf-twin.tc).
 */
static DEFINE_PER_CPU(struct ksym_test_twin, ksym_hitgen_twin_pcpu) __used;

/* Parse @text into a fresh entry; returns the entry, owned by the test. */
static struct ksym_entry *ksym_test_parse(struct kunit *test, const char *text,
					  int *ret)
{
	struct ksym_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	e->text = kunit_kstrdup(test, text, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, e->text);
	e->err = -1;
	*ret = ksym_parse_entry(e);
	return e;
}

static void ksym_test_explicit_len(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "jiffies_64/8:rw-", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->op, KSYM_OP_SET);
	KUNIT_EXPECT_EQ(test, e->spec.addr, (unsigned long)&jiffies_64);
	KUNIT_EXPECT_EQ(test, e->spec.len, 8U);
	KUNIT_EXPECT_EQ(test, e->spec.access, (unsigned int)KSYM_ACCESS_RW);
	KUNIT_EXPECT_TRUE(test, e->spec.all_cpus);
	KUNIT_EXPECT_STREQ(test, e->spec.target, "jiffies_64");
}

/*
 * Without /LEN: the symbol's extent when a debug register takes it, else
 * the first naturally aligned word it starts with; nothing for an extent
 * of 0 (SYMBOL+OFFSET, 0xADDRESS). The expectations are literal, not
 * another kallsyms lookup.
 */
static void ksym_test_default_len(struct kunit *test)
{
	static const struct {
		unsigned long addr, size;
		unsigned int len;
	} c[] = {
		{ 0x1000, 0, 0 }, { 0x1001, 1, 1 }, { 0x1002, 2, 2 },
		{ 0x1004, 4, 4 }, { 0x1000, 8, 8 }, { 0x1000, 3, 2 },
		{ 0x1001, 3, 1 }, { 0x1002, 6, 2 }, { 0x1004, 16, 4 },
		{ 0x1000, 16, 8 }, { 0x1000, 64, 8 }, { 0x1008, 4096, 8 },
		{ 0x1003, 4096, 1 }, { 0x1004, 8, 4 }, { 0x1002, 4, 2 },
		{ 0x1001, 2, 1 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, ksym_default_len(c[i].addr, c[i].size),
				    c[i].len, "addr %#lx extent %lu", c[i].addr,
				    c[i].size);
}

/* The seed's own line: a struct, watched over its first word. */
static void ksym_test_struct_default(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "init_task:rw-", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->spec.addr, (unsigned long)&init_task);
	KUNIT_EXPECT_EQ(test, e->spec.len, (unsigned int)sizeof(long));
}

/* SYMBOL+OFFSET has no extent: /LEN is needed. */
static void ksym_test_need_len(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "init_task+8:rw-", &ret);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, e->err, KSYM_ERR_NEED_LEN);
	KUNIT_EXPECT_EQ(test, e->err_pos, 11);
}

static void ksym_test_len_offset_cpus(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "jiffies_64+4/4:-w-@0", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->spec.addr, (unsigned long)&jiffies_64 + 4);
	KUNIT_EXPECT_EQ(test, e->spec.len, 4U);
	KUNIT_EXPECT_EQ(test, e->spec.access, (unsigned int)KSYM_ACCESS_W);
	KUNIT_EXPECT_FALSE(test, e->spec.all_cpus);
	KUNIT_EXPECT_TRUE(test, cpumask_test_cpu(0, &e->spec.cpus));
	KUNIT_EXPECT_EQ(test, cpumask_weight(&e->spec.cpus), 1U);
	KUNIT_EXPECT_STREQ(test, e->spec.target, "jiffies_64+0x4");
}

static void ksym_test_address(struct kunit *test)
{
	char text[64];
	struct ksym_entry *e;
	int ret;

	snprintf(text, sizeof(text), "0x%lx/8:rw-",
		 (unsigned long)&jiffies_64);
	e = ksym_test_parse(test, text, &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->spec.addr, (unsigned long)&jiffies_64);

	e = ksym_test_parse(test, "0x1000/8:rw-", &ret);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, e->err, KSYM_ERR_USER_ADDR);
}

/*
 * The top of a THREAD_SIZE block, where a task stack's pt_regs is, is
 * refused where stacks are: vmalloc space with CONFIG_VMAP_STACK, the
 * direct map without it (review L3: it was vmalloc space only). Never the
 * block's bottom, never the kernel image.
 */
static void ksym_test_stack_regs(struct kunit *test)
{
	unsigned long top = THREAD_SIZE - sizeof(long);
	bool vmap = IS_ENABLED(CONFIG_VMAP_STACK);

	KUNIT_EXPECT_EQ(test, ksym_addr_stack_regs(VMALLOC_START + top, 8),
			vmap);
	KUNIT_EXPECT_EQ(test, ksym_addr_stack_regs(PAGE_OFFSET + top, 8),
			!vmap);
	KUNIT_EXPECT_FALSE(test, ksym_addr_stack_regs(VMALLOC_START, 8));
	KUNIT_EXPECT_FALSE(test, ksym_addr_stack_regs(PAGE_OFFSET, 8));
	KUNIT_EXPECT_FALSE(test,
			   ksym_addr_stack_regs((unsigned long)&jiffies_64, 8));
}

static void ksym_test_clear_remove(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "0", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->op, KSYM_OP_CLEAR);
	e = ksym_test_parse(test, "*:---", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->op, KSYM_OP_CLEAR);
	e = ksym_test_parse(test, "jiffies_64:---", &ret);	/* no /LEN */
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->op, KSYM_OP_REMOVE);
	KUNIT_EXPECT_EQ(test, e->spec.addr, (unsigned long)&jiffies_64);
}

static void ksym_test_exec(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	e = ksym_test_parse(test, "schedule:--x", &ret);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->spec.len, (unsigned int)KSYM_EXEC_LEN);
	e = ksym_test_parse(test, "jiffies_64:--x", &ret);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, e->err, KSYM_ERR_NOT_TEXT);
}

/* Each bad entry: its errno, its error and the caret position. */
static const struct ksym_bad_case {
	const char	*text;
	int		ret;
	int		err;
	int		pos;
} ksym_bad_cases[] = {
	{ "jiffies_64",			-EINVAL, KSYM_ERR_BAD_ENTRY,	10 },
	{ ":rw-",			-EINVAL, KSYM_ERR_BAD_ENTRY,	0 },
	{ "jiffies_64:rwx",		-EINVAL, KSYM_ERR_BAD_ACCESS,	11 },
	{ "jiffies_64/3:rw-",		-EINVAL, KSYM_ERR_BAD_LEN,	11 },
	{ "jiffies_64/16:rw-",		-EINVAL, KSYM_ERR_BAD_LEN,	11 },
	{ "jiffies_64+1/4:rw-",		-EINVAL, KSYM_ERR_MISALIGNED,	0 },
	{ "jiffies_64+zz/4:rw-",	-EINVAL, KSYM_ERR_BAD_OFFSET,	11 },
	{ "jiff!es_64:rw-",		-EINVAL, KSYM_ERR_BAD_SYMBOL,	4 },
	{ "ksym_no_such_symbol:rw-",	-ENOENT, KSYM_ERR_NO_SYMBOL,	0 },
	{ "jiffies_64:rw-@",		-EINVAL, KSYM_ERR_BAD_CPULIST,	15 },
	{ "jiffies_64:rw-@x",		-EINVAL, KSYM_ERR_BAD_CPULIST,	15 },
	{ "jiffies_64:rw-@4095",	-EINVAL, KSYM_ERR_BAD_CPULIST,	15 },
	{ "jiffies_64:---@0",		-EINVAL, KSYM_ERR_BAD_CPULIST,	14 },
	{ "init_task+16:rw-",		-EINVAL, KSYM_ERR_NEED_LEN,	12 },
	{ "schedule/2:--x",		-EINVAL, KSYM_ERR_EXEC_LEN,	9 },
#ifdef CONFIG_X86
	{ "jiffies_64:r--",		-EOPNOTSUPP, KSYM_ERR_NO_READ_ONLY, 11 },
#endif
};

/* Parse each of @n bad cases: its errno, its error, its caret. */
static void ksym_test_bad_list(struct kunit *test,
			       const struct ksym_bad_case *cases, int n)
{
	const struct ksym_bad_case *c;
	struct ksym_entry *e;
	int i, ret;

	for (i = 0; i < n; i++) {
		c = &cases[i];
		e = ksym_test_parse(test, c->text, &ret);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "entry %s", c->text);
		KUNIT_EXPECT_EQ_MSG(test, e->err, c->err, "entry %s", c->text);
		KUNIT_EXPECT_EQ_MSG(test, e->err_pos, c->pos, "entry %s",
				    c->text);
	}
}

static void ksym_test_bad_entries(struct kunit *test)
{
	ksym_test_bad_list(test, ksym_bad_cases, ARRAY_SIZE(ksym_bad_cases));
}

/* What reading shows, written back, is the same watch. */
static void ksym_test_round_trip(struct kunit *test)
{
	/* The last one lists every possible CPU, one or many. */
	char all[64];
	const char * const texts[] = {
		"jiffies_64/8:rw-", "jiffies_64+4/4:-w-@0", "schedule:--x", all,
	};
	char *buf = kunit_kzalloc(test, KSYM_ENTRY_MAX, GFP_KERNEL);
	struct ksym_entry *a, *b;
	int i, ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	snprintf(all, sizeof(all), "jiffies_64/2:rw-@%*pbl",
		 cpumask_pr_args(cpu_possible_mask));
	for (i = 0; i < ARRAY_SIZE(texts); i++) {
		a = ksym_test_parse(test, texts[i], &ret);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "entry %s", texts[i]);
		ksym_spec_format(buf, KSYM_ENTRY_MAX, &a->spec);
		b = ksym_test_parse(test, buf, &ret);
		KUNIT_ASSERT_EQ_MSG(test, ret, 0, "canonical %s", buf);
		KUNIT_EXPECT_TRUE_MSG(test, ksym_spec_equal(&a->spec, &b->spec),
				      "%s -> %s", texts[i], buf);
	}
}

/*
 * A trigger slot's breakpoint parked on its page cannot hit: a hit there
 * is stray, not the object's, and the first of a write-only slot is
 * reported (once); a hit on the object is the object's.
 */
static void ksym_test_stray(struct kunit *test)
{
	bool said;
	long stray;

	KUNIT_EXPECT_EQ(test, ksym_dyn_test_stray(HW_BREAKPOINT_W, false, 3, &stray, &said), 0);
	KUNIT_EXPECT_EQ(test, stray, 0);
	KUNIT_EXPECT_FALSE(test, said);

	KUNIT_EXPECT_EQ(test, ksym_dyn_test_stray(HW_BREAKPOINT_W, true, 3, &stray, &said), 3);
	KUNIT_EXPECT_EQ(test, stray, 3);
	KUNIT_EXPECT_TRUE(test, said);

	/* A read-write slot's parking page is read by scanners: not said. */
	KUNIT_EXPECT_EQ(test, ksym_dyn_test_stray(HW_BREAKPOINT_RW, true, 2, &stray, &said), 2);
	KUNIT_EXPECT_EQ(test, stray, 2);
	KUNIT_EXPECT_FALSE(test, said);
}

/*
 * One object, two slots: however two claims of it interleave (two CPUs
 * firing the event at once, or an NMI over the first), one slot arms it
 * and the other gives up, parked; the armed count says 1.
 */
static void ksym_test_one_slot_per_object(struct kunit *test)
{
	static const char * const orders[] = {
		"aAbB",	/* one after the other: B sees A arming */
		"abAB",	/* the lower arms first and tells the higher to yield */
		"abBA",	/* the higher sees the lower's claim and gives up */
		"baAB",	/* B took the lower slot */
		"baBA",
	};
	long armed;
	int i;

	for (i = 0; i < ARRAY_SIZE(orders); i++) {
		KUNIT_EXPECT_EQ_MSG(test, ksym_dyn_test_claims(orders[i], &armed), 1,
				    "order %s", orders[i]);
		KUNIT_EXPECT_EQ_MSG(test, armed, 1, "order %s", orders[i]);
	}
}

/*
 * A slot is free again the moment its watch ends: a claim takes it while
 * its CPUs still move off the old object, and the old object's hits on
 * those CPUs are told apart (late), never counted as the new one's. A
 * stack watch past its time ends at its next hit (stale).
 */
static void ksym_test_reclaim_ending(struct kunit *test)
{
	long late = -1, stale = -1;

	KUNIT_EXPECT_EQ(test, ksym_dyn_test_reclaim(&late, &stale), 0);
	KUNIT_EXPECT_EQ(test, late, 1);
	KUNIT_EXPECT_EQ(test, stale, 1);
}

#ifdef CONFIG_ARM64
/*
 * arm64 records a hit after the step over its access. A hit whose step's
 * report was lost (the access oopsed) stays pending; if its breakpoint is
 * freed and another watch's is allocated at the same address, the next
 * report drops the entry rather than record it for a watch that may be
 * gone (review 11-28, L-G).
 */
static void ksym_test_pending_reused(struct kunit *test)
{
	long same, other;
	int slots, left;

	/* ksym_trace_filter's watches, then two triggers' slots. */
	for (slots = 0; slots < 2; slots++) {
		same = -1;
		other = -1;
		left = -1;
		KUNIT_ASSERT_EQ(test, ksym_hit_test_pending_reused(slots, &same, &other,
								   &left), 0);
		KUNIT_EXPECT_EQ_MSG(test, same, 1, "slots %d", slots);
		KUNIT_EXPECT_EQ_MSG(test, other, 0, "slots %d", slots);
		KUNIT_EXPECT_EQ_MSG(test, left, 0, "slots %d", slots);
	}
}
#endif

/*
 * A slot's Hits total is every hit it counted, across objects: the retire
 * that starts a CPU's counts again for the next object moves them to the
 * slot's total, never twice, never none (the "61 where 47" of the past).
 */
static void ksym_test_retire_total(struct kunit *test)
{
	unsigned long total = 0;

	KUNIT_ASSERT_EQ(test, ksym_dyn_test_retire(1, 7, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 7);
	KUNIT_ASSERT_EQ(test, ksym_dyn_test_retire(6, 7, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 42);
	/*
	 * One object retired, the last one's hits still current: a retire
	 * that left the hits in the CPU's counters, or added them twice,
	 * counts 15.
	 */
	KUNIT_ASSERT_EQ(test, ksym_dyn_test_retire(2, 5, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 10);
}

/*
 * Old values: the value each hit left is the next one's old value, the
 * value read at arming the first's; another address's value is no old
 * value at all. Two holds of the same copy that overlap, one inside the
 * other or one begun and ended inside the other, both say so; one alone
 * does not.
 * (ksym_hitgen stores from one CPU at a time: in the VM no hits overlap,
 * so the stale mark is checked here.)
 */
static void ksym_test_old_value(struct kunit *test)
{
	static u64 word = 41;
	unsigned long addr = (unsigned long)&word;
	struct ksym_last_hold a, b;
	struct ksym_last last = { };
	u64 old = 0;

	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr, 42, &old),
			KSYM_OLD_NONE);
	ksym_last_seed(&last, addr, sizeof(word));
	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr, 43, &old),
			KSYM_OLD_LAST);
	KUNIT_EXPECT_EQ(test, old, 41);
	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr, 43, &old),
			KSYM_OLD_LAST);
	KUNIT_EXPECT_EQ(test, old, 43);

	/* Alone. */
	ksym_last_enter(&last, &a);
	KUNIT_EXPECT_FALSE(test, ksym_last_leave(&a));
	/* One inside the other: both. */
	ksym_last_enter(&last, &a);
	ksym_last_enter(&last, &b);
	KUNIT_EXPECT_TRUE(test, ksym_last_leave(&b));
	KUNIT_EXPECT_TRUE(test, ksym_last_leave(&a));
	/* One begun and ended inside the other (arm64: between its reads). */
	ksym_last_enter(&last, &a);
	ksym_last_enter(&last, &b);
	ksym_last_leave(&b);
	KUNIT_EXPECT_TRUE(test, ksym_last_leave(&a));
	/* An arming while a hit holds it. */
	ksym_last_enter(&last, &a);
	ksym_last_seed(&last, addr, sizeof(word));
	KUNIT_EXPECT_TRUE(test, ksym_last_leave(&a));
	KUNIT_EXPECT_EQ(test, atomic_read(&last.busy), 0);
	/*
	 * After an overlap the value left may be older than another use's:
	 * the next use is told none (review L-A), not that value.
	 */
	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr, 47, &old),
			KSYM_OLD_NONE);

	/* A trigger slot moved to another object: nothing known there. */
	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr + 8, 1, &old),
			KSYM_OLD_NONE);
	/* Forgotten, or unreadable at arming: nothing known either. */
	ksym_last_seed(&last, 0, sizeof(word));
	KUNIT_EXPECT_EQ(test, ksym_last_swap(&last, addr, 46, &old),
			KSYM_OLD_NONE);
}

/*
 * Which watches the hit path reads plainly (ksym_spec.mapped): what stays
 * mapped while the watch lives. A slab object reached by its address is
 * read, but through the nofault copy: its page may be unmapped once freed.
 */
static void ksym_test_value_mapped(struct kunit *test)
{
	static u32 image_word = 0x1234567;
	u64 *obj = kunit_kzalloc(test, 64, GFP_KERNEL);
	struct ksym_entry *e;
	char text[64];
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, obj);
	e = ksym_test_parse(test, "jiffies_64/8:rw-", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, e->spec.has_value);
	KUNIT_EXPECT_TRUE(test, e->spec.mapped);

	/*
	 * The kernel image; as a module, this test is still initializing:
	 * not mapped for sure (a failed load frees it unannounced).
	 */
	snprintf(text, sizeof(text), "0x%lx/4:rw-",
		 (unsigned long)&image_word);
	e = ksym_test_parse(test, text, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, e->spec.mapped,
			!IS_MODULE(CONFIG_KSYM_TRACER_KUNIT_TEST));
	KUNIT_EXPECT_EQ(test, ksym_load_mapped(e->spec.addr, e->spec.len),
			(u64)0x1234567);

	snprintf(text, sizeof(text), "0x%lx/8:rw-", (unsigned long)&obj[1]);
	e = ksym_test_parse(test, text, &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, e->spec.has_value);
	KUNIT_EXPECT_FALSE(test, e->spec.mapped);

	/*
	 * Per-CPU: past the static data (an offset is not bounded by its
	 * symbol) is not mapped for sure (review HR4 M1), if accepted at all.
	 */
	e = ksym_test_parse(test, "process_counts:-w-", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_TRUE(test, e->spec.mapped);
	e = ksym_test_parse(test, "process_counts+0x100000/8:-w-", &ret);
	if (!ret)
		KUNIT_EXPECT_FALSE(test, e->spec.mapped);

	/* Execute watches read nothing. */
	e = ksym_test_parse(test, "schedule:--x", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	KUNIT_EXPECT_FALSE(test, e->spec.has_value);
	KUNIT_EXPECT_FALSE(test, e->spec.mapped);
}

static struct kunit_case ksym_parser_cases[] = {
	KUNIT_CASE(ksym_test_stray),
	KUNIT_CASE(ksym_test_retire_total),
	KUNIT_CASE(ksym_test_reclaim_ending),
#ifdef CONFIG_ARM64
	KUNIT_CASE(ksym_test_pending_reused),
#endif
	KUNIT_CASE(ksym_test_old_value),
	KUNIT_CASE(ksym_test_value_mapped),
	KUNIT_CASE(ksym_test_one_slot_per_object),
	KUNIT_CASE(ksym_test_explicit_len),
	KUNIT_CASE(ksym_test_default_len),
	KUNIT_CASE(ksym_test_struct_default),
	KUNIT_CASE(ksym_test_need_len),
	KUNIT_CASE(ksym_test_len_offset_cpus),
	KUNIT_CASE(ksym_test_address),
	KUNIT_CASE(ksym_test_stack_regs),
	KUNIT_CASE(ksym_test_clear_remove),
	KUNIT_CASE(ksym_test_exec),
	KUNIT_CASE(ksym_test_bad_entries),
	KUNIT_CASE(ksym_test_round_trip),
	{}
};

static struct kunit_suite ksym_parser_suite = {
	.name = "ksym_parser",
	.test_cases = ksym_parser_cases,
};

/*
 * Field paths and per-CPU variables, resolved from the kernel's own BTF:
 * offsets and sizes compared with offsetof()/sizeof() of the real structs.
 */
static void ksym_btf_skip(struct kunit *test)
{
	if (!IS_ENABLED(CONFIG_PROBE_EVENTS_BTF_ARGS))
		kunit_skip(test, "no BTF (CONFIG_PROBE_EVENTS_BTF_ARGS=n)");
}

/* Parse, check address, length and canonical form, write that back. */
static void ksym_test_resolves(struct kunit *test, const char *text,
			       unsigned long addr, unsigned int len,
			       bool percpu, const char *canon,
			       const char *name)
{
	char *buf = kunit_kzalloc(test, KSYM_ENTRY_MAX, GFP_KERNEL);
	struct ksym_entry *e, *b;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	e = ksym_test_parse(test, text, &ret);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "entry %s: error %d at %d", text,
			    e->err, e->err_pos);
	KUNIT_EXPECT_EQ_MSG(test, e->spec.addr, addr, "entry %s", text);
	KUNIT_EXPECT_EQ_MSG(test, e->spec.len, len, "entry %s", text);
	KUNIT_EXPECT_EQ_MSG(test, e->spec.percpu, percpu, "entry %s", text);
	ksym_spec_format(buf, KSYM_ENTRY_MAX, &e->spec);
	KUNIT_EXPECT_STREQ(test, buf, canon);
	KUNIT_EXPECT_STREQ(test, e->spec.target + e->spec.name_off, name);
	KUNIT_EXPECT_EQ(test, e->spec.name_len, (u16)(strlen(name) + 1));
	b = ksym_test_parse(test, buf, &ret);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "canonical %s", buf);
	KUNIT_EXPECT_TRUE_MSG(test, ksym_spec_equal(&e->spec, &b->spec),
			      "%s -> %s", text, buf);
}

static void ksym_test_btf_cast(struct kunit *test)
{
	char want[96];

	ksym_btf_skip(test);
	ksym_test_resolves(test, "(struct task_struct)init_task.flags:-w-",
			   (unsigned long)&init_task.flags,
			   sizeof(init_task.flags), false,
			   "(struct task_struct)init_task.flags/4:-w-",
			   "init_task.flags");
	/* Blanks in the cast, a hexadecimal index: canonical spelling. */
	ksym_test_resolves(test,
			   "(  struct\ttask_struct )init_task.comm[0x2]:-w-",
			   (unsigned long)&init_task.comm[2], 1, false,
			   "(struct task_struct)init_task.comm[2]/1:-w-",
			   "init_task.comm[2]");
	/* An array field: its first naturally aligned word. */
	snprintf(want, sizeof(want), "(struct task_struct)init_task.comm/%u:rw-",
		 ksym_default_len((unsigned long)init_task.comm,
				  sizeof(init_task.comm)));
	ksym_test_resolves(test, "(struct task_struct)init_task.comm:rw-",
			   (unsigned long)init_task.comm,
			   ksym_default_len((unsigned long)init_task.comm,
					    sizeof(init_task.comm)),
			   false, want, "init_task.comm");
	/* A nested struct's member, and /LEN within it. */
	ksym_test_resolves(test,
			   "(struct task_struct)init_task.tasks.next/8:-w-",
			   (unsigned long)&init_task.tasks.next, 8, false,
			   "(struct task_struct)init_task.tasks.next/8:-w-",
			   "init_task.tasks.next");
	ksym_test_resolves(test, "(struct task_struct)init_task.pid/2:-w-",
			   (unsigned long)&init_task.pid, 2, false,
			   "(struct task_struct)init_task.pid/2:-w-",
			   "init_task.pid");
}

static void ksym_test_btf_percpu(struct kunit *test)
{
	struct ksym_entry *e;
	int cpu, ret;

	ksym_btf_skip(test);
	/* A plain per-CPU variable: BTF types it, its real size. */
	ksym_test_resolves(test, "process_counts:-w-",
			   (unsigned long)&process_counts,
			   sizeof(unsigned long), true,
			   "process_counts/8:-w-", "process_counts");
	e = ksym_test_parse(test, "process_counts:-w-", &ret);
	KUNIT_ASSERT_EQ(test, ret, 0);
	/* Static per-CPU data stays mapped: read plainly on a hit. */
	KUNIT_EXPECT_TRUE(test, e->spec.mapped);
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_EQ(test, ksym_spec_addr(&e->spec, cpu),
				(unsigned long)per_cpu_ptr(&process_counts, cpu));

	/* Fields of per-CPU structs; a cast that agrees is dropped. */
	ksym_test_resolves(test, "kstat.softirqs[3]:-w-",
			   (unsigned long)&kstat.softirqs[3],
			   sizeof(kstat.softirqs[3]), true,
			   "kstat.softirqs[3]/4:-w-", "kstat.softirqs[3]");
	ksym_test_resolves(test,
			   "(struct kernel_cpustat)kernel_cpustat.cpustat[1]:rw-@0",
			   (unsigned long)&kernel_cpustat.cpustat[1], 8, true,
			   "kernel_cpustat.cpustat[1]/8:rw-@0",
			   "kernel_cpustat.cpustat[1]");
	ksym_test_resolves(test, "kstat.irqs_sum/4:-w-",
			   (unsigned long)&kstat.irqs_sum, 4, true,
			   "kstat.irqs_sum/4:-w-", "kstat.irqs_sum");
}

/* Each bad path: its errno, its error and the caret under the bad token. */
static const struct ksym_bad_case ksym_btf_bad_cases[] = {
	{ "(struct task_struct)init_task.no_such_field:-w-",
	  -ENOENT, KSYM_ERR_NO_FIELD, 30 },
	{ "(struct task_struct)init_task.flags.x:-w-",
	  -EINVAL, KSYM_ERR_NOT_STRUCT, 35 },
	{ "(struct task_struct)init_task.comm[16]:-w-",
	  -ERANGE, KSYM_ERR_BAD_INDEX, 35 },
	{ "(struct task_struct)init_task.flags[1]:-w-",
	  -EINVAL, KSYM_ERR_NOT_ARRAY, 35 },
	{ "(struct task_struct)init_task.comm[x]:-w-",
	  -EINVAL, KSYM_ERR_BAD_PATH, 35 },
	{ "(struct task_struct)init_task.comm[2:-w-",
	  -EINVAL, KSYM_ERR_BAD_PATH, 34 },
	{ "(struct task_struct)init_task..flags:-w-",
	  -EINVAL, KSYM_ERR_BAD_PATH, 30 },
	{ "(struct task_struct)init_task.flags/8:-w-",
	  -EINVAL, KSYM_ERR_LEN_TOO_BIG, 36 },
	{ "(struct ksym_no_such_type)init_task.flags:-w-",
	  -ENOENT, KSYM_ERR_NO_TYPE, 0 },
	{ "(union task_struct)init_task.flags:-w-",
	  -ENOENT, KSYM_ERR_NO_TYPE, 0 },
	{ "(struct task_struct)kstat.irqs_sum:-w-",
	  -EINVAL, KSYM_ERR_CAST_MISMATCH, 0 },
	{ "(strukt task_struct)init_task.flags:-w-",
	  -EINVAL, KSYM_ERR_BAD_CAST, 1 },
	{ "(struct task_struct init_task.flags:-w-",
	  -EINVAL, KSYM_ERR_BAD_CAST, 0 },
	{ "(struct 9x)init_task.flags:-w-",
	  -EINVAL, KSYM_ERR_BAD_CAST, 8 },
	{ "(struct task_struct)0xffffffff81000000/8:-w-",
	  -EINVAL, KSYM_ERR_CAST_ADDR, 0 },
	{ "init_task.flags:-w-",
	  -EINVAL, KSYM_ERR_NEED_CAST, 0 },
	{ "kstat.irqs_sum/16:-w-",
	  -EINVAL, KSYM_ERR_BAD_LEN, 15 },
	{ "kstat.softirqs.x:-w-",
	  -EINVAL, KSYM_ERR_NOT_STRUCT, 14 },
	{ "process_counts:--x",
	  -EINVAL, KSYM_ERR_NOT_TEXT, 0 },
};

static void ksym_test_btf_errors(struct kunit *test)
{
	ksym_btf_skip(test);
	ksym_test_bad_list(test, ksym_btf_bad_cases,
			   ARRAY_SIZE(ksym_btf_bad_cases));
}

static struct kunit_case ksym_btf_cases[] = {
	KUNIT_CASE(ksym_test_btf_cast),
	KUNIT_CASE(ksym_test_btf_percpu),
	KUNIT_CASE(ksym_test_btf_errors),
	{}
};

static struct kunit_suite ksym_btf_suite = {
	.name = "ksym_btf",
	.test_cases = ksym_btf_cases,
};

/*
 * Transactions on real breakpoints, in the style of hw_breakpoint_test.c:
 * fill CPU 0's debug registers with watches on words of our own, replace
 * one in a single write, see a write that cannot fit fail and change
 * nothing, and leave no breakpoint behind.
 */
/*
 * Data breakpoint slots per CPU: x86's four debug registers, or as many
 * watchpoints as the arm64 CPU has (QEMU's virt: 4; the architecture: 16).
 * The words: one per slot and three more that do not fit.
 */
#define KSYM_TEST_MAX_SLOTS	16
#define KSYM_TEST_WORDS		(KSYM_TEST_MAX_SLOTS + 3)
static unsigned long ksym_test_words[KSYM_TEST_WORDS];

static int ksym_test_slots(void)
{
	return min(hw_breakpoint_slots(TYPE_DATA), KSYM_TEST_MAX_SLOTS);
}

static __printf(1, 2) int ksym_test_write(const char *fmt, ...)
{
	char buf[256];
	va_list args;

	va_start(args, fmt);
	vsnprintf(buf, sizeof(buf), fmt, args);
	va_end(args);
	return ksym_write_entries(buf);
}

/* Is word @i watched (on CPU 0 only), as the watch set says? */
static bool ksym_test_watched(int i)
{
	struct ksym_watch *watch;
	bool found = false;

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list)
		if (watch->spec.addr == (unsigned long)&ksym_test_words[i])
			found = true;
	mutex_unlock(&ksym_mutex);
	return found;
}

static int ksym_test_nr_watches(void)
{
	struct ksym_watch *watch;
	int nr = 0;

	mutex_lock(&ksym_mutex);
	list_for_each_entry(watch, &ksym_watches, list)
		nr++;
	mutex_unlock(&ksym_mutex);
	return nr;
}

/* Every debug register of CPU 0 is free: four breakpoints fit there. */
static void ksym_test_slots_free(struct kunit *test)
{
	struct perf_event *bp[KSYM_TEST_MAX_SLOTS];
	int i, n = 0, slots = ksym_test_slots();
	struct perf_event_attr attr;

	for (i = 0; i < slots; i++) {
		hw_breakpoint_init(&attr);
		attr.bp_addr = (unsigned long)&ksym_test_words[i];
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		attr.bp_type = HW_BREAKPOINT_W;
		attr.disabled = 1;
		bp[i] = perf_event_create_kernel_counter(&attr, 0, NULL, NULL,
							 NULL);
		if (!IS_ERR(bp[i]))
			n++;
	}
	for (i = 0; i < slots; i++)
		if (!IS_ERR(bp[i]))
			unregister_hw_breakpoint(bp[i]);
	KUNIT_EXPECT_EQ_MSG(test, n, slots, "a debug register of CPU 0 is taken");
}

/*
 * modify_wide_hw_breakpoint_local(), which the ksym_watch trigger moves
 * its slots with: on the breakpoint's CPU, interrupts off, it moves the
 * breakpoint and the old address is watched no more; another CPU's or
 * another type is refused and changes nothing.
 */
static atomic_t ksym_test_modify_hits = ATOMIC_INIT(0);

static void ksym_test_modify_hit(struct perf_event *bp,
				 struct perf_sample_data *data,
				 struct pt_regs *regs)
{
	atomic_inc(&ksym_test_modify_hits);
}

struct ksym_test_modify {
	struct perf_event	*bp;
	unsigned long		addr;
	unsigned int		type;
	int			ret;
};

/* On CPU 0, interrupts off (smp_call_function_single()). */
static void ksym_test_modify_on_cpu(void *info)
{
	struct ksym_test_modify *m = info;
	struct perf_event_attr attr = m->bp->attr;

	attr.bp_addr = m->addr;
	attr.bp_type = m->type;
	m->ret = modify_wide_hw_breakpoint_local(m->bp, &attr);
	/* Both words written: only the one watched now may hit. */
	WRITE_ONCE(ksym_test_words[0], ksym_test_words[0] + 1);
	WRITE_ONCE(ksym_test_words[1], ksym_test_words[1] + 1);
}

static void ksym_test_modify_local(struct kunit *test)
{
	struct ksym_test_modify m = { };
	struct perf_event_attr attr;
	int other;

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&ksym_test_words[0];
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.disabled = 1;
	m.bp = perf_event_create_kernel_counter(&attr, 0, NULL,
						ksym_test_modify_hit, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m.bp));
	/* arm64: without the step over the first hit traps forever. */
	WRITE_ONCE(m.bp->hw.bp_step_over, true);
	perf_event_enable(m.bp);
	atomic_set(&ksym_test_modify_hits, 0);

	/* Moved to word 1: the write of word 0 is not seen, word 1's is. */
	m.addr = (unsigned long)&ksym_test_words[1];
	m.type = HW_BREAKPOINT_W;
	smp_call_function_single(0, ksym_test_modify_on_cpu, &m, 1);
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	KUNIT_EXPECT_EQ(test, m.bp->attr.bp_addr, m.addr);
	KUNIT_EXPECT_EQ(test, atomic_read(&ksym_test_modify_hits), 1);

	/* Another type needs slot accounting: refused, nothing moves. */
	m.addr = (unsigned long)&ksym_test_words[0];
	m.type = HW_BREAKPOINT_RW;
	smp_call_function_single(0, ksym_test_modify_on_cpu, &m, 1);
	KUNIT_EXPECT_EQ(test, m.ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, m.bp->attr.bp_addr,
			(unsigned long)&ksym_test_words[1]);
	KUNIT_EXPECT_EQ(test, atomic_read(&ksym_test_modify_hits), 2);

	/* Another CPU's breakpoint: refused there. */
	other = cpumask_next(0, cpu_online_mask);
	if (other < nr_cpu_ids) {
		m.type = HW_BREAKPOINT_W;
		smp_call_function_single(other, ksym_test_modify_on_cpu, &m,
					 1);
		KUNIT_EXPECT_EQ(test, m.ret, -EINVAL);
		KUNIT_EXPECT_EQ(test, m.bp->attr.bp_addr,
				(unsigned long)&ksym_test_words[1]);
	}
	unregister_hw_breakpoint(m.bp);
	/* Nothing is left behind in CPU 0's debug registers. */
	ksym_test_slots_free(test);
}

#ifdef CONFIG_X86
#include <asm/debugreg.h>

/*
 * A move while the debug registers are not the kernel's: DR7 as KVM's
 * vcpu_enter_guest() leaves it for a guest without breakpoints, and as
 * the #DB handler's local_db_save() leaves it (DR7_FIXED_1 alone). The
 * helper refuses with -EBUSY and writes no register; the trigger's slot
 * then waits for its irq_work (ksym_dyn_move()).
 */
static void ksym_test_modify_window_on_cpu(void *info)
{
	struct ksym_test_modify *m = info;
	struct perf_event_attr attr = m->bp->attr;
	unsigned long dr7, dr[HBP_NUM], now;
	int i;

	get_debugreg(dr7, 7);
	set_debugreg(DR7_FIXED_1, 7);
	for (i = 0; i < HBP_NUM; i++)
		get_debugreg(dr[i], i);
	attr.bp_addr = m->addr;
	m->ret = modify_wide_hw_breakpoint_local(m->bp, &attr);
	m->type = 0;
	for (i = 0; i < HBP_NUM; i++) {
		get_debugreg(now, i);
		if (now != dr[i])
			m->type |= BIT(i);
	}
	get_debugreg(now, 7);
	if (now != DR7_FIXED_1)
		m->type |= BIT(7);
	set_debugreg(dr7, 7);
}

static void ksym_test_modify_guest_window(struct kunit *test)
{
	struct ksym_test_modify m = { };
	struct perf_event_attr attr;

	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&ksym_test_words[0];
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.disabled = 1;
	m.bp = perf_event_create_kernel_counter(&attr, 0, NULL,
						ksym_test_modify_hit, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(m.bp));
	perf_event_enable(m.bp);

	m.addr = (unsigned long)&ksym_test_words[1];
	smp_call_function_single(0, ksym_test_modify_window_on_cpu, &m, 1);
	KUNIT_EXPECT_EQ(test, m.ret, -EBUSY);
	KUNIT_EXPECT_EQ_MSG(test, m.type, 0,
			    "debug registers written (bit 7: DR7, bits 0-3: DR0-3)");
	KUNIT_EXPECT_EQ(test, m.bp->attr.bp_addr,
			(unsigned long)&ksym_test_words[0]);

	/* Out of the window, the same move is made. */
	m.type = HW_BREAKPOINT_W;
	smp_call_function_single(0, ksym_test_modify_on_cpu, &m, 1);
	KUNIT_EXPECT_EQ(test, m.ret, 0);
	KUNIT_EXPECT_EQ(test, m.bp->attr.bp_addr, m.addr);
	unregister_hw_breakpoint(m.bp);
	ksym_test_slots_free(test);
}
#endif

static void ksym_test_txn_full(struct kunit *test)
{
	unsigned long *w = ksym_test_words;
	int i, slots = ksym_test_slots();

	/* The suite clears the watch set: never someone's real watches. */
	if (ksym_test_nr_watches())
		kunit_skip(test, "watches are set: not clearing them");
	KUNIT_ASSERT_EQ(test, ksym_test_write("0"), 1);
	for (i = 0; i < slots; i++)
		KUNIT_ASSERT_EQ(test, ksym_test_write("0x%lx/8:rw-@0", (unsigned long)&w[i]), 1);
	KUNIT_EXPECT_EQ(test, ksym_test_nr_watches(), slots);

	/* One more does not fit, and the write changes nothing. */
	KUNIT_EXPECT_EQ(test, ksym_test_write("0x%lx/8:rw-@0", (unsigned long)&w[slots]),
			-ENOSPC);
	KUNIT_EXPECT_EQ(test, ksym_test_nr_watches(), slots);
	KUNIT_EXPECT_FALSE(test, ksym_test_watched(slots));

	/* One out, one in, in one write: the slot goes to the new one. */
	KUNIT_EXPECT_EQ(test, ksym_test_write("0x%lx:--- 0x%lx/8:-w-@0",
					      (unsigned long)&w[0], (unsigned long)&w[slots]), 2);
	KUNIT_EXPECT_FALSE(test, ksym_test_watched(0));
	KUNIT_EXPECT_TRUE(test, ksym_test_watched(slots));

	/* A failing write with a good first entry: all or nothing. */
	KUNIT_EXPECT_EQ(test, ksym_test_write("0x%lx:--- 0x%lx/8:rw-@0 0x%lx/8:rw-@0",
					      (unsigned long)&w[1], (unsigned long)&w[slots + 1],
					      (unsigned long)&w[slots + 2]), -ENOSPC);
	KUNIT_EXPECT_TRUE(test, ksym_test_watched(1));
	KUNIT_EXPECT_FALSE(test, ksym_test_watched(slots + 1));
	KUNIT_EXPECT_FALSE(test, ksym_test_watched(slots + 2));
	KUNIT_EXPECT_EQ(test, ksym_test_nr_watches(), slots);
}

/* Nothing is left behind: no watch, and CPU 0's registers all free. */
static void ksym_txn_exit(struct kunit *test)
{
	if (test->status == KUNIT_SKIPPED)
		return;
	KUNIT_EXPECT_EQ(test, ksym_test_write("0"), 1);
	KUNIT_EXPECT_EQ(test, ksym_test_nr_watches(), 0);
	ksym_test_slots_free(test);
}

/*
 * A slot whose breakpoint cannot go back to the parking word (review M3):
 * switched off on that CPU, not left on the object its owner is freeing.
 * With the move working: on the parking word, on.
 */
static void ksym_test_park_fail(struct kunit *test)
{
	unsigned long addr = 0;
	bool off = false;

	KUNIT_ASSERT_EQ(test, ksym_dyn_test_park_fail(false, &off, &addr), 0);
	KUNIT_EXPECT_FALSE(test, off);
	KUNIT_ASSERT_EQ(test, ksym_dyn_test_park_fail(true, &off, &addr), 0);
	KUNIT_EXPECT_TRUE_MSG(test, off, "left on at %lx", addr);
}

/*
 * Moves refused for now (-EBUSY) are retried, and given up as refused
 * after a bound (review L-H): a state that outlasts the retries must not
 * keep the CPU retrying, nor the breakpoint be moved meanwhile.
 */
static void ksym_test_busy(struct kunit *test)
{
	unsigned int tries = 0;
	bool moved = true, reset = false;

	KUNIT_ASSERT_EQ(test, ksym_dyn_test_busy(&tries, &moved, &reset), 0);
	/*
	 * The arm's own move (this CPU fires) is the first refusal; then 63
	 * retries and the apply that gives up: 64 applies after the arm.
	 */
	KUNIT_EXPECT_EQ(test, tries, 64U);
	KUNIT_EXPECT_FALSE(test, moved);
	KUNIT_EXPECT_TRUE(test, reset);
}

/*
 * A CPU come online while a slot was claimed (review M2): its breakpoint
 * stays on the parking word, not on the claim's address, which may be an
 * object freed since; a live slot's object it takes at once.
 */
static void ksym_test_online(struct kunit *test)
{
	int where = -1;

	KUNIT_ASSERT_EQ(test, ksym_dyn_test_online(true, &where), 0);
	KUNIT_EXPECT_EQ_MSG(test, where, 0, "0 parking, 1 live, 2 stale");
	KUNIT_ASSERT_EQ(test, ksym_dyn_test_online(false, &where), 0);
	KUNIT_EXPECT_EQ_MSG(test, where, 1, "0 parking, 1 live, 2 stale");
}

static struct kunit_case ksym_txn_cases[] = {
	KUNIT_CASE(ksym_test_txn_full),
	KUNIT_CASE(ksym_test_modify_local),
#ifdef CONFIG_X86
	KUNIT_CASE(ksym_test_modify_guest_window),
#endif
	KUNIT_CASE(ksym_test_park_fail),
	KUNIT_CASE(ksym_test_busy),
	KUNIT_CASE(ksym_test_online),
	{}
};

static struct kunit_suite ksym_txn_suite = {
	.name = "ksym_txn",
	.exit = ksym_txn_exit,
	.test_cases = ksym_txn_cases,
};

kunit_test_suites(&ksym_parser_suite, &ksym_btf_suite, &ksym_txn_suite);

MODULE_DESCRIPTION("KUnit tests for the ksym tracer's filter parser");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
