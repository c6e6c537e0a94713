/* SPDX-License-Identifier: BSD-3-Clause */
/* Thread build: the log lines of worker threads carry the prefix that the process build's
 * lines get ("worker N: "). The primary's log stream is replaced by an unbuffered stream whose
 * write function looks up the calling thread's lcore: a worker's lcore prefixes the message.
 * Everything goes on to the stream that was in force before (DPDK's: stdout and syslog).
 * Concurrency: the lcore table is written before any worker starts and only read after; the
 * stream is never closed, since any thread may be logging while the engine stops.
 */
#include <errno.h>
#include <stdio.h>

#include <rte_lcore.h>
#include <rte_log.h>

#include "context.h"
#include "log.h"
#include "worker_log.h"

static FILE *next;                       /* where lines go on to */
static int16_t worker_of[RTE_MAX_LCORE]; /* worker id + 1 by lcore; 0: not a worker */

/* One rte_log message per call: the stream is unbuffered, and rte_log writes a message with
 * one vfprintf, which glibc hands over whole. */
static ssize_t
log_write(void *cookie, const char *buf, size_t size)
{
	unsigned int lc = rte_lcore_id();
	int w = lc < RTE_MAX_LCORE ? worker_of[lc] : 0;

	flockfile(next);
	if (w > 0)
		fprintf(next, "worker %d: ", w - 1);
	fwrite(buf, 1, size, next);
	fflush(next);
	funlockfile(next);
	return (ssize_t)size;
}

int
mpe_worker_log_init(struct mpe_primary *p)
{
	static const cookie_io_functions_t fns = {.write = log_write};
	const struct mpe_conf *conf = &p->shm->conf;
	unsigned int i;
	FILE *f;

	if (next != NULL)
		return 0;
	for (i = 0; i < conf->nb_workers; i++)
		if (conf->workers[i].lcore < RTE_MAX_LCORE)
			worker_of[conf->workers[i].lcore] = (int16_t)(i + 1);
	next = rte_log_get_stream();
	f = fopencookie(NULL, "w", fns);
	if (f == NULL) {
		next = NULL;
		return -errno;
	}
	setvbuf(f, NULL, _IONBF, 0);
	return rte_openlog_stream(f);
}

void
mpe_worker_log_fini(void)
{
}
