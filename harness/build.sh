#!/bin/bash
# build.sh ARCH VARIANT: configure and build one kernel out of tree.
#   ARCH    x86_64 | um
#   VARIANT local | irqoff | off | debug | kcsan | planted-NAME
#           (LRB_SYNC_LOCAL, LRB_SYNC_IRQOFF, CONFIG_LRB=n, LRB_SYNC_LOCAL
#           with lockdep+KASAN+UBSAN, LRB_SYNC_LOCAL with KCSAN, and
#           LRB_SYNC_LOCAL with the bug of harness/planted/NAME.patch)
# Output: build/out/ARCH-VARIANT (O= dir; ARCH-planted for every planted
# bug, so that only what a bug changes is rebuilt).  Uses ccache,
# make -j$(nproc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
arch=$1 variant=$2
src=${LRB_TREE:-$top/build/linux}
out=${LRB_OUT:-$top/build/out}/$arch-$variant
mkdir -p "$out"

case $variant in
local) vfrag=$here/config/sync-local.config ;;
irqoff) vfrag=$here/config/sync-irqoff.config ;;
off) vfrag=$here/config/lrb-off.config ;;
planted-*)
	# The bug goes into a copy of the tree (hard links, but real copies
	# of the files any planted bug changes), never into the tree itself.
	patchf=$here/planted/${variant#planted-}.patch
	[ -f "$patchf" ] || { echo "build.sh: no $patchf" >&2; exit 2; }
	vfrag=$here/config/sync-local.config
	copy=$top/build/linux-planted
	rm -rf "$copy"
	cp -al "$src" "$copy"
	for f in $(sed -n 's|^+++ b/||p' "$here"/planted/*.patch | sort -u); do
		cp --remove-destination "$src/$f" "$copy/$f"
	done
	patch -s -p1 -d "$copy" <"$patchf"
	src=$copy
	out=${LRB_OUT:-$top/build/out}/$arch-planted
	mkdir -p "$out"
	;;
debug | kcsan) vfrag=$here/config/$variant.config ;;
*) echo "build.sh: unknown variant '$variant'" >&2; exit 2 ;;
esac

mk=(make -C "$src" O="$out" -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc")
case $arch in
x86_64) mk+=(ARCH=x86_64); image=arch/x86/boot/bzImage ;;
i386) mk+=(ARCH=i386); image=arch/x86/boot/bzImage ;;
arm64) mk+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- CC="ccache aarch64-linux-gnu-gcc")
	image=arch/arm64/boot/Image ;;
um) mk+=(ARCH=um SUBARCH=x86_64); image=linux ;;
*) echo "build.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac

frags=("$here/config/$arch.config" "$vfrag")
# Configure from scratch every time: symbols a patch adds get the values
# the fragments ask for even when an earlier build of this dir ran on a
# shorter series (make check walks it).  Kbuild rebuilds only what a
# changed option touches.
"${mk[@]}" -s tinyconfig >/dev/null
(cd "$out" && KCONFIG_CONFIG=.config "$src/scripts/kconfig/merge_config.sh" \
	-m -O "$out" "$out/.config" "${frags[@]}" >/dev/null)
"${mk[@]}" -s olddefconfig >/dev/null

# Check that every symbol the fragments ask for made it into the config
# (a symbol the current series does not define yet is reported, not fatal).
missing=0
while IFS= read -r line; do
	case $line in CONFIG_*=*) ;; *) continue ;; esac
	grep -qxF "$line" "$out/.config" || { echo "build.sh: note: $line not in $arch-$variant .config"; missing=1; }
done < <(cat "${frags[@]}")

# shellcheck disable=SC2086
"${mk[@]}" -s ${LRB_MAKE_EXTRA:-}
echo "built $out/$image"
