#!/bin/bash
# cover.sh: print the cover letter of the series: harness/cover-letter.txt
# with the patch count, the base and the diffstat of the whole series.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tree=${LRB_TREE:-$top/build/linux}
n=$(grep -vc '^[[:space:]]*\(#\|$\)' "$top/series")
list=$(grep -v '^[[:space:]]*\(#\|$\)' "$top/series" | while read -r p _; do
	printf '  %s\n' "$(sed -n 's/^Subject: //p' "$top/patches/$p" | head -n 1)"; done)
stat=$(grep -v '^[[:space:]]*\(#\|$\)' "$top/series" | while read -r p _; do
	cat "$top/patches/$p"; done | diffstat -p1 -w 70)
awk -v n="$n" -v list="$list" -v stat="$stat" '
	{ gsub(/@N@/, n) }
	/^@DIFFSTAT@$/ { print list; print ""; print stat; next }
	{ print }' "$here/cover-letter.txt"
