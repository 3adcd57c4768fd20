# result.sh: the one result protocol of the harness (sourced by lib.sh
# and model/check.sh).
#
# A check prints one line: "ok: NAME", "FAIL: NAME" or "skip: NAME", at
# the start of the line.  Nothing else a script prints is a result: logs,
# stage times and excerpts (indented by four spaces) are not.  No script
# counts its results; results() counts the lines of a whole run, once:
# make test's, make check's, or those of a script run by hand (see
# counted_run).
#
# result_prefix, if a script sets it, starts the NAME of each of its
# results (usertest.sh names the variant it booted).
pass() { echo "ok: ${result_prefix:-}$*"; }
fail() { echo "FAIL: ${result_prefix:-}$*"; result_status=1; return 1; }
skip() { echo "skip: ${result_prefix:-}$*"; }
# expect NAME SHELL-CONDITION: pass or fail NAME as the condition holds;
# returns 1 when it fails, so that "expect ... || excerpt ..." shows why.
expect() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
# excerpt N FILE: FILE's first N lines, indented, newline-terminated (a
# line of FILE is never taken for a result, nor glued to the next one).
excerpt() { head -n "$1" "$2" | indent; }
# indent: stdin indented by four spaces, newline-terminated.
indent() { sed -e 's/^/    /' -e '$a\'; }
# A script that prints results exits with this: non-zero after a fail
# in its own shell.
result_status=0

# results: copy a run's output (stdin) through and end with the count of
# its result lines, "N passed, N failed, N skipped".  The run's exit
# status comes last, on a line of counted_run's: a run that failed with
# no FAIL line of its own (killed, an unset variable) is a failure too.
# Fails when a check failed or none passed.
results() {
	local line p=0 f=0 s=0 rc=0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		*"lrb-results: exit "*)
			rc=${line##*lrb-results: exit }
			line=${line%lrb-results: exit *}
			[ -n "$line" ] && printf '%s\n' "$line"
			continue ;;
		ok:*) p=$((p + 1)) ;;
		FAIL:*) f=$((f + 1)) ;;
		skip:*) s=$((s + 1)) ;;
		esac
		printf '%s\n' "$line"
	done
	if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL: ${0##*/}: exit $rc, no result of its own"
		f=1
	fi
	echo "$p passed, $f failed, $s skipped"
	[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
}

# counted_run ARGS: unless a caller counts already, run the calling script
# again, through results(), and exit with its verdict.  A script that
# prints results calls it first, so that it ends with the count when run
# on its own, and prints only its results under make test.
counted_run() {
	local self
	[ -n "${LRB_RESULTS_COUNTED:-}" ] && return 0
	self=$(cd "$(dirname "$0")" && pwd)/${0##*/}
	{
		LRB_RESULTS_COUNTED=1 "$self" "$@" 2>&1
		echo "lrb-results: exit $?"
	} | results
	exit "${PIPESTATUS[1]}"
}
