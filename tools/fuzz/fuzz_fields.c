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
 * in the blob, each looked up (when ksym-ctl's btf_check() passes the
 * blob: the names are read by this harness). Blobs without raw BTF's magic
 * are left out: libbpf would read them as ELF files, which is libelf's
 * code, not ours. Every other blob goes to fields_lookup() as it is: the
 * BTF on which Debian's libbpf 1.1 crashes or hangs (ids or strings that
 * are not there, loops of types, odd sizes, members of type void, huge
 * anonymous structs) is refused by ksym-ctl's own check
 * (ksym-ctl/btf_check.c), which this harness fuzzes with the rest.
 * Selector bits:
 *   0-3   depth (-D), 15 meaning FIELDS_DEPTH_MAX
 *   4     --json (parsed, its rows counted)
 *   5-7   with an empty ARG, how many named types to skip before the first
 *         looked up
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>

#include "btf_check.h"
#include "fields.h"
#include "fuzz.h"

#define ARG_MAX		255
#define NAMES_MAX	3

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
	if (json) {
		struct fuzz_json j;
		struct json_object *o;

		/* It parses, with a row for every row (review 11-28 L11). */
		fields_print_json(fuzz_json_open(&j), &fs, btf_file);
		o = fuzz_json_end(&j);
		if (fuzz_json_len(o, "fields") != (size_t)fs.nr_rows ||
		    fuzz_json_uint(o, "size") != (unsigned long long)fs.size)
			abort();
		json_object_put(o);
	} else
		fields_print(fuzz_devnull(), &fs, btf_file);
	fields_free(&fs);
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
	char arg[ARG_MAX + 1], why[256];
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
	write_blob(blob, blob_size);
	if (arg_len) {
		lookup(arg, depth, json);
		return 0;
	}
	/*
	 * The names to look up are read here, so only from a blob ksym-ctl's
	 * own check passes; one it refuses is looked up once, and refused.
	 */
	btf = btf_check_file_header(btf_file, why, sizeof(why)) ? NULL :
	      btf__new(blob, blob_size);
	if (btf && !btf_check(btf, why, sizeof(why)))
		lookup_names(btf, data[0] >> 5, depth, json);
	else
		lookup("task_struct", depth, json);
	btf__free(btf);
	return 0;
}
