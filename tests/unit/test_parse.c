/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/base/parse.c: bounded whole numbers, switches and CPU lists.
 * Table-driven; each row is one named case. No EAL.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>

#include "parse.h"
#include "test.h"

struct uint_case {
	const char *name;
	const char *s;
	uint64_t min, max;
	int rc;
	uint64_t value; /* when rc == 0 */
};

static const struct uint_case uint_cases[] = {
	{"zero at lower bound", "0", 0, 10, 0, 0},
	{"value at upper bound", "10", 0, 10, 0, 10},
	{"value inside bounds", "7", 5, 10, 0, 7},
	{"value above upper bound is ERANGE", "11", 0, 10, -ERANGE, 0},
	{"value below lower bound is ERANGE", "4", 5, 10, -ERANGE, 0},
	{"leading zeros are decimal, not octal", "010", 0, 100, 0, 10},
	{"many leading zeros", "0000042", 0, 100, 0, 42},
	{"08 is decimal 8", "08", 0, 100, 0, 8},
	{"hex lower-case prefix", "0x10", 0, 100, 0, 16},
	{"hex upper-case prefix and digits", "0X1F", 0, 100, 0, 31},
	{"hex at upper bound", "0xff", 0, 255, 0, 255},
	{"hex above upper bound is ERANGE", "0x100", 0, 255, -ERANGE, 0},
	{"hex prefix without digits", "0x", 0, 100, -EINVAL, 0},
	{"hex with non-hex digit", "0xg", 0, 100, -EINVAL, 0},
	{"hex with trailing garbage", "0x1z", 0, 100, -EINVAL, 0},
	{"hex with plus sign after prefix", "0x+5", 0, 100, -EINVAL, 0},
	{"hex with minus sign after prefix", "0x-1", 0, 100, -EINVAL, 0},
	{"hex with minus sign after prefix, unbounded", "0x-1", 0, UINT64_MAX, -EINVAL, 0},
	{"hex with space after prefix", "0x 5", 0, 100, -EINVAL, 0},
	{"letters", "abc", 0, 100, -EINVAL, 0},
	{"digits then letters", "12abc", 0, 100, -EINVAL, 0},
	{"minus sign", "-1", 0, 100, -EINVAL, 0},
	{"plus sign", "+1", 0, 100, -EINVAL, 0},
	{"leading space", " 1", 0, 100, -EINVAL, 0},
	{"trailing space", "1 ", 0, 100, -EINVAL, 0},
	{"trailing newline", "1\n", 0, 100, -EINVAL, 0},
	{"decimal fraction", "1.5", 0, 100, -EINVAL, 0},
	{"exponent", "1e3", 0, 10000, -EINVAL, 0},
	{"binary prefix", "0b1", 0, 100, -EINVAL, 0},
	{"empty string", "", 0, 100, -EINVAL, 0},
	{"largest 64-bit value", "18446744073709551615", 0, UINT64_MAX, 0, UINT64_MAX},
	{"largest 64-bit value in hex", "0xffffffffffffffff", 0, UINT64_MAX, 0, UINT64_MAX},
	{"decimal overflow of 64 bits is ERANGE", "18446744073709551616", 0, UINT64_MAX, -ERANGE,
	 0},
	{"hex overflow of 64 bits is ERANGE", "0x10000000000000000", 0, UINT64_MAX, -ERANGE, 0},
	{"far overflow is ERANGE", "99999999999999999999999999", 0, UINT64_MAX, -ERANGE, 0},
};

/* @s with control characters as \n or \xNN, for case names on one line. */
static const char *
printable(const char *s, char *buf, size_t size)
{
	size_t o = 0;

	for (; *s != '\0' && o + 5 < size; s++) {
		if (*s == '\n')
			o += (size_t)snprintf(buf + o, size - o, "\\n");
		else if ((unsigned char)*s < 0x20)
			o += (size_t)snprintf(buf + o, size - o, "\\x%02x", (unsigned char)*s);
		else
			buf[o++] = *s;
	}
	buf[o] = '\0';
	return buf;
}

static void
run_uint_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(uint_cases); i++) {
		const struct uint_case *c = &uint_cases[i];
		uint64_t v = 0xdeadbeef;
		char shown[64];
		int rc;

		test_begin("mpe_parse_uint: %s (\"%s\")", c->name,
			   printable(c->s, shown, sizeof(shown)));
		rc = mpe_parse_uint(c->s, c->min, c->max, &v);
		CHECK(rc == c->rc,
		      "\"%s\" in [%" PRIu64 ", %" PRIu64 "]: rc %d, want %d (%" PRIu64 ")", shown,
		      c->min, c->max, rc, c->rc, v);
		if (c->rc == 0)
			CHECK(v == c->value, "\"%s\": value %" PRIu64 ", expected %" PRIu64,
			      shown, v, c->value);
		test_end();
	}
}

static void
test_uint_null_is_einval(void)
{
	uint64_t v = 0;

	CHECK(mpe_parse_uint(NULL, 0, 10, &v) == -EINVAL, "NULL string must be -EINVAL");
}

struct bool_case {
	const char *s;
	int rc;
};

static const struct bool_case bool_cases[] = {
	{"on", 1},     {"yes", 1},   {"true", 1},   {"1", 1},	  {"ON", 1},	{"Yes", 1},
	{"TRUE", 1},   {"off", 0},   {"no", 0},	    {"false", 0}, {"0", 0},	{"OFF", 0},
	{"No", 0},     {"False", 0}, {"", -EINVAL}, {"2", -EINVAL}, {"-1", -EINVAL},
	{"onn", -EINVAL}, {"o", -EINVAL}, {" on", -EINVAL}, {"on ", -EINVAL}, {"enable", -EINVAL},
	{"y", -EINVAL}, {"01", -EINVAL},
};

static void
run_bool_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(bool_cases); i++) {
		const struct bool_case *c = &bool_cases[i];
		int rc;

		test_begin("mpe_parse_bool: \"%s\" gives %s", c->s,
			   c->rc == 1 ? "1" : c->rc == 0 ? "0" : "-EINVAL");
		rc = mpe_parse_bool(c->s);
		CHECK(rc == c->rc, "\"%s\": rc %d, expected %d", c->s, rc, c->rc);
		test_end();
	}
}

#define CPU_END (-1)
#define RC_ANY_ERROR 1 /* -EINVAL or -ERANGE both accepted */

struct cpulist_case {
	const char *name;
	const char *s;
	int rc;
	int cpus[12]; /* expected set when rc == 0, ended by CPU_END */
};

static const struct cpulist_case cpulist_cases[] = {
	{"single cpu", "0", 0, {0, CPU_END}},
	{"range and single", "0-3,8", 0, {0, 1, 2, 3, 8, CPU_END}},
	{"two ranges", "10-11,20-21", 0, {10, 11, 20, 21, CPU_END}},
	{"range of one", "2-2", 0, {2, CPU_END}},
	{"leading zeros are decimal", "007", 0, {7, CPU_END}},
	{"trailing newline accepted (sysfs form)", "0-3,8\n", 0, {0, 1, 2, 3, 8, CPU_END}},
	{"highest cpu", "1023", 0, {1023, CPU_END}},
	{"cpu beyond CPU_SETSIZE", "1024", -ERANGE, {CPU_END}},
	{"descending range", "3-1", RC_ANY_ERROR, {CPU_END}},
	{"letter", "a", -EINVAL, {CPU_END}},
	{"empty element", "1,,2", -EINVAL, {CPU_END}},
	{"negative", "-1", -EINVAL, {CPU_END}},
	{"open range", "1-", -EINVAL, {CPU_END}},
	{"range to a letter", "1-a", -EINVAL, {CPU_END}},
	{"space separated", "1 2", -EINVAL, {CPU_END}},
	{"hex is not a cpu list", "0x1", -EINVAL, {CPU_END}},
	{"leading comma", ",1", -EINVAL, {CPU_END}},
};

static void
run_cpulist_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(cpulist_cases); i++) {
		const struct cpulist_case *c = &cpulist_cases[i];
		cpu_set_t set;
		int rc, n, j;

		test_begin("mpe_parse_cpulist: %s", c->name);
		rc = mpe_parse_cpulist(c->s, &set);
		if (c->rc == RC_ANY_ERROR) {
			CHECK(rc == -EINVAL || rc == -ERANGE,
			      "\"%s\": rc %d, expected an error", c->s, rc);
		} else {
			CHECK(rc == c->rc, "\"%s\": rc %d, expected %d", c->s, rc, c->rc);
		}
		if (c->rc == 0 && rc == 0) {
			for (n = 0; c->cpus[n] != CPU_END; n++)
				CHECK(CPU_ISSET(c->cpus[n], &set), "\"%s\": cpu %d not set", c->s,
				      c->cpus[n]);
			CHECK(CPU_COUNT(&set) == n, "\"%s\": %d cpus set, expected %d", c->s,
			      CPU_COUNT(&set), n);
			for (j = 0; j < CPU_SETSIZE; j++) {
				int k, want = 0;

				for (k = 0; c->cpus[k] != CPU_END; k++)
					want |= c->cpus[k] == j;
				if (!want && CPU_ISSET(j, &set))
					CHECK(0, "\"%s\": cpu %d set but not listed", c->s, j);
			}
		}
		test_end();
	}
}

struct mac_case {
	const char *s;
	int rc;
	uint8_t mac[6];
};

static const struct mac_case mac_cases[] = {
	{"02:00:00:00:00:01", 0, {0x02, 0, 0, 0, 0, 0x01}},
	{"aA:bB:cC:dD:eE:fF", 0, {0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}},
	{"ff:ff:ff:ff:ff:ff", 0, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	{"2:0:0:0:0:1", -EINVAL, {0}},
	{"02:00:00:00:00", -EINVAL, {0}},
	{"02:00:00:00:00:01:02", -EINVAL, {0}},
	{"02-00-00-00-00-01", -EINVAL, {0}},
	{"-1:-1:-1:-1:-1:-1", -EINVAL, {0}},
	{"+2:00:00:00:00:01", -EINVAL, {0}},
	{" 02:00:00:00:00:01", -EINVAL, {0}},
	{"02:00:00:00:00:0g", -EINVAL, {0}},
	{"02:00:00:00:00:01 ", -EINVAL, {0}},
	{"", -EINVAL, {0}},
};

static void
run_mac_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(mac_cases); i++) {
		const struct mac_case *c = &mac_cases[i];
		uint8_t mac[6] = {0};
		int rc;

		test_begin("mpe_parse_mac: \"%s\" gives %s", c->s, c->rc == 0 ? "a MAC" : "-EINVAL");
		rc = mpe_parse_mac(c->s, mac);
		CHECK(rc == c->rc, "\"%s\": rc %d, expected %d", c->s, rc, c->rc);
		if (rc == 0 && c->rc == 0)
			CHECK(memcmp(mac, c->mac, 6) == 0, "\"%s\": wrong bytes", c->s);
		test_end();
	}
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"mpe_parse_uint: NULL string is -EINVAL", test_uint_null_is_einval},
	};

	run_uint_cases();
	test_run_cases(cases, TEST_DIM(cases));
	run_bool_cases();
	run_cpulist_cases();
	run_mac_cases();
	return test_summary();
}
