/* SPDX-License-Identifier: BSD-3-Clause */
/* record.c: the workers' flight recorders (common/shm/recorder.h) written out as pcapng, one
 * comment per packet saying what became of it (docs/recorder.md). */
#ifndef MPE_RECORD_H
#define MPE_RECORD_H

#include <stddef.h>

struct mpe_primary;

/* Worker @id died (by signal @sig, 0 when unknown) and is not running: when its stages had a
 * burst, its packets are recorded from its hand, in hand in the stage that ran, after what the
 * worker recorded; the next instance records after them. Returns how many. Main lcore, before
 * the worker is recovered (which frees the hand's mbufs) and started again. */
unsigned int mpe_record_seal(struct mpe_primary *p, unsigned int id, int sig);

/* Worker @id's recorder, oldest packet first, into a new file
 * <runtime dir>/mpe-record-w<ID>-<time>-<seq>.pcapng (the newest MPE_DUMP_KEEP such files
 * stay), whose path goes into @path. Reads only: runs beside the worker. Returns the packets
 * written, or -errno (-ENOENT: recorder = off; -EINVAL: no such worker). */
int mpe_record_file(const struct mpe_primary *p, unsigned int id, char *path, size_t size);

/* The same in two steps, so that a dead worker's place can be taken between them: a copy of
 * worker @id's recorder now (NULL: recorder = off, or no memory), written out later as
 * mpe_record_file() does, and freed. */
struct mpe_record_copy;
struct mpe_record_copy *mpe_record_copy(const struct mpe_primary *p, unsigned int id);
int mpe_record_copy_file(const struct mpe_primary *p, struct mpe_record_copy *c, char *path,
			 size_t size);

#endif
