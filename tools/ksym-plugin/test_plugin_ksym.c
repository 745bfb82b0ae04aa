// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin_ksym.c - host unit test of plugin_ksym: feeds libtraceevent
 * the kernel's formats of ksym_stack and ksym_branches and hand-made
 * records, and checks what trace-cmd report would print.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

int TEP_PLUGIN_LOADER(struct tep_handle *tep);

/* The common fields, as in every 6.12 event format. */
#define COMMON_FIELDS							\
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char stack_format[] =
	"name: ksym_stack\nID: 100\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ips;\toffset:12;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s\", ksym_print_stack(p, ((void *)((char *)REC + "
	"(REC->__data_loc_ips & 0xffff))), REC->nr)\n";

static const char branches_format[] =
	"name: ksym_branches\nID: 101\nformat:\n" COMMON_FIELDS
	"\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int source;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] from_to;\toffset:16;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s%s\", __print_symbolic(REC->source, { 1, \"hardware\" }, "
	"{ 2, \"software\" }), ksym_print_branches(p, ((void *)((char *)REC + "
	"(REC->__data_loc_from_to & 0xffff))), REC->nr)\n";

/* The records of the formats above, as the kernel writes them. */
struct stack_rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint32_t nr;
	uint32_t loc;
	uint64_t ips[3];
} __attribute__((packed));

struct branches_rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint32_t nr;
	uint32_t source;
	uint32_t loc;
	uint32_t pad;
	uint64_t ft[2];
} __attribute__((packed));

#define FUNC_A	0xffffffffa0000000ULL	/* ksym_hitgen_write_a */
#define FUNC_B	0xffffffffa0000100ULL	/* ksym_hitgen_run */

static int passed, failed;

static void expect(const char *what, const char *got, const char *want)
{
	if (!strcmp(got, want)) {
		passed++;
		return;
	}
	failed++;
	printf("FAIL %s:\n  got:  \"%s\"\n  want: \"%s\"\n", what, got, want);
}

/* Print one record of event @id whose payload after the header is @data. */
static void print_record(struct tep_handle *tep, struct trace_seq *s,
			 const void *rec, int size)
{
	struct tep_record record = {
		.data = (void *)rec,
		.size = size,
	};

	trace_seq_reset(s);
	tep_print_event(tep, s, &record, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(s);
}

/*
 * Print @size bytes of @rec from a buffer of exactly that size, so that
 * ASan sees a read past the record.
 */
static void print_exact(struct tep_handle *tep, struct trace_seq *s,
			const void *rec, int size)
{
	void *copy = malloc(size);

	memcpy(copy, rec, size);
	print_record(tep, s, copy, size);
	free(copy);
}

/*
 * Records of a crafted trace.dat (review M2, poc_plugin.c): __data_loc
 * pointing past the record, a record too short for nr, longs of 2 bytes.
 * Nothing is read outside the record; what cannot be read is said.
 */
static void check_hostile(struct tep_handle *tep, struct trace_seq *s)
{
	struct stack_rec stack = {
		.type = 100, .nr = 1000, .loc = (0x1000u << 16) | 16,
	};
	struct branches_rec branches = {
		.type = 101, .nr = 1, .source = 1, .loc = (16u << 16) | 24,
		.ft = { FUNC_B + 0x19, FUNC_A },
	};

	/* 4 KiB of ips after a 16-byte record */
	print_exact(tep, s, &stack, 16);
	expect("stack, ips past the record", s->buffer, "<ips: outside the record>");
	/* 16 bytes of from_to at 24 in a 36-byte record: 4 past it */
	print_exact(tep, s, &branches, sizeof(branches) - 4);
	expect("branches, from_to past the record", s->buffer,
	       "hardware<from_to: outside the record>");
	print_exact(tep, s, &branches, sizeof(branches));
	expect("branches, whole", s->buffer,
	       "hardware\n ksym_hitgen_run+0x19 -> ksym_hitgen_write_a+0x0");
	/* nr at 8..11 of a 10-byte record */
	print_exact(tep, s, &stack, 10);
	expect("stack, too short for nr", s->buffer, "<CANT READ FIELD nr>");
	/* the file says its longs are 2 bytes */
	tep_set_long_size(tep, 2);
	stack.loc = (0u << 16) | 16;
	print_exact(tep, s, &stack, 16);
	expect("stack, 2-byte longs", s->buffer, "<ips: no array of longs>");
	tep_set_long_size(tep, 8);
}

/* A big-endian file (on this little-endian host): the same frames. */
static void check_byte_order(struct trace_seq *s)
{
	struct stack_rec stack = {
		.type = __builtin_bswap16(100), .nr = __builtin_bswap32(2),
		.loc = __builtin_bswap32((16u << 16) | 16),
		.ips = { __builtin_bswap64(FUNC_A + 0x15), __builtin_bswap64(FUNC_B + 0x1e) },
	};
	struct tep_handle *tep = tep_alloc();

	if (!tep || tep_is_local_bigendian(tep)) {
		printf("plugin_ksym: byte order check skipped (big-endian host)\n");
		tep_free(tep);
		return;
	}
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_BIG_ENDIAN);
	if (tep_parse_event(tep, stack_format, sizeof(stack_format) - 1, "ksym")) {
		expect("big-endian format parsed", "no", "yes");
		tep_free(tep);
		return;
	}
	tep_register_function(tep, "ksym_hitgen_write_a", FUNC_A, "ksym_hitgen");
	tep_register_function(tep, "ksym_hitgen_run", FUNC_B, "ksym_hitgen");
	tep_register_function(tep, "ksym_hitgen_next", FUNC_B + 0x100, "ksym_hitgen");
	TEP_PLUGIN_LOADER(tep);
	print_exact(tep, s, &stack, sizeof(stack));
	expect("stack, big-endian file", s->buffer,
	       "\n => ksym_hitgen_write_a+0x15\n => ksym_hitgen_run+0x1e");
	tep_free(tep);
}

int main(void)
{
	struct stack_rec stack = {
		.type = 100, .nr = 3, .loc = (24u << 16) | 16,
		.ips = { FUNC_A + 0x15, FUNC_B + 0x1e, 0x1234 },
	};
	struct branches_rec branches = {
		.type = 101, .nr = 1, .source = 2, .loc = (16u << 16) | 24,
		.ft = { FUNC_B + 0x19, FUNC_A },
	};
	struct tep_handle *tep = tep_alloc();
	struct trace_seq s;
	int ret = 1;

	if (!tep)
		goto out;
	trace_seq_init(&s);
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, stack_format, sizeof(stack_format) - 1, "ksym") ||
	    tep_parse_event(tep, branches_format, sizeof(branches_format) - 1, "ksym")) {
		printf("FAIL: cannot parse the ksym formats\n");
		goto out_free;
	}
	tep_register_function(tep, "ksym_hitgen_write_a", FUNC_A, "ksym_hitgen");
	tep_register_function(tep, "ksym_hitgen_run", FUNC_B, "ksym_hitgen");
	/* libtraceevent ends a function where the next one starts. */
	tep_register_function(tep, "ksym_hitgen_next", FUNC_B + 0x100, "ksym_hitgen");

	/* Without the plugin, libtraceevent cannot print them. */
	print_record(tep, &s, &stack, sizeof(stack));
	expect("stack without plugin", strstr(s.buffer, "FAILED TO PARSE") ?
	       "failed" : s.buffer, "failed");

	TEP_PLUGIN_LOADER(tep);
	print_record(tep, &s, &stack, sizeof(stack));
	expect("stack", s.buffer,
	       "\n => ksym_hitgen_write_a+0x15\n => ksym_hitgen_run+0x1e\n => 0x1234");

	/* A record whose array is shorter than nr says: print what is there. */
	stack.nr = 5;
	print_record(tep, &s, &stack, sizeof(stack));
	expect("stack, nr beyond the array", s.buffer,
	       "\n => ksym_hitgen_write_a+0x15\n => ksym_hitgen_run+0x1e\n => 0x1234");

	print_record(tep, &s, &branches, sizeof(branches));
	expect("branches", s.buffer,
	       "software\n ksym_hitgen_run+0x19 -> ksym_hitgen_write_a+0x0");

	check_hostile(tep, &s);
	check_byte_order(&s);

	ret = failed ? 1 : 0;
out_free:
	trace_seq_destroy(&s);
	tep_free(tep);
out:
	printf("plugin_ksym: %d passed, %d failed\n", passed, failed);
	return ret;
}
