/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build: the last step of a child's end, off the supervision loop. Reaping a process
 * (wait4) runs the kernel's release of it in the caller, and that can take long: the kernel
 * invalidates the process's /proc entries and loops while others look them up (measured on
 * a 6.18 kernel: 4 to 10 s for a worker killed while a telemetry client polled the engine,
 * during which the supervisor neither ticked nor handed the worker's place on). The
 * supervisor learns how a child ended without reaping it (mpe_launch_reap: waitid with
 * WNOWAIT) and hands the pid here; a control thread reaps each in turn. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/wait.h>

#include <rte_lcore.h>

#include "reaper.h"

static struct {
	int fd[2]; /* pids, written by the supervisor, read by the thread */
	pthread_t thread;
	int running;
} rp = {.fd = {-1, -1}};

static void
reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

static void *
reaper(void *arg)
{
	pid_t pid;

	(void)arg;
	/* the writer's end closed: every pid handed has been read */
	while (read(rp.fd[0], &pid, sizeof(pid)) == (ssize_t)sizeof(pid))
		reap(pid);
	return NULL;
}

int
mpe_reaper_start(void)
{
	int rc;

	if (rp.running)
		return 0;
	if (pipe2(rp.fd, O_CLOEXEC) < 0)
		return -errno;
	rc = rte_ctrl_thread_create(&rp.thread, "mpe-reaper", NULL, reaper, NULL);
	if (rc != 0) {
		close(rp.fd[0]);
		close(rp.fd[1]);
		rp.fd[0] = rp.fd[1] = -1;
		return -rc;
	}
	rp.running = 1;
	return 0;
}

void
mpe_reaper_hand(pid_t pid)
{
	/* a pid is 4 bytes, written whole into a pipe that holds thousands */
	if (!rp.running || write(rp.fd[1], &pid, sizeof(pid)) != (ssize_t)sizeof(pid))
		reap(pid);
}

void
mpe_reaper_fini(void)
{
	if (!rp.running)
		return;
	close(rp.fd[1]);
	pthread_join(rp.thread, NULL);
	close(rp.fd[0]);
	rp.fd[0] = rp.fd[1] = -1;
	rp.running = 0;
}
