// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of ksym-ctl fields: on BTF made here with libbpf (known
 * layouts, written to a temporary file as /sys/kernel/btf/vmlinux is), and
 * on the host's own /sys/kernel/btf/vmlinux when it has one.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <linux/btf.h>

#include "fields.h"
#include "test.h"

static char dir[] = "/tmp/ksym-fields-XXXXXX";
static char vmlinux[64];

static int write_btf(const struct btf *btf, const char *path)
{
	const void *raw;
	__u32 size;
	FILE *f;
	int ok;

	raw = btf__raw_data(btf, &size);
	f = fopen(path, "w");
	if (!raw || !f) {
		if (f)
			fclose(f);
		return -1;
	}
	ok = fwrite(raw, 1, size, f) == size;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/*
 *	struct list_head { struct list_head *next, *prev; };
 *	struct inner { int a; unsigned long b; };
 *	struct outer {
 *		int x;					  0
 *		union { int u1; unsigned long u2; };	  8
 *		struct inner in;			 16
 *		int arr[4];				 32
 *		unsigned int bf1:3, bf2:5;		 48
 *		struct inner ia[2];			 56
 *		struct list_head *lp;			 88
 *	};						 96 bytes
 *	typedef struct outer outer_t;
 *	typedef unsigned long ulong_t;
 *	union onion { int i; unsigned long l; };
 *	struct holder { struct { int p, q; } st; };
 *	struct flexholder {			sockaddr's DECLARE_FLEX_ARRAY
 *		unsigned short family;
 *		struct { } __empty_data;	an empty anonymous struct
 *		char data[];
 *	};
 *	DEFINE_PER_CPU(struct outer, my_pcpu);
 *	unsigned long counter;			a VAR outside the per-CPU data
 *
 * and, split on it as a module's BTF is, the module modx with
 *	struct modrec { unsigned int flags; unsigned long count; };
 *	DEFINE_PER_CPU(struct inner, mod_pcpu);
 * next to a file that is no BTF, which the search through modules skips.
 */
#define LONG_M10	"mmmmmmmmmm"
#define LONG_M100	LONG_M10 LONG_M10 LONG_M10 LONG_M10 LONG_M10 \
			LONG_M10 LONG_M10 LONG_M10 LONG_M10 LONG_M10
#define LONG_M		LONG_M100 LONG_M100 LONG_M100 LONG_M100 LONG_M100 LONG_M100

static int make_btf(void)
{
	struct btf *btf = btf__new_empty(), *mod = NULL;
	int i_int, i_uint, i_ulong, lh, lh_ptr, inner, anon, arr, ia, outer;
	int i_char, i_ushort, pcpu, counter, ret = -1;
	char path[80], longname[201];
	FILE *f;

	if (!btf)
		return -1;
	i_int = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	i_uint = btf__add_int(btf, "unsigned int", 4, 0);
	i_ulong = btf__add_int(btf, "long unsigned int", 8, 0);
	/* The pointer refers to the struct that comes next. */
	lh_ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	lh = btf__add_struct(btf, "list_head", 16);
	btf__add_field(btf, "next", lh_ptr, 0, 0);
	btf__add_field(btf, "prev", lh_ptr, 64, 0);
	inner = btf__add_struct(btf, "inner", 16);
	btf__add_field(btf, "a", i_int, 0, 0);
	btf__add_field(btf, "b", i_ulong, 64, 0);
	anon = btf__add_union(btf, NULL, 8);
	btf__add_field(btf, "u1", i_int, 0, 0);
	btf__add_field(btf, "u2", i_ulong, 0, 0);
	arr = btf__add_array(btf, i_int, i_int, 4);
	ia = btf__add_array(btf, i_int, inner, 2);
	outer = btf__add_struct(btf, "outer", 96);
	btf__add_field(btf, "x", i_int, 0, 0);
	btf__add_field(btf, NULL, anon, 64, 0);
	btf__add_field(btf, "in", inner, 128, 0);
	btf__add_field(btf, "arr", arr, 256, 0);
	btf__add_field(btf, "bf1", i_uint, 384, 3);
	btf__add_field(btf, "bf2", i_uint, 387, 5);
	btf__add_field(btf, "ia", ia, 448, 0);
	btf__add_field(btf, "lp", lh_ptr, 704, 0);
	btf__add_typedef(btf, "outer_t", outer);
	btf__add_typedef(btf, "ulong_t", i_ulong);
	btf__add_union(btf, "onion", 8);
	btf__add_field(btf, "i", i_int, 0, 0);
	btf__add_field(btf, "l", i_ulong, 0, 0);
	anon = btf__add_struct(btf, NULL, 8);
	btf__add_field(btf, "p", i_int, 0, 0);
	btf__add_field(btf, "q", i_int, 32, 0);
	btf__add_struct(btf, "holder", 8);
	btf__add_field(btf, "st", anon, 0, 0);
	i_char = btf__add_int(btf, "char", 1, BTF_INT_CHAR);
	i_ushort = btf__add_int(btf, "short unsigned int", 2, 0);
	anon = btf__add_struct(btf, NULL, 0);
	arr = btf__add_array(btf, i_int, i_char, 0);
	btf__add_struct(btf, "flexholder", 2);
	btf__add_field(btf, "family", i_ushort, 0, 0);
	btf__add_field(btf, "__empty_data", anon, 16, 0);
	btf__add_field(btf, "data", arr, 16, 0);
	pcpu = btf__add_var(btf, "my_pcpu", BTF_VAR_GLOBAL_ALLOCATED, outer);
	counter = btf__add_var(btf, "counter", BTF_VAR_GLOBAL_ALLOCATED, i_ulong);
	btf__add_datasec(btf, ".data..percpu", 96);
	btf__add_datasec_var_info(btf, pcpu, 0, 96);
	btf__add_datasec(btf, ".data", 8);
	if (btf__add_datasec_var_info(btf, counter, 0, 8) < 0 || lh < 0)
		goto out;
	snprintf(vmlinux, sizeof(vmlinux), "%s/vmlinux", dir);
	if (write_btf(btf, vmlinux))
		goto out;

	mod = btf__new_empty_split(btf);
	if (!mod)
		goto out;
	btf__add_struct(mod, "modrec", 16);
	btf__add_field(mod, "flags", i_uint, 0, 0);
	btf__add_field(mod, "count", i_ulong, 64, 0);
	/* A member name longer than 128 characters (the kernel takes 511). */
	memset(longname, 'm', 200);
	longname[200] = '\0';
	btf__add_struct(mod, "longrec", 8);
	btf__add_field(mod, longname, i_ulong, 0, 0);
	pcpu = btf__add_var(mod, "mod_pcpu", BTF_VAR_GLOBAL_ALLOCATED, inner);
	btf__add_datasec(mod, ".data..percpu", 16);
	if (btf__add_datasec_var_info(mod, pcpu, 0, 16) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/modx", dir);
	ret = write_btf(mod, path);
	snprintf(path, sizeof(path), "%s/junk", dir);
	f = fopen(path, "w");
	if (!f || fputs("no BTF\n", f) < 0)
		ret = -1;
	if (f)
		fclose(f);
out:
	btf__free(mod);
	btf__free(btf);
	return ret;
}

static char *text_of(const struct fields *fs, const char *btf, int json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		fields_print_json(f, fs, btf);
	else
		fields_print(f, fs, btf);
	fclose(f);
	return buf;
}

static const struct field_row *row(const struct fields *fs, const char *path)
{
	int i;

	for (i = 0; i < fs->nr_rows; i++)
		if (!strcmp(fs->rows[i].path, path))
			return &fs->rows[i];
	return NULL;
}

#define ANY	(~0UL)		/* an offset that depends on the kernel's config */

/* @path is a row at @offset (or ANY) of @size bytes. */
#define CHECK_ROW(fs, path, off, sz) do {				\
	const struct field_row *_r = row(fs, path);			\
	CHECK(_r != NULL);						\
	if (_r && (((off) != ANY && _r->offset != (off)) || _r->size != (sz))) { \
		fprintf(stderr, "  %s: offset %lu size %lu\n", path,	\
			_r->offset, _r->size);				\
		CHECK(!"offset and size");				\
	}								\
} while (0)

static void test_percpu_var(void)
{
	static const char expect[] =
		"# my_pcpu: per-CPU variable, struct outer, 96 bytes (BTF: B)\n"
		"# e.g. echo 'my_pcpu.x:rw-' >> /sys/kernel/tracing/ksym_trace_filter\n"
		"# an array shows its element [0]: element [i] is at offset + i * size\n"
		"my_pcpu.x       offset 0x0     size 4     int\n"
		"my_pcpu.u1      offset 0x8     size 4     int\n"
		"my_pcpu.u2      offset 0x8     size 8     long unsigned int\n"
		"my_pcpu.in      offset 0x10    size 16    struct inner\n"
		"my_pcpu.arr[0]  offset 0x20    size 4     int[4]\n"
		"my_pcpu.bf1     offset 0x30    size 1     unsigned int  (bit-field: 3 bits from bit 0)\n"
		"my_pcpu.bf2     offset 0x30    size 1     unsigned int  (bit-field: 5 bits from bit 3)\n"
		"my_pcpu.ia[0]   offset 0x38    size 16    struct inner[2]\n"
		"my_pcpu.lp      offset 0x58    size 8     struct list_head *\n";
	struct fields fs;
	char *txt;

	CHECK(fields_lookup(vmlinux, "my_pcpu", 0, &fs) == 0);
	CHECK(fs.kind == FIELDS_PERCPU && fs.size == 96 && fs.offset == 0);
	CHECK_STR(fs.type, "struct outer");
	/* Anonymous members by their own names; named ones not expanded. */
	CHECK(fs.nr_rows == 9);
	CHECK_ROW(&fs, "my_pcpu.u2", 8, 8);
	CHECK(!row(&fs, "my_pcpu.in.a"));
	CHECK(row(&fs, "my_pcpu.arr[0]") && row(&fs, "my_pcpu.arr[0]")->elems == 4);
	CHECK(row(&fs, "my_pcpu.bf2") && row(&fs, "my_pcpu.bf2")->bit_offset == 3 &&
	      row(&fs, "my_pcpu.bf2")->bit_size == 5);
	txt = text_of(&fs, "B", 0);
	if (txt && strcmp(txt, expect))
		fprintf(stderr, "got:\n%s\nexpected:\n%s", txt, expect);
	CHECK(txt && !strcmp(txt, expect));
	free(txt);
	txt = text_of(&fs, "B", 1);
	CHECK_HAS(txt, "{\"btf\": \"B\", \"target\": \"my_pcpu\", \"kind\": \"percpu_variable\", "
		       "\"type\": \"struct outer\", \"offset\": 0, \"size\": 96, "
		       "\"example\": \"my_pcpu.x\", \"fields\": [\n");
	CHECK_HAS(txt, "{\"path\": \"my_pcpu.arr[0]\", \"offset\": 32, \"size\": 4, \"type\": \"int[4]\", \"elements\": 4},\n");
	CHECK_HAS(txt, "{\"path\": \"my_pcpu.bf2\", \"offset\": 48, \"size\": 1, \"type\": \"unsigned int\", "
		       "\"bit_offset\": 3, \"bit_size\": 5},\n");
	CHECK_HAS(txt, "{\"path\": \"my_pcpu.lp\", \"offset\": 88, \"size\": 8, \"type\": \"struct list_head *\"}\n]}\n");
	free(txt);
	fields_free(&fs);

	/* -r: named members expanded too, an array's through element [0]. */
	CHECK(fields_lookup(vmlinux, "my_pcpu", FIELDS_DEPTH_MAX, &fs) == 0);
	CHECK(fs.nr_rows == 13);
	CHECK_ROW(&fs, "my_pcpu.in.a", 16, 4);
	CHECK_ROW(&fs, "my_pcpu.in.b", 24, 8);
	CHECK_ROW(&fs, "my_pcpu.ia[0].b", 64, 8);
	/* Pointers are not followed. */
	CHECK(!row(&fs, "my_pcpu.lp.next"));
	fields_free(&fs);
}

/* One lookup, the kind it gives (-1: any), its rows and one of them. */

struct lookup_case {
	const char	*arg;
	int		kind;
	int		nr_rows;	/* -1: any */
	const char	*path;
	unsigned long	offset, size;
};

static void check_cases(const char *btf, const struct lookup_case *lc, int n)
{
	struct fields fs;
	int i;

	for (i = 0; i < n; i++, lc++) {
		int ok = fields_lookup(btf, lc->arg, 0, &fs) == 0;

		CHECK(ok);
		if (!ok) {
			fprintf(stderr, "  lookup of %s\n", lc->arg);
			continue;
		}
		CHECK(lc->kind < 0 || (int)fs.kind == lc->kind);
		CHECK(lc->nr_rows < 0 || fs.nr_rows == lc->nr_rows);
		CHECK_ROW(&fs, lc->path, lc->offset, lc->size);
		fields_free(&fs);
	}
}

static void test_paths(void)
{
	static const struct lookup_case cases[] = {
		{ "my_pcpu.ia[1].b", FIELDS_PERCPU, 1, "my_pcpu.ia[1].b", 80, 8 },
		/* A member of an anonymous union, by its own name. */
		{ "my_pcpu.u2", FIELDS_PERCPU, 1, "my_pcpu.u2", 8, 8 },
		/* An index in hex, spelled back in decimal. */
		{ "my_pcpu.arr[0x3]", FIELDS_PERCPU, 1, "my_pcpu.arr[3]", 44, 4 },
		/* A variable outside the per-CPU data, of a scalar type. */
		{ "counter", FIELDS_VAR, 1, "counter", 0, 8 },
		/* A module's variable, from its split BTF next to vmlinux's. */
		{ "modx:mod_pcpu", FIELDS_PERCPU, 2, "modx:mod_pcpu.b", 8, 8 },
		/* Without MODULE:, the modules' BTF are looked through. */
		{ "mod_pcpu", FIELDS_PERCPU, 2, "mod_pcpu.b", 8, 8 },
		{ "modrec", FIELDS_TYPE, 2, ".count", 8, 8 },
		{ "(struct modrec)modrec_global", FIELDS_CAST, 2, "(struct modrec)modrec_global.count", 8, 8 },
	};
	struct fields fs;

	check_cases(vmlinux, cases, sizeof(cases) / sizeof(cases[0]));
	/* The file each was read from. */
	CHECK(fields_lookup(vmlinux, "mod_pcpu", 0, &fs) == 0);
	CHECK(fs.btf && strstr(fs.btf, "/modx"));
	fields_free(&fs);
	CHECK(fields_lookup(vmlinux, "my_pcpu.in", 0, &fs) == 0);
	CHECK_STR(fs.btf, vmlinux);
	CHECK_STR(fs.target, "my_pcpu.in");
	CHECK(fs.offset == 16 && fs.size == 16 && fs.nr_rows == 2);
	CHECK_ROW(&fs, "my_pcpu.in.b", 24, 8);
	fields_free(&fs);
	CHECK(fields_lookup(vmlinux, "my_pcpu.bf2", 0, &fs) == 0);
	CHECK(fs.nr_rows == 1 && fs.rows[0].bit_offset == 3 && fs.size == 1);
	fields_free(&fs);

	/*
	 * A 200-character member: was looked up (and its error printed) with
	 * an uninitialized name, the copy of a name over 127 characters
	 * having failed unchecked. Names over 511 are refused.
	 */
	{
		char arg[700];

		snprintf(arg, sizeof(arg), "(struct longrec)lr.%.200s", LONG_M);
		CHECK(fields_lookup(vmlinux, arg, 0, &fs) == 0);
		if (!fs.target || strcmp(fs.target, arg))
			CHECK(0);
		fields_free(&fs);
		snprintf(arg, sizeof(arg), "(struct longrec)lr.%.600s", LONG_M);
		CHECK(QUIET(fields_lookup(vmlinux, arg, 0, &fs)) == -1);
	}

	/* What the kernel would refuse too. */
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.nope", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.arr[4]", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.x.y", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.x[0]", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.lp.next", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.bf1.x", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu..x", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "my_pcpu.in+8", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "nosuch", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "struct nosuch", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "struct onion", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "ulong_t", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "(struct inner)my_pcpu", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "(struct outer)mod_pcpu", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "(struct outer my_pcpu", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "(enum e)my_pcpu", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup(vmlinux, "nomod:mod_pcpu", 0, &fs)) == -1);
	CHECK(QUIET(fields_lookup("/nonexistent/vmlinux", "my_pcpu", 0, &fs)) == -1);
	CHECK(fs.nr_rows == 0 && !fs.rows);
}

static const struct lookup_case type_cases[] = {
	/* The keyword, blanks, a union, a path into a type. */
	{ "  struct   outer", FIELDS_TYPE, 9, ".lp", 88, 8 },
	{ "outer_t", FIELDS_TYPE, 9, ".x", 0, 4 },
	{ "union onion", FIELDS_TYPE, 2, ".l", 0, 8 },
	{ "outer.ia[1]", FIELDS_TYPE, 2, ".ia[1].a", 72, 4 },
	/* A cast names any symbol: its rows are whole filter targets. */
	{ "( struct outer )some_global.in", FIELDS_CAST, 2, "(struct outer)some_global.in.b", 24, 8 },
	/* On a typed variable, the cast its type is allowed. */
	{ "(struct outer)my_pcpu.x", FIELDS_CAST, 1, "(struct outer)my_pcpu.x", 0, 4 },
};

static void test_types(void)
{
	static const char expect[] =
		"# struct inner: type, 16 bytes (BTF: B)\n"
		"# for a variable SYMBOL of this type, a PATH is watched as (struct inner)SYMBOL.PATH\n"
		"# e.g. echo '(struct inner)SYMBOL.a:rw-' >> /sys/kernel/tracing/ksym_trace_filter\n"
		".a  offset 0x0     size 4     int\n"
		".b  offset 0x8     size 8     long unsigned int\n";
	struct fields fs;
	char *txt;

	CHECK(fields_lookup(vmlinux, "inner", 0, &fs) == 0);
	CHECK(fs.kind == FIELDS_TYPE);
	CHECK_STR(fs.target, "struct inner");
	CHECK_STR(fs.cast, "(struct inner)");
	txt = text_of(&fs, "B", 0);
	if (txt && strcmp(txt, expect))
		fprintf(stderr, "got:\n%s\nexpected:\n%s", txt, expect);
	CHECK(txt && !strcmp(txt, expect));
	free(txt);
	txt = text_of(&fs, "B", 1);
	CHECK_STR(txt, "{\"btf\": \"B\", \"target\": \"struct inner\", \"kind\": \"type\", "
		       "\"type\": \"struct inner\", \"offset\": 0, \"size\": 16, "
		       "\"cast\": \"(struct inner)\", \"example\": \"(struct inner)SYMBOL.a\", \"fields\": [\n"
		       "  {\"path\": \".a\", \"offset\": 0, \"size\": 4, \"type\": \"int\"},\n"
		       "  {\"path\": \".b\", \"offset\": 8, \"size\": 8, \"type\": \"long unsigned int\"}\n"
		       "]}\n");
	free(txt);
	fields_free(&fs);

	check_cases(vmlinux, type_cases, sizeof(type_cases) / sizeof(type_cases[0]));
	CHECK(fields_lookup(vmlinux, "outer_t", 0, &fs) == 0);
	CHECK_STR(fs.target, "outer_t");
	CHECK_STR(fs.cast, "(struct outer)");
	fields_free(&fs);
	CHECK(fields_lookup(vmlinux, "union onion", 0, &fs) == 0);
	CHECK_STR(fs.cast, "(union onion)");
	fields_free(&fs);
	CHECK(fields_lookup(vmlinux, "( struct outer )some_global.in", 0, &fs) == 0);
	CHECK_STR(fs.target, "(struct outer)some_global.in");
	fields_free(&fs);
	/* A named member of an anonymous type: its body is not printed. */
	CHECK(fields_lookup(vmlinux, "holder", 1, &fs) == 0);
	CHECK(fs.nr_rows == 3 && row(&fs, ".st"));
	CHECK_STR(row(&fs, ".st") ? row(&fs, ".st")->type : NULL, "struct {...}");
	CHECK_ROW(&fs, ".st.q", 4, 4);
	fields_free(&fs);

	/*
	 * An empty anonymous struct (DECLARE_FLEX_ARRAY's __empty_*): its
	 * "{...}" is longer than the "{}" it stands for. Text and JSON.
	 */
	CHECK(fields_lookup(vmlinux, "flexholder", 0, &fs) == 0);
	CHECK(fs.nr_rows == 3);
	CHECK_STR(row(&fs, ".__empty_data") ? row(&fs, ".__empty_data")->type : NULL,
		  "struct {...}");
	CHECK_ROW(&fs, ".__empty_data", 2, 0);
	CHECK_STR(row(&fs, ".data[0]") ? row(&fs, ".data[0]")->type : NULL, "char[0]");
	txt = text_of(&fs, vmlinux, 0);
	CHECK_HAS(txt, ".__empty_data  offset 0x2     size 0     struct {...}\n");
	free(txt);
	txt = text_of(&fs, vmlinux, 1);
	CHECK_HAS(txt, "{\"path\": \".__empty_data\", \"offset\": 2, \"size\": 0, \"type\": \"struct {...}\"}");
	free(txt);
	fields_free(&fs);
}

/* The host kernel's BTF, when it has one: layouts that do not change. */
static void test_host_btf(void)
{
	static const struct lookup_case cases[] = {
		{ "struct list_head", FIELDS_TYPE, 2, ".next", 0, 8 },
		{ "list_head", FIELDS_TYPE, 2, ".prev", 8, 8 },
		/* kernel/fork.c: DEFINE_PER_CPU(unsigned long, process_counts) */
		{ "process_counts", FIELDS_PERCPU, 1, "process_counts", 0, 8 },
		/* kernel/sched: after a lock, whose size depends on the config */
		{ "runqueues", FIELDS_PERCPU, -1, "runqueues.nr_running", ANY, 4 },
	};
	struct fields fs;

	if (access(FIELDS_BTF, R_OK)) {
		printf("fields: no %s on this host: its checks are skipped\n", FIELDS_BTF);
		return;
	}
	check_cases(FIELDS_BTF, cases, sizeof(cases) / sizeof(cases[0]));
	/* Kernels since 6.9: struct sockaddr { ...; struct { } __empty_sa_data; ... } */
	if (fields_lookup(FIELDS_BTF, "sockaddr", 0, &fs) == 0) {
		if (row(&fs, ".__empty_sa_data"))
			CHECK_STR(row(&fs, ".__empty_sa_data")->type, "struct {...}");
		fields_free(&fs);
	}
}

/*
 * Malformed BTF: what the kernel's verifier refuses and Debian's libbpf 1.1
 * crashes or hangs on when fields.c hands it to btf_dump. Each blob is
 * made with libbpf's btf__add_*() (the faults patched into its types
 * afterwards, where the API refuses them), written as a vmlinux file of
 * its own, and looked up: ksym-ctl refuses it with a message
 * ("ksym-ctl fields: FILE: malformed BTF: WHY") and does not crash or hang.
 */
static char bad_dir[] = "/tmp/ksym-fields-bad-XXXXXX";
static char bad_vmlinux[80];

/* fields_lookup() of @arg in @btf, its messages kept in @msg. */
static int lookup_msg(const struct btf *btf, const char *arg, int depth,
		      struct fields *fs, char *msg, size_t size)
{
	FILE *err = tmpfile();
	int saved, ret = -2;
	size_t n = 0;

	msg[0] = '\0';
	if (!err || write_btf(btf, bad_vmlinux))
		goto out;
	fflush(stderr);
	saved = dup(2);
	dup2(fileno(err), 2);
	ret = fields_lookup(bad_vmlinux, arg, depth, fs);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(err);
	n = fread(msg, 1, size - 1, err);
	msg[n] = '\0';
out:
	if (err)
		fclose(err);
	return ret;
}

/* @btf refused, with "malformed BTF: " and @why in the message. */
static void check_refused(const struct btf *btf, const char *arg, const char *why)
{
	struct fields fs;
	char msg[512], want[128];
	int ret = lookup_msg(btf, arg, FIELDS_DEPTH_MAX, &fs, msg, sizeof(msg));

	CHECK(ret == -1);
	if (!ret)
		fields_free(&fs);
	snprintf(want, sizeof(want), "ksym-ctl fields: %s: malformed BTF: ", bad_vmlinux);
	CHECK_HAS(msg, want);
	CHECK_HAS(msg, why);
}

static struct btf_type *type_rw(struct btf *btf, int id)
{
	return (struct btf_type *)btf__type_by_id(btf, id);
}

/* struct holder { int a; TYPE b; }: the holder of each bad type. */
static struct btf *holder_of(struct btf *btf, int type, int size)
{
	int i_int = btf__find_by_name_kind(btf, "int", BTF_KIND_INT);

	btf__add_struct(btf, "holder", size);
	btf__add_field(btf, "a", i_int, 0, 0);
	btf__add_field(btf, "b", type, 32, 0);
	return btf;
}

static struct btf *new_btf(void)
{
	struct btf *btf = btf__new_empty();

	if (btf)
		btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	return btf;
}

static void test_bad_refs(void)
{
	struct btf *btf = new_btf();
	int p;

	/* a member of type [999] (libbpf 1.1's btf_dump writes out of bounds) */
	holder_of(btf, 1, 8);
	btf_members(type_rw(btf, 2))[1].type = 999;
	check_refused(btf, "holder", "no type [999]");
	btf__free(btf);

	/* a member name past the strings */
	btf = holder_of(new_btf(), 1, 8);
	btf_members(type_rw(btf, 2))[1].name_off = 1 << 20;
	check_refused(btf, "holder", "past the strings");
	btf__free(btf);

	/* an int of 3 bytes (libbpf divides by its alignment) */
	btf = new_btf();
	p = btf__add_int(btf, "odd", 4, 0);
	type_rw(btf, p)->size = 3;
	holder_of(btf, p, 8);
	check_refused(btf, "holder", "int of 3 bytes");
	btf__free(btf);

	/* a member of type void: no alignment */
	btf = holder_of(new_btf(), 0, 8);
	check_refused(btf, "holder", "which has no size");
	btf__free(btf);
}

static void test_bad_loops(void)
{
	struct btf *btf = new_btf();
	int id, anon;

	/* typedef T T; (libbpf 1.1 loops forever) */
	id = btf__add_typedef(btf, "T", btf__type_cnt(btf));
	holder_of(btf, id, 8);
	check_refused(btf, "holder", "a loop of types held by value");
	btf__free(btf);

	/* struct S { struct S s; } */
	btf = new_btf();
	id = btf__add_struct(btf, "S", 4);
	btf__add_field(btf, "s", id, 0, 0);
	check_refused(btf, "S", "a loop of types held by value");
	btf__free(btf);

	/* a pointer to itself (libbpf stacks it up until memory runs out) */
	btf = new_btf();
	id = btf__add_ptr(btf, btf__type_cnt(btf));
	holder_of(btf, id, 16);
	btf_members(type_rw(btf, id + 1))[1].offset = 64;
	check_refused(btf, "holder", "a loop of pointers");
	btf__free(btf);

	/* struct { typeof(this) *p; } (libbpf recurses until the stack overflows) */
	btf = new_btf();
	id = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	anon = btf__add_struct(btf, NULL, 8);
	btf__add_field(btf, "p", id, 0, 0);
	holder_of(btf, anon, 16);
	btf_members(type_rw(btf, anon + 1))[1].offset = 64;
	check_refused(btf, "holder", "loop");
	btf__free(btf);

	/* void (*)(void (*)(...)): a function pointer taking itself */
	btf = new_btf();
	id = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "f", id + 1);
	btf__add_ptr(btf, id);
	holder_of(btf, id + 1, 16);
	btf_members(type_rw(btf, id + 2))[1].offset = 64;
	check_refused(btf, "holder", "a loop of pointers");
	btf__free(btf);
}

/* What one level of nesting repeats: 3 levels of it make 300^3 members. */
#define NEST	300

static void test_bad_sizes(void)
{
	struct btf *btf = new_btf();
	const void *raw;
	char *blob;
	__u32 size, *hdr;
	FILE *f;
	int anon, id, i, lvl;

	/* an anonymous member past its struct's end */
	anon = btf__add_struct(btf, NULL, 8);
	btf__add_field(btf, "x", 1, 1U << 30, 0);
	holder_of(btf, anon, 16);
	btf_members(type_rw(btf, anon + 1))[1].offset = 64;
	check_refused(btf, "holder", "past the struct's end");
	btf__free(btf);

	/* anonymous unions of anonymous unions: 27 million members to flatten */
	btf = new_btf();
	id = 1;
	for (lvl = 0; lvl < 3; lvl++) {
		anon = btf__add_union(btf, lvl == 2 ? "nest" : NULL, 4);
		for (i = 0; i < NEST; i++)
			btf__add_field(btf, NULL, id, 0, 0);
		id = anon;
	}
	check_refused(btf, "nest", "members with those of its anonymous members");
	btf__free(btf);

	/*
	 * a header of 26 bytes: the type section not 4-byte aligned (libbpf
	 * 1.1 checks type_off, not the header's length; fields.c's reads of
	 * the types are then misaligned)
	 */
	btf = holder_of(new_btf(), 1, 8);
	raw = btf__raw_data(btf, &size);
	blob = calloc(1, size + 4);
	if (raw && blob) {
		memcpy(blob, raw, 24);
		memcpy(blob + 26, (const char *)raw + 24, size - 24);
		hdr = (__u32 *)blob;
		hdr[1] += 2;	/* hdr_len */
		f = fopen(bad_vmlinux, "w");
		CHECK(f && fwrite(blob, 1, size + 2, f) == size + 2);
		if (f)
			fclose(f);
		{
			struct fields fs;

			CHECK(QUIET(fields_lookup(bad_vmlinux, "holder", 0, &fs)) == -1);
		}
	}
	free(blob);
	btf__free(btf);
}

/*
 * A 256 MiB anonymous struct (the kernel allows 512 MiB) is printed
 * as "struct {...}" at once: libbpf printed its body first, a "long: 64;"
 * line per 8 bytes of the padding between its two members, for minutes.
 */
static void test_huge_anon(void)
{
	struct btf *btf = new_btf();
	struct fields fs;
	char msg[512];
	int anon, ptr;

	ptr = btf__add_ptr(btf, btf__type_cnt(btf) + 1);
	anon = btf__add_struct(btf, NULL, 1U << 28);
	btf__add_field(btf, "x", 1, 0, 0);
	btf__add_field(btf, "y", 1, (1U << 31) - 32, 0);
	btf__add_struct(btf, "holder", (1U << 28) + 8);
	btf__add_field(btf, "big", anon, 0, 0);
	btf__add_field(btf, "p", ptr, 1U << 31, 0);
	if (lookup_msg(btf, "holder", 0, &fs, msg, sizeof(msg)) == 0) {
		CHECK(row(&fs, ".big") && row(&fs, ".p"));
		if (row(&fs, ".big") && row(&fs, ".p")) {
			CHECK_STR(row(&fs, ".big")->type, "struct {...}");
			CHECK_STR(row(&fs, ".p")->type, "struct {...} *");
		}
		fields_free(&fs);
	} else {
		CHECK(!"the 256 MiB anonymous struct looked up");
	}
	btf__free(btf);
}

/*
 * A module's split BTF is checked as vmlinux's: a name vmlinux's lacks is
 * looked for in it, MODULE:SYMBOL reads it.
 */
static void test_bad_module(void)
{
	struct btf *btf = holder_of(new_btf(), 1, 8), *mod = NULL;
	struct fields fs;
	char path[100], msg[512], want[160];
	int id;

	if (btf)
		mod = btf__new_empty_split(btf);
	if (!mod) {
		CHECK(!"made the module's BTF");
		btf__free(btf);
		return;
	}
	/* typedef T T; in the module */
	id = btf__add_typedef(mod, "T", btf__type_cnt(mod));
	btf__add_var(mod, "modvar", BTF_VAR_GLOBAL_ALLOCATED, id);
	snprintf(path, sizeof(path), "%s/modbad", bad_dir);
	CHECK(write_btf(mod, path) == 0);
	snprintf(want, sizeof(want), "ksym-ctl fields: %s: malformed BTF: ", path);
	CHECK(lookup_msg(btf, "modvar", 0, &fs, msg, sizeof(msg)) == -1);
	CHECK_HAS(msg, want);
	CHECK(lookup_msg(btf, "modbad:modvar", 0, &fs, msg, sizeof(msg)) == -1);
	CHECK_HAS(msg, want);
	/* vmlinux's own names do not need the module */
	if (lookup_msg(btf, "holder", 0, &fs, msg, sizeof(msg)) == 0)
		fields_free(&fs);
	else
		CHECK(!"holder looked up in vmlinux's BTF");
	unlink(path);
	btf__free(mod);
	btf__free(btf);
}

static void test_malformed_btf(void)
{
	if (!mkdtemp(bad_dir)) {
		CHECK(!"made the directory of the malformed BTF");
		return;
	}
	snprintf(bad_vmlinux, sizeof(bad_vmlinux), "%s/vmlinux", bad_dir);
	test_bad_refs();
	test_bad_loops();
	test_bad_sizes();
	test_huge_anon();
	test_bad_module();
	unlink(bad_vmlinux);
	rmdir(bad_dir);
}

void test_fields(void)
{
	char path[80];

	if (!mkdtemp(dir) || make_btf()) {
		CHECK(!"made the test BTF");
		return;
	}
	test_percpu_var();
	test_paths();
	test_types();
	test_host_btf();
	test_malformed_btf();
	unlink(vmlinux);
	snprintf(path, sizeof(path), "%s/modx", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/junk", dir);
	unlink(path);
	rmdir(dir);
}
