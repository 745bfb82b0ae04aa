// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_kallsyms: ksym-ctl's reader of /proc/kallsyms (ksym-ctl/kallsyms.c):
 * the text parsed into the sorted table, then every lookup the tools make
 * in it (the symbol an address is in, %ps names, the address of
 * [MODULE:]SYMBOL) for each symbol it loaded and the addresses around it.
 *
 * Input: the text of /proc/kallsyms.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "kallsyms.h"

#define LOOKUPS_MAX	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kallsyms ks;
	char *text = fuzz_strndup(data, size), name[600];
	int i;

	if (!text)
		return 0;
	/* The table owns the text from here, loaded or not. */
	if (kallsyms_load(&ks, text)) {
		kallsyms_free(&ks);
		return 0;
	}
	for (i = 0; i < ks.nr && i < LOOKUPS_MAX; i++) {
		const struct kallsym *s = &ks.sym[i], *f;

		f = kallsyms_find(&ks, s->addr);
		/* The symbol of its own address is one at that address. */
		if (!f || f->addr != s->addr)
			abort();
		kallsyms_name(&ks, s->addr, name, sizeof(name));
		kallsyms_name(&ks, s->addr + 1, name, sizeof(name));
		kallsyms_name(&ks, s->addr - 1, name, sizeof(name));
		kallsyms_addr(&ks, s->name);
		if (s->module) {
			snprintf(name, sizeof(name), "%s:%s", s->module, s->name);
			kallsyms_addr(&ks, name);
		}
	}
	kallsyms_name(&ks, 0, name, sizeof(name));
	kallsyms_name(&ks, ~0ULL, name, sizeof(name));
	kallsyms_addr(&ks, ":");
	kallsyms_addr(&ks, "");
	kallsyms_free(&ks);
	return 0;
}
