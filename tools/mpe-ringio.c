/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-ringio: plays the NIC for net_ring ports, so that the rss shape can be tested with real
 * packets. A DPDK secondary process: it spreads a capture over the RX queues of one net_ring
 * port by the symmetric flow hash (as a NIC's RSS would), and collects what the engine sends
 * out of another net_ring port into a capture. It is the only producer of the input queues'
 * rings and the only consumer of the output port's rings (that port must have rx = off).
 * net_ring names queue q of port NAME "ETH_RXTX<q>_<NAME>"; RX and TX of a queue share it.
 */
#include <errno.h>
#include <getopt.h>
#include <pcap/pcap.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "names.h"
#include "parse.h"
#include "pkt.h"
#include "version.h"

#define BURST 32
#define RETA_SIZE 256

struct opts {
	const char *in_port, *out_port, *in_file, *out_file;
	uint64_t queues, out_queues, timeout_ms, expect, pools;
};

/* --pools N: runs of this many packets from each pool in turn */
#define POOL_RUN 5

static volatile sig_atomic_t stop;

static void
on_signal(int sig)
{
	stop = sig;
}

static void
usage(void)
{
	printf("Usage: mpe-ringio --proc-type=secondary --file-prefix P --lcores ID@CPU [EAL] -- "
	       "--in-port NAME --inject FILE --out-port NAME --collect FILE [options]\n"
	       "Plays the NIC for the engine's net_ring ports: spreads the capture FILE over the\n"
	       "rx queues of one port by the symmetric flow hash, and collects what the engine\n"
	       "sends out of another port (rx = off) into a capture.\n"
	       "  --in-port NAME    the net_ring port to feed (its vdev name)\n"
	       "  --inject FILE     the pcap to send\n"
	       "  --out-port NAME   the net_ring port to collect from\n"
	       "  --collect FILE    the pcap to write\n"
	       "  --queues N        queues of each port (default 1)\n"
	       "  --out-queues N    queues of the output port, when they differ (default:\n"
	       "                    --queues)\n"
	       "  --expect N        stop collecting after N packets (default: as many as\n"
	       "                    injected)\n"
	       "  --timeout MS      stop collecting after MS without a packet (default 2000)\n"
	       "  --pools N         take the mbufs from the engine's first N pools in turn, runs\n"
	       "                    of 5 packets each (default 1: its first pool), as ports that\n"
	       "                    receive into pools of their own would hand them on\n"
	       "  -h, --help        this text\n");
}

static int
parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{"in-port", required_argument, NULL, 'i'}, {"out-port", required_argument, NULL, 'o'},
		{"inject", required_argument, NULL, 'I'},  {"collect", required_argument, NULL, 'C'},
		{"queues", required_argument, NULL, 'q'},  {"timeout", required_argument, NULL, 't'},
		{"expect", required_argument, NULL, 'e'},  {"help", no_argument, NULL, 'h'},
		{"out-queues", required_argument, NULL, 'Q'},
		{"pools", required_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	int c;

	o->queues = 1;
	o->out_queues = 0;
	o->timeout_ms = 2000;
	o->expect = UINT64_MAX;
	o->pools = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': o->in_port = optarg; break;
		case 'o': o->out_port = optarg; break;
		case 'I': o->in_file = optarg; break;
		case 'C': o->out_file = optarg; break;
		case 'q':
			if (mpe_parse_uint(optarg, 1, RTE_MAX_QUEUES_PER_PORT, &o->queues) < 0)
				goto bad;
			break;
		case 'Q':
			if (mpe_parse_uint(optarg, 1, RTE_MAX_QUEUES_PER_PORT, &o->out_queues) < 0)
				goto bad;
			break;
		case 't':
			if (mpe_parse_uint(optarg, 1, 600000, &o->timeout_ms) < 0)
				goto bad;
			break;
		case 'e':
			if (mpe_parse_uint(optarg, 0, UINT32_MAX, &o->expect) < 0)
				goto bad;
			break;
		case 'P':
			if (mpe_parse_uint(optarg, 1, MPE_MAX_POOLS, &o->pools) < 0)
				goto bad;
			break;
		case 'h': usage(); exit(0);
		default: return -EINVAL;
		}
	}
	if (o->out_queues == 0)
		o->out_queues = o->queues;
	if (o->in_port == NULL || o->out_port == NULL || o->in_file == NULL ||
	    o->out_file == NULL) {
		fprintf(stderr, "mpe-ringio: --in-port, --out-port, --inject and --collect are "
			"all needed\n");
		return -EINVAL;
	}
	return 0;
bad:
	fprintf(stderr, "mpe-ringio: %s: '%s' is not a valid number\n", argv[optind - 1],
		optarg);
	return -EINVAL;
}

static int
lookup_queues(const char *port, unsigned int n, struct rte_ring **r)
{
	char name[RTE_RING_NAMESIZE];
	unsigned int q;

	for (q = 0; q < n; q++) {
		snprintf(name, sizeof(name), "ETH_RXTX%u_%s", q, port);
		r[q] = rte_ring_lookup(name);
		if (r[q] == NULL) {
			fprintf(stderr, "mpe-ringio: %s: no ring %s: is %s a net_ring port of the "
				"running engine with %u queues?\n", port, name, port, n);
			return -ENOENT;
		}
	}
	return 0;
}

/* Move what the engine sent into the capture; returns packets collected. */
static unsigned int
collect(struct rte_ring **out, unsigned int nq, pcap_dumper_t *d)
{
	struct rte_mbuf *pkts[BURST];
	unsigned int q, i, n, total = 0;

	for (q = 0; q < nq; q++) {
		n = rte_ring_sc_dequeue_burst(out[q], (void **)pkts, BURST, NULL);
		for (i = 0; i < n; i++) {
			struct rte_mbuf *m = pkts[i];
			struct pcap_pkthdr h = {0};
			uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE];
			const void *data = rte_pktmbuf_read(m, 0, RTE_MIN(m->pkt_len,
							    (uint32_t)sizeof(buf)), buf);

			h.caplen = h.len = RTE_MIN(m->pkt_len, (uint32_t)sizeof(buf));
			gettimeofday(&h.ts, NULL);
			pcap_dump((u_char *)d, &h, data);
			rte_pktmbuf_free(m);
		}
		total += n;
	}
	return total;
}

int
main(int argc, char **argv)
{
	struct rte_ring *in[RTE_MAX_QUEUES_PER_PORT], *out[RTE_MAX_QUEUES_PER_PORT];
	char errbuf[PCAP_ERRBUF_SIZE];
	struct rte_mempool *pools[MPE_MAX_POOLS];
	struct opts o = {0};
	pcap_t *rd, *dead;
	pcap_dumper_t *d;
	uint64_t injected = 0, collected = 0, hz, last;
	const u_char *data;
	struct pcap_pkthdr *h;
	int rc, eof = 0;

	mpe_version_exit(argc, argv, "mpe-ringio");
	/* before the EAL, which would answer --help with its own options */
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage();
		return 0;
	}
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		rte_exit(EXIT_FAILURE, "cannot attach: %s\n", rte_strerror(rte_errno));
	if (parse_opts(argc - rc, argv + rc, &o) < 0)
		rte_exit(EXIT_FAILURE, "bad arguments (see --help)\n");
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	for (unsigned int k = 0; k < o.pools; k++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		pools[k] = mpe_names_pool(name, sizeof(name), k) == 0 ? rte_mempool_lookup(name) :
									NULL;
		if (pools[k] == NULL)
			rte_exit(EXIT_FAILURE, "no mempool %s: is the engine running%s?\n", name,
				 k > 0 ? ", with that many pools" : "");
	}
	if (lookup_queues(o.in_port, (unsigned int)o.queues, in) < 0 ||
	    lookup_queues(o.out_port, (unsigned int)o.out_queues, out) < 0)
		rte_exit(EXIT_FAILURE, "ports not found\n");
	rd = pcap_open_offline(o.in_file, errbuf);
	if (rd == NULL)
		rte_exit(EXIT_FAILURE, "%s: %s\n", o.in_file, errbuf);
	dead = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(dead, o.out_file);
	if (d == NULL)
		rte_exit(EXIT_FAILURE, "%s: %s\n", o.out_file, pcap_geterr(dead));

	hz = rte_get_timer_hz();
	last = rte_get_timer_cycles();
	while (!stop) {
		unsigned int got;

		if (!eof) {
			struct rte_mbuf *m;
			unsigned int q;

			rc = pcap_next_ex(rd, &h, &data);
			if (rc == 1) {
				m = rte_pktmbuf_alloc(pools[injected / POOL_RUN % o.pools]);
				if (m == NULL || rte_pktmbuf_append(m, h->caplen) == NULL)
					rte_exit(EXIT_FAILURE, "no mbuf for packet %" PRIu64 "\n",
						 injected);
				rte_memcpy(rte_pktmbuf_mtod(m, void *), data, h->caplen);
				q = (mpe_pkt_flow_hash(data, h->caplen) & (RETA_SIZE - 1)) %
				    (unsigned int)o.queues;
				/* a full queue waits: the test wants every packet through */
				while ((rc = rte_ring_sp_enqueue(in[q], m)) != 0 && !stop)
					collected += collect(out, (unsigned int)o.out_queues, d);
				if (rc != 0) { /* stopped while it waited: not injected */
					rte_pktmbuf_free(m);
					break;
				}
				injected++;
			} else {
				if (rc != PCAP_ERROR_BREAK)
					fprintf(stderr, "mpe-ringio: %s: %s\n", o.in_file,
						pcap_geterr(rd));
				eof = 1;
				/* the timeout runs from the last packet, or from here */
				last = rte_get_timer_cycles();
				if (o.expect == UINT64_MAX)
					o.expect = injected;
			}
		}
		got = collect(out, (unsigned int)o.out_queues, d);
		collected += got;
		if (got > 0)
			last = rte_get_timer_cycles();
		if (eof && (collected >= o.expect ||
			    rte_get_timer_cycles() - last > hz * o.timeout_ms / 1000))
			break;
	}
	pcap_dump_close(d);
	pcap_close(dead);
	pcap_close(rd);
	printf("mpe-ringio: injected %" PRIu64 " collected %" PRIu64 "\n", injected, collected);
	/* no rte_eal_cleanup(): the ports belong to the primary */
	return collected == o.expect ? 0 : 1;
}
