#!/usr/bin/env bash
# test-parse-console.sh - host test of scripts/parse-console.awk on small,
# hand-made console logs: a clean run passes; each kind of kernel report the
# debug kernel can print (KASAN, UBSAN, KFENCE, ODEBUG, lockdep, sleeping in
# atomic context, list corruption, kmemleak) or the KCSAN kernel (a data race,
# shown with both accesses' top frames) fails it, and so does a missing
# kmemleak report when one is expected; and each failure kind of the judge
# itself: a failing KUnit case or suite, a failing or unresolved ftracetest
# case, a timeout, a silent VM, no start or end marker, a bad exit status,
# fewer results than planned, wrong CPUs, an error from /init, an Oops; with
# a guest deadline (one ftracetest run per case), a case not run or killed at
# the deadline fails, and a run cut short names the case that was running;
# a skip (ftracetest or KUnit) fails unless the list of expected skips names
# its case, and is then named; a listed one passes, a listed case that passes
# is reported, and a list with a case that does not exist or without a reason
# fails; the tree's own lists (scripts/expected-skips-*.txt) name real cases.
# Run by make check (before the VM), make check-debug and make check-kcsan.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
AWK=$ROOT/scripts/parse-console.awk
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
n=0

# A clean test-mode boot: one KUnit suite, two ftracetest cases.
clean() {
	cat << 'LOG'
[    0.000000] Linux version 6.12.117 (root@vm) #1 SMP
[    1.000000] KTAP version 1
[    1.000001] 1..1
[    1.000002]     KTAP version 1
[    1.000003]     # Subtest: ksym_parser
[    1.000004]     1..1
[    1.000005]     ok 1 ksym_parse_ok
[    1.000006] ok 1 ksym_parser
KSYM-INIT: 6.12.117, init started at 3.01 s of uptime, mode=test
KSYM-CPUS online=0-1 nproc=2
KSYM-TEST-BEGIN
KSYM-FTRACE-RESULTS-BEGIN
1..2
ok 1 ksym tracer - one
ok 2 ksym tracer - two
# Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0
KSYM-FTRACE-RESULTS-END
LOG
}
end() { echo "KSYM-TEST-END rc=0"; }
# The clean log, the lines given, the end marker.
with() {
	clean
	(($# == 0)) || printf '%s\n' "$@"
	end
}

leak() {
	clean
	echo "KSYM-KMEMLEAK-BEGIN"
	cat << 'LOG'
unreferenced object 0xffff888004d2b000 (size 64):
  comm "sh", pid 120, jiffies 4294893100
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 5f2a9c1e):
    kmemleak_alloc+0x4a/0x80
    __kmalloc_noprof+0x1e3/0x400
    ksym_parse_entry+0x52/0x600
LOG
	echo "KSYM-KMEMLEAK-END"
	end
}

# check NAME WANT_FAILED KMEMLEAK [AWK-ARGS...] < log: the summary's failed
# count is WANT_FAILED (or, for "+", at least 1); AWK-ARGS (-v status=timeout,
# ...) override the defaults. If $says is set, the summary must also contain
# that fixed string.
says=
check() {
	local name=$1 want=$2 kml=$3 got
	shift 3
	n=$((n + 1))
	cat > "$tmp/log"
	awk -v status=ok -v elapsed=1 -v smp=2 -v timeout=60 -v ignore= -v kmemleak="$kml" \
		-v skips= -v tcdirs="$tmp/tc" "$@" \
		-f "$AWK" "$tmp/log" > "$tmp/out"
	read -r _ _ got _ < <(tail -n 1 "$tmp/out")
	if [[ -n $says ]] && ! grep -qF -- "$says" "$tmp/out"; then
		printf 'not ok %d %s: the summary does not say "%s"\n' "$n" "$name" "$says"
		sed 's/^/    /' "$tmp/out"
		fails=$((fails + 1))
	elif [[ $want == + && $got -ge 1 ]] || [[ $want == "$got" ]]; then
		printf 'ok %d %s (failed=%s)\n' "$n" "$name" "$got"
	else
		printf 'not ok %d %s: failed=%s, wanted %s\n' "$n" "$name" "$got" "$want"
		sed 's/^/    /' "$tmp/out"
		fails=$((fails + 1))
	fi
}

check "clean run" 0 0 < <(with)
check "clean run, empty kmemleak report" 0 1 < <(with KSYM-KMEMLEAK-BEGIN KSYM-KMEMLEAK-END)
check "kmemleak expected but missing" + 1 < <(with)
check "kmemleak: unreferenced object" + 1 < <(leak)
check "kmemleak: kernel line" + 0 < <(with \
	"[   99.100000] kmemleak: 1 new suspected memory leaks (see /sys/kernel/debug/kmemleak)")
check "KASAN report" + 0 < <(with \
	"[   12.000000] ==================================================================" \
	"[   12.000001] BUG: KASAN: slab-use-after-free in ksym_hit_handler+0x1a/0x200" \
	"[   12.000002] Read of size 8 at addr ffff888004d2b000 by task sh/120")
check "UBSAN report" + 0 < <(with \
	"[   13.000000] UBSAN: array-index-out-of-bounds in kernel/trace/trace_ksym.c:300:9")
check "KFENCE report" + 0 < <(with \
	"[   14.000000] BUG: KFENCE: out-of-bounds read in ksym_parse_entry+0x10/0x600")
check "ODEBUG report" + 0 < <(with \
	"[   15.000000] ODEBUG: free active (active state 0) object: 00000000a1b2c3d4 object type: work_struct hint: ksym_arm_workfn+0x0/0x40")
check "lockdep report" + 0 < <(with \
	"[   16.000000] WARNING: possible circular locking dependency detected")
check "sleeping in atomic context" + 0 < <(with \
	"[   17.000000] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:585")
check "list corruption" + 0 < <(with \
	"[   18.000000] list_add corruption. prev->next should be next (ffffffff82a0c0c0), but was 0000000000000000.")
# A KCSAN report (make check-kcsan): one problem line, with both accesses.
kcsan_report=(
	"[   15.000000] =================================================================="
	"[   15.000001] BUG: KCSAN: data-race in ksym_hit_handler / ksym_stat_show"
	"[   15.000002] "
	"[   15.000003] write to 0xffff88800a1b2c08 of 8 bytes by interrupt on cpu 1:"
	"[   15.000004]  ksym_hit_handler+0x2a1/0x4c0"
	"[   15.000005]  perf_bp_event+0x1b6/0x1e0"
	"[   15.000006] "
	"[   15.000007] read to 0xffff88800a1b2c08 of 8 bytes by task 120 on cpu 0:"
	"[   15.000008]  ksym_stat_show+0x5e/0x120"
	"[   15.000009]  seq_read_iter+0x2a3/0x760"
	"[   15.000010] "
	"[   15.000011] value changed: 0x0000000000000007 -> 0x0000000000000008"
	"[   15.000012] "
	"[   15.000013] Reported by Kernel Concurrency Sanitizer on:"
	"[   15.000014] CPU: 0 UID: 0 PID: 120 Comm: cat Not tainted 6.12.117 #1"
	"[   15.000015] ==================================================================")
check "KCSAN report" 1 0 < <(with "${kcsan_report[@]}")
says="read to 0xffff88800a1b2c08 of 8 bytes by task 120 on cpu 0:
        ksym_stat_show+0x5e/0x120"
check "KCSAN report: its accesses and top frames in the summary" 1 0 < <(with "${kcsan_report[@]}")
says="race at unknown origin, with read to 0xffffffff83a0c0c0 of 4 bytes by task 1 on cpu 0:
        ksym_filter_write+0x12/0x300"
check "KCSAN report: race at unknown origin" 1 0 < <(with \
	"[   16.000001] BUG: KCSAN: data-race in ksym_filter_write+0x12/0x300" \
	"[   16.000002] " \
	"[   16.000003] race at unknown origin, with read to 0xffffffff83a0c0c0 of 4 bytes by task 1 on cpu 0:" \
	"[   16.000004]  ksym_filter_write+0x12/0x300" \
	"[   16.000005] " \
	"[   16.000006] value changed: 0x00000000 -> 0x00000001")
says=
# Interleaved with userspace output, a kernel line still counts.
check "report in the middle of a line" + 0 < <(with \
	"ok 3 ksym tracer - three[   19.000000] BUG: KASAN: use-after-free in x+0x1/0x2")
# And the checker tells a harmless kmemleak line from a report.
check "kmemleak start-up line" 0 0 < <(with \
	"[   20.000000] kmemleak: Kernel memory leak detector initialized (mem pool available: 39000)")

# The judge's own failure kinds. The clean log with one line changed:
# sub_log SED-SCRIPT.
sub_log() { with | sed "$1"; }
check "KUnit case fails" 1 0 < <(sub_log 's/^\(\[ *1\.000005\]\)     ok 1 ksym_parse_ok/\1     not ok 1 ksym_parse_ok/')
check "KUnit suite not ok without a failed case" 1 0 < <(sub_log 's/^\(\[ *1\.000006\]\) ok 1 ksym_parser/\1 not ok 1 ksym_parser/')
check "KUnit: fewer suites than planned" 1 0 < <(sub_log '/1\.000006/d')
check "ftracetest case fails" 1 0 < <(sub_log 's/^ok 2 ksym tracer - two/not ok 2 ksym tracer - two/')
check "ftracetest case unresolved" 1 0 < <(sub_log 's/^ok 2 ksym tracer - two/not ok 2 ksym tracer - two # UNRESOLVED/')
check "ftracetest: fewer cases than planned" 1 0 < <(sub_log '/^ok 2 ksym tracer - two/d')
check "ftracetest XFAIL does not fail" 0 0 < <(sub_log 's/^ok 1 ksym tracer - one/ok 1 ksym tracer - one # XFAIL/')

# Expected skips. The cases' files (their descriptions are what ftracetest
# prints; blanks collapsed as its unquoted echo does) and lists of them.
mkdir -p "$tmp/tc/test.d/ksym" "$tmp/tc2/test.d/other"
printf '#!/bin/sh\n# SPDX-License-Identifier: GPL-2.0\n# description: ksym tracer - one\n' > "$tmp/tc/test.d/ksym/one.tc"
printf '#!/bin/sh\n# description:   ksym tracer -\t two\nexit_unsupported\n' > "$tmp/tc/test.d/ksym/two.tc"
printf '# description: other - three\n' > "$tmp/tc2/test.d/other/three.tc"
printf '# comment\n\ntest.d/ksym/two.tc   needs what this VM lacks\nkunit:ksym_parser.ksym_parse_ok  a KUnit reason\n' > "$tmp/skips"
printf 'test.d/ksym/two.tc needs what this VM lacks\ntest.d/ksym/nope.tc a case that is gone\n' > "$tmp/skips-gone"
printf 'test.d/ksym/two.tc\n' > "$tmp/skips-noreason"
printf 'test.d/other/three.tc from the second directory\n' > "$tmp/skips-dir2"
# (ftracetest prints UNSUPPORTED and UNTESTED as "# SKIP".)
skip2='s/^ok 2 ksym tracer - two/ok 2 ksym tracer - two # SKIP/'
kskip='s/^\(\[ *1\.000005\]\)     ok 1 ksym_parse_ok/\1     ok 1 ksym_parse_ok # SKIP no hardware/'
says="FAIL unexpected skip, ftracetest: ok 2 ksym tracer - two # SKIP [test.d/ksym/two.tc]"
check "an unexpected ftracetest SKIP fails, named by its file" 1 0 < <(sub_log "$skip2")
says="skip ftracetest (expected: needs what this VM lacks): ok 2 ksym tracer - two # SKIP"
check "a listed ftracetest SKIP passes" 0 0 -v skips="$tmp/skips" < <(sub_log "$skip2")
says="ftracetest: 1 passed, 0 failed, 1 skipped"
check "a listed skip counts as skipped" 0 0 -v skips="$tmp/skips" < <(sub_log "$skip2")
says="FAIL unexpected skip, ftracetest: ok 1 ksym tracer - one # SKIP [test.d/ksym/one.tc]"
check "a skip not on the list fails beside a listed one" 1 0 -v skips="$tmp/skips" < <(sub_log "$skip2; s/^ok 1 ksym tracer - one/ok 1 ksym tracer - one # SKIP/")
says="skip ftracetest (expected: needs what this VM lacks)"
check "a listed skip of the instance run passes" 0 0 -v skips="$tmp/skips" < <(sub_log 's/^ok 2 ksym tracer - two/ok 2 (instance) ksym tracer - two # SKIP/')
says="note: test.d/ksym/two.tc passed; it is on the list of expected skips ($tmp/skips)"
check "a listed case that now passes is reported, not failed" 0 0 -v skips="$tmp/skips" < <(with)
says="FAIL unexpected skip, kunit: ksym_parser: ok 1 ksym_parse_ok # SKIP"
check "an unexpected KUnit skip fails" 1 0 < <(sub_log "$kskip")
says="skip kunit (expected: a KUnit reason)"
check "a listed KUnit skip passes" 0 0 -v skips="$tmp/skips" < <(sub_log "$kskip")
says="expected skip of a case not found (or without a description): test.d/ksym/nope.tc"
check "a listed case that does not exist fails" 1 0 -v skips="$tmp/skips-gone" < <(sub_log "$skip2")
says="expected skip without a reason: test.d/ksym/two.tc"
check "a listed case without a reason fails" + 0 -v skips="$tmp/skips-noreason" < <(sub_log "$skip2")
says="cannot read the list of expected skips"
check "a list that cannot be read fails" + 0 -v skips="$tmp/nolist" < <(with)
says="skip ftracetest (expected: from the second directory)"
check "a case from the second directory of tcdirs" 0 0 -v skips="$tmp/skips-dir2" -v "tcdirs=$tmp/tc:$tmp/tc2" < <(sub_log 's/^ok 2 ksym tracer - two/ok 2 other - three # SKIP/')
says=
# The tree's lists: every line names a case of the tree (ours or upstream's).
for list in "$ROOT"/scripts/expected-skips-*.txt; do
	check "${list#"$ROOT"/}: each listed case exists, with a reason" 0 0 -v skips="$list" \
		-v "tcdirs=$ROOT/selftests/ftrace:${KSYM_TREE:-$ROOT/build/linux-source-6.12}/tools/testing/selftests/ftrace" < <(with)
done
check "ftracetest exit status without a failed case" 1 0 < <(sub_log 's/^KSYM-TEST-END rc=0/KSYM-TEST-END rc=1/')
check "no KSYM-TEST-END: the tests did not finish" 1 0 < <(sub_log '/^KSYM-TEST-END/d')
check "no KSYM-TEST-BEGIN: boot failure" + 0 < <(sub_log '/^KSYM-/d')
check "wrong CPUs online" 1 0 < <(sub_log 's/^KSYM-CPUS online=0-1 nproc=2/KSYM-CPUS online=0 nproc=1/')
check "error reported by /init" 1 0 < <(with "KSYM-TEST-ERROR: no such test or directory: /ftrace/test.d/nope")
check "VM timeout" 1 0 -v status=timeout < <(with)
check "VM silent too long" 1 0 -v status=idle < <(with)
check "Oops" + 0 < <(with \
	"[   21.000000] Oops: general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP" \
	"[   21.000001] Call Trace:")
check "WARNING" 1 0 < <(with "[   22.000000] WARNING: CPU: 1 PID: 120 at kernel/trace/trace_ksym.c:300 ksym_arm+0x10/0x20")
check "kernel line exempt by -v ignore" 0 0 -v 'ignore=WARNING: CPU: 1 PID: 120' < <(with \
	"[   22.000000] WARNING: CPU: 1 PID: 120 at kernel/trace/trace_ksym.c:300 ksym_arm+0x10/0x20")

# A guest deadline (ksym.deadline): one ftracetest run per case, results
# renumbered; a case not run or killed at the deadline fails.
deadline_log() {
	clean | sed '/^KSYM-FTRACE-RESULTS-BEGIN/,$d'
	echo "KSYM-CASE-BEGIN 1/3 test.d/ksym/one.tc at 10 s (deadline 100 s, 90 s left)"
	echo "ok 1 ksym tracer - one"
	echo "KSYM-CASE-END 1/3 test.d/ksym/one.tc at 20 s, ftracetest status 0"
	echo "KSYM-CASE-BEGIN 2/3 test.d/ksym/two.tc at 20 s (deadline 100 s, 80 s left)"
	echo "KSYM-CASE-DEADLINE 2/3 test.d/ksym/two.tc: still running at 100 s, killed"
	echo "KSYM-CASE-END 2/3 test.d/ksym/two.tc at 105 s, ftracetest status killed"
	echo "KSYM-CASE-NOTRUN 3/3 test.d/ksym/three.tc: the deadline (100 s) has passed (105 s)"
	echo "KSYM-FTRACE-RESULTS-BEGIN"
	echo "1..3"
	echo "ok 1 ksym tracer - one"
	echo "not ok 2 test.d/ksym/two.tc # KILLED: still running at the guest deadline (100 s)"
	echo "not ok 3 test.d/ksym/three.tc # NOT RUN: the guest deadline (100 s) had passed"
	echo "# of cases: 3, not run (deadline): 1, killed at the deadline: 1"
	echo "KSYM-FTRACE-RESULTS-END"
	echo "KSYM-KMEMLEAK-BEGIN"
	echo "KSYM-KMEMLEAK-END"
	echo "KSYM-TEST-END rc=1"
}
says="deadline: NOTRUN 3/3 test.d/ksym/three.tc"
check "deadline: a case killed, one not run; kmemleak still scanned" 2 1 < <(deadline_log)
says="the run ended while this case ran: 2/3 test.d/ksym/two.tc"
check "VM timeout names the case that was running" + 0 -v status=timeout < <(deadline_log | sed '/^KSYM-CASE-DEADLINE/,$d')
says="the run ended after this ftracetest result (the next case was running): ok 1 ksym tracer - one"
check "VM timeout, one ftracetest run: the last result before it" + 0 -v status=timeout < <(clean | sed '/^KSYM-FTRACE-RESULTS-BEGIN/,$d'; echo "ok 1 ksym tracer - one")
says="the run ended in ftracetest's first case (no result yet)"
check "VM timeout in the first case" + 0 -v status=timeout < <(clean | sed '/^KSYM-FTRACE-RESULTS-BEGIN/,$d'; echo "KSYM-FTRACETEST: dash ./ftracetest -K -v (2 case(s))")
says=

echo "test-parse-console: $n cases, $fails failed"
((fails == 0))
