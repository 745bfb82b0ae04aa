/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace_ksym.h - the ksym tracer's data model and lock rules, shared by its
 * files:
 *
 *	trace_ksym.c		hit path, ksym events, the tracer, tracefs files
 *	trace_ksym_parse.c	ksym_trace_filter grammar and error texts
 *	trace_ksym_btf.c	field paths and casts, resolved from BTF
 *	trace_ksym_trigger.c	ksym_watch/ksym_unwatch event triggers: their
 *				grammar, commands and trace_stat/ksym_triggers
 *	trace_ksym_slot.c	the triggers' slots: claims, generations,
 *				publish, park, retire, the per-CPU moves
 *	trace_ksym_watch.c	watch set: transactions, arming, hotplug, modules
 *	trace_ksym_stat.c	trace_stat/ksym_tracer and ksym_callers
 *	trace_ksym_branch.c	branch snippets (CONFIG_KSYM_TRACER_BRANCHES)
 *
 * Data model: a write to ksym_trace_filter is parsed into entries (struct
 * ksym_entry, each with a struct ksym_spec), folded into the desired watch
 * set and applied to the breakpoints all or nothing. A watch (struct
 * ksym_watch) owns one perf breakpoint per CPU it watches and per-CPU hit
 * counters.
 *
 * Locks, in this order: cpus_read_lock, ksym_mutex (the watch set, the
 * settings), then perf's own. ksym_branch_mutex (branch sources) is taken
 * before cpus_read_lock. The hit path (#DB, NMI-like) takes no lock: it
 * reads the watch its breakpoint points to, which is freed only after its
 * breakpoints are released and an RCU grace period has passed. Nothing
 * here is called with event_mutex or trace_types_lock held and waits for
 * ksym_arm_work, which takes perf context mutexes.
 *
 * Event triggers (trace_ksym_trigger.c) are created and freed under
 * event_mutex, where neither ksym_mutex nor a perf mutex may be taken
 * (perf takes a context mutex, then event_mutex): their breakpoints are
 * registered and released by an ordered work item, and their own list is
 * under ksym_trigger_mutex, a leaf lock.
 */
#ifndef _TRACE_KSYM_H_PRIV
#define _TRACE_KSYM_H_PRIV

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <linux/cpumask.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <kunit/visibility.h>

struct trace_array;
struct ksym_dyn;

/*
 * Limits. An entry is one TARGET[/LEN]:ACCESS[@CPULIST] token; a write may
 * hold several, and a token may be split over several write() calls. A
 * TARGET with a cast and a field path is as long as its entry can be.
 */
#define KSYM_ENTRY_MAX		1024	/* longest entry, with its NUL */
#define KSYM_WRITE_MAX		4096	/* most data applied as one write */
#define KSYM_TARGET_MAX		KSYM_ENTRY_MAX
#define KSYM_MAX_WATCHES	32
#define KSYM_MAX_ENTRIES	(2 * KSYM_MAX_WATCHES)	/* in one write */
#define KSYM_CALLER_SLOTS	16	/* accessor slots per watch and CPU */
#define KSYM_STACK_MAX		64	/* deepest callchain */
#define KSYM_BRANCH_MAX		64	/* longest branch snippet */
#define KSYM_TRIGGER_SLOTS_MAX	4	/* objects one trigger watches at once */

/*
 * Tracer options (extra entries for every hit, off by default), and a bit
 * that is never an option: the tracer is current somewhere.
 */
#define KSYM_OPT_STACK		BIT(0)
#define KSYM_OPT_REGS		BIT(1)
#define KSYM_OPT_BRANCHES	BIT(2)
#define KSYM_OPT_CHANGES	BIT(3)
#define KSYM_TRACER_CURRENT	BIT(31)

#define KSYM_ACCESS_R	HW_BREAKPOINT_R
#define KSYM_ACCESS_W	HW_BREAKPOINT_W
#define KSYM_ACCESS_RW	HW_BREAKPOINT_RW
#define KSYM_ACCESS_X	HW_BREAKPOINT_X

/* The numbers are spelled out in show_ksym_access() for user space. */
static_assert(HW_BREAKPOINT_R == 1 && HW_BREAKPOINT_W == 2 &&
	      HW_BREAKPOINT_RW == 3 && HW_BREAKPOINT_X == 4);

/*
 * x86 debug registers cannot trigger on reads alone: R alone is refused by
 * the arch code at registration. Refuse it while parsing instead, where the
 * caret can point at it.
 */
#ifdef CONFIG_X86
#define KSYM_CAN_WATCH_READS	false
#else
#define KSYM_CAN_WATCH_READS	true
#endif

/*
 * arm64's data breakpoints trap before the access (the breakpoint core
 * steps over it after the handler), x86's after it.
 */
#ifdef CONFIG_ARM64
#define KSYM_TRAPS_BEFORE	true
#else
#define KSYM_TRAPS_BEFORE	false
#endif

/*
 * The length of an instruction breakpoint, which --x watches take: x86's
 * is sizeof(long), arm64's its 4-byte instruction (a breakpoint of any
 * other length is refused by the arch code).
 */
#ifdef CONFIG_ARM64
#define KSYM_EXEC_LEN		HW_BREAKPOINT_LEN_4
#else
#define KSYM_EXEC_LEN		sizeof(long)
#endif

/**
 * struct ksym_spec - what one watch is, as parsed and as shown when read
 * @addr:     first byte watched; for a per-CPU watch, its __percpu address
 *            (each CPU watches its own copy, per_cpu_ptr(@addr, cpu))
 * @len:      bytes watched: 1, 2, 4 or 8
 * @access:   HW_BREAKPOINT_R/W/X bits
 * @all_cpus: no @CPULIST was given: watch on every CPU
 * @has_value: the range is RAM, so the hit path may read the value the
 *            access left; never for device memory, where a read can have
 *            side effects, nor for execute watches
 * @mapped:   @has_value, and the range stays mapped for as long as the
 *            watch lives: the kernel image, a live module's memory (its
 *            watches go before it does), static per-CPU data. The hit path
 *            loads it plainly (ksym_load_mapped()), not by the nofault
 *            copy that the rest of the direct map needs (a freed page may
 *            be unmapped: KFENCE, debug_pagealloc)
 * @percpu:   @addr is in the per-CPU area (a DEFINE_PER_CPU variable)
 * @name_off: where the name the events and profiles show starts in
 *            @target: after the cast, "init_task.flags"
 * @name_len: length of that name, with its NUL
 * @cpus:     CPUs to watch on when !@all_cpus
 * @target:   canonical spelling of the target, e.g. "jiffies_64",
 *            "mod:sym+0x8", "0xffffffff81234560", "runqueues.nr_running"
 *            or "(struct task_struct)init_task.comm[2]"
 */
struct ksym_spec {
	unsigned long		addr;
	unsigned int		len;
	unsigned int		access;
	bool			all_cpus;
	bool			has_value;
	bool			mapped;
	bool			percpu;
	u16			name_off;
	u16			name_len;
	struct cpumask		cpus;
	char			target[KSYM_TARGET_MAX];
};

/* The address a watch's breakpoint on @cpu watches. */
static inline unsigned long ksym_spec_addr(const struct ksym_spec *spec,
					   int cpu)
{
	if (spec->percpu)
		return (unsigned long)per_cpu_ptr((void __percpu *)spec->addr,
						  cpu);
	return spec->addr;
}

/* Hits of one accessing instruction on one CPU. */
struct ksym_caller {
	unsigned long		ip;
	unsigned long		hits;
};

/*
 * Per-CPU profile of a watch. Only the CPU that takes the hit writes it,
 * from the #DB handler, which cannot nest (DR7 is off while it runs); the
 * stat files sum it up with READ_ONCE and tolerate a hit in flight.
 */
struct ksym_cpu_stats {
	unsigned long		other;	/* callers that found no free slot */
	struct ksym_caller	callers[KSYM_CALLER_SLOTS];
	unsigned long		window;	/* jiffies the rate window began */
	unsigned long		window_hits;
};

/*
 * Where a hit's old value comes from (ksym_hit.has_old). arm64 traps
 * before the access and reads it then; x86 traps after, and keeps the
 * value each hit left (or the value read when the watch was armed) for the
 * next hit of the same watch and copy: exact unless a write the watch does
 * not see came between (Documentation/trace/ksym.rst, Old and new).
 */
enum ksym_old_src {
	KSYM_OLD_NONE	= 0,	/* not known: @old is 0 */
	KSYM_OLD_READ	= 1,	/* read before the access, on its CPU */
	KSYM_OLD_LAST	= 2,	/* the value the watch saw last */
	KSYM_OLD_STALE	= 3,	/* the same, with another hit in flight */
};

/*
 * The value a watch saw last at one address (x86, whose breakpoints trap
 * after the access): the next hit's old value. Written by every hit of the
 * watch, on any CPU, and when it is armed. Every hit holds it while it
 * reads its values (arm64 from before its access to after its step): one
 * that overlaps another hit or an arming of the same copy says its old
 * value may be stale (ksym_last_enter()).
 */
struct ksym_last {
	unsigned long		addr;	/* where @value was read; 0: none */
	u64			value;
	atomic_t		busy;	/* holds in flight */
	atomic_t		seq;	/* holds begun */
};

struct ksym_last_hold {
	struct ksym_last	*last;
	int			seq;
	bool			overlap;
};

/**
 * struct ksym_watch - one watched address and its breakpoints
 * @list:  entry in ksym_watches, under ksym_mutex
 * @spec:  what is watched
 * @bps:   the breakpoint of each CPU it is registered on, or NULL
 * @stats: hit counts, per CPU; kept when the access or CPU list changes
 * @hot:   the hit path found it over ksym_max_hit_rate: it is disarmed
 *         until written again (under ksym_mutex, or READ/WRITE_ONCE)
 * @hot_logged: ksym_hot_work disarmed it everywhere and said so
 * @dyn:   the trigger slot this watch is, or NULL for a watch of
 *         ksym_trace_filter (trace_ksym_trigger.c)
 * @last:  the value seen last, for the next hit's old value: @last_one,
 *         or for a per-CPU watch each CPU's copy's in @last_pcpu
 */
struct ksym_watch {
	struct list_head		list;
	struct ksym_spec		spec;
	struct perf_event * __percpu	*bps;
	struct ksym_cpu_stats __percpu	*stats;
	bool				hot;
	bool				hot_logged;
	struct ksym_dyn			*dyn;
	struct ksym_last		last_one;
	struct ksym_last __percpu	*last_pcpu;
	/* Unique for the boot: a freed watch's memory reused is told apart. */
	u64				id;
};

/* The copy of @watch's last value that @cpu's breakpoint sees. */
static inline struct ksym_last *ksym_watch_last(struct ksym_watch *watch,
						int cpu)
{
	if (watch->spec.percpu)
		return per_cpu_ptr(watch->last_pcpu, cpu);
	return &watch->last_one;
}

/*
 * Errors of ksym_trace_filter, with their error_log texts: one list makes
 * both the codes and the texts (trace_ksym_parse.c).
 */
#define KSYM_ERRORS							\
	C(BAD_ENTRY,	"Expected TARGET[/LEN]:ACCESS[@CPULIST]"),	\
	C(TOO_LONG,	"Entry is too long: 1023 characters an entry, 4095 bytes a write"), \
	C(TOO_MANY_ENTRIES, "Too many entries in one write: at most 64, write the rest after"), \
	C(NUL_BYTE,	"NUL byte in the written data"),		\
	C(BAD_ACCESS,	"Access must be one of rw-, -w-, r--, --x or ---"), \
	C(NO_READ_ONLY,	"This CPU cannot watch reads alone: use rw-"),	\
	C(BAD_SYMBOL,	"Invalid character in symbol name"),		\
	C(NO_SYMBOL,	"Unknown symbol: not in kallsyms (data needs CONFIG_KALLSYMS_ALL; is its module loaded?)"), \
	C(BAD_OFFSET,	"Invalid offset: a number after +, as in sym+0x10"),	\
	C(OFFSET_OUTSIDE,	"The offset leaves the symbol: past the end of memory"), \
	C(BAD_ADDR,	"Invalid address: expected 0x and hexadecimal digits"), \
	C(USER_ADDR,	"User-space address: only kernel addresses can be watched"), \
	C(NO_MEMORY_AT,	"No kernel memory at this address: nothing is mapped there"), \
	C(STACK_REGS,	"The top of a task stack, where the entry code saves registers: not safe to watch"), \
	C(INIT_FREED,	"Init memory, freed after initialization"),	\
	C(BAD_LEN,	"Length must be 1, 2, 4 or 8"),			\
	C(NEED_LEN,	"No length known for SYMBOL+OFFSET or an address: give /LEN"), \
	C(MISALIGNED,	"Address is not aligned to the length: give a smaller /LEN"), \
	C(NOT_TEXT,	"--x needs an instruction address"),		\
	C(NOT_PROBED,	"This text cannot be watched: entry or noinstr code, kprobe-blacklisted, or a kernel without kprobes"), \
	C(EXEC_LEN,	"--x watches take the instruction breakpoint length: give no /LEN"), \
	C(BAD_CPULIST,	"Invalid CPU list: possible CPUs as in @0-1,3, none on removal"), \
	C(BAD_CAST,	"Expected (struct TYPE) or (union TYPE) before the symbol"), \
	C(NO_TYPE,	"No such struct or union in the kernel's BTF"),	\
	C(CAST_MISMATCH, "The cast contradicts the symbol's type in BTF"), \
	C(NEED_CAST,	"BTF types only per-CPU variables: name the type, as in (struct task_struct)init_task.flags"), \
	C(NO_BTF,	"Casts and field paths need BTF: a kernel built with CONFIG_DEBUG_INFO_BTF"), \
	C(CAST_ADDR,	"Casts and field paths need a symbol, not an address"), \
	C(BAD_PATH,	"Expected .FIELD or [INDEX]"),			\
	C(NO_FIELD,	"No such field in this struct or union: ksym-ctl fields TYPE lists them"), \
	C(NOT_STRUCT,	"Not a struct or union: it has no fields"),	\
	C(NOT_ARRAY,	"Not an array: it has no elements"),		\
	C(BAD_INDEX,	"Array index out of range"),			\
	C(LEN_TOO_BIG,	"Length is larger than the field: give a smaller /LEN"), \
	C(PERCPU_NO_BTF, "Per-CPU variable of a module without BTF: its module cannot be checked"), \
	C(NO_SUCH_WATCH, "No such watch to remove"),			\
	C(TOO_MANY,	"Too many watches: at most 32; remove one first"),	\
	C(MODULE_GOING,	"The module of this address is going away"),	\
	C(MODULE_COMING,	"The module is still loading: its per-CPU data can be watched once it is live"), \
	C(LOCKDOWN,	"Kernel is locked down: no new watches"),	\
	C(NO_SLOT,	"No free hardware breakpoint slot: they are shared with perf and ptrace; remove a watch or narrow its @CPULIST"), \
	C(REG_FAILED,	"The breakpoint core refused this watch: x86 refuses the CPU entry area and its debug-register state"), \
	C(NO_MEM,	"Out of memory"),				\
	C(ROLLBACK,	"Failed write not fully undone: a watch lost CPUs, see ksym_trace_filter"), \
	C(TOO_HOT,	"Watch disarmed: more hits per second on a CPU than ksym_max_hit_rate; write it again to re-arm"), \
	C(T_SYNTAX,	"Expected ksym_watch:[(struct TYPE)|(void *)]FIELD[.MEMBER|[N]...][{+|-}OFFSET][/LEN]:ACCESS[:N] or ksym_unwatch:[(void *)]FIELD[{+|-}OFFSET][:N]"), \
	C(T_NO_FIELD,	"No such field in this event: its format file lists them"), \
	C(T_NOT_ADDR,	"This field cannot hold an address: it must be 8 bytes, a pointer, or cast ((struct TYPE) or (void *)) to say it holds one"), \
	C(T_NEED_TYPE,	"A field path needs a type: the field's own (a struct pointer) or a cast (struct TYPE)"), \
	C(T_DATA_ONLY,	"Triggers watch data: the access must be -w- or rw-"), \
	C(T_BAD_COUNT,	"Invalid count: the number of firings, after the access"), \
	C(T_EXISTS,	"The same trigger is already set on this event"), \
	C(T_NOT_FOUND,	"No such trigger on this event to remove"), \
	C(T_NO_SLOT,	"No free hardware breakpoint slot for this trigger: it counts misses; remove a watch and set it again")

#undef C
#define C(a, b)		KSYM_ERR_##a
enum ksym_err { KSYM_ERRORS };
#undef C

enum ksym_op {
	KSYM_OP_SET,		/* add the watch or change its access/len/CPUs */
	KSYM_OP_REMOVE,		/* TARGET:--- */
	KSYM_OP_CLEAR,		/* 0 or *:--- */
};

/**
 * struct ksym_entry - one parsed entry of a write
 * @op:      what to do
 * @spec:    the watch, for KSYM_OP_SET and KSYM_OP_REMOVE
 * @text:    the entry as written, NUL-terminated, for error_log
 * @err:     KSYM_ERR_* when parsing or applying it failed
 * @err_pos: offset of the bad token in @text
 */
struct ksym_entry {
	enum ksym_op		op;
	struct ksym_spec	spec;
	char			*text;
	int			err;
	int			err_pos;
};

/*
 * The blanks that separate entries (ksym_entry_end()), nothing else
 * (isspace() also takes Latin-1 0xa0, which a symbol cannot hold either
 * but would then be counted as a separator and not split at).
 */
#define KSYM_BLANKS	" \t\n\r\v\f"

static inline bool ksym_is_blank(char c)
{
	return c && strchr(KSYM_BLANKS, c);
}

/* Record an entry's error and where it is; returns @ret. */
static inline int ksym_entry_fail(struct ksym_entry *e, int err, int pos,
				  int ret)
{
	e->err = err;
	e->err_pos = pos;
	return ret;
}

/*
 * Load the watched range as an integer of its size, so that the value is
 * right on either endianness. Only for RAM (ksym_spec.has_value); the
 * nofault copy still covers memory freed under a watch.
 */
static inline bool ksym_read_value(unsigned long addr, unsigned int len,
				   u64 *val)
{
	union {
		u8	b;
		u16	h;
		u32	w;
		u64	q;
	} v;

	if (copy_from_kernel_nofault(&v, (void *)addr, len))
		return false;
	switch (len) {
	case 1:
		*val = v.b;
		break;
	case 2:
		*val = v.h;
		break;
	case 4:
		*val = v.w;
		break;
	default:
		*val = v.q;
		break;
	}
	return true;
}

/*
 * The same load where the range cannot be unmapped under the watch
 * (ksym_spec.mapped): a plain load of its size, about a hundred
 * instructions fewer than the nofault copy on every recorded hit. The
 * range is naturally aligned (a breakpoint's), so the load is one access.
 * Not instrumented (KASAN, KCSAN, KMSAN), as the nofault copy is not: a
 * watch may cover a redzone (under KASAN a 4-byte global is watched over
 * 8 bytes), and the access itself was checked where it was made.
 */
static __no_sanitize_or_inline u64 ksym_load_mapped(unsigned long addr,
						    unsigned int len)
{
	switch (len) {
	case 1:
		return READ_ONCE(*(u8 *)addr);
	case 2:
		return READ_ONCE(*(u16 *)addr);
	case 4:
		return READ_ONCE(*(u32 *)addr);
	default:
		return READ_ONCE(*(u64 *)addr);
	}
}

/*
 * A TARGET taken apart: [(struct|union TYPE)]SYMBOL[PATH][+OFFSET]. The
 * positions are offsets in the entry, for the caret of error_log.
 */
struct ksym_target {
	const char	*cast;		/* "struct task_struct", or NULL */
	int		cast_pos;
	const char	*sym;		/* as written, "mod:" prefix included */
	int		sym_pos;
	const char	*path;		/* ".comm[2]", or "" */
	int		path_pos;
	unsigned long	addr;		/* the symbol's, from kallsyms */
	bool		percpu;		/* a per-CPU variable */
	struct module	*mod;		/* a trigger's event's (or probed function's) module */
	/* What trace_ksym_btf.c found: */
	unsigned long	off;		/* bytes from the symbol to the field */
	unsigned long	size;		/* the field's bytes */
	bool		typed;		/* BTF types the symbol itself */
	char		canon[KSYM_TARGET_MAX];	/* cast and path, canonical */
};

/* trace_ksym_parse.c */
struct module;

int ksym_parse_entry(struct ksym_entry *e);
int ksym_parse_access(const char *s, unsigned int *access);
bool ksym_addr_vmalloc(unsigned long addr, unsigned int len);
bool ksym_addr_stack_regs(unsigned long addr, unsigned int len);
bool ksym_addr_stays_ram(unsigned long addr, unsigned int len,
			 const struct module *mod);
int ksym_parse_cast(struct ksym_entry *e, char *s, int pos,
		    struct ksym_target *t);
unsigned int ksym_default_len(unsigned long addr, unsigned long symsize);
void ksym_log_at(struct trace_array *tr, const char *loc, const char *text,
		 int err, int pos);
int ksym_spec_format(char *buf, size_t size, const struct ksym_spec *spec);
bool ksym_spec_equal(const struct ksym_spec *a, const struct ksym_spec *b);
const char *ksym_access_str(unsigned int access);
void ksym_log(const char *text, int err, int pos);

/* trace_ksym_btf.c */
int ksym_btf_resolve(struct ksym_entry *e, struct ksym_target *t,
		     bool module_percpu);
int ksym_btf_resolve_type(struct ksym_entry *e, struct ksym_target *t);
struct trace_event_call;
bool ksym_probe_arg_struct(struct trace_event_call *call, const char *field,
			   char *out, size_t size, struct module **mod);

/* trace_ksym_watch.c: the watch set, under ksym_mutex */
extern struct mutex ksym_mutex;
extern struct list_head ksym_watches;
extern struct work_struct ksym_arm_work;
extern atomic_t ksym_consumers;
extern atomic_t ksym_branch_users;
extern u64 ksym_max_hit_rate;
void ksym_watch_too_hot(struct ksym_watch *watch, struct perf_event *bp);
int ksym_write_entries(char *buf);
char *ksym_entry_end(char *p);
int ksym_bp_create(struct ksym_watch *watch, const struct ksym_spec *spec,
		   int cpu, bool disabled);
void ksym_bp_release(struct ksym_watch *watch, int cpu);
void ksym_watch_release_all(struct ksym_watch *watch);
int ksym_watch_missing(struct ksym_watch *watch, struct cpumask *missing);
void ksym_sync_arming(void);
void ksym_arm_soon(void);
int ksym_event_reg(void);
void ksym_event_unreg(void);
int ksym_watch_init(void);

/* trace_ksym.c */
void ksym_hit_handler(struct perf_event *bp, struct perf_sample_data *data,
		      struct pt_regs *regs);
void ksym_hit_stepped(struct perf_event *bp, struct pt_regs *regs, bool done);
int ksym_hit_test_pending_reused(bool slots, long *same, long *other,
				 int *left);
u64 ksym_watch_new_id(void);
bool ksym_read_own(unsigned long addr, unsigned int len, u64 *val);
void ksym_last_seed(struct ksym_last *last, unsigned long addr,
		    unsigned int len);
u8 ksym_last_swap(struct ksym_last *last, unsigned long addr, u64 val,
		  u64 *old);
void ksym_last_enter(struct ksym_last *last, struct ksym_last_hold *hold);
bool ksym_last_leave(struct ksym_last_hold *hold);
void ksym_watch_seed(struct ksym_watch *watch, int cpu);
bool ksym_in_hit_handler(void);

/* trace_ksym_stat.c */
int ksym_stat_init(void);

/**
 * ksym_watch_hits - the hits a watch has counted on one CPU
 * @watch: the watch
 * @cpu:   the CPU
 *
 * Return: the sum of its callers' and other hits there.
 */
static inline unsigned long ksym_watch_hits(struct ksym_watch *watch, int cpu)
{
	struct ksym_cpu_stats *s = per_cpu_ptr(watch->stats, cpu);
	unsigned long hits = READ_ONCE(s->other);
	int i;

	for (i = 0; i < KSYM_CALLER_SLOTS; i++)
		hits += READ_ONCE(s->callers[i].hits);
	return hits;
}

/*
 * Watches of objects found at run time: the triggers (trace_ksym_trigger.c)
 * and their slots (trace_ksym_slot.c). The slots read and count in struct
 * ksym_trigger; only the triggers call the slots.
 */
#define KSYM_TRIGGER_EVENT_MAX	(2 * 64 + 2)	/* "system:event", MAX_EVENT_NAME_LEN */

/**
 * struct ksym_trigger - one ksym_watch or ksym_unwatch trigger
 * @list:      entry in ksym_triggers, under ksym_trigger_mutex
 * @unwatch:   a ksym_unwatch trigger (no slots)
 * @call:      the event, whose module (if any) the trigger holds
 * @tr:        the instance of the event file it is set in: an unwatch
 *             ends watches of that instance's triggers only (compared,
 *             never followed)
 * @event:     "system:event", for the stat file and error_log
 * @canon:     the trigger's canonical text, without count and filter
 * @name:      what events and profiles call the watched field:
 *             "ksym_hitgen_obj.count", or the event field's name
 * @field_off: where the address is in the event's record
 * @off:       bytes from the object to the watched field, or (unwatch)
 *             from the field's address to the object; negative below it
 *             (a local below the stack pointer a probe fetched)
 * @len:       bytes watched
 * @access:    HW_BREAKPOINT_W or _RW
 * @nr_slots:  slots asked for (ksym_trigger_slots when created)
 * @slots:     the slots
 * @nr_live_slots: slots whose breakpoints were registered
 * @armed:     objects a slot was taken for
 * @missed:    firings that found no free slot
 * @refused:   firings whose address is no kernel RAM, or misaligned
 * @unwatched: watches ended by ksym_unwatch
 * @too_hot:   watches ended by the hit-rate guard
 * @stray:     hits of a slot's breakpoint while it was parked
 * @late:      hits of an object whose watch had ended, on a CPU whose
 *             breakpoint had not moved yet: not counted as the slot's
 * @stale:     stack watches ended without their unwatch: the owner task
 *             exited, or the watch outlived ksym_stack_watch_ms
 * @window_last: ns from the last firing to its watch live everywhere
 * @window_max:  the longest such window
 * @reg_work:  registers the slots' breakpoints
 * @free_work: releases them and frees the trigger
 */
struct ksym_trigger {
	struct list_head	list;
	bool			unwatch;
	struct trace_event_call	*call;
	const struct trace_array *tr;
	char			event[KSYM_TRIGGER_EVENT_MAX];
	char			*canon;
	char			*name;
	unsigned int		field_off;
	long			off;
	unsigned int		len;
	unsigned int		access;
	int			nr_slots;
	struct ksym_dyn		*slots[KSYM_TRIGGER_SLOTS_MAX];
	int			nr_live_slots;
	atomic_long_t		armed;
	atomic_long_t		missed;
	atomic_long_t		refused;
	atomic_long_t		unwatched;
	atomic_long_t		too_hot;
	atomic_long_t		stray;
	atomic_long_t		late;
	atomic_long_t		stale;
	u64			window_last;
	u64			window_max;
	struct work_struct	reg_work;
	struct work_struct	free_work;
};

/* trace_ksym_slot.c: a trigger's slots */
struct ksym_dyn *ksym_dyn_alloc(struct ksym_trigger *trig, const char *name);
void ksym_dyn_free(struct ksym_dyn *d);
int ksym_dyn_register_all(struct ksym_trigger *trig);
void ksym_dyn_release_all(struct ksym_trigger *trig);
bool ksym_dyn_watching(struct ksym_trigger *trig, unsigned long obj);
struct ksym_dyn *ksym_dyn_claim(struct ksym_trigger *trig, unsigned long obj,
				unsigned long *gen);
bool ksym_dyn_arm(struct ksym_trigger *trig, struct ksym_dyn *d,
		  unsigned long gen, unsigned long obj, unsigned long addr);
bool ksym_dyn_end(struct ksym_dyn *d, unsigned long obj);
void ksym_dyn_unwatch(const struct trace_array *tr, unsigned long obj);
unsigned long ksym_dyn_cpu_hits(struct ksym_dyn *d, int cpu);
void ksym_dyn_too_hot(struct ksym_dyn *dyn);
int ksym_dyn_init(void);
extern u64 ksym_stack_watch_ms;
bool ksym_dyn_stray(struct ksym_dyn *dyn, struct perf_event *bp,
		    struct pt_regs *regs);
int ksym_dyn_test_stray(unsigned int type, bool parked, int hits,
			long *stray, bool *said);
int ksym_dyn_test_claims(const char *steps, long *armed);
int ksym_dyn_test_reclaim(long *late, long *stale);
struct ksym_watch *ksym_dyn_test_watch(struct ksym_trigger *trig,
				       struct ksym_dyn **d);
int ksym_dyn_test_retire(int rounds, int hits, unsigned long *total);
int ksym_dyn_test_park_fail(bool fail, bool *off, unsigned long *addr);
int ksym_dyn_test_busy(unsigned int *tries, bool *moved, bool *reset);
int ksym_dyn_test_online(bool claimed, int *where);
unsigned long ksym_dyn_object(const struct ksym_dyn *dyn, bool *live);
struct ksym_watch *ksym_dyn_next_watch(struct ksym_watch *prev);
void ksym_dyn_cpu_online(unsigned int cpu);
void ksym_dyn_cpu_offline(unsigned int cpu);
int ksym_trigger_settle(unsigned long obj);

/* trace_ksym_trigger.c: the ksym_watch and ksym_unwatch commands */
int ksym_trigger_init(void);
void ksym_trigger_sync(void);

/* trace_ksym_branch.c: the last branches before a hit */
struct ksym_capture;
#ifdef CONFIG_KSYM_TRACER_BRANCHES
extern u64 ksym_branch_entries;
void ksym_branches_capture(struct ksym_capture *cap);
void ksym_branches_update(bool on);
int ksym_branches_reg(void);
void ksym_branches_unreg(void);
int ksym_branch_init_tracefs(void);
#else
static inline void ksym_branches_capture(struct ksym_capture *cap) { }
static inline void ksym_branches_update(bool on) { }
static inline int ksym_branches_reg(void) { return ksym_event_reg(); }
static inline void ksym_branches_unreg(void) { ksym_event_unreg(); }
static inline int ksym_branch_init_tracefs(void) { return 0; }
#endif

/*
 * What a hit captured beyond ksym_hit, for the events and for the tracer:
 * taken once even when both want it.
 */
struct ksym_capture {
	const unsigned long	*ips;
	unsigned int		nr_ips;
	const unsigned long	*from_to;
	unsigned int		nr_branches;
	unsigned int		source;		/* enum ksym_branch_src */
};

#endif /* _TRACE_KSYM_H_PRIV */
