// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl watch / unwatch / clear: change the watch set, the way writing
 * ksym_trace_filter does. These stay after ksym-ctl exits: the watches
 * are armed while a consumer (the ksym tracer in an instance, a ksym event,
 * ksym-ctl stat/record/top) exists.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include "ksym-ctl.h"
#include "ksym_tracefs.h"

static void watch_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl watch SPEC...\n"
		"\n"
		"Add watches, or change the access, length or CPU list of existing ones,\n"
		"in one all-or-nothing write. SPEC: TARGET[/LEN]:ACCESS[@CPULIST] with\n"
		"TARGET a symbol, SYMBOL+OFFSET, MODULE:SYMBOL or 0xADDRESS, LEN 1/2/4/8,\n"
		"ACCESS rw- -w- or --x. A refused SPEC prints the kernel's error_log entry.\n"
		"\n"
		"examples:\n"
		"  ksym-ctl watch pid_max/4:-w- jiffies_64/8:rw-@1\n"
		"  ksym-ctl watch total_forks:-w- && ksym-ctl list\n");
}

static void unwatch_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl unwatch TARGET|SPEC...\n"
		"\n"
		"Remove watches (their counters go with them).\n"
		"\n"
		"examples:\n"
		"  ksym-ctl unwatch pid_max\n"
		"  ksym-ctl unwatch pid_max/4:-w- jiffies_64\n");
}

static void clear_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl clear\n"
		"\n"
		"Remove every watch.\n"
		"\n"
		"example:\n"
		"  ksym-ctl clear\n");
}

/* Only -h/--help: returns 1 (help printed), -1 (bad option) or 0. */
static int help_only(int argc, char **argv, void (*usage)(FILE *f))
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		usage(stderr);
		return -1;
	}
	return 0;
}

static char *join(int argc, char **argv, const char *suffix)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + strlen(suffix) + 1;
	s = calloc(1, len);
	if (!s)
		return NULL;
	for (i = 0; i < argc; i++) {
		char *p;

		if (i)
			strcat(s, " ");
		p = s + strlen(s);
		strcat(s, argv[i]);
		if (*suffix) {
			/* TARGET[/LEN][:ACCESS[@CPUS]] -> TARGET */
			spec_target(argv[i], p, strlen(argv[i]) + 1);
			strcat(s, suffix);
		}
	}
	return s;
}

/*
 * Under the lock of the ksym-ctl runs' state: a run that is adding its
 * watches tells its own changes from this one.
 */
static int locked_write(const char *text)
{
	/* Without the state directory (said on stderr), written all the same. */
	int lock = ksym_state_lock(LOCK_EX), ret;

	ret = ksym_filter_write(text);
	ksym_state_unlock(lock);
	return ret;
}

static int change(int argc, char **argv, void (*usage)(FILE *f),
		  const char *suffix)
{
	char *text;
	int ret;

	ret = help_only(argc, argv, usage);
	if (ret)
		return ret > 0 ? 0 : 1;
	if (optind >= argc) {
		usage(stderr);
		return 1;
	}
	if (ksym_check())
		return 1;
	text = join(argc - optind, argv + optind, suffix);
	if (!text)
		return 1;
	ret = locked_write(text);
	free(text);
	return ret ? 1 : 0;
}

int watch_main(int argc, char **argv)
{
	return change(argc, argv, watch_usage, "");
}

int unwatch_main(int argc, char **argv)
{
	return change(argc, argv, unwatch_usage, ":---");
}

int clear_main(int argc, char **argv)
{
	int ret = help_only(argc, argv, clear_usage);

	if (ret)
		return ret > 0 ? 0 : 1;
	if (optind < argc) {
		clear_usage(stderr);
		return 1;
	}
	if (ksym_check())
		return 1;
	return locked_write("0") ? 1 : 0;
}
