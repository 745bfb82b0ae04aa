// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_btf.c - the kernel's own types in ksym_trace_filter: a cast
 * "(struct TYPE)" and a field path ".FIELD[N]..." after a symbol, resolved
 * from vmlinux BTF (module BTF for module symbols) into an offset from the
 * symbol and the size of the field.
 *
 * pahole 1.24, which Debian 12 builds 6.12 with, gives BTF variables
 * (BTF_KIND_VAR) to per-CPU variables only: other symbols are typed by the
 * cast, and where BTF types the symbol a cast must agree with it.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "trace.h"
#include "trace_ksym.h"
#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS
#include "trace_btf.h"
#endif

#ifdef CONFIG_PROBE_EVENTS_BTF_ARGS

/* The part of "mod:sym" BTF names the variable by. */
static const char *ksym_btf_var_name(const char *sym)
{
	const char *colon = strchr(sym, ':');

	return colon ? colon + 1 : sym;
}

/*
 * Is the variable BTF found by @t's name the symbol's own? Names are not
 * unique: a module's per-CPU variable may share its name with a kernel
 * symbol or with another module's variable, and bpf_find_btf_id() returns
 * the first. It is the symbol's if @btf is vmlinux's for a kernel symbol,
 * or for a module's per-CPU variable the BTF of the module whose per-CPU
 * area holds @t->addr (module BTF has variables for per-CPU data only).
 * That module must also still be live: one that is going away is not
 * watched (its GOING notifier may have run, and ksym_mutex, held here,
 * keeps it from finishing otherwise).
 *
 * Return: 1 if it is, 0 if not, -ENOENT if its module is going away.
 */
static int ksym_btf_var_is_sym(const struct btf *btf,
			       const struct ksym_target *t, bool module_percpu)
{
	struct module *mod;
	int ret = 0;

	if (!module_percpu)
		return !btf_is_module(btf) &&
		       (t->percpu || !is_module_address(t->addr));
	if (!btf_is_module(btf))
		return 0;
	mod = btf_try_get_module(btf);
	if (!mod)
		return -ENOENT;
#ifdef CONFIG_SMP
	ret = t->addr >= (unsigned long)mod->percpu &&
	      t->addr < (unsigned long)mod->percpu + mod->percpu_size;
#endif
	module_put(mod);
	return ret;
}

/* The struct or union type a cast names, in @btf or any BTF. */
static s32 ksym_btf_find_cast(struct ksym_entry *e, struct ksym_target *t,
			      struct btf **btf)
{
	const char *name = t->cast;
	u32 kind;
	s32 id;

	if (str_has_prefix(name, "struct ")) {
		kind = BTF_KIND_STRUCT;
		name += strlen("struct ");
	} else {
		kind = BTF_KIND_UNION;
		name += strlen("union ");
	}
	if (*btf) {
		id = btf_find_by_name_kind(*btf, name, kind);
		return id > 0 ? id : ksym_entry_fail(e, KSYM_ERR_NO_TYPE,
						     t->cast_pos, -ENOENT);
	}
	id = bpf_find_btf_id(name, kind, btf);
	return id > 0 ? id : ksym_entry_fail(e, KSYM_ERR_NO_TYPE, t->cast_pos,
					     -ENOENT);
}

/* A BTF name in a path: what C allows in an identifier. */
static int ksym_btf_ident_len(const char *s)
{
	int n = 0;

	if (!isalpha(s[0]) && s[0] != '_')
		return 0;
	while (isalnum(s[n]) || s[n] == '_')
		n++;
	return n;
}

/*
 * Walk @t->path from @type: ".FIELD" into structs and unions (members of
 * anonymous ones by their own names), "[N]" into arrays. Adds the bits to
 * *@bits, leaves the last member's type in *@type and its bit-field size,
 * if any, in *@bitfield; writes the canonical path to @out.
 */
static int ksym_btf_walk(struct ksym_entry *e, struct ksym_target *t,
			 const struct btf *btf, const struct btf_type **type,
			 u64 *bits, u32 *bitfield, char *out, size_t outsz)
{
	char name[KSYM_NAME_LEN];
	const char *p = t->path;
	size_t n = strlen(out);
	int pos, len;

	*bitfield = 0;
	while (*p) {
		pos = t->path_pos + (p - t->path);
		if (*bitfield)
			return ksym_entry_fail(e, KSYM_ERR_NOT_STRUCT, pos,
					       -EINVAL);
		if (*p == '.') {
			const struct btf_member *m;
			const struct btf_type *holder;
			u32 anon_bits;

			len = ksym_btf_ident_len(p + 1);
			if (!len || len >= sizeof(name))
				return ksym_entry_fail(e, KSYM_ERR_BAD_PATH,
						       pos + 1, -EINVAL);
			if (!btf_type_is_struct(*type))
				return ksym_entry_fail(e, KSYM_ERR_NOT_STRUCT,
						       pos, -EINVAL);
			strscpy(name, p + 1, len + 1);
			m = btf_find_struct_member((struct btf *)btf, *type,
						   name, &anon_bits, &holder);
			if (IS_ERR(m))
				return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos,
						       PTR_ERR(m));
			if (!m)
				return ksym_entry_fail(e, KSYM_ERR_NO_FIELD,
						       pos + 1, -ENOENT);
			*bits += anon_bits + __btf_member_bit_offset(holder, m);
			*bitfield = __btf_member_bitfield_size(holder, m);
			*type = btf_type_skip_modifiers(btf, m->type, NULL);
			n += scnprintf(out + n, outsz - n, ".%s", name);
			p += 1 + len;
		} else if (*p == '[') {
			const struct btf_type *elem;
			const struct btf_array *arr;
			char num[16];
			u32 idx, esize;
			const char *end = strchr(p, ']');

			if (!end || end - p - 1 <= 0 ||
			    end - p - 1 >= sizeof(num))
				return ksym_entry_fail(e, KSYM_ERR_BAD_PATH, pos,
						       -EINVAL);
			strscpy(num, p + 1, end - p);
			if (kstrtou32(num, 0, &idx))
				return ksym_entry_fail(e, KSYM_ERR_BAD_PATH,
						       pos + 1, -EINVAL);
			if (!*type || !btf_type_is_array(*type))
				return ksym_entry_fail(e, KSYM_ERR_NOT_ARRAY,
						       pos, -EINVAL);
			arr = btf_array(*type);
			if (idx >= arr->nelems)
				return ksym_entry_fail(e, KSYM_ERR_BAD_INDEX,
						       pos + 1, -ERANGE);
			elem = btf_type_skip_modifiers(btf, arr->type, NULL);
			if (IS_ERR_OR_NULL(btf_resolve_size(btf, elem, &esize)))
				return ksym_entry_fail(e, KSYM_ERR_NOT_ARRAY,
						       pos, -EINVAL);
			*bits += (u64)idx * esize * BITS_PER_BYTE;
			*type = elem;
			n += scnprintf(out + n, outsz - n, "[%u]", idx);
			p = end + 1;
		} else {
			return ksym_entry_fail(e, KSYM_ERR_BAD_PATH, pos,
					       -EINVAL);
		}
		if (!*type)
			return ksym_entry_fail(e, KSYM_ERR_NOT_STRUCT, pos,
					       -EINVAL);
	}
	return 0;
}

/*
 * The type of @t (the cast, found in *@btf if set, else in any BTF, which
 * sets *@btf; or @var_type, the symbol's own), then @t->path walked from
 * it: sets @t->off, @t->size and @t->canon.
 */
static int ksym_btf_resolve_path(struct ksym_entry *e, struct ksym_target *t,
				 struct btf **btf,
				 const struct btf_type *var_type)
{
	const struct btf_type *type = var_type;
	u32 bitfield = 0, size;
	u64 bits = 0;
	s32 id;
	int ret;

	if (t->cast) {
		id = ksym_btf_find_cast(e, t, btf);
		if (id < 0)
			return id;
		type = btf_type_by_id(*btf, id);
		if (var_type && var_type != type)
			return ksym_entry_fail(e, KSYM_ERR_CAST_MISMATCH,
					       t->cast_pos, -EINVAL);
	}

	ret = ksym_btf_walk(e, t, *btf, &type, &bits, &bitfield, t->canon,
			    sizeof(t->canon));
	if (ret)
		return ret;

	t->off = bits / BITS_PER_BYTE;
	if (bitfield) {
		/* The bytes that hold the bit-field. */
		t->size = DIV_ROUND_UP(bits % BITS_PER_BYTE + bitfield,
				       BITS_PER_BYTE);
	} else if (!IS_ERR_OR_NULL(btf_resolve_size(*btf, type, &size))) {
		t->size = size;
	} else {
		t->size = 0;
	}
	return 0;
}

/**
 * ksym_btf_resolve_type - the offset and size of a path in a named type
 * @e: the entry, for errors
 * @t: @t->cast ("struct TYPE") and @t->path, as written
 *
 * For objects found at run time (ksym_watch triggers): no symbol, only a
 * type, looked up in vmlinux BTF and then in modules'. Sets @t->off,
 * @t->size and @t->canon, as ksym_btf_resolve() does.
 *
 * Return: 0, or a negative errno with the entry's error set.
 */
int ksym_btf_resolve_type(struct ksym_entry *e, struct ksym_target *t)
{
	struct btf *btf = NULL;
	int ret;

	t->canon[0] = '\0';
	t->typed = false;
	ret = ksym_btf_resolve_path(e, t, &btf, NULL);
	if (btf)
		btf_put(btf);
	return ret;
}

/**
 * ksym_btf_resolve - the offset and size a cast and field path name
 * @e:      the entry, for errors
 * @t:      the target: @t->sym resolved by kallsyms; @t->cast and
 *          @t->path as written
 * @module_percpu: the symbol is a module's per-CPU variable
 *
 * Sets @t->off (bytes from the symbol), @t->size (bytes of the field, or
 * of the symbol's type without a path), @t->typed (BTF types the symbol,
 * so the cast is redundant) and @t->canon (the path as the read-back
 * spells it). Called with
 * ksym_mutex held, which keeps a module from going away under a watch on
 * its per-CPU data.
 *
 * Return: 0, or a negative errno with the entry's error set.
 */
int ksym_btf_resolve(struct ksym_entry *e, struct ksym_target *t,
		     bool module_percpu)
{
	const struct btf_type *var_type = NULL;
	struct btf *btf = NULL;
	s32 id;
	int ret;

	t->canon[0] = '\0';
	t->typed = false;
	id = bpf_find_btf_id(ksym_btf_var_name(t->sym), BTF_KIND_VAR, &btf);
	ret = id > 0 ? ksym_btf_var_is_sym(btf, t, module_percpu) : 0;
	if (ret < 0) {
		ret = ksym_entry_fail(e, KSYM_ERR_MODULE_GOING, t->sym_pos,
				      ret);
		goto out;
	}
	if (ret) {
		var_type = btf_type_skip_modifiers(btf,
						   btf_type_by_id(btf, id)->type,
						   NULL);
		t->typed = true;
	} else if (btf) {
		/* Another variable of that name: not this symbol's type. */
		btf_put(btf);
		btf = NULL;
	}
	/*
	 * A module's per-CPU data is not in the module's memory: its BTF is
	 * how we know the module, and that it is not going away.
	 */
	if (module_percpu && !t->typed) {
		ret = ksym_entry_fail(e, KSYM_ERR_PERCPU_NO_BTF, t->sym_pos,
				      -EOPNOTSUPP);
		goto out;
	}

	if (!t->cast && !var_type) {
		if (*t->path) {
			ret = ksym_entry_fail(e, KSYM_ERR_NEED_CAST, t->sym_pos,
					      -EINVAL);
			goto out;
		}
		/* A plain symbol BTF does not type: kallsyms sizes it. */
		ret = 0;
		goto out;
	}
	ret = ksym_btf_resolve_path(e, t, &btf, var_type);
out:
	if (btf)
		btf_put(btf);
	return ret;
}

#else /* !CONFIG_PROBE_EVENTS_BTF_ARGS */

int ksym_btf_resolve(struct ksym_entry *e, struct ksym_target *t,
		     bool module_percpu)
{
	t->canon[0] = '\0';
	t->typed = false;
	if (module_percpu)
		return ksym_entry_fail(e, KSYM_ERR_PERCPU_NO_BTF, t->sym_pos,
				       -EOPNOTSUPP);
	if (t->cast)
		return ksym_entry_fail(e, KSYM_ERR_NO_BTF, t->cast_pos, -EINVAL);
	if (*t->path)
		return ksym_entry_fail(e, KSYM_ERR_NO_BTF, t->path_pos, -EINVAL);
	return 0;
}

int ksym_btf_resolve_type(struct ksym_entry *e, struct ksym_target *t)
{
	t->canon[0] = '\0';
	t->typed = false;
	return ksym_entry_fail(e, KSYM_ERR_NO_BTF, t->cast_pos, -EINVAL);
}

#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */
