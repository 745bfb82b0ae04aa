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

#include "hitcount.h"
#include "utils.h"

#define KSYM_MAX_OPTS	4

struct ksym_session {
	struct tracefs_instance	*inst;		/* created by us, or NULL */
	char			*orig_filter;	/* the watch set before */
	struct strv		targets;	/* targets of our watches */
	bool			filter_changed;
	int			nr_opts;	/* tracer options we set */
	char			*opt_name[KSYM_MAX_OPTS];
	bool			opt_was[KSYM_MAX_OPTS];
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
};

/* Set by the handler of SIGINT, SIGTERM and SIGHUP. */
extern volatile sig_atomic_t ksym_stop;

/* Catch SIGINT, SIGTERM, SIGHUP (sets ksym_stop; no SA_RESTART). */
void ksym_catch_signals(void);

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

/* Contents of a top-level tracefs file (malloc'ed), or NULL. */
char *ksym_read_file(const char *file);

/*
 * One write of @text (entries, a newline is added) to ksym_trace_filter.
 * On failure prints the kernel's error_log entry and returns -errno.
 */
int ksym_filter_write(const char *text);

/* Add (or change) watches for @specs in one all-or-nothing write. */
int ksym_session_watch(struct ksym_session *s, const struct strv *specs);

/*
 * Create an instance of our own ("ksym-ctl-WHAT-PID"), with tracing_on as
 * asked, and with @tracer make the ksym tracer current in it: that arms the
 * watches (returns when they are armed).
 */
int ksym_session_instance(struct ksym_session *s, const char *what,
			  bool tracing_on, bool tracer);

/*
 * Set tracer option @opt (e.g. "ksym-stack") in the session's instance (the
 * tracer's options are global: the old value is restored at the end).
 */
int ksym_session_option(struct ksym_session *s, const char *opt, bool on);

/* Remember tracer option @opt's value, to restore it at the end. */
int ksym_session_save_option(struct ksym_session *s, const char *opt);

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

/* Remove the triggers the session set (also done by the restore). */
void ksym_session_clear_triggers(struct ksym_session *s);

/* The ksym tracer leaves the session's instance: disarms, if ours only. */
void ksym_session_disarm(struct ksym_session *s);

/* Undo everything the session did; safe to call more than once. */
void ksym_session_restore(struct ksym_session *s);

/*
 * COMMAND runs the way perf stat runs it: ksym_cmd_fork() forks the child,
 * which waits until ksym_cmd_start() lets it exec (so ksym-ctl's own fork
 * is not traced); ksym_cmd_wait() waits for it, forwarding SIGINT, SIGTERM
 * and SIGHUP, and returns its exit status as a shell shows it (128 + signal
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
