#!/usr/bin/env bash
# bpftrace-initramfs.sh - a second cpio archive with Debian's bpftrace and
# every shared library it loads, for make bench (the bpftrace rows).
#
# The kernel unpacks concatenated cpio archives one after the other:
# bench/run-bench.sh boots "initramfs + this archive", so neither the test
# initramfs of make check nor its boot time grow. bpftrace links LLVM and
# clang: the archive is some 75 MB (about 200 MB unpacked; the bench boots
# get more memory for it, KSYM_MEM).
#
# Usage: bench/bpftrace-initramfs.sh OUT   (e.g. build/bench-bpftrace.cpio.gz);
# rebuilt only when missing or older than /usr/bin/bpftrace or this script.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib.sh"

OUT=${1:?usage: $0 OUT.cpio.gz}
BPFTRACE=$(command -v bpftrace || true)
[[ -n $BPFTRACE ]] || die "bpftrace missing (scripts/install-deps.sh --bench installs it)"
if [[ -f $OUT && $OUT -nt $BPFTRACE && $OUT -nt ${BASH_SOURCE[0]} ]]; then
	say "${OUT#"$ROOT"/} is up to date"
	exit 0
fi

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
copy() { # file: at the same path under $stage
	mkdir -p "$stage$(dirname "$1")"
	cp -L "$1" "$stage$1"
}
copy "$BPFTRACE"
while IFS= read -r lib; do
	[[ -n $lib ]] && copy "$lib"
done < <(ldd "$BPFTRACE" | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p; s/^[[:space:]]*(\/[^ ]+) \(.*/\1/p')
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null --create --format=newc --owner=0:0 --quiet | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "$(du -h "$OUT" | cut -f1) ${OUT#"$ROOT"/}: $("$BPFTRACE" --version), $(find "$stage" -name '*.so*' | wc -l) libraries"
