// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-slow-fork.so - LD_PRELOAD shim: the child of every fork() sleeps
 * KSYM_SLOW_FORK_MS milliseconds (default 2000, also when not a number >= 0)
 * before fork() returns in it.
 *
 * It makes a start-up race of a forking program happen every time, so that
 * a test can show its caller waits for it: trace-cmd record's per-CPU
 * recorders install the handler of their stop signal only once they run,
 * and one stopped before that dies without its file.
 *
 *   LD_PRELOAD=/usr/lib/ksym-tests/ksym-slow-fork.so trace-cmd record ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

pid_t fork(void)
{
	static pid_t (*real_fork)(void);
	const char *env;
	struct timespec ts;
	long ms = 2000;
	int saved_errno;
	pid_t pid;

	if (!real_fork)
		real_fork = (pid_t (*)(void))dlsym(RTLD_NEXT, "fork");
	if (!real_fork) {
		errno = ENOSYS;
		return -1;
	}
	pid = real_fork();
	if (pid)
		return pid;

	saved_errno = errno;
	env = getenv("KSYM_SLOW_FORK_MS");
	if (env && *env) {
		char *end;
		long v = strtol(env, &end, 10);

		if (!*end && v >= 0)
			ms = v;
	}
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = ms % 1000 * 1000000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	errno = saved_errno;
	return 0;
}
