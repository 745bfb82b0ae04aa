/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: the thin tracefs layer. Everything ksym-ctl reads or writes in
 * tracefs goes through here, and a session remembers what it changed so
 * that ksym_session_restore() leaves tracefs as it was found: the watch set,
 * the tracer options and the instance it created (its set_event_pid emptied
 * first, should it stay).
 */
#ifndef KSYM_CTL_TRACEFS_H
#define KSYM_CTL_TRACEFS_H

#include <signal.h>
#include <sys/types.h>
#include <stdbool.h>
#include <tracefs.h>

#include "claims.h"
#include "hitcount.h"
#include "utils.h"

struct ksym_session {
	struct tracefs_instance	*inst;		/* created by us, or NULL */
	/*
	 * The instance's directory, open and flock()ed while we run: others
	 * tell a run that is gone (killed) from one that is not by it.
	 */
	int			inst_lock;
	/* Its CLAIM_RUN is in the state file (ksym_session_create()). */
	bool			registered;
	struct strv		targets;	/* targets of our watches */
	bool			filter_changed;	/* watches claimed */
	struct strv		opts;		/* tracer options claimed */
	/*
	 * -p: the TIDs ksym_session_instance() writes to the instance's
	 * set_event_pid (with options/event-fork on) before it arms; NULL:
	 * every task.
	 */
	const char		*event_pids;
	bool			pids_set;
	/*
	 * --trigger: "SYSTEM:EVENT:TRIGGER" as given, and how many of them
	 * are set on the instance's events (the first nr_triggers_set).
	 */
	struct strv		triggers;
	int			nr_triggers_set;
	/* "SYSTEM:EVENT" enabled in the instance by ksym_session_event() */
	struct strv		events;
};

#define KSYM_SESSION_INIT	{ .inst_lock = -1 }

/* Set by the handler of SIGINT, SIGTERM, SIGHUP and SIGQUIT. */
extern volatile sig_atomic_t ksym_stop;
/* How many of them came: a wait that started after one ends on the next. */
extern volatile sig_atomic_t ksym_signals;

/*
 * Catch SIGINT, SIGTERM, SIGHUP and SIGQUIT (sets ksym_stop; no
 * SA_RESTART), ignore SIGPIPE (a closed stdout is seen by ferror()).
 */
void ksym_catch_signals(void);

/*
 * Whether what was printed on stdout did not all get out (flushed here): a
 * reader that is gone (EPIPE: SIGPIPE is ignored) or another write error,
 * which is said on stderr.
 */
bool ksym_stdout_failed(void);

/*
 * tracefs mounted, the ksym tracer in this kernel, allowed to write it:
 * 0, or -1 with a message saying what to do.
 */
int ksym_check(void);

/*
 * Wait until the watches are armed or disarmed as the consumers say: the
 * kernel arms from a work item, and opening ksym_trace_filter waits for it.
 */
void ksym_sync(void);

/* Contents of any file (/proc/kallsyms: its size is not known), or NULL. */
char *ksym_read_text(const char *path);

/* Contents of a top-level tracefs file (malloc'ed), or NULL. */
char *ksym_read_file(const char *file);

/*
 * One write of @text (entries, a newline is added) to ksym_trace_filter.
 * On failure prints the kernel's error_log entry and returns -errno.
 */
int ksym_filter_write(const char *text);

/*
 * The state of the ksym-ctl runs (claims.h) lives in /run/ksym-ctl, or in
 * /tmp/ksym-ctl where /run cannot hold it (state.c): the directory 0700,
 * its files 0600, anything others could open refused. Its lock is a
 * flock() on tracefs's instances directory, one for every run that shares
 * tracefs, whatever its mount namespace or euid (review 11-28 L1).
 * ksym_state_lock(LOCK_EX or LOCK_SH) returns the lock's descriptor, or -1
 * with a message: it waits at most KSYM_STATE_WAIT_MS, and gives up on a
 * signal that comes while it waits, naming the holder.
 * ksym_state_unlock() releases it.
 */
#define KSYM_STATE_WAIT_MS	30000
int ksym_state_lock(int how);
void ksym_state_unlock(int fd);
/* The claims, under the lock; 0 or -1. */
int ksym_state_load(struct claims *c);
int ksym_state_save(const struct claims *c);
/* The state directory (for messages), or NULL with a message. */
const char *ksym_state_dir(void);
/*
 * For the tests: another state directory (must exist, 0700), another
 * directory to lock (in place of tracefs's instances), another bound.
 */
void ksym_state_set_dir(const char *dir);
void ksym_state_set_lock(const char *dir);
void ksym_state_set_wait(int ms);

/*
 * Whether the run that made instance @name is still there: the instance
 * exists and its directory is flock()ed (by the run, for as long as it
 * runs). Holds across PID namespaces and recycled PIDs. For claims.h.
 */
bool ksym_instance_alive(const char *name, void *unused);

/* Whether @name is the name of an instance of ksym-ctl's. */
bool ksym_instance_name(const char *name);

/*
 * The instances of ksym-ctl runs that are gone (killed: kill -9, a crash)
 * into @stale, under the state lock (_locked: the caller holds it); 0 or
 * -1.
 */
int ksym_stale_instances(struct strv *stale);
int ksym_stale_instances_locked(struct strv *stale);

/*
 * Create the session's instance, "ksym-ctl-WHAT-PID-RANDOM", new (another
 * name is tried when one exists), and lock it (inst_lock), tracing off;
 * the run is claimed in the state file (CLAIM_RUN). Refused, naming it,
 * while a run whose claims are not in this state file is there (another
 * mount namespace or euid shares tracefs: review 11-28 L1).
 */
int ksym_session_create(struct ksym_session *s, const char *what);

/*
 * Add (or change) watches for @specs in one all-or-nothing write, and
 * claim them (ksym_session_create() first). A watch another running
 * ksym-ctl holds is shared when @specs asks for it as it is, and refused
 * (nothing changes) when they would change it.
 */
int ksym_session_watch(struct ksym_session *s, const struct strv *specs);

/*
 * With @tracing_on as asked, -p's set_event_pid written, and with @tracer
 * the ksym tracer made current in the session's instance (created if it
 * is not yet): that arms the watches (returns when they are armed).
 */
int ksym_session_instance(struct ksym_session *s, const char *what,
			  bool tracing_on, bool tracer);

/*
 * Set tracer option @opt (e.g. "ksym-stack") in the session's instance (the
 * tracer's options are global: the old value is restored at the end).
 */
int ksym_session_option(struct ksym_session *s, const char *opt, bool on);

/*
 * Claim tracer option @opt, which will be @on (trace-cmd -O sets it): its
 * value is put back when the last run that claimed it ends.
 */
int ksym_session_save_option(struct ksym_session *s, const char *opt, bool on);

/* Whether options/@opt exists in the session's instance. */
bool ksym_session_has_option(struct ksym_session *s, const char *opt);

/* Events the session's instance lost: overruns and dropped events. */
unsigned long ksym_session_lost(struct ksym_session *s);

/*
 * Whether the instance's set_event_pid still lists tasks (trace-cmd
 * record, sharing the instance, could have cleared it).
 */
bool ksym_session_pids_kept(struct ksym_session *s);

/*
 * Counting the hits of the instance's ksym_hit entries (stat -p, top -p):
 * ksym_count_open() after the watches are set, ksym_count_read() to take
 * the entries out of the buffers (often enough that they do not fill up),
 * kc->hc holds the counts.
 */
struct ksym_count {
	struct hitcount		hc;
	struct ksym_session	*s;
	struct tep_handle	*tep;
	struct tep_event	*hit;
	const char		*caller;	/* "caller" if the entry has it, else "ip" */
	bool			sym;		/* the entry names its watch */
};

int ksym_count_open(struct ksym_count *kc, struct ksym_session *s);
int ksym_count_read(struct ksym_count *kc);
/*
 * Under the counts: the events the buffer lost (@lost), the hits that could
 * not be told to a watch; as text, or as JSON members (@json).
 */
void ksym_count_notes(FILE *f, const struct ksym_count *kc,
		      unsigned long lost, int json);
void ksym_count_close(struct ksym_count *kc);

/*
 * The instance's per-CPU trace_pipe_raw, open for as long as the session
 * reads it (uaf): each read takes the entries out and hands them to @fn
 * one at a time, each CPU's in order. Unlike tracefs_iterate_raw_events(),
 * which opens the files again each time, the kernel allocates the page it
 * reads into once, at the first read: reading does not take pages from the
 * page allocator while the session watches freed memory. -1 on an error.
 */
struct ksym_pipe;
struct tep_record;

struct ksym_pipe *ksym_pipe_open(struct ksym_session *s, struct tep_handle *tep);
int ksym_pipe_read(struct ksym_pipe *p,
		   int (*fn)(struct tep_record *rec, int cpu, void *arg), void *arg);
/*
 * As ksym_pipe_read(), at most @max_pages sub-buffers of each CPU (0: no
 * limit), so that one busy CPU does not keep the others waiting;
 * @capped(cpu, arg), when not NULL, is told of each CPU left with more.
 */
int ksym_pipe_read_some(struct ksym_pipe *p, int max_pages,
			int (*fn)(struct tep_record *rec, int cpu, void *arg),
			void (*capped)(int cpu, void *arg), void *arg);
void ksym_pipe_close(struct ksym_pipe *p);

/*
 * --trigger SYSTEM:EVENT:TRIGGER, with TRIGGER a ksym_watch or ksym_unwatch
 * trigger: checked and added to s->triggers; 0, or -1 with a message.
 */
int ksym_session_add_trigger(struct ksym_session *s, const char *arg);

/*
 * Set s->triggers on the events of the session's instance, in order, and
 * wait until their slots are registered; 0, or -1 with the kernel's
 * error_log entry (the triggers set so far stay, for the restore).
 */
int ksym_session_set_triggers(struct ksym_session *s);

/*
 * ksym_session_set_triggers() with top-level tracefs file @file at @value
 * while the triggers are created (ksym_trigger_slots, which the kernel
 * reads then): under the state lock, so that no other run changes it
 * meanwhile, @file is claimed and written, the triggers set, and @file
 * given back at once (its value before, unless another run holds it). A
 * run killed meanwhile leaves its claim to ksym-ctl reset. 0, or -1.
 */
int ksym_session_set_triggers_with(struct ksym_session *s, const char *file,
				   const char *value);

/*
 * Enable @event ("SYSTEM:EVENT") in the session's instance, its filter
 * @filter (if not NULL) written first; disabled and unfiltered again by
 * the restore. 0, or -1 with a message.
 */
int ksym_session_event(struct ksym_session *s, const char *event,
		       const char *filter);

/* Remove the triggers the session set (also done by the restore). */
void ksym_session_clear_triggers(struct ksym_session *s);

/* The ksym tracer leaves the session's instance: disarms, if ours only. */
void ksym_session_disarm(struct ksym_session *s);

/*
 * Whether what claim @cl set is still there: its watch's line in
 * @filter_lines (ksym_trace_filter's), or its option's value.
 */
bool ksym_claim_in_effect(const struct claim *cl, const struct strv *filter_lines);

/*
 * ksym-ctl reset, under the state lock: the claims of runs that are gone
 * get back their originals where what the run set is still there (else
 * they are only forgotten); one line a change in @done. 0 or -1.
 */
int ksym_reset_claims_locked(struct strv *done);

/* Undo everything the session did; safe to call more than once. */
void ksym_session_restore(struct ksym_session *s);

/*
 * COMMAND runs the way perf stat runs it: ksym_cmd_fork() forks the child,
 * which waits until ksym_cmd_start() lets it exec (so ksym-ctl's own fork
 * is not traced); ksym_cmd_wait() waits for it, forwarding SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT, and returns its exit status as a shell shows it (128 + signal
 * when killed, 127 when it could not run). ksym_cmd_abort() ends a child
 * that was never started.
 */
struct ksym_cmd {
	pid_t	pid;
	int	go_fd;		/* write end of the pipe the child waits on */
};

int ksym_cmd_fork(struct ksym_cmd *cmd, char **argv);
int ksym_cmd_start(struct ksym_cmd *cmd);
int ksym_cmd_wait(struct ksym_cmd *cmd);
/* The same, calling @tick(@arg) about every @ms milliseconds meanwhile. */
int ksym_cmd_wait_tick(struct ksym_cmd *cmd, void (*tick)(void *), void *arg,
		       long ms);
void ksym_cmd_abort(struct ksym_cmd *cmd);

#endif
