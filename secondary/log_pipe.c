/* SPDX-License-Identifier: BSD-3-Clause */
/* A spawned worker's log lines (process build). The primary reads the worker's stdout and
 * stderr through a pipe and prefixes each line with the worker's id; this stream writes each
 * rte_log message into that pipe in one write. The pipe never blocks the worker: when it is
 * full, the message is lost. When the primary is gone the pipe breaks (EPIPE, SIGPIPE being
 * ignored): from then on stdout and stderr become the primary's own stderr, which the primary
 * handed over as another descriptor, and messages go there with the prefix added here, so that
 * the worker's last words (the primary is gone, clean-up) still reach the engine's log.
 * Any thread may log: the switch is made once; a message racing with it may be lost.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "log_pipe.h"

static unsigned int worker_id;
static int fallback_fd = -1;
static int broken; /* the pipe to the primary is broken: write to fallback_fd */

static ssize_t
log_write(void *cookie, const char *buf, size_t size)
{
	char line[1024];
	int n;

	if (!__atomic_load_n(&broken, __ATOMIC_ACQUIRE)) {
		/* up to PIPE_BUF bytes go in whole or not at all */
		if (write(STDOUT_FILENO, buf, size) >= 0 || errno != EPIPE)
			return (ssize_t)size;
		if (!__atomic_exchange_n(&broken, 1, __ATOMIC_ACQ_REL)) {
			dup2(fallback_fd, STDOUT_FILENO);
			dup2(fallback_fd, STDERR_FILENO);
		}
	}
	n = snprintf(line, sizeof(line), "worker %u: %.*s", worker_id, (int)size, buf);
	if (n > 0 && write(STDOUT_FILENO, line, RTE_MIN((size_t)n, sizeof(line) - 1)) < 0)
		return (ssize_t)size; /* nowhere left to say it */
	return (ssize_t)size;
}

int
mpe_log_pipe_init(unsigned int id, int fd)
{
	static const cookie_io_functions_t fns = {.write = log_write};
	FILE *f;

	worker_id = id;
	fallback_fd = fd;
	f = fopencookie(NULL, "w", fns);
	if (f == NULL)
		return -errno;
	setvbuf(f, NULL, _IONBF, 0);
	return rte_openlog_stream(f);
}

void
mpe_log_pipe_id(unsigned int id)
{
	worker_id = id;
}
