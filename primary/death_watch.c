/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: a worker's death seen the moment its polling thread is gone. Each worker
 * instance holds its slot's life mutex (shm.h: robust, process-shared) while it runs; when
 * the thread dies, the kernel marks the mutex's word "owner died" and wakes its waiters, first
 * thing in the thread's exit, before it tears the process's memory down (which takes
 * milliseconds for a process that maps the engine's hugepages; the pidfd only becomes readable
 * after it). A control thread of the primary waits on every running worker's word at once
 * (futex_waitv), and wakes the supervision loop through an eventfd in its epoll set.
 * The word is glibc's: a robust mutex's first int holds its owner's thread id, with
 * FUTEX_WAITERS and FUTEX_OWNER_DIED, the kernel's robust-futex protocol (futex(2)).
 * The watcher only reads the slots, and sets FUTEX_WAITERS on a held word, as a waiter
 * blocked in pthread_mutex_lock() would. The main lcore takes the deaths it reports
 * (mpe_death_watch_take), and still reaps every process by its pidfd. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_lcore.h>

#include "clock.h"
#include "context.h"
#include "death_watch.h"
#include "log.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif
#define RESCAN_NS 10000000 /* a new instance is watched within this */

static struct {
	struct mpe_shared *shm;
	int efd;
	volatile int stop;
	pthread_t thread;
	int running;
	/* pid whose polling thread died, per worker; 0: none (watcher writes, main lcore takes) */
	int32_t dead[MPE_MAX_WORKERS];
	/* when the watcher saw that death (TSC, CLOCK_MONOTONIC ns), written before dead[] */
	uint64_t seen_tsc[MPE_MAX_WORKERS];
	uint64_t seen_ns[MPE_MAX_WORKERS];
	pid_t armed[MPE_MAX_WORKERS]; /* the instance each word was last seen held by */
} dw = {.efd = -1};

static uint32_t *
word_of(struct mpe_worker_slot *slot)
{
	return (uint32_t *)(void *)&slot->status.life; /* glibc: __data.__lock, offset 0 */
}

/* The death of worker @i's instance @pid, for the main lcore. */
static void
report(unsigned int i, pid_t pid)
{
	uint64_t one = 1;

	dw.armed[i] = 0;
	dw.seen_tsc[i] = rte_get_timer_cycles();
	dw.seen_ns[i] = mpe_clock_ns(CLOCK_MONOTONIC);
	__atomic_store_n(&dw.dead[i], pid, __ATOMIC_RELEASE);
	if (write(dw.efd, &one, sizeof(one)) < 0)
		return; /* the pidfd will tell */
}

/* Worker @i's running instance holds its word: FUTEX_WAITERS set on it, so that its death
 * wakes us. Returns the value to wait for, 0 when there is nothing to wait on; a death of
 * the instance last armed (the kernel leaves FUTEX_OWNER_DIED, and the waiters bit, in place
 * of its thread id) is reported. */
static uint32_t
arm(unsigned int i)
{
	struct mpe_worker_slot *slot = &dw.shm->workers[i];
	uint32_t *word = word_of(slot), v = __atomic_load_n(word, __ATOMIC_ACQUIRE);
	pid_t pid = slot->status.pid;
	uint32_t st = slot->status.state;

	if (dw.armed[i] != 0 && (v & FUTEX_OWNER_DIED) && (v & FUTEX_TID_MASK) == 0 &&
	    pid == dw.armed[i]) {
		report(i, pid);
		return 0;
	}
	if (pid <= 0 || (st != MPE_WORKER_READY && st != MPE_WORKER_RUNNING) ||
	    (v & FUTEX_TID_MASK) != (uint32_t)pid || (v & FUTEX_OWNER_DIED)) {
		if ((v & FUTEX_TID_MASK) == 0)
			dw.armed[i] = 0; /* unlocked: a clean end, or not taken yet */
		return 0;
	}
	while (!(v & FUTEX_WAITERS) &&
	       !__atomic_compare_exchange_n(word, &v, v | FUTEX_WAITERS, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE))
		if ((v & FUTEX_TID_MASK) != (uint32_t)pid || (v & FUTEX_OWNER_DIED))
			return 0; /* changed under us: looked at again at once */
	dw.armed[i] = pid;
	return v | FUTEX_WAITERS;
}

static void *
watcher(void *arg)
{
	struct futex_waitv w[MPE_MAX_WORKERS];
	struct timespec ts;
	unsigned int i, n;

	RTE_SET_USED(arg);
	/* Woken by a death, it must not wait behind the polling lcores that share its CPU for
	 * a scheduler's slice: real-time, at the lowest priority. It sleeps but for a rescan
	 * every 10 ms. Without the right to (CAP_SYS_NICE), it stays as it was. */
	{
		struct sched_param sp = {.sched_priority = sched_get_priority_min(SCHED_FIFO)};
		int rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);

		if (rc != 0)
			MPE_LOG(INFO, engine, "mpe-deaths: not real-time (%s): a death is seen when "
				"the scheduler runs it", strerror(rc));
	}
	while (!dw.stop) {
		for (i = 0, n = 0; i < dw.shm->conf.nb_workers; i++) {
			uint32_t v = arm(i);

			if (v == 0)
				continue;
			memset(&w[n], 0, sizeof(w[n]));
			w[n].val = v;
			w[n].uaddr = (uintptr_t)word_of(&dw.shm->workers[i]);
			w[n].flags = FUTEX_32; /* shared: the word is in the workers' memory too */
			n++;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += RESCAN_NS;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (n == 0 || syscall(SYS_futex_waitv, w, n, 0, &ts, CLOCK_MONOTONIC) < 0)
			if (n == 0 || (errno != EAGAIN && errno != ETIMEDOUT && errno != EINTR))
				clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

int
mpe_death_watch_start(struct mpe_primary *p)
{
	int rc;

	dw.shm = p->shm;
	dw.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (dw.efd < 0)
		return -errno;
	rc = rte_ctrl_thread_create(&dw.thread, "mpe-deaths", NULL, watcher, NULL);
	if (rc != 0) {
		close(dw.efd);
		dw.efd = -1;
		return -rc;
	}
	dw.running = 1;
	return dw.efd;
}

pid_t
mpe_death_watch_take(unsigned int id, uint64_t *seen_tsc, uint64_t *seen_ns)
{
	pid_t pid = __atomic_exchange_n(&dw.dead[id], 0, __ATOMIC_ACQUIRE);

	*seen_tsc = pid > 0 ? dw.seen_tsc[id] : 0;
	*seen_ns = pid > 0 ? dw.seen_ns[id] : 0;
	return pid;
}

void
mpe_death_watch_clear(void)
{
	uint64_t n;

	if (dw.efd >= 0 && read(dw.efd, &n, sizeof(n)) < 0)
		return;
}

void
mpe_death_watch_stop(void)
{
	if (!dw.running)
		return;
	dw.stop = 1;
	pthread_join(dw.thread, NULL);
	dw.running = 0;
	close(dw.efd);
	dw.efd = -1;
}
