// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_ksym.c - libtraceevent plugin for the ksym tracer's events
 *
 * The kernel prints ksym:ksym_stack and ksym:ksym_branches with helpers of
 * its own (one "=> symbol+offset" line per frame, one "from -> to" line per
 * branch), which libtraceevent cannot run from the print format: without
 * this plugin trace-cmd report and KernelShark show "[FAILED TO PARSE]" and
 * raw bytes. With it they print what the kernel's trace file prints, with
 * the symbols from the trace.dat's kallsyms.
 *
 * ksym:ksym_hit with the old value (fields old and has_old) is printed here
 * too, as the kernel prints it: "old=" has a prefix chosen by has_old, which
 * a print format can only say with nested conditionals (libtraceevent 1.7
 * gets them wrong unless parenthesized), and a has_old the kernel does not
 * write (a crafted file's) is said to be unknown. Older ksym_hit events are
 * left to their print format.
 *
 * Install as plugin_ksym.so in a libtraceevent plugin directory, e.g.
 * ~/.local/lib/traceevent/plugins or /usr/lib/x86_64-linux-gnu/traceevent/plugins.
 */
#include <stdio.h>
#include <string.h>

#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

/* One address as the kernel's %pS would, as far as kallsyms in the trace allows. */
static void ksym_print_addr(struct trace_seq *s, struct tep_handle *tep,
			    unsigned long long addr)
{
	const char *func = tep_find_function(tep, addr);

	if (func)
		trace_seq_printf(s, "%s+0x%llx", func,
				 addr - tep_find_function_address(tep, addr));
	else
		trace_seq_printf(s, "0x%llx", addr);
}

/*
 * Fixed field @name of @record, as tep_get_field_val() reads it, if the
 * record holds it: the format and the record come from the file, which
 * may put a field past the record's end. The field, or NULL.
 */
static struct tep_format_field *ksym_field_val(struct trace_seq *s,
					       struct tep_event *event,
					       struct tep_record *record,
					       const char *name,
					       unsigned long long *val)
{
	struct tep_format_field *f = tep_find_field(event, name);

	if (!f || f->offset < 0 || record->size < 0 ||
	    (f->size != 1 && f->size != 2 && f->size != 4 && f->size != 8) ||
	    (long)f->offset + f->size > record->size ||
	    tep_read_number_field(f, record->data, val)) {
		trace_seq_printf(s, "<CANT READ FIELD %s>", name);
		return NULL;
	}
	return f;
}

/*
 * The bytes of the dynamic array @name of @event in @record: where its
 * __data_loc says, which the file says. The data and its length in bytes
 * (*@len), or NULL when absent, not an array (@what says what it should
 * be), or outside the record; each is said in @s.
 */
static const char *ksym_get_dynamic(struct trace_seq *s, struct tep_event *event,
				    struct tep_record *record, const char *name,
				    const char *what, unsigned long *len)
{
	struct tep_format_field *f;
	unsigned long long loc;
	unsigned long off;

	/* A __data_loc: 16 bits of length and 16 of offset, from the file. */
	f = ksym_field_val(s, event, record, name, &loc);
	if (!f)
		return NULL;
	if (f->size != 4 || !(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		trace_seq_printf(s, "<%s: no %s>", name, what);
		return NULL;
	}
	off = loc & 0xffff;
	*len = loc >> 16;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		off += f->offset + f->size;
	if (off + *len > (unsigned long)record->size) {
		trace_seq_printf(s, "<%s: outside the record>", name);
		return NULL;
	}
	return (const char *)record->data + off;
}

/*
 * The dynamic array @name of @event in @record, as unsigned longs of the
 * traced kernel; returns how many there are (0 when absent, or when its
 * __data_loc points outside the record), and the data in *@data.
 */
static int ksym_get_longs(struct trace_seq *s, struct tep_event *event,
			  struct tep_record *record, const char *name,
			  const char **data)
{
	int long_size = tep_get_long_size(event->tep);
	unsigned long len = 0;

	*data = ksym_get_dynamic(s, event, record, name, "array of longs", &len);
	if (*data && long_size != 4 && long_size != 8) {
		trace_seq_printf(s, "<%s: no array of longs>", name);
		*data = NULL;
	}
	return *data ? len / long_size : 0;
}

static unsigned long long ksym_long_at(struct tep_event *event,
				       const char *data, int i)
{
	int long_size = tep_get_long_size(event->tep);

	return tep_read_number(event->tep, data + i * long_size, long_size);
}

/* What ksym_hit's access is, as the kernel's __print_symbolic() says it. */
static void ksym_print_access(struct trace_seq *s, unsigned long long access)
{
	static const char * const names[] = { NULL, "r--", "-w-", "rw-", "--x" };

	if (access < sizeof(names) / sizeof(names[0]) && names[access])
		trace_seq_puts(s, names[access]);
	else
		trace_seq_printf(s, "0x%llx", access);
}

/*
 * The prefix of ksym_hit's old value, by has_old (include/trace/events/
 * ksym.h): none (not known: old is 0), read before the access, the last
 * value seen (no prefix: both exact), or stale. Any other has_old is not
 * the kernel's: unknown.
 */
static const char *ksym_old_prefix(unsigned long long has_old)
{
	switch (has_old) {
	case 0:
		return "none:";
	case 1:
	case 2:
		return "";
	case 3:
		return "stale:";
	default:
		return "unknown:";
	}
}

/*
 * ksym_hit with old and has_old, as the kernel prints it: "pid_max -w-
 * ip=f+0x12 caller=f+0x12 value=0x8001 old=0x8000 addr=.. sp=.. rbp=..
 * flags=..". Older ksym_hit events (no has_old): their print format.
 */
static int ksym_hit_handler(struct trace_seq *s, struct tep_record *record,
			    struct tep_event *event, void *context)
{
	static const char * const names[] = {
		"addr", "ip", "caller", "sp", "bp", "flags", "value", "old",
		"access", "has_value", "has_old",
	};
	enum { ADDR, IP, CALLER, SP, BP, FLAGS, VALUE, OLD, ACCESS, HAS_VALUE,
	       HAS_OLD, NR_VALS };
	unsigned long long v[NR_VALS];
	unsigned long len = 0;
	const char *sym;
	size_t i;

	(void)context;
	if (!tep_find_field(event, "has_old") || !tep_find_field(event, "old"))
		return 1;
	/* As the other handlers: a field it cannot read is said, not -1. */
	for (i = 0; i < NR_VALS; i++)
		if (!ksym_field_val(s, event, record, names[i], &v[i]))
			return 0;
	sym = ksym_get_dynamic(s, event, record, "sym", "string", &len);
	if (!sym)
		return 0;
	trace_seq_printf(s, "%.*s ", (int)strnlen(sym, len), sym);
	ksym_print_access(s, v[ACCESS]);
	trace_seq_puts(s, " ip=");
	ksym_print_addr(s, event->tep, v[IP]);
	trace_seq_puts(s, " caller=");
	ksym_print_addr(s, event->tep, v[CALLER]);
	trace_seq_printf(s, " value=%s0x%llx old=%s0x%llx addr=%llx sp=%llx rbp=%llx flags=%llx",
			 v[HAS_VALUE] ? "" : "unread:", v[VALUE],
			 ksym_old_prefix(v[HAS_OLD]), v[OLD], v[ADDR], v[SP],
			 v[BP], v[FLAGS]);
	return 0;
}

static int ksym_stack_handler(struct trace_seq *s, struct tep_record *record,
			      struct tep_event *event, void *context)
{
	unsigned long long nr = 0;
	const char *ips;
	int i, n;

	(void)context;
	/*
	 * A field it cannot read is said as such; not -1: libtraceevent would
	 * then print the record's fields itself, reading past a short record.
	 */
	if (!ksym_field_val(s, event, record, "nr", &nr))
		return 0;
	n = ksym_get_longs(s, event, record, "ips", &ips);
	if ((unsigned long long)n > nr)
		n = (int)nr;
	for (i = 0; i < n; i++) {
		trace_seq_puts(s, "\n => ");
		ksym_print_addr(s, event->tep, ksym_long_at(event, ips, i));
	}
	return 0;
}

static int ksym_branches_handler(struct trace_seq *s, struct tep_record *record,
				 struct tep_event *event, void *context)
{
	unsigned long long nr = 0, source = 0;
	const char *ft;
	int i, n;

	(void)context;
	if (!ksym_field_val(s, event, record, "nr", &nr) ||
	    !ksym_field_val(s, event, record, "source", &source))
		return 0;
	trace_seq_puts(s, source == 1 ? "hardware" :
			  source == 2 ? "software" : "none");
	n = ksym_get_longs(s, event, record, "from_to", &ft) / 2;
	if ((unsigned long long)n > nr)
		n = (int)nr;
	for (i = 0; i < n; i++) {
		trace_seq_puts(s, "\n ");
		ksym_print_addr(s, event->tep, ksym_long_at(event, ft, 2 * i));
		trace_seq_puts(s, " -> ");
		ksym_print_addr(s, event->tep, ksym_long_at(event, ft, 2 * i + 1));
	}
	return 0;
}

static const struct {
	const char		*event;
	tep_event_handler_func	handler;
} ksym_handlers[] = {
	{ "ksym_hit",		ksym_hit_handler },
	{ "ksym_stack",		ksym_stack_handler },
	{ "ksym_branches",	ksym_branches_handler },
};

#define KSYM_NR_HANDLERS (sizeof(ksym_handlers) / sizeof(ksym_handlers[0]))

int TEP_PLUGIN_LOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < KSYM_NR_HANDLERS; i++)
		tep_register_event_handler(tep, -1, "ksym", ksym_handlers[i].event,
					   ksym_handlers[i].handler, NULL);
	return 0;
}

void TEP_PLUGIN_UNLOADER(struct tep_handle *tep)
{
	size_t i;

	for (i = 0; i < KSYM_NR_HANDLERS; i++)
		tep_unregister_event_handler(tep, -1, "ksym", ksym_handlers[i].event,
					     ksym_handlers[i].handler, NULL);
}
