/* SPDX-License-Identifier: BSD-3-Clause */
/* quarantine.c: what a worker's death by a fault signal costs the packets it held, and the
 * flows they belong to (docs/recorder.md; the shared table: common/shm/quarantine_table.h). */
#ifndef MPE_QUARANTINE_H
#define MPE_QUARANTINE_H

#include <stddef.h>
#include <stdint.h>

struct mpe_primary;

#define MPE_QUARANTINE_FILE "quarantine.pcapng"

/* Whether @sig is one a worker's own code raises on a bad packet: SIGSEGV, SIGBUS, SIGABRT,
 * SIGFPE, SIGILL. */
int mpe_quarantine_fault(int sig);

/* Worker @id died by fault signal @sig (not yet recovered): when it died inside its stages,
 * the burst in its hands goes to <runtime dir>/quarantine.pcapng (appended, a comment each),
 * their flows' deaths are counted, and a flow at quarantine_after deaths is blocked. Returns
 * how many packets were quarantined: the recovery counts them as quarantine drops. Main
 * lcore. */
unsigned int mpe_quarantine_death(struct mpe_primary *p, unsigned int id, int sig);

/* Release blocked flow @entry (its index in the table), or every flow (-1): blocked flows are
 * released, suspects forgotten (how many in *@forgotten), and their entries freed. Returns how
 * many blocked flows were released, or -ENOENT when no entry matched. Any thread of the
 * primary. */
int mpe_quarantine_clear(struct mpe_primary *p, int entry, unsigned int *forgotten);

/* "udp 10.0.0.1:1024 <-> 10.0.0.2:80 vlan 7" for canonical key @key. */
void mpe_quarantine_flow_text(const void *key, char *buf, size_t size);

/* Packets of entry @i dropped where they entered the engine, summed over the sites. */
uint64_t mpe_quarantine_blocked_packets(const struct mpe_primary *p, unsigned int i);

#endif
