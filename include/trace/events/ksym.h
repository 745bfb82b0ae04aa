/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events of the ksym tracer: accesses to watched kernel symbols, caught by
 * hardware breakpoints. See Documentation/trace/ksym.rst.
 *
 * ksym_hit is written for every hit. ksym_regs, ksym_stack and
 * ksym_branches follow it, for the same hit, when they are enabled (or
 * when the ksym tracer's ksym-regs, ksym-stack and ksym-branches options
 * are set); capturing what they carry costs nothing while they are off.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM ksym

#if !defined(_TRACE_KSYM_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_KSYM_H

#include <linux/tracepoint.h>

#ifndef _KSYM_HIT_REC
#define _KSYM_HIT_REC
/**
 * struct ksym_hit_rec - one access to a watched address, as the hit path saw it
 * @addr:   start of the watched range (for a per-CPU watch, this CPU's
 *          copy)
 * @ip:     instruction pointer of the accessing context (data breakpoints
 *          trap after the access, so this is the next instruction)
 * @caller: who the hit is counted for in trace_stat: @ip, or for a hit in
 *          the lock primitives (a lock word), the first caller outside them
 * @sym:    the watch's name, "pid_max", "runqueues.nr_running",
 *          "init_task.flags" (its target, without a cast)
 * @sym_len: length of @sym with its NUL
 * @sp:     stack pointer of the accessing context
 * @bp:     rbp of the accessing context (a frame pointer only with
 *          CONFIG_UNWINDER_FRAME_POINTER; with ORC, an ordinary register)
 * @flags:  flags register of the accessing context
 * @value:  contents of the watched range right after the access, loaded
 *          as an integer of @len bytes; 0 when not read (@has_value)
 * @old:    contents of the watched range right before the access, as
 *          @has_old says; 0 when not known
 * @len:    length of the watched range in bytes
 * @access: configured access, HW_BREAKPOINT_R/W/X bits
 * @has_value: @value was read; it is not for execute watches and for
 *          memory that is not RAM (device registers, where a read can have
 *          side effects)
 * @has_old: where @old comes from: 0 not known, 1 read before the access,
 *          2 the value the watch saw last, 3 the same but maybe stale
 *          (enum ksym_old_src, kernel/trace/trace_ksym.h)
 * @changed: @value != @old, or not known: what a filter keeps for gdb's
 *          "watch only changes" (a filter cannot compare two fields)
 */
struct ksym_hit_rec {
	unsigned long	addr;
	unsigned long	ip;
	unsigned long	caller;
	const char	*sym;
	unsigned int	sym_len;
	unsigned long	sp;
	unsigned long	bp;
	unsigned long	flags;
	u64		value;
	u64		old;
	u8		len;
	u8		access;
	u8		has_value;
	u8		has_old;
	u8		changed;
};

/*
 * The fields of ksym_hit and ksym_regs from what the hit path has: one
 * definition for the events' TP_fast_assign and for the ksym tracer, which
 * writes entries of the same layouts into its instances.
 */
#define KSYM_HIT_ASSIGN(e, rec)						\
	do {								\
		(e)->addr	= (rec)->addr;				\
		(e)->ip		= (rec)->ip;				\
		(e)->caller	= (rec)->caller;			\
		(e)->sp		= (rec)->sp;				\
		(e)->bp		= (rec)->bp;				\
		(e)->flags	= (rec)->flags;				\
		(e)->value	= (rec)->value;				\
		(e)->old	= (rec)->old;				\
		(e)->len	= (rec)->len;				\
		(e)->access	= (rec)->access;			\
		(e)->has_value	= (rec)->has_value;			\
		(e)->has_old	= (rec)->has_old;			\
		(e)->changed	= (rec)->changed;			\
	} while (0)

#ifdef CONFIG_ARM64
#define KSYM_REGS_ASSIGN(e, regs)					\
	do {								\
		(e)->ip = (regs)->pc;	(e)->flags = (regs)->pstate;	\
		(e)->sp = (regs)->sp;					\
		memcpy((e)->x, (regs)->regs, sizeof((e)->x));		\
	} while (0)
#else
#define KSYM_REGS_ASSIGN(e, regs)					\
	do {								\
		(e)->ip = (regs)->ip;	(e)->flags = (regs)->flags;	\
		(e)->ax = (regs)->ax;	(e)->bx = (regs)->bx;		\
		(e)->cx = (regs)->cx;	(e)->dx = (regs)->dx;		\
		(e)->si = (regs)->si;	(e)->di = (regs)->di;		\
		(e)->bp = (regs)->bp;	(e)->sp = (regs)->sp;		\
		(e)->r8 = (regs)->r8;	(e)->r9 = (regs)->r9;		\
		(e)->r10 = (regs)->r10;	(e)->r11 = (regs)->r11;		\
		(e)->r12 = (regs)->r12;	(e)->r13 = (regs)->r13;		\
		(e)->r14 = (regs)->r14;	(e)->r15 = (regs)->r15;		\
	} while (0)
#endif

/* Where a branch snippet comes from (ksym_branches.source). */
enum ksym_branch_src {
	KSYM_BRANCH_NONE	= 0,
	KSYM_BRANCH_HW		= 1,	/* LBR and the like */
	KSYM_BRANCH_SW		= 2,	/* last function entries, by ftrace */
};
#endif /* _KSYM_HIT_REC */

/*
 * The access values are HW_BREAKPOINT_R (1), _W (2), _RW (3) and _X (4);
 * they are spelled as numbers so that user space decoders can read them.
 */
#define show_ksym_access(access)					\
	__print_symbolic(access, { 1, "r--" }, { 2, "-w-" },		\
			 { 3, "rw-" }, { 4, "--x" })

TRACE_EVENT_FN(ksym_hit,

	TP_PROTO(const struct ksym_hit_rec *rec),

	TP_ARGS(rec),

	TP_STRUCT__entry(
		__field(unsigned long,	addr)
		__field(unsigned long,	ip)
		__field(unsigned long,	sp)
		__field(unsigned long,	bp)
		__field(unsigned long,	flags)
		__field(u64,		value)
		__field(u64,		old)
		__field(unsigned long,	caller)
		__field(u8,		len)
		__field(u8,		access)
		__field(u8,		has_value)
		__field(u8,		has_old)
		__field(u8,		changed)
		__dynamic_array(char,	sym,	rec->sym_len)
	),

	TP_fast_assign(
		KSYM_HIT_ASSIGN(__entry, rec);
		memcpy(__get_dynamic_array(sym), rec->sym, rec->sym_len);
	),

	/*
	 * rbp, not "bp": with the ORC unwinder (the usual x86-64 kernel) it is
	 * an ordinary register, a frame pointer only with frame pointers on.
	 * old is "none:" when not known, "stale:" when it may be stale.
	 */
	TP_printk("%s %s ip=%pS caller=%pS value=%s0x%llx old=%s0x%llx addr=%lx sp=%lx rbp=%lx flags=%lx",
		  __get_str(sym), show_ksym_access(__entry->access),
		  (void *)__entry->ip, (void *)__entry->caller,
		  __entry->has_value ? "" : "unread:", __entry->value,
		  (__entry->has_old == 0) ? "none:" :
		  ((__entry->has_old == 3) ? "stale:" : ""), __entry->old,
		  __entry->addr, __entry->sp, __entry->bp, __entry->flags),

	ksym_event_reg, ksym_event_unreg
);

/*
 * A ksym event in use arms every watch system-wide (see ksym_event_reg()),
 * which costs a debug exception on every access by anyone: perf may open
 * one only with CAP_PERFMON (or CAP_SYS_ADMIN), even for a per-task
 * counter that perf_event_paranoid would let any user open. Children of an
 * allowed event (inheritance at fork) run in the forking task's context and
 * are allowed with their parent.
 */
#define KSYM_PERF_PERM(name)						\
	TRACE_EVENT_PERF_PERM(name,					\
		p_event->parent || perfmon_capable() ? 0 : -EPERM)

KSYM_PERF_PERM(ksym_hit);

#ifdef CONFIG_X86_64
/* The full register set of the accessing context. */
TRACE_EVENT_FN(ksym_regs,

	TP_PROTO(const struct pt_regs *regs),

	TP_ARGS(regs),

	TP_STRUCT__entry(
		__field(unsigned long,	ip)
		__field(unsigned long,	flags)
		__field(unsigned long,	ax)
		__field(unsigned long,	bx)
		__field(unsigned long,	cx)
		__field(unsigned long,	dx)
		__field(unsigned long,	si)
		__field(unsigned long,	di)
		__field(unsigned long,	bp)
		__field(unsigned long,	sp)
		__field(unsigned long,	r8)
		__field(unsigned long,	r9)
		__field(unsigned long,	r10)
		__field(unsigned long,	r11)
		__field(unsigned long,	r12)
		__field(unsigned long,	r13)
		__field(unsigned long,	r14)
		__field(unsigned long,	r15)
	),

	TP_fast_assign(
		KSYM_REGS_ASSIGN(__entry, regs);
	),

	TP_printk("ip=%pS flags=%lx ax=%lx bx=%lx cx=%lx dx=%lx si=%lx di=%lx bp=%lx sp=%lx r8=%lx r9=%lx r10=%lx r11=%lx r12=%lx r13=%lx r14=%lx r15=%lx",
		  (void *)__entry->ip, __entry->flags, __entry->ax,
		  __entry->bx, __entry->cx, __entry->dx, __entry->si,
		  __entry->di, __entry->bp, __entry->sp, __entry->r8,
		  __entry->r9, __entry->r10, __entry->r11, __entry->r12,
		  __entry->r13, __entry->r14, __entry->r15),

	ksym_event_reg, ksym_event_unreg
);

KSYM_PERF_PERM(ksym_regs);
#elif defined(CONFIG_ARM64)
/* The full register set of the accessing context: pc, pstate, sp, x0-x30. */
TRACE_EVENT_FN(ksym_regs,

	TP_PROTO(const struct pt_regs *regs),

	TP_ARGS(regs),

	TP_STRUCT__entry(
		__field(unsigned long,	ip)
		__field(unsigned long,	flags)
		__field(unsigned long,	sp)
		__array(unsigned long,	x,	31)
	),

	TP_fast_assign(
		KSYM_REGS_ASSIGN(__entry, regs);
	),

	TP_printk("ip=%pS flags=%lx sp=%lx x0=%lx x1=%lx x2=%lx x3=%lx x4=%lx x5=%lx x6=%lx x7=%lx x8=%lx x9=%lx x10=%lx x11=%lx x12=%lx x13=%lx x14=%lx x15=%lx x16=%lx x17=%lx x18=%lx x19=%lx x20=%lx x21=%lx x22=%lx x23=%lx x24=%lx x25=%lx x26=%lx x27=%lx x28=%lx x29=%lx x30=%lx",
		  (void *)__entry->ip, __entry->flags, __entry->sp,
		  __entry->x[0], __entry->x[1], __entry->x[2], __entry->x[3],
		  __entry->x[4], __entry->x[5], __entry->x[6], __entry->x[7],
		  __entry->x[8], __entry->x[9], __entry->x[10], __entry->x[11],
		  __entry->x[12], __entry->x[13], __entry->x[14],
		  __entry->x[15], __entry->x[16], __entry->x[17],
		  __entry->x[18], __entry->x[19], __entry->x[20],
		  __entry->x[21], __entry->x[22], __entry->x[23],
		  __entry->x[24], __entry->x[25], __entry->x[26],
		  __entry->x[27], __entry->x[28], __entry->x[29],
		  __entry->x[30]),

	ksym_event_reg, ksym_event_unreg
);

KSYM_PERF_PERM(ksym_regs);
#endif /* CONFIG_X86_64, CONFIG_ARM64 */

/* The callchain of the accessing context; the first entry is the accessor. */
TRACE_EVENT_FN(ksym_stack,

	TP_PROTO(const unsigned long *ips, unsigned int nr),

	TP_ARGS(ips, nr),

	TP_STRUCT__entry(
		__field(unsigned int,		nr)
		__dynamic_array(unsigned long,	ips,	nr)
	),

	TP_fast_assign(
		__entry->nr = nr;
		memcpy(__get_dynamic_array(ips), ips, nr * sizeof(*ips));
	),

	TP_printk("%s", ksym_print_stack(p, __get_dynamic_array(ips),
					 __entry->nr)),

	ksym_event_reg, ksym_event_unreg
);

KSYM_PERF_PERM(ksym_stack);

#ifdef CONFIG_KSYM_TRACER_BRANCHES
/* The last branches before the hit, oldest first: from, to, from, to... */
TRACE_EVENT_FN(ksym_branches,

	TP_PROTO(const unsigned long *from_to, unsigned int nr,
		 unsigned int source),

	TP_ARGS(from_to, nr, source),

	TP_STRUCT__entry(
		__field(unsigned int,		nr)
		__field(unsigned int,		source)
		__dynamic_array(unsigned long,	from_to, 2 * nr)
	),

	TP_fast_assign(
		__entry->nr = nr;
		__entry->source = source;
		memcpy(__get_dynamic_array(from_to), from_to,
		       2 * nr * sizeof(*from_to));
	),

	TP_printk("%s%s",
		  __print_symbolic(__entry->source, { 1, "hardware" },
				   { 2, "software" }),
		  ksym_print_branches(p, __get_dynamic_array(from_to),
				      __entry->nr)),

	ksym_branches_reg, ksym_branches_unreg
);

KSYM_PERF_PERM(ksym_branches);
#endif /* CONFIG_KSYM_TRACER_BRANCHES */

#endif /* _TRACE_KSYM_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
