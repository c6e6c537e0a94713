/* SPDX-License-Identifier: BSD-3-Clause */
/* The flight recorder's geometry and its reader (recorder.h): run by the primary, beside the
 * worker that writes the ring, or after its death. Reads only; never waits for the worker.
 */
#include <string.h>

#include <rte_atomic.h>

#include "recorder.h"

uint64_t
mpe_rec_ring_size(uint32_t packets, uint32_t snap)
{
	uint32_t rec = RTE_ALIGN_CEIL(MPE_REC_HDR_SIZE + snap, RTE_CACHE_LINE_SIZE);

	return sizeof(struct mpe_rec_ring) + (uint64_t)packets * rec;
}

void
mpe_rec_ring_init(struct mpe_rec_ring *r, uint32_t packets, uint32_t snap, uint32_t ahead)
{
	uint64_t i;

	memset(r, 0, sizeof(*r));
	r->mask = packets - 1;
	r->snap = snap;
	r->rec_size = RTE_ALIGN_CEIL(MPE_REC_HDR_SIZE + snap, RTE_CACHE_LINE_SIZE);
	r->ahead = ahead;
	r->bytes = mpe_rec_ring_size(packets, snap);
	/* no slot may look written: seq UINT32_MAX is no record's before the ring has wrapped,
	 * and every slot has been written once it has */
	for (i = 0; i < packets; i++)
		mpe_rec_slot(r, i)->seq = UINT32_MAX;
}

/* @rec's fate and stage from the metadata the worker recorded; one the primary wrote from a
 * dead worker's hand says them already */
static void
rec_fate(struct mpe_rec *rec, uint8_t nb_stages)
{
	if (rec->fate == MPE_REC_IN_HAND)
		return;
	if (rec->drop_stage == 0) {
		rec->fate = MPE_REC_PASSED;
		rec->stage = nb_stages;
	} else if (rec->drop_stage == MPE_REC_DROP_BLOCKED) {
		rec->fate = MPE_REC_BLOCKED;
		rec->stage = 0;
	} else {
		rec->fate = MPE_REC_DROPPED;
		rec->stage = (uint8_t)(rec->drop_stage - 1);
	}
}

unsigned int
mpe_rec_read(const struct mpe_rec_ring *r, void *out, uint8_t nb_stages)
{
	const uint64_t size = (uint64_t)r->mask + 1;
	uint64_t h, end, from, i, keep_from;
	unsigned int n = 0;

	end = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	from = end > size ? end - size : 0;
	for (i = from; i < end; i++)
		memcpy(mpe_rec_at(r, out, (unsigned int)(i - from)), mpe_rec_slot(r, i),
		       r->rec_size);
	rte_smp_rmb();
	h = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
	/* the writer reaches up to `ahead` records beyond head: the slots of records from
	 * head + ahead - size on were its while we copied, or are */
	keep_from = h + r->ahead > size ? h + r->ahead - size : 0;
	for (i = from; i < end; i++) {
		struct mpe_rec *rec = mpe_rec_at(r, out, (unsigned int)(i - from));

		/* a slot not (yet, or any more) holding record i: skipped */
		if (i < keep_from || rec->seq != (uint32_t)i)
			continue;
		rec_fate(rec, nb_stages);
		if (rec != mpe_rec_at(r, out, n))
			memmove(mpe_rec_at(r, out, n), rec, r->rec_size);
		n++;
	}
	return n;
}
