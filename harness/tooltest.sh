#!/bin/bash
# tooltest.sh: lrb-record's command line, on the host (no kernel needed):
# built and its man page made through tools/tracing/lrb/Makefile, then
# help, version, option parsing, sizes, bad input and exit codes checked
# with --dry-run and on directories that are not traces. Prints a result
# line per check (harness/result.sh).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
work=$top/build/tooltest
rm -rf "$work"
mkdir -p "$work/run"
src=$tree/tools/tracing/lrb

result_prefix="lrb-record: "

# The uapi headers of the series (any configuration's will do).
hdr=$work/usr
if ! make -s -C "$tree" O="$work/hdr" ARCH=x86_64 headers_install \
	INSTALL_HDR_PATH="$hdr" >"$work/headers.log" 2>&1; then
	fail "uapi headers"
	exit 1
fi
make -s -C "$src" OUTPUT="$work/bin/" KHDR_INCLUDES="-isystem $hdr/include" \
	CFLAGS="-O2 -Werror" all man >"$work/build.log" 2>&1
expect "builds with -Werror and makes its man page (make -C tools/tracing/lrb all man)" \
	"[ -x '$work/bin/lrb-record' ] && [ -s '$work/bin/lrb-record.1' ]" || excerpt 40 "$work/build.log"
R=$work/bin/lrb-record
cd "$work/run" || exit 1

# run ARGS...: exit status in $rc, output in $work/out and $work/err.
run() { "$R" "$@" >"$work/out" 2>"$work/err"; rc=$?; }
out() { grep -q -- "$1" "$work/out"; }
err() { grep -q -- "$1" "$work/err"; }

run --help
expect "--help: usage on stdout, exit 0, nothing on stderr" \
	"[ $rc -eq 0 ] && out '^usage: lrb-record' && [ ! -s '$work/err' ]"
cp "$work/out" "$work/help"
run -h
expect "-h and help: the same usage, exit 0" \
	"[ $rc -eq 0 ] && cmp -s '$work/out' '$work/help' && run help && [ \$rc -eq 0 ] && cmp -s '$work/out' '$work/help'"
# Every long option of the source is in --help and in the man page.
opts=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", [a-z_]*argument.*/\1/p' "$src/lrb-record.c" | sort -u)
# The man page as man renders it (man-db, harness/deps.sh): no fallback
# to its source, which would pass with a page that does not render.
MANWIDTH=200 man -l "$work/bin/lrb-record.1" >"$work/man.txt" 2>"$work/man.err"
expect "man renders the man page (exit 0, $(wc -l <"$work/man.txt") lines)" \
	"[ $? -eq 0 ] && [ -s '$work/man.txt' ]" || excerpt 3 "$work/man.err"
nohelp= noman=
for o in $opts; do
	grep -q -- "--$o\b" "$work/help" || nohelp="$nohelp --$o"
	grep -q -- "--$o\b" "$work/man.txt" || noman="$noman --$o"
done
expect "every option ($(wc -w <<<"$opts") long names) is in --help${nohelp:+ (missing:$nohelp)}" "[ -z '$nohelp' ]"
expect "every option is in the man page${noman:+ (missing:$noman)}" "[ -z '$noman' ]"
nohelp=
for c in record report view list snapshot reset; do
	grep -q "lrb-record $c\|^$c\b" "$work/help" || nohelp="$nohelp $c"
done
expect "every command is in --help" "[ -z '$nohelp' ]"
run --version
expect "--version: exit 0, the kernel version" "[ $rc -eq 0 ] && out '^lrb-record [0-9]\+\.[0-9]\+'"

# Bad usage: exit 2, a message, and a hint.
bad() {
	local what=$1 msg=$2
	shift 2
	run "$@"
	expect "$what: exit 2, says '$msg'" "[ $rc -eq 2 ] && err \"$msg\" && err \"Try 'lrb-record --help'\" && [ ! -s '$work/out' ]"
}
bad "unknown option" "unknown option --frobnicate" --frobnicate
bad "unknown letter" "unknown option -x" -x
bad "trace-cmd's -s is not a size here" "unknown option -s" -s 4096
bad "missing argument" "-o needs an argument" -o
bad "unknown command" "unknown command frob" frob
bad "sub-buffer size above 4M" "--subbuf-size 8M: must be 256 to 4M" --dry-run --subbuf-size 8M
bad "size that is not one" "--subbuf-size 12x: not a size" --dry-run --subbuf-size 12x
bad "negative size" "--subbuf-size -4096: not a size" --dry-run --subbuf-size -4096
bad "sub-buffer count above 1024" "--num-subbufs 4096: must be 2 to 1k" --dry-run --num-subbufs 4096
bad "buffer above 64M per CPU" "--buffer-size 128M: must be 512 to 64M" --dry-run -b 128M
bad "contradicting sizes" "contradicts" --dry-run -b 1M --subbuf-size 4k --num-subbufs 4
bad "duration that is not a number" "--duration x: not a positive number" --dry-run --duration x
bad "negative duration" "--duration -1: not a positive number" --dry-run --duration -1
bad "zero duration" "--duration 0: not a positive number" --dry-run --duration 0
bad "reversed CPU range" "--cpu 3-1: not a CPU list" --dry-run --cpu 3-1
bad "CPU list with garbage" "--cpu 0,a: not a CPU list" --dry-run --cpu 0,a
bad "unknown clock" "--clock sundial: local or global" --dry-run -C sundial
bad "-e none with another event" "-e none excludes any other --event" --dry-run -e none -e sched
bad "switch timer below 100 us" "--switch-timer 50: microseconds, 0 (off) or 100 to 3600000000" --dry-run --switch-timer 50
bad "report of two directories" "report: one trace directory" report a b
bad "report --symbols of two directories" "report: one trace directory" report --symbols a b
bad "--stack depth 0" "--stack=0: a depth from 1 to 128" --dry-run -e sched --stack=0
bad "-T depth above 128" "--stack=129: a depth from 1 to 128" --dry-run -e sched -T129
bad "--stack depth that is not a number" "--stack=8x: a depth from 1 to 128" --dry-run -e sched --stack=8x
bad "two --stack for one -e" "-e sched: more than one --stack" --dry-run -e sched -T -T4
bad "two --stack before the first -e" "more than one --stack before the first --event" --dry-run -T -T4 -e sched
bad "--stack with -e none" "-e none: no event to take the kernel stacks of" --dry-run -T -e none
bad "list of something else" "list frob: events, channels" list frob

# Settings as a recording would use them.
run --dry-run --subbuf-size 3000 --num-subbufs 5
expect "sizes rounded up to powers of two as LTTng does, with a notice" \
	"[ $rc -eq 0 ] && out '^subbuf_size: 4k$' && out '^num_subbufs: 8$' &&
	 err '--subbuf-size 3000 rounded up to 4k' && err '--num-subbufs 5 rounded up to 8'"
run --dry-run -q -b 64M
expect "--buffer-size 64M: 16 sub-buffers of 4M" "[ $rc -eq 0 ] && out '^subbuf_size: 4M$' && out '^num_subbufs: 16$' && [ ! -s '$work/err' ]"
run --dry-run -q -b 1M --num-subbufs 4
expect "--buffer-size with --num-subbufs: the sub-buffer size follows" "[ $rc -eq 0 ] && out '^subbuf_size: 256k$' && out '^num_subbufs: 4$'"
run --dry-run -q --subbuf-size 64KiB
expect "size suffixes: 64KiB" "[ $rc -eq 0 ] && out '^subbuf_size: 64k$'"
run --dry-run
expect "defaults: lrb-trace-DATE-TIME, lrb-record-PID, 16k x 16, discard, local, sched and irq with a notice" \
	"[ $rc -eq 0 ] && out '^output: lrb-trace-[0-9]\{8\}-[0-9]\{6\}$' && out '^channel: lrb-record-[0-9]*$' &&
	 out '^subbuf_size: 16k$' && out '^num_subbufs: 16$' && out '^mode: discard$' && out '^clock: local$' &&
	 out '^events: sched irq$' && err 'no --event given: recording -e sched -e irq'"
run --dry-run -q -o t1 -e sched:sched_switch -e 'irq:*' --overwrite -C global --cpu 0,2-3 --duration 1.5 -B mine
expect "long options and trace-cmd's letters" \
	"[ $rc -eq 0 ] && out '^output: t1$' && out '^channel: mine$' && out '^mode: overwrite$' && out '^clock: global$' &&
	 out '^events: sched:sched_switch irq:\*$' && out '^cpus: 0 2 3$' && out '^duration: 1.5$'"
run --dry-run -q -e none
expect "-e none: no event (annotations only)" "[ $rc -eq 0 ] && out '^events: none$'"
run --dry-run -q -T8 -e sched -e irq --stack=4 -e timer
expect "--stack before any -e for every -e, after an -e for it (trace-cmd's -T)" \
	"[ $rc -eq 0 ] && out '^stack: sched 8$' && out '^stack: irq 4$' && out '^stack: timer 8$'"
run --dry-run -q -e sched --stack
expect "--stack without a depth: 32 addresses" "[ $rc -eq 0 ] && out '^stack: sched 32$'"
run --dry-run -q --flight-recorder --switch-timer 100000
expect "--flight-recorder overwrites; --switch-timer taken" \
	"[ $rc -eq 0 ] && out '^mode: overwrite$' && out '^flight_recorder: 1$' && out '^switch_timer: 100000$'"

# Output directories: never reused without --force, nothing touched by a dry run.
mkdir -p full empty && echo keep >full/stream_0
run --dry-run -q -o full
expect "a non-empty --output: exit 1, says why, leaves it alone" \
	"[ $rc -eq 1 ] && err 'full exists and is not empty: pick another --output, or add --force' && [ -s full/stream_0 ]"
run --dry-run -q -o full --force
expect "--force accepts it (the dry run deletes nothing)" "[ $rc -eq 0 ] && [ -s full/stream_0 ]"
run --dry-run -q -o empty
expect "an empty existing --output is used" "[ $rc -eq 0 ]"
mkdir -p nested/sub
run --dry-run -q -o nested --force
expect "--force refuses a directory with subdirectories" "[ $rc -eq 1 ] && err 'which --force does not remove'"
run --dry-run -q -o full/stream_0
expect "an --output that is a file: exit 1" "[ $rc -eq 1 ] && err 'exists and is not a directory'"

# report and view need a trace.
run report .
expect "report of a directory without metadata: exit 1, says so" "[ $rc -eq 1 ] && err 'not a trace directory'"
run report
expect "report without DIR and no lrb-trace-* here: exit 2, says so" "[ $rc -eq 2 ] && err 'no lrb-trace-\* directory here'"
run view .
expect "view of a directory without metadata: exit 2, says so" "[ $rc -eq 2 ] && err 'is not a trace directory'"

exit "$result_status"
