/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: which running ksym-ctl holds which watch and tracer option.
 *
 * The watch set (ksym_trace_filter) and the tracer options are global: two
 * ksym-ctl runs at once share them. Each run that adds or changes a watch,
 * or sets an option, claims it in a state file (ksym-ctl.8, CONCURRENCY):
 * the line or value it had before the first claimer changed it, the one
 * the first claimer set, and the runs that hold it, by the name of their
 * tracefs instance. A run that finishes drops its name; only the last one
 * puts the original back. A setting (a top-level tracefs file such as
 * ksym_trigger_slots, read by the kernel when a trigger is created) is
 * claimed the same way. The runs that are gone (killed) are told by the
 * lock on their instance (ksym_tracefs.c); here they are only asked about.
 *
 * Pure: the state file's text in and out, unit tested on the host.
 */
#ifndef KSYM_CTL_CLAIMS_H
#define KSYM_CTL_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>

#include "utils.h"

enum claim_kind {
	CLAIM_WATCH	= 'w',	/* key: the TARGET of a ksym_trace_filter line */
	CLAIM_OPTION	= 'o',	/* key: a tracer option (options/KEY) */
	CLAIM_SETTING	= 's',	/* key: a top-level tracefs file (ksym_trigger_slots) */
	/*
	 * key: a run's instance, its only owner. Nothing to put back: it says
	 * that the run keeps its claims in this state file, so that a live
	 * instance without one is a run whose claims are elsewhere (another
	 * mount namespace or euid, review 11-28 L1).
	 */
	CLAIM_RUN	= 'r',
};

struct claim {
	char		kind;		/* enum claim_kind */
	char		*key;
	char		*orig;		/* before the first owner ("": no watch) */
	char		*set;		/* as the first owner left it */
	struct strv	owners;		/* instance names of the runs holding it */
};

struct claims {
	char		*boot_id;	/* the boot the claims are of */
	struct claim	*v;
	int		n;
};

/*
 * The "set" of a watch's claim saved before the run writes the watch (what
 * the kernel will show is not known yet): a run killed between the write
 * and its claim leaves this, and reset puts the original back when the
 * line is no longer the original (review 11-28 L2). A later run that takes
 * such a claim over keeps its original.
 */
#define CLAIM_PENDING	"?"

/* Whether the run of instance @owner is still there. */
typedef bool (*claim_alive_fn)(const char *owner, void *arg);

/*
 * The state file's text -> @c. Claims of another boot (@boot_id differs)
 * are dropped: their runs and watches are gone. Lines that are not claims
 * are skipped. 0, or -1 (no memory).
 */
int claims_parse(struct claims *c, const char *text, const char *boot_id);

/* @c as the state file's text (malloc'ed), or NULL. */
char *claims_format(const struct claims *c);

struct claim *claims_find(struct claims *c, char kind, const char *key);

/* "watch", "option" or "setting", for messages. */
const char *claim_kind_name(char kind);

/* Whether @cl has an owner other than @self that @alive says is there. */
bool claim_held_by_other(const struct claim *cl, const char *self,
			 claim_alive_fn alive, void *arg);

/*
 * @owner takes @key. A claim that has live owners gets one more; one with
 * none (its runs are gone) or none at all starts over with @owner alone:
 * the original stays that of the claim that was there if its value is
 * still what it set (@before == set), else it is @before. @before: the
 * line or value before @owner's change ("" when none), @after: after it.
 * 0, or -1.
 */
int claims_take(struct claims *c, char kind, const char *key,
		const char *before, const char *after, const char *owner,
		claim_alive_fn alive, void *arg);

/*
 * Drop @owner and the owners @alive says are gone from every claim. The
 * claims @owner held that are left without owners move to @freed: the
 * caller puts their originals back. Claims left without owners that
 * @owner did not hold stay (their runs were killed: ksym-ctl reset), unless
 * @owner is NULL (reset): then they all move to @freed. A CLAIM_RUN left
 * without its owner is dropped, never moved: it has nothing to put back.
 * 0, or -1.
 */
int claims_release(struct claims *c, const char *owner, claim_alive_fn alive,
		   void *arg, struct claims *freed);

/*
 * @owner lets go of claim (@kind, @key) alone; left without owners, the
 * claim moves to @freed (the caller puts its original back). 0, or -1.
 */
int claims_drop(struct claims *c, char kind, const char *key, const char *owner,
		struct claims *freed);

void claims_free(struct claims *c);

/*
 * "TARGET[/LEN][:ACCESS[@CPULIST]]" as the user wrote it -> TARGET (in
 * @buf of @size). Only a real ACCESS ([r-][w-][x-]) after the last ':' is
 * stripped, and a LEN of digits after the last '/': "mymod:refcount_x"
 * stays whole.
 */
void spec_target(const char *spec, char *buf, size_t size);

/* The ACCESS of a spec or a canonical line ("-w-"), or "" without one. */
void spec_access(const char *spec, char *buf, size_t size);

/*
 * Whether the watch @want (as the user wrote it) asks for another access,
 * LEN or CPU list than canonical line @have shows: what @want leaves out
 * (a LEN, an ACCESS) is not compared; no CPU list is every CPU, and CPU
 * lists are compared as sets ("0-1" is "0,1"). Review 11-28 L4.
 */
bool spec_differs(const char *want, const char *have);

#endif
