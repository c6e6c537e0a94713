/* SPDX-License-Identifier: BSD-3-Clause */
/* fault: a stage for tests only (built with -Dtest_stages=true; fault_off.c otherwise), a
 * packet of death. On a trigger packet, a UDP datagram to port MPE_FAULT_PORT whose payload is
 * "mpe-fault WORD" (test_trigger.h), it crashes its worker for real, saying nothing first:
 *   segv   a store through a NULL pointer       SIGSEGV
 *   abort  abort()                              SIGABRT
 *   fpe    an integer division by zero          SIGFPE
 *   ill    an illegal instruction               SIGILL (x86: ud2)
 *   bus    raise(SIGBUS)                        SIGBUS
 * A worker process dies alone (the primary respawns it); in the thread build the whole engine
 * goes down. An unknown word is logged and its packet goes on, as does every other packet,
 * unchanged. No state: safe in any number of workers. See tests/mp/life_fault_stage.sh.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "log.h"
#include "stage.h"
#include "stages.h"
#include "test_trigger.h"

#define MPE_FAULT_PORT 4920

static const struct mpe_test_trigger trigger = MPE_TEST_TRIGGER(MPE_FAULT_PORT, "mpe-fault ");

/* Every crash reads its operands through volatile objects: the compiler can prove nothing
 * about them, so it neither drops the faulting instruction nor replaces it by a trap of its
 * own choosing. Nor does a sanitizer build check them (NO_SANITIZE): UBSan would report the
 * store through NULL and the division by zero, and stop the worker itself, before the
 * signal the test asks for. */
#define NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

static NO_SANITIZE void
crash_segv(void)
{
	int *volatile null = NULL;

	*(volatile int *)null = 1;
}

/* abort() and raise() signal the worker itself: rt_sigprocmask, getpid, gettid and tgkill to
 * its own tgid, all on the sandbox's allowlist (base/sandbox.c), so that the death is by the
 * signal asked for, not by SIGSYS. */
static void
crash_abort(void)
{
	abort();
}

/* x86's idiv traps on a zero divisor (SIGFPE); an architecture whose division does not trap
 * (arm64 gives 0) gets the signal raised, so that the word means the same everywhere. */
static NO_SANITIZE void
crash_fpe(void)
{
	volatile int a = 1, b = 0;

	a = a / b;
	raise(SIGFPE);
}

/* ud2 on x86 (SIGILL); other architectures trap as they trap (arm64's brk: SIGTRAP). */
static void
crash_ill(void)
{
	__builtin_trap();
}

/* Raised, not provoked: a real bus error needs a mapping of a file beyond its end, and the
 * worker's sandbox forbids creating a file; the primary sees the same death either way. */
static void
crash_bus(void)
{
	raise(SIGBUS);
}

static const struct {
	const char *word;
	size_t len;
	void (*crash)(void);
} faults[] = {
	{"segv", 4, crash_segv}, {"abort", 5, crash_abort}, {"fpe", 3, crash_fpe},
	{"ill", 3, crash_ill},   {"bus", 3, crash_bus},
};

/* The fault @word (@len bytes of a trigger's payload) names: it does not return, unless the
 * word is unknown. */
static void
fault(const struct mpe_stage_ctx *ctx, const char *word, size_t len)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(faults); i++)
		if (len == faults[i].len && memcmp(word, faults[i].word, len) == 0)
			faults[i].crash();
	MPE_LOG(WARNING, worker, "worker %u: fault: unknown fault '%.*s': packet passed",
		ctx->worker_id, (int)RTE_MIN(len, (size_t)32), word);
}

static uint16_t
fault_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const char *word;
	size_t len;
	uint16_t i;

	for (i = 0; i < n; i++) {
		word = mpe_test_trigger_match(&trigger, pkts[i], &len);
		if (unlikely(word != NULL))
			fault(ctx, word, len);
	}
	return n;
}

const struct mpe_stage_ops mpe_stage_fault_ops = {
	.burst = fault_burst,
};
