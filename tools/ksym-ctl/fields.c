// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl fields: the members of a variable or type, with offsets and
 * sizes, from BTF (fields.h).
 *
 * The paths follow the kernel's own walk (kernel/trace/trace_ksym_btf.c):
 * typedefs and qualifiers are looked through, ".MEMBER" also finds the
 * members of anonymous structs and unions by their own names (as
 * btf_find_struct_member() does), "[N]" indexes arrays, and a bit-field is
 * watched in the bytes that hold it. BTF is read with libbpf; Debian's
 * pahole gives a BTF_KIND_VAR to per-CPU variables only, so any other
 * global is reached through a cast to its type.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include <json.h>

#include "btf_check.h"
#include "fields.h"
#include "ksym-ctl.h"
#include "utils.h"

#define NAME_MAX_LEN	128
#define MEMBER_MAX_LEN	512	/* KSYM_NAME_LEN, as the kernel's parser */
#define PATH_MAX_LEN	1024
/*
 * Rows of one lookup: -r over the kernel's largest structs makes some
 * thousands; hostile BTF nesting the same struct many times over, more
 * than memory holds.
 */
#define ROWS_MAX	(1 << 18)

/* The argument taken apart: [(KW TYPE)][MOD:]SYMBOL[PATH] or [KW ]TYPE[PATH]. */
struct fields_arg {
	char		kw[8];		/* "struct", "union" or "" */
	char		type[NAME_MAX_LEN];	/* after KW, in a cast or alone */
	bool		cast;
	char		module[NAME_MAX_LEN];
	char		sym[NAME_MAX_LEN];	/* SYMBOL, or a TYPE without KW */
	const char	*path;		/* ".cfs.nr_running", "[2]", "" */
};

struct fields_ctx {
	const struct btf	*btf;
	struct btf_dump		*dump;
	FILE			*decl;		/* where dump prints */
	int			depth;
	struct fields		*fs;
	int			err;
};

static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	int r = btf__resolve_type(btf, id);

	return r < 0 ? NULL : btf__type_by_id(btf, r);
}

static int ident_len(const char *s)
{
	int n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

static const char *skip_blanks(const char *s)
{
	while (isblank((unsigned char)*s))
		s++;
	return s;
}

/* "struct" or "union" and a blank at @s: its length, else 0. */
static int keyword(const char *s)
{
	if (!strncmp(s, "struct", 6) && isblank((unsigned char)s[6]))
		return 6;
	if (!strncmp(s, "union", 5) && isblank((unsigned char)s[5]))
		return 5;
	return 0;
}

static int copy_name(char *dst, const char *s, int n)
{
	if (n <= 0 || n >= NAME_MAX_LEN)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

/* Checks PATH's grammar: ".MEMBER" and "[INDEX]" steps, nothing else. */
static int check_path(const char *arg, const char *p)
{
	char *end;

	while (*p) {
		if (*p == '.' && ident_len(p + 1)) {
			p += 1 + ident_len(p + 1);
		} else if (*p == '[' && isdigit((unsigned char)p[1])) {
			strtoul(p + 1, &end, 0);
			if (*end != ']')
				goto bad;
			p = end + 1;
		} else {
			goto bad;
		}
	}
	return 0;
bad:
	err_msg("'%s': expected .MEMBER or [INDEX] at '%s'\n", arg, p);
	return -1;
}

static int parse_arg(const char *arg, struct fields_arg *a)
{
	const char *p = skip_blanks(arg);
	int n;

	memset(a, 0, sizeof(*a));
	if (*p == '(') {
		p = skip_blanks(p + 1);
		n = keyword(p);
		if (!n)
			goto bad_cast;
		memcpy(a->kw, p, n);
		p = skip_blanks(p + n);
		if (copy_name(a->type, p, ident_len(p)))
			goto bad_cast;
		p = skip_blanks(p + ident_len(p));
		if (*p != ')')
			goto bad_cast;
		p++;
		a->cast = true;
	} else if ((n = keyword(p))) {
		memcpy(a->kw, p, n);
		p = skip_blanks(p + n);
		if (copy_name(a->type, p, ident_len(p))) {
			err_msg("'%s': expected a name after '%s'\n", arg, a->kw);
			return -1;
		}
		a->path = p + ident_len(p);
		return check_path(arg, a->path);
	}
	n = ident_len(p);
	if (n && p[n] == ':') {
		if (copy_name(a->module, p, n))
			goto bad_name;
		p += n + 1;
		n = ident_len(p);
	}
	if (copy_name(a->sym, p, n))
		goto bad_name;
	a->path = p + n;
	return check_path(arg, a->path);
bad_cast:
	err_msg("'%s': expected (struct TYPE) or (union TYPE) before the symbol\n", arg);
	return -1;
bad_name:
	err_msg("'%s': expected a symbol or type name\n", arg);
	return -1;
}

static void dump_printf(void *ctx, const char *fmt, va_list ap)
{
	vfprintf(*(FILE **)ctx, fmt, ap);
}

/*
 * The C type of @id when it is, through pointers, modifiers and arrays
 * (BTF_CHAIN_MAX at most), an anonymous struct, union or enum: "struct {...}",
 * "const union {...} *", "struct {...} (*)[4]", spelled here so that
 * libbpf never prints such a body: it would print all of it, a "long: 64;"
 * line for each 8 bytes of padding included (minutes for a crafted 1 GB
 * one), before type_decl() cuts it. NULL when @id is no such type.
 */
static char *anon_decl(const struct btf *btf, __u32 id, const char *dims)
{
	char decl[1024] = "", tmp[1024], quals[64] = "", *out;
	const struct btf_type *t;
	size_t len;
	int steps;

	for (steps = 0; steps < BTF_CHAIN_MAX && id; steps++) {
		t = btf__type_by_id(btf, id);
		if (!t)
			return NULL;
		switch (btf_kind(t)) {
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
			len = strlen(quals);
			snprintf(quals + len, sizeof(quals) - len, "%s ",
				 btf_is_const(t) ? "const" :
				 btf_is_volatile(t) ? "volatile" : "restrict");
			id = t->type;
			break;
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_PTR:
			/* qualifiers met before a pointer are the pointer's own */
			snprintf(tmp, sizeof(tmp), "*%s%s", quals, decl);
			memcpy(decl, tmp, sizeof(decl));
			quals[0] = '\0';
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			if (decl[0] == '*') {
				snprintf(tmp, sizeof(tmp), "(%s)", decl);
				memcpy(decl, tmp, sizeof(decl));
			}
			len = strlen(decl);
			snprintf(decl + len, sizeof(decl) - len, "[%u]", btf_array(t)->nelems);
			id = btf_array(t)->type;
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			if (t->name_off)
				return NULL;
			len = strlen(decl);
			while (len && decl[len - 1] == ' ')
				decl[--len] = '\0';
			if (asprintf(&out, "%s%s {...}%s%s%s", quals,
				     btf_is_union(t) ? "union" :
				     btf_is_struct(t) ? "struct" : "enum",
				     len ? " " : "", decl, dims) < 0)
				return NULL;
			return out;
		default:
			return NULL;
		}
	}
	return NULL;
}

/*
 * The C type of @id, with the body of an anonymous struct or union as {...}.
 * The short form is written to a second buffer: "{" becomes "{...}", so it
 * can be longer than the declaration it shortens ("struct {}", an empty
 * struct as DECLARE_FLEX_ARRAY makes them).
 */
static char *type_decl(struct fields_ctx *c, __u32 id, const char *dims)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, opts, .field_name = "");
	char *decl = NULL, *out = NULL;
	size_t decl_len = 0, out_len = 0;
	const char *q;
	FILE *f;
	int depth = 0;

	out = anon_decl(c->btf, id, dims);
	if (out)
		return out;
	c->decl = open_memstream(&decl, &decl_len);
	if (!c->decl)
		return NULL;
	btf_dump__emit_type_decl(c->dump, id, &opts);
	fputs(dims, c->decl);
	fclose(c->decl);
	c->decl = NULL;
	if (!decl)
		return NULL;
	f = open_memstream(&out, &out_len);
	if (!f)
		goto out;
	for (q = decl; *q; q++) {
		if (*q == '{' && !depth++)
			fputs("{...", f);
		else if (*q == '}' && depth && !--depth)
			fputc('}', f);
		else if (!depth)
			fputc(*q, f);
	}
	if (fclose(f)) {
		free(out);
		out = NULL;
	}
out:
	free(decl);
	return out;
}

static int add_row(struct fields_ctx *c, const struct field_row *row)
{
	struct fields *fs = c->fs;
	struct field_row *rows;

	if (fs->nr_rows >= ROWS_MAX) {
		if (!c->err)
			err_msg("over %d fields: name a member, or give a smaller --depth\n",
				ROWS_MAX);
		c->err = -1;
		return -1;
	}
	rows = realloc(fs->rows, (fs->nr_rows + 1) * sizeof(*rows));
	if (!rows) {
		c->err = -1;
		return -1;
	}
	fs->rows = rows;
	rows[fs->nr_rows++] = *row;
	return 0;
}

static void list_type(struct fields_ctx *c, __u32 id, __u64 bits,
		      const char *prefix, int level);

/*
 * One member, or what a path names: its row, then its own members when it
 * is a struct or union (of an array, those of element [0]) and @level is
 * within the depth.
 */
static void list_item(struct fields_ctx *c, const char *path, __u32 id,
		      __u64 bits, __u32 bitfield, int level)
{
	const struct btf_type *t = resolved(c->btf, id);
	struct field_row row = { 0 };
	char dims[64] = "", idx[64] = "";
	size_t dl = 0, il = 0;
	__u32 elem = id;
	__s64 size;

	while (!bitfield && t && btf_is_array(t)) {
		const struct btf_array *arr = btf_array(t);

		dl += snprintf(dims + dl, sizeof(dims) - dl, "[%u]", arr->nelems);
		il += snprintf(idx + il, sizeof(idx) - il, "[0]");
		if (dl >= sizeof(dims) || il >= sizeof(idx))
			break;
		row.elems = row.array ? row.elems * arr->nelems : arr->nelems;
		row.array = true;
		elem = arr->type;
		t = resolved(c->btf, elem);
	}
	if (asprintf(&row.path, "%s%s", path, idx) < 0) {
		c->err = -1;
		return;
	}
	row.type = type_decl(c, elem, dims);
	row.offset = bits / 8;
	if (bitfield) {
		row.bit_offset = bits % 8;
		row.bit_size = bitfield;
		row.size = (row.bit_offset + bitfield + 7) / 8;
	} else {
		size = btf__resolve_size(c->btf, elem);
		row.size = size < 0 ? 0 : size;
	}
	if (!row.type || add_row(c, &row)) {
		free(row.path);
		free(row.type);
		c->err = -1;
		return;
	}
	if (!bitfield && t && btf_is_composite(t) && level < c->depth)
		list_type(c, elem, bits, c->fs->rows[c->fs->nr_rows - 1].path,
			  level + 1);
}

/* The members of struct or union @id at @bits, anonymous ones flattened. */
static void list_type(struct fields_ctx *c, __u32 id, __u64 bits,
		      const char *prefix, int level)
{
	const struct btf_type *t = resolved(c->btf, id), *mt;
	const struct btf_member *m;
	char path[PATH_MAX_LEN], *pfx;
	int i;

	if (!t || !btf_is_composite(t))
		return;
	/* @prefix may be a row's path, which add_row() may move. */
	pfx = strdup(prefix);
	if (!pfx) {
		c->err = -1;
		return;
	}
	for (i = 0, m = btf_members(t); i < btf_vlen(t) && !c->err; i++, m++) {
		__u64 b = bits + btf_member_bit_offset(t, i);

		if (!m->name_off) {
			mt = resolved(c->btf, m->type);
			if (mt && btf_is_composite(mt))
				list_type(c, m->type, b, pfx, level);
			continue;	/* else padding: an unnamed bit-field */
		}
		snprintf(path, sizeof(path), "%s.%s", pfx,
			 btf__name_by_offset(c->btf, m->name_off));
		list_item(c, path, m->type, b, btf_member_bitfield_size(t, i),
			  level);
	}
	free(pfx);
}

/*
 * Member @name of struct or union @t, or of its anonymous members (by their
 * own names, as the kernel's btf_find_struct_member() finds them): adds its
 * offset to *@bits and sets *@bitfield.
 */
static const struct btf_member *find_member(const struct btf *btf,
					    const struct btf_type *t,
					    const char *name, __u64 *bits,
					    __u32 *bitfield)
{
	const struct btf_member *m = btf_members(t), *found;
	const struct btf_type *mt;
	int i, n = btf_vlen(t);
	__u64 b;

	for (i = 0; i < n; i++)
		if (m[i].name_off &&
		    !strcmp(btf__name_by_offset(btf, m[i].name_off), name)) {
			*bits += btf_member_bit_offset(t, i);
			*bitfield = btf_member_bitfield_size(t, i);
			return &m[i];
		}
	for (i = 0; i < n; i++) {
		if (m[i].name_off)
			continue;
		mt = resolved(btf, m[i].type);
		if (!mt || !btf_is_composite(mt))
			continue;
		b = *bits + btf_member_bit_offset(t, i);
		found = find_member(btf, mt, name, &b, bitfield);
		if (found) {
			*bits = b;
			return found;
		}
	}
	return NULL;
}

/* Where a path leads: its type, bits from the start and bit-field size. */
struct spot {
	__u32	id;
	__u64	bits;
	__u32	bitfield;
};

/*
 * Walks @path from @s, appending its canonical spelling to @canon; messages
 * name it after @label (a type's name, when @canon starts empty).
 */
static int walk(struct fields_ctx *c, const char *label, const char *path,
		struct spot *s, char *canon, size_t size)
{
	const struct btf_type *t;
	const struct btf_member *m;
	char name[MEMBER_MAX_LEN], *end, *decl;
	unsigned long idx;
	size_t n = strlen(canon);
	__s64 esize;
	int len;

	while (*path) {
		t = resolved(c->btf, s->id);
		decl = type_decl(c, s->id, "");
		if (s->bitfield) {
			err_msg("%s%s is a bit-field: it has no members or elements\n",
				label, canon);
			goto fail;
		}
		if (*path == '.') {
			len = ident_len(path + 1);
			if (len >= MEMBER_MAX_LEN) {
				err_msg("%s%s: member name of %d characters: too long\n",
					label, canon, len);
				goto fail;
			}
			memcpy(name, path + 1, len);
			name[len] = '\0';
			if (!t || !btf_is_composite(t)) {
				err_msg("%s%s is %s, not a struct or union: it has no member '%s'%s\n",
					label, canon, decl ? decl : "?", name,
					t && btf_is_ptr(t) ? " (a filter path does not follow pointers)" : "");
				goto fail;
			}
			m = find_member(c->btf, t, name, &s->bits, &s->bitfield);
			if (!m) {
				err_msg("%s%s (%s) has no member '%s'\n", label,
					canon, decl ? decl : "?", name);
				goto fail;
			}
			s->id = m->type;
			n += snprintf(canon + n, size - n, ".%s", name);
			path += 1 + len;
		} else {
			idx = strtoul(path + 1, &end, 0);
			if (!t || !btf_is_array(t)) {
				err_msg("%s%s is %s, not an array%s\n", label,
					canon, decl ? decl : "?",
					t && btf_is_ptr(t) ? " (a filter path does not follow pointers)" : "");
				goto fail;
			}
			if (idx >= btf_array(t)->nelems) {
				err_msg("%s%s has %u elements: [%lu] is out of range\n",
					label, canon, btf_array(t)->nelems, idx);
				goto fail;
			}
			esize = btf__resolve_size(c->btf, btf_array(t)->type);
			if (esize < 0) {
				err_msg("%s%s: elements of unknown size\n", label, canon);
				goto fail;
			}
			s->bits += idx * esize * 8;
			s->id = btf_array(t)->type;
			n += snprintf(canon + n, size - n, "[%lu]", idx);
			path = end + 1;
		}
		free(decl);
		if (n >= size) {
			err_msg("%s%s: path too long\n", label, canon);
			return -1;
		}
	}
	return 0;
fail:
	free(decl);
	return -1;
}

/* Is @name a kernel symbol (/proc/kallsyms)? For the messages only. */
static bool kallsyms_has(const char *name)
{
	char line[512], *sym;
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		sym = strchr(line, ' ');
		sym = sym ? strchr(sym + 1, ' ') : NULL;
		if (sym && !strncmp(sym + 1, name, strlen(name)) &&
		    strchr("\t\n", sym[1 + strlen(name)]))
			found = true;
	}
	fclose(f);
	return found;
}

static void no_such_name(const char *btf_path, const struct fields_arg *a)
{
	bool sys = !strcmp(btf_path, FIELDS_BTF);

	if (sys && kallsyms_has(a->sym))
		err_msg("'%s' is a kernel symbol, but %s has no variable of that name:\n",
			a->sym, btf_path);
	else
		err_msg("no variable, struct, union or typedef named '%s' in %s, nor in its modules' BTF\n",
			a->sym, btf_path);
	err_msg("BTF types only per-CPU variables (as Debian's pahole makes it). For\n"
		"another global variable, name its type and cast to it, as in:\n"
		"  ksym-ctl fields task_struct          (the members of struct task_struct)\n"
		"  (struct task_struct)init_task.flags  (a ksym_trace_filter TARGET)\n");
}

/* A struct, union or typedef named @name (@kw: "struct", "union" or ""). */
static __s32 find_type(const struct btf *btf, const char *kw, const char *name)
{
	__s32 id = -1;

	if (strcmp(kw, "union"))
		id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);
	if (id < 0 && strcmp(kw, "struct"))
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	if (id < 0 && !*kw)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF);
	return id;
}

/* Is VAR @id in the per-CPU data section? */
static bool var_is_percpu(const struct btf *btf, __s32 id)
{
	__u32 i, j, n = btf__type_cnt(btf);

	for (i = 1; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(btf, i);
		const struct btf_var_secinfo *v;

		if (!btf_is_datasec(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off), ".data..percpu"))
			continue;
		for (j = 0, v = btf_var_secinfos(t); j < btf_vlen(t); j++, v++)
			if ((__s32)v->type == id)
				return true;
	}
	return false;
}

/*
 * How a variable of type @id is cast to: "(struct NAME)", from the struct
 * or union it is once typedefs are looked through; NULL when it has no name.
 */
static char *cast_of(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = resolved(btf, id);
	const char *name;
	char *s;

	if (!t || !btf_is_composite(t))
		return NULL;
	name = btf__name_by_offset(btf, t->name_off);
	if (!name || !*name)
		return NULL;
	if (asprintf(&s, "(%s %s)", btf_is_union(t) ? "union" : "struct", name) < 0)
		return NULL;
	return s;
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (config_debug && level != LIBBPF_DEBUG) {
		fputs("ksym-ctl debug: ", stderr);
		return vfprintf(stderr, fmt, ap);
	}
	return 0;
}

/* Does @btf have what @a names: its variable (@var), else its type? */
static bool btf_names(const struct btf *btf, const struct fields_arg *a, bool var)
{
	if (var)
		return a->sym[0] && btf__find_by_name_kind(btf, a->sym, BTF_KIND_VAR) >= 0;
	return find_type(btf, a->kw, a->cast || a->kw[0] ? a->type : a->sym) >= 0;
}

/* Raw BTF (its magic first), as the files of /sys/kernel/btf are. */
static bool is_raw_btf(const char *path)
{
	unsigned char magic[2] = { 0 };
	FILE *f = fopen(path, "r");
	bool raw;

	if (!f)
		return false;
	raw = fread(magic, 1, 2, f) == 2 &&
	      ((magic[0] == 0x9f && magic[1] == 0xeb) ||
	       (magic[0] == 0xeb && magic[1] == 0x9f));
	fclose(f);
	return raw;
}

/*
 * The BTF file @path (split on @base, a module's, when not NULL), checked
 * before anything uses it: `--btf FILE` reads any file, and Debian's libbpf
 * 1.1 crashes or hangs printing types the kernel would refuse
 * (btf_check.h). NULL with errno when it cannot be read; NULL and
 * *@malformed, with a message, when it is not sound.
 */
static struct btf *parse_checked(const char *path, struct btf *base,
				 bool *malformed)
{
	struct btf *btf = NULL;
	char why[256];

	*malformed = false;
	if (btf_check_file_header(path, why, sizeof(why)))
		goto bad;
	btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	if (!btf || !btf_check(btf, why, sizeof(why)))
		return btf;
	btf__free(btf);
bad:
	fprintf(stderr, "ksym-ctl fields: %s: malformed BTF: %s\n", path, why);
	*malformed = true;
	return NULL;
}

/*
 * The modules' BTF next to vmlinux's, split on @base, as the kernel looks
 * through them all: the first with the variable @a names, else (@type) the
 * first with its type. NULL when none has either; *@path is the file read.
 * NULL and *@malformed when one of them is not sound BTF.
 */
static struct btf *find_module_btf(const char *dir, const char *skip,
				   struct btf *base, const struct fields_arg *a,
				   bool type, char **path, bool *malformed)
{
	struct btf *found = NULL, *m;
	struct dirent **ents = NULL;
	char *p, *type_path = NULL;
	int i, n = scandir(dir, &ents, NULL, alphasort);

	*path = NULL;
	for (i = 0; i < n; i++) {
		if (found && *path)
			break;
		if (ents[i]->d_name[0] == '.' || !strcmp(ents[i]->d_name, skip) ||
		    asprintf(&p, "%s/%s", dir, ents[i]->d_name) < 0)
			continue;
		m = is_raw_btf(p) ? parse_checked(p, base, malformed) : NULL;
		if (*malformed) {
			free(p);
			btf__free(found);
			found = NULL;
			free(*path);
			*path = NULL;
			break;
		}
		if (m && btf_names(m, a, true)) {
			btf__free(found);
			free(type_path);
			type_path = NULL;
			found = m;
			*path = p;
			continue;
		}
		if (m && type && !found && btf_names(m, a, false)) {
			found = m;
			type_path = p;
			continue;
		}
		btf__free(m);
		free(p);
	}
	if (found && !*path)
		*path = type_path;
	else
		free(type_path);
	for (i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return found;
}

/*
 * The BTF to read for @a: @btf_path's (vmlinux, *@base); for MODULE:SYMBOL
 * the file MODULE next to it; for a name vmlinux's BTF does not have, the
 * module's that has it. *@used is the file read.
 */
static struct btf *load_btf(const char *btf_path, const struct fields_arg *a,
			    struct btf **base, char **used)
{
	char *dir = strdup(btf_path), *slash, *mpath = NULL;
	const char *skip = btf_path;
	struct btf *btf = NULL;
	bool has_var, has_type, malformed = false;

	*used = NULL;
	libbpf_set_print(libbpf_quiet);
	*base = parse_checked(btf_path, NULL, &malformed);
	if (malformed)
		goto out;
	if (!*base || !dir) {
		err_msg("%s: cannot read BTF: %s%s\n", btf_path, strerror(errno),
			!strcmp(btf_path, FIELDS_BTF) ?
			" (a kernel built with CONFIG_DEBUG_INFO_BTF has it)" : "");
		goto out;
	}
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		skip = slash + 1;
	}
	if (a->module[0]) {
		if (asprintf(&mpath, "%s/%s", slash ? dir : ".", a->module) < 0)
			goto out;
		btf = parse_checked(mpath, *base, &malformed);
		if (!btf && !malformed)
			err_msg("%s: cannot read the BTF of module %s: %s\n", mpath,
				a->module, strerror(errno));
		*used = mpath;
		mpath = NULL;
		goto out;
	}
	/*
	 * vmlinux's types come first. A cast's symbol is looked for in the
	 * modules too: a module's typed variable must match the cast.
	 */
	has_var = btf_names(*base, a, true);
	has_type = btf_names(*base, a, false);
	if (!has_var && (a->cast ? a->sym[0] : !has_type))
		btf = find_module_btf(slash ? dir : ".", skip, *base, a,
				      !has_type, used, &malformed);
	if (!btf && !malformed) {
		btf = *base;
		*used = strdup(btf_path);
	}
out:
	free(mpath);
	free(dir);
	return btf;
}

int fields_lookup(const char *btf_path, const char *arg, int depth,
		  struct fields *fs)
{
	struct fields_ctx c = { .depth = depth, .fs = fs };
	struct btf *btf = NULL, *base = NULL;
	struct fields_arg a;
	struct spot s = { 0 };
	char canon[PATH_MAX_LEN], label[NAME_MAX_LEN + 8] = "";
	__s32 var = -1, type = -1;
	__s64 size;
	int ret = -1;

	memset(fs, 0, sizeof(*fs));
	if (parse_arg(arg, &a))
		return -1;
	btf = load_btf(btf_path, &a, &base, &fs->btf);
	if (!btf || !fs->btf)
		goto cleanup;
	c.btf = btf;
	c.dump = btf_dump__new(btf, dump_printf, &c.decl, NULL);
	if (!c.dump) {
		err_msg("cannot print BTF types: %s\n", strerror(errno));
		goto cleanup;
	}

	if (a.sym[0])
		var = btf__find_by_name_kind(btf, a.sym, BTF_KIND_VAR);
	if (a.cast || a.kw[0] || var < 0) {
		type = find_type(btf, a.kw, a.cast || a.kw[0] ? a.type : a.sym);
		if (type < 0 && (a.cast || a.kw[0])) {
			err_msg("%s has no %s %s\n", btf_path, a.kw, a.type);
			goto cleanup;
		}
	}
	if (a.cast) {
		/* As the kernel: a typed symbol's cast must be its type. */
		if (var >= 0 && resolved(btf, btf__type_by_id(btf, var)->type) !=
				resolved(btf, type)) {
			err_msg("(%s %s) contradicts the type BTF gives %s\n",
				a.kw, a.type, a.sym);
			goto cleanup;
		}
		fs->kind = FIELDS_CAST;
		snprintf(canon, sizeof(canon), "(%s %s)%s%s%s", a.kw, a.type,
			 a.module, a.module[0] ? ":" : "", a.sym);
		s.id = type;
	} else if (var >= 0) {
		fs->kind = var_is_percpu(btf, var) ? FIELDS_PERCPU : FIELDS_VAR;
		snprintf(canon, sizeof(canon), "%s%s%s", a.module,
			 a.module[0] ? ":" : "", a.sym);
		s.id = btf__type_by_id(btf, var)->type;
	} else if (type >= 0 && !a.module[0]) {
		/* Paths of a type start at its members: ".flags". */
		const struct btf_type *t = btf__type_by_id(btf, type);

		if (!resolved(btf, type) || !btf_is_composite(resolved(btf, type))) {
			err_msg("%s is no struct or union: it has no members to watch\n",
				a.sym);
			goto cleanup;
		}
		fs->kind = FIELDS_TYPE;
		snprintf(label, sizeof(label), "%s%s",
			 btf_is_typedef(t) ? "" : btf_is_union(t) ? "union " : "struct ",
			 btf__name_by_offset(btf, t->name_off));
		canon[0] = '\0';
		s.id = type;
	} else {
		no_such_name(btf_path, &a);
		goto cleanup;
	}
	if (walk(&c, label, a.path, &s, canon, sizeof(canon)))
		goto cleanup;

	if (asprintf(&fs->target, "%s%s", label, canon) < 0)
		fs->target = NULL;
	fs->type = type_decl(&c, s.id, "");
	if (fs->kind == FIELDS_TYPE)
		fs->cast = cast_of(btf, type);
	fs->offset = s.bits / 8;
	size = s.bitfield ? (long)((s.bits % 8 + s.bitfield + 7) / 8) :
			    btf__resolve_size(btf, s.id);
	fs->size = size < 0 ? 0 : size;
	if (!fs->target || !fs->type)
		goto cleanup;

	/* A struct or union lists its members; anything else is one row. */
	if (!s.bitfield && resolved(btf, s.id) && btf_is_composite(resolved(btf, s.id)))
		list_type(&c, s.id, s.bits, canon, 0);
	else
		list_item(&c, canon, s.id, s.bits, s.bitfield, -1);
	ret = c.err;
cleanup:
	if (ret)
		fields_free(fs);
	btf_dump__free(c.dump);
	if (btf != base)
		btf__free(btf);
	btf__free(base);
	return ret;
}

static const char *kind_name(enum fields_kind k)
{
	switch (k) {
	case FIELDS_PERCPU:
		return "per-CPU variable";
	case FIELDS_VAR:
		return "variable";
	case FIELDS_CAST:
		return "variable cast to its type";
	default:
		return "type";
	}
}

static const char *kind_key(enum fields_kind k)
{
	static const char * const keys[] = {
		[FIELDS_PERCPU] = "percpu_variable", [FIELDS_VAR] = "variable",
		[FIELDS_CAST] = "cast", [FIELDS_TYPE] = "type",
	};

	return keys[k];
}

/* A member to show in the example: the first word-sized one, else the first. */
static const struct field_row *example_row(const struct fields *fs)
{
	int i;

	for (i = 0; i < fs->nr_rows; i++) {
		unsigned long sz = fs->rows[i].size;

		if (!fs->rows[i].bit_size && (sz == 1 || sz == 2 || sz == 4 || sz == 8))
			return &fs->rows[i];
	}
	return fs->nr_rows ? &fs->rows[0] : NULL;
}

/* The ksym_trace_filter TARGET of @row ("SYMBOL" in place of a variable's name). */
static void filter_target(FILE *f, const struct fields *fs,
			  const struct field_row *row)
{
	if (fs->kind == FIELDS_TYPE)
		fprintf(f, "%sSYMBOL%s", fs->cast ? fs->cast : "(struct ?)", row->path);
	else
		fputs(row->path, f);
}

void fields_print(FILE *f, const struct fields *fs, const char *btf_path)
{
	const struct field_row *ex = example_row(fs);
	int i, w = 0, arrays = 0;

	fprintf(f, "# %s: %s", fs->target, kind_name(fs->kind));
	if (fs->kind != FIELDS_TYPE || strcmp(fs->type, fs->target))
		fprintf(f, ", %s", fs->type);
	fprintf(f, ", %lu byte%s", fs->size, fs->size == 1 ? "" : "s");
	if (fs->offset)
		fprintf(f, " at offset 0x%lx", fs->offset);
	fprintf(f, " (BTF: %s)\n", btf_path);
	if (fs->kind == FIELDS_TYPE && !fs->cast)
		fprintf(f, "# no struct or union name to cast a variable to: ksym_trace_filter cannot name it\n");
	else if (fs->kind == FIELDS_TYPE)
		fprintf(f, "# for a variable SYMBOL of this type, a PATH is watched as %sSYMBOL.PATH\n",
			fs->cast);
	if (ex) {
		fputs("# e.g. echo '", f);
		filter_target(f, fs, ex);
		fputs(":rw-' >> /sys/kernel/tracing/ksym_trace_filter\n", f);
	}
	for (i = 0; i < fs->nr_rows; i++) {
		int len = strlen(fs->rows[i].path);

		if (len > w && len <= 60)
			w = len;
		arrays += fs->rows[i].array;
	}
	if (arrays)
		fputs("# an array shows its element [0]: element [i] is at offset + i * size\n", f);
	for (i = 0; i < fs->nr_rows; i++) {
		const struct field_row *r = &fs->rows[i];
		char off[32];

		snprintf(off, sizeof(off), "0x%lx", r->offset);
		fprintf(f, "%-*s  offset %-7s size %-5lu %s", w, r->path, off,
			r->size, r->type);
		if (r->bit_size)
			fprintf(f, "  (bit-field: %u bit%s from bit %u)", r->bit_size,
				r->bit_size == 1 ? "" : "s", r->bit_offset);
		fputc('\n', f);
	}
}

static const struct json_look rows_look = { 2, 0, NULL };

void fields_print_json(FILE *f, const struct fields *fs, const char *btf_path)
{
	const struct field_row *ex = example_row(fs);
	struct json_object *o = json_object_new_object(), *rows, *row;
	int i;

	if (!o)
		return;
	json_object_object_add(o, "btf", json_text(btf_path ? btf_path : ""));
	json_object_object_add(o, "target", json_text(fs->target ? fs->target : ""));
	json_object_object_add(o, "kind", json_text(kind_key(fs->kind)));
	json_object_object_add(o, "type", json_text(fs->type ? fs->type : ""));
	json_object_object_add(o, "offset", json_object_new_uint64(fs->offset));
	json_object_object_add(o, "size", json_object_new_uint64(fs->size));
	if (fs->cast)
		json_object_object_add(o, "cast", json_text(fs->cast));
	if (ex) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (m) {
			filter_target(m, fs, ex);
			fclose(m);
			json_object_object_add(o, "example", json_text(buf ? buf : ""));
			free(buf);
		}
	}
	rows = json_look(json_object_new_array(), &rows_look);
	json_object_object_add(o, "fields", rows);
	for (i = 0; rows && i < fs->nr_rows; i++) {
		const struct field_row *r = &fs->rows[i];

		row = json_object_new_object();
		json_object_object_add(row, "path", json_text(r->path ? r->path : ""));
		json_object_object_add(row, "offset", json_object_new_uint64(r->offset));
		json_object_object_add(row, "size", json_object_new_uint64(r->size));
		json_object_object_add(row, "type", json_text(r->type ? r->type : ""));
		if (r->array)
			json_object_object_add(row, "elements", json_object_new_uint64(r->elems));
		if (r->bit_size) {
			json_object_object_add(row, "bit_offset", json_object_new_int64(r->bit_offset));
			json_object_object_add(row, "bit_size", json_object_new_int64(r->bit_size));
		}
		json_object_array_add(rows, row);
	}
	json_print(f, o);
	fputc('\n', f);
	json_object_put(o);
}

void fields_free(struct fields *fs)
{
	int i;

	for (i = 0; i < fs->nr_rows; i++) {
		free(fs->rows[i].path);
		free(fs->rows[i].type);
	}
	free(fs->rows);
	free(fs->btf);
	free(fs->target);
	free(fs->cast);
	free(fs->type);
	memset(fs, 0, sizeof(*fs));
}

static void fields_usage(FILE *f)
{
	fprintf(f,
		"usage: ksym-ctl fields [-r] [--depth N] [--json] [--btf FILE] SYMBOL|TYPE[PATH]\n"
		"\n"
		"The members of a variable or of a struct or union type, with their\n"
		"offsets and sizes, from the kernel's BTF. The first column is a field\n"
		"path as ksym_trace_filter takes it: runqueues.nr_running for a per-CPU\n"
		"variable (BTF types only those), and for any other global a cast to its\n"
		"type, (struct task_struct)init_task.flags: name the TYPE to list its\n"
		"members. Members of anonymous structs and unions are listed under the\n"
		"path of their container, by their own names; an array shows its element\n"
		"[0]; PATH (.MEMBER, [INDEX]) lists what it names.\n"
		"\n"
		"options:\n"
		"  -r, --recursive     expand named struct and union members too\n"
		"  -D, --depth N       expand them N levels deep\n"
		"  -j, --json          print JSON\n"
		"  -b, --btf FILE      vmlinux's BTF (default %s);\n"
		"                      a name it lacks is looked for in the modules' next\n"
		"                      to it, MODULE:SYMBOL in that module's\n"
		"\n"
		"examples:\n"
		"  ksym-ctl fields runqueues\n"
		"  ksym-ctl fields runqueues.cfs\n"
		"  ksym-ctl fields task_struct          # then (struct task_struct)init_task.MEMBER\n"
		"  ksym-ctl fields '(struct task_struct)init_task.se'\n"
		"  ksym-ctl fields -r 'struct list_head'\n", FIELDS_BTF);
}

int fields_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "recursive", no_argument, NULL, 'r' },
		{ "depth", required_argument, NULL, 'D' },
		{ "json", no_argument, NULL, 'j' },
		{ "btf", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *btf_path = FIELDS_BTF;
	struct fields fs;
	int c, json = 0, depth = 0;
	long n;

	optind = 1;
	while ((c = getopt_long(argc, argv, "rD:jb:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			depth = FIELDS_DEPTH_MAX;
			break;
		case 'D':
			n = parse_count(optarg);
			if (n < 0 || n > FIELDS_DEPTH_MAX) {
				err_msg("--depth %s: not a depth from 1 to %d\n", optarg,
					FIELDS_DEPTH_MAX);
				return 1;
			}
			depth = n;
			break;
		case 'j':
			json = 1;
			break;
		case 'b':
			btf_path = optarg;
			break;
		case 'h':
			fields_usage(stdout);
			return 0;
		default:
			fields_usage(stderr);
			return 1;
		}
	}
	if (optind != argc - 1) {
		fields_usage(stderr);
		return 1;
	}
	if (fields_lookup(btf_path, argv[optind], depth, &fs))
		return 1;
	if (json)
		fields_print_json(stdout, &fs, fs.btf);
	else
		fields_print(stdout, &fs, fs.btf);
	fields_free(&fs);
	return 0;
}
