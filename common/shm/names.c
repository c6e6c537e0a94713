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
	char a[8], b[8];
	int n;

	if (buf == NULL || from == to || end_name(a, sizeof(a), from) < 0 ||
	    end_name(b, sizeof(b), to) < 0)
		return -EINVAL;
	n = snprintf(buf, size, "mpe_%s_%s", a, b);
	if (n < 0 || (size_t)n >= size || (size_t)n >= RTE_RING_NAMESIZE)
		return -ENAMETOOLONG;
	return 0;
}

void
mpe_names_worker_rings(const struct mpe_conf *c, unsigned int id, int *from,
			unsigned int *nb_in, int *to, unsigned int *nb_out, uint8_t *out_of)
{
	uint8_t out_idx[MPE_MAX_IO] = {0}; /* I/O lcore k's place among @to */
	uint8_t in_io[MPE_MAX_IO] = {0};   /* input i's I/O lcore */
	unsigned int k, i, nb_io = RTE_MIN((unsigned int)c->nb_io, (unsigned int)MPE_MAX_IO);

	*nb_in = *nb_out = 0;
	if (c->shape == MPE_SHAPE_RSS)
		return;
	if (c->shape == MPE_SHAPE_PIPELINE && id > 0) {
		from[(*nb_in)++] = (int)id - 1;
	} else if (!mpe_config_worker_receives(c, id)) {
		for (k = 0; k < nb_io; k++)
			if (mpe_config_io_rx(c, k)) {
				in_io[*nb_in] = (uint8_t)k;
				from[(*nb_in)++] = MPE_END_IO_K(k);
			}
	}
	if (c->shape == MPE_SHAPE_PIPELINE && id + 1 < c->nb_workers) {
		to[(*nb_out)++] = (int)id + 1;
	} else if (!mpe_config_worker_transmits(c, id)) {
		for (k = 0; k < nb_io; k++)
			if (c->io[k].tx) {
				out_idx[k] = (uint8_t)*nb_out;
				to[(*nb_out)++] = MPE_END_IO_K(k);
			}
	}
	for (i = 0; i < *nb_in; i++)
		out_of[i] = *nb_out > 1 && c->shape == MPE_SHAPE_DISTRIBUTOR ?
				    out_idx[mpe_config_io_tx_of(c, in_io[i])] : 0;
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
