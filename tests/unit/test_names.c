/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/shm/names.c: ring and flow-table names every process derives from
 * the configuration.
 * No EAL: only the name strings are checked, no ring is created.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "config.h"
#include "flow.h"
#include "names.h"
#include "test.h"

struct ring_case {
	const char *name;
	int from, to;
	int rc;
	const char *expect; /* when rc == 0 */
};

static const struct ring_case ring_cases[] = {
	{"io to first worker", MPE_END_IO, 0, 0, "mpe_io_w0"},
	{"worker to next worker", 0, 1, 0, "mpe_w0_w1"},
	{"worker back to io", 1, MPE_END_IO, 0, "mpe_w1_io"},
	{"last worker to io", MPE_MAX_WORKERS - 1, MPE_END_IO, 0, "mpe_w31_io"},
	{"backwards between workers", 5, 3, 0, "mpe_w5_w3"},
	{"io to io is invalid", MPE_END_IO, MPE_END_IO, -EINVAL, NULL},
	{"worker to itself is invalid", 3, 3, -EINVAL, NULL},
	{"worker index MPE_MAX_WORKERS (worker 0's lane 1) to worker 0 is invalid", 0,
	 MPE_MAX_WORKERS, -EINVAL, NULL},
	{"worker index MPE_MAX_WORKERS (from) to worker 0 is invalid", MPE_MAX_WORKERS, 0,
	 -EINVAL, NULL},
	{"lane 1 between two workers, said by the producer", MPE_END_LANE(0, 1), 1, 0,
	 "mpe_w0_w1_l1"},
	{"lane 2, said by both ends", MPE_END_LANE(4, 2), MPE_END_LANE(5, 2), 0, "mpe_w4_w5_l2"},
	{"lane 0 is the one lane: no suffix", MPE_END_LANE(0, 0), MPE_END_LANE(1, 0), 0,
	 "mpe_w0_w1"},
	{"two ends that say different lanes are invalid", MPE_END_LANE(0, 1), MPE_END_LANE(1, 2),
	 -EINVAL, NULL},
	{"a lane into an I/O lcore is invalid", MPE_END_LANE(1, 1), MPE_END_IO, -EINVAL, NULL},
	{"a lane from an I/O lcore is invalid", MPE_END_IO_K(1), MPE_END_LANE(0, 1), -EINVAL,
	 NULL},
	{"lane MPE_MAX_IO is invalid", MPE_END_LANE(0, MPE_MAX_IO), 1, -EINVAL, NULL},
	{"a worker to itself by a lane is invalid", MPE_END_LANE(3, 1), 3, -EINVAL, NULL},
	{"I/O lcore 1 to a worker", MPE_END_IO_K(1), 0, 0, "mpe_io1_w0"},
	{"a worker to I/O lcore 3", 2, MPE_END_IO_K(3), 0, "mpe_w2_io3"},
	{"an I/O lcore past MPE_MAX_IO is invalid", MPE_END_IO_K(MPE_MAX_IO), 0, -EINVAL, NULL},
	{"large worker index is invalid", 0, 1000000, -EINVAL, NULL},
};

static void
run_ring_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(ring_cases); i++) {
		const struct ring_case *c = &ring_cases[i];
		char buf[64];
		int rc;

		test_begin("mpe_names_ring: %s", c->name);
		memset(buf, 0, sizeof(buf));
		rc = mpe_names_ring(buf, sizeof(buf), c->from, c->to);
		CHECK(rc == c->rc, "from %d to %d: rc %d, expected %d", c->from, c->to, rc, c->rc);
		if (c->rc == 0 && rc == 0)
			CHECK(strcmp(buf, c->expect) == 0, "from %d to %d: \"%s\", expected \"%s\"",
			      c->from, c->to, buf, c->expect);
		test_end();
	}
}

static void
test_null_buffer_is_einval(void)
{
	CHECK(mpe_names_ring(NULL, 32, MPE_END_IO, 0) == -EINVAL, "NULL buffer accepted");
}

/* "mpe_io_w0" is 9 characters: 10 bytes fit, 9 do not (no room for the terminator). */
static void
test_buffer_too_small_is_enametoolong(void)
{
	char buf[16];
	size_t size;
	int rc;

	rc = mpe_names_ring(buf, 10, MPE_END_IO, 0);
	CHECK(rc == 0 && strcmp(buf, "mpe_io_w0") == 0, "10 bytes: rc %d \"%s\"", rc, buf);
	for (size = 0; size < 10; size++) {
		rc = mpe_names_ring(buf, size, MPE_END_IO, 0);
		CHECK(rc == -ENAMETOOLONG, "size %zu: rc %d, expected -ENAMETOOLONG", size, rc);
	}
}

static void
test_names_for_all_workers_distinct_and_fit(void)
{
	/* Every ring a pipeline or distributor of MPE_MAX_WORKERS workers can use: between an
	 * I/O lcore and a worker, and between two workers on each lane. */
	static char names[MPE_MAX_IO * (MPE_MAX_WORKERS + 1) * MPE_MAX_WORKERS][RTE_RING_NAMESIZE];
	unsigned int n = 0, i, j, lane;
	int from, to;

	for (lane = 0; lane < MPE_MAX_IO; lane++)
		for (from = lane ? 0 : MPE_END_IO; from < MPE_MAX_WORKERS; from++)
			for (to = lane ? 0 : MPE_END_IO; to < MPE_MAX_WORKERS; to++) {
				char buf[RTE_RING_NAMESIZE];
				int rc;

				if (from == to)
					continue;
				rc = mpe_names_ring(buf, sizeof(buf), MPE_END_LANE(from, lane), to);
				if (!CHECK(rc == 0, "from %d to %d lane %u: rc %d", from, to, lane, rc))
					continue;
				CHECK(strlen(buf) < RTE_RING_NAMESIZE, "\"%s\" does not fit", buf);
				CHECK(strncmp(buf, "mpe_", 4) == 0, "\"%s\" lacks the mpe_ prefix",
				      buf);
				memcpy(names[n++], buf, sizeof(buf));
			}
	CHECK(n == (MPE_MAX_WORKERS + 1) * MPE_MAX_WORKERS +
			   (MPE_MAX_IO - 1) * MPE_MAX_WORKERS * (MPE_MAX_WORKERS - 1),
	      "%u names", n);
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			CHECK(strcmp(names[i], names[j]) != 0, "\"%s\" made twice", names[i]);
}

static void
test_flow_names(void)
{
	char buf[32];
	int w;

	CHECK(mpe_names_flow(buf, sizeof(buf), 0) == 0 && strcmp(buf, "mpe_flow_w0") == 0,
	      "worker 0: \"%s\"", buf);
	for (w = 0; w < MPE_MAX_WORKERS; w++)
		CHECK(mpe_names_flow(buf, sizeof(buf), w) == 0 &&
			      strlen(buf) <= MPE_FLOW_NAME_MAX,
		      "worker %d: \"%s\" does not fit MPE_FLOW_NAME_MAX", w, buf);
	CHECK(mpe_names_flow(buf, sizeof(buf), MPE_END_IO) == -EINVAL, "io end accepted");
	CHECK(mpe_names_flow(buf, sizeof(buf), MPE_MAX_WORKERS) == -EINVAL, "worker 32 accepted");
	CHECK(mpe_names_flow(NULL, sizeof(buf), 0) == -EINVAL, "NULL buffer accepted");
	CHECK(mpe_names_flow(buf, 5, 0) == -ENAMETOOLONG, "5 bytes accepted");
}

/* The first pool keeps the name tools look up (mpe-ringio); the others are distinct, fit a
 * mempool's name, and the count is bounded. */
static void
test_pool_names(void)
{
	char buf[RTE_MEMPOOL_NAMESIZE], prev[RTE_MEMPOOL_NAMESIZE] = "";
	unsigned int k;

	CHECK(mpe_names_pool(buf, sizeof(buf), 0) == 0 && strcmp(buf, MPE_NAME_POOL) == 0,
	      "pool 0: \"%s\"", buf);
	CHECK(mpe_names_pool(buf, sizeof(buf), 1) == 0 && strcmp(buf, "mpe_mbufs_1") == 0,
	      "pool 1: \"%s\"", buf);
	for (k = 0; k < MPE_MAX_POOLS; k++) {
		CHECK(mpe_names_pool(buf, sizeof(buf), k) == 0 && strcmp(buf, prev) != 0,
		      "pool %u: \"%s\"", k, buf);
		snprintf(prev, sizeof(prev), "%s", buf);
	}
	CHECK(mpe_names_pool(buf, sizeof(buf), MPE_MAX_POOLS) == -EINVAL, "pool %u accepted",
	      MPE_MAX_POOLS);
	CHECK(mpe_names_pool(buf, 6, 1) == -ENAMETOOLONG, "6 bytes accepted");
}

/* A configuration of @shape with @nb_workers workers and I/O lcores @rx[k] / @tx[k]. */
static void
io_conf(struct mpe_conf *c, uint32_t shape, unsigned int nb_workers, unsigned int nb_io,
	const int *rx, const int *tx)
{
	unsigned int k;

	memset(c, 0, sizeof(*c));
	c->shape = shape;
	c->nb_workers = (uint16_t)nb_workers;
	c->nb_ports = 1;
	c->ports[0].rx = 1;
	c->ports[0].rx_queues = (uint16_t)nb_io;
	c->nb_io = (uint16_t)nb_io;
	for (k = 0; k < nb_io; k++) {
		c->io[k].lcore = (uint16_t)(10 + k);
		c->io[k].rxq[0] = rx[k] ? (uint16_t)(1u << k) : 0;
		c->io[k].tx = (uint16_t)tx[k];
	}
}

/* Which rings a worker has, with several I/O lcores: one input per I/O lcore that receives,
 * one output per I/O lcore that transmits, and each input's packets leave through the I/O
 * lcore that transmits for its own. */
static void
test_worker_rings(void)
{
	static const int all[3] = {1, 1, 1}, rx_only0[2] = {1, 0}, tx_only1[2] = {0, 1};
	static const int rx_only1[3] = {0, 1, 1}, tx_02[3] = {1, 0, 1};
	struct mpe_conf c;
	int from[MPE_MAX_IO], to[MPE_MAX_IO];
	unsigned int nb_in, nb_out;
	uint8_t out_of[MPE_MAX_IO];

	/* distributor, three I/O lcores that receive and transmit: each input to its own */
	io_conf(&c, MPE_SHAPE_DISTRIBUTOR, 2, 3, all, all);
	mpe_names_worker_rings(&c, 1, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 3 && nb_out == 3, "%u in, %u out", nb_in, nb_out);
	CHECK(from[0] == MPE_END_IO && from[2] == MPE_END_IO_K(2) && to[1] == MPE_END_IO_K(1),
	      "ends %d %d %d", from[0], from[2], to[1]);
	CHECK(out_of[0] == 0 && out_of[1] == 1 && out_of[2] == 2, "out_of %u %u %u", out_of[0],
	      out_of[1], out_of[2]);
	/* one receives, the other transmits */
	io_conf(&c, MPE_SHAPE_DISTRIBUTOR, 1, 2, rx_only0, tx_only1);
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 1 && nb_out == 1 && from[0] == MPE_END_IO && to[0] == MPE_END_IO_K(1) &&
	      out_of[0] == 0, "%u in (%d), %u out (%d), out_of %u", nb_in, from[0], nb_out,
	      to[0], out_of[0]);
	/* [io 1] receives only: its packets leave through a transmitting one in turn */
	io_conf(&c, MPE_SHAPE_DISTRIBUTOR, 1, 3, rx_only1, tx_02);
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 2 && from[0] == MPE_END_IO_K(1) &&
	      from[1] == MPE_END_IO_K(2) && to[0] == MPE_END_IO && to[1] == MPE_END_IO_K(2),
	      "%u in, %u out", nb_in, nb_out);
	CHECK(out_of[1] == 1 && out_of[0] < 2, "out_of %u %u", out_of[0], out_of[1]);
	/* pipeline: the first stage takes from each I/O lcore, the middle from the stage before
	 * it, the last hands to the one that transmits */
	io_conf(&c, MPE_SHAPE_PIPELINE, 3, 2, rx_only0 + 0, tx_only1);
	c.io[1].rxq[0] = 2;
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 1 && to[0] == 1, "first: %u in, %u out", nb_in, nb_out);
	mpe_names_worker_rings(&c, 1, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 1 && from[0] == 0 && nb_out == 1 && to[0] == 2, "middle");
	mpe_names_worker_rings(&c, 2, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 1 && from[0] == 1 && nb_out == 1 && to[0] == MPE_END_IO_K(1), "last");
	/* pipeline, two I/O lcores that receive and transmit: a lane to each through every
	 * stage, what came in through [io 1] kept to lane 1 */
	io_conf(&c, MPE_SHAPE_PIPELINE, 3, 2, all, all);
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 2 && from[1] == MPE_END_IO_K(1) && to[0] == 1 &&
	      to[1] == MPE_END_LANE(1, 1) && out_of[0] == 0 && out_of[1] == 1,
	      "first: %u in, %u out (%d %d), out_of %u %u", nb_in, nb_out, to[0], to[1],
	      out_of[0], out_of[1]);
	mpe_names_worker_rings(&c, 1, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 2 && from[0] == MPE_END_LANE(0, 0) &&
	      from[1] == MPE_END_LANE(0, 1) && to[0] == MPE_END_LANE(2, 0) &&
	      to[1] == MPE_END_LANE(2, 1) && out_of[0] == 0 && out_of[1] == 1, "lanes: middle");
	mpe_names_worker_rings(&c, 2, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 2 && from[1] == MPE_END_LANE(1, 1) && to[0] == MPE_END_IO &&
	      to[1] == MPE_END_IO_K(1) && out_of[0] == 0 && out_of[1] == 1, "lanes: last");
	/* three receive, [io 0] and [io 2] transmit: two lanes; [io 1]'s packets take one */
	io_conf(&c, MPE_SHAPE_PIPELINE, 2, 3, all, tx_02);
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	/* [io 1] transmits nothing: the second of the two that do, in turn (1 % 2), takes it */
	CHECK(nb_in == 3 && nb_out == 2 && out_of[0] == 0 && out_of[1] == 1 && out_of[2] == 1,
	      "first of two lanes: %u in, %u out, out_of %u %u %u", nb_in, nb_out, out_of[0],
	      out_of[1], out_of[2]);
	mpe_names_worker_rings(&c, 1, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 2 && to[0] == MPE_END_IO && to[1] == MPE_END_IO_K(2) &&
	      out_of[1] == 1, "last of two lanes: %u in, %u out", nb_in, nb_out);
	/* the last worker transmits itself: one lane */
	io_conf(&c, MPE_SHAPE_PIPELINE, 2, 2, all, all);
	c.tx_workers = 1;
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 2 && nb_out == 1 && to[0] == 1 && out_of[1] == 0, "tx = workers: one lane");
	/* rss: none */
	c.shape = MPE_SHAPE_RSS;
	mpe_names_worker_rings(&c, 0, from, &nb_in, to, &nb_out, out_of);
	CHECK(nb_in == 0 && nb_out == 0, "rss: %u in, %u out", nb_in, nb_out);
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"mpe_names_ring: NULL buffer is -EINVAL", test_null_buffer_is_einval},
		{"mpe_names_ring: buffer too small is -ENAMETOOLONG",
		 test_buffer_too_small_is_enametoolong},
		{"mpe_names_ring: names for 32 workers are distinct and fit RTE_RING_NAMESIZE",
		 test_names_for_all_workers_distinct_and_fit},
		{"mpe_names_flow: one table name per worker, within MPE_FLOW_NAME_MAX; bad input "
		 "refused", test_flow_names},
		{"mpe_names_pool: the first pool's name as tools know it, the others distinct and "
		 "within a mempool's name", test_pool_names},
		{"mpe_names_worker_rings: an input per I/O lcore that receives, an output per one "
		 "that transmits, each input to its own path", test_worker_rings},
	};

	run_ring_cases();
	test_run_cases(cases, TEST_DIM(cases));
	return test_summary();
}
