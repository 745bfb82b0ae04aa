#!/usr/bin/env bash
# build-kernel.sh - configure and build the test kernel out of tree in build/obj.
#
# The .config is (re)made from "make tinyconfig" + config/ksym.config + olddefconfig
# when it is missing, older than the fragment, or made for another fragment/patch
# stack; then every assignment of the fragment is checked against the result (the
# ones that did not take are listed in build/config-missing.txt and fail the build,
# each named; KSYM_STRICT_CONFIG=0 only warns). Then bzImage and modules are built with
# ccache and the modules installed (stripped) into build/modroot.
# Output goes to build/kernel-build.log; its tail is shown on failure.
# Env: KSYM_JOBS (default 3), KSYM_CC (default "ccache gcc"), KSYM_STRICT_CONFIG (0: warn);
# for a second kernel built side by side (make check-debug): KSYM_OBJ (build
# directory, default build/obj), KSYM_EXTRA_CONFIG (a fragment merged after
# config/ksym.config, e.g. config/ksym-debug.config; its settings win),
# KSYM_BUILD_LOG (default build/kernel-build.log), KSYM_CONFIG_MISSING
# (default build/config-missing.txt), KSYM_MODROOT (default build/modroot);
# KSYM_MAKE_VARS (make variables for the kernel build, e.g. make check-kcsan's
# KCSAN_SANITIZE_trace_ksym.o=y: kernel/trace/Makefile turns KCSAN off for the
# whole directory, a command-line variable wins over it); KSYM_ARCH=arm64
# (make check-arm64: cross-built with aarch64-linux-gnu-, the Image target).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

OBJ=${KSYM_OBJ:-$ROOT/build/obj}
FRAGMENT=$ROOT/config/ksym.config
EXTRA=${KSYM_EXTRA_CONFIG:-}
LOG=${KSYM_BUILD_LOG:-$ROOT/build/kernel-build.log}
MISSING=${KSYM_CONFIG_MISSING:-$ROOT/build/config-missing.txt}
MODROOT=${KSYM_MODROOT:-$ROOT/build/modroot}
JOBS=${KSYM_JOBS:-3}
KSYM_CC=$(ksym_cc)

[[ -f $TREE/Makefile ]] || die "no kernel tree at $TREE (run make tree)"
[[ -z $EXTRA || -f $EXTRA ]] || die "KSYM_EXTRA_CONFIG=$EXTRA: no such file"
fragments=("$FRAGMENT")
[[ -z $EXTRA ]] || fragments+=("$EXTRA")
mkdir -p "$OBJ" "$(dirname "$LOG")" "$(dirname "$MISSING")"
: > "$LOG"

start=$SECONDS

# --- configuration --------------------------------------------------------------
# The stamp ties the .config to the fragment text and to the applied patch stack
# (a patch may add Kconfig symbols the fragment sets).
stamp_now=$({
	cat "${fragments[@]}"
	cat "$TREE/.ksym/applied/stack" 2> /dev/null || true
	cat "$TREE"/.ksym/applied/*.patch 2> /dev/null || true
} | sha256sum | cut -d' ' -f1)
stamp_file=$OBJ/.ksym-config-stamp
reason=
if [[ ! -f $OBJ/.config ]]; then
	reason="no .config"
elif [[ $FRAGMENT -nt $OBJ/.config ]]; then
	reason="config/ksym.config is newer than .config"
elif [[ -n $EXTRA && $EXTRA -nt $OBJ/.config ]]; then
	reason="${EXTRA#"$ROOT"/} is newer than .config"
elif [[ ! -f $stamp_file || $(cat "$stamp_file") != "$stamp_now" ]]; then
	reason="fragment or patch stack changed"
fi
if [[ -n $reason ]]; then
	say "configuring ($reason): tinyconfig + ${fragments[*]#"$ROOT"/}"
	kmake tinyconfig || fail "make tinyconfig"
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$OBJ" "$OBJ/.config" "${fragments[@]}" >> "$LOG" 2>&1 \
		|| fail "merge_config.sh"
	kmake olddefconfig || fail "make olddefconfig"
	printf '%s\n' "$stamp_now" > "$stamp_file"
fi

# Check that every assignment of the fragment(s) made it into .config (the
# last fragment that sets a symbol wins, as in merge_config.sh).
: > "$MISSING"
declare -A want=()
order=()
while IFS= read -r line; do
	[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
	[[ -n ${want[${BASH_REMATCH[1]}]+set} ]] || order+=("${BASH_REMATCH[1]}")
	want[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done < <(cat "${fragments[@]}")
for sym in "${order[@]}"; do
	val=${want[$sym]}
	if [[ $val == n ]]; then
		if grep -q "^$sym=" "$OBJ/.config"; then
			printf '%s (wanted n, got %s)\n' "$sym" "$(grep "^$sym=" "$OBJ/.config" | cut -d= -f2-)" >> "$MISSING"
		fi
	elif ! grep -qxF "$sym=$val" "$OBJ/.config"; then
		got=$(grep -E "^$sym=|^# $sym is not set" "$OBJ/.config" | sed 's/^# .* is not set$/n/; s/^[^=]*=//' || true)
		printf '%s (wanted %s, got %s)\n' "$sym" "$val" "${got:-absent}" >> "$MISSING"
	fi
done
if [[ -s $MISSING ]]; then
	# A test that needs a missing option would only skip: an option that does
	# not take is a build failure, named (KSYM_STRICT_CONFIG=0 only warns).
	if [[ ${KSYM_STRICT_CONFIG:-1} == 0 ]]; then level=WARNING; else level=ERROR; fi
	say "$level: these ${fragments[*]#"$ROOT"/} settings did not take (dependencies not met"
	say "$level: or symbol unknown to this tree); see ${MISSING#"$ROOT"/}:"
	sed "s/^/build-kernel: $level:   /" "$MISSING"
	[[ $level == WARNING ]] || die "the config is incomplete (KSYM_STRICT_CONFIG=0 to build anyway)"
else
	say "config: all settings of ${fragments[*]#"$ROOT"/} took"
fi

# --- build ----------------------------------------------------------------------
case $KSYM_ARCH in
arm64) image=Image image_path=arch/arm64/boot/Image ;;
*) image=bzImage image_path=arch/x86/boot/bzImage ;;
esac
targets=("$image")
if grep -q '^CONFIG_MODULES=y' "$OBJ/.config"; then targets+=(modules); fi
say "make -j$JOBS ${targets[*]} (CC=\"$KSYM_CC\", log: ${LOG#"$ROOT"/})"
read -ra make_vars <<< "${KSYM_MAKE_VARS:-}"
kmake -j"$JOBS" "${make_vars[@]}" "${targets[@]}" || fail "make ${targets[*]}"

rm -rf "$MODROOT"
if [[ " ${targets[*]} " == *" modules "* ]]; then
	kmake INSTALL_MOD_PATH="$MODROOT" INSTALL_MOD_STRIP=1 modules_install \
		|| fail "make modules_install"
fi

# Compiler warnings matter for our code: show them (ccache replays cached ones).
warnings=$(grep -E '(warning|error):' "$LOG" | grep -v '^make' | LC_ALL=C sort -u || true)
if [[ -n $warnings ]]; then
	say "compiler warnings:"
	printf '%s\n' "$warnings" | head -n 50
fi

release=$(cat "$OBJ/include/config/kernel.release")
nmod=$(find "$MODROOT" -name '*.ko*' 2> /dev/null | wc -l)
say "built $release: ${OBJ#"$ROOT"/}/$image_path, $nmod module(s), $((SECONDS - start)) s"
