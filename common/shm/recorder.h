/* SPDX-License-Identifier: BSD-3-Clause */
/* The flight recorder's layout: per worker, a ring of the last packets it took, in memzone
 * "mpe_recorder" (docs/recorder.md). Types and the primary's reader; the worker's writer is
 * common/worker/recorder_write.h.
 *
 *   +--------------------------+  memzone "mpe_recorder", one ring per configured worker
 *   | struct mpe_rec_ring  w0  |  head: the worker writes (a release store per burst),
 *   |                          |  the primary reads; the geometry: the primary, once
 *   | record 0 .. size-1       |  rec_size bytes each: the worker writes, the primary reads
 *   +--------------------------+
 *   | struct mpe_rec_ring  w1  |  ...
 *
 * One writer, no lock: record i lives in slot i & mask. The worker writes the records of a
 * burst ahead of `head` (at most `burst` of them) once its stages are done, then publishes
 * them with one store of head. A reader copies, then reads head again, and keeps only what the
 * writer cannot have reached meanwhile; each record carries its own index (`seq`), so that a
 * slot the writer is rewriting is left out. After a death the primary is the writer: it
 * records the burst the worker held, from its hand (mpe_record_seal()).
 */
#ifndef MPE_RECORDER_H
#define MPE_RECORDER_H

#include <stdint.h>

#include <rte_common.h>

#define MPE_NAME_RECORDER "mpe_recorder"

/* What became of a recorded packet (struct mpe_rec.fate) */
enum mpe_rec_fate {
	MPE_REC_PASSED = 0, /* went through every stage */
	MPE_REC_DROPPED,    /* a stage dropped it: `stage` says which */
	MPE_REC_IN_HAND,    /* the stages had it when the worker died (the primary wrote it) */
	MPE_REC_BLOCKED,    /* of a flow quarantine blocks: dropped before any stage */
};

/* drop_stage of a packet of a flow quarantine blocks (MPE_META_BLOCKED of the stages) */
#define MPE_REC_DROP_BLOCKED UINT8_MAX

/* One packet: a fixed header, then its first `cap` bytes (at most the ring's snap). The worker
 * writes the header in four 8-byte stores, the last the packet's metadata as the stages left
 * it; mpe_rec_read() derives `fate` and `stage` from it for the reader. */
struct mpe_rec {
	uint32_t seq;	  /* the record's index (head before its burst + its place), low bits */
	uint16_t cap;	  /* bytes of the frame kept in data[] */
	uint8_t fate;	  /* enum mpe_rec_fate: IN_HAND as the primary writes it; the worker
			   * writes 0, which mpe_rec_read() replaces */
	uint8_t stage;	  /* the stage that dropped it, or that had it at a death, or the
			   * number of stages (it went through all): as fate */
	uint64_t tsc;	  /* TSC of the poll that took its burst; of the death when in hand */
	uint32_t len;	  /* the frame's length */
	uint32_t rule;	  /* acl: 0 no rule, i + 1 rule i of the rule set in force; in hand:
			   * the signal that killed the worker, 0 unknown */
	/* struct mpe_meta from in_port on, as the stages left it (recorder_write.h) */
	uint16_t in_port; /* index into conf.ports[] of the receiving port */
	uint16_t out_port;
	uint8_t action;	  /* enum mpe_rule_action the acl stage applied */
	uint8_t flags;
	uint8_t drop_stage; /* 1 + the stage that dropped it, 0 none, MPE_REC_DROP_BLOCKED */
	uint8_t bad;	  /* enum mpe_decode_bad + 1 when the parse stage found it malformed */
	uint8_t data[];
};

#define MPE_REC_HDR_SIZE 32
_Static_assert(sizeof(struct mpe_rec) == MPE_REC_HDR_SIZE, "struct mpe_rec is 32 bytes");

struct mpe_rec_ring {
	volatile uint64_t head; /* records published: the worker's only shared store */
	uint32_t mask;		/* records - 1 (a power of two) */
	uint32_t rec_size;	/* bytes per record: header + snap, a multiple of 64 */
	uint32_t snap;		/* bytes of each frame kept */
	uint32_t ahead;		/* records the worker may write beyond head: its burst */
	uint64_t bytes;		/* of the ring, this header included */
} __rte_cache_aligned;

static inline struct mpe_rec *
mpe_rec_slot(const struct mpe_rec_ring *r, uint64_t i)
{
	return (struct mpe_rec *)((uintptr_t)(r + 1) + (uintptr_t)(i & r->mask) * r->rec_size);
}

/* Bytes of one worker's ring of @packets records of @snap bytes. */
uint64_t mpe_rec_ring_size(uint32_t packets, uint32_t snap);

/* Make the ring at @r (mpe_rec_ring_size() bytes), empty. */
void mpe_rec_ring_init(struct mpe_rec_ring *r, uint32_t packets, uint32_t snap, uint32_t ahead);

/* Copy the records of @r that are whole into @out (room for mask + 1 records of rec_size
 * bytes), oldest first, each with its fate and stage (@nb_stages: the worker's, what "went
 * through every stage" is recorded as); returns how many. The worker may be writing
 * meanwhile: what it may have overwritten during the copy is left out. */
unsigned int mpe_rec_read(const struct mpe_rec_ring *r, void *out, uint8_t nb_stages);

/* The @k-th record of what mpe_rec_read() copied into @out. */
static inline struct mpe_rec *
mpe_rec_at(const struct mpe_rec_ring *r, void *out, unsigned int k)
{
	return (struct mpe_rec *)((uintptr_t)out + (uintptr_t)k * r->rec_size);
}

#endif
