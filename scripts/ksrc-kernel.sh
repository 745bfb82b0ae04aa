#!/usr/bin/env bash
# ksrc-kernel.sh - build the ksym tracer against a user's own 6.12 tree
# (make kernel KSRC=/path/to/linux), the upstream way: the series of make
# patches applied with git am, built out of tree.
#
# KSRC must be a git work tree of Linux 6.12.y with no uncommitted changes to
# tracked files; anything else is refused with the reason. The user's checkout
# is left alone: the series is applied in build/ksrc/linux-source-6.12, a git worktree of
# KSRC's repository at its HEAD (detached), and the kernel is built from there
# by scripts/build-kernel.sh (tinyconfig + config/ksym.config) into
# build/ksrc/obj; modules in build/ksrc/modroot. A later run resets the
# worktree to KSRC's HEAD again and re-applies the series, so only files that
# changed are rebuilt. To apply the series to your own branch instead:
#   git -C /path/to/linux am -3 $(ls "$PWD"/build/patches/[0-9]*.patch | grep -v /0000-)
# Env: KSYM_PATCHES_OUT (default build/patches), KSYM_JOBS, KSYM_CC.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KSRC=${1:-${KSRC:-}}
PATCHES=${KSYM_PATCHES_OUT:-$BUILD/patches}
KDIR=$BUILD/ksrc
# Named like build/linux-source-6.12 next to an obj/, so that ccache
# (CCACHE_BASEDIR) can reuse what make kernel and make patches-check compiled.
WT=$KDIR/linux-source-6.12

[[ -n $KSRC ]] || die "usage: make kernel KSRC=/path/to/linux-6.12"
[[ -d $KSRC ]] || die "KSRC=$KSRC: no such directory"
KSRC=$(cd "$KSRC" && pwd)
[[ -f $KSRC/Makefile && -f $KSRC/Kconfig && -d $KSRC/kernel/trace ]] \
	|| die "KSRC=$KSRC is not a Linux source tree (no Makefile, Kconfig, kernel/trace/)"
version=$(make -s -C "$KSRC" kernelversion 2> /dev/null) || die "KSRC=$KSRC: make kernelversion failed"
[[ $version =~ ^6\.12(\.[0-9]+)?(-.*)?$ ]] \
	|| die "KSRC=$KSRC is Linux $version; the series is for 6.12 (6.12.y)"
git -C "$KSRC" rev-parse --is-inside-work-tree > /dev/null 2>&1 \
	|| die "KSRC=$KSRC is not a git work tree: the series is applied with git am (for a tarball tree: git init && git add -A && git commit -m base)"
top=$(git -C "$KSRC" rev-parse --show-toplevel)
[[ $top == "$KSRC" ]] || die "KSRC=$KSRC is not a git work tree of its own (it lies inside $top): the series is applied with git am (for a tarball tree: git init && git add -A && git commit -m base)"
dirty=$(git -C "$KSRC" status --porcelain --untracked-files=no | head -n 5)
[[ -z $dirty ]] || die "KSRC=$KSRC has uncommitted changes; commit or stash them first:
$dirty"
if [[ -f $KSRC/kernel/trace/trace_ksym.c ]]; then
	die "KSRC=$KSRC already has kernel/trace/trace_ksym.c (the series applied?); give the tree it applies to"
fi
head=$(git -C "$KSRC" rev-parse HEAD)

mapfile -t series < <(find "$PATCHES" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' | LC_ALL=C sort)
((${#series[@]} > 0)) || die "no patches in ${PATCHES#"$ROOT"/} (make patches)"

mkdir -p "$KDIR"
# The worktree must belong to KSRC's repository; else make it again.
if [[ -e $WT/.git ]] && [[ $(git -C "$WT" rev-parse --git-common-dir 2> /dev/null) != "$(git -C "$KSRC" rev-parse --path-format=absolute --git-common-dir)" ]]; then
	say "${WT#"$ROOT"/} belongs to another repository: making it again"
	rm -rf "$WT" "$KDIR/obj"
fi
if [[ -e $WT/.git ]]; then
	git -C "$WT" am --abort > /dev/null 2>&1 || true
	git -C "$WT" checkout -q --detach "$head"
	git -C "$WT" reset -q --hard "$head"
	git -C "$WT" clean -qfdx
else
	say "adding a worktree of $KSRC at ${WT#"$ROOT"/} (detached at HEAD $(git -C "$KSRC" rev-parse --short HEAD))"
	rm -rf "$WT"
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$WT" "$head"
fi
say "Linux $version at $(git -C "$KSRC" rev-parse --short HEAD): applying ${#series[@]} patches with git am -3"
if ! git -C "$WT" -c user.name=ksym -c user.email=ksym@localhost am -q -3 "${series[@]}"; then
	git -C "$WT" am --abort > /dev/null 2>&1 || true
	die "the series does not apply to KSRC=$KSRC (Linux $version); see the git am messages above"
fi

KSYM_TREE=$WT KSYM_OBJ=$KDIR/obj KSYM_BUILD_LOG=$KDIR/kernel-build.log \
	KSYM_CONFIG_MISSING=$KDIR/config-missing.txt KSYM_MODROOT=$KDIR/modroot \
	bash "$ROOT/scripts/build-kernel.sh"
say "kernel of KSRC=$KSRC: ${KDIR#"$ROOT"/}/obj/arch/x86/boot/bzImage; to boot it:"
say "  KSYM_MODROOT=$KDIR/modroot KSYM_INITRD=$KDIR/initramfs.cpio.gz bash scripts/make-initramfs.sh"
say "  KSYM_KERNEL=$KDIR/obj/arch/x86/boot/bzImage KSYM_INITRD=$KDIR/initramfs.cpio.gz bash scripts/run-vm.sh shell"
