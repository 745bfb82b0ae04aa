#!/usr/bin/env bash
# test-restartable.sh - make patches and make patches-check, cut short, leave
# nothing that fails or fills the disk on the next run (issue 29, item 6).
# On a tarball of a tiny tree (KSYM_TARBALL) in a scratch directory, in a few
# seconds:
#  1. what a make-patches.sh killed with -9 right after its commit left (its
#     build/pristine.new, which made every later run fail with git's "nothing
#     to commit", and an unpacked tree pristine.unpack.PID): the next run
#     makes the pristine repository and leaves neither behind;
#  2. Ctrl-C (SIGINT to the process group) during the pristine step: nothing
#     left, and the next run makes it;
#  3. patches-check.sh after a killed run left its worktree registered but
#     missing ("locked", a cut-short worktree add) and an index.lock: it runs.
# make-patches.sh's later steps (series.py, format-patch) fail on the tiny
# tree; only its pristine step is judged.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

# A tarball laid out as linux-source-6.12's, with a Makefile that answers
# kernelversion.
top=linux-source-6.12
mkdir -p "$SCRATCH/src/$top"
printf 'kernelversion:\n\t@echo 6.12.0\n' > "$SCRATCH/src/$top/Makefile"
echo 'int ksym_test;' > "$SCRATCH/src/$top/init.c"
tar -cJf "$SCRATCH/$top.tar.xz" -C "$SCRATCH/src" "$top"
P=$SCRATCH/pristine
env_mp=(KSYM_TARBALL="$SCRATCH/$top.tar.xz" KSYM_PRISTINE="$P" KSYM_PATCHES_OUT="$SCRATCH/patches-out")

made() { git --git-dir="$P" rev-parse -q --verify 'base^{commit}' > /dev/null 2>&1; }
no_leftovers() { ! compgen -G "$P.unpack.*" > /dev/null && [[ ! -e $P.new ]]; }

# 1. The leftovers of a run killed with -9 after its commit: pristine.new
# holding that commit, and an unpacked tree of a PID that is gone.
git init -q --bare "$P.new"
(
	export GIT_DIR=$P.new GIT_WORK_TREE=$SCRATCH/src/$top
	git config core.bare false
	git add -A -f
	git -c user.name=t -c user.email=t@localhost commit -q -m killed
)
mkdir -p "$P.unpack.999999999/$top"
env "${env_mp[@]}" bash "$ROOT/scripts/make-patches.sh" > "$SCRATCH/mp1.log" 2>&1 || true
host_check "make patches after a run killed with -9: pristine made" made
host_check "make patches after a run killed with -9: no pristine.new, no pristine.unpack.*" no_leftovers
made || sed 's/^/#   /' "$SCRATCH/mp1.log"

# 2. Ctrl-C in the pristine step: tar made slow by a shim, SIGINT to the group.
rm -rf "$P"
mkdir -p "$SCRATCH/bin"
printf '#!/bin/sh\nsleep 20\nexec %s "$@"\n' "$(command -v tar)" > "$SCRATCH/bin/tar"
chmod +x "$SCRATCH/bin/tar"
PATH=$SCRATCH/bin:$PATH timeout -s INT 2 env "${env_mp[@]}" \
	bash "$ROOT/scripts/make-patches.sh" > "$SCRATCH/mp2.log" 2>&1 || true
host_check "make patches interrupted in its pristine step: nothing left behind" no_leftovers
env "${env_mp[@]}" bash "$ROOT/scripts/make-patches.sh" > "$SCRATCH/mp3.log" 2>&1 || true
host_check "make patches after the interrupted run: pristine made" made

# 3. patches-check.sh: one patch on base, checkpatch only.
git clone -q "$P" "$SCRATCH/w"
(
	cd "$SCRATCH/w"
	echo 'int ksym_test2;' >> init.c
	git -c user.name=t -c user.email=t@localhost commit -q -am 'test: one more line'
	git format-patch -q -1 -o "$SCRATCH/patches"
)
S=$SCRATCH/series
env_pc=(KSYM_PRISTINE="$P" KSYM_PATCHES_OUT="$SCRATCH/patches" KSYM_SERIES_DIR="$S"
	KSYM_SERIES_NO_BUILD=1)
pc() { env "${env_pc[@]}" bash "$ROOT/scripts/patches-check.sh" > "$SCRATCH/pc.log" 2>&1; }
host_check "patches-check on the test series" pc
admin=$P/worktrees/$top
rm -rf "${S:?}/$top"
echo initializing > "$admin/locked"
host_check "patches-check after a worktree add killed half-way (registered, locked, missing)" pc
touch "$(sed -n 's/^gitdir: //p' "$S/$top/.git")/index.lock"
host_check "patches-check after a run killed holding the worktree's index.lock" pc
((host_fails == 0)) || sed 's/^/#   /' "$SCRATCH/pc.log"

host_done test-restartable
