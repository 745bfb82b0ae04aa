// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: the thin tracefs layer (see ksym_tracefs.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ksym_tracefs.h"

volatile sig_atomic_t ksym_stop;
static volatile sig_atomic_t ksym_last_sig;

static void ksym_sig_handler(int sig)
{
	ksym_stop = 1;
	ksym_last_sig = sig;
}

void ksym_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = ksym_sig_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/*
	 * A write to COMMAND's start pipe after COMMAND died (a Ctrl-C on the
	 * terminal reaches it too) must fail with EPIPE, not kill us before
	 * tracefs is restored. The children reset it before exec.
	 */
	signal(SIGPIPE, SIG_IGN);
}

int ksym_check(void)
{
	const char *dir = tracefs_tracing_dir();
	char *path;
	int ret = -1;

	if (!dir) {
		err_msg("tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing\n");
		return -1;
	}
	path = tracefs_instance_get_file(NULL, "ksym_trace_filter");
	if (!path)
		return -1;
	if (access(path, F_OK)) {
		err_msg("%s: this kernel has no ksym tracer (CONFIG_KSYM_TRACER=y)\n",
			path);
		goto out;
	}
	if (access(path, W_OK)) {
		err_msg("%s: %s (run as root)\n", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	tracefs_put_tracing_file(path);
	return ret;
}

void ksym_sync(void)
{
	free(tracefs_instance_file_read(NULL, "ksym_trace_filter", NULL));
}

char *ksym_read_file(const char *file)
{
	char *text = tracefs_instance_file_read(NULL, file, NULL);

	if (!text)
		return strdup("");
	return text;
}

int ksym_filter_write(const char *text)
{
	char *path, *buf = NULL;
	int fd = -1, ret = 0;
	size_t len;

	path = tracefs_instance_get_file(NULL, "ksym_trace_filter");
	if (!path)
		return -ENOMEM;
	len = strlen(text);
	buf = malloc(len + 2);
	if (!buf) {
		ret = -ENOMEM;
		goto cleanup;
	}
	memcpy(buf, text, len);
	buf[len++] = '\n';
	buf[len] = '\0';
	debug_msg("ksym_trace_filter <- %s", buf);

	fd = open(path, O_WRONLY);
	if (fd < 0) {
		ret = -errno;
		err_msg("%s: %s\n", path, strerror(errno));
		goto cleanup;
	}
	if (write(fd, buf, len) != (ssize_t)len) {
		char *log;

		ret = errno ? -errno : -EIO;
		err_msg("the kernel refused '%s': %s\n", text, strerror(-ret));
		log = tracefs_error_last(NULL);
		if (log && *log)
			fprintf(stderr, "%s%s", log,
				log[strlen(log) - 1] == '\n' ? "" : "\n");
		free(log);
		if (ret == -ENOSPC)
			err_msg("the debug registers are all in use (x86 has 4 per CPU, shared with gdb, ptrace and perf): 'ksym-ctl list' shows the watches, 'ksym-ctl unwatch' removes some\n");
		else if (ret == -EPERM || ret == -EACCES)
			err_msg("watching kernel addresses needs root (CAP_SYS_ADMIN)\n");
	}
cleanup:
	if (fd >= 0)
		close(fd);
	free(buf);
	tracefs_put_tracing_file(path);
	return ret;
}

/* "TARGET[/LEN]:ACCESS[@CPUS]" as the user wrote it -> TARGET. */
static void spec_target(const char *spec, char *buf, size_t size)
{
	char *p;

	snprintf(buf, size, "%s", spec);
	p = strrchr(buf, ':');
	if (p && (p[1] == 'r' || p[1] == '-'))
		*p = '\0';
	p = strrchr(buf, '/');
	if (p)
		*p = '\0';
}

int ksym_session_watch(struct ksym_session *s, const struct strv *specs)
{
	struct strv before = { 0 }, after = { 0 };
	char *text = NULL, *now = NULL, *orig = NULL, target[1100];
	size_t len = 1;
	int i, ret = -1;

	if (!s->orig_filter) {
		s->orig_filter = ksym_read_file("ksym_trace_filter");
		if (!s->orig_filter)
			return -1;
	}
	for (i = 0; i < specs->n; i++)
		len += strlen(specs->v[i]) + 1;
	text = calloc(1, len);
	if (!text)
		goto cleanup;
	for (i = 0; i < specs->n; i++) {
		strcat(text, specs->v[i]);
		if (i + 1 < specs->n)
			strcat(text, " ");
	}
	if (ksym_filter_write(text))
		goto cleanup;
	s->filter_changed = true;

	/*
	 * Which watches are ours: the targets as written, when the kernel
	 * shows them so, and every line the write added or changed.
	 */
	now = ksym_read_file("ksym_trace_filter");
	orig = strdup(s->orig_filter);
	if (!now || !orig)
		goto cleanup;
	split_lines(orig, &before);
	split_lines(now, &after);
	for (i = 0; i < after.n; i++) {
		if (filter_line_target(after.v[i], target, sizeof(target)))
			continue;
		if (strv_find(&before, after.v[i]) < 0 &&
		    strv_find(&s->targets, target) < 0)
			strv_add(&s->targets, target);
	}
	for (i = 0; i < specs->n; i++) {
		int j;

		spec_target(specs->v[i], target, sizeof(target));
		for (j = 0; j < after.n; j++) {
			char t[1100];

			if (!filter_line_target(after.v[j], t, sizeof(t)) &&
			    !strcmp(t, target) &&
			    strv_find(&s->targets, target) < 0)
				strv_add(&s->targets, target);
		}
	}
	for (i = 0; i < s->targets.n; i++)
		debug_msg("our watch: %s\n", s->targets.v[i]);
	ret = 0;
cleanup:
	free(text);
	free(now);
	free(orig);
	strv_free(&before);
	strv_free(&after);
	return ret;
}

int ksym_session_instance(struct ksym_session *s, const char *what,
			  bool tracing_on, bool tracer)
{
	char name[64];

	snprintf(name, sizeof(name), "ksym-ctl-%s-%d", what, (int)getpid());
	s->inst = tracefs_instance_create(name);
	if (!s->inst) {
		err_msg("cannot create instance %s: %s\n", name, strerror(errno));
		return -1;
	}
	debug_msg("instance %s\n", name);
	if (!tracing_on && tracefs_trace_off(s->inst)) {
		err_msg("%s: cannot turn tracing_on off\n", name);
		return -1;
	}
	/*
	 * Before the tracer arms: no entry of another task gets in. The
	 * children the tasks fork join them (event-fork), as perf's counters
	 * are inherited.
	 */
	if (s->event_pids) {
		debug_msg("%s/set_event_pid <- %s\n", name, s->event_pids);
		s->pids_set = true;
		if (tracefs_option_enable(s->inst, TRACEFS_OPTION_EVENT_FORK))
			debug_msg("%s: no options/event-fork\n", name);
		if (tracefs_instance_file_write(s->inst, "set_event_pid",
						s->event_pids) < 0) {
			err_msg("%s/set_event_pid: cannot write '%s': %s\n", name,
				s->event_pids, strerror(errno));
			return -1;
		}
	}
	if (tracer && tracefs_tracer_set(s->inst, TRACEFS_TRACER_CUSTOM, "ksym")) {
		err_msg("%s: cannot make ksym the current tracer: %s\n", name,
			strerror(errno));
		return -1;
	}
	ksym_sync();
	return 0;
}

bool ksym_session_has_option(struct ksym_session *s, const char *opt)
{
	char file[128];

	snprintf(file, sizeof(file), "options/%s", opt);
	return tracefs_file_exists(s->inst, file);
}

int ksym_session_save_option(struct ksym_session *s, const char *opt)
{
	char file[128];
	long long was;

	snprintf(file, sizeof(file), "options/%s", opt);
	if (!tracefs_file_exists(s->inst, file)) {
		err_msg("this kernel has no tracer option %s\n", opt);
		return -1;
	}
	if (tracefs_instance_file_read_number(s->inst, file, &was)) {
		err_msg("cannot read %s\n", file);
		return -1;
	}
	if (s->nr_opts < KSYM_MAX_OPTS) {
		s->opt_name[s->nr_opts] = strdup(opt);
		s->opt_was[s->nr_opts++] = was;
	}
	return 0;
}

int ksym_session_option(struct ksym_session *s, const char *opt, bool on)
{
	char file[128];

	if (ksym_session_save_option(s, opt))
		return -1;
	snprintf(file, sizeof(file), "options/%s", opt);
	if (tracefs_instance_file_write(s->inst, file, on ? "1" : "0") < 0) {
		err_msg("cannot set %s: %s\n", file, strerror(errno));
		return -1;
	}
	ksym_sync();
	return 0;
}

/* Give the watches of s->targets back the lines they had, or remove them. */
static void restore_filter(struct ksym_session *s)
{
	char *text, *now;

	text = filter_restore_text(s->orig_filter, &s->targets);
	if (!text)
		return;
	debug_msg("restore: %d watch(es) of ours, writing '%s'\n", s->targets.n, text);
	if (*text && ksym_filter_write(text)) {
		/* Someone else changed a watch meanwhile: one at a time. */
		char *save = NULL, *e;

		/* Lines, not blanks: a cast holds a blank. */
		for (e = strtok_r(text, "\n", &save); e; e = strtok_r(NULL, "\n", &save))
			ksym_filter_write(e);
	}
	now = ksym_read_file("ksym_trace_filter");
	if (now && strcmp(now, s->orig_filter))
		debug_msg("watch set after restore differs:\n%s", now);
	free(now);
	free(text);
}

unsigned long ksym_session_lost(struct ksym_session *s)
{
	unsigned long lost = 0;
	char file[64];
	int cpu;

	for (cpu = 0; cpu < 4096; cpu++) {
		char *text, *p;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
		if (!tracefs_file_exists(s->inst, file))
			break;
		text = tracefs_instance_file_read(s->inst, file, NULL);
		if (!text)
			continue;
		p = strstr(text, "overrun:");
		if (p)
			lost += strtoul(p + 8, NULL, 10);
		p = strstr(text, "dropped events:");
		if (p)
			lost += strtoul(p + 15, NULL, 10);
		free(text);
	}
	return lost;
}

bool ksym_session_pids_kept(struct ksym_session *s)
{
	char *text = tracefs_instance_file_read(s->inst, "set_event_pid", NULL);
	bool kept = text && strspn(text, " \n") < strlen(text);

	free(text);
	return kept;
}

int ksym_count_open(struct ksym_count *kc, struct ksym_session *s)
{
	const char *systems[] = { "ksym", NULL };
	char *filter = NULL, *syms = NULL;
	size_t size = 0, cap = 0, n = 1;
	FILE *f;
	int ret = -1;

	memset(kc, 0, sizeof(*kc));
	kc->s = s;
	/* Its size is not known before it is read (stat says 0). */
	f = fopen("/proc/kallsyms", "r");
	while (f && n) {
		if (size + 65536 + 1 > cap) {
			char *p = realloc(syms, cap = 2 * cap + 65536 + 1);

			if (!p)
				break;
			syms = p;
		}
		n = fread(syms + size, 1, 65536, f);
		size += n;
		syms[size] = '\0';
	}
	if (f)
		fclose(f);
	if (!syms) {
		err_msg("/proc/kallsyms: %s (-p names the accessors with it)\n",
			strerror(errno));
		return -1;
	}
	filter = ksym_read_file("ksym_trace_filter");
	if (hitcount_init(&kc->hc, filter, &s->targets, syms))
		goto out;
	kc->tep = tracefs_local_events_system(NULL, systems);
	kc->hit = kc->tep ? tep_find_event_by_name(kc->tep, "ksym", "ksym_hit") : NULL;
	if (!kc->hit) {
		err_msg("cannot read the format of ksym:ksym_hit (events/ksym/ksym_hit/format)\n");
		goto out;
	}
	/* The accessor the kernel's counters name, when the entry has it. */
	kc->caller = tep_find_field(kc->hit, "caller") ? "caller" : "ip";
	kc->sym = tep_find_field(kc->hit, "sym") != NULL;
	debug_msg("counting ksym_hit entries by %s, watches by %s\n",
		  kc->caller, kc->sym ? "name" : "address");
	ret = 0;
out:
	free(filter);
	if (ret)
		ksym_count_close(kc);
	return ret;
}

static int count_entry(struct tep_event *event, struct tep_record *rec,
		       int cpu, void *data)
{
	struct ksym_count *kc = data;
	unsigned long long addr = 0, len = 0, access = 0, caller = 0;
	char sym[256] = "";
	const char *raw;
	int size = 0;

	(void)cpu;
	/* A negative count (-1) says events were lost, not how many: at least 1. */
	if (rec->missed_events)
		kc->hc.missed += rec->missed_events > 0 ? rec->missed_events : 1;
	if (event != kc->hit)
		return 0;
	/* The watch's name, when the kernel writes it (inside the record). */
	raw = kc->sym ? tep_get_field_raw(NULL, event, "sym", rec, &size, 0) : NULL;
	if (raw && size > 0 && raw >= (const char *)rec->data &&
	    raw + size <= (const char *)rec->data + rec->size)
		snprintf(sym, sizeof(sym), "%.*s", size, raw);
	tep_get_field_val(NULL, event, "addr", rec, &addr, 0);
	tep_get_field_val(NULL, event, "len", rec, &len, 0);
	tep_get_field_val(NULL, event, "access", rec, &access, 0);
	tep_get_field_val(NULL, event, kc->caller, rec, &caller, 0);
	if (!caller)
		tep_get_field_val(NULL, event, "ip", rec, &caller, 0);
	hitcount_add(&kc->hc, sym, addr, len, access, caller);
	return 0;
}

int ksym_count_read(struct ksym_count *kc)
{
	if (!kc->tep || !kc->s->inst)
		return -1;
	return tracefs_iterate_raw_events(kc->tep, kc->s->inst, NULL, 0,
					  count_entry, kc);
}

void ksym_count_notes(FILE *f, const struct ksym_count *kc,
			unsigned long lost, int json)
{
	if (json) {
		fprintf(f, ", \"events_lost\": %lu, \"hits_unattributed\": %lu",
			lost, kc->hc.unattributed);
		return;
	}
	if (lost)
		fprintf(f, "warning: %lu events lost (the buffer filled up): the counts are low\n",
			lost);
	if (kc->hc.unattributed)
		fprintf(f, "note: %lu hits of per-CPU or member watches of one length and access could not be told apart; they are not counted above\n",
			kc->hc.unattributed);
}

void ksym_count_close(struct ksym_count *kc)
{
	hitcount_free(&kc->hc);
	if (kc->tep)
		tep_free(kc->tep);
	kc->tep = NULL;
	kc->hit = NULL;
}

void ksym_session_disarm(struct ksym_session *s)
{
	if (s->inst)
		tracefs_tracer_clear(s->inst);
	ksym_sync();
}

/* "SYSTEM:EVENT:TRIGGER" -> its three parts (in @buf); 0 or -1. */
static int trigger_split(char *buf, char **system, char **event,
			 char **trigger)
{
	char *c1 = strchr(buf, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	if (!c1 || !c2 || c1 == buf || c2 == c1 + 1 || !c2[1])
		return -1;
	*c1 = *c2 = '\0';
	*system = buf;
	*event = c1 + 1;
	*trigger = c2 + 1;
	return 0;
}

int ksym_session_add_trigger(struct ksym_session *s, const char *arg)
{
	char *buf = strdup(arg), *system, *event, *trigger;
	int ret = -1;

	if (!buf)
		return -1;
	if (trigger_split(buf, &system, &event, &trigger)) {
		err_msg("--trigger '%s': not SYSTEM:EVENT:TRIGGER (e.g. 'kmem:kmalloc:ksym_watch:ptr/8:-w-')\n",
			arg);
		goto out;
	}
	if (strncmp(trigger, "ksym_watch:", 11) &&
	    strncmp(trigger, "ksym_unwatch:", 13)) {
		err_msg("--trigger '%s': the trigger must be a ksym_watch:... or ksym_unwatch:... (see ksym.rst)\n",
			arg);
		goto out;
	}
	ret = strv_add(&s->triggers, arg);
out:
	free(buf);
	return ret;
}

/* Write @text to the trigger file of @arg's event in the instance; 0 or -1. */
static int trigger_write(struct ksym_session *s, const char *arg, bool remove)
{
	char *buf = strdup(arg), *system, *event, *trigger, *text = NULL;
	int ret = -1;

	if (!buf || trigger_split(buf, &system, &event, &trigger) ||
	    asprintf(&text, "%s%s", remove ? "!" : "", trigger) < 0) {
		text = NULL;
		goto out;
	}
	debug_msg("%s/events/%s/%s/trigger <- %s\n",
		  tracefs_instance_get_name(s->inst), system, event, text);
	/* Appended: opening with O_TRUNC would remove the event's other triggers. */
	errno = 0;
	if (tracefs_event_file_append(s->inst, system, event, "trigger", text) < 0) {
		int err = errno;
		char *log = tracefs_error_last(s->inst);

		if (!tracefs_event_file_exists(s->inst, system, event, "trigger"))
			err_msg("--trigger '%s': no event %s:%s\n", arg, system, event);
		else
			err_msg("--trigger '%s': the kernel refused to %s it%s%s\n", arg,
				remove ? "remove" : "set", err ? ": " : "",
				err ? strerror(err) : "");
		if (log && *log)
			fprintf(stderr, "%s%s", log,
				log[strlen(log) - 1] == '\n' ? "" : "\n");
		free(log);
		goto out;
	}
	ret = 0;
out:
	free(text);
	free(buf);
	return ret;
}

int ksym_session_set_triggers(struct ksym_session *s)
{
	char *log;

	if (!s->triggers.n)
		return 0;
	if (!s->inst)
		return -1;
	while (s->nr_triggers_set < s->triggers.n) {
		if (trigger_write(s, s->triggers.v[s->nr_triggers_set], false))
			return -1;
		s->nr_triggers_set++;
	}
	/*
	 * A work item registers the slots of a new trigger; until then it
	 * counts misses. Reading trace_stat/ksym_triggers waits for it.
	 */
	free(ksym_read_file("trace_stat/ksym_triggers"));
	/* A trigger that got fewer slots than it asked says so there. */
	log = tracefs_error_last(s->inst);
	if (log && *log)
		fprintf(stderr, "ksym-ctl: warning: %s%s", log,
			log[strlen(log) - 1] == '\n' ? "" : "\n");
	free(log);
	return 0;
}

void ksym_session_clear_triggers(struct ksym_session *s)
{
	/* Last set, first removed; the instance's removal would end them too. */
	while (s->inst && s->nr_triggers_set > 0) {
		s->nr_triggers_set--;
		trigger_write(s, s->triggers.v[s->nr_triggers_set], true);
	}
}

void ksym_session_restore(struct ksym_session *s)
{
	int i;

	if (s->inst) {
		char file[128];

		ksym_session_clear_triggers(s);

		for (i = s->nr_opts - 1; i >= 0; i--) {
			snprintf(file, sizeof(file), "options/%s", s->opt_name[i]);
			tracefs_instance_file_write(s->inst, file,
						    s->opt_was[i] ? "1" : "0");
		}
		tracefs_tracer_clear(s->inst);
		/* The instance goes, but should it stay (busy), it filters nothing. */
		if (s->pids_set) {
			tracefs_instance_file_clear(s->inst, "set_event_pid");
			tracefs_option_disable(s->inst, TRACEFS_OPTION_EVENT_FORK);
			s->pids_set = false;
		}
		if (tracefs_instance_exists(tracefs_instance_get_name(s->inst)) &&
		    tracefs_instance_destroy(s->inst))
			err_msg("cannot remove instance %s: %s\n",
				tracefs_instance_get_name(s->inst), strerror(errno));
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	for (i = 0; i < s->nr_opts; i++)
		free(s->opt_name[i]);
	s->nr_opts = 0;
	debug_msg("restore: filter %s\n", s->filter_changed ? "changed" : "unchanged");
	if (s->filter_changed)
		restore_filter(s);
	s->filter_changed = false;
	free(s->orig_filter);
	s->orig_filter = NULL;
	strv_free(&s->targets);
	strv_free(&s->triggers);
	s->nr_triggers_set = 0;
}

int ksym_cmd_fork(struct ksym_cmd *cmd, char **argv)
{
	int fds[2];
	char go;

	cmd->pid = -1;
	cmd->go_fd = -1;
	/* Close-on-exec: trace-cmd, forked later, must not hold the write end. */
	if (pipe2(fds, O_CLOEXEC)) {
		err_msg("pipe: %s\n", strerror(errno));
		return -1;
	}
	fflush(NULL);
	cmd->pid = fork();
	if (cmd->pid < 0) {
		err_msg("fork: %s\n", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (!cmd->pid) {
		close(fds[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		if (read(fds[0], &go, 1) != 1)
			_exit(127);
		close(fds[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "ksym-ctl: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	cmd->go_fd = fds[1];
	return 0;
}

int ksym_cmd_start(struct ksym_cmd *cmd)
{
	int ret = write(cmd->go_fd, "g", 1) == 1 ? 0 : -1;

	close(cmd->go_fd);
	cmd->go_fd = -1;
	return ret;
}

int ksym_cmd_wait(struct ksym_cmd *cmd)
{
	return ksym_cmd_wait_tick(cmd, NULL, NULL, 0);
}

int ksym_cmd_wait_tick(struct ksym_cmd *cmd, void (*tick)(void *), void *arg,
		       long ms)
{
	int status;

	for (;;) {
		pid_t r;

		if (ksym_last_sig) {
			debug_msg("forwarding signal %d to %d\n",
				  (int)ksym_last_sig, (int)cmd->pid);
			kill(cmd->pid, ksym_last_sig);
			ksym_last_sig = 0;
		}
		r = waitpid(cmd->pid, &status, tick ? WNOHANG : 0);
		if (r == cmd->pid)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (!r && tick) {
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

			tick(arg);
			nanosleep(&ts, NULL);
			continue;
		}
		err_msg("waitpid: %s\n", strerror(errno));
		return 127;
	}
	cmd->pid = -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 127;
}

void ksym_cmd_abort(struct ksym_cmd *cmd)
{
	if (cmd->go_fd >= 0) {
		close(cmd->go_fd);	/* the child exits 127 */
		cmd->go_fd = -1;
	}
	if (cmd->pid > 0) {
		waitpid(cmd->pid, NULL, 0);
		cmd->pid = -1;
	}
}
