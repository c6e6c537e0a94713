/* Removal of a DPDK process's files on disk. Not on any hot path; one caller at a time. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

void
mpe_runtime_files_unlink(struct mpe_runtime_files *f)
{
	unsigned int i;

	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		unlink(f->paths[i]);
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
