/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread build: workers are lcore threads of the primary, running the same loop as the
 * worker processes. A crashing worker takes the whole engine down with it. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_string_fns.h>
#include <rte_malloc.h>

#include "context.h"
#include "launch.h"
#include "log.h"
#include "worker.h"
#include "worker_log.h"

const char *const mpe_launch_model = "thread";
const uint32_t mpe_launch_model_id = 1;

static struct mpe_worker *workers[MPE_MAX_WORKERS];

static const struct mpe_shared *fault_shm; /* for on_fault() */

/* @s at the end of @buf (@len bytes used of @size); returns the new length. */
static size_t
put_str(char *buf, size_t len, size_t size, const char *s)
{
	while (*s != '\0' && len + 1 < size)
		buf[len++] = *s++;
	return len;
}

static size_t
put_uint(char *buf, size_t len, size_t size, unsigned int v)
{
	char digits[12];
	unsigned int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0 && len + 1 < size)
		buf[len++] = digits[--n];
	return len;
}

/* A fault signal in this process: a worker's stage (or anything else) crashed. The thread
 * build cannot survive it; say which worker and which stage before the default action ends
 * the process. Async-signal-safe: the message is built by hand and written with write(2). */
static void
on_fault(int sig)
{
	const struct mpe_shared *shm = fault_shm;
	const unsigned int lc = rte_lcore_id();
	const char *abbrev = sigabbrev_np(sig);
	char msg[320];
	size_t n = 0;
	unsigned int i;

	n = put_str(msg, n, sizeof(msg), "mpe: SIG");
	n = put_str(msg, n, sizeof(msg), abbrev != NULL ? abbrev : "?");
	for (i = 0; shm != NULL && i < shm->conf.nb_workers; i++)
		if (shm->conf.workers[i].lcore == lc)
			break;
	if (shm != NULL && i < shm->conf.nb_workers) {
		const struct mpe_worker_conf *wc = &shm->conf.workers[i];
		const uint32_t s = shm->workers[i].hand.stage;
		const struct mpe_stage_info *info =
			s < wc->nb_stages ? mpe_stage_info(wc->stages[s]) : NULL;

		n = put_str(msg, n, sizeof(msg), " in worker ");
		n = put_uint(msg, n, sizeof(msg), i);
		n = put_str(msg, n, sizeof(msg), " (lcore ");
		n = put_uint(msg, n, sizeof(msg), lc);
		n = put_str(msg, n, sizeof(msg), "), stage ");
		n = put_uint(msg, n, sizeof(msg), s);
		n = put_str(msg, n, sizeof(msg), " (");
		n = put_str(msg, n, sizeof(msg), info != NULL ? info->name : "?");
		n = put_str(msg, n, sizeof(msg), ")");
	}
	n = put_str(msg, n, sizeof(msg), ": the thread build stops here, a crashing worker "
		    "takes the engine down; the process build respawns the worker and "
		    "quarantines what it held (docs/recorder.md)\n");
	if (write(STDERR_FILENO, msg, n) < 0)
		n = 0;
	raise(sig); /* SA_RESETHAND | SA_NODEFER: the default action, now */
}

static void
fault_handlers(const struct mpe_shared *shm)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
	struct sigaction sa;
	unsigned int i;

	fault_shm = shm;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fault;
	sa.sa_flags = SA_RESETHAND | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < RTE_DIM(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* Workers share the primary's EAL: nothing of its arguments is passed on. */
int
mpe_launch_eal_args(int argc, char **argv)
{
	return 0;
}

int
mpe_launch_check(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	unsigned int i;
	int rc = 0;

	if (p->no_spawn) {
		MPE_LOG(ERR, engine, "--no-spawn is for the process build: this build runs "
			"workers as threads");
		return -EINVAL;
	}
	MPE_LOG(NOTICE, engine, "thread build: workers are threads of this process, and one that "
		"crashes takes the whole engine down (the process build isolates and respawns "
		"them)");
	fault_handlers(p->shm);
	if (conf->sandbox)
		MPE_LOG(NOTICE, engine, "sandbox: not applicable in the thread build: the workers "
			"share this process, which keeps what the primary needs (docs/sandbox.md)");
	for (i = 0; i < conf->nb_workers; i++) {
		unsigned int lc = conf->workers[i].lcore;

		if (!rte_lcore_is_enabled(lc) || lc == rte_get_main_lcore()) {
			MPE_LOG(ERR, engine, "worker %u: lcore %u is %s: the thread build runs "
				"workers on the primary's lcores; add it to -l/--lcores", i, lc,
				lc == rte_get_main_lcore() ? "the main lcore" : "not enabled");
			rc = -EINVAL;
			continue;
		}
		if (conf->workers[i].cpu == MPE_CPU_ANY) {
			p->cpus[i] = rte_lcore_cpuset(lc);
		} else if (conf->workers[i].cpu >= CPU_SETSIZE ||
			   sysconf(_SC_NPROCESSORS_ONLN) <= conf->workers[i].cpu) {
			MPE_LOG(ERR, engine, "worker %u: cpu %u does not exist (%ld online)", i,
				conf->workers[i].cpu, sysconf(_SC_NPROCESSORS_ONLN));
			rc = -EINVAL;
		} else {
			/* the lcore thread moves there when the worker starts (run_worker) */
			CPU_ZERO(&p->cpus[i]);
			CPU_SET(conf->workers[i].cpu, &p->cpus[i]);
		}
	}
	if (rc == 0 && mpe_worker_log_init(p) < 0)
		MPE_LOG(WARNING, engine, "worker threads' log lines not prefixed");
	return rc;
}

/* A worker on its lcore thread, first moved to the worker's `cpu` when the configuration
 * names one: the placement the process build gives a worker process (--lcores ID@CPU). */
static int
run_worker(void *arg)
{
	struct mpe_worker *w = arg;
	uint16_t cpu = w->shm->conf.workers[w->id].cpu;

	if (cpu != MPE_CPU_ANY) {
		rte_cpuset_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (rte_thread_set_affinity(&set) != 0)
			MPE_LOG(WARNING, engine, "worker %u: cannot move lcore %u to cpu %u",
				w->id, rte_lcore_id(), cpu);
	}
	return mpe_worker_main(w);
}

int
mpe_launch_start(struct mpe_primary *p, unsigned int id)
{
	struct mpe_worker_slot *slot = &p->shm->workers[id];
	unsigned int lc = p->shm->conf.workers[id].lcore;
	struct mpe_worker *w;
	int rc;

	w = rte_zmalloc("mpe_worker", sizeof(*w), RTE_CACHE_LINE_SIZE);
	if (w == NULL)
		return -ENOMEM;
	slot->status.state = MPE_WORKER_STARTING;
	rc = mpe_worker_init(w, p->shm, id, slot->status.error, sizeof(slot->status.error));
	if (rc < 0) {
		slot->status.state = MPE_WORKER_FAILED;
		rte_free(w);
		return rc;
	}
	slot->status.pid = getpid();
	rte_strscpy(slot->status.sandbox, "n/a (thread)", sizeof(slot->status.sandbox));
	slot->status.blocked_syscall = -1;
	slot->status.state = MPE_WORKER_READY;
	rc = rte_eal_remote_launch(run_worker, w, lc);
	if (rc != 0) {
		snprintf(slot->status.error, sizeof(slot->status.error),
			 "lcore %u is busy", lc);
		slot->status.state = MPE_WORKER_FAILED;
		mpe_worker_fini(w);
		rte_free(w);
		return -EBUSY;
	}
	workers[id] = w;
	return 0;
}

int
mpe_launch_reap(struct mpe_primary *p)
{
	return 0;
}

int
mpe_launch_alive(struct mpe_primary *p, unsigned int id)
{
	return workers[id] != NULL;
}

void
mpe_launch_stop_all(struct mpe_primary *p, unsigned int timeout_ms)
{
	const struct mpe_conf *conf = &p->shm->conf;
	unsigned int i;

	/* a pipeline stops from its first stage on: each stage empties its input ring, which
	 * nobody fills any more, before it is told to stop */
	for (i = 0; i < conf->nb_workers; i++)
		if (conf->shape != MPE_SHAPE_PIPELINE)
			p->shm->workers[i].ctl.stop = 1;
	for (i = 0; i < conf->nb_workers; i++) {
		p->shm->workers[i].ctl.stop = 1;
		if (workers[i] == NULL)
			continue;
		rte_eal_wait_lcore(conf->workers[i].lcore);
		p->shm->workers[i].status.state = MPE_WORKER_EXITED;
		mpe_worker_fini(workers[i]);
		rte_free(workers[i]);
		workers[i] = NULL;
	}
	mpe_worker_log_fini();
}

void
mpe_launch_kill_all(struct mpe_primary *p)
{
}

/* Threads cannot be killed and recovered one by one: a crashing worker thread ends the
 * whole process, which is the price of this build. */
void
mpe_launch_tick(struct mpe_primary *p)
{
}

void
mpe_launch_wait(struct mpe_primary *p, unsigned int us)
{
	RTE_SET_USED(p);
	rte_delay_us_sleep(us); /* a crash ends the whole process: nothing to watch */
}

int
mpe_launch_standby_start(struct mpe_primary *p)
{
	RTE_SET_USED(p);
	return 0; /* refused by the configuration check: a thread has no standby */
}

int
mpe_launch_standby_ready(struct mpe_primary *p)
{
	RTE_SET_USED(p);
	return 1;
}

void
mpe_launch_fini(struct mpe_primary *p)
{
	RTE_SET_USED(p);
}
