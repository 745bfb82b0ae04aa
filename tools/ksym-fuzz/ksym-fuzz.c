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
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FILTER_DEFAULT	"/sys/kernel/tracing/ksym_trace_filter"
#define HITGEN_DIR	"/sys/kernel/debug/ksym_hitgen"
#define LOCK_FILE	"/tmp/ksym-fuzz.lock"

/* Limits as Documentation/trace/ksym.rst states them. */
#define ENTRY_MAX	1024	/* "an entry is at most 1023 characters" */
#define WRITE_MAX	4096	/* "at most 4095 bytes are applied as one write" */
#define MAX_WATCHES	32	/* ENOSPC: "more than 32 watches" */
#define HW_SLOTS	4	/* x86 debug registers per CPU */
#define MAX_CPUS	64
#define TARGET_MAX	1100
#define BUF_MAX		(3 * WRITE_MAX)

/* Access bits as the doc's event table numbers them. */
#define ACC_R	1
#define ACC_W	2
#define ACC_RW	3
#define ACC_X	4

/* Errnos as a bit set. */
enum {
	EB_EINVAL	= 1 << 0,
	EB_ENOENT	= 1 << 1,
	EB_EOPNOTSUPP	= 1 << 2,
	EB_EFAULT	= 1 << 3,
	EB_EPERM	= 1 << 4,
	EB_ENOSPC	= 1 << 5,
	EB_E2BIG	= 1 << 6,
	EB_ERANGE	= 1 << 7,
	EB_EEXIST	= 1 << 8,
	EB_OTHER	= 1 << 9,
};

static const struct {
	int err;
	unsigned int bit;
	const char *name;
} errnos[] = {
	{ EINVAL, EB_EINVAL, "EINVAL" },
	{ ENOENT, EB_ENOENT, "ENOENT" },
	{ EOPNOTSUPP, EB_EOPNOTSUPP, "EOPNOTSUPP" },
	{ EFAULT, EB_EFAULT, "EFAULT" },
	{ EPERM, EB_EPERM, "EPERM" },
	{ ENOSPC, EB_ENOSPC, "ENOSPC" },
	{ E2BIG, EB_E2BIG, "E2BIG" },
	{ ERANGE, EB_ERANGE, "ERANGE" },
	{ EEXIST, EB_EEXIST, "EEXIST" },
};
#define NR_ERRNOS (sizeof(errnos) / sizeof(errnos[0]))

static unsigned int errno_bit(int err)
{
	size_t i;

	for (i = 0; i < NR_ERRNOS; i++)
		if (errnos[i].err == err)
			return errnos[i].bit;
	return EB_OTHER;
}

static void errmask_str(unsigned int mask, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_ERRNOS; i++)
		if (mask & errnos[i].bit)
			n += snprintf(buf + n, size - n, "%s%s", n ? "|" : "",
				      errnos[i].name);
	if (mask & EB_OTHER)
		snprintf(buf + n, size - n, "%sother", n ? "|" : "");
	if (!mask)
		snprintf(buf, size, "none");
}

/* ------------------------------------------------------------------------
 * Options and global state
 */

enum mode { MODE_SINGLE, MODE_LOCK, MODE_RACE };

static struct {
	uint64_t seed;
	long writes;
	bool writes_given;
	long seconds;
	enum mode mode;
	bool hits;
	bool legacy_blank;
	bool no_nul;
	bool percpu_alias;
	bool verbose;
	bool triggers;
	bool trailing_unlogged;
	const char *filter;
	const char *progress;
} opt = {
	.seed = 1,
	.writes = 10000,
	.mode = MODE_SINGLE,
	.filter = FILTER_DEFAULT,
};

static int nr_cpus_possible;
static uint64_t cpus_possible, cpus_online;

/* -t: CLOCK_MONOTONIC seconds at which no new entry starts (0: none). */
static double deadline;

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool out_of_time(void)
{
	return deadline && mono_now() >= deadline;
}

/* ------------------------------------------------------------------------
 * PRNG: splitmix64, one stream per writer.
 */

struct rng {
	uint64_t s;
};

static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static unsigned int rnd(struct rng *r, unsigned int n)
{
	return n ? rng_next(r) % n : 0;
}

/* True with probability pct percent. */
static bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

/* ------------------------------------------------------------------------
 * Types: what the model knows of the kernel's BTF, which is the layout of
 * ksym_hitgen's two structs (kernel/trace/ksym_hitgen.c):
 *
 *	struct ksym_hitgen_rec {			 32 bytes
 *		u32 flags;				@0
 *		u32 state;				@4
 *		unsigned long count;			@8
 *		char name[8];				@16
 *		struct { u16 lo; u16 hi; } pair[2];	@24, 4 bytes each
 *	};
 *	struct ksym_hitgen_pcpu {			 24 bytes
 *		unsigned long pad;			@0
 *		unsigned long count;			@8
 *		u32 small;				@16
 *	};
 *
 * Doc ("Struct fields and per-CPU variables"): BTF types only per-CPU
 * variables, so ksym_hitgen_rec needs the cast and ksym_hitgen_pcpu does
 * not (a cast on it must agree).
 */

enum tkind { TK_INT, TK_STRUCT, TK_ARRAY };

struct ftype;

struct fmember {
	const char *name;
	unsigned int off;
	const struct ftype *type;
};

struct ftype {
	enum tkind kind;
	const char *name;		/* a named struct's name, else NULL */
	unsigned int size;
	const struct fmember *members;	/* TK_STRUCT */
	unsigned int nmembers;
	const struct ftype *elem;	/* TK_ARRAY */
	unsigned int nelems;
};

static const struct ftype t_u8 = { .kind = TK_INT, .size = 1 };
static const struct ftype t_u16 = { .kind = TK_INT, .size = 2 };
static const struct ftype t_u32 = { .kind = TK_INT, .size = 4 };
static const struct ftype t_ulong = { .kind = TK_INT, .size = 8 };
static const struct fmember m_pair[] = {
	{ "lo", 0, &t_u16 }, { "hi", 2, &t_u16 },
};
static const struct ftype t_pair_elem = {
	.kind = TK_STRUCT, .size = 4, .members = m_pair, .nmembers = 2,
};
static const struct ftype t_pair = {
	.kind = TK_ARRAY, .size = 8, .elem = &t_pair_elem, .nelems = 2,
};
static const struct ftype t_name = {
	.kind = TK_ARRAY, .size = 8, .elem = &t_u8, .nelems = 8,
};
static const struct fmember m_rec[] = {
	{ "flags", 0, &t_u32 }, { "state", 4, &t_u32 }, { "count", 8, &t_ulong },
	{ "name", 16, &t_name }, { "pair", 24, &t_pair },
};
static const struct ftype t_rec = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_rec", .size = 32,
	.members = m_rec, .nmembers = 5,
};
static const struct fmember m_pcpu[] = {
	{ "pad", 0, &t_ulong }, { "count", 8, &t_ulong }, { "small", 16, &t_u32 },
};
static const struct ftype t_pcpu = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_pcpu", .size = 24,
	.members = m_pcpu, .nmembers = 3,
};
static const struct ftype *const named_types[] = { &t_rec, &t_pcpu };

/*
 * Cast type names outside named_types[] the generator uses: a real kernel
 * struct (its layout unknown here, so only where BTF types the symbol and
 * the cast must be refused), and names no kernel has.
 */
#define FOREIGN_TYPE	"task_struct"
#define NX_TYPE_PREFIX	"ksym_fuzz_nx"

/* ------------------------------------------------------------------------
 * Symbols the fuzzer uses, resolved from /proc/kallsyms at startup.
 */

struct fsym {
	const char *name;
	const char *mod;	/* owning module, NULL: vmlinux */
	bool text;		/* function: --x allowed */
	bool initmem;		/* __initdata, freed after boot: must be refused */
	bool racer;		/* the racing writer's (in -m race, the checker avoids it) */
	unsigned int size;	/* the object's size, for picking lengths */
	const unsigned int *offs;	/* offsets the generator uses (besides 0) */
	unsigned int noffs;
	const struct ftype *ctype;	/* its C type, if a struct (casts, paths) */
	bool percpu;		/* DEFINE_PER_CPU: BTF types it (ctype) */
	/* From /proc/kallsyms: */
	unsigned long addr;
	long dist;		/* to the next higher symbol of the same owner, -1 unknown */
	int deflen;		/* default LEN (default_len()), -1 unknown */
	bool found;
};

/*
 * Documentation/trace/ksym.rst: without /LEN a SYMBOL is watched over its
 * size (the distance to the next symbol; for a field or a symbol BTF
 * types, its real size) when that is 1, 2, 4 or 8 bytes, else over the
 * first naturally aligned word it starts with (8, 4, 2 or 1 bytes by
 * alignment and size). @size -1: unknown; 0: none (/LEN must be given).
 * (A size of 1, 2, 4 or 8 at an address not aligned to it is the case
 * the doc leaves out: the kernel takes the first aligned word then too.)
 */
static int default_len(unsigned long addr, long size)
{
	int len;

	if (size < 0)
		return -1;
	if (!size)
		return 0;
	if ((size == 1 || size == 2 || size == 4 || size == 8) && addr % size == 0)
		return size;
	for (len = 8; len > 1; len /= 2)
		if (len <= size && addr % len == 0)
			return len;
	return 1;
}

static const unsigned int offs_buf[] = { 1, 2, 3, 4, 6, 7 };
static const unsigned int offs_jiffies[] = { 8, 16, 56 };
static const unsigned int offs_pid_max[] = { 4 };
static const unsigned int offs_text[] = { 1, 2, 3 };
static const unsigned int offs_rec[] = { 4, 8, 16, 18, 24, 28 };
static const unsigned int offs_pcpu[] = { 8, 16 };

#define NOFFS(a) (sizeof(a) / sizeof(a[0]))
#define SYM(n, m, t, i, sz) .name = n, .mod = m, .text = t, .initmem = i, .size = sz

static struct fsym syms[] = {
	{ SYM("ksym_hitgen_var", "ksym_hitgen", false, false, 8) },
	{ SYM("ksym_hitgen_u32", "ksym_hitgen", false, false, 4) },
	{ SYM("ksym_hitgen_buf", "ksym_hitgen", false, false, 16),
	  .offs = offs_buf, .noffs = NOFFS(offs_buf) },
	{ SYM("jiffies_64", NULL, false, false, 8),
	  .offs = offs_jiffies, .noffs = NOFFS(offs_jiffies) },
	{ SYM("pid_max", NULL, false, false, 4),
	  .offs = offs_pid_max, .noffs = NOFFS(offs_pid_max) },
	{ SYM("total_forks", NULL, false, false, 8) },
	{ SYM("ksym_hitgen_write_a", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("ksym_hitgen_write_b", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("ksym_hitgen_read", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("boot_command_line", NULL, false, true, 8) },
	{ SYM("ksym_hitgen_rec", "ksym_hitgen", false, false, 32),
	  .offs = offs_rec, .noffs = NOFFS(offs_rec), .ctype = &t_rec },
	{ SYM("ksym_hitgen_pcpu", "ksym_hitgen", false, false, 24),
	  .offs = offs_pcpu, .noffs = NOFFS(offs_pcpu), .ctype = &t_pcpu,
	  .percpu = true },
};
#define NR_SYMS (sizeof(syms) / sizeof(syms[0]))

/* The racing writer's address: ksym_hitgen_buf+8 (the checker uses +0..+7). */
#define RACER_OFF 8
static unsigned long racer_addr;

/* Addresses with no readable kernel memory or in user space. */
static const unsigned long bad_addrs[] = {
	0x0UL, 0x1000UL, 0x7fff00000000UL, 0x8000000000000000UL,
	0xffffffffff600000UL, 0xfffffffffffff000UL,
};
#define NR_BAD_ADDRS (sizeof(bad_addrs) / sizeof(bad_addrs[0]))

static struct fsym *sym_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SYMS; i++)
		if (syms[i].found && !strcmp(syms[i].name, name))
			return &syms[i];
	return NULL;
}

/* The symbol whose extent holds addr (extent: dist, or size if unknown). */
static struct fsym *sym_by_addr(unsigned long addr, unsigned long *off)
{
	size_t i;

	for (i = 0; i < NR_SYMS; i++) {
		unsigned long ext;

		/* 0xADDRESS is never a per-CPU variable's (doc). */
		if (!syms[i].found || syms[i].percpu)
			continue;
		ext = syms[i].dist > 0 ? (unsigned long)syms[i].dist : syms[i].size;
		if (ext < 16)
			ext = 16;
		if (addr >= syms[i].addr && addr - syms[i].addr < ext) {
			*off = addr - syms[i].addr;
			return &syms[i];
		}
	}
	return NULL;
}

/*
 * The size the kernel knows of a plain SYMBOL: its BTF type's where BTF
 * types it (per-CPU variables), else the distance to the next symbol.
 */
static long sym_size(const struct fsym *s)
{
	return s->percpu ? (long)s->ctype->size : s->dist;
}

struct ksline {
	unsigned long addr;
	char owner[64];
};

/* Every name in /proc/kallsyms, sorted: names the model does not know. */
static char **ksnames;
static size_t nksnames;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool kallsyms_has(const char *name)
{
	return nksnames && bsearch(&name, ksnames, nksnames, sizeof(*ksnames), cmp_name);
}

static int cmp_ksline(const void *a, const void *b)
{
	const struct ksline *x = a, *y = b;
	int c = strcmp(x->owner, y->owner);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Resolve syms[] from /proc/kallsyms. kallsyms knows no sizes: the default
 * LEN is the distance to the next symbol (doc, "LEN"), computed here from
 * the same listing among the symbols of the same owner.
 */
static int load_kallsyms(const char *path)
{
	struct ksline *all = NULL;
	size_t nall = 0, cap = 0, i, j;
	char line[512];
	FILE *f;
	int ret = -1;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ksym-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], owner[64] = "";
		unsigned long addr;
		int n;

		n = sscanf(line, "%lx %c %255s [%63[^]]]", &addr, &type, name, owner);
		if (n < 3)
			continue;
		if (nall == cap) {
			struct ksline *p;

			cap = cap ? 2 * cap : 65536;
			p = realloc(all, cap * sizeof(*all));
			if (!p)
				goto out;
			all = p;
		}
		all[nall].addr = addr;
		snprintf(all[nall].owner, sizeof(all[nall].owner), "%s", owner);
		nall++;
		if (nksnames % 65536 == 0) {
			char **p = realloc(ksnames, (nksnames + 65536) * sizeof(*ksnames));

			if (!p)
				goto out;
			ksnames = p;
		}
		ksnames[nksnames] = strdup(name);
		if (!ksnames[nksnames])
			goto out;
		nksnames++;
		for (i = 0; i < NR_SYMS; i++) {
			const char *m = syms[i].mod ? syms[i].mod : "";

			if (!strcmp(name, syms[i].name) && !strcmp(owner, m)) {
				syms[i].addr = addr;
				syms[i].found = true;
			}
		}
	}
	qsort(all, nall, sizeof(*all), cmp_ksline);
	qsort(ksnames, nksnames, sizeof(*ksnames), cmp_name);
	for (i = 0; i < NR_SYMS; i++) {
		const char *m = syms[i].mod ? syms[i].mod : "";

		syms[i].dist = -1;
		if (!syms[i].found)
			continue;
		for (j = 0; j < nall; j++) {
			if (strcmp(all[j].owner, m) || all[j].addr <= syms[i].addr)
				continue;
			syms[i].dist = all[j].addr - syms[i].addr;
			break;
		}
		syms[i].deflen = default_len(syms[i].addr, sym_size(&syms[i]));
	}
	ret = 0;
out:
	fclose(f);
	free(all);
	return ret;
}

/* ------------------------------------------------------------------------
 * The model: a watch set, per Documentation/trace/ksym.rst.
 */

struct spec {
	unsigned long addr;
	unsigned int len;
	unsigned int access;
	uint64_t cpus;		/* 0: every CPU */
	bool percpu;		/* addr is a per-CPU variable's offset */
	char target[TARGET_MAX];
};

struct model {
	int nr;
	struct spec w[MAX_WATCHES + 1];
};

/*
 * What a write(2) or close(2) may do: succeed, leaving @after, and/or fail
 * with one of @errs, leaving the set as it was. Both set: either is right
 * (the model then follows what the kernel did).
 */
struct outcome {
	bool ok;
	unsigned int errs;
	size_t entries;		/* entries the applied text had */
	struct model after;
	char why[256];
};

static void why(struct outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void why(struct outcome *o, const char *fmt, ...)
{
	size_t n = strlen(o->why);
	va_list ap;

	if (n >= sizeof(o->why) - 2)
		return;
	if (n)
		o->why[n++] = ';', o->why[n++] = ' ', o->why[n] = '\0';
	va_start(ap, fmt);
	vsnprintf(o->why + n, sizeof(o->why) - n, fmt, ap);
	va_end(ap);
}

static const char *access_str(unsigned int access)
{
	switch (access) {
	case ACC_RW: return "rw-";
	case ACC_W: return "-w-";
	case ACC_R: return "r--";
	case ACC_X: return "--x";
	}
	return "---";
}

static void cpulist_str(uint64_t mask, char *buf, size_t size)
{
	size_t n = 0;
	int c = 0;

	buf[0] = '\0';
	while (c < MAX_CPUS) {
		int e;

		if (!(mask & (1ULL << c))) {
			c++;
			continue;
		}
		for (e = c; e + 1 < MAX_CPUS && (mask & (1ULL << (e + 1))); e++)
			;
		if (e == c)
			n += snprintf(buf + n, size - n, "%s%d", n ? "," : "", c);
		else
			n += snprintf(buf + n, size - n, "%s%d-%d", n ? "," : "", c, e);
		c = e + 1;
	}
}

/* The canonical line of a watch (doc: "TARGET/LEN:ACCESS[@CPULIST]"). */
static void spec_line(const struct spec *s, char *buf, size_t size)
{
	char cpus[256];

	if (s->cpus) {
		cpulist_str(s->cpus, cpus, sizeof(cpus));
		snprintf(buf, size, "%s/%u:%s@%s", s->target, s->len,
			 access_str(s->access), cpus);
	} else {
		snprintf(buf, size, "%s/%u:%s", s->target, s->len,
			 access_str(s->access));
	}
}

/*
 * A watch is its address (doc: an entry for an address already watched
 * changes that watch, whatever its spelling). A per-CPU variable's address
 * is its offset in the per-CPU area: another kind of address than any
 * plain one, even where the numbers are equal.
 */
static struct spec *model_find(struct model *m, unsigned long addr, bool percpu)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (m->w[i].addr == addr && m->w[i].percpu == percpu)
			return &m->w[i];
	return NULL;
}

/*
 * Numbers as the kernel's kstrto*() read them (base 0: 0x hex, 0 octal,
 * else decimal; base 16: optional 0x), a leading '+' allowed.
 */
static bool parse_num(const char *s, int base, unsigned long *val)
{
	unsigned long v = 0;
	int digits = 0;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else if (s[0] == '0') {
			base = 8;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x') {
		s += 2;
	}
	for (; *s; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return false;
		if (d >= base)
			return false;
		if (v > (~0UL - d) / base)
			return false;
		v = v * base + d;
		digits++;
	}
	*val = v;
	return digits > 0;
}

/*
 * A trigger's "+OFFSET" or "-OFFSET" at @sign: kstrtoul() base 0 after
 * the sign, at most 16 KiB (KSYM_TRIGGER_OFFSET_MAX).
 */
struct toutcome;
static void twhy(struct toutcome *o, const char *fmt, ...);
static bool parse_trigger_offset(struct toutcome *o, const char *sign,
				 unsigned long *off, bool *neg)
{
	if (!parse_num(sign + 1, 0, off) || *off > 16384) {
		twhy(o, "bad OFFSET '%.20s'", sign + 1);
		return false;
	}
	*neg = *sign == '-';
	return true;
}

/*
 * CPULIST in the kernel's cpulist format (bitmap_parselist()): "N" or
 * "N-M" regions separated by commas, empty regions skipped. (The ":used/
 * group" and "N" forms are not generated.)
 */
static bool parse_cpulist(const char *s, uint64_t *mask)
{
	*mask = 0;
	for (;;) {
		unsigned long a, b;
		char *end;

		while (*s == ',')
			s++;
		if (!*s)
			return true;
		if (!isdigit((unsigned char)*s))
			return false;
		errno = 0;
		a = strtoul(s, &end, 10);
		s = end;
		b = a;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return false;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (errno || a > b || b >= MAX_CPUS)
			return false;
		for (; a <= b; a++)
			*mask |= 1ULL << a;
		if (*s && *s != ',')
			return false;
	}
}

/* Symbol names: [A-Za-z0-9_.$]+, with at most one "module:" prefix. */
static bool valid_symbol(const char *s)
{
	const char *p, *colon = NULL;

	if (!*s)
		return false;
	for (p = s; *p; p++) {
		if (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$')
			continue;
		if (*p == ':' && !colon && p != s && p[1]) {
			colon = p;
			continue;
		}
		return false;
	}
	return true;
}

enum op { OP_ERR, OP_SET, OP_REMOVE, OP_CLEAR };

struct parsed {
	enum op op;
	unsigned int errs;
	struct spec spec;
};

static bool is_user_addr(unsigned long addr)
{
	return addr < 0x00007ffffffff000UL;
}

/* Rules under revision, below. */
static bool rule_offset_unsized(unsigned long off);
static bool rule_percpu_alias(void);
static bool rule_exec_len_checked(void);

/* The kernel's isspace() (ASCII's, and Latin-1's NBSP, never generated). */
static bool k_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f' || (unsigned char)c == 0xa0;
}

static bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the kernel have BTF (casts, paths, module per-CPU data)? */
static bool have_btf = true;

/*
 * "(struct NAME)" or "(union NAME)" at @s, blanks allowed inside the
 * parentheses (doc). On success *@is_union and @name (of @namesz bytes)
 * say which, and the return value is what follows the ')'; NULL: not a
 * cast (EINVAL).
 */
static char *parse_cast(char *s, bool *is_union, char *name, size_t namesz)
{
	char *end = strchr(s, ')'), *kw, *nm, *e;
	size_t kwlen, len;

	if (!end)
		return NULL;
	*end = '\0';
	for (kw = s + 1; k_isspace(*kw); kw++)
		;
	if (!strncmp(kw, "struct", 6)) {
		kwlen = 6;
		*is_union = false;
	} else if (!strncmp(kw, "union", 5)) {
		kwlen = 5;
		*is_union = true;
	} else {
		return NULL;
	}
	nm = kw + kwlen;
	if (!k_isspace(*nm))
		return NULL;
	for (e = nm + strlen(nm); e > nm && k_isspace(e[-1]); e--)
		;
	*e = '\0';
	while (k_isspace(*nm))
		nm++;
	for (len = 0; is_ident(nm[len]); len++)
		;
	if (!len || isdigit((unsigned char)nm[0]) || nm[len] || len >= namesz)
		return NULL;
	memcpy(name, nm, len + 1);
	return end + 1;
}

/*
 * The type a cast names: *@t set, or NULL for FOREIGN_TYPE (a struct the
 * kernel has, whose layout the model does not know). Returns false when
 * no kernel has it (ENOENT).
 */
static bool find_cast(bool is_union, const char *name, const struct ftype **t)
{
	size_t i;

	*t = NULL;
	for (i = 0; i < sizeof(named_types) / sizeof(named_types[0]); i++)
		if (!strcmp(name, named_types[i]->name))
			break;
	if (i < sizeof(named_types) / sizeof(named_types[0])) {
		*t = named_types[i];
		return !is_union;
	}
	if (!strcmp(name, FOREIGN_TYPE))
		return !is_union;
	if (!strncmp(name, NX_TYPE_PREFIX, strlen(NX_TYPE_PREFIX)))
		return false;
	fprintf(stderr, "ksym-fuzz: internal: the generator made a cast type the model does not know: %s\n",
		name);
	exit(2);
}

/*
 * Walk a field path (".FIELD" into a struct or union, "[N]" into an array)
 * from *@t (doc, "Struct fields and per-CPU variables"): adds the offset
 * to *@off, leaves the field's type in *@t and the path as the read-back
 * spells it (decimal indexes) in @canon. Returns 0 or the first error's
 * errno bit.
 */
static unsigned int walk_path(const char *p, const struct ftype **t,
			      unsigned long *off, char *canon, size_t size,
			      struct outcome *o)
{
	size_t n = strlen(canon);

	while (*p) {
		if (*p == '.') {
			const struct fmember *m = NULL;
			size_t len, i;

			for (len = 0; is_ident(p[1 + len]); len++)
				;
			if (!len || isdigit((unsigned char)p[1]) || len >= 512) {
				why(o, "bad field name at '%.20s'", p);
				return EB_EINVAL;
			}
			if ((*t)->kind != TK_STRUCT) {
				why(o, "'%.20s' after a field that is no struct", p);
				return EB_EINVAL;
			}
			for (i = 0; i < (*t)->nmembers; i++)
				if (strlen((*t)->members[i].name) == len &&
				    !strncmp((*t)->members[i].name, p + 1, len))
					m = &(*t)->members[i];
			if (!m) {
				why(o, "no field '%.*s'", (int)(len < 40 ? len : 40), p + 1);
				return EB_ENOENT;
			}
			*off += m->off;
			*t = m->type;
			n += snprintf(canon + n, size - n, ".%s", m->name);
			p += 1 + len;
		} else if (*p == '[') {
			const char *end = strchr(p, ']');
			char num[16];
			unsigned long idx;

			if (!end || end - p - 1 <= 0 || end - p - 1 >= (long)sizeof(num)) {
				why(o, "bad index at '%.20s'", p);
				return EB_EINVAL;
			}
			memcpy(num, p + 1, end - p - 1);
			num[end - p - 1] = '\0';
			if (!parse_num(num, 0, &idx) || idx > 0xffffffffUL) {
				why(o, "bad index '%s'", num);
				return EB_EINVAL;
			}
			if ((*t)->kind != TK_ARRAY) {
				why(o, "index '%s' on no array", num);
				return EB_EINVAL;
			}
			if (idx >= (*t)->nelems) {
				why(o, "index %lu out of range", idx);
				return EB_ERANGE;
			}
			*off += idx * (*t)->elem->size;
			*t = (*t)->elem;
			n += snprintf(canon + n, size - n, "[%lu]", idx);
			p = end + 1;
		} else {
			why(o, "'%.20s' is no .FIELD or [N]", p);
			return EB_EINVAL;
		}
	}
	return 0;
}

/*
 * Whether a SYMBOL (with "module:" perhaps) names a symbol: 1 one of
 * syms[] (*@s set), -1 a real symbol the model does not know, 0 none.
 */
static int lookup_symbol(const char *sym, struct fsym **s)
{
	const char *mc = strchr(sym, ':');
	const char *name = mc ? mc + 1 : sym;

	*s = NULL;
	if (!valid_symbol(sym))
		return 0;
	*s = sym_by_name(name);
	if (*s && mc && (!(*s)->mod || strncmp(sym, (*s)->mod, mc - sym) ||
			 (*s)->mod[mc - sym]))
		*s = NULL;
	if (*s)
		return 1;
	return kallsyms_has(name) ? -1 : 0;
}

/* What TARGET resolved to, besides p->spec.addr and p->spec.target. */
struct tinfo {
	struct fsym *s;		/* the symbol (for 0xADDRESS: the one it is in), or NULL */
	bool hexform;
	bool typed;		/* BTF (a cast, or the symbol's type) gave @size */
	long size;		/* bytes TARGET names; 0: none, give /LEN; -1 unknown */
};

/*
 * TARGET: [(struct|union TYPE)]SYMBOL[.FIELD|[N]]...[+OFFSET], with
 * "module:" before SYMBOL perhaps, or 0xADDRESS (doc). The symbol is the
 * longest prefix, before a '.' or '[', that kallsyms knows. Returns false
 * with p->errs set when the entry is refused.
 */
static bool resolve_target(char *tgt, struct parsed *p, struct outcome *o,
			   struct tinfo *ti)
{
	const struct ftype *ctype = NULL, *type;
	char cname[ENTRY_MAX], canon[TARGET_MAX] = "", *plus, *q, c;
	unsigned long off = 0, foff = 0;
	bool has_cast = false, is_union = false;
	int r = 0, n;

	memset(ti, 0, sizeof(*ti));
	if (tgt[0] == '(') {
		tgt = parse_cast(tgt, &is_union, cname, sizeof(cname));
		if (!tgt) {
			p->errs |= EB_EINVAL;
			why(o, "bad cast");
			return false;
		}
		has_cast = true;
	}
	if (tgt[0] == '0' && (tgt[1] == 'x' || tgt[1] == 'X')) {
		if (has_cast) {
			p->errs |= EB_EINVAL;
			why(o, "cast on an address");
			return false;
		}
		ti->hexform = true;
		if (!parse_num(tgt, 16, &p->spec.addr)) {
			p->errs |= EB_EINVAL;
			why(o, "bad address '%s'", tgt);
			return false;
		}
		snprintf(p->spec.target, sizeof(p->spec.target), "0x%lx", p->spec.addr);
		ti->s = sym_by_addr(p->spec.addr, &off);
		return true;
	}

	plus = strchr(tgt, '+');
	if (plus) {
		*plus = '\0';
		if (!parse_num(plus + 1, 0, &off)) {
			p->errs |= EB_EINVAL;
			why(o, "bad offset '%s'", plus + 1);
			return false;
		}
	}
	for (q = tgt; *q; q++) {
		if (!is_ident(*q) && !strchr(".$:[]", *q)) {
			p->errs |= EB_EINVAL;
			why(o, "bad character '%c' in '%.40s'", *q, tgt);
			return false;
		}
	}
	n = strcspn(tgt, ".[");
	c = tgt[n];
	tgt[n] = '\0';
	if (!valid_symbol(tgt)) {
		tgt[n] = c;
		p->errs |= EB_EINVAL;
		why(o, "bad symbol '%.40s'", tgt);
		return false;
	}
	tgt[n] = c;
	/* The longest prefix that is a symbol; the rest is the path. */
	for (q = tgt + strlen(tgt); q > tgt; q--) {
		c = *q;
		if (c && c != '.' && c != '[')
			continue;
		*q = '\0';
		r = lookup_symbol(tgt, &ti->s);
		*q = c;
		if (r)
			break;
	}
	if (r < 0) {
		/* A real symbol outside the table: refused, but how is its business. */
		p->errs |= EB_ENOENT | EB_EINVAL | EB_EFAULT | EB_EOPNOTSUPP | EB_ERANGE;
		why(o, "'%.40s' is a symbol the model does not know", tgt);
		return false;
	}
	if (!r) {
		p->errs |= EB_ENOENT;
		why(o, "unknown symbol '%.40s'", tgt);
		return false;
	}

	/* q: the path. BTF types per-CPU variables alone (doc). */
	if (!have_btf) {
		if (ti->s->percpu && ti->s->mod) {
			p->errs |= EB_EOPNOTSUPP;
			why(o, "a module's per-CPU data without BTF");
			return false;
		}
		if (has_cast || *q) {
			p->errs |= EB_EINVAL;
			why(o, "cast or path without BTF");
			return false;
		}
	}
	type = ti->s->percpu ? ti->s->ctype : NULL;
	if (has_cast) {
		if (!find_cast(is_union, cname, &ctype)) {
			p->errs |= EB_ENOENT;
			why(o, "no type %s %s", is_union ? "union" : "struct", cname);
			return false;
		}
		if (type && ctype != type) {
			p->errs |= EB_EINVAL;
			why(o, "cast contradicts %s's type", ti->s->name);
			return false;
		}
		if (!ctype) {
			fprintf(stderr, "ksym-fuzz: internal: the generator cast %s, whose type BTF does not give, to struct %s\n",
				ti->s->name, cname);
			exit(2);
		}
		type = ctype;
	} else if (!type && *q) {
		p->errs |= EB_EINVAL;
		why(o, "path on %s, which BTF does not type, without a cast", ti->s->name);
		return false;
	}
	if (type) {
		unsigned int e = walk_path(q, &type, &foff, canon, sizeof(canon), o);

		if (e) {
			p->errs |= e;
			return false;
		}
		ti->typed = true;
		ti->size = type->size;
	} else {
		ti->size = sym_size(ti->s);
	}
	if (rule_offset_unsized(off))
		ti->size = 0;
	p->spec.addr = ti->s->addr + foff + off;
	p->spec.percpu = ti->s->percpu;
	*q = '\0';
	n = 0;
	if (has_cast && !ti->s->percpu)
		n = snprintf(p->spec.target, sizeof(p->spec.target), "(%s %s)",
			     is_union ? "union" : "struct", cname);
	n += snprintf(p->spec.target + n, sizeof(p->spec.target) - n, "%s%s", tgt, canon);
	if (off)
		snprintf(p->spec.target + n, sizeof(p->spec.target) - n, "+0x%lx", off);
	return true;
}

/* One entry, per the doc's grammar TARGET[/LEN]:ACCESS[@CPULIST]. */
static void parse_entry(const char *tok, size_t toklen, struct parsed *p,
			struct outcome *o)
{
	char buf[ENTRY_MAX + 1];
	char *at, *colon, *slash;
	unsigned long len = 0, addr;
	bool has_len = false, has_at = false;
	struct tinfo ti;
	struct fsym *s;
	unsigned int access = 0;

	memset(p, 0, sizeof(*p));
	p->op = OP_ERR;
	if (toklen >= ENTRY_MAX) {
		p->errs = EB_E2BIG;
		why(o, "entry of %zu characters", toklen);
		return;
	}
	memcpy(buf, tok, toklen);
	buf[toklen] = '\0';
	if (!strcmp(buf, "0") || !strcmp(buf, "*:---")) {
		p->op = OP_CLEAR;
		return;
	}

	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		has_at = true;
		if (!parse_cpulist(at + 1, &p->spec.cpus) || !p->spec.cpus ||
		    (p->spec.cpus & ~cpus_possible)) {
			p->errs |= EB_EINVAL;
			why(o, "bad CPU list '%s'", at + 1);
		}
	}
	colon = strrchr(buf, ':');
	if (!colon || colon == buf) {
		p->errs |= EB_EINVAL;
		why(o, "'%.40s': no TARGET:ACCESS", buf);
		return;
	}
	*colon = '\0';
	if (!strcmp(colon + 1, "rw-")) {
		access = ACC_RW;
	} else if (!strcmp(colon + 1, "-w-")) {
		access = ACC_W;
	} else if (!strcmp(colon + 1, "--x")) {
		access = ACC_X;
	} else if (!strcmp(colon + 1, "---")) {
		access = 0;
	} else if (!strcmp(colon + 1, "r--")) {
		p->errs |= EB_EOPNOTSUPP;
		why(o, "r-- on x86");
		access = ACC_R;
	} else {
		p->errs |= EB_EINVAL;
		why(o, "bad access '%.20s'", colon + 1);
		access = ACC_RW;
	}
	if (!access && has_at) {
		p->errs |= EB_EINVAL;
		why(o, "--- with a CPU list");
	}

	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		has_len = true;
		if (!parse_num(slash + 1, 0, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != 8)) {
			p->errs |= EB_EINVAL;
			why(o, "bad LEN '%.20s'", slash + 1);
			len = 0;
		}
	}
	if (!*buf) {
		p->errs |= EB_EINVAL;
		why(o, "empty TARGET");
		return;
	}
	if (!resolve_target(buf, p, o, &ti))
		return;
	s = ti.s;
	addr = p->spec.addr;
	p->spec.access = access;

	if (!access) {
		if (!p->errs)
			p->op = OP_REMOVE;
		return;
	}

	/* A per-CPU variable's address is an offset, no user address. */
	if (!p->spec.percpu && is_user_addr(addr)) {
		p->errs |= EB_EINVAL;
		why(o, "user-space address 0x%lx", addr);
		return;
	}
	if (!s) {
		size_t i;

		for (i = 0; i < NR_BAD_ADDRS; i++)
			if (bad_addrs[i] == addr)
				break;
		if (i == NR_BAD_ADDRS) {
			fprintf(stderr, "ksym-fuzz: internal: the generator made an address the model does not know: 0x%lx\n",
				addr);
			exit(2);
		}
		/* Just above user space is a guard page, refused either way. */
		p->errs |= EB_EFAULT | EB_EINVAL;
		why(o, "no kernel memory at 0x%lx", addr);
		return;
	}

	/* Doc: a /LEN larger than the field is refused. */
	if (has_len && len && ti.typed && ti.size > 0 && len > (unsigned long)ti.size &&
	    (access != ACC_X || rule_exec_len_checked())) {
		p->errs |= EB_EINVAL;
		why(o, "LEN %lu larger than the field's %ld bytes", len, ti.size);
	}
	if (access == ACC_X) {
		if (has_len && len && len != sizeof(long)) {
			p->errs |= EB_EINVAL;
			why(o, "--x with LEN %lu", len);
		}
		if (!s->text || p->spec.percpu) {
			p->errs |= EB_EINVAL;
			why(o, "--x on data");
		}
		len = sizeof(long);
	} else if (!has_len) {
		/* Doc: the size only for a symbol or a field, not +OFFSET or 0xADDRESS. */
		if (ti.size < 0) {
			fprintf(stderr, "ksym-fuzz: internal: default LEN of %s unknown\n",
				s->name);
			exit(2);
		}
		len = ti.hexform ? 0 : default_len(addr, ti.size);
		if (!len) {
			p->errs |= EB_EINVAL;
			why(o, "no /LEN and no default");
		}
	}
	p->spec.len = len;
	if (access != ACC_X && len && addr % len) {
		p->errs |= EB_EINVAL;
		why(o, "0x%lx not aligned to %lu", addr, len);
	}
	if (s->initmem) {
		/* Issue 8 item 2: freed init memory must be refused. */
		p->errs |= EB_EFAULT;
		why(o, "%s is freed init memory", s->name);
	}
	if (!p->errs)
		p->op = OP_SET;
}

/* ==== RULES UNDER REVISION (issue 8); the lead's fixes decide them ==== */

/*
 * Item 1: a write (a set of complete lines, or what close() applies) with
 * no entry at all, e.g. a blank line. "0" and "*:---" are entries
 * (OP_CLEAR). Fixed rule: accepted, nothing changes. -L: clears every
 * watch (the old docs, and the bug item 1 reports).
 */
static void rule_entryless(const struct model *cur, struct outcome *o)
{
	o->ok = true;
	if (opt.legacy_blank) {
		o->after.nr = 0;
		why(o, "no entry: clears (legacy -L)");
		return;
	}
	o->after = *cur;
	why(o, "no entry: changes nothing");
}

/*
 * Item 6: a write(2) with a NUL byte anywhere is refused with EINVAL and
 * changes nothing (its unterminated data is dropped as with any error).
 */
static bool rule_nul(const char *buf, size_t n)
{
	return memchr(buf, '\0', n) != NULL;
}

/*
 * Item 7: at most this many entries in one write (E2BIG), so that the
 * kernel sizes its work by entries, not bytes. 0: no limit.
 */
#define RULE_MAX_ENTRIES 64

/*
 * '#' starts a comment that runs to the end of the line (the read-back
 * marks incomplete watches with one). Blanks it in place.
 */
static void rule_comments(char *text, size_t n)
{
	size_t i;
	bool in = false;

	for (i = 0; i < n; i++) {
		if (text[i] == '#')
			in = true;
		else if (text[i] == '\n')
			in = false;
		if (in)
			text[i] = ' ';
	}
}

/*
 * A file opened with O_TRUNC ("echo > ksym_trace_filter") and closed with
 * nothing but blanks written clears every watch, as truncating
 * set_ftrace_filter does. A byte that is not blank (a comment's too) or a
 * refused write(2) counts as written: rule_wrote().
 */
static bool rule_trunc_clears(bool trunc, bool wrote)
{
	return trunc && !wrote;
}

static bool is_sep(char c);

static bool rule_wrote(const char *buf, size_t n, bool refused)
{
	size_t i;

	if (refused)
		return true;
	for (i = 0; i < n; i++)
		if (!is_sep(buf[i]))
			return true;
	return false;
}

/*
 * SYMBOL+OFFSET names no size, so it needs /LEN (doc, "LEN"; also after a
 * path). The kernel takes "+0" for no offset: the symbol's or the field's
 * size stands. (The doc does not say; this follows the kernel.)
 */
static bool rule_offset_unsized(unsigned long off)
{
	return off != 0;
}

/*
 * 0xADDRESS:--- where ADDRESS is a per-CPU variable's offset: by default
 * it is no per-CPU watch's address (a per-CPU watch is the variable's);
 * -A: the kernel matches watches by the number alone and removes the
 * per-CPU watch.
 */
static bool rule_percpu_alias(void)
{
	return opt.percpu_alias;
}

/*
 * --x on a field smaller than sizeof(long), e.g. "(struct ksym_hitgen_rec)
 * ksym_hitgen_read.flags:--x": accepted, and read back with --x's LEN,
 * ".../8:--x". Written back, that /8 is "larger than the field" (doc) and
 * refused, though the doc says the read-back can be written back as it
 * is. true: the field check applies to --x's LEN too (the kernel at
 * 0759b2d); false: it does not, and the read-back can be written back
 * (the kernel since: an execute watch's LEN is the instruction word's).
 */
static bool exec_len_checked;	/* the self-test tries the other way */

static bool rule_exec_len_checked(void)
{
	return exec_len_checked;
}

/* ==== end of the rules under revision ==== */

static bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/*
 * The end of the entry at text[i]: the next blank, but for spaces and tabs
 * inside a cast's parentheses (doc: "blanks inside it are part of the
 * entry"). A '(' anywhere opens, a ')' closes.
 */
static size_t entry_end(const char *text, size_t i, size_t n)
{
	bool in_cast = false;

	for (; i < n; i++) {
		if (text[i] == '(')
			in_cast = true;
		else if (text[i] == ')')
			in_cast = false;
		else if (is_sep(text[i]) && !(in_cast && (text[i] == ' ' || text[i] == '\t')))
			break;
	}
	return i;
}

/* Per CPU, the watches there: a per-CPU watch takes a slot too. */
static int slots_used(const struct model *m, int cpu)
{
	int i, n = 0;

	for (i = 0; i < m->nr; i++)
		if (!m->w[i].cpus || (m->w[i].cpus & (1ULL << cpu)))
			n++;
	return n;
}

/*
 * One write's worth of entries (the text of its complete lines, or the
 * data close() applies), all or nothing.
 */
static void model_txn(const struct model *cur, const char *otext, size_t n,
		      struct outcome *o)
{
	struct parsed *ps = NULL;
	size_t i = 0, nps = 0;
	unsigned int perrs = 0;
	struct model *m = &o->after;
	char *text;
	int cpu, k;

	ps = calloc(n / 2 + 2, sizeof(*ps));
	text = malloc(n + 1);
	if (!ps || !text) {
		perror("ksym-fuzz: calloc");
		exit(2);
	}
	memcpy(text, otext, n);
	rule_comments(text, n);
	while (i < n) {
		size_t start;

		while (i < n && is_sep(text[i]))
			i++;
		if (i >= n)
			break;
		start = i;
		i = entry_end(text, i, n);
		parse_entry(text + start, i - start, &ps[nps], o);
		perrs |= ps[nps].errs;
		nps++;
	}
	o->entries = nps;
	if (!nps) {
		rule_entryless(cur, o);
		goto out;
	}
	if (RULE_MAX_ENTRIES && nps > RULE_MAX_ENTRIES) {
		o->ok = false;
		o->errs |= EB_E2BIG;
		why(o, "%zu entries", nps);
	}
	if (perrs || o->errs) {
		o->ok = false;
		o->errs |= perrs;
		goto out;
	}

	*m = *cur;
	for (i = 0; i < nps; i++) {
		struct spec *w;

		switch (ps[i].op) {
		case OP_CLEAR:
			m->nr = 0;
			break;
		case OP_REMOVE:
			w = model_find(m, ps[i].spec.addr, ps[i].spec.percpu);
			if (!w && rule_percpu_alias())
				w = model_find(m, ps[i].spec.addr, !ps[i].spec.percpu);
			if (!w) {
				o->ok = false;
				o->errs |= EB_ENOENT;
				why(o, "removing %s: no such watch", ps[i].spec.target);
				goto out;
			}
			*w = m->w[--m->nr];
			break;
		case OP_SET:
			w = model_find(m, ps[i].spec.addr, ps[i].spec.percpu);
			if (!w) {
				if (m->nr >= MAX_WATCHES) {
					o->ok = false;
					o->errs |= EB_ENOSPC;
					why(o, "more than %d watches", MAX_WATCHES);
					goto out;
				}
				w = &m->w[m->nr++];
			}
			*w = ps[i].spec;
			break;
		case OP_ERR:
			break;
		}
	}
	o->ok = true;
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!(cpus_online & (1ULL << cpu)))
			continue;
		k = slots_used(m, cpu);
		if (k > HW_SLOTS) {
			o->ok = false;
			o->errs |= EB_ENOSPC;
			why(o, "%d watches on CPU %d", k, cpu);
			break;
		}
		if (k == HW_SLOTS && opt.mode == MODE_RACE) {
			/* The racing writer may hold the last register. */
			o->errs |= EB_ENOSPC;
			why(o, "4 watches on CPU %d: racer decides", cpu);
		}
	}
out:
	free(text);
	free(ps);
}

/* A write(2) of buf[0..n) on a descriptor holding pend[0..*plen) unapplied. */
static void model_write(const struct model *cur, const char *pend, size_t plen,
			const char *buf, size_t n, struct outcome *o)
{
	char *all;
	size_t tot = plen + n, last;

	memset(o, 0, sizeof(*o));
	o->after = *cur;
	if (!n) {
		o->ok = true;
		return;
	}
	if (plen + n >= WRITE_MAX) {
		o->errs |= EB_E2BIG;
		why(o, "%zu bytes with what is pending", plen + n);
	}
	if (rule_nul(buf, n)) {
		o->errs |= EB_EINVAL;
		why(o, "NUL byte");
	}
	if (o->errs)
		return;
	all = malloc(tot + 1);
	if (!all) {
		perror("ksym-fuzz: malloc");
		exit(2);
	}
	memcpy(all, pend, plen);
	memcpy(all + plen, buf, n);
	for (last = tot; last && all[last - 1] != '\n'; last--)
		;
	if (!last) {
		o->ok = true;	/* an unterminated entry waits */
	} else {
		model_txn(cur, all, last - 1, o);
	}
	free(all);
}

/* The pending data after an outcome: the tail after the last newline, or none on failure. */
static size_t pending_after(char *pend, size_t plen, const char *buf, size_t n,
			    bool succeeded)
{
	size_t i, last = 0;

	if (!succeeded || !n)
		return succeeded ? plen : 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\n')
			last = i + 1;
	if (!last) {
		memcpy(pend + plen, buf, n);
		return plen + n;
	}
	memmove(pend, buf + last, n - last);
	return n - last;
}

/* close(2) applies what is pending, newline or not. */
static void model_close(const struct model *cur, const char *pend, size_t plen,
			bool trunc, bool wrote, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->after = *cur;
	o->ok = true;
	if (plen)
		model_txn(cur, pend, plen, o);
	if (o->entries)
		wrote = true;
	if (o->ok && rule_trunc_clears(trunc, wrote)) {
		o->after.nr = 0;
		why(o, "opened with O_TRUNC, nothing written: clears");
	}
}

/* ------------------------------------------------------------------------
 * Escaping for reports
 */

static void escape(FILE *f, const char *s, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++) {
		unsigned char c = s[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\'')
			fputs("\\047", f);
		else if (c == '%')
			fputs("%%", f);
		else if (c < 32 || c >= 127)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	if (n > max)
		fprintf(f, "...(%zu bytes in all)", n);
}

/* ------------------------------------------------------------------------
 * Talking to the kernel
 */

static int read_file(const char *path, char *buf, size_t size);

static int read_back(char *buf, size_t size)
{
	return read_file(opt.filter, buf, size);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The racing writer's watch, whatever spelling it used. */
static bool racer_line(const char *line)
{
	char tgt[TARGET_MAX];
	const char *slash = strchr(line, '/');
	struct fsym *b = sym_by_name("ksym_hitgen_buf");
	char hex[32];

	if (opt.mode != MODE_RACE || !slash || (size_t)(slash - line) >= sizeof(tgt) || !b)
		return false;
	memcpy(tgt, line, slash - line);
	tgt[slash - line] = '\0';
	snprintf(hex, sizeof(hex), "0x%lx", racer_addr);
	return !strcmp(tgt, "ksym_hitgen_buf+0x8") ||
	       !strcmp(tgt, "ksym_hitgen:ksym_hitgen_buf+0x8") ||
	       !strcmp(tgt, hex);
}

/*
 * Compare the file with the model: as sorted lines (the doc gives no order).
 * Returns 0 if equal; fills @got with what was read.
 */
static int check_readback(const struct model *m, char *got, size_t size,
			  char *want, size_t wsize)
{
	char *lines[MAX_WATCHES * 4 + 8], *wl[MAX_WATCHES + 1];
	char wbuf[MAX_WATCHES + 1][TARGET_MAX + 64];
	char *copy, *p, *save = NULL;
	size_t nl = 0, nw = 0, i, n = 0;
	int r, ret = 0;

	r = read_back(got, size);
	if (r < 0) {
		snprintf(want, wsize, "(read failed: %s)", strerror(-r));
		return 1;
	}
	copy = strdup(got);
	if (!copy)
		exit(2);
	for (p = strtok_r(copy, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		if (racer_line(p))
			continue;
		if (nl < sizeof(lines) / sizeof(lines[0]))
			lines[nl++] = p;
		else
			ret = 1;
	}
	if (r > 0 && got[r - 1] != '\n')
		ret = 1;	/* every line ends with a newline */
	for (i = 0; i < (size_t)m->nr; i++) {
		spec_line(&m->w[i], wbuf[i], sizeof(wbuf[i]));
		wl[nw++] = wbuf[i];
	}
	qsort(lines, nl, sizeof(lines[0]), cmp_str);
	qsort(wl, nw, sizeof(wl[0]), cmp_str);
	if (nl != nw)
		ret = 1;
	for (i = 0; !ret && i < nl; i++)
		if (strcmp(lines[i], wl[i]))
			ret = 1;
	want[0] = '\0';
	for (i = 0; i < nw; i++)
		n += snprintf(want + n, wsize > n ? wsize - n : 0, "%s\n", wl[i]);
	free(copy);
	return ret;
}

/* ------------------------------------------------------------------------
 * Generator
 */

static const char *const bad_access[] = {
	"rw", "RW-", "w", "", "rwx", "-w", "rw--", "--w", "x", "r-x", "-wx",
};
static const char *const bad_cpus[] = {
	"", "2", "7", "8", "63", "64", "0-2", "1-0", "-1", "a", "0-", ",", "0,,9",
	"99999999999", "1-3", "0;1", "0-1-2",
};
static const char *const bad_lens[] = {
	"0", "3", "16", "5", "-1", "", "08", "0x", "8x", "99999999999", "7", "32",
	"0x10", "1.0",
};
static const char *const good_lens_alt[] = { "0x8", "010", "0x4", "04", "0x1", "02" };
static const char *const garbage[] = {
	":", "::", ":rw-", "/8:rw-", "@1", "rw-", "---", "*", "*:rw-", "0:---",
	"ksym_hitgen_var", "ksym_hitgen_var:", "ksym_hitgen_var::rw-",
	"a:b:c:rw-", "ksym hitgen", "-", "@", "/", "+", "ksym_hitgen_var+:rw-",
	"ksym_hitgen_var++8/8:rw-", "0x:rw-", "0xg/8:rw-",
	"0x10000000000000000/8:rw-", "ksym-hitgen-var:rw-", "#", "\"\"",
	"ksym_hitgen_var/8/8:rw-", "ksym_hitgen_var:rw-@", "00", "0 0", "*",
	"ksym_hitgen:ksym_hitgen:ksym_hitgen_var:rw-", ":ksym_hitgen_var:rw-",
	"ksym_hitgen_var@0:rw-", "ksym_fuzz_nx:rw-", "ksym_fuzz_nx/8:-w-",
	"ksym_hitgen:jiffies_64/8:rw-", "nosuchmod:ksym_hitgen_var:rw-",
	"ksym_hitgen_var.nx:rw-", "ksym_hitgen_var$:rw-",
};
#define N(a) (sizeof(a) / sizeof(a[0]))

struct gen {
	struct rng r;
	char *buf;
	size_t n;
	bool racer;		/* the racing writer's vocabulary */
	const struct model *m;	/* current model, to pick existing watches */
	size_t cut;		/* 0, or a byte inside a cast to end a write() at */
};

static void put(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (g->n >= BUF_MAX - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(g->buf + g->n, BUF_MAX - g->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		g->n += (size_t)k < BUF_MAX - g->n ? (size_t)k : BUF_MAX - 1 - g->n;
}

static struct fsym *pick_sym(struct gen *g)
{
	for (;;) {
		struct fsym *s = &syms[rnd(&g->r, NR_SYMS)];

		if (!s->found || s->racer)
			continue;
		if (s->initmem && !chance(&g->r, 10))
			continue;
		if (s->text && !chance(&g->r, 40))
			continue;
		return s;
	}
}

/* A CPU list: mostly none, some valid, some hostile. */
static void put_cpus(struct gen *g, unsigned int bad_pct)
{
	static const char *const good[] = {
		"0", "1", "0-1", "0,1", "1,0", "0-0", "1-1", "0,", ",1", "0,,1", "00",
	};

	if (chance(&g->r, bad_pct)) {
		put(g, "@%s", bad_cpus[rnd(&g->r, N(bad_cpus))]);
		return;
	}
	if (chance(&g->r, 75))
		return;
	if (nr_cpus_possible < 2) {
		put(g, "@0");
		return;
	}
	put(g, "@%s", good[rnd(&g->r, N(good))]);
}

static void put_len(struct gen *g, unsigned int len, unsigned int bad_pct)
{
	if (chance(&g->r, bad_pct)) {
		put(g, "/%s", bad_lens[rnd(&g->r, N(bad_lens))]);
		return;
	}
	if (chance(&g->r, 10)) {
		const char *alt = good_lens_alt[rnd(&g->r, N(good_lens_alt))];

		put(g, "/%s", alt);
		return;
	}
	put(g, "/%u", len);
}

static const char *pick_access(struct gen *g, bool text, unsigned int bad_pct)
{
	unsigned int x = rnd(&g->r, 100);

	if (chance(&g->r, bad_pct))
		return chance(&g->r, 40) ? "r--" : bad_access[rnd(&g->r, N(bad_access))];
	if (text)
		return x < 70 ? "--x" : x < 85 ? "---" : "rw-";
	if (x < 40)
		return "rw-";
	if (x < 72)
		return "-w-";
	if (x < 95)
		return "---";
	return "--x";	/* on data: refused */
}

/* A TARGET[/LEN] for symbol s; hostile with probability bad_pct. */
static void put_target(struct gen *g, struct fsym *s, unsigned int bad_pct,
		       bool x)
{
	unsigned int off = 0, len;
	unsigned int form = rnd(&g->r, 100);
	bool need_len;

	if (s->noffs && chance(&g->r, 30))
		off = s->offs[rnd(&g->r, s->noffs)];
	/* A length that fits the object at that offset, mostly. */
	if (x)
		len = sizeof(long);
	else if (chance(&g->r, 15))
		len = 1U << rnd(&g->r, 4);
	else {
		len = s->size >= 8 ? 8 : s->size;
		while (len > 1 && (off % len))
			len /= 2;
	}

	if (form < 15) {
		/* 0xADDRESS, maybe upper case, maybe leading zeros */
		const char *pfx = chance(&g->r, 20) ? "0X" : "0x";

		if (chance(&g->r, 20))
			put(g, "%s%016lX", pfx, s->addr + off);
		else if (chance(&g->r, 10))
			put(g, "%s%lX", pfx, s->addr + off);
		else
			put(g, "%s%lx", pfx, s->addr + off);
		need_len = true;
	} else {
		if (s->mod && form < 30)
			put(g, "%s:", s->mod);
		put(g, "%s", s->name);
		if (off || chance(&g->r, 3)) {
			switch (rnd(&g->r, 3)) {
			case 0: put(g, "+%u", off); break;
			case 1: put(g, "+0x%x", off); break;
			default: put(g, "+0%o", off); break;
			}
			need_len = true;
		} else {
			need_len = s->deflen <= 0;
		}
	}
	if (need_len || chance(&g->r, 50) || chance(&g->r, bad_pct))
		put_len(g, len, bad_pct);
}

/* ------------------------------------------------------------------------
 * Casts and field paths
 */

#define PICK(g, a) ((a)[rnd(&(g)->r, N(a))])

/* Blanks inside a cast's parentheses (doc: part of the entry). */
static const char *const cast_pad[] = { "", "", "", "", " ", "\t", "  ", " \t" };
static const char *const cast_gap[] = { " ", " ", " ", " ", "  ", "\t", " \t ", "\t\t" };

/* Casts that are no cast, name no type, or end the entry early. */
static const char *const bad_casts[] = {
	"(strukt ksym_hitgen_rec)", "(struct)", "(struct )", "(structksym_hitgen_rec)",
	"(struct 9x)", "(struct ksym_hitgen_rec x)", "(union ksym_hitgen_rec)",
	"(struct " NX_TYPE_PREFIX "_t)", "(union " NX_TYPE_PREFIX "_t)", "()", "(",
	"(struct ksym_hitgen_rec", "(Struct ksym_hitgen_rec)", "((struct ksym_hitgen_rec))",
	"(struct ksym_hitgen_rec)(struct ksym_hitgen_rec)", "(struct\nksym_hitgen_rec)",
	"(struct\vksym_hitgen_rec)", "(struct\rksym_hitgen_rec)", "(struct ksym_hitgen_rec) ",
	"(struct ksym-hitgen-rec)", "(struct ksym_hitgen_rec)\t", "(struct ksym_hitgen_rec))",
	"(struct:ksym_hitgen_rec)", "(ksym_hitgen_rec)", "struct ksym_hitgen_rec)",
};

/* Path steps that are bad somewhere, or everywhere. */
static const char *const bad_steps[] = {
	"." NX_TYPE_PREFIX, ".x", ".Count", ".9x", ".", "..", ".[0]", "[x]", "[]", "[",
	"[1", "]", "[-1]", "[+1]", "[0x]", "[08]", "[0000000000000001]", "[4294967296]",
	"[99999999999]", "[010]", "[8]", "[2]", "[0]", "[1][0]", ".count$", "[0x8]",
	"[ 1]", "[0]]", ".lo", ".pair[1].hi",
};

/*
 * A cast of @kw @name with blanks inside perhaps (now and then ~1000 of
 * them, around the 1023-character entry limit). The first cast of a
 * logical write gives g->cut, a byte inside it where the writer may end
 * one write() and begin the next.
 */
static void put_cast(struct gen *g, const char *kw, const char *name)
{
	size_t start = g->n;

	if (chance(&g->r, 2)) {
		unsigned int k = 940 + rnd(&g->r, 120);

		put(g, "(%s", kw);
		while (k-- && g->n < BUF_MAX - 64)
			put(g, "%c", chance(&g->r, 90) ? ' ' : '\t');
		put(g, "%s)", name);
	} else {
		put(g, "(%s%s%s%s%s)", PICK(g, cast_pad), kw, PICK(g, cast_gap), name,
		    PICK(g, cast_pad));
	}
	if (!g->cut && g->n - start > 2)
		g->cut = start + 1 + rnd(&g->r, g->n - start - 2);
}

/* An array index in the spellings the kernel reads (base 0, as kstrtou32()). */
static void put_index(struct gen *g, unsigned int i)
{
	unsigned int k = rnd(&g->r, 100);

	if (k < 70)
		put(g, "[%u]", i);
	else if (k < 80)
		put(g, "[0x%x]", i);
	else if (k < 83)
		put(g, "[0X%X]", i);
	else if (k < 95)
		put(g, "[0%o]", i);
	else
		put(g, "[%015o]", i);	/* leading zeros: octal, 15 digits at most */
}

/* One bad step: from bad_steps[], a long field name, or an overlong path. */
static void put_bad_step(struct gen *g)
{
	unsigned int k = rnd(&g->r, 100), i;

	if (k < 85) {
		put(g, "%s", PICK(g, bad_steps));
	} else if (k < 90) {
		/* 512 characters or more: no name; fewer: no such field. */
		unsigned int len = chance(&g->r, 50) ? 600 : 300;

		put(g, ".");
		for (i = 0; i < len && g->n < BUF_MAX - 64; i++)
			put(g, "%c", 'a' + (char)rnd(&g->r, 26));
	} else if (k < 95) {
		/* Valid steps, on and on: the first one that does not fit fails. */
		for (i = 0; i < 120 && g->n < BUF_MAX - 64; i++)
			put(g, ".pair[1].hi");
	} else {
		for (i = 0; i < 350 && g->n < BUF_MAX - 64; i++)
			put(g, "[0]");
	}
}

/*
 * A field path from type @t, maybe with a bad step (@bad_pct percent).
 * Adds the offset to *@off; returns the type it ends at, NULL if it took a
 * bad step.
 */
static const struct ftype *put_path(struct gen *g, const struct ftype *t,
				    unsigned int bad_pct, unsigned int *off)
{
	unsigned int depth, bad_at = chance(&g->r, bad_pct) ? rnd(&g->r, 4) : ~0U;

	for (depth = 0; ; depth++) {
		if (depth == bad_at) {
			put_bad_step(g);
			return NULL;
		}
		if (t->kind == TK_INT || chance(&g->r, depth ? 30 : 12))
			return t;
		if (t->kind == TK_STRUCT) {
			const struct fmember *m = &t->members[rnd(&g->r, t->nmembers)];

			put(g, ".%s", m->name);
			*off += m->off;
			t = m->type;
		} else {
			unsigned int i = rnd(&g->r, t->nelems);

			put_index(g, i);
			*off += i * t->elem->size;
			t = t->elem;
		}
	}
}

/*
 * A symbol another struct can be cast onto: larger than the struct and an
 * +OFFSET, so that the model knows what is there; not the racer's.
 */
static struct fsym *pick_cast_base(struct gen *g, const struct ftype *t)
{
	unsigned int tries;

	for (tries = 0; tries < 20; tries++) {
		struct fsym *s = &syms[rnd(&g->r, NR_SYMS)];

		if (s->found && !s->racer && !s->percpu && s->ctype != t &&
		    s->dist >= (long)t->size + 8 && (!s->text || chance(&g->r, 30)) &&
		    (opt.mode != MODE_RACE || racer_addr + 8 <= s->addr ||
		     racer_addr >= s->addr + t->size + 8))
			return s;
	}
	return sym_by_name("ksym_hitgen_rec");
}

/*
 * TARGET[/LEN] with a cast and/or a field path (doc, "Struct fields and
 * per-CPU variables"): ksym_hitgen_rec with its cast, the per-CPU
 * ksym_hitgen_pcpu with or without one, or another symbol cast to one of
 * the two; hostile with probability @bad_pct. @x: for --x.
 */
static void put_path_target(struct gen *g, unsigned int bad_pct, bool x)
{
	bool bad = chance(&g->r, bad_pct), need_len = false;
	unsigned int k = rnd(&g->r, 100), off = 0, len;
	const struct ftype *cast = NULL, *t;
	struct fsym *s;

	if (k < 50) {
		s = sym_by_name("ksym_hitgen_rec");
		k = rnd(&g->r, 100);
		cast = k < 84 ? &t_rec : k < 90 ? &t_pcpu : NULL;
		if (!cast && !bad && chance(&g->r, 80))
			cast = &t_rec;
	} else if (k < 85) {
		s = sym_by_name("ksym_hitgen_pcpu");
		k = rnd(&g->r, 100);
		cast = k < 50 ? NULL : &t_pcpu;
		if (bad && chance(&g->r, 20))
			cast = &t_rec;	/* contradicts BTF */
	} else {
		cast = chance(&g->r, 50) ? &t_rec : &t_pcpu;
		s = pick_cast_base(g, cast);
	}
	if (!s)
		return;
	if (bad && chance(&g->r, 25)) {
		if (s->percpu && chance(&g->r, 30)) {
			put_cast(g, "struct", FOREIGN_TYPE);	/* contradicts BTF */
		} else {
			put(g, "%s", PICK(g, bad_casts));
		}
	} else if (cast) {
		put_cast(g, "struct", cast->name);
	}
	t = cast ? cast : s->ctype;
	if (bad && chance(&g->r, 5)) {
		put(g, "0x%lx", s->addr);	/* a cast on an address */
	} else {
		if (s->mod && chance(&g->r, 20))
			put(g, "%s:", s->mod);
		put(g, "%s", s->name);
	}
	t = put_path(g, t, bad ? 50 : 0, &off);
	if (chance(&g->r, 8)) {
		static const unsigned int offs[] = { 0, 2, 4, 8 };
		unsigned int o = PICK(g, offs);

		switch (rnd(&g->r, 3)) {
		case 0: put(g, "+%u", o); break;
		case 1: put(g, "+0x%x", o); break;
		default: put(g, "+0%o", o); break;
		}
		off += o;
		need_len = rule_offset_unsized(o) && !(bad && chance(&g->r, 50));
	}
	if (x) {
		if (chance(&g->r, 30))
			put_len(g, sizeof(long), bad ? 30 : 0);
		return;
	}
	if (!need_len && !chance(&g->r, 50) && !chance(&g->r, bad ? 20 : 0))
		return;	/* the field's own length */
	for (len = 8; len > 1 && ((t && len > t->size) || (s->addr + off) % len); len /= 2)
		;
	if (chance(&g->r, bad ? 30 : 10))
		len = 1U << rnd(&g->r, 4);	/* maybe larger than the field */
	put_len(g, len, bad ? 30 : 2);
}

/* An existing watch's target, to change or remove it. */
static bool put_existing(struct gen *g)
{
	const struct spec *w;
	unsigned long off;

	if (!g->m || !g->m->nr)
		return false;
	w = &g->m->w[rnd(&g->r, g->m->nr)];
	/*
	 * Its address is the watch: another spelling of it is the same watch
	 * (a per-CPU variable's offset is not its address).
	 */
	if (chance(&g->r, 8) && (w->percpu || sym_by_addr(w->addr, &off)))
		put(g, "0x%lx", w->addr);
	else
		put(g, "%s", w->target);
	if (chance(&g->r, 50) && w->access != ACC_X)
		put(g, "/%u", w->len);
	return true;
}

static void gen_entry(struct gen *g, bool hostile)
{
	unsigned int k = rnd(&g->r, 100);
	struct fsym *s;
	const char *acc;

	if (hostile) {
		if (k < 25) {
			put(g, "%s", garbage[rnd(&g->r, N(garbage))]);
			return;
		}
		if (k < 30) {
			/* a long entry, around the 1023-character limit */
			unsigned int len = 990 + rnd(&g->r, 80);

			put(g, "ksym_fuzz_nx");
			while (g->n < BUF_MAX - 8 && len-- > 12)
				put(g, "%c", 'a' + (char)rnd(&g->r, 26));
			put(g, ":rw-");
			return;
		}
		if (k < 35) {
			put(g, "0x%lx/8:rw-", bad_addrs[rnd(&g->r, N(bad_addrs))]);
			return;
		}
		if (k < 40) {
			put(g, "0x%lx:---", bad_addrs[rnd(&g->r, N(bad_addrs))]);
			return;
		}
		if (k < 60) {
			acc = pick_access(g, false, 30);
			put_path_target(g, 60, !strcmp(acc, "--x"));
			put(g, ":%s", acc);
			put_cpus(g, 20);
			return;
		}
		s = pick_sym(g);
		acc = pick_access(g, s->text, 60);
		put_target(g, s, 50, !strcmp(acc, "--x"));
		put(g, ":%s", acc);
		put_cpus(g, 40);
		return;
	}
	if (k < 4) {
		put(g, chance(&g->r, 50) ? "0" : "*:---");
		return;
	}
	if (k < 30 && put_existing(g)) {
		acc = k < 20 ? "---" : pick_access(g, false, 0);
		put(g, ":%s", acc);
		if (strcmp(acc, "---"))
			put_cpus(g, 0);
		return;
	}
	if (k < 45) {
		acc = pick_access(g, false, 3);
		put_path_target(g, 3, !strcmp(acc, "--x"));
		put(g, ":%s", acc);
		if (strcmp(acc, "---"))
			put_cpus(g, 3);
		return;
	}
	s = pick_sym(g);
	acc = pick_access(g, s->text, 3);
	put_target(g, s, 2, !strcmp(acc, "--x"));
	put(g, ":%s", acc);
	if (strcmp(acc, "---"))
		put_cpus(g, 3);
}

static const char *pick_sep(struct gen *g)
{
	static const char *const seps[] = {
		" ", " ", " ", "\n", "\n", "\t", "  ", "\n\n", " \n ", "\r\n", "\v", "\f",
		" # comment:rw- 0\n", "\n# ksym_hitgen_var:rw-\n", "#\n",
	};
	return seps[rnd(&g->r, N(seps))];
}

/* One logical write for the checked writers. */
static void gen_logical(struct gen *g)
{
	unsigned int k = rnd(&g->r, 1000), nent, i;
	bool hostile_write = chance(&g->r, 25);

	g->n = 0;
	g->cut = 0;
	if (k < 30) {
		/* blank lines only */
		static const char *const blanks[] = {
			"\n", "\n\n", " \n", "\t\n", " ", "\r\n", "  \n \n", "# 0\n",
			"#\n", "  # *:---", "\n#ksym_hitgen_var:rw-\n",
		};
		put(g, "%s", blanks[rnd(&g->r, N(blanks))]);
		return;
	}
	if (k < 45) {
		/* huge: valid entries past 4096 bytes */
		while (g->n < WRITE_MAX + 200)
			put(g, "ksym_hitgen_var:rw- ");
		put(g, "\n");
		return;
	}
	if (k < 60) {
		/* around the 4095-byte limit: an entry padded with blanks */
		size_t target = WRITE_MAX - 3 + rnd(&g->r, 4);

		gen_entry(g, false);
		while (g->n < target - 1)
			put(g, chance(&g->r, 90) ? " " : "\n");
		put(g, "\n");
		return;
	}
	if (k < 75) {
		/* many short valid and invalid entries */
		nent = 20 + rnd(&g->r, 60);
	} else if (k < 500) {
		nent = 1;
	} else if (k < 900) {
		nent = 2 + rnd(&g->r, 3);
	} else {
		nent = 5 + rnd(&g->r, 8);
	}
	if (chance(&g->r, 5))
		put(g, "%s", pick_sep(g));
	for (i = 0; i < nent; i++) {
		if (i)
			put(g, "%s", pick_sep(g));
		gen_entry(g, hostile_write && chance(&g->r, 50));
	}
	k = rnd(&g->r, 100);
	if (k < 80)
		put(g, "\n");
	else if (k < 85)
		put(g, "\n\n");
	else if (k < 90)
		put(g, " \n");
	/* else unterminated: applied at close, or joined with the next write */
}

/* One logical write for the racing writer: its one address only. */
static void gen_racer(struct gen *g)
{
	static const char *const forms[] = {
		"ksym_hitgen_buf+8/8", "ksym_hitgen_buf+0x8/8", "ksym_hitgen_buf+010/4",
		"ksym_hitgen:ksym_hitgen_buf+8/8", "RACERHEX/8", "ksym_hitgen_buf+8/4",
	};
	static const char *const hostile[] = {
		"ksym_hitgen_buf+8/3:rw-", "ksym_hitgen_buf+8/8:r--",
		"ksym_hitgen_buf+8/8:rw-@9", "ksym_hitgen_buf+8:rw-",
		"ksym_hitgen_buf+8/8:xyz", "ksym_fuzz_nx2:rw-", "ksym_hitgen_buf+9/8:rw-",
		"ksym_hitgen_buf+8/8:---@1",
	};
	unsigned int k = rnd(&g->r, 100), nent = 1 + rnd(&g->r, 3), i;

	g->n = 0;
	if (k < 3) {
		while (g->n < WRITE_MAX + 100)
			put(g, "ksym_hitgen_buf+8/8:rw- ");
		put(g, "\n");
		return;
	}
	for (i = 0; i < nent; i++) {
		if (i)
			put(g, "%s", chance(&g->r, 70) ? " " : "\n");
		if (chance(&g->r, 20)) {
			put(g, "%s", hostile[rnd(&g->r, N(hostile))]);
			continue;
		}
		{
			const char *f = forms[rnd(&g->r, N(forms))];

			if (!strncmp(f, "RACERHEX", 8))
				put(g, "0x%lx%s", racer_addr, f + 8);
			else
				put(g, "%s", f);
		}
		k = rnd(&g->r, 100);
		put(g, ":%s", k < 45 ? "rw-" : k < 60 ? "-w-" : "---");
		if (k < 60 && chance(&g->r, 30))
			put(g, "@%s", nr_cpus_possible > 1 ? (chance(&g->r, 50) ? "1" : "0-1") : "0");
	}
	if (chance(&g->r, 90))
		put(g, "\n");
}

/* Maybe put a NUL somewhere (not for the racer, unless -Z is off: refused anyway). */
static void maybe_nul(struct gen *g)
{
	if (opt.no_nul || !g->n || !chance(&g->r, 3))
		return;
	g->buf[rnd(&g->r, g->n)] = '\0';
}

/* ------------------------------------------------------------------------
 * A writer
 */

struct shared {
	struct model m;		/* -m lock: the model both writers use */
	long writes[2], accepted[2], refused[2], closes[2], errcount[2][NR_ERRNOS + 1];
	volatile int stop;
	volatile long tstep;		/* -G: the trigger writes returned */
	char tcmd[160];			/* -G: the last one, for the watchdog */
	long objects, slot_flips;	/* -G: what the children did */
};

static struct shared *sh;

static int take_lock(int fd, bool on)
{
	if (fd < 0)
		return 0;
	while (flock(fd, on ? LOCK_EX : LOCK_UN)) {
		if (errno != EINTR) {
			perror("ksym-fuzz: flock");
			return -1;
		}
	}
	return 0;
}

static void count_err(int id, int err)
{
	size_t i;

	for (i = 0; i < NR_ERRNOS; i++)
		if (errnos[i].err == err)
			break;
	sh->errcount[id][i]++;
}

/* Print everything needed to reproduce a mismatch. */
static void report(int id, long step, const char *what, const struct model *before,
		   const char *pend, size_t plen, bool trunc, const char *buf, size_t n,
		   const struct outcome *o, long ret, int err, const char *got,
		   const char *want)
{
	char es[128], line[TARGET_MAX + 64];
	int i;

	errmask_str(o->errs, es, sizeof(es));
	printf("ksym-fuzz: MISMATCH (writer %d, seed %" PRIu64 ", step %ld, mode %s%s%s): %s\n",
	       id, opt.seed, step,
	       opt.mode == MODE_SINGLE ? "single" : opt.mode == MODE_LOCK ? "lock" : "race",
	       opt.legacy_blank ? ", -L" : "", opt.no_nul ? ", -Z" : "", what);
	if (opt.percpu_alias)
		printf("  (-A: per-CPU alias rule)\n");
	printf("  watches before:\n");
	for (i = 0; i < before->nr; i++) {
		spec_line(&before->w[i], line, sizeof(line));
		printf("    %s\n", line);
	}
	printf("  descriptor opened %s; pending on it: '", trunc ? "with O_TRUNC" : "without O_TRUNC");
	escape(stdout, pend, plen, 300);
	printf("'\n  %s: '", buf ? "write" : "close");
	if (buf)
		escape(stdout, buf, n, 600);
	printf("'\n  model: %s%s%s (%s)\n", o->ok ? "accept" : "",
	       o->ok && o->errs ? " or " : "", o->errs ? es : "", o->why);
	printf("  kernel: %s%s\n", ret < 0 ? "error " : "returned ",
	       ret < 0 ? strerror(err) : "");
	if (ret >= 0)
		printf("    (ret %ld)\n", ret);
	printf("  read back:\n%s", got);
	printf("  expected:\n%s", want);
	printf("  reproducer (busybox sh, in /sys/kernel/tracing):\n");
	printf("    echo 0 > ksym_trace_filter\n");
	for (i = 0; i < before->nr; i++) {
		spec_line(&before->w[i], line, sizeof(line));
		printf("    echo '%s' >> ksym_trace_filter\n", line);
	}
	printf("    exec 3%s ksym_trace_filter\n", trunc ? ">" : ">>");
	if (plen) {
		printf("    printf '");
		escape(stdout, pend, plen, ~0UL);
		printf("' >&3\n");
	}
	if (buf) {
		printf("    printf '");
		escape(stdout, buf, n, ~0UL);
		printf("' >&3; echo \"rc=$?\"; cat ksym_trace_filter\n");
		printf("    exec 3>&-\n");
	} else {
		printf("    exec 3>&-; echo \"rc=$?\"; cat ksym_trace_filter\n");
	}
	fflush(stdout);
}

/*
 * Check one syscall's result against the outcome; on success update the
 * model. Returns 0 when all is well.
 */
static int judge(int id, long step, struct model *m,
		 const char *pend, size_t plen, bool trunc, const char *buf, size_t n,
		 const struct outcome *o, long ret, int err, bool *succeeded)
{
	static char got[65536], want[65536];
	struct model before = *m;
	bool ok;

	if (ret >= 0) {
		ok = o->ok && (!buf || (size_t)ret == n);
		*succeeded = true;
	} else {
		ok = (o->errs & errno_bit(err)) != 0;
		*succeeded = false;
	}
	if (ok && *succeeded)
		*m = o->after;
	if (!ok) {
		check_readback(m, got, sizeof(got), want, sizeof(want));
		report(id, step, ret >= 0 ? "accepted, model says refuse" :
		       "refused, model says otherwise", &before, pend, plen, trunc,
		       buf, n, o, ret, err, got, want);
		return 1;
	}
	if (check_readback(m, got, sizeof(got), want, sizeof(want))) {
		report(id, step, *succeeded ? "accepted, but the watch set is not its documented effect" :
		       "refused, but the watch set changed", &before, pend, plen, trunc,
		       buf, n, o, ret, err, got, want);
		return 1;
	}
	return 0;
}

static int writer(int id)
{
	static char buf[BUF_MAX], pend[WRITE_MAX * 2];
	struct model local = { 0 }, *m;
	struct gen g = { 0 };
	size_t plen = 0;
	bool trunc = false, wrote = false;
	long quota, done = 0, step = 0;
	int fd = -1, lockfd = -1, ret = 1;
	bool checked = !(opt.mode == MODE_RACE && id == 1);

	g.r.s = opt.seed * 1000003ULL + id * 7919ULL + 1;
	g.buf = buf;
	g.racer = !checked;
	m = opt.mode == MODE_LOCK ? &sh->m : &local;
	g.m = checked ? m : NULL;
	quota = opt.mode == MODE_SINGLE ? opt.writes : (opt.writes + 1 - id) / 2;

	if (opt.mode == MODE_LOCK) {
		lockfd = open(LOCK_FILE, O_RDWR | O_CREAT, 0600);
		if (lockfd < 0) {
			perror("ksym-fuzz: " LOCK_FILE);
			goto cleanup;
		}
	}

	while (done < quota && !out_of_time()) {
		size_t off = 0, cut;
		int pieces;

		if (fd < 0) {
			/* O_TRUNC as "echo >" opens; the racer never clears. */
			trunc = checked && chance(&g.r, 20);
			wrote = false;
			fd = open(opt.filter, O_WRONLY | (trunc ? O_TRUNC : 0));
			if (fd < 0) {
				fprintf(stderr, "ksym-fuzz: open %s: %s\n", opt.filter,
					strerror(errno));
				goto cleanup;
			}
			plen = 0;
		}
		if (checked)
			gen_logical(&g);
		else
			gen_racer(&g);
		maybe_nul(&g);
		pieces = chance(&g.r, 50) ? 1 : 2 + rnd(&g.r, 3);
		if (chance(&g.r, 1))
			pieces = 0;	/* a zero-length write */
		/* A cast cut between two write() calls. */
		cut = pieces && g.cut && g.cut < g.n && chance(&g.r, 30) ? g.cut : 0;
		if (cut && pieces < 2)
			pieces = 2;

		do {
			size_t n = g.n - off;
			struct outcome o;
			bool succeeded;
			long r;
			int err;

			if (cut && !off)
				n = cut;
			else if (pieces > 1 && n > 1)
				n = 1 + rnd(&g.r, n - 1);
			if (!pieces)
				n = 0;
			if (take_lock(lockfd, true))
				goto cleanup;
			if (checked)
				model_write(m, pend, plen, buf + off, n, &o);
			if (opt.verbose) {
				printf("[%d] write '", id);
				escape(stdout, buf + off, n, 200);
				printf("'\n");
			}
			r = write(fd, buf + off, n);
			err = errno;
			step++;
			done++;
			sh->writes[id]++;
			if (opt.progress && done % 5000 == 0) {
				FILE *pf = fopen(opt.progress, "a");

				if (pf) {
					fprintf(pf, "ksym-fuzz: seed %" PRIu64 " writer %d: %ld of %ld writes\n",
						opt.seed, id, done, quota);
					fclose(pf);
				}
			}
			if (r < 0) {
				sh->refused[id]++;
				count_err(id, err);
			} else {
				sh->accepted[id]++;
			}
			if (checked) {
				if (judge(id, step, m, pend, plen, trunc, buf + off, n, &o,
					  r, err, &succeeded)) {
					take_lock(lockfd, false);
					goto cleanup;
				}
				plen = pending_after(pend, plen, buf + off, n, succeeded);
				if (n && rule_wrote(buf + off, n, !succeeded))
					wrote = true;
			}
			take_lock(lockfd, false);
			off += n;
			pieces--;
			/*
			 * A refused piece took the pending data with it: the rest
			 * of a token cut there would be a fragment, which can spell
			 * a real symbol the model does not know ("x", "var").
			 */
			if (r < 0 && off < g.n && !is_sep(buf[off - 1]))
				break;
		} while (off < g.n && pieces > 0);

		/* Sometimes close (applying what is pending) and reopen. */
		if (chance(&g.r, 15) || done >= quota) {
			struct outcome o;
			bool succeeded;
			int r, err;

			if (take_lock(lockfd, true))
				goto cleanup;
			if (checked)
				model_close(m, pend, plen, trunc, wrote, &o);
			r = close(fd);
			err = errno;
			fd = -1;
			step++;
			sh->closes[id]++;
			if (checked && judge(id, step, m, pend, plen, trunc, NULL, 0,
					     &o, r, err, &succeeded)) {
				take_lock(lockfd, false);
				goto cleanup;
			}
			plen = 0;
			take_lock(lockfd, false);
		}
	}
	ret = 0;
cleanup:
	if (fd >= 0)
		close(fd);
	if (lockfd >= 0)
		close(lockfd);
	return ret;
}

/* ------------------------------------------------------------------------
 * Hits
 */

static int hitter(void)
{
	static const struct {
		const char *file;
		const char *n;
	} jobs[] = {
		{ "write_a", "100" }, { "write_u32", "50" }, { "read", "50" },
		{ "write_b", "20" }, { "spread", "2" }, { "rec_count", "50" },
		{ "rec_name", "20" }, { "pcpu_write", "50" }, { "pcpu_remote", "10" },
	};
	unsigned int i = 0;
	char path[256];

	while (!sh->stop) {
		int fd;

		snprintf(path, sizeof(path), HITGEN_DIR "/%s", jobs[i % N(jobs)].file);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "ksym-fuzz: hitter: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (write(fd, jobs[i % N(jobs)].n, strlen(jobs[i % N(jobs)].n)) < 0) {
			fprintf(stderr, "ksym-fuzz: hitter: write %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		close(fd);
		i++;
		if (i % 16 == 0 && fork() == 0)
			_exit(0);	/* forks write total_forks */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		/* Hits all along, but leave the writers most of the CPU (TCG). */
		usleep(2000);
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Triggers (-G): ksym_watch and ksym_unwatch on ksym_hitgen's object events
 *
 * The model follows Documentation/trace/ksym.rst ("Objects found at run
 * time") and the tracing core's trigger files (kernel/trace/
 * trace_events_trigger.c): a write is one command, trimmed, cut at its
 * first NUL (memdup_user_nul()), at most 4095 bytes; the command name ends
 * at ':', ' ' or '\t'; O_TRUNC removes no ksym trigger (they have no
 * unreg_all). The parameter ends at a blank but for blanks in a cast; what
 * follows is "if FILTER". Reading the file shows each trigger as
 * "CMD:CANON:unlimited" or "CMD:CANON:count=N", then " if FILTER"; a
 * count goes down as the trigger fires (misses too), so a trigger whose
 * filter can match is only known to have a count no larger than before.
 */

#define TRIG_DIR	"/sys/kernel/tracing/events/ksym_hitgen"
#define TRIG_ERRLOG	"/sys/kernel/tracing/error_log"
#define TRIG_SLOTS	"/sys/kernel/tracing/ksym_trigger_slots"
#define TRIG_STAT	"/sys/kernel/tracing/trace_stat/ksym_triggers"
#define TRIG_MAX	64	/* triggers per event the model holds */
#define TRIG_SOFT	10	/* the generator removes more above this */
#define TCANON_MAX	(WRITE_MAX + 64)

static const char *const trig_events[] = { "ksym_hitgen_obj_alloc", "ksym_hitgen_obj_free" };

/* struct ksym_hitgen_obj (kernel/trace/ksym_hitgen.c), what the field obj points to. */
static const struct fmember m_obj[] = {
	{ "id", 0, &t_ulong }, { "count", 8, &t_ulong }, { "flags", 16, &t_u32 },
};
static const struct ftype t_obj = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_obj", .size = 24,
	.members = m_obj, .nmembers = 3,
};

/* The events' fields that hold no address (common and generic ones). */
static const char *const trig_noaddr_fields[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"CPU", "cpu", "COMM", "comm", "common_cpu", "common_comm",
};

/* Filters the generator writes after "if": valid or not, and whether they can match. */
static const struct {
	const char *f;
	bool ok;
	bool fires;
} trig_filters[] = {
	{ "obj == 0", true, false }, { "obj != 0", true, true },
	{ "common_pid < 0", true, false }, { "common_pid >= 0", true, true },
	{ "obj == 0 || obj != 0", true, true }, { "obj == 0 && common_pid > 0", true, false },
	{ "nosuch == 1", false, false }, { "obj ==", false, false },
	{ "obj == 0 &&", false, false }, { "(obj == 0", false, false },
	{ "== 0", false, false }, { "obj == 0)", false, false },
};

struct ktrig {
	bool unwatch;
	char canon[TCANON_MAX];		/* without count and filter */
	long count;			/* -1 unlimited; else as last shown */
	bool fires;			/* its filter can match: the count moves */
	char filter[160];		/* as shown after " if ", "" none */
	char written[WRITE_MAX];	/* the command that set it */
};

struct tfile {
	int nr;
	struct ktrig t[TRIG_MAX];	/* newest first, as the file lists them */
};

enum tres { TR_NOP, TR_ADD, TR_REMOVE, TR_ERR };
enum tlog { TL_NONE, TL_KSYM, TL_FILTER };

struct toutcome {
	enum tres res;
	unsigned int errs;		/* TR_ERR: the errno bits allowed */
	enum tlog log;			/* TR_ERR: the error_log line it adds */
	bool either;			/* TR_REMOVE, or EINVAL + TL_KSYM (a count raced) */
	bool trailing;			/* refused for text after the entry that is no "if FILTER" */
	struct ktrig add;
	int rm;
	char text[WRITE_MAX + 16];	/* the command as error_log shows it */
	char why[200];
};

static void twhy(struct toutcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void twhy(struct toutcome *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

/* Documented rule: every refused ksym_* command says why in error_log. -W: not for trailing text. */
static bool rule_trailing_logged(void)
{
	return !opt.trailing_unlogged;
}

static void trig_line(const struct ktrig *t, char *buf, size_t size)
{
	char cnt[32];

	if (t->count < 0)
		snprintf(cnt, sizeof(cnt), "unlimited");
	else
		snprintf(cnt, sizeof(cnt), "count=%ld", t->count);
	snprintf(buf, size, "%s:%s:%s%s%s", t->unwatch ? "ksym_unwatch" : "ksym_watch",
		 t->canon, cnt, t->filter[0] ? " if " : "", t->filter);
}

/* The end of a trigger's parameter: a blank, but for spaces and tabs in a cast. */
static char *trig_param_end(char *p)
{
	bool in_cast = false;

	for (; *p; p++) {
		if (*p == '(')
			in_cast = true;
		else if (*p == ')')
			in_cast = false;
		else if (strchr(" \t\n\r\v\f", *p) && !(in_cast && (*p == ' ' || *p == '\t')))
			break;
	}
	return p;
}

/*
 * ksym_trigger_find(): the newest trigger of @unwatch's kind whose canon is
 * @s; with @shown also the file's form (count included) or the canon cut
 * before its first '['. *@raced: matched only by a count that may have
 * moved on.
 */
static int trig_find(const struct tfile *f, bool unwatch, const char *s, bool shown,
		     bool *raced)
{
	char cnt[32];
	size_t n;
	int i;

	*raced = false;
	for (i = 0; i < f->nr; i++) {
		const struct ktrig *t = &f->t[i];

		if (t->unwatch != unwatch)
			continue;
		if (!strcmp(t->canon, s))
			return i;
		if (!shown)
			continue;
		n = strlen(s);
		if (n < strlen(t->canon)) {
			if (!strncmp(t->canon, s, n) && t->canon[n] == '[')
				return i;
			continue;
		}
		n = strlen(t->canon);
		if (strncmp(t->canon, s, n))
			continue;
		if (t->count < 0) {
			if (!strcmp(s + n, ":unlimited"))
				return i;
			continue;
		}
		snprintf(cnt, sizeof(cnt), ":count=%ld", t->count);
		if (!strcmp(s + n, cnt)) {
			*raced = t->fires && t->count > 0;
			return i;
		}
	}
	return -1;
}

/*
 * ksym_trigger_parse_param(): @param (modified) into @t; 0 or the errno
 * bit. *@count: the count's text, or NULL.
 */
static unsigned int trig_parse_param(char *param, struct ktrig *t, char **count,
				     struct toutcome *o)
{
	static struct outcome wo;
	char *p = param, *field, *path, *colon, *slash, *plus;
	char cast[600] = "", pcanon[TCANON_MAX] = "";
	bool is_union = false, have_cast = false, neg = false;
	const struct ftype *ty = NULL;
	unsigned long off = 0, len = 0, toff = 0, v, size;
	const char *access = NULL;
	unsigned int e;
	size_t flen, i;
	int d;

	*count = NULL;
	if (!t->unwatch && *p == '(') {
		p = parse_cast(p, &is_union, cast, sizeof(cast));
		if (!p) {
			twhy(o, "bad cast");
			return EB_EINVAL;
		}
		have_cast = true;
	}
	field = p;
	while (is_ident(*p))
		p++;
	if (p == field || isdigit((unsigned char)*field)) {
		twhy(o, "no FIELD at '%.20s'", field);
		return EB_EINVAL;
	}
	flen = p - field;
	path = p;
	colon = strchr(p, ':');
	if (t->unwatch) {
		if (colon) {
			*colon = '\0';
			*count = colon + 1;
		}
		/* An offset from the field, as ksym_watch's: "+N" or "-N". */
		if ((*p == '+' || *p == '-') &&
		    !parse_trigger_offset(o, p, &off, &neg))
			return EB_EINVAL;
		if (*p && *p != '+' && *p != '-') {
			twhy(o, "ksym_unwatch takes no path: '%.20s'", p);
			return EB_EINVAL;
		}
	} else {
		if (!colon) {
			twhy(o, "no :ACCESS");
			return EB_EINVAL;
		}
		*colon = '\0';
		access = colon + 1;
		colon = strchr(access, ':');
		if (colon) {
			*colon = '\0';
			*count = colon + 1;
		}
		if (strcmp(access, "rw-") && strcmp(access, "-w-") && strcmp(access, "r--") &&
		    strcmp(access, "--x") && strcmp(access, "---")) {
			twhy(o, "bad access '%.20s'", access);
			return EB_EINVAL;
		}
		if (strcmp(access, "rw-") && strcmp(access, "-w-")) {
			twhy(o, "a trigger watches data: '%s'", access);
			return EB_EINVAL;
		}
		slash = strchr(path, '/');
		if (slash) {
			*slash = '\0';
			if (!parse_num(slash + 1, 0, &len) ||
			    (len != 1 && len != 2 && len != 4 && len != 8)) {
				twhy(o, "bad LEN '%.20s'", slash + 1);
				return EB_EINVAL;
			}
		}
		plus = strpbrk(path, "+-");
		if (plus) {
			if (!parse_trigger_offset(o, plus, &off, &neg))
				return EB_EINVAL;
			*plus = '\0';
		}
	}
	if (*count && (!parse_num(*count, 0, &v) || v > (unsigned long)LONG_MAX)) {
		twhy(o, "bad count '%.20s'", *count);
		return EB_EINVAL;
	}
	/* The field. */
	if (flen == 3 && !strncmp(field, "obj", 3))
		goto field_ok;
	for (i = 0; i < N(trig_noaddr_fields); i++)
		if (strlen(trig_noaddr_fields[i]) == flen &&
		    !strncmp(field, trig_noaddr_fields[i], flen)) {
			twhy(o, "field '%s' holds no address", trig_noaddr_fields[i]);
			return EB_EINVAL;
		}
	twhy(o, "no field '%.*s'", (int)(flen < 40 ? flen : 40), field);
	return EB_ENOENT;
field_ok:
	if (t->unwatch) {
		if (off)
			snprintf(t->canon, sizeof(t->canon), "obj%c0x%lx",
				 neg ? '-' : '+', off);
		else
			snprintf(t->canon, sizeof(t->canon), "obj");
		return 0;
	}
	/* The type: the cast, or the field's own struct ksym_hitgen_obj. */
	if (have_cast) {
		if (!strcmp(cast, "ksym_hitgen_obj")) {
			ty = is_union ? NULL : &t_obj;
			if (!ty) {
				twhy(o, "no union ksym_hitgen_obj");
				return EB_ENOENT;
			}
		} else if ((strcmp(cast, "ksym_hitgen_rec") && strcmp(cast, "ksym_hitgen_pcpu")) ||
			   !find_cast(is_union, cast, &ty) || !ty) {
			/* Others: nx names, or one of ours with a byte dropped. */
			twhy(o, "no %s %s", is_union ? "union" : "struct", cast);
			return EB_ENOENT;
		}
	} else {
		ty = &t_obj;
	}
	e = walk_path(path, &ty, &toff, pcanon, sizeof(pcanon), &wo);
	if (e) {
		twhy(o, "path: %s", wo.why);
		return e;
	}
	size = ty->size;
	toff = neg ? toff - off : toff + off;
	if (off)
		size = 0;
	if (len && size && len > size) {
		twhy(o, "LEN %lu larger than the field (%lu)", len, size);
		return EB_EINVAL;
	}
	if (!len) {
		d = default_len(toff, size);
		if (d <= 0) {
			twhy(o, "+OFFSET needs /LEN");
			return EB_EINVAL;
		}
		len = d;
	}
	{
		char offs[32] = "";

		if (off)
			snprintf(offs, sizeof(offs), "%c0x%lx", neg ? '-' : '+',
				 off);
		/* The cast only where it was written ("struct NAME", as canonical). */
		snprintf(t->canon, sizeof(t->canon), "%s%s%s%.*s%s%s/%lu:%s",
			 have_cast ? "(struct " : "", have_cast ? cast : "", have_cast ? ")" : "",
			 (int)flen, field, pcanon, offs, len, access);
	}
	return 0;
}

/* A filter after the entry: (set_trigger_filter()) "if", a blank, FILTER. */
static unsigned int trig_filter(char *ftext, struct ktrig *t, struct toutcome *o)
{
	char *rest;
	size_t i;

	t->fires = true;
	t->filter[0] = '\0';
	if (!ftext)
		return 0;
	rest = ftext + strcspn(ftext, " \t");
	if (strncmp(ftext, "if", rest - ftext) || rest - ftext != 2 || !*rest) {
		twhy(o, "'%.20s' after the entry is no 'if FILTER'", ftext);
		o->trailing = true;
		return EB_EINVAL;
	}
	rest++;
	for (i = 0; i < N(trig_filters); i++)
		if (!strcmp(rest + strspn(rest, " \t"), trig_filters[i].f))
			break;
	if (i == N(trig_filters)) {
		fprintf(stderr, "ksym-fuzz: internal: a filter the model does not know: %s\n", rest);
		exit(2);
	}
	if (!trig_filters[i].ok) {
		/*
		 * The filter parser's errno, any: EINVAL, EPERM ("Too few '('"),
		 * ENOENT ("Too many '('").
		 */
		twhy(o, "bad filter '%s'", rest);
		o->log = TL_FILTER;
		return ~0U;
	}
	t->fires = trig_filters[i].fires;
	snprintf(t->filter, sizeof(t->filter), "%s", rest);
	return 0;
}

/* One write(2) of @n bytes to the trigger file whose triggers are @f. */
static void trig_model(const struct tfile *f, const char *buf, size_t n, struct toutcome *o)
{
	static char b[WRITE_MAX + 1], pbuf[WRITE_MAX + 1];
	char *s, *e, *cmd, *next, *param, *end, *ftext, *count;
	bool remove, raced;
	unsigned int err;
	int i;

	memset(o, 0, sizeof(*o));
	o->res = TR_ERR;
	o->errs = EB_EINVAL;
	o->log = TL_NONE;
	o->rm = -1;
	if (!n) {
		o->res = TR_NOP;
		twhy(o, "an empty write");
		return;
	}
	if (n >= WRITE_MAX) {
		twhy(o, "%zu bytes: a page or more", n);
		return;
	}
	memcpy(b, buf, n);
	b[n] = '\0';		/* and the first NUL ends it */
	for (s = b; k_isspace(*s); s++)
		;
	for (e = s + strlen(s); e > s && k_isspace(e[-1]); e--)
		;
	*e = '\0';
	cmd = s;
	next = s + strcspn(s, ": \t");
	if (*next) {
		*next++ = '\0';
		while (k_isspace(*next))
			next++;
		if (!*next)
			next = NULL;
	} else {
		next = NULL;
	}
	remove = cmd[0] == '!';
	if (strcmp(cmd + remove, "ksym_watch") && strcmp(cmd + remove, "ksym_unwatch")) {
		twhy(o, "no such command '%.20s'", cmd);
		return;
	}
	snprintf(o->text, sizeof(o->text), "%s:%s", cmd, next ? next : "");
	o->log = TL_KSYM;
	o->add.unwatch = !strcmp(cmd + remove, "ksym_unwatch");
	o->add.count = -1;
	if (!next) {
		twhy(o, "no parameter");
		return;
	}
	param = next;
	end = trig_param_end(param);
	ftext = NULL;
	if (*end) {
		ftext = end + 1;
		while (k_isspace(*ftext))
			ftext++;
		if (!*ftext)
			ftext = NULL;
	}
	*end = '\0';
	snprintf(pbuf, sizeof(pbuf), "%s", param);

	/* Text after the entry that is no "if FILTER": refused first, logged. */
	if (ftext && rule_trailing_logged()) {
		char *rest = ftext + strcspn(ftext, " \t");

		if (strncmp(ftext, "if", rest - ftext) || rest - ftext != 2 || !*rest) {
			twhy(o, "'%.20s' after the entry is no 'if FILTER'", ftext);
			o->trailing = true;
			return;
		}
	}

	if (remove) {
		i = trig_find(f, o->add.unwatch, param, true, &raced);
		if (i < 0 || raced) {
			err = trig_parse_param(pbuf, &o->add, &count, o);
			if (!err) {
				int j = trig_find(f, o->add.unwatch, o->add.canon, false, &raced);

				if (j < 0 && i < 0) {
					twhy(o, "no trigger %s to remove", o->add.canon);
					o->errs = EB_ENOENT;
					return;
				}
				if (j >= 0)
					i = j, raced = false;
			} else if (i < 0) {
				o->errs = err;
				return;
			} else {
				/* Removed, or the count moved on: refused as a bad count. */
				o->either = true;
				o->errs = err;
			}
		}
		o->res = TR_REMOVE;
		o->rm = i;
		twhy(o, "removes %s%s", f->t[i].canon, o->either ? " (or a bad count, if it fired)" : "");
		return;
	}
	err = trig_parse_param(pbuf, &o->add, &count, o);
	if (err) {
		o->errs = err;
		return;
	}
	if (trig_find(f, o->add.unwatch, o->add.canon, false, &raced) >= 0) {
		twhy(o, "%s is already set", o->add.canon);
		o->errs = EB_EEXIST;
		return;
	}
	if (count) {
		unsigned long v;

		parse_num(count, 0, &v);
		o->add.count = v;
	}
	o->log = TL_NONE;
	err = trig_filter(ftext, &o->add, o);
	if (err) {
		o->errs = err;
		if (o->trailing && rule_trailing_logged())
			o->log = TL_KSYM;
		return;
	}
	snprintf(o->add.written, sizeof(o->add.written), "%.*s", (int)(n < WRITE_MAX ? n : WRITE_MAX - 1), buf);
	o->res = TR_ADD;
	twhy(o, "adds %s", o->add.canon);
}

static void trig_apply(struct tfile *f, const struct toutcome *o)
{
	if (o->res == TR_ADD && f->nr < TRIG_MAX) {
		memmove(&f->t[1], &f->t[0], f->nr * sizeof(f->t[0]));
		f->t[0] = o->add;
		f->nr++;
	} else if (o->res == TR_REMOVE) {
		memmove(&f->t[o->rm], &f->t[o->rm + 1], (f->nr - o->rm - 1) * sizeof(f->t[0]));
		f->nr--;
	}
}

/* Generator */

static const char *const trig_seps[] = { ":", ":", ":", ":", ":", " ", "\t", ": ", ":\t" };
static const char *const trig_good_counts[] = {
	"1", "5", "0", "3", "0x10", "010", "+3", "9223372036854775807", "100",
};
static const char *const trig_bad_counts[] = {
	"", "x", "-1", "1.5", "0x", "9223372036854775808", "99999999999999999999",
	"count=3", "unlimited", "1:2", "08", "1 2",
};
static const char *const trig_bad_fields[] = {
	"nosuch", "Obj", "obj2", "9obj", "common_pid", "cpu", "comm", "common_type",
	"", "_obj", "COMM", "objobj", "common_preempt_count", "o",
};
static const char *const trig_bad_access[] = {
	"r--", "--x", "---", "rwx", "rw", "w", "", "-w", "RW-", "-W-", "rw- ", "-w--",
};
static const char *const trig_garbage[] = {
	"", " ", "\n", "!", "ksym_watch", "ksym_watch:", "ksym_unwatch", "!ksym_watch",
	"!ksym_unwatch:", "ksym_watchx:obj:-w-", "KSYM_WATCH:obj:-w-", "ksym_watch::-w-",
	"ksym_watch:obj", "ksym_watch:obj:", "ksym_watch:obj.count", "ksym_watch:obj::-w-",
	"ksym_watch:obj.count:-w-:", "ksym_unwatch:obj:", "ksym_unwatch:obj.count",
	"ksym_unwatch:(struct ksym_hitgen_obj)obj", "ksym_watch:obj.count:-w- if",
	"ksym_watch:obj.count:-w- iff obj == 0", "ksym_watch:obj.count:-w- obj == 0",
	"ksym_watch:obj.count:-w- if\t", "nosuchcommand", "ksym_watch:obj.count:-w-:1:2",
	"!!ksym_watch:obj.count:-w-", "ksym_watch:obj.count:w", "ksym_watch:obj[0]:-w-",
	"ksym_watch:obj.count/8/8:-w-", "ksym_watch:obj++8/8:-w-", "ksym_watch:obj+:-w-",
	"ksym_watch:obj.count+0x1001/1:-w-", "ksym_watch:obj+4096/8:-w-",
	"ksym_watch:obj.count\n:-w-", "ksym_watch:obj.\tcount:-w-", "#",
	"ksym_watch:obj.count:-w- # comment", "ksym_watch:obj.count:-w-\nksym_watch:obj.id:-w-",
	"ksym_watch:obj.count:-w-;", "ksym_watch:obj.count:-w-\t\t", "ksym_unwatch:obj obj",
	"ksym_watch:obj/0:-w-", "ksym_watch:obj+8:-w-", "ksym_watch:obj.id/16:-w-",
	"ksym_watch:(struct ksym_hitgen_obj) obj.count:-w-", "ksym_watch: (struct ksym_hitgen_obj)obj.id:rw-",
	"ksym_watch:(struct ksym_hitgen_obj)(struct ksym_hitgen_obj)obj.id:rw-",
	"ksym_watch:(union ksym_hitgen_obj)obj.id:rw-", "ksym_watch:(struct ksym_fuzz_nx_t)obj:rw-",
	"ksym_unwatch:obj:-w-", "ksym_unwatch:obj:0x", "ksym_watch:obj.flags/8:-w-",
	"ksym_watch:(struct ksym_hitgen_rec)obj.name[8]:-w-", "ksym_watch:obj.count[0]:-w-",
};
static const char *const trig_mut[] = { ".", ":", "[", "]", "(", ")", "+", "/", "!", " ", "\t", "\n", "#", "" };

/* A cast for a trigger: the field's own type spelled out, or another struct. */
static const struct ftype *trig_put_type(struct gen *g, unsigned int bad_pct)
{
	unsigned int k = rnd(&g->r, 100);

	if (chance(&g->r, bad_pct)) {
		put(g, "%s", PICK(g, bad_casts));
		return NULL;
	}
	if (k < 65)
		return &t_obj;
	if (k < 80) {
		put_cast(g, "struct", "ksym_hitgen_obj");
		return &t_obj;
	}
	if (k < 92) {
		put_cast(g, "struct", "ksym_hitgen_rec");
		return &t_rec;
	}
	put_cast(g, "struct", "ksym_hitgen_pcpu");
	return &t_pcpu;
}

/* A count and a filter, each now and then. */
static void trig_put_tail(struct gen *g, bool hostile, size_t *pre)
{
	if (chance(&g->r, 30))
		put(g, ":%s", hostile && chance(&g->r, 30) ? PICK(g, trig_bad_counts) :
		    PICK(g, trig_good_counts));
	*pre = g->n;
	if (chance(&g->r, 25))
		put(g, "%s%s%s", PICK(g, cast_gap), PICK(g, ((const char *const[]){ "if ", "if ", "if\t", "if  " })),
		    trig_filters[rnd(&g->r, hostile ? N(trig_filters) : 6)].f);
}

/* A ksym_watch or ksym_unwatch command, valid or (@hostile) perhaps not. */
static void trig_gen_set(struct gen *g, bool hostile, size_t *pre)
{
	unsigned int bad = hostile ? 25 : 0, off = 0, o = 0;
	const struct ftype *t;

	if (chance(&g->r, 20)) {
		put(g, "ksym_unwatch%s%s", PICK(g, trig_seps),
		    chance(&g->r, bad) ? PICK(g, trig_bad_fields) : "obj");
		/* An offset from the field (a return probe's stack pointer). */
		if (chance(&g->r, 10))
			put(g, "%c%u", chance(&g->r, 50) ? '-' : '+',
			    PICK(g, ((const unsigned int[]){ 0, 8, 16384, 16385 })));
		trig_put_tail(g, hostile, pre);
		return;
	}
	put(g, "ksym_watch%s", PICK(g, trig_seps));
	t = trig_put_type(g, bad / 3);
	put(g, "%s", chance(&g->r, bad / 3) ? PICK(g, trig_bad_fields) : "obj");
	if (t)
		t = put_path(g, t, bad, &off);
	if (chance(&g->r, 12)) {
		static const unsigned int offs[] = { 4, 8, 16, 24, 1, 2, 4096, 4097, 0,
						     16384, 16385 };

		o = PICK(g, offs);
		/* Below the field too: a local below a stack pointer. */
		if (chance(&g->r, 20))
			put(g, chance(&g->r, 50) ? "-%u" : "-0x%x", o);
		else
			put(g, chance(&g->r, 50) ? "+%u" : "+0x%x", o);
	}
	if (o || chance(&g->r, 40)) {
		if (chance(&g->r, bad))
			put(g, "/%s", PICK(g, bad_lens));
		else if (chance(&g->r, 20))
			put(g, "/%s", PICK(g, good_lens_alt));
		else
			put(g, "/%u", 1U << rnd(&g->r, 4));
	}
	put(g, ":%s", chance(&g->r, bad) ? PICK(g, trig_bad_access) :
	    chance(&g->r, 50) ? "-w-" : "rw-");
	trig_put_tail(g, hostile, pre);
}

/* Removal of one of @f's triggers, in one of the forms the kernel takes. */
static void trig_gen_remove(struct gen *g, const struct tfile *f)
{
	const struct ktrig *t = &f->t[rnd(&g->r, f->nr)];
	const char *cmd = t->unwatch ? "ksym_unwatch" : "ksym_watch";
	char line[TCANON_MAX + 256];
	unsigned int k = rnd(&g->r, 100);
	const char *w = t->written;

	if (k < 25) {
		while (k_isspace(*w))
			w++;
		put(g, "!%s", w);
	} else if (k < 55) {
		trig_line(t, line, sizeof(line));
		put(g, "!%s", line);
	} else if (k < 80) {
		put(g, "!%s%s%s", cmd, PICK(g, trig_seps), t->canon);
	} else {
		put(g, "!%s:%.*s", cmd, (int)strcspn(t->canon, "["), t->canon);
	}
}

/*
 * One trigger command in g->buf: a valid one, a removal (written or shown
 * form), a duplicate, or hostile input. *@pre: where a NUL may go.
 */
static void trig_gen(struct gen *g, const struct tfile *f)
{
	unsigned int k = rnd(&g->r, 100);
	size_t pre;

	g->n = 0;
	g->cut = 0;
	if (f->nr > TRIG_SOFT)
		k = k < 50 ? 30 : k;
	if (k < 25) {
		trig_gen_set(g, false, &pre);
	} else if (k < 50 && f->nr) {
		trig_gen_remove(g, f);
		pre = g->n;
	} else if (k < 55 && f->nr) {
		const char *w = f->t[rnd(&g->r, f->nr)].written;

		put(g, "%s", w);
		pre = g->n;
	} else if (k < 60) {
		put(g, "!");
		trig_gen_set(g, chance(&g->r, 50), &pre);
	} else if (k < 72) {
		put(g, "%s", PICK(g, trig_garbage));
		pre = g->n;
	} else {
		trig_gen_set(g, true, &pre);
	}
	/* Mutations before the filter: a byte changed, inserted or dropped. */
	if (chance(&g->r, 10) && pre) {
		size_t at = rnd(&g->r, pre);
		const char *m = PICK(g, trig_mut);

		if (*m && chance(&g->r, 50)) {
			g->buf[at] = *m;
		} else if (*m && g->n + 1 < BUF_MAX) {
			memmove(g->buf + at + 1, g->buf + at, g->n - at);
			g->buf[at] = *m;
			g->n++;
			pre++;
		} else {
			memmove(g->buf + at, g->buf + at + 1, g->n - at - 1);
			g->n--;
			pre--;
		}
	}
	/* Blanks around, a NUL, a page or more. */
	k = rnd(&g->r, 100);
	if (k < 8) {
		memmove(g->buf + 3, g->buf, g->n);
		memcpy(g->buf, " \t\n", 3);
		g->n += 3;
		pre += 3;
	} else if (k < 14) {
		put(g, "%s", chance(&g->r, 50) ? "\n" : " \t \n");
	} else if (k < 18 && !opt.no_nul) {
		size_t at = rnd(&g->r, pre + 1);

		if (g->n + 1 < BUF_MAX) {
			memmove(g->buf + at + 1, g->buf + at, g->n - at);
			g->buf[at] = '\0';
			g->n++;
		}
	} else if (k < 19 && !opt.no_nul) {
		g->buf[g->n++] = '\0';
		put(g, "ksym_watch:obj.id:rw-");
	} else if (k < 21) {
		size_t pad = 4000 + rnd(&g->r, 200);

		if (g->n + pad < BUF_MAX) {
			memmove(g->buf + pad, g->buf, g->n);
			memset(g->buf, chance(&g->r, 50) ? ' ' : '\n', pad);
			g->n += pad;
		}
	}
}

/* Runner */

static int read_file(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (n + 1 < size && (r = read(fd, buf + n, size - n - 1)) > 0)
		n += r;
	buf[n] = '\0';
	close(fd);
	return n;
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void trig_path(int fi, char *buf, size_t size)
{
	snprintf(buf, size, TRIG_DIR "/%s/trigger", trig_events[fi]);
}

/*
 * The trigger file against the model: the same triggers, each once; a
 * count no larger than the model's (equal if its filter cannot match),
 * which the model then takes. Returns 0, or 1 with @want filled.
 */
static int trig_check(struct tfile *f, int fi, char *got, size_t gsize, char *want,
		      size_t wsize)
{
	char path[256], *line, *save, prefix[TCANON_MAX + 32], buf[TCANON_MAX + 256];
	static char copy[65536];
	bool seen[TRIG_MAX] = { false };
	long cnt[TRIG_MAX];
	size_t wn = 0;
	int i, bad = 0;

	trig_path(fi, path, sizeof(path));
	if (read_file(path, got, gsize) < 0) {
		snprintf(want, wsize, "(cannot read %s: %s)\n", path, strerror(errno));
		return 1;
	}
	want[0] = '\0';
	for (i = 0; i < f->nr; i++) {
		trig_line(&f->t[i], buf, sizeof(buf));
		wn += snprintf(want + wn, wsize > wn ? wsize - wn : 0, "%s%s\n", buf,
			       f->t[i].fires && f->t[i].count > 0 ? "  (or a lower count)" : "");
		cnt[i] = f->t[i].count;
	}
	snprintf(copy, sizeof(copy), "%s", got);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		for (i = 0; i < f->nr; i++) {
			const struct ktrig *t = &f->t[i];
			const char *rest, *flt;
			char *end;
			long k = -1;

			if (seen[i])
				continue;
			snprintf(prefix, sizeof(prefix), "%s:%s:",
				 t->unwatch ? "ksym_unwatch" : "ksym_watch", t->canon);
			if (strncmp(line, prefix, strlen(prefix)))
				continue;
			rest = line + strlen(prefix);
			if (!strncmp(rest, "unlimited", 9)) {
				flt = rest + 9;
			} else if (!strncmp(rest, "count=", 6)) {
				k = strtol(rest + 6, &end, 10);
				flt = end;
			} else {
				continue;
			}
			if (t->filter[0]) {
				if (strncmp(flt, " if ", 4) || strcmp(flt + 4, t->filter))
					continue;
			} else if (*flt) {
				continue;
			}
			if ((t->count < 0) != (k < 0) || k > t->count ||
			    (!t->fires && k != t->count))
				continue;
			seen[i] = true;
			cnt[i] = k;
			break;
		}
		if (i == f->nr)
			bad = 1;
	}
	for (i = 0; i < f->nr; i++) {
		if (!seen[i])
			bad = 1;
		else
			f->t[i].count = cnt[i];
	}
	return bad;
}

/* error_log after a write: the line the model expects, with its caret in the command. */
static int trig_check_log(int fi, const struct toutcome *o, bool refused, char *log,
			  size_t size, char *what, size_t wsize)
{
	char loc[128], *cmd, *caret, *nl;
	size_t want_len;

	if (read_file(TRIG_ERRLOG, log, size) < 0) {
		snprintf(what, wsize, "cannot read error_log");
		return 1;
	}
	snprintf(loc, sizeof(loc), "ksym_hitgen:%s: error: ", trig_events[fi]);
	if (!refused || (o->log == TL_NONE)) {
		/* Nothing about this command (a slot line, with the canon, may come). */
		if (refused || !o->text[0])
			return 0;
		cmd = strstr(log, "  Command: ");
		while (cmd) {
			if (!strncmp(cmd + 11, o->text, strlen(o->text)) &&
			    cmd[11 + strlen(o->text)] == '\n') {
				snprintf(what, wsize, "an accepted command has an error_log line");
				return 1;
			}
			cmd = strstr(cmd + 1, "  Command: ");
		}
		return 0;
	}
	if (o->log == TL_FILTER) {
		if (!strstr(log, "error: ")) {
			snprintf(what, wsize, "no error_log line for a bad filter");
			return 1;
		}
		return 0;
	}
	if (!strstr(log, loc)) {
		snprintf(what, wsize, "no error_log line '%s...'", loc);
		return 1;
	}
	want_len = strlen(o->text);
	for (cmd = strstr(log, "  Command: "); cmd; cmd = strstr(cmd + 1, "  Command: ")) {
		if (strncmp(cmd + 11, o->text, want_len) || cmd[11 + want_len] != '\n')
			continue;
		caret = cmd + 11 + want_len + 1;
		nl = strchr(caret, '\n');
		if (!nl || nl[-1] != '^' || (size_t)(nl - caret) - 1 < 11 ||
		    (size_t)(nl - caret) - 1 - 11 > want_len ||
		    strspn(caret, " ") != (size_t)(nl - caret) - 1) {
			snprintf(what, wsize, "the caret is not under the command");
			return 1;
		}
		return 0;
	}
	snprintf(what, wsize, "no error_log line with 'Command: %.60s'", o->text);
	return 1;
}

static void trig_report(int fi, long step, const char *what, const struct tfile *before,
			const char *buf, size_t n, const struct toutcome *o, long ret, int err,
			const char *got, const char *want, const char *log)
{
	char es[128], line[TCANON_MAX + 256];
	int i;

	errmask_str(o->errs, es, sizeof(es));
	printf("ksym-fuzz: MISMATCH (triggers, seed %" PRIu64 ", step %ld, %s): %s\n",
	       opt.seed, step, trig_events[fi], what);
	printf("  triggers before (newest first):\n");
	for (i = 0; i < before->nr; i++) {
		trig_line(&before->t[i], line, sizeof(line));
		printf("    %s\n", line);
	}
	printf("  write: '");
	escape(stdout, buf, n, 600);
	printf("'\n  model: %s%s%s (%s)\n",
	       o->res == TR_ERR ? es : o->res == TR_NOP ? "accept, no change" :
	       o->res == TR_ADD ? "add" : "remove",
	       o->either ? " or " : "", o->either ? es : "", o->why);
	printf("  kernel: %s%s\n", ret < 0 ? "error " : "returned ", ret < 0 ? strerror(err) : "");
	if (ret >= 0)
		printf("    (ret %ld)\n", ret);
	printf("  read back:\n%s", got);
	printf("  expected:\n%s", want);
	printf("  error_log:\n%s", log);
	printf("  reproducer (busybox sh, in /sys/kernel/tracing):\n");
	for (i = before->nr - 1; i >= 0; i--) {
		const char *w = before->t[i].written;

		printf("    printf '");
		escape(stdout, w, strlen(w), ~0UL);
		printf("' > events/ksym_hitgen/%s/trigger\n", trig_events[fi]);
	}
	printf("    echo > error_log; printf '");
	escape(stdout, buf, n, ~0UL);
	printf("' > events/ksym_hitgen/%s/trigger; echo \"rc=$?\"\n", trig_events[fi]);
	printf("    cat events/ksym_hitgen/%s/trigger error_log\n", trig_events[fi]);
	fflush(stdout);
}

/* Objects while the triggers come and go: allocations, writes, frees. */
static int trig_objects(void)
{
	static const char *const counts[] = { "1", "2", "3", "4", "8", "16", "0", "17" };
	struct rng r = { .s = opt.seed * 31 + 7 };
	char num[16];

	while (!sh->stop) {
		if (chance(&r, 20))
			write_str(HITGEN_DIR "/object_count", counts[rnd(&r, N(counts))]);
		snprintf(num, sizeof(num), "%u", 1 + rnd(&r, 20));
		if (write_str(HITGEN_DIR "/object", num) < 0) {
			fprintf(stderr, "ksym-fuzz: objects: %s\n", strerror(errno));
			return 1;
		}
		sh->objects++;
		usleep(1000 + rnd(&r, 2000));
	}
	write_str(HITGEN_DIR "/object_count", "1");
	return 0;
}

/* ksym_trigger_slots flipped, and a watchdog: no write returns for 60 s. */
static int trig_slots(void)
{
	static const char *const slots[] = { "1", "2", "3", "4", "1", "0", "5", "x" };
	struct rng r = { .s = opt.seed * 17 + 3 };
	long last = -1, still = 0;

	while (!sh->stop) {
		if (write_str(TRIG_SLOTS, slots[rnd(&r, N(slots))]) == 0)
			sh->slot_flips++;
		usleep(5000);
		if (sh->tstep != last) {
			last = sh->tstep;
			still = 0;
		} else if (++still == 12000 && opt.progress) {
			FILE *pf = fopen(opt.progress, "a");

			if (pf) {
				fprintf(pf, "ksym-fuzz: HANG? no trigger write returned in 60 s, step %ld: '%s'\n",
					sh->tstep, sh->tcmd);
				fclose(pf);
			}
		}
	}
	write_str(TRIG_SLOTS, "1");
	return 0;
}

static int trig_stat_rows(const char *stat, const char *ev, const char *what)
{
	char key[TCANON_MAX + 128];
	const char *p;
	int rows = 0;

	snprintf(key, sizeof(key), "ksym_hitgen:%s  %s%s", ev, what, what[0] ? "  " : "");
	for (p = stat; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, strlen(key)))
			rows++;
	return rows;
}

static int trig_run(void)
{
	static char buf[BUF_MAX], got[65536], want[65536], log[65536], stat[65536];
	static struct tfile files[2], before;
	static const char *const ename[] = { "EINVAL", "ENOENT", "EEXIST", "other" };
	long writes = 0, accepted = 0, refused = 0, removed = 0, added = 0, logs = 0;
	long errc[4] = { 0 }, step;
	struct gen g = { 0 };
	int fi, i, ret = 1, fds[2] = { -1, -1 };
	pid_t kids[2] = { 0 };
	char path[256], what[160];
	double t0, t1;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec + ts.tv_nsec / 1e9;
	g.r.s = opt.seed * 1000003ULL + 4242;
	g.buf = buf;
	for (fi = 0; fi < 2; fi++) {
		trig_path(fi, path, sizeof(path));
		if (read_file(path, got, sizeof(got)) < 0) {
			fprintf(stderr, "ksym-fuzz: %s: %s (modprobe ksym_hitgen)\n", path, strerror(errno));
			return 2;
		}
		if (strstr(got, "\nksym_") || !strncmp(got, "ksym_", 5)) {
			fprintf(stderr, "ksym-fuzz: %s has ksym triggers already:\n%s", path, got);
			return 2;
		}
	}
	if (write_str(TRIG_SLOTS, "1")) {
		fprintf(stderr, "ksym-fuzz: %s: %s\n", TRIG_SLOTS, strerror(errno));
		return 2;
	}
	kids[0] = fork();
	if (!kids[0])
		_exit(trig_objects());
	kids[1] = fork();
	if (!kids[1])
		_exit(trig_slots());
	if (kids[0] < 0 || kids[1] < 0) {
		perror("ksym-fuzz: fork");
		goto cleanup;
	}

	for (step = 1; step <= opt.writes && !out_of_time(); step++) {
		struct toutcome o;
		bool ok, succeeded;
		long r;
		int err;

		fi = chance(&g.r, 60) ? 0 : 1;
		trig_gen(&g, &files[fi]);
		trig_model(&files[fi], buf, g.n, &o);
		before = files[fi];
		if (opt.verbose) {
			printf("[T] %s: '", trig_events[fi]);
			escape(stdout, buf, g.n, 200);
			printf("'\n");
		}
		snprintf(sh->tcmd, sizeof(sh->tcmd), "%.*s", (int)(g.n < 150 ? g.n : 150), buf);
		write_str(TRIG_ERRLOG, "");
		/* Sometimes a descriptor kept open, sometimes one opened as "echo >" does. */
		if (fds[fi] < 0 || chance(&g.r, 30)) {
			if (fds[fi] >= 0)
				close(fds[fi]);
			trig_path(fi, path, sizeof(path));
			fds[fi] = open(path, O_WRONLY | (chance(&g.r, 50) ? O_TRUNC : 0));
			if (fds[fi] < 0) {
				fprintf(stderr, "ksym-fuzz: open %s: %s\n", path, strerror(errno));
				goto cleanup;
			}
		}
		r = write(fds[fi], buf, g.n);
		err = errno;
		sh->tstep = step;
		writes++;
		if (r < 0) {
			refused++;
			errc[err == EINVAL ? 0 : err == ENOENT ? 1 : err == EEXIST ? 2 : 3]++;
		} else {
			accepted++;
		}
		succeeded = r >= 0;
		switch (o.res) {
		case TR_NOP:
			ok = r == 0;
			break;
		case TR_ADD:
			ok = r == (long)g.n;
			break;
		case TR_REMOVE:
			ok = r == (long)g.n || (o.either && r < 0 && (o.errs & errno_bit(err)));
			break;
		default:
			ok = r < 0 && (o.errs & errno_bit(err));
			break;
		}
		if (ok && succeeded) {
			trig_apply(&files[fi], &o);
			added += o.res == TR_ADD;
			removed += o.res == TR_REMOVE;
		}
		if (!ok) {
			trig_check(&files[fi], fi, got, sizeof(got), want, sizeof(want));
			read_file(TRIG_ERRLOG, log, sizeof(log));
			trig_report(fi, step, r >= 0 ? "accepted, model says otherwise" :
				    "refused, model says otherwise", &before, buf, g.n, &o, r, err,
				    got, want, log);
			goto cleanup;
		}
		for (i = 0; i < 2; i++) {
			if (trig_check(&files[i], i, got, sizeof(got), want, sizeof(want))) {
				read_file(TRIG_ERRLOG, log, sizeof(log));
				trig_report(fi, step, i == fi ? (succeeded ?
					    "accepted, but the trigger file is not its effect" :
					    "refused, but the trigger file changed") :
					    "the other event's trigger file changed", &before, buf, g.n,
					    &o, r, err, got, want, log);
				goto cleanup;
			}
		}
		if (trig_check_log(fi, &o, !succeeded, log, sizeof(log), what, sizeof(what))) {
			trig_check(&files[fi], fi, got, sizeof(got), want, sizeof(want));
			trig_report(fi, step, what, &before, buf, g.n, &o, r, err, got, want, log);
			goto cleanup;
		}
		logs += !succeeded && o.log != TL_NONE;
		if (opt.progress && step % 1000 == 0) {
			FILE *pf = fopen(opt.progress, "a");

			if (pf) {
				fprintf(pf, "ksym-fuzz: seed %" PRIu64 " triggers: %ld of %ld writes\n",
					opt.seed, step, opt.writes);
				fclose(pf);
			}
		}
	}
	ret = 0;
cleanup:
	for (i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	sh->stop = 1;
	for (i = 0; i < 2; i++) {
		int status;

		if (kids[i] > 0 && (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
				    WEXITSTATUS(status))) {
			printf("ksym-fuzz: the %s child failed\n", i ? "slots" : "objects");
			if (!ret)
				ret = 1;
		}
	}
	/* trace_stat/ksym_triggers: each trigger of the model once, then none. */
	if (!ret) {
		char canon[TCANON_MAX + 32];

		if (read_file(TRIG_STAT, stat, sizeof(stat)) < 0) {
			printf("ksym-fuzz: cannot read %s\n", TRIG_STAT);
			ret = 1;
		}
		for (fi = 0; fi < 2 && !ret; fi++) {
			for (i = 0; i < files[fi].nr; i++) {
				snprintf(canon, sizeof(canon), "%s:%s",
					 files[fi].t[i].unwatch ? "ksym_unwatch" : "ksym_watch",
					 files[fi].t[i].canon);
				if (trig_stat_rows(stat, trig_events[fi], canon) != 1) {
					printf("ksym-fuzz: MISMATCH: %s: not once in %s:\n%s", canon,
					       TRIG_STAT, stat);
					ret = 1;
				}
			}
			if (!ret && trig_stat_rows(stat, trig_events[fi], "") != files[fi].nr) {
				printf("ksym-fuzz: MISMATCH: %s has %d rows for %s, the model %d triggers:\n%s",
				       TRIG_STAT, trig_stat_rows(stat, trig_events[fi], ""),
				       trig_events[fi], files[fi].nr, stat);
				ret = 1;
			}
		}
	}
	/* Remove what is left, as the files show it. */
	for (fi = 0; fi < 2; fi++) {
		char line[TCANON_MAX + 256], cmd[TCANON_MAX + 260];

		trig_check(&files[fi], fi, got, sizeof(got), want, sizeof(want));
		trig_path(fi, path, sizeof(path));
		for (i = files[fi].nr - 1; i >= 0; i--) {
			trig_line(&files[fi].t[i], line, sizeof(line));
			snprintf(cmd, sizeof(cmd), "!%s", line);
			if (write_str(path, cmd)) {
				printf("ksym-fuzz: removing '%s': %s\n", cmd, strerror(errno));
				ret = ret ? ret : 1;
			}
		}
		files[fi].nr = 0;
		if (read_file(path, got, sizeof(got)) < 0 || strstr(got, "\nksym_") ||
		    !strncmp(got, "ksym_", 5)) {
			printf("ksym-fuzz: MISMATCH: triggers left in %s:\n%s", path, got);
			ret = ret ? ret : 1;
		}
	}
	if (read_file(TRIG_STAT, stat, sizeof(stat)) < 0 ||
	    trig_stat_rows(stat, trig_events[0], "") ||
	    trig_stat_rows(stat, trig_events[1], "")) {
		printf("ksym-fuzz: MISMATCH: %s not empty of them after removal:\n%s", TRIG_STAT, stat);
		ret = ret ? ret : 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t1 = ts.tv_sec + ts.tv_nsec / 1e9;
	printf("ksym-fuzz: triggers: %ld writes (%ld accepted, %ld refused:", writes, accepted, refused);
	for (i = 0; i < 4; i++)
		if (errc[i])
			printf(" %s %ld", ename[i], errc[i]);
	printf("), %ld added, %ld removed, %ld error_log lines checked; %ld object rounds, %ld slot flips; %.1f s\n",
	       added, removed, logs, sh->objects, sh->slot_flips, t1 - t0);
	printf("ksym-fuzz: %s: %ld trigger writes, %ld accepted, %ld refused, seed %" PRIu64 "\n",
	       ret ? "FAIL" : "PASS", writes, accepted, refused, opt.seed);
	return ret;
}

/* The trigger model on hand-made cases. */
static int self_test_triggers(void)
{
	static const struct {
		const char *start;	/* commands set first, '|' between */
		const char *cmd;
		int res;		/* enum tres */
		unsigned int errs;
		int log;		/* enum tlog, when refused */
		const char *after;	/* the first trigger as shown, "" none */
	} cases[] = {
		{ "", "ksym_watch:obj.count:-w-", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
		{ "", "  ksym_watch obj.count:-w-  \n", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
		{ "", "ksym_watch:obj:rw-", TR_ADD, 0, 0, "ksym_watch:obj/8:rw-:unlimited" },
		{ "", "ksym_watch:obj.flags:-w-:5", TR_ADD, 0, 0, "ksym_watch:obj.flags/4:-w-:count=5" },
		{ "", "ksym_watch:obj.count:-w-:0x10 if obj == 0", TR_ADD, 0, 0,
		  "ksym_watch:obj.count/8:-w-:count=16 if obj == 0" },
		{ "", "ksym_watch:obj.id/4:rw- if  obj == 0", TR_ADD, 0, 0,
		  "ksym_watch:obj.id/4:rw-:unlimited if  obj == 0" },
		{ "", "ksym_watch:( struct\tksym_hitgen_obj )obj.flags:rw-", TR_ADD, 0, 0,
		  "ksym_watch:(struct ksym_hitgen_obj)obj.flags/4:rw-:unlimited" },
		{ "", "ksym_watch:(struct ksym_hitgen_rec)obj.pair[0x1].hi:-w-", TR_ADD, 0, 0,
		  "ksym_watch:(struct ksym_hitgen_rec)obj.pair[1].hi/2:-w-:unlimited" },
		{ "", "ksym_watch:obj+8/8:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x8/8:-w-:unlimited" },
		{ "", "ksym_watch:obj.count+4/4:-w-", TR_ADD, 0, 0, "ksym_watch:obj.count+0x4/4:-w-:unlimited" },
		{ "", "ksym_watch:obj++010/0x4:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x8/4:-w-:unlimited" },
		{ "", "ksym_unwatch:obj:3", TR_ADD, 0, 0, "ksym_unwatch:obj:count=3" },
		{ "", "ksym_watch:obj-0x18/8:-w-", TR_ADD, 0, 0, "ksym_watch:obj-0x18/8:-w-:unlimited" },
		{ "", "ksym_watch:obj+4097/1:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x1001/1:-w-:unlimited" },
		{ "", "ksym_unwatch:obj-8", TR_ADD, 0, 0, "ksym_unwatch:obj-0x8:unlimited" },
		{ "", "ksym_unwatch:obj+0:2", TR_ADD, 0, 0, "ksym_unwatch:obj:count=2" },
		{ "", "ksym_watch:obj.count:-w-\0junk", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
		{ "", "ksym_watch:obj+8:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj+16385/1:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj-16385/1:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_unwatch:obj-zz", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.flags/8:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.count:r--", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.count:rwx", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.nosuch:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
		{ "", "ksym_watch:nosuch.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
		{ "", "ksym_watch:common_pid:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:(struct ksym_fuzz_nx_t)obj.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
		{ "", "ksym_watch:(struct ksym_hitgen_rec)obj.name[8]:-w-", TR_ERR, EB_ERANGE, TL_KSYM, "" },
		{ "", "ksym_watch:(struct ksym_hitgen_obj obj.count:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.count:-w-:x", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_unwatch:obj.count", TR_ERR, EB_EINVAL, TL_KSYM, "" },
		{ "", "ksym_watch:obj.count:-w- if nosuch == 1", TR_ERR, ~0U, TL_FILTER, "" },
		{ "", "nosuchcommand:obj", TR_ERR, EB_EINVAL, TL_NONE, "" },
		{ "", "", TR_NOP, 0, 0, "" },
		{ "", "\n", TR_ERR, EB_EINVAL, TL_NONE, "" },
		{ "ksym_watch:obj.count:-w-", "ksym_watch:obj.count/8:-w-", TR_ERR, EB_EEXIST, TL_KSYM,
		  "ksym_watch:obj.count/8:-w-:unlimited" },
		{ "ksym_watch:obj.count:-w-", "!ksym_watch:obj.count:-w-", TR_REMOVE, 0, 0, "" },
		{ "ksym_watch:obj.count:-w-", "!ksym_watch:obj.count/8:-w-:unlimited if x", TR_REMOVE, 0, 0, "" },
		{ "ksym_watch:obj.count:-w-:2 if obj == 0", "!ksym_watch:obj.count/8:-w-:count=2", TR_REMOVE, 0, 0, "" },
		{ "ksym_watch:obj.count:-w-:2 if obj == 0", "!ksym_watch:obj.count/8:-w-:count=1", TR_ERR,
		  EB_EINVAL, TL_KSYM, "ksym_watch:obj.count/8:-w-:count=2 if obj == 0" },
		{ "ksym_watch:obj.id:-w-", "!ksym_watch:obj.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM,
		  "ksym_watch:obj.id/8:-w-:unlimited" },
		{ "ksym_watch:(struct ksym_hitgen_rec)obj.name[2]:-w-|ksym_watch:obj.id:-w-",
		  "!ksym_watch:(struct ksym_hitgen_rec)obj.name", TR_REMOVE, 0, 0,
		  "ksym_watch:obj.id/8:-w-:unlimited" },
		{ "ksym_unwatch:obj", "!ksym_unwatch:obj:unlimited", TR_REMOVE, 0, 0, "" },
		{ "ksym_unwatch:obj", "!ksym_watch:obj:unlimited", TR_ERR, EB_EINVAL, TL_KSYM,
		  "ksym_unwatch:obj:unlimited" },
	};
	char line[TCANON_MAX + 256], tmp[256];
	size_t i, fails = 0;

	for (i = 0; i < N(cases); i++) {
		static struct tfile f;
		struct toutcome o;
		const char *s = cases[i].start;
		size_t n = strlen(cases[i].cmd);

		memset(&f, 0, sizeof(f));
		while (*s) {
			size_t k = strcspn(s, "|");

			snprintf(tmp, sizeof(tmp), "%.*s", (int)k, s);
			trig_model(&f, tmp, k, &o);
			if (o.res != TR_ADD) {
				printf("self-test: triggers %zu: start '%s' not added (%s)\n", i, tmp, o.why);
				fails++;
			}
			trig_apply(&f, &o);
			s += k + (s[k] == '|');
		}
		if (strstr(cases[i].cmd, "junk"))
			n = strlen(cases[i].cmd) + 5;
		trig_model(&f, cases[i].cmd, n, &o);
		if ((int)o.res != cases[i].res || (o.res == TR_ERR && (o.errs != cases[i].errs ||
							      (int)o.log != cases[i].log))) {
			printf("self-test: triggers %zu '%s': res %d errs 0x%x log %d (%s)\n", i,
			       cases[i].cmd, o.res, o.errs, o.log, o.why);
			fails++;
			continue;
		}
		trig_apply(&f, &o);
		line[0] = '\0';
		if (f.nr)
			trig_line(&f.t[0], line, sizeof(line));
		if (strcmp(line, cases[i].after)) {
			printf("self-test: triggers %zu '%s': shows '%s', not '%s'\n", i, cases[i].cmd,
			       line, cases[i].after);
			fails++;
		}
	}
	/* The generator stays within the model, and reaches adds, removals and each error. */
	{
		static char buf[BUF_MAX];
		static struct tfile f;
		struct gen g = { 0 };
		long k, adds = 0, rms = 0, logs = 0;
		unsigned int seen = 0;

		g.r.s = 7;
		g.buf = buf;
		for (k = 0; k < 20000; k++) {
			struct toutcome o;

			trig_gen(&g, &f);
			trig_model(&f, buf, g.n, &o);
			trig_apply(&f, &o);
			adds += o.res == TR_ADD;
			rms += o.res == TR_REMOVE;
			logs += o.res == TR_ERR && o.log == TL_KSYM;
			if (o.res == TR_ERR)
				seen |= o.errs;
		}
		printf("ksym-fuzz: self-test: triggers: 20000 generated, %ld adds, %ld removals, %ld refused with an error_log line\n",
		       adds, rms, logs);
		if (!adds || !rms || !logs ||
		    (seen & (EB_EINVAL | EB_ENOENT | EB_EEXIST | EB_ERANGE)) !=
		    (EB_EINVAL | EB_ENOENT | EB_EEXIST | EB_ERANGE)) {
			printf("self-test: the trigger generator does not reach the grammar\n");
			fails++;
		}
	}
	printf("ksym-fuzz: self-test: %zu trigger cases, %zu failed\n", N(cases), fails);
	return fails;
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
static int self_test(void)
{
	static const struct {
		const char *pend;
		const char *buf;	/* NULL: close */
		size_t n;		/* 0: strlen */
		int ok;			/* 1 accept, 0 refuse, 2 either */
		unsigned int errs;
		const char *after;	/* sorted lines, "" none */
		const char *start;	/* watches before, one per line */
		const char *asym;	/* "%lx" in buf, after, start: its address */
		unsigned long aoff;	/* (default ksym_hitgen_var), plus this */
	} cases[] = {
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
	struct fsym *v;
	size_t i;
	int fails = 0;

	/* A made-up kernel: two CPUs. */
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
	v = sym_by_name("ksym_hitgen_var");

	for (i = 0; i < N(cases); i++) {
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
				return 1;
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
				return 1;
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
			fails++;
		}
	}
	/* At most RULE_MAX_ENTRIES entries per write. */
	{
		static char big[4096];
		struct model m = { 0 };
		struct outcome o;
		size_t k, n = 0;

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
	}
	/* Without BTF: casts and paths are refused, a module's per-CPU data too. */
	{
		struct model m = { 0 };

		have_btf = false;
		fails += st_txn(&m, "(struct ksym_hitgen_rec)ksym_hitgen_rec.count:-w-", false,
				EB_EINVAL, 0, "no BTF: a cast");
		fails += st_txn(&m, "ksym_hitgen_pcpu:-w-", false, EB_EOPNOTSUPP, 0,
				"no BTF: a module's per-CPU variable");
		fails += st_txn(&m, "ksym_hitgen_rec:-w-", true, 0, 1, "no BTF: a plain symbol");
		have_btf = true;
	}
	/* -A: 0xADDRESS:--- removes the per-CPU watch at that offset. */
	{
		struct model m = { 0 };
		char t[64];

		snprintf(t, sizeof(t), "0x%lx:---", sym_by_name("ksym_hitgen_pcpu")->addr + 8);
		fails += st_txn(&m, "ksym_hitgen_pcpu.count:rw-", true, 0, 1, "per-CPU watch");
		fails += st_txn(&m, t, false, EB_ENOENT, 1, "per-CPU offset as 0xADDRESS");
		opt.percpu_alias = true;
		fails += st_txn(&m, t, true, 0, 0, "-A: per-CPU offset as 0xADDRESS");
		opt.percpu_alias = false;
	}
	/* The blanks of a cast count towards an entry's 1023 characters. */
	{
		static const char tail[] = " ksym_hitgen_rec)ksym_hitgen_rec.count:-w-";
		static char t[ENTRY_MAX + 8];
		struct model m = { 0 };
		size_t k, n;

		for (k = 0; k < 2; k++) {
			n = snprintf(t, sizeof(t), "(struct");
			for (; n < ENTRY_MAX - 1 + k - strlen(tail); n++)
				t[n] = n % 7 ? ' ' : '\t';
			strcpy(t + n, tail);
			fails += st_txn(&m, t, !k, k ? EB_E2BIG : 0, 1,
					k ? "a 1024-character cast entry" : "a 1023-character cast entry");
		}
	}
	printf("ksym-fuzz: self-test: %zu cases, %d failed\n", N(cases) + 16, fails);
	fails += self_test_gen();
	fails += self_test_triggers();
	return fails ? 1 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: ksym-fuzz [-s SEED] [-n WRITES] [-t SECONDS] [-m single|lock|race] [-H] [-L] [-Z] [-A] [-G] [-W] [-f FILTER] [-P FILE] [-v] [-T]\n");
}

int main(int argc, char **argv)
{
	pid_t pids[3] = { 0 };
	int c, i, nw, status, ret = 2;
	long tw = 0, ta = 0, tr = 0, tc = 0;
	char got[4096];
	char *end;

	while ((c = getopt(argc, argv, "s:n:t:m:HLZAGWf:P:vT")) != -1) {
		switch (c) {
		case 's':
			opt.seed = strtoull(optarg, &end, 0);
			if (*end)
				goto bad_usage;
			break;
		case 'n':
			opt.writes = strtol(optarg, &end, 0);
			if (*end || opt.writes < 1)
				goto bad_usage;
			opt.writes_given = true;
			break;
		case 't':
			opt.seconds = strtol(optarg, &end, 0);
			if (*end || opt.seconds < 1)
				goto bad_usage;
			break;
		case 'm':
			if (!strcmp(optarg, "single"))
				opt.mode = MODE_SINGLE;
			else if (!strcmp(optarg, "lock"))
				opt.mode = MODE_LOCK;
			else if (!strcmp(optarg, "race"))
				opt.mode = MODE_RACE;
			else
				goto bad_usage;
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
		case 'T': return self_test();
		default:
			goto bad_usage;
		}
	}
	if (optind != argc)
		goto bad_usage;
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
	{
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
	}
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
		tw += sh->writes[i];
		ta += sh->accepted[i];
		tr += sh->refused[i];
		tc += sh->closes[i];
	}
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

bad_usage:
	usage();
	return 2;
}
