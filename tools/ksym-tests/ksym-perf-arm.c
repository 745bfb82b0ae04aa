// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-perf-arm - perf_event_open() of a ksym event returns armed
 *
 * Usage: ksym-perf-arm [-n ARRIVALS] EVENT_ID FILE
 *
 * ARRIVALS times (default 10): opens a per-task counting perf event on the
 * tracepoint EVENT_ID (tracefs events/ksym/ksym_hit/id), writes "1" to FILE
 * (the hit generator's write_a: one store to a watched variable, by this
 * task) at once, with nothing between the two system calls, reads the
 * count and closes the event. With no other consumer, the watches are
 * armed only by that open, so each count is 1 only if the open returned
 * armed.
 *
 *   ksym-perf-arm $(cat events/ksym/ksym_hit/id) /sys/kernel/debug/ksym_hitgen/write_a
 *
 * Prints "N arrivals, H hits, C counted 1" and exits 0 when every count
 * is 1; exits 1 otherwise, 2 on usage or setup errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* One arrival: open, store, count, close. Returns the count, or -1. */
static long long arrival(struct perf_event_attr *attr, int store)
{
	uint64_t count;
	long long ret = -1;
	int fd;

	fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	if (fd < 0) {
		fprintf(stderr, "ksym-perf-arm: perf_event_open: %s\n", strerror(errno));
		return -1;
	}
	if (write(store, "1\n", 2) != 2) {
		fprintf(stderr, "ksym-perf-arm: write: %s\n", strerror(errno));
		goto out;
	}
	if (read(fd, &count, sizeof(count)) != sizeof(count)) {
		fprintf(stderr, "ksym-perf-arm: read: %s\n", strerror(errno));
		goto out;
	}
	ret = count;
out:
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr;
	long long n = 10, i, got, hits = 0, ones = 0;
	int opt, store;
	char *end;

	while ((opt = getopt(argc, argv, "n:")) != -1) {
		if (opt != 'n')
			goto usage;
		n = strtoll(optarg, &end, 0);
		if (*end || n < 1)
			goto usage;
	}
	if (optind != argc - 2)
		goto usage;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = strtoull(argv[optind], &end, 0);
	if (*end || !*argv[optind])
		goto usage;
	store = open(argv[optind + 1], O_WRONLY);
	if (store < 0) {
		fprintf(stderr, "ksym-perf-arm: %s: %s\n", argv[optind + 1], strerror(errno));
		return 2;
	}
	for (i = 0; i < n; i++) {
		got = arrival(&attr, store);
		if (got < 0) {
			close(store);
			return 2;
		}
		hits += got;
		ones += got == 1;
	}
	close(store);
	printf("%lld arrivals, %lld hits, %lld counted 1\n", n, hits, ones);
	return ones == n ? 0 : 1;
usage:
	fprintf(stderr, "usage: ksym-perf-arm [-n ARRIVALS] EVENT_ID FILE\n"
		"  e.g. ksym-perf-arm $(cat events/ksym/ksym_hit/id) /sys/kernel/debug/ksym_hitgen/write_a\n");
	return 2;
}
