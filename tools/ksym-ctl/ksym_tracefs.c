// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: the tracefs layer (see ksym_tracefs.h).
 *
 * Owns: signals and stdout, a session's instance (its name, liveness lock,
 * tracer, set_event_pid, events, triggers) and its removal, hit counting,
 * the per-CPU pipe reader, COMMAND's fork and wait. Calls session_claims.c
 * for what a session claims (watches, options, settings) and gives back,
 * state.c for the state directory and its lock, utils.c.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <kbuffer.h>

#include "ksym_tracefs.h"
#include "session_claims.h"

/* ksym_stop and ksym_signals are state.c's (its tests have no handler). */
static volatile sig_atomic_t ksym_last_sig;

static void ksym_sig_handler(int sig)
{
	ksym_stop = 1;
	ksym_signals++;
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
	/* Ctrl-\ too: its default would leave the watches and instance. */
	sigaction(SIGQUIT, &sa, NULL);
	/*
	 * A write to COMMAND's start pipe after COMMAND died (a Ctrl-C on the
	 * terminal reaches it too), or to a stdout whose reader is gone
	 * (top | head), must fail with EPIPE, not kill us before tracefs is
	 * restored. The children reset it before exec.
	 */
	signal(SIGPIPE, SIG_IGN);
}

bool ksym_stdout_failed(void)
{
	int err;

	errno = 0;
	fflush(stdout);
	err = errno;
	/* A failed fflush() leaves the flag; a second one would return 0. */
	if (!ferror(stdout))
		return false;
	if (err && err != EPIPE)
		err_msg("stdout: %s\n", strerror(err));
	return true;
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

bool ksym_instance_name(const char *name)
{
	return !strncmp(name, "ksym-ctl-", 9);
}

/* The instance's directory, open (not followed if a link), or -1. */
static int instance_dir_open(const char *name)
{
	const char *tracing = tracefs_tracing_dir();
	char *path;
	int fd;

	if (!tracing || strchr(name, '/') ||
	    asprintf(&path, "%s/instances/%s", tracing, name) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	return fd;
}

bool ksym_instance_alive(const char *name, void *unused)
{
	int fd = instance_dir_open(name);
	bool alive;

	(void)unused;
	if (fd < 0)
		return false;
	/* Taken: its run holds it. Free: the run is gone (the kernel let go). */
	alive = flock(fd, LOCK_EX | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return alive;
}

int ksym_stale_instances(struct strv *stale)
{
	int lock = ksym_state_lock(LOCK_SH), ret;

	if (lock < 0)
		return -1;
	ret = ksym_stale_instances_locked(stale);
	ksym_state_unlock(lock);
	return ret;
}

/* The instances of ksym-ctl runs that @want says so of into @out; 0 or -1. */
static int instances_where(bool (*want)(const char *name, void *arg), void *arg,
			   struct strv *out)
{
	const char *tracing = tracefs_tracing_dir();
	char *path = NULL;
	struct dirent *d;
	DIR *dp = NULL;
	int ret = -1;

	if (!tracing || asprintf(&path, "%s/instances", tracing) < 0) {
		path = NULL;
		goto out;
	}
	dp = opendir(path);
	if (!dp) {
		err_msg("%s: %s\n", path, strerror(errno));
		goto out;
	}
	ret = 0;
	while ((d = readdir(dp)) && !ret)
		if (ksym_instance_name(d->d_name) && want(d->d_name, arg))
			ret = strv_add(out, d->d_name);
out:
	if (dp)
		closedir(dp);
	free(path);
	return ret;
}

static bool instance_gone(const char *name, void *unused)
{
	return !ksym_instance_alive(name, unused);
}

int ksym_stale_instances_locked(struct strv *stale)
{
	return instances_where(instance_gone, NULL, stale);
}

/*
 * A running ksym-ctl whose claims state file @arg does not have, i.e. that
 * keeps them in another state file: a run in another mount namespace (a
 * container sharing the host's tracefs, unshare -m with a /run of its own)
 * or of another euid (review 11-28 L1).
 */
static bool instance_foreign(const char *name, void *arg)
{
	return !claims_find(arg, CLAIM_RUN, name) && ksym_instance_alive(name, NULL);
}

int ksym_session_create(struct ksym_session *s, const char *what)
{
	struct strv other = { 0 };
	struct claims c = { 0 };
	int lock, try, ret = -1;
	char name[96];

	if (s->inst)
		return 0;
	/*
	 * Made, locked and claimed under the state lock: nobody sees it
	 * unlocked, or locked but unclaimed.
	 */
	lock = ksym_state_lock(LOCK_EX);
	if (lock < 0)
		return -1;
	if (ksym_state_load(&c) || instances_where(instance_foreign, &c, &other))
		goto out;
	if (other.n) {
		err_msg("%s is a ksym-ctl run whose claims are not in %s/state (another mount namespace, a container or another user shares this tracefs): runs that cannot see each other's watches do not run at once; try again when it has ended\n",
			other.v[0], ksym_state_dir());
		goto out;
	}
	for (try = 0; try < 16 && !s->inst; try++) {
		unsigned int r;

		/*
		 * The PID alone is not unique: in PID namespaces, and once a
		 * killed run's PID is recycled.
		 */
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (unsigned int)time(NULL) ^ ((unsigned int)getpid() << 16) ^
			    (unsigned int)try * 2654435761u;
		snprintf(name, sizeof(name), "ksym-ctl-%s-%d-%08x", what,
			 (int)getpid(), r);
		s->inst = tracefs_instance_create(name);
		if (!s->inst) {
			err_msg("cannot create instance %s: %s\n", name, strerror(errno));
			goto out;
		}
		if (!tracefs_instance_is_new(s->inst)) {
			/* Someone else's: leave it be, take another name. */
			debug_msg("instance %s exists already\n", name);
			tracefs_instance_free(s->inst);
			s->inst = NULL;
		}
	}
	if (!s->inst) {
		err_msg("cannot create an instance of a new name\n");
		goto out;
	}
	debug_msg("instance %s\n", name);
	s->inst_lock = instance_dir_open(name);
	if (s->inst_lock < 0 || flock(s->inst_lock, LOCK_EX | LOCK_NB)) {
		err_msg("%s: cannot lock its directory: %s\n", name, strerror(errno));
		goto out;
	}
	if (claims_take(&c, CLAIM_RUN, name, "", "", name, NULL, NULL) ||
	    ksym_state_save(&c))
		goto out;
	s->registered = true;
	/* Nothing is recorded until ksym_session_instance() says so. */
	if (tracefs_trace_off(s->inst)) {
		err_msg("%s: cannot turn tracing_on off\n", name);
		goto out;
	}
	ret = 0;
out:
	ksym_state_unlock(lock);
	claims_free(&c);
	strv_free(&other);
	return ret;
}

int ksym_session_instance(struct ksym_session *s, const char *what,
			  bool tracing_on, bool tracer)
{
	const char *name;

	if (ksym_session_create(s, what))
		return -1;
	name = tracefs_instance_get_name(s->inst);
	if (tracing_on && tracefs_trace_on(s->inst)) {
		err_msg("%s: cannot turn tracing_on on\n", name);
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

int ksym_session_option(struct ksym_session *s, const char *opt, bool on)
{
	char file[128];

	if (ksym_session_save_option(s, opt, on))
		return -1;
	snprintf(file, sizeof(file), "options/%s", opt);
	if (tracefs_instance_file_write(s->inst, file, on ? "1" : "0") < 0) {
		err_msg("cannot set %s: %s\n", file, strerror(errno));
		return -1;
	}
	ksym_sync();
	return 0;
}

unsigned long ksym_session_lost(struct ksym_session *s)
{
	unsigned long lost = 0;
	char *dir, file[300];
	struct dirent *d;
	DIR *dp;

	/* Every CPU's, whatever their numbers (possible CPU ids may have holes). */
	dir = tracefs_instance_get_file(s->inst, "per_cpu");
	dp = dir ? opendir(dir) : NULL;
	while (dp && (d = readdir(dp))) {
		char *text, *p;

		if (strncmp(d->d_name, "cpu", 3) || !d->d_name[3] ||
		    strspn(d->d_name + 3, "0123456789") != strlen(d->d_name + 3))
			continue;
		snprintf(file, sizeof(file), "per_cpu/%s/stats", d->d_name);
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
	if (dp)
		closedir(dp);
	tracefs_put_tracing_file(dir);
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
	int ret = -1;

	memset(kc, 0, sizeof(*kc));
	kc->s = s;
	syms = ksym_read_text("/proc/kallsyms");
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

struct ksym_pipe {
	struct tep_handle	*tep;
	struct tracefs_cpu	**cpu;		/* NULL where a CPU's cannot open */
	int			nr;
	struct kbuffer		*kbuf;
	void			*page;
};

/* The CPU ids of per_cpu/ (possible CPU ids may have holes): the largest + 1, or -1. */
static int per_cpu_ids(struct ksym_session *s)
{
	char *dir = tracefs_instance_get_file(s->inst, "per_cpu");
	DIR *dp = dir ? opendir(dir) : NULL;
	struct dirent *d;
	int nr = -1;

	while (dp && (d = readdir(dp))) {
		long id;

		if (strncmp(d->d_name, "cpu", 3) || !d->d_name[3] ||
		    strspn(d->d_name + 3, "0123456789") != strlen(d->d_name + 3) ||
		    strlen(d->d_name + 3) > 6)
			continue;
		id = strtol(d->d_name + 3, NULL, 10);
		if (id + 1 > nr)
			nr = id + 1;
	}
	if (dp)
		closedir(dp);
	tracefs_put_tracing_file(dir);
	return nr;
}

struct ksym_pipe *ksym_pipe_open(struct ksym_session *s, struct tep_handle *tep)
{
	struct ksym_pipe *p = calloc(1, sizeof(*p));
	int cpus = per_cpu_ids(s);
	int i, size = 0;

	if (!p)
		goto fail;
	if (cpus <= 0) {
		err_msg("cannot list the buffers of %s (per_cpu/)\n",
			tracefs_instance_get_name(s->inst));
		goto fail;
	}
	p->tep = tep;
	p->nr = cpus;
	p->cpu = calloc(cpus, sizeof(*p->cpu));
	if (!p->cpu)
		goto fail;
	/* A hole in the ids has no per_cpu/cpuN: its slot stays NULL. */
	for (i = 0; i < p->nr; i++) {
		p->cpu[i] = tracefs_cpu_open(s->inst, i, true);
		if (p->cpu[i] && tracefs_cpu_read_size(p->cpu[i]) > size)
			size = tracefs_cpu_read_size(p->cpu[i]);
	}
	/* The sub-buffer's commit field is a long of the kernel's. */
	p->kbuf = kbuffer_alloc(tep_get_header_page_size(tep) == 8 ? KBUFFER_LSIZE_8 :
				KBUFFER_LSIZE_4, tep_is_file_bigendian(tep) ?
				KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	p->page = size > 0 ? malloc(size) : NULL;
	if (!p->kbuf || !p->page) {
		err_msg("cannot read the buffers of %s (per_cpu/cpuN/trace_pipe_raw)\n",
			tracefs_instance_get_name(s->inst));
		goto fail;
	}
	return p;
fail:
	ksym_pipe_close(p);
	return NULL;
}

int ksym_pipe_read_some(struct ksym_pipe *p, int max_pages,
			int (*fn)(struct tep_record *rec, int cpu, void *arg),
			void (*capped)(int cpu, void *arg), void *arg)
{
	unsigned long long ts;
	int i, ret = 0;

	for (i = 0; i < p->nr && !ret; i++) {
		int pages = 0;

		while (p->cpu[i] && !ret) {
			struct tep_record rec;
			void *data;
			int missed;

			if (max_pages > 0 && pages == max_pages) {
				if (capped)
					capped(i, arg);
				break;
			}
			if (tracefs_cpu_read(p->cpu[i], p->page, true) <= 0)
				break;
			pages++;
			if (kbuffer_load_subbuffer(p->kbuf, p->page) < 0)
				break;
			/* The sub-buffer says events were lost before it. */
			missed = kbuffer_missed_events(p->kbuf);
			for (data = kbuffer_read_event(p->kbuf, &ts); data && !ret;
			     data = kbuffer_next_event(p->kbuf, &ts)) {
				memset(&rec, 0, sizeof(rec));
				rec.ts = ts;
				rec.cpu = i;
				rec.data = data;
				rec.size = kbuffer_event_size(p->kbuf);
				rec.missed_events = missed;
				missed = 0;
				ret = fn(&rec, i, arg);
			}
		}
	}
	return ret;
}

int ksym_pipe_read(struct ksym_pipe *p,
		   int (*fn)(struct tep_record *rec, int cpu, void *arg), void *arg)
{
	return ksym_pipe_read_some(p, 0, fn, NULL, arg);
}

void ksym_pipe_close(struct ksym_pipe *p)
{
	int i;

	if (!p)
		return;
	for (i = 0; p->cpu && i < p->nr; i++)
		if (p->cpu[i])
			tracefs_cpu_close(p->cpu[i]);
	free(p->cpu);
	if (p->kbuf)
		kbuffer_free(p->kbuf);
	free(p->page);
	free(p);
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

/* "SYSTEM:EVENT" -> its two parts (in @buf); 0 or -1. */
static int event_split(char *buf, char **system, char **event)
{
	char *colon = strchr(buf, ':');

	if (!colon || colon == buf || !colon[1])
		return -1;
	*colon = '\0';
	*system = buf;
	*event = colon + 1;
	return 0;
}

/* Write @text to file @what of event @ev ("SYSTEM:EVENT") of the instance. */
static int event_file_write(struct ksym_session *s, const char *ev,
			    const char *what, const char *text)
{
	char *buf = strdup(ev), *system, *event;
	int ret = -1;

	if (!buf || event_split(buf, &system, &event))
		goto out;
	debug_msg("%s/events/%s/%s/%s <- %s\n", tracefs_instance_get_name(s->inst),
		  system, event, what, text);
	if (tracefs_event_file_write(s->inst, system, event, what, text) < 0) {
		int err = errno;

		if (!tracefs_event_file_exists(s->inst, system, event, what))
			err_msg("this kernel has no event %s (events/%s/%s/%s)\n", ev,
				system, event, what);
		else
			err_msg("events/%s/%s/%s: cannot write '%s': %s\n", system,
				event, what, text, strerror(err));
		goto out;
	}
	ret = 0;
out:
	free(buf);
	return ret;
}

int ksym_session_event(struct ksym_session *s, const char *event,
		       const char *filter)
{
	if (!s->inst || strv_add(&s->events, event))
		return -1;
	if (filter && event_file_write(s, event, "filter", filter))
		return -1;
	return event_file_write(s, event, "enable", "1");
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
	int lock = -1;

	if (s->inst) {
		int i;

		ksym_session_clear_triggers(s);
		for (i = 0; i < s->events.n; i++) {
			event_file_write(s, s->events.v[i], "enable", "0");
			event_file_write(s, s->events.v[i], "filter", "0");
		}
		tracefs_tracer_clear(s->inst);
		/* The instance goes, but should it stay (busy), it filters nothing. */
		if (s->pids_set) {
			tracefs_instance_file_clear(s->inst, "set_event_pid");
			tracefs_option_disable(s->inst, TRACEFS_OPTION_EVENT_FORK);
			s->pids_set = false;
		}
		debug_msg("restore: %d watch(es) and %d option(s) claimed\n",
			  s->filter_changed ? s->targets.n : 0, s->opts.n);
		/*
		 * The claims let go of and the instance removed under one
		 * lock: no run that starts meanwhile sees the instance of a
		 * run it has no claim of. Without the lock the instance goes
		 * all the same.
		 */
		if (s->filter_changed || s->opts.n || s->registered) {
			lock = ksym_state_lock(LOCK_EX);
			ksym_session_release_claims(s, lock);
		}
		if (tracefs_instance_exists(tracefs_instance_get_name(s->inst)) &&
		    tracefs_instance_destroy(s->inst))
			err_msg("cannot remove instance %s: %s\n",
				tracefs_instance_get_name(s->inst), strerror(errno));
		tracefs_instance_free(s->inst);
		s->inst = NULL;
	}
	/* Gone with the instance: the lock tells others this run is over. */
	if (s->inst_lock >= 0)
		close(s->inst_lock);
	s->inst_lock = -1;
	if (lock >= 0)
		ksym_state_unlock(lock);
	s->registered = false;
	s->filter_changed = false;
	strv_free(&s->opts);
	strv_free(&s->targets);
	strv_free(&s->triggers);
	strv_free(&s->events);
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

/*
 * A descriptor that becomes readable when @pid exits (pidfd_open, Linux
 * 5.3), or -1.
 */
static int pid_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

int ksym_cmd_wait_tick(struct ksym_cmd *cmd, void (*tick)(void *), void *arg,
		       long ms)
{
	sigset_t block, old;
	struct timespec ts;
	struct pollfd pfd;
	int status, ret = 127;

	/*
	 * The signals we forward are blocked but while ppoll() waits, which
	 * unblocks them atomically: one that comes after the ksym_last_sig
	 * test interrupts the wait instead of waiting for COMMAND's end.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigaddset(&block, SIGQUIT);
	sigprocmask(SIG_BLOCK, &block, &old);
	pfd.fd = pid_fd(cmd->pid);
	pfd.events = POLLIN;
	for (;;) {
		pid_t r;

		if (ksym_last_sig) {
			debug_msg("forwarding signal %d to %d\n",
				  (int)ksym_last_sig, (int)cmd->pid);
			kill(cmd->pid, ksym_last_sig);
			ksym_last_sig = 0;
		}
		r = waitpid(cmd->pid, &status, WNOHANG);
		if (r == cmd->pid)
			break;
		if (r < 0 && errno != EINTR) {
			err_msg("waitpid: %s\n", strerror(errno));
			goto out;
		}
		/* Without a pidfd, look again every 10 ms. */
		ts.tv_sec = tick ? ms / 1000 : pfd.fd >= 0 ? 3600 : 0;
		ts.tv_nsec = tick ? (ms % 1000) * 1000000L : pfd.fd >= 0 ? 0 : 10000000L;
		if (!ppoll(pfd.fd >= 0 ? &pfd : NULL, pfd.fd >= 0 ? 1 : 0, &ts, &old) &&
		    tick)
			tick(arg);
	}
	cmd->pid = -1;
	if (WIFEXITED(status))
		ret = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		ret = 128 + WTERMSIG(status);
out:
	if (pfd.fd >= 0)
		close(pfd.fd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
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
