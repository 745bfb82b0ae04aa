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
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <asm/sections.h>

#include "trace.h"
#include "trace_dynevent.h"
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

/* The first type id of @btf's own: a module's BTF is split from vmlinux's. */
static u32 ksym_btf_first_own(const struct btf *btf)
{
	const struct btf *base = btf_base_btf(btf);

	return base ? btf_nr_types(base) : 1;
}

/*
 * Whether BTF variable @id of @btf is @t's symbol, by where its data
 * section puts it, not by its name (names are not unique: a static of one
 * file and a per-CPU variable of another, or two modules' per-CPU
 * variables): per-CPU exactly when @t is, and then at @t's offset in the
 * per-CPU section, which starts at @pcpu_base.
 */
static bool ksym_btf_var_at(const struct btf *btf, u32 id,
			    const struct ksym_target *t,
			    unsigned long pcpu_base)
{
	u32 i, j, total = btf_nr_types(btf);
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec;
	bool percpu;

	for (i = ksym_btf_first_own(btf); i < total; i++) {
		sec = btf_type_by_id(btf, i);
		if (BTF_INFO_KIND(sec->info) != BTF_KIND_DATASEC)
			continue;
		percpu = !strcmp(btf_name_by_offset(btf, sec->name_off),
				 ".data..percpu");
		for_each_vsi(j, sec, vsi)
			if (vsi->type == id)
				return percpu == t->percpu &&
				       (!percpu ||
					vsi->offset == t->addr - pcpu_base);
	}
	return false;
}

/* The type @name of @kind among @btf's own types: its id, or 0. */
static s32 ksym_btf_find_own(const struct btf *btf, const char *name,
			     u32 kind)
{
	u32 i, total = btf_nr_types(btf);
	const struct btf_type *type;

	for (i = ksym_btf_first_own(btf); i < total; i++) {
		type = btf_type_by_id(btf, i);
		if (BTF_INFO_KIND(type->info) == kind &&
		    !strcmp(btf_name_by_offset(btf, type->name_off), name))
			return i;
	}
	return 0;
}

/*
 * The struct or union @name of @kind as @btf's users see it: its own
 * types first (a module's), then those of vmlinux it holds. Its id, or 0.
 */
static s32 ksym_btf_find_struct(const struct btf *btf, const char *name,
				u32 kind)
{
	s32 id = ksym_btf_find_own(btf, name, kind);

	return id > 0 ? id : btf_find_by_name_kind(btf, name, kind);
}

/* The variable of @btf's own types that is @t's symbol: its id, or 0. */
static s32 ksym_btf_find_var(const struct btf *btf,
			     const struct ksym_target *t,
			     unsigned long pcpu_base)
{
	const char *name = ksym_btf_var_name(t->sym);
	u32 i, total = btf_nr_types(btf);
	const struct btf_type *type;

	for (i = ksym_btf_first_own(btf); i < total; i++) {
		type = btf_type_by_id(btf, i);
		if (btf_type_is_var(type) &&
		    !strcmp(btf_name_by_offset(btf, type->name_off), name) &&
		    ksym_btf_var_at(btf, i, t, pcpu_base))
			return i;
	}
	return 0;
}

/*
 * The module @t's symbol belongs to: the one its "mod:" prefix names, or
 * whose memory holds it; NULL for vmlinux or a module's per-CPU variable
 * named without its module (its address is in no module's memory);
 * ERR_PTR(-ENOENT) for a module going away. ksym_mutex is held: a module
 * not yet going when found cannot finish going away (its GOING notifier
 * waits for the mutex); one already going may be freed at any time.
 */
static struct module *ksym_btf_sym_module(const struct ksym_target *t)
{
	const char *colon = strchr(t->sym, ':');
	char name[MODULE_NAME_LEN];
	struct module *mod;

	if (colon && colon - t->sym >= sizeof(name))
		return NULL;
	preempt_disable();
	if (colon) {
		strscpy(name, t->sym, colon - t->sym + 1);
		mod = find_module(name);
	} else {
		mod = __module_address(t->addr);
	}
	if (mod && mod->state == MODULE_STATE_GOING)
		mod = ERR_PTR(-ENOENT);
	preempt_enable();
	return mod;
}

/*
 * The variable that types @t's symbol, in its own module's BTF or
 * vmlinux's: sets *@btf (a reference) and returns its id, 0 if none, or
 * a negative errno with the entry's error set (a module not live).
 */
static s32 ksym_btf_sym_var(struct ksym_entry *e, struct ksym_target *t,
			    bool module_percpu, struct btf **btf)
{
	struct module *mod = ksym_btf_sym_module(t);
	unsigned long pcpu_base = (unsigned long)__per_cpu_start;
	struct btf *b;
	s32 id;

	if (IS_ERR(mod))
		return ksym_entry_fail(e, KSYM_ERR_MODULE_GOING, t->sym_pos,
				       -ENOENT);
	if (module_percpu && !mod) {
		/* By its name alone: the first module's of that name. */
		id = bpf_find_btf_id(ksym_btf_var_name(t->sym), BTF_KIND_VAR,
				     &b);
		if (id <= 0)
			return 0;
		mod = btf_is_module(b) ? btf_try_get_module(b) : NULL;
		btf_put(b);
		if (!mod)
			return 0;
		module_put(mod);
	}
	if (mod) {
		/* Its BTF is not read before it is live (btf_try_get_module). */
		if (mod->state != MODULE_STATE_LIVE && module_percpu)
			return ksym_entry_fail(e, KSYM_ERR_MODULE_COMING,
					       t->sym_pos, -EAGAIN);
#ifdef CONFIG_SMP
		pcpu_base = (unsigned long)mod->percpu;
#endif
	}
	b = btf_get_module_btf_ref(mod);
	if (IS_ERR_OR_NULL(b))
		return 0;
	id = ksym_btf_find_var(b, t, pcpu_base);
	if (id > 0)
		*btf = b;
	else
		btf_put(b);
	return id;
}

/*
 * The struct or union type a cast names: in *@btf if set (the symbol's
 * own BTF), else in any BTF, vmlinux's first, which sets *@btf. With
 * @own_only, *@btf (a module's, holding vmlinux's too) is the only one:
 * the layout of another module's struct of that name would be wrong.
 */
static s32 ksym_btf_find_cast(struct ksym_entry *e, struct ksym_target *t,
			      struct btf **btf, bool own_only)
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
		/* A module's own types before vmlinux's, which its BTF holds. */
		id = ksym_btf_find_struct(*btf, name, kind);
		if (id > 0 || own_only)
			return id > 0 ? id :
			       ksym_entry_fail(e, KSYM_ERR_NO_TYPE,
					       t->cast_pos, -ENOENT);
		btf_put(*btf);
		*btf = NULL;
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
 * The type of @t (the cast, found as ksym_btf_find_cast() says; or
 * @var_type, the symbol's own), then @t->path walked from it: sets
 * @t->off, @t->size and @t->canon.
 */
static int ksym_btf_resolve_path(struct ksym_entry *e, struct ksym_target *t,
				 struct btf **btf,
				 const struct btf_type *var_type,
				 bool own_only)
{
	const struct btf_type *type = var_type;
	u32 bitfield = 0, size;
	u64 bits = 0;
	s32 id;
	int ret;

	if (t->cast) {
		id = ksym_btf_find_cast(e, t, btf, own_only);
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
	/* The event's module's types first (an event's own struct). */
	if (t->mod) {
		btf = btf_get_module_btf_ref(t->mod);
		if (IS_ERR(btf))
			btf = NULL;
	}
	ret = ksym_btf_resolve_path(e, t, &btf, NULL, false);
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
	id = ksym_btf_sym_var(e, t, module_percpu, &btf);
	if (id < 0) {
		ret = id;
		goto out;
	}
	if (id) {
		var_type = btf_type_skip_modifiers(btf,
						   btf_type_by_id(btf, id)->type,
						   NULL);
		t->typed = true;
	} else if (!module_percpu) {
		/* Untyped: a cast is looked up in the symbol's module first. */
		struct module *mod = ksym_btf_sym_module(t);

		if (!IS_ERR_OR_NULL(mod)) {
			btf = btf_get_module_btf_ref(mod);
			if (IS_ERR(btf))
				btf = NULL;
		}
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
	/* A module symbol's own BTF, if it has one, is the only one. */
	ret = ksym_btf_resolve_path(e, t, &btf, var_type, !!btf);
out:
	if (btf)
		btf_put(btf);
	return ret;
}

/*
 * The proto of function @func among @btf's own types (all of them for
 * vmlinux's), or NULL: none, or several functions of that name with
 * other protos (statics of several files), which BTF cannot tell apart.
 */
static const struct btf_type *ksym_btf_own_func_proto(const struct btf *btf,
						      const char *func)
{
	u32 i, proto = 0, total = btf_nr_types(btf);
	const struct btf_type *type;

	for (i = ksym_btf_first_own(btf); i < total; i++) {
		type = btf_type_by_id(btf, i);
		if (!btf_type_is_func(type) ||
		    strcmp(btf_name_by_offset(btf, type->name_off), func))
			continue;
		if (proto && proto != type->type)
			return NULL;
		proto = type->type;
	}
	type = proto ? btf_type_by_id(btf, proto) : NULL;
	return type && btf_type_is_func_proto(type) ? type : NULL;
}

/*
 * Whether @func, found in @btf (its kallsyms symbol's: vmlinux's or a
 * module's), is a name other functions have too, so that a probe on the
 * name alone may be on another (an fprobe takes every function of the
 * name): another BTF has it first (vmlinux's before any module's), or,
 * found in vmlinux, a module has a symbol of that name too. Two modules'
 * functions of one name are told apart by kprobes, which refuse such a
 * name without its "MOD:", and by the first check where their BTFs come
 * in another order than their symbols.
 */
static bool ksym_btf_func_ambiguous(const struct btf *btf, const char *func)
{
	struct btf *first = NULL;
	bool other;
	s32 id;

	id = bpf_find_btf_id(func, BTF_KIND_FUNC, &first);
	if (id <= 0)
		return true;
	other = first != btf;
	btf_put(first);
	if (other)
		return true;
	return !btf_is_module(btf) && module_kallsyms_lookup_name(func);
}

/*
 * A parameter in one register, as the probe's $argN and BTF names count
 * them: a pointer, or an integer or enum of at most a long. A struct or
 * union passed by value (two registers if 9-16 bytes, on x86-64 and
 * arm64, a pointer beyond) or a float (its own registers) shifts the
 * registers of the parameters after it.
 */
static bool ksym_btf_one_reg(const struct btf *btf, u32 id)
{
	const struct btf_type *type = btf_type_skip_modifiers(btf, id, NULL);

	if (!type)
		return false;
	if (btf_type_is_ptr(type))
		return true;
	return (btf_type_is_int(type) || btf_is_any_enum(type)) &&
	       type->size <= sizeof(long);
}

/*
 * The struct a function's pointer argument is of, in the BTF of the
 * function's own module @mod (NULL: vmlinux), the BTF
 * ksym_btf_resolve_type() resolves the path in (with @mod as the
 * target's module). @by_mod: the probe named the module ("MOD:FUNC"),
 * else the function is @func by its name alone, and typed only if no
 * other function has that name. @name is the argument's BTF name, or
 * NULL to take parameter @index (from 0): either is what the probe
 * fetched only if every parameter before it takes one register, since
 * the probe fetched the argument's register. "struct NAME" or "union
 * NAME" at @out, which the resolver must find again by that name in the
 * same BTF. Any context that may sleep.
 *
 * Return: true if the argument is a pointer to that named struct or union.
 */
static bool ksym_btf_func_arg_struct(const struct module *mod, bool by_mod,
				     const char *func, const char *name,
				     int index, char *out, size_t size)
{
	const struct btf_type *proto, *type;
	const struct btf_param *param;
	bool ok = false;
	struct btf *btf;
	s32 nr, i;
	u32 id;

	btf = btf_get_module_btf_ref(mod);
	if (IS_ERR_OR_NULL(btf))
		return false;
	proto = ksym_btf_own_func_proto(btf, func);
	if (!proto || (!by_mod && ksym_btf_func_ambiguous(btf, func)))
		goto out;
	param = btf_get_func_param(proto, &nr);
	if (IS_ERR_OR_NULL(param))
		goto out;
	for (i = 0; name && i < nr; i++)
		if (!strcmp(btf_name_by_offset(btf, param[i].name_off), name))
			break;
	if (name)
		index = i;
	if (index < 0 || index >= nr)
		goto out;
	for (i = 0; i < index; i++)
		if (!ksym_btf_one_reg(btf, param[i].type))
			goto out;
	type = btf_type_skip_modifiers(btf, param[index].type, NULL);
	if (!type || !btf_type_is_ptr(type))
		goto out;
	type = btf_type_skip_modifiers(btf, type->type, &id);
	if (!type || !btf_type_is_struct(type) || !type->name_off)
		goto out;
	/* Found again by its name (a module's own types first): this one. */
	if (ksym_btf_find_struct(btf, btf_name_by_offset(btf, type->name_off),
				 BTF_INFO_KIND(type->info)) != id)
		goto out;
	ok = snprintf(out, size, "%s %s",
		      __btf_type_is_struct(type) ? "struct" : "union",
		      btf_name_by_offset(btf, type->name_off)) < size;
out:
	btf_put(btf);
	return ok;
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

/* Inline: unused without CONFIG_DYNAMIC_EVENTS. */
static inline bool ksym_btf_func_arg_struct(const struct module *mod,
					    bool by_mod, const char *func,
					    const char *name, int index,
					    char *out, size_t size)
{
	return false;
}

#endif /* CONFIG_PROBE_EVENTS_BTF_ARGS */

/* ------------------------------------------------------------------------
 * Probe arguments: the struct a kprobe's or fprobe's argument points to,
 * from the probe's definition in the dynamic events and its function's
 * BTF. For the ksym_watch trigger on a probe event (trace_ksym_trigger.c).
 */

#ifdef CONFIG_DYNAMIC_EVENTS
/* An identifier, as BTF names an argument. */
static bool ksym_btf_ident(const char *s)
{
	if (!isalpha(*s) && *s != '_')
		return false;
	while (isalnum(*s) || *s == '_')
		s++;
	return !*s;
}

/*
 * The function (@sym as written, "MOD:" included, and @func, its name)
 * and what was fetched for argument @field of probe event @call, from the
 * probe's definition as dynamic_events shows it:
 * "p:GROUP/EVENT [MOD:]SYMBOL[+OFFSET] NAME=FETCH..." (kprobe, "r" for a
 * return probe) or "f:GROUP/EVENT SYMBOL[%return] NAME=FETCH..." (fprobe).
 * Cut in place in @text. Only arguments at the function's entry, or saved
 * there for its return: a probe at +OFFSET has none.
 */
static bool ksym_probe_def_arg(char *text, const char *field, char **sym,
			       char **func, char **fetch)
{
	char *tok = strsep(&text, " "), *eq;

	if (!tok || !strchr("prf", tok[0]))
		return false;
	*sym = strsep(&text, " ");
	if (!*sym || strchr(*sym, '+'))
		return false;
	(*sym)[strcspn(*sym, "%")] = '\0';
	*func = strchr(*sym, ':') ? strchr(*sym, ':') + 1 : *sym;
	while ((tok = strsep(&text, " "))) {
		eq = strchr(tok, '=');
		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(tok, field)) {
			*fetch = eq + 1;
			return true;
		}
	}
	return false;
}

/*
 * The module of probed function @sym ("MOD:FUNC", or "FUNC" by its
 * kallsyms symbol, vmlinux's first), NULL for vmlinux, or an ERR_PTR():
 * not found, or going away. event_mutex is held: a module not going when
 * found cannot finish going away (trace_module_notify() takes event_mutex
 * at MODULE_STATE_GOING, before the module is freed).
 */
static struct module *ksym_probe_func_module(const char *sym)
{
	unsigned long addr = kallsyms_lookup_name(sym);
	struct module *mod;

	if (!addr)
		return ERR_PTR(-ENOENT);
	preempt_disable();
	mod = __module_address(addr);
	if (mod && mod->state == MODULE_STATE_GOING)
		mod = ERR_PTR(-ENOENT);
	preempt_enable();
	return mod;
}

/*
 * The struct of @field in one probe's definition, @m's text, and the
 * module of its function (*@mod, NULL for vmlinux; an ERR_PTR() if not
 * known): see below.
 */
static bool ksym_probe_def_struct(struct seq_file *m, const char *field,
				  char *out, size_t size, struct module **mod)
{
	char *sym = NULL, *func = NULL, *fetch = NULL, *name = NULL;
	int index = -1;

	*mod = ERR_PTR(-ENOENT);
	if (!m->count || m->count >= m->size)
		return false;
	m->buf[m->count] = '\0';
	m->buf[strcspn(m->buf, "\n")] = '\0';
	if (!ksym_probe_def_arg(m->buf, field, &sym, &func, &fetch))
		return false;
	*mod = ksym_probe_func_module(sym);
	if (IS_ERR(*mod))
		return false;
	if (str_has_prefix(fetch, "$arg")) {
		if (kstrtoint(fetch + strlen("$arg"), 10, &index) || index < 1)
			return false;
		index--;
	} else if (ksym_btf_ident(fetch)) {
		name = fetch;
	} else {
		return false;
	}
	return ksym_btf_func_arg_struct(*mod, func != sym, func, name, index,
					out, size);
}

/**
 * ksym_probe_arg_struct - the struct a probe event's argument points to
 * @call:  the event
 * @field: the argument's field in the event
 * @out:   set to "struct NAME"
 * @size:  the size of @out
 * @mod:   set to the module of the probed function, whose BTF types the
 *         argument and is the first a cast is looked up in; NULL for
 *         vmlinux, or if not one module's
 *
 * The struct a kprobe's or fprobe's argument @field points to, where BTF
 * knows it: the event's format has a u64, but the probe fetched its
 * function's argument N ($argN, in an entry or a return probe) or the
 * argument BTF names. Typed by the BTF of the function's own module
 * ("MOD:" in the probe, or the module its symbol is in), never by
 * another's struct of that name; only where the argument's register is
 * its C parameter (none before it passed by value in two registers); and
 * not for a function whose name other functions have too. An event may
 * have several probes (on several functions): each must give the same
 * struct, of the same module. "struct NAME" at @out. Called with
 * event_mutex held (trigger files are written under it), which keeps the
 * list of dynamic events, and keeps *@mod from being freed until it is
 * released.
 *
 * Return: true if BTF gives the struct.
 */
bool ksym_probe_arg_struct(struct trace_event_call *call, const char *field,
			   char *out, size_t size, struct module **mod)
{
	struct module *one_mod, *the_mod = ERR_PTR(-ENOENT);
	struct seq_file m = { .size = PAGE_SIZE - 1 };
	bool found = false, typed = true, first = true;
	struct dyn_event *ev;
	char *one;

	*mod = NULL;
	if (!(call->flags & (TRACE_EVENT_FL_KPROBE | TRACE_EVENT_FL_FPROBE)))
		return false;
	lockdep_assert_held(&event_mutex);
	/* One allocation for both: the name on the stack made a 1 KiB frame. */
	m.buf = kzalloc(PAGE_SIZE + KSYM_NAME_LEN, GFP_KERNEL);
	if (!m.buf)
		return false;
	one = m.buf + PAGE_SIZE;
	for_each_dyn_event(ev) {
		if (!ev->ops->match(call->class->system, trace_event_name(call),
				    0, NULL, ev))
			continue;
		m.count = 0;
		ev->ops->show(&m, ev);
		if (!ksym_probe_def_struct(&m, field, one, KSYM_NAME_LEN,
					   &one_mod))
			typed = false;
		else if (!found)
			found = strscpy(out, one, size) >= 0;
		else if (strcmp(one, out))
			typed = false;
		/* One module's functions (or vmlinux's), or no typing. */
		if (first)
			the_mod = one_mod;
		else if (one_mod != the_mod)
			the_mod = ERR_PTR(-EINVAL);
		first = false;
	}
	kfree(m.buf);
	if (IS_ERR(the_mod))
		return false;
	*mod = the_mod;
	return found && typed;
}
#else
bool ksym_probe_arg_struct(struct trace_event_call *call, const char *field,
			   char *out, size_t size, struct module **mod)
{
	*mod = NULL;
	return false;
}
#endif
