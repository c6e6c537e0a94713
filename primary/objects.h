/* SPDX-License-Identifier: BSD-3-Clause */
/* objects.c: the shared objects the primary makes before any worker starts (the memzone
 * mpe_shared, the mbuf pool, the rings) and frees at the end. Main lcore only. */
#ifndef MPE_OBJECTS_H
#define MPE_OBJECTS_H

struct mpe_conf;
struct mpe_primary;

/* Shared memory, then where the workers run (the ring lengths depend on it), the pool and
 * the rings, into @p. 0 or -errno, the cause logged; what was made is left for
 * mpe_objects_free(). */
int mpe_objects_create(struct mpe_primary *p, const struct mpe_conf *conf);
/* Once every worker and port has stopped: the rings, the pool (audited: each mbuf back, once)
 * and the memzone. Safe after a partial mpe_objects_create(). */
void mpe_objects_free(struct mpe_primary *p);

/* Empty lcore @lcore_id's cache of every mbuf pool into its pool (a dead worker's, a standby's
 * whose id serves again). */
void mpe_objects_flush_caches(struct mpe_primary *p, unsigned int lcore_id);

#endif
