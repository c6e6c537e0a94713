/* SPDX-License-Identifier: BSD-3-Clause */
/* --version, the same for every program of the engine (help2man reads it for the manual
 * pages, docs/man/meson.build). */
#ifndef MPE_VERSION_H
#define MPE_VERSION_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "NAME VERSION (MODEL build)" on stdout */
static inline void
mpe_version_print(const char *name)
{
	printf("%s %s (%s build)\n", name, MPE_VERSION, MPE_MODEL);
}

/* --version as the only argument: prints the version and exits 0. Called first in main(),
 * before the EAL or getopt see the command line. */
static inline void
mpe_version_exit(int argc, char **argv, const char *name)
{
	if (argc == 2 && strcmp(argv[1], "--version") == 0) {
		mpe_version_print(name);
		exit(0);
	}
}

#endif
