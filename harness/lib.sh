# Shared helpers of the harness scripts (sourced).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(dirname "$here")
tree=${LRB_TREE:-$top/build/linux}
logdir=$top/build/log
mkdir -p "$logdir"

. "$here/result.sh"

# splats LOG: the kernel reports in a console log (WARNING, BUG, Oops,
# KASAN, UBSAN, KCSAN, lockdep, RCU usage and stalls, hung tasks, lockups,
# panic). Prints "lrb: HEADER" for a report that mentions LRB code,
# "allowed: HEADER (REASON)" for one of splat_allowed's, and "other:
# HEADER" for the rest; a run fails on "lrb:" and "other:" alike. A report
# is the kernel's lines (printk timestamps; user space's output between
# them is not part of it) from its header to its end marker ("====",
# "---[ end trace"), at most 40. A frame the unwinder marks unreliable
# ("? lrb_x+0x1e3/0x1e3", a stale return address left on the stack) is not
# LRB code in the report: one such frame made a scheduler WARN at CPU
# online look like LRB's.
splat_pattern='WARNING:|BUG:|Oops|KASAN:|UBSAN:|KCSAN:|possible recursive locking|circular locking|inconsistent lock state|suspicious RCU usage|rcu: INFO: |detected stalls? on CPU|INFO: task .* blocked for more than|hard LOCKUP|workqueue lockup|Kernel panic'
# Reports outside LRB code that do not fail a run, as "ERE<TAB>reason".
# The list is short on purpose: anything else is a failure.
splat_allowed=(
	"KCSAN: data-race	KCSAN (make sanitize) reports the data races of the whole kernel, the VFS's among them; those in LRB code fail"
)
splats() {
	local n head entry
	for n in $(grep -nE "$splat_pattern" "$1" | grep -v 'lrb_torture: FAIL' | cut -d: -f1); do
		head=$(sed -n "${n}p" "$1")
		if awk -v n="$n" 'NR >= n && NR <= n + 40 && /^\[ *[0-9]+\.[0-9]+\]/ {
			if (NR > n && (/\] =+$/ || /---\[ end trace/)) exit
			if (!/\] +\? /) print }' "$1" | grep -q 'lrb'; then
			echo "lrb: $head"
			continue
		fi
		for entry in "${splat_allowed[@]}"; do
			if grep -qE "${entry%%	*}" <<<"$head"; then
				echo "allowed: $head (${entry#*	})"
				continue 2
			fi
		done
		echo "other: $head"
	done
}

# check NAME CMD...: run one check, keep its output in a log of its own;
# on failure print the log's last lines as an excerpt.
check() {
	local name=$1 log
	shift
	log=$logdir/check-${name//[^A-Za-z0-9_.-]/_}.log
	if "$@" >"$log" 2>&1; then
		pass "$name"
	else
		fail "$name (log: ${log#"$top"/})"
		tail -n 20 "$log" | indent
	fi
}

# tally NAME LOG CMD...: run a script that prints results, keep all its
# output in build/log/LOG and print its results and excerpts.  A script
# that prints no result, or exits non-zero with no FAIL line of its own,
# died on the way: that is a failure of its own.
tally() {
	local name=$1 log=$logdir/$2 out rc
	shift 2
	out=$("$@" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$log"
	grep -E '^(ok|FAIL|skip):|^    ' <<<"$out"
	if ! grep -qE '^(ok|FAIL|skip):' <<<"$out" ||
	   { [ "$rc" -ne 0 ] && ! grep -q '^FAIL:' <<<"$out"; }; then
		fail "$name: exit $rc, no result of its own (log: ${log#"$top"/})"
		tail -n 20 <<<"$out" | indent
	fi
}

# stage NAME CMD...: run a step, print how long it took; returns its status.
stage() {
	local name=$1 t0 rc
	shift
	t0=$(date +%s)
	echo "== $name"
	"$@"
	rc=$?
	echo "== $name: $(($(date +%s) - t0)) s$([ "$rc" -ne 0 ] && echo ", exit $rc")"
	return $rc
}

# build_lrb_record OUT VARIANT: the series' uapi headers in the O= dir of
# x86_64-VARIANT and a static lrb-record in OUT, built through
# tools/tracing/lrb/Makefile so that the Makefile is tested too.
build_lrb_record() {
	local out=$top/build/out/x86_64-$2
	make -s -C "$tree" O="$out" ARCH=x86_64 headers &&
	make -s -C "$tree/tools/tracing/lrb" OUTPUT="$1/" LDFLAGS=-static \
		CFLAGS="-O2 -Werror" KHDR_INCLUDES="-isystem $out/usr/include"
}

# lrb_warnings LOG: a build log's warnings and errors in LRB files;
# fails if there are none.
lrb_warnings() {
	grep -E '(lrb[a-z_]*\.[ch]).*(warning|error)' "$1"
}

# Files the series creates, and the C files among them.
# Files a patch creates.
patch_new_files() {
	awk '/^--- \/dev\/null/ { n = 1; next }
	     n && /^\+\+\+ b\// { sub(/^\+\+\+ b\//, ""); print; }
	     { n = 0 }' "$top/patches/$1"
}

series_files() {
	local p
	for p in $(series_patches); do
		patch_new_files "$p"
	done | sort -u
}

# checkpatch --strict as a maintainer runs it, from the patched tree.  To
# a patch that adds files it puts a question, "does MAINTAINERS need
# updating?"; it is answered here rather than ignored: every file the
# patch creates must fall under the LRB entry of MAINTAINERS.
checkpatch_patch() {
	local p=$1 f out rc=0
	out=$(cd "$tree" && scripts/checkpatch.pl --strict -q --ignore FILE_PATH_CHANGES "$top/patches/$p") || rc=1
	[ -z "$out" ] || { echo "$out"; rc=1; }
	for f in $(patch_new_files "$p"); do
		# grep reads all of it: with grep -q, get_maintainer.pl could
		# die of SIGPIPE writing the sections after LRB's (pipefail).
		(cd "$tree" && scripts/get_maintainer.pl --no-git --sections -f "$f") |
			grep '^LRB (' >/dev/null || { echo "$f: not covered by the LRB entry of MAINTAINERS"; rc=1; }
	done
	return $rc
}

series_patches() {
	grep -v '^[[:space:]]*\(#\|$\)' "$top/series" | awk '{ print $1 }'
}

# The static checks of the new code, each counted.
static_checks() {
	local p f cfiles
	for p in $(series_patches); do
		check "checkpatch $p" checkpatch_patch "$p"
	done
	cfiles=$(series_files | grep -E '\.[ch]$')
	check "kernel-doc on new files" bash -c "cd '$tree' && out=\$(scripts/kernel-doc -none $(echo $cfiles) 2>&1); echo \"\$out\"; test -z \"\$out\""
	check "overlay equals series, patches in git format-patch form" "$here/overlay.sh" check
	check "churn: no patch reworks what an earlier one added" "$here/churn.py" "$top"
	check "barrier table of lrb.rst matches the barrier comments of lrb.c and lrb.h" \
		"$here/barriers.py" "$tree/kernel/trace/lrb.c" "$tree/include/linux/lrb.h" "$tree/Documentation/trace/lrb.rst"
	check "coccinelle: lrb.cocci is silent on the tree" "$here/cocci.sh" tree
	check "coccinelle: lrb.cocci reports every planted misuse, nothing else" "$here/cocci.sh" planted
}

# The Promela model of the protocol: each of its checks is a result.
model_checks() {
	tally "Promela model" model.log "$top/model/check.sh"
}
