// SPDX-License-Identifier: GPL-2.0
/*
 * Planted misuses of the LRB API for scripts/coccinelle/api/lrb.cocci.
 * Every line marked MISUSE must be reported, and no other line.
 */
#include <linux/lrb.h>

struct ev { int a; };

int ok_checked(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;
	int ret;

	ret = lrb_reserve(chan, &slot, 1, sizeof(*e));
	if (ret)
		return ret;
	lrb_write(&slot, 0, e, sizeof(*e));
	lrb_commit(&slot);
	return 0;
}

void ok_if_success(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	if (!lrb_reserve(chan, &slot, 1, sizeof(*e))) {
		lrb_write(&slot, 0, e, sizeof(*e));
		lrb_commit(&slot);
	}
}

void ok_call_checked(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	if (lrb_reserve(chan, &slot, 1, sizeof(*e)) < 0)
		return;
	lrb_write(&slot, 0, e, sizeof(*e));
	lrb_commit(&slot);
}

int ok_two_slots(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot a, b;

	if (lrb_reserve(chan, &a, 1, sizeof(*e)))
		return -1;
	if (lrb_reserve(chan, &b, 2, sizeof(*e))) {
		lrb_commit(&a);
		return -1;
	}
	lrb_commit(&b);
	lrb_commit(&a);
	return 0;
}

int bad_early_return(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;
	int ret;

	ret = lrb_reserve(chan, &slot, 1, sizeof(*e));	/* MISUSE */
	if (ret)
		return ret;
	if (!e->a)
		return -EINVAL;
	lrb_write(&slot, 0, e, sizeof(*e));
	lrb_commit(&slot);
	return 0;
}

void bad_branch(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	if (!lrb_reserve(chan, &slot, 1, sizeof(*e))) {	/* MISUSE */
		lrb_write(&slot, 0, e, sizeof(*e));
		if (e->a)
			lrb_commit(&slot);
	}
}

void bad_fall_off(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	if (lrb_reserve(chan, &slot, 1, sizeof(*e)))	/* MISUSE */
		return;
	lrb_write(&slot, 0, e, sizeof(*e));
	if (e->a)
		lrb_commit(&slot);
}

void bad_commit_after_fail(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;
	int ret;

	ret = lrb_reserve(chan, &slot, 1, sizeof(*e));
	if (ret) {
		lrb_commit(&slot);	/* MISUSE */
		return;
	}
	lrb_write(&slot, 0, e, sizeof(*e));
	lrb_commit(&slot);
}

void bad_unchecked(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	lrb_reserve(chan, &slot, 1, sizeof(*e));
	lrb_write(&slot, 0, e, sizeof(*e));	/* MISUSE */
	lrb_commit(&slot);
}

void bad_twice(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;

	if (lrb_reserve(chan, &slot, 1, sizeof(*e)))
		return;
	lrb_write(&slot, 0, e, sizeof(*e));
	lrb_commit(&slot);
	lrb_commit(&slot);	/* MISUSE */
}

int ok_ret_block(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;
	int ret;

	ret = lrb_reserve(chan, &slot, 1, sizeof(*e));
	if (!ret) {
		lrb_write(&slot, 0, e, sizeof(*e));
		lrb_commit(&slot);
	} else if (ret == -ENOSPC) {
		e->a++;
	}
	return ret;
}

int bad_ret_block(struct lrb_channel *chan, struct ev *e)
{
	struct lrb_slot slot;
	int ret;

	ret = lrb_reserve(chan, &slot, 1, sizeof(*e));	/* MISUSE */
	if (!ret) {
		lrb_write(&slot, 0, e, sizeof(*e));
		if (e->a)
			return -EINVAL;
		lrb_commit(&slot);
	}
	return ret;
}
