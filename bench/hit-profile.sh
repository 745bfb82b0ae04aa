#!/usr/bin/env bash
# hit-profile.sh - make bench-profile: where the instructions of one hit go,
# function by function, for ksym and for perf's breakpoint in the same boot.
#
# Boots the test kernel (nokaslr) in QEMU with its gdbstub, runs
# bench/hit-profile.tc in the guest (two hits per configuration: ksym
# counting only, ksym into the ring buffer, ksym with its callchain
# (ksym-stack), the floor breakpoint of
# ksym_hitgen/floor, perf stat's counting breakpoint, perf record's sampling
# one without and with -g), while gdb
# (bench/hit-profile.py) single-steps every debug exception from its entry
# until the CPU is back in the hit generator. bench/hit-profile-report.py then
# prints the instructions per function of each configuration's second hit,
# the functions whose counts differ first (build/profile/profile.txt).
#
# QEMU runs with -icount shift=0,sleep=off, as for make bench: without it
# the guest's TSC is unstable, the tracing clock is "global" instead of
# "local" and perf's clock takes its slow path, so timestamps cost some 60
# more instructions than in the bench (KSYM_QEMU_EXTRA replaces it).
#
# Env: KSYM_PROF_DIR (default build/profile), KSYM_PROF_PORT (gdbstub port,
# default 1234), KSYM_VMLINUX (default build/obj/vmlinux, the image's
# symbols); and those of run-vm.sh (KSYM_KERNEL, KSYM_INITRD, ...).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

DIR=${KSYM_PROF_DIR:-$BUILD/profile}
PORT=${KSYM_PROF_PORT:-1234}
VMLINUX=${KSYM_VMLINUX:-$BUILD/obj/vmlinux}
PHASES=(count ring stack floor perf_stat perf_record perf_record_g)

command -v gdb > /dev/null || die "gdb missing (make deps installs it)"
[[ -f $VMLINUX ]] || die "$VMLINUX missing (make kernel)"
rm -rf "$DIR"
mkdir -p "$DIR/tc"
cp "$ROOT/bench/hit-profile.tc" "$DIR/tc/"

say "booting with the gdbstub on port $PORT (console: ${DIR#"$ROOT"/}/console.log)"
KSYM_SELFTEST_DIR=$DIR/tc KSYM_APPEND="nokaslr kunit.enable=0 ${KSYM_APPEND:-}" \
	KSYM_QEMU_EXTRA="-gdb tcp:127.0.0.1:$PORT ${KSYM_QEMU_EXTRA:--icount shift=0,sleep=off}" \
	KSYM_LOG=$DIR/console.log KSYM_SUMMARY=$DIR/summary.txt KSYM_QUIET=1 \
	bash "$ROOT/scripts/run-vm.sh" test > "$DIR/vm.out" 2>&1 &
vm=$!
KSYM_PROF_DIR=$DIR KSYM_PROF_PORT=$PORT KSYM_PROF_HITS=$((2 * ${#PHASES[@]})) \
	gdb -q -batch -ex "file $VMLINUX" -x "$ROOT/bench/hit-profile.py" > "$DIR/gdb.out" 2>&1 || true
vmrc=0
wait "$vm" || vmrc=$?
grep '^hit-profile:' "$DIR/gdb.out" || true
((vmrc == 0)) || die "the profiling boot failed (see ${DIR#"$ROOT"/}/vm.out)"
python3 "$ROOT/bench/hit-profile-report.py" "$VMLINUX" "$DIR" "${PHASES[@]}" | tee "$DIR/profile.txt"
