/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker loop, shared by both builds: take a burst (ring or port queue), run the stages,
 * hand the survivors on. One writer per counter: this worker. The only shared reads on the
 * hot path are the stop flag, in a pipeline the next stage's dead flag (lines the primary
 * alone writes, and seldom) and, once per 100 ms, the primary's heartbeat.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_pause.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>

#include "log.h"
#include "names.h"
#include "pool_put.h"
#include "recorder_write.h"
#include "shm_ops.h"
#include "worker.h"

#define PRIMARY_CHECK_PER_S 10
#define PRIMARY_STALE_CHECKS 3 /* heartbeats missed before asking the kernel */
#define PRIMARY_GONE UINT8_MAX /* primary_gone: the kernel says it no longer runs */

static int
lookup_ring(struct rte_ring **r, int from, int to, char *err, size_t err_size)
{
	char name[RTE_RING_NAMESIZE];

	mpe_names_ring(name, sizeof(name), from, to);
	*r = rte_ring_lookup(name);
	if (*r == NULL) {
		snprintf(err, err_size, "ring %s not found", name);
		return -ENOENT;
	}
	return 0;
}

int
mpe_worker_init(struct mpe_worker *w, struct mpe_shared *shm, unsigned int id, char *err,
		size_t err_size)
{
	const struct mpe_conf *conf = &shm->conf;
	const struct mpe_worker_conf *wc;
	unsigned int i;
	int rc;

	memset(w, 0, sizeof(*w));
	if (id >= conf->nb_workers) {
		snprintf(err, err_size, "worker %u is not configured (%u workers)", id,
			 conf->nb_workers);
		return -EINVAL;
	}
	wc = &conf->workers[id];
	w->shm = shm;
	w->slot = &shm->workers[id];
	w->cnt = MPE_SHM_WORKER_CNT(shm, id);
	w->id = id;
	w->burst = (uint16_t)conf->burst;
	w->backpressure = (uint8_t)conf->backpressure;
	w->yield_idle = (uint8_t)w->slot->ctl.yield_idle;
	w->sample = (uint16_t)RTE_MAX(conf->cycles_sample, 1u);
	w->rec = w->slot->ctl.rec;
	/* a killed worker's burst goes to its replacement only where one process can take
	 * another's place */
	w->undo = shm->worker_model == 0 && conf->carry ? &w->slot->hand.undo : NULL;

	{
		int from[MPE_MAX_IO], to[MPE_MAX_IO];
		unsigned int nb_in, nb_out;

		mpe_names_worker_rings(conf, id, from, &nb_in, to, &nb_out, w->out_of);
		for (i = 0, rc = 0; rc == 0 && i < nb_in; i++)
			rc = lookup_ring(&w->ins[i], from[i], (int)id, err, err_size);
		for (i = 0; rc == 0 && i < nb_out; i++)
			rc = lookup_ring(&w->outs[i], (int)id, to[i], err, err_size);
		if (rc < 0)
			return rc;
		w->nb_in = (uint8_t)nb_in;
		w->nb_out = (uint8_t)nb_out;
		w->in = nb_in > 0 ? w->ins[0] : NULL;
		w->out = nb_out > 0 ? w->outs[w->out_of[0]] : NULL;
	}
	if (conf->shape == MPE_SHAPE_PIPELINE && id + 1 < conf->nb_workers) {
		w->next_down = &shm->workers[id + 1].ctl.down;
		w->next_dead = &shm->workers[id + 1].ctl.dead;
		w->next_handed = &shm->workers[id + 1].ctl.handed;
	}
	if (mpe_config_worker_receives(conf, id)) {
		/* rss: its own queue of every port; a pipeline's first worker: the one queue */
		w->ports_in = 1;
		w->rx_queue = conf->shape == MPE_SHAPE_RSS ? wc->queue : 0;
		for (i = 0; i < conf->nb_ports; i++)
			if (conf->ports[i].rx)
				w->rx_ports[w->nb_rx_ports++] = (uint16_t)i;
	}
	if (mpe_config_worker_transmits(conf, id)) {
		w->queue = wc->queue;
		w->mirror = conf->mirror_port != MPE_PORT_NONE;
	}
	if (shm->nb_pools == 0 || shm->nb_pools > MPE_MAX_POOLS) {
		snprintf(err, err_size, "%u mbuf pools in shared memory", shm->nb_pools);
		return -EINVAL;
	}
	w->nb_pools = (uint8_t)shm->nb_pools;
	for (i = 0; i < w->nb_pools; i++) {
		char name[RTE_MEMPOOL_NAMESIZE];
		struct rte_mempool *mp;

		mp = mpe_names_pool(name, sizeof(name), i) == 0 ? rte_mempool_lookup(name) : NULL;
		if (mp == NULL) {
			snprintf(err, err_size, "mempool %s not found", name);
			return -ENOENT;
		}
		if (i == 0)
			mpe_pool_mapped = mp;
		mpe_pools_mapped[i] = mp;
		/* the lcore id this instance runs as: the configured one, or a standby's own */
		mpe_pool_ref_init(&w->pool_refs[i], mp, i, w->slot->ctl.lcore, conf->burst);
	}
	for (i = 0; i < conf->nb_ports; i++)
		w->rx_pool[i] = shm->port_pool[i] < w->nb_pools ? shm->port_pool[i] : 0;

	w->nb_stages = wc->nb_stages;
	for (i = 0; i < wc->nb_stages; i++) {
		struct mpe_stage_ctx *ctx = &w->sctx[i];

		w->ops[i] = mpe_stage_get(wc->stages[i]);
		if (w->ops[i] == NULL) {
			snprintf(err, err_size, "stage index %u unknown to this build", wc->stages[i]);
			return -EINVAL;
		}
		w->ahead_data |= mpe_stage_info(wc->stages[i])->reads_headers;
		w->needs_time |= mpe_stage_info(wc->stages[i])->reads_time;
		ctx->shm = shm;
		ctx->conf = conf;
		ctx->cnt = &w->slot->stage_cnt[i];
		ctx->malformed = w->slot->malformed;
		ctx->insp = &w->slot->insp;
		ctx->worker_id = id;
		ctx->stage_pos = i;
		ctx->meta_offset = shm->meta_offset;
		ctx->undo = w->undo;
		mpe_stage_ports(ctx, conf);
		if (w->ops[i]->init != NULL) {
			rc = w->ops[i]->init(ctx);
			if (rc < 0) {
				snprintf(err, err_size, "stage %s: init failed: %s", mpe_stage_info(wc->stages[i])->name,
					 strerror(-rc));
				while (i-- > 0)
					if (w->ops[i]->fini != NULL)
						w->ops[i]->fini(&w->sctx[i]);
				return rc;
			}
		}
	}
	return 0;
}

void
mpe_worker_fini(struct mpe_worker *w)
{
	unsigned int i;

	for (i = 0; i < w->nb_stages; i++)
		if (w->ops[i]->fini != NULL)
			w->ops[i]->fini(&w->sctx[i]);
}

volatile sig_atomic_t mpe_worker_stop_requested;

/* A stop signal seen (off the fast path): leave once the grace has passed with the engine
 * still running. A signal sent to a whole cgroup (systemd's KillMode=control-group) reaches
 * the primary as well, which then drains the rings and stops the workers in order: leaving
 * at once would strand this worker's input; while the engine drains the worker goes on. */
static __rte_noinline int
signal_stop(struct mpe_worker *w)
{
	uint64_t now = rte_rdtsc();

	if (w->shm->run_state == MPE_RUN_DRAIN)
		return 0;
	if (w->signal_tsc == 0) {
		w->signal_tsc = now;
		return 0;
	}
	return now - w->signal_tsc >= w->shm->tsc_hz * MPE_WORKER_SIGNAL_GRACE_MS / 1000;
}

static inline int
should_stop(struct mpe_worker *w)
{
	return w->slot->ctl.stop || w->shm->run_state == MPE_RUN_STOP ||
	       (unlikely(mpe_worker_stop_requested) && signal_stop(w));
}

int
mpe_worker_left_on_signal(const struct mpe_worker *w)
{
	return mpe_worker_stop_requested && !w->slot->ctl.stop &&
	       w->shm->run_state < MPE_RUN_DRAIN && w->primary_gone != PRIMARY_GONE;
}

/* A process that exited but was not yet reaped by its parent (a zombie) still answers
 * kill(pid, 0): look at its state too. */
int
mpe_worker_process_gone(pid_t pid)
{
	char path[64], buf[256], *state;
	ssize_t n;
	int fd;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	state = strrchr(buf, ')'); /* "pid (comm) S ...": comm may hold spaces and parentheses */
	return state != NULL && (state[2] == 'Z' || state[2] == 'X');
}

/* Off the fast path: once per 100 ms look at the primary's heartbeat; after three unchanged
 * looks ask the kernel whether it still exists. */
static __rte_noinline void
check_primary(struct mpe_worker *w, uint64_t now)
{
	uint64_t beat = w->shm->primary_heartbeat;

	w->primary_check_tsc = now + w->shm->tsc_hz / PRIMARY_CHECK_PER_S;
	if (w->primary_gone == PRIMARY_GONE)
		return;
	if (beat != w->primary_beat_seen) {
		w->primary_beat_seen = beat;
		w->primary_gone = 0;
		return;
	}
	if (w->primary_gone < PRIMARY_STALE_CHECKS && ++w->primary_gone < PRIMARY_STALE_CHECKS)
		return;
	if (mpe_worker_process_gone(w->shm->primary_pid))
		w->primary_gone = PRIMARY_GONE;
}

/* Recovery bookkeeping: the hand's phase tells the primary what the hand holds should this
 * worker die (enum mpe_hand_phase). The worker is its only writer and the primary reads it once
 * the worker is gone, so only the compiler's order matters: compiler barriers, no fence.
 * hand_phase: what the hand says for the new phase is written before it, and nothing the new
 * phase covers is done before it. */
static __rte_always_inline void
hand_phase(struct mpe_worker_hand *h, enum mpe_hand_phase phase)
{
	rte_compiler_barrier();
	h->phase = phase;
	rte_compiler_barrier();
}

/* The same without a barrier behind the store, as the sites that close a step always had it:
 * what follows them is the end of the loop, the next poll, or stores the primary reads only
 * once a later barrier or release has published them (free_armed, the next phase). */
static __rte_always_inline void
hand_phase_release(struct mpe_worker_hand *h, enum mpe_hand_phase phase)
{
	rte_compiler_barrier();
	h->phase = phase;
}

/* Return the hand's work[*from .. end) to the pool, counted under @why (MPE_DROP_MAX: counted
 * already), so that after a death anywhere in here the primary knows which of them went back
 * (the put under way, pool_put.h) and whether they were counted (free_count). */
static inline void
hand_free(struct mpe_worker *w, uint32_t *from, uint32_t end, enum mpe_drop why)
{
	struct mpe_worker_hand *h = &w->slot->hand;
	uint64_t *count = &w->cnt->drops[why];
	uint32_t m = end - *from;

	if (m == 0)
		return;
	h->free_end = end;
	h->free_why = why;
	if (why != MPE_DROP_MAX)
		h->free_count = *count + m;
	__atomic_store_n(&h->free_armed, 1, __ATOMIC_RELEASE);
	mpe_pool_free(&h->put, w->pool_refs, w->nb_pools, h->work, from, end);
	if (why != MPE_DROP_MAX)
		*count += m;
	__atomic_store_n(&h->free_armed, 0, __ATOMIC_RELEASE);
}

/* Cycle sampling. Stages are timed in one non-empty burst of cycles_sample (a TSC read costs
 * about as much as forwarding a packet): a timed burst's cycles count for it and for the
 * untimed bursts since the last timed one (systematic sampling: the total is estimated
 * without bias, and a rare long burst, a wait for room say, weighs at most cycles_sample
 * times). Stages that read the time get it on every burst; the others see the last time
 * read. The loop's clock lives in its registers: */
struct loop_clock {
	uint64_t now;	    /* TSC at this poll's start */
	uint64_t wait_from; /* where the current run of empty polls began, or 0 */
	int busy;	    /* the last poll had a burst */
	int timed_last;	    /* and it was timed: its end time is this poll's start */
};

/* A poll begins: is its burst timed; the time, read unless the last burst was timed and
 * its end gave it (one TSC read less). */
static __rte_always_inline void
sample_begin(struct mpe_worker *w, struct loop_clock *c)
{
	w->timed = w->countdown == 0;
	if (!c->busy || (w->timed && !c->timed_last))
		c->now = rte_rdtsc();
	w->now = c->now;
}

/* A poll that had a burst ends: a run of empty polls before it ended as it began (the poll
 * before was empty, so this one read the clock); a timed burst's cycles stand for it and the
 * untimed ones since the last. */
static __rte_always_inline void
sample_busy(struct mpe_worker *w, struct mpe_counters *cnt, struct loop_clock *c)
{
	c->busy = 1;
	c->timed_last = 0;
	if (unlikely(c->wait_from != 0)) {
		cnt->wait_cycles += c->now - c->wait_from;
		c->wait_from = 0;
	}
	if (w->timed) {
		uint64_t end = rte_rdtsc();

		cnt->cycles += (end - c->now) * ((uint64_t)w->span + 1);
		c->now = end;
		w->span = 0;
		w->countdown = w->sample - 1;
		c->timed_last = 1;
	} else {
		w->span++;
		w->countdown--;
	}
}

/* An empty poll ends: waiting is counted as it goes, so that a worker that waits for good
 * shows it; after an empty poll this one read the clock as it began, else read it now (an
 * idle poll has the time). */
static __rte_always_inline void
sample_idle(struct mpe_counters *cnt, struct loop_clock *c)
{
	c->busy = 0;
	c->timed_last = 0;
	if (c->wait_from != 0)
		cnt->wait_cycles += c->now - c->wait_from;
	c->wait_from = c->wait_from != 0 ? c->now : rte_rdtsc();
}

/* A stage of a timed burst ends: its cycles, weighted by the bursts it stands for; returns
 * the time, the next stage's start. */
static __rte_always_inline uint64_t
sample_stage(struct mpe_counters *sc, uint64_t t0, uint64_t weight)
{
	uint64_t t1 = rte_rdtsc();

	sc->cycles += (t1 - t0) * weight;
	return t1;
}

/* Flight recorder (recorder_write.h): a burst is recorded once its stages are done with it;
 * one that never gets there is in the hand, where the primary records it. */
static __rte_always_inline void
rec_write(struct mpe_worker *w, struct rte_mbuf *const *pkts, uint16_t n)
{
	struct mpe_counters *rc = &w->slot->rec_cnt;
	uint64_t t0;

	if (w->rec == NULL)
		return;
	if (!w->timed) {
		mpe_rec_write(w->rec, pkts, n, w->now, w->shm->meta_offset);
		rc->rx += n;
		return;
	}
	/* timed as a stage is: its cycles stand for the untimed bursts since the last timed */
	t0 = rte_rdtsc();
	mpe_rec_write(w->rec, pkts, n, w->now, w->shm->meta_offset);
	sample_stage(rc, t0, (uint64_t)w->span + 1);
	rc->rx += n;
}

/* Stage @s dropped @pkts[kept..n): which stage, for their records. */
static inline void
rec_dropped(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t kept, uint16_t n,
	    unsigned int s)
{
	const int off = w->shm->meta_offset;
	uint16_t i;

	for (i = kept; i < n; i++)
		mpe_meta(pkts[i], off)->drop_stage = (uint8_t)(s + 1);
}

/* Run every stage over the burst; survivors end up first in @pkts, the dropped behind them.
 * @in_port: the port (index into conf.ports[]) every packet was received on, MPE_PORT_NONE
 * for a burst from a ring. Returns the survivors, and in *@out_port the port every one of
 * them is routed to, or MPE_PORT_NONE when no stage knows it to be one port. The worker's
 * own verdict drop count moves when the burst leaves PROC (transmit_burst, enqueue_burst): a
 * worker dying in PROC has the whole burst counted by its recovery, and only then. Timed as
 * cycle sampling says. */
static inline uint16_t
run_stages(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t in_port,
	   uint16_t *out_port)
{
	const uint64_t weight = (uint64_t)w->span + 1;
	const int timed = w->timed;
	uint64_t t0, t1;
	unsigned int s;

	/* timed: one TSC read per stage, the end of one stage is the start of the next */
	t0 = timed || w->needs_time ? rte_rdtsc() : w->now;
	*out_port = MPE_PORT_NONE;
	for (s = 0; s < w->nb_stages && n > 0; s++, t0 = t1) {
		struct mpe_counters *sc = w->sctx[s].cnt;
		uint16_t kept;

		w->sctx[s].now = t0;
		w->sctx[s].burst_in = in_port;
		w->sctx[s].burst_out = *out_port;
		w->slot->hand.stage = s; /* before the call: a stage that dies is named */
		kept = w->ops[s]->burst(&w->sctx[s], pkts, n);
		if (w->rec != NULL && kept < n)
			rec_dropped(w, pkts, kept, n, s);
		*out_port = w->sctx[s].burst_out;
		t1 = t0;
		if (timed)
			t1 = sample_stage(sc, t0, weight);
		mpe_undo_add(w->undo, &sc->rx, n);
		mpe_undo_add(w->undo, &sc->tx, kept);
		mpe_undo_add(w->undo, &sc->bursts, 1);
		if (kept != n)
			mpe_undo_add(w->undo, &sc->drops[MPE_DROP_VERDICT], n - kept);
		n = kept;
	}
	/* out of the stages: a death from here on is not one a packet caused in them */
	w->slot->hand.stage = w->nb_stages;
	return n;
}

/* A full output ring: wait for room while the consumer is alive (backpressure), else stop. */
static inline int
keep_waiting(struct mpe_worker *w)
{
	uint64_t now = rte_rdtsc();

	w->slot->status.heartbeat++;
	if (unlikely(now >= w->primary_check_tsc)) {
		check_primary(w, now);
		if (w->primary_gone == PRIMARY_GONE)
			return 0;
	}
	return w->backpressure && !should_stop(w) &&
	       !(w->next_down != NULL && *w->next_down && !*w->next_handed);
}

static inline void send_ports(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t n,
			      uint16_t out_port);
static inline void transmit_on(struct mpe_worker *w, uint16_t n, uint16_t kept,
			       uint16_t out_port);
static inline void enqueue_on(struct mpe_worker *w, uint16_t n, uint16_t kept);

/* What the stages dropped (@verdict) and what quarantine blocked, counted while the burst is
 * in PROC, through the undo log. */
static inline void
burst_drops(struct mpe_worker *w, uint16_t verdict, uint16_t blocked)
{
	if (verdict != 0)
		mpe_undo_add(w->undo, &w->cnt->drops[MPE_DROP_VERDICT], verdict);
	if (unlikely(blocked != 0))
		mpe_undo_add(w->undo, &w->cnt->drops[MPE_DROP_QUARANTINE], blocked);
}
static __rte_noinline void mirror_ports(struct mpe_worker *w, struct rte_mbuf **pkts,
					uint16_t n);

/* A worker that transmits itself (rss; tx = workers): the survivors of work[0..n) leave on
 * its queues, the hand's `done` saying which have left; then the dropped are freed.
 * @out_port: where every survivor goes, or MPE_PORT_NONE (see run_stages). */
static inline void
transmit_burst(struct mpe_worker *w, uint16_t n, uint16_t kept, uint16_t out_port,
	       uint16_t blocked)
{
	struct mpe_worker_hand *h = &w->slot->hand;

	h->kept = kept;
	h->done = 0;
	/* counted in PROC: a death before TX takes them back with the rest of the burst */
	burst_drops(w, n - blocked - kept, blocked);
	hand_phase(h, MPE_HAND_TX);
	if (w->mirror)
		mirror_ports(w, h->work, kept);
	transmit_on(w, n, kept, out_port);
}

/* The survivors work[0..kept) leave on the ports (phase TX, done 0), then work[kept..n),
 * dropped and counted, are freed. */
static inline void
transmit_on(struct mpe_worker *w, uint16_t n, uint16_t kept, uint16_t out_port)
{
	struct mpe_worker_hand *h = &w->slot->hand;

	send_ports(w, h->work, kept, out_port);
	h->free_from = kept;
	hand_phase(h, MPE_HAND_FREE);
	hand_free(w, &h->free_from, n, MPE_DROP_MAX); /* counted by run_stages */
}

/* Whether the next stage of a pipeline is down for good (its restarts spent): its input ring
 * has no consumer any more. */
static inline int
next_dead(const struct mpe_worker *w)
{
	return w->next_dead != NULL && unlikely(*w->next_dead);
}

/* A worker with an output ring: the survivors of work[0..n) go into it, the hand's
 * prod_mark saying which have gone; then what did not fit and the dropped are freed. What
 * would go to a next stage down for good is not sent, and counted worker_down. */
static inline void
enqueue_burst(struct mpe_worker *w, uint16_t n, uint16_t kept, uint16_t blocked)
{
	struct mpe_worker_hand *h = &w->slot->hand;

	h->kept = kept;
	/* counted in PROC: a death before ENQ takes them back with the rest of the burst */
	burst_drops(w, n - blocked - kept, blocked);
	enqueue_on(w, n, kept);
}

/* The survivors work[0..kept) go into the output ring (phase ENQ), then what did not fit and
 * work[kept..n), dropped and counted, are freed. */
static inline void
enqueue_on(struct mpe_worker *w, uint16_t n, uint16_t kept)
{
	struct mpe_worker_hand *h = &w->slot->hand;
	struct mpe_counters *cnt = w->cnt;
	uint16_t sent = 0;

	h->out_ring = w->nb_in > 0 ? w->out_of[w->in_idx] : 0;
	h->prod_mark = w->out->prod.tail;
	h->tx0 = cnt->tx;
	hand_phase(h, MPE_HAND_ENQ);
	if (!next_dead(w))
		sent = (uint16_t)rte_ring_sp_enqueue_burst(w->out, (void **)h->work, kept,
							     NULL);
	while (unlikely(sent < kept) && !next_dead(w) && keep_waiting(w)) {
		rte_pause();
		sent += (uint16_t)rte_ring_sp_enqueue_burst(w->out, (void **)h->work + sent,
							     kept - sent, NULL);
	}
	/* counted in ENQ: a death before FREE has the count set to tx0 + what is in the ring */
	cnt->tx += sent;
	h->free_from = sent;
	hand_phase(h, MPE_HAND_FREE);
	hand_free(w, &h->free_from, kept, next_dead(w) ? MPE_DROP_WORKER_DOWN : MPE_DROP_RING_FULL);
	hand_free(w, &h->free_from, n, MPE_DROP_MAX); /* counted by run_stages */
}

/* The packets of the next burst, still in the input ring from @head on (@avail of them, as
 * the dequeue found), were last written on another CPU (the producer's). Asking for their
 * lines now lets them travel while this burst is worked on. Reads the ring's slots, takes
 * nothing from it and reads none of its indices, whose lines the producer keeps reading: the
 * hand stays exact. The data line is taken at MPE_PKT_DATA_OFFSET, not read from the mbuf,
 * which has not arrived yet (a driver that receives elsewhere makes the prefetch useless,
 * nothing worse). */
static inline void
prefetch_ahead(const struct mpe_worker *w, uint32_t head, uint32_t avail)
{
	const struct rte_ring *r = w->in;
	void *const *slots = (void *const *)&r[1];
	uint32_t n = RTE_MIN(avail, (uint32_t)w->burst), i;

	for (i = 0; i < n; i++) {
		const char *m = slots[(head + i) & r->mask];

		/* the stages write the mbuf's lines (metadata; packet type, lengths, the
		 * private area when they decode) and only read the data */
		mpe_prefetch_w(m);
		mpe_prefetch_w(m + RTE_CACHE_LINE_SIZE);
		if (w->ahead_data) {
			mpe_prefetch_w(m + sizeof(struct rte_mbuf)); /* struct mpe_pkt_priv */
			rte_prefetch0(m + MPE_PKT_DATA_OFFSET);
		}
	}
}

/* Packets of the flows quarantine blocks (quarantine_table.h), where this worker takes them:
 * from the ports (they enter the engine here), or from a ring (they were queued before their
 * flow was blocked, perhaps for the very worker they killed). They are moved behind the
 * others in @pkts, marked for the recorder and counted per flow in this worker's row of hits;
 * returns how many. The caller frees them with what the stages drop, counted as quarantine
 * drops. Only while some flow is blocked. */
static __rte_noinline uint16_t
block_quarantined(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	struct mpe_quarantine *q = &w->shm->quar;
	const int off = w->shm->meta_offset;
	struct rte_mbuf *out[MPE_MAX_BURST];
	uint8_t buf[MPE_PKT_HEAD_MAX];
	uint16_t i, kept = 0, nb = 0;
	uint32_t cap;
	int f;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const void *head = mpe_pkt_head(m, buf, &cap);

		f = mpe_quarantine_match(q, head, cap);
		if (f < 0) {
			pkts[kept++] = m;
			continue;
		}
		mpe_undo_add(w->undo, &q->hits[MPE_QUARANTINE_SITE_WORKER(w->id)][f], 1);
		mpe_meta(m, off)->drop_stage = MPE_META_BLOCKED;
		out[nb++] = m;
	}
	memcpy(pkts + kept, out, nb * sizeof(out[0]));
	return nb;
}

/* The burst work[0..n) in PROC, taken from @in_port (MPE_PORT_NONE: a ring): the packets of
 * blocked flows go behind the others, out of the stages' reach; the stages run; the burst is
 * recorded, then handed on (transmitted, or put into the output ring). */
static __rte_always_inline void
stages_and_on(struct mpe_worker *w, uint16_t n, uint16_t in_port)
{
	struct mpe_worker_hand *h = &w->slot->hand;
	uint16_t kept, out_port, blocked = 0;

	if (unlikely(w->shm->quar.blocked != 0))
		blocked = block_quarantined(w, h->work, n);
	kept = run_stages(w, h->work, n - blocked, in_port, &out_port);
	rec_write(w, h->pkts, n);
	if (w->out == NULL)
		transmit_burst(w, n, kept, out_port, blocked);
	else
		enqueue_burst(w, n, kept, blocked);
}

/* Input ring @k from now on (and the output its packets go to). In phase DEQ, with no dequeue
 * under way: every input's cons_mark is its consumer tail, so the hand is exact on either
 * side of the store. */
static inline void
use_input(struct mpe_worker *w, unsigned int k)
{
	w->in_idx = (uint8_t)k;
	w->in = w->ins[k];
	if (w->nb_out > 0)
		w->out = w->outs[w->out_of[k]];
	w->slot->hand.in_ring = k;
	rte_compiler_barrier(); /* before the dequeue that moves the ring's head */
}

/* Several input rings (one per I/O lcore that receives): polled in turn, a burst each. */
static inline void
next_input(struct mpe_worker *w)
{
	if (w->nb_in > 1)
		use_input(w, w->in_idx + 1U == w->nb_in ? 0 : w->in_idx + 1U);
}

/* Ring shape: one burst from the input ring to the output ring, with the hand in shared
 * memory kept exact at every step (see enum mpe_hand_phase). */
static inline uint16_t
burst_rings(struct mpe_worker *w)
{
	struct mpe_worker_hand *h = &w->slot->hand;
	struct mpe_counters *cnt = w->cnt;
	uint16_t n, i;
	uint32_t bytes = 0;
	unsigned int avail;

	/* phase is DEQ and cons_mark[in_idx] is the input's cons.tail: only this dequeue moves
	 * it */
	n = (uint16_t)rte_ring_sc_dequeue_burst(w->in, (void **)h->pkts, w->burst, &avail);
	if (n == 0) {
		next_input(w);
		return 0;
	}
	h->n = n;
	mpe_undo_reset(w->undo);
	hand_phase(h, MPE_HAND_PROC);
	prefetch_ahead(w, h->cons_mark[w->in_idx] + n, avail);
	for (i = 0; i < n; i++) {
		h->work[i] = h->pkts[i];
		bytes += rte_pktmbuf_pkt_len(h->pkts[i]);
	}
	mpe_undo_add(w->undo, &cnt->rx, n);
	mpe_undo_add(w->undo, &cnt->rx_bytes, bytes);
	mpe_undo_add(w->undo, &cnt->bursts, 1);
	/* packets of flows blocked while they were queued for this worker are held back there */
	stages_and_on(w, n, MPE_PORT_NONE);
	h->cons_mark[w->in_idx] += n; /* the input's cons.tail now, without a look at its line */
	hand_phase_release(h, MPE_HAND_DEQ);
	next_input(w);
	return n;
}

/* A worker that transmits: runs of packets that go to the same port leave on this worker's
 * queue of that port, all of @pkts in one run when the stages said where (@out_port, else
 * MPE_PORT_NONE: each packet's out_port is looked at). The hand's `done` says how many
 * entries of @pkts have left (sent, or counted and freed). */
static inline void
send_ports(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t n, uint16_t out_port)
{
	const struct mpe_conf *conf = &w->shm->conf;
	struct mpe_worker_hand *h = &w->slot->hand;
	struct mpe_counters *cnt = w->cnt;
	int off = w->shm->meta_offset;
	uint16_t i = 0;

	while (i < n) {
		uint16_t out = out_port, j = n, sent = 0, k;

		if (out == MPE_PORT_NONE) {
			out = mpe_meta(pkts[i], off)->out_port;
			for (j = i + 1; j < n && mpe_meta(pkts[j], off)->out_port == out; j++)
				;
		}
		if (unlikely(out >= conf->nb_ports)) {
			hand_free(w, &h->done, j, MPE_DROP_NO_ROUTE); /* done is i */
			i = j;
			continue;
		}
		h->dev_end = j;
		for (;;) {
			mpe_pool_dev_enter_all(&h->put, w->pool_refs, w->nb_pools,
					       h->cache_len0);
			h->dev_start = i + sent;
			h->dev_cnt0 = cnt->tx;
			hand_phase(h, MPE_HAND_DEV);
			k = rte_eth_tx_burst(conf->ports[out].port_id, w->queue, pkts + i + sent,
					     j - i - sent);
			/* counted first: from here on the primary knows the call returned */
			cnt->tx += k;
			rte_compiler_barrier();
			h->done = i + sent + k;
			/* with a barrier behind: the next call's dev_start and dev_cnt0 come after */
			hand_phase(h, MPE_HAND_TX);
			sent += k;
			if (sent == j - i)
				break;
			/* a full queue: retry while it takes packets, or wait (backpressure) */
			if (k == 0) {
				if (!keep_waiting(w))
					break;
				rte_pause();
			}
		}
		hand_free(w, &h->done, j, MPE_DROP_TX_FULL); /* done is i + sent */
		i = j;
	}
}

/* rss: copies of the packets a mirror rule matched, sent on this worker's queue of the
 * mirror port before the packets themselves leave. A copy is never waited for: what the
 * port cannot take is counted (mirror_drops), never retried. */
static __rte_noinline void
mirror_ports(struct mpe_worker *w, struct rte_mbuf **pkts, uint16_t n)
{
	const struct mpe_conf *conf = &w->shm->conf;
	struct mpe_inspect_counters *in = &w->slot->insp;
	struct mpe_worker_hand *h = &w->slot->hand;
	struct rte_mbuf *copies[MPE_MAX_BURST];
	int off = w->shm->meta_offset;
	uint16_t i, nc = 0, sent;

	for (i = 0; i < n; i++) {
		const struct mpe_pool_ref *ref;
		struct rte_mbuf *c;

		if (!(mpe_meta(pkts[i], off)->flags & MPE_META_MIRROR))
			continue;
		/* from the packet's own pool (pools = port: a port's traffic takes no other
		 * port's mbufs); the copy allocates with DPDK's get */
		ref = mpe_pool_ref_of(w->pool_refs, w->nb_pools, pkts[i]->pool);
		if (ref == NULL)
			ref = &w->pool_refs[0];
		mpe_pool_rx_enter(&h->put, ref);
		c = rte_pktmbuf_copy(pkts[i], ref->mp, 0, UINT32_MAX);
		if (c == NULL)
			in->mirror_drops++;
		else
			copies[nc++] = c;
	}
	if (nc == 0)
		return;
	/* a device call, with none of the burst in it, counted elsewhere than tx */
	h->dev_start = h->done;
	h->dev_end = h->done;
	h->dev_cnt0 = w->cnt->tx;
	mpe_pool_dev_enter_all(&h->put, w->pool_refs, w->nb_pools, h->cache_len0);
	hand_phase(h, MPE_HAND_DEV);
	sent = rte_eth_tx_burst(conf->ports[conf->mirror_port].port_id, w->queue, copies, nc);
	hand_phase(h, MPE_HAND_TX);
	in->mirrored += sent;
	if (sent < nc) {
		uint32_t from = sent;

		/* copies are in no hand: a death here returns only the put under way */
		mpe_pool_free(&w->slot->hand.put, w->pool_refs, w->nb_pools, copies, &from, nc);
		in->mirror_drops += nc - sent;
	}
}

/* A worker polling the ports (rss; a pipeline's first worker with rx = workers): one burst
 * from its queue of the next port that has packets, transmitted or put into its output ring.
 * A worker that dies inside a transmit call that has not returned leaves the fate of what it
 * gave the driver unknown (counted in_doubt); anywhere else the primary reclaims what it held. */
static inline uint16_t
burst_ports(struct mpe_worker *w, unsigned int *next)
{
	const struct mpe_conf *conf = &w->shm->conf;
	struct mpe_worker_hand *h = &w->slot->hand;
	struct mpe_counters *cnt = w->cnt;
	const int off = w->shm->meta_offset;
	uint16_t n = 0, i, port = 0;
	uint32_t bytes = 0;
	unsigned int k;

	if (w->shm->run_state != MPE_RUN_ACTIVE)
		return 0;
	/* The last burst's n and kept must be gone before DEV is published: recovery in DEV
	 * frees work[kept..n), mbufs that burst has already freed. The phase before is FREE,
	 * IDLE or an empty DEV, in which recovery frees nothing. */
	h->n = 0;
	h->kept = 0;
	h->done = 0;
	h->dev_cnt0 = cnt->rx;
	/* a receive only takes from the cache (DPDK's get leaves no stale entry): no room to
	 * make, no length to record */
	hand_phase(h, MPE_HAND_DEV);
	/* round robin over the ports from the one after the last that had packets */
	for (k = 0, i = *next; k < w->nb_rx_ports && n == 0; k++) {
		port = w->rx_ports[i];
		h->rx_port = port; /* a burst carried to a replacement is metadata-less */
		/* a cache too short for the call would be refilled by DPDK, whose dequeue from
		 * the pool's ring cannot be finished after a death */
		mpe_pool_rx_enter(&h->put, &w->pool_refs[w->rx_pool[port]]);
		rte_compiler_barrier();
		n = rte_eth_rx_burst(conf->ports[port].port_id, w->rx_queue, h->pkts, w->burst);
		if (++i == w->nb_rx_ports)
			i = 0;
	}
	if (n == 0)
		return 0;
	/* the burst is in hand at once: a death from here on is recovered, not unknown (the rx
	 * counter past dev_cnt0 tells the primary the call returned, and n before n is set) */
	cnt->rx += n;
	rte_compiler_barrier();
	h->n = n;
	mpe_undo_reset(w->undo);
	hand_phase(h, MPE_HAND_PROC);
	*next = i;
	/* one pass over the burst: metadata, bytes, the working copy of the pointers; and the
	 * frame's first line on its way, for the recorder, where no stage may read it */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = h->pkts[i];

		if (w->rec != NULL)
			rte_prefetch0(rte_pktmbuf_mtod(m, void *));
		mpe_meta_init(mpe_meta(m, off), port);
		bytes += rte_pktmbuf_pkt_len(m);
		h->work[i] = m;
	}
	mpe_undo_add(w->undo, &cnt->rx_bytes, bytes);
	mpe_undo_add(w->undo, &cnt->bursts, 1);
	stages_and_on(w, n, port);
	return n;
}

/* This instance's first burst: the end of the outage its start closes (docs/standby.md). */
static __rte_noinline void
first_move(struct mpe_worker *w)
{
	w->slot->status.first_move_tsc = rte_rdtsc();
	w->moved = 1;
}

/* The burst a killed predecessor held, left in the hand by the primary (phase CARRY,
 * docs/recovery.md#a-burst-carried-to-the-replacement): before anything new is taken, so that
 * its flows keep their order. MPE_CARRY_RUN: pkts[0..n) as a new burst, from the first stage
 * (the books hold nothing of it: the primary put them back; a polling worker's rx counted it
 * already); MPE_CARRY_SEND: work[0..kept) sent on, work[kept..n) freed (both counted). */
static __rte_noinline void
carry_run(struct mpe_worker *w)
{
	struct mpe_worker_hand *h = &w->slot->hand;
	struct mpe_counters *cnt = w->cnt;
	const int off = w->shm->meta_offset;
	const uint16_t port = w->ports_in ? (uint16_t)h->rx_port : MPE_PORT_NONE;
	uint16_t n = (uint16_t)RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST), kept, i;
	uint32_t bytes = 0;

	/* a death from here to the end is not carried again (the primary clears it) */
	h->rerun = 1;
	rte_compiler_barrier();
	/* from where it came, to where it was going */
	if (w->nb_in > 0)
		use_input(w, h->in_ring < w->nb_in ? h->in_ring : 0);
	if (h->carry == MPE_CARRY_SEND) {
		kept = (uint16_t)RTE_MIN(h->kept, (uint32_t)n);
		if (w->nb_out > 0)
			w->out = w->outs[h->out_ring < w->nb_out ? h->out_ring : 0];
		if (w->out == NULL) {
			h->done = 0;
			hand_phase(h, MPE_HAND_TX);
			transmit_on(w, n, kept, MPE_PORT_NONE);
		} else {
			enqueue_on(w, n, kept);
		}
		rte_compiler_barrier();
		h->rerun = 0;
		MPE_LOG(INFO, worker, "worker %u: %u packets its predecessor held sent on", w->id,
			kept);
		return;
	}
	w->now = rte_rdtsc();
	w->timed = 0;
	mpe_undo_reset(w->undo);
	hand_phase(h, MPE_HAND_PROC);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = h->pkts[i];

		if (port != MPE_PORT_NONE)
			mpe_meta_init(mpe_meta(m, off), port);
		else
			mpe_meta(m, off)->drop_stage = 0; /* the recorder's, of the first run */
		bytes += rte_pktmbuf_pkt_len(m);
		h->work[i] = m;
	}
	if (port == MPE_PORT_NONE)
		mpe_undo_add(w->undo, &cnt->rx, n);
	mpe_undo_add(w->undo, &cnt->rx_bytes, bytes);
	mpe_undo_add(w->undo, &cnt->bursts, 1);
	stages_and_on(w, n, port);
	rte_compiler_barrier();
	h->rerun = 0;
	MPE_LOG(INFO, worker, "worker %u: the %u packets its predecessor held run again", w->id,
		n);
}

/* The loop, specialised by the constant @ports_in. */
static __rte_always_inline void
worker_loop(struct mpe_worker *w, const int ports_in)
{
	struct mpe_worker_slot *slot = w->slot;
	struct mpe_counters *cnt = w->cnt;
	struct loop_clock clk = {0};
	unsigned int next_port = 0;

	slot->hand.stage = w->nb_stages; /* in no stage */
	if (unlikely(slot->hand.phase == MPE_HAND_CARRY)) {
		carry_run(w);
		first_move(w);
	}
	if (!ports_in) {
		unsigned int k;

		for (k = 0; k < w->nb_in; k++)
			slot->hand.cons_mark[k] = w->ins[k]->cons.tail;
		use_input(w, 0);
		hand_phase_release(&slot->hand, MPE_HAND_DEQ);
	}
	w->countdown = 0; /* the first non-empty burst is timed */
	while (likely(!should_stop(w))) {
		uint16_t n;

		sample_begin(w, &clk);
		slot->status.heartbeat++;
		cnt->polls++;
		if (unlikely(clk.now >= w->primary_check_tsc))
			check_primary(w, clk.now);
		/* also set by a wait for room inside the burst */
		if (unlikely(w->primary_gone == PRIMARY_GONE))
			break;
		n = ports_in ? burst_ports(w, &next_port) : burst_rings(w);
		if (n > 0) {
			sample_busy(w, cnt, &clk);
			if (unlikely(!w->moved))
				first_move(w);
		} else {
			sample_idle(cnt, &clk);
			if (unlikely(w->yield_idle))
				sched_yield(); /* a poller sharing the CPU has work, perhaps */
		}
		/* holds no rule set from here to the next burst */
		rte_rcu_qsbr_quiescent(w->shm->qsbr, w->id);
	}
	hand_phase_release(&slot->hand, MPE_HAND_IDLE);
}

/* Hot, or GCC compiles the loop for size, unaligned, among the cold code: rte_log() is
 * declared cold, and every path from here on in mpe_worker_main() ends in a log line, so
 * its guessed profile takes the calls below (and all they call) as never executed. */
static __rte_noinline __rte_hot void
loop_rings(struct mpe_worker *w)
{
	worker_loop(w, 0);
}

static __rte_noinline __rte_hot void
loop_ports(struct mpe_worker *w)
{
	worker_loop(w, 1);
}

int
mpe_worker_main(void *arg)
{
	struct mpe_worker *w = arg;
	struct mpe_worker_status *st = &w->slot->status;

	st->lcore = rte_lcore_id();
	st->first_move_tsc = 0;
	w->primary_beat_seen = w->shm->primary_heartbeat;
	w->primary_check_tsc = rte_rdtsc() + w->shm->tsc_hz / PRIMARY_CHECK_PER_S;
	rte_rcu_qsbr_thread_register(w->shm->qsbr, w->id);
	rte_rcu_qsbr_thread_online(w->shm->qsbr, w->id);
	st->state = MPE_WORKER_RUNNING;
	MPE_LOG(INFO, worker, "worker %u: running on lcore %u (%s)", w->id, st->lcore,
		w->ports_in ? "port queues" : "rings");
	MPE_LOG(DEBUG, worker, "worker %u: burst %u, %u stages, input %s, output %s, "
		"backpressure %s", w->id, w->burst, w->nb_stages,
		w->ports_in ? "port queues" : w->in->name,
		w->out == NULL ? "port queues" : w->out->name, w->backpressure ? "on" : "off");
	if (w->ports_in)
		loop_ports(w);
	else
		loop_rings(w);
	rte_rcu_qsbr_thread_offline(w->shm->qsbr, w->id);
	if (w->primary_gone == PRIMARY_GONE) {
		MPE_LOG(ERR, worker, "worker %u: primary (pid %d) is gone: exiting", w->id,
			w->shm->primary_pid);
		return -ESRCH;
	}
	if (mpe_worker_left_on_signal(w))
		MPE_LOG(WARNING, worker, "worker %u: %s while the engine runs: leaving after %"
			PRIu64 " packets; the primary takes this for a death", w->id,
			mpe_worker_signal_name(mpe_worker_stop_requested), w->cnt->rx);
	else
		MPE_LOG(INFO, worker, "worker %u: stopped after %" PRIu64 " packets", w->id,
			w->cnt->rx);
	return 0;
}
