// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-fuzz - grammar-aware fuzzer of /sys/kernel/tracing/ksym_trace_filter
 *
 * Generates valid and hostile writes (whole and in pieces, with bad lengths,
 * CPU lists, huge entries, NUL bytes, blank lines, unterminated entries;
 * casts and field paths, with blanks inside the cast, a cast cut between
 * two write() calls, bad and overlong paths; per-CPU variables), keeps a
 * model of the watch set built from Documentation/trace/ksym.rst alone
 * (and the layout of ksym_hitgen's structs, which BTF gives the kernel),
 * and after every write(2) and close(2) compares the return value and the
 * file read back with the model: an accepted write must have exactly its
 * documented effect, a refused one must change nothing.
 *
 *   ksym-fuzz [-s SEED] [-n WRITES] [-t SECONDS] [-m single|lock|race] [-H] [-L]
 *             [-Z] [-A] [-G] [-W] [-f FILTER] [-P FILE] [-v] [-T]
 *
 *   -s SEED   PRNG seed (default 1). Writer i uses its own stream derived
 *             from SEED; -m single is reproducible byte for byte.
 *   -n N      write(2) calls in all (default 10000), split between writers.
 *   -t SECS   a time budget: each writer (and -G) starts no new entry once
 *             SECS seconds have passed since the start, whichever of -n and
 *             -t comes first ends the run; with -t and no -n, the time does
 *             (-n is then 10^9). The closing lines give the writes done (make
 *             check-debug bounds the fuzz by time, not by a count).
 *   -m MODE   single: one writer, checked.
 *             lock:   two writer processes, both checked; each write and its
 *                     read-back run under flock() on a shared model, with
 *                     each writer's own descriptor (and unterminated data).
 *             race:   two writer processes, no lock: the checker owns every
 *                     address but one and checks as in single mode; the other
 *                     writer races it on ksym_hitgen_buf+8 only (one watch at
 *                     most, never clearing) and is not checked. The checker
 *                     ignores that address when reading back, and accepts
 *                     either outcome where the racer's debug register decides
 *                     (exactly 4 of the checker's watches on a CPU).
 *   -H        also run a process that makes hits (ksym_hitgen write_a,
 *             write_u32, read, spread) until the writers are done.
 *   -L        legacy rule: a write with no entry at all clears every watch
 *             (the behaviour issue 8 item 1 calls a bug). Default: it changes
 *             nothing. See rule_entryless().
 *   -Z        generate no NUL bytes (for kernels that still truncate at a
 *             NUL, issue 8 item 6). See rule_nul().
 *   -A        per-CPU alias rule: 0xADDRESS:--- also removes the per-CPU
 *             watch whose per-CPU offset is ADDRESS (kernels that match
 *             watches by address alone). Default: a per-CPU watch is only
 *             the per-CPU variable's, never a plain address's.
 *             See rule_percpu_alias().
 *   -G        triggers instead of the filter: -n commands written to the
 *             trigger files of ksym_hitgen_obj_alloc and _free (ksym_watch
 *             and ksym_unwatch, valid and hostile; removals as written, as
 *             shown, cut before '['), while a child allocates, writes and
 *             frees objects (ksym_hitgen object, object_count) and another
 *             flips ksym_trigger_slots. After each write: the return value,
 *             both trigger files against a model of ksym.rst and the
 *             tracing core, and error_log (a refused ksym_* command adds a
 *             line with its command and a caret in it). At the end every
 *             trigger is in trace_stat/ksym_triggers once, is removed as
 *             its file shows it, and leaves no row. -m and -H do not apply.
 *   -W        trailing-text rule: a ksym_* command refused for text after
 *             its entry that is no "if FILTER" (the tracing core's check)
 *             may leave error_log empty. Default: it adds a line, as every
 *             refused ksym_* command does. See rule_trailing_logged().
 *   -f FILE   the filter file (default /sys/kernel/tracing/ksym_trace_filter).
 *   -P FILE   append a progress line to FILE every 5000 writes of a writer
 *             (e.g. /dev/console, so that a long run is not taken for a hang).
 *   -v        print every write.
 *   -T        run the model's self-test (no kernel needed) and exit.
 *
 * Exit status: 0 when every check passed, 1 on a mismatch (the failing input
 * is printed, escaped, with a shell reproducer), 2 on a usage or setup error.
 *
 * The files (each says what it owns and what it may call):
 *   ksym-fuzz.c         the driver: options, main(), setup (kallsyms, CPUs,
 *                       hitgen), the self-tests (-T)
 *   ksym-fuzz-model.c   the model of the watch set and its rules, the
 *                       types and symbols it knows
 *   ksym-fuzz-gen.c     the PRNG and the generators of writes
 *   ksym-fuzz-writer.c  the writers: talking to the kernel, reading back,
 *                       checking against the model; the hit maker
 *   ksym-fuzz-trig.c    -G: the triggers' model, generator and run
 *   ksym-fuzz.h         what they share
 *
 * The driver owns the options (opt) and the run's global state; it may call
 * every other file. The model calls libc (and the triggers' twhy()); the
 * generators call the model (to ask what is valid); the writers call the
 * generators and the model; the triggers' file calls all three.
 */

#include "ksym-fuzz.h"


struct opt_entry opt = {
	.seed = 1,
	.writes = 10000,
	.mode = MODE_SINGLE,
	.filter = FILTER_DEFAULT,
};

int nr_cpus_possible;

uint64_t cpus_possible, cpus_online;

/* -t: CLOCK_MONOTONIC seconds at which no new entry starts (0: none). */
static double deadline;

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

bool out_of_time(void)
{
	return deadline && mono_now() >= deadline;
}

/* ------------------------------------------------------------------------
 * Setup and self-test
 */

static int read_cpus(const char *path, uint64_t *mask)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int ret = -1;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (parse_cpulist(line, mask))
			ret = 0;
	}
	fclose(f);
	return ret;
}

/* The model's watch set as the file reads back: sorted lines. */
static void model_lines(const struct model *m, char *out, size_t size)
{
	static char lines[MAX_WATCHES + 1][TARGET_MAX + 64];
	char *sorted[MAX_WATCHES + 1];
	size_t off = 0;
	int i;

	for (i = 0; i < m->nr; i++) {
		spec_line(&m->w[i], lines[i], sizeof(lines[i]));
		sorted[i] = lines[i];
	}
	qsort(sorted, m->nr, sizeof(sorted[0]), cmp_str);
	out[0] = '\0';
	for (i = 0; i < m->nr; i++)
		off += snprintf(out + off, size > off ? size - off : 0, "%s\n", sorted[i]);
}

/* model_txn() of @text on *@m, as expected? Takes the new set. 0 or 1. */
static int st_txn(struct model *m, const char *text, bool ok, unsigned int errs,
		  int nr, const char *what)
{
	struct outcome o;

	memset(&o, 0, sizeof(o));
	model_txn(m, text, strlen(text), &o);
	if (o.ok != ok || o.errs != errs || (ok && o.after.nr != nr)) {
		char es[128];

		errmask_str(o.errs, es, sizeof(es));
		printf("self-test: %s: ok=%d errs=%s (%s)\n", what, o.ok, es, o.why);
		return 1;
	}
	if (ok)
		*m = o.after;
	return 0;
}

/*
 * The generator against the model, in the made-up kernel: whatever it
 * makes stays within what the model knows (else an internal error exits),
 * every set the model accepts reads back in lines that, written back,
 * give the same set (doc: "a canonical form that can be written back as
 * it is"), and it reaches the new grammar: casts, paths, per-CPU watches,
 * casts cut between writes, and each errno.
 */
static int self_test_gen(void)
{
	static char buf[BUF_MAX], got[65536], back[65536];
	const unsigned int want = EB_EINVAL | EB_ENOENT | EB_ERANGE | EB_E2BIG |
				  EB_ENOSPC | EB_EOPNOTSUPP | EB_EFAULT;
	long i, writes = 20000, accepted = 0, casts = 0, paths = 0, pcpu = 0, cuts = 0;
	long exec_unwritable = 0;
	struct gen g = { 0 };
	struct model m = { 0 };
	unsigned int seen = 0;
	int j, fails = 0;

	g.r.s = 42;
	g.buf = buf;
	g.m = &m;
	for (i = 0; i < writes; i++) {
		struct outcome o, r;
		struct model empty = { 0 };
		size_t n = 0;

		gen_logical(&g);
		cuts += g.cut != 0;
		if (g.n >= WRITE_MAX)
			continue;
		memset(&o, 0, sizeof(o));
		model_txn(&m, buf, g.n, &o);
		seen |= o.errs;
		if (!o.ok)
			continue;
		accepted++;
		m = o.after;
		for (j = 0; j < m.nr; j++) {
			const char *t = m.w[j].target, *c = strchr(t, ')');

			casts += t[0] == '(';
			paths += strcspn(c ? c : t, ".[") < strlen(c ? c : t);
			pcpu += m.w[j].percpu;
		}
		model_lines(&m, got, sizeof(got));
		for (j = 0; j < m.nr; j++) {
			spec_line(&m.w[j], back + n, sizeof(back) - n);
			n += strlen(back + n);
			back[n++] = '\n';
		}
		memset(&r, 0, sizeof(r));
		model_txn(&empty, back, n, &r);
		if (!r.ok && rule_exec_len_checked()) {
			/* Known (rule_exec_len_checked()): is that all it is? */
			exec_len_checked = false;
			memset(&r, 0, sizeof(r));
			model_txn(&empty, back, n, &r);
			exec_len_checked = true;
			exec_unwritable += r.ok;
		}
		if (r.ok)
			model_lines(&r.after, back, sizeof(back));
		if (!r.ok || r.errs || strcmp(got, back)) {
			printf("self-test: generated write %ld: the read-back, written back, is %s:\n%s",
			       i, r.ok ? "another set" : "refused", got);
			printf("  (%s)\n", r.why);
			fails++;
			break;
		}
	}
	printf("ksym-fuzz: self-test: %ld generated writes, %ld accepted; watches seen with a cast %ld, a path %ld, per-CPU %ld; %ld casts to cut\n",
	       writes, accepted, casts, paths, pcpu, cuts);
	if (exec_unwritable)
		printf("ksym-fuzz: self-test: %ld read-backs cannot be written back, all for rule_exec_len_checked() (a --x watch on a field smaller than 8 bytes)\n",
		       exec_unwritable);
	if (!casts || !paths || !pcpu || !cuts || (seen & want) != want) {
		char es[128];

		errmask_str(want & ~seen, es, sizeof(es));
		printf("self-test: the generator does not reach the grammar (errnos never seen: %s)\n", es);
		fails++;
	}
	return fails;
}

/* The model on hand-made cases, with a made-up symbol table. */
struct st_case {
	const char *pend;
	const char *buf;	/* NULL: close */
	size_t n;		/* 0: strlen */
	int ok;			/* 1 accept, 0 refuse, 2 either */
	unsigned int errs;
	const char *after;	/* sorted lines, "" none */
	const char *start;	/* watches before, one per line */
	const char *asym;	/* "%lx" in buf, after, start: its address */
	unsigned long aoff;	/* (default ksym_hitgen_var), plus this */
};

static const struct st_case cases[] = {
	{ "", "ksym_hitgen_var:rw-\n", 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var/8:rw-@1\n", 0, 1, 0, "ksym_hitgen_var/8:rw-@1\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var:rw-@0,1\n", 0, 1, 0, "ksym_hitgen_var/8:rw-@0-1\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var:rw-@2\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_var:r--\n", 0, 0, EB_EOPNOTSUPP, "", "", NULL, 0 },
	{ "", "ksym_hitgen_buf:rw-\n", 0, 1, 0, "ksym_hitgen_buf/8:rw-\n", "", NULL, 0 },
	{ "", "ksym_hitgen_buf+4:rw-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_buf+4/4:-w-\n", 0, 1, 0, "ksym_hitgen_buf+0x4/4:-w-\n", "", NULL, 0 },
	{ "", "ksym_hitgen_buf+4/8:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_buf+010/0x8:rw-\n", 0, 1, 0, "ksym_hitgen_buf+0x8/8:rw-\n", "", NULL, 0 },
	{ "", "jiffies_64:rw-\n", 0, 1, 0, "jiffies_64/8:rw-\n", "", NULL, 0 },
	{ "", "jiffies_64/8:rw- jiffies_64:---\n", 0, 1, 0, "", "", NULL, 0 },
	{ "", "jiffies_64:---\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", "nosuch:rw-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", "ksym_hitgen:ksym_hitgen_var:-w-\n", 0, 1, 0,
	  "ksym_hitgen:ksym_hitgen_var/8:-w-\n", "", NULL, 0 },
	{ "", "ksym_hitgen:jiffies_64/8:-w-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", "ksym_hitgen_write_a:--x\n", 0, 1, 0, "ksym_hitgen_write_a/8:--x\n", "", NULL, 0 },
	{ "", "ksym_hitgen_write_a/4:--x\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_var/8:--x\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "0x1000/8:rw-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "a:rw-", 0, 1, 0, "", "", NULL, 0 },	/* pending */
	{ "ksym_hitgen_v", "ar:rw-\n", 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	{ "ksym_hitgen_var:rw-", NULL, 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	{ "", "0\n", 0, 1, 0, "", "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "", "*:---\n", 0, 1, 0, "", "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "", "\n", 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "", "ksym_hitgen_var:rw-\0\n", 21, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_var:rw- bad\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "jiffies_64/8:rw- pid_max/4:rw- total_forks/8:rw- ksym_hitgen_var:rw- ksym_hitgen_u32/4:rw-\n",
	  0, 0, EB_ENOSPC, "", "", NULL, 0 },
	{ "", "jiffies_64/8:rw-@0 pid_max/4:rw-@0 total_forks/8:rw-@0 ksym_hitgen_var:rw-@0 ksym_hitgen_u32/4:rw-@1\n",
	  0, 1, 0, "jiffies_64/8:rw-@0\nksym_hitgen_u32/4:rw-@1\nksym_hitgen_var/8:rw-@0\npid_max/4:rw-@0\ntotal_forks/8:rw-@0\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var:---@1\n", 0, 0, EB_EINVAL, "ksym_hitgen_var/8:rw-\n",
	  "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "", "0x%lx/8:-w-\n", 0, 1, 0, "0x%lx/8:-w-\n", "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "", "# a comment\nksym_hitgen_var:rw- # another:rw-\n", 0, 1, 0,
	  "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var:rw-#x\n", 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var#:rw-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "# 0\n", 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "ksym_hitgen_var/8:rw-\n", NULL, 0 },
	{ "ksym_hitgen_var:rw- #", NULL, 0, 1, 0, "ksym_hitgen_var/8:rw-\n", "", NULL, 0 },
#define CR	"(struct ksym_hitgen_rec)"
#define CP	"(struct ksym_hitgen_pcpu)"
#define R	"ksym_hitgen_rec"
#define P	"ksym_hitgen_pcpu"
	/* Casts and field paths: offsets, default lengths, canonical form. */
	{ "", CR R ".count:-w-\n", 0, 1, 0, CR R ".count/8:-w-\n", "", NULL, 0 },
	{ "", "(struct  " R ")" R ".name[0x2]:-w-\n", 0, 1, 0, CR R ".name[2]/1:-w-\n", "", NULL, 0 },
	{ "", "( struct\t" R " )" R ".pair[1].hi:rw-\n", 0, 1, 0,
	  CR R ".pair[1].hi/2:rw-\n", "", NULL, 0 },
	{ "", CR R ".name:rw-\n", 0, 1, 0, CR R ".name/8:rw-\n", "", NULL, 0 },
	{ "", CR R ".pair:rw-\n", 0, 1, 0, CR R ".pair/8:rw-\n", "", NULL, 0 },
	{ "", CR R ".pair[1]:rw-\n", 0, 1, 0, CR R ".pair[1]/4:rw-\n", "", NULL, 0 },
	{ "", CR R ".pair[0].lo/1:rw-\n", 0, 1, 0, CR R ".pair[0].lo/1:rw-\n", "", NULL, 0 },
	{ "", CR R ".flags:rw- " CR R ".state/2:-w-\n", 0, 1, 0,
	  CR R ".flags/4:rw-\n" CR R ".state/2:-w-\n", "", NULL, 0 },
	{ "", CR R ":rw-\n", 0, 1, 0, CR R "/8:rw-\n", "", NULL, 0 },
	{ "", R ":rw-\n", 0, 1, 0, R "/8:rw-\n", "", NULL, 0 },
	{ "", "(struct ksym_hitgen_rec)ksym_hitgen:" R ".count:-w-\n", 0, 1, 0,
	  "(struct ksym_hitgen_rec)ksym_hitgen:" R ".count/8:-w-\n", "", NULL, 0 },
	{ "", CP R ".small:-w-\n", 0, 1, 0, CP R ".small/4:-w-\n", "", NULL, 0 },
	{ "", CR R ".name[07]:-w-\n", 0, 1, 0, CR R ".name[7]/1:-w-\n", "", NULL, 0 },
	{ "", CR R ".name[000000000000001]:-w-\n", 0, 1, 0, CR R ".name[1]/1:-w-\n", "", NULL, 0 },
	{ "", CR R ".count+0:-w-\n", 0, 1, 0, CR R ".count/8:-w-\n", "", NULL, 0 },
	{ "", CR R ".flags+4/4:-w-\n", 0, 1, 0, CR R ".flags+0x4/4:-w-\n", "", NULL, 0 },
	/* --x on a field: LEN is sizeof(long); see rule_exec_len_checked(). */
	{ "", CR "ksym_hitgen_read.flags:--x\n", 0, 1, 0, CR "ksym_hitgen_read.flags/8:--x\n",
	  "", NULL, 0 },
	{ "", CR "ksym_hitgen_read.flags/8:--x\n", 0, 1, 0, CR "ksym_hitgen_read.flags/8:--x\n",
	  "", NULL, 0 },
	{ "", CR "ksym_hitgen_read.count/8:--x\n", 0, 1, 0, CR "ksym_hitgen_read.count/8:--x\n",
	  "", NULL, 0 },
	/* Per-CPU: BTF types it, a cast must agree and is not read back. */
	{ "", P ".count:-w-\n", 0, 1, 0, P ".count/8:-w-\n", "", NULL, 0 },
	{ "", CP P ".small:rw-@1\n", 0, 1, 0, P ".small/4:rw-@1\n", "", NULL, 0 },
	{ "", P ":-w-\n", 0, 1, 0, P "/8:-w-\n", "", NULL, 0 },
	{ "", "ksym_hitgen:" P ".count:-w-\n", 0, 1, 0, "ksym_hitgen:" P ".count/8:-w-\n", "", NULL, 0 },
	{ "", P ".pad+8/8:rw-\n", 0, 1, 0, P ".pad+0x8/8:rw-\n", "", NULL, 0 },
	{ "", P "+16/4:-w-\n", 0, 1, 0, P "+0x10/4:-w-\n", "", NULL, 0 },
	/* Errors, each with its errno; nothing changes. */
	{ "", CR R ".nosuch:-w-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", CR R ".count.x:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".name[8]:-w-\n", 0, 0, EB_ERANGE, "", "", NULL, 0 },
	{ "", CR R ".name[010]:-w-\n", 0, 0, EB_ERANGE, "", "", NULL, 0 },
	{ "", CR R ".pair[2].lo:-w-\n", 0, 0, EB_ERANGE, "", "", NULL, 0 },
	{ "", CR R ".flags[0]:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".name[x]:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R "..count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".name[2:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".name[0000000000000001]:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".9x:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".co$unt:-w-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", CR R ".count$:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".state/8:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR R ".pair[1].hi/4:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct " NX_TYPE_PREFIX "_t)" R ".count:-w-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", "(union " R ")" R ".count:-w-\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", CR P ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct " FOREIGN_TYPE ")" P ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR "0x%lx/8:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "ksym_hitgen_var.nx:rw-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", P ".count:--x\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", P ".pad+8:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(strukt " R ")" R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct" R ")" R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct 9x)" R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR CR R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", CR ":-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	/* Entries split at blanks outside a cast only. */
	{ "", CR " " R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct\n" R ")" R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct\v" R ")" R ".count:-w-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct " R " " R ".count:-w- ksym_hitgen_var:rw-\n", 0, 0, EB_EINVAL, "", "", NULL, 0 },
	{ "", "(struct\t" R ")" R ".flags:-w- ksym_hitgen_var:rw-\n", 0, 1, 0,
	  CR R ".flags/4:-w-\nksym_hitgen_var/8:rw-\n", "", NULL, 0 },
	/* A cast cut between two write() calls; applied at close. */
	{ "(struct ksym_hit", "gen_rec)" R ".count:-w-\n", 0, 1, 0, CR R ".count/8:-w-\n", "", NULL, 0 },
	{ "(struct\t", " " R " )" R ".flags:-w-\n", 0, 1, 0, CR R ".flags/4:-w-\n", "", NULL, 0 },
	{ "(struct ", R ")", 0, 1, 0, "", "", NULL, 0 },
	{ "( struct " R ")" R ".count:-w-", NULL, 0, 1, 0, CR R ".count/8:-w-\n", "", NULL, 0 },
	/* A watch is its address: spellings of one address are one watch. */
	{ "", "0x%lx/8:rw-\n", 0, 1, 0, "0x%lx/8:rw-\n", CR R ".count/8:-w-", R, 8 },
	{ "", CR R ".count:-w-\n", 0, 1, 0, CR R ".count/8:-w-\n", "0x%lx/8:rw-", R, 8 },
	{ "", P ".pad+8/8:rw-\n", 0, 1, 0, P ".pad+0x8/8:rw-\n", P ".count/8:-w-", NULL, 0 },
	{ "", CR R ".name[02]:---\n", 0, 1, 0, "", CR R ".name[2]/1:-w-", NULL, 0 },
	{ "", "0x%lx:---\n", 0, 1, 0, "", CR R ".name[2]/1:-w-", R, 18 },
	{ "", CR R ".count:---\n", 0, 0, EB_ENOENT, "", "", NULL, 0 },
	{ "", CP P ":---\n", 0, 1, 0, "", P "/8:rw-", NULL, 0 },
	{ "", R ".count:---\n", 0, 0, EB_EINVAL, CR R ".count/8:-w-\n", CR R ".count/8:-w-", NULL, 0 },
	/* A per-CPU offset is not a plain address. */
	{ "", "0x%lx:---\n", 0, 0, EB_ENOENT, P "/8:rw-\n", P "/8:rw-", P, 0 },
	{ "", "0x%lx/8:rw-\n", 0, 0, EB_EINVAL, "", "", P, 0 },
	/* A per-CPU watch takes a slot on each CPU it watches. */
	{ "", P ".count:rw- " P ".pad:rw- " P ".small:rw- " CR R ".count:rw- ksym_hitgen_var:rw-\n",
	  0, 0, EB_ENOSPC, "", "", NULL, 0 },
	{ "", P ".count:rw-@0 " P ".pad:rw-@0 " P ".small:rw-@0 " CR R ".count:rw-@0 "
	  CR R ".flags:rw-@1\n", 0, 1, 0,
	  CR R ".count/8:rw-@0\n" CR R ".flags/4:rw-@1\n" P ".count/8:rw-@0\n"
	  P ".pad/8:rw-@0\n" P ".small/4:rw-@0\n", "", NULL, 0 },
	{ "", "ksym_hitgen_var:rw-@1\n", 0, 0, EB_ENOSPC,
	  CR R ".flags/4:rw-\n" P ".count/8:rw-\n" P ".pad/8:rw-\n" P ".small/4:rw-\n",
	  P ".count/8:rw-\n" P ".pad/8:rw-\n" P ".small/4:rw-\n" CR R ".flags/4:rw-", NULL, 0 },
#undef CR
#undef CP
#undef R
#undef P
};

/* A made-up kernel for the self-test: two CPUs, every symbol found. */
static void st_fake_kernel(void)
{
	size_t i;

	cpus_possible = cpus_online = 3;
	nr_cpus_possible = 2;
	for (i = 0; i < NR_SYMS; i++) {
		syms[i].found = true;
		syms[i].addr = 0xffffffffc0001000UL + i * 0x100;
		syms[i].dist = syms[i].text ? 0x40 : 0x100;
		/* x86-64: a per-CPU symbol is an offset in the per-CPU area. */
		if (syms[i].percpu)
			syms[i].addr = 0x2f0a0;
	}
	sym_by_name("ksym_hitgen_var")->dist = 8;
	sym_by_name("ksym_hitgen_u32")->dist = 8;
	for (i = 0; i < NR_SYMS; i++)
		syms[i].deflen = default_len(syms[i].addr, sym_size(&syms[i]));
}

/* Self-test case @i of cases[]: 0 passed, 1 failed, -1 could not run. */
static int st_case(size_t i, const struct fsym *v)
{
	struct model m = { 0 };
	struct outcome o;
	char lines[4096], buf[512], start[512], want[4096], *p, *save = NULL;
	size_t n, j;
	struct model *after;
	char *sorted[64];
	size_t ns = 0, off = 0;
	unsigned long a;

	a = (cases[i].asym ? sym_by_name(cases[i].asym)->addr : v->addr) + cases[i].aoff;
	if (cases[i].n)
		memcpy(buf, cases[i].buf, cases[i].n);
	else
		snprintf(buf, sizeof(buf), cases[i].buf ? cases[i].buf : "", a);
	snprintf(start, sizeof(start), cases[i].start, a);
	for (p = strtok_r(start, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		memset(&o, 0, sizeof(o));
		model_txn(&m, p, strlen(p), &o);
		if (!o.ok) {
			printf("self-test %zu: start '%s' refused\n", i, p);
			return -1;
		}
		m = o.after;
	}
	n = cases[i].n ? cases[i].n : strlen(buf);
	if (cases[i].buf)
		model_write(&m, cases[i].pend, strlen(cases[i].pend), buf, n, &o);
	else
		model_close(&m, cases[i].pend, strlen(cases[i].pend), false, false, &o);
	after = o.ok ? &o.after : &m;
	for (j = 0; j < (size_t)after->nr; j++) {
		sorted[ns] = malloc(TARGET_MAX + 64);
		if (!sorted[ns])
			return -1;
		spec_line(&after->w[j], sorted[ns], TARGET_MAX + 64);
		ns++;
	}
	qsort(sorted, ns, sizeof(sorted[0]), cmp_str);
	lines[0] = '\0';
	for (j = 0; j < ns; j++) {
		off += snprintf(lines + off, sizeof(lines) - off, "%s\n", sorted[j]);
		free(sorted[j]);
	}
	snprintf(want, sizeof(want), cases[i].after, a);
	if ((cases[i].ok == 1 && (!o.ok || o.errs)) ||
	    (cases[i].ok == 0 && o.ok) ||
	    (cases[i].ok == 2 && !(o.ok && o.errs)) ||
	    ((o.errs & cases[i].errs) != cases[i].errs) ||
	    (cases[i].errs && (o.errs & ~cases[i].errs)) ||
	    strcmp(lines, want)) {
		char es[128];

		errmask_str(o.errs, es, sizeof(es));
		printf("self-test %zu FAILED: '", i);
		if (cases[i].buf)
			escape(stdout, buf, n, 200);
		else
			printf("(close)");
		printf("': ok=%d errs=%s (%s), set:\n%s", o.ok, es, o.why, lines);
		return 1;
	}
	return 0;
}

/* At most RULE_MAX_ENTRIES entries per write. */
static int st_entry_limits(void)
{
	static char big[4096];
	struct model m = { 0 };
	struct outcome o;
	size_t k, n = 0;
	int fails = 0;

	for (k = 0; k < RULE_MAX_ENTRIES + 1; k++)
		n += snprintf(big + n, sizeof(big) - n, "ksym_hitgen_var:rw- ");
	big[n - 1] = '\n';
	model_write(&m, "", 0, big, n, &o);
	if (o.ok || o.errs != EB_E2BIG) {
		printf("self-test: %d entries accepted\n", RULE_MAX_ENTRIES + 1);
		fails++;
	}
	n -= strlen("ksym_hitgen_var:rw- ");
	big[n - 1] = '\n';
	model_write(&m, "", 0, big, n, &o);
	if (!o.ok || o.errs || o.after.nr != 1) {
		printf("self-test: %d entries refused\n", RULE_MAX_ENTRIES);
		fails++;
	}
	/* O_TRUNC and nothing but blanks written: clears. */
	m = o.after;
	model_close(&m, "", 0, true, false, &o);
	if (!o.ok || o.after.nr)
		fails++, printf("self-test: O_TRUNC close did not clear\n");
	model_close(&m, " \t", 2, true, false, &o);
	if (!o.ok || o.after.nr)
		fails++, printf("self-test: O_TRUNC close of blanks did not clear\n");
	model_close(&m, "", 0, true, true, &o);
	if (!o.ok || o.after.nr != 1)
		fails++, printf("self-test: O_TRUNC close after a write cleared\n");
	model_close(&m, "ksym_hitgen_u32/4:rw-", 21, true, false, &o);
	if (!o.ok || o.after.nr != 2)
		fails++, printf("self-test: O_TRUNC close with an entry cleared\n");
	model_close(&m, "", 0, false, false, &o);
	if (!o.ok || o.after.nr != 1)
		fails++, printf("self-test: close without O_TRUNC cleared\n");
	/* A comment is not blanks; a refused write counts as written. */
	if (!rule_wrote("  # c", 5, false) || rule_wrote(" \n\t", 3, false) ||
	    !rule_wrote("", 0, true))
		fails++, printf("self-test: rule_wrote\n");
	return fails;
}

/* Without BTF: casts and paths are refused, a module's per-CPU data too. */
static int st_no_btf(void)
{
	struct model m = { 0 };
	int fails = 0;

	have_btf = false;
	fails += st_txn(&m, "(struct ksym_hitgen_rec)ksym_hitgen_rec.count:-w-", false,
			EB_EINVAL, 0, "no BTF: a cast");
	fails += st_txn(&m, "ksym_hitgen_pcpu:-w-", false, EB_EOPNOTSUPP, 0,
			"no BTF: a module's per-CPU variable");
	fails += st_txn(&m, "ksym_hitgen_rec:-w-", true, 0, 1, "no BTF: a plain symbol");
	have_btf = true;
	return fails;
}

/* -A: 0xADDRESS:--- removes the per-CPU watch at that offset. */
static int st_percpu_alias(void)
{
	struct model m = { 0 };
	char t[64];
	int fails = 0;

	snprintf(t, sizeof(t), "0x%lx:---", sym_by_name("ksym_hitgen_pcpu")->addr + 8);
	fails += st_txn(&m, "ksym_hitgen_pcpu.count:rw-", true, 0, 1, "per-CPU watch");
	fails += st_txn(&m, t, false, EB_ENOENT, 1, "per-CPU offset as 0xADDRESS");
	opt.percpu_alias = true;
	fails += st_txn(&m, t, true, 0, 0, "-A: per-CPU offset as 0xADDRESS");
	opt.percpu_alias = false;
	return fails;
}

/* The blanks of a cast count towards an entry's 1023 characters. */
static int st_cast_blanks(void)
{
	static const char tail[] = " ksym_hitgen_rec)ksym_hitgen_rec.count:-w-";
	static char t[ENTRY_MAX + 8];
	struct model m = { 0 };
	size_t k, n;
	int fails = 0;

	for (k = 0; k < 2; k++) {
		n = snprintf(t, sizeof(t), "(struct");
		for (; n < ENTRY_MAX - 1 + k - strlen(tail); n++)
			t[n] = n % 7 ? ' ' : '\t';
		strcpy(t + n, tail);
		fails += st_txn(&m, t, !k, k ? EB_E2BIG : 0, 1,
				k ? "a 1024-character cast entry" : "a 1023-character cast entry");
	}
	return fails;
}

static int self_test(void)
{
	const struct fsym *v;
	int fails = 0, r;
	size_t i;

	st_fake_kernel();
	v = sym_by_name("ksym_hitgen_var");
	for (i = 0; i < N(cases); i++) {
		r = st_case(i, v);
		if (r < 0)
			return 1;
		fails += r;
	}
	fails += st_entry_limits();
	fails += st_no_btf();
	fails += st_percpu_alias();
	fails += st_cast_blanks();
	printf("ksym-fuzz: self-test: %zu cases, %d failed\n", N(cases) + 16, fails);
	fails += self_test_gen();
	fails += self_test_triggers();
	return fails ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ksym-fuzz [-s SEED] [-n WRITES] [-t SECONDS] [-m single|lock|race] [-H] [-L] [-Z] [-A] [-G] [-W] [-f FILTER] [-P FILE] [-v] [-T]\n");
}

/* The options into opt: 0, 1 when -T asks for the self-test, -1 bad usage. */
static int parse_options(int argc, char **argv)
{
	char *end;
	int c;

	while ((c = getopt(argc, argv, "s:n:t:m:HLZAGWf:P:vT")) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, &end, 0);
			if (*end)
				return -1;
			break;
		case 'n':
			opt.writes = strtol(optarg, &end, 0);
			if (*end || opt.writes < 1)
				return -1;
			opt.writes_given = true;
			break;
		case 't':
			opt.seconds = strtol(optarg, &end, 0);
			if (*end || opt.seconds < 1)
				return -1;
			break;
		case 'm':
			if (!strcmp(optarg, "single"))
				opt.mode = MODE_SINGLE;
			else if (!strcmp(optarg, "lock"))
				opt.mode = MODE_LOCK;
			else if (!strcmp(optarg, "race"))
				opt.mode = MODE_RACE;
			else
				return -1;
			break;
		case 'H': opt.hits = true; break;
		case 'L': opt.legacy_blank = true; break;
		case 'Z': opt.no_nul = true; break;
		case 'A': opt.percpu_alias = true; break;
		case 'G': opt.triggers = true; break;
		case 'W': opt.trailing_unlogged = true; break;
		case 'f': opt.filter = optarg; break;
		case 'P': opt.progress = optarg; break;
		case 'v': opt.verbose = true; break;
		case 'T': return 1;
		default:
			return -1;
		}
	}
	return optind != argc ? -1 : 0;
}

/* The symbols the model uses, as /proc/kallsyms shows them: 0, or 2. */
static int check_symbols(void)
{
	int i;

	for (i = 0; i < (int)NR_SYMS; i++) {
		if (!syms[i].found && syms[i].mod) {
			fprintf(stderr, "ksym-fuzz: %s not in /proc/kallsyms (modprobe ksym_hitgen)\n",
				syms[i].name);
			return 2;
		}
		if (!syms[i].found)
			continue;
		if (!syms[i].addr) {
			fprintf(stderr, "ksym-fuzz: /proc/kallsyms shows no addresses (kptr_restrict?)\n");
			return 2;
		}
		if (syms[i].percpu) {
			/* x86-64: kallsyms gives the offset in the per-CPU area. */
			if (!is_user_addr(syms[i].addr)) {
				fprintf(stderr, "ksym-fuzz: per-CPU %s at 0x%lx: the model expects an offset in the per-CPU area (x86-64)\n",
					syms[i].name, syms[i].addr);
				return 2;
			}
			printf("ksym-fuzz: %-20s %-12s 0x%lx per-CPU offset, struct %s (%u bytes), default LEN %d\n",
			       syms[i].name, syms[i].mod ? syms[i].mod : "vmlinux", syms[i].addr,
			       syms[i].ctype->name, syms[i].ctype->size, syms[i].deflen);
			continue;
		}
		printf("ksym-fuzz: %-20s %-12s 0x%lx next symbol +%ld, default LEN %d%s\n",
		       syms[i].name, syms[i].mod ? syms[i].mod : "vmlinux", syms[i].addr,
		       syms[i].dist, syms[i].deflen, syms[i].initmem ? " (init memory)" : "");
	}
	return 0;
}

/* Start from no watch (and check that "0" does that): 0, 1 or 2. */
static int clear_filter(void)
{
	char got[4096];
	int fd = open(opt.filter, O_WRONLY);

	if (fd < 0 || write(fd, "0\n", 2) != 2) {
		fprintf(stderr, "ksym-fuzz: cannot clear %s: %s\n", opt.filter,
			strerror(errno));
		return 2;
	}
	close(fd);
	if (read_back(got, sizeof(got)) != 0) {
		printf("ksym-fuzz: FAIL: '0' left watches:\n%s", got);
		return 1;
	}
	return 0;
}

/* The writers of -m (one, or two processes): their exit status. */
static int run_writers(pid_t *pids)
{
	int i, nw, status, ret;

	nw = opt.mode == MODE_SINGLE ? 1 : 2;
	if (nw == 1) {
		ret = writer(0);
	} else {
		ret = 0;
		for (i = 0; i < nw; i++) {
			pids[i] = fork();
			if (pids[i] < 0) {
				perror("ksym-fuzz: fork");
				ret = 2;
				break;
			}
			if (!pids[i])
				_exit(writer(i));
		}
		for (i = 0; i < nw; i++) {
			if (pids[i] <= 0)
				continue;
			if (waitpid(pids[i], &status, 0) < 0 || !WIFEXITED(status) ||
			    WEXITSTATUS(status)) {
				printf("ksym-fuzz: writer %d failed (status 0x%x)\n", i, status);
				if (!ret)
					ret = 1;
				/* One mismatch is enough: stop the other writer. */
				if (pids[1 - i] > 0)
					kill(pids[1 - i], SIGTERM);
			}
			pids[i] = 0;
		}
	}
	return ret;
}

/* Each writer's counts, and the closing line's sums (*@tw ...). */
static void print_writers(long *tw, long *ta, long *tr, long *tc)
{
	int i;

	for (i = 0; i < 2; i++) {
		size_t e;

		if (!sh->writes[i])
			continue;
		printf("ksym-fuzz: writer %d: %ld writes (%ld accepted, %ld refused:", i,
		       sh->writes[i], sh->accepted[i], sh->refused[i]);
		for (e = 0; e <= NR_ERRNOS; e++)
			if (sh->errcount[i][e])
				printf(" %s %ld", e < NR_ERRNOS ? errnos[e].name : "other",
				       sh->errcount[i][e]);
		printf("), %ld closes\n", sh->closes[i]);
		*tw += sh->writes[i];
		*ta += sh->accepted[i];
		*tr += sh->refused[i];
		*tc += sh->closes[i];
	}
}

/*
 * What the run needs of the kernel: the CPU masks, the symbols, whether
 * there is BTF, the racer's address, the writers' shared page. 0, or 2.
 */
static int setup(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (opt.seconds) {
		deadline = mono_now() + opt.seconds;
		if (!opt.writes_given)
			opt.writes = 1000000000;	/* the time ends the run */
		printf("ksym-fuzz: time budget %ld s%s\n", opt.seconds,
		       opt.writes_given ? " or -n writes, whichever comes first" : "");
	}

	if (read_cpus("/sys/devices/system/cpu/possible", &cpus_possible) ||
	    read_cpus("/sys/devices/system/cpu/online", &cpus_online)) {
		fprintf(stderr, "ksym-fuzz: cannot read the CPU masks\n");
		return 2;
	}
	nr_cpus_possible = __builtin_popcountll(cpus_possible);
	if (load_kallsyms("/proc/kallsyms"))
		return 2;
	if (check_symbols())
		return 2;
	/* Without BTF, casts and paths are refused (doc); the model follows. */
	have_btf = !access("/sys/kernel/btf/vmlinux", R_OK);
	if (!have_btf)
		printf("ksym-fuzz: no /sys/kernel/btf/vmlinux: casts and field paths must be refused\n");
	else if (access("/sys/kernel/btf/ksym_hitgen", R_OK)) {
		/* The model's types are the module's: BTF of vmlinux alone is a third case. */
		fprintf(stderr, "ksym-fuzz: BTF for vmlinux but not for ksym_hitgen (CONFIG_DEBUG_INFO_BTF_MODULES): the model does not cover that\n");
		return 2;
	}
	racer_addr = sym_by_name("ksym_hitgen_buf")->addr + RACER_OFF;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("ksym-fuzz: mmap");
		return 2;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pids[3] = { 0 };
	int status, ret = 2;
	long tw = 0, ta = 0, tr = 0, tc = 0;

	ret = parse_options(argc, argv);
	if (ret) {
		if (ret > 0)
			return self_test();
		usage();
		return 2;
	}
	ret = 2;
	ret = setup();
	if (ret)
		return ret;
	ret = 2;
	if (opt.triggers) {
		printf("ksym-fuzz: triggers: seed %" PRIu64 ", %ld writes%s, CPUs online 0x%" PRIx64 "\n",
		       opt.seed, opt.writes, opt.trailing_unlogged ? ", trailing text unlogged (-W)" : "",
		       cpus_online);
		if (!have_btf) {
			fprintf(stderr, "ksym-fuzz: -G needs BTF (the triggers' paths)\n");
			return 2;
		}
		return trig_run();
	}
	/* Start from no watch (and check that "0" does that). */
	ret = clear_filter();
	if (ret)
		return ret;
	ret = 2;
	printf("ksym-fuzz: seed %" PRIu64 ", %ld writes, mode %s%s%s%s%s, CPUs possible 0x%" PRIx64 " online 0x%" PRIx64 "\n",
	       opt.seed, opt.writes,
	       opt.mode == MODE_SINGLE ? "single" : opt.mode == MODE_LOCK ? "lock" : "race",
	       opt.hits ? ", hits" : "", opt.legacy_blank ? ", legacy blank (-L)" : "",
	       opt.no_nul ? ", no NUL (-Z)" : "",
	       opt.percpu_alias ? ", per-CPU alias (-A)" : "", cpus_possible, cpus_online);

	if (opt.hits) {
		pids[2] = fork();
		if (pids[2] < 0) {
			perror("ksym-fuzz: fork");
			goto cleanup;
		}
		if (!pids[2])
			_exit(hitter());
	}
	ret = run_writers(pids);
cleanup:
	sh->stop = 1;
	if (pids[2] > 0) {
		if (waitpid(pids[2], &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			printf("ksym-fuzz: the hit generator failed\n");
			if (!ret)
				ret = 1;
		}
	}
	print_writers(&tw, &ta, &tr, &tc);
	/* Leave no watch behind. */
	{
		int fd = open(opt.filter, O_WRONLY);

		if (fd >= 0) {
			if (write(fd, "0\n", 2) != 2)
				printf("ksym-fuzz: clearing at the end failed: %s\n", strerror(errno));
			close(fd);
		}
	}
	printf("ksym-fuzz: %s: %ld writes, %ld accepted, %ld refused, %ld closes, seed %" PRIu64 "\n",
	       ret ? "FAIL" : "PASS", tw, ta, tr, tc, opt.seed);
	return ret;
}
