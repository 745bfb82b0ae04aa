#!/usr/bin/env bash
# install-deps.sh - install the Debian packages that building and testing need.
#
# Checks with dpkg-query first and returns at once when everything is installed;
# otherwise runs apt-get update and apt-get install -y --no-install-recommends of
# the missing ones (as root, or through sudo).
# --bench: only the packages of make bench and make bench-profile (gnuplot-nox,
# for build/bench.svg, and bpftrace, for its rows: make bench goes on without
# them, with no chart or no bpftrace rows; gdb, which make bench-profile
# needs); the other targets never need them.
# --arm64: the packages above and those of the arm64 targets (make check-arm64):
# the cross compiler, QEMU's aarch64 system and user emulators (qemu-user: the
# initramfs's sanity check runs the copied programs), and Debian's arm64
# package lists (dpkg --add-architecture arm64, apt-get update), from which
# scripts/arm64-sysroot.sh downloads the guest's packages (never installed on
# the host).
set -euo pipefail

packages=(
	# kernel build
	gcc make libc6-dev binutils perl python3 bc bison flex libelf-dev libssl-dev
	kmod cpio pkg-config rsync ccache patch xz-utils gzip file
	# BTF of the test kernel (pahole) and ksym-ctl fields (libbpf)
	dwarves libbpf-dev
	# kernel source (/usr/src/linux-source-6.12.tar.xz)
	linux-source-6.12
	# test VM: root file system, tracing tools, QEMU
	busybox-static trace-cmd linux-perf libtracefs-dev libtraceevent-dev qemu-system-x86
	# ftracetest's shell in the VM
	dash
	# tools/ksym-ctl reads trace.dat files with libtracecmd, writes --json
	# with json-c (libjson-c-dev, listed below for KernelShark too)
	libtracecmd-dev
	# ksym-ctl local: a local's place in its frame from DWARF (libdw), and
	# debuginfod's by build ID
	libdw-dev libdebuginfod-dev
	# make lint
	shellcheck
	# tools/kshark-ksym: KernelShark plugin, its headless and Xvfb tests
	kernelshark libkshark-dev libjson-c-dev g++ xvfb imagemagick xdotool
	# tools/fuzz: libFuzzer harnesses (clang -fsanitize=fuzzer)
	clang libclang-rt-14-dev
)
update=
case ${1:-} in
--bench) packages=(gnuplot-nox gdb bpftrace) ;;
--arm64)
	packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu
		qemu-system-arm qemu-user)
	# The arm64 package lists, for apt-get download.
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		echo "install-deps: dpkg --add-architecture arm64"
		if ((EUID != 0)); then sudo dpkg --add-architecture arm64; else dpkg --add-architecture arm64; fi
	fi
	apt-cache show libc6:arm64 > /dev/null 2>&1 || update=1
	;;
'') ;;
*) echo "usage: $0 [--bench|--arm64]" >&2 && exit 2 ;;
esac

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null || true)
	[[ $st == installed ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)) && [[ -z $update ]]; then
	echo "install-deps: all ${#packages[@]} packages installed"
	exit 0
fi

sudo=()
if ((EUID != 0)); then
	command -v sudo > /dev/null || { echo "install-deps: not root and no sudo" >&2; exit 1; }
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
((${#missing[@]} == 0)) || {
	echo "install-deps: installing ${missing[*]}"
	"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
}
