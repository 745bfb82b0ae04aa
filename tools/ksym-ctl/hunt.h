/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: what the two hunts, uaf (uaf.c) and local (local.c), share
 * once their run is over: the coverage of their ksym_watch trigger and the
 * names of the tasks in their findings (hunt.c).
 */
#ifndef KSYM_CTL_HUNT_H
#define KSYM_CTL_HUNT_H

#include <stddef.h>

#include "ksym_tracefs.h"
#include "uaf.h"

struct tep_handle;

/*
 * The row of the ksym_watch trigger on @event ("SYSTEM:EVENT") of @s's
 * instance in trace_stat/ksym_triggers, as @cov (known false when there is
 * not exactly one).
 */
void hunt_coverage(struct ksym_session *s, const char *event,
		   struct uaf_coverage *cov);

/* An array of @nr items, each with an int pid and a char comm[] to fill. */
struct hunt_tasks {
	void	*items;
	int	nr;
	size_t	size, pid_off, comm_off, comm_size;
};

#define HUNT_TASKS(v, n) {						\
	.items = (v), .nr = (n), .size = sizeof(*(v)),			\
	.pid_off = offsetof(__typeof__(*(v)), pid),			\
	.comm_off = offsetof(__typeof__(*(v)), comm),			\
	.comm_size = sizeof((v)->comm),					\
}

/* The tasks' names in @nr arrays, where the kernel's saved_cmdlines has them. */
void hunt_name_tasks(struct tep_handle *tep, const struct hunt_tasks *t, int nr);

#endif
