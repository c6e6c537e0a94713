/* SPDX-License-Identifier: BSD-3-Clause */
/* Names of shared objects. Pure functions. */
#include <errno.h>
#include <stdio.h>

#include <rte_ring.h>

#include "config.h"
#include "names.h"

static int
end_name(char *buf, size_t size, int end)
{
	if (end == MPE_END_IO)
		return snprintf(buf, size, "io");
	if (end < 0 || end >= MPE_MAX_WORKERS)
		return -1;
	return snprintf(buf, size, "w%d", end);
}

int
mpe_names_ring(char *buf, size_t size, int from, int to)
{
	char a[8], b[8];
	int n;

	if (buf == NULL || from == to || end_name(a, sizeof(a), from) < 0 ||
	    end_name(b, sizeof(b), to) < 0)
		return -EINVAL;
	n = snprintf(buf, size, "mpe_%s_%s", a, b);
	if (n < 0 || (size_t)n >= size || (size_t)n >= RTE_RING_NAMESIZE)
		return -ENAMETOOLONG;
	return 0;
}

int
mpe_names_flow(char *buf, size_t size, int worker)
{
	int n;

	if (buf == NULL || worker < 0 || worker >= MPE_MAX_WORKERS)
		return -EINVAL;
	n = snprintf(buf, size, MPE_NAME_FLOW_FMT, (unsigned int)worker);
	if (n < 0 || (size_t)n >= size || (size_t)n > MPE_NAME_FLOW_MAX)
		return -ENAMETOOLONG;
	return 0;
}
