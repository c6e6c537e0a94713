/* SPDX-License-Identifier: BSD-3-Clause */
/* The flight recorders as pcapng: on demand (telemetry /mpe/record), in every debug dump, and
 * for a worker at its death. Reads a ring beside the worker that writes it (mpe_rec_read()
 * keeps only what the writer cannot have reached meanwhile); after a death, seals the burst
 * the worker had in hand (mpe_record_seal()), the only write the primary makes to a ring.
 * Any thread of the primary; the files are written with mpe_pcapng (common/base/pcapng.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "clock.h"
#include "context.h"
#include "decode.h"
#include "dump.h"
#include "pcapng.h"
#include "record.h"
#include "recorder.h"
#include "rules.h"
#include "shm.h"
#include "stage.h"
#include "stage_info.h"

static struct mpe_kept_files kept = MPE_KEPT_FILES_INIT;

unsigned int
mpe_record_seal(struct mpe_primary *p, unsigned int id, int sig)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	const struct mpe_worker_hand *h = &slot->hand;
	struct mpe_rec_ring *r = slot->ctl.rec;
	const int off = p->shm->meta_offset;
	const uint64_t head = r != NULL ? r->head : 0, now = rte_rdtsc();
	unsigned int i, n;

	/* the worker records a burst once its stages are done: one they had when it died is
	 * recorded here, from its hand, before the recovery frees its mbufs */
	if (r == NULL || h->phase != MPE_HAND_PROC ||
	    h->stage >= p->shm->conf.workers[id].nb_stages)
		return 0;
	n = RTE_MIN(h->n, RTE_MIN((uint32_t)MPE_MAX_BURST, r->mask + 1));
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = h->pkts[i];
		struct mpe_rec *rec = mpe_rec_slot(r, head + i);
		uint32_t cap = RTE_MIN(rte_pktmbuf_pkt_len(m), r->snap);
		const void *data = rte_pktmbuf_read(m, 0, cap, rec->data);

		if (data == NULL)
			cap = 0;
		else if (data != rec->data)
			memcpy(rec->data, data, cap);
		rec->seq = (uint32_t)(head + i);
		rec->tsc = now;
		rec->len = rte_pktmbuf_pkt_len(m);
		rec->cap = (uint16_t)cap;
		rec->in_port = mpe_meta(m, off)->in_port;
		rec->out_port = mpe_meta(m, off)->out_port;
		rec->rule = (uint32_t)(sig > 0 ? sig : 0);
		rec->stage = (uint8_t)h->stage;
		rec->fate = MPE_REC_IN_HAND;
		rec->action = 0;
		rec->flags = 0;
		rec->drop_stage = 0;
		rec->bad = mpe_meta(m, off)->bad;
	}
	__atomic_store_n(&r->head, head + n, __ATOMIC_RELEASE);
	return n;
}

static const char *
stage_name(const struct mpe_worker_conf *wc, unsigned int s)
{
	const struct mpe_stage_info *info =
		s < wc->nb_stages ? mpe_stage_info(wc->stages[s]) : NULL;

	return info != NULL ? info->name : "?";
}

static int
has_acl(const struct mpe_worker_conf *wc)
{
	unsigned int s;

	for (s = 0; s < wc->nb_stages; s++)
		if (wc->stages[s] == MPE_STAGE_ACL)
			return 1;
	return 0;
}

/* What became of @rec, for its packet's comment. */
static void
comment(char *buf, size_t size, const struct mpe_shared *shm, unsigned int id,
	const struct mpe_rec *rec)
{
	const struct mpe_worker_conf *wc = &shm->conf.workers[id];
	char sig[32];
	int n;

	n = snprintf(buf, size, "worker %u, port %u: ", id, rec->in_port);
	if (n < 0 || (size_t)n >= size)
		return;
	buf += n;
	size -= (size_t)n;
	switch (rec->fate) {
	case MPE_REC_PASSED:
		n = snprintf(buf, size, "passed its %u stages", wc->nb_stages);
		break;
	case MPE_REC_DROPPED:
		n = snprintf(buf, size, "dropped by stage %u (%s)", rec->stage,
			     stage_name(wc, rec->stage));
		break;
	case MPE_REC_IN_HAND:
		if (rec->rule != 0)
			snprintf(sig, sizeof(sig), "SIG%s", sigabbrev_np((int)rec->rule) != NULL ?
				 sigabbrev_np((int)rec->rule) : "?");
		else
			snprintf(sig, sizeof(sig), "unknown cause");
		return (void)snprintf(buf, size, "in hand when the worker died (%s), in stage %u "
				      "(%s)", sig, rec->stage, stage_name(wc, rec->stage));
	case MPE_REC_BLOCKED:
		return (void)snprintf(buf, size, "dropped before any stage: its flow is "
				      "quarantined");
	default:
		return (void)snprintf(buf, size, "fate %u unknown", rec->fate);
	}
	if (n < 0 || (size_t)n >= size)
		return;
	buf += n;
	size -= (size_t)n;
	if (has_acl(wc) && rec->rule != 0)
		n = snprintf(buf, size, "; verdict %s, rule %u", mpe_rule_action_name(rec->action),
			     rec->rule - 1);
	else if (has_acl(wc) && !(rec->fate == MPE_REC_DROPPED && rec->bad != 0))
		n = snprintf(buf, size, "; verdict %s, no rule", mpe_rule_action_name(rec->action));
	else
		n = 0;
	if (n < 0 || (size_t)n >= size)
		return;
	if (rec->bad != 0)
		snprintf(buf + n, size - (size_t)n, "; malformed: %s",
			 mpe_decode_bad_name(rec->bad - 1u));
}

/* A copy of a worker's recorder, taken at one moment, to be written out later. */
struct mpe_record_copy {
	const struct mpe_rec_ring *r; /* the ring it was copied from: its geometry */
	unsigned int id;
	unsigned int n;
	uint64_t tsc; /* when it was taken: TSC and wall clock */
	uint64_t ns;
	unsigned char recs[]; /* n records of r->rec_size bytes */
};

struct mpe_record_copy *
mpe_record_copy(const struct mpe_primary *p, unsigned int id)
{
	const struct mpe_rec_ring *r;
	struct mpe_record_copy *c;

	if (p->shm == NULL || id >= p->shm->conf.nb_workers || p->shm->workers[id].ctl.rec == NULL)
		return NULL;
	r = p->shm->workers[id].ctl.rec;
	c = malloc(sizeof(*c) + (size_t)(r->mask + 1) * r->rec_size);
	if (c == NULL)
		return NULL;
	c->r = r;
	c->id = id;
	c->n = mpe_rec_read(r, c->recs, p->shm->conf.workers[id].nb_stages);
	c->tsc = rte_rdtsc();
	c->ns = mpe_clock_ns(CLOCK_REALTIME);
	return c;
}

/* @c's records into pcapng @path: how many, or -errno. */
static int
write_copy(const struct mpe_shared *shm, const struct mpe_record_copy *c, const char *path)
{
	struct mpe_pcapng w;
	char text[256], name[32];
	unsigned int k;
	int rc;

	snprintf(name, sizeof(name), "mpe worker %u", c->id);
	rc = mpe_pcapng_open(&w, path, 0, c->r->snap, name);
	for (k = 0; rc == 0 && k < c->n; k++) {
		const struct mpe_rec *rec = mpe_rec_at(c->r, (void *)(uintptr_t)c->recs, k);
		uint64_t ago = (c->tsc - rec->tsc) * 1000000000.0 / (double)shm->tsc_hz;

		comment(text, sizeof(text), shm, c->id, rec);
		rc = mpe_pcapng_packet(&w, c->ns - ago, rec->data, rec->cap, rec->len, text);
	}
	if (rc == 0)
		rc = mpe_pcapng_close(&w);
	else
		mpe_pcapng_close(&w);
	return rc < 0 ? rc : (int)c->n;
}

int
mpe_record_copy_file(const struct mpe_primary *p, struct mpe_record_copy *c, char *path,
		     size_t size)
{
	char stem[32];
	int rc;

	if (c == NULL)
		return -ENOMEM;
	snprintf(stem, sizeof(stem), "mpe-record-w%u", c->id);
	rc = mpe_dump_path(path, size, stem, "pcapng");
	if (rc == 0) {
		rc = write_copy(p->shm, c, path);
		if (rc < 0)
			remove(path);
		else
			mpe_dump_keep(&kept, path);
	}
	free(c);
	return rc;
}

int
mpe_record_file(const struct mpe_primary *p, unsigned int id, char *path, size_t size)
{
	if (p->shm == NULL || id >= p->shm->conf.nb_workers)
		return -EINVAL;
	if (p->shm->workers[id].ctl.rec == NULL)
		return -ENOENT;
	return mpe_record_copy_file(p, mpe_record_copy(p, id), path, size);
}
