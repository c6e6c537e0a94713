/* SPDX-License-Identifier: BSD-3-Clause */
/* The worker process's sandbox: what this kernel offers (seccomp filters, Landlock), and the
 * lock-down a worker process applies to itself once attached, before its first packet:
 * no_new_privs, every capability dropped, Landlock rules, a seccomp allowlist. The primary
 * uses the probe (--check, the start) and the names of system calls (a worker killed by its
 * filter). Not on any hot path; one caller at a time. See docs/sandbox.md. */
#ifndef MPE_SANDBOX_H
#define MPE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What the running kernel supports. */
struct mpe_sandbox_support {
	int seccomp;	    /* seccomp filters with the TRAP and KILL_PROCESS actions */
	int landlock_abi;   /* 0: no Landlock (not built in, or disabled at boot) */
	int landlock_net;   /* ABI >= 4: TCP bind and connect can be denied */
	int landlock_scope; /* ABI >= 6: abstract UNIX sockets and signals scoped */
};

/* Fill @s from the kernel. The environment variable MPE_SANDBOX_PROBE, a comma-separated list
 * of "noseccomp" and "nolandlock", makes the probe report less than the kernel has: for the
 * tests of refusals (a kernel that lacks them); it never weakens a worker's own lock-down. */
void mpe_sandbox_probe(struct mpe_sandbox_support *s);

/* "seccomp filters, Landlock ABI 7 (files, TCP, scopes)": for --check and the start log. */
void mpe_sandbox_describe(const struct mpe_sandbox_support *s, char *buf, size_t size);

/* The name of system call @nr of this architecture ("socket"), or "unknown". */
void mpe_sandbox_syscall_name(int nr, char *buf, size_t size);

#define MPE_SANDBOX_MAX_DIRS 8

/* What a worker process keeps once locked. */
struct mpe_sandbox_spec {
	const char *runtime_dir;	/* /var/run/dpdk/<prefix>: read, remove its files */
	pid_t primary_pid;		/* /proc/<pid>/stat readable: is the primary alive */
	/* Where a SIGSYS from the filter writes the number of the call it refused (the
	 * worker's slot in shared memory), before the process kills itself with SIGSYS. */
	volatile int32_t *blocked_syscall;
	/* Thread id that keeps CAP_SYS_ADMIN, 0: none. With IOVA as PA, the EAL's multi-process
	 * thread maps memory the primary adds later and reads its physical address from
	 * /proc/self/pagemap, which shows it only to a reader with CAP_SYS_ADMIN. */
	pid_t keep_admin_tid;
	/* Switch every thread to this user and group before the capabilities go (docs/sandbox.md,
	 * An unprivileged user); switch_user 0: stay. */
	int switch_user;
	uid_t uid;
	gid_t gid;
	/* A standby worker process (docs/standby.md): it locks down while parked, and may later
	 * move its main thread to a worker's CPUs and name it after the worker. */
	int standby;
};

/* From now on, a SIGSYS from the filter writes the refused call's number here (a standby
 * taking a worker's place: that worker's slot); -1 is written first. */
void mpe_sandbox_report_to(volatile int32_t *blocked_syscall);

/* Lock the calling process down (every thread): no_new_privs, capabilities, Landlock where
 * the kernel has it, then the seccomp allowlist. Writes what was applied into @applied
 * ("seccomp,landlock7,caps,nnp", ",mpadmin" when keep_admin_tid kept CAP_SYS_ADMIN, ",user"
 * after a switch of user). Returns the number of system calls the filter allows, or
 * -errno with the reason in @err: seccomp could not be loaded, or a thread could not be
 * locked (a process left half locked must not run: the caller refuses to run). A kernel
 * without Landlock is no error: @applied lacks "landlock". */
int mpe_sandbox_apply(const struct mpe_sandbox_spec *spec, char *applied, size_t applied_size,
		      char *err, size_t err_size);

#endif
