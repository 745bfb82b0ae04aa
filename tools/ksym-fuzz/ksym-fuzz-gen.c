// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-fuzz: the generators: the PRNG (splitmix64, one stream per writer)
 * and the writes it makes, valid and hostile: entries, lengths, CPU lists,
 * casts and field paths, garbage, NUL bytes, pieces.
 *
 * Owns: struct gen and the tables of bad and good tokens.
 * May call: the model (its types, symbols and parsers: what is valid).
 */

#include "ksym-fuzz.h"


static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

unsigned int rnd(struct rng *r, unsigned int n)
{
	return n ? rng_next(r) % n : 0;
}

/* True with probability pct percent. */
bool chance(struct rng *r, unsigned int pct)
{
	return rnd(r, 100) < pct;
}

/* ------------------------------------------------------------------------
 * Generator
 */

static const char *const bad_access[] = {
	"rw", "RW-", "w", "", "rwx", "-w", "rw--", "--w", "x", "r-x", "-wx",
};

static const char *const bad_cpus[] = {
	"", "2", "7", "8", "63", "64", "0-2", "1-0", "-1", "a", "0-", ",", "0,,9",
	"99999999999", "1-3", "0;1", "0-1-2",
};

const char *const bad_lens[] = {
	"0", "3", "16", "5", "-1", "", "08", "0x", "8x", "99999999999", "7", "32",
	"0x10", "1.0",
};

const char *const good_lens_alt[] = { "0x8", "010", "0x4", "04", "0x1", "02" };

static const char *const garbage[] = {
	":", "::", ":rw-", "/8:rw-", "@1", "rw-", "---", "*", "*:rw-", "0:---",
	"ksym_hitgen_var", "ksym_hitgen_var:", "ksym_hitgen_var::rw-",
	"a:b:c:rw-", "ksym hitgen", "-", "@", "/", "+", "ksym_hitgen_var+:rw-",
	"ksym_hitgen_var++8/8:rw-", "0x:rw-", "0xg/8:rw-",
	"0x10000000000000000/8:rw-", "ksym-hitgen-var:rw-", "#", "\"\"",
	"ksym_hitgen_var/8/8:rw-", "ksym_hitgen_var:rw-@", "00", "0 0", "*",
	"ksym_hitgen:ksym_hitgen:ksym_hitgen_var:rw-", ":ksym_hitgen_var:rw-",
	"ksym_hitgen_var@0:rw-", "ksym_fuzz_nx:rw-", "ksym_fuzz_nx/8:-w-",
	"ksym_hitgen:jiffies_64/8:rw-", "nosuchmod:ksym_hitgen_var:rw-",
	"ksym_hitgen_var.nx:rw-", "ksym_hitgen_var$:rw-",
};

void put(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (g->n >= BUF_MAX - 1)
		return;
	va_start(ap, fmt);
	k = vsnprintf(g->buf + g->n, BUF_MAX - g->n, fmt, ap);
	va_end(ap);
	if (k > 0)
		g->n += (size_t)k < BUF_MAX - g->n ? (size_t)k : BUF_MAX - 1 - g->n;
}

static struct fsym *pick_sym(struct gen *g)
{
	for (;;) {
		struct fsym *s = &syms[rnd(&g->r, NR_SYMS)];

		if (!s->found || s->racer)
			continue;
		if (s->initmem && !chance(&g->r, 10))
			continue;
		if (s->text && !chance(&g->r, 40))
			continue;
		return s;
	}
}

/* A CPU list: mostly none, some valid, some hostile. */
static void put_cpus(struct gen *g, unsigned int bad_pct)
{
	static const char *const good[] = {
		"0", "1", "0-1", "0,1", "1,0", "0-0", "1-1", "0,", ",1", "0,,1", "00",
	};

	if (chance(&g->r, bad_pct)) {
		put(g, "@%s", bad_cpus[rnd(&g->r, N(bad_cpus))]);
		return;
	}
	if (chance(&g->r, 75))
		return;
	if (nr_cpus_possible < 2) {
		put(g, "@0");
		return;
	}
	put(g, "@%s", good[rnd(&g->r, N(good))]);
}

static void put_len(struct gen *g, unsigned int len, unsigned int bad_pct)
{
	if (chance(&g->r, bad_pct)) {
		put(g, "/%s", bad_lens[rnd(&g->r, N(bad_lens))]);
		return;
	}
	if (chance(&g->r, 10)) {
		const char *alt = good_lens_alt[rnd(&g->r, N(good_lens_alt))];

		put(g, "/%s", alt);
		return;
	}
	put(g, "/%u", len);
}

static const char *pick_access(struct gen *g, bool text, unsigned int bad_pct)
{
	unsigned int x = rnd(&g->r, 100);

	if (chance(&g->r, bad_pct))
		return chance(&g->r, 40) ? "r--" : bad_access[rnd(&g->r, N(bad_access))];
	if (text)
		return x < 70 ? "--x" : x < 85 ? "---" : "rw-";
	if (x < 40)
		return "rw-";
	if (x < 72)
		return "-w-";
	if (x < 95)
		return "---";
	return "--x";	/* on data: refused */
}

/* A TARGET[/LEN] for symbol s; hostile with probability bad_pct. */
static void put_target(struct gen *g, struct fsym *s, unsigned int bad_pct,
		       bool x)
{
	unsigned int off = 0, len;
	unsigned int form = rnd(&g->r, 100);
	bool need_len;

	if (s->noffs && chance(&g->r, 30))
		off = s->offs[rnd(&g->r, s->noffs)];
	/* A length that fits the object at that offset, mostly. */
	if (x)
		len = sizeof(long);
	else if (chance(&g->r, 15))
		len = 1U << rnd(&g->r, 4);
	else {
		len = s->size >= 8 ? 8 : s->size;
		while (len > 1 && (off % len))
			len /= 2;
	}

	if (form < 15) {
		/* 0xADDRESS, maybe upper case, maybe leading zeros */
		const char *pfx = chance(&g->r, 20) ? "0X" : "0x";

		if (chance(&g->r, 20))
			put(g, "%s%016lX", pfx, s->addr + off);
		else if (chance(&g->r, 10))
			put(g, "%s%lX", pfx, s->addr + off);
		else
			put(g, "%s%lx", pfx, s->addr + off);
		need_len = true;
	} else {
		if (s->mod && form < 30)
			put(g, "%s:", s->mod);
		put(g, "%s", s->name);
		if (off || chance(&g->r, 3)) {
			switch (rnd(&g->r, 3)) {
			case 0: put(g, "+%u", off); break;
			case 1: put(g, "+0x%x", off); break;
			default: put(g, "+0%o", off); break;
			}
			need_len = true;
		} else {
			need_len = s->deflen <= 0;
		}
	}
	if (need_len || chance(&g->r, 50) || chance(&g->r, bad_pct))
		put_len(g, len, bad_pct);
}

/* ------------------------------------------------------------------------
 * Casts and field paths
 */



/* Blanks inside a cast's parentheses (doc: part of the entry). */
static const char *const cast_pad[] = { "", "", "", "", " ", "\t", "  ", " \t" };

const char *const cast_gap[] = { " ", " ", " ", " ", "  ", "\t", " \t ", "\t\t" };

/* Casts that are no cast, name no type, or end the entry early. */
const char *const bad_casts[] = {
	"(strukt ksym_hitgen_rec)", "(struct)", "(struct )", "(structksym_hitgen_rec)",
	"(struct 9x)", "(struct ksym_hitgen_rec x)", "(union ksym_hitgen_rec)",
	"(struct " NX_TYPE_PREFIX "_t)", "(union " NX_TYPE_PREFIX "_t)", "()", "(",
	"(struct ksym_hitgen_rec", "(Struct ksym_hitgen_rec)", "((struct ksym_hitgen_rec))",
	"(struct ksym_hitgen_rec)(struct ksym_hitgen_rec)", "(struct\nksym_hitgen_rec)",
	"(struct\vksym_hitgen_rec)", "(struct\rksym_hitgen_rec)", "(struct ksym_hitgen_rec) ",
	"(struct ksym-hitgen-rec)", "(struct ksym_hitgen_rec)\t", "(struct ksym_hitgen_rec))",
	"(struct:ksym_hitgen_rec)", "(ksym_hitgen_rec)", "struct ksym_hitgen_rec)",
};

/* Path steps that are bad somewhere, or everywhere. */
static const char *const bad_steps[] = {
	"." NX_TYPE_PREFIX, ".x", ".Count", ".9x", ".", "..", ".[0]", "[x]", "[]", "[",
	"[1", "]", "[-1]", "[+1]", "[0x]", "[08]", "[0000000000000001]", "[4294967296]",
	"[99999999999]", "[010]", "[8]", "[2]", "[0]", "[1][0]", ".count$", "[0x8]",
	"[ 1]", "[0]]", ".lo", ".pair[1].hi",
};

/*
 * A cast of @kw @name with blanks inside perhaps (now and then ~1000 of
 * them, around the 1023-character entry limit). The first cast of a
 * logical write gives g->cut, a byte inside it where the writer may end
 * one write() and begin the next.
 */
void put_cast(struct gen *g, const char *kw, const char *name)
{
	size_t start = g->n;

	if (chance(&g->r, 2)) {
		unsigned int k = 940 + rnd(&g->r, 120);

		put(g, "(%s", kw);
		while (k-- && g->n < BUF_MAX - 64)
			put(g, "%c", chance(&g->r, 90) ? ' ' : '\t');
		put(g, "%s)", name);
	} else {
		put(g, "(%s%s%s%s%s)", PICK(g, cast_pad), kw, PICK(g, cast_gap), name,
		    PICK(g, cast_pad));
	}
	if (!g->cut && g->n - start > 2)
		g->cut = start + 1 + rnd(&g->r, g->n - start - 2);
}

/* An array index in the spellings the kernel reads (base 0, as kstrtou32()). */
static void put_index(struct gen *g, unsigned int i)
{
	unsigned int k = rnd(&g->r, 100);

	if (k < 70)
		put(g, "[%u]", i);
	else if (k < 80)
		put(g, "[0x%x]", i);
	else if (k < 83)
		put(g, "[0X%X]", i);
	else if (k < 95)
		put(g, "[0%o]", i);
	else
		put(g, "[%015o]", i);	/* leading zeros: octal, 15 digits at most */
}

/* One bad step: from bad_steps[], a long field name, or an overlong path. */
static void put_bad_step(struct gen *g)
{
	unsigned int k = rnd(&g->r, 100), i;

	if (k < 85) {
		put(g, "%s", PICK(g, bad_steps));
	} else if (k < 90) {
		/* 512 characters or more: no name; fewer: no such field. */
		unsigned int len = chance(&g->r, 50) ? 600 : 300;

		put(g, ".");
		for (i = 0; i < len && g->n < BUF_MAX - 64; i++)
			put(g, "%c", 'a' + (char)rnd(&g->r, 26));
	} else if (k < 95) {
		/* Valid steps, on and on: the first one that does not fit fails. */
		for (i = 0; i < 120 && g->n < BUF_MAX - 64; i++)
			put(g, ".pair[1].hi");
	} else {
		for (i = 0; i < 350 && g->n < BUF_MAX - 64; i++)
			put(g, "[0]");
	}
}

/*
 * A field path from type @t, maybe with a bad step (@bad_pct percent).
 * Adds the offset to *@off; returns the type it ends at, NULL if it took a
 * bad step.
 */
const struct ftype *put_path(struct gen *g, const struct ftype *t,
				    unsigned int bad_pct, unsigned int *off)
{
	unsigned int depth, bad_at = chance(&g->r, bad_pct) ? rnd(&g->r, 4) : ~0U;

	for (depth = 0; ; depth++) {
		if (depth == bad_at) {
			put_bad_step(g);
			return NULL;
		}
		if (t->kind == TK_INT || chance(&g->r, depth ? 30 : 12))
			return t;
		if (t->kind == TK_STRUCT) {
			const struct fmember *m = &t->members[rnd(&g->r, t->nmembers)];

			put(g, ".%s", m->name);
			*off += m->off;
			t = m->type;
		} else {
			unsigned int i = rnd(&g->r, t->nelems);

			put_index(g, i);
			*off += i * t->elem->size;
			t = t->elem;
		}
	}
}

/*
 * A symbol another struct can be cast onto: larger than the struct and an
 * +OFFSET, so that the model knows what is there; not the racer's.
 */
static struct fsym *pick_cast_base(struct gen *g, const struct ftype *t)
{
	unsigned int tries;

	for (tries = 0; tries < 20; tries++) {
		struct fsym *s = &syms[rnd(&g->r, NR_SYMS)];

		if (s->found && !s->racer && !s->percpu && s->ctype != t &&
		    s->dist >= (long)t->size + 8 && (!s->text || chance(&g->r, 30)) &&
		    (opt.mode != MODE_RACE || racer_addr + 8 <= s->addr ||
		     racer_addr >= s->addr + t->size + 8))
			return s;
	}
	return sym_by_name("ksym_hitgen_rec");
}

/*
 * TARGET[/LEN] with a cast and/or a field path (doc, "Struct fields and
 * per-CPU variables"): ksym_hitgen_rec with its cast, the per-CPU
 * ksym_hitgen_pcpu with or without one, or another symbol cast to one of
 * the two; hostile with probability @bad_pct. @x: for --x.
 */
static void put_path_target(struct gen *g, unsigned int bad_pct, bool x)
{
	bool bad = chance(&g->r, bad_pct), need_len = false;
	unsigned int k = rnd(&g->r, 100), off = 0, len;
	const struct ftype *cast = NULL, *t;
	struct fsym *s;

	if (k < 50) {
		s = sym_by_name("ksym_hitgen_rec");
		k = rnd(&g->r, 100);
		cast = k < 84 ? &t_rec : k < 90 ? &t_pcpu : NULL;
		if (!cast && !bad && chance(&g->r, 80))
			cast = &t_rec;
	} else if (k < 85) {
		s = sym_by_name("ksym_hitgen_pcpu");
		k = rnd(&g->r, 100);
		cast = k < 50 ? NULL : &t_pcpu;
		if (bad && chance(&g->r, 20))
			cast = &t_rec;	/* contradicts BTF */
	} else {
		cast = chance(&g->r, 50) ? &t_rec : &t_pcpu;
		s = pick_cast_base(g, cast);
	}
	if (!s)
		return;
	if (bad && chance(&g->r, 25)) {
		if (s->percpu && chance(&g->r, 30)) {
			put_cast(g, "struct", FOREIGN_TYPE);	/* contradicts BTF */
		} else {
			put(g, "%s", PICK(g, bad_casts));
		}
	} else if (cast) {
		put_cast(g, "struct", cast->name);
	}
	t = cast ? cast : s->ctype;
	if (bad && chance(&g->r, 5)) {
		put(g, "0x%lx", s->addr);	/* a cast on an address */
	} else {
		if (s->mod && chance(&g->r, 20))
			put(g, "%s:", s->mod);
		put(g, "%s", s->name);
	}
	t = put_path(g, t, bad ? 50 : 0, &off);
	if (chance(&g->r, 8)) {
		static const unsigned int offs[] = { 0, 2, 4, 8 };
		unsigned int o = PICK(g, offs);

		switch (rnd(&g->r, 3)) {
		case 0: put(g, "+%u", o); break;
		case 1: put(g, "+0x%x", o); break;
		default: put(g, "+0%o", o); break;
		}
		off += o;
		need_len = rule_offset_unsized(o) && !(bad && chance(&g->r, 50));
	}
	if (x) {
		if (chance(&g->r, 30))
			put_len(g, sizeof(long), bad ? 30 : 0);
		return;
	}
	if (!need_len && !chance(&g->r, 50) && !chance(&g->r, bad ? 20 : 0))
		return;	/* the field's own length */
	for (len = 8; len > 1 && ((t && len > t->size) || (s->addr + off) % len); len /= 2)
		;
	if (chance(&g->r, bad ? 30 : 10))
		len = 1U << rnd(&g->r, 4);	/* maybe larger than the field */
	put_len(g, len, bad ? 30 : 2);
}

/* An existing watch's target, to change or remove it. */
static bool put_existing(struct gen *g)
{
	const struct spec *w;
	unsigned long off;

	if (!g->m || !g->m->nr)
		return false;
	w = &g->m->w[rnd(&g->r, g->m->nr)];
	/*
	 * Its address is the watch: another spelling of it is the same watch
	 * (a per-CPU variable's offset is not its address).
	 */
	if (chance(&g->r, 8) && (w->percpu || sym_by_addr(w->addr, &off)))
		put(g, "0x%lx", w->addr);
	else
		put(g, "%s", w->target);
	if (chance(&g->r, 50) && w->access != ACC_X)
		put(g, "/%u", w->len);
	return true;
}

static void gen_entry(struct gen *g, bool hostile)
{
	unsigned int k = rnd(&g->r, 100);
	struct fsym *s;
	const char *acc;

	if (hostile) {
		if (k < 25) {
			put(g, "%s", garbage[rnd(&g->r, N(garbage))]);
			return;
		}
		if (k < 30) {
			/* a long entry, around the 1023-character limit */
			unsigned int len = 990 + rnd(&g->r, 80);

			put(g, "ksym_fuzz_nx");
			while (g->n < BUF_MAX - 8 && len-- > 12)
				put(g, "%c", 'a' + (char)rnd(&g->r, 26));
			put(g, ":rw-");
			return;
		}
		if (k < 35) {
			put(g, "0x%lx/8:rw-", bad_addrs[rnd(&g->r, N(bad_addrs))]);
			return;
		}
		if (k < 40) {
			put(g, "0x%lx:---", bad_addrs[rnd(&g->r, N(bad_addrs))]);
			return;
		}
		if (k < 60) {
			acc = pick_access(g, false, 30);
			put_path_target(g, 60, !strcmp(acc, "--x"));
			put(g, ":%s", acc);
			put_cpus(g, 20);
			return;
		}
		s = pick_sym(g);
		acc = pick_access(g, s->text, 60);
		put_target(g, s, 50, !strcmp(acc, "--x"));
		put(g, ":%s", acc);
		put_cpus(g, 40);
		return;
	}
	if (k < 4) {
		put(g, chance(&g->r, 50) ? "0" : "*:---");
		return;
	}
	if (k < 30 && put_existing(g)) {
		acc = k < 20 ? "---" : pick_access(g, false, 0);
		put(g, ":%s", acc);
		if (strcmp(acc, "---"))
			put_cpus(g, 0);
		return;
	}
	if (k < 45) {
		acc = pick_access(g, false, 3);
		put_path_target(g, 3, !strcmp(acc, "--x"));
		put(g, ":%s", acc);
		if (strcmp(acc, "---"))
			put_cpus(g, 3);
		return;
	}
	s = pick_sym(g);
	acc = pick_access(g, s->text, 3);
	put_target(g, s, 2, !strcmp(acc, "--x"));
	put(g, ":%s", acc);
	if (strcmp(acc, "---"))
		put_cpus(g, 3);
}

static const char *pick_sep(struct gen *g)
{
	static const char *const seps[] = {
		" ", " ", " ", "\n", "\n", "\t", "  ", "\n\n", " \n ", "\r\n", "\v", "\f",
		" # comment:rw- 0\n", "\n# ksym_hitgen_var:rw-\n", "#\n",
	};
	return seps[rnd(&g->r, N(seps))];
}

/* One logical write for the checked writers. */
void gen_logical(struct gen *g)
{
	unsigned int k = rnd(&g->r, 1000), nent, i;
	bool hostile_write = chance(&g->r, 25);

	g->n = 0;
	g->cut = 0;
	if (k < 30) {
		/* blank lines only */
		static const char *const blanks[] = {
			"\n", "\n\n", " \n", "\t\n", " ", "\r\n", "  \n \n", "# 0\n",
			"#\n", "  # *:---", "\n#ksym_hitgen_var:rw-\n",
		};
		put(g, "%s", blanks[rnd(&g->r, N(blanks))]);
		return;
	}
	if (k < 45) {
		/* huge: valid entries past 4096 bytes */
		while (g->n < WRITE_MAX + 200)
			put(g, "ksym_hitgen_var:rw- ");
		put(g, "\n");
		return;
	}
	if (k < 60) {
		/* around the 4095-byte limit: an entry padded with blanks */
		size_t target = WRITE_MAX - 3 + rnd(&g->r, 4);

		gen_entry(g, false);
		while (g->n < target - 1)
			put(g, chance(&g->r, 90) ? " " : "\n");
		put(g, "\n");
		return;
	}
	if (k < 75) {
		/* many short valid and invalid entries */
		nent = 20 + rnd(&g->r, 60);
	} else if (k < 500) {
		nent = 1;
	} else if (k < 900) {
		nent = 2 + rnd(&g->r, 3);
	} else {
		nent = 5 + rnd(&g->r, 8);
	}
	if (chance(&g->r, 5))
		put(g, "%s", pick_sep(g));
	for (i = 0; i < nent; i++) {
		if (i)
			put(g, "%s", pick_sep(g));
		gen_entry(g, hostile_write && chance(&g->r, 50));
	}
	k = rnd(&g->r, 100);
	if (k < 80)
		put(g, "\n");
	else if (k < 85)
		put(g, "\n\n");
	else if (k < 90)
		put(g, " \n");
	/* else unterminated: applied at close, or joined with the next write */
}

/* One logical write for the racing writer: its one address only. */
void gen_racer(struct gen *g)
{
	static const char *const forms[] = {
		"ksym_hitgen_buf+8/8", "ksym_hitgen_buf+0x8/8", "ksym_hitgen_buf+010/4",
		"ksym_hitgen:ksym_hitgen_buf+8/8", "RACERHEX/8", "ksym_hitgen_buf+8/4",
	};
	static const char *const hostile[] = {
		"ksym_hitgen_buf+8/3:rw-", "ksym_hitgen_buf+8/8:r--",
		"ksym_hitgen_buf+8/8:rw-@9", "ksym_hitgen_buf+8:rw-",
		"ksym_hitgen_buf+8/8:xyz", "ksym_fuzz_nx2:rw-", "ksym_hitgen_buf+9/8:rw-",
		"ksym_hitgen_buf+8/8:---@1",
	};
	unsigned int k = rnd(&g->r, 100), nent = 1 + rnd(&g->r, 3), i;

	g->n = 0;
	if (k < 3) {
		while (g->n < WRITE_MAX + 100)
			put(g, "ksym_hitgen_buf+8/8:rw- ");
		put(g, "\n");
		return;
	}
	for (i = 0; i < nent; i++) {
		if (i)
			put(g, "%s", chance(&g->r, 70) ? " " : "\n");
		if (chance(&g->r, 20)) {
			put(g, "%s", hostile[rnd(&g->r, N(hostile))]);
			continue;
		}
		{
			const char *f = forms[rnd(&g->r, N(forms))];

			if (!strncmp(f, "RACERHEX", 8))
				put(g, "0x%lx%s", racer_addr, f + 8);
			else
				put(g, "%s", f);
		}
		k = rnd(&g->r, 100);
		put(g, ":%s", k < 45 ? "rw-" : k < 60 ? "-w-" : "---");
		if (k < 60 && chance(&g->r, 30))
			put(g, "@%s", nr_cpus_possible > 1 ? (chance(&g->r, 50) ? "1" : "0-1") : "0");
	}
	if (chance(&g->r, 90))
		put(g, "\n");
}

/* Maybe put a NUL somewhere (not for the racer, unless -Z is off: refused anyway). */
void maybe_nul(struct gen *g)
{
	if (opt.no_nul || !g->n || !chance(&g->r, 3))
		return;
	g->buf[rnd(&g->r, g->n)] = '\0';
}
