/* The primary process's private state, shared by its modules (main, port, io, launch).
 * Everything here lives in the primary's own memory; shared state is in p->shm. */
#ifndef MPE_PRIMARY_H
#define MPE_PRIMARY_H

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

#include <rte_mempool.h>
#include <rte_ring.h>

#include "shm.h"

#define MPE_MAX_FWD_ARGS 64

struct mpe_primary {
	struct mpe_shared *shm;
	struct rte_mempool *pool;
	struct rte_ring *rings[2 * MPE_MAX_WORKERS];
	int ring_consumer[2 * MPE_MAX_WORKERS]; /* worker id, or MPE_END_IO */
	unsigned int nb_rings;
	int ports_started;
	int io_yield_idle; /* the I/O lcore shares its CPU with a worker */
	uint8_t io_shares[MPE_MAX_WORKERS]; /* worker i's lcore runs on the I/O lcore's CPU */
	int pdump; /* rte_pdump_init() done: dpdk-dumpcap may capture */
	int io_launched;
	uint64_t mbufs_held; /* by the ports' devices: mpe_port_mbufs_held() */
	void *io; /* io.c's state, from mpe_io_prepare() to mpe_io_release() */

	/* command line */
	const char *config_path;
	const char *secondary_path;
	int no_spawn;
	unsigned int idle_exit_ms;
	char file_prefix[256];
	char *fwd_args[MPE_MAX_FWD_ARGS]; /* EAL args every worker process gets too */
	int nb_fwd_args;

	/* workers */
	pid_t pids[MPE_MAX_WORKERS];
	cpu_set_t cpus[MPE_MAX_WORKERS]; /* where each worker's lcore runs */
	struct {
		uint64_t beat;		/* heartbeat last seen */
		uint64_t beat_tsc;	/* when it last changed */
		uint64_t died_tsc;	/* when the death was noticed (0: alive) */
		uint64_t respawn_tsc;	/* when to respawn */
		uint64_t window_tsc;	/* start of the restart window */
		uint32_t window_restarts;
	} life[MPE_MAX_WORKERS];
};

extern volatile sig_atomic_t mpe_primary_stop;

/* main.c: the engine cannot go on and cannot stop in order (lcores may be stuck for ever):
 * log @why, print the summary, kill the workers, remove the hugepage files and the runtime
 * directory, exit 1 without waiting for any lcore. */
void mpe_primary_abort(struct mpe_primary *p, const char *why) __rte_noreturn;

/* port.c */
int mpe_port_init_all(struct mpe_primary *p);
/* The mbufs the ports' devices keep for themselves once started: net_pcap with infinite_rx
 * holds its whole capture in the pool (a packet larger than an mbuf in several). Which
 * ports, and how many mbufs each, into @who. */
uint64_t mpe_port_mbufs_held(const struct mpe_conf *conf, char *who, size_t size);
void mpe_port_close_all(struct mpe_primary *p);

/* recover.c: after worker @id died. Returns the mbufs reclaimed from its hands, or -errno:
 * -EDEADLK when the pool's ring is left half done, what is stuck in @stuck (nothing was
 * touched: called again once another dead process's part is finished, it goes on). */
int mpe_recover_worker(struct mpe_primary *p, unsigned int id, char *stuck, size_t size);
/* 1 when a process died inside an operation on @mp's ring, which no one can finish: what
 * was seen goes into @why. Waits up to a quarter of a second when head and tail are apart. */
int mpe_recover_pool_stuck(struct rte_mempool *mp, char *why, size_t size);
/* Empty the input ring of a worker that is down for good; returns the packets dropped. */
unsigned int mpe_recover_drain_input(struct mpe_primary *p, unsigned int id);

/* io.c: the I/O lcore's state, made on the main lcore before it is launched, so that a
 * failure stops the start with its cause; 0 or -errno. */
int mpe_io_prepare(struct mpe_primary *p);
/* Once the I/O lcore has returned (or was never launched). */
void mpe_io_release(struct mpe_primary *p);
/* io.c: the I/O lcore's loop; arg is the struct mpe_primary, prepared. */
int mpe_io_main(void *arg);

/* telemetry.c: register the /mpe/... telemetry commands; 0 or -errno. */
int mpe_telemetry_init(struct mpe_primary *p);
/* Before teardown frees anything: commands answer nothing from then on. */
void mpe_telemetry_fini(void);

/* inspect.c: flow tables, rule sets and their reload (see the file's header). */
/* What the replaced generations of one rules file classified, summed. */
#define MPE_INSPECT_FILES 16
struct mpe_inspect_file {
	char file[MPE_PATH_LEN];
	uint64_t packets;
};
struct mpe_ruleset;
struct mpe_flow_table;
extern volatile sig_atomic_t mpe_inspect_reload_requested; /* SIGHUP */
/* After the shared memzone exists, before workers start; 0 or -errno (logged). */
int mpe_inspect_init(struct mpe_primary *p);
/* Read @file (NULL: the file in force again), build it, and put it in force. On error the
 * old rules stay and every problem is written to @err. 0 or -errno. Any thread. */
int mpe_inspect_reload(const char *file, FILE *err, uint32_t *generation, uint32_t *nb_rules);
/* Supervising loop: a pending SIGHUP reload; frees replaced rule sets no worker holds. */
void mpe_inspect_tick(struct mpe_primary *p);
/* Worker @id ended without leaving the RCU state itself. */
void mpe_inspect_worker_gone(struct mpe_primary *p, unsigned int id);
/* After every worker stopped: packets classified per rules file, over the engine's life. */
void mpe_inspect_report(FILE *out);
/* After every worker stopped. */
void mpe_inspect_fini(struct mpe_primary *p);
/* Readers (telemetry) hold the lock while they use a rule set or a flow table. */
void mpe_inspect_lock(void);
void mpe_inspect_unlock(void);
const struct mpe_ruleset *mpe_inspect_ruleset(void);
const struct mpe_flow_table *mpe_inspect_flows(unsigned int worker);
/* Per rules file (the first MPE_INSPECT_FILES; the rest under "(other)"): the packets the
 * replaced and freed generations classified. Under the lock. */
unsigned int mpe_inspect_files(const struct mpe_inspect_file **files);
void mpe_inspect_counts(uint64_t *reloads, uint64_t *errors, unsigned int *retired);

/* how many dump files the runtime directory keeps, the newest: one more removes the oldest */
#define MPE_DUMP_KEEP 16
/* dump.c: the engine's state as text, into a new file <runtime dir>/mpe-dump-<time>-<seq>.txt
 * whose path goes into @path. Reads shared memory only, never waits for a worker; 0 or -errno.
 * Any thread of the primary, until teardown begins. */
int mpe_dump_write(const struct mpe_primary *p, char *path, size_t size);
/* SIGUSR1: the handler only sets mpe_dump_requested; the supervising loop calls
 * mpe_dump_poll(), which writes the dump and logs its path. */
extern volatile sig_atomic_t mpe_dump_requested;
void mpe_dump_on_signal(int sig);
void mpe_dump_poll(const struct mpe_primary *p);

/* worker_log_process.c or worker_log_thread.c, chosen by meson: the workers' log lines reach
 * the primary's log prefixed "worker N: ". init: before the first worker starts; fini: once
 * every worker has stopped. 0 or -errno. */
int mpe_worker_log_init(struct mpe_primary *p);
void mpe_worker_log_fini(void);
/* worker_log_process.c only: a pipe for the stdout and stderr of the worker @id about to be spawned.
 * Returns the worker's (write) end, or -errno; after the spawn, whether it worked or not,
 * mpe_worker_log_spawned() closes the primary's copy of it. */
int mpe_worker_log_pipe(unsigned int id);
void mpe_worker_log_spawned(int wfd);

/* launch_process.c or launch_thread.c, chosen by meson (worker_model). */
extern const char *const mpe_launch_model;
extern const uint32_t mpe_launch_model_id;
/* Check what the model needs from the EAL set-up; 0 or -errno with the reason logged. */
int mpe_launch_check(struct mpe_primary *p);
/* Start worker @id; it reports readiness in its slot. */
int mpe_launch_start(struct mpe_primary *p, unsigned int id);
/* Reap workers that ended on their own: logs the cause, marks the slot. Returns how many. */
int mpe_launch_reap(struct mpe_primary *p);
/* 1 while worker @id can still become ready (its process or thread exists). */
int mpe_launch_alive(struct mpe_primary *p, unsigned int id);
/* Ask every worker to stop and wait for it, at most @timeout_ms each; then force. */
void mpe_launch_stop_all(struct mpe_primary *p, unsigned int timeout_ms);
/* Second signal: end every worker now. Async-signal-safe. */
void mpe_launch_kill_all(struct mpe_primary *p);
/* Every supervision period while the engine runs: stalls, recoveries, respawns. */
void mpe_launch_tick(struct mpe_primary *p);

#endif
