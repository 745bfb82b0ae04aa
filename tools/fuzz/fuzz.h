/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tools/fuzz: what the libFuzzer harnesses share (fuzz_common.c).
 *
 * The record harnesses take one fuzz input as a selector byte and a
 * sequence of raw ring-buffer records, each framed as
 *
 *	[u8 cpu][u16 size, little-endian][size bytes of record]
 *
 * (the last record takes what is left when the input ends early), and
 * decode them with the event formats and kallsyms of a trace.dat fixture
 * that the tests already use, opened once in LLVMFuzzerInitialize().
 */
#ifndef KSYM_FUZZ_H
#define KSYM_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FUZZ_MAX_RECORDS	64
/*
 * Every event starts with the common fields (type, flags, preempt count,
 * pid: 8 bytes). libtraceevent reads common_type and common_pid without
 * looking at the record's size (tep_data_type(), tep_data_pid()), and
 * libtracecmd never hands out a record shorter than an event header, so
 * shorter records are dropped: a read past one would be libtraceevent's,
 * not the tools'.
 */
#define FUZZ_MIN_RECORD		8

/* Bit 7 of the cpu byte: the record says events were lost before it. */
#define FUZZ_CPU_LOST		0x80
#define FUZZ_CPU_MASK		0x3f

struct fuzz_record {
	int	cpu;
	int	lost;		/* the record's missed_events */
	void	*data;		/* malloc()ed to exactly @size bytes */
	int	size;
};

/*
 * Split @data into at most FUZZ_MAX_RECORDS records (the framing above).
 * Each record gets a buffer of its own, exactly its size, so that ASan
 * reports any read past it. Returns how many; *@out is freed with
 * fuzz_records_free().
 */
int fuzz_records_split(const uint8_t *data, size_t size,
		       struct fuzz_record **out);
void fuzz_records_free(struct fuzz_record *recs, int nr);

/* Record @r as libtracecmd hands one out, at time @ts. */
struct tep_record;
void fuzz_tep_record(struct tep_record *rec, const struct fuzz_record *r,
		     unsigned long long ts);

/*
 * A file of the tools' tree, e.g. "ksym-ctl/tests/ksym-hitgen.dat": under
 * $KSYM_FUZZ_TOOLS when set, else under the tools/ directory the harness
 * was built from. Returns a static buffer.
 */
const char *fuzz_tools_path(const char *rel);

struct tracecmd_input;
/*
 * Open a trace.dat fixture (fuzz_tools_path(@rel)) without libtraceevent
 * plugins, so that only the code under test prints. Exits when it cannot:
 * a harness without its formats would fuzz nothing.
 */
struct tracecmd_input *fuzz_open_fixture(const char *rel);

/* A FILE that throws away what is printed (printers run to the end). */
FILE *fuzz_devnull(void);

/*
 * JSON printed by a tool's printer, checked (review 11-28 L11): a FILE
 * that collects what is printed (fuzz_json_open()), then fuzz_json_end()
 * parses it with json-c's tokener, strictly and with UTF-8 validated, and
 * aborts when it is not exactly one JSON value. Returns the value (put
 * with json_object_put()); the harness then checks its counts.
 */
struct fuzz_json {
	FILE	*f;
	char	*buf;
	size_t	len;
};
struct json_object;
FILE *fuzz_json_open(struct fuzz_json *j);
struct json_object *fuzz_json_end(struct fuzz_json *j);
/* Member @key of object @o, a count; aborts when it is not an integer. */
unsigned long long fuzz_json_uint(struct json_object *o, const char *key);
/* The length of array member @key of @o; aborts when it is not an array. */
size_t fuzz_json_len(struct json_object *o, const char *key);

/* The input as a NUL-terminated string (malloc()ed; NUL bytes kept). */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
