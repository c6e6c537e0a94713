/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/inspect/acl.c: rte_acl contexts built from rule files, and their verdicts.
 * Tables of rules and flow keys (real addresses and ports, network order) with the rule each
 * key must hit; then a random rule set checked against a linear reference matcher.
 * EAL without hugepages or PCI (rte_acl needs neither); one process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>

#include "acl.h"
#include "pkt.h"
#include "rules.h"
#include "runtime.h"
#include "test.h"
#include "test_eal.h"

/* ---- helpers ---- */

static struct mpe_rules *
load_rules(const char *text)
{
	char path[] = "/tmp/mpe_test_acl_XXXXXX";
	struct mpe_rules *r;
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("mkstemp");
		exit(2);
	}
	test_write_all(fd, text, strlen(text));
	close(fd);
	r = mpe_rules_load(path, stdout);
	unlink(path);
	return r;
}

static unsigned int acl_seq;

/* A fresh context name per build. */
static const char *
next_name(void)
{
	static char name[MPE_ACL_NAME_MAX + 1];

	snprintf(name, sizeof(name), "t%u", acl_seq++);
	return name;
}

static struct mpe_acl *
build(const char *text)
{
	struct mpe_rules *r = load_rules(text);
	struct mpe_acl *a;

	if (!CHECK(r != NULL, "rules refused (rte_errno %d)", rte_errno))
		return NULL;
	a = mpe_acl_create(next_name(), r, SOCKET_ID_ANY);
	CHECK(a != NULL, "mpe_acl_create: %s", rte_strerror(rte_errno));
	mpe_rules_free(r);
	return a;
}

/* A key from text; the family follows the address syntax ("" makes an L2 key). */
static struct mpe_flow_key
key(uint8_t proto, const char *src, const char *dst, uint16_t sport, uint16_t dport)
{
	struct mpe_flow_key k;
	int af;

	memset(&k, 0, sizeof(k));
	if (src[0] == '\0')
		return k;
	af = strchr(src, ':') != NULL ? AF_INET6 : AF_INET;
	k.family = af == AF_INET ? MPE_FLOW_IPV4 : MPE_FLOW_IPV6;
	k.proto = proto;
	if (inet_pton(af, src, k.src) != 1 || inet_pton(af, dst, k.dst) != 1) {
		printf("bad address in the test table: %s %s\n", src, dst);
		exit(2);
	}
	k.sport = htons(sport);
	k.dport = htons(dport);
	return k;
}

/* ---- verdict tables ---- */

struct verdict {
	uint8_t proto;
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t want; /* rule id + 1, 0 = no match */
};

#define MAX_VERDICTS 16

struct acl_case {
	const char *name;
	const char *rules;
	struct verdict v[MAX_VERDICTS];
};

#define ANY4 "0.0.0.0/0 "
#define ANYP " 0 : 65535 0 : 65535 "

static const struct acl_case acl_cases[] = {
	{"exact 5-tuple match; one field off by one misses",
	 "@10.1.2.3/32 10.4.5.6/32 1000 : 1000 80 : 80 6/0xff drop 10\n",
	 {
		 {6, "10.1.2.3", "10.4.5.6", 1000, 80, 1},
		 {6, "10.1.2.4", "10.4.5.6", 1000, 80, 0},
		 {6, "10.1.2.2", "10.4.5.6", 1000, 80, 0},
		 {6, "10.1.2.3", "10.4.5.7", 1000, 80, 0},
		 {6, "10.4.5.6", "10.1.2.3", 80, 1000, 0}, /* reverse direction */
		 {6, "10.1.2.3", "10.4.5.6", 1001, 80, 0},
		 {6, "10.1.2.3", "10.4.5.6", 1000, 81, 0},
		 {6, "10.1.2.3", "10.4.5.6", 80, 1000, 0}, /* ports swapped */
		 {17, "10.1.2.3", "10.4.5.6", 1000, 80, 0},
	 }},
	{"IPv4 /24 source: first and last address in, neighbours out",
	 "@192.168.1.0/24 " ANY4 ANYP "0/0 allow 1\n",
	 {
		 {6, "192.168.1.0", "1.1.1.1", 1, 2, 1},
		 {17, "192.168.1.255", "8.8.8.8", 65535, 0, 1},
		 {1, "192.168.1.77", "0.0.0.0", 0, 0, 1},
		 {6, "192.168.0.255", "1.1.1.1", 1, 2, 0},
		 {6, "192.168.2.0", "1.1.1.1", 1, 2, 0},
		 {6, "1.1.1.1", "192.168.1.1", 1, 2, 0}, /* in the destination only */
	 }},
	{"IPv4 prefixes: /8 destination, /31 source, /0 matches all",
	 "@172.16.0.0/31 10.0.0.0/8" ANYP "0/0 allow 3\n"
	 "@" ANY4 ANY4 ANYP "0/0 drop 1\n",
	 {
		 {6, "172.16.0.0", "10.0.0.0", 1, 2, 1},
		 {6, "172.16.0.1", "10.255.255.255", 1, 2, 1},
		 {6, "172.16.0.2", "10.0.0.1", 1, 2, 2},
		 {6, "172.15.255.255", "10.0.0.1", 1, 2, 2},
		 {6, "172.16.0.1", "11.0.0.0", 1, 2, 2},
		 {6, "172.16.0.1", "9.255.255.255", 1, 2, 2},
		 {0, "255.255.255.255", "0.0.0.0", 0, 0, 2},
	 }},
	{"port range edges: lo-1, lo, hi, hi+1 on both ports",
	 "@" ANY4 ANY4 "1000 : 2000 53 : 60 17/0xff count 1\n",
	 {
		 {17, "1.2.3.4", "5.6.7.8", 999, 55, 0},
		 {17, "1.2.3.4", "5.6.7.8", 1000, 55, 1},
		 {17, "1.2.3.4", "5.6.7.8", 2000, 55, 1},
		 {17, "1.2.3.4", "5.6.7.8", 2001, 55, 0},
		 {17, "1.2.3.4", "5.6.7.8", 1500, 52, 0},
		 {17, "1.2.3.4", "5.6.7.8", 1500, 53, 1},
		 {17, "1.2.3.4", "5.6.7.8", 1500, 60, 1},
		 {17, "1.2.3.4", "5.6.7.8", 1500, 61, 0},
		 /* byte order: 0x03e8 = 1000 swapped is 0xe803 = 59395 */
		 {17, "1.2.3.4", "5.6.7.8", 59395, 55, 0},
	 }},
	{"port ranges at 0 and 65535",
	 "@" ANY4 ANY4 "0 : 0 65535 : 65535 6/0xff drop 1\n"
	 "@" ANY4 ANY4 "65535 : 65535 0 : 0 6/0xff drop 1\n",
	 {
		 {6, "1.2.3.4", "5.6.7.8", 0, 65535, 1},
		 {6, "1.2.3.4", "5.6.7.8", 1, 65535, 0},
		 {6, "1.2.3.4", "5.6.7.8", 0, 65534, 0},
		 {6, "1.2.3.4", "5.6.7.8", 65535, 0, 2},
		 {6, "1.2.3.4", "5.6.7.8", 65534, 0, 0},
		 {6, "1.2.3.4", "5.6.7.8", 65535, 1, 0},
	 }},
	{"protocol: exact, mask 0 (any), and a partial mask",
	 "@10.0.0.0/8 " ANY4 ANYP "6/0xff drop 30\n"
	 "@10.0.0.0/8 " ANY4 ANYP "16/0xf0 count 20\n"
	 "@10.0.0.0/8 " ANY4 ANYP "0/0x00 allow 10\n",
	 {
		 {6, "10.0.0.1", "1.1.1.1", 1, 2, 1},
		 {7, "10.0.0.1", "1.1.1.1", 1, 2, 3},
		 {16, "10.0.0.1", "1.1.1.1", 1, 2, 2},
		 {17, "10.0.0.1", "1.1.1.1", 1, 2, 2},
		 {31, "10.0.0.1", "1.1.1.1", 1, 2, 2},
		 {32, "10.0.0.1", "1.1.1.1", 1, 2, 3},
		 {0, "10.0.0.1", "1.1.1.1", 1, 2, 3},
		 {255, "10.0.0.1", "1.1.1.1", 1, 2, 3},
		 {6, "11.0.0.1", "1.1.1.1", 1, 2, 0},
	 }},
	{"priority: the narrow rule first with the higher priority",
	 "@10.1.0.0/16 " ANY4 ANYP "0/0 drop 20\n"
	 "@10.0.0.0/8 " ANY4 ANYP "0/0 allow 10\n",
	 {
		 {6, "10.1.2.3", "1.1.1.1", 1, 2, 1},
		 {6, "10.2.2.3", "1.1.1.1", 1, 2, 2},
	 }},
	{"priority: the narrow rule last with the higher priority",
	 "@10.0.0.0/8 " ANY4 ANYP "0/0 allow 10\n"
	 "@10.1.0.0/16 " ANY4 ANYP "0/0 drop 20\n",
	 {
		 {6, "10.1.2.3", "1.1.1.1", 1, 2, 2},
		 {6, "10.2.2.3", "1.1.1.1", 1, 2, 1},
	 }},
	{"priority: the broad rule with the higher priority hides the narrow one",
	 "@10.1.0.0/16 " ANY4 ANYP "0/0 drop 20\n"
	 "@10.0.0.0/8 " ANY4 ANYP "0/0 allow 536870911\n",
	 {
		 {6, "10.1.2.3", "1.1.1.1", 1, 2, 2},
		 {6, "10.2.2.3", "1.1.1.1", 1, 2, 2},
	 }},
	{"priority: equal priorities go to the rule written first",
	 "@10.1.0.0/16 " ANY4 ANYP "0/0 drop 1\n"
	 "@10.0.0.0/8 " ANY4 ANYP "0/0 allow 7\n"
	 "@10.1.2.0/24 " ANY4 ANYP "0/0 count 7\n",
	 {
		 {6, "10.1.2.3", "1.1.1.1", 1, 2, 2},
		 {6, "10.1.3.3", "1.1.1.1", 1, 2, 2},
	 }},
	{"IPv6 prefixes /32, /64, /128: inside and just outside",
	 "@2001:db8::/32 ::/0" ANYP "0/0 allow 1\n"
	 "@2001:db8:1:2::/64 ::/0" ANYP "0/0 drop 2\n"
	 "@2001:db8:1:2::5/128 ::/0" ANYP "0/0 count 3\n",
	 {
		 {6, "2001:db8:1:2::5", "::1", 1, 2, 3},
		 {6, "2001:db8:1:2::4", "::1", 1, 2, 2},
		 {6, "2001:db8:1:2::6", "::1", 1, 2, 2},
		 {6, "2001:db8:1:2::", "::1", 1, 2, 2},
		 {6, "2001:db8:1:2:ffff:ffff:ffff:ffff", "::1", 1, 2, 2},
		 {6, "2001:db8:1:3::", "::1", 1, 2, 1},
		 {6, "2001:db8:1:1:ffff:ffff:ffff:ffff", "::1", 1, 2, 1},
		 {6, "2001:db8::", "::1", 1, 2, 1},
		 {6, "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", "::1", 1, 2, 1},
		 {6, "2001:db9::", "::1", 1, 2, 0},
		 {6, "2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "::1", 1, 2, 0},
		 {6, "::1", "2001:db8:1:2::5", 1, 2, 0}, /* in the destination only */
	 }},
	{"IPv6 prefixes across 32-bit words: /33, /65, /127 destinations",
	 "@::/0 2001:db8:8000::/33" ANYP "0/0 allow 1\n"
	 "@::/0 2001:db8:1:2:8000::/65" ANYP "0/0 allow 2\n"
	 "@::/0 fe80::2/127" ANYP "0/0 allow 3\n",
	 {
		 {6, "::1", "2001:db8:8000::", 1, 2, 1},
		 {6, "::1", "2001:db8:ffff:ffff::1", 1, 2, 1},
		 {6, "::1", "2001:db8:7fff:ffff:ffff:ffff:ffff:ffff", 1, 2, 0},
		 {6, "::1", "2001:db8:1:2:8000::", 1, 2, 2},
		 {6, "::1", "2001:db8:1:2:ffff:ffff:ffff:ffff", 1, 2, 2},
		 {6, "::1", "2001:db8:1:2:7fff:ffff:ffff:ffff", 1, 2, 0},
		 {6, "::1", "fe80::2", 1, 2, 3},
		 {6, "::1", "fe80::3", 1, 2, 3},
		 {6, "::1", "fe80::1", 1, 2, 0},
		 {6, "::1", "fe80::4", 1, 2, 0},
	 }},
	{"IPv6 5-tuple: ports and protocol",
	 "@2001:db8::1/128 2001:db8::2/128 1024 : 2047 443 : 443 6/0xff drop 9\n",
	 {
		 {6, "2001:db8::1", "2001:db8::2", 1024, 443, 1},
		 {6, "2001:db8::1", "2001:db8::2", 2047, 443, 1},
		 {6, "2001:db8::1", "2001:db8::2", 1023, 443, 0},
		 {6, "2001:db8::1", "2001:db8::2", 2048, 443, 0},
		 {6, "2001:db8::1", "2001:db8::2", 1024, 442, 0},
		 {17, "2001:db8::1", "2001:db8::2", 1024, 443, 0},
		 {6, "2001:db8::2", "2001:db8::1", 1024, 443, 0},
	 }},
	{"families: IPv4 keys never hit IPv6 rules and the reverse",
	 "@" ANY4 ANY4 ANYP "0/0 drop 5\n"
	 "@::/0 ::/0" ANYP "0/0 count 5\n",
	 {
		 {6, "10.0.0.1", "10.0.0.2", 1, 2, 1},
		 {6, "0.0.0.0", "0.0.0.0", 0, 0, 1},
		 {6, "::", "::", 0, 0, 2},
		 {6, "::ffff:10.0.0.1", "::ffff:10.0.0.2", 1, 2, 2},
		 {0, "", "", 0, 0, 0}, /* L2 */
	 }},
	{"only IPv4 rules: an IPv6 key (mapped address included) never matches",
	 "@10.0.0.0/8 " ANY4 ANYP "0/0 drop 5\n"
	 "@" ANY4 ANY4 ANYP "0/0 allow 1\n",
	 {
		 {6, "10.0.0.1", "10.0.0.2", 1, 2, 1},
		 {6, "::ffff:10.0.0.1", "::ffff:10.0.0.2", 1, 2, 0},
		 {6, "::", "::", 0, 0, 0},
		 {6, "a00:1::", "::", 0, 0, 0}, /* starts with the bytes of 10.0.0.1 */
	 }},
	{"only IPv6 rules: an IPv4 key never matches",
	 "@::/0 ::/0" ANYP "0/0 count 5\n",
	 {
		 {6, "::", "::", 0, 0, 1},
		 {6, "0.0.0.0", "0.0.0.0", 0, 0, 0},
		 {6, "10.0.0.1", "10.0.0.2", 1, 2, 0},
	 }},
	{"no rule matches: 0",
	 "@10.0.0.0/8 " ANY4 ANYP "6/0xff drop 5\n"
	 "@2001:db8::/32 ::/0" ANYP "17/0xff drop 5\n",
	 {
		 {6, "11.0.0.1", "10.0.0.2", 1, 2, 0},
		 {17, "10.0.0.1", "10.0.0.2", 1, 2, 0},
		 {17, "2001:db9::1", "::", 1, 2, 0},
		 {6, "2001:db8::1", "::", 1, 2, 0},
	 }},
	{"an empty rule set: nothing matches",
	 "# no rules\n",
	 {
		 {6, "10.0.0.1", "10.0.0.2", 1, 2, 0},
		 {6, "0.0.0.0", "0.0.0.0", 0, 0, 0},
		 {17, "2001:db8::1", "::", 1, 2, 0},
		 {0, "", "", 0, 0, 0},
	 }},
};

static size_t
nb_verdicts(const struct acl_case *c)
{
	size_t n = 0;

	while (n < MAX_VERDICTS && c->v[n].src != NULL)
		n++;
	return n;
}

static void
run_acl_cases(void)
{
	size_t i, j;

	for (i = 0; i < TEST_DIM(acl_cases); i++) {
		const struct acl_case *c = &acl_cases[i];
		size_t n = nb_verdicts(c);
		struct mpe_flow_key keys[MAX_VERDICTS];
		const struct mpe_flow_key *kp[MAX_VERDICTS];
		uint32_t res[MAX_VERDICTS], one;
		struct mpe_acl *a;

		test_begin("verdicts: %s", c->name);
		a = build(c->rules);
		if (a == NULL) {
			test_end();
			continue;
		}
		for (j = 0; j < n; j++) {
			keys[j] = key(c->v[j].proto, c->v[j].src, c->v[j].dst, c->v[j].sport,
				      c->v[j].dport);
			kp[j] = &keys[j];
		}
		/* all in one burst, then one at a time */
		memset(res, 0xff, sizeof(res));
		mpe_acl_classify(a, kp, (uint32_t)n, res);
		for (j = 0; j < n; j++) {
			mpe_acl_classify(a, &kp[j], 1, &one);
			CHECK(res[j] == c->v[j].want && one == c->v[j].want,
			      "proto %u %s:%u > %s:%u: got %u (alone %u), expected %u",
			      c->v[j].proto, c->v[j].src, c->v[j].sport, c->v[j].dst,
			      c->v[j].dport, res[j], one, c->v[j].want);
		}
		mpe_acl_free(a);
		test_end();
	}
}

/* ---- other cases ---- */

/* 150 keys (more than one internal burst) alternating IPv4, IPv6 and L2. */
static void
test_mixed_burst(void)
{
	enum { N = 150 };
	static struct mpe_flow_key keys[N];
	const struct mpe_flow_key *kp[N];
	uint32_t res[N], want[N];
	struct mpe_acl *a;
	uint32_t i;

	a = build("@10.0.0.0/8 " ANY4 ANYP "6/0xff drop 5\n"
		  "@2001:db8::/32 ::/0" ANYP "6/0xff drop 5\n"
		  "@" ANY4 ANY4 "0 : 65535 80 : 80 6/0xff allow 9\n");
	if (a == NULL)
		return;
	for (i = 0; i < N; i++) {
		char addr[64];

		switch (i % 5) {
		case 0: /* IPv4 in 10/8, port 80 for every other one */
			snprintf(addr, sizeof(addr), "10.0.%u.%u", i / 256, i % 256);
			keys[i] = key(6, addr, "192.0.2.1", 1000, i % 2 ? 80 : 81);
			want[i] = i % 2 ? 3 : 1;
			break;
		case 1: /* IPv6 in 2001:db8::/32 */
			snprintf(addr, sizeof(addr), "2001:db8::%x", i);
			keys[i] = key(6, addr, "::1", 1000, 80);
			want[i] = 2;
			break;
		case 2: /* IPv6 outside */
			snprintf(addr, sizeof(addr), "2001:db9::%x", i);
			keys[i] = key(6, addr, "::1", 1000, 80);
			want[i] = 0;
			break;
		case 3: /* L2 */
			keys[i] = key(0, "", "", 0, 0);
			want[i] = 0;
			break;
		default: /* IPv4 outside 10/8, UDP */
			snprintf(addr, sizeof(addr), "11.0.%u.%u", i / 256, i % 256);
			keys[i] = key(17, addr, "192.0.2.1", 1000, 80);
			want[i] = 0;
			break;
		}
		kp[i] = &keys[i];
	}
	memset(res, 0xff, sizeof(res));
	mpe_acl_classify(a, kp, N, res);
	for (i = 0; i < N; i++)
		CHECK(res[i] == want[i], "slot %u: got %u, expected %u", i, res[i], want[i]);
	mpe_acl_classify(a, kp, 0, res); /* nothing to do, nothing touched */
	mpe_acl_free(a);
}

/* What another process does: find the contexts by name; same verdicts. */
static void
test_lookup_by_name(void)
{
	struct mpe_rules *r = load_rules("@10.0.0.0/8 " ANY4 ANYP "0/0 drop 5\n"
					 "@::/0 ::/0" ANYP "0/0 drop 5\n");
	struct mpe_flow_key k4 = key(6, "10.0.0.1", "1.1.1.1", 1, 2);
	struct mpe_flow_key k6 = key(6, "::1", "::2", 1, 2);
	const struct mpe_flow_key *kp[2] = {&k4, &k6};
	struct mpe_acl *a, found;
	uint32_t res[2];

	if (!CHECK(r != NULL, "rules"))
		return;
	a = mpe_acl_create("lookup_test", r, SOCKET_ID_ANY);
	if (!CHECK(a != NULL, "create: %s", rte_strerror(rte_errno))) {
		mpe_rules_free(r);
		return;
	}
	CHECK(mpe_acl_lookup("lookup_test", &found) == 0, "lookup failed");
	CHECK(found.ctx4 == a->ctx4 && found.ctx6 == a->ctx6, "other contexts found");
	mpe_acl_classify(&found, kp, 2, res);
	CHECK(res[0] == 1 && res[1] == 2, "got %u %u", res[0], res[1]);

	rte_errno = 0;
	CHECK(mpe_acl_create("lookup_test", r, SOCKET_ID_ANY) == NULL && rte_errno == EEXIST,
	      "second create with the same name: rte_errno %d", rte_errno);
	CHECK(mpe_acl_lookup("lookup_tes", &found) == -ENOENT, "lookup of an unknown name");
	CHECK(mpe_acl_lookup("", &found) == -EINVAL, "lookup of an empty name");
	CHECK(mpe_acl_lookup("a_name_of_29_characters_xxxxx", &found) == -ENAMETOOLONG,
	      "lookup of a long name");
	rte_errno = 0;
	CHECK(mpe_acl_create("a_name_of_29_characters_xxxxx", r, SOCKET_ID_ANY) == NULL &&
		      rte_errno == ENAMETOOLONG,
	      "create with a long name: rte_errno %d", rte_errno);
	rte_errno = 0;
	CHECK(mpe_acl_create(NULL, r, SOCKET_ID_ANY) == NULL && rte_errno == EINVAL,
	      "create without a name: rte_errno %d", rte_errno);
	mpe_acl_classify(a, kp, 2, res);
	CHECK(res[0] == 1 && res[1] == 2, "after refusals: got %u %u", res[0], res[1]);

	/* the longest name fits */
	{
		struct mpe_acl *b = mpe_acl_create("a_name_of_28_characters_xxxx", r,
						   SOCKET_ID_ANY);

		CHECK(b != NULL, "28 characters: %s", rte_strerror(rte_errno));
		CHECK(mpe_acl_lookup("a_name_of_28_characters_xxxx", &found) == 0, "lookup 28");
		mpe_acl_free(b);
	}
	mpe_acl_free(a);
	CHECK(mpe_acl_lookup("lookup_test", &found) == -ENOENT, "found after free");
	mpe_rules_free(r);

	/* no rules at all: both contexts still exist, so another process finds them */
	r = load_rules("# empty\n");
	if (!CHECK(r != NULL, "empty rules"))
		return;
	a = mpe_acl_create("lookup_empty", r, SOCKET_ID_ANY);
	CHECK(a != NULL, "create empty: %s", rte_strerror(rte_errno));
	CHECK(mpe_acl_lookup("lookup_empty", &found) == 0, "lookup of an empty rule set");
	if (a != NULL) {
		mpe_acl_classify(&found, kp, 2, res);
		CHECK(res[0] == 0 && res[1] == 0, "empty: got %u %u", res[0], res[1]);
	}
	mpe_acl_free(a);
	mpe_acl_free(NULL);
	mpe_rules_free(r);
}

/* ---- random rules against a linear reference ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 0x2545f4914f6cdd1dULL) >> 32);
}

static uint32_t
rnd_below(uint32_t n)
{
	return rnd() % n;
}

static int
prefix_match(const uint8_t *rule, const uint8_t *addr, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < len; i++) {
		uint8_t bit = (uint8_t)(0x80 >> (i % 8));

		if ((rule[i / 8] & bit) != (addr[i / 8] & bit))
			return 0;
	}
	return 1;
}

/* The reference: every rule in file order; a later rule wins only with a higher priority.
 * @nb_hits gets the number of rules that match, @tie whether another rule of the winner's
 * priority matches too (so that the tie rule is exercised). */
static uint32_t
reference(const struct mpe_rules *rs, const struct mpe_flow_key *k, uint32_t *nb_hits, int *tie)
{
	uint32_t i, best = 0, best_prio = 0;
	uint16_t sp = ntohs(k->sport), dp = ntohs(k->dport);

	*nb_hits = 0;
	*tie = 0;
	for (i = 0; i < mpe_rules_count(rs); i++) {
		const struct mpe_rule *r = mpe_rules_get(rs, i);

		if (r->family != k->family || (k->proto & r->proto_mask) != r->proto ||
		    sp < r->sport_lo || sp > r->sport_hi || dp < r->dport_lo ||
		    dp > r->dport_hi || !prefix_match(r->src, k->src, r->src_len) ||
		    !prefix_match(r->dst, k->dst, r->dst_len))
			continue;
		(*nb_hits)++;
		if (best == 0 || r->priority > best_prio) {
			best = i + 1;
			best_prio = r->priority;
			*tie = 0;
		} else if (r->priority == best_prio) {
			*tie = 1;
		}
	}
	return best;
}

/* Addresses from a small pool, so that rules overlap and keys hit them. */
static void
rnd_addr(uint8_t family, uint8_t *a)
{
	static const uint8_t v4_first[] = {10, 192, 172, 0, 255};
	unsigned int i;

	memset(a, 0, 16);
	if (family == MPE_FLOW_IPV4) {
		a[0] = v4_first[rnd_below(RTE_DIM(v4_first))];
		for (i = 1; i < 4; i++)
			a[i] = (uint8_t)(rnd_below(4) == 0 ? rnd() : rnd_below(3));
		return;
	}
	a[0] = 0x20;
	a[1] = 0x01;
	a[2] = 0x0d;
	a[3] = (uint8_t)(rnd_below(2) ? 0xb8 : 0xb9);
	for (i = 4; i < 16; i++)
		a[i] = (uint8_t)(rnd_below(3) == 0 ? rnd() : rnd_below(2) * 0xff);
}

static uint16_t
rnd_port(void)
{
	static const uint16_t ports[] = {0, 1, 53, 80, 443, 1023, 1024, 8080, 65534, 65535};

	return rnd_below(2) ? ports[rnd_below(RTE_DIM(ports))] : (uint16_t)rnd();
}

static void
rnd_range(uint16_t *lo, uint16_t *hi)
{
	uint16_t a = rnd_port(), b;

	switch (rnd_below(4)) {
	case 0:
	case 3: *lo = 0; *hi = 65535; return;
	case 1: *lo = *hi = a; return;
	default:
		b = rnd_below(2) ? (uint16_t)RTE_MIN(65535u, a + rnd_below(2000)) : rnd_port();
		*lo = RTE_MIN(a, b);
		*hi = RTE_MAX(a, b);
	}
}

/* A third anywhere, a third short (broad rules that overlap), a third long. */
static unsigned int
rnd_len(unsigned int max)
{
	switch (rnd_below(3)) {
	case 0: return rnd_below(max + 1);
	case 1: return rnd_below(max / 4 + 1);
	default: return max - rnd_below(max / 4 + 1);
	}
}

static int
format_rule(char *buf, size_t size, uint8_t family)
{
	uint8_t s[16], d[16];
	char ss[INET6_ADDRSTRLEN], ds[INET6_ADDRSTRLEN];
	uint16_t slo, shi, dlo, dhi;
	unsigned int max = family == MPE_FLOW_IPV4 ? 32 : 128;
	int af = family == MPE_FLOW_IPV4 ? AF_INET : AF_INET6;
	static const uint8_t protos[] = {6, 17, 1, 58};
	static const uint8_t masks[] = {0xff, 0xff, 0, 0xf0, 0x0f};
	static const char *const actions[] = {"allow", "drop", "count"};

	rnd_addr(family, s);
	rnd_addr(family, d);
	inet_ntop(af, s, ss, sizeof(ss));
	inet_ntop(af, d, ds, sizeof(ds));
	rnd_range(&slo, &shi);
	rnd_range(&dlo, &dhi);
	/* priorities from a small range: many ties, resolved by rule id */
	return snprintf(buf, size, "@%s/%u %s/%u %u : %u %u : %u %u/0x%x %s %u\n", ss,
			rnd_len(max), ds, rnd_len(max), slo, shi, dlo, dhi,
			protos[rnd_below(RTE_DIM(protos))], masks[rnd_below(RTE_DIM(masks))],
			actions[rnd_below(3)],
			rnd_below(8) == 0 ? (uint32_t)RTE_ACL_MAX_PRIORITY - rnd_below(3)
						: 1 + rnd_below(8));
}

/* A key near rule @r (its addresses with some host bits flipped, ports at its edges). */
static void
key_near(const struct mpe_rule *r, struct mpe_flow_key *k)
{
	static const int edge[] = {-1, 0, 0, 1};
	unsigned int bytes = r->family == MPE_FLOW_IPV4 ? 4 : 16, i;
	int sp, dp;

	memset(k, 0, sizeof(*k));
	k->family = r->family;
	memcpy(k->src, r->src, bytes);
	memcpy(k->dst, r->dst, bytes);
	for (i = 0; i < 2; i++) {
		uint8_t *a = i ? k->dst : k->src;
		unsigned int len = i ? r->dst_len : r->src_len;
		unsigned int bit;

		/* flip a host bit, or sometimes the last prefix bit (just outside) */
		if (rnd_below(4) == 0 && len > 0)
			bit = len - 1;
		else if (len < bytes * 8)
			bit = len + rnd_below(bytes * 8 - len);
		else
			continue;
		a[bit / 8] ^= (uint8_t)(0x80 >> (bit % 8));
	}
	sp = (rnd_below(2) ? r->sport_lo : r->sport_hi) + edge[rnd_below(4)];
	dp = (rnd_below(2) ? r->dport_lo : r->dport_hi) + edge[rnd_below(4)];
	k->sport = htons((uint16_t)RTE_MAX(0, RTE_MIN(65535, sp)));
	k->dport = htons((uint16_t)RTE_MAX(0, RTE_MIN(65535, dp)));
	k->proto = rnd_below(4) ? r->proto : (uint8_t)rnd();
}

static void
test_random_vs_reference(void)
{
	enum { NB_RULES = 1000, NB_KEYS = 10000 };
	static struct mpe_flow_key keys[NB_KEYS];
	static const struct mpe_flow_key *kp[NB_KEYS];
	static uint32_t res[NB_KEYS];
	size_t size = NB_RULES * 160, o = 0;
	char *text = malloc(size);
	uint32_t i, matched = 0, wrong = 0, by_rule = 0, several = 0, ties = 0;
	struct mpe_rules *rs;
	struct mpe_acl *a;

	if (!CHECK(text != NULL, "malloc"))
		return;
	for (i = 0; i < NB_RULES; i++)
		o += (size_t)format_rule(text + o, size - o,
					 rnd_below(2) ? MPE_FLOW_IPV4 : MPE_FLOW_IPV6);
	rs = load_rules(text);
	free(text);
	if (!CHECK(rs != NULL && mpe_rules_count(rs) == NB_RULES, "random rules refused"))
		goto out;
	a = mpe_acl_create(next_name(), rs, SOCKET_ID_ANY);
	if (!CHECK(a != NULL, "create: %s", rte_strerror(rte_errno)))
		goto out;
	for (i = 0; i < NB_KEYS; i++) {
		if (rnd_below(4) != 0) {
			key_near(mpe_rules_get(rs, rnd_below(NB_RULES)), &keys[i]);
		} else {
			memset(&keys[i], 0, sizeof(keys[i]));
			keys[i].family = rnd_below(2) ? MPE_FLOW_IPV4 : MPE_FLOW_IPV6;
			rnd_addr(keys[i].family, keys[i].src);
			rnd_addr(keys[i].family, keys[i].dst);
			keys[i].sport = htons(rnd_port());
			keys[i].dport = htons(rnd_port());
			keys[i].proto = (uint8_t)(rnd_below(2) ? 6 : rnd());
		}
		kp[i] = &keys[i];
	}
	mpe_acl_classify(a, kp, NB_KEYS, res);
	for (i = 0; i < NB_KEYS; i++) {
		uint32_t hits;
		int tie;
		uint32_t want = reference(rs, &keys[i], &hits, &tie);

		matched += want != 0;
		several += hits > 1;
		ties += tie;
		if (res[i] != want && wrong++ < 10) {
			char flow[128];

			mpe_flow_key_format(&keys[i], flow, sizeof(flow));
			CHECK(res[i] == want, "key %u (%s): rte_acl says %u, reference %u", i, flow,
			      res[i], want);
		}
	}
	/* a test that matches nothing, or everything, proves little */
	for (i = 0; i < NB_RULES; i++) {
		uint32_t j;

		for (j = 0; j < NB_KEYS; j++)
			if (res[j] == i + 1)
				break;
		by_rule += j < NB_KEYS;
	}
	printf("#   %u of %u keys matched (%u several rules, %u with a tie for the highest "
	       "priority), %u distinct rules won, %u disagreements\n",
	       matched, NB_KEYS, several, ties, by_rule, wrong);
	CHECK(wrong == 0, "%u disagreements", wrong);
	CHECK(matched > NB_KEYS / 10 && matched < NB_KEYS, "%u keys matched", matched);
	CHECK(by_rule > NB_RULES / 5, "only %u rules won", by_rule);
	CHECK(several > NB_KEYS / 10 && ties > NB_KEYS / 100, "overlaps: %u keys, ties: %u keys",
	      several, ties);
	mpe_acl_free(a);
out:
	mpe_rules_free(rs);
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{"one burst of 150 keys mixing IPv4, IPv6 and L2: results in their slots",
		 test_mixed_burst},
		{"mpe_acl_lookup finds the contexts by name; names refused", test_lookup_by_name},
		{"1000 random rules, 10000 keys: rte_acl agrees with a linear matcher",
		 test_random_vs_reference},
	};
	int rc;

	(void)argc;
	if (test_eal_init(argv[0], "acl") < 0)
		return 1;
	run_acl_cases();
	test_run_cases(cases, TEST_DIM(cases));
	rc = test_summary();
	test_eal_fini();
	return rc;
}
