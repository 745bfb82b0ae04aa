#!/bin/sh
# guest-init.sh - /init (PID 1) of the test VM; runs under busybox sh, not bash
# (ftracetest runs under dash, see run_tests).
#
# Mounts proc, sys, devtmpfs, devpts, tmpfs /tmp, tracefs and debugfs, prints the
# CPUs and the boot time, then runs the mode named on the kernel command line:
#   ksym.mode=test   run ftracetest (KTAP output) on ksym.tests (comma-separated
#                    paths under /ftrace, default test.d/ksym and upstream's
#                    test.d/trigger/inter-event), print the results
#                    between KSYM-TEST-BEGIN and "KSYM-TEST-END rc=N", reboot -f
#                    (QEMU runs with -no-reboot, so that ends it). The host
#                    (scripts/run-vm.sh) parses the console log.
#   ksym.mode=bench  run /bench/ksym-bench.sh (prints its table between
#                    KSYM-BENCH-BEGIN and KSYM-BENCH-END), reboot -f.
#   ksym.mode=run    make run: the ksym-ctl demo (/ksym-ctl-demo.sh) between
#                    KSYM-RUN-BEGIN and "KSYM-RUN-END rc=N", reboot -f.
#   ksym.mode=shell  (default) interactive shell on the console; reboot -f on exit.
#   ksym.kmemleak=1  (test mode, debug kernel) after the tests, scan for leaks
#                    twice and print /sys/kernel/debug/kmemleak between
#                    KSYM-KMEMLEAK-BEGIN and KSYM-KMEMLEAK-END (make check-debug).
#   ksym.verbose=N   ftracetest verbosity: 1 (default, -v: logs of failing cases),
#                    3 (-vvv: every command of every case).
#   ksym.deadline=D  (test mode; run-vm.sh sets it when the run has a time
#                    budget: make check-debug, check-kcsan) guest uptime in
#                    seconds by which the tests stop, so that what comes after
#                    them (the kmemleak scan) ends before the host's VM limit.
#                    ftracetest then runs once per case, each started with a
#                    "KSYM-CASE-BEGIN i/N path" line and ended with
#                    "KSYM-CASE-END"; no case starts after D (each is reported
#                    "not ok ... # NOT RUN"), and one still running at D is
#                    killed ("not ok ... # KILLED"). The results are numbered
#                    as one ftracetest run. Without it: one ftracetest run for
#                    all cases (make check).
# No "set -e" here: PID 1 must never exit (the kernel would panic), so each step
# checks for itself.
set -u
PATH=/bin:/sbin:/usr/bin:/usr/sbin
HOME=/root
export PATH HOME

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2> /dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts 2> /dev/null
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing 2> /dev/null ||
	echo "KSYM-INIT: cannot mount tracefs on /sys/kernel/tracing"
mount -t debugfs debugfs /sys/kernel/debug 2> /dev/null ||
	echo "KSYM-INIT: cannot mount debugfs on /sys/kernel/debug"
# KCSAN kernels (make check-kcsan): reports in code that is not ours and that
# we do not fix are filtered by function (KCSAN's debugfs blacklist), each with
# the reason. The list is printed, so that a run's log says what was ignored.
#   process_scheduled_works: kernel/workqueue.c writes worker->current_at from
#   the task's se.sum_exec_runtime, which the scheduler updates concurrently;
#   a plain read of a statistic (upstream, not instrumented on the other side).
#   timekeeping_cycles_to_ns: ktime_get_mono_fast_ns() (here from
#   synchronize_srcu() under a trace filter write by trace-cmd) reads the
#   NMI-safe fast timekeeper under its seqcount latch, while the timekeeping
#   update, in the timer interrupt, rewrites it; the latch makes the reader
#   retry a torn read. KCSAN sees the read alone ("race at unknown origin";
#   kernel/time/timekeeping.c, upstream; seen by make check-kcsan 2026-11-26).
#   __percpu_counter_sum: lib/percpu_counter.c sums the per-CPU deltas of a
#   counter (here an mm's RSS, for /proc/PID/status) while other CPUs add to
#   their own with this_cpu_add(), by design an approximate sum (race at
#   unknown origin; upstream; seen by make check-kcsan 2026-11-26).
kcsan_ignore="process_scheduled_works timekeeping_cycles_to_ns __percpu_counter_sum"
if [ -w /sys/kernel/debug/kcsan ]; then
	for fn in $kcsan_ignore; do
		echo "!$fn" > /sys/kernel/debug/kcsan ||
			echo "KSYM-INIT: cannot filter KCSAN reports in $fn"
	done
	echo "KSYM-INIT: KCSAN reports filtered (upstream, not ksym): $(sed -n '/functions:/,$p' /sys/kernel/debug/kcsan | tr -s ' \n' '  ')"
fi
hostname ksym-vm
# Loopback networking: trace-cmd listen / record -N, ping.
ifconfig lo 127.0.0.1 up 2> /dev/null || echo "KSYM-INIT: cannot bring lo up"

mode=shell
tests=test.d/ksym,test.d/trigger/inter-event
verbose=1
kmemleak=0
deadline=
read -r cmdline < /proc/cmdline
for arg in $cmdline; do
	case $arg in
	ksym.mode=*) mode=${arg#ksym.mode=} ;;
	ksym.tests=*) tests=${arg#ksym.tests=} ;;
	ksym.verbose=*) verbose=${arg#ksym.verbose=} ;;
	ksym.kmemleak=*) kmemleak=${arg#ksym.kmemleak=} ;;
	ksym.deadline=*) deadline=${arg#ksym.deadline=} ;;
	esac
done

read -r uptime _ < /proc/uptime
echo "KSYM-INIT: $(uname -r), init started at ${uptime} s of uptime, mode=$mode"
echo "KSYM-CPUS online=$(cat /sys/devices/system/cpu/online) nproc=$(nproc)"
grep -m1 'model name' /proc/cpuinfo

finish() {
	sync
	reboot -f
	sleep 5
	echo "KSYM-INIT: reboot -f did not stop the machine"
	while :; do sleep 3600; done
}

run_tests() {
	echo "KSYM-TEST-BEGIN"
	rc=0
	cd /ftrace || { echo "KSYM-TEST-ERROR: no /ftrace"; return 1; }
	args=
	ncases=0
	for t in $(echo "$tests" | tr ',' ' '); do
		if [ -d "$t" ]; then
			n=$(find "$t" -name '*.tc' | wc -l)
			ncases=$((ncases + n))
			# ftracetest runs its whole suite when given a directory without
			# .tc files, so leave empty directories out.
			[ "$n" -gt 0 ] && args="$args $t"
		elif [ -f "$t" ]; then
			ncases=$((ncases + 1))
			args="$args $t"
		else
			echo "KSYM-TEST-ERROR: no such test or directory: /ftrace/$t"
			rc=1
		fi
	done
	case $verbose in
	3) vflag=-vvv ;;
	2) vflag=-vv ;;
	0) vflag= ;;
	*) vflag=-v ;;
	esac
	# ftracetest sources each case into its own shell. Under busybox sh a
	# command named like an applet (ping) runs as an exec of /proc/self/exe,
	# whatever PATH holds, so sched_process_exec would see
	# filename=/proc/self/exe; under dash, "ping" is an exec of /bin/ping as
	# on any distribution.
	ftsh="dash"
	if ! command -v dash > /dev/null; then
		echo "KSYM-INIT: no dash in the initramfs, ftracetest runs under busybox sh"
		ftsh="sh"
	fi
	if [ "$ncases" -eq 0 ]; then
		echo "KSYM-FTRACETEST: ftracetest found no test in '$tests' (0 cases)"
	elif [ -n "$deadline" ]; then
		# shellcheck disable=SC2086 # $args is a word list on purpose
		run_cases_by_deadline $args || rc=1
	else
		echo "KSYM-FTRACETEST: $ftsh ./ftracetest -K $vflag --fail-unresolved -l /tmp/ftracetest-logs$args ($ncases case(s))"
		# shellcheck disable=SC2086 # $vflag and $args are word lists on purpose
		{
			$ftsh ./ftracetest -K $vflag --fail-unresolved -l /tmp/ftracetest-logs $args < /dev/null
			echo $? > /tmp/ftracetest.rc
		} 2>&1 | tee /tmp/ftracetest.out
		read -r ftrc < /tmp/ftracetest.rc || ftrc=1
		[ "$ftrc" -eq 0 ] || rc=$ftrc
		# The results again, together, so that kernel messages printed while the
		# tests ran cannot split them.
		echo "KSYM-FTRACE-RESULTS-BEGIN"
		grep -E '^(not ok|ok) [0-9]+ |^1\.\.[0-9]+$|^# Totals: pass:' /tmp/ftracetest.out
		grep '^# of ' /tmp/ftracetest-logs/ftracetest.log 2> /dev/null
		echo "KSYM-FTRACE-RESULTS-END"
	fi
	if [ "$kmemleak" = 1 ]; then
		kmemleak_report || rc=1
	fi
	echo "KSYM-TEST-END rc=$rc"
	return "$rc"
}

# Whole seconds of guest uptime.
uptime_s() {
	cut -d. -f1 /proc/uptime
}

# run_cases_by_deadline PATH...: each case (a .tc, or the .tc files under a
# directory, in ftracetest's order) in an ftracetest run of its own, in a
# session of its own so that a watchdog can end it, case and children, at
# $deadline; none started after it. Prints the results together between
# KSYM-FTRACE-RESULTS-BEGIN/END, renumbered as one run.
run_cases_by_deadline() {
	cases=
	for t in "$@"; do
		if [ -d "$t" ]; then
			cases="$cases $(find "$t" -name '*.tc' | sort | tr '\n' ' ')"
		else
			cases="$cases $t"
		fi
	done
	n=$(echo "$cases" | wc -w)
	now=$(uptime_s)
	echo "KSYM-FTRACETEST: $ftsh ./ftracetest -K $vflag --fail-unresolved, one run per case ($n case(s)), none started after ${deadline} s of uptime (now ${now} s)"
	: > /tmp/ksym-results
	i=0 res=0 crc=0 notrun=0 killed=0
	for c in $cases; do
		i=$((i + 1))
		now=$(uptime_s)
		if [ "$now" -ge "$deadline" ]; then
			echo "KSYM-CASE-NOTRUN $i/$n $c: the deadline (${deadline} s) has passed (${now} s)"
			res=$((res + 1))
			echo "not ok $res $c # NOT RUN: the guest deadline (${deadline} s) had passed" >> /tmp/ksym-results
			notrun=$((notrun + 1))
			crc=1
			continue
		fi
		echo "KSYM-CASE-BEGIN $i/$n $c at ${now} s (deadline ${deadline} s, $((deadline - now)) s left)"
		rm -f /tmp/case.rc /tmp/case.killed
		setsid sh -c "{ $ftsh ./ftracetest -K $vflag --fail-unresolved -l /tmp/ftracetest-logs/$i $c < /dev/null; echo \$? > /tmp/case.rc; } 2>&1 | tee /tmp/case.out" &
		cpid=$!
		(
			trap 'kill $sp 2> /dev/null; exit 0' TERM
			sleep $((deadline - now)) &
			sp=$!
			wait $sp
			echo "KSYM-CASE-DEADLINE $i/$n $c: still running at ${deadline} s, killed"
			: > /tmp/case.killed
			kill -s TERM -$cpid 2> /dev/null
			sleep 5
			kill -s KILL -$cpid 2> /dev/null
		) &
		wpid=$!
		wait $cpid
		kill $wpid 2> /dev/null
		wait $wpid 2> /dev/null
		read -r r < /tmp/case.rc 2> /dev/null || r=killed
		got=$(awk -v n=$res '/^(not ok|ok) [0-9]+ / { n++; sub(/[0-9]+/, n); print }' /tmp/case.out)
		if [ -n "$got" ]; then
			echo "$got" >> /tmp/ksym-results
			res=$((res + $(echo "$got" | wc -l)))
		fi
		if [ -e /tmp/case.killed ]; then
			res=$((res + 1))
			echo "not ok $res $c # KILLED: still running at the guest deadline (${deadline} s)" >> /tmp/ksym-results
			killed=$((killed + 1))
			crc=1
		elif [ -z "$got" ]; then
			res=$((res + 1))
			echo "not ok $res $c # NO RESULT: ftracetest status $r" >> /tmp/ksym-results
			crc=1
		fi
		[ "$r" = 0 ] || crc=1
		echo "KSYM-CASE-END $i/$n $c at $(uptime_s) s, ftracetest status $r"
	done
	echo "KSYM-FTRACE-RESULTS-BEGIN"
	echo "1..$res"
	cat /tmp/ksym-results
	echo "# of cases: $n, not run (deadline): $notrun, killed at the deadline: $killed"
	echo "KSYM-FTRACE-RESULTS-END"
	return $crc
}

# kmemleak reports an object only once it has gone unreferenced through a
# scan and is older than 5 s: wait, scan, wait, scan, then show the report
# (the host counts each "unreferenced object" as a kernel problem).
kmemleak_report() {
	kml=/sys/kernel/debug/kmemleak
	if [ ! -w $kml ]; then
		echo "KSYM-TEST-ERROR: ksym.kmemleak=1 but no $kml (CONFIG_DEBUG_KMEMLEAK?)"
		return 1
	fi
	sleep 6
	echo scan > $kml
	sleep 6
	echo scan > $kml
	echo "KSYM-KMEMLEAK-BEGIN"
	cat $kml
	echo "KSYM-KMEMLEAK-END"
}

case $mode in
test)
	run_tests
	finish
	;;
bench)
	/bench/ksym-bench.sh || echo "KSYM-BENCH-ERROR: ksym-bench.sh failed"
	finish
	;;
run)
	echo "KSYM-RUN-BEGIN"
	/ksym-ctl-demo.sh 2>&1
	echo "KSYM-RUN-END rc=$?"
	finish
	;;
*)
	[ "$mode" = shell ] || echo "KSYM-INIT: unknown ksym.mode=$mode, starting a shell"
	echo "KSYM-INIT: shell on the console; exit it to stop the VM."
	echo "KSYM-INIT: tests: cd /ftrace && dash ./ftracetest -v test.d/ksym   tracefs: /sys/kernel/tracing"
	cd /root || cd /
	setsid cttyhack sh -l
	finish
	;;
esac
