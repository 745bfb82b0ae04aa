// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl local: the calls and writes as read, each write's owner and
 * class, and the report (local.h). No tracefs here.
 */
#include <stdlib.h>
#include <string.h>

#include "local.h"
#include "uaf.h"
#include "utils.h"

static int grow(void **v, int *cap, int nr, size_t size)
{
	void *n;
	int c;

	if (nr < *cap)
		return 0;
	c = *cap ? *cap * 2 : 64;
	n = realloc(*v, (size_t)c * size);
	if (!n)
		return -1;
	*v = n;
	*cap = c;
	return 0;
}

int local_add_call(struct local_data *d, const struct local_call *c)
{
	int i, depth = 1;

	if (grow((void **)&d->calls, &d->cap_calls, d->nr_calls, sizeof(*c)))
		return -1;
	/* Its depth: the calls of its task still running, plus one. */
	for (i = 0; i < d->nr_calls; i++)
		if (d->calls[i].pid == c->pid && !d->calls[i].ts_out)
			depth++;
	d->calls[d->nr_calls] = *c;
	d->calls[d->nr_calls].depth = depth;
	d->nr_calls++;
	return 0;
}

void local_add_return(struct local_data *d, int pid, unsigned long long ts,
		      unsigned long long sp_entry)
{
	int i;

	/* The innermost running call of the task with that stack pointer. */
	for (i = d->nr_calls - 1; i >= 0; i--) {
		struct local_call *c = &d->calls[i];

		if (c->pid == pid && !c->ts_out && c->sp == sp_entry) {
			c->ts_out = ts ? ts : 1;
			return;
		}
	}
}

int local_add_write(struct local_data *d, const struct local_write *w)
{
	if (grow((void **)&d->writes, &d->cap_writes, d->nr_writes, sizeof(*w)))
		return -1;
	d->writes[d->nr_writes] = *w;
	d->writes[d->nr_writes].call = -1;
	d->nr_writes++;
	return 0;
}

void local_set_stack(struct local_data *d, const unsigned long long *ip, int nr)
{
	struct local_write *w;

	if (!d->nr_writes)
		return;
	w = &d->writes[d->nr_writes - 1];
	if (nr > LOCAL_FRAMES_MAX)
		nr = LOCAL_FRAMES_MAX;
	memcpy(w->ips, ip, (size_t)nr * sizeof(*ip));
	w->nr_ips = nr;
}

bool local_probe_function(const char *fn)
{
	static const char * const part[] = {
		"rethook", "ftrace", "kprobe", "fprobe", "return_to_handler",
		"enter_from_kernel_mode", "el1_dbg", "el1h_64_sync", "el1_interrupt",
		"exc_int3", "exc_debug", "asm_exc_", "do_el1_", "call_on_irq_stack",
	};
	size_t i;

	if (!fn)
		return true;
	for (i = 0; i < sizeof(part) / sizeof(part[0]); i++)
		if (strstr(fn, part[i]))
			return true;
	return false;
}

const char *local_class_name(enum local_class c)
{
	static const char * const n[] = {
		[LOCAL_INSIDE] = "inside", [LOCAL_OUTSIDE] = "outside",
		[LOCAL_FRAME] = "frame", [LOCAL_UNOWNED] = "unowned",
	};

	return c < LOCAL_NR_CLASSES ? n[c] : "?";
}

/* The call whose local's slot holds @addr at @ts: live then, the latest. */
static int owner(const struct local_data *d, const struct local_target *t,
		 const struct local_write *w)
{
	int i, best = -1;

	for (i = 0; i < d->nr_calls; i++) {
		const struct local_call *c = &d->calls[i];
		unsigned long long slot = c->sp + t->offset;

		if (w->addr < slot || w->addr >= slot + (t->len ? t->len : 1))
			continue;
		/* A write just before the entry's record: the probe's own. */
		if (c->ts_out && w->ts > c->ts_out)
			continue;
		if (best < 0 || (c->ts_in <= w->ts && c->ts_in >= d->calls[best].ts_in) ||
		    d->calls[best].ts_in > w->ts)
			best = i;
	}
	return best;
}

static const char *fn_of(const struct kallsyms *ks, unsigned long long ip)
{
	const struct kallsym *s = ks ? kallsyms_find(ks, ip) : NULL;

	return s ? s->name : NULL;
}

/*
 * Whether @w came in an interrupt: its callchain meets an interrupt's
 * entry before the function ([@fstart, @fend)).
 */
static bool interrupted(const struct local_write *w, const struct kallsyms *ks,
			unsigned long long fstart, unsigned long long fend)
{
	int i;

	for (i = 0; i < w->nr_ips; i++) {
		if (w->ips[i] >= fstart && w->ips[i] < fend)
			return false;
		if (uaf_entry_function(fn_of(ks, w->ips[i])))
			return true;
	}
	return false;
}

void local_analyze(struct local_data *d, const struct local_target *t,
		   const struct kallsyms *ks)
{
	unsigned long long fstart = 0, fend = 0, *zero_ip;
	bool *stored;
	int i;

	memset(d->count, 0, sizeof(d->count));
	if (ks)
		kallsyms_extent(ks, t->func, &fstart, &fend);
	/*
	 * Per call: whether a store of the function's, or inside, was seen
	 * (then the zeroing is done), and the zeroing's instruction (a rep
	 * stos stores a word in several iterations).
	 */
	stored = calloc(d->nr_calls + 1, sizeof(*stored));
	zero_ip = calloc(d->nr_calls + 1, sizeof(*zero_ip));
	for (i = 0; i < d->nr_writes; i++) {
		struct local_write *w = &d->writes[i];
		const struct local_call *c;
		bool in_func, zeroing;

		w->call = owner(d, t, w);
		if (w->call < 0) {
			w->cls = LOCAL_UNOWNED;
			d->count[w->cls]++;
			continue;
		}
		c = &d->calls[w->call];
		in_func = fstart && w->ip >= fstart && w->ip < fend;
		w->irq = interrupted(w, ks, fstart, fend);
		zeroing = in_func && stored && zero_ip &&
			  (!w->has_value || !w->value) &&
			  (!stored[w->call] || zero_ip[w->call] == w->ip);
		if (w->pid != c->pid)
			w->cls = LOCAL_OUTSIDE;
		else if (!in_func && local_probe_function(fn_of(ks, w->ip)))
			w->cls = LOCAL_FRAME;
		else if (w->irq)
			w->cls = LOCAL_OUTSIDE;
		else if ((in_func && w->ip < fstart + t->prologue) || zeroing)
			w->cls = LOCAL_FRAME;
		else
			w->cls = LOCAL_INSIDE;
		if (w->cls == LOCAL_FRAME && zeroing && !stored[w->call])
			zero_ip[w->call] = w->ip;
		if (stored && (w->cls != LOCAL_FRAME || in_func))
			stored[w->call] = true;
		if (zero_ip && w->cls == LOCAL_INSIDE)
			zero_ip[w->call] = 0;
		d->count[w->cls]++;
	}
	free(zero_ip);
	free(stored);
}

/* The writers of one class, by function, most first. */
struct writer {
	char	name[160];
	int	n;
	bool	irq;	/* in an interrupt */
};

static int writer_cmp(const void *a, const void *b)
{
	const struct writer *x = a, *y = b;

	return y->n - x->n ? y->n - x->n : strcmp(x->name, y->name);
}

static struct writer *writers(const struct local_data *d, enum local_class cls,
			      const struct kallsyms *ks, int *nr)
{
	struct writer *v = calloc(d->nr_writes + 1, sizeof(*v));
	int i, j;

	*nr = 0;
	if (!v)
		return NULL;
	for (i = 0; i < d->nr_writes; i++) {
		const struct local_write *w = &d->writes[i];
		char name[160];

		if (w->cls != cls)
			continue;
		kallsyms_name(ks, w->ip, name, sizeof(name));
		for (j = 0; j < *nr && strcmp(v[j].name, name); j++)
			;
		if (j == *nr) {
			snprintf(v[j].name, sizeof(v[j].name), "%s", name);
			(*nr)++;
		}
		v[j].n++;
		if (w->irq)
			v[j].irq = true;
	}
	qsort(v, *nr, sizeof(*v), writer_cmp);
	return v;
}

/* Where an outside write came from, in words. */
static const char *context(const struct local_data *d, const struct local_write *w)
{
	const struct local_call *c = w->call >= 0 ? &d->calls[w->call] : NULL;

	if (c && w->pid == c->pid && w->irq)
		return "in an interrupt";
	if (c && w->pid != c->pid)
		return w->cpu != c->cpu ? "by another task, on another CPU" :
					  "by another task";
	return "on the owning task";
}

static void print_value(FILE *f, const struct local_write *w)
{
	if (!w->has_old && !w->has_value) {
		fputs("value not read", f);
		return;
	}
	if (w->has_old)
		fprintf(f, "0x%llx", w->old);
	else
		fputs("?", f);
	fputs(" -> ", f);
	if (w->has_value)
		fprintf(f, "0x%llx", w->value);
	else
		fputs("unread", f);
}

static const char *signed_hex(long v, char *buf, size_t size)
{
	snprintf(buf, size, "%s0x%lx", v < 0 ? "-" : "+", v < 0 ? -v : v);
	return buf;
}

void local_print(FILE *f, const struct local_data *d,
		 const struct local_report *rep, const struct kallsyms *ks)
{
	const struct local_target *t = rep->target;
	const struct uaf_coverage *cov = rep->cov;
	static const char * const what[] = {
		[LOCAL_INSIDE] = "inside the call (the function or a callee, on its task)",
		[LOCAL_OUTSIDE] = "outside the call (an interrupt, another task): the corruption",
		[LOCAL_FRAME] = "the frame set up or taken down (prologue, zeroing, probes)",
		[LOCAL_UNOWNED] = "while no call owned the slot",
	};
	static const char * const phrase[] = {
		[LOCAL_INSIDE] = "inside the call", [LOCAL_OUTSIDE] = "outside the call",
		[LOCAL_FRAME] = "the frame's", [LOCAL_UNOWNED] = "no call's",
	};
	char off[32], name[200];
	int i, j, k, n = 0, unread = 0;

	fprintf(f, "ksym-ctl local: %s of %s (%s, %lu bytes", t->var, t->func,
		t->type, t->size);
	if (t->len < t->size)
		fprintf(f, ", the first %lu watched", t->len);
	fprintf(f, ") at the entry's stack pointer %s, %s",
		signed_hex(t->offset, off, sizeof(off)),
		t->write_only ? "-w-" : "rw-");
	if (rep->pids)
		fprintf(f, ", calls by %s", rep->pids);
	if (rep->title)
		fprintf(f, ", while '%s' ran", rep->title);
	fprintf(f, "\n    DWARF: %s: DW_OP_fbreg %ld, CFA = entry stack pointer + %ld\n",
		t->debuginfo, t->fbreg, t->cfa_entry);
	for (i = 0; i < d->nr_writes; i++) {
		const struct local_write *w = &d->writes[i];
		const struct local_call *c = w->call >= 0 ? &d->calls[w->call] : NULL;

		if (!w->has_value)
			unread++;
		if (w->cls == LOCAL_FRAME && !rep->verbose)
			continue;
		kallsyms_name_off(ks, w->ip, name, sizeof(name));
		fprintf(f, "\nwrite %d, %s: %s, %s, %s (pid %d) on CPU %d\n", ++n,
			phrase[w->cls], name, context(d, w), w->comm, w->pid,
			w->cpu);
		fprintf(f, "    0x%llx: ", w->addr);
		print_value(f, w);
		if (c)
			fprintf(f, "; the call: %s (pid %d) on CPU %d, depth %d, entry sp 0x%llx\n",
				c->comm, c->pid, c->cpu, c->depth, c->sp);
		else
			fputs("; no call of the function owned the slot\n", f);
		for (j = 0; j < w->nr_ips; j++) {
			kallsyms_name_off(ks, w->ips[j], name, sizeof(name));
			fprintf(f, "        %s\n", name);
		}
	}
	fprintf(f, "\n%d writes:\n", d->nr_writes);
	for (k = 0; k < LOCAL_NR_CLASSES; k++) {
		struct writer *v;
		int nr;

		fprintf(f, "  %6d  %s%s\n", d->count[k], what[k],
			k == LOCAL_FRAME && d->count[k] && !rep->verbose ? " (-v lists them)" : "");
		v = writers(d, k, ks, &nr);
		for (j = 0; v && j < nr; j++)
			fprintf(f, "  %6d      %s%s\n", v[j].n, v[j].name,
				v[j].irq ? " (in an interrupt)" : "");
		free(v);
	}
	if (unread)
		fprintf(f, "values: %d write%s unread (the kernel does not read a vmap'd stack, CONFIG_VMAP_STACK)\n",
			unread, unread == 1 ? "" : "s");
	fprintf(f, "coverage: %d calls seen, ", rep->calls_seen);
	if (cov && cov->known)
		fprintf(f, "%lu watched, %lu missed (every slot busy), %lu refused; %d of %d slots\n",
			cov->armed, cov->missed, cov->refused, cov->slots, cov->nr_slots);
	else
		fputs("watched and missed not known (no row in trace_stat/ksym_triggers)\n", f);
	if (d->lost)
		fprintf(f, "warning: %lu events lost: the counts are low\n", d->lost);
}

static void json_hex(FILE *f, unsigned long long v)
{
	fprintf(f, "\"0x%llx\"", v);
}

void local_print_json(FILE *f, const struct local_data *d,
		      const struct local_report *rep, const struct kallsyms *ks)
{
	const struct local_target *t = rep->target;
	const struct uaf_coverage *cov = rep->cov;
	char name[200];
	int i, j, k;

	fputs("{\"function\": ", f);
	json_str(f, t->func);
	fputs(", \"variable\": ", f);
	json_str(f, t->var);
	fputs(", \"type\": ", f);
	json_str(f, t->type);
	fprintf(f, ", \"size\": %lu, \"len\": %lu, \"offset\": %ld, \"fbreg\": %ld, \"cfa_entry\": %ld, \"access\": ",
		t->size, t->len, t->offset, t->fbreg, t->cfa_entry);
	json_str(f, t->write_only ? "-w-" : "rw-");
	fputs(", \"debuginfo\": ", f);
	json_str(f, t->debuginfo);
	fputs(", \"pids\": ", f);
	if (rep->pids)
		json_str(f, rep->pids);
	else
		fputs("null", f);
	fputs(", \"command\": ", f);
	if (rep->title)
		json_str(f, rep->title);
	else
		fputs("null", f);
	fputs(",\n \"writes\": [", f);
	for (i = 0, k = 0; i < d->nr_writes; i++) {
		const struct local_write *w = &d->writes[i];
		const struct local_call *c = w->call >= 0 ? &d->calls[w->call] : NULL;

		if (w->cls == LOCAL_FRAME && !rep->verbose)
			continue;
		fputs(k++ ? ",\n  {\"class\": " : "\n  {\"class\": ", f);
		json_str(f, local_class_name(w->cls));
		fputs(", \"context\": ", f);
		json_str(f, context(d, w));
		kallsyms_name_off(ks, w->ip, name, sizeof(name));
		fputs(", \"writer\": ", f);
		json_str(f, name);
		fputs(", \"ip\": ", f);
		json_hex(f, w->ip);
		fputs(", \"addr\": ", f);
		json_hex(f, w->addr);
		fputs(", \"value\": ", f);
		if (w->has_value)
			json_hex(f, w->value);
		else
			fputs("null", f);
		fputs(", \"old\": ", f);
		if (w->has_old)
			json_hex(f, w->old);
		else
			fputs("null", f);
		fprintf(f, ", \"pid\": %d, \"cpu\": %d, \"comm\": ", w->pid, w->cpu);
		json_str(f, w->comm);
		if (c) {
			fprintf(f, ", \"call\": {\"pid\": %d, \"cpu\": %d, \"depth\": %d, \"sp\": ",
				c->pid, c->cpu, c->depth);
			json_hex(f, c->sp);
			fputc('}', f);
		} else {
			fputs(", \"call\": null", f);
		}
		fputs(", \"callchain\": [", f);
		for (j = 0; j < w->nr_ips; j++) {
			kallsyms_name_off(ks, w->ips[j], name, sizeof(name));
			if (j)
				fputs(", ", f);
			json_str(f, name);
		}
		fputs("]}", f);
	}
	fputs("],\n \"counts\": {", f);
	for (k = 0; k < LOCAL_NR_CLASSES; k++)
		fprintf(f, "%s\"%s\": %d", k ? ", " : "", local_class_name(k),
			d->count[k]);
	fputs("},\n \"writers\": [", f);
	for (k = 0, i = 0; k < LOCAL_NR_CLASSES; k++) {
		struct writer *v;
		int nr;

		v = writers(d, k, ks, &nr);
		for (j = 0; v && j < nr; j++) {
			fputs(i++ ? ", {\"class\": " : "{\"class\": ", f);
			json_str(f, local_class_name(k));
			fputs(", \"function\": ", f);
			json_str(f, v[j].name);
			fprintf(f, ", \"writes\": %d}", v[j].n);
		}
		free(v);
	}
	fprintf(f, "],\n \"coverage\": {\"calls_seen\": %d", rep->calls_seen);
	if (cov && cov->known)
		fprintf(f, ", \"watched\": %lu, \"missed\": %lu, \"refused\": %lu, \"slots\": %d, \"slots_asked\": %d}",
			cov->armed, cov->missed, cov->refused, cov->slots, cov->nr_slots);
	else
		fputs(", \"watched\": null, \"missed\": null}", f);
	fprintf(f, ", \"events_lost\": %lu}\n", d->lost);
}

void local_data_free(struct local_data *d)
{
	free(d->calls);
	free(d->writes);
	memset(d, 0, sizeof(*d));
}
