/* SPDX-License-Identifier: BSD-3-Clause */
/* port.c: the ports, found among the EAL's devices, configured, started, stopped and closed.
 * Main lcore only: only the primary may touch a port's configuration, and only from there. */
#ifndef MPE_PORT_H
#define MPE_PORT_H

#include <stddef.h>
#include <stdint.h>

struct mpe_conf;
struct mpe_primary;

int mpe_port_init_all(struct mpe_primary *p);
/* The mbufs the ports' devices keep for themselves once started: net_pcap with infinite_rx
 * holds its whole capture in the pool (a packet larger than an mbuf in several). Which
 * ports, and how many mbufs each, into @who. */
uint64_t mpe_port_mbufs_held(const struct mpe_conf *conf, char *who, size_t size);
void mpe_port_close_all(struct mpe_primary *p);

#endif
