#!/usr/bin/env bash
# record-fixtures.sh - re-record the trace.dat fixtures of the KernelShark
# plugin tests in the test VM (needs the kernel built: make build).
#
# Builds a separate initramfs (build/ks-stage, build/ks-initramfs.cpio.gz) with
# record-fixtures.tc added, boots it, and decodes the files that the case
# prints on the console (gzip | base64 between KSHARK-FIXTURE markers, with a
# sha256 of each) into tools/kshark-ksym/tests/. Kernel messages that land in
# the middle of a base64 line ("[   19.12] ...") are cut out. The exact hits it makes are
# listed in record-fixtures.tc; test_ksym_hits.c expects them.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STAGE=$ROOT/build/ks-stage
INITRD=$ROOT/build/ks-initramfs.cpio.gz
LOG=$ROOT/build/ks-console.log
CASE=test.d/ksym-fixture/record-fixtures.tc

KSYM_STAGE=$STAGE KSYM_INITRD=$INITRD bash "$ROOT/scripts/make-initramfs.sh"
install -D -m 0755 "$HERE/record-fixtures.tc" "$STAGE/ftrace/$CASE"
(cd "$STAGE" && find . -print0 | LC_ALL=C sort -z \
	| cpio --null --create --format=newc --owner=0:0 --quiet | gzip -1) > "$INITRD.tmp"
mv "$INITRD.tmp" "$INITRD"

KSYM_INITRD=$INITRD KSYM_LOG=$LOG KSYM_SUMMARY=$ROOT/build/ks-summary.txt \
	KSYM_TESTS=$CASE KSYM_QUIET=1 bash "$ROOT/scripts/run-vm.sh" test

for f in ksym-hits.dat ksym-event.dat no-ksym.dat; do
	sum=$(tr -d '\r' < "$LOG" | sed -n "s/^KSHARK-FIXTURE-BEGIN $f \([0-9a-f]*\)\$/\1/p")
	[[ -n $sum ]] || { echo "record-fixtures: no $f on the console ($LOG)" >&2; exit 1; }
	tr -d '\r' < "$LOG" \
		| sed -n "/^KSHARK-FIXTURE-BEGIN $f /,/^KSHARK-FIXTURE-END $f\$/p" \
		| sed -E '1d;$d; s/\[ *[0-9]+\.[0-9]+\] .*$//' | tr -cd 'A-Za-z0-9+/=' \
		| base64 -d | gunzip > "$HERE/$f.tmp"
	echo "$sum  $HERE/$f.tmp" | sha256sum -c --quiet \
		|| { echo "record-fixtures: $f garbled on the console" >&2; exit 1; }
	mv "$HERE/$f.tmp" "$HERE/$f"
	echo "record-fixtures: $f $(stat -c %s "$HERE/$f") bytes"
done
