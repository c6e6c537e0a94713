/* SPDX-License-Identifier: BSD-3-Clause */
/* The code of each stage, gathered into the table by table.c. Private to common/stages/. */
#ifndef MPE_STAGES_H
#define MPE_STAGES_H

#include "stage.h"

extern const struct mpe_stage_ops mpe_stage_fwd_ops;
extern const struct mpe_stage_ops mpe_stage_flowhash_ops;
extern const struct mpe_stage_ops mpe_stage_burn_ops;
extern const struct mpe_stage_ops mpe_stage_parse_ops;
extern const struct mpe_stage_ops mpe_stage_flow_ops;
extern const struct mpe_stage_ops mpe_stage_acl_ops;

#endif
