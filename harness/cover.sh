#!/bin/bash
# cover.sh: print the cover letter of the series: harness/cover-letter.txt
# with the patch count, the patch list and the diffstat of the whole series.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
patches=$(series_patches)
n=$(wc -l <<<"$patches")
list=$(for p in $patches; do
	printf '  %s\n' "$(sed -n 's/^Subject: //p' "$top/patches/$p" | head -n 1)"; done)
stat=$(for p in $patches; do cat "$top/patches/$p"; done | diffstat -p1 -w 70)
awk -v n="$n" -v list="$list" -v stat="$stat" '
	{ gsub(/@N@/, n) }
	/^@DIFFSTAT@$/ { print list; print ""; print stat; next }
	{ print }' "$here/cover-letter.txt"
