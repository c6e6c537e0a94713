/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's shared objects, made by the primary before any worker starts and freed after
 * every worker and port stopped: the memzone mpe_shared, the mbuf pool and the rings, sized
 * for where the workers run. Main lcore only. */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_memzone.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "config.h"
#include "context.h"
#include "inspect.h"
#include "launch.h"
#include "log.h"
#include "names.h"
#include "objects.h"
#include "parse.h"
#include "pool.h"
#include "port.h"
#include "recorder.h"
#include "shm_ops.h"
#include "stage.h"

/* This host as the EAL sees it: each enabled lcore's socket, each port's (a virtual device
 * has none). */
static void
describe_host(const struct mpe_conf *conf, struct mpe_topology *t)
{
	unsigned int i;
	uint16_t pid;

	for (i = 0; i < RTE_MAX_LCORE; i++)
		t->lcore_socket[i] = rte_lcore_is_enabled(i) ? (int)rte_lcore_to_socket_id(i) :
							       MPE_SOCKET_UNKNOWN;
	for (i = 0; i < MPE_MAX_PORTS; i++)
		t->port_socket[i] = i < conf->nb_ports &&
					    rte_eth_dev_get_port_by_name(conf->ports[i].device,
									 &pid) == 0 ?
					    rte_eth_dev_socket_id(pid) :
					    MPE_SOCKET_UNKNOWN;
}

static int
pool_socket(const struct mpe_placement *pl, unsigned int k)
{
	return pl->pool_socket[k] != MPE_SOCKET_UNKNOWN ? pl->pool_socket[k] :
							  (int)rte_socket_id();
}

/* "mbuf pool on socket 0"; with several, "2 mbuf pools: mpe_mbufs on socket 0 for port 0,
 * mpe_mbufs_1 on socket 1 for ports 1 2". */
static void
pools_text(const struct mpe_conf *conf, const struct mpe_placement *pl, char *buf, size_t size)
{
	unsigned int k, i;
	size_t len;

	if (pl->nb_pools == 1) {
		snprintf(buf, size, "mbuf pool on socket %d", pool_socket(pl, 0));
		return;
	}
	len = (size_t)snprintf(buf, size, "%u mbuf pools:", pl->nb_pools);
	for (k = 0; k < pl->nb_pools && len < size; k++) {
		char name[RTE_MEMPOOL_NAMESIZE];
		unsigned int nb = 0;

		for (i = 0; i < conf->nb_ports; i++)
			nb += conf->ports[i].rx && pl->port_pool[i] == k;
		mpe_names_pool(name, sizeof(name), k);
		len += (size_t)snprintf(buf + len, size - len, "%s %s on socket %d for port%s",
					k > 0 ? "," : "", name, pool_socket(pl, k),
					nb > 1 ? "s" : "");
		for (i = 0; i < conf->nb_ports && len < size; i++)
			if (conf->ports[i].rx && pl->port_pool[i] == k)
				len += (size_t)snprintf(buf + len, size - len, " %u", i);
	}
}

/* Where the pool, the rings and the flow tables go (docs/configuration.md#numa-placement),
 * said in the log; a polling lcore across sockets from a port it serves is warned about, or
 * refused with numa = refuse. */
static int
place(struct mpe_primary *p, const int (*ends)[2], unsigned int n)
{
	const struct mpe_conf *conf = &p->shm->conf;
	struct mpe_topology t;
	char pools[1024];
	unsigned int i;

	describe_host(conf, &t);
	mpe_place(conf, &t, ends, n, &p->place);
	pools_text(conf, &p->place, pools, sizeof(pools));
	MPE_LOG(INFO, engine, "placement: %s, %u rings and the flow tables on their consumers' "
		"sockets, %u polling lcores serve a port across sockets", pools, n,
		p->place.nb_far);
	for (i = 0; i < p->place.nb_far; i++) {
		const struct mpe_far *f = &p->place.far[i];
		char who[32];

		if (f->io)
			snprintf(who, sizeof(who), "I/O lcore %u", f->lcore);
		else
			snprintf(who, sizeof(who), "worker %u (lcore %u)", f->id, f->lcore);
		if (conf->numa_refuse)
			MPE_LOG(ERR, engine, "%s is on socket %d and %s port %u (%s) on socket %d "
				"(numa = refuse): move it to a CPU of socket %d", who, f->socket,
				f->tx ? "transmits to" : "polls", f->port,
				conf->ports[f->port].device, f->port_socket, f->port_socket);
		else
			MPE_LOG(WARNING, engine, "%s is on socket %d and %s port %u (%s) on socket "
				"%d: every packet crosses between the sockets", who, f->socket,
				f->tx ? "transmits to" : "polls", f->port,
				conf->ports[f->port].device, f->port_socket);
	}
	return conf->numa_refuse && p->place.nb_far > 0 ? -EINVAL : 0;
}

/* The shape's rings, as [producer, consumer]: a worker's id (with its lane, MPE_END_LANE)
 * or an I/O lcore's end (MPE_END_IO_K). One producer and one consumer each: with several
 * I/O lcores, a ring per (I/O lcore, worker) pair in each direction it carries packets, and
 * in a pipeline a lane per transmitting I/O lcore between each two stages. */
static unsigned int
ring_ends(const struct mpe_conf *conf, int ends[][2])
{
	unsigned int i, k, l, n = 0, last = conf->nb_workers - 1U;

	if (conf->shape == MPE_SHAPE_PIPELINE) {
		for (k = 0; k < conf->nb_io; k++)
			if (mpe_config_io_rx(conf, k))
				ends[n][0] = MPE_END_IO_K(k), ends[n][1] = 0, n++;
		for (i = 1; i < conf->nb_workers; i++)
			for (l = 0; l < mpe_config_pipe_lanes(conf); l++)
				ends[n][0] = MPE_END_LANE(i - 1, l), ends[n][1] = MPE_END_LANE(i, l),
				n++;
		for (k = 0; k < conf->nb_io && !mpe_config_worker_transmits(conf, last); k++)
			if (conf->io[k].tx)
				ends[n][0] = (int)last, ends[n][1] = MPE_END_IO_K(k), n++;
	} else if (conf->shape == MPE_SHAPE_DISTRIBUTOR) {
		for (i = 0; i < conf->nb_workers; i++) {
			for (k = 0; k < conf->nb_io; k++)
				if (mpe_config_io_rx(conf, k))
					ends[n][0] = MPE_END_IO_K(k), ends[n][1] = (int)i, n++;
			for (k = 0; k < conf->nb_io && !mpe_config_worker_transmits(conf, i); k++)
				if (conf->io[k].tx)
					ends[n][0] = (int)i, ends[n][1] = MPE_END_IO_K(k), n++;
		}
	}
	return n;
}

/* Whether the lcore at ring end @end shares its CPU with another polling lcore. */
static int
end_shares_cpu(const struct mpe_primary *p, int end)
{
	return MPE_END_IS_IO(end) ? p->io_yield_idle[MPE_END_IO_INDEX(end)] :
				    (int)p->shm->workers[MPE_END_WORKER(end)].ctl.yield_idle;
}

/* Ring lengths. A lcore that shares its CPU with another polling lcore is off it while the
 * other runs, and takes it over when its input ring is half full (the I/O lcore) or when the
 * other's input ring is empty (a worker): its input ring must hold what comes in meanwhile,
 * and how long it is sets how often the CPU changes hands. Every handover costs both builds,
 * the process build a little more (a change of address space). With ring_size left out, a
 * ring into such a lcore is MPE_DEF_SHARED_RING_SIZE long, and the pool grows to fill it
 * unless mbufs is given; a ring into a lcore with a CPU of its own keeps ring_size. Where
 * the hugepages cannot hold the larger pool, mpe_objects_create goes back to ring_size. */
static void
size_rings(struct mpe_primary *p, int ends[][2], unsigned int n, uint32_t *sizes)
{
	struct mpe_conf *conf = &p->shm->conf;
	uint32_t longer = RTE_MAX(conf->ring_size, (uint32_t)MPE_DEF_SHARED_RING_SIZE);
	uint64_t slots = 0, need;
	unsigned int i, nb_long = 0, nb_listed = 0;
	char names[192] = "", more[32] = "";
	size_t off = 0;

	for (i = 0; i < n; i++) {
		char name[RTE_RING_NAMESIZE];

		sizes[i] = conf->ring_size;
		if (conf->ring_size_auto && end_shares_cpu(p, ends[i][1]) &&
		    longer > conf->ring_size) {
			sizes[i] = longer;
			nb_long++;
			mpe_names_ring(name, sizeof(name), ends[i][0], ends[i][1]);
			/* whole names only; the log says how many more */
			if (off + strlen(name) + 2 < sizeof(names)) {
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							off ? ", " : "", name);
				nb_listed++;
			}
		}
		slots += sizes[i];
	}
	if (nb_long == 0)
		return;
	if (nb_listed < nb_long)
		snprintf(more, sizeof(more), " and %u more", nb_long - nb_listed);
	need = mpe_config_mbufs_need(conf, slots) + p->mbufs_held;
	if (need > conf->mbufs && (!conf->mbufs_auto || mpe_config_mbufs_auto(need) == 0)) {
		MPE_LOG(NOTICE, engine, "mbufs = %u cannot fill %u-slot rings into lcores that "
			"share a CPU (%" PRIu64 " needed): every ring holds ring_size = %u, and the "
			"CPU changes hands more often", conf->mbufs, longer, need, conf->ring_size);
		for (i = 0; i < n; i++)
			sizes[i] = conf->ring_size;
		return;
	}
	if (need > conf->mbufs)
		conf->mbufs = mpe_config_mbufs_auto(need);
	MPE_LOG(NOTICE, engine, "ring_size not given: %u slots (not %u) for %s%s, into lcores "
		"that share a CPU with another polling lcore, so that it changes hands less often; "
		"mbufs %u", longer, conf->ring_size, names, more, conf->mbufs);
}

static int
create_rings(struct mpe_primary *p, int ends[][2], unsigned int n, const uint32_t *sizes)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char name[RTE_RING_NAMESIZE];

		mpe_names_ring(name, sizeof(name), ends[i][0], ends[i][1]);
		/* one producer and one consumer per edge: a dead worker cannot leave a
		 * multi-producer ring half-updated for everybody else */
		p->rings[i] = rte_ring_create(name, sizes[i], p->place.ring_socket[i],
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		p->ring_consumer[i] = MPE_END_WORKER(ends[i][1]);
		if (p->rings[i] == NULL) {
			MPE_LOG(ERR, engine, "ring %s: %s", name, rte_strerror(rte_errno));
			return -rte_errno;
		}
		p->nb_rings = i + 1;
	}
	return 0;
}

static void
free_pools(struct mpe_primary *p)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(p->pools); k++) {
		rte_mempool_free(p->pools[k]);
		p->pools[k] = NULL;
		mpe_pools_mapped[k] = NULL;
	}
	mpe_pool_mapped = NULL;
}

/* The mbuf pools, each of mbufs on its socket; the private area carries what the parse stage
 * decoded to the stages after it. 0, or -1 with rte_errno set and none left. */
static int
create_pools(struct mpe_primary *p, const struct mpe_conf *conf)
{
	unsigned int k;

	for (k = 0; k < p->place.nb_pools; k++) {
		char name[RTE_MEMPOOL_NAMESIZE];
		int s = p->place.pool_socket[k];

		if (mpe_names_pool(name, sizeof(name), k) < 0) {
			rte_errno = ENAMETOOLONG;
			break;
		}
		p->pools[k] = rte_pktmbuf_pool_create(
			name, p->shm->conf.mbufs, conf->mbuf_cache, MPE_PKT_PRIV_SIZE,
			(uint16_t)(conf->mbuf_data + RTE_PKTMBUF_HEADROOM),
			s != MPE_SOCKET_UNKNOWN ? s : (int)rte_socket_id());
		if (p->pools[k] == NULL && rte_errno == ENOMEM && s != MPE_SOCKET_UNKNOWN &&
		    rte_socket_count() > 1) {
			/* a socket without hugepages of its own (--socket-mem 1024,0): another
			 * one, said, rather than no start */
			p->pools[k] = rte_pktmbuf_pool_create(
				name, p->shm->conf.mbufs, conf->mbuf_cache, MPE_PKT_PRIV_SIZE,
				(uint16_t)(conf->mbuf_data + RTE_PKTMBUF_HEADROOM), SOCKET_ID_ANY);
			if (p->pools[k] != NULL)
				MPE_LOG(WARNING, engine, "mempool %s: no hugepage memory on socket "
					"%d for %u mbufs: placed on socket %d", name, s,
					p->shm->conf.mbufs, p->pools[k]->socket_id);
			else
				rte_errno = ENOMEM;
		}
		if (p->pools[k] == NULL)
			break;
	}
	if (k < p->place.nb_pools) {
		int e = rte_errno;

		free_pools(p);
		rte_errno = e;
		return -1;
	}
	p->shm->nb_pools = p->place.nb_pools;
	memcpy(p->shm->port_pool, p->place.port_pool, sizeof(p->shm->port_pool));
	mpe_pool_mapped = p->pools[0];
	memcpy(mpe_pools_mapped, p->pools, sizeof(mpe_pools_mapped));
	return 0;
}

void
mpe_objects_flush_caches(struct mpe_primary *p, unsigned int lcore_id)
{
	unsigned int k;

	for (k = 0; k < RTE_DIM(p->pools) && p->pools[k] != NULL; k++) {
		struct rte_mempool_cache *c;

		if (p->pools[k]->cache_size == 0)
			continue;
		c = rte_mempool_default_cache(p->pools[k], lcore_id);
		if (c != NULL)
			rte_mempool_cache_flush(c, p->pools[k]);
	}
}

/* A port's device that keeps mbufs of the pool for itself (net_pcap's infinite_rx holds its
 * whole capture) leaves that many fewer for the queues, rings and caches: a pool left to the
 * engine grows by them; a given one that cannot hold both is said to be short. */
static void
hold_for_devices(struct mpe_primary *p)
{
	struct mpe_conf *conf = &p->shm->conf;
	uint64_t need;
	char who[256];

	p->mbufs_held = mpe_port_mbufs_held(conf, who, sizeof(who));
	if (p->mbufs_held == 0)
		return;
	need = mpe_config_mbufs_need(conf, (uint64_t)mpe_config_nb_rings(conf) * conf->ring_size) +
	       p->mbufs_held;
	if (need > conf->mbufs && conf->mbufs_auto && mpe_config_mbufs_auto(need) != 0) {
		conf->mbufs = mpe_config_mbufs_auto(need);
		MPE_LOG(NOTICE, engine, "net_pcap keeps its capture in the pool (infinite_rx; "
			"%s mbufs): mbufs %u", who, conf->mbufs);
	} else if (need > conf->mbufs) {
		MPE_LOG(WARNING, engine, "mbufs = %u: net_pcap keeps %" PRIu64 " of them "
			"(infinite_rx; %s), and the queues, rings and caches may take "
			"%" PRIu64 " more", conf->mbufs, p->mbufs_held, who, need - p->mbufs_held);
	} else {
		MPE_LOG(INFO, engine, "net_pcap keeps its capture in the pool (infinite_rx; %s "
			"mbufs)", who);
	}
}

/* The mutex each worker instance holds while it runs (shm.h): process-shared, robust. */
static void
init_life(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

/* Polling lcores that share a CPU (more lcores than CPUs, as on a small test host) would each
 * spin through its time slice while the other one has the packets: such lcores give the CPU
 * away after a poll that found nothing. Lcores on CPUs of their own never make that call. */
static void
mark_shared_cpus(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	cpu_set_t io_cpus[MPE_MAX_IO], both;
	unsigned int i, j, k;

	for (k = 0; k < conf->nb_io; k++)
		io_cpus[k] = rte_lcore_cpuset(conf->io[k].lcore);
	for (i = 0; i < conf->nb_workers; i++) {
		int shared = 0;

		for (k = 0; k < conf->nb_io && !shared; k++) {
			CPU_AND(&both, &p->cpus[i], &io_cpus[k]);
			shared = CPU_COUNT(&both) > 0;
		}
		for (j = 0; j < conf->nb_workers && !shared; j++) {
			CPU_AND(&both, &p->cpus[i], &p->cpus[j]);
			shared = j != i && CPU_COUNT(&both) > 0;
		}
		p->shm->workers[i].ctl.yield_idle = (uint32_t)shared;
		/* until a standby takes its place (launch_process.c) */
		p->shm->workers[i].ctl.lcore = conf->workers[i].lcore;
		init_life(&p->shm->workers[i].status.life);
		for (k = 0; k < conf->nb_io; k++) {
			CPU_AND(&both, &p->cpus[i], &io_cpus[k]);
			if (CPU_COUNT(&both) > 0) {
				p->io_yield_idle[k] = 1;
				p->io_shares[k][i] = 1;
			}
		}
		if (shared)
			MPE_LOG(NOTICE, engine, "worker %u: lcore %u shares its CPU with another "
				"polling lcore: it yields the CPU when a poll finds nothing", i,
				conf->workers[i].lcore);
	}
	for (k = 0; k < conf->nb_io; k++) {
		int with_worker = p->io_yield_idle[k];

		/* I/O lcores that share a CPU take turns as a worker does */
		for (j = 0; j < conf->nb_io && !p->io_yield_idle[k]; j++) {
			CPU_AND(&both, &io_cpus[k], &io_cpus[j]);
			p->io_yield_idle[k] = j != k && CPU_COUNT(&both) > 0;
		}
		if (with_worker)
			MPE_LOG(NOTICE, engine, "I/O lcore %u shares its CPU with a worker: it yields "
				"the CPU when a loop moves nothing, or when that worker's input ring "
				"fills", conf->io[k].lcore);
		else if (p->io_yield_idle[k])
			MPE_LOG(NOTICE, engine, "I/O lcore %u shares its CPU with another I/O lcore: "
				"it yields the CPU when a loop moves nothing", conf->io[k].lcore);
	}
}

/* NIC-bound hosts isolate the CPUs their polling lcores run on; say so when they do not. */
static void
warn_not_isolated(const struct mpe_primary *p)
{
	char buf[1024] = "";
	cpu_set_t iso;
	unsigned int i;
	FILE *f = fopen("/sys/devices/system/cpu/isolated", "r");

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	if (mpe_parse_cpulist(buf, &iso) < 0)
		CPU_ZERO(&iso);
	for (i = 0; i < p->shm->conf.nb_workers; i++) {
		cpu_set_t both;

		CPU_AND(&both, &p->cpus[i], &iso);
		if (!CPU_EQUAL(&both, &p->cpus[i]))
			MPE_LOG(WARNING, engine, "worker %u: lcore %u runs on CPUs not isolated "
				"from the kernel scheduler (isolcpus): expect jitter", i,
				p->shm->conf.workers[i].lcore);
	}
}

/* The flight recorder of every worker, one memzone (common/shm/recorder.h); none when
 * recorder = off. Lives as long as the engine: a worker's restart keeps its records. */
static int
create_recorder(struct mpe_shared *shm)
{
	const struct mpe_conf *c = &shm->conf;
	uint64_t one = mpe_rec_ring_size(c->recorder_packets, c->recorder_snap);
	const struct rte_memzone *mz;
	unsigned int i;

	if (!c->recorder)
		return 0;
	mz = rte_memzone_reserve_aligned(MPE_NAME_RECORDER, one * c->nb_workers,
					 rte_socket_id(), 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		MPE_LOG(ERR, engine, "memzone %s (%" PRIu64 " bytes): %s", MPE_NAME_RECORDER,
			one * c->nb_workers, rte_strerror(rte_errno));
		return -rte_errno;
	}
	for (i = 0; i < c->nb_workers; i++) {
		struct mpe_rec_ring *r = (struct mpe_rec_ring *)((uintptr_t)mz->addr + i * one);

		mpe_rec_ring_init(r, c->recorder_packets, c->recorder_snap, c->burst);
		shm->workers[i].ctl.rec = r;
	}
	return 0;
}

int
mpe_objects_create(struct mpe_primary *p, const struct mpe_conf *conf)
{
	static const struct rte_mbuf_dynfield meta_desc = {
		.name = MPE_META_NAME,
		.size = sizeof(struct mpe_meta),
		.align = __alignof__(struct mpe_meta),
	};
	int ends[MPE_MAX_RINGS][2];
	uint32_t sizes[MPE_MAX_RINGS], mbufs;
	unsigned int n, i;
	int off, rc;

	for (i = 0; i < conf->nb_io; i++) {
		unsigned int lc = conf->io[i].lcore;

		if (rte_lcore_is_enabled(lc) && lc != rte_get_main_lcore())
			continue;
		MPE_LOG(ERR, engine, "%s %u is %s: enable it with -l/--lcores and keep it off the "
			"main lcore", conf->io_implicit ? "io_lcore" : "I/O lcore", lc,
			lc == rte_get_main_lcore() ? "the main lcore" : "not enabled");
		return -EINVAL;
	}
	off = rte_mbuf_dynfield_register(&meta_desc);
	if (off < 0) {
		MPE_LOG(ERR, engine, "mbuf field %s: %s", MPE_META_NAME, rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->shm = mpe_shm_create(conf, mpe_launch_model_id);
	if (p->shm == NULL) {
		MPE_LOG(ERR, engine, "memzone %s: %s", MPE_NAME_SHM, rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->shm->meta_offset = off;
	rc = create_recorder(p->shm);
	if (rc < 0)
		return rc;
	rc = mpe_launch_check(p);
	if (rc < 0)
		return rc;
	warn_not_isolated(p);
	mark_shared_cpus(p);
	hold_for_devices(p);
	n = ring_ends(&p->shm->conf, ends);
	rc = place(p, (const int(*)[2])ends, n);
	if (rc < 0)
		return rc;
	mbufs = p->shm->conf.mbufs;
	size_rings(p, ends, n, sizes);
	rc = create_pools(p, conf);
	if (rc < 0 && rte_errno == ENOMEM && p->shm->conf.mbufs != mbufs) {
		MPE_LOG(NOTICE, engine, "no hugepage memory for %u mbufs: every ring holds "
			"ring_size = %u, and %s %u mbufs (give ring_size to choose)",
			p->shm->conf.mbufs, conf->ring_size,
			p->place.nb_pools > 1 ? "each pool" : "the pool", mbufs);
		p->shm->conf.mbufs = mbufs;
		for (i = 0; i < n; i++)
			sizes[i] = conf->ring_size;
		rc = create_pools(p, conf);
	}
	if (rc < 0) {
		MPE_LOG(ERR, engine, "%u mbuf pool%s of %u: %s", p->place.nb_pools,
			p->place.nb_pools > 1 ? "s" : "", p->shm->conf.mbufs,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	if (mpe_inspect_init(p) < 0)
		return -EINVAL;
	return create_rings(p, ends, n, sizes);
}


void
mpe_objects_free(struct mpe_primary *p)
{
	unsigned int i;

	for (i = 0; i < p->nb_rings; i++)
		rte_ring_free(p->rings[i]);
	p->nb_rings = 0;
	for (i = 0; i < RTE_DIM(p->pools) && p->pools[i] != NULL; i++) {
		struct rte_mempool *mp = p->pools[i];
		unsigned int missing, twice;
		char who[RTE_MEMPOOL_NAMESIZE + 8] = "";

		/* with several pools, each line says which */
		if (i > 0 || (i + 1 < RTE_DIM(p->pools) && p->pools[i + 1] != NULL))
			snprintf(who, sizeof(who), " %s", mp->name);
		/* every queue is empty and every port stopped: nothing may hold an mbuf now, and
		 * the pool must hold each exactly once */
		if (mpe_pool_audit(mp, &missing, &twice) < 0) {
			missing = rte_mempool_in_use_count(mp);
			twice = 0;
		}
		if (twice != 0)
			MPE_LOG(ERR, engine, "mempool%s: %u entries of the pool repeat an mbuf: "
				"it would have handed them out twice", who, twice);
		if (missing != 0)
			MPE_LOG(WARNING, engine, "mempool%s: %u mbufs still in use at exit: lost",
				who, missing);
		if (missing == 0 && twice == 0)
			MPE_LOG(INFO, engine, "mempool%s: every mbuf back in the pool, once", who);
	}
	free_pools(p);
	if (p->shm != NULL) {
		mpe_shm_free(p->shm);
		p->shm = NULL;
	}
}
