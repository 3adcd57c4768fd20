# LRB: entry points.  See README.md.
#
#   make demo     build and boot the x86_64 guest with the series, show LRB at work
#   make test     apply, build and boot {UML, x86_64} x {LRB_SYNC_LOCAL,
#                 LRB_SYNC_IRQOFF}, run the KUnit suite and the static checks,
#                 end with "N passed, N failed"
#   make check    the slow review checks: series applies with patch -p1 to a
#                 pristine tree, every patch builds in three configs,
#                 checkpatch, sparse, W=1, kernel-doc, overlay == series
#   make export   copy the files the series creates into the overlay dirs
#   make tree     extract the base tree (once) and apply the series with quilt
#   make clean    remove build/ (the extracted tree, kernels, logs)

SHELL := /bin/bash
H := harness

.PHONY: all deps tree build test check export demo clean

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

demo: deps
	@$(H)/demo.sh

clean:
	rm -rf build
