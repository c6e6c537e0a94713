/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: standby worker processes (docs/standby.md). `standby = N` in [engine] keeps
 * N mpe-secondary processes attached ahead of need: EAL initialised, shared layout verified,
 * locked down, each on an lcore id of its own, asleep on a futex word in its slot of shared
 * memory. When a worker dies, the primary recovers it as always, then writes the worker's
 * number into a parked standby's word and wakes it: the standby moves to the worker's CPUs,
 * sets up the worker's stages and polls, in place of a respawn that takes an EAL start.
 * A new standby is started in the background to fill the pool again.
 * Why a futex: the word lives in memory both processes map already, so the hand-over needs
 * no descriptor passed at spawn, costs nothing while parked (the standby sleeps in the kernel)
 * and wakes it in microseconds; the standby also looks at the primary every 100 ms.
 * One lcore id, one process: a standby keeps its own lcore id (and mempool cache) through
 * its takeover; the dead worker's id, its cache flushed by the recovery, serves the next
 * standby. Main lcore only, except mpe_standby_kill(). */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_string_fns.h>

#include "context.h"
#include "launch.h"
#include "log.h"
#include "objects.h"
#include "standby.h"
#include "worker_log.h"

static void
wake(struct mpe_standby_slot *sb, uint32_t word)
{
	__atomic_store_n(&sb->word, word, __ATOMIC_RELEASE);
	/* not FUTEX_PRIVATE: the standby sleeps on the word in its own mapping */
	syscall(SYS_futex, &sb->word, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* Standby @k is attached and asleep, free to take a place. */
static int
standby_parked(const struct mpe_primary *p, unsigned int k)
{
	const struct mpe_standby_slot *sb = &p->shm->standby[k];

	return p->standby[k].pid > 0 && sb->state == MPE_WORKER_READY &&
	       sb->word == MPE_STANDBY_PARKED;
}

int
mpe_standby_check(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	char ids[64] = "";
	unsigned int lc, k = 0, i;
	size_t off = 0;

	for (lc = 1; lc < RTE_MAX_LCORE && k < conf->standby; lc++) {
		if (lc == rte_get_main_lcore() || rte_lcore_is_enabled(lc) ||
		    mpe_config_is_io_lcore(conf, lc))
			continue;
		for (i = 0; i < conf->nb_workers && conf->workers[i].lcore != lc; i++)
			;
		if (i < conf->nb_workers)
			continue;
		mpe_launch_lcore_add(p, lc);
		off += (size_t)snprintf(ids + off, off < sizeof(ids) ? sizeof(ids) - off : 0,
					"%s%u", k ? "," : "", lc);
		k++;
	}
	if (k < conf->standby) {
		MPE_LOG(ERR, engine, "standby = %u: only %u lcore ids are free for them", conf->standby,
			k);
		return -ENOSPC;
	}
	if (k > 0)
		MPE_LOG(INFO, engine, "standby: %u worker process%s parked on lcore ids %s", k,
			k == 1 ? "" : "es", ids);
	return 0;
}

/* Spawn standby @k on a free lcore id, parked on the main lcore's CPUs (its attach, an EAL
 * start, runs there, away from the polling lcores). */
static int
start_one(struct mpe_primary *p, unsigned int k)
{
	struct mpe_standby_slot *sb = &p->shm->standby[k];
	rte_cpuset_t cpus = rte_lcore_cpuset(rte_get_main_lcore());
	char err[96];
	pid_t pid;
	int lc, rc;

	lc = mpe_launch_lcore_take(p, UINT32_MAX);
	if (lc < 0) {
		MPE_LOG(ERR, engine, "standby %u: no lcore id free", k);
		return lc;
	}
	sb->word = MPE_STANDBY_PARKED;
	sb->lcore = (uint32_t)lc;
	sb->error[0] = '\0';
	sb->sandbox[0] = '\0';
	sb->pid = MPE_PID_SPAWNING;
	rte_wmb();
	sb->state = MPE_WORKER_STARTING;
	rc = mpe_launch_spawn(p, "--standby", k, (unsigned int)lc, &cpus, MPE_MAX_WORKERS + k,
			      &pid, err, sizeof(err));
	if (rc < 0) {
		rte_strscpy(sb->error, err, sizeof(sb->error));
		sb->state = MPE_WORKER_FAILED;
		mpe_launch_lcore_free(p, (uint32_t)lc);
		MPE_LOG(ERR, engine, "standby %u: %s", k, err);
		return rc;
	}
	p->standby[k].pid = pid;
	p->standby[k].respawn_tsc = 0;
	MPE_LOG(INFO, engine, "standby %u: spawned pid %d (lcore %d)", k, (int)pid, lc);
	return 0;
}

int
mpe_launch_standby_start(struct mpe_primary *p)
{
	unsigned int k;
	int rc;

	for (k = 0; k < p->shm->conf.standby; k++) {
		rc = start_one(p, k);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int
mpe_launch_standby_ready(struct mpe_primary *p)
{
	unsigned int k, parked = 0;

	for (k = 0; k < p->shm->conf.standby; k++) {
		const struct mpe_standby_slot *sb = &p->shm->standby[k];

		if (sb->state == MPE_WORKER_READY) {
			parked++;
		} else if (sb->state == MPE_WORKER_FAILED || p->standby[k].pid == 0) {
			MPE_LOG(ERR, engine, "standby %u: did not park: %s", k,
				sb->error[0] ? sb->error : "ended before attaching");
			return -ECHILD;
		}
	}
	return parked == p->shm->conf.standby;
}

int
mpe_standby_parked(const struct mpe_primary *p)
{
	unsigned int k;

	for (k = 0; k < p->shm->conf.standby; k++)
		if (standby_parked(p, k))
			return 1;
	return 0;
}

int
mpe_standby_take(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	const struct mpe_conf *conf = &p->shm->conf;
	struct mpe_standby_slot *sb = NULL;
	uint64_t now = rte_get_timer_cycles();
	unsigned int k;
	pid_t pid;

	if (conf->standby == 0)
		return 0;
	for (k = 0; k < conf->standby; k++) {
		sb = &p->shm->standby[k];
		if (standby_parked(p, k))
			break;
	}
	if (k == conf->standby) {
		MPE_LOG(WARNING, engine, "worker %u: no standby parked (the last one is still "
			"attaching): respawning instead", id);
		return 0;
	}
	pid = p->standby[k].pid;
	/* the slot is the standby's before it wakes: the pid it claims, the lcore id it keeps */
	slot->status.error[0] = '\0';
	slot->status.blocked_syscall = -1;
	slot->ctl.lcore = sb->lcore;
	slot->status.pid = pid;
	p->pids[id] = pid;
	p->life[id].beat_tsc = now;
	slot->ctl.restarts++;
	slot->ctl.takeovers++;
	memcpy(sb->cpus, &p->cpus[id], RTE_MIN(sizeof(sb->cpus), sizeof(p->cpus[id])));
	mpe_worker_log_rename(MPE_MAX_WORKERS + k, id);
	slot->status.state = MPE_WORKER_STARTING;
	sb->handed_tsc = rte_rdtsc();
	wake(sb, id + 1);
	/* the pool's refill, once this takeover has had its CPU (an EAL start is long), and
	 * once the process has let go of its standby slot */
	p->standby[k].handed = pid;
	p->standby[k].pid = 0;
	p->standby[k].respawn_tsc = now + rte_get_timer_hz() *
				    RTE_MAX(conf->restart_backoff_ms, 10u) / 1000;
	MPE_LOG(NOTICE, engine, "worker %u: standby %u (pid %d, lcore %u) takes its place "
		"(takeover %u)", id, k, (int)pid, sb->lcore, slot->ctl.takeovers);
	return 1;
}

int
mpe_standby_reaped(struct mpe_primary *p, pid_t pid, int status)
{
	const struct mpe_conf *conf = &p->shm->conf;
	struct mpe_standby_slot *sb;
	unsigned int k;

	for (k = 0; k < conf->standby && p->standby[k].pid != pid; k++)
		;
	if (k == conf->standby)
		return 0;
	sb = &p->shm->standby[k];
	p->standby[k].pid = 0;
	/* it took no mbuf, but its caches are emptied all the same before its id serves again */
	mpe_objects_flush_caches(p, sb->lcore);
	mpe_launch_lcore_free(p, sb->lcore);
	/* told to leave: at stop (in rss, the engine stops with run_state still ACTIVE) */
	if (sb->word == MPE_STANDBY_STOP) {
		MPE_LOG(INFO, engine, "standby %u: pid %d ended: told to leave", k, (int)pid);
		return 1;
	}
	if (sb->state != MPE_WORKER_EXITED)
		sb->state = MPE_WORKER_FAILED;
	if (p->shm->run_state != MPE_RUN_ACTIVE) {
		MPE_LOG(INFO, engine, "standby %u: pid %d ended (%s)", k, (int)pid,
			sb->error[0] ? sb->error : "while the engine starts or stops");
		return 1;
	}
	p->standby[k].respawn_tsc = rte_get_timer_cycles() + rte_get_timer_hz() *
				    RTE_MAX(conf->restart_backoff_ms, 10u) / 1000;
	if (WIFSIGNALED(status))
		MPE_LOG(ERR, engine, "standby %u: pid %d killed by signal %d (%s) while parked: "
			"another one is started", k, (int)pid, WTERMSIG(status),
			strsignal(WTERMSIG(status)));
	else
		MPE_LOG(ERR, engine, "standby %u: pid %d exited with status %d while parked%s%s: "
			"another one is started", k, (int)pid, WEXITSTATUS(status),
			sb->error[0] ? ": " : "", sb->error);
	return 1;
}

/* Standby slot @k is no longer read by the process it held: it said so (RUNNING), or that
 * process serves no worker any more (it died before it could). */
static int
slot_free(struct mpe_primary *p, unsigned int k)
{
	unsigned int i;

	if (p->standby[k].handed == 0)
		return 1;
	for (i = 0; i < p->shm->conf.nb_workers && p->pids[i] != p->standby[k].handed; i++)
		;
	if (p->shm->standby[k].state != MPE_WORKER_RUNNING && i < p->shm->conf.nb_workers)
		return 0;
	p->standby[k].handed = 0;
	return 1;
}

void
mpe_standby_tick(struct mpe_primary *p)
{
	uint64_t now = rte_get_timer_cycles();
	unsigned int k;

	if (p->shm->run_state != MPE_RUN_ACTIVE)
		return;
	for (k = 0; k < p->shm->conf.standby; k++)
		if (p->standby[k].pid == 0 && p->standby[k].respawn_tsc != 0 &&
		    now >= p->standby[k].respawn_tsc && slot_free(p, k) && start_one(p, k) < 0)
			p->standby[k].respawn_tsc = now + rte_get_timer_hz();
}

unsigned int
mpe_standby_stop(struct mpe_primary *p)
{
	unsigned int k, left = 0;

	for (k = 0; k < p->shm->conf.standby; k++) {
		p->standby[k].respawn_tsc = 0;
		if (p->standby[k].pid <= 0)
			continue;
		wake(&p->shm->standby[k], MPE_STANDBY_STOP);
		left++;
	}
	return left;
}

void
mpe_standby_kill(struct mpe_primary *p, int wait)
{
	unsigned int k;

	for (k = 0; k < MPE_MAX_STANDBY; k++)
		if (p->standby[k].pid > 0)
			kill(p->standby[k].pid, SIGKILL);
	for (k = 0; wait && k < MPE_MAX_STANDBY; k++)
		if (p->standby[k].pid > 0) {
			waitpid(p->standby[k].pid, NULL, 0);
			p->standby[k].pid = 0;
		}
}
