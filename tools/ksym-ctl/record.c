// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl record: record the hits of watches while COMMAND runs, in an
 * instance of our own with the ksym tracer current, into a trace.dat that
 * trace-cmd report and KernelShark open. The file is written by trace-cmd
 * itself ("trace-cmd record -B INSTANCE -p ksym", streaming the instance's
 * buffers, stopped when COMMAND ends): ksym-ctl writes no trace.dat format
 * of its own. (trace-cmd 3.1's extract would also read, disable and clear
 * the top instance, which is not ours to touch.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "scope.h"
#include "tracedat.h"

static void record_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl record [-o FILE | -N HOST:PORT] [--stack] [--regs] [--branches]\n"
		"                       [--trigger SYSTEM:EVENT:TRIGGER]... [-p PID[,PID...]]\n"
		"                       [-C CPULIST] [-a] [SPEC...] -- COMMAND [ARG...]\n"
		"       ksym-ctl record [OPTIONS] -p PID[,PID...] SPEC...\n"
		"\n"
		"Record every hit of the watches while COMMAND runs (with -p and no\n"
		"COMMAND: until Ctrl-C, or until the tasks exit), in a tracefs instance of\n"
		"its own, into FILE (default ./ksym.dat), a trace.dat that trace-cmd\n"
		"report, KernelShark and 'ksym-ctl report' open. Ends with one line: hits\n"
		"recorded, events lost. tracefs is left as it was found, also on SIGINT,\n"
		"SIGTERM, SIGHUP and SIGQUIT (trace-cmd is stopped even if ksym-ctl is\n"
		"killed; 'ksym-ctl reset' removes what a killed run left). Exit status:\n"
		"COMMAND's (0 without one).\n"
		"\n"
		"options:\n"
		"  -o, --output FILE   trace.dat to write (default ksym.dat)\n"
		"  -N, --remote HOST:PORT\n"
		"                      send the hits to 'trace-cmd listen -p PORT' on HOST\n"
		"                      (trace-cmd record -N): the trace.dat is written there,\n"
		"                      so the summary cannot count its hits\n"
		"      --stack         the callchain of each hit (ksym_stack; report -g)\n"
		"      --regs          the accessing context's registers (ksym_regs)\n"
		"      --branches      the last branches before each hit (ksym_branches)\n"
		"      --trigger SYSTEM:EVENT:TRIGGER\n"
		"                      while recording, set TRIGGER (ksym_watch:... or\n"
		"                      ksym_unwatch:...) on event SYSTEM:EVENT: objects\n"
		"                      that events name are watched; hits are named\n"
		"                      TYPE.PATH (ksym_hitgen_obj.count). Repeatable; SPECs\n"
		"                      are then optional. Removed when recording ends.\n");
	scope_usage(f, true);
	fprintf(f,
		"\n"
		"examples:\n"
		"  ksym-ctl record --stack pid_max/4:-w- total_forks:-w- -- \\\n"
		"        sh -c 'echo 4000 > /proc/sys/kernel/pid_max; true & wait'\n"
		"  ksym-ctl report -g\n"
		"  trace-cmd report -i ksym.dat\n"
		"  ksym-ctl record -p 1234 -o forks.dat total_forks:-w-    # until 1234 exits\n"
		"  ksym-ctl record -C 0 jiffies_64/8:rw- -- sleep 1       # CPU 0's hits only\n"
		"  ksym-ctl record -o obj.dat \\\n"
		"        --trigger 'ksym_hitgen:ksym_hitgen_obj_alloc:ksym_watch:obj.count:-w-' \\\n"
		"        --trigger 'ksym_hitgen:ksym_hitgen_obj_free:ksym_unwatch:obj' -- \\\n"
		"        sh -c 'echo 7 > /sys/kernel/debug/ksym_hitgen/object'\n"
		"  ksym-ctl record --trigger \\\n"
		"        'kmem:kmalloc:ksym_watch:(struct pipe_inode_info)ptr.head:-w- if bytes_req == 392' \\\n"
		"        --trigger 'kmem:kfree:ksym_unwatch:ptr' -- sh -c 'echo hi | cat'\n"
		"  trace-cmd listen -p 12345                               # on HOST, then:\n"
		"  ksym-ctl record -N HOST:12345 pid_max/4:-w- -- \\\n"
		"        sh -c 'echo 4000 > /proc/sys/kernel/pid_max'\n");
}

static const char *trace_cmd(void)
{
	const char *t = getenv("KSYM_CTL_TRACE_CMD");

	return t && *t ? t : "trace-cmd";
}

/*
 * trace-cmd record -B @inst -p ksym -o @file (or -N @remote: to trace-cmd
 * listen there), in the background and in a process group of its own (a
 * Ctrl-C is for COMMAND; ksym-ctl stops trace-cmd when COMMAND is done).
 * trace-cmd makes ksym the tracer of our instance, streams the buffers into
 * @file and, stopped with SIGINT, writes the rest. The tracer options are
 * set by ksym-ctl, not with trace-cmd's -O: trace-cmd puts back at its end
 * the values it found, under another ksym-ctl run that still needs them
 * (man ksym-ctl, CONCURRENCY). 0, or -1.
 */
static int trace_cmd_start(pid_t *pid, const char *inst, const char *file,
			   const char *remote, const char *dir)
{
	pid_t parent = getpid();
	char *argv[16];
	int n = 0;

	argv[n++] = (char *)trace_cmd();
	argv[n++] = "record";
	argv[n++] = "-B";
	argv[n++] = (char *)inst;
	argv[n++] = "-p";
	argv[n++] = "ksym";
	/* -N: trace-cmd listen on HOST writes the file, trace-cmd sends it. */
	argv[n++] = remote ? "-N" : "-o";
	argv[n++] = (char *)(remote ? remote : file);
	argv[n] = NULL;

	debug_msg("%s record -B %s -p ksym ... %s %s\n", argv[0], inst,
		  argv[n - 2], argv[n - 1]);
	fflush(NULL);
	*pid = fork();
	if (*pid < 0) {
		err_msg("fork: %s\n", strerror(errno));
		return -1;
	}
	if (!*pid) {
		/*
		 * ksym-ctl killed (kill -9, a crash): trace-cmd is stopped as
		 * ksym-ctl would stop it, and writes its file. Should ksym-ctl
		 * be gone already, the signal would never come.
		 */
		if (prctl(PR_SET_PDEATHSIG, SIGINT) || getppid() != parent)
			_exit(127);
		setpgid(0, 0);
		/*
		 * trace-cmd 3.1 writes empty per-CPU files for the top instance
		 * it does not record, named "(null).cpuN", in its working
		 * directory: give it one of its own.
		 */
		if (chdir(dir))
			_exit(127);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		/* Its messages go to a log, shown when it fails. */
		if (!config_debug) {
			int fd = open("trace-cmd.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd >= 0) {
				dup2(fd, STDOUT_FILENO);
				dup2(fd, STDERR_FILENO);
			}
		}
		execvp(argv[0], argv);
		fprintf(stderr, "ksym-ctl: %s: %s (trace-cmd writes the trace.dat)\n",
			argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(*pid, *pid);
	return 0;
}

/* What trace-cmd said, on stderr. */
static void trace_cmd_log(const char *dir)
{
	char *file, line[512];
	FILE *f;

	if (asprintf(&file, "%s/trace-cmd.log", dir) < 0)
		return;
	f = fopen(file, "r");
	while (f && fgets(line, sizeof(line), f))
		fprintf(stderr, "  trace-cmd: %s", line);
	if (f)
		fclose(f);
	free(file);
}

/* What /proc/PID/status says of a process, as one of trace-cmd's recorders. */
enum recorder_state {
	NOT_A_RECORDER,		/* not a child of trace-cmd */
	RECORDER_STARTING,	/* does not catch SIGUSR1 yet */
	RECORDER_ENDED,		/* a zombie: it failed */
	RECORDER_RUNNING,
};

static enum recorder_state recorder_state(const char *pid, pid_t parent)
{
	unsigned long long caught = 0;
	char path[300], line[256];
	bool child = false;
	char state = 0;
	int ppid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%s/status", pid);
	f = fopen(path, "r");
	if (!f)
		return NOT_A_RECORDER;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "PPid: %d", &ppid) == 1)
			child = ppid == parent;
		else if (sscanf(line, "State: %c", &state) != 1)
			sscanf(line, "SigCgt: %llx", &caught);
	}
	fclose(f);
	if (!child)
		return NOT_A_RECORDER;
	if (state == 'Z' || state == 'X')
		return RECORDER_ENDED;
	if (!(caught & (1ULL << (SIGUSR1 - 1))))
		return RECORDER_STARTING;
	return RECORDER_RUNNING;
}

/* The children of trace-cmd still starting, or -1 when one has ended. */
static int recorders_starting(pid_t pid)
{
	struct dirent *d;
	int starting = 0;
	DIR *dp;

	dp = opendir("/proc");
	if (!dp)
		return 0;
	while ((d = readdir(dp))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		switch (recorder_state(d->d_name, pid)) {
		case RECORDER_STARTING:
			starting++;
			break;
		case RECORDER_ENDED:
			starting = -1;
			goto out;
		default:
			break;
		}
	}
out:
	closedir(dp);
	return starting;
}

/* Whether FILE.INSTANCE.cpuN, trace-cmd's file for CPU N, is there for each. */
static bool recorder_files(const char *file, const char *inst, long cpus)
{
	bool all = true;
	char *cpu_file;
	long cpu;

	for (cpu = 0; cpu < cpus && all; cpu++) {
		if (asprintf(&cpu_file, "%s.%s.cpu%ld", file, inst, cpu) < 0)
			return true;
		all = !access(cpu_file, F_OK);
		free(cpu_file);
	}
	return all;
}

/*
 * -N: the recorders write no file here; they connect to the listener, then
 * open their CPU's trace_pipe_raw of the instance and read. Whether the
 * children of trace-cmd have every CPU's open.
 */
static bool recorder_pipes(pid_t pid, const char *inst, long cpus)
{
	char want[300], path[600], link[600];
	bool *seen, all = true, ok = false;
	struct dirent *d, *f;
	DIR *dp, *fp;
	long cpu;

	seen = calloc(cpus, sizeof(*seen));
	dp = opendir("/proc");
	if (!seen || !dp)
		goto out;
	snprintf(want, sizeof(want), "/instances/%s/per_cpu/cpu", inst);
	while ((d = readdir(dp))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9' ||
		    recorder_state(d->d_name, pid) == NOT_A_RECORDER)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd", d->d_name);
		fp = opendir(path);
		while (fp && (f = readdir(fp))) {
			char *p, *end;
			ssize_t n;

			snprintf(path, sizeof(path), "/proc/%s/fd/%s", d->d_name,
				 f->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n <= 0)
				continue;
			link[n] = '\0';
			p = strstr(link, want);
			if (!p)
				continue;
			cpu = strtol(p + strlen(want), &end, 10);
			if (!strcmp(end, "/trace_pipe_raw") && cpu >= 0 && cpu < cpus)
				seen[cpu] = true;
		}
		if (fp)
			closedir(fp);
	}
	for (cpu = 0; cpu < cpus; cpu++)
		all &= seen[cpu];
	ok = true;
out:
	if (dp)
		closedir(dp);
	free(seen);
	/* When /proc cannot tell, the wait is not held up by it. */
	return ok ? all : true;
}

/* Whether trace-cmd has ended; its status is left for trace_cmd_stop(). */
static bool trace_cmd_ended(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
	       si.si_pid == pid;
}

/*
 * trace-cmd forks its per-CPU recorders (sysconf(_SC_NPROCESSORS_CONF) of
 * them), then turns tracing on. A recorder installs the handler of its
 * stop signal, SIGUSR1, creates its file and then reads. Stopped before the
 * handler, it dies of the signal and trace-cmd fails ("can not stat
 * ...cpuN"); stopped before it reads, it reads nothing and the hits are
 * silently missing. With a short COMMAND under QEMU TCG both happened. Wait
 * until every child of trace-cmd catches SIGUSR1 and every CPU's file of
 * the instance is there (with -N, @file NULL: every CPU's trace_pipe_raw
 * is open): this narrows the window to the few instructions between a
 * recorder's file and its first read. 0 when recording (or after
 * 30 s, with a warning), -1 when trace-cmd or a recorder ended or on a
 * signal.
 */
static int trace_cmd_wait_recorders(pid_t pid, const char *dir,
				    const char *file, const char *inst)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	struct timespec now, end;
	int starting;

	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += 30;
	while (!ksym_stop) {
		starting = recorders_starting(pid);
		if (starting < 0 || trace_cmd_ended(pid)) {
			err_msg("trace-cmd record ended before recording\n");
			trace_cmd_log(dir);
			return -1;
		}
		if (!starting && (file ? recorder_files(file, inst, cpus) :
				  recorder_pipes(pid, inst, cpus)))
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > end.tv_sec ||
		    (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec)) {
			err_msg("warning: trace-cmd's recorders did not all start in 30 s; hits may be missing from %s\n",
				file ? file : "the listener's trace.dat");
			return 0;
		}
		usleep(20000);
	}
	return -1;
}

/*
 * Whether trace-cmd has the instance recording: tracer set, tracing on,
 * every CPU's recorder started.
 */
static int trace_cmd_wait_ready(pid_t pid, struct tracefs_instance *inst,
				const char *dir, const char *file)
{
	int i;

	for (i = 0; i < 3000 && !ksym_stop; i++) {
		char *tracer = tracefs_instance_file_read(inst, "current_tracer", NULL);
		bool ready = tracer && !strcmp(tracer, "ksym\n") &&
			     tracefs_trace_is_on(inst) == 1;

		free(tracer);
		if (ready) {
			if (trace_cmd_wait_recorders(pid, dir, file,
						     tracefs_instance_get_name(inst)))
				return -1;
			ksym_sync();
			return 0;
		}
		if (trace_cmd_ended(pid)) {
			err_msg("trace-cmd record ended before recording\n");
			trace_cmd_log(dir);
			return -1;
		}
		usleep(10000);
	}
	if (!ksym_stop) {
		err_msg("trace-cmd record did not start recording\n");
		trace_cmd_log(dir);
	}
	return -1;
}

/* Stop trace-cmd record; 0 when it wrote its file. */
static int trace_cmd_stop(pid_t pid, const char *dir)
{
	int status;

	kill(pid, SIGINT);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		err_msg("trace-cmd record failed (status 0x%x)\n", status);
		trace_cmd_log(dir);
		return -1;
	}
	return 0;
}

/*
 * The option that records each hit's callchain: the tracer's ksym-stack,
 * or on a kernel without it the standard stacktrace (which the tracer makes
 * start at the accessor).
 */
static const char *stack_opt(struct ksym_session *s)
{
	return ksym_session_has_option(s, "ksym-stack") ? "ksym-stack" : "stacktrace";
}

/* An empty directory for trace-cmd to work in, and its removal. */
static char *work_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (asprintf(&dir, "%s/ksym-ctl.XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(dir)) {
		err_msg("cannot create a directory in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		free(dir);
		return NULL;
	}
	return dir;
}

static void remove_work_dir(char *dir)
{
	struct dirent *d;
	DIR *dp;

	if (!dir)
		return;
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		char *f;

		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (asprintf(&f, "%s/%s", dir, d->d_name) >= 0) {
			unlink(f);
			free(f);
		}
	}
	if (dp)
		closedir(dp);
	rmdir(dir);
	free(dir);
}

/*
 * -p: whether trace-cmd emptied the instance's set_event_pid (then every
 * task's hits would be recorded). The kernel also empties it as the tasks
 * exit: that is no failure.
 */
static bool pids_lost(struct ksym_session *s, const struct ksym_scope *sc)
{
	if (ksym_session_pids_kept(s) || !scope_alive(sc, "/proc"))
		return false;
	err_msg("set_event_pid of %s was emptied when trace-cmd started: -p cannot filter\n",
		tracefs_instance_get_name(s->inst));
	return true;
}

/* The absolute path of @file: trace-cmd runs in a directory of its own. */
static char *abs_path(const char *file)
{
	char *cwd, *path = NULL;

	if (file[0] == '/')
		return strdup(file);
	cwd = getcwd(NULL, 0);
	if (cwd && asprintf(&path, "%s/%s", cwd, file) < 0)
		path = NULL;
	free(cwd);
	return path;
}

int record_main(int argc, char **argv)
{
	enum { OPT_STACK = 256, OPT_REGS, OPT_BRANCHES, OPT_TRIGGER };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "remote", required_argument, NULL, 'N' },
		{ "stack", no_argument, NULL, OPT_STACK },
		{ "regs", no_argument, NULL, OPT_REGS },
		{ "branches", no_argument, NULL, OPT_BRANCHES },
		{ "trigger", required_argument, NULL, OPT_TRIGGER },
		SCOPE_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ksym_session s = KSYM_SESSION_INIT;
	struct ksym_cmd cmd = { .pid = -1, .go_fd = -1 };
	struct ksym_scope scope = { 0 };
	struct strv specs = { 0 };
	struct report r = { .nr_keys = 1 };
	struct tracedat_info info;
	const char *file = NULL, *remote = NULL;
	char *dir = NULL, *path = NULL, *pids = NULL;
	bool stack = false, regs = false, branches = false;
	unsigned long lost;
	pid_t tc = -1;
	char **command;
	int c, status = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:N:h" SCOPE_OPTSTRING, opts,
				NULL)) != -1) {
		switch (c) {
		case 'o':
			file = optarg;
			break;
		case 'N':
			if (scope_check_host_port(optarg))
				goto out;
			remote = optarg;
			break;
		case OPT_STACK:
			stack = true;
			break;
		case OPT_REGS:
			regs = true;
			break;
		case OPT_BRANCHES:
			branches = true;
			break;
		case OPT_TRIGGER:
			if (ksym_session_add_trigger(&s, optarg))
				goto out;
			break;
		case 'h':
			record_usage(stdout);
			status = 0;
			goto out;
		default:
			if (scope_option(&scope, c, optarg, record_usage) > 0)
				break;
			goto out;
		}
	}
	if (remote && file) {
		err_msg("-N sends the hits to trace-cmd listen, which writes the trace.dat: -o cannot go with it\n");
		goto out;
	}
	if (s.triggers.n && scope.cpus) {
		err_msg("-C cannot go with --trigger: a trigger watches its objects on every CPU\n");
		goto out;
	}
	if (!file)
		file = "ksym.dat";
	/*
	 * With -p, COMMAND is optional: without one, until the tasks exit.
	 * With --trigger, SPECs are.
	 */
	if (s.triggers.n && optind > 1 && !strcmp(argv[optind - 1], "--")) {
		/* getopt took the "--" right after the options. */
		command = optind < argc ? &argv[optind] : NULL;
		if (!command && !scope.nr_pids) {
			err_msg("no COMMAND: give it after '--' (e.g. -- sleep 1)\n");
			record_usage(stderr);
			goto out;
		}
	} else if (s.triggers.n && (optind == argc || !strcmp(argv[optind], "--"))) {
		command = optind + 1 < argc ? &argv[optind + 1] : NULL;
		if (!command && !scope.nr_pids) {
			err_msg("no COMMAND: give it after '--' (e.g. -- sleep 1)\n");
			record_usage(stderr);
			goto out;
		}
	} else if (split_specs_command(argc - optind, argv + optind,
				       scope_needs_command(&scope, argc - optind,
							   argv + optind),
				       &specs, &command)) {
		record_usage(stderr);
		goto out;
	}
	if (scope_prepare(&scope, &specs, "/proc", &pids) || ksym_check())
		goto out;
	s.event_pids = pids;
	path = remote ? NULL : abs_path(file);
	dir = work_dir();
	if ((!remote && !path) || !dir)
		goto out;
	ksym_catch_signals();
	if (command && ksym_cmd_fork(&cmd, command))
		goto out;
	/*
	 * Our instance, made before trace-cmd runs so that trace-cmd keeps it
	 * (and leaves the top instance alone), with -p its set_event_pid
	 * written (trace-cmd 3.1 writes it only for its own -P/-F/-c, so it
	 * stays); the tracer options are global, so their values are saved
	 * here and restored at the end.
	 */
	if (ksym_session_create(&s, "record") ||
	    (specs.n && ksym_session_watch(&s, &specs)) ||
	    ksym_session_instance(&s, "record", false, false) ||
	    (stack && ksym_session_option(&s, stack_opt(&s), true)) ||
	    (regs && ksym_session_option(&s, "ksym-regs", true)) ||
	    (branches && ksym_session_option(&s, "ksym-branches", true)) ||
	    trace_cmd_start(&tc, tracefs_instance_get_name(s.inst), path,
			    remote, dir) ||
	    trace_cmd_wait_ready(tc, s.inst, dir, path) ||
	    (pids && pids_lost(&s, &scope)) ||
	    /* After trace-cmd has set the instance up: it leaves them. */
	    ksym_session_set_triggers(&s)) {
		ksym_cmd_abort(&cmd);
		/* Its log was shown: stop it without a second report. */
		if (tc > 0) {
			kill(tc, SIGINT);
			waitpid(tc, NULL, 0);
			tc = -1;
		}
		goto cleanup;
	}
	if (command) {
		ksym_cmd_start(&cmd);
		status = ksym_cmd_wait(&cmd);
	} else {
		scope_wait(&scope, "/proc", &ksym_stop, NULL, NULL, 100);
		status = 0;
	}
	/* No object is watched any more once COMMAND is done. */
	ksym_session_clear_triggers(&s);
	lost = ksym_session_lost(&s);
	c = trace_cmd_stop(tc, dir);
	tc = -1;
	if (c) {
		if (!status)
			status = 1;
		goto cleanup;
	}
	if (remote) {
		/* The file is on the listener's side: no hits to count here. */
		printf("ksym-ctl record: hits sent to %s, where trace-cmd listen writes the trace.dat (not here: ksym-ctl cannot count them), %lu event%s lost\n",
		       remote, lost, lost == 1 ? "" : "s");
		goto cleanup;
	}
	if (tracedat_read(file, &r, &info)) {
		if (!status)
			status = 1;
		goto cleanup;
	}
	/* The file marks the losses its reader saw; the buffers count all. */
	if (info.missed > lost)
		lost = info.missed;
	printf("ksym-ctl record: %lu hit%s recorded in %s, %lu event%s lost\n",
	       info.hits, info.hits == 1 ? "" : "s", file, lost,
	       lost == 1 ? "" : "s");
cleanup:
	if (tc > 0)
		trace_cmd_stop(tc, dir);
	ksym_session_restore(&s);
	report_free(&r);
out:
	strv_free(&s.triggers);
	remove_work_dir(dir);
	free(path);
	free(pids);
	scope_free(&scope);
	strv_free(&specs);
	return status;
}
