/* SPDX-License-Identifier: BSD-3-Clause */
/* Recovery of a dead worker's shared state, run by the primary after the worker is gone:
 * the half-done side of its rings is rolled back, the mbufs it held (its hand, see
 * enum mpe_hand_phase) go back to the pool and are counted, and its lcore's mempool cache is
 * flushed. Nothing else touches these: the dead worker was their only user on that side
 * (single-producer/single-consumer rings, one lcore id per worker). The pool's own ring is
 * the exception: it is multi-producer/multi-consumer, and is checked before it is touched.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "context.h"
#include "log.h"
#include "names.h"
#include "objects.h"
#include "recover.h"
#include "worker.h"

/* The worker's input and output rings (none in the rss shape; no input ring when the worker
 * polls the ports itself, no output ring when it transmits itself). */
static int
worker_rings(const struct mpe_conf *conf, unsigned int id, unsigned int in_ring,
	     unsigned int out_ring, struct rte_ring **in, struct rte_ring **out)
{
	char name[RTE_RING_NAMESIZE];
	int from[MPE_MAX_IO], to[MPE_MAX_IO];
	unsigned int nb_in, nb_out;
	uint8_t out_of[MPE_MAX_IO];

	if (conf->shape == MPE_SHAPE_RSS)
		return -ENOTSUP;
	mpe_names_worker_rings(conf, id, from, &nb_in, to, &nb_out, out_of);
	/* a hand that names a ring the worker does not have is not trusted */
	if ((nb_in > 0 && in_ring >= nb_in) || (nb_out > 0 && out_ring >= nb_out))
		return -EINVAL;
	*in = *out = NULL;
	if (nb_in > 0) {
		mpe_names_ring(name, sizeof(name), from[in_ring], (int)id);
		*in = rte_ring_lookup(name);
	}
	if (nb_out > 0) {
		mpe_names_ring(name, sizeof(name), (int)id, to[out_ring]);
		*out = rte_ring_lookup(name);
	}
	if ((*in == NULL && nb_in > 0) || (*out == NULL && nb_out > 0))
		return -ENOENT;
	return 0;
}

/* Every input ring of worker @id, into @in (MPE_MAX_IO); how many. */
static unsigned int
worker_inputs(const struct mpe_conf *conf, unsigned int id, struct rte_ring **in)
{
	char name[RTE_RING_NAMESIZE];
	int from[MPE_MAX_IO], to[MPE_MAX_IO];
	unsigned int nb_in, nb_out, i, n = 0;
	uint8_t out_of[MPE_MAX_IO];

	mpe_names_worker_rings(conf, id, from, &nb_in, to, &nb_out, out_of);
	for (i = 0; i < nb_in; i++) {
		mpe_names_ring(name, sizeof(name), from[i], (int)id);
		in[n] = rte_ring_lookup(name);
		n += in[n] != NULL;
	}
	return n;
}

/* A consumer that died between moving head and tail: its dequeue never happened. */
static void
rollback_cons(struct rte_ring *r)
{
	if (r->cons.head != r->cons.tail)
		r->cons.head = r->cons.tail;
}

static void
rollback_prod(struct rte_ring *r)
{
	if (r->prod.head != r->prod.tail)
		r->prod.head = r->prod.tail;
}

/* The put to the pool the worker left under way: its objects are no longer in its hand. */
struct put_left {
	void *const *objs;
	uint32_t n;
};

static void
free_range(const struct put_left *put, struct rte_mbuf **pkts, uint32_t from, uint32_t to)
{
	if (to > from)
		mpe_pool_free_except(pkts, from, to, put->objs, put->n);
}

/* A free of work[*from..free_end) the worker had under way (hand_free): the rest of it goes
 * back to the pool, and it is counted once under its drop reason. */
static void
finish_free(struct mpe_primary *p, unsigned int id, const struct put_left *put,
	    struct mpe_worker_hand *h, uint32_t *from)
{
	struct mpe_counters *cnt = MPE_SHM_WORKER_CNT(p->shm, id);
	uint32_t end = RTE_MIN(h->free_end, (uint32_t)MPE_MAX_BURST);

	if (!h->free_armed)
		return;
	if (*from < end)
		free_range(put, h->work, *from, end);
	if (h->free_why < MPE_DROP_MAX && cnt->drops[h->free_why] != h->free_count)
		cnt->drops[h->free_why] = h->free_count;
	*from = RTE_MAX(*from, end);
	h->free_armed = 0;
}

/* A worker that died freeing what it did not send (hand_free, phase FREE): work[free_from..n)
 * still in its hand, of which work[free_from..kept) are survivors, not counted yet (a ring
 * that stayed full); the rest its stages dropped, counted already. Returns how many it lost. */
static uint32_t
recover_free(struct mpe_primary *p, unsigned int id, const struct put_left *put,
	     struct mpe_worker_hand *h)
{
	uint32_t n = RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST);

	finish_free(p, id, put, h, &h->free_from);
	if (h->free_from >= n)
		return 0;
	free_range(put, h->work, h->free_from, n);
	return h->kept > h->free_from ? h->kept - h->free_from : 0;
}

/* A carried burst (phase CARRY) reclaimed: RUN holds pkts[0..n), none counted anywhere;
 * SEND work[0..n), of which work[kept..n) are counted dropped already. Returns the lost. */
static uint32_t
carried_free(const struct put_left *put, struct mpe_worker_hand *h)
{
	uint32_t n = RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST);

	if (h->carry == MPE_CARRY_SEND) {
		free_range(put, h->work, 0, n);
		return RTE_MIN(h->kept, n);
	}
	free_range(put, h->pkts, 0, n);
	return n;
}

/* Whether a worker that died in phase DEV was inside a receive that had returned its burst
 * (n stored, PROC not yet): a transmit call always has survivors in it (kept >= 1), a
 * receive starts from kept = 0. */
static int
dev_received(const struct mpe_worker_hand *h)
{
	return h->phase == MPE_HAND_DEV && h->n != 0 && h->kept == 0;
}

/* A worker that died in phase DEV after the device call returned: the worker counts what the
 * call returned (rx or tx) before its hand says so, so a counter past dev_cnt0 is a call that
 * returned, and how much. The hand is brought to where the worker would have taken it: a
 * receive's n set, a transmit's done moved and the phase TX (those packets are counted out,
 * not in doubt). A counter that did not move leaves the call in doubt. */
static void
dev_settle(struct mpe_primary *p, unsigned int id, struct mpe_worker_hand *h)
{
	const struct mpe_counters *cnt = MPE_SHM_WORKER_CNT(p->shm, id);
	uint64_t moved;

	if (h->phase != MPE_HAND_DEV)
		return;
	if (h->kept == 0) {
		moved = cnt->rx - h->dev_cnt0;
		if (h->n == 0 && moved != 0 && moved <= MPE_MAX_BURST)
			h->n = (uint32_t)moved;
		return;
	}
	moved = cnt->tx - h->dev_cnt0;
	if (moved == 0 || h->dev_start + moved > h->dev_end) {
		if (moved != 0)
			MPE_LOG(ERR, engine, "worker %u: its tx counter moved %" PRIu64 " in a "
				"transmit call of %u packets", id, moved,
				h->dev_end - h->dev_start);
		return;
	}
	h->done = h->dev_start + (uint32_t)moved;
	h->phase = MPE_HAND_TX;
}

/* A worker that polls or transmits on device queues itself. Past PROC, the packets its
 * stages dropped (work[kept..n)) are already counted as verdict drops, only not yet freed:
 * they are freed here and not counted again. */
static uint32_t
recover_ports(struct mpe_primary *p, unsigned int id, const struct put_left *put,
	      struct mpe_worker_hand *h)
{
	uint32_t n = RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST);
	uint32_t kept = RTE_MIN(h->kept, n), dev_end;

	switch (h->phase) {
	case MPE_HAND_PROC:
		free_range(put, h->pkts, 0, n);
		return n;
	case MPE_HAND_CARRY:
		return carried_free(put, h);
	case MPE_HAND_TX:
		finish_free(p, id, put, h, &h->done);
		if (h->done > kept)
			return 0;
		free_range(put, h->work, h->done, n);
		return kept - h->done;
	case MPE_HAND_FREE:
		return recover_free(p, id, put, h);
	case MPE_HAND_DEV:
		/* rx: nothing in hand (n 0), or the burst just received in pkts[0..n), before
		 * PROC: work[] still has the burst before, already gone. tx: work[done..dev_end)
		 * are in the driver's hands, the rest of the survivors never reached it */
		if (dev_received(h)) {
			free_range(put, h->pkts, 0, n);
			return n;
		}
		if (h->n == 0 || h->done > kept)
			return 0;
		dev_end = RTE_MIN(RTE_MAX(h->dev_end, h->done), kept);
		if (h->done < dev_end) {
			MPE_LOG(WARNING, engine, "worker %u: died inside a transmit call with %u "
				"packets: their fate is unknown (in_doubt), their mbufs are left "
				"alone", id, dev_end - h->done);
			p->shm->workers[id].ctl.in_doubt += dev_end - h->done;
		}
		free_range(put, h->work, dev_end, n);
		return kept - dev_end;
	default:
		return 0;
	}
}

/* A death in ENQ: the @sent packets already in the output ring are counted tx, whether or
 * not the worker got to count them (tx0: its tx counter before the enqueue). */
static void
enq_count(struct mpe_primary *p, unsigned int id, const struct mpe_worker_hand *h,
	  uint32_t sent)
{
	MPE_SHM_WORKER_CNT(p->shm, id)->tx = h->tx0 + sent;
}

/* The hand keeps work[from..n) for the replacement to send on, moved to the front. */
static uint32_t
carry_send(struct mpe_worker_hand *h, uint32_t from)
{
	uint32_t n = h->n;

	memmove(h->work, h->work + from, (n - from) * sizeof(h->work[0]));
	h->n = n - from;
	h->kept -= from;
	h->carry = MPE_CARRY_SEND;
	return h->kept;
}

/* What the replacement can finish exactly of the burst worker @id held, left in its hand:
 * packets taken from its input ring (DEQ) or in its stages (PROC, once undone: see
 * mpe_recover_undo) or received (DEV, the call returned) run again from the first stage;
 * survivors not yet in the output ring (ENQ, or held back by a full one: FREE) or not yet
 * transmitted (TX; DEV: those after the call it died in, whose own packets stay in doubt)
 * are sent on. Returns the packets carried; 0 leaves the hand to be recovered as before
 * (what this did to it, a ring rolled back or a free finished, that recovery does again
 * harmlessly). @in, @out: its rings, NULL where it has none. */
static uint32_t
carry_hand(struct mpe_primary *p, unsigned int id, const struct put_left *put,
	   struct mpe_worker_hand *h, struct rte_ring *in, struct rte_ring *out)
{
	uint32_t n = h->n, kept = h->kept, taken, sent, end;

	if (n > MPE_MAX_BURST)
		return 0;
	/* a carried burst gets one rerun: one that hangs or kills its worker again is not
	 * carried once more */
	if (h->rerun) {
		MPE_LOG(WARNING, engine, "worker %u: died finishing the burst its predecessor "
			"held: that burst is not carried again", id);
		return 0;
	}
	/* kept is the last burst's until the stages are done with this one */
	if (kept > n && h->phase != MPE_HAND_DEQ && h->phase != MPE_HAND_PROC &&
	    !dev_received(h) && !(h->phase == MPE_HAND_CARRY && h->carry == MPE_CARRY_RUN))
		return 0;
	switch (h->phase) {
	case MPE_HAND_CARRY: /* its replacement died before it ran the burst */
		return h->carry == MPE_CARRY_SEND ? kept : n;
	case MPE_HAND_DEQ:
		if (in == NULL)
			return 0;
		rollback_cons(in);
		taken = in->cons.tail - h->cons_mark[h->in_ring];
		if (taken == 0 || taken > MPE_MAX_BURST)
			return 0;
		h->n = taken;
		h->carry = MPE_CARRY_RUN;
		return taken;
	case MPE_HAND_PROC:
		if (n == 0 || h->undo.n != 0) /* not put back: the burst cannot run again */
			return 0;
		h->carry = MPE_CARRY_RUN;
		return n;
	case MPE_HAND_ENQ:
		if (out == NULL)
			return 0;
		rollback_prod(out);
		sent = out->prod.tail - h->prod_mark;
		if (sent > kept)
			return 0;
		enq_count(p, id, h, sent);
		return sent < kept ? carry_send(h, sent) : 0;
	case MPE_HAND_FREE:
		finish_free(p, id, put, h, &h->free_from);
		return h->free_from < kept ? carry_send(h, h->free_from) : 0;
	case MPE_HAND_TX:
		finish_free(p, id, put, h, &h->done);
		return h->done < kept ? carry_send(h, h->done) : 0;
	case MPE_HAND_DEV:
		if (dev_received(h)) {
			h->carry = MPE_CARRY_RUN;
			return n;
		}
		if (n == 0 || h->done > kept)
			return 0;
		end = RTE_MIN(RTE_MAX(h->dev_end, h->done), kept);
		if (end >= kept)
			return 0;
		if (h->done < end) {
			MPE_LOG(WARNING, engine, "worker %u: died inside a transmit call with %u "
				"packets: their fate is unknown (in_doubt), their mbufs are left "
				"alone", id, end - h->done);
			p->shm->workers[id].ctl.in_doubt += end - h->done;
		}
		return carry_send(h, end);
	default:
		return 0;
	}
}

int
mpe_recover_undo(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_hand *h = &p->shm->workers[id].hand;
	uint32_t n = h->undo.n, i;

	if (p->shm->worker_model != 0 || h->phase != MPE_HAND_PROC || n == 0)
		return 0;
	if (n > MPE_UNDO_MAX) {
		MPE_LOG(WARNING, engine, "worker %u: the undo log of its burst overflowed: what "
			"the burst counted stays counted", id);
		return -ENOSPC;
	}
	/* every entry points at an aligned counter in DPDK memory, or none is trusted */
	for (i = 0; i < n; i++) {
		const struct mpe_undo_entry *e = &h->undo.e[i];

		if (((uintptr_t)e->at & (sizeof(uint64_t) - 1)) != 0 ||
		    rte_mem_virt2memseg_list(e->at) == NULL) {
			MPE_LOG(ERR, engine, "worker %u: its undo log points outside shared memory "
				"(entry %u of %u): nothing put back", id, i, n);
			return -EFAULT;
		}
	}
	for (i = n; i-- > 0;)
		*h->undo.e[i].at = h->undo.e[i].old;
	h->undo.n = 0;
	return (int)n;
}

unsigned int
mpe_recover_carried_drop(struct mpe_primary *p, unsigned int id, enum mpe_drop why)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	struct mpe_worker_hand *h = &slot->hand;
	const struct put_left none = {0};
	uint32_t lost;

	if (h->phase != MPE_HAND_CARRY)
		return 0;
	lost = carried_free(&none, h);
	h->phase = MPE_HAND_IDLE;
	h->n = 0;
	h->rerun = 0;
	slot->ctl.lost += lost;
	p->shm->sup.drops[why] += lost;
	return lost;
}

/* How long one side of the pool's ring may keep head and tail apart, its tail not moving,
 * before it counts as left half done by a dead process. A live producer or consumer closes
 * the gap within microseconds, unless the scheduler preempts it in between: on a CPU shared
 * by several pollers that lasts a few scheduling periods, far less than this. */
#define POOL_STUCK_MS 250

/* One side of a ring: live once its head and tail meet or its tail moves. */
struct side_watch {
	const struct rte_ring_headtail *ht;
	uint32_t tail0;
	int live;
};

static void
side_look(struct side_watch *s)
{
	uint32_t head = __atomic_load_n(&s->ht->head, __ATOMIC_ACQUIRE);
	uint32_t tail = __atomic_load_n(&s->ht->tail, __ATOMIC_ACQUIRE);

	if (head == tail || tail != s->tail0)
		s->live = 1;
}

/* A process that died inside an enqueue to or a dequeue from the pool's ring, between moving
 * the head and moving the tail, leaves every later user of that side spinning for ever; the
 * flush of the dead worker's cache and the freeing of its mbufs would be such users. 1 (and
 * what was seen in @why) when one side stays apart with its tail still for POOL_STUCK_MS. */
int
mpe_recover_pool_stuck(struct rte_mempool *mp, char *why, size_t size)
{
	const struct rte_mempool_ops *ops = rte_mempool_get_ops(mp->ops_index);
	const struct rte_ring *r = mp->pool_data;
	uint64_t end = rte_get_timer_cycles() + rte_get_timer_hz() * POOL_STUCK_MS / 1000;
	struct side_watch prod, cons;

	/* the ring drivers (ring_mp_mc and the like) keep an rte_ring in pool_data */
	if (strncmp(ops->name, "ring_", 5) != 0 || r == NULL)
		return 0;
	prod = (struct side_watch){.ht = &r->prod, .tail0 = r->prod.tail};
	cons = (struct side_watch){.ht = &r->cons, .tail0 = r->cons.tail};
	for (;;) {
		side_look(&prod);
		side_look(&cons);
		if (prod.live && cons.live)
			return 0;
		if (rte_get_timer_cycles() >= end)
			break;
		rte_delay_us_sleep(1000);
	}
	snprintf(why, size, "the %s of mempool %s's ring (%s) was left half done: head %u, "
		 "tail %u, unchanged for %u ms", !prod.live ? "enqueue" : "dequeue", mp->name,
		 ops->name, !prod.live ? r->prod.head : r->cons.head,
		 !prod.live ? r->prod.tail : r->cons.tail, POOL_STUCK_MS);
	return 1;
}

/* @ref: worker @id's way to pool @k (out of range: the first), as the worker had it. */
static struct rte_mempool *
worker_ref(const struct mpe_primary *p, unsigned int id, uint32_t k, struct mpe_pool_ref *ref)
{
	if (k >= p->shm->nb_pools)
		k = 0;
	mpe_pool_ref_init(ref, p->pools[k], k, p->shm->workers[id].ctl.lcore,
			  p->shm->conf.burst);
	return p->pools[k];
}

/* Any pool's ring left half done (mpe_recover_pool_stuck), what was seen in @why. */
static int
pools_stuck(const struct mpe_primary *p, char *why, size_t size)
{
	unsigned int k;

	for (k = 0; k < p->shm->nb_pools; k++)
		if (mpe_recover_pool_stuck(p->pools[k], why, size))
			return 1;
	return 0;
}

/* How long the slots of a dead worker, finished for the recovery of another, may wait for
 * earlier slots: those of other dead workers, finished in a later pass, or of live ones,
 * done in microseconds. */
#define OTHER_DEAD_WAIT_MS 20

/* Whether worker @j's process is gone (dead or a zombie), though not recovered yet (its
 * recovery clears its put). */
static int
gone_unrecovered(const struct mpe_primary *p, unsigned int j)
{
	const struct mpe_worker_slot *slot = &p->shm->workers[j];
	pid_t pid = p->pids[j] > 0 ? p->pids[j] : p->no_spawn ? slot->status.pid : 0;

	return pid > 0 && mpe_worker_process_gone(pid);
}

/* Two workers dead inside operations on the pool's ring, the later one's recovery first: its
 * slots wait for the earlier one's, which no one finishes. Finish, here, the slots other dead
 * workers reserved and recorded, in passes until one finishes nothing (a chain of them is
 * finished in whatever order); what their puts still hold is left for their own recovery
 * (HELD: put back then, and kept out of what their hands free). Returns how many were
 * finished. */
static unsigned int
finish_other_dead(struct mpe_primary *p, unsigned int id)
{
	unsigned int j, done = 0, pass;

	do {
		pass = 0;
		for (j = 0; j < p->shm->conf.nb_workers; j++) {
			struct mpe_pool_put *pp = &p->shm->workers[j].hand.put;
			struct mpe_pool_finish fin;
			struct mpe_pool_ref ref;
			uint32_t state;

			/* gone first: a live worker's hand may change under the look */
			if (j == id || !gone_unrecovered(p, j))
				continue;
			state = __atomic_load_n(&pp->state, __ATOMIC_ACQUIRE);
			if (!pp->head_set || (state != MPE_PUT_FLUSH && state != MPE_PUT_RING &&
					      state != MPE_PUT_FILL))
				continue;
			worker_ref(p, j, pp->pool, &ref);
			/* a dead worker's slots wait only for other dead workers' */
			if (mpe_pool_slots_finish(pp, &ref, OTHER_DEAD_WAIT_MS, &fin) < 0)
				continue;
			MPE_LOG(NOTICE, engine, "worker %u: the pool's ring is held by worker %u, "
				"dead too: what worker %u left in mempool %s's ring (%s) is finished "
				"first: %u slots on its behalf, %u counted into its cache", id, j, j,
				ref.mp->name, mpe_pool_put_state_name(state), fin.completed,
				fin.counted);
			pass++;
		}
		done += pass;
	} while (pass > 0);
	return done;
}

int
mpe_recover_worker(struct mpe_primary *p, unsigned int id, enum mpe_drop why, int carry,
		   char *stuck, size_t size)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	struct mpe_worker_hand *h = &slot->hand;
	struct put_left put = {.objs = h->put.objs};
	struct mpe_pool_finish slots, fin = {0};
	struct mpe_pool_ref ref;
	struct rte_ring *in, *out;
	uint32_t lost = 0, taken, sent, off, carried = 0, k;
	int in_tx_call, rc, again = 0;

	dev_settle(p, id, h);
	/* a transmit call it died in may have left DPDK's put half done in its cache */
	in_tx_call = h->phase == MPE_HAND_DEV && h->n != 0 && !dev_received(h);

	/* First the return to the pool, or the fill of its cache, it left under way: of what a
	 * dead worker can leave stuck, the only ones that can be finished. After it, the dead
	 * worker holds nothing of the pool's ring; a put's objects are in the pool then,
	 * whatever its hand says, a fill's in its cache. */
	worker_ref(p, id, h->put.pool, &ref);
	if (h->put.state != MPE_PUT_NONE && h->put.state != MPE_PUT_FILL)
		put.n = RTE_MIN(h->put.n, (uint32_t)MPE_POOL_PUT_MAX);
	if (h->put.state == MPE_PUT_OPAQUE)
		MPE_LOG(WARNING, engine, "worker %u: died inside DPDK's free of a shared or "
			"foreign mbuf: it may be lost to the pool", id);
	/* its slots first: putting anything back could wait, inside DPDK's enqueue, for slots
	 * another dead worker reserved */
	rc = mpe_pool_slots_finish(&h->put, &ref, POOL_STUCK_MS, &slots);
	while (rc == -EDEADLK && finish_other_dead(p, id) > 0)
		rc = mpe_pool_slots_finish(&h->put, &ref, POOL_STUCK_MS, &slots);
	if (rc == -EDEADLK) {
		snprintf(stuck, size, "%s mempool %s's ring it died in %s",
			 h->put.state == MPE_PUT_FILL ? "the dequeue from" : "the enqueue to",
			 ref.mp->name, h->put.head_set ? "waits for an earlier one that nobody "
			 "finishes" : "has its slots unknown");
		return -EDEADLK;
	}
	/* before anything goes back to the pool: a stuck pool ring would hang the supervisor
	 * (unless what holds it is another dead worker's recorded reservation) */
	while (pools_stuck(p, stuck, size))
		if (finish_other_dead(p, id) == 0)
			return -EDEADLK;
	if (rc == 0)
		rc = mpe_pool_put_finish(&h->put, &ref, POOL_STUCK_MS, &fin);
	fin.state = slots.state;
	fin.completed = slots.completed;
	fin.counted = slots.counted;
	if (rc < 0)
		MPE_LOG(ERR, engine, "worker %u: the return to the pool it left under way "
			"contradicts its cache (state %u): its mbufs are left alone", id,
			slots.state);
	else if (fin.state == MPE_PUT_FILL)
		MPE_LOG(INFO, engine, "worker %u: died filling its mempool cache from the ring: "
			"%u entries taken on its behalf, %u counted into its cache", id,
			fin.completed, fin.counted);
	else if (fin.completed + fin.put_back > 0)
		MPE_LOG(INFO, engine, "worker %u: died returning mbufs to the pool (%s): %u "
			"enqueued to the ring on its behalf, %u put back", id,
			mpe_pool_put_state_name(fin.state), fin.completed, fin.put_back);
	rc = worker_rings(&p->shm->conf, id, h->in_ring, h->out_ring, &in, &out);
	if (rc < 0)
		in = out = NULL;
	if (carry) {
		again = h->phase == MPE_HAND_CARRY;
		carried = carry_hand(p, id, &put, h, in, out);
		if (carried > 0)
			goto done;
	}
	if (rc == -EINVAL) {
		MPE_LOG(ERR, engine, "worker %u: hand inconsistent (input ring %u, output ring %u, "
			"which it does not have): its mbufs are left alone", id, h->in_ring,
			h->out_ring);
		goto done;
	}
	if (rc < 0) {
		lost = recover_ports(p, id, &put, h);
		goto done;
	}
	MPE_LOG(DEBUG, engine, "worker %u: hand phase %u n %u kept %u", id, h->phase, h->n,
		h->kept);
	switch (h->phase) {
	case MPE_HAND_DEQ:
		if (in == NULL)
			break; /* a worker polling the ports never dequeues */
		rollback_cons(in);
		taken = in->cons.tail - h->cons_mark[h->in_ring];
		if (taken > MPE_MAX_BURST) {
			MPE_LOG(ERR, engine, "worker %u: hand inconsistent (%u taken): its mbufs "
				"are left alone", id, taken);
			break;
		}
		free_range(&put, h->pkts, 0, taken);
		lost = taken;
		break;
	case MPE_HAND_PROC:
		free_range(&put, h->pkts, 0, RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST));
		lost = h->n;
		break;
	case MPE_HAND_TX:
	case MPE_HAND_DEV:
		/* a worker that transmits itself died sending its burst */
		lost = recover_ports(p, id, &put, h);
		break;
	case MPE_HAND_ENQ:
		if (out == NULL)
			break;
		rollback_prod(out);
		sent = out->prod.tail - h->prod_mark;
		if (sent > h->kept || h->n > MPE_MAX_BURST) {
			MPE_LOG(ERR, engine, "worker %u: hand inconsistent (%u of %u sent): its "
				"mbufs are left alone", id, sent, h->kept);
			break;
		}
		enq_count(p, id, h, sent);
		/* work[kept..n): dropped by the stages, counted, not yet freed */
		free_range(&put, h->work, sent, h->n);
		lost = h->kept - sent;
		break;
	case MPE_HAND_FREE:
		lost = recover_free(p, id, &put, h);
		break;
	case MPE_HAND_CARRY:
		lost = carried_free(&put, h);
		break;
	default:
		break;
	}
done:
	if (carried > 0) {
		h->phase = MPE_HAND_CARRY;
		if (!again)
			slot->ctl.carried += carried;
		MPE_LOG(INFO, engine, "worker %u: %u packets in its hands left to its replacement "
			"(%s)", id, carried, h->carry == MPE_CARRY_SEND ? "to send on" :
			"to run again");
	} else {
		h->phase = MPE_HAND_IDLE;
		h->n = 0;
	}
	h->rerun = 0;
	/* nothing of the pool is under way in this hand any more, whatever was found in it */
	h->put.state = MPE_PUT_NONE;
	h->put.head_set = 0;
	h->free_armed = 0;
	for (k = 0; in_tx_call && k < p->shm->nb_pools; k++) {
		char which[RTE_MEMPOOL_NAMESIZE + 16] = "";

		worker_ref(p, id, k, &ref);
		off = mpe_pool_trust_cache(&ref, h->cache_len0[k]);
		if (p->shm->nb_pools > 1)
			snprintf(which, sizeof(which), " (mempool %s)", ref.mp->name);
		if (off > 0)
			MPE_LOG(WARNING, engine, "worker %u: %u entries its mempool cache%s gained "
				"in the transmit call it died in are written off: DPDK may have "
				"counted them before writing them", id, off, which);
	}
	mpe_objects_flush_caches(p, p->shm->workers[id].ctl.lcore);
	slot->ctl.lost += lost;
	p->shm->sup.drops[why] += lost;
	return (int)lost;
}

/* A worker down for good: its input ring has no consumer any more; the primary takes the
 * packets out and counts them, and the producers stop sending (ctl.dead). */
unsigned int
mpe_recover_drain_input(struct mpe_primary *p, unsigned int id)
{
	struct rte_ring *in[MPE_MAX_IO];
	struct rte_mbuf *pkts[64];
	unsigned int n, i, nb, total = 0;

	if (p->shm->conf.shape == MPE_SHAPE_RSS)
		return 0;
	nb = worker_inputs(&p->shm->conf, id, in);
	for (i = 0; i < nb; i++)
		while ((n = rte_ring_sc_dequeue_burst(in[i], (void **)pkts, RTE_DIM(pkts),
						      NULL)) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			total += n;
		}
	p->shm->sup.drops[MPE_DROP_WORKER_DOWN] += total;
	return total;
}
