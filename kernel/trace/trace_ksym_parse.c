// SPDX-License-Identifier: GPL-2.0
/*
 * trace_ksym_parse.c - the ksym_trace_filter grammar: one entry,
 * TARGET[/LEN]:ACCESS[@CPULIST], into a struct ksym_spec; the error texts;
 * the canonical form a watch reads back in. It needs kallsyms and the
 * memory checks, nothing of the watch set.
 */
#define pr_fmt(fmt) "ksym: " fmt

#include <linux/ctype.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/security.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <asm/sections.h>
#include <kunit/visibility.h>

#include "trace.h"
#include "trace_ksym.h"

/* ------------------------------------------------------------------------
 * Parser: one entry, TARGET[/LEN]:ACCESS[@CPULIST], into a ksym_spec.
 */

/*
 * For error_log: tracing_log_err() keeps a pointer to these. Not "* const":
 * its prototype takes "const char **", as for trace_probe_err_text.
 */
#undef C
#define C(a, b)		b
static const char *ksym_err_text[] = { KSYM_ERRORS };
#undef C

/* The historical ACCESS spellings; "---" (0) removes. */
static const struct {
	const char	*text;
	unsigned int	access;
} ksym_access_forms[] = {
	{ "rw-", KSYM_ACCESS_RW },
	{ "-w-", KSYM_ACCESS_W },
	{ "r--", KSYM_ACCESS_R },
	{ "--x", KSYM_ACCESS_X },
	{ "---", 0 },
};

/**
 * ksym_parse_access - an ACCESS spelling into HW_BREAKPOINT_* bits
 * @s:      "rw-", "-w-", "r--", "--x" or "---"
 * @access: where the bits go
 *
 * Return: 0, or -EINVAL for another spelling.
 */
int ksym_parse_access(const char *s, unsigned int *access)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_access_forms); i++) {
		if (!strcmp(s, ksym_access_forms[i].text)) {
			*access = ksym_access_forms[i].access;
			return 0;
		}
	}
	return -EINVAL;
}

/**
 * ksym_access_str - the ACCESS spelling of HW_BREAKPOINT_* bits
 * @access: HW_BREAKPOINT_R/W/X bits, or 0
 *
 * Return: "rw-", "-w-", "r--", "--x", "---", or "???" for others.
 */
const char *ksym_access_str(unsigned int access)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(ksym_access_forms); i++)
		if (ksym_access_forms[i].access == access)
			return ksym_access_forms[i].text;
	return "???";
}

/* Symbol names as kallsyms spells them, with an optional "module:" prefix. */
static int ksym_check_symbol(const char *s)
{
	const char *p;
	bool module_seen = false;

	for (p = s; *p; p++) {
		if (isalnum(*p) || *p == '_' || *p == '.' || *p == '$')
			continue;
		if (*p == ':' && !module_seen && p != s && p[1]) {
			module_seen = true;
			continue;
		}
		return p - s;
	}
	return p == s ? 0 : -1;
}

static bool ksym_is_text(unsigned long addr)
{
	return core_kernel_text(addr) || is_module_text_address(addr);
}

/*
 * Text an instruction breakpoint must not be put on: entry and noinstr
 * code (x86 refuses it when the breakpoint is registered, arm64 would
 * take the exception there, maybe before the state its handler needs),
 * NOKPROBE_SYMBOL functions and what the architecture adds: kprobes'
 * blacklist, which also holds those sections (checked here by name too).
 * Without kprobes nothing lists that text (arm64 marks assembly such as
 * cpu_switch_to only there): no kernel text is taken, as x86's
 * breakpoint code refuses it then.
 */
static bool ksym_text_unprobeable(unsigned long addr)
{
	if (!IS_ENABLED(CONFIG_KPROBES))
		return true;
	if ((addr >= (unsigned long)__noinstr_text_start &&
	     addr < (unsigned long)__noinstr_text_end) ||
	    (addr >= (unsigned long)__entry_text_start &&
	     addr < (unsigned long)__entry_text_end))
		return true;
	return within_kprobe_blacklist(addr);
}

/*
 * A per-CPU variable: kallsyms gives its __percpu address (an offset into
 * the per-CPU area on x86-64, the init copy elsewhere), and each CPU has a
 * copy of its own. *@in_module says whether a module owns it.
 */
static bool ksym_is_percpu(unsigned long addr, bool *in_module)
{
	unsigned long __maybe_unused first, can;

	*in_module = false;
#ifdef CONFIG_SMP
	if (addr >= (unsigned long)__per_cpu_start &&
	    addr < (unsigned long)__per_cpu_end)
		return true;
	/*
	 * A module's: on arm64 its __percpu address lies in the kernel
	 * image's range, just after the kernel's own per-CPU section
	 * (whose image is init memory, freed after boot), so it is looked
	 * for before the test for real memory.
	 */
	first = (unsigned long)per_cpu_ptr((void __percpu *)addr,
					   get_boot_cpu_id());
	/* The boot CPU's copy itself, not another CPU's at that address. */
	if (__is_module_percpu_address(first, &can) && can == first) {
		*in_module = true;
		return true;
	}
	return false;
#else
	return false;
#endif
}

/**
 * ksym_parse_cast - a cast before a target
 * @e:   the entry, for errors
 * @s:   "(struct NAME)" or "(union NAME)", blanks allowed inside
 * @pos: offset of @s in the entry, for the caret
 * @t:   t->cast gets "struct NAME", written in place in @s
 *
 * Return: the length taken, or a negative errno with the entry's error set.
 */
int ksym_parse_cast(struct ksym_entry *e, char *s, int pos,
		    struct ksym_target *t)
{
	char *end = strchr(s, ')');
	char *kw, *name, *out = s + 1;
	int kwlen, len;

	if (!end)
		return ksym_entry_fail(e, KSYM_ERR_BAD_CAST, pos, -EINVAL);
	*end = '\0';
	kw = skip_spaces(s + 1);
	if (str_has_prefix(kw, "struct"))
		kwlen = strlen("struct");
	else if (str_has_prefix(kw, "union"))
		kwlen = strlen("union");
	else
		return ksym_entry_fail(e, KSYM_ERR_BAD_CAST, pos + (kw - s),
				       -EINVAL);
	name = kw + kwlen;
	if (!isspace(*name))
		return ksym_entry_fail(e, KSYM_ERR_BAD_CAST, pos + (name - s),
				       -EINVAL);
	name = strim(name);
	for (len = 0; isalnum(name[len]) || name[len] == '_'; len++)
		;
	if (!len || isdigit(name[0]))
		return ksym_entry_fail(e, KSYM_ERR_BAD_CAST, pos + (name - s),
				       -EINVAL);
	if (name[len])
		return ksym_entry_fail(e, KSYM_ERR_BAD_CAST,
				       pos + (name + len - s), -EINVAL);
	/* Canonical spelling, never longer than what was written. */
	memmove(out, kw, kwlen);
	out[kwlen] = ' ';
	memmove(out + kwlen + 1, name, len + 1);
	t->cast = out;
	t->cast_pos = pos;
	return end + 1 - s;
}

/* The most dots a symbol's name holds, for ksym_split_symbol(). */
#define KSYM_SYMBOL_DOTS_MAX	6

static bool ksym_symbol_char(char c)
{
	return isalnum(c) || c == '_' || c == '.' || c == '$' || c == ':';
}

/*
 * Split SYMBOL[PATH] at @s: the longest prefix that kallsyms knows, ending
 * before a '.' or '[', is the symbol (symbols may hold dots themselves:
 * "foo.constprop.0"). Returns its address, or 0.
 */
static unsigned long ksym_split_symbol(char *s, char **path)
{
	unsigned long addr;
	char *p, *end, c;
	int dots = 0;

	/*
	 * Each miss may scan every module's symbols, with the CPU hotplug
	 * and ksym locks held: only prefixes a symbol can be are tried. No
	 * symbol holds a '[', and compilers' suffixes (".constprop.0",
	 * ".isra.0", ".cold") give a handful of dots, not hundreds.
	 */
	for (end = s; *end && *end != '['; end++)
		if (*end == '.' && ++dots > KSYM_SYMBOL_DOTS_MAX)
			break;
	for (p = end; p > s; p--) {
		if (*p && *p != '.' && *p != '[')
			continue;
		c = *p;
		*p = '\0';
		addr = ksym_check_symbol(s) < 0 ? kallsyms_lookup_name(s) : 0;
		*p = c;
		if (addr) {
			*path = p;
			return addr;
		}
	}
	return 0;
}

/* A target given as an address (0x...): no cast, no symbol. */
static int ksym_resolve_address(struct ksym_entry *e, struct ksym_target *t,
				char *tgt, int pos)
{
	struct ksym_spec *spec = &e->spec;

	if (t->cast)
		return ksym_entry_fail(e, KSYM_ERR_CAST_ADDR, t->cast_pos,
				       -EINVAL);
	if (kstrtoul(tgt, 16, &spec->addr))
		return ksym_entry_fail(e, KSYM_ERR_BAD_ADDR, pos, -EINVAL);
	snprintf(spec->target, sizeof(spec->target), "0x%lx", spec->addr);
	return 0;
}

/*
 * Resolve TARGET ([(struct|union TYPE)] symbol[PATH][+offset],
 * module:symbol[PATH][+offset] or 0xADDRESS) in @tgt, at @pos in the entry,
 * into spec->addr, spec->percpu and spec->target (canonical); *size gets
 * the bytes of what it names when known (the field, the symbol's BTF type,
 * or the symbol's kallsyms extent), else 0; *sized_by_btf says whether
 * BTF gave that size.
 */
static int ksym_resolve_target(struct ksym_entry *e, char *tgt, int pos,
			       unsigned long *size, bool *sized_by_btf)
{
	struct ksym_target *t __free(kfree) = kzalloc(sizeof(*t), GFP_KERNEL);
	struct ksym_spec *spec = &e->spec;
	unsigned long off = 0, symoff, symsize;
	bool in_module;
	char *plus, *p, *path, c;
	int n, bad, ret;

	*size = 0;
	*sized_by_btf = false;
	if (!t)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos, -ENOMEM);
	if (tgt[0] == '(') {
		n = ksym_parse_cast(e, tgt, pos, t);
		if (n < 0)
			return n;
		tgt += n;
		pos += n;
	}
	if (tgt[0] == '0' && (tgt[1] == 'x' || tgt[1] == 'X'))
		return ksym_resolve_address(e, t, tgt, pos);

	plus = strchr(tgt, '+');
	if (plus) {
		*plus = '\0';
		if (kstrtoul(plus + 1, 0, &off))
			return ksym_entry_fail(e, KSYM_ERR_BAD_OFFSET,
					       pos + (plus + 1 - tgt), -EINVAL);
	}
	for (p = tgt; *p; p++)
		if (!ksym_symbol_char(*p) && *p != '[' && *p != ']')
			return ksym_entry_fail(e, KSYM_ERR_BAD_SYMBOL,
					       pos + (p - tgt), -EINVAL);
	/* The symbol's first part, as kallsyms spells names. */
	n = strcspn(tgt, ".[");
	c = tgt[n];
	tgt[n] = '\0';
	bad = ksym_check_symbol(tgt);
	tgt[n] = c;
	if (bad >= 0)
		return ksym_entry_fail(e, KSYM_ERR_BAD_SYMBOL, pos + bad,
				       -EINVAL);
	spec->addr = ksym_split_symbol(tgt, &path);
	if (!spec->addr)
		return ksym_entry_fail(e, KSYM_ERR_NO_SYMBOL, pos, -ENOENT);

	t->sym = tgt;
	t->sym_pos = pos;
	t->path = path;
	t->path_pos = pos + (path - tgt);
	spec->percpu = ksym_is_percpu(spec->addr, &in_module);
	t->addr = spec->addr;
	t->percpu = spec->percpu;
	/* The symbol ends where the path begins; t->path keeps its text. */
	t->path = kstrdup(path, GFP_KERNEL);
	if (!t->path)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, pos, -ENOMEM);
	*path = '\0';
	ret = ksym_btf_resolve(e, t, in_module);
	kfree(t->path);
	if (ret)
		return ret;

	if (t->size || t->typed || t->cast) {
		*size = t->size;
		*sized_by_btf = true;
	} else if (kallsyms_lookup_size_offset(spec->addr, &symsize,
					       &symoff) && !symoff) {
		*size = symsize;
	}
	/* Past the end of the address space is nowhere. */
	if (t->off + off < off || spec->addr + t->off + off < spec->addr)
		return ksym_entry_fail(e, KSYM_ERR_OFFSET_OUTSIDE,
				       plus ? pos + (plus + 1 - tgt) : pos,
				       -EINVAL);
	spec->addr += t->off + off;
	/* SYMBOL+OFFSET needs /LEN: no size is known past the offset. */
	if (off)
		*size = 0;
	/* The cast is written where BTF does not type the symbol itself. */
	n = 0;
	if (t->cast && !t->typed)
		n = snprintf(spec->target, sizeof(spec->target), "(%s)",
			     t->cast);
	spec->name_off = n;
	n += snprintf(spec->target + n, sizeof(spec->target) - n, "%s%s",
		      tgt, t->canon);
	if (off && n < sizeof(spec->target))
		n += snprintf(spec->target + n, sizeof(spec->target) - n,
			      "+0x%lx", off);
	if (n >= sizeof(spec->target))
		return ksym_entry_fail(e, KSYM_ERR_TOO_LONG, pos, -E2BIG);
	return 0;
}

/*
 * The page frame mapped at @addr, if any: through the direct map and the
 * kernel image, or through the page tables of vmalloc and module space.
 * No vm_struct is looked at: a concurrent vfree() may free it.
 */
static bool ksym_pfn_of(unsigned long addr, unsigned long *pfn)
{
	struct page *page;

	if (virt_addr_valid((void *)addr)) {
		*pfn = page_to_pfn(virt_to_page((void *)addr));
		return true;
	}
	if (!is_vmalloc_or_module_addr((void *)addr))
		return false;
	page = vmalloc_to_page((void *)addr);
	if (!page)
		return false;
	*pfn = page_to_pfn(page);
	return true;
}

/*
 * Module space of its own (not shared with vmalloc): modules' memory, BPF
 * programs, nothing else; never device memory. What a module that went
 * leaves is unmapped, or another module's or program's memory.
 */
static bool ksym_addr_module_space(unsigned long addr, unsigned int len)
{
#ifdef MODULES_VADDR
	unsigned long last = addr + len - 1;

	return addr >= MODULES_VADDR && last < MODULES_END && last >= addr &&
	       !is_vmalloc_addr((void *)addr) &&
	       !is_vmalloc_addr((void *)last);
#else
	return false;
#endif
}

/**
 * ksym_addr_vmalloc - whether a range lies in vmalloc space
 * @addr: its first byte
 * @len:  its length
 *
 * vmalloc'd memory (buffers, vmap'd task and interrupt stacks) may be
 * watched by a trigger, never read: see ksym_addr_stays_ram().
 *
 * Return: true if both ends are in vmalloc space.
 */
bool ksym_addr_vmalloc(unsigned long addr, unsigned int len)
{
	unsigned long last = addr + len - 1;

	return last >= addr && is_vmalloc_addr((void *)addr) &&
	       is_vmalloc_addr((void *)last);
}

#ifndef TOP_OF_KERNEL_STACK_PADDING
#define TOP_OF_KERNEL_STACK_PADDING 0
#endif

/**
 * ksym_addr_stack_regs - whether a range may hold a stack's pt_regs
 * @addr: its first byte
 * @len:  its length
 *
 * The top of a task stack, where the entry code saves the interrupted
 * registers. x86's NMI entry from user mode copies its frame there: a
 * write breakpoint on it takes a #DB inside that copy, whose IRET lets a
 * second NMI in over the first's frame (traps.c says as much: "except a
 * HW_BREAKPOINT_W on our stack"). Stacks are THREAD_SIZE-aligned, in
 * vmalloc space (CONFIG_VMAP_STACK) or else in the direct map, and which
 * block is a stack cannot be asked without a lock: the top pt_regs of
 * every such block of that space is refused (without VMAP_STACK, a
 * little of every THREAD_SIZE of the direct map).
 *
 * Return: true if the range is where stacks are and reaches into the
 * pt_regs at the top of a THREAD_SIZE-aligned block.
 */
bool ksym_addr_stack_regs(unsigned long addr, unsigned int len)
{
	unsigned long last = addr + len - 1;
	unsigned long regs = THREAD_SIZE - TOP_OF_KERNEL_STACK_PADDING -
			     sizeof(struct pt_regs);
	/*
	 * Not the kernel image: its one stack, init_task's, never goes to
	 * user. Asked first: arm64's image is in vmalloc space.
	 */
	bool stacks = !__is_kernel(addr) &&
		      (IS_ENABLED(CONFIG_VMAP_STACK) ?
		       ksym_addr_vmalloc(addr, len) :
		       addr >= PAGE_OFFSET &&
		       addr < (unsigned long)high_memory);

	return stacks &&
	       ((last & (THREAD_SIZE - 1)) >= regs ||
		(addr & ~(THREAD_SIZE - 1)) != (last & ~(THREAD_SIZE - 1)));
}
EXPORT_SYMBOL_IF_KUNIT(ksym_addr_stack_regs);

/**
 * ksym_addr_stays_ram - whether a watched range may be read on every hit
 * @addr: its first byte
 * @len:  its length
 * @mod:  the live module whose memory holds it, or NULL
 *
 * The one rule for filter and trigger watches. vmalloc and ioremap share
 * one range, so vmalloc memory, RAM now, may map a device's registers
 * after a vfree(), and a read on a hit could change them. What stays RAM:
 * the kernel image; the kernel's and modules' static per-CPU data; the
 * direct map, except other reserved pages (the legacy ISA hole, firmware
 * and boot allocations: page_is_ram() cannot be asked from the hit path
 * or a trigger); a module's memory, whose watches go before the module
 * does; and module space of its own (a trigger's object in a module's
 * data: after the module goes, unmapped or another module's memory, which
 * the read's fault handling covers). Lock-free, callable from any context.
 *
 * Return: true if the range may be read.
 */
bool ksym_addr_stays_ram(unsigned long addr, unsigned int len,
			 const struct module *mod)
{
	unsigned long last = addr + len - 1;

	if (mod || (__is_kernel(addr) && __is_kernel(last)))
		return true;
	if (ksym_addr_module_space(addr, len))
		return true;
	/* The direct map first: a trigger's object, at every hit. */
	if (virt_addr_valid((void *)addr) && virt_addr_valid((void *)last) &&
	    !PageReserved(virt_to_page((void *)addr)) &&
	    !PageReserved(virt_to_page((void *)last)))
		return true;
	if (ksym_addr_vmalloc(addr, len))
		return false;
	/*
	 * Per-CPU data of the kernel and modules: boot memory, reserved. Its
	 * lookup walks every CPU and module, so it comes last.
	 */
	return is_kernel_percpu_address(addr) || is_module_percpu_address(addr);
}

/*
 * Whether a range stays mapped for as long as a watch on it lives, so that
 * the hit path may load it plainly (ksym_spec.mapped): a live module's
 * memory (@mod_live: its watches go before it does), the kernel image's
 * read-only and data sections (not the whole image: its gaps between
 * sections and the unused end of .brk are freed after boot).
 */
static bool ksym_addr_mapped(unsigned long addr, unsigned int len,
			     bool mod_live)
{
	unsigned long last = addr + len - 1;

	return mod_live ||
	       (is_kernel_rodata(addr) && is_kernel_rodata(last)) ||
	       (is_kernel_core_data(addr) && is_kernel_core_data(last));
}

/*
 * Is a per-CPU watch inside the kernel's static per-CPU data? Its address
 * is the __percpu one, the same for every CPU's copy (each at its unit's
 * offset). A module's is read through the nofault copy: its area would
 * be looked up among the modules for each CPU.
 */
static bool ksym_percpu_static(const struct ksym_spec *spec)
{
	return spec->addr >= (unsigned long)__per_cpu_start &&
	       spec->addr + spec->len <= (unsigned long)__per_cpu_end;
}

/*
 * Every CPU's copy of a per-CPU watch is mapped RAM. The kernel's static
 * per-CPU data stays mapped; SYMBOL+OFFSET may reach past it (an offset is not bounded by the
 * symbol), into the direct map or, on arm64, vmalloc space: read there
 * only under the rule of ksym_addr_stays_ram(), never plainly.
 */
static int ksym_check_percpu(struct ksym_entry *e)
{
	struct ksym_spec *spec = &e->spec;
	unsigned long addr, pfn;
	bool stays = true;
	u64 dummy;
	int cpu;

	if (spec->access == KSYM_ACCESS_X)
		return ksym_entry_fail(e, KSYM_ERR_NOT_TEXT, 0, -EINVAL);
	spec->mapped = ksym_percpu_static(spec);
	for_each_possible_cpu(cpu) {
		addr = ksym_spec_addr(spec, cpu);
		if (!ksym_pfn_of(addr, &pfn) || page_is_ram(pfn) != 1 ||
		    !ksym_read_own(addr, spec->len, &dummy))
			return ksym_entry_fail(e, KSYM_ERR_NO_MEMORY_AT, 0,
					       -EFAULT);
		if (!spec->mapped && stays)
			stays = ksym_addr_stays_ram(addr, spec->len, NULL);
	}
	spec->has_value = stays;
	return 0;
}

/*
 * Last checks of a watch's memory, with ksym_mutex held so that a module
 * cannot finish going away under them (its notifier waits for the mutex):
 * refuse what kprobes refuse under lockdown, init memory (freed, or soon
 * to be), a module that is going, and addresses with nothing mapped; find
 * out whether the value may be read on a hit (RAM only).
 */
static int ksym_check_memory(struct ksym_entry *e)
{
	struct ksym_spec *spec = &e->spec;
	unsigned long addr = spec->addr, pfn;
	struct module *mod;
	bool mod_live = false;
	u64 dummy;
	int err = -1;

	/* Before memory is touched: it would tell what is mapped. */
	if (security_locked_down(LOCKDOWN_KPROBES))
		return ksym_entry_fail(e, KSYM_ERR_LOCKDOWN, 0, -EPERM);

	/*
	 * Per-CPU data: the copies in the per-CPU area are watched, never
	 * the (init) image of the section; a module's is checked by
	 * ksym_btf_resolve().
	 */
	if (spec->percpu)
		return ksym_check_percpu(e);

	/* The kernel's init sections are freed after boot. */
	if (init_section_intersects((void *)addr, spec->len))
		return ksym_entry_fail(e, KSYM_ERR_INIT_FREED, 0, -EFAULT);

	/* A module's init sections are freed once it is live. */
	preempt_disable();
	mod = __module_address(addr);
	if (mod && mod->state == MODULE_STATE_GOING)
		err = KSYM_ERR_MODULE_GOING;
	else if (mod && within_module_init(addr, mod) &&
		 mod->state != MODULE_STATE_COMING)
		err = KSYM_ERR_INIT_FREED;
	else if (mod)
		mod_live = mod->state == MODULE_STATE_LIVE;
#ifdef MODULES_VADDR
	/*
	 * Module space that no module owns: a module not yet formed, init
	 * memory being freed, BPF programs. Nothing would drop the watch
	 * when it goes.
	 */
	else if (!mod && addr >= MODULES_VADDR && addr < MODULES_END)
		err = KSYM_ERR_NO_MEMORY_AT;
#endif
	preempt_enable();
	if (err == KSYM_ERR_MODULE_GOING)
		return ksym_entry_fail(e, err, 0, -ENOENT);
	if (err >= 0)
		return ksym_entry_fail(e, err, 0, -EFAULT);

	if (spec->access == KSYM_ACCESS_X)
		return 0;
	if (!ksym_pfn_of(addr, &pfn))
		return ksym_entry_fail(e, KSYM_ERR_NO_MEMORY_AT, 0, -EFAULT);
	if (ksym_addr_stack_regs(addr, spec->len))
		return ksym_entry_fail(e, KSYM_ERR_STACK_REGS, 0, -EINVAL);
	/*
	 * Device memory is watched, never read. So is the rest of vmalloc
	 * space: it is RAM now, but vmalloc and ioremap share one range, and
	 * after a vfree() the same address may map a device's registers,
	 * which a read on a hit could change. The value is read only where
	 * it is always RAM: the direct map, the kernel image, and a live
	 * module's memory (its watches go before the module does).
	 */
	spec->has_value = page_is_ram(pfn) == 1 &&
			  ksym_addr_stays_ram(addr, spec->len, mod);
	/*
	 * The kernel image's sections and a live module's memory stay
	 * mapped while the watch lives: no fault to fear on a hit. Not a
	 * module still initializing: if its load fails it is freed with no
	 * GOING notification (see ksym.rst). The rest of the direct map is
	 * a slab or page object that may be freed, and its page unmapped,
	 * under the watch.
	 */
	spec->mapped = spec->has_value &&
		       ksym_addr_mapped(addr, spec->len, mod_live);
	if (spec->has_value && !ksym_read_own(addr, spec->len, &dummy))
		return ksym_entry_fail(e, KSYM_ERR_NO_MEMORY_AT, 0, -EFAULT);
	return 0;
}

/**
 * ksym_default_len - the length of a watch given without /LEN
 * @addr:    the symbol's address
 * @symsize: its extent as kallsyms knows it (the distance to the next
 *           symbol), 0 for SYMBOL+OFFSET and 0xADDRESS, which need /LEN
 *
 * The extent itself when a debug register takes it (1, 2, 4 or 8, and the
 * address aligned to it), else the first naturally aligned word the
 * symbol starts with, so that
 * "global_trace:rw-" watches the first 8 bytes of that struct. The
 * read-back shows the length chosen.
 *
 * Return: 1, 2, 4 or 8, or 0 when the user must give /LEN.
 */
unsigned int ksym_default_len(unsigned long addr, unsigned long symsize)
{
	unsigned int len;

	switch (symsize) {
	case 0:
		return 0;
	case 1:
	case 2:
	case 4:
	case 8:
		/* Its own size, where a debug register can take it. */
		if (IS_ALIGNED(addr, symsize))
			return symsize;
		break;
	}
	for (len = sizeof(long); len > 1; len /= 2)
		if (len <= symsize && IS_ALIGNED(addr, len))
			return len;
	return 1;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_default_len);

/* The CPU list after '@' (cut off at @at in @buf): possible CPUs only. */
static int ksym_parse_cpus(struct ksym_entry *e, char *buf, char *at)
{
	struct ksym_spec *spec = &e->spec;

	*at = '\0';
	if (!at[1] || cpulist_parse(at + 1, &spec->cpus) ||
	    cpumask_empty(&spec->cpus) ||
	    !cpumask_subset(&spec->cpus, cpu_possible_mask))
		return ksym_entry_fail(e, KSYM_ERR_BAD_CPULIST, at + 1 - buf,
				       -EINVAL);
	spec->all_cpus = false;
	return 0;
}

/**
 * ksym_parse_entry - parse one ksym_trace_filter entry
 * @e:    entry with @e->text set to the NUL-terminated entry text
 *
 * Fills @e->op and @e->spec. Symbols are resolved with kallsyms, lengths
 * defaulted and checked, so that the entry is known good before any
 * breakpoint is touched. On error, @e->err and @e->err_pos say what is
 * wrong and where, for error_log.
 *
 * Return: 0, or -EINVAL, -ENOENT, -E2BIG, -EFAULT or -EOPNOTSUPP.
 */
int ksym_parse_entry(struct ksym_entry *e)
{
	char *buf __free(kfree) = kmalloc(KSYM_ENTRY_MAX, GFP_KERNEL);
	struct ksym_spec *spec = &e->spec;
	char *at, *colon, *slash;
	unsigned long size;
	unsigned int len = 0;
	bool sized_by_btf;
	int ret;

	memset(spec, 0, sizeof(*spec));
	spec->all_cpus = true;
	e->op = KSYM_OP_SET;

	if (!buf)
		return ksym_entry_fail(e, KSYM_ERR_NO_MEM, 0, -ENOMEM);
	if (strscpy(buf, e->text, KSYM_ENTRY_MAX) < 0)
		return ksym_entry_fail(e, KSYM_ERR_TOO_LONG, 0, -E2BIG);
	if (!strcmp(buf, "0") || !strcmp(buf, "*:---")) {
		e->op = KSYM_OP_CLEAR;
		return 0;
	}

	/* Split at '@' (CPU list), then at the last ':' before it (access). */
	at = strchr(buf, '@');
	if (at) {
		ret = ksym_parse_cpus(e, buf, at);
		if (ret)
			return ret;
	}
	colon = strrchr(buf, ':');
	if (!colon || colon == buf)
		return ksym_entry_fail(e, KSYM_ERR_BAD_ENTRY,
				       colon ? 0 : strlen(buf), -EINVAL);
	*colon = '\0';
	if (ksym_parse_access(colon + 1, &spec->access))
		return ksym_entry_fail(e, KSYM_ERR_BAD_ACCESS,
				       colon + 1 - buf, -EINVAL);
	if (spec->access == KSYM_ACCESS_R && !KSYM_CAN_WATCH_READS)
		return ksym_entry_fail(e, KSYM_ERR_NO_READ_ONLY,
				       colon + 1 - buf, -EOPNOTSUPP);
	if (!spec->access) {
		e->op = KSYM_OP_REMOVE;
		if (at)
			return ksym_entry_fail(e, KSYM_ERR_BAD_CPULIST,
					       at - buf, -EINVAL);
	}

	slash = strchr(buf, '/');
	if (slash) {
		*slash = '\0';
		if (kstrtouint(slash + 1, 0, &len) ||
		    (len != 1 && len != 2 && len != 4 && len != 8))
			return ksym_entry_fail(e, KSYM_ERR_BAD_LEN,
					       slash + 1 - buf, -EINVAL);
	}
	if (!buf[0])
		return ksym_entry_fail(e, KSYM_ERR_BAD_ENTRY, 0, -EINVAL);

	ret = ksym_resolve_target(e, buf, 0, &size, &sized_by_btf);
	if (ret)
		return ret;
	spec->name_len = strlen(spec->target + spec->name_off) + 1;
	if (e->op == KSYM_OP_REMOVE)
		return 0;

	if (!spec->percpu && access_ok((void __user *)spec->addr, 1))
		return ksym_entry_fail(e, KSYM_ERR_USER_ADDR, 0, -EINVAL);
	/*
	 * A field is watched within its bytes; an execute watch's length is
	 * the instruction word's, whatever the cast says.
	 */
	if (len && sized_by_btf && size && len > size &&
	    spec->access != KSYM_ACCESS_X)
		return ksym_entry_fail(e, KSYM_ERR_LEN_TOO_BIG,
				       slash + 1 - buf, -EINVAL);

	if (spec->access == KSYM_ACCESS_X) {
		if (len && len != KSYM_EXEC_LEN)
			return ksym_entry_fail(e, KSYM_ERR_EXEC_LEN,
					       slash + 1 - buf, -EINVAL);
		if (!ksym_is_text(spec->addr))
			return ksym_entry_fail(e, KSYM_ERR_NOT_TEXT, 0, -EINVAL);
		/* Refused here, alike on both architectures. */
		if (ksym_text_unprobeable(spec->addr))
			return ksym_entry_fail(e, KSYM_ERR_NOT_PROBED, 0,
					       -EINVAL);
		len = KSYM_EXEC_LEN;
	} else if (!len) {
		len = ksym_default_len(spec->addr, size);
		if (!len)
			return ksym_entry_fail(e, KSYM_ERR_NEED_LEN,
					       colon - buf, -EINVAL);
	}
	spec->len = len;

	/* Instruction breakpoints take any address; data ones are aligned. */
	if (spec->access != KSYM_ACCESS_X && !IS_ALIGNED(spec->addr, len))
		return ksym_entry_fail(e, KSYM_ERR_MISALIGNED, 0, -EINVAL);
	return ksym_check_memory(e);
}
EXPORT_SYMBOL_IF_KUNIT(ksym_parse_entry);

/**
 * ksym_spec_format - the canonical form of a watch
 * @buf:  where to write it
 * @size: size of @buf
 * @spec: the watch
 *
 * What reading ksym_trace_filter shows, and what, written back, gives the
 * same watch: TARGET/LEN:ACCESS[@CPULIST].
 *
 * Return: the number of characters written, without the NUL.
 */
int ksym_spec_format(char *buf, size_t size, const struct ksym_spec *spec)
{
	int n;

	n = scnprintf(buf, size, "%s/%u:%s", spec->target, spec->len,
		      ksym_access_str(spec->access));
	if (!spec->all_cpus)
		n += scnprintf(buf + n, size - n, "@%*pbl",
			       cpumask_pr_args(&spec->cpus));
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(ksym_spec_format);

/**
 * ksym_spec_equal - whether two specs are the same watch, target spelling
 *                   included
 * @a: one spec
 * @b: the other
 *
 * Return: true if they are equal.
 */
bool ksym_spec_equal(const struct ksym_spec *a, const struct ksym_spec *b)
{
	return a->addr == b->addr && a->len == b->len &&
	       a->access == b->access && a->all_cpus == b->all_cpus &&
	       (a->all_cpus || cpumask_equal(&a->cpus, &b->cpus)) &&
	       !strcmp(a->target, b->target);
}
EXPORT_SYMBOL_IF_KUNIT(ksym_spec_equal);

/**
 * ksym_log - add a ksym_trace_filter line to error_log
 * @text: the entry (or data) the error is about
 * @err:  KSYM_ERR_*
 * @pos:  offset in @text of the bad token, where the caret goes
 */
void ksym_log(const char *text, int err, int pos)
{
	ksym_log_at(NULL, "ksym_trace_filter", text, err, pos);
}

/**
 * ksym_log_at - add a line about another file to an instance's error_log
 * @tr:   the instance, NULL for the top level
 * @loc:  what the error is about, e.g. "ksym_watch:kmem:kmalloc"
 * @text: the command the error is about
 * @err:  KSYM_ERR_*
 * @pos:  offset in @text of the bad token, where the caret goes
 */
void ksym_log_at(struct trace_array *tr, const char *loc, const char *text,
		 int err, int pos)
{
	tracing_log_err(tr, loc, text, ksym_err_text, err, pos);
}
