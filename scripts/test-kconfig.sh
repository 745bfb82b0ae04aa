#!/usr/bin/env bash
# test-kconfig.sh - host test: the ksym tracer can be configured only where its
# trap semantics hold: x86-64, where a data breakpoint traps after the access,
# and arm64, where it traps before and the breakpoint core steps over it for
# handlers that ask (perf_overflow_step_over(), patches/0005). Elsewhere (a
# third architecture with hardware breakpoints, powerpc) a custom handler may
# trap forever: CONFIG_KSYM_TRACER must not be selectable there with the same
# options. Runs Kconfig only (no compiler for the target needed) in a scratch
# O= dir.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SCRATCH=$(mktemp -d)
trap 'rm -rf "$SCRATCH"' EXIT

[[ -f $TREE/Makefile ]] || { echo "test-kconfig: no kernel tree at $TREE (make tree)" >&2; exit 1; }

# try ARCH: configure with the tracer asked for; print its resulting value.
try() {
	local arch=$1 obj=$SCRATCH/$1
	mkdir -p "$obj"
	make -s -C "$TREE" O="$obj" ARCH="$arch" allnoconfig > /dev/null 2>&1
	"$TREE/scripts/config" --file "$obj/.config" -e PERF_EVENTS -e HW_BREAKPOINT \
		-e FTRACE -e KALLSYMS -e KALLSYMS_ALL -e KSYM_TRACER
	make -s -C "$TREE" O="$obj" ARCH="$arch" olddefconfig > /dev/null 2>&1
	printf '%s HAVE_HW_BREAKPOINT=%s KSYM_TRACER=%s\n' "$arch" \
		"$(grep -c '^CONFIG_HAVE_HW_BREAKPOINT=y' "$obj/.config")" \
		"$(grep -c '^CONFIG_KSYM_TRACER=y' "$obj/.config")"
}

fail=0
out=$(try x86_64)
echo "test-kconfig: $out"
[[ $out == *"HAVE_HW_BREAKPOINT=1 KSYM_TRACER=1" ]] || { echo "test-kconfig: FAIL: x86_64 must allow KSYM_TRACER"; fail=1; }
out=$(try arm64)
echo "test-kconfig: $out"
[[ $out == *"HAVE_HW_BREAKPOINT=1 KSYM_TRACER=1" ]] || { echo "test-kconfig: FAIL: arm64 must allow KSYM_TRACER"; fail=1; }
out=$(try powerpc)
echo "test-kconfig: $out"
[[ $out == *"HAVE_HW_BREAKPOINT=1 KSYM_TRACER=0" ]] || { echo "test-kconfig: FAIL: powerpc must not allow KSYM_TRACER"; fail=1; }
((fail == 0)) && echo "test-kconfig: ok"
exit $fail
