/* SPDX-License-Identifier: BSD-3-Clause */
/* Files the workers still open after switching to `worker_user` (worker_user.h). The EAL
 * creates them for root with modes that shut other users out: its runtime directory (0700,
 * under /var/run/dpdk, 0700), its multi-process socket (which a worker writes its replies to),
 * the lock file a worker takes when the primary died, and the hugepage files (0600) that a
 * worker's multi-process thread opens when the primary's heap grows. Each is given to the
 * user; the directories only let it pass. Nothing else of the runtime directory (the
 * telemetry socket, dumps) becomes the user's. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_memory.h>

#include "log.h"
#include "worker_user.h"

static uid_t user_uid;
static gid_t user_gid;

/* The EAL's files a worker uses by name after its switch; the secondaries' own sockets
 * (mp_socket_<pid>_<n>) are theirs already open. */
static int
eal_file(const char *name)
{
	return strcmp(name, "config") == 0 || strcmp(name, "mp_socket") == 0 ||
	       strcmp(name, "hugepage_info") == 0 || strncmp(name, "fbarray_", 8) == 0;
}

/* @path lets others (@other) or the user's group pass: x without r */
static int
let_pass(const char *path, int other)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!other && chown(path, (uid_t)-1, user_gid) < 0)
		return -errno;
	if (chmod(path, (st.st_mode & 07777) | (other ? S_IXOTH : S_IXGRP)) < 0)
		return -errno;
	return 0;
}

static int
give_runtime_dir(void)
{
	const char *dir = rte_eal_get_runtime_dir();
	char path[PATH_MAX], *slash;
	struct dirent *e;
	int rc = 0;
	DIR *d;

	/* /var/run/dpdk is every engine's: others may pass it; <prefix> is ours: the group */
	snprintf(path, sizeof(path), "%s", dir);
	slash = strrchr(path, '/');
	if (slash != NULL && slash != path) {
		*slash = '\0';
		rc = let_pass(path, 1);
	}
	if (rc == 0)
		rc = let_pass(dir, 0);
	if (rc < 0) {
		MPE_LOG(ERR, engine, "worker_user: %s: %s", dir, strerror(-rc));
		return rc;
	}
	d = opendir(dir);
	if (d == NULL) {
		rc = -errno;
		MPE_LOG(ERR, engine, "worker_user: %s: %s", dir, strerror(-rc));
		return rc;
	}
	while ((e = readdir(d)) != NULL) {
		if (!eal_file(e->d_name))
			continue;
		if (fchownat(dirfd(d), e->d_name, user_uid, user_gid, 0) < 0) {
			rc = -errno;
			MPE_LOG(ERR, engine, "worker_user: %s/%s: %s", dir, e->d_name,
				strerror(-rc));
			break;
		}
	}
	closedir(d);
	return rc;
}

/* one hugepage segment's file (one per page, or one per list with --single-file-segments) */
static int
give_segment(const struct rte_memseg *ms)
{
	int fd = rte_memseg_get_fd_thread_unsafe(ms);

	if (fd < 0)
		return 0; /* no file: --in-memory is refused; external memory has none */
	return fchown(fd, user_uid, user_gid) < 0 ? -errno : 0;
}

static int
give_walk(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	int rc = give_segment(ms);

	(void)msl;
	if (rc < 0) {
		*(int *)arg = rc;
		return 1;
	}
	return 0;
}

/* The heap grew: the primary's hook runs before the EAL asks every worker to map the new
 * pages, so the files are the user's by the time a worker's multi-process thread opens them.
 * A failure is logged; the workers' sync then fails and the EAL rolls the growth back. */
static void
on_mem_event(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(addr);
	const char *a = addr;
	size_t off;
	int rc;

	(void)arg;
	if (type != RTE_MEM_EVENT_ALLOC || msl == NULL || msl->external)
		return;
	for (off = 0; off < len; off += msl->page_sz) {
		rc = give_segment(rte_mem_virt2memseg(a + off, msl));
		if (rc < 0) {
			MPE_LOG(ERR, engine, "worker_user: hugepage at %p: %s: the workers cannot "
				"map it", (const void *)(a + off), strerror(-rc));
			return;
		}
	}
}

int
mpe_worker_user_prepare(uid_t uid, gid_t gid)
{
	int rc = 0;

	user_uid = uid;
	user_gid = gid;
	if (give_runtime_dir() < 0)
		return -EACCES;
	if (rte_memseg_walk(give_walk, &rc) < 0 || rc < 0) {
		MPE_LOG(ERR, engine, "worker_user: hugepage files: %s", strerror(rc < 0 ? -rc : EIO));
		return rc < 0 ? rc : -EIO;
	}
	/* legacy memory never grows: no hook (the EAL says ENOTSUP) */
	if (rte_mem_event_callback_register("mpe-worker-user", on_mem_event, NULL) < 0 &&
	    rte_errno != ENOTSUP) {
		rc = -rte_errno;
		MPE_LOG(ERR, engine, "worker_user: memory hook: %s", strerror(-rc));
		return rc;
	}
	return 0;
}
