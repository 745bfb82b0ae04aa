#!/usr/bin/env bash
# run-bench.sh - make bench: what a watched access costs, ksym next to perf.
#
# Boots the VM (scripts/run-vm.sh bench, QEMU -icount shift=0,sleep=off: one
# guest ns per instruction) once per CPU count in KSYM_BENCH_SMP (default
# "2 1 4"): the 2-CPU boot measures every configuration against perf's
# breakpoint (perf stat, perf record, perf record -g) and the growth with the
# number of watches; every boot measures the per-hit cost and the cost of
# filter writes on its CPUs. bench/bench-report.sh then prints the tables
# (build/bench.txt) and draws build/bench.svg with gnuplot, if installed.
# One boot takes about a minute and a half under TCG.
#
# Env: KSYM_BENCH_SMP (CPU counts, one boot each), KSYM_BENCH_N (writes per
# measurement, default 20000), KSYM_BENCH_DIR (where the raw outputs, logs,
# bench.txt and bench.svg go, default build/); and those of run-vm.sh
# (KSYM_KERNEL, KSYM_INITRD, KSYM_QEMU_EXTRA, ...). KSYM_QUIET=0 streams the
# consoles.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

DIR=${KSYM_BENCH_DIR:-$BUILD}
SMPS=${KSYM_BENCH_SMP:-2 1 4}
export KSYM_QEMU_EXTRA=${KSYM_QEMU_EXTRA:--icount shift=0,sleep=off}
export KSYM_QUIET=${KSYM_QUIET:-1}
[[ $KSYM_QEMU_EXTRA == *icount* ]] || warn "no -icount in KSYM_QEMU_EXTRA: the numbers are host-speed guest ns, not instructions"
mkdir -p "$DIR"

raws=()
failed=
first=
for smp in $SMPS; do
	# The table against perf and the growth with watches once, in the
	# first boot with 2 CPUs (or the first boot at all).
	parts=cpus
	if [[ -z $first && ($smp == 2 || ! " $SMPS " =~ " 2 ") ]]; then
		parts=main,watches,cpus
		first=$smp
	fi
	say "boot with $smp CPU(s): $parts"
	raw=$DIR/bench-raw-smp$smp.txt
	if ! KSYM_SMP=$smp KSYM_LOG=$DIR/bench-console-smp$smp.log KSYM_BENCH_OUT=$raw \
		KSYM_APPEND="ksym.bench=$parts ${KSYM_BENCH_N:+ksym.bench_n=$KSYM_BENCH_N} ${KSYM_APPEND:-}" \
		bash "$ROOT/scripts/run-vm.sh" bench > "$DIR/bench-run-smp$smp.out" 2>&1; then
		warn "the boot with $smp CPU(s) did not complete (see $DIR/bench-run-smp$smp.out)"
		failed=1
	fi
	raws+=("$raw")
done

KSYM_BENCH_SVG=$DIR/bench.svg bash "$ROOT/bench/bench-report.sh" "${raws[@]}" | tee "$DIR/bench.txt"
say "tables in ${DIR#"$ROOT"/}/bench.txt; raw lines in ${DIR#"$ROOT"/}/bench-raw-smp*.txt"
[[ -z $failed ]]
