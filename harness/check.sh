#!/bin/bash
# check.sh: the review checks of the series.
#  1. it applies with plain "patch -p1", in series order, to a freshly
#     extracted base (base.sh; build/check/linux), and with git am to a
#     git tree of it (build/check/git);
#  2. after every patch the x86_64 kernel builds with CONFIG_LRB=n,
#     LRB_SYNC_LOCAL and LRB_SYNC_IRQOFF, with no warning in LRB files, and
#     the new C files are clean under W=1 and sparse (C=2).  A patch that
#     changes no file the kernel build reads (only .rst, tools/,
#     coccinelle, MAINTAINERS) leaves the kernel of the patch before: it
#     is not built again.  After every patch that changes the tools or the
#     uapi, lrb-record and the selftests build with -Werror.  These builds
#     walk the series with quilt in build/linux, so ccache and the
#     incremental build reuse what make test built;
#  3. checkpatch --strict, kernel-doc -none, the overlay check, coccicheck,
#     htmldocs, and the Promela model (model/check.sh).
# The i386 and arm64 builds of the whole series (and their LRB warnings)
# are make test's.  About 2 minutes per patch that is built (three builds
# and the lint) with a ccache that holds the base, 5 for the base itself:
# 84 minutes in all on 2 vCPUs.
#
# LRB_CHECK_FROM=NNNN builds only from patch NNNN on (the patches before
# it are pushed, not built, and the base is not built): after a change to
# patch NNNN, the builds the change can affect.  Every other check runs
# in full.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
counted_run "$@"
t_all=$(date +%s)
ctree=$top/build/check/linux
cout=$top/build/out
. "$here/base.sh"
from=${LRB_CHECK_FROM:-}

rm -rf "$ctree"
base_extract "$ctree" || exit 1
echo "check: base $(make -s -C "$ctree" kernelversion)"
for p in $(series_patches); do
	check "apply $p with patch -p1" bash -c "cd '$ctree' && patch -p1 -F0 --no-backup-if-mismatch -s < '$top/patches/$p'"
done
overlay_tree=$ctree
# git am, as a maintainer takes the series, onto a git tree of the base.
# A subshell: check() runs it in check.sh's shell, whose directory stays.
git_am_series() (
	g=$top/build/check/git
	rm -rf "$g"
	base_extract "$g" || exit 1
	cd "$g" || exit 1
	# Debian's tree ignores everything at its top level: add with -f.
	git init -q && git add -f -A . &&
		git -c user.name=base -c user.email=base@localhost commit -q -m base || exit 1
	for p in $(series_patches); do
		git -c user.name=check -c user.email=check@localhost am -q "$top/patches/$p" || exit 1
	done
)
check "the series applies with git am to a git tree of the base" git_am_series

# Build one config of build/linux as it stands; fail on LRB warnings.
build_cfg() {
	local v=$1 log
	log=$logdir/check-build-$v.log
	LRB_OUT=$cout "$here/build.sh" x86_64 "$v" >"$log" 2>&1 || { tail -n 30 "$log"; return 1; }
	! lrb_warnings "$log"
}

# W=1 and sparse on the new C files present in the tree.
lint_new() {
	local objs=() f log=$logdir/check-lint.log
	for f in kernel/trace/lrb.c kernel/trace/lrb_kunit.c kernel/trace/lrb_fs.c \
		 kernel/trace/lrb_events.c kernel/trace/lrb_trace_events.c kernel/trace/lrb_bench.c \
		 kernel/trace/lrb_torture.c; do
		[ -f "$tree/$f" ] && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -eq 0 ] && return 0
	# In a build dir of its own (LRB_SYNC_LOCAL, configured and prepared
	# by build.sh): W=1 changes the objects' command lines, and in the
	# x86_64-local dir the next build compiled them all again.  The same
	# CC and HOSTCC as build.sh: a different HOSTCC rebuilds objtool, and
	# every object depends on objtool.
	LRB_OUT=$cout LRB_MAKE_EXTRA=prepare "$here/build.sh" x86_64 lint >"$log" 2>&1 || { tail -n 30 "$log"; return 1; }
	make -C "$tree" O="$cout/x86_64-lint" -s -j"$(nproc)" W=1 C=2 \
		CC="ccache gcc" HOSTCC="ccache gcc" "${objs[@]}" >"$log" 2>&1 || { cat "$log"; return 1; }
	cat "$log"
	test ! -s "$log"
}

# The files a patch changes.
patch_files() {
	sed -n 's|^+++ b/||p' "$top/patches/$1"
}

# kbuild_patch P: P changes a file that the kernel build reads: anything
# but reStructuredText, tools/, coccinelle scripts and MAINTAINERS.
kbuild_patch() {
	patch_files "$1" |
		grep -qvE '^(Documentation/.*\.rst|tools/.*|scripts/coccinelle/.*|MAINTAINERS)$'
}

# touches P REGEX: P changes a file whose path matches REGEX.
touches() {
	patch_files "$1" | grep -qE "$2"
}

# lrb-record (static) and the selftests, built with -Werror through their
# own Makefiles against the uapi headers of the tree as it stands, in the
# x86_64-local build dir that build_cfg configured.
build_record() {
	local w=$cout/check-record

	rm -rf "$w" && mkdir -p "$w" && build_lrb_record "$w" local && [ -x "$w/lrb-record" ]
}

build_selftests() {
	local out=$cout/x86_64-local

	rm -rf "$out/kselftest/lrb"
	make -s -C "$tree" O="$out" ARCH=x86_64 headers &&
	make -s -C "$tree/tools/testing/selftests" TARGETS=lrb O="$out" \
		USERCFLAGS="-O2 -Werror" &&
	[ -x "$out/kselftest/lrb/lrb_test" ]
}

q() { (cd "$tree" && quilt --quiltrc "$top/harness/quiltrc" "$@"); }
q pop -aq >/dev/null 2>&1
[ -n "$from" ] || check "base builds (CONFIG_LRB=n)" build_cfg off
for p in $(series_patches); do
	q push -q >/dev/null
	if [ -n "$from" ]; then
		[[ $p == "$from"* ]] && from=
		[ -n "$from" ] && continue
	fi
	if kbuild_patch "$p"; then
		for v in off local irqoff; do
			check "build after $p ($v)" build_cfg "$v"
		done
		check "W=1 and sparse after $p" lint_new
	else
		echo "check: $p changes no file the kernel build reads: its kernel is the one built after the patch before"
	fi
	# The tools build after the patches that change them or the uapi.
	if [ -f "$tree/tools/tracing/lrb/Makefile" ] &&
	   touches "$p" '^(tools/tracing/lrb/|include/uapi/)'; then
		check "lrb-record builds with -Werror after $p" build_record
	fi
	if [ -f "$tree/tools/testing/selftests/lrb/Makefile" ] &&
	   touches "$p" '^(tools/testing/selftests/|include/uapi/)'; then
		check "the selftests build with -Werror after $p" build_selftests
	fi
done
[ -z "$from" ] || fail "LRB_CHECK_FROM=$from names no patch of the series"
# The whole series for i386 and arm64 is built (and its LRB files
# checked for warnings) and booted by make test, not here.
LRB_TREE=$overlay_tree static_checks
check "coccicheck MODE=report on the new files (every script)" "$here/cocci.sh" report
# make htmldocs for Documentation/trace, if Sphinx is installed: no warning
# may mention the LRB files.
htmldocs_lrb() {
	local log=$logdir/check-htmldocs.log
	command -v sphinx-build >/dev/null || { echo "sphinx-build not installed: skipped"; return 0; }
	make -C "$tree" O="$top/build/docs" SPHINXDIRS=trace htmldocs >"$log" 2>&1 || { tail -n 20 "$log"; return 1; }
	! grep -iE 'lrb' "$log" | grep -iE 'warning|error'
}
check "make SPHINXDIRS=trace htmldocs: no warning on LRB files" htmldocs_lrb
stage "Promela model" model_checks
# Every mutant of harness/mutants/list killed by the check it names: the
# checks of make test can fail (a kernel build and a boot per kernel
# mutant: not in CI).
stage mutants check "make mutants: every mutant killed by its check (harness/mutants/list)" "$here/mutants.sh"
echo "== total: $(($(date +%s) - t_all)) s"
