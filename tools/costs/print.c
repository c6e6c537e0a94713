/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "print": seed 000's experiment, N processes against N threads each printing M lines
 * with stdio to one stdout (line-buffered, as on the console of the original), here a
 * temporary file or /dev/null. Each repetition runs in a fresh runner process.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include "costs.h"

#define MODE                   "print"
#define MAX_TASKS              10000
#define MAX_TOTAL_LINES        50000000ULL
#define LINE_BYTES             24 /* "[999999]hello linux\n" at most */
#define PROC_RESIDENT_ESTIMATE (1 * MIB)
#define RUNNER_TIMEOUT_MS      600000

static const struct seed_ref seed_print = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", "~1x (~11 s each)", 1,
	"255 processes vs 255 threads x 1000 lines to a console: the same time"};

struct job {
	uint64_t tasks;
	uint64_t lines;
	bool procs;
	char path[300];
};

struct result {
	int err;
	double seconds;
};

static const char hello[] = "hello linux";

static void
print_lines(uint64_t lines)
{
	uint64_t i;

	for (i = 0; i < lines; i++)
		printf("[%llu]%s\n", (unsigned long long)i, hello);
	fflush(stdout);
}

static void *
print_thread(void *arg)
{
	print_lines(*(const uint64_t *)arg);
	return NULL;
}

static int
run_print(void *arg, int wfd)
{
	const struct job *j = arg;
	struct result res = {0};
	pthread_t *tids = NULL;
	pid_t *pids = NULL;
	uint64_t i, made = 0, t0;
	int fd;

	fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		res.err = errno;
		return write_full(wfd, &res, sizeof(res));
	}
	close(fd);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (j->procs)
		pids = calloc(j->tasks, sizeof(*pids));
	else
		tids = calloc(j->tasks, sizeof(*tids));
	if (pids == NULL && tids == NULL) {
		res.err = ENOMEM;
		return write_full(wfd, &res, sizeof(res));
	}
	t0 = now_ns();
	for (i = 0; i < j->tasks; i++) {
		if (j->procs) {
			pids[i] = fork();
			if (pids[i] == 0) {
				print_lines(j->lines);
				_exit(0);
			}
			if (pids[i] < 0) {
				res.err = errno;
				break;
			}
		} else {
			res.err = pthread_create(&tids[i], NULL, print_thread, (void *)&j->lines);
			if (res.err != 0)
				break;
		}
		made++;
	}
	for (i = 0; i < made; i++) {
		if (j->procs)
			waitpid(pids[i], NULL, 0);
		else
			pthread_join(tids[i], NULL);
	}
	res.seconds = (now_ns() - t0) / 1e9;
	return write_full(wfd, &res, sizeof(res));
}

static int
count_lines(const char *path, uint64_t *n)
{
	char buf[65536];
	ssize_t len, k;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*n = 0;
	if (fd < 0)
		return -errno;
	while ((len = read(fd, buf, sizeof(buf))) > 0)
		for (k = 0; k < len; k++)
			*n += buf[k] == '\n';
	close(fd);
	return len < 0 ? -EIO : 0;
}

static int
one_run(struct job *j, double *seconds, bool check)
{
	struct result res;
	uint64_t lines;
	int rc, rfd;
	pid_t pid = runner_start(run_print, j, &rfd);

	if (pid < 0)
		return -EAGAIN;
	rc = runner_finish(pid, rfd, &res, sizeof(res), RUNNER_TIMEOUT_MS);
	if (rc < 0)
		return rc;
	if (res.err != 0) {
		fprintf(stderr, "%s: %s: %s: %s\n", PROG, MODE, j->path, strerror(res.err));
		return -res.err;
	}
	*seconds = res.seconds;
	if (!check)
		return 0;
	rc = count_lines(j->path, &lines);
	if (rc < 0 || lines != j->tasks * j->lines) {
		fprintf(stderr, "%s: %s: %s holds %llu lines, %llu expected\n", PROG, MODE, j->path,
			(unsigned long long)lines, (unsigned long long)(j->tasks * j->lines));
		return -EIO;
	}
	return 0;
}

int
mode_print(const struct opts *o)
{
	uint64_t n = o->v[P_THREADS], m = o->v[P_LINES];
	unsigned int reps = (unsigned int)o->v[P_REPS], rep, done = 0;
	double *vp = calloc(reps, sizeof(double)), *vt = calloc(reps, sizeof(double));
	char what[ROW_WHAT_LEN];
	struct job j = {.tasks = n, .lines = m};
	struct row *rp, *rt, *r;
	struct statvfs fs;
	const char *dir;
	int rc = 0;

	if (vp == NULL || vt == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	if (n > MAX_TASKS || n * m > MAX_TOTAL_LINES) {
		fprintf(stderr,
			"%s: %s: at most %u tasks and %llu lines in all (asked %llu x %llu)\n",
			PROG, MODE, MAX_TASKS, MAX_TOTAL_LINES, (unsigned long long)n,
			(unsigned long long)m);
		rc = -ERANGE;
		goto out;
	}
	rc = check_tasks(MODE, n + 1, "printing tasks (--threads)");
	if (rc == 0)
		rc = check_memory(MODE, n * PROC_RESIDENT_ESTIMATE, "the printing processes");
	if (rc < 0)
		goto out;
	if (o->sink_null) {
		snprintf(j.path, sizeof(j.path), "/dev/null");
	} else {
		dir = tmpdir_get();
		if (dir == NULL) {
			rc = -EIO;
			goto out;
		}
		snprintf(j.path, sizeof(j.path), "%s/print.out", dir);
		if (statvfs(dir, &fs) == 0 &&
		    n * m * LINE_BYTES > (uint64_t)fs.f_bavail * fs.f_frsize / 2) {
			fprintf(stderr,
				"%s: %s: %llu MiB of output would fill %s; use --sink null\n", PROG,
				MODE, (unsigned long long)(n * m * LINE_BYTES / MIB), dir);
			rc = -ENOSPC;
			goto out;
		}
	}
	/* alternate which goes first, so neither always meets a warm or cold page cache */
	for (rep = 0; rep < reps && !budget_over(); rep++) {
		j.procs = rep % 2 == 0;
		rc = one_run(&j, j.procs ? &vp[done] : &vt[done], !o->sink_null);
		if (rc == 0) {
			j.procs = !j.procs;
			rc = one_run(&j, j.procs ? &vp[done] : &vt[done], !o->sink_null);
		}
		if (rc < 0)
			goto out;
		done++;
	}
	snprintf(what, sizeof(what), "%llu processes x %llu lines to %s", (unsigned long long)n,
		 (unsigned long long)m, o->sink_null ? "/dev/null" : "a file");
	rp = row_add("print_procs", what, "s", NULL);
	row_set(rp, vp, done);
	snprintf(what, sizeof(what), "%llu threads x %llu lines to %s", (unsigned long long)n,
		 (unsigned long long)m, o->sink_null ? "/dev/null" : "a file");
	rt = row_add("print_threads", what, "s", NULL);
	row_set(rt, vt, done);
	if (!o->sink_null)
		row_note(rt, "every run's file held exactly %llu lines",
			 (unsigned long long)(n * m));
	r = row_add("print_procs_over_threads", "print: processes ÷ threads (medians)", "x",
		    &seed_print);
	r->headline = true;
	if (rp->measured && rt->measured && rt->s.median > 0)
		row_value(r, rp->s.median / rt->s.median);
	else
		row_skip(r, "needs both figures");
out:
	free(vp);
	free(vt);
	return g_stop ? -EINTR : rc;
}
