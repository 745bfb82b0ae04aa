// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: the state of the runs (claims.h) in a directory of root's only.
 *
 * Owns: the state directory (/run/ksym-ctl, or /tmp/ksym-ctl where /run
 * cannot hold it) and its state file; the lock of the runs, a flock() on
 * tracefs's instances directory, and the wait for it (bounded, ended by a
 * signal, naming the holder). Calls: claims.c to parse and format, utils.c
 * for messages, libtracefs for where tracefs is. Unit tested with a
 * temporary directory in place of both (tests/test_state.c).
 *
 * The lock is in tracefs because tracefs is one for the whole machine (one
 * superblock, mounted wherever): every run that shares the watches shares
 * the lock, whatever its mount namespace or euid (review 11-28 L1). The
 * state directory is not; ksym_session_create() refuses to start beside a
 * run whose claims it cannot see (ksym-ctl.8, CONCURRENCY).
 *
 * Nobody but the owner may open the lock or read the state: the lock held
 * by another user would stall every run (flock() needs no write access),
 * and the state holds watched kernel addresses and others' watches. So the
 * directory is 0700 and its files 0600, the lock's directory one that
 * others cannot open (tracefs makes it 0750), and anything else is refused.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "ksym_tracefs.h"

/* Set by ksym-ctl's signal handler (ksym_tracefs.c); here for the tests. */
volatile sig_atomic_t ksym_stop;
volatile sig_atomic_t ksym_signals;

static const char *state_dir_override, *lock_override;
static int state_wait_ms = KSYM_STATE_WAIT_MS;

void ksym_state_set_dir(const char *dir)
{
	state_dir_override = dir;
}

void ksym_state_set_lock(const char *dir)
{
	lock_override = dir;
}

void ksym_state_set_wait(int ms)
{
	state_wait_ms = ms;
}

/*
 * @path is a directory of ours (not a link) that only we can open; one
 * that is not is said (what is wrong, what to do). 0 or -1.
 */
static int dir_private(const char *path)
{
	struct stat st;

	if (lstat(path, &st))
		return -1;
	if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
		err_msg("%s: not a directory of uid %d's: refused (remove it)\n",
			path, (int)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		err_msg("%s: mode %04o, others may open its files: refused (rm -r %s; ksym-ctl makes it 0700)\n",
			path, (unsigned int)(st.st_mode & 07777), path);
		return -1;
	}
	return 0;
}

/*
 * The state directory. /tmp/ksym-ctl only when /run/ksym-ctl cannot be
 * made at all (no /run, read-only): one of /run's that is not right is an
 * error, not a reason to keep the state somewhere else.
 */
const char *ksym_state_dir(void)
{
	static const char *const dirs[] = { "/run/ksym-ctl", "/tmp/ksym-ctl" };
	size_t i;

	if (state_dir_override)
		return dir_private(state_dir_override) ? NULL : state_dir_override;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (mkdir(dirs[i], 0700) && errno != EEXIST) {
			debug_msg("%s: %s\n", dirs[i], strerror(errno));
			continue;
		}
		return dir_private(dirs[i]) ? NULL : dirs[i];
	}
	err_msg("no directory for the state of ksym-ctl runs: neither /run/ksym-ctl nor /tmp/ksym-ctl can be made\n");
	return NULL;
}

/* @fd (of @path) is a plain file of ours that only we can open. */
static int file_private(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || st.st_nlink != 1) {
		err_msg("%s: not a file of uid %d's: refused (remove it)\n",
			path, (int)geteuid());
		return -1;
	}
	if (st.st_mode & 077) {
		err_msg("%s: mode %04o, others can open it: refused (remove it; ksym-ctl makes it 0600)\n",
			path, (unsigned int)(st.st_mode & 07777));
		return -1;
	}
	return 0;
}

/*
 * @name in the state directory, opened with @flags, checked; -1 with a
 * message, or -2 when it does not exist (and @flags do not create it).
 */
static int state_open(const char *name, int flags, char *path, size_t size)
{
	const char *dir = ksym_state_dir();
	int fd;

	if (!dir)
		return -1;
	snprintf(path, size, "%s/%s", dir, name);
	fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		if (errno == ENOENT && !(flags & O_CREAT))
			return -2;
		err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (file_private(fd, path)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * The lock's directory, open: tracefs's instances directory (@path), one
 * that others cannot open; -1 with a message.
 */
static int lock_open(char *path, size_t size)
{
	const char *tracing = lock_override ? NULL : tracefs_tracing_dir();
	struct stat st;
	int fd;

	if (lock_override) {
		snprintf(path, size, "%s", lock_override);
	} else if (!tracing) {
		err_msg("tracefs is not mounted: mount -t tracefs nodev /sys/kernel/tracing\n");
		return -1;
	} else {
		snprintf(path, size, "%s/instances", tracing);
	}
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		err_msg("%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		err_msg("%s: %s\n", path, strerror(errno));
		goto fail;
	}
	if (st.st_mode & 007) {
		err_msg("%s: mode %04o, others can open it and hold the lock of the ksym-ctl runs: refused (chmod o-rwx %s)\n",
			path, (unsigned int)(st.st_mode & 07777), path);
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * Who holds the flock on @fd, from /proc/locks ("PID (COMM)"), or "" when
 * it cannot be told (another PID namespace, no /proc).
 */
static void lock_holder(int fd, char *buf, size_t size)
{
	char line[256], comm[64] = "", path[64];
	unsigned int maj, min;
	unsigned long ino;
	struct stat st;
	int pid = 0, n;
	FILE *f;

	buf[0] = '\0';
	if (fstat(fd, &st))
		return;
	f = fopen("/proc/locks", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "FLOCK");

		if (!p || sscanf(p, "FLOCK %*s %*s %d %x:%x:%lu%n", &pid, &maj,
				 &min, &ino, &n) != 4 ||
		    ino != st.st_ino || maj != major(st.st_dev) ||
		    min != minor(st.st_dev) || strstr(line, "->"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		{
			FILE *c = fopen(path, "re");

			if (c && fgets(comm, sizeof(comm), c))
				comm[strcspn(comm, "\n")] = '\0';
			if (c)
				fclose(c);
		}
		snprintf(buf, size, "pid %d%s%s%s", pid, *comm ? " (" : "", comm,
			 *comm ? ")" : "");
		break;
	}
	if (f)
		fclose(f);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int ksym_state_lock(int how)
{
	sig_atomic_t signals = ksym_signals;
	long long start = now_ms();
	char path[PATH_MAX], holder[128];
	bool said = false;
	int fd;

	fd = lock_open(path, sizeof(path));
	if (fd < 0)
		return -1;
	/*
	 * Not a blocking flock(): a signal that comes while we wait (not one
	 * that came before: a run ending on Ctrl-C restores under the lock)
	 * ends the wait, and so does the bound.
	 */
	while (flock(fd, how | LOCK_NB)) {
		struct timespec ts = { 0, 20 * 1000 * 1000 };

		if (errno != EWOULDBLOCK && errno != EINTR) {
			err_msg("%s: flock: %s\n", path, strerror(errno));
			goto fail;
		}
		if (!said || ksym_signals != signals ||
		    now_ms() - start >= state_wait_ms)
			lock_holder(fd, holder, sizeof(holder));
		if (ksym_signals != signals) {
			err_msg("%s: gave up waiting for the lock on a signal (held by %s)\n",
				path, *holder ? holder : "another process");
			goto fail;
		}
		if (now_ms() - start >= state_wait_ms) {
			err_msg("%s: held by %s for %d s: gave up (is a ksym-ctl run stuck?)\n",
				path, *holder ? holder : "another process",
				state_wait_ms / 1000);
			goto fail;
		}
		if (!said && now_ms() - start >= 1000) {
			err_msg("%s: waiting for %s to let go of the lock\n", path,
				*holder ? holder : "another process");
			said = true;
		}
		nanosleep(&ts, NULL);
	}
	return fd;
fail:
	close(fd);
	return -1;
}

void ksym_state_unlock(int fd)
{
	if (fd >= 0)
		close(fd);	/* releases the flock */
}

char *ksym_read_text(const char *path)
{
	char *text = NULL;
	size_t size = 0;
	FILE *f = fopen(path, "re"), *out;
	char buf[4096];
	size_t n;

	if (!f)
		return NULL;
	out = open_memstream(&text, &size);
	while (out && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	if (out)
		fclose(out);
	return text;
}

/* The contents of @fd, or NULL. */
static char *fd_read_text(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return ksym_read_text(path);
}

int ksym_state_load(struct claims *c)
{
	char path[PATH_MAX], *text = NULL, *boot;
	int fd, ret;

	fd = state_open("state", O_RDONLY, path, sizeof(path));
	if (fd == -1)
		return -1;
	if (fd >= 0) {
		text = fd_read_text(fd);
		close(fd);
		if (!text)
			return -1;
	}
	boot = ksym_read_text("/proc/sys/kernel/random/boot_id");
	if (boot)
		boot[strcspn(boot, "\n")] = '\0';
	ret = claims_parse(c, text, boot ? boot : "");
	free(text);
	free(boot);
	return ret;
}

int ksym_state_save(const struct claims *c)
{
	char path[PATH_MAX], tmp[PATH_MAX], *text = claims_format(c);
	int fd = -1, ret = -1;
	size_t len;

	if (!text)
		goto out;
	/* Whole or not at all: a run killed while writing leaves the old one. */
	fd = state_open("state.new", O_WRONLY | O_CREAT | O_TRUNC, tmp, sizeof(tmp));
	if (fd < 0)
		goto out;
	snprintf(path, sizeof(path), "%.*s", (int)(strlen(tmp) - 4), tmp);
	len = strlen(text);
	if (write(fd, text, len) != (ssize_t)len || fsync(fd) ||
	    rename(tmp, path)) {
		err_msg("%s: %s\n", path, strerror(errno));
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(text);
	return ret;
}
