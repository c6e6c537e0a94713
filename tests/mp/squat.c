/* SPDX-License-Identifier: BSD-3-Clause */
/* A library for LD_PRELOAD in tests (fail_attach_clash.sh): before main() it maps
 * MPE_TEST_SQUAT="ADDR:LEN" (numbers as strtoull reads them) as an inaccessible area, as a
 * library, the heap or a sanitizer's shadow would hold those addresses. It says on stderr
 * whether it holds them, and does nothing without the variable. (_GNU_SOURCE, for
 * MAP_FIXED_NOREPLACE: the project's arguments.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((constructor)) static void
squat(void)
{
	const char *v = getenv("MPE_TEST_SQUAT");
	unsigned long long addr, len;
	char *end;
	void *p;

	if (v == NULL)
		return;
	addr = strtoull(v, &end, 0);
	if (*end != ':') {
		fprintf(stderr, "squat: MPE_TEST_SQUAT is not ADDR:LEN: %s\n", v);
		return;
	}
	len = strtoull(end + 1, NULL, 0);
	p = mmap((void *)(uintptr_t)addr, len, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p == MAP_FAILED || p != (void *)(uintptr_t)addr)
		fprintf(stderr, "squat: cannot hold %s\n", v);
	else
		fprintf(stderr, "squat: holding %s\n", v);
}
