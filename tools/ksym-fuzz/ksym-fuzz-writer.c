// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-fuzz: the writers: talking to the kernel (read_file(), reading the
 * filter back),
 * one writer process (writer(): generate, write, read back, compare with
 * the model), the modes single, lock and race, and the hit maker (-H).
 *
 * Owns: the shared model of the lock mode (sh).
 * May call: the generators and the model; the options (opt).
 */

#include "ksym-fuzz.h"


int read_back(char *buf, size_t size)
{
	return read_file(opt.filter, buf, size);
}

int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The racing writer's watch, whatever spelling it used. */
static bool racer_line(const char *line)
{
	char tgt[TARGET_MAX];
	const char *slash = strchr(line, '/');
	struct fsym *b = sym_by_name("ksym_hitgen_buf");
	char hex[32];

	if (opt.mode != MODE_RACE || !slash || (size_t)(slash - line) >= sizeof(tgt) || !b)
		return false;
	memcpy(tgt, line, slash - line);
	tgt[slash - line] = '\0';
	snprintf(hex, sizeof(hex), "0x%lx", racer_addr);
	return !strcmp(tgt, "ksym_hitgen_buf+0x8") ||
	       !strcmp(tgt, "ksym_hitgen:ksym_hitgen_buf+0x8") ||
	       !strcmp(tgt, hex);
}

/*
 * Compare the file with the model: as sorted lines (the doc gives no order).
 * Returns 0 if equal; fills @got with what was read.
 */
static int check_readback(const struct model *m, char *got, size_t size,
			  char *want, size_t wsize)
{
	char *lines[MAX_WATCHES * 4 + 8], *wl[MAX_WATCHES + 1];
	char wbuf[MAX_WATCHES + 1][TARGET_MAX + 64];
	char *copy, *p, *save = NULL;
	size_t nl = 0, nw = 0, i, n = 0;
	int r, ret = 0;

	r = read_back(got, size);
	if (r < 0) {
		snprintf(want, wsize, "(read failed: %s)", strerror(-r));
		return 1;
	}
	copy = strdup(got);
	if (!copy)
		exit(2);
	for (p = strtok_r(copy, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		if (racer_line(p))
			continue;
		if (nl < sizeof(lines) / sizeof(lines[0]))
			lines[nl++] = p;
		else
			ret = 1;
	}
	if (r > 0 && got[r - 1] != '\n')
		ret = 1;	/* every line ends with a newline */
	for (i = 0; i < (size_t)m->nr; i++) {
		spec_line(&m->w[i], wbuf[i], sizeof(wbuf[i]));
		wl[nw++] = wbuf[i];
	}
	qsort(lines, nl, sizeof(lines[0]), cmp_str);
	qsort(wl, nw, sizeof(wl[0]), cmp_str);
	if (nl != nw)
		ret = 1;
	for (i = 0; !ret && i < nl; i++)
		if (strcmp(lines[i], wl[i]))
			ret = 1;
	want[0] = '\0';
	for (i = 0; i < nw; i++)
		n += snprintf(want + n, wsize > n ? wsize - n : 0, "%s\n", wl[i]);
	free(copy);
	return ret;
}

struct shared *sh;

static int take_lock(int fd, bool on)
{
	if (fd < 0)
		return 0;
	while (flock(fd, on ? LOCK_EX : LOCK_UN)) {
		if (errno != EINTR) {
			perror("ksym-fuzz: flock");
			return -1;
		}
	}
	return 0;
}

static void count_err(int id, int err)
{
	size_t i;

	for (i = 0; i < NR_ERRNOS; i++)
		if (errnos[i].err == err)
			break;
	sh->errcount[id][i]++;
}

/* Print everything needed to reproduce a mismatch. */
static void report(int id, long step, const char *what, const struct model *before,
		   const char *pend, size_t plen, bool trunc, const char *buf, size_t n,
		   const struct outcome *o, long ret, int err, const char *got,
		   const char *want)
{
	char es[128], line[TARGET_MAX + 64];
	int i;

	errmask_str(o->errs, es, sizeof(es));
	printf("ksym-fuzz: MISMATCH (writer %d, seed %" PRIu64 ", step %ld, mode %s%s%s): %s\n",
	       id, opt.seed, step,
	       opt.mode == MODE_SINGLE ? "single" : opt.mode == MODE_LOCK ? "lock" : "race",
	       opt.legacy_blank ? ", -L" : "", opt.no_nul ? ", -Z" : "", what);
	if (opt.percpu_alias)
		printf("  (-A: per-CPU alias rule)\n");
	printf("  watches before:\n");
	for (i = 0; i < before->nr; i++) {
		spec_line(&before->w[i], line, sizeof(line));
		printf("    %s\n", line);
	}
	printf("  descriptor opened %s; pending on it: '", trunc ? "with O_TRUNC" : "without O_TRUNC");
	escape(stdout, pend, plen, 300);
	printf("'\n  %s: '", buf ? "write" : "close");
	if (buf)
		escape(stdout, buf, n, 600);
	printf("'\n  model: %s%s%s (%s)\n", o->ok ? "accept" : "",
	       o->ok && o->errs ? " or " : "", o->errs ? es : "", o->why);
	printf("  kernel: %s%s\n", ret < 0 ? "error " : "returned ",
	       ret < 0 ? strerror(err) : "");
	if (ret >= 0)
		printf("    (ret %ld)\n", ret);
	printf("  read back:\n%s", got);
	printf("  expected:\n%s", want);
	printf("  reproducer (busybox sh, in /sys/kernel/tracing):\n");
	printf("    echo 0 > ksym_trace_filter\n");
	for (i = 0; i < before->nr; i++) {
		spec_line(&before->w[i], line, sizeof(line));
		printf("    echo '%s' >> ksym_trace_filter\n", line);
	}
	printf("    exec 3%s ksym_trace_filter\n", trunc ? ">" : ">>");
	if (plen) {
		printf("    printf '");
		escape(stdout, pend, plen, ~0UL);
		printf("' >&3\n");
	}
	if (buf) {
		printf("    printf '");
		escape(stdout, buf, n, ~0UL);
		printf("' >&3; echo \"rc=$?\"; cat ksym_trace_filter\n");
		printf("    exec 3>&-\n");
	} else {
		printf("    exec 3>&-; echo \"rc=$?\"; cat ksym_trace_filter\n");
	}
	fflush(stdout);
}

/*
 * Check one syscall's result against the outcome; on success update the
 * model. Returns 0 when all is well.
 */
static int judge(int id, long step, struct model *m,
		 const char *pend, size_t plen, bool trunc, const char *buf, size_t n,
		 const struct outcome *o, long ret, int err, bool *succeeded)
{
	static char got[65536], want[65536];
	struct model before = *m;
	bool ok;

	if (ret >= 0) {
		ok = o->ok && (!buf || (size_t)ret == n);
		*succeeded = true;
	} else {
		ok = (o->errs & errno_bit(err)) != 0;
		*succeeded = false;
	}
	if (ok && *succeeded)
		*m = o->after;
	if (!ok) {
		check_readback(m, got, sizeof(got), want, sizeof(want));
		report(id, step, ret >= 0 ? "accepted, model says refuse" :
		       "refused, model says otherwise", &before, pend, plen, trunc,
		       buf, n, o, ret, err, got, want);
		return 1;
	}
	if (check_readback(m, got, sizeof(got), want, sizeof(want))) {
		report(id, step, *succeeded ? "accepted, but the watch set is not its documented effect" :
		       "refused, but the watch set changed", &before, pend, plen, trunc,
		       buf, n, o, ret, err, got, want);
		return 1;
	}
	return 0;
}

/* One writer's state across its entries (writer()). */
struct wstate {
	int id;
	bool checked;		/* the racer (-m race, writer 1) is not */
	struct gen g;
	struct model *m;	/* its model: its own, or the shared one (-m lock) */
	char *pend;		/* what the open descriptor holds, unterminated */
	size_t plen;
	bool trunc, wrote;
	long quota, done, step;
	int fd, lockfd;
};

/* -P: a progress line every 5000 writes. */
static void w_progress(const struct wstate *w)
{
	FILE *pf;

	if (!opt.progress || w->done % 5000)
		return;
	pf = fopen(opt.progress, "a");
	if (pf) {
		fprintf(pf, "ksym-fuzz: seed %" PRIu64 " writer %d: %ld of %ld writes\n",
			opt.seed, w->id, w->done, w->quota);
		fclose(pf);
	}
}

/*
 * write(2) of @n bytes at @off of the generated text, modelled and judged:
 * 0 (*@r its return value), or -1 on a mismatch or a lock failure.
 */
static int w_piece(struct wstate *w, size_t off, size_t n, long *r)
{
	const char *buf = w->g.buf + off;
	struct outcome o;
	bool succeeded;
	int err;

	if (take_lock(w->lockfd, true))
		return -1;
	if (w->checked)
		model_write(w->m, w->pend, w->plen, buf, n, &o);
	if (opt.verbose) {
		printf("[%d] write '", w->id);
		escape(stdout, buf, n, 200);
		printf("'\n");
	}
	*r = write(w->fd, buf, n);
	err = errno;
	w->step++;
	w->done++;
	sh->writes[w->id]++;
	w_progress(w);
	if (*r < 0) {
		sh->refused[w->id]++;
		count_err(w->id, err);
	} else {
		sh->accepted[w->id]++;
	}
	if (w->checked) {
		if (judge(w->id, w->step, w->m, w->pend, w->plen, w->trunc, buf, n, &o,
			  *r, err, &succeeded)) {
			take_lock(w->lockfd, false);
			return -1;
		}
		w->plen = pending_after(w->pend, w->plen, buf, n, succeeded);
		if (n && rule_wrote(buf, n, !succeeded))
			w->wrote = true;
	}
	take_lock(w->lockfd, false);
	return 0;
}

/* close(2), applying what is pending, modelled and judged: 0 or -1. */
static int w_close(struct wstate *w)
{
	struct outcome o;
	bool succeeded;
	int r, err;

	if (take_lock(w->lockfd, true))
		return -1;
	if (w->checked)
		model_close(w->m, w->pend, w->plen, w->trunc, w->wrote, &o);
	r = close(w->fd);
	err = errno;
	w->fd = -1;
	w->step++;
	sh->closes[w->id]++;
	if (w->checked && judge(w->id, w->step, w->m, w->pend, w->plen, w->trunc, NULL, 0,
				&o, r, err, &succeeded)) {
		take_lock(w->lockfd, false);
		return -1;
	}
	w->plen = 0;
	take_lock(w->lockfd, false);
	return 0;
}

/* Open the filter (sometimes with O_TRUNC) when it is not open: 0 or -1. */
static int w_open(struct wstate *w)
{
	if (w->fd >= 0)
		return 0;
	/* O_TRUNC as "echo >" opens; the racer never clears. */
	w->trunc = w->checked && chance(&w->g.r, 20);
	w->wrote = false;
	w->fd = open(opt.filter, O_WRONLY | (w->trunc ? O_TRUNC : 0));
	if (w->fd < 0) {
		fprintf(stderr, "ksym-fuzz: open %s: %s\n", opt.filter, strerror(errno));
		return -1;
	}
	w->plen = 0;
	return 0;
}

/* One generated text, written whole or in pieces: 0 or -1. */
static int w_entry(struct wstate *w)
{
	struct gen *g = &w->g;
	size_t off = 0, cut;
	int pieces;

	if (w->checked)
		gen_logical(g);
	else
		gen_racer(g);
	maybe_nul(g);
	pieces = chance(&g->r, 50) ? 1 : 2 + rnd(&g->r, 3);
	if (chance(&g->r, 1))
		pieces = 0;	/* a zero-length write */
	/* A cast cut between two write() calls. */
	cut = pieces && g->cut && g->cut < g->n && chance(&g->r, 30) ? g->cut : 0;
	if (cut && pieces < 2)
		pieces = 2;

	do {
		size_t n = g->n - off;
		long r;

		if (cut && !off)
			n = cut;
		else if (pieces > 1 && n > 1)
			n = 1 + rnd(&g->r, n - 1);
		if (!pieces)
			n = 0;
		if (w_piece(w, off, n, &r))
			return -1;
		off += n;
		pieces--;
		/*
		 * A refused piece took the pending data with it: the rest
		 * of a token cut there would be a fragment, which can spell
		 * a real symbol the model does not know ("x", "var").
		 */
		if (r < 0 && off < g->n && !is_sep(g->buf[off - 1]))
			break;
	} while (off < g->n && pieces > 0);
	return 0;
}

int writer(int id)
{
	static char buf[BUF_MAX], pend[WRITE_MAX * 2];
	struct wstate w = { .id = id, .pend = pend, .fd = -1, .lockfd = -1 };
	struct model local = { 0 };
	int ret = 1;

	w.checked = !(opt.mode == MODE_RACE && id == 1);
	w.g.r.s = opt.seed * 1000003ULL + id * 7919ULL + 1;
	w.g.buf = buf;
	w.g.racer = !w.checked;
	w.m = opt.mode == MODE_LOCK ? &sh->m : &local;
	w.g.m = w.checked ? w.m : NULL;
	w.quota = opt.mode == MODE_SINGLE ? opt.writes : (opt.writes + 1 - id) / 2;

	if (opt.mode == MODE_LOCK) {
		w.lockfd = open(LOCK_FILE, O_RDWR | O_CREAT, 0600);
		if (w.lockfd < 0) {
			perror("ksym-fuzz: " LOCK_FILE);
			goto cleanup;
		}
	}
	while (w.done < w.quota && !out_of_time()) {
		if (w_open(&w) || w_entry(&w))
			goto cleanup;
		/* Sometimes close (applying what is pending) and reopen. */
		if ((chance(&w.g.r, 15) || w.done >= w.quota) && w_close(&w))
			goto cleanup;
	}
	ret = 0;
cleanup:
	if (w.fd >= 0)
		close(w.fd);
	if (w.lockfd >= 0)
		close(w.lockfd);
	return ret;
}

/* ------------------------------------------------------------------------
 * Hits
 */

int hitter(void)
{
	static const struct {
		const char *file;
		const char *n;
	} jobs[] = {
		{ "write_a", "100" }, { "write_u32", "50" }, { "read", "50" },
		{ "write_b", "20" }, { "spread", "2" }, { "rec_count", "50" },
		{ "rec_name", "20" }, { "pcpu_write", "50" }, { "pcpu_remote", "10" },
	};
	unsigned int i = 0;
	char path[256];

	while (!sh->stop) {
		int fd;

		snprintf(path, sizeof(path), HITGEN_DIR "/%s", jobs[i % N(jobs)].file);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			fprintf(stderr, "ksym-fuzz: hitter: %s: %s\n", path, strerror(errno));
			return 1;
		}
		if (write(fd, jobs[i % N(jobs)].n, strlen(jobs[i % N(jobs)].n)) < 0) {
			fprintf(stderr, "ksym-fuzz: hitter: write %s: %s\n", path,
				strerror(errno));
			close(fd);
			return 1;
		}
		close(fd);
		i++;
		if (i % 16 == 0 && fork() == 0)
			_exit(0);	/* forks write total_forks */
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		/* Hits all along, but leave the writers most of the CPU (TCG). */
		usleep(2000);
	}
	return 0;
}

/* Runner */

int read_file(const char *path, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -errno;
	while (n + 1 < size && (r = read(fd, buf + n, size - n - 1)) > 0)
		n += r;
	buf[n] = '\0';
	close(fd);
	return n;
}
