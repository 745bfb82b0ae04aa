// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl uaf: the report, as text (uaf_print()) or JSON (uaf_print_json()).
 *
 * Owns: how the findings of uaf_analyze() are shown: each use after free
 * with its accessor, callchain (the tracing frames left out), free and
 * times; the accessors ranked; the other hits counted; the coverage and
 * what it means. Reads struct uaf_data after uaf_analyze() and never
 * changes it. Calls: uaf_pair.c's uaf_fn_name(), kallsyms.c (names),
 * utils.c (json_look(), json_print()) and json-c.
 */
#include <stdlib.h>
#include <string.h>

#include <json.h>

#include "uaf.h"

/* ------------------------------------------------------------------
 * The report.
 */

/* Frames of the stacktrace trigger itself, before the free's own. */
static bool tracing_function(const char *fn)
{
	static const char * const prefix[] = {
		"__traceiter_", "trace_event_", "event_trigger", "event_triggers_",
		"stacktrace_trigger", "stacktrace_count_trigger", "__trace_stack",
		"__ftrace_trace_stack", "ftrace_trace_stack", "trace_buffer_unlock_commit",
		"perf_trace_", "trace_dump_stack",
	};
	size_t i;

	for (i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (fn && !strncmp(fn, prefix[i], strlen(prefix[i])))
			return true;
	return false;
}

static void duration(char *buf, size_t size, unsigned long long ns)
{
	if (ns < 1000000ULL)
		snprintf(buf, size, "%.3f us", ns / 1e3);
	else if (ns < 1000000000ULL)
		snprintf(buf, size, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.3f s", ns / 1e9);
}

/* What the access was: rw- cannot tell a read from a write on x86. */
static const char *access_word(const struct uaf_hit *h)
{
	bool changed = h->has_value && h->has_old != UAF_OLD_NONE &&
		       h->old != h->value;

	if (h->access == 2)
		return "write";
	if (h->access == 1)
		return "read";
	return changed ? "write" : "read or write";
}

static const char *old_source(unsigned int has_old)
{
	switch (has_old) {
	case UAF_OLD_READ:
		return "read";
	case UAF_OLD_LAST:
		return "last";
	case UAF_OLD_STALE:
		return "stale";
	default:
		return "none";
	}
}

/* The frames of stack @idx to print: the tracing frames before the rest left out. */
static int stack_frames(const struct uaf_data *d, int idx,
			const struct kallsyms *ks, const unsigned long long **ip)
{
	const struct uaf_stack *s;
	int i = 0;

	if (idx < 0 || idx >= d->nr_stacks) {
		*ip = NULL;
		return 0;
	}
	s = &d->stacks[idx];
	while (i < s->nr && tracing_function(uaf_fn_name(ks, s->ip[i])))
		i++;
	*ip = s->ip + i;
	return s->nr - i;
}

static void print_stack(FILE *f, const struct uaf_data *d, int idx,
			const struct kallsyms *ks, const char *indent)
{
	const unsigned long long *ip;
	int i, nr = stack_frames(d, idx, ks, &ip);
	char name[300];

	if (!nr)
		fprintf(f, "%s(no callchain)\n", indent);
	for (i = 0; i < nr; i++) {
		kallsyms_name_off(ks, ip[i], name, sizeof(name));
		fprintf(f, "%s%s\n", indent, name);
	}
}

static void print_task(FILE *f, const char *comm, int pid, int cpu)
{
	if (*comm && strcmp(comm, "<...>"))
		fput_printable(f, comm);
	else
		fputs("task", f);
	fprintf(f, " (pid %d) on CPU %d", pid, cpu);
}

static void print_hit(FILE *f, const struct uaf_data *d, const struct uaf_hit *h,
		      const char *what, int n, const struct kallsyms *ks)
{
	const struct uaf_free *fr = h->free >= 0 ? &d->frees[h->free] : NULL;
	char name[300], site[300], since[32];

	kallsyms_name_off(ks, h->ip, name, sizeof(name));
	fprintf(f, "%s %d: %s by %s", what, n, access_word(h), name);
	if (fr) {
		duration(since, sizeof(since), h->ts - fr->ts);
		fprintf(f, ", %s after the free", since);
	}
	fputc('\n', f);
	if (fr)
		fprintf(f, "    object 0x%llx +0x%llx/%u:", fr->ptr, h->addr - fr->ptr,
			h->len);
	else
		fprintf(f, "    address 0x%llx/%u:", h->addr, h->len);
	if (h->has_value)
		fprintf(f, " value=0x%llx", h->value);
	else
		fputs(" value=unread", f);
	if (h->has_old == UAF_OLD_NONE)
		fputs(" old=none", f);
	else
		fprintf(f, " old=%s0x%llx", h->has_old == UAF_OLD_STALE ? "stale:" : "",
			h->old);
	fputc('\n', f);
	fputs("    accessed by ", f);
	print_task(f, h->comm, h->pid, h->cpu);
	fputs(":\n", f);
	print_stack(f, d, h->stack, ks, "        ");
	if (!fr)
		return;
	kallsyms_name_off(ks, fr->call_site, site, sizeof(site));
	fprintf(f, "    freed at %s by ", site);
	print_task(f, fr->comm, fr->pid, fr->cpu);
	fputs(":\n", f);
	print_stack(f, d, fr->stack, ks, "        ");
}

struct accessor {
	char	name[300];
	int	n;
};

/* The findings' accessors (by function), most first; *@nr of them. */
static struct accessor *accessors(const struct uaf_data *d,
				  const struct kallsyms *ks, int *nr)
{
	struct accessor *a = calloc(d->count[UAF_USE] + 1, sizeof(*a));
	int i, j;

	*nr = 0;
	if (!a)
		return NULL;
	for (i = 0; i < d->nr_hits; i++) {
		char name[300];

		if (d->hits[i].cls != UAF_USE)
			continue;
		kallsyms_name(ks, d->hits[i].ip, name, sizeof(name));
		for (j = 0; j < *nr && strcmp(a[j].name, name); j++)
			;
		if (j == *nr)
			snprintf(a[(*nr)++].name, sizeof(a->name), "%s", name);
		a[j].n++;
	}
	/* Most first; equal counts in the order they came. */
	for (i = 1; i < *nr; i++)
		for (j = i; j > 0 && a[j].n > a[j - 1].n; j--) {
			struct accessor t = a[j];

			a[j] = a[j - 1];
			a[j - 1] = t;
		}
	return a;
}

static const char sampling_note[] =
	"sampling, like KFENCE: a free is watched only when it finds a slot free "
	"(each slot is a debug register on every CPU: 4 at most, shared with perf "
	"and gdb), until its object is allocated again; missed frees were not "
	"watched, so they are not known to be clean";

static void print_words(FILE *f, const struct uaf_report *rep)
{
	const struct uaf_spec *sp = rep->spec;

	if (sp->mode == UAF_CACHE) {
		fprintf(f, "objects of slab cache %s", sp->cache);
		if (sp->object_size)
			fprintf(f, " (object_size %lu)", sp->object_size);
		else
			fputs(" (object_size unknown)", f);
	} else {
		fprintf(f, "objects kfree()d by %s [0x%llx-0x%llx)", sp->site,
			sp->site_start, sp->site_end);
	}
	if (sp->field)
		fprintf(f, ", (%s)ptr.%s", sp->type, sp->field);
	fprintf(f, ", word +0x%lx/%u %s", uaf_word_offset(sp), uaf_word_len(sp),
		uaf_access(sp));
}

void uaf_print(FILE *f, const struct uaf_data *d, const struct uaf_report *rep,
	       const struct kallsyms *ks)
{
	const struct uaf_coverage *cov = rep->cov;
	struct accessor *a;
	int i, n = 0, nr_a = 0;

	fputs("ksym-ctl uaf: ", f);
	print_words(f, rep);
	if (rep->title) {
		fputs(", while '", f);
		fput_printable(f, rep->title);
		fputs("' ran", f);
	}
	fputs("\n\n", f);
	for (i = 0; i < d->nr_hits; i++)
		if (d->hits[i].cls == UAF_USE) {
			print_hit(f, d, &d->hits[i], "use after free", ++n, ks);
			fputc('\n', f);
		}
	if (rep->verbose) {
		static const char * const what[] = {
			[UAF_ALLOCATOR] = "allocator access",
			[UAF_REALLOCATED] = "access after reallocation",
			[UAF_UNPAIRED] = "access without a free",
			[UAF_UNSEEN_REALLOC] = "access before a second free (reallocated, not seen)",
		};
		int nth[UAF_NR_CLASSES] = { 0 };

		for (i = 0; i < d->nr_hits; i++)
			if (d->hits[i].cls != UAF_USE) {
				print_hit(f, d, &d->hits[i], what[d->hits[i].cls],
					  ++nth[d->hits[i].cls], ks);
				fputc('\n', f);
			}
	}
	fprintf(f, "%d use%s after free in %d object%s", d->count[UAF_USE],
		d->count[UAF_USE] == 1 ? "" : "s", d->objects,
		d->objects == 1 ? "" : "s");
	a = accessors(d, ks, &nr_a);
	fprintf(f, ", by %d accessor%s%s\n", nr_a, nr_a == 1 ? "" : "s",
		nr_a ? ":" : "");
	for (i = 0; a && i < nr_a; i++)
		fprintf(f, "%10d  %s\n", a[i].n, a[i].name);
	free(a);
	fprintf(f, "not uses after free: %d access%s by the allocator itself, %d after the object or its page was given out again, %d reallocated, not seen (before a second free), %d without a free seen%s\n",
		d->count[UAF_ALLOCATOR], d->count[UAF_ALLOCATOR] == 1 ? "" : "es",
		d->count[UAF_REALLOCATED], d->count[UAF_UNSEEN_REALLOC],
		d->count[UAF_UNPAIRED],
		!rep->verbose && (d->count[UAF_ALLOCATOR] || d->count[UAF_REALLOCATED] ||
				  d->count[UAF_UNSEEN_REALLOC] ||
				  d->count[UAF_UNPAIRED]) ? " (-v lists them)" : "");
	if (cov->known) {
		unsigned long seen = cov->armed + cov->missed + cov->refused;

		fprintf(f, "coverage: %lu free%s seen, %lu watched, %lu missed (every slot busy), %lu refused; %d of %d slot%s\n",
			seen, seen == 1 ? "" : "s", cov->armed, cov->missed,
			cov->refused, cov->slots, cov->nr_slots,
			cov->nr_slots == 1 ? "" : "s");
	} else {
		fprintf(f, "coverage: %d free%s seen, watched unknown (%d rows of the trigger in trace_stat/ksym_triggers)\n",
			d->nr_frees, d->nr_frees == 1 ? "" : "s", cov->rows);
	}
	fprintf(f, "note: %s\n", sampling_note);
	if (!d->base_known)
		fprintf(f, "note: the direct map's base is %s: an access after the object's page went back to the page allocator and was given out again is not told apart\n",
			d->base_bad ? "not trusted (the one learnt failed its checks)" : "not known");
	if (rep->rcu_cache)
		fprintf(f, "note: %s is SLAB_TYPESAFE_BY_RCU (destroy_by_rcu): its objects may be read after free by design, under RCU, until a grace period ends\n",
			rep->spec->cache ? rep->spec->cache : "the cache");
	if (d->other_hits)
		fprintf(f, "warning: %lu hits of other watches in this instance's events: another hunt or watch shares them\n",
			d->other_hits);
	if (d->lost)
		fprintf(f, "warning: %lu events lost (the buffer filled up): uses after free may be missing, or lack their free\n",
			d->lost);
	if (d->pages_lost)
		fprintf(f, "warning: %lu page allocations lost (their buffer filled up): an access after a freed object's slab page was given out again may be reported as a use after free\n",
			d->pages_lost);
}

/* @addr as %ps (@off: as %pS, without the size). */
static struct json_object *json_name(const struct kallsyms *ks,
				     unsigned long long addr, bool off)
{
	char name[300];

	if (off)
		kallsyms_name_off(ks, addr, name, sizeof(name));
	else
		kallsyms_name(ks, addr, name, sizeof(name));
	return json_text(name);
}

static struct json_object *json_stack(const struct uaf_data *d, int idx,
				      const struct kallsyms *ks)
{
	const unsigned long long *ip;
	int i, nr = stack_frames(d, idx, ks, &ip);
	struct json_object *a = json_object_new_array();

	for (i = 0; a && i < nr; i++)
		json_object_array_add(a, json_name(ks, ip[i], true));
	return a;
}

static void json_task(struct json_object *o, const char *comm, int pid, int cpu)
{
	json_object_object_add(o, "task", json_text(comm));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "cpu", json_object_new_int(cpu));
}

static const char *class_name(enum uaf_class cls)
{
	switch (cls) {
	case UAF_USE:
		return "use_after_free";
	case UAF_ALLOCATOR:
		return "allocator";
	case UAF_REALLOCATED:
		return "reallocated";
	case UAF_UNSEEN_REALLOC:
		return "reallocated_unseen";
	default:
		return "unpaired";
	}
}

static struct json_object *json_free(const struct uaf_data *d,
				     const struct uaf_free *fr,
				     const struct kallsyms *ks)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "call_site", json_name(ks, fr->call_site, true));
	json_task(o, fr->comm, fr->pid, fr->cpu);
	json_object_object_add(o, "callchain", json_stack(d, fr->stack, ks));
	return o;
}

static struct json_object *json_hit(const struct uaf_data *d,
				    const struct uaf_hit *h,
				    const struct kallsyms *ks)
{
	const struct uaf_free *fr = h->free >= 0 ? &d->frees[h->free] : NULL;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "class", json_text(class_name(h->cls)));
	json_object_object_add(o, "accessor", json_name(ks, h->ip, true));
	json_object_object_add(o, "function", json_name(ks, h->ip, false));
	json_object_object_add(o, "ip", json_hexnum(h->ip));
	json_object_object_add(o, "access", json_text(access_word(h)));
	json_object_object_add(o, "addr", json_hexnum(h->addr));
	json_object_object_add(o, "object", fr ? json_hexnum(fr->ptr) : NULL);
	json_object_object_add(o, "offset", fr ? json_object_new_uint64(h->addr - fr->ptr) : NULL);
	json_object_object_add(o, "len", json_object_new_int64(h->len));
	json_object_object_add(o, "value", h->has_value ? json_hexnum(h->value) : NULL);
	json_object_object_add(o, "old", h->has_old != UAF_OLD_NONE ? json_hexnum(h->old) : NULL);
	json_object_object_add(o, "old_source", json_text(old_source(h->has_old)));
	json_object_object_add(o, "since_free_ns",
			       fr ? json_object_new_uint64(h->ts - fr->ts) : NULL);
	json_task(o, h->comm, h->pid, h->cpu);
	json_object_object_add(o, "callchain", json_stack(d, h->stack, ks));
	json_object_object_add(o, "free", fr ? json_free(d, fr, ks) : NULL);
	return o;
}

/* The findings (@uses), or the other hits: one a line. */
static const struct json_look hits_look = { 2, -1, NULL };

static struct json_object *json_hits(const struct uaf_data *d, bool uses,
				     const struct kallsyms *ks)
{
	struct json_object *a = json_look(json_object_new_array(), &hits_look);
	int i;

	for (i = 0; a && i < d->nr_hits; i++)
		if ((d->hits[i].cls == UAF_USE) == uses)
			json_object_array_add(a, json_hit(d, &d->hits[i], ks));
	return a;
}

static struct json_object *json_accessors(const struct uaf_data *d,
					  const struct kallsyms *ks)
{
	struct json_object *arr = json_object_new_array(), *o;
	struct accessor *a;
	int i, nr_a = 0;

	a = accessors(d, ks, &nr_a);
	for (i = 0; arr && a && i < nr_a; i++) {
		o = json_object_new_object();
		json_object_object_add(o, "function", json_text(a[i].name));
		json_object_object_add(o, "uses", json_object_new_int(a[i].n));
		json_object_array_add(arr, o);
	}
	free(a);
	return arr;
}

static struct json_object *json_coverage(const struct uaf_data *d,
					 const struct uaf_coverage *cov)
{
	struct json_object *o = json_object_new_object();
	bool k = cov->known;

	if (!o)
		return NULL;
	json_object_object_add(o, "known", json_object_new_boolean(k));
	json_object_object_add(o, "frees_recorded", json_object_new_int(d->nr_frees));
	json_object_object_add(o, "frees_seen", json_object_new_uint64(k ?
			       cov->armed + cov->missed + cov->refused :
			       (unsigned long)d->nr_frees));
	json_object_object_add(o, "watched", k ? json_object_new_uint64(cov->armed) : NULL);
	json_object_object_add(o, "missed", k ? json_object_new_uint64(cov->missed) : NULL);
	json_object_object_add(o, "refused", k ? json_object_new_uint64(cov->refused) : NULL);
	json_object_object_add(o, "slots", k ? json_object_new_int(cov->slots) : NULL);
	json_object_object_add(o, "slots_asked", k ? json_object_new_int(cov->nr_slots) : NULL);
	json_object_object_add(o, "note", json_text(sampling_note));
	return o;
}

/* What the hunt watched: mode, objects, word. */
static void json_spec(struct json_object *o, const struct uaf_spec *sp)
{
	struct json_object *range = NULL;
	bool kfree = sp->mode == UAF_KFREE;

	json_object_object_add(o, "mode", json_text(kfree ? "kfree_site" : "cache"));
	json_object_object_add(o, "cache", kfree ? NULL : json_text(sp->cache));
	json_object_object_add(o, "kfree_site", kfree ? json_text(sp->site) : NULL);
	if (kfree) {
		range = json_object_new_array();
		json_object_array_add(range, json_hexnum(sp->site_start));
		json_object_array_add(range, json_hexnum(sp->site_end));
		json_object_object_add(o, "kfree_site_range", range);
	}
	json_object_object_add(o, "object_size", sp->object_size ?
			       json_object_new_uint64(sp->object_size) : NULL);
	json_object_object_add(o, "type", sp->field ? json_text(sp->type) : NULL);
	json_object_object_add(o, "field", sp->field ? json_text(sp->field) : NULL);
	json_object_object_add(o, "offset", json_object_new_uint64(uaf_word_offset(sp)));
	json_object_object_add(o, "len", json_object_new_int64(uaf_word_len(sp)));
	json_object_object_add(o, "watch_access", json_text(uaf_access(sp)));
}

static const char * const uaf_breaks[] = {
	"findings", "uses_after_free", "allocator", "not_uses", "coverage", NULL
};
static const struct json_look uaf_look = { -1, -1, uaf_breaks };

void uaf_print_json(FILE *f, const struct uaf_data *d,
		    const struct uaf_report *rep, const struct kallsyms *ks)
{
	struct json_object *o = json_look(json_object_new_object(), &uaf_look);

	if (!o)
		return;
	json_spec(o, rep->spec);
	json_object_object_add(o, "command", json_text(rep->title));
	json_object_object_add(o, "exit_status", json_object_new_int(rep->exit_status));
	json_object_object_add(o, "findings", json_hits(d, true, ks));
	json_object_object_add(o, "uses_after_free", json_object_new_int(d->count[UAF_USE]));
	json_object_object_add(o, "objects", json_object_new_int(d->objects));
	json_object_object_add(o, "accessors", json_accessors(d, ks));
	json_object_object_add(o, "allocator", json_object_new_int(d->count[UAF_ALLOCATOR]));
	json_object_object_add(o, "reallocated", json_object_new_int(d->count[UAF_REALLOCATED]));
	json_object_object_add(o, "reallocated_unseen",
			       json_object_new_int(d->count[UAF_UNSEEN_REALLOC]));
	json_object_object_add(o, "unpaired", json_object_new_int(d->count[UAF_UNPAIRED]));
	json_object_object_add(o, "other_hits", json_object_new_uint64(d->other_hits));
	json_object_object_add(o, "events_lost", json_object_new_uint64(d->lost));
	json_object_object_add(o, "page_allocations_lost", json_object_new_uint64(d->pages_lost));
	json_object_object_add(o, "page_reuse_seen", json_object_new_boolean(d->base_known));
	json_object_object_add(o, "typesafe_by_rcu", json_object_new_boolean(rep->rcu_cache));
	if (rep->verbose)
		json_object_object_add(o, "not_uses", json_hits(d, false, ks));
	json_object_object_add(o, "coverage", json_coverage(d, rep->cov));
	json_print(f, o);
	fputc('\n', f);
	json_object_put(o);
}
