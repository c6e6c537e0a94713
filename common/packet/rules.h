/* SPDX-License-Identifier: BSD-3-Clause */
/* Rule files: the l3fwd ACL syntax plus an action and a priority, parsed into plain data.
 * A loaded rule set is private to the process that loaded it and immutable; it needs no EAL.
 * Copying the mpe_rule array elsewhere (shared memory) is safe: it holds no pointers.
 */
#ifndef MPE_RULES_H
#define MPE_RULES_H

#include <stdint.h>
#include <stdio.h>

/* Most rules one file may hold (rule ids fit in 16 bits + 1 for "no match"). */
#define MPE_RULES_MAX 65536
/* A rules file's limits: its size, and a line's characters (comments included) */
#define MPE_RULES_FILE_MAX (64u << 20)
#define MPE_RULES_LINE_MAX 1024u

enum mpe_rule_action {
	MPE_RULE_ALLOW = 0,
	MPE_RULE_DROP,
	MPE_RULE_COUNT,	 /* allow, and count the packet against this rule */
	MPE_RULE_MIRROR, /* allow, and send a copy to the mirror port */
};

/* One rule, as written in the file except that the bits beyond each prefix length and the
 * protocol bits outside the mask are cleared (so "10.1.2.3/8" is stored as 10.0.0.0/8). */
struct mpe_rule {
	uint8_t family;  /* 4 or 6 (enum mpe_flow_family) */
	uint8_t src_len; /* prefix lengths: 0..32 or 0..128 */
	uint8_t dst_len;
	uint8_t proto; /* matches when (packet proto & proto_mask) == proto */
	uint8_t proto_mask;
	uint8_t action;    /* enum mpe_rule_action */
	uint16_t sport_lo; /* port ranges, inclusive, host order */
	uint16_t sport_hi;
	uint16_t dport_lo;
	uint16_t dport_hi;
	uint32_t priority; /* 1..RTE_ACL_MAX_PRIORITY, higher wins; ties: lower id wins */
	uint32_t line;     /* line of the rule in its file */
	uint8_t src[16];   /* network order; IPv4 in the first 4 bytes, the rest zero */
	uint8_t dst[16];
};

struct mpe_rules;

/* Read the rules file at @path: a regular file (not a FIFO or a device) of at most
 * MPE_RULES_FILE_MAX bytes, in lines of at most MPE_RULES_LINE_MAX characters. Blank lines
 * and lines whose first non-blank character is '#' are comments. Every bad line is reported
 * on @err (may be NULL) as "path:line: reason"; then NULL is returned with rte_errno = EINVAL
 * (ENOENT etc. when the file cannot be opened, EINVAL when it is not a regular file, EFBIG,
 * ENOMEM). Rule i (0-based, file order) has id i. */
struct mpe_rules *mpe_rules_load(const char *path, FILE *err);

void mpe_rules_free(struct mpe_rules *r);

/* Number of rules, of all families. */
uint32_t mpe_rules_count(const struct mpe_rules *r);

/* Number of rules of @family (4 or 6); 0 for any other family. */
uint32_t mpe_rules_count_family(const struct mpe_rules *r, uint8_t family);

/* Rule @id, or NULL when @id >= mpe_rules_count(). */
const struct mpe_rule *mpe_rules_get(const struct mpe_rules *r, uint32_t id);

/* "allow", "drop", "count", "mirror"; "?" for anything else. */
const char *mpe_rule_action_name(uint8_t action);

#endif
