// SPDX-License-Identifier: GPL-2.0
/*
 * ksym-ctl local: the DWARF lookup against the hit generator's real .ko
 * (x86-64 and arm64, where the kernels are built), and the classing of
 * writes into inside, outside, frame and unowned on made-up events.
 */
#include <elf.h>
#include <json.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf_local.h"
#include "kallsyms.h"
#include "local.h"
#include "test.h"
#include "uaf.h"

#define KO_X86		"../../../build/obj/kernel/trace/ksym_hitgen.ko"
#define KO_ARM64	"../../../build/obj-arm64/kernel/trace/ksym_hitgen.ko"
#define KO_STRIPPED	"../../../build/modroot/lib/modules"
#define VMLINUX_X86	"../../../build/obj/vmlinux"

/* Captured stderr of a call expected to fail, into @buf. */
static int failing(const char *ko, const char *func, const char *var,
		   char *buf, size_t size)
{
	struct dwarf_local dl;
	bool no_dwarf;
	FILE *f = tmpfile();
	int fd, saved, ret;
	size_t n;

	fflush(stderr);
	saved = dup(2);
	fd = fileno(f);
	dup2(fd, 2);
	ret = dwarf_local_find(ko, func, var, &dl, &no_dwarf);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
	return ret;
}

static void test_ko(const char *ko, int machine, long cfa)
{
	struct dwarf_local l, s, n;
	char err[1024];
	bool no_dwarf;

	if (access(ko, R_OK)) {
		printf("test_local: %s not built: its DWARF lookup not tested\n", ko);
		return;
	}
	CHECK(!dwarf_local_find(ko, "ksym_hitgen_local", "local", &l, &no_dwarf));
	CHECK(l.machine == machine);
	CHECK(l.cfa_entry == cfa);
	CHECK_STR(l.func, "ksym_hitgen_local");
	CHECK_STR(l.type, "long unsigned int");
	CHECK(l.size == 8);
	CHECK(l.field == 0);
	/* In the frame, below the entry's stack pointer, word aligned. */
	CHECK(l.offset == l.fbreg + cfa);
	CHECK(l.offset < 0 && l.offset > -4096 && !(l.offset & 7));

	/* A field of a local struct: struct irq_work is 32 bytes before leak. */
	CHECK(!dwarf_local_find(ko, "ksym_hitgen_local", "stray.leak", &s, &no_dwarf));
	CHECK(s.field == 32);
	CHECK(s.offset == s.fbreg + cfa + 32);
	CHECK(s.size == 8);
	CHECK_STR(s.type, "long unsigned int *");
	CHECK(!dwarf_local_find(ko, "ksym_hitgen_local", "stray.n", &n, &no_dwarf));
	CHECK(n.offset == s.offset + 8);
	/* The whole struct, through a member of a member. */
	CHECK(!dwarf_local_find(ko, "ksym_hitgen_local", "stray", &n, &no_dwarf));
	CHECK_STR(n.type, "struct ksym_hitgen_stray_work");
	CHECK(n.size == 48);
	CHECK(!dwarf_local_find(ko, "ksym_hitgen_local", "stray.work.node", &n, &no_dwarf));
	CHECK(n.offset == s.offset - 32);

	/* Refused, saying why and what to do. */
	CHECK(failing(ko, "ksym_hitgen_local", "n", err, sizeof(err)) < 0);
	CHECK_HAS(err, "n in ksym_hitgen_local is in a register over part of the function");
	CHECK_HAS(err, "Watch a variable that lives in memory");
	CHECK(failing(ko, "ksym_hitgen_local", "nosuch", err, sizeof(err)) < 0);
	CHECK_HAS(err, "no local variable or parameter nosuch");
	CHECK(failing(ko, "ksym_hitgen_local", "stray.nosuch", err, sizeof(err)) < 0);
	CHECK_HAS(err, "struct ksym_hitgen_stray_work has no member nosuch");
	CHECK(failing(ko, "ksym_hitgen_local", "local.x", err, sizeof(err)) < 0);
	CHECK_HAS(err, "is no struct or union");
	CHECK(failing(ko, "ksym_hitgen_local", "stray.", err, sizeof(err)) < 0);
	CHECK_HAS(err, "give VAR or VAR.FIELD");
	CHECK(failing(ko, "ksym_hitgen_nosuch", "x", err, sizeof(err)) < 0);
	CHECK_HAS(err, "no function ksym_hitgen_nosuch");
}

static void test_stripped(void)
{
	char path[512], err[512];
	struct dwarf_local dl;
	bool no_dwarf = false;
	FILE *p;

	p = popen("find " KO_STRIPPED " -name ksym_hitgen.ko 2>/dev/null | head -1", "r");
	if (!p || !fgets(path, sizeof(path), p)) {
		if (p)
			pclose(p);
		printf("test_local: no installed (stripped) ksym_hitgen.ko: not tested\n");
		return;
	}
	pclose(p);
	path[strcspn(path, "\n")] = '\0';
	CHECK(!dwarf_file_has_info(path));
	CHECK(dwarf_file_has_info(KO_X86) || access(KO_X86, R_OK));
	fflush(stderr);
	CHECK(QUIET(dwarf_local_find(path, "ksym_hitgen_local", "local", &dl,
				     &no_dwarf)) < 0);
	CHECK(no_dwarf);
	(void)err;
}

/* Made-up calls and writes: each class, by callchain and task. */
static void test_classes(void)
{
	static char text_src[] =
		"ffffffff81000000 T asm_sysvec_irq_work\n"
		"ffffffff81000100 T irq_work_single\n"
		"ffffffff81000200 T irq_work_queue\n"
		"ffffffff81000300 T arch_rethook_trampoline\n"
		"ffffffff81000400 T vfs_write\n"
		"ffffffffa0000000 t ksym_hitgen_local_callee\t[ksym_hitgen]\n"
		"ffffffffa0000100 t ksym_hitgen_local_stray\t[ksym_hitgen]\n"
		"ffffffffa0000200 T ksym_hitgen_local\t[ksym_hitgen]\n"
		"ffffffffa0000300 T ksym_hitgen_run\t[ksym_hitgen]\n";
	struct local_target t = { .func = "ksym_hitgen_local", .offset = -0x48,
				  .len = 8, .prologue = 9 };
	struct local_call c = { .ts_in = 100, .sp = 0x1000, .pid = 7, .cpu = 0 };
	struct local_write w = { .addr = 0x1000 - 0x48, .pid = 7 };
	struct local_data d = { 0 };
	struct kallsyms ks;
	char *text = strdup(text_src);

	CHECK(!kallsyms_load(&ks, text));
	CHECK(!local_add_call(&d, &c));
	/* The zeroing by the function itself, value unread: the frame's. */
	w.ts = 101; w.ip = 0xffffffffa0000242;
	w.ips[0] = w.ip; w.ips[1] = 0xffffffffa0000310; w.nr_ips = 2;
	CHECK(!local_add_write(&d, &w));
	/* Its next iteration (rep stos): the frame's too. */
	w.ts = 101;
	CHECK(!local_add_write(&d, &w));
	/* The callee: inside. */
	w.ts = 102; w.ip = 0xffffffffa0000012;
	w.ips[0] = w.ip; w.ips[1] = 0xffffffffa0000252; w.nr_ips = 2;
	CHECK(!local_add_write(&d, &w));
	/* The function's own store after: inside. */
	w.ts = 103; w.ip = 0xffffffffa0000260;
	w.ips[0] = w.ip; w.nr_ips = 1;
	CHECK(!local_add_write(&d, &w));
	/* An interrupt on the owning task: outside. */
	w.ts = 104; w.ip = 0xffffffffa000011c;
	w.ips[0] = w.ip; w.ips[1] = 0xffffffff81000129;
	w.ips[2] = 0xffffffff8100001a; w.ips[3] = 0xffffffff81000220;
	w.ips[4] = 0xffffffffa000027c; w.nr_ips = 5;
	CHECK(!local_add_write(&d, &w));
	/* Another task, another CPU: outside. */
	w.ts = 105; w.pid = 8; w.cpu = 1; w.ip = 0xffffffff81000410;
	w.ips[0] = w.ip; w.nr_ips = 1;
	CHECK(!local_add_write(&d, &w));
	/* The return's trampoline: the frame's. */
	w.ts = 106; w.pid = 7; w.cpu = 0; w.ip = 0xffffffff81000310;
	w.ips[0] = w.ip; w.nr_ips = 1;
	CHECK(!local_add_write(&d, &w));
	local_add_return(&d, 7, 107, 0x1000);
	/* After the return: no call owned the slot. */
	w.ts = 108; w.ip = 0xffffffff81000410;
	CHECK(!local_add_write(&d, &w));
	/* Another slot: not this call's. */
	w.ts = 104; w.addr = 0x2000;
	CHECK(!local_add_write(&d, &w));

	local_analyze(&d, &t, &ks);
	CHECK(d.writes[0].cls == LOCAL_FRAME);
	CHECK(d.writes[1].cls == LOCAL_FRAME);
	CHECK(d.writes[2].cls == LOCAL_INSIDE);
	CHECK(d.writes[3].cls == LOCAL_INSIDE);
	CHECK(d.writes[4].cls == LOCAL_OUTSIDE && d.writes[4].irq);
	CHECK(d.writes[5].cls == LOCAL_OUTSIDE && !d.writes[5].irq);
	CHECK(d.writes[6].cls == LOCAL_FRAME);
	CHECK(d.writes[7].cls == LOCAL_UNOWNED);
	CHECK(d.writes[8].cls == LOCAL_UNOWNED);
	CHECK(d.count[LOCAL_INSIDE] == 2 && d.count[LOCAL_OUTSIDE] == 2 &&
	      d.count[LOCAL_FRAME] == 3 && d.count[LOCAL_UNOWNED] == 2);

	/* The report: as text, and as JSON that parses, with the counts. */
	{
		struct uaf_coverage cov = { .known = true, .armed = 1, .slots = 1,
					    .nr_slots = 1 };
		struct local_report rep = { .target = &t, .cov = &cov,
					    .calls_seen = 1, .title = "sh -c x\"y" };
		struct json_object *o, *v;
		char *buf = NULL;
		size_t size = 0;
		FILE *f;

		t.var = "local";
		t.type = "long unsigned int";
		t.debuginfo = "/usr/lib/debug/x.ko";
		f = open_memstream(&buf, &size);
		local_print(f, &d, &rep, &ks);
		fclose(f);
		CHECK_HAS(buf, "2  outside the call (an interrupt, another task): the corruption");
		CHECK_HAS(buf, "1      ksym_hitgen_local_stray [ksym_hitgen] (in an interrupt)");
		CHECK_HAS(buf, "coverage: 1 calls seen, 1 watched, 0 missed");
		free(buf);
		buf = NULL;
		f = open_memstream(&buf, &size);
		local_print_json(f, &d, &rep, &ks);
		fclose(f);
		o = json_tokener_parse(buf);
		CHECK(o != NULL);
		CHECK(o && json_object_object_get_ex(o, "counts", &v) &&
		      json_object_get_int(json_object_object_get(v, "outside")) == 2);
		CHECK(o && json_object_object_get_ex(o, "writes", &v) &&
		      json_object_array_length(v) == 6);
		json_object_put(o);
		free(buf);
	}

	/* Recursion: the inner call is depth 2, with its own slot. */
	c.ts_in = 200; c.sp = 0x900;
	CHECK(!local_add_call(&d, &c));
	c.ts_in = 201; c.sp = 0x800;
	CHECK(!local_add_call(&d, &c));
	CHECK(d.calls[1].depth == 1 && d.calls[2].depth == 2);
	local_add_return(&d, 7, 202, 0x800);
	CHECK(d.calls[2].ts_out == 202 && !d.calls[1].ts_out);

	local_data_free(&d);
	kallsyms_free(&ks);
}

/* Copies the compiler made (foo.isra.0): one is resolved, several refused. */
static void test_copies(void)
{
	struct dwarf_local a, b;
	char err[2048];
	bool no_dwarf;

	if (access(VMLINUX_X86, R_OK)) {
		printf("test_local: %s not built: copies not tested\n", VMLINUX_X86);
		return;
	}
	/* simple_attr_write_xsigned has one copy, .constprop.0.isra.0. */
	CHECK(!dwarf_local_find(VMLINUX_X86, "simple_attr_write_xsigned", "val", &a,
				&no_dwarf));
	CHECK_STR(a.func, "simple_attr_write_xsigned.constprop.0.isra.0");
	CHECK(!dwarf_local_find(VMLINUX_X86, "simple_attr_write_xsigned.constprop.0.isra.0",
				"val", &b, &no_dwarf));
	CHECK(a.offset == b.offset && a.offset < 0);
	CHECK_STR(a.type, "long long unsigned int");
	/* __neigh_lookup has only copies, two. */
	CHECK(failing(VMLINUX_X86, "__neigh_lookup", "n", err, sizeof(err)) < 0);
	CHECK_HAS(err, "__neigh_lookup has 2 copies the compiler made (__neigh_lookup.constprop.0, ");
	CHECK_HAS(err, "name the one to watch");
	/* rcu_lock_acquire: a static function of many files. */
	CHECK(failing(VMLINUX_X86, "rcu_lock_acquire", "map", err, sizeof(err)) < 0);
	CHECK_HAS(err, "functions are named rcu_lock_acquire (static functions of several files");
}

void test_local(void)
{
	test_ko(KO_X86, EM_X86_64, 8);
	test_ko(KO_ARM64, EM_AARCH64, 0);
	test_stripped();
	test_copies();
	test_classes();
}
