// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-fuzz: the model of the watch set, from Documentation/trace/ksym.rst
 * alone: the errnos, the types of ksym_hitgen's structs (what BTF gives the
 * kernel), the symbols used (resolved from /proc/kallsyms), the parser of
 * an entry and the model of a write and of a close (model_write(),
 * model_close(), model_txn()), the rules under revision and the escaping
 * of reports.
 *
 * Owns: the watch-set model, the types and symbol tables (syms), have_btf.
 * May call: libc; twhy() of the triggers' model (the OFFSET parser they
 * share reports through it); reads the options (opt) and CPU sets the
 * driver sets.
 */

#include "ksym-fuzz.h"


const struct errnos_entry errnos[] = {
	{ EINVAL, EB_EINVAL, "EINVAL" },
	{ ENOENT, EB_ENOENT, "ENOENT" },
	{ EOPNOTSUPP, EB_EOPNOTSUPP, "EOPNOTSUPP" },
	{ EFAULT, EB_EFAULT, "EFAULT" },
	{ EPERM, EB_EPERM, "EPERM" },
	{ ENOSPC, EB_ENOSPC, "ENOSPC" },
	{ E2BIG, EB_E2BIG, "E2BIG" },
	{ ERANGE, EB_ERANGE, "ERANGE" },
	{ EEXIST, EB_EEXIST, "EEXIST" },
};

unsigned int errno_bit(int err)
{
	size_t i;

	for (i = 0; i < NR_ERRNOS; i++)
		if (errnos[i].err == err)
			return errnos[i].bit;
	return EB_OTHER;
}

void errmask_str(unsigned int mask, char *buf, size_t size)
{
	size_t i, n = 0;

	buf[0] = '\0';
	for (i = 0; i < NR_ERRNOS; i++)
		if (mask & errnos[i].bit)
			n += snprintf(buf + n, size - n, "%s%s", n ? "|" : "",
				      errnos[i].name);
	if (mask & EB_OTHER)
		snprintf(buf + n, size - n, "%sother", n ? "|" : "");
	if (!mask)
		snprintf(buf, size, "none");
}

static const struct ftype t_u8 = { .kind = TK_INT, .size = 1 };

static const struct ftype t_u16 = { .kind = TK_INT, .size = 2 };

const struct ftype t_u32 = { .kind = TK_INT, .size = 4 };

const struct ftype t_ulong = { .kind = TK_INT, .size = 8 };

static const struct fmember m_pair[] = {
	{ "lo", 0, &t_u16 }, { "hi", 2, &t_u16 },
};

static const struct ftype t_pair_elem = {
	.kind = TK_STRUCT, .size = 4, .members = m_pair, .nmembers = 2,
};

static const struct ftype t_pair = {
	.kind = TK_ARRAY, .size = 8, .elem = &t_pair_elem, .nelems = 2,
};

static const struct ftype t_name = {
	.kind = TK_ARRAY, .size = 8, .elem = &t_u8, .nelems = 8,
};

static const struct fmember m_rec[] = {
	{ "flags", 0, &t_u32 }, { "state", 4, &t_u32 }, { "count", 8, &t_ulong },
	{ "name", 16, &t_name }, { "pair", 24, &t_pair },
};

const struct ftype t_rec = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_rec", .size = 32,
	.members = m_rec, .nmembers = 5,
};

static const struct fmember m_pcpu[] = {
	{ "pad", 0, &t_ulong }, { "count", 8, &t_ulong }, { "small", 16, &t_u32 },
};

const struct ftype t_pcpu = {
	.kind = TK_STRUCT, .name = "ksym_hitgen_pcpu", .size = 24,
	.members = m_pcpu, .nmembers = 3,
};

static const struct ftype *const named_types[] = { &t_rec, &t_pcpu };

/*
 * Documentation/trace/ksym.rst: without /LEN a SYMBOL is watched over its
 * size (the distance to the next symbol; for a field or a symbol BTF
 * types, its real size) when that is 1, 2, 4 or 8 bytes, else over the
 * first naturally aligned word it starts with (8, 4, 2 or 1 bytes by
 * alignment and size). @size -1: unknown; 0: none (/LEN must be given).
 * (A size of 1, 2, 4 or 8 at an address not aligned to it is the case
 * the doc leaves out: the kernel takes the first aligned word then too.)
 */
int default_len(unsigned long addr, long size)
{
	int len;

	if (size < 0)
		return -1;
	if (!size)
		return 0;
	if ((size == 1 || size == 2 || size == 4 || size == 8) && addr % size == 0)
		return size;
	for (len = 8; len > 1; len /= 2)
		if (len <= size && addr % len == 0)
			return len;
	return 1;
}

static const unsigned int offs_buf[] = { 1, 2, 3, 4, 6, 7 };

static const unsigned int offs_jiffies[] = { 8, 16, 56 };

static const unsigned int offs_pid_max[] = { 4 };

static const unsigned int offs_text[] = { 1, 2, 3 };

static const unsigned int offs_rec[] = { 4, 8, 16, 18, 24, 28 };

static const unsigned int offs_pcpu[] = { 8, 16 };

struct fsym syms[] = {
	{ SYM("ksym_hitgen_var", "ksym_hitgen", false, false, 8) },
	{ SYM("ksym_hitgen_u32", "ksym_hitgen", false, false, 4) },
	{ SYM("ksym_hitgen_buf", "ksym_hitgen", false, false, 16),
	  .offs = offs_buf, .noffs = NOFFS(offs_buf) },
	{ SYM("jiffies_64", NULL, false, false, 8),
	  .offs = offs_jiffies, .noffs = NOFFS(offs_jiffies) },
	{ SYM("pid_max", NULL, false, false, 4),
	  .offs = offs_pid_max, .noffs = NOFFS(offs_pid_max) },
	{ SYM("total_forks", NULL, false, false, 8) },
	{ SYM("ksym_hitgen_write_a", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("ksym_hitgen_write_b", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("ksym_hitgen_read", "ksym_hitgen", true, false, 8),
	  .offs = offs_text, .noffs = NOFFS(offs_text) },
	{ SYM("boot_command_line", NULL, false, true, 8) },
	{ SYM("ksym_hitgen_rec", "ksym_hitgen", false, false, 32),
	  .offs = offs_rec, .noffs = NOFFS(offs_rec), .ctype = &t_rec },
	{ SYM("ksym_hitgen_pcpu", "ksym_hitgen", false, false, 24),
	  .offs = offs_pcpu, .noffs = NOFFS(offs_pcpu), .ctype = &t_pcpu,
	  .percpu = true },
};

unsigned long racer_addr;

/* Addresses with no readable kernel memory or in user space. */
const unsigned long bad_addrs[] = {
	0x0UL, 0x1000UL, 0x7fff00000000UL, 0x8000000000000000UL,
	0xffffffffff600000UL, 0xfffffffffffff000UL,
};

struct fsym *sym_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NR_SYMS; i++)
		if (syms[i].found && !strcmp(syms[i].name, name))
			return &syms[i];
	return NULL;
}

/* The symbol whose extent holds addr (extent: dist, or size if unknown). */
struct fsym *sym_by_addr(unsigned long addr, unsigned long *off)
{
	size_t i;

	for (i = 0; i < NR_SYMS; i++) {
		unsigned long ext;

		/* 0xADDRESS is never a per-CPU variable's (doc). */
		if (!syms[i].found || syms[i].percpu)
			continue;
		ext = syms[i].dist > 0 ? (unsigned long)syms[i].dist : syms[i].size;
		if (ext < 16)
			ext = 16;
		if (addr >= syms[i].addr && addr - syms[i].addr < ext) {
			*off = addr - syms[i].addr;
			return &syms[i];
		}
	}
	return NULL;
}

/*
 * The size the kernel knows of a plain SYMBOL: its BTF type's where BTF
 * types it (per-CPU variables), else the distance to the next symbol.
 */
long sym_size(const struct fsym *s)
{
	return s->percpu ? (long)s->ctype->size : s->dist;
}

/* Every name in /proc/kallsyms, sorted: names the model does not know. */
static char **ksnames;

static size_t nksnames;

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool kallsyms_has(const char *name)
{
	return nksnames && bsearch(&name, ksnames, nksnames, sizeof(*ksnames), cmp_name);
}

static int cmp_ksline(const void *a, const void *b)
{
	const struct ksline *x = a, *y = b;
	int c = strcmp(x->owner, y->owner);

	if (c)
		return c;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * Resolve syms[] from /proc/kallsyms. kallsyms knows no sizes: the default
 * LEN is the distance to the next symbol (doc, "LEN"), computed here from
 * the same listing among the symbols of the same owner.
 */
int load_kallsyms(const char *path)
{
	struct ksline *all = NULL;
	size_t nall = 0, cap = 0, i, j;
	char line[512];
	FILE *f;
	int ret = -1;

	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "ksym-fuzz: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char type, name[256], owner[64] = "";
		unsigned long addr;
		int n;

		n = sscanf(line, "%lx %c %255s [%63[^]]]", &addr, &type, name, owner);
		if (n < 3)
			continue;
		if (nall == cap) {
			struct ksline *p;

			cap = cap ? 2 * cap : 65536;
			p = realloc(all, cap * sizeof(*all));
			if (!p)
				goto out;
			all = p;
		}
		all[nall].addr = addr;
		snprintf(all[nall].owner, sizeof(all[nall].owner), "%s", owner);
		nall++;
		if (nksnames % 65536 == 0) {
			char **p = realloc(ksnames, (nksnames + 65536) * sizeof(*ksnames));

			if (!p)
				goto out;
			ksnames = p;
		}
		ksnames[nksnames] = strdup(name);
		if (!ksnames[nksnames])
			goto out;
		nksnames++;
		for (i = 0; i < NR_SYMS; i++) {
			const char *m = syms[i].mod ? syms[i].mod : "";

			if (!strcmp(name, syms[i].name) && !strcmp(owner, m)) {
				syms[i].addr = addr;
				syms[i].found = true;
			}
		}
	}
	qsort(all, nall, sizeof(*all), cmp_ksline);
	qsort(ksnames, nksnames, sizeof(*ksnames), cmp_name);
	for (i = 0; i < NR_SYMS; i++) {
		const char *m = syms[i].mod ? syms[i].mod : "";

		syms[i].dist = -1;
		if (!syms[i].found)
			continue;
		for (j = 0; j < nall; j++) {
			if (strcmp(all[j].owner, m) || all[j].addr <= syms[i].addr)
				continue;
			syms[i].dist = all[j].addr - syms[i].addr;
			break;
		}
		syms[i].deflen = default_len(syms[i].addr, sym_size(&syms[i]));
	}
	ret = 0;
out:
	fclose(f);
	free(all);
	return ret;
}

void why(struct outcome *o, const char *fmt, ...)
{
	size_t n = strlen(o->why);
	va_list ap;

	if (n >= sizeof(o->why) - 2)
		return;
	if (n)
		o->why[n++] = ';', o->why[n++] = ' ', o->why[n] = '\0';
	va_start(ap, fmt);
	vsnprintf(o->why + n, sizeof(o->why) - n, fmt, ap);
	va_end(ap);
}

static const char *access_str(unsigned int access)
{
	switch (access) {
	case ACC_RW: return "rw-";
	case ACC_W: return "-w-";
	case ACC_R: return "r--";
	case ACC_X: return "--x";
	}
	return "---";
}

static void cpulist_str(uint64_t mask, char *buf, size_t size)
{
	size_t n = 0;
	int c = 0;

	buf[0] = '\0';
	while (c < MAX_CPUS) {
		int e;

		if (!(mask & (1ULL << c))) {
			c++;
			continue;
		}
		for (e = c; e + 1 < MAX_CPUS && (mask & (1ULL << (e + 1))); e++)
			;
		if (e == c)
			n += snprintf(buf + n, size - n, "%s%d", n ? "," : "", c);
		else
			n += snprintf(buf + n, size - n, "%s%d-%d", n ? "," : "", c, e);
		c = e + 1;
	}
}

/* The canonical line of a watch (doc: "TARGET/LEN:ACCESS[@CPULIST]"). */
void spec_line(const struct spec *s, char *buf, size_t size)
{
	char cpus[256];

	if (s->cpus) {
		cpulist_str(s->cpus, cpus, sizeof(cpus));
		snprintf(buf, size, "%s/%u:%s@%s", s->target, s->len,
			 access_str(s->access), cpus);
	} else {
		snprintf(buf, size, "%s/%u:%s", s->target, s->len,
			 access_str(s->access));
	}
}

/*
 * A watch is its address (doc: an entry for an address already watched
 * changes that watch, whatever its spelling). A per-CPU variable's address
 * is its offset in the per-CPU area: another kind of address than any
 * plain one, even where the numbers are equal.
 */
static struct spec *model_find(struct model *m, unsigned long addr, bool percpu)
{
	int i;

	for (i = 0; i < m->nr; i++)
		if (m->w[i].addr == addr && m->w[i].percpu == percpu)
			return &m->w[i];
	return NULL;
}

/*
 * Numbers as the kernel's kstrto*() read them (base 0: 0x hex, 0 octal,
 * else decimal; base 16: optional 0x), a leading '+' allowed.
 */
bool parse_num(const char *s, int base, unsigned long *val)
{
	unsigned long v = 0;
	int digits = 0;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
		    isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else if (s[0] == '0') {
			base = 8;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x') {
		s += 2;
	}
	for (; *s; s++) {
		int d;

		if (isdigit((unsigned char)*s))
			d = *s - '0';
		else if (isxdigit((unsigned char)*s))
			d = tolower((unsigned char)*s) - 'a' + 10;
		else
			return false;
		if (d >= base)
			return false;
		if (v > (~0UL - d) / base)
			return false;
		v = v * base + d;
		digits++;
	}
	*val = v;
	return digits > 0;
}

bool parse_trigger_offset(struct toutcome *o, const char *sign,
				 unsigned long *off, bool *neg)
{
	if (!parse_num(sign + 1, 0, off) || *off > 16384) {
		twhy(o, "bad OFFSET '%.20s'", sign + 1);
		return false;
	}
	*neg = *sign == '-';
	return true;
}

/*
 * CPULIST in the kernel's cpulist format (bitmap_parselist()): "N" or
 * "N-M" regions separated by commas, empty regions skipped. (The ":used/
 * group" and "N" forms are not generated.)
 */
bool parse_cpulist(const char *s, uint64_t *mask)
{
	*mask = 0;
	for (;;) {
		unsigned long a, b;
		char *end;

		while (*s == ',')
			s++;
		if (!*s)
			return true;
		if (!isdigit((unsigned char)*s))
			return false;
		errno = 0;
		a = strtoul(s, &end, 10);
		s = end;
		b = a;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return false;
			b = strtoul(s, &end, 10);
			s = end;
		}
		if (errno || a > b || b >= MAX_CPUS)
			return false;
		for (; a <= b; a++)
			*mask |= 1ULL << a;
		if (*s && *s != ',')
			return false;
	}
}

/* Symbol names: [A-Za-z0-9_.$]+, with at most one "module:" prefix. */
static bool valid_symbol(const char *s)
{
	const char *p, *colon = NULL;

	if (!*s)
		return false;
	for (p = s; *p; p++) {
		if (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$')
			continue;
		if (*p == ':' && !colon && p != s && p[1]) {
			colon = p;
			continue;
		}
		return false;
	}
	return true;
}

bool is_user_addr(unsigned long addr)
{
	return addr < 0x00007ffffffff000UL;
}

static bool rule_percpu_alias(void);

/* The kernel's isspace() (ASCII's, and Latin-1's NBSP, never generated). */
bool k_isspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f' || (unsigned char)c == 0xa0;
}

bool is_ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Does the kernel have BTF (casts, paths, module per-CPU data)? */
bool have_btf = true;

/*
 * "(struct NAME)" or "(union NAME)" at @s, blanks allowed inside the
 * parentheses (doc). On success *@is_union and @name (of @namesz bytes)
 * say which, and the return value is what follows the ')'; NULL: not a
 * cast (EINVAL).
 */
char *parse_cast(char *s, bool *is_union, char *name, size_t namesz)
{
	char *end = strchr(s, ')'), *kw, *nm, *e;
	size_t kwlen, len;

	if (!end)
		return NULL;
	*end = '\0';
	for (kw = s + 1; k_isspace(*kw); kw++)
		;
	if (!strncmp(kw, "struct", 6)) {
		kwlen = 6;
		*is_union = false;
	} else if (!strncmp(kw, "union", 5)) {
		kwlen = 5;
		*is_union = true;
	} else {
		return NULL;
	}
	nm = kw + kwlen;
	if (!k_isspace(*nm))
		return NULL;
	for (e = nm + strlen(nm); e > nm && k_isspace(e[-1]); e--)
		;
	*e = '\0';
	while (k_isspace(*nm))
		nm++;
	for (len = 0; is_ident(nm[len]); len++)
		;
	if (!len || isdigit((unsigned char)nm[0]) || nm[len] || len >= namesz)
		return NULL;
	memcpy(name, nm, len + 1);
	return end + 1;
}

/*
 * The type a cast names: *@t set, or NULL for FOREIGN_TYPE (a struct the
 * kernel has, whose layout the model does not know). Returns false when
 * no kernel has it (ENOENT).
 */
bool find_cast(bool is_union, const char *name, const struct ftype **t)
{
	size_t i;

	*t = NULL;
	for (i = 0; i < sizeof(named_types) / sizeof(named_types[0]); i++)
		if (!strcmp(name, named_types[i]->name))
			break;
	if (i < sizeof(named_types) / sizeof(named_types[0])) {
		*t = named_types[i];
		return !is_union;
	}
	if (!strcmp(name, FOREIGN_TYPE))
		return !is_union;
	if (!strncmp(name, NX_TYPE_PREFIX, strlen(NX_TYPE_PREFIX)))
		return false;
	fprintf(stderr, "ksym-fuzz: internal: the generator made a cast type the model does not know: %s\n",
		name);
	exit(2);
}

/*
 * Walk a field path (".FIELD" into a struct or union, "[N]" into an array)
 * from *@t (doc, "Struct fields and per-CPU variables"): adds the offset
 * to *@off, leaves the field's type in *@t and the path as the read-back
 * spells it (decimal indexes) in @canon. Returns 0 or the first error's
 * errno bit.
 */
unsigned int walk_path(const char *p, const struct ftype **t,
			      unsigned long *off, char *canon, size_t size,
			      struct outcome *o)
{
	size_t n = strlen(canon);

	while (*p) {
		if (*p == '.') {
			const struct fmember *m = NULL;
			size_t len, i;

			for (len = 0; is_ident(p[1 + len]); len++)
				;
			if (!len || isdigit((unsigned char)p[1]) || len >= 512) {
				why(o, "bad field name at '%.20s'", p);
				return EB_EINVAL;
			}
			if ((*t)->kind != TK_STRUCT) {
				why(o, "'%.20s' after a field that is no struct", p);
				return EB_EINVAL;
			}
			for (i = 0; i < (*t)->nmembers; i++)
				if (strlen((*t)->members[i].name) == len &&
				    !strncmp((*t)->members[i].name, p + 1, len))
					m = &(*t)->members[i];
			if (!m) {
				why(o, "no field '%.*s'", (int)(len < 40 ? len : 40), p + 1);
				return EB_ENOENT;
			}
			*off += m->off;
			*t = m->type;
			n += snprintf(canon + n, size - n, ".%s", m->name);
			p += 1 + len;
		} else if (*p == '[') {
			const char *end = strchr(p, ']');
			char num[16];
			unsigned long idx;

			if (!end || end - p - 1 <= 0 || end - p - 1 >= (long)sizeof(num)) {
				why(o, "bad index at '%.20s'", p);
				return EB_EINVAL;
			}
			memcpy(num, p + 1, end - p - 1);
			num[end - p - 1] = '\0';
			if (!parse_num(num, 0, &idx) || idx > 0xffffffffUL) {
				why(o, "bad index '%s'", num);
				return EB_EINVAL;
			}
			if ((*t)->kind != TK_ARRAY) {
				why(o, "index '%s' on no array", num);
				return EB_EINVAL;
			}
			if (idx >= (*t)->nelems) {
				why(o, "index %lu out of range", idx);
				return EB_ERANGE;
			}
			*off += idx * (*t)->elem->size;
			*t = (*t)->elem;
			n += snprintf(canon + n, size - n, "[%lu]", idx);
			p = end + 1;
		} else {
			why(o, "'%.20s' is no .FIELD or [N]", p);
			return EB_EINVAL;
		}
	}
	return 0;
}

/*
 * Whether a SYMBOL (with "module:" perhaps) names a symbol: 1 one of
 * syms[] (*@s set), -1 a real symbol the model does not know, 0 none.
 */
static int lookup_symbol(const char *sym, struct fsym **s)
{
	const char *mc = strchr(sym, ':');
	const char *name = mc ? mc + 1 : sym;

	*s = NULL;
	if (!valid_symbol(sym))
		return 0;
	*s = sym_by_name(name);
	if (*s && mc && (!(*s)->mod || strncmp(sym, (*s)->mod, mc - sym) ||
			 (*s)->mod[mc - sym]))
		*s = NULL;
	if (*s)
		return 1;
	return kallsyms_has(name) ? -1 : 0;
}

/*
 * TARGET: [(struct|union TYPE)]SYMBOL[.FIELD|[N]]...[+OFFSET], with
 * "module:" before SYMBOL perhaps, or 0xADDRESS (doc). The symbol is the
 * longest prefix, before a '.' or '[', that kallsyms knows. Returns false
 * with p->errs set when the entry is refused.
 */
/*
 * SYMBOL[+OFFSET] and the path after it, of @tgt (cut at '+'): the
 * symbol into @ti, OFFSET into *@off, the path's start into *@path.
 */
static bool rt_lookup(char *tgt, struct parsed *p, struct outcome *o,
		      struct tinfo *ti, unsigned long *off, char **path)
{
	char *plus, *q, c;
	int r = 0, n;

	plus = strchr(tgt, '+');
	if (plus) {
		*plus = '\0';
		if (!parse_num(plus + 1, 0, off)) {
			p->errs |= EB_EINVAL;
			why(o, "bad offset '%s'", plus + 1);
			return false;
		}
	}
	for (q = tgt; *q; q++) {
		if (!is_ident(*q) && !strchr(".$:[]", *q)) {
			p->errs |= EB_EINVAL;
			why(o, "bad character '%c' in '%.40s'", *q, tgt);
			return false;
		}
	}
	n = strcspn(tgt, ".[");
	c = tgt[n];
	tgt[n] = '\0';
	if (!valid_symbol(tgt)) {
		tgt[n] = c;
		p->errs |= EB_EINVAL;
		why(o, "bad symbol '%.40s'", tgt);
		return false;
	}
	tgt[n] = c;
	/* The longest prefix that is a symbol; the rest is the path. */
	for (q = tgt + strlen(tgt); q > tgt; q--) {
		c = *q;
		if (c && c != '.' && c != '[')
			continue;
		*q = '\0';
		r = lookup_symbol(tgt, &ti->s);
		*q = c;
		if (r)
			break;
	}
	if (r < 0) {
		/* A real symbol outside the table: refused, but how is its business. */
		p->errs |= EB_ENOENT | EB_EINVAL | EB_EFAULT | EB_EOPNOTSUPP | EB_ERANGE;
		why(o, "'%.40s' is a symbol the model does not know", tgt);
		return false;
	}
	if (!r) {
		p->errs |= EB_ENOENT;
		why(o, "unknown symbol '%.40s'", tgt);
		return false;
	}

	*path = q;
	return true;
}

/*
 * The type of what @tgt names through path @q (a cast: @has_cast, @is_union,
 * @cname), its size into @ti, and the canonical TARGET into @p.
 */
static bool rt_typed(char *tgt, char *q, bool has_cast, bool is_union,
		     const char *cname, unsigned long off, struct parsed *p,
		     struct outcome *o, struct tinfo *ti)
{
	const struct ftype *ctype = NULL, *type;
	char canon[TARGET_MAX] = "";
	unsigned long foff = 0;
	int n;

	/* q: the path. BTF types per-CPU variables alone (doc). */
	if (!have_btf) {
		if (ti->s->percpu && ti->s->mod) {
			p->errs |= EB_EOPNOTSUPP;
			why(o, "a module's per-CPU data without BTF");
			return false;
		}
		if (has_cast || *q) {
			p->errs |= EB_EINVAL;
			why(o, "cast or path without BTF");
			return false;
		}
	}
	type = ti->s->percpu ? ti->s->ctype : NULL;
	if (has_cast) {
		if (!find_cast(is_union, cname, &ctype)) {
			p->errs |= EB_ENOENT;
			why(o, "no type %s %s", is_union ? "union" : "struct", cname);
			return false;
		}
		if (type && ctype != type) {
			p->errs |= EB_EINVAL;
			why(o, "cast contradicts %s's type", ti->s->name);
			return false;
		}
		if (!ctype) {
			fprintf(stderr, "ksym-fuzz: internal: the generator cast %s, whose type BTF does not give, to struct %s\n",
				ti->s->name, cname);
			exit(2);
		}
		type = ctype;
	} else if (!type && *q) {
		p->errs |= EB_EINVAL;
		why(o, "path on %s, which BTF does not type, without a cast", ti->s->name);
		return false;
	}
	if (type) {
		unsigned int e = walk_path(q, &type, &foff, canon, sizeof(canon), o);

		if (e) {
			p->errs |= e;
			return false;
		}
		ti->typed = true;
		ti->size = type->size;
	} else {
		ti->size = sym_size(ti->s);
	}
	if (rule_offset_unsized(off))
		ti->size = 0;
	p->spec.addr = ti->s->addr + foff + off;
	p->spec.percpu = ti->s->percpu;
	*q = '\0';
	n = 0;
	if (has_cast && !ti->s->percpu)
		n = snprintf(p->spec.target, sizeof(p->spec.target), "(%s %s)",
			     is_union ? "union" : "struct", cname);
	n += snprintf(p->spec.target + n, sizeof(p->spec.target) - n, "%s%s", tgt, canon);
	if (off)
		snprintf(p->spec.target + n, sizeof(p->spec.target) - n, "+0x%lx", off);
	return true;
}

static bool resolve_target(char *tgt, struct parsed *p, struct outcome *o,
			   struct tinfo *ti)
{
	char cname[ENTRY_MAX], *q;
	unsigned long off = 0;
	bool has_cast = false, is_union = false;

	memset(ti, 0, sizeof(*ti));
	if (tgt[0] == '(') {
		tgt = parse_cast(tgt, &is_union, cname, sizeof(cname));
		if (!tgt) {
			p->errs |= EB_EINVAL;
			why(o, "bad cast");
			return false;
		}
		has_cast = true;
	}
	if (tgt[0] == '0' && (tgt[1] == 'x' || tgt[1] == 'X')) {
		if (has_cast) {
			p->errs |= EB_EINVAL;
			why(o, "cast on an address");
			return false;
		}
		ti->hexform = true;
		if (!parse_num(tgt, 16, &p->spec.addr)) {
			p->errs |= EB_EINVAL;
			why(o, "bad address '%s'", tgt);
			return false;
		}
		snprintf(p->spec.target, sizeof(p->spec.target), "0x%lx", p->spec.addr);
		ti->s = sym_by_addr(p->spec.addr, &off);
		return true;
	}

	if (!rt_lookup(tgt, p, o, ti, &off, &q))
		return false;
	return rt_typed(tgt, q, has_cast, is_union, cname, off, p, o, ti);
}

/* One entry, per the doc's grammar TARGET[/LEN]:ACCESS[@CPULIST]. */
/* ACCESS of an entry ("rw-", "-w-", "--x", "---", "r--"): its bits. */
static unsigned int parse_access(const char *a, struct parsed *p, struct outcome *o)
{
	if (!strcmp(a, "rw-"))
		return ACC_RW;
	if (!strcmp(a, "-w-"))
		return ACC_W;
	if (!strcmp(a, "--x"))
		return ACC_X;
	if (!strcmp(a, "---"))
		return 0;
	if (!strcmp(a, "r--")) {
		p->errs |= EB_EOPNOTSUPP;
		why(o, "r-- on x86");
		return ACC_R;
	}
	p->errs |= EB_EINVAL;
	why(o, "bad access '%.20s'", a);
	return ACC_RW;
}

/*
 * The rest of an entry once its TARGET is resolved (@ti): a set of @access
 * with LEN @len (@has_len: the entry gave one) as the doc allows it.
 */
static void entry_set(struct parsed *p, struct outcome *o, const struct tinfo *tip,
		      unsigned int access, bool has_len, unsigned long len)
{
	const struct tinfo ti = *tip;
	struct fsym *s = ti.s;
	unsigned long addr = p->spec.addr;

	/* A per-CPU variable's address is an offset, no user address. */
	if (!p->spec.percpu && is_user_addr(addr)) {
		p->errs |= EB_EINVAL;
		why(o, "user-space address 0x%lx", addr);
		return;
	}
	if (!s) {
		size_t i;

		for (i = 0; i < NR_BAD_ADDRS; i++)
			if (bad_addrs[i] == addr)
				break;
		if (i == NR_BAD_ADDRS) {
			fprintf(stderr, "ksym-fuzz: internal: the generator made an address the model does not know: 0x%lx\n",
				addr);
			exit(2);
		}
		/* Just above user space is a guard page, refused either way. */
		p->errs |= EB_EFAULT | EB_EINVAL;
		why(o, "no kernel memory at 0x%lx", addr);
		return;
	}

	/* Doc: a /LEN larger than the field is refused. */
	if (has_len && len && ti.typed && ti.size > 0 && len > (unsigned long)ti.size &&
	    (access != ACC_X || rule_exec_len_checked())) {
		p->errs |= EB_EINVAL;
		why(o, "LEN %lu larger than the field's %ld bytes", len, ti.size);
	}
	if (access == ACC_X) {
		if (has_len && len && len != sizeof(long)) {
			p->errs |= EB_EINVAL;
			why(o, "--x with LEN %lu", len);
		}
		if (!s->text || p->spec.percpu) {
			p->errs |= EB_EINVAL;
			why(o, "--x on data");
		}
		len = sizeof(long);
	} else if (!has_len) {
		/* Doc: the size only for a symbol or a field, not +OFFSET or 0xADDRESS. */
		if (ti.size < 0) {
			fprintf(stderr, "ksym-fuzz: internal: default LEN of %s unknown\n",
				s->name);
			exit(2);
		}
		len = ti.hexform ? 0 : default_len(addr, ti.size);
		if (!len) {
			p->errs |= EB_EINVAL;
			why(o, "no /LEN and no default");
		}
	}
	p->spec.len = len;
	if (access != ACC_X && len && addr % len) {
		p->errs |= EB_EINVAL;
		why(o, "0x%lx not aligned to %lu", addr, len);
	}
	if (s->initmem) {
		/* Issue 8 item 2: freed init memory must be refused. */
		p->errs |= EB_EFAULT;
		why(o, "%s is freed init memory", s->name);
	}
	if (!p->errs)
		p->op = OP_SET;
}

static void parse_entry(const char *tok, size_t toklen, struct parsed *p,
			struct outcome *o)
{
	char buf[ENTRY_MAX + 1];
	char *at, *colon, *slash;
	unsigned long len = 0;
	bool has_len = false, has_at = false;
	struct tinfo ti;
	unsigned int access = 0;

	memset(p, 0, sizeof(*p));
	p->op = OP_ERR;
	if (toklen >= ENTRY_MAX) {
		p->errs = EB_E2BIG;
		why(o, "entry of %zu characters", toklen);
		return;
	}
	memcpy(buf, tok, toklen);
	buf[toklen] = '\0';
	if (!strcmp(buf, "0") || !strcmp(buf, "*:---")) {
		p->op = OP_CLEAR;
		return;
	}

	at = strchr(buf, '@');
	if (at) {
		*at = '\0';
		has_at = true;
		if (!parse_cpulist(at + 1, &p->spec.cpus) || !p->spec.cpus ||
		    (p->spec.cpus & ~cpus_possible)) {
			p->errs |= EB_EINVAL;
			why(o, "bad CPU list '%s'", at + 1);
		}
	}
	colon = strrchr(buf, ':');
	if (!colon || colon == buf) {
		p->errs |= EB_EINVAL;
		why(o, "'%.40s': no TARGET:ACCESS", buf);
		return;
	}
	*colon = '\0';
	access = parse_access(colon + 1, p, o);
	if (!access && has_at) {
		p->errs |= EB_EINVAL;
		why(o, "--- with a CPU list");
	}

	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		has_len = true;
		if (!parse_num(slash + 1, 0, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != 8)) {
			p->errs |= EB_EINVAL;
			why(o, "bad LEN '%.20s'", slash + 1);
			len = 0;
		}
	}
	if (!*buf) {
		p->errs |= EB_EINVAL;
		why(o, "empty TARGET");
		return;
	}
	if (!resolve_target(buf, p, o, &ti))
		return;
	p->spec.access = access;

	if (!access) {
		if (!p->errs)
			p->op = OP_REMOVE;
		return;
	}

	entry_set(p, o, &ti, access, has_len, len);
}

/* ==== RULES UNDER REVISION (issue 8); the lead's fixes decide them ==== */

/*
 * Item 1: a write (a set of complete lines, or what close() applies) with
 * no entry at all, e.g. a blank line. "0" and "*:---" are entries
 * (OP_CLEAR). Fixed rule: accepted, nothing changes. -L: clears every
 * watch (the old docs, and the bug item 1 reports).
 */
static void rule_entryless(const struct model *cur, struct outcome *o)
{
	o->ok = true;
	if (opt.legacy_blank) {
		o->after.nr = 0;
		why(o, "no entry: clears (legacy -L)");
		return;
	}
	o->after = *cur;
	why(o, "no entry: changes nothing");
}

/*
 * Item 6: a write(2) with a NUL byte anywhere is refused with EINVAL and
 * changes nothing (its unterminated data is dropped as with any error).
 */
static bool rule_nul(const char *buf, size_t n)
{
	return memchr(buf, '\0', n) != NULL;
}

/*
 * '#' starts a comment that runs to the end of the line (the read-back
 * marks incomplete watches with one). Blanks it in place.
 */
static void rule_comments(char *text, size_t n)
{
	size_t i;
	bool in = false;

	for (i = 0; i < n; i++) {
		if (text[i] == '#')
			in = true;
		else if (text[i] == '\n')
			in = false;
		if (in)
			text[i] = ' ';
	}
}

/*
 * A file opened with O_TRUNC ("echo > ksym_trace_filter") and closed with
 * nothing but blanks written clears every watch, as truncating
 * set_ftrace_filter does. A byte that is not blank (a comment's too) or a
 * refused write(2) counts as written: rule_wrote().
 */
static bool rule_trunc_clears(bool trunc, bool wrote)
{
	return trunc && !wrote;
}

bool rule_wrote(const char *buf, size_t n, bool refused)
{
	size_t i;

	if (refused)
		return true;
	for (i = 0; i < n; i++)
		if (!is_sep(buf[i]))
			return true;
	return false;
}

/*
 * SYMBOL+OFFSET names no size, so it needs /LEN (doc, "LEN"; also after a
 * path). The kernel takes "+0" for no offset: the symbol's or the field's
 * size stands. (The doc does not say; this follows the kernel.)
 */
bool rule_offset_unsized(unsigned long off)
{
	return off != 0;
}

/*
 * 0xADDRESS:--- where ADDRESS is a per-CPU variable's offset: by default
 * it is no per-CPU watch's address (a per-CPU watch is the variable's);
 * -A: the kernel matches watches by the number alone and removes the
 * per-CPU watch.
 */
static bool rule_percpu_alias(void)
{
	return opt.percpu_alias;
}

/*
 * --x on a field smaller than sizeof(long), e.g. "(struct ksym_hitgen_rec)
 * ksym_hitgen_read.flags:--x": accepted, and read back with --x's LEN,
 * ".../8:--x". Written back, that /8 is "larger than the field" (doc) and
 * refused, though the doc says the read-back can be written back as it
 * is. true: the field check applies to --x's LEN too (the kernel at
 * 0759b2d); false: it does not, and the read-back can be written back
 * (the kernel since: an execute watch's LEN is the instruction word's).
 */
bool exec_len_checked;

	/* the self-test tries the other way */

bool rule_exec_len_checked(void)
{
	return exec_len_checked;
}

/* ==== end of the rules under revision ==== */

bool is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' ||
	       c == '\f';
}

/*
 * The end of the entry at text[i]: the next blank, but for spaces and tabs
 * inside a cast's parentheses (doc: "blanks inside it are part of the
 * entry"). A '(' anywhere opens, a ')' closes.
 */
static size_t entry_end(const char *text, size_t i, size_t n)
{
	bool in_cast = false;

	for (; i < n; i++) {
		if (text[i] == '(')
			in_cast = true;
		else if (text[i] == ')')
			in_cast = false;
		else if (is_sep(text[i]) && !(in_cast && (text[i] == ' ' || text[i] == '\t')))
			break;
	}
	return i;
}

/* Per CPU, the watches there: a per-CPU watch takes a slot too. */
static int slots_used(const struct model *m, int cpu)
{
	int i, n = 0;

	for (i = 0; i < m->nr; i++)
		if (!m->w[i].cpus || (m->w[i].cpus & (1ULL << cpu)))
			n++;
	return n;
}

/*
 * One write's worth of entries (the text of its complete lines, or the
 * data close() applies), all or nothing.
 */
/* The parsed entries @ps applied to @m, in order: false when one is refused. */
static bool model_apply(struct model *m, const struct parsed *ps, size_t nps,
			struct outcome *o)
{
	size_t i;

	for (i = 0; i < nps; i++) {
		struct spec *w;

		switch (ps[i].op) {
		case OP_CLEAR:
			m->nr = 0;
			break;
		case OP_REMOVE:
			w = model_find(m, ps[i].spec.addr, ps[i].spec.percpu);
			if (!w && rule_percpu_alias())
				w = model_find(m, ps[i].spec.addr, !ps[i].spec.percpu);
			if (!w) {
				o->ok = false;
				o->errs |= EB_ENOENT;
				why(o, "removing %s: no such watch", ps[i].spec.target);
				return false;
			}
			*w = m->w[--m->nr];
			break;
		case OP_SET:
			w = model_find(m, ps[i].spec.addr, ps[i].spec.percpu);
			if (!w) {
				if (m->nr >= MAX_WATCHES) {
					o->ok = false;
					o->errs |= EB_ENOSPC;
					why(o, "more than %d watches", MAX_WATCHES);
					return false;
				}
				w = &m->w[m->nr++];
			}
			*w = ps[i].spec;
			break;
		case OP_ERR:
			break;
		}
	}
	return true;
}

/* The debug registers each online CPU needs: ENOSPC past HW_SLOTS. */
static void model_slots(const struct model *m, struct outcome *o)
{
	int cpu, k;

	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		if (!(cpus_online & (1ULL << cpu)))
			continue;
		k = slots_used(m, cpu);
		if (k > HW_SLOTS) {
			o->ok = false;
			o->errs |= EB_ENOSPC;
			why(o, "%d watches on CPU %d", k, cpu);
			break;
		}
		if (k == HW_SLOTS && opt.mode == MODE_RACE) {
			/* The racing writer may hold the last register. */
			o->errs |= EB_ENOSPC;
			why(o, "4 watches on CPU %d: racer decides", cpu);
		}
	}
}

void model_txn(const struct model *cur, const char *otext, size_t n,
		      struct outcome *o)
{
	struct parsed *ps = NULL;
	size_t i = 0, nps = 0;
	unsigned int perrs = 0;
	struct model *m = &o->after;
	char *text;

	ps = calloc(n / 2 + 2, sizeof(*ps));
	text = malloc(n + 1);
	if (!ps || !text) {
		perror("ksym-fuzz: calloc");
		exit(2);
	}
	memcpy(text, otext, n);
	rule_comments(text, n);
	while (i < n) {
		size_t start;

		while (i < n && is_sep(text[i]))
			i++;
		if (i >= n)
			break;
		start = i;
		i = entry_end(text, i, n);
		parse_entry(text + start, i - start, &ps[nps], o);
		perrs |= ps[nps].errs;
		nps++;
	}
	o->entries = nps;
	if (!nps) {
		rule_entryless(cur, o);
		goto out;
	}
	if (RULE_MAX_ENTRIES && nps > RULE_MAX_ENTRIES) {
		o->ok = false;
		o->errs |= EB_E2BIG;
		why(o, "%zu entries", nps);
	}
	if (perrs || o->errs) {
		o->ok = false;
		o->errs |= perrs;
		goto out;
	}

	*m = *cur;
	if (!model_apply(m, ps, nps, o))
		goto out;
	o->ok = true;
	model_slots(m, o);
out:
	free(text);
	free(ps);
}

/* A write(2) of buf[0..n) on a descriptor holding pend[0..*plen) unapplied. */
void model_write(const struct model *cur, const char *pend, size_t plen,
			const char *buf, size_t n, struct outcome *o)
{
	char *all;
	size_t tot = plen + n, last;

	memset(o, 0, sizeof(*o));
	o->after = *cur;
	if (!n) {
		o->ok = true;
		return;
	}
	if (plen + n >= WRITE_MAX) {
		o->errs |= EB_E2BIG;
		why(o, "%zu bytes with what is pending", plen + n);
	}
	if (rule_nul(buf, n)) {
		o->errs |= EB_EINVAL;
		why(o, "NUL byte");
	}
	if (o->errs)
		return;
	all = malloc(tot + 1);
	if (!all) {
		perror("ksym-fuzz: malloc");
		exit(2);
	}
	memcpy(all, pend, plen);
	memcpy(all + plen, buf, n);
	for (last = tot; last && all[last - 1] != '\n'; last--)
		;
	if (!last) {
		o->ok = true;	/* an unterminated entry waits */
	} else {
		model_txn(cur, all, last - 1, o);
	}
	free(all);
}

/* The pending data after an outcome: the tail after the last newline, or none on failure. */
size_t pending_after(char *pend, size_t plen, const char *buf, size_t n,
			    bool succeeded)
{
	size_t i, last = 0;

	if (!succeeded || !n)
		return succeeded ? plen : 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\n')
			last = i + 1;
	if (!last) {
		memcpy(pend + plen, buf, n);
		return plen + n;
	}
	memmove(pend, buf + last, n - last);
	return n - last;
}

/* close(2) applies what is pending, newline or not. */
void model_close(const struct model *cur, const char *pend, size_t plen,
			bool trunc, bool wrote, struct outcome *o)
{
	memset(o, 0, sizeof(*o));
	o->after = *cur;
	o->ok = true;
	if (plen)
		model_txn(cur, pend, plen, o);
	if (o->entries)
		wrote = true;
	if (o->ok && rule_trunc_clears(trunc, wrote)) {
		o->after.nr = 0;
		why(o, "opened with O_TRUNC, nothing written: clears");
	}
}

/* ------------------------------------------------------------------------
 * Escaping for reports
 */

void escape(FILE *f, const char *s, size_t n, size_t max)
{
	size_t i;

	for (i = 0; i < n && i < max; i++) {
		unsigned char c = s[i];

		if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c == '\\')
			fputs("\\\\", f);
		else if (c == '\'')
			fputs("\\047", f);
		else if (c == '%')
			fputs("%%", f);
		else if (c < 32 || c >= 127)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	if (n > max)
		fprintf(f, "...(%zu bytes in all)", n);
}
