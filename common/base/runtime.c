/* SPDX-License-Identifier: BSD-3-Clause */
/* Removal of a DPDK process's files on disk. Not on any hot path; one caller at a time. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <rte_common.h>
#include <rte_memory.h>

#include "runtime.h"

#define MAX_FILES 256

struct mpe_runtime_files {
	unsigned int n;
	char paths[MAX_FILES][PATH_MAX];
};

static int
note_file(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	struct mpe_runtime_files *f = arg;
	char link[64], path[PATH_MAX];
	unsigned int i;
	ssize_t len;
	int fd = rte_memseg_get_fd_thread_unsafe(ms);

	if (fd < 0 || msl->external)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return 0;
	path[len] = '\0';
	for (i = 0; i < f->n; i++)
		if (strcmp(f->paths[i], path) == 0)
			return 0;
	if (f->n < MAX_FILES)
		snprintf(f->paths[f->n++], PATH_MAX, "%s", path);
	return 0;
}

struct mpe_runtime_files *
mpe_runtime_files_collect(void)
{
	struct mpe_runtime_files *f = calloc(1, sizeof(*f));

	if (f != NULL)
		rte_memseg_walk_thread_unsafe(note_file, f);
	return f;
}

/* Files of the same prefix no longer mapped here: segments another process of the prefix
 * (dpdk-dumpcap's capture pool, say) had made and that were freed while that process still
 * held them, which leaves the file behind. Named "<hugedir>/<prefix>map_<n>", like @path. */
static void
unlink_siblings(const char *path)
{
	char dir[PATH_MAX], stem[NAME_MAX + 1], file[PATH_MAX];
	const char *slash = strrchr(path, '/'), *map;
	struct dirent *de;
	size_t stem_len;
	DIR *d;

	if (slash == NULL || strstr(path, " (deleted)") != NULL)
		return;
	map = strstr(slash + 1, "map_");
	if (map == NULL || (size_t)(slash - path) >= sizeof(dir))
		return;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	stem_len = (size_t)(map + 4 - (slash + 1));
	snprintf(stem, sizeof(stem), "%.*s", (int)stem_len, slash + 1);
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		const char *p = de->d_name + stem_len;

		if (strncmp(de->d_name, stem, stem_len) != 0 || *p == '\0' ||
		    strspn(p, "0123456789") != strlen(p))
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		unlink(file);
	}
	closedir(d);
}

void
mpe_runtime_files_unlink(struct mpe_runtime_files *f)
{
	unsigned int i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		unlink(f->paths[i]);
	if (f->n > 0)
		unlink_siblings(f->paths[0]);
	free(f);
}

void
mpe_runtime_remove_dir(const char *dir)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

/* What mpe_runtime_remove_now() removes, noted beforehand: a signal handler may not allocate
 * nor use stdio or opendir(). */
static struct {
	char huge_dir[PATH_MAX];
	char stem[NAME_MAX + 1]; /* "<prefix>map_" */
	char run_dir[PATH_MAX];
	int armed;
} now_files;

int
mpe_runtime_arm(const char *runtime_dir)
{
	struct mpe_runtime_files *f = mpe_runtime_files_collect();
	const char *slash, *map;
	int rc = -ENOENT;

	snprintf(now_files.run_dir, sizeof(now_files.run_dir), "%s", runtime_dir);
	if (f != NULL && f->n > 0 && (slash = strrchr(f->paths[0], '/')) != NULL &&
	    (map = strstr(slash + 1, "map_")) != NULL) {
		snprintf(now_files.huge_dir, sizeof(now_files.huge_dir), "%.*s",
			 (int)(slash - f->paths[0]), f->paths[0]);
		snprintf(now_files.stem, sizeof(now_files.stem), "%.*s",
			 (int)(map + 4 - (slash + 1)), slash + 1);
		rc = 0;
	}
	free(f);
	now_files.armed = 1;
	return rc;
}

/* Every entry of @dir (or those named @stem followed by digits), unlinked; raw getdents64,
 * which takes no lock and allocates nothing, unlike readdir(). */
static void
unlink_in(const char *dir, const char *stem)
{
	char buf[4096] __rte_aligned(8);
	size_t stem_len = stem != NULL ? strlen(stem) : 0;
	long n, off;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (off = 0; off < n;) {
			const struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *de = (const void *)(buf + off);
			const char *rest = de->name + stem_len;

			off += de->reclen;
			if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0)
				continue;
			if (stem != NULL && (strncmp(de->name, stem, stem_len) != 0 ||
					     *rest == '\0' || strspn(rest, "0123456789") != strlen(rest)))
				continue;
			unlinkat(fd, de->name, 0);
		}
	}
	close(fd);
}

void
mpe_runtime_remove_now(void)
{
	if (!now_files.armed)
		return;
	if (now_files.stem[0] != '\0')
		unlink_in(now_files.huge_dir, now_files.stem);
	if (now_files.run_dir[0] != '\0') {
		unlink_in(now_files.run_dir, NULL);
		rmdir(now_files.run_dir);
	}
}
