#!/usr/bin/env bash
# prepare-tree.sh - make build/linux-source-6.12 the kernel tree this project builds.
#
#  1. Unpacks /usr/src/linux-source-6.12.tar.xz into build/ if the tree is absent.
#  2. Syncs the overlay (kernel/, include/, Documentation/ of the project) into the
#     tree, copying only files whose content differs, so unchanged files keep their
#     mtimes and incremental builds stay short. Overlay files the project has since
#     deleted are removed from the tree again. An overlay file must not replace an
#     upstream file: edits to upstream files belong in patches/.
#  3. Applies patches/series idempotently, quilt style. The applied stack is kept in
#     <tree>/.ksym/applied/, so an edited or removed patch is first reversed with its
#     old text, then the new one applied (a tree edited by hand is judged as it is:
#     a patch whose reverse applies counts as applied). KSYM_NO_PATCHES=1 reverses
#     all of them.
#  4. Prints the exact kernel version.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STATE=$TREE/.ksym
OVERLAY_DIRS=(kernel include Documentation)

# One run at a time per tree: two make targets started together (make bench and
# make bench-arm64, 2026-11-29) raced on the overlay manifest and one failed.
# The lock beside the tree (a file, so the unpack below may replace the tree).
mkdir -p "$(dirname "$TREE")"
exec 9> "$TREE.lock"
flock 9

# --- 1. unpack ------------------------------------------------------------------
# The unpacked tarball (1.7 GB) goes to .unpack.PID beside the tree: removed
# however this run ends (Ctrl-C and kill end it through exit), and those of
# runs killed outright (-9), whose PID is gone, on the next entry.
unpack_tmp=
trap '[[ -z $unpack_tmp ]] || rm -rf "$unpack_tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ ! -f $TREE/Makefile ]]; then
	[[ -f $TARBALL ]] || die "$TARBALL missing (make deps installs linux-source-6.12)"
	parent=$(dirname "$TREE")
	top=$(basename "$TARBALL" .tar.xz)
	mkdir -p "$parent"
	for d in "$parent"/.unpack.*; do
		[[ -d $d && ${d##*.} =~ ^[0-9]+$ ]] || continue
		kill -0 "${d##*.}" 2> /dev/null || rm -rf "$d"
	done
	unpack_tmp=$parent/.unpack.$$
	rm -rf "$parent/.unpack.$$"
	mkdir "$parent/.unpack.$$"
	say "unpacking $TARBALL (about 10 s)"
	tar -xf "$TARBALL" -C "$parent/.unpack.$$"
	[[ -f $parent/.unpack.$$/$top/Makefile ]] || die "unexpected tarball layout (no $top/Makefile)"
	rm -rf "$TREE"
	mv "$parent/.unpack.$$/$top" "$TREE"
	rmdir "$parent/.unpack.$$"
	unpack_tmp=
	mkdir -p "$STATE"
	(cd "$TREE" && find . -path ./.ksym -prune -o ! -type d -print | sed 's|^\./||' | LC_ALL=C sort) \
		> "$STATE/upstream-files"
fi
mkdir -p "$STATE/applied"
if [[ ! -s $STATE/upstream-files ]]; then
	# Tree unpacked by someone else: take the list of upstream files from the tarball.
	say "listing upstream files of $TARBALL once (about 10 s)"
	top=$(basename "$TARBALL" .tar.xz)
	tar -tf "$TARBALL" | grep -v '/$' | sed "s|^$top/||" | LC_ALL=C sort > "$STATE/upstream-files.tmp"
	mv "$STATE/upstream-files.tmp" "$STATE/upstream-files"
fi

# --- 2. overlay -----------------------------------------------------------------
new_manifest=$STATE/overlay-manifest.new
: > "$new_manifest"
for d in "${OVERLAY_DIRS[@]}"; do
	[[ -d $ROOT/$d ]] || continue
	(cd "$ROOT" && find "$d" -type f -print) >> "$new_manifest"
done
LC_ALL=C sort -o "$new_manifest" "$new_manifest"

clash=$(LC_ALL=C comm -12 "$new_manifest" "$STATE/upstream-files")
if [[ -n $clash ]]; then
	die "these overlay files would replace upstream files; put the change in patches/ instead:
$clash"
fi

old_manifest=$STATE/overlay-manifest
[[ -f $old_manifest ]] || : > "$old_manifest"
while IFS= read -r f; do
	[[ -n $f ]] || continue
	say "removing $f (no longer in the overlay)"
	rm -f "$TREE/$f"
done < <(LC_ALL=C comm -23 "$old_manifest" "$new_manifest")

copied=0
for d in "${OVERLAY_DIRS[@]}"; do
	[[ -d $ROOT/$d ]] || continue
	# -c: compare by content; no -t: copied files get a fresh mtime, others keep theirs.
	while IFS= read -r f; do
		[[ -n $f && $f != */ ]] || continue
		say "updated $d/$f"
		copied=$((copied + 1))
	done < <(rsync -rc --out-format='%n' "$ROOT/$d/" "$TREE/$d/")
done
mv "$new_manifest" "$old_manifest"
say "overlay: $(wc -l < "$old_manifest") files, $copied updated"

# --- 3. patches -----------------------------------------------------------------
# Desired stack: patches/series (comments and blank lines ignored), empty with
# KSYM_NO_PATCHES=1.
desired=()
if [[ ${KSYM_NO_PATCHES:-0} != 1 && -f $ROOT/patches/series ]]; then
	while IFS= read -r line; do
		line=${line%%#*}
		read -r name _ <<< "$line" || true
		[[ -n ${name:-} ]] || continue
		[[ -f $ROOT/patches/$name ]] || die "patches/series names $name, which does not exist"
		desired+=("$name")
	done < "$ROOT/patches/series"
fi
applied=()
if [[ -f $STATE/applied/stack ]]; then
	mapfile -t applied < "$STATE/applied/stack"
fi

# Keep the longest prefix where the applied patch is the same file with the same text.
keep=0
while (( keep < ${#applied[@]} && keep < ${#desired[@]} )); do
	[[ ${applied[keep]} == "${desired[keep]}" ]] || break
	cmp -s "$STATE/applied/${applied[keep]}" "$ROOT/patches/${desired[keep]}" || break
	keep=$((keep + 1))
done

# Exactly, as series.py applies them for make patches (no fuzz): a patch
# that no longer fits is refreshed, not guessed into place.
pflags=(-p1 -s -f --fuzz=0 --no-backup-if-mismatch -r /dev/null -d "$TREE")

# A changed patch is reversed and applied again with the ones after it: the
# files whose text ends up as it was keep their time stamp, or one changed
# line in a late patch would rebuild all that includes perf_event.h.
declare -A stamp_before=()
for (( i = keep; i < ${#applied[@]}; i++ )); do
	while read -r f; do
		[[ -f $TREE/$f ]] && stamp_before[$f]="$(stat -c %Y "$TREE/$f") $(sha1sum < "$TREE/$f")"
	done < <(sed -n 's#^+++ b/\([^\t]*\).*#\1#p' "$STATE/applied/${applied[i]}")
done

for (( i = ${#applied[@]} - 1; i >= keep; i-- )); do
	p=${applied[i]}
	if patch "${pflags[@]}" -R --dry-run < "$STATE/applied/$p" > /dev/null 2>&1; then
		say "reversing $p (changed or no longer wanted)"
		patch "${pflags[@]}" -R < "$STATE/applied/$p"
	else
		# The tree was edited behind our back (e.g. the new version applied by
		# hand): forget the record and judge the series against the tree as it is.
		say "WARNING: the recorded $p does not reverse cleanly (tree edited by hand?);"
		say "WARNING: checking patches/series against the tree as it is"
	fi
	rm -f "$STATE/applied/$p"
	printf '%s\n' "${applied[@]:0:i}" | sed '/^$/d' > "$STATE/applied/stack"
done
printf '%s\n' "${applied[@]:0:keep}" | sed '/^$/d' > "$STATE/applied/stack"

for (( i = keep; i < ${#desired[@]}; i++ )); do
	p=${desired[i]}
	if patch "${pflags[@]}" -R --dry-run < "$ROOT/patches/$p" > /dev/null 2>&1; then
		say "$p: already applied"
	elif patch "${pflags[@]}" --dry-run < "$ROOT/patches/$p" > /dev/null 2>&1; then
		say "applying $p"
		patch "${pflags[@]}" < "$ROOT/patches/$p"
	else
		say "$p applies neither forwards nor backwards:"
		patch "${pflags[@]}" --dry-run < "$ROOT/patches/$p" >&2 || true
		die "patch $p does not apply to $TREE (if the tree was edited by hand: make distclean tree)"
	fi
	cp "$ROOT/patches/$p" "$STATE/applied/$p"
	printf '%s\n' "$p" >> "$STATE/applied/stack"
done
for f in "${!stamp_before[@]}"; do
	[[ -f $TREE/$f ]] || continue
	read -r mtime sum _ <<< "${stamp_before[$f]}"
	[[ $(sha1sum < "$TREE/$f") == "$sum  -" ]] && touch -d "@$mtime" "$TREE/$f"
done
say "patches applied: ${#desired[@]}${KSYM_NO_PATCHES:+ (KSYM_NO_PATCHES=$KSYM_NO_PATCHES)}"

# --- 4. version -----------------------------------------------------------------
say "kernel version: $(make -s -C "$TREE" kernelversion)"
