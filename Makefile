# Build, boot and test the ksym tracer on Linux 6.12. README.md says what it is;
# scripts/README.md and bench/README.md tell each target in full.
#
#   make run        build what is missing, boot the VM, show ksym-ctl at work
#   make check      deps + tree + kernel + initramfs, run the tests in QEMU, summary
#   make check-arm64 the same suite on arm64: cross-built kernel (build/obj-arm64),
#                   Debian arm64 user space, qemu-system-aarch64 -M virt -cpu max
#                   (build/arm64-test-summary.txt); ARM64_TESTS=... for some cases
#   make bench-arm64 instructions per hit on arm64 next to perf's watchpoint
#   make check-debug the same suite on a debug kernel (KASAN, UBSAN, KFENCE, lockdep,
#                   DEBUG_OBJECTS, kmemleak) in build/obj-debug; fuzz and storm
#                   bounded by time (DBG_FUZZ_SECS, DBG_STORM_SECS), the VM limit
#                   computed from them and the number of cases, kmemleak scan last
#   make check-kcsan the same suite on a KCSAN kernel (data races) in build/obj-kcsan
#                   (KCSAN_FUZZ_SECS, KCSAN_STORM_SECS; build/kcsan-test-summary.txt)
#   make selftest TESTDIR=/abs/dir   run that directory's .tc files in the same VM
#   make vm         the same VM with an interactive shell on the serial console
#   make bench      cost of a watched access per configuration, next to perf's
#                   and bpftrace's, and its growth, on the test kernel and on a
#                   production-like one (build/obj-prod) (build/bench.txt, .svg)
#   make bench-profile  instructions of one hit per function, ksym and perf
#                   (gdb single-steps it in the VM; build/profile/profile.txt)
#   make bench-profile-prod  the same on the production-like kernel
#                   (build/profile-prod/profile.txt)
#   make build      deps + tree + kernel + initramfs, no test run
#   make deps | tree | kernel | initramfs | lint | clean | distclean
#   make patches    the project as a git format-patch series against plain 6.12
#                   (build/patches/; cut by patches/series.conf)
#   make patches-check  that series: git am to a pristine tree, build after every
#                   patch, checkpatch --strict on each (build/series/)
#   make kernel KSRC=/path/to/linux   the series on your own 6.12 git tree (git am
#                   in a worktree of it, build/ksrc/), built with the same config
#   make fuzz       the libFuzzer harnesses of the tools' readers (tools/fuzz),
#                   each FUZZ_SECS (default 60) s: executions, coverage, crashes
#   make help       this list
#
# Knobs (environment): KSYM_NO_PATCHES=1, KSYM_JOBS, KSYM_TESTS, KSYM_FT_VERBOSE,
# KSYM_VM_TIMEOUT, KSYM_VM_IDLE_TIMEOUT, KSYM_APPEND, KSYM_QEMU_EXTRA, ...
# (all in scripts/README.md; each script's header describes its own).

SHELL := /bin/bash
.NOTPARALLEL:
.PHONY: all help check check-arm64 check-arm64-build bench-arm64 check-arm64-ci check-debug check-kcsan vm bench bench-profile bench-profile-prod bench-prod-kernel build deps tree kernel initramfs lint clean distclean run selftest selftest-testdir \
	patches patches-check fuzz

BUILD := build

all: check

# The header of this file: the list of targets.
help:
	@sed -n '/^[^#]/q; s/^# \{0,1\}//p' $(firstword $(MAKEFILE_LIST))

deps:
	bash scripts/install-deps.sh

tree:
ifdef KSRC
	$(error KSRC= is for make kernel and make patches only; the other targets use the Debian tree)
endif
	bash scripts/prepare-tree.sh

# With KSRC=/path/to/linux: the series of make patches on that 6.12 git tree
# (scripts/ksrc-kernel.sh), built into build/ksrc/obj.
kernel:
ifdef KSRC
	bash scripts/make-patches.sh
	bash scripts/ksrc-kernel.sh "$(KSRC)"
else
	bash scripts/build-kernel.sh
endif

initramfs:
	bash scripts/make-initramfs.sh

# The test command (README, CI): build everything, run the tests, exit non-zero
# on any failure. The summary ends with "ksym: N passed, M failed, K skipped".
check: build
	bash scripts/test-kconfig.sh
	bash scripts/test-parse-console.sh
	$(MAKE) -s -C tools/ksym-plugin test
	$(MAKE) -s -C tools/kshark-ksym test
	$(MAKE) -s -C tools/ksym-ctl test
	bash scripts/test-restartable.sh
	bash scripts/test-series.sh
	$(MAKE) -s -C tools/fuzz check
	bash scripts/run-vm.sh test
	@# Lockdown cannot be lifted: its case gets a boot of its own (KUnit ran
	@# in the first).
	KSYM_APPEND="kunit.enable=0 $${KSYM_APPEND:-}" KSYM_TESTS=test.d/ksym-lockdown \
		KSYM_LOG=$(BUILD)/console-lockdown.log KSYM_SUMMARY=$(BUILD)/test-summary-lockdown.txt \
		bash scripts/run-vm.sh test

# The same suite on a debug kernel: config/ksym-debug.config merged on top
# (KASAN, UBSAN, KFENCE, DEBUG_OBJECTS, lockdep, atomic-sleep checks, kmemleak
# with a scan after the tests), built in build/obj-debug with its own modules,
# initramfs and logs (build/dbg-*). Any kernel report or leak fails it.
# Summary: build/dbg-test-summary.txt.
# Bounded by time, not by counts: the fuzzer and the storm get budgets in guest
# seconds (*_FUZZ_SECS, *_STORM_SECS); the VM limit is boot and KUnit
# (*_BOOT_SECS) + the budgets + the cases x *_CASE_SECS (an allowance per case:
# for the debug kernel 1.5 times the 98 s mean measured with another VM and
# builds beside it, for KCSAN about twice its 33 s) + the kmemleak scan
# (run-vm.sh); the
# guest starts no case once only the scan's time is left and ends one still
# running then, so the scan always runs (guest-init.sh, ksym.deadline).
# KSYM_VM_TIMEOUT=S still sets the limit by hand.
DBG_FUZZ_SECS ?= 600
DBG_STORM_SECS ?= 120
DBG_CASE_SECS ?= 150
DBG_BOOT_SECS ?= 600

# $(call side_env,NAME,PREFIX): a kernel built beside the test kernel from
# config/ksym-NAME.config, in build/obj-NAME, with its own modules, initramfs,
# logs and summary (build/PREFIX-*).
side_env = KSYM_OBJ=$(CURDIR)/$(BUILD)/obj-$(1) \
	KSYM_EXTRA_CONFIG=$(CURDIR)/config/ksym-$(1).config \
	KSYM_BUILD_LOG=$(CURDIR)/$(BUILD)/$(2)-kernel-build.log \
	KSYM_CONFIG_MISSING=$(CURDIR)/$(BUILD)/$(2)-config-missing.txt \
	KSYM_MODROOT=$(CURDIR)/$(BUILD)/$(2)-modroot \
	KSYM_STAGE=$(CURDIR)/$(BUILD)/$(2)-initramfs-root \
	KSYM_INITRD=$(CURDIR)/$(BUILD)/$(2)-initramfs.cpio.gz \
	KSYM_KERNEL=$(CURDIR)/$(BUILD)/obj-$(1)/arch/x86/boot/bzImage \
	KSYM_LOG=$(CURDIR)/$(BUILD)/$(2)-console.log \
	KSYM_SUMMARY=$(CURDIR)/$(BUILD)/$(2)-test-summary.txt

# $(call side_check,ENV,FUZZ_SECS,STORM_SECS,CASE_SECS,BOOT_SECS,MORE_ENV): the
# judge's own test, the kernel, the initramfs, the run bounded by time.
define side_check
	bash scripts/test-parse-console.sh
	$(1) bash scripts/build-kernel.sh
	$(1) bash scripts/make-initramfs.sh
	$(1) $(6) KSYM_CASE_SECS=$(4) KSYM_BOOT_SECS=$(5) \
		KSYM_BUDGET_SECS=$$(($(2) + $(3))) \
		KSYM_APPEND="ksym.fuzz_secs=$(2) ksym.storm_secs=$(3) $${KSYM_APPEND:-}" \
		bash scripts/run-vm.sh test
endef

DBG_ENV = $(call side_env,debug,dbg)

check-debug: deps tree
	$(call side_check,$(DBG_ENV),$(DBG_FUZZ_SECS),$(DBG_STORM_SECS),$(DBG_CASE_SECS),$(DBG_BOOT_SECS),KSYM_KMEMLEAK=1 KSYM_MEM=$${KSYM_MEM:-2048})

# The same suite on a KCSAN kernel (KCSAN excludes KASAN, so a kernel of its
# own): config/ksym-kcsan.config merged on top, built in build/obj-kcsan with
# its own modules, initramfs and logs (build/kcsan-*). Every "BUG: KCSAN:
# data-race" report fails it; the summary shows both accesses' top frames.
# Bounded by time as check-debug (no kmemleak: the scan is check-debug's).
# Summary: build/kcsan-test-summary.txt.
KCSAN_FUZZ_SECS ?= 300
KCSAN_STORM_SECS ?= 120
KCSAN_CASE_SECS ?= 60
KCSAN_BOOT_SECS ?= 600
# kernel/trace/Makefile builds the whole directory without KCSAN (the function
# tracer would recurse); the ksym objects get it back from the make command line.
KCSAN_OBJS ?= trace_ksym.o trace_ksym_parse.o trace_ksym_watch.o trace_ksym_stat.o trace_ksym_slot.o \
	trace_ksym_btf.o trace_ksym_trigger.o trace_ksym_branch.o ksym_hitgen.o
KCSAN_ENV = $(call side_env,kcsan,kcsan) \
	KSYM_MAKE_VARS="$(patsubst %,KCSAN_SANITIZE_%=y,$(KCSAN_OBJS))"

check-kcsan: deps tree
	$(call side_check,$(KCSAN_ENV),$(KCSAN_FUZZ_SECS),$(KCSAN_STORM_SECS),$(KCSAN_CASE_SECS),$(KCSAN_BOOT_SECS))

# The same suite on arm64 (issue 20): the kernel cross-built with
# aarch64-linux-gnu- (config/ksym-arm64.config merged on top) in
# build/obj-arm64, an initramfs of Debian's arm64 packages
# (scripts/arm64-sysroot.sh, build/arm64-initramfs.cpio.gz) and the tools
# cross-built, booted with qemu-system-aarch64 -M virt -cpu max; KUnit and
# ftracetest as in make check, then the lockdown boot. Logs and summary:
# build/arm64-console.log, build/arm64-test-summary.txt.
ARM64_ENV = KSYM_ARCH=arm64 KSYM_OBJ=$(CURDIR)/$(BUILD)/obj-arm64 \
	KSYM_EXTRA_CONFIG=$(CURDIR)/config/ksym-arm64.config \
	KSYM_BUILD_LOG=$(CURDIR)/$(BUILD)/arm64-kernel-build.log \
	KSYM_CONFIG_MISSING=$(CURDIR)/$(BUILD)/arm64-config-missing.txt \
	KSYM_MODROOT=$(CURDIR)/$(BUILD)/arm64-modroot

# ARM64_TESTS: the cases (KSYM_TESTS), default all (what CI runs); ARM64_CI_TESTS
# (make check-arm64-ci) is a quick subset: the step over and a case of each kind.
ARM64_TESTS ?=
ARM64_CI_TESTS = test.d/ksym/ksym-step-over.tc,test.d/ksym/ksym-local.tc,test.d/ksym/ksym-call-scope.tc,test.d/ksym/ksym-trigger-vmalloc.tc,test.d/ksym/ksym-trace-cmd.tc,test.d/ksym/ksym-trigger-object.tc,test.d/ksym/ksym-trigger-now.tc,test.d/ksym/ksym-arm-at-once.tc,test.d/ksym/ksym-old-new.tc,test.d/ksym/ksym-basic.tc,test.d/ksym/ksym-hitgen-exact.tc,test.d/ksym/ksym-cpulist.tc,test.d/ksym/ksym-percpu.tc,test.d/ksym/ksym-hotplug.tc,test.d/ksym/ksym-field.tc,test.d/ksym/ksym-hit-context.tc,test.d/ksym/ksym-branches.tc,test.d/ksym/ksym-ctl-record.tc,test.d/ksym/ksym-module-unload.tc,test.d/ksym/ksym-memory-checks.tc,test.d/ksym/ksym_syntax_errors.tc,test.d/ksym/ksym-perf.tc

check-arm64-build: deps tree
	bash scripts/install-deps.sh --arm64
	$(ARM64_ENV) bash scripts/build-kernel.sh
	$(ARM64_ENV) bash scripts/make-initramfs.sh

# The whole arm64 list takes 600-700 s of VM on an idle machine and 1660 s
# was seen beside other builds and VMs (2026-11-28): a limit of 2400 s
# rather than run-vm.sh's 1200 (KSYM_VM_TIMEOUT still sets it).
check-arm64: check-arm64-build
	$(ARM64_ENV) $(if $(ARM64_TESTS),KSYM_TESTS=$(ARM64_TESTS)) \
		KSYM_VM_TIMEOUT=$${KSYM_VM_TIMEOUT:-2400} bash scripts/run-vm.sh test
	KSYM_APPEND="kunit.enable=0 $${KSYM_APPEND:-}" KSYM_TESTS=test.d/ksym-lockdown \
		KSYM_LOG=$(BUILD)/arm64-console-lockdown.log \
		KSYM_SUMMARY=$(BUILD)/arm64-test-summary-lockdown.txt \
		$(ARM64_ENV) bash scripts/run-vm.sh test

check-arm64-ci:
	$(MAKE) check-arm64 ARM64_TESTS=$(ARM64_CI_TESTS)

# Cost per hit on arm64 under -icount, next to perf's own watchpoint in the
# same boot (bench/run-bench.sh with KSYM_ARCH=arm64; no bpftrace rows, no
# production kernel): build/bench-arm64/bench.txt.
bench-arm64: check-arm64-build
	KSYM_ARCH=arm64 KSYM_BENCH_KERNELS=test KSYM_BENCH_SMP="$${KSYM_BENCH_SMP:-2 1}" \
		KSYM_BENCH_DIR=$(CURDIR)/$(BUILD)/bench-arm64 \
		KSYM_KERNEL=$(CURDIR)/$(BUILD)/obj-arm64/arch/arm64/boot/Image \
		KSYM_INITRD=$(CURDIR)/$(BUILD)/arm64-initramfs.cpio.gz \
		bash bench/run-bench.sh

vm: build
	bash scripts/run-vm.sh shell

# The tool at work: ksym-ctl record --stack on pid_max and total_forks while a
# workload forks and writes sysctls, then ksym-ctl report -g (tools/ksym-ctl/demo.sh).
run: build
	bash scripts/run-vm.sh run

# Any directory's ftracetest cases (.tc), in the same VM, with the same judge.
selftest: selftest-testdir build
	KSYM_SELFTEST_DIR="$(TESTDIR)" bash scripts/run-vm.sh test

selftest-testdir:
	@case "$(TESTDIR)" in /*) ;; *) echo "make selftest: give TESTDIR=/absolute/dir of .tc files" >&2; exit 2 ;; esac
	@test -d "$(TESTDIR)" || { echo "make selftest: $(TESTDIR): no such directory" >&2; exit 2; }

# The production-like kernel of make bench: config/ksym-prod.config merged on
# top (-O2, no lockdep or debug checks, KUnit off; as a distribution builds),
# in build/obj-prod with its own modules, initramfs and logs (build/prod-*).
# make check never builds or boots it.
PROD_ENV = KSYM_OBJ=$(CURDIR)/$(BUILD)/obj-prod \
	KSYM_EXTRA_CONFIG=$(CURDIR)/config/ksym-prod.config \
	KSYM_BUILD_LOG=$(CURDIR)/$(BUILD)/prod-kernel-build.log \
	KSYM_CONFIG_MISSING=$(CURDIR)/$(BUILD)/prod-config-missing.txt \
	KSYM_MODROOT=$(CURDIR)/$(BUILD)/prod-modroot \
	KSYM_STAGE=$(CURDIR)/$(BUILD)/prod-initramfs-root \
	KSYM_INITRD=$(CURDIR)/$(BUILD)/prod-initramfs.cpio.gz

bench-prod-kernel: deps tree
	$(PROD_ENV) bash scripts/build-kernel.sh
	$(PROD_ENV) bash scripts/make-initramfs.sh

# Cost per watched access in each configuration, next to perf's breakpoint and
# bpftrace's watchpoint probe in the same boot, and its growth with watches,
# filter entries and CPUs (boots with 2, 1 and 4 CPUs), in guest ns; with
# -icount shift=0 a guest ns is one instruction, so the numbers repeat
# exactly. On the test kernel and the production-like one
# (KSYM_BENCH_KERNELS="test prod"). Tables: build/bench.txt; chart:
# build/bench.svg (gnuplot-nox, optional: without it the chart is skipped).
# bench/run-bench.sh.
bench: build
	@if [[ " $${KSYM_BENCH_KERNELS:-test prod} " == *" prod "* ]]; then $(MAKE) bench-prod-kernel; fi
	bash scripts/install-deps.sh --bench || echo "make bench: gnuplot-nox or bpftrace not installed, no chart or no bpftrace rows"
	KSYM_QEMU_EXTRA="$${KSYM_QEMU_EXTRA:--icount shift=0,sleep=off}" \
		bash bench/run-bench.sh

# Where the instructions of one hit go, function by function: ksym counting
# only, ksym into the ring buffer, the floor (a perf breakpoint whose handler
# only counts) and perf stat, one hit each single-stepped by gdb through
# QEMU's gdbstub (build/profile/profile.txt). bench/hit-profile.sh.
bench-profile: build
	bash scripts/install-deps.sh --bench
	bash bench/hit-profile.sh

bench-profile-prod: bench-prod-kernel
	bash scripts/install-deps.sh --bench
	KSYM_VMLINUX=$(CURDIR)/$(BUILD)/obj-prod/vmlinux \
		KSYM_KERNEL=$(CURDIR)/$(BUILD)/obj-prod/arch/x86/boot/bzImage \
		KSYM_INITRD=$(CURDIR)/$(BUILD)/prod-initramfs.cpio.gz \
		KSYM_PROF_DIR=$${KSYM_PROF_DIR:-$(CURDIR)/$(BUILD)/profile-prod} \
		bash bench/hit-profile.sh

# Everything the VM boots, from a fresh clone: packages, tree, kernel, initramfs
# (.NOTPARALLEL: in this order).
build: deps tree kernel initramfs

# The harnesses of tools/fuzz (README there), each run FUZZ_SECS seconds on
# a copy of its corpus; exits non-zero on any crash (build/fuzz/artifacts).
FUZZ_SECS ?= 60
fuzz: deps
	$(MAKE) -s -C tools/fuzz run FUZZ_SECS=$(FUZZ_SECS)

# The series for upstream: build/patches/*.patch (scripts/make-patches.sh), and
# its check (scripts/patches-check.sh): bisectable build, checkpatch --strict.
# KSYM_PATCHES_REV=HEAD takes the project's files from that commit instead of
# the working tree.
patches: deps
	bash scripts/make-patches.sh

patches-check: patches
	bash scripts/patches-check.sh

lint:
	shellcheck scripts/*.sh bench/*.sh .ci/run

# Keeps the unpacked (and patched) kernel source.
clean:
	rm -rf $(BUILD)/obj $(BUILD)/modroot $(BUILD)/initramfs-root $(BUILD)/initramfs.cpio.gz \
		$(BUILD)/console.log $(BUILD)/kernel-build.log $(BUILD)/test-summary.txt \
		$(BUILD)/config-missing.txt \
		$(BUILD)/obj-debug $(BUILD)/dbg-* $(BUILD)/obj-kcsan $(BUILD)/kcsan-* \
		$(BUILD)/obj-prod $(BUILD)/prod-* \
		$(BUILD)/obj-arm64 $(BUILD)/arm64-modroot $(BUILD)/arm64-initramfs-root \
		$(BUILD)/arm64-initramfs.cpio.gz $(BUILD)/arm64-tools $(BUILD)/arm64-console*.log \
		$(BUILD)/arm64-test-summary*.txt $(BUILD)/arm64-kernel-build.log \
		$(BUILD)/arm64-config-missing.txt \
		$(BUILD)/patches $(BUILD)/series/obj $(BUILD)/ksrc/obj $(BUILD)/ksrc/modroot

distclean:
	rm -rf $(BUILD)
