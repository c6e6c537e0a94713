/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs internals shared by the experiments: options, the result rows every experiment
 * fills, host facts and limits, and the runner bookkeeping that makes every experiment
 * stoppable and leak-free. The main thread owns all of it; runners only write to a pipe.
 */
#ifndef MPE_COSTS_H
#define MPE_COSTS_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define PROG "mpe-costs"

#define KIB 1024ULL
#define MIB (1024ULL * 1024ULL)

/* Every size a user can set; one bounded parser reads them all (see the table in main). */
enum param_id {
	P_REPS,
	P_THREADS,
	P_MEM_MIB,
	P_STACK_KIB,
	P_SLEEP_MS,
	P_DURATION_MS,
	P_LINES,
	P_CONNS,
	P_CLIENTS,
	P_POOL,
	P_BULK,
	P_ROUND_TRIPS,
	P_TIME_CAP,
	P_NPARAMS
};

struct opts {
	uint64_t v[P_NPARAMS]; /* effective values for the running mode */
	bool quick;
	bool json;
	bool sink_null; /* print mode: /dev/null instead of a temporary file */
};

/* A figure published in one of the seed articles (../shared/seeds). */
struct seed_ref {
	const char *file;   /* e.g. "003_f3cbb7b5cab8ffa3.txt" */
	const char *tag;    /* "seed 003" */
	const char *figure; /* as published, e.g. "42.6 µs" */
	double value;       /* the same figure in the row's unit; 0 when qualitative */
	const char *context;
};

struct summary {
	unsigned int n;
	double median;
	double p99;
	double min;
	double max;
	double mean;
};

#define ROW_KEY_LEN  48
#define ROW_WHAT_LEN 96
#define ROW_NOTE_LEN 224

struct row {
	const char *mode;
	char key[ROW_KEY_LEN];
	char what[ROW_WHAT_LEN];
	const char *unit;
	bool measured;
	bool headline; /* also shown in the side-by-side table of "all" */
	struct summary s;
	char note[ROW_NOTE_LEN];
	const struct seed_ref *seed;
};

/* Host description, read once at start. */
struct host {
	long cpus_online;
	int cpus_allowed;
	int cpu_ids[CPU_SETSIZE];
	char kernel[192];
	char machine[32];
	char model[128];
	char thp[64];    /* the selected word of transparent_hugepage/enabled, or "absent" */
	bool thp_usable; /* "always" or "madvise" */
	double load1_start;
	double load1_end;
	double busy_before_pct; /* all CPUs, sampled just before the first experiment */
};

/* Kernel and user limits; 0 in a rlimit field means unlimited. */
struct limits {
	uint64_t pid_max;
	uint64_t threads_max;
	uint64_t max_map_count;
	uint64_t nproc;      /* RLIMIT_NPROC soft, 0 = unlimited */
	bool nproc_enforced; /* not for root (CAP_SYS_RESOURCE/ADMIN) */
	uint64_t stack;      /* RLIMIT_STACK soft, bytes, 0 = unlimited */
	uint64_t as;         /* RLIMIT_AS soft, bytes, 0 = unlimited */
	uint64_t tasks_now;  /* scheduling entities on the host (/proc/loadavg) */
	uint64_t maps_now;   /* mappings of this process */
	uint64_t mem_total_kib;
	uint64_t mem_avail_kib;
	uint64_t overcommit; /* vm.overcommit_memory */
	uint64_t commit_free_kib;
};

/* CPU time of the host (jiffies) for busy shares. */
struct cpustat {
	uint64_t busy;
	uint64_t total;
	uint64_t irq; /* irq + softirq */
};

/* Busy share while one mode ran: whole host, this tool (with reaped children), the rest. */
struct busy {
	double wall_s;
	double total_pct;
	double self_pct;
	double others_pct;
};

/* report.c */
uint64_t now_ns(void);
void summarize(const double *v, unsigned int n, struct summary *s);
void report_set_mode(const char *mode);
struct row *row_add(const char *key, const char *what, const char *unit,
		    const struct seed_ref *seed);
void row_set(struct row *r, const double *v, unsigned int n);
void row_value(struct row *r, double v);
void row_skip(struct row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void row_note(struct row *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct row *row_find(const char *mode, const char *key);
void report_mode_done(const char *mode, const char *title, const char *const *pnames,
		      const uint64_t *pvals, unsigned int np, const struct busy *b, int status);
void report_human_mode(const char *mode);
void report_human_summary(void);
void report_human_host(const struct host *h, const struct limits *l);
void report_json(const struct host *h, const struct limits *l, bool quick, bool interrupted);

/* host.c */
int host_read(struct host *h);
int limits_read(struct limits *l);
int cpustat_read(int cpu, struct cpustat *st);
double cpustat_busy_pct(const struct cpustat *a, const struct cpustat *b);
double self_cpu_s(void);
int status_kib(const char *key, uint64_t *kib);
int meminfo_kib(const char *key, uint64_t *kib);
int smaps_rollup_kib(const char *key, uint64_t *kib);
void busy_begin(void);
void busy_end(struct busy *b);
int check_tasks(const char *mode, uint64_t tasks, const char *what);
int check_memory(const char *mode, uint64_t bytes, const char *what);
int check_maps(const char *mode, uint64_t maps, const char *what);
int check_virtual(const char *mode, uint64_t bytes, const char *what);
uint64_t thread_ceiling(const struct limits *l, uint64_t stack, const char **binding);
extern struct host g_host;

/* run.c */
extern volatile sig_atomic_t g_stop;
int signals_install(void);
bool stopping(void);
void budget_start(uint64_t seconds);
bool budget_over(void);
typedef int (*runner_fn)(void *arg, int wfd);
pid_t runner_start(runner_fn fn, void *arg, int *rfd);
int runner_finish(pid_t pid, int rfd, void *buf, size_t len, unsigned int timeout_ms);
void runner_kill(pid_t pid, int rfd);
void child_setup(void);
int wait_child(pid_t pid);
int write_full(int fd, const void *buf, size_t len);
int read_full(int fd, void *buf, size_t len);
int pin_self(int cpu);
const char *tmpdir_get(void);
void cleanup_all(void);

/* the experiments; each returns 0, -EINTR when stopped, or -errno after printing why */
int mode_create(const struct opts *o);
int mode_memory(const struct opts *o);
int mode_switch(const struct opts *o);
int mode_sleepqps(const struct opts *o);
int mode_print(const struct opts *o);
int mode_accept(const struct opts *o);

#endif
