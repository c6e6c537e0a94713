/* SPDX-License-Identifier: BSD-3-Clause */
/* A rule set in force: one generation of the acl stage's rules, everything a worker needs to
 * apply it, and the per-rule hit counters of every worker. The primary makes one per load or
 * reload, in a memzone of its own, and publishes it in shm->ruleset; workers read it at a
 * burst boundary and let go at their next quiescent report. Immutable but for the counters.
 *
 *   +-------------------------------+  memzone "mpe_rs_<generation>"
 *   | header                        |  written once by the primary before publishing
 *   +-------------------------------+
 *   | struct mpe_rule [nb_rules]    |  the rules, for actions and for telemetry
 *   +-------------------------------+
 *   | hits [worker][hits_stride]    |  hits[0]: no rule matched (default action);
 *   |                               |  hits[i + 1]: rule i. Each worker writes its own
 *   +-------------------------------+  row, which starts on a cache line of its own
 */
#ifndef MPE_RULESET_H
#define MPE_RULESET_H

#include <stdint.h>

#include <rte_common.h>

#include "acl.h"
#include "config.h"
#include "rules.h"

#define MPE_RULESET_MAGIC 0x4d504552554c4553ULL /* "MPERULES" */

struct rte_memzone;

struct mpe_ruleset {
	uint64_t magic;
	uint32_t generation;
	uint32_t nb_rules;
	uint32_t nb_workers;
	uint32_t hits_stride;	/* uint64_t per worker row: nb_rules + 1, rounded to a line */
	uint8_t default_action; /* MPE_RULE_ALLOW or MPE_RULE_DROP */
	uint8_t has_mirror;	/* some rule's action is mirror */
	char file[MPE_PATH_LEN];
	struct mpe_acl acl; /* the two rte_acl contexts, in DPDK memory */
	uint64_t *hits;	    /* into this memzone */
	struct mpe_rule rules[] __rte_cache_aligned;
};

/* Primary: a new generation made from @r (which stays the caller's), with rte_acl contexts
 * named after @generation, hit counters for @nb_workers workers, all zero. NULL and
 * rte_errno on failure (ENOMEM, EEXIST, or mpe_acl_create's errors). */
struct mpe_ruleset *mpe_ruleset_create(uint32_t generation, const struct mpe_rules *r,
				       const char *file, uint8_t default_action,
				       uint32_t nb_workers);

/* Primary: free a generation no worker can hold any more. NULL is a no-op. */
void mpe_ruleset_free(struct mpe_ruleset *rs);

/* Hits of entry @idx (0: default, i + 1: rule i) summed over the workers. */
uint64_t mpe_ruleset_hits(const struct mpe_ruleset *rs, uint32_t idx);

/* Worker @w's row of hit counters. */
static inline uint64_t *
mpe_ruleset_row(const struct mpe_ruleset *rs, uint32_t w)
{
	return rs->hits + (uint64_t)w * rs->hits_stride;
}

/* Rule @r in the file's syntax: "@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff drop 10".
 * Returns what snprintf returns. */
int mpe_rule_format(const struct mpe_rule *r, char *buf, size_t size);

#endif
