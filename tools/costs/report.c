/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs results: the row table every experiment fills, the statistics over repetitions,
 * and both renderings (human tables, one JSON object). Main thread only.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "costs.h"

#define MAX_ROWS        160
#define MAX_MODES       8
#define MAX_MODE_PARAMS P_NPARAMS

struct mode_rec {
	const char *name;
	const char *title;
	const char *pnames[MAX_MODE_PARAMS];
	uint64_t pvals[MAX_MODE_PARAMS];
	unsigned int np;
	struct busy busy;
	int status;
};

static struct row rows[MAX_ROWS];
static unsigned int nrows;
static struct mode_rec modes[MAX_MODES];
static unsigned int nmodes;
static const char *cur_mode = "none";

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, nearest-rank p99, min, max and mean of n samples (n may be 0). */
void
summarize(const double *v, unsigned int n, struct summary *s)
{
	double *c, sum = 0;
	unsigned int i, rank;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return;
	c = malloc(n * sizeof(*c));
	if (c == NULL) {
		s->n = 0;
		return;
	}
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	for (i = 0; i < n; i++)
		sum += c[i];
	s->n = n;
	s->min = c[0];
	s->max = c[n - 1];
	s->mean = sum / n;
	s->median = (n % 2) ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
	rank = (unsigned int)ceil(0.99 * n);
	s->p99 = c[rank > 0 ? rank - 1 : 0];
	free(c);
}

void
report_set_mode(const char *mode)
{
	cur_mode = mode;
}

struct row *
row_add(const char *key, const char *what, const char *unit, const struct seed_ref *seed)
{
	static struct row spare; /* absorbs rows past the table; never reported */
	struct row *r;

	if (nrows == MAX_ROWS) {
		fprintf(stderr, "%s: too many result rows, %s dropped\n", PROG, key);
		memset(&spare, 0, sizeof(spare));
		return &spare;
	}
	r = &rows[nrows++];
	memset(r, 0, sizeof(*r));
	r->mode = cur_mode;
	snprintf(r->key, sizeof(r->key), "%s", key);
	snprintf(r->what, sizeof(r->what), "%s", what);
	r->unit = unit;
	r->seed = seed;
	return r;
}

void
row_set(struct row *r, const double *v, unsigned int n)
{
	summarize(v, n, &r->s);
	r->measured = n > 0;
	if (n == 0 && r->note[0] == '\0')
		snprintf(r->note, sizeof(r->note), "no repetition completed");
}

void
row_value(struct row *r, double v)
{
	row_set(r, &v, 1);
}

void
row_skip(struct row *r, const char *fmt, ...)
{
	va_list ap;

	r->measured = false;
	memset(&r->s, 0, sizeof(r->s));
	va_start(ap, fmt);
	vsnprintf(r->note, sizeof(r->note), fmt, ap);
	va_end(ap);
}

void
row_note(struct row *r, const char *fmt, ...)
{
	size_t len = strlen(r->note);
	va_list ap;

	if (len > 0 && len + 2 < sizeof(r->note)) {
		strcat(r->note, "; ");
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(r->note + len, sizeof(r->note) - len, fmt, ap);
	va_end(ap);
}

const struct row *
row_find(const char *mode, const char *key)
{
	unsigned int i;

	for (i = 0; i < nrows; i++)
		if (strcmp(rows[i].mode, mode) == 0 && strcmp(rows[i].key, key) == 0)
			return &rows[i];
	return NULL;
}

void
report_mode_done(const char *mode, const char *title, const char *const *pnames,
		 const uint64_t *pvals, unsigned int np, const struct busy *b, int status)
{
	struct mode_rec *m;
	unsigned int i;

	if (nmodes == MAX_MODES)
		return;
	m = &modes[nmodes++];
	m->name = mode;
	m->title = title;
	for (i = 0; i < np && i < MAX_MODE_PARAMS; i++) {
		m->pnames[i] = pnames[i];
		m->pvals[i] = pvals[i];
	}
	m->np = i;
	m->busy = *b;
	m->status = status;
}

/* ---- human rendering ---- */

static const char *
unit_human(const char *unit)
{
	if (strcmp(unit, "us") == 0)
		return "µs";
	return unit;
}

/* Width-stable number: four significant figures or so, never exponent notation. */
static const char *
num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (!isfinite(v))
		snprintf(buf, len, "-");
	else if (a >= 1000)
		snprintf(buf, len, "%.0f", v);
	else if (a >= 100)
		snprintf(buf, len, "%.1f", v);
	else if (a >= 1)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
	return buf;
}

static void
seed_text(char *buf, size_t len, const struct seed_ref *s)
{
	if (s == NULL)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s: %s", s->tag, s->figure);
}

static void
print_seed_legend(const char *mode)
{
	const char *files[8];
	unsigned int nf = 0, i, j;

	for (i = 0; i < nrows; i++) {
		const struct seed_ref *s = rows[i].seed;

		if (s == NULL || (mode != NULL && strcmp(rows[i].mode, mode) != 0))
			continue;
		for (j = 0; j < nf; j++)
			if (strcmp(files[j], s->file) == 0)
				break;
		if (j == nf && nf < 8)
			files[nf++] = s->file;
	}
	for (j = 0; j < nf; j++)
		printf("  seed %.3s = ../shared/seeds/%s\n", files[j], files[j]);
}

/* printf's %-*s counts bytes; labels hold UTF-8 (µ, ÷), so pad by code points. */
static void
put_padded(const char *s, int width)
{
	const unsigned char *p;
	int n = 0;

	for (p = (const unsigned char *)s; *p != '\0'; p++)
		n += (*p & 0xc0) != 0x80;
	fputs(s, stdout);
	for (; n < width; n++)
		putchar(' ');
}

#define WHAT_WIDTH 50

static void
print_row_human(const struct row *r, bool with_mode)
{
	char a[32], b[32], c[32], d[32], seed[160];

	seed_text(seed, sizeof(seed), r->seed);
	if (with_mode)
		printf("  %-8s ", r->mode);
	else
		printf("  ");
	put_padded(r->what, WHAT_WIDTH);
	if (!r->measured)
		printf(" %10s %10s %10s %10s  ", "n/a", "", "", "");
	else if (r->s.n == 1)
		printf(" %10s %10s %10s %10s  ", num(a, sizeof(a), r->s.median), "", "", "");
	else
		printf(" %10s %10s %10s %10s  ", num(a, sizeof(a), r->s.median),
		       num(b, sizeof(b), r->s.p99), num(c, sizeof(c), r->s.min),
		       num(d, sizeof(d), r->s.max));
	put_padded(unit_human(r->unit), 8);
	printf("%s\n", seed);
	if (r->note[0] != '\0')
		printf("  %s    note: %s\n", with_mode ? "         " : "", r->note);
	if (r->seed != NULL && r->seed->context != NULL && !with_mode)
		printf("    (%s: %s)\n", r->seed->tag, r->seed->context);
}

static void
print_header(bool with_mode)
{
	printf("  ");
	if (with_mode)
		printf("%-8s ", "mode");
	put_padded("what", WHAT_WIDTH);
	printf(" %10s %10s %10s %10s  %-8s%s\n", "median", "p99", "min", "max", "unit",
	       "seed figure");
}

void
report_human_mode(const char *mode)
{
	const struct mode_rec *m = NULL;
	unsigned int i;

	for (i = 0; i < nmodes; i++)
		if (strcmp(modes[i].name, mode) == 0)
			m = &modes[i];
	if (m == NULL)
		return;
	printf("\n== %s: %s ==\n", m->name, m->title);
	printf("  parameters:");
	for (i = 0; i < m->np; i++)
		printf(" %s=%llu", m->pnames[i], (unsigned long long)m->pvals[i]);
	printf("\n  CPUs busy during the mode: %.0f%% (this tool %.0f%%, others %.0f%%) over %.1f "
	       "s\n",
	       m->busy.total_pct, m->busy.self_pct, m->busy.others_pct, m->busy.wall_s);
	print_header(false);
	for (i = 0; i < nrows; i++)
		if (strcmp(rows[i].mode, mode) == 0)
			print_row_human(&rows[i], false);
	print_seed_legend(mode);
	fflush(stdout);
}

void
report_human_summary(void)
{
	unsigned int i;

	printf("\n== all: the seeds' figures next to this host's (median; n/a = not measured) "
	       "==\n");
	print_header(true);
	for (i = 0; i < nrows; i++)
		if (rows[i].headline)
			print_row_human(&rows[i], true);
	print_seed_legend(NULL);
	fflush(stdout);
}

void
report_human_host(const struct host *h, const struct limits *l)
{
	printf("%s: host: %ld CPUs online (%d usable here), %s, Linux %s %s\n", PROG,
	       h->cpus_online, h->cpus_allowed, h->model, h->kernel, h->machine);
	printf("%s: busy before start: load average %.2f, CPUs %.0f%% busy; THP: %s\n", PROG,
	       h->load1_start, h->busy_before_pct, h->thp);
	printf("%s: limits: pid_max %llu, threads-max %llu, max_map_count %llu, ulimit -u ", PROG,
	       (unsigned long long)l->pid_max, (unsigned long long)l->threads_max,
	       (unsigned long long)l->max_map_count);
	if (l->nproc)
		printf("%llu", (unsigned long long)l->nproc);
	else
		printf("unlimited");
	printf("%s, ulimit -s %llu KiB, %llu tasks now, MemAvailable %llu MiB\n",
	       l->nproc_enforced ? "" : " (not enforced for root)",
	       (unsigned long long)(l->stack / KIB), (unsigned long long)l->tasks_now,
	       (unsigned long long)(l->mem_avail_kib / 1024));
	fflush(stdout);
}

/* ---- JSON rendering ---- */

void
json_str(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void
json_num(double v)
{
	if (isfinite(v))
		printf("%.10g", v);
	else
		printf("null");
}

static void
json_kv_str(const char *k, const char *v, bool comma)
{
	json_str(k);
	putchar(':');
	json_str(v);
	if (comma)
		putchar(',');
}

static void
json_kv_num(const char *k, double v, bool comma)
{
	json_str(k);
	putchar(':');
	json_num(v);
	if (comma)
		putchar(',');
}

static void
json_kv_u64(const char *k, uint64_t v, bool comma)
{
	json_str(k);
	printf(":%llu%s", (unsigned long long)v, comma ? "," : "");
}

static void
json_row(const struct row *r)
{
	putchar('{');
	json_kv_str("key", r->key, true);
	json_kv_str("what", r->what, true);
	json_kv_str("unit", r->unit, true);
	printf("\"measured\":%s,\"headline\":%s,", r->measured ? "true" : "false",
	       r->headline ? "true" : "false");
	json_kv_u64("n", r->s.n, true);
	if (r->measured) {
		json_kv_num("median", r->s.median, true);
		json_kv_num("p99", r->s.p99, true);
		json_kv_num("min", r->s.min, true);
		json_kv_num("max", r->s.max, true);
		json_kv_num("mean", r->s.mean, true);
	} else {
		printf("\"median\":null,\"p99\":null,\"min\":null,\"max\":null,\"mean\":null,");
	}
	json_kv_str("note", r->note, true);
	json_str("seed");
	putchar(':');
	if (r->seed == NULL) {
		printf("null");
	} else {
		putchar('{');
		json_kv_str("tag", r->seed->tag, true);
		json_kv_str("file", r->seed->file, true);
		json_kv_str("figure", r->seed->figure, true);
		json_kv_num("value", r->seed->value, true);
		json_kv_str("context", r->seed->context ? r->seed->context : "", false);
		putchar('}');
	}
	putchar('}');
}

void
report_json(const struct host *h, const struct limits *l, bool quick, bool interrupted)
{
	unsigned int i, j;
	bool first;

	putchar('{');
	json_kv_str("tool", PROG, true);
	printf("\"quick\":%s,\"interrupted\":%s,", quick ? "true" : "false",
	       interrupted ? "true" : "false");
	printf("\"host\":{");
	json_kv_u64("cpus_online", (uint64_t)h->cpus_online, true);
	json_kv_u64("cpus_usable", (uint64_t)h->cpus_allowed, true);
	json_kv_str("cpu_model", h->model, true);
	json_kv_str("kernel", h->kernel, true);
	json_kv_str("machine", h->machine, true);
	json_kv_str("thp", h->thp, true);
	json_kv_num("load1_start", h->load1_start, true);
	json_kv_num("load1_end", h->load1_end, true);
	json_kv_num("busy_before_pct", h->busy_before_pct, false);
	printf("},\"limits\":{");
	json_kv_u64("pid_max", l->pid_max, true);
	json_kv_u64("threads_max", l->threads_max, true);
	json_kv_u64("max_map_count", l->max_map_count, true);
	json_kv_u64("rlimit_nproc", l->nproc, true);
	printf("\"rlimit_nproc_enforced\":%s,", l->nproc_enforced ? "true" : "false");
	json_kv_u64("rlimit_stack", l->stack, true);
	json_kv_u64("tasks_now", l->tasks_now, true);
	json_kv_u64("mem_total_kib", l->mem_total_kib, true);
	json_kv_u64("mem_available_kib", l->mem_avail_kib, false);
	printf("},\"modes\":{");
	for (i = 0; i < nmodes; i++) {
		const struct mode_rec *m = &modes[i];

		if (i > 0)
			putchar(',');
		json_str(m->name);
		printf(":{");
		json_kv_str("title", m->title, true);
		json_kv_str("status",
			    m->status == 0        ? "ok"
			    : m->status == -EINTR ? "interrupted"
						  : "failed",
			    true);
		printf("\"params\":{");
		for (j = 0; j < m->np; j++)
			json_kv_u64(m->pnames[j], m->pvals[j], j + 1 < m->np);
		printf("},\"busy\":{");
		json_kv_num("wall_s", m->busy.wall_s, true);
		json_kv_num("total_pct", m->busy.total_pct, true);
		json_kv_num("self_pct", m->busy.self_pct, true);
		json_kv_num("others_pct", m->busy.others_pct, false);
		printf("},\"rows\":[");
		first = true;
		for (j = 0; j < nrows; j++) {
			if (strcmp(rows[j].mode, m->name) != 0)
				continue;
			if (!first)
				putchar(',');
			first = false;
			json_row(&rows[j]);
		}
		printf("]}");
	}
	printf("},\"summary\":[");
	first = true;
	for (i = 0; i < nrows; i++) {
		if (!rows[i].headline)
			continue;
		if (!first)
			putchar(',');
		first = false;
		printf("{");
		json_kv_str("mode", rows[i].mode, true);
		json_kv_str("key", rows[i].key, false);
		printf("}");
	}
	printf("]}\n");
	fflush(stdout);
}
