/* Process build: every worker is an mpe-secondary process, spawned with an explicit
 * --proc-type=secondary, the primary's --file-prefix and its own lcore id, in its own process
 * group (so a Ctrl-C reaches only the primary, which then stops the workers in order). */
#include <errno.h>
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

#include "log.h"
#include "primary.h"

const char *const mpe_launch_model = "process";
const uint32_t mpe_launch_model_id = 0;

extern char **environ;

static char secondary[PATH_MAX];

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
	}
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

static void
lcores_arg(char *buf, size_t size, unsigned int lcore, const cpu_set_t *set)
{
	size_t off;
	int c, first = 1;

	off = (size_t)snprintf(buf, size, "--lcores=%u@(", lcore);
	for (c = 0; c < CPU_SETSIZE && off < size; c++) {
		if (!CPU_ISSET(c, set))
			continue;
		off += (size_t)snprintf(buf + off, size - off, "%s%d", first ? "" : ",", c);
		first = 0;
	}
	if (off < size)
		snprintf(buf + off, size - off, ")");
}

int
mpe_launch_start(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	char prefix[96], lcores[256], wid[16];
	char *argv[MPE_MAX_FWD_ARGS + 16];
	posix_spawnattr_t attr;
	sigset_t none;
	int argc = 0, i, rc;
	pid_t pid;

	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", p->file_prefix);
	lcores_arg(lcores, sizeof(lcores), p->shm->conf.workers[id].lcore, &p->cpus[id]);
	snprintf(wid, sizeof(wid), "%u", id);
	argv[argc++] = secondary;
	argv[argc++] = (char *)(uintptr_t)"--proc-type=secondary";
	argv[argc++] = prefix;
	argv[argc++] = lcores;
	for (i = 0; i < p->nb_fwd_args; i++)
		argv[argc++] = p->fwd_args[i];
	argv[argc++] = (char *)(uintptr_t)"--";
	argv[argc++] = (char *)(uintptr_t)"--worker";
	argv[argc++] = wid;
	argv[argc] = NULL;

	slot->status.state = MPE_WORKER_STARTING;
	if (p->no_spawn) {
		printf("worker %u: start it with:", id);
		for (i = 0; i < argc; i++)
			printf(" %s", i == 0 ? "mpe-secondary" : argv[i]);
		printf("\n");
		fflush(stdout);
		return 0;
	}
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&pid, secondary, NULL, &attr, argv, environ);
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

static void
record_end(struct mpe_primary *p, unsigned int id, int status)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	int clean = WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		    slot->status.state == MPE_WORKER_EXITED;

	char why[sizeof(slot->status.error)];

	snprintf(why, sizeof(why), "%s", slot->status.error[0] ? slot->status.error : "exited");
	if (WIFEXITED(status))
		snprintf(slot->status.error, sizeof(slot->status.error), "%s with status %d", why,
			 WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(slot->status.error, sizeof(slot->status.error), "killed by signal %d "
			 "(%s)%s", WTERMSIG(status), strsignal(WTERMSIG(status)),
			 WCOREDUMP(status) ? ", core dumped" : "");
	if (!clean) {
		slot->status.state = MPE_WORKER_FAILED;
		if (p->shm->run_state < MPE_RUN_STOP)
			MPE_LOG(ERR, engine, "worker %u (pid %d): %s", id, (int)p->pids[id],
				slot->status.error);
	}
	p->pids[id] = 0;
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

		return pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH;
	}
	return p->pids[id] > 0;
}

void
mpe_launch_stop_all(struct mpe_primary *p, unsigned int timeout_ms)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t deadline = rte_get_timer_cycles() + rte_get_timer_hz() * timeout_ms / 1000;
	unsigned int i, left;

	for (i = 0; i < conf->nb_workers; i++)
		p->shm->workers[i].ctl.stop = 1;
	do {
		mpe_launch_reap(p);
		left = 0;
		for (i = 0; i < conf->nb_workers; i++) {
			uint32_t st = p->shm->workers[i].status.state;

			if (p->pids[i] > 0 ||
			    (p->no_spawn && (st == MPE_WORKER_READY || st == MPE_WORKER_RUNNING) &&
			     mpe_launch_alive(p, i)))
				left++;
		}
		if (left > 0)
			rte_delay_us_sleep(5000);
	} while (left > 0 && rte_get_timer_cycles() < deadline);

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
}

void
mpe_launch_kill_all(struct mpe_primary *p)
{
	unsigned int i;

	for (i = 0; i < MPE_MAX_WORKERS; i++)
		if (p->pids[i] > 0)
			kill(p->pids[i], SIGKILL);
}
