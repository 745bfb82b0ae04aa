// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of ksym-ctl uaf's pure parts: the options and their
 * checks, the trigger and filter texts, trace_stat/ksym_triggers rows, the
 * allocator's functions, the pairing of hits with frees, the report (text
 * and JSON, escaped) and the reader of the ring buffer's records (made
 * here on the VM kernel's formats, tests/uaf_formats.h).
 */
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <json.h>

#include "test.h"
#include "uaf.h"
#include "uaf_formats.h"
#include "uaf_read.h"

static void test_options(void)
{
	unsigned long off = 99;
	unsigned int len = 99;
	int slots = 99;

	CHECK(uaf_parse_offset("0", &off) == 0 && off == 0);
	CHECK(uaf_parse_offset("16", &off) == 0 && off == 16);
	CHECK(uaf_parse_offset("0x18", &off) == 0 && off == 0x18);
	CHECK(uaf_parse_offset("4096", &off) == 0 && off == 4096);
	CHECK(uaf_parse_offset("16384", &off) == 0 && off == 16384);
	CHECK(uaf_parse_offset("0x4000", &off) == 0 && off == 0x4000);
	CHECK(QUIET(uaf_parse_offset("16385", &off)) == -1);
	/* Decimal or 0x hex, never octal. */
	CHECK(uaf_parse_offset("010", &off) == 0 && off == 10);
	CHECK(uaf_parse_offset("08", &off) == 0 && off == 8);
	CHECK(uaf_parse_offset("0X1f", &off) == 0 && off == 0x1f);
	CHECK(QUIET(uaf_parse_offset("0x", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("0x-1", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("1f", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset(" 8", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("-1", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("8x", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("", &off)) == -1);
	CHECK(QUIET(uaf_parse_offset("99999999999999999999999", &off)) == -1);
	CHECK(uaf_parse_len("4", &len) == 0 && len == 4);
	CHECK(QUIET(uaf_parse_len("3", &len)) == -1);
	CHECK(QUIET(uaf_parse_len("16", &len)) == -1);
	CHECK(QUIET(uaf_parse_len("0", &len)) == -1);
	CHECK(uaf_parse_slots("4", &slots) == 0 && slots == 4);
	CHECK(uaf_parse_slots("1", &slots) == 0 && slots == 1);
	CHECK(QUIET(uaf_parse_slots("5", &slots)) == -1);
	CHECK(QUIET(uaf_parse_slots("0", &slots)) == -1);
	CHECK(QUIET(uaf_parse_slots("two", &slots)) == -1);

	CHECK(uaf_check_cache_name("ksym_hitgen_cache") == 0);
	CHECK(uaf_check_cache_name("kmalloc-rnd-01-256") == 0);
	CHECK(uaf_check_cache_name(":0000200") == 0);
	CHECK(uaf_check_cache_name("TCPv6") == 0);
	CHECK(QUIET(uaf_check_cache_name("")) == -1);
	CHECK(QUIET(uaf_check_cache_name("a b")) == -1);
	CHECK(QUIET(uaf_check_cache_name("x\" || name == \"y")) == -1);
	CHECK(QUIET(uaf_check_cache_name("../slab")) == -1);
	CHECK(QUIET(uaf_check_cache_name("..")) == -1);

	CHECK(uaf_check_type("struct pipe_inode_info") == 0);
	CHECK(uaf_check_type("union bpf_attr") == 0);
	CHECK(QUIET(uaf_check_type("pipe_inode_info")) == -1);
	CHECK(QUIET(uaf_check_type("struct ")) == -1);
	CHECK(QUIET(uaf_check_type("struct a)b")) == -1);
	CHECK(uaf_check_field("head") == 0);
	CHECK(uaf_check_field("bufs[2].len") == 0);
	CHECK(uaf_check_field("a.b.c") == 0);
	CHECK(QUIET(uaf_check_field("")) == -1);
	CHECK(QUIET(uaf_check_field("a..b")) == -1);
	CHECK(QUIET(uaf_check_field("a[x]")) == -1);
	CHECK(QUIET(uaf_check_field("a[1")) == -1);
	/* The kernel prints [1], never [01]: a leading zero would not match. */
	CHECK(uaf_check_field("a[0]") == 0);
	CHECK(uaf_check_field("a[10].b") == 0);
	CHECK(QUIET(uaf_check_field("a[01]")) == -1);
	CHECK(QUIET(uaf_check_field("a[00]")) == -1);
	CHECK(QUIET(uaf_check_field("a:rw-")) == -1);
}

static void test_spec(void)
{
	struct uaf_spec sp = { .mode = UAF_CACHE, .cache = "ksym_hitgen_cache",
			       .object_size = 200 };
	struct strv w = { 0 };
	char *t;

	/* Word 0 of a 200-byte object: SLUB's free pointer is at +96. */
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 0);
	CHECK(uaf_word_offset(&sp) == 0 && uaf_word_len(&sp) == 8);
	CHECK(uaf_object_extent(&sp) == 200);
	t = uaf_watch_trigger(&sp);
	CHECK_STR(t, "kmem:kmem_cache_free:ksym_watch:ptr/8:rw- if name == \"ksym_hitgen_cache\"");
	free(t);
	t = uaf_unwatch_trigger(&sp);
	CHECK_STR(t, "kmem:kmem_cache_alloc:ksym_unwatch:ptr if bytes_req == 200");
	free(t);
	t = uaf_stack_trigger(&sp);
	CHECK_STR(t, "kmem:kmem_cache_free:stacktrace if name == \"ksym_hitgen_cache\"");
	free(t);
	t = uaf_free_filter(&sp);
	CHECK_STR(t, "name == \"ksym_hitgen_cache\"");
	free(t);
	t = uaf_alloc_filter(&sp);
	CHECK_STR(t, "bytes_req == 200");
	free(t);
	t = uaf_hit_name(&sp);
	CHECK_STR(t, "ptr");
	free(t);
	CHECK_STR(uaf_free_event(&sp), "kmem:kmem_cache_free");
	CHECK_STR(uaf_alloc_event(&sp), "kmem:kmem_cache_alloc");

	/* The free pointer's word: allowed, with a warning. */
	sp.offset = 96;
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 1);
	CHECK_HAS(w.n ? w.v[0] : NULL, "free pointer (+96 of 200 bytes)");
	strv_free(&w);
	sp.offset = 16;
	sp.len = 4;
	sp.write_only = true;
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 0);
	t = uaf_watch_trigger(&sp);
	CHECK_STR(t, "kmem:kmem_cache_free:ksym_watch:ptr+0x10/4:-w- if name == \"ksym_hitgen_cache\"");
	free(t);
	t = uaf_hit_name(&sp);
	CHECK_STR(t, "ptr+0x10");
	free(t);
	/* Misaligned, past the end. */
	sp.offset = 6;
	CHECK(QUIET(uaf_spec_finish(&sp, &w)) == -1);
	sp.offset = 200;
	CHECK(QUIET(uaf_spec_finish(&sp, &w)) == -1);
	sp.offset = 196;
	CHECK(uaf_spec_finish(&sp, &w) == 0);
	/* Small objects: the word is the free pointer. */
	sp = (struct uaf_spec){ .mode = UAF_CACHE, .cache = "tiny", .object_size = 8 };
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 1);
	CHECK_HAS(w.n ? w.v[0] : NULL, "the objects are 8 bytes");
	strv_free(&w);
	/* The size unknown: no alloc filter, the extent is the word's end. */
	sp = (struct uaf_spec){ .mode = UAF_CACHE, .cache = "x", .offset = 8 };
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 0);
	CHECK(uaf_alloc_filter(&sp) == NULL);
	t = uaf_unwatch_trigger(&sp);
	CHECK_STR(t, "kmem:kmem_cache_alloc:ksym_unwatch:ptr");
	free(t);
	CHECK(uaf_object_extent(&sp) == 16);

	/* kfree from a call site: kfree / kmalloc, the site's bytes. */
	sp = (struct uaf_spec){ .mode = UAF_KFREE, .site = "free_pipe_info",
				.site_start = 0xffffffff81234560ULL,
				.site_end = 0xffffffff81234600ULL };
	CHECK(uaf_spec_finish(&sp, &w) == 0 && w.n == 0);
	t = uaf_watch_trigger(&sp);
	CHECK_STR(t, "kmem:kfree:ksym_watch:ptr/8:rw- if call_site >= 0xffffffff81234560 && call_site < 0xffffffff81234600");
	free(t);
	t = uaf_unwatch_trigger(&sp);
	CHECK_STR(t, "kmem:kmalloc:ksym_unwatch:ptr");
	free(t);
	t = uaf_stack_trigger(&sp);
	CHECK_STR(t, "kmem:kfree:stacktrace if call_site >= 0xffffffff81234560 && call_site < 0xffffffff81234600");
	free(t);
	CHECK_STR(uaf_free_event(&sp), "kmem:kfree");
	CHECK_STR(uaf_alloc_event(&sp), "kmem:kmalloc");

	/* A field of a type: the kernel takes its length from BTF. */
	sp.type = "struct pipe_inode_info";
	sp.field = "head";
	sp.field_offset = 0x40;
	sp.field_size = 4;
	CHECK(uaf_spec_finish(&sp, &w) == 0);
	CHECK(uaf_word_offset(&sp) == 0x40 && uaf_word_len(&sp) == 4);
	t = uaf_watch_trigger(&sp);
	CHECK_STR(t, "kmem:kfree:ksym_watch:(struct pipe_inode_info)ptr.head:rw- if call_site >= 0xffffffff81234560 && call_site < 0xffffffff81234600");
	free(t);
	t = uaf_hit_name(&sp);
	CHECK_STR(t, "pipe_inode_info.head");
	free(t);
	sp.offset = 8;
	sp.len = 8;
	CHECK(uaf_spec_finish(&sp, &w) == 0);
	t = uaf_watch_trigger(&sp);
	CHECK_HAS(t, ":ksym_watch:(struct pipe_inode_info)ptr.head+0x8/8:rw- if ");
	free(t);
	t = uaf_hit_name(&sp);
	CHECK_STR(t, "pipe_inode_info.head+0x8");
	free(t);
	/* --len longer than the field itself. */
	sp.offset = 0;
	CHECK(QUIET(uaf_spec_finish(&sp, &w)) == -1);
	strv_free(&w);
}

static void test_trigger_rows(void)
{
	char shown[200];
	struct uaf_coverage cov;
	const char *rows =
		"# Event  Trigger  Slots  Armed  Missed  Refused  Unwatched  TooHot  Live  Hits  Window(last/max ns)  Stray\n"
		"kmem:kmalloc  ksym_watch:(struct pipe_inode_info)ptr.head/4:-w-  1/1  3  0  0  3  0  0  3  1426799/1426799  0\n"
		"kmem:kmem_cache_free  ksym_watch:ptr/8:rw-  4/4  3  1  2  3  0  0  6  169843/1024008  0\n"
		"kmem:kmem_cache_alloc  ksym_unwatch:ptr  0/0  0  0  0  0  0  0  0  0/0  0\n";

	CHECK(uaf_trigger_shown("ksym_watch:ptr/8:rw-:unlimited if name == \"ksym_hitgen_cache\"\n",
				shown, sizeof(shown)) == 0);
	CHECK_STR(shown, "ksym_watch:ptr/8:rw-");
	CHECK(uaf_trigger_shown("stacktrace:unlimited if name == \"x\"\n"
				"ksym_watch:(struct pipe_inode_info)ptr.head/4:-w-:3\n",
				shown, sizeof(shown)) == 0);
	CHECK_STR(shown, "ksym_watch:(struct pipe_inode_info)ptr.head/4:-w-");
	CHECK(uaf_trigger_shown("# Available triggers:\n# traceon traceoff\n", shown,
				sizeof(shown)) == -1);
	CHECK(uaf_trigger_shown("ksym_watch:", shown, sizeof(shown)) == -1);
	CHECK(uaf_trigger_shown("ksym_watch:x:y", shown, 4) == -1);

	uaf_coverage_parse(&cov, rows, "kmem:kmem_cache_free", "ksym_watch:ptr/8:rw-");
	CHECK(cov.known && cov.rows == 1);
	CHECK(cov.slots == 4 && cov.nr_slots == 4 && cov.armed == 3 && cov.missed == 1 &&
	      cov.refused == 2 && cov.unwatched == 3 && cov.hits == 6);
	/* A cast holds a blank: the columns are found after the trigger. */
	uaf_coverage_parse(&cov, rows, "kmem:kmalloc",
			   "ksym_watch:(struct pipe_inode_info)ptr.head/4:-w-");
	CHECK(cov.known && cov.armed == 3 && cov.hits == 3);
	/* Another event, another text, a prefix of it: not ours. */
	uaf_coverage_parse(&cov, rows, "kmem:kfree", "ksym_watch:ptr/8:rw-");
	CHECK(!cov.known && cov.rows == 0);
	uaf_coverage_parse(&cov, rows, "kmem:kmem_cache_free", "ksym_watch:ptr/8:rw");
	CHECK(!cov.known && cov.rows == 0);
	/* Two triggers of the same text (two instances): which is ours is not known. */
	uaf_coverage_parse(&cov, "kmem:kfree  ksym_watch:ptr/8:rw-  1/1  1 0 0 0 0 0 0  0/0  0\n"
			   "kmem:kfree  ksym_watch:ptr/8:rw-  1/1  2 0 0 0 0 0 0  0/0  0\n",
			   "kmem:kfree", "ksym_watch:ptr/8:rw-");
	CHECK(!cov.known && cov.rows == 2);
	/* Rows cut short, garbage. */
	uaf_coverage_parse(&cov, "kmem:kfree  ksym_watch:ptr/8:rw-  1/1  2\n\n\n  \nx",
			   "kmem:kfree", "ksym_watch:ptr/8:rw-");
	CHECK(!cov.known && cov.rows == 0);
	uaf_coverage_parse(&cov, "", "kmem:kfree", "ksym_watch:ptr/8:rw-");
	CHECK(!cov.known);
}

static void test_allocator(void)
{
	static const char * const yes[] = {
		"kmem_cache_alloc_noprof", "kmem_cache_alloc_lru_noprof",
		"__kmalloc_noprof", "__kmalloc_cache_noprof", "kmalloc_trace",
		"kmem_cache_free", "kfree", "kfree_sensitive", "slab_free_after_rcu_debug",
		"__slab_free", "___slab_alloc", "slab_post_alloc_hook", "do_slab_free",
		"kasan_save_free_info", "__kasan_slab_free", "qlist_free_all",
		"kfence_guarded_free", "krealloc_noprof", "__memcg_slab_post_alloc_hook",
		"clear_page_erms", "kernel_init_pages", "get_page_from_freelist",
		"__alloc_pages_noprof", "free_unref_page",
	};
	static const char * const no[] = {
		"kfree_skb", "kfree_skb_reason", "kmemdup_noprof", "memset",
		"ksym_hitgen_uaf_stray_now", "kmem", "slab", "free_pipe_info", "",
	};
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(uaf_allocator_function(yes[i]));
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!uaf_allocator_function(no[i]));
	CHECK(!uaf_allocator_function(NULL));
}

static void test_allocator_frames(void)
{
	/* arm64's clear_page is __pi_clear_page: a page given out, zeroed. */
	static const char * const pi_clear[] = { "__pi_clear_page", "kernel_init_pages",
						 "post_alloc_hook" };

	/* The allocator's own: innermost, or under memset and the like. */
	static const char * const own[] = { "set_freepointer_x", "do_slab_free" };
	static const char * const wiped[] = { "memset", "__memset",
					      "slab_post_alloc_hook",
					      "kmem_cache_alloc_noprof", "foo" };
	static const char * const kasan[] = { "memset", "__kasan_slab_free",
					      "kmem_cache_free", "ksym_hitgen_uaf" };
	static const char * const page[] = { "clear_page_erms", "kernel_init_pages",
					     "post_alloc_hook" };
	/* An interrupt that came in inside kmalloc: not the allocator's. */
	static const char * const irq[] = { "ksym_hitgen_uaf_stray_now", "timer_fn",
					    "__irq_exit_rcu", "sysvec_apic_timer_interrupt",
					    "asm_sysvec_apic_timer_interrupt",
					    "__kmalloc_noprof" };
	/* memset straight from interrupt entry, inside kfree. */
	static const char * const irq_memset[] = { "memset", "asm_common_interrupt",
						   "kfree" };
	/* A shrinker the page allocator called. */
	static const char * const shrinker[] = { "my_shrink_scan", "do_shrink_slab",
						 "shrink_slab", "__alloc_pages_slowpath",
						 "__alloc_pages_noprof" };
	/* memset of a driver's: its caller decides. */
	static const char * const drv[] = { "memcpy", "my_driver_fill",
					    "kmem_cache_alloc_noprof" };
	static const char * const helpers_only[] = { "memset", "memcpy" };
	/* A cache's constructor filling a new slab, setup_object() inlined. */
	static const char * const ctor[] = { "memset", "ksym_hitgen_cache_ctor",
					     "shuffle_freelist", "allocate_slab",
					     "___slab_alloc" };

	CHECK(uaf_allocator_frames(own, 2));
	CHECK(uaf_allocator_frames(wiped, 5));
	CHECK(uaf_allocator_frames(kasan, 4));
	CHECK(uaf_allocator_frames(page, 3));
	CHECK(!uaf_allocator_frames(irq, 6));
	CHECK(!uaf_allocator_frames(irq_memset, 3));
	CHECK(!uaf_allocator_frames(shrinker, 5));
	CHECK(!uaf_allocator_frames(drv, 3));
	CHECK(!uaf_allocator_frames(helpers_only, 2));
	CHECK(uaf_allocator_frames(ctor, 5));
	CHECK(uaf_allocator_frames(ctor + 1, 4));
	CHECK(!uaf_allocator_frames(ctor + 1, 1));
	CHECK(!uaf_allocator_frames(NULL, 0));
	CHECK(uaf_helper_function("memset") && uaf_helper_function("memset_orig") &&
	      uaf_helper_function("__memcpy") && uaf_helper_function("clear_page_rep"));
	CHECK(!uaf_helper_function("memcg_slab_post_alloc_hook") &&
	      !uaf_helper_function("mempool_alloc") && !uaf_helper_function(NULL));
	CHECK(uaf_entry_function("asm_exc_page_fault") &&
	      uaf_entry_function("irq_work_run_list") &&
	      uaf_entry_function("el1_interrupt") &&
	      uaf_entry_function("irq_exit_rcu"));
	CHECK(!uaf_entry_function("kfree") && !uaf_entry_function(NULL));
	CHECK(uaf_allocator_frames(pi_clear, 3));
}

/*
 * An object freed twice with no allocation seen between (a bulk
 * allocation gave it out): the hits between are its new owner's.
 */
static void test_unseen_realloc(void)
{
	struct uaf_data d = { 0 };
	struct uaf_free f1 = { .ts = 100, .ptr = 0xff11000000001000ULL, .stack = -1 };
	struct uaf_free f2 = { .ts = 300, .ptr = 0xff11000000001000ULL, .stack = -1 };
	struct uaf_hit h = { .addr = 0xff11000000001000ULL, .ip = 0xffffffffa0000210ULL,
			     .len = 8, .stack = -1 };
	int i;

	CHECK(uaf_add_free(&d, &f2) == 0);
	CHECK(uaf_add_free(&d, &f1) == 0);
	h.ts = 200;	/* between the two frees */
	CHECK(uaf_add_hit(&d, &h) == 0);
	h.ts = 400;	/* after the last one */
	CHECK(uaf_add_hit(&d, &h) == 0);
	uaf_analyze(&d, 8, NULL);
	CHECK(d.count[UAF_UNSEEN_REALLOC] == 1 && d.count[UAF_USE] == 1);
	for (i = 0; i < d.nr_hits; i++)
		CHECK(d.hits[i].cls == (d.hits[i].ts == 200 ? UAF_UNSEEN_REALLOC : UAF_USE));
	uaf_data_free(&d);
}

#define UAF	0xffffffffa0000000ULL
#define NOW	0xffffffffa0000200ULL
#define LATE	0xffffffffa0000300ULL
#define OBJ_A	0xff11000003a1c400ULL
#define OBJ_B	0xff11000003a1c4c8ULL

static void add_free(struct uaf_data *d, unsigned long long ts,
		     unsigned long long ptr, int stack)
{
	struct uaf_free f = { .ts = ts, .ptr = ptr, .call_site = UAF + 0x8f,
			      .cpu = 1, .pid = 130, .stack = stack };

	snprintf(f.comm, sizeof(f.comm), "sh");
	CHECK(uaf_add_free(d, &f) == 0);
}

static void add_hit(struct uaf_data *d, unsigned long long ts,
		    unsigned long long addr, unsigned long long ip,
		    unsigned long long value, int stack)
{
	struct uaf_hit h = { .ts = ts, .addr = addr, .ip = ip, .caller = ip,
			     .value = value, .old = 0x1001, .len = 8, .access = 3,
			     .has_value = true, .has_old = UAF_OLD_LAST, .cpu = 0,
			     .pid = 130, .stack = stack };

	snprintf(h.comm, sizeof(h.comm), "sh");
	CHECK(uaf_add_hit(d, &h) == 0);
}

static void test_pairing(void)
{
	unsigned long long free_chain[] = { 0xffffffff81100010ULL, UAF + 0x8f,
					    0xffffffff81100910ULL };
	unsigned long long now_chain[] = { NOW + 0x1a, UAF + 0xa0 };
	unsigned long long kasan_chain[] = { 0xffffffff81100810ULL,
					     0xffffffff81100420ULL,
					     0xffffffff81100020ULL, UAF + 0x8f };
	struct uaf_data d = { 0 };
	struct uaf_alloc a = { .ts = 2000, .ptr = OBJ_A };
	struct uaf_coverage cov = { .known = true, .rows = 1, .slots = 4,
				    .nr_slots = 4, .armed = 3, .missed = 1 };
	struct uaf_spec sp = { .mode = UAF_CACHE, .cache = "ksym_hitgen_cache",
			       .object_size = 200 };
	struct uaf_report rep = { .spec = &sp, .cov = &cov, .title = "sh -c x" };
	struct kallsyms ks;
	int s_free, s_now, s_kasan, i;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	CHECK(kallsyms_load(&ks, strdup(uaf_kallsyms_text)) == 0);
	s_free = uaf_add_stack(&d, free_chain, 3);
	s_now = uaf_add_stack(&d, now_chain, 2);
	s_kasan = uaf_add_stack(&d, kasan_chain, 4);
	/* The same callchain again is the same one. */
	CHECK(uaf_add_stack(&d, free_chain, 3) == s_free);
	CHECK(s_free >= 0 && s_now >= 0 && s_kasan >= 0 && d.nr_stacks == 3);

	/* Added out of order (CPUs read one after the other): sorted by time. */
	add_hit(&d, 3010, OBJ_A, NOW + 0x1a, 0xdead0002, s_now);	/* after A's 2nd free */
	add_free(&d, 1000, OBJ_A, s_free);
	add_free(&d, 1100, OBJ_B, s_free);
	add_free(&d, 3000, OBJ_A, s_free);
	CHECK(uaf_add_alloc(&d, &a) == 0);			/* A reused at 2000 */
	add_hit(&d, 1001, OBJ_A, 0xffffffff81100810ULL, 0, s_kasan);	/* KASAN's free track */
	add_hit(&d, 1005, OBJ_A, NOW + 0x1a, 0xdead0001, s_now);	/* the use after free */
	add_hit(&d, 1500, OBJ_B + 0x10, LATE + 0x10, 0xbeef0001, -1);	/* inside B, no stack */
	add_hit(&d, 2500, OBJ_A, LATE + 0x10, 0x7, -1);		/* after the reallocation */
	add_hit(&d, 900, OBJ_A, LATE + 0x10, 0x7, -1);		/* before any free */
	add_hit(&d, 1200, 0xff11000000001000ULL, LATE + 0x10, 0x7, -1);	/* no object */
	d.lost = 1;	/* the frees of those two may be lost: unpaired */
	uaf_analyze(&d, uaf_object_extent(&sp), &ks);
	CHECK(d.count[UAF_USE] == 3);
	CHECK(d.count[UAF_ALLOCATOR] == 1);
	CHECK(d.count[UAF_REALLOCATED] == 1);
	CHECK(d.count[UAF_UNPAIRED] == 2);
	CHECK(d.objects == 2);
	for (i = 0; i < d.nr_hits; i++) {
		const struct uaf_hit *h = &d.hits[i];

		if (h->ts == 1005 || h->ts == 3010)
			CHECK(h->cls == UAF_USE && d.frees[h->free].ptr == OBJ_A &&
			      d.frees[h->free].ts == h->ts - (h->ts == 1005 ? 5 : 10));
		if (h->ts == 1500)
			CHECK(h->cls == UAF_USE && d.frees[h->free].ptr == OBJ_B);
		if (h->ts == 900 || h->ts == 1200)
			CHECK(h->cls == UAF_UNPAIRED && h->free == -1);
	}
	/* Sorted by time. */
	for (i = 1; i < d.nr_hits; i++)
		CHECK(d.hits[i - 1].ts <= d.hits[i].ts);

	f = open_memstream(&text, &size);
	uaf_print(f, &d, &rep, &ks);
	fclose(f);
	CHECK_HAS(text, "ksym-ctl uaf: objects of slab cache ksym_hitgen_cache (object_size 200), word +0x0/8 rw-, while 'sh -c x' ran\n");
	CHECK_HAS(text, "use after free 1: write by ksym_hitgen_uaf_stray_now+0x1a [ksym_hitgen], 0.005 us after the free\n");
	CHECK_HAS(text, "    object 0xff11000003a1c400 +0x0/8: value=0xdead0001 old=0x1001\n");
	CHECK_HAS(text, "    accessed by sh (pid 130) on CPU 0:\n        ksym_hitgen_uaf_stray_now+0x1a [ksym_hitgen]\n        ksym_hitgen_uaf+0xa0 [ksym_hitgen]\n");
	CHECK_HAS(text, "    freed at ksym_hitgen_uaf+0x8f [ksym_hitgen] by sh (pid 130) on CPU 1:\n        kmem_cache_free+0x10\n");
	CHECK_HAS(text, "use after free 2: write by ksym_hitgen_uaf_stray_late+0x10 [ksym_hitgen], 0.400 us after the free\n    object 0xff11000003a1c4c8 +0x10/8: value=0xbeef0001");
	CHECK_HAS(text, "use after free 3: ");
	CHECK(!strstr(text, "use after free 4"));
	CHECK_HAS(text, "        (no callchain)\n");
	CHECK_HAS(text, "3 uses after free in 2 objects, by 2 accessors:\n         2  ksym_hitgen_uaf_stray_now [ksym_hitgen]\n         1  ksym_hitgen_uaf_stray_late [ksym_hitgen]\n");
	CHECK_HAS(text, "not uses after free: 1 access by the allocator itself, 1 after the object or its page was given out again, 0 reallocated, not seen (before a second free), 2 without a free seen (-v lists them)\n");
	CHECK_HAS(text, "coverage: 4 frees seen, 3 watched, 1 missed (every slot busy), 0 refused; 4 of 4 slots\n");
	CHECK_HAS(text, "note: sampling, like KFENCE");
	CHECK_HAS(text, "note: the direct map's base is not known: ");
	CHECK(!strstr(text, "allocator access"));
	free(text);

	/* -v: the others too, the allocator's with its callchain. */
	rep.verbose = true;
	text = NULL;
	f = open_memstream(&text, &size);
	uaf_print(f, &d, &rep, &ks);
	fclose(f);
	CHECK_HAS(text, "allocator access 1: write by memset+0x10, 0.001 us after the free\n");
	CHECK_HAS(text, "        __kasan_slab_free+0x20\n");
	CHECK_HAS(text, "access after reallocation 1: ");
	CHECK_HAS(text, "access without a free 1: ");
	CHECK_HAS(text, "    address 0xff11000000001000/8: ");
	CHECK(!strstr(text, "(-v lists them)"));
	CHECK(!strstr(text, "hits of other watches"));
	CHECK(!strstr(text, "SLAB_TYPESAFE_BY_RCU"));
	free(text);

	/* Another watch's hits in our events; an RCU cache. */
	d.other_hits = 2;
	rep.rcu_cache = true;
	text = NULL;
	f = open_memstream(&text, &size);
	uaf_print(f, &d, &rep, &ks);
	fclose(f);
	CHECK_HAS(text, "warning: 2 hits of other watches in this instance's events: another hunt or watch shares them\n");
	CHECK_HAS(text, "note: ksym_hitgen_cache is SLAB_TYPESAFE_BY_RCU (destroy_by_rcu): ");
	free(text);
	rep.rcu_cache = false;
	uaf_data_free(&d);

	/* Nothing at all: a coverage line all the same. */
	cov = (struct uaf_coverage){ 0 };
	rep.verbose = false;
	text = NULL;
	f = open_memstream(&text, &size);
	uaf_analyze(&d, 200, &ks);
	uaf_print(f, &d, &rep, &ks);
	fclose(f);
	CHECK_HAS(text, "\n0 uses after free in 0 objects, by 0 accessors\n");
	CHECK_HAS(text, "coverage: 0 frees seen, watched unknown (0 rows of the trigger in trace_stat/ksym_triggers)\n");
	free(text);
	kallsyms_free(&ks);
}

/* A JSON text parsed by json-c, or NULL. */
static struct json_object *parse(const char *text)
{
	enum json_tokener_error err;
	struct json_object *o = json_tokener_parse_verbose(text, &err);

	if (!o)
		fprintf(stderr, "JSON: %s in:\n%s\n", json_tokener_error_desc(err), text);
	return o;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static void test_json(void)
{
	unsigned long long chain[] = { NOW + 0x1a, UAF + 0xa0 };
	struct uaf_coverage cov = { .known = true, .rows = 1, .slots = 4,
				    .nr_slots = 4, .armed = 3 };
	struct uaf_spec sp = { .mode = UAF_CACHE, .cache = "ksym_hitgen_cache",
			       .object_size = 200 };
	struct uaf_report rep = { .spec = &sp, .cov = &cov,
				  .title = "sh -c \"echo 3 > x\"\t\x01\xff" };
	struct json_object *o, *fnd, *first, *v;
	struct uaf_data d = { 0 };
	struct kallsyms ks;
	char *text = NULL;
	size_t size = 0;
	FILE *f;
	int s;

	/* A module name with a quote and a control character (kallsyms says any). */
	CHECK(kallsyms_load(&ks, strdup("ffffffffa0000000 t ksym_hitgen_uaf\t[a\"b\\c]\n"
					"ffffffffa0000200 t ksym_hitgen_uaf_stray_now\t[ksym_hitgen]\n"
					"ffffffffa0000300 t x\t[m]\n")) == 0);
	s = uaf_add_stack(&d, chain, 2);
	add_free(&d, 1000, OBJ_A, -1);
	add_hit(&d, 3500, OBJ_A + 8, NOW + 0x1a, 0xdead0001, s);
	/* A comm of any bytes: quotes, escapes, invalid UTF-8. */
	snprintf(d.hits[0].comm, sizeof(d.hits[0].comm), "a\"\\\n\x7f\xc3(");
	d.hits[0].has_old = UAF_OLD_NONE;
	d.lost = 2;
	uaf_analyze(&d, 200, &ks);
	f = open_memstream(&text, &size);
	uaf_print_json(f, &d, &rep, &ks);
	fclose(f);
	o = parse(text);
	CHECK(o != NULL);
	CHECK_STR(json_object_get_string(get(o, "mode")), "cache");
	CHECK_STR(json_object_get_string(get(o, "cache")), "ksym_hitgen_cache");
	CHECK(json_object_get_int(get(o, "object_size")) == 200);
	CHECK_STR(json_object_get_string(get(o, "command")), "sh -c \"echo 3 > x\"\t\x01\xef\xbf\xbd");
	fnd = get(o, "findings");
	CHECK(fnd && json_object_array_length(fnd) == 1);
	first = fnd ? json_object_array_get_idx(fnd, 0) : NULL;
	CHECK_STR(json_object_get_string(get(first, "accessor")), "ksym_hitgen_uaf_stray_now+0x1a [ksym_hitgen]");
	CHECK_STR(json_object_get_string(get(first, "value")), "0xdead0001");
	CHECK(json_object_is_type(get(first, "old"), json_type_null));
	CHECK(json_object_get_int(get(first, "offset")) == 8);
	CHECK(json_object_get_int64(get(first, "since_free_ns")) == 2500);
	CHECK_STR(json_object_get_string(get(first, "task")), "a\"\\\n\x7f\xef\xbf\xbd(");
	v = get(get(first, "free"), "call_site");
	CHECK_STR(json_object_get_string(v), "ksym_hitgen_uaf+0x8f [a\"b\\c]");
	v = get(first, "callchain");
	CHECK(v && json_object_array_length(v) == 2);
	CHECK_STR(json_object_get_string(json_object_array_get_idx(v, 1)), "ksym_hitgen_uaf+0xa0 [a\"b\\c]");
	CHECK(json_object_get_int(get(o, "uses_after_free")) == 1);
	CHECK(json_object_get_int(get(o, "events_lost")) == 2);
	CHECK(json_object_is_type(get(o, "page_reuse_seen"), json_type_boolean) &&
	      !json_object_get_boolean(get(o, "page_reuse_seen")));
	v = get(o, "coverage");
	CHECK(json_object_get_int(get(v, "frees_seen")) == 3);
	CHECK(json_object_get_int(get(v, "watched")) == 3);
	CHECK(json_object_get_int(get(v, "missed")) == 0);
	CHECK(json_object_get_int(get(v, "slots")) == 4);
	CHECK(get(o, "not_uses") == NULL);
	json_object_put(o);
	free(text);

	/* -v, coverage unknown, kfree mode: still valid JSON. */
	cov = (struct uaf_coverage){ .rows = 2 };
	sp = (struct uaf_spec){ .mode = UAF_KFREE, .site = "f\"n", .site_start = 1,
				.site_end = 2, .type = "struct x", .field = "y" };
	rep.verbose = true;
	rep.title = NULL;
	text = NULL;
	f = open_memstream(&text, &size);
	uaf_print_json(f, &d, &rep, &ks);
	fclose(f);
	o = parse(text);
	CHECK(o != NULL);
	CHECK_STR(json_object_get_string(get(o, "kfree_site")), "f\"n");
	CHECK(json_object_is_type(get(o, "object_size"), json_type_null));
	CHECK(json_object_is_type(get(get(o, "coverage"), "watched"), json_type_null));
	CHECK(json_object_get_int(get(get(o, "coverage"), "frees_seen")) == 1);
	CHECK(get(o, "not_uses") && json_object_array_length(get(o, "not_uses")) == 0);
	json_object_put(o);
	free(text);
	uaf_data_free(&d);
	kallsyms_free(&ks);
}

/*
 * Feed record @r (a buffer of exactly its size: ASan sees a read past it),
 * from the frees' instance or, with @pages, the page allocations' one.
 */
static int feed_from(struct uaf_reader *rd, struct uaf_rec *r, unsigned long long ts,
		     int cpu, int missed, bool pages)
{
	struct tep_record rec = { .ts = ts, .size = r->n, .cpu = cpu,
				  .missed_events = missed };
	void *copy = malloc(r->n);
	int ret;

	memcpy(copy, r->b, r->n);
	rec.data = copy;
	ret = pages ? uaf_reader_add_pages(rd, &rec, cpu) : uaf_reader_add(rd, &rec, cpu);
	free(copy);
	return ret;
}

static int feed(struct uaf_reader *rd, struct uaf_rec *r, unsigned long long ts,
		int cpu)
{
	return feed_from(rd, r, ts, cpu, 0, false);
}

#define BASE	0xff11000000000000ULL
#define OBJ_C	0xff11000004000100ULL		/* in page frame 0x4000 */

static void test_reader(void)
{
	unsigned long long ips[2] = { NOW + 0x1a, UAF + 0xa0 };
	unsigned long long callers[10] = { 0xffffffff81100010ULL, UAF + 0x8f,
					   0xffffffff81100910ULL };
	struct uaf_reader_opts o = { .hit_name = "ptr", .free_event = "kmem:nosuch",
				     .alloc_event = "kmem:kmalloc", .extent = 200,
				     .base_pid = 130, .page_size = 4096 };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;
	int i;

	CHECK(tep != NULL);
	if (!tep)
		return;
	CHECK(QUIET(uaf_reader_new(tep, &d, &o, &rd)) == -1 && !rd);
	o.free_event = "nocolon";
	CHECK(QUIET(uaf_reader_new(tep, &d, &o, &rd)) == -1 && !rd);
	o.free_event = "kmem:kmem_cache_free";
	o.alloc_event = "kmem:kmem_cache_alloc";
	CHECK(uaf_reader_new(tep, &d, &o, &rd) == 0);
	if (!rd)
		return;
	/* Pages given out before the base is known, another task's: not kept. */
	uaf_rec_page(&r, 0x3a1c, 0, 7);
	CHECK(feed(rd, &r, 400, 0) == 0);
	uaf_rec_page(&r, 0x3f5b0, 2, 7);
	CHECK(feed(rd, &r, 440, 0) == 0);
	CHECK(!d.base_known && d.nr_pages == 0);
	/* ksym-ctl's probe: its order-2 pages, then its kmalloc of 16 KiB. */
	uaf_rec_page(&r, 0x3f5b0, 2, 130);
	CHECK(feed(rd, &r, 450, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_KMALLOC, UAF, BASE + 0x3f5b0000ULL, NULL);
	uaf_rec_u64(&r, 32, 4096);	/* not those pages' bytes: no base */
	CHECK(feed(rd, &r, 451, 0) == 0);
	CHECK(!d.base_known);
	uaf_rec_u64(&r, 32, 16384);
	CHECK(feed(rd, &r, 452, 0) == 0);
	CHECK(d.base_known && d.page_base == BASE);
	/* An allocation of an object never freed: not kept. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, OBJ_A, NULL);
	CHECK(feed(rd, &r, 500, 1) == 0);
	/* CPU 1: the free, its trigger's kernel_stack (10 frames, 3 used). */
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, OBJ_A, "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 1000, 1) == 0);
	uaf_rec_kstack(&r, callers, 10, 3);
	CHECK(feed(rd, &r, 1000, 1) == 0);
	/* CPU 1: the hit and its ksym_stack. */
	uaf_rec_hit(&r, OBJ_A, NOW + 0x1a, 0xdead0001, "ptr");
	CHECK(feed(rd, &r, 1005, 1) == 0);
	uaf_rec_stack(&r, ips, 2);
	CHECK(feed(rd, &r, 1005, 1) == 0);
	/* CPU 0: a hit of another watch, and its stack: not ours. */
	uaf_rec_hit(&r, 0xffffffff82000000ULL, 0xffffffff81100910ULL, 1, "pid_max");
	CHECK(feed(rd, &r, 1006, 0) == 0);
	uaf_rec_stack(&r, ips, 2);
	CHECK(feed(rd, &r, 1006, 0) == 0);
	/* Now A is freed: its allocation is kept. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, OBJ_A, NULL);
	CHECK(feed(rd, &r, 2000, 0) == 0);
	/* Records cut short, a __data_loc past the end, a huge CPU: no harm. */
	uaf_rec_hit(&r, OBJ_A, NOW, 1, "ptr");
	r.n = 30;
	CHECK(feed(rd, &r, 2100, 0) == 0);
	uaf_rec_hit(&r, OBJ_A, NOW, 1, "ptr");
	uaf_rec_put(&r, 80, &(unsigned int){ 200u << 16 | 84 }, 4);
	CHECK(feed(rd, &r, 2200, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF, OBJ_B, "ksym_hitgen_cache");
	r.n = 20;
	CHECK(feed(rd, &r, 2300, 100000) == 0);
	uaf_rec_stack(&r, ips, 2);
	r.n = 20;
	CHECK(feed(rd, &r, 2300, 100000) == 0);
	uaf_rec_kstack(&r, callers, 0, 1000);
	r.n = 12;
	CHECK(feed(rd, &r, 2300, 1) == 0);
	uaf_rec_head(&r, 9999, 1);
	r.n = 8;
	CHECK(feed(rd, &r, 2300, 1) == 0);
	r.n = 4;
	CHECK(feed(rd, &r, 2300, 1) == 0);
	uaf_rec_page(&r, 0x4000, 40, 7);	/* an order no page has */
	CHECK(feed(rd, &r, 2300, 1) == 0);
	/*
	 * C's slab page goes back to the page allocator and is given out
	 * again (order 1 from 0x4000 holds it; another page does not): its
	 * word is written before (a use after free) and after (the page's
	 * new owner).
	 */
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, OBJ_C, "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 2350, 0) == 0);
	uaf_rec_hit(&r, OBJ_C, LATE + 0x10, 0xbeef0001, "ptr");
	CHECK(feed(rd, &r, 2360, 0) == 0);
	uaf_rec_page(&r, 0x3ffe, 0, 7);
	CHECK(feed(rd, &r, 2390, 0) == 0);
	uaf_rec_page(&r, 0x4000, 1, 7);
	CHECK(feed(rd, &r, 2400, 0) == 0);
	uaf_rec_hit(&r, OBJ_C, 0xffffffff81100810ULL + 0x900, 0, "ptr");
	CHECK(feed(rd, &r, 2500, 0) == 0);
	/* Allocations and pages are judged after every CPU is read. */
	CHECK(d.nr_allocs == 0 && d.nr_pages == 0);
	CHECK(uaf_reader_tick(rd, true) == 0);

	CHECK(d.nr_frees == 2 && d.frees[0].ptr == OBJ_A &&
	      d.frees[0].call_site == UAF + 0x8f && d.frees[0].pid == 130);
	CHECK(d.frees[0].stack >= 0 && d.stacks[d.frees[0].stack].nr == 3 &&
	      d.stacks[d.frees[0].stack].ip[1] == UAF + 0x8f);
	CHECK(d.nr_allocs == 1 && d.allocs[0].ts == 2000);
	CHECK(d.nr_pages == 1 && d.pages[0].pfn == 0x4000 && d.pages[0].order == 1);
	/* The cut one (sym past its end) is not ours; the other had no addr. */
	CHECK(d.other_hits == 3);
	CHECK(d.nr_hits == 3);
	CHECK(d.hits[0].addr == OBJ_A && d.hits[0].value == 0xdead0001 &&
	      d.hits[0].old == 0x1001 && d.hits[0].len == 8 &&
	      d.hits[0].access == 3 && d.hits[0].has_value &&
	      d.hits[0].has_old == UAF_OLD_LAST && d.hits[0].pid == 131);
	CHECK(d.hits[0].stack >= 0 && d.stacks[d.hits[0].stack].nr == 2 &&
	      d.stacks[d.hits[0].stack].ip[0] == NOW + 0x1a);
	uaf_analyze(&d, 200, NULL);
	CHECK(d.count[UAF_USE] == 2 && d.count[UAF_REALLOCATED] == 1 && d.objects == 2);
	for (i = 0; i < d.nr_hits; i++)
		if (d.hits[i].ts == 2500)
			CHECK(d.hits[i].cls == UAF_REALLOCATED &&
			      d.frees[d.hits[i].free].ptr == OBJ_C);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	tep_free(tep);
}

/* The probe's kmalloc at @ptr of its order-2 pages at @pfn. */
static void probe(struct uaf_reader *rd, unsigned long long pfn,
		  unsigned long long ptr, unsigned long long ts)
{
	struct uaf_rec r;

	uaf_rec_page(&r, pfn, 2, 130);
	CHECK(feed(rd, &r, ts, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_KMALLOC, UAF, ptr, NULL);
	uaf_rec_u64(&r, 32, 16384);
	CHECK(feed(rd, &r, ts + 1, 0) == 0);
}

/*
 * CPUs are read one after the other: an allocation (or page) read on CPU 0
 * before the free of its object, earlier, on CPU 1 is kept all the same;
 * a CPU left with more (capped) holds back what is past its last record.
 * A learnt base that is not aligned, or above a freed object, is not used.
 */
static void test_reader_order(void)
{
	struct uaf_reader_opts o = { .hit_name = "ptr",
				     .free_event = "kmem:kmem_cache_free",
				     .alloc_event = "kmem:kmem_cache_alloc",
				     .extent = 200, .base_pid = 130, .page_size = 4096 };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;

	CHECK(tep != NULL);
	if (!tep || uaf_reader_new(tep, &d, &o, &rd) || !rd)
		goto out;
	/* A base off the 1 GiB (x86-64) or page alignment: not learnt. */
	probe(rd, 0x3f5b0, BASE + 0x3f5b0000ULL + 0x800, 10);
	CHECK(!d.base_known && d.base_bad);
	probe(rd, 0x3f5b0, BASE + 0x3f5b0000ULL, 20);
	CHECK(d.base_known && !d.base_bad && d.page_base == BASE);
	CHECK(uaf_reader_tick(rd, false) == 0);

	/* Tick 1: CPU 0 read first (the reuse), then CPU 1 (the free, before). */
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, OBJ_C, NULL);
	CHECK(feed(rd, &r, 2000, 0) == 0);
	uaf_rec_page(&r, 0x4000, 0, 7);
	CHECK(feed(rd, &r, 2100, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, OBJ_C, "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 1500, 1) == 0);
	/* An allocation of OBJ_A before its free (at 3000): not kept. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, OBJ_A, NULL);
	CHECK(feed(rd, &r, 1600, 1) == 0);
	/* CPU 1 had more: its last record read is at 1600. */
	uaf_reader_capped(rd, 1);
	CHECK(uaf_reader_tick(rd, false) == 0);
	CHECK(d.nr_allocs == 0 && d.nr_pages == 0);
	/* Tick 2: CPU 1 capped again at 2050: what is up to it is judged. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, OBJ_A, "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 3000, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, 0xff11000005000000ULL, NULL);
	CHECK(feed(rd, &r, 2050, 1) == 0);
	uaf_reader_capped(rd, 1);
	CHECK(uaf_reader_tick(rd, false) == 0);
	CHECK(d.nr_allocs == 1 && d.allocs[0].ptr == OBJ_C && d.allocs[0].ts == 2000);
	CHECK(d.nr_pages == 0);
	/* The end: all of it. */
	CHECK(uaf_reader_tick(rd, true) == 0);
	CHECK(d.nr_allocs == 1);
	CHECK(d.nr_pages == 1 && d.pages[0].pfn == 0x4000 && d.pages[0].ts == 2100);
	/* An order past any MAX_PAGE_ORDER: dropped. */
	uaf_rec_page(&r, 0x4000, 31, 7);
	CHECK(feed(rd, &r, 4000, 0) == 0);
	CHECK(uaf_reader_tick(rd, true) == 0);
	CHECK(d.nr_pages == 1);
	/* A freed object below the base: the base is not trusted any more. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, 0xff10000000001000ULL,
		     "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 5000, 0) == 0);
	CHECK(!d.base_known && d.base_bad);
out:
	uaf_reader_free(rd);
	uaf_data_free(&d);
	if (tep)
		tep_free(tep);
}

/*
 * Review 11-28 M4: kfree mode, an object kfree()d into a named cache and
 * given out again by kmem_cache_alloc(): its new owner's access is no use
 * after free (the reader keeps that allocation; uaf.c unwatches on it).
 */
static void test_kfree_cache_realloc(void)
{
	struct uaf_reader_opts o = { .hit_name = "ptr", .free_event = "kmem:kfree",
				     .alloc_event = "kmem:kmalloc", .extent = 8,
				     .page_size = 4096 };
	struct uaf_spec sp = { .mode = UAF_KFREE };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;
	char *t;

	CHECK_STR(uaf_alloc_event2(&sp), "kmem:kmem_cache_alloc");
	t = uaf_unwatch_trigger2(&sp);
	CHECK_STR(t, "kmem:kmem_cache_alloc:ksym_unwatch:ptr");
	free(t);
	sp.mode = UAF_CACHE;
	CHECK(!uaf_alloc_event2(&sp) && !uaf_unwatch_trigger2(&sp));
	o.alloc_event2 = "kmem:kmem_cache_alloc";
	if (!tep || uaf_reader_new(tep, &d, &o, &rd)) {
		CHECK(!"reader");
		return;
	}
	uaf_rec_kmem(&r, UAF_ID_KFREE, UAF + 0x10, OBJ_A, NULL);
	CHECK(feed(rd, &r, 1000, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, 0xffffffff81100900ULL, OBJ_A, NULL);
	CHECK(feed(rd, &r, 1100, 1) == 0);
	uaf_rec_hit(&r, OBJ_A, 0xffffffff81100900ULL, 1, "ptr");
	CHECK(feed(rd, &r, 1200, 1) == 0);
	CHECK(uaf_reader_tick(rd, true) == 0);
	CHECK(d.nr_allocs == 1 && d.allocs[0].ts == 1100);
	uaf_analyze(&d, 8, NULL);
	CHECK(d.count[UAF_USE] == 0);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	tep_free(tep);
}

/*
 * Review 11-28 L7: with no event lost, a hit no free of ours explains is
 * another hunt's (its watch is named "ptr" too): counted with the other
 * watches' hits, not reported as ours.
 */
static void test_foreign_hits(void)
{
	struct uaf_data d = { 0 };
	int i;

	add_free(&d, 1000, OBJ_A, -1);
	add_hit(&d, 1005, OBJ_A, NOW + 0x1a, 0xdead0001, -1);
	add_hit(&d, 900, OBJ_A, LATE + 0x10, 0x7, -1);
	add_hit(&d, 1200, 0xff11000000001000ULL, LATE + 0x10, 0x7, -1);
	for (i = 0; i < 2; i++) {	/* twice: the same */
		uaf_analyze(&d, 8, NULL);
		CHECK(d.nr_hits == 1 && d.hits[0].ts == 1005 &&
		      d.hits[0].cls == UAF_USE && d.frees[d.hits[0].free].ptr == OBJ_A);
		CHECK(d.count[UAF_USE] == 1 && d.count[UAF_UNPAIRED] == 0);
		CHECK(d.other_hits == 2);
	}
	uaf_data_free(&d);
}

/*
 * Review 11-28 L5: a 12 KiB object over four pages, its word at +0x1800 in
 * the third; that page alone given out again (order 0), then written: the
 * page's new owner, not a use after free.
 */
static void test_middle_page(void)
{
	unsigned long long obj = BASE + 0x4000f00ULL, word = obj + 0x1800;
	struct uaf_reader_opts o = { .hit_name = "ptr+0x1800",
				     .free_event = "kmem:kmem_cache_free",
				     .alloc_event = "kmem:kmem_cache_alloc",
				     .extent = 12288, .word_offset = 0x1800, .word_len = 8,
				     .base_pid = 130, .page_size = 4096 };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;

	if (!tep || uaf_reader_new(tep, &d, &o, &rd)) {
		CHECK(!"reader");
		return;
	}
	probe(rd, 0x3f5b0, BASE + 0x3f5b0000ULL, 10);
	CHECK(d.base_known);
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF, obj, "task_struct");
	CHECK(feed(rd, &r, 1000, 0) == 0);
	uaf_rec_page(&r, (word - BASE) >> 12, 0, 7);
	CHECK(feed(rd, &r, 1100, 1) == 0);
	uaf_rec_hit(&r, word, 0xffffffff81100900ULL, 0x41414141, "ptr+0x1800");
	CHECK(feed(rd, &r, 1200, 1) == 0);
	CHECK(uaf_reader_tick(rd, true) == 0);
	CHECK(d.nr_pages == 1);
	uaf_analyze(&d, 12288, NULL);
	CHECK(d.nr_hits == 1 && d.hits[0].cls == UAF_REALLOCATED);
	CHECK(d.count[UAF_USE] == 0);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	tep_free(tep);
}

/*
 * Review 11-28 L8: inside a PID namespace getpid() is not the records'
 * pid. base_pid -1: any task's large kmalloc tells the base, its pages and
 * its kmalloc by the same task.
 */
static void test_base_any_pid(void)
{
	struct uaf_reader_opts o = { .hit_name = "ptr", .free_event = "kmem:kmem_cache_free",
				     .alloc_event = "kmem:kmem_cache_alloc", .extent = 200,
				     .base_pid = -1, .page_size = 4096 };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;

	if (!tep || uaf_reader_new(tep, &d, &o, &rd)) {
		CHECK(!"reader");
		return;
	}
	/* Another task's pages, then the kmalloc (of task 130): not paired. */
	uaf_rec_page(&r, 0x3f5b0, 2, 77);
	CHECK(feed(rd, &r, 10, 0) == 0);
	uaf_rec_kmem(&r, UAF_ID_KMALLOC, UAF, BASE + 0x3f5b0000ULL, NULL);
	uaf_rec_u64(&r, 32, 16384);
	CHECK(feed(rd, &r, 11, 0) == 0);
	CHECK(!d.base_known);
	/* Task 130's own (its PID in no namespace of ours): learnt. */
	probe(rd, 0x3f5b0, BASE + 0x3f5b0000ULL, 20);
	CHECK(d.base_known && d.page_base == BASE);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	tep_free(tep);
}

/*
 * Review 11-28 L6: no callchain (no ksym-stack): a hit in memset() right
 * before the object's allocation event is the allocator's zeroing; one
 * with no allocation after it is not.
 */
static void test_zeroing_no_stack(void)
{
	struct uaf_alloc a = { .ts = 1600, .ptr = OBJ_A };
	struct uaf_data d = { 0 };
	struct kallsyms ks;
	int i;

	CHECK(kallsyms_load(&ks, strdup(uaf_kallsyms_text)) == 0);
	add_free(&d, 1000, OBJ_A, -1);
	add_free(&d, 1000, OBJ_B, -1);
	CHECK(uaf_add_alloc(&d, &a) == 0);
	add_hit(&d, 1500, OBJ_A, 0xffffffff81100810ULL, 0, -1);	/* memset, then alloc */
	add_hit(&d, 1500, OBJ_B, 0xffffffff81100810ULL, 0, -1);	/* memset, no alloc */
	uaf_analyze(&d, 200, &ks);
	CHECK(d.count[UAF_ALLOCATOR] == 1 && d.count[UAF_USE] == 1);
	for (i = 0; i < d.nr_hits; i++)
		CHECK(d.hits[i].cls == (d.hits[i].addr == OBJ_A ? UAF_ALLOCATOR : UAF_USE));
	uaf_data_free(&d);
	kallsyms_free(&ks);
}

/*
 * Review 11-28 L9: the page allocations in an instance of their own, read
 * before the frees. Their losses are counted apart; a page allocation read
 * on CPU 0 says nothing of how far CPU 0's frees were read: one given out
 * (ts 3000) after a free (2000) not read yet while CPU 0's frees are capped
 * (read to 600) waits for it, and is kept.
 */
static void test_pages_stream(void)
{
	struct uaf_reader_opts o = { .hit_name = "ptr", .free_event = "kmem:kmem_cache_free",
				     .alloc_event = "kmem:kmem_cache_alloc", .extent = 200,
				     .base_pid = 130, .page_size = 4096 };
	struct tep_handle *tep = uaf_formats_tep();
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	struct uaf_rec r;

	if (!tep || uaf_reader_new(tep, &d, &o, &rd)) {
		CHECK(!"reader");
		return;
	}
	/* The probe, from the pages' instance; 5 of its events lost before. */
	uaf_rec_page(&r, 0x3f5b0, 2, 130);
	CHECK(feed_from(rd, &r, 20, 0, 5, true) == 0);
	uaf_rec_kmem(&r, UAF_ID_KMALLOC, UAF, BASE + 0x3f5b0000ULL, NULL);
	uaf_rec_u64(&r, 32, 16384);
	CHECK(feed_from(rd, &r, 21, 0, 0, true) == 0);
	CHECK(d.base_known && d.page_base == BASE);
	CHECK(d.pages_lost == 5 && d.lost == 0);
	/* Tick 0: the page of OBJ_C given out at 3000; CPU 0's frees read to 500. */
	uaf_rec_page(&r, 0x4000, 0, 7);
	CHECK(feed_from(rd, &r, 3000, 0, 0, true) == 0);
	uaf_rec_kmem(&r, UAF_ID_CACHE_ALLOC, UAF, OBJ_A, NULL);
	CHECK(feed(rd, &r, 500, 0) == 0);
	uaf_reader_capped(rd, 0);
	CHECK(uaf_reader_tick(rd, false) == 0);
	/* Tick 1: CPU 0's frees read to 600, capped again: the page waits. */
	CHECK(feed(rd, &r, 600, 0) == 0);
	uaf_reader_capped(rd, 0);
	CHECK(uaf_reader_tick(rd, false) == 0);
	CHECK(d.nr_pages == 0);
	/* Tick 2: OBJ_C's free (2000): its page given out again is kept. */
	uaf_rec_kmem(&r, UAF_ID_CACHE_FREE, UAF + 0x8f, OBJ_C, "ksym_hitgen_cache");
	CHECK(feed(rd, &r, 2000, 0) == 0);
	CHECK(uaf_reader_tick(rd, false) == 0);
	CHECK(d.nr_pages == 1 && d.nr_pages && d.pages[0].pfn == 0x4000);
	CHECK(d.lost == 0 && d.pages_lost == 5);
	uaf_reader_free(rd);
	uaf_data_free(&d);
	tep_free(tep);
}

/* Read past the cap while a CPU's buffer is more than half full. */
static void test_buffer_half_full(void)
{
	CHECK(uaf_buffer_half_full("entries: 9\noverrun: 0\ncommit overrun: 0\nbytes: 2097153\noldest event ts: 1.0\n", 4096));
	CHECK(!uaf_buffer_half_full("entries: 9\nbytes: 2097152\n", 4096));
	CHECK(!uaf_buffer_half_full("entries: 9\nbytes: 0\n", 4096));
	CHECK(uaf_buffer_half_full("bytes: 513\n", 1));
	CHECK(!uaf_buffer_half_full("bytes: 999999999", 4096));	/* no end of line */
	CHECK(!uaf_buffer_half_full("bytes: x\n", 4096));
	CHECK(!uaf_buffer_half_full("entries: 2097153\n", 4096));
	CHECK(!uaf_buffer_half_full("", 4096));
	CHECK(!uaf_buffer_half_full(NULL, 4096));
	/* The page allocations' buffer: 16 MiB, 1/32 of memory, 4 MiB. */
	CHECK(uaf_pages_buffer_kb(1048576, 2) == 16384);
	CHECK(uaf_pages_buffer_kb(512ULL << 20, 128) == 16384);
	CHECK(uaf_pages_buffer_kb(1048576, 4) == 8192);
	CHECK(uaf_pages_buffer_kb(262144, 8) == 4096);
	CHECK(uaf_pages_buffer_kb(0, 0) == 4096);
}

void test_uaf(void)
{
	test_options();
	test_spec();
	test_trigger_rows();
	test_allocator();
	test_allocator_frames();
	test_unseen_realloc();
	test_pairing();
	test_json();
	test_reader();
	test_reader_order();
	test_kfree_cache_realloc();
	test_foreign_hits();
	test_middle_page();
	test_base_any_pid();
	test_zeroing_no_stack();
	test_pages_stream();
	test_buffer_half_full();
}
