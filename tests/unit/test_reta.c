/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of primary/reta.c: the RSS redirection table the primary gives a device when
 * rss workers sit on queues of their choice, and the check of the table read back.
 * No EAL, no device: the tables are plain arrays.
 */
#include <string.h>

#include "reta.h"
#include "test.h"

#define MAX_GROUPS (512 / RTE_ETH_RETA_GROUP_SIZE)

static struct mpe_conf conf;

static void
workers_on(const uint16_t *queues, unsigned int n)
{
	unsigned int i;

	memset(&conf, 0, sizeof(conf));
	conf.nb_workers = (uint16_t)n;
	for (i = 0; i < n; i++)
		conf.workers[i].queue = queues[i];
}

static void
test_polled(void)
{
	static const uint16_t q[] = {6, 3};
	uint16_t polled[MPE_MAX_QUEUES];
	uint16_t n;

	workers_on(q, 2);
	n = mpe_reta_polled(&conf, 7, polled);
	CHECK(n == 2 && polled[0] == 3 && polled[1] == 6, "queues 3 and 6 in order (%u: %u %u)",
	      n, polled[0], polled[1]);
	n = mpe_reta_polled(&conf, 5, polled);
	CHECK(n == 1 && polled[0] == 3, "only the queues the port has (%u)", n);
	n = mpe_reta_polled(&conf, 3, polled);
	CHECK(n == 0, "none below 3 (%u)", n);
}

/* @size entries over @nb queues: every entry's mask set, the entries in turn, the entries
 * past @size untouched, and as many on each queue as the turns give */
static void
fill_case(uint16_t size, const uint16_t *polled, uint16_t nb)
{
	static struct rte_eth_rss_reta_entry64 reta[MAX_GROUPS];
	unsigned int per_queue[MPE_MAX_QUEUES];
	uint16_t i;
	unsigned int g, stray;

	test_begin("fill: %u entries over %u queues", size, nb);
	memset(reta, 0, sizeof(reta));
	CHECK(mpe_reta_groups(size) <= MAX_GROUPS, "%u groups", mpe_reta_groups(size));
	mpe_reta_fill(reta, size, polled, nb);
	for (i = 0; i < size; i++)
		if (!CHECK(*mpe_reta_entry(reta, i) == polled[i % nb] &&
				   (reta[i / 64].mask >> (i % 64) & 1),
			   "entry %u: queue %u, mask %d", i, *mpe_reta_entry(reta, i),
			   (int)(reta[i / 64].mask >> (i % 64) & 1)))
			break;
	for (g = 0; g < mpe_reta_groups(size); g++) {
		uint64_t want = size >= (g + 1) * 64 ? UINT64_MAX : (1ULL << (size % 64)) - 1;

		CHECK(reta[g].mask == want, "group %u: mask %#llx, not %#llx", g,
		      (unsigned long long)reta[g].mask, (unsigned long long)want);
	}
	stray = mpe_reta_stray(reta, size, polled, nb, MPE_MAX_QUEUES, per_queue);
	CHECK(stray == 0, "its own table read back: %u stray", stray);
	for (i = 0; i < nb; i++)
		CHECK(per_queue[polled[i]] == (unsigned int)(size / nb + (i < size % nb)),
		      "queue %u: %u entries", polled[i], per_queue[polled[i]]);
	test_end();
}

static void
run_fill_cases(void)
{
	static const uint16_t q36[] = {3, 6}, q015[] = {0, 1, 5}, q9[] = {9};

	fill_case(128, q36, 2);
	fill_case(512, q015, 3);
	fill_case(64, q9, 1);
	fill_case(100, q015, 3); /* not a whole number of groups */
	fill_case(1, q36, 2);
}

/* A table read back that points elsewhere: each such entry counted stray. */
static void
test_stray(void)
{
	static struct rte_eth_rss_reta_entry64 reta[2];
	static const uint16_t q36[] = {3, 6};
	unsigned int per_queue[7], stray;

	memset(reta, 0, sizeof(reta));
	mpe_reta_fill(reta, 128, q36, 2); /* even entries 3, odd ones 6 */
	*mpe_reta_entry(reta, 5) = 0;	      /* a queue the port has that no one polls */
	*mpe_reta_entry(reta, 70) = 4;	      /* another */
	*mpe_reta_entry(reta, 127) = UINT16_MAX; /* an entry the device did not fill */
	stray = mpe_reta_stray(reta, 128, q36, 2, 7, per_queue);
	CHECK(stray == 3, "3 entries off the polled queues, counted %u", stray);
	CHECK(per_queue[0] == 1 && per_queue[4] == 1 && per_queue[3] == 63 && per_queue[6] == 62,
	      "per queue: 0:%u 3:%u 4:%u 6:%u", per_queue[0], per_queue[3], per_queue[4],
	      per_queue[6]);
	*mpe_reta_entry(reta, 5) = 6;
	*mpe_reta_entry(reta, 70) = 7; /* past the port's queues: stray, not counted per queue */
	*mpe_reta_entry(reta, 127) = 6;
	stray = mpe_reta_stray(reta, 128, q36, 2, 7, per_queue);
	CHECK(stray == 1 && per_queue[3] == 63 && per_queue[6] == 64,
	      "queue 7 of 7: stray %u, 3:%u 6:%u", stray, per_queue[3], per_queue[6]);
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"mpe_reta_polled: the queues workers poll, in order, below rx_queues",
		 test_polled},
		{"mpe_reta_stray: entries on unpolled or missing queues counted", test_stray},
	};

	run_fill_cases();
	test_run_cases(cases, TEST_DIM(cases));
	return test_summary();
}
