/* SPDX-License-Identifier: BSD-3-Clause */
/* The flight recorder's writer, on the worker's hot path (layout: common/shm/recorder.h).
 * Once the stages are done with a burst, each packet is written into the slots from head on,
 * header and first bytes, and one release store of head publishes them. A burst that does not
 * get this far, because the worker died in its stages, is in the worker's hand, whose mbufs the
 * primary records itself before it recovers them (primary/record.c): the packet of death is
 * on record all the same, with one pass over each packet here rather than two.
 * Plain stores: the ring (192 KiB at the defaults) stays in the core's L2. Non-temporal
 * stores, which this layout leaves as partial lines, and prefetching the slots and the bytes
 * before the stages run both measured slower or no faster (mpe-bench, recorder on against
 * off). No atomics but the store of head, no system call, nothing shared but the ring's own
 * lines.
 */
#ifndef MPE_RECORDER_WRITE_H
#define MPE_RECORDER_WRITE_H

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "recorder.h"
#include "stage.h"

/* The stages are done with @pkts[0..n), taken in that order at @tsc: record each, with what
 * its metadata says became of it, then publish them. @nb_stages: what "reached every stage"
 * is recorded as. The header goes field by field into the slot itself: built aside and
 * copied, its small stores would be read back by wide loads that cannot take them from the
 * store buffer, and that stall costs more than the rest of the record. */
static __rte_always_inline void
mpe_rec_write(struct mpe_rec_ring *r, struct rte_mbuf *const *pkts, uint16_t n, uint64_t tsc,
	      uint8_t nb_stages, int meta_off)
{
	const uint64_t head = r->head;
	const uint32_t snap = r->snap;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct mpe_meta *meta = mpe_meta(m, meta_off);
		const uint8_t dropped = meta->drop_stage;
		struct mpe_rec *rec = mpe_rec_slot(r, head + i);
		const uint16_t cap = (uint16_t)RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), snap);

		rec->seq = head + i;
		rec->tsc = tsc;
		rec->len = rte_pktmbuf_pkt_len(m);
		rec->cap = cap;
		rec->in_port = meta->in_port;
		rec->rule = meta->rule;
		rec->action = meta->verdict;
		rec->bad = meta->bad;
		if (likely(dropped == 0)) {
			rec->stage = nb_stages;
			rec->fate = MPE_REC_PASSED;
		} else if (dropped == MPE_META_BLOCKED) {
			rec->stage = 0;
			rec->fate = MPE_REC_BLOCKED;
		} else {
			rec->stage = (uint8_t)(dropped - 1);
			rec->fate = MPE_REC_DROPPED;
		}
		rte_memcpy(rec->data, rte_pktmbuf_mtod(m, const void *), cap);
	}
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
}

#endif
