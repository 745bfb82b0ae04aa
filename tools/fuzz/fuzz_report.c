// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_report: trace.dat records through ksym-ctl report (tracedat.c,
 * report_tree.c): the records are fed to the reader as libtracecmd would
 * (tracedat_reader_add()), then the report is built and printed as text,
 * with -g, or as JSON. The text is always that of -c (a changed column
 * where the formats have old values; without -c, the text takes the code
 * path of formats without them).
 *
 * Input: a selector byte, then records (fuzz.h). Selector bits:
 *   0     formats and kallsyms of kshark-ksym/tests/ksym-hits.dat (ksym_hit
 *         with caller and sym) or of ksym-ctl/tests/ksym-hitgen.dat (an
 *         older ksym_hit without them)
 *   1-2   --sort keys (four sets)
 *   3     -g
 *   4     --json (parsed, its hit counts checked against the report's)
 *   5     the file is of the other byte order than the fixture
 *   6     the file's longs are 4 bytes (a 32-bit kernel)
 *   7     bit 0 clear: the formats and kallsyms of kshark-ksym/tests/
 *         ksym-values.dat (ksym_hit with old and has_old) instead of
 *         ksym-hits.dat; bit 0 set: the file says it has 1 CPU (hits on
 *         other CPUs: L6)
 */
#include <stdlib.h>

#include <trace-cmd.h>

#include "fuzz.h"
#include "fuzz_reports.h"

static struct tracecmd_input *fixture[3];

static const char *const sorts[] = {
	"symbol,caller", "caller,comm", "cpu,symbol,comm,caller", "comm",
};

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fixture[0] = fuzz_open_fixture("kshark-ksym/tests/ksym-hits.dat");
	fixture[1] = fuzz_open_fixture("ksym-ctl/tests/ksym-hitgen.dat");
	fixture[2] = fuzz_open_fixture("kshark-ksym/tests/ksym-values.dat");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct report r = { 0 };
	struct fuzz_record *recs = NULL;
	struct tep_handle *tep;
	int big, long_size, cpus, nr = 0;
	uint8_t sel;

	if (!size)
		return 0;
	sel = data[0];
	tep = tracecmd_get_tep(fixture[sel & 1 ? 1 : sel & 0x80 ? 2 : 0]);
	big = tep_is_file_bigendian(tep);
	long_size = tep_get_long_size(tep);
	cpus = tep_get_cpus(tep);
	if (sel & 0x20)
		tep_set_file_bigendian(tep, big ? TEP_LITTLE_ENDIAN : TEP_BIG_ENDIAN);
	if (sel & 0x40)
		tep_set_long_size(tep, 4);
	if ((sel & 0x81) == 0x81)
		tep_set_cpus(tep, 1);

	r.callchain = sel & 0x08;
	r.show_changed = true;
	if (report_parse_sort(&r, sorts[(sel >> 1) & 3]))
		abort();
	nr = fuzz_records_split(data + 1, size - 1, &recs);
	if (fuzz_report_records(&r, tep, recs, nr, sel & 0x10))
		abort();	/* every fixture has ksym_hit */
	report_free(&r);
	fuzz_records_free(recs, nr);

	tep_set_file_bigendian(tep, big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, long_size);
	tep_set_cpus(tep, cpus);
	return 0;
}
