/* SPDX-License-Identifier: BSD-3-Clause */
/* Opening the engine's text files: regular files of bounded size only. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "textfile.h"

FILE *
mpe_textfile_open(const char *path, size_t max_bytes, char *why, size_t why_len)
{
	struct stat st;
	FILE *f;
	int fd, rc;

	/* O_NONBLOCK: opening a FIFO does not wait for a writer */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = errno;
		snprintf(why, why_len, "%s", strerror(rc));
		goto fail;
	}
	if (fstat(fd, &st) < 0) {
		rc = errno;
		snprintf(why, why_len, "%s", strerror(rc));
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = EINVAL;
		snprintf(why, why_len, "not a regular file");
		goto fail;
	}
	if ((unsigned long long)st.st_size > max_bytes) {
		rc = EFBIG;
		snprintf(why, why_len, "%lld bytes, more than the %zu allowed",
			 (long long)st.st_size, max_bytes);
		goto fail;
	}
	f = fdopen(fd, "r");
	if (f == NULL) {
		rc = errno;
		snprintf(why, why_len, "%s", strerror(rc));
		goto fail;
	}
	return f;
fail:
	if (fd >= 0)
		close(fd);
	errno = rc;
	return NULL;
}
