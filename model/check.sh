#!/bin/bash
# model/check.sh: check the Promela model of the LRB protocol with spin.
#   - every step of the model names code that exists (refs.py);
#   - the model verifies exhaustively in both modes (no error);
#   - every mutant is refuted (spin finds a violation).
# Prints one "ok:"/"FAIL:" line per check and "N passed, N failed".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../kernel/trace/lrb.c}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

result() {
	if [ "$1" = ok ]; then passed=$((passed + 1)); echo "ok: $2"
	else failed=$((failed + 1)); echo "FAIL: $2"; fi
}

# verify NAME FLAGS...: run spin exhaustively; prints the error count.
verify() {
	local name=$1 d=$work/$1 t0
	shift
	mkdir -p "$d" && cp "$here/lrb.pml" "$d/" || return 1
	t0=$(date +%s)
	(cd "$d" && spin -a "$@" lrb.pml >/dev/null &&
	 gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=6000 -o pan pan.c &&
	 ./pan -m100000 >out 2>&1)
	grep -E 'errors:|states, stored|assertion violated|max search depth too small' "$d/out" |
		sed "s/^ */    $name: /"
	echo "    $name: $(($(date +%s) - t0)) s"
	grep -q 'max search depth too small' "$d/out" && return 2
	sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$d/out"
}

if "$here/refs.py" "$here/lrb.pml" "$src" >"$work/refs" 2>&1; then
	result ok "model steps name existing code ($(wc -l <"$work/refs") steps)"
else
	grep MISSING "$work/refs"; result fail "model steps name existing code"
fi
for mode in DISCARD OVERWRITE; do
	out=$(verify "$mode" -DMODE=$mode)
	head -n -1 <<<"$out"
	e=$(tail -n 1 <<<"$out")
	[[ $e == 0 ]] && result ok "model verifies, $mode mode" || result fail "model verifies, $mode mode"
done
for m in COMMIT_EARLY:DISCARD NO_RETRY:DISCARD NO_CC_CHECK:DISCARD \
	 COMMIT_EARLY:OVERWRITE NO_RETRY:OVERWRITE NO_CC_CHECK:OVERWRITE \
	 PUSH_FALLTHROUGH:OVERWRITE MARK_LATE:DISCARD MARK_LATE:OVERWRITE; do
	mut=${m%:*} mode=${m#*:}
	out=$(verify "$mut-$mode" -DMODE=$mode -DMUTANT_$mut)
	head -n -1 <<<"$out"
	e=$(tail -n 1 <<<"$out")
	# Refuted means spin ran and counted errors: not a build failure.
	[[ $e =~ ^[1-9][0-9]*$ ]] && result ok "mutant $mut refuted ($mode)" ||
		result fail "mutant $mut refuted ($mode)"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
