/* SPDX-License-Identifier: BSD-3-Clause */
/* NUMA placement: pure functions of a configuration and a described topology. */
#include <string.h>

#include "names.h"
#include "placement.h"

_Static_assert(MPE_MAX_POOLS >= MPE_MAX_PORTS, "a pool for each port");

static int
lcore_socket(const struct mpe_topology *t, unsigned int lcore)
{
	return lcore < RTE_MAX_LCORE ? t->lcore_socket[lcore] : MPE_SOCKET_UNKNOWN;
}

/* The socket of ring end @end: a worker's lcore, or an I/O lcore. */
static int
end_socket(const struct mpe_conf *c, const struct mpe_topology *t, int end)
{
	if (MPE_END_IS_IO(end))
		return MPE_END_IO_INDEX(end) < c->nb_io ?
			       lcore_socket(t, c->io[MPE_END_IO_INDEX(end)].lcore) :
			       MPE_SOCKET_UNKNOWN;
	end = MPE_END_WORKER(end);
	return end < c->nb_workers ? lcore_socket(t, c->workers[end].lcore) :
				     MPE_SOCKET_UNKNOWN;
}

/* Record lcore @lcore (I/O lcore or worker @id) serving port @port, if their sockets are
 * known and differ. */
static void
far(struct mpe_placement *out, const struct mpe_topology *t, int io, unsigned int id,
    unsigned int lcore, unsigned int port, int tx)
{
	int s = lcore_socket(t, lcore), ps = t->port_socket[port];
	struct mpe_far *f;

	if (s == MPE_SOCKET_UNKNOWN || ps == MPE_SOCKET_UNKNOWN || s == ps ||
	    out->nb_far == MPE_MAX_FAR)
		return;
	f = &out->far[out->nb_far++];
	f->io = (uint8_t)io;
	f->tx = (uint8_t)tx;
	f->id = (uint16_t)id;
	f->lcore = (uint16_t)lcore;
	f->port = (uint16_t)port;
	f->socket = s;
	f->port_socket = ps;
}

/* The socket most of @n values are on (the first of a tie); MPE_SOCKET_UNKNOWN when none is
 * known. */
static int
majority(const int *v, unsigned int n)
{
	unsigned int i, j, best_n = 0;
	int best = MPE_SOCKET_UNKNOWN;

	for (i = 0; i < n; i++) {
		unsigned int k = 0;

		if (v[i] == MPE_SOCKET_UNKNOWN)
			continue;
		for (j = 0; j < n; j++)
			k += v[j] == v[i];
		if (k > best_n) {
			best_n = k;
			best = v[i];
		}
	}
	return best;
}

/* The socket port @p receives on: its device's, else that of most lcores that poll it. */
static int
port_rx_socket(const struct mpe_conf *c, const struct mpe_topology *t, unsigned int p)
{
	int v[MPE_MAX_IO + MPE_MAX_WORKERS];
	unsigned int i, k, n = 0;

	if (t->port_socket[p] != MPE_SOCKET_UNKNOWN)
		return t->port_socket[p];
	for (k = 0; k < c->nb_io; k++)
		if (c->io[k].rxq[p] != 0)
			v[n++] = lcore_socket(t, c->io[k].lcore);
	for (i = 0; i < c->nb_workers; i++)
		if (mpe_config_worker_receives(c, i))
			v[n++] = lcore_socket(t, c->workers[i].lcore);
	return majority(v, n);
}

/* The pools: one per receiving port (pools = port), or per socket those ports receive on,
 * in the order of the ports; a port whose socket is unknown takes @dflt's. */
static void
place_pools(const struct mpe_conf *c, const struct mpe_topology *t, int dflt,
	    struct mpe_placement *out)
{
	unsigned int p, k;

	out->nb_pools = 0;
	for (p = 0; p < c->nb_ports; p++) {
		int s = port_rx_socket(c, t, p);

		if (!c->ports[p].rx)
			continue;
		if (s == MPE_SOCKET_UNKNOWN)
			s = dflt;
		k = 0;
		while (!c->pools_per_port && k < out->nb_pools && out->pool_socket[k] != s)
			k++;
		if (c->pools_per_port)
			k = out->nb_pools;
		if (k == out->nb_pools)
			out->pool_socket[out->nb_pools++] = s;
		out->port_pool[p] = (uint8_t)k;
	}
	if (out->nb_pools == 0)
		out->pool_socket[out->nb_pools++] = dflt;
}

void
mpe_place(const struct mpe_conf *c, const struct mpe_topology *t, const int (*ends)[2],
	  unsigned int nb_rings, struct mpe_placement *out)
{
	int rx_ports[MPE_MAX_PORTS * MPE_MAX_QUEUES], rx_lcores[MPE_MAX_IO + MPE_MAX_WORKERS];
	unsigned int i, k, p, nb_rxp = 0, nb_rxl = 0;
	int dflt;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < nb_rings && i < MPE_MAX_RINGS; i++)
		out->ring_socket[i] = end_socket(c, t, ends[i][1]);
	for (i = 0; i < c->nb_workers; i++)
		out->flow_socket[i] = lcore_socket(t, c->workers[i].lcore);
	/* a pool for a port whose socket is unknown: where most queues receive, else most
	 * receiving lcores */
	for (p = 0; p < c->nb_ports; p++)
		for (i = 0; c->ports[p].rx && i < c->ports[p].rx_queues; i++)
			rx_ports[nb_rxp++] = t->port_socket[p];
	for (k = 0; k < c->nb_io; k++)
		if (mpe_config_io_rx(c, k))
			rx_lcores[nb_rxl++] = lcore_socket(t, c->io[k].lcore);
	for (i = 0; i < c->nb_workers; i++)
		if (mpe_config_worker_receives(c, i))
			rx_lcores[nb_rxl++] = lcore_socket(t, c->workers[i].lcore);
	dflt = majority(rx_ports, nb_rxp);
	if (dflt == MPE_SOCKET_UNKNOWN)
		dflt = majority(rx_lcores, nb_rxl);
	place_pools(c, t, dflt, out);
	/* who serves which port: an I/O lcore its queues, and every port it sends to */
	for (k = 0; k < c->nb_io; k++)
		for (p = 0; p < c->nb_ports; p++) {
			if (c->io[k].rxq[p] != 0)
				far(out, t, 1, k, c->io[k].lcore, p, 0);
			if (c->io[k].tx && mpe_config_port_sent_to(c, p))
				far(out, t, 1, k, c->io[k].lcore, p, 1);
		}
	/* a worker that polls ports (rss; a pipeline's first with rx = workers) or transmits */
	for (i = 0; i < c->nb_workers; i++)
		for (p = 0; p < c->nb_ports; p++) {
			if (mpe_config_worker_receives(c, i) && c->ports[p].rx)
				far(out, t, 0, i, c->workers[i].lcore, p, 0);
			if (mpe_config_worker_transmits(c, i) && mpe_config_port_sent_to(c, p))
				far(out, t, 0, i, c->workers[i].lcore, p, 1);
		}
}
