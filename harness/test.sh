#!/bin/bash
# test.sh: apply the series, build and boot {UML, x86_64, i386, arm64,
# s390x} x {LRB_SYNC_LOCAL, LRB_SYNC_IRQOFF}, count the KUnit cases of
# each boot, decode the trace each tiny guest (i386, arm64, s390x) took,
# run the static checks, and end with "N passed, N failed, N skipped".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
t_all=$(date +%s)

stage deps "$here/deps.sh" || { fail "install the packages (harness/deps.sh)"; exit 1; }
stage tree "$here/tree.sh" || { fail "extract the base tree and apply the series (harness/tree.sh)"; exit 1; }

# lrb-record's command line, on the host: no kernel needed.
stage "lrb-record command line (host)" tally "lrb-record (host)" tooltest.log "$here/tooltest.sh"

runs=${LRB_RUNS:-"um-local um-irqoff x86_64-local x86_64-irqoff i386-local i386-irqoff arm64-local arm64-irqoff s390x-local s390x-irqoff"}
for run in $runs; do
	arch=${run%-*} variant=${run##*-}
	if ! stage "build $run" "$here/build.sh" "$arch" "$variant" >"$logdir/build-$run.log" 2>&1; then
		fail "build $run (log: build/log/build-$run.log)"
		tail -n 30 "$logdir/build-$run.log" | indent
		continue
	fi
	grep -E '^== ' "$logdir/build-$run.log" || true
	# Every architecture and variant: no warning in the LRB files (a
	# warning does not fail the build).
	check "build $run: no warning in LRB files" \
		eval "! lrb_warnings '$logdir/build-$run.log'"
	# 32-bit: a 64-bit atomic takes a lock or turns interrupts off
	# (i386 without CMPXCHG8B, GENERIC_ATOMIC64), which an NMI writer
	# must not: LRB's counts carry between local_t words instead.
	if [ "$arch" = i386 ]; then
		objs=$(ls "$top/build/out/$run"/kernel/trace/lrb*.o 2>/dev/null)
		check "build $run: LRB calls no 64-bit atomic (not NMI-safe on 32-bit; $(wc -w <<<"$objs") objects)" \
			eval "[ -n '$objs' ] && nm -u $(tr '\n' ' ' <<<"$objs") >'$logdir/nm-$run.txt' && ! grep atomic64 '$logdir/nm-$run.txt'"
	fi
	# The tiny guests' /init also records a trace of __data_loc strings
	# and prints it (guest/init-kunit.c): babeltrace2 must decode it on
	# each byte order and word size, big-endian s390x above all.
	case $arch in i386 | arm64 | s390x) tiny=lrb_trace ;; *) tiny= ;; esac
	# No log of an earlier run is graded: a boot that fails before QEMU
	# starts leaves none, and its status fails the run.
	rm -f "$logdir/boot-$run.log"
	LRB_CMDLINE="${LRB_CMDLINE:-} $tiny" stage "boot $run" "$here/boot.sh" "$arch" "$variant" "$logdir/boot-$run.log"
	rc=$?
	check "boot $run: the guest ran to its end (exit status 0)" test "$rc" -eq 0
	# Every case the test's case list compiles in this config ran, and a
	# skip only for an option this config leaves off.
	tally "KUnit $run" "ktap-$run.log" "$here/ktap.py" "$logdir/boot-$run.log" "$run" \
		"$tree/kernel/trace/lrb_kunit.c" "$top/build/out/$run/.config"
	[ -n "$tiny" ] &&
		check "trace $run: babeltrace2 decodes its __data_loc strings, in the guest's byte order" \
			"$here/tinytrace.py" "$logdir/boot-$run.log" "$top/build/tinytrace-$run" \
			"$([ "$arch" = s390x ] && echo be || echo le)"
done

# Short torture runs: both variants and modes. That the torture catches
# bugs is make mutants' to show (make check): the planted bugs of
# harness/planted are among its mutants, each built and run there.
torture_checks() {
	local v m d=${LRB_TORTURE_DURATION:-15}
	for v in local irqoff; do
		for m in 0 1; do
			check "torture $v mode $m (${d}s, 4 CPUs)" "$here/torture.sh" "$v" "$m" "$d"
			grep -hE 'lrb_torture: (cpu [0-9]+ buffer|hotplug)' "$logdir/torture-$v-$m.log" | sed 's/^\[ *[0-9.]*\] /    /' | head -n 5
		done
	done
}
case " $runs " in *" x86_64-local "*) stage torture torture_checks ;; esac

# arm64 (LL/SC or LSE local_cmpxchg(), weak memory order): a short torture
# per variant on the kernels built for KUnit. Task, softirq and hardirq
# writers and CPU hotplug run; the NMI writers do not, for want of an
# NMI source (the torture's NMIs are x86's NMI IPIs).
arm64_torture_checks() {
	local v m d=${LRB_TORTURE_DURATION:-15}
	for v in local irqoff; do
		case " $runs " in *" arm64-$v "*) ;; *) continue ;; esac
		m=$([ "$v" = local ] && echo 1 || echo 0)
		check "torture arm64-$v mode $m (${d}s, 4 CPUs, no NMI)" \
			env LRB_ARCH=arm64 "$here/torture.sh" "$v" "$m" "$d"
		grep -hE 'lrb_torture: (cpu [0-9]+ buffer|hotplug)' "$logdir/torture-arm64-$v-$m.log" |
			sed 's/^\[ *[0-9.]*\] /    /' | head -n 5
	done
}
stage "torture arm64" arm64_torture_checks

# User space in the x86_64 guest: selftests, lrb-record, babeltrace2.
user_checks() {
	local v
	for v in local irqoff; do
		tally "user space $v" "usertest-$v.log" "$here/usertest.sh" "$v"
	done
}
case " $runs " in *" x86_64-local "*) stage "user space (x86_64 guest)" user_checks ;; esac

# Two guests side by side: their traces merged on one timeline.
case " $runs " in *" x86_64-local "*)
	stage "two machines (x86_64 guests)" tally "two machines" multitest.log "$here/multitest.sh" ;;
esac

# Marker sites as compiled: disabled is a NOP, CONFIG_LRB_MARKERS=n is nothing.
marker_code_checks() {
	check "disabled marker site is a NOP with no load (x86_64-local)" "$here/markers-asm.sh" local
	# Only the sample module with CONFIG_LRB=n: the whole kernel in that
	# config is make check's, after every patch.  Here it compiled 789
	# objects again (module.h and the trace headers change): 526 s of
	# make test's 68 min on a fresh machine, where the module takes 88 s.
	# Without vmlinux, modpost cannot resolve the module's __fentry__
	# (the function tracer's): a warning here, not an error.
	if LRB_MAKE_EXTRA="KBUILD_MODPOST_WARN=1 samples/lrb/lrb_sample.ko" "$here/build.sh" x86_64 off \
		>"$logdir/build-x86_64-off.log" 2>&1; then
		check "CONFIG_LRB_MARKERS=n leaves no code at the site (x86_64-off)" "$here/markers-asm.sh" off
	else
		check "build x86_64-off" false
	fi
}
case " $runs " in *" x86_64-local "*) stage "marker code" marker_code_checks ;; esac
stage "static checks" static_checks
stage "Promela model" model_checks
echo "== total: $(($(date +%s) - t_all)) s"
