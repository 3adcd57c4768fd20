#!/bin/bash
# mutants.sh [-n] [NAME...]: tests that cannot pass broken.  Each mutant of
# harness/mutants/list is a bug put in on purpose (a patch); it is applied
# to a copy of what it mutates, the smallest harness command that holds
# the check meant to catch it runs on that copy, and that check must
# print "FAIL: ..." (not ok, not skip, not nothing).  Prints one line per
# mutant,
#   mutant NAME: killed by "CHECK" (N s)
#   mutant NAME: SURVIVED ("CHECK" did not fail) (N s)
# and ends with "mutants: N killed, N survived"; exits 1 if one survived.
#   NAME...  only these mutants (default: every one of the list)
#   -n       run nothing: check the list and that every patch applies
#   LRB_MUTANTS_LIST=FILE  another list (its patches next to it first)
#
# The list (harness/mutants/list), one mutant a line, fields split by "|":
#   NAME | KIND | COMMAND | CHECK | REASON
# NAME's patch is harness/mutants/NAME.patch, or harness/planted/NAME.patch
# (the torture's planted bugs are mutants too).  KIND says what it mutates
# and how it is run:
#   kernel  the tree (patch -p1 in build/linux): built as a planted bug
#           is (build.sh x86_64 planted-NAME: a copy of the tree, the O=
#           dir build/out/x86_64-planted, ccache); COMMAND boots it
#   static  the tree, read by a static check (a hard-linked copy)
#   tool    the tree's user-space tools, built on the host (the same copy)
#   guest   the repo's harness/ (patch -p1 in the repo: harness/guest/...)
#   model   the repo's model/ (patch -p1 in the repo: model/...)
# COMMAND is shell, run in a scratch copy of the repo's harness/ and model/
# (build/mutants/NAME/: the harness scripts' own outputs, logs included, go
# to its build/, which shares only build/out with the repo), with
#   $H  that harness/ (the mutated one for a guest mutant)
#   $M  that model/ (the mutated one for a model mutant)
#   $T  the tree (the mutated copy for a static or tool mutant; LRB_TREE)
#   $V  the kernel variant to boot: planted for a kernel mutant, else local
#   $D  the torture's duration, LRB_TORTURE_DURATION (15 s, as test.sh)
# and two helpers that name a check as test.sh does:
#   named NAME CMD...   ok or FAIL NAME as CMD exits 0 or not
#   torture MODE        harness/torture.sh $V MODE $D (expecting PASS), as
#                       "torture local mode MODE": its exit status, its
#                       "verdict" (FAIL: lrb_torture said FAIL or the
#                       kernel a splat) and its "floors", each a check
# CHECK is a substring of the name of a result line; several are joined by
# " && ", and each must be in a FAIL line for the mutant to be killed.
#
# Kernel mutants build into the O= dir of the planted bugs,
# build/out/x86_64-planted: only what a mutant changes is compiled again.
# Every file a kernel mutant or a planted bug changes is copied and its
# object removed before each build (build.sh does it for the patches of its
# planted/ dir: here all of them), and the objects of the files that only
# mutants change are removed after each mutant, so that no later planted
# build links one.  A kernel mutant may change a header only if a planted
# bug changes it too (include/linux/lrb.h): its dependents are then
# compiled again by every planted build.  One run at a time: the mutants
# share build/out/x86_64-planted.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
. "$here/result.sh"
tree=${LRB_TREE:-$top/build/linux}
list=${LRB_MUTANTS_LIST:-$here/mutants/list}
scratch=$top/build/mutants
export LRB_OUT=${LRB_OUT:-$top/build/out}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$top}
D=${LRB_TORTURE_DURATION:-15}

dry=0
[ "${1:-}" = -n ] && { dry=1; shift; }

# The list: NAME KIND COMMAND CHECK REASON, tab-separated, trimmed.
entries() {
	awk -F'|' '/^[[:space:]]*(#|$)/ { next }
		{ for (i = 1; i <= NF; i++) {
			gsub(/^[[:space:]]+|[[:space:]]+$/, "", $i)
			if ($i == "") NF = 0
		  }
		  if (NF != 5) { print "mutants.sh: list line " NR ": not 5 fields, each non-empty" > "/dev/stderr"; exit 2 }
		  print $1 "\t" $2 "\t" $3 "\t" $4 "\t" $5 }' "$list"
}
patch_of() {
	local p
	for p in "$(dirname "$list")/$1.patch" "$here/mutants/$1.patch" "$here/planted/$1.patch"; do
		[ -f "$p" ] && { echo "$p"; return 0; }
	done
	return 1
}
files_of() { sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1"; }
# The files the planted bugs change: test.sh's planted builds copy them.
planted_files() { cat "$here"/planted/*.patch | files_of /dev/stdin | sort -u; }

# What a check printed: FAIL if a FAIL line holds it, else ok, skip or
# "not reported".
status_of() {
	local c=$1 out=$2
	if grep -E '^FAIL: ' "$out" | grep -qF -- "$c"; then echo FAIL
	elif grep -E '^ok: ' "$out" | grep -qF -- "$c"; then echo ok
	elif grep -E '^skip: ' "$out" | grep -qF -- "$c"; then echo skip
	else echo "not reported"
	fi
}

# The helpers COMMAND may use.
named() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	[ "$rc" -eq 0 ] && pass "$name" || fail "$name"
	printf '%s\n' "$out" | indent
}
torture() {
	local m=$1 out rc name="torture local mode $1"
	out=$("$H/torture.sh" "$V" "$m" "$D" 2>&1)
	rc=$?
	printf '%s\n' "$out" | indent
	[ "$rc" -eq 0 ] && pass "$name (${D}s, 4 CPUs)" || fail "$name (${D}s, 4 CPUs)"
	if grep -qE '^torture .*: FAIL \(expected' <<<"$out" || grep -q '^splat: ' <<<"$out"; then
		fail "$name verdict: lrb_torture PASS, no splat"
	elif grep -qE '^torture .*: PASS \(expected' <<<"$out"; then
		pass "$name verdict: lrb_torture PASS, no splat"
	else
		skip "$name verdict: lrb_torture PASS, no splat (no verdict)"
	fi
	if grep -q '^below the floors:' <<<"$out"; then
		fail "$name floors: every CPU delivered, hotplug cycled, NMIs inside reservations"
	else
		pass "$name floors: every CPU delivered, hotplug cycled, NMIs inside reservations"
	fi
}

# Objects of the files only mutants change, in the planted O= dir: removed,
# so that the next build of a planted bug compiles them from the tree.
mutant_only_c= built=0
forget_mutant_objects() {
	local f
	[ "$built" = 1 ] || return 0
	for f in $mutant_only_c; do
		rm -f "$LRB_OUT/x86_64-planted/${f%.c}.o"
	done
}
trap forget_mutant_objects EXIT

# applies NAME KIND PATCH: the patch applies to what KIND mutates (dry run).
applies() {
	local base=$tree f
	case $2 in
	kernel | static | tool) ;;
	guest | model) base=$top ;;
	*) echo "unknown kind '$2'"; return 1 ;;
	esac
	if [ "$2" = kernel ]; then
		for f in $(files_of "$3"); do
			case $f in
			*.c) ;;
			*) grep -qxF "$f" <<<"$(planted_files)" ||
				{ echo "$f: a kernel mutant changes only .c files and the headers a planted bug changes"; return 1; } ;;
			esac
		done
	fi
	patch -p1 --dry-run -s -f -d "$base" <"$3" >/dev/null 2>&1 ||
		{ echo "does not apply to ${base#"$top"/}"; return 1; }
}

entries >"${TMPDIR:-/tmp}/lrb-mutants.$$" || exit 2
mapfile -t all <"${TMPDIR:-/tmp}/lrb-mutants.$$"
rm -f "${TMPDIR:-/tmp}/lrb-mutants.$$"
declare -A known
kernel_names=()
for e in "${all[@]}"; do
	IFS=$'\t' read -r n k _ <<<"$e"
	known[$n]=$e
	[ "$k" = kernel ] && kernel_names+=("$n")
done
for n in "$@"; do
	[ -n "${known[$n]:-}" ] || { echo "mutants.sh: no mutant $n in ${list#"$top"/}" >&2; exit 2; }
done
pf=$(planted_files)
for n in "${kernel_names[@]}"; do
	p=$(patch_of "$n") || continue
	for f in $(files_of "$p"); do
		case $f in *.c) grep -qxF "$f" <<<"$pf" || mutant_only_c="$mutant_only_c $f" ;; esac
	done
done

killed=0 survived=0
for e in "${all[@]}"; do
	IFS=$'\t' read -r name kind cmd checks reason <<<"$e"
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qxF "$name"; then
		continue
	fi
	t0=$(date +%s)
	p=$(patch_of "$name") || { echo "mutant $name: no harness/mutants/$name.patch"; survived=$((survived + 1)); continue; }
	if ! why=$(applies "$name" "$kind" "$p"); then
		if [ "$dry" = 1 ]; then
			echo "mutant $name: $kind, ${p#"$top"/}: $why"
		else
			echo "mutant $name: SURVIVED (${p#"$top"/}: $why) (0 s)"
		fi
		survived=$((survived + 1))
		continue
	fi
	if [ "$dry" = 1 ]; then
		echo "mutant $name: $kind, ${p#"$top"/} applies ($(files_of "$p" | tr '\n' ' ' | sed 's/ $//'))"
		killed=$((killed + 1))
		continue
	fi

	# The scratch copy: harness/, model/, build/ (build/out the repo's).
	S=$scratch/$name
	rm -rf "$S"
	mkdir -p "$S/build"
	cp -a "$here" "$S/harness"
	cp -a "$top/model" "$S/model"
	ln -s "$LRB_OUT" "$S/build/out"
	H=$S/harness M=$S/model T=$tree V=local
	log=$S/mutant.log
	ok=1
	case $kind in
	kernel)
		# Every kernel mutant is a planted bug of the copy's build.sh,
		# so that it copies (and compiles again) the files of them all.
		for n in "${kernel_names[@]}"; do
			q=$(patch_of "$n") && cp "$q" "$H/planted/$n.patch"
		done
		V=planted built=1
		LRB_TREE=$tree "$H/build.sh" x86_64 "planted-$name" >"$S/build.log" 2>&1 || {
			ok=0
			echo "the mutant did not build (log: ${S#"$top"/}/build.log)" >"$log"
			tail -n 20 "$S/build.log" | indent >>"$log"
		}
		;;
	static | tool)
		T=$S/build/linux-mutant
		cp -al "$tree" "$T"
		for f in $(files_of "$p"); do
			cp --remove-destination "$tree/$f" "$T/$f"
		done
		patch -s -p1 -d "$T" <"$p" >"$log" 2>&1 || ok=0
		;;
	guest | model)
		patch -s -p1 -d "$S" <"$p" >"$log" 2>&1 || ok=0
		;;
	esac
	if [ "$ok" = 1 ]; then
		(cd "$S" && export LRB_TREE=$T && eval "$cmd") >"$log" 2>&1
	fi
	[ "$kind" = kernel ] && forget_mutant_objects
	rm -rf "$S/build/linux-planted" "$S/build/linux-mutant"

	dt=$(($(date +%s) - t0))
	IFS=$'\x01' read -ra cs <<<"${checks// && /$'\x01'}"
	dead=1 report= missed=
	for c in "${cs[@]}"; do
		st=$(status_of "$c" "$log")
		[ "$st" = FAIL ] || dead=0
		report="$report${report:+, }\"$c\""
		[ "$st" = FAIL ] || missed=${missed:-$c}
	done
	if [ "$dead" = 1 ]; then
		echo "mutant $name: killed by $report ($dt s)"
		killed=$((killed + 1))
	else
		echo "mutant $name: SURVIVED (\"$missed\" did not fail) ($dt s)"
		survived=$((survived + 1))
		echo "    $kind: $reason"
		for c in "${cs[@]}"; do
			echo "    \"$c\": $(status_of "$c" "$log")"
		done
		grep -E '^(FAIL|ok|skip): ' "$log" | grep -F -- "${cs[0]}" | head -n 3 | indent
		head -n 3 "$log" | grep -q 'did not build' && head -n 3 "$log" | indent
		echo "    log: ${log#"$top"/}"
	fi
done
if [ "$dry" = 1 ]; then
	echo "mutants: $killed apply, $survived do not"
	[ "$survived" -eq 0 ]
	exit
fi
echo "mutants: $killed killed, $survived survived"
[ "$survived" -eq 0 ]
