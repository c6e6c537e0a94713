/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of shared objects. Pure functions. */
#include <errno.h>
#include <stdio.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "config.h"
#include "names.h"

static int
end_name(char *buf, size_t size, int end)
{
	if (end == MPE_END_IO)
		return snprintf(buf, size, "io");
	if (MPE_END_IS_IO(end))
		return MPE_END_IO_INDEX(end) < MPE_MAX_IO ?
			       snprintf(buf, size, "io%u", MPE_END_IO_INDEX(end)) : -1;
	if (end < 0 || end >= MPE_MAX_WORKERS)
		return -1;
	return snprintf(buf, size, "w%d", end);
}

int
mpe_names_ring(char *buf, size_t size, int from, int to)
{
	unsigned int lf = MPE_END_LANE_OF(from), lt = MPE_END_LANE_OF(to), lane = RTE_MAX(lf, lt);
	char a[8], b[8], l[8] = "";
	int n;

	/* a lane joins two workers, and both ends that say one say the same */
	if (lane > 0 && (MPE_END_IS_IO(from) || MPE_END_IS_IO(to) || lane >= MPE_MAX_IO ||
			 (lf > 0 && lt > 0 && lf != lt)))
		return -EINVAL;
	if (lane > 0) {
		from = MPE_END_WORKER(from);
		to = MPE_END_WORKER(to);
		snprintf(l, sizeof(l), "_l%u", lane);
	}
	if (buf == NULL || from == to || end_name(a, sizeof(a), from) < 0 ||
	    end_name(b, sizeof(b), to) < 0)
		return -EINVAL;
	n = snprintf(buf, size, "mpe_%s_%s%s", a, b, l);
	if (n < 0 || (size_t)n >= size || (size_t)n >= RTE_RING_NAMESIZE)
		return -ENAMETOOLONG;
	return 0;
}

void
mpe_names_worker_rings(const struct mpe_conf *c, unsigned int id, int *from,
			unsigned int *nb_in, int *to, unsigned int *nb_out, uint8_t *out_of)
{
	uint8_t in_io[MPE_MAX_IO] = {0}; /* input i's I/O lcore */
	unsigned int k, i, nb_io = RTE_MIN((unsigned int)c->nb_io, (unsigned int)MPE_MAX_IO);
	unsigned int lanes = RTE_MIN(mpe_config_pipe_lanes(c), (unsigned int)MPE_MAX_IO);
	int stage_in = c->shape == MPE_SHAPE_PIPELINE && id > 0;

	*nb_in = *nb_out = 0;
	if (c->shape == MPE_SHAPE_RSS)
		return;
	if (stage_in) {
		for (i = 0; i < lanes; i++)
			from[(*nb_in)++] = MPE_END_LANE(id - 1, i);
	} else if (!mpe_config_worker_receives(c, id)) {
		for (k = 0; k < nb_io; k++)
			if (mpe_config_io_rx(c, k)) {
				in_io[*nb_in] = (uint8_t)k;
				from[(*nb_in)++] = MPE_END_IO_K(k);
			}
	}
	if (c->shape == MPE_SHAPE_PIPELINE && id + 1 < c->nb_workers) {
		for (i = 0; i < lanes; i++)
			to[(*nb_out)++] = MPE_END_LANE(id + 1, i);
	} else if (!mpe_config_worker_transmits(c, id)) {
		for (k = 0; k < nb_io; k++)
			if (c->io[k].tx)
				to[(*nb_out)++] = MPE_END_IO_K(k);
	}
	/* the outputs are the transmitting I/O lcores in order, or the lanes to them: the
	 * one for I/O lcore K's packets is its transmitter's place among them */
	for (i = 0; i < *nb_in; i++)
		out_of[i] = *nb_out <= 1 ? 0 :
			    stage_in ? (uint8_t)i :
				       (uint8_t)mpe_config_io_txq(c, mpe_config_io_tx_of(c, in_io[i]));
}

int
mpe_names_pool(char *buf, size_t size, unsigned int k)
{
	int n;

	if (buf == NULL || k >= MPE_MAX_POOLS)
		return -EINVAL;
	n = k == 0 ? snprintf(buf, size, "%s", MPE_NAME_POOL) :
		     snprintf(buf, size, "%s_%u", MPE_NAME_POOL, k);
	if (n < 0 || (size_t)n >= size || (size_t)n >= RTE_MEMPOOL_NAMESIZE)
		return -ENAMETOOLONG;
	return 0;
}

int
mpe_names_flow(char *buf, size_t size, int worker)
{
	int n;

	if (buf == NULL || worker < 0 || worker >= MPE_MAX_WORKERS)
		return -EINVAL;
	n = snprintf(buf, size, MPE_NAME_FLOW_FMT, (unsigned int)worker);
	if (n < 0 || (size_t)n >= size || (size_t)n > MPE_NAME_FLOW_MAX)
		return -ENAMETOOLONG;
	return 0;
}
