/* SPDX-License-Identifier: BSD-3-Clause */
/* Ports: found by name among the devices the EAL probed, configured, started, and at the
 * end stopped and closed. Only the primary does any of this (secondaries may not).
 * Packet capture: once the ports run, the primary serves DPDK's capture requests
 * (rte_pdump), so that dpdk-dumpcap can record what the primary receives and transmits. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_pdump.h>

#include "context.h"
#include "log.h"
#include "port.h"
#include "reta.h"

/* A symmetric Toeplitz key: both directions of a flow hash to the same queue. */
static uint8_t sym_rss_key[40] = {
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
	0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a, 0x6d, 0x5a,
};

struct capture_count {
	uint32_t data_room; /* an mbuf's, after the headroom */
	uint64_t mbufs;
};

/* rte_kvargs_process() handler: adds the mbufs capture @file takes to @arg (struct
 * capture_count): net_pcap chains as many as a packet larger than one mbuf needs. A file that
 * cannot be read counts nothing (net_pcap says why when it opens it). */
static int
count_capture(const char *key __rte_unused, const char *file, void *arg)
{
	struct capture_count *cc = arg;
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc = pcap_open_offline(file, err);

	if (pc == NULL)
		return 0;
	while (pcap_next_ex(pc, &h, &data) == 1)
		cc->mbufs += h->caplen <= cc->data_room ? 1 :
			     (h->caplen + cc->data_room - 1) / cc->data_room;
	pcap_close(pc);
	return 0;
}

uint64_t
mpe_port_mbufs_held(const struct mpe_conf *conf, char *who, size_t size)
{
	uint64_t held = 0;
	size_t off = 0;
	unsigned int i;

	if (size > 0)
		who[0] = '\0';
	for (i = 0; i < conf->nb_ports; i++) {
		const struct mpe_port_conf *pc = &conf->ports[i];
		const struct rte_devargs *da;
		struct rte_eth_dev_info info;
		struct rte_kvargs *kv;
		struct capture_count cc = {.data_room = conf->mbuf_data};
		const char *inf;
		uint16_t pid;

		if (!pc->rx || rte_eth_dev_get_port_by_name(pc->device, &pid) != 0 ||
		    rte_eth_dev_info_get(pid, &info) != 0 ||
		    strcmp(info.driver_name, "net_pcap") != 0)
			continue;
		da = rte_dev_devargs(info.device);
		if (da == NULL || da->args == NULL)
			continue;
		kv = rte_kvargs_parse(da->args, NULL);
		if (kv == NULL)
			continue;
		inf = rte_kvargs_get(kv, "infinite_rx");
		if (inf != NULL && strcmp(inf, "0") != 0)
			rte_kvargs_process(kv, "rx_pcap", count_capture, &cc);
		rte_kvargs_free(kv);
		if (cc.mbufs == 0)
			continue;
		held += cc.mbufs;
		if (off < size)
			off += (size_t)snprintf(who + off, size - off, "%s%s %" PRIu64,
						off ? ", " : "", pc->device, cc.mbufs);
	}
	return held;
}

/* Shape rss with RX queues no worker polls (workers given queues of their own): point the
 * device's RSS redirection table at the polled queues only, or what it hashed to the others
 * would never be received. Reads the table back to check it and logs how it spreads. Runs
 * once the port has started, since some drivers take the table only then and size it by the
 * queues configured; a packet that arrives in between may stay on a queue no worker polls. */
static int
point_reta(const struct mpe_conf *conf, unsigned int idx, uint16_t pid)
{
	const struct mpe_port_conf *pc = &conf->ports[idx];
	struct rte_eth_dev_info info;
	struct rte_eth_rss_reta_entry64 *reta;
	uint16_t polled[MPE_MAX_QUEUES], nb, i;
	unsigned int per_queue[MPE_MAX_QUEUES], stray;
	char buf[MPE_MAX_QUEUES * 12] = "";
	size_t off = 0;
	int rc;

	nb = mpe_reta_polled(conf, pc->rx_queues, polled);
	if (nb == pc->rx_queues || nb == 0 || !pc->rx)
		return 0; /* every queue has its worker, or no one polls: the driver's table */
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0) {
		MPE_LOG(ERR, port, "port %u (%s): cannot get device info: %s", idx, pc->device,
			strerror(-rc));
		return rc;
	}
	if (info.reta_size == 0) {
		MPE_LOG(ERR, port, "port %u (%s): %u RX queues, %u of them polled, and driver %s "
			"has no RSS redirection table to keep packets off the others: give the "
			"workers queues 0 to %u", idx, pc->device, pc->rx_queues, nb,
			info.driver_name, nb - 1);
		return -ENOTSUP;
	}
	reta = calloc(mpe_reta_groups(info.reta_size), sizeof(*reta));
	if (reta == NULL)
		return -ENOMEM;
	mpe_reta_fill(reta, info.reta_size, polled, nb);
	rc = rte_eth_dev_rss_reta_update(pid, reta, info.reta_size);
	if (rc == 0) { /* the same masks, every entry overwritten: read back what it keeps */
		for (i = 0; i < info.reta_size; i++)
			*mpe_reta_entry(reta, i) = UINT16_MAX;
		rc = rte_eth_dev_rss_reta_query(pid, reta, info.reta_size);
	}
	if (rc != 0) {
		MPE_LOG(ERR, port, "port %u (%s): cannot point the RSS redirection table at the "
			"polled queues: %s", idx, pc->device, strerror(-rc));
		free(reta);
		return rc;
	}
	stray = mpe_reta_stray(reta, info.reta_size, polled, nb, pc->rx_queues, per_queue);
	free(reta);
	for (i = 0; i < pc->rx_queues; i++)
		if (per_queue[i] != 0)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %u:%u", i,
						per_queue[i]);
	if (stray != 0) {
		MPE_LOG(ERR, port, "port %u (%s): the RSS redirection table read back sends %u of "
			"%u entries to queues no worker polls (queue:entries%s)", idx, pc->device,
			stray, info.reta_size, buf);
		return -EIO;
	}
	MPE_LOG(INFO, port, "port %u (%s): RSS redirection table of %u entries over the polled "
		"queues (queue:entries%s)", idx, pc->device, info.reta_size, buf);
	return 0;
}

static int
port_init(struct mpe_primary *p, unsigned int idx)
{
	struct mpe_conf *conf = &p->shm->conf;
	struct mpe_port_conf *pc = &conf->ports[idx];
	struct rte_eth_conf ec;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	uint16_t pid, nb_rxd = (uint16_t)conf->rx_desc, nb_txd = (uint16_t)conf->tx_desc, q;
	uint16_t nb_txq = mpe_config_port_txq(conf, idx);
	int rc;

	if (rte_eth_dev_get_port_by_name(pc->device, &pid) != 0) {
		MPE_LOG(ERR, port, "port %u: device '%s' not found: give it to the EAL with "
			"--vdev or -a (probed ports: %u)", idx, pc->device, rte_eth_dev_count_avail());
		return -ENODEV;
	}
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc != 0) {
		MPE_LOG(ERR, port, "port %u (%s): cannot get device info: %s", idx, pc->device,
			strerror(-rc));
		return rc;
	}
	if ((conf->shape == MPE_SHAPE_RSS || (pc->rx && mpe_config_worker_receives(conf, 0))) &&
	    (strcmp(info.driver_name, "net_pcap") == 0 ||
	     strcmp(info.driver_name, "net_af_packet") == 0)) {
		MPE_LOG(ERR, port, "port %u (%s): driver %s cannot be polled from worker "
			"processes: %s", idx, pc->device, info.driver_name,
			conf->shape == MPE_SHAPE_RSS ? "shape rss is not possible, use distributor or "
			"pipeline" : "rx = workers is not possible, let the I/O lcore receive "
			"(rx = io)");
		return -ENOTSUP;
	}
	if (pc->rx_queues > info.max_rx_queues || nb_txq > info.max_tx_queues) {
		MPE_LOG(ERR, port, "port %u (%s): %u RX / %u TX queues asked, driver %s has at "
			"most %u / %u", idx, pc->device, pc->rx_queues, nb_txq, info.driver_name,
			info.max_rx_queues, info.max_tx_queues);
		return -EINVAL;
	}

	memset(&ec, 0, sizeof(ec));
	if (pc->rx_queues > 1) {
		uint64_t hf = (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			      info.flow_type_rss_offloads;

		if (hf != 0) {
			ec.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
			ec.rx_adv_conf.rss_conf.rss_hf = hf;
			if (info.hash_key_size == sizeof(sym_rss_key)) {
				ec.rx_adv_conf.rss_conf.rss_key = sym_rss_key;
				ec.rx_adv_conf.rss_conf.rss_key_len = sizeof(sym_rss_key);
			}
		} else {
			MPE_LOG(NOTICE, port, "port %u (%s): driver %s has no RSS: %u queues are "
				"filled as the driver chooses", idx, pc->device, info.driver_name,
				pc->rx_queues);
			if (conf->shape == MPE_SHAPE_RSS && pc->rx && pc->rx_queues > conf->nb_workers)
				MPE_LOG(WARNING, port, "port %u (%s): %u of its %u RX queues have "
					"no worker: what the driver puts there is never received",
					idx, pc->device, pc->rx_queues - conf->nb_workers,
					pc->rx_queues);
		}
	}
	rc = rte_eth_dev_configure(pid, pc->rx_queues, nb_txq, &ec);
	if (rc == 0)
		rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);
	for (q = 0; rc == 0 && q < pc->rx_queues; q++)
		rc = rte_eth_rx_queue_setup(pid, q, nb_rxd, rte_eth_dev_socket_id(pid), NULL,
					    p->pools[p->shm->port_pool[idx]]);
	for (q = 0; rc == 0 && q < nb_txq; q++)
		rc = rte_eth_tx_queue_setup(pid, q, nb_txd, rte_eth_dev_socket_id(pid), NULL);
	if (rc != 0) {
		MPE_LOG(ERR, port, "port %u (%s): setup failed: %s", idx, pc->device,
			strerror(-rc));
		return rc;
	}
	rte_eth_promiscuous_enable(pid); /* not every driver has it: not an error */
	rc = rte_eth_dev_start(pid);
	if (rc != 0) {
		MPE_LOG(ERR, port, "port %u (%s): start failed: %s", idx, pc->device,
			strerror(-rc));
		return rc;
	}
	if (conf->shape == MPE_SHAPE_RSS && ec.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS) {
		rc = point_reta(conf, idx, pid);
		if (rc != 0) { /* not among the ports started: closed here */
			rte_eth_dev_stop(pid);
			rte_eth_dev_close(pid);
			return rc;
		}
	}
	if (rte_eth_macaddr_get(pid, &mac) == 0)
		memcpy(pc->mac, mac.addr_bytes, sizeof(pc->mac));
	pc->port_id = pid;
	pc->nb_txq = nb_txq;
	MPE_LOG(INFO, port, "port %u (%s): ethdev %u, driver %s, %u rx / %u tx queues, "
		"%u / %u descriptors, peer port %u", idx, pc->device, pid, info.driver_name,
		pc->rx_queues, nb_txq, nb_rxd, nb_txd, pc->peer);
	return 0;
}

int
mpe_port_init_all(struct mpe_primary *p)
{
	unsigned int i;
	int rc;

	for (i = 0; i < p->shm->conf.nb_ports; i++) {
		rc = port_init(p, i);
		if (rc != 0) {
			p->ports_started = (int)i;
			return rc;
		}
	}
	p->ports_started = (int)i;
	/* without it dpdk-dumpcap finds no one to answer its requests */
	rc = rte_pdump_init();
	if (rc < 0)
		MPE_LOG(WARNING, port, "packet capture (rte_pdump) not available: %s",
			rte_strerror(rte_errno));
	else
		p->pdump = 1;
	return 0;
}

/* How the device spread its packets over the RX queues (RSS, or af_packet's fanout). */
static void
log_queue_spread(int idx, const char *device, unsigned int nq, const struct rte_eth_stats *st)
{
	char buf[256];
	size_t off = 0;
	unsigned int q;

	for (q = 0; q < nq && q < RTE_ETHDEV_QUEUE_STAT_CNTRS && off < sizeof(buf); q++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %" PRIu64,
					st->q_ipackets[q]);
	MPE_LOG(INFO, port, "port %d (%s): packets per rx queue:%s", idx, device, buf);
}

void
mpe_port_close_all(struct mpe_primary *p)
{
	const struct mpe_conf *conf;
	int i;

	if (p->pdump) {
		rte_pdump_uninit(); /* no new capture may start on ports being closed */
		p->pdump = 0;
	}
	/* an engine stopped before its shared memory existed has no port started */
	if (p->shm == NULL)
		return;
	conf = &p->shm->conf;
	for (i = 0; i < p->ports_started; i++) {
		uint16_t pid = conf->ports[i].port_id;
		struct rte_eth_stats st;

		if (rte_eth_stats_get(pid, &st) == 0) {
			if (st.rx_nombuf || st.imissed || st.ierrors)
				MPE_LOG(WARNING, port, "port %u (%s): the device dropped %" PRIu64
					" for want of mbufs, %" PRIu64 " missed, %" PRIu64 " errors",
					i, conf->ports[i].device, st.rx_nombuf, st.imissed,
					st.ierrors);
			if (conf->ports[i].rx_queues > 1)
				log_queue_spread(i, conf->ports[i].device, conf->ports[i].rx_queues,
						 &st);
		}
		rte_eth_dev_stop(pid);
		rte_eth_dev_close(pid);
	}
	p->ports_started = 0;
}
