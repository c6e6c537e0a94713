/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/inspect/flow.c: the per-worker flow table (insert, direction accounting,
 * capacity, bounded expiry, top-k, re-attach by name). Needs EAL, without hugepages or PCI;
 * timestamps are synthetic TSC values. One thread.
 */
#include <errno.h>
#include <limits.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>
#include <rte_tcp.h>

#include "flow.h"
#include "runtime.h"
#include "test.h"
#include "test_eal.h"

#define TCP_SYN RTE_TCP_SYN_FLAG
#define TCP_ACK RTE_TCP_ACK_FLAG
#define TCP_FIN RTE_TCP_FIN_FLAG
#define TCP_PSH RTE_TCP_PSH_FLAG
#define TCP_RST RTE_TCP_RST_FLAG

#define TIMEOUT 1000 /* TSC cycles of idleness before expiry, in the expiry cases */

/* Key of flow number @id: IPv4 10.x.y.z or IPv6 2001:db8::x:y, ports from @id. */
static void
make_key(struct mpe_flow_key *k, uint32_t id, int family, uint8_t proto)
{
	memset(k, 0, sizeof(*k));
	k->family = (uint8_t)family;
	k->proto = proto;
	if (family == MPE_FLOW_IPV4) {
		k->src[0] = 10;
		k->src[1] = (uint8_t)(id >> 16);
		k->src[2] = (uint8_t)(id >> 8);
		k->src[3] = (uint8_t)id;
		k->dst[0] = 192;
		k->dst[1] = 168;
		k->dst[2] = (uint8_t)(id >> 8);
		k->dst[3] = (uint8_t)(id + 1);
	} else {
		k->src[0] = 0x20;
		k->src[1] = 0x01;
		k->src[2] = 0x0d;
		k->src[3] = 0xb8;
		k->src[13] = (uint8_t)(id >> 16);
		k->src[14] = (uint8_t)(id >> 8);
		k->src[15] = (uint8_t)id;
		memcpy(k->dst, k->src, 16);
		k->dst[12] = 0xff;
	}
	k->sport = htons((uint16_t)(1024 + (id % 50000)));
	k->dport = htons((uint16_t)(id & 1 ? 53 : 443));
}

/* @r may be @k */
static void
reverse(const struct mpe_flow_key *k, struct mpe_flow_key *r)
{
	struct mpe_flow_key tmp = *k;

	memcpy(tmp.src, k->dst, 16);
	memcpy(tmp.dst, k->src, 16);
	tmp.sport = k->dport;
	tmp.dport = k->sport;
	*r = tmp;
}

/* One packet through the table; returns its flow or NULL. */
static struct mpe_flow *
one(struct mpe_flow_table *t, const struct mpe_flow_key *k, uint32_t len, uint8_t flags,
    uint64_t now)
{
	const struct mpe_flow_key *keys[1] = {k};
	struct mpe_flow *out[1] = {NULL};
	int rc = mpe_flow_update_burst(t, keys, &len, &flags, 1, now, out);

	CHECK(rc == 0 || rc == 1, "update rc %d", rc);
	return out[0];
}

static struct mpe_flow_stats
stats(const struct mpe_flow_table *t)
{
	struct mpe_flow_stats st;

	mpe_flow_table_stats(t, &st);
	return st;
}

static uint64_t rnd_state = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (uint32_t)(rnd_state >> 16);
}

static void
test_create_invalid(void)
{
	char longname[MPE_FLOW_NAME_MAX + 2];
	struct mpe_flow_table *t, *t2;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';

	rte_errno = 0;
	CHECK(mpe_flow_table_create(NULL, 64, 0, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL,
	      "NULL name: rte_errno %d", rte_errno);
	rte_errno = 0;
	CHECK(mpe_flow_table_create("", 64, 0, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL,
	      "empty name: rte_errno %d", rte_errno);
	rte_errno = 0;
	CHECK(mpe_flow_table_create(longname, 64, 0, SOCKET_ID_ANY) == NULL &&
		      rte_errno == ENAMETOOLONG,
	      "long name: rte_errno %d", rte_errno);
	rte_errno = 0;
	CHECK(mpe_flow_table_create("ft_small", MPE_FLOW_CAPACITY_MIN - 1, 0, SOCKET_ID_ANY) ==
			      NULL &&
		      rte_errno == EINVAL,
	      "capacity below min: rte_errno %d", rte_errno);
	rte_errno = 0;
	CHECK(mpe_flow_table_create("ft_big", MPE_FLOW_CAPACITY_MAX + 1, 0, SOCKET_ID_ANY) ==
			      NULL &&
		      rte_errno == EINVAL,
	      "capacity above max: rte_errno %d", rte_errno);

	/* longest name accepted, and a second table of the same name refused */
	longname[MPE_FLOW_NAME_MAX] = '\0';
	t = mpe_flow_table_create(longname, 64, 0, SOCKET_ID_ANY);
	if (!CHECK(t != NULL, "longest name: rte_errno %d", rte_errno))
		return;
	rte_errno = 0;
	t2 = mpe_flow_table_create(longname, 64, 0, SOCKET_ID_ANY);
	CHECK(t2 == NULL && rte_errno == EEXIST, "same name twice: rte_errno %d", rte_errno);
	mpe_flow_table_free(t2);
	mpe_flow_table_free(t);
	/* the name is free again after free */
	t = mpe_flow_table_create(longname, 64, 0, SOCKET_ID_ANY);
	CHECK(t != NULL, "name reused after free: rte_errno %d", rte_errno);
	mpe_flow_table_free(t);
	mpe_flow_table_free(NULL);

	CHECK(mpe_flow_update_burst(NULL, NULL, NULL, NULL, 1, 0, NULL) == -EINVAL,
	      "update on NULL table");
	CHECK(mpe_flow_top(NULL, 1, NULL) == -EINVAL, "top on NULL table");
	CHECK(mpe_flow_table_recover(NULL) == -EINVAL, "recover NULL table");
}

static void
test_insert_lookup(void)
{
	struct mpe_flow_table *t = mpe_flow_table_create("ft_ins", 64, 0, SOCKET_ID_ANY);
	struct mpe_flow_key a, b, ra;
	struct mpe_flow *fa, *fb;
	struct mpe_flow_stats st;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	make_key(&a, 1, MPE_FLOW_IPV4, IPPROTO_TCP);
	make_key(&b, 2, MPE_FLOW_IPV4, IPPROTO_TCP);
	reverse(&a, &ra);

	CHECK(mpe_flow_find(t, &a) == NULL, "found before insert");
	fa = one(t, &a, 100, 0, 10);
	if (!CHECK(fa != NULL, "no flow for a new packet"))
		goto out;
	CHECK(fa->state == MPE_FLOW_ACTIVE, "state %u", fa->state);
	CHECK(mpe_flow_find(t, &a) == fa, "find by forward key");
	CHECK(mpe_flow_find(t, &ra) == fa, "find by reverse key");
	CHECK(one(t, &a, 100, 0, 20) == fa, "second packet, other flow");
	fb = one(t, &b, 60, 0, 30);
	CHECK(fb != NULL && fb != fa, "second flow shares the first's entry");
	CHECK(mpe_flow_find(t, &b) == fb, "find second flow");
	CHECK(fa->pkts[MPE_FLOW_DIR_FWD] == 2 && fa->bytes[MPE_FLOW_DIR_FWD] == 200,
	      "a: %" PRIu64 " pkts %" PRIu64 " bytes", fa->pkts[0], fa->bytes[0]);
	CHECK(fa->first_seen == 10 && fa->last_seen == 20, "a seen %" PRIu64 "..%" PRIu64,
	      fa->first_seen, fa->last_seen);
	st = stats(t);
	CHECK(st.inserted == 2 && st.active == 2 && st.lookups == 3 && st.table_full == 0,
	      "stats inserted %" PRIu64 " active %" PRIu64 " lookups %" PRIu64, st.inserted,
	      st.active, st.lookups);
out:
	mpe_flow_table_free(t);
}

/* A TCP or UDP conversation, and what each direction must have summed. */
struct bidir_case {
	const char *name;
	int family;
	uint8_t proto;
	int first_from_high; /* first packet from the endpoint that sorts higher */
	int one_burst;       /* all packets in one burst (the flow is new within it) */
};

static const struct bidir_case bidir_cases[] = {
	{"IPv4 TCP", MPE_FLOW_IPV4, IPPROTO_TCP, 0, 0},
	{"IPv4 TCP, first packet from the higher endpoint", MPE_FLOW_IPV4, IPPROTO_TCP, 1, 0},
	{"IPv4 UDP", MPE_FLOW_IPV4, IPPROTO_UDP, 0, 0},
	{"IPv4 UDP, first from the higher endpoint, one burst", MPE_FLOW_IPV4, IPPROTO_UDP, 1, 1},
	{"IPv6 TCP", MPE_FLOW_IPV6, IPPROTO_TCP, 0, 0},
	{"IPv6 TCP, first from the higher endpoint", MPE_FLOW_IPV6, IPPROTO_TCP, 1, 0},
	{"IPv6 TCP, one burst", MPE_FLOW_IPV6, IPPROTO_TCP, 0, 1},
	{"IPv6 UDP", MPE_FLOW_IPV6, IPPROTO_UDP, 0, 0},
};

static const struct {
	int rev; /* 0: client to server */
	uint32_t len;
	uint8_t flags;
} convo[] = {
	{0, 74, TCP_SYN},           {1, 74, TCP_SYN | TCP_ACK},
	{0, 66, TCP_ACK},           {0, 1500, TCP_ACK | TCP_PSH},
	{1, 66, TCP_ACK},           {1, 900, TCP_ACK | TCP_PSH},
	{0, 66, TCP_FIN | TCP_ACK}, {1, 66, TCP_RST},
};

static void
run_bidir_cases(void)
{
	size_t c, i;

	for (c = 0; c < TEST_DIM(bidir_cases); c++) {
		const struct bidir_case *bc = &bidir_cases[c];
		const struct mpe_flow_key *keys[TEST_DIM(convo)];
		struct mpe_flow *out[TEST_DIM(convo)];
		uint32_t lens[TEST_DIM(convo)];
		uint8_t flags[TEST_DIM(convo)];
		struct mpe_flow_key k, client, server, canon;
		uint64_t pkts[2] = {0, 0}, bytes[2] = {0, 0};
		uint8_t fl[2] = {0, 0};
		struct mpe_flow_table *t;
		struct mpe_flow *f;
		int rc;

		test_begin("both directions in one entry: %s", bc->name);
		t = mpe_flow_table_create("ft_bidir", 64, 0, SOCKET_ID_ANY);
		if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno)) {
			test_end();
			continue;
		}
		make_key(&k, 7, bc->family, bc->proto);
		mpe_flow_key_canon(&k, &canon);
		/* client = the endpoint that sends first */
		if (bc->first_from_high)
			reverse(&canon, &client);
		else
			client = canon;
		reverse(&client, &server);
		for (i = 0; i < TEST_DIM(convo); i++) {
			int tcp = bc->proto == IPPROTO_TCP;

			keys[i] = convo[i].rev ? &server : &client;
			lens[i] = convo[i].len;
			flags[i] = tcp ? convo[i].flags : 0;
			pkts[convo[i].rev]++;
			bytes[convo[i].rev] += convo[i].len;
			fl[convo[i].rev] |= flags[i];
		}
		if (bc->one_burst) {
			rc = mpe_flow_update_burst(t, keys, lens, flags, TEST_DIM(convo), 5, out);
			CHECK(rc == (int)TEST_DIM(convo), "burst rc %d", rc);
		} else {
			for (i = 0; i < TEST_DIM(convo); i++) {
				rc = mpe_flow_update_burst(t, keys + i, lens + i, flags + i, 1,
							   5 + i, out + i);
				CHECK(rc == 1, "packet %zu rc %d", i, rc);
			}
		}
		f = out[0];
		for (i = 1; i < TEST_DIM(convo); i++)
			CHECK(out[i] == f, "packet %zu in another entry", i);
		if (!CHECK(f != NULL, "no flow"))
			goto next;
		CHECK(memcmp(&f->key, &canon, sizeof(canon)) == 0, "stored key not canonical");
		CHECK(f->fwd_from_dst == (bc->first_from_high ? 1 : 0), "fwd_from_dst %u",
		      f->fwd_from_dst);
		CHECK(mpe_flow_dir(f, &client) == MPE_FLOW_DIR_FWD, "client is not forward");
		CHECK(mpe_flow_dir(f, &server) == MPE_FLOW_DIR_REV, "server is not reverse");
		for (i = 0; i < 2; i++) {
			CHECK(f->pkts[i] == pkts[i], "dir %zu: %" PRIu64 " pkts, want %" PRIu64, i,
			      f->pkts[i], pkts[i]);
			CHECK(f->bytes[i] == bytes[i], "dir %zu: %" PRIu64 " bytes, want %" PRIu64,
			      i, f->bytes[i], bytes[i]);
			CHECK(f->tcp_flags[i] == fl[i], "dir %zu: flags %#x, want %#x", i,
			      f->tcp_flags[i], fl[i]);
		}
		CHECK(f->first_seen == 5, "first_seen %" PRIu64, f->first_seen);
		CHECK(f->last_seen == (bc->one_burst ? 5 : 5 + TEST_DIM(convo) - 1),
		      "last_seen %" PRIu64, f->last_seen);
		CHECK(stats(t).inserted == 1 && stats(t).active == 1, "inserted %" PRIu64,
		      stats(t).inserted);
	next:
		mpe_flow_table_free(t);
		test_end();
	}
}

#define MANY_FLOWS 50000
#define MANY_PKTS  400000

struct ref_flow {
	struct mpe_flow_key k; /* first packet's direction */
	uint64_t pkts[2], bytes[2];
	uint8_t flags[2];
	int seen;
};

static void
test_many_flows(void)
{
	struct ref_flow *ref = calloc(MANY_FLOWS, sizeof(*ref));
	struct mpe_flow_key *wire = calloc(MANY_PKTS, sizeof(*wire));
	const struct mpe_flow_key **keys = calloc(MANY_PKTS, sizeof(*keys));
	uint32_t *lens = calloc(MANY_PKTS, sizeof(*lens));
	uint8_t *flags = calloc(MANY_PKTS, sizeof(*flags));
	struct mpe_flow **out = calloc(MANY_PKTS, sizeof(*out));
	struct mpe_flow_table *t = NULL;
	struct mpe_flow_stats st;
	uint32_t i, done, bad = 0;

	if (!CHECK(ref && wire && keys && lens && flags && out, "calloc"))
		goto out;
	for (i = 0; i < MANY_FLOWS; i++)
		make_key(&ref[i].k, i, i % 3 ? MPE_FLOW_IPV4 : MPE_FLOW_IPV6,
			 i % 2 ? IPPROTO_UDP : IPPROTO_TCP);
	/* every flow at least once, then random flows in random directions */
	for (i = 0; i < MANY_PKTS; i++) {
		uint32_t id = i < MANY_FLOWS ? (i * 7919u) % MANY_FLOWS : rnd() % MANY_FLOWS;
		int rev = ref[id].seen ? (int)(rnd() & 1) : (int)(rnd() & 1) * 2;
		struct ref_flow *r = &ref[id];

		/* rev 2: the first packet comes from the endpoint that would be "rev" */
		if (rev == 2) {
			reverse(&r->k, &r->k);
			rev = 0;
		}
		r->seen = 1;
		if (rev)
			reverse(&r->k, &wire[i]);
		else
			wire[i] = r->k;
		keys[i] = &wire[i];
		lens[i] = 60 + rnd() % 1440;
		flags[i] = (uint8_t)(rnd() & 0x3f);
		r->pkts[rev]++;
		r->bytes[rev] += lens[i];
		r->flags[rev] |= flags[i];
	}
	t = mpe_flow_table_create("ft_many", 65536, 0, SOCKET_ID_ANY);
	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		goto out;
	/* bursts of varied sizes, some above the hash's bulk limit of 64 */
	for (done = 0; done < MANY_PKTS;) {
		uint32_t n = RTE_MIN(1 + rnd() % 200, MANY_PKTS - done);
		int rc = mpe_flow_update_burst(t, keys + done, lens + done, flags + done,
					       (uint16_t)n, done, out + done);

		if (!CHECK(rc == (int)n, "burst at %u: rc %d of %u", done, rc, n))
			goto out;
		done += n;
	}
	for (i = 0; i < MANY_PKTS; i++) {
		if (out[i] == NULL || out[i] != mpe_flow_find(t, &wire[i]))
			bad++;
	}
	CHECK(bad == 0, "%u packets mapped to the wrong flow", bad);
	bad = 0;
	for (i = 0; i < MANY_FLOWS; i++) {
		struct ref_flow *r = &ref[i];
		struct mpe_flow_key rk;
		struct mpe_flow *f = mpe_flow_find(t, &r->k);
		int d;

		reverse(&r->k, &rk);
		if (f == NULL || mpe_flow_find(t, &rk) != f ||
		    mpe_flow_dir(f, &r->k) != MPE_FLOW_DIR_FWD) {
			bad++;
			continue;
		}
		for (d = 0; d < 2; d++)
			if (f->pkts[d] != r->pkts[d] || f->bytes[d] != r->bytes[d] ||
			    f->tcp_flags[d] != r->flags[d])
				bad++;
	}
	CHECK(bad == 0, "%u flows or directions differ from the reference", bad);
	st = stats(t);
	CHECK(st.inserted == MANY_FLOWS && st.active == MANY_FLOWS && st.lookups == MANY_PKTS &&
		      st.table_full == 0,
	      "inserted %" PRIu64 " active %" PRIu64 " lookups %" PRIu64 " full %" PRIu64,
	      st.inserted, st.active, st.lookups, st.table_full);
out:
	mpe_flow_table_free(t);
	free(ref);
	free(wire);
	free(keys);
	free(lens);
	free(flags);
	free(out);
}

/* Exactly @capacity flows fit, including a capacity that is no power of two. */
static void
fill_to_capacity(uint32_t capacity)
{
	struct mpe_flow_table *t = mpe_flow_table_create("ft_fill", capacity, 0, SOCKET_ID_ANY);
	struct mpe_flow_key k;
	uint32_t i, got = 0;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < capacity + 10; i++) {
		make_key(&k, i, MPE_FLOW_IPV4, IPPROTO_UDP);
		if (one(t, &k, 64, 0, 1) != NULL)
			got++;
	}
	CHECK(got == capacity, "capacity %u: %u flows fit", capacity, got);
	CHECK(stats(t).table_full == 10, "table_full %" PRIu64, stats(t).table_full);
	mpe_flow_table_free(t);
}

static void
test_table_full(void)
{
	enum { CAP = 16, NEW = 4, OLD = 3 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_full", CAP, 0, SOCKET_ID_ANY);
	struct mpe_flow_key fk[CAP + NEW];
	const struct mpe_flow_key *keys[NEW + OLD];
	struct mpe_flow *out[NEW + OLD], *old[CAP];
	uint32_t lens[NEW + OLD];
	uint8_t dirs[NEW + OLD];
	struct mpe_flow_stats st;
	uint32_t i;
	int rc;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < CAP + NEW; i++)
		make_key(&fk[i], 100 + i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
	for (i = 0; i < CAP; i++) {
		old[i] = one(t, &fk[i], 100, TCP_SYN, 1);
		CHECK(old[i] != NULL, "flow %u of %u refused", i, CAP);
	}
	/* new flows interleaved with known ones, in one burst */
	for (i = 0; i < NEW + OLD; i++) {
		keys[i] = i & 1 ? &fk[i / 2] : &fk[CAP + i / 2];
		lens[i] = 200;
	}
	/* directions written for every packet, also those that found no room (the flow
	 * stage copies them all) */
	memset(dirs, 0xee, sizeof(dirs));
	rc = mpe_flow_update_burst_dir(t, keys, lens, NULL, NEW + OLD, 2, out, dirs, NULL);
	CHECK(rc == OLD, "rc %d, want %d", rc, OLD);
	for (i = 0; i < NEW + OLD; i++) {
		if (i & 1)
			CHECK(out[i] == old[i / 2] && out[i]->pkts[0] == 2 &&
				      out[i]->bytes[0] == 300 && out[i]->last_seen == 2,
			      "existing flow %u not updated", i / 2);
		else
			CHECK(out[i] == NULL, "new flow %u got an entry in a full table", i / 2);
		CHECK(dirs[i] == MPE_FLOW_DIR_FWD, "packet %u: direction %#x", i, dirs[i]);
	}
	st = stats(t);
	CHECK(st.table_full == NEW && st.active == CAP && st.inserted == CAP,
	      "table_full %" PRIu64 " active %" PRIu64, st.table_full, st.active);
	mpe_flow_table_free(t);

	fill_to_capacity(MPE_FLOW_CAPACITY_MIN);
	fill_to_capacity(1000);
	fill_to_capacity(4096);
}

static void
test_expire_idle(void)
{
	enum { CAP = 256, N = 100, FRESH = 30 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_exp", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_key k;
	struct mpe_flow *f;
	uint32_t i, n, kept = 0, gone = 0;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < N; i++) {
		make_key(&k, i, MPE_FLOW_IPV4, IPPROTO_TCP);
		one(t, &k, 100, TCP_SYN, 1000);
	}
	for (i = 0; i < FRESH; i++) {
		make_key(&k, i * 3, MPE_FLOW_IPV4, IPPROTO_TCP);
		one(t, &k, 100, TCP_ACK, 5000);
	}
	/* the fresh ones are exactly at the limit: idle == timeout is not expired */
	n = mpe_flow_expire(t, 5000 + TIMEOUT, CAP);
	CHECK(n == N - FRESH, "expired %u, want %u", n, N - FRESH);
	for (i = 0; i < N; i++) {
		make_key(&k, i, MPE_FLOW_IPV4, IPPROTO_TCP);
		f = mpe_flow_find(t, &k);
		if (i % 3 == 0 && i / 3 < FRESH)
			kept += f != NULL;
		else
			gone += f == NULL;
	}
	CHECK(kept == FRESH && gone == N - FRESH, "kept %u gone %u", kept, gone);
	CHECK(stats(t).active == FRESH && stats(t).expired == N - FRESH, "active %" PRIu64,
	      stats(t).active);
	/* one cycle later the fresh ones go too */
	n = mpe_flow_expire(t, 5000 + TIMEOUT + 1, CAP);
	CHECK(n == FRESH && stats(t).active == 0, "second pass expired %u", n);

	/* re-insert after expiry: a new flow, counts from zero */
	make_key(&k, 1, MPE_FLOW_IPV4, IPPROTO_TCP);
	f = one(t, &k, 77, TCP_SYN, 9000);
	CHECK(f != NULL && f->pkts[0] == 1 && f->bytes[0] == 77 && f->pkts[1] == 0 &&
		      f->first_seen == 9000 && f->tcp_flags[0] == TCP_SYN,
	      "re-inserted flow carries old state");
	CHECK(stats(t).inserted == N + 1 && stats(t).active == 1, "inserted %" PRIu64,
	      stats(t).inserted);
	/* the table fills to capacity again: expiry gave every slot back */
	for (i = 0, n = 0; i < CAP; i++) {
		make_key(&k, 1000 + i, MPE_FLOW_IPV6, IPPROTO_UDP);
		n += one(t, &k, 64, 0, 9001) != NULL;
	}
	CHECK(n == CAP - 1, "%u of %u flows fit after expiry", n, CAP - 1);
	mpe_flow_table_free(t);

	/* a timeout of 0: nothing ever expires */
	t = mpe_flow_table_create("ft_exp0", 64, 0, SOCKET_ID_ANY);
	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	one(t, &k, 64, 0, 1);
	CHECK(mpe_flow_expire(t, UINT64_MAX / 2, 64) == 0 && stats(t).active == 1,
	      "expired with timeout 0");
	mpe_flow_table_free(t);
}

/* What a slot's copy of its flow may have lost before the flow expires. */
enum damage { INTACT, HASH_DAMAGED, KEY_DAMAGED };

static const struct {
	const char *name;
	enum damage damage;
	uint64_t unhash_miss;
} damage_cases[] = {
	{"intact", INTACT, 0},
	{"the slot's hash damaged", HASH_DAMAGED, 1},
	{"the slot's key damaged", KEY_DAMAGED, 1},
};

/* A flow whose key and hash no longer delete its slot from the hash still expires without
 * leaving the hash leading to the freed slot: counted (unhash_miss), the key the hash holds
 * there deleted. The flow's next packet makes a new flow, and every slot can be used again. */
static void
test_expire_damaged_slot(void)
{
	enum { CAP = 64 };
	unsigned int c;

	for (c = 0; c < TEST_DIM(damage_cases); c++) {
		struct mpe_flow_table *t = mpe_flow_table_create("ft_dmg", CAP, TIMEOUT,
								   SOCKET_ID_ANY);
		const char *name = damage_cases[c].name;
		struct mpe_flow_key k, o;
		struct mpe_flow *f;
		uint32_t i, n;

		if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
			return;
		make_key(&k, 7, MPE_FLOW_IPV4, IPPROTO_TCP);
		f = one(t, &k, 100, TCP_SYN, 1000);
		if (!CHECK(f != NULL, "%s: no flow", name)) {
			mpe_flow_table_free(t);
			continue;
		}
		if (damage_cases[c].damage == HASH_DAMAGED)
			f->hash ^= 0x5a5a;
		else if (damage_cases[c].damage == KEY_DAMAGED)
			f->key.sport ^= htons(1);
		CHECK(mpe_flow_expire(t, 1000 + TIMEOUT + 1, CAP) == 1 && stats(t).active == 0,
		      "%s: not expired", name);
		CHECK(stats(t).unhash_miss == damage_cases[c].unhash_miss,
		      "%s: unhash_miss %" PRIu64, name, stats(t).unhash_miss);
		f = one(t, &k, 60, TCP_ACK, 5000);
		CHECK(f != NULL && f->state == MPE_FLOW_ACTIVE && f->pkts[0] + f->pkts[1] == 1 &&
			      f->first_seen == 5000,
		      "%s: the next packet counted in a stale slot (state %u, %" PRIu64
		      " packets)", name, f != NULL ? f->state : 0,
		      f != NULL ? f->pkts[0] + f->pkts[1] : 0);
		CHECK(stats(t).active == 1 && stats(t).inserted == 2, "%s: active %" PRIu64, name,
		      stats(t).active);
		/* every slot but the one just taken can hold a flow */
		for (i = 0, n = 0; i < CAP; i++) {
			make_key(&o, 100 + i, MPE_FLOW_IPV6, IPPROTO_UDP);
			n += one(t, &o, 64, 0, 5001) != NULL;
		}
		CHECK(n == CAP - 1, "%s: %u of %u flows fit", name, n, CAP - 1);
		mpe_flow_table_free(t);
	}
}

static void
test_expire_budget(void)
{
	enum { CAP = 1024, N = 1000, B = 100 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_budget", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_key k;
	uint64_t scanned;
	uint32_t i, n, total = 0, calls = 0;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < N; i++) {
		make_key(&k, i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_UDP);
		one(t, &k, 64, 0, 10);
	}
	scanned = stats(t).scanned;
	CHECK(mpe_flow_expire(t, 100000, 0) == 0 && stats(t).scanned == scanned,
	      "budget 0 did work");
	while (stats(t).active > 0 && calls < 2 * CAP) {
		scanned = stats(t).scanned;
		n = mpe_flow_expire(t, 100000, B);
		calls++;
		total += n;
		CHECK(n <= B, "call %u expired %u > budget %u", calls, n, B);
		CHECK(stats(t).scanned - scanned == B, "call %u visited %" PRIu64 " slots", calls,
		      stats(t).scanned - scanned);
	}
	CHECK(total == N && stats(t).expired == N, "expired %u of %u", total, N);
	/* at most B expire per call, and one sweep of the whole table finds them all */
	CHECK(calls >= (N + B - 1) / B && calls <= (CAP + B - 1) / B,
	      "%u calls to expire %u flows in %u slots by %u", calls, N, CAP, B);
	/* a budget beyond the capacity visits each slot once */
	scanned = stats(t).scanned;
	mpe_flow_expire(t, 100000, 10 * CAP);
	CHECK(stats(t).scanned - scanned == CAP, "budget > capacity visited %" PRIu64,
	      stats(t).scanned - scanned);
	mpe_flow_table_free(t);
}

/* Paced expiry: a table of CAP slots with idle timeout T is swept twice per T, one slot per
 * T / 2 / CAP cycles, never more than the per-call bound; idle flows go between T and
 * 1.5 T after their last packet, fresh ones stay; a worker far behind its pace does not
 * make up the debt in one call. */
static void
test_expire_paced(void)
{
	enum { CAP = 1024, N = 500, MAX = 8 };
	const uint64_t T = 1u << 20, step = T / 2 / CAP, t0 = 1000000;
	struct mpe_flow_table *t = mpe_flow_table_create("ft_paced", CAP, T, SOCKET_ID_ANY);
	struct mpe_flow_key k;
	uint64_t now, scanned, gone_at = 0;
	uint32_t i, calls = 0, over = 0, n;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < N; i++) {
		make_key(&k, i, MPE_FLOW_IPV4, IPPROTO_TCP);
		one(t, &k, 64, 0, t0);
	}
	/* bursts every step / 2 cycles: about one slot due every other call */
	for (now = t0; now < t0 + 2 * T && stats(t).active > 0; now += step / 2) {
		scanned = stats(t).scanned;
		n = mpe_flow_expire_paced(t, now, MAX);
		calls++;
		over += stats(t).scanned - scanned > 1;
		if (now - t0 <= T)
			CHECK(n == 0, "a flow idle %" PRIu64 " <= timeout %" PRIu64 " expired",
			      now - t0, T);
		if (stats(t).active == 0)
			gone_at = now;
	}
	CHECK(over == 0, "%u calls visited more than the one slot due", over);
	CHECK(stats(t).active == 0 && gone_at > t0 + T && gone_at <= t0 + T + T / 2 + 2 * step,
	      "all idle flows gone %" PRIu64 " cycles after their last packet (timeout %" PRIu64
	      "; %" PRIu64 " active)", gone_at - t0, T, stats(t).active);
	CHECK(stats(t).scanned <= (gone_at - t0) / step + 2,
	      "visited %" PRIu64 " slots in %" PRIu64 " cycles at one per %" PRIu64,
	      stats(t).scanned, gone_at - t0, step);
	/* far behind (no burst for ten timeouts): one call visits at most MAX slots */
	scanned = stats(t).scanned;
	now += 10 * T;
	mpe_flow_expire_paced(t, now, MAX);
	CHECK(stats(t).scanned - scanned == MAX, "a late call visited %" PRIu64 " slots",
	      stats(t).scanned - scanned);
	scanned = stats(t).scanned;
	mpe_flow_expire_paced(t, now + step / 2, MAX);
	CHECK(stats(t).scanned - scanned <= 1, "the debt was carried: %" PRIu64 " slots next",
	      stats(t).scanned - scanned);
	mpe_flow_table_free(t);

	/* a timeout of 0: nothing is ever visited */
	t = mpe_flow_table_create("ft_paced0", 64, 0, SOCKET_ID_ANY);
	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	one(t, &k, 64, 0, 1);
	CHECK(mpe_flow_expire_paced(t, UINT64_MAX / 2, MAX) == 0 && stats(t).scanned == 0,
	      "timeout 0 visited slots");
	mpe_flow_table_free(t);
}

static void
test_top_k(void)
{
	enum { N = 40, K = 7 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_top", 128, TIMEOUT, SOCKET_ID_ANY);
	const struct mpe_flow *top[N + 5];
	struct mpe_flow_key k, r;
	uint64_t want[N];
	uint32_t i, j;
	int n;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	/* flow i carries a distinct total of (i * 17 % N + 1) * 1000 bytes over both ways */
	for (i = 0; i < N; i++) {
		uint64_t b = (uint64_t)((i * 17) % N + 1) * 1000;

		make_key(&k, i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
		reverse(&k, &r);
		one(t, &k, (uint32_t)(b / 4), 0, 10);
		one(t, &r, (uint32_t)(b - b / 4), 0, 10);
		want[(i * 17) % N] = b;
	}
	n = mpe_flow_top(t, K, top);
	if (CHECK(n == K, "top %d", n))
		for (j = 0; j < K; j++)
			CHECK(top[j]->bytes[0] + top[j]->bytes[1] == want[N - 1 - j],
			      "rank %u: %" PRIu64 " bytes, want %" PRIu64, j,
			      top[j]->bytes[0] + top[j]->bytes[1], want[N - 1 - j]);
	/* k beyond the number of flows: all of them, sorted */
	n = mpe_flow_top(t, N + 5, top);
	if (CHECK(n == N, "top all: %d", n))
		for (j = 0; j < N; j++)
			CHECK(top[j]->bytes[0] + top[j]->bytes[1] == want[N - 1 - j],
			      "rank %u of all wrong", j);
	CHECK(mpe_flow_top(t, 0, NULL) == 0, "k 0");
	/* the biggest flow expires (kept the others fresh): it leaves the ranking */
	for (i = 0; i < N; i++) {
		if ((i * 17) % N == N - 1)
			continue;
		make_key(&k, i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
		one(t, &k, 0, 0, 5000);
	}
	CHECK(mpe_flow_expire(t, 5000, 128) == 1, "expire the biggest");
	n = mpe_flow_top(t, 1, top);
	CHECK(n == 1 && top[0]->bytes[0] + top[0]->bytes[1] == want[N - 2],
	      "after expiry the top is %" PRIu64, n == 1 ? top[0]->bytes[0] + top[0]->bytes[1] : 0);
	mpe_flow_table_free(t);
}

static void
test_reattach(void)
{
	enum { CAP = 64, N = 20 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_attach", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_table *t2;
	struct mpe_flow_key k;
	struct mpe_flow *f;
	uint64_t magic;
	uint32_t i, n;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	for (i = 0; i < N; i++) {
		make_key(&k, i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
		one(t, &k, 100 + i, TCP_SYN, 10);
	}
	rte_errno = 0;
	CHECK(mpe_flow_table_lookup("ft_nothere") == NULL && rte_errno == ENOENT,
	      "lookup of a missing table: rte_errno %d", rte_errno);
	CHECK(mpe_flow_table_lookup(NULL) == NULL && rte_errno == EINVAL, "lookup NULL");

	t2 = mpe_flow_table_lookup("ft_attach");
	if (!CHECK(t2 == t, "lookup gave %p, want %p (rte_errno %d)", (void *)t2, (void *)t,
		   rte_errno))
		goto out;
	CHECK(mpe_flow_table_recover(t2) == 0, "clean table emptied by recover");
	/* the new handle sees and continues the same flows */
	for (i = 0; i < N; i++) {
		make_key(&k, i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
		f = mpe_flow_find(t2, &k);
		CHECK(f != NULL && f->bytes[0] == 100 + i, "flow %u not seen through lookup", i);
		f = one(t2, &k, 1, TCP_ACK, 20);
		CHECK(f != NULL && f->pkts[0] == 2 && f->tcp_flags[0] == (TCP_SYN | TCP_ACK),
		      "flow %u not continued", i);
	}
	CHECK(stats(t2).inserted == N && stats(t2).active == N, "inserted %" PRIu64,
	      stats(t2).inserted);

	/* a table of another layout is refused */
	magic = t->magic;
	t->magic = 0;
	rte_errno = 0;
	CHECK(mpe_flow_table_lookup("ft_attach") == NULL && rte_errno == EINVAL,
	      "bad magic accepted: rte_errno %d", rte_errno);
	t->magic = magic;

	/* the previous owner died while changing the hash: recover empties the table, which
	 * then works to its full capacity */
	t2->busy = 1;
	CHECK(mpe_flow_table_recover(t2) == 1, "busy table kept");
	CHECK(stats(t2).active == 0 && stats(t2).resets == 1 && t2->busy == 0,
	      "after reset: active %" PRIu64, stats(t2).active);
	make_key(&k, 0, MPE_FLOW_IPV4, IPPROTO_TCP);
	CHECK(mpe_flow_find(t2, &k) == NULL, "flow survived reset");
	for (i = 0, n = 0; i < CAP; i++) {
		make_key(&k, 500 + i, MPE_FLOW_IPV4, IPPROTO_UDP);
		n += one(t2, &k, 64, 0, 30) != NULL;
	}
	CHECK(n == CAP, "%u of %u flows fit after reset", n, CAP);
	/* the stats disagreeing with the hash also triggers a reset */
	t2->stats.active--;
	CHECK(mpe_flow_table_recover(t2) == 1 && stats(t2).resets == 2, "inconsistent kept");
out:
	mpe_flow_table_free(t);
	rte_errno = 0;
	CHECK(mpe_flow_table_lookup("ft_attach") == NULL && rte_errno == ENOENT,
	      "freed table still found");
}

/* One packet with a hash given by the test (not the key's): lets two keys share a cache entry
 * and a signature, which real traffic does only by chance. */
static struct mpe_flow *
one_hashed(struct mpe_flow_table *t, const struct mpe_flow_key *k, uint32_t hash, uint64_t now)
{
	const struct mpe_flow_key *keys[1] = {k};
	struct mpe_flow *out[1] = {NULL};
	uint32_t len = 100;
	uint8_t dir;
	int rc = mpe_flow_update_burst_dir(t, keys, &len, NULL, 1, now, out, &dir, &hash);

	CHECK(rc == 0 || rc == 1, "update rc %d", rc);
	return out[0];
}

/* The cache's entries for hash @h: how many there are, and through @pos the position the
 * last of them names (0 if none). */
static unsigned int
cache_entries_of(const struct mpe_flow_table *t, uint32_t h, uint32_t *pos)
{
	const struct mpe_flow_cache_set *set =
		&t->cache[h & ((t->cache_mask + 1) / MPE_FLOW_CACHE_WAYS - 1)];
	unsigned int w, n = 0;

	*pos = 0;
	for (w = 0; w < MPE_FLOW_CACHE_WAYS; w++)
		if (set->pos1[w] != 0 && set->sig[w] == h) {
			*pos = set->pos1[w] - 1;
			n++;
		}
	return n;
}

/* The cache in front of the rte_hash answers repeated flows, and is never believed for a flow
 * that is not the packet's: same hash and other key, an expired flow, a slot given to
 * another flow. */
static void
test_cache(void)
{
	enum { CAP = 64, H = 0x5a5a0007 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_cache", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_key a, b, c, ra;
	struct mpe_flow *fa, *fb, *f;
	uint64_t hits;
	uint32_t i;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	CHECK(t->cache_mask + 1 == CAP, "%u cache entries for %u flows", t->cache_mask + 1, CAP);

	/* a flow's first packet goes to the rte_hash, the next ones (both ways) to the cache */
	make_key(&a, 1, MPE_FLOW_IPV4, IPPROTO_TCP);
	reverse(&a, &ra);
	fa = one(t, &a, 100, TCP_SYN, 10);
	CHECK(stats(t).cache_hits == 0, "a new flow was a cache hit");
	for (i = 0; i < 5; i++)
		CHECK(one(t, i & 1 ? &ra : &a, 100, TCP_ACK, 11) == fa, "packet %u: another flow", i);
	CHECK(stats(t).cache_hits == 5 && stats(t).lookups == 6,
	      "cache hits %" PRIu64 " of %" PRIu64 " lookups", stats(t).cache_hits,
	      stats(t).lookups);
	CHECK(fa->pkts[0] == 4 && fa->pkts[1] == 2, "directions %" PRIu64 "/%" PRIu64,
	      fa->pkts[0], fa->pkts[1]);

	/* two keys, one hash: each packet finds its own flow, whichever the entry names */
	make_key(&b, 2, MPE_FLOW_IPV4, IPPROTO_UDP);
	make_key(&c, 3, MPE_FLOW_IPV6, IPPROTO_TCP);
	fa = one_hashed(t, &b, H, 20);
	fb = one_hashed(t, &c, H, 20);
	CHECK(fa != NULL && fb != NULL && fa != fb, "two keys of one hash share a flow");
	hits = stats(t).cache_hits;
	for (i = 0; i < 6; i++) {
		f = one_hashed(t, i % 3 ? &b : &c, H, 21);
		CHECK(f == (i % 3 ? fa : fb), "packet %u of a shared hash went to the other flow", i);
	}
	CHECK(fa->pkts[0] == 5 && fb->pkts[0] == 3, "counted %" PRIu64 " and %" PRIu64,
	      fa->pkts[0], fb->pkts[0]);
	/* after c came c, b, b, c, b, b: the entry named the packet's flow three times */
	CHECK(stats(t).cache_hits - hits == 3, "%" PRIu64 " hits among alternating keys",
	      stats(t).cache_hits - hits);
	CHECK(cache_entries_of(t, H, &i) == 1 && i == (uint32_t)(fa - t->flows),
	      "the set holds %u entries of one hash, or not the latest flow's",
	      cache_entries_of(t, H, &i));

	/* an expired flow's entry is not believed: its next packet makes a new flow */
	CHECK(mpe_flow_expire(t, 100 + TIMEOUT, CAP) == 3 && stats(t).active == 0,
	      "expiry left %" PRIu64 " flows", stats(t).active);
	hits = stats(t).cache_hits;
	f = one_hashed(t, &b, H, 2000);
	CHECK(f != NULL && f->pkts[0] == 1 && f->first_seen == 2000 && stats(t).active == 1 &&
		      stats(t).cache_hits == hits,
	      "a packet of an expired flow counted into a stale entry");
	mpe_flow_table_free(t);
}

/* An entry naming a slot that another flow took over (its flow expired, the slot was given to
 * a new key): the packet of the old flow is not counted there, and gets a flow of its own. */
static void
test_cache_reused_slot(void)
{
	enum { CAP = 64 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_cache2", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_key x, y, k;
	struct mpe_flow *fx, *fy, *f;
	uint64_t hits;
	uint32_t i, hx;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	/* x (its entry written by its first packet), then z (key 2) older than the rest, then
	 * a full table; every other key is given a hash of another set than x's, so that its
	 * entry stays */
	make_key(&x, 1, MPE_FLOW_IPV4, IPPROTO_TCP);
	fx = one(t, &x, 100, TCP_SYN, 10);
	if (!CHECK(fx != NULL && one(t, &x, 100, TCP_ACK, 11) == fx, "x's second packet"))
		goto out;
	hx = fx->hash;
	make_key(&k, 2, MPE_FLOW_IPV4, IPPROTO_TCP);
	one_hashed(t, &k, hx ^ 1, 500);
	for (i = 0; i < CAP - 2; i++) {
		make_key(&k, 100 + i, MPE_FLOW_IPV6, IPPROTO_UDP);
		one_hashed(t, &k, hx ^ (1 + i % (t->cache_mask / MPE_FLOW_CACHE_WAYS)), 1000);
	}
	CHECK(stats(t).active == CAP, "%" PRIu64 " flows, want a full table", stats(t).active);
	/* x alone expires; y takes the one free slot, which the entry of x still names */
	CHECK(mpe_flow_expire(t, 11 + TIMEOUT + 1, CAP) == 1, "not x alone expired");
	make_key(&y, 3, MPE_FLOW_IPV4, IPPROTO_UDP);
	fy = one_hashed(t, &y, hx ^ 2, 1012);
	if (!CHECK(fy == fx && cache_entries_of(t, hx, &i) == 1 && i == (uint32_t)(fx - t->flows),
		   "y did not take x's slot (%p, %p), or x's entry is gone", (void *)fy, (void *)fx))
		goto out;
	/* z expires, so x's next packet has a slot to go to */
	CHECK(mpe_flow_expire(t, 500 + TIMEOUT + 1, CAP) == 1, "not z alone expired");
	hits = stats(t).cache_hits;
	f = one(t, &x, 100, TCP_ACK, 1501);
	CHECK(f != NULL && f != fy && f->pkts[0] + f->pkts[1] == 1 && f->first_seen == 1501 &&
		      fy->pkts[0] == 1 && fy->pkts[1] == 0 && stats(t).cache_hits == hits,
	      "x's packet went to the flow that took its old slot");
out:
	mpe_flow_table_free(t);
}

/* Flows whose hashes would share one entry of a direct-mapped cache: up to a set's ways they
 * are all answered by the cache once each has been seen; one more, and every packet still goes
 * to its own flow. */
static void
test_cache_set(void)
{
	/* SET: the ways of a set, which docs/inspection.md gives */
	enum { CAP = 64, H = 0x3c3c0015, SET = 4, FLOWS = SET + 1, ROUNDS = 6 };
	struct mpe_flow_table *t = mpe_flow_table_create("ft_cache3", CAP, TIMEOUT, SOCKET_ID_ANY);
	struct mpe_flow_key k[FLOWS];
	struct mpe_flow *f[FLOWS];
	uint32_t i, r, h[FLOWS];
	uint64_t hits;

	if (!CHECK(t != NULL, "create: rte_errno %d", rte_errno))
		return;
	/* one low part (the set, and a direct-mapped cache's entry), other high parts */
	for (i = 0; i < FLOWS; i++) {
		make_key(&k[i], 10 + i, i & 1 ? MPE_FLOW_IPV6 : MPE_FLOW_IPV4, IPPROTO_TCP);
		h[i] = H ^ (i << 16);
	}
	for (i = 0; i < SET; i++)
		f[i] = one_hashed(t, &k[i], h[i], 10);
	hits = stats(t).cache_hits;
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < SET; i++)
			CHECK(one_hashed(t, &k[i], h[i], 11) == f[i], "round %u: flow %u elsewhere", r, i);
	CHECK(stats(t).cache_hits - hits == ROUNDS * SET,
	      "%" PRIu64 " of %u packets of %u flows of one set answered by the cache",
	      stats(t).cache_hits - hits, ROUNDS * SET, SET);

	/* one flow more than the set holds: entries are replaced, packets still counted right */
	f[FLOWS - 1] = one_hashed(t, &k[FLOWS - 1], h[FLOWS - 1], 12);
	for (r = 0; r < ROUNDS; r++)
		for (i = 0; i < FLOWS; i++)
			CHECK(one_hashed(t, &k[i], h[i], 13) == f[i], "round %u: flow %u elsewhere", r, i);
	for (i = 0; i < FLOWS; i++) {
		uint32_t pos;

		CHECK(f[i] != NULL && f[i]->pkts[0] == 1 + ROUNDS * (i < SET ? 2 : 1),
		      "flow %u: %" PRIu64 " packets", i, f[i] != NULL ? f[i]->pkts[0] : 0);
		CHECK(cache_entries_of(t, h[i], &pos) <= 1, "flow %u: more than one entry", i);
	}
	CHECK(stats(t).active == FLOWS && stats(t).lookups == (1 + 2 * ROUNDS) * FLOWS - ROUNDS,
	      "%" PRIu64 " flows, %" PRIu64 " lookups", stats(t).active, stats(t).lookups);

	/* a hash of 0 among the empty entries (0) of its set */
	make_key(&k[0], 99, MPE_FLOW_IPV4, IPPROTO_UDP);
	f[0] = one_hashed(t, &k[0], 0, 14);
	hits = stats(t).cache_hits;
	CHECK(f[0] != NULL && one_hashed(t, &k[0], 0, 15) == f[0] && stats(t).cache_hits == hits + 1,
	      "the flow of hash 0 was not answered by the cache");
	mpe_flow_table_free(t);
}

static const struct test_case cases[] = {
	{"create: invalid input refused", test_create_invalid},
	{"insert and lookup", test_insert_lookup},
	{"50000 flows match a reference", test_many_flows},
	{"table full: new flows refused and counted, known ones updated, every direction set",
	 test_table_full},
	{"expiry: idle flows removed, fresh kept, re-insert", test_expire_idle},
	{"expiry: a slot whose key or hash is damaged leaves no hash entry behind",
	 test_expire_damaged_slot},
	{"expiry: budget bounds the slots visited per call", test_expire_budget},
	{"expiry paced: the table twice per timeout, idle flows gone within 1.5 timeouts",
	 test_expire_paced},
	{"top-k by bytes", test_top_k},
	{"cache: repeated flows answered, never a flow of another key", test_cache},
	{"cache: an entry naming a slot another flow took is not believed", test_cache_reused_slot},
	{"cache: the flows of one set all answered, one more still counted right", test_cache_set},
	{"re-attach by name and recover", test_reattach},
};

int
main(int argc, char **argv)
{
	int rc;

	(void)argc;
	if (test_eal_init(argv[0], "flow") < 0)
		return 1;
	test_run_cases(cases, TEST_DIM(cases));
	run_bidir_cases();
	rc = test_summary();
	test_eal_fini();
	return rc;
}
