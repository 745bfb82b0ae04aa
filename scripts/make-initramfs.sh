#!/usr/bin/env bash
# make-initramfs.sh - build build/initramfs.cpio.gz, the root file system of the test VM.
#
# Contents: busybox-static with a symlink per applet; /init = scripts/guest-init.sh;
# Debian's dash (ftracetest runs under it) and coreutils' nice;
# Debian's perf (unless KSYM_NO_PERF=1) with its shared libraries;
# /ftrace = the tree's tools/testing/selftests/ftrace (ftracetest, test.d, helpers)
# with the project's selftests/ftrace/ copied over it (our cases in test.d/ksym/);
# /lib/modules from build/modroot; Debian's trace-cmd with its shared libraries,
# the dynamic loader and the libtraceevent plugins. /dev/console comes from the
# kernel's built-in default initramfs, which this archive is unpacked over.
# Env: KSYM_STAGE (staging directory), KSYM_INITRD (output archive), so that
# differently filled archives can be built side by side; KSYM_MODROOT (the
# modules_install root to copy /lib/modules from, default build/modroot).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

STAGE=${KSYM_STAGE:-$ROOT/build/initramfs-root}
OUT=${KSYM_INITRD:-$ROOT/build/initramfs.cpio.gz}
BUSYBOX=${KSYM_BUSYBOX:-/bin/busybox}
MODROOT=${KSYM_MODROOT:-$ROOT/build/modroot}

[[ -x $BUSYBOX ]] || die "$BUSYBOX missing (make deps installs busybox-static)"
file -L "$BUSYBOX" 2> /dev/null | grep -q 'statically linked' \
	|| ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic executable' \
	|| die "$BUSYBOX is not statically linked (install busybox-static)"
[[ -d $TREE/tools/testing/selftests/ftrace ]] || die "no kernel tree at $TREE (run make tree)"

rm -rf "$STAGE"
mkdir -p "$STAGE"
cd "$STAGE"
mkdir -p bin sbin usr/bin usr/sbin etc proc sys dev tmp run root var/log lib/modules mnt

# busybox and its applets (as listed by busybox itself, e.g. "usr/bin/awk").
install -m 0755 "$BUSYBOX" bin/busybox
while IFS= read -r applet; do
	applet=${applet#/}
	[[ -n $applet && $applet != bin/busybox ]] || continue
	mkdir -p "$(dirname "$applet")"
	[[ -e $applet || -L $applet ]] || ln -s /bin/busybox "$applet"
done < <("$BUSYBOX" --list-full)
[[ -L bin/sh ]] || die "busybox has no sh applet"

# /init
install -m 0755 "$ROOT/scripts/guest-init.sh" init
# The benchmark of make bench.
install -D -m 0755 "$ROOT/bench/ksym-bench.sh" bench/ksym-bench.sh

printf 'root:x:0:0:root:/root:/bin/sh\n' > etc/passwd
printf 'root:x:0:\n' > etc/group
printf '/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n' > etc/ld.so.conf
# Loopback names for trace-cmd listen / record -N (getnameinfo) and ping.
printf '127.0.0.1\tlocalhost ksym-vm\n::1\tlocalhost\n' > etc/hosts
printf 'hosts: files\n' > etc/nsswitch.conf
ln -s /proc/mounts etc/mtab

# ftracetest: the kernel's own runner and test cases, then the project's cases.
cp -a "$TREE/tools/testing/selftests/ftrace" ftrace
rm -rf ftrace/logs
if [[ -d $ROOT/selftests/ftrace ]]; then
	cp -a "$ROOT/selftests/ftrace/." ftrace/
fi
mkdir -p ftrace/test.d/ksym
nksym=$(find ftrace/test.d/ksym -name '*.tc' | wc -l)

# Kernel modules.
if [[ -d $MODROOT/lib/modules ]]; then
	cp -a "$MODROOT/lib/modules/." lib/modules/
fi

# trace-cmd and everything it loads, at the same paths as on the host.
copy_with_libs() { # file...
	local f lib
	for f in "$@"; do
		mkdir -p ".$(dirname "$f")"
		cp -L "$f" ".$f"
		while IFS= read -r lib; do
			[[ -n $lib && ! -e .$lib ]] || continue
			mkdir -p ".$(dirname "$lib")"
			cp -L "$lib" ".$lib"
		done < <(ldd "$f" 2> /dev/null | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p; s/^[[:space:]]*(\/[^ ]+) \(.*/\1/p')
	done
}
TRACE_CMD=$(command -v trace-cmd || true)
[[ -n $TRACE_CMD ]] || die "trace-cmd missing (make deps installs it)"
copy_with_libs "$TRACE_CMD"
# coreutils' nice (busybox-static has none): upstream hist-trigger cases run
# "nice -n 1 ping".
if NICE=$(command -v nice); then copy_with_libs "$NICE"; fi
# Debian's dash, the shell /init runs ftracetest under: busybox sh runs an applet
# such as ping by exec of /proc/self/exe, so sched_process_exec says
# filename=/proc/self/exe, not /bin/ping (upstream's dynstring case greps for it).
DASH=$(command -v dash || true)
[[ -n $DASH ]] || die "dash missing (make deps installs it)"
copy_with_libs "$DASH"
# perf (Debian's linux-perf, 6.1: old enough for record/script of tracepoints on 6.12)
# for the tests that say "requires: perf:program". KSYM_NO_PERF=1 leaves it out.
if [[ ${KSYM_NO_PERF:-0} != 1 ]]; then
	PERF=$(command -v perf || true)
	[[ -n $PERF ]] || die "perf missing (make deps installs linux-perf; KSYM_NO_PERF=1 to go without)"
	copy_with_libs "$PERF"
fi
for d in /usr/lib/x86_64-linux-gnu/traceevent/plugins /usr/lib/x86_64-linux-gnu/trace-cmd/plugins; do
	[[ -d $d ]] || continue
	mapfile -t plugins < <(find "$d" -name '*.so' -type f)
	((${#plugins[@]} == 0)) || copy_with_libs "${plugins[@]}"
done
# Our libtraceevent plugin: trace-cmd report prints ksym_stack and ksym_branches.
make -s -C "$ROOT/tools/ksym-plugin" plugin_ksym.so
install -D -m 0644 "$ROOT/tools/ksym-plugin/plugin_ksym.so" \
	usr/lib/x86_64-linux-gnu/traceevent/plugins/plugin_ksym.so
# ksym-ctl (tools/ksym-ctl) in the PATH, its shared libraries (libtracecmd,
# libtracefs, libtraceevent: those trace-cmd brings too; Debian has no static
# libtracecmd) and the demo that make run shows (/ksym-ctl-demo.sh).
make -s -C "$ROOT/tools/ksym-ctl" ksym-ctl
install -D -m 0755 "$ROOT/tools/ksym-ctl/ksym-ctl" usr/bin/ksym-ctl
mapfile -t ctl_libs < <(ldd "$ROOT/tools/ksym-ctl/ksym-ctl" | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p')
copy_with_libs "${ctl_libs[@]}"
install -m 0755 "$ROOT/tools/ksym-ctl/demo.sh" ksym-ctl-demo.sh
# Static test helpers of the ksym selftests (tools/ksym-tests/*.c), in PATH.
for src in "$ROOT"/tools/ksym-tests/*.c; do
	[[ -e $src ]] || continue
	gcc -static -O2 -Wall -Wextra -Werror -o "usr/bin/$(basename "$src" .c)" "$src" \
		|| die "cannot build $src (gcc, libc6-dev)"
done
# LD_PRELOAD shims of the ksym selftests (tools/ksym-tests/preload/*.c), in
# /usr/lib/ksym-tests: e.g. ksym-slow-fork.so, which makes trace-cmd's
# recorders start late.
mkdir -p usr/lib/ksym-tests
for src in "$ROOT"/tools/ksym-tests/preload/*.c; do
	[[ -e $src ]] || continue
	gcc -shared -fPIC -O2 -Wall -Wextra -Werror \
		-o "usr/lib/ksym-tests/$(basename "$src" .c).so" "$src" \
		|| die "cannot build $src (gcc, libc6-dev)"
done
# The ksym_trace_filter fuzzer (tools/ksym-fuzz, static), run by ksym-fuzz.tc.
make -s -C "$ROOT/tools/ksym-fuzz" ksym-fuzz || die "cannot build tools/ksym-fuzz (gcc, libc6-dev)"
install -D -m 0755 "$ROOT/tools/ksym-fuzz/ksym-fuzz" usr/bin/ksym-fuzz
# Sanity check: the copied loader and libraries run the copied trace-cmd.
loader=$(ldd "$TRACE_CMD" | sed -nE 's/^[[:space:]]*(\/[^ ]+) \(.*/\1/p' | head -n 1)
runs=$(".$loader" --library-path "$STAGE/lib/x86_64-linux-gnu:$STAGE/usr/lib/x86_64-linux-gnu" \
	".$TRACE_CMD" --help 2>&1 | grep -c 'trace-cmd' || true)
((runs > 0)) || die "the copied trace-cmd does not run with the copied libraries"
runs=$(".$loader" --library-path "$STAGE/lib/x86_64-linux-gnu:$STAGE/usr/lib/x86_64-linux-gnu" \
	usr/bin/ksym-ctl --help 2>&1 | grep -c 'ksym-ctl' || true)
((runs > 0)) || die "the copied ksym-ctl does not run with the copied libraries"

# Pack.
find . -print0 | LC_ALL=C sort -z \
	| cpio --null --create --format=newc --owner=0:0 --quiet \
	| gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "$(du -h "$OUT" | cut -f1) ${OUT#"$ROOT"/}: busybox, trace-cmd,$([[ ! -x usr/bin/perf ]] || echo ' perf,') $(find lib/modules -name '*.ko*' | wc -l) module(s), $nksym ksym test case(s)"
