// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: -p, -C and -a of stat, record and top (scope.h).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "scope.h"

void scope_usage(FILE *f, bool command)
{
	fprintf(f,
		"  -p, --pid PID[,PID...]\n"
		"                      only the hits made by these tasks (their threads,\n"
		"                      and the children they fork while it runs), through\n"
		"                      the set_event_pid of ksym-ctl's instance\n");
	if (command)
		fprintf(f,
			"                      (without COMMAND: until Ctrl-C, or until they exit)\n");
	fprintf(f,
		"  -C, --cpu CPULIST   only the hits on these CPUs (e.g. 0, 0-3, 0,2): each\n"
		"                      SPEC is watched there only (SPEC@CPULIST)\n"
		"  -a, --all-cpus      every CPU (with -C: those of -C) and every task:\n"
		"                      the default, as perf's -a\n");
}

int scope_option(struct ksym_scope *sc, int c, const char *arg,
		 void (*usage)(FILE *f))
{
	switch (c) {
	case 'p':
		return scope_parse_pids(sc, arg) ? -1 : 1;
	case 'C':
		if (!scope_cpulist_valid(arg)) {
			err_msg("-C %s: not a CPU list (e.g. 0, 0-3, 0,2-3)\n", arg);
			return -1;
		}
		free(sc->cpus);
		sc->cpus = strdup(arg);
		return sc->cpus ? 1 : -1;
	case 'a':
		sc->all_cpus = true;
		return 1;
	default:
		if (usage)
			usage(stderr);
		return -1;
	}
}

static int add_int(int **v, int *n, int x)
{
	int *p = realloc(*v, (*n + 1) * sizeof(**v));

	if (!p)
		return -1;
	*v = p;
	p[(*n)++] = x;
	return 0;
}

static bool has_int(const int *v, int n, int x)
{
	int i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

int scope_parse_pids(struct ksym_scope *sc, const char *arg)
{
	const char *p = arg;

	if (!*p) {
		err_msg("-p: no PID given (e.g. -p 1234 or -p 1234,5678)\n");
		return -1;
	}
	while (*p) {
		char *end;
		long pid;

		errno = 0;
		pid = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : -1;
		if (pid <= 0 || pid > 0x3fffffff || errno ||
		    (*end && *end != ',')) {
			err_msg("-p %s: not a list of PIDs (e.g. -p 1234 or -p 1234,5678)\n",
				arg);
			return -1;
		}
		if (has_int(sc->pids, sc->nr_pids, pid)) {
			err_msg("-p %s: PID %ld given twice\n", arg, pid);
			return -1;
		}
		if (add_int(&sc->pids, &sc->nr_pids, pid))
			return -1;
		p = *end ? end + 1 : end;
		if (*end && !*p) {
			err_msg("-p %s: a PID must follow ','\n", arg);
			return -1;
		}
	}
	return 0;
}

bool scope_cpulist_valid(const char *s)
{
	/* N, N-M or N-M:USED/GROUP, separated by ',' (cpulist_parse()). */
	for (;;) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*s))
			return false;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return false;
			b = strtoul(end + 1, &end, 10);
		}
		/* N-M:USED/GROUP: USED of every GROUP CPUs of the range */
		if (*end == ':' && b != a) {
			unsigned long used, group;

			if (!isdigit((unsigned char)end[1]))
				return false;
			used = strtoul(end + 1, &end, 10);
			if (*end != '/' || !isdigit((unsigned char)end[1]))
				return false;
			group = strtoul(end + 1, &end, 10);
			if (!used || used > group)
				return false;
		}
		if (b < a || b > 65535)
			return false;
		if (!*end)
			return true;
		if (*end != ',')
			return false;
		s = end + 1;
	}
}

int scope_check(const struct ksym_scope *sc)
{
	if (sc->all_cpus && sc->nr_pids) {
		err_msg("-a counts every task on every CPU, -p only some tasks: give one of them\n");
		return -1;
	}
	return 0;
}

/* Whether SPEC has its own @CPULIST: an '@' after its ACCESS's ':'. */
static bool spec_has_cpus(const char *spec)
{
	const char *colon = strrchr(spec, ':');

	return strchr(colon ? colon : spec, '@') != NULL;
}

int scope_apply_cpus(const struct ksym_scope *sc, struct strv *specs)
{
	struct strv out = { 0 };
	int i;

	if (!sc->cpus)
		return 0;
	for (i = 0; i < specs->n; i++) {
		if (spec_has_cpus(specs->v[i])) {
			err_msg("'%s' has a CPU list of its own: with -C %s, leave out its @CPULIST (or leave out -C)\n",
				specs->v[i], sc->cpus);
			strv_free(&out);
			return -1;
		}
	}
	for (i = 0; i < specs->n; i++) {
		char *s;

		if (asprintf(&s, "%s@%s", specs->v[i], sc->cpus) < 0 ||
		    strv_add(&out, s)) {
			strv_free(&out);
			return -1;
		}
		free(s);
	}
	strv_free(specs);
	*specs = out;
	return 0;
}

int scope_prepare(struct ksym_scope *sc, struct strv *specs, const char *proc,
		  char **pids)
{
	*pids = NULL;
	if (scope_check(sc) || scope_apply_cpus(sc, specs))
		return -1;
	if (!sc->nr_pids)
		return 0;
	if (scope_find_threads(sc, proc))
		return -1;
	*pids = scope_pid_text(sc);
	return *pids ? 0 : -1;
}

/* Whether PROC/ID/@what exists. */
static bool proc_has(const char *proc, int id, const char *what)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%d/%s", proc, id, what);
	return !access(path, F_OK);
}

int scope_find_threads(struct ksym_scope *sc, const char *proc)
{
	int i;

	for (i = 0; i < sc->nr_pids; i++) {
		int pid = sc->pids[i], added = 0;
		struct dirent *d;
		char path[300];
		DIR *dp;

		if (!proc_has(proc, pid, "stat")) {
			err_msg("-p %d: no such process\n", pid);
			return -1;
		}
		snprintf(path, sizeof(path), "%s/%d/task", proc, pid);
		dp = opendir(path);
		while (dp && (d = readdir(dp))) {
			long tid;
			char *end;

			tid = strtol(d->d_name, &end, 10);
			if (tid <= 0 || *end || has_int(sc->tids, sc->nr_tids, tid))
				continue;
			if (add_int(&sc->tids, &sc->nr_tids, tid)) {
				closedir(dp);
				return -1;
			}
			added++;
		}
		if (dp)
			closedir(dp);
		/* A thread given by its TID has no task/ of its own to list. */
		if (!added && !has_int(sc->tids, sc->nr_tids, pid) &&
		    add_int(&sc->tids, &sc->nr_tids, pid))
			return -1;
	}
	return 0;
}

char *scope_pid_text(const struct ksym_scope *sc)
{
	size_t len = 1, off = 0;
	char *text;
	int i;

	len += sc->nr_tids * 12;
	text = malloc(len);
	if (!text)
		return NULL;
	text[0] = '\0';
	for (i = 0; i < sc->nr_tids; i++)
		off += snprintf(text + off, len - off, "%s%d", i ? " " : "",
				sc->tids[i]);
	return text;
}

/* The state letter of PROC/ID/stat ("ID (COMM) S ..."), or 0. */
static char proc_state(const char *proc, int id)
{
	char path[300], buf[512], *p;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/stat", proc, id);
	f = fopen(path, "r");
	if (!f)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* COMM may hold spaces and parentheses: the state follows the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ')
		return 0;
	return p[2];
}

bool scope_alive(const struct ksym_scope *sc, const char *proc)
{
	int i;

	for (i = 0; i < sc->nr_tids; i++) {
		char state = proc_state(proc, sc->tids[i]);

		if (state && state != 'Z' && state != 'X' && state != 'x')
			return true;
	}
	return false;
}

bool scope_needs_command(const struct ksym_scope *sc, int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--"))
			return true;
	return !sc->nr_pids;
}

void scope_wait(const struct ksym_scope *sc, const char *proc,
		volatile sig_atomic_t *stop, void (*tick)(void *), void *arg,
		long ms)
{
	while (!*stop && scope_alive(sc, proc)) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		if (tick)
			tick(arg);
		/* A signal ends the sleep early: *stop is then seen at once. */
		nanosleep(&ts, NULL);
	}
	if (*stop)
		debug_msg("-p: stopped by a signal\n");
	else
		debug_msg("-p: the tasks have exited\n");
}

void scope_sleep(long ms, volatile sig_atomic_t *stop, bool (*done)(void *),
		 void (*tick)(void *), void *arg)
{
	while (!*stop && ms != 0 && !(done && done(arg))) {
		long step = ms < 0 || ms > 100 ? 100 : ms;
		struct timespec ts = { step / 1000, (step % 1000) * 1000000L };

		/* A signal ends the sleep early: *stop is then seen at once. */
		while (!*stop && nanosleep(&ts, &ts))
			;
		if (tick)
			tick(arg);
		if (ms > 0)
			ms -= step;
	}
}

void scope_title(char *title, size_t size, char **command,
		 const struct ksym_scope *sc)
{
	int i;

	title[0] = '\0';
	if (size < 80)
		return;
	if (!command) {
		strcat(title, "-p ");
		for (i = 0; i < sc->nr_pids && strlen(title) < size - 16; i++)
			sprintf(title + strlen(title), "%s%d", i ? "," : "",
				sc->pids[i]);
		return;
	}
	for (i = 0; command[i] && strlen(title) < size - 64; i++) {
		if (i)
			strcat(title, " ");
		strncat(title, command[i], size - strlen(title) - 32);
	}
}

int scope_check_host_port(const char *arg)
{
	const char *colon = strrchr(arg, ':');
	char *end;
	long port;

	if (!colon || colon == arg) {
		err_msg("-N %s: give HOST:PORT, where 'trace-cmd listen -p PORT' runs\n", arg);
		return -1;
	}
	errno = 0;
	port = isdigit((unsigned char)colon[1]) ? strtol(colon + 1, &end, 10) : -1;
	if (errno || port < 1 || port > 65535 || *end) {
		err_msg("-N %s: '%s' is not a port (1-65535)\n", arg, colon + 1);
		return -1;
	}
	return 0;
}

void scope_free(struct ksym_scope *sc)
{
	free(sc->pids);
	free(sc->tids);
	free(sc->cpus);
	memset(sc, 0, sizeof(*sc));
}
