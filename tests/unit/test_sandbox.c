/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker's sandbox (common/base/sandbox.c) without DPDK: the probe, its refusals for tests
 * (MPE_SANDBOX_PROBE), the names of system calls, and the lock-down itself applied in a forked
 * child of a second thread (a thread the lock must reach by signal): what a worker may still
 * do (write to its pipe, read the parent's /proc/<pid>/stat), what Landlock refuses (read
 * /etc/passwd, create a file in /tmp) and what kills it by SIGSYS with the call's number left
 * where the parent reads it (socket, and a socket attempted from the other thread).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sandbox.h"
#include "test.h"

static void
test_probe(void)
{
	struct mpe_sandbox_support s;
	char text[128];

	unsetenv("MPE_SANDBOX_PROBE");
	mpe_sandbox_probe(&s);
	mpe_sandbox_describe(&s, text, sizeof(text));
	printf("# this kernel: %s\n", text);
	CHECK(s.seccomp, "seccomp filters expected on the test host: %s", text);
	CHECK(s.landlock_net == (s.landlock_abi >= 4) && s.landlock_scope == (s.landlock_abi >= 6),
	      "%s", text);
	setenv("MPE_SANDBOX_PROBE", "nolandlock,noseccomp", 1);
	mpe_sandbox_probe(&s);
	mpe_sandbox_describe(&s, text, sizeof(text));
	CHECK(!s.seccomp && s.landlock_abi == 0 &&
		      strcmp(text, "seccomp filters no, Landlock no") == 0, "'%s'", text);
	setenv("MPE_SANDBOX_PROBE", "noseccompx,nolandlockx", 1);
	mpe_sandbox_probe(&s);
	CHECK(s.seccomp, "only whole words of MPE_SANDBOX_PROBE count");
	unsetenv("MPE_SANDBOX_PROBE");
}

static void
test_syscall_names(void)
{
	char name[32];

	mpe_sandbox_syscall_name(SYS_socket, name, sizeof(name));
	CHECK(strcmp(name, "socket") == 0, "'%s'", name);
	mpe_sandbox_syscall_name(SYS_execve, name, sizeof(name));
	CHECK(strcmp(name, "execve") == 0, "'%s'", name);
	mpe_sandbox_syscall_name(-1, name, sizeof(name));
	CHECK(strcmp(name, "unknown") == 0, "-1: '%s'", name);
}

/* What the locked child reports through its pipe, one byte a step. */
enum step { S_LOCKED = 'L', S_PROC = 'P', S_NO_PASSWD = 'p', S_NO_CREATE = 'c', S_BAD = 'x' };

static volatile int other_go; /* the child's second thread: attempt a socket now */

static void *
other_thread(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&other_go, __ATOMIC_ACQUIRE))
		usleep(1000);
	socket(AF_INET, SOCK_STREAM, 0); /* never returns: the process is killed */
	return NULL;
}

/* The child: a second thread, the lock, then each step; @from_thread: the fatal socket call
 * from the second thread instead of the main one. */
static void __attribute__((noreturn))
child(int wfd, const char *dir, volatile int32_t *blocked, int from_thread)
{
	struct mpe_sandbox_spec spec = {.runtime_dir = dir, .primary_pid = getppid(),
					.blocked_syscall = blocked};
	char applied[64], err[160], path[64], buf[64];
	pthread_t t;
	int fd, rc;

	if (pthread_create(&t, NULL, other_thread, NULL) != 0)
		_exit(2);
	rc = mpe_sandbox_apply(&spec, applied, sizeof(applied), err, sizeof(err));
	if (rc < 0) {
		dprintf(wfd, "%c%s", S_BAD, err);
		_exit(3);
	}
	if (write(wfd, (char[]){S_LOCKED}, 1) != 1)
		_exit(4);
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
	fd = open(path, O_RDONLY);
	if (fd >= 0 && read(fd, buf, sizeof(buf)) > 0 && write(wfd, (char[]){S_PROC}, 1) != 1)
		_exit(4);
	if (fd >= 0)
		close(fd);
	if (strstr(applied, "landlock") != NULL) {
		if (open("/etc/passwd", O_RDONLY) < 0 && errno == EACCES &&
		    write(wfd, (char[]){S_NO_PASSWD}, 1) != 1)
			_exit(4);
		snprintf(path, sizeof(path), "/tmp/mpe-test-sandbox.%d", (int)getppid());
		if (open(path, O_CREAT | O_WRONLY, 0600) < 0 && errno == EACCES &&
		    write(wfd, (char[]){S_NO_CREATE}, 1) != 1)
			_exit(4);
	}
	if (from_thread) {
		struct timespec nap = {.tv_nsec = 100000000};

		__atomic_store_n(&other_go, 1, __ATOMIC_RELEASE);
		for (;;)
			nanosleep(&nap, NULL); /* an allowed call: pause() is not */
	}
	socket(AF_INET, SOCK_STREAM, 0);
	_exit(5); /* not reached: killed by SIGSYS */
}

static void
locked_child(int from_thread)
{
	char dir[] = "/tmp/mpe-test-sandbox-rt.XXXXXX", got[200] = "", path[64];
	volatile int32_t *blocked;
	struct mpe_sandbox_support s;
	int fds[2], status = 0;
	ssize_t n, len = 0;
	pid_t pid;

	mpe_sandbox_probe(&s);
	blocked = mmap(NULL, sizeof(*blocked), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		       -1, 0);
	if (!CHECK(blocked != MAP_FAILED && mkdtemp(dir) != NULL && pipe(fds) == 0, "set-up"))
		return;
	*blocked = -2;
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], dir, blocked, from_thread);
	}
	close(fds[1]);
	while ((n = read(fds[0], got + len, sizeof(got) - 1 - (size_t)len)) > 0)
		len += n;
	got[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	CHECK(got[0] == S_LOCKED, "the child did not lock itself: '%s'", got);
	CHECK(strchr(got, S_PROC) != NULL, "the parent's /proc/<pid>/stat unreadable: '%s'", got);
	if (s.landlock_abi > 0)
		CHECK(strchr(got, S_NO_PASSWD) != NULL && strchr(got, S_NO_CREATE) != NULL,
		      "Landlock let /etc/passwd be read or a file be created: '%s'", got);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	      "the child ended with status %#x, not by SIGSYS", status);
	CHECK(!WCOREDUMP(status), "the child dumped core");
	CHECK(*blocked == SYS_socket, "blocked_syscall %d, socket is %d", *blocked, SYS_socket);
	snprintf(path, sizeof(path), "/tmp/mpe-test-sandbox.%d", (int)getpid());
	CHECK(access(path, F_OK) != 0, "%s was created", path);
	unlink(path);
	rmdir(dir);
	munmap((void *)(uintptr_t)blocked, sizeof(*blocked));
}

static void
test_locked_main_thread(void)
{
	locked_child(0);
}

static void
test_locked_other_thread(void)
{
	locked_child(1);
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"probe: this kernel's seccomp and Landlock; MPE_SANDBOX_PROBE reports less",
		 test_probe},
		{"system call names, and an unknown number", test_syscall_names},
		{"a locked process reads its primary's /proc entry; Landlock refuses /etc/passwd "
		 "and /tmp; socket() kills it by SIGSYS with the call's number left behind",
		 test_locked_main_thread},
		{"the lock reaches every thread: a socket() from another thread kills the process",
		 test_locked_other_thread},
	};

	test_run_cases(cases, TEST_DIM(cases));
	return test_summary();
}
