// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_tracedat: whole trace.dat files through ksym-ctl report: the input
 * is written to a memfd and read by tracedat_read() (libtracecmd's
 * tracecmd_open(), every buffer, the records into the report), then the
 * report is printed, as `ksym-ctl report -g -i FILE` does. This reaches
 * the readers through libtracecmd's own parsing of the file (headers,
 * formats, kallsyms, pages, instances), so a crash may also be
 * libtracecmd's: the stack trace tells.
 *
 * Input: a trace.dat file.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "report_tree.h"
#include "tracedat.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int fd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fd = memfd_create("fuzz.dat", 0);
	if (fd < 0) {
		perror("fuzz_tracedat: memfd_create");
		exit(2);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tracedat_info info;
	struct report r = { 0 };

	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	r.callchain = true;
	if (report_parse_sort(&r, "symbol,caller"))
		abort();
	if (!tracedat_read(path, &r, &info)) {
		report_sort(&r);
		report_print(fuzz_devnull(), &r, "fuzz");
		report_print_json(fuzz_devnull(), &r, "fuzz");
	}
	report_free(&r);
	return 0;
}
