// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_fields: ksym-ctl fields (ksym-ctl/fields.c) over crafted BTF: the
 * lookup of a name and a path in it and the text and JSON printers, as
 * `ksym-ctl fields --btf FILE [-D N] [--json] ARG` runs them.
 *
 * Input: a selector byte, ARG up to the first NUL byte (at most 255 bytes;
 * may be empty), then the BTF blob. fields_lookup() reads a file, so the
 * blob is written to a directory of its own (nothing else in it: a name
 * the BTF lacks makes fields look through the files next to it, as it does
 * through the modules' BTF). An empty ARG: the names of some of the
 * structs, unions, typedefs and variables that libbpf's btf__new() finds
 * in the blob, each looked up. Blobs without raw BTF's magic are left out:
 * libbpf would read them as ELF files, which is libelf's code, not ours.
 * So are blobs whose types name a type or a string that is not there:
 * Debian's libbpf 1.1 does not check that in btf__new() (1.2 does,
 * btf_validate_type()), and its btf_dump__new() then writes out of bounds:
 * libbpf's bug, which the kernel's BTF (its verifier checks the ids) never
 * meets. And so are blobs with a loop of types other than through a
 * pointer (a typedef of itself, a struct holding itself): the kernel's
 * verifier refuses them ("Loop detected"), libbpf 1.1 does not, and its
 * btf_dump__emit_type_decl() then runs forever; or one through a pointer
 * to an anonymous struct or union, which no C source makes and on which
 * libbpf's printer recurses until the stack overflows. Last, anonymous structs and
 * unions over 64 KiB: libbpf prints their body inline, padding included
 * (one "long: 64;" per 8 bytes), before fields.c cuts it to "{...}", so a
 * crafted 1.7 GB anonymous struct takes minutes per row (a finding: see
 * README.md); the kernel allows 512 MiB. With them go the sizes the
 * kernel's verifier refuses (ints of other than 1-16 bytes, structs over
 * 512 MiB, members past their struct's end), on which libbpf's printer
 * loops as long, and members without an alignment (void), by which it
 * divides.
 * Selector bits:
 *   0-3   depth (-D), 15 meaning FIELDS_DEPTH_MAX
 *   4     --json
 *   5-7   with an empty ARG, how many named types to skip before the first
 *         looked up
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "fields.h"
#include "fuzz.h"

#define ARG_MAX		255
#define NAMES_MAX	3
#define INLINE_MAX	65536	/* bytes of an anonymous struct or union */
#define BTF_SIZE_MAX	(1U << 29)	/* the kernel's BTF_MAX_SIZE */
#define HELD_MAX	512	/* types one type names: a 4 KB input has fewer */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char btf_file[256];

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level; (void)fmt; (void)ap;
	return 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char dir[] = "/dev/shm/fuzz-fields-XXXXXX";
	char tmpdir[] = "/tmp/fuzz-fields-XXXXXX";
	char *d = mkdtemp(dir);

	(void)argc;
	(void)argv;
	if (!d)
		d = mkdtemp(tmpdir);
	if (!d) {
		perror("fuzz_fields: mkdtemp");
		exit(2);
	}
	snprintf(btf_file, sizeof(btf_file), "%s/vmlinux", d);
	libbpf_set_print(quiet);
	return 0;
}

static void write_blob(const uint8_t *blob, size_t size)
{
	FILE *f = fopen(btf_file, "w");

	if (!f || fwrite(blob, 1, size, f) != size || fclose(f)) {
		perror("fuzz_fields: writing the BTF");
		exit(2);
	}
}

static void lookup(const char *arg, int depth, int json)
{
	struct fields fs;

	if (fields_lookup(btf_file, arg, depth, &fs))
		return;
	if (json)
		fields_print_json(fuzz_devnull(), &fs, btf_file);
	else
		fields_print(fuzz_devnull(), &fs, btf_file);
	fields_free(&fs);
}

/* A u32 of the BTF header, in the blob's byte order. */
static __u32 get32(const uint8_t *p, bool big)
{
	return big ? (__u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3] :
		     (__u32)p[3] << 24 | p[2] << 16 | p[1] << 8 | p[0];
}

static bool id_ok(const struct btf *btf, __u32 id)
{
	return id < btf__type_cnt(btf);
}

static bool name_ok(const struct btf *btf, __u32 off)
{
	return btf__str_by_offset(btf, off) != NULL;
}

/* The types @t holds by value (not through a pointer): up to @max ids. */
static int held_types(const struct btf_type *t, __u32 *ids, int max)
{
	int i, n = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_FUNC_PROTO:
		ids[n++] = t->type;
		break;
	case BTF_KIND_ARRAY:
		ids[n++] = btf_array(t)->type;
		ids[n++] = btf_array(t)->index_type;
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; i < btf_vlen(t) && n < max; i++)
			ids[n++] = btf_members(t)[i].type;
		break;
	case BTF_KIND_DATASEC:
		for (i = 0; i < btf_vlen(t) && n < max; i++)
			ids[n++] = btf_var_secinfos(t)[i].type;
		break;
	default:
		break;
	}
	if (btf_is_func_proto(t))
		for (i = 0; i < btf_vlen(t) && n < max; i++)
			ids[n++] = btf_params(t)[i].type;
	return n;
}

/* Do all the types of @btf refer to types and strings it has? */
static bool btf_refs_ok(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf), held[HELD_MAX + 1];
	int i, n_held;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t || !name_ok(btf, t->name_off) || btf_vlen(t) > HELD_MAX - 2)
			return false;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:	/* as the kernel's btf_int_check_meta() */
			if ((t->size != 1 && t->size != 2 && t->size != 4 &&
			     t->size != 8 && t->size != 16) ||
			    btf_int_offset(t) + btf_int_bits(t) > t->size * 8)
				return false;
			break;
		case BTF_KIND_FLOAT:
			if (t->size != 2 && t->size != 4 && t->size != 8 &&
			    t->size != 12 && t->size != 16)
				return false;
			break;
		case BTF_KIND_FWD:
			break;
		case BTF_KIND_ENUM:
			if (t->size != 1 && t->size != 2 && t->size != 4 && t->size != 8)
				return false;
			for (i = 0; i < btf_vlen(t); i++)
				if (!name_ok(btf, btf_enum(t)[i].name_off))
					return false;
			break;
		case BTF_KIND_ENUM64:
			for (i = 0; i < btf_vlen(t); i++)
				if (!name_ok(btf, btf_enum64(t)[i].name_off))
					return false;
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			if (t->size > BTF_SIZE_MAX ||
			    (!t->name_off && t->size > INLINE_MAX))
				return false;
			for (i = 0; i < btf_vlen(t); i++)
				if (btf_member_bit_offset(t, i) > 8ULL * t->size ||
				    !name_ok(btf, btf_members(t)[i].name_off))
					return false;
			break;
		case BTF_KIND_FUNC_PROTO:
			for (i = 0; i < btf_vlen(t); i++)
				if (!name_ok(btf, btf_params(t)[i].name_off))
					return false;
			break;
		default:	/* the rest name types only (below) */
			if (btf_kind(t) > BTF_KIND_ENUM64)
				return false;
			break;
		}
		/* the types it names: those it holds, and a pointer's */
		n_held = held_types(t, held, HELD_MAX);
		if (btf_is_ptr(t))
			held[n_held++] = t->type;
		for (i = 0; i < n_held; i++)
			if (!id_ok(btf, held[i]))
				return false;
	}
	return true;
}

/*
 * Is @id, through modifiers and arrays, an anonymous struct or union? A
 * pointer to one has its body printed inline: libbpf recurses through it.
 */
static bool inline_anon(const struct btf *btf, __u32 id)
{
	__u32 steps, n = btf__type_cnt(btf);

	for (steps = 0; steps <= n && id; steps++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_mod(t))
			id = t->type;
		else if (btf_is_array(t))
			id = btf_array(t)->type;
		else
			return btf_is_composite(t) && !t->name_off;
	}
	return false;
}

/*
 * Depth-first from @id: is there a loop of types held by value, or through
 * a pointer to an anonymous struct or union (no C type is one)?
 */
static bool loops_from(const struct btf *btf, __u32 id, unsigned char *state)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	__u32 held[HELD_MAX + 1];
	int i, n;

	if (state[id] == 2)
		return false;
	if (state[id] == 1)
		return true;
	state[id] = 1;
	n = held_types(t, held, HELD_MAX);
	if (btf_is_ptr(t) && inline_anon(btf, t->type))
		held[n++] = t->type;
	for (i = 0; i < n; i++)
		if (held[i] && loops_from(btf, held[i], state))
			return true;
	state[id] = 2;
	return false;
}

/*
 * Does the chain of pointers, modifiers and array elements from @id end
 * (at void, a struct or another type that is not one of them)? A pointer
 * to itself does not: libbpf's printer stacks it up until memory runs out.
 */
static bool chain_ends(const struct btf *btf, __u32 id)
{
	__u32 steps, n = btf__type_cnt(btf);

	for (steps = 0; steps <= n && id; steps++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_ptr(t) || btf_is_mod(t) || btf_is_typedef(t))
			id = t->type;
		else if (btf_is_array(t))
			id = btf_array(t)->type;
		else
			return true;
	}
	return !id;
}

static bool btf_loops(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);
	unsigned char *state = calloc(n, 1);
	bool loop = !state;

	for (id = 1; id < n && !loop; id++)
		loop = loops_from(btf, id, state) || !chain_ends(btf, id);
	free(state);
	return loop;
}

/*
 * Does every member and array element have an alignment (libbpf's printer
 * divides by it; the kernel refuses a member of type void), and does every
 * member fit in its struct (else libbpf prints padding for the difference)?
 */
static bool btf_aligned(const struct btf *btf)
{
	__u32 id, n = btf__type_cnt(btf);
	int i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_array(t) && btf__align_of(btf, btf_array(t)->type) <= 0)
			return false;
		for (i = 0; btf_is_composite(t) && i < btf_vlen(t); i++) {
			__u32 type = btf_members(t)[i].type;
			__s64 size = btf__resolve_size(btf, type);

			if (btf__align_of(btf, type) <= 0 || size < 0)
				return false;
			/* as the kernel: "Member exceeds struct_size" */
			if (!btf_member_bitfield_size(t, i) &&
			    btf_member_bit_offset(t, i) / 8 + (__u64)size > t->size)
				return false;
		}
	}
	return true;
}

/* The names of up to NAMES_MAX named types after @skip, looked up. */
static void lookup_names(const struct btf *btf, int skip, int depth, int json)
{
	__u32 id, n;
	int done = 0;

	n = btf__type_cnt(btf);
	for (id = 1; id < n && done < NAMES_MAX; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (!name || !*name || strlen(name) > ARG_MAX ||
		    !(btf_is_composite(t) || btf_is_typedef(t) || btf_is_var(t)))
			continue;
		if (skip-- > 0)
			continue;
		lookup(name, depth, json);
		done++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul, *blob;
	struct btf *btf;
	char arg[ARG_MAX + 1];
	size_t arg_len, blob_size;
	int depth, json;

	if (size < 2)
		return 0;
	depth = data[0] & 0x0f;
	if (depth == 15)
		depth = FIELDS_DEPTH_MAX;
	json = data[0] & 0x10;
	nul = memchr(data + 1, '\0', size - 1);
	if (!nul)
		return 0;
	arg_len = nul - (data + 1);
	if (arg_len > ARG_MAX)
		return 0;
	memcpy(arg, data + 1, arg_len);
	arg[arg_len] = '\0';
	blob = nul + 1;
	blob_size = size - (blob - data);
	if (blob_size < 2 || !((blob[0] == 0x9f && blob[1] == 0xeb) ||
			       (blob[0] == 0xeb && blob[1] == 0x9f)))
		return 0;
	/* The kernel refuses a type section not 4-byte aligned; libbpf 1.1 does not. */
	if (blob_size < 24 || (get32(blob + 4, blob[0] == 0xeb) +
			       get32(blob + 8, blob[0] == 0xeb)) % 4)
		return 0;
	btf = btf__new(blob, blob_size);
	if (!btf)
		return 0;
	if (btf_refs_ok(btf) && !btf_loops(btf) && btf_aligned(btf)) {
		write_blob(blob, blob_size);
		if (arg_len)
			lookup(arg, depth, json);
		else
			lookup_names(btf, data[0] >> 5, depth, json);
	}
	btf__free(btf);
	return 0;
}
