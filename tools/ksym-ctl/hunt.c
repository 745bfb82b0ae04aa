// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: what the two hunts, uaf and local, share once their run is over
 * (hunt.h).
 *
 * Owns: reading back the coverage of a hunt's ksym_watch trigger (its text
 * in the event's trigger file, its row in trace_stat/ksym_triggers) and
 * naming the tasks of the findings. Calls: libtracefs and libtraceevent,
 * ksym_tracefs.c (ksym_read_file()), uaf_core.c (uaf_trigger_shown(),
 * uaf_coverage_parse()), utils.c (messages). Called by uaf.c and local.c.
 */
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "hunt.h"

void hunt_coverage(struct ksym_session *s, const char *event,
		   struct uaf_coverage *cov)
{
	const char *name = strchr(event, ':');
	char sys[128], *trig = NULL, *rows, shown[600] = "";

	memset(cov, 0, sizeof(*cov));
	snprintf(sys, sizeof(sys), "%.*s", (int)strcspn(event, ":"), event);
	if (name)
		trig = tracefs_event_file_read(s->inst, sys, name + 1, "trigger", NULL);
	rows = ksym_read_file("trace_stat/ksym_triggers");
	if (trig && rows && !uaf_trigger_shown(trig, shown, sizeof(shown)))
		uaf_coverage_parse(cov, rows, event, shown);
	debug_msg("coverage: '%s': %d row(s)\n", shown, cov->rows);
	free(trig);
	free(rows);
}

void hunt_name_tasks(struct tep_handle *tep, const struct hunt_tasks *t, int nr)
{
	int i, j, pid;

	tracefs_load_cmdlines(NULL, tep);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < t[i].nr; j++) {
			char *item = (char *)t[i].items + (size_t)j * t[i].size;

			memcpy(&pid, item + t[i].pid_off, sizeof(pid));
			snprintf(item + t[i].comm_off, t[i].comm_size, "%s",
				 tep_data_comm_from_pid(tep, pid));
		}
	}
}
