// SPDX-License-Identifier: GPL-2.0
/*
 * test_plugin_ksym.c - host unit test of plugin_ksym: feeds libtraceevent
 * the kernel's formats of ksym_stack, ksym_branches and ksym_hit (with the
 * old value, and without) and hand-made records, and checks what trace-cmd
 * report would print.
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

/* ksym_hit with old and has_old (include/trace/events/ksym.h). */
#define HIT_FIELDS							\
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"	\
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"	\
	"\tfield:unsigned long sp;\toffset:24;\tsize:8;\tsigned:0;\n"	\
	"\tfield:unsigned long bp;\toffset:32;\tsize:8;\tsigned:0;\n"	\
	"\tfield:unsigned long flags;\toffset:40;\tsize:8;\tsigned:0;\n"	\
	"\tfield:u64 value;\toffset:48;\tsize:8;\tsigned:0;\n"

static const char hit_format[] =
	"name: ksym_hit\nID: 102\nformat:\n" COMMON_FIELDS HIT_FIELDS
	"\tfield:u64 old;\toffset:56;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long caller;\toffset:64;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 len;\toffset:72;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:73;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_value;\toffset:74;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_old;\toffset:75;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] sym;\toffset:76;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s %s ip=%pS caller=%pS value=%s0x%llx old=%s0x%llx addr=%lx "
	"sp=%lx rbp=%lx flags=%lx\", __get_str(sym), __print_symbolic(REC->access, "
	"{ 1, \"r--\" }, { 2, \"-w-\" }, { 3, \"rw-\" }, { 4, \"--x\" }), "
	"(void *)REC->ip, (void *)REC->caller, REC->has_value ? \"\" : \"unread:\", "
	"REC->value, REC->has_old == 0 ? \"none:\" : REC->has_old == 3 ? \"stale:\" : \"\", "
	"REC->old, REC->addr, REC->sp, REC->bp, REC->flags\n";

/* ksym_hit before old and has_old: printed by its print format. */
static const char hit_format_before_old[] =
	"name: ksym_hit\nID: 103\nformat:\n" COMMON_FIELDS HIT_FIELDS
	"\tfield:unsigned long caller;\toffset:56;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 len;\toffset:64;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:65;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_value;\toffset:66;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] sym;\toffset:68;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"%s %s ip=%pS caller=%pS value=%s0x%llx addr=%lx sp=%lx rbp=%lx "
	"flags=%lx\", __get_str(sym), __print_symbolic(REC->access, { 1, \"r--\" }, "
	"{ 2, \"-w-\" }, { 3, \"rw-\" }, { 4, \"--x\" }), (void *)REC->ip, "
	"(void *)REC->caller, REC->has_value ? \"\" : \"unread:\", REC->value, "
	"REC->addr, REC->sp, REC->bp, REC->flags\n";

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

struct hit_rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint64_t addr, ip, sp, bp, rflags, value, old, caller;
	uint8_t len, access, has_value, has_old;
	uint32_t loc;
	char sym[16];
} __attribute__((packed));

struct hit_rec_before_old {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	uint64_t addr, ip, sp, bp, rflags, value, caller;
	uint8_t len, access, has_value, pad;
	uint32_t loc;
	char sym[16];
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

/* A tep of @format (system ksym) with the hit generator's functions. */
static struct tep_handle *hit_tep(const char *format, size_t size)
{
	struct tep_handle *tep = tep_alloc();

	if (!tep)
		return NULL;
	tep_set_long_size(tep, 8);
	tep_set_file_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	if (tep_parse_event(tep, format, size, "ksym")) {
		tep_free(tep);
		return NULL;
	}
	tep_register_function(tep, "ksym_hitgen_write_a", FUNC_A, "ksym_hitgen");
	tep_register_function(tep, "ksym_hitgen_run", FUNC_B, "ksym_hitgen");
	tep_register_function(tep, "ksym_hitgen_next", FUNC_B + 0x100, "ksym_hitgen");
	TEP_PLUGIN_LOADER(tep);
	return tep;
}

#define HIT_TAIL	" addr=ffffffffa0002000 sp=ffffc90000013e38 rbp=ffffc90000013e60 flags=246"

/*
 * ksym_hit with the old value: "value=NEW old=OLD", old's prefix by has_old
 * (none:, "" for read and last, stale:), and a has_old the kernel does not
 * write said unknown. A hit before old and has_old is printed as it was.
 */
static void check_hit(struct trace_seq *s)
{
	struct hit_rec h = {
		.type = 102, .pid = 1, .addr = 0xffffffffa0002000ULL,
		.ip = FUNC_A + 0x12, .sp = 0xffffc90000013e38ULL,
		.bp = 0xffffc90000013e60ULL, .rflags = 0x246, .value = 0x8001,
		.old = 0x8000, .caller = FUNC_B + 0x1e, .len = 4, .access = 2,
		.has_value = 1, .has_old = 2, .loc = (8u << 16) | 80,
		.sym = "pid_max",
	};
	struct hit_rec_before_old b = {
		.type = 103, .pid = 1, .addr = h.addr, .ip = h.ip, .sp = h.sp,
		.bp = h.bp, .rflags = h.rflags, .value = h.value,
		.caller = h.caller, .len = 4, .access = 2, .has_value = 1,
		.loc = (8u << 16) | 72, .sym = "pid_max",
	};
	struct tep_handle *tep = hit_tep(hit_format, sizeof(hit_format) - 1);
	struct tep_handle *before = hit_tep(hit_format_before_old,
					    sizeof(hit_format_before_old) - 1);

	if (!tep || !before) {
		expect("ksym_hit formats parsed", "no", "yes");
		goto out;
	}
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, last value", s->buffer,
	       "pid_max -w- ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=0x8001 old=0x8000" HIT_TAIL);
	h.has_old = 1;
	h.old = 0x8001;
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, read before: the same value", s->buffer,
	       "pid_max -w- ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=0x8001 old=0x8001" HIT_TAIL);
	h.has_old = 3;
	h.old = 0x8000;
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, stale", s->buffer,
	       "pid_max -w- ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=0x8001 old=stale:0x8000" HIT_TAIL);
	h.has_old = 0;
	h.has_value = 0;
	h.access = 4;
	h.value = h.old = 0;
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, execute: none", s->buffer,
	       "pid_max --x ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=unread:0x0 old=none:0x0" HIT_TAIL);
	/* A crafted file's has_old and access: said unknown, not looked up. */
	h.has_old = 0xfe;
	h.access = 9;
	h.has_value = 1;
	h.old = 0x7;
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, has_old 254", s->buffer,
	       "pid_max 0x9 ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=0x0 old=unknown:0x7" HIT_TAIL);
	h.has_old = 4;
	print_exact(tep, s, &h, sizeof(h));
	expect("hit, has_old 4", strstr(s->buffer, " old=unknown:0x7 ") ? "unknown" :
	       s->buffer, "unknown");
	/* Cut before has_old; sym past the record's end. */
	print_exact(tep, s, &h, 75);
	expect("hit, too short for has_old", s->buffer, "<CANT READ FIELD has_old>");
	print_exact(tep, s, &h, 84);
	expect("hit, sym past the record", s->buffer, "<sym: outside the record>");

	print_exact(before, s, &b, sizeof(b));
	expect("hit before old and has_old: its print format", s->buffer,
	       "pid_max -w- ip=ksym_hitgen_write_a+0x12 caller=ksym_hitgen_run+0x1e "
	       "value=0x8001" HIT_TAIL);
out:
	tep_free(tep);
	tep_free(before);
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
	check_hit(&s);

	ret = failed ? 1 : 0;
out_free:
	trace_seq_destroy(&s);
	tep_free(tep);
out:
	printf("plugin_ksym: %d passed, %d failed\n", passed, failed);
	return ret;
}
