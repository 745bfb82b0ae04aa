/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-fuzz: what its files share (ksym-fuzz.c says which owns what): the
 * limits of ksym.rst, the model's and the generators' types, the options
 * and state the driver sets, and the functions called across files.
 */
#ifndef KSYM_FUZZ_H
#define KSYM_FUZZ_H

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
#define NR_ERRNOS (sizeof(errnos) / sizeof(errnos[0]))
/*
 * Cast type names outside named_types[] the generator uses: a real kernel
 * struct (its layout unknown here, so only where BTF types the symbol and
 * the cast must be refused), and names no kernel has.
 */
#define FOREIGN_TYPE	"task_struct"
#define NX_TYPE_PREFIX	"ksym_fuzz_nx"
#define NOFFS(a) (sizeof(a) / sizeof(a[0]))
#define SYM(n, m, t, i, sz) .name = n, .mod = m, .text = t, .initmem = i, .size = sz
#define NR_SYMS (sizeof(syms) / sizeof(syms[0]))
/* The racing writer's address: ksym_hitgen_buf+8 (the checker uses +0..+7). */
#define RACER_OFF 8
#define NR_BAD_ADDRS (sizeof(bad_addrs) / sizeof(bad_addrs[0]))
/*
 * Item 7: at most this many entries in one write (E2BIG), so that the
 * kernel sizes its work by entries, not bytes. 0: no limit.
 */
#define RULE_MAX_ENTRIES 64
#define N(a) (sizeof(a) / sizeof(a[0]))
#define PICK(g, a) ((a)[rnd(&(g)->r, N(a))])
#define TRIG_DIR	"/sys/kernel/tracing/events/ksym_hitgen"
#define TRIG_ERRLOG	"/sys/kernel/tracing/error_log"
#define TRIG_SLOTS	"/sys/kernel/tracing/ksym_trigger_slots"
#define TRIG_STAT	"/sys/kernel/tracing/trace_stat/ksym_triggers"
#define TRIG_MAX	64	/* triggers per event the model holds */
#define TRIG_SOFT	10	/* the generator removes more above this */
#define TCANON_MAX	(WRITE_MAX + 64)

struct errnos_entry {
	int err;
	unsigned int bit;
	const char *name;
};
extern const struct errnos_entry errnos[9];

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

/* ------------------------------------------------------------------------
 * Options and global state
 */

enum mode { MODE_SINGLE, MODE_LOCK, MODE_RACE };
struct opt_entry {
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
};

/* ------------------------------------------------------------------------
 * PRNG: splitmix64, one stream per writer.
 */

struct rng {
	uint64_t s;
};

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
struct ksline {
	unsigned long addr;
	char owner[64];
};

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

/*
 * A trigger's "+OFFSET" or "-OFFSET" at @sign: kstrtoul() base 0 after
 * the sign, at most 16 KiB (KSYM_TRIGGER_OFFSET_MAX).
 */
struct toutcome;
enum op { OP_ERR, OP_SET, OP_REMOVE, OP_CLEAR };
struct parsed {
	enum op op;
	unsigned int errs;
	struct spec spec;
};

/* What TARGET resolved to, besides p->spec.addr and p->spec.target. */
struct tinfo {
	struct fsym *s;		/* the symbol (for 0xADDRESS: the one it is in), or NULL */
	bool hexform;
	bool typed;		/* BTF (a cast, or the symbol's type) gave @size */
	long size;		/* bytes TARGET names; 0: none, give /LEN; -1 unknown */
};
struct gen {
	struct rng r;
	char *buf;
	size_t n;
	bool racer;		/* the racing writer's vocabulary */
	const struct model *m;	/* current model, to pick existing watches */
	size_t cut;		/* 0, or a byte inside a cast to end a write() at */
};

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
struct trig_filters_entry {
	const char *f;
	bool ok;
	bool fires;
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

/* Shared state (defined where the comment at its definition says). */
extern struct opt_entry opt;
extern int nr_cpus_possible;
extern uint64_t cpus_possible, cpus_online;
extern const struct ftype t_u32;
extern const struct ftype t_ulong;
extern const struct ftype t_rec;
extern const struct ftype t_pcpu;
extern struct fsym syms[12];
extern unsigned long racer_addr;
extern const unsigned long bad_addrs[6];
extern bool have_btf;
extern bool exec_len_checked;
extern const char *const bad_lens[14];
extern const char *const good_lens_alt[6];
extern const char *const cast_gap[8];
extern const char *const bad_casts[25];
extern struct shared *sh;

/* Functions the files call across (each defined in the file that owns it). */
unsigned int errno_bit(int err);
void errmask_str(unsigned int mask, char *buf, size_t size);
bool out_of_time(void);
unsigned int rnd(struct rng *r, unsigned int n);
bool chance(struct rng *r, unsigned int pct);
int default_len(unsigned long addr, long size);
struct fsym *sym_by_name(const char *name);
struct fsym *sym_by_addr(unsigned long addr, unsigned long *off);
long sym_size(const struct fsym *s);
int load_kallsyms(const char *path);
void why(struct outcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void spec_line(const struct spec *s, char *buf, size_t size);
bool parse_num(const char *s, int base, unsigned long *val);
void twhy(struct toutcome *o, const char *fmt, ...);
bool parse_trigger_offset(struct toutcome *o, const char *sign,
				 unsigned long *off, bool *neg);
bool parse_cpulist(const char *s, uint64_t *mask);
bool is_user_addr(unsigned long addr);
bool rule_offset_unsized(unsigned long off);
bool rule_exec_len_checked(void);
bool k_isspace(char c);
bool is_ident(char c);
char *parse_cast(char *s, bool *is_union, char *name, size_t namesz);
bool find_cast(bool is_union, const char *name, const struct ftype **t);
unsigned int walk_path(const char *p, const struct ftype **t,
			      unsigned long *off, char *canon, size_t size,
			      struct outcome *o);
bool is_sep(char c);
bool rule_wrote(const char *buf, size_t n, bool refused);
void model_txn(const struct model *cur, const char *otext, size_t n,
		      struct outcome *o);
void model_write(const struct model *cur, const char *pend, size_t plen,
			const char *buf, size_t n, struct outcome *o);
size_t pending_after(char *pend, size_t plen, const char *buf, size_t n,
			    bool succeeded);
void model_close(const struct model *cur, const char *pend, size_t plen,
			bool trunc, bool wrote, struct outcome *o);
void escape(FILE *f, const char *s, size_t n, size_t max);
int read_file(const char *path, char *buf, size_t size);
int read_back(char *buf, size_t size);
int cmp_str(const void *a, const void *b);
void put(struct gen *g, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void put_cast(struct gen *g, const char *kw, const char *name);
const struct ftype *put_path(struct gen *g, const struct ftype *t,
				    unsigned int bad_pct, unsigned int *off);
void gen_logical(struct gen *g);
void gen_racer(struct gen *g);
void maybe_nul(struct gen *g);
int writer(int id);
int hitter(void);
void twhy(struct toutcome *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int trig_run(void);
int self_test_triggers(void);

#endif
