/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the engine's shared objects, built into caller buffers.
 * Every process derives the same names from the same configuration; nothing else is needed
 * to find an object. */
#ifndef MPE_NAMES_H
#define MPE_NAMES_H

#include <stddef.h>

#define MPE_NAME_SHM "mpe_shared"
#define MPE_NAME_POOL "mpe_mbufs"
#define MPE_NAME_QSBR "mpe_qsbr"
/* Flow table of worker N (common/inspect/flow.h): "mpe_flow_w<N>" */
#define MPE_NAME_FLOW_FMT "mpe_flow_w%u"
/* Longest flow table name: rte_hash names its internal ring "HT_EXT_<name>" in 29 bytes. */
#define MPE_NAME_FLOW_MAX 20

/* Ends of a ring: the primary's I/O lcore, or a worker. */
#define MPE_END_IO (-1)

/* "mpe_io_w0", "mpe_w0_w1", "mpe_w1_io". Returns 0, or -ENAMETOOLONG / -EINVAL. */
int mpe_names_ring(char *buf, size_t size, int from, int to);

/* MPE_NAME_FLOW_FMT for worker @worker ("mpe_flow_w0"), checked against the buffer and
 * MPE_NAME_FLOW_MAX. Returns 0, or -ENAMETOOLONG / -EINVAL. */
int mpe_names_flow(char *buf, size_t size, int worker);

#endif
