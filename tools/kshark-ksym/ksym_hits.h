/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * ksym_hits.h - KernelShark plot plugin for the ksym tracer's ksym_hit events.
 *
 * The C part (ksym_hits.c) collects every ksym_hit entry while KernelShark
 * loads a trace and reads its fields; the C++ part (KsymHits.cpp) draws one
 * marker per hit on the CPU and task graphs. Shaped after KernelShark's own
 * sched_events plugin.
 */
#ifndef _KSHARK_PLUGIN_KSYM_HITS_H
#define _KSHARK_PLUGIN_KSYM_HITS_H

#include <stdint.h>
#include <stdbool.h>
#include <sys/types.h>

#include "libkshark.h"
#include "libkshark-plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

struct tep_handle;
struct tep_record;

/* HW_BREAKPOINT_R/W/X, as include/trace/events/ksym.h records them. */
#define KSYM_ACCESS_R	1
#define KSYM_ACCESS_W	2
#define KSYM_ACCESS_X	4

/*
 * How a hit's old value (the watched range before the access) is known: the
 * kernel's has_old (include/trace/events/ksym.h), KSYM_OLD_NONE in traces
 * without it. KSYM_OLD_UNKNOWN: a has_old the kernel does not write (a
 * crafted file's), not trusted.
 */
enum ksym_old {
	KSYM_OLD_NONE = 0,	/* not known; old is 0 */
	KSYM_OLD_READ,		/* read right before the access: exact */
	KSYM_OLD_LAST,		/* the last value the watch saw: exact unless
				 * a write it did not see came between */
	KSYM_OLD_STALE,		/* as LAST, but may be stale */
	KSYM_OLD_UNKNOWN,
};

/* Event systems that may carry a "ksym_hit" event (see ksym_hits.c). */
#define KSYM_HIT_EVENT_NAME	"ksym_hit"
#define KSYM_HIT_MAX_EVENTS	4

/* Longest watch name kept from a ksym_hit's sym field, with its NUL. */
#define KSYM_NAME_MAX		1024

/* What one hit was, as far as the trace tells. */
enum ksym_hit_kind {
	/* "rw-" watch: no old value, first hit, or no value read: nothing to compare */
	KSYM_HIT_ACCESS = 0,
	/* "-w-" watch, or an "rw-" watch whose value changed */
	KSYM_HIT_WRITE,
	/* "r--" watch, or an "rw-" watch whose value did not change */
	KSYM_HIT_READ,
	/* "--x" watch */
	KSYM_HIT_EXEC,
};

/*
 * One watch: one colour in the plot. A trace whose ksym_hit has the "sym"
 * field names its watches: one watch per name (a per-CPU watch hits at
 * another address on every CPU). Older traces have only the address: one
 * watch per address, named from the trace's kallsyms.
 */
struct ksym_watch {
	/* The lowest address seen: colours go by it. */
	uint64_t	addr;
	/* "pid_max", "runqueues.nr_running", "init_task.flags" (sym), or
	 * from kallsyms: "ksym_hitgen_var", "sym+0x8" or "0xffff..." */
	char		*name;
	/* name is the event's sym field */
	bool		named;
	/* The addresses hit: one, or a per-CPU watch's copy on each CPU. */
	uint64_t	*addrs;
	int		nr_addrs;
	int		cap_addrs;
	unsigned int	access;		/* of the first hit seen */
	unsigned int	len;
	/* index into the colour palette: watches sorted by address */
	int		colour;
	ssize_t		nr_hits;
	ssize_t		nr_writes;
	ssize_t		nr_reads;
};

/* One hit. */
struct ksym_hit {
	struct kshark_entry	*entry;
	/* The function the hit is counted for (kallsyms of the trace): the
	 * one holding caller; NULL when the trace does not know it. */
	const char		*func;
	/* The instruction after the access. */
	uint64_t		ip;
	/* The attributed caller: for a hit in the lock primitives the first
	 * frame outside them, else ip; ip in traces without the field. */
	uint64_t		caller;
	uint64_t		value;		/* after the access */
	uint64_t		old;		/* before it, as has_old says */
	int			watch;		/* index into ctx->watches */
	int			copy;		/* index into its addrs */
	uint8_t			access;		/* configured access */
	uint8_t			len;
	uint8_t			kind;		/* enum ksym_hit_kind */
	uint8_t			has_value;	/* value was read */
	uint8_t			has_old;	/* enum ksym_old */
};

/* Fields of one event named ksym_hit. */
struct ksym_hit_event {
	struct tep_event	*event;
	struct tep_format_field	*addr;
	struct tep_format_field	*ip;
	struct tep_format_field	*access;	/* "access" or "type" */
	struct tep_format_field	*value;		/* optional */
	struct tep_format_field	*len;		/* optional */
	struct tep_format_field	*has_value;	/* optional */
	struct tep_format_field	*old;		/* optional, with has_old */
	struct tep_format_field	*has_old;	/* optional, with old */
	struct tep_format_field	*caller;	/* optional */
	struct tep_format_field	*sym;		/* optional */
};

/* One entry of the context's hash index (see ksym_hits.c). */
struct ksym_slot {
	uint64_t	hash;
	int		watch;		/* index into watches, plus 1; 0: empty */
	int		copy;		/* index into its addrs; -1: the watch */
};

/* The plugin's per-stream context. */
struct plugin_ksym_context {
	struct tep_handle		*tep;
	struct ksym_hit_event		events[KSYM_HIT_MAX_EVENTS];
	int				nr_events;

	/* Hits in load order; data->data[i]->field is an index into it. */
	struct kshark_data_container	*data;
	struct ksym_hit			*hits;
	ssize_t				nr_hits;
	ssize_t				cap_hits;
	/* Hits that could not be stored (allocation failure). */
	ssize_t				nr_lost;

	struct ksym_watch		*watches;
	int				nr_watches;
	int				cap_watches;
	/*
	 * The watches by name (or, unnamed, by address) and each watch's
	 * copies by address: a trace of many objects finds each hit's in
	 * constant time. A power of 2 of slots, at most half used.
	 */
	struct ksym_slot		*index;
	size_t				index_size;
	size_t				index_used;

	/* True once ksym_hits_resolve() has run over the loaded hits. */
	bool				resolved;
};

KS_DECLARE_PLUGIN_CONTEXT_METHODS(struct plugin_ksym_context)

int ksym_hits_resolve(struct plugin_ksym_context *ctx);

/*
 * The ksym_hit events of @tep, and the container of the hits: false when
 * it has none (or out of memory). What the plugin's initializer does for a
 * stream; a test or fuzzer calls it on a tep of its own.
 */
bool ksym_hits_init(struct plugin_ksym_context *ctx, struct tep_handle *tep);

/*
 * Add the hit of @record, one of the ksym_hit events, as @entry: what the
 * plugin's event handler does with each record KernelShark loads. Reads
 * only inside the record. 0, or -1 when the hit is not kept (counted in
 * nr_lost): not a ksym_hit, a required field outside the record, or out of
 * memory.
 */
int ksym_hits_add(struct plugin_ksym_context *ctx, struct tep_record *record,
		  struct kshark_entry *entry);

/* Forget every hit and watch (a fuzzer between inputs); 0, or -1 out of memory. */
int ksym_hits_reset(struct plugin_ksym_context *ctx);

const char *ksym_access_str(unsigned int access);

const char *ksym_hit_kind_str(unsigned int kind);

/* "none", "read", "last", "stale" or "unknown", by enum ksym_old. */
const char *ksym_old_str(unsigned int has_old);

char *ksym_hit_accessor(struct plugin_ksym_context *ctx,
			const struct ksym_hit *hit);

char *ksym_hit_describe(struct plugin_ksym_context *ctx,
			const struct ksym_hit *hit);

/* Defined by the C++ part (or by a test that has no GUI). */
void plugin_ksym_draw(struct kshark_cpp_argv *argv, int sd, int val,
		      int draw_action);

void *plugin_ksym_set_gui_ptr(void *gui_ptr);

#ifdef __cplusplus
}
#endif

#endif /* _KSHARK_PLUGIN_KSYM_HITS_H */
