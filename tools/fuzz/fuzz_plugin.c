// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_plugin: the trace-cmd plugin's print handlers (ksym-plugin/
 * plugin_ksym.c), as trace-cmd report and KernelShark run them: one record
 * printed with tep_print_event() on a tep_handle that has the formats and
 * kallsyms of kshark-ksym/tests/ksym-hits.dat (ksym_stack, ksym_branches)
 * or of kshark-ksym/tests/ksym-values.dat (ksym_hit with old and has_old,
 * which the plugin prints itself) and the plugin loaded.
 *
 * Input: a selector byte, then one record (bytes; its common_type is
 * overwritten with the id of the event the selector picks, so that the
 * fuzzer need not find the ids). A record shorter than the event's fixed
 * fields is padded with zeros up to them: when a handler fails,
 * libtraceevent prints the fields itself (tep_print_fields()), reading
 * them without looking at the record's size, and that is not the
 * plugin's code. What the plugin reads past them (the __data_loc arrays)
 * is checked against the record's size. Selector bits:
 *   0     ksym_stack or ksym_branches
 *   1     the file is of the other byte order than the fixture
 *   2     the file's longs are 4 bytes
 *   3     ksym_hit of ksym-values.dat instead (bit 0 does not count)
 */
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "fuzz.h"

int TEP_PLUGIN_LOADER(struct tep_handle *tep);

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NR_EVENTS	3

static struct tracecmd_input *fixture[2];
static struct tep_event *events[NR_EVENTS];
static int fixed_size[NR_EVENTS];	/* where each event's fixed fields end */
static struct trace_seq seq;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tep_handle *tep;
	int i, j;

	(void)argc;
	(void)argv;
	fixture[0] = fuzz_open_fixture("kshark-ksym/tests/ksym-hits.dat");
	fixture[1] = fuzz_open_fixture("kshark-ksym/tests/ksym-values.dat");
	tep = tracecmd_get_tep(fixture[0]);
	events[0] = tep_find_event_by_name(tep, "ksym", "ksym_stack");
	events[1] = tep_find_event_by_name(tep, "ksym", "ksym_branches");
	TEP_PLUGIN_LOADER(tep);
	tep = tracecmd_get_tep(fixture[1]);
	events[2] = tep_find_event_by_name(tep, "ksym", "ksym_hit");
	TEP_PLUGIN_LOADER(tep);
	if (!events[0] || !events[1] || !events[2]) {
		fprintf(stderr, "fuzz_plugin: the fixtures have no ksym_stack, ksym_branches or ksym_hit\n");
		exit(2);
	}
	for (i = 0; i < NR_EVENTS; i++) {
		struct tep_format_field **fields = tep_event_fields(events[i]);

		for (j = 0; fields && fields[j]; j++)
			if (fields[j]->offset + fields[j]->size > fixed_size[i])
				fixed_size[i] = fields[j]->offset + fields[j]->size;
		free(fields);
	}
	trace_seq_init(&seq);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_record rec = { .ts = 1000 };
	struct tep_handle *tep;
	struct tep_event *ev;
	int big, long_size, e;
	unsigned char *buf;
	size_t len;
	uint8_t sel;

	if (size < 1 + FUZZ_MIN_RECORD)
		return 0;
	sel = data[0];
	e = sel & 8 ? 2 : sel & 1;
	ev = events[e];
	tep = ev->tep;
	big = tep_is_file_bigendian(tep);
	long_size = tep_get_long_size(tep);
	if (sel & 2)
		big = !big;
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (sel & 4)
		tep_set_long_size(tep, 4);

	/* Exactly the record's size: ASan sees a read past it. */
	len = size - 1;
	if (len < (size_t)fixed_size[e])
		len = fixed_size[e];
	buf = calloc(1, len);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	buf[0] = big ? ev->id >> 8 : ev->id & 0xff;
	buf[1] = big ? ev->id & 0xff : ev->id >> 8;
	rec.data = buf;
	rec.size = len;

	trace_seq_reset(&seq);
	tep_print_event(tep, &seq, &rec, "%s: %s", TEP_PRINT_NAME, TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	free(buf);

	/* Back to the fixture's own byte order and long size. */
	if (sel & 2)
		big = !big;
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	return 0;
}
