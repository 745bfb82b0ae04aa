// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-fuzz: -G, triggers instead of the filter: the model of the trigger
 * files of ksym_hitgen's object events (ksym_watch, ksym_unwatch), its
 * generator, the run (trig_run()) with its object and slot children, the
 * checks of error_log and trace_stat/ksym_triggers, and its self-test.
 *
 * Owns: everything trig_* and the -G run.
 * May call: the model, the generators, the writers' kernel helpers
 * (read_file()) and their shared state (sh, for the children's stop flag).
 */

#include "ksym-fuzz.h"


/* ------------------------------------------------------------------------
 * Triggers (-G): ksym_watch and ksym_unwatch on ksym_hitgen's object events
 *
 * The model follows Documentation/trace/ksym.rst ("Objects found at run
 * time") and the tracing core's trigger files (kernel/trace/
 * trace_events_trigger.c): a write is one command, trimmed, cut at its
 * first NUL (memdup_user_nul()), at most 4095 bytes; the command name ends
 * at ':', ' ' or '\t'; O_TRUNC removes no ksym trigger (they have no
 * unreg_all). The parameter ends at a blank but for blanks in a cast; what
 * follows is "if FILTER". Reading the file shows each trigger as
 * "CMD:CANON:unlimited" or "CMD:CANON:count=N", then " if FILTER"; a
 * count goes down as the trigger fires (misses too), so a trigger whose
 * filter can match is only known to have a count no larger than before.
 */



static const char *const trig_events[] = { "ksym_hitgen_obj_alloc", "ksym_hitgen_obj_free" };

/* struct ksym_hitgen_obj (kernel/trace/ksym_hitgen.c), what the field obj points to. */
static const struct fmember m_obj[] = {
	{ "id", 0, &t_ulong }, { "count", 8, &t_ulong }, { "flags", 16, &t_u32 },
};

static const struct ftype t_obj = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_obj", .size = 24,
	.members = m_obj, .nmembers = 3,
};

/* The events' fields that hold no address (common and generic ones). */
static const char *const trig_noaddr_fields[] = {
	"common_type", "common_flags", "common_preempt_count", "common_pid",
	"CPU", "cpu", "COMM", "comm", "common_cpu", "common_comm",
};

/* Filters the generator writes after "if": valid or not, and whether they can match. */
static const struct trig_filters_entry trig_filters[] = {
	{ "obj == 0", true, false }, { "obj != 0", true, true },
	{ "common_pid < 0", true, false }, { "common_pid >= 0", true, true },
	{ "obj == 0 || obj != 0", true, true }, { "obj == 0 && common_pid > 0", true, false },
	{ "nosuch == 1", false, false }, { "obj ==", false, false },
	{ "obj == 0 &&", false, false }, { "(obj == 0", false, false },
	{ "== 0", false, false }, { "obj == 0)", false, false },
};

void twhy(struct toutcome *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->why, sizeof(o->why), fmt, ap);
	va_end(ap);
}

/* Documented rule: every refused ksym_* command says why in error_log. -W: not for trailing text. */
static bool rule_trailing_logged(void)
{
	return !opt.trailing_unlogged;
}

static void trig_line(const struct ktrig *t, char *buf, size_t size)
{
	char cnt[32];

	if (t->count < 0)
		snprintf(cnt, sizeof(cnt), "unlimited");
	else
		snprintf(cnt, sizeof(cnt), "count=%ld", t->count);
	snprintf(buf, size, "%s:%s:%s%s%s", t->unwatch ? "ksym_unwatch" : "ksym_watch",
		 t->canon, cnt, t->filter[0] ? " if " : "", t->filter);
}

/* The end of a trigger's parameter: a blank, but for spaces and tabs in a cast. */
static char *trig_param_end(char *p)
{
	bool in_cast = false;

	for (; *p; p++) {
		if (*p == '(')
			in_cast = true;
		else if (*p == ')')
			in_cast = false;
		else if (strchr(" \t\n\r\v\f", *p) && !(in_cast && (*p == ' ' || *p == '\t')))
			break;
	}
	return p;
}

/*
 * ksym_trigger_find(): the newest trigger of @unwatch's kind whose canon is
 * @s; with @shown also the file's form (count included) or the canon cut
 * before its first '['. *@raced: matched only by a count that may have
 * moved on.
 */
static int trig_find(const struct tfile *f, bool unwatch, const char *s, bool shown,
		     bool *raced)
{
	char cnt[32];
	size_t n;
	int i;

	*raced = false;
	for (i = 0; i < f->nr; i++) {
		const struct ktrig *t = &f->t[i];

		if (t->unwatch != unwatch)
			continue;
		if (!strcmp(t->canon, s))
			return i;
		if (!shown)
			continue;
		n = strlen(s);
		if (n < strlen(t->canon)) {
			if (!strncmp(t->canon, s, n) && t->canon[n] == '[')
				return i;
			continue;
		}
		n = strlen(t->canon);
		if (strncmp(t->canon, s, n))
			continue;
		if (t->count < 0) {
			if (!strcmp(s + n, ":unlimited"))
				return i;
			continue;
		}
		snprintf(cnt, sizeof(cnt), ":count=%ld", t->count);
		if (!strcmp(s + n, cnt)) {
			*raced = t->fires && t->count > 0;
			return i;
		}
	}
	return -1;
}

/*
 * ksym_trigger_parse_param(): @param (modified) into @t; 0 or the errno
 * bit. *@count: the count's text, or NULL.
 */
/* What trig_parse_param() has read of a PARAM so far. */
struct tparam {
	char cast[600];
	bool is_union, have_cast, neg;
	const char *field, *access;
	size_t flen;
	char *path;
	unsigned long off, len;
};

/* ksym_watch's :ACCESS[:COUNT], /LEN and +-OFFSET after FIELD[PATH]. */
static unsigned int trig_param_watch(struct tparam *tp, char *p, char **count,
				     struct toutcome *o)
{
	char *colon = strchr(p, ':'), *slash, *plus;

	if (!colon) {
		twhy(o, "no :ACCESS");
		return EB_EINVAL;
	}
	*colon = '\0';
	tp->access = colon + 1;
	colon = strchr(tp->access, ':');
	if (colon) {
		*colon = '\0';
		*count = colon + 1;
	}
	if (strcmp(tp->access, "rw-") && strcmp(tp->access, "-w-") && strcmp(tp->access, "r--") &&
	    strcmp(tp->access, "--x") && strcmp(tp->access, "---")) {
		twhy(o, "bad access '%.20s'", tp->access);
		return EB_EINVAL;
	}
	if (strcmp(tp->access, "rw-") && strcmp(tp->access, "-w-")) {
		twhy(o, "a trigger watches data: '%s'", tp->access);
		return EB_EINVAL;
	}
	slash = strchr(tp->path, '/');
	if (slash) {
		*slash = '\0';
		if (!parse_num(slash + 1, 0, &tp->len) ||
		    (tp->len != 1 && tp->len != 2 && tp->len != 4 && tp->len != 8)) {
			twhy(o, "bad LEN '%.20s'", slash + 1);
			return EB_EINVAL;
		}
	}
	plus = strpbrk(tp->path, "+-");
	if (plus) {
		if (!parse_trigger_offset(o, plus, &tp->off, &tp->neg))
			return EB_EINVAL;
		*plus = '\0';
	}
	return 0;
}

/* FIELD of the event: 0 for obj (an address), else why not. */
static unsigned int trig_param_field(const char *field, size_t flen, struct toutcome *o)
{
	size_t i;

	/* The field. */
	if (flen == 3 && !strncmp(field, "obj", 3))
		return 0;
	for (i = 0; i < N(trig_noaddr_fields); i++)
		if (strlen(trig_noaddr_fields[i]) == flen &&
		    !strncmp(field, trig_noaddr_fields[i], flen)) {
			twhy(o, "field '%s' holds no address", trig_noaddr_fields[i]);
			return EB_EINVAL;
		}
	twhy(o, "no field '%.*s'", (int)(flen < 40 ? flen : 40), field);
	return EB_ENOENT;
}

/* ksym_watch's FIELD[PATH] typed through the cast or obj's struct: t->canon. */
static unsigned int trig_param_typed(struct tparam *tp, struct ktrig *t, struct toutcome *o)
{
	static struct outcome wo;
	char pcanon[TCANON_MAX] = "";
	const struct ftype *ty = NULL;
	unsigned long toff = 0, size;
	unsigned int e;
	int d;

	/* The type: the cast, or the field's own struct ksym_hitgen_obj. */
	if (tp->have_cast) {
		if (!strcmp(tp->cast, "ksym_hitgen_obj")) {
			ty = tp->is_union ? NULL : &t_obj;
			if (!ty) {
				twhy(o, "no union ksym_hitgen_obj");
				return EB_ENOENT;
			}
		} else if ((strcmp(tp->cast, "ksym_hitgen_rec") && strcmp(tp->cast, "ksym_hitgen_pcpu")) ||
			   !find_cast(tp->is_union, tp->cast, &ty) || !ty) {
			/* Others: nx names, or one of ours with a byte dropped. */
			twhy(o, "no %s %s", tp->is_union ? "union" : "struct", tp->cast);
			return EB_ENOENT;
		}
	} else {
		ty = &t_obj;
	}
	e = walk_path(tp->path, &ty, &toff, pcanon, sizeof(pcanon), &wo);
	if (e) {
		twhy(o, "path: %s", wo.why);
		return e;
	}
	size = ty->size;
	toff = tp->neg ? toff - tp->off : toff + tp->off;
	if (tp->off)
		size = 0;
	if (tp->len && size && tp->len > size) {
		twhy(o, "LEN %lu larger than the field (%lu)", tp->len, size);
		return EB_EINVAL;
	}
	if (!tp->len) {
		d = default_len(toff, size);
		if (d <= 0) {
			twhy(o, "+OFFSET needs /LEN");
			return EB_EINVAL;
		}
		tp->len = d;
	}
	{
		char offs[32] = "";

		if (tp->off)
			snprintf(offs, sizeof(offs), "%c0x%lx", tp->neg ? '-' : '+',
				 tp->off);
		/* The cast only where it was written ("struct NAME", as canonical). */
		snprintf(t->canon, sizeof(t->canon), "%s%s%s%.*s%s%s/%lu:%s",
			 tp->have_cast ? "(struct " : "", tp->have_cast ? tp->cast : "", tp->have_cast ? ")" : "",
			 (int)tp->flen, tp->field, pcanon, offs, tp->len, tp->access);
	}
	return 0;
}

static unsigned int trig_parse_param(char *param, struct ktrig *t, char **count,
				     struct toutcome *o)
{
	struct tparam tp = { .cast = "" };
	char *p = param, *colon;
	unsigned int e;
	unsigned long v;

	*count = NULL;
	if (!t->unwatch && *p == '(') {
		p = parse_cast(p, &tp.is_union, tp.cast, sizeof(tp.cast));
		if (!p) {
			twhy(o, "bad cast");
			return EB_EINVAL;
		}
		tp.have_cast = true;
	}
	tp.field = p;
	while (is_ident(*p))
		p++;
	if (p == tp.field || isdigit((unsigned char)*tp.field)) {
		twhy(o, "no FIELD at '%.20s'", tp.field);
		return EB_EINVAL;
	}
	tp.flen = p - tp.field;
	tp.path = p;
	if (t->unwatch) {
		colon = strchr(p, ':');
		if (colon) {
			*colon = '\0';
			*count = colon + 1;
		}
		/* An offset from the field, as ksym_watch's: "+N" or "-N". */
		if ((*p == '+' || *p == '-') &&
		    !parse_trigger_offset(o, p, &tp.off, &tp.neg))
			return EB_EINVAL;
		if (*p && *p != '+' && *p != '-') {
			twhy(o, "ksym_unwatch takes no path: '%.20s'", p);
			return EB_EINVAL;
		}
	} else {
		e = trig_param_watch(&tp, p, count, o);
		if (e)
			return e;
	}
	if (*count && (!parse_num(*count, 0, &v) || v > (unsigned long)LONG_MAX)) {
		twhy(o, "bad count '%.20s'", *count);
		return EB_EINVAL;
	}
	e = trig_param_field(tp.field, tp.flen, o);
	if (e)
		return e;
	if (t->unwatch) {
		if (tp.off)
			snprintf(t->canon, sizeof(t->canon), "obj%c0x%lx",
				 tp.neg ? '-' : '+', tp.off);
		else
			snprintf(t->canon, sizeof(t->canon), "obj");
		return 0;
	}
	return trig_param_typed(&tp, t, o);
}

/* A filter after the entry: (set_trigger_filter()) "if", a blank, FILTER. */
static unsigned int trig_filter(char *ftext, struct ktrig *t, struct toutcome *o)
{
	char *rest;
	size_t i;

	t->fires = true;
	t->filter[0] = '\0';
	if (!ftext)
		return 0;
	rest = ftext + strcspn(ftext, " \t");
	if (strncmp(ftext, "if", rest - ftext) || rest - ftext != 2 || !*rest) {
		twhy(o, "'%.20s' after the entry is no 'if FILTER'", ftext);
		o->trailing = true;
		return EB_EINVAL;
	}
	rest++;
	for (i = 0; i < N(trig_filters); i++)
		if (!strcmp(rest + strspn(rest, " \t"), trig_filters[i].f))
			break;
	if (i == N(trig_filters)) {
		fprintf(stderr, "ksym-fuzz: internal: a filter the model does not know: %s\n", rest);
		exit(2);
	}
	if (!trig_filters[i].ok) {
		/*
		 * The filter parser's errno, any: EINVAL, EPERM ("Too few '('"),
		 * ENOENT ("Too many '('").
		 */
		twhy(o, "bad filter '%s'", rest);
		o->log = TL_FILTER;
		return ~0U;
	}
	t->fires = trig_filters[i].fires;
	snprintf(t->filter, sizeof(t->filter), "%s", rest);
	return 0;
}

/* One write(2) of @n bytes to the trigger file whose triggers are @f. */
/* "!ksym_...:PARAM": which trigger of @f it removes (@param as written). */
static void trig_model_remove(const struct tfile *f, char *param, char *pbuf,
			      struct toutcome *o)
{
	unsigned int err;
	char *count;
	bool raced;
	int i;

	i = trig_find(f, o->add.unwatch, param, true, &raced);
	if (i < 0 || raced) {
		err = trig_parse_param(pbuf, &o->add, &count, o);
		if (!err) {
			int j = trig_find(f, o->add.unwatch, o->add.canon, false, &raced);

			if (j < 0 && i < 0) {
				twhy(o, "no trigger %s to remove", o->add.canon);
				o->errs = EB_ENOENT;
				return;
			}
			if (j >= 0)
				i = j, raced = false;
		} else if (i < 0) {
			o->errs = err;
			return;
		} else {
			/* Removed, or the count moved on: refused as a bad count. */
			o->either = true;
			o->errs = err;
		}
	}
	o->res = TR_REMOVE;
	o->rm = i;
	twhy(o, "removes %s%s", f->t[i].canon, o->either ? " (or a bad count, if it fired)" : "");
}

/* "ksym_...:PARAM [if FILTER]": the trigger it adds to @f, or why not. */
static void trig_model_add(const struct tfile *f, const char *buf, size_t n,
			   char *pbuf, char *ftext, struct toutcome *o)
{
	unsigned int err;
	char *count;
	bool raced;

	err = trig_parse_param(pbuf, &o->add, &count, o);
	if (err) {
		o->errs = err;
		return;
	}
	if (trig_find(f, o->add.unwatch, o->add.canon, false, &raced) >= 0) {
		twhy(o, "%s is already set", o->add.canon);
		o->errs = EB_EEXIST;
		return;
	}
	if (count) {
		unsigned long v;

		parse_num(count, 0, &v);
		o->add.count = v;
	}
	o->log = TL_NONE;
	err = trig_filter(ftext, &o->add, o);
	if (err) {
		o->errs = err;
		if (o->trailing && rule_trailing_logged())
			o->log = TL_KSYM;
		return;
	}
	snprintf(o->add.written, sizeof(o->add.written), "%.*s", (int)(n < WRITE_MAX ? n : WRITE_MAX - 1), buf);
	o->res = TR_ADD;
	twhy(o, "adds %s", o->add.canon);
}

static void trig_model(const struct tfile *f, const char *buf, size_t n, struct toutcome *o)
{
	static char b[WRITE_MAX + 1], pbuf[WRITE_MAX + 1];
	char *s, *e, *cmd, *next, *param, *end, *ftext;
	bool remove;

	memset(o, 0, sizeof(*o));
	o->res = TR_ERR;
	o->errs = EB_EINVAL;
	o->log = TL_NONE;
	o->rm = -1;
	if (!n) {
		o->res = TR_NOP;
		twhy(o, "an empty write");
		return;
	}
	if (n >= WRITE_MAX) {
		twhy(o, "%zu bytes: a page or more", n);
		return;
	}
	memcpy(b, buf, n);
	b[n] = '\0';		/* and the first NUL ends it */
	for (s = b; k_isspace(*s); s++)
		;
	for (e = s + strlen(s); e > s && k_isspace(e[-1]); e--)
		;
	*e = '\0';
	cmd = s;
	next = s + strcspn(s, ": \t");
	if (*next) {
		*next++ = '\0';
		while (k_isspace(*next))
			next++;
		if (!*next)
			next = NULL;
	} else {
		next = NULL;
	}
	remove = cmd[0] == '!';
	if (strcmp(cmd + remove, "ksym_watch") && strcmp(cmd + remove, "ksym_unwatch")) {
		twhy(o, "no such command '%.20s'", cmd);
		return;
	}
	snprintf(o->text, sizeof(o->text), "%s:%s", cmd, next ? next : "");
	o->log = TL_KSYM;
	o->add.unwatch = !strcmp(cmd + remove, "ksym_unwatch");
	o->add.count = -1;
	if (!next) {
		twhy(o, "no parameter");
		return;
	}
	param = next;
	end = trig_param_end(param);
	ftext = NULL;
	if (*end) {
		ftext = end + 1;
		while (k_isspace(*ftext))
			ftext++;
		if (!*ftext)
			ftext = NULL;
	}
	*end = '\0';
	snprintf(pbuf, sizeof(pbuf), "%s", param);

	/* Text after the entry that is no "if FILTER": refused first, logged. */
	if (ftext && rule_trailing_logged()) {
		char *rest = ftext + strcspn(ftext, " \t");

		if (strncmp(ftext, "if", rest - ftext) || rest - ftext != 2 || !*rest) {
			twhy(o, "'%.20s' after the entry is no 'if FILTER'", ftext);
			o->trailing = true;
			return;
		}
	}

	if (remove) {
		trig_model_remove(f, param, pbuf, o);
		return;
	}
	trig_model_add(f, buf, n, pbuf, ftext, o);
}

static void trig_apply(struct tfile *f, const struct toutcome *o)
{
	if (o->res == TR_ADD && f->nr < TRIG_MAX) {
		memmove(&f->t[1], &f->t[0], f->nr * sizeof(f->t[0]));
		f->t[0] = o->add;
		f->nr++;
	} else if (o->res == TR_REMOVE) {
		memmove(&f->t[o->rm], &f->t[o->rm + 1], (f->nr - o->rm - 1) * sizeof(f->t[0]));
		f->nr--;
	}
}

/* Generator */

static const char *const trig_seps[] = { ":", ":", ":", ":", ":", " ", "\t", ": ", ":\t" };

static const char *const trig_good_counts[] = {
	"1", "5", "0", "3", "0x10", "010", "+3", "9223372036854775807", "100",
};

static const char *const trig_bad_counts[] = {
	"", "x", "-1", "1.5", "0x", "9223372036854775808", "99999999999999999999",
	"count=3", "unlimited", "1:2", "08", "1 2",
};

static const char *const trig_bad_fields[] = {
	"nosuch", "Obj", "obj2", "9obj", "common_pid", "cpu", "comm", "common_type",
	"", "_obj", "COMM", "objobj", "common_preempt_count", "o",
};

static const char *const trig_bad_access[] = {
	"r--", "--x", "---", "rwx", "rw", "w", "", "-w", "RW-", "-W-", "rw- ", "-w--",
};

static const char *const trig_garbage[] = {
	"", " ", "\n", "!", "ksym_watch", "ksym_watch:", "ksym_unwatch", "!ksym_watch",
	"!ksym_unwatch:", "ksym_watchx:obj:-w-", "KSYM_WATCH:obj:-w-", "ksym_watch::-w-",
	"ksym_watch:obj", "ksym_watch:obj:", "ksym_watch:obj.count", "ksym_watch:obj::-w-",
	"ksym_watch:obj.count:-w-:", "ksym_unwatch:obj:", "ksym_unwatch:obj.count",
	"ksym_unwatch:(struct ksym_hitgen_obj)obj", "ksym_watch:obj.count:-w- if",
	"ksym_watch:obj.count:-w- iff obj == 0", "ksym_watch:obj.count:-w- obj == 0",
	"ksym_watch:obj.count:-w- if\t", "nosuchcommand", "ksym_watch:obj.count:-w-:1:2",
	"!!ksym_watch:obj.count:-w-", "ksym_watch:obj.count:w", "ksym_watch:obj[0]:-w-",
	"ksym_watch:obj.count/8/8:-w-", "ksym_watch:obj++8/8:-w-", "ksym_watch:obj+:-w-",
	"ksym_watch:obj.count+0x1001/1:-w-", "ksym_watch:obj+4096/8:-w-",
	"ksym_watch:obj.count\n:-w-", "ksym_watch:obj.\tcount:-w-", "#",
	"ksym_watch:obj.count:-w- # comment", "ksym_watch:obj.count:-w-\nksym_watch:obj.id:-w-",
	"ksym_watch:obj.count:-w-;", "ksym_watch:obj.count:-w-\t\t", "ksym_unwatch:obj obj",
	"ksym_watch:obj/0:-w-", "ksym_watch:obj+8:-w-", "ksym_watch:obj.id/16:-w-",
	"ksym_watch:(struct ksym_hitgen_obj) obj.count:-w-", "ksym_watch: (struct ksym_hitgen_obj)obj.id:rw-",
	"ksym_watch:(struct ksym_hitgen_obj)(struct ksym_hitgen_obj)obj.id:rw-",
	"ksym_watch:(union ksym_hitgen_obj)obj.id:rw-", "ksym_watch:(struct ksym_fuzz_nx_t)obj:rw-",
	"ksym_unwatch:obj:-w-", "ksym_unwatch:obj:0x", "ksym_watch:obj.flags/8:-w-",
	"ksym_watch:(struct ksym_hitgen_rec)obj.name[8]:-w-", "ksym_watch:obj.count[0]:-w-",
};

static const char *const trig_mut[] = { ".", ":", "[", "]", "(", ")", "+", "/", "!", " ", "\t", "\n", "#", "" };

/* A cast for a trigger: the field's own type spelled out, or another struct. */
static const struct ftype *trig_put_type(struct gen *g, unsigned int bad_pct)
{
	unsigned int k = rnd(&g->r, 100);

	if (chance(&g->r, bad_pct)) {
		put(g, "%s", PICK(g, bad_casts));
		return NULL;
	}
	if (k < 65)
		return &t_obj;
	if (k < 80) {
		put_cast(g, "struct", "ksym_hitgen_obj");
		return &t_obj;
	}
	if (k < 92) {
		put_cast(g, "struct", "ksym_hitgen_rec");
		return &t_rec;
	}
	put_cast(g, "struct", "ksym_hitgen_pcpu");
	return &t_pcpu;
}

/* A count and a filter, each now and then. */
static void trig_put_tail(struct gen *g, bool hostile, size_t *pre)
{
	if (chance(&g->r, 30))
		put(g, ":%s", hostile && chance(&g->r, 30) ? PICK(g, trig_bad_counts) :
		    PICK(g, trig_good_counts));
	*pre = g->n;
	if (chance(&g->r, 25))
		put(g, "%s%s%s", PICK(g, cast_gap), PICK(g, ((const char *const[]){ "if ", "if ", "if\t", "if  " })),
		    trig_filters[rnd(&g->r, hostile ? N(trig_filters) : 6)].f);
}

/* A ksym_watch or ksym_unwatch command, valid or (@hostile) perhaps not. */
static void trig_gen_set(struct gen *g, bool hostile, size_t *pre)
{
	unsigned int bad = hostile ? 25 : 0, off = 0, o = 0;
	const struct ftype *t;

	if (chance(&g->r, 20)) {
		put(g, "ksym_unwatch%s%s", PICK(g, trig_seps),
		    chance(&g->r, bad) ? PICK(g, trig_bad_fields) : "obj");
		/* An offset from the field (a return probe's stack pointer). */
		if (chance(&g->r, 10))
			put(g, "%c%u", chance(&g->r, 50) ? '-' : '+',
			    PICK(g, ((const unsigned int[]){ 0, 8, 16384, 16385 })));
		trig_put_tail(g, hostile, pre);
		return;
	}
	put(g, "ksym_watch%s", PICK(g, trig_seps));
	t = trig_put_type(g, bad / 3);
	put(g, "%s", chance(&g->r, bad / 3) ? PICK(g, trig_bad_fields) : "obj");
	if (t)
		t = put_path(g, t, bad, &off);
	if (chance(&g->r, 12)) {
		static const unsigned int offs[] = { 4, 8, 16, 24, 1, 2, 4096, 4097, 0,
						     16384, 16385 };

		o = PICK(g, offs);
		/* Below the field too: a local below a stack pointer. */
		if (chance(&g->r, 20))
			put(g, chance(&g->r, 50) ? "-%u" : "-0x%x", o);
		else
			put(g, chance(&g->r, 50) ? "+%u" : "+0x%x", o);
	}
	if (o || chance(&g->r, 40)) {
		if (chance(&g->r, bad))
			put(g, "/%s", PICK(g, bad_lens));
		else if (chance(&g->r, 20))
			put(g, "/%s", PICK(g, good_lens_alt));
		else
			put(g, "/%u", 1U << rnd(&g->r, 4));
	}
	put(g, ":%s", chance(&g->r, bad) ? PICK(g, trig_bad_access) :
	    chance(&g->r, 50) ? "-w-" : "rw-");
	trig_put_tail(g, hostile, pre);
}

/* Removal of one of @f's triggers, in one of the forms the kernel takes. */
static void trig_gen_remove(struct gen *g, const struct tfile *f)
{
	const struct ktrig *t = &f->t[rnd(&g->r, f->nr)];
	const char *cmd = t->unwatch ? "ksym_unwatch" : "ksym_watch";
	char line[TCANON_MAX + 256];
	unsigned int k = rnd(&g->r, 100);
	const char *w = t->written;

	if (k < 25) {
		while (k_isspace(*w))
			w++;
		put(g, "!%s", w);
	} else if (k < 55) {
		trig_line(t, line, sizeof(line));
		put(g, "!%s", line);
	} else if (k < 80) {
		put(g, "!%s%s%s", cmd, PICK(g, trig_seps), t->canon);
	} else {
		put(g, "!%s:%.*s", cmd, (int)strcspn(t->canon, "["), t->canon);
	}
}

/*
 * One trigger command in g->buf: a valid one, a removal (written or shown
 * form), a duplicate, or hostile input. *@pre: where a NUL may go.
 */
static void trig_gen(struct gen *g, const struct tfile *f)
{
	unsigned int k = rnd(&g->r, 100);
	size_t pre;

	g->n = 0;
	g->cut = 0;
	if (f->nr > TRIG_SOFT)
		k = k < 50 ? 30 : k;
	if (k < 25) {
		trig_gen_set(g, false, &pre);
	} else if (k < 50 && f->nr) {
		trig_gen_remove(g, f);
		pre = g->n;
	} else if (k < 55 && f->nr) {
		const char *w = f->t[rnd(&g->r, f->nr)].written;

		put(g, "%s", w);
		pre = g->n;
	} else if (k < 60) {
		put(g, "!");
		trig_gen_set(g, chance(&g->r, 50), &pre);
	} else if (k < 72) {
		put(g, "%s", PICK(g, trig_garbage));
		pre = g->n;
	} else {
		trig_gen_set(g, true, &pre);
	}
	/* Mutations before the filter: a byte changed, inserted or dropped. */
	if (chance(&g->r, 10) && pre) {
		size_t at = rnd(&g->r, pre);
		const char *m = PICK(g, trig_mut);

		if (*m && chance(&g->r, 50)) {
			g->buf[at] = *m;
		} else if (*m && g->n + 1 < BUF_MAX) {
			memmove(g->buf + at + 1, g->buf + at, g->n - at);
			g->buf[at] = *m;
			g->n++;
			pre++;
		} else {
			memmove(g->buf + at, g->buf + at + 1, g->n - at - 1);
			g->n--;
			pre--;
		}
	}
	/* Blanks around, a NUL, a page or more. */
	k = rnd(&g->r, 100);
	if (k < 8) {
		memmove(g->buf + 3, g->buf, g->n);
		memcpy(g->buf, " \t\n", 3);
		g->n += 3;
		pre += 3;
	} else if (k < 14) {
		put(g, "%s", chance(&g->r, 50) ? "\n" : " \t \n");
	} else if (k < 18 && !opt.no_nul) {
		size_t at = rnd(&g->r, pre + 1);

		if (g->n + 1 < BUF_MAX) {
			memmove(g->buf + at + 1, g->buf + at, g->n - at);
			g->buf[at] = '\0';
			g->n++;
		}
	} else if (k < 19 && !opt.no_nul) {
		g->buf[g->n++] = '\0';
		put(g, "ksym_watch:obj.id:rw-");
	} else if (k < 21) {
		size_t pad = 4000 + rnd(&g->r, 200);

		if (g->n + pad < BUF_MAX) {
			memmove(g->buf + pad, g->buf, g->n);
			memset(g->buf, chance(&g->r, 50) ? ' ' : '\n', pad);
			g->n += pad;
		}
	}
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static void trig_path(int fi, char *buf, size_t size)
{
	snprintf(buf, size, TRIG_DIR "/%s/trigger", trig_events[fi]);
}

/*
 * The trigger file against the model: the same triggers, each once; a
 * count no larger than the model's (equal if its filter cannot match),
 * which the model then takes. Returns 0, or 1 with @want filled.
 */
static int trig_check(struct tfile *f, int fi, char *got, size_t gsize, char *want,
		      size_t wsize)
{
	char path[256], *line, *save, prefix[TCANON_MAX + 32], buf[TCANON_MAX + 256];
	static char copy[65536];
	bool seen[TRIG_MAX] = { false };
	long cnt[TRIG_MAX];
	size_t wn = 0;
	int i, bad = 0;

	trig_path(fi, path, sizeof(path));
	if (read_file(path, got, gsize) < 0) {
		snprintf(want, wsize, "(cannot read %s: %s)\n", path, strerror(errno));
		return 1;
	}
	want[0] = '\0';
	for (i = 0; i < f->nr; i++) {
		trig_line(&f->t[i], buf, sizeof(buf));
		wn += snprintf(want + wn, wsize > wn ? wsize - wn : 0, "%s%s\n", buf,
			       f->t[i].fires && f->t[i].count > 0 ? "  (or a lower count)" : "");
		cnt[i] = f->t[i].count;
	}
	snprintf(copy, sizeof(copy), "%s", got);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (line[0] == '#')
			continue;
		for (i = 0; i < f->nr; i++) {
			const struct ktrig *t = &f->t[i];
			const char *rest, *flt;
			char *end;
			long k = -1;

			if (seen[i])
				continue;
			snprintf(prefix, sizeof(prefix), "%s:%s:",
				 t->unwatch ? "ksym_unwatch" : "ksym_watch", t->canon);
			if (strncmp(line, prefix, strlen(prefix)))
				continue;
			rest = line + strlen(prefix);
			if (!strncmp(rest, "unlimited", 9)) {
				flt = rest + 9;
			} else if (!strncmp(rest, "count=", 6)) {
				k = strtol(rest + 6, &end, 10);
				flt = end;
			} else {
				continue;
			}
			if (t->filter[0]) {
				if (strncmp(flt, " if ", 4) || strcmp(flt + 4, t->filter))
					continue;
			} else if (*flt) {
				continue;
			}
			if ((t->count < 0) != (k < 0) || k > t->count ||
			    (!t->fires && k != t->count))
				continue;
			seen[i] = true;
			cnt[i] = k;
			break;
		}
		if (i == f->nr)
			bad = 1;
	}
	for (i = 0; i < f->nr; i++) {
		if (!seen[i])
			bad = 1;
		else
			f->t[i].count = cnt[i];
	}
	return bad;
}

/* error_log after a write: the line the model expects, with its caret in the command. */
static int trig_check_log(int fi, const struct toutcome *o, bool refused, char *log,
			  size_t size, char *what, size_t wsize)
{
	char loc[128], *cmd, *caret, *nl;
	size_t want_len;

	if (read_file(TRIG_ERRLOG, log, size) < 0) {
		snprintf(what, wsize, "cannot read error_log");
		return 1;
	}
	snprintf(loc, sizeof(loc), "ksym_hitgen:%s: error: ", trig_events[fi]);
	if (!refused || (o->log == TL_NONE)) {
		/* Nothing about this command (a slot line, with the canon, may come). */
		if (refused || !o->text[0])
			return 0;
		cmd = strstr(log, "  Command: ");
		while (cmd) {
			if (!strncmp(cmd + 11, o->text, strlen(o->text)) &&
			    cmd[11 + strlen(o->text)] == '\n') {
				snprintf(what, wsize, "an accepted command has an error_log line");
				return 1;
			}
			cmd = strstr(cmd + 1, "  Command: ");
		}
		return 0;
	}
	if (o->log == TL_FILTER) {
		if (!strstr(log, "error: ")) {
			snprintf(what, wsize, "no error_log line for a bad filter");
			return 1;
		}
		return 0;
	}
	if (!strstr(log, loc)) {
		snprintf(what, wsize, "no error_log line '%s...'", loc);
		return 1;
	}
	want_len = strlen(o->text);
	for (cmd = strstr(log, "  Command: "); cmd; cmd = strstr(cmd + 1, "  Command: ")) {
		if (strncmp(cmd + 11, o->text, want_len) || cmd[11 + want_len] != '\n')
			continue;
		caret = cmd + 11 + want_len + 1;
		nl = strchr(caret, '\n');
		if (!nl || nl[-1] != '^' || (size_t)(nl - caret) - 1 < 11 ||
		    (size_t)(nl - caret) - 1 - 11 > want_len ||
		    strspn(caret, " ") != (size_t)(nl - caret) - 1) {
			snprintf(what, wsize, "the caret is not under the command");
			return 1;
		}
		return 0;
	}
	snprintf(what, wsize, "no error_log line with 'Command: %.60s'", o->text);
	return 1;
}

static void trig_report(int fi, long step, const char *what, const struct tfile *before,
			const char *buf, size_t n, const struct toutcome *o, long ret, int err,
			const char *got, const char *want, const char *log)
{
	char es[128], line[TCANON_MAX + 256];
	int i;

	errmask_str(o->errs, es, sizeof(es));
	printf("ksym-fuzz: MISMATCH (triggers, seed %" PRIu64 ", step %ld, %s): %s\n",
	       opt.seed, step, trig_events[fi], what);
	printf("  triggers before (newest first):\n");
	for (i = 0; i < before->nr; i++) {
		trig_line(&before->t[i], line, sizeof(line));
		printf("    %s\n", line);
	}
	printf("  write: '");
	escape(stdout, buf, n, 600);
	printf("'\n  model: %s%s%s (%s)\n",
	       o->res == TR_ERR ? es : o->res == TR_NOP ? "accept, no change" :
	       o->res == TR_ADD ? "add" : "remove",
	       o->either ? " or " : "", o->either ? es : "", o->why);
	printf("  kernel: %s%s\n", ret < 0 ? "error " : "returned ", ret < 0 ? strerror(err) : "");
	if (ret >= 0)
		printf("    (ret %ld)\n", ret);
	printf("  read back:\n%s", got);
	printf("  expected:\n%s", want);
	printf("  error_log:\n%s", log);
	printf("  reproducer (busybox sh, in /sys/kernel/tracing):\n");
	for (i = before->nr - 1; i >= 0; i--) {
		const char *w = before->t[i].written;

		printf("    printf '");
		escape(stdout, w, strlen(w), ~0UL);
		printf("' > events/ksym_hitgen/%s/trigger\n", trig_events[fi]);
	}
	printf("    echo > error_log; printf '");
	escape(stdout, buf, n, ~0UL);
	printf("' > events/ksym_hitgen/%s/trigger; echo \"rc=$?\"\n", trig_events[fi]);
	printf("    cat events/ksym_hitgen/%s/trigger error_log\n", trig_events[fi]);
	fflush(stdout);
}

/* Objects while the triggers come and go: allocations, writes, frees. */
static int trig_objects(void)
{
	static const char *const counts[] = { "1", "2", "3", "4", "8", "16", "0", "17" };
	struct rng r = { .s = opt.seed * 31 + 7 };
	char num[16];

	while (!sh->stop) {
		if (chance(&r, 20))
			write_str(HITGEN_DIR "/object_count", counts[rnd(&r, N(counts))]);
		snprintf(num, sizeof(num), "%u", 1 + rnd(&r, 20));
		if (write_str(HITGEN_DIR "/object", num) < 0) {
			fprintf(stderr, "ksym-fuzz: objects: %s\n", strerror(errno));
			return 1;
		}
		sh->objects++;
		usleep(1000 + rnd(&r, 2000));
	}
	write_str(HITGEN_DIR "/object_count", "1");
	return 0;
}

/* ksym_trigger_slots flipped, and a watchdog: no write returns for 60 s. */
static int trig_slots(void)
{
	static const char *const slots[] = { "1", "2", "3", "4", "1", "0", "5", "x" };
	struct rng r = { .s = opt.seed * 17 + 3 };
	long last = -1, still = 0;

	while (!sh->stop) {
		if (write_str(TRIG_SLOTS, slots[rnd(&r, N(slots))]) == 0)
			sh->slot_flips++;
		usleep(5000);
		if (sh->tstep != last) {
			last = sh->tstep;
			still = 0;
		} else if (++still == 12000 && opt.progress) {
			FILE *pf = fopen(opt.progress, "a");

			if (pf) {
				fprintf(pf, "ksym-fuzz: HANG? no trigger write returned in 60 s, step %ld: '%s'\n",
					sh->tstep, sh->tcmd);
				fclose(pf);
			}
		}
	}
	write_str(TRIG_SLOTS, "1");
	return 0;
}

static int trig_stat_rows(const char *stat, const char *ev, const char *what)
{
	char key[TCANON_MAX + 128];
	const char *p;
	int rows = 0;

	snprintf(key, sizeof(key), "ksym_hitgen:%s  %s%s", ev, what, what[0] ? "  " : "");
	for (p = stat; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, strlen(key)))
			rows++;
	return rows;
}

/* The -G run's state (trig_run()): the model's files, the counts. */
struct trun {
	struct tfile files[2], before;
	struct gen g;
	int fds[2];
	long writes, accepted, refused, removed, added, logs, errc[4];
	char buf[BUF_MAX], got[65536], want[65536], log[65536], stat[65536];
	char what[160];
};

/* The trigger files start without ksym triggers; one slot: 0, or 2. */
static int tr_start(struct trun *t)
{
	char path[256];
	int fi;

	for (fi = 0; fi < 2; fi++) {
		trig_path(fi, path, sizeof(path));
		if (read_file(path, t->got, sizeof(t->got)) < 0) {
			fprintf(stderr, "ksym-fuzz: %s: %s (modprobe ksym_hitgen)\n", path, strerror(errno));
			return 2;
		}
		if (strstr(t->got, "\nksym_") || !strncmp(t->got, "ksym_", 5)) {
			fprintf(stderr, "ksym-fuzz: %s has ksym triggers already:\n%s", path, t->got);
			return 2;
		}
	}
	if (write_str(TRIG_SLOTS, "1")) {
		fprintf(stderr, "ksym-fuzz: %s: %s\n", TRIG_SLOTS, strerror(errno));
		return 2;
	}
	return 0;
}

/* Whether write() returning @r (errno @err) is what the model said (@o). */
static bool tr_return_ok(const struct toutcome *o, long r, int err, size_t n)
{
	switch (o->res) {
	case TR_NOP:
		return r == 0;
	case TR_ADD:
		return r == (long)n;
	case TR_REMOVE:
		return r == (long)n || (o->either && r < 0 && (o->errs & errno_bit(err)));
	default:
		return r < 0 && (o->errs & errno_bit(err));
	}
}

/* The descriptor of file @fi: kept open, or opened again as "echo >" does. */
static int tr_open(struct trun *t, int fi)
{
	char path[256];

	if (t->fds[fi] >= 0 && !chance(&t->g.r, 30))
		return 0;
	if (t->fds[fi] >= 0)
		close(t->fds[fi]);
	trig_path(fi, path, sizeof(path));
	t->fds[fi] = open(path, O_WRONLY | (chance(&t->g.r, 50) ? O_TRUNC : 0));
	if (t->fds[fi] < 0) {
		fprintf(stderr, "ksym-fuzz: open %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* After write @step to file @fi: both files and error_log against the model. */
static int tr_judge(struct trun *t, int fi, long step, const struct toutcome *o,
		    long r, int err)
{
	bool succeeded = r >= 0;
	int i;

	if (!tr_return_ok(o, r, err, t->g.n)) {
		trig_check(&t->files[fi], fi, t->got, sizeof(t->got), t->want, sizeof(t->want));
		read_file(TRIG_ERRLOG, t->log, sizeof(t->log));
		trig_report(fi, step, r >= 0 ? "accepted, model says otherwise" :
			    "refused, model says otherwise", &t->before, t->buf, t->g.n, o, r, err,
			    t->got, t->want, t->log);
		return -1;
	}
	if (succeeded) {
		trig_apply(&t->files[fi], o);
		t->added += o->res == TR_ADD;
		t->removed += o->res == TR_REMOVE;
	}
	for (i = 0; i < 2; i++) {
		if (trig_check(&t->files[i], i, t->got, sizeof(t->got), t->want, sizeof(t->want))) {
			read_file(TRIG_ERRLOG, t->log, sizeof(t->log));
			trig_report(fi, step, i == fi ? (succeeded ?
				    "accepted, but the trigger file is not its effect" :
				    "refused, but the trigger file changed") :
				    "the other event's trigger file changed", &t->before, t->buf,
				    t->g.n, o, r, err, t->got, t->want, t->log);
			return -1;
		}
	}
	if (trig_check_log(fi, o, !succeeded, t->log, sizeof(t->log), t->what, sizeof(t->what))) {
		trig_check(&t->files[fi], fi, t->got, sizeof(t->got), t->want, sizeof(t->want));
		trig_report(fi, step, t->what, &t->before, t->buf, t->g.n, o, r, err,
			    t->got, t->want, t->log);
		return -1;
	}
	t->logs += !succeeded && o->log != TL_NONE;
	return 0;
}

/* Write @step: generated, modelled, written, judged. 0, or -1 to stop. */
static int tr_step(struct trun *t, long step)
{
	struct toutcome o;
	int fi, err;
	long r;

	fi = chance(&t->g.r, 60) ? 0 : 1;
	trig_gen(&t->g, &t->files[fi]);
	trig_model(&t->files[fi], t->buf, t->g.n, &o);
	t->before = t->files[fi];
	if (opt.verbose) {
		printf("[T] %s: '", trig_events[fi]);
		escape(stdout, t->buf, t->g.n, 200);
		printf("'\n");
	}
	snprintf(sh->tcmd, sizeof(sh->tcmd), "%.*s", (int)(t->g.n < 150 ? t->g.n : 150), t->buf);
	write_str(TRIG_ERRLOG, "");
	/* Sometimes a descriptor kept open, sometimes one opened as "echo >" does. */
	if (tr_open(t, fi))
		return -1;
	r = write(t->fds[fi], t->buf, t->g.n);
	err = errno;
	sh->tstep = step;
	t->writes++;
	if (r < 0) {
		t->refused++;
		t->errc[err == EINVAL ? 0 : err == ENOENT ? 1 : err == EEXIST ? 2 : 3]++;
	} else {
		t->accepted++;
	}
	if (tr_judge(t, fi, step, &o, r, err))
		return -1;
	if (opt.progress && step % 1000 == 0) {
		FILE *pf = fopen(opt.progress, "a");

		if (pf) {
			fprintf(pf, "ksym-fuzz: seed %" PRIu64 " triggers: %ld of %ld writes\n",
				opt.seed, step, opt.writes);
			fclose(pf);
		}
	}
	return 0;
}

/* trace_stat/ksym_triggers: each trigger of the model once. 0 or 1. */
static int tr_check_stat(struct trun *t)
{
	char canon[TCANON_MAX + 32];
	int fi, i, ret = 0;

	if (read_file(TRIG_STAT, t->stat, sizeof(t->stat)) < 0) {
		printf("ksym-fuzz: cannot read %s\n", TRIG_STAT);
		ret = 1;
	}
	for (fi = 0; fi < 2 && !ret; fi++) {
		for (i = 0; i < t->files[fi].nr; i++) {
			snprintf(canon, sizeof(canon), "%s:%s",
				 t->files[fi].t[i].unwatch ? "ksym_unwatch" : "ksym_watch",
				 t->files[fi].t[i].canon);
			if (trig_stat_rows(t->stat, trig_events[fi], canon) != 1) {
				printf("ksym-fuzz: MISMATCH: %s: not once in %s:\n%s", canon,
				       TRIG_STAT, t->stat);
				ret = 1;
			}
		}
		if (!ret && trig_stat_rows(t->stat, trig_events[fi], "") != t->files[fi].nr) {
			printf("ksym-fuzz: MISMATCH: %s has %d rows for %s, the model %d triggers:\n%s",
			       TRIG_STAT, trig_stat_rows(t->stat, trig_events[fi], ""),
			       trig_events[fi], t->files[fi].nr, t->stat);
			ret = 1;
		}
	}
	return ret;
}

/* Remove what is left, as the files show it; then no row. @ret, or 1. */
static int tr_remove_left(struct trun *t, int ret)
{
	char line[TCANON_MAX + 256], cmd[TCANON_MAX + 260], path[256];
	int fi, i;

	for (fi = 0; fi < 2; fi++) {
		trig_check(&t->files[fi], fi, t->got, sizeof(t->got), t->want, sizeof(t->want));
		trig_path(fi, path, sizeof(path));
		for (i = t->files[fi].nr - 1; i >= 0; i--) {
			trig_line(&t->files[fi].t[i], line, sizeof(line));
			snprintf(cmd, sizeof(cmd), "!%s", line);
			if (write_str(path, cmd)) {
				printf("ksym-fuzz: removing '%s': %s\n", cmd, strerror(errno));
				ret = ret ? ret : 1;
			}
		}
		t->files[fi].nr = 0;
		if (read_file(path, t->got, sizeof(t->got)) < 0 || strstr(t->got, "\nksym_") ||
		    !strncmp(t->got, "ksym_", 5)) {
			printf("ksym-fuzz: MISMATCH: triggers left in %s:\n%s", path, t->got);
			ret = ret ? ret : 1;
		}
	}
	if (read_file(TRIG_STAT, t->stat, sizeof(t->stat)) < 0 ||
	    trig_stat_rows(t->stat, trig_events[0], "") ||
	    trig_stat_rows(t->stat, trig_events[1], "")) {
		printf("ksym-fuzz: MISMATCH: %s not empty of them after removal:\n%s", TRIG_STAT,
		       t->stat);
		ret = ret ? ret : 1;
	}
	return ret;
}

/* The children (objects, slots) stopped and reaped: @ret, or 1. */
static int tr_wait(pid_t *kids, int ret)
{
	int i, status;

	sh->stop = 1;
	for (i = 0; i < 2; i++) {
		if (kids[i] > 0 && (waitpid(kids[i], &status, 0) < 0 || !WIFEXITED(status) ||
				    WEXITSTATUS(status))) {
			printf("ksym-fuzz: the %s child failed\n", i ? "slots" : "objects");
			if (!ret)
				ret = 1;
		}
	}
	return ret;
}

static void tr_summary(const struct trun *t, int ret, double secs)
{
	static const char *const ename[] = { "EINVAL", "ENOENT", "EEXIST", "other" };
	int i;

	printf("ksym-fuzz: triggers: %ld writes (%ld accepted, %ld refused:", t->writes,
	       t->accepted, t->refused);
	for (i = 0; i < 4; i++)
		if (t->errc[i])
			printf(" %s %ld", ename[i], t->errc[i]);
	printf("), %ld added, %ld removed, %ld error_log lines checked; %ld object rounds, %ld slot flips; %.1f s\n",
	       t->added, t->removed, t->logs, sh->objects, sh->slot_flips, secs);
	printf("ksym-fuzz: %s: %ld trigger writes, %ld accepted, %ld refused, seed %" PRIu64 "\n",
	       ret ? "FAIL" : "PASS", t->writes, t->accepted, t->refused, opt.seed);
}

/* CLOCK_MONOTONIC in seconds. */
static double tr_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int trig_run(void)
{
	static struct trun t = { .fds = { -1, -1 } };
	pid_t kids[2] = { 0 };
	int i, ret = 1;
	double t0;
	long step;

	t0 = tr_now();
	t.g.r.s = opt.seed * 1000003ULL + 4242;
	t.g.buf = t.buf;
	if (tr_start(&t))
		return 2;
	kids[0] = fork();
	if (!kids[0])
		_exit(trig_objects());
	kids[1] = fork();
	if (!kids[1])
		_exit(trig_slots());
	if (kids[0] < 0 || kids[1] < 0) {
		perror("ksym-fuzz: fork");
		goto cleanup;
	}
	for (step = 1; step <= opt.writes && !out_of_time(); step++)
		if (tr_step(&t, step))
			goto cleanup;
	ret = 0;
cleanup:
	for (i = 0; i < 2; i++)
		if (t.fds[i] >= 0)
			close(t.fds[i]);
	ret = tr_wait(kids, ret);
	/* trace_stat/ksym_triggers: each trigger of the model once, then none. */
	if (!ret)
		ret = tr_check_stat(&t);
	ret = tr_remove_left(&t, ret);
	tr_summary(&t, ret, tr_now() - t0);
	return ret;
}

/* The trigger model on hand-made cases. */
struct trig_case {
	const char *start;	/* commands set first, '|' between */
	const char *cmd;
	int res;		/* enum tres */
	unsigned int errs;
	int log;		/* enum tlog, when refused */
	const char *after;	/* the first trigger as shown, "" none */
};

static const struct trig_case trig_cases[] = {
	{ "", "ksym_watch:obj.count:-w-", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
	{ "", "  ksym_watch obj.count:-w-  \n", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
	{ "", "ksym_watch:obj:rw-", TR_ADD, 0, 0, "ksym_watch:obj/8:rw-:unlimited" },
	{ "", "ksym_watch:obj.flags:-w-:5", TR_ADD, 0, 0, "ksym_watch:obj.flags/4:-w-:count=5" },
	{ "", "ksym_watch:obj.count:-w-:0x10 if obj == 0", TR_ADD, 0, 0,
	  "ksym_watch:obj.count/8:-w-:count=16 if obj == 0" },
	{ "", "ksym_watch:obj.id/4:rw- if  obj == 0", TR_ADD, 0, 0,
	  "ksym_watch:obj.id/4:rw-:unlimited if  obj == 0" },
	{ "", "ksym_watch:( struct\tksym_hitgen_obj )obj.flags:rw-", TR_ADD, 0, 0,
	  "ksym_watch:(struct ksym_hitgen_obj)obj.flags/4:rw-:unlimited" },
	{ "", "ksym_watch:(struct ksym_hitgen_rec)obj.pair[0x1].hi:-w-", TR_ADD, 0, 0,
	  "ksym_watch:(struct ksym_hitgen_rec)obj.pair[1].hi/2:-w-:unlimited" },
	{ "", "ksym_watch:obj+8/8:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x8/8:-w-:unlimited" },
	{ "", "ksym_watch:obj.count+4/4:-w-", TR_ADD, 0, 0, "ksym_watch:obj.count+0x4/4:-w-:unlimited" },
	{ "", "ksym_watch:obj++010/0x4:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x8/4:-w-:unlimited" },
	{ "", "ksym_unwatch:obj:3", TR_ADD, 0, 0, "ksym_unwatch:obj:count=3" },
	{ "", "ksym_watch:obj-0x18/8:-w-", TR_ADD, 0, 0, "ksym_watch:obj-0x18/8:-w-:unlimited" },
	{ "", "ksym_watch:obj+4097/1:-w-", TR_ADD, 0, 0, "ksym_watch:obj+0x1001/1:-w-:unlimited" },
	{ "", "ksym_unwatch:obj-8", TR_ADD, 0, 0, "ksym_unwatch:obj-0x8:unlimited" },
	{ "", "ksym_unwatch:obj+0:2", TR_ADD, 0, 0, "ksym_unwatch:obj:count=2" },
	{ "", "ksym_watch:obj.count:-w-\0junk", TR_ADD, 0, 0, "ksym_watch:obj.count/8:-w-:unlimited" },
	{ "", "ksym_watch:obj+8:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj+16385/1:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj-16385/1:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_unwatch:obj-zz", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.flags/8:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.count:r--", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.count:rwx", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.nosuch:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
	{ "", "ksym_watch:nosuch.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
	{ "", "ksym_watch:common_pid:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:(struct ksym_fuzz_nx_t)obj.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM, "" },
	{ "", "ksym_watch:(struct ksym_hitgen_rec)obj.name[8]:-w-", TR_ERR, EB_ERANGE, TL_KSYM, "" },
	{ "", "ksym_watch:(struct ksym_hitgen_obj obj.count:-w-", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.count:-w-:x", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_unwatch:obj.count", TR_ERR, EB_EINVAL, TL_KSYM, "" },
	{ "", "ksym_watch:obj.count:-w- if nosuch == 1", TR_ERR, ~0U, TL_FILTER, "" },
	{ "", "nosuchcommand:obj", TR_ERR, EB_EINVAL, TL_NONE, "" },
	{ "", "", TR_NOP, 0, 0, "" },
	{ "", "\n", TR_ERR, EB_EINVAL, TL_NONE, "" },
	{ "ksym_watch:obj.count:-w-", "ksym_watch:obj.count/8:-w-", TR_ERR, EB_EEXIST, TL_KSYM,
	  "ksym_watch:obj.count/8:-w-:unlimited" },
	{ "ksym_watch:obj.count:-w-", "!ksym_watch:obj.count:-w-", TR_REMOVE, 0, 0, "" },
	{ "ksym_watch:obj.count:-w-", "!ksym_watch:obj.count/8:-w-:unlimited if x", TR_REMOVE, 0, 0, "" },
	{ "ksym_watch:obj.count:-w-:2 if obj == 0", "!ksym_watch:obj.count/8:-w-:count=2", TR_REMOVE, 0, 0, "" },
	{ "ksym_watch:obj.count:-w-:2 if obj == 0", "!ksym_watch:obj.count/8:-w-:count=1", TR_ERR,
	  EB_EINVAL, TL_KSYM, "ksym_watch:obj.count/8:-w-:count=2 if obj == 0" },
	{ "ksym_watch:obj.id:-w-", "!ksym_watch:obj.count:-w-", TR_ERR, EB_ENOENT, TL_KSYM,
	  "ksym_watch:obj.id/8:-w-:unlimited" },
	{ "ksym_watch:(struct ksym_hitgen_rec)obj.name[2]:-w-|ksym_watch:obj.id:-w-",
	  "!ksym_watch:(struct ksym_hitgen_rec)obj.name", TR_REMOVE, 0, 0,
	  "ksym_watch:obj.id/8:-w-:unlimited" },
	{ "ksym_unwatch:obj", "!ksym_unwatch:obj:unlimited", TR_REMOVE, 0, 0, "" },
	{ "ksym_unwatch:obj", "!ksym_watch:obj:unlimited", TR_ERR, EB_EINVAL, TL_KSYM,
	  "ksym_unwatch:obj:unlimited" },
};


/* Trigger self-test case @i (trig_cases[]): how many checks failed. */
static size_t st_trig_case(size_t i)
{
	static struct tfile f;
	const struct trig_case *c = &trig_cases[i];
	char line[TCANON_MAX + 256], tmp[256];
	const char *s = c->start;
	size_t n = strlen(c->cmd), fails = 0;
	struct toutcome o;

	memset(&f, 0, sizeof(f));
	while (*s) {
		size_t k = strcspn(s, "|");

		snprintf(tmp, sizeof(tmp), "%.*s", (int)k, s);
		trig_model(&f, tmp, k, &o);
		if (o.res != TR_ADD) {
			printf("self-test: triggers %zu: start '%s' not added (%s)\n", i, tmp, o.why);
			fails++;
		}
		trig_apply(&f, &o);
		s += k + (s[k] == '|');
	}
	if (strstr(c->cmd, "junk"))
		n = strlen(c->cmd) + 5;
	trig_model(&f, c->cmd, n, &o);
	if ((int)o.res != c->res || (o.res == TR_ERR && (o.errs != c->errs ||
						      (int)o.log != c->log))) {
		printf("self-test: triggers %zu '%s': res %d errs 0x%x log %d (%s)\n", i,
		       c->cmd, o.res, o.errs, o.log, o.why);
		return fails + 1;
	}
	trig_apply(&f, &o);
	line[0] = '\0';
	if (f.nr)
		trig_line(&f.t[0], line, sizeof(line));
	if (strcmp(line, c->after)) {
		printf("self-test: triggers %zu '%s': shows '%s', not '%s'\n", i, c->cmd,
		       line, c->after);
		fails++;
	}	return fails;
}

/* The generator stays within the model, and reaches adds, removals and each error. */
static size_t st_trig_gen(void)
{
	static char buf[BUF_MAX];
	static struct tfile f;
	struct gen g = { 0 };
	long k, adds = 0, rms = 0, logs = 0;
	unsigned int seen = 0;

	g.r.s = 7;
	g.buf = buf;
	for (k = 0; k < 20000; k++) {
		struct toutcome o;

		trig_gen(&g, &f);
		trig_model(&f, buf, g.n, &o);
		trig_apply(&f, &o);
		adds += o.res == TR_ADD;
		rms += o.res == TR_REMOVE;
		logs += o.res == TR_ERR && o.log == TL_KSYM;
		if (o.res == TR_ERR)
			seen |= o.errs;
	}
	printf("ksym-fuzz: self-test: triggers: 20000 generated, %ld adds, %ld removals, %ld refused with an error_log line\n",
	       adds, rms, logs);
	if (!adds || !rms || !logs ||
	    (seen & (EB_EINVAL | EB_ENOENT | EB_EEXIST | EB_ERANGE)) !=
	    (EB_EINVAL | EB_ENOENT | EB_EEXIST | EB_ERANGE)) {
		printf("self-test: the trigger generator does not reach the grammar\n");
		return 1;
	}
	return 0;
}

int self_test_triggers(void)
{
	size_t i, fails = 0;

	for (i = 0; i < N(trig_cases); i++)
		fails += st_trig_case(i);
	fails += st_trig_gen();
	printf("ksym-fuzz: self-test: %zu trigger cases, %zu failed\n", N(trig_cases), fails);
	return fails;
}
