// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ksym tracer's ksym_trace_filter parser. Included at
 * the end of trace_ksym.c, so they can call its static functions.
 */
#include <kunit/test.h>

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
 * Without /LEN, the length is the symbol's extent when a debug register
 * takes it, else the user must give one. The expectations are literal,
 * not another kallsyms lookup; the selftests check real symbols of known
 * layout (ksym_hitgen_var: 8 bytes, ksym_hitgen_buf: 16, refused).
 */
static void ksym_test_default_len(struct kunit *test)
{
	static const struct { unsigned long size; unsigned int len; } c[] = {
		{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 3, 0 }, { 4, 4 }, { 6, 0 },
		{ 8, 8 }, { 16, 0 }, { 64, 0 }, { 4096, 0 },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(c); i++)
		KUNIT_EXPECT_EQ_MSG(test, ksym_default_len(c[i].size), c[i].len,
				    "extent %lu", c[i].size);
}

/* A symbol whose extent is no debug-register length needs /LEN. */
static void ksym_test_need_len(struct kunit *test)
{
	struct ksym_entry *e;
	int ret;

	/* init_task is kilobytes long, whatever follows it. */
	e = ksym_test_parse(test, "init_task:rw-", &ret);
	KUNIT_EXPECT_EQ(test, ret, -EINVAL);
	KUNIT_EXPECT_EQ(test, e->err, KSYM_ERR_NEED_LEN);
	KUNIT_EXPECT_EQ(test, e->err_pos, 9);
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
	KUNIT_EXPECT_EQ(test, e->spec.len, (unsigned int)sizeof(long));
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
	{ "init_task:rw-",		-EINVAL, KSYM_ERR_NEED_LEN,	9 },
	{ "schedule/4:--x",		-EINVAL, KSYM_ERR_EXEC_LEN,	9 },
#ifdef CONFIG_X86
	{ "jiffies_64:r--",		-EOPNOTSUPP, KSYM_ERR_NO_READ_ONLY, 11 },
#endif
};

static void ksym_test_bad_entries(struct kunit *test)
{
	const struct ksym_bad_case *c;
	struct ksym_entry *e;
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(ksym_bad_cases); i++) {
		c = &ksym_bad_cases[i];
		e = ksym_test_parse(test, c->text, &ret);
		KUNIT_EXPECT_EQ_MSG(test, ret, c->ret, "entry %s", c->text);
		KUNIT_EXPECT_EQ_MSG(test, e->err, c->err, "entry %s", c->text);
		KUNIT_EXPECT_EQ_MSG(test, e->err_pos, c->pos, "entry %s",
				    c->text);
	}
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

static struct kunit_case ksym_parser_cases[] = {
	KUNIT_CASE(ksym_test_explicit_len),
	KUNIT_CASE(ksym_test_default_len),
	KUNIT_CASE(ksym_test_need_len),
	KUNIT_CASE(ksym_test_len_offset_cpus),
	KUNIT_CASE(ksym_test_address),
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

kunit_test_suite(ksym_parser_suite);
