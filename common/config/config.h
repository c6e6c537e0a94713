/* SPDX-License-Identifier: BSD-3-Clause */
/* Engine configuration: the plain-data form published in shared memory, and its parser.
 * Parsing and validation run in one process (the primary, or `--check`), before any EAL
 * object exists; the result holds no pointers, so every worker can read its copy.
 */
#ifndef MPE_CONFIG_H
#define MPE_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#define MPE_MAX_PORTS 16
#define MPE_MAX_WORKERS 32
#define MPE_MAX_STANDBY 8 /* standby worker processes */
#define MPE_MAX_STAGES 8 /* stages one worker runs */
#define MPE_MAX_QUEUES 16
#define MPE_MAX_IO 4 /* I/O lcores ([io N] sections) */
/* rings: one per (I/O lcore, worker) pair in each direction at most */
#define MPE_MAX_RINGS (2 * MPE_MAX_IO * MPE_MAX_WORKERS)
#define MPE_MAX_BURST 256
#define MPE_DEVNAME_LEN 64
#define MPE_PORT_NONE UINT16_MAX
#define MPE_CPU_ANY UINT16_MAX
#define MPE_QUEUE_AUTO UINT16_MAX /* [worker N] queue not given: the worker's id */

/* Defaults: named here, applied by the table in config.c. */
#define MPE_DEF_BURST 32
#define MPE_DEF_RING_SIZE 1024
#define MPE_DEF_SHARED_RING_SIZE 8192 /* ring_size not given: into a lcore sharing a CPU */
#define MPE_DEF_MBUFS 8191
#define MPE_MAX_MBUFS 4194303
#define MPE_DEF_MBUF_CACHE 256
#define MPE_DEF_MBUF_DATA 2048
#define MPE_DEF_RX_DESC 1024
#define MPE_DEF_TX_DESC 1024
#define MPE_DEF_IO_LCORE 1
#define MPE_DEF_READY_TIMEOUT_MS 10000
#define MPE_DEF_DRAIN_TIMEOUT_MS 2000
#define MPE_DEF_STALL_TIMEOUT_MS 2000
#define MPE_DEF_CYCLES_SAMPLE 8
#define MPE_DEF_RESTART_MAX 10
#define MPE_DEF_RESTART_WINDOW_MS 60000
#define MPE_DEF_RESTART_BACKOFF_MS 50
#define MPE_DEF_FLOW_CAPACITY 65536
#define MPE_DEF_FLOW_TIMEOUT_MS 30000
#define MPE_DEF_RECORDER_PACKETS 1024
#define MPE_DEF_RECORDER_SNAP 128
#define MPE_MAX_RECORDER_SNAP 2048
#define MPE_DEF_QUARANTINE_AFTER 2
#define MPE_PATH_LEN 256
#define MPE_USER_LEN 32
#define MPE_UID_NONE UINT32_MAX

enum mpe_shape {
	MPE_SHAPE_PIPELINE,    /* io rx -> w0 -> w1 -> ... -> io tx */
	MPE_SHAPE_DISTRIBUTOR, /* io rx spreads by flow hash over identical workers */
	MPE_SHAPE_RSS,	       /* each worker polls its own queue of every port */
};

struct mpe_port_conf {
	char device[MPE_DEVNAME_LEN]; /* ethdev name: a --vdev name or a PCI address */
	uint16_t peer;		      /* index into ports[] that receives what this port receives */
	uint16_t rx_queues;	      /* 0: as many as the shape needs */
	uint8_t rx;		      /* 0: never polled (a transmit-only port) */
	uint8_t has_dst_mac;
	uint8_t dst_mac[6]; /* destination MAC written into frames sent out of this port */
	int line;	    /* where the section starts, for messages */
	/* filled by the primary when the port is started, before any worker exists */
	uint16_t port_id; /* ethdev port id (the same in every process) */
	uint16_t nb_txq;
	uint8_t mac[6];
};

struct mpe_worker_conf {
	uint16_t lcore;
	uint16_t cpu; /* MPE_CPU_ANY: the primary chooses */
	/* The queue this worker owns on every port: rss: the RX queue it polls and the TX queue
	 * it sends on; tx = workers: the TX queue. Its id unless the configuration says. */
	uint16_t queue;
	uint8_t nb_stages;
	uint8_t stages[MPE_MAX_STAGES]; /* indices into the stage table (common/stages/stage.h) */
	int line;
};

/* An I/O lcore of its own section ([io N]): the (port, queue) pairs it receives from, and
 * whether it transmits (on a TX queue of its own of every port, what came in through it). */
struct mpe_io_conf {
	uint16_t lcore;
	uint16_t tx;		      /* 1: it transmits */
	uint16_t rxq[MPE_MAX_PORTS]; /* bit q: it polls RX queue q of that port */
	uint16_t rx_all;	      /* bit p: `rx` named port p whole (its queues once known) */
	uint16_t rx_given;	      /* 1: `rx` was given */
	int line;
};

struct mpe_conf {
	char path[MPE_PATH_LEN];
	uint32_t shape; /* enum mpe_shape */
	uint32_t burst;
	uint32_t ring_size;
	uint32_t mbufs;
	uint32_t ring_size_auto; /* 1: not given: rings into lcores sharing a CPU are longer */
	uint32_t mbufs_auto;	 /* 1: not given: what the rings, queues and caches need */
	uint32_t mbuf_cache;
	uint32_t mbuf_data;
	uint32_t rx_desc;
	uint32_t tx_desc;
	uint32_t io_lcore;
	uint32_t backpressure; /* 1: a full ring stalls its producer instead of dropping */
	uint32_t ready_timeout_ms;
	uint32_t drain_timeout_ms;
	uint32_t restart;	    /* 1: respawn a worker process that died */
	uint32_t restart_max;	    /* respawns allowed within restart_window_ms */
	uint32_t restart_window_ms;
	uint32_t restart_backoff_ms; /* first delay; doubles with each respawn in the window */
	uint32_t stall_timeout_ms;  /* a worker without heartbeat this long is killed; 0: never */
	uint32_t stats_period_ms;   /* a stats line this often; 0: never */
	uint32_t burn_cycles;	    /* TSC cycles the burn stage spends on each packet */
	uint32_t cycles_sample;	    /* workers time one non-empty burst in this many */
	uint32_t malformed_pass;    /* 1: the parse stage lets malformed frames go on (counted) */
	char rules[MPE_PATH_LEN];   /* rules file of the acl stage ("": none), as resolved */
	uint32_t default_drop;	    /* 1: a packet no rule matches is dropped */
	uint32_t flow_capacity;	    /* flows per worker's table */
	uint32_t flow_timeout_ms;   /* idle flows expire after this; 0: never */
	uint32_t flow_full_pass;    /* 1: a packet that finds the flow table full goes on */
	uint16_t mirror_port;	    /* MPE_PORT_NONE, or where copies of mirror rules' hits go */
	uint32_t tx_workers;	    /* 1: workers transmit on queues of their own (tx = workers) */
	uint32_t rx_workers;	    /* 1: a pipeline's first worker polls the ports (rx = workers) */
	uint32_t sandbox;	    /* 1: each worker process locks itself down (docs/sandbox.md) */
	uint32_t recorder;	    /* 1: each worker keeps its last packets (docs/recorder.md) */
	uint32_t carry; /* 1: a killed worker's burst goes to its replacement (docs/recovery.md) */
	uint32_t recorder_packets;  /* records per worker, a power of two */
	uint32_t recorder_snap;	    /* bytes kept of each packet */
	uint32_t quarantine_after;  /* fault deaths a flow's packets were in hand at before it is
				     * blocked; 0: never */
	uint32_t standby;	    /* worker processes kept attached and parked (docs/standby.md) */
	uint32_t numa_refuse;	    /* 1: a polling lcore across sockets from its ports stops the
				     * start; 0: a warning (primary/objects.c) */
	uint32_t pools_per_port;    /* 1: an mbuf pool per receiving port; 0: per socket */
	int standby_line;	    /* where `standby` was given, 0: not given */
	int sandbox_line;	    /* where `sandbox` was given, 0: left to its default */
	char worker_user[MPE_USER_LEN]; /* user worker processes switch to ("": none) */
	int worker_user_line;	    /* where `worker_user` was given, 0: not given */
	uint32_t worker_uid;	    /* its ids, resolved by the primary; MPE_UID_NONE: no switch */
	uint32_t worker_gid;
	uint16_t nb_ports;
	uint16_t nb_workers;
	/* the I/O lcores: [io N] sections, or (io_implicit) one made of engine io_lcore, which
	 * polls every queue and transmits; 0: none (rss; a pipeline whose workers receive and
	 * transmit) */
	uint16_t nb_io;
	uint16_t io_implicit;
	struct mpe_port_conf ports[MPE_MAX_PORTS];
	struct mpe_worker_conf workers[MPE_MAX_WORKERS];
	struct mpe_io_conf io[MPE_MAX_IO];
};

/* 1 when worker @id transmits on its own queue of every port (rss; tx = workers in a
 * distributor; the last worker of a pipeline with tx = workers), 0 when it hands its packets
 * to the I/O lcore over a ring. */
static inline int
mpe_config_worker_transmits(const struct mpe_conf *c, unsigned int id)
{
	if (c->shape == MPE_SHAPE_RSS)
		return 1;
	if (!c->tx_workers)
		return 0;
	return c->shape == MPE_SHAPE_DISTRIBUTOR || id + 1 == c->nb_workers;
}

/* 1 when worker @id polls the receiving ports itself (rss: its own queue of each; a
 * pipeline with rx = workers: its first worker, queue 0 of each), 0 when its packets come
 * over a ring. */
static inline int
mpe_config_worker_receives(const struct mpe_conf *c, unsigned int id)
{
	if (c->shape == MPE_SHAPE_RSS)
		return 1;
	return c->shape == MPE_SHAPE_PIPELINE && c->rx_workers && id == 0;
}

/* 1 when the primary runs its I/O lcore: it polls the ports for a worker, or transmits for
 * one. */
static inline int
mpe_config_io_used(const struct mpe_conf *c)
{
	if (c->shape == MPE_SHAPE_RSS)
		return 0;
	return !(c->shape == MPE_SHAPE_PIPELINE && c->rx_workers && c->tx_workers);
}

/* 1 when the I/O lcore polls the ports for the workers: it runs, and no worker receives
 * (every ring shape but a pipeline whose first worker polls the ports). */
static inline int
mpe_config_io_receives(const struct mpe_conf *c)
{
	return mpe_config_io_used(c) && !mpe_config_worker_receives(c, 0);
}

/* 1 when @lcore is one of the I/O lcores (conf.io[], once checked). */
static inline int
mpe_config_is_io_lcore(const struct mpe_conf *c, unsigned int lcore)
{
	unsigned int k;

	for (k = 0; k < c->nb_io; k++)
		if (c->io[k].lcore == lcore)
			return 1;
	return 0;
}

/* 1 when I/O lcore @k (of conf.io[]) receives: it polls some queue. */
static inline int
mpe_config_io_rx(const struct mpe_conf *c, unsigned int k)
{
	unsigned int i;

	for (i = 0; i < c->nb_ports; i++)
		if (c->io[k].rxq[i] != 0)
			return 1;
	return 0;
}

/* The I/O lcore (index into conf.io[]) that transmits what came in through I/O lcore @k:
 * itself if it transmits, else the transmitting ones in turn. Only with tx = io. */
static inline unsigned int
mpe_config_io_tx_of(const struct mpe_conf *c, unsigned int k)
{
	unsigned int i, n = 0, t;

	if (c->io[k].tx)
		return k;
	for (i = 0; i < c->nb_io; i++)
		n += c->io[i].tx;
	if (n == 0)
		return k;
	t = k % n;
	for (i = 0; i < c->nb_io; i++)
		if (c->io[i].tx && t-- == 0)
			return i;
	return k;
}

/* I/O lcore @k's TX queue on every port: its place among the I/O lcores that transmit. */
static inline unsigned int
mpe_config_io_txq(const struct mpe_conf *c, unsigned int k)
{
	unsigned int i, n = 0;

	for (i = 0; i < k; i++)
		n += c->io[i].tx;
	return n;
}

/* A pipeline's lanes: one per I/O lcore its last worker hands packets to (1 when that worker
 * transmits, or the first polls the ports). Lane L leads from the first worker through each
 * stage to the L-th transmitting I/O lcore, a ring between each two stages: what came in
 * through I/O lcore K keeps to the lane of mpe_config_io_tx_of(K), so that each flow keeps
 * one path, and every ring one producer and one consumer. */
static inline unsigned int
mpe_config_pipe_lanes(const struct mpe_conf *c)
{
	unsigned int i, n = 0;

	if (c->shape != MPE_SHAPE_PIPELINE || c->tx_workers || c->rx_workers)
		return 1;
	for (i = 0; i < c->nb_io; i++)
		n += c->io[i].tx;
	return n > 0 ? n : 1;
}

/* 1 when the engine sends packets out of port @i: some receiving port has it as peer, or it
 * is the mirror port. */
static inline int
mpe_config_port_sent_to(const struct mpe_conf *c, unsigned int i)
{
	unsigned int j;

	if (i == c->mirror_port)
		return 1;
	for (j = 0; j < c->nb_ports; j++)
		if (c->ports[j].rx && c->ports[j].peer == i)
			return 1;
	return 0;
}

/* 1 when worker @id owns a queue of every port (its conf queue): rss, or it transmits. */
static inline int
mpe_config_worker_owns_queue(const struct mpe_conf *c, unsigned int id)
{
	return c->shape == MPE_SHAPE_RSS || mpe_config_worker_transmits(c, id);
}

/* One above the highest queue a worker owns (0: no worker owns one). */
static inline uint16_t
mpe_config_worker_queues(const struct mpe_conf *c)
{
	uint16_t n = 0;
	unsigned int i;

	for (i = 0; i < c->nb_workers; i++)
		if (mpe_config_worker_owns_queue(c, i) && c->workers[i].queue >= n)
			n = (uint16_t)(c->workers[i].queue + 1);
	return n;
}

/* Transmit queues of port @i: up to the highest queue a worker owns where workers transmit
 * to it (the ones no worker owns stay idle), else one per I/O lcore that transmits. */
static inline uint16_t
mpe_config_port_txq(const struct mpe_conf *c, unsigned int i)
{
	unsigned int k, n = 0;

	if (c->shape == MPE_SHAPE_RSS || (c->tx_workers && mpe_config_port_sent_to(c, i)))
		return mpe_config_worker_queues(c);
	for (k = 0; k < c->nb_io; k++)
		n += c->io[k].tx;
	return (uint16_t)(n > 0 ? n : 1);
}

/* Load and validate @path into @conf. Every problem is printed to @err as
 * "file:line: key: reason". Returns 0, or the negative number of errors. */
int mpe_config_load(const char *path, struct mpe_conf *conf, FILE *err);

/* @file as the configuration at @conf_path names it: a relative path is taken from the
 * configuration file's directory. Into @out; 0, or -ENAMETOOLONG when it does not fit. */
int mpe_config_relative(const char *conf_path, const char *file, char *out, size_t size);

/* Defaults for every key, and no ports or workers. */
void mpe_config_defaults(struct mpe_conf *conf);

const char *mpe_config_shape_name(uint32_t shape);

/* 1 when the driver behind @device cannot be polled from a secondary process. */
int mpe_config_device_primary_only(const char *device);

/* Every key as a markdown table: section, key, values, default, meaning. */
void mpe_config_help(FILE *out);

/* Rings the shape creates between lcores, at most. */
unsigned int mpe_config_nb_rings(const struct mpe_conf *c);

/* The mbufs it takes to fill every place one can wait (descriptors, caches, bursts in hand)
 * and rings of @ring_slots slots in all. */
uint64_t mpe_config_mbufs_need(const struct mpe_conf *c, uint64_t ring_slots);

/* The pool size chosen when mbufs is not given: the least 2^n - 1 (the mempool's best fit)
 * that holds @need and MPE_DEF_MBUFS; 0 when that is above the key's maximum. */
uint32_t mpe_config_mbufs_auto(uint64_t need);

/* Write the configuration back as INI text (what the engine runs with). */
void mpe_config_dump(const struct mpe_conf *conf, FILE *out);

#endif
