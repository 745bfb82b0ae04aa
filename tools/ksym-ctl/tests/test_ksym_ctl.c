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
#include <unistd.h>

#include "report_tree.h"
#include "stats.h"
#include "tracedat.h"
#include "utils.h"

static int failures, checks;

/* Run @expr with stderr muted: the error messages of expected failures. */
static int mute(void)
{
	int fd = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY);

	fflush(stderr);
	dup2(null, STDERR_FILENO);
	close(null);
	return fd;
}

static void unmute(int fd)
{
	fflush(stderr);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

#define QUIET(expr) ({ int _fd = mute(); __typeof__(expr) _r = (expr); unmute(_fd); _r; })

#define CHECK(cond) do {						\
	checks++;							\
	if (!(cond)) {							\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
	}								\
} while (0)

#define CHECK_STR(a, b) do {						\
	const char *_a = (a), *_b = (b);				\
	checks++;							\
	if (!_a || strcmp(_a, _b)) {					\
		failures++;						\
		fprintf(stderr, "%s:%d: FAILED: %s is \"%s\", expected \"%s\"\n", \
			__FILE__, __LINE__, #a, _a ? _a : "(null)", _b); \
	}								\
} while (0)

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
	CHECK(r.with_chain == 0 && r.root.nr_kids == 3);
	CHECK_STR(r.root.kids[0]->name, "ksym_hitgen_write_a");
	CHECK_STR(r.root.kids[0]->kids[0]->name, "cpu0");
	report_free(&r);
	CHECK(QUIET(tracedat_read("test_ksym_ctl.c", &r, &info)) == -1);
}

int main(void)
{
	test_split_specs();
	test_numbers();
	test_filter_target();
	test_stats();
	test_sort_keys();
	test_tree();
	test_fixture();
	printf("ksym-ctl unit tests: %d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
