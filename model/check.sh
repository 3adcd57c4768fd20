#!/bin/bash
# model/check.sh: check the Promela model of the LRB protocol with spin.
#   - every step of the model names code that exists (refs.py);
#   - the model verifies exhaustively in both modes (no error), with
#     sequentially consistent memory and with weak memory (-DWEAK);
#   - every mutant is refuted (spin finds a violation): protocol mutants
#     on sequentially consistent memory, one mutant per barrier on weak
#     memory;
#   - LRB-W3 alone may go: LRB-W4 orders the same accesses;
#   - with a snapshot reader (-DSNAP): verifies on both memory models, and
#     its barriers' mutants (LRB-R4, R5, R6, W4) are refuted.
# Runs two spin jobs at a time. Prints a result line per check
# (harness/result.sh), and their count when run on its own.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../harness/result.sh"
counted_run "$@"
src=${1:-$here/../kernel/trace/lrb.c}
# The inline write path is in the header.
hdr=${2:-$here/../include/linux/lrb.h}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Weak memory multiplies the states: one writer fewer (no NMI), and
# sub-buffers of 3 units so that three records wrap the buffer with
# exact fits.
weak="-DWEAK -DNNMI=0 -DSUBSZ=3"

# verify NAME FLAGS...: run spin exhaustively into $work/NAME/out.
verify() {
	local name=$1 d=$work/$1 t0
	shift
	mkdir -p "$d" && cp "$here/lrb.pml" "$d/" || return 1
	t0=$(date +%s)
	(cd "$d" && spin -a "$@" lrb.pml >/dev/null &&
	 gcc -O2 -DSAFETY -DCOLLAPSE -DMEMLIM=8000 -o pan pan.c &&
	 ./pan -m100000 >out 2>&1)
	echo "$(($(date +%s) - t0))" >"$d/time"
}

# errors NAME: print the run's summary; echo its error count, or
# "none" if spin did not finish or did not search every state: a search
# cut short by its depth or memory bound still prints "errors: 0".
incomplete='max search depth too small|reached -DMEMLIM bound|out of memory|Search not completed'
errors() {
	local d=$work/$1 out=$work/$1/out
	[ -f "$out" ] || { echo none; return; }
	grep -E "errors:|states, stored|assertion violated|$incomplete" "$out" |
		sed "s/^ */  $1: /" >&2
	echo "  $1: $(cat "$d/time" 2>/dev/null) s" >&2
	local e
	e=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out")
	# A refutation stops at its first error ("Search not completed"
	# then too); no error found is a proof only of a whole search.
	[ "$e" = 0 ] && grep -qE "$incomplete" "$out" && e=
	echo "${e:-none}"
}

# The jobs: NAME EXPECT FLAGS, EXPECT 0 (verifies) or 1 (refuted).
jobs=()
for mode in DISCARD OVERWRITE; do
	jobs+=("$mode 0 -DMODE=$mode" "WEAK-$mode 0 $weak -DMODE=$mode")
done
for m in COMMIT_EARLY:DISCARD NO_RETRY:DISCARD NO_CC_CHECK:DISCARD \
	 COMMIT_EARLY:OVERWRITE NO_RETRY:OVERWRITE NO_CC_CHECK:OVERWRITE \
	 PUSH_FALLTHROUGH:OVERWRITE MARK_LATE:DISCARD MARK_LATE:OVERWRITE \
	 DISC_LATE:DISCARD DISC_LATE:OVERWRITE; do
	jobs+=("${m%:*}-${m#*:} 1 -DMODE=${m#*:} -DMUTANT_${m%:*}")
done
for m in NO_W1:DISCARD NO_W1:OVERWRITE NO_R1:DISCARD NO_R1:OVERWRITE \
	 NO_R2:DISCARD NO_R2:OVERWRITE NO_W2:DISCARD NO_R3:OVERWRITE \
	 NO_W3+NO_W4:OVERWRITE; do
	f=
	IFS=+ read -ra ms <<<"${m%:*}"
	for x in "${ms[@]}"; do f="$f -DMUTANT_$x"; done
	jobs+=("${m%:*}-${m#*:} 1 $weak -DMODE=${m#*:}$f")
done
jobs+=("NO_W3-OVERWRITE 0 $weak -DMODE=OVERWRITE -DMUTANT_NO_W3")
# Snapshots: a snapshot reader instead of the consuming one.
jobs+=("SNAP-OVERWRITE 0 -DMODE=OVERWRITE -DSNAP"
       "WEAK-SNAP-OVERWRITE 0 $weak -DMODE=OVERWRITE -DSNAP"
       "NO_R6-OVERWRITE 1 -DMODE=OVERWRITE -DSNAP -DMUTANT_NO_R6")
for m in NO_R5 NO_R4 NO_W4; do
	jobs+=("$m-OVERWRITE 1 $weak -DMODE=OVERWRITE -DSNAP -DMUTANT_$m")
done

if "$here/refs.py" "$here/lrb.pml" "$src" "$hdr" >"$work/refs" 2>&1 &&
   [ -s "$work/refs" ]; then
	pass "model steps name existing code ($(wc -l <"$work/refs") steps)"
else
	grep MISSING "$work/refs"; fail "model steps name existing code"
fi

export -f verify
export work here
printf '%s\n' "${jobs[@]}" | xargs -P 2 -I{} bash -c 'set -- {}; n=$1; shift 2; verify "$n" "$@"'

for j in "${jobs[@]}"; do
	set -- $j
	name=$1 expect=$2
	e=$(errors "$name")
	case $name in
	DISCARD|OVERWRITE) what="model verifies, $name mode" ;;
	SNAP-*) what="model with a snapshot reader verifies, ${name#SNAP-} mode" ;;
	WEAK-SNAP-*) what="model with a snapshot reader verifies on weak memory, ${name#WEAK-SNAP-} mode" ;;
	NO_R6-*) what="barrier mutant NO_R6 refuted with a snapshot reader (${name##*-})" ;;
	NO_R5-*|NO_R4-*|NO_W4-*) what="barrier mutant ${name%-*} refuted on weak memory with a snapshot reader (${name##*-})" ;;
	WEAK-*) what="model verifies on weak memory, ${name#WEAK-} mode" ;;
	NO_W3-OVERWRITE) what="without LRB-W3 alone the model still verifies (LRB-W4 orders the same), OVERWRITE" ;;
	NO_[WR][0-9]*) what="barrier mutant ${name%-*} refuted on weak memory (${name##*-})" ;;
	*) what="mutant ${name%-*} refuted (${name##*-})" ;;
	esac
	# Refuted means spin ran and counted errors: not a build failure.
	if [ "$expect" = 0 ]; then
		[[ $e == 0 ]] && pass "$what" || fail "$what"
	else
		[[ $e =~ ^[1-9][0-9]*$ ]] && pass "$what" || fail "$what"
	fi
done
exit "$result_status"
