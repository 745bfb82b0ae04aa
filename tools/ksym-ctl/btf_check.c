// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: BTF checked before libbpf's printer and fields.c use it
 * (btf_check.h). Each check says which fault of Debian's libbpf 1.1.2 (or
 * of fields.c's own walks) it keeps away; the kernel's BTF verifier
 * (kernel/bpf/btf.c) refuses the same blobs, so the kernel's own BTF,
 * vmlinux's and the modules', always passes.
 *
 * Every walk here is iterative and linear in the number of types, with
 * the results of a type kept for the types that name it: the blob is
 * hostile, so neither a long chain of types (the stack) nor types named
 * many times over (exponential time) may hurt the check itself.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "btf_check.h"

#define BTF_SIZE_MAX	(1U << 29)	/* the kernel's BTF_MAX_SIZE: no struct is larger */
/*
 * Types libbpf names for one declaration: a function pointer's parameters
 * are printed in full, and one type named many times over multiplies them.
 */
#define PRINT_MAX	65536
/* Members of a struct with those of its anonymous members: fields.c's find_member() visits them all. */
#define FLAT_MAX	65536

/* past a type's last edge */
#define NO_EDGE		((int64_t)-1)

struct checker {
	const struct btf	*btf;
	__u32			start;	/* the first type of its own */
	__u32			n;	/* btf__type_cnt() */
	unsigned char		*state;	/* walk: 0 new, 1 on the path, 2 done */
	__u32			*stack;
	__u32			*edge;	/* the next edge to follow, per stack slot */
	__u32			*cost;	/* printed inline: PRINT_MAX + 1 means more */
	__u32			*flat;	/* members, anonymous ones' included */
	signed char		*anon;	/* -1 unknown; anonymous struct through modifiers and arrays */
	unsigned char		*sized;	/* has an alignment and a size (libbpf divides by it) */
	char			*why;
	size_t			why_size;
};

static int fail(struct checker *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int fail(struct checker *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->why_size, fmt, ap);
	va_end(ap);
	return -1;
}

static const struct btf_type *type_of(const struct checker *c, __u32 id)
{
	return btf__type_by_id(c->btf, id);
}

static bool name_ok(const struct checker *c, __u32 off)
{
	return btf__str_by_offset(c->btf, off) != NULL;
}

static bool id_ok(const struct checker *c, __u32 id)
{
	return id < c->n;
}

/* A kind that names one type, in t->type (a pointer, typedef, modifier, ...)? */
static bool names_one_type(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return true;
	default:
		return false;
	}
}

/* As the kernel's btf_int_check_meta(), btf_enum_check_meta() ... */
static int check_meta(struct checker *c, __u32 id, const struct btf_type *t)
{
	int i, vlen = btf_vlen(t);

	if (!name_ok(c, t->name_off))
		return fail(c, "type [%u]: name offset %u is past the strings", id, t->name_off);
	if (btf_kind(t) > BTF_KIND_ENUM64 || btf_kind(t) == BTF_KIND_UNKN)
		return fail(c, "type [%u]: unknown kind %u", id, btf_kind(t));
	if (names_one_type(t) && !id_ok(c, t->type))
		return fail(c, "type [%u] names type [%u], which is not there", id, t->type);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if ((t->size != 1 && t->size != 2 && t->size != 4 &&
		     t->size != 8 && t->size != 16) ||
		    btf_int_offset(t) + btf_int_bits(t) > t->size * 8)
			return fail(c, "type [%u]: int of %u bytes, bits %u from %u",
				    id, t->size, btf_int_bits(t), btf_int_offset(t));
		break;
	case BTF_KIND_FLOAT:
		if (t->size != 2 && t->size != 4 && t->size != 8 &&
		    t->size != 12 && t->size != 16)
			return fail(c, "type [%u]: float of %u bytes", id, t->size);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
			return fail(c, "type [%u]: enum of %u bytes", id, t->size);
		for (i = 0; i < vlen; i++)
			if (!name_ok(c, btf_is_enum(t) ? btf_enum(t)[i].name_off :
						      btf_enum64(t)[i].name_off))
				return fail(c, "type [%u]: enumerator %d: name past the strings", id, i);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (t->size > BTF_SIZE_MAX)
			return fail(c, "type [%u]: struct of %u bytes (at most %u)",
				    id, t->size, BTF_SIZE_MAX);
		for (i = 0; i < vlen; i++) {
			if (!name_ok(c, btf_members(t)[i].name_off))
				return fail(c, "type [%u]: member %d: name past the strings", id, i);
			if (!id_ok(c, btf_members(t)[i].type))
				return fail(c, "type [%u]: member %d: no type [%u]",
					    id, i, btf_members(t)[i].type);
			if (btf_member_bit_offset(t, i) > 8ULL * t->size)
				return fail(c, "type [%u]: member %d past the struct's end", id, i);
		}
		break;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; i < vlen; i++) {
			if (!name_ok(c, btf_params(t)[i].name_off))
				return fail(c, "type [%u]: parameter %d: name past the strings", id, i);
			if (!id_ok(c, btf_params(t)[i].type))
				return fail(c, "type [%u]: parameter %d: no type [%u]",
					    id, i, btf_params(t)[i].type);
		}
		if (!id_ok(c, t->type))
			return fail(c, "type [%u]: returns type [%u], which is not there", id, t->type);
		break;
	case BTF_KIND_ARRAY:
		if (!id_ok(c, btf_array(t)->type) || !id_ok(c, btf_array(t)->index_type))
			return fail(c, "type [%u]: array of type [%u] indexed by [%u]: not there",
				    id, btf_array(t)->type, btf_array(t)->index_type);
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < vlen; i++)
			if (!id_ok(c, btf_var_secinfos(t)[i].type))
				return fail(c, "type [%u]: variable %d: no type [%u]",
					    id, i, btf_var_secinfos(t)[i].type);
		break;
	default:	/* the others name one type, checked above, or none */
		break;
	}
	return 0;
}

/*
 * Is @id, through modifiers and arrays, an anonymous struct or union?
 * libbpf prints the body of one a pointer names, following its members'
 * pointers again: a loop through it never ends. Remembered along the way.
 */
static bool anon_at(struct checker *c, __u32 id)
{
	const struct btf_type *t;
	__u32 i = id, steps;
	bool anon;

	for (steps = 0; steps <= c->n && i && c->anon[i] < 0; steps++) {
		t = type_of(c, i);
		if (btf_is_mod(t))
			i = t->type;
		else if (btf_is_array(t))
			i = btf_array(t)->type;
		else
			c->anon[i] = btf_is_composite(t) && !t->name_off;
	}
	anon = i && c->anon[i] > 0;
	for (steps = 0; steps <= c->n && id && id != i; steps++) {
		t = type_of(c, id);
		c->anon[id] = anon;
		id = btf_is_array(t) ? btf_array(t)->type : t->type;
	}
	return anon;
}

/*
 * The types @t holds by value (the kernel's verifier finds loops of
 * them), and the anonymous struct or union a pointer names (printed
 * inline): its edge @i, or -1 past the last.
 */
static int64_t value_edge(struct checker *c, const struct btf_type *t, __u32 i)
{
	if (btf_is_ptr(t))
		return !i && anon_at(c, t->type) ? t->type : NO_EDGE;
	if (names_one_type(t))
		return i ? NO_EDGE : t->type;
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC_PROTO:
		if (!i)
			return t->type;
		return i <= btf_vlen(t) ? btf_params(t)[i - 1].type : NO_EDGE;
	case BTF_KIND_ARRAY:
		return i == 0 ? btf_array(t)->type : i == 1 ? btf_array(t)->index_type : NO_EDGE;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return i < btf_vlen(t) ? btf_members(t)[i].type : NO_EDGE;
	case BTF_KIND_DATASEC:
		return i < btf_vlen(t) ? btf_var_secinfos(t)[i].type : NO_EDGE;
	default:
		return NO_EDGE;
	}
}

/*
 * What libbpf's printer follows to print a declaration of @t inline:
 * pointers, modifiers (a loop of them is endless), array elements, a
 * function prototype's types, an anonymous struct's members. Not a
 * typedef: it prints its name.
 */
static int64_t print_edge(const struct btf_type *t, __u32 i)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return i ? NO_EDGE : t->type;
	case BTF_KIND_ARRAY:
		return i ? NO_EDGE : btf_array(t)->type;
	case BTF_KIND_FUNC_PROTO:
		if (!i)
			return t->type;
		return i <= btf_vlen(t) ? btf_params(t)[i - 1].type : NO_EDGE;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (t->name_off)
			return -1;
		return i < btf_vlen(t) ? btf_members(t)[i].type : NO_EDGE;
	default:
		return -1;
	}
}

static __u32 add_sat(__u32 a, __u64 b, __u32 max)
{
	return a + b > max ? max : a + b;
}

/* @id done in the print walk: what printing it inline costs. */
static void print_done(struct checker *c, __u32 id, const struct btf_type *t)
{
	__u32 cost = 1, i;
	int64_t e;

	/*
	 * By its name, or (anonymous) as "struct {...}", "enum {...}" by
	 * fields.c, which never asks libbpf for such a body (the walk only
	 * finds the loops through one).
	 */
	if (btf_is_typedef(t) || btf_is_fwd(t) || btf_is_composite(t) ||
	    btf_is_any_enum(t)) {
		c->cost[id] = 1;
		return;
	}
	for (i = 0; (e = print_edge(t, i)) >= 0; i++)
		cost = add_sat(cost, c->cost[e], PRINT_MAX + 1);
	c->cost[id] = cost;
}

/* @id done in the value walk: its members counted, its alignment known. */
static void value_done(struct checker *c, __u32 id, const struct btf_type *t)
{
	const struct btf_type *mt;
	__u32 flat = 0;
	int i, r;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
	case BTF_KIND_PTR:
		c->sized[id] = 1;
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		c->sized[id] = c->sized[t->type];
		break;
	case BTF_KIND_ARRAY:
		c->sized[id] = c->sized[btf_array(t)->type];
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		c->sized[id] = 1;
		for (i = 0; i < btf_vlen(t); i++) {
			const struct btf_member *m = &btf_members(t)[i];

			c->sized[id] &= c->sized[m->type];
			/* as fields.c's find_member() and list_type() flatten them */
			r = btf__resolve_type(c->btf, m->type);
			mt = r < 0 ? NULL : type_of(c, r);
			if (!m->name_off && mt && btf_is_composite(mt))
				flat = add_sat(flat, c->flat[r], FLAT_MAX + 1);
			else
				flat = add_sat(flat, 1, FLAT_MAX + 1);
		}
		c->flat[id] = flat;
		break;
	default:
		break;
	}
}

/*
 * Depth first from @root over the value edges (@print false) or the
 * print edges: a loop is an error; each type done is measured.
 */
static int walk_from(struct checker *c, __u32 root, bool print)
{
	__u32 top = 0, id;
	int64_t e;

	if (c->state[root])
		return 0;
	c->state[root] = 1;
	c->stack[top] = root;
	c->edge[top++] = 0;
	while (top) {
		const struct btf_type *t;

		id = c->stack[top - 1];
		t = type_of(c, id);
		e = print ? print_edge(t, c->edge[top - 1]++) :
			    value_edge(c, t, c->edge[top - 1]++);
		if (e < 0) {
			if (print)
				print_done(c, id, t);
			else
				value_done(c, id, t);
			c->state[id] = 2;
			top--;
			continue;
		}
		if (c->state[e] == 2)
			continue;
		if (c->state[e] == 1)
			return print ?
				fail(c, "type [%u]: a loop of pointers, modifiers, typedefs or anonymous structs through type [%u]", id, (__u32)e) :
				fail(c, "type [%u]: a loop of types held by value through type [%u]", id, (__u32)e);
		c->state[e] = 1;
		c->stack[top] = e;
		c->edge[top++] = 0;
	}
	return 0;
}

/*
 * Where the pointers, modifiers and arrays from @id lead: the type id, or
 * -1 past BTF_CHAIN_MAX of them.
 */
static int64_t chain_end(const struct checker *c, __u32 id)
{
	const struct btf_type *t;
	int steps;

	for (steps = 0; steps <= BTF_CHAIN_MAX && id; steps++) {
		t = type_of(c, id);
		if (btf_is_ptr(t) || btf_is_mod(t))
			id = t->type;
		else if (btf_is_array(t))
			id = btf_array(t)->type;
		else
			return id;
	}
	return id ? NO_EDGE : 0;
}

/* Is @id, through pointers, modifiers and arrays, an anonymous struct, union or enum? */
static bool names_anon(const struct checker *c, __u32 id)
{
	int64_t end = chain_end(c, id);
	const struct btf_type *t = end > 0 ? type_of(c, end) : NULL;

	return t && (btf_is_composite(t) || btf_is_any_enum(t)) && !t->name_off;
}

/* Members and elements with a size and an alignment, inside their struct. */
static int check_layout(struct checker *c, __u32 id, const struct btf_type *t)
{
	__s64 size;
	int i;

	if (btf_is_array(t) && !c->sized[btf_array(t)->type])
		return fail(c, "type [%u]: array of type [%u], which has no size", id,
			    btf_array(t)->type);
	for (i = 0; btf_is_composite(t) && i < btf_vlen(t); i++) {
		__u32 type = btf_members(t)[i].type;

		size = btf__resolve_size(c->btf, type);
		if (!c->sized[type] || size < 0)
			return fail(c, "type [%u]: member %d of type [%u], which has no size",
				    id, i, type);
		/* as the kernel: "Member exceeds struct_size" */
		if (!btf_member_bitfield_size(t, i) &&
		    btf_member_bit_offset(t, i) / 8 + (__u64)size > t->size)
			return fail(c, "type [%u]: member %d ends past the struct's %u bytes",
				    id, i, t->size);
	}
	/*
	 * fields.c spells "struct {...}" itself for an anonymous struct at
	 * the end of at most BTF_CHAIN_MAX pointers, modifiers and arrays (as
	 * the kernel's verifier, which refuses longer chains); libbpf would
	 * print its whole body, padding included (minutes for a crafted
	 * 512 MiB one), and so it would in a function prototype, where no C
	 * source puts one.
	 */
	if (chain_end(c, id) < 0)
		return fail(c, "type [%u]: a chain of over %d pointers, modifiers and arrays",
			    id, BTF_CHAIN_MAX);
	for (i = 0; btf_is_func_proto(t) && i <= btf_vlen(t); i++)
		if (names_anon(c, i ? btf_params(t)[i - 1].type : t->type))
			return fail(c, "type [%u]: a function prototype with an anonymous struct, union or enum in its %s",
				    id, i ? "parameters" : "return type");
	if (btf_is_composite(t) && c->flat[id] > FLAT_MAX)
		return fail(c, "type [%u]: over %u members with those of its anonymous members",
			    id, FLAT_MAX);
	if (c->cost[id] > PRINT_MAX)
		return fail(c, "type [%u]: its declaration prints over %u types and lines",
			    id, PRINT_MAX);
	return 0;
}

int btf_check(const struct btf *btf, char *why, size_t size)
{
	const struct btf *base = btf__base_btf(btf);
	struct checker c = {
		.btf = btf, .why = why, .why_size = size,
		.start = base ? btf__type_cnt(base) : 1,
		.n = btf__type_cnt(btf),
	};
	__u32 id;
	int ret = -1;

	snprintf(why, size, "out of memory");
	c.state = calloc(c.n, 1);
	c.stack = calloc(c.n, sizeof(*c.stack));
	c.edge = calloc(c.n, sizeof(*c.edge));
	c.cost = calloc(c.n, sizeof(*c.cost));
	c.flat = calloc(c.n, sizeof(*c.flat));
	c.anon = malloc(c.n);
	c.sized = calloc(c.n, 1);
	if (!c.state || !c.stack || !c.edge || !c.cost || !c.flat || !c.anon || !c.sized)
		goto out;
	memset(c.anon, -1, c.n);
	c.anon[0] = 0;
	for (id = c.start; id < c.n; id++)
		if (check_meta(&c, id, type_of(&c, id)))
			goto out;
	/* void: done, printed as "void", no size */
	c.state[0] = 2;
	c.cost[0] = 1;
	for (id = c.start; id < c.n; id++)
		if (walk_from(&c, id, true))
			goto out;
	memset(c.state, 0, c.n);
	c.state[0] = 2;
	for (id = c.start; id < c.n; id++)
		if (walk_from(&c, id, false))
			goto out;
	for (id = c.start; id < c.n; id++)
		if (check_layout(&c, id, type_of(&c, id)))
			goto out;
	ret = 0;
out:
	free(c.state);
	free(c.stack);
	free(c.edge);
	free(c.cost);
	free(c.flat);
	free(c.anon);
	free(c.sized);
	return ret;
}

static __u32 get32(const unsigned char *p, bool big)
{
	return big ? (__u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		     (__u32)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

int btf_check_file_header(const char *path, char *why, size_t size)
{
	unsigned char hdr[24];
	FILE *f = fopen(path, "r");
	size_t got;
	bool big;

	if (!f)
		return 0;	/* libbpf says why it cannot read it */
	got = fread(hdr, 1, sizeof(hdr), f);
	fclose(f);
	if (got < 2 || !((hdr[0] == 0x9f && hdr[1] == 0xeb) ||
			 (hdr[0] == 0xeb && hdr[1] == 0x9f)))
		return 0;	/* not raw BTF: an ELF file's .BTF section */
	big = hdr[0] == 0xeb;
	/*
	 * The kernel refuses a type section not 4-byte aligned (its types
	 * are read as u32s); libbpf 1.1 reads it unaligned.
	 */
	if (got == sizeof(hdr) && (get32(hdr + 4, big) + get32(hdr + 8, big)) % 4) {
		snprintf(why, size, "the type section starts at byte %u, not 4-byte aligned",
			 get32(hdr + 4, big) + get32(hdr + 8, big));
		return -1;
	}
	return 0;
}
