# parse-console.awk - judge a test VM console log (build/console.log); used by run-vm.sh.
#
# Reads the serial console log of a "ksym.mode=test" boot and prints a summary whose
# last line is "ksym: N passed, M failed, K skipped". Counts:
#   - KUnit test cases (depth-1 KTAP result lines printed by the kernel at boot):
#     ok = passed, ok # SKIP = skipped, not ok = failed; a suite reported "not ok"
#     without a failed case counts one failure.
#   - ftracetest cases (its -K KTAP lines, re-printed by guest-init.sh between
#     KSYM-FTRACE-RESULTS-BEGIN/END): ok = passed, ok # XFAIL = passed (failed as the
#     test expects), ok # SKIP (UNSUPPORTED, UNTESTED) = skipped, not ok = failed,
#     including UNRESOLVED ("# UNRESOLVED": the test could not decide, which for our
#     own tests is a bug) and UNDEFINED ("# error").
#   - a skip (KUnit or ftracetest) is a failure unless the list of expected skips
#     (-v skips=FILE: scripts/expected-skips-ARCH.txt) names its case, with a
#     reason: "test.d/DIR/CASE.tc REASON" (the path as in KSYM_TESTS; its
#     "# description:" line, read from the directories of -v tcdirs=DIR:DIR, is
#     what ftracetest prints) or "kunit:SUITE.CASE REASON". The summary names an
#     unexpected skip's file, and reports a listed case that now passes (not a
#     failure). A listed case that does not exist, or has no reason, fails.
#   - each failed harness check counts one more failure: VM timeout or silence, no
#     KSYM-TEST-END marker, non-zero ftracetest status without a failed case, fewer
#     results than a KTAP plan announced, wrong online CPU list, test errors
#     reported by /init, and kernel problems on the console (panic, Oops, BUG:,
#     WARNING:, lockdep, RCU stalls, KASAN, UBSAN, KFENCE, ODEBUG, list corruption,
#     kmemleak ... on timestamped kernel lines; lines matching the ERE in
#     -v ignore="..." are exempt), and each "unreferenced object" in the kmemleak
#     report /init prints between KSYM-KMEMLEAK-BEGIN/END (ksym.kmemleak=1).
#     A KCSAN report ("BUG: KCSAN: data-race in A / B") is one problem line; the
#     summary adds its two accesses and their top frames.
#   - a run that did not finish (timeout, silence, no end marker) names the case
#     that was running: the last "KSYM-CASE-BEGIN" without its "KSYM-CASE-END"
#     (/init with ksym.deadline), else the last ftracetest result seen before.
# Variables (-v): status (ok|timeout|idle), elapsed (s), smp (expected CPU count),
# ignore (ERE), timeout (s), kmemleak (1: the kmemleak report must be there),
# skips (the expected-skips file; none: every skip fails), tcdirs (see above).
# Prints "RESULT <passed> <failed> <skipped>" on the very last line for the caller.

function note(s) { notes[++nnotes] = s }
function harness_fail(s) { hfail++; note("FAIL harness: " s) }
# The name ftracetest prints for a case file: its "# description:" text, with the
# runs of blanks an unquoted echo collapses. "" if no directory of tcdirs has it.
function tcdesc(path,   n, i, dirs, f, line, d, r) {
	n = split(tcdirs, dirs, ":")
	for (i = 1; i <= n; i++) {
		if (dirs[i] == "") continue
		f = dirs[i] "/" path; d = ""
		while ((r = (getline line < f)) > 0) {
			if (line ~ /^#[ \t]*description:/) {
				d = line; sub(/^[^:]*:/, "", d)
				gsub(/[ \t]+/, " ", d); sub(/^ /, "", d); sub(/ $/, "", d)
				break
			}
		}
		close(f)
		if (r >= 0 && d != "") return d
	}
	return ""
}
# A result line's case name: "ok 3 NAME # SKIP why" -> NAME ("(instance) " dropped).
function resname(s) {
	sub(/^(not )?ok [0-9]+ /, "", s); sub(/ # [A-Za-z]+.*$/, "", s); sub(/^\(instance\) /, "", s)
	return s
}
# The case file whose description is d, for the summary ("" if none is found).
function descfile(d,   n, i, dirs, cmd, f) {
	if (!descmap) {
		descmap = 1
		n = split(tcdirs, dirs, ":")
		for (i = 1; i <= n; i++) {
			if (dirs[i] == "") continue
			cmd = "cd '" dirs[i] "' 2>/dev/null && find . -name '*.tc' | sort"
			while ((cmd | getline f) > 0) {
				sub(/^\.\//, "", f)
				if (!((tcdesc(f)) in byname)) byname[tcdesc(f)] = f
			}
			close(cmd)
		}
	}
	return (d in byname) ? byname[d] : ""
}
# A skip: expected (on the list) or a failure.
function skipped(key, what, shown,   f) {
	if (key in expkey) {
		expseen[expkey[key]] = 1
		note("skip " what " (expected: " expwhy[expkey[key]] "): " shown)
		return 1
	}
	f = ""
	if (what == "ftracetest") f = descfile(substr(key, 4))
	note("FAIL unexpected skip, " what ": " shown (f == "" ? "" : " [" f "]") \
		" (not in " (skips == "" ? "any list of expected skips" : skips) ")")
	return 0
}
function passed(key) {
	if (key in expkey)
		note("note: " expname[expkey[key]] " passed; it is on the list of expected skips (" skips ")")
}
function directive(s) {
	# " # SKIP reason" / " # XFAIL" / " # UNRESOLVED" / " # error" at the end of a result
	if (match(s, / # [A-Za-z]+/)) {
		return toupper(substr(s, RSTART + 3, RLENGTH - 3))
	}
	return ""
}

BEGIN {
	ts = "\\[ *[0-9]+\\.[0-9]+\\] "
	bad = "Kernel panic|Oops|BUG:|kernel BUG|WARNING:|general protection|Call Trace:|" \
		"possible circular locking|possible recursive locking|inconsistent lock state|" \
		"INFO: |UBSAN:|KASAN:|KCSAN:|KFENCE:|segfault at|soft lockup|hard LOCKUP|" \
		"rcu_preempt detected stalls|rcu_sched detected stalls|hung_task|" \
		"Attempted to kill init|end Kernel panic|" \
		"ODEBUG:|list_add corruption|list_del corruption|suspected memory leak|" \
		"kmemleak: Cannot|Kernel memory leak detector disabled|" \
		"stack-protector:|stack guard page|double fault|BUG kmalloc-|Slab corruption"
	kplan = 0; kres = 0; kpass = 0; kfail = 0; kskip = 0; suitefail = 0
	fplan = -1; fres = 0; fpass = 0; ffail = 0; fskip = 0
	infr = 0; begin = 0; endrc = ""; cpus = ""; initat = ""; nbad = 0; nnotes = 0; hfail = 0
	nofttest = 0
	inkml = 0; kmlbegin = 0; kmlend = 0; nleak = 0
	curcase = ""; lastres = ""; kcsan = 0; kcsanctx = 0
	kuskip = 0; fuskip = 0; nexp = 0
	if (skips != "") {
		while ((r = (getline line < skips)) > 0) {
			sub(/\r$/, "", line)
			if (line ~ /^[ \t]*(#|$)/) continue
			name = line; sub(/^[ \t]+/, "", name); sub(/[ \t].*$/, "", name)
			why = line; sub(/^[ \t]*[^ \t]+[ \t]*/, "", why)
			if (why == "") { harness_fail("expected skip without a reason: " name " (" skips ")"); continue }
			nexp++; expname[nexp] = name; expwhy[nexp] = why
			if (name ~ /^kunit:/) { expkey[name] = nexp; continue }
			d = tcdesc(name)
			if (d == "") { harness_fail("expected skip of a case not found (or without a description): " name " (" skips ")"); continue }
			expkey["ft:" d] = nexp
		}
		if (r < 0) harness_fail("cannot read the list of expected skips " skips)
		close(skips)
	}
}

{ sub(/\r+$/, ""); tailbuf[NR % 25] = $0 }

# --- markers from /init (userspace lines, not timestamped) ---------------------
/KSYM-INIT: .*init started at / {
	s = $0; sub(/.*init started at /, "", s); sub(/ .*/, "", s); initat = s
}
/KSYM-CPUS online=/ {
	s = $0; sub(/.*KSYM-CPUS online=/, "", s); sub(/ .*/, "", s); cpus = s
}
/KSYM-TEST-BEGIN/ { begin = 1 }
/KSYM-TEST-END rc=/ {
	s = $0; sub(/.*KSYM-TEST-END rc=/, "", s); sub(/[^0-9].*/, "", s); endrc = s
}
/KSYM-TEST-ERROR/ { s = $0; sub(/.*KSYM-TEST-ERROR: */, "", s); harness_fail(s) }
/KSYM-FTRACETEST: ftracetest found no test/ { nofttest = 1 }
/KSYM-FTRACETEST: / { ftstarted = 1 }
# /init with ksym.deadline: one ftracetest run per case.
/KSYM-CASE-BEGIN / { s = $0; sub(/.*KSYM-CASE-BEGIN /, "", s); curcase = s }
/KSYM-CASE-END / { curcase = "" }
/KSYM-CASE-(NOTRUN|DEADLINE) / { s = $0; sub(/.*KSYM-CASE-/, "", s); note("deadline: " s) }
/KSYM-KMEMLEAK-BEGIN/ { inkml = 1; kmlbegin = 1; next }
/KSYM-KMEMLEAK-END/ { inkml = 0; kmlend = 1; next }
inkml && /unreferenced object 0x/ && $0 !~ ts {
	nleak++
	s = $0; sub(/^.*unreferenced object/, "unreferenced object", s)
	if (nleak <= 10) leakl[nleak] = s
	next
}
inkml && nleak > 0 && nleak <= 10 && /^ / && $0 !~ ts {
	# the first lines of each leak's record, for the summary
	if (++leakctx[nleak] <= 8) leakl[nleak] = leakl[nleak] "\n      " $0
	next
}
/KSYM-FTRACE-RESULTS-BEGIN/ { infr = 1; next }
/KSYM-FTRACE-RESULTS-END/ { infr = 0; next }

# --- kernel lines (timestamped; may start in the middle of a userspace line) ---
$0 ~ ts {
	msg = $0
	sub(".*" ts, "", msg)
	if (msg ~ bad && (ignore == "" || msg !~ ignore)) {
		nbad++
		if (nbad <= 40) badl[nbad] = msg
		# KCSAN: the two accesses and the first frame of each follow.
		if (msg ~ /BUG: KCSAN:/) { kcsan++; kcsanctx = (nbad <= 40) ? nbad : 0 }
		else kcsanctx = 0
	} else if (kcsanctx) {
		if (msg ~ /^(read|write|race at unknown origin)/ && msg ~ / (by|on) /) {
			kcsanacc = msg; kcsanwant = 1
		} else if (kcsanwant && msg ~ /^ [^ ]/) {
			badl[kcsanctx] = badl[kcsanctx] "\n      " kcsanacc "\n        " substr(msg, 2)
			kcsanwant = 0
		} else if (msg ~ /^value changed:/) {
			badl[kcsanctx] = badl[kcsanctx] "\n      " msg
		} else if (msg ~ /^Reported by Kernel Concurrency Sanitizer|^=====/) {
			kcsanctx = 0
		}
	}
	# KUnit KTAP, before /init runs (later KTAP would come from modules; same format).
	ind = match(msg, /[^ ]/) - 1
	body = substr(msg, ind + 1)
	if (body ~ /^1\.\.[0-9]+$/ && ind == 0) {
		kplan += substr(body, 4) + 0
	} else if (body ~ /^(not )?ok [0-9]+/) {
		d = directive(body)
		if (ind == 4) {
			if (body ~ /^not ok/) {
				kfail++; suitefail++; note("FAIL kunit: " suite body)
			} else if (d == "SKIP") {
				key = "kunit:" suitename "." resname(body)
				if (skipped(key, "kunit", suite body)) kskip++
				else kuskip++
			} else {
				kpass++
				passed("kunit:" suitename "." resname(body))
			}
		} else if (ind == 0) {
			kres++
			if (body ~ /^not ok/ && suitefail == 0) {
				kfail++; note("FAIL kunit suite: " body)
			}
			suitefail = 0; suite = ""; suitename = ""
		}
	} else if (body ~ /^# Subtest: / && ind == 4) {
		suitename = substr(body, 12); suite = suitename ": "
	} else if (body ~ /^# .*(EXPECTATION|ASSERTION) FAILED/) {
		note("  kunit " suite substr(body, 3))
	}
	next
}

# --- ftracetest results, re-printed together by /init --------------------------
infr && /^1\.\.[0-9]+$/ { fplan = substr($0, 4) + 0; next }
infr && /^(not )?ok [0-9]+/ {
	fres++
	d = directive($0)
	if ($0 ~ /^not ok/) {
		ffail++; note("FAIL ftracetest: " $0)
	} else if (d == "SKIP") {
		if (skipped("ft:" resname($0), "ftracetest", $0)) fskip++
		else fuskip++
	} else {
		fpass++
		passed("ft:" resname($0))
	}
	next
}
infr && /^# (Totals|of )/ { ftsummary[++nfts] = $0; next }
# ftracetest's results as it prints them, case by case.
/^(not )?ok [0-9]+ / { lastres = $0 }

END {
	if (status == "timeout") harness_fail("the VM did not finish within " timeout " s (hang?)")
	if (status == "idle") harness_fail("the console was silent for too long (hang?); VM killed")
	if (status == "nostop") note("note: the VM did not stop by itself after KSYM-TEST-END; killed")
	if (!begin) harness_fail("/init never started the tests (no KSYM-TEST-BEGIN): boot failure?")
	else if (endrc == "") harness_fail("no KSYM-TEST-END marker: the tests did not finish")
	else if (endrc != "0" && ffail == 0 && hfail == 0) harness_fail("ftracetest exited with status " endrc)
	want = "0"; if (smp > 1) want = "0-" (smp - 1)
	if (begin && cpus != want) harness_fail("CPUs online: '" cpus "', expected " want)
	if (kres < kplan) harness_fail("KUnit announced " kplan " suite(s) but reported " kres)
	if (fplan >= 0 && fres < fplan) harness_fail("ftracetest announced " fplan " case(s) but reported " fres)
	if (nbad > 0) harness_fail(nbad " kernel problem line(s) on the console")
	if (kmemleak == 1 && !kmlend) harness_fail("no kmemleak report (KSYM-KMEMLEAK-END missing)")
	if (nleak > 0) harness_fail("kmemleak: " nleak " unreferenced object(s)")
	if (status != "ok" || endrc == "") {
		if (curcase != "")
			note("the run ended while this case ran: " curcase)
		else if (begin && lastres != "")
			note("the run ended after this ftracetest result (the next case was running): " lastres)
		else if (ftstarted)
			note("the run ended in ftracetest's first case (no result yet)")
	}
	if (kcsan > 0) note("KCSAN: " kcsan " data-race report(s) (each one problem line above)")

	print "==== ksym test summary ===="
	printf "boot: /init at %s s of guest uptime, CPUs online %s, VM ran %s s\n", \
		(initat == "" ? "?" : initat), (cpus == "" ? "?" : cpus), elapsed
	printf "KUnit: %d passed, %d failed, %d skipped (%d suite(s))%s\n", kpass, kfail + kuskip, kskip, kres, \
		(kuskip ? " (" kuskip " of the failed: unexpected skips)" : "")
	if (fplan >= 0 || fres > 0)
		printf "ftracetest: %d passed, %d failed, %d skipped (expected)%s\n", fpass, ffail + fuskip, fskip, \
			(fuskip ? " (" fuskip " of the failed: unexpected skips)" : "")
	else if (nofttest)
		print "ftracetest: no test cases (0 run)"
	else
		print "ftracetest: no results"
	for (i = 1; i <= nfts; i++) print "  " ftsummary[i]
	if (nbad > 0) {
		print "console: kernel problem lines:"
		for (i = 1; i <= nbad && i <= 40; i++) print "  " badl[i]
		if (nbad > 40) print "  ... (" nbad - 40 " more)"
	} else {
		print "console: no kernel warnings, oopses, panics or lockdep reports"
	}
	if (kmlend)
		printf "kmemleak: %d unreferenced object(s) after the run\n", nleak
	for (i = 1; i <= nleak && i <= 10; i++) print "  " leakl[i]
	for (i = 1; i <= nnotes; i++) print notes[i]
	if (status != "ok" || endrc == "") {
		print "last console lines:"
		for (i = NR - 24; i <= NR; i++) if (i > 0) print "  | " tailbuf[i % 25]
	}
	p = kpass + fpass; f = kfail + ffail + hfail + kuskip + fuskip; k = kskip + fskip
	printf "ksym: %d passed, %d failed, %d skipped\n", p, f, k
	printf "RESULT %d %d %d\n", p, f, k
}
