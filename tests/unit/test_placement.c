/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/shm/placement.c: a described two-socket host in, the sockets of the
 * rings, flow tables and mbuf pools out, the pool each port receives into, and the polling lcores that serve a port across sockets.
 * No EAL.
 */
#include <string.h>

#include "names.h"
#include "placement.h"
#include "test.h"

/* Two sockets: lcores 1, 2 and 5 on socket 0, lcores 3, 4 and 6 on socket 1; port 0 on socket
 * 0, port 1 on socket 1. */
static void
two_sockets(struct mpe_topology *t)
{
	unsigned int i;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		t->lcore_socket[i] = MPE_SOCKET_UNKNOWN;
	for (i = 0; i < MPE_MAX_PORTS; i++)
		t->port_socket[i] = MPE_SOCKET_UNKNOWN;
	t->lcore_socket[0] = t->lcore_socket[1] = t->lcore_socket[2] = t->lcore_socket[5] = 0;
	t->lcore_socket[3] = t->lcore_socket[4] = t->lcore_socket[6] = 1;
	t->port_socket[0] = 0;
	t->port_socket[1] = 1;
}

/* A distributor on two ports that peer, two workers (lcores @w0, @w1), and I/O lcores
 * @io[0..nb_io) each polling the port of its index (one I/O lcore: both). */
static void
distributor(struct mpe_conf *c, unsigned int w0, unsigned int w1, const unsigned int *io,
	    unsigned int nb_io)
{
	unsigned int k;

	memset(c, 0, sizeof(*c));
	c->shape = MPE_SHAPE_DISTRIBUTOR;
	c->nb_ports = 2;
	c->ports[0].rx = c->ports[1].rx = 1;
	c->ports[0].rx_queues = c->ports[1].rx_queues = 1;
	c->ports[0].peer = 1;
	c->ports[1].peer = 0;
	c->mirror_port = MPE_PORT_NONE;
	c->nb_workers = 2;
	c->workers[0].lcore = (uint16_t)w0;
	c->workers[1].lcore = (uint16_t)w1;
	c->nb_io = (uint16_t)nb_io;
	for (k = 0; k < nb_io; k++) {
		c->io[k].lcore = (uint16_t)io[k];
		c->io[k].tx = 1;
		c->io[k].rxq[k] = 1;
		if (nb_io == 1)
			c->io[k].rxq[1] = 1;
	}
}

/* The rings of @c, as the primary makes them (objects.c's ring_ends, for a distributor). */
static unsigned int
rings(const struct mpe_conf *c, int (*ends)[2])
{
	unsigned int i, k, n = 0;

	for (i = 0; i < c->nb_workers; i++) {
		for (k = 0; k < c->nb_io; k++)
			ends[n][0] = MPE_END_IO_K(k), ends[n][1] = (int)i, n++;
		for (k = 0; k < c->nb_io; k++)
			ends[n][0] = (int)i, ends[n][1] = MPE_END_IO_K(k), n++;
	}
	return n;
}

/* The placement of @c on @t, with @c's rings; how many rings. */
static unsigned int
placed(const struct mpe_conf *c, const struct mpe_topology *t, struct mpe_placement *pl)
{
	int ends[MPE_MAX_RINGS][2];
	unsigned int n = rings(c, ends);

	mpe_place(c, t, (const int(*)[2])ends, n, pl);
	return n;
}

/* Each I/O lcore on its port's socket, a worker on each socket: rings and flow tables go to
 * their consumers' sockets; what crosses is the transmit to the other socket's port. */
static void
test_two_io_lcores_local(void)
{
	static const unsigned int io[2] = {1, 3};
	static struct mpe_placement pl;
	struct mpe_topology t;
	struct mpe_conf c;
	unsigned int n, i;

	two_sockets(&t);
	distributor(&c, 2, 4, io, 2);
	n = placed(&c, &t, &pl);
	CHECK(n == 8, "%u rings", n);
	/* io0 -> w0, io1 -> w0, w0 -> io0, w0 -> io1, then the same for w1 */
	CHECK(pl.ring_socket[0] == 0 && pl.ring_socket[1] == 0 && pl.ring_socket[2] == 0 &&
	      pl.ring_socket[3] == 1, "w0's rings on %d %d %d %d", pl.ring_socket[0],
	      pl.ring_socket[1], pl.ring_socket[2], pl.ring_socket[3]);
	CHECK(pl.ring_socket[4] == 1 && pl.ring_socket[5] == 1 && pl.ring_socket[6] == 0 &&
	      pl.ring_socket[7] == 1, "w1's rings on %d %d %d %d", pl.ring_socket[4],
	      pl.ring_socket[5], pl.ring_socket[6], pl.ring_socket[7]);
	CHECK(pl.flow_socket[0] == 0 && pl.flow_socket[1] == 1, "flow tables on %d %d",
	      pl.flow_socket[0], pl.flow_socket[1]);
	/* a port on each socket: a pool on each, each port's queues taking from their socket's */
	CHECK(pl.nb_pools == 2 && pl.pool_socket[0] == 0 && pl.pool_socket[1] == 1 &&
		      pl.port_pool[0] == 0 && pl.port_pool[1] == 1,
	      "%u pools, on %d %d; ports into %u %u", pl.nb_pools, pl.pool_socket[0],
	      pl.pool_socket[1], pl.port_pool[0], pl.port_pool[1]);
	/* each polls its own port; each transmits to the other's */
	CHECK(pl.nb_far == 2, "%u far", pl.nb_far);
	for (i = 0; i < pl.nb_far; i++)
		CHECK(pl.far[i].io && pl.far[i].tx && pl.far[i].port == 1 - pl.far[i].id &&
			      pl.far[i].socket != pl.far[i].port_socket,
		      "far %u: io %u tx %u id %u port %u", i, pl.far[i].io, pl.far[i].tx,
		      pl.far[i].id, pl.far[i].port);
}

/* One I/O lcore on socket 1 polling both ports: port 0 is polled and sent to across. */
static void
test_one_io_lcore_far(void)
{
	static const unsigned int io[1] = {3};
	static struct mpe_placement pl;
	struct mpe_topology t;
	struct mpe_conf c;
	unsigned int i, polled = 0, sent = 0;

	two_sockets(&t);
	t.port_socket[1] = 1;
	t.port_socket[0] = 0;
	distributor(&c, 4, 6, io, 1);
	c.ports[1].rx_queues = 3;
	c.io[0].rxq[1] = 7;
	placed(&c, &t, &pl);
	/* the pools go with the ports, not with the lcore that polls them */
	CHECK(pl.nb_pools == 2 && pl.pool_socket[pl.port_pool[0]] == 0 &&
		      pl.pool_socket[pl.port_pool[1]] == 1,
	      "%u pools; port 0's on %d, port 1's on %d", pl.nb_pools,
	      pl.pool_socket[pl.port_pool[0]], pl.pool_socket[pl.port_pool[1]]);
	for (i = 0; i < pl.nb_far; i++) {
		CHECK(pl.far[i].io && pl.far[i].id == 0 && pl.far[i].port == 0 &&
			      pl.far[i].socket == 1 && pl.far[i].port_socket == 0,
		      "far %u: port %u", i, pl.far[i].port);
		polled += !pl.far[i].tx;
		sent += pl.far[i].tx;
	}
	CHECK(pl.nb_far == 2 && polled == 1 && sent == 1, "%u far (%u polled, %u sent to)",
	      pl.nb_far, polled, sent);
}

/* Virtual devices and a host that says nothing of sockets: nothing is far, nothing placed. */
static void
test_unknown_sockets(void)
{
	static const unsigned int io[1] = {1};
	static struct mpe_placement pl;
	struct mpe_topology t;
	struct mpe_conf c;
	unsigned int i;

	two_sockets(&t);
	t.port_socket[0] = t.port_socket[1] = MPE_SOCKET_UNKNOWN;
	distributor(&c, 2, 4, io, 1);
	placed(&c, &t, &pl);
	CHECK(pl.nb_far == 0, "%u far", pl.nb_far);
	/* no port socket known: one pool, where the receiving lcore is */
	CHECK(pl.nb_pools == 1 && pl.pool_socket[0] == 0 && pl.port_pool[1] == 0,
	      "%u pools, the first on %d", pl.nb_pools, pl.pool_socket[0]);
	for (i = 0; i < RTE_MAX_LCORE; i++)
		t.lcore_socket[i] = MPE_SOCKET_UNKNOWN;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 1 && pl.pool_socket[0] == MPE_SOCKET_UNKNOWN &&
		      pl.ring_socket[0] == MPE_SOCKET_UNKNOWN &&
		      pl.flow_socket[1] == MPE_SOCKET_UNKNOWN,
	      "%u pools, on %d; ring %d flow %d", pl.nb_pools, pl.pool_socket[0],
	      pl.ring_socket[0], pl.flow_socket[1]);
}

/* rss workers poll and transmit themselves: a worker on the other socket than a port is far
 * from it both ways. */
static void
test_rss_worker_far(void)
{
	static struct mpe_placement pl;
	struct mpe_topology t;
	struct mpe_conf c;
	unsigned int i, w1 = 0;

	two_sockets(&t);
	distributor(&c, 2, 4, NULL, 0);
	c.shape = MPE_SHAPE_RSS;
	mpe_place(&c, &t, NULL, 0, &pl);
	for (i = 0; i < pl.nb_far; i++)
		w1 += !pl.far[i].io && pl.far[i].id == 1 && pl.far[i].port == 0;
	/* worker 0 (socket 0) is far from port 1, worker 1 (socket 1) from port 0 */
	CHECK(pl.nb_far == 4 && w1 == 2, "%u far, %u of worker 1 and port 0", pl.nb_far, w1);
}

/* Three ports, two on socket 1 and one on socket 0, one of socket 1's not receiving: per
 * socket, two pools, the receiving port of socket 1 in the second; per port, one for each
 * receiving port; the port that does not receive takes none of its own. */
static void
test_pools(void)
{
	static const unsigned int io[1] = {1};
	static struct mpe_placement pl;
	struct mpe_topology t;
	struct mpe_conf c;

	two_sockets(&t);
	t.port_socket[0] = 1;
	t.port_socket[1] = 0;
	t.port_socket[2] = 1;
	distributor(&c, 2, 4, io, 1);
	c.nb_ports = 3;
	c.ports[2].rx = 1;
	c.ports[2].rx_queues = 1;
	c.ports[1].rx = 0;
	c.io[0].rxq[2] = 1;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 1 && pl.pool_socket[0] == 1 && pl.port_pool[0] == 0 &&
		      pl.port_pool[2] == 0 && pl.port_pool[1] == 0,
	      "per socket, port 1 not receiving: %u pools, on %d; ports into %u %u %u",
	      pl.nb_pools, pl.pool_socket[0], pl.port_pool[0], pl.port_pool[1], pl.port_pool[2]);
	c.ports[1].rx = 1;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 2 && pl.pool_socket[0] == 1 && pl.pool_socket[1] == 0 &&
		      pl.port_pool[0] == 0 && pl.port_pool[1] == 1 && pl.port_pool[2] == 0,
	      "per socket: %u pools, on %d %d; ports into %u %u %u", pl.nb_pools,
	      pl.pool_socket[0], pl.pool_socket[1], pl.port_pool[0], pl.port_pool[1],
	      pl.port_pool[2]);
	c.pools_per_port = 1;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 3 && pl.port_pool[0] == 0 && pl.port_pool[1] == 1 &&
		      pl.port_pool[2] == 2 && pl.pool_socket[0] == 1 && pl.pool_socket[1] == 0 &&
		      pl.pool_socket[2] == 1,
	      "per port: %u pools; ports into %u %u %u, on %d %d %d", pl.nb_pools,
	      pl.port_pool[0], pl.port_pool[1], pl.port_pool[2], pl.pool_socket[0],
	      pl.pool_socket[1], pl.pool_socket[2]);
	c.ports[1].rx = 0;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 2 && pl.port_pool[0] == 0 && pl.port_pool[2] == 1 &&
		      pl.port_pool[1] == 0,
	      "per port, port 1 not receiving: %u pools; ports into %u %u %u", pl.nb_pools,
	      pl.port_pool[0], pl.port_pool[1], pl.port_pool[2]);
	/* virtual devices: each pool where its port's pollers are */
	t.port_socket[0] = t.port_socket[1] = t.port_socket[2] = MPE_SOCKET_UNKNOWN;
	c.ports[1].rx = 1;
	placed(&c, &t, &pl);
	CHECK(pl.nb_pools == 3 && pl.pool_socket[0] == 0 && pl.pool_socket[1] == 0 &&
		      pl.pool_socket[2] == 0,
	      "per port, virtual devices polled from socket 0: on %d %d %d", pl.pool_socket[0],
	      pl.pool_socket[1], pl.pool_socket[2]);
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"two I/O lcores, each on its port's socket: rings and flow tables with their "
		 "consumers, the transmit across", test_two_io_lcores_local},
		{"one I/O lcore on the other socket than a port: polled and sent to across; the "
		 "pools with their ports", test_one_io_lcore_far},
		{"mbuf pools per socket and per port, ports that do not receive", test_pools},
		{"sockets not known: nothing far, the pool where the receivers are or anywhere",
		 test_unknown_sockets},
		{"rss workers: far from the other socket's port both ways", test_rss_worker_far},
	};

	test_run_cases(cases, TEST_DIM(cases));
	return test_summary();
}
