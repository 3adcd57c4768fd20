#!/bin/bash
# cocci.sh: the coccinelle checks of the series, one line per check.
#   tree     scripts/coccinelle/api/lrb.cocci reports nothing on the kernel
#            tree (every file that mentions lrb_reserve);
#   planted  it reports every line marked MISUSE in harness/cocci/lrb-misuse.c
#            and no other line;
#   report   every script of scripts/coccinelle reports nothing on the files
#            the series creates (what make coccicheck MODE=report does,
#            limited to those files).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
tree=${LRB_TREE:-$top/build/linux}
cocci=$tree/scripts/coccinelle/api/lrb.cocci
what=${1:-all}
sp=(spatch -D report --very-quiet --no-includes --include-headers --timeout 120)

case $what in
tree)
	[ -f "$cocci" ] || { echo "no $cocci"; exit 1; }
	mapfile -t files < <(cd "$tree" && grep -rl --include='*.[ch]' --exclude-dir=.pc --exclude-dir=patches 'lrb_reserve' . | sort)
	echo "files using lrb_reserve: ${#files[@]}"
	out=$(cd "$tree" && "${sp[@]}" --cocci-file "$cocci" "${files[@]}" 2>&1)
	echo "$out"
	test -z "$out" ;;
planted)
	out=$("${sp[@]}" --cocci-file "$cocci" "$here/cocci/lrb-misuse.c" 2>&1)
	echo "$out"
	want=$(grep -n '/\* MISUSE \*/' "$here/cocci/lrb-misuse.c" | cut -d: -f1 | sort -n)
	got=$(sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p' <<<"$out" | sort -nu)
	echo "planted: $(echo $want)"
	echo "reported: $(echo $got)"
	[ "$want" = "$got" ] ;;
report)
	mapfile -t files < <(cd "$tree" && ls kernel/trace/lrb*.c include/linux/lrb.h 2>/dev/null)
	bad=0
	for c in $(cd "$tree" && find scripts/coccinelle -name '*.cocci' | sort); do
		grep -q 'virtual report' "$tree/$c" || continue
		out=$(cd "$tree" && "${sp[@]}" -I include -I arch/x86/include --cocci-file "$c" "${files[@]}" 2>&1 | grep -v '^warning:\|^Note:\|^$')
		[ -n "$out" ] && { echo "$c:"; echo "$out"; bad=1; }
	done
	exit $bad ;;
esac
