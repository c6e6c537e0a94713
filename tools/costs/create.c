/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "create": what it costs to create and reap one task, per method (pthread, fork,
 * vfork, posix_spawn, raw clone), as a function of the parent's touched memory, and back to
 * back in bulk. Runs in the main process, which has no other thread while it measures.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "costs.h"

#define MODE          "create"
#define WARMUP        10
#define CLONE_STACK   (64 * KIB)
#define HUGE_ALIGN    (2 * MIB)
#define BULK_CHUNKS   5
#define BULK_LIVE_CAP 256 /* detached threads alive at once, at most */
#define TRUE_PATH     "/bin/true"

/* What a raw clone() needs to be a thread as pthread_create makes one (minus TLS and a fresh
 * stack): same memory, files, fs info, signal handlers, thread group, SysV undo list. */
#define THREAD_LIKE_FLAGS                                                                          \
	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |        \
	 CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

extern char **environ;

static const struct seed_ref seed_thread = {"003_f3cbb7b5cab8ffa3.txt", "seed 003", "42.6 µs", 42.6,
					    "pthread create + join, median of 1000"};
static const struct seed_ref seed_fork = {"003_f3cbb7b5cab8ffa3.txt", "seed 003", "95.8 µs", 95.8,
					  "fork + exit + wait, median of 1000"};
static const struct seed_ref seed_ratio = {"003_f3cbb7b5cab8ffa3.txt", "seed 003", "2.2x", 2.2,
					   "95.8 / 42.6: 'only ~2x, not 100x'"};
static const struct seed_ref seed_mem = {
	"003_f3cbb7b5cab8ffa3.txt", "seed 003", "grows with memory", 0,
	"fork copies the page tables, a cost proportional to memory"};
static const struct seed_ref seed_detach = {"002_aef54381cf673f4a.txt", "seed 002", "29 µs", 29,
					    "500 000 std::thread create + detach in 14.60 s"};
static const struct seed_ref seed_bulk_fork = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", "0.18 ms", 180,
	"100 000 processes created and destroyed, average, Celeron"};
static const struct seed_ref seed_bulk_ratio = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", ">10x", 10,
	"100 000 creations: threads 'more than 10 times' faster than processes"};

static pid_t clone_tid; /* set by the kernel at clone, cleared (and futex-woken) at exit */
static int bulk_live;   /* detached threads not yet finished */

static void *
noop_thread(void *arg)
{
	return arg;
}

static void *
detached_thread(void *arg)
{
	__atomic_sub_fetch(&bulk_live, 1, __ATOMIC_RELEASE);
	return arg;
}

static int
noop_clone(void *arg)
{
	(void)arg;
	return 0; /* glibc's clone then calls exit(2) for this task only */
}

static int
one_pthread(double *us)
{
	uint64_t t0 = now_ns();
	pthread_t t;
	int rc = pthread_create(&t, NULL, noop_thread, NULL);

	if (rc != 0)
		return -rc;
	pthread_join(t, NULL);
	*us = (now_ns() - t0) / 1e3;
	return 0;
}

static int
one_fork(double *us)
{
	uint64_t t0 = now_ns();
	pid_t pid = fork();
	int rc;

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	rc = wait_child(pid);
	*us = (now_ns() - t0) / 1e3;
	return rc;
}

static int
one_vfork(double *us)
{
	uint64_t t0 = now_ns();
	pid_t pid = vfork();

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return -errno;
	if (wait_child(pid) < 0)
		return -ECHILD;
	*us = (now_ns() - t0) / 1e3;
	return 0;
}

static int
one_spawn(double *us)
{
	char *argv[] = {(char *)"true", NULL};
	uint64_t t0 = now_ns();
	pid_t pid;
	int rc = posix_spawn(&pid, TRUE_PATH, NULL, NULL, argv, environ);

	if (rc != 0)
		return -rc;
	rc = wait_child(pid);
	*us = (now_ns() - t0) / 1e3;
	return rc;
}

/* All signals stay blocked in the caller while the clone lives, so none is delivered to a
 * task that shares this thread's TLS; the new task inherits the blocked mask. */
static int
one_clone(char *stack_top, double *us)
{
	sigset_t all, old;
	uint64_t t0;
	pid_t v;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	t0 = now_ns();
	rc = clone(noop_clone, stack_top, THREAD_LIKE_FLAGS, NULL, &clone_tid, NULL, &clone_tid);
	if (rc < 0) {
		rc = -errno;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return rc;
	}
	while ((v = __atomic_load_n(&clone_tid, __ATOMIC_ACQUIRE)) != 0)
		syscall(SYS_futex, &clone_tid, FUTEX_WAIT, v, NULL, NULL, 0);
	*us = (now_ns() - t0) / 1e3;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

enum method { M_PTHREAD, M_FORK, M_VFORK, M_SPAWN, M_CLONE };

static int
one(enum method m, char *stack_top, double *us)
{
	switch (m) {
	case M_PTHREAD: return one_pthread(us);
	case M_FORK: return one_fork(us);
	case M_VFORK: return one_vfork(us);
	case M_SPAWN: return one_spawn(us);
	case M_CLONE: return one_clone(stack_top, us);
	}
	return -EINVAL;
}

/* reps timed repetitions after a short warm-up; returns how many completed, or -errno. */
static int
series(enum method m, char *stack_top, double *v, unsigned int reps)
{
	unsigned int i;
	double us;
	int rc;

	for (i = 0; i < WARMUP && !budget_over(); i++) {
		rc = one(m, stack_top, &us);
		if (rc < 0)
			return rc;
	}
	for (i = 0; i < reps && !budget_over(); i++) {
		rc = one(m, stack_top, &v[i]);
		if (rc < 0)
			return rc;
	}
	return (int)i;
}

static void
fill(struct row *r, const double *v, int n, unsigned int want, const char *why)
{
	if (n < 0) {
		row_skip(r, "%s failed: %s", why, strerror(-n));
		return;
	}
	row_set(r, v, (unsigned int)n);
	if ((unsigned int)n < want && n > 0)
		row_note(r, "%s after %d of %u repetitions", g_stop ? "stopped" : "time cap hit", n,
			 want);
}

/* Maps and touches @bytes (2 MiB aligned) with 4 KiB pages or THP; *thp_kib: AnonHugePages
 * gained. Returns the mapping (base, len) to unmap, or NULL. */
static char *
touch(size_t bytes, bool huge, size_t *map_len, uint64_t *thp_kib)
{
	uint64_t before = 0, after = 0;
	size_t len = bytes + HUGE_ALIGN, off;
	char *base, *p;

	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		return NULL;
	p = (char *)(((uintptr_t)base + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1));
	madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	smaps_rollup_kib("AnonHugePages", &before);
	for (off = 0; off < bytes; off += 4096) {
		p[off] = 1;
		if ((off & (64 * MIB - 1)) == 0 && g_stop)
			break;
	}
	smaps_rollup_kib("AnonHugePages", &after);
	*thp_kib = after > before ? after - before : 0;
	*map_len = len;
	return base;
}

static void
fork_with_memory(uint64_t mib, bool huge, const char *key, unsigned int reps, double *v)
{
	char what[ROW_WHAT_LEN];
	struct row *r;
	uint64_t thp_kib = 0;
	size_t len = 0;
	char *base = NULL;
	int n;

	snprintf(what, sizeof(what), "fork+_exit+waitpid, %llu MiB touched%s",
		 (unsigned long long)mib,
		 mib == 0 ? ""
		 : huge   ? ", THP"
			  : ", 4 KiB pages");
	r = row_add(key, what, "us", mib > 0 && !huge ? &seed_mem : NULL);
	r->headline = mib > 0;
	if (huge && !g_host.thp_usable) {
		row_skip(r, "could not be measured: transparent hugepages are '%s' on this host",
			 g_host.thp);
		return;
	}
	if (mib > 0) {
		base = touch(mib * MIB, huge, &len, &thp_kib);
		if (base == NULL) {
			row_skip(r, "mmap of %llu MiB failed: %s", (unsigned long long)mib,
				 strerror(errno));
			return;
		}
	}
	n = series(M_FORK, NULL, v, reps);
	fill(r, v, n, reps, "fork");
	if (huge)
		row_note(r, "%llu of %llu MiB in huge pages", (unsigned long long)(thp_kib / 1024),
			 (unsigned long long)mib);
	else if (mib > 0 && thp_kib > 0)
		row_note(r, "%llu MiB in huge pages despite MADV_NOHUGEPAGE",
			 (unsigned long long)(thp_kib / 1024));
	if (base != NULL)
		munmap(base, len);
}

/* Back-to-back creations as in seeds 000 and 002: one average per chunk. */
static int
bulk(enum method m, bool detach, uint64_t count, double *v)
{
	uint64_t per = count / BULK_CHUNKS > 0 ? count / BULK_CHUNKS : 1, i;
	pthread_attr_t attr;
	unsigned int c;
	double us;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (c = 0; c < BULK_CHUNKS && !budget_over(); c++) {
		uint64_t t0 = now_ns();

		for (i = 0; i < per && rc == 0; i++) {
			if (detach) {
				pthread_t t;

				while (__atomic_load_n(&bulk_live, __ATOMIC_ACQUIRE) >=
				       BULK_LIVE_CAP)
					sched_yield();
				__atomic_add_fetch(&bulk_live, 1, __ATOMIC_RELAXED);
				rc = -pthread_create(&t, &attr, detached_thread, NULL);
				if (rc != 0)
					__atomic_sub_fetch(&bulk_live, 1, __ATOMIC_RELAXED);
			} else {
				rc = one(m, NULL, &us);
			}
		}
		while (__atomic_load_n(&bulk_live, __ATOMIC_ACQUIRE) > 0)
			sched_yield();
		if (rc != 0)
			break;
		v[c] = (now_ns() - t0) / 1e3 / (double)per;
	}
	pthread_attr_destroy(&attr);
	usleep(2000); /* let the last detached threads finish leaving */
	return rc != 0 ? rc : (int)c;
}

static void
ratio_row(const char *key, const char *what, const struct row *num, const struct row *den,
	  const struct seed_ref *seed)
{
	struct row *r = row_add(key, what, "x", seed);

	r->headline = true;
	if (!num->measured || !den->measured || den->s.median <= 0)
		row_skip(r, "needs both figures");
	else
		row_value(r, num->s.median / den->s.median);
}

int
mode_create(const struct opts *o)
{
	unsigned int reps = (unsigned int)o->v[P_REPS];
	unsigned int mem_reps = reps / 20 < 5 ? 5 : reps / 20 > 50 ? 50 : reps / 20;
	uint64_t mib = o->v[P_MEM_MIB], count = o->v[P_BULK];
	struct row *r, *rt, *rf, *bj, *bf;
	char what[ROW_WHAT_LEN];
	char *stack = NULL;
	double *v;
	int n, rc;

	rc = check_tasks(MODE, 1 + BULK_LIVE_CAP, "tasks alive at once");
	if (rc == 0)
		rc = check_memory(MODE, mib * MIB + HUGE_ALIGN, "the touched region (--mem-mib)");
	if (rc == 0)
		rc = check_virtual(MODE, mib * MIB + HUGE_ALIGN, "the touched region (--mem-mib)");
	if (rc < 0)
		return rc;
	v = calloc(reps > BULK_CHUNKS ? reps : BULK_CHUNKS, sizeof(*v));
	stack = mmap(NULL, CLONE_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (v == NULL || stack == MAP_FAILED) {
		fprintf(stderr, "%s: %s: out of memory\n", PROG, MODE);
		free(v);
		return -ENOMEM;
	}

	rt = row_add("pthread_create_join", "pthread_create + pthread_join", "us", &seed_thread);
	rt->headline = true;
	fill(rt, v, series(M_PTHREAD, NULL, v, reps), reps, "pthread_create");
	rf = row_add("fork_exit_wait", "fork + _exit + waitpid", "us", &seed_fork);
	rf->headline = true;
	fill(rf, v, series(M_FORK, NULL, v, reps), reps, "fork");
	r = row_add("vfork_exit_wait", "vfork + _exit + waitpid", "us", NULL);
	fill(r, v, series(M_VFORK, NULL, v, reps), reps, "vfork");
	r = row_add("posix_spawn_true", "posix_spawn(" TRUE_PATH ") + waitpid (with exec)", "us",
		    NULL);
	if (access(TRUE_PATH, X_OK) == 0)
		fill(r, v, series(M_SPAWN, NULL, v, reps), reps, "posix_spawn");
	else
		row_skip(r, "could not be measured: no executable %s", TRUE_PATH);
	r = row_add("clone_thread_flags", "clone(VM|FS|FILES|SIGHAND|THREAD) + futex wait", "us",
		    NULL);
	fill(r, v, series(M_CLONE, stack + CLONE_STACK, v, reps), reps, "clone");
	ratio_row("fork_over_thread", "fork ÷ pthread_create (medians)", rf, rt, &seed_ratio);

	fork_with_memory(0, false, "fork_mem_0", mem_reps, v);
	fork_with_memory(mib / 4, false, "fork_mem_quarter_4k", mem_reps, v);
	fork_with_memory(mib / 4, true, "fork_mem_quarter_thp", mem_reps, v);
	fork_with_memory(mib, false, "fork_mem_full_4k", mem_reps, v);
	fork_with_memory(mib, true, "fork_mem_full_thp", mem_reps, v);

	snprintf(what, sizeof(what), "bulk: %llu x pthread_create+join, per thread",
		 (unsigned long long)count);
	bj = row_add("bulk_thread_join", what, "us", NULL);
	n = bulk(M_PTHREAD, false, count, v);
	fill(bj, v, n, BULK_CHUNKS, "pthread_create");
	snprintf(what, sizeof(what), "bulk: %llu x pthread_create+detach, per thread",
		 (unsigned long long)count);
	r = row_add("bulk_thread_detach", what, "us", &seed_detach);
	r->headline = true;
	n = bulk(M_PTHREAD, true, count, v);
	fill(r, v, n, BULK_CHUNKS, "pthread_create");
	snprintf(what, sizeof(what), "bulk: %llu x fork+_exit+waitpid, per process",
		 (unsigned long long)count);
	bf = row_add("bulk_fork", what, "us", &seed_bulk_fork);
	bf->headline = true;
	n = bulk(M_FORK, false, count, v);
	fill(bf, v, n, BULK_CHUNKS, "fork");
	ratio_row("bulk_fork_over_thread", "bulk fork ÷ bulk pthread_create+join", bf, bj,
		  &seed_bulk_ratio);

	munmap(stack, CLONE_STACK);
	free(v);
	return g_stop ? -EINTR : 0;
}
