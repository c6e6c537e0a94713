/* SPDX-License-Identifier: BSD-3-Clause */
/* The flight recorder's writer, on the worker's hot path (layout: common/shm/recorder.h).
 * The worker is the ring's only writer: a burst's packets are recorded as it is taken, before
 * any stage runs (a packet that kills the worker is on record), their fate is filled in once
 * the stages are done, and one release store of head publishes them. No atomics but that
 * store, no system call, nothing shared but the ring's own lines.
 */
#ifndef MPE_RECORDER_WRITE_H
#define MPE_RECORDER_WRITE_H

#include <string.h>

#include <rte_mbuf.h>

#include "recorder.h"
#include "stage.h"

/* Record @pkts[0..n), taken at @tsc, in the slots from head on (not yet published). */
static __rte_always_inline void
mpe_rec_take(struct mpe_rec_ring *r, struct rte_mbuf *const *pkts, uint16_t n, uint64_t tsc,
	     int meta_off)
{
	const uint64_t head = r->head;
	const uint32_t snap = r->snap;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct mpe_rec *rec = mpe_rec_slot(r, head + i);
		uint32_t cap = RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), snap);
		const struct mpe_rec hdr = {
			.seq = head + i,
			.tsc = tsc,
			.len = rte_pktmbuf_pkt_len(m),
			.cap = (uint16_t)cap,
			.in_port = mpe_meta(m, meta_off)->in_port,
			.fate = MPE_REC_PENDING,
		};

		memcpy(rec, &hdr, sizeof(hdr));
		memcpy(rec->data, rte_pktmbuf_mtod(m, const void *), cap);
	}
}

/* The stages are done with @pkts[0..n) (in the order they were taken): their fate, then
 * publish them. @nb_stages: the stage a packet that went through all of them "reached". */
static __rte_always_inline void
mpe_rec_done(struct mpe_rec_ring *r, struct rte_mbuf *const *pkts, uint16_t n,
	     uint8_t nb_stages, int meta_off)
{
	const uint64_t head = r->head;
	uint16_t i;

	for (i = 0; i < n; i++) {
		const struct mpe_meta *meta = mpe_meta(pkts[i], meta_off);
		struct mpe_rec *rec = mpe_rec_slot(r, head + i);
		const uint8_t dropped = meta->drop_stage;

		rec->rule = meta->rule;
		rec->stage = dropped ? (uint8_t)(dropped - 1) : nb_stages;
		rec->fate = dropped ? MPE_REC_DROPPED : MPE_REC_PASSED;
		rec->action = meta->verdict;
		rec->bad = meta->bad;
	}
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
}

#endif
