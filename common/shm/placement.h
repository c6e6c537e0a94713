/* SPDX-License-Identifier: BSD-3-Clause */
/* NUMA placement (docs/configuration.md#numa-placement): the socket each ring, flow table and
 * mbuf pool go on, which pool each port receives into, and the polling lcores that run on another socket than a port they
 * poll or transmit to. Pure: a described topology in, a placement out (test_placement.c);
 * the primary describes its host from the EAL (objects.c). */
#ifndef MPE_PLACEMENT_H
#define MPE_PLACEMENT_H

#include <rte_config.h>

#include "config.h"
#include "names.h"

/* a socket not known: a virtual device, or a host without NUMA (SOCKET_ID_ANY) */
#define MPE_SOCKET_UNKNOWN (-1)

/* The host as the placement sees it. */
struct mpe_topology {
	int lcore_socket[RTE_MAX_LCORE];
	int port_socket[MPE_MAX_PORTS]; /* of conf.ports[] */
};

/* A polling lcore on another socket than a port it serves: every packet it moves crosses
 * the sockets' link. */
struct mpe_far {
	uint8_t io;	     /* 1: I/O lcore @id (conf.io[]); 0: worker @id */
	uint8_t tx;	     /* 1: it transmits to the port; 0: it polls it */
	uint16_t id;
	uint16_t lcore;
	uint16_t port;
	int socket, port_socket;
};

#define MPE_MAX_FAR ((MPE_MAX_IO + MPE_MAX_WORKERS) * MPE_MAX_PORTS * 2)

struct mpe_placement {
	unsigned int nb_pools;		    /* at least 1 */
	int pool_socket[MPE_MAX_POOLS];	    /* each pool's socket */
	uint8_t port_pool[MPE_MAX_PORTS];   /* the pool each port's RX queues take mbufs from
					     * (a port that does not receive: pool 0) */
	int ring_socket[MPE_MAX_RINGS]; /* each ring: its consumer's */
	int flow_socket[MPE_MAX_WORKERS]; /* each worker's flow table: its worker's */
	unsigned int nb_far;
	struct mpe_far far[MPE_MAX_FAR];
};

/* The placement of @c on @t, whose rings are @ends[0..@nb_rings) as [producer, consumer]
 * (a worker's id, with its lane between two pipeline stages (MPE_END_LANE), or
 * MPE_END_IO_K). */
void mpe_place(const struct mpe_conf *c, const struct mpe_topology *t, const int (*ends)[2],
	       unsigned int nb_rings, struct mpe_placement *out);

#endif
