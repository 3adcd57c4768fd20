#!/bin/bash
# tree.sh: make build/linux the base tree (base.sh) with the series applied.
# The tree is extracted once and reused; the series is re-applied with
# quilt (pop everything, push everything), so only the files the series
# touches change.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tree=${LRB_TREE:-$top/build/linux}
. "$here/base.sh"

if [ ! -f "$tree/Makefile" ]; then
	echo "tree: extracting $(base_tarball)"
	base_extract "$tree"
fi
ln -sfn "$top/patches" "$tree/patches"
ln -sfn "$top/series" "$tree/series"
cd "$tree"
export QUILT_PATCHES=patches QUILT_SERIES=series
if [ -d .pc ] && quilt applied >/dev/null 2>&1; then
	quilt pop -aq >/dev/null
fi
# Without fuzz, as git am and make check's patch -p1 -F0 apply them: a
# patch whose context an earlier patch changed must be refreshed.
quilt push -aq --fuzz=0 >/dev/null || {
	echo "tree: $(quilt next) does not apply without fuzz: push it with fuzz and refresh it" >&2
	exit 1
}
echo "tree: $(make -s kernelversion) + $(quilt applied | wc -l) patches"
