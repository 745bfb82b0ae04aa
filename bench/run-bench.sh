#!/usr/bin/env bash
# run-bench.sh - make bench: what a watched access costs, ksym next to perf
# and bpftrace, on the test kernel and on a production-like kernel.
#
# For each kernel in KSYM_BENCH_KERNELS (default "test prod"): boots the VM
# (scripts/run-vm.sh bench, QEMU -icount shift=0,sleep=off: one guest ns per
# instruction) once per CPU count in KSYM_BENCH_SMP (default "2 1 4"): the
# 2-CPU boot measures every configuration against perf's breakpoint (perf
# stat, perf record, perf record -g) and bpftrace's watchpoint probe (last,
# see ksym-bench.sh), the
# growth with the number of watches and filter writes of 1, 2 and 4
# entries; every boot measures the per-hit cost and the cost of filter
# writes on its CPUs. bench/bench-report.sh then prints each kernel's tables
# and both side by side (build/bench.txt) and draws build/bench.svg with
# gnuplot, if installed (one panel per kernel).
#
# test is the test kernel of make check (build/obj: lockdep, KUnit);
# prod is config/ksym-prod.config's (build/obj-prod, built by make bench:
# -O2, no lockdep or debug checks, as a distribution builds). Each boots its
# initramfs with a second archive appended that holds Debian's bpftrace
# (bench/bpftrace-initramfs.sh, build/bench-bpftrace.cpio.gz) and a third
# with this tree's bench/ksym-bench.sh; the boots get KSYM_MEM=2048 for
# bpftrace. Without bpftrace on the host, the bpftrace rows say
# so. One boot takes about a minute and a half under TCG.
#
# Env: KSYM_BENCH_KERNELS, KSYM_BENCH_SMP (CPU counts, one boot each),
# KSYM_BENCH_PARTS (what the first boot measures: ksym-bench.sh's PARTS),
# KSYM_BENCH_N (writes per measurement, default 20000), KSYM_BENCH_DIR (where
# the raw outputs, logs, bench.txt and bench.svg go, default build/);
# KSYM_KERNEL / KSYM_INITRD (the test kernel's images, run-vm.sh's defaults),
# KSYM_PROD_KERNEL / KSYM_PROD_INITRD (the production kernel's, default
# build/obj-prod/arch/x86/boot/bzImage, build/prod-initramfs.cpio.gz);
# KSYM_ARCH=arm64 (make bench-arm64: the test kernel of make check-arm64, no
# bpftrace rows); and
# those of run-vm.sh (KSYM_QEMU_EXTRA, KSYM_MEM, ...). KSYM_QUIET=0 streams
# the consoles.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

DIR=${KSYM_BENCH_DIR:-$BUILD}
SMPS=${KSYM_BENCH_SMP:-2 1 4}
KERNELS=${KSYM_BENCH_KERNELS:-test prod}
export KSYM_QEMU_EXTRA=${KSYM_QEMU_EXTRA:--icount shift=0,sleep=off}
export KSYM_QUIET=${KSYM_QUIET:-1}
export KSYM_MEM=${KSYM_MEM:-2048}
# A boot prints a line at least every half minute or so of guest time: a
# silent one is stuck (see ksym-bench.sh on bpftrace).
export KSYM_VM_IDLE_TIMEOUT=${KSYM_VM_IDLE_TIMEOUT:-240}
[[ $KSYM_QEMU_EXTRA == *icount* ]] || warn "no -icount in KSYM_QEMU_EXTRA: the numbers are host-speed guest ns, not instructions"
mkdir -p "$DIR"

bpf=$DIR/bench-bpftrace.cpio.gz
if [[ ${KSYM_ARCH:-x86_64} != x86_64 ]]; then
	# The archive is the host's (x86-64) bpftrace; bpftrace's kernel
	# watchpoints hang on arm64 anyway (no step over for its handler).
	say "KSYM_ARCH=$KSYM_ARCH: no bpftrace rows"
	bpf=
elif ! bash "$ROOT/bench/bpftrace-initramfs.sh" "$bpf"; then
	warn "no bpftrace archive: the bpftrace rows will say so"
	bpf=
fi

# This tree's bench/ksym-bench.sh, over the one the initramfs was built with.
script=$DIR/bench-script.cpio.gz
stage=$(mktemp -d)
install -D -m 0755 "$ROOT/bench/ksym-bench.sh" "$stage/bench/ksym-bench.sh"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet | gzip -1) > "$script"
rm -rf "$stage"

report_args=()
failed=
for kernel in $KERNELS; do
	case $kernel in
	test)
		kimg=${KSYM_KERNEL:-$BUILD/obj/arch/x86/boot/bzImage}
		initrd=${KSYM_INITRD:-$BUILD/initramfs.cpio.gz}
		prefix=bench
		title="test kernel (config/ksym.config: lockdep, KUnit, -Os)"
		;;
	prod)
		kimg=${KSYM_PROD_KERNEL:-$BUILD/obj-prod/arch/x86/boot/bzImage}
		initrd=${KSYM_PROD_INITRD:-$BUILD/prod-initramfs.cpio.gz}
		prefix=bench-prod
		title="production kernel (+ config/ksym-prod.config: -O2, no debug checks)"
		;;
	*) die "KSYM_BENCH_KERNELS: unknown kernel $kernel (test, prod)" ;;
	esac
	[[ -f $kimg ]] || die "$kimg missing (make bench builds it)"
	[[ -f $initrd ]] || die "$initrd missing (make bench builds it)"
	# The initramfs with bpftrace and this tree's ksym-bench.sh appended
	# (the kernel unpacks the archives in turn, later files over earlier),
	# and the kernel, copied once: all boots of a kernel run the same pair
	# even if the build is redone meanwhile.
	binitrd=$DIR/$prefix-initrd.cpio.gz
	cat "$initrd" ${bpf:+"$bpf"} "$script" > "$binitrd"
	cp "$kimg" "$DIR/$prefix-bzImage"
	kimg=$DIR/$prefix-bzImage
	report_args+=(--kernel "$title")
	first=
	for smp in $SMPS; do
		# The table against perf and bpftrace, the growth with watches and
		# the filter writes at scale once, in the first boot with 2 CPUs (or
		# the first boot at all).
		parts=cpus,triggers
		if [[ -z $first && ($smp == 2 || ! " $SMPS " =~ " 2 ") ]]; then
			parts=${KSYM_BENCH_PARTS:-main,watches,filters,cpus,triggers,bpftrace}
			first=$smp
		fi
		say "$kernel kernel, boot with $smp CPU(s): $parts"
		raw=$DIR/$prefix-raw-smp$smp.txt
		if ! KSYM_KERNEL=$kimg KSYM_INITRD=$binitrd KSYM_SMP=$smp \
			KSYM_LOG=$DIR/$prefix-console-smp$smp.log KSYM_BENCH_OUT=$raw \
			KSYM_APPEND="ksym.bench=$parts ${KSYM_BENCH_N:+ksym.bench_n=$KSYM_BENCH_N} ${KSYM_APPEND:-}" \
			bash "$ROOT/scripts/run-vm.sh" bench > "$DIR/$prefix-run-smp$smp.out" 2>&1; then
			warn "the $kernel kernel's boot with $smp CPU(s) did not complete (see $DIR/$prefix-run-smp$smp.out)"
			failed=1
		fi
		report_args+=("$raw")
	done
	rm -f "$binitrd" "$kimg"
done
rm -f "$script"

KSYM_BENCH_SVG=$DIR/bench.svg bash "$ROOT/bench/bench-report.sh" "${report_args[@]}" | tee "$DIR/bench.txt"
say "tables in ${DIR#"$ROOT"/}/bench.txt; raw lines in ${DIR#"$ROOT"/}/bench{,-prod}-raw-smp*.txt"

# The figures README.md, ksym.rst and bench/README.md quote: written by the
# bench itself into the tree (bench/results.md, bench/results-arm64.md), with
# the commit they measured (marked "+ changes" when the tree had any), the
# date, the kernels and the boots. A run that did not complete writes nothing.
if [[ -z $failed && -z ${KSYM_BENCH_NO_RESULTS:-} ]]; then
	target=bench results=$ROOT/bench/results.md
	if [[ ${KSYM_ARCH:-x86_64} != x86_64 ]]; then
		target=bench-$KSYM_ARCH results=$ROOT/bench/results-$KSYM_ARCH.md
	fi
	rev=$(git -C "$ROOT" rev-parse --short=12 HEAD 2> /dev/null || echo unknown)
	git -C "$ROOT" diff --quiet HEAD -- kernel include patches config bench 2> /dev/null || rev="$rev + changes"
	{
		printf '# make %s: results\n\n' "$target"
		printf 'Written by bench/run-bench.sh; do not edit. Quoted by README.md,\n'
		printf 'Documentation/trace/ksym.rst and bench/README.md.\n\n'
		printf -- '- commit: %s\n- date: %s\n- kernels: %s; boots with %s CPU(s)\n' \
			"$rev" "$(date -u '+%Y-%m-%d %H:%M UTC')" "$KERNELS" "$SMPS"
		printf -- '- QEMU: %s, %s MiB\n\n```\n' "$KSYM_QEMU_EXTRA" "$KSYM_MEM"
		cat "$DIR/bench.txt"
		printf '```\n'
	} > "$results"
	say "results written to ${results#"$ROOT"/}"
fi
[[ -z $failed ]]
