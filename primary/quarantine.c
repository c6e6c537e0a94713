/* SPDX-License-Identifier: BSD-3-Clause */
/* Quarantine (docs/recorder.md). A worker that a fault signal killed inside its stages died,
 * most likely, of one of the packets it held: those packets are never processed again. They
 * go to quarantine.pcapng in the runtime directory, whole, each with a comment (worker,
 * stage, signal, time), and are counted as quarantine drops. Each of their flows has the
 * death counted against it in the shared table (common/shm/quarantine_table.h); a flow that was in
 * hand at quarantine_after fault deaths is blocked where it enters the engine, until an
 * operator releases it.
 * A death outside the stages (a ring, a device call, a return to the pool) is the engine's
 * own and is recovered as any other: its packets are counted worker_died, not quarantined.
 * Runs on the main lcore at a death, and in the telemetry thread for a release: the table's
 * writes are under `lock`.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_mbuf.h>

#include "context.h"
#include "log.h"
#include "pcapng.h"
#include "quarantine.h"
#include "shm.h"
#include "stage_info.h"

/* the largest frame kept whole; longer ones are cut (the file says their length) */
#define QUARANTINE_SNAP 16384

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

int
mpe_quarantine_fault(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGABRT || sig == SIGFPE ||
	       sig == SIGILL;
}

void
mpe_quarantine_flow_text(const void *k, char *buf, size_t size)
{
	const struct mpe_flow_key *key = k;
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN], vlan[16] = "";
	int af = key->family == MPE_FLOW_IPV6 ? AF_INET6 : AF_INET;

	if (key->vlan != 0)
		snprintf(vlan, sizeof(vlan), " vlan %u", key->vlan);
	if (key->family == MPE_FLOW_L2) {
		const uint8_t *s = key->src, *d = key->dst;

		snprintf(buf, size, "l2 %02x:%02x:%02x:%02x:%02x:%02x <-> "
			 "%02x:%02x:%02x:%02x:%02x:%02x%s", s[0], s[1], s[2], s[3], s[4], s[5],
			 d[0], d[1], d[2], d[3], d[4], d[5], vlan);
		return;
	}
	inet_ntop(af, key->src, a, sizeof(a));
	inet_ntop(af, key->dst, b, sizeof(b));
	if (key->proto == IPPROTO_TCP || key->proto == IPPROTO_UDP ||
	    key->proto == IPPROTO_SCTP)
		snprintf(buf, size, "%s %s%s%s:%u <-> %s%s%s:%u%s",
			 key->proto == IPPROTO_TCP ? "tcp" : key->proto == IPPROTO_UDP ? "udp" :
			 "sctp", af == AF_INET6 ? "[" : "", a, af == AF_INET6 ? "]" : "",
			 ntohs(key->sport), af == AF_INET6 ? "[" : "", b, af == AF_INET6 ? "]" : "",
			 ntohs(key->dport), vlan);
	else
		snprintf(buf, size, "ip proto %u %s <-> %s%s", key->proto, a, b, vlan);
}

uint64_t
mpe_quarantine_blocked_packets(const struct mpe_primary *p, unsigned int i)
{
	uint64_t n = 0;
	unsigned int s;

	for (s = 0; s < MPE_QUARANTINE_SITES; s++)
		n += p->shm->quar.hits[s][i];
	return n;
}

/* The entry of flow @canon, made a suspect when new; NULL when every entry is blocked. A new
 * flow takes a free entry, or that of the suspect with the fewest deaths, oldest first. */
static struct mpe_qflow *
entry_of(struct mpe_quarantine *q, const struct mpe_flow_key *canon, uint64_t now_ns)
{
	struct mpe_qflow *e = NULL;
	unsigned int i;

	for (i = 0; i < q->nb; i++)
		if (q->flows[i].state != MPE_QFLOW_FREE &&
		    memcmp(&q->flows[i].key, canon, sizeof(*canon)) == 0)
			return &q->flows[i];
	for (i = 0; i < q->nb && e == NULL; i++)
		if (q->flows[i].state == MPE_QFLOW_FREE)
			e = &q->flows[i];
	if (e == NULL && q->nb < MPE_QUARANTINE_FLOWS)
		e = &q->flows[q->nb];
	for (i = 0; i < q->nb && e == NULL; i++)
		if (q->flows[i].state == MPE_QFLOW_SUSPECT)
			e = &q->flows[i];
	for (; i < q->nb; i++)
		if (q->flows[i].state == MPE_QFLOW_SUSPECT && q->flows[i].deaths < e->deaths)
			e = &q->flows[i];
	if (e == NULL) {
		q->full++;
		return NULL;
	}
	/* never blocked (a blocked entry is never taken), so no entry point reads its key */
	memset(e, 0, sizeof(*e));
	e->key = *canon;
	e->first_ns = now_ns;
	e->state = MPE_QFLOW_SUSPECT;
	if (e == &q->flows[q->nb])
		__atomic_store_n(&q->nb, q->nb + 1, __ATOMIC_RELEASE);
	return e;
}

/* Flow @e was in hand at one more fault death: blocked at quarantine_after. */
static void
count_death(struct mpe_primary *p, struct mpe_qflow *e, unsigned int id, int sig,
	    uint64_t now_ns)
{
	struct mpe_quarantine *q = &p->shm->quar;
	const uint32_t after = p->shm->conf.quarantine_after;
	unsigned int i = (unsigned int)(e - q->flows), s;
	char flow[128];

	e->deaths++;
	e->last_signal = sig;
	e->last_worker = id;
	if (after == 0 || e->deaths < after || e->state == MPE_QFLOW_BLOCKED)
		return;
	for (s = 0; s < MPE_QUARANTINE_SITES; s++)
		q->hits[s][i] = 0;
	e->blocked_ns = now_ns;
	__atomic_store_n(&e->state, MPE_QFLOW_BLOCKED, __ATOMIC_RELEASE);
	__atomic_add_fetch(&q->blocked, 1, __ATOMIC_RELEASE);
	mpe_quarantine_flow_text(&e->key, flow, sizeof(flow));
	MPE_LOG(WARNING, engine, "quarantine: flow %u (%s) blocked: its packets were in the "
		"hands of workers at %u deaths by a fault signal (quarantine_after); "
		"mpe-ctl quarantine clear %u releases it", i, flow, e->deaths, i);
}

unsigned int
mpe_quarantine_death(struct mpe_primary *p, unsigned int id, int sig)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	const struct mpe_worker_hand *h = &slot->hand;
	const struct mpe_worker_conf *wc = &p->shm->conf.workers[id];
	struct mpe_qflow *seen[MPE_MAX_BURST];
	static uint8_t frame[QUARANTINE_SNAP];
	char path[PATH_MAX], text[160], when[40];
	unsigned int n, i, j, nb_seen = 0, written = 0;
	const struct mpe_stage_info *info;
	struct mpe_pcapng w;
	struct timespec ts;
	struct tm tm;
	uint64_t now_ns;
	int rc;

	if (!mpe_quarantine_fault(sig) || h->phase != MPE_HAND_PROC)
		return 0;
	n = RTE_MIN(h->n, (uint32_t)MPE_MAX_BURST);
	clock_gettime(CLOCK_REALTIME, &ts);
	now_ns = (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	info = h->stage < wc->nb_stages ? mpe_stage_info(wc->stages[h->stage]) : NULL;
	snprintf(text, sizeof(text), "worker %u, stage %u (%s), SIG%s, %s.%06luZ", id, h->stage,
		 info != NULL ? info->name : "?", sigabbrev_np(sig), when,
		 (unsigned long)(ts.tv_nsec / 1000));
	snprintf(path, sizeof(path), "%s/%s", rte_eal_get_runtime_dir(), MPE_QUARANTINE_FILE);
	rc = mpe_pcapng_open(&w, path, 1, QUARANTINE_SNAP, "mpe quarantine");
	if (rc < 0)
		MPE_LOG(ERR, engine, "quarantine: %s: %s: the %u packets are dropped and counted "
			"all the same", path, strerror(-rc), n);
	pthread_mutex_lock(&lock);
	for (i = 0; i < n; i++) {
		const struct rte_mbuf *m = h->pkts[i];
		uint32_t len = rte_pktmbuf_pkt_len(m), cap = RTE_MIN(len, (uint32_t)QUARANTINE_SNAP);
		const void *data = rte_pktmbuf_read(m, 0, cap, frame);
		struct mpe_flow_key key, canon;
		struct mpe_qflow *e;

		if (data == NULL)
			continue;
		if (rc == 0 && mpe_pcapng_packet(&w, now_ns, data, cap, len, text) == 0)
			written++;
		memset(&key, 0, sizeof(key));
		(void)mpe_pkt_flow_key(data, cap, &key);
		mpe_flow_key_canon(&key, &canon);
		e = entry_of(&p->shm->quar, &canon, now_ns);
		if (e == NULL)
			continue;
		e->quarantined++;
		for (j = 0; j < nb_seen && seen[j] != e; j++)
			;
		if (j == nb_seen)
			seen[nb_seen++] = e;
	}
	/* one death per flow, however many of its packets the burst held */
	for (j = 0; j < nb_seen; j++)
		count_death(p, seen[j], id, sig, now_ns);
	pthread_mutex_unlock(&lock);
	if (rc == 0 && mpe_pcapng_close(&w) < 0)
		written = 0;
	slot->ctl.quarantined += n;
	MPE_LOG(WARNING, engine, "worker %u: died by SIG%s in stage %u (%s): the %u packets in "
		"its hands are quarantined, never processed again (%u written to %s; %u flows)",
		id, sigabbrev_np(sig), h->stage, info != NULL ? info->name : "?", n, written, path,
		nb_seen);
	return n;
}

int
mpe_quarantine_clear(struct mpe_primary *p, int entry, unsigned int *forgotten)
{
	struct mpe_quarantine *q = &p->shm->quar;
	unsigned int i, n = 0;

	*forgotten = 0;
	pthread_mutex_lock(&lock);
	for (i = 0; i < q->nb; i++) {
		struct mpe_qflow *e = &q->flows[i];

		if ((entry >= 0 && (unsigned int)entry != i) || e->state == MPE_QFLOW_FREE)
			continue;
		if (e->state == MPE_QFLOW_BLOCKED) {
			__atomic_store_n(&e->state, MPE_QFLOW_FREE, __ATOMIC_RELEASE);
			__atomic_sub_fetch(&q->blocked, 1, __ATOMIC_RELEASE);
			n++;
		} else {
			e->state = MPE_QFLOW_FREE;
			(*forgotten)++;
		}
	}
	pthread_mutex_unlock(&lock);
	if (n + *forgotten == 0)
		return -ENOENT;
	MPE_LOG(NOTICE, engine, "quarantine: %u blocked flows released, %u suspects forgotten", n,
		*forgotten);
	return (int)n;
}
