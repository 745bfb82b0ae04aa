#!/usr/bin/env bash
# run-vm.sh - boot the test kernel + initramfs in QEMU (TCG, 2 CPUs).
#
#   scripts/run-vm.sh test    run the tests (guest /init with ksym.mode=test) under a
#                             time limit, save the console to build/console.log (and
#                             stream it), judge it with scripts/parse-console.awk,
#                             print the summary ending in "ksym: N passed, M failed,
#                             K skipped" (also in build/test-summary.txt); exit 0
#                             only when nothing failed.
#   scripts/run-vm.sh bench   run bench/ksym-bench.sh in the guest under the same
#                             limits, print its table (also in build/bench.txt);
#                             exit 0 only if it completed.
#   scripts/run-vm.sh run     make run: the ksym-ctl demo (tools/ksym-ctl/demo.sh)
#                             under the same limits; prints what it showed (also
#                             in build/run.txt); exit 0 only if it completed.
#   scripts/run-vm.sh shell   interactive busybox shell on the serial console
#                             (Ctrl-A X quits QEMU).
# Env: KSYM_VM_TIMEOUT (s, default 1200), KSYM_VM_IDLE_TIMEOUT (s without console
# output before the VM is judged hung, default 600, 0 = off), KSYM_TESTS
# (comma-separated paths under the guest's /ftrace, default
# test.d/ksym,test.d/trigger/inter-event),
# KSYM_FT_VERBOSE (ftracetest verbosity 0-3, default 1), KSYM_SMP (2), KSYM_MEM (1024),
# KSYM_APPEND (extra kernel arguments), KSYM_QEMU_EXTRA (extra QEMU arguments),
# KSYM_ACCEL (QEMU -accel, default tcg,thread=single: with one host thread per
# vCPU, a vCPU sometimes ran code another vCPU had just patched back from int3,
# and ftrace's text patching oopsed "int3" in 2 of 6 runs; single-threaded TCG
# costs ~10 s and did not), KSYM_CONSOLE_IGNORE (ERE of kernel lines not to count as problems),
# KSYM_QUIET=1 (do not stream the console), KSYM_KERNEL / KSYM_INITRD (other images),
# KSYM_LOG / KSYM_SUMMARY (other console log and summary paths, so runs can overlap),
# KSYM_KMEMLEAK=1 (test mode: /init scans for leaks after the tests and prints the
# kmemleak report, whose every leak fails the run; needs CONFIG_DEBUG_KMEMLEAK),
# KSYM_CONFIG_MISSING (the build's list of config settings that did not take).
# KSYM_EXPECTED_SKIPS (test mode: the list of cases that may be skipped, each with
# its reason; default scripts/expected-skips-ARCH.txt; any other skip fails the
# run and is named: scripts/parse-console.awk; empty: every skip fails).
# KSYM_CASE_SECS (test mode: a run bounded by time, make check-debug and
# check-kcsan): the allowance per ftracetest case (s); then the VM limit, unless
# KSYM_VM_TIMEOUT is given, is KSYM_BOOT_SECS (boot and KUnit, default 300) +
# KSYM_BUDGET_SECS (the time budgets the cases are given on the command line,
# e.g. ksym.fuzz_secs + ksym.storm_secs, default 0) + the number of cases in the
# initramfs that KSYM_TESTS selects x KSYM_CASE_SECS + KSYM_END_SECS (the kmemleak
# scan and the shutdown after the tests: default 300 with KSYM_KMEMLEAK=1, else
# 60); and the guest gets ksym.deadline=LIMIT-KSYM_END_SECS: it starts no case
# after that uptime and ends one still running then, so the kmemleak scan runs
# before the limit (scripts/guest-init.sh).
# KSYM_BENCH_OUT (bench mode: where the guest's measurement lines go, default
# build/bench.txt; bench/run-bench.sh boots several times and reports them).
# KSYM_SELFTEST_DIR (test mode: a directory of .tc files, outside the project too;
# it is appended to the initramfs as /ftrace/test.d/user and run instead of
# the default list, unless KSYM_TESTS says otherwise: make selftest TESTDIR=DIR).
# KSYM_ARCH=arm64 (default x86_64): qemu-system-aarch64 -M virt -cpu max (TCG,
# pauth-impdef=on: QEMU's own pointer-authentication hash, far cheaper to
# emulate than the architected QARMA), console on ttyAMA0, PSCI reset ends QEMU
# (-no-reboot); defaults build/obj-arm64/arch/arm64/boot/Image,
# build/arm64-initramfs.cpio.gz, build/arm64-console.log,
# build/arm64-test-summary.txt.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODE=${1:-test}
ARCH=${KSYM_ARCH:-x86_64}
case $ARCH in
x86_64)
	KERNEL=${KSYM_KERNEL:-$ROOT/build/obj/arch/x86/boot/bzImage}
	INITRD=${KSYM_INITRD:-$ROOT/build/initramfs.cpio.gz}
	LOG=${KSYM_LOG:-$ROOT/build/console.log}
	SUMMARY=${KSYM_SUMMARY:-$ROOT/build/test-summary.txt}
	QEMU="qemu-system-x86_64"
	qemu_machine=(-accel "${KSYM_ACCEL:-tcg,thread=single}" -cpu max)
	console=ttyS0,115200
	;;
arm64)
	KERNEL=${KSYM_KERNEL:-$ROOT/build/obj-arm64/arch/arm64/boot/Image}
	INITRD=${KSYM_INITRD:-$ROOT/build/arm64-initramfs.cpio.gz}
	LOG=${KSYM_LOG:-$ROOT/build/arm64-console.log}
	SUMMARY=${KSYM_SUMMARY:-$ROOT/build/arm64-test-summary.txt}
	QEMU="qemu-system-aarch64"
	qemu_machine=(-M virt -accel "${KSYM_ACCEL:-tcg,thread=single}" -cpu "max,pauth-impdef=on")
	console=ttyAMA0
	;;
*) die "KSYM_ARCH=$ARCH: x86_64 or arm64" ;;
esac
SMP=${KSYM_SMP:-2}
MEM=${KSYM_MEM:-1024}
TIMEOUT=${KSYM_VM_TIMEOUT:-1200}
IDLE=${KSYM_VM_IDLE_TIMEOUT:-600}
BENCH_OUT=${KSYM_BENCH_OUT:-$ROOT/build/bench.txt}

[[ -f $KERNEL ]] || die "$KERNEL missing (make kernel)"
[[ -f $INITRD ]] || die "$INITRD missing (make initramfs)"
selftest_initrd='' qpid='' tpid=''
cleanup() {
	if [[ -n $qpid ]]; then kill "$qpid" 2> /dev/null || true; fi
	if [[ -n $tpid ]]; then kill "$tpid" 2> /dev/null || true; fi
	if [[ -n $selftest_initrd ]]; then rm -f "$selftest_initrd" "$selftest_initrd.user"; fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
if [[ $MODE == test && -n ${KSYM_SELFTEST_DIR:-} ]]; then
	# The kernel unpacks concatenated cpio archives one after the other: the
	# user's cases go in a small second archive appended to the initramfs.
	[[ -d $KSYM_SELFTEST_DIR ]] || die "KSYM_SELFTEST_DIR=$KSYM_SELFTEST_DIR: no such directory"
	ntc=$(find "$KSYM_SELFTEST_DIR" -name '*.tc' | wc -l)
	((ntc > 0)) || die "no .tc files in $KSYM_SELFTEST_DIR"
	ustage=$(mktemp -d)
	mkdir -p "$ustage/ftrace/test.d/user"
	cp -a "$KSYM_SELFTEST_DIR/." "$ustage/ftrace/test.d/user/"
	# A file of its own, removed at exit: two selftest runs at once (with
	# different KSYM_LOG) must not boot each other's cases.
	selftest_initrd=$(mktemp --suffix=.cpio.gz "${TMPDIR:-/tmp}/ksym-selftest-initramfs.XXXXXX")
	(cd "$ustage" && find . -print0 | LC_ALL=C sort -z |
		cpio --null --create --format=newc --owner=0:0 --quiet | gzip -1) > "$selftest_initrd.user"
	cat "$INITRD" "$selftest_initrd.user" > "$selftest_initrd"
	rm -rf "$ustage" "$selftest_initrd.user"
	INITRD=$selftest_initrd
	KSYM_TESTS=${KSYM_TESTS:-test.d/user}
	echo "run-vm: $ntc case(s) from $KSYM_SELFTEST_DIR as /ftrace/test.d/user"
fi
command -v "$QEMU" > /dev/null || die "$QEMU missing (make deps$([[ $ARCH == x86_64 ]] || echo "; scripts/install-deps.sh --arm64"))"

# panic=-1: reboot at once on a panic, which ends QEMU (-no-reboot) and the run.
# No oops=panic or panic_on_warn: a WARN or an oops is reported (the host scans the
# console for it) but the remaining tests still run.
append="console=$console panic=-1 printk.time=1 no_hash_pointers ksym.mode=$MODE"
[[ -z ${KSYM_TESTS:-} ]] || append+=" ksym.tests=$KSYM_TESTS"
[[ -z ${KSYM_FT_VERBOSE:-} ]] || append+=" ksym.verbose=$KSYM_FT_VERBOSE"
[[ ${KSYM_KMEMLEAK:-0} != 1 ]] || append+=" ksym.kmemleak=1"
if [[ $MODE == test && -n ${KSYM_CASE_SECS:-} ]]; then
	# The cases the guest will run: the .tc files of the initramfs under the
	# paths KSYM_TESTS names (its first archive: not a KSYM_SELFTEST_DIR's).
	tcs=$(gzip -dc "$INITRD" | cpio -t --quiet 2> /dev/null | sed -n 's|^\./||; s|^ftrace/||p' | grep '\.tc$' || true)
	ncases=0
	IFS=, read -ra tpaths <<< "${KSYM_TESTS:-test.d/ksym,test.d/trigger/inter-event}"
	for t in "${tpaths[@]}"; do
		ncases=$((ncases + $(grep -c -e "^${t%/}\$" -e "^${t%/}/" <<< "$tcs" || true)))
	done
	boot=${KSYM_BOOT_SECS:-300}
	budget=${KSYM_BUDGET_SECS:-0}
	endres=${KSYM_END_SECS:-60}
	[[ ${KSYM_KMEMLEAK:-0} != 1 ]] || endres=${KSYM_END_SECS:-300}
	if [[ -z ${KSYM_VM_TIMEOUT:-} ]]; then
		TIMEOUT=$((boot + budget + ncases * KSYM_CASE_SECS + endres))
		echo "run-vm: limit $TIMEOUT s = boot and KUnit $boot + budgets $budget" \
			"+ $ncases case(s) x $KSYM_CASE_SECS + after the tests $endres"
	fi
	((TIMEOUT > endres)) || die "KSYM_VM_TIMEOUT=$TIMEOUT leaves no time before the last $endres s"
	append+=" ksym.deadline=$((TIMEOUT - endres))"
	echo "run-vm: the guest starts no case after $((TIMEOUT - endres)) s of uptime"
fi
[[ -z ${KSYM_APPEND:-} ]] || append+=" $KSYM_APPEND"

qemu=("$QEMU" "${qemu_machine[@]}" -smp "$SMP" -m "$MEM" -nographic -no-reboot
	-kernel "$KERNEL" -initrd "$INITRD" -append "$append")
if [[ -n ${KSYM_QEMU_EXTRA:-} ]]; then
	read -ra extra <<< "$KSYM_QEMU_EXTRA"
	qemu+=("${extra[@]}")
fi

case $MODE in
shell)
	echo "run-vm: interactive VM; Ctrl-A X quits QEMU, 'exit' in the shell stops the VM"
	exec "${qemu[@]}"
	;;
test) endpat='KSYM-TEST-END rc=' ;;
bench) endpat='KSYM-BENCH-END' ;;
run)
	endpat='KSYM-RUN-END rc='
	# The demo's output is printed at the end, without the boot messages.
	KSYM_QUIET=${KSYM_QUIET:-1}
	echo "run-vm: booting the VM for the ksym-ctl demo (about a minute under TCG)"
	;;
*) die "usage: $0 test|bench|run|shell" ;;
esac

mkdir -p "$(dirname "$LOG")"
: > "$LOG"
echo "run-vm: ${qemu[*]}"
echo "run-vm: console -> ${LOG#"$ROOT"/}, limit ${TIMEOUT} s (idle ${IDLE} s)"
start=$SECONDS
"${qemu[@]}" < /dev/null > "$LOG" 2>&1 &
qpid=$!
if [[ ${KSYM_QUIET:-0} != 1 ]]; then
	tail -n +1 -s 0.5 -f --pid="$qpid" "$LOG" &
	tpid=$!
fi

status=ok
last_size=0
last_change=$SECONDS
end_seen=
init_seen=
near=$((TIMEOUT - TIMEOUT / 10))
while kill -0 "$qpid" 2> /dev/null; do
	sleep 1
	now=$SECONDS
	size=$(stat -c %s "$LOG")
	if ((size != last_size)); then
		last_size=$size
		last_change=$now
		if [[ -z $init_seen ]] && grep -q 'KSYM-INIT: .*init started' "$LOG"; then
			init_seen=$((now - start))
		fi
		if [[ -z $end_seen ]] && grep -q "$endpat" "$LOG"; then end_seen=$now; fi
	fi
	if ((near > 0 && now - start >= near)) && [[ $MODE == test && -z $end_seen ]]; then
		# Near the limit: say where the guest is (the judge says it again).
		where=$(tr -d '\r' < "$LOG" | grep -a -E 'KSYM-FTRACETEST:|KSYM-CASE-(BEGIN|END)|^(not )?ok [0-9]+ ' | tail -n 1 || true)
		echo "run-vm: $((now - start)) s of the ${TIMEOUT} s limit; last seen: ${where:-no case yet}" >&2
		near=0
	fi
	if ((now - start >= TIMEOUT)); then
		status=timeout
	elif ((IDLE > 0 && now - last_change >= IDLE)); then
		status=idle
	elif [[ -n $end_seen ]] && ((now - end_seen >= 60)); then
		status=nostop
	fi
	if [[ $status != ok ]]; then
		kill "$qpid" 2> /dev/null || true
		sleep 2
		kill -9 "$qpid" 2> /dev/null || true
		break
	fi
done
qrc=0
wait "$qpid" || qrc=$?
if [[ -n $tpid ]]; then
	wait "$tpid" 2> /dev/null || true
	tpid=
fi
elapsed=$((SECONDS - start))
echo
echo "run-vm: QEMU ended after ${elapsed} s (exit status $qrc, $status);" \
	"/init reached after ${init_seen:-?} s (host clock, 1 s resolution)"

if [[ $MODE == bench ]]; then
	sed -n '/KSYM-BENCH-BEGIN/,/KSYM-BENCH-END/p' "$LOG" | tr -d '\r' |
		grep -v -e 'KSYM-BENCH-' -e '^\[ *[0-9]*\.[0-9]*\]' > "$BENCH_OUT" || true
	echo "run-vm: benchmark ($status):"
	cat "$BENCH_OUT"
	[[ $status == ok && -n $end_seen ]] && ! grep -q 'KSYM-BENCH-ERROR' "$LOG"
	exit
fi

if [[ $MODE == run ]]; then
	out=$(dirname "$LOG")/run.txt
	[[ -z ${KSYM_LOG:-} ]] || out=${LOG%.log}-run.txt
	sed -n '/KSYM-RUN-BEGIN/,/KSYM-RUN-END/p' "$LOG" | tr -d '\r' |
		grep -v -e 'KSYM-RUN-BEGIN' -e '^\[ *[0-9]*\.[0-9]*\]' > "$out" || true
	cat "$out"
	echo "run-vm: the demo ($status) is also in ${out#"$ROOT"/}; whole console: ${LOG#"$ROOT"/}"
	[[ $status == ok && -n $end_seen ]] && grep -q 'KSYM-RUN-END rc=0' "$LOG" &&
		! grep -q 'KSYM-RUN-ERROR' "$LOG"
	exit
fi

# A skip fails unless the architecture's list of expected skips names its case.
skips=${KSYM_EXPECTED_SKIPS-$ROOT/scripts/expected-skips-$ARCH.txt}
tcdirs=$ROOT/selftests/ftrace:$TREE/tools/testing/selftests/ftrace${KSYM_SELFTEST_DIR:+:$KSYM_SELFTEST_DIR}
awk -v status="$status" -v elapsed="$elapsed" -v smp="$SMP" -v timeout="$TIMEOUT" \
	-v ignore="${KSYM_CONSOLE_IGNORE:-}" -v kmemleak="${KSYM_KMEMLEAK:-0}" \
	-v skips="$skips" -v tcdirs="$tcdirs" \
	-f "$ROOT/scripts/parse-console.awk" "$LOG" > "$SUMMARY.tmp"
read -r _ _ failed _ < <(tail -n 1 "$SUMMARY.tmp")
sed '$d' "$SUMMARY.tmp" > "$SUMMARY"
rm -f "$SUMMARY.tmp"
missing=${KSYM_CONFIG_MISSING:-$ROOT/build/config-missing.txt}
if [[ -s $missing ]]; then
	echo "warning: config settings that did not take: $(cut -d' ' -f1 "$missing" | tr '\n' ' ')"
fi
cat "$SUMMARY"
((failed == 0))
