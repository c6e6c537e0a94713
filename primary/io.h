/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c: the I/O lcores, port RX into rings and rings into port TX. Prepared and released on
 * the main lcore; mpe_io_main() runs on I/O lcore K, the only writer of shm->io[K]. */
#ifndef MPE_IO_H
#define MPE_IO_H

struct mpe_primary;

/* I/O lcore @k's state (p->io[k]), made on the main lcore before it is launched, so that a
 * failure stops the start with its cause; 0 or -errno. */
int mpe_io_prepare(struct mpe_primary *p, unsigned int k);
/* Once the I/O lcores have returned (or were never launched). */
void mpe_io_release(struct mpe_primary *p);
/* An I/O lcore's loop; arg is its p->io[k], prepared. */
int mpe_io_main(void *arg);

#endif
