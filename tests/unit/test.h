/* SPDX-License-Identifier: BSD-3-Clause */
/* Minimal unit-test harness shared by the tests/unit/test_*.c binaries (one translation unit each).
 * CHECK never compiles out (it does not depend on NDEBUG); a failed check prints file:line and
 * marks the running case failed. Output: "ok - name" / "not ok - name" per case, then
 * "N passed, N failed"; test_summary() returns the exit status (1 if any case failed).
 * Single-threaded: the state below belongs to the one thread that runs the cases.
 */
#ifndef MPE_TEST_H
#define MPE_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct test_case {
	const char *name;
	void (*fn)(void);
};

struct test_state {
	char name[256]; /* case being run */
	int running;
	int case_failed;
	unsigned int passed, failed;
};

static struct test_state test_state;

static inline int __attribute__((format(printf, 5, 6)))
test_check(int ok, const char *file, int line, const char *expr, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return 1;
	test_state.case_failed = 1;
	printf("#   %s:%d: CHECK(%s) failed: ", file, line, expr);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return 0;
}

/* Evaluates to 1 when @cond holds, so a case can stop early: if (!CHECK(...)) return; */
#define CHECK(cond, fmt, ...) test_check(!!(cond), __FILE__, __LINE__, #cond, fmt, ##__VA_ARGS__)

/* For cases generated from tables: begin, run checks, end. */
static inline void __attribute__((format(printf, 1, 2)))
test_begin(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(test_state.name, sizeof(test_state.name), fmt, ap);
	va_end(ap);
	test_state.running = 1;
	test_state.case_failed = 0;
}

static inline void
test_end(void)
{
	if (test_state.case_failed) {
		test_state.failed++;
		printf("not ok - %s\n", test_state.name);
	} else {
		test_state.passed++;
		printf("ok - %s\n", test_state.name);
	}
	fflush(stdout);
	test_state.running = 0;
}

static inline void
test_run(const char *name, void (*fn)(void))
{
	test_begin("%s", name);
	fn();
	test_end();
}

static inline void
test_run_cases(const struct test_case *cases, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		test_run(cases[i].name, cases[i].fn);
}

/* Prints the final line; returns the process exit status. */
static inline int
test_summary(void)
{
	printf("%u passed, %u failed\n", test_state.passed, test_state.failed);
	fflush(stdout);
	return test_state.failed ? 1 : 0;
}

#define TEST_DIM(a) (sizeof(a) / sizeof((a)[0]))

/* Write all of @len bytes of @text to @fd; a test set-up failure exits with status 2. */
static inline void
test_write_all(int fd, const char *text, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = write(fd, text + done, len - done);

		if (n <= 0) {
			perror("write");
			exit(2);
		}
		done += (size_t)n;
	}
}

/* @pattern with every @marker replaced by @path (expected messages name a temporary file). */
static inline void
test_expand(const char *pattern, char marker, const char *path, char *out, size_t size)
{
	size_t o = 0;

	for (; *pattern != '\0' && o + 1 < size; pattern++) {
		if (*pattern == marker) {
			o += (size_t)snprintf(out + o, size - o, "%s", path);
			if (o >= size)
				o = size - 1;
		} else {
			out[o++] = *pattern;
		}
	}
	out[o] = '\0';
}

#endif
