/* SPDX-License-Identifier: BSD-3-Clause */
/* Process build, `worker_user` (docs/sandbox.md#an-unprivileged-user): what the primary gives
 * that user so that its workers keep working once they have switched to it. Main lcore, before
 * the first worker starts; the memory hook then runs wherever the EAL grows the heap. */
#ifndef MPE_WORKER_USER_H
#define MPE_WORKER_USER_H

#include <sys/types.h>

/* Hand the EAL's shared files to @uid/@gid: the multi-process socket and the lock file in the
 * runtime directory (which the user may then traverse, not list), every hugepage file of the
 * engine, and each one the heap adds later (a memory event hook, before the EAL asks the
 * workers to map it). 0, or -errno with the reason logged. */
int mpe_worker_user_prepare(uid_t uid, gid_t gid);

#endif
