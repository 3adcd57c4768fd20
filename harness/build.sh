#!/bin/bash
# build.sh ARCH VARIANT: configure and build one kernel out of tree.
#   ARCH    x86_64 | um
#   VARIANT local | irqoff | off | debug | kcsan | planted-NAME | lint | lttng
#           (LRB_SYNC_LOCAL, LRB_SYNC_IRQOFF, CONFIG_LRB=n, LRB_SYNC_LOCAL
#           with lockdep+KASAN+UBSAN, LRB_SYNC_LOCAL with KCSAN,
#           LRB_SYNC_LOCAL with the bug of harness/planted/NAME.patch,
#           LRB_SYNC_LOCAL for make check's W=1 and sparse builds, and
#           LRB_SYNC_LOCAL with what LTTng needs, config/lttng.config)
# Output: build/out/ARCH-VARIANT (O= dir; ARCH-planted for every planted
# bug, so that only what a bug changes is rebuilt; the first build of a
# variant starts from a copy of another's, see seed_out).  make -j$(nproc),
# with ccache:
#   - base_dir the top of the work tree: the paths ccache hashes are
#     relative, so that a clone elsewhere (CI's) hits what this one built;
#   - depend mode: a miss compiles once, without the extra preprocessor
#     run that ccache's preprocessor mode makes (a cold x86_64 build:
#     718 s instead of 915 s on 2 cores, session 11).  That mode's
#     fallback hits are what seed_out does without the cache.
set -euo pipefail
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$(dirname "$0")/.." && pwd)}
export CCACHE_DEPEND=${CCACHE_DEPEND:-1}
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
arch=$1 variant=$2
src=${LRB_TREE:-$top/build/linux}
out=${LRB_OUT:-$top/build/out}/$arch-$variant

case $variant in
local | lint) vfrag=$here/config/sync-local.config ;;
irqoff) vfrag=$here/config/sync-irqoff.config ;;
off) vfrag=$here/config/lrb-off.config ;;
planted-*)
	# The bug goes into a copy of the tree (hard links, but real copies
	# of the files any planted bug changes), never into the tree itself.
	# Where a private mount namespace can be had, the copy is mounted
	# over the tree's path in it, so that the build sees the same paths
	# as the LRB_SYNC_LOCAL build it starts from (seed_out) and rebuilds
	# only what the bug changes; elsewhere it builds every object.
	patchf=$here/planted/${variant#planted-}.patch
	[ -f "$patchf" ] || { echo "build.sh: no $patchf" >&2; exit 2; }
	vfrag=$here/config/sync-local.config
	copy=$top/build/linux-planted
	out=${LRB_OUT:-$top/build/out}/$arch-planted
	if [ "${3:-}" = --in-namespace ]; then
		mount --bind "$copy" "$src"
	else
		rm -rf "$copy"
		cp -al "$src" "$copy"
		# The objects of those files are compiled again whatever make's
		# timestamps say: a second make test on one checkout once
		# booted a discard-overrun kernel that behaved as a correct one
		# (the cause was not found; ccache makes this cheap).
		# Their compiles also get a ccache namespace of their own: a
		# result compiled with a bug in it is never served to the
		# kernels under test, whatever the cache holds or however it
		# was filled (CI once booted an LRB_SYNC_LOCAL kernel that
		# failed KUnit as a discard-overrun kernel does).
		export CCACHE_NAMESPACE=$variant
		for f in $(sed -n 's|^+++ b/||p' "$here"/planted/*.patch | sort -u); do
			cp --remove-destination "$src/$f" "$copy/$f"
			case $f in *.c) rm -f "$out/${f%.c}.o" ;; esac
		done
		patch -s -p1 -d "$copy" <"$patchf"
		if unshare --mount --propagation private true 2>/dev/null; then
			exec unshare --mount --propagation private "$0" "$arch" "$variant" --in-namespace
		fi
		src=$copy seed=no
	fi
	;;
debug | kcsan) vfrag=$here/config/$variant.config ;;
lttng) vfrag=$here/config/sync-local.config xfrag=$here/config/lttng.config ;;
*) echo "build.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac
mkdir -p "$out"

# seed_out: a first build of ARCH-VARIANT starts as a copy of a built
# variant of the same ARCH and tree.  Kbuild then rebuilds only the
# objects that depend on an option the variants set differently (fixdep
# records which options each object reads: 58 compiles and 92 s for
# x86_64 LRB_SYNC_IRQOFF after LRB_SYNC_LOCAL, session 11), where a
# build from scratch compiles every object again.
# objtool's own build records its O= path, and every object depends on
# the objtool binary: its records are pointed at the copy, or objtool and
# with it every object would be built again.
seed_out() {
	local base=${LRB_OUT:-$top/build/out} s from
	[ -e "$out/.config" ] && return 0
	for s in local irqoff off; do
		from=$base/$arch-$s
		[ "$from" != "$out" ] && [ -f "$from/.config" ] || continue
		cp -a "$from/." "$out/"
		{ grep -rlF --include='.*.cmd' "$from/" "$out" || true; } |
			xargs -r sed -i "s|$from/|$out/|g"
		echo "build.sh: $arch-$variant starts from a copy of $arch-$s"
		return 0
	done
}
case $variant in local | irqoff | off | lint | planted-*) [ "${seed:-}" = no ] || seed_out ;; esac

mk=(make -C "$src" O="$out" -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc")
case $arch in
x86_64) mk+=(ARCH=x86_64); image=arch/x86/boot/bzImage ;;
i386) mk+=(ARCH=i386); image=arch/x86/boot/bzImage ;;
arm64) mk+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC="ccache aarch64-linux-gnu-gcc")
	image=arch/arm64/boot/Image ;;
s390x) mk+=(ARCH=s390 CROSS_COMPILE=s390x-linux-gnu- CC="ccache s390x-linux-gnu-gcc")
	image=arch/s390/boot/bzImage ;;
um) mk+=(ARCH=um SUBARCH=x86_64); image=linux ;;
*) echo "build.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac

frags=("$here/config/$arch.config" "$vfrag" ${xfrag:+"$xfrag"})
# Configure from scratch every time: symbols a patch adds get the values
# the fragments ask for even when an earlier build of this dir ran on a
# shorter series (make check walks it).  Kbuild rebuilds only what a
# changed option touches.
"${mk[@]}" -s tinyconfig >/dev/null
(cd "$out" && KCONFIG_CONFIG=.config "$src/scripts/kconfig/merge_config.sh" \
	-m -O "$out" "$out/.config" "${frags[@]}" >/dev/null)
"${mk[@]}" -s olddefconfig >/dev/null

# Check that every symbol the fragments ask for made it into the config.
# A symbol of the series (LRB*, SAMPLE_LRB) that the applied patches do
# not define yet is reported, not fatal (make check builds every prefix
# of the series); any other is fatal: a dependency that changed under a
# fragment (SLUB_TINY, which KASAN excludes, is tinyconfig's on 6.12)
# must not build a debug kernel without its sanitizer and let it pass
# for one.
missing=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	grep -qxF "$line" "$out/.config" && continue
	case $line in
	CONFIG_LRB* | CONFIG_SAMPLE_LRB*) echo "build.sh: note: $line not in $arch-$variant .config" ;;
	*) echo "build.sh: $line not in $arch-$variant .config" >&2; missing=1 ;;
	esac
done < <(cat "${frags[@]}")
[ "$missing" = 0 ] || exit 1

# A compressed boot image (x86, s390) links piggy.o, whose piggy.S
# .incbin's the compressed vmlinux: a file its dependency list does not
# name, so ccache's depend mode serves the piggy.o of an earlier vmlinux
# whenever piggy.S and the config match one it compiled (a bzImage that
# booted a kernel of hours before, whose vmlinux was the new one). The
# objects are compiled with the cache; the boot image after them without.
nocache=
case $arch in x86_64 | i386 | s390x)
	if [ -z "${LRB_MAKE_EXTRA:-}" ]; then
		"${mk[@]}" -s vmlinux $(grep -qx 'CONFIG_MODULES=y' "$out/.config" && echo modules)
		find "$out/arch" -name piggy.o -delete
		nocache=1
	fi ;;
esac
# shellcheck disable=SC2086
env ${nocache:+CCACHE_DISABLE=1} "${mk[@]}" -s ${LRB_MAKE_EXTRA:-}
if [ -n "${LRB_MAKE_EXTRA:-}" ]; then
	echo "made $LRB_MAKE_EXTRA in $out"
else
	echo "built $out/$image"
fi
