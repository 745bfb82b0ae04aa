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
 *
 * Where ksym_hit has "old" and "has_old" (the value before the access, and
 * how it is known), a hit whose old value is known and differs from its
 * "value" is counted as one that changed the value. A has_old the kernel
 * does not write (a crafted file's) is taken as not known.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "tracedat.h"
#include "utils.h"

#define MAX_FRAMES	128
/*
 * CPUs a hit waits for its callchain on: the file's CPU count, grown up to
 * this (NR_CPUS of arm64 and x86 distribution kernels) when a record says
 * its CPU is past it. A hit on a CPU beyond is counted without a callchain.
 */
#define MAX_CPUS	8192

/* ksym_hit's has_old (include/trace/events/ksym.h): how old is known. */
enum { OLD_NONE, OLD_READ, OLD_LAST, OLD_STALE };

struct pending {
	bool		valid;
	char		symbol[256];
	char		caller[256];
	char		comm[64];
	char		cpu[16];
	bool		changed;
};

struct tracedat_reader {
	struct report		*r;
	struct tracedat_info	*info;
	struct tep_handle	*tep;
	struct tep_event	*hit, *stack;
	/* ksym_hit's fields; caller, sym, old and has_old are NULL in older files */
	struct tep_format_field	*addr_field, *ip_field, *len_field;
	struct tep_format_field	*caller_field, *sym_field;
	struct tep_format_field	*value_field, *has_value_field;
	struct tep_format_field	*old_field, *has_old_field;
	/* the callchain: ksym_stack's "ips", or kernel_stack's "caller" */
	struct tep_format_field	*frames_field;
	bool			ftrace_stack;	/* kernel_stack, not ksym_stack */
	struct tep_format_field	*size_field;	/* kernel_stack's "size" */
	/* libtraceevent reads every record's type and pid from here on */
	int			header_size;
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
	h.changed = p->changed;
	if (report_add(c->r, &h))
		c->err = -1;
	p->valid = false;
}

/*
 * The value of fixed field @f of @rec, in the file's byte order; false when
 * the record is too short to hold it (a crafted file's format may put a
 * field anywhere) or the field is not a number.
 */
bool tracedat_field_val(const struct tep_format_field *f,
			const struct tep_record *rec, unsigned long long *val)
{
	if (!f || f->offset < 0 || rec->size < 0 ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    (long)f->offset + f->size > rec->size)
		return false;
	return !tep_read_number_field((struct tep_format_field *)f, rec->data, val);
}

/*
 * The bytes of array or string field @f of @rec and their count: where a
 * __data_loc (or __rel_loc) points, or a fixed array. NULL unless every
 * byte is inside the record: the location comes from the file.
 */
const void *tracedat_field_data(const struct tep_format_field *f,
				const struct tep_record *rec, unsigned int *len)
{
	unsigned long long loc;
	unsigned long off;

	if (!f)
		return NULL;
	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		if (f->offset < 0 || f->size < 0 || rec->size < f->offset)
			return NULL;
		off = f->offset;
		*len = f->size;
		/* A fixed array may be cut short by the record's end. */
		if (off + *len > (unsigned long)rec->size)
			*len = rec->size - off;
	} else {
		/* __data_loc and __rel_loc: 16 bits of length, 16 of offset */
		if (f->size != 4 || !tracedat_field_val(f, rec, &loc))
			return NULL;
		off = loc & 0xffff;
		*len = loc >> 16;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += f->offset + f->size;
		if (off + *len > (unsigned long)rec->size)
			return NULL;
	}
	return (const char *)rec->data + off;
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
	unsigned int len = 0;
	const char *s;

	s = tracedat_field_data(c->sym_field, rec, &len);
	if (!s)
		return false;
	len = strnlen(s, len);
	if (!len)
		return false;
	snprintf(buf, size, "%.*s", (int)len, s);
	return true;
}

/*
 * Whether the hit of @rec changed the value: its value read, its old value
 * known (read before the access, the last value seen, or that, stale) and
 * not its value. False when a field is missing or outside the record.
 */
static bool hit_changed(struct tracedat_reader *c, struct tep_record *rec)
{
	unsigned long long has_value, has_old, value, old;

	if (!tracedat_field_val(c->has_old_field, rec, &has_old) ||
	    has_old < OLD_READ || has_old > OLD_STALE ||
	    !tracedat_field_val(c->has_value_field, rec, &has_value) || !has_value ||
	    !tracedat_field_val(c->value_field, rec, &value) ||
	    !tracedat_field_val(c->old_field, rec, &old))
		return false;
	return value != old;
}

/* Where the hits of @cpu wait for their callchain; NULL past MAX_CPUS. */
static struct pending *pending_of(struct tracedat_reader *c, int cpu)
{
	struct pending *pend;
	int n;

	if (cpu < 0 || cpu >= MAX_CPUS)
		return NULL;
	if (cpu >= c->nr_cpus) {
		n = cpu + 1;
		pend = realloc(c->pend, n * sizeof(*pend));
		if (!pend) {
			c->err = -1;
			return NULL;
		}
		memset(pend + c->nr_cpus, 0, (n - c->nr_cpus) * sizeof(*pend));
		c->pend = pend;
		c->nr_cpus = n;
	}
	return &c->pend[cpu];
}

static int on_hit(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	unsigned long long addr = 0, ip = 0, len = 0;
	struct pending *p, alone;
	char sym[200];

	c->info->hits++;
	p = pending_of(c, cpu);
	if (!p)
		p = &alone;
	else if (p->valid)
		emit(c, p, NULL, 0);
	tracedat_field_val(c->addr_field, rec, &addr);
	tracedat_field_val(c->ip_field, rec, &ip);
	tracedat_field_val(c->len_field, rec, &len);
	tracedat_field_val(c->caller_field, rec, &ip);
	if (!sym_name(c, rec, sym, sizeof(sym)))
		addr_name(c->tep, addr, true, sym, sizeof(sym));
	snprintf(p->symbol, sizeof(p->symbol), "%s/%llu", sym, len);
	addr_name(c->tep, ip, false, p->caller, sizeof(p->caller));
	snprintf(p->comm, sizeof(p->comm), "%s",
		 tep_data_comm_from_pid(c->tep, tep_data_pid(c->tep, rec)));
	snprintf(p->cpu, sizeof(p->cpu), "cpu%d", cpu);
	p->changed = hit_changed(c, rec);
	p->valid = true;
	/* No callchain can find a hit of a CPU out of range: add it now. */
	if (p == &alone)
		emit(c, p, NULL, 0);
	return 0;
}

/* Entry @i of an array of the traced kernel's longs, in the file's byte order. */
static unsigned long long long_at(struct tep_handle *tep, const void *raw,
				  int lsize, int i)
{
	return tep_read_number(tep, (const char *)raw + (size_t)i * lsize, lsize);
}

static bool unused_entry(unsigned long long v, int lsize)
{
	return !v || v == (lsize == 8 ? ~0ULL : 0xffffffffULL);
}

int tracedat_stack_frames(struct tep_handle *tep,
			  const struct tep_format_field *frames,
			  const struct tep_format_field *size_field, bool ftrace,
			  const struct tep_record *rec, unsigned long long *ip,
			  int max)
{
	unsigned long long size;
	unsigned int len = 0;
	int lsize, nr, i;
	const void *raw;

	raw = tracedat_field_data(frames, rec, &len);
	lsize = tep_get_long_size(tep);
	/* The file says how long the traced kernel's longs are: 4 or 8. */
	if (!raw || (lsize != 4 && lsize != 8))
		return -1;
	if (ftrace && !(frames->flags & TEP_FIELD_IS_DYNAMIC))
		/*
		 * ftrace's kernel_stack: its format says "caller[8]", its
		 * records hold "size" entries, as many as the record has room
		 * for after the field's offset.
		 */
		len = rec->size - frames->offset;
	nr = len / lsize;
	if (ftrace) {
		if (tracedat_field_val(size_field, rec, &size) &&
		    size < (unsigned long long)nr)
			nr = size;
		/* and its unused entries are zero (or ULONG_MAX) */
		while (nr > 0 && unused_entry(long_at(tep, raw, lsize, nr - 1), lsize))
			nr--;
	}
	if (nr > max)
		nr = max;
	for (i = 0; i < nr; i++)
		ip[i] = long_at(tep, raw, lsize, i);
	return nr;
}

static int on_stack(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	static char names[MAX_FRAMES][128];
	unsigned long long ip[MAX_FRAMES];
	const char *frames[MAX_FRAMES];
	struct pending *p;
	int nr, i;

	c->info->stacks++;
	if (cpu < 0 || cpu >= c->nr_cpus || !c->pend[cpu].valid)
		return 0;
	p = &c->pend[cpu];
	nr = tracedat_stack_frames(c->tep, c->frames_field, c->size_field,
				   c->ftrace_stack, rec, ip, MAX_FRAMES);
	if (nr < 0) {
		emit(c, p, NULL, 0);
		return 0;
	}
	for (i = 0; i < nr; i++) {
		addr_name(c->tep, ip[i], false, names[i], sizeof(names[i]));
		frames[i] = names[i];
	}
	emit(c, p, frames, nr);
	return 0;
}

int tracedat_reader_add(struct tracedat_reader *c, struct tep_record *rec, int cpu)
{
	int id;

	/* libtracecmd: -1 (or any negative count) for "lost, count unknown" */
	if (rec->missed_events) {
		c->info->lost_unknown |= rec->missed_events < 0;
		c->info->missed += rec->missed_events > 0 ? rec->missed_events : 1;
	}
	/* libtraceevent reads the type and the pid without looking at the size */
	if (!rec->data || rec->size < c->header_size)
		return c->err;
	id = tep_data_type(c->tep, rec);
	if (id == c->hit->id)
		on_hit(c, rec, cpu);
	else if (c->stack && id == c->stack->id)
		on_stack(c, rec, cpu);
	return c->err;
}

/*
 * The bytes every record must have for libtraceevent to read its type and
 * pid: it reads them where the first event's format puts them, without
 * looking at the record's size. INT_MAX (no record is read) for a format
 * that puts them before the record.
 */
static int header_size(struct tep_handle *tep)
{
	static const char * const names[] = { "common_type", "common_pid" };
	struct tep_event *first = tep_get_event(tep, 0);
	struct tep_format_field *f;
	int i, size = 0;

	for (i = 0; first && i < 2; i++) {
		f = tep_find_common_field(first, names[i]);
		/* tep_read_number() reads nothing of other sizes */
		if (!f || (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8))
			continue;
		if (f->offset < 0 || f->offset > 0xffff)
			return INT_MAX;
		if (f->offset + f->size > size)
			size = f->offset + f->size;
	}
	return size;
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
	c->addr_field = tep_find_field(c->hit, "addr");
	c->ip_field = tep_find_field(c->hit, "ip");
	c->len_field = tep_find_field(c->hit, "len");
	c->caller_field = tep_find_field(c->hit, "caller");
	c->sym_field = tep_find_field(c->hit, "sym");
	c->value_field = tep_find_field(c->hit, "value");
	c->has_value_field = tep_find_field(c->hit, "has_value");
	c->old_field = tep_find_field(c->hit, "old");
	c->has_old_field = tep_find_field(c->hit, "has_old");
	/* Any buffer of the file with them: the report says what changed. */
	if (c->old_field && c->has_old_field)
		r->old_values = true;
	debug_msg("ksym_hit has %s, %s, %s\n",
		  c->caller_field ? "caller" : "no caller (counted for ip)",
		  c->sym_field ? "sym" : "no sym (named by addr)",
		  c->old_field && c->has_old_field ? "old" : "no old (no changed count)");
	/*
	 * The callchain of a hit: the tracer's ksym_stack, or, from a kernel
	 * that gives the accessor's callchain through options/stacktrace,
	 * ftrace's kernel_stack.
	 */
	c->stack = tep_find_event_by_name(tep, "ksym", "ksym_stack");
	if (c->stack) {
		c->frames_field = tep_find_field(c->stack, "ips");
	} else {
		c->stack = tep_find_event_by_name(tep, "ftrace", "kernel_stack");
		c->ftrace_stack = true;
		c->frames_field = c->stack ? tep_find_field(c->stack, "caller") : NULL;
		c->size_field = c->stack ? tep_find_field(c->stack, "size") : NULL;
	}
	c->header_size = header_size(tep);
	c->nr_cpus = tep_get_cpus(tep);
	if (c->nr_cpus <= 0 || c->nr_cpus > MAX_CPUS)
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
