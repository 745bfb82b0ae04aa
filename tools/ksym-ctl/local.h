/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl local: who writes a function's local variable while the call
 * runs. local.c sets it up (DWARF, probes, triggers) and reads the events;
 * here, without tracefs (host unit tested): the calls and writes as read,
 * which call owned each write's slot, whether the write came from inside
 * the call or from outside it, and the report, as text and as JSON.
 */
#ifndef KSYM_CTL_LOCAL_H
#define KSYM_CTL_LOCAL_H

#include <stdbool.h>
#include <stdio.h>

#include "kallsyms.h"

#define LOCAL_FRAMES_MAX	64

/* One call of the function: its entry probe and its return probe. */
struct local_call {
	unsigned long long	ts_in, ts_out;	/* ts_out 0: no return seen */
	unsigned long long	sp;		/* the entry's stack pointer */
	int			pid, cpu;
	int			depth;		/* 1: outermost on its task */
	char			comm[16];
};

enum local_class {
	LOCAL_INSIDE,	/* the function or a callee, on the owning task */
	LOCAL_OUTSIDE,	/* an interrupt, another task: the corruption */
	LOCAL_FRAME,	/* the frame set up or taken down (prologue, zeroing, probes) */
	LOCAL_UNOWNED,	/* no call of the function owned the slot */
	LOCAL_NR_CLASSES
};

struct local_write {
	unsigned long long	ts, addr, ip;
	unsigned long long	value, old;
	bool			has_value, has_old;
	int			pid, cpu;
	unsigned int		flags;		/* the entry's common_flags */
	int			nr_ips;
	unsigned long long	ips[LOCAL_FRAMES_MAX];
	char			comm[16];
	/* local_analyze(): */
	enum local_class	cls;
	int			call;		/* index in calls, or -1 */
	bool			irq;		/* an interrupt's, by its callchain */
};

/* What is watched: from DWARF and the probes. */
struct local_target {
	const char		*func;		/* the symbol probed */
	const char		*var;		/* VAR[.FIELD...] */
	const char		*type;
	const char		*debuginfo;	/* the file the DWARF came from */
	long			offset;		/* from the entry's stack pointer */
	long			fbreg, cfa_entry;
	unsigned long		len;		/* bytes watched */
	unsigned long		size;		/* the object's */
	unsigned long		prologue;	/* bytes from the entry to the body */
	bool			write_only;
};

struct local_data {
	struct local_call	*calls;
	int			nr_calls, cap_calls;
	struct local_write	*writes;
	int			nr_writes, cap_writes;
	unsigned long		lost;
	int			count[LOCAL_NR_CLASSES];
};

int local_add_call(struct local_data *d, const struct local_call *c);
/* A return of @pid at @ts with stack pointer @sp_out (the entry's + @ret_delta). */
void local_add_return(struct local_data *d, int pid, unsigned long long ts,
		      unsigned long long sp_entry);
int local_add_write(struct local_data *d, const struct local_write *w);
/* The callchain that followed the last write (ksym_stack). */
void local_set_stack(struct local_data *d, const unsigned long long *ip, int nr);

/*
 * Whether kernel function @fn is the probes' own (ftrace and rethook
 * trampolines, kprobes, fprobes, the exception entry that took a
 * breakpoint): a write of theirs into the frame is the frame's setup or
 * teardown around the call.
 */
bool local_probe_function(const char *fn);

/*
 * Give each write its call (the one whose local's slot it hit, live then)
 * and its class: outside when it came from another task, or in an
 * interrupt (its callchain meets an interrupt's entry, uaf_entry_function(),
 * before the function: the breakpoint's own exception marks every write
 * hardirq on x86, so the flags cannot tell); frame when on the owning task
 * it came from the probes' code (no symbol, local_probe_function()), from
 * the function's prologue (its first @t->prologue bytes), or was the
 * function's own first store, before any other, of zero or of a value not
 * read (the zeroing of CONFIG_INIT_STACK_ALL_ZERO); inside otherwise.
 */
void local_analyze(struct local_data *d, const struct local_target *t,
		   const struct kallsyms *ks);

/* A ksym_watch trigger's row of trace_stat/ksym_triggers (uaf.h's). */
struct uaf_coverage;

struct local_report {
	const struct local_target	*target;
	const char			*title;	/* COMMAND, -p PID, or NULL */
	const struct uaf_coverage	*cov;
	int				calls_seen;
	bool				verbose;	/* -v: the frame's writes too */
	const char			*pids;		/* -p: the tasks whose calls */
};

void local_print(FILE *f, const struct local_data *d,
		 const struct local_report *rep, const struct kallsyms *ks);
void local_print_json(FILE *f, const struct local_data *d,
		      const struct local_report *rep, const struct kallsyms *ks);

const char *local_class_name(enum local_class c);

void local_data_free(struct local_data *d);

/*
 * ksym-ctl reset: remove the probes (group ksym_ctl_local_*) of local runs
 * that are gone, one line each into @done. 0, or -1.
 */
struct strv;
int local_reset_probes(struct strv *done);

#endif
