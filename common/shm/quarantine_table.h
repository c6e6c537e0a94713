/* SPDX-License-Identifier: BSD-3-Clause */
/* Quarantine: the flows whose packets were in a worker's hands when a fault signal killed it
 * (docs/recorder.md). The primary alone adds, blocks and releases flows; the lcores where
 * packets enter the engine (the I/O lcore, or the workers that poll the ports) drop the
 * packets of blocked flows and count them, each in a row of hits of its own.
 *
 * The entry point looks at `blocked` once per burst, a line the primary writes only when a
 * flow is blocked or released: while no flow is blocked the cost is that one read. With some
 * blocked, each packet's flow key is read and compared with the blocked entries.
 *
 * An entry's key is written before its state becomes BLOCKED (release), and is not changed
 * while it is; a release sets the state back first. A packet that an entry point looked at
 * while its flow was released may still be dropped: the release takes effect within a burst.
 */
#ifndef MPE_QUARANTINE_TABLE_H
#define MPE_QUARANTINE_TABLE_H

#include <stdint.h>
#include <string.h>

#include <rte_common.h>

#include "config.h"
#include "pkt.h"

#define MPE_QUARANTINE_FLOWS 64
/* who counts hits, each in a row of its own: I/O lcore k (conf.io[k]), then worker w */
#define MPE_QUARANTINE_SITES (MPE_MAX_IO + MPE_MAX_WORKERS)
#define MPE_QUARANTINE_SITE_IO(k) (k)
#define MPE_QUARANTINE_SITE_WORKER(w) (MPE_MAX_IO + (w))

enum mpe_qflow_state {
	MPE_QFLOW_FREE = 0,
	MPE_QFLOW_SUSPECT, /* in hand at fewer than quarantine_after fault deaths */
	MPE_QFLOW_BLOCKED, /* dropped where it enters the engine */
};

struct mpe_qflow {
	struct mpe_flow_key key; /* canonical (mpe_flow_key_canon): both directions */
	uint32_t state;		 /* enum mpe_qflow_state */
	uint32_t deaths;	 /* fault deaths of workers that held its packets */
	uint64_t quarantined;	 /* its packets written to quarantine.pcapng */
	uint64_t first_ns;	 /* wall clock of the first such death */
	uint64_t blocked_ns;	 /* and of its blocking, 0: not blocked */
	int32_t last_signal;	 /* the signal of the last death */
	uint32_t last_worker;	 /* the worker that died */
};

struct mpe_quarantine {
	volatile uint32_t blocked; /* entries BLOCKED: 0 lets the entry points skip the look */
	uint32_t nb;		   /* entries in use, at most MPE_QUARANTINE_FLOWS */
	uint64_t full;		   /* flows not tracked: every entry was blocked */
	struct mpe_qflow flows[MPE_QUARANTINE_FLOWS];
	/* packets of blocked flows dropped, per site and entry: one writer per row */
	uint64_t hits[MPE_QUARANTINE_SITES][MPE_QUARANTINE_FLOWS] __rte_cache_aligned;
};

/* The blocked entry @frame (@len bytes read) belongs to, or -1. */
static inline int
mpe_quarantine_match(const struct mpe_quarantine *q, const void *frame, uint32_t len)
{
	struct mpe_flow_key key, canon;
	uint32_t i, nb = q->nb;

	memset(&key, 0, sizeof(key));
	(void)mpe_pkt_flow_key(frame, len, &key); /* a short frame: what could be read */
	mpe_flow_key_canon(&key, &canon);
	for (i = 0; i < nb && i < MPE_QUARANTINE_FLOWS; i++)
		if (__atomic_load_n(&q->flows[i].state, __ATOMIC_ACQUIRE) == MPE_QFLOW_BLOCKED &&
		    memcmp(&q->flows[i].key, &canon, sizeof(canon)) == 0)
			return (int)i;
	return -1;
}

#endif
