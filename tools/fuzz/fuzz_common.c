// SPDX-License-Identifier: GPL-2.0
/*
 * tools/fuzz: what the harnesses share (fuzz.h).
 */
#include <stdlib.h>
#include <string.h>

#include <trace-cmd.h>

#include "fuzz.h"

#ifndef KSYM_FUZZ_TOOLS
#error "build with -DKSYM_FUZZ_TOOLS=\"/abs/path/to/tools\" (the Makefile does)"
#endif

int fuzz_records_split(const uint8_t *data, size_t size,
		       struct fuzz_record **out)
{
	struct fuzz_record *recs;
	size_t len;
	int nr = 0;

	*out = NULL;
	recs = calloc(FUZZ_MAX_RECORDS, sizeof(*recs));
	if (!recs)
		return 0;
	while (size >= 3 && nr < FUZZ_MAX_RECORDS) {
		struct fuzz_record *r = &recs[nr];

		len = data[1] | (size_t)data[2] << 8;
		r->cpu = data[0] & FUZZ_CPU_MASK;
		r->lost = data[0] & FUZZ_CPU_LOST ? (data[0] & 0x40 ? -1 : 3) : 0;
		data += 3;
		size -= 3;
		if (len > size)
			len = size;
		if (len >= FUZZ_MIN_RECORD) {
			r->data = malloc(len);
			if (!r->data)
				break;
			memcpy(r->data, data, len);
			r->size = len;
			nr++;
		}
		data += len;
		size -= len;
	}
	*out = recs;
	return nr;
}

void fuzz_tep_record(struct tep_record *rec, const struct fuzz_record *r,
		     unsigned long long ts)
{
	memset(rec, 0, sizeof(*rec));
	rec->ts = ts;
	rec->cpu = r->cpu;
	rec->missed_events = r->lost;
	rec->data = r->data;
	rec->size = r->size;
}

void fuzz_records_free(struct fuzz_record *recs, int nr)
{
	int i;

	for (i = 0; recs && i < nr; i++)
		free(recs[i].data);
	free(recs);
}

const char *fuzz_tools_path(const char *rel)
{
	static char path[4096];
	const char *dir = getenv("KSYM_FUZZ_TOOLS");

	snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : KSYM_FUZZ_TOOLS, rel);
	return path;
}

struct tracecmd_input *fuzz_open_fixture(const char *rel)
{
	const char *path = fuzz_tools_path(rel);
	struct tracecmd_input *h;

	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h) {
		fprintf(stderr, "fuzz: cannot open the fixture %s (set KSYM_FUZZ_TOOLS)\n", path);
		exit(2);
	}
	return h;
}

FILE *fuzz_devnull(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f) {
		perror("fuzz: /dev/null");
		exit(2);
	}
	return f;
}

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
