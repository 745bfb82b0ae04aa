/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The formats of the events ksym-ctl uaf reads, as the test VM's 6.12
 * kernel (x86-64) shows them in events/SYSTEM/EVENT/format, for the host
 * tests (test_uaf.c) and the fuzzer (tools/fuzz/fuzz_uaf.c): a tep_handle
 * made from them decodes records laid out as the kernel writes them.
 */
#ifndef KSYM_CTL_TESTS_UAF_FORMATS_H
#define KSYM_CTL_TESTS_UAF_FORMATS_H

#include <stdint.h>
#include <string.h>

#include <event-parse.h>

#define UAF_COMMON \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

/* Event ids as the tests use them. */
enum {
	UAF_ID_KSTACK = 4, UAF_ID_HIT = 100, UAF_ID_STACK = 102,
	UAF_ID_CACHE_FREE = 200, UAF_ID_CACHE_ALLOC = 201, UAF_ID_KFREE = 202,
	UAF_ID_KMALLOC = 203, UAF_ID_PAGE_ALLOC = 204,
};

static const struct uaf_format {
	const char	*system;
	const char	*text;
} uaf_formats[] = {
	{ "ftrace",
	  "name: kernel_stack\nID: 4\nformat:\n" UAF_COMMON
	  "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
	  "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n\n"
	  "print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1]\n" },
	{ "ksym",
	  "name: ksym_hit\nID: 100\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long sp;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long bp;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 value;\toffset:48;\tsize:8;\tsigned:0;\n"
	  "\tfield:u64 old;\toffset:56;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long caller;\toffset:64;\tsize:8;\tsigned:0;\n"
	  "\tfield:u8 len;\toffset:72;\tsize:1;\tsigned:0;\n"
	  "\tfield:u8 access;\toffset:73;\tsize:1;\tsigned:0;\n"
	  "\tfield:u8 has_value;\toffset:74;\tsize:1;\tsigned:0;\n"
	  "\tfield:u8 has_old;\toffset:75;\tsize:1;\tsigned:0;\n"
	  "\tfield:u8 changed;\toffset:76;\tsize:1;\tsigned:0;\n"
	  "\tfield:__data_loc char[] sym;\toffset:80;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"%s ip=%pS value=0x%llx\", __get_str(sym), (void *)REC->ip, REC->value\n" },
	{ "ksym",
	  "name: ksym_stack\nID: 102\nformat:\n" UAF_COMMON
	  "\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	  "\tfield:__data_loc unsigned long[] ips;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"%u\", REC->nr\n" },
	{ "kmem",
	  "name: kmem_cache_free\nID: 200\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:0;\n\n"
	  "print fmt: \"call_site=%pS ptr=%p name=%s\", (void *)REC->call_site, REC->ptr, __get_str(name)\n" },
	{ "kmem",
	  "name: kmem_cache_alloc\nID: 201\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n"
	  "\tfield:bool accounted;\toffset:52;\tsize:1;\tsigned:0;\n\n"
	  "print fmt: \"call_site=%pS ptr=%p bytes_req=%zu\", (void *)REC->call_site, REC->ptr, REC->bytes_req\n" },
	{ "kmem",
	  "name: kfree\nID: 202\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	  "print fmt: \"call_site=%pS ptr=%p\", (void *)REC->call_site, REC->ptr\n" },
	{ "kmem",
	  "name: kmalloc\nID: 203\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long call_site;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:const void * ptr;\toffset:16;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_req;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:size_t bytes_alloc;\toffset:32;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned long gfp_flags;\toffset:40;\tsize:8;\tsigned:0;\n"
	  "\tfield:int node;\toffset:48;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"call_site=%pS ptr=%p bytes_req=%zu\", (void *)REC->call_site, REC->ptr, REC->bytes_req\n" },
	{ "kmem",
	  "name: mm_page_alloc\nID: 204\nformat:\n" UAF_COMMON
	  "\tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;\n"
	  "\tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;\n"
	  "\tfield:unsigned long gfp_flags;\toffset:24;\tsize:8;\tsigned:0;\n"
	  "\tfield:int migratetype;\toffset:32;\tsize:4;\tsigned:1;\n\n"
	  "print fmt: \"pfn=0x%lx order=%d\", REC->pfn, REC->order\n" },
};

/* A tep_handle with the formats above (little-endian, 8-byte longs), or NULL. */
static inline struct tep_handle *uaf_formats_tep(void)
{
	struct tep_handle *tep = tep_alloc();
	size_t i;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < sizeof(uaf_formats) / sizeof(uaf_formats[0]); i++)
		if (tep_parse_event(tep, uaf_formats[i].text, strlen(uaf_formats[i].text),
				    uaf_formats[i].system)) {
			tep_free(tep);
			return NULL;
		}
	return tep;
}

/* kallsyms of the functions the records name (the hit generator's uaf). */
static const char uaf_kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81100000 T kmem_cache_free\n"
	"ffffffff81100400 T __kasan_slab_free\n"
	"ffffffff81100800 T memset\n"
	"ffffffff81100900 T do_syscall_64\n"
	"ffffffff81100a00 T event_triggers_post_call\n"
	"ffffffffa0000000 t ksym_hitgen_uaf\t[ksym_hitgen]\n"
	"ffffffffa0000200 t ksym_hitgen_uaf_stray_now\t[ksym_hitgen]\n"
	"ffffffffa0000300 t ksym_hitgen_uaf_stray_late\t[ksym_hitgen]\n"
	"ffffffffa0000400 t ksym_hitgen_run\t[ksym_hitgen]\n";

/* A record being laid out as the kernel writes it. */
struct uaf_rec {
	unsigned char	b[512];
	int		n;		/* its size */
};

static inline void uaf_rec_put(struct uaf_rec *r, int off, const void *v, int size)
{
	memcpy(r->b + off, v, size);
	if (off + size > r->n)
		r->n = off + size;
}

static inline void uaf_rec_u64(struct uaf_rec *r, int off, unsigned long long v)
{
	uaf_rec_put(r, off, &v, 8);
}

/* The common fields: event @id, task @pid. */
static inline void uaf_rec_head(struct uaf_rec *r, unsigned short id, int pid)
{
	memset(r, 0, sizeof(*r));
	uaf_rec_put(r, 0, &id, 2);
	uaf_rec_put(r, 4, &pid, 4);
}

/* A __data_loc field at @off, its @len bytes at @at. */
static inline void uaf_rec_loc(struct uaf_rec *r, int off, int at, const void *v,
			       int len)
{
	unsigned int loc = (unsigned int)len << 16 | at;

	uaf_rec_put(r, off, &loc, 4);
	uaf_rec_put(r, at, v, len);
}

/* kmem_cache_free (with @name), kfree, kmem_cache_alloc or kmalloc (200 bytes). */
static inline void uaf_rec_kmem(struct uaf_rec *r, unsigned short id,
				unsigned long long site, unsigned long long ptr,
				const char *name)
{
	uaf_rec_head(r, id, 130);
	uaf_rec_u64(r, 8, site);
	uaf_rec_u64(r, 16, ptr);
	if (id == UAF_ID_CACHE_FREE && name)
		uaf_rec_loc(r, 24, 28, name, strlen(name) + 1);
	if (id == UAF_ID_CACHE_ALLOC || id == UAF_ID_KMALLOC) {
		uaf_rec_u64(r, 24, 200);
		uaf_rec_u64(r, 32, 256);
	}
}

/* mm_page_alloc of 2^@order pages from @pfn, by task @pid. */
static inline void uaf_rec_page(struct uaf_rec *r, unsigned long long pfn,
				unsigned int order, int pid)
{
	uaf_rec_head(r, UAF_ID_PAGE_ALLOC, pid);
	uaf_rec_u64(r, 8, pfn);
	uaf_rec_put(r, 16, &order, 4);
	uaf_rec_u64(r, 24, 0xcc0);
	r->n = 40;
}

/* A write hit of watch @sym (rw-, 8 bytes, old 0x1001 as last seen). */
static inline void uaf_rec_hit(struct uaf_rec *r, unsigned long long addr,
			       unsigned long long ip, unsigned long long value,
			       const char *sym)
{
	unsigned char bytes[4] = { 8, 3, 1, 2 };	/* len, access, has_value, has_old */

	uaf_rec_head(r, UAF_ID_HIT, 131);
	uaf_rec_u64(r, 8, addr);
	uaf_rec_u64(r, 16, ip);
	uaf_rec_u64(r, 48, value);
	uaf_rec_u64(r, 56, 0x1001);
	uaf_rec_u64(r, 64, ip);
	uaf_rec_put(r, 72, bytes, 4);
	uaf_rec_loc(r, 80, 84, sym, strlen(sym) + 1);
}

/* ksym_stack of @nr frames. */
static inline void uaf_rec_stack(struct uaf_rec *r, const unsigned long long *ips,
				 unsigned int nr)
{
	uaf_rec_head(r, UAF_ID_STACK, 131);
	uaf_rec_put(r, 8, &nr, 4);
	uaf_rec_loc(r, 12, 16, ips, nr * 8);
}

/* ftrace's kernel_stack: @size of the @nr frames used. */
static inline void uaf_rec_kstack(struct uaf_rec *r, const unsigned long long *ips,
				  int nr, int size)
{
	uaf_rec_head(r, UAF_ID_KSTACK, 130);
	uaf_rec_put(r, 8, &size, 4);
	uaf_rec_put(r, 16, ips, nr * 8);
}

#endif
