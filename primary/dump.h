/* SPDX-License-Identifier: BSD-3-Clause */
/* dump.c: the engine's state as a text file in the runtime directory. Any thread of the
 * primary, until teardown begins; it only reads and never waits for a worker. */
#ifndef MPE_DUMP_H
#define MPE_DUMP_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>

struct mpe_primary;

/* how many dump files the runtime directory keeps, the newest: one more removes the oldest */
#define MPE_DUMP_KEEP 16

/* The files of one kind the runtime directory keeps (dumps, recorder files): the newest */
struct mpe_kept_files {
	pthread_mutex_t lock;
	char path[MPE_DUMP_KEEP][PATH_MAX];
	unsigned int next;
};
#define MPE_KEPT_FILES_INIT {.lock = PTHREAD_MUTEX_INITIALIZER}
/* @path was written: keep it, removing the oldest of @k's kind beyond MPE_DUMP_KEEP. */
void mpe_dump_keep(struct mpe_kept_files *k, const char *path);
/* "<runtime dir>/<stem>-<YYYYMMDD-HHMMSS>-<seq>.<ext>" into @path; 0 or -ENAMETOOLONG. */
int mpe_dump_path(char *path, size_t size, const char *stem, const char *ext);
/* A new file <runtime dir>/mpe-dump-<time>-<seq>.txt whose path goes into @path. Reads
 * shared memory only, never waits for a worker; 0 or -errno. */
int mpe_dump_write(const struct mpe_primary *p, char *path, size_t size);
/* SIGUSR1: the handler only sets mpe_dump_requested; the supervising loop calls
 * mpe_dump_poll(), which writes the dump and logs its path. */
extern volatile sig_atomic_t mpe_dump_requested;
void mpe_dump_on_signal(int sig);
void mpe_dump_poll(const struct mpe_primary *p);

#endif
