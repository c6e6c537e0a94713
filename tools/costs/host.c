/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs host facts: CPUs, kernel, THP, busy shares from /proc/stat, /proc readers, and
 * the limit checks every experiment passes before it starts anything. Main thread only,
 * except the /proc readers, which runners call in their own process.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/utsname.h>

#include "costs.h"

/* Resident cost of one sleeping thread used for the memory bound of the thread ceiling:
 * 16 KiB kernel stack (x86_64), ~10 KiB task_struct and friends, ~8 KiB of touched user
 * stack, up to 4 KiB of page table. An estimate, said so wherever it is printed. */
#define THREAD_RESIDENT_ESTIMATE (40 * KIB)

/* User address space on x86_64 and arm64 with 4-level page tables. */
#define USER_VA_BYTES (1ULL << 47)

/* Share of a limit an experiment may take: the rest is left to the host. */
#define ROOM_DIVISOR 2

struct host g_host;

static struct cpustat busy_cs;
static double busy_self_s;
static uint64_t busy_t0;

static int
read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
	return 0;
}

static int
read_u64_file(const char *path, uint64_t *v)
{
	char buf[64];
	int rc = read_text(path, buf, sizeof(buf));

	if (rc < 0)
		return rc;
	if (sscanf(buf, "%" SCNu64, v) != 1)
		return -EINVAL;
	return 0;
}

/* "Key:   1234 kB" lines as in /proc/self/status and /proc/meminfo. */
static int
proc_kib(const char *path, const char *key, uint64_t *kib)
{
	char line[256];
	size_t klen = strlen(key);
	FILE *f = fopen(path, "r");
	int rc = -ENOENT;

	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			rc = sscanf(line + klen + 1, "%" SCNu64, kib) == 1 ? 0 : -EINVAL;
			break;
		}
	}
	fclose(f);
	return rc;
}

int
status_kib(const char *key, uint64_t *kib)
{
	return proc_kib("/proc/self/status", key, kib);
}

int
meminfo_kib(const char *key, uint64_t *kib)
{
	return proc_kib("/proc/meminfo", key, kib);
}

int
smaps_rollup_kib(const char *key, uint64_t *kib)
{
	return proc_kib("/proc/self/smaps_rollup", key, kib);
}

/* cpu = -1: all CPUs ("cpu " line); otherwise the "cpuN " line. */
int
cpustat_read(int cpu, struct cpustat *st)
{
	char line[512], want[16];
	uint64_t f[10] = {0};
	FILE *fp = fopen("/proc/stat", "r");
	int rc = -ENOENT;

	if (fp == NULL)
		return -errno;
	if (cpu < 0)
		snprintf(want, sizeof(want), "cpu ");
	else
		snprintf(want, sizeof(want), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), fp) != NULL) {
		int k;

		if (strncmp(line, want, strlen(want)) != 0)
			continue;
		/* user nice system idle iowait irq softirq steal guest guest_nice */
		k = sscanf(line + strlen(want),
			   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
			   " %" SCNu64 " %" SCNu64,
			   &f[0], &f[1], &f[2], &f[3], &f[4], &f[5], &f[6], &f[7]);
		if (k < 4) {
			rc = -EINVAL;
			break;
		}
		st->total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];
		st->busy = st->total - f[3] - f[4];
		st->irq = f[5] + f[6];
		rc = 0;
		break;
	}
	fclose(fp);
	return rc;
}

double
cpustat_busy_pct(const struct cpustat *a, const struct cpustat *b)
{
	uint64_t dt = b->total - a->total;

	if (b->total <= a->total)
		return 0;
	return 100.0 * (double)(b->busy - a->busy) / (double)dt;
}

/* CPU seconds of this process and of the children it reaped. */
double
self_cpu_s(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec + c.ru_stime.tv_sec +
	       (s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec + c.ru_stime.tv_usec) /
		       1e6;
}

void
busy_begin(void)
{
	cpustat_read(-1, &busy_cs);
	busy_self_s = self_cpu_s();
	busy_t0 = now_ns();
}

/* Shares of all CPUs' time during the mode; "others" is what this tool cannot account for. */
void
busy_end(struct busy *b)
{
	struct cpustat now;
	double wall, cap, self, total;
	long hz = sysconf(_SC_CLK_TCK);

	cpustat_read(-1, &now);
	wall = (now_ns() - busy_t0) / 1e9;
	cap = wall * (double)(g_host.cpus_online > 0 ? g_host.cpus_online : 1);
	self = self_cpu_s() - busy_self_s;
	total = (double)(now.busy - busy_cs.busy) / (double)(hz > 0 ? hz : 100);
	memset(b, 0, sizeof(*b));
	b->wall_s = wall;
	if (cap <= 0)
		return;
	/* jiffies against rusage's finer clock: clamp what granularity pushes out of range */
	b->total_pct = fmin(100.0, 100.0 * total / cap);
	b->self_pct = fmin(b->total_pct, 100.0 * self / cap);
	b->others_pct = fmax(0.0, b->total_pct - b->self_pct);
}

int
host_read(struct host *h)
{
	char buf[4096], *p, *q;
	struct utsname u;
	cpu_set_t set;
	int cpu;

	memset(h, 0, sizeof(*h));
	h->cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
	if (sched_getaffinity(0, sizeof(set), &set) == 0) {
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			if (CPU_ISSET(cpu, &set))
				h->cpu_ids[h->cpus_allowed++] = cpu;
	}
	if (h->cpus_allowed == 0) {
		h->cpu_ids[0] = 0;
		h->cpus_allowed = 1;
	}
	if (uname(&u) == 0) {
		snprintf(h->kernel, sizeof(h->kernel), "%s %s", u.release, u.version);
		snprintf(h->machine, sizeof(h->machine), "%s", u.machine);
	}
	snprintf(h->model, sizeof(h->model), "unknown CPU");
	if (read_text("/proc/cpuinfo", buf, sizeof(buf)) == 0) {
		p = strstr(buf, "model name");
		if (p != NULL && (p = strchr(p, ':')) != NULL) {
			p += 1 + strspn(p + 1, " \t");
			q = strchr(p, '\n');
			if (q != NULL)
				*q = '\0';
			snprintf(h->model, sizeof(h->model), "%s", p);
		}
	}
	snprintf(h->thp, sizeof(h->thp), "absent");
	if (read_text("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) == 0) {
		p = strchr(buf, '[');
		q = p != NULL ? strchr(p, ']') : NULL;
		if (p != NULL && q != NULL) {
			*q = '\0';
			snprintf(h->thp, sizeof(h->thp), "%s", p + 1);
		}
	}
	h->thp_usable = strcmp(h->thp, "always") == 0 || strcmp(h->thp, "madvise") == 0;
	if (read_text("/proc/loadavg", buf, sizeof(buf)) == 0)
		h->load1_start = strtod(buf, NULL);
	return 0;
}

int
limits_read(struct limits *l)
{
	char buf[256], *p;
	struct rlimit r;
	FILE *f;
	int c;
	uint64_t lim = 0, committed = 0;

	memset(l, 0, sizeof(*l));
	read_u64_file("/proc/sys/kernel/pid_max", &l->pid_max);
	read_u64_file("/proc/sys/kernel/threads-max", &l->threads_max);
	read_u64_file("/proc/sys/vm/max_map_count", &l->max_map_count);
	read_u64_file("/proc/sys/vm/overcommit_memory", &l->overcommit);
	if (getrlimit(RLIMIT_NPROC, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		l->nproc = r.rlim_cur;
	l->nproc_enforced = geteuid() != 0;
	if (getrlimit(RLIMIT_STACK, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		l->stack = r.rlim_cur;
	if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY)
		l->as = r.rlim_cur;
	/* "0.10 0.20 0.30 2/345 6789": the 345 is every task on the host */
	if (read_text("/proc/loadavg", buf, sizeof(buf)) == 0 && (p = strchr(buf, '/')) != NULL)
		l->tasks_now = strtoull(p + 1, NULL, 10);
	f = fopen("/proc/self/maps", "r");
	if (f != NULL) {
		while ((c = fgetc(f)) != EOF)
			if (c == '\n')
				l->maps_now++;
		fclose(f);
	}
	meminfo_kib("MemTotal", &l->mem_total_kib);
	if (meminfo_kib("MemAvailable", &l->mem_avail_kib) < 0)
		meminfo_kib("MemFree", &l->mem_avail_kib);
	if (meminfo_kib("CommitLimit", &lim) == 0 && meminfo_kib("Committed_AS", &committed) == 0)
		l->commit_free_kib = lim > committed ? lim - committed : 0;
	if (l->pid_max == 0 || l->threads_max == 0 || l->max_map_count == 0) {
		fprintf(stderr,
			"%s: cannot read pid_max, threads-max or max_map_count from /proc\n", PROG);
		return -EIO;
	}
	return 0;
}

static uint64_t
room(uint64_t limit, uint64_t used)
{
	return limit > used ? limit - used : 0;
}

/* Tasks (threads or processes) an experiment may have alive at once. */
int
check_tasks(const char *mode, uint64_t tasks, const char *what)
{
	struct limits l;
	uint64_t r, allowed;
	const char *name = "threads-max";

	if (limits_read(&l) < 0)
		return -EIO;
	r = room(l.threads_max, l.tasks_now);
	if (room(l.pid_max, l.tasks_now) < r) {
		r = room(l.pid_max, l.tasks_now);
		name = "pid_max";
	}
	if (l.nproc && l.nproc_enforced && room(l.nproc, l.tasks_now) < r) {
		r = room(l.nproc, l.tasks_now);
		name = "RLIMIT_NPROC (ulimit -u)";
	}
	allowed = r / ROOM_DIVISOR;
	if (tasks <= allowed)
		return 0;
	fprintf(stderr,
		"%s: %s: %llu %s refused: %s leaves room for %llu more tasks on this host "
		"(%llu running; pid_max %llu, threads-max %llu); at most %llu allowed\n",
		PROG, mode, (unsigned long long)tasks, what, name, (unsigned long long)r,
		(unsigned long long)l.tasks_now, (unsigned long long)l.pid_max,
		(unsigned long long)l.threads_max, (unsigned long long)allowed);
	return -ERANGE;
}

int
check_memory(const char *mode, uint64_t bytes, const char *what)
{
	struct limits l;
	uint64_t allowed;

	if (limits_read(&l) < 0)
		return -EIO;
	allowed = l.mem_avail_kib * KIB / ROOM_DIVISOR;
	if (bytes <= allowed)
		return 0;
	fprintf(stderr, "%s: %s: %s needs %llu MiB, more than half of MemAvailable (%llu MiB)\n",
		PROG, mode, what, (unsigned long long)(bytes / MIB),
		(unsigned long long)(l.mem_avail_kib / 1024));
	return -ERANGE;
}

int
check_maps(const char *mode, uint64_t maps, const char *what)
{
	struct limits l;
	uint64_t allowed;

	if (limits_read(&l) < 0)
		return -EIO;
	allowed = room(l.max_map_count, l.maps_now) * 9 / 10;
	if (maps <= allowed)
		return 0;
	fprintf(stderr, "%s: %s: %s need %llu memory mappings; vm.max_map_count %llu leaves %llu\n",
		PROG, mode, what, (unsigned long long)maps, (unsigned long long)l.max_map_count,
		(unsigned long long)allowed);
	return -ERANGE;
}

/* Virtual reservations: RLIMIT_AS, and the commit limit when overcommit is strict. */
int
check_virtual(const char *mode, uint64_t bytes, const char *what)
{
	struct limits l;

	if (limits_read(&l) < 0)
		return -EIO;
	if (l.as && bytes > l.as / ROOM_DIVISOR) {
		fprintf(stderr,
			"%s: %s: %s reserve %llu MiB of address space; RLIMIT_AS is %llu MiB\n",
			PROG, mode, what, (unsigned long long)(bytes / MIB),
			(unsigned long long)(l.as / MIB));
		return -ERANGE;
	}
	if (l.overcommit == 2 && bytes > l.commit_free_kib * KIB / ROOM_DIVISOR) {
		fprintf(stderr, "%s: %s: %s reserve %llu MiB; strict overcommit leaves %llu MiB\n",
			PROG, mode, what, (unsigned long long)(bytes / MIB),
			(unsigned long long)(l.commit_free_kib / 1024));
		return -ERANGE;
	}
	return 0;
}

/* How many more sleeping threads one process could hold with stacks of @stack bytes,
 * computed from the limits only; *binding names the limit that decides. */
uint64_t
thread_ceiling(const struct limits *l, uint64_t stack, const char **binding)
{
	uint64_t best = room(l->threads_max, l->tasks_now), c;

	*binding = "kernel.threads-max";
	c = room(l->pid_max, l->tasks_now);
	if (c < best) {
		best = c;
		*binding = "kernel.pid_max";
	}
	if (l->nproc && l->nproc_enforced && room(l->nproc, l->tasks_now) < best) {
		best = room(l->nproc, l->tasks_now);
		*binding = "ulimit -u";
	}
	c = room(l->max_map_count, l->maps_now) / 2; /* stack + guard page per thread */
	if (c < best) {
		best = c;
		*binding = "vm.max_map_count (2 mappings per thread)";
	}
	c = (l->as ? l->as : USER_VA_BYTES) / (stack + 4096);
	if (c < best) {
		best = c;
		*binding = l->as ? "ulimit -v" : "47-bit address space";
	}
	if (l->overcommit == 2 && l->commit_free_kib * KIB / stack < best) {
		best = l->commit_free_kib * KIB / stack;
		*binding = "strict overcommit (CommitLimit)";
	}
	c = l->mem_avail_kib * KIB / THREAD_RESIDENT_ESTIMATE;
	if (c < best) {
		best = c;
		*binding = "MemAvailable at ~40 KiB per sleeping thread (estimate)";
	}
	return best;
}
