/* The engine's supervision and stop: the stop signals, and the way out when the engine can
 * neither go on nor stop in order. Main lcore, and signal handlers. */
#ifndef MPE_SUPERVISE_H
#define MPE_SUPERVISE_H

#include <signal.h>

#include <rte_common.h>

struct mpe_primary;

extern volatile sig_atomic_t mpe_primary_stop;

/* The engine cannot go on and cannot stop in order (lcores may be stuck for ever): log @why,
 * print the summary, kill the workers, remove the hugepage files and the runtime directory,
 * exit 1 without waiting for any lcore. */
void mpe_primary_abort(struct mpe_primary *p, const char *why) __rte_noreturn;

#endif
