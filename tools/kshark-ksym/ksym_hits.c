// SPDX-License-Identifier: LGPL-2.1
/*
 * ksym_hits.c - the data part of KernelShark's ksym plugin: collect the
 * ksym_hit entries of a trace and read their fields.
 *
 * Any event named "ksym_hit" counts, whatever its system: the TRACE_EVENT in
 * include/trace/events/ksym.h is ksym:ksym_hit (trace-cmd record -e ksym, and
 * the ksym tracer today); a tracer that writes its own entries may name them
 * ftrace:ksym_hit. Fields read: addr, ip, access (or type), value, len,
 * has_value, and where the trace has them caller (the attributed caller) and
 * sym (the watch's name); without those two, as older traces are, the
 * accessor is ip's function and the watch is named from kallsyms. Where
 * it has old and has_old (the value before the access, and how it is
 * known), an "rw-" hit is told a write or a read by them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "libkshark-tepdata.h"
#include "ksym_hits.h"

/* Free the hits, the watches and their index; the events stay. */
static void ksym_free_hits(struct plugin_ksym_context *ctx)
{
	int i;

	free(ctx->hits);
	ctx->hits = NULL;
	ctx->nr_hits = ctx->cap_hits = ctx->nr_lost = 0;
	for (i = 0; i < ctx->nr_watches; i++) {
		free(ctx->watches[i].name);
		free(ctx->watches[i].addrs);
	}
	free(ctx->watches);
	ctx->watches = NULL;
	ctx->nr_watches = ctx->cap_watches = 0;
	free(ctx->index);
	ctx->index = NULL;
	ctx->index_size = ctx->index_used = 0;
	ctx->resolved = false;
}

static void ksym_free_context(struct plugin_ksym_context *ctx)
{
	if (!ctx)
		return;

	kshark_free_data_container(ctx->data);
	ksym_free_hits(ctx);
	free(ctx);
}

__hidden int ksym_hits_reset(struct plugin_ksym_context *ctx)
{
	ksym_free_hits(ctx);
	kshark_free_data_container(ctx->data);
	ctx->data = kshark_init_data_container();
	return ctx->data ? 0 : -1;
}

/*
 * __init(), __get_context() and __close(): one context per data stream. The
 * macro's __close() hands the object to ksym_free_context(), which frees it.
 */
KS_DEFINE_PLUGIN_CONTEXT(struct plugin_ksym_context, ksym_free_context);

__hidden const char *ksym_access_str(unsigned int access)
{
	switch (access) {
	case KSYM_ACCESS_R:
		return "r--";
	case KSYM_ACCESS_W:
		return "-w-";
	case KSYM_ACCESS_R | KSYM_ACCESS_W:
		return "rw-";
	case KSYM_ACCESS_X:
		return "--x";
	default:
		return "???";
	}
}

__hidden const char *ksym_hit_kind_str(unsigned int kind)
{
	switch (kind) {
	case KSYM_HIT_WRITE:
		return "write";
	case KSYM_HIT_READ:
		return "read";
	case KSYM_HIT_EXEC:
		return "exec";
	default:
		return "read or write";
	}
}

__hidden const char *ksym_old_str(unsigned int has_old)
{
	switch (has_old) {
	case KSYM_OLD_NONE:
		return "none";
	case KSYM_OLD_READ:
		return "read";
	case KSYM_OLD_LAST:
		return "last";
	case KSYM_OLD_STALE:
		return "stale";
	default:
		return "unknown";
	}
}

/* The old value is known: read, the last seen, or that but stale. */
static bool ksym_old_known(const struct ksym_hit *hit)
{
	return hit->has_old >= KSYM_OLD_READ && hit->has_old <= KSYM_OLD_STALE;
}

/* "sym", "sym+0x10" or "0xffffffff81234567"; NULL when out of memory. */
static char *ksym_addr_name(struct tep_handle *tep, uint64_t addr)
{
	unsigned long long start;
	const char *sym;
	char *name;
	int ret;

	sym = tep_find_function(tep, addr);
	if (!sym) {
		ret = asprintf(&name, "0x%llx", (unsigned long long)addr);
		return ret < 0 ? NULL : name;
	}
	start = tep_find_function_address(tep, addr);
	if (start == addr)
		ret = asprintf(&name, "%s", sym);
	else
		ret = asprintf(&name, "%s+0x%llx", sym,
			       (unsigned long long)addr - start);
	return ret < 0 ? NULL : name;
}

/**
 * ksym_hit_accessor - the function the hit is counted for, as "func+0x1c"
 * @ctx: the plugin context of the hit's stream
 * @hit: the hit
 *
 * The attributed caller where the trace has it (for a hit in the lock
 * primitives the first caller outside them), else ip. Data breakpoints trap
 * after the access, so ip is the next instruction; it lies in the accessing
 * function all the same. The caller frees the string; NULL when out of
 * memory.
 */
__hidden char *ksym_hit_accessor(struct plugin_ksym_context *ctx,
				   const struct ksym_hit *hit)
{
	return ksym_addr_name(ctx->tep, hit->caller);
}

/**
 * ksym_hit_describe - one line about a hit, for the pinned tooltip
 * @ctx: the plugin context of the hit's stream
 * @hit: the hit (resolved: its kind is known)
 *
 * "tasklist_lock -w- write by release_task+0x6b (in do_raw_write_lock+0x2c)
 * value=0xff old=0xfe cpu=0 pid=100": where the hit was, in parentheses, only
 * when the attributed caller is not ip; the hit's address after the name
 * ("ksym_hitgen_obj.count@0xff11000003a1c5a8") when the watch has several;
 * the old value where the trace knows something of it, as the kernel prints
 * it (read and last: exact, no prefix; "old=stale:0x1"), and
 * "old=unknown:0x1" for a has_old the kernel does not write. The caller
 * frees the string; NULL when out of memory.
 */
__hidden char *ksym_hit_describe(struct plugin_ksym_context *ctx,
				   const struct ksym_hit *hit)
{
	const struct ksym_watch *w = &ctx->watches[hit->watch];
	char *accessor, *in = NULL, *s, at[24] = "", old[48] = "";
	bool exact = hit->has_old == KSYM_OLD_READ || hit->has_old == KSYM_OLD_LAST;
	int ret;

	accessor = ksym_hit_accessor(ctx, hit);
	if (hit->caller != hit->ip)
		in = ksym_addr_name(ctx->tep, hit->ip);
	/*
	 * A watch at several addresses (per-CPU copies, the objects of a
	 * ksym_watch trigger) names the one hit, as trace_stat does.
	 */
	if (w->nr_addrs > 1)
		snprintf(at, sizeof(at), "@0x%llx",
			 (unsigned long long)w->addrs[hit->copy]);
	if (hit->has_old != KSYM_OLD_NONE)
		snprintf(old, sizeof(old), " old=%s%s0x%llx",
			 exact ? "" : ksym_old_str(hit->has_old), exact ? "" : ":",
			 (unsigned long long)hit->old);
	ret = asprintf(&s, "%s%s %s %s by %s%s%s%s value=%s0x%llx%s cpu=%d pid=%d",
		       w->name, at, ksym_access_str(hit->access),
		       ksym_hit_kind_str(hit->kind), accessor ? accessor : "?",
		       in ? " (in " : "", in ? in : "", in ? ")" : "",
		       hit->has_value ? "" : "unread:",
		       (unsigned long long)hit->value, old, hit->entry->cpu,
		       hit->entry->pid);
	free(accessor);
	free(in);
	return ret < 0 ? NULL : s;
}

/* splitmix64's finalizer: addresses differ in a few bits only. */
static uint64_t ksym_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* FNV-1a, mixed. */
static uint64_t ksym_name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return ksym_mix(h);
}

/* What a slot is looked up by: a watch (sym, or addr), or a copy of @watch. */
struct ksym_key {
	const char	*sym;
	uint64_t	addr;
	int		watch;		/* -1: a watch is looked up */
};

static bool ksym_slot_is(const struct plugin_ksym_context *ctx,
			 const struct ksym_slot *sl, const struct ksym_key *k)
{
	const struct ksym_watch *w = &ctx->watches[sl->watch - 1];

	if (k->watch >= 0)
		return sl->copy >= 0 && sl->watch - 1 == k->watch &&
		       w->addrs[sl->copy] == k->addr;
	if (sl->copy >= 0)
		return false;
	return k->sym ? w->named && !strcmp(w->name, k->sym)
		      : !w->named && w->addr == k->addr;
}

static uint64_t ksym_key_hash(const struct ksym_key *k)
{
	if (k->watch >= 0)
		return ksym_mix(k->addr ^ ksym_mix(k->watch + 1));
	return k->sym ? ksym_name_hash(k->sym) : ksym_mix(k->addr);
}

/* Room for one more slot, at most half of them used; -1 out of memory. */
static int ksym_index_reserve(struct plugin_ksym_context *ctx)
{
	struct ksym_slot *old = ctx->index;
	size_t i, j, size = ctx->index_size, mask;

	if (2 * (ctx->index_used + 1) <= size)
		return 0;
	size = size ? 2 * size : 256;
	ctx->index = calloc(size, sizeof(*ctx->index));
	if (!ctx->index) {
		ctx->index = old;
		return -1;
	}
	mask = size - 1;
	for (i = 0; i < ctx->index_size; i++) {
		if (!old[i].watch)
			continue;
		for (j = old[i].hash & mask; ctx->index[j].watch; j = (j + 1) & mask)
			;
		ctx->index[j] = old[i];
	}
	free(old);
	ctx->index_size = size;
	return 0;
}

/*
 * The slot of @k, or the free slot where it goes (watch 0): linear
 * probing. Call ksym_index_reserve() first: there is always a free slot.
 */
static struct ksym_slot *ksym_index_find(struct plugin_ksym_context *ctx,
					 const struct ksym_key *k, uint64_t hash)
{
	size_t mask = ctx->index_size - 1, i;
	struct ksym_slot *sl;

	for (i = hash & mask;; i = (i + 1) & mask) {
		sl = &ctx->index[i];
		if (!sl->watch || (sl->hash == hash && ksym_slot_is(ctx, sl, k)))
			return sl;
	}
}

/* The index of @addr in watch @wi's addresses, added if new; -1 out of memory. */
static int ksym_watch_copy(struct plugin_ksym_context *ctx, int wi, uint64_t addr)
{
	struct ksym_key k = { .addr = addr, .watch = wi };
	struct ksym_watch *w = &ctx->watches[wi];
	uint64_t hash = ksym_key_hash(&k);
	struct ksym_slot *sl;
	uint64_t *addrs;
	int cap;

	if (ksym_index_reserve(ctx))
		return -1;
	sl = ksym_index_find(ctx, &k, hash);
	if (sl->watch)
		return sl->copy;
	if (w->nr_addrs == w->cap_addrs) {
		cap = w->cap_addrs ? 2 * w->cap_addrs : 4;
		addrs = realloc(w->addrs, cap * sizeof(*addrs));
		if (!addrs)
			return -1;
		w->addrs = addrs;
		w->cap_addrs = cap;
	}
	w->addrs[w->nr_addrs] = addr;
	if (addr < w->addr)
		w->addr = addr;
	*sl = (struct ksym_slot){ .hash = hash, .watch = wi + 1, .copy = w->nr_addrs };
	ctx->index_used++;
	return w->nr_addrs++;
}

/*
 * The watch of a hit: by name when the event names it (@sym), else by
 * address. Sets @hit's watch and copy (which of the watch's addresses);
 * -1 when out of memory.
 */
static int ksym_find_watch(struct plugin_ksym_context *ctx,
			   struct ksym_hit *hit, uint64_t addr,
			   const char *sym)
{
	struct ksym_key k = { .sym = sym, .addr = addr, .watch = -1 };
	uint64_t hash = ksym_key_hash(&k);
	struct ksym_slot *sl;
	struct ksym_watch *w;
	int i, cap;

	if (ksym_index_reserve(ctx))
		return -1;
	sl = ksym_index_find(ctx, &k, hash);
	if (sl->watch) {
		i = sl->watch - 1;
		goto found;
	}

	if (ctx->nr_watches == ctx->cap_watches) {
		cap = ctx->cap_watches ? 2 * ctx->cap_watches : 8;
		w = realloc(ctx->watches, cap * sizeof(*w));
		if (!w)
			return -1;
		ctx->watches = w;
		ctx->cap_watches = cap;
	}
	w = &ctx->watches[ctx->nr_watches];
	memset(w, 0, sizeof(*w));
	w->addr = addr;
	w->access = hit->access;
	w->len = hit->len;
	w->named = sym != NULL;
	w->name = sym ? strdup(sym) : ksym_addr_name(ctx->tep, addr);
	if (!w->name)
		return -1;
	i = ctx->nr_watches++;
	*sl = (struct ksym_slot){ .hash = hash, .watch = i + 1, .copy = -1 };
	ctx->index_used++;
found:
	hit->watch = i;
	hit->copy = ksym_watch_copy(ctx, i, addr);
	return hit->copy < 0 ? -1 : 0;
}

static struct ksym_hit_event *ksym_event_of(struct plugin_ksym_context *ctx,
					    int id)
{
	int i;

	for (i = 0; i < ctx->nr_events; i++)
		if (ctx->events[i].event->id == id)
			return &ctx->events[i];
	return NULL;
}

/*
 * Fixed field @field of @record into *@val, if the record holds it: the
 * format comes from the file and may put a field past a record's end.
 */
static bool ksym_read_field(const struct tep_format_field *field,
			    const struct tep_record *record, uint64_t *val)
{
	unsigned long long v;

	if (!field || field->offset < 0 || record->size < 0 ||
	    (field->size != 1 && field->size != 2 && field->size != 4 &&
	     field->size != 8) ||
	    (long)field->offset + field->size > record->size ||
	    tep_read_number_field((struct tep_format_field *)field, record->data, &v))
		return false;
	*val = v;
	return true;
}

/* The same, or @dflt when it is not there. */
static uint64_t ksym_field_or(const struct tep_format_field *field,
			      const struct tep_record *record, uint64_t dflt)
{
	uint64_t val;

	return ksym_read_field(field, record, &val) ? val : dflt;
}

/*
 * A string field of @record: "__data_loc char[] sym" (the kernel's
 * __string and __dynamic_array), or a fixed char array. Copied into @buf,
 * NUL-terminated; NULL when the field is missing, empty, or points outside
 * the record.
 */
static const char *ksym_read_str(struct tep_handle *tep,
				 struct tep_format_field *field,
				 struct tep_record *record, char *buf,
				 size_t size)
{
	unsigned long long loc;
	unsigned int off, len;
	const char *p;

	if (!field || record->size < 0 || field->offset < 0 || field->size < 0)
		return NULL;
	if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		/* In long: a crafted offset near INT_MAX (review 11-28 L10). */
		if ((long)field->offset + field->size > record->size)
			return NULL;
		loc = tep_read_number(tep, (char *)record->data + field->offset,
				      field->size);
		off = loc & 0xffff;
		len = loc >> 16;
		if (field->flags & TEP_FIELD_IS_RELATIVE)
			off += field->offset + field->size;
	} else {
		off = field->offset;
		len = field->size;
	}
	if ((unsigned long)off + len > (unsigned int)record->size)
		return NULL;
	p = (const char *)record->data + off;
	len = strnlen(p, len);
	if (!len)
		return NULL;
	if (len >= size)
		len = size - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

__hidden int ksym_hits_add(struct plugin_ksym_context *ctx,
			    struct tep_record *record,
			    struct kshark_entry *entry)
{
	struct ksym_hit_event *ev;
	struct ksym_hit *hit;
	uint64_t addr, ip, access, has_old;
	char name[KSYM_NAME_MAX];
	const char *sym;
	ssize_t cap;

	ev = ksym_event_of(ctx, entry->event_id);
	/* Without these three, there is nothing to plot. */
	if (!ev || !ksym_read_field(ev->addr, record, &addr) ||
	    !ksym_read_field(ev->ip, record, &ip) ||
	    !ksym_read_field(ev->access, record, &access))
		goto lost;

	if (ctx->nr_hits == ctx->cap_hits) {
		cap = ctx->cap_hits ? 2 * ctx->cap_hits : 256;
		hit = realloc(ctx->hits, cap * sizeof(*hit));
		if (!hit)
			goto lost;
		ctx->hits = hit;
		ctx->cap_hits = cap;
	}
	hit = &ctx->hits[ctx->nr_hits];
	memset(hit, 0, sizeof(*hit));
	hit->entry = entry;
	hit->ip = ip;
	hit->caller = ksym_field_or(ev->caller, record, hit->ip);
	if (!hit->caller)
		hit->caller = hit->ip;
	hit->func = tep_find_function(ctx->tep, hit->caller);
	hit->value = ksym_field_or(ev->value, record, 0);
	hit->access = access;
	hit->len = ksym_field_or(ev->len, record, 0);
	/* Older kernels had no has_value: every data watch read its value. */
	hit->has_value = ksym_field_or(ev->has_value, record,
				       hit->access != KSYM_ACCESS_X);
	/* Nor old: none. A has_old the kernel does not write: unknown. */
	if (ksym_read_field(ev->has_old, record, &has_old) &&
	    ksym_read_field(ev->old, record, &hit->old))
		hit->has_old = has_old > KSYM_OLD_STALE ? KSYM_OLD_UNKNOWN : has_old;
	else
		hit->old = 0;

	sym = ksym_read_str(ctx->tep, ev->sym, record, name, sizeof(name));
	if (ksym_find_watch(ctx, hit, addr, sym) < 0)
		goto lost;

	if (kshark_data_container_append(ctx->data, entry, ctx->nr_hits) < 0)
		goto lost;
	ctx->nr_hits++;
	ctx->resolved = false;
	return 0;
lost:
	ctx->nr_lost++;
	return -1;
}

/* The event handler: runs for every ksym_hit record KernelShark loads. */
static void plugin_ksym_hit_action(struct kshark_data_stream *stream,
				   void *rec, struct kshark_entry *entry)
{
	struct plugin_ksym_context *ctx = __get_context(stream->stream_id);

	if (ctx)
		ksym_hits_add(ctx, rec, entry);
}

/* Watches by address, then by name: the order of their colours. */
static int ksym_colour_cmp(const void *a, const void *b, void *arg)
{
	const struct ksym_watch *w = arg;
	const struct ksym_watch *x = &w[*(const int *)a], *y = &w[*(const int *)b];

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Each watch's colour: how many watches sort before it (by address, then
 * name), so a symbol keeps its colour from one trace of the same watches
 * to the next. Sorted, not compared pairwise: a trace may have thousands.
 */
static int ksym_colour_watches(struct plugin_ksym_context *ctx)
{
	int *order, j;

	if (ctx->nr_watches <= 0)
		return 0;
	order = calloc(ctx->nr_watches, sizeof(*order));
	if (!order)
		return -1;
	for (j = 0; j < ctx->nr_watches; j++)
		order[j] = j;
	qsort_r(order, ctx->nr_watches, sizeof(*order), ksym_colour_cmp, ctx->watches);
	for (j = 0; j < ctx->nr_watches; j++)
		ctx->watches[order[j]].colour =
			j && !ksym_colour_cmp(&order[j - 1], &order[j], ctx->watches) ?
			ctx->watches[order[j - 1]].colour : j;
	free(order);
	return 0;
}

/**
 * ksym_hits_resolve - second pass over the hits, in time order
 * @ctx: the plugin context
 *
 * Sorts the hits by time, tells writes from reads and gives each watch its
 * colour (watches sorted by address, so a symbol keeps its colour from one
 * trace of the same watches to the next). The hardware does not say which
 * access of an "rw-" watch trapped: a hit whose value differs from the one
 * before it is a write, one that left it alone is taken as a read (it may
 * be a write of the same value). The one before it is the kernel's old
 * value where the trace has it (has_old read, last or stale), else the
 * previous hit's at the same address (a per-CPU watch compares each CPU's
 * copy with itself); without an old value the first hit (or one whose
 * value the kernel did not read, has_value 0) has nothing to compare with.
 * "-w-", "r--" and "--x" watches say it themselves.
 *
 * Returns 0, or -1 when out of memory (the hits stay unresolved).
 */
__hidden int ksym_hits_resolve(struct plugin_ksym_context *ctx)
{
	uint64_t *last = NULL;
	bool *seen = NULL;
	int *base = NULL;
	struct ksym_watch *w;
	struct ksym_hit *hit;
	int j, n, ret = -1;
	ssize_t i;

	if (ctx->resolved)
		return 0;
	/* last and seen: per address of each watch, from base[watch] on */
	base = calloc(ctx->nr_watches + 1, sizeof(*base));
	if (!base)
		goto out;
	for (j = 0, n = 0; j < ctx->nr_watches; n += ctx->watches[j++].nr_addrs)
		base[j] = n;
	if (n) {
		last = calloc(n, sizeof(*last));
		seen = calloc(n, sizeof(*seen));
		if (!last || !seen)
			goto out;
	}

	if (ksym_colour_watches(ctx))
		goto out;
	for (j = 0; j < ctx->nr_watches; j++) {
		w = &ctx->watches[j];
		w->nr_hits = w->nr_writes = w->nr_reads = 0;
	}

	kshark_data_container_sort(ctx->data);
	for (i = 0; i < ctx->data->size; i++) {
		hit = &ctx->hits[ctx->data->data[i]->field];
		w = &ctx->watches[hit->watch];
		n = base[hit->watch] + hit->copy;

		switch (hit->access) {
		case KSYM_ACCESS_W:
			hit->kind = KSYM_HIT_WRITE;
			break;
		case KSYM_ACCESS_R:
			hit->kind = KSYM_HIT_READ;
			break;
		case KSYM_ACCESS_X:
			hit->kind = KSYM_HIT_EXEC;
			break;
		default:
			if (hit->has_value && ksym_old_known(hit))
				hit->kind = hit->value != hit->old ?
					    KSYM_HIT_WRITE : KSYM_HIT_READ;
			else if (!hit->has_value || !seen[n])
				hit->kind = KSYM_HIT_ACCESS;
			else if (hit->value != last[n])
				hit->kind = KSYM_HIT_WRITE;
			else
				hit->kind = KSYM_HIT_READ;
		}
		seen[n] = hit->has_value;
		last[n] = hit->value;

		w->nr_hits++;
		if (hit->kind == KSYM_HIT_WRITE)
			w->nr_writes++;
		else if (hit->kind == KSYM_HIT_READ)
			w->nr_reads++;
	}
	ctx->resolved = true;
	ret = 0;
out:
	free(base);
	free(last);
	free(seen);
	return ret;
}

__hidden bool ksym_hits_init(struct plugin_ksym_context *ctx,
			     struct tep_handle *tep)
{
	struct tep_event **events;
	struct ksym_hit_event *ev;
	int i;

	ctx->tep = tep;
	events = tep_list_events(ctx->tep, TEP_EVENT_SORT_ID);
	for (i = 0; events && events[i]; i++) {
		if (strcmp(events[i]->name, KSYM_HIT_EVENT_NAME))
			continue;
		if (ctx->nr_events == KSYM_HIT_MAX_EVENTS)
			break;

		ev = &ctx->events[ctx->nr_events];
		ev->event = events[i];
		ev->addr = tep_find_field(events[i], "addr");
		ev->ip = tep_find_field(events[i], "ip");
		ev->access = tep_find_field(events[i], "access");
		if (!ev->access)
			ev->access = tep_find_field(events[i], "type");
		ev->value = tep_find_field(events[i], "value");
		ev->len = tep_find_field(events[i], "len");
		ev->has_value = tep_find_field(events[i], "has_value");
		ev->old = tep_find_field(events[i], "old");
		ev->has_old = tep_find_field(events[i], "has_old");
		ev->caller = tep_find_field(events[i], "caller");
		ev->sym = tep_find_field(events[i], "sym");
		if (ev->addr && ev->ip && ev->access)
			ctx->nr_events++;
	}
	if (!ctx->nr_events)
		return false;

	ctx->data = kshark_init_data_container();
	return ctx->data != NULL;
}

/* Find every event named ksym_hit that has the fields we need. */
static bool plugin_ksym_init_context(struct kshark_data_stream *stream,
				     struct plugin_ksym_context *ctx)
{
	struct tep_handle *tep;

	if (!kshark_is_tep(stream))
		return false;

	tep = kshark_get_tep(stream);
	if (!tep)
		return false;
	return ksym_hits_init(ctx, tep);
}

/**
 * Load this plugin. On a trace without ksym_hit there is nothing to do: it
 * keeps no context and registers no handler, yet reports success, so that
 * libkshark does not print "failed to initialize" for every such file.
 * Returns 0 only when out of memory.
 */
int KSHARK_PLOT_PLUGIN_INITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_ksym_context *ctx;
	int i;

	ctx = __init(stream->stream_id);
	if (!ctx)
		return 0;
	if (!plugin_ksym_init_context(stream, ctx)) {
		/* data allocated only when a ksym_hit event exists */
		i = ctx->nr_events && !ctx->data ? 0 : 1;
		__close(stream->stream_id);
		return i;
	}

	for (i = 0; i < ctx->nr_events; i++)
		kshark_register_event_handler(stream, ctx->events[i].event->id,
					      plugin_ksym_hit_action);
	kshark_register_draw_handler(stream, plugin_ksym_draw);

	return 1;
}

/** Unload this plugin. */
int KSHARK_PLOT_PLUGIN_DEINITIALIZER(struct kshark_data_stream *stream)
{
	struct plugin_ksym_context *ctx = __get_context(stream->stream_id);
	int i, ret = 1;	/* idle on this stream: unloads all the same */

	if (ctx) {
		for (i = 0; i < ctx->nr_events; i++)
			kshark_unregister_event_handler(stream,
							ctx->events[i].event->id,
							plugin_ksym_hit_action);
		kshark_unregister_draw_handler(stream, plugin_ksym_draw);
	}

	__close(stream->stream_id);

	return ret;
}

/** Initialize the control interface of the plugin: keeps the GUI pointer. */
void *KSHARK_MENU_PLUGIN_INITIALIZER(void *gui_ptr)
{
	return plugin_ksym_set_gui_ptr(gui_ptr);
}
