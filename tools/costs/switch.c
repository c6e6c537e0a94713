/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "switch": a one-byte pipe ping-pong between two threads and between two processes,
 * both on one CPU and across two (perf bench sched pipe's measure), a user-space context
 * switch for comparison, and a cache line bounced between two spinning threads on two CPUs
 * (what every packet handed from one lcore to another pays, and on a virtual machine a sign
 * of where the host placed the two CPUs). Each pipe repetition runs pinned inside a fresh
 * runner process.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/wait.h>

#include "costs.h"

#define MODE              "switch"
#define WARMUP            1000
#define CO_STACK          (64 * KIB)
#define CO_BATCH          1000 /* user-space round trips per timed batch */
#define RUNNER_TIMEOUT_MS 60000

static const struct seed_ref seed_pipe = {
	"002_aef54381cf673f4a.txt", "seed 002", "3.63 µs", 3.63,
	"perf bench sched pipe -T, two threads pinned to one core, per round trip"};
static const struct seed_ref seed_ctx = {"002_aef54381cf673f4a.txt", "seed 002", "1.8 µs", 1.8,
					 "3.63 / 2: one kernel context switch"};
static const struct seed_ref seed_go = {"002_aef54381cf673f4a.txt", "seed 002", "171 ns", 171,
					"Go goroutine switch, go test -bench -cpu=1"};

enum variant { V_THREADS_1CPU, V_PROCS_1CPU, V_THREADS_2CPU, V_PROCS_2CPU, V_COUNT };

static const struct {
	const char *key;
	const char *what;
	bool procs;
	bool cross;
} variants[V_COUNT] = {
	[V_THREADS_1CPU] = {"pipe_threads_1cpu", "pipe round trip, 2 threads", false, false},
	[V_PROCS_1CPU] = {"pipe_procs_1cpu", "pipe round trip, 2 processes", true, false},
	[V_THREADS_2CPU] = {"pipe_threads_2cpu", "pipe round trip, 2 threads", false, true},
	[V_PROCS_2CPU] = {"pipe_procs_2cpu", "pipe round trip, 2 processes", true, true},
};

struct job {
	bool procs;
	int cpu_a, cpu_b;
	uint64_t rts;
};

struct echo_arg {
	int rfd, wfd, cpu;
	uint64_t count;
};

static void
echo(int rfd, int wfd, uint64_t count)
{
	uint64_t i;
	char c;

	for (i = 0; i < count; i++) {
		if (read(rfd, &c, 1) != 1 || write(wfd, &c, 1) != 1)
			return;
	}
}

static void *
echo_thread(void *arg)
{
	const struct echo_arg *e = arg;

	echo(e->rfd, e->wfd, e->count);
	return NULL;
}

/* Runner: writes an error word, then rts round-trip times in ns. */
static int
run_pingpong(void *arg, int wfd)
{
	const struct job *j = arg;
	double *ns = calloc(j->rts, sizeof(*ns));
	int ab[2], ba[2], err = 0;
	struct echo_arg e;
	pthread_t t;
	pid_t pid = -1;
	uint64_t i;
	char c = 'x';

	if (ns == NULL || pipe(ab) < 0 || pipe(ba) < 0) {
		err = ENOMEM;
		goto out;
	}
	e = (struct echo_arg){
		.rfd = ab[0], .wfd = ba[1], .cpu = j->cpu_b, .count = WARMUP + j->rts};
	if (pin_self(j->cpu_a) < 0) {
		err = errno;
		goto out;
	}
	if (j->procs) {
		pid = fork();
		if (pid == 0) {
			child_setup();
			pin_self(j->cpu_b);
			echo(e.rfd, e.wfd, e.count);
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			goto out;
		}
	} else {
		pthread_attr_t attr;
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(j->cpu_b, &set);
		pthread_attr_init(&attr);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		err = pthread_create(&t, &attr, echo_thread, &e);
		pthread_attr_destroy(&attr);
		if (err != 0)
			goto out;
	}
	for (i = 0; i < WARMUP + j->rts; i++) {
		uint64_t t0 = now_ns();

		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1) {
			err = EIO;
			break;
		}
		if (i >= WARMUP)
			ns[i - WARMUP] = (double)(now_ns() - t0);
	}
	if (j->procs)
		waitpid(pid, NULL, 0);
	else
		pthread_join(t, NULL);
out:
	if (write_full(wfd, &err, sizeof(err)) < 0)
		return -EIO;
	if (ns == NULL)
		return -ENOMEM;
	return write_full(wfd, ns, j->rts * sizeof(*ns));
}

/* One repetition of one variant; appends rts samples in µs to v. */
static int
pingpong(const struct job *j, double *v)
{
	size_t len = sizeof(int) + j->rts * sizeof(double);
	char *buf = malloc(len);
	uint64_t i;
	int rfd, rc, err;
	pid_t pid;

	if (buf == NULL)
		return -ENOMEM;
	pid = runner_start(run_pingpong, (void *)j, &rfd);
	if (pid < 0) {
		free(buf);
		return -EAGAIN;
	}
	rc = runner_finish(pid, rfd, buf, len, RUNNER_TIMEOUT_MS);
	if (rc == 0) {
		memcpy(&err, buf, sizeof(err));
		if (err != 0) {
			fprintf(stderr, "%s: %s: ping-pong failed: %s\n", PROG, MODE,
				strerror(err));
			rc = -err;
		}
	}
	for (i = 0; rc == 0 && i < j->rts; i++) {
		double ns;

		memcpy(&ns, buf + sizeof(int) + i * sizeof(double), sizeof(ns));
		v[i] = ns / 1e3;
	}
	free(buf);
	return rc;
}

/* The bounced line: the main thread writes odd values, the other thread answers with the next
 * even one. Spins give up when the budget or a signal says stop. */
struct line_arg {
	volatile uint64_t word __attribute__((aligned(64)));
	int cpu;
	uint64_t count;
	int failed;
};

#define LINE_BATCH 1000 /* round trips per sample: one clock read per batch */
#define LINE_SPIN_CHECK (1u << 22)

static bool
line_wait(volatile uint64_t *w, uint64_t want)
{
	uint32_t spins = 0;

	while (*w != want)
		if (++spins == LINE_SPIN_CHECK) {
			spins = 0;
			if (g_stop || budget_over())
				return false;
		}
	return true;
}

static void *
line_echo(void *arg)
{
	struct line_arg *a = arg;
	uint64_t i;

	if (pin_self(a->cpu) < 0) {
		a->failed = 1;
		return NULL;
	}
	for (i = 0; i < a->count; i++) {
		if (!line_wait(&a->word, 2 * i + 1))
			return NULL;
		a->word = 2 * i + 2;
	}
	return NULL;
}

/* ns per round trip of one cache line between @cpu_a and @cpu_b, one sample per batch of
 * LINE_BATCH round trips (the first batch warms up and is not kept). */
static int
line_pingpong(int cpu_a, int cpu_b, uint64_t rts, double *v, unsigned int *n)
{
	unsigned int batches = rts / LINE_BATCH < 10 ? 10 : (unsigned int)(rts / LINE_BATCH), b;
	struct line_arg *a = aligned_alloc(64, sizeof(*a));
	uint64_t i = 0, t0;
	cpu_set_t saved;
	pthread_t t;
	int err;

	*n = 0;
	if (a == NULL)
		return -ENOMEM;
	memset(a, 0, sizeof(*a));
	a->cpu = cpu_b;
	a->count = (uint64_t)(batches + 1) * LINE_BATCH;
	if (sched_getaffinity(0, sizeof(saved), &saved) < 0 || pin_self(cpu_a) < 0) {
		free(a);
		return -errno;
	}
	err = pthread_create(&t, NULL, line_echo, a);
	if (err != 0) {
		sched_setaffinity(0, sizeof(saved), &saved);
		free(a);
		return -err;
	}
	for (b = 0; b <= batches && !a->failed; b++) {
		uint64_t end = i + LINE_BATCH;

		t0 = now_ns();
		for (; i < end; i++) {
			a->word = 2 * i + 1;
			if (!line_wait(&a->word, 2 * i + 2))
				goto stop;
		}
		if (b > 0)
			v[(*n)++] = (double)(now_ns() - t0) / LINE_BATCH;
	}
stop:
	/* stopped early, the echo thread gives up as this loop did (budget or signal) */
	pthread_join(t, NULL);
	err = a->failed;
	free(a);
	sched_setaffinity(0, sizeof(saved), &saved);
	return err ? -EINVAL : 0;
}

static ucontext_t uc_main, uc_co;

static void
co_loop(void)
{
	for (;;)
		swapcontext(&uc_co, &uc_main);
}

/* ns per user-space switch, one sample per batch of CO_BATCH round trips. */
static int
user_switch(uint64_t rts, double *v, unsigned int *n)
{
	unsigned int batches = rts / CO_BATCH < 10 ? 10 : (unsigned int)(rts / CO_BATCH), b, i;
	char *stack = malloc(CO_STACK);

	*n = 0;
	if (stack == NULL)
		return -ENOMEM;
	getcontext(&uc_co);
	uc_co.uc_stack.ss_sp = stack;
	uc_co.uc_stack.ss_size = CO_STACK;
	uc_co.uc_link = NULL;
	makecontext(&uc_co, co_loop, 0);
	for (i = 0; i < CO_BATCH; i++)
		swapcontext(&uc_main, &uc_co);
	for (b = 0; b < batches && !budget_over(); b++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < CO_BATCH; i++)
			swapcontext(&uc_main, &uc_co);
		v[b] = (double)(now_ns() - t0) / (2.0 * CO_BATCH);
	}
	*n = b;
	free(stack);
	return 0;
}

int
mode_switch(const struct opts *o)
{
	uint64_t rts = o->v[P_ROUND_TRIPS];
	unsigned int reps = (unsigned int)o->v[P_REPS], rep, done[V_COUNT] = {0}, n;
	int cpu_a = g_host.cpu_ids[g_host.cpus_allowed - 1];
	int cpu_b = g_host.cpus_allowed > 1 ? g_host.cpu_ids[g_host.cpus_allowed - 2] : cpu_a;
	double *v[V_COUNT] = {NULL}, *u = NULL;
	struct row *r, *rt1 = NULL;
	enum variant k;
	int rc;

	rc = check_tasks(MODE, 2, "tasks");
	if (rc == 0)
		rc = check_memory(MODE, (V_COUNT * reps + 2) * rts * sizeof(double),
				  "the round-trip samples");
	if (rc < 0)
		return rc;
	for (k = 0; k < V_COUNT; k++) {
		v[k] = calloc(reps * rts, sizeof(double));
		if (v[k] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}
	u = calloc(rts / CO_BATCH + 10, sizeof(double));
	if (u == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* variants interleaved, so a burst of background load hits all of them alike */
	for (rep = 0; rep < reps && !budget_over(); rep++) {
		for (k = 0; k < V_COUNT && !budget_over(); k++) {
			struct job j = {.procs = variants[k].procs,
					.cpu_a = cpu_a,
					.cpu_b = variants[k].cross ? cpu_b : cpu_a,
					.rts = rts};

			if (variants[k].cross && cpu_b == cpu_a)
				continue;
			rc = pingpong(&j, v[k] + done[k] * rts);
			if (rc < 0)
				goto out;
			done[k]++;
		}
	}
	for (k = 0; k < V_COUNT; k++) {
		char what[ROW_WHAT_LEN];

		if (variants[k].cross)
			snprintf(what, sizeof(what), "%s, CPUs %d+%d", variants[k].what, cpu_a,
				 cpu_b);
		else
			snprintf(what, sizeof(what), "%s, one CPU (%d)", variants[k].what, cpu_a);
		r = row_add(variants[k].key, what, "us", k == V_THREADS_1CPU ? &seed_pipe : NULL);
		r->headline = !variants[k].cross;
		if (variants[k].cross && cpu_b == cpu_a) {
			row_skip(r, "could not be measured: only one CPU usable");
			continue;
		}
		row_set(r, v[k], done[k] * (unsigned int)rts);
		row_note(r, "%u repetitions of %llu round trips; mean %.2f µs", done[k],
			 (unsigned long long)rts, r->s.mean);
		if (k == V_THREADS_1CPU)
			rt1 = r;
	}
	r = row_add("kernel_switch", "kernel switch (one-CPU thread round trip ÷ 2)", "us",
		    &seed_ctx);
	if (rt1 != NULL && rt1->measured)
		row_value(r, rt1->s.median / 2);
	else
		row_skip(r, "needs the one-CPU thread round trip");
	r = row_add("line_threads_2cpu", "", "ns", NULL);
	snprintf(r->what, sizeof(r->what), "cache line round trip, 2 spinning threads, CPUs %d+%d",
		 cpu_a, cpu_b);
	if (cpu_b == cpu_a) {
		row_skip(r, "could not be measured: only one CPU usable");
	} else {
		rc = line_pingpong(cpu_a, cpu_b, rts, u, &n);
		if (rc < 0)
			goto out;
		row_set(r, u, n);
		row_note(r, "%u samples of %u round trips; what a packet handed to another CPU "
			 "pays per line", n, LINE_BATCH);
	}
	r = row_add("user_switch", "user-space switch (glibc swapcontext)", "ns", &seed_go);
	r->headline = true;
	rc = user_switch(rts, u, &n);
	if (rc == 0) {
		row_set(r, u, n);
		row_note(r, "glibc swapcontext also makes one sigprocmask system call per switch");
	}
out:
	for (k = 0; k < V_COUNT; k++)
		free(v[k]);
	free(u);
	return g_stop ? -EINTR : rc;
}
