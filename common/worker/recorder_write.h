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

#include <string.h>

#include <rte_mbuf.h>
#if defined(RTE_ARCH_X86)
#include <emmintrin.h>
#endif

#include "recorder.h"
#include "stage.h"

/* One record of @m into @rec: header @hdr, then its first hdr->cap bytes, 16 at a time where
 * the CPU has 16-byte vectors, never reading past the frame's own bytes (the last piece goes
 * through a copy). */
static __rte_always_inline void
mpe_rec_put(struct mpe_rec *rec, const struct mpe_rec *hdr, const struct rte_mbuf *m)
{
	const uint8_t *data = rte_pktmbuf_mtod(m, const uint8_t *);
#if defined(RTE_ARCH_X86)
	const uint32_t whole = hdr->cap & ~15u, tail = hdr->cap & 15u;
	__m128i *d = (__m128i *)(void *)rec->data;
	const __m128i *s = (const __m128i *)(const void *)data;
	uint32_t i;

	_mm_store_si128((__m128i *)(void *)rec, _mm_loadu_si128((const __m128i *)(const void *)hdr));
	_mm_store_si128((__m128i *)(void *)rec + 1,
			_mm_loadu_si128((const __m128i *)(const void *)hdr + 1));
	for (i = 0; i < whole / 16; i++)
		_mm_store_si128(d + i, _mm_loadu_si128(s + i));
	if (tail != 0)
		memcpy(rec->data + whole, data + whole, tail);
#else
	memcpy(rec, hdr, MPE_REC_HDR_SIZE);
	memcpy(rec->data, data, hdr->cap);
#endif
}

/* The stages are done with @pkts[0..n), taken in that order at @tsc: record each, with what
 * its metadata says became of it, then publish them. @nb_stages: what "reached every stage"
 * is recorded as. */
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
		struct mpe_rec hdr = {
			.seq = head + i,
			.tsc = tsc,
			.len = rte_pktmbuf_pkt_len(m),
			.cap = (uint16_t)RTE_MIN((uint32_t)rte_pktmbuf_data_len(m), snap),
			.in_port = meta->in_port,
			.rule = meta->rule,
			.stage = nb_stages,
			.fate = MPE_REC_PASSED,
			.action = meta->verdict,
			.bad = meta->bad,
		};

		if (unlikely(dropped != 0)) {
			hdr.fate = dropped == MPE_META_BLOCKED ? MPE_REC_BLOCKED : MPE_REC_DROPPED;
			hdr.stage = dropped == MPE_META_BLOCKED ? 0 : (uint8_t)(dropped - 1);
		}
		mpe_rec_put(mpe_rec_slot(r, head + i), &hdr, m);
	}
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
}

#endif
