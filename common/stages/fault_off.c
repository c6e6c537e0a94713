/* SPDX-License-Identifier: BSD-3-Clause */
/* The fault stage in a build without -Dtest_stages=true: no code that crashes its worker. The
 * catalogue does not let a configuration name it (config/stage_info.c); should a worker still
 * be given its id, it refuses to start. */
#include <errno.h>
#include <stddef.h>

#include "stage.h"
#include "stages.h"

static int
not_built(struct mpe_stage_ctx *ctx)
{
	(void)ctx;
	return -ENOTSUP;
}

const struct mpe_stage_ops mpe_stage_fault_ops = {
	.init = not_built,
};
