/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of every stage's code, indexed by the catalogue's ids (config/stage_info.h).
 * Process-local: shared memory names a stage by its id, never by address, because function
 * pointers differ between processes.
 */
#include <stddef.h>

#include <rte_common.h>

#include "stage.h"
#include "stages.h"

static const struct mpe_stage_ops *const table[MPE_STAGE_MAX] = {
	[MPE_STAGE_FWD] = &mpe_stage_fwd_ops,
	[MPE_STAGE_FLOWHASH] = &mpe_stage_flowhash_ops,
	[MPE_STAGE_PARSE] = &mpe_stage_parse_ops,
	[MPE_STAGE_FLOW] = &mpe_stage_flow_ops,
	[MPE_STAGE_ACL] = &mpe_stage_acl_ops,
	[MPE_STAGE_BURN] = &mpe_stage_burn_ops,
	[MPE_STAGE_HOSTILE] = &mpe_stage_hostile_ops,
	[MPE_STAGE_FAULT] = &mpe_stage_fault_ops,
};

const struct mpe_stage_ops *
mpe_stage_get(unsigned int id)
{
	return id < RTE_DIM(table) ? table[id] : NULL;
}
