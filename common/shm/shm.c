/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared memzone: created and freed by the primary, looked up and verified by workers. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memzone.h>

#include "names.h"
#include "shm_ops.h"

struct mpe_shared *mpe_shm_mapped;
struct rte_mempool *mpe_pool_mapped;
struct rte_mempool *mpe_pools_mapped[MPE_MAX_POOLS];

struct mpe_shared *
mpe_shm_create(const struct mpe_conf *conf, uint32_t worker_model)
{
	const struct rte_memzone *mz;
	struct mpe_shared *shm;

	mz = rte_memzone_reserve_aligned(MPE_NAME_SHM, sizeof(*shm), rte_socket_id(), 0,
					 RTE_CACHE_LINE_SIZE);
	if (mz == NULL)
		return NULL;
	shm = mz->addr;
	memset(shm, 0, sizeof(*shm));
	shm->magic = MPE_SHM_MAGIC;
	shm->layout_version = MPE_SHM_LAYOUT_VERSION;
	shm->size = sizeof(*shm);
	shm->self = shm;
	snprintf(shm->build_id, sizeof(shm->build_id), "%s", MPE_BUILD_ID);
	shm->worker_model = worker_model;
	shm->primary_pid = getpid();
	shm->tsc_hz = rte_get_tsc_hz();
	shm->start_tsc = rte_rdtsc();
	shm->conf = *conf;
	mpe_shm_mapped = shm;
	return shm;
}

struct mpe_shared *
mpe_shm_lookup(uint32_t layout_version, size_t size, char *err, size_t err_size)
{
	const struct rte_memzone *mz = rte_memzone_lookup(MPE_NAME_SHM);
	struct mpe_shared *shm;

	if (mz == NULL) {
		snprintf(err, err_size, "memzone %s not found: is mpe-primary running with this "
			 "--file-prefix?", MPE_NAME_SHM);
		rte_errno = ENOENT;
		return NULL;
	}
	shm = mz->addr;
	if (mz->len < sizeof(shm->magic) + sizeof(shm->layout_version) + sizeof(shm->size) ||
	    shm->magic != MPE_SHM_MAGIC) {
		snprintf(err, err_size, "memzone %s has no mpe header: not made by mpe-primary",
			 MPE_NAME_SHM);
		rte_errno = EPROTO;
		return NULL;
	}
	if (shm->layout_version != layout_version || shm->size != size || mz->len < size) {
		snprintf(err, err_size, "shared layout differs: primary has version %u, %u bytes "
			 "(build %s); this binary expects version %u, %zu bytes: run binaries "
			 "from the same build", shm->layout_version, shm->size, shm->build_id,
			 layout_version, size);
		rte_errno = EPROTO;
		return NULL;
	}
	if (shm->self != mz->addr) {
		snprintf(err, err_size, "memzone mapped at %p here but at %p in the primary: "
			 "give both the same --base-virtaddr", mz->addr, shm->self);
		rte_errno = EFAULT;
		return NULL;
	}
	mpe_shm_mapped = shm;
	return shm;
}

int
mpe_shm_free(struct mpe_shared *shm)
{
	const struct rte_memzone *mz = rte_memzone_lookup(MPE_NAME_SHM);

	if (mz == NULL || mz->addr != shm)
		return -ENOENT;
	mpe_shm_mapped = NULL;
	shm->magic = 0;
	return rte_memzone_free(mz);
}
