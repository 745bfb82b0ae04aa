// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_plugin: the trace-cmd plugin's print handlers (ksym-plugin/
 * plugin_ksym.c), as trace-cmd report and KernelShark run them: one record
 * printed with tep_print_event() on a tep_handle that has the formats and
 * kallsyms of kshark-ksym/tests/ksym-hits.dat and the plugin loaded.
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

static struct tracecmd_input *fixture;
static struct tep_handle *tep;
static struct tep_event *events[2];
static int fixed_size[2];	/* where each event's fixed fields end */
static struct trace_seq seq;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int i, j;

	(void)argc;
	(void)argv;
	fixture = fuzz_open_fixture("kshark-ksym/tests/ksym-hits.dat");
	tep = tracecmd_get_tep(fixture);
	events[0] = tep_find_event_by_name(tep, "ksym", "ksym_stack");
	events[1] = tep_find_event_by_name(tep, "ksym", "ksym_branches");
	if (!events[0] || !events[1]) {
		fprintf(stderr, "fuzz_plugin: the fixture has no ksym_stack or ksym_branches\n");
		exit(2);
	}
	for (i = 0; i < 2; i++) {
		struct tep_format_field **fields = tep_event_fields(events[i]);

		for (j = 0; fields && fields[j]; j++)
			if (fields[j]->offset + fields[j]->size > fixed_size[i])
				fixed_size[i] = fields[j]->offset + fields[j]->size;
		free(fields);
	}
	TEP_PLUGIN_LOADER(tep);
	trace_seq_init(&seq);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tep_event *ev;
	struct tep_record rec = { .ts = 1000 };
	int big, long_size;
	unsigned char *buf;
	size_t len;
	uint8_t sel;

	if (size < 1 + FUZZ_MIN_RECORD)
		return 0;
	sel = data[0];
	ev = events[sel & 1];
	big = tep_is_file_bigendian(tep);
	long_size = tep_get_long_size(tep);
	if (sel & 2)
		big = !big;
	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	if (sel & 4)
		tep_set_long_size(tep, 4);

	/* Exactly the record's size: ASan sees a read past it. */
	len = size - 1;
	if (len < (size_t)fixed_size[sel & 1])
		len = fixed_size[sel & 1];
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
