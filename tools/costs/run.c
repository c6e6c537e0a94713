/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs bookkeeping of everything started: runner processes (each the leader of its own
 * process group), orphans (this tool is a child subreaper), the temporary directory, the stop
 * flag set by SIGINT/SIGTERM and the per-mode time budget. Main thread only, except g_stop.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "costs.h"

#define MAX_RUNNERS   64
#define POLL_SLICE_MS 50
#define REAP_GRACE_MS 3000

volatile sig_atomic_t g_stop;

static pid_t runners[MAX_RUNNERS];
static char tmpdir[256];
static uint64_t deadline_ns;

static void
on_stop(int sig)
{
	g_stop = sig;
}

int
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop; /* no SA_RESTART: blocking calls return EINTR */
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGINT, &sa, NULL) < 0 || sigaction(SIGTERM, &sa, NULL) < 0 ||
	    sigaction(SIGHUP, &sa, NULL) < 0) {
		fprintf(stderr, "%s: sigaction: %s\n", PROG, strerror(errno));
		return -errno;
	}
	signal(SIGPIPE, SIG_IGN);
	/* orphans of a killed runner come back to this process, which reaps them */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		fprintf(stderr, "%s: warning: cannot become a child subreaper: %s\n", PROG,
			strerror(errno));
	return 0;
}

bool
stopping(void)
{
	return g_stop != 0;
}

void
budget_start(uint64_t seconds)
{
	deadline_ns = now_ns() + seconds * 1000000000ULL;
}

bool
budget_over(void)
{
	return g_stop != 0 || now_ns() > deadline_ns;
}

int
write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len > 0) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Waits for a child known to exit by itself at once (fork+_exit, vfork, spawn of true). */
int
wait_child(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

int
pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) < 0 ? -errno : 0;
}

/* In every process this tool forks that may outlive a moment: die with the parent. */
void
child_setup(void)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
}

static void
track(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < MAX_RUNNERS; i++) {
		if (runners[i] == 0) {
			runners[i] = pid;
			return;
		}
	}
}

static void
untrack(pid_t pid)
{
	unsigned int i;

	for (i = 0; i < MAX_RUNNERS; i++)
		if (runners[i] == pid)
			runners[i] = 0;
}

/* A runner is a child process in a process group of its own (so a terminal's Ctrl-C reaches
 * only this tool, which then kills the whole group) that runs fn and writes its result to a
 * pipe. Signals are blocked across fork so a stop cannot slip between fork and tracking. */
pid_t
runner_start(runner_fn fn, void *arg, int *rfd)
{
	sigset_t all, old;
	int fds[2], rc;
	pid_t pid, parent = getpid();

	if (pipe2(fds, O_CLOEXEC) < 0) {
		fprintf(stderr, "%s: pipe: %s\n", PROG, strerror(errno));
		return -1;
	}
	fflush(NULL); /* the child must not inherit unwritten output */
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, &old);
	pid = fork();
	if (pid == 0) {
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		setpgid(0, 0);
		child_setup();
		if (getppid() != parent)
			_exit(1);
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(fds[0]);
		rc = fn(arg, fds[1]);
		_exit(rc == 0 ? 0 : 1);
	}
	if (pid > 0) {
		setpgid(pid, pid);
		track(pid);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	close(fds[1]);
	if (pid < 0) {
		fprintf(stderr, "%s: fork: %s\n", PROG, strerror(errno));
		close(fds[0]);
		return -1;
	}
	*rfd = fds[0];
	return pid;
}

/* Kills the runner's whole group and reaps the runner. */
void
runner_kill(pid_t pid, int rfd)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	untrack(pid);
	if (rfd >= 0)
		close(rfd);
}

/* Reads exactly len result bytes, watching the stop flag and the timeout, then reaps.
 * 0; -EINTR when stopped; -ETIMEDOUT; -EIO when the runner failed (it said why). */
int
runner_finish(pid_t pid, int rfd, void *buf, size_t len, unsigned int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * 1000000ULL;
	char *p = buf;
	int st, rc = 0;

	while (len > 0) {
		struct pollfd pfd = {.fd = rfd, .events = POLLIN};
		ssize_t n;

		if (g_stop) {
			rc = -EINTR;
			break;
		}
		if (now_ns() > end) {
			fprintf(stderr, "%s: runner %d gave no result in %u ms\n", PROG, (int)pid,
				timeout_ms);
			rc = -ETIMEDOUT;
			break;
		}
		if (poll(&pfd, 1, POLL_SLICE_MS) <= 0)
			continue;
		n = read(rfd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -EIO;
			break;
		}
		p += n;
		len -= (size_t)n;
	}
	if (rc < 0) {
		runner_kill(pid, rfd);
		return rc;
	}
	close(rfd);
	/* the result is in; the group may still hold stragglers the runner forked (the group
	 * outlives them while the runner is unreaped, so the id cannot have been reused) */
	kill(-pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR)
			break;
	}
	untrack(pid);
	return 0;
}

const char *
tmpdir_get(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0] != '\0')
		return tmpdir;
	if (base == NULL || base[0] == '\0')
		base = "/tmp";
	snprintf(tmpdir, sizeof(tmpdir), "%s/mpe-costs.XXXXXX", base);
	if (mkdtemp(tmpdir) == NULL) {
		fprintf(stderr, "%s: mkdtemp %s: %s\n", PROG, tmpdir, strerror(errno));
		tmpdir[0] = '\0';
		return NULL;
	}
	return tmpdir;
}

static void
tmpdir_remove(void)
{
	char path[512];
	struct dirent *e;
	DIR *d;

	if (tmpdir[0] == '\0')
		return;
	d = opendir(tmpdir);
	if (d != NULL) {
		while ((e = readdir(d)) != NULL) {
			if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
				continue;
			snprintf(path, sizeof(path), "%s/%s", tmpdir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(tmpdir);
	tmpdir[0] = '\0';
}

/* Children reparented to this subreaper: every process whose parent is this one. */
static unsigned int
kill_own_children(void)
{
	char path[64], buf[512], *p;
	struct dirent *e;
	unsigned int n = 0;
	pid_t self = getpid();
	DIR *d = opendir("/proc");
	FILE *f;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		long pid, ppid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) == NULL) {
			fclose(f);
			continue;
		}
		fclose(f);
		/* "pid (comm) S ppid ...": comm may hold spaces and parentheses */
		p = strrchr(buf, ')');
		pid = strtol(buf, NULL, 10);
		if (p == NULL || sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid != self)
			continue;
		kill((pid_t)pid, SIGKILL);
		n++;
	}
	closedir(d);
	return n;
}

/* Kill and reap everything started, remove temporary files. Safe to call twice. */
void
cleanup_all(void)
{
	uint64_t end = now_ns() + REAP_GRACE_MS * 1000000ULL;
	unsigned int i;

	for (i = 0; i < MAX_RUNNERS; i++) {
		if (runners[i] != 0)
			runner_kill(runners[i], -1);
	}
	do {
		pid_t pid;

		kill_own_children();
		while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
			;
		if (pid < 0 && errno == ECHILD)
			break;
		usleep(10000);
	} while (now_ns() < end);
	tmpdir_remove();
}
