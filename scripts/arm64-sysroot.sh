#!/usr/bin/env bash
# arm64-sysroot.sh - build build/arm64-sysroot from Debian 12's arm64 packages:
# the user space of the arm64 test VM (make-initramfs.sh with KSYM_ARCH=arm64)
# and the headers and libraries the tools are cross-built against.
#
# Never installs an arm64 package on the host: apt-get download of each .deb
# (cached in build/arm64-debs, so a second run downloads nothing) and dpkg-deb -x
# (each package once, into build/arm64-debs/x/), then the sysroot is the union of
# the chosen packages. Needs the arm64 package lists (scripts/install-deps.sh
# --arm64: dpkg --add-architecture arm64, apt-get update).
#
# Which packages: the roots below, then
#  - for the -dev roots, their Depends, recursively through -dev packages (a
#    package that is not -dev is taken, its own Depends are not followed);
#  - for every package taken, the libraries its ELF files need: each NEEDED
#    soname that no package taken has is looked for among that package's own
#    Depends (lib* first), downloading candidates until one has it; the one
#    that has it is taken and walked in turn. A soname found nowhere is an error.
# So the list follows Debian's packages and their readelf -d, not a guess.
#
# Env: KSYM_ARM64_SYSROOT (default build/arm64-sysroot), KSYM_ARM64_DEBS (the
# .deb cache, default build/arm64-debs), KSYM_NO_PERF=1 (no linux-perf and its
# libraries: about 13 MB of .debs less).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SYSROOT=${KSYM_ARM64_SYSROOT:-$BUILD/arm64-sysroot}
DEBS=${KSYM_ARM64_DEBS:-$BUILD/arm64-debs}
ARCH=arm64
TRIPLE=aarch64-linux-gnu

# What the guest runs: busybox, dash (ftracetest), coreutils (nice), trace-cmd
# with the libtraceevent plugins, perf. What the tools link against: the -dev roots.
run_roots=(busybox-static dash coreutils trace-cmd libtraceevent1-plugin libtracecmd1 libbpf1 libjson-c5)
[[ ${KSYM_NO_PERF:-0} == 1 ]] || run_roots+=(linux-perf)
dev_roots=(libc6-dev libtracefs-dev libtraceevent-dev libtracecmd-dev libbpf-dev libjson-c-dev libdw-dev)

command -v dpkg-deb > /dev/null || die "dpkg-deb missing"
command -v readelf > /dev/null || die "readelf missing (binutils)"
apt-cache show "libc6:$ARCH" > /dev/null 2>&1 ||
	die "no $ARCH package lists (run scripts/install-deps.sh --arm64)"

# Nothing to do when this script, the roots and the package lists are as the
# last time.
key=$( {
	cat "${BASH_SOURCE[0]}"
	echo "${run_roots[*]} ${dev_roots[*]}"
	find /var/lib/apt/lists -maxdepth 1 -name "*_binary-${ARCH}_Packages*" -printf '%f %s %T@\n' | sort
} | sha256sum | cut -d' ' -f1)
if [[ -f $SYSROOT/.ksym-key && $(cat "$SYSROOT/.ksym-key") == "$key" ]]; then
	say "${SYSROOT#"$ROOT"/} up to date ($(wc -l < "$SYSROOT/.ksym-packages") packages)"
	exit 0
fi

mkdir -p "$DEBS/x"
start=$SECONDS
ndownloaded=0
# As root, apt downloads as _apt, who cannot write build/: say that root may.
sandbox=()
((EUID != 0)) || sandbox=(-o APT::Sandbox::User=root)

# Restartable: downloads go to DEBS/.download.PID and each .deb is moved into
# the cache only once whole (apt-get download writes the file under its final
# name: a run cut short would leave a partial .deb that every later run takes
# as cached); extraction and the sysroot are made in .tmp directories. All are
# removed however the run ends (Ctrl-C and kill end it through exit), and the
# downloads of runs killed outright (-9) on the next entry.
tmp_paths=()
remove_tmp() { ((${#tmp_paths[@]} == 0)) || rm -rf "${tmp_paths[@]}"; }
trap remove_tmp EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
for d in "$DEBS"/.download.*; do
	[[ -d $d && ${d##*.} =~ ^[0-9]+$ ]] || continue
	kill -0 "${d##*.}" 2> /dev/null || rm -rf "$d"
done

declare -A debfile=() # package -> its .deb file name (this version)
declare -A taken=()   # package -> 1: in the sysroot
declare -A walked=()  # package -> 1: its ELF files' NEEDED looked at
declare -A soname=()  # soname -> package that has it (among the fetched ones)
declare -A fetched=() # package -> 1: downloaded and extracted (none: no $ARCH build)
declare -A deps=()    # package -> its Depends and Pre-Depends, space-separated
declare -A first=()   # package -> the first alternative of each, space-separated

# Each apt call reads the package lists of two architectures (about 1.5 s here),
# so they are made for many packages at once, in rounds.

# fetch [-o] PKG...: download the .debs not yet in the cache (one apt-get call),
# extract each once, index the shared libraries they have. -o: optional
# packages, skip those that have no $ARCH build (Architecture: all).
fetch() {
	local p v f so new want=() opt=
	if [[ $1 == -o ]]; then opt=1 && shift; fi
	mapfile -t new < <(for p in "$@"; do [[ -n ${fetched[$p]:-} ]] || echo "$p:$ARCH"; done | sort -u)
	((${#new[@]})) || return 0
	# The candidate versions, as apt-get download names the files (an epoch's
	# colon as %3a); apt-cache leaves out the packages with no $ARCH build.
	while read -r p v; do
		f=${p}_${v//:/%3a}_$ARCH.deb
		debfile[$p]=$f
		[[ -f $DEBS/$f ]] || want+=("$p:$ARCH")
	done < <(apt-cache show --no-all-versions "${new[@]}" 2> /dev/null |
		awk '/^Package: /{p = $2} /^Version: /{v = $2} /^Architecture: /{if ($2 == "'"$ARCH"'") print p, v}')
	new=()
	for p in $(printf '%s\n' "$@" | sort -u); do
		[[ -z ${fetched[$p]:-} ]] || continue
		if [[ -n ${debfile[$p]:-} ]]; then
			new+=("$p")
		elif [[ -n $opt ]]; then
			fetched[$p]=none
		else
			die "apt has no $p:$ARCH"
		fi
	done
	if ((${#want[@]})); then
		say "downloading ${want[*]}"
		local dl=$DEBS/.download.$$
		tmp_paths=("$dl")
		rm -rf "$dl"
		mkdir -p "$dl"
		(cd "$dl" && apt-get download -q "${sandbox[@]}" "${want[@]}" > /dev/null) ||
			die "apt-get download ${want[*]} failed"
		mv "$dl"/*.deb "$DEBS/"
		rm -rf "$dl"
		tmp_paths=()
		ndownloaded=$((ndownloaded + ${#want[@]}))
	fi
	for p in "${new[@]}"; do
		f=${debfile[$p]}
		[[ -f $DEBS/$f ]] || die "$DEBS/$f missing after apt-get download"
		if [[ ! -d $DEBS/x/${f%.deb} ]]; then
			tmp_paths=("$DEBS/x/${f%.deb}.tmp")
			rm -rf "$DEBS/x/${f%.deb}.tmp"
			mkdir -p "$DEBS/x/${f%.deb}.tmp"
			dpkg-deb -x "$DEBS/$f" "$DEBS/x/${f%.deb}.tmp"
			mv "$DEBS/x/${f%.deb}.tmp" "$DEBS/x/${f%.deb}"
			tmp_paths=()
		fi
		fetched[$p]=1
		while IFS= read -r so; do
			[[ -n ${soname[$so]:-} ]] || soname[$so]=$p
		done < <(cd "$DEBS/x/${f%.deb}" && find lib usr/lib -name '*.so*' \
			\( -type f -o -type l \) -printf '%f\n' 2> /dev/null)
	done
}

# depends_of PKG...: set deps[PKG] (every alternative and every provider of a
# virtual package) and first[PKG] (the first alternative, a virtual package's
# first provider) from their Depends and Pre-Depends; one apt-cache call.
depends_of() {
	local p new pkg all one
	mapfile -t new < <(for p in "$@"; do [[ -n ${deps[$p]+set} ]] || echo "$p:$ARCH"; done | sort -u)
	((${#new[@]})) || return 0
	while read -r pkg all one; do
		deps[$pkg]=${all//,/ }
		first[$pkg]=${one//,/ }
	done < <(apt-cache depends --no-recommends --no-suggests --no-conflicts --no-breaks \
		--no-replaces --no-enhances "${new[@]}" 2> /dev/null | awk '
		function flush() { if (pkg != "") print pkg, (all == "" ? "-" : all), (one == "" ? "-" : one) }
		function add(n) { sub(/:.*/, "", n); gsub(/[<>]/, "", n); if (!((pkg, n) in seen)) { seen[pkg, n]; all = all n "," } }
		/^[^ ]/ { flush(); pkg = $1; sub(/:.*/, "", pkg); all = one = ""; skip = provider = 0; split("", seen); next }
		/^ [ |](Pre)?Depends: / {
			add($2)
			alt = substr($0, 2, 1) == "|"
			if (skip) { skip = alt; provider = 0; next }
			skip = alt; n = $2
			if (n ~ /^</) { provider = 1; next }
			sub(/:.*/, "", n); one = one n ","; provider = 0; next
		}
		/^    / {
			add($1)
			if (provider) { n = $1; sub(/:.*/, "", n); one = one n ","; provider = 0 }
		}
		END { flush() }')
	for p in "$@"; do
		[[ -n ${deps[$p]+set} ]] || die "apt-cache depends knows no $p:$ARCH"
		[[ ${deps[$p]} != - ]] || deps[$p]=''
		[[ ${first[$p]} != - ]] || first[$p]=''
	done
}

# The -dev closure, a level a round.
level=("${dev_roots[@]}")
while ((${#level[@]})); do
	depends_of "${level[@]}"
	next=()
	for p in "${level[@]}"; do
		[[ -z ${taken[$p]:-} ]] || continue
		taken[$p]=1
		[[ $p == *-dev ]] || continue
		for d in ${first[$p]}; do
			[[ -n ${taken[$d]:-} ]] || next+=("$d")
		done
	done
	level=("${next[@]}")
done
for p in "${run_roots[@]}"; do taken[$p]=1; done
fetch "${!taken[@]}"

# The NEEDED walk, a round for all the packages taken and not walked yet.
while :; do
	todo=()
	for p in "${!taken[@]}"; do [[ -n ${walked[$p]:-} ]] || todo+=("$p"); done
	((${#todo[@]})) || break
	declare -A missing=() # soname -> the package that needs it
	for p in "${todo[@]}"; do
		walked[$p]=1
		while IFS= read -r so; do
			if [[ -n ${soname[$so]:-} ]]; then
				taken[${soname[$so]}]=1
			else
				missing[$so]=$p
			fi
		done < <(find "$DEBS/x/${debfile[$p]%.deb}" -type f \( -perm -u+x -o -name '*.so*' \) -print0 |
			xargs -0 -r readelf -d 2> /dev/null |
			sed -nE 's/.*\(NEEDED\).*\[(.*)\]/\1/p' | sort -u)
	done
	((${#missing[@]})) || continue
	# A soname no package fetched has: look among the Depends of the package
	# that needs it, libraries first.
	depends_of "${missing[@]}"
	libs=() others=()
	for so in "${!missing[@]}"; do
		for c in ${deps[${missing[$so]}]}; do
			[[ -z ${fetched[$c]:-} ]] || continue
			if [[ $c == lib* ]]; then libs+=("$c"); else others+=("$c"); fi
		done
	done
	((${#libs[@]} == 0)) || fetch -o "${libs[@]}"
	for so in "${!missing[@]}"; do
		[[ -n ${soname[$so]:-} ]] || { ((${#others[@]} == 0)) || fetch -o "${others[@]}"; break; }
	done
	for so in "${!missing[@]}"; do
		p=${missing[$so]}
		[[ -n ${soname[$so]:-} ]] ||
			die "$p needs $so ($(grep -rl -F "$so" "$DEBS/x/${debfile[$p]%.deb}" | head -n 1 | sed "s|^$DEBS/x/${debfile[$p]%.deb}||")), which none of its Depends has"
		taken[${soname[$so]}]=1
	done
	unset missing
done

# The sysroot: the union of the packages taken, rebuilt when the list changed.
mapfile -t list < <(for p in "${!taken[@]}"; do echo "${debfile[$p]}"; done | sort)
stamp=$SYSROOT/.ksym-packages
if [[ -f $stamp ]] && [[ "$(cat "$stamp")" == "$(printf '%s\n' "${list[@]}")" ]]; then
	echo "$key" > "$SYSROOT/.ksym-key"
	say "${SYSROOT#"$ROOT"/} up to date: ${#list[@]} packages ($(elapsed $((SECONDS - start))))"
	exit 0
fi
tmp_paths=("$SYSROOT.tmp")
rm -rf "$SYSROOT.tmp"
mkdir -p "$SYSROOT.tmp"
for f in "${list[@]}"; do
	cp -a "$DEBS/x/${f%.deb}/." "$SYSROOT.tmp/"
done
printf '%s\n' "${list[@]}" > "$SYSROOT.tmp/.ksym-packages"
echo "$key" > "$SYSROOT.tmp/.ksym-key"
[[ -e $SYSROOT.tmp/lib/ld-linux-aarch64.so.1 ]] || die "no /lib/ld-linux-aarch64.so.1 in the sysroot"
[[ -d $SYSROOT.tmp/usr/lib/$TRIPLE/pkgconfig ]] || die "no usr/lib/$TRIPLE/pkgconfig in the sysroot"
rm -rf "$SYSROOT"
mv "$SYSROOT.tmp" "$SYSROOT"
tmp_paths=()
size=$(du -c "${list[@]/#/$DEBS/}" | tail -n 1 | cut -f1)
say "${SYSROOT#"$ROOT"/}: ${#list[@]} packages, $((size / 1024)) MB of .debs ($ndownloaded downloaded now), $(du -sh "$SYSROOT" | cut -f1) unpacked ($(elapsed $((SECONDS - start))))"
