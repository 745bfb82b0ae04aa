/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: reading the hits of a trace.dat (trace-cmd's file format, read
 * with libtracecmd) into a report tree.
 */
#ifndef KSYM_CTL_TRACEDAT_H
#define KSYM_CTL_TRACEDAT_H

#include "report_tree.h"

struct tracedat_info {
	unsigned long	hits;		/* ksym_hit events */
	unsigned long	stacks;		/* ksym_stack events */
	unsigned long	missed;		/* events the file says were lost */
	int		buffers;	/* buffers read (top + instances) */
};

/*
 * Add every ksym_hit of @file to @r (which has its keys set), each with the
 * callchain of the ksym_stack that follows it on its CPU. 0, or -1 with a
 * message.
 */
int tracedat_read(const char *file, struct report *r, struct tracedat_info *info);

#endif
