/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: every worker's stdout and stderr (its EAL and engine log lines, and anything
 * else it prints, a crash report included) go into one pipe per worker instance; a control
 * thread of the primary reads them all and writes each line to the primary's stderr as
 * "worker N: <line>".
 * Concurrency: the main lcore opens pipes (at each spawn), the reader thread alone reads and
 * closes them; the table is under a mutex that only these two take. The worker's end of its
 * pipe is non-blocking and the worker ignores SIGPIPE (inherited from the primary): a worker
 * never waits on its output. If the reader falls behind, lines are lost, not the worker's
 * time; once the primary is gone, its writes fail and it goes on to notice that and exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_lcore.h>

#include "context.h"
#include "log.h"
#include "worker_log.h"

/* a respawned worker's pipe may linger a little */
#define MAX_PIPES    (2 * (MPE_MAX_WORKERS + MPE_MAX_STANDBY))
#define LINE_MAX_LEN 1024                  /* longer lines are cut, each piece prefixed */
#define FINI_WAIT_MS 500

struct wpipe {
	int fd; /* read end, -1: slot free */
	volatile unsigned int id; /* worker id; MPE_MAX_WORKERS + k: standby k */
	size_t len;
	char buf[LINE_MAX_LEN];
};

static struct {
	pthread_mutex_t lock;
	struct wpipe pipes[MAX_PIPES];
	int wake[2]; /* the reader polls wake[0]: a new pipe, or the end */
	int running;
	volatile int stop;
	pthread_t thread;
} wl = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = {-1, -1}};

/* One prefixed line to the primary's stderr, in one write so that lines do not mix. */
static void
emit(unsigned int id, const char *s, size_t n)
{
	char out[LINE_MAX_LEN + 32];
	int k = id < MPE_MAX_WORKERS ? snprintf(out, sizeof(out), "worker %u: ", id) :
		snprintf(out, sizeof(out), "standby %u: ", id - MPE_MAX_WORKERS);
	size_t len, off = 0;

	if (k < 0)
		return;
	len = (size_t)k;
	if (n > sizeof(out) - len - 1)
		n = sizeof(out) - len - 1;
	memcpy(out + len, s, n);
	len += n;
	out[len++] = '\n';
	while (off < len) {
		ssize_t w = write(STDERR_FILENO, out + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

/* Read what is there; emit every complete line. Returns 0, or -1 at end of file. */
static int
drain(struct wpipe *wp)
{
	for (;;) {
		ssize_t n = read(wp->fd, wp->buf + wp->len, sizeof(wp->buf) - wp->len);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			if (wp->len > 0)
				emit(wp->id, wp->buf, wp->len);
			wp->len = 0;
			return -1;
		}
		wp->len += (size_t)n;
		while ((nl = memchr(wp->buf, '\n', wp->len)) != NULL) {
			size_t line = (size_t)(nl - wp->buf);

			emit(wp->id, wp->buf, line);
			wp->len -= line + 1;
			memmove(wp->buf, nl + 1, wp->len);
		}
		if (wp->len == sizeof(wp->buf)) {
			emit(wp->id, wp->buf, wp->len);
			wp->len = 0;
		}
	}
}

static void *
reader(void *arg)
{
	struct pollfd pfd[MAX_PIPES + 1];
	int slot[MAX_PIPES + 1];
	unsigned int i, n;

	for (;;) {
		pthread_mutex_lock(&wl.lock);
		n = 0;
		pfd[n].fd = wl.wake[0];
		pfd[n].events = POLLIN;
		slot[n++] = -1;
		for (i = 0; i < MAX_PIPES; i++)
			if (wl.pipes[i].fd >= 0) {
				pfd[n].fd = wl.pipes[i].fd;
				pfd[n].events = POLLIN;
				slot[n++] = (int)i;
			}
		pthread_mutex_unlock(&wl.lock);
		/* the end: leave once every pipe has been read to its end (or the wait is over) */
		if (wl.stop && n == 1)
			break;
		if (poll(pfd, n, wl.stop ? 50 : -1) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents != 0) {
			char c[64];

			while (read(wl.wake[0], c, sizeof(c)) > 0)
				;
		}
		if (wl.stop == 2) /* fini gave up waiting */
			break;
		for (i = 1; i < n; i++) {
			struct wpipe *wp = &wl.pipes[slot[i]];

			if (pfd[i].revents == 0 || drain(wp) == 0)
				continue;
			pthread_mutex_lock(&wl.lock);
			close(wp->fd);
			wp->fd = -1;
			pthread_mutex_unlock(&wl.lock);
		}
	}
	return NULL;
}

static void
wake(void)
{
	ssize_t rc = write(wl.wake[1], "", 1);

	RTE_SET_USED(rc); /* a full wake pipe already wakes the reader */
}

int
mpe_worker_log_init(struct mpe_primary *p)
{
	unsigned int i;
	int rc;

	if (wl.running || p->no_spawn)
		return 0;
	for (i = 0; i < MAX_PIPES; i++)
		wl.pipes[i].fd = -1;
	if (pipe2(wl.wake, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	rc = rte_ctrl_thread_create(&wl.thread, "mpe-wlog", NULL, reader, NULL);
	if (rc != 0) {
		close(wl.wake[0]);
		close(wl.wake[1]);
		wl.wake[0] = wl.wake[1] = -1;
		return -rc;
	}
	wl.running = 1;
	return 0;
}

int
mpe_worker_log_pipe(unsigned int id)
{
	int fds[2], i;

	if (!wl.running)
		return -ENOTCONN;
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	/* the worker's end never blocks; the reader's end is read until EAGAIN */
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK) < 0 || fcntl(fds[0], F_SETFL, O_NONBLOCK) < 0) {
		i = -errno;
		close(fds[0]);
		close(fds[1]);
		return i;
	}
	pthread_mutex_lock(&wl.lock);
	for (i = 0; i < MAX_PIPES && wl.pipes[i].fd >= 0; i++)
		;
	if (i < MAX_PIPES) {
		wl.pipes[i].fd = fds[0];
		wl.pipes[i].id = id;
		wl.pipes[i].len = 0;
	}
	pthread_mutex_unlock(&wl.lock);
	if (i == MAX_PIPES) {
		close(fds[0]);
		close(fds[1]);
		return -ENOSPC;
	}
	wake();
	return fds[1];
}

void
mpe_worker_log_rename(unsigned int from, unsigned int to)
{
	unsigned int i;

	pthread_mutex_lock(&wl.lock);
	for (i = 0; i < MAX_PIPES; i++)
		if (wl.pipes[i].fd >= 0 && wl.pipes[i].id == from)
			wl.pipes[i].id = to;
	pthread_mutex_unlock(&wl.lock);
}

void
mpe_worker_log_spawned(int wfd)
{
	if (wfd >= 0)
		close(wfd);
}

void
mpe_worker_log_fini(void)
{
	uint64_t deadline;
	unsigned int i;
	int open;

	if (!wl.running)
		return;
	/* the workers are gone: let the reader empty their pipes, a little while at most (a
	 * worker's own child could still hold one open) */
	wl.stop = 1;
	wake();
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() * FINI_WAIT_MS / 1000;
	do {
		pthread_mutex_lock(&wl.lock);
		for (i = 0, open = 0; i < MAX_PIPES; i++)
			open += wl.pipes[i].fd >= 0;
		pthread_mutex_unlock(&wl.lock);
		if (open > 0)
			rte_delay_us_sleep(5000);
	} while (open > 0 && rte_get_timer_cycles() < deadline);
	if (open > 0) {
		wl.stop = 2;
		wake();
	}
	pthread_join(wl.thread, NULL);
	for (i = 0; i < MAX_PIPES; i++)
		if (wl.pipes[i].fd >= 0) {
			close(wl.pipes[i].fd);
			wl.pipes[i].fd = -1;
		}
	close(wl.wake[0]);
	close(wl.wake[1]);
	wl.wake[0] = wl.wake[1] = -1;
	wl.running = 0;
	wl.stop = 0;
}
