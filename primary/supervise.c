/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's supervision, from the workers' start to their stop: the stop signals, the
 * wait for the workers to be ready, the supervising loop, and the shutdown (drain, stop the
 * workers and the I/O lcore, the summary). Main lcore, except the signal handlers, which only
 * set flags, or, on a second stop signal, end the workers and the process. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "clock.h"
#include "context.h"
#include "dump.h"
#include "inspect.h"
#include "io.h"
#include "launch.h"
#include "log.h"
#include "notify.h"
#include "runtime.h"
#include "shm.h"
#include "stats.h"
#include "supervise.h"
#include "telemetry.h"
#include "worker_log.h"

#define SUPERVISE_PERIOD_US 10000
#define STOP_TIMEOUT_MS 3000

static volatile sig_atomic_t stop_signal; /* SIGINT or SIGTERM: the signal's number */
static struct mpe_primary *supervised;    /* for the second signal */

/* A stop signal that comes again within this long is the same request sent twice, not a
 * second one: GNU timeout, for one, signals the program and then its process group. */
#define SIGNAL_REPEAT_NS 250000000

static void
on_signal(int sig)
{
	static uint64_t first_ns;

	if (stop_signal && mpe_clock_ns(CLOCK_MONOTONIC) - first_ns < SIGNAL_REPEAT_NS)
		return;
	if (stop_signal) {
		static const char msg[] = "mpe: second signal: forcing exit\n";

		mpe_launch_kill_all(supervised);
		/* teardown will not run: what the EAL leaves on disk goes now */
		mpe_runtime_remove_now();
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(130);
		_exit(130);
	}
	first_ns = mpe_clock_ns(CLOCK_MONOTONIC);
	stop_signal = sig;
}

void
mpe_supervise_abort(struct mpe_primary *p, const char *why)
{
	MPE_LOG(ERR, engine, "%s: stopping the engine now, without waiting for its lcores; "
		"packets in flight are lost", why);
	mpe_launch_kill_all(p);
	mpe_worker_log_fini();
	mpe_stats_summary(p->shm, stdout);
	fflush(stdout);
	/* no rte_eal_cleanup() and no return through main: both would wait for, or free
	 * mbufs into, what is stuck */
	mpe_runtime_files_unlink(mpe_runtime_files_collect());
	mpe_runtime_remove_dir(rte_eal_get_runtime_dir());
	MPE_LOG(ERR, engine, "stopped: the hugepage files and %s are removed; exit 1",
		rte_eal_get_runtime_dir());
	fflush(stderr);
	_exit(EXIT_FAILURE);
}

static void
on_sighup(int sig)
{
	(void)sig;
	mpe_inspect_reload_requested = 1;
}

void
mpe_supervise_signals(struct mpe_primary *p)
{
	supervised = p;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, mpe_dump_on_signal);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, on_sighup);
}

int
mpe_supervise_wait_ready(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t deadline = start + hz * conf->ready_timeout_ms / 1000, next_note = start + 5 * hz;
	unsigned int i, ready;

	for (;;) {
		mpe_launch_reap(p);
		ready = 0;
		for (i = 0; i < conf->nb_workers; i++) {
			struct mpe_worker_status *st = &p->shm->workers[i].status;

			if (st->state == MPE_WORKER_READY || st->state == MPE_WORKER_RUNNING) {
				ready++;
				continue;
			}
			if (st->state == MPE_WORKER_FAILED || !mpe_launch_alive(p, i)) {
				MPE_LOG(ERR, engine, "worker %u: did not become ready: %s", i,
					st->error[0] ? st->error : "ended before attaching");
				return -ECHILD;
			}
		}
		if (ready == conf->nb_workers) {
			/* and the standbys parked: a death from now on finds one */
			int parked = mpe_launch_standby_ready(p);

			if (parked != 0)
				return parked < 0 ? parked : 0;
		}
		if (stop_signal)
			return -EINTR;
		if (!p->no_spawn && rte_get_timer_cycles() > deadline) {
			for (i = 0; i < conf->nb_workers; i++)
				if (p->shm->workers[i].status.state == MPE_WORKER_STARTING)
					MPE_LOG(ERR, engine, "worker %u: not ready after %u ms "
						"(ready_timeout_ms): still attaching", i,
						conf->ready_timeout_ms);
			return -ETIMEDOUT;
		}
		if (p->no_spawn && rte_get_timer_cycles() > next_note) {
			MPE_LOG(NOTICE, engine, "--no-spawn: %u of %u workers attached; waiting",
				ready, conf->nb_workers);
			next_note += 5 * hz;
		}
		rte_delay_us_sleep(SUPERVISE_PERIOD_US);
	}
}

static uint64_t
packets_in(const struct mpe_shared *shm)
{
	struct mpe_totals t;

	mpe_stats_totals(shm, &t);
	return t.in;
}

/* For a service manager's `status` (notify.h), once a second: the workers running and the
 * rates since the last line. */
static void
status_line(struct mpe_primary *p, uint64_t now, struct mpe_totals *last, uint64_t *last_tsc,
	    int ready)
{
	const double dt = (double)(now - *last_tsc) / (double)rte_get_timer_hz();
	struct mpe_totals t;
	unsigned int i, running = 0;
	char line[160];

	mpe_stats_totals(p->shm, &t);
	for (i = 0; i < p->shm->conf.nb_workers; i++)
		running += p->shm->workers[i].status.state == MPE_WORKER_RUNNING;
	if (dt > 0 && *last_tsc != 0)
		snprintf(line, sizeof(line), "%u of %u workers running; in %.0f pps, out %.0f pps, "
			 "dropped %.0f pps", running, p->shm->conf.nb_workers,
			 (double)(t.in - last->in) / dt, (double)(t.out - last->out) / dt,
			 (double)(t.dropped - last->dropped) / dt);
	else
		snprintf(line, sizeof(line), "%u of %u workers running", running,
			 p->shm->conf.nb_workers);
	if (ready)
		mpe_notify_ready(line);
	else
		mpe_notify_status(line);
	*last = t;
	*last_tsc = now;
}

void
mpe_supervise_run(struct mpe_primary *p)
{
	uint64_t hz, last_in = 0, last_change, period, next_stats, status_tsc = 0;
	struct mpe_totals status_last = {0};

	p->shm->run_state = MPE_RUN_ACTIVE;
	MPE_LOG(INFO, engine, "running: %u workers ready; SIGINT or SIGTERM stops",
		p->shm->conf.nb_workers);
	/* every worker ready and the ports started (main.c): the service is up */
	status_line(p, rte_get_timer_cycles(), &status_last, &status_tsc, 1);
	hz = rte_get_timer_hz();
	last_change = rte_get_timer_cycles();
	period = hz * p->shm->conf.stats_period_ms / 1000;
	next_stats = last_change + period;
	while (!stop_signal) {
		uint64_t now, in;

		/* woken early by a worker's death */
		mpe_launch_wait(p, SUPERVISE_PERIOD_US);
		p->shm->primary_heartbeat++;
		mpe_notify_watchdog();
		mpe_launch_tick(p);
		mpe_inspect_tick(p);
		mpe_dump_poll(p);
		now = rte_get_timer_cycles();
		if (now - status_tsc >= hz)
			status_line(p, now, &status_last, &status_tsc, 0);
		if (period != 0 && now >= next_stats) {
			char line[1024];

			mpe_stats_line(p->shm, line, sizeof(line));
			MPE_LOG(INFO, engine, "stats: %.3f s %s",
				(double)(now - p->shm->start_tsc) / (double)p->shm->tsc_hz, line);
			next_stats += period;
			if (next_stats < now)
				next_stats = now + period;
		}
		if (p->idle_exit_ms == 0)
			continue;
		in = packets_in(p->shm);
		if (in != last_in) {
			last_in = in;
			last_change = now;
		} else if (now - last_change > hz * p->idle_exit_ms / 1000) {
			MPE_LOG(INFO, engine, "no packet received for %u ms: stopping",
				p->idle_exit_ms);
			break;
		}
	}
	mpe_notify_stopping();
	MPE_LOG(INFO, engine, "stopping: draining rings, then workers, then ports");
}

/* Packets received but not yet in a ring, in every I/O lcore. */
static unsigned int
io_pending(const struct mpe_primary *p)
{
	unsigned int k, n = 0;

	for (k = 0; k < p->shm->conf.nb_io; k++)
		n += p->shm->io[k].pending;
	return n;
}

/* Rings are empty and nothing waits in the I/O lcores. */
static int
drained(const struct mpe_primary *p)
{
	unsigned int i;

	for (i = 0; i < p->shm->conf.nb_io; i++)
		if (p->shm->io[i].pending != 0)
			return 0;
	for (i = 0; i < p->nb_rings; i++) {
		int c = p->ring_consumer[i];

		/* a ring whose worker is down will not drain: shutdown counts what it holds */
		if (c >= 0 && p->shm->workers[c].ctl.down)
			continue;
		if (rte_ring_count(p->rings[i]) != 0)
			return 0;
	}
	return 1;
}

/* Packets in the input rings of workers that are down: shutdown counts them. */
static uint64_t
held_for_down(const struct mpe_primary *p)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < p->nb_rings; i++) {
		int c = p->ring_consumer[i];

		if (c >= 0 && p->shm->workers[c].ctl.down)
			n += rte_ring_count(p->rings[i]);
	}
	return n;
}

/* Receiving has stopped; done when every packet that came in has left or been counted:
 * empty rings alone do not say that a worker holds no burst (one the scheduler took the CPU
 * from holds it for milliseconds). Twice in a row, 2 ms apart, as the counters of different
 * writers are read one after the other. Packets a worker took into a device call it died in
 * are counted in_doubt: neither out nor dropped, they are not waited for. */
static void
drain(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t hz = rte_get_timer_hz();
	uint64_t deadline = rte_get_timer_cycles() + hz * conf->drain_timeout_ms / 1000;
	unsigned int stable = 0;
	struct mpe_totals t;

	p->shm->run_state = MPE_RUN_DRAIN;
	mpe_stats_totals(p->shm, &t);
	while (stable < 2 && rte_get_timer_cycles() < deadline) {
		rte_delay_us_sleep(2000);
		p->shm->primary_heartbeat++;
		/* a worker that dies now is reclaimed at once, not at the end of the timeout */
		mpe_launch_reap(p);
		mpe_stats_totals(p->shm, &t);
		if (drained(p) && t.in == t.out + t.dropped + t.in_doubt + held_for_down(p))
			stable++;
		else
			stable = 0;
	}
	if (stable < 2) {
		unsigned int i;

		MPE_LOG(WARNING, engine, "drain: not finished after %u ms (drain_timeout_ms): "
			"%u packets pending in the I/O lcore, %" PRId64 " neither sent nor "
			"counted; what is left is counted as shutdown drops", conf->drain_timeout_ms,
			io_pending(p), (int64_t)(t.in - t.out - t.dropped));
		for (i = 0; i < p->nb_rings; i++)
			if (rte_ring_count(p->rings[i]) != 0)
				MPE_LOG(WARNING, engine, "drain: ring %s holds %u", p->rings[i]->name,
					rte_ring_count(p->rings[i]));
	}
}

/* Whatever is left in a ring after the workers stopped is freed and counted. */
static void
empty_rings(struct mpe_primary *p)
{
	struct rte_mbuf *pkts[64];
	unsigned int i, n;

	for (i = 0; i < p->nb_rings; i++)
		while ((n = rte_ring_sc_dequeue_burst(p->rings[i], (void **)pkts, RTE_DIM(pkts),
						     NULL)) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			p->shm->io[0].io.drops[MPE_DROP_SHUTDOWN] += n;
		}
}

unsigned int
mpe_supervise_shutdown(struct mpe_primary *p, int workers_started)
{
	unsigned int i, failed = 0;

	if (p->shm != NULL) {
		const struct mpe_conf *conf = &p->shm->conf;

		/* a pipeline whose first worker receives drains its rings with no I/O lcore */
		if ((p->io_launched[0] || (conf->shape == MPE_SHAPE_PIPELINE && workers_started)) &&
		    p->shm->run_state == MPE_RUN_ACTIVE)
			drain(p);
		if (workers_started)
			mpe_launch_stop_all(p, STOP_TIMEOUT_MS);
		else
			mpe_worker_log_fini(); /* started by mpe_launch_check, before the ports */
		p->shm->run_state = MPE_RUN_STOP;
		for (i = 0; i < conf->nb_io; i++) {
			if (!p->io_launched[i])
				continue;
			rte_eal_wait_lcore(conf->io[i].lcore);
			p->io_launched[i] = 0;
		}
		mpe_io_release(p);
		empty_rings(p);
		if (workers_started) {
			mpe_stats_summary(p->shm, stdout);
			mpe_inspect_report(stdout);
		}
		fflush(stdout);
		mpe_launch_fini(p);
		mpe_telemetry_fini();
		mpe_inspect_fini(p);
		for (i = 0; i < conf->nb_workers; i++)
			if (p->shm->workers[i].status.state == MPE_WORKER_FAILED) {
				MPE_LOG(ERR, engine, "worker %u failed: %s", i,
					p->shm->workers[i].status.error);
				failed++;
			}
	}
	return failed;
}
