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
		(ksym_addr_vmalloc(addr, len) &&
		 !ksym_addr_stack_regs(addr, len)));
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
 * The "+OFFSET" or "-OFFSET" that ends @path (a struct path's, or a frame
 * offset from a stack pointer a probe fetched), cut off; @param and @pos
 * place the caret. Within KSYM_TRIGGER_OFFSET_MAX either way: a stack's
 * size (x86-64 and arm64, without KASAN), whatever the kernel's config.
 */
#define KSYM_TRIGGER_OFFSET_MAX	SZ_16K

static int ksym_trigger_parse_offset(struct ksym_entry *e, char *path,
				     char *param, int pos, long *off)
{
	char *sign = strpbrk(path, "+-");
	unsigned long n;

	*off = 0;
	if (!sign)
		return 0;
	if (kstrtoul(sign + 1, 0, &n) || n > KSYM_TRIGGER_OFFSET_MAX)
		return ksym_entry_fail(e, KSYM_ERR_BAD_OFFSET,
				       pos + (sign + 1 - param), -EINVAL);
	*off = *sign == '-' ? -(long)n : (long)n;
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
	char type[KSYM_NAME_LEN], *p = param, *field, *path, *colon, *slash;
	char off_str[24], *name __free(kfree) = kzalloc(KSYM_TARGET_MAX,
							 GFP_KERNEL);
	const char *cast = "", *cast_end = "";
	struct ftrace_event_field *f;
	unsigned long size = 0, nr;
	long off = 0;
	int n, ret, field_pos, len_pos = 0;
	bool is_addr = false, probe_typed = false;
	unsigned int len = 0;

	*count = NULL;
	if (!t || !name)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos, -ENOMEM);
	/* Its types first: the event's own struct (it holds the event). */
	t->mod = file->event_call->module;
	/* "(void *)": a number field that holds an address, untyped. */
	if (!strncmp(p, KSYM_VOID_CAST, strlen(KSYM_VOID_CAST))) {
		p += strlen(KSYM_VOID_CAST);
		is_addr = true;
	} else if (!trig->unwatch && *p == '(') {
		n = ksym_parse_cast(e, p, pos, t);
		if (n < 0)
			return n;
		p += n;
		is_addr = true;
	}
	/* FIELD: an identifier, as in the event's format. */
	field = p;
	field_pos = pos + (p - param);
	while (isalnum(*p) || *p == '_')
		p++;
	if (p == field || isdigit(*field))
		return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, field_pos,
				       -EINVAL);
	path = p;
	colon = strchr(p, ':');
	if (trig->unwatch) {
		if (colon)
			*colon = '\0';
		ret = ksym_trigger_parse_offset(e, path, param, pos, &off);
		if (ret)
			return ret;
		if (*path)
			return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX,
					       pos + (path - param), -EINVAL);
		if (colon)
			*count = colon + 1;
	} else {
		unsigned int access;

		if (!colon)
			return ksym_entry_fail(e, KSYM_ERR_T_SYNTAX,
					       pos + strlen(param), -EINVAL);
		*colon = '\0';
		p = colon + 1;
		colon = strchr(p, ':');
		if (colon) {
			*colon = '\0';
			*count = colon + 1;
		}
		if (ksym_parse_access(p, &access))
			return ksym_entry_fail(e, KSYM_ERR_BAD_ACCESS,
					       pos + (p - param), -EINVAL);
		if (access != KSYM_ACCESS_W && access != KSYM_ACCESS_RW)
			return ksym_entry_fail(e, KSYM_ERR_T_DATA_ONLY,
					       pos + (p - param), -EINVAL);
		trig->access = access;
		slash = strchr(path, '/');
		if (slash) {
			*slash = '\0';
			len_pos = pos + (slash + 1 - param);
			if (kstrtouint(slash + 1, 0, &len) ||
			    (len != 1 && len != 2 && len != 4 && len != 8))
				return ksym_entry_fail(e, KSYM_ERR_BAD_LEN,
						       pos + (slash + 1 - param),
						       -EINVAL);
		}
		ret = ksym_trigger_parse_offset(e, path, param, pos, &off);
		if (ret)
			return ret;
	}
	if (*count && (kstrtoul(*count, 0, &nr) || nr > LONG_MAX))
		return ksym_entry_fail(e, KSYM_ERR_T_BAD_COUNT,
				       pos + (*count - param), -EINVAL);

	n = *path;
	*path = '\0';
	f = trace_find_event_field(file->event_call, field);
	*path = n;
	if (!f)
		return ksym_entry_fail(e, KSYM_ERR_T_NO_FIELD, field_pos,
				       -ENOENT);
	/* A probe's argument that BTF types: its struct, as if cast. */
	if (!is_addr &&
	    ksym_probe_arg_struct(file->event_call, f->name, type,
				  sizeof(type))) {
		probe_typed = true;
		is_addr = true;
		if (!trig->unwatch) {
			t->cast = type;
			t->cast_pos = field_pos;
		}
	}
	/*
	 * An address: a pointer, or a number the user says holds one (a
	 * probe's u64 argument, an unsigned long call_site). Never a count
	 * or a size taken for one (kmalloc's bytes_req).
	 */
	if (f->size != sizeof(long) ||
	    (f->filter_type != FILTER_OTHER &&
	     f->filter_type != FILTER_PTR_STRING) ||
	    (!is_addr && !strchr(f->type, '*')))
		return ksym_entry_fail(e, KSYM_ERR_T_NOT_ADDR, field_pos,
				       -EINVAL);
	trig->field_off = f->offset;
	ksym_trigger_offset_str(off_str, sizeof(off_str), off);
	if (trig->unwatch) {
		trig->off = off;
		trig->canon = kasprintf(GFP_KERNEL, "%s%s%s",
					is_addr && !probe_typed ?
					KSYM_VOID_CAST : "",
					f->name, off_str);
		return trig->canon ? 0 : -ENOMEM;
	}

	/* The type: the cast, or the field's own "struct foo *". */
	if (!t->cast && ksym_field_struct(f->type, type, sizeof(type)))
		t->cast = type;
	if (!t->cast && *path)
		return ksym_entry_fail(e, KSYM_ERR_T_NEED_TYPE,
				       pos + (path - param), -EINVAL);
	if (t->cast) {
		t->path = path;
		t->path_pos = pos + (path - param);
		ret = ksym_btf_resolve_type(e, t);
		if (ret)
			return ret;
		size = t->size;
		/* Events and profiles name the type and the path. */
		scnprintf(name, KSYM_TARGET_MAX, "%s%s",
			  strchr(t->cast, ' ') + 1, t->canon);
	} else {
		strscpy(name, f->name, KSYM_TARGET_MAX);
	}
	trig->off = t->off + off;
	if (off) {
		size = 0;
		n = strlen(name);
		scnprintf(name + n, KSYM_TARGET_MAX - n, "%s", off_str);
	}
	if (len && size && len > size)
		return ksym_entry_fail(e, KSYM_ERR_LEN_TOO_BIG, len_pos,
				       -EINVAL);
	if (!len)
		len = ksym_default_len(trig->off, size);
	if (!len)
		return ksym_entry_fail(e, KSYM_ERR_NEED_LEN, field_pos, -EINVAL);
	trig->len = len;

	/* Canonical: the cast only where the field does not give it. */
	if (t->cast && t->cast != type) {
		cast = t->cast;
		cast_end = ")";
	} else if (is_addr && !t->cast) {
		cast_end = KSYM_VOID_CAST;
	}
	trig->canon = kasprintf(GFP_KERNEL, "%s%s%s%s%s%s/%u:%s",
				*cast ? "(" : "", cast, cast_end, f->name,
				t->canon, off_str, len,
				ksym_access_str(trig->access));
	if (!trig->canon)
		return -ENOMEM;
	trig->name = no_free_ptr(name);
	return 0;
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

static int ksym_trigger_parse(struct event_command *cmd_ops,
			      struct trace_event_file *file, char *glob,
			      char *cmd, char *param_and_filter)
{
	bool remove = event_trigger_check_remove(glob);
	struct trace_event_call *call = file->event_call;
	struct event_trigger_data *data = NULL;
	struct ksym_entry *e __free(kfree) = kzalloc(sizeof(*e), GFP_KERNEL);
	struct ksym_trigger *trig;
	char *text, *param, *filter, *end, *count;
	int i = 0, pos, ret;

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
	trig->unwatch = cmd_ops->trigger == ksym_unwatch_trigger;
	trig->tr = file->tr;
	snprintf(trig->event, sizeof(trig->event), "%s:%s",
		 call->class->system, trace_event_name(call));
	INIT_LIST_HEAD(&trig->list);
	INIT_WORK(&trig->reg_work, ksym_trigger_reg_workfn);
	INIT_WORK(&trig->free_work, ksym_trigger_free_workfn);

	param = param_and_filter;
	if (!param || !*param) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, pos, -EINVAL);
		goto out_log;
	}
	/* It ends at a blank, but for blanks in a cast. */
	end = ksym_entry_end(param);
	filter = *end ? skip_spaces(end + 1) : NULL;
	*end = '\0';
	if (filter && !*filter)
		filter = NULL;
	/*
	 * After the entry only "if FILTER" may come (set_trigger_filter()
	 * splits at a space or tab); the filter's own errors are the filter
	 * parser's to log, this one would not be.
	 */
	if (filter && (!str_has_prefix(filter, "if") ||
		       (filter[2] != ' ' && filter[2] != '\t') ||
		       !*skip_spaces(filter + 2))) {
		ret = ksym_entry_fail(e, KSYM_ERR_T_SYNTAX, pos + (filter - param),
				      -EINVAL);
		goto out_log;
	}

	/* Removal: the trigger as its file shows it, or as it was set. */
	if (remove) {
		struct event_trigger_data *found;

		found = ksym_trigger_find(file, cmd_ops, param, true);
		if (!found) {
			ret = ksym_trigger_parse_param(e, file, param, pos,
						       trig, &count);
			if (ret)
				goto out_log;
			found = ksym_trigger_find(file, cmd_ops, trig->canon,
						  false);
		}
		if (!found) {
			ret = ksym_entry_fail(e, KSYM_ERR_T_NOT_FOUND, pos,
					      -ENOENT);
			goto out_log;
		}
		kfree(trig->canon);
		trig->canon = kstrdup(((struct ksym_trigger *)
				       found->private_data)->canon, GFP_KERNEL);
		if (trig->canon) {
			struct event_trigger_data test = {
				.cmd_ops = cmd_ops, .private_data = trig,
			};

			event_trigger_unregister(cmd_ops, file, glob + 1, &test);
		}
		ret = trig->canon ? 0 : -ENOMEM;
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

	/* The slots, parked until their breakpoints are registered. */
	if (!trig->unwatch) {
		mutex_lock(&ksym_trigger_mutex);
		trig->nr_slots = ksym_trigger_slots;
		mutex_unlock(&ksym_trigger_mutex);
		for (i = 0; i < trig->nr_slots; i++) {
			trig->slots[i] = ksym_dyn_alloc(trig, trig->name);
			if (!trig->slots[i])
				break;
		}
	}
	if (i < trig->nr_slots) {
		ret = -ENOMEM;
		goto out_free;
	}

	ret = -ENOMEM;
	data = trigger_data_alloc(cmd_ops, cmd, count, trig);
	if (!data)
		goto out_free;
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
	kfree(text);
	return 0;

out_log:
	if (e->err >= 0)
		ksym_log_at(file->tr, trig ? trig->event : "ksym_watch", text,
			    e->err, e->err_pos);
out_free:
	if (data)
		trigger_data_free(data);
	if (trig) {
		/* Slots not allocated yet are NULL. */
		trig->nr_slots = i;
		ksym_trigger_destroy(trig);
	}
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
	unsigned long	stray;
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
	seq_puts(m, "# Event  Trigger  Slots  Armed  Missed  Refused  Unwatched  TooHot  Live  Hits  Window(last/max ns)  Stray\n");
	return 0;
}

static int ksym_trigger_stat_show(struct seq_file *m, void *v)
{
	struct ksym_trigger_row *row = v;

	seq_printf(m, "%s  %s  %d/%d  %lu  %lu  %lu  %lu  %lu  %d  %lu  %llu/%llu  %lu\n",
		   row->event, row->what, row->slots, row->nr_slots,
		   row->armed, row->missed, row->refused, row->unwatched,
		   row->too_hot, row->live, row->hits, row->window_last,
		   row->window_max, row->stray);
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
	return register_stat_tracer(&ksym_trigger_stat);
}
