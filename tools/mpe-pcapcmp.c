/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-pcapcmp: checks that an ACTUAL pcap holds the packets of an EXPECTED pcap, allowing
 * any interleaving across flows but requiring each flow's own order to be kept.
 * Owns the comparison rules (see "Comparison" below) and the report format.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "parse.h"
#include "pkt.h"
#include "version.h"

/*
 * Comparison
 *
 * Every packet belongs to a flow: the canonical key (mpe_flow_key_canon of mpe_pkt_flow_key),
 * so both directions of a connection form one flow and the order across directions counts.
 * Frames whose headers cannot be read keep the part of the key that could be read. With
 * MACs ignored, non-IP frames (whose key is the MAC pair) all fall into one flow.
 *
 * Two packets are equal when their captured bytes are equal, less the first 12 bytes
 * (destination and source MAC) with --ignore-mac or --expect-dst-mac. Equality is decided
 * on a 64-bit hash of those bytes and their length, so a false match needs a hash collision
 * between two packets of the same flow. Timestamps and the on-wire length are not compared.
 *
 * Within one flow, packets are matched as multisets: the k-th copy of some content in ACTUAL
 * matches the k-th copy of that content in EXPECTED.
 *   missing   = EXPECTED packets left without a match
 *   extra     = ACTUAL packets left without a match
 *   matched   = ACTUAL packets with a match (reordered ones included)
 *   reordered = matched packets outside one longest increasing subsequence of the expected
 *               per-flow indices, taken in ACTUAL order (O(n log n)): the fewest packets
 *               whose moving back restores the expected order. Swapping two neighbours
 *               gives 1.
 *   dst-mac   = ACTUAL packets whose destination MAC is not the --expect-dst-mac one
 * differences = missing + extra + reordered + dst-mac; 0 means "identical".
 */

#define PROG "mpe-pcapcmp"

#define EXIT_DIFF 1
#define EXIT_USAGE 2

#define MAX_PACKETS 0x7fffffffU /* per file: a file index must fit in 31 bits */
#define MAC_BYTES 12
#define NO_MATCH UINT32_MAX
#define DEFAULT_MAX_DIFFS 10

enum { EXP = 0, ACT = 1 };

struct pkt {
	uint64_t hash;  /* compared bytes and their length */
	uint32_t flow;  /* index into the flow table */
	uint32_t fidx;  /* position within its flow in its own file, from 0 */
	uint32_t match; /* ACTUAL: fidx of the matched EXPECTED packet; EXPECTED: fidx of the
			 * matched ACTUAL packet; NO_MATCH if none */
	uint8_t reordered;
	uint8_t bad_mac;
	uint8_t mac[6]; /* destination MAC, kept to report dst-mac differences */
};

struct capture {
	const char *role; /* "expected" or "actual" */
	const char *name;
	struct pkt *p;
	uint32_t n;
	uint32_t cap;
	uint64_t cut; /* packets whose caplen < len */
	uint32_t flows;
	uint32_t *by_flow; /* packet indexes grouped by flow, file order inside each flow */
	uint32_t *flow_off; /* by_flow start of each flow; flow_off[nflows] = n */
};

struct flow {
	struct mpe_flow_key canon;
	struct mpe_flow_key shown; /* key of the first packet seen, for reports */
	uint32_t n[2];
};

struct flow_table {
	struct flow *f;
	uint32_t n;
	uint32_t cap;
	uint32_t *slot; /* flow index + 1, 0 = empty */
	uint32_t mask;
};

struct options {
	bool quiet;
	bool ignore_mac;
	bool check_dst_mac;
	uint8_t dst_mac[6];
	uint64_t max_diffs;
};

/* Every number goes through the engine's bounded parser, which explains a refusal. */
static int
parse_number(const char *what, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return mpe_parse_uint_arg(PROG, what, s, min, max, out) < 0 ? -1 : 0;
}

static int
parse_mac(const char *what, const char *s, uint8_t mac[6])
{
	if (mpe_parse_mac(s, mac) == 0)
		return 0;
	fprintf(stderr, PROG ": %s: '%s' is not a MAC address (xx:xx:xx:xx:xx:xx)\n", what, s);
	return -1;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " EXPECTED ACTUAL [options]\n"
		"Check that ACTUAL holds the packets of EXPECTED: any interleaving of flows is\n"
		"accepted, but each flow (both directions together) must keep its packet order.\n"
		"\n"
		"  -i, --ignore-mac          do not compare Ethernet destination and source MACs\n"
		"  -d, --expect-dst-mac MAC  every ACTUAL packet must have destination MAC MAC;\n"
		"                            MACs are otherwise ignored\n"
		"  -k, --max-diffs K         list at most K differences (default %d)\n"
		"  -q, --quiet               print only the last line\n"
		"  -h, --help                this text\n"
		"\n"
		"The last line is \"pcapcmp: identical\" or \"pcapcmp: N differences\".\n"
		"Exit status: 0 identical, 1 differences, 2 usage error or unreadable capture.\n",
		DEFAULT_MAX_DIFFS);
}

static uint64_t
mix64(uint64_t z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdULL;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ULL;
	z ^= z >> 33;
	return z;
}

/* 64-bit hash of @len bytes; order-sensitive, every input word goes through a bijection. */
static uint64_t
bytes_hash(const uint8_t *p, uint32_t len)
{
	uint64_t h = 0x6d70652d70636d70ULL ^ len;
	uint64_t w;
	uint32_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		h = (h ^ mix64(w)) * 0x9e3779b97f4a7c15ULL;
		h = (h << 29) | (h >> 35);
	}
	w = 0;
	memcpy(&w, p + i, len - i);
	h ^= mix64(w ^ ((uint64_t)(len - i) << 59));
	return mix64(h);
}

static int
flow_table_init(struct flow_table *t)
{
	memset(t, 0, sizeof(*t));
	t->mask = 1023;
	t->slot = calloc(t->mask + 1, sizeof(*t->slot));
	return t->slot == NULL ? -1 : 0;
}

static void
flow_table_free(struct flow_table *t)
{
	free(t->f);
	free(t->slot);
}

static int
flow_table_grow(struct flow_table *t)
{
	uint32_t size = (t->mask + 1) * 2, i;
	uint32_t *slot;

	if (size == 0)
		return -1;
	slot = calloc(size, sizeof(*slot));
	if (slot == NULL)
		return -1;
	for (i = 0; i < t->n; i++) {
		uint32_t s = mpe_flow_hash(&t->f[i].canon) & (size - 1);

		while (slot[s] != 0)
			s = (s + 1) & (size - 1);
		slot[s] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->mask = size - 1;
	return 0;
}

/* Flow index of @key (one direction), added if new; UINT32_MAX when out of memory. */
static uint32_t
flow_table_get(struct flow_table *t, const struct mpe_flow_key *key)
{
	struct mpe_flow_key canon;
	uint32_t s;

	mpe_flow_key_canon(key, &canon);
	s = mpe_flow_hash(&canon) & t->mask;
	while (t->slot[s] != 0) {
		struct flow *f = &t->f[t->slot[s] - 1];

		if (memcmp(&f->canon, &canon, sizeof(canon)) == 0)
			return t->slot[s] - 1;
		s = (s + 1) & t->mask;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 1024;
		struct flow *f = realloc(t->f, (size_t)cap * sizeof(*f));

		if (f == NULL)
			return UINT32_MAX;
		t->f = f;
		t->cap = cap;
	}
	t->slot[s] = t->n + 1;
	memset(&t->f[t->n], 0, sizeof(t->f[t->n]));
	t->f[t->n].canon = canon;
	t->f[t->n].shown = *key;
	t->n++;
	if ((uint64_t)t->n * 2 > t->mask && flow_table_grow(t) < 0)
		return UINT32_MAX;
	return t->n - 1;
}

/* Reads one capture into @c. Returns 0, or -1 after saying why (unreadable, truncated,
 * not Ethernet, out of memory). */
static int
read_capture(struct capture *c, int which, struct flow_table *ft, const struct options *o)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *pc;
	int lt, r;

	errbuf[0] = '\0';
	pc = pcap_open_offline(c->name, errbuf);
	if (pc == NULL) {
		fprintf(stderr, PROG ": cannot read %s capture '%s': %s\n", c->role, c->name,
			errbuf);
		return -1;
	}
	lt = pcap_datalink(pc);
	if (lt != DLT_EN10MB) {
		const char *ln = pcap_datalink_val_to_name(lt);

		fprintf(stderr, PROG ": %s capture '%s': link type %s (%d) is not supported, "
			"only Ethernet (EN10MB) captures can be compared\n", c->role, c->name,
			ln != NULL ? ln : "unknown", lt);
		pcap_close(pc);
		return -1;
	}

	while ((r = pcap_next_ex(pc, &ph, &data)) == 1) {
		uint32_t caplen = ph->caplen;
		uint32_t skip = o->ignore_mac ? (caplen < MAC_BYTES ? caplen : MAC_BYTES) : 0;
		struct mpe_flow_key key;
		struct pkt *p;
		uint32_t f;

		if (c->n == MAX_PACKETS) {
			fprintf(stderr, PROG ": %s capture '%s': more than %u packets\n", c->role,
				c->name, MAX_PACKETS);
			goto fail;
		}
		if (c->n == c->cap) {
			uint32_t cap = 4096;
			struct pkt *np;

			if (c->cap > 0)
				cap = c->cap > MAX_PACKETS / 2 ? MAX_PACKETS : c->cap * 2;
			np = realloc(c->p, (size_t)cap * sizeof(*np));
			if (np == NULL)
				goto oom;
			c->p = np;
			c->cap = cap;
		}
		if (caplen < ph->len)
			c->cut++;
		(void)mpe_pkt_flow_key(data, caplen, &key);
		if (o->ignore_mac && key.family == MPE_FLOW_L2) {
			memset(key.src, 0, sizeof(key.src));
			memset(key.dst, 0, sizeof(key.dst));
		}
		f = flow_table_get(ft, &key);
		if (f == UINT32_MAX)
			goto oom;
		p = &c->p[c->n++];
		p->hash = bytes_hash(data + skip, caplen - skip);
		p->flow = f;
		p->fidx = ft->f[f].n[which]++;
		p->match = NO_MATCH;
		p->reordered = 0;
		p->bad_mac = 0;
		memset(p->mac, 0, sizeof(p->mac));
		memcpy(p->mac, data, caplen < 6 ? caplen : 6);
		if (o->check_dst_mac && (caplen < 6 || memcmp(data, o->dst_mac, 6) != 0))
			p->bad_mac = which == ACT;
	}
	if (r != PCAP_ERROR_BREAK) {
		fprintf(stderr, PROG ": %s capture '%s' is truncated or corrupt after %u packets: "
			"%s\n", c->role, c->name, c->n, pcap_geterr(pc));
		goto fail;
	}
	pcap_close(pc);
	return 0;
oom:
	fprintf(stderr, PROG ": out of memory reading %s capture '%s' (%u packets)\n", c->role,
		c->name, c->n);
fail:
	pcap_close(pc);
	return -1;
}

/* by_flow/flow_off: a counting sort of the packet indexes by flow, stable in file order. */
static int
group_by_flow(struct capture *c, int which, const struct flow_table *ft)
{
	uint32_t *pos;
	uint32_t i;

	c->by_flow = malloc(((size_t)c->n + 1) * sizeof(uint32_t));
	c->flow_off = malloc(((size_t)ft->n + 1) * sizeof(uint32_t));
	pos = malloc(((size_t)ft->n + 1) * sizeof(uint32_t));
	if (c->by_flow == NULL || c->flow_off == NULL || pos == NULL) {
		free(pos);
		return -1;
	}
	c->flow_off[0] = 0;
	c->flows = 0;
	for (i = 0; i < ft->n; i++) {
		c->flow_off[i + 1] = c->flow_off[i] + ft->f[i].n[which];
		pos[i] = c->flow_off[i];
		c->flows += ft->f[i].n[which] > 0;
	}
	for (i = 0; i < c->n; i++)
		c->by_flow[pos[c->p[i].flow]++] = i;
	free(pos);
	return 0;
}

struct sort_ent {
	uint64_t hash;
	uint32_t flow;
	uint32_t ref; /* file << 31 | packet index: EXPECTED first, then file order */
};

static int
sort_ent_cmp(const void *a, const void *b)
{
	const struct sort_ent *x = a, *y = b;

	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->ref != y->ref)
		return x->ref < y->ref ? -1 : 1;
	return 0;
}

/* Multiset matching within each flow: the k-th copy in ACTUAL takes the k-th in EXPECTED. */
static int
match_packets(struct capture *c)
{
	size_t n = (size_t)c[EXP].n + c[ACT].n, i, j;
	struct sort_ent *e;

	e = malloc((n ? n : 1) * sizeof(*e));
	if (e == NULL)
		return -1;
	for (i = 0; i < c[EXP].n; i++)
		e[i] = (struct sort_ent){c[EXP].p[i].hash, c[EXP].p[i].flow, (uint32_t)i};
	for (i = 0; i < c[ACT].n; i++)
		e[c[EXP].n + i] = (struct sort_ent){c[ACT].p[i].hash, c[ACT].p[i].flow,
						    (uint32_t)i | 0x80000000U};
	qsort(e, n, sizeof(*e), sort_ent_cmp);

	for (i = 0; i < n; i = j) {
		size_t ne = 0, k;

		for (j = i; j < n && e[j].flow == e[i].flow && e[j].hash == e[i].hash; j++)
			ne += !(e[j].ref & 0x80000000U);
		/* e[i .. i+ne) are EXPECTED copies, e[i+ne .. j) ACTUAL copies, both in order. */
		for (k = 0; k < ne && i + ne + k < j; k++) {
			struct pkt *pe = &c[EXP].p[e[i + k].ref];
			struct pkt *pa = &c[ACT].p[e[i + ne + k].ref & 0x7fffffffU];

			pe->match = pa->fidx;
			pa->match = pe->fidx;
		}
	}
	free(e);
	return 0;
}

/* Marks as reordered the matched ACTUAL packets of one flow that are outside a longest
 * increasing subsequence of their expected indexes. @idx: packet indexes of the flow in
 * ACTUAL order; @tails, @prev: scratch of @m entries. Returns the number marked. */
static uint64_t
mark_reordered(struct pkt *p, const uint32_t *idx, uint32_t m, uint32_t *tails, uint32_t *prev)
{
	uint32_t len = 0, i, cur, matched = 0;

	for (i = 0; i < m; i++) {
		uint32_t v = p[idx[i]].match, lo = 0, hi = len;

		if (v == NO_MATCH)
			continue;
		matched++;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (p[idx[tails[mid]]].match < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		prev[i] = lo > 0 ? tails[lo - 1] : NO_MATCH;
		tails[lo] = i;
		if (lo == len)
			len++;
	}
	if (matched == len)
		return 0;
	for (i = 0; i < m; i++)
		p[idx[i]].reordered = p[idx[i]].match != NO_MATCH;
	for (cur = len ? tails[len - 1] : NO_MATCH; cur != NO_MATCH; cur = prev[cur])
		p[idx[cur]].reordered = 0;
	return matched - len;
}

struct result {
	uint64_t matched, missing, extra, reordered, bad_mac;
};

static void
print_diff(const char *kind, const struct flow *f, const char *detail, uint32_t pktno,
	   const char *role)
{
	char fs[160];

	mpe_flow_key_format(&f->shown, fs, sizeof(fs));
	printf("  %-9s %s: %s (%s packet %u)\n", kind, fs, detail, role, pktno);
}

/* Lists up to o->max_diffs differences, flow by flow in order of first appearance. */
static void
list_diffs(const struct capture *c, const struct flow_table *ft, const struct options *o,
	   uint64_t total)
{
	uint64_t shown = 0;
	uint32_t f, i;
	char d[96];

	if (o->max_diffs == 0 || total == 0)
		return;
	printf("differences (first %" PRIu64 " of %" PRIu64 "):\n",
	       total < o->max_diffs ? total : o->max_diffs, total);
	for (f = 0; f < ft->n && shown < o->max_diffs; f++) {
		for (i = c[EXP].flow_off[f]; i < c[EXP].flow_off[f + 1] && shown < o->max_diffs;
		     i++) {
			uint32_t k = c[EXP].by_flow[i];
			const struct pkt *p = &c[EXP].p[k];

			if (p->match != NO_MATCH)
				continue;
			snprintf(d, sizeof(d), "expected flow index %u not in actual", p->fidx);
			print_diff("missing", &ft->f[f], d, k + 1, "expected");
			shown++;
		}
		for (i = c[ACT].flow_off[f]; i < c[ACT].flow_off[f + 1] && shown < o->max_diffs;
		     i++) {
			uint32_t k = c[ACT].by_flow[i];
			const struct pkt *p = &c[ACT].p[k];

			if (p->match == NO_MATCH) {
				snprintf(d, sizeof(d), "actual flow index %u not in expected",
					 p->fidx);
				print_diff("extra", &ft->f[f], d, k + 1, "actual");
				shown++;
			} else if (p->reordered) {
				snprintf(d, sizeof(d),
					 "actual flow index %u is expected flow index %u",
					 p->fidx, p->match);
				print_diff("reordered", &ft->f[f], d, k + 1, "actual");
				shown++;
			}
			if (p->bad_mac && shown < o->max_diffs) {
				snprintf(d, sizeof(d), "actual flow index %u has destination "
					 "%02x:%02x:%02x:%02x:%02x:%02x", p->fidx, p->mac[0],
					 p->mac[1], p->mac[2], p->mac[3], p->mac[4], p->mac[5]);
				print_diff("dst-mac", &ft->f[f], d, k + 1, "actual");
				shown++;
			}
		}
	}
}

static int
compare(struct capture *c, struct flow_table *ft, const struct options *o)
{
	struct result r = {0};
	uint32_t *tails, *prev;
	uint64_t total;
	uint32_t f, i, maxm = 1;

	if (group_by_flow(&c[EXP], EXP, ft) < 0 || group_by_flow(&c[ACT], ACT, ft) < 0 ||
	    match_packets(c) < 0)
		goto oom;

	for (f = 0; f < ft->n; f++)
		if (ft->f[f].n[ACT] > maxm)
			maxm = ft->f[f].n[ACT];
	tails = malloc((size_t)maxm * sizeof(*tails));
	prev = malloc((size_t)maxm * sizeof(*prev));
	if (tails == NULL || prev == NULL) {
		free(tails);
		free(prev);
		goto oom;
	}
	for (f = 0; f < ft->n; f++)
		r.reordered += mark_reordered(c[ACT].p, c[ACT].by_flow + c[ACT].flow_off[f],
					      ft->f[f].n[ACT], tails, prev);
	free(tails);
	free(prev);

	for (i = 0; i < c[EXP].n; i++)
		r.missing += c[EXP].p[i].match == NO_MATCH;
	for (i = 0; i < c[ACT].n; i++) {
		r.extra += c[ACT].p[i].match == NO_MATCH;
		r.bad_mac += c[ACT].p[i].bad_mac;
	}
	r.matched = c[ACT].n - r.extra;
	total = r.missing + r.extra + r.reordered + r.bad_mac;

	if (!o->quiet) {
		for (i = EXP; i <= ACT; i++) {
			printf("%-9s %s: packets=%u flows=%u\n", i == EXP ? "expected:" : "actual:",
			       c[i].name, c[i].n, c[i].flows);
			if (c[i].cut)
				printf("note: %" PRIu64 " %s packets are cut short by the snapshot "
				       "length; their captured bytes were compared\n", c[i].cut,
				       c[i].role);
		}
		printf("packets: expected=%u actual=%u matched=%" PRIu64 " missing=%" PRIu64
		       " extra=%" PRIu64 " reordered=%" PRIu64, c[EXP].n, c[ACT].n, r.matched,
		       r.missing, r.extra, r.reordered);
		if (o->check_dst_mac)
			printf(" dst-mac=%" PRIu64, r.bad_mac);
		printf("\nflows: expected=%u actual=%u\n", c[EXP].flows, c[ACT].flows);
		list_diffs(c, ft, o, total);
	}
	if (total == 0)
		printf("pcapcmp: identical\n");
	else
		printf("pcapcmp: %" PRIu64 " differences\n", total);
	return total == 0 ? EXIT_SUCCESS : EXIT_DIFF;
oom:
	fprintf(stderr, PROG ": out of memory comparing %u and %u packets\n", c[EXP].n,
		c[ACT].n);
	return EXIT_USAGE;
}

static const struct option long_opts[] = {
	{"ignore-mac", no_argument, NULL, 'i'},
	{"expect-dst-mac", required_argument, NULL, 'd'},
	{"max-diffs", required_argument, NULL, 'k'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};


int
main(int argc, char **argv)
{
	struct capture c[2];
	struct flow_table ft;
	struct options o;
	int ch, ret = EXIT_USAGE;

	mpe_version_exit(argc, argv, "mpe-pcapcmp");
	memset(&o, 0, sizeof(o));
	o.max_diffs = DEFAULT_MAX_DIFFS;
	while ((ch = getopt_long(argc, argv, ":id:k:qh", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'i':
			o.ignore_mac = true;
			break;
		case 'd':
			if (parse_mac("--expect-dst-mac", optarg, o.dst_mac) < 0)
				goto usage;
			o.check_dst_mac = true;
			o.ignore_mac = true;
			break;
		case 'k':
			if (parse_number("--max-diffs", optarg, 0, UINT32_MAX,
					 &o.max_diffs) < 0)
				goto usage;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		default:
			mpe_parse_option_error(PROG, ch, argv, long_opts);
			goto usage;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, PROG ": need two captures, EXPECTED and ACTUAL (got %d)\n",
			argc - optind);
		goto usage;
	}

	memset(c, 0, sizeof(c));
	c[EXP].role = "expected";
	c[EXP].name = argv[optind];
	c[ACT].role = "actual";
	c[ACT].name = argv[optind + 1];
	if (flow_table_init(&ft) < 0) {
		fprintf(stderr, PROG ": out of memory\n");
		return EXIT_USAGE;
	}
	if (read_capture(&c[EXP], EXP, &ft, &o) == 0 && read_capture(&c[ACT], ACT, &ft, &o) == 0)
		ret = compare(c, &ft, &o);
	for (ch = EXP; ch <= ACT; ch++) {
		free(c[ch].p);
		free(c[ch].by_flow);
		free(c[ch].flow_off);
	}
	flow_table_free(&ft);
	if (fflush(stdout) != 0) {
		fprintf(stderr, PROG ": cannot write the report: %s\n", strerror(errno));
		return EXIT_USAGE;
	}
	return ret;
usage:
	fprintf(stderr, "Try '" PROG " --help' for more information.\n");
	return EXIT_USAGE;
}
