/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: reading the hits of a trace.dat (trace-cmd's file format, read
 * with libtracecmd) into a report tree.
 */
#ifndef KSYM_CTL_TRACEDAT_H
#define KSYM_CTL_TRACEDAT_H

#include <stdbool.h>

#include "report_tree.h"

struct tracedat_info {
	unsigned long	hits;		/* ksym_hit events */
	unsigned long	stacks;		/* ksym_stack events */
	/* events the file says were lost; at least 1 for each "lost, count unknown" */
	unsigned long	missed;
	bool		lost_unknown;	/* some were lost in a count it does not know */
	int		buffers;	/* buffers read (top + instances) */
};

/*
 * Add every ksym_hit of @file to @r (which has its keys set), each with the
 * callchain of the ksym_stack that follows it on its CPU, named by its
 * watch ("sym", else the name of "addr") and counted for its caller
 * ("caller", else "ip"). 0, or -1 with a message.
 */
int tracedat_read(const char *file, struct report *r, struct tracedat_info *info);

/*
 * The same for the records of one buffer, fed one at a time (the tests feed
 * records they make). new: 0 with *@out NULL when @tep has no ksym_hit
 * event, -1 when out of memory. add: 0, or -1 when a hit could not be added
 * to @r. end: adds the hits still waiting for a callchain, frees @rd; 0 or -1.
 */
struct tep_handle;
struct tep_record;
struct tracedat_reader;

int tracedat_reader_new(struct tep_handle *tep, struct report *r,
			struct tracedat_info *info, struct tracedat_reader **out);
int tracedat_reader_add(struct tracedat_reader *rd, struct tep_record *rec, int cpu);
int tracedat_reader_end(struct tracedat_reader *rd);

/*
 * The value of fixed field @f of @rec, in the record's byte order; false
 * when the record is too short to hold it (a crafted file's format may put
 * a field anywhere) or the field is not a number.
 */
struct tep_format_field;
bool tracedat_field_val(const struct tep_format_field *f,
			const struct tep_record *rec, unsigned long long *val);
/*
 * The bytes of array or string field @f of @rec and their count: where a
 * __data_loc (or __rel_loc) points, or a fixed array. NULL unless every
 * byte is inside the record: the location comes from the record.
 */
const void *tracedat_field_data(const struct tep_format_field *f,
				const struct tep_record *rec, unsigned int *len);
/*
 * The frames of a callchain record into @ip (at most @max): ksym_stack's
 * @frames ("ips"), or with @ftrace ftrace's kernel_stack, "caller" (its
 * "size" entries, as many as the record holds, unused ones at the end left
 * out). How many, or -1 when the record has no frames field.
 */
int tracedat_stack_frames(struct tep_handle *tep,
			  const struct tep_format_field *frames,
			  const struct tep_format_field *size_field, bool ftrace,
			  const struct tep_record *rec, unsigned long long *ip,
			  int max);

#endif
