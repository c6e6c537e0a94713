/* SPDX-License-Identifier: BSD-3-Clause */
/* Bounded parsers for numbers and switches. Pure functions. */
#include <ctype.h>
#include <getopt.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parse.h"

int
mpe_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		/* strtoull would take a sign or blanks after the prefix: only digits here */
		if (!isxdigit((unsigned char)s[2]))
			return -EINVAL;
		v = strtoull(s + 2, &end, 16);
	} else {
		v = strtoull(s, &end, 10);
	}
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int
mpe_parse_bool(const char *s)
{
	static const char *const yes[] = {"on", "yes", "true", "1"};
	static const char *const no[] = {"off", "no", "false", "0"};
	unsigned int i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -EINVAL;
}

int
mpe_parse_cpulist(const char *s, cpu_set_t *set)
{
	CPU_ZERO(set);
	while (*s != '\0' && !(*s == '\n' && s[1] == '\0')) {
		char num[16];
		uint64_t lo, hi, c;
		size_t len = strspn(s, "0123456789");
		int rc;

		if (len == 0 || len >= sizeof(num))
			return -EINVAL;
		memcpy(num, s, len);
		num[len] = '\0';
		rc = mpe_parse_uint(num, 0, CPU_SETSIZE - 1, &lo);
		if (rc < 0)
			return rc;
		s += len;
		hi = lo;
		if (*s == '-') {
			len = strspn(++s, "0123456789");
			if (len == 0 || len >= sizeof(num))
				return -EINVAL;
			memcpy(num, s, len);
			num[len] = '\0';
			rc = mpe_parse_uint(num, lo, CPU_SETSIZE - 1, &hi);
			if (rc < 0)
				return rc;
			s += len;
		}
		for (c = lo; c <= hi; c++)
			CPU_SET(c, set);
		if (*s == ',' && s[1] != '\0' && s[1] != '\n')
			s++;
		else if (*s != '\0' && !(*s == '\n' && s[1] == '\0'))
			return -EINVAL;
	}
	return 0;
}

int
mpe_parse_uint_arg(const char *prog, const char *what, const char *s, uint64_t min,
		   uint64_t max, uint64_t *out)
{
	int rc = mpe_parse_uint(s, min, max, out);

	if (rc == -ERANGE)
		fprintf(stderr, "%s: %s: '%s' is out of range %" PRIu64 "..%" PRIu64 "\n", prog,
			what, s, min, max);
	else if (rc < 0)
		fprintf(stderr, "%s: %s: '%s' is not a whole number\n", prog, what,
			s != NULL ? s : "");
	return rc;
}

int
mpe_parse_mac(const char *s, uint8_t mac[6])
{
	int i;

	for (i = 0; i < 6; i++, s += 3) {
		if (!isxdigit((unsigned char)s[0]) || !isxdigit((unsigned char)s[1]) ||
		    s[2] != (i == 5 ? '\0' : ':'))
			return -EINVAL;
		mac[i] = (uint8_t)strtoul((char[3]){s[0], s[1], '\0'}, NULL, 16);
	}
	return 0;
}

void
mpe_parse_option_error(const char *prog, int c, char **argv, const struct option *long_opts)
{
	const char *arg = argv[optind - 1];
	const struct option *lo;
	size_t n;

	if (strncmp(arg, "--", 2) != 0) {
		fprintf(stderr, "%s: option '-%c' %s\n", prog, optopt,
			c == ':' ? "needs a value" : "is unknown");
		return;
	}
	n = strcspn(arg + 2, "=");
	for (lo = long_opts; lo->name != NULL; lo++)
		if (strlen(lo->name) == n && strncmp(lo->name, arg + 2, n) == 0)
			break;
	if (c == ':')
		fprintf(stderr, "%s: option '%s' needs a value\n", prog, arg);
	else if (lo->name != NULL && lo->has_arg == no_argument)
		fprintf(stderr, "%s: option '--%s' takes no value\n", prog, lo->name);
	else
		fprintf(stderr, "%s: option '%.*s' is unknown or ambiguous\n", prog, (int)n + 2,
			arg);
}
