#!/usr/bin/env bash
# make-patches.sh - write the project as a git format-patch series against the
# plain 6.12 tree, into build/patches/ (make patches).
#
#  1. Keeps build/pristine, a bare git repository with one commit (tag "base"):
#     the unpacked /usr/src/linux-source-6.12.tar.xz, made once (about 1 min).
#  2. scripts/series.py commits the project on top of base, one commit per
#     stanza of patches/series.conf (whole overlay files plus blocks of the
#     upstream files that patches/series changes), on branch ksym-series.
#  3. git format-patch base..ksym-series -o build/patches, with a cover letter.
# The result is what `make patches-check` applies and builds.
# Restartable: step 1 works in build/pristine.new and build/pristine.unpack.PID
# under a lock (build/pristine.lock), removes them on any exit (Ctrl-C, kill,
# error) and, on entry, what a run killed outright (SIGKILL) left; step 3
# writes build/patches.new and renames it.
# Env: KSYM_PATCHES_REV (take the project files from this commit, e.g. HEAD,
# instead of the working tree), KSYM_PATCHES_OUT (default build/patches),
# KSYM_PRISTINE (default build/pristine), KSYM_TARBALL.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PRISTINE=${KSYM_PRISTINE:-$BUILD/pristine}
OUT=${KSYM_PATCHES_OUT:-$BUILD/patches}
REV=${KSYM_PATCHES_REV:-}
CONF=$ROOT/patches/series.conf
BRANCH=ksym-series

start=$SECONDS

# The temporaries of the step running now: removed however the script ends.
# Ctrl-C and kill end it through exit, so that the EXIT trap runs.
tmp_paths=()
remove_tmp() { ((${#tmp_paths[@]} == 0)) || rm -rf "${tmp_paths[@]}"; }
trap remove_tmp EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ensure_pristine: build/pristine with the tarball as its one commit, tag base.
ensure_pristine() {
	if git --git-dir="$PRISTINE" rev-parse -q --verify 'base^{commit}' > /dev/null 2>&1; then
		return
	fi
	[[ -f $TARBALL ]] || die "$TARBALL missing (make deps installs linux-source-6.12)"
	local t0=$SECONDS tmp top lock
	mkdir -p "$(dirname "$PRISTINE")"
	# One maker at a time; the lock is dropped with the process, even a
	# killed one. Under it, any pristine.new or pristine.unpack.* is what
	# an earlier run left (killed with -9): a half-made repository, which
	# git would take as made ("nothing to commit"), and 1.7 GB of tree.
	exec {lock}> "$PRISTINE.lock"
	flock "$lock"
	if git --git-dir="$PRISTINE" rev-parse -q --verify 'base^{commit}' > /dev/null 2>&1; then
		exec {lock}>&-
		return	# made by the run we waited for
	fi
	top=$(basename "$TARBALL" .tar.xz)
	tmp=$PRISTINE.unpack.$$
	tmp_paths=("$PRISTINE.new" "$tmp")
	rm -rf "$PRISTINE" "$PRISTINE.new" "$PRISTINE".unpack.*
	mkdir -p "$tmp"
	say "making ${PRISTINE#"$ROOT"/}: unpacking $TARBALL and committing it (about 1 min, once)"
	tar -xf "$TARBALL" -C "$tmp"
	[[ -f $tmp/$top/Makefile ]] || die "unexpected tarball layout (no $top/Makefile)"
	git init -q --bare "$PRISTINE.new"
	local version
	version=$(make -s -C "$tmp/$top" kernelversion)
	(
		export GIT_DIR=$PRISTINE.new GIT_WORK_TREE=$tmp/$top
		git config core.bare false
		git config gc.auto 0
		git add -A -f
		GIT_AUTHOR_DATE='2025-01-01T00:00:00Z' GIT_COMMITTER_DATE='2025-01-01T00:00:00Z' \
			git -c user.name=ksym -c user.email=ksym@localhost commit -q \
			-m "Linux $version ($(basename "$TARBALL"))"
		git config core.bare true
		git tag base
		rm -f "$GIT_DIR/index"
	)
	rm -rf "$tmp"
	mv "$PRISTINE.new" "$PRISTINE"
	tmp_paths=()
	exec {lock}>&-
	say "pristine repository made in $(elapsed $((SECONDS - t0)))"
}

[[ -f $CONF ]] || die "${CONF#"$ROOT"/} missing"
ensure_pristine
if [[ -n $REV ]]; then
	git -C "$ROOT" rev-parse -q --verify "$REV^{commit}" > /dev/null || die "KSYM_PATCHES_REV=$REV: no such commit"
	say "project files from commit $(git -C "$ROOT" rev-parse --short "$REV") ($REV)"
	# The configuration of the commit, not of the working tree.
	git -C "$ROOT" show "$REV:patches/series.conf" > "$BUILD/series.conf.rev"
	CONF=$BUILD/series.conf.rev
else
	say "project files from the working tree"
fi

cover=$BUILD/series-cover.txt
tip=$(python3 "$ROOT/scripts/series.py" --git-dir "$PRISTINE" --base base --root "$ROOT" \
	--conf "$CONF" --branch "$BRANCH" --cover-out "$cover" ${REV:+--rev "$REV"})

# Into OUT.new, then in place of OUT: an interrupted run leaves the last
# whole series, never part of one (patches-check would take it as whole).
tmp_paths=("$OUT.new")
rm -rf "$OUT.new"
mkdir -p "$OUT.new"
git --git-dir="$PRISTINE" format-patch -q --cover-letter --no-signature -o "$OUT.new" base.."$tip" > /dev/null
# The cover letter: subject and blurb from series.conf.
letter=$(find "$OUT.new" -name '0000-cover-letter.patch')
if [[ -n $letter && -s $cover ]]; then
	python3 - "$letter" "$cover" << 'EOF'
import sys
letter, cover = sys.argv[1], sys.argv[2]
subject, _, blurb = open(cover).read().partition("\n")
text = open(letter).read()
text = text.replace("*** SUBJECT HERE ***", subject.strip(), 1)
text = text.replace("*** BLURB HERE ***", blurb.strip("\n"), 1)
open(letter, "w").write(text)
EOF
fi
rm -rf "$OUT"
mv "$OUT.new" "$OUT"
tmp_paths=()

n=0
while IFS= read -r p; do
	n=$((n + 1))
	printf '  %s  %s\n' "$(basename "$p")" \
		"$(grep -m1 -E '^ [0-9]+ files? changed' "$p" | sed 's/^ //')"
done < <(find "$OUT" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | LC_ALL=C sort)
say "$n patches in ${OUT#"$ROOT"/} (branch $BRANCH of ${PRISTINE#"$ROOT"/}), $(elapsed $((SECONDS - start)))"
