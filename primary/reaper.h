/* SPDX-License-Identifier: BSD-3-Clause */
/* reaper.c: worker processes reaped off the supervision loop (process build). */
#ifndef MPE_REAPER_H
#define MPE_REAPER_H

#include <sys/types.h>

/* Start the reaper thread; 0 or -errno (then mpe_reaper_hand() reaps in the caller). */
int mpe_reaper_start(void);
/* Child @pid has ended and its end has been taken (waitid WNOWAIT): reap it. */
void mpe_reaper_hand(pid_t pid);
/* Reap every child handed so far, then stop the thread. Idempotent. */
void mpe_reaper_fini(void);

#endif
