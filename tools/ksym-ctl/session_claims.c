// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl: what a session claims (claims.h) and gives back.
 *
 * Owns: the watches a run writes to ksym_trace_filter and their claims
 * (pending before the write, then the lines the kernel shows), the tracer
 * options and settings a run claims, and putting back what the last owner
 * of a claim found (a run's end, ksym-ctl reset). May call: state.c (the
 * lock, load, save), claims.c, ksym_tracefs.c's tracefs helpers
 * (ksym_filter_write(), ksym_read_file(), ksym_instance_alive(),
 * ksym_session_set_triggers()), utils.c. The session's instance, events
 * and triggers are ksym_tracefs.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>

#include "ksym_tracefs.h"
#include "session_claims.h"

/* The line without its comment ("# disarmed: ...") and trailing blanks. */
static void line_bare(const char *line, char *buf, size_t size)
{
	size_t len = strcspn(line, "#");

	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		len--;
	snprintf(buf, size, "%.*s", (int)len, line);
}

/* The bare line of @target in @lines, or "" when it has none. */
static void target_line(const struct strv *lines, const char *target,
			char *buf, size_t size)
{
	char t[1100];
	int i;

	buf[0] = '\0';
	for (i = 0; i < lines->n; i++)
		if (!filter_line_target(lines->v[i], t, sizeof(t)) &&
		    target_same(t, target)) {
			line_bare(lines->v[i], buf, size);
			return;
		}
}

/* What gives @target line @line back ("" : no watch, "TARGET:---"). */
static void restore_entry(FILE *f, const char *target, const char *line)
{
	if (*line)
		fprintf(f, "%s\n", line);
	else
		fprintf(f, "%s:---\n", target);
}

/* Write the lines of @text (one write, else one at a time). */
static void filter_write_lines(char *text)
{
	char *save = NULL, *e;

	if (!*text || !ksym_filter_write(text))
		return;
	/* Someone else changed a watch meanwhile: one at a time. */
	for (e = strtok_r(text, "\n", &save); e; e = strtok_r(NULL, "\n", &save))
		ksym_filter_write(e);
}

/*
 * A watch of @specs that another run holds with another access, LEN or
 * CPU list: refused before anything is written (changing it would change what that run
 * counts). 0, or -1 with a message.
 */
static int watch_precheck(struct claims *c, const struct strv *specs,
			  const char *self)
{
	char target[1100];
	struct claim *cl;
	int i;

	for (i = 0; i < specs->n; i++) {
		spec_target(specs->v[i], target, sizeof(target));
		cl = claims_find(c, CLAIM_WATCH, target);
		if (!cl || !claim_held_by_other(cl, self, ksym_instance_alive, NULL))
			continue;
		if (spec_differs(specs->v[i], cl->set)) {
			err_msg("%s: %s is watched as '%s' by another ksym-ctl run (%s): runs at once share a watch only as it is\n",
				specs->v[i], target, cl->set, cl->owners.v[0]);
			return -1;
		}
	}
	return 0;
}

/*
 * Before the watches of @specs are written: their claims saved as pending
 * (CLAIM_PENDING) with the lines they had (@before), so that a run killed
 * before its claims are complete leaves what reset needs. @c is left as it
 * is. 0 or -1.
 */
static int watch_save_pending(const struct claims *c, const struct strv *specs,
			      const struct strv *before, const char *self)
{
	char target[1100], bline[1100], *text = claims_format(c);
	struct claims p = { 0 };
	int i, ret = -1;

	if (!text || claims_parse(&p, text, c->boot_id ? c->boot_id : ""))
		goto out;
	for (i = 0; i < specs->n; i++) {
		spec_target(specs->v[i], target, sizeof(target));
		target_line(before, target, bline, sizeof(bline));
		if (claims_take(&p, CLAIM_WATCH, target, bline, CLAIM_PENDING, self,
				ksym_instance_alive, NULL))
			goto out;
	}
	ret = ksym_state_save(&p);
out:
	claims_free(&p);
	free(text);
	return ret;
}

/* The watches a write of ksym_session_watch() made ours, or conflicts. */
struct watch_change {
	struct strv	mine, mine_before, mine_after, conflicts;
};

static void watch_change_free(struct watch_change *w)
{
	strv_free(&w->mine);
	strv_free(&w->mine_before);
	strv_free(&w->mine_after);
	strv_free(&w->conflicts);
}

/*
 * Which watches the write made ours: every line it added, changed or
 * removed (under the lock no other ksym-ctl writes), and the targets of
 * @specs as the kernel shows them. Those another run holds are shared when
 * the write left them as they were, else a conflict. 0 or -1.
 */
static int watch_mine(struct claims *c, const char *self, const struct strv *specs,
		      const struct strv *before, const struct strv *after,
		      struct watch_change *w)
{
	char target[1100], bline[1100], aline[1100];
	int i;

	for (i = 0; i < after->n + before->n; i++) {
		const char *line = i < after->n ? after->v[i] : before->v[i - after->n];
		struct claim *cl;

		if (filter_line_target(line, target, sizeof(target)) ||
		    strv_find(&w->mine, target) >= 0 || strv_find(&w->conflicts, target) >= 0)
			continue;
		target_line(before, target, bline, sizeof(bline));
		target_line(after, target, aline, sizeof(aline));
		if (!strcmp(bline, aline))
			continue;
		cl = claims_find(c, CLAIM_WATCH, target);
		if (cl && claim_held_by_other(cl, self, ksym_instance_alive, NULL)) {
			if (strv_add(&w->conflicts, target))
				return -1;
			continue;
		}
		if (strv_add(&w->mine, target) || strv_add(&w->mine_before, bline) ||
		    strv_add(&w->mine_after, aline))
			return -1;
	}
	for (i = 0; i < specs->n; i++) {
		spec_target(specs->v[i], target, sizeof(target));
		target_line(after, target, aline, sizeof(aline));
		if (!*aline || strv_find(&w->mine, target) >= 0 ||
		    strv_find(&w->conflicts, target) >= 0)
			continue;
		/* As it was: another run's, or the user's own watch. */
		if (strv_add(&w->mine, target) || strv_add(&w->mine_before, aline) ||
		    strv_add(&w->mine_after, aline))
			return -1;
	}
	return 0;
}

/* Undo the write: theirs as they set them, ours as they were. */
static void watch_undo(struct claims *c, const struct watch_change *w)
{
	char *undo = NULL;
	size_t undo_size = 0;
	FILE *f = open_memstream(&undo, &undo_size);
	int i;

	if (!f)
		return;
	for (i = 0; i < w->conflicts.n; i++) {
		struct claim *cl = claims_find(c, CLAIM_WATCH, w->conflicts.v[i]);

		err_msg("%s is watched as '%s' by another ksym-ctl run (%s): runs at once share a watch only as it is\n",
			w->conflicts.v[i], cl->set, cl->owners.v[0]);
		restore_entry(f, w->conflicts.v[i], cl->set);
	}
	for (i = 0; i < w->mine.n; i++)
		if (strcmp(w->mine_before.v[i], w->mine_after.v[i]))
			restore_entry(f, w->mine.v[i], w->mine_before.v[i]);
	fclose(f);
	filter_write_lines(undo);
	free(undo);
}

/* @specs as one write's text ("A B C"), or NULL. */
static char *specs_text(const struct strv *specs)
{
	size_t len = 1;
	char *text;
	int i;

	for (i = 0; i < specs->n; i++)
		len += strlen(specs->v[i]) + 1;
	text = calloc(1, len);
	for (i = 0; text && i < specs->n; i++) {
		strcat(text, specs->v[i]);
		if (i + 1 < specs->n)
			strcat(text, " ");
	}
	return text;
}

int ksym_session_watch(struct ksym_session *s, const struct strv *specs)
{
	struct strv before = { 0 }, after = { 0 };
	struct watch_change w = { 0 };
	char *text = NULL, *b_text = NULL, *a_text = NULL;
	const char *self;
	struct claims c = { 0 };
	int i, lock, ret = -1;
	bool pending = false;

	if (!s->inst)
		return -1;
	self = tracefs_instance_get_name(s->inst);
	lock = ksym_state_lock(LOCK_EX);
	if (lock < 0)
		return -1;
	if (ksym_state_load(&c) || watch_precheck(&c, specs, self))
		goto cleanup;
	text = specs_text(specs);
	b_text = ksym_read_file("ksym_trace_filter");
	if (!text || !b_text)
		goto cleanup;
	if (split_lines(b_text, &before) ||
	    watch_save_pending(&c, specs, &before, self))
		goto cleanup;
	pending = true;
	if (ksym_filter_write(text))
		goto cleanup;
	a_text = ksym_read_file("ksym_trace_filter");
	if (!a_text || split_lines(a_text, &after) ||
	    watch_mine(&c, self, specs, &before, &after, &w))
		goto cleanup;
	if (w.conflicts.n) {
		watch_undo(&c, &w);
		goto cleanup;
	}
	for (i = 0; i < w.mine.n; i++) {
		if (claims_take(&c, CLAIM_WATCH, w.mine.v[i], w.mine_before.v[i],
				w.mine_after.v[i], self, ksym_instance_alive, NULL))
			goto cleanup;
		if (strv_find(&s->targets, w.mine.v[i]) < 0 &&
		    strv_add(&s->targets, w.mine.v[i]))
			goto cleanup;
		debug_msg("our watch: %s (was '%s', now '%s')\n", w.mine.v[i],
			  w.mine_before.v[i], w.mine_after.v[i]);
	}
	s->filter_changed = true;
	ret = 0;
cleanup:
	/* The pending claims replaced: by ours, or by what was there. */
	if (pending && ksym_state_save(&c))
		ret = -1;
	ksym_state_unlock(lock);
	claims_free(&c);
	free(text);
	free(b_text);
	free(a_text);
	strv_free(&before);
	strv_free(&after);
	watch_change_free(&w);
	return ret;
}

int ksym_session_save_option(struct ksym_session *s, const char *opt, bool on)
{
	struct claims c = { 0 };
	char file[128], was[24];
	long long val;
	int lock, ret = -1;

	snprintf(file, sizeof(file), "options/%s", opt);
	if (!tracefs_file_exists(s->inst, file)) {
		err_msg("this kernel has no tracer option %s\n", opt);
		return -1;
	}
	/*
	 * The ksym tracer's own options are the tracer's, shared by every
	 * instance: claimed. The others (stacktrace) are the instance's and
	 * go with it.
	 */
	if (strv_find(&s->opts, opt) >= 0 || strncmp(opt, "ksym-", 5))
		return 0;
	lock = ksym_state_lock(LOCK_EX);
	if (lock < 0)
		return -1;
	if (tracefs_instance_file_read_number(s->inst, file, &val)) {
		err_msg("cannot read %s\n", file);
		goto out;
	}
	snprintf(was, sizeof(was), "%lld", val);
	if (ksym_state_load(&c) ||
	    claims_take(&c, CLAIM_OPTION, opt, was, on ? "1" : "0",
			tracefs_instance_get_name(s->inst), ksym_instance_alive, NULL) ||
	    strv_add(&s->opts, opt) || ksym_state_save(&c))
		goto out;
	ret = 0;
out:
	claims_free(&c);
	ksym_state_unlock(lock);
	return ret;
}

/* The tracefs file of an option's or a setting's claim. */
static void claim_file(const struct claim *cl, char *buf, size_t size)
{
	if (cl->kind == CLAIM_OPTION)
		snprintf(buf, size, "options/%s", cl->key);
	else
		snprintf(buf, size, "%s", cl->key);
}

/*
 * Put back what the claims of @freed had before: the watches' lines (or
 * none), the options' values. For ksym_session_restore() and reset.
 */
static void restore_claims(const struct claims *freed)
{
	char *text = NULL, file[300];
	size_t size = 0;
	FILE *f = open_memstream(&text, &size);
	int i;

	for (i = 0; i < freed->n; i++) {
		const struct claim *cl = &freed->v[i];

		if (cl->kind != CLAIM_WATCH) {
			claim_file(cl, file, sizeof(file));
			debug_msg("restore: %s <- %s\n", file, cl->orig);
			if (*cl->orig && tracefs_instance_file_write(NULL, file, cl->orig) < 0)
				err_msg("cannot restore %s: %s\n", file, strerror(errno));
		} else if (f) {
			restore_entry(f, cl->key, cl->orig);
		}
	}
	if (!f)
		return;
	fclose(f);
	debug_msg("restore: writing '%s'\n", text);
	filter_write_lines(text);
	free(text);
}

bool ksym_claim_in_effect(const struct claim *cl, const struct strv *filter_lines)
{
	char now[1100] = "", file[300];
	long long val;

	/* A run's own claim sets nothing. */
	if (cl->kind == CLAIM_RUN)
		return false;
	if (cl->kind == CLAIM_WATCH) {
		target_line(filter_lines, cl->key, now, sizeof(now));
		/* Killed before its claim was complete: changed from the original. */
		if (!strcmp(cl->set, CLAIM_PENDING))
			return strcmp(now, cl->orig) != 0;
	} else {
		claim_file(cl, file, sizeof(file));
		if (!tracefs_instance_file_read_number(NULL, file, &val))
			snprintf(now, sizeof(now), "%lld", val);
	}
	return !strcmp(now, cl->set);
}

/*
 * Keep in @freed only the claims whose value is still the one their run
 * set: the others were changed since (by a user, another tool) and are
 * left as they are, said on stderr, or with @done (reset) in debug output.
 * Into @done (when not NULL) what is put back. 0 or -1.
 */
static int claims_in_effect(struct claims *freed, struct strv *done)
{
	char *filter = ksym_read_file("ksym_trace_filter");
	struct strv lines = { 0 };
	int i, n = 0, ret = -1;

	if (!filter || split_lines(filter, &lines))
		goto out;
	for (i = 0; i < freed->n; i++) {
		struct claim *cl = &freed->v[i];
		char *now = NULL;

		if (!ksym_claim_in_effect(cl, &lines)) {
			if (done)
				debug_msg("reset: %s changed since it was set to '%s': left\n",
					  cl->key, cl->set);
			else
				err_msg("%s %s was changed from '%s' while this run went on: left as it is\n",
					claim_kind_name(cl->kind), cl->key, cl->set);
			free(cl->key);
			free(cl->orig);
			free(cl->set);
			strv_free(&cl->owners);
			continue;
		}
		if (done &&
		    asprintf(&now, "%s %s: '%s' -> '%s'", claim_kind_name(cl->kind),
			     cl->key, strcmp(cl->set, CLAIM_PENDING) ? cl->set :
			     "(written by a run killed before its claim)",
			     *cl->orig ? cl->orig :
			     cl->kind == CLAIM_WATCH ? "(none)" : "") >= 0) {
			strv_add(done, now);
			free(now);
		}
		freed->v[n++] = *cl;
	}
	freed->n = n;
	ret = 0;
out:
	strv_free(&lines);
	free(filter);
	return ret;
}

/*
 * Drop the session's claims: the watches and options that no other run
 * holds get back what they had before the first run claimed them, where
 * what the run set is still there (a change made meanwhile is left, and
 * said). Without the lock (held too long, a signal) nothing is put back:
 * the claims stay, for ksym-ctl reset once this run's instance is gone.
 */
void ksym_session_release_claims(struct ksym_session *s, int lock)
{
	struct claims c = { 0 }, freed = { 0 };

	if (lock < 0) {
		if (s->filter_changed || s->opts.n)
			err_msg("the watches and tracer options of this run stay as they are: 'ksym-ctl reset' puts them back\n");
		return;
	}
	if (!ksym_state_load(&c) &&
	    !claims_release(&c, tracefs_instance_get_name(s->inst),
			    ksym_instance_alive, NULL, &freed)) {
		claims_in_effect(&freed, NULL);
		restore_claims(&freed);
		ksym_state_save(&c);
	}
	claims_free(&c);
	claims_free(&freed);
}

int ksym_reset_claims_locked(struct strv *done)
{
	struct claims c = { 0 }, freed = { 0 };
	int ret = -1;

	if (ksym_state_load(&c) ||
	    claims_release(&c, NULL, ksym_instance_alive, NULL, &freed) ||
	    claims_in_effect(&freed, done))
		goto out;
	restore_claims(&freed);
	ret = ksym_state_save(&c);
out:
	claims_free(&c);
	claims_free(&freed);
	return ret;
}

int ksym_session_set_triggers_with(struct ksym_session *s, const char *file,
				   const char *value)
{
	struct claims c = { 0 }, freed = { 0 };
	const char *self;
	char *was = NULL;
	int lock, ret = -1;

	if (!s->inst)
		return -1;
	self = tracefs_instance_get_name(s->inst);
	lock = ksym_state_lock(LOCK_EX);
	if (lock < 0)
		return -1;
	was = tracefs_instance_file_read(NULL, file, NULL);
	if (!was) {
		err_msg("cannot read %s: %s\n", file, strerror(errno));
		goto out;
	}
	was[strcspn(was, "\n")] = '\0';
	if (ksym_state_load(&c) ||
	    claims_take(&c, CLAIM_SETTING, file, was, value, self,
			ksym_instance_alive, NULL) ||
	    ksym_state_save(&c))
		goto out;
	debug_msg("%s <- %s (was %s)\n", file, value, was);
	if (tracefs_instance_file_write(NULL, file, value) < 0)
		err_msg("cannot write '%s' to %s: %s\n", value, file, strerror(errno));
	else
		ret = ksym_session_set_triggers(s);
	/* Read when the triggers were made: given back at once. */
	if (!claims_drop(&c, CLAIM_SETTING, file, self, &freed)) {
		restore_claims(&freed);
		ksym_state_save(&c);
	}
out:
	ksym_state_unlock(lock);
	claims_free(&c);
	claims_free(&freed);
	free(was);
	return ret;
}

