// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl local: a local variable's place in its function's frame, from
 * DWARF (dwarf_local.h). libdwfl opens the file as an offline module, which
 * applies a .ko's relocations to its DWARF; the function is found by its
 * ELF symbol (so that foo.isra.0 is the copy the kernel runs), its
 * DW_TAG_subprogram by the symbol's address (dwarf_getscopes()).
 */
#include <dwarf.h>
#include <elf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_local.h"
#include "utils.h"

long dwarf_cfa_at_entry(int machine)
{
	switch (machine) {
	case EM_X86_64:
		return 8;	/* the call pushed the return address */
	case EM_AARCH64:
		return 0;	/* BL leaves SP as it was: CFA = SP at entry */
	default:
		return -1;
	}
}

bool dwarf_file_has_info(const char *path)
{
	Elf_Scn *scn = NULL;
	bool found = false;
	size_t shstrndx;
	Elf *elf;
	int fd;

	elf_version(EV_CURRENT);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *name;

			if (!gelf_getshdr(scn, &sh))
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			found = name && (!strcmp(name, ".debug_info") ||
					 !strcmp(name, ".zdebug_info")) &&
				sh.sh_type != SHT_NOBITS;
		}
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return found;
}

/* Only the file given: no search for separate debug files. */
static int no_debuginfo(Dwfl_Module *m, void **ud, const char *name,
			Dwarf_Addr base, const char *file, const char *dlink,
			GElf_Word crc, char **dname)
{
	(void)m; (void)ud; (void)name; (void)base; (void)file; (void)dlink;
	(void)crc; (void)dname;
	return -1;
}

static const Dwfl_Callbacks offline_callbacks = {
	.find_debuginfo = no_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static const char *die_name(Dwarf_Die *die)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
}

/* Whether symbol @sym is function @func or a copy of it (foo.isra.0). */
static bool symbol_copy(const char *sym, const char *func)
{
	size_t n = strlen(func);

	if (strncmp(sym, func, n) || sym[n] != '.')
		return false;
	/* foo.cold is a part of foo, not a function one calls. */
	return !strstr(sym + n, ".cold");
}

/*
 * The function's address: the symbol @func, or the one copy of it when
 * only copies have its name. -1 with a message.
 */
static int find_symbol(Dwfl_Module *mod, const char *path, const char *func,
		       struct dwarf_local *out, GElf_Addr *addr)
{
	char copies[512] = "";
	int i, n, exact = 0, nr_copies = 0;
	GElf_Addr copy_addr = 0, a;
	const char *copy = NULL;
	bool plain = !strchr(func, '.');
	GElf_Sym sym;

	n = dwfl_module_getsymtab(mod);
	for (i = 0; i < n; i++) {
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &a, NULL,
							   NULL, NULL);

		if (!name || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		if (!strcmp(name, func)) {
			if (exact++ == 0)
				*addr = a;
		} else if (plain && symbol_copy(name, func)) {
			if (nr_copies++ == 0) {
				copy = name;
				copy_addr = a;
			}
			if (strlen(copies) + strlen(name) + 3 < sizeof(copies))
				snprintf(copies + strlen(copies),
					 sizeof(copies) - strlen(copies), "%s%s",
					 *copies ? ", " : "", name);
		}
	}
	if (exact > 1) {
		err_msg("%s: %d functions are named %s (static functions of several files, or inlined ones' out-of-line copies): ksym-ctl local cannot tell which one a probe on the name would hit; watch a local of a function whose name is its own\n",
			path, exact, func);
		return -1;
	}
	if (exact) {
		snprintf(out->func, sizeof(out->func), "%s", func);
		return 0;
	}
	if (nr_copies == 1) {
		snprintf(out->func, sizeof(out->func), "%s", copy);
		*addr = copy_addr;
		return 0;
	}
	if (nr_copies > 1) {
		err_msg("%s: %s has %d copies the compiler made (%s): name the one to watch (ksym-ctl local %s VAR)\n",
			path, func, nr_copies, copies, copy);
		return -1;
	}
	err_msg("%s: no function %s (it may be inlined into every caller: then its locals are its callers', watch a local of the caller)\n",
		path, func);
	return -1;
}

/*
 * The DW_TAG_subprogram whose code starts at @pc (module address), or a
 * few instructions after it: arm64's symbol covers the NOPs patched in
 * before the function (-fpatchable-function-entry=N,M), DWARF's low_pc
 * does not. *@skip: how far after.
 */
static int find_subprogram(Dwfl_Module *mod, GElf_Addr pc, Dwarf_Die *out,
			   unsigned long *skip)
{
	unsigned long k;
	int ret = -1;

	for (k = 0; k <= 16 && ret; k += 4) {
		Dwarf_Die *cu, *scopes = NULL;
		Dwarf_Addr bias, entry;
		int i, n;

		cu = dwfl_module_addrdie(mod, pc + k, &bias);
		if (!cu)
			continue;
		n = dwarf_getscopes(cu, pc + k - bias, &scopes);
		for (i = 0; i < n; i++) {
			if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
				continue;
			if (dwarf_entrypc(&scopes[i], &entry) || entry != pc + k - bias)
				continue;
			*out = scopes[i];
			*skip = k;
			ret = 0;
			break;
		}
		free(scopes);
	}
	return ret;
}

/*
 * Variable or parameter @name among @die's children, through lexical
 * blocks (the outermost wins) but not into inlined calls; 0 when found.
 */
static int find_var(Dwarf_Die *die, const char *name, Dwarf_Die *out, int depth,
		    int *best)
{
	Dwarf_Die child;
	int found = -1;

	if (dwarf_child(die, &child))
		return -1;
	do {
		int tag = dwarf_tag(&child);
		const char *n;

		if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
			n = die_name(&child);
			if (n && !strcmp(n, name) && depth < *best) {
				*out = child;
				*best = depth;
				found = 0;
			}
		} else if (tag == DW_TAG_lexical_block) {
			if (!find_var(&child, name, out, depth + 1, best))
				found = 0;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return found;
}

/* How an expression other than DW_OP_fbreg puts the variable, for the error. */
static const char *where(const Dwarf_Op *expr, size_t len)
{
	unsigned int op = len ? expr[0].atom : 0;

	if (!len)
		return "nowhere (optimised out)";
	if ((op >= DW_OP_reg0 && op <= DW_OP_reg31) || op == DW_OP_regx)
		return "in a register";
	if ((op >= DW_OP_breg0 && op <= DW_OP_breg31) || op == DW_OP_bregx)
		return "at an address computed from a register";
	if (op == DW_OP_fbreg)
		return "in the frame, in pieces";
	if (op == DW_OP_entry_value || op == DW_OP_GNU_entry_value ||
	    op == DW_OP_implicit_value || op == DW_OP_lit0 ||
	    (len > 1 && expr[len - 1].atom == DW_OP_stack_value))
		return "a computed value, in no memory (optimised out)";
	if (op == DW_OP_piece)
		return "in pieces";
	return "somewhere DWARF computes";
}

/*
 * The variable's DW_OP_fbreg over the whole function: every location says
 * the same. -1 with a message naming where it is instead.
 */
static int var_fbreg(Dwarf_Die *var, const char *func, const char *name,
		     Dwarf_Addr entry, long *fbreg)
{
	Dwarf_Addr base, start, end;
	Dwarf_Attribute attr, a;
	ptrdiff_t off = 0;
	Dwarf_Op *expr;
	size_t len;
	int nr = 0;
	bool set = false;

	if (!dwarf_attr_integrate(var, DW_AT_location, &attr)) {
		if (dwarf_attr_integrate(var, DW_AT_const_value, &a))
			err_msg("%s in %s is optimised out: the compiler knows its value (a constant), it is in no memory. Build the function with it kept (e.g. make it volatile, or take its address) to watch it\n",
				name, func);
		else
			err_msg("%s in %s is optimised out: it is in no memory in this build. Watch something it is copied to, or build with it kept (e.g. take its address)\n",
				name, func);
		return -1;
	}
	while ((off = dwarf_getlocations(&attr, off, &base, &start, &end, &expr,
					 &len)) > 0) {
		nr++;
		if (len != 1 || expr[0].atom != DW_OP_fbreg) {
			if (end != (Dwarf_Addr)-1)
				err_msg("%s in %s is %s over part of the function (%s+0x%llx to +0x%llx): it has no one place in the frame for the whole call, and a watch of a frame slot would miss it. Watch a variable that lives in memory (its address taken, or volatile), or a field of what it points to\n",
					name, func, where(expr, len), func,
					(unsigned long long)(start - entry),
					(unsigned long long)(end - entry));
			else
				err_msg("%s in %s is %s: not in the frame, so there is no memory to watch. Watch a variable that lives in memory (its address taken, or volatile), or a field of what it points to\n",
					name, func, where(expr, len));
			return -1;
		}
		if (set && (long)expr[0].number != *fbreg) {
			err_msg("%s in %s moves within the frame during the call (DW_OP_fbreg %ld, then %ld): no one slot to watch\n",
				name, func, *fbreg, (long)expr[0].number);
			return -1;
		}
		*fbreg = (long)expr[0].number;
		set = true;
	}
	if (off < 0 || !nr) {
		err_msg("%s in %s is optimised out: its location list is empty%s\n",
			name, func, off < 0 ? " or unreadable" : "");
		return -1;
	}
	return 0;
}

/* The type of @die, typedefs and qualifiers kept (for its name). */
static int die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute a;

	return dwarf_formref_die(dwarf_attr_integrate(die, DW_AT_type, &a),
				 type) ? 0 : -1;
}

static void type_name(Dwarf_Die *type, char *buf, size_t size)
{
	const char *n = dwarf_diename(type);
	Dwarf_Die t;

	switch (dwarf_tag(type)) {
	case DW_TAG_structure_type:
		snprintf(buf, size, "struct %s", n ? n : "(anonymous)");
		break;
	case DW_TAG_union_type:
		snprintf(buf, size, "union %s", n ? n : "(anonymous)");
		break;
	case DW_TAG_enumeration_type:
		snprintf(buf, size, "enum %s", n ? n : "(anonymous)");
		break;
	case DW_TAG_pointer_type:
		if (die_type(type, &t))
			snprintf(buf, size, "void *");
		else {
			type_name(&t, buf, size);
			if (strlen(buf) + 3 < size)
				strcat(buf, " *");
		}
		break;
	case DW_TAG_array_type:
		if (!die_type(type, &t)) {
			type_name(&t, buf, size);
			if (strlen(buf) + 3 < size)
				strcat(buf, "[]");
		} else {
			snprintf(buf, size, "array");
		}
		break;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
		if (die_type(type, &t))
			snprintf(buf, size, "void");
		else
			type_name(&t, buf, size);
		break;
	default:
		snprintf(buf, size, "%s", n ? n : "?");
	}
}

/* Member @name of struct/union @su (through anonymous members): its DIE and offset. */
static int find_member(Dwarf_Die *su, const char *name, Dwarf_Die *out, long *off)
{
	Dwarf_Die child, t;
	Dwarf_Attribute a;
	Dwarf_Word w;

	if (dwarf_child(su, &child))
		return -1;
	do {
		const char *n;
		long here = 0;

		if (dwarf_tag(&child) != DW_TAG_member)
			continue;
		if (dwarf_attr(&child, DW_AT_data_member_location, &a)) {
			if (dwarf_formudata(&a, &w))
				continue;
			here = (long)w;
		}
		n = dwarf_diename(&child);
		if (n && !strcmp(n, name)) {
			*out = child;
			*off = here;
			return 0;
		}
		if (!n && !die_type(&child, &t) && dwarf_peel_type(&t, &t) == 0 &&
		    !find_member(&t, name, out, off)) {
			*off += here;
			return 0;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* .FIELD.FIELD... of the variable's type: the offset, the last type. */
static int walk_fields(Dwarf_Die *type, const char *path, const char *var,
		       long *offset)
{
	char *copy = strdup(path), *save = NULL, *f;
	int ret = -1;

	if (!copy)
		return -1;
	*offset = 0;
	for (f = strtok_r(copy, ".", &save); f; f = strtok_r(NULL, ".", &save)) {
		Dwarf_Die peeled, member;
		Dwarf_Attribute a;
		char tn[128];
		long off;
		int tag;

		if (dwarf_peel_type(type, &peeled)) {
			err_msg("%s: the type of what holds .%s is unreadable\n", var, f);
			goto out;
		}
		tag = dwarf_tag(&peeled);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type) {
			type_name(type, tn, sizeof(tn));
			err_msg("%s: .%s: %s is no struct or union (a pointer's target is not in the frame: watch it with ksym-ctl uaf --type or a ksym_watch trigger)\n",
				var, f, tn);
			goto out;
		}
		if (find_member(&peeled, f, &member, &off)) {
			type_name(&peeled, tn, sizeof(tn));
			err_msg("%s: %s has no member %s\n", var, tn, f);
			goto out;
		}
		if (dwarf_attr(&member, DW_AT_bit_size, &a)) {
			err_msg("%s: .%s is a bit-field: a watch takes whole bytes; watch the bytes that hold it\n",
				var, f);
			goto out;
		}
		*offset += off;
		if (die_type(&member, type)) {
			err_msg("%s: .%s has no type\n", var, f);
			goto out;
		}
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

int dwarf_local_find(const char *path, const char *func, const char *var,
		     struct dwarf_local *out, bool *no_dwarf)
{
	char name[128], *dot;
	Dwarf_Die sub, vdie, type, peeled;
	Dwarf_Attribute a;
	Dwfl_Module *mod;
	Dwarf_Addr bias, entry, *bkpts = NULL;
	Dwarf_Word size;
	unsigned long skip = 0;
	int n;
	GElf_Addr addr = 0;
	GElf_Ehdr eh;
	Dwarf_Op *fb;
	size_t fblen;
	int best = 1 << 30, ret = -1;
	Dwfl *dwfl;
	Elf *elf;

	memset(out, 0, sizeof(*out));
	*no_dwarf = false;
	snprintf(name, sizeof(name), "%s", var);
	dot = strchr(name, '.');
	if (dot)
		*dot = '\0';
	if (!*name || (dot && !dot[1])) {
		err_msg("'%s': give VAR or VAR.FIELD[.FIELD...]\n", var);
		return -1;
	}
	dwfl = dwfl_begin(&offline_callbacks);
	if (!dwfl) {
		err_msg("libdwfl: %s\n", dwfl_errmsg(-1));
		return -1;
	}
	dwfl_report_begin(dwfl);
	mod = dwfl_report_offline(dwfl, "", path, -1);
	dwfl_report_end(dwfl, NULL, NULL);
	if (!mod) {
		err_msg("%s: %s\n", path, dwfl_errmsg(-1));
		goto out;
	}
	elf = dwfl_module_getelf(mod, &bias);
	if (!elf || !gelf_getehdr(elf, &eh)) {
		err_msg("%s: not an ELF file libdw reads: %s\n", path, dwfl_errmsg(-1));
		goto out;
	}
	out->machine = eh.e_machine;
	out->cfa_entry = dwarf_cfa_at_entry(eh.e_machine);
	if (out->cfa_entry < 0) {
		err_msg("%s: ELF machine %d: ksym-ctl local knows the call frame at entry of x86-64 and arm64 only\n",
			path, eh.e_machine);
		goto out;
	}
	if (!dwfl_module_getdwarf(mod, &bias)) {
		*no_dwarf = true;
		err_msg("%s has no DWARF (stripped, or built without CONFIG_DEBUG_INFO)\n", path);
		goto out;
	}
	if (find_symbol(mod, path, func, out, &addr))
		goto out;
	if (find_subprogram(mod, addr, &sub, &skip)) {
		err_msg("%s: %s has no DWARF of its own (its compilation unit was built without debug info)\n",
			path, out->func);
		goto out;
	}
	if (find_var(&sub, name, &vdie, 0, &best)) {
		err_msg("%s has no local variable or parameter %s in %s's DWARF (it may be a local of a function inlined into it: watch that function's, where it is not inlined)\n",
			out->func, name, path);
		goto out;
	}
	if (!dwarf_attr_integrate(&sub, DW_AT_frame_base, &a) ||
	    dwarf_getlocation(&a, &fb, &fblen) || fblen != 1 ||
	    fb[0].atom != DW_OP_call_frame_cfa) {
		err_msg("%s: the frame base is not the call frame's CFA (DW_OP_call_frame_cfa): ksym-ctl local reads only that (gcc's and clang's for x86-64 and arm64)\n",
			out->func);
		goto out;
	}
	if (dwarf_entrypc(&sub, &entry) ||
	    var_fbreg(&vdie, out->func, name, entry, &out->fbreg))
		goto out;
	/* The body's first instruction, past the prologue. */
	n = dwarf_entry_breakpoints(&sub, &bkpts);
	if (n > 0 && bkpts[0] > entry)
		out->prologue = bkpts[0] - entry + skip;
	free(bkpts);
	if (die_type(&vdie, &type)) {
		err_msg("%s in %s has no type\n", name, out->func);
		goto out;
	}
	if (dot && walk_fields(&type, dot + 1, name, &out->field))
		goto out;
	type_name(&type, out->type, sizeof(out->type));
	if (dwarf_peel_type(&type, &peeled) || dwarf_aggregate_size(&peeled, &size)) {
		err_msg("%s: the size of %s is not known\n", var, out->type);
		goto out;
	}
	out->size = size;
	out->offset = out->fbreg + out->cfa_entry + out->field;
	ret = 0;
out:
	dwfl_end(dwfl);
	return ret;
}
