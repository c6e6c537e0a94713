/* Creating, finding and checking the memzone that holds struct mpe_shared. */
#ifndef MPE_SHM_OPS_H
#define MPE_SHM_OPS_H

#include <stddef.h>

#include "shm.h"

#ifndef MPE_BUILD_ID
#define MPE_BUILD_ID "unknown"
#endif

/* Primary: reserve and initialise the header. NULL and rte_errno on failure. */
struct mpe_shared *mpe_shm_create(const struct mpe_conf *conf, uint32_t worker_model);

/* Any process: find the memzone and check that it was laid out by a build that agrees with
 * @layout_version and @size, and is mapped at the address the primary uses.
 * NULL with rte_errno set (ENOENT: no primary; EPROTO: layout differs; EFAULT: address
 * differs), and the reason in @err. */
struct mpe_shared *mpe_shm_lookup(uint32_t layout_version, size_t size, char *err,
				  size_t err_size);

int mpe_shm_free(struct mpe_shared *shm);

#endif
