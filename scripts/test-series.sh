#!/usr/bin/env bash
# test-series.sh - host test of scripts/series.py's handling of the patches of
# patches/series (make patches), on a tiny pristine repository and project in
# a scratch directory, in a few seconds:
#  1. a patchfile: patch is applied exactly: one that needs fuzz, or applies
#     only at an offset, is refused with the patch's name (refresh it);
#  2. a patchfile: patch that deletes a file (+++ /dev/null) removes it from
#     its commit;
#  3. modes: an upstream file that is 100755 stays 100755 when a patch changes
#     it, and a file a git-style patch creates with "new file mode 100755" is
#     committed 100755 (both used to be written 100644);
#  4. a patch cut into blocks (no patchfile:) that deletes a file is refused,
#     saying why.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCRATCH=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$SCRATCH"' EXIT
g() { git -c user.name=t -c user.email=t@localhost "$@"; }

# The pristine repository: a bare one whose tag "base" holds the tree.
src=$SCRATCH/src
mkdir -p "$src"
seq 1 20 | sed 's/^/line /' > "$src/a.c"
printf '#!/bin/sh\necho one\necho two\necho three\n' > "$src/run.sh"
chmod 755 "$src/run.sh"
printf 'old\nfile\n' > "$src/gone.txt"
P=$SCRATCH/pristine
git init -q --bare "$P"
(
	export GIT_DIR=$P GIT_WORK_TREE=$src
	git add -A
	g commit -q -m base
	git tag base
)

# A project: patches/ and one commit (series.py dates the series by it).
R=$SCRATCH/proj
mkdir -p "$R/patches"
g -C "$R" init -q
series() { # series.py on the project; its stderr in $SCRATCH/err
	python3 "$ROOT/scripts/series.py" --git-dir "$P" --base base --root "$R" \
		--conf "$R/patches/series.conf" --branch t > "$SCRATCH/out" 2> "$SCRATCH/err"
}
use() { # use PATCHFILE [PATCHFILE-STANZA=yes]: the series is that one patch
	echo "$1" > "$R/patches/series"
	{
		echo "patch: one"
		echo "subject: test: one"
		if [[ ${2:-yes} == yes ]]; then
			echo "patchfile: $1"
		else
			echo "upstream: a.c ^line"
		fi
		echo "| body"
	} > "$R/patches/series.conf"
	g -C "$R" add -A
	g -C "$R" commit -q --allow-empty -m "$1"
}
mode_of() { git --git-dir "$P" ls-tree t -- "$1" | awk '{print $1}'; }
has() { git --git-dir "$P" cat-file -e "t:$1" 2> /dev/null; }
err_has() { grep -q -- "$1" "$SCRATCH/err"; }

# 1. Exact, fuzz, offset.
cat > "$R/patches/exact.patch" <<'EOF'
--- a/a.c
+++ b/a.c
@@ -8,6 +8,7 @@
 line 8
 line 9
 line 10
+added
 line 11
 line 12
 line 13
EOF
use exact.patch
host_check "an exact patch is applied" series
host_check "its line is in the commit" \
	bash -c "git --git-dir '$P' show t:a.c | grep -qx added"
sed 's/^ line 9$/ line nine/' "$R/patches/exact.patch" > "$R/patches/fuzz.patch"
use fuzz.patch
if series; then host_check "a patch that needs fuzz is refused" false; else
	host_check "a patch that needs fuzz is refused, named" err_has "patches/fuzz.patch does not apply"; fi
sed 's/^@@ -8,6 +8,7 @@$/@@ -6,6 +6,7 @@/' "$R/patches/exact.patch" > "$R/patches/offset.patch"
use offset.patch
if series; then host_check "a patch at an offset is refused" false; else
	host_check "a patch at an offset is refused, named" err_has "patches/offset.patch applies only at an offset"; fi

# 2. and 3. A deletion, a 100755 file changed, a 100755 file created.
cat > "$R/patches/dm.patch" <<'EOF'
--- a/gone.txt
+++ /dev/null
@@ -1,2 +0,0 @@
-old
-file
--- a/run.sh
+++ b/run.sh
@@ -2,3 +2,4 @@
 echo one
 echo two
 echo three
+echo four
diff --git a/new.sh b/new.sh
new file mode 100755
--- /dev/null
+++ b/new.sh
@@ -0,0 +1,2 @@
+#!/bin/sh
+echo new
EOF
use dm.patch
host_check "a patch with a deletion and modes is applied" series
host_check "the deleted file is not in the commit" bash -c "! git --git-dir '$P' cat-file -e t:gone.txt 2> /dev/null"
host_check "a changed 100755 file stays 100755" \
	bash -c "[[ \$(git --git-dir '$P' ls-tree t -- run.sh | awk '{print \$1}') == 100755 ]] &&
		git --git-dir '$P' show t:run.sh | grep -qx 'echo four'"
host_check "a created 100755 file is 100755" test "$(mode_of new.sh)" = 100755
host_check "an untouched file is still there" has a.c

# 4. A deletion in a patch cut into blocks.
cp "$R/patches/dm.patch" "$R/patches/cutdel.patch"
use cutdel.patch no
if series; then host_check "a deletion in a block-cut patch is refused" false; else
	host_check "a deletion in a block-cut patch is refused, saying why" \
		err_has "patches/cutdel.patch deletes gone.txt"; fi

host_done test-series
