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
	# tools/ksym-ctl reads trace.dat files with libtracecmd
	libtracecmd-dev
	# make lint
	shellcheck
	# tools/kshark-ksym: KernelShark plugin, its headless and Xvfb tests
	kernelshark libkshark-dev libjson-c-dev g++ xvfb imagemagick xdotool
)
if [[ ${1:-} == --bench ]]; then
	packages=(gnuplot-nox gdb bpftrace)
fi

missing=()
for p in "${packages[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2> /dev/null || true)
	[[ $st == installed ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
	echo "install-deps: all ${#packages[@]} packages installed"
	exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=()
if ((EUID != 0)); then
	command -v sudo > /dev/null || { echo "install-deps: not root and no sudo" >&2; exit 1; }
	sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
