// SPDX-License-Identifier: GPL-2.0
/*
 * The state directory (state.c) in a temporary directory: 0700 and 0600,
 * what others could open refused, the lock's wait bounded and ended by a
 * signal, its holder named (review 2026-11-28 M1, M2). The lock is a
 * directory's flock (tracefs's instances in ksym-ctl, review 11-28 L1):
 * here a directory "instances" of the temporary one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ksym_tracefs.h"
#include "test.h"

/* Run @expr with stderr into @buf (NUL-terminated, cut at @size). */
#define CAPTURE(expr, buf, size) ({					\
	FILE *_t = tmpfile();						\
	int _fd = dup(STDERR_FILENO), _n;				\
	__typeof__(expr) _r;						\
	fflush(stderr);							\
	dup2(fileno(_t), STDERR_FILENO);				\
	_r = (expr);							\
	fflush(stderr);							\
	dup2(_fd, STDERR_FILENO);					\
	close(_fd);							\
	rewind(_t);							\
	_n = fread((buf), 1, (size) - 1, _t);				\
	(buf)[_n > 0 ? _n : 0] = '\0';					\
	fclose(_t);							\
	_r; })

static mode_t mode_of(const char *path)
{
	struct stat st;

	return stat(path, &st) ? (mode_t)-1 : st.st_mode & 07777;
}

static void on_alarm(int sig)
{
	(void)sig;
	ksym_stop = 1;
	ksym_signals++;
}

/* A child that holds @path's flock until killed; its pid. */
static pid_t hold_lock(const char *path)
{
	int pipefd[2];
	pid_t pid;
	char c;

	if (pipe(pipefd))
		return -1;
	pid = fork();
	if (!pid) {
		int fd = open(path, O_RDONLY);

		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], &c, 1) != 1)
		pid = -1;
	close(pipefd[0]);
	return pid;
}

static void test_state_modes(const char *dir)
{
	char path[512], err[1024];
	struct claims c = { 0 };
	int fd;

	ksym_state_set_dir(dir);
	fd = ksym_state_lock(LOCK_EX);
	CHECK(fd >= 0);
	/* No lock file in the state directory: the lock is not there. */
	snprintf(path, sizeof(path), "%s/lock", dir);
	CHECK(access(path, F_OK) == -1);
	CHECK(!claims_take(&c, CLAIM_WATCH, "0xffff888103a1c5a8", "",
			   "0xffff888103a1c5a8/8:rw-", "ksym-ctl-stat-1-0", NULL, NULL));
	CHECK(!ksym_state_save(&c));
	snprintf(path, sizeof(path), "%s/state", dir);
	CHECK(mode_of(path) == 0600);
	claims_free(&c);
	{
		char *text = ksym_read_text(path);

		CHECK_HAS(text, "0xffff888103a1c5a8/8:rw-");
		free(text);
	}
	CHECK(!ksym_state_load(&c));
	claims_free(&c);
	ksym_state_unlock(fd);

	/* A state file others can read: refused, not read, not rewritten. */
	chmod(path, 0644);
	CHECK(CAPTURE(ksym_state_load(&c), err, sizeof(err)) == -1);
	CHECK_HAS(err, "others can open it: refused");
	claims_free(&c);
	chmod(path, 0600);

	/* A lock others can open (and hold): refused. */
	snprintf(path, sizeof(path), "%s/instances", dir);
	chmod(path, 0755);
	CHECK(CAPTURE(ksym_state_lock(LOCK_EX), err, sizeof(err)) == -1);
	CHECK_HAS(err, "instances: mode 0755, others can open it and hold the lock");
	chmod(path, 0750);
	fd = ksym_state_lock(LOCK_EX);
	CHECK(fd >= 0);
	ksym_state_unlock(fd);

	/* A state directory others can enter: refused. */
	chmod(dir, 0755);
	CHECK(CAPTURE(ksym_state_load(&c), err, sizeof(err)) == -1);
	CHECK_HAS(err, "mode 0755, others may open its files: refused");
	claims_free(&c);
	chmod(dir, 0700);

	/* A link in place of the lock's directory: not followed. */
	rmdir(path);
	if (!symlink("/etc", path)) {
		CHECK(CAPTURE(ksym_state_lock(LOCK_EX), err, sizeof(err)) == -1);
		unlink(path);
	}
	mkdir(path, 0750);
}

static void test_state_wait(const char *dir)
{
	char path[512], err[1024], want[64];
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct timespec t0, t1;
	long ms;
	pid_t holder;
	int fd;

	ksym_state_set_dir(dir);
	snprintf(path, sizeof(path), "%s/instances", dir);
	holder = hold_lock(path);
	CHECK(holder > 0);
	if (holder <= 0)
		return;
	snprintf(want, sizeof(want), "held by pid %d", (int)holder);

	/* The bound: gives up, naming the holder. */
	ksym_state_set_wait(300);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = CAPTURE(ksym_state_lock(LOCK_EX), err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	CHECK(fd == -1);
	CHECK(ms >= 300 && ms < 3000);
	CHECK_HAS(err, want);

	/*
	 * A signal while it waits ends the wait (one before it began does
	 * not: ksym_stop already set, as when a run ends on Ctrl-C).
	 */
	ksym_state_set_wait(20000);
	ksym_stop = 1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, &old);
	alarm(1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fd = CAPTURE(ksym_state_lock(LOCK_EX), err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	alarm(0);
	sigaction(SIGALRM, &old, NULL);
	CHECK(fd == -1);
	CHECK(ms >= 900 && ms < 5000);
	CHECK_HAS(err, "gave up waiting for the lock on a signal");
	CHECK_HAS(err, want);
	ksym_stop = 0;

	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	/* Let go: taken at once. */
	fd = ksym_state_lock(LOCK_EX);
	CHECK(fd >= 0);
	ksym_state_unlock(fd);
	ksym_state_set_wait(KSYM_STATE_WAIT_MS);
}

void test_state(void)
{
	char dir[] = "/tmp/ksym-ctl-test-XXXXXX", cmd[128];

	if (!mkdtemp(dir)) {
		CHECK(!"mkdtemp");
		return;
	}
	snprintf(cmd, sizeof(cmd), "%s/instances", dir);
	CHECK(!mkdir(cmd, 0750));
	ksym_state_set_lock(cmd);
	test_state_modes(dir);
	test_state_wait(dir);
	ksym_state_set_dir(NULL);
	ksym_state_set_lock(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		CHECK(!"rm -rf");
}
