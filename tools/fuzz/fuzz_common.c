// SPDX-License-Identifier: GPL-2.0
/*
 * tools/fuzz: what the harnesses share (fuzz.h).
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <trace-cmd.h>

#include "fuzz.h"

#define FUZZ_JSON_DEPTH	4096

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

FILE *fuzz_json_open(struct fuzz_json *j)
{
	j->buf = NULL;
	j->len = 0;
	j->f = open_memstream(&j->buf, &j->len);
	if (!j->f) {
		perror("fuzz: open_memstream");
		exit(2);
	}
	return j->f;
}

struct json_object *fuzz_json_end(struct fuzz_json *j)
{
	struct json_tokener *tok;
	struct json_object *o;
	enum json_tokener_error err;
	size_t used;

	if (fclose(j->f))
		exit(2);
	/*
	 * Deeper than json-c's default of 32: report -g nests a callchain a
	 * level a frame (valid JSON; a reader with the default refuses it).
	 */
	tok = json_tokener_new_ex(FUZZ_JSON_DEPTH);
	if (!tok)
		exit(2);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, j->buf, j->len);
	err = json_tokener_get_error(tok);
	used = json_tokener_get_parse_end(tok);
	/* Only white space may follow the one value. */
	while (o && used < j->len && strchr(" \t\n", j->buf[used]))
		used++;
	if (!o || err != json_tokener_success || used != j->len) {
		fprintf(stderr, "fuzz: invalid JSON (%s) at byte %zu of %zu:\n%.*s\n",
			json_tokener_error_desc(err), used, j->len, (int)j->len, j->buf);
		abort();
	}
	json_tokener_free(tok);
	free(j->buf);
	j->buf = NULL;
	return o;
}

unsigned long long fuzz_json_uint(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int)) {
		fprintf(stderr, "fuzz: JSON has no integer \"%s\"\n", key);
		abort();
	}
	return json_object_get_uint64(v);
}

size_t fuzz_json_len(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_array)) {
		fprintf(stderr, "fuzz: JSON has no array \"%s\"\n", key);
		abort();
	}
	return json_object_array_length(v);
}
