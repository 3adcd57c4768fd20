// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the LRB ring buffer.
 *
 * Each test pins itself to the CPU it starts on and drives the timestamp
 * clock by hand, so record positions and timestamps are exact. The
 * sub-buffer geometry the tests rely on (256-byte sub-buffers): a 72-byte
 * packet header leaves 184 bytes, room for thirteen 14-byte records (4-byte
 * compact header, 2-byte length and 8-byte payload) and 2 bytes of
 * padding.
 */

#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/lrb.h>
#include <linux/sched.h>
#include <linux/seq_buf.h>
#include <linux/sizes.h>
#include <linux/smp.h>

#include "lrb_events.h"

#define SB_SIZE		256UL
#define PHDR		sizeof(struct lrb_packet_header)
/* A record with an 8-byte payload: compact header, length word, payload. */
#define REC8		(LRB_HEADER_SIZE + LRB_LEN_SIZE + 8UL)
#define PER_SB		((SB_SIZE - PHDR) / REC8)	/* 13 */
/* Records that fill nine sub-buffers and open the tenth. */
#define WRAP_RECS	(9 * PER_SB + 1)

static u64 lrb_test_now;

static u64 lrb_test_clock(void)
{
	return READ_ONCE(lrb_test_now);
}

struct lrb_test_ctx {
	struct lrb_channel *chan;
	int cpu;
	struct completion woken;
	int woken_cpu;
};

static int lrb_test_init(struct kunit *test)
{
	struct lrb_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->cpu = raw_smp_processor_id();
	if (set_cpus_allowed_ptr(current, cpumask_of(ctx->cpu)))
		return -EINVAL;
	/* Affinity takes effect at the next schedule; we were on ctx->cpu. */
	ctx->cpu = raw_smp_processor_id();
	init_completion(&ctx->woken);
	test->priv = ctx;
	WRITE_ONCE(lrb_test_now, 1000);
	return 0;
}

static void lrb_test_exit(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;

	lrb_channel_destroy(ctx->chan);
}

static struct lrb_channel *chan_new(struct kunit *test, size_t subbuf_size,
				    unsigned int num, enum lrb_mode mode)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_config cfg = {
		.subbuf_size = subbuf_size,
		.num_subbufs = num,
		.mode = mode,
		.clock = lrb_test_clock,
	};

	ctx->chan = lrb_channel_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->chan));
	return ctx->chan;
}

static int write_u64(struct lrb_channel *chan, unsigned int id, u64 v)
{
	return lrb_write_record(chan, id, &v, sizeof(v));
}

/* Write @n 8-byte records carrying first, first + 1, ...; count successes. */
static unsigned int write_seq(struct lrb_channel *chan, u64 first,
			      unsigned int n)
{
	unsigned int i, ok = 0;

	for (i = 0; i < n; i++)
		ok += write_u64(chan, 1, first + i) == 0;
	return ok;
}

/*
 * Fill the rest of the sub-buffer that @n records of REC8 bytes began with
 * one record, which closes it.
 */
static int write_rest(struct lrb_channel *chan, unsigned int n)
{
	static const u8 payload[SB_SIZE];

	return lrb_write_record(chan, 2, payload, SB_SIZE - PHDR - n * REC8 -
				LRB_HEADER_SIZE - LRB_LEN_SIZE);
}

static u64 rec_u64(const struct lrb_record *rec)
{
	u64 v;

	memcpy(&v, rec->data, sizeof(v));
	return v;
}

static int config_err(size_t subbuf_size, unsigned int num, int mode)
{
	struct lrb_config cfg = {
		.subbuf_size = subbuf_size,
		.num_subbufs = num,
		.mode = mode,
	};
	struct lrb_channel *chan = lrb_channel_create(&cfg);

	if (IS_ERR(chan))
		return PTR_ERR(chan);
	lrb_channel_destroy(chan);
	return 0;
}

/*
 * Drain every complete sub-buffer of the test CPU. Checks that the
 * records carry consecutive u64 payloads starting at *next (if next is
 * not NULL) and returns the number of records read.
 */
static unsigned long drain(struct kunit *test, struct lrb_channel *chan,
			   int cpu, u64 *next)
{
	struct lrb_subbuf sb;
	unsigned long total = 0;

	while (lrb_get_subbuf(chan, cpu, &sb) == 0) {
		struct lrb_record_iter it = {};
		struct lrb_record rec;
		unsigned long n = 0;

		while (lrb_record_next(&sb, &it, &rec)) {
			if (next) {
				KUNIT_EXPECT_EQ(test, rec_u64(&rec), *next);
				(*next)++;
			}
			n++;
		}
		KUNIT_EXPECT_EQ(test, n, sb.records);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, cpu, &sb), 0);
		total += n;
	}
	return total;
}

static u64 lost_sum(const struct lrb_stats *st)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < LRB_LOST_NR; i++)
		sum += st->lost[i];
	return sum;
}

static void lrb_test_config_subbuf_size(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, config_err(0, 4, LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(300, 4, LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(LRB_SUBBUF_SIZE_MIN / 2, 4,
					 LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(LRB_SUBBUF_SIZE_MAX * 2, 2,
					 LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(LRB_SUBBUF_SIZE_MIN, 2,
					 LRB_MODE_DISCARD), 0);
}

static void lrb_test_config_num_subbufs(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, config_err(4096, 0, LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(4096, 1, LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(4096, 3, LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(256, LRB_NUM_SUBBUFS_MAX * 2,
					 LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(256, LRB_NUM_SUBBUFS_MAX,
					 LRB_MODE_DISCARD), 0);
}

static void lrb_test_config_total(struct kunit *test)
{
	/* Each bound holds alone; their product exceeds the CPU maximum. */
	KUNIT_EXPECT_EQ(test, config_err(LRB_SUBBUF_SIZE_MAX,
					 LRB_NUM_SUBBUFS_MAX,
					 LRB_MODE_DISCARD), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(LRB_SUBBUF_SIZE_MAX,
					 2 * LRB_CPU_BUF_SIZE_MAX /
					 LRB_SUBBUF_SIZE_MAX,
					 LRB_MODE_DISCARD), -EINVAL);
}

static void lrb_test_config_mode(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, config_err(4096, 4, 7), -EINVAL);
	KUNIT_EXPECT_EQ(test, config_err(4096, 4, -1), -EINVAL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(lrb_channel_create(NULL)), -EINVAL);
}

static void lrb_test_config_readback(struct kunit *test)
{
	struct lrb_channel *chan = chan_new(test, 4096, 8, LRB_MODE_OVERWRITE);
	const struct lrb_config *cfg = lrb_channel_config(chan);

	KUNIT_EXPECT_EQ(test, cfg->subbuf_size, 4096UL);
	KUNIT_EXPECT_EQ(test, cfg->num_subbufs, 8U);
	KUNIT_EXPECT_EQ(test, cfg->mode, LRB_MODE_OVERWRITE);
	KUNIT_EXPECT_TRUE(test, cfg->clock == lrb_test_clock);
}

static void lrb_test_round_trip(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 4096, 4, LRB_MODE_DISCARD);
	static const char msg[] = "lockless ring buffer";
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	struct lrb_stats st;

	WRITE_ONCE(lrb_test_now, 5000);
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 42, msg, sizeof(msg)), 0);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.records, 1UL);
	KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, rec.id, 42U);
	KUNIT_EXPECT_EQ(test, rec.len, sizeof(msg));
	KUNIT_EXPECT_EQ(test, rec.ts, 5000ULL);
	KUNIT_EXPECT_EQ(test, memcmp(rec.data, msg, sizeof(msg)), 0);
	KUNIT_EXPECT_FALSE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 1ULL);
	KUNIT_EXPECT_EQ(test, st.delivered, 1ULL);
	KUNIT_EXPECT_EQ(test, st.subbufs_delivered, 1ULL);
}

static void lrb_test_small_event_cost(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 4096, 4, LRB_MODE_DISCARD);
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	static const size_t lens[] = { 0, 4, 8, 0, 4 };
	struct lrb_stats st;
	u32 v = 7;
	int n = 0;

	/* Ids 2 and 3 have fixed lengths, 4 and 0 bytes; id 1 has none. */
	KUNIT_ASSERT_EQ(test, lrb_set_record_len(chan, 2, sizeof(v)), 0);
	KUNIT_ASSERT_EQ(test, lrb_set_record_len(chan, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, lrb_record_len(chan, 2), (int)sizeof(v));
	KUNIT_EXPECT_EQ(test, lrb_record_len(chan, 1), -1);
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 1, &v, 0), 0);
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 1, &v, sizeof(v)), 0);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 9), 0);
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 3, &v, 0), 0);
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 2, &v, sizeof(v)), 0);
	/* Another length for a fixed id: refused, not counted. */
	KUNIT_EXPECT_EQ(test, write_u64(chan, 2, 9), -EINVAL);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	/*
	 * A 4-byte header, then a 2-byte length but for the fixed ids: 6
	 * bytes for an empty event, 10 and 14 for 4- and 8-byte payloads,
	 * 4 and 8 with fixed lengths. Nothing is padded, so the content
	 * ends at the last payload.
	 */
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + 6 + 10 + 14 + 4 + 8);
	KUNIT_EXPECT_EQ(test, sb.records, 5UL);
	while (n < (int)ARRAY_SIZE(lens) && lrb_record_next(&sb, &it, &rec))
		KUNIT_EXPECT_EQ(test, rec.len, lens[n++]);
	KUNIT_EXPECT_FALSE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, rec.id, 2U);
	KUNIT_EXPECT_EQ(test, *(u32 *)rec.data, v);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 5ULL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_exact_fill(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB - 1), PER_SB - 1);
	/* 16 bytes left: a record with a 10-byte payload fills them. */
	KUNIT_ASSERT_EQ(test, write_rest(chan, PER_SB - 1), 0);
	/* Delivered without a flush. */
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.content_size, SB_SIZE);
	KUNIT_EXPECT_EQ(test, sb.padded_size, SB_SIZE);
	KUNIT_EXPECT_EQ(test, sb.records, PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	/* Nothing was opened after it. */
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
}

/*
 * A packet is its content rounded up to 8 bytes: a reader copies at most 7
 * bytes of padding, whatever the sub-buffer size, and the last record of a
 * full sub-buffer leaves the packet within it.
 */
static void lrb_test_packet_size(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SZ_16K, 2, LRB_MODE_DISCARD);
	/* 86, 100 and 128 bytes of content; 16,382 in 16 KiB. */
	const unsigned int n[] = { 1, 2, 4, (SZ_16K - PHDR) / REC8 };
	const size_t packet[] = { 88, 104, 128, SZ_16K };
	const struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(n); i++) {
		KUNIT_ASSERT_EQ(test, write_seq(chan, 0, n[i]), n[i]);
		lrb_flush(chan, ctx->cpu);
		KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
		ph = sb.data;
		KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + n[i] * REC8);
		KUNIT_EXPECT_EQ(test, sb.padded_size, packet[i]);
		KUNIT_EXPECT_EQ(test, ph->packet_size, sb.padded_size * 8);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	}
}

static void lrb_test_no_fit_pads(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	const struct lrb_packet_header *ph;
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB + 1), PER_SB + 1);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + PER_SB * REC8);
	KUNIT_EXPECT_EQ(test, ph->content_size, (PHDR + PER_SB * REC8) * 8);
	KUNIT_EXPECT_EQ(test, ph->packet_size, SB_SIZE * 8);
	KUNIT_EXPECT_EQ(test, sb.records, PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	/* The fourteenth record opened the next sub-buffer. */
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + REC8);
	KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, rec_u64(&rec), (u64)PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_too_big(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	size_t room = SB_SIZE - PHDR - LRB_HEADER_SIZE - LRB_LEN_SIZE;
	/* As large as the largest write tried, though none of those is made. */
	static u8 payload[4096];
	struct lrb_stats st;
	struct lrb_slot slot;

	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 1, payload, room + 1),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 1, payload, 4096), -E2BIG);
	/* Lengths that would wrap the size computation. */
	KUNIT_EXPECT_EQ(test, lrb_reserve(chan, &slot, 1, SIZE_MAX), -E2BIG);
	KUNIT_EXPECT_EQ(test, lrb_reserve(chan, &slot, 1, SIZE_MAX - 20), -E2BIG);
	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 1, payload, room), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_TOO_BIG], 4ULL);
	KUNIT_EXPECT_EQ(test, st.written, 5ULL);
	/* The record that fits filled its sub-buffer exactly. */
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, NULL), 1UL);
}

static void lrb_test_bad_id(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_stats st;

	KUNIT_EXPECT_EQ(test, write_u64(chan, LRB_EVENT_ID_MAX + 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, write_u64(chan, LRB_EVENT_ID_MAX, 0), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 1ULL);
	KUNIT_EXPECT_EQ(test, lost_sum(&st), 0ULL);
}

static void lrb_test_discard_full(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_stats st;
	u64 next = 0;

	/* Four sub-buffers of eleven records hold 44 of 100. */
	KUNIT_EXPECT_EQ(test, write_seq(chan, 0, 100), 4 * PER_SB);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 100ULL);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_FULL], 100 - 4 * PER_SB);
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next), 4 * PER_SB);
	/* Room again once drained; the oldest records were kept. */
	KUNIT_EXPECT_EQ(test, write_seq(chan, next, 3), 3U);
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next), 3UL);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

static void lrb_test_overwrite_wrap(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4,
					    LRB_MODE_OVERWRITE);
	struct lrb_stats st;
	u64 next;

	KUNIT_EXPECT_EQ(test, write_seq(chan, 0, WRAP_RECS), WRAP_RECS);
	/*
	 * The records fill nine sub-buffers, the last one opens the tenth:
	 * six full sub-buffers were reused.
	 */
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_OVERWRITTEN], 6 * PER_SB);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_FULL], 0ULL);
	lrb_flush(chan, ctx->cpu);
	next = 6 * PER_SB;
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next),
			WRAP_RECS - 6 * PER_SB);
	KUNIT_EXPECT_EQ(test, next, (u64)WRAP_RECS);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

static void lrb_test_overwrite_held(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 2,
					    LRB_MODE_OVERWRITE);
	struct lrb_subbuf sb;
	struct lrb_stats st;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB + 1), PER_SB + 1);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	/* Wrap onto the held sub-buffer. */
	KUNIT_ASSERT_EQ(test, write_seq(chan, 100, PER_SB), PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), -EIO);
	lrb_flush(chan, ctx->cpu);
	drain(test, chan, ctx->cpu, NULL);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_OVERWRITTEN], PER_SB);
	KUNIT_EXPECT_EQ(test, st.delivered, PER_SB + 1);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

/*
 * Records of many sizes, so sub-buffers hold different numbers of them: the
 * counts a writer takes when it overwrites and a reader when it reads (from
 * the commit counts, without reading the records) match the records.
 */
static void lrb_test_counts_mixed(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4,
					    LRB_MODE_OVERWRITE);
	static const u8 payload[64];
	struct lrb_stats st;
	int i;

	for (i = 0; i < 500; i++)
		KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 1, payload,
						       (i * 7) % 61), 0);
	lrb_flush(chan, ctx->cpu);
	/* drain() checks each sub-buffer's count against its records. */
	drain(test, chan, ctx->cpu, NULL);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 500ULL);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_OVERWRITTEN],
			500 - st.delivered);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

static void lrb_test_get_put_order(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb, other;
	u64 seq;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, 3 * PER_SB + 1), 3 * PER_SB + 1);
	for (seq = 0; seq < 3; seq++) {
		const struct lrb_packet_header *ph;

		KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
		ph = sb.data;
		KUNIT_EXPECT_EQ(test, ph->packet_seq_num, seq);
		KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &other),
				-EBUSY);
		other = sb;
		other.pos += SB_SIZE;
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &other),
				-EINVAL);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb),
				-EINVAL);
	}
	/* The fourth is still open. */
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
}

static void lrb_test_corrupt_skipped(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	struct lrb_stats st;

	/* Sub-buffers 0 and 1 full, 2 open with one record. */
	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, 2 * PER_SB + 1), 2 * PER_SB + 1);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	/* The sub-buffers are contiguous: corrupt the next one. */
	ph = (void *)sb.data + SB_SIZE;
	KUNIT_ASSERT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	ph->magic = 0;
	/* Skipped and counted; the stream goes on with sub-buffer 2. */
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = (void *)sb.data;
	KUNIT_EXPECT_EQ(test, ph->packet_seq_num, 2ULL);
	KUNIT_EXPECT_EQ(test, sb.records, 1UL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.subbufs_corrupt, 1ULL);
	KUNIT_EXPECT_EQ(test, st.subbufs_delivered, 2ULL);
}

/*
 * Sub-buffers of 4 MiB, each closed by a flush after one record, take the
 * positions past 4 GiB, where unsigned long wraps on 32-bit: the
 * packet_seq_num and the position of each sub-buffer go on in 64 bits.
 */
static void lrb_test_positions_64bit(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, LRB_SUBBUF_SIZE_MAX, 2,
					    LRB_MODE_DISCARD);
	const struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	u64 seq;

	for (seq = 0; seq <= SZ_4G / LRB_SUBBUF_SIZE_MAX; seq++) {
		KUNIT_ASSERT_EQ(test, write_u64(chan, 1, seq), 0);
		lrb_flush(chan, ctx->cpu);
		KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
		ph = sb.data;
		KUNIT_ASSERT_EQ(test, ph->packet_seq_num, seq);
		KUNIT_ASSERT_EQ(test, sb.pos, seq * LRB_SUBBUF_SIZE_MAX);
		KUNIT_ASSERT_EQ(test, sb.records, 1UL);
		KUNIT_ASSERT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	}
}

static void lrb_test_incomplete_refused(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb;

	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 1), 0);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), -EINVAL);
}

static void lrb_test_flush_partial(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb;
	u64 next = 0;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, 3), 3U);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + 3 * REC8);
	KUNIT_EXPECT_EQ(test, sb.records, 3UL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	/* A flush with nothing open delivers nothing. */
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	/* Writing goes on in a new sub-buffer. */
	next = 3;
	KUNIT_ASSERT_EQ(test, write_seq(chan, 3, 2), 2U);
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next), 2UL);
}

static void lrb_test_flush_reports_losses(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 2, LRB_MODE_DISCARD);
	const struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	struct lrb_stats st;
	int i;

	/* Fill both sub-buffers exactly: each is closed, none left open. */
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB - 1),
				PER_SB - 1);
		KUNIT_ASSERT_EQ(test, write_rest(chan, PER_SB - 1), 0);
	}
	KUNIT_EXPECT_EQ(test, write_seq(chan, 0, 3), 0U);
	/* Full: the flush has no room for a packet and writes none. */
	lrb_flush(chan, ctx->cpu);
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
		ph = sb.data;
		KUNIT_EXPECT_EQ(test, ph->events_discarded, 0ULL);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	}
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	/* Drained: the flush reports the 3 losses in an empty packet. */
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR);
	KUNIT_EXPECT_EQ(test, sb.records, 0UL);
	KUNIT_EXPECT_EQ(test, ph->events_discarded, 3ULL);
	KUNIT_EXPECT_EQ(test, ph->packet_seq_num, 2ULL);
	KUNIT_EXPECT_EQ(test, ph->content_size, PHDR * 8);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	/* Reported once: the next flush writes nothing. */
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	/* Writing goes on after the empty packet. */
	KUNIT_EXPECT_EQ(test, write_seq(chan, 0, 1), 1U);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, ph->packet_seq_num, 3ULL);
	KUNIT_EXPECT_EQ(test, sb.records, 1UL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + st.lost[LRB_LOST_FULL]);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_FULL], 3ULL);
}

static void lrb_test_unget_ready(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb, again;
	struct lrb_stats st;

	KUNIT_EXPECT_FALSE(test, lrb_subbuf_ready(chan, ctx->cpu));
	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, 3), 3U);
	/* Open, not complete: not ready. */
	KUNIT_EXPECT_FALSE(test, lrb_subbuf_ready(chan, ctx->cpu));
	lrb_flush(chan, ctx->cpu);
	KUNIT_EXPECT_TRUE(test, lrb_subbuf_ready(chan, ctx->cpu));
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	lrb_unget_subbuf(chan, ctx->cpu, &sb);
	/* Given back unconsumed: the same sub-buffer comes again. */
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &again), 0);
	KUNIT_EXPECT_EQ(test, again.pos, sb.pos);
	KUNIT_EXPECT_EQ(test, again.records, 3UL);
	/* The old handle can no longer put it back. */
	lrb_unget_subbuf(chan, ctx->cpu, &again);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &again), -EINVAL);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &again), 0);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &again), 0);
	KUNIT_EXPECT_FALSE(test, lrb_subbuf_ready(chan, ctx->cpu));
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.delivered, 3ULL);
	KUNIT_EXPECT_EQ(test, st.subbufs_delivered, 1ULL);
	KUNIT_EXPECT_FALSE(test, lrb_subbuf_ready(chan, nr_cpu_ids));
}

static void lrb_test_nested_writers(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_slot outer, inner;
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	u64 a = 0xaaaa, b = 0xbbbb;

	WRITE_ONCE(lrb_test_now, 100);
	KUNIT_ASSERT_EQ(test, lrb_reserve(chan, &outer, 1, sizeof(a)), 0);
	WRITE_ONCE(lrb_test_now, 200);
	KUNIT_ASSERT_EQ(test, lrb_reserve(chan, &inner, 2, sizeof(b)), 0);
	lrb_write(&inner, 0, &b, sizeof(b));
	lrb_commit(&inner);
	lrb_write(&outer, 0, &a, sizeof(a));
	lrb_commit(&outer);
	lrb_flush(chan, ctx->cpu);

	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, rec.id, 1U);
	KUNIT_EXPECT_EQ(test, rec_u64(&rec), a);
	KUNIT_EXPECT_EQ(test, rec.ts, 100ULL);
	KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, rec.id, 2U);
	KUNIT_EXPECT_EQ(test, rec_u64(&rec), b);
	KUNIT_EXPECT_EQ(test, rec.ts, 200ULL);
	KUNIT_EXPECT_FALSE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_nesting_limit(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_slot slot[LRB_NESTING_MAX + 1];
	struct lrb_stats st;
	int i;

	for (i = 0; i < LRB_NESTING_MAX; i++)
		KUNIT_ASSERT_EQ(test, lrb_reserve(chan, &slot[i], 1, 8), 0);
	KUNIT_EXPECT_EQ(test, lrb_reserve(chan, &slot[i], 1, 8), -EBUSY);
	for (i = LRB_NESTING_MAX - 1; i >= 0; i--) {
		u64 v = i;

		lrb_write(&slot[i], 0, &v, sizeof(v));
		lrb_commit(&slot[i]);
	}
	/* Once closed, a reservation is possible again. */
	KUNIT_EXPECT_EQ(test, write_u64(chan, 1, LRB_NESTING_MAX), 0);
	lrb_flush(chan, ctx->cpu);
	{
		u64 next = 0;

		KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next),
				(unsigned long)LRB_NESTING_MAX + 1);
	}
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_NESTED], 1ULL);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

static void lrb_test_open_slot_blocks_delivery(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_subbuf sb;
	struct lrb_slot open;
	u64 v = 0;

	KUNIT_ASSERT_EQ(test, lrb_reserve(chan, &open, 1, sizeof(v)), 0);
	/* Fill the rest of the sub-buffer and move to the next one. */
	KUNIT_ASSERT_EQ(test, write_seq(chan, 1, PER_SB), PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), -EAGAIN);
	lrb_write(&open, 0, &v, sizeof(v));
	lrb_commit(&open);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.records, PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_timestamps(struct kunit *test)
{
	static const u64 when[] = {
		10, 10, 11, 500, (1ULL << 27) - 1, 1ULL << 27,
		(1ULL << 27) + 5, (1ULL << 32) - 1, 1ULL << 32,
		(1ULL << 32) + 5, 3ULL << 33, (3ULL << 33) + 1,
	};
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 4096, 4, LRB_MODE_DISCARD);
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	u64 prev = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(when); i++) {
		WRITE_ONCE(lrb_test_now, when[i]);
		KUNIT_ASSERT_EQ(test, write_u64(chan, 3, i), 0);
	}
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	for (i = 0; lrb_record_next(&sb, &it, &rec); i++) {
		KUNIT_ASSERT_LT(test, i, (int)ARRAY_SIZE(when));
		KUNIT_EXPECT_EQ(test, rec.ts, when[i]);
		KUNIT_EXPECT_GE(test, rec.ts, prev);
		KUNIT_EXPECT_EQ(test, rec_u64(&rec), (u64)i);
		prev = rec.ts;
	}
	KUNIT_EXPECT_EQ(test, i, (int)ARRAY_SIZE(when));
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_extended_header(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 4096, 4, LRB_MODE_DISCARD);
	const size_t ext = sizeof(struct lrb_record_header_ext);
	struct lrb_subbuf sb;
	u64 t;

	struct lrb_record_iter it = {};
	struct lrb_record rec;
	int n = 0;

	KUNIT_ASSERT_EQ(test, lrb_set_record_len(chan, 5, 8), 0);
	/* Fixed once: the same length again is no change, another one is. */
	KUNIT_EXPECT_EQ(test, lrb_set_record_len(chan, 5, 8), 0);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len(chan, 5, 4), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len(chan, 6, 255), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len(chan, LRB_ID_EXTENDED, 8),
			-EINVAL);
	WRITE_ONCE(lrb_test_now, 1000);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 0), 0);
	/* 1 s later: beyond the 2^27 ns of a compact header, the long form. */
	WRITE_ONCE(lrb_test_now, 1000 + 1000000000ULL);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 1), 0);
	/* Same high bits again: compact. */
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 2), 0);
	/* Long as well with a fixed length, without the length word. */
	WRITE_ONCE(lrb_test_now, 1000 + 2000000000ULL);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 5, 3), 0);
	/* An id above 30 has no compact header. */
	KUNIT_ASSERT_EQ(test, write_u64(chan, LRB_ID_EXTENDED, 4), 0);
	/*
	 * 5 ns past the next multiple of 2^27: compact on 64-bit, where only
	 * the gap counts, and the reader carries one into the bits above;
	 * 2^27 ns later, long; 2^27 - 1 ns later again, compact on 64-bit.
	 * 32-bit machines take the long form whenever the bits above change.
	 */
	t = round_up(1000 + 2000000000ULL, BIT_ULL(LRB_TS_BITS)) + 5;
	WRITE_ONCE(lrb_test_now, t);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 5), 0);
	WRITE_ONCE(lrb_test_now, t + BIT_ULL(LRB_TS_BITS));
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 6), 0);
	t += 2 * BIT_ULL(LRB_TS_BITS) - 1;
	WRITE_ONCE(lrb_test_now, t);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, 7), 0);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.content_size, PHDR + REC8 + ext + 2 + 8 +
			REC8 + ext + 8 + ext + 2 + 8 +
			(IS_ENABLED(CONFIG_64BIT) ? REC8 : ext + 2 + 8) +
			ext + 2 + 8 +
			(IS_ENABLED(CONFIG_64BIT) ? REC8 : ext + 2 + 8));
	while (lrb_record_next(&sb, &it, &rec)) {
		KUNIT_EXPECT_EQ(test, rec_u64(&rec), (u64)n);
		KUNIT_EXPECT_EQ(test, rec.len, (size_t)8);
		if (n == 4)
			KUNIT_EXPECT_EQ(test, rec.id,
					(unsigned int)LRB_ID_EXTENDED);
		if (n == 5)
			KUNIT_EXPECT_EQ(test, rec.ts,
					t + 1 - BIT_ULL(LRB_TS_BITS + 1));
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, 8);
	KUNIT_EXPECT_EQ(test, rec.ts, t);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

/*
 * Records whose payload holds their length, as ftrace's entries with
 * dynamic fields do: a 2-byte field, then at byte 2 a u32 of an offset
 * counted from 8 bytes before the payload (ftrace's common fields, which
 * the record leaves out) and a length, then that many bytes of data.
 */
static void lrb_test_len_at(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 4096, 4, LRB_MODE_DISCARD);
	static const size_t data[] = { 0, 5, 40, 200 };
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	struct lrb_stats st;
	u8 p[64] = {};
	unsigned int i;
	int base = 0;

	KUNIT_ASSERT_EQ(test, lrb_set_record_len_at(chan, 4, 2, 8), 0);
	/* The same rule again is no change; another one, or a length, is. */
	KUNIT_EXPECT_EQ(test, lrb_set_record_len_at(chan, 4, 2, 8), 0);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len_at(chan, 4, 3, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len(chan, 4, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len_at(chan, 5, U8_MAX, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len_at(chan, 5, 0, S16_MAX + 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_set_record_len_at(chan, LRB_ID_EXTENDED, 2,
						    0), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_record_len_at(chan, 4, &base), 2);
	KUNIT_EXPECT_EQ(test, base, 8);
	KUNIT_EXPECT_EQ(test, lrb_record_len_at(chan, 5, &base), -1);
	KUNIT_EXPECT_EQ(test, lrb_record_len(chan, 4), -1);
	/* Too short to hold the u32: refused, not counted. */
	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 4, p, 5), -EINVAL);
	WRITE_ONCE(lrb_test_now, 1000);
	/* The last one says 200 bytes but has 58: a reader stops at it. */
	for (i = 0; i < ARRAY_SIZE(data); i++) {
		put_unaligned((u32)data[i] << 16 | (8 + 6), (u32 *)(p + 2));
		KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 4, p, 6 +
				min(data[i], sizeof(p) - 6)), 0);
	}
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	/* A 4-byte header and the payload each: no length word. */
	KUNIT_EXPECT_EQ(test, sb.content_size,
			PHDR + 4 * (4 + 6) + 0 + 5 + 40 + 58);
	for (i = 0; lrb_record_next(&sb, &it, &rec); i++) {
		KUNIT_ASSERT_LT(test, i, 3U);
		KUNIT_EXPECT_EQ(test, rec.id, 4U);
		KUNIT_EXPECT_EQ(test, rec.len, 6 + data[i]);
	}
	KUNIT_EXPECT_EQ(test, i, 3U);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 4ULL);
}

static void lrb_test_long_record(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, 1UL << 17, 2,
					    LRB_MODE_DISCARD);
	struct lrb_record_iter it = {};
	struct lrb_record rec;
	struct lrb_subbuf sb;
	size_t len = LRB_RECORD_LEN_MAX;
	u8 *p = kunit_kmalloc(test, len + 1, GFP_KERNEL);
	struct lrb_stats st;

	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x5a, len + 1);
	/* One byte more than the 16-bit length field describes... */
	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 9, p, len + 1), -E2BIG);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_TOO_BIG], 1ULL);
	/* ...and the longest payload, which fits. */
	KUNIT_ASSERT_EQ(test, lrb_write_record(chan, 9, p, len), 0);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
	KUNIT_EXPECT_EQ(test, rec.id, 9U);
	KUNIT_EXPECT_EQ(test, rec.len, len);
	KUNIT_EXPECT_EQ(test, memcmp(rec.data, p, len), 0);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

static void lrb_test_packet_header(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	static u8 big[SB_SIZE];
	const struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	int i;

	for (i = 0; i < PER_SB; i++) {
		WRITE_ONCE(lrb_test_now, 2000 + i);
		KUNIT_ASSERT_EQ(test, write_u64(chan, 1, i), 0);
	}
	KUNIT_EXPECT_EQ(test, lrb_write_record(chan, 1, big, sizeof(big)),
			-E2BIG);
	WRITE_ONCE(lrb_test_now, 3000);
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, i), 0);

	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, ph->magic, LRB_PACKET_MAGIC);
	KUNIT_EXPECT_EQ(test, ph->stream_id, 0U);
	KUNIT_EXPECT_EQ(test, ph->stream_instance_id, (u64)ctx->cpu);
	KUNIT_EXPECT_EQ(test, ph->cpu_id, (u32)ctx->cpu);
	KUNIT_EXPECT_EQ(test, ph->packet_seq_num, 0ULL);
	KUNIT_EXPECT_EQ(test, ph->timestamp_begin, 2000ULL);
	/* Closed by the record that did not fit, at its time. */
	KUNIT_EXPECT_EQ(test, ph->timestamp_end, 3000ULL);
	KUNIT_EXPECT_EQ(test, ph->content_size, (PHDR + PER_SB * REC8) * 8);
	KUNIT_EXPECT_EQ(test, ph->packet_size, SB_SIZE * 8);
	KUNIT_EXPECT_EQ(test, ph->events_discarded, 1ULL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);

	WRITE_ONCE(lrb_test_now, 4000);
	lrb_flush(chan, ctx->cpu);
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, ctx->cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, ph->packet_seq_num, 1ULL);
	KUNIT_EXPECT_EQ(test, ph->timestamp_begin, 3000ULL);
	KUNIT_EXPECT_EQ(test, ph->timestamp_end, 4000ULL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, ctx->cpu, &sb), 0);
}

#ifdef CONFIG_LRB_TRACE_EVENTS
/*
 * The metadata of a __data_loc word, read as a CTF reader reads it: bit
 * fields from the least significant bit of a little-endian word, from the
 * most significant bit of a big-endian one, each right after the previous
 * one (a field of whole bytes is byte-aligned, a bit field bit-aligned).
 * Each split of the length must give back the offset and the length
 * stored as one native u32.
 */
static void lrb_test_data_loc_tsdl(struct kunit *test)
{
	struct lrb_te_loc_part part[3];
	unsigned int esize, i, n;
	const char *align;
	struct seq_buf s;
	char tsdl[128];

	for (esize = 1; esize <= 8; esize <<= 1) {
		u32 off = 0x1234, len = 0x0a58, word = len << 16 | off;
		u32 got_off = ~0U, got_len = 0, shift = 0, v;

		n = lrb_te_loc_parts(esize, part);
		KUNIT_ASSERT_LE(test, n, 3U);
		for (i = 0; i < n; i++) {
			align = part[i].bits % 8 ? "align = 1;" : "align = 8;";
			seq_buf_init(&s, tsdl, sizeof(tsdl));
			lrb_tsdl_integer(&s, part[i].name, part[i].bits, 0, "");
			KUNIT_EXPECT_NOT_NULL_MSG(test,
						  strstr(seq_buf_str(&s), align),
						  "%s", tsdl);
			if (IS_ENABLED(CONFIG_CPU_BIG_ENDIAN))
				v = word >> (32 - shift - part[i].bits);
			else
				v = word >> shift;
			v &= (1U << part[i].bits) - 1;
			shift += part[i].bits;
			if (!strcmp(part[i].name, "off")) {
				got_off = v;
			} else if (!strcmp(part[i].name, "len_low")) {
				got_len |= v;
			} else {
				KUNIT_EXPECT_STREQ(test, part[i].name, "len");
				/* The sequence's length: elements, not bytes. */
				KUNIT_EXPECT_EQ(test, v, len / esize);
				got_len |= v << (16 - part[i].bits);
			}
		}
		KUNIT_EXPECT_EQ(test, shift, 32U);
		KUNIT_EXPECT_EQ(test, got_off, off);
		KUNIT_EXPECT_EQ(test, got_len, len);
	}
}
#endif

static void lrb_test_stats_reconcile(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 2, LRB_MODE_DISCARD);
	static u8 big[SB_SIZE];
	struct lrb_stats st;
	unsigned long got = 0;
	int round;

	for (round = 0; round < 5; round++) {
		write_seq(chan, 0, 3 * PER_SB);
		lrb_write_record(chan, 1, big, sizeof(big));
		got += drain(test, chan, ctx->cpu, NULL);
	}
	lrb_flush(chan, ctx->cpu);
	got += drain(test, chan, ctx->cpu, NULL);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, 5ULL * (3 * PER_SB + 1));
	KUNIT_EXPECT_EQ(test, st.delivered, (u64)got);
	KUNIT_EXPECT_EQ(test, st.lost[LRB_LOST_TOO_BIG], 5ULL);
	KUNIT_EXPECT_GT(test, st.lost[LRB_LOST_FULL], 0ULL);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

/* A count carries past 32 bits on every architecture. */
static void lrb_test_counter_carry(struct kunit *test)
{
	struct lrb_counter c = {};
	unsigned long big = U32_MAX;

	/* At run time: x86-64's local_add() takes no 64-bit immediate. */
	OPTIMIZER_HIDE_VAR(big);
	local_set(&c.lo, U32_MAX - 1);
	lrb_counter_add(&c, 1);
	KUNIT_EXPECT_EQ(test, lrb_counter_read(&c), (u64)U32_MAX);
	lrb_counter_add(&c, 3);
	KUNIT_EXPECT_EQ(test, lrb_counter_read(&c), BIT_ULL(32) + 2);
	lrb_counter_add(&c, big);
	KUNIT_EXPECT_EQ(test, lrb_counter_read(&c), BIT_ULL(33) + 1);
}

static void lrb_test_bad_cpu(struct kunit *test)
{
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 2, LRB_MODE_DISCARD);
	struct lrb_subbuf sb = {};
	struct lrb_stats st;

	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, -1, &sb), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(chan, nr_cpu_ids, &sb), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, nr_cpu_ids, &sb), -EINVAL);
	lrb_flush(chan, nr_cpu_ids);
	memset(&st, 0xff, sizeof(st));
	lrb_stats_read(chan, -1, &st);
	KUNIT_EXPECT_EQ(test, st.written, 0ULL);
}

static void lrb_test_wakeup_fn(struct lrb_channel *chan, int cpu, void *priv)
{
	struct lrb_test_ctx *ctx = priv;

	ctx->woken_cpu = cpu;
	complete(&ctx->woken);
}

static void lrb_test_wakeup(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_config cfg = {
		.subbuf_size = SB_SIZE,
		.num_subbufs = 2,
		.wakeup = lrb_test_wakeup_fn,
		.priv = ctx,
		.clock = lrb_test_clock,
	};

	ctx->chan = lrb_channel_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->chan));
	KUNIT_ASSERT_EQ(test, write_seq(ctx->chan, 0, PER_SB), PER_SB);
	/* No sub-buffer delivered yet: no wakeup. */
	KUNIT_EXPECT_EQ(test, wait_for_completion_timeout(&ctx->woken,
							  HZ / 10), 0UL);
	KUNIT_ASSERT_EQ(test, write_u64(ctx->chan, 1, 0), 0);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&ctx->woken,
							  5 * HZ), 0UL);
	KUNIT_EXPECT_EQ(test, ctx->woken_cpu, ctx->cpu);
}

struct lrb_test_ipi {
	struct lrb_channel *chan;
	u64 v;
	int ret;
};

static void lrb_test_ipi_write(void *info)
{
	struct lrb_test_ipi *w = info;

	w->ret = write_u64(w->chan, smp_processor_id(), w->v);
}

/*
 * Write one record from an IPI callback on @cpu: in hardirq context, or in
 * the idle loop with interrupts off when @cpu was polling.
 */
static int ipi_write(int cpu, struct lrb_test_ipi *w)
{
	return smp_call_function_single(cpu, lrb_test_ipi_write, w, 1);
}

static void lrb_test_irq_writers(struct kunit *test)
{
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	struct lrb_test_ipi w = { .chan = chan };
	int cpu;

	for_each_online_cpu(cpu) {
		struct lrb_record_iter it = {};
		struct lrb_record rec;
		struct lrb_subbuf sb;

		w.v = 1000 + cpu;
		KUNIT_EXPECT_EQ(test, ipi_write(cpu, &w), 0);
		KUNIT_EXPECT_EQ(test, w.ret, 0);
		lrb_flush(chan, cpu);
		KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, cpu, &sb), 0);
		KUNIT_ASSERT_TRUE(test, lrb_record_next(&sb, &it, &rec));
		KUNIT_EXPECT_EQ(test, rec.id, (unsigned int)cpu);
		KUNIT_EXPECT_EQ(test, rec_u64(&rec), 1000ULL + cpu);
		KUNIT_EXPECT_EQ(test, ((const struct lrb_packet_header *)
				       sb.data)->cpu_id, (u32)cpu);
		KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, cpu, &sb), 0);
	}
}

/*
 * A CPU that can go offline, not the one the test runs on (the test moves
 * itself away if needed); -1 if there is none.
 */
static int hotplug_target(struct lrb_test_ctx *ctx)
{
	unsigned int cpu, other;

	for_each_online_cpu(cpu) {
		if (!cpu_is_hotpluggable(cpu))
			continue;
		if (cpu != ctx->cpu)
			return cpu;
		other = cpumask_any_but(cpu_online_mask, cpu);
		if (other < nr_cpu_ids &&
		    !set_cpus_allowed_ptr(current, cpumask_of(other))) {
			ctx->cpu = other;
			return cpu;
		}
	}
	return -1;
}

static void lrb_test_hotplug(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan;
	struct lrb_test_ipi w = {};
	const struct lrb_packet_header *ph;
	struct lrb_subbuf sb;
	int cpu;
	u64 next;

	if (!IS_ENABLED(CONFIG_HOTPLUG_CPU) || num_online_cpus() < 2)
		kunit_skip(test, "needs CPU hotplug and two online CPUs");
	cpu = hotplug_target(ctx);
	if (cpu < 0)
		kunit_skip(test, "no CPU can go offline");
	chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	w.chan = chan;
	KUNIT_EXPECT_FALSE(test, lrb_cpu_closed(chan, cpu));
	WRITE_ONCE(lrb_test_now, 5000);
	for (w.v = 0; w.v < 5; w.v++) {
		KUNIT_ASSERT_EQ(test, ipi_write(cpu, &w), 0);
		KUNIT_ASSERT_EQ(test, w.ret, 0);
	}
	/* The CPU that closes the dead one's sub-buffer has a clock behind. */
	WRITE_ONCE(lrb_test_now, 4000);
	KUNIT_ASSERT_EQ(test, remove_cpu(cpu), 0);
	KUNIT_EXPECT_TRUE(test, lrb_cpu_closed(chan, cpu));
	/* The outgoing CPU's sub-buffer was closed: all five are readable. */
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(chan, cpu, &sb), 0);
	ph = sb.data;
	KUNIT_EXPECT_EQ(test, sb.records, 5UL);
	/* Not before its last record, whatever the closing CPU's clock. */
	KUNIT_EXPECT_EQ(test, ph->timestamp_end, 5000ULL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(chan, cpu, &sb), 0);
	next = 5;
	KUNIT_ASSERT_EQ(test, add_cpu(cpu), 0);
	KUNIT_EXPECT_FALSE(test, lrb_cpu_closed(chan, cpu));
	WRITE_ONCE(lrb_test_now, 6000);
	for (w.v = 5; w.v < 8; w.v++) {
		KUNIT_ASSERT_EQ(test, ipi_write(cpu, &w), 0);
		KUNIT_EXPECT_EQ(test, w.ret, 0);
	}
	lrb_flush(chan, cpu);
	KUNIT_EXPECT_EQ(test, drain(test, chan, cpu, &next), 3UL);
}

/* Read the records of the snapshot window; check they count up from @next. */
static unsigned long snapshot_read(struct kunit *test, struct lrb_channel *chan,
				   u64 begin, u64 end, u64 next)
{
	size_t size = lrb_channel_config(chan)->subbuf_size;
	struct lrb_test_ctx *ctx = test->priv;
	unsigned long n = 0;
	struct lrb_subbuf sb;
	u64 pos;

	/* Positions step by the sub-buffer, packets may be smaller. */
	for (pos = begin; pos != end; pos += size) {
		struct lrb_record_iter it = {};
		struct lrb_record rec;

		KUNIT_ASSERT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, pos, &sb), 0);
		while (lrb_record_next(&sb, &it, &rec)) {
			KUNIT_EXPECT_EQ(test, rec_u64(&rec), next);
			next++;
			n++;
		}
		KUNIT_EXPECT_EQ(test, lrb_snapshot_put(chan, ctx->cpu, &sb), 0);
	}
	return n;
}

static void lrb_test_snapshot_window(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4,
					    LRB_MODE_OVERWRITE);
	u64 begin, end;
	struct lrb_stats st;
	u64 next;

	/* Nine sub-buffers filled, the tenth open: 6 to 9 hold data. */
	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, WRAP_RECS), WRAP_RECS);
	KUNIT_ASSERT_EQ(test, lrb_snapshot(chan, ctx->cpu, &begin, &end), 0);
	KUNIT_EXPECT_EQ(test, begin, 6 * SB_SIZE);
	KUNIT_EXPECT_EQ(test, end, 10 * SB_SIZE);
	KUNIT_EXPECT_EQ(test, snapshot_read(test, chan, begin, end, 6 * PER_SB),
			WRAP_RECS - 6 * PER_SB);
	/* Twice: nothing was consumed. */
	KUNIT_EXPECT_EQ(test, snapshot_read(test, chan, begin, end, 6 * PER_SB),
			WRAP_RECS - 6 * PER_SB);
	next = 6 * PER_SB;
	KUNIT_EXPECT_EQ(test, drain(test, chan, ctx->cpu, &next),
			WRAP_RECS - 6 * PER_SB);
	lrb_stats_read(chan, ctx->cpu, &st);
	KUNIT_EXPECT_EQ(test, st.written, st.delivered + lost_sum(&st));
}

static void lrb_test_snapshot_reused(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4,
					    LRB_MODE_OVERWRITE);
	u64 begin, end;
	struct lrb_subbuf sb;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, WRAP_RECS), WRAP_RECS);
	KUNIT_ASSERT_EQ(test, lrb_snapshot(chan, ctx->cpu, &begin, &end), 0);
	KUNIT_ASSERT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, begin, &sb), 0);
	/* A writer reuses the oldest sub-buffer while it is read. */
	KUNIT_ASSERT_EQ(test, write_u64(chan, 1, WRAP_RECS), 0);
	KUNIT_EXPECT_EQ(test, lrb_snapshot_put(chan, ctx->cpu, &sb), -ESTALE);
	KUNIT_EXPECT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, begin, &sb),
			-ESTALE);
	/* The rest of the window is intact. */
	KUNIT_EXPECT_EQ(test, snapshot_read(test, chan, begin + SB_SIZE, end,
					    7 * PER_SB), WRAP_RECS - 7 * PER_SB);
}

/*
 * A window past 4 GiB of positions (lrb_test_positions_64bit()), across
 * where unsigned long wraps on 32-bit: 64-bit positions, and the position
 * 4 GiB before one of them not taken for it.
 */
static void lrb_test_snapshot_64bit(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, LRB_SUBBUF_SIZE_MAX, 2,
					    LRB_MODE_OVERWRITE);
	u64 n = SZ_4G / LRB_SUBBUF_SIZE_MAX + 1, i, begin, end;
	struct lrb_subbuf sb;

	for (i = 0; i < n; i++) {
		KUNIT_ASSERT_EQ(test, write_u64(chan, 1, i), 0);
		lrb_flush(chan, ctx->cpu);
	}
	KUNIT_ASSERT_EQ(test, lrb_snapshot(chan, ctx->cpu, &begin, &end), 0);
	KUNIT_EXPECT_EQ(test, begin, (n - 2) * LRB_SUBBUF_SIZE_MAX);
	KUNIT_EXPECT_EQ(test, end, n * LRB_SUBBUF_SIZE_MAX);
	/* One record per sub-buffer, its index. */
	KUNIT_EXPECT_EQ(test, snapshot_read(test, chan, begin, end, n - 2), 2UL);
	KUNIT_EXPECT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, begin - SZ_4G,
					       &sb), -ESTALE);
}

static void lrb_test_snapshot_refused(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_channel *chan = chan_new(test, SB_SIZE, 4, LRB_MODE_DISCARD);
	u64 begin, end;
	struct lrb_subbuf sb;

	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB), PER_SB);
	KUNIT_EXPECT_EQ(test, lrb_snapshot(chan, ctx->cpu, &begin, &end),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, 0, &sb), -EINVAL);
	lrb_channel_destroy(chan);
	ctx->chan = NULL;

	chan = chan_new(test, SB_SIZE, 4, LRB_MODE_OVERWRITE);
	KUNIT_ASSERT_EQ(test, write_seq(chan, 0, PER_SB - 1), PER_SB - 1);
	/* Open, not complete, or not aligned. */
	KUNIT_EXPECT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, 0, &sb), -EAGAIN);
	KUNIT_EXPECT_EQ(test, lrb_snapshot_get(chan, ctx->cpu, 8, &sb), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_snapshot(chan, nr_cpu_ids, &begin, &end),
			-EINVAL);
}

static void lrb_test_switch_timer(struct kunit *test)
{
	struct lrb_test_ctx *ctx = test->priv;
	struct lrb_config cfg = {
		.subbuf_size = SB_SIZE,
		.num_subbufs = 4,
	};
	struct lrb_subbuf sb;
	int i;

	ctx->chan = lrb_channel_create(&cfg);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->chan));
	KUNIT_EXPECT_EQ(test, lrb_switch_timer_set(ctx->chan, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, lrb_switch_timer_set(ctx->chan,
						   LRB_SWITCH_TIMER_MAX_US + 1),
			-EINVAL);
	KUNIT_ASSERT_EQ(test, write_u64(ctx->chan, 1, 42), 0);
	/* Off: the open sub-buffer stays open. */
	msleep(30);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(ctx->chan, ctx->cpu, &sb), -EAGAIN);
	/* 1 ms: closed within a few ticks. */
	KUNIT_ASSERT_EQ(test, lrb_switch_timer_set(ctx->chan, 1000), 0);
	for (i = 0; i < 100; i++) {
		msleep(20);
		if (lrb_subbuf_ready(ctx->chan, ctx->cpu))
			break;
	}
	KUNIT_ASSERT_EQ(test, lrb_get_subbuf(ctx->chan, ctx->cpu, &sb), 0);
	KUNIT_EXPECT_EQ(test, sb.records, 1UL);
	KUNIT_EXPECT_EQ(test, lrb_put_subbuf(ctx->chan, ctx->cpu, &sb), 0);
	/* No records: no packet. */
	msleep(30);
	KUNIT_EXPECT_EQ(test, lrb_get_subbuf(ctx->chan, ctx->cpu, &sb), -EAGAIN);
	KUNIT_EXPECT_EQ(test, lrb_switch_timer_set(ctx->chan, 0), 0);
}

static struct kunit_case lrb_test_cases[] = {
	KUNIT_CASE(lrb_test_config_subbuf_size),
	KUNIT_CASE(lrb_test_config_num_subbufs),
	KUNIT_CASE(lrb_test_config_total),
	KUNIT_CASE(lrb_test_config_mode),
	KUNIT_CASE(lrb_test_config_readback),
	KUNIT_CASE(lrb_test_round_trip),
	KUNIT_CASE(lrb_test_small_event_cost),
	KUNIT_CASE(lrb_test_exact_fill),
	KUNIT_CASE(lrb_test_no_fit_pads),
	KUNIT_CASE(lrb_test_packet_size),
	KUNIT_CASE(lrb_test_too_big),
	KUNIT_CASE(lrb_test_bad_id),
	KUNIT_CASE(lrb_test_discard_full),
	KUNIT_CASE(lrb_test_overwrite_wrap),
	KUNIT_CASE(lrb_test_overwrite_held),
	KUNIT_CASE(lrb_test_counts_mixed),
	KUNIT_CASE(lrb_test_get_put_order),
	KUNIT_CASE(lrb_test_positions_64bit),
	KUNIT_CASE(lrb_test_incomplete_refused),
	KUNIT_CASE(lrb_test_corrupt_skipped),
	KUNIT_CASE(lrb_test_flush_partial),
	KUNIT_CASE(lrb_test_flush_reports_losses),
	KUNIT_CASE(lrb_test_unget_ready),
	KUNIT_CASE(lrb_test_nested_writers),
	KUNIT_CASE(lrb_test_nesting_limit),
	KUNIT_CASE(lrb_test_open_slot_blocks_delivery),
	KUNIT_CASE(lrb_test_timestamps),
	KUNIT_CASE(lrb_test_extended_header),
	KUNIT_CASE(lrb_test_len_at),
	KUNIT_CASE(lrb_test_long_record),
	KUNIT_CASE(lrb_test_packet_header),
#ifdef CONFIG_LRB_TRACE_EVENTS
	KUNIT_CASE(lrb_test_data_loc_tsdl),
#endif
	KUNIT_CASE(lrb_test_stats_reconcile),
	KUNIT_CASE(lrb_test_counter_carry),
	KUNIT_CASE(lrb_test_bad_cpu),
	KUNIT_CASE(lrb_test_wakeup),
	KUNIT_CASE(lrb_test_irq_writers),
	KUNIT_CASE(lrb_test_hotplug),
	KUNIT_CASE(lrb_test_snapshot_window),
	KUNIT_CASE(lrb_test_snapshot_reused),
	KUNIT_CASE(lrb_test_snapshot_64bit),
	KUNIT_CASE(lrb_test_snapshot_refused),
	KUNIT_CASE(lrb_test_switch_timer),
	{}
};

static struct kunit_suite lrb_test_suite = {
	.name = "lrb",
	.init = lrb_test_init,
	.exit = lrb_test_exit,
	.test_cases = lrb_test_cases,
};

kunit_test_suite(lrb_test_suite);

MODULE_DESCRIPTION("KUnit tests of the LRB ring buffer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
