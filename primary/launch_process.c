/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: every worker is an mpe-secondary process, spawned with an explicit
 * --proc-type=secondary, the primary's --file-prefix and its own lcore id, in its own process
 * group (so a Ctrl-C reaches only the primary, which then stops the workers in order), with
 * the EAL options of the primary that choose its memory and devices. Main lcore only. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "args.h"
#include "context.h"
#include "inspect.h"
#include "launch.h"
#include "log.h"
#include "quarantine.h"
#include "record.h"
#include "recover.h"
#include "sandbox.h"
#include "supervise.h"
#include "worker.h"
#include "worker_log.h"
#include "worker_user.h"

const char *const mpe_launch_model = "process";
const uint32_t mpe_launch_model_id = 0;

extern char **environ;

#define LOG_FALLBACK_FD 3 /* mpe-secondary --log-fd: the primary's stderr */

static char secondary[PATH_MAX];
static char *fwd_args[MPE_MAX_FWD_ARGS]; /* EAL args every worker process gets too */
static int nb_fwd_args;

/* Every worker process sees the primary's memory and devices: it is given the EAL options
 * that choose them as the primary was (args.c lists them). Its --file-prefix, --proc-type
 * and --lcores are its own: mpe_launch_start() writes them. */
int
mpe_launch_eal_args(int argc, char **argv)
{
	int n = mpe_args_eal_forwarded(argc, argv, fwd_args, MPE_MAX_FWD_ARGS);

	if (n < 0)
		return n;
	nb_fwd_args = n;
	return 0;
}

/* mpe-secondary next to mpe-primary (installed), or in ../secondary (build tree). */
static int
find_secondary(struct mpe_primary *p)
{
	static const char *const rel[] = {"mpe-secondary", "../secondary/mpe-secondary"};
	char self[PATH_MAX];
	ssize_t n;
	char *slash;
	unsigned int i;

	if (p->secondary_path != NULL) {
		snprintf(secondary, sizeof(secondary), "%s", p->secondary_path);
		return access(secondary, X_OK) == 0 ? 0 : -errno;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return -errno;
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (slash != NULL)
		*slash = '\0';
	for (i = 0; i < RTE_DIM(rel); i++) {
		snprintf(secondary, sizeof(secondary), "%s/%s", self, rel[i]);
		if (access(secondary, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

int
mpe_launch_check(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	int rc;

	if (!p->no_spawn) {
		rc = find_secondary(p);
		if (rc < 0) {
			MPE_LOG(ERR, engine, "cannot run %s: %s (give its path with --secondary)",
				p->secondary_path ? p->secondary_path : "mpe-secondary",
				strerror(-rc));
			return rc;
		}
		rc = mpe_worker_log_init(p);
		if (rc < 0)
			MPE_LOG(WARNING, engine, "workers' output not prefixed: %s", strerror(-rc));
	}
	if (conf->worker_uid != MPE_UID_NONE) {
		rc = mpe_worker_user_prepare((uid_t)conf->worker_uid, (gid_t)conf->worker_gid);
		if (rc < 0)
			return rc;
		MPE_LOG(INFO, engine, "worker_user: workers switch to %s (uid %u, gid %u) as they "
			"lock down; the EAL's socket, lock and hugepage files are theirs",
			conf->worker_user, conf->worker_uid, conf->worker_gid);
	}
	/* a worker's receive calls take from its cache only when the cache can be filled ahead
	 * of them (mpe_pool_rx_enter); else DPDK refills it inside the call, unrecoverably */
	for (i = 0; i < conf->nb_workers && !mpe_config_worker_receives(conf, i); i++)
		;
	if (i < conf->nb_workers && conf->mbuf_cache <= mpe_pool_call_room(conf->burst))
		MPE_LOG(NOTICE, engine, "mbuf_cache %u is too small to be filled ahead of a "
			"receive call (more than %u needed): a worker killed inside DPDK's refill of "
			"its cache leaves the mbuf pool unusable, and the engine then stops",
			conf->mbuf_cache, mpe_pool_call_room(conf->burst));
	for (i = 0; i < conf->nb_workers; i++) {
		const struct mpe_worker_conf *wc = &conf->workers[i];

		CPU_ZERO(&p->cpus[i]);
		if (wc->lcore == rte_get_main_lcore()) {
			MPE_LOG(ERR, engine, "worker %u: lcore %u is the primary's main lcore", i,
				wc->lcore);
			return -EINVAL;
		}
		if (wc->cpu != MPE_CPU_ANY) {
			if (wc->cpu >= ncpu) {
				MPE_LOG(ERR, engine, "worker %u: cpu %u does not exist (%ld online)",
					i, wc->cpu, ncpu);
				return -EINVAL;
			}
			CPU_SET(wc->cpu, &p->cpus[i]);
		} else if (rte_lcore_is_enabled(wc->lcore)) {
			/* the same --lcores line serves both builds: take the lcore's CPUs */
			p->cpus[i] = rte_lcore_cpuset(wc->lcore);
		} else {
			CPU_SET(wc->lcore % ncpu, &p->cpus[i]);
		}
	}
	return 0;
}

/* "--lcores=2@1" for one CPU, "--lcores=2@(0-3,8)" for a set, in runs. -ENAMETOOLONG when
 * @size is too short (never cut: the worker would run on other CPUs or not start). */
static int
lcores_arg(char *buf, size_t size, unsigned int lcore, const cpu_set_t *set)
{
	int c, end, one = CPU_COUNT(set) == 1;
	const char *sep = "";
	size_t off;

	off = (size_t)snprintf(buf, size, "--lcores=%u@%s", lcore, one ? "" : "(");
	for (c = 0; c < CPU_SETSIZE && off < size; c = end + 1) {
		end = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
			end++;
		if (end == c)
			off += (size_t)snprintf(buf + off, size - off, "%s%d", sep, c);
		else
			off += (size_t)snprintf(buf + off, size - off, "%s%d-%d", sep, c, end);
		sep = ",";
	}
	if (!one && off < size)
		off += (size_t)snprintf(buf + off, size - off, ")");
	return off < size ? 0 : -ENAMETOOLONG;
}

int
mpe_launch_start(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	char prefix[sizeof("--file-prefix=") + sizeof(p->file_prefix)], lcores[256], wid[16];
	char logfd[16];
	char *argv[MPE_MAX_FWD_ARGS + 16];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none;
	int argc = 0, i, rc, wfd;
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", p->file_prefix);
	if (lcores_arg(lcores, sizeof(lcores), p->shm->conf.workers[id].lcore, &p->cpus[id]) < 0) {
		snprintf(slot->status.error, sizeof(slot->status.error),
			 "its CPU set does not fit in --lcores (%zu characters)", sizeof(lcores));
		slot->status.state = MPE_WORKER_FAILED;
		return -ENAMETOOLONG;
	}
	snprintf(wid, sizeof(wid), "%u", id);
	argv[argc++] = secondary;
	argv[argc++] = (char *)(uintptr_t)"--proc-type=secondary";
	argv[argc++] = prefix;
	argv[argc++] = lcores;
	for (i = 0; i < nb_fwd_args; i++)
		argv[argc++] = fwd_args[i];
	argv[argc++] = (char *)(uintptr_t)"--";
	argv[argc++] = (char *)(uintptr_t)"--worker";
	argv[argc++] = wid;
	if (!p->no_spawn)
		argv[argc++] = (char *)(uintptr_t)"--spawned";
	argv[argc] = NULL;

	/* the new instance's refusals and end must not be read with the last one's words; the
	 * one instance that attaches claims the slot by its pid */
	slot->status.error[0] = '\0';
	slot->status.sandbox[0] = '\0';
	slot->status.blocked_syscall = -1;
	slot->status.pid = p->no_spawn ? 0 : MPE_PID_SPAWNING;
	rte_wmb();
	slot->status.state = MPE_WORKER_STARTING;
	if (p->no_spawn) {
		/* a line an operator can paste: arguments with shell characters are quoted */
		printf("worker %u: start it with:", id);
		for (i = 0; i < argc; i++) {
			const char *a = i == 0 ? "mpe-secondary" : argv[i];

			if (strpbrk(a, "()[]{}*?$&;|<> \t'\"\\") != NULL && strchr(a, '\'') == NULL)
				printf(" '%s'", a);
			else
				printf(" %s", a);
		}
		printf("\n");
		fflush(stdout);
		return 0;
	}
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	/* its stdout (EAL and engine logs) and stderr into the primary's log, prefixed; without
	 * a pipe it writes to the primary's own stdout and stderr */
	posix_spawn_file_actions_init(&fa);
	wfd = mpe_worker_log_pipe(id);
	if (wfd >= 0) {
		/* and where it logs once the pipe breaks (the primary died): our stderr */
		if (wfd != LOG_FALLBACK_FD && fcntl(STDERR_FILENO, F_GETFD) >= 0) {
			posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, LOG_FALLBACK_FD);
			snprintf(logfd, sizeof(logfd), "%d", LOG_FALLBACK_FD);
			argv[argc++] = (char *)(uintptr_t)"--log-fd";
			argv[argc++] = logfd;
			argv[argc] = NULL;
		}
		posix_spawn_file_actions_adddup2(&fa, wfd, STDOUT_FILENO);
		posix_spawn_file_actions_adddup2(&fa, wfd, STDERR_FILENO);
	}
	rc = posix_spawn(&pid, secondary, &fa, &attr, argv, environ);
	mpe_worker_log_spawned(wfd);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc != 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "spawn failed: %s",
			 strerror(rc));
		slot->status.state = MPE_WORKER_FAILED;
		return -rc;
	}
	p->pids[id] = pid;
	MPE_LOG(INFO, engine, "worker %u: spawned pid %d (%s)", id, (int)pid, lcores);
	return 0;
}

static int
worker_of(const struct mpe_primary *p, pid_t pid)
{
	unsigned int i;

	for (i = 0; i < p->shm->conf.nb_workers; i++)
		if (p->pids[i] == pid)
			return (int)i;
	return -1;
}

static uint64_t
ms_to_tsc(uint64_t ms)
{
	return rte_get_timer_hz() * ms / 1000;
}

/* The primary tells the producers to stop sending to worker @id, and empties its input. */
static void
leave_down(struct mpe_primary *p, unsigned int id, const char *why)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	unsigned int n;

	slot->ctl.dead = 1;
	slot->status.state = MPE_WORKER_FAILED;
	rte_wmb();
	n = mpe_recover_drain_input(p, id);
	MPE_LOG(ERR, engine, "worker %u: %s: it stays down; its traffic is dropped and counted "
		"(worker_down), the other workers go on (%u packets were queued for it)", id, why,
		n);
}

/* Recover worker @id; when the pool's ring is left half done for good, the pool cannot be
 * used any more: the engine stops. */
static int
recover(struct mpe_primary *p, unsigned int id, enum mpe_drop why)
{
	char stuck[192];
	int lost = mpe_recover_worker(p, id, why, stuck, sizeof(stuck));

	if (lost == -EDEADLK) {
		MPE_LOG(ERR, engine, "worker %u: %s: every process that takes or returns mbufs "
			"will wait for it for ever", id, stuck);
		mpe_supervise_abort(p, "the mbuf pool can no longer be used");
	}
	return lost;
}

/* Before worker @id, dead by signal @sig (0: it exited, or unknown), is recovered: its
 * flight recorder, with the burst it held, goes to a file, and what a fault signal left in
 * its stages is quarantined. Returns the drop reason of what its recovery reclaims. */
static enum mpe_drop
death_evidence(struct mpe_primary *p, unsigned int id, int sig)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	char path[PATH_MAX];
	unsigned int sealed;
	int n;

	slot->ctl.last_signal = sig;
	if (mpe_quarantine_fault(sig))
		slot->ctl.fault_deaths++;
	if (slot->ctl.rec != NULL) {
		sealed = mpe_record_seal(p, id, sig);
		n = mpe_record_file(p, id, path, sizeof(path));
		if (n < 0)
			MPE_LOG(ERR, engine, "worker %u: its flight recorder cannot be written: %s",
				id, strerror(-n));
		else
			MPE_LOG(NOTICE, engine, "worker %u: its last %d packets, %u of them in its "
				"hands: %s", id, n, sealed, path);
	}
	return mpe_quarantine_death(p, id, sig) > 0 ? MPE_DROP_QUARANTINE : MPE_DROP_WORKER_DIED;
}

/* A worker process ended while the engine runs: recover what it held, then respawn it after
 * a back-off, or leave it down when it restarts too often. */
static void
worker_died(struct mpe_primary *p, unsigned int id, int sig)
{
	const struct mpe_conf *conf = &p->shm->conf;
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	uint64_t now = rte_get_timer_cycles(), delay;
	int lost;
	char why[64];

	slot->ctl.down = 1;
	rte_wmb();
	mpe_inspect_worker_gone(p, id);
	p->life[id].died_tsc = now;
	lost = recover(p, id, death_evidence(p, id, sig));
	MPE_LOG(ERR, engine, "worker %u: %s; %d mbufs reclaimed from its hands", id,
		slot->ctl.last_cause, lost < 0 ? 0 : lost);
	if (!conf->restart) {
		leave_down(p, id, "restart = off");
		return;
	}
	if (now - p->life[id].window_tsc > ms_to_tsc(conf->restart_window_ms)) {
		p->life[id].window_tsc = now;
		p->life[id].window_restarts = 0;
	}
	if (p->life[id].window_restarts >= conf->restart_max) {
		snprintf(why, sizeof(why), "died %u times within %u ms (restart_max)",
			 p->life[id].window_restarts + 1, conf->restart_window_ms);
		leave_down(p, id, why);
		return;
	}
	delay = (uint64_t)conf->restart_backoff_ms << RTE_MIN(p->life[id].window_restarts, 8U);
	p->life[id].window_restarts++;
	p->life[id].respawn_tsc = now + ms_to_tsc(delay);
	slot->status.state = MPE_WORKER_RESTARTING;
	if (p->no_spawn)
		MPE_LOG(NOTICE, engine, "worker %u: to be started again by hand in %" PRIu64 " ms "
			"(restart %u): its command line follows then", id, delay,
			slot->ctl.restarts + 1);
	else
		MPE_LOG(NOTICE, engine, "worker %u: respawning in %" PRIu64 " ms (restart %u)", id,
			delay, slot->ctl.restarts + 1);
}

/* A worker that died while the engine drains or stops is not respawned, but what it held is
 * reclaimed and counted all the same, and nothing waits for it: the drain ends on time and
 * the pool gets its mbufs back. */
static void
died_stopping(struct mpe_primary *p, unsigned int id, int sig)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	unsigned int queued;
	int lost;

	slot->ctl.down = 1;
	slot->ctl.dead = 1;
	slot->status.state = MPE_WORKER_FAILED;
	rte_wmb();
	mpe_inspect_worker_gone(p, id);
	lost = recover(p, id, death_evidence(p, id, sig));
	queued = mpe_recover_drain_input(p, id);
	MPE_LOG(ERR, engine, "worker %u: %s while the engine %s; %d mbufs reclaimed from its "
		"hands, %u packets queued for it dropped (worker_down)", id,
		slot->ctl.last_cause,
		p->shm->run_state == MPE_RUN_DRAIN ? "drained" : "stopped", lost < 0 ? 0 : lost,
		queued);
}

/* Where the kernel puts core dumps (a path pattern, or a "|helper" pipe). */
static const char *
core_pattern(void)
{
	static char pat[64];
	FILE *f = fopen("/proc/sys/kernel/core_pattern", "r");

	snprintf(pat, sizeof(pat), "?");
	if (f != NULL) {
		if (fgets(pat, sizeof(pat), f) != NULL)
			pat[strcspn(pat, "\n")] = '\0';
		fclose(f);
	}
	return pat;
}

/* An end is clean only when the primary asked for it: the worker's stop flag, or the engine
 * draining or stopping. A worker that leaves by itself while the engine runs (a SIGTERM from
 * an operator or a service manager, with status 0 or not) left its input without a consumer
 * and its producers waiting: it is a death like any other. */
static int
asked_to_stop(const struct mpe_primary *p, unsigned int id)
{
	return p->shm->workers[id].ctl.stop || p->shm->run_state >= MPE_RUN_DRAIN;
}

/* A worker killed by SIGSYS: its seccomp filter refused a system call, whose number its SIGSYS
 * handler left in its slot (none: a SIGSYS from elsewhere, or a filter that killed it before
 * the handler ran). Counted; recovered as any death. */
static void
sandbox_kill(struct mpe_worker_slot *slot, int pid, char *cause, size_t size)
{
	int nr = slot->status.blocked_syscall;
	char name[32];

	slot->ctl.sandbox_kills++;
	if (nr < 0) {
		snprintf(cause, size, "pid %d killed by signal %d (%s)", pid, SIGSYS,
			 strsignal(SIGSYS));
		return;
	}
	mpe_sandbox_syscall_name(nr, name, sizeof(name));
	snprintf(cause, size, "pid %d killed by its sandbox (SIGSYS): system call %d (%s)", pid,
		 nr, name);
}

static void
record_end(struct mpe_primary *p, unsigned int id, int status)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    slot->status.state == MPE_WORKER_EXITED && asked_to_stop(p, id);
	char *cause = slot->ctl.last_cause, said[sizeof(slot->status.error)];
	size_t size = sizeof(slot->ctl.last_cause);
	int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

	if (clean) {
		p->pids[id] = 0;
		return;
	}
	rte_strscpy(said, slot->status.error, sizeof(said));
	if (WIFEXITED(status))
		snprintf(cause, size, "pid %d exited with status %d%s%s", (int)p->pids[id],
			 WEXITSTATUS(status), said[0] ? ": " : "", said);
	else if (sig == SIGSYS)
		sandbox_kill(slot, (int)p->pids[id], cause, size);
	else if ((sig == SIGTERM || sig == SIGINT) && said[0] != '\0')
		snprintf(cause, size, "pid %d %s", (int)p->pids[id], said); /* its own words */
	else if (sig != 0)
		snprintf(cause, size, "pid %d killed by signal %d (%s)%s%s", (int)p->pids[id],
			 sig, strsignal(sig), WCOREDUMP(status) ? ", core dumped to " : "",
			 WCOREDUMP(status) ? core_pattern() : "");
	/* Once the engine stops, an instance that held nothing is no failure: a respawn that
	 * had not attached refuses to start, and one that had left its loop ended cleanly
	 * whatever its status said (a signal it got as the stop began, say). Stopping is the
	 * workers' stop flags where nothing drains (rss): run_state is still ACTIVE there. */
	if (asked_to_stop(p, id) && (slot->status.state == MPE_WORKER_STARTING ||
				     slot->status.state == MPE_WORKER_EXITED)) {
		if (slot->status.state == MPE_WORKER_STARTING)
			snprintf(cause, size, "pid %d did not start: the engine is stopping",
				 (int)p->pids[id]);
		MPE_LOG(INFO, engine, "worker %u: %s", id, cause);
		p->pids[id] = 0;
		rte_strscpy(slot->status.error, cause, sizeof(slot->status.error));
		slot->status.state = MPE_WORKER_EXITED;
		return;
	}
	p->pids[id] = 0;
	rte_strscpy(slot->status.error, cause, sizeof(slot->status.error));
	/* a death while running, not one at start-up (INIT) nor one the stop caused */
	if (p->shm->run_state == MPE_RUN_ACTIVE && !asked_to_stop(p, id)) {
		worker_died(p, id, sig);
		return;
	}
	died_stopping(p, id, sig);
}

/* The process of worker @i: our child, or the one an operator started (--no-spawn). */
static pid_t
worker_pid(const struct mpe_primary *p, unsigned int i)
{
	if (p->no_spawn)
		return p->shm->workers[i].status.pid;
	return p->pids[i];
}

/* A hand-started worker is not our child: notice its end by its pid, and by its state when
 * it left its loop without being asked. */
static void
check_hand_started(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	uint32_t st = slot->status.state;
	char said[sizeof(slot->status.error)];

	if (st == MPE_WORKER_EXITED && asked_to_stop(p, id))
		return;
	/* FAILED and not left down: an instance that failed to attach or left its loop on an
	 * error (leave_down and died_stopping set dead); STARTING with a pid: an instance that
	 * claimed the slot and ended before it was ready */
	if ((st != MPE_WORKER_READY && st != MPE_WORKER_RUNNING && st != MPE_WORKER_EXITED &&
	     st != MPE_WORKER_STARTING && (st != MPE_WORKER_FAILED || slot->ctl.dead)) ||
	    slot->status.pid <= 0 || !mpe_worker_process_gone(slot->status.pid))
		return;
	rte_strscpy(said, slot->status.error, sizeof(said));
	if ((st == MPE_WORKER_EXITED || st == MPE_WORKER_FAILED) && said[0] != '\0')
		snprintf(slot->ctl.last_cause, sizeof(slot->ctl.last_cause), "pid %d %s",
			 slot->status.pid, said);
	else
		snprintf(slot->ctl.last_cause, sizeof(slot->ctl.last_cause), "pid %d is gone",
			 slot->status.pid);
	rte_strscpy(slot->status.error, slot->ctl.last_cause, sizeof(slot->status.error));
	if (p->shm->run_state == MPE_RUN_ACTIVE)
		worker_died(p, id, 0); /* not our child: its signal is unknown */
	else
		slot->status.state = MPE_WORKER_FAILED;
}

void
mpe_launch_tick(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t now;
	unsigned int i;

	mpe_launch_reap(p);
	now = rte_get_timer_cycles();
	for (i = 0; i < conf->nb_workers; i++) {
		struct mpe_worker_slot *slot = &p->shm->workers[i];
		uint32_t st;

		if (p->no_spawn)
			check_hand_started(p, i); /* may find it dead, and change its state */
		st = slot->status.state;
		if (st == MPE_WORKER_RESTARTING && p->pids[i] == 0 && now >= p->life[i].respawn_tsc &&
		    p->shm->run_state == MPE_RUN_ACTIVE) {
			slot->ctl.restarts++;
			p->life[i].beat_tsc = now;
			if (mpe_launch_start(p, i) < 0)
				leave_down(p, i, "cannot be spawned again");
			continue;
		}
		if (slot->ctl.down && !slot->ctl.dead &&
		    (st == MPE_WORKER_READY || st == MPE_WORKER_RUNNING)) {
			slot->ctl.last_recover_us = (now - p->life[i].died_tsc) * 1000000 /
						    rte_get_timer_hz();
			slot->ctl.down = 0;
			MPE_LOG(NOTICE, engine, "worker %u: back after %.1f ms (pid %d)", i,
				slot->ctl.last_recover_us / 1000.0, slot->status.pid);
		}
		/* a worker that stopped polling (hung, or SIGSTOPped) is killed and recovered; its
		 * time is counted from the first tick that sees it running (beat_tsc 0 before),
		 * not from the heartbeat's first value */
		if (slot->status.heartbeat != p->life[i].beat || st != MPE_WORKER_RUNNING ||
		    p->life[i].beat_tsc == 0) {
			p->life[i].beat = slot->status.heartbeat;
			p->life[i].beat_tsc = now;
		} else if (conf->stall_timeout_ms != 0 && worker_pid(p, i) > 0 &&
			   now - p->life[i].beat_tsc > ms_to_tsc(conf->stall_timeout_ms)) {
			MPE_LOG(ERR, engine, "worker %u (pid %d): no heartbeat for %u ms: killing it",
				i, (int)worker_pid(p, i), conf->stall_timeout_ms);
			if (kill(worker_pid(p, i), SIGKILL) < 0)
				MPE_LOG(ERR, engine, "worker %u (pid %d): cannot kill it: %s", i,
					(int)worker_pid(p, i), strerror(errno));
			p->life[i].beat_tsc = now;
		}
	}
}

int
mpe_launch_reap(struct mpe_primary *p)
{
	int status, n = 0, id;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		id = worker_of(p, pid);
		if (id < 0)
			continue;
		record_end(p, (unsigned int)id, status);
		n++;
	}
	return n;
}

int
mpe_launch_alive(struct mpe_primary *p, unsigned int id)
{
	if (p->no_spawn) {
		pid_t pid = p->shm->workers[id].status.pid;

		return pid <= 0 || !mpe_worker_process_gone(pid);
	}
	return p->pids[id] > 0;
}

/* Worker @i's process still exists. A hand-started worker counts until its process is gone,
 * not just its loop: the EAL must not be torn down under a process still leaving. */
static int
still_there(struct mpe_primary *p, unsigned int i)
{
	uint32_t st = p->shm->workers[i].status.state;

	/* STARTING with a pid: an instance that claimed the slot and is attaching */
	return p->pids[i] > 0 ||
	       (p->no_spawn && st != MPE_WORKER_NONE && p->shm->workers[i].status.pid > 0 &&
		!mpe_worker_process_gone(p->shm->workers[i].status.pid));
}

void
mpe_launch_stop_all(struct mpe_primary *p, unsigned int timeout_ms)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * timeout_ms / 1000;
	/* a pipeline stops from its first stage on: each stage empties its input ring, which
	 * nobody fills any more, before it is told to stop */
	unsigned int i, left, upto = conf->shape == MPE_SHAPE_PIPELINE ? 1 : conf->nb_workers;

	for (;;) {
		for (i = 0; i < upto; i++)
			p->shm->workers[i].ctl.stop = 1;
		/* an instance claiming its slot looks at its stop flag after the claim */
		rte_mb();
		mpe_launch_reap(p);
		left = 0;
		for (i = 0; i < upto; i++)
			left += still_there(p, i);
		if (left > 0 && rte_get_timer_cycles() < deadline)
			rte_delay_us_sleep(5000);
		else if (left == 0 && upto < conf->nb_workers)
			upto++;
		else
			break;
	}
	for (i = 0; i < conf->nb_workers; i++)
		p->shm->workers[i].ctl.stop = 1;

	for (i = 0; i < conf->nb_workers; i++) {
		int status;

		if (p->pids[i] <= 0)
			continue;
		MPE_LOG(WARNING, engine, "worker %u (pid %d): did not stop in %u ms: killing it",
			i, (int)p->pids[i], timeout_ms);
		kill(p->pids[i], SIGKILL);
		if (waitpid(p->pids[i], &status, 0) == p->pids[i])
			record_end(p, i, status);
	}
	/* the last lines they wrote, before the summary */
	mpe_worker_log_fini();
}

void
mpe_launch_kill_all(struct mpe_primary *p)
{
	unsigned int i;

	for (i = 0; i < MPE_MAX_WORKERS; i++)
		if (p->pids[i] > 0)
			kill(p->pids[i], SIGKILL);
	/* reap them before the primary is gone: nothing of the engine outlives it */
	for (i = 0; i < MPE_MAX_WORKERS; i++)
		if (p->pids[i] > 0)
			waitpid(p->pids[i], NULL, 0);
}
