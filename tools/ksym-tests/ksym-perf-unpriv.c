// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-perf-unpriv - open a ksym tracepoint as an unprivileged perf user
 *
 * Usage: ksym-perf-unpriv [-u UID] [-s SECONDS] EVENT_ID
 *
 * Drops to UID (default 65534) and opens a per-task counting perf event on
 * the tracepoint EVENT_ID (tracefs events/ksym/ksym_hit/id), the kind of
 * event perf_event_paranoid <= 2 lets any user open. A ksym event in use
 * arms every watch system-wide, so the kernel must refuse it.
 *
 * Prints "refused: <errno name>" and exits 0 when the open fails with
 * EACCES or EPERM; prints "opened" and exits 1 otherwise, after keeping the
 * event open for SECONDS (default 3) so that the caller can see whether
 * the watches were armed. Exits 2 on usage or setup errors.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int perf_open(struct perf_event_attr *attr)
{
	return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	unsigned long id;
	uid_t uid = 65534;
	int secs = 3, opt, fd;
	char *end;

	while ((opt = getopt(argc, argv, "u:s:")) != -1) {
		switch (opt) {
		case 'u':
			uid = strtoul(optarg, NULL, 0);
			break;
		case 's':
			secs = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	id = strtoul(argv[optind], &end, 0);
	if (*end || !id)
		goto usage;

	if (setgid(uid) || setuid(uid)) {
		perror("setuid");
		return 2;
	}
	if (getuid() == 0 || geteuid() == 0) {
		fprintf(stderr, "still root after setuid(%u)\n", uid);
		return 2;
	}

	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = id;
	attr.exclude_kernel = 0;
	fd = perf_open(&attr);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM) {
			printf("refused: %s\n", errno == EACCES ? "EACCES" : "EPERM");
			return 0;
		}
		printf("failed: %s\n", strerror(errno));
		return 2;
	}
	printf("opened\n");
	fflush(stdout);
	sleep(secs);
	close(fd);
	return 1;

usage:
	fprintf(stderr, "usage: %s [-u UID] [-s SECONDS] EVENT_ID\n", argv[0]);
	return 2;
}
