// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: the use-after-free hunt as one command. In an instance of
 * its own, with the ksym tracer current (and its ksym-stack option on):
 *
 *   the free event, filtered, enabled, with a stacktrace trigger (the
 *   free's callchain) and a ksym_watch trigger (a word of the freed
 *   object, in one of -s slots);
 *   the allocation event, filtered, enabled, with a ksym_unwatch trigger;
 *
 * and, in a second instance, kmem:mm_page_alloc (an emptied slab page
 * given out again; the direct map's base, to tell its pfn from an address,
 * is learnt from a large kmalloc of our own, direct_map_probe()), so that
 * a flood of them cannot push out the frees (review 11-28 L9); the buffers
 * are read every 100 ms,
 * through files kept open, while COMMAND runs (or -p's tasks, or for -d
 * SECONDS, or until Ctrl-C); then the row of the watch trigger in
 * trace_stat/ksym_triggers is read (the frees watched and missed),
 * everything is put back, and uaf_pair.c pairs each hit with its free and
 * uaf_print.c prints the uses after free. ksym_trigger_slots (-s) is
 * claimed like a tracer option for the moment the triggers are made (the
 * kernel reads it then) and given back at once; the instances are
 * ksym-ctl-uaf-PID-RANDOM and ksym-ctl-uaf-pages-PID-RANDOM, which
 * ksym-ctl reset removes after a killed run.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include "fields.h"
#include "hunt.h"
#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "scope.h"
#include "uaf.h"
#include "uaf_read.h"

#define SLAB_DIR	"/sys/kernel/slab"

static void uaf_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl uaf (--cache NAME | --kfree-site [MODULE:]FUNC[@0xADDR]) [--offset OFF]\n"
		"                    [--len LEN] [-w] [--type 'struct T' --field PATH]\n"
		"                    [--size BYTES] [-s SLOTS] [-j] [-v]\n"
		"                    [-- COMMAND [ARG...] | -p PID[,PID...] | -d SECONDS]\n"
		"\n"
		"Hunt uses after free: each freed object of a slab cache (--cache), or\n"
		"each object kfree()d by a function (--kfree-site), has one word watched\n"
		"from its free until it is allocated again; every access to it meanwhile\n"
		"is printed with its accessor and callchain, the object and offset, the\n"
		"value (and the old one), the time since the free and the free's call\n"
		"site and callchain. Accesses by the allocator itself (SLUB's free\n"
		"pointer, init_on_alloc, KASAN's free track, the page allocator), and\n"
		"those after the object, or its slab page, was given out again, are\n"
		"counted apart, not listed (-v lists them). Runs while COMMAND runs,\n"
		"until the tasks of -p exit, for -d SECONDS, or (none of them) until\n"
		"Ctrl-C.\n"
		"\n"
		"This is sampling, like KFENCE: a free is watched only when it finds one\n"
		"of the SLOTS free (each is a debug register on every CPU: 4 on x86,\n"
		"shared with perf and gdb); the coverage line says how many frees were\n"
		"seen, watched and missed. A missed free is not known to be clean.\n"
		"\n"
		"options:\n"
		"  -c, --cache NAME      objects of slab cache NAME freed with\n"
		"                        kmem_cache_free() (kmem:kmem_cache_free, by its\n"
		"                        name); watched until kmem:kmem_cache_alloc gives\n"
		"                        out an object of its size\n"
		"                        (/sys/kernel/slab/NAME/object_size) again\n"
		"  -k, --kfree-site FUNC objects kfree()d from within FUNC (kmem:kfree,\n"
		"                        by call site: FUNC's bytes in /proc/kallsyms;\n"
		"                        a tail-called kfree() counts for FUNC's caller);\n"
		"                        watched until kmem:kmalloc or kmem_cache_alloc\n"
		"                        (kfree() takes named caches' objects too) gives\n"
		"                        out the object again. kfree has only call_site\n"
		"                        and ptr: objects cannot be chosen by size there\n"
		"                        (no --size). A name several functions have is\n"
		"                        refused with their list: MODULE:FUNC or\n"
		"                        FUNC@0xADDR says which\n"
		"  -o, --offset OFF      the word's offset in the object (default 0; past\n"
		"                        --field, if given). SLUB keeps its free pointer\n"
		"                        at ALIGN_DOWN(object_size / 2, 8): word 0 of an\n"
		"                        object of 16 bytes or more is not written by\n"
		"                        the allocator on free\n"
		"  -l, --len LEN         the word's bytes: 1, 2, 4 or 8 (default 8, or\n"
		"                        the field's size)\n"
		"  -w, --write           writes only (-w-); default: reads and writes\n"
		"                        (rw-), which x86 does not tell apart\n"
		"      --type 'struct T' --field PATH\n"
		"                        watch member PATH of the objects, typed T by\n"
		"                        BTF: ksym_watch:(struct T)ptr.PATH\n"
		"      --size BYTES      the objects' size, when /sys/kernel/slab cannot\n"
		"                        say it (--cache only; refused when it says\n"
		"                        another)\n"
		"  -s, --slots SLOTS     objects watched at once, 1-4 (ksym_trigger_slots,\n"
		"                        set for the moment the trigger is made, then\n"
		"                        given back); default: ksym_trigger_slots as it is\n"
		"  -p, --pid PID[,PID...]\n"
		"                        run until these tasks exit (or Ctrl-C); every\n"
		"                        task's accesses are seen\n"
		"  -d, --duration SECONDS\n"
		"                        run this long (1, 0.5, 250ms), or until Ctrl-C\n"
		"  -j, --json            print JSON: findings, accessors, counts, coverage\n"
		"  -v, --verbose         also list the accesses that are not uses after\n"
		"                        free: the allocator's, after reallocation, without\n"
		"                        a free seen\n"
		"\n"
		"Exit status: 0 when the hunt ran, whether or not it found a use after\n"
		"free (COMMAND's status when COMMAND failed); 1 on an error. Everything\n"
		"it set (instances, events, triggers, tracer, ksym-stack, slots) is put\n"
		"back on exit, SIGINT, SIGTERM, SIGHUP and SIGQUIT; 'ksym-ctl reset'\n"
		"removes what a killed run left.\n"
		"\n"
		"examples:\n"
		"  ksym-ctl uaf --cache ksym_hitgen_cache -s 4 -- \\\n"
		"        sh -c 'echo 3 > /sys/kernel/debug/ksym_hitgen/uaf'\n"
		"  ksym-ctl uaf --cache ksym_hitgen_cache --json -- \\\n"
		"        sh -c 'echo 50 > /sys/kernel/debug/ksym_hitgen/cache_loop'\n"
		"  ksym-ctl uaf --cache ext4_inode_cache --offset 0x10 -w -d 60\n"
		"  ksym-ctl uaf --kfree-site ksym_hitgen_object -- \\\n"
		"        sh -c 'echo 1 > /sys/kernel/debug/ksym_hitgen/object'\n"
		"  ksym-ctl uaf --kfree-site my_release --type 'struct my_ctx' \\\n"
		"        --field state -s 4 -p 1234  # until 1234 exits\n"
		"\n"
		"kmem:kfree's call_site is kfree()'s return address: a tail call\n"
		"('return kfree(p)' compiled as a jump) credits the caller's caller, so\n"
		"--kfree-site then names that function, not the one with the kfree().\n"
		"An object handed out again without an allocation event\n"
		"(kmem_cache_alloc_bulk) stays watched while live: hits before its next\n"
		"free are counted as 'reallocated, not seen'. Caches that are\n"
		"SLAB_TYPESAFE_BY_RCU (filp, sighand_cache, anon_vma...) may be read\n"
		"after free by design: a warning says so.\n");
}

/*
 * The objects' size, from /sys/kernel/slab/NAME/object_size (0 when it
 * cannot say), and whether the cache is SLAB_TYPESAFE_BY_RCU; a cache
 * merged with others gets a warning, and so does an RCU one. -1 with a
 * message when /sys/kernel/slab has no such cache. @size_given: --size
 * gave it, unknown is no news.
 */
static int slab_object_size(const char *cache, unsigned long *size,
			    bool *rcu, bool size_given, struct strv *warnings)
{
	char path[300], link[300], other[600], target[300], *text, *w = NULL;
	struct strv merged = { 0 };
	struct dirent *d;
	struct stat st;
	ssize_t n;
	DIR *dp;

	*size = 0;
	*rcu = false;
	snprintf(path, sizeof(path), SLAB_DIR "/%s", cache);
	if (lstat(path, &st)) {
		if (!access(SLAB_DIR, F_OK)) {
			err_msg("--cache %s: no such slab cache (ls %s)\n", cache, SLAB_DIR);
			return -1;
		}
		if (size_given)
			return 0;
		return strv_add(warnings, "no " SLAB_DIR ": the object size is not known, allocations are not filtered by size (--size gives it)");
	}
	/* A mergeable cache is a link to ":ID"; merged ones share it. */
	n = S_ISLNK(st.st_mode) ? readlink(path, link, sizeof(link) - 1) : -1;
	dp = n > 0 ? opendir(SLAB_DIR) : NULL;
	if (dp)
		link[n] = '\0';
	while (dp && (d = readdir(dp))) {
		ssize_t m;

		snprintf(other, sizeof(other), SLAB_DIR "/%s", d->d_name);
		m = strcmp(d->d_name, cache) ? readlink(other, target, sizeof(target) - 1) : -1;
		if (m == n && !strncmp(target, link, n))
			strv_add(&merged, d->d_name);
	}
	if (dp)
		closedir(dp);
	if (merged.n && asprintf(&w, "%s is merged with %d other cache%s (%s%s): kmem_cache_free names them all by the first one's name, so its frees may be seen under another name (boot with slab_nomerge)",
				 cache, merged.n, merged.n == 1 ? "" : "s", merged.v[0],
				 merged.n > 1 ? ", ..." : "") >= 0) {
		strv_add(warnings, w);
		free(w);
	}
	strv_free(&merged);
	snprintf(path, sizeof(path), SLAB_DIR "/%s/object_size", cache);
	text = ksym_read_text(path);
	if (text) {
		*size = strtoul(text, NULL, 10);
		free(text);
	}
	snprintf(path, sizeof(path), SLAB_DIR "/%s/destroy_by_rcu", cache);
	text = ksym_read_text(path);
	if (text) {
		*rcu = strtoul(text, NULL, 10) != 0;
		free(text);
	}
	if (*rcu && asprintf(&w, "%s is SLAB_TYPESAFE_BY_RCU (destroy_by_rcu): its objects may be read after free by design, under RCU, until a grace period ends; such reads are listed as uses after free",
			     cache) >= 0) {
		strv_add(warnings, w);
		free(w);
	}
	if (!*size && !size_given)
		return strv_add(warnings, "the object size is not known (" SLAB_DIR "): allocations are not filtered by size (--size gives it)");
	return 0;
}

/*
 * The tracer's option ksym-changes (global) leaves out the accesses that
 * do not change the value: the reads after free. Refused while it is on.
 * 0, or -1 with a message saying so.
 */
static int changes_refused(struct ksym_session *s)
{
	long long on = 0;

	if (!ksym_session_has_option(s, "ksym-changes") ||
	    tracefs_instance_file_read_number(NULL, "options/ksym-changes", &on) ||
	    !on)
		return 0;
	err_msg("the tracer option ksym-changes is on: the ksym tracer then leaves out the accesses that leave the value as it was, i.e. the reads after free; uaf refuses to hunt with it (echo 0 > options/ksym-changes, or wait for the run that set it)\n");
	return -1;
}

/* --kfree-site [MODULE:]FUNC[@0xADDR]: its bytes, from /proc/kallsyms. */
static int site_extent(struct uaf_spec *sp)
{
	struct kallsyms ks;
	char *text = ksym_read_text("/proc/kallsyms"), *why = NULL;
	int ret = -1;

	if (!text) {
		err_msg("/proc/kallsyms: %s\n", strerror(errno));
		return -1;
	}
	if (kallsyms_load(&ks, text)) {
		err_msg("/proc/kallsyms shows no addresses (kptr_restrict, or not root)\n");
		goto out;
	}
	if (kallsyms_function(&ks, sp->site, &sp->site_start, &sp->site_end, &why)) {
		err_msg("%s", why ? why : "out of memory\n");
		goto out;
	}
	debug_msg("%s: [0x%llx, 0x%llx)\n", sp->site, sp->site_start, sp->site_end);
	ret = 0;
out:
	kallsyms_free(&ks);
	free(why);
	return ret;
}

/* --type and --field: the field's offset and size, from BTF. */
static int field_extent(struct uaf_spec *sp)
{
	struct fields fs;
	char *arg;
	int ret;

	if (asprintf(&arg, "%s.%s", sp->type, sp->field) < 0)
		return -1;
	ret = fields_lookup(FIELDS_BTF, arg, 0, &fs);
	free(arg);
	if (ret)
		return -1;
	sp->field_offset = fs.offset;
	sp->field_size = fs.size;
	fields_free(&fs);
	return 0;
}

/*
 * A large kmalloc of our own: a pipe's ring grown to 256 slots is a
 * kcalloc() of 10 KiB, past the kmalloc caches (8 KiB with 4 KiB pages),
 * so the page allocator gives it pages (kmem:mm_page_alloc, their pfn) and
 * kmem:kmalloc its address: uaf_read.c learns the direct map's base from
 * them.
 */
static void direct_map_probe(void)
{
	int fds[2];

	if (pipe(fds))
		return;
	if (fcntl(fds[1], F_SETPIPE_SZ, 256 * getpagesize()) < 0)
		debug_msg("F_SETPIPE_SZ: %s: the direct map's base is not learnt\n",
			  strerror(errno));
	close(fds[0]);
	close(fds[1]);
}

/* Sub-buffers read from each CPU per tick: one busy CPU cannot starve the others. */
#define UAF_TICK_PAGES	64
/*
 * The page allocations have an instance of their own (review 11-28 L9),
 * with a larger buffer (uaf_pages_buffer_kb()): a flood of
 * kmem:mm_page_alloc (a page-heavy load) can push out page allocations
 * only, never a free, an allocation or a hit. A tick reads past
 * UAF_TICK_PAGES for as long as a CPU it left with more has its buffer
 * more than half full.
 */

/* One instance's buffers. */
struct uaf_stream {
	struct ksym_session	*s;
	struct ksym_pipe	*pipe;
	bool			pages;	/* the page allocations' instance */
	unsigned long		buffer_kb;	/* per CPU */
	bool			more;	/* a CPU left more than half full */
};

/* What is read from the instances' buffers, and how. */
struct uaf_run {
	struct tep_handle	*tep;
	struct uaf_stream	frees, pages;
	struct uaf_stream	*cur;	/* being read */
	struct uaf_reader	*rd;
	int			err;
};

static int read_record(struct tep_record *rec, int cpu, void *arg)
{
	struct uaf_run *run = arg;
	int ret = run->cur->pages ? uaf_reader_add_pages(run->rd, rec, cpu) :
				    uaf_reader_add(run->rd, rec, cpu);

	if (ret) {
		err_msg("out of memory: the rest of the events are not kept\n");
		run->err = -1;
	}
	return run->err;
}

/*
 * Take the entries out of the buffers (every 100 ms: they must not fill
 * up), through files kept open: reading allocates no page, which could be
 * the page of an object just freed, as its slab page (uaf_read.c). Only a
 * CPU left with more reads its stats (a kmalloc of the kernel's).
 */
static void read_capped(int cpu, void *arg)
{
	struct uaf_run *run = arg;
	struct uaf_stream *st = run->cur;
	char file[64], *stats;

	if (!st->pages)
		uaf_reader_capped(run->rd, cpu);
	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	stats = tracefs_instance_file_read(st->s->inst, file, NULL);
	if (uaf_buffer_half_full(stats, st->buffer_kb))
		st->more = true;
	free(stats);
}

/* One instance: the page allocations before the frees that judge them. */
static void read_stream(struct uaf_run *run, struct uaf_stream *st)
{
	do {
		if (!st->pipe || !run->rd || run->err)
			return;
		st->more = false;
		run->cur = st;
		if (!ksym_pipe_read_some(st->pipe, UAF_TICK_PAGES, read_record,
					 read_capped, run) &&
		    !st->pages && uaf_reader_tick(run->rd, false)) {
			err_msg("out of memory: the rest of the events are not kept\n");
			run->err = -1;
		}
	} while (st->more && !ksym_stop);
}

static void uaf_tick(void *arg)
{
	struct uaf_run *run = arg;

	read_stream(run, &run->pages);
	read_stream(run, &run->frees);
}

/* The last entries, every CPU drained, and all that was read judged. */
static void uaf_drain(struct uaf_run *run)
{
	struct uaf_stream *st[] = { &run->pages, &run->frees };
	int i;

	for (i = 0; i < 2; i++) {
		if (!st[i]->pipe || !run->rd || run->err)
			return;
		run->cur = st[i];
		if (ksym_pipe_read(st[i]->pipe, read_record, run))
			return;
	}
	if (uaf_reader_tick(run->rd, true)) {
		err_msg("out of memory: the rest of the events are not kept\n");
		run->err = -1;
	}
}

/* The instance's buffers sized, and one clock for all CPUs and instances. */
static int uaf_buffers(struct ksym_session *s, unsigned long kb)
{
	if (tracefs_instance_set_buffer_size(s->inst, kb, -1) < 0)
		debug_msg("buffer_size_kb %lu: %s\n", kb, strerror(errno));
	if (tracefs_instance_file_write(s->inst, "trace_clock", "mono") < 0) {
		err_msg("warning: no trace_clock mono: the times across CPUs are the default clock's, and a hit may be paired with the wrong free\n");
		return -1;
	}
	return 0;
}

/*
 * The page allocations' instance (ksym-ctl-uaf-pages-PID-RANDOM): every
 * kmem:mm_page_alloc (a slab page given out again) and, with @probe_filter
 * (--cache), the large kmallocs that tell the direct map's base; of every
 * task (no -p), on before the frees' instance.
 */
static int pages_open(struct ksym_session *ps, const char *probe_filter,
		      unsigned long kb)
{
	if (ksym_session_create(ps, "uaf-pages"))
		return -1;
	uaf_buffers(ps, kb);
	return ksym_session_event(ps, "kmem:mm_page_alloc", NULL) ||
	       (probe_filter && ksym_session_event(ps, "kmem:kmalloc", probe_filter)) ||
	       ksym_session_instance(ps, "uaf-pages", true, false) ? -1 : 0;
}

/*
 * COMMAND after the options ("--" ends them): *@cmd, NULL without one; -1
 * with a message for arguments that are not after "--".
 */
static int uaf_command(int argc, char **argv, char ***cmd)
{
	*cmd = NULL;
	if (optind > 1 && !strcmp(argv[optind - 1], "--")) {
		if (optind < argc)
			*cmd = &argv[optind];
		else
			err_msg("no COMMAND after '--' (e.g. -- sleep 1)\n");
		return *cmd ? 0 : -1;
	}
	if (optind < argc) {
		err_msg("'%s': uaf takes no SPEC; give COMMAND after '--'\n", argv[optind]);
		return -1;
	}
	return 0;
}

enum { OPT_TYPE = 256, OPT_FIELD, OPT_SIZE };

/* The options; 0, 1 when --help was printed, -1 on an error. */
static int uaf_options(int argc, char **argv, struct uaf_spec *sp,
		       struct ksym_scope *scope, int *slots, long *ms,
		       bool *json, bool *verbose, bool *size_given)
{
	static const struct option opts[] = {
		{ "cache", required_argument, NULL, 'c' },
		{ "kfree-site", required_argument, NULL, 'k' },
		{ "offset", required_argument, NULL, 'o' },
		{ "len", required_argument, NULL, 'l' },
		{ "write", no_argument, NULL, 'w' },
		{ "type", required_argument, NULL, OPT_TYPE },
		{ "field", required_argument, NULL, OPT_FIELD },
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "slots", required_argument, NULL, 's' },
		{ "pid", required_argument, NULL, 'p' },
		{ "duration", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	long v;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+c:k:o:l:ws:p:d:jvh", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (uaf_check_cache_name(optarg))
				return -1;
			sp->cache = optarg;
			break;
		case 'k':
			sp->site = optarg;
			break;
		case 'o':
			if (uaf_parse_offset(optarg, &sp->offset))
				return -1;
			break;
		case 'l':
			if (uaf_parse_len(optarg, &sp->len))
				return -1;
			break;
		case 'w':
			sp->write_only = true;
			break;
		case OPT_TYPE:
			if (uaf_check_type(optarg))
				return -1;
			sp->type = optarg;
			break;
		case OPT_FIELD:
			if (uaf_check_field(optarg))
				return -1;
			sp->field = optarg;
			break;
		case OPT_SIZE:
			v = parse_count(optarg);
			if (v <= 0 || v > 4 * 1024 * 1024) {
				err_msg("--size %s: not a size in bytes\n", optarg);
				return -1;
			}
			sp->object_size = v;
			*size_given = true;
			break;
		case 's':
			if (uaf_parse_slots(optarg, slots))
				return -1;
			break;
		case 'd':
			*ms = parse_duration_ms(optarg);
			if (*ms < 0) {
				err_msg("-d %s: not a time in seconds (1, 0.5, 250ms)\n", optarg);
				return -1;
			}
			break;
		case 'j':
			*json = true;
			break;
		case 'v':
			*verbose = true;
			break;
		case 'h':
			uaf_usage(stdout);
			return 1;
		case 'p':
			if (scope_option(scope, c, optarg, NULL) > 0)
				break;
			return -1;
		default:
			uaf_usage(stderr);
			return -1;
		}
	}
	return 0;
}

/* The options together; 0, or -1 with a message. */
static int uaf_check(struct uaf_spec *sp, const struct ksym_scope *scope,
		     long ms, char **command, bool size_given)
{
	if (!sp->cache == !sp->site) {
		err_msg("give one of --cache NAME (objects of a slab cache) and --kfree-site FUNC (objects kfree()d there)\n");
		return -1;
	}
	sp->mode = sp->cache ? UAF_CACHE : UAF_KFREE;
	if (sp->mode == UAF_KFREE && size_given) {
		err_msg("--size cannot go with --kfree-site: kmem:kfree has only call_site and ptr, so kfree()d objects cannot be chosen by size; the call site chooses them\n");
		return -1;
	}
	if (!sp->type != !sp->field) {
		err_msg("--type and --field go together: the free events' ptr is a void *, --type names the objects' struct\n");
		return -1;
	}
	if ((command != NULL) + (scope->nr_pids > 0) + (ms > 0) > 1) {
		err_msg("give one of COMMAND, -p and -d: how long the hunt runs\n");
		return -1;
	}
	return 0;
}

int uaf_main(int argc, char **argv)
{
	static const char * const systems[] = { "ksym", "kmem", "ftrace", NULL };
	struct ksym_session s = KSYM_SESSION_INIT, ps = KSYM_SESSION_INIT;
	struct ksym_cmd cmd = { .pid = -1, .go_fd = -1 };
	struct ksym_scope scope = { 0 };
	struct uaf_spec sp = { 0 };
	struct uaf_data d = { 0 };
	struct uaf_coverage cov = { 0 };
	struct uaf_run run = { 0 };
	struct strv warnings = { 0 };
	struct kallsyms ks = { 0 };
	char *free_filter = NULL, *alloc_filter = NULL, *watch = NULL,
	     *unwatch = NULL, *unwatch2 = NULL, *stack = NULL, *hit_name = NULL,
	     *syms;
	char **command = NULL, title[512], slots_text[16], probe_filter[32];
	struct uaf_reader_opts ro = { 0 };
	bool json = false, verbose = false, size_given = false, has_stack, rcu = false;
	unsigned long given_size;
	int i, slots = 0, status = 1;
	unsigned long lost;
	long ms = -1;

	i = uaf_options(argc, argv, &sp, &scope, &slots, &ms, &json, &verbose,
			&size_given);
	if (i) {
		status = i > 0 ? 0 : 1;
		goto out;
	}
	if (uaf_command(argc, argv, &command) ||
	    uaf_check(&sp, &scope, ms, command, size_given))
		goto out;
	if (ksym_check())
		goto out;
	if (!tracefs_file_exists(NULL, "ksym_trigger_slots")) {
		err_msg("this kernel's ksym tracer has no ksym_watch triggers (no ksym_trigger_slots)\n");
		goto out;
	}
	if (scope.nr_pids && scope_find_threads(&scope, "/proc"))
		goto out;
	given_size = sp.object_size;
	if (sp.mode == UAF_CACHE &&
	    slab_object_size(sp.cache, &sp.object_size, &rcu, size_given, &warnings))
		goto out;
	/* --size goes into the unwatch filter: it must not contradict sysfs. */
	if (size_given && sp.object_size && sp.object_size != given_size) {
		err_msg("--size %lu: %s/%s/object_size says %lu; --size is for when it cannot say\n",
			given_size, SLAB_DIR, sp.cache, sp.object_size);
		goto out;
	}
	if (size_given)
		sp.object_size = given_size;
	if ((sp.mode == UAF_KFREE && site_extent(&sp)) ||
	    (sp.field && field_extent(&sp)) ||
	    uaf_spec_finish(&sp, &warnings))
		goto out;
	for (i = 0; i < warnings.n; i++)
		err_msg("warning: %s\n", warnings.v[i]);
	free_filter = uaf_free_filter(&sp);
	alloc_filter = uaf_alloc_filter(&sp);
	watch = uaf_watch_trigger(&sp);
	unwatch = uaf_unwatch_trigger(&sp);
	unwatch2 = uaf_unwatch_trigger2(&sp);
	stack = uaf_stack_trigger(&sp);
	hit_name = uaf_hit_name(&sp);
	if (!free_filter || !watch || !unwatch || !stack || !hit_name ||
	    (uaf_alloc_event2(&sp) && !unwatch2))
		goto out;

	ksym_catch_signals();
	if (command && ksym_cmd_fork(&cmd, command))
		goto out;
	if (ksym_session_create(&s, "uaf"))
		goto abort;
	/* One clock for all CPUs: the time from a free to a hit on another. */
	uaf_buffers(&s, UAF_BUFFER_KB);
	run.frees.buffer_kb = UAF_BUFFER_KB;
	run.pages.buffer_kb = uaf_pages_buffer_kb((unsigned long long)sysconf(_SC_PHYS_PAGES) *
						  (getpagesize() / 1024),
						  sysconf(_SC_NPROCESSORS_CONF));
	if (changes_refused(&s))
		goto abort;
	has_stack = ksym_session_has_option(&s, "ksym-stack");
	if (!has_stack)
		err_msg("warning: this kernel has no ksym-stack option: the accesses have no callchain, the allocator's are told by their ip only (memset and the like by the allocation event right after)\n");
	/*
	 * The events first (a free is recorded before its trigger fires),
	 * the page allocations (a slab page given out again) and, in --cache
	 * mode, our own kmallocs (the direct map's base); then the
	 * allocation's unwatch, the free's stack, the free's watch.
	 */
	/*
	 * Only large kmallocs (their own pages): ours, or any task's, tell the
	 * base alike; not common_pid, which inside a PID namespace is not
	 * getpid() (review 11-28 L8).
	 */
	snprintf(probe_filter, sizeof(probe_filter), "bytes_alloc > %d", 2 * getpagesize());
	if ((has_stack && ksym_session_option(&s, "ksym-stack", true)) ||
	    ksym_session_event(&s, uaf_free_event(&sp), free_filter) ||
	    ksym_session_event(&s, uaf_alloc_event(&sp), alloc_filter) ||
	    (uaf_alloc_event2(&sp) &&
	     ksym_session_event(&s, uaf_alloc_event2(&sp), NULL)) ||
	    pages_open(&ps, sp.mode == UAF_CACHE ? probe_filter : NULL,
		       run.pages.buffer_kb) ||
	    ksym_session_instance(&s, "uaf", true, true))
		goto abort;
	run.tep = tracefs_local_events_system(NULL, systems);
	ro.hit_name = hit_name;
	ro.free_event = uaf_free_event(&sp);
	ro.alloc_event = uaf_alloc_event(&sp);
	ro.alloc_event2 = uaf_alloc_event2(&sp);
	ro.extent = uaf_object_extent(&sp);
	ro.word_offset = uaf_word_offset(&sp);
	ro.word_len = uaf_word_len(&sp);
	ro.base_pid = -1;
	ro.page_size = getpagesize();
	run.frees.s = &s;
	run.pages.s = &ps;
	run.pages.pages = true;
	if (!run.tep || uaf_reader_new(run.tep, &d, &ro, &run.rd) ||
	    !(run.frees.pipe = ksym_pipe_open(&s, run.tep)) ||
	    !(run.pages.pipe = ksym_pipe_open(&ps, run.tep)))
		goto abort;
	/* The direct map's base; tried again once when not learnt. */
	direct_map_probe();
	uaf_tick(&run);
	if (!d.base_known) {
		direct_map_probe();
		uaf_tick(&run);
	}
	debug_msg("direct map: %s 0x%llx\n", d.base_known ? "base" : "no base",
		  d.page_base);
	if (!d.base_known)
		err_msg("warning: the direct map's base is %s: an access after an object's slab page was given out again by the page allocator is not told apart from a use after free\n",
			d.base_bad ? "not trusted (the one learnt failed its checks)" : "not known");
	if (strv_add(&s.triggers, unwatch) ||
	    (unwatch2 && strv_add(&s.triggers, unwatch2)) ||
	    strv_add(&s.triggers, stack) ||
	    strv_add(&s.triggers, watch))
		goto abort;
	snprintf(slots_text, sizeof(slots_text), "%d", slots);
	if (slots ? ksym_session_set_triggers_with(&s, "ksym_trigger_slots", slots_text) :
		    ksym_session_set_triggers(&s))
		goto abort;
	if (ksym_stop)
		goto abort;

	if (command) {
		ksym_cmd_start(&cmd);
		status = ksym_cmd_wait_tick(&cmd, uaf_tick, &run, 100);
	} else {
		if (scope.nr_pids)
			scope_wait(&scope, "/proc", &ksym_stop, uaf_tick, &run, 100);
		else
			scope_sleep(ms, &ksym_stop, NULL, uaf_tick, &run);
		status = 0;
	}
	/* The last entries; then what the trigger counted, before it goes. */
	tracefs_trace_off(s.inst);
	tracefs_trace_off(ps.inst);
	uaf_drain(&run);
	hunt_coverage(&s, uaf_free_event(&sp), &cov);
	lost = ksym_session_lost(&s);
	if (lost > d.lost)
		d.lost = lost;
	lost = ksym_session_lost(&ps);
	if (lost > d.pages_lost)
		d.pages_lost = lost;
	/* The instances go: their files closed first. */
	ksym_pipe_close(run.frees.pipe);
	ksym_pipe_close(run.pages.pipe);
	run.frees.pipe = run.pages.pipe = NULL;
	ksym_session_restore(&s);
	ksym_session_restore(&ps);
	if (run.err) {
		if (!status)
			status = 1;
		goto cleanup;
	}

	{
		struct hunt_tasks t[] = {
			HUNT_TASKS(d.frees, d.nr_frees), HUNT_TASKS(d.hits, d.nr_hits),
		};

		hunt_name_tasks(run.tep, t, 2);
	}
	syms = ksym_read_text("/proc/kallsyms");
	if (!syms) {
		err_msg("/proc/kallsyms: %s: the functions are not named\n",
			strerror(errno));
	} else if (kallsyms_load(&ks, syms)) {
		err_msg("/proc/kallsyms shows no addresses: the functions are not named\n");
		kallsyms_free(&ks);
	}
	uaf_analyze(&d, uaf_object_extent(&sp), &ks);
	scope_title(title, sizeof(title), command, &scope);
	{
		struct uaf_report rep = {
			.spec = &sp, .cov = &cov, .verbose = verbose, .rcu_cache = rcu,
			.title = command || scope.nr_pids ? title : NULL,
			.exit_status = status,
		};

		if (json)
			uaf_print_json(stdout, &d, &rep, &ks);
		else
			uaf_print(stdout, &d, &rep, &ks);
	}
	if (ksym_stdout_failed() && !status)
		status = 1;
	goto cleanup;

abort:
	ksym_cmd_abort(&cmd);
	status = 1;
cleanup:
	ksym_pipe_close(run.frees.pipe);
	ksym_pipe_close(run.pages.pipe);
	ksym_session_restore(&s);
	ksym_session_restore(&ps);
out:
	uaf_reader_free(run.rd);
	if (run.tep)
		tep_free(run.tep);
	uaf_data_free(&d);
	kallsyms_free(&ks);
	strv_free(&warnings);
	scope_free(&scope);
	free(free_filter);
	free(alloc_filter);
	free(watch);
	free(unwatch);
	free(unwatch2);
	free(stack);
	free(hit_name);
	return status;
}
