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

#include <stddef.h>
#include <string.h>

#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "recorder.h"
#include "stage.h"

/* The metadata's bytes from in_port on are the record's, in the same order */
#define MPE_REC_META_AT(f) (offsetof(struct mpe_meta, f) - offsetof(struct mpe_meta, in_port))
#define MPE_REC_AT(f) (offsetof(struct mpe_rec, f) - offsetof(struct mpe_rec, in_port))
_Static_assert(MPE_REC_META_AT(out_port) == MPE_REC_AT(out_port) &&
	       MPE_REC_META_AT(verdict) == MPE_REC_AT(action) &&
	       MPE_REC_META_AT(flags) == MPE_REC_AT(flags) &&
	       MPE_REC_META_AT(drop_stage) == MPE_REC_AT(drop_stage) &&
	       MPE_REC_META_AT(bad) == MPE_REC_AT(bad) &&
	       MPE_REC_META_AT(bad) == 7 && offsetof(struct mpe_rec, in_port) == 24,
	       "struct mpe_meta from in_port on is the record's last 8 header bytes");
_Static_assert(MPE_META_BLOCKED == MPE_REC_DROP_BLOCKED, "blocked: one drop_stage");

/* The stages are done with @pkts[0..n), taken in that order at @tsc: record each, with its
 * metadata as they left it, then publish them. The header is four 8-byte stores into the slot
 * itself (fate and stage are left to the reader, mpe_rec_read()): smaller stores read back
 * by the copy's wide loads would stall on the store buffer, and computing the fate here is
 * work no reader needs at once. */
static __rte_always_inline void
mpe_rec_write(struct mpe_rec_ring *r, struct rte_mbuf *const *pkts, uint16_t n, uint64_t tsc,
	      int meta_off)
{
	const uint64_t head = r->head;
	const uint32_t snap = r->snap;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct mpe_meta *meta = mpe_meta(m, meta_off);
		struct mpe_rec *rec = mpe_rec_slot(r, head + i);
		const uint32_t cap = RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), snap);
		/* seq, cap, fate and stage 0; len and rule; the metadata's last 8 bytes */
		const uint64_t w0 = (uint32_t)(head + i) | (uint64_t)cap << 32;
		const uint64_t w2 = rte_pktmbuf_pkt_len(m) | (uint64_t)meta->rule << 32;
		uint64_t w3;

		memcpy(&w3, &meta->in_port, sizeof(w3));
		memcpy(&rec->seq, &w0, sizeof(w0));
		rec->tsc = tsc;
		memcpy(&rec->len, &w2, sizeof(w2));
		memcpy(&rec->in_port, &w3, sizeof(w3));
		rte_memcpy(rec->data, rte_pktmbuf_mtod(m, const void *), cap);
	}
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
}

#endif
