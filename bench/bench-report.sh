#!/usr/bin/env bash
# bench-report.sh - the tables (and chart) of make bench, from the measurement
# lines that bench/ksym-bench.sh printed in the VM (see its header).
#
# Usage: bench/bench-report.sh [--kernel NAME] RAW... [--kernel NAME RAW...]
# Each RAW is one boot's output (e.g. build/bench-raw-smp2.txt); each
# --kernel starts the boots of another kernel, whose tables follow under NAME
# (make bench: the test kernel, then the production-like one), then the
# main rows of all kernels side by side. KSYM_BENCH_SVG=FILE also draws the
# chart there with gnuplot, one panel per kernel (skipped, with a note, when
# gnuplot is missing).
#
# Targets, by kernel (NAME starting "test" or not). The test kernel (issue
# 43): ksym counting only <= 1.2x perf stat, ring buffer <= 0.7x perf record,
# stack <= 0.85x perf record -g. Any other (the production-like kernel,
# issues 21 and 43): counting only <= the floor + 40 instructions, ring
# buffer <= 0.9x perf record, stack <= 0.8x perf record -g. Every kernel:
# every ksym row <= the bpftrace program that delivers the same (1.0x).
set -euo pipefail

(($# > 0)) || { echo "usage: $0 [--kernel NAME] RAW... [--kernel NAME RAW...]" >&2; exit 2; }

names=() groups=()
while (($# > 0)); do
	if [[ $1 == --kernel ]]; then
		names+=("$2")
		groups+=("")
		shift 2
		continue
	fi
	((${#names[@]} > 0)) || { names+=(""); groups+=(""); }
	groups[-1]+="$1"$'\n'
	shift
done

# report NAME CHART RAW...: one kernel's tables (CHART: where its chart data go).
report() {
local name=$1 chart=$2
shift 2
[[ -z $name ]] || printf '\n===== %s =====\n' "$name"
cat "$@" | tr -d '\r' | awk -F'|' -v kname="$name" '
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
	return sprintf("no trend: %.0f, %.0f, %.0f for 1, 2, 4 %s", v1, v2, v4, unit == "entry" ? "entries" : unit "s")
}
/^ksym-bench: / { print "# " substr($0, 13); next }
# bpftrace rows come last from the VM; they are shown after the perf rows.
$1 == "ROW" && $2 ~ /^bpf_/ { ns[$2] = $3; label[$2] = $4; note[$2] = $5; border[++nb] = $2; next }
$1 == "ROW" {
	if ($2 == "floor" || $2 == "bare" || $2 == "disarmed")
		while (bi < nb) order[++nrows] = border[++bi]
	ns[$2] = $3; label[$2] = $4; note[$2] = $5; order[++nrows] = $2; next
}
$1 == "SEEN" { note[$2] = $3; next }
$1 == "GROW" { grow[$2, $3, $4] = $5; if ($2 == "cpus") hascpu[$3] = 1; else haswatch[$3] = 1; next }
$1 == "FILTER" && $2 == "scale" { scale[$3, $4] = $5; hasscale[$3] = 1; next }
$1 == "FILTER" { filt[$3, $4] = $5; hasfilt[$3] = 1; next }
$1 == "TRIG" {
	if (!(($3) in tlabel)) torder[++ntrig] = $3
	tns[$2, $3] = $4; tlabel[$3] = $5; tcpus[$2] = 1; next
}
$1 == "TRIGSLOT" { s = $5 ? $5 : 1; tarmed[$2, s] = $3; tmissed[$2, s] = $4; next }
END {
	while (bi < nb) order[++nrows] = border[++bi]
	peer["count"] = "perf_stat"
	peer["ring"] = "perf_record"; peer["stack"] = "perf_record_g"; peer["stacktrace"] = "perf_record_g"
	testk = kname ~ /^test/
	if (testk) {
		target["count"] = 1.2; target["ring"] = 0.7; target["stack"] = 0.85; target["stacktrace"] = 0.85
	} else {
		target["ring"] = 0.9; target["stack"] = 0.8; target["stacktrace"] = 0.8
	}
	peer["regs"] = "perf_record"; peer["hist"] = "perf_record"; peer["evoff"] = "perf_stat"
	peer["floor"] = "perf_stat"; peer["bare"] = "perf_stat"
	peer["bpf_count"] = "perf_stat"; peer["bpf_print"] = "perf_record_k"; peer["bpf_kstack"] = "perf_record_g_k"
	peer["perf_record_k"] = "perf_record"; peer["perf_record_g_k"] = "perf_record_g"
	pname["perf_record_k"] = "perf rec, stopped"; pname["perf_record_g_k"] = "perf rec -g, stopped"
	bpeer["count"] = "bpf_count"; bpeer["hist"] = "bpf_count"; bpeer["ring"] = "bpf_print"
	bpeer["regs"] = "bpf_print"; bpeer["stack"] = "bpf_kstack"; bpeer["stacktrace"] = "bpf_kstack"
	pname["perf_stat"] = "perf stat"; pname["perf_record"] = "perf record"
	pname["perf_record_g"] = "perf record -g"
	pname["bpf_count"] = "count()"; pname["bpf_print"] = "printf"; pname["bpf_kstack"] = "@[kstack]"
	base = ns["none"]
	if (nrows) {
		print ""
		print "Cost of one write of ksym_hitgen_var, in instructions (guest ns under -icount shift=0)"
		printf "  %-46s %7s %8s  %-20s %-15s %-30s %s\n", "configuration", "instr", "vs none", "vs perf peer", "vs bpftrace", "target", "hits seen"
		for (i = 1; i <= nrows; i++) {
			id = order[i]
			vp = ""; vb = ""; tg = ""
			if (id in peer)
				vp = ratio(ns[id], ns[peer[id]]) " " pname[peer[id]]
			if (id in bpeer) {
				vb = ratio(ns[id], ns[bpeer[id]]) " " pname[bpeer[id]]
				if (num(ns[id]) && num(ns[bpeer[id]]))
					tg = "<=bpf " (ns[id] <= ns[bpeer[id]] ? "met" : "MISSED")
			}
			if (id in target && num(ns[id]) && num(ns[peer[id]])) {
				r = ns[id] / ns[peer[id]]
				tg = sprintf("<=%gx %s", target[id], r <= target[id] ? "met" : "MISSED") (tg != "" ? ", " tg : "")
			}
			if (id == "count" && !testk && num(ns[id]) && num(ns["floor"]))
				tg = sprintf("<=floor+40 %s", ns[id] - ns["floor"] <= 40 ? "met" : "MISSED") (tg != "" ? ", " tg : "")
			seen = note[id]
			sub(/^(perf|floor|bare|bpftrace|ksym counted): /, "", seen); sub(/^ksym counted /, "", seen)
			sub(/ of /, "/", seen)
			printf "  %-46s %7s %8s  %-20s %-15s %-30s %s\n", label[id], num(ns[id]) ? sprintf("%.0f", ns[id]) : "-",
				ratio(ns[id], base), vp, vb, tg, seen
		}
	}
	if (num(ns["floor"]) && num(ns["count"]) && num(ns["perf_stat"])) {
		print ""
		printf "Counting only is %.0f instructions above perf stat: %.0f of them the sampling overflow path\n", ns["count"] - ns["perf_stat"], ns["floor"] - ns["perf_stat"]
		printf "of perf (the floor row: any overflow handler pays it), %.0f the ksym handler (goal: 40). The floor alone is %s perf stat.\n", ns["count"] - ns["floor"], ratio(ns["floor"], ns["perf_stat"])
		if (num(ns["bare"]))
			printf "The bare trap (breakpoint counting, no handler) costs %.0f: the floor is %.0f above it, counting only %.0f.\n", ns["bare"], ns["floor"] - ns["bare"], ns["count"] - ns["bare"]
	}
	if (num(ns["perf_record_k"]) && num(ns["ring"]) && num(ns["perf_record_g_k"]) && num(ns["stack"])) {
		printf "Against perf with its reader stopped (the kernel alone, as ksym rows): ring buffer %s perf record, ksym-stack %s perf record -g.\n",
			ratio(ns["ring"], ns["perf_record_k"]), ratio(ns["stack"], ns["perf_record_g_k"])
	}
	if (ntrig) {
		print ""
		print "Triggers (issue 31): instructions per hot event, or per alloc/free iteration; vs the row without triggers, vs traceon"
		for (c = 1; c <= 4; c *= 2) {
			if (!(c in tcpus))
				continue
			printf "  %d CPU%s\n", c, (c > 1 ? "s" : "")
			for (i = 1; i <= ntrig; i++) {
				id = torder[i]
				if (!((c, id) in tns))
					continue
				v = tns[c, id]
				tb = id ~ /^hot/ ? tns[c, "hot_none"] : tns[c, "cache_none"]
				vt = ""
				if (id ~ /uaf/) {
					tp = id; sub(/uaf/, "traceon", tp); sub(/4$/, "", tp)
					vt = sprintf("%+.0f vs the traceon pair (%s)", v - tns[c, tp], ratio(v, tns[c, tp]))
				}
				if (id == "hot_unwatch")
					vt = sprintf("%+.0f vs traceon, %+.0f vs traceon reading the record (goal: within 20 of traceon: %s; of the record-reading one: %s)",
						v - tns[c, "hot_traceon"], v - tns[c, "hot_traceon_rec"],
						v - tns[c, "hot_traceon"] <= 20 ? "met" : "MISSED",
						v - tns[c, "hot_traceon_rec"] <= 20 ? "met" : "MISSED")
				printf "    %-62s %9.0f %7s  %s\n", tlabel[id], v, ratio(v, tb), vt
			}
			for (s = 1; s <= 4; s += 3) {
				if (!((c, s) in tarmed))
					continue
				row = s == 1 ? "cache_uaf_match" : "cache_uaf_match4"
				printf "    %d slot%s: the matching pair watched %s of 100000 freed objects (%.2f%%; missed %s: no slot free)%s\n",
					s, (s > 1 ? "s" : ""), tarmed[c, s], tarmed[c, s] / 1000, tmissed[c, s],
					s == 4 ? (tarmed[c, s] >= 90000 ? " (goal >= 90%: met)" : " (goal >= 90%: MISSED)") : ""
				if (tarmed[c, s] > 0 && ((c, row) in tns))
					printf "    one object cycle (watched at the free, unwatched at the alloc): %.0f instructions above the traceon pair\n",
						(tns[c, row] - tns[c, "cache_traceon_match"]) * 100000 / tarmed[c, s]
			}
		}
	}
	if (length(hasscale)) {
		print ""
		print "Filter writes at scale: guest ns of one ksym_trace_filter write of k entries (tracer current,"
		print "nothing else watched; instructions on all CPUs plus time asleep: RCU grace periods, the arming work)"
		printf "  %-44s %12s %12s %12s\n", "", "1 entry", "2 entries", "4 entries"
		split("add k watches (-w-)|change all to rw-|remove all (---)|clear (0) after adding k|(open + markers, subtracted)", sl, "|")
		split("add change remove clear empty", sk, " ")
		for (j = 1; j <= 5; j++)
			printf "  %-44s %12s %12s %12s\n", sl[j], scale[1, sk[j]], scale[2, sk[j]], scale[4, sk[j]]
		if ((1, "gp_add") in scale) {
			print "  grace periods waited (synchronize_rcu calls per write):"
			for (j = 1; j <= 4; j++)
				printf "  %-44s %12s %12s %12s\n", "  " sl[j], scale[1, "gp_" sk[j]], scale[2, "gp_" sk[j]], scale[4, "gp_" sk[j]]
		}
		if ((1 in hasscale) && (2 in hasscale) && (4 in hasscale)) {
			print ""
			printf "Filter write vs entries: add %s; change %s; remove %s; clear %s.\n",
				growth(scale[1, "add"], scale[2, "add"], scale[4, "add"], "entry"),
				growth(scale[1, "change"], scale[2, "change"], scale[4, "change"], "entry"),
				growth(scale[1, "remove"], scale[2, "remove"], scale[4, "remove"], "entry"),
				growth(scale[1, "clear"], scale[2, "clear"], scale[4, "clear"], "entry")
		}
	}
	if (length(hascpu) || length(haswatch)) {
		print ""
		print "Growth: instructions per hit of ksym_hitgen_var (tracer current)"
		printf "  %-44s %12s %12s %12s %12s\n", "", "counting", "ring buffer", "all write:", "all, ring"
		for (k = 1; k <= 4; k *= 2)
			if (k in haswatch)
				printf "  %-44s %12.0f %12.0f\n", k (k == 1 ? " watch armed" : " watches armed, hits on one"),
					grow["watches", k, "count"], grow["watches", k, "ring"]
		for (c = 1; c <= 4; c *= 2)
			if (c in hascpu)
				printf "  %-44s %12.0f %12.0f %12.0f %12.0f\n", "1 watch, " c (c == 1 ? " CPU" : " CPUs"),
					grow["cpus", c, "count"], grow["cpus", c, "ring"],
					grow["cpus", c, "count_all"], grow["cpus", c, "ring_all"]
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
	# The chart data, for the caller: group, ksym, perf, bpftrace ("-": none).
	if (chart != "" && num(ns["count"])) {
		split("count perf_stat bpf_count counting|ring perf_record bpf_print ring buffer|stack perf_record_g bpf_kstack ksym-stack|stacktrace perf_record_g bpf_kstack stacktrace opt.|hist perf_record bpf_count hist trigger", groups, "|")
		for (g = 1; g <= 5; g++) {
			split(groups[g], w, " ")
			name = groups[g]; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", name)
			printf "\"%s\\n%s %s\" %s %s %s\n", name, ratio(ns[w[1]], ns[w[2]]), pname[w[2]],
				ns[w[1]], num(ns[w[2]]) ? ns[w[2]] : "-", num(ns[w[3]]) ? ns[w[3]] : "-" > chart
		}
		close(chart)
	}
}' chart="$chart"
}

# All kernels side by side: the main rows, instructions and ratios.
side_by_side() {
	local i f
	for i in "${!names[@]}"; do
		while IFS= read -r f; do
			[[ -z $f ]] || sed "s/^/$i|/" "$f"
		done <<< "${groups[$i]}"
	done | tr -d '\r' | awk -F'|' -v names="$(printf '%s|' "${names[@]}")" '
	function num(x) { return x != "" && x != "-" }
	$2 == "ROW" { if (!($3 in seen)) { seen[$3] = 1; order[++n] = $3 } ns[$1, $3] = $4; label[$3] = $5 }
	END {
		nk = split(names, kn, "|") - 1
		if (nk < 2) exit
		peer["count"] = "perf_stat"; peer["ring"] = "perf_record"; peer["stack"] = "perf_record_g"
		peer["stacktrace"] = "perf_record_g"; peer["hist"] = "perf_record"; peer["floor"] = "perf_stat"
		peer["bare"] = "perf_stat"; peer["regs"] = "perf_record"
		bpeer["count"] = "bpf_count"; bpeer["ring"] = "bpf_print"; bpeer["stack"] = "bpf_kstack"
		bpeer["stacktrace"] = "bpf_kstack"; bpeer["hist"] = "bpf_count"
		print ""
		print "===== All kernels: instructions per write; p = vs the perf peer, b = vs the bpftrace program delivering the same;"
		print "last/first = instructions on the last kernel over the first ====="
		printf "  %-46s", "configuration"
		# Each kernel by its name before the parenthesis ("test kernel").
		for (k = 0; k < nk; k++) { short = kn[k + 1]; sub(/ \(.*/, "", short); printf " %24s", substr(short, 1, 24) }
		printf " %10s\n", "last/first"
		for (i = 1; i <= n; i++) {
			id = order[i]
			printf "  %-46s", label[id]
			for (k = 0; k < nk; k++) {
				v = ns[k, id]; c = num(v) ? sprintf("%.0f", v) : "-"
				if (num(v) && (id in peer) && num(ns[k, peer[id]])) c = c sprintf(" %.2fp", v / ns[k, peer[id]])
				if (num(v) && (id in bpeer) && num(ns[k, bpeer[id]])) c = c sprintf(" %.2fb", v / ns[k, bpeer[id]])
				printf " %24s", c
			}
			v = ns[nk - 1, id]; w = ns[0, id]
			printf " %10s\n", (num(v) && num(w) && w > 0) ? sprintf("%.2fx", v / w) : ""
		}
	}'
}

svg=${KSYM_BENCH_SVG:-}
dats=()
for i in "${!names[@]}"; do
	dat=
	if [[ -n $svg ]]; then
		dat=${svg%.svg}-$i.dat
		rm -f "$dat"
		dats+=("$dat")
	fi
	mapfile -t raws < <(printf '%s' "${groups[$i]}")
	report "${names[$i]}" "$dat" "${raws[@]}"
done
side_by_side

[[ -n $svg ]] || exit 0
rm -f "$svg"
plots=() titles=()
for i in "${!dats[@]}"; do
	if [[ -s ${dats[$i]} ]]; then
		plots+=("${dats[$i]}")
		titles+=("${names[$i]:-this kernel}")
	fi
done
if ((${#plots[@]} == 0)); then
	echo "bench-report: no ksym/perf rows measured, no chart"
	exit 0
fi
if ! command -v gnuplot > /dev/null; then
	echo "bench-report: gnuplot missing (apt-get install gnuplot-nox), no chart"
	exit 0
fi
{
	cat <<GP
set terminal svg size $((800 * ${#plots[@]})),600 dynamic enhanced font 'sans,12' background '#ffffff'
set output '$svg'
set multiplot layout 1,${#plots[@]} title 'Instructions per watched write of ksym\\_hitgen\\_var (QEMU -icount shift=0, same boot)'
set datafile missing '-'
set ylabel 'instructions per access (log scale)'
set logscale y
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left
set grid ytics
set yrange [100:*]
set xtics font ',8'
set bmargin 5
GP
	for i in "${!plots[@]}"; do
		t=${titles[$i]//_/\\\\_}
		cat <<GP
set title '$t'
plot '${plots[$i]}' using 2:xtic(1) title 'ksym' lc rgb '#2a6fb0', \\
	'' using 3 title 'perf (peer)' lc rgb '#c0504d', \\
	'' using 4 title 'bpftrace (same delivery)' lc rgb '#9bbb59', \\
	'' using (\$0 - 0.3):2:(sprintf('%.0f', \$2)) with labels offset 0,0.7 font ',8' notitle, \\
	'' using (\$0):3:(sprintf('%.0f', \$3)) with labels offset 0,0.7 font ',8' notitle, \\
	'' using (\$0 + 0.3):4:(sprintf('%.0f', \$4)) with labels offset 0,0.7 font ',8' notitle
GP
	done
	echo 'unset multiplot'
} | gnuplot
echo "bench-report: chart in $svg"
