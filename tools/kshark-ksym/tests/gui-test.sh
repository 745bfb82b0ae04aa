#!/usr/bin/env bash
# gui-test.sh - the ksym plugin in a real KernelShark window, under Xvfb.
#
#   gui-test.sh PLUGIN.so TRACE.dat OUTDIR
#
# Opens TRACE.dat twice in KernelShark 2.2.1 (CPU graphs plus a task graph
# for every task with a ksym_hit): once without the plugin, once with
# "-p PLUGIN.so". Takes a screenshot of each (imagemagick import -window root,
# OUTDIR/ksym-gui-{plain,plugin}.png) and checks, with check-shot.py, that the
# plugin's marker colours (one per watched symbol) make marker stems in the
# graph area with the plugin, and none without; and that the plugin's legends
# (one above each graph with hits) cover no marker pixel (check-shot.py
# --legend: the legends' ink boxes against the markers' pixels, both found by
# colour). With xdotool, it also double clicks a marker and checks that the
# plugin's tooltip box shows (OUTDIR/ksym-gui-tooltip.png).
#
# Facts (design.md): as root KernelShark stops at a modal warning unless
# $KS_USER_CACHE_DIR/setting.ini says noRootWarn=true; it wants
# XDG_RUNTIME_DIR; QT_QPA_PLATFORM=offscreen cannot make a GL context, Xvfb
# can. Prints SKIP and exits 0 when Xvfb, import or kernelshark is missing.
# Env: KSYM_KS_GUI_TIMEOUT (s to wait for the markers, default 60).
set -euo pipefail

PLUGIN=$1
TRACE=$2
OUT=$3
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TIMEOUT=${KSYM_KS_GUI_TIMEOUT:-60}

say() { printf 'kshark-ksym-gui: %s\n' "$*"; }

for cmd in Xvfb import convert kernelshark trace-cmd python3; do
	if ! command -v "$cmd" > /dev/null; then
		say "SKIP: $cmd missing (make deps installs xvfb, imagemagick, kernelshark)"
		exit 0
	fi
done

mkdir -p "$OUT"
work=$(mktemp -d "$OUT/gui.XXXXXX")
xpid=
kpid=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	if [[ -n $kpid ]]; then kill "$kpid" 2> /dev/null || true; wait "$kpid" 2> /dev/null || true; fi
	if [[ -n $xpid ]]; then kill "$xpid" 2> /dev/null || true; wait "$xpid" 2> /dev/null || true; fi
	rm -rf "$work"
}
trap cleanup EXIT

# The tasks that made hits get a task graph each.
pids=$(trace-cmd report -i "$TRACE" 2> /dev/null \
	| sed -nE 's/^ *[^ ].*-([0-9]+) +\[[0-9]+\].* ksym_hit: .*/\1/p' | sort -un | paste -sd, -)
[[ -n $pids ]] || { say "FAIL: no ksym_hit in $TRACE"; exit 1; }

# A free display: Xvfb picks it and writes it to fd 3.
Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp 3> "$work/display" \
	> "$work/xvfb.log" 2>&1 &
xpid=$!
for _ in $(seq 100); do
	[[ -s $work/display ]] && break
	sleep 0.1
done
[[ -s $work/display ]] || { say "FAIL: Xvfb did not start"; cat "$work/xvfb.log"; exit 1; }
DISPLAY=:$(cat "$work/display")
export DISPLAY
unset QT_QPA_PLATFORM WAYLAND_DISPLAY
mkdir -m 0700 "$work/xdg"
export XDG_RUNTIME_DIR=$work/xdg
say "Xvfb on $DISPLAY; task graphs for pid(s) $pids"

# shot NAME ARGS...: run KernelShark with ARGS, screenshot into OUT/NAME.png
# once check-shot.py finds the markers (or at the time limit), then quit it.
shot() {
	local name=$1 png=$OUT/ksym-gui-$1.png i
	shift
	export KS_USER_CACHE_DIR=$work/cache-$name
	mkdir -p "$KS_USER_CACHE_DIR"
	printf '[General]\nnoRootWarn=true\n' > "$KS_USER_CACHE_DIR/setting.ini"
	kernelshark -geometry 1240x980+0+0 "$@" --cpu 0,1 --pid "$pids" "$TRACE" > "$work/ks-$name.log" 2>&1 &
	kpid=$!
	# KernelShark draws a while after mapping its window: take shots until
	# the markers show, or until the time limit (the plain run's last shot).
	for ((i = 0; i < TIMEOUT; i += 2)); do
		sleep 2
		kill -0 "$kpid" 2> /dev/null || { say "FAIL: kernelshark exited"; cat "$work/ks-$name.log"; exit 1; }
		import -window root "$png" 2> /dev/null || continue
		# Wait for the task graphs too: under load they are drawn after
		# the CPU graphs, and a shot taken between fails the check below.
		if [[ $name == plugin ]] &&
			python3 "$HERE/check-shot.py" --quiet --expect-graphs 2 "$png"; then
			tooltip
			break
		fi
		[[ $name == plain ]] && ((i >= 10)) && break
	done
	kill "$kpid" 2> /dev/null || true
	wait "$kpid" 2> /dev/null || true
	kpid=
	sed 's/^/  kernelshark: /' "$work/ks-$name.log" | head -n 20
}

# The tooltip: double-click the head of a marker of the first symbol, the
# plugin pins a box (background #ffffe0) naming the hit beside it.
tip_before=
tip_after=
tooltip() {
	local png=$OUT/ksym-gui-tooltip.png head
	command -v xdotool > /dev/null || { say "tooltip: SKIP (no xdotool)"; return 0; }
	head=$(python3 "$HERE/check-shot.py" --head 0 "$OUT/ksym-gui-plugin.png") || return 0
	tip_before=$(python3 "$HERE/check-shot.py" --count ffffe0 "$OUT/ksym-gui-plugin.png")
	# shellcheck disable=SC2086 # "x y"
	xdotool mousemove $head click --repeat 2 --delay 80 1
	for _ in $(seq 15); do
		sleep 1
		import -window root "$png" 2> /dev/null || continue
		tip_after=$(python3 "$HERE/check-shot.py" --count ffffe0 "$png")
		((tip_after <= 500)) || break
	done
	say "tooltip: double click at $head: $tip_before -> $tip_after tooltip pixels ($png)"
}

shot plain
shot plugin -p "$PLUGIN"

rc=0
say "without the plugin ($OUT/ksym-gui-plain.png):"
if ! python3 "$HERE/check-shot.py" --none "$OUT/ksym-gui-plain.png"; then
	say "FAIL: marker stems without the plugin"
	rc=1
fi
say "with the plugin ($OUT/ksym-gui-plugin.png):"
python3 "$HERE/check-shot.py" --expect-graphs 2 "$OUT/ksym-gui-plugin.png" || rc=1
if ! python3 "$HERE/check-shot.py" --legend --expect-graphs 2 "$OUT/ksym-gui-plugin.png"; then
	say "FAIL: a legend missing or covering markers"
	rc=1
fi
if command -v xdotool > /dev/null && ! ((tip_before == 0 && tip_after > 500)); then
	say "FAIL: no tooltip after a double click on a marker (${tip_before:-?} -> ${tip_after:-?} pixels)"
	rc=1
fi
if ((rc == 0)); then
	say "PASS: markers in both symbol colours, on CPU and task graphs, only with the plugin; legends hide no marker"
	echo "kshark-ksym-gui: 1 passed, 0 failed"
else
	echo "kshark-ksym-gui: 0 passed, 1 failed"
fi
exit $rc
