// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl reset: remove what ksym-ctl runs that are gone (kill -9, a
 * crash, the OOM killer) left behind, as trace-cmd reset does for
 * trace-cmd: their instances (with their triggers, events, the ksym tracer
 * and set_event_pid), and the watches, tracer options and settings
 * (ksym_trigger_slots) only they held, put back as they were before. Runs that are still there are left alone: a
 * run holds a flock() on its instance's directory while it runs, which the
 * kernel lets go when it dies (ksym_instance_alive()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"
#include "local.h"

static void reset_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl reset\n"
		"\n"
		"Remove what ksym-ctl runs that are gone (killed) left behind: their\n"
		"instances (ksym-ctl-WHAT-PID-RANDOM) with their triggers, events,\n"
		"tracer and set_event_pid, local's probes (group ksym_ctl_local_PID_RANDOM),\n"
		"and put back the watches, tracer options and\n"
		"settings (ksym_trigger_slots, set by uaf -s) that only they held, where\n"
		"what they set is still there. Runs that are still going are left\n"
		"alone. 'ksym-ctl list' points out such leftovers. An instance still busy\n"
		"(a killed record's trace-cmd flushing) is waited for, up to 10 s.\n"
		"\n"
		"example:\n"
		"  ksym-ctl reset\n");
}

/*
 * The triggers on the events of @inst removed: the ksym_watch/ksym_unwatch
 * triggers of record --trigger and uaf, uaf's stacktrace triggers (the
 * instance is ksym-ctl's: every trigger in it is a run's).
 */
static void clear_triggers(struct tracefs_instance *inst)
{
	char **systems, **events;
	int i, j;

	systems = tracefs_event_systems(tracefs_instance_get_dir(inst));
	for (i = 0; systems && systems[i]; i++) {
		events = tracefs_system_events(tracefs_instance_get_dir(inst), systems[i]);
		for (j = 0; events && events[j]; j++) {
			char *text = NULL, *save = NULL, *line;

			if (tracefs_event_file_exists(inst, systems[i], events[j], "trigger"))
				text = tracefs_event_file_read(inst, systems[i], events[j],
							       "trigger", NULL);
			for (line = text ? strtok_r(text, "\n", &save) : NULL; line;
			     line = strtok_r(NULL, "\n", &save)) {
				char *cmd;

				if (line[0] == '#')
					continue;
				/* "!TRIGGER" removes it; its filter is not part of it. */
				cmd = trigger_remove_text(line);
				if (cmd) {
					tracefs_event_file_append(inst, systems[i], events[j],
								  "trigger", cmd);
					free(cmd);
				}
			}
			free(text);
		}
		tracefs_list_free(events);
	}
	tracefs_list_free(systems);
}

/* How long a busy instance's readers (an exiting trace-cmd) are waited for. */
#define RESET_BUSY_WAIT_MS	10000

/*
 * rmdir of @inst: 0 when it is gone, whoever removed it (a run's own end,
 * another reset: an instance that vanishes under us is done, not an
 * error); else -1 with errno.
 */
static int instance_rmdir(struct tracefs_instance *inst, const char *name)
{
	if (!tracefs_instance_destroy(inst) || !tracefs_instance_exists(name))
		return 0;
	return -1;
}

/*
 * A stale instance: its tracer and pids cleared, then removed (which ends
 * its triggers). Should it be busy (EBUSY: a killed record's trace-cmd
 * still flushing its buffers), its triggers and events are ended one by one
 * (no object stays watched) and its removal tried again for up to
 * RESET_BUSY_WAIT_MS.
 */
static int remove_instance(const char *name)
{
	struct tracefs_instance *inst = tracefs_instance_alloc(NULL, name);
	struct timespec ts = { 0, 100 * 1000 * 1000 };
	int ret = -1, waited;

	if (!inst) {
		if (!tracefs_instance_exists(name))
			return 0;
		err_msg("instance %s: %s\n", name, strerror(errno));
		return -1;
	}
	tracefs_tracer_clear(inst);
	tracefs_instance_file_clear(inst, "set_event_pid");
	if (!instance_rmdir(inst, name))
		goto done;
	debug_msg("instance %s: %s\n", name, strerror(errno));
	clear_triggers(inst);
	tracefs_event_disable(inst, NULL, NULL);
	for (waited = 0; instance_rmdir(inst, name); waited += 100) {
		if (errno != EBUSY || waited >= RESET_BUSY_WAIT_MS || ksym_stop) {
			err_msg("cannot remove instance %s: %s%s\n", name, strerror(errno),
				errno == EBUSY ? " (a reader still has its buffers open: fuser -v on its per_cpu/*/trace_pipe_raw)" : "");
			goto out;
		}
		if (waited == 1000)
			err_msg("instance %s is busy: waiting up to %d s for its readers to let go\n",
				name, RESET_BUSY_WAIT_MS / 1000);
		nanosleep(&ts, NULL);
	}
done:
	ret = 0;
out:
	tracefs_instance_free(inst);
	return ret;
}

int reset_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct strv stale = { 0 }, done = { 0 };
	int c, i, lock = -1, ret = 1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			reset_usage(stdout);
			return 0;
		}
		reset_usage(stderr);
		return 1;
	}
	if (optind < argc) {
		reset_usage(stderr);
		return 1;
	}
	if (ksym_check())
		return 1;
	/* Under the state lock: no run starts or ends meanwhile. */
	lock = ksym_state_lock(LOCK_EX);
	if (lock < 0)
		return 1;
	ret = 0;
	if (ksym_stale_instances_locked(&stale))
		ret = 1;
	for (i = 0; i < stale.n; i++) {
		if (remove_instance(stale.v[i]))
			ret = 1;
		else
			printf("ksym-ctl reset: removed instance %s\n", stale.v[i]);
	}
	/* Then the probes of ksym-ctl local runs that are gone. */
	if (local_reset_probes(&done))
		ret = 1;
	/* The instances first: their tracers no longer arm the watches. */
	if (ksym_reset_claims_locked(&done))
		ret = 1;
	for (i = 0; i < done.n; i++)
		printf("ksym-ctl reset: %s\n", done.v[i]);
	if (!stale.n && !done.n)
		printf("ksym-ctl reset: nothing left behind\n");
	ksym_state_unlock(lock);
	if (ksym_stdout_failed())
		ret = 1;
	strv_free(&stale);
	strv_free(&done);
	return ret;
}
