// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of -p, -C, -a and -N (scope.c), of the kallsyms table
 * (kallsyms.c) and of the counting of ksym_hit entries that stat -p and
 * top -p do (hitcount.c). /proc is faked in a temporary directory where
 * the test needs tasks of its own making.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hitcount.h"
#include "kallsyms.h"
#include "scope.h"
#include "stats.h"
#include "test.h"

static void test_pids(void)
{
	struct ksym_scope sc = { 0 };

	CHECK(scope_parse_pids(&sc, "123") == 0);
	CHECK(sc.nr_pids == 1 && sc.pids[0] == 123);
	CHECK(scope_parse_pids(&sc, "45,6789") == 0);
	CHECK(sc.nr_pids == 3 && sc.pids[1] == 45 && sc.pids[2] == 6789);
	scope_free(&sc);
	/* Empty, trailing or leading ',', not a number, 0, negative, twice. */
	CHECK(QUIET(scope_parse_pids(&sc, "")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "1,")) == -1);
	scope_free(&sc);
	CHECK(QUIET(scope_parse_pids(&sc, ",1")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "1,x")) == -1);
	scope_free(&sc);
	CHECK(QUIET(scope_parse_pids(&sc, "0")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "-5")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "12 ")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "99999999999")) == -1);
	CHECK(QUIET(scope_parse_pids(&sc, "7,7")) == -1);
	scope_free(&sc);
}

static void test_cpulist(void)
{
	CHECK(scope_cpulist_valid("0"));
	CHECK(scope_cpulist_valid("0-3"));
	CHECK(scope_cpulist_valid("0,2-3"));
	CHECK(scope_cpulist_valid("1,3,5"));
	CHECK(scope_cpulist_valid("0-7:2/4"));
	CHECK(!scope_cpulist_valid(""));
	CHECK(!scope_cpulist_valid("a"));
	CHECK(!scope_cpulist_valid("3-1"));
	CHECK(!scope_cpulist_valid("0-"));
	CHECK(!scope_cpulist_valid(",0"));
	CHECK(!scope_cpulist_valid("0,"));
	CHECK(!scope_cpulist_valid("0 1"));
	CHECK(!scope_cpulist_valid("0-7:5/4"));
	CHECK(!scope_cpulist_valid("0-7:0/4"));
	CHECK(!scope_cpulist_valid("0:1/2"));
	CHECK(!scope_cpulist_valid("@1"));
}

static void test_options(void)
{
	struct ksym_scope sc = { 0 };

	/* 1: taken; -1: a bad argument, or not a scope option (usage). */
	CHECK(scope_option(&sc, 'a', NULL, NULL) == 1 && sc.all_cpus);
	CHECK(scope_option(&sc, 'C', "0-1", NULL) == 1);
	CHECK_STR(sc.cpus, "0-1");
	CHECK(QUIET(scope_option(&sc, 'C', "0-x", NULL)) == -1);
	CHECK_STR(sc.cpus, "0-1");
	CHECK(scope_option(&sc, '?', NULL, NULL) == -1);
	/* -a with -C: -C's CPUs, as perf's -a -C; -a with -p: refused. */
	CHECK(scope_check(&sc) == 0);
	CHECK(scope_option(&sc, 'p', "42", NULL) == 1);
	CHECK(QUIET(scope_check(&sc)) == -1);
	sc.all_cpus = false;
	CHECK(scope_check(&sc) == 0);
	CHECK(QUIET(scope_option(&sc, 'p', "4 2", NULL)) == -1);

	/* With -p, COMMAND is optional: "--" says whether one follows. */
	{
		char *with[] = { "pid_max:-w-", "--", "sleep", "1", NULL };
		char *without[] = { "pid_max:-w-", "total_forks:-w-", NULL };
		struct ksym_scope none = { 0 };

		CHECK(scope_needs_command(&sc, 4, with));
		CHECK(!scope_needs_command(&sc, 2, without));
		CHECK(scope_needs_command(&none, 2, without));
	}
	scope_free(&sc);

	CHECK(scope_check_host_port("127.0.0.1:12345") == 0);
	CHECK(scope_check_host_port("collector:1") == 0);
	CHECK(scope_check_host_port("[::1]:65535") == 0);
	CHECK(QUIET(scope_check_host_port("collector")) == -1);
	CHECK(QUIET(scope_check_host_port(":12345")) == -1);
	CHECK(QUIET(scope_check_host_port("host:")) == -1);
	CHECK(QUIET(scope_check_host_port("host:0")) == -1);
	CHECK(QUIET(scope_check_host_port("host:65536")) == -1);
	CHECK(QUIET(scope_check_host_port("host:12a")) == -1);
}

static void test_apply_cpus(void)
{
	struct ksym_scope sc = { 0 };
	struct strv specs = { 0 };

	strv_add(&specs, "pid_max/4:-w-");
	strv_add(&specs, "ksym_hitgen:ksym_hitgen_var/8:rw-");
	/* Without -C nothing changes. */
	CHECK(scope_apply_cpus(&sc, &specs) == 0);
	CHECK_STR(specs.v[0], "pid_max/4:-w-");
	sc.cpus = strdup("0,2-3");
	CHECK(scope_apply_cpus(&sc, &specs) == 0);
	CHECK(specs.n == 2);
	CHECK_STR(specs.v[0], "pid_max/4:-w-@0,2-3");
	CHECK_STR(specs.v[1], "ksym_hitgen:ksym_hitgen_var/8:rw-@0,2-3");
	CHECK(specs.v[2] == NULL);
	strv_free(&specs);

	/* A SPEC with a CPU list of its own and -C: refused, nothing changed. */
	strv_add(&specs, "pid_max/4:-w-");
	strv_add(&specs, "jiffies_64/8:rw-@1");
	CHECK(QUIET(scope_apply_cpus(&sc, &specs)) == -1);
	CHECK(specs.n == 2);
	CHECK_STR(specs.v[0], "pid_max/4:-w-");
	CHECK_STR(specs.v[1], "jiffies_64/8:rw-@1");
	strv_free(&specs);
	scope_free(&sc);
}

/* A file of the fake /proc. */
static void put(const char *dir, const char *file, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void mkdirs(const char *dir, const char *sub)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	mkdir(path, 0755);
}

static void test_threads(void)
{
	char proc[] = "/tmp/ksym-ctl-test.XXXXXX", *text;
	struct ksym_scope sc = { 0 };
	char cmd[600], pid[32];

	if (!mkdtemp(proc)) {
		CHECK(!"mkdtemp");
		return;
	}
	/* 100: a process with threads 100 and 101; 200: a thread by its TID. */
	mkdirs(proc, "100");
	mkdirs(proc, "100/task");
	mkdirs(proc, "100/task/100");
	mkdirs(proc, "100/task/101");
	mkdirs(proc, "101");
	mkdirs(proc, "200");
	put(proc, "100/stat", "100 (sh) S 1 100 100 0\n");
	put(proc, "101/stat", "101 (a) b) Z 1 100 100 0\n");
	put(proc, "200/stat", "200 (worker) R 1 200 200 0\n");

	scope_parse_pids(&sc, "100,200");
	CHECK(scope_find_threads(&sc, proc) == 0);
	CHECK(sc.nr_tids == 3);
	text = scope_pid_text(&sc);
	/* readdir's order: the threads of 100 either way round, then 200. */
	CHECK(text && (!strcmp(text, "100 101 200") || !strcmp(text, "101 100 200")));
	free(text);
	CHECK(scope_alive(&sc, proc));
	/* Zombies and gone tasks are not alive; a ')' in COMM is no state. */
	put(proc, "100/stat", "100 (sh) Z 1 100 100 0\n");
	CHECK(scope_alive(&sc, proc));
	put(proc, "200/stat", "200 (x) R) X 1 200 200 0\n");
	CHECK(!scope_alive(&sc, proc));
	scope_free(&sc);

	/* scope_prepare(): -p's threads in the text for set_event_pid. */
	{
		struct strv specs = { 0 };
		char *pids;

		strv_add(&specs, "pid_max:-w-");
		scope_parse_pids(&sc, "200");
		CHECK(scope_option(&sc, 'C', "1", NULL) == 1);
		CHECK(scope_prepare(&sc, &specs, proc, &pids) == 0);
		CHECK_STR(pids, "200");
		CHECK_STR(specs.v[0], "pid_max:-w-@1");
		free(pids);
		scope_free(&sc);
		/* Without -p: no text; -a with -p: refused. */
		CHECK(scope_prepare(&sc, &specs, proc, &pids) == 0 && !pids);
		scope_parse_pids(&sc, "200");
		sc.all_cpus = true;
		CHECK(QUIET(scope_prepare(&sc, &specs, proc, &pids)) == -1 && !pids);
		scope_free(&sc);
		strv_free(&specs);
	}

	/* No such process. */
	scope_parse_pids(&sc, "100,300");
	CHECK(QUIET(scope_find_threads(&sc, proc)) == -1);
	scope_free(&sc);

	/* The real /proc: this process, with its own thread. */
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	scope_parse_pids(&sc, pid);
	CHECK(scope_find_threads(&sc, "/proc") == 0);
	CHECK(sc.nr_tids == 1 && sc.tids[0] == getpid());
	CHECK(scope_alive(&sc, "/proc"));
	scope_free(&sc);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", proc);
	CHECK(system(cmd) == 0);
}

static const char kallsyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81234560 T do_proc_dointvec_minmax_conv\n"
	"ffffffff81234600 t __do_proc_dointvec\n"
	"0000000000012340 D runqueues\n"
	"ffffffff82000000 D pid_max\n"
	"ffffffff82000010 D total_forks\n"
	"ffffffffc0001000 t ksym_hitgen_write_a\t[ksym_hitgen]\n"
	"ffffffffc0001100 t ksym_hitgen_write_b\t[ksym_hitgen]\n"
	"ffffffffc0002000 b ksym_hitgen_var\t[ksym_hitgen]\n"
	"ffffffffc0002008 b ksym_hitgen_u32\t[ksym_hitgen]\n"
	"ffffffffc0003000 d pid_max\t[other_mod]\n";

static void test_kallsyms(void)
{
	struct kallsyms ks;
	char name[128];

	CHECK(kallsyms_load(&ks, strdup(kallsyms_text)) == 0);
	CHECK(ks.nr == 11);
	kallsyms_name(&ks, 0xffffffff8123457aULL, name, sizeof(name));
	CHECK_STR(name, "do_proc_dointvec_minmax_conv");
	kallsyms_name(&ks, 0xffffffff81234600ULL, name, sizeof(name));
	CHECK_STR(name, "__do_proc_dointvec");
	kallsyms_name(&ks, 0xffffffffc0001042ULL, name, sizeof(name));
	CHECK_STR(name, "ksym_hitgen_write_a [ksym_hitgen]");
	kallsyms_name(&ks, 0x1000ULL, name, sizeof(name));
	CHECK_STR(name, "0x1000");
	CHECK(kallsyms_find(&ks, 0x10) == NULL);
	/* The kernel's own first; MODULE:SYMBOL; a module's only symbol. */
	CHECK(kallsyms_addr(&ks, "pid_max") == 0xffffffff82000000ULL);
	CHECK(kallsyms_addr(&ks, "other_mod:pid_max") == 0xffffffffc0003000ULL);
	CHECK(kallsyms_addr(&ks, "ksym_hitgen_var") == 0xffffffffc0002000ULL);
	CHECK(kallsyms_addr(&ks, "ksym_hitgen:ksym_hitgen_u32") == 0xffffffffc0002008ULL);
	CHECK(kallsyms_addr(&ks, "nope") == 0);
	CHECK(kallsyms_addr(&ks, "ksym_hitgen:pid_max") == 0);
	/* As %pS, without the size; and a function's bytes (uaf --kfree-site). */
	kallsyms_name_off(&ks, 0xffffffff8123457aULL, name, sizeof(name));
	CHECK_STR(name, "do_proc_dointvec_minmax_conv+0x1a");
	kallsyms_name_off(&ks, 0xffffffffc0001000ULL, name, sizeof(name));
	CHECK_STR(name, "ksym_hitgen_write_a+0x0 [ksym_hitgen]");
	kallsyms_name_off(&ks, 0x10ULL, name, sizeof(name));
	CHECK_STR(name, "0x10");
	{
		unsigned long long start = 0, end = 0;

		CHECK(kallsyms_extent(&ks, "do_proc_dointvec_minmax_conv", &start, &end) == 0);
		CHECK(start == 0xffffffff81234560ULL && end == 0xffffffff81234600ULL);
		CHECK(kallsyms_extent(&ks, "ksym_hitgen:ksym_hitgen_write_a", &start, &end) == 0);
		CHECK(start == 0xffffffffc0001000ULL && end == 0xffffffffc0001100ULL);
		/* Nothing above the last one; no such name. */
		CHECK(kallsyms_extent(&ks, "other_mod:pid_max", &start, &end) == -1);
		CHECK(kallsyms_extent(&ks, "nope", &start, &end) == -1);

		/* Review 11-28 L13: a name of several, refused with the list. */
		char *list = NULL;

		CHECK(kallsyms_count(&ks, "pid_max", &list) == 2);
		CHECK_HAS(list, "0xffffffff82000000 pid_max\n");
		CHECK_HAS(list, "0xffffffffc0003000 pid_max [other_mod]\n");
		free(list);
		CHECK(kallsyms_count(&ks, "other_mod:pid_max", NULL) == 1);
		CHECK(kallsyms_count(&ks, "nope", NULL) == 0);
		CHECK(kallsyms_function(&ks, "pid_max", &start, &end, &list) == -1);
		CHECK_STR(list, "--kfree-site pid_max: 2 functions have that name; say which with MODULE:FUNC or FUNC@0xADDR:\n"
			  "0xffffffff82000000 pid_max\n0xffffffffc0003000 pid_max [other_mod]\n");
		free(list);
		CHECK(kallsyms_function(&ks, "pid_max@0xffffffff82000000", &start, &end, &list) == 0);
		CHECK(start == 0xffffffff82000000ULL && end > start && !list);
		CHECK(kallsyms_function(&ks, "pid_max@0xffffffff82000008", &start, &end, &list) == -1);
		CHECK_HAS(list, "no pid_max at 0xffffffff82000008");
		free(list);
		CHECK(kallsyms_function(&ks, "pid_max@zz", &start, &end, &list) == -1);
		CHECK_HAS(list, "wants a hex address");
		free(list);
		CHECK(kallsyms_function(&ks, "do_proc_dointvec_minmax_conv", &start, &end, &list) == 0);
		CHECK(start == 0xffffffff81234560ULL && end == 0xffffffff81234600ULL);
	}
	kallsyms_free(&ks);

	/* No addresses (kptr_restrict, not root): refused. */
	CHECK(kallsyms_load(&ks, strdup("0000000000000000 T _stext\n"
					"0000000000000000 D pid_max\n")) == -1);
	kallsyms_free(&ks);
}

static const char filter_text[] =
	"ksym_hitgen_var/8:-w-\n"
	"ksym_hitgen_u32/4:-w-@0\n"
	"pid_max/4:-w-\n"
	"(struct task_struct)init_task.flags/4:rw-\n"
	"runqueues.nr_running/4:rw- # incomplete: not on CPU 1\n"
	"total_forks+0x4/4:rw- # disarmed: over 1000000 hits/s\n";

static void test_hitcount(void)
{
	const unsigned long long write_a = 0xffffffffc0001010ULL;
	const unsigned long long write_b = 0xffffffffc0001110ULL;
	struct strv targets = { 0 };
	struct ksym_stats st;
	struct hitcount hc;
	int i;

	/* Ours: all but pid_max (someone else's watch, armed by us too). */
	strv_add(&targets, "ksym_hitgen_var");
	strv_add(&targets, "ksym_hitgen_u32");
	strv_add(&targets, "(struct task_struct)init_task.flags");
	strv_add(&targets, "runqueues.nr_running");
	strv_add(&targets, "total_forks+0x4");
	CHECK(hitcount_init(&hc, filter_text, &targets, strdup(kallsyms_text)) == 0);
	CHECK(hc.nr_w == 6);
	CHECK(hc.w[0].addr == 0xffffffffc0002000ULL && hc.w[0].len == 8 && hc.w[0].ours);
	CHECK_STR(hc.w[0].access, "-w-");
	CHECK(hc.w[2].addr == 0xffffffff82000000ULL && !hc.w[2].ours);
	/* A member, a per-CPU variable: their address is not known here. */
	CHECK(hc.w[3].addr == 0 && hc.w[3].ours);
	CHECK(hc.w[4].addr == 0 && hc.w[4].len == 4);
	CHECK(hc.w[5].addr == 0xffffffff82000014ULL);

	/* By name (the entry's "sym"), as the kernel names its watches. */
	for (i = 0; i < 3; i++)
		hitcount_add(&hc, "ksym_hitgen_var", 0xffffffffc0002000ULL, 8, 2, write_a);
	hitcount_add(&hc, "ksym_hitgen_var", 0xffffffffc0002000ULL, 8, 2, write_b);
	hitcount_add(&hc, "init_task.flags", 0xffffffff83000a28ULL, 4, 2, write_a);
	hitcount_add(&hc, "runqueues.nr_running", 0xffff88803ec12344ULL, 4, 1, write_b);
	hitcount_add(&hc, "runqueues.nr_running", 0xffff88803ed12344ULL, 4, 1, write_b);
	/* Without a name: by address and length. */
	hitcount_add(&hc, NULL, 0xffffffffc0002008ULL, 4, 2, write_b);
	hitcount_add(&hc, "", 0xffffffff82000014ULL, 4, 3, 0xffffffff81234570ULL);
	/* Someone else's watch: not ours to count. */
	hitcount_add(&hc, "pid_max", 0xffffffff82000000ULL, 4, 2, write_a);
	hitcount_add(&hc, NULL, 0xffffffff82000000ULL, 4, 2, write_a);
	/* Nameless, at no known address: two watches are rw- of 4 bytes. */
	hitcount_add(&hc, NULL, 0xffff88803ec12344ULL, 4, 3, write_a);
	CHECK(hc.unattributed == 1);

	CHECK(hitcount_stats(&hc, &st) == 0);
	CHECK(st.nr_watch == 5);
	CHECK(stats_watch_hits(&st, "ksym_hitgen_var") == 4);
	CHECK(stats_watch_hits(&st, "ksym_hitgen_u32") == 1);
	CHECK(stats_watch_hits(&st, "init_task.flags") == 1);
	CHECK(stats_watch_hits(&st, "runqueues.nr_running") == 2);
	CHECK(stats_watch_hits(&st, "total_forks+0x4") == 1);
	CHECK(stats_watch_hits(&st, "pid_max") == -1);
	/* The rows read like trace_stat's: TARGET/LEN, access, callers. */
	CHECK_STR(st.watch[0].name, "ksym_hitgen_var/8");
	CHECK_STR(st.watch[0].access, "-w-");
	CHECK_STR(st.watch[2].name, "init_task.flags/4");
	CHECK(st.nr_caller == 6);
	CHECK_STR(st.caller[0].target, "ksym_hitgen_var");
	CHECK_STR(st.caller[0].name, "ksym_hitgen_write_a [ksym_hitgen]");
	CHECK(st.caller[0].hits == 3);
	CHECK_STR(st.caller[1].name, "ksym_hitgen_write_b [ksym_hitgen]");
	CHECK(st.caller[1].hits == 1);
	CHECK_STR(st.caller[5].target, "total_forks+0x4");
	CHECK_STR(st.caller[5].name, "do_proc_dointvec_minmax_conv");
	stats_free(&st);
	hitcount_free(&hc);

	/* A watch line longer than 600 bytes: a long field path. */
	{
		char line[1200], target[1000];

		memset(target, 'a', 900);
		strcpy(target + 900, ".b");
		snprintf(line, sizeof(line), "(struct s)%s/4:rw- # disarmed: over 9 hits/s\n",
			 target);
		strv_add(&targets, line);
		*strstr(targets.v[targets.n - 1], "/4:") = '\0';
		CHECK(hitcount_init(&hc, line, &targets, strdup(kallsyms_text)) == 0);
		CHECK(hc.nr_w == 1 && hc.w[0].len == 4 && hc.w[0].ours);
		CHECK(hc.nr_w == 1 && strlen(hc.w[0].target) == 912);
		hitcount_free(&hc);
	}

	/* Without kallsyms' addresses there are no names for the accessors. */
	CHECK(QUIET(hitcount_init(&hc, filter_text, &targets,
				  strdup("0000000000000000 T _stext\n"))) == -1);
	hitcount_free(&hc);
	strv_free(&targets);
}

void test_scope(void)
{
	test_pids();
	test_cpulist();
	test_options();
	test_apply_cpus();
	test_threads();
	test_kallsyms();
	test_hitcount();
}
