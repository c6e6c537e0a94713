/* SPDX-License-Identifier: BSD-3-Clause */
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

struct rte_mempool;

/* This process's address of the engine's shared memory and of its first mbuf pool, and of
 * every pool (NULL until it has them), for a debugger: reading a variable leaves the process
 * as it was, where a call
 * into it (rte_memzone_lookup) may not: gdb 13 on an AVX-512 host can resume a process after
 * such a call with its vector registers changed, and a worker stopped inside a copy that
 * uses them then writes null pointers into its mempool cache. */
extern struct mpe_shared *mpe_shm_mapped;
extern struct rte_mempool *mpe_pool_mapped;
extern struct rte_mempool *mpe_pools_mapped[MPE_MAX_POOLS];

#endif
