#!/usr/bin/env bash
# bench-report.sh - the tables (and chart) of make bench, from the measurement
# lines that bench/ksym-bench.sh printed in the VM (see its header).
#
# Usage: bench/bench-report.sh RAW...   (each RAW is one boot's output, e.g.
# build/bench-raw-smp2.txt); prints the report. KSYM_BENCH_SVG=FILE also draws
# the chart there with gnuplot (skipped, with a note, when gnuplot is missing).
#
# Targets (issue 12): ksym counting only <= 1.1x perf stat's counting
# breakpoint, ksym ring buffer <= 0.7x perf record, ksym stack <= 1.0x perf
# record -g.
set -euo pipefail

(($# > 0)) || { echo "usage: $0 RAW..." >&2; exit 2; }

cat "$@" | tr -d '\r' | awk -F'|' '
function num(x) { return x != "" && x != "-" }
function ratio(a, b) { return (num(a) && num(b) && b > 0) ? sprintf("%.2fx", a / b) : "-" }
# Growth of v[1], v[2], v[4] (x = watches or CPUs): constant, linear, or other.
function growth(v1, v2, v4, unit,    lo, hi, slope, pred) {
	lo = v1; hi = v1
	if (v2 < lo) lo = v2; if (v4 < lo) lo = v4
	if (v2 > hi) hi = v2; if (v4 > hi) hi = v4
	if (lo > 0 && (hi - lo) / lo <= 0.05)
		return sprintf("constant (%.0f..%.0f)", lo, hi)
	slope = (v4 - v1) / 3
	pred = v1 + slope
	if (slope > 0 && (v2 - pred) ^ 2 <= (0.2 * (v4 - v1)) ^ 2)
		return sprintf("linear: %.0f + %.0f per %s", v1 - slope, slope, unit)
	if (v1 < v2 && v2 < v4)
		return sprintf("sublinear: %.0f, then +%.0f for the 2nd %s, +%.0f per %s for the 3rd and 4th",
			v1, v2 - v1, unit, (v4 - v2) / 2, unit)
	return sprintf("no trend: %.0f, %.0f, %.0f for 1, 2, 4 %ss", v1, v2, v4, unit)
}
/^ksym-bench: / { print "# " substr($0, 13); next }
$1 == "ROW" { ns[$2] = $3; label[$2] = $4; note[$2] = $5; order[++nrows] = $2; next }
$1 == "GROW" { grow[$2, $3, $4] = $5; if ($2 == "cpus") hascpu[$3] = 1; else haswatch[$3] = 1; next }
$1 == "FILTER" { filt[$3, $4] = $5; hasfilt[$3] = 1; next }
END {
	peer["count"] = "perf_stat"; target["count"] = 1.1
	peer["ring"] = "perf_record"; target["ring"] = 0.7
	peer["stack"] = "perf_record_g"; target["stack"] = 1.0
	peer["stacktrace"] = "perf_record_g"; target["stacktrace"] = 1.0
	peer["regs"] = "perf_record"; peer["hist"] = "perf_record"; peer["evoff"] = "perf_stat"
	peer["floor"] = "perf_stat"
	pname["perf_stat"] = "perf stat"; pname["perf_record"] = "perf record"
	pname["perf_record_g"] = "perf record -g"
	base = ns["none"]
	if (nrows) {
		print ""
		print "Cost of one write of ksym_hitgen_var, in instructions (guest ns under -icount shift=0)"
		printf "  %-44s %7s %9s  %-22s %-15s %s\n", "configuration", "instr", "vs none", "vs perf peer", "target", "hits seen"
		for (i = 1; i <= nrows; i++) {
			id = order[i]
			vp = ""; tg = ""
			if (id in peer) {
				vp = ratio(ns[id], ns[peer[id]]) " " pname[peer[id]]
				if (id in target && num(ns[id]) && num(ns[peer[id]])) {
					r = ns[id] / ns[peer[id]]
					tg = sprintf("<=%.1fx %s", target[id], r <= target[id] ? "met" : "MISSED")
				}
			}
			seen = note[id]
			sub(/^(perf|floor|ksym counted): /, "", seen); sub(/^ksym counted /, "", seen)
			sub(/ of /, "/", seen)
			printf "  %-44s %7s %9s  %-22s %-15s %s\n", label[id], num(ns[id]) ? sprintf("%.0f", ns[id]) : "-",
				ratio(ns[id], base), vp, tg, seen
		}
	}
	if (num(ns["floor"]) && num(ns["count"]) && num(ns["perf_stat"])) {
		print ""
		printf "Counting only is %.0f instructions above perf stat: %.0f of them the sampling overflow path\n", ns["count"] - ns["perf_stat"], ns["floor"] - ns["perf_stat"]
		printf "of perf (the floor row: any overflow handler pays it), %.0f the ksym handler. The floor alone is %s perf stat.\n", ns["count"] - ns["floor"], ratio(ns["floor"], ns["perf_stat"])
	}
	if (length(hascpu) || length(haswatch)) {
		print ""
		print "Growth: instructions per hit of ksym_hitgen_var (tracer current)"
		printf "  %-44s %12s %12s\n", "", "counting", "ring buffer"
		for (k = 1; k <= 4; k *= 2)
			if (k in haswatch)
				printf "  %-44s %12.0f %12.0f\n", k (k == 1 ? " watch armed" : " watches armed, hits on one"),
					grow["watches", k, "count"], grow["watches", k, "ring"]
		for (c = 1; c <= 4; c *= 2)
			if (c in hascpu)
				printf "  %-44s %12.0f %12.0f\n", "1 watch, " c (c == 1 ? " CPU" : " CPUs"),
					grow["cpus", c, "count"], grow["cpus", c, "ring"]
		print ""
		print "Growth: guest ns per ksym_trace_filter write (tracer current, ksym_hitgen_var armed;"
		print "instructions on all CPUs, plus time asleep, e.g. RCU grace periods: idle, the guest clock jumps to its next timer)"
		printf "  %-44s %12s %12s %12s\n", "", "1 CPU", "2 CPUs", "4 CPUs"
		split("add ksym_hitgen_u32/4:-w-|change it to rw-|remove it (---)|(open + markers, subtracted)", ol, "|")
		split("add change remove empty", ok, " ")
		for (j = 1; j <= 4; j++)
			printf "  %-44s %12s %12s %12s\n", ol[j], filt[1, ok[j]], filt[2, ok[j]], filt[4, ok[j]]
		print ""
		if (4 in haswatch)
			printf "Per hit vs watches armed: counting %s; ring buffer %s.\n",
				growth(grow["watches", 1, "count"], grow["watches", 2, "count"], grow["watches", 4, "count"], "watch"),
				growth(grow["watches", 1, "ring"], grow["watches", 2, "ring"], grow["watches", 4, "ring"], "watch")
		if ((1 in hascpu) && (2 in hascpu) && (4 in hascpu)) {
			printf "Per hit vs CPUs: counting %s; ring buffer %s.\n",
				growth(grow["cpus", 1, "count"], grow["cpus", 2, "count"], grow["cpus", 4, "count"], "CPU"),
				growth(grow["cpus", 1, "ring"], grow["cpus", 2, "ring"], grow["cpus", 4, "ring"], "CPU")
			printf "Filter write vs CPUs: add %s; change %s; remove %s.\n",
				growth(filt[1, "add"], filt[2, "add"], filt[4, "add"], "CPU"),
				growth(filt[1, "change"], filt[2, "change"], filt[4, "change"], "CPU"),
				growth(filt[1, "remove"], filt[2, "remove"], filt[4, "remove"], "CPU")
		}
	}
	# The chart data, for the caller: group, ksym, perf.
	if (chart != "" && num(ns["count"])) {
		split("count perf_stat counting|ring perf_record ring buffer|stack perf_record_g ksym-stack|stacktrace perf_record_g options/stacktrace|hist perf_record hist trigger", groups, "|")
		for (g = 1; g <= 5; g++) {
			split(groups[g], w, " ")
			name = groups[g]; sub(/^[^ ]+ [^ ]+ /, "", name)
			printf "\"%s: %s\\n(%s)\" %s %s\n", name, ratio(ns[w[1]], ns[w[2]]), pname[w[2]], ns[w[1]], ns[w[2]] > chart
		}
		close(chart)
	}
}' chart="${KSYM_BENCH_SVG:+${KSYM_BENCH_SVG%.svg}.dat}"

[[ -n ${KSYM_BENCH_SVG:-} ]] || exit 0
dat=${KSYM_BENCH_SVG%.svg}.dat
rm -f "$KSYM_BENCH_SVG"
if [[ ! -s $dat ]]; then
	echo "bench-report: no ksym/perf rows measured, no chart"
	exit 0
fi
if ! command -v gnuplot > /dev/null; then
	echo "bench-report: gnuplot missing (apt-get install gnuplot-nox), no chart"
	exit 0
fi
gnuplot <<EOF
set terminal svg size 1100,580 dynamic enhanced font 'sans,12' background '#ffffff'
set output '$KSYM_BENCH_SVG'
set title 'Instructions per watched write of ksym\\_hitgen\\_var (QEMU -icount shift=0, same boot)'
set ylabel 'instructions per access'
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [0:*]
set xtics font ',10'
set bmargin 5
plot '$dat' using 2:xtic(1) title 'ksym' lc rgb '#2a6fb0', \
	'' using 3 title 'perf (peer)' lc rgb '#c0504d', \
	'' using (\$0 - 0.17):2:(sprintf('%.0f', \$2)) with labels offset 0,0.7 font ',9' notitle, \
	'' using (\$0 + 0.17):3:(sprintf('%.0f', \$3)) with labels offset 0,0.7 font ',9' notitle
EOF
echo "bench-report: chart in $KSYM_BENCH_SVG"
