/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "sleepqps": N threads pinned to one CPU, each looping "sleep S ms, count one"; the
 * wake-ups per second that CPU delivers and how busy it gets, and the thread ceiling of the
 * host computed from its limits (never by exhausting them). Threads live in one runner.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "costs.h"

#define MODE              "sleepqps"
#define MAX_WINDOWS       32
#define START_TIMEOUT_MS  30000
#define RESIDENT_ESTIMATE (40 * KIB)
#define MIN_BUSY_PCT      2.0 /* below this the projection to a full CPU is noise */
#define SEED_STACK        (512 * KIB)

static const struct seed_ref seed_core = {
	"001_e129908b4dc0709d.txt", "seed 001", "~250 000/s", 250000,
	"26 000 threads sleeping 100 ms on one core: 25w qps with the core at 100%"};
static const struct seed_ref seed_threads = {
	"001_e129908b4dc0709d.txt", "seed 001", "~240 000", 240000,
	"threads at most, 512 KB stacks, limits raised, 48 GB host (threads-max 386190)"};

struct job {
	uint64_t threads;
	uint64_t sleep_ms;
	uint64_t stack;
	uint64_t window_ms;
	unsigned int windows;
	int cpu_task, cpu_main;
};

struct result {
	int err;
	uint64_t created;
	unsigned int windows;
	double rate[MAX_WINDOWS];
	double busy[MAX_WINDOWS]; /* % of the CPU, all tasks */
	double own[MAX_WINDOWS];  /* % of the CPU: these threads, plus the CPU's irq time */
	double cost[MAX_WINDOWS]; /* µs of that per wake-up */
};

static uint64_t wakeups;
static int started, quit;

static void *
sleeper(void *arg)
{
	const struct job *j = arg;
	struct timespec ts = {.tv_sec = (time_t)(j->sleep_ms / 1000),
			      .tv_nsec = (long)(j->sleep_ms % 1000) * 1000000L};

	__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&quit, __ATOMIC_ACQUIRE)) {
		nanosleep(&ts, NULL);
		__atomic_add_fetch(&wakeups, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static int
run_sleepers(void *arg, int wfd)
{
	const struct job *j = arg;
	pthread_t *tids = calloc(j->threads, sizeof(*tids));
	struct result res = {0};
	pthread_attr_t attr;
	uint64_t i, deadline;
	cpu_set_t set;
	unsigned int w;

	if (tids == NULL) {
		res.err = ENOMEM;
		return write_full(wfd, &res, sizeof(res));
	}
	pin_self(j->cpu_main);
	CPU_ZERO(&set);
	CPU_SET(j->cpu_task, &set);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, j->stack);
	pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	for (i = 0; i < j->threads; i++) {
		int rc = pthread_create(&tids[i], &attr, sleeper, (void *)j);

		if (rc != 0) {
			res.err = rc;
			break;
		}
	}
	res.created = i;
	deadline = now_ns() + START_TIMEOUT_MS * 1000000ULL;
	while ((uint64_t)__atomic_load_n(&started, __ATOMIC_ACQUIRE) < res.created &&
	       now_ns() < deadline)
		usleep(1000);
	usleep((useconds_t)(2 * j->sleep_ms * 1000)); /* every thread through its first sleep */
	for (w = 0; res.err == 0 && w < j->windows; w++) {
		struct cpustat s0, s1;
		uint64_t c0, c1, t0, t1;
		double u0, u1, wall, irq, hz = (double)sysconf(_SC_CLK_TCK);

		cpustat_read(j->cpu_task, &s0);
		u0 = self_cpu_s();
		c0 = __atomic_load_n(&wakeups, __ATOMIC_RELAXED);
		t0 = now_ns();
		usleep((useconds_t)(j->window_ms * 1000));
		c1 = __atomic_load_n(&wakeups, __ATOMIC_RELAXED);
		t1 = now_ns();
		u1 = self_cpu_s();
		cpustat_read(j->cpu_task, &s1);
		wall = (double)(t1 - t0) / 1e9;
		irq = (double)(s1.irq - s0.irq) / (hz > 0 ? hz : 100);
		res.rate[w] = (double)(c1 - c0) / wall;
		res.busy[w] = cpustat_busy_pct(&s0, &s1);
		res.own[w] = 100.0 * (u1 - u0 + irq) / wall;
		res.cost[w] = c1 > c0 ? (u1 - u0 + irq) * 1e6 / (double)(c1 - c0) : 0;
	}
	res.windows = w;
	__atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
	for (i = 0; i < res.created; i++)
		pthread_join(tids[i], NULL);
	return write_full(wfd, &res, sizeof(res));
}

static void
ceiling_row(const char *key, const char *what, uint64_t stack, const struct seed_ref *seed)
{
	const char *binding = "";
	struct limits l;
	struct row *r = row_add(key, what, "threads", seed);

	r->headline = seed != NULL;
	if (limits_read(&l) < 0) {
		row_skip(r, "limits unreadable");
		return;
	}
	row_value(r, (double)thread_ceiling(&l, stack, &binding));
	row_note(r, "computed from limits, not by exhausting them; bound by %s", binding);
}

int
mode_sleepqps(const struct opts *o)
{
	struct job j = {
		.threads = o->v[P_THREADS],
		.sleep_ms = o->v[P_SLEEP_MS],
		.stack = o->v[P_STACK_KIB] * KIB,
		.windows = (unsigned int)(o->v[P_REPS] < MAX_WINDOWS ? o->v[P_REPS] : MAX_WINDOWS),
	};
	double ideal = (double)j.threads * 1000.0 / (double)j.sleep_ms;
	double cost[MAX_WINDOWS], proj[MAX_WINDOWS], host[MAX_WINDOWS];
	struct result res;
	char what[ROW_WHAT_LEN];
	struct row *r;
	unsigned int w, np = 0;
	int rc, rfd;
	pid_t pid;

	j.window_ms = o->v[P_DURATION_MS] / j.windows;
	j.cpu_task = g_host.cpu_ids[g_host.cpus_allowed - 1];
	j.cpu_main = g_host.cpus_allowed > 1 ? g_host.cpu_ids[0] : j.cpu_task;
	if (j.window_ms < 100) {
		fprintf(stderr,
			"%s: %s: --duration-ms %llu gives windows under 100 ms; "
			"use at least %u\n",
			PROG, MODE, (unsigned long long)o->v[P_DURATION_MS], 100 * j.windows);
		return -ERANGE;
	}
	rc = check_tasks(MODE, j.threads + 1, "sleeping threads (--threads)");
	if (rc == 0)
		rc = check_maps(MODE, 2 * j.threads + 64, "the thread stacks");
	if (rc == 0)
		rc = check_virtual(MODE, j.threads * j.stack, "the thread stacks");
	if (rc == 0)
		rc = check_memory(MODE, j.threads * RESIDENT_ESTIMATE, "the sleeping threads");
	if (rc < 0)
		return rc;

	pid = runner_start(run_sleepers, &j, &rfd);
	if (pid < 0)
		return -EAGAIN;
	rc = runner_finish(pid, rfd, &res, sizeof(res),
			   START_TIMEOUT_MS + (unsigned int)o->v[P_DURATION_MS] +
				   (unsigned int)(4 * j.sleep_ms) + 10000);
	if (rc < 0)
		return rc;
	if (res.err != 0) {
		fprintf(stderr, "%s: %s: %llu of %llu threads created, then: %s\n", PROG, MODE,
			(unsigned long long)res.created, (unsigned long long)j.threads,
			strerror(res.err));
		return -res.err;
	}
	for (w = 0; w < res.windows; w++) {
		if (res.own[w] < MIN_BUSY_PCT || res.cost[w] <= 0)
			continue;
		cost[np] = res.cost[w];
		proj[np] = 1e6 / res.cost[w];
		host[np] = proj[np] * (double)g_host.cpus_online;
		np++;
	}
	snprintf(what, sizeof(what), "wake-ups/s, %llu threads sleeping %llu ms on CPU %d",
		 (unsigned long long)j.threads, (unsigned long long)j.sleep_ms, j.cpu_task);
	r = row_add("wakeups_per_s", what, "1/s", NULL);
	row_set(r, res.rate, res.windows);
	row_note(r, "%.0f%% of the %.0f/s asked for", 100 * r->s.median / ideal, ideal);
	r = row_add("wakeups_asked", "wake-ups/s asked for (threads x 1000 / sleep ms)", "1/s",
		    NULL);
	row_value(r, ideal);
	snprintf(what, sizeof(what), "busy share of CPU %d, all tasks", j.cpu_task);
	r = row_add("cpu_busy_pct", what, "%", NULL);
	row_set(r, res.busy, res.windows);
	if (j.cpu_main == j.cpu_task)
		row_note(r, "one usable CPU: the measuring thread shares it");
	snprintf(what, sizeof(what), "share of CPU %d used by the sleepers", j.cpu_task);
	r = row_add("cpu_own_pct", what, "%", NULL);
	row_set(r, res.own, res.windows);
	row_note(r, "their CPU time (getrusage) plus the CPU's irq and softirq time");
	r = row_add("cpu_per_wakeup", "CPU time per wake-up", "us", NULL);
	if (np > 0)
		row_set(r, cost, np);
	else
		row_skip(r,
			 "the sleepers used under %.0f%% of the CPU: raise --threads or lower "
			 "--sleep-ms",
			 MIN_BUSY_PCT);
	r = row_add("wakeups_per_core", "wake-ups/s per core (1 s ÷ CPU per wake-up)", "1/s",
		    &seed_core);
	r->headline = true;
	if (np > 0) {
		row_set(r, proj, np);
		row_note(r, "a projection from the CPU time per wake-up, not a saturated core");
	} else {
		row_skip(r, "the sleepers used under %.0f%% of the CPU", MIN_BUSY_PCT);
	}
	r = row_add("wakeups_host", "the same times the CPUs online (if linear)", "1/s", NULL);
	if (np > 0)
		row_set(r, host, np);
	else
		row_skip(r, "the sleepers used under %.0f%% of the CPU", MIN_BUSY_PCT);
	snprintf(what, sizeof(what), "thread ceiling of this host, %llu KiB stacks",
		 (unsigned long long)(j.stack / KIB));
	ceiling_row("threads_ceiling_small", what, j.stack, NULL);
	ceiling_row("threads_ceiling_512k", "thread ceiling of this host, 512 KiB stacks",
		    SEED_STACK, &seed_threads);
	return g_stop ? -EINTR : 0;
}
