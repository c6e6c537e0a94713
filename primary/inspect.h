/* SPDX-License-Identifier: BSD-3-Clause */
/* inspect.c: the primary's side of the inspection stages: flow tables, rule sets and their
 * reload (see the file's header). Readers in other threads (telemetry) hold
 * mpe_inspect_lock() while they use a rule set or a flow table. */
#ifndef MPE_INSPECT_H
#define MPE_INSPECT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "config.h"

struct mpe_primary;
struct mpe_ruleset;
struct mpe_flow_table;

/* What the replaced generations of one rules file classified, summed. */
#define MPE_INSPECT_FILES 16
struct mpe_inspect_file {
	char file[MPE_PATH_LEN];
	uint64_t packets;
};
extern volatile sig_atomic_t mpe_inspect_reload_requested; /* SIGHUP */
/* After the shared memzone exists, before workers start; 0 or -errno (logged). */
int mpe_inspect_init(struct mpe_primary *p);
/* Read @file (NULL: the file in force again), build it, and put it in force. On error the
 * old rules stay and every problem is written to @err. 0 or -errno. Any thread. */
int mpe_inspect_reload(const char *file, FILE *err, uint32_t *generation, uint32_t *nb_rules);
/* Supervising loop: a pending SIGHUP reload; frees replaced rule sets no worker holds. */
void mpe_inspect_tick(struct mpe_primary *p);
/* Worker @id ended without leaving the RCU state itself. */
void mpe_inspect_worker_gone(struct mpe_primary *p, unsigned int id);
/* After every worker stopped: packets classified per rules file, over the engine's life. */
void mpe_inspect_report(FILE *out);
/* After every worker stopped. */
void mpe_inspect_fini(struct mpe_primary *p);
void mpe_inspect_lock(void);
void mpe_inspect_unlock(void);
const struct mpe_ruleset *mpe_inspect_ruleset(void);
const struct mpe_flow_table *mpe_inspect_flows(unsigned int worker);
/* Per rules file (the first MPE_INSPECT_FILES; the rest under "(other)"): the packets the
 * replaced and freed generations classified. Under the lock. */
unsigned int mpe_inspect_files(const struct mpe_inspect_file **files);
void mpe_inspect_counts(uint64_t *reloads, uint64_t *errors, unsigned int *retired);

#endif
