/* SPDX-License-Identifier: BSD-3-Clause */
/* The catalogue of packet stages: each stage's id, name, help and what it needs from the
 * stages before it. Plain data, the same in every process: shared memory names a stage by its
 * id. Configuration checks ask this table; the code of each stage is in common/stages/.
 */
#ifndef MPE_STAGE_INFO_H
#define MPE_STAGE_INFO_H

#include <stddef.h>
#include <stdint.h>

/* Ids, in the order of the catalogue; conf.workers[].stages[] holds them. */
enum mpe_stage_id {
	MPE_STAGE_FWD,
	MPE_STAGE_FLOWHASH,
	MPE_STAGE_PARSE,
	MPE_STAGE_FLOW,
	MPE_STAGE_ACL,
	MPE_STAGE_BURN,
	/* test-only stages (test_only below): found by name only in a build with
	 * -Dtest_stages=true */
	MPE_STAGE_HOSTILE,
	MPE_STAGE_FAULT,
	MPE_STAGE_MAX,
};

/* What a stage gives the stages after it (gives), or needs from those before it (needs). */
#define MPE_STAGE_PARSED 0x01	  /* the packet decoded: key, header lengths (struct mpe_pkt_priv) */
#define MPE_STAGE_KEY_HASH 0x02	  /* meta flow_hash is the hash of the decoded key */
#define MPE_STAGE_OTHER_HASH 0x04 /* replaces meta flow_hash with a hash of its own */
#define MPE_STAGE_ROUTE 0x08	  /* sets each packet's output port */
#define MPE_STAGE_RULES 0x10	  /* needs: the rules file ([engine] rules) */

struct mpe_stage_info {
	const char *name;
	const char *help;
	uint8_t gives;	       /* MPE_STAGE_* */
	uint8_t needs;	       /* MPE_STAGE_* */
	uint8_t reads_headers; /* reads the packet's headers: the worker prefetches them ahead */
	uint8_t reads_time;    /* reads the burst's TSC: the worker sets it on every burst */
	uint8_t test_only;     /* attacks or crashes its worker: tests only (-Dtest_stages) */
};

/* Id of the stage called @name (length @len), or -ENOENT; a test-only stage only in a build
 * with -Dtest_stages=true. */
int mpe_stage_find(const char *name, size_t len);
/* The catalogue's entry @id, or NULL past the end. */
const struct mpe_stage_info *mpe_stage_info(unsigned int id);
/* The first stage that gives @what (MPE_STAGE_*), or NULL: for messages. */
const struct mpe_stage_info *mpe_stage_giver(uint8_t what);
/* "fwd, flowhash, ...": the known names, for messages and --help-config; never the test-only
 * stages, so that what the binary prints is the same in test builds. */
const char *mpe_stage_list(void);

#endif
