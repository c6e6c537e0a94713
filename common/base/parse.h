/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded parsers for numbers and switches: every number the engine reads goes through here. */
#ifndef MPE_PARSE_H
#define MPE_PARSE_H

#include <stdint.h>

/* Decimal (or 0x hex) whole number in [min, max]. Returns 0, -EINVAL for anything that is
 * not a whole number (sign, garbage, empty), -ERANGE when out of bounds. */
int mpe_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* For command lines: as mpe_parse_uint, and on failure prints "PROG: WHAT: reason" to stderr. */
int mpe_parse_uint_arg(const char *prog, const char *what, const char *s, uint64_t min,
		       uint64_t max, uint64_t *out);

/* After getopt_long returned '?' or ':' (optstring starting with ':'): says what was wrong
 * with the last option, as "PROG: option '--x' needs a value", to stderr. */
struct option;
void mpe_parse_option_error(const char *prog, int c, char **argv,
			    const struct option *long_opts);

/* "02:00:00:00:00:01": six pairs of hex digits separated by ':'. 0 or -EINVAL. */
int mpe_parse_mac(const char *s, uint8_t mac[6]);

/* on/off, yes/no, true/false, 1/0: returns 1, 0, or -EINVAL. */
int mpe_parse_bool(const char *s);

/* A Linux CPU list ("0-3,8,10-11") into @set. Returns 0 or -EINVAL/-ERANGE. */
#include <sched.h>
int mpe_parse_cpulist(const char *s, cpu_set_t *set);

#endif
