#!/usr/bin/env bash
# patches-check.sh - apply the series of make patches to a pristine 6.12 tree,
# build after every patch, run checkpatch --strict on each (make patches-check).
#
#  1. build/series/linux-source-6.12: a git worktree of build/pristine at base
#     (made once; later runs reset it with reset --hard + clean -fdx, so that
#     files the series does not touch keep their mtimes).
#  2. For each build/patches/NNNN-*.patch in order: git am; configure like
#     make kernel (tinyconfig + config/ksym.config + olddefconfig, so that the
#     options a patch adds take effect from that patch on); make -j2 bzImage
#     (+ modules) in build/series/obj, one obj dir for all patches, with ccache;
#     scripts/checkpatch.pl --strict on the patch.
#  3. Every ERROR and WARNING must be on patches/checkpatch-allow.txt (each
#     entry with its reason); CHECKs not on it are shown and counted.
# Prints a line per patch and "N patches, all build, checkpatch: E errors,
# W warnings, C checks"; exits non-zero on a failed git am or build, or an
# ERROR/WARNING not allowed. Logs: build/series/NNNN.build.log, .checkpatch.txt.
# Restartable: a run cut short (Ctrl-C, kill -9) leaves nothing the next one
# trips on (see the lock below). Env: KSYM_JOBS (default 2), KSYM_PATCHES_OUT (default build/patches),
# KSYM_SERIES_DIR (default build/series), KSYM_PATCHES_REV (take
# config/ksym.config from this commit), KSYM_SERIES_NO_BUILD=1 (checkpatch only).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PRISTINE=${KSYM_PRISTINE:-$BUILD/pristine}
PATCHES=${KSYM_PATCHES_OUT:-$BUILD/patches}
SDIR=${KSYM_SERIES_DIR:-$BUILD/series}
# The same relative layout as build/linux-source-6.12 + build/obj, so that
# ccache (CCACHE_BASEDIR) can share results with make kernel.
TREE=$SDIR/linux-source-6.12
OBJ=$SDIR/obj
ALLOW=$ROOT/patches/checkpatch-allow.txt
JOBS=${KSYM_JOBS:-2}
KSYM_CC=$(ksym_cc)
NO_BUILD=${KSYM_SERIES_NO_BUILD:-0}

start=$SECONDS
mapfile -t series < <(find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | LC_ALL=C sort)
((${#series[@]} > 0)) || die "no patches in ${PATCHES#"$ROOT"/} (make patches)"
git --git-dir="$PRISTINE" rev-parse -q --verify 'base^{commit}' > /dev/null 2>&1 \
	|| die "no ${PRISTINE#"$ROOT"/} with a base commit (make patches makes it)"
[[ -f $ALLOW ]] || die "${ALLOW#"$ROOT"/} missing"

mkdir -p "$SDIR" "$OBJ"
fragment=$SDIR/ksym.config
if [[ -n ${KSYM_PATCHES_REV:-} ]]; then
	git -C "$ROOT" show "$KSYM_PATCHES_REV:config/ksym.config" > "$fragment"
else
	cp "$ROOT/config/ksym.config" "$fragment"
fi

# One run at a time: under the lock, what git left locked in the worktree is
# a killed run's (an index.lock stops every later reset; a worktree add cut
# short stays registered "locked" and refuses a new add to the same path).
exec {lock}> "$SDIR/.lock"
flock -n "$lock" || die "another patches-check runs in ${SDIR#"$ROOT"/} (${SDIR#"$ROOT"/}/.lock)"
trap 'exit 130' INT
trap 'exit 143' TERM

# --- 1. a pristine worktree -----------------------------------------------------
t0=$SECONDS
if [[ -f $TREE/.git ]]; then
	wt_admin=$(sed -n 's/^gitdir: //p' "$TREE/.git")
	[[ -z $wt_admin ]] || rm -f "$wt_admin/index.lock" "$wt_admin/HEAD.lock"
fi
if [[ -e $TREE/.git ]]; then
	git -C "$TREE" am --abort > /dev/null 2>&1 || true
	git -C "$TREE" checkout -q --detach base
	git -C "$TREE" reset -q --hard base
	git -C "$TREE" clean -qfdx
else
	say "making the worktree ${TREE#"$ROOT"/} (once, about a minute)"
	rm -rf "$TREE"
	# A registration a killed add left "locked" would not be pruned, and
	# would refuse the add.
	rm -f "$PRISTINE/worktrees/$(basename "$TREE")/locked"
	git --git-dir="$PRISTINE" worktree prune
	git --git-dir="$PRISTINE" worktree add -q --detach "$TREE" base
fi
[[ -z $(git -C "$TREE" status --porcelain | head -n 1) ]] || die "${TREE#"$ROOT"/} is not clean after the reset"
say "pristine $(make -s -C "$TREE" kernelversion) in ${TREE#"$ROOT"/} ($(elapsed $((SECONDS - t0)))), ${#series[@]} patches, obj ${OBJ#"$ROOT"/}, -j$JOBS, CC=\"$KSYM_CC\""

# classify CHECKPATCH_OUTPUT: "E W C uE uW uC" (all, then the ones not allowed)
# on the first line, then the reports not allowed.
classify() {
	python3 - "$ALLOW" "$1" << 'EOF'
import fnmatch, re, sys
allow = []
for n, line in enumerate(open(sys.argv[1]), 1):
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    f = [x.strip() for x in line.split("|")]
    if len(f) != 4 or not f[3]:
        sys.exit("checkpatch-allow.txt:%d: want LEVEL:TYPE | FILE-GLOB | MESSAGE-ERE | reason" % n)
    allow.append((f[0], f[1], re.compile(f[2])))
lines = open(sys.argv[2]).read().splitlines()
counts = {"ERROR": [0, 0], "WARNING": [0, 0], "CHECK": [0, 0]}
bad = []
for i, l in enumerate(lines):
    m = re.match(r"^(ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)", l)
    if not m:
        continue
    level, typ, msg = m.groups()
    where = "-"
    code = ""
    if i + 1 < len(lines):
        w = re.match(r"^#\d+: FILE: ([^:]+):", lines[i + 1])
        if w:
            where = w.group(1)
        if i + 2 < len(lines) and lines[i + 2].startswith("+"):
            code = lines[i + 2]
    # The ERE sees the message, a newline and the reported line of code.
    text = msg + "\n" + code
    ok = any(t == "%s:%s" % (level, typ) and (g == "*" or fnmatch.fnmatch(where, g))
             and rx.search(text) for t, g, rx in allow)
    counts[level][0] += 1
    if not ok:
        counts[level][1] += 1
        bad.append("    %s:%s: %s (%s)" % (level, typ, msg, where if where != "-" else "commit message"))
print(" ".join(str(counts[k][0]) for k in ("ERROR", "WARNING", "CHECK")),
      " ".join(str(counts[k][1]) for k in ("ERROR", "WARNING", "CHECK")))
print("\n".join(bad))
EOF
}

# --- 2. patch by patch ---------------------------------------------------------------
tE=0 tW=0 tC=0 uE=0 uW=0 uC=0 nbuilt=0 status=0 cwarn=0
for i in "${!series[@]}"; do
	p=${series[i]}
	num=$(basename "$p" | cut -c1-4)
	subject=$(awk '/^Subject: /{s=$0; getline; while (/^ /) {s=s $0; getline}; print s; exit}' "$p" \
		| sed 's/^Subject: \[PATCH[^]]*\] //')
	LOG=$SDIR/$num.build.log
	: > "$LOG"
	t0=$SECONDS
	if ! git -C "$TREE" -c user.name=ksym -c user.email=ksym@localhost am -q "$p" >> "$LOG" 2>&1; then
		say "[$num] $subject"
		cat "$LOG"
		die "git am of $(basename "$p") failed"
	fi
	build="not built"
	if [[ $NO_BUILD != 1 ]]; then
		# Configure again when the patch changes a Kconfig file (and for the
		# first patch: the obj dir holds the previous run's .config).
		if ((i == 0)) || [[ ! -f $OBJ/.config ]] \
			|| git -C "$TREE" diff --name-only HEAD~1 HEAD | grep -q '/Kconfig[^/]*$\|^Kconfig'; then
			kmake tinyconfig || fail "[$num] make tinyconfig"
			"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "$fragment" >> "$LOG" 2>&1 \
				|| fail "[$num] merge_config.sh"
			kmake olddefconfig || fail "[$num] make olddefconfig"
		fi
		targets=(bzImage)
		if grep -q '^CONFIG_MODULES=y' "$OBJ/.config"; then targets+=(modules); fi
		if ! kmake -j"$JOBS" "${targets[@]}"; then
			say "[$num] $subject"
			fail "[$num] make ${targets[*]} after $(basename "$p")"
		fi
		nbuilt=$((nbuilt + 1))
		cw=$(grep -E '^[^ ]*ksym[^ ]*:[0-9]+:[0-9]+: warning:' "$LOG" | LC_ALL=C sort -u | wc -l || true)
		cwarn=$((cwarn + cw))
		build="builds ($(elapsed $((SECONDS - t0))))"
		((cw == 0)) || build="builds ($(elapsed $((SECONDS - t0))), $cw compiler warning(s) in ksym files)"
	fi
	cp_out=$SDIR/$num.checkpatch.txt
	(cd "$TREE" && ./scripts/checkpatch.pl --strict --show-types --no-color "$p" > "$cp_out" 2>&1) || true
	res=$(classify "$cp_out")
	read -r e w c ue uw uc <<< "$(head -n 1 <<< "$res")"
	tE=$((tE + e)) tW=$((tW + w)) tC=$((tC + c)) uE=$((uE + ue)) uW=$((uW + uw)) uC=$((uC + uc))
	note=
	if ((ue + uw + uc > 0)); then note=", not allowed: $ue E, $uw W, $uc C"; fi
	((ue + uw == 0)) || status=1
	printf '%s: [%s] %-64.64s %s; checkpatch %d E, %d W, %d C%s\n' "$KSYM_PROG" "$num" "$subject" "$build" "$e" "$w" "$c" "$note"
	tail -n +2 <<< "$res" | sed '/^$/d'
done

if [[ $NO_BUILD == 1 ]]; then
	verdict="not built (KSYM_SERIES_NO_BUILD=1)"
else
	verdict="all build"
	# What of the fragment did not take with the whole series applied.
	missing=0
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		if [[ ${BASH_REMATCH[2]} == n ]]; then
			! grep -q "^${BASH_REMATCH[1]}=" "$OBJ/.config" || missing=$((missing + 1))
		else
			grep -qxF "$line" "$OBJ/.config" || missing=$((missing + 1))
		fi
	done < "$fragment"
	((missing == 0)) || say "note: $missing setting(s) of config/ksym.config did not take on the full series (see make kernel's check)"
fi
say "${#series[@]} patches, $verdict, checkpatch: $tE errors, $tW warnings, $tC checks"
say "  not on ${ALLOW#"$ROOT"/}: $uE errors, $uW warnings, $uC checks; compiler warnings in ksym files: $cwarn"
say "  total time $(elapsed $((SECONDS - start)))"
if ((status != 0)); then
	die "checkpatch ERRORs or WARNINGs not on ${ALLOW#"$ROOT"/} (listed above)"
fi
