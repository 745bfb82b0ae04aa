/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: /proc/kallsyms as a sorted table, to name the accessor of a
 * hit as the kernel's %ps does ("func", "func [module]") and to find the
 * address of a watch's SYMBOL. Pure: unit tested on the host.
 */
#ifndef KSYM_CTL_KALLSYMS_H
#define KSYM_CTL_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>

struct kallsym {
	unsigned long long	addr;
	const char		*name;
	const char		*module;	/* NULL: the kernel's own */
};

struct kallsyms {
	struct kallsym	*sym;		/* sorted by address */
	int		nr;
	char		*text;		/* the names point into it */
};

/*
 * Parse the text of /proc/kallsyms (the table takes it over, and frees it
 * with kallsyms_free()). -1 when it holds no address at all (all zero:
 * kptr_restrict, or not root).
 */
int kallsyms_load(struct kallsyms *ks, char *text);

/* The symbol @addr is in (the last at or below it), or NULL. */
const struct kallsym *kallsyms_find(const struct kallsyms *ks,
				    unsigned long long addr);

/* @addr as %ps prints it: "name", "name [module]", or "0x..." unknown. */
void kallsyms_name(const struct kallsyms *ks, unsigned long long addr,
		   char *buf, size_t size);

/* @addr as %pS prints it, without the size: "name+0x1a", "name+0x1a [module]". */
void kallsyms_name_off(const struct kallsyms *ks, unsigned long long addr,
		       char *buf, size_t size);

/*
 * The address of "[MODULE:]SYMBOL", or 0 when there is no such symbol.
 * With no MODULE, the kernel's own symbol comes first.
 */
unsigned long long kallsyms_addr(const struct kallsyms *ks, const char *name);

/*
 * The bytes of "[MODULE:]SYMBOL" (a function): its address, and the next
 * higher address of a symbol (its end). 0, or -1 when there is no such
 * symbol or nothing follows it.
 */
int kallsyms_extent(const struct kallsyms *ks, const char *name,
		    unsigned long long *start, unsigned long long *end);

/*
 * How many symbols "[MODULE:]SYMBOL" names (static functions repeat: 619
 * names more than once on a Debian kernel), each into @list when not NULL
 * as "0xADDR NAME [MODULE]\n" (malloc'ed). -1 when out of memory.
 */
int kallsyms_count(const struct kallsyms *ks, const char *name, char **list);

/*
 * uaf --kfree-site: the bytes of function "[MODULE:]FUNC[@0xADDR]". A name
 * several symbols have is refused with their list unless @0xADDR says
 * which. 0, or -1 with what is wrong in *@why (malloc'ed, one or more
 * lines, or NULL when out of memory).
 */
int kallsyms_function(const struct kallsyms *ks, const char *spec,
		      unsigned long long *start, unsigned long long *end,
		      char **why);

/* The bytes of the symbol at @addr: as kallsyms_extent(), by address. */
int kallsyms_extent_at(const struct kallsyms *ks, unsigned long long addr,
		       unsigned long long *start, unsigned long long *end);

void kallsyms_free(struct kallsyms *ks);

#endif
