/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl fields: the members of a variable or of a struct or union type,
 * with their offsets and sizes, read from BTF with libbpf and spelled as the
 * field paths of ksym_trace_filter: "runqueues.nr_running",
 * "(struct task_struct)init_task.flags". Touches no tracefs: unit tested on
 * the host, with BTF made by the test and with the host's own.
 */
#ifndef KSYM_CTL_FIELDS_H
#define KSYM_CTL_FIELDS_H

#include <stdbool.h>
#include <stdio.h>

#define FIELDS_BTF		"/sys/kernel/btf/vmlinux"
#define FIELDS_DEPTH_MAX	16	/* -r: levels of named members expanded */

enum fields_kind {
	FIELDS_PERCPU,		/* a per-CPU variable: SYMBOL.PATH */
	FIELDS_VAR,		/* another variable BTF types: SYMBOL.PATH */
	FIELDS_CAST,		/* (struct TYPE)SYMBOL.PATH, as given */
	FIELDS_TYPE,		/* a TYPE: .PATH, for (struct TYPE)SYMBOL.PATH */
};

struct field_row {
	char		*path;		/* "runqueues.nr_running", ".flags" */
	char		*type;		/* C type: "unsigned int", "u64[4]" */
	unsigned long	offset;		/* bytes from the start of the variable */
	unsigned long	size;		/* bytes; of one element for an array */
	unsigned long	elems;		/* an array's elements (path names [0]) */
	bool		array;
	unsigned int	bit_offset;	/* a bit-field's first bit at offset */
	unsigned int	bit_size;	/* its bits; 0: no bit-field */
};

struct fields {
	enum fields_kind kind;
	char		*btf;		/* the BTF file read (vmlinux's or a module's) */
	char		*target;	/* what the argument names, canonical */
	char		*cast;		/* "(struct task_struct)", or NULL */
	char		*type;		/* its C type */
	unsigned long	offset;		/* of a PATH in its variable or type */
	unsigned long	size;
	struct field_row *rows;
	int		nr_rows;
};

/*
 * Look up @arg in the BTF file @btf_path or, as the kernel does, in the
 * modules' BTF files next to it ("MOD:SYMBOL": in the file MOD): a
 * variable, "(struct|union TYPE)SYMBOL", a TYPE
 * ("task_struct", "struct task_struct", "union X", a typedef), each with an
 * optional path of ".MEMBER" and "[INDEX]". Lists the members of what it
 * names, with members of anonymous structs and unions under its own path,
 * and named struct and union members expanded @depth levels deep.
 * Every BTF file read is checked first (btf_check.h): one the kernel would
 * refuse is refused, "ksym-ctl fields: FILE: malformed BTF: WHY".
 * 0, or -1 with a message.
 */
int fields_lookup(const char *btf_path, const char *arg, int depth,
		  struct fields *fs);

/* As text (a header, then one row a member) or as JSON. */
void fields_print(FILE *f, const struct fields *fs, const char *btf_path);
void fields_print_json(FILE *f, const struct fields *fs, const char *btf_path);

void fields_free(struct fields *fs);

#endif
