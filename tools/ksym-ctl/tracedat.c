// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: hits from a trace.dat (tracedat.h).
 *
 * The tracer writes, for each hit, a ksym_hit entry, then on the same CPU
 * the ksym_regs / ksym_stack / ksym_branches entries its options ask for.
 * A ksym_stack is therefore the callchain of the last ksym_hit of its CPU.
 *
 * A hit is counted for its ksym_hit's "caller" (the accessor, or for a hit
 * inside lock code the first function outside it, as trace_stat counts it)
 * and named by its "sym" (the watch's name, as ksym_trace_filter shows it).
 * Files from kernels whose ksym_hit has no such fields fall back to "ip"
 * and to the name of "addr".
 */
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "tracedat.h"
#include "utils.h"

#define MAX_FRAMES	128

struct pending {
	bool		valid;
	char		symbol[256];
	char		caller[256];
	char		comm[64];
	char		cpu[16];
};

struct tracedat_reader {
	struct report		*r;
	struct tracedat_info	*info;
	struct tep_handle	*tep;
	struct tep_event	*hit, *stack;
	struct tep_format_field	*caller_field;	/* NULL in older files */
	struct tep_format_field	*sym_field;	/* NULL in older files */
	const char		*stack_field;	/* "ips" or "caller" */
	struct pending		*pend;
	int			nr_cpus;
	int			err;
};

static void emit(struct tracedat_reader *c, struct pending *p, const char **frames, int nr)
{
	struct report_hit h = { 0 };

	h.val[KEY_SYMBOL] = p->symbol;
	h.val[KEY_CALLER] = p->caller;
	h.val[KEY_COMM] = p->comm;
	h.val[KEY_CPU] = p->cpu;
	h.frames = frames;
	h.nr_frames = nr;
	if (report_add(c->r, &h))
		c->err = -1;
	p->valid = false;
}

/* "name", "name+0x10" or the address, for a kernel address. */
static void addr_name(struct tep_handle *tep, unsigned long long addr,
		      bool offset, char *buf, size_t size)
{
	const char *fn = tep_find_function(tep, addr);
	unsigned long long start;

	if (!fn) {
		snprintf(buf, size, "0x%llx", addr);
		return;
	}
	start = tep_find_function_address(tep, addr);
	if (offset && addr != start)
		snprintf(buf, size, "%s+0x%llx", fn, addr - start);
	else
		snprintf(buf, size, "%s", fn);
}

/* The "sym" string of a ksym_hit, if it has one that is not empty. */
static bool sym_name(struct tracedat_reader *c, struct tep_record *rec,
		     char *buf, size_t size)
{
	const char *s;
	int len = 0;

	if (!c->sym_field)
		return false;
	s = tep_get_field_raw(NULL, c->hit, "sym", rec, &len, 0);
	if (!s || len <= 0 || !*s)
		return false;
	snprintf(buf, size, "%.*s", len, s);
	return true;
}

static int on_hit(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	unsigned long long addr = 0, ip = 0, len = 0;
	struct pending *p;
	char sym[200];

	if (cpu < 0 || cpu >= c->nr_cpus)
		return 0;
	p = &c->pend[cpu];
	if (p->valid)
		emit(c, p, NULL, 0);
	c->info->hits++;
	tep_get_field_val(NULL, c->hit, "addr", rec, &addr, 0);
	tep_get_field_val(NULL, c->hit, "ip", rec, &ip, 0);
	tep_get_field_val(NULL, c->hit, "len", rec, &len, 0);
	if (c->caller_field)
		tep_read_number_field(c->caller_field, rec->data, &ip);
	if (!sym_name(c, rec, sym, sizeof(sym)))
		addr_name(c->tep, addr, true, sym, sizeof(sym));
	snprintf(p->symbol, sizeof(p->symbol), "%s/%llu", sym, len);
	addr_name(c->tep, ip, false, p->caller, sizeof(p->caller));
	snprintf(p->comm, sizeof(p->comm), "%s",
		 tep_data_comm_from_pid(c->tep, tep_data_pid(c->tep, rec)));
	snprintf(p->cpu, sizeof(p->cpu), "cpu%d", cpu);
	p->valid = true;
	return 0;
}

static int on_stack(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	static char names[MAX_FRAMES][128];
	const char *frames[MAX_FRAMES];
	int len = 0, lsize, nr, i;
	struct pending *p;
	void *raw;

	c->info->stacks++;
	if (cpu < 0 || cpu >= c->nr_cpus || !c->pend[cpu].valid)
		return 0;
	p = &c->pend[cpu];
	raw = tep_get_field_raw(NULL, c->stack, c->stack_field, rec, &len, 0);
	lsize = tep_get_long_size(c->tep);
	if (!raw || lsize <= 0) {
		emit(c, p, NULL, 0);
		return 0;
	}
	nr = len / lsize;
	if (c->stack_field[0] == 'c') {
		unsigned long long size;

		/* ftrace's kernel_stack: "size" entries of "caller" are used */
		if (!tep_get_field_val(NULL, c->stack, "size", rec, &size, 0) &&
		    size < (unsigned long long)nr)
			nr = size;
		/* and its unused entries are zero (or ULONG_MAX) */
		while (nr > 0 && (lsize == 8 ?
				  ((unsigned long long *)raw)[nr - 1] + 1 <= 1 :
				  ((unsigned int *)raw)[nr - 1] + 1 <= 1))
			nr--;
	}
	if (nr > MAX_FRAMES)
		nr = MAX_FRAMES;
	for (i = 0; i < nr; i++) {
		unsigned long long a = lsize == 8 ? ((unsigned long long *)raw)[i] :
					((unsigned int *)raw)[i];

		addr_name(c->tep, a, false, names[i], sizeof(names[i]));
		frames[i] = names[i];
	}
	emit(c, p, frames, nr);
	return 0;
}

int tracedat_reader_add(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	int id = tep_data_type(c->tep, rec);

	if (rec->missed_events > 0)
		c->info->missed += rec->missed_events;
	if (id == c->hit->id)
		on_hit(c, rec, cpu);
	else if (c->stack && id == c->stack->id)
		on_stack(c, rec, cpu);
	return c->err;
}

int tracedat_reader_new(struct tep_handle *tep, struct report *r,
			struct tracedat_info *info, struct tracedat_reader **out)
{
	struct tracedat_reader *c;

	*out = NULL;
	if (!tep_find_event_by_name(tep, "ksym", "ksym_hit"))
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -1;
	c->r = r;
	c->info = info;
	c->tep = tep;
	c->hit = tep_find_event_by_name(tep, "ksym", "ksym_hit");
	c->caller_field = tep_find_field(c->hit, "caller");
	c->sym_field = tep_find_field(c->hit, "sym");
	debug_msg("ksym_hit has %s, %s\n",
		  c->caller_field ? "caller" : "no caller (counted for ip)",
		  c->sym_field ? "sym" : "no sym (named by addr)");
	/*
	 * The callchain of a hit: the tracer's ksym_stack, or, from a kernel
	 * that gives the accessor's callchain through options/stacktrace,
	 * ftrace's kernel_stack.
	 */
	c->stack = tep_find_event_by_name(tep, "ksym", "ksym_stack");
	c->stack_field = "ips";
	if (!c->stack) {
		c->stack = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
		c->stack_field = "caller";
	}
	c->nr_cpus = tep_get_cpus(tep);
	if (c->nr_cpus <= 0)
		c->nr_cpus = 1;
	c->pend = calloc(c->nr_cpus, sizeof(*c->pend));
	if (!c->pend) {
		free(c);
		return -1;
	}
	info->buffers++;
	*out = c;
	return 0;
}

int tracedat_reader_end(struct tracedat_reader *c)
{
	int i, err;

	if (!c)
		return 0;
	for (i = 0; i < c->nr_cpus; i++)
		if (c->pend[i].valid)
			emit(c, &c->pend[i], NULL, 0);
	err = c->err;
	free(c->pend);
	free(c);
	return err;
}

static int on_record(struct tracecmd_input *handle, struct tep_record *rec,
		     int cpu, void *data)
{
	(void)handle;
	return tracedat_reader_add(data, rec, cpu);
}

static int read_handle(struct tracecmd_input *h, struct report *r,
		       struct tracedat_info *info)
{
	struct tracedat_reader *c;

	if (tracedat_reader_new(tracecmd_get_tep(h), r, info, &c))
		return -1;
	if (!c)
		return 0;
	tracecmd_iterate_events(h, NULL, 0, on_record, c);
	return tracedat_reader_end(c);
}

int tracedat_read(const char *file, struct report *r, struct tracedat_info *info)
{
	struct tracecmd_input *h;
	int i, n, ret = -1;

	memset(info, 0, sizeof(*info));
	tracecmd_set_loglevel(config_debug ? TEP_LOG_ALL : TEP_LOG_CRITICAL);
	h = tracecmd_open(file, 0);
	if (!h) {
		err_msg("%s: cannot open as a trace.dat\n", file);
		return -1;
	}
	if (read_handle(h, r, info))
		goto cleanup;
	n = tracecmd_buffer_instances(h);
	for (i = 0; i < n; i++) {
		struct tracecmd_input *b = tracecmd_buffer_instance_handle(h, i);

		if (!b)
			continue;
		debug_msg("%s: buffer %s\n", file, tracecmd_buffer_instance_name(h, i));
		ret = read_handle(b, r, info);
		tracecmd_close(b);
		if (ret)
			goto cleanup;
	}
	if (!info->buffers) {
		err_msg("%s: no ksym:ksym_hit events (not recorded with ksym-ctl record or -p ksym?)\n",
			file);
		goto cleanup;
	}
	ret = 0;
cleanup:
	tracecmd_close(h);
	return ret;
}
