#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# ksym-bench.sh - what a watched access costs, run inside the test VM by
# "make bench" (guest /init with ksym.mode=bench). Measures guest nanoseconds
# per access of ksym_hitgen_var, made by the hit generator's write_a, in each
# configuration: ksym's and, in the same boot, perf's hardware breakpoint on
# the same word (perf stat, perf record, perf record -g).
#
# Under "make bench" QEMU runs with -icount shift=0,sleep=off: guest time
# advances one nanosecond per instruction, so the numbers are instruction
# counts, the same from run to run and unaffected by the host's load.
#
# Only the write to write_a is timed: two trace_marker timestamps (in an
# instance of their own, so that a full top buffer cannot overwrite them)
# around "echo N > write_a", both written by the same shell.
#
# Output: one machine-readable line per measurement, which the host
# (bench/bench-report.sh) turns into tables and a chart:
#   ROW|id|ns per access|label|note          one configuration
#   GROW|watches|k|mode|ns per access        k watches armed, hits on one
#   GROW|cpus|n|mode|ns per access           this boot's CPU count
#   FILTER|cpus|n|op|ns per write            one ksym_trace_filter write
# Lines starting with "ksym-bench:" are comments.
#
# Usage: ksym-bench.sh [N [PARTS]]   N accesses per measurement (default
# ksym.bench_n= on the kernel command line, else 20000); PARTS (default
# ksym.bench= on the kernel command line, else "main,watches,cpus"):
# main = the table against perf, watches = growth with the number of
# watches, cpus = per-hit cost and filter writes on this boot's CPUs (make
# bench boots with 1, 2 and 4 CPUs).
#        ksym-bench.sh --measure N   one timed write of N (perf's workload)
set -eu

T=/sys/kernel/tracing
H=/sys/kernel/debug/ksym_hitgen
B=$T/instances/ksym_bench

# Guest ns for N writes by write_a, from two trace_marker timestamps.
measure() { # N
	echo > $B/trace
	echo start > $B/trace_marker
	echo "$1" > $H/write_a
	echo end > $B/trace_marker
	awk -v n="$1" '/tracing_mark_write: start/ { s = $(NF - 2) }
		/tracing_mark_write: end/ { e = $(NF - 2) }
		END { sub(":", "", s); sub(":", "", e); printf "%.1f\n", (e - s) * 1e9 / n }' $B/trace
}

if [ "${1:-}" = --measure ]; then
	measure "$2"
	exit
fi

N=${1:-$(sed -n 's/.*ksym\.bench_n=\([0-9]*\).*/\1/p' /proc/cmdline)}
N=${N:-20000}
PARTS=${2:-$(sed -n 's/.*ksym\.bench=\([a-z,]*\).*/\1/p' /proc/cmdline)}
PARTS=${PARTS:-main,watches,cpus}
CPUS=$(nproc)
SELF=$(readlink -f "$0")

has_part() { case ",$PARTS," in *",$1,"*) return 0 ;; esac; return 1; }

modprobe ksym_hitgen
cd $T
echo nop > current_tracer
echo 0 > ksym_trace_filter
for opt in ksym-stack ksym-regs ksym-branches stacktrace; do echo 0 > options/$opt; done
echo 1 > tracing_on
[ -d $B ] || mkdir $B
ADDR=0x$(awk '$3 == "ksym_hitgen_var" { print $1; exit }' /proc/kallsyms)

# Opening ksym_trace_filter waits for pending arming (a shell redirection:
# no fork inside a timed interval).
sync_arm() { : < $T/ksym_trace_filter; }

# Hits of ksym_hitgen_var in trace_stat/ksym_tracer (0 without the watch).
stat_hits() {
	awk '$2 == "ksym_hitgen_var/8" { n = $3 } END { print n + 0 }' $T/trace_stat/ksym_tracer
}

# A ksym row, with trace_stat's count of the hits it made as a check.
row() { # id label
	h0=$(stat_hits)
	ns=$(measure "$N")
	h=$(($(stat_hits) - h0))
	note=
	[ "$h" -eq 0 ] || note="ksym counted $h of $N"
	echo "ROW|$1|$ns|$2|$note"
}

# A perf row: perf counts or samples the breakpoint for the whole system
# while its workload, this script, makes one timed write; $3 checks perf's
# own count of the hits.
perf_row() { # id label perf-args...
	id=$1 label=$2
	shift 2
	rm -f /tmp/bench-perf.*
	if ! perf "$@" -- "$SELF" --measure "$N" > /tmp/bench-perf.ns 2> /tmp/bench-perf.err; then
		echo "ksym-bench: perf $* failed:"
		sed 's/^/ksym-bench:   /' /tmp/bench-perf.err
		echo "ROW|$id|-|$label|perf failed"
		return 0
	fi
	case $1 in
	stat) got=$(awk -F, '/mem:/ { print $1 }' /tmp/bench-perf.stat) ;;
	record)
		perf report -i /tmp/bench-perf.data --stats > /tmp/bench-perf.stats 2> /dev/null || true
		got=$(awk '/SAMPLE events:/ { print $3; exit }' /tmp/bench-perf.stats)
		for ev in LOST THROTTLE; do
			x=$(awk -v e="$ev" '$1 == e && $2 == "events:" { print $3; exit }' /tmp/bench-perf.stats)
			[ -z "$x" ] || [ "$x" = 0 ] || got="$got, $x $ev records"
		done
		;;
	esac
	echo "ROW|$id|$(cat /tmp/bench-perf.ns)|$label|perf: ${got:-?} of $N"
}

echo "KSYM-BENCH-BEGIN"
echo "ksym-bench: $N writes of ksym_hitgen_var ($ADDR) per measurement, $(uname -r), $CPUS CPUs, parts $PARTS"
measure "$N" > /dev/null	# warm up: first-time costs are not an access's

if has_part main; then
	row none "no watch"
	# perf samples a breakpoint at every hit (period 1): lift the sample-rate
	# throttle, which would otherwise stop the breakpoint for the rest of each
	# tick (hits that would cost only the bare write), and give perf record
	# a buffer that holds every sample; perf's count of them is in the note.
	echo 100000000 > /proc/sys/kernel/perf_event_max_sample_rate || echo "ksym-bench: cannot raise perf_event_max_sample_rate"
	echo 0 > /proc/sys/kernel/perf_cpu_time_max_percent || echo "ksym-bench: cannot set perf_cpu_time_max_percent"
	perf_row perf_stat "perf stat -a -e mem:ADDR/8:w" \
		stat -a -x, -o /tmp/bench-perf.stat -e "mem:$ADDR/8:w"
	perf_row perf_record "perf record -a -e mem:ADDR/8:w" \
		record -q -a -c 1 -m 16M -o /tmp/bench-perf.data -e "mem:$ADDR/8:w"
	perf_row perf_record_g "perf record -a -g -e mem:ADDR/8:w" \
		record -q -a -g -c 1 -m 16M -o /tmp/bench-perf.data -e "mem:$ADDR/8:w"
	rm -f /tmp/bench-perf.*
	# The floor of any tracer built on perf's breakpoints: the same
	# breakpoint, sampling every hit, with an overflow handler that only
	# counts (ksym_hitgen/floor). Above perf stat it is perf's sampling
	# overflow path, which every overflow handler pays.
	echo 1 > $H/floor
	ns=$(measure "$N")
	echo "ROW|floor|$ns|perf breakpoint + handler that only counts|floor: $(cat $H/floor) of $N"
	echo 0 > $H/floor
	echo 'ksym_hitgen_var/8:-w-' > ksym_trace_filter
	row disarmed "ksym watch set, no consumer (disarmed)"
	echo ksym > current_tracer
	echo 0 > tracing_on
	sync_arm
	row count "ksym counting only (tracer, tracing_on=0)"
	echo 1 > tracing_on
	row ring "ksym ksym_hit into the ring buffer"
	echo 1 > options/ksym-regs
	sync_arm
	row regs "ksym + ksym-regs"
	echo 0 > options/ksym-regs
	echo 1 > options/ksym-stack
	sync_arm
	row stack "ksym + ksym-stack (depth $(cat ksym_stack_depth))"
	echo 0 > options/ksym-stack
	echo 1 > options/stacktrace
	sync_arm
	row stacktrace "ksym + options/stacktrace"
	echo 0 > options/stacktrace
	row stackoff "ksym, stack options off again"
	# Snippets start and stop in the arming work (sync_arm waits for it
	# after every option change): measured without the wait, the row after
	# ksym-branches off still had the software trail's ftrace_ops, ~900
	# instructions per write of the hit generator.
	echo 1 > options/ksym-branches
	sync_arm
	row branches "ksym + ksym-branches ($(sed -n 's/in use: //p' ksym_branch_source), $(cat ksym_branch_entries))"
	echo 0 > options/ksym-branches
	sync_arm
	row optoff "ksym, branches off again"
	echo nop > current_tracer
	row traceroff "tracer off again (disarmed)"
	mkdir $T/instances/ksym_bench_ev
	echo 0 > $T/instances/ksym_bench_ev/tracing_on
	echo 1 > $T/instances/ksym_bench_ev/events/ksym/ksym_hit/enable
	sync_arm
	row evoff "ksym_hit event on, tracing_on=0 (no tracer)"
	echo 0 > $T/instances/ksym_bench_ev/events/ksym/ksym_hit/enable
	rmdir $T/instances/ksym_bench_ev
	echo 'hist:keys=ip.sym' > events/ksym/ksym_hit/trigger
	echo 1 > events/ksym/ksym_hit/enable
	sync_arm
	row hist "ksym_hit event alone + hist trigger"
	echo 0 > events/ksym/ksym_hit/enable
	echo '!hist:keys=ip.sym' > events/ksym/ksym_hit/trigger
	echo 0 > ksym_trace_filter
	row removed "watch removed"
	echo > trace
fi

# Growth with the number of watches armed: the hits are on ksym_hitgen_var
# only; the other watches are on words nothing touches.
if has_part watches; then
	extra="ksym_hitgen_u32/4:-w- ksym_hitgen_buf/8:-w- ksym_hitgen_buf+8/8:-w-"
	for k in 1 2 4; do
		spec='ksym_hitgen_var/8:-w-'
		i=1
		for e in $extra; do
			[ $i -lt $k ] || break
			spec="$spec $e"
			i=$((i + 1))
		done
		echo "$spec" > ksym_trace_filter
		echo ksym > current_tracer
		echo 0 > tracing_on
		sync_arm
		echo "GROW|watches|$k|count|$(measure "$N")"
		echo 1 > tracing_on
		echo "GROW|watches|$k|ring|$(measure "$N")"
		echo nop > current_tracer
		echo 0 > ksym_trace_filter
	done
	echo > trace
fi

# This boot's CPUs: per-hit cost with one watch, and what one filter write
# costs while the tracer is current (the write arms or disarms on every CPU).
if has_part cpus; then
	echo 'ksym_hitgen_var/8:-w-' > ksym_trace_filter
	echo ksym > current_tracer
	echo 0 > tracing_on
	sync_arm
	echo "GROW|cpus|$CPUS|count|$(measure "$N")"
	echo 1 > tracing_on
	echo "GROW|cpus|$CPUS|ring|$(measure "$N")"
	echo 0 > tracing_on
	R=20
	echo > $B/trace
	r=0
	while [ $r -lt $R ]; do
		echo "t0" > $B/trace_marker
		sync_arm
		echo "t1" > $B/trace_marker
		echo 'ksym_hitgen_u32/4:-w-' > $T/ksym_trace_filter
		sync_arm
		echo "t2" > $B/trace_marker
		echo 'ksym_hitgen_u32/4:rw-' > $T/ksym_trace_filter
		sync_arm
		echo "t3" > $B/trace_marker
		echo 'ksym_hitgen_u32/4:---' > $T/ksym_trace_filter
		sync_arm
		echo "t4" > $B/trace_marker
		r=$((r + 1))
	done
	# Each op minus the empty interval (two markers and the open).
	awk -v r=$R -v cpus="$CPUS" '/tracing_mark_write: t[0-4]$/ {
			t = $(NF - 2); sub(":", "", t); k = substr($NF, 2) + 0
			if (k > 0) d[k] += t - last
			last = t
		}
		END {
			empty = d[1] / r
			printf "FILTER|cpus|%d|empty|%.0f\n", cpus, empty * 1e9
			printf "FILTER|cpus|%d|add|%.0f\n", cpus, (d[2] / r - empty) * 1e9
			printf "FILTER|cpus|%d|change|%.0f\n", cpus, (d[3] / r - empty) * 1e9
			printf "FILTER|cpus|%d|remove|%.0f\n", cpus, (d[4] / r - empty) * 1e9
		}' $B/trace
	echo nop > current_tracer
	echo 0 > ksym_trace_filter
	echo 1 > tracing_on
	echo > trace
fi
rmdir $B
echo "KSYM-BENCH-END"
