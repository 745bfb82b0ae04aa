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
# KSYM_ARCH=arm64 (default x86_64): the same archive for the arm64 VM, its
# programs and libraries from build/arm64-sysroot (scripts/arm64-sysroot.sh,
# run first; KSYM_ARM64_SYSROOT), the project's tools cross-built into
# build/arm64-tools; defaults build/arm64-initramfs-root,
# build/arm64-initramfs.cpio.gz, build/arm64-modroot. Checked with readelf
# (every NEEDED library in the archive) and, with qemu-aarch64 (qemu-user),
# by running the copied trace-cmd and ksym-ctl.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ARCH=${KSYM_ARCH:-x86_64}
case $ARCH in
x86_64)
	STAGE=${KSYM_STAGE:-$ROOT/build/initramfs-root}
	OUT=${KSYM_INITRD:-$ROOT/build/initramfs.cpio.gz}
	BUSYBOX=${KSYM_BUSYBOX:-/bin/busybox}
	MODROOT=${KSYM_MODROOT:-$ROOT/build/modroot}
	TRIPLE=x86_64-linux-gnu
	;;
arm64)
	STAGE=${KSYM_STAGE:-$ROOT/build/arm64-initramfs-root}
	OUT=${KSYM_INITRD:-$ROOT/build/arm64-initramfs.cpio.gz}
	MODROOT=${KSYM_MODROOT:-$ROOT/build/arm64-modroot}
	TRIPLE=aarch64-linux-gnu
	CROSS=$TRIPLE-
	SYSROOT=${KSYM_ARM64_SYSROOT:-$ROOT/build/arm64-sysroot}
	TOOLS=$ROOT/build/arm64-tools
	command -v "${CROSS}gcc" > /dev/null || die "${CROSS}gcc missing (scripts/install-deps.sh --arm64)"
	KSYM_ARM64_SYSROOT=$SYSROOT bash "$ROOT/scripts/arm64-sysroot.sh"
	BUSYBOX=${KSYM_BUSYBOX:-$SYSROOT/bin/busybox}
	QEMU_USER=$(command -v qemu-aarch64 || true)
	;;
*) die "KSYM_ARCH=$ARCH: x86_64 or arm64" ;;
esac

[[ -x $BUSYBOX ]] || die "$BUSYBOX missing (make deps installs busybox-static)"
file -L "$BUSYBOX" 2> /dev/null | grep -q 'statically linked' \
	|| ldd "$BUSYBOX" 2>&1 | grep -q 'not a dynamic executable' \
	|| die "$BUSYBOX is not statically linked (install busybox-static)"
# The applets, as busybox lists them: arm64's under qemu-aarch64, else the
# host's busybox-static (the same Debian build, the same applets).
list_applets=("$BUSYBOX" --list-full)
if [[ $ARCH == arm64 ]]; then
	if [[ -n $QEMU_USER ]]; then
		list_applets=("$QEMU_USER" "$BUSYBOX" --list-full)
	else
		warn "no qemu-aarch64 (qemu-user): busybox's applets listed by the host's /bin/busybox"
		list_applets=(/bin/busybox --list-full)
	fi
fi
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
done < <("${list_applets[@]}")
[[ -L bin/sh ]] || die "busybox has no sh applet"

# /init
install -m 0755 "$ROOT/scripts/guest-init.sh" init
# The benchmark of make bench.
install -D -m 0755 "$ROOT/bench/ksym-bench.sh" bench/ksym-bench.sh

printf 'root:x:0:0:root:/root:/bin/sh\n' > etc/passwd
printf 'root:x:0:\n' > etc/group
printf '/lib/%s\n/usr/lib/%s\n' "$TRIPLE" "$TRIPLE" > etc/ld.so.conf
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
# The hit generator's .ko with its DWARF (the modules above are stripped,
# INSTALL_MOD_STRIP=1) where Debian's linux-image-*-dbg puts it: ksym-ctl
# local finds it as on a Debian system with the -dbg package.
case $ARCH in
x86_64) KOBJ=${KSYM_OBJ:-$ROOT/build/obj} ;;
arm64) KOBJ=${KSYM_OBJ:-$ROOT/build/obj-arm64} ;;
esac
for rel in lib/modules/*/; do
	rel=$(basename "$rel")
	ko=$(find "lib/modules/$rel" -name ksym_hitgen.ko -printf '%P\n' -quit 2> /dev/null)
	[[ -n $ko && -f $KOBJ/kernel/trace/ksym_hitgen.ko ]] || continue
	install -D -m 0644 "$KOBJ/kernel/trace/ksym_hitgen.ko" \
		"usr/lib/debug/lib/modules/$rel/$ko"
done

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
if [[ $ARCH == arm64 ]]; then
	# The same from the sysroot, by readelf: a file's interpreter and NEEDED
	# libraries (searched in the loader's default directories), recursively.
	sysroot_lib() { # soname: its path in the sysroot's default library directories
		local d
		for d in /lib/$TRIPLE /usr/lib/$TRIPLE /lib /usr/lib; do
			if [[ -e $SYSROOT$d/$1 ]]; then
				printf '%s\n' "$d/$1"
				return 0
			fi
		done
		return 1
	}
	add_needed() { # file in the stage (./path): copy what it loads
		local f=$1 lib so interp
		interp=$(readelf -l "$f" 2> /dev/null | sed -nE 's/.*program interpreter: (\/[^]]+)\]/\1/p')
		if [[ -n $interp && ! -e .$interp ]]; then
			# /lib/ld-linux-aarch64.so.1 -> aarch64-linux-gnu/ld-linux-aarch64.so.1,
			# the file libc.so.6 needs by that name.
			[[ -e $SYSROOT$interp ]] || die "${f#.}: its interpreter $interp is not in $SYSROOT"
			mkdir -p ".$(dirname "$interp")"
			cp -P "$SYSROOT$interp" ".$interp"
			if [[ -L .$interp ]]; then
				lib=$(readlink -f "$SYSROOT$interp")
				lib=${lib#"$SYSROOT"}
				[[ -e .$lib ]] || install -D -m 0755 "$SYSROOT$lib" ".$lib"
			fi
		fi
		for so in $(readelf -d "$f" 2> /dev/null | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'); do
			lib=$(sysroot_lib "$so") || die "${f#.} needs $so, which is not in $SYSROOT"
			[[ ! -e .$lib ]] || continue
			mkdir -p ".$(dirname "$lib")"
			cp -L "$SYSROOT$lib" ".$lib"
			add_needed ".$lib"
		done
	}
	copy_with_libs() { # file... (paths in the sysroot)
		local f
		for f in "$@"; do
			[[ -e $SYSROOT$f ]] || die "$f missing in $SYSROOT"
			mkdir -p ".$(dirname "$f")"
			cp -L "$SYSROOT$f" ".$f"
			add_needed ".$f"
		done
	}
	# The sysroot's paths of the programs the host finds with command -v.
	sysroot_cmd() { # name: its path in the sysroot, or nothing
		local d
		for d in /usr/bin /bin /usr/sbin /sbin; do
			if [[ -f $SYSROOT$d/$1 ]]; then
				printf '%s\n' "$d/$1"
				return 0
			fi
		done
		return 1
	}
	cmd() { sysroot_cmd "$1"; }
	make_tool() { # dir target: cross-build tools/DIR into build/arm64-tools/DIR
		make -s -C "$ROOT/tools/$1" CROSS_COMPILE="$CROSS" SYSROOT="$SYSROOT" O="$TOOLS/$1" "$2"
	}
	tool_out() { printf '%s\n' "$TOOLS/$1/$2"; }
	cc=("${CROSS}gcc" --sysroot="$SYSROOT")
	plugin_src=$SYSROOT
else
	cmd() { command -v "$1"; }
	make_tool() { make -s -C "$ROOT/tools/$1" "$2"; }
	tool_out() { printf '%s\n' "$ROOT/tools/$1/$2"; }
	cc=(gcc)
	plugin_src=
fi
TRACE_CMD=$(cmd trace-cmd || true)
[[ -n $TRACE_CMD ]] || die "trace-cmd missing (make deps installs it)"
copy_with_libs "$TRACE_CMD"
# coreutils' nice (busybox-static has none): upstream hist-trigger cases run
# "nice -n 1 ping".
if NICE=$(cmd nice); then copy_with_libs "$NICE"; fi
# Debian's dash, the shell /init runs ftracetest under: busybox sh runs an applet
# such as ping by exec of /proc/self/exe, so sched_process_exec says
# filename=/proc/self/exe, not /bin/ping (upstream's dynstring case greps for it).
DASH=$(cmd dash || true)
[[ -n $DASH ]] || die "dash missing (make deps installs it)"
copy_with_libs "$DASH"
# perf (Debian's linux-perf, 6.1: old enough for record/script of tracepoints on 6.12)
# for the tests that say "requires: perf:program". KSYM_NO_PERF=1 leaves it out.
if [[ ${KSYM_NO_PERF:-0} != 1 ]]; then
	PERF=$(cmd perf || true)
	[[ -n $PERF ]] || die "perf missing (make deps installs linux-perf; KSYM_NO_PERF=1 to go without)"
	copy_with_libs "$PERF"
fi
for d in /usr/lib/$TRIPLE/traceevent/plugins /usr/lib/$TRIPLE/trace-cmd/plugins; do
	[[ -d $plugin_src$d ]] || continue
	mapfile -t plugins < <(cd "$plugin_src/" && find ".$d" -name '*.so' -type f | sed 's|^\.||')
	((${#plugins[@]} == 0)) || copy_with_libs "${plugins[@]}"
done
# Our libtraceevent plugin: trace-cmd report prints ksym_stack and ksym_branches.
make_tool ksym-plugin plugin_ksym.so
install -D -m 0644 "$(tool_out ksym-plugin plugin_ksym.so)" \
	"usr/lib/$TRIPLE/traceevent/plugins/plugin_ksym.so"
# ksym-ctl (tools/ksym-ctl) in the PATH, its shared libraries (libtracecmd,
# libtracefs, libtraceevent: those trace-cmd brings too; Debian has no static
# libtracecmd) and the demo that make run shows (/ksym-ctl-demo.sh).
make_tool ksym-ctl ksym-ctl
install -D -m 0755 "$(tool_out ksym-ctl ksym-ctl)" usr/bin/ksym-ctl
if [[ $ARCH == arm64 ]]; then
	add_needed ./usr/bin/ksym-ctl
else
	mapfile -t ctl_libs < <(ldd "$ROOT/tools/ksym-ctl/ksym-ctl" | sed -nE 's/.*=> (\/[^ ]+) .*/\1/p')
	copy_with_libs "${ctl_libs[@]}"
fi
install -m 0755 "$ROOT/tools/ksym-ctl/demo.sh" ksym-ctl-demo.sh
# Static test helpers of the ksym selftests (tools/ksym-tests/*.c), in PATH.
for src in "$ROOT"/tools/ksym-tests/*.c; do
	[[ -e $src ]] || continue
	"${cc[@]}" -static -O2 -Wall -Wextra -Werror -o "usr/bin/$(basename "$src" .c)" "$src" \
		|| die "cannot build $src (gcc, libc6-dev)"
done
# LD_PRELOAD shims of the ksym selftests (tools/ksym-tests/preload/*.c), in
# /usr/lib/ksym-tests: e.g. ksym-slow-fork.so, which makes trace-cmd's
# recorders start late.
mkdir -p usr/lib/ksym-tests
for src in "$ROOT"/tools/ksym-tests/preload/*.c; do
	[[ -e $src ]] || continue
	"${cc[@]}" -shared -fPIC -O2 -Wall -Wextra -Werror \
		-o "usr/lib/ksym-tests/$(basename "$src" .c).so" "$src" \
		|| die "cannot build $src (gcc, libc6-dev)"
done
# The ksym_trace_filter fuzzer (tools/ksym-fuzz, static), run by ksym-fuzz.tc.
make_tool ksym-fuzz ksym-fuzz || die "cannot build tools/ksym-fuzz (gcc, libc6-dev)"
install -D -m 0755 "$(tool_out ksym-fuzz ksym-fuzz)" usr/bin/ksym-fuzz
if [[ $ARCH == arm64 ]]; then
	# Sanity check: every ELF file's interpreter and NEEDED libraries are in
	# the archive, and (with qemu-user) the copied trace-cmd and ksym-ctl run
	# on the copied loader and libraries.
	nelf=0
	while IFS= read -r -d '' f; do
		head -c 4 "$f" | grep -q 'ELF' || continue
		nelf=$((nelf + 1))
		interp=$(readelf -l "$f" 2> /dev/null | sed -nE 's/.*program interpreter: (\/[^]]+)\]/\1/p')
		[[ -z $interp || -e .$interp ]] || die "${f#.}: its interpreter $interp is not in the archive"
		[[ -z $interp ]] || readelf -h "$f" | grep -q 'AArch64' || die "${f#.} is not an AArch64 file"
		for so in $(readelf -d "$f" 2> /dev/null | sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p'); do
			[[ -e ./lib/$TRIPLE/$so || -e ./usr/lib/$TRIPLE/$so || -e ./lib/$so || -e ./usr/lib/$so ]] ||
				die "${f#.} needs $so, which is not in the archive"
		done
	done < <(find . -path ./lib/modules -prune -o -type f -print0)
	if [[ -n $QEMU_USER ]]; then
		runs=$("$QEMU_USER" -L "$STAGE" ".$TRACE_CMD" --help 2>&1 | grep -c 'trace-cmd' || true)
		((runs > 0)) || die "the copied trace-cmd does not run with the copied libraries (qemu-aarch64 -L $STAGE)"
		runs=$("$QEMU_USER" -L "$STAGE" usr/bin/ksym-ctl --help 2>&1 | grep -c 'ksym-ctl' || true)
		((runs > 0)) || die "the copied ksym-ctl does not run with the copied libraries (qemu-aarch64 -L $STAGE)"
		if [[ -n ${PERF:-} ]]; then
			"$QEMU_USER" -L "$STAGE" ".$PERF" --version 2>&1 | grep -q '^perf version' ||
				die "the copied perf does not run with the copied libraries (qemu-aarch64 -L $STAGE)"
		fi
		say "$nelf ELF files, all their libraries in the archive; trace-cmd, ksym-ctl$([[ -z ${PERF:-} ]] || echo ', perf') run under qemu-aarch64"
	else
		warn "no qemu-aarch64 (qemu-user): $nelf ELF files checked by readelf only"
	fi
else
	# Sanity check: the copied loader and libraries run the copied trace-cmd.
	loader=$(ldd "$TRACE_CMD" | sed -nE 's/^[[:space:]]*(\/[^ ]+) \(.*/\1/p' | head -n 1)
	runs=$(".$loader" --library-path "$STAGE/lib/x86_64-linux-gnu:$STAGE/usr/lib/x86_64-linux-gnu" \
		".$TRACE_CMD" --help 2>&1 | grep -c 'trace-cmd' || true)
	((runs > 0)) || die "the copied trace-cmd does not run with the copied libraries"
	runs=$(".$loader" --library-path "$STAGE/lib/x86_64-linux-gnu:$STAGE/usr/lib/x86_64-linux-gnu" \
		usr/bin/ksym-ctl --help 2>&1 | grep -c 'ksym-ctl' || true)
	((runs > 0)) || die "the copied ksym-ctl does not run with the copied libraries"
fi

# Pack into OUT.tmp, renamed once whole; removed however the run ends (Ctrl-C
# and kill end it through exit). The staging tree is made afresh each run.
trap 'rm -f "$OUT.tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
find . -print0 | LC_ALL=C sort -z \
	| cpio --null --create --format=newc --owner=0:0 --quiet \
	| gzip -1 > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
say "$(du -h "$OUT" | cut -f1) ${OUT#"$ROOT"/}: busybox, trace-cmd,$([[ ! -x usr/bin/perf ]] || echo ' perf,') $(find lib/modules -name '*.ko*' | wc -l) module(s), $nksym ksym test case(s)"
