/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker process's sandbox (sandbox.h, docs/sandbox.md). A worker locks itself once,
 * after attaching and before its first packet, from its main thread: the other threads (the
 * EAL's interrupt and multi-process threads) are locked by a signal each (SIGURG), as capabilities,
 * no_new_privs and Landlock domains are per thread; the seccomp filter is synchronised over
 * every thread by the kernel (TSYNC). The SIGSYS handler is the only code here that runs
 * later: async-signal-safe calls only.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <linux/capability.h>
#include <linux/landlock.h>

#include <cap-ng.h>
#include <seccomp.h>

#include "sandbox.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>

/* A sanitizer build (docs/testing.md#sanitizers): LeakSanitizer's check at exit stops the
 * process's threads with clone() and ptrace(), which the filter forbids; the process would die
 * by SIGSYS as it exits. Under the filter, its hook turns the check off. */
static volatile int seccomp_loaded;

int
__lsan_is_turned_off(void)
{
	return seccomp_loaded;
}
#define SECCOMP_LOADED() (seccomp_loaded = 1)
#else
#define SECCOMP_LOADED() ((void)0)
#endif

/* Landlock as this kernel may know it, newer than Debian 12's headers (Linux 6.1, ABI 2). */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14) /* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#endif
#define NET_BIND_TCP (1ULL << 0)	 /* ABI 4: LANDLOCK_ACCESS_NET_BIND_TCP */
#define NET_CONNECT_TCP (1ULL << 1)	 /* ABI 4: LANDLOCK_ACCESS_NET_CONNECT_TCP */
#define SCOPE_ABSTRACT_UNIX (1ULL << 0) /* ABI 6: LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET */
#define SCOPE_SIGNAL (1ULL << 1)	 /* ABI 6: LANDLOCK_SCOPE_SIGNAL */

/* struct landlock_ruleset_attr of ABI 6; the kernel is given the size its ABI knows */
struct ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

static int
landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

	return abi < 0 ? 0 : (int)abi;
}

/* "noseccomp", "nolandlock" in MPE_SANDBOX_PROBE */
static int
probe_says_no(const char *what)
{
	const char *env = getenv("MPE_SANDBOX_PROBE");
	size_t len = strlen(what);

	while (env != NULL && *env != '\0') {
		if (strncmp(env, what, len) == 0 && (env[len] == ',' || env[len] == '\0'))
			return 1;
		env = strchr(env, ',');
		if (env != NULL)
			env++;
	}
	return 0;
}

void
mpe_sandbox_probe(struct mpe_sandbox_support *s)
{
	memset(s, 0, sizeof(*s));
	/* PR_GET_SECCOMP fails with EINVAL on a kernel built without CONFIG_SECCOMP; the
	 * filter mode needs CONFIG_SECCOMP_FILTER, which every such kernel of ours has, and a
	 * filter that cannot be loaded makes the worker refuse to run */
	s->seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0 &&
		     seccomp_api_get() >= 3 && !probe_says_no("noseccomp");
	s->landlock_abi = probe_says_no("nolandlock") ? 0 : landlock_abi();
	s->landlock_net = s->landlock_abi >= 4;
	s->landlock_scope = s->landlock_abi >= 6;
}

void
mpe_sandbox_describe(const struct mpe_sandbox_support *s, char *buf, size_t size)
{
	int n = snprintf(buf, size, "seccomp filters %s, ", s->seccomp ? "yes" : "no");

	if (n < 0 || (size_t)n >= size)
		return;
	if (s->landlock_abi == 0)
		snprintf(buf + n, size - (size_t)n, "Landlock no");
	else
		snprintf(buf + n, size - (size_t)n, "Landlock ABI %d (files%s%s)", s->landlock_abi,
			 s->landlock_net ? ", TCP" : "", s->landlock_scope ? ", scopes" : "");
}

void
mpe_sandbox_syscall_name(int nr, char *buf, size_t size)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	snprintf(buf, size, "%s", name != NULL ? name : "unknown");
	free(name);
}

/* --- the lock of one thread: no_new_privs, Landlock, no capabilities --- */

static int ruleset_fd = -1;
static pid_t admin_tid; /* the thread that keeps CAP_SYS_ADMIN, 0: none */
static int switch_user; /* every thread becomes user_uid, user_gid */
static uid_t user_uid;
static gid_t user_gid;
static int locked_ok, locked_bad; /* threads that answered the lock signal */

/* This thread's user and groups (credentials are per thread in the kernel: the raw calls, not
 * glibc's, which would signal every thread). The thread that keeps CAP_SYS_ADMIN keeps its
 * permitted set through the switch (PR_SET_KEEPCAPS); every other one loses all. */
static int
switch_thread_user(int keep)
{
	gid_t groups[1] = {user_gid};

	if (keep && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		return -errno;
	if (syscall(SYS_setgroups, 1, groups) < 0 ||
	    syscall(SYS_setresgid, user_gid, user_gid, user_gid) < 0 ||
	    syscall(SYS_setresuid, user_uid, user_uid, user_uid) < 0)
		return -errno;
	return 0;
}

static int
lock_thread(void)
{
	struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct data[2];
	int keep = admin_tid != 0 && (pid_t)syscall(SYS_gettid) == admin_tid;

	memset(data, 0, sizeof(data));
	if (keep) {
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective = CAP_TO_MASK(CAP_SYS_ADMIN);
		data[CAP_TO_INDEX(CAP_SYS_ADMIN)].permitted = CAP_TO_MASK(CAP_SYS_ADMIN);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	if (ruleset_fd >= 0 && syscall(SYS_landlock_restrict_self, ruleset_fd, 0) < 0)
		return -errno;
	if (switch_user && switch_thread_user(keep) < 0)
		return -errno;
	/* ambient capabilities exist since Linux 4.3; an older kernel has none to clear */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

static void
on_lock_signal(int sig)
{
	int saved = errno;

	(void)sig;
	if (lock_thread() == 0)
		__atomic_add_fetch(&locked_ok, 1, __ATOMIC_RELEASE);
	else
		__atomic_add_fetch(&locked_bad, 1, __ATOMIC_RELEASE);
	errno = saved;
}

/* The signal that has each other thread lock itself: SIGURG, which nothing of a worker uses
 * (it has no TCP socket), and which gdb passes on without stopping (a real-time signal would
 * stop a worker started under gdb). */
#define LOCK_SIGNAL SIGURG

/* Every other thread of the process locks itself, in its signal handler. 0, or -errno. */
static int
lock_other_threads(char *err, size_t err_size)
{
	struct sigaction sa = {.sa_handler = on_lock_signal, .sa_flags = SA_RESTART}, old;
	pid_t pid = getpid(), self = (pid_t)syscall(SYS_gettid);
	struct timespec tick = {.tv_nsec = 1000000};
	int sent = 0, i, rc = 0;
	struct dirent *e;
	DIR *d;

	d = opendir("/proc/self/task");
	if (d == NULL) {
		rc = -errno;
		snprintf(err, err_size, "/proc/self/task: %s", strerror(-rc));
		return rc;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(LOCK_SIGNAL, &sa, &old);
	while ((e = readdir(d)) != NULL) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self)
			continue;
		if (syscall(SYS_tgkill, pid, tid, LOCK_SIGNAL) == 0)
			sent++;
	}
	closedir(d);
	/* a thread blocked in the kernel takes the signal at once; one that blocks it never:
	 * one second, then refuse */
	for (i = 0; i < 1000; i++) {
		if (__atomic_load_n(&locked_ok, __ATOMIC_ACQUIRE) +
		    __atomic_load_n(&locked_bad, __ATOMIC_ACQUIRE) >= sent)
			break;
		nanosleep(&tick, NULL);
	}
	if (locked_bad > 0 || locked_ok < sent) {
		snprintf(err, err_size, "%d of %d other threads could not lock themselves",
			 sent - locked_ok, sent);
		rc = -EPERM;
	}
	sigaction(LOCK_SIGNAL, &old, NULL);
	return rc;
}

/* --- Landlock rules --- */

static int
add_path(const char *path, uint64_t access, uint64_t handled)
{
	struct landlock_path_beneath_attr rule = {.allowed_access = access & handled};
	int rc;

	rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
	if (rule.parent_fd < 0)
		return -errno;
	rc = (int)syscall(SYS_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
	if (rc < 0)
		rc = -errno;
	close(rule.parent_fd);
	return rc;
}

/* The ruleset: every file system access the ABI knows is handled, only what the worker still
 * does is allowed (its runtime directory, the hugepage mounts, the primary's /proc entry);
 * TCP bind and connect handled with no rule (denied); abstract UNIX sockets and signals
 * scoped to the worker. Returns the ABI used, 0 without Landlock, or -errno. */
static int
make_ruleset(const struct mpe_sandbox_spec *spec, char *err, size_t err_size)
{
	static const size_t attr_size[] = {0, 8, 8, 8, 16, 16, 24};
	struct ruleset_attr attr = {0};
	char path[512], *slash;
	struct mntent *m;
	int abi = landlock_abi(), rc;
	uint64_t fs;
	FILE *mounts;

	if (abi <= 0)
		return 0;
	fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */
	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	attr.handled_access_fs = fs;
	if (abi >= 4)
		attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL;
	ruleset_fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
				  attr_size[abi < 6 ? abi : 6], 0);
	if (ruleset_fd < 0) {
		rc = -errno;
		snprintf(err, err_size, "landlock_create_ruleset: %s", strerror(-rc));
		return rc;
	}
	/* the runtime directory: read (its lock file), and, when the primary died, removed by
	 * the last worker: its files, then itself (a right on its parent) */
	rc = add_path(spec->runtime_dir, FS_READ | LANDLOCK_ACCESS_FS_REMOVE_FILE, fs);
	snprintf(path, sizeof(path), "%s", spec->runtime_dir);
	slash = strrchr(path, '/');
	if (rc == 0 && slash != NULL && slash != path) {
		*slash = '\0';
		rc = add_path(path, LANDLOCK_ACCESS_FS_REMOVE_DIR, fs);
	}
	if (rc < 0) {
		snprintf(err, err_size, "landlock rule for %s: %s", spec->runtime_dir,
			 strerror(-rc));
		return rc;
	}
	/* hugepage mounts: memory the primary adds later is mapped from there, and the last
	 * worker after the primary's death removes the engine's files */
	mounts = setmntent("/proc/mounts", "r");
	while (mounts != NULL && (m = getmntent(mounts)) != NULL) {
		if (strcmp(m->mnt_type, "hugetlbfs") != 0)
			continue;
		rc = add_path(m->mnt_dir, FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE |
			      LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE, fs);
		if (rc < 0) {
			snprintf(err, err_size, "landlock rule for %s: %s", m->mnt_dir,
				 strerror(-rc));
			endmntent(mounts);
			return rc;
		}
	}
	if (mounts != NULL)
		endmntent(mounts);
	/* its own page map: the physical address of a hugepage the primary adds later (IOVA as
	 * PA), which the EAL reads when it maps it */
	rc = add_path("/proc/self/pagemap", LANDLOCK_ACCESS_FS_READ_FILE, fs);
	if (rc < 0 && rc != -ENOENT) {
		snprintf(err, err_size, "landlock rule for /proc/self/pagemap: %s", strerror(-rc));
		return rc;
	}
	/* is the primary still there (mpe_worker_process_gone) */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)spec->primary_pid);
	rc = add_path(path, LANDLOCK_ACCESS_FS_READ_FILE, fs);
	if (rc < 0 && rc != -ENOENT) {
		snprintf(err, err_size, "landlock rule for %s: %s", path, strerror(-rc));
		return rc;
	}
	return abi;
}

/* --- seccomp --- */

static volatile int32_t *blocked_at;
static pid_t self_pid;
static int may_move; /* a standby: moves its main thread to a worker's CPUs, names it */

void
mpe_sandbox_report_to(volatile int32_t *blocked_syscall)
{
	*blocked_syscall = -1;
	__atomic_store_n(&blocked_at, blocked_syscall, __ATOMIC_RELEASE);
}

/* A system call outside the allowlist (SECCOMP_RET_TRAP): its number into the worker's slot,
 * a line into its log, then the process ends by SIGSYS (SA_RESETHAND made that the default
 * action again; no core: the call is in the log). */
static void
on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	char msg[96] = "mpe-secondary: sandbox: refused system call ";
	char num[16];
	int nr = si->si_syscall, i = (int)sizeof(num), len = (int)strlen(msg);
	unsigned int v = nr < 0 ? 0 : (unsigned int)nr;

	(void)ctx;
	if (blocked_at != NULL)
		*blocked_at = nr;
	do {
		num[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && i > 0);
	memcpy(msg + len, num + i, sizeof(num) - (size_t)i);
	len += (int)sizeof(num) - i;
	memcpy(msg + len, ": killing this worker\n", sizeof(": killing this worker\n") - 1);
	len += (int)sizeof(": killing this worker\n") - 1;
	if (write(STDERR_FILENO, msg, (size_t)len) < 0)
		blocked_at = NULL;
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* to this thread: a signal between the threads' sibling Landlock domains may be
	 * refused, one to itself never */
	syscall(SYS_tgkill, self_pid, syscall(SYS_gettid), sig);
}

struct rule {
	const char *name;
	unsigned int nb_args; /* 0: any arguments */
	struct scmp_arg_cmp arg;
};

/* Calls allowed with their arguments checked; @nb counts those added. */
static int
add_conditional(scmp_filter_ctx ctx, const struct rule *rules, unsigned int n, int *nb)
{
	unsigned int i;
	int nr, rc;

	for (i = 0; i < n; i++) {
		nr = seccomp_syscall_resolve_name(rules[i].name);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a call of this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, rules[i].nb_args, rules[i].arg);
		if (rc < 0)
			return rc;
		(*nb)++;
	}
	return 0;
}

/* The allowlist (docs/sandbox.md says why each). */
static int
add_rules(scmp_filter_ctx ctx, int *nb)
{
	static const char *const any[] = {
		/* descriptors already open: the log pipe, /proc, hugepage files, eventfds */
		"read", "write", "readv", "writev", "pread64", "pwrite64", "close", "fstat",
		"newfstatat", "statx", "lseek", "fcntl", "dup", "dup2", "dup3",
		/* files: Landlock decides which (the primary's /proc entry, hugepage files, the
		 * runtime directory at the end) */
		"openat", "getdents64", "readlink", "readlinkat", "unlink", "unlinkat", "rmdir",
		"flock", "ftruncate", "fallocate",
		/* memory: malloc, and hugepage segments the primary adds later */
		"munmap", "mremap", "madvise", "brk", "mbind", "get_mempolicy", "set_mempolicy",
		/* threads: locks, waits, the EAL's interrupt thread and multi-process channel */
		"futex", "sched_yield", "sched_getaffinity", "nanosleep", "clock_nanosleep",
		"clock_gettime", "gettimeofday", "epoll_wait", "epoll_pwait", "epoll_ctl",
		"timerfd_settime", "timerfd_gettime", "poll", "ppoll", "recvmsg", "sendmsg",
		"recvfrom", "sendto", "restart_syscall", "rt_sigprocmask", "rt_sigreturn",
		"sigaltstack", "getpid", "gettid", "getppid", "getrandom", "exit", "exit_group",
	};
	const struct rule cond[] = {
		/* memory, never executable */
		{"mmap", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)},
		{"mprotect", 1, SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)},
		/* signal handlers, but never SIGSYS's: the filter's report stays */
		{"rt_sigaction", 1, SCMP_A0(SCMP_CMP_NE, SIGSYS)},
		/* is a process alive (the primary), or a signal to itself (raise, the report) */
		{"kill", 1, SCMP_A1(SCMP_CMP_EQ, 0)},
		{"kill", 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self_pid)},
		{"tgkill", 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self_pid)},
		/* the report: no core dump */
		{"prctl", 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE)},
		/* stdio asks whether a stream is a terminal, nothing more */
		{"ioctl", 1, SCMP_A1(SCMP_CMP_EQ, TCGETS)},
	};
	/* a standby, when it takes a worker's place: its main thread (tid = pid) moves to the
	 * worker's CPUs and takes its name */
	const struct rule move[] = {
		{"sched_setaffinity", 1, SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)self_pid)},
		{"prctl", 1, SCMP_A0(SCMP_CMP_EQ, PR_SET_NAME)},
	};
	unsigned int i;
	int nr, rc;

	*nb = 0;
	rc = add_conditional(ctx, cond, sizeof(cond) / sizeof(cond[0]), nb);
	if (rc == 0 && may_move)
		rc = add_conditional(ctx, move, sizeof(move) / sizeof(move[0]), nb);
	if (rc < 0)
		return rc;
	for (i = 0; i < sizeof(any) / sizeof(any[0]); i++) {
		nr = seccomp_syscall_resolve_name(any[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not a call of this architecture */
		rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (rc < 0)
			return rc;
		(*nb)++;
	}
	return 0;
}

static int
load_filter(char *err, size_t err_size, int *nb)
{
	struct sigaction sa = {.sa_sigaction = on_sigsys,
			       .sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_TRAP);
	int rc;

	if (ctx == NULL) {
		snprintf(err, err_size, "seccomp_init failed");
		return -ENOMEM;
	}
	sigemptyset(&sa.sa_mask);
	rc = sigaction(SIGSYS, &sa, NULL) < 0 ? -errno : 0;
	if (rc == 0)
		rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
	if (rc == 0)
		rc = add_rules(ctx, nb);
	if (rc == 0)
		rc = seccomp_load(ctx);
	if (rc == 0)
		SECCOMP_LOADED();
	if (rc != 0)
		snprintf(err, err_size, "seccomp filter: %s", strerror(rc < 0 ? -rc : rc));
	seccomp_release(ctx);
	return rc < 0 ? rc : rc > 0 ? -rc : 0;
}


int
mpe_sandbox_apply(const struct mpe_sandbox_spec *spec, char *applied, size_t applied_size,
		  char *err, size_t err_size)
{
	int abi, rc, nb = 0;

	applied[0] = '\0';
	self_pid = getpid();
	admin_tid = spec->keep_admin_tid;
	may_move = spec->standby;
	blocked_at = spec->blocked_syscall;
	if (blocked_at != NULL)
		*blocked_at = -1;
	abi = make_ruleset(spec, err, err_size);
	if (abi < 0)
		return abi;
	switch_user = spec->switch_user;
	user_uid = spec->uid;
	user_gid = spec->gid;
	/* the bounding set while this thread may still change it (without CAP_SETPCAP it
	 * cannot, and under no_new_privs nothing can be gained from it); then every thread
	 * drops the rest, capabilities being per thread, each after its switch of user, which
	 * needs CAP_SETUID. A thread that cannot drop them refuses the whole lock. */
	capng_clear(CAPNG_SELECT_BOUNDS);
	(void)capng_apply(CAPNG_SELECT_BOUNDS);
	rc = lock_other_threads(err, err_size);
	if (rc == 0) {
		rc = lock_thread();
		if (rc < 0)
			snprintf(err, err_size, "lock of the main thread: %s", strerror(-rc));
	}
	/* a change of user made the process non-dumpable, which gives its /proc files to root:
	 * its own page map must stay readable to it (IOVA as PA) */
	if (rc == 0 && switch_user && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) {
		rc = -errno;
		snprintf(err, err_size, "dumpable after the switch of user: %s", strerror(-rc));
	}
	if (ruleset_fd >= 0) {
		close(ruleset_fd);
		ruleset_fd = -1;
	}
	if (rc < 0)
		return rc;
	rc = load_filter(err, err_size, &nb);
	if (rc < 0)
		return rc;
	if (abi > 0)
		snprintf(applied, applied_size, "seccomp,landlock%d,caps,nnp%s%s", abi,
			 admin_tid != 0 ? ",mpadmin" : "",
			 switch_user ? ",user" : "");
	else
		snprintf(applied, applied_size, "seccomp,caps,nnp%s%s",
			 admin_tid != 0 ? ",mpadmin" : "", switch_user ? ",user" : "");
	return nb;
}
