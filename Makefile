# LRB: entry points.  See README.md.
#
#   make demo     build and boot the x86_64 guest with the series, show LRB at work
#   make test     apply, build and boot {UML, x86_64, i386, arm64} x {LRB_SYNC_LOCAL,
#                 LRB_SYNC_IRQOFF} (no warning in LRB files), run the KUnit
#                 suite and the static checks, end with "N passed, N failed,
#                 N skipped"
#   make check    the slow review checks: series applies with patch -p1 and
#                 git am to a pristine tree, every patch builds in three
#                 configs, checkpatch, sparse, W=1, kernel-doc, overlay ==
#                 series, coccicheck, htmldocs, the model
#   make torture  DURATION=600: lrb_torture on x86_64 with 4 CPUs, both sync
#                 variants and both modes
#   make torture-debug  DURATION=...: the same on a lockdep+KASAN+UBSAN kernel
#                 and on a KCSAN kernel (LRB_SYNC_LOCAL)
#   make sanitize the x86_64 guest's user-space checks (selftests, lrb-record,
#                 babeltrace2) on the lockdep+KASAN+UBSAN kernel and on the
#                 KCSAN kernel; fails on any kernel splat
#   make bench    lrb_bench in UML (timings) for both sync variants, once
#                 in the x86_64 guest (functional only), then make lttng
#   make mutants  MUTANTS="NAME...": every bug of harness/mutants/list (or
#                 those) applied to a copy, the check meant to catch it
#                 run and required to FAIL; ends with "mutants: N killed,
#                 N survived" (kernel mutants: a build and a boot each)
#   make lttng    LTTng 2.13 and LRB tracing the same workload at once in
#                 the x86_64 guest: events, losses, bytes per event
#   make export   copy the files the series creates into the overlay dirs
#   make tree     extract the base tree (once) and apply the series with quilt
#   make clean    remove build/ (the extracted tree, kernels, logs)

SHELL := /bin/bash
H := harness

.PHONY: all deps tree build test check export demo clean torture torture-debug sanitize bench lttng mutants

all: test

deps:
	@$(H)/deps.sh

tree: deps
	@$(H)/tree.sh

build: tree
	@for a in um x86_64; do for v in local irqoff; do \
		$(H)/build.sh $$a $$v || exit 1; done; done

test: deps
	@$(H)/test.sh

check: tree
	@$(H)/check.sh

export: tree
	@$(H)/overlay.sh export

DURATION ?= 600
torture: tree
	@$(H)/build.sh x86_64 local >/dev/null && $(H)/build.sh x86_64 irqoff >/dev/null
	@fail=0; for v in local irqoff; do for m in 0 1; do \
		$(H)/torture.sh $$v $$m $(DURATION) || fail=1; done; done; exit $$fail

torture-debug: tree
	@fail=0; for v in debug kcsan; do \
		$(H)/build.sh x86_64 $$v >build/log/build-x86_64-$$v.log 2>&1 || { tail -20 build/log/build-x86_64-$$v.log; exit 1; }; \
		for m in 0 1; do $(H)/torture.sh $$v $$m $(DURATION) || fail=1; done; done; exit $$fail

sanitize: tree
	@fail=0; for v in debug kcsan; do \
		$(H)/build.sh x86_64 $$v >build/log/build-x86_64-$$v.log 2>&1 || { tail -20 build/log/build-x86_64-$$v.log; exit 1; }; \
		LRB_BOOT_TIMEOUT=2700 $(H)/usertest.sh $$v | tee build/log/sanitize-$$v.log | grep -E '^(FAIL|[0-9]+ passed)'; \
		[ "$${PIPESTATUS[0]}" -eq 0 ] || fail=1; done; exit $$fail

mutants: tree
	@$(H)/mutants.sh $(MUTANTS)

bench: tree
	@$(H)/bench.sh

lttng: tree
	@$(H)/lttng.sh

demo: deps
	@$(H)/demo.sh

clean:
	rm -rf build
