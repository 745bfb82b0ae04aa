// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_stat.c - the ksym tracer's profiles: trace_stat/ksym_tracer
 * (per watch) and trace_stat/ksym_callers (per watch and accessing
 * function), summed from the per-CPU counters the hit path keeps.
 */
#include <linux/kallsyms.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "trace.h"
#include "trace_stat.h"
#include "trace_ksym.h"

/* ------------------------------------------------------------------------
 * Profiles: trace_stat/ksym_tracer and trace_stat/ksym_callers.
 *
 * Reading a stat file takes a snapshot of the per-CPU counters; the rows
 * are allocated here, in process context, and freed by stat_release.
 */

struct ksym_stat_row {
	struct ksym_stat_row	*next;
	int			watch_idx;
	char			target[KSYM_TARGET_MAX];
	unsigned int		len;
	unsigned int		access;
	unsigned long		hits;		/* of the watch */
	unsigned long		caller;		/* function start, 0: other */
	unsigned long		caller_hits;
	unsigned int		nr_callers;
	char			missing[40];	/* CPUs, or "-" */
};

static struct ksym_stat_row *ksym_row_new(struct ksym_watch *watch, int idx)
{
	struct ksym_stat_row *row;

	row = kzalloc(sizeof(*row), GFP_KERNEL);
	if (!row)
		return NULL;
	row->watch_idx = idx;
	/* The name the events show: the path, without a cast. */
	strscpy(row->target, watch->spec.target + watch->spec.name_off,
		sizeof(row->target));
	row->len = watch->spec.len;
	row->access = watch->spec.access;
	strscpy(row->missing, "-", sizeof(row->missing));
	/* A trigger's watch: which object, "ksym_hitgen_obj.count@0x...". */
	if (watch->dyn) {
		bool live;
		unsigned long obj = ksym_dyn_object(watch->dyn, &live);
		size_t n = strlen(row->target);

		snprintf(row->target + n, sizeof(row->target) - n, "@0x%lx",
			 obj);
		if (!live)
			strscpy(row->missing, "unwatched",
				sizeof(row->missing));
	}
	return row;
}

/* The Missing CPUs column: "-", the CPU list, or why none is watched. */
static void ksym_row_missing(struct ksym_stat_row *row,
			     struct ksym_watch *watch, struct cpumask *missing)
{
	size_t size = sizeof(row->missing);

	if (watch->dyn)
		return;
	if (READ_ONCE(watch->hot))
		strscpy(row->missing, "disarmed (too hot)", size);
	else if (ksym_watch_missing(watch, missing) &&
		 snprintf(row->missing, size, "%*pbl",
			  cpumask_pr_args(missing)) >= size)
		strscpy(row->missing + size - 4, "...", 4);
}

/* Function that holds @ip, for grouping accessing instructions. */
static unsigned long ksym_func_of(unsigned long ip)
{
	unsigned long size, off;

	if (kallsyms_lookup_size_offset(ip, &size, &off))
		return ip - off;
	return ip;
}

/*
 * Sum one watch's per-CPU tables into @rows (one per distinct function,
 * then "other"); returns the number of rows used.
 */
static int ksym_sum_callers(struct ksym_watch *watch,
			    struct ksym_stat_row **rows, int max, int idx,
			    unsigned long *total)
{
	unsigned long other = 0, ip, hits, func;
	struct ksym_cpu_stats *s;
	int cpu, i, j, nr = 0;

	*total = 0;
	for_each_possible_cpu(cpu) {
		s = per_cpu_ptr(watch->stats, cpu);
		other += READ_ONCE(s->other);
		for (i = 0; i < KSYM_CALLER_SLOTS; i++) {
			/* Pairs with ksym_count_hit(): ip, then hits. */
			ip = smp_load_acquire(&s->callers[i].ip);
			if (!ip)
				break;
			hits = READ_ONCE(s->callers[i].hits);
			func = ksym_func_of(ip);
			for (j = 0; j < nr; j++)
				if (rows[j]->caller == func)
					break;
			if (j == nr) {
				if (nr == max - 1)
					return -ENOMEM;
				rows[nr] = ksym_row_new(watch, idx);
				if (!rows[nr])
					return -ENOMEM;
				rows[nr]->caller = func;
				nr++;
			}
			rows[j]->caller_hits += hits;
			*total += hits;
		}
	}
	*total += other;
	if (other) {
		rows[nr] = ksym_row_new(watch, idx);
		if (!rows[nr])
			return -ENOMEM;
		rows[nr]->caller_hits = other;
		nr++;
	}
	for (i = 0; i < nr; i++) {
		rows[i]->hits = *total;
		rows[i]->nr_callers = nr;
	}
	return nr;
}

/*
 * The watches, then the triggers' slots that watched an object, under
 * ksym_mutex; NULL after the last.
 */
static struct ksym_watch *ksym_snapshot_next(struct ksym_watch *watch)
{
	if (watch && watch->dyn)
		return ksym_dyn_next_watch(watch);
	if (!watch && !list_empty(&ksym_watches))
		return list_first_entry(&ksym_watches, struct ksym_watch, list);
	if (watch && !list_is_last(&watch->list, &ksym_watches))
		return list_next_entry(watch, list);
	return ksym_dyn_next_watch(NULL);
}

/*
 * Build the snapshot: one row per watch (@per_caller false) or one row
 * per watch and accessing function (@per_caller true).
 */
static struct ksym_stat_row *ksym_snapshot(bool per_caller)
{
	/* Distinct functions: at most all slots of all CPUs, plus other. */
	int max = KSYM_CALLER_SLOTS * num_possible_cpus() + 1;
	struct ksym_stat_row *head = NULL, **tail = &head;
	struct ksym_stat_row **rows;
	struct ksym_watch *watch;
	cpumask_var_t missing;
	unsigned long total;
	int idx = 0, i, nr;

	if (!zalloc_cpumask_var(&missing, GFP_KERNEL))
		return NULL;
	rows = kvcalloc(max, sizeof(*rows), GFP_KERNEL);
	if (!rows) {
		free_cpumask_var(missing);
		return NULL;
	}

	mutex_lock(&ksym_mutex);
	for (watch = ksym_snapshot_next(NULL); watch;
	     watch = ksym_snapshot_next(watch)) {
		nr = ksym_sum_callers(watch, rows, max, idx, &total);
		if (nr < 0) {
			for (i = 0; i < max && rows[i]; i++)
				kfree(rows[i]);
			break;
		}
		if (!per_caller) {
			struct ksym_stat_row *row = ksym_row_new(watch, idx);

			for (i = 0; i < nr; i++)
				kfree(rows[i]);
			if (!row)
				break;
			row->hits = total;
			row->nr_callers = nr;
			ksym_row_missing(row, watch, missing);
			nr = 1;
			rows[0] = row;
		}
		for (i = 0; i < nr; i++) {
			*tail = rows[i];
			tail = &rows[i]->next;
		}
		memset(rows, 0, max * sizeof(*rows));
		idx++;
	}
	mutex_unlock(&ksym_mutex);
	kvfree(rows);
	free_cpumask_var(missing);
	return head;
}

static void *ksym_stat_start_watches(struct tracer_stat *trace)
{
	return ksym_snapshot(false);
}

static void *ksym_stat_start_callers(struct tracer_stat *trace)
{
	return ksym_snapshot(true);
}

static void *ksym_stat_next(void *prev, int idx)
{
	return ((struct ksym_stat_row *)prev)->next;
}

/* trace_stat's rbtree owns each row: free them one at a time. */
static void ksym_stat_release(void *stat)
{
	kfree(stat);
}

/* Watches in their order; within a watch, most hits first, other last. */
static int ksym_stat_cmp_callers(const void *p1, const void *p2)
{
	const struct ksym_stat_row *a = p1, *b = p2;

	if (a->watch_idx != b->watch_idx)
		return a->watch_idx < b->watch_idx ? 1 : -1;
	if (!a->caller != !b->caller)
		return a->caller ? 1 : -1;
	if (a->caller_hits != b->caller_hits)
		return a->caller_hits > b->caller_hits ? 1 : -1;
	return -1;
}

static int ksym_stat_headers_watches(struct seq_file *m)
{
	seq_puts(m, "  Access Type  Symbol                              Counter     Callers  Missing CPUs\n");
	seq_puts(m, "  -----------  ------                              -------     -------  ------------\n");
	return 0;
}

static int ksym_stat_show_watches(struct seq_file *m, void *v)
{
	struct ksym_stat_row *row = v;
	char sym[48];

	snprintf(sym, sizeof(sym), "%s/%u", row->target, row->len);
	seq_printf(m, "  %-11s  %-34s  %-10lu  %-7u  %s\n",
		   ksym_access_str(row->access), sym, row->hits,
		   row->nr_callers, row->missing);
	return 0;
}

static int ksym_stat_headers_callers(struct seq_file *m)
{
	seq_puts(m, "  Symbol                              Caller                                    Hits        Share\n");
	seq_puts(m, "  ------                              ------                                    ----        -----\n");
	return 0;
}

static int ksym_stat_show_callers(struct seq_file *m, void *v)
{
	struct ksym_stat_row *row = v;
	unsigned long pct = row->hits ?
		div64_u64((u64)row->caller_hits * 10000, row->hits) : 0;

	seq_printf(m, "  %-34s  ", row->target);
	if (row->caller)
		seq_printf(m, "%-40ps  ", (void *)row->caller);
	else
		seq_printf(m, "%-40s  ", "[other]");
	seq_printf(m, "%-10lu  %3lu.%02lu%%\n", row->caller_hits,
		   pct / 100, pct % 100);
	return 0;
}

static struct tracer_stat ksym_stat_watches = {
	.name		= "ksym_tracer",
	.stat_start	= ksym_stat_start_watches,
	.stat_next	= ksym_stat_next,
	.stat_show	= ksym_stat_show_watches,
	.stat_release	= ksym_stat_release,
	.stat_headers	= ksym_stat_headers_watches,
};

static struct tracer_stat ksym_stat_callers = {
	.name		= "ksym_callers",
	.stat_start	= ksym_stat_start_callers,
	.stat_next	= ksym_stat_next,
	.stat_cmp	= ksym_stat_cmp_callers,
	.stat_show	= ksym_stat_show_callers,
	.stat_release	= ksym_stat_release,
	.stat_headers	= ksym_stat_headers_callers,
};

/**
 * ksym_stat_init - create trace_stat/ksym_tracer and ksym_callers
 *
 * Return: 0, or the error of register_stat_tracer().
 */
int ksym_stat_init(void)
{
	int ret;

	ret = register_stat_tracer(&ksym_stat_watches);
	if (!ret)
		ret = register_stat_tracer(&ksym_stat_callers);
	return ret;
}
