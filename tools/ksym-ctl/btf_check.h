/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ksym-ctl: is a BTF blob safe to hand to libbpf's btf_dump and to
 * fields.c's walks? The kernel's BTF verifier refuses what this refuses;
 * Debian's libbpf 1.1 does not, and its printer then writes out of bounds,
 * divides by zero, recurses until the stack overflows or prints for
 * minutes. `ksym-ctl fields --btf FILE` reads any file, so it checks every
 * BTF it loads (vmlinux's and the modules') before using it.
 */
#ifndef KSYM_CTL_BTF_CHECK_H
#define KSYM_CTL_BTF_CHECK_H

#include <stddef.h>

struct btf;

/*
 * Pointers, modifiers and arrays fields.c follows to print "struct {...}"
 * for an anonymous struct or union itself, never libbpf's full body.
 */
#define BTF_CHAIN_MAX	32

/*
 * The types of @btf that are its own (not its base's, for split BTF):
 * 0 when they are sound, else -1 with why not in @why (@size bytes).
 */
int btf_check(const struct btf *btf, char *why, size_t size);

/*
 * The header of the BTF file @path, when it is raw BTF (an ELF file's
 * .BTF section is libelf's to read): 0, else -1 with why in @why.
 */
int btf_check_file_header(const char *path, char *why, size_t size);

#endif
