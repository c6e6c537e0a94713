/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration checks across keys and sections, once the parser (config.c) has read every
 * value: counts, queues, lcores, drivers against shapes, the stages' needs, the rules file, the
 * mbuf pool's size. Errors go through the parser's report(). Runs in one process.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "config.h"
#include "config_parser.h"
#include "rules.h"
#include "stage_info.h"

int
mpe_config_device_primary_only(const char *device)
{
	static const char *const prefixes[] = {"net_pcap", "eth_pcap", "net_af_packet",
					       "eth_af_packet"};
	unsigned int i;

	for (i = 0; i < RTE_DIM(prefixes); i++)
		if (strncmp(device, prefixes[i], strlen(prefixes[i])) == 0)
			return 1;
	return 0;
}

static int
same_stages(const struct mpe_worker_conf *a, const struct mpe_worker_conf *b)
{
	return a->nb_stages == b->nb_stages &&
	       memcmp(a->stages, b->stages, a->nb_stages) == 0;
}

/* Each worker's queue (its id unless given) and, in shape rss, the ports' RX queues: one
 * above the highest queue polled unless given. Queues no worker polls get no RSS traffic
 * (the primary points the device's redirection table at the polled ones). */
static void
check_queues(struct parser *p, struct mpe_conf *c)
{
	unsigned int i, j;
	uint16_t n;
	int line;

	for (i = 0; i < c->nb_workers; i++) {
		struct mpe_worker_conf *w = &c->workers[i];
		char sect[16];

		snprintf(sect, sizeof(sect), "worker %u", i);
		if (!mpe_config_worker_owns_queue(c, i)) {
			if (w->queue != MPE_QUEUE_AUTO)
				report(p, loc_line(p, sect, "queue"), "queue",
				       "worker %u owns no queue: only the workers of shape rss and "
				       "workers that transmit (tx = workers) have queues of their own",
				       i);
			w->queue = MPE_QUEUE_AUTO;
			continue;
		}
		line = loc_line(p, sect, "queue");
		if (w->queue == MPE_QUEUE_AUTO) {
			w->queue = (uint16_t)i;
			line = w->line; /* not given: the worker's section */
		}
		for (j = 0; j < i; j++)
			if (mpe_config_worker_owns_queue(c, j) && c->workers[j].queue == w->queue)
				report(p, line, "queue", "%u already owned by worker %u", w->queue, j);
	}
	if (c->shape != MPE_SHAPE_RSS)
		return;
	n = mpe_config_worker_queues(c);
	for (i = 0; i < c->nb_ports; i++) {
		struct mpe_port_conf *pc = &c->ports[i];
		char sect[16];

		snprintf(sect, sizeof(sect), "port %u", i);
		if (pc->rx_queues == 0)
			pc->rx_queues = n;
		else if (pc->rx_queues < n)
			report(p, loc_line(p, sect, "rx_queues"), "rx_queues",
			       "%u, but shape rss has a worker poll queue %u of every port",
			       pc->rx_queues, n - 1);
	}
}

/* Whether @lcore is one of the I/O lcores: [io N]'s, or engine io_lcore without them. */
static int
is_io_lcore(const struct mpe_conf *c, unsigned int lcore)
{
	unsigned int i;

	if (!mpe_config_io_used(c))
		return 0;
	if (c->nb_io == 0) /* before check_io() */
		return lcore == c->io_lcore;
	for (i = 0; i < c->nb_io; i++)
		if (c->io[i].lcore == lcore)
			return 1;
	return 0;
}

static void check_io_owners(struct parser *p, struct mpe_conf *c);

/* [io N] sections, once the ports' queues are known: several I/O lcores, each with the
 * (port, queue) pairs it polls and whether it transmits. Every RX queue of every receiving
 * port is polled by one of them exactly; when no section gives rx, the queues are dealt out
 * in turn, port by port (two ports, two I/O lcores: a port each). */
static void
check_io(struct parser *p, struct mpe_conf *c)
{
	unsigned int i, j, q, k, given = 0, tx = 0, tx_on = 0;
	char sect[16];

	if (c->nb_io == 0 && mpe_config_io_used(c)) {
		/* no [io N]: engine io_lcore polls every queue and transmits, as [io 0] would */
		c->nb_io = 1;
		c->io_implicit = 1;
		c->io[0].lcore = (uint16_t)c->io_lcore;
		c->io[0].tx = !c->tx_workers;
		for (j = 0; mpe_config_io_receives(c) && j < c->nb_ports; j++)
			if (c->ports[j].rx)
				c->io[0].rxq[j] = (uint16_t)((1u << c->ports[j].rx_queues) - 1);
		return;
	}
	if (c->nb_io == 0)
		return;
	if (!mpe_config_io_used(c)) {
		report(p, c->io[0].line, NULL, "[io 0]: %s", c->shape == MPE_SHAPE_RSS ?
		       "shape rss has no I/O lcore: its workers poll queues of their own" :
		       "a pipeline whose workers receive and transmit (rx = workers, tx = "
		       "workers) has no I/O lcore");
		return;
	}
	if (loc_line(p, "engine", "io_lcore") > 0)
		report(p, loc_line(p, "engine", "io_lcore"), "io_lcore",
		       "given with [io N] sections: the I/O lcores are theirs (lcore = N)");
	c->io_lcore = c->io[0].lcore; /* for what knows of one */
	/* a pipeline whose first worker polls the ports has one lane, and so one transmitting
	 * I/O lcore: the one that says tx = on, else [io 0] */
	for (i = 0; i < c->nb_io; i++) {
		snprintf(sect, sizeof(sect), "io %u", i);
		tx_on += loc_line(p, sect, "tx") > 0 && c->io[i].tx;
	}
	for (i = 0; i < c->nb_io; i++) {
		struct mpe_io_conf *io = &c->io[i];

		snprintf(sect, sizeof(sect), "io %u", i);
		for (j = 0; j < i && io->lcore != 0; j++)
			if (c->io[j].lcore == io->lcore)
				report(p, loc_line(p, sect, "lcore"), "lcore",
				       "%u already used by [io %u]", io->lcore, j);
		given |= io->rx_given;
		if (c->shape == MPE_SHAPE_PIPELINE && c->rx_workers && loc_line(p, sect, "tx") == 0)
			io->tx = i == 0 && tx_on == 0;
		if (c->shape == MPE_SHAPE_PIPELINE && c->rx_workers && io->tx && tx > 0 &&
		    !c->tx_workers)
			report(p, loc_line(p, sect, "tx") > 0 ? loc_line(p, sect, "tx") : io->line,
			       "tx", "on in a second [io N]: a pipeline whose first worker polls the "
			       "ports (rx = workers) hands every packet to one I/O lcore (tx = off in "
			       "the others)");
		if (c->tx_workers) {
			if (loc_line(p, sect, "tx") > 0 && io->tx)
				report(p, loc_line(p, sect, "tx"), "tx", "on, but the workers "
				       "transmit (engine tx = workers)");
			io->tx = 0;
		}
		tx += io->tx;
		for (j = 0; j < MPE_MAX_PORTS; j++) {
			const struct mpe_port_conf *pc = &c->ports[j];
			uint16_t all = (uint16_t)((1u << pc->rx_queues) - 1);

			if (((io->rx_all >> j) & 1) && j < c->nb_ports)
				io->rxq[j] |= all;
			if (!((io->rx_all >> j) & 1) && io->rxq[j] == 0)
				continue;
			if (j >= c->nb_ports)
				report(p, loc_line(p, sect, "rx"), "rx", "port %u is not configured "
				       "(ports 0..%u exist)", j, c->nb_ports - 1);
			else if (!pc->rx)
				report(p, loc_line(p, sect, "rx"), "rx", "port %u does not receive "
				       "(rx = off)", j);
			else if (io->rxq[j] & ~all)
				report(p, loc_line(p, sect, "rx"), "rx", "port %u has %u RX queue%s "
				       "(rx_queues)", j, pc->rx_queues, pc->rx_queues == 1 ? "" : "s");
		}
	}
	if (!c->tx_workers && tx == 0)
		report(p, loc_line(p, "io 0", "tx") > 0 ? loc_line(p, "io 0", "tx") : c->io[0].line,
		       "tx", "off in every [io N]: nothing would transmit (tx = on in one of them, "
		       "or engine tx = workers)");
	if (!mpe_config_io_receives(c)) {
		for (i = 0; i < c->nb_io; i++)
			if (c->io[i].rx_given)
				report(p, loc_line(p, "engine", "rx"), "rx", "workers: the pipeline's "
				       "first worker polls the ports, and [io %u] gives rx", i);
	} else if (!given) {
		for (j = 0, k = 0; j < c->nb_ports; j++)
			for (q = 0; c->ports[j].rx && q < c->ports[j].rx_queues; q++, k++)
				c->io[k % c->nb_io].rxq[j] |= (uint16_t)(1u << q);
	} else {
		check_io_owners(p, c);
	}
	/* every I/O lcore has something to do: queues to poll, or packets to send for one
	 * that polls and does not transmit (a pipeline whose first worker polls the ports:
	 * every packet) */
	for (i = 0; p->errors == 0 && i < c->nb_io; i++) {
		int work = mpe_config_io_rx(c, i) || (c->io[i].tx && !mpe_config_io_receives(c));

		for (j = 0; j < c->nb_io && !work; j++)
			work = j != i && mpe_config_io_rx(c, j) && !c->io[j].tx &&
			       c->io[i].tx && mpe_config_io_tx_of(c, j) == i;
		if (!work)
			report(p, c->io[i].line, NULL, "[io %u]: polls no queue and transmits for no "
			       "I/O lcore that does: it would only spin (more I/O lcores than RX "
			       "queues? give the ports more rx_queues)", i);
	}
}

/* [io N] sections that give rx: every RX queue of every receiving port polled by one. */
static void
check_io_owners(struct parser *p, struct mpe_conf *c)
{
	uint8_t owner[MPE_MAX_PORTS][MPE_MAX_QUEUES] = {{0}}; /* [io N] + 1; 0: none */
	unsigned int i, j, q;
	char sect[16];

	for (i = 0; i < c->nb_io; i++) {
		snprintf(sect, sizeof(sect), "io %u", i);
		for (j = 0; j < c->nb_ports; j++)
			for (q = 0; q < c->ports[j].rx_queues; q++) {
				if (!((c->io[i].rxq[j] >> q) & 1))
					continue;
				if (owner[j][q] != 0)
					report(p, loc_line(p, sect, "rx"), "rx", "port %u queue %u is "
					       "polled by [io %u] already", j, q, owner[j][q] - 1);
				else
					owner[j][q] = (uint8_t)(i + 1);
			}
	}
	for (j = 0; j < c->nb_ports; j++)
		for (q = 0; c->ports[j].rx && q < c->ports[j].rx_queues; q++)
			if (owner[j][q] == 0)
				report(p, c->ports[j].line, NULL, "[port %u]: RX queue %u is polled by "
				       "no I/O lcore (rx of an [io N] section)", j, q);
}

/* Checks across keys and sections, once every value is known. */
static void
validate(struct parser *p, struct mpe_conf *c, const uint8_t *seen_port,
	 const uint8_t *seen_worker, const uint8_t *seen_io)
{
	int eline = loc_line(p, "engine", "");
	unsigned int i, j, fwd = 0;
	uint64_t need;

	for (i = 0; i < MPE_MAX_PORTS && seen_port[i]; i++)
		;
	c->nb_ports = (uint16_t)i;
	for (; i < MPE_MAX_PORTS; i++)
		if (seen_port[i])
			report(p, c->ports[i].line, NULL,
			       "[port %u]: ports are numbered from 0 without gaps", i);
	for (i = 0; i < MPE_MAX_WORKERS && seen_worker[i]; i++)
		;
	c->nb_workers = (uint16_t)i;
	for (; i < MPE_MAX_WORKERS; i++)
		if (seen_worker[i])
			report(p, c->workers[i].line, NULL,
			       "[worker %u]: workers are numbered from 0 without gaps", i);
	for (i = 0; i < MPE_MAX_IO && seen_io[i]; i++)
		;
	c->nb_io = (uint16_t)i;
	for (; i < MPE_MAX_IO; i++)
		if (seen_io[i])
			report(p, c->io[i].line, NULL,
			       "[io %u]: I/O lcores are numbered from 0 without gaps", i);
	if (c->nb_ports == 0)
		report(p, 0, NULL, "no [port 0] section: at least one port is needed");
	if (c->nb_workers == 0)
		report(p, 0, NULL, "no [worker 0] section: at least one worker is needed");

	for (i = 0; i < c->nb_ports; i++) {
		struct mpe_port_conf *pc = &c->ports[i];
		char sect[16];

		snprintf(sect, sizeof(sect), "port %u", i);
		if (pc->peer == MPE_PORT_NONE)
			pc->peer = (uint16_t)(i ^ 1) < c->nb_ports ? (uint16_t)(i ^ 1) : (uint16_t)i;
		if (pc->peer >= c->nb_ports)
			report(p, loc_line(p, sect, "peer"), "peer",
			       "port %u is not configured (ports 0..%u exist)", pc->peer,
			       c->nb_ports - 1);
		for (j = 0; j < i; j++)
			if (pc->device[0] != '\0' && strcmp(pc->device, c->ports[j].device) == 0)
				report(p, loc_line(p, sect, "device"), "device",
				       "'%s' already used by port %u", pc->device, j);
		if (c->shape == MPE_SHAPE_RSS) {
			if (mpe_config_device_primary_only(pc->device))
				report(p, loc_line(p, sect, "device"), "device",
				       "'%s': shape rss makes workers poll ports themselves, and this "
				       "driver's datapath does not work in secondary processes (use "
				       "shape distributor or pipeline)", pc->device);
		}
		if (pc->rx_queues == 0 && c->shape != MPE_SHAPE_RSS)
			pc->rx_queues = 1;
	}

	for (i = 0; i < c->nb_workers; i++) {
		struct mpe_worker_conf *w = &c->workers[i];
		char sect[16];
		int line;

		snprintf(sect, sizeof(sect), "worker %u", i);
		line = loc_line(p, sect, "lcore");
		for (j = 0; j < w->nb_stages; j++)
			fwd += (mpe_stage_info(w->stages[j])->gives & MPE_STAGE_ROUTE) != 0;
		if (w->lcore == 0)
			continue; /* missing: already reported */
		for (j = 0; j < i; j++)
			if (c->workers[j].lcore == w->lcore)
				report(p, line, "lcore", "%u already used by worker %u", w->lcore, j);
		if (is_io_lcore(c, w->lcore))
			report(p, line, "lcore", c->nb_io ? "%u is an I/O lcore ([io N] lcore)" :
			       "%u is the I/O lcore (engine io_lcore)", w->lcore);
		if (c->shape != MPE_SHAPE_PIPELINE && i > 0 && !same_stages(w, &c->workers[0]))
			report(p, loc_line(p, sect, "stages"), "stages",
			       "shape %s runs identical workers: differs from worker 0",
			       mpe_config_shape_name(c->shape));
	}
	check_queues(p, c);
	check_io(p, c);
	/* tx = workers: every port something is sent to must work in the workers' processes */
	for (i = 0; c->shape != MPE_SHAPE_RSS && c->tx_workers && i < c->nb_ports; i++) {
		if (mpe_config_port_sent_to(c, i) &&
		    mpe_config_device_primary_only(c->ports[i].device))
			report(p, loc_line(p, "engine", "tx"), "tx",
			       "workers: port %u's driver ('%s') does not work in secondary "
			       "processes: let the I/O lcore transmit (tx = io)", i,
			       c->ports[i].device);
	}
	/* rx = workers: a pipeline's first worker polls queue 0 of every receiving port */
	if (c->rx_workers && c->shape == MPE_SHAPE_DISTRIBUTOR)
		report(p, loc_line(p, "engine", "rx"), "rx",
		       "workers: shape distributor needs the I/O lcore to hand each flow to its "
		       "worker (shape rss has workers poll queues of their own)");
	for (i = 0; c->shape == MPE_SHAPE_PIPELINE && c->rx_workers && i < c->nb_ports; i++) {
		const struct mpe_port_conf *pc = &c->ports[i];
		char sect[16];

		if (!pc->rx)
			continue;
		snprintf(sect, sizeof(sect), "port %u", i);
		if (mpe_config_device_primary_only(pc->device))
			report(p, loc_line(p, "engine", "rx"), "rx",
			       "workers: port %u's driver ('%s') does not work in secondary "
			       "processes: let the I/O lcore receive (rx = io)", i, pc->device);
		if (pc->rx_queues > 1)
			report(p, loc_line(p, sect, "rx_queues"), "rx_queues",
			       "%u, but with rx = workers the pipeline's first worker polls one "
			       "queue of each port", pc->rx_queues);
	}
	for (i = 0; i < c->nb_ports && !c->ports[i].rx; i++)
		;
	if (c->nb_ports > 0 && i == c->nb_ports) {
		char sect[16];

		snprintf(sect, sizeof(sect), "port %u", c->nb_ports - 1);
		report(p, loc_line(p, sect, "rx"), "rx",
		       "off on every port: the engine would receive nothing (let a port receive)");
	}
	if (c->nb_workers > 0 && fwd == 0 && p->errors == 0)
		report(p, 0, "stages", "no worker runs the '%s' stage: nothing would route "
		       "packets to an output port", mpe_stage_giver(MPE_STAGE_ROUTE)->name);
	if (c->shape == MPE_SHAPE_RSS && c->nb_workers > MPE_MAX_QUEUES)
		report(p, loc_line(p, "engine", "shape"), "shape",
		       "rss supports at most %d workers (one queue each)", MPE_MAX_QUEUES);
	/* the recorder's reader keeps what the writer, a burst ahead of head, cannot reach */
	if (c->recorder && c->recorder_packets < 2 * c->burst)
		report(p, loc_line(p, "engine", "recorder_packets") ?
			       loc_line(p, "engine", "recorder_packets") : eline,
		       "recorder_packets", "%u is less than twice burst (%u)", c->recorder_packets,
		       c->burst);

	/* The mempool refuses a cache above mbufs / 1.5: the bounds of the two keys keep
	 * every accepted pair within that. */
	RTE_BUILD_BUG_ON(RTE_MEMPOOL_CACHE_MAX_SIZE * 3 > 1023 * 2);
	/* Left out, ring_size and mbufs are the primary's to choose from where the lcores run;
	 * here the pool is sized for rings of ring_size everywhere. */
	c->ring_size_auto = loc_line(p, "engine", "ring_size") == 0;
	c->mbufs_auto = loc_line(p, "engine", "mbufs") == 0;
	need = mpe_config_mbufs_need(c, (uint64_t)mpe_config_nb_rings(c) * c->ring_size);
	if (c->mbufs_auto && c->mbufs < need && mpe_config_mbufs_auto(need) != 0)
		c->mbufs = mpe_config_mbufs_auto(need);
	if (p->errors == 0 && c->mbufs < need)
		report(p, loc_line(p, "engine", "mbufs") ? loc_line(p, "engine", "mbufs") : eline,
		       "mbufs", "%u cannot fill the configured queues, rings and caches: at least "
		       "%" PRIu64 " needed", c->mbufs, need);
}

unsigned int
mpe_config_nb_rings(const struct mpe_conf *c)
{
	unsigned int k = RTE_MAX(c->nb_io, (uint16_t)1);

	if (c->shape == MPE_SHAPE_RSS)
		return 0;
	/* at most: every I/O lcore both receives and transmits */
	return c->shape == MPE_SHAPE_PIPELINE ?
		       (c->nb_workers - 1U) * mpe_config_pipe_lanes(c) + 2U * k :
		       2U * k * c->nb_workers;
}

/* Every place an mbuf can wait: descriptors, rings, caches, bursts in hand. */
uint64_t
mpe_config_mbufs_need(const struct mpe_conf *c, uint64_t ring_slots)
{
	/* caches and bursts: the workers', the main lcore's, each I/O lcore's */
	uint64_t need = ring_slots + (uint64_t)(c->nb_workers + 1U + RTE_MAX(c->nb_io, (uint16_t)1)) *
					     (c->mbuf_cache + 2 * c->burst);
	unsigned int i;

	for (i = 0; i < c->nb_ports; i++)
		need += (uint64_t)c->ports[i].rx_queues * c->rx_desc +
			(uint64_t)mpe_config_port_txq(c, i) * c->tx_desc;
	return need;
}

uint32_t
mpe_config_mbufs_auto(uint64_t need)
{
	uint64_t n = MPE_DEF_MBUFS;

	while (n < need)
		n = 2 * n + 1;
	return n <= MPE_MAX_MBUFS ? (uint32_t)n : 0;
}

int
mpe_config_relative(const char *conf_path, const char *file, char *out, size_t size)
{
	const char *slash = strrchr(conf_path, '/');
	int n;

	if (file[0] == '/' || slash == NULL)
		n = snprintf(out, size, "%s", file);
	else
		n = snprintf(out, size, "%.*s/%s", (int)(slash - conf_path), conf_path, file);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The rules file, relative to the configuration file's directory unless absolute. */
static int
resolve_rules(struct parser *p, struct mpe_conf *c, int line)
{
	const char *slash = strrchr(c->path, '/');
	char buf[MPE_PATH_LEN];

	if (mpe_config_relative(c->path, c->rules, buf, sizeof(buf)) < 0) {
		report(p, line, "rules", "path too long once joined to %.*s",
		       slash != NULL ? (int)(slash - c->path) : 0, c->path);
		return -ENAMETOOLONG;
	}
	memcpy(c->rules, buf, strlen(buf) + 1);
	return 0;
}

/* The stages a packet meets, in order (in a pipeline one worker after the other), each
 * against what its catalogue entry needs from those before it; the rules file and its
 * actions. */
static void
validate_inspection(struct parser *p, struct mpe_conf *c)
{
	const struct mpe_stage_info *parse = mpe_stage_giver(MPE_STAGE_PARSED);
	unsigned int i, j, nw, mirrors = 0;
	int line = loc_line(p, "engine", "rules");
	uint8_t have = 0;
	const struct mpe_stage_info *rehash = NULL, *rules_user = NULL;
	struct mpe_rules *r;

	nw = c->shape == MPE_SHAPE_PIPELINE ? c->nb_workers : RTE_MIN(c->nb_workers, 1u);
	for (i = 0; i < nw; i++) {
		const struct mpe_worker_conf *w = &c->workers[i];
		char sect[16];

		snprintf(sect, sizeof(sect), "worker %u", i);
		for (j = 0; j < w->nb_stages; j++) {
			const struct mpe_stage_info *st = mpe_stage_info(w->stages[j]);

			if ((st->needs & MPE_STAGE_KEY_HASH) && rehash != NULL)
				report(p, loc_line(p, sect, "stages"), "stages",
				       "%s after %s after %s: %s sets the flow hash from the "
				       "decoded key, %s replaced it", st->name, rehash->name,
				       parse->name, parse->name, rehash->name);
			if ((st->needs & MPE_STAGE_PARSED) && !(have & MPE_STAGE_PARSED))
				report(p, loc_line(p, sect, "stages"), "stages",
				       "%s needs the %s stage before it%s", st->name, parse->name,
				       c->shape == MPE_SHAPE_PIPELINE ? " (here or in an earlier "
				       "worker)" : "");
			if (st->needs & MPE_STAGE_RULES)
				rules_user = st;
			if (st->gives & MPE_STAGE_KEY_HASH)
				rehash = NULL;
			else if ((st->gives & MPE_STAGE_OTHER_HASH) && (have & MPE_STAGE_KEY_HASH))
				rehash = st;
			have |= st->gives;
		}
	}
	if (c->mirror_port != MPE_PORT_NONE && c->mirror_port >= c->nb_ports)
		report(p, loc_line(p, "engine", "mirror_port"), "mirror_port",
		       "port %u is not configured", c->mirror_port);
	else if (c->mirror_port != MPE_PORT_NONE)
		for (i = 0; i < c->nb_ports; i++)
			if (c->ports[i].rx && c->ports[i].peer == c->mirror_port)
				report(p, loc_line(p, "engine", "mirror_port"), "mirror_port",
				       "port %u is the peer of port %u: a mirror port carries "
				       "copies only (give port %u another peer)", c->mirror_port,
				       i, i);
	if (c->rules[0] == '\0') {
		if (rules_user != NULL)
			report(p, loc_line(p, "engine", ""), "rules",
			       "the %s stage needs a rules file: set rules in [engine]",
			       rules_user->name);
		return;
	}
	if (resolve_rules(p, c, line) < 0)
		return;
	if (access(c->rules, R_OK) != 0) {
		/* said here with the line that names the file: it may be a relative path */
		report(p, line, "rules", "%s: %s", c->rules, strerror(errno));
		return;
	}
	r = mpe_rules_load(c->rules, p->err);
	if (r == NULL) { /* each problem already reported as "rules-file[:line]: reason" */
		p->errors++;
		return;
	}
	for (i = 0; i < mpe_rules_count(r); i++)
		mirrors += mpe_rules_get(r, i)->action == MPE_RULE_MIRROR;
	if (mirrors > 0 && c->mirror_port == MPE_PORT_NONE)
		report(p, line, "rules", "%s has %u mirror rules but mirror_port is not set",
		       c->rules, mirrors);
	/* allowed (a reload can fill it), but rarely meant: say so */
	if (mpe_rules_count(r) == 0 && p->err != NULL)
		fprintf(p->err, "%s: warning: no rule in the file: every packet gets the default "
			"action (%s)\n", c->rules, c->default_drop ? "drop" : "allow");
	mpe_rules_free(r);
}

void
mpe_config_check(struct parser *p, struct mpe_conf *c, const uint8_t *seen_port,
		 const uint8_t *seen_worker, const uint8_t *seen_io)
{
	validate(p, c, seen_port, seen_worker, seen_io);
	validate_inspection(p, c);
}
