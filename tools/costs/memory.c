/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "memory": what N sleeping threads add to a process (VmSize, VmRSS, page tables)
 * and to the kernel (KernelStack), per thread, with the default stack and a small one. Each
 * repetition runs in a fresh runner process, so glibc's cache of old stacks cannot hide any.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "costs.h"

#define MODE              "memory"
#define START_TIMEOUT_MS  20000
#define SETTLE_US         20000
#define RESIDENT_ESTIMATE (40 * KIB) /* per sleeping thread, for the memory check */

static const struct seed_ref seed_vmsize = {"003_f3cbb7b5cab8ffa3.txt", "seed 003", "8 MB", 8192,
					    "VmSize grows by the 8 MB default stack per thread"};
static const struct seed_ref seed_vmrss = {"003_f3cbb7b5cab8ffa3.txt", "seed 003", "~8.5 KB", 8.5,
					   "VmRSS grows by ~8.5 KB per sleeping thread"};
static const struct seed_ref seed_gap = {
	"003_f3cbb7b5cab8ffa3.txt", "seed 003", "~1000x", 1000,
	"VmSize and VmRSS per thread differ by nearly a thousand times"};

struct job {
	uint64_t threads;
	uint64_t stack; /* bytes; 0 = the default */
};

struct sample {
	uint64_t vmsize, vmrss, vmpte, kstack, threads; /* KiB, threads */
};

struct result {
	int err;
	uint64_t created;
	uint64_t stack;                      /* bytes, as glibc reports it */
	double vmsize, vmrss, vmpte, kstack; /* KiB per thread */
};

static int started;

static void *
sleeper(void *arg)
{
	int fd = *(const int *)arg;
	char c;

	__atomic_add_fetch(&started, 1, __ATOMIC_RELEASE);
	while (read(fd, &c, 1) < 0 && errno == EINTR)
		;
	return NULL;
}

static void
take(struct sample *s)
{
	memset(s, 0, sizeof(*s));
	status_kib("VmSize", &s->vmsize);
	status_kib("VmRSS", &s->vmrss);
	status_kib("VmPTE", &s->vmpte);
	status_kib("Threads", &s->threads);
	meminfo_kib("KernelStack", &s->kstack);
}

static double
per(uint64_t after, uint64_t before, uint64_t n)
{
	return ((double)after - (double)before) / (double)n;
}

/* Runner: create, measure while all sleep, release (closing the gate), join. */
static int
run_threads(void *arg, int wfd)
{
	const struct job *j = arg;
	struct result res = {0};
	struct sample a, b;
	pthread_attr_t attr;
	pthread_t *tids = calloc(j->threads, sizeof(*tids));
	uint64_t i, deadline;
	size_t ss = 0;
	int gate[2];

	if (tids == NULL || pipe(gate) < 0) {
		res.err = ENOMEM;
		return write_full(wfd, &res, sizeof(res));
	}
	pthread_attr_init(&attr);
	if (j->stack)
		pthread_attr_setstacksize(&attr, j->stack);
	else
		pthread_getattr_default_np(&attr);
	pthread_attr_getstacksize(&attr, &ss);
	res.stack = ss;
	take(&a);
	for (i = 0; i < j->threads; i++) {
		int rc = pthread_create(&tids[i], &attr, sleeper, &gate[0]);

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
	usleep(SETTLE_US);
	take(&b);
	close(gate[1]);
	for (i = 0; i < res.created; i++)
		pthread_join(tids[i], NULL);
	if (res.err == 0 && b.threads - a.threads != j->threads)
		res.err = ESRCH; /* some thread is not where the counts say */
	if (res.err == 0) {
		res.vmsize = per(b.vmsize, a.vmsize, j->threads);
		res.vmrss = per(b.vmrss, a.vmrss, j->threads);
		res.vmpte = per(b.vmpte, a.vmpte, j->threads);
		res.kstack = per(b.kstack, a.kstack, j->threads);
	}
	return write_full(wfd, &res, sizeof(res));
}

static int
one_kind(const char *suffix, const char *label, uint64_t n, uint64_t stack, unsigned int reps)
{
	double *vs = calloc(reps, sizeof(double)), *vr = calloc(reps, sizeof(double));
	double *vp = calloc(reps, sizeof(double)), *vk = calloc(reps, sizeof(double));
	struct job job = {.threads = n, .stack = stack};
	char key[ROW_KEY_LEN], what[ROW_WHAT_LEN];
	struct row *rs, *rr, *rp, *rk, *rg;
	struct result res = {0};
	unsigned int done = 0, i;
	int rc = 0;

	if (vs == NULL || vr == NULL || vp == NULL || vk == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < reps && !budget_over(); i++) {
		int rfd;
		pid_t pid = runner_start(run_threads, &job, &rfd);

		if (pid < 0) {
			rc = -EAGAIN;
			goto out;
		}
		rc = runner_finish(pid, rfd, &res, sizeof(res), START_TIMEOUT_MS * 2);
		if (rc < 0)
			goto out;
		if (res.err == ESRCH) {
			fprintf(stderr,
				"%s: %s: %s stack: Threads: of /proc/self/status did not grow "
				"by %llu\n",
				PROG, MODE, label, (unsigned long long)n);
			rc = -EIO;
			goto out;
		}
		if (res.err != 0) {
			fprintf(stderr,
				"%s: %s: %s stack: %llu of %llu threads created, then: %s\n", PROG,
				MODE, label, (unsigned long long)res.created, (unsigned long long)n,
				strerror(res.err));
			rc = -res.err;
			goto out;
		}
		vs[done] = res.vmsize;
		vr[done] = res.vmrss;
		vp[done] = res.vmpte;
		vk[done] = res.kstack;
		done++;
	}
	snprintf(what, sizeof(what), "VmSize per thread, %s stack (%llu KiB)", label,
		 (unsigned long long)(res.stack / KIB));
	snprintf(key, sizeof(key), "vmsize_%s", suffix);
	rs = row_add(key, what, "KiB", stack ? NULL : &seed_vmsize);
	snprintf(what, sizeof(what), "VmRSS per thread, %s stack", label);
	snprintf(key, sizeof(key), "vmrss_%s", suffix);
	rr = row_add(key, what, "KiB", stack ? NULL : &seed_vmrss);
	snprintf(what, sizeof(what), "page tables (VmPTE) per thread, %s stack", label);
	snprintf(key, sizeof(key), "vmpte_%s", suffix);
	rp = row_add(key, what, "KiB", NULL);
	snprintf(what, sizeof(what), "kernel stack per thread, %s stack", label);
	snprintf(key, sizeof(key), "kstack_%s", suffix);
	rk = row_add(key, what, "KiB", NULL);
	row_set(rs, vs, done);
	row_set(rr, vr, done);
	row_set(rp, vp, done);
	row_set(rk, vk, done);
	row_note(rk, "host-wide KernelStack of /proc/meminfo, so other tasks add noise");
	rs->headline = rr->headline = stack == 0;
	if (stack == 0) {
		rg = row_add("vmsize_over_vmrss_default",
			     "VmSize ÷ VmRSS per thread, default stack", "x", &seed_gap);
		rg->headline = true;
		if (rr->measured && rr->s.median > 0)
			row_value(rg, rs->s.median / rr->s.median);
		else
			row_skip(rg, "VmRSS did not grow");
	}
out:
	free(vs);
	free(vr);
	free(vp);
	free(vk);
	return rc;
}

int
mode_memory(const struct opts *o)
{
	uint64_t n = o->v[P_THREADS], small = o->v[P_STACK_KIB] * KIB;
	unsigned int reps = (unsigned int)o->v[P_REPS];
	struct limits l;
	uint64_t def;
	int rc;

	if (limits_read(&l) < 0)
		return -EIO;
	def = l.stack ? l.stack : 8 * MIB;
	rc = check_tasks(MODE, n, "sleeping threads (--threads)");
	if (rc == 0)
		rc = check_maps(MODE, 2 * n + 64, "the thread stacks");
	if (rc == 0)
		rc = check_virtual(MODE, n * (def > small ? def : small), "the thread stacks");
	if (rc == 0)
		rc = check_memory(MODE, n * RESIDENT_ESTIMATE, "the sleeping threads");
	if (rc < 0)
		return rc;
	rc = one_kind("default", "default", n, 0, reps);
	if (rc == 0)
		rc = one_kind("small", "small", n, small, reps);
	return g_stop ? -EINTR : rc;
}
