/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl local: where a function's local variable lives, from DWARF
 * (libdw). The variable's DW_AT_location must be DW_OP_fbreg N against a
 * DW_AT_frame_base of DW_OP_call_frame_cfa, over the whole function (one
 * location, or a location list whose every entry says the same): then it
 * is at CFA + N for as long as the call runs, and the CFA is the stack
 * pointer the function was entered with plus what the call pushed (x86-64:
 * the return address, 8; arm64: nothing). A field path adds the members'
 * DW_AT_data_member_location. Everything else (a register, a location
 * that moves, optimised out, only inlined copies) is refused with a
 * message saying which and what to do.
 *
 * Nothing here touches tracefs or the running kernel: host unit tested
 * against the hit generator's real .ko (tests/test_dwarf.c).
 */
#ifndef KSYM_CTL_DWARF_LOCAL_H
#define KSYM_CTL_DWARF_LOCAL_H

#include <stdbool.h>

struct dwarf_local {
	char		func[128];	/* the function's symbol (foo.isra.0) */
	char		type[128];	/* the watched object's type, as C */
	long		fbreg;		/* DW_OP_fbreg of the variable */
	long		cfa_entry;	/* CFA - the entry's stack pointer */
	long		field;		/* the field path's offset in the variable */
	long		offset;		/* from the entry's stack pointer */
	unsigned long	size;		/* the watched object's bytes */
	unsigned long	prologue;	/* bytes from the symbol to the body (0: not known) */
	int		machine;	/* EM_X86_64, EM_AARCH64 */
};

/*
 * Find @var (VAR[.FIELD...]) of function @func in ELF file @path (vmlinux
 * or a .ko, relocated as libdwfl does). @func may name a copy the
 * compiler made (foo.isra.0, foo.constprop.0); a plain name that only
 * copies have is resolved when there is one, refused with their list when
 * there are several. 0, or -1 with a message (err_msg()). *@no_dwarf is set
 * when the file has no DWARF at all (the caller may look elsewhere).
 */
int dwarf_local_find(const char *path, const char *func, const char *var,
		     struct dwarf_local *out, bool *no_dwarf);

/* Whether ELF file @path has a .debug_info section. */
bool dwarf_file_has_info(const char *path);

/* The CFA at a function's entry from that entry's stack pointer, for ELF @machine; -1 when not known. */
long dwarf_cfa_at_entry(int machine);

#endif
