/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of the flight recorder's ring (common/shm/recorder.{c,h}, the worker's writer in
 * common/worker/recorder_write.h): what a reader gets after the ring wrapped, what of each
 * packet is kept (snap), the fates the stages' metadata give, and a reader beside a writer
 * that never stops (no torn record comes out). The burst a dead worker held is recorded by
 * the primary (primary/record.c): tests/mp/life_quarantine.sh.
 * EAL without hugepages (test_eal.h), for real mbufs.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "recorder.h"
#include "recorder_write.h"
#include "stage.h"
#include "test.h"
#include "test_eal.h"

#define BURST 8
#define FRAME 200

static struct rte_mempool *pool;
static int meta_off;
static struct rte_mbuf *pkts[BURST];

/* Packet @seq: @len bytes, every one of them a function of seq and place, so that a record's
 * bytes say which packet they came from. */
static void
fill(struct rte_mbuf *m, uint64_t seq, uint16_t len)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);
	uint16_t i;

	m->data_len = len;
	m->pkt_len = len;
	for (i = 0; i < len; i++)
		d[i] = (uint8_t)(seq * 7 + i);
	mpe_meta_init(mpe_meta(m, meta_off), (uint16_t)(seq % 3));
}

static int
bytes_of(const struct mpe_rec *rec, uint64_t seq)
{
	uint16_t i;

	for (i = 0; i < rec->cap; i++)
		if (rec->data[i] != (uint8_t)(seq * 7 + i))
			return 0;
	return 1;
}

/* One burst of @n packets from @seq on, recorded, with each packet's fate from its number. */
static void
burst(struct mpe_rec_ring *r, uint64_t seq, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		fill(pkts[i], seq + i, (uint16_t)(20 + (seq + i) % 150));
		/* every 5th dropped by stage (seq % 2), every 7th malformed, the rest passed */
		if ((seq + i) % 5 == 0)
			mpe_meta(pkts[i], meta_off)->drop_stage = (uint8_t)(1 + (seq + i) % 2);
		if ((seq + i) % 7 == 0)
			mpe_meta(pkts[i], meta_off)->bad = 3;
		mpe_meta(pkts[i], meta_off)->rule = (uint32_t)((seq + i) % 4);
	}
	mpe_rec_write(r, pkts, n, 1000 + seq, meta_off);
}

static struct mpe_rec_ring *
new_ring(uint32_t packets, uint32_t snap)
{
	struct mpe_rec_ring *r = aligned_alloc(64, mpe_rec_ring_size(packets, snap));

	if (r == NULL)
		exit(2);
	mpe_rec_ring_init(r, packets, snap, BURST);
	return r;
}

static void
test_wrap(void)
{
	struct mpe_rec_ring *r = new_ring(64, 32);
	void *out = malloc(64 * r->rec_size);
	unsigned int n, k;
	uint64_t seq;

	n = mpe_rec_read(r, out, 3);
	CHECK(n == 0, "an empty ring gives %u records", n);
	for (seq = 0; seq < 200; seq += BURST)
		burst(r, seq, BURST);
	n = mpe_rec_read(r, out, 3);
	/* the writer may be writing the `ahead` slots past head: a reader keeps the others */
	CHECK(n == 64 - BURST, "after 200 packets, %u records read (want %u)", n, 64 - BURST);
	for (k = 0; k < n; k++) {
		const struct mpe_rec *rec = mpe_rec_at(r, out, k);
		uint64_t s = 200 - n + k;
		uint32_t len = 20 + s % 150;
		int dropped = s % 5 == 0;

		CHECK(rec->seq == s, "record %u: seq %lu, want %lu", k, (unsigned long)rec->seq,
		      (unsigned long)s);
		CHECK(rec->len == len && rec->cap == RTE_MIN(len, 32u),
		      "record %u: len %u cap %u (frame of %u, snap 32)", k, rec->len, rec->cap, len);
		CHECK(bytes_of(rec, s), "record %u: bytes are not packet %lu's", k, (unsigned long)s);
		CHECK(rec->in_port == s % 3 && rec->tsc == 1000 + s - s % BURST,
		      "record %u: port %u tsc %lu", k, rec->in_port, (unsigned long)rec->tsc);
		CHECK(rec->fate == (dropped ? MPE_REC_DROPPED : MPE_REC_PASSED),
		      "record %u: fate %u", k, rec->fate);
		CHECK(rec->stage == (dropped ? s % 2 : 3), "record %u: stage %u", k, rec->stage);
		CHECK(rec->bad == (s % 7 == 0 ? 3 : 0) && rec->rule == s % 4,
		      "record %u: bad %u rule %u", k, rec->bad, rec->rule);
	}
	free(out);
	free(r);
}

static void
test_snap(void)
{
	struct mpe_rec_ring *r = new_ring(64, 128);
	void *out = malloc(64 * r->rec_size);
	const uint16_t lens[] = {0, 1, 60, 127, 128, 129, FRAME};
	unsigned int n, k;

	CHECK(r->rec_size % 64 == 0 && r->rec_size >= MPE_REC_HDR_SIZE + 128,
	      "record size %u", r->rec_size);
	for (k = 0; k < TEST_DIM(lens); k++) {
		fill(pkts[0], k, lens[k]);
		mpe_rec_write(r, pkts, 1, 1, meta_off);
	}
	n = mpe_rec_read(r, out, 1);
	CHECK(n == TEST_DIM(lens), "%u records", n);
	for (k = 0; k < n && k < TEST_DIM(lens); k++) {
		const struct mpe_rec *rec = mpe_rec_at(r, out, k);

		CHECK(rec->len == lens[k] && rec->cap == RTE_MIN(lens[k], 128),
		      "frame of %u: len %u cap %u", lens[k], rec->len, rec->cap);
		CHECK(bytes_of(rec, k), "frame of %u: bytes differ", lens[k]);
	}
	free(out);
	free(r);
}

/* A blocked packet (quarantine) is recorded as such, before any stage. */
static void
test_blocked(void)
{
	struct mpe_rec_ring *r = new_ring(64, 64);
	void *out = malloc(64 * r->rec_size);
	const struct mpe_rec *rec;

	fill(pkts[0], 1, 60);
	mpe_meta(pkts[0], meta_off)->drop_stage = MPE_META_BLOCKED;
	mpe_rec_write(r, pkts, 1, 1, meta_off);
	CHECK(mpe_rec_read(r, out, 2) == 1, "one record");
	rec = mpe_rec_at(r, out, 0);
	CHECK(rec->fate == MPE_REC_BLOCKED && rec->stage == 0, "fate %u stage %u", rec->fate,
	      rec->stage);
	free(out);
	free(r);
}

struct race {
	struct mpe_rec_ring *r;
	volatile int stop;
	uint64_t written;
};

static void *
writer(void *arg)
{
	struct race *rc = arg;
	uint64_t seq = 0;
	uint16_t i;

	while (!rc->stop) {
		for (i = 0; i < BURST; i++)
			fill(pkts[i], seq + i, FRAME);
		mpe_rec_write(rc->r, pkts, BURST, seq, meta_off);
		seq += BURST;
	}
	rc->written = seq;
	return NULL;
}

/* A reader beside a writer that wraps the ring again and again: every record it keeps is
 * whole (its bytes are its packet's), in order, and none is older than the ring can hold. */
static void
test_concurrent_reader(void)
{
	struct race rc = {.r = new_ring(64, 128)};
	void *out = malloc(64 * rc.r->rec_size);
	unsigned int reads = 0, torn = 0, order = 0, total = 0, n, k;
	pthread_t t;

	if (pthread_create(&t, NULL, writer, &rc) != 0)
		exit(2);
	while (__atomic_load_n(&rc.r->head, __ATOMIC_ACQUIRE) < 64 * 10)
		sched_yield();
	while (reads < 20000) {
		n = mpe_rec_read(rc.r, out, 1);
		for (k = 0; k < n; k++) {
			const struct mpe_rec *rec = mpe_rec_at(rc.r, out, k);

			if (!bytes_of(rec, rec->seq) || rec->len != FRAME)
				torn++;
			if (k > 0 && rec->seq != mpe_rec_at(rc.r, out, k - 1)->seq + 1)
				order++;
		}
		total += n;
		reads++;
	}
	rc.stop = 1;
	pthread_join(t, NULL);
	CHECK(rc.written > 64 * 10, "the writer wrapped the ring only %lu packets",
	      (unsigned long)rc.written);
	CHECK(torn == 0 && order == 0, "%u torn and %u out-of-order records in %u read", torn,
	      order, total);
	CHECK(total > 0, "the reader kept nothing in %u reads", reads);
	free(out);
	free(rc.r);
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{"recorder: after the ring wraps, the newest records, whole and in order, with "
		 "the fate the stages gave each", test_wrap},
		{"recorder: snap keeps the first bytes of each frame and the frame's length",
		 test_snap},
		{"recorder: a packet of a blocked flow is recorded as blocked", test_blocked},
		{"recorder: a reader beside a writer that wraps keeps no torn record",
		 test_concurrent_reader},
	};
	static const struct rte_mbuf_dynfield desc = {
		.name = MPE_META_NAME,
		.size = sizeof(struct mpe_meta),
		.align = __alignof__(struct mpe_meta),
	};
	unsigned int i;
	int rc;

	(void)argc;
	if (test_eal_init(argv[0], "recorder") < 0)
		return 1;
	meta_off = rte_mbuf_dynfield_register(&desc);
	pool = rte_pktmbuf_pool_create("test_recorder", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (meta_off < 0 || pool == NULL) {
		printf("not ok - set-up: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	for (i = 0; i < BURST; i++)
		if ((pkts[i] = rte_pktmbuf_alloc(pool)) == NULL)
			return 1;
	test_run_cases(cases, TEST_DIM(cases));
	rc = test_summary();
	rte_pktmbuf_free_bulk(pkts, BURST);
	rte_mempool_free(pool);
	test_eal_fini();
	return rc;
}
