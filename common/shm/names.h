/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of the engine's shared objects, built into caller buffers.
 * Every process derives the same names from the same configuration; nothing else is needed
 * to find an object. */
#ifndef MPE_NAMES_H
#define MPE_NAMES_H

#include <stddef.h>
#include <stdint.h>

#define MPE_NAME_SHM "mpe_shared"
/* The mbuf pools: the first "mpe_mbufs", pool K > 0 "mpe_mbufs_K" (mpe_names_pool); at most
 * one per port that receives */
#define MPE_NAME_POOL "mpe_mbufs"
#define MPE_MAX_POOLS 16
#define MPE_NAME_QSBR "mpe_qsbr"
/* Flow table of worker N (common/inspect/flow.h): "mpe_flow_w<N>" */
#define MPE_NAME_FLOW_FMT "mpe_flow_w%u"
/* Longest flow table name: rte_hash names its internal ring "HT_EXT_<name>" in 29 bytes. */
#define MPE_NAME_FLOW_MAX 20

/* Ends of a ring: one of the primary's I/O lcores ([io K]: MPE_END_IO_K(K); the first,
 * MPE_END_IO), or a worker (its id). */
#define MPE_END_IO (-1)
#define MPE_END_IO_K(k) (MPE_END_IO - (int)(k))
#define MPE_END_IS_IO(end) ((end) <= MPE_END_IO)
#define MPE_END_IO_INDEX(end) ((unsigned int)(MPE_END_IO - (end)))
/* Between two workers of a pipeline with several lanes (mpe_config_pipe_lanes): worker @w's
 * end of lane @lane (0: the one lane there is otherwise). MPE_END_WORKER takes the lane off. */
#define MPE_END_LANE(w, lane) ((int)(w) + (int)(lane) * MPE_MAX_WORKERS)
#define MPE_END_WORKER(end) ((end) % MPE_MAX_WORKERS)
#define MPE_END_LANE_OF(end) ((end) < 0 ? 0u : (unsigned int)(end) / MPE_MAX_WORKERS)

/* "mpe_io_w0", "mpe_w0_w1", "mpe_w1_io"; I/O lcore K > 0: "mpe_io1_w0", "mpe_w0_io1"; lane
 * L > 0 between two workers: "mpe_w0_w1_l1" (either end, or both, may say the lane).
 * Returns 0, or -ENAMETOOLONG / -EINVAL. */
int mpe_names_ring(char *buf, size_t size, int from, int to);

struct mpe_conf;

/* The rings of worker @id, as the ends they lead from (@from: its inputs, in the order it
 * polls them) and to (@to: its outputs), MPE_MAX_IO of each at most; *nb_in / *nb_out: how
 * many (0: it polls the ports / transmits itself). @out_of[i]: the output (index into @to)
 * that what comes in through input i goes to: what an I/O lcore received leaves through the
 * I/O lcore that transmits for it (mpe_config_io_tx_of), so that each flow keeps one path;
 * in a pipeline of several lanes, by that I/O lcore's lane, each stage after the first
 * keeping a packet to the lane it came by. */
void mpe_names_worker_rings(const struct mpe_conf *c, unsigned int id, int *from,
			    unsigned int *nb_in, int *to, unsigned int *nb_out, uint8_t *out_of);

/* The name of mbuf pool @k: MPE_NAME_POOL, or "mpe_mbufs_K". Returns 0, or -ENAMETOOLONG /
 * -EINVAL. */
int mpe_names_pool(char *buf, size_t size, unsigned int k);

/* MPE_NAME_FLOW_FMT for worker @worker ("mpe_flow_w0"), checked against the buffer and
 * MPE_NAME_FLOW_MAX. Returns 0, or -ENAMETOOLONG / -EINVAL. */
int mpe_names_flow(char *buf, size_t size, int worker);

#endif
