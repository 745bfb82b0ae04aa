#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ksym-bench.sh - what a watched access costs, run inside the test VM by
# "make bench" (guest /init with ksym.mode=bench). Prints one line per
# configuration: guest nanoseconds per access of ksym_hitgen_var, made by the
# hit generator's write_a, and the ratio to an unwatched access.
#
# Under "make bench" QEMU runs with -icount shift=0,sleep=off: guest time
# advances one nanosecond per instruction, so the numbers are instruction
# counts, the same from run to run and unaffected by the host's load.
#
# Usage: ksym-bench.sh [N]   (N accesses per configuration, default 20000)
set -eu

T=/sys/kernel/tracing
H=/sys/kernel/debug/ksym_hitgen
B=$T/instances/ksym_bench
N=${1:-20000}

modprobe ksym_hitgen
cd $T
echo nop > current_tracer
echo 0 > ksym_trace_filter
for opt in ksym-stack ksym-regs ksym-branches; do echo 0 > options/$opt; done
# Timestamps come from a separate instance, so that a full top buffer
# cannot overwrite them.
[ -d $B ] || mkdir $B

# Guest ns for N writes by write_a, from two trace_marker timestamps.
measure() {
	echo > $B/trace
	echo start > $B/trace_marker
	echo "$N" > $H/write_a
	echo end > $B/trace_marker
	awk -v n="$N" '/tracing_mark_write: start/ { s = $(NF - 2) }
		/tracing_mark_write: end/ { e = $(NF - 2) }
		END { sub(":", "", s); sub(":", "", e); printf "%d\n", (e - s) * 1e9 / n }' $B/trace
}

base=
row() { # label
	ns=$(measure)
	[ -n "$base" ] || base=$ns
	awk -v l="$1" -v ns="$ns" -v b="$base" \
		'BEGIN { printf "  %-44s %10d  %8.1fx\n", l, ns, ns / b }'
}

echo "KSYM-BENCH-BEGIN"
echo "ksym-bench: $N writes of ksym_hitgen_var per line, $(uname -r), $(nproc) CPUs"
printf '  %-44s %10s  %9s\n' "configuration" "ns/access" "vs none"
measure > /dev/null	# warm up: first-time costs are not an access's
row "no watch"
echo 'ksym_hitgen_var:-w-' > ksym_trace_filter
row "watch set, no consumer (disarmed)"
echo ksym > current_tracer
echo 0 > tracing_on
row "armed, counting only (tracing_on=0)"
echo 1 > tracing_on
row "armed, ksym_hit to the ring buffer"
echo 1 > options/ksym-regs
row "  + ksym-regs"
echo 1 > options/ksym-stack
row "  + ksym-stack (depth $(cat ksym_stack_depth))"
echo 1 > options/ksym-branches
row "  + ksym-branches ($(sed -n 's/in use: //p' ksym_branch_source), $(cat ksym_branch_entries))"
for opt in ksym-stack ksym-regs ksym-branches; do echo 0 > options/$opt; done
row "options off again"
echo nop > current_tracer
row "tracer off again (disarmed)"
echo 0 > ksym_trace_filter
row "watch removed"
echo "KSYM-BENCH-END"
rmdir $B
