/* SPDX-License-Identifier: BSD-3-Clause */
/* rte_acl contexts built from a rule set, and burst classification of flow keys.
 * The creator builds both contexts once; afterwards they are only read, so any lcore of any
 * process may classify at the same time. Priorities are ranked before the build so that ties
 * resolve to the lowest rule id, whatever rte_acl does with equal priorities.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "acl.h"
#include "log.h"

extern int mpe_logtype_acl;
RTE_LOG_REGISTER(mpe_logtype_acl, mpe.acl, INFO);

/* Userdata of the catch-all rule of a family without rules: masked off to 0 ("no match").
 * Real rules carry id + 1 <= MPE_RULES_MAX, far below this bit. */
#define MISS_USERDATA (UINT32_C(1) << 31)
#define RESULT_MASK (MISS_USERDATA - 1)

/* rte_acl wants the first field one byte long, then whole 4-byte input words: proto alone,
 * each 32-bit address word alone, both ports in one word. */
enum { F4_PROTO, F4_SRC, F4_DST, F4_SPORT, F4_DPORT, F4_NUM };

enum {
	F6_PROTO,
	F6_SRC0,
	F6_DST0 = F6_SRC0 + 4,
	F6_SPORT = F6_DST0 + 4,
	F6_DPORT,
	F6_NUM,
};

RTE_ACL_RULE_DEF(acl4_rule, F4_NUM);
RTE_ACL_RULE_DEF(acl6_rule, F6_NUM);

static void
defs_v4(struct rte_acl_config *cfg)
{
	static const struct rte_acl_field_def defs[F4_NUM] = {
		{RTE_ACL_FIELD_TYPE_BITMASK, 1, F4_PROTO, 0, offsetof(struct mpe_acl_key4, proto)},
		{RTE_ACL_FIELD_TYPE_MASK, 4, F4_SRC, 1, offsetof(struct mpe_acl_key4, src)},
		{RTE_ACL_FIELD_TYPE_MASK, 4, F4_DST, 2, offsetof(struct mpe_acl_key4, dst)},
		{RTE_ACL_FIELD_TYPE_RANGE, 2, F4_SPORT, 3, offsetof(struct mpe_acl_key4, sport)},
		{RTE_ACL_FIELD_TYPE_RANGE, 2, F4_DPORT, 3, offsetof(struct mpe_acl_key4, dport)},
	};

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_categories = 1;
	cfg->num_fields = F4_NUM;
	memcpy(cfg->defs, defs, sizeof(defs));
}

static void
defs_v6(struct rte_acl_config *cfg)
{
	unsigned int i;

	memset(cfg, 0, sizeof(*cfg));
	cfg->num_categories = 1;
	cfg->num_fields = F6_NUM;
	cfg->defs[F6_PROTO] = (struct rte_acl_field_def){
		RTE_ACL_FIELD_TYPE_BITMASK, 1, F6_PROTO, 0, offsetof(struct mpe_acl_key6, proto)};
	for (i = 0; i < 4; i++) {
		cfg->defs[F6_SRC0 + i] = (struct rte_acl_field_def){
			RTE_ACL_FIELD_TYPE_MASK, 4, F6_SRC0 + i, 1 + i,
			offsetof(struct mpe_acl_key6, src) + 4 * i};
		cfg->defs[F6_DST0 + i] = (struct rte_acl_field_def){
			RTE_ACL_FIELD_TYPE_MASK, 4, F6_DST0 + i, 5 + i,
			offsetof(struct mpe_acl_key6, dst) + 4 * i};
	}
	cfg->defs[F6_SPORT] = (struct rte_acl_field_def){
		RTE_ACL_FIELD_TYPE_RANGE, 2, F6_SPORT, 9, offsetof(struct mpe_acl_key6, sport)};
	cfg->defs[F6_DPORT] = (struct rte_acl_field_def){
		RTE_ACL_FIELD_TYPE_RANGE, 2, F6_DPORT, 9, offsetof(struct mpe_acl_key6, dport)};
}

/* rte_acl rule values are in host order; it compares them with network-order input. */
static uint32_t
word(const uint8_t *a, unsigned int i)
{
	uint32_t w;

	memcpy(&w, a + 4 * i, sizeof(w));
	return rte_be_to_cpu_32(w);
}

/* Prefix length of 32-bit word @i of a @len-bit prefix. */
static uint32_t
word_len(unsigned int len, unsigned int i)
{
	if (len <= 32 * i)
		return 0;
	return RTE_MIN(len - 32 * i, 32u);
}

static void
fill_common(struct rte_acl_field *f, unsigned int proto, unsigned int sport, unsigned int dport,
	    const struct mpe_rule *r)
{
	f[proto].value.u8 = r->proto;
	f[proto].mask_range.u8 = r->proto_mask;
	f[sport].value.u16 = r->sport_lo;
	f[sport].mask_range.u16 = r->sport_hi;
	f[dport].value.u16 = r->dport_lo;
	f[dport].mask_range.u16 = r->dport_hi;
}

static void
fill_v4(struct acl4_rule *a, const struct mpe_rule *r, uint32_t prio, uint32_t userdata)
{
	memset(a, 0, sizeof(*a));
	a->data.category_mask = 1;
	a->data.priority = (int32_t)prio;
	a->data.userdata = userdata;
	fill_common(a->field, F4_PROTO, F4_SPORT, F4_DPORT, r);
	a->field[F4_SRC].value.u32 = word(r->src, 0);
	a->field[F4_SRC].mask_range.u32 = r->src_len;
	a->field[F4_DST].value.u32 = word(r->dst, 0);
	a->field[F4_DST].mask_range.u32 = r->dst_len;
}

static void
fill_v6(struct acl6_rule *a, const struct mpe_rule *r, uint32_t prio, uint32_t userdata)
{
	unsigned int i;

	memset(a, 0, sizeof(*a));
	a->data.category_mask = 1;
	a->data.priority = (int32_t)prio;
	a->data.userdata = userdata;
	fill_common(a->field, F6_PROTO, F6_SPORT, F6_DPORT, r);
	for (i = 0; i < 4; i++) {
		a->field[F6_SRC0 + i].value.u32 = word(r->src, i);
		a->field[F6_SRC0 + i].mask_range.u32 = word_len(r->src_len, i);
		a->field[F6_DST0 + i].value.u32 = word(r->dst, i);
		a->field[F6_DST0 + i].mask_range.u32 = word_len(r->dst_len, i);
	}
}

struct prio_id {
	uint32_t prio;
	uint32_t id;
};

/* Ascending priority; among equals the higher id first, so the lower id ranks higher. */
static int
cmp_rank(const void *a, const void *b)
{
	const struct prio_id *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->id < y->id ? 1 : (x->id > y->id ? -1 : 0);
}

/* rank[id] in 1..n: rte_acl priorities that order the rules as mpe promises. */
static uint32_t *
make_ranks(const struct mpe_rules *r)
{
	uint32_t i, n = mpe_rules_count(r);
	struct prio_id *v = malloc(sizeof(*v) * (n + 1));
	uint32_t *rank = malloc(sizeof(*rank) * (n + 1));

	if (v == NULL || rank == NULL) {
		free(v);
		free(rank);
		return NULL;
	}
	for (i = 0; i < n; i++)
		v[i] = (struct prio_id){mpe_rules_get(r, i)->priority, i};
	qsort(v, n, sizeof(*v), cmp_rank);
	for (i = 0; i < n; i++)
		rank[v[i].id] = i + 1;
	free(v);
	return rank;
}

/* Create and build the context of one family. */
static struct rte_acl_ctx *
build_family(const char *name, uint8_t family, const struct mpe_rules *r, const uint32_t *rank,
	     int socket)
{
	const uint32_t nfields = family == MPE_FLOW_IPV4 ? F4_NUM : F6_NUM;
	const size_t rsize = RTE_ACL_RULE_SZ(nfields);
	uint32_t nb = mpe_rules_count_family(r, family);
	uint32_t i, j, total = mpe_rules_count(r);
	struct rte_acl_param prm = {
		.name = name,
		.socket_id = socket,
		.rule_size = (uint32_t)rsize,
		.max_rule_num = RTE_MAX(nb, 1u),
	};
	struct rte_acl_config cfg;
	struct rte_acl_ctx *ctx;
	uint8_t *rules;
	int rc;

	rules = calloc(prm.max_rule_num, rsize);
	if (rules == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	if (nb == 0) {
		/* all fields wildcards: every key of the family gets MISS_USERDATA */
		struct mpe_rule any = {.family = family, .sport_hi = UINT16_MAX,
				       .dport_hi = UINT16_MAX};

		if (family == MPE_FLOW_IPV4)
			fill_v4((struct acl4_rule *)rules, &any, RTE_ACL_MIN_PRIORITY,
				MISS_USERDATA);
		else
			fill_v6((struct acl6_rule *)rules, &any, RTE_ACL_MIN_PRIORITY,
				MISS_USERDATA);
	}
	for (i = 0, j = 0; i < total; i++) {
		const struct mpe_rule *ru = mpe_rules_get(r, i);

		if (ru->family != family)
			continue;
		if (family == MPE_FLOW_IPV4)
			fill_v4((struct acl4_rule *)(rules + rsize * j), ru, rank[i], i + 1);
		else
			fill_v6((struct acl6_rule *)(rules + rsize * j), ru, rank[i], i + 1);
		j++;
	}

	ctx = rte_acl_create(&prm);
	if (ctx == NULL) {
		rc = rte_errno;
		MPE_LOG(ERR, acl, "%s: cannot create: %s", name, rte_strerror(rc));
		free(rules);
		rte_errno = rc;
		return NULL;
	}
	rc = rte_acl_add_rules(ctx, (const struct rte_acl_rule *)rules, prm.max_rule_num);
	free(rules);
	if (rc == 0) {
		if (family == MPE_FLOW_IPV4)
			defs_v4(&cfg);
		else
			defs_v6(&cfg);
		rc = rte_acl_build(ctx, &cfg);
	}
	if (rc != 0) {
		MPE_LOG(ERR, acl, "%s: cannot build %u rules: %s", name, nb, rte_strerror(-rc));
		rte_acl_free(ctx);
		rte_errno = -rc;
		return NULL;
	}
	return ctx;
}

/* "<name>_v4" and "<name>_v6" into @n4 and @n6 (RTE_ACL_NAMESIZE each). */
static int
ctx_names(const char *name, char *n4, char *n6)
{
	if (name == NULL || name[0] == '\0')
		return -EINVAL;
	if (strlen(name) > MPE_ACL_NAME_MAX)
		return -ENAMETOOLONG;
	snprintf(n4, RTE_ACL_NAMESIZE, "%s_v4", name);
	snprintf(n6, RTE_ACL_NAMESIZE, "%s_v6", name);
	return 0;
}

struct mpe_acl *
mpe_acl_create(const char *name, const struct mpe_rules *r, int socket)
{
	char n4[RTE_ACL_NAMESIZE], n6[RTE_ACL_NAMESIZE];
	struct mpe_acl *a;
	uint32_t *rank;
	int rc;

	rc = ctx_names(name, n4, n6);
	if (rc == 0 && r == NULL)
		rc = -EINVAL;
	if (rc < 0) {
		rte_errno = -rc;
		return NULL;
	}
	/* rte_acl_create hands back an existing context of the same name: refuse instead */
	if (rte_acl_find_existing(n4) != NULL || rte_acl_find_existing(n6) != NULL) {
		MPE_LOG(ERR, acl, "%s: contexts of that name exist", name);
		rte_errno = EEXIST;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	rank = make_ranks(r);
	if (a == NULL || rank == NULL) {
		free(a);
		free(rank);
		rte_errno = ENOMEM;
		return NULL;
	}
	a->ctx4 = build_family(n4, MPE_FLOW_IPV4, r, rank, socket);
	if (a->ctx4 != NULL)
		a->ctx6 = build_family(n6, MPE_FLOW_IPV6, r, rank, socket);
	free(rank);
	if (a->ctx6 == NULL) {
		rc = rte_errno;
		mpe_acl_free(a);
		rte_errno = rc;
		return NULL;
	}
	MPE_LOG(DEBUG, acl, "%s: %u IPv4 and %u IPv6 rules", name,
		mpe_rules_count_family(r, MPE_FLOW_IPV4), mpe_rules_count_family(r, MPE_FLOW_IPV6));
	return a;
}

int
mpe_acl_lookup(const char *name, struct mpe_acl *out)
{
	char n4[RTE_ACL_NAMESIZE], n6[RTE_ACL_NAMESIZE];
	struct mpe_acl a;
	int rc;

	rc = ctx_names(name, n4, n6);
	if (rc < 0)
		return rc;
	a.ctx4 = rte_acl_find_existing(n4);
	a.ctx6 = rte_acl_find_existing(n6);
	if (a.ctx4 == NULL || a.ctx6 == NULL)
		return -ENOENT;
	*out = a;
	return 0;
}

void
mpe_acl_free(struct mpe_acl *a)
{
	if (a == NULL)
		return;
	rte_acl_free(a->ctx4);
	rte_acl_free(a->ctx6);
	free(a);
}

/* At most MPE_ACL_BURST keys: split by family, one rte_acl_classify per family, results back
 * to their slots. */
static inline void
classify_burst(const struct mpe_acl *a, const struct mpe_flow_key *const keys[], uint32_t n,
	       uint32_t results[])
{
	struct mpe_acl_key4 k4[MPE_ACL_BURST];
	struct mpe_acl_key6 k6[MPE_ACL_BURST];
	const uint8_t *d4[MPE_ACL_BURST], *d6[MPE_ACL_BURST];
	uint32_t r4[MPE_ACL_BURST], r6[MPE_ACL_BURST];
	uint32_t s4[MPE_ACL_BURST], s6[MPE_ACL_BURST];
	uint32_t i, n4 = 0, n6 = 0;

	for (i = 0; i < n; i++) {
		const struct mpe_flow_key *k = keys[i];

		results[i] = 0;
		if (k->family == MPE_FLOW_IPV4) {
			struct mpe_acl_key4 *x = &k4[n4];

			x->proto = k->proto;
			memset(x->pad, 0, sizeof(x->pad));
			memcpy(&x->src, k->src, 4);
			memcpy(&x->dst, k->dst, 4);
			x->sport = k->sport;
			x->dport = k->dport;
			d4[n4] = (const uint8_t *)x;
			s4[n4++] = i;
		} else if (k->family == MPE_FLOW_IPV6) {
			struct mpe_acl_key6 *x = &k6[n6];

			x->proto = k->proto;
			memset(x->pad, 0, sizeof(x->pad));
			memcpy(x->src, k->src, 16);
			memcpy(x->dst, k->dst, 16);
			x->sport = k->sport;
			x->dport = k->dport;
			d6[n6] = (const uint8_t *)x;
			s6[n6++] = i;
		}
	}
	/* arguments are valid by construction: rte_acl_classify cannot fail here */
	if (n4 > 0) {
		rte_acl_classify(a->ctx4, d4, r4, n4, 1);
		for (i = 0; i < n4; i++)
			results[s4[i]] = r4[i] & RESULT_MASK;
	}
	if (n6 > 0) {
		rte_acl_classify(a->ctx6, d6, r6, n6, 1);
		for (i = 0; i < n6; i++)
			results[s6[i]] = r6[i] & RESULT_MASK;
	}
}

void
mpe_acl_classify(const struct mpe_acl *a, const struct mpe_flow_key *const keys[], uint32_t n,
		 uint32_t results[])
{
	uint32_t done;

	for (done = 0; done < n; done += MPE_ACL_BURST)
		classify_burst(a, keys + done, RTE_MIN(n - done, (uint32_t)MPE_ACL_BURST),
			       results + done);
}
