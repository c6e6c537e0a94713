/* SPDX-License-Identifier: BSD-3-Clause */
/* The text files the engine reads: its configuration and its rules. */
#ifndef MPE_TEXTFILE_H
#define MPE_TEXTFILE_H

#include <stddef.h>
#include <stdio.h>

/* Open @path for reading if it is a regular file of at most @max_bytes. A FIFO or a device
 * would block the reader or never end, and the control thread reads rules files while the
 * engine runs. NULL on failure, with errno set and what is wrong in @why (@why_len bytes). */
FILE *mpe_textfile_open(const char *path, size_t max_bytes, char *why, size_t why_len);

#endif
