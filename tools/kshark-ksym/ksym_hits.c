// SPDX-License-Identifier: LGPL-2.1
/*
 * ksym_hits.c - the data part of KernelShark's ksym plugin: collect the
 * ksym_hit entries of a trace and read their fields.
 *
 * Any event named "ksym_hit" counts, whatever its system: the TRACE_EVENT in
 * include/trace/events/ksym.h is ksym:ksym_hit (trace-cmd record -e ksym, and
 * the ksym tracer today); a tracer that writes its own entries may name them
 * ftrace:ksym_hit. Fields read: addr, ip, access (or type), value, len.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>
#include <event-parse.h>

#include "libkshark-tepdata.h"
#include "ksym_hits.h"

static void ksym_free_context(struct plugin_ksym_context *ctx)
{
	int i;

	if (!ctx)
		return;

	kshark_free_data_container(ctx->data);
	free(ctx->hits);
	for (i = 0; i < ctx->nr_watches; i++)
		free(ctx->watches[i].name);
	free(ctx->watches);
	free(ctx);
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
 * ksym_hit_accessor - the function that made the access, as "func+0x1c"
 * @ctx: the plugin context of the hit's stream
 * @hit: the hit
 *
 * Data breakpoints trap after the access, so ip is the next instruction;
 * it lies in the accessing function all the same. The caller frees the
 * string; NULL when out of memory.
 */
__hidden char *ksym_hit_accessor(struct plugin_ksym_context *ctx,
				   const struct ksym_hit *hit)
{
	return ksym_addr_name(ctx->tep, hit->ip);
}

static int ksym_find_watch(struct plugin_ksym_context *ctx, uint64_t addr,
			   unsigned int access, unsigned int len)
{
	struct ksym_watch *w;
	int i;

	for (i = 0; i < ctx->nr_watches; i++)
		if (ctx->watches[i].addr == addr)
			return i;

	w = realloc(ctx->watches, (ctx->nr_watches + 1) * sizeof(*w));
	if (!w)
		return -1;
	ctx->watches = w;
	w = &ctx->watches[ctx->nr_watches];
	memset(w, 0, sizeof(*w));
	w->addr = addr;
	w->access = access;
	w->len = len;
	w->name = ksym_addr_name(ctx->tep, addr);
	if (!w->name)
		return -1;
	return ctx->nr_watches++;
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

static uint64_t ksym_read_field(struct tep_format_field *field, void *data,
				uint64_t dflt)
{
	unsigned long long val;

	if (!field || tep_read_number_field(field, data, &val))
		return dflt;
	return val;
}

/* The event handler: runs for every ksym_hit record KernelShark loads. */
static void plugin_ksym_hit_action(struct kshark_data_stream *stream,
				   void *rec, struct kshark_entry *entry)
{
	struct tep_record *record = rec;
	struct plugin_ksym_context *ctx;
	struct ksym_hit_event *ev;
	struct ksym_hit *hit;
	unsigned long long addr;
	ssize_t cap;
	int watch;

	ctx = __get_context(stream->stream_id);
	if (!ctx)
		return;
	ev = ksym_event_of(ctx, entry->event_id);
	if (!ev || tep_read_number_field(ev->addr, record->data, &addr))
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
	hit->ip = ksym_read_field(ev->ip, record->data, 0);
	hit->func = tep_find_function(ctx->tep, hit->ip);
	hit->value = ksym_read_field(ev->value, record->data, 0);
	hit->access = ksym_read_field(ev->access, record->data, 0);
	hit->len = ksym_read_field(ev->len, record->data, 0);
	/* Older kernels had no has_value: every data watch read its value. */
	hit->has_value = ksym_read_field(ev->has_value, record->data,
					 hit->access != KSYM_ACCESS_X);

	watch = ksym_find_watch(ctx, addr, hit->access, hit->len);
	if (watch < 0)
		goto lost;
	hit->watch = watch;

	if (kshark_data_container_append(ctx->data, entry, ctx->nr_hits) < 0)
		goto lost;
	ctx->nr_hits++;
	ctx->resolved = false;
	return;
lost:
	ctx->nr_lost++;
}

/**
 * ksym_hits_resolve - second pass over the hits, in time order
 * @ctx: the plugin context
 *
 * Sorts the hits by time, tells writes from reads and gives each watch its
 * colour (watches sorted by address, so a symbol keeps its colour from one
 * trace of the same watches to the next). The hardware does not say which
 * access of an "rw-" watch trapped: a hit whose value differs from the
 * previous hit's is a write, one that left it alone is taken as a read (it
 * may be a write of the same value), and the first (or one whose value the
 * kernel did not read, has_value 0) has nothing to compare with. "-w-",
 * "r--" and "--x" watches say it themselves.
 *
 * Returns 0, or -1 when out of memory (the hits stay unresolved).
 */
__hidden int ksym_hits_resolve(struct plugin_ksym_context *ctx)
{
	uint64_t *last = NULL;
	bool *seen = NULL;
	struct ksym_watch *w;
	struct ksym_hit *hit;
	ssize_t i;
	int j, k, ret = -1;

	if (ctx->resolved)
		return 0;
	if (ctx->nr_watches) {
		last = calloc(ctx->nr_watches, sizeof(*last));
		seen = calloc(ctx->nr_watches, sizeof(*seen));
		if (!last || !seen)
			goto out;
	}

	for (j = 0; j < ctx->nr_watches; j++) {
		w = &ctx->watches[j];
		w->colour = 0;
		for (k = 0; k < ctx->nr_watches; k++)
			if (ctx->watches[k].addr < w->addr)
				w->colour++;
		w->nr_hits = w->nr_writes = w->nr_reads = 0;
	}

	kshark_data_container_sort(ctx->data);
	for (i = 0; i < ctx->data->size; i++) {
		hit = &ctx->hits[ctx->data->data[i]->field];
		w = &ctx->watches[hit->watch];

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
			if (!hit->has_value || !seen[hit->watch])
				hit->kind = KSYM_HIT_ACCESS;
			else if (hit->value != last[hit->watch])
				hit->kind = KSYM_HIT_WRITE;
			else
				hit->kind = KSYM_HIT_READ;
		}
		seen[hit->watch] = hit->has_value;
		last[hit->watch] = hit->value;

		w->nr_hits++;
		if (hit->kind == KSYM_HIT_WRITE)
			w->nr_writes++;
		else if (hit->kind == KSYM_HIT_READ)
			w->nr_reads++;
	}
	ctx->resolved = true;
	ret = 0;
out:
	free(last);
	free(seen);
	return ret;
}

/* Find every event named ksym_hit that has the fields we need. */
static bool plugin_ksym_init_context(struct kshark_data_stream *stream,
				     struct plugin_ksym_context *ctx)
{
	struct tep_event **events;
	struct ksym_hit_event *ev;
	int i;

	if (!kshark_is_tep(stream))
		return false;

	ctx->tep = kshark_get_tep(stream);
	if (!ctx->tep)
		return false;

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
		if (ev->addr && ev->ip && ev->access)
			ctx->nr_events++;
	}
	if (!ctx->nr_events)
		return false;

	ctx->data = kshark_init_data_container();
	return ctx->data != NULL;
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
