/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs: measures on this host what threads and processes cost (creation, memory, switches,
 * sleeping wake-ups, printing, accepting connections) next to the figures of the seed articles,
 * to choose between the process and the thread build. Owns the command line and the mode table;
 * the experiments live in costs/. No EAL, no hugepages.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "parse.h"
#include "costs.h"
#include "version.h"

#define EXIT_FAIL        1
#define EXIT_USAGE       2
#define EXIT_INTERRUPTED 130

#define ALL_TIME_CAP_S       20 /* per mode in "all": six modes stay under two minutes */
#define BUSY_SAMPLE_MS       200
#define BUSY_SAMPLE_QUICK_MS 100

/* Every number of the command line: one bounded parser, one table. */
static const struct param {
	const char *name; /* long option and JSON key */
	int short_opt;
	uint64_t min;
	uint64_t max;
	const char *help;
} params[P_NPARAMS] = {
	[P_REPS] = {"reps", 'r', 1, 100000, "repetitions (sleepqps: measuring windows)"},
	[P_THREADS] = {"threads", 'n', 1, 4194304,
		       "threads or processes (memory, sleepqps, print)"},
	[P_MEM_MIB] = {"mem-mib", 'm', 4, 1048576, "create: largest memory touched before fork"},
	[P_STACK_KIB] = {"stack-kib", 's', 16, 1048576,
			 "the small thread stack (memory, sleepqps)"},
	[P_SLEEP_MS] = {"sleep-ms", 'S', 1, 1000, "sleepqps: each thread's sleep"},
	[P_DURATION_MS] = {"duration-ms", 'd', 100, 600000, "sleepqps: time measured"},
	[P_LINES] = {"lines", 'l', 1, 1000000, "print: lines per process or thread"},
	[P_CONNS] = {"conns", 'c', 1, 1000000, "accept: connections per design and repetition"},
	[P_CLIENTS] = {"clients", 'C', 1, 1024, "accept: concurrent client connections"},
	[P_POOL] = {"pool", 'P', 1, 1024, "accept: preforked processes, prethreaded threads"},
	[P_BULK] = {"bulk", 'b', 5, 100000, "create: back-to-back creations (seed 000: 100 000)"},
	[P_ROUND_TRIPS] = {"round-trips", 'k', 100, 2000000, "switch: round trips per repetition"},
	[P_TIME_CAP] = {"time-cap", 't', 1, 3600, "seconds a mode may run; it stops early"},
};

/* Defaults and --quick values per mode; 0 = the mode does not use the parameter. */
/* clang-format off */
static const struct mode {
	const char *name;
	int (*fn)(const struct opts *o);
	const char *title;
	uint64_t def[P_NPARAMS];
	uint64_t quick[P_NPARAMS];
} mode_table[] = {
	{"create", mode_create, "creating and reaping one task; fork against touched memory",
	 {[P_REPS] = 1000, [P_MEM_MIB] = 1024, [P_BULK] = 10000, [P_TIME_CAP] = 60},
	 {[P_REPS] = 50, [P_MEM_MIB] = 32, [P_BULK] = 200, [P_TIME_CAP] = 10}},
	{"memory", mode_memory, "what one sleeping thread costs in memory",
	 {[P_REPS] = 3, [P_THREADS] = 1000, [P_STACK_KIB] = 256, [P_TIME_CAP] = 60},
	 {[P_REPS] = 2, [P_THREADS] = 100, [P_STACK_KIB] = 256, [P_TIME_CAP] = 10}},
	{"switch", mode_switch, "pipe and cache-line ping-pong round trips, a user-space switch",
	 {[P_REPS] = 5, [P_ROUND_TRIPS] = 20000, [P_TIME_CAP] = 60},
	 {[P_REPS] = 2, [P_ROUND_TRIPS] = 2000, [P_TIME_CAP] = 10}},
	{"sleepqps", mode_sleepqps, "sleeping threads pinned to one CPU; the host's thread ceiling",
	 {[P_REPS] = 3, [P_THREADS] = 2000, [P_STACK_KIB] = 64, [P_SLEEP_MS] = 10,
	  [P_DURATION_MS] = 3000, [P_TIME_CAP] = 60},
	 {[P_REPS] = 2, [P_THREADS] = 300, [P_STACK_KIB] = 64, [P_SLEEP_MS] = 10,
	  [P_DURATION_MS] = 600, [P_TIME_CAP] = 10}},
	{"print", mode_print, "N processes against N threads printing M lines (seed 000)",
	 {[P_REPS] = 5, [P_THREADS] = 255, [P_LINES] = 1000, [P_TIME_CAP] = 60},
	 {[P_REPS] = 2, [P_THREADS] = 16, [P_LINES] = 100, [P_TIME_CAP] = 10}},
	{"accept", mode_accept, "Stevens' server designs over loopback with a built-in client",
	 {[P_REPS] = 3, [P_CONNS] = 2000, [P_CLIENTS] = 10, [P_POOL] = 15, [P_TIME_CAP] = 60},
	 {[P_REPS] = 2, [P_CONNS] = 100, [P_CLIENTS] = 4, [P_POOL] = 4, [P_TIME_CAP] = 10}},
};
/* clang-format on */

#define NMODES (sizeof(mode_table) / sizeof(mode_table[0]))

enum { OPT_SINK = 256 };

static void
usage(FILE *f)
{
	unsigned int i, p;

	fprintf(f,
		"Usage: %s [options] MODE\n"
		"Measures what threads and processes cost on this host, next to the figures\n"
		"of the seed articles (../shared/seeds). MODE is one of:\n",
		PROG);
	for (i = 0; i < NMODES; i++)
		fprintf(f, "  %-9s %s\n", mode_table[i].name, mode_table[i].title);
	fprintf(f,
		"  %-9s every mode with its defaults (each capped at %u s unless -t is given),\n"
		"            then the seeds' figures and the host's side by side\n",
		"all", ALL_TIME_CAP_S);
	fprintf(f, "options (defaults depend on the mode, see below):\n");
	for (p = 0; p < P_NPARAMS; p++)
		fprintf(f, "  -%c, --%-12s N  %s [%llu..%llu]\n", params[p].short_opt,
			params[p].name, params[p].help, (unsigned long long)params[p].min,
			(unsigned long long)params[p].max);
	fprintf(f, "      --sink file|null  print: where stdout goes (default: a temporary file)\n"
		   "  -q, --quick           tiny sizes for every mode (CI)\n"
		   "  -j, --json            one JSON object on stdout instead of tables\n"
		   "  -h, --help            this text\n"
		   "defaults (quick) per mode:\n");
	for (i = 0; i < NMODES; i++) {
		fprintf(f, "  %-9s", mode_table[i].name);
		for (p = 0; p < P_NPARAMS; p++)
			if (mode_table[i].def[p])
				fprintf(f, " %s=%llu(%llu)", params[p].name,
					(unsigned long long)mode_table[i].def[p],
					(unsigned long long)mode_table[i].quick[p]);
		fprintf(f, "\n");
	}
	fprintf(f, "Every request is checked against pid_max, threads-max, ulimit -u,\n"
		   "max_map_count and MemAvailable first. SIGINT/SIGTERM stops, kills and reaps\n"
		   "everything started, removes temporary files and exits 130.\n");
}

static const struct mode *
mode_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < NMODES; i++)
		if (strcmp(mode_table[i].name, name) == 0)
			return &mode_table[i];
	return NULL;
}

static int
run_mode(const struct mode *m, const struct opts *user, const bool *set, bool all)
{
	const char *pnames[P_NPARAMS];
	uint64_t pvals[P_NPARAMS];
	unsigned int p, np = 0;
	struct opts o = *user;
	struct busy b;
	int rc;

	for (p = 0; p < P_NPARAMS; p++) {
		if (m->def[p] == 0)
			continue;
		o.v[p] = set[p] ? user->v[p] : user->quick ? m->quick[p] : m->def[p];
		if (p == P_TIME_CAP && all && !set[p] && o.v[p] > ALL_TIME_CAP_S)
			o.v[p] = ALL_TIME_CAP_S;
		pnames[np] = params[p].name;
		pvals[np++] = o.v[p];
	}
	report_set_mode(m->name);
	busy_begin();
	budget_start(o.v[P_TIME_CAP]);
	rc = m->fn(&o);
	busy_end(&b);
	report_mode_done(m->name, m->title, pnames, pvals, np, &b, rc);
	if (!o.json)
		report_human_mode(m->name);
	if (rc < 0 && rc != -EINTR)
		fprintf(stderr, "%s: %s: failed (%s)\n", PROG, m->name, strerror(-rc));
	return rc;
}

static void
sample_busy_before(bool quick)
{
	struct cpustat a, b;

	cpustat_read(-1, &a);
	usleep((quick ? BUSY_SAMPLE_QUICK_MS : BUSY_SAMPLE_MS) * 1000);
	cpustat_read(-1, &b);
	g_host.busy_before_pct = cpustat_busy_pct(&a, &b);
}

static double
load1_now(void)
{
	double v = 0;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f != NULL) {
		if (fscanf(f, "%lf", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

int
main(int argc, char **argv)
{
	static struct option longopts[P_NPARAMS + 5];
	char shortopts[3 * P_NPARAMS + 8];
	bool set[P_NPARAMS] = {false}, all, failed = false;
	const struct mode *only = NULL;
	struct opts o = {0};
	struct limits lim;
	unsigned int p, i, k = 0;
	int c, rc = 0;

	mpe_version_exit(argc, argv, "mpe-costs");
	for (p = 0; p < P_NPARAMS; p++) {
		longopts[p] = (struct option){params[p].name, required_argument, NULL,
					      params[p].short_opt};
		shortopts[k++] = (char)params[p].short_opt;
		shortopts[k++] = ':';
	}
	longopts[p++] = (struct option){"sink", required_argument, NULL, OPT_SINK};
	longopts[p++] = (struct option){"quick", no_argument, NULL, 'q'};
	longopts[p++] = (struct option){"json", no_argument, NULL, 'j'};
	longopts[p++] = (struct option){"help", no_argument, NULL, 'h'};
	longopts[p] = (struct option){NULL, 0, NULL, 0};
	memcpy(shortopts + k, "qjh", 4);

	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'q': o.quick = true; break;
		case 'j': o.json = true; break;
		case 'h': usage(stdout); return 0;
		case OPT_SINK:
			if (strcmp(optarg, "null") == 0) {
				o.sink_null = true;
			} else if (strcmp(optarg, "file") == 0) {
				o.sink_null = false;
			} else {
				fprintf(stderr, "%s: sink: '%s' is neither file nor null\n", PROG,
					optarg);
				return EXIT_USAGE;
			}
			break;
		case '?': fprintf(stderr, "%s: try --help\n", PROG); return EXIT_USAGE;
		default:
			for (p = 0; p < P_NPARAMS; p++)
				if (params[p].short_opt == c)
					break;
			if (p == P_NPARAMS ||
			    mpe_parse_uint_arg(PROG, params[p].name, optarg, params[p].min,
					       params[p].max, &o.v[p]) < 0)
				return EXIT_USAGE;
			set[p] = true;
			break;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr,
			"%s: exactly one MODE expected (create, memory, switch, sleepqps, "
			"print, accept, all); try --help\n",
			PROG);
		return EXIT_USAGE;
	}
	all = strcmp(argv[optind], "all") == 0;
	if (!all) {
		only = mode_find(argv[optind]);
		if (only == NULL) {
			fprintf(stderr, "%s: unknown mode '%s'; try --help\n", PROG, argv[optind]);
			return EXIT_USAGE;
		}
		for (p = 0; p < P_NPARAMS; p++) {
			if (set[p] && only->def[p] == 0) {
				fprintf(stderr, "%s: %s: --%s does not apply to this mode\n", PROG,
					only->name, params[p].name);
				return EXIT_USAGE;
			}
		}
	}

	if (signals_install() < 0 || host_read(&g_host) < 0 || limits_read(&lim) < 0)
		return EXIT_FAIL;
	sample_busy_before(o.quick);
	if (!o.json)
		report_human_host(&g_host, &lim);

	for (i = 0; i < NMODES && !stopping(); i++) {
		if (!all && &mode_table[i] != only)
			continue;
		rc = run_mode(&mode_table[i], &o, set, all);
		if (rc < 0 && rc != -EINTR)
			failed = true;
	}
	cleanup_all();
	g_host.load1_end = load1_now();
	if (all && !o.json && !stopping())
		report_human_summary();
	if (o.json)
		report_json(&g_host, &lim, o.quick, stopping());
	else
		printf("\n%s: load average %.2f before the start, %.2f at the end (the end counts "
		       "this tool's own threads); CPUs %.0f%% busy before the start%s\n",
		       PROG, g_host.load1_start, g_host.load1_end, g_host.busy_before_pct,
		       g_host.busy_before_pct > 20 ? ": figures may be inflated" : "");
	fflush(stdout);
	if (stopping()) {
		fprintf(stderr,
			"%s: interrupted by signal %d: everything started was stopped and "
			"reaped\n",
			PROG, (int)g_stop);
		return EXIT_INTERRUPTED;
	}
	return failed ? EXIT_FAIL : 0;
}
