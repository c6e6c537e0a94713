/* SPDX-License-Identifier: BSD-3-Clause */
/* io.c: the I/O lcore, port RX into rings and rings into port TX. Prepared and released on
 * the main lcore; mpe_io_main() runs on the I/O lcore, the only writer of shm->io. */
#ifndef MPE_IO_H
#define MPE_IO_H

struct mpe_primary;

/* The I/O lcore's state, made on the main lcore before it is launched, so that a failure
 * stops the start with its cause; 0 or -errno. */
int mpe_io_prepare(struct mpe_primary *p);
/* Once the I/O lcore has returned (or was never launched). */
void mpe_io_release(struct mpe_primary *p);
/* The I/O lcore's loop; arg is the struct mpe_primary, prepared. */
int mpe_io_main(void *arg);

#endif
