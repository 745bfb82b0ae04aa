#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# run-fuzz.sh BUILD HARNESS... - run each libFuzzer harness for FUZZ_SECS
# seconds (default 60) on a copy of its corpus (corpus/NAME; fuzz_tracedat
# also gets the tools' trace.dat fixtures), one after the other, and print
# per harness the executions, libFuzzer's coverage (cov: edges, ft:
# features) and the crashes (crash, leak, timeout or OOM inputs, saved in
# BUILD/artifacts/). Logs: BUILD/logs/NAME.log; summary: BUILD/fuzz-summary.txt
# (FUZZ_SUMMARY). The corpus copies (BUILD/work.PID) go when the run ends.
# Exit status 1 when any harness crashed or did not run.
#
# Knobs: FUZZ_SECS; FUZZ_TIMEOUT (seconds one input may take, default 10);
# FUZZ_RSS_MB (default 2048); FUZZ_ARGS (more libFuzzer options).
set -uo pipefail

build=${1:?usage: run-fuzz.sh BUILD HARNESS...}
shift
here=$(cd "$(dirname "$0")" && pwd)
secs=${FUZZ_SECS:-60}
work=$build/work.$$
arts=$build/artifacts
logs=$build/logs
summary=${FUZZ_SUMMARY:-$build/fuzz-summary.txt}

# A run interrupted (Ctrl-C) leaves no half-copied corpus behind for the next.
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir -p "$arts" "$logs"
: > "$summary"
read -ra more_args <<< "${FUZZ_ARGS:-}"
failed=0
printf '%-11s %12s %7s %7s %8s   (%s s each)\n' harness executions cov ft crashes "$secs" | tee -a "$summary"
for h in "$@"; do
	bin=$build/fuzz_$h
	log=$logs/$h.log
	rm -rf "${work:?}/$h"
	mkdir -p "$work/$h"
	cp "$here/corpus/$h"/* "$work/$h/" 2> /dev/null
	if [[ $h == tracedat ]]; then
		cp "$here"/../ksym-ctl/tests/*.dat "$here"/../kshark-ksym/tests/*.dat "$work/$h/"
	fi
	rm -f "$arts/$h"-*
	# lsan-NAME.supp: leaks of the libraries (each file says which).
	# fuzz_tracedat runs libtracecmd on whole files: the huge allocations
	# a file's sizes ask it for get NULL, as from malloc.
	env_h=()
	[[ ! -f $here/lsan-$h.supp ]] || env_h+=("LSAN_OPTIONS=suppressions=$here/lsan-$h.supp")
	[[ $h != tracedat ]] || env_h+=(ASAN_OPTIONS=allocator_may_return_null=1)
	# -close_fd_mask=3: the tools' own messages (stderr, stdout) are not
	# wanted; libFuzzer and the sanitizers still write to the log.
	env "${env_h[@]}" "$bin" -max_total_time="$secs" -print_final_stats=1 -close_fd_mask=3 \
		-timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
		-artifact_prefix="$arts/$h-" "${more_args[@]}" "$work/$h" > "$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	crashes=$(find "$arts" -maxdepth 1 -name "$h-*" | wc -l)
	printf '%-11s %12s %7s %7s %8s\n' "$h" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$crashes" |
		tee -a "$summary"
	if ((rc != 0 || crashes != 0)); then
		failed=1
		grep -m1 -E '^(==[0-9]+==ERROR|SUMMARY|.*runtime error)' "$log" | sed 's/^/    /'
		find "$arts" -maxdepth 1 -name "$h-*" | sed 's/^/    input: /'
		echo "    log: $log (exit $rc)"
	fi
done
exit $failed
