// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of ksym-ctl's pure parts: argument parsing, the parsing
 * of the kernel's trace_stat files, and the report tree with its
 * percentages, built from tests/ksym-hitgen.dat (recorded in the VM with the
 * hit generator, see record-fixture.tc) and compared with the reviewed
 * outputs next to it. Run from tests/ (make test).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

#include <event-parse.h>
#include <json.h>

#include "report_tree.h"
#include "stats.h"
#include "test.h"
#include "tracedat.h"
#include "utils.h"

int failures, checks;

/* Run @expr with stderr muted: the error messages of expected failures. */
int mute(void)
{
	int fd = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	dup2(null, STDERR_FILENO);
	close(null);
	return fd;
}

void unmute(int fd)
{
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static void test_split_specs(void)
{
	char *a1[] = { "pid_max/4:-w-", "total_forks:-w-", "--", "sh", "-c", "x", NULL };
	char *a2[] = { "pid_max/4:-w-", NULL };
	char *a3[] = { "pid_max/4:-w-", "--", NULL };
	char *a4[] = { "--", "true", NULL };
	char *a5[] = { "pid_max:-w-", "-x", "--", "true", NULL };
	struct strv sv = { 0 };
	char **cmd;

	CHECK(split_specs_command(6, a1, true, &sv, &cmd) == 0);
	CHECK(sv.n == 2);
	CHECK_STR(sv.v[1], "total_forks:-w-");
	CHECK(cmd == &a1[3]);
	strv_free(&sv);
	/* stat/record need a COMMAND, top takes none */
	CHECK(QUIET(split_specs_command(1, a2, true, &sv, &cmd)) == -1);
	strv_free(&sv);
	CHECK(QUIET(split_specs_command(2, a3, true, &sv, &cmd)) == -1);
	strv_free(&sv);
	CHECK(split_specs_command(1, a2, false, &sv, &cmd) == 0 && !cmd);
	strv_free(&sv);
	CHECK(QUIET(split_specs_command(3, a1, false, &sv, &cmd)) == -1);
	strv_free(&sv);
	/* no SPEC; an option among the SPECs */
	CHECK(QUIET(split_specs_command(2, a4, true, &sv, &cmd)) == -1);
	strv_free(&sv);
	CHECK(QUIET(split_specs_command(4, a5, true, &sv, &cmd)) == -1);
	strv_free(&sv);
}

static void test_numbers(void)
{
	CHECK(parse_duration_ms("1") == 1000);
	CHECK(parse_duration_ms("0.5") == 500);
	CHECK(parse_duration_ms("2s") == 2000);
	CHECK(parse_duration_ms("250ms") == 250);
	CHECK(parse_duration_ms("0") == -1);
	CHECK(parse_duration_ms("-1") == -1);
	CHECK(parse_duration_ms("x") == -1);
	CHECK(parse_duration_ms("1h") == -1);
	CHECK(parse_duration_ms("") == -1);
	CHECK(parse_duration_ms("0.0001") == -1);
	CHECK(parse_count("3") == 3);
	CHECK(parse_count("0") == -1);
	CHECK(parse_count("3x") == -1);
	CHECK(parse_count("-2") == -1);
}

static void test_filter_target(void)
{
	char t[64];

	CHECK(filter_line_target("pid_max/4:-w-", t, sizeof(t)) == 0);
	CHECK_STR(t, "pid_max");
	CHECK(filter_line_target("ksym_hitgen:ksym_hitgen_var/8:rw-@0-1", t, sizeof(t)) == 0);
	CHECK_STR(t, "ksym_hitgen:ksym_hitgen_var");
	CHECK(filter_line_target("jiffies+0x8/4:rw-", t, sizeof(t)) == 0);
	CHECK_STR(t, "jiffies+0x8");
	CHECK(filter_line_target("nolen:rw-", t, sizeof(t)) == -1);
	CHECK(filter_line_target("nocolon", t, sizeof(t)) == -1);
	CHECK(filter_line_target("averyveryverylongsymbolname/8:rw-", t, 8) == -1);

	/* The read-back's comments, and a comment with a '/' before its ':'. */
	CHECK(filter_line_target("pid_max/4:-w- # disarmed: over 1000 hits/s", t, sizeof(t)) == 0);
	CHECK_STR(t, "pid_max");
	CHECK(filter_line_target("(struct task_struct)init_task.flags/4:rw-@0 # incomplete: not on CPU 0",
				 t, sizeof(t)) == 0);
	CHECK_STR(t, "(struct task_struct)init_task.flags");
	CHECK(filter_line_target("x/8:rw- # a/b: c", t, sizeof(t)) == 0);
	CHECK_STR(t, "x");
	CHECK(filter_line_target("# disarmed: over 1/s", t, sizeof(t)) == -1);
}

/*
 * Restoring the filter: the comment of a disarmed watch must not hide the
 * entries after it (the kernel drops a comment up to the end of its line),
 * and a line longer than its target plus a few hundred bytes (a long CPU
 * list) fits.
 */
static void test_filter_restore(void)
{
	struct strv targets = { 0 };
	char *orig, *text, *p;
	size_t i;

	strv_add(&targets, "pid_max");
	strv_add(&targets, "(struct task_struct)init_task.flags");
	strv_add(&targets, "jiffies");
	text = filter_restore_text("pid_max/4:-w- # disarmed: over 1000 hits/s\n"
				   "(struct task_struct)init_task.flags/4:rw-\n",
				   &targets);
	CHECK(text != NULL);
	if (text) {
		CHECK(strstr(text, "#") == NULL);
		CHECK_STR(text, "pid_max/4:-w- \n"
			  "(struct task_struct)init_task.flags/4:rw-\n"
			  "jiffies:---\n");
	}
	free(text);
	strv_free(&targets);

	/* "x/8:rw-@0,2,4,...", 2000 bytes of CPU list. */
	orig = malloc(4200);
	strcpy(orig, "x/8:rw-@0");
	for (i = 1, p = orig + strlen(orig); p - orig < 2000; i++)
		p += sprintf(p, ",%zu", 2 * i);
	strcpy(p, " # incomplete: not on CPU 2\n");
	strv_add(&targets, "x");
	text = filter_restore_text(orig, &targets);
	CHECK(text && !strncmp(text, orig, strcspn(orig, "#")));
	free(text);
	free(orig);
	strv_free(&targets);
}

static const char watches_text[] =
	"  Access Type  Symbol                              Counter     Callers\n"
	"  -----------  ------                              -------     -------\n"
	"  -w-          ksym_hitgen_var/8                   1000        3\n"
	"  rw-          pid_max/4                           7           1\n";

static const char callers_text[] =
	"  Symbol                              Caller                                    Hits        Share\n"
	"  ------                              ------                                    ----        -----\n"
	"  ksym_hitgen_var                     ksym_hitgen_write_b [ksym_hitgen]         700          70.00%\n"
	"  ksym_hitgen_var                     ksym_hitgen_write_a [ksym_hitgen]         250          25.00%\n"
	"  ksym_hitgen_var                     [other]                                   50            5.00%\n"
	"  pid_max                             do_proc_dointvec_minmax_conv              7           100.00%\n";

static const char callers_before[] =
	"  ksym_hitgen_var                     ksym_hitgen_write_a [ksym_hitgen]         200          50.00%\n"
	"  ksym_hitgen_var                     ksym_hitgen_write_b [ksym_hitgen]         200          50.00%\n";

static void test_stats(void)
{
	struct ksym_stats st, before;
	struct strv targets = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK(stats_parse(&st, watches_text, callers_text) == 0);
	CHECK(st.nr_watch == 2 && st.nr_caller == 4);
	CHECK(stats_watch_hits(&st, "ksym_hitgen_var") == 1000);
	CHECK(stats_watch_hits(&st, "pid_max") == 7);
	CHECK(stats_watch_hits(&st, "jiffies") == -1);
	CHECK_STR(st.watch[1].access, "rw-");
	CHECK_STR(st.caller[0].name, "ksym_hitgen_write_b [ksym_hitgen]");
	CHECK(st.caller[2].hits == 50);

	/* Only what happened between two readings. */
	CHECK(stats_parse(&before,
		"  -w-          ksym_hitgen_var/8                   400         2\n",
		callers_before) == 0);
	stats_sub(&st, &before);
	CHECK(stats_watch_hits(&st, "ksym_hitgen_var") == 600);
	CHECK(st.caller[0].hits == 500 && st.caller[1].hits == 50);

	/* Sorted in the targets' order, most hits first, [other] last. */
	strv_add(&targets, "pid_max");
	strv_add(&targets, "ksym_hitgen_var");
	stats_sort_callers(&st, &targets);
	CHECK_STR(st.caller[0].target, "pid_max");
	CHECK_STR(st.caller[1].name, "ksym_hitgen_write_b [ksym_hitgen]");
	CHECK_STR(st.caller[2].name, "ksym_hitgen_write_a [ksym_hitgen]");
	CHECK_STR(st.caller[3].name, "[other]");

	f = open_memstream(&buf, &len);
	stats_print(f, &st, &targets, 0, "t", 0);
	fclose(f);
	CHECK(strstr(buf, "           600   hits    ksym_hitgen_var/8 -w-\n"
			  "           500   83.33%   ksym_hitgen_write_b [ksym_hitgen]\n"
			  "            50    8.33%   ksym_hitgen_write_a [ksym_hitgen]\n"
			  "            50    8.33%   [other]\n") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	stats_print(f, &st, &targets, 1, NULL, 0);
	fclose(f);
	CHECK(strstr(buf, "{\"watch\": \"pid_max/4\", \"access\": \"rw-\", \"hits\": 7, \"callers\": [\n"
			  "    {\"caller\": \"do_proc_dointvec_minmax_conv\", \"hits\": 7, \"percent\": 100.00}\n"
			  "  ]}") != NULL);
	free(buf);
	strv_free(&targets);
	stats_free(&st);
	stats_free(&before);
}

/*
 * A cast watch: the session's target keeps the cast, trace_stat names the
 * watch without it; stat and top must still find its hits.
 */
static void test_stats_cast(void)
{
	static const char w[] =
		"  rw-          init_task.flags/4                   12          1\n";
	static const char c[] =
		"  init_task.flags                     copy_process                              12          100.00%\n";
	const char *cast = "(struct task_struct)init_task.flags";
	struct ksym_stats st;
	struct strv targets = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_STR(target_name(cast), "init_task.flags");
	CHECK_STR(target_name("(union u)x.y[1]"), "x.y[1]");
	CHECK_STR(target_name("pid_max"), "pid_max");
	CHECK_STR(target_name("(struct x"), "(struct x");
	CHECK(stats_parse(&st, w, c) == 0);
	CHECK(stats_watch_hits(&st, cast) == 12);
	strv_add(&targets, "pid_max");
	strv_add(&targets, cast);
	stats_sort_callers(&st, &targets);
	f = open_memstream(&buf, &len);
	stats_print(f, &st, &targets, 0, NULL, 0);
	fclose(f);
	CHECK(strstr(buf, "            12   hits    init_task.flags/4 rw-\n"
			  "            12  100.00%   copy_process\n") != NULL);
	free(buf);
	strv_free(&targets);
	stats_free(&st);
}

static void test_sort_keys(void)
{
	struct report r = { 0 };

	CHECK(report_parse_sort(&r, "symbol,caller") == 0);
	CHECK(r.nr_keys == 2 && r.keys[0] == KEY_SYMBOL && r.keys[1] == KEY_CALLER);
	CHECK(report_parse_sort(&r, "caller,comm,cpu") == 0 && r.nr_keys == 3);
	CHECK(QUIET(report_parse_sort(&r, "bogus")) == -1);
	CHECK(QUIET(report_parse_sort(&r, "symbol,symbol")) == -1);
	CHECK(QUIET(report_parse_sort(&r, "")) == -1);
	CHECK(QUIET(report_parse_sort(&r, ",")) == -1);
}

static void add(struct report *r, const char *sym, const char *caller,
		const char *f1, const char *f2)
{
	const char *frames[] = { caller, f1, f2 };
	struct report_hit h = { 0 };

	h.val[KEY_SYMBOL] = sym;
	h.val[KEY_CALLER] = caller;
	h.val[KEY_COMM] = "sh";
	h.val[KEY_CPU] = "cpu0";
	h.frames = frames;
	h.nr_frames = f2 ? 3 : f1 ? 2 : 1;
	report_add(r, &h);
}

/* A split below the accessor: perf's graph, shares of the symbol's hits. */
static void test_tree(void)
{
	static const char expect[] =
		"# t\n"
		"# 8 hits, 8 with a callchain; sort: symbol,caller\n"
		"# percentages: a symbol's share of all hits; below it, the share of its hits\n"
		"#\n"
		"total_forks/8: 6 hits (75.00% of all)\n"
		"\n"
		"     100.00%         6  copy_process\n"
		"                        |\n"
		"                        ---copy_process\n"
		"                           kernel_clone\n"
		"                           |\n"
		"                           |--66.67%--__do_sys_clone\n"
		"                           |\n"
		"                            --33.33%--__x64_sys_vfork\n"
		"\n"
		"pid_max/4: 2 hits (25.00% of all)\n"
		"\n"
		"     100.00%         2  do_proc_dointvec_minmax_conv\n"
		"                        |\n"
		"                        ---do_proc_dointvec_minmax_conv\n"
		"                           __do_proc_dointvec\n"
		"\n";
	struct report r = { .callchain = true };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	int i;

	report_parse_sort(&r, "symbol,caller");
	for (i = 0; i < 4; i++)
		add(&r, "total_forks/8", "copy_process", "kernel_clone", "__do_sys_clone");
	for (i = 0; i < 2; i++)
		add(&r, "total_forks/8", "copy_process", "kernel_clone", "__x64_sys_vfork");
	add(&r, "pid_max/4", "do_proc_dointvec_minmax_conv", "__do_proc_dointvec", NULL);
	add(&r, "pid_max/4", "do_proc_dointvec_minmax_conv", "__do_proc_dointvec", NULL);
	report_sort(&r);
	CHECK(r.hits == 8 && r.with_chain == 8);
	CHECK_STR(r.root.kids[0]->name, "total_forks/8");
	f = open_memstream(&buf, &len);
	report_print(f, &r, "t");
	fclose(f);
	if (strcmp(buf, expect))
		fprintf(stderr, "got:\n%s\nexpected:\n%s\n", buf, expect);
	CHECK(!strcmp(buf, expect));
	free(buf);
	report_free(&r);
}

static char *slurp(const char *file)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(file, "r"), *m;
	int c;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

static void check_output(struct report *r, const char *golden)
{
	char *buf = NULL, *want = slurp(golden);
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	report_print(f, r, "ksym-ctl report of ksym-hitgen.dat");
	fclose(f);
	CHECK(want != NULL);
	if (want && strcmp(buf, want))
		fprintf(stderr, "%s differs; got:\n%s", golden, buf);
	CHECK(want && !strcmp(buf, want));
	free(buf);
	free(want);
}

/* The fixture recorded in the VM: 3 + 1 hits on the var, 2 on the u32. */
static void test_fixture(void)
{
	struct report r = { .callchain = true };
	struct tracedat_info info;
	const struct rnode *var, *a, *n;

	report_parse_sort(&r, "symbol,caller");
	CHECK(tracedat_read("ksym-hitgen.dat", &r, &info) == 0);
	report_sort(&r);
	CHECK(info.hits == 6 && info.stacks == 6 && info.missed == 0);
	CHECK(r.hits == 6 && r.with_chain == 6);
	CHECK(r.root.nr_kids == 2);
	var = r.root.kids[0];
	CHECK_STR(var->name, "ksym_hitgen_var/8");
	CHECK(var->hits == 4 && var->nr_kids == 2);
	a = var->kids[0];
	CHECK_STR(a->name, "ksym_hitgen_write_a");
	CHECK(a->hits == 3);
	CHECK_STR(var->kids[1]->name, "ksym_hitgen_write_b");
	CHECK(var->kids[1]->hits == 1);
	CHECK_STR(r.root.kids[1]->name, "ksym_hitgen_u32/4");
	CHECK(r.root.kids[1]->hits == 2);
	/* The callchain starts at the accessor, then who called it. */
	CHECK(a->chain && a->chain->hits == 3 && a->chain->nr_kids == 1);
	n = a->chain->kids[0];
	CHECK_STR(n->name, "ksym_hitgen_write_a");
	CHECK(n->nr_kids == 1);
	CHECK_STR(n->kids[0]->name, "ksym_hitgen_run");
	check_output(&r, "ksym-hitgen.report-g.txt");
	report_free(&r);

	/* --sort symbol: the tree splits at the accessor, 75% / 25%. */
	r = (struct report){ .callchain = true };
	report_parse_sort(&r, "symbol");
	CHECK(tracedat_read("ksym-hitgen.dat", &r, &info) == 0);
	report_sort(&r);
	check_output(&r, "ksym-hitgen.report-g-symbol.txt");
	report_free(&r);

	/* Without -g no chains are kept; a file that is no trace.dat fails. */
	r = (struct report){ 0 };
	report_parse_sort(&r, "caller,cpu");
	CHECK(tracedat_read("ksym-hitgen.dat", &r, &info) == 0);
	report_sort(&r);
	CHECK(r.with_chain == 6 && r.root.nr_kids == 3);
	CHECK(r.root.kids[0]->chain == NULL);
	CHECK_STR(r.root.kids[0]->name, "ksym_hitgen_write_a");
	CHECK_STR(r.root.kids[0]->kids[0]->name, "cpu0");
	report_free(&r);
	CHECK(QUIET(tracedat_read("test_ksym_ctl.c", &r, &info)) == -1);
}

/*
 * Hits made here, as a kernel writes them, read by the tracedat reader: the
 * formats are parsed by libtraceevent as trace.dat's are. A ksym_hit from
 * now on has "caller" (for a hit in lock code, the first function outside
 * it) and "sym" (the watch's name); older files have neither.
 */
#define HIT_ID		1001
#define STACK_ID	1002

static void hit_format(char *buf, size_t size, bool new_fields)
{
	snprintf(buf, size,
		 "name: ksym_hit\nID: %d\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		 "\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
		 "\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
		 "%s"
		 "\tfield:u8 len;\toffset:32;\tsize:1;\tsigned:0;\n"
		 "%s"
		 "\nprint fmt: \"%%lx\", REC->addr\n", HIT_ID,
		 new_fields ? "\tfield:unsigned long caller;\toffset:24;\tsize:8;\tsigned:0;\n" : "",
		 new_fields ? "\tfield:__data_loc char[] sym;\toffset:36;\tsize:4;\tsigned:0;\n" : "");
}

/*
 * ksym_hit with the value before the access: "old", and "has_old" (0 none,
 * 1 read before the access, 2 the last value seen, 3 that but stale).
 */
static const char old_hit_format[] =
	"name: ksym_hit\nID: 1001\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned long addr;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long ip;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long caller;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 value;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 old;\toffset:40;\tsize:8;\tsigned:0;\n"
	"\tfield:u8 len;\toffset:48;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 access;\toffset:49;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_value;\toffset:50;\tsize:1;\tsigned:0;\n"
	"\tfield:u8 has_old;\toffset:51;\tsize:1;\tsigned:0;\n"
	"\tfield:__data_loc char[] sym;\toffset:52;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"%lx\", REC->addr\n";

static const char stack_format[] =
	"name: ksym_stack\nID: 1002\nformat:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
	"\tfield:unsigned int nr;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc unsigned long[] ips;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\nprint fmt: \"%d\", REC->nr\n";

struct fake_hit {
	unsigned short	type;
	unsigned char	flags, preempt;
	int		pid;
	unsigned long	addr, ip, caller;
	unsigned char	len, pad[3];
	unsigned int	sym_loc;
	char		sym[32];
};

struct fake_old_hit {
	unsigned short	type;
	unsigned char	flags, preempt;
	int		pid;
	unsigned long	addr, ip, caller;
	uint64_t	value, old;
	unsigned char	len, access, has_value, has_old;
	unsigned int	sym_loc;
	char		sym[32];
};

struct fake_stack {
	unsigned short	type;
	unsigned char	flags, preempt;
	int		pid;
	unsigned int	nr, ips_loc;
	unsigned long	ips[8];
};

#define FN(n)		(0xffffffff81000000UL + 0x1000UL * (n))
#define TASKLIST	0xffffffff82000000UL
#define RQ_NR_RUNNING	0xffff88807fc2a010UL	/* a per-CPU address: no symbol */

static const char * const fn_names[] = {
	"do_raw_read_lock", "do_raw_write_lock", "_raw_read_lock", "_raw_write_lock",
	"__do_wait", "copy_process", "release_task", "do_wait", "kernel_clone", "_etext",
};

/* Records and tep of the other byte order; the pid of the hits fed. */
static bool fake_swapped;
static int fake_pid = 42;
/* The tep's ksym_hit has the old value (old_hit_format, struct fake_old_hit). */
static bool fake_old;

static unsigned long swap_long(unsigned long v)
{
	if (!fake_swapped)
		return v;
	return sizeof(long) == 8 ? __builtin_bswap64(v) : __builtin_bswap32(v);
}

static unsigned int swap32(unsigned int v)
{
	return fake_swapped ? __builtin_bswap32(v) : v;
}

static unsigned short swap16(unsigned short v)
{
	return fake_swapped ? __builtin_bswap16(v) : v;
}

static struct tep_handle *fake_tep(bool new_fields)
{
	struct tep_handle *tep = tep_alloc();
	struct tep_event *ev;
	char fmt[2048];
	size_t i;

	if (!tep)
		return NULL;
	tep_set_long_size(tep, sizeof(long));
	tep_set_cpus(tep, 2);
	/* fake_swapped: a file of the other byte order (big-endian here) */
	tep_set_file_bigendian(tep, tep_is_local_bigendian(tep) != fake_swapped ?
			       TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (fake_old)
		snprintf(fmt, sizeof(fmt), "%s", old_hit_format);
	else
		hit_format(fmt, sizeof(fmt), new_fields);
	CHECK(tep_parse_format(tep, &ev, fmt, strlen(fmt), "ksym") == 0);
	CHECK(tep_parse_format(tep, &ev, stack_format, strlen(stack_format), "ksym") == 0);
	for (i = 0; i < sizeof(fn_names) / sizeof(fn_names[0]); i++)
		tep_register_function(tep, (char *)fn_names[i], FN(i), NULL);
	tep_register_function(tep, "tasklist_lock", TASKLIST, NULL);
	tep_register_function(tep, "tasklist_lock_end", TASKLIST + 0x40, NULL);
	tep_register_comm(tep, "sh", 42);
	return tep;
}

static void feed_hit(struct tracedat_reader *rd, int cpu, unsigned long addr,
		     unsigned len, const char *sym, unsigned long ip,
		     unsigned long caller, const unsigned long *ips, int nr)
{
	struct fake_hit h = { .type = swap16(HIT_ID), .pid = swap32(fake_pid),
			      .addr = swap_long(addr), .ip = swap_long(ip),
			      .caller = swap_long(caller), .len = len };
	struct fake_stack st = { .type = swap16(STACK_ID), .pid = swap32(fake_pid),
				 .nr = swap32(nr) };
	struct tep_record rec = { .cpu = cpu };
	int i;

	snprintf(h.sym, sizeof(h.sym), "%s", sym);
	h.sym_loc = swap32((strlen(sym) + 1) << 16 | offsetof(struct fake_hit, sym));
	rec.data = &h;
	rec.size = sizeof(h);
	CHECK(tracedat_reader_add(rd, &rec, cpu) == 0);
	if (!ips)
		return;
	for (i = 0; i < nr; i++)
		st.ips[i] = swap_long(ips[i]);
	st.ips_loc = swap32((nr * sizeof(long)) << 16 | offsetof(struct fake_stack, ips));
	rec.data = &st;
	rec.size = sizeof(st);
	CHECK(tracedat_reader_add(rd, &rec, cpu) == 0);
}

/*
 * tasklist_lock taken for reading by __do_wait once and for writing by
 * copy_process twice (the hits are in do_raw_*_lock), written by
 * release_task once outside lock code; runqueues.nr_running read once.
 */
static void fake_hits(struct report *r, struct tracedat_info *info, bool new_fields)
{
	const unsigned long wait[] = { FN(0) + 0x12, FN(2) + 8, FN(4) + 0x40, FN(7) + 0x10 };
	const unsigned long fork[] = { FN(1) + 0x12, FN(3) + 8, FN(5) + 0x400, FN(8) + 0x20 };
	const unsigned long rel[] = { FN(6) + 0x30, FN(7) + 0x50 };
	struct tep_handle *tep = fake_tep(new_fields);
	struct tracedat_reader *rd = NULL;

	memset(info, 0, sizeof(*info));
	CHECK(tep && tracedat_reader_new(tep, r, info, &rd) == 0 && rd);
	if (!rd) {
		tep_free(tep);
		return;
	}
	feed_hit(rd, 0, TASKLIST, 8, "tasklist_lock", wait[0], wait[2], wait, 4);
	feed_hit(rd, 1, TASKLIST, 8, "tasklist_lock", fork[0], fork[2], fork, 4);
	feed_hit(rd, 0, TASKLIST, 8, "tasklist_lock", fork[0], fork[2], fork, 4);
	feed_hit(rd, 1, TASKLIST, 8, "tasklist_lock", rel[0], rel[0], rel, 2);
	feed_hit(rd, 1, RQ_NR_RUNNING, 4, "runqueues.nr_running", wait[2] + 0x40,
		 wait[2] + 0x40, NULL, 0);
	CHECK(tracedat_reader_end(rd) == 0);
	tep_free(tep);
}

static const struct rnode *kid(const struct rnode *n, const char *name)
{
	int i;

	for (i = 0; n && i < n->nr_kids; i++)
		if (!strcmp(n->kids[i]->name, name))
			return n->kids[i];
	return NULL;
}

/* What trace_stat shows for the same hits: report must agree with stat. */
static const char fake_watches[] =
	"  -w-          tasklist_lock/8                     4           3        \n"
	"  rw-          runqueues.nr_running/4              1           1        \n";
static const char fake_callers[] =
	"  tasklist_lock                       copy_process                              2            50.00%\n"
	"  tasklist_lock                       __do_wait                                 1            25.00%\n"
	"  tasklist_lock                       release_task                              1            25.00%\n"
	"  runqueues.nr_running                __do_wait                                 1           100.00%\n";

static void test_caller_sym(void)
{
	struct report r = { .callchain = true };
	struct tracedat_info info;
	const struct rnode *tl, *n;
	struct ksym_stats st;
	int i;

	report_parse_sort(&r, "symbol,caller");
	fake_hits(&r, &info, true);
	report_sort(&r);
	CHECK(info.hits == 5 && info.stacks == 4 && info.buffers == 1);
	CHECK(r.hits == 5 && r.with_chain == 4);
	tl = kid(&r.root, "tasklist_lock/8");
	CHECK(tl && tl->hits == 4);
	CHECK(kid(tl, "copy_process") && kid(tl, "copy_process")->hits == 2);
	CHECK(kid(tl, "__do_wait") && kid(tl, "__do_wait")->hits == 1);
	CHECK(kid(tl, "release_task") && kid(tl, "release_task")->hits == 1);
	CHECK(!kid(tl, "do_raw_read_lock") && !kid(tl, "do_raw_write_lock"));
	/* A per-CPU watch is named by its watch, not by an address. */
	n = kid(&r.root, "runqueues.nr_running/4");
	CHECK(n && n->hits == 1 && kid(n, "__do_wait"));
	/* The call path still starts where the access was: in lock code. */
	n = kid(tl, "__do_wait");
	CHECK(n && n->chain && n->chain->nr_kids == 1);
	if (n && n->chain && n->chain->nr_kids) {
		CHECK_STR(n->chain->kids[0]->name, "do_raw_read_lock");
		CHECK(kid(kid(n->chain->kids[0], "_raw_read_lock"), "__do_wait"));
	}

	/* Every row of trace_stat is a node of the report, with its hits. */
	CHECK(stats_parse(&st, fake_watches, fake_callers) == 0);
	CHECK(st.nr_watch == 2 && st.nr_caller == 4);
	for (i = 0; i < st.nr_watch; i++) {
		n = kid(&r.root, st.watch[i].name);
		CHECK(n && n->hits == st.watch[i].hits);
	}
	for (i = 0; i < st.nr_caller; i++) {
		char sym[600];

		snprintf(sym, sizeof(sym), "%s/%s", st.caller[i].target,
			 strstr(st.caller[i].target, "runqueues") ? "4" : "8");
		n = kid(kid(&r.root, sym), st.caller[i].name);
		CHECK(n && n->hits == st.caller[i].hits);
		if (!n || n->hits != st.caller[i].hits)
			fprintf(stderr, "  stat row %s %s %lu\n", st.caller[i].target,
				st.caller[i].name, st.caller[i].hits);
	}
	stats_free(&st);
	report_free(&r);

	/* A file without the fields: counted for ip, named by addr. */
	r = (struct report){ 0 };
	report_parse_sort(&r, "symbol,caller");
	fake_hits(&r, &info, false);
	report_sort(&r);
	CHECK(r.hits == 5);
	tl = kid(&r.root, "tasklist_lock/8");
	CHECK(tl && tl->hits == 4);
	CHECK(kid(tl, "do_raw_write_lock") && kid(tl, "do_raw_write_lock")->hits == 2);
	CHECK(kid(tl, "do_raw_read_lock") && kid(tl, "do_raw_read_lock")->hits == 1);
	CHECK(!kid(tl, "copy_process") && !kid(tl, "__do_wait"));
	CHECK(kid(&r.root, "0xffff88807fc2a010/4") != NULL);
	report_free(&r);
}

/* What report prints of @r: JSON of "k.dat" (@json), or text titled "t". */
static char *printed(const struct report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (json)
		report_print_json(f, r, "k.dat");
	else
		report_print(f, r, "t");
	fclose(f);
	return buf;
}

static char *json_of(const struct report *r)
{
	return printed(r, true);
}

/* --json counts the callchains with or without -g; -g adds the trees. */
static void test_json_callchain(void)
{
	struct report r = { 0 };
	struct tracedat_info info;
	char *js;

	report_parse_sort(&r, "symbol,caller");
	fake_hits(&r, &info, true);
	report_sort(&r);
	js = json_of(&r);
	CHECK_HAS(js, "\"hits\": 5, \"with_callchain\": 4, \"sort\": [\"symbol\", \"caller\"], \"call_graph\": false,");
	CHECK(js && !strstr(js, "\"callchain\""));
	free(js);
	report_free(&r);

	r = (struct report){ .callchain = true };
	report_parse_sort(&r, "symbol,caller");
	fake_hits(&r, &info, true);
	report_sort(&r);
	js = json_of(&r);
	CHECK_HAS(js, "\"hits\": 5, \"with_callchain\": 4, \"sort\": [\"symbol\", \"caller\"], \"call_graph\": true,");
	CHECK_HAS(js, "{\"caller\": \"__do_wait\", \"hits\": 1, \"percent\": 25.00, \"callchain\": "
		      "[{\"function\": \"do_raw_read_lock\", \"hits\": 1, \"percent\": 25.00, \"children\": "
		      "[{\"function\": \"_raw_read_lock\", \"hits\": 1, \"percent\": 25.00, \"children\": "
		      "[{\"function\": \"__do_wait\", \"hits\": 1, \"percent\": 25.00, \"children\": "
		      "[{\"function\": \"do_wait\", \"hits\": 1, \"percent\": 25.00, \"children\": []}]}]}]}]}");
	free(js);
	report_free(&r);

	/* The recorded fixture: 6 hits, all with a callchain, -g or not. */
	r = (struct report){ 0 };
	report_parse_sort(&r, "symbol,caller");
	CHECK(tracedat_read("ksym-hitgen.dat", &r, &info) == 0);
	report_sort(&r);
	js = json_of(&r);
	CHECK_HAS(js, "\"hits\": 6, \"with_callchain\": 6, \"sort\": [\"symbol\", \"caller\"], \"call_graph\": false,");
	free(js);
	report_free(&r);
}

/*
 * A big-endian trace.dat (or any file of the other byte order) gives the
 * same report: every number, the callchain's too, read in the file's order.
 */
static void test_byte_order(void)
{
	struct report native = { .callchain = true }, swapped = { .callchain = true };
	struct tracedat_info info;
	char *a, *b;

	report_parse_sort(&native, "symbol,caller,comm");
	report_parse_sort(&swapped, "symbol,caller,comm");
	fake_hits(&native, &info, true);
	fake_swapped = true;
	fake_hits(&swapped, &info, true);
	fake_swapped = false;
	report_sort(&native);
	report_sort(&swapped);
	a = printed(&native, false);
	b = printed(&swapped, false);
	CHECK(info.hits == 5 && info.stacks == 4 && swapped.with_chain == 4);
	CHECK_HAS(b, "---do_raw_read_lock");
	CHECK_HAS(b, "tasklist_lock/8: 4 hits");
	if (a && b && strcmp(a, b))
		fprintf(stderr, "native:\n%s\nother byte order:\n%s\n", a, b);
	CHECK(a && b && !strcmp(a, b));
	free(a);
	free(b);
	report_free(&native);
	report_free(&swapped);
}

/* @size bytes of @data in a buffer of exactly that size: ASan sees past it. */
static void feed_exact(struct tracedat_reader *rd, const void *data, int size, int cpu)
{
	struct tep_record rec = { .cpu = cpu, .size = size };
	void *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	rec.data = copy;
	CHECK(tracedat_reader_add(rd, &rec, cpu) == 0);
	free(copy);
}

/*
 * Records as a crafted trace.dat may hold them: __data_loc fields pointing
 * past the record, records too short for their fields, longs the file says
 * are 2 bytes, CPUs past the file's count, events lost in a count the file
 * does not know. Each is read inside its record (ASan checks), or dropped.
 */
static void test_hostile_records(void)
{
	const unsigned long chain[] = { FN(1) + 0x12, FN(5) + 0x40 };
	struct report r = { .callchain = true };
	struct tracedat_info info = { 0 };
	struct tracedat_reader *rd = NULL;
	struct tep_handle *tep = fake_tep(true);
	struct fake_hit h = { .type = HIT_ID, .pid = 42, .addr = TASKLIST,
			      .ip = FN(5) + 8, .caller = FN(5) + 8, .len = 8 };
	struct fake_stack st = { .type = STACK_ID, .pid = 42, .nr = 2 };
	struct tep_record lost = { .data = &h, .size = sizeof(h), .missed_events = -1 };
	const struct rnode *n;

	report_parse_sort(&r, "symbol,caller,cpu");
	CHECK(tep && tracedat_reader_new(tep, &r, &info, &rd) == 0 && rd);
	if (!rd) {
		tep_free(tep);
		return;
	}
	/* sym: 0xffff bytes from offset 36 of a 72-byte record, no NUL */
	memset(h.sym, 'x', sizeof(h.sym));
	h.sym_loc = 0xffffu << 16 | offsetof(struct fake_hit, sym);
	feed_exact(rd, &h, sizeof(h), 0);
	/* ips: 1 KiB at offset 16 of a 16-byte record */
	st.ips_loc = 0x400u << 16 | 16;
	feed_exact(rd, &st, 16, 0);
	/* the same, as __rel_loc would put it: past the end */
	st.ips_loc = 16u << 16 | 0xfff0;
	feed_exact(rd, &st, sizeof(st), 0);
	/* a hit cut short after its addr: no ip, len, caller nor sym */
	feed_exact(rd, &h, offsetof(struct fake_hit, ip), 1);
	/* records too short for libtraceevent's common_type and pid */
	feed_exact(rd, &h, 1, 0);
	feed_exact(rd, &h, 6, 0);
	CHECK(info.hits == 2 && info.stacks == 2);
	CHECK(tracedat_reader_end(rd) == 0);
	report_sort(&r);
	/* named by addr (the sym is not in the record), without a callchain */
	n = kid(&r.root, "tasklist_lock/8");
	CHECK(n && n->hits == 1 && r.with_chain == 0);
	/* the one cut short: its addr, nothing else */
	n = kid(&r.root, "tasklist_lock/0");
	CHECK(n && n->hits == 1 && kid(n, "0x0"));
	report_free(&r);

	/* CPUs past the file's 2: the callchain found all the same */
	r = (struct report){ .callchain = true };
	report_parse_sort(&r, "symbol,cpu");
	memset(&info, 0, sizeof(info));
	CHECK(tracedat_reader_new(tep, &r, &info, &rd) == 0 && rd);
	if (!rd)
		goto out;
	feed_hit(rd, 5, TASKLIST, 8, "tasklist_lock", chain[0], chain[0], chain, 2);
	feed_hit(rd, 100000, TASKLIST, 8, "tasklist_lock", chain[0], chain[0], chain, 2);
	/* lost, count unknown: libtracecmd's -1 */
	CHECK(tracedat_reader_add(rd, &lost, 0) == 0);
	CHECK(tracedat_reader_end(rd) == 0);
	report_sort(&r);
	CHECK(info.hits == 3 && r.hits == 3);
	n = kid(kid(&r.root, "tasklist_lock/8"), "cpu5");
	CHECK(n && n->hits == 1 && n->chain && n->chain->hits == 1);
	n = kid(kid(&r.root, "tasklist_lock/8"), "cpu100000");
	CHECK(n && n->hits == 1 && !n->chain);
	CHECK(info.missed >= 1 && info.lost_unknown);
	report_free(&r);

	/* longs of 2 bytes (a crafted header): no callchain read */
	r = (struct report){ .callchain = true };
	report_parse_sort(&r, "symbol");
	tep_set_long_size(tep, 2);
	CHECK(tracedat_reader_new(tep, &r, &info, &rd) == 0 && rd);
	if (!rd)
		goto out;
	st.ips_loc = 8u << 16 | offsetof(struct fake_stack, ips);
	st.ips[0] = FN(1);
	feed_exact(rd, &h, sizeof(h), 0);
	feed_exact(rd, &st, offsetof(struct fake_stack, ips) + 8, 0);
	CHECK(tracedat_reader_end(rd) == 0);
	CHECK(r.hits == 1 && r.with_chain == 0);
out:
	report_free(&r);
	tep_free(tep);
}

/* Is @js valid JSON in valid UTF-8 (json-c's strict parser)? */
static bool json_valid(const char *js)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	bool ok;

	if (!tok || !js)
		return false;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, js, strlen(js));
	ok = o && json_tokener_get_error(tok) == json_tokener_success;
	json_object_put(o);
	json_tokener_free(tok);
	return ok;
}

/* And for python3's json.load, when there is a python3. */
static bool python_loads(const char *js)
{
	FILE *p;

	if (system("python3 -c '' 2> /dev/null"))
		return true;
	p = popen("python3 -c 'import json, sys; json.loads(sys.stdin.buffer.read().decode())'", "w");
	if (!p)
		return false;
	fputs(js, p);
	return pclose(p) == 0;
}

/*
 * A hit of old_hit_format on pid_max by @caller, with @value, @old and
 * @has_old (@has_value 0: its value was not read).
 */
static struct fake_old_hit old_hit(unsigned long caller, uint64_t value,
				   uint64_t old, unsigned char has_old,
				   unsigned char has_value)
{
	struct fake_old_hit h = {
		.type = swap16(HIT_ID), .pid = swap32(fake_pid),
		.addr = swap_long(0xffffffff82a01000UL), .ip = swap_long(caller),
		.caller = swap_long(caller), .len = 4, .access = 2,
		.has_value = has_value, .has_old = has_old,
		.sym_loc = swap32(8u << 16 | offsetof(struct fake_old_hit, sym)),
		.sym = "pid_max",
	};

	h.value = fake_swapped ? __builtin_bswap64(value) : value;
	h.old = fake_swapped ? __builtin_bswap64(old) : old;
	return h;
}

/*
 * Hits of old_hit_format on pid_max: by copy_process, last value 0x8000 ->
 * 0x8001 (changed), read 0x8001 -> 0x8001 (not), stale 1 -> 2 (changed),
 * none 0 -> 5, has_old 9 and 4 (not the kernel's) and a value not read
 * (none of those counted: not known); by release_task, last 3 -> 4
 * (changed), with a callchain; and one cut before has_old (not counted;
 * its sym cut too, it is named by its address).
 */
static void old_hits(struct report *r, struct tracedat_info *info)
{
	const unsigned long rel[] = { FN(6) + 0x30, FN(7) + 0x50 };
	struct fake_stack st = { .type = swap16(STACK_ID), .pid = swap32(fake_pid),
				 .nr = swap32(2) };
	struct tracedat_reader *rd = NULL;
	struct tep_handle *tep;
	struct fake_old_hit h;

	fake_old = true;
	tep = fake_tep(true);
	fake_old = false;
	memset(info, 0, sizeof(*info));
	CHECK(tep && tracedat_reader_new(tep, r, info, &rd) == 0 && rd);
	if (!rd) {
		tep_free(tep);
		return;
	}
	h = old_hit(FN(5) + 0x40, 0x8001, 0x8000, 2, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 0x8001, 0x8001, 1, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 2, 1, 3, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 5, 0, 0, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 2, 1, 9, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 2, 1, 4, 1);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(5) + 0x40, 0, 1, 2, 0);
	feed_exact(rd, &h, sizeof(h), 0);
	h = old_hit(FN(6) + 0x30, 4, 3, 2, 1);
	feed_exact(rd, &h, sizeof(h), 1);
	st.ips[0] = swap_long(rel[0]);
	st.ips[1] = swap_long(rel[1]);
	st.ips_loc = swap32((2 * sizeof(long)) << 16 | offsetof(struct fake_stack, ips));
	feed_exact(rd, &st, sizeof(st), 1);
	h = old_hit(FN(5) + 0x40, 0x8001, 0x8000, 2, 1);
	feed_exact(rd, &h, offsetof(struct fake_old_hit, has_old), 0);
	CHECK(tracedat_reader_end(rd) == 0);
	tep_free(tep);
}

/*
 * Hits with old values: "changed" per entry, in JSON, and in the text with
 * -c (after the hits; without -c the text is what it was); the same from a
 * file of the other byte order. Files without old values have neither
 * (test_tree and the fixture's outputs: unchanged).
 */
static void test_old_values(void)
{
	static const char expect[] =
		"# t\n"
		"# 9 hits, 1 with a callchain; sort: symbol,caller\n"
		"# percentages: a symbol's share of all hits; below it, the share of its hits\n"
		"# changed (after the hits): hits that left the value other than they found it (old != value); 3 of 9\n"
		"#\n"
		"pid_max/4: 8 hits (88.89% of all), 3 changed\n"
		"\n"
		"      87.50%         7         2  copy_process\n"
		"      12.50%         1         1  release_task\n"
		"                                  |\n"
		"                                  ---release_task\n"
		"                                     do_wait\n"
		"\n"
		"0xffffffff82a01000/4: 1 hit (11.11% of all), 0 changed\n"
		"\n"
		"     100.00%         1         0  copy_process\n"
		"\n";
	struct report r = { .callchain = true, .show_changed = true };
	struct report swapped = { .callchain = true, .show_changed = true };
	struct tracedat_info info;
	const struct rnode *n;
	char *text, *js, *other;

	report_parse_sort(&r, "symbol,caller");
	old_hits(&r, &info);
	report_sort(&r);
	CHECK(r.old_values && info.hits == 9 && r.hits == 9);
	n = kid(&r.root, "pid_max/4");
	CHECK(n && n->hits == 8 && n->changed == 3 && r.root.changed == 3);
	CHECK(kid(n, "copy_process") && kid(n, "copy_process")->changed == 2);
	CHECK(kid(n, "release_task") && kid(n, "release_task")->changed == 1);
	text = printed(&r, false);
	if (text && strcmp(text, expect))
		fprintf(stderr, "got:\n%s\nexpected:\n%s\n", text, expect);
	CHECK(text && !strcmp(text, expect));
	js = json_of(&r);
	CHECK_HAS(js, "\"hits\": 9, \"with_callchain\": 1, \"sort\": [\"symbol\", \"caller\"], "
		      "\"call_graph\": true, \"changed\": 3,\n");
	CHECK_HAS(js, "{\"symbol\": \"pid_max/4\", \"hits\": 8, \"percent\": 88.89, \"changed\": 3, ");
	CHECK_HAS(js, "{\"caller\": \"copy_process\", \"hits\": 7, \"percent\": 87.50, \"changed\": 2}");
	CHECK(json_valid(js));

	/* Without -c, the text of a file without old values. */
	r.show_changed = false;
	free(js);
	js = printed(&r, false);
	CHECK_HAS(js, "# 9 hits, 1 with a callchain; sort: symbol,caller\n"
		      "# percentages: a symbol's share of all hits; below it, the share of its hits\n"
		      "#\n"
		      "pid_max/4: 8 hits (88.89% of all)\n\n"
		      "      87.50%         7  copy_process\n");
	CHECK(js && !strstr(js, "changed"));

	/* A big-endian file (here): the same report. */
	report_parse_sort(&swapped, "symbol,caller");
	fake_swapped = true;
	old_hits(&swapped, &info);
	fake_swapped = false;
	report_sort(&swapped);
	other = printed(&swapped, false);
	CHECK(text && other && !strcmp(text, other));
	free(text);
	free(js);
	free(other);
	report_free(&r);
	report_free(&swapped);

	/*
	 * kshark-ksym's synthetic trace.dat with old values, through
	 * libtracecmd: total_forks 41 -> 42, 42 -> 43 (stale), 43 -> 43;
	 * init_task.flags two of four changed; runqueues.nr_running has_old 9
	 * (not counted) and 1 -> 2; do_exit --x none.
	 */
	r = (struct report){ 0 };
	report_parse_sort(&r, "symbol");
	CHECK(tracedat_read("../../kshark-ksym/tests/ksym-values.dat", &r, &info) == 0);
	CHECK(r.old_values && r.hits == 10 && r.root.changed == 5);
	n = kid(&r.root, "total_forks/8");
	CHECK(n && n->hits == 3 && n->changed == 2);
	n = kid(&r.root, "init_task.flags/4");
	CHECK(n && n->hits == 4 && n->changed == 2);
	n = kid(&r.root, "runqueues.nr_running/4");
	CHECK(n && n->hits == 2 && n->changed == 1);
	n = kid(&r.root, "do_exit/8");
	CHECK(n && n->hits == 1 && n->changed == 0);
	report_free(&r);

	/* Without old and has_old: no changed, in text (-c or not) or JSON. */
	r = (struct report){ .callchain = true, .show_changed = true };
	report_parse_sort(&r, "symbol,caller");
	fake_hits(&r, &info, true);
	report_sort(&r);
	text = printed(&r, false);
	js = json_of(&r);
	CHECK(!r.old_values && text && js && !strstr(text, "changed") &&
	      !strstr(js, "changed"));
	free(text);
	free(js);
	report_free(&r);
}

/*
 * A task's comm is any 15 bytes and a crafted file's sym any bytes: the
 * JSON is valid UTF-8 all the same (json-c escapes, U+FFFD for what is not
 * UTF-8), and the text holds no terminal escape ('?' in their place).
 */
/* Review 11-28 L12: reset's trigger removal keeps a cast's blanks. */
static void test_trigger_remove(void)
{
	char *t;

	t = trigger_remove_text("ksym_watch:(struct kmem_cache)ptr.size/4:rw-:unlimited if call_site == 0x1");
	CHECK_STR(t, "!ksym_watch:(struct kmem_cache)ptr.size/4:rw-:unlimited");
	free(t);
	t = trigger_remove_text("stacktrace:unlimited");
	CHECK_STR(t, "!stacktrace:unlimited");
	free(t);
	t = trigger_remove_text("ksym_unwatch:ptr:unlimited   if ptr == 0x10");
	CHECK_STR(t, "!ksym_unwatch:ptr:unlimited");
	free(t);
}

static void test_untrusted_names(void)
{
	static const char comm[] = "\xff\xfe\x1b[2J\xc2\x9b" "c";
	const unsigned long chain[] = { FN(1) + 0x12 };
	struct report r = { .callchain = true };
	struct tracedat_info info = { 0 };
	struct tracedat_reader *rd = NULL;
	struct tep_handle *tep = fake_tep(true);
	char *js = NULL, *txt = NULL;
	FILE *f;
	size_t len = 0;

	/* json_str alone: escapes by json-c, bytes that are not UTF-8 as U+FFFD */
	f = open_memstream(&js, &len);
	json_str(f, "q\"b\\s\n\x01\xff\xc3\xa9\xed\xa0\x80/");
	fclose(f);
	CHECK_STR(js, "\"q\\\"b\\\\s\\n\\u0001\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd/\"");
	free(js);
	js = NULL;

	report_parse_sort(&r, "comm,symbol");
	tep_register_comm(tep, comm, 77);
	CHECK(tep && tracedat_reader_new(tep, &r, &info, &rd) == 0 && rd);
	if (!rd)
		goto out;
	fake_pid = 77;
	feed_hit(rd, 0, TASKLIST, 8, "evil\x1b]0;title\x07\xff", chain[0], chain[0], chain, 1);
	fake_pid = 42;
	CHECK(tracedat_reader_end(rd) == 0);
	report_sort(&r);

	f = open_memstream(&js, &len);
	report_print_json(f, &r, "k\xff.dat");
	fclose(f);
	CHECK(json_valid(js));
	CHECK(python_loads(js));
	/* JSON keeps what it can: U+FFFD for what is not UTF-8, escapes escaped */
	CHECK_HAS(js, "{\"comm\": \"\xef\xbf\xbd\xef\xbf\xbd\\u001b[2J\xc2\x9b" "c\", \"hits\": 1,");
	CHECK_HAS(js, "{\"symbol\": \"evil\\u001b]0;title\\u0007\xef\xbf\xbd/8\", \"hits\": 1,");
	txt = printed(&r, false);
	CHECK(txt && !strchr(txt, '\x1b') && !strchr(txt, '\x07') && !strstr(txt, "\xc2\x9b"));
	CHECK_HAS(txt, "?" "?" "?[2J?" "?c: 1 hit");
	CHECK_HAS(txt, "evil?]0;title?" "?/8");
out:
	free(js);
	free(txt);
	report_free(&r);
	tep_free(tep);
}

int main(void)
{
	test_split_specs();
	test_numbers();
	test_filter_target();
	test_filter_restore();
	test_stats();
	test_stats_cast();
	test_sort_keys();
	test_tree();
	test_fixture();
	test_caller_sym();
	test_json_callchain();
	test_byte_order();
	test_hostile_records();
	test_old_values();
	test_untrusted_names();
	test_trigger_remove();
	test_fields();
	test_scope();
	test_claims();
	test_stats_empty();
	test_uaf();
	test_state();
	test_local();
	printf("ksym-ctl unit tests: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
