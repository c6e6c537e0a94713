/* SPDX-License-Identifier: BSD-3-Clause */
/* The I/O lcores: port RX into the first ring(s), last ring(s) into port TX.
 * They run in the primary because net_pcap and net_af_packet cannot be polled from
 * secondaries. I/O lcore K (conf.io[K]) polls the (port, queue) pairs it was given, transmits
 * on a TX queue of its own of every port, is the single producer of every ring out of it
 * (MPE_END_IO_K(K)) and the single consumer of every ring into it, and the only writer of
 * shm->io[K].
 */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pause.h>

#include "context.h"
#include "io.h"
#include "log.h"
#include "names.h"
#include "pkt.h"
#include "stage.h"

#define RETA_SIZE 256 /* flow hash -> worker, like a NIC's redirection table */
#define TX_FLUSH_US 100

struct tx_port {
	struct io *io;
	uint16_t idx;
	struct rte_eth_dev_tx_buffer *buf;
};

struct io {
	struct mpe_shared *shm;
	const struct mpe_conf *conf;
	struct mpe_io_stats *st;
	unsigned int k;	    /* which I/O lcore: conf.io[k] */
	unsigned int lcore;
	uint16_t txq;	    /* its TX queue on every port */
	uint16_t nb_rxq;    /* the (port, queue) pairs it polls */
	struct {
		uint16_t port, queue;
	} rxq[MPE_MAX_PORTS * MPE_MAX_QUEUES];
	int meta_offset;
	uint16_t burst;
	uint8_t backpressure;
	uint8_t distribute;
	uint16_t nb_in; /* rings io -> worker */
	uint16_t nb_out; /* rings worker -> io */
	struct rte_ring *in[MPE_MAX_WORKERS];
	struct rte_ring *out[MPE_MAX_WORKERS];
	const volatile struct mpe_worker_ctl *in_ctl[MPE_MAX_WORKERS]; /* consumer of in[i] */
	uint8_t reta[RETA_SIZE];
	/* packets bound for each input ring, not yet enqueued */
	uint16_t nb_pend[MPE_MAX_WORKERS];
	/* free entries of each input ring at its last enqueue: a lower bound, as only its
	 * consumer moves it since, so a ring known to have room costs no read of a line the
	 * consumer writes */
	uint32_t room[MPE_MAX_WORKERS];
	struct rte_mbuf *pend[MPE_MAX_WORKERS][MPE_MAX_BURST];
	struct tx_port tx[MPE_MAX_PORTS];
	uint16_t mirror;	  /* conf.mirror_port, or MPE_PORT_NONE */
	uint8_t yield_idle;	  /* shares its CPU with a worker: yield when idle */
	/* input rings of the workers on this lcore's CPU, and how full one may get before
	 * this lcore yields the CPU to its consumer */
	uint16_t nb_share;
	uint32_t share_fill[MPE_MAX_WORKERS * MPE_MAX_IO];
	struct rte_ring *share[MPE_MAX_WORKERS * MPE_MAX_IO]; /* a pipeline stage's: a lane each */
	uint16_t share_worker[MPE_MAX_WORKERS * MPE_MAX_IO];
};

static int
stopping(const struct io *io)
{
	return io->shm->run_state == MPE_RUN_STOP;
}

/* Called by rte_eth_tx_buffer when the device took only part of a burst. */
static void
tx_unsent(struct rte_mbuf **pkts, uint16_t unsent, void *arg)
{
	struct tx_port *tp = arg;
	struct io *io = tp->io;
	uint16_t pid = io->conf->ports[tp->idx].port_id, done = 0;

	while (io->backpressure && tp->idx != io->mirror && done < unsent && !stopping(io)) {
		uint16_t n = rte_eth_tx_burst(pid, io->txq, pkts + done, unsent - done);

		io->st->port[tp->idx].tx += n;
		done += n;
		if (n == 0)
			rte_pause();
	}
	if (done < unsent) {
		rte_pktmbuf_free_bulk(pkts + done, unsent - done);
		/* the mirror port carries copies only: what it cannot take is no packet's loss */
		if (tp->idx == io->mirror)
			io->st->mirror_drops += unsent - done;
		else
			io->st->io.drops[MPE_DROP_TX_FULL] += unsent - done;
	}
}

static int
lookup(struct rte_ring **r, int from, int to)
{
	char name[RTE_RING_NAMESIZE];

	mpe_names_ring(name, sizeof(name), from, to);
	*r = rte_ring_lookup(name);
	if (*r == NULL) {
		MPE_LOG(ERR, io, "ring %s not found", name);
		return -ENOENT;
	}
	return 0;
}

static int
io_init(struct io *io, struct mpe_primary *p, unsigned int k, int socket)
{
	const struct mpe_conf *conf = &p->shm->conf;
	const int end = MPE_END_IO_K(k);
	const int rx = mpe_config_io_rx(conf, k), tx = conf->io[k].tx;
	unsigned int i, q;

	memset(io, 0, sizeof(*io));
	io->shm = p->shm;
	io->conf = conf;
	io->k = k;
	io->lcore = conf->io[k].lcore;
	io->txq = (uint16_t)mpe_config_io_txq(conf, k);
	io->st = &p->shm->io[k];
	io->meta_offset = p->shm->meta_offset;
	io->burst = (uint16_t)conf->burst;
	io->backpressure = (uint8_t)conf->backpressure;
	io->yield_idle = (uint8_t)p->io_yield_idle[k];
	io->mirror = conf->mirror_port;
	for (i = 0; i < conf->nb_ports; i++)
		for (q = 0; q < MPE_MAX_QUEUES; q++)
			if ((conf->io[k].rxq[i] >> q) & 1) {
				io->rxq[io->nb_rxq].port = (uint16_t)i;
				io->rxq[io->nb_rxq++].queue = (uint16_t)q;
			}
	for (i = 0; i < MPE_MAX_WORKERS; i++)
		io->in_ctl[i] = &p->shm->workers[i].ctl;
	if (conf->shape == MPE_SHAPE_PIPELINE) {
		/* rx = workers: the first worker polls the ports, this loop only transmits */
		io->nb_in = rx;
		io->nb_out = tx;
		if ((io->nb_in && lookup(&io->in[0], end, 0) < 0) ||
		    (io->nb_out && lookup(&io->out[0], conf->nb_workers - 1, end) < 0))
			return -ENOENT;
	} else {
		/* one worker gets every packet: no flow hash to spread them by (parse makes
		 * its own from the decoded key) */
		io->distribute = conf->nb_workers > 1;
		io->nb_in = rx ? conf->nb_workers : 0;
		io->nb_out = tx ? conf->nb_workers : 0;
		for (i = 0; i < conf->nb_workers; i++)
			if ((io->nb_in && lookup(&io->in[i], end, (int)i) < 0) ||
			    (io->nb_out && lookup(&io->out[i], (int)i, end) < 0))
				return -ENOENT;
		for (i = 0; i < RETA_SIZE; i++)
			io->reta[i] = (uint8_t)(i % conf->nb_workers);
	}
	for (i = 0; i < conf->nb_workers; i++) {
		unsigned int l, nb_r = 0;
		struct rte_ring *r[MPE_MAX_IO];

		if (!p->io_shares[k][i] || mpe_config_worker_receives(conf, i))
			continue;
		/* the worker's input ring from this I/O lcore, or (pipeline) from the stage
		 * before it, on each lane; none from an I/O lcore that does not receive */
		if (conf->shape == MPE_SHAPE_PIPELINE && i > 0) {
			for (l = 0; l < mpe_config_pipe_lanes(conf); l++, nb_r++)
				if (lookup(&r[nb_r], MPE_END_LANE(i - 1, l), (int)i) < 0)
					return -ENOENT;
		} else if (io->nb_in > 0) {
			r[nb_r++] = io->in[conf->shape == MPE_SHAPE_PIPELINE ? 0 : i];
		}
		/* A worker on this CPU runs only when this loop gives the CPU away: yield when
		 * an input ring of it is half full, so that it drains a good share at a time */
		for (l = 0; l < nb_r; l++) {
			io->share_fill[io->nb_share] = RTE_MIN(RTE_MAX(rte_ring_get_size(r[l]) / 2,
								       (uint32_t)io->burst),
							       rte_ring_get_capacity(r[l]));
			io->share_worker[io->nb_share] = (uint16_t)i;
			io->share[io->nb_share++] = r[l];
		}
	}
	for (i = 0; i < conf->nb_ports; i++) {
		struct tx_port *tp = &io->tx[i];

		tp->io = io;
		tp->idx = (uint16_t)i;
		tp->buf = rte_zmalloc_socket("mpe_txbuf", RTE_ETH_TX_BUFFER_SIZE(io->burst), 0,
					     socket);
		if (tp->buf == NULL)
			return -ENOMEM;
		rte_eth_tx_buffer_init(tp->buf, io->burst);
		rte_eth_tx_buffer_set_err_callback(tp->buf, tx_unsent, tp);
	}
	return 0;
}

static void
io_fini(struct io *io)
{
	unsigned int i;

	for (i = 0; i < io->conf->nb_ports; i++)
		rte_free(io->tx[i].buf);
}

/* Push what waits for input ring @w; in drop mode whatever does not fit is dropped. */
static inline void
flush_pending(struct io *io, unsigned int w)
{
	uint16_t n = io->nb_pend[w], sent;

	if (n == 0)
		return;
	if (unlikely(io->in_ctl[w]->dead)) {
		/* the worker is down for good: what would have gone to it is counted */
		rte_pktmbuf_free_bulk(io->pend[w], n);
		io->st->io.drops[MPE_DROP_WORKER_DOWN] += n;
		io->nb_pend[w] = 0;
		return;
	}
	sent = (uint16_t)rte_ring_sp_enqueue_burst(io->in[w], (void **)io->pend[w], n,
						   &io->room[w]);
	/* a worker being respawned lets its ring fill; nobody waits for it meanwhile */
	if (sent < n && (!io->backpressure || (io->in_ctl[w]->down && !io->in_ctl[w]->handed))) {
		rte_pktmbuf_free_bulk(io->pend[w] + sent, n - sent);
		io->st->io.drops[MPE_DROP_RING_FULL] += n - sent;
		sent = n;
	} else if (sent > 0 && sent < n) {
		memmove(io->pend[w], io->pend[w] + sent, (n - sent) * sizeof(io->pend[w][0]));
	}
	io->nb_pend[w] = n - sent;
}

/* Returns the packets still waiting (only non-zero with backpressure). */
static inline uint32_t
flush_all_pending(struct io *io)
{
	uint32_t left = 0;
	unsigned int w;

	for (w = 0; w < io->nb_in; w++) {
		flush_pending(io, w);
		left += io->nb_pend[w];
	}
	return left;
}

/* Whether a worker sharing this CPU has enough waiting to be given the CPU. */
static inline int
share_waiting(const struct io *io)
{
	unsigned int k;

	/* a worker that is down fills its ring without being able to drain it */
	for (k = 0; k < io->nb_share; k++)
		if (!io->in_ctl[io->share_worker[k]]->down &&
		    rte_ring_count(io->share[k]) >= io->share_fill[k])
			return 1;
	return 0;
}

/* Drop mode: whether a packet received now has anywhere to go. When every worker's input
 * ring is full, receiving could only free what was received: leave the packets in the device
 * (whose queue drops what does not fit, counted by the device as missed) and let the loop
 * go on to its transmit side, or give the CPU to a worker that shares it. A ring whose
 * worker is down for good counts as room: what is bound for it is counted (worker_down). */
static inline int
rings_have_room(struct io *io)
{
	unsigned int w;

	for (w = 0; w < io->nb_in; w++)
		if (io->room[w] > 0)
			return 1;
	for (w = 0; w < io->nb_in; w++) {
		io->room[w] = rte_ring_free_count(io->in[w]);
		if (io->room[w] > 0 || io->in_ctl[w]->dead)
			return 1;
	}
	return 0;
}

/* Packets of the flows quarantine blocks (common/shm/quarantine_table.h) are freed here, where they
 * enter the engine, and counted: per flow (the I/O lcore's row of hits) and as drops. The
 * others stay in @pkts, in order; returns how many. */
static __rte_noinline uint16_t
block_quarantined(struct io *io, struct rte_mbuf **pkts, uint16_t n)
{
	struct mpe_quarantine *q = &io->shm->quar;
	uint8_t buf[MPE_PKT_HEAD_MAX];
	uint16_t i, kept = 0;
	uint32_t cap;
	int f;

	for (i = 0; i < n; i++) {
		const void *head = mpe_pkt_head(pkts[i], buf, &cap);

		f = mpe_quarantine_match(q, head, cap);
		if (f < 0) {
			pkts[kept++] = pkts[i];
			continue;
		}
		q->hits[MPE_QUARANTINE_SITE_IO(io->k)][f]++; /* this I/O lcore's row */
		rte_pktmbuf_free(pkts[i]);
	}
	io->st->io.drops[MPE_DROP_QUARANTINE] += n - kept;
	return kept;
}

static inline uint16_t
rx_burst(struct io *io, uint16_t idx, uint16_t q)
{
	struct rte_mbuf *pkts[MPE_MAX_BURST];
	uint8_t buf[MPE_PKT_HEAD_MAX]; /* a chain's head, when its first segment is short */
	uint16_t n, i, rx;
	uint64_t bytes = 0;
	uint32_t cap;

	n = rte_eth_rx_burst(io->conf->ports[idx].port_id, q, pkts, io->burst);
	if (n == 0)
		return 0;
	/* the received count takes every packet, blocked ones too: they are counted dropped */
	rx = n;
	if (unlikely(io->shm->quar.blocked != 0))
		n = block_quarantined(io, pkts, n);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct mpe_meta *meta = mpe_meta(m, io->meta_offset);
		unsigned int w = 0;

		mpe_meta_init(meta, idx);
		bytes += rte_pktmbuf_pkt_len(m);
		if (io->distribute) {
			const void *head = mpe_pkt_head(m, buf, &cap);

			meta->flow_hash = mpe_pkt_flow_hash(head, cap);
			meta->flags = MPE_META_HASHED;
			w = io->reta[meta->flow_hash & (RETA_SIZE - 1)];
		}
		io->pend[w][io->nb_pend[w]++] = m;
	}
	io->st->port[idx].rx += rx;
	io->st->port[idx].rx_bytes += bytes;
	io->st->port[idx].bursts++;
	return rx;
}

/* A copy of @m for the mirror port, before @m itself leaves (the driver owns it then); from
 * @m's own pool, so that a port's traffic takes no other port's mbufs (pools = port). */
static __rte_noinline void
mirror(struct io *io, struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_copy(m, m->pool, 0, UINT32_MAX);
	uint16_t mp = io->mirror;

	if (unlikely(c == NULL)) {
		io->st->mirror_drops++;
		return;
	}
	io->st->mirrored++;
	io->st->port[mp].tx += rte_eth_tx_buffer(io->conf->ports[mp].port_id, io->txq,
						 io->tx[mp].buf, c);
}

static inline uint32_t
tx_side(struct io *io)
{
	struct rte_mbuf *pkts[MPE_MAX_BURST];
	const struct mpe_conf *conf = io->conf;
	uint32_t total = 0;
	unsigned int r;

	for (r = 0; r < io->nb_out; r++) {
		uint16_t n = (uint16_t)rte_ring_sc_dequeue_burst(io->out[r], (void **)pkts,
								 io->burst, NULL);
		uint16_t i;

		for (i = 0; i < n; i++) {
			const struct mpe_meta *meta = mpe_meta(pkts[i], io->meta_offset);
			uint16_t out = meta->out_port;

			if (unlikely(out >= conf->nb_ports)) {
				rte_pktmbuf_free(pkts[i]);
				io->st->io.drops[MPE_DROP_NO_ROUTE]++;
				continue;
			}
			if (unlikely(meta->flags & MPE_META_MIRROR) && io->mirror != MPE_PORT_NONE)
				mirror(io, pkts[i]);
			io->st->port[out].tx += rte_eth_tx_buffer(conf->ports[out].port_id,
								  io->txq, io->tx[out].buf,
								  pkts[i]);
		}
		total += n;
	}
	return total;
}

static void
tx_flush(struct io *io)
{
	unsigned int i;

	for (i = 0; i < io->conf->nb_ports; i++)
		io->st->port[i].tx += rte_eth_tx_buffer_flush(io->conf->ports[i].port_id,
							      io->txq, io->tx[i].buf);
}

/* The loop, until the engine stops. Hot, or GCC compiles it for size, unaligned, among the
 * cold code: rte_log() is declared cold, and mpe_io_main() logs on its way out, so its
 * guessed profile takes everything before that as never executed. */
static __rte_noinline __rte_hot void
io_loop(struct io *io)
{
	uint64_t flush_cycles = rte_get_tsc_hz() * TX_FLUSH_US / US_PER_S, last_flush = 0;
	uint64_t wait_from = 0; /* where the current run of polls with the rings full began */
	/* With no output ring (tx = workers) nothing is ever transmitted here: the loop is
	 * receive only, and times one busy poll in cycles_sample (a TSC read costs as much as a
	 * packet's hash), whose cycles stand for the busy polls since the last timed one, as the
	 * workers' are; it reads the clock on each poll that waits for the workers. A loop that
	 * transmits reads it on every poll (its flushes are timed). */
	const int tx = io->nb_out > 0;
	const uint32_t sample = RTE_MAX(io->conf->cycles_sample, 1u);
	uint32_t countdown = 0, untimed = 0; /* busy polls to the next timed one, since the last */

	while (!stopping(io)) {
		const int timed = tx || countdown == 0;
		uint64_t t0 = timed ? rte_rdtsc() : 0;
		uint32_t left = flush_all_pending(io), moved = 0, got = 0;
		const int rx_on = io->nb_in > 0 && io->shm->run_state == MPE_RUN_ACTIVE;
		unsigned int q;

		io->st->io.polls++; /* first: a reader sees full_polls <= polls */
		rte_compiler_barrier();
		if (rx_on && (left > 0 || (!io->backpressure && !rings_have_room(io)))) {
			uint64_t now = rte_rdtsc(); /* a poll that waits has the time */

			io->st->full_polls++; /* the workers are behind: the ports wait */
			if (wait_from != 0)
				io->st->io.wait_cycles += now - wait_from; /* counted as it goes */
			wait_from = now;
		} else if (rx_on) {
			if (unlikely(wait_from != 0)) {
				/* one clock read per run of full polls, none when there is none */
				io->st->io.wait_cycles += rte_rdtsc() - wait_from;
				wait_from = 0;
			}
			/* with backpressure, stop receiving at the first full ring */
			for (q = 0; q < io->nb_rxq && left == 0; q++) {
				got += rx_burst(io, io->rxq[q].port, io->rxq[q].queue);
				left = flush_all_pending(io);
			}
		} else {
			wait_from = 0; /* paused, or nothing to receive: nobody waits for workers */
		}
		io->st->pending = left;
		if (tx) {
			moved = tx_side(io);
			/* transmitting is work, not waiting: a wait ends at this poll's reading */
			if (moved > 0)
				wait_from = 0;
			if (moved == 0 || t0 - last_flush > flush_cycles) {
				tx_flush(io);
				last_flush = t0;
			}
		}
		if (moved > 0 || got > 0) {
			io->st->io.rx += moved;
			if (timed) {
				io->st->io.cycles += (rte_rdtsc() - t0) * (untimed + 1);
				untimed = 0;
				countdown = sample - 1;
			} else {
				untimed++;
				countdown--;
			}
		} else if (unlikely(io->yield_idle)) {
			sched_yield(); /* a worker on this CPU may have packets to move */
			continue;
		}
		if (unlikely(io->nb_share > 0) && share_waiting(io)) {
			io->st->yields_fill++;
			sched_yield(); /* a worker on this CPU has a good share of a ring to do */
		}
	}
}

int
mpe_io_prepare(struct mpe_primary *p, unsigned int k)
{
	unsigned int lcore = p->shm->conf.io[k].lcore;
	struct io *io;
	int rc;

	io = rte_zmalloc_socket("mpe_io", sizeof(*io), RTE_CACHE_LINE_SIZE,
				rte_lcore_to_socket_id(lcore));
	if (io == NULL)
		return -ENOMEM;
	rc = io_init(io, p, k, rte_lcore_to_socket_id(lcore));
	if (rc < 0) {
		io_fini(io);
		rte_free(io);
		return rc;
	}
	p->io[k] = io;
	return 0;
}

void
mpe_io_release(struct mpe_primary *p)
{
	unsigned int k;

	for (k = 0; k < MPE_MAX_IO; k++) {
		struct io *io = p->io[k];

		if (io == NULL)
			continue;
		io_fini(io);
		rte_free(io);
		p->io[k] = NULL;
	}
}

int
mpe_io_main(void *arg)
{
	struct io *io = arg;
	unsigned int i;

	io->st->running = 1;
	if (io->conf->io_implicit)
		MPE_LOG(INFO, io, "I/O loop on lcore %u: %u ports, %u input and %u output rings",
			rte_lcore_id(), io->conf->nb_ports, io->nb_in, io->nb_out);
	else if (io->nb_out > 0)
		MPE_LOG(INFO, io, "I/O loop %u on lcore %u: %u port queues, TX queue %u, %u input "
			"and %u output rings", io->k, rte_lcore_id(), io->nb_rxq, io->txq,
			io->nb_in, io->nb_out);
	else
		MPE_LOG(INFO, io, "I/O loop %u on lcore %u: %u port queues, receive only, %u "
			"input rings", io->k, rte_lcore_id(), io->nb_rxq, io->nb_in);

	io_loop(io);
	/* Final: what the workers left in the output rings still goes out. */
	while (tx_side(io) > 0)
		;
	tx_flush(io);
	for (i = 0; i < io->nb_in; i++) {
		rte_pktmbuf_free_bulk(io->pend[i], io->nb_pend[i]);
		io->st->io.drops[MPE_DROP_SHUTDOWN] += io->nb_pend[i];
		io->nb_pend[i] = 0;
	}
	io->st->pending = 0;
	io->st->running = 0;
	MPE_LOG(INFO, io, "I/O loop stopped");
	return 0;
}
