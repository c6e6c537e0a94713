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
/* test-only: hostile.c and fault.c with -Dtest_stages=true, else hostile_off.c and
 * fault_off.c (meson chooses) */
extern const struct mpe_stage_ops mpe_stage_hostile_ops;
extern const struct mpe_stage_ops mpe_stage_fault_ops;

#endif
