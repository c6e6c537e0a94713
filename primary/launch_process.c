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
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>

#include "args.h"
#include "clock.h"
#include "context.h"
#include "death_watch.h"
#include "inspect.h"
#include "launch.h"
#include "log.h"
#include "quarantine.h"
#include "reaper.h"
#include "record.h"
#include "recover.h"
#include "sandbox.h"
#include "standby.h"
#include "supervise.h"
#include "worker.h"
#include "worker_log.h"
#include "worker_user.h"

const char *const mpe_launch_model = "process";
const uint32_t mpe_launch_model_id = 0;

extern char **environ;

#define LOG_FALLBACK_FD 3 /* mpe-secondary --log-fd: the primary's stderr */

static void watch_deaths(struct mpe_primary *p);

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
	p->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (p->epfd < 0)
		MPE_LOG(WARNING, engine, "no epoll set for the workers' pidfds (%s): a death is "
			"seen at the next supervision tick", strerror(errno));
	else
		watch_deaths(p);
	rc = mpe_reaper_start();
	if (rc < 0)
		MPE_LOG(WARNING, engine, "no reaper thread (%s): the supervisor reaps its children "
			"itself, and a slow reap holds it up", strerror(-rc));
	p->nb_lcore_ids = 0;
	for (i = 0; i < conf->nb_workers; i++) {
		mpe_launch_lcore_add(p, conf->workers[i].lcore);
	}
	if (conf->standby > 0 && p->no_spawn) {
		MPE_LOG(ERR, engine, "standby = %u: standbys are started by the primary, and "
			"--no-spawn starts none: leave one of the two out", conf->standby);
		return -EINVAL;
	}
	rc = mpe_standby_check(p);
	if (rc < 0)
		return rc;
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

void
mpe_launch_lcore_add(struct mpe_primary *p, uint32_t lcore)
{
	if (p->nb_lcore_ids < RTE_DIM(p->lcore_ids)) {
		p->lcore_used[p->nb_lcore_ids] = 0;
		p->lcore_ids[p->nb_lcore_ids++] = lcore;
	}
}

int
mpe_launch_lcore_take(struct mpe_primary *p, uint32_t prefer)
{
	unsigned int i, k = p->nb_lcore_ids;

	for (i = 0; i < p->nb_lcore_ids; i++)
		if (!p->lcore_used[i] && (k == p->nb_lcore_ids || p->lcore_ids[i] == prefer))
			k = i;
	if (k == p->nb_lcore_ids)
		return -ENOSPC;
	p->lcore_used[k] = 1;
	return (int)p->lcore_ids[k];
}

void
mpe_launch_lcore_free(struct mpe_primary *p, uint32_t lcore)
{
	unsigned int i;

	for (i = 0; i < p->nb_lcore_ids; i++)
		if (p->lcore_ids[i] == lcore)
			p->lcore_used[i] = 0;
}

/* The death watcher (death_watch.c): its eventfd in the epoll set, as data 0. */
static void
watch_deaths(struct mpe_primary *p)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
	int fd = mpe_death_watch_start(p);

	if (fd < 0 || epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		MPE_LOG(WARNING, engine, "no death watcher (%s): a death is seen once its process "
			"has ended", strerror(fd < 0 ? -fd : errno));
}

/* Watch child @pid through a pidfd in the epoll set: its end wakes mpe_launch_wait(). */
static void
watch(struct mpe_primary *p, pid_t pid)
{
	struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)pid};
	unsigned int i;
	int fd;

	if (p->epfd <= 0)
		return;
	for (i = 0; i < RTE_DIM(p->watch) && p->watch[i].pid != 0; i++)
		;
	if (i == RTE_DIM(p->watch))
		return;
	fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd < 0 || epoll_ctl(p->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		MPE_LOG(WARNING, engine, "pid %d: no pidfd to watch (%s): its end is seen at the "
			"next supervision tick", (int)pid, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	p->watch[i].pid = pid;
	p->watch[i].fd = fd;
}

/* @pid is reaped: its pidfd goes (and with it its place in the epoll set). */
static void
unwatch(struct mpe_primary *p, pid_t pid)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(p->watch); i++)
		if (p->watch[i].pid == pid) {
			close(p->watch[i].fd);
			p->watch[i].pid = 0;
		}
}

void
mpe_launch_wait(struct mpe_primary *p, unsigned int us)
{
	struct epoll_event ev[8];
	int i, n;

	if (p->epfd <= 0) {
		rte_delay_us_sleep(us);
		return;
	}
	n = epoll_wait(p->epfd, ev, RTE_DIM(ev), (int)((us + 999) / 1000));
	for (i = 0; i < n; i++)
		if (ev[i].data.u32 == 0)
			mpe_death_watch_clear();
}

/* The command line of a worker process: mpe-secondary, its EAL options (its own lcore id on
 * its CPUs, the primary's memory and devices), then "-- @role @n". Returns argc. */
static int
secondary_argv(struct mpe_primary *p, char **argv, char *prefix, size_t prefix_size,
	       const char *lcores, const char *role, const char *n)
{
	int argc = 0, i;

	snprintf(prefix, prefix_size, "--file-prefix=%s", p->file_prefix);
	argv[argc++] = secondary;
	argv[argc++] = (char *)(uintptr_t)"--proc-type=secondary";
	argv[argc++] = prefix;
	argv[argc++] = (char *)(uintptr_t)lcores;
	for (i = 0; i < nb_fwd_args; i++)
		argv[argc++] = fwd_args[i];
	argv[argc++] = (char *)(uintptr_t)"--";
	argv[argc++] = (char *)(uintptr_t)role;
	argv[argc++] = (char *)(uintptr_t)n;
	if (!p->no_spawn)
		argv[argc++] = (char *)(uintptr_t)"--spawned";
	argv[argc] = NULL;
	return argc;
}

/* posix_spawn of @argv in a process group of its own, its output into the primary's log. */
static int
spawn(struct mpe_primary *p, char **argv, int argc, unsigned int log_id, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char logfd[16];
	sigset_t none;
	int rc, wfd;

	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	/* its stdout (EAL and engine logs) and stderr into the primary's log, prefixed; without
	 * a pipe it writes to the primary's own stdout and stderr */
	posix_spawn_file_actions_init(&fa);
	wfd = mpe_worker_log_pipe(log_id);
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
	rc = posix_spawn(pid, secondary, &fa, &attr, argv, environ);
	mpe_worker_log_spawned(wfd);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (rc == 0)
		watch(p, *pid);
	return -rc;
}

int
mpe_launch_spawn(struct mpe_primary *p, const char *role, unsigned int n, unsigned int lcore,
		 const cpu_set_t *cpus, unsigned int log_id, pid_t *pid, char *err,
		 size_t err_size)
{
	char prefix[sizeof("--file-prefix=") + sizeof(p->file_prefix)], lcores[256], num[16];
	char *argv[MPE_MAX_FWD_ARGS + 16];
	int argc, rc;

	if (lcores_arg(lcores, sizeof(lcores), lcore, cpus) < 0) {
		snprintf(err, err_size, "its CPU set does not fit in --lcores (%zu characters)",
			 sizeof(lcores));
		return -ENAMETOOLONG;
	}
	snprintf(num, sizeof(num), "%u", n);
	argc = secondary_argv(p, argv, prefix, sizeof(prefix), lcores, role, num);
	rc = spawn(p, argv, argc, log_id, pid);
	if (rc < 0)
		snprintf(err, err_size, "spawn failed: %s", strerror(-rc));
	return rc;
}

int
mpe_launch_start(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	char prefix[sizeof("--file-prefix=") + sizeof(p->file_prefix)], lcores[256], wid[16];
	char *argv[MPE_MAX_FWD_ARGS + 16];
	int argc, i, rc;
	pid_t pid;

	/* its configured lcore id, unless a standby holds it now: then another free one */
	rc = p->no_spawn ? (int)p->shm->conf.workers[id].lcore :
			   mpe_launch_lcore_take(p, p->shm->conf.workers[id].lcore);
	if (rc < 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "no lcore id free");
		slot->status.state = MPE_WORKER_FAILED;
		return rc;
	}
	slot->ctl.lcore = (uint32_t)rc;
	if (lcores_arg(lcores, sizeof(lcores), slot->ctl.lcore, &p->cpus[id]) < 0) {
		snprintf(slot->status.error, sizeof(slot->status.error),
			 "its CPU set does not fit in --lcores (%zu characters)", sizeof(lcores));
		slot->status.state = MPE_WORKER_FAILED;
		mpe_launch_lcore_free(p, slot->ctl.lcore);
		return -ENAMETOOLONG;
	}
	snprintf(wid, sizeof(wid), "%u", id);
	argc = secondary_argv(p, argv, prefix, sizeof(prefix), lcores, "--worker", wid);

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
	rc = spawn(p, argv, argc, id, &pid);
	if (rc < 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "spawn failed: %s",
			 strerror(-rc));
		slot->status.state = MPE_WORKER_FAILED;
		mpe_launch_lcore_free(p, slot->ctl.lcore);
		return rc;
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

/* How long producers with backpressure wait for a worker whose place a standby is taking
 * (ctl.handed): a takeover takes well under a millisecond, its recovery a few */
#define HANDED_WAIT_MS 200

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
	unsigned int n, carried;

	slot->ctl.dead = 1;
	slot->ctl.handed = 0;
	slot->status.state = MPE_WORKER_FAILED;
	rte_wmb();
	n = mpe_recover_drain_input(p, id);
	/* a burst left to the replacement that will not come */
	carried = mpe_recover_carried_drop(p, id, MPE_DROP_WORKER_DIED);
	MPE_LOG(ERR, engine, "worker %u: %s: it stays down; its traffic is dropped and counted "
		"(worker_down), the other workers go on (%u packets were queued for it, %u left "
		"in its hands lost)", id, why, n, carried);
}

/* Recover worker @id; when the pool's ring is left half done for good, the pool cannot be
 * used any more: the engine stops. */
static int
recover(struct mpe_primary *p, unsigned int id, enum mpe_drop why, int carry)
{
	char stuck[192];
	int lost = mpe_recover_worker(p, id, why, carry, stuck, sizeof(stuck));

	if (lost == -EDEADLK) {
		MPE_LOG(ERR, engine, "worker %u: %s: every process that takes or returns mbufs "
			"will wait for it for ever", id, stuck);
		mpe_supervise_abort(p, "the mbuf pool can no longer be used");
	}
	return lost;
}

/* Before worker @id, dead by signal @sig (0: it exited, or unknown), is recovered: the burst
 * it held goes into its flight recorder, which is copied (@rec, written out by
 * evidence_file() once the worker's place is taken), and what a fault signal left in its
 * stages is quarantined. Returns the drop reason of what its recovery reclaims. */
static enum mpe_drop
death_evidence(struct mpe_primary *p, unsigned int id, int sig, struct mpe_record_copy **rec,
	       unsigned int *sealed)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];

	slot->ctl.last_signal = sig;
	if (mpe_quarantine_fault(sig))
		slot->ctl.fault_deaths++;
	*rec = NULL;
	*sealed = 0;
	if (slot->ctl.rec != NULL) {
		*sealed = mpe_record_seal(p, id, sig);
		*rec = mpe_record_copy(p, id);
	}
	return mpe_quarantine_death(p, id, sig) > 0 ? MPE_DROP_QUARANTINE : MPE_DROP_WORKER_DIED;
}

/* The dead worker's recorder, copied by death_evidence(), into a file. */
static void
evidence_file(struct mpe_primary *p, unsigned int id, struct mpe_record_copy *rec,
	      unsigned int sealed)
{
	char path[PATH_MAX];
	int n;

	if (p->shm->workers[id].ctl.rec == NULL)
		return;
	n = mpe_record_copy_file(p, rec, path, sizeof(path));
	if (n < 0)
		MPE_LOG(ERR, engine, "worker %u: its flight recorder cannot be written: %s", id,
			strerror(-n));
	else
		MPE_LOG(NOTICE, engine, "worker %u: its last %d packets, %u of them in its hands: "
			"%s", id, n, sealed, path);
}

/* The recorder of worker @id's last death, kept while a standby took its place: written out
 * once the standby runs, or now (@now: it dies again, the engine stops). */
static void
evidence_pending(struct mpe_primary *p, unsigned int id, int now)
{
	uint32_t st = p->shm->workers[id].status.state;

	if (p->life[id].evidence == NULL ||
	    (!now && st != MPE_WORKER_RUNNING && st != MPE_WORKER_FAILED &&
	     rte_get_timer_cycles() - p->life[id].died_tsc < ms_to_tsc(100)))
		return;
	evidence_file(p, id, p->life[id].evidence, p->life[id].evidence_sealed);
	p->life[id].evidence = NULL;
}

static void
restart_window(struct mpe_primary *p, unsigned int id, uint64_t now)
{
	if (now - p->life[id].window_tsc > ms_to_tsc(p->shm->conf.restart_window_ms)) {
		p->life[id].window_tsc = now;
		p->life[id].window_restarts = 0;
	}
}

/* A standby attached ahead of need takes worker @id's place, within restart_max, with no
 * back-off: what the back-off guards against, a process that cannot start, is behind it.
 * 1 when one did. */
static int
takeover(struct mpe_primary *p, unsigned int id, uint64_t now)
{
	restart_window(p, id, now);
	if (p->life[id].window_restarts >= p->shm->conf.restart_max || !mpe_standby_take(p, id))
		return 0;
	p->life[id].window_restarts++;
	return 1;
}

/* A death the worker caused: a fault signal, or its sandbox's SIGSYS (a worker taken over
 * through its parser, perhaps). What it wrote is not trusted and its burst not carried. */
static int
own_fault(int sig)
{
	return mpe_quarantine_fault(sig) || sig == SIGSYS;
}

/* Before a dead worker is taken offline for RCU: a death that was not its own fault puts back
 * what the burst in its stages counted (its undo log), so that the burst is counted once,
 * by whoever finishes it, or only as lost. */
static void
undo_burst(struct mpe_primary *p, unsigned int id, int sig)
{
	if (p->shm->conf.carry && !own_fault(sig) && mpe_recover_undo(p, id) < 0)
		MPE_LOG(WARNING, engine, "worker %u: the burst in its stages stays counted as far "
			"as it went", id);
}

/* The signal a worker process that is not the primary's child ended by, as far as its slot
 * says: the one its handler wrote, SIGSYS where its sandbox wrote a system call, else 0
 * (SIGKILL, which no handler sees, or an exit). */
static int
end_signal(const struct mpe_worker_slot *slot)
{
	int sig = slot->status.end_signal;

	if (sig > 0 && sig < NSIG)
		return sig;
	return slot->status.blocked_syscall >= 0 ? SIGSYS : 0;
}

/* Whether a standby will take worker @id's place at once: restart on, within restart_max,
 * one parked. */
static int
standby_expected(struct mpe_primary *p, unsigned int id, uint64_t now)
{
	const struct mpe_conf *conf = &p->shm->conf;

	if (!conf->restart || !mpe_standby_parked(p))
		return 0;
	restart_window(p, id, now);
	return p->life[id].window_restarts < conf->restart_max;
}

/* Whether worker @id will be respawned after its death now: restart on, within
 * restart_max. */
static int
respawn_expected(struct mpe_primary *p, unsigned int id, uint64_t now)
{
	if (!p->shm->conf.restart)
		return 0;
	restart_window(p, id, now);
	return p->life[id].window_restarts < p->shm->conf.restart_max;
}

/* A worker process ended while the engine runs: recover what it held, then respawn it after
 * a back-off, or leave it down when it restarts too often. */
static void
worker_died(struct mpe_primary *p, unsigned int id, int sig)
{
	const struct mpe_conf *conf = &p->shm->conf;
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	uint64_t now = rte_get_timer_cycles(), delay;
	struct mpe_record_copy *rec;
	unsigned int sealed;
	enum mpe_drop drop;
	int lost, carry, expected;
	char why[64];

	/* with a standby to take its place, producers with backpressure wait for it through
	 * the recovery (milliseconds) rather than drop what is bound for it */
	expected = standby_expected(p, id, now);
	slot->ctl.handed = (uint32_t)expected; /* seen no later than down */
	rte_wmb();
	slot->ctl.down = 1;
	rte_wmb();
	undo_burst(p, id, sig);
	mpe_inspect_worker_gone(p, id);
	/* the death's time: when the death watcher saw it, if it did */
	if (p->life[id].seen_tsc != 0 && p->life[id].seen_tsc <= now) {
		p->life[id].died_tsc = p->life[id].seen_tsc;
		slot->ctl.died_ns = p->life[id].seen_ns;
	} else {
		p->life[id].died_tsc = now;
		slot->ctl.died_ns = mpe_clock_ns(CLOCK_MONOTONIC);
	}
	slot->ctl.died_tsc = p->life[id].died_tsc;
	slot->ctl.last_outage_us = 0;
	p->life[id].outage_open = 1;
	evidence_pending(p, id, 1);
	drop = death_evidence(p, id, sig, &rec, &sealed);
	/* the burst in its hands goes to its replacement, the standby or the process respawned
	 * in its place (within restart_max), unless the worker caused its death */
	carry = conf->carry && drop == MPE_DROP_WORKER_DIED && !own_fault(sig) &&
		(expected || respawn_expected(p, id, now));
	lost = recover(p, id, drop, carry);
	/* its cache is flushed: its lcore id may serve a later process */
	mpe_launch_lcore_free(p, slot->ctl.lcore);
	if (conf->restart && takeover(p, id, now)) {
		/* the recorder's file once the standby runs: it starts on this CPU */
		MPE_LOG(ERR, engine, "worker %u: %s; %d mbufs reclaimed from its hands", id,
			slot->ctl.last_cause, lost < 0 ? 0 : lost);
		p->life[id].evidence = rec;
		p->life[id].evidence_sealed = sealed;
		return;
	}
	/* no standby after all: nobody to wait for; a burst left to the replacement waits for
	 * the process respawned, or is dropped when it stays down (leave_down) */
	slot->ctl.handed = 0;
	MPE_LOG(ERR, engine, "worker %u: %s; %d mbufs reclaimed from its hands", id,
		slot->ctl.last_cause, lost < 0 ? 0 : lost);
	evidence_file(p, id, rec, sealed);
	if (!conf->restart) {
		leave_down(p, id, "restart = off");
		return;
	}
	restart_window(p, id, now);
	if (p->life[id].window_restarts >= conf->restart_max) {
		snprintf(why, sizeof(why), "died %u times within %u ms (restart_max)",
			 p->life[id].window_restarts + 1, conf->restart_window_ms);
		leave_down(p, id, why);
		return;
	}
	p->life[id].window_restarts++;
	delay = (uint64_t)conf->restart_backoff_ms << RTE_MIN(p->life[id].window_restarts - 1,
							     8U);
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
	struct mpe_record_copy *rec;
	unsigned int queued, sealed;
	int lost;

	slot->ctl.down = 1;
	slot->ctl.dead = 1;
	slot->ctl.handed = 0;
	slot->status.state = MPE_WORKER_FAILED;
	rte_wmb();
	undo_burst(p, id, sig);
	mpe_inspect_worker_gone(p, id);
	evidence_pending(p, id, 1);
	lost = recover(p, id, death_evidence(p, id, sig, &rec, &sealed), 0);
	evidence_file(p, id, rec, sealed);
	mpe_launch_lcore_free(p, slot->ctl.lcore);
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
		/* a standby handed a burst it had not begun: nobody else will finish it */
		if (mpe_recover_carried_drop(p, id, MPE_DROP_SHUTDOWN) > 0)
			MPE_LOG(NOTICE, engine, "worker %u: the burst left to it dropped "
				"(shutdown)", id);
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
	else if (end_signal(slot) > 0)
		snprintf(slot->ctl.last_cause, sizeof(slot->ctl.last_cause), "pid %d ended by "
			 "signal %d (%s)", slot->status.pid, end_signal(slot),
			 strsignal(end_signal(slot)));
	else
		snprintf(slot->ctl.last_cause, sizeof(slot->ctl.last_cause), "pid %d is gone",
			 slot->status.pid);
	rte_strscpy(slot->status.error, slot->ctl.last_cause, sizeof(slot->status.error));
	if (p->shm->run_state == MPE_RUN_ACTIVE && !asked_to_stop(p, id)) {
		worker_died(p, id, end_signal(slot));
		return;
	}
	/* one that died in its loop as the engine drains or stops may hold a burst, and its
	 * input waits for it: reclaimed and counted as a spawned worker's would be */
	if (st == MPE_WORKER_READY || st == MPE_WORKER_RUNNING) {
		died_stopping(p, id, end_signal(slot));
		return;
	}
	slot->status.state = MPE_WORKER_FAILED;
	/* a burst left to it that it did not finish: nobody else will */
	if (mpe_recover_carried_drop(p, id, MPE_DROP_SHUTDOWN) > 0)
		MPE_LOG(NOTICE, engine, "worker %u: the burst left to it dropped (shutdown)", id);
}

void
mpe_launch_tick(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t now;
	unsigned int i;

	mpe_launch_reap(p);
	mpe_standby_tick(p);
	now = rte_get_timer_cycles();
	for (i = 0; i < conf->nb_workers; i++) {
		struct mpe_worker_slot *slot = &p->shm->workers[i];
		uint32_t st;

		evidence_pending(p, i, 0);
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
		if (p->life[i].outage_open &&
		    slot->status.first_move_tsc > slot->ctl.died_tsc) {
			slot->ctl.last_outage_us = RTE_MAX((slot->status.first_move_tsc -
							     slot->ctl.died_tsc) * 1000000 /
							    rte_get_timer_hz(), (uint64_t)1);
			p->life[i].outage_open = 0;
			MPE_LOG(NOTICE, engine, "worker %u: moving packets again %" PRIu64 " us "
				"after its death was seen", i, slot->ctl.last_outage_us);
		}
		/* a standby that takes more than this to take a place is not waited for */
		if (slot->ctl.handed && slot->ctl.down &&
		    now - p->life[i].died_tsc > ms_to_tsc(HANDED_WAIT_MS)) {
			slot->ctl.handed = 0;
			MPE_LOG(WARNING, engine, "worker %u: its standby is not running %u ms after "
				"the takeover: what does not fit its ring is dropped meanwhile", i,
				HANDED_WAIT_MS);
		}
		if (slot->ctl.down && !slot->ctl.dead &&
		    (st == MPE_WORKER_READY || st == MPE_WORKER_RUNNING)) {
			slot->ctl.last_recover_us = (now - p->life[i].died_tsc) * 1000000 /
						    rte_get_timer_hz();
			/* handed stays: it is read only after down, and a reader that saw down
			 * still set must not find it cleared */
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

/* Worker processes whose death was taken before they ended (death_watch.c), with the
 * signal it was taken for: reaped later, when the kernel is done with them. */
static struct {
	pid_t pid;
	unsigned int id;
	int sig;
} ghosts[2 * MPE_MAX_WORKERS];

/* Worker @id's polling thread, in process @pid, is dead: its death is recovered now, with the
 * signal its handler wrote (SIGSYS: the sandbox's; none: SIGKILL, the one no handler sees),
 * while the kernel still tears the process down. Only a plain death while the engine runs:
 * anything else waits for the process's end. */
static void
early_end(struct mpe_primary *p, unsigned int id, pid_t pid)
{
	const struct mpe_worker_slot *slot = &p->shm->workers[id];
	uint32_t st = slot->status.state;
	unsigned int g;
	int sig;

	if (p->shm->run_state != MPE_RUN_ACTIVE || asked_to_stop(p, id) ||
	    (st != MPE_WORKER_READY && st != MPE_WORKER_RUNNING))
		return;
	for (g = 0; g < RTE_DIM(ghosts) && ghosts[g].pid != 0; g++)
		;
	if (g == RTE_DIM(ghosts))
		return;
	sig = slot->status.end_signal;
	if (sig <= 0 || sig >= NSIG)
		sig = slot->status.blocked_syscall >= 0 ? SIGSYS : SIGKILL;
	ghosts[g].pid = pid;
	ghosts[g].id = id;
	ghosts[g].sig = sig;
	record_end(p, id, sig); /* a wait status: killed by @sig */
}

/* A process whose death was taken early has ended: said again only when it ended otherwise. */
static int
ghost_reaped(pid_t pid, int status)
{
	unsigned int g;

	for (g = 0; g < RTE_DIM(ghosts) && ghosts[g].pid != pid; g++)
		;
	if (g == RTE_DIM(ghosts))
		return 0;
	if (!WIFSIGNALED(status) || WTERMSIG(status) != ghosts[g].sig || WCOREDUMP(status)) {
		if (WIFSIGNALED(status))
			MPE_LOG(NOTICE, engine, "worker %u: pid %d, taken for dead by signal %d, "
				"ended by signal %d (%s)%s%s", ghosts[g].id, (int)pid, ghosts[g].sig,
				WTERMSIG(status), strsignal(WTERMSIG(status)),
				WCOREDUMP(status) ? ", core dumped to " : "",
				WCOREDUMP(status) ? core_pattern() : "");
		else
			MPE_LOG(NOTICE, engine, "worker %u: pid %d, taken for dead by signal %d, "
				"exited with status %d", ghosts[g].id, (int)pid, ghosts[g].sig,
				WEXITSTATUS(status));
	}
	ghosts[g].pid = 0;
	return 1;
}

/* Every process taken for dead has ended (before the primary does: none outlives it). */
static void
reap_ghosts(void)
{
	unsigned int g;
	int status;

	for (g = 0; g < RTE_DIM(ghosts); g++)
		if (ghosts[g].pid != 0 && waitpid(ghosts[g].pid, &status, 0) == ghosts[g].pid)
			ghost_reaped(ghosts[g].pid, status);
}

/* Child @pid has ended: its wait status into @status, the child left unreaped (reaper.c). */
static int
ended(pid_t pid, int *status)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (pid <= 0 || waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 ||
	    si.si_pid != pid)
		return 0;
	if (si.si_code == CLD_EXITED)
		*status = W_EXITCODE(si.si_status, 0);
	else if (si.si_code == CLD_DUMPED)
		*status = si.si_status | WCOREFLAG;
	else
		*status = si.si_status; /* CLD_KILLED: the signal, as a wait status has it */
	return 1;
}

/* The children whose end is still to be taken: workers, standbys, those taken for dead. */
static unsigned int
children(const struct mpe_primary *p, pid_t *pids, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < MPE_MAX_WORKERS && n < max; i++)
		if (p->pids[i] > 0)
			pids[n++] = p->pids[i];
	for (i = 0; i < MPE_MAX_STANDBY && n < max; i++)
		if (p->standby[i].pid > 0)
			pids[n++] = p->standby[i].pid;
	for (i = 0; i < RTE_DIM(ghosts) && n < max; i++)
		if (ghosts[i].pid > 0)
			pids[n++] = ghosts[i].pid;
	return n;
}

/* Worker @i waits for its respawn, or (--no-spawn) for an instance started by hand. */
static int
not_started(const struct mpe_primary *p, unsigned int i)
{
	const struct mpe_worker_slot *slot = &p->shm->workers[i];

	return slot->status.state == MPE_WORKER_RESTARTING ||
	       (p->no_spawn && slot->status.state == MPE_WORKER_STARTING && slot->status.pid == 0);
}

int
mpe_launch_reap(struct mpe_primary *p)
{
	pid_t pids[MPE_MAX_WORKERS + MPE_MAX_STANDBY + RTE_DIM(ghosts)], pid;
	unsigned int i, nb;
	int status, n = 0, id;

	for (i = 0; i < p->shm->conf.nb_workers; i++) {
		uint64_t seen_tsc, seen_ns;

		pid = mpe_death_watch_take(i, &seen_tsc, &seen_ns);
		if (pid > 0 && pid == p->pids[i]) {
			p->life[i].seen_tsc = seen_tsc;
			p->life[i].seen_ns = seen_ns;
			early_end(p, i, pid);
			p->life[i].seen_tsc = 0;
			n++;
		}
	}
	/* a worker still to be respawned when it is told to stop (the drain, or the stop of a
	 * shape that does not drain) never is: a burst left to it is dropped, not waited for;
	 * and an instance started by hand that ended is looked at now, as no tick does */
	for (i = 0; i < p->shm->conf.nb_workers; i++) {
		if (!asked_to_stop(p, i))
			continue;
		if (p->no_spawn)
			check_hand_started(p, i);
		if (p->pids[i] == 0 && not_started(p, i) &&
		    mpe_recover_carried_drop(p, i, MPE_DROP_SHUTDOWN) > 0)
			MPE_LOG(NOTICE, engine, "worker %u: the burst left to it dropped, not "
				"respawned (shutdown)", i);
	}
	/* each child's end is taken here, once: it then leaves every list children() reads */
	nb = children(p, pids, RTE_DIM(pids));
	for (i = 0; i < nb; i++) {
		pid = pids[i];
		if (!ended(pid, &status))
			continue;
		unwatch(p, pid);
		id = worker_of(p, pid);
		if (id >= 0) {
			record_end(p, (unsigned int)id, status);
			n++;
		} else if (!ghost_reaped(pid, status)) {
			mpe_standby_reaped(p, pid, status);
		}
		mpe_reaper_hand(pid);
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

	/* the standbys first: parked, they leave at once */
	mpe_standby_stop(p);
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
	while (mpe_standby_stop(p) > 0 && rte_get_timer_cycles() < deadline) {
		rte_delay_us_sleep(2000);
		mpe_launch_reap(p);
	}
	mpe_standby_kill(p, 1);
	for (i = 0; i < conf->nb_workers; i++)
		evidence_pending(p, i, 1);

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
	mpe_death_watch_stop();
	reap_ghosts();
	mpe_reaper_fini();
	/* the last lines they wrote, before the summary */
	mpe_worker_log_fini();
}

void
mpe_launch_fini(struct mpe_primary *p)
{
	RTE_SET_USED(p);
	mpe_death_watch_stop(); /* it reads the shared memory, which goes next */
	mpe_reaper_fini();
}

void
mpe_launch_kill_all(struct mpe_primary *p)
{
	unsigned int i;

	for (i = 0; i < MPE_MAX_WORKERS; i++)
		if (p->pids[i] > 0)
			kill(p->pids[i], SIGKILL);
	mpe_standby_kill(p, 1);
	for (i = 0; i < RTE_DIM(ghosts); i++)
		if (ghosts[i].pid > 0)
			kill(ghosts[i].pid, SIGKILL);
	reap_ghosts();
	/* reap them before the primary is gone: nothing of the engine outlives it */
	for (i = 0; i < MPE_MAX_WORKERS; i++)
		if (p->pids[i] > 0)
			waitpid(p->pids[i], NULL, 0);
	mpe_reaper_fini();
}
