/* SPDX-License-Identifier: BSD-3-Clause */
/* Keeps worker processes away from the ports whose datapath stays in the primary.
 * DPDK 22.11's net_pcap driver, probing its ports again in every secondary process, re-parses
 * a copy of the primary's arguments cut at 63 characters (a cut option crashes it: an
 * infinite_rx without a value is dereferenced) and re-opens every tx_pcap file with
 * pcap_dump_open(), which truncates the capture the primary is writing. Workers never poll
 * net_pcap ports (config.c refuses the rss shape on them), so in this process the driver is
 * not allowed to attach to them: its probe fails at its first step and touches nothing.
 * The definitions below win over the libraries' for the drivers because the executable
 * exports them (see secondary/meson.build).
 */
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include <pcap/pcap.h>
#include <rte_ethdev.h>

#include "config.h"

struct rte_eth_dev *rte_eth_dev_attach_secondary(const char *name);

struct rte_eth_dev *
rte_eth_dev_attach_secondary(const char *name)
{
	struct rte_eth_dev *(*real)(const char *);

	if (strncmp(name, "net_pcap", 8) == 0 || strncmp(name, "eth_pcap", 8) == 0)
		return NULL;
	real = (struct rte_eth_dev * (*)(const char *)) dlsym(RTLD_NEXT,
							       "rte_eth_dev_attach_secondary");
	return real != NULL ? real(name) : NULL;
}

/* Second line of defence, should a pcap driver ever open a capture here anyway. */
pcap_dumper_t *
pcap_dump_open(pcap_t *p, const char *fname)
{
	pcap_dumper_t *(*real)(pcap_t *, const char *);

	(void)fname;
	real = (pcap_dumper_t * (*)(pcap_t *, const char *)) dlsym(RTLD_NEXT, "pcap_dump_open");
	return real != NULL ? real(p, "/dev/null") : NULL;
}
