// SPDX-License-Identifier: GPL-2.0
/*
 * make-corpus: writes the seed corpora of the harnesses (corpus/NAME/),
 * from real files: the records of the trace.dat fixtures the tests use
 * (framed as fuzz.h says; ksym_hit with and without old and has_old),
 * records of ksym_stack and ksym_branches built on their formats in those
 * files, BTF made here with libbpf (the shapes
 * fields.c must handle) and a slice of the host's kernel BTF (a few types,
 * pointers cut to forward declarations: small), and the texts of
 * /proc/kallsyms, trace_stat and ksym_trace_filter as the kernel writes
 * them, event formats (tracefs' format files: the VM kernel's, older and
 * crafted ones) with records laid out on them, and ksym-ctl state files.
 * Run by `make corpus`; its output is committed (keep it small).
 *
 *   make-corpus DIR
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <bpf/btf.h>
#include <trace-cmd.h>

#include "fuzz.h"
#include "tests/uaf_formats.h"

#define MAX_RECS	64

struct rec {
	int		cpu;
	char		event[32];
	unsigned char	*data;
	int		size;
};

struct recs {
	struct tep_handle	*tep;
	struct rec		r[MAX_RECS];
	int			n;
};

static const char *outdir;

static FILE *seed(const char *harness, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, harness);
	if (mkdir(path, 0755) && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", outdir, harness, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

static void put_rec(FILE *f, int cpu, const void *data, int size)
{
	fputc(cpu, f);
	fputc(size & 0xff, f);
	fputc(size >> 8, f);
	fwrite(data, 1, size, f);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu,
		     void *data)
{
	struct recs *rs = data;
	struct tep_event *ev;
	struct rec *r;

	(void)h;
	ev = tep_find_event(rs->tep, tep_data_type(rs->tep, rec));
	if (!ev || strncmp(ev->name, "ksym_", 5) || rs->n == MAX_RECS)
		return 0;
	r = &rs->r[rs->n++];
	r->cpu = cpu;
	snprintf(r->event, sizeof(r->event), "%s", ev->name);
	r->data = malloc(rec->size);
	memcpy(r->data, rec->data, rec->size);
	r->size = rec->size;
	return 0;
}

static struct tracecmd_input *load(const char *rel, struct recs *rs)
{
	struct tracecmd_input *h = fuzz_open_fixture(rel);

	int i;

	memset(rs, 0, sizeof(*rs));
	rs->tep = tracecmd_get_tep(h);
	tracecmd_iterate_events(h, NULL, 0, on_record, rs);
	/* ksym-ctl record writes into an instance: its buffer too */
	for (i = 0; i < tracecmd_buffer_instances(h); i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);

		if (!b)
			continue;
		tracecmd_iterate_events(b, NULL, 0, on_record, rs);
		tracecmd_close(b);
	}
	return h;
}

/* Selector byte, then one record's bytes (the plugin's input). */
static void raw_seed(const char *harness, const char *name, int sel,
		     const void *data, int size)
{
	FILE *f = seed(harness, name);

	fputc(sel, f);
	fwrite(data, 1, size, f);
	fclose(f);
}

/* Selector byte, then records @from..@to of @rs whose event starts with @ev. */
static void seq_seed(const char *harness, const char *name, int sel,
		     const struct recs *rs, int from, int to, const char *ev)
{
	FILE *f = seed(harness, name);
	int i;

	fputc(sel, f);
	for (i = from; i < to && i < rs->n; i++)
		if (!ev || !strcmp(rs->r[i].event, ev))
			put_rec(f, rs->r[i].cpu, rs->r[i].data, rs->r[i].size);
	fclose(f);
}

/*
 * A record of @event (system ksym) with fixed field @nr_name = @nr and the
 * dynamic array @arr_name holding @n longs @vals, laid out as the kernel
 * lays it (the array after the fixed fields).
 */
static int make_array_rec(struct tep_handle *tep, const char *event,
			  const char *arr_name, const unsigned long long *vals,
			  int n, unsigned int nr, unsigned int source,
			  unsigned char *buf)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "ksym", event);
	struct tep_format_field *arr, *f;
	int off, len = n * 8;
	unsigned int loc;

	if (!ev)
		return 0;
	arr = tep_find_field(ev, arr_name);
	memset(buf, 0, 512);
	memcpy(buf, &(unsigned short){ ev->id }, 2);
	memcpy(buf + 4, &(int){ 42 }, 4);
	f = tep_find_field(ev, "nr");
	memcpy(buf + f->offset, &nr, 4);
	f = tep_find_field(ev, "source");
	if (f)
		memcpy(buf + f->offset, &source, 4);
	off = (arr->offset + arr->size + 7) & ~7;
	loc = (unsigned int)len << 16 | off;
	memcpy(buf + arr->offset, &loc, 4);
	memcpy(buf + off, vals, len);
	return off + len;
}

static void record_seeds(void)
{
	struct tracecmd_input *h_new, *h_old, *h_val;
	struct recs new, old, val;
	unsigned char buf[512];
	unsigned long long ips[4], ft[6];
	struct tep_format_field *ip;
	unsigned long long fn;
	int size, i;
	FILE *f;

	h_new = load("kshark-ksym/tests/ksym-hits.dat", &new);
	h_old = load("ksym-ctl/tests/ksym-hitgen.dat", &old);
	h_val = load("kshark-ksym/tests/ksym-values.dat", &val);

	/* Frames near a hit's ip: in the fixture's kallsyms, so they resolve. */
	fn = 0;
	ip = tep_find_field(tep_find_event_by_name(new.tep, "ksym", "ksym_hit"), "ip");
	for (i = 0; i < new.n && !fn; i++)
		if (ip && !strcmp(new.r[i].event, "ksym_hit"))
			tep_read_number_field(ip, new.r[i].data, &fn);
	for (i = 0; i < 4; i++)
		ips[i] = fn + 0x10 * i;
	for (i = 0; i < 6; i++)
		ft[i] = fn + 0x8 * i;

	/* report: old files with callchains, new ones, the four --sort sets, -g, --json */
	seq_seed("report", "hitgen-g", 0x09, &old, 0, MAX_RECS, NULL);
	seq_seed("report", "hitgen-g-json", 0x19, &old, 0, MAX_RECS, NULL);
	seq_seed("report", "hitgen-sort3", 0x07, &old, 0, 6, NULL);
	seq_seed("report", "hitgen-32bit-1cpu", 0xc9, &old, 0, 8, NULL);
	seq_seed("report", "hits", 0x00, &new, 0, MAX_RECS, NULL);
	seq_seed("report", "hits-json-sort1", 0x12, &new, 0, 6, NULL);
	seq_seed("report", "hits-swapped", 0x20, &new, 0, 4, NULL);
	/* today's hits, each followed by a ksym_stack on its CPU */
	f = seed("report", "hits-stacks-g");
	fputc(0x08, f);
	for (i = 0; i < new.n && i < 6; i++) {
		put_rec(f, new.r[i].cpu, new.r[i].data, new.r[i].size);
		size = make_array_rec(new.tep, "ksym_stack", "ips", ips, 1 + i % 4,
				      1 + i % 4, 0, buf);
		put_rec(f, new.r[i].cpu, buf, size);
	}
	fclose(f);
	/* ksym_hit with old and has_old (selector bit 7, bit 0 clear) */
	seq_seed("report", "values", 0x80, &val, 0, MAX_RECS, NULL);
	seq_seed("report", "values-json-sort1", 0x92, &val, 0, MAX_RECS, NULL);
	seq_seed("report", "values-swapped-32bit", 0xe0, &val, 0, 6, NULL);
	f = seed("report", "values-stacks-g");
	fputc(0x88, f);
	for (i = 0; i < val.n && i < 6; i++) {
		put_rec(f, val.r[i].cpu, val.r[i].data, val.r[i].size);
		size = make_array_rec(val.tep, "ksym_stack", "ips", ips, 1 + i % 4,
				      1 + i % 4, 0, buf);
		put_rec(f, val.r[i].cpu, buf, size);
	}
	fclose(f);

	/* plugin: ksym_stack and ksym_branches, recorded and made */
	for (i = 0; i < old.n; i++) {
		char name[32];

		if (strcmp(old.r[i].event, "ksym_stack") || i > 6)
			continue;
		snprintf(name, sizeof(name), "stack-recorded-%d", i);
		raw_seed("plugin", name, 0x00, old.r[i].data, old.r[i].size);
	}
	size = make_array_rec(new.tep, "ksym_stack", "ips", ips, 4, 4, 0, buf);
	raw_seed("plugin", "stack-4", 0x00, buf, size);
	size = make_array_rec(new.tep, "ksym_branches", "from_to", ft, 6, 3, 2, buf);
	raw_seed("plugin", "branches-3-software", 0x01, buf, size);
	size = make_array_rec(new.tep, "ksym_branches", "from_to", ft, 4, 2, 1, buf);
	raw_seed("plugin", "branches-2-hardware-swapped", 0x03, buf, size);
	/* ksym_hit with old and has_old: the first four hits (selector bit 3) */
	for (i = 0; i < val.n && i < 4; i++) {
		char name[32];

		snprintf(name, sizeof(name), "hit-values-%d", i);
		raw_seed("plugin", name, i == 3 ? 0x0a : 0x08, val.r[i].data,
			 val.r[i].size);
	}

	/* kshark: the hits of both fixtures */
	seq_seed("kshark", "hits", 0x00, &new, 0, MAX_RECS, "ksym_hit");
	seq_seed("kshark", "hits-swapped", 0x02, &new, 0, 4, "ksym_hit");
	seq_seed("kshark", "hitgen", 0x01, &old, 0, MAX_RECS, "ksym_hit");
	seq_seed("kshark", "values", 0x04, &val, 0, MAX_RECS, "ksym_hit");
	seq_seed("kshark", "values-swapped", 0x06, &val, 0, 6, "ksym_hit");

	tracecmd_close(h_new);
	tracecmd_close(h_old);
	tracecmd_close(h_val);
}

/* fields: BTF --------------------------------------------------------- */

static void btf_seed(const char *name, int sel, const char *arg, struct btf *btf)
{
	const void *raw;
	__u32 size;
	FILE *f = seed("fields", name);

	raw = btf__raw_data(btf, &size);
	fputc(sel, f);
	fwrite(arg, 1, strlen(arg) + 1, f);
	fwrite(raw, 1, size, f);
	fclose(f);
}

/* The shapes fields.c walks: bit-fields, arrays of arrays, anonymous and
 * empty structs and unions, typedefs, per-CPU and other variables. */
static struct btf *made_btf(void)
{
	struct btf *b = btf__new_empty();
	int i_int, i_uint, i_long, i_char, s_inner, s_empty, u_anon, s_foo, arr,
	    arr2, td, v_pcpu, v_glob, ds, ptr, s_list;

	i_int = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i_uint = btf__add_int(b, "unsigned int", 4, 0);
	i_long = btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	i_char = btf__add_int(b, "char", 1, BTF_INT_CHAR);
	s_list = btf__add_struct(b, "list_head", 16);
	ptr = btf__add_ptr(b, s_list);
	btf__add_field(b, "next", ptr, 0, 0);
	btf__add_field(b, "prev", ptr, 64, 0);
	s_inner = btf__add_struct(b, NULL, 4);
	btf__add_field(b, "x", i_int, 0, 0);
	s_empty = btf__add_struct(b, NULL, 0);
	u_anon = btf__add_union(b, NULL, 8);
	btf__add_field(b, "u", i_long, 0, 0);
	btf__add_field(b, "ch", i_char, 0, 0);
	btf__add_field(b, "__empty_ch", s_empty, 0, 0);
	arr = btf__add_array(b, i_int, i_long, 2);
	arr2 = btf__add_array(b, i_int, arr, 4);
	s_foo = btf__add_struct(b, "foo", 128);
	btf__add_field(b, "a", i_int, 0, 0);
	btf__add_field(b, "b", i_uint, 32, 3);
	btf__add_field(b, "c", i_uint, 35, 5);
	btf__add_field(b, "arr", arr2, 64, 0);
	btf__add_field(b, NULL, s_inner, 576, 0);
	btf__add_field(b, NULL, u_anon, 640, 0);
	btf__add_field(b, "list", s_list, 704, 0);
	btf__add_field(b, "name", btf__add_array(b, i_int, i_char, 16), 832, 0);
	td = btf__add_typedef(b, "foo_t", s_foo);
	v_pcpu = btf__add_var(b, "percpu_foo", BTF_VAR_GLOBAL_ALLOCATED, td);
	v_glob = btf__add_var(b, "global_foo", BTF_VAR_GLOBAL_ALLOCATED, s_foo);
	ds = btf__add_datasec(b, ".data..percpu", 128);
	btf__add_datasec_var_info(b, v_pcpu, 0, 128);
	ds = btf__add_datasec(b, ".data", 128);
	btf__add_datasec_var_info(b, v_glob, 0, 128);
	(void)ds;
	return b;
}

/* Type @id of @src copied into @dst with what it needs; pointers to a
 * struct or union become pointers to its forward declaration. */
static int copy_type(struct btf *dst, const struct btf *src, __u32 id, int *map)
{
	const struct btf_type *t;
	const char *name;
	int r = 0, i;

	if (!id)
		return 0;
	if (map[id])
		return map[id];
	t = btf__type_by_id(src, id);
	name = btf__name_by_offset(src, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		r = btf__add_int(dst, name, t->size, btf_int_encoding(t));
		break;
	case BTF_KIND_FLOAT:
		r = btf__add_float(dst, name, t->size);
		break;
	case BTF_KIND_PTR: {
		const struct btf_type *p = btf__type_by_id(src, t->type);
		const char *pn = p ? btf__name_by_offset(src, p->name_off) : NULL;

		if (p && btf_is_composite(p) && pn && *pn)
			r = btf__add_ptr(dst, btf__add_fwd(dst, pn, btf_is_union(p) ?
							 BTF_FWD_UNION : BTF_FWD_STRUCT));
		else
			r = btf__add_ptr(dst, 0);
		break;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		int elem = copy_type(dst, src, a->type, map);
		int idx = copy_type(dst, src, a->index_type, map);

		r = btf__add_array(dst, idx, elem, a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const struct btf_member *m = btf_members(t);
		int n = btf_vlen(t), *ids = calloc(n + 1, sizeof(int));

		for (i = 0; i < n; i++)
			ids[i] = copy_type(dst, src, m[i].type, map);
		r = btf_is_union(t) ? btf__add_union(dst, name, t->size) :
				      btf__add_struct(dst, name, t->size);
		for (i = 0; i < n; i++)
			btf__add_field(dst, btf__name_by_offset(src, m[i].name_off), ids[i],
				       btf_member_bit_offset(t, i),
				       btf_member_bitfield_size(t, i));
		free(ids);
		break;
	}
	case BTF_KIND_TYPEDEF:
		r = btf__add_typedef(dst, name, copy_type(dst, src, t->type, map));
		break;
	case BTF_KIND_CONST:
		r = btf__add_const(dst, copy_type(dst, src, t->type, map));
		break;
	case BTF_KIND_VOLATILE:
		r = btf__add_volatile(dst, copy_type(dst, src, t->type, map));
		break;
	case BTF_KIND_ENUM: {
		const struct btf_enum *e = btf_enum(t);

		r = btf__add_enum(dst, name, t->size);
		for (i = 0; i < btf_vlen(t); i++)
			btf__add_enum_value(dst, btf__name_by_offset(src, e[i].name_off),
					    e[i].val);
		break;
	}
	default:	/* functions, enum64, tags: as void */
		return 0;
	}
	if (r < 0)
		r = 0;
	map[id] = r;
	return r;
}

/* A few types of the host's kernel BTF, or NULL without it. */
static struct btf *vmlinux_slice(const char *const *names, const char *pcpu_var)
{
	struct btf *src = btf__parse("/sys/kernel/btf/vmlinux", NULL), *dst;
	int *map, i, id, v;

	if (!src)
		return NULL;
	map = calloc(btf__type_cnt(src), sizeof(int));
	dst = btf__new_empty();
	for (i = 0; names[i]; i++) {
		id = btf__find_by_name_kind(src, names[i], BTF_KIND_STRUCT);
		if (id < 0)
			id = btf__find_by_name_kind(src, names[i], BTF_KIND_UNION);
		if (id > 0)
			copy_type(dst, src, id, map);
	}
	id = pcpu_var ? btf__find_by_name_kind(src, pcpu_var, BTF_KIND_VAR) : -1;
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(src, id);
		int type = copy_type(dst, src, t->type, map);

		v = btf__add_var(dst, pcpu_var, BTF_VAR_GLOBAL_ALLOCATED, type);
		btf__add_datasec(dst, ".data..percpu", 4096);
		btf__add_datasec_var_info(dst, v, 0, btf__resolve_size(dst, type));
	}
	free(map);
	btf__free(src);
	return dst;
}

static void fields_seeds(void)
{
	static const char *const slice1[] = { "sockaddr", "list_head", "qspinlock",
					      "callback_head", NULL };
	static const char *const slice2[] = { "timer_list", "hlist_node", "kref", NULL };
	struct btf *b = made_btf();

	btf_seed("made-names", 0x00, "", b);
	btf_seed("made-names-deep-json", 0x3f, "", b);
	btf_seed("made-foo", 0x0f, "foo", b);
	btf_seed("made-path", 0x00, "percpu_foo.arr[3]", b);
	btf_seed("made-cast", 0x10, "(struct foo)global_foo.list", b);
	btf_seed("made-bitfield", 0x00, "struct foo.c", b);
	btf_seed("made-typedef", 0x01, "foo_t", b);
	btf_seed("made-missing", 0x00, "nosuch", b);
	btf__free(b);
	b = vmlinux_slice(slice1, "process_counts");
	if (b) {
		btf_seed("vmlinux-sockaddr", 0x00, "sockaddr", b);
		btf_seed("vmlinux-names-r", 0x0f, "", b);
		btf_seed("vmlinux-qspinlock-json", 0x10, "qspinlock.val", b);
		btf__free(b);
	}
	b = vmlinux_slice(slice2, NULL);
	if (b) {
		btf_seed("vmlinux-timer", 0x02, "struct timer_list", b);
		btf__free(b);
	}
}

/* texts --------------------------------------------------------------- */

static void text_seed(const char *harness, const char *name, const char *text,
		      size_t size)
{
	FILE *f = seed(harness, name);

	fwrite(text, 1, size, f);
	fclose(f);
}

#define TEXT_SEED(h, n, t) text_seed(h, n, t, sizeof(t) - 1)

static const char kallsyms_text[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000001000 A cpu_debug_store\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T do_one_initcall\n"
	"ffffffff810a2b30 T release_task\n"
	"ffffffff810a3c40 t do_raw_write_lock\n"
	"ffffffff82a01000 D pid_max\n"
	"ffffffff82c04000 D init_task\n"
	"ffffffff83000000 b total_forks\n"
	"ffffffffc0002000 b ksym_hitgen_var\t[ksym_hitgen]\n"
	"ffffffffc0000000 t ksym_hitgen_write_a\t[ksym_hitgen]\n"
	"ffffffffc0000100 t ksym_hitgen_run\t[ksym_hitgen]\n";

/* A hit of fuzz_filter's input at @buf + @n (fuzz_filter.c); the new end. */
static int put_hit(char *buf, int n, unsigned long long addr,
		   unsigned long long caller, int len, int access, int line)
{
	unsigned char hit[20] = { 0 };

	memcpy(hit, &addr, 8);
	memcpy(hit + 8, &caller, 8);
	hit[16] = len;
	hit[17] = access;
	hit[18] = line;
	memcpy(buf + n, hit, sizeof(hit));
	return n + sizeof(hit);
}

static void text_seeds(void)
{
	char buf[4096];
	int n;

	TEXT_SEED("kallsyms", "kallsyms", kallsyms_text);
	TEXT_SEED("kallsyms", "restricted",
		  "0000000000000000 T _stext\n0000000000000000 T do_one_initcall\n");
	TEXT_SEED("kallsyms", "odd-lines",
		  "ffffffff81000000 T\nffffffff81000010  x\nffffffff81000020 T a\t[\n"
		  "ffffffff81000030 T b\t[m]\nffffffff81000030 T a\t[m\nzz T q\n");

	TEXT_SEED("trace_stat", "stat-before-after",
		  "  Access Type  Symbol                              Counter     Callers\n"
		  "  -----------  ------                              -------     -------\n"
		  "  -w-          pid_max/4                           1           1\n"
		  "  rw-          (struct task_struct)init_task.flags/4  3  2  -\n"
		  "\0"
		  "  Symbol                              Caller                                    Hits        Share\n"
		  "  ------                              ------                                    ----        -----\n"
		  "  pid_max  do_proc_dointvec_minmax_conv  1  100.00%\n"
		  "\0"
		  "  -w-          pid_max/4                           5           2\n"
		  "  rw-          init_task.flags/4  9  2  -\n"
		  "\0"
		  "  ksym_hitgen_var                     ksym_hitgen_write_a [ksym_hitgen]         300         30.00%\n"
		  "  pid_max  do_proc_dointvec_minmax_conv  4  80.00%\n"
		  "  pid_max  [other]  1  20.00%\n"
		  "  init_task.flags  release_task  9  100.00%\n");
	TEXT_SEED("trace_stat", "watches-only",
		  "  r--  runqueues.nr_running/4  12  0  -\n  --x  0xffffffff81001000/1  2  1\n");

	TEXT_SEED("filter", "filter-hits",
		  "pid_max/4:-w-\n"
		  "(struct task_struct)init_task.flags/4:rw-@0-1 # disarmed: cpu 2 offline\n"
		  "runqueues.nr_running/4:r--\n"
		  "ksym_hitgen:ksym_hitgen_var/8:rw-\n"
		  "0xffffffff83000000/8:-w- # incomplete: 1 of 2 CPUs\n"
		  "do_one_initcall+0x10/1:--x\n");
	n = snprintf(buf, sizeof(buf),
		     "pid_max/4:-w-\nruncount/4:r--\nksym_hitgen:ksym_hitgen_var/8:rw-\n");
	buf[n++] = '\0';
	memcpy(buf + n, kallsyms_text, sizeof(kallsyms_text));
	n += sizeof(kallsyms_text);
	/* hits: pid_max by release_task, by address then by sym; the module's */
	n = put_hit(buf, n, 0xffffffff82a01000ULL, 0xffffffff810a2b40ULL, 4, 2, 0xff);
	n = put_hit(buf, n, 0xffffffff82a01000ULL, 0xffffffff810a2b40ULL, 4, 2, 0);
	n = put_hit(buf, n, 0xffffffffc0002000ULL, 0xffffffffc0000004ULL, 8, 3, 0xff);
	text_seed("filter", "filter-kallsyms-hits", buf, n);
}

/* uaf ------------------------------------------------------------------ */

/* The records of ksym-ctl uaf's instance, as the kernel lays them out. */
static void u_free(FILE *f, int cpu, unsigned short id, unsigned long long ptr)
{
	unsigned long long site = 0xffffffffa000008fULL;
	unsigned long long stack[4] = { 0xffffffff81100010ULL, site,
					0xffffffff81100910ULL };
	struct uaf_rec r;

	uaf_rec_kmem(&r, id, site, ptr, "ksym_hitgen_cache");
	put_rec(f, cpu, r.b, r.n);
	uaf_rec_kstack(&r, stack, 4, 3);
	put_rec(f, cpu, r.b, r.n);
}

static void u_alloc(FILE *f, int cpu, unsigned short id, unsigned long long ptr)
{
	struct uaf_rec r;

	uaf_rec_kmem(&r, id, 0xffffffffa0000010ULL, ptr, NULL);
	put_rec(f, cpu, r.b, r.n);
}

static void u_hit(FILE *f, int cpu, unsigned long long addr, unsigned long long ip,
		  unsigned long long value, const char *sym, unsigned long long frame)
{
	unsigned long long ips[2] = { ip, frame };
	struct uaf_rec r;

	uaf_rec_hit(&r, addr, ip, value, sym);
	put_rec(f, cpu, r.b, r.n);
	uaf_rec_stack(&r, ips, 2);
	put_rec(f, cpu, r.b, r.n);
}

#define UAF_TRIGGER	"ksym_watch:ptr/8:rw-:unlimited if name == \"ksym_hitgen_cache\"\n"
#define UAF_ROWS	"# Event  Trigger  Slots  Armed  Missed  Refused  Unwatched  TooHot  Live  Hits  Window(last/max ns)  Stray\n" \
			"kmem:kmem_cache_free  ksym_watch:ptr/8:rw-  4/4  3  0  0  2  0  1  6  169843/1024008  0\n" \
			"kmem:kmem_cache_alloc  ksym_unwatch:ptr  0/0  0  0  0  0  0  0  0  0/0  0\n"

static FILE *uaf_seed_head(const char *name, int sel, const char *trig,
			   const char *rows)
{
	FILE *f = seed("uaf", name);

	fputc(sel, f);
	fwrite(trig, 1, strlen(trig) + 1, f);
	fwrite(rows, 1, strlen(rows) + 1, f);
	return f;
}


/* ksym-ctl's probe of the direct map: order-2 pages, then their kmalloc. */
static void uaf_seed_probe(FILE *f, struct uaf_rec *r)
{
	uaf_rec_page(r, 0x3f5b0, 2, 130);
	put_rec(f, 0, r->b, r->n);
	uaf_rec_kmem(r, UAF_ID_KMALLOC, 0xffffffffa0000010ULL,
		     0xff1100003f5b0000ULL, NULL);
	uaf_rec_u64(r, 32, 16384);
	put_rec(f, 0, r->b, r->n);
}
static void uaf_seeds(void)
{
	const unsigned long long obj = 0xff11000003a1c400ULL;
	struct uaf_rec r;
	FILE *f;
	int i;

	/* The planted use after free: 3 rounds (the test VM's scenario). */
	f = uaf_seed_head("planted", 0x40, UAF_TRIGGER, UAF_ROWS);
	uaf_seed_probe(f, &r);
	for (i = 1; i <= 3; i++) {
		u_alloc(f, 1, UAF_ID_CACHE_ALLOC, obj);
		u_free(f, 1, UAF_ID_CACHE_FREE, obj);
		u_hit(f, 1, obj, 0xffffffff81100810ULL, 0, "ptr", 0xffffffff81100410ULL);
		u_hit(f, 1, obj, 0xffffffffa000021aULL, 0xdead0000 + i, "ptr",
		      0xffffffffa00000a0ULL);
		u_hit(f, 0, obj, 0xffffffffa0000310ULL, 0xbeef0000 + i, "ptr",
		      0xffffffffa00000b0ULL);
	}
	/* The slab page given out again, and written by its new owner. */
	uaf_rec_page(&r, 0x3a1c, 0, 7);
	put_rec(f, 0, r.b, r.n);
	u_hit(f, 0, obj, 0xffffffff81100910ULL, 0, "ptr", 0);
	fclose(f);
	/* The same as JSON, with -v, and another watch's hit between. */
	f = uaf_seed_head("planted-json-v", 0x46, UAF_TRIGGER, UAF_ROWS);
	u_free(f, 1, UAF_ID_CACHE_FREE, obj);
	u_hit(f, 0, 0xffffffff82000000ULL, 0xffffffff81100910ULL, 1, "pid_max", 0);
	u_hit(f, 1, obj + 8, 0xffffffffa000021aULL, 0xdead0001, "ptr", 0);
	fclose(f);
	/* kfree from a call site, kmalloc giving the object out again. */
	f = uaf_seed_head("kfree-site", 0x21,
			  "stacktrace:unlimited if call_site >= 0xffffffffa0000000\n"
			  "ksym_watch:(struct ksym_hitgen_obj)ptr.count/8:-w-:unlimited\n",
			  "kmem:kfree  ksym_watch:(struct ksym_hitgen_obj)ptr.count/8:-w-  1/1  1  2  0  1  0  0  1  0/0  0\n");
	u_free(f, 0, UAF_ID_KFREE, obj);
	u_hit(f, 0, obj, 0xffffffffa000021aULL, 7, "ptr", 0);
	u_alloc(f, 0, UAF_ID_KMALLOC, obj);
	u_hit(f, 0, obj, 0xffffffffa000021aULL, 8, "ptr", 0);
	fclose(f);
	/*
	 * Page allocations of bogus orders (past any MAX_PAGE_ORDER, 2^31
	 * pages) after the base is known, and an object freed twice with no
	 * allocation seen between (handed out by a bulk allocation).
	 */
	f = uaf_seed_head("bogus-order-freed-twice", 0x40, UAF_TRIGGER, UAF_ROWS);
	uaf_seed_probe(f, &r);
	u_free(f, 1, UAF_ID_CACHE_FREE, obj);
	uaf_rec_page(&r, 0x3a1c, 31, 7);
	put_rec(f, 0, r.b, r.n);
	uaf_rec_page(&r, 0x3a1c, 21, 7);
	put_rec(f, 1, r.b, r.n);
	u_hit(f, 1, obj, 0xffffffffa000021aULL, 0xdead0001, "ptr", 0);
	u_free(f, 0, UAF_ID_CACHE_FREE, obj);
	u_hit(f, 0, obj, 0xffffffffa0000310ULL, 0xbeef0001, "ptr", 0);
	fclose(f);
}

/* format ----------------------------------------------------------------- */

#define F_COMMON	UAF_COMMON

/* The kernel's ksym_hit with old and has_old (as test_plugin_ksym.c's). */
static const char f_hit_old[] =
	"name: ksym_hit\nID: 110\nformat:\n" F_COMMON
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 value;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 old;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long caller;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 len;\toffset:48;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:49;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_value;\toffset:50;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_old;\toffset:51;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] sym;\toffset:52;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s %s ip=%pS value=0x%llx old=0x%llx\", __get_str(sym), "
	"__print_symbolic(REC->access, { 1, \"r--\" }, { 2, \"-w-\" }, { 3, \"rw-\" }), "
	"(void *)REC->ip, REC->value, REC->old\n";

/* An older ksym_hit: "type" for access, sym a fixed array. */
static const char f_hit_fixed[] =
	"name: ksym_hit\nID: 111\nformat:\n" F_COMMON
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int type;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:char sym[16];\toffset:28;\tsize:16;\tsigned:0;\n\n"
	"print fmt: \"%s ip=%pS\", REC->sym, (void *)REC->ip\n";

/* sym as a __rel_loc (offset from the end of the field), len of 2 bytes. */
static const char f_hit_rel[] =
	"name: ksym_hit\nID: 112\nformat:\n" F_COMMON
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned short len;\toffset:24;\tsize:2;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:26;\tsize:1;\tsigned:0;\n"
	"\tfield:__rel_loc char[] sym;\toffset:28;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s ip=%pS\", __get_rel_str(sym), (void *)REC->ip\n";

/* Review 11-28 L10: sym's __data_loc word at offset INT_MAX. */
static const char f_hit_intmax[] =
	"name: ksym_hit\nID: 113\nformat:\n" F_COMMON
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] sym;\toffset:2147483647;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%lx\", REC->addr\n";

static const char f_branches[] =
	"name: ksym_branches\nID: 114\nformat:\n" F_COMMON
	"\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int source;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] from_to;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%u\", REC->nr\n";

/* The seed's tep as fuzz_format makes it: @fmts, then uaf's others. */
static struct tep_handle *f_tep(const char *const *fmts, int n)
{
	struct tep_handle *tep = tep_alloc();
	char name[64];
	size_t k;
	int i;

	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	for (i = 0; i < n; i++)
		tep_parse_event(tep, fmts[i], strlen(fmts[i]), "ksym");
	for (k = 0; k < sizeof(uaf_formats) / sizeof(uaf_formats[0]); k++) {
		sscanf(uaf_formats[k].text, "name: %63s", name);
		for (i = 0; i < n; i++)
			if (strstr(fmts[i], name) == fmts[i] + 6 &&
			    fmts[i][6 + strlen(name)] == '\n')
				break;
		if (i == n)
			tep_parse_event(tep, uaf_formats[k].text,
					strlen(uaf_formats[k].text), uaf_formats[k].system);
	}
	return tep;
}

/* Value @v into field @name of @buf (little-endian), if the event has it. */
static void f_set(struct tep_event *ev, unsigned char *buf, int size,
		  const char *name, unsigned long long v)
{
	struct tep_format_field *f = tep_find_field(ev, name);
	int i;

	if (!f || f->offset < 0 || (long)f->offset + f->size > size || f->size > 8)
		return;
	for (i = 0; i < f->size; i++)
		buf[f->offset + i] = v >> (8 * i);
}

/*
 * A record of event @ev (its index @idx as the record's first byte: what
 * fuzz_format reads to pick the event) with @nv fields set, and the
 * dynamic array @dyn of @dlen bytes (if any) where its __data_loc or
 * __rel_loc field says.
 */
static void f_rec(FILE *f, int cpu, struct tep_handle *tep, const char *event,
		  const char *const *names, const unsigned long long *vals, int nv,
		  const char *dyn_field, const void *dyn, int dlen)
{
	struct tep_event *ev = tep_find_event_by_name(tep, NULL, event);
	struct tep_format_field *df, *x;
	unsigned char buf[512] = { 0 };
	int i, idx = 0, end = 8;

	for (i = 0; i < tep_get_events_count(tep); i++)
		if (tep_get_event(tep, i) == ev)
			idx = i;
	if (!ev)
		return;
	/* The fixed fields' end (a crafted offset past 256 is left out). */
	for (x = ev->format.fields; x; x = x->next)
		if (x->offset >= 0 && (long)x->offset + x->size > end &&
		    (long)x->offset + x->size <= 256)
			end = x->offset + x->size;
	for (i = 0; i < nv; i++)
		f_set(ev, buf, sizeof(buf), names[i], vals[i]);
	df = dyn_field ? tep_find_field(ev, dyn_field) : NULL;
	if (df && df->offset >= 0 && (long)df->offset + 4 <= end && end + dlen <= (int)sizeof(buf)) {
		unsigned int off = df->flags & TEP_FIELD_IS_RELATIVE ?
				   end - (df->offset + df->size) : end;

		f_set(ev, buf, sizeof(buf), dyn_field,
		      ((unsigned long long)dlen << 16) | off);
		memcpy(buf + end, dyn, dlen);
		end += dlen;
	}
	buf[0] = idx;
	put_rec(f, cpu, buf, end);
}

static FILE *f_seed(const char *name, int sel, const char *const *fmts, int n)
{
	FILE *f = seed("format", name);
	int i;

	fputc(sel | (n == 1 ? 0 : n), f);
	for (i = 0; i < n; i++)
		fwrite(fmts[i], 1, strlen(fmts[i]) + 1, f);
	return f;
}

static void format_seeds(void)
{
	static const char *const hitf[] = { "addr", "ip", "access", "type", "value",
					    "has_value", "old", "has_old", "caller", "len" };
	const unsigned long long hit1[] = { 0xffffffff82000000ULL, 0xffffffff81100810ULL, 2, 2,
					    42, 1, 41, 1, 0xffffffff81100910ULL, 4 };
	const unsigned long long hit2[] = { 0xff11000003a1c400ULL, 0xffffffffa000021aULL, 3, 1,
					    7, 1, 7, 3, 0xffffffffa00000a0ULL, 8 };
	const unsigned long long ips[] = { 0xffffffff81100810ULL, 0xffffffff81100910ULL };
	static const char *const stackf[] = { "nr" };
	const unsigned long long two[] = { 2 };
	const char *set1[] = { f_hit_old, f_branches };
	const char *set2[] = { f_hit_fixed };
	const char *set3[] = { f_hit_rel };
	const char *set4[] = { f_hit_intmax };
	const char *set5[] = { uaf_formats[1].text, uaf_formats[2].text };
	struct { const char *name; int sel; const char **fmts; int n; } seeds[] = {
		{ "hit-old-branches-json", 0x10, set1, 2 },
		{ "hit-old-branches-text-g", 0x20, set1, 2 },
		{ "hit-fixed-sym", 0x10, set2, 1 },
		{ "hit-rel_loc", 0x10, set3, 1 },
		{ "hit-sym-offset-intmax-L10", 0x10, set4, 1 },
		{ "vm-hit-stack-kfree-json", 0x70, set5, 2 },
	};
	size_t k;

	for (k = 0; k < sizeof(seeds) / sizeof(seeds[0]); k++) {
		struct tep_handle *tep = f_tep(seeds[k].fmts, seeds[k].n);
		FILE *f = f_seed(seeds[k].name, seeds[k].sel, seeds[k].fmts, seeds[k].n);

		f_rec(f, 0, tep, "ksym_hit", hitf, hit1, 10, "sym", "pid_max", 8);
		f_rec(f, 0, tep, "ksym_stack", stackf, two, 1, "ips", ips, sizeof(ips));
		f_rec(f, 1, tep, "ksym_hit", hitf, hit2, 10, "sym", "ptr", 4);
		f_rec(f, 1, tep, "ksym_branches", stackf, two, 1, "from_to", ips, sizeof(ips));
		f_rec(f, 1, tep, "kmem_cache_free", (const char *const[]){ "call_site", "ptr" },
		      (const unsigned long long[]){ 0xffffffffa000008fULL, 0xff11000003a1c400ULL },
		      2, "name", "ksym_hitgen_cache", 18);
		f_rec(f, 0, tep, "ksym_hit", hitf, hit2, 10, "sym", "ptr", 4);
		fclose(f);
		tep_free(tep);
	}
}

/* claims ------------------------------------------------------------------ */

#define C_BOOT	"boot\t7f2c8e1a-3b4d-4c5e-8f60-718293a4b5c6\n"

static void claims_seeds(void)
{
	static const struct { const char *name; int sel; const char *text; const char *ops; int nops; } s[] = {
		{ "watch-option-setting", 0, "# ksym-ctl: watches and tracer options held by ksym-ctl runs\n" C_BOOT
		  "w\tpid_max\t\tpid_max/4:-w-\tksym-ctl-130,ksym-ctl-131\n"
		  "o\tksym-stack\t0\t1\tksym-ctl-130\n"
		  "s\tksym_trigger_slots\t4\t8\tksym-ctl-uaf-4242\n",
		  "\x80\x03\x40\x01\xc1\x00\x04\x0f\x44\x00", 10 },
		{ "pending-escapes", 0, C_BOOT
		  "w\tmymod:refcount_x\tmymod:refcount_x/4:rw-@0-1\t?\tksym-ctl-130\n"
		  "w\tjiffies+0x8\tjiffies+0x8/8:\\t-w-\\n\\\\\t\tx\n"
		  "s\tC:\\\\tmp\\\\new\told\\\\n\t\\\\\tksym-ctl-131\n"
		  "o\tksym-changes\t\t1\t\n",
		  "\x81\x00\x82\x0f\x60\x00", 6 },
		{ "other-boot", 1, "boot\t00000000-0000-4000-8000-000000000001\n"
		  "w\tpid_max\t\tpid_max/4:-w-\tksym-ctl-130\n", "\x00\x01", 2 },
		{ "no-boot-duplicates", 0, "w\tpid_max\ta\tb\tx,x,,ksym-ctl-130\n"
		  "w\tpid_max\tc\td\tksym-ctl-131\nbogus line\n\n", "\x90\x05\xd0\x01", 4 },
	};
	size_t k;

	for (k = 0; k < sizeof(s) / sizeof(s[0]); k++) {
		FILE *f = seed("claims", s[k].name);

		fputc(s[k].sel, f);
		fwrite(s[k].text, 1, strlen(s[k].text) + 1, f);
		fwrite(s[k].ops, 1, s[k].nops, f);
		fclose(f);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make-corpus DIR\n");
		return 2;
	}
	outdir = argv[1];
	if (mkdir(outdir, 0755) && errno != EEXIST) {
		perror(outdir);
		return 1;
	}
	record_seeds();
	fields_seeds();
	text_seeds();
	uaf_seeds();
	format_seeds();
	claims_seeds();
	return 0;
}
