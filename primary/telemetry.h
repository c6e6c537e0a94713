/* SPDX-License-Identifier: BSD-3-Clause */
/* telemetry.c: the engine's /mpe/... telemetry commands. Registered and retired on the main
 * lcore; the commands run in DPDK's telemetry threads and only read. */
#ifndef MPE_TELEMETRY_H
#define MPE_TELEMETRY_H

struct mpe_primary;

/* Register the /mpe/... telemetry commands; 0 or -errno. */
int mpe_telemetry_init(struct mpe_primary *p);
/* Before teardown frees anything: commands answer nothing from then on. */
void mpe_telemetry_fini(void);

#endif
