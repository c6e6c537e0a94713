/* SPDX-License-Identifier: BSD-3-Clause */
/* A library for LD_PRELOAD into the primary in tests (life_slow_reap.sh): a reap of a child
 * that a signal ended (waitpid, wait4, or waitid without WNOWAIT) does not return until the
 * file MPE_TEST_REAP_GATE exists, as a reap the kernel takes long to finish would not. It
 * says on stderr which reap it holds, and does nothing without the variable. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

static void
hold(pid_t pid, int killed)
{
	const char *gate = getenv("MPE_TEST_REAP_GATE");

	if (gate == NULL || pid <= 0 || !killed || access(gate, F_OK) == 0)
		return;
	fprintf(stderr, "slowreap: holding the reap of pid %d until %s exists\n", (int)pid, gate);
	while (access(gate, F_OK) != 0)
		usleep(10000);
}

pid_t
wait4(pid_t pid, int *status, int options, struct rusage *ru)
{
	pid_t (*real)(pid_t, int *, int, struct rusage *) =
		(pid_t(*)(pid_t, int *, int, struct rusage *))dlsym(RTLD_NEXT, "wait4");
	int st = 0;
	pid_t got = real(pid, &st, options, ru);

	if (status != NULL)
		*status = st;
	hold(got, got > 0 && WIFSIGNALED(st));
	return got;
}

pid_t
waitpid(pid_t pid, int *status, int options)
{
	return wait4(pid, status, options, NULL);
}

int
waitid(idtype_t idtype, id_t id, siginfo_t *info, int options)
{
	int (*real)(idtype_t, id_t, siginfo_t *, int) =
		(int (*)(idtype_t, id_t, siginfo_t *, int))dlsym(RTLD_NEXT, "waitid");
	int rc = real(idtype, id, info, options);

	if (rc == 0 && !(options & WNOWAIT))
		hold(info->si_pid, info->si_code == CLD_KILLED || info->si_code == CLD_DUMPED);
	return rc;
}
