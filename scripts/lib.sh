# shellcheck shell=bash
# lib.sh - helpers shared by the harness scripts; source it, do not run it:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
#
# Sets ROOT (the project), BUILD (build/), TARBALL, TREE (the kernel tree) and
# KSYM_PROG (the name messages start with: the script's name without .sh), and
# exports CCACHE_BASEDIR. Provides say, warn, die, elapsed, ksym_cc (KSYM_CC:
# "ccache gcc" where ccache exists), kmake (make in $TREE with O=$OBJ, CC and
# output into $LOG) and fail (a failed step: the errors and the tail of $LOG).
# Env: KSYM_TARBALL, KSYM_TREE (the defaults of TARBALL and TREE), KSYM_CC,
# KSYM_ARCH (x86_64, the default, or arm64: kmake cross-builds with
# aarch64-linux-gnu-).

# shellcheck disable=SC2034 # used by the scripts that source this file
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build
# shellcheck disable=SC2034
TARBALL=${KSYM_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
TREE=${KSYM_TREE:-$BUILD/linux-source-6.12}
KSYM_PROG=${KSYM_PROG:-$(basename "$0" .sh)}

# Let ccache hit across clones in different directories (CI uses fresh clones).
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}

say() { printf '%s: %s\n' "$KSYM_PROG" "$*"; }
warn() { printf '%s: WARNING: %s\n' "$KSYM_PROG" "$*" >&2; }
die() { printf '%s: ERROR: %s\n' "$KSYM_PROG" "$*" >&2; exit 1; }

# elapsed SECONDS: "1 m 05 s" / "42 s".
elapsed() {
	local s=$1
	if ((s >= 60)); then printf '%d m %02d s' $((s / 60)) $((s % 60)); else printf '%d s' "$s"; fi
}

# The kernel's architecture: KSYM_ARCH, x86_64 (default) or arm64.
KSYM_ARCH=${KSYM_ARCH:-x86_64}
case $KSYM_ARCH in
x86_64) KSYM_CROSS= ;;
arm64) KSYM_CROSS=aarch64-linux-gnu- ;;
*) printf '%s: ERROR: KSYM_ARCH=%s: x86_64 or arm64\n' "$KSYM_PROG" "$KSYM_ARCH" >&2; exit 1 ;;
esac

# The compiler for kernel builds: $KSYM_CC, else ccache gcc, else gcc (the
# cross gcc of KSYM_ARCH).
ksym_cc() {
	if [[ -n ${KSYM_CC:-} ]]; then
		printf '%s\n' "$KSYM_CC"
	elif command -v ccache > /dev/null; then
		printf 'ccache %sgcc\n' "$KSYM_CROSS"
	else
		printf '%sgcc\n' "$KSYM_CROSS"
	fi
}

# kmake ARGS...: make in $TREE with O=$OBJ and CC=$KSYM_CC (ARCH and
# CROSS_COMPILE for arm64), appending to $LOG.
kmake() {
	local cross=()
	[[ $KSYM_ARCH == x86_64 ]] || cross=(ARCH="$KSYM_ARCH" CROSS_COMPILE="$KSYM_CROSS")
	make -C "$TREE" O="$OBJ" "${cross[@]}" CC="$KSYM_CC" "$@" >> "$LOG" 2>&1
}

# fail WHAT: say what failed, the error lines and the tail of $LOG; exit 1.
fail() {
	say "FAILED: $1 (log: ${LOG#"$ROOT"/}); last lines:"
	grep -E 'error:|Error [0-9]|ERROR:' "$LOG" | head -n 20 || true
	echo "-----"
	tail -n 40 "$LOG"
	exit 1
}

# Host tests (test-*.sh): host_check DESCRIPTION COMMAND... runs the command,
# prints "ok - DESCRIPTION" or "not ok - DESCRIPTION" and counts the failures
# in host_fails; host_done NAME prints the result line and exits 1 on any.
host_fails=0
host_check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok - $what"
	else
		echo "not ok - $what"
		host_fails=$((host_fails + 1))
	fi
}
host_done() {
	if ((host_fails)); then
		echo "$1: $host_fails failed"
		exit 1
	fi
	echo "$1: all passed"
}
