// SPDX-License-Identifier: GPL-2.0
/// Find misuse of the LRB ring buffer API (include/linux/lrb.h):
/// - a successful lrb_reserve() with a path that never reaches
///   lrb_commit(): the CPU stays with preemption (or interrupts) disabled
///   and the sub-buffer is never delivered;
/// - lrb_write() or lrb_commit() after a failed lrb_reserve(), or after one
///   whose result is not checked;
/// - a reservation committed twice.
//
// Confidence: Moderate
// Options: --no-includes --include-headers

virtual report
virtual org

@ok_ret@
identifier slot;
expression ret;
statement S;
position p;
@@

ret = lrb_reserve@p(..., &slot, ...);
if (\(ret\|ret < 0\|ret != 0\|unlikely(ret)\)) S
... when strict
lrb_commit(&slot);

@ok_call@
identifier slot;
statement S;
position p;
@@

if (\(lrb_reserve@p(..., &slot, ...)\|lrb_reserve@p(..., &slot, ...) < 0\|lrb_reserve@p(..., &slot, ...) != 0\)) S
... when strict
lrb_commit(&slot);

@ok_block@
identifier slot;
position p;
@@

if (\(!lrb_reserve@p(..., &slot, ...)\|lrb_reserve@p(..., &slot, ...) == 0\)) {
... when strict
lrb_commit(&slot);
...
}

@ok_ret_block@
identifier slot;
expression ret;
statement S;
position p;
@@

ret = lrb_reserve@p(..., &slot, ...);
(
if (\(!ret\|ret == 0\|likely(!ret)\)) {
... when strict
lrb_commit(&slot);
...
}
|
if (\(!ret\|ret == 0\|likely(!ret)\)) {
... when strict
lrb_commit(&slot);
...
} else S
)

// A reservation made into the caller's slot (a struct lrb_slot pointer
// parameter): committing it is the caller's job.
@ok_handed@
identifier fn, slot;
position p;
@@

fn(..., struct lrb_slot *slot, ...)
{
<+... lrb_reserve@p(..., slot, ...) ...+>
}

@unchecked@
position p;
@@

lrb_reserve@p(...);

// KUnit asserts on the result: the test stops if it is not the expected one.
@kunit@
identifier M =~ "^KUNIT_";
position p;
@@

M(..., <+... lrb_reserve@p(...) ...+>, ...)

@nocommit@
position p != {ok_ret.p, ok_call.p, ok_block.p, ok_ret_block.p, ok_handed.p,
	      unchecked.p, kunit.p};
@@

lrb_reserve@p(...)

@after_fail exists@
identifier slot;
expression ret;
position p;
@@

(
ret = lrb_reserve(..., &slot, ...);
if (\(ret\|ret < 0\|ret != 0\|unlikely(ret)\)) {
<+... \(lrb_write@p(&slot, ...)\|lrb_commit@p(&slot)\) ...+>
}
|
if (\(lrb_reserve(..., &slot, ...)\|lrb_reserve(..., &slot, ...) < 0\|lrb_reserve(..., &slot, ...) != 0\)) {
<+... \(lrb_write@p(&slot, ...)\|lrb_commit@p(&slot)\) ...+>
}
|
lrb_reserve(..., &slot, ...);
... when != lrb_reserve(..., &slot, ...)
\(lrb_write@p(&slot, ...)\|lrb_commit@p(&slot)\)
)

@twice exists@
identifier slot;
position p1, p2;
@@

lrb_commit@p1(&slot);
... when != lrb_reserve(..., &slot, ...)
lrb_commit@p2(&slot);

@script:python depends on report@
p << nocommit.p;
@@
coccilib.report.print_report(p[0], "LRB: lrb_reserve() not followed by lrb_commit() on every path of its success")

@script:python depends on report@
p << after_fail.p;
@@
coccilib.report.print_report(p[0], "LRB: slot used after a failed or unchecked lrb_reserve()")

@script:python depends on report@
p1 << twice.p1;
p2 << twice.p2;
@@
coccilib.report.print_report(p2[0], "LRB: reservation committed twice (first commit on line %s)" % p1[0].line)

@script:python depends on org@
p << nocommit.p;
@@
cocci.print_main("LRB: lrb_reserve() without lrb_commit() on some path", p)

@script:python depends on org@
p << after_fail.p;
@@
cocci.print_main("LRB: slot used after a failed or unchecked lrb_reserve()", p)

@script:python depends on org@
p2 << twice.p2;
@@
cocci.print_main("LRB: reservation committed twice", p2)
