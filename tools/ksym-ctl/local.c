// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl local: who writes a function's local variable while the call
 * runs, by name. The variable's place in the frame comes from DWARF
 * (dwarf_local.c); then, in an instance of its own (ksym-ctl-local-PID-N),
 * with the ksym tracer current and ksym-stack on:
 *
 *   an entry probe on FUNC fetching the stack pointer ($stack), enabled,
 *   with a ksym_watch trigger on the local's slot ("(void *)sp-0x48/8",
 *   filtered by -p's tasks);
 *   a return probe fetching it again, enabled, with the ksym_unwatch
 *   trigger (x86's return $stack is 8 above the entry's: the return
 *   address popped; arm64's is the same);
 *
 * the events are read every 100 ms while COMMAND runs (or -p's tasks, or
 * -d SECONDS, or until Ctrl-C); then the trigger's row of
 * trace_stat/ksym_triggers (the calls watched and missed) is read,
 * everything is put back (the probes removed), and local_core.c gives each
 * write its call and class. The probes' group is named after the instance
 * (ksym_ctl_local_PID_N): ksym-ctl reset removes those of a killed run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <dirent.h>
#include <elf.h>
#ifdef HAVE_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#include "dwarf_local.h"
#include "hunt.h"
#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "local.h"
#include "scope.h"
#include "tracedat.h"
#include "uaf.h"

#define DEBUG_ROOT	"/usr/lib/debug"

static void local_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl local [-w] [-j] [-v] [--debuginfo FILE] [-s SLOTS] [--fprobe]\n"
		"                      [--outermost]\n"
		"                      [-p PID[,PID...]] FUNC VAR[.FIELD...]\n"
		"                      [-- COMMAND [ARG...] | -d SECONDS]\n"
		"\n"
		"Who writes local variable VAR of kernel function FUNC while a call of\n"
		"FUNC runs: its place in the frame comes from DWARF (no offset to find by\n"
		"hand); each call's VAR is watched from FUNC's entry to its return, and\n"
		"every write into it is printed with the writer's callchain, the value\n"
		"before and after, and whether it came from inside the call (FUNC or a\n"
		"callee, on the task that made the call) or from outside it (an\n"
		"interrupt, another task: the corruption). The frame's own setup and\n"
		"teardown (prologue, zeroing, the probes' trampolines) are counted apart\n"
		"(-v lists them). Runs while COMMAND runs, for -d SECONDS, or until\n"
		"Ctrl-C (with -p: until those tasks exit).\n"
		"\n"
		"VAR must live in the frame for the whole call (its address taken, or\n"
		"too big for registers): a variable in a register, optimised out, or\n"
		"moving is refused, saying which. FUNC may name a copy the compiler made\n"
		"(foo.isra.0); a plain name that only one copy has means that copy.\n"
		"\n"
		"Where the DWARF comes from, the first that has FUNC: --debuginfo FILE;\n"
		"Debian's -dbg packages (" DEBUG_ROOT "/boot/vmlinux-RELEASE, "
		DEBUG_ROOT "/lib/modules/RELEASE/...);\n"
		"the module's own .ko under /lib/modules/RELEASE when it has DWARF;\n"
		"debuginfod (DEBUGINFOD_URLS), by build ID, where ksym-ctl was built with it.\n"
		"\n"
		"Each call takes a slot (ksym_trigger_slots: a debug register on every\n"
		"CPU; recursion and calls on several CPUs at once take one each); a call\n"
		"that finds none is counted as missed: the coverage line says how many.\n"
		"\n"
		"options:\n"
		"      --debuginfo FILE  the vmlinux or .ko with FUNC's DWARF\n"
		"  -w, --write           writes only (-w-); default: reads and writes (rw-,\n"
		"                        which x86 does not tell apart)\n"
		"  -s, --slots SLOTS     calls watched at once, 1-4 (set for the moment the\n"
		"                        trigger is made, then given back)\n"
		"  -p, --pid PID[,PID...]\n"
		"                        only the calls these tasks make (a filter on the\n"
		"                        entry probe's trigger); writes into them by anyone\n"
		"                        are seen. Without COMMAND or -d: until they exit\n"
		"  -d, --duration SECONDS\n"
		"                        run this long (1, 0.5, 250ms), or until Ctrl-C\n"
		"      --outermost       only the calls the function does not make itself: the\n"
		"                        outermost of a recursion (a filter on the return\n"
		"                        address the entry probe fetches). Other depths would\n"
		"                        need the kernel to count a task's calls\n"
		"      --fprobe          entry and return as fprobe events (f:) rather than\n"
		"                        kprobes (where the kernel has CONFIG_FPROBE_EVENTS)\n"
		"  -j, --json            print JSON\n"
		"  -v, --verbose         also list the frame's own writes\n"
		"\n"
		"Exit status: 0 when the hunt ran (COMMAND's status when COMMAND failed),\n"
		"1 on an error. The instance, the probes and their triggers, the tracer\n"
		"and ksym-stack are put back on exit, SIGINT, SIGTERM, SIGHUP and\n"
		"SIGQUIT; 'ksym-ctl reset' removes what a killed run left.\n"
		"\n"
		"examples:\n"
		"  ksym-ctl local ksym_hitgen_local local -w -- \\\n"
		"        sh -c 'echo 5 > /sys/kernel/debug/ksym_hitgen/local'\n"
		"  ksym-ctl local ksym_hitgen_local stray.leak -w --json -- \\\n"
		"        sh -c 'echo 1 > /sys/kernel/debug/ksym_hitgen/local'\n"
		"  ksym-ctl local -p 1234 -w my_func my_local.state    # until 1234 exits\n"
		"  ksym-ctl local --debuginfo ./vmlinux -d 10 -w do_sys_poll table\n");
}

/* The module FUNC is in ("" for vmlinux), from /proc/kallsyms. */
static int function_module(const struct kallsyms *ks, const char *func,
			   char *module, size_t size)
{
	unsigned long long addr = kallsyms_addr(ks, func);
	const struct kallsym *s = addr ? kallsyms_find(ks, addr) : NULL;

	if (!s) {
		err_msg("%s: no such function in /proc/kallsyms (a module not loaded? inlined everywhere?)\n",
			func);
		return -1;
	}
	snprintf(module, size, "%s", s->module ? s->module : "");
	return 0;
}

/* DIR/.../NAME.ko (NAME with '_' or '-'), searched depth first; malloc'ed. */
static char *find_ko(const char *dir, const char *name, int depth)
{
	char *found = NULL, path[4096];
	struct dirent *d;
	DIR *dp;

	if (depth > 8 || !(dp = opendir(dir)))
		return NULL;
	while (!found && (d = readdir(dp))) {
		size_t n = strlen(d->d_name), i;
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (n > 3 && !strcmp(d->d_name + n - 3, ".ko") && n - 3 == strlen(name)) {
			for (i = 0; i < n - 3; i++)
				if (d->d_name[i] != name[i] &&
				    !(strchr("-_", d->d_name[i]) && strchr("-_", name[i])))
					break;
			if (i == n - 3) {
				found = strdup(path);
				break;
			}
		}
		if (!lstat(path, &st) && S_ISDIR(st.st_mode))
			found = find_ko(path, name, depth + 1);
	}
	closedir(dp);
	return found;
}

#ifdef HAVE_DEBUGINFOD
/* The GNU build ID in an ELF notes file (/sys/module/M/notes/...); its length, or 0. */
static int read_build_id(const char *path, unsigned char *id, int max)
{
	unsigned char buf[4096];
	size_t off = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		unsigned int namesz, descsz, type;

		memcpy(&namesz, buf + off, 4);
		memcpy(&descsz, buf + off + 4, 4);
		memcpy(&type, buf + off + 8, 4);
		off += 12;
		if (off + ((namesz + 3) & ~3u) + descsz > (size_t)n)
			break;
		if (type == NT_GNU_BUILD_ID && namesz == 4 &&
		    !memcmp(buf + off, "GNU", 4) && (int)descsz <= max) {
			memcpy(id, buf + off + 4, descsz);
			return descsz;
		}
		off += ((namesz + 3) & ~3u) + ((descsz + 3) & ~3u);
	}
	return 0;
}

static char *from_debuginfod(const char *module)
{
	char notes[300];
	unsigned char id[64];
	char *path = NULL;
	debuginfod_client *c;
	int len, fd;

	if (!getenv("DEBUGINFOD_URLS") || !*getenv("DEBUGINFOD_URLS"))
		return NULL;
	if (*module)
		snprintf(notes, sizeof(notes), "/sys/module/%s/notes/.note.gnu.build-id", module);
	else
		snprintf(notes, sizeof(notes), "/sys/kernel/notes");
	len = read_build_id(notes, id, sizeof(id));
	if (!len || !(c = debuginfod_begin()))
		return NULL;
	fd = debuginfod_find_debuginfo(c, id, len, &path);
	if (fd >= 0)
		close(fd);
	else
		path = NULL;
	debuginfod_end(c);
	return path;
}
#endif

/*
 * The files to try, in order (local_usage() says which); each malloc'ed
 * into @files.
 */
static int debuginfo_files(const char *given, const char *module, struct strv *files)
{
	struct utsname u;
	char dir[512], *p;

	if (given)
		return strv_add(files, given);
	if (uname(&u))
		return -1;
	if (!*module) {
		snprintf(dir, sizeof(dir), DEBUG_ROOT "/boot/vmlinux-%s", u.release);
		if (!access(dir, R_OK) && strv_add(files, dir))
			return -1;
		snprintf(dir, sizeof(dir), DEBUG_ROOT "/lib/modules/%s/vmlinux", u.release);
		if (!access(dir, R_OK) && strv_add(files, dir))
			return -1;
	} else {
		snprintf(dir, sizeof(dir), DEBUG_ROOT "/lib/modules/%s", u.release);
		p = find_ko(dir, module, 0);
		if (p && strv_add(files, p)) {
			free(p);
			return -1;
		}
		free(p);
		snprintf(dir, sizeof(dir), "/lib/modules/%s", u.release);
		p = find_ko(dir, module, 0);
		if (p && dwarf_file_has_info(p) && strv_add(files, p)) {
			free(p);
			return -1;
		}
		free(p);
	}
#ifdef HAVE_DEBUGINFOD
	p = from_debuginfod(module);
	if (p && strv_add(files, p)) {
		free(p);
		return -1;
	}
	free(p);
#endif
	return 0;
}

/* VAR's place from the first file that has FUNC's DWARF; -1 with a message. */
static int find_local(const char *given, const char *module, const char *func,
		      const char *var, struct dwarf_local *dl, char **file)
{
	struct strv files = { 0 };
	bool no_dwarf = true;
	int i, ret = -1;

	if (debuginfo_files(given, module, &files))
		goto out;
	if (!files.n) {
		err_msg("no DWARF for %s (%s): none at %s/boot/vmlinux-RELEASE or %s/lib/modules/RELEASE/, the %s has none%s; install the kernel's -dbg package, or give --debuginfo FILE (a vmlinux or .ko built with CONFIG_DEBUG_INFO)\n",
			func, *module ? module : "vmlinux", DEBUG_ROOT, DEBUG_ROOT,
			*module ? "module's .ko" : "kernel",
#ifdef HAVE_DEBUGINFOD
			", debuginfod has none (DEBUGINFOD_URLS)"
#else
			", and ksym-ctl was built without debuginfod"
#endif
			);
		goto out;
	}
	for (i = 0; i < files.n && no_dwarf; i++) {
		debug_msg("DWARF: trying %s\n", files.v[i]);
		if (!dwarf_local_find(files.v[i], func, var, dl, &no_dwarf)) {
			*file = strdup(files.v[i]);
			ret = *file ? 0 : -1;
			break;
		}
	}
out:
	strv_free(&files);
	return ret;
}

/*
 * The bytes a debug register watches: the object's, at most 8, a power of
 * two that the slot's alignment allows (the entry's stack pointer is 8-byte
 * aligned on x86-64, 16 on arm64).
 */
static unsigned long watch_len(const struct dwarf_local *dl)
{
	unsigned long len = 8;

	while (len > 1 && (len > dl->size || (dl->offset & (long)(len - 1))))
		len /= 2;
	return len;
}

/* The return probe's $stack minus the entry's. */
static long return_sp_delta(int machine)
{
	return machine == EM_X86_64 ? 8 : 0;
}

static int host_machine(void)
{
#if defined(__x86_64__)
	return EM_X86_64;
#elif defined(__aarch64__)
	return EM_AARCH64;
#else
	return -1;
#endif
}

/* "+0x8", "-0x48", "" for 0. */
static void sp_off(char *buf, size_t size, long v)
{
	if (!v)
		*buf = '\0';
	else
		snprintf(buf, size, "%s0x%lx", v < 0 ? "-" : "+", v < 0 ? -v : v);
}

/* The probes: their group, and whether each is made. */
struct local_probes {
	char		group[96];
	bool		in_made, out_made;
	bool		fprobe;
	/* --outermost: the entry's return address, as a fetch arg, or NULL */
	const char	*ret_fetch;
};

static int dynevent_write(const char *text)
{
	errno = 0;
	debug_msg("dynamic_events <- %s\n", text);
	if (tracefs_instance_file_append(NULL, "dynamic_events", text) < 0) {
		int err = errno;
		char *log = tracefs_error_last(NULL);

		err_msg("the kernel refused '%s'%s%s\n", text, err ? ": " : "",
			err ? strerror(err) : "");
		if (log && *log)
			fprintf(stderr, "%s%s", log, log[strlen(log) - 1] == '\n' ? "" : "\n");
		free(log);
		return -1;
	}
	return 0;
}

static int probes_create(struct local_probes *p, struct ksym_session *s,
			 const char *func)
{
	const char *inst = tracefs_instance_get_name(s->inst);
	char text[512], *c;

	snprintf(p->group, sizeof(p->group), "%s", inst);
	for (c = p->group; *c; c++)
		if (*c == '-')
			*c = '_';
	/*
	 * The return probe first: the kprobes at one address run newest
	 * first, so the entry's handler reads the return address (--outermost)
	 * before the return probe's replaces it with its trampoline's.
	 */
	if (p->fprobe)
		snprintf(text, sizeof(text), "f:%s/out %s%%return sp=$stack", p->group, func);
	else
		snprintf(text, sizeof(text), "r:%s/out %s sp=$stack", p->group, func);
	if (dynevent_write(text))
		return -1;
	p->out_made = true;
	snprintf(text, sizeof(text), "%s:%s/in %s sp=$stack%s%s", p->fprobe ? "f" : "p",
		 p->group, func, p->ret_fetch ? " ret=" : "",
		 p->ret_fetch ? p->ret_fetch : "");
	if (dynevent_write(text))
		return -1;
	p->in_made = true;
	return 0;
}

static void probes_remove(struct local_probes *p)
{
	char text[200];

	if (p->out_made) {
		snprintf(text, sizeof(text), "-:%s/out", p->group);
		if (!dynevent_write(text))
			p->out_made = false;
	}
	if (p->in_made) {
		snprintf(text, sizeof(text), "-:%s/in", p->group);
		if (!dynevent_write(text))
			p->in_made = false;
	}
}

int local_reset_probes(struct strv *done)
{
	char *text = ksym_read_file("dynamic_events"), *line, *save = NULL;
	struct strv gone = { 0 };
	int i, ret = 0;

	for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		char group[96], event[96], inst[96], rm[200], *c;

		if (sscanf(line, "%*[^:]:%95[^/]/%95s", group, event) != 2 ||
		    strncmp(group, "ksym_ctl_local_", 15))
			continue;
		snprintf(inst, sizeof(inst), "%s", group);
		for (c = inst; *c; c++)
			if (*c == '_')
				*c = '-';
		if (ksym_instance_alive(inst, NULL))
			continue;
		snprintf(rm, sizeof(rm), "-:%s/%s", group, event);
		if (strv_add(&gone, rm))
			ret = -1;
	}
	free(text);
	for (i = 0; i < gone.n; i++) {
		char msg[240];

		if (dynevent_write(gone.v[i])) {
			ret = -1;
			continue;
		}
		snprintf(msg, sizeof(msg), "removed probe %s", gone.v[i] + 2);
		strv_add(done, msg);
	}
	strv_free(&gone);
	return ret;
}

/* Reading the instance's buffer. */
struct local_run {
	struct tep_handle	*tep;
	struct ksym_pipe	*pipe;
	struct local_data	*d;
	struct tep_event	*in, *out, *hit, *kstack;
	struct tep_format_field	*in_sp, *out_sp, *addr, *ip, *value, *old,
				*has_value, *has_old, *ips;
	long			ret_delta;
	int			last_cpu;	/* the CPU of the last write */
	int			err;
};

static int run_open(struct local_run *r, struct ksym_session *s,
		    const struct local_probes *p)
{
	const char *systems[] = { "ksym", p->group, NULL };

	r->tep = tracefs_local_events_system(NULL, systems);
	if (!r->tep)
		goto fail;
	r->in = tep_find_event_by_name(r->tep, p->group, "in");
	r->out = tep_find_event_by_name(r->tep, p->group, "out");
	r->hit = tep_find_event_by_name(r->tep, "ksym", "ksym_hit");
	r->kstack = tep_find_event_by_name(r->tep, "ksym", "ksym_stack");
	if (!r->in || !r->out || !r->hit)
		goto fail;
	r->in_sp = tep_find_field(r->in, "sp");
	r->out_sp = tep_find_field(r->out, "sp");
	r->addr = tep_find_field(r->hit, "addr");
	r->ip = tep_find_field(r->hit, "ip");
	r->value = tep_find_field(r->hit, "value");
	r->old = tep_find_field(r->hit, "old");
	r->has_value = tep_find_field(r->hit, "has_value");
	r->has_old = tep_find_field(r->hit, "has_old");
	r->ips = r->kstack ? tep_find_field(r->kstack, "ips") : NULL;
	r->last_cpu = -1;
	if (!r->in_sp || !r->out_sp || !r->addr || !r->ip)
		goto fail;
	r->pipe = ksym_pipe_open(s, r->tep);
	return r->pipe ? 0 : -1;
fail:
	err_msg("cannot read the formats of the probes and ksym:ksym_hit\n");
	return -1;
}

static int read_record(struct tep_record *rec, int cpu, void *arg)
{
	struct local_run *r = arg;
	struct tep_event *ev = tep_find_event_by_record(r->tep, rec);
	unsigned long long v;
	int pid = tep_data_pid(r->tep, rec);

	if (!ev)
		return 0;
	if (ev == r->in) {
		struct local_call c = { .ts_in = rec->ts, .pid = pid, .cpu = cpu };

		if (!tracedat_field_val(r->in_sp, rec, &c.sp))
			return 0;
		if (local_add_call(r->d, &c))
			r->err = -1;
	} else if (ev == r->out) {
		if (tracedat_field_val(r->out_sp, rec, &v))
			local_add_return(r->d, pid, rec->ts, v - r->ret_delta);
	} else if (ev == r->hit) {
		struct local_write w = { .ts = rec->ts, .pid = pid, .cpu = cpu };

		tracedat_field_val(r->addr, rec, &w.addr);
		tracedat_field_val(r->ip, rec, &w.ip);
		w.has_value = r->has_value && tracedat_field_val(r->has_value, rec, &v) && v;
		w.has_old = r->has_old && tracedat_field_val(r->has_old, rec, &v) &&
			    v == UAF_OLD_READ;
		if (w.has_value)
			tracedat_field_val(r->value, rec, &w.value);
		if (w.has_old)
			tracedat_field_val(r->old, rec, &w.old);
		w.flags = tep_data_flags(r->tep, rec);
		if (local_add_write(r->d, &w))
			r->err = -1;
		r->last_cpu = cpu;
	} else if (ev == r->kstack && cpu == r->last_cpu) {
		unsigned long long ip[LOCAL_FRAMES_MAX];
		int nr = tracedat_stack_frames(r->tep, r->ips, NULL, false, rec,
					       ip, LOCAL_FRAMES_MAX);

		if (nr > 0)
			local_set_stack(r->d, ip, nr);
		r->last_cpu = -1;
	}
	return r->err;
}

static void local_tick(void *arg)
{
	struct local_run *r = arg;

	if (r->pipe && !r->err)
		ksym_pipe_read(r->pipe, read_record, r);
}

/* "common_pid == 1 || common_pid == 2": -p's threads; NULL without -p. */
static char *pid_filter(const struct ksym_scope *sc)
{
	char *f = NULL, *n;
	int i;

	for (i = 0; i < sc->nr_tids; i++) {
		if (asprintf(&n, "%s%scommon_pid == %d", f ? f : "",
			     f ? " || " : "", sc->tids[i]) < 0) {
			free(f);
			return NULL;
		}
		free(f);
		f = n;
	}
	return f;
}

/*
 * The return address at the entry, as a probe fetches it (--outermost):
 * x86-64's is at the entry's stack pointer, arm64's in the link register
 * (the probe is before the prologue). NULL where not known.
 */
static const char *return_address_fetch(int machine)
{
	switch (machine) {
	case EM_X86_64:
		return "+0($stack):u64";
	case EM_AARCH64:
		return "%x30:u64";
	default:
		return NULL;
	}
}

enum { OPT_DEBUGINFO = 256, OPT_FPROBE, OPT_OUTERMOST };

struct local_opts {
	const char	*debuginfo;
	bool		write_only, json, verbose, fprobe, outermost;
	int		slots;
	long		ms;
	char		**command;
	const char	*func, *var;
};

/* The options; 0, 1 when --help was printed, -1 on an error. */
static int local_options(int argc, char **argv, struct local_opts *o,
			 struct ksym_scope *scope)
{
	static const struct option opts[] = {
		{ "debuginfo", required_argument, NULL, OPT_DEBUGINFO },
		{ "fprobe", no_argument, NULL, OPT_FPROBE },
		{ "outermost", no_argument, NULL, OPT_OUTERMOST },
		{ "write", no_argument, NULL, 'w' },
		{ "slots", required_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	/* Options before, between and after FUNC and VAR; "--" ends them. */
	optind = 1;
	for (;;) {
		while ((c = getopt_long(argc, argv, "+ws:p:d:jvh", opts, NULL)) != -1) {
			switch (c) {
			case OPT_DEBUGINFO:
				o->debuginfo = optarg;
				break;
			case OPT_FPROBE:
				o->fprobe = true;
				break;
			case OPT_OUTERMOST:
				o->outermost = true;
				break;
			case 'w':
				o->write_only = true;
				break;
			case 's':
				if (uaf_parse_slots(optarg, &o->slots))
					return -1;
				break;
			case 'd':
				o->ms = parse_duration_ms(optarg);
				if (o->ms < 0) {
					err_msg("-d %s: not a time in seconds (1, 0.5, 250ms)\n", optarg);
					return -1;
				}
				break;
			case 'j':
				o->json = true;
				break;
			case 'v':
				o->verbose = true;
				break;
			case 'h':
				local_usage(stdout);
				return 1;
			case 'p':
				if (scope_option(scope, c, optarg, NULL) > 0)
					break;
				return -1;
			default:
				local_usage(stderr);
				return -1;
			}
		}
		if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
			if (optind >= argc) {
				err_msg("no COMMAND after '--' (e.g. -- sleep 1)\n");
				return -1;
			}
			o->command = &argv[optind];
			return 0;
		}
		if (optind >= argc)
			return 0;
		if (!o->func) {
			o->func = argv[optind++];
		} else if (!o->var) {
			o->var = argv[optind++];
		} else {
			err_msg("'%s': local takes FUNC and VAR; give COMMAND after '--'\n",
				argv[optind]);
			return -1;
		}
	}
}

int local_main(int argc, char **argv)
{
	struct ksym_session s = KSYM_SESSION_INIT;
	struct ksym_cmd cmd = { .pid = -1, .go_fd = -1 };
	struct ksym_scope scope = { 0 };
	struct local_opts o = { .ms = -1 };
	struct local_probes probes = { 0 };
	struct local_run run = { 0 };
	struct local_data d = { 0 };
	struct uaf_coverage cov = { 0 };
	struct dwarf_local dl;
	struct kallsyms ks = { 0 };
	char module[64], title[512], slots_text[16], off[32], back[32], ev[128], event[160],
	     *file = NULL, *filter = NULL, *tfilter = NULL, *watch = NULL,
	     *unwatch = NULL,
	     *pids = NULL, *syms;
	int i, status = 1, calls_seen;
	unsigned long lost, len;

	i = local_options(argc, argv, &o, &scope);
	if (i) {
		status = i > 0 ? 0 : 1;
		goto out;
	}
	if (!o.func || !o.var) {
		err_msg("give FUNC and VAR (ksym-ctl local --help)\n");
		goto out;
	}
	if ((o.command != NULL) + (o.ms > 0) > 1) {
		err_msg("give one of COMMAND and -d: how long the hunt runs\n");
		goto out;
	}
	if (ksym_check())
		goto out;
	if (!tracefs_file_exists(NULL, "ksym_trigger_slots")) {
		err_msg("this kernel's ksym tracer has no ksym_watch triggers (no ksym_trigger_slots)\n");
		goto out;
	}
	if (scope.nr_pids && scope_find_threads(&scope, "/proc"))
		goto out;
	syms = ksym_read_text("/proc/kallsyms");
	if (!syms || kallsyms_load(&ks, syms)) {
		err_msg("/proc/kallsyms shows no addresses (kptr_restrict, or not root)\n");
		goto out;
	}
	if (function_module(&ks, o.func, module, sizeof(module)) ||
	    find_local(o.debuginfo, module, o.func, o.var, &dl, &file))
		goto out;
	if (dl.machine != host_machine()) {
		err_msg("%s is for another architecture (ELF machine %d) than this kernel's\n",
			file, dl.machine);
		goto out;
	}
	if (strcmp(dl.func, o.func) && !kallsyms_addr(&ks, dl.func)) {
		err_msg("%s (the copy of %s in %s) is not in /proc/kallsyms: the DWARF is of another build than the running kernel\n",
			dl.func, o.func, file);
		goto out;
	}
	if (strcmp(dl.func, o.func))
		err_msg("note: %s is %s, the one copy the compiler made of it\n",
			o.func, dl.func);
	len = watch_len(&dl);
	if (dl.size > len)
		err_msg("note: %s is %lu bytes; the watch covers its first %lu (name a field to watch another part)\n",
			o.var, dl.size, len);
	debug_msg("%s %s: fbreg %ld, CFA entry+%ld, field +%ld: $stack%+ld, %lu bytes, prologue %lu, from %s\n",
		  dl.func, o.var, dl.fbreg, dl.cfa_entry, dl.field, dl.offset,
		  len, dl.prologue, file);
	sp_off(off, sizeof(off), dl.offset);
	sp_off(back, sizeof(back), -return_sp_delta(dl.machine));
	filter = scope.nr_pids ? pid_filter(&scope) : NULL;
	if (scope.nr_pids && !filter)
		goto out;
	probes.fprobe = o.fprobe;
	if (o.outermost && o.fprobe) {
		err_msg("--outermost goes with kprobes only: an fprobe's return handler may replace the return address before the entry's reads it\n");
		goto out;
	}
	if (o.outermost) {
		unsigned long long fstart, fend;

		probes.ret_fetch = return_address_fetch(dl.machine);
		if (!probes.ret_fetch ||
		    kallsyms_extent(&ks, dl.func, &fstart, &fend)) {
			err_msg("--outermost: the return address or the extent of %s is not known here\n",
				dl.func);
			goto out;
		}
		/* Calls not made by the function itself: the outermost of a recursion. */
		if (asprintf(&tfilter, "%s%s%sret < 0x%llx || ret >= 0x%llx%s",
			     filter ? "(" : "", filter ? filter : "",
			     filter ? ") && (" : "", fstart, fend,
			     filter ? ")" : "") < 0) {
			tfilter = NULL;
			goto out;
		}
	} else if (filter && !(tfilter = strdup(filter))) {
		goto out;
	}

	ksym_catch_signals();
	if (o.command && ksym_cmd_fork(&cmd, o.command))
		goto out;
	if (ksym_session_create(&s, "local") ||
	    probes_create(&probes, &s, dl.func))
		goto abort;
	if (asprintf(&watch, "%s:in:ksym_watch:(void *)sp%s/%lu:%s%s%s", probes.group,
		     off, len, o.write_only ? "-w-" : "rw-", tfilter ? " if " : "",
		     tfilter ? tfilter : "") < 0 ||
	    asprintf(&unwatch, "%s:out:ksym_unwatch:(void *)sp%s", probes.group, back) < 0) {
		watch = unwatch = NULL;
		goto abort;
	}
	if (ksym_session_has_option(&s, "ksym-stack") &&
	    ksym_session_option(&s, "ksym-stack", true))
		goto abort;
	snprintf(ev, sizeof(ev), "%s:in", probes.group);
	if (ksym_session_event(&s, ev, filter))
		goto abort;
	snprintf(ev, sizeof(ev), "%s:out", probes.group);
	if (ksym_session_event(&s, ev, filter) ||
	    ksym_session_instance(&s, "local", true, true))
		goto abort;
	run.d = &d;
	run.ret_delta = return_sp_delta(dl.machine);
	if (run_open(&run, &s, &probes))
		goto abort;
	/* The unwatch first: no call's watch can outlive its return. */
	if (strv_add(&s.triggers, unwatch) || strv_add(&s.triggers, watch))
		goto abort;
	snprintf(slots_text, sizeof(slots_text), "%d", o.slots);
	if (o.slots ? ksym_session_set_triggers_with(&s, "ksym_trigger_slots", slots_text) :
		      ksym_session_set_triggers(&s))
		goto abort;
	if (ksym_stop)
		goto abort;

	if (o.command) {
		ksym_cmd_start(&cmd);
		status = ksym_cmd_wait_tick(&cmd, local_tick, &run, 100);
	} else {
		if (scope.nr_pids && o.ms < 0)
			scope_wait(&scope, "/proc", &ksym_stop, local_tick, &run, 100);
		else
			scope_sleep(o.ms, &ksym_stop, NULL, local_tick, &run);
		status = 0;
	}
	/* The triggers off first, then the last entries and the counts. */
	snprintf(event, sizeof(event), "%s:in", probes.group);
	hunt_coverage(&s, event, &cov);
	ksym_session_clear_triggers(&s);
	tracefs_trace_off(s.inst);
	local_tick(&run);
	lost = ksym_session_lost(&s);
	if (lost > d.lost)
		d.lost = lost;
	ksym_pipe_close(run.pipe);
	run.pipe = NULL;
	ksym_session_restore(&s);
	probes_remove(&probes);
	if (run.err) {
		if (!status)
			status = 1;
		goto cleanup;
	}
	{
		struct hunt_tasks t[] = {
			HUNT_TASKS(d.calls, d.nr_calls), HUNT_TASKS(d.writes, d.nr_writes),
		};

		hunt_name_tasks(run.tep, t, 2);
	}
	calls_seen = d.nr_calls;
	{
		struct local_target t = {
			.func = dl.func, .var = o.var, .type = dl.type,
			.debuginfo = file, .offset = dl.offset, .fbreg = dl.fbreg,
			.cfa_entry = dl.cfa_entry, .len = len, .size = dl.size,
			.prologue = dl.prologue, .write_only = o.write_only,
		};
		struct local_report rep = {
			.target = &t, .cov = &cov, .calls_seen = calls_seen,
			.verbose = o.verbose,
		};

		if (scope.nr_pids) {
			pids = scope_pid_text(&scope);
			rep.pids = pids;
		}
		scope_title(title, sizeof(title), o.command, &scope);
		if (o.command || scope.nr_pids)
			rep.title = title;
		local_analyze(&d, &t, &ks);
		if (o.json)
			local_print_json(stdout, &d, &rep, &ks);
		else
			local_print(stdout, &d, &rep, &ks);
	}
	if (ksym_stdout_failed() && !status)
		status = 1;
	goto cleanup;

abort:
	ksym_cmd_abort(&cmd);
	status = 1;
cleanup:
	ksym_pipe_close(run.pipe);
	ksym_session_restore(&s);
	probes_remove(&probes);
out:
	if (run.tep)
		tep_free(run.tep);
	local_data_free(&d);
	kallsyms_free(&ks);
	scope_free(&scope);
	free(file);
	free(filter);
	free(tfilter);
	free(watch);
	free(unwatch);
	free(pids);
	return status;
}
