// SPDX-License-Identifier: GPL-2.0
/*
 * Host tests of what makes two ksym-ctl runs at once safe: the claims of
 * the state file (reference counts per watch and option, the last one
 * restores), the TARGET of a SPEC (unwatch), and top's counters that reset.
 */
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "hitcount.h"
#include "test.h"

static void test_spec_target(void)
{
	static const struct {
		const char *spec, *target, *access;
	} cases[] = {
		{ "pid_max/4:-w-", "pid_max", "-w-" },
		{ "pid_max", "pid_max", "" },
		{ "jiffies_64/8:rw-@0-1,3", "jiffies_64", "rw-" },
		{ "jiffies_64:rw-@1", "jiffies_64", "rw-" },
		{ "ksym_hitgen_var:--x", "ksym_hitgen_var", "--x" },
		/* MODULE:SYMBOL whose symbol starts with 'r' or '-' (L4) */
		{ "mymod:refcount_x", "mymod:refcount_x", "" },
		{ "mymod:rw_sem", "mymod:rw_sem", "" },
		{ "mymod:r", "mymod:r", "" },
		{ "mymod:-", "mymod:-", "" },
		{ "mymod:refcount_x:rw-", "mymod:refcount_x", "rw-" },
		{ "mymod:refcount_x/4:-w-", "mymod:refcount_x", "-w-" },
		{ "mymod:rw-@x", "mymod:rw-@x", "" },
		{ "(struct task_struct)init_task.comm[2]:-w-",
		  "(struct task_struct)init_task.comm[2]", "-w-" },
		{ "0xffffffff81000000/8:rw-", "0xffffffff81000000", "rw-" },
		/* canonical lines with their comments */
		{ "ksym_hitgen_var/8:-w- # incomplete: not on CPU 1", "", "-w-" },
	};
	char buf[128], acc[8];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (*cases[i].target) {
			spec_target(cases[i].spec, buf, sizeof(buf));
			CHECK_STR(buf, cases[i].target);
		}
		spec_access(cases[i].spec, acc, sizeof(acc));
		CHECK_STR(acc, cases[i].access);
	}
	/* Review 11-28 L4: LEN and CPU list too, what is left out not compared. */
	CHECK(!spec_differs("X/8:-w-", "X/8:-w-"));
	CHECK(!spec_differs("X:-w-", "X/8:-w-"));
	CHECK(spec_differs("X", "X/8:-w-@0-1"));
	CHECK(!spec_differs("X", "X/8:-w-"));
	CHECK(spec_differs("X/4:-w-", "X/8:-w-"));
	CHECK(spec_differs("X/8:rw-", "X/8:-w-"));
	CHECK(spec_differs("X/8:-w-@0", "X/8:-w-"));
	CHECK(spec_differs("X/8:-w-", "X/8:-w-@1"));
	CHECK(!spec_differs("X/8:-w-@0,1,3", "X/8:-w-@0-1,3 # disarmed: x"));
	CHECK(spec_differs("X/8:-w-@0-2", "X/8:-w-@0-1"));
	CHECK(!spec_differs("mymod:refcount_x/4:-w-", "mymod:refcount_x/4:-w-"));
	CHECK(spec_differs("mymod:refcount_x/8", "mymod:refcount_x/4:-w-"));
	/* Cut to the buffer, terminated. */
	spec_target("a_long_symbol_name/8:rw-", buf, 7);
	CHECK_STR(buf, "a_long");
}

/* The runs "alive" says are there: those named in the test's list. */
static bool in_list(const char *owner, void *arg)
{
	const struct strv *live = arg;

	return strv_find(live, owner) >= 0;
}

static void test_claims_refcount(void)
{
	struct claims c = { 0 }, freed = { 0 };
	struct strv live = { 0 };
	struct claim *cl;
	char *text;

	CHECK(!claims_parse(&c, NULL, "boot-1"));
	strv_add(&live, "ksym-ctl-stat-1-aa");
	strv_add(&live, "ksym-ctl-stat-1-bb");

	/* A adds total_forks (there was none), B shares it as it is. */
	CHECK(!claims_take(&c, CLAIM_WATCH, "total_forks", "", "total_forks/8:-w-",
			   "ksym-ctl-stat-1-aa", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_WATCH, "total_forks", "total_forks/8:-w-",
			   "total_forks/8:-w-", "ksym-ctl-stat-1-bb", in_list, &live));
	cl = claims_find(&c, CLAIM_WATCH, "total_forks");
	CHECK(cl && cl->owners.n == 2);
	CHECK_STR(cl ? cl->orig : NULL, "");
	CHECK(cl && claim_held_by_other(cl, "ksym-ctl-stat-1-aa", in_list, &live));

	/* A ends first: B still holds it, nothing is restored. */
	CHECK(!claims_release(&c, "ksym-ctl-stat-1-aa", in_list, &live, &freed));
	CHECK(freed.n == 0);
	CHECK(c.n == 1);
	/* B ends: the last one restores the original (no watch). */
	CHECK(!claims_release(&c, "ksym-ctl-stat-1-bb", in_list, &live, &freed));
	CHECK(freed.n == 1 && c.n == 0);
	CHECK(freed.n == 1 && !strcmp(freed.v[0].key, "total_forks") &&
	      !strcmp(freed.v[0].orig, ""));
	claims_free(&freed);

	/* The state file: written and read back, fields with tabs escaped. */
	strv_add(&live, "ksym-ctl-record-8-dd");
	CHECK(!claims_take(&c, CLAIM_WATCH, "(struct task_struct)init_task.flags",
			   "(struct task_struct)init_task.flags/4:r--",
			   "(struct task_struct)init_task.flags/4:rw-",
			   "ksym-ctl-top-7-cc", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_OPTION, "ksym-stack", "0", "1",
			   "ksym-ctl-record-8-dd", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_OPTION, "ksym-stack", "1", "1",
			   "ksym-ctl-record-9-ee", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_WATCH, "odd\tname\\x", "a\nb", "c",
			   "ksym-ctl-top-7-cc", in_list, &live));
	text = claims_format(&c);
	CHECK_HAS(text, "boot\tboot-1\n");
	CHECK_HAS(text, "o\tksym-stack\t0\t1\tksym-ctl-record-8-dd,ksym-ctl-record-9-ee\n");
	CHECK_HAS(text, "w\todd\\tname\\\\x\ta\\nb\tc\tksym-ctl-top-7-cc\n");
	claims_free(&c);
	CHECK(!claims_parse(&c, text, "boot-1"));
	CHECK(c.n == 3);
	cl = claims_find(&c, CLAIM_WATCH, "init_task.flags");	/* without the cast */
	CHECK(cl && !strcmp(cl->set, "(struct task_struct)init_task.flags/4:rw-"));
	cl = claims_find(&c, CLAIM_WATCH, "odd\tname\\x");
	CHECK(cl && !strcmp(cl->orig, "a\nb"));
	cl = claims_find(&c, CLAIM_OPTION, "ksym-stack");
	CHECK(cl && cl->owners.n == 2 && !strcmp(cl->orig, "0"));
	claims_free(&c);
	/* Of another boot: none of it holds. */
	CHECK(!claims_parse(&c, text, "boot-2"));
	CHECK(c.n == 0);
	claims_free(&c);
	/* Garbage lines are skipped, not fatal. */
	CHECK(!claims_parse(&c, "x\ny\tz\nw\t\t\t\t\nw\tk\to\ts\to1,,o2\n\t\t\n", ""));
	CHECK(c.n == 1 && c.v[0].owners.n == 2);
	claims_free(&c);
	free(text);
	strv_free(&live);
}

static void test_claims_killed(void)
{
	struct claims c = { 0 }, freed = { 0 };
	struct strv live = { 0 };
	struct claim *cl;

	CHECK(!claims_parse(&c, NULL, ""));
	strv_add(&live, "B");
	/* A (killed since) changed the user's pid_max/4:-w- to rw-. */
	CHECK(!claims_take(&c, CLAIM_WATCH, "pid_max", "pid_max/4:-w-", "pid_max/4:rw-",
			   "A", in_list, &live));
	/* B's run ends: it never held pid_max, the claim stays for reset. */
	CHECK(!claims_take(&c, CLAIM_WATCH, "jiffies_64", "", "jiffies_64/8:rw-",
			   "B", in_list, &live));
	CHECK(!claims_release(&c, "B", in_list, &live, &freed));
	CHECK(freed.n == 1 && !strcmp(freed.v[0].key, "jiffies_64"));
	claims_free(&freed);
	CHECK(c.n == 1 && c.v[0].owners.n == 0);

	/* C takes pid_max as A left it: the original stays the user's. */
	strv_add(&live, "C");
	CHECK(!claims_take(&c, CLAIM_WATCH, "pid_max", "pid_max/4:rw-", "pid_max/4:rw-",
			   "C", in_list, &live));
	cl = claims_find(&c, CLAIM_WATCH, "pid_max");
	CHECK(cl && !strcmp(cl->orig, "pid_max/4:-w-") && cl->owners.n == 1);
	CHECK(!claims_release(&c, "C", in_list, &live, &freed));
	CHECK(freed.n == 1 && !strcmp(freed.v[0].orig, "pid_max/4:-w-"));
	claims_free(&freed);

	/* Someone changed it after A was killed: what is there is the original. */
	CHECK(!claims_take(&c, CLAIM_WATCH, "pid_max", "pid_max/4:-w-", "pid_max/4:rw-",
			   "A", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_WATCH, "pid_max", "pid_max/2:-w-", "pid_max/4:rw-",
			   "C", in_list, &live));
	cl = claims_find(&c, CLAIM_WATCH, "pid_max");
	CHECK(cl && !strcmp(cl->orig, "pid_max/2:-w-"));
	CHECK(!claims_release(&c, "C", in_list, &live, &freed));
	claims_free(&freed);

	/* reset (no owner): every claim whose runs are all gone. */
	CHECK(!claims_take(&c, CLAIM_OPTION, "ksym-regs", "0", "1", "A", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_OPTION, "ksym-branches", "0", "1", "B", in_list, &live));
	CHECK(!claims_release(&c, NULL, in_list, &live, &freed));
	CHECK(freed.n == 1 && !strcmp(freed.v[0].key, "ksym-regs"));
	CHECK(c.n == 1 && !strcmp(c.v[0].key, "ksym-branches"));
	claims_free(&freed);

	/*
	 * Review 11-28 L2: A killed between its write and its claim (pending):
	 * C, which finds A's line there, keeps the user's original.
	 */
	CHECK(!claims_take(&c, CLAIM_WATCH, "jiffies_64", "jiffies_64/8:-w-",
			   CLAIM_PENDING, "A", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_WATCH, "jiffies_64", "jiffies_64/8:rw-",
			   "jiffies_64/8:rw-", "C", in_list, &live));
	cl = claims_find(&c, CLAIM_WATCH, "jiffies_64");
	CHECK(cl && !strcmp(cl->orig, "jiffies_64/8:-w-") &&
	      !strcmp(cl->set, "jiffies_64/8:rw-"));
	claims_free(&c);
	strv_free(&live);
}

/* L7: no limit on the options a run claims and gets back. */
static void test_claims_many(void)
{
	struct claims c = { 0 }, freed = { 0 };
	char key[32];
	int i;

	CHECK(!claims_parse(&c, NULL, ""));
	for (i = 0; i < 40; i++) {
		snprintf(key, sizeof(key), "opt%d", i);
		CHECK(!claims_take(&c, CLAIM_OPTION, key, i % 2 ? "1" : "0", "1", "R",
				   NULL, NULL));
	}
	CHECK(!claims_release(&c, "R", NULL, NULL, &freed));
	CHECK(freed.n == 40 && c.n == 0);
	CHECK(freed.n == 40 && !strcmp(freed.v[39].key, "opt39") &&
	      !strcmp(freed.v[39].orig, "1"));
	claims_free(&freed);
	claims_free(&c);
}

static void test_counters_reset(void)
{
	struct ksym_stats prev, now, total = { 0 }, interval = { 0 };

	CHECK(counter_step(5, 12) == 7);
	CHECK(counter_step(5, 5) == 0);
	CHECK(counter_step(5, 3) == 3);	/* removed and added again */

	stats_parse(&prev, "  -w-  v/8  5  1\n",
		    "v  f [m]  5  100.00%\n");
	stats_parse(&now, "  -w-  v/8  12  1\n",
		    "v  f [m]  10  83.33%\nv  g  2  16.67%\n");
	CHECK(!stats_advance(&total, &interval, &now, &prev));
	CHECK(stats_watch_hits(&total, "v") == 7);
	CHECK(stats_watch_hits(&interval, "v") == 7);
	CHECK(total.nr_caller == 2 && total.caller[0].hits == 5 &&
	      total.caller[1].hits == 2);
	stats_free(&prev);
	prev = now;
	/* The watch went and came back: 3 since, never a negative interval. */
	stats_parse(&now, "  -w-  v/8  3  1\n", "v  f [m]  3  100.00%\n");
	CHECK(!stats_advance(&total, &interval, &now, &prev));
	CHECK(stats_watch_hits(&total, "v") == 10);
	CHECK(stats_watch_hits(&interval, "v") == 3);
	CHECK(interval.nr_caller == 1 && interval.caller[0].hits == 3);
	CHECK(total.caller[0].hits == 8);
	stats_free(&prev);
	stats_free(&now);
	stats_free(&total);
	stats_free(&interval);
}

/* ksym_trigger_slots (uaf -s): claimed for a moment, dropped alone. */
static void test_claims_setting(void)
{
	struct claims c = { 0 }, freed = { 0 };
	struct strv live = { 0 };
	struct claim *cl;
	char *text;

	CHECK(!claims_parse(&c, NULL, "boot-1"));
	strv_add(&live, "ksym-ctl-uaf-1-aa");
	strv_add(&live, "ksym-ctl-uaf-2-bb");
	CHECK(!claims_take(&c, CLAIM_OPTION, "ksym-stack", "0", "1",
			   "ksym-ctl-uaf-1-aa", in_list, &live));
	CHECK(!claims_take(&c, CLAIM_SETTING, "ksym_trigger_slots", "1", "4",
			   "ksym-ctl-uaf-1-aa", in_list, &live));
	CHECK_STR(claim_kind_name(CLAIM_SETTING), "setting");
	CHECK_STR(claim_kind_name(CLAIM_OPTION), "option");
	CHECK_STR(claim_kind_name(CLAIM_WATCH), "watch");
	/* Written and read back. */
	text = claims_format(&c);
	CHECK_HAS(text, "s\tksym_trigger_slots\t1\t4\tksym-ctl-uaf-1-aa\n");
	claims_free(&c);
	CHECK(!claims_parse(&c, text, "boot-1"));
	free(text);
	cl = claims_find(&c, CLAIM_SETTING, "ksym_trigger_slots");
	CHECK(cl && !strcmp(cl->orig, "1") && !strcmp(cl->set, "4"));
	/* Not an option of the same name. */
	CHECK(claims_find(&c, CLAIM_OPTION, "ksym_trigger_slots") == NULL);
	/* Shared by a second run: the first one's drop restores nothing. */
	CHECK(!claims_take(&c, CLAIM_SETTING, "ksym_trigger_slots", "4", "4",
			   "ksym-ctl-uaf-2-bb", in_list, &live));
	CHECK(!claims_drop(&c, CLAIM_SETTING, "ksym_trigger_slots",
			   "ksym-ctl-uaf-1-aa", &freed));
	CHECK(freed.n == 0);
	/* A drop by a run that does not hold it, of a claim not there: nothing. */
	CHECK(!claims_drop(&c, CLAIM_SETTING, "ksym_trigger_slots", "nobody", &freed));
	CHECK(!claims_drop(&c, CLAIM_SETTING, "nothing", "ksym-ctl-uaf-2-bb", &freed));
	CHECK(freed.n == 0 && c.n == 2);
	/* The last owner's drop: the original comes back; the option stays. */
	CHECK(!claims_drop(&c, CLAIM_SETTING, "ksym_trigger_slots",
			   "ksym-ctl-uaf-2-bb", &freed));
	CHECK(freed.n == 1 && !strcmp(freed.v[0].orig, "1") &&
	      freed.v[0].kind == CLAIM_SETTING);
	CHECK(c.n == 1 && c.v[0].kind == CLAIM_OPTION);
	claims_free(&freed);
	/* A killed run's setting: reset (owner NULL) frees it. */
	CHECK(!claims_take(&c, CLAIM_SETTING, "ksym_trigger_slots", "1", "3",
			   "ksym-ctl-uaf-9-zz", in_list, &live));
	CHECK(!claims_release(&c, NULL, in_list, &live, &freed));
	CHECK(freed.n == 1 && freed.v[0].kind == CLAIM_SETTING &&
	      !strcmp(freed.v[0].set, "3"));
	claims_free(&freed);
	claims_free(&c);
	strv_free(&live);
}

/*
 * Review 11-28 L1: a run is claimed by its instance (CLAIM_RUN) so that a
 * live instance the state file does not know is another state file's run.
 * Written and read back; let go of with nothing to put back, by the run
 * itself, or by anyone once it is gone.
 */
static void test_claims_run(void)
{
	struct claims c = { 0 }, freed = { 0 };
	struct strv live = { 0 };
	char *text;

	CHECK(!claims_parse(&c, NULL, "boot-1"));
	strv_add(&live, "ksym-ctl-stat-1-aa");
	strv_add(&live, "ksym-ctl-stat-2-bb");
	CHECK(!claims_take(&c, CLAIM_RUN, "ksym-ctl-stat-1-aa", "", "",
			   "ksym-ctl-stat-1-aa", NULL, NULL));
	CHECK(!claims_take(&c, CLAIM_RUN, "ksym-ctl-stat-2-bb", "", "",
			   "ksym-ctl-stat-2-bb", NULL, NULL));
	CHECK(!claims_take(&c, CLAIM_RUN, "ksym-ctl-stat-3-cc", "", "",
			   "ksym-ctl-stat-3-cc", NULL, NULL));
	CHECK(!claims_take(&c, CLAIM_WATCH, "total_forks", "", "total_forks/8:-w-",
			   "ksym-ctl-stat-1-aa", in_list, &live));
	text = claims_format(&c);
	CHECK_HAS(text, "r\tksym-ctl-stat-2-bb\t\t\tksym-ctl-stat-2-bb\n");
	claims_free(&c);
	CHECK(!claims_parse(&c, text, "boot-1"));
	free(text);
	CHECK(c.n == 4 && claims_find(&c, CLAIM_RUN, "ksym-ctl-stat-2-bb"));
	CHECK(!claims_find(&c, CLAIM_WATCH, "ksym-ctl-stat-2-bb"));
	CHECK_STR(claim_kind_name(CLAIM_RUN), "run");
	/*
	 * aa ends: its watch is put back, its run claim only dropped; cc is
	 * gone (killed): dropped too, bb's stays.
	 */
	CHECK(!claims_release(&c, "ksym-ctl-stat-1-aa", in_list, &live, &freed));
	CHECK(freed.n == 1 && freed.v[0].kind == CLAIM_WATCH);
	CHECK(c.n == 1 && claims_find(&c, CLAIM_RUN, "ksym-ctl-stat-2-bb"));
	claims_free(&freed);
	/* reset (no owner) with bb gone: nothing to put back. */
	strv_free(&live);
	CHECK(!claims_release(&c, NULL, in_list, &live, &freed));
	CHECK(freed.n == 0 && c.n == 0);
	claims_free(&freed);
	claims_free(&c);
}

void test_claims(void)
{
	test_claims_run();
	test_claims_setting();
	test_spec_target();
	test_claims_refcount();
	test_claims_killed();
	test_claims_many();
	test_counters_reset();
}
