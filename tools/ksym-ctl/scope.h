/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: the task and CPU scope of stat, record and top, as perf users
 * type it: -p PID[,PID...] (only the hits of those tasks), -C CPULIST
 * (only those CPUs: appended to every SPEC as its @CPULIST), -a (all
 * CPUs, the default). Nothing here writes tracefs: the parsing, the SPEC
 * rewriting and the reading of /proc are unit tested on the host
 * (tests/test_ksym_ctl.c).
 */
#ifndef KSYM_CTL_SCOPE_H
#define KSYM_CTL_SCOPE_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "utils.h"

struct ksym_scope {
	int	*pids;		/* -p, as given */
	int	nr_pids;
	int	*tids;		/* their threads when the session starts */
	int	nr_tids;
	char	*cpus;		/* -C CPULIST, or NULL */
	bool	all_cpus;	/* -a */
};

/* The getopt letters and long options of the scope, for each subcommand. */
#define SCOPE_OPTSTRING	"p:C:a"
#define SCOPE_LONGOPTS						\
	{ "pid", required_argument, NULL, 'p' },		\
	{ "cpu", required_argument, NULL, 'C' },		\
	{ "all-cpus", no_argument, NULL, 'a' }

/* The lines of --help that tell them (@command: with a COMMAND or not). */
void scope_usage(FILE *f, bool command);

/*
 * Option @c ('p', 'C' or 'a') with @arg: 1 when taken; -1 with a message
 * when @arg is wrong, or when @c is no scope option (getopt's '?': then
 * @usage(stderr) is printed, if given).
 */
int scope_option(struct ksym_scope *sc, int c, const char *arg,
		 void (*usage)(FILE *f));

/* "123,456" -> the PIDs; -1 with a message (not a PID, empty, repeated). */
int scope_parse_pids(struct ksym_scope *sc, const char *arg);

/* Whether @s is a CPU list as the kernel reads it: "0", "0-3", "0,2-3". */
bool scope_cpulist_valid(const char *s);

/*
 * The options together: -a and -p contradict each other; 0, or -1 with a
 * message.
 */
int scope_check(const struct ksym_scope *sc);

/*
 * -C: append "@CPULIST" to every SPEC. A SPEC that has its own @CPULIST
 * is refused (-1, with a message naming it), as is every change when one
 * is: @specs is left as it was. Without -C, 0 and nothing changes.
 */
int scope_apply_cpus(const struct ksym_scope *sc, struct strv *specs);

/*
 * After the options and SPECs: -a with -p refused, -C applied to @specs,
 * and with -p the threads found in @proc, *@pids then what set_event_pid
 * takes (malloc'ed; NULL without -p). 0, or -1 with a message.
 */
int scope_prepare(struct ksym_scope *sc, struct strv *specs, const char *proc,
		  char **pids);

/*
 * -p: the threads of each PID, from @proc ("/proc", or a copy in tests):
 * PROC/PID/task/TID... (a PID that is itself a thread: just it). -1 with
 * a message when a PID does not exist.
 */
int scope_find_threads(struct ksym_scope *sc, const char *proc);

/* "TID TID ...": what set_event_pid takes (malloc'ed), or NULL. */
char *scope_pid_text(const struct ksym_scope *sc);

/*
 * Whether one of the threads still runs: PROC/TID/stat exists and is not
 * a zombie's (as perf stat -p ends when its tasks are gone).
 */
bool scope_alive(const struct ksym_scope *sc, const char *proc);

/*
 * Whether a COMMAND must follow the SPECs in @argv (what
 * split_specs_command() is told): always, but with -p, only when "--"
 * says one follows.
 */
bool scope_needs_command(const struct ksym_scope *sc, int argc, char **argv);

/*
 * -p without COMMAND: wait until *@stop is set (Ctrl-C) or no thread of
 * the PIDs runs any more, calling @tick(@arg) (if any) about every @ms
 * milliseconds.
 */
void scope_wait(const struct ksym_scope *sc, const char *proc,
		volatile sig_atomic_t *stop, void (*tick)(void *), void *arg,
		long ms);

/*
 * Sleep @ms milliseconds (@ms < 0: until *@stop), in steps of 100 ms,
 * calling @tick(@arg) (if any) after each; ends early when *@stop is set
 * (a signal) or @done(@arg) (if any) says so.
 */
void scope_sleep(long ms, volatile sig_atomic_t *stop, bool (*done)(void *),
		 void (*tick)(void *), void *arg);

/*
 * What a run ran for, in @title of @size (at least 80): COMMAND and its
 * arguments, or without one "-p PID,...".
 */
void scope_title(char *title, size_t size, char **command,
		 const struct ksym_scope *sc);

/*
 * record -N: "HOST:PORT", with a PORT of 1-65535 after the last ':'.
 * 0, or -1 with a message.
 */
int scope_check_host_port(const char *arg);

void scope_free(struct ksym_scope *sc);

#endif
