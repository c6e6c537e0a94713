/* SPDX-License-Identifier: BSD-3-Clause */
/* Debug dumps: a text file in the runtime directory with the engine's state (memzones,
 * mempools, rings, workers, ports, flow tables), asked for by telemetry (/mpe/dump) or SIGUSR1.
 * Concurrency: runs in the telemetry thread or in the primary's supervising loop, beside the
 * I/O lcore and the workers. It only reads: shared memory, ring and mempool headers, device
 * counters. It never asks a worker anything and never waits for one, so a dump is written
 * while a worker is stopped, busy or dead. Counters move while they are read: a dump is not
 * one snapshot. Two dumps at once write two files.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "config.h"
#include "context.h"
#include "dump.h"
#include "flow.h"
#include "log.h"
#include "names.h"
#include "record.h"
#include "recorder.h"
#include "stage.h"
#include "stats.h"

#define FLOW_MZ_PREFIX "FT_" /* common/inspect/flow.c names a table's memzone "FT_<name>" */

volatile sig_atomic_t mpe_dump_requested;

static uint32_t dump_seq; /* files written by this primary, to keep names unique */

static struct mpe_kept_files kept = MPE_KEPT_FILES_INIT;

/* The newest MPE_DUMP_KEEP files of a kind stay; one more removes the oldest, so that asking
 * for them in a loop cannot fill the runtime directory's file system. */
void
mpe_dump_keep(struct mpe_kept_files *k, const char *path)
{
	pthread_mutex_lock(&k->lock);
	if (k->path[k->next][0] != '\0')
		unlink(k->path[k->next]);
	snprintf(k->path[k->next], sizeof(k->path[0]), "%s", path);
	k->next = (k->next + 1) % MPE_DUMP_KEEP;
	pthread_mutex_unlock(&k->lock);
}

int
mpe_dump_path(char *path, size_t size, const char *stem, const char *ext)
{
	uint32_t seq = __atomic_add_fetch(&dump_seq, 1, __ATOMIC_RELAXED);
	char stamp[32];
	struct tm tm;
	time_t now = time(NULL);
	int n;

	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
	n = snprintf(path, size, "%s/%s-%s-%u.%s", rte_eal_get_runtime_dir(), stem, stamp, seq,
		     ext);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static const char *const run_states[] = {"init", "active", "drain", "stop"};

static const char *const hand_phases[] = {"idle", "dequeue", "process", "enqueue",
					  "free", "device",  "tx", "carry"};

static double
seconds(uint64_t tsc, uint64_t hz)
{
	return hz == 0 ? 0.0 : (double)tsc / (double)hz;
}

static void
section(FILE *f, const char *name)
{
	fprintf(f, "\n== %s\n", name);
}

static void
dump_engine(FILE *f, const struct mpe_primary *p, const struct mpe_shared *shm)
{
	const struct mpe_conf *conf = &shm->conf;
	uint32_t rs = shm->run_state;
	unsigned int i;

	section(f, "engine");
	fprintf(f, "version %s, %s build, shape %s\n", shm->build_id,
		shm->worker_model ? "thread" : "process", mpe_config_shape_name(conf->shape));
	fprintf(f, "primary pid %d, file prefix %s, runtime directory %s\n", shm->primary_pid,
		p->file_prefix, rte_eal_get_runtime_dir());
	fprintf(f, "run state %s, uptime %.3f s, primary heartbeat %" PRIu64 "\n",
		rs < RTE_DIM(run_states) ? run_states[rs] : "?",
		seconds(rte_rdtsc() - shm->start_tsc, shm->tsc_hz), shm->primary_heartbeat);
	fprintf(f,
		"workers %u, ports %u, io lcore %d, burst %u, ring size %u%s, mbufs %u%s, "
		"backpressure %s\n",
		conf->nb_workers, conf->nb_ports,
		mpe_config_io_used(conf) ? (int)conf->io_lcore : -1, conf->burst,
		conf->ring_size, conf->ring_size_auto ? " (not given: longer into lcores that "
		"share a CPU, see rings)" : "", conf->mbufs, conf->mbufs_auto ? " (not given)" : "",
		conf->backpressure ? "on" : "off");
	fprintf(f, "lcores:");
	for (i = 0; i < conf->nb_workers; i++)
		fprintf(f, " w%u=%u", i, conf->workers[i].lcore);
	fprintf(f, "\n");
}

static void
one_pool(struct rte_mempool *mp, void *arg)
{
	FILE *f = arg;

	fprintf(f,
		"mempool %s: size %u, in_use %u, avail %u, cache %u, element %u bytes, "
		"socket %d\n",
		mp->name, mp->size, rte_mempool_in_use_count(mp), rte_mempool_avail_count(mp),
		mp->cache_size, mp->elt_size, mp->socket_id);
}

static void
dump_rings(FILE *f, const struct mpe_primary *p)
{
	unsigned int i;

	section(f, "rings");
	for (i = 0; i < p->nb_rings && i < RTE_DIM(p->rings); i++) {
		const struct rte_ring *r = p->rings[i];
		int c = p->ring_consumer[i];

		fprintf(f, "ring %s: count %u, capacity %u, free %u, consumer tail %u, consumer %s",
			r->name, rte_ring_count(r), rte_ring_get_capacity(r),
			rte_ring_free_count(r), r->cons.tail, MPE_END_IS_IO(c) ? "io" : "worker");
		if (!MPE_END_IS_IO(c))
			fprintf(f, " %d", c);
		else if (c != MPE_END_IO)
			fprintf(f, " lcore %u", p->shm->conf.io[MPE_END_IO_INDEX(c)].lcore);
		fprintf(f, "\n");
	}
	if (p->nb_rings == 0)
		fprintf(f, "none (the workers poll the ports and transmit)\n");
}

static void
counters(FILE *f, const char *indent, const struct mpe_counters *c)
{
	unsigned int r;

	fprintf(f,
		"%srx %" PRIu64 " tx %" PRIu64 " rx_bytes %" PRIu64 " bursts %" PRIu64
		" polls %" PRIu64 " cycles %" PRIu64 " wait_cycles %" PRIu64 "\n",
		indent, c->rx, c->tx, c->rx_bytes, c->bursts, c->polls, c->cycles, c->wait_cycles);
	fprintf(f, "%sdrops:", indent);
	for (r = 0; r < MPE_DROP_MAX; r++)
		fprintf(f, " %s %" PRIu64, mpe_stats_drop_name(r), c->drops[r]);
	fprintf(f, "\n");
}

static void
dump_worker(FILE *f, const struct mpe_primary *p, const struct mpe_shared *shm, unsigned int id)
{
	const struct mpe_worker_slot *slot = &shm->workers[id];
	const struct mpe_worker_conf *wc = &shm->conf.workers[id];
	char cause[sizeof(slot->ctl.last_cause)], error[sizeof(slot->status.error)];
	uint64_t beat = slot->status.heartbeat, seen = p->life[id].beat_tsc;
	uint32_t phase = slot->hand.phase;
	unsigned int s;

	/* the primary may rewrite these strings while we read them: copy, then terminate */
	memcpy(cause, slot->ctl.last_cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	memcpy(error, slot->status.error, sizeof(error));
	error[sizeof(error) - 1] = '\0';
	fprintf(f, "worker %u: pid %d, lcore %u, state %s, heartbeat %" PRIu64, id,
		slot->status.pid, wc->lcore, mpe_stats_state_name(slot->status.state), beat);
	/* the supervisor (process build) notes when it last saw the heartbeat move */
	if (seen != 0 && beat == p->life[id].beat)
		fprintf(f, " (unchanged for %.0f ms)",
			1000.0 * seconds(rte_rdtsc() - seen, shm->tsc_hz));
	fprintf(f, "\n");
	fprintf(f,
		"  control: stop %u down %u dead %u restarts %u lost %" PRIu64
		" last_recover_us %" PRIu64 "\n",
		slot->ctl.stop, slot->ctl.down, slot->ctl.dead, slot->ctl.restarts, slot->ctl.lost,
		slot->ctl.last_recover_us);
	fprintf(f, "  last cause: %s\n  error: %s\n", cause[0] ? cause : "-",
		error[0] ? error : "-");
	/* cons_mark: in phase dequeue, the input ring's consumer tail (rings above) */
	fprintf(f, "  hand: phase %s, n %u, kept %u, done %u, free_from %u, put %s (pool %u), "
		"in_ring %u, cons_mark %u\n",
		phase < RTE_DIM(hand_phases) ? hand_phases[phase] : "?", slot->hand.n,
		slot->hand.kept, slot->hand.done, slot->hand.free_from,
		mpe_pool_put_state_name(slot->hand.put.state), slot->hand.put.pool,
		slot->hand.in_ring, slot->hand.cons_mark[slot->hand.in_ring % MPE_MAX_IO]);
	counters(f, "  ", MPE_SHM_WORKER_CNT(shm, id));
	for (s = 0; s < wc->nb_stages && s < MPE_MAX_STAGES; s++) {
		const struct mpe_stage_info *info = mpe_stage_info(wc->stages[s]);
		const struct mpe_counters *sc = &slot->stage_cnt[s];

		fprintf(f,
			"  stage %u %s: packets %" PRIu64 " cycles %" PRIu64
			" drops verdict %" PRIu64 "\n",
			s, info != NULL ? info->name : "?", sc->rx, sc->cycles,
			sc->drops[MPE_DROP_VERDICT]);
	}
}

static void
dump_workers(FILE *f, const struct mpe_primary *p, const struct mpe_shared *shm)
{
	unsigned int i;

	section(f, "workers");
	for (i = 0; i < shm->conf.nb_workers && i < MPE_MAX_WORKERS; i++)
		dump_worker(f, p, shm, i);
	for (i = 0; i < shm->conf.nb_io; i++) {
		const struct mpe_io_stats *io = &shm->io[i];
		uint64_t got = 0, sent = 0;
		unsigned int j;

		for (j = 0; j < shm->conf.nb_ports; j++) {
			got += io->port[j].rx;
			sent += io->port[j].tx;
		}
		fprintf(f, "io lcore %u: pending %u, running %u, yields to a worker on its CPU %"
			PRIu64 ", polls with no room in the rings %" PRIu64 ", from the ports %"
			PRIu64 ", to the ports %" PRIu64 "\n", shm->conf.io[i].lcore, io->pending,
			io->running, io->yields_fill, io->full_polls, got, sent);
		counters(f, "  ", &io->io);
	}
}

static void
dump_ports(FILE *f, const struct mpe_shared *shm)
{
	const struct mpe_conf *conf = &shm->conf;
	unsigned int i;

	section(f, "ports");
	for (i = 0; i < conf->nb_ports; i++) {
		const struct mpe_port_conf *pc = &conf->ports[i];
		struct rte_eth_stats st;
		uint64_t rx = 0, tx = 0;
		unsigned int k;
		int rc;

		fprintf(f, "port %u (%s): ethdev %u, peer %u, rx queues %u, tx queues %u", i,
			pc->device, pc->port_id, pc->peer, pc->rx_queues, pc->nb_txq);
		for (k = 0; k < conf->nb_io; k++) {
			rx += shm->io[k].port[i].rx;
			tx += shm->io[k].port[i].tx;
		}
		if (mpe_config_io_used(conf))
			fprintf(f, ", engine rx %" PRIu64 " tx %" PRIu64, rx, tx);
		fprintf(f, "\n");
		rc = rte_eth_stats_get(pc->port_id, &st);
		if (rc != 0) {
			fprintf(f, "  device stats: %s\n", strerror(-rc));
			continue;
		}
		fprintf(f,
			"  device: ipackets %" PRIu64 " opackets %" PRIu64 " ibytes %" PRIu64
			" obytes %" PRIu64 " imissed %" PRIu64 " ierrors %" PRIu64
			" oerrors %" PRIu64 " rx_nombuf %" PRIu64 "\n",
			st.ipackets, st.opackets, st.ibytes, st.obytes, st.imissed, st.ierrors,
			st.oerrors, st.rx_nombuf);
	}
}

static void
flow_table(FILE *f, const struct mpe_flow_table *t)
{
	struct mpe_flow_stats st;

	mpe_flow_table_stats(t, &st);
	fprintf(f,
		"table %s: capacity %u, active %" PRIu64 ", inserted %" PRIu64 ", expired %" PRIu64
		", table_full %" PRIu64 ", lookups %" PRIu64 " (%" PRIu64 " from the %u-way cache of %u)"
		", resets %" PRIu64 ", unhash_miss %" PRIu64 "\n",
		t->name, t->capacity, st.active, st.inserted, st.expired, st.table_full, st.lookups,
		st.cache_hits, MPE_FLOW_CACHE_WAYS, t->cache_mask + 1, st.resets, st.unhash_miss);
}

#define MAX_OTHER_TABLES 64

/* Names of the flow tables found among the memzones: collected during the walk and looked up
 * after it, since a lookup inside the walk would take the memzone lock a second time. */
struct table_names {
	char name[MAX_OTHER_TABLES][MPE_FLOW_NAME_MAX + 1];
	unsigned int n;
	unsigned int skipped;
};

static void
collect_table(const struct rte_memzone *mz, void *arg)
{
	struct table_names *tn = arg;
	size_t plen = strlen(FLOW_MZ_PREFIX);

	if (strncmp(mz->name, FLOW_MZ_PREFIX, plen) != 0 ||
	    strlen(mz->name + plen) > MPE_FLOW_NAME_MAX)
		return;
	if (tn->n == MAX_OTHER_TABLES) {
		tn->skipped++;
		return;
	}
	snprintf(tn->name[tn->n++], sizeof(tn->name[0]), "%s", mz->name + plen);
}

static void
dump_flows(FILE *f, const struct mpe_shared *shm)
{
	struct table_names tn = {.n = 0};
	char name[MPE_FLOW_NAME_MAX + 1];
	unsigned int i, w;

	section(f, "flow tables");
	for (i = 0; i < shm->conf.nb_workers; i++) {
		const struct mpe_flow_table *t = NULL;

		if (mpe_names_flow(name, sizeof(name), (int)i) == 0)
			t = mpe_flow_table_lookup(name);
		fprintf(f, "worker %u: ", i);
		if (t == NULL)
			fprintf(f, "none\n");
		else
			flow_table(f, t);
	}
	/* tables of other names (tests, tools): listed too */
	rte_memzone_walk(collect_table, &tn);
	for (i = 0; i < tn.n; i++) {
		const struct mpe_flow_table *t;

		for (w = 0; w < shm->conf.nb_workers; w++)
			if (mpe_names_flow(name, sizeof(name), (int)w) == 0 &&
			    strcmp(name, tn.name[i]) == 0)
				break;
		if (w < shm->conf.nb_workers)
			continue;
		t = mpe_flow_table_lookup(tn.name[i]);
		if (t == NULL)
			continue;
		fprintf(f, "other ");
		flow_table(f, t);
	}
	if (tn.skipped > 0)
		fprintf(f, "(%u more flow tables not listed)\n", tn.skipped);
}

/* Each worker's flight recorder, written beside the dump as pcapng (record.c). */
static void
dump_recorders(FILE *f, const struct mpe_primary *p, const struct mpe_shared *shm)
{
	char path[PATH_MAX];
	unsigned int i;
	int n;

	section(f, "recorder");
	if (!shm->conf.recorder) {
		fprintf(f, "off (recorder = off)\n");
		return;
	}
	for (i = 0; i < shm->conf.nb_workers && i < MPE_MAX_WORKERS; i++) {
		const struct mpe_rec_ring *r = shm->workers[i].ctl.rec;

		n = mpe_record_file(p, i, path, sizeof(path));
		fprintf(f, "worker %u: head %" PRIu64 ", ", i, r != NULL ? r->head : 0);
		if (n < 0)
			fprintf(f, "not written: %s\n", strerror(-n));
		else
			fprintf(f, "last %d packets in %s\n", n, path);
	}
}

/* Everything, into @f. */
static void
dump_all(FILE *f, const struct mpe_primary *p, const struct mpe_shared *shm)
{
	char when[64];
	struct tm tm;
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", localtime_r(&now, &tm));
	fprintf(f, "mpe dump, %s, primary pid %d\n", when, shm->primary_pid);
	dump_engine(f, p, shm);
	section(f, "memzones");
	rte_memzone_dump(f);
	section(f, "mempools");
	rte_mempool_walk(one_pool, f);
	dump_rings(f, p);
	dump_workers(f, p, shm);
	dump_ports(f, shm);
	dump_flows(f, shm);
	dump_recorders(f, p, shm);
	fprintf(f, "\n== end\n");
}

int
mpe_dump_write(const struct mpe_primary *p, char *path, size_t size)
{
	const struct mpe_shared *shm = p->shm;
	FILE *f;
	int fd, n;

	if (shm == NULL || shm->run_state == MPE_RUN_STOP)
		return -ENODEV;
	n = mpe_dump_path(path, size, "mpe-dump", "txt");
	if (n < 0)
		return n;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (f == NULL) {
		n = -errno;
		close(fd);
		unlink(path);
		return n;
	}
	dump_all(f, p, shm);
	if (ferror(f)) {
		fclose(f);
		unlink(path);
		return -EIO;
	}
	if (fclose(f) != 0) {
		n = -errno;
		unlink(path);
		return n;
	}
	mpe_dump_keep(&kept, path);
	return 0;
}

void
mpe_dump_on_signal(int sig)
{
	mpe_dump_requested = sig;
}

void
mpe_dump_poll(const struct mpe_primary *p)
{
	char path[PATH_MAX];
	int rc;

	if (!mpe_dump_requested)
		return;
	mpe_dump_requested = 0;
	rc = mpe_dump_write(p, path, sizeof(path));
	if (rc == 0)
		MPE_LOG(NOTICE, engine, "dump: written to %s", path);
	else
		MPE_LOG(ERR, engine, "dump: cannot write it: %s", strerror(-rc));
}
