// SPDX-License-Identifier: LGPL-2.1
/*
 * fuzz_format: crafted tracefs event formats (events/SYSTEM/EVENT/format,
 * as a trace.dat file carries them) through every reader of the tools that
 * looks fields up in them (review 11-28 L10): the formats are parsed with
 * libtraceevent's tep_parse_event(), as libtracecmd does for a file, then
 * records are decoded on them by
 *   - the KernelShark plugin (kshark-ksym/ksym_hits.c, compiled in: its
 *     ksym_read_field()/ksym_read_str() take the offsets and sizes as the
 *     format says), ksym_hits_resolve() and the tooltips;
 *   - the trace-cmd plugin's print handlers (ksym-plugin/plugin_ksym.c,
 *     ksym_field_val(), ksym_get_dynamic()), as tep_print_event() calls
 *     them (format_print());
 *   - ksym-ctl report's reader (ksym-ctl/tracedat.c: tracedat_field_val(),
 *     tracedat_field_data()), the report printed as text and as JSON (the
 *     JSON parsed and its hit count checked);
 *   - ksym-ctl uaf's reader (ksym-ctl/uaf_read.c) and its analysis.
 * Each input has a tep_handle of its own: the crafted formats first, then
 * the VM kernel's formats of ksym-ctl uaf's events (tests/uaf_formats.h)
 * whose names the input did not give (so that uaf's reader has all it
 * needs, and a crafted ksym_hit meets real kmem events).
 *
 * Input: a selector byte, then 1-3 format texts each ended by a NUL byte
 * (system "ksym"), then records (fuzz.h); a record's first byte picks its
 * event (its common_type is overwritten with that event's id). Selector:
 *   0-1   how many formats (0 and 1: one)
 *   2     big-endian file
 *   3     4-byte longs
 *   4     report --json (else the text, -c)
 *   5     report -g
 *   6     uaf --kfree-site (else --cache)
 *
 * libtraceevent itself reads common_type and common_pid where the format
 * puts them without looking at a record's size: inputs whose common_type
 * or common_pid is not inside the first FUZZ_MIN_RECORD bytes are not
 * run (that is the library's, not the tools'). Their print formats are
 * replaced by an empty one (format_text()), and formats whose field
 * declarations are not plain C are not parsed (format_decls_plain()):
 * libtraceevent crashes on both.
 */
#include "../kshark-ksym/ksym_hits.c"

#include <ctype.h>

#include <traceevent/trace-seq.h>

#include "fuzz.h"
#include "fuzz_reports.h"
#include "kallsyms.h"
#include "tests/uaf_formats.h"
#include "uaf.h"
#include "uaf_read.h"

int TEP_PLUGIN_LOADER(struct tep_handle *tep);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FORMAT_MAX_FORMATS	3

static struct kallsyms ks;
static struct trace_seq seq;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (kallsyms_load(&ks, strdup(uaf_kallsyms_text)))
		abort();
	trace_seq_init(&seq);
	return 0;
}

/* Whether the event of format @text is one of the input's (@names, @nr). */
static bool format_given(char names[][64], int nr, const char *text)
{
	char name[64];
	int i;

	if (sscanf(text, "name: %63s", name) != 1)
		return false;
	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return true;
	return false;
}

/* Whether libtraceevent's own unbounded reads stay inside FUZZ_MIN_RECORD. */
static bool common_fields_inside(struct tep_event *ev)
{
	static const char *const common[] = { "common_type", "common_pid" };
	struct tep_format_field *f;
	size_t i;

	for (i = 0; i < 2; i++) {
		f = tep_find_common_field(ev, common[i]);
		if (f && (f->offset < 0 || f->size < 0 ||
			  (long)f->offset + f->size > FUZZ_MIN_RECORD))
			return false;
	}
	return true;
}

/*
 * The format text @data of @len bytes, its print format replaced by an
 * empty one: libtraceevent parses the print format (and crashes on crafted
 * ones: README.md), and no tool reads it, they look the fields up.
 */
static char *format_text(const uint8_t *data, size_t len)
{
	static const char print[] = "\nprint fmt: \"\"\n";
	char *text = malloc(len + sizeof(print)), *p;

	if (!text)
		return NULL;
	memcpy(text, data, len);
	text[len] = '\0';
	p = strstr(text, "\nprint fmt:");
	strcpy(p ? p : text + strlen(text), print);
	return text;
}

/*
 * Whether each "field:" declaration of @text is a C declaration as the
 * kernel writes them: identifiers, blanks and '*', and brackets around
 * digits alone. libtraceevent 1.7 dereferences NULL on an array size that
 * is no number ("unsigned long[\xd8] from_to"): its parser, not the tools'
 * use of what it parsed, which is the offsets, sizes and flags (fuzzed).
 */
static bool format_decls_plain(const char *text)
{
	const char *p = text, *end;
	bool in_brackets;

	while ((p = strstr(p, "field:"))) {
		p += 6;
		end = strchr(p, ';');
		if (!end)
			return true;	/* libtraceevent refuses it */
		for (in_brackets = false; p < end; p++) {
			if (*p == '[' && !in_brackets)
				in_brackets = true;
			else if (*p == ']' && in_brackets)
				in_brackets = false;
			else if (in_brackets ? !isdigit((unsigned char)*p) :
				 !(isalnum((unsigned char)*p) || strchr("_ \t*", *p)))
				return false;
		}
		if (in_brackets)
			return false;
	}
	return true;
}

/*
 * A tep_handle of the input's formats and uaf's others; *@used bytes of
 * @data are the formats. NULL when a format's common fields are where
 * libtraceevent would read past a record, or there is no event.
 */
static struct tep_handle *format_tep(uint8_t sel, const uint8_t *data,
				     size_t size, size_t *used)
{
	char names[FORMAT_MAX_FORMATS][64] = { { 0 } };
	int i, n = (sel & 3) ? (sel & 3) : 1, nr = 0;
	struct tep_handle *tep = tep_alloc();
	const uint8_t *nul;
	size_t k, len;
	char *text;

	*used = 0;
	if (!tep)
		return NULL;
	tep_set_long_size(tep, sel & 8 ? 4 : 8);
	tep_set_file_bigendian(tep, sel & 4 ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, TEP_LITTLE_ENDIAN);
	tep_set_cpus(tep, FUZZ_CPU_MASK + 1);
	for (i = 0; i < n && *used < size; i++) {
		nul = memchr(data + *used, 0, size - *used);
		len = nul ? (size_t)(nul - data - *used) : size - *used;
		text = format_text(data + *used, len);
		if (text && format_decls_plain(text) &&
		    !tep_parse_event(tep, text, strlen(text), "ksym") &&
		    sscanf(text, "name: %63s", names[nr]) == 1)
			nr++;
		free(text);
		*used += nul ? len + 1 : len;
	}
	for (k = 0; k < sizeof(uaf_formats) / sizeof(uaf_formats[0]); k++)
		if (!format_given(names, nr, uaf_formats[k].text))
			tep_parse_event(tep, uaf_formats[k].text,
					strlen(uaf_formats[k].text), uaf_formats[k].system);
	n = tep_get_events_count(tep);
	for (i = 0; i < n; i++)
		if (!common_fields_inside(tep_get_event(tep, i)))
			break;
	if (!n || i < n) {
		tep_free(tep);
		return NULL;
	}
	return tep;
}

/* The id of the event @r's first byte picks, written as its common_type. */
static struct tep_event *format_pick(struct tep_handle *tep, struct fuzz_record *r)
{
	struct tep_event *ev;
	unsigned char *p = r->data;

	ev = tep_get_event(tep, p[0] % tep_get_events_count(tep));
	p[0] = tep_is_file_bigendian(tep) ? ev->id >> 8 : ev->id & 0xff;
	p[1] = tep_is_file_bigendian(tep) ? ev->id & 0xff : ev->id >> 8;
	return ev;
}

/* KernelShark: the hits loaded, resolved and described. */
static void format_kshark(struct tep_handle *tep, struct fuzz_record *recs, int nr)
{
	struct plugin_ksym_context *ctx = calloc(1, sizeof(*ctx));
	struct kshark_entry entry;
	ssize_t h;
	int i;

	if (!ctx)
		return;
	if (!ksym_hits_init(ctx, tep))
		goto out;
	for (i = 0; i < nr; i++) {
		struct tep_record rec;

		fuzz_tep_record(&rec, &recs[i], 1000 * (nr - i));
		memset(&entry, 0, sizeof(entry));
		entry.event_id = tep_data_type(tep, &rec);
		entry.cpu = rec.cpu;
		entry.ts = rec.ts;
		ksym_hits_add(ctx, &rec, &entry);
	}
	if (ctx->nr_hits && !ksym_hits_resolve(ctx)) {
		for (h = 0; h < ctx->nr_hits; h++) {
			free(ksym_hit_describe(ctx, &ctx->hits[h]));
			free(ksym_hit_accessor(ctx, &ctx->hits[h]));
		}
	}
out:
	ksym_free_context(ctx);
}

/*
 * trace-cmd report: each record of an event the plugin handles given to
 * its handler, as tep_print_event() would. Called directly: when a handler
 * declines (1) or fails, tep_print_event() prints the record itself (the
 * print format, or tep_print_fields()), and libtraceevent 1.7 reads a
 * string field there without bounding it by the record (a heap over-read
 * this harness found within minutes when it printed through
 * tep_print_event(): the library's, not the plugin's).
 */
static void format_print(struct tep_handle *tep, struct fuzz_record *recs,
			 struct tep_event **evs, int nr)
{
	struct tep_record rec = { .ts = 1000 };
	int i;

	TEP_PLUGIN_LOADER(tep);
	for (i = 0; i < nr; i++) {
		if (!evs[i]->handler)
			continue;
		rec.data = recs[i].data;
		rec.size = recs[i].size;
		rec.cpu = recs[i].cpu;
		trace_seq_reset(&seq);
		evs[i]->handler(&seq, &rec, evs[i], evs[i]->context);
		trace_seq_terminate(&seq);
	}
}

/* ksym-ctl report: the reader, then the report as JSON (checked) or text. */
static void format_report(struct tep_handle *tep, uint8_t sel,
			  struct fuzz_record *recs, int nr)
{
	struct report r = { .callchain = sel & 0x20, .show_changed = true };

	if (report_parse_sort(&r, "symbol,caller"))
		abort();
	fuzz_report_records(&r, tep, recs, nr, sel & 0x10);
	report_free(&r);
}

/* ksym-ctl uaf: the reader on the formats, the analysis, the text. */
static void format_uaf(struct tep_handle *tep, uint8_t sel,
		       struct fuzz_record *recs, int nr)
{
	struct uaf_spec sp = { .cache = "ksym_hitgen_cache", .site = "ksym_hitgen_uaf",
			       .site_start = 0xffffffffa0000000ULL,
			       .site_end = 0xffffffffa0000200ULL, .object_size = 200,
			       .mode = sel & 0x40 ? UAF_KFREE : UAF_CACHE };
	struct uaf_coverage cov = { 0 };
	struct uaf_report rep = { .spec = &sp, .cov = &cov, .title = "fuzz" };
	struct uaf_reader_opts ro = { .hit_name = "ptr", .extent = 200,
				      .base_pid = 130, .page_size = 4096 };
	struct uaf_reader *rd = NULL;
	struct uaf_data d = { 0 };
	int i;

	ro.free_event = uaf_free_event(&sp);
	ro.alloc_event = uaf_alloc_event(&sp);
	if (uaf_reader_new(tep, &d, &ro, &rd))
		goto out;
	for (i = 0; i < nr; i++) {
		struct tep_record rec;

		fuzz_tep_record(&rec, &recs[i], 1000ULL * (i + 1));
		if (uaf_reader_add(rd, &rec, rec.cpu))
			break;
	}
	uaf_reader_tick(rd, true);
	uaf_analyze(&d, 200, &ks);
	uaf_print(fuzz_devnull(), &d, &rep, &ks);
	uaf_reader_free(rd);
out:
	uaf_data_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_event *evs[FUZZ_MAX_RECORDS];
	struct fuzz_record *recs = NULL;
	struct tep_handle *tep;
	size_t used;
	int nr, i;
	uint8_t sel;

	if (!size)
		return 0;
	sel = data[0];
	tep = format_tep(sel, data + 1, size - 1, &used);
	if (!tep)
		return 0;
	nr = fuzz_records_split(data + 1 + used, size - 1 - used, &recs);
	for (i = 0; i < nr; i++)
		evs[i] = format_pick(tep, &recs[i]);
	format_kshark(tep, recs, nr);
	format_report(tep, sel, recs, nr);
	format_uaf(tep, sel, recs, nr);
	format_print(tep, recs, evs, nr);
	fuzz_records_free(recs, nr);
	tep_free(tep);
	return 0;
}
