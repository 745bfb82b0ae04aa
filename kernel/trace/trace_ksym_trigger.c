// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_trigger.c - watch objects found at run time: the ksym_watch
 * and ksym_unwatch event triggers.
 *
 *	echo 'ksym_watch:obj.count:-w-' > events/ksym_hitgen/ksym_hitgen_obj_alloc/trigger
 *	echo 'ksym_unwatch:obj' > events/ksym_hitgen/ksym_hitgen_obj_free/trigger
 *
 * When ksym_watch fires, the object whose address the event's FIELD holds
 * is watched, at the offset its field path names, on every CPU; when
 * ksym_unwatch fires on another event, the watch of the object its FIELD
 * holds ends. Hits are ksym_hit events and profile rows like any other.
 *
 *
 * Owns: the two event commands (parse, register, print, free), the
 * trigger's grammar and its error_log entries, what a trigger may watch
 * (the address rules for stacks and vmalloc space), the tunable
 * ksym_trigger_slots, the work items that register and release a
 * trigger's slots, and trace_stat/ksym_triggers.
 * May call: the slots (trace_ksym_slot.c, through trace_ksym.h), the
 * entry grammar and error_log (trace_ksym_parse.c), the casts, field
 * paths and probe-argument types (trace_ksym_btf.c), ksym_entry_end()
 * (trace_ksym_watch.c). Nothing here is called back by those files;
 * trace_ksym.c calls ksym_trigger_init(), the hit generator
 * ksym_trigger_sync().
 *
 * The slots' states and moves: see trace_ksym_slot.c.
 *
 * Triggers are created and freed under event_mutex, where perf's mutexes
 * may not be taken: the slots' breakpoints are registered and released by
 * an ordered work item. Until it has run, the trigger counts misses;
 * opening trace_stat/ksym_triggers waits for it.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/ctype.h>
#include <linux/mm.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <asm/sections.h>

#include "trace.h"
#include "trace_stat.h"
#include "trace_ksym.h"

/* trace_ksym.h cannot see trace.h's MAX_EVENT_NAME_LEN. */
static_assert(KSYM_TRIGGER_EVENT_MAX == 2 * MAX_EVENT_NAME_LEN + 2);

/* The triggers, for trace_stat/ksym_triggers; a leaf lock. */
static DEFINE_MUTEX(ksym_trigger_mutex);
static LIST_HEAD(ksym_triggers);

/* Slots a new ksym_watch trigger takes (tracefs ksym_trigger_slots). */
static u64 ksym_trigger_slots = 1;
static u64 ksym_trigger_slots_min = 1;
static u64 ksym_trigger_slots_max = KSYM_TRIGGER_SLOTS_MAX;

static struct workqueue_struct *ksym_trigger_wq;

/* ------------------------------------------------------------------------
 * The triggers: from the tracepoint, any context.
 */

/*
 * What a trigger may watch, checked without a lock and without sleeping:
 * aligned, not the freed init sections, and either memory that stays RAM
 * while watched, as ksym_addr_stays_ram() says (the direct map, the kernel
 * image, module space), or vmalloc space (vmalloc'd objects, vmap'd
 * stacks), which is watched and never read: a vfree() may leave a
 * device's registers at the address. Not the registers saved at a
 * stack's top (ksym_addr_stack_regs()), no other device memory, no user
 * address.
 */
static bool ksym_dyn_addr_ok(unsigned long addr, unsigned int len)
{
	return IS_ALIGNED(addr, len) &&
	       !init_section_intersects((void *)addr, len) &&
	       (ksym_addr_stays_ram(addr, len, NULL) ||
		ksym_addr_vmalloc(addr, len)) &&
	       !ksym_addr_stack_regs(addr, len);
}

static unsigned long ksym_trigger_field(struct ksym_trigger *trig, void *rec)
{
	return *(unsigned long *)(rec + trig->field_off);
}

static void ksym_watch_trigger(struct event_trigger_data *data,
			       struct trace_buffer *buffer, void *rec,
			       struct ring_buffer_event *rbe)
{
	struct ksym_trigger *trig = data->private_data;
	unsigned long obj, addr, gen;
	struct ksym_dyn *d;

	if (!rec)
		return;
	obj = ksym_trigger_field(trig, rec);
	addr = obj + trig->off;
	if (!obj || (trig->off < 0 ? addr > obj : addr < obj) ||
	    !ksym_dyn_addr_ok(addr, trig->len)) {
		atomic_long_inc(&trig->refused);
		return;
	}
	/* An object already watched by this trigger is not watched twice. */
	if (ksym_dyn_watching(trig, obj))
		return;
	d = ksym_dyn_claim(trig, obj, &gen);
	if (!d) {
		atomic_long_inc(&trig->missed);
		return;
	}
	ksym_dyn_arm(trig, d, gen, obj, addr);
}

static void ksym_unwatch_trigger(struct event_trigger_data *data,
				 struct trace_buffer *buffer, void *rec,
				 struct ring_buffer_event *rbe)
{
	struct ksym_trigger *trig = data->private_data;
	unsigned long obj;

	if (!rec)
		return;
	obj = ksym_trigger_field(trig, rec) + trig->off;
	if (!obj)
		return;
	/*
	 * Tracepoints run with preemption off: an RCU read-side section.
	 * Another instance's watches are another user's.
	 */
	ksym_dyn_unwatch(trig->tr, obj);
}

/* A count, as the tracing core's: the number of firings left, or -1. */
static bool ksym_trigger_count(struct event_trigger_data *data,
			       struct trace_buffer *buffer, void *rec,
			       struct ring_buffer_event *rbe)
{
	unsigned long n = READ_ONCE(data->count);

	/*
	 * Any CPU, NMI too: a cmpxchg, so that a :1 fires once however
	 * many CPUs reach it at once (the core's own count is a plain
	 * decrement).
	 */
	do {
		if (!n)
			return false;
		if (n == -1)
			return true;
	} while (!try_cmpxchg(&data->count, &n, n - 1));
	return true;
}

/**
 * ksym_trigger_sync - wait until triggers just set have their slots
 *
 * Process context, no lock held: the slots are registered by a work item.
 */
void ksym_trigger_sync(void)
{
	flush_workqueue(ksym_trigger_wq);
}
EXPORT_SYMBOL_GPL(ksym_trigger_sync);

static void ksym_trigger_reg_workfn(struct work_struct *work)
{
	struct ksym_trigger *trig = container_of(work, struct ksym_trigger,
						 reg_work);
	int ret = ksym_dyn_register_all(trig);

	if (ret) {
		pr_warn("%s: %s: %d of %d slots: %d\n", trig->event, trig->canon,
			trig->nr_live_slots, trig->nr_slots, ret);
		ksym_log_at(NULL, trig->event, trig->canon, KSYM_ERR_T_NO_SLOT,
			    0);
	}
}

static void ksym_trigger_free_workfn(struct work_struct *work)
{
	struct ksym_trigger *trig = container_of(work, struct ksym_trigger,
						 free_work);

	ksym_dyn_release_all(trig);
	kfree(trig->canon);
	kfree(trig->name);
	kfree(trig);
}

/* ------------------------------------------------------------------------
 * Parsing: ksym_watch:[(struct TYPE)]FIELD[PATH][+OFFSET][/LEN]:ACCESS[:N]
 * and ksym_unwatch:FIELD[:N], each with an optional "if FILTER".
 */

/* Says that a number field holds an address, with no type. */
#define KSYM_VOID_CAST	"(void *)"

/* "struct foo", from a field's type "struct foo *" or "const struct foo *". */
static bool ksym_field_struct(const char *type, char *out, size_t size)
{
	const char *p = type, *end;

	if (str_has_prefix(p, "const "))
		p += strlen("const ");
	if (!str_has_prefix(p, "struct ") && !str_has_prefix(p, "union "))
		return false;
	end = strchr(p, '*');
	if (!end || strchr(end + 1, '*'))
		return false;
	while (end > p && end[-1] == ' ')
		end--;
	if (end - p >= size)
		return false;
	strscpy(out, p, end - p + 1);
	return true;
}

/*
 * One ksym_watch or ksym_unwatch parameter as it is parsed, token by
 * token: each token's parser keeps where its token starts in @param and
 * logs its own error with the caret there (ksym_tctx_fail()).
 * @e:      the entry, for error_log
 * @param:  the parameter, cut in place
 * @pos:    where @param starts in the command
 * @trig:   the trigger being made
 * @t:      the type: cast, field path, offset and size
 * @p:      the next token
 * @field:  FIELD, and @field_pos where it starts in the command
 * @path:   what follows FIELD: the field path, then its offset
 * @count:  the trigger's count, or NULL
 * @len_pos: where LEN starts in the command, if given
 * @off:    +OFFSET or -OFFSET after the path
 * @len:    LEN, 0 if not given
 * @is_addr: the field holds an address by a cast or a probe's type
 * @probe_typed: the probe's argument type gave the struct
 * @f:      the event's field
 * @type:   the struct's name, from a probe or the field's type
 * @off_str: @off as names and canonical texts show it
 */
struct ksym_tctx {
	struct ksym_entry		*e;
	char				*param;
	int				pos;
	struct ksym_trigger		*trig;
	struct ksym_target		*t;
	char				*p;
	char				*field;
	int				field_pos;
	char				*path;
	char				*count;
	int				len_pos;
	long				off;
	unsigned int			len;
	bool				is_addr;
	bool				probe_typed;
	struct ftrace_event_field	*f;
	char				type[KSYM_NAME_LEN];
	char				off_str[24];
};

/* Where @at, a character of the parameter, is in the command. */
static int ksym_tctx_pos(struct ksym_tctx *c, const char *at)
{
	return c->pos + (at - c->param);
}

/* Log @err with the caret under @at; return @ret. */
static int ksym_tctx_fail(struct ksym_tctx *c, int err, const char *at,
			  int ret)
{
	return ksym_entry_fail(c->e, err, ksym_tctx_pos(c, at), ret);
}

/*
 * The cast first: "(void *)", a number field that holds an address,
 * untyped; or "(struct TYPE)".
 */
static int ksym_trigger_parse_cast(struct ksym_tctx *c)
{
	int n;

	if (!strncmp(c->p, KSYM_VOID_CAST, strlen(KSYM_VOID_CAST))) {
		c->p += strlen(KSYM_VOID_CAST);
		c->is_addr = true;
	} else if (!c->trig->unwatch && *c->p == '(') {
		n = ksym_parse_cast(c->e, c->p, ksym_tctx_pos(c, c->p), c->t);
		if (n < 0)
			return n;
		c->p += n;
		c->is_addr = true;
	}
	return 0;
}

/* FIELD: an identifier, as in the event's format. */
static int ksym_trigger_parse_field(struct ksym_tctx *c)
{
	char *p = c->p;

	c->field = p;
	c->field_pos = ksym_tctx_pos(c, p);
	while (isalnum(*p) || *p == '_')
		p++;
	if (p == c->field || isdigit(*c->field))
		return ksym_tctx_fail(c, KSYM_ERR_T_SYNTAX, c->field, -EINVAL);
	c->path = p;
	c->p = p;
	return 0;
}

/*
 * The "+OFFSET" or "-OFFSET" that ends the path (a struct path's, or a
 * frame offset from a stack pointer a probe fetched), cut off. Within
 * KSYM_TRIGGER_OFFSET_MAX either way: a stack's size (x86-64 and arm64,
 * without KASAN), whatever the kernel's config.
 */
#define KSYM_TRIGGER_OFFSET_MAX	SZ_16K

static int ksym_trigger_parse_offset(struct ksym_tctx *c)
{
	char *sign = strpbrk(c->path, "+-");
	unsigned long n;

	c->off = 0;
	if (!sign)
		return 0;
	if (kstrtoul(sign + 1, 0, &n) || n > KSYM_TRIGGER_OFFSET_MAX)
		return ksym_tctx_fail(c, KSYM_ERR_BAD_OFFSET, sign + 1,
				      -EINVAL);
	c->off = *sign == '-' ? -(long)n : (long)n;
	*sign = '\0';
	return 0;
}

/* "+0x10" or "-0x28" for names and canonical texts, "" for none. */
static void ksym_trigger_offset_str(char *buf, size_t size, long off)
{
	if (!off)
		buf[0] = '\0';
	else
		scnprintf(buf, size, "%c0x%lx", off < 0 ? '-' : '+',
			  off < 0 ? -(unsigned long)off : (unsigned long)off);
}

/* ksym_unwatch: FIELD[+OFFSET|-OFFSET][:N], nothing else. */
static int ksym_trigger_parse_unwatch_tail(struct ksym_tctx *c)
{
	char *colon = strchr(c->path, ':');
	int ret;

	if (colon)
		*colon = '\0';
	ret = ksym_trigger_parse_offset(c);
	if (ret)
		return ret;
	if (*c->path)
		return ksym_tctx_fail(c, KSYM_ERR_T_SYNTAX, c->path, -EINVAL);
	if (colon)
		c->count = colon + 1;
	return 0;
}

/* ACCESS: data accesses only, "-w-" or "rw-". */
static int ksym_trigger_parse_access(struct ksym_tctx *c, char *p)
{
	unsigned int access;

	if (ksym_parse_access(p, &access))
		return ksym_tctx_fail(c, KSYM_ERR_BAD_ACCESS, p, -EINVAL);
	if (access != KSYM_ACCESS_W && access != KSYM_ACCESS_RW)
		return ksym_tctx_fail(c, KSYM_ERR_T_DATA_ONLY, p, -EINVAL);
	c->trig->access = access;
	return 0;
}

/* "/LEN" after the path, cut off: 1, 2, 4 or 8. */
static int ksym_trigger_parse_len(struct ksym_tctx *c)
{
	char *slash = strchr(c->path, '/');

	if (!slash)
		return 0;
	*slash = '\0';
	c->len_pos = ksym_tctx_pos(c, slash + 1);
	if (kstrtouint(slash + 1, 0, &c->len) ||
	    (c->len != 1 && c->len != 2 && c->len != 4 && c->len != 8))
		return ksym_tctx_fail(c, KSYM_ERR_BAD_LEN, slash + 1, -EINVAL);
	return 0;
}

/* ksym_watch: FIELD[PATH][+OFFSET][/LEN]:ACCESS[:N]. */
static int ksym_trigger_parse_watch_tail(struct ksym_tctx *c)
{
	char *colon = strchr(c->path, ':'), *p;
	int ret;

	if (!colon)
		return ksym_tctx_fail(c, KSYM_ERR_T_SYNTAX,
				      c->param + strlen(c->param), -EINVAL);
	*colon = '\0';
	p = colon + 1;
	colon = strchr(p, ':');
	if (colon) {
		*colon = '\0';
		c->count = colon + 1;
	}
	ret = ksym_trigger_parse_access(c, p);
	if (!ret)
		ret = ksym_trigger_parse_len(c);
	if (!ret)
		ret = ksym_trigger_parse_offset(c);
	return ret;
}

/* ":N", the count. */
static int ksym_trigger_parse_count(struct ksym_tctx *c)
{
	unsigned long nr;

	if (c->count && (kstrtoul(c->count, 0, &nr) || nr > LONG_MAX))
		return ksym_tctx_fail(c, KSYM_ERR_T_BAD_COUNT, c->count,
				      -EINVAL);
	return 0;
}

/*
 * FIELD in @file's event, which must hold an address: a pointer, or a
 * number the user says holds one (a probe's u64 argument, an unsigned
 * long call_site). Never a count or a size taken for one (kmalloc's
 * bytes_req).
 */
static int ksym_trigger_find_field(struct ksym_tctx *c,
				   struct trace_event_file *file)
{
	struct ftrace_event_field *f;
	struct module *mod;
	int n = *c->path;
	bool typed;

	*c->path = '\0';
	f = trace_find_event_field(file->event_call, c->field);
	*c->path = n;
	if (!f)
		return ksym_entry_fail(c->e, KSYM_ERR_T_NO_FIELD, c->field_pos,
				       -ENOENT);
	/*
	 * A probe's argument that BTF types: its struct, as if cast. Its
	 * function's module's BTF types it, and is the first a cast is
	 * looked up in (event_mutex keeps the module).
	 */
	typed = ksym_probe_arg_struct(file->event_call, f->name, c->type,
				      sizeof(c->type), &mod);
	if (mod && !c->t->mod)
		c->t->mod = mod;
	if (!c->is_addr && typed) {
		c->probe_typed = true;
		c->is_addr = true;
		if (!c->trig->unwatch) {
			c->t->cast = c->type;
			c->t->cast_pos = c->field_pos;
		}
	}
	if (f->size != sizeof(long) ||
	    (f->filter_type != FILTER_OTHER &&
	     f->filter_type != FILTER_PTR_STRING) ||
	    (!c->is_addr && !strchr(f->type, '*')))
		return ksym_entry_fail(c->e, KSYM_ERR_T_NOT_ADDR, c->field_pos,
				       -EINVAL);
	c->trig->field_off = f->offset;
	c->f = f;
	return 0;
}

/* The unwatch's offset and canonical text. */
static int ksym_trigger_unwatch_canon(struct ksym_tctx *c)
{
	struct ksym_trigger *trig = c->trig;

	trig->off = c->off;
	trig->canon = kasprintf(GFP_KERNEL, "%s%s%s",
				c->is_addr && !c->probe_typed ?
				KSYM_VOID_CAST : "",
				c->f->name, c->off_str);
	return trig->canon ? 0 : -ENOMEM;
}

/*
 * The watched field: its type (the cast, or the field's own "struct foo
 * *"), its path through BTF, its offset and length; @name gets what events
 * and profiles call it.
 */
static int ksym_trigger_resolve(struct ksym_tctx *c, char *name)
{
	struct ksym_target *t = c->t;
	unsigned long size = 0;
	int n, ret;

	if (!t->cast && ksym_field_struct(c->f->type, c->type, sizeof(c->type)))
		t->cast = c->type;
	if (!t->cast && *c->path)
		return ksym_tctx_fail(c, KSYM_ERR_T_NEED_TYPE, c->path, -EINVAL);
	if (t->cast) {
		t->path = c->path;
		t->path_pos = ksym_tctx_pos(c, c->path);
		ret = ksym_btf_resolve_type(c->e, t);
		if (ret)
			return ret;
		size = t->size;
		/* Events and profiles name the type and the path. */
		scnprintf(name, KSYM_TARGET_MAX, "%s%s",
			  strchr(t->cast, ' ') + 1, t->canon);
	} else {
		strscpy(name, c->f->name, KSYM_TARGET_MAX);
	}
	c->trig->off = t->off + c->off;
	if (c->off) {
		size = 0;
		n = strlen(name);
		scnprintf(name + n, KSYM_TARGET_MAX - n, "%s", c->off_str);
	}
	if (c->len && size && c->len > size)
		return ksym_entry_fail(c->e, KSYM_ERR_LEN_TOO_BIG, c->len_pos,
				       -EINVAL);
	if (!c->len)
		c->len = ksym_default_len(c->trig->off, size);
	if (!c->len)
		return ksym_entry_fail(c->e, KSYM_ERR_NEED_LEN, c->field_pos,
				       -EINVAL);
	c->trig->len = c->len;
	return 0;
}

/*
 * The watch's canonical text: the cast only where the field does not give
 * it.
 */
static int ksym_trigger_watch_canon(struct ksym_tctx *c)
{
	const char *cast = "", *cast_end = "";
	struct ksym_trigger *trig = c->trig;
	struct ksym_target *t = c->t;

	if (t->cast && t->cast != c->type) {
		cast = t->cast;
		cast_end = ")";
	} else if (c->is_addr && !t->cast) {
		cast_end = KSYM_VOID_CAST;
	}
	trig->canon = kasprintf(GFP_KERNEL, "%s%s%s%s%s%s/%u:%s",
				*cast ? "(" : "", cast, cast_end, c->f->name,
				t->canon, c->off_str, trig->len,
				ksym_access_str(trig->access));
	return trig->canon ? 0 : -ENOMEM;
}

/*
 * Parse @param (at @pos in the command, for the caret) for @file's event
 * into @trig; on error, @e->err and @e->err_pos say what and where.
 */
static int ksym_trigger_parse_param(struct ksym_entry *e,
				    struct trace_event_file *file,
				    char *param, int pos,
				    struct ksym_trigger *trig, char **count)
{
	struct ksym_target *t __free(kfree) = kzalloc(sizeof(*t), GFP_KERNEL);
	char *name __free(kfree) = kzalloc(KSYM_TARGET_MAX, GFP_KERNEL);
	struct ksym_tctx c = {
		.e = e, .param = param, .pos = pos, .trig = trig, .t = t,
		.p = param,
	};
	int ret;

	*count = NULL;
	if (!t || !name)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos, -ENOMEM);
	/* Its types first: the event's own struct (it holds the event). */
	t->mod = file->event_call->module;
	ret = ksym_trigger_parse_cast(&c);
	if (!ret)
		ret = ksym_trigger_parse_field(&c);
	if (!ret)
		ret = trig->unwatch ? ksym_trigger_parse_unwatch_tail(&c) :
				      ksym_trigger_parse_watch_tail(&c);
	*count = c.count;
	if (!ret)
		ret = ksym_trigger_parse_count(&c);
	if (!ret)
		ret = ksym_trigger_find_field(&c, file);
	if (ret)
		return ret;
	ksym_trigger_offset_str(c.off_str, sizeof(c.off_str), c.off);
	if (trig->unwatch)
		return ksym_trigger_unwatch_canon(&c);
	ret = ksym_trigger_resolve(&c, name);
	if (!ret)
		ret = ksym_trigger_watch_canon(&c);
	if (!ret)
		trig->name = no_free_ptr(name);
	return ret;
}

static void ksym_trigger_destroy(struct ksym_trigger *trig)
{
	int i;

	for (i = 0; i < trig->nr_slots; i++)
		ksym_dyn_free(trig->slots[i]);
	kfree(trig->canon);
	kfree(trig->name);
	kfree(trig);
}

/*
 * Only one of each trigger text per event; matched by that text. With
 * @shown, @canon may also be the trigger as its file shows it (count
 * included), or that cut before its first '[': the ftrace selftests
 * remove triggers by writing back what they read, up to the first '['.
 */
static struct event_trigger_data *
ksym_trigger_find(struct trace_event_file *file, struct event_command *cmd,
		  const char *canon, bool shown)
{
	struct event_trigger_data *data;
	struct ksym_trigger *trig;
	char count[32];
	size_t n;

	lockdep_assert_held(&event_mutex);
	list_for_each_entry(data, &file->triggers, list) {
		if (data->cmd_ops != cmd)
			continue;
		trig = data->private_data;
		if (!strcmp(trig->canon, canon))
			return data;
		if (!shown)
			continue;
		n = strlen(canon);
		if (n < strlen(trig->canon)) {
			if (!strncmp(trig->canon, canon, n) &&
			    trig->canon[n] == '[')
				return data;
			continue;
		}
		n = strlen(trig->canon);
		if (strncmp(trig->canon, canon, n))
			continue;
		if (data->count == -1)
			strscpy(count, ":unlimited", sizeof(count));
		else
			snprintf(count, sizeof(count), ":count=%ld",
				 data->count);
		if (!strcmp(count, canon + n))
			return data;
	}
	return NULL;
}

static int ksym_trigger_reg(char *glob, struct event_trigger_data *data,
			    struct trace_event_file *file)
{
	struct ksym_trigger *trig = data->private_data;
	int ret;

	if (ksym_trigger_find(file, data->cmd_ops, trig->canon, false))
		return -EEXIST;
	if (data->cmd_ops->init) {
		ret = data->cmd_ops->init(data);
		if (ret < 0)
			return ret;
	}
	list_add_rcu(&data->list, &file->triggers);
	update_cond_flag(file);
	ret = trace_event_trigger_enable_disable(file, 1);
	if (ret < 0) {
		list_del_rcu(&data->list);
		update_cond_flag(file);
	}
	return ret;
}

static void ksym_trigger_unreg(char *glob, struct event_trigger_data *test,
			       struct trace_event_file *file)
{
	struct ksym_trigger *trig = test->private_data;
	struct event_trigger_data *data;

	data = ksym_trigger_find(file, test->cmd_ops, trig->canon, false);
	if (!data)
		return;
	list_del_rcu(&data->list);
	trace_event_trigger_enable_disable(file, 0);
	update_cond_flag(file);
	if (data->cmd_ops->free)
		data->cmd_ops->free(data);
}

static int ksym_trigger_init_data(struct event_trigger_data *data)
{
	data->ref++;
	return 0;
}

/*
 * The last reference: the trigger is off the event's list. Its slots are
 * released by the work item, after the triggers still running are done.
 */
static void ksym_trigger_free_data(struct event_trigger_data *data)
{
	struct ksym_trigger *trig = data->private_data;

	if (WARN_ON_ONCE(data->ref <= 0))
		return;
	if (--data->ref)
		return;
	mutex_lock(&ksym_trigger_mutex);
	list_del(&trig->list);
	mutex_unlock(&ksym_trigger_mutex);
	trace_event_put_ref(trig->call);
	queue_work(ksym_trigger_wq, &trig->free_work);
	trigger_data_free(data);
}

static int ksym_trigger_print(struct seq_file *m,
			      struct event_trigger_data *data)
{
	struct ksym_trigger *trig = data->private_data;

	seq_printf(m, "%s:%s", data->cmd_ops->name, trig->canon);
	if (data->count == -1)
		seq_puts(m, ":unlimited");
	else
		seq_printf(m, ":count=%ld", data->count);
	if (data->filter_str)
		seq_printf(m, " if %s\n", data->filter_str);
	else
		seq_putc(m, '\n');
	return 0;
}

/* A new trigger of @cmd_ops on @file, before its parameter is parsed. */
static void ksym_trigger_setup(struct ksym_trigger *trig,
			       struct event_command *cmd_ops,
			       struct trace_event_file *file)
{
	struct trace_event_call *call = file->event_call;

	trig->unwatch = cmd_ops->trigger == ksym_unwatch_trigger;
	trig->tr = file->tr;
	snprintf(trig->event, sizeof(trig->event), "%s:%s",
		 call->class->system, trace_event_name(call));
	INIT_LIST_HEAD(&trig->list);
	INIT_WORK(&trig->reg_work, ksym_trigger_reg_workfn);
	INIT_WORK(&trig->free_work, ksym_trigger_free_workfn);
}

/*
 * Cut @param (at @pos in the command) at the end of its entry; *@filter
 * gets what follows, the filter without its "if", or NULL.
 */
static int ksym_trigger_split_filter(struct ksym_entry *e, char *param,
				     int pos, char **filter)
{
	char *end;

	*filter = NULL;
	if (!param || !*param)
		return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, pos, -EINVAL);
	/* It ends at a blank, but for blanks in a cast. */
	end = ksym_entry_end(param);
	*filter = *end ? skip_spaces(end + 1) : NULL;
	*end = '\0';
	if (*filter && !**filter)
		*filter = NULL;
	/*
	 * After the entry only "if FILTER" may come (set_trigger_filter()
	 * splits at a space or tab); the filter's own errors are the filter
	 * parser's to log, this one would not be.
	 */
	if (*filter && (!str_has_prefix(*filter, "if") ||
			((*filter)[2] != ' ' && (*filter)[2] != '\t') ||
			!*skip_spaces(*filter + 2)))
		return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX,
				       pos + (*filter - param), -EINVAL);
	return 0;
}

/* Removal: the trigger as its file shows it, or as it was set. */
static int ksym_trigger_find_removal(struct ksym_entry *e,
				     struct event_command *cmd_ops,
				     struct trace_event_file *file, char *param,
				     int pos, struct ksym_trigger *trig,
				     struct event_trigger_data **found)
{
	char *count;
	int ret;

	*found = ksym_trigger_find(file, cmd_ops, param, true);
	if (!*found) {
		ret = ksym_trigger_parse_param(e, file, param, pos, trig,
					       &count);
		if (ret)
			return ret;
		*found = ksym_trigger_find(file, cmd_ops, trig->canon, false);
	}
	if (!*found)
		return ksym_entry_fail(e, KSYM_ERR_T_NOT_FOUND, pos, -ENOENT);
	return 0;
}

/* Unregister @found, the trigger ksym_trigger_find_removal() found. */
static int ksym_trigger_remove(struct event_command *cmd_ops,
			       struct trace_event_file *file, char *glob,
			       struct ksym_trigger *trig,
			       struct event_trigger_data *found)
{
	kfree(trig->canon);
	trig->canon = kstrdup(((struct ksym_trigger *)
			       found->private_data)->canon, GFP_KERNEL);
	if (trig->canon) {
		struct event_trigger_data test = {
			.cmd_ops = cmd_ops, .private_data = trig,
		};

		event_trigger_unregister(cmd_ops, file, glob + 1, &test);
	}
	return trig->canon ? 0 : -ENOMEM;
}

/*
 * The slots, parked until their breakpoints are registered. On failure,
 * the trigger counts those allocated: the others are not there to free.
 */
static int ksym_trigger_alloc_slots(struct ksym_trigger *trig)
{
	int i;

	mutex_lock(&ksym_trigger_mutex);
	trig->nr_slots = ksym_trigger_slots;
	mutex_unlock(&ksym_trigger_mutex);
	for (i = 0; i < trig->nr_slots; i++) {
		trig->slots[i] = ksym_dyn_alloc(trig, trig->name);
		if (!trig->slots[i]) {
			trig->nr_slots = i;
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Register @trig, parsed, on @file: its trigger data with @count and
 * @filter, a reference on the event, its place in ksym_triggers and its
 * slots' registration. On failure, the caller frees @trig.
 */
static int ksym_trigger_attach(struct event_command *cmd_ops,
			       struct trace_event_file *file, char *glob,
			       char *cmd, char *count, char *filter,
			       struct ksym_trigger *trig)
{
	struct trace_event_call *call = file->event_call;
	struct event_trigger_data *data;
	int ret;

	data = trigger_data_alloc(cmd_ops, cmd, count, trig);
	if (!data)
		return -ENOMEM;
	if (count && kstrtol(count, 0, &data->count)) {
		ret = -EINVAL;
		goto out_free;
	}
	ret = event_trigger_set_filter(cmd_ops, file, filter, data);
	if (ret < 0)
		goto out_free;
	/*
	 * The module of the event stays while the trigger is on it: its
	 * tracepoint must lose this probe before the module goes (the core
	 * leaves a soft-enabled event's probe at unload), and its BTF types
	 * name the watches.
	 */
	if (!trace_event_try_get_ref(call)) {
		ret = -ENODEV;
		goto out_free;
	}
	trig->call = call;
	/* Held across registration, as event_trigger_parse() does. */
	ksym_trigger_init_data(data);
	ret = event_trigger_register(cmd_ops, file, glob, data);
	if (ret) {
		data->ref--;
		trace_event_put_ref(call);
		event_trigger_reset_filter(cmd_ops, data);
		goto out_free;
	}
	mutex_lock(&ksym_trigger_mutex);
	list_add_tail(&trig->list, &ksym_triggers);
	mutex_unlock(&ksym_trigger_mutex);
	if (trig->nr_slots)
		queue_work(ksym_trigger_wq, &trig->reg_work);
	/* Drop the reference taken above: the event's list holds one. */
	ksym_trigger_free_data(data);
	return 0;

out_free:
	trigger_data_free(data);
	return ret;
}

static int ksym_trigger_parse(struct event_command *cmd_ops,
			      struct trace_event_file *file, char *glob,
			      char *cmd, char *param_and_filter)
{
	bool remove = event_trigger_check_remove(glob);
	struct ksym_entry *e __free(kfree) = kzalloc(sizeof(*e), GFP_KERNEL);
	struct event_trigger_data *found;
	struct ksym_trigger *trig;
	char *text, *param, *filter, *count;
	int pos, ret;

	lockdep_assert_held(&event_mutex);
	/* For error_log: the command as written, the caret in it. */
	text = kasprintf(GFP_KERNEL, "%s:%s", glob,
			 param_and_filter ? param_and_filter : "");
	trig = kzalloc(sizeof(*trig), GFP_KERNEL);
	if (!text || !trig || !e) {
		ret = -ENOMEM;
		goto out_free;
	}
	e->err = -1;
	pos = strlen(glob) + 1;
	ksym_trigger_setup(trig, cmd_ops, file);
	param = param_and_filter;
	ret = ksym_trigger_split_filter(e, param, pos, &filter);
	if (ret)
		goto out_log;
	if (remove) {
		ret = ksym_trigger_find_removal(e, cmd_ops, file, param, pos,
						trig, &found);
		if (ret)
			goto out_log;
		ret = ksym_trigger_remove(cmd_ops, file, glob, trig, found);
		goto out_free;
	}
	/*
	 * What ksym_trace_filter refuses under lockdown: value= reads
	 * memory. Removing a trigger only lowers exposure: not refused.
	 */
	if (!trig->unwatch && security_locked_down(LOCKDOWN_KPROBES)) {
		ret = ksym_entry_fail(e, KSYM_ERR_LOCKDOWN, pos, -EPERM);
		goto out_log;
	}
	ret = ksym_trigger_parse_param(e, file, param, pos, trig, &count);
	if (ret)
		goto out_log;
	if (ksym_trigger_find(file, cmd_ops, trig->canon, false)) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_EXISTS, pos, -EEXIST);
		goto out_log;
	}
	if (!trig->unwatch) {
		ret = ksym_trigger_alloc_slots(trig);
		if (ret)
			goto out_free;
	}
	ret = ksym_trigger_attach(cmd_ops, file, glob, cmd, count, filter,
				  trig);
	if (ret)
		goto out_free;
	kfree(text);
	return 0;

out_log:
	if (e->err >= 0)
		ksym_log_at(file->tr, trig ? trig->event : "ksym_watch", text,
			    e->err, e->err_pos);
out_free:
	/* Slots not allocated are not counted (ksym_trigger_alloc_slots()). */
	if (trig)
		ksym_trigger_destroy(trig);
	kfree(text);
	return ret;
}

/* The two commands differ in their name and what they do when they fire. */
#define KSYM_TRIGGER_CMD(_name, _fn)					\
	{								\
		.name		= _name,				\
		.trigger_type	= ETT_NONE,				\
		.flags		= EVENT_CMD_FL_NEEDS_REC,		\
		.parse		= ksym_trigger_parse,			\
		.reg		= ksym_trigger_reg,			\
		.unreg		= ksym_trigger_unreg,			\
		.set_filter	= set_trigger_filter,			\
		.trigger	= _fn,					\
		.count_func	= ksym_trigger_count,			\
		.init		= ksym_trigger_init_data,		\
		.free		= ksym_trigger_free_data,		\
		.print		= ksym_trigger_print,			\
	}

static struct event_command ksym_watch_cmd =
	KSYM_TRIGGER_CMD("ksym_watch", ksym_watch_trigger);
static struct event_command ksym_unwatch_cmd =
	KSYM_TRIGGER_CMD("ksym_unwatch", ksym_unwatch_trigger);

/* ------------------------------------------------------------------------
 * trace_stat/ksym_triggers: what each trigger did.
 */

struct ksym_trigger_row {
	struct ksym_trigger_row	*next;
	char		event[2 * MAX_EVENT_NAME_LEN + 2];
	char		what[KSYM_ENTRY_MAX];
	int		slots, nr_slots;
	unsigned long	armed, missed, refused, unwatched, too_hot, hits;
	unsigned long	stray, late, stale;
	int		live;
	u64		window_last, window_max;
};

static void ksym_trigger_row_fill(struct ksym_trigger_row *row,
				  struct ksym_trigger *trig)
{
	struct ksym_dyn *d;
	bool live;
	int i, cpu;

	strscpy(row->event, trig->event, sizeof(row->event));
	snprintf(row->what, sizeof(row->what), "%s:%s",
		 trig->unwatch ? "ksym_unwatch" : "ksym_watch", trig->canon);
	row->slots = READ_ONCE(trig->nr_live_slots);
	row->nr_slots = trig->nr_slots;
	row->armed = atomic_long_read(&trig->armed);
	row->missed = atomic_long_read(&trig->missed);
	row->refused = atomic_long_read(&trig->refused);
	row->unwatched = atomic_long_read(&trig->unwatched);
	row->too_hot = atomic_long_read(&trig->too_hot);
	row->stray = atomic_long_read(&trig->stray);
	row->late = atomic_long_read(&trig->late);
	row->stale = atomic_long_read(&trig->stale);
	row->window_last = READ_ONCE(trig->window_last);
	row->window_max = READ_ONCE(trig->window_max);
	for (i = 0; i < trig->nr_slots; i++) {
		d = trig->slots[i];
		ksym_dyn_object(d, &live);
		row->live += live;
		for_each_possible_cpu(cpu)
			row->hits += ksym_dyn_cpu_hits(d, cpu);
	}
}

static void *ksym_trigger_stat_start(struct tracer_stat *trace)
{
	struct ksym_trigger_row *head = NULL, **tail = &head, *row;
	struct ksym_trigger *trig;

	/* Triggers just set: their slots first. */
	ksym_trigger_sync();
	mutex_lock(&ksym_trigger_mutex);
	list_for_each_entry(trig, &ksym_triggers, list) {
		row = kzalloc(sizeof(*row), GFP_KERNEL);
		if (!row)
			break;
		ksym_trigger_row_fill(row, trig);
		*tail = row;
		tail = &row->next;
	}
	mutex_unlock(&ksym_trigger_mutex);
	return head;
}

static void *ksym_trigger_stat_next(void *prev, int idx)
{
	return ((struct ksym_trigger_row *)prev)->next;
}

static void ksym_trigger_stat_release(void *stat)
{
	kfree(stat);
}

static int ksym_trigger_stat_headers(struct seq_file *m)
{
	seq_puts(m, "# Event  Trigger  Slots  Armed  Missed  Refused  Unwatched  TooHot  Live  Hits  Window(last/max ns)  Stray  Late  Stale\n");
	return 0;
}

static int ksym_trigger_stat_show(struct seq_file *m, void *v)
{
	struct ksym_trigger_row *row = v;

	seq_printf(m, "%s  %s  %d/%d  %lu  %lu  %lu  %lu  %lu  %d  %lu  %llu/%llu  %lu  %lu  %lu\n",
		   row->event, row->what, row->slots, row->nr_slots,
		   row->armed, row->missed, row->refused, row->unwatched,
		   row->too_hot, row->live, row->hits, row->window_last,
		   row->window_max, row->stray, row->late, row->stale);
	return 0;
}

static struct tracer_stat ksym_trigger_stat = {
	.name		= "ksym_triggers",
	.stat_start	= ksym_trigger_stat_start,
	.stat_next	= ksym_trigger_stat_next,
	.stat_show	= ksym_trigger_stat_show,
	.stat_release	= ksym_trigger_stat_release,
	.stat_headers	= ksym_trigger_stat_headers,
};

static struct trace_min_max_param ksym_trigger_slots_param = {
	.lock	= &ksym_trigger_mutex,
	.val	= &ksym_trigger_slots,
	.min	= &ksym_trigger_slots_min,
	.max	= &ksym_trigger_slots_max,
};

/* ksym_stack_watch_ms: 0 (no bound) to an hour. */
static u64 ksym_stack_watch_ms_max = 3600 * MSEC_PER_SEC;

static struct trace_min_max_param ksym_stack_watch_ms_param = {
	.lock	= &ksym_trigger_mutex,
	.val	= &ksym_stack_watch_ms,
	.max	= &ksym_stack_watch_ms_max,
};

/**
 * ksym_trigger_init - register the triggers and their files
 *
 * Return: 0, or the first error.
 */
int __init ksym_trigger_init(void)
{
	int ret;

	ksym_trigger_wq = alloc_ordered_workqueue("ksym_trigger", 0);
	if (!ksym_trigger_wq)
		return -ENOMEM;
	ret = register_event_command(&ksym_watch_cmd);
	if (!ret)
		ret = register_event_command(&ksym_unwatch_cmd);
	if (ret)
		return ret;
	trace_create_file("ksym_trigger_slots", TRACE_MODE_WRITE, NULL,
			  &ksym_trigger_slots_param, &trace_min_max_fops);
	trace_create_file("ksym_stack_watch_ms", TRACE_MODE_WRITE, NULL,
			  &ksym_stack_watch_ms_param, &trace_min_max_fops);
	ret = ksym_dyn_init();
	if (ret)
		return ret;
	return register_stat_tracer(&ksym_trigger_stat);
}
