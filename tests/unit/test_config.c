/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/config/ (config.c, config_check.c): every key, section and
 * cross-check of the INI configuration.
 * Each case is INI text written to a temporary file, loaded with the messages captured, and
 * compared with the expected result: success with the parsed fields, or the number of errors
 * and substrings of the messages ("file:line: key: reason"). No EAL: rte_cfgfile needs none.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_config.h>

#include "config.h"
#include "stage.h"
#include "test.h"

/* ---- loading text ---- */

struct loaded {
	char path[200];
	int rc;
	char *err; /* everything printed to the error stream */
	size_t err_len;
};

static void
make_temp_path(char *path, size_t size, int *fd)
{
	const char *dir = getenv("TMPDIR");

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	snprintf(path, size, "%s/mpe_test_config_XXXXXX.ini", dir);
	*fd = mkstemps(path, 4);
	if (*fd < 0) {
		perror("mkstemps");
		exit(2);
	}
}

/* Load @text (NULL: a file that does not exist) into @conf. */
static void
load_text(const char *text, struct mpe_conf *conf, struct loaded *l)
{
	FILE *mem;
	int fd;

	make_temp_path(l->path, sizeof(l->path), &fd);
	if (text != NULL) {
		test_write_all(fd, text, strlen(text));
	} else {
		unlink(l->path);
	}
	close(fd);
	l->err = NULL;
	l->err_len = 0;
	mem = open_memstream(&l->err, &l->err_len);
	if (mem == NULL) {
		perror("open_memstream");
		exit(2);
	}
	l->rc = mpe_config_load(l->path, conf, mem);
	fclose(mem);
	if (text != NULL)
		unlink(l->path);
}


static unsigned int
count_lines(const char *s)
{
	unsigned int n = 0;

	for (; *s != '\0'; s++)
		n += *s == '\n';
	return n;
}

#define MAX_EXPECT 12

/* The common verdict: @errors errors (0: success), each printed on its own line that names
 * the file, and every @expect substring (with '@' for the path) present. */
static void
check_result(const struct loaded *l, int errors, const char *const *expect)
{
	const char *out = l->err != NULL ? l->err : "";
	size_t plen = strlen(l->path);
	const char *line;
	unsigned int i;

	CHECK(l->rc == -errors, "returned %d, expected %d; messages:\n%s", l->rc, -errors, out);
	CHECK(count_lines(out) == (unsigned int)errors, "%u message lines, expected %d:\n%s",
	      count_lines(out), errors, out);
	for (line = out; *line != '\0'; line = strchr(line, '\n') + 1) {
		CHECK(strncmp(line, l->path, plen) == 0 && line[plen] == ':',
		      "message does not start with the file name: %.*s",
		      (int)strcspn(line, "\n"), line);
		if (strchr(line, '\n') == NULL)
			break;
	}
	for (i = 0; i < MAX_EXPECT && expect[i] != NULL; i++) {
		char want[512];

		test_expand(expect[i], '@', l->path, want, sizeof(want));
		CHECK(strstr(out, want) != NULL, "missing \"%s\" in:\n%s", want, out);
	}
}

static int
stage_idx(const char *name)
{
	return mpe_stage_find(name, strlen(name));
}

/* ---- every numeric, switch and enum key: generated cases ---- */

enum where { IN_ENGINE, IN_PORT, IN_WORKER };
enum kind { K_UINT, K_POW2, K_BOOL, K_SHAPE };

struct key_row {
	enum where where;
	const char *key;
	enum kind kind;
	uint64_t min, max;
	int min_ok, max_ok; /* the bound itself passes the cross-checks (with @context) */
	size_t off, size;   /* the field, in struct mpe_conf (port 0, worker 0) */
	const char *good;   /* one more value inside the bounds, */
	uint64_t good_v;    /* and what it must store */
	const char *context; /* [engine] lines that make the bounds fit the cross-checks */
};

#define ENG_F(f) offsetof(struct mpe_conf, f), sizeof(((struct mpe_conf *)0)->f)
#define PORT_F(f)                                                                           \
	offsetof(struct mpe_conf, ports) + offsetof(struct mpe_port_conf, f),               \
		sizeof(((struct mpe_port_conf *)0)->f)
#define WRK_F(f)                                                                            \
	offsetof(struct mpe_conf, workers) + offsetof(struct mpe_worker_conf, f),           \
		sizeof(((struct mpe_worker_conf *)0)->f)

#define FEW_BUFFERS "ring_size = 64\nmbuf_cache = 0\nrx_desc = 32\ntx_desc = 32\n"
#define MANY_MBUFS "mbufs = 200000\n"

static const struct key_row key_rows[] = {
	{IN_ENGINE, "burst", K_UINT, 1, MPE_MAX_BURST, 1, 1, ENG_F(burst), "64", 64, ""},
	{IN_ENGINE, "ring_size", K_POW2, 64, 65536, 1, 1, ENG_F(ring_size), "0x800", 2048,
	 MANY_MBUFS},
	{IN_ENGINE, "mbufs", K_UINT, 1023, 4194303, 1, 1, ENG_F(mbufs), "8191", 8191, FEW_BUFFERS},
	{IN_ENGINE, "mbuf_cache", K_UINT, 0, RTE_MEMPOOL_CACHE_MAX_SIZE, 1, 1, ENG_F(mbuf_cache),
	 "100", 100, ""},
	{IN_ENGINE, "mbuf_data", K_UINT, 256, 65535 - RTE_PKTMBUF_HEADROOM, 1, 1, ENG_F(mbuf_data),
	 "9000", 9000, ""},
	{IN_ENGINE, "rx_desc", K_UINT, 32, 32768, 1, 1, ENG_F(rx_desc), "512", 512, MANY_MBUFS},
	{IN_ENGINE, "tx_desc", K_UINT, 32, 32768, 1, 1, ENG_F(tx_desc), "4096", 4096, MANY_MBUFS},
	{IN_ENGINE, "io_lcore", K_UINT, 1, RTE_MAX_LCORE - 1, 1, 1, ENG_F(io_lcore), "5", 5, ""},
	{IN_ENGINE, "ready_timeout_ms", K_UINT, 100, 600000, 1, 1, ENG_F(ready_timeout_ms), "2500",
	 2500, ""},
	{IN_ENGINE, "drain_timeout_ms", K_UINT, 0, 600000, 1, 1, ENG_F(drain_timeout_ms), "010",
	 10, ""},
	{IN_ENGINE, "backpressure", K_BOOL, 0, 1, 1, 1, ENG_F(backpressure), NULL, 0, ""},
	{IN_ENGINE, "shape", K_SHAPE, 0, 2, 1, 1, ENG_F(shape), NULL, 0, ""},
	/* peer 15 is in bounds but names an unconfigured port */
	{IN_PORT, "peer", K_UINT, 0, MPE_MAX_PORTS - 1, 1, 0, PORT_F(peer), "0x0", 0, ""},
	{IN_PORT, "rx_queues", K_UINT, 1, MPE_MAX_QUEUES, 1, 1, PORT_F(rx_queues), "4", 4,
	 MANY_MBUFS},
	/* a second port receives, so that rx = off on port 0 leaves the engine a receiver */
	{IN_PORT, "rx", K_BOOL, 0, 1, 1, 1, PORT_F(rx), NULL, 0, "[port 1]\ndevice = net_null1\n"},
	/* io_lcore moved away so that lcore 1 is free */
	{IN_WORKER, "lcore", K_UINT, 1, RTE_MAX_LCORE - 1, 1, 1, WRK_F(lcore), "3", 3,
	 "io_lcore = 60\n"},
	{IN_WORKER, "cpu", K_UINT, 0, CPU_SETSIZE - 1, 1, 1, WRK_F(cpu), "7", 7, ""},
	/* a queue of its own: shape rss; 16 queues of 1024 descriptors need the mbufs */
	{IN_WORKER, "queue", K_UINT, 0, MPE_MAX_QUEUES - 1, 1, 1, WRK_F(queue), "5", 5,
	 "shape = rss\n" MANY_MBUFS},
};

static const char *const where_name[] = {"engine", "port 0", "worker 0"};

/* The key is always on line 2. */
static void
row_text(const struct key_row *r, const char *value, char *buf, size_t size)
{
	switch (r->where) {
	case IN_ENGINE:
		snprintf(buf, size,
			 "[engine]\n%s = %s\n%s"
			 "[port 0]\ndevice = net_null0\n[worker 0]\nlcore = 2\n",
			 r->key, value, r->context);
		break;
	case IN_PORT:
		snprintf(buf, size,
			 "[port 0]\n%s = %s\ndevice = net_null0\n"
			 "[worker 0]\nlcore = 2\n[engine]\n%s",
			 r->key, value, r->context);
		break;
	case IN_WORKER:
		snprintf(buf, size,
			 "[worker 0]\n%s = %s\n%s"
			 "[port 0]\ndevice = net_null0\n[engine]\n%s",
			 r->key, value, strcmp(r->key, "lcore") == 0 ? "" : "lcore = 2\n",
			 r->context);
		break;
	}
}

static uint64_t
field_value(const struct mpe_conf *c, const struct key_row *r)
{
	const uint8_t *p = (const uint8_t *)c + r->off;

	switch (r->size) {
	case 1: return *p;
	case 2: return *(const uint16_t *)(const void *)p;
	case 4: return *(const uint32_t *)(const void *)p;
	default: return *(const uint64_t *)(const void *)p;
	}
}

static void
row_accepts(const struct key_row *r, const char *value, uint64_t expect)
{
	static struct mpe_conf conf;
	static const char *const none[] = {NULL};
	struct loaded l;
	char text[1024];

	test_begin("[%s] %s = %s is stored as %" PRIu64, where_name[r->where], r->key, value,
		   expect);
	row_text(r, value, text, sizeof(text));
	load_text(text, &conf, &l);
	check_result(&l, 0, none);
	if (l.rc == 0)
		CHECK(field_value(&conf, r) == expect, "stored %" PRIu64 ", expected %" PRIu64,
		      field_value(&conf, r), expect);
	free(l.err);
	test_end();
}

static void
row_rejects(const struct key_row *r, const char *value, const char *why, const char *reason)
{
	static struct mpe_conf conf;
	const char *expect[2] = {NULL, NULL};
	char want[512];
	struct loaded l;
	char text[1024];

	test_begin("[%s] %s = '%s' refused: %s", where_name[r->where], r->key, value, why);
	row_text(r, value, text, sizeof(text));
	snprintf(want, sizeof(want), "@:2: %s: %s", r->key, reason);
	expect[0] = want;
	load_text(text, &conf, &l);
	check_result(&l, 1, expect);
	free(l.err);
	test_end();
}

static void
run_key_rows(void)
{
	static const char *const not_numbers[] = {"abc", "-1", "1.5", "0x", "12abc", "+5", "1 2"};
	static const struct {
		const char *s;
		uint64_t v;
	} bools[] = {{"on", 1},	   {"yes", 1}, {"true", 1}, {"1", 1},	   {"ON", 1},
		     {"off", 0},   {"no", 0},  {"false", 0}, {"0", 0},	   {"No", 0}};
	static const char *const not_bools[] = {"2", "maybe", "-1", "onoff", "enable"};
	static const char *const shapes[] = {"pipeline", "distributor", "rss"};
	static const char *const not_shapes[] = {"ring", "pipe", "rss2", "0"};
	size_t i, j;

	for (i = 0; i < TEST_DIM(key_rows); i++) {
		const struct key_row *r = &key_rows[i];
		char v[64], reason[256];

		switch (r->kind) {
		case K_BOOL:
			for (j = 0; j < TEST_DIM(bools); j++)
				row_accepts(r, bools[j].s, bools[j].v);
			for (j = 0; j < TEST_DIM(not_bools); j++) {
				snprintf(reason, sizeof(reason),
					 "'%s' is not on/off, yes/no, true/false or 1/0",
					 not_bools[j]);
				row_rejects(r, not_bools[j], "not a switch", reason);
			}
			continue;
		case K_SHAPE:
			for (j = 0; j < TEST_DIM(shapes); j++)
				row_accepts(r, shapes[j], j);
			for (j = 0; j < TEST_DIM(not_shapes); j++) {
				snprintf(reason, sizeof(reason),
					 "'%s' is not one of pipeline, distributor, rss",
					 not_shapes[j]);
				row_rejects(r, not_shapes[j], "not a shape", reason);
			}
			continue;
		case K_UINT:
		case K_POW2:
			break;
		}
		row_accepts(r, r->good, r->good_v);
		if (r->min_ok) {
			snprintf(v, sizeof(v), "%" PRIu64, r->min);
			row_accepts(r, v, r->min);
		}
		if (r->max_ok) {
			snprintf(v, sizeof(v), "%" PRIu64, r->max);
			row_accepts(r, v, r->max);
			snprintf(v, sizeof(v), "0x%" PRIx64, r->max);
			row_accepts(r, v, r->max);
		}
		for (j = 0; j < TEST_DIM(not_numbers); j++) {
			snprintf(reason, sizeof(reason), "'%s' is not a whole number",
				 not_numbers[j]);
			row_rejects(r, not_numbers[j], "not a whole number", reason);
		}
		if (r->min > 0) {
			snprintf(v, sizeof(v), "%" PRIu64, r->min - 1);
			snprintf(reason, sizeof(reason),
				 "'%s' out of range: must be between %" PRIu64 " and %" PRIu64, v,
				 r->min, r->max);
			row_rejects(r, v, "below the minimum", reason);
		}
		snprintf(v, sizeof(v), "%" PRIu64, r->max + 1);
		snprintf(reason, sizeof(reason),
			 "'%s' out of range: must be between %" PRIu64 " and %" PRIu64, v, r->min,
			 r->max);
		row_rejects(r, v, "above the maximum", reason);
		snprintf(v, sizeof(v), "0x%" PRIx64, r->max + 1);
		snprintf(reason, sizeof(reason),
			 "'%s' out of range: must be between %" PRIu64 " and %" PRIu64, v, r->min,
			 r->max);
		row_rejects(r, v, "above the maximum, in hex", reason);
		snprintf(reason, sizeof(reason),
			 "'99999999999999999999999' out of range: must be between %" PRIu64
			 " and %" PRIu64, r->min, r->max);
		row_rejects(r, "99999999999999999999999", "overflows 64 bits", reason);
	}
}

/* ---- hand-written cases ---- */

struct cfg_case {
	const char *name;
	const char *ini; /* NULL: the file does not exist */
	int errors;	 /* 0: must load */
	const char *expect[MAX_EXPECT]; /* substrings of the messages; '@' is the file name */
	void (*check)(const struct mpe_conf *c);
};

#define P0 "[port 0]\ndevice = net_null0\n"
#define P1 "[port 1]\ndevice = net_null1\n"
#define W0 "[worker 0]\nlcore = 2\n"
#define S10 "0123456789"
#define S50 S10 S10 S10 S10 S10
#define NAME63 "d" S50 S10 "12"
#define NAME64 "d" S50 S10 "123"
#define VALUE256 S50 S50 S50 S50 S50 "123456"
#define LINE600 "; " S50 S50 S50 S50 S50 S50 S50 S50 S50 S50 S50 S50
#define COMMENT400 "; " S50 S50 S50 S50 S50 S50 S50 S50

static void
check_minimal(const struct mpe_conf *c)
{
	CHECK(c->nb_ports == 1 && c->nb_workers == 1, "%u ports, %u workers", c->nb_ports,
	      c->nb_workers);
	CHECK(strcmp(c->ports[0].device, "net_null0") == 0, "device '%s'", c->ports[0].device);
	CHECK(c->ports[0].peer == 0, "a lone port peers with itself, got peer %u",
	      c->ports[0].peer);
	CHECK(c->ports[0].rx_queues == 1, "rx_queues %u", c->ports[0].rx_queues);
	CHECK(c->ports[0].rx == 1, "rx %u", c->ports[0].rx);
	CHECK(c->ports[0].has_dst_mac == 0, "has_dst_mac %u", c->ports[0].has_dst_mac);
	CHECK(c->ports[0].line == 1, "port line %d", c->ports[0].line);
	CHECK(c->workers[0].lcore == 2, "lcore %u", c->workers[0].lcore);
	CHECK(c->workers[0].cpu == MPE_CPU_ANY, "cpu %u", c->workers[0].cpu);
	CHECK(c->workers[0].nb_stages == 1 && c->workers[0].stages[0] == stage_idx("fwd"),
	      "default stages: %u, first %u", c->workers[0].nb_stages, c->workers[0].stages[0]);
	CHECK(c->workers[0].line == 3, "worker line %d", c->workers[0].line);
	CHECK(c->shape == MPE_SHAPE_PIPELINE, "shape %u", c->shape);
	CHECK(c->burst == MPE_DEF_BURST && c->ring_size == MPE_DEF_RING_SIZE &&
		      c->mbufs == MPE_DEF_MBUFS && c->mbuf_cache == MPE_DEF_MBUF_CACHE &&
		      c->mbuf_data == MPE_DEF_MBUF_DATA && c->rx_desc == MPE_DEF_RX_DESC &&
		      c->tx_desc == MPE_DEF_TX_DESC && c->io_lcore == MPE_DEF_IO_LCORE &&
		      c->backpressure == 0 && c->ready_timeout_ms == MPE_DEF_READY_TIMEOUT_MS &&
		      c->drain_timeout_ms == MPE_DEF_DRAIN_TIMEOUT_MS,
	      "engine defaults not applied");
}

static void
check_two_ports(const struct mpe_conf *c)
{
	CHECK(c->nb_ports == 2, "%u ports", c->nb_ports);
	CHECK(c->ports[0].peer == 1 && c->ports[1].peer == 0, "peers %u %u", c->ports[0].peer,
	      c->ports[1].peer);
}

static void
check_three_ports(const struct mpe_conf *c)
{
	CHECK(c->nb_ports == 3, "%u ports", c->nb_ports);
	CHECK(c->ports[0].peer == 1 && c->ports[1].peer == 0 && c->ports[2].peer == 2,
	      "peers %u %u %u", c->ports[0].peer, c->ports[1].peer, c->ports[2].peer);
}

static void
check_explicit_peer(const struct mpe_conf *c)
{
	CHECK(c->ports[0].peer == 0 && c->ports[1].peer == 0, "peers %u %u", c->ports[0].peer,
	      c->ports[1].peer);
}

static void
check_pipeline3(const struct mpe_conf *c)
{
	int fwd = stage_idx("fwd"), fh = stage_idx("flowhash");

	CHECK(fwd >= 0 && fh >= 0, "stages fwd and flowhash must exist");
	CHECK(c->shape == MPE_SHAPE_PIPELINE && c->nb_workers == 3, "shape %u, %u workers",
	      c->shape, c->nb_workers);
	CHECK(c->workers[0].nb_stages == 1 && c->workers[0].stages[0] == fh, "worker 0 stages");
	CHECK(c->workers[1].nb_stages == 2 && c->workers[1].stages[0] == fh &&
		      c->workers[1].stages[1] == fwd,
	      "worker 1 stages");
	CHECK(c->workers[2].nb_stages == 1 && c->workers[2].stages[0] == fwd, "worker 2 stages");
	CHECK(c->workers[0].lcore == 2 && c->workers[1].lcore == 3 && c->workers[2].lcore == 4,
	      "lcores");
	CHECK(c->ports[0].rx_queues == 1 && c->ports[1].rx_queues == 1, "rx_queues");
}

static void
check_distributor(const struct mpe_conf *c)
{
	CHECK(c->shape == MPE_SHAPE_DISTRIBUTOR && c->nb_workers == 2, "shape %u, %u workers",
	      c->shape, c->nb_workers);
	CHECK(c->workers[0].nb_stages == 2 && c->workers[1].nb_stages == 2, "stages");
	CHECK(c->ports[0].rx_queues == 1, "rx_queues %u", c->ports[0].rx_queues);
}

static void
check_rss4(const struct mpe_conf *c)
{
	CHECK(c->shape == MPE_SHAPE_RSS && c->nb_workers == 4, "shape %u, %u workers", c->shape,
	      c->nb_workers);
	CHECK(c->ports[0].rx_queues == 4 && c->ports[1].rx_queues == 4,
	      "rss rx_queues default to the worker count: %u %u", c->ports[0].rx_queues,
	      c->ports[1].rx_queues);
}

/* Workers on queues 3 and 6: the ports get 7 of each kind; queues 0-2, 4 and 5 idle. */
static void
check_rss_queues36(const struct mpe_conf *c)
{
	unsigned int i;

	CHECK(c->workers[0].queue == 3 && c->workers[1].queue == 6, "worker queues %u %u",
	      c->workers[0].queue, c->workers[1].queue);
	for (i = 0; i < 2; i++) {
		CHECK(c->ports[i].rx_queues == 7, "port %u: rx_queues %u, not 7", i,
		      c->ports[i].rx_queues);
		CHECK(mpe_config_port_txq(c, i) == 7, "port %u: %u tx queues, not 7", i,
		      mpe_config_port_txq(c, i));
	}
}

/* rss without queue keys: each worker owns the queue of its id. */
static void
check_rss_queue_ids(const struct mpe_conf *c)
{
	CHECK(c->workers[0].queue == 0 && c->workers[1].queue == 1 && c->workers[2].queue == 2 &&
		      c->workers[3].queue == 3,
	      "queues %u %u %u %u", c->workers[0].queue, c->workers[1].queue,
	      c->workers[2].queue, c->workers[3].queue);
	CHECK(mpe_config_port_txq(c, 0) == 4, "%u tx queues", mpe_config_port_txq(c, 0));
}

/* rss, one worker on queue 0 of 2: the other queue is left to the RSS table's care */
static void
check_rss_spare_queue(const struct mpe_conf *c)
{
	CHECK(c->ports[0].rx_queues == 2 && c->workers[0].queue == 0 &&
		      mpe_config_port_txq(c, 0) == 1,
	      "rx_queues %u, queue %u, tx queues %u", c->ports[0].rx_queues, c->workers[0].queue,
	      mpe_config_port_txq(c, 0));
}

/* distributor, tx = workers on queues 2 and 0: port 1 transmits on 3 queues; receiving
 * stays the I/O lcore's one queue */
static void
check_dist_tx_queues(const struct mpe_conf *c)
{
	CHECK(c->workers[0].queue == 2 && c->workers[1].queue == 0, "queues %u %u",
	      c->workers[0].queue, c->workers[1].queue);
	CHECK(mpe_config_port_txq(c, 1) == 3 && c->ports[0].rx_queues == 1,
	      "tx queues %u, rx_queues %u", mpe_config_port_txq(c, 1), c->ports[0].rx_queues);
}

/* pipeline, tx = workers: only the last worker owns a queue (1 unless given) */
static void
check_pipe_tx_queue(const struct mpe_conf *c)
{
	CHECK(c->workers[0].queue == MPE_QUEUE_AUTO && c->workers[1].queue == 4 &&
		      mpe_config_port_txq(c, 1) == 5,
	      "queues %u %u, tx queues %u", c->workers[0].queue, c->workers[1].queue,
	      mpe_config_port_txq(c, 1));
}

static void
check_rss2_explicit(const struct mpe_conf *c)
{
	CHECK(c->ports[0].rx_queues == 2, "rx_queues %u", c->ports[0].rx_queues);
}

static void
check_burst64(const struct mpe_conf *c)
{
	CHECK(c->burst == 64, "burst %u", c->burst);
	CHECK(strcmp(c->ports[0].device, "net_null0") == 0, "device '%s'", c->ports[0].device);
}

static void
check_every_key(const struct mpe_conf *c)
{
	static const uint8_t mac[6] = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
	int fwd = stage_idx("fwd"), fh = stage_idx("flowhash");

	CHECK(c->shape == MPE_SHAPE_DISTRIBUTOR, "shape %u", c->shape);
	CHECK(c->burst == 64, "burst %u", c->burst);
	CHECK(c->ring_size == 2048, "ring_size %u", c->ring_size);
	CHECK(c->mbufs == 65535, "mbufs %u", c->mbufs);
	CHECK(c->mbuf_cache == 128, "mbuf_cache %u", c->mbuf_cache);
	CHECK(c->mbuf_data == 4096, "mbuf_data %u", c->mbuf_data);
	CHECK(c->rx_desc == 512, "rx_desc %u", c->rx_desc);
	CHECK(c->tx_desc == 256, "tx_desc %u", c->tx_desc);
	CHECK(c->io_lcore == 9, "io_lcore %u", c->io_lcore);
	CHECK(c->backpressure == 1, "backpressure %u", c->backpressure);
	CHECK(c->ready_timeout_ms == 5000, "ready_timeout_ms %u", c->ready_timeout_ms);
	CHECK(c->drain_timeout_ms == 0, "drain_timeout_ms %u", c->drain_timeout_ms);
	CHECK(c->nb_ports == 2 && c->nb_workers == 2, "%u ports %u workers", c->nb_ports,
	      c->nb_workers);
	CHECK(strcmp(c->ports[0].device, "net_ring0") == 0, "device '%s'", c->ports[0].device);
	CHECK(c->ports[0].peer == 1 && c->ports[0].rx_queues == 2 && c->ports[0].rx == 1,
	      "port 0: peer %u rx_queues %u rx %u", c->ports[0].peer, c->ports[0].rx_queues,
	      c->ports[0].rx);
	CHECK(c->ports[0].has_dst_mac == 1 && memcmp(c->ports[0].dst_mac, mac, 6) == 0,
	      "port 0 dst_mac");
	CHECK(c->ports[0].line == 14 && c->ports[1].line == 20, "port lines %d %d",
	      c->ports[0].line, c->ports[1].line);
	CHECK(strcmp(c->ports[1].device, "0000:01:00.0") == 0, "device '%s'", c->ports[1].device);
	CHECK(c->ports[1].peer == 0 && c->ports[1].rx_queues == 1 && c->ports[1].rx == 0 &&
		      c->ports[1].has_dst_mac == 0,
	      "port 1: peer %u rx_queues %u rx %u", c->ports[1].peer, c->ports[1].rx_queues,
	      c->ports[1].rx);
	CHECK(c->workers[0].lcore == 3 && c->workers[0].cpu == 12, "worker 0: lcore %u cpu %u",
	      c->workers[0].lcore, c->workers[0].cpu);
	CHECK(c->workers[1].lcore == 4 && c->workers[1].cpu == MPE_CPU_ANY,
	      "worker 1: lcore %u cpu %u", c->workers[1].lcore, c->workers[1].cpu);
	CHECK(c->workers[0].nb_stages == 2 && c->workers[0].stages[0] == fh &&
		      c->workers[0].stages[1] == fwd,
	      "worker 0 stages");
	CHECK(c->workers[0].line == 24 && c->workers[1].line == 28, "worker lines %d %d",
	      c->workers[0].line, c->workers[1].line);
}

#define EVERY_KEY                                                                           \
	"[engine]\n"                 /*  1 */                                                   \
	"shape = distributor\n"      /*  2 */                                                   \
	"burst = 64\n"               /*  3 */                                                   \
	"ring_size = 2048\n"         /*  4 */                                                   \
	"mbufs = 65535\n"            /*  5 */                                                   \
	"mbuf_cache = 128\n"         /*  6 */                                                   \
	"mbuf_data = 4096\n"         /*  7 */                                                   \
	"rx_desc = 512\n"            /*  8 */                                                   \
	"tx_desc = 256\n"            /*  9 */                                                   \
	"io_lcore = 9\n"             /* 10 */                                                   \
	"backpressure = yes\n"       /* 11 */                                                   \
	"ready_timeout_ms = 5000\n"  /* 12 */                                                   \
	"drain_timeout_ms = 0\n"     /* 13 */                                                   \
	"[port 0]\n"                 /* 14 */                                                   \
	"device = net_ring0\n"       /* 15 */                                                   \
	"peer = 1\n"                 /* 16 */                                                   \
	"rx_queues = 2\n"            /* 17 */                                                   \
	"rx = on\n"                  /* 18 */                                                   \
	"dst_mac = 02:AA:bb:cc:dd:EE\n" /* 19 */                                                \
	"[port 1]\n"                 /* 20 */                                                   \
	"device = 0000:01:00.0\n"    /* 21 */                                                   \
	"peer = 0\n"                 /* 22 */                                                   \
	"rx = off\n"                 /* 23 */                                                   \
	"[worker 0]\n"               /* 24 */                                                   \
	"lcore = 3\n"                /* 25 */                                                   \
	"cpu = 12\n"                 /* 26 */                                                   \
	"stages = flowhash, fwd\n"   /* 27 */                                                   \
	"[worker 1]\n"               /* 28 */                                                   \
	"lcore = 4\n"                /* 29 */                                                   \
	"stages = flowhash,fwd\n"    /* 30 */

static void
check_malformed_pass(const struct mpe_conf *c)
{
	CHECK(c->malformed_pass == 1, "malformed_pass %u", c->malformed_pass);
}

static void
check_pools_port(const struct mpe_conf *c)
{
	CHECK(c->pools_per_port == 1, "pools_per_port %u", c->pools_per_port);
}

static void
check_pools_socket(const struct mpe_conf *c)
{
	CHECK(c->pools_per_port == 0, "pools_per_port %u", c->pools_per_port);
}

static void
check_malformed_drop(const struct mpe_conf *c)
{
	CHECK(c->malformed_pass == 0, "malformed_pass %u", c->malformed_pass);
}

static void
check_mac_lower(const struct mpe_conf *c)
{
	static const uint8_t mac[6] = {0x02, 0, 0, 0, 0, 0x01};

	CHECK(c->ports[0].has_dst_mac && memcmp(c->ports[0].dst_mac, mac, 6) == 0, "dst_mac");
}

static void
check_device63(const struct mpe_conf *c)
{
	CHECK(strcmp(c->ports[0].device, NAME63) == 0, "device '%s'", c->ports[0].device);
}

static void
check_eight_stages(const struct mpe_conf *c)
{
	CHECK(c->workers[0].nb_stages == MPE_MAX_STAGES, "%u stages", c->workers[0].nb_stages);
}

static void
check_net_pcap_pipeline(const struct mpe_conf *c)
{
	CHECK(strcmp(c->ports[0].device, "net_pcap0") == 0, "device '%s'", c->ports[0].device);
}

static void
check_mbufs_5056(const struct mpe_conf *c)
{
	CHECK(c->mbufs == 5056, "mbufs %u", c->mbufs);
}

/* sandbox: on by default (line 0: not given); off where the file says, with its line */
static void
check_sandbox_default(const struct mpe_conf *c)
{
	CHECK(c->sandbox == 1 && c->sandbox_line == 0, "sandbox %u, line %d", c->sandbox,
	      c->sandbox_line);
}

static void
check_sandbox_off(const struct mpe_conf *c)
{
	CHECK(c->sandbox == 0 && c->sandbox_line == 2, "sandbox %u, line %d", c->sandbox,
	      c->sandbox_line);
}

/* [io N]: no rx given: the ports' queues dealt out in turn, a port each here */
static void
check_io_dealt(const struct mpe_conf *c)
{
	CHECK(c->nb_io == 2 && c->io_lcore == 1 && c->io[0].lcore == 1 && c->io[1].lcore == 5,
	      "nb_io %u, io_lcore %u, lcores %u %u", c->nb_io, c->io_lcore, c->io[0].lcore,
	      c->io[1].lcore);
	CHECK(c->io[0].rxq[0] == 1 && c->io[0].rxq[1] == 0 && c->io[1].rxq[0] == 0 &&
	      c->io[1].rxq[1] == 1, "rxq %#x %#x / %#x %#x", c->io[0].rxq[0], c->io[0].rxq[1],
	      c->io[1].rxq[0], c->io[1].rxq[1]);
	CHECK(c->io[0].tx == 1 && c->io[1].tx == 1, "tx %u %u", c->io[0].tx, c->io[1].tx);
}

/* [io N]: one receives both queues of port 0 (PORT: every queue), the other transmits */
static void
check_io_split(const struct mpe_conf *c)
{
	CHECK(c->nb_io == 2 && c->io[0].rxq[0] == 3 && c->io[1].rxq[0] == 0, "nb_io %u, rxq %#x %#x",
	      c->nb_io, c->io[0].rxq[0], c->io[1].rxq[0]);
	CHECK(c->io[0].tx == 0 && c->io[1].tx == 1, "tx %u %u", c->io[0].tx, c->io[1].tx);
}

/* [io N]: a pipeline's one transmitting I/O lcore is the one that says so */
static void
check_io_pipeline_lanes(const struct mpe_conf *c)
{
	CHECK(c->io[0].tx == 1 && c->io[1].tx == 1 && c->io[0].rxq[0] == 1 && c->io[1].rxq[1] == 1 &&
	      mpe_config_pipe_lanes(c) == 2 && mpe_config_nb_rings(c) == 2 + 2 + 2 * 1,
	      "tx %u %u, rxq %#x %#x, %u lanes, %u rings", c->io[0].tx, c->io[1].tx,
	      c->io[0].rxq[0], c->io[1].rxq[1], mpe_config_pipe_lanes(c), mpe_config_nb_rings(c));
}

/* [io N]: a pipeline whose I/O lcores all receive and one transmits: one lane */
static void
check_io_pipeline_tx1(const struct mpe_conf *c)
{
	CHECK(c->io[0].tx == 0 && c->io[1].tx == 1 && mpe_config_pipe_lanes(c) == 1,
	      "tx %u %u, %u lanes", c->io[0].tx, c->io[1].tx, mpe_config_pipe_lanes(c));
}

/* [io N]: queues named one by one, across two ports */
static void
check_io_pairs(const struct mpe_conf *c)
{
	CHECK(c->io[0].rxq[0] == 1 && c->io[0].rxq[1] == 2 && c->io[1].rxq[0] == 2 &&
	      c->io[1].rxq[1] == 1, "rxq %#x %#x / %#x %#x", c->io[0].rxq[0], c->io[0].rxq[1],
	      c->io[1].rxq[0], c->io[1].rxq[1]);
}

#define W(n, l) "[worker " #n "]\nlcore = " #l "\n"

static const struct cfg_case cases[] = {
	/* ---- configurations that load ---- */
	{"minimal: one port peers with itself, defaults everywhere", P0 W0, 0, {NULL},
	 check_minimal},
	{"two ports: peer defaults to i^1", P0 P1 W0, 0, {NULL}, check_two_ports},
	{"three ports: port 2 has no i^1 and peers with itself", P0 P1
	 "[port 2]\ndevice = net_null2\n" W0, 0, {NULL}, check_three_ports},
	{"explicit peer overrides the default", "[port 0]\ndevice = net_null0\npeer = 0\n" P1 W0,
	 0, {NULL}, check_explicit_peer},
	{"pipeline of three workers with different stages",
	 "[engine]\nshape = pipeline\n" P0 P1
	 "[worker 0]\nlcore = 2\nstages = flowhash\n"
	 "[worker 1]\nlcore = 3\nstages = flowhash, fwd\n"
	 "[worker 2]\nlcore = 4\nstages = fwd\n",
	 0, {NULL}, check_pipeline3},
	{"distributor of two identical workers",
	 "[engine]\nshape = distributor\n" P0 P1
	 "[worker 0]\nlcore = 2\nstages = flowhash,fwd\n"
	 "[worker 1]\nlcore = 3\nstages = flowhash,fwd\n",
	 0, {NULL}, check_distributor},
	{"distributor: default stages equal an explicit 'fwd'",
	 "[engine]\nshape = distributor\n" P0 W0 "[worker 1]\nlcore = 3\nstages = fwd\n", 0,
	 {NULL}, NULL},
	{"rss: rx_queues default to the number of workers",
	 "[engine]\nshape = rss\nmbufs = 32767\n" P0 P1 W(0, 2) W(1, 3) W(2, 4) W(3, 5), 0, {NULL},
	 check_rss4},
	{"rss: rx_queues equal to the number of workers",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_null0\nrx_queues = 2\n" W(0, 2) W(1, 3),
	 0, {NULL}, check_rss2_explicit},
	{"rss: workers on queues 3 and 6 of ports with 7 queues",
	 "[engine]\nshape = rss\nmbufs = 65535\n" P0 P1 W(0, 2) "queue = 3\n" W(1, 3)
	 "queue = 6\n", 0, {NULL}, check_rss_queues36},
	{"rss: each worker owns the queue of its id unless told",
	 "[engine]\nshape = rss\nmbufs = 32767\n" P0 W(0, 2) W(1, 3) W(2, 4) W(3, 5), 0, {NULL},
	 check_rss_queue_ids},
	{"rss: a queue no worker polls",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_null0\nrx_queues = 2\n" W0, 0, {NULL},
	 check_rss_spare_queue},
	{"distributor with tx = workers: the workers' transmit queues",
	 "[engine]\nshape = distributor\ntx = workers\n" P0 P1 W(0, 2) "queue = 2\n" W(1, 3)
	 "queue = 0\n", 0, {NULL}, check_dist_tx_queues},
	{"pipeline with tx = workers: the last worker's transmit queue",
	 "[engine]\ntx = workers\nmbufs = 32767\n" P0 P1 W(0, 2) W(1, 3) "queue = 4\n", 0, {NULL},
	 check_pipe_tx_queue},
	{"every key of every section is stored", EVERY_KEY, 0, {NULL}, check_every_key},
	{"sandbox: on by default", P0 W0, 0, {NULL}, check_sandbox_default},
	{"sandbox = off is stored with its line", "[engine]\nsandbox = off\n" P0 W0, 0, {NULL},
	 check_sandbox_off},
	{"sandbox: not on/off", "[engine]\nsandbox = maybe\n" P0 W0, 1,
	 {"@:2: sandbox: 'maybe' is not on/off"}, NULL},
	{"the test-only stage is never listed among the known ones",
	 P0 "[worker 0]\nlcore = 2\nstages = nosuch\n", 1,
	 {"(known: fwd, flowhash, parse, flow, acl, burn)"}, NULL},
	{"';' comments, blank lines, indentation and spaces around '=' are ignored",
	 "; engine settings\n\n[engine]\n   burst   =   64   ; per burst\n\n"
	 "[ port 0 ]\n\tdevice=net_null0\n" W0 "; end\n",
	 0, {NULL}, check_burst64},
	{"CRLF line endings", "[engine]\r\nburst = 64\r\n[port 0]\r\ndevice = net_null0\r\n"
	 "[worker 0]\r\nlcore = 2\r\n", 0, {NULL}, check_burst64},
	{"dst_mac is stored", "[port 0]\ndevice = net_null0\ndst_mac = 02:00:00:00:00:01\n" W0, 0,
	 {NULL}, check_mac_lower},
	{"device of 63 characters is accepted", "[port 0]\ndevice = " NAME63 "\n" W0, 0, {NULL},
	 check_device63},
	{"8 stages are accepted",
	 P0 "[worker 0]\nlcore = 2\nstages = fwd,fwd,fwd,fwd,fwd,fwd,fwd,fwd\n", 0, {NULL},
	 check_eight_stages},
	{"net_pcap device is fine outside rss", "[engine]\nshape = pipeline\n"
	 "[port 0]\ndevice = net_pcap0\n" W0, 0, {NULL}, check_net_pcap_pipeline},
	{"net_pcap device is fine with distributor", "[engine]\nshape = distributor\n"
	 "[port 0]\ndevice = net_pcap0\n" W0, 0, {NULL}, check_net_pcap_pipeline},
	{"mbufs exactly enough for a pipeline (5056)", "[engine]\nmbufs = 5056\n" P0 W0, 0, {NULL},
	 check_mbufs_5056},
	{"a comment line of 400 characters is refused (rte_cfgfile cannot read it)",
	 COMMENT400 "\n" P0 W0, 1, {"@:1: line longer than 320 characters"}, NULL},

	/* ---- the text pass: syntax ---- */
	{"'#' comment", "# hello\n" P0 W0, 1, {"@:1: comments start with ';'"}, NULL},
	{"line without '='", "[engine]\nburst\n" P0 W0, 1,
	 {"@:2: expected 'key = value' or '[section]'"}, NULL},
	{"key outside of any section", "burst = 32\n" P0 W0, 1,
	 {"@:1: burst: key outside of any section"}, NULL},
	{"section header without ']'", "[engine\n" P0 W0, 1,
	 {"@:1: section header must be '[name]' alone on its line"}, NULL},
	{"section header with text after ']'", P0 "[engine] burst = 1\n" W0, 1,
	 {"@:3: section header must be '[name]' alone on its line"}, NULL},
	{"empty section name", P0 W0 "[ ]\n", 1, {"@:5: section name empty or longer than 63"},
	 NULL},
	{"section name of 64 characters", P0 W0 "[" NAME64 "]\n", 1,
	 {"@:5: section name empty or longer than 63"}, NULL},
	{"empty key", "[engine]\n = 5\n" P0 W0, 1, {"@:2: key empty or longer than 63"}, NULL},
	{"value of 256 characters", "[port 0]\ndevice = " VALUE256 "\n" W0, 1,
	 {"@:2: device: value longer than 255"}, NULL},
	{"line longer than 320 characters, and lines after it still counted",
	 LINE600 "\n" P0 "# x\n" W0, 2,
	 {"@:1: line longer than 320 characters", "@:4: comments start with ';'"}, NULL},
	{"repeated key", "[engine]\nburst = 1\nburst = 2\n" P0 W0, 1,
	 {"@:3: burst: repeated in [engine] (first at line 2)"}, NULL},
	{"repeated section", "[engine]\n[engine]\n" P0 W0, 1,
	 {"@:2: [engine]: section repeated (first at line 1)"}, NULL},
	{"repeated port section and its key", P0 P0 W0, 2,
	 {"@:3: [port 0]: section repeated (first at line 1)",
	  "@:4: device: repeated in [port 0] (first at line 2)"}, NULL},
	{"port section repeated under another spelling ([port 0], [port 00])",
	 P0 "[port 00]\ndevice = net_null1\n" W0, 1, {"@:3: [port 00]: write it as [port 0]"},
	 NULL},
	{"syntax errors are all reported",
	 "# one\nstray = 1\n[engine\n[engine]\nburst\nburst = 1\nburst = 2\n" P0 W0, 5,
	 {"@:1: comments start with ';'", "@:2: stray: key outside of any section",
	  "@:3: section header must be '[name]' alone on its line",
	  "@:5: expected 'key = value' or '[section]'",
	  "@:7: burst: repeated in [engine] (first at line 6)"}, NULL},

	/* ---- sections ---- */
	{"unknown section [foo] (its keys not reported again)", "[foo]\nx = 1\n" P0 W0, 1,
	 {"@:1: [foo]: unknown section (known: [engine], [port N], [worker N], [io N])"}, NULL},
	{"section names are case sensitive ([Engine])", "[Engine]\n" P0 W0, 1,
	 {"@:1: [Engine]: unknown section"}, NULL},
	{"[port] without a number", P0 W0 "[port]\n", 1, {"@:5: [port]: unknown section"}, NULL},
	{"[port x]", P0 W0 "[port x]\n", 1,
	 {"@:5: [port x]: port number must be between 0 and 15"}, NULL},
	{"[port 99]", P0 W0 "[port 99]\ndevice = net_null9\n", 1,
	 {"@:5: [port 99]: port number must be between 0 and 15"}, NULL},
	{"[port 16]", P0 W0 "[port 16]\ndevice = net_null9\n", 1,
	 {"@:5: [port 16]: port number must be between 0 and 15"}, NULL},
	{"[port -1]", P0 W0 "[port -1]\n", 1,
	 {"@:5: [port -1]: port number must be between 0 and 15"}, NULL},
	{"[worker 40]", P0 W0 "[worker 40]\nlcore = 9\n", 1,
	 {"@:5: [worker 40]: worker number must be between 0 and 31"}, NULL},
	{"[worker 32]", P0 W0 "[worker 32]\nlcore = 9\n", 1,
	 {"@:5: [worker 32]: worker number must be between 0 and 31"}, NULL},
	{"gap in port numbering", P0 "[port 2]\ndevice = net_null2\n" W0, 1,
	 {"@:3: [port 2]: ports are numbered from 0 without gaps"}, NULL},
	{"gap in worker numbering", P0 W0 "[worker 2]\nlcore = 4\n", 1,
	 {"@:5: [worker 2]: workers are numbered from 0 without gaps"}, NULL},
	{"no [port 0] but a [port 1]", P1 W0, 2,
	 {"@:1: [port 1]: ports are numbered from 0 without gaps",
	  "@: no [port 0] section: at least one port is needed"}, NULL},

	/* ---- keys ---- */
	{"unknown key in [engine]", "[engine]\nbursts = 3\n" P0 W0, 1,
	 {"@:2: bursts: unknown key in [engine]"}, NULL},
	{"unknown key in [port 0]", "[port 0]\ndevice = net_null0\nspeed = 10\n" W0, 1,
	 {"@:3: speed: unknown key in [port 0]"}, NULL},
	{"unknown key in [worker 0]", P0 "[worker 0]\nlcore = 2\ndevice = x\n", 1,
	 {"@:5: device: unknown key in [worker 0]"}, NULL},
	{"key of another section ([engine] lcore)", "[engine]\nlcore = 2\n" P0 W0, 1,
	 {"@:2: lcore: unknown key in [engine]"}, NULL},
	{"missing device", "[port 0]\nrx = on\n" W0, 1,
	 {"@:1: device: missing in [port 0] (ethdev name)"}, NULL},
	{"missing lcore", P0 "[worker 0]\nstages = fwd\n", 1,
	 {"@:3: lcore: missing in [worker 0] (lcore id of the worker)"}, NULL},
	{"device of 64 characters", "[port 0]\ndevice = " NAME64 "\n" W0, 1,
	 {"@:2: device: length must be between 1 and 63"}, NULL},
	{"empty number value (burst =)", "[engine]\nburst =\n" P0 W0, 1,
	 {"@:2: burst: ", "is not a whole number"}, NULL},
	{"empty device value (device =)", "[port 0]\ndevice =\n" W0, 1, {"@:2: device: "}, NULL},
	{"empty stages value (stages =)", P0 "[worker 0]\nlcore = 2\nstages =\n", 1,
	 {"@:5: stages: "}, NULL},
	{"sign after the hex prefix (burst = 0x+20)", "[engine]\nburst = 0x+20\n" P0 W0, 1,
	 {"@:2: burst: '0x+20' is not a whole number"}, NULL},
	{"malformed = pass is stored", "[engine]\nmalformed = pass\n" P0 W0, 0, {NULL},
	 check_malformed_pass},
	{"malformed defaults to drop", P0 W0, 0, {NULL}, check_malformed_drop},
	{"malformed neither drop nor pass", "[engine]\nmalformed = maybe\n" P0 W0, 1,
	 {"@:2: malformed: 'maybe' is not drop or pass"}, NULL},
	{"pools = port is stored", "[engine]\npools = port\n" P0 W0, 0, {NULL},
	 check_pools_port},
	{"pools defaults to socket", P0 W0, 0, {NULL}, check_pools_socket},
	{"pools neither socket nor port", "[engine]\npools = numa\n" P0 W0, 1,
	 {"@:2: pools: 'numa' is not socket or port"}, NULL},
	{"ring_size not a power of 2 (100)", "[engine]\nring_size = 100\n" P0 W0, 1,
	 {"@:2: ring_size: 100 is not a power of 2"}, NULL},
	{"ring_size not a power of 2 (0x41)", "[engine]\nring_size = 0x41\n" P0 W0, 1,
	 {"@:2: ring_size: 65 is not a power of 2"}, NULL},
	{"ring_size power of 2 above the maximum (131072)", "[engine]\nring_size = 131072\n" P0 W0,
	 1, {"@:2: ring_size: '131072' out of range: must be between 64 and 65536"}, NULL},
	{"dst_mac with five bytes", "[port 0]\ndevice = a\ndst_mac = 02:00:00:00:00\n" W0, 1,
	 {"@:3: dst_mac: '02:00:00:00:00' is not a MAC address like 02:00:00:00:00:01"}, NULL},
	{"dst_mac with seven bytes", "[port 0]\ndevice = a\ndst_mac = 02:00:00:00:00:01:02\n" W0,
	 1, {"@:3: dst_mac: '02:00:00:00:00:01:02' is not a MAC address"}, NULL},
	{"dst_mac with a non-hex digit", "[port 0]\ndevice = a\ndst_mac = 02:00:00:00:00:0g\n" W0,
	 1, {"@:3: dst_mac: '02:00:00:00:00:0g' is not a MAC address"}, NULL},
	{"dst_mac with dashes", "[port 0]\ndevice = a\ndst_mac = 02-00-00-00-00-01\n" W0, 1,
	 {"@:3: dst_mac: '02-00-00-00-00-01' is not a MAC address"}, NULL},
	{"dst_mac with three-digit byte", "[port 0]\ndevice = a\ndst_mac = 002:00:00:00:00:01\n" W0,
	 1, {"@:3: dst_mac: '002:00:00:00:00:01' is not a MAC address"}, NULL},
	{"dst_mac with signed bytes (-1:...)",
	 "[port 0]\ndevice = a\ndst_mac = -1:-1:-1:-1:-1:-1\n" W0, 1,
	 {"@:3: dst_mac: '-1:-1:-1:-1:-1:-1' is not a MAC address"}, NULL},
	{"unknown stage", P0 "[worker 0]\nlcore = 2\nstages = fwd, nosuch\n", 1,
	 {"@:5: stages: unknown stage 'nosuch' (known: fwd, flowhash"}, NULL},
	{"stage names are whole words ('fwdx', 'fw')",
	 P0 "[worker 0]\nlcore = 2\nstages = fwd,fwdx,fw\n", 2,
	 {"@:5: stages: unknown stage 'fwdx'", "@:5: stages: unknown stage 'fw'"}, NULL},
	{"empty stage list (only separators)",
	 P0 W0 "[worker 1]\nlcore = 3\nstages = , ,\n", 1,
	 {"@:7: stages: an empty item in the list ', ,'"}, NULL},
	{"a stage left out between commas",
	 P0 "[worker 0]\nlcore = 2\nstages = fwd,,fwd\n", 1,
	 {"@:5: stages: an empty item in the list 'fwd,,fwd'"}, NULL},
	{"a comma after the last stage",
	 P0 "[worker 0]\nlcore = 2\nstages = fwd ,\n", 1,
	 {"@:5: stages: an empty item in the list 'fwd ,'"}, NULL},
	{"no port receives",
	 "[port 0]\ndevice = net_null0\nrx = off\n[port 1]\ndevice = net_null1\nrx = off\n"
	 "[worker 0]\nlcore = 2\n", 1,
	 {"@:6: rx: off on every port: the engine would receive nothing"}, NULL},
	{"9 stages", P0 "[worker 0]\nlcore = 2\nstages = fwd,fwd,fwd,fwd,fwd,fwd,fwd,fwd,fwd\n", 1,
	 {"@:5: stages: more than 8 stages"}, NULL},

	/* ---- files ---- */
	{"missing file", NULL, 1, {"@: cannot open: No such file or directory"}, NULL},
	{"a UTF-8 byte order mark first", "\xef\xbb\xbf" P0 W0, 1,
	 {"@:1: the file begins with a UTF-8 byte order mark: save it without one"}, NULL},
	{"empty file", "", 2,
	 {"@: no [port 0] section: at least one port is needed",
	  "@: no [worker 0] section: at least one worker is needed"}, NULL},
	{"only comments and [engine]", "; nothing\n[engine]\n", 2,
	 {"@: no [port 0] section", "@: no [worker 0] section"}, NULL},
	{"no worker", P0, 1, {"@: no [worker 0] section: at least one worker is needed"}, NULL},

	/* ---- cross-checks ---- */
	{"peer refers to an unconfigured port", "[port 0]\ndevice = net_null0\npeer = 5\n" P1 W0, 1,
	 {"@:3: peer: port 5 is not configured (ports 0..1 exist)"}, NULL},
	{"peer refers to the port right after the last",
	 P0 "[port 1]\ndevice = b\npeer = 2\n" W0, 1,
	 {"@:5: peer: port 2 is not configured (ports 0..1 exist)"}, NULL},
	{"a header with two spaces is refused, not misread ([port  0])",
	 "[port  0]\ndevice = net_null0\npeer = 5\n" W0, 2,
	 {"@:1: [port  0]: write it as [port 0]", "no [port 0] section"}, NULL},
	{"duplicate device", P0 "[port 1]\ndevice = net_null0\n" W0, 1,
	 {"@:4: device: 'net_null0' already used by port 0"}, NULL},
	{"duplicate worker lcore", P0 W0 "[worker 1]\nlcore = 2\n", 1,
	 {"@:6: lcore: 2 already used by worker 0"}, NULL},
	{"worker lcore equal to io_lcore",
	 "[engine]\nio_lcore = 3\n" P0 "[worker 0]\nlcore = 3\n", 1,
	 {"@:6: lcore: 3 is the I/O lcore (engine io_lcore)"}, NULL},
	{"worker lcore equal to the default io_lcore", P0 "[worker 0]\nlcore = 1\n", 1,
	 {"@:4: lcore: 1 is the I/O lcore (engine io_lcore)"}, NULL},
	{"rss with net_pcap0 refused: secondaries cannot poll it",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_pcap0\n" W0, 1,
	 {"@:4: device: 'net_pcap0': shape rss", "secondary processes"}, NULL},
	{"rss with net_af_packet0 refused: secondaries cannot poll it",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_af_packet0,iface=lo\n" W0, 1,
	 {"@:4: device: 'net_af_packet0,iface=lo': shape rss", "secondary processes"}, NULL},
	{"rss with eth_pcap0 refused", "[engine]\nshape = rss\n[port 0]\ndevice = eth_pcap0\n" W0,
	 1, {"@:4: device: 'eth_pcap0'", "secondary processes"}, NULL},
	{"rss with rx_queues short of a worker's queue",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_null0\nrx_queues = 2\n" W0
	 "queue = 2\n", 1,
	 {"@:5: rx_queues: 2, but shape rss has a worker poll queue 2 of every port"}, NULL},
	{"rss with rx_queues short of the worker count",
	 "[engine]\nshape = rss\n[port 0]\ndevice = net_null0\nrx_queues = 1\n" W0 W(1, 3),
	 1, {"@:5: rx_queues: 1, but shape rss has a worker poll queue 1 of every port"}, NULL},
	{"two workers on one queue",
	 "[engine]\nshape = rss\n" P0 W(0, 2) "queue = 1\n" W(1, 3), 1,
	 {"@:8: queue: 1 already owned by worker 0"}, NULL},
	{"two workers given one queue",
	 "[engine]\nshape = rss\n" P0 W(0, 2) "queue = 5\n" W(1, 3) "queue = 5\n", 1,
	 {"@:10: queue: 5 already owned by worker 0"}, NULL},
	{"a queue for a distributor worker that does not transmit",
	 "[engine]\nshape = distributor\n" P0 W0 "queue = 1\n", 1,
	 {"@:7: queue: worker 0 owns no queue: only the workers of shape rss and workers that "
	  "transmit (tx = workers) have queues of their own"}, NULL},
	{"a queue for a pipeline's first worker", "[engine]\ntx = workers\n" P0 P1 W(0, 2)
	 "queue = 1\n" W(1, 3), 1, {"@:9: queue: worker 0 owns no queue"}, NULL},
	{"a queue above the highest", "[engine]\nshape = rss\n" P0 W0 "queue = 16\n", 1,
	 {"@:7: queue: '16' out of range: must be between 0 and 15"}, NULL},
	{"rss with more than 16 workers",
	 "[engine]\nshape = rss\n" P0 W(0, 2) W(1, 3) W(2, 4) W(3, 5) W(4, 6) W(5, 7) W(6, 8)
	 W(7, 9) W(8, 10) W(9, 11) W(10, 12) W(11, 13) W(12, 14) W(13, 15) W(14, 16) W(15, 17)
	 W(16, 18), 1, {"@:2: shape: rss supports at most 16 workers (one queue each)"}, NULL},
	{"distributor with differing worker stages",
	 "[engine]\nshape = distributor\n" P0
	 "[worker 0]\nlcore = 2\nstages = flowhash,fwd\n"
	 "[worker 1]\nlcore = 3\nstages = fwd\n",
	 1, {"@:10: stages: shape distributor runs identical workers: differs from worker 0"},
	 NULL},
	{"rss with differing worker stages",
	 "[engine]\nshape = rss\n" P0 W0 "[worker 1]\nlcore = 3\nstages = flowhash,fwd\n", 1,
	 {"@:9: stages: shape rss runs identical workers: differs from worker 0"}, NULL},
	{"no worker runs 'fwd'", P0 "[worker 0]\nlcore = 2\nstages = flowhash\n", 1,
	 {"@: stages: no worker runs the 'fwd' stage"}, NULL},
	{"mbufs one short for a pipeline (5055 < 5056)", "[engine]\nmbufs = 5055\n" P0 W0, 1,
	 {"@:2: mbufs: 5055 cannot fill the configured queues, rings and caches: at least 5056 "
	  "needed"}, NULL},
	{"mbufs too few for a distributor: rings count twice per worker",
	 "[engine]\nshape = distributor\nmbufs = 7423\n" P0 W0 "[worker 1]\nlcore = 3\n", 1,
	 {"@:3: mbufs: 7423 cannot fill", "at least 7424 needed"}, NULL},
	{"mbufs too few for rss: no rings, a queue per worker",
	 "[engine]\nshape = rss\nmbufs = 5375\n" P0 W0 "[worker 1]\nlcore = 3\n", 1,
	 {"@:3: mbufs: 5375 cannot fill", "at least 5376 needed"}, NULL},
	{"mbufs given, too few once other keys grow: reported at the mbufs line",
	 "[engine]\nmbufs = 16383\nring_size = 8192\n" P0 W0, 1,
	 {"@:2: mbufs: 16383 cannot fill", "at least"}, NULL},

	/* ---- collect-all ---- */
	{"every error in one file is reported",
	 "[engine]\n"                    /*  1 */
	 "burst = 0\n"                   /*  2 */
	 "ring_size = 100\n"             /*  3 */
	 "shape = star\n"                /*  4 */
	 "bogus = 1\n"                   /*  5 */
	 "[port 0]\n"                    /*  6 */
	 "rx = maybe\n"                  /*  7 */
	 "[port 1]\n"                    /*  8 */
	 "device = net_null1\n"          /*  9 */
	 "dst_mac = 1:2:3\n"             /* 10 */
	 "[worker 0]\n"                  /* 11 */
	 "lcore = 2\n"                   /* 12 */
	 "stages = fwd, nosuch\n"        /* 13 */
	 "[worker 1]\n"                  /* 14 */
	 "lcore = 2\n"                   /* 15 */
	 "[foo]\n"                       /* 16 */
	 "[worker 3]\n"                  /* 17 */
	 "lcore = 7\n",                  /* 18 */
	 11,
	 {"@:2: burst: '0' out of range", "@:3: ring_size: 100 is not a power of 2",
	  "@:4: shape: 'star' is not one of", "@:5: bogus: unknown key in [engine]",
	  "@:7: rx: 'maybe' is not on/off", "@:6: device: missing in [port 0]",
	  "@:10: dst_mac: '1:2:3' is not a MAC address", "@:13: stages: unknown stage 'nosuch'",
	  "@:15: lcore: 2 already used by worker 0", "@:16: [foo]: unknown section",
	  "@:17: [worker 3]: workers are numbered from 0 without gaps"},
	 NULL},	/* ---- several I/O lcores ([io N]) ---- */
	{"[io N]: two I/O lcores, rx left out: the queues dealt out in turn, a port each",
	 "[engine]\nshape = distributor\n" P0 P1 "[io 0]\nlcore = 1\n[io 1]\nlcore = 5\n" W0, 0,
	 {NULL}, check_io_dealt},
	{"[io N]: one receives every queue of port 0, the other only transmits",
	 "[engine]\nshape = distributor\n[port 0]\ndevice = net_null0\nrx_queues = 2\n"
	 "[io 0]\nlcore = 1\nrx = 0\ntx = off\n[io 1]\nlcore = 5\n" W0, 0, {NULL},
	 check_io_split},
	{"[io N]: PORT:QUEUE pairs across two ports",
	 "[engine]\nshape = pipeline\nmbufs = 32767\n"
	 "[port 0]\ndevice = net_null0\nrx_queues = 2\n"
	 "[port 1]\ndevice = net_null1\nrx_queues = 2\n"
	 "[io 0]\nlcore = 1\nrx = 0:0, 1:1\n[io 1]\nlcore = 5\nrx = 1:0,0:1\n" W0, 0, {NULL},
	 check_io_pairs},
	{"[io N]: a pipeline transmits through every I/O lcore, a lane to each",
	 "[engine]\nshape = pipeline\n" P0 P1 "[io 0]\nlcore = 1\n[io 1]\nlcore = 5\n"
	 W0 W(1, 3), 0, {NULL}, check_io_pipeline_lanes},
	{"[io N]: a pipeline that transmits through one I/O lcore has one lane",
	 "[engine]\nshape = pipeline\n" P0 P1 "[io 0]\nlcore = 1\ntx = off\n[io 1]\nlcore = 5\n"
	 W0, 0, {NULL}, check_io_pipeline_tx1},
	{"[io N]: an I/O lcore with nothing to do (more I/O lcores than queues)",
	 "[engine]\nshape = distributor\n" P0 "[io 0]\nlcore = 1\n[io 1]\nlcore = 5\n" W0,
	 1, {"@:7: [io 1]: polls no queue and transmits for no I/O lcore that does"}, NULL},
	{"[io N]: a second that says tx = on in a pipeline whose first worker polls the ports",
	 "[engine]\nshape = pipeline\nrx = workers\n" P0 P1 "[io 0]\nlcore = 1\ntx = on\n"
	 "[io 1]\nlcore = 5\ntx = on\n" W0,
	 1, {"@:13: tx: on in a second [io N]: a pipeline whose first worker polls the ports"},
	 NULL},
	{"[io N]: a pipeline's I/O lcore with nothing to do (transmits, no lane reaches it)",
	 "[engine]\nshape = pipeline\n" P0 "[io 0]\nlcore = 1\n[io 1]\nlcore = 5\n" W0,
	 1, {"@:7: [io 1]: polls no queue and transmits for no I/O lcore that does"}, NULL},
	{"[io N]: a queue given to two I/O lcores",
	 "[engine]\nshape = distributor\n" P0           /* 1-4 */
	 "[io 0]\nlcore = 1\nrx = 0\n"                  /* 5-7 */
	 "[io 1]\nlcore = 5\nrx = 0:0\n" W0,            /* 8-10 */
	 1, {"@:10: rx: port 0 queue 0 is polled by [io 0] already"}, NULL},
	{"[io N]: a queue nobody polls",
	 "[engine]\nshape = distributor\n"              /* 1-2 */
	 "[port 0]\ndevice = net_null0\nrx_queues = 2\n" /* 3-5 */
	 "[io 0]\nlcore = 1\nrx = 0:0\n"                /* 6-8 */
	 "[io 1]\nlcore = 5\n" W0,
	 1, {"@:3: [port 0]: RX queue 1 is polled by no I/O lcore"}, NULL},
	{"[io N]: a queue the port does not have",
	 "[engine]\nshape = distributor\n" P0 "[io 0]\nlcore = 1\nrx = 0:1\n" W0,
	 2, {"@:7: rx: port 0 has 1 RX queue (rx_queues)",
	     "@:3: [port 0]: RX queue 0 is polled by no I/O lcore"}, NULL},
	{"[io N]: a port that is not configured, and one that does not receive",
	 "[engine]\nshape = distributor\n" P0               /* 1-4 */
	 "[port 1]\ndevice = net_null1\nrx = off\n"       /* 5-7 */
	 "[io 0]\nlcore = 1\nrx = 0, 3\n"                 /* 8-10 */
	 "[io 1]\nlcore = 5\nrx = 1\n" W0,                /* 11-13 */
	 2, {"@:10: rx: port 3 is not configured (ports 0..1 exist)",
	     "@:13: rx: port 1 does not receive (rx = off)"}, NULL},
	{"[io N]: an I/O lcore that is a worker's, and one named twice",
	 "[engine]\nshape = distributor\n" P0              /* 1-4 */
	 "[io 0]\nlcore = 2\n[io 1]\nlcore = 2\n"         /* 5-8 */
	 "[worker 0]\nlcore = 2\n",                        /* 9-10 */
	 2, {"@:8: lcore: 2 already used by [io 0]",
	     "@:10: lcore: 2 is an I/O lcore ([io N] lcore)"}, NULL},
	{"[io N]: engine io_lcore as well",
	 "[engine]\nshape = distributor\nio_lcore = 1\n" P0 "[io 0]\nlcore = 5\n" W0,
	 1, {"@:3: io_lcore: given with [io N] sections"}, NULL},
	{"[io N]: shape rss has none",
	 "[engine]\nshape = rss\n" P0 "[io 0]\nlcore = 5\n" W0,
	 1, {"@:5: [io 0]: shape rss has no I/O lcore"}, NULL},
	{"[io N]: none transmits",
	 "[engine]\nshape = distributor\n" P0 "[io 0]\nlcore = 1\ntx = off\n" W0,
	 1, {"@:7: tx: off in every [io N]: nothing would transmit"}, NULL},
	{"[io N]: rx that is no list of ports and queues; numbered with a gap",
	 "[engine]\nshape = distributor\n" P0 "[io 0]\nlcore = 1\nrx = 0:x\n"
	 "[io 2]\nlcore = 5\n" W0,
	 3, {"@:7: rx: '0:x' is not PORT or PORT:QUEUE",
	     "@:8: [io 2]: I/O lcores are numbered from 0 without gaps",
	     "@:3: [port 0]: RX queue 0 is polled by no I/O lcore"}, NULL},
};

static void
run_cases(void)
{
	static struct mpe_conf conf;
	size_t i;

	for (i = 0; i < TEST_DIM(cases); i++) {
		const struct cfg_case *c = &cases[i];
		struct loaded l;

		test_begin("%s", c->name);
		load_text(c->ini, &conf, &l);
		check_result(&l, c->errors, c->expect);
		if (c->check != NULL && l.rc == 0) {
			CHECK(strcmp(conf.path, l.path) == 0, "path '%s'", conf.path);
			c->check(&conf);
		}
		free(l.err);
		test_end();
	}
}

/* ---- other entry points ---- */

/* The mbufs the configuration needs, from the message that refuses 1023 of them. */
static uint64_t
mbufs_needed(const char *ini)
{
	static struct mpe_conf conf;
	struct loaded l;
	const char *at;
	uint64_t n = 0;

	load_text(ini, &conf, &l);
	at = l.err != NULL ? strstr(l.err, "at least ") : NULL;
	if (CHECK(at != NULL, "no 'at least' in:\n%s", l.err != NULL ? l.err : ""))
		n = strtoull(at + strlen("at least "), NULL, 10);
	free(l.err);
	return n;
}

/* With tx = workers each worker has a transmit queue on every port it sends to: their
 * descriptors are counted in the mbufs needed (two ports, two workers: one queue more each). */
static void
test_mbufs_count_worker_tx_queues(void)
{
#define DIST2(tx) "[engine]\nshape = distributor\nmbufs = 1023\ntx = " tx "\n" P0 P1 \
	W(0, 2) W(1, 3)
	uint64_t io = mbufs_needed(DIST2("io")), workers = mbufs_needed(DIST2("workers"));

	CHECK(workers == io + 2 * MPE_DEF_TX_DESC, "tx = io: %" PRIu64 ", tx = workers: %" PRIu64
	      ", expected %u more", io, workers, 2 * MPE_DEF_TX_DESC);
#undef DIST2
}

/* mbufs left out: what the rings, queues and caches need, as 2^n - 1 and never below the
 * default; given, it is kept. ring_size left out is marked so (the primary lengthens rings
 * into lcores that share a CPU). */
static void
test_mbufs_auto(void)
{
	static const struct {
		const char *ini;
		uint32_t mbufs, ring_size_auto, mbufs_auto;
	} cases[] = {
		{P0 W0, MPE_DEF_MBUFS, 1, 1},
		{"[engine]\nring_size = 1024\n" P0 W0, MPE_DEF_MBUFS, 0, 1},
		/* 2 rings of 8192: 16384 slots alone */
		{"[engine]\nring_size = 8192\n" P0 W0, 32767, 0, 1},
		/* 2 workers of a distributor: 7424 needed, the default holds them */
		{"[engine]\nshape = distributor\n" P0 W(0, 2) W(1, 3), MPE_DEF_MBUFS, 1, 1},
		/* 2 rings of 2048 fit the default (7104 needed), of 4096 not (11200) */
		{"[engine]\nring_size = 2048\n" P0 W0, MPE_DEF_MBUFS, 0, 1},
		{"[engine]\nring_size = 4096\n" P0 W0, 16383, 0, 1},
		/* 4 rings of 65536 */
		{"[engine]\nshape = distributor\nring_size = 65536\n" P0 W(0, 2) W(1, 3), 524287,
		 0, 1},
		{"[engine]\nmbufs = 20000\n" P0 W0, 20000, 1, 0},
	};
	static struct mpe_conf c;
	struct loaded l;
	size_t i;

	for (i = 0; i < TEST_DIM(cases); i++) {
		load_text(cases[i].ini, &c, &l);
		CHECK(l.rc == 0, "case %zu: %d\n%s", i, l.rc, l.err ? l.err : "");
		free(l.err);
		CHECK(c.mbufs == cases[i].mbufs && c.ring_size_auto == cases[i].ring_size_auto &&
			      c.mbufs_auto == cases[i].mbufs_auto,
		      "case %zu: mbufs %u (expected %u), ring_size_auto %u, mbufs_auto %u", i,
		      c.mbufs, cases[i].mbufs, c.ring_size_auto, c.mbufs_auto);
		if (l.rc == 0)
			CHECK(c.mbufs >= mpe_config_mbufs_need(&c, (uint64_t)mpe_config_nb_rings(&c) *
								       c.ring_size),
			      "case %zu: %u mbufs cannot fill what is configured", i, c.mbufs);
	}
	CHECK(mpe_config_mbufs_auto(0) == MPE_DEF_MBUFS, "0: %u", mpe_config_mbufs_auto(0));
	CHECK(MPE_DEF_MBUFS == 8191, "the default pool: %u", MPE_DEF_MBUFS);
	CHECK(mpe_config_mbufs_auto(MPE_DEF_MBUFS) == MPE_DEF_MBUFS, "8191");
	CHECK(mpe_config_mbufs_auto(MPE_DEF_MBUFS + 1) == 16383, "8192: %u",
	      mpe_config_mbufs_auto(MPE_DEF_MBUFS + 1));
	CHECK(mpe_config_mbufs_auto(MPE_MAX_MBUFS) == MPE_MAX_MBUFS, "the maximum");
	CHECK(mpe_config_mbufs_auto((uint64_t)MPE_MAX_MBUFS + 1) == 0, "above the maximum: %u",
	      mpe_config_mbufs_auto((uint64_t)MPE_MAX_MBUFS + 1));
}

/* A NUL byte inside a line: that line is refused, the lines after it keep their numbers. */
static void
test_nul_byte(void)
{
	static const char text[] = "[engine]\nburst = 32\0x\nburst = 64\nbadline\n" P0 W0;
	static struct mpe_conf conf;
	const char *expect[] = {"@:2: NUL byte in the line",
				"@:4: expected 'key = value' or '[section]'", NULL};
	struct loaded l;
	FILE *mem;
	int fd;

	make_temp_path(l.path, sizeof(l.path), &fd);
	test_write_all(fd, text, sizeof(text) - 1);
	close(fd);
	mem = open_memstream(&l.err, &l.err_len);
	if (mem == NULL) {
		perror("open_memstream");
		exit(2);
	}
	l.rc = mpe_config_load(l.path, &conf, mem);
	fclose(mem);
	unlink(l.path);
	check_result(&l, 2, expect);
	free(l.err);
}

/* A configuration path that names no regular file, or a file over 1 MiB: refused at once,
 * never read (a FIFO without a writer would block, /dev/zero never ends). */
static void
test_not_a_config_file(void)
{
	static struct mpe_conf conf;
	const char *dir = getenv("TMPDIR");
	char fifo[200], big[200];
	const char *paths[] = {fifo, "/dev/zero", NULL, big};
	unsigned int i;
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	paths[2] = dir;
	snprintf(fifo, sizeof(fifo), "%s/mpe_test_config_fifo_%d", dir, (int)getpid());
	if (!CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno)))
		return;
	make_temp_path(big, sizeof(big), &fd);
	CHECK(ftruncate(fd, (1 << 20) + 1) == 0, "ftruncate"); /* sparse */
	close(fd);
	for (i = 0; i < TEST_DIM(paths); i++) {
		const char *expect[] = {i < 3 ? "@: cannot open: not a regular file"
					      : "@: cannot open: 1048577 bytes, more than the "
						"1048576 allowed",
					NULL};
		struct loaded l = {.err = NULL};
		FILE *mem = open_memstream(&l.err, &l.err_len);

		if (mem == NULL) {
			perror("open_memstream");
			exit(2);
		}
		snprintf(l.path, sizeof(l.path), "%s", paths[i]);
		l.rc = mpe_config_load(l.path, &conf, mem);
		fclose(mem);
		check_result(&l, 1, expect);
		free(l.err);
	}
	unlink(fifo);
	unlink(big);
}

/* A configuration path too long to keep whole is refused: its directory, where relative rules
 * files are found, would be cut short. */
static void
test_path_too_long(void)
{
	static struct mpe_conf conf;
	const char *dir = getenv("TMPDIR");
	char top[200], path[400], want[80];
	struct loaded l = {.err = NULL};
	size_t len;
	FILE *mem, *f;
	int i;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	snprintf(top, sizeof(top), "%s/mpe_test_config_long_%d", dir, (int)getpid());
	snprintf(path, sizeof(path), "%s", top);
	for (i = 0; i <= 5; i++) { /* top, then 5 levels of 60 characters */
		len = strlen(path);
		if (i > 0)
			snprintf(path + len, sizeof(path) - len, "/%s", NAME63 + 4);
		if (!CHECK(mkdir(path, 0700) == 0, "mkdir %s: %s", path, strerror(errno)))
			goto out;
	}
	len = strlen(path);
	snprintf(path + len, sizeof(path) - len, "/engine.ini");
	f = fopen(path, "w");
	if (!CHECK(f != NULL, "fopen %s: %s", path, strerror(errno)))
		goto out;
	fputs(P0 W0, f);
	fclose(f);
	mem = open_memstream(&l.err, &l.err_len);
	if (mem == NULL) {
		perror("open_memstream");
		exit(2);
	}
	l.rc = mpe_config_load(path, &conf, mem);
	fclose(mem);
	snprintf(want, sizeof(want), ": a path of %zu characters: at most %d\n", strlen(path),
		 MPE_PATH_LEN - 1);
	CHECK(strlen(path) >= MPE_PATH_LEN && l.rc == -1 && l.err != NULL &&
		      strstr(l.err, want) != NULL,
	      "a path of %zu characters: returned %d:\n%s", strlen(path), l.rc,
	      l.err != NULL ? l.err : "");
	free(l.err);
	unlink(path);
out:
	/* the directories, deepest first */
	while (strlen(path) > strlen(top)) {
		*strrchr(path, '/') = '\0';
		rmdir(path);
	}
}

static void
test_null_error_stream(void)
{
	static struct mpe_conf conf;
	char path[200];
	int fd, rc;

	make_temp_path(path, sizeof(path), &fd);
	if (write(fd, "[engine]\nburst = 0\n", 19) != 19)
		CHECK(0, "write failed");
	close(fd);
	rc = mpe_config_load(path, &conf, NULL);
	unlink(path);
	CHECK(rc == -3, "rc %d, expected -3 (burst, no port, no worker)", rc);
}

static void
test_defaults(void)
{
	static struct mpe_conf conf;

	memset(&conf, 0xa5, sizeof(conf));
	mpe_config_defaults(&conf);
	CHECK(conf.nb_ports == 0 && conf.nb_workers == 0, "ports %u workers %u", conf.nb_ports,
	      conf.nb_workers);
	CHECK(conf.shape == MPE_SHAPE_PIPELINE && conf.burst == MPE_DEF_BURST &&
		      conf.ring_size == MPE_DEF_RING_SIZE && conf.mbufs == MPE_DEF_MBUFS &&
		      conf.io_lcore == MPE_DEF_IO_LCORE && conf.backpressure == 0,
	      "engine defaults");
	CHECK(conf.ports[3].device[0] == '\0', "ports not cleared");
}

static void
test_shape_names(void)
{
	CHECK(strcmp(mpe_config_shape_name(MPE_SHAPE_PIPELINE), "pipeline") == 0, "pipeline");
	CHECK(strcmp(mpe_config_shape_name(MPE_SHAPE_DISTRIBUTOR), "distributor") == 0,
	      "distributor");
	CHECK(strcmp(mpe_config_shape_name(MPE_SHAPE_RSS), "rss") == 0, "rss");
	CHECK(strcmp(mpe_config_shape_name(3), "?") == 0, "out of range shape");
}

static void
test_primary_only_devices(void)
{
	static const struct {
		const char *dev;
		int primary_only;
	} devs[] = {
		{"net_pcap0", 1},	  {"eth_pcap1", 1},	  {"net_af_packet0", 1},
		{"eth_af_packet3", 1},	  {"net_null0", 0},	  {"net_ring0", 0},
		{"0000:01:00.0", 0},	  {"net_tap0", 0},	  {"", 0},
	};
	size_t i;

	for (i = 0; i < TEST_DIM(devs); i++)
		CHECK(mpe_config_device_primary_only(devs[i].dev) == devs[i].primary_only,
		      "'%s': expected %d", devs[i].dev, devs[i].primary_only);
}

/* What the engine prints with --check must load back into the same configuration. */
static void
dump_loads_back(const char *ini)
{
	static struct mpe_conf a, b;
	struct loaded l;
	char *text = NULL;
	size_t len = 0;
	FILE *mem;
	unsigned int i;

	load_text(ini, &a, &l);
	CHECK(l.rc == 0, "first load: %d\n%s", l.rc, l.err ? l.err : "");
	free(l.err);
	mem = open_memstream(&text, &len);
	if (!CHECK(mem != NULL, "open_memstream"))
		return;
	mpe_config_dump(&a, mem);
	fclose(mem);
	load_text(text, &b, &l);
	CHECK(l.rc == 0, "dump does not load: %d\n%s\n--- dump:\n%s", l.rc, l.err ? l.err : "",
	      text);
	free(l.err);
	free(text);
	CHECK(a.shape == b.shape && a.burst == b.burst && a.ring_size == b.ring_size &&
		      a.mbufs == b.mbufs && a.ring_size_auto == b.ring_size_auto &&
		      a.mbufs_auto == b.mbufs_auto && a.mbuf_cache == b.mbuf_cache &&
		      a.mbuf_data == b.mbuf_data && a.rx_desc == b.rx_desc &&
		      a.tx_desc == b.tx_desc && a.io_lcore == b.io_lcore &&
		      a.backpressure == b.backpressure &&
		      a.ready_timeout_ms == b.ready_timeout_ms &&
		      a.drain_timeout_ms == b.drain_timeout_ms && a.sandbox == b.sandbox,
	      "engine section differs");
	CHECK(a.nb_ports == b.nb_ports && a.nb_workers == b.nb_workers, "counts differ");
	for (i = 0; i < a.nb_ports; i++) {
		const struct mpe_port_conf *x = &a.ports[i], *y = &b.ports[i];

		CHECK(strcmp(x->device, y->device) == 0 && x->peer == y->peer &&
			      x->rx_queues == y->rx_queues && x->rx == y->rx &&
			      x->has_dst_mac == y->has_dst_mac &&
			      memcmp(x->dst_mac, y->dst_mac, 6) == 0,
		      "port %u differs", i);
	}
	for (i = 0; i < a.nb_workers; i++) {
		const struct mpe_worker_conf *x = &a.workers[i], *y = &b.workers[i];

		CHECK(x->lcore == y->lcore && x->cpu == y->cpu && x->queue == y->queue &&
			      x->nb_stages == y->nb_stages &&
			      memcmp(x->stages, y->stages, x->nb_stages) == 0,
		      "worker %u differs", i);
	}
	CHECK(a.nb_io == b.nb_io && a.io_implicit == b.io_implicit, "I/O lcores: %u / %u",
	      a.nb_io, b.nb_io);
	for (i = 0; i < a.nb_io; i++)
		CHECK(a.io[i].lcore == b.io[i].lcore && a.io[i].tx == b.io[i].tx &&
			      memcmp(a.io[i].rxq, b.io[i].rxq, sizeof(a.io[i].rxq)) == 0,
		      "[io %u] differs", i);
}

/* [io N]: the queues as resolved (dealt out, or given), and who transmits, come back */
static void
test_dump_loads_back_io(void)
{
	dump_loads_back("[engine]\nshape = pipeline\n[port 0]\ndevice = net_null0\nrx_queues = 2\n"
			"[io 0]\nlcore = 1\n[io 1]\nlcore = 5\n" W0);
	dump_loads_back("[engine]\nshape = distributor\n" P0 P1
			"[io 0]\nlcore = 1\ntx = off\n[io 1]\nlcore = 5\n" W0);
	dump_loads_back("[engine]\nshape = distributor\n[port 0]\ndevice = net_null0\n"
			"rx_queues = 2\n[io 0]\nlcore = 1\nrx = 0:1\n[io 1]\nlcore = 5\n"
			"rx = 0:0\n" W0);
}

static void
test_dump_loads_back(void)
{
	dump_loads_back(EVERY_KEY);
}

/* ring_size and mbufs left out: written as comments, left out again when loaded back */
static void
test_dump_loads_back_auto(void)
{
	dump_loads_back("[engine]\nshape = distributor\n" P0 W(0, 2) W(1, 3));
	dump_loads_back("[engine]\nring_size = 8192\n" P0 W0);
}

/* 17 distributor workers that transmit: worker 16's queue is its id, above the key's range,
 * and the dump leaves the default out */
static void
test_dump_loads_back_17_tx_workers(void)
{
	dump_loads_back("[engine]\nshape = distributor\ntx = workers\nmbufs = 200000\n" P0 P1
			W(0, 2) W(1, 3) W(2, 4) W(3, 5) W(4, 6) W(5, 7) W(6, 8) W(7, 9) W(8, 10)
			W(9, 11) W(10, 12) W(11, 13) W(12, 14) W(13, 15) W(14, 16) W(15, 17)
			W(16, 18));
}

/* rss workers on queues of their choice: the queues and the ports' RX queues come back */
static void
test_dump_loads_back_queues(void)
{
	dump_loads_back("[engine]\nshape = rss\nmbufs = 65535\n" P0 P1 W(0, 2) "queue = 6\n"
			W(1, 3) "queue = 3\n");
}

/* Every key of a section is read, however many there are: 64 unknown keys, then a bad one. */
static void
test_many_keys_all_checked(void)
{
	static struct mpe_conf conf;
	static char text[4096];
	const char *expect[3] = {"@:2: unk1: unknown key in [engine]",
				 "@:66: burst: '0' out of range: must be between 1 and 256", NULL};
	struct loaded l;
	size_t o;
	int i;

	o = (size_t)snprintf(text, sizeof(text), "[engine]\n");
	for (i = 1; i <= 64; i++)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "unk%d = 1\n", i);
	snprintf(text + o, sizeof(text) - o, "burst = 0\n" P0 W0);
	load_text(text, &conf, &l);
	check_result(&l, 65, expect);
	free(l.err);
}

/* ---- the inspection stages: rules file, stage order, mirror port ---- */

/* A rules file beside the configurations (in TMPDIR or /tmp), named by its base name. */
static void
write_rules(char *path, size_t size, const char *text)
{
	int fd;

	make_temp_path(path, size, &fd);
	test_write_all(fd, text, strlen(text));
	close(fd);
}

struct insp_case {
	const char *name;
	const char *engine; /* [engine] lines; "%s" is replaced by the rules file's path */
	const char *stages; /* of worker 0 (and 1) */
	int pipeline2;	    /* two workers in a pipeline: worker 1 runs "fwd" */
	int errors;
	const char *expect[3]; /* substrings of the messages */
};

#define GOOD_RULES "@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff drop 10\n"
#define BAD_RULES                                                                           \
	"# two bad lines among good ones\n" GOOD_RULES "@10.0.0.0/33 0.0.0.0/0 0 : 1 0 : 1 6/0xff "  \
	"drop 1\n" GOOD_RULES "@1.2.3.4/32 0.0.0.0/0 0 : 1 0 : 1 6/0xff reject 1\n"
#define MIRROR_RULES "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0 mirror 1\n"

static const struct insp_case insp_cases[] = {
	{"acl with parse before it and a rules file", "rules = %s\n", "parse, acl, fwd", 0, 0,
	 {NULL}},
	{"acl without a rules file", "", "parse, acl, fwd", 0, 1,
	 {"rules: the acl stage needs a rules file"}},
	{"acl without parse before it", "rules = %s\n", "acl, parse, fwd", 0, 1,
	 {"stages: acl needs the parse stage before it"}},
	{"flow without parse", "", "flow, fwd", 0, 1, {"flow needs the parse stage before it"}},
	{"flowhash after parse would replace the key's hash the flow stage relies on", "",
	 "parse, flowhash, flow, fwd", 0, 1,
	 {"stages: flow after flowhash after parse: parse sets the flow hash from the decoded "
	  "key"}},
	{"flowhash before parse is fine", "", "flowhash, parse, flow, fwd", 0, 0, {NULL}},
	{"flowhash after parse with no flow stage after it is fine", "", "parse, flowhash, fwd",
	 0, 0, {NULL}},
	{"parse again after flowhash gives the flow stage its hash back", "",
	 "parse, flowhash, parse, flow, fwd", 0, 0, {NULL}},
	{"pipeline: parse in worker 0 serves flow and acl in worker 1", "rules = %s\n", "parse", 1,
	 0, {NULL}},
	{"default_action takes allow or drop only", "rules = %s\ndefault_action = reject\n",
	 "parse, acl, fwd", 0, 1, {"default_action: 'reject' is not allow or drop"}},
	{"flow_capacity below one bucket", "flow_capacity = 7\n", "parse, flow, fwd", 0, 1,
	 {"flow_capacity: '7' out of range"}},
	{"flow_full takes drop or pass", "flow_full = maybe\n", "parse, flow, fwd", 0, 1,
	 {"flow_full: 'maybe' is not drop or pass"}},
	{"a rules file that does not exist", "rules = /nonexistent/mpe.rules\n", "parse, acl, fwd",
	 0, 1, {"rules: /nonexistent/mpe.rules: No such file"}},
	{"mirror_port must be a configured port", "mirror_port = 5\n", "fwd", 0, 1,
	 {"mirror_port: port 5 is not configured"}},
	{"mirror_port must not be the peer of a receiving port", "mirror_port = 1\n", "fwd", 0, 1,
	 {"port 1 is the peer of port 0: a mirror port carries copies only"}},
};

static void
test_inspection_config(void)
{
	static struct mpe_conf conf;
	char rules[200], bad[200], mirror[200], ini[2048], eng[512];
	unsigned int i, j;

	write_rules(rules, sizeof(rules), GOOD_RULES);
	write_rules(bad, sizeof(bad), BAD_RULES);
	write_rules(mirror, sizeof(mirror), MIRROR_RULES);
	for (i = 0; i < TEST_DIM(insp_cases); i++) {
		const struct insp_case *c = &insp_cases[i];
		struct loaded l;

		test_begin("inspection: %s", c->name);
		snprintf(eng, sizeof(eng), c->engine, rules);
		snprintf(ini, sizeof(ini),
			 "[engine]\nshape = pipeline\n%s" P0 P1
			 "[worker 0]\nlcore = 2\nstages = %s\n%s",
			 eng, c->stages,
			 c->pipeline2 ? "[worker 1]\nlcore = 3\nstages = flow, acl, fwd\n" : "");
		load_text(ini, &conf, &l);
		CHECK(l.rc == -c->errors, "returned %d, expected %d:\n%s", l.rc, -c->errors,
		      l.err != NULL ? l.err : "");
		for (j = 0; j < 3 && c->expect[j] != NULL; j++)
			CHECK(l.err != NULL && strstr(l.err, c->expect[j]) != NULL,
			      "no '%s' in:\n%s", c->expect[j], l.err != NULL ? l.err : "");
		if (c->errors == 0 && strstr(c->engine, "rules") != NULL)
			CHECK(strcmp(conf.rules, rules) == 0, "rules '%s'", conf.rules);
		free(l.err);
		test_end();
	}

	test_begin("inspection: every bad line of the rules file, as rules-file:line: reason");
	{
		struct loaded l;
		char want[256];

		snprintf(ini, sizeof(ini), "[engine]\nrules = %s\n" P0 W0 "stages = parse, acl, fwd\n",
			 bad);
		load_text(ini, &conf, &l);
		CHECK(l.rc == -1, "returned %d, expected -1 (one failed rules file)", l.rc);
		snprintf(want, sizeof(want), "%s:3: ", bad);
		CHECK(l.err != NULL && strstr(l.err, want) != NULL, "no '%s' in:\n%s", want, l.err);
		snprintf(want, sizeof(want), "%s:5: action: unknown 'reject'", bad);
		CHECK(l.err != NULL && strstr(l.err, want) != NULL, "no '%s' in:\n%s", want, l.err);
		CHECK(l.err != NULL && count_lines(l.err) == 2, "%u lines:\n%s",
		      l.err != NULL ? count_lines(l.err) : 0, l.err);
		free(l.err);
	}
	test_end();

	test_begin("inspection: a rules file without a rule is accepted, with a warning");
	{
		struct loaded l;
		char empty[200], want[300];

		write_rules(empty, sizeof(empty), "# nothing yet\n\n");
		snprintf(ini, sizeof(ini),
			 "[engine]\nrules = %s\ndefault_action = drop\n" P0 W0
			 "stages = parse, acl, fwd\n", empty);
		load_text(ini, &conf, &l);
		snprintf(want, sizeof(want), "%s: warning: no rule in the file: every packet gets "
			 "the default action (drop)", empty);
		CHECK(l.rc == 0, "returned %d:\n%s", l.rc, l.err != NULL ? l.err : "");
		CHECK(l.err != NULL && strstr(l.err, want) != NULL, "no '%s' in:\n%s", want,
		      l.err != NULL ? l.err : "");
		free(l.err);
		unlink(empty);
	}
	test_end();

	test_begin("inspection: mirror rules need a mirror_port");
	{
		struct loaded l;

		snprintf(ini, sizeof(ini), "[engine]\nrules = %s\n" P0 W0 "stages = parse, acl, fwd\n",
			 mirror);
		load_text(ini, &conf, &l);
		CHECK(l.rc == -1 && l.err != NULL &&
			      strstr(l.err, "1 mirror rules but mirror_port is not set") != NULL,
		      "returned %d:\n%s", l.rc, l.err != NULL ? l.err : "");
		free(l.err);
	}
	test_end();

	test_begin("inspection: a relative rules path is taken from the configuration's directory");
	{
		struct loaded l;
		const char *base = strrchr(rules, '/') + 1;

		snprintf(ini, sizeof(ini), "[engine]\nrules = %s\nflow_capacity = 1024\n"
			 "flow_timeout_ms = 0\nflow_full = drop\ndefault_action = drop\n" P0 W0
			 "stages = parse, flow, acl, fwd\n", base);
		load_text(ini, &conf, &l);
		CHECK(l.rc == 0, "returned %d:\n%s", l.rc, l.err != NULL ? l.err : "");
		CHECK(strcmp(conf.rules, rules) == 0, "rules '%s', expected '%s'", conf.rules, rules);
		CHECK(conf.flow_capacity == 1024 && conf.flow_timeout_ms == 0 &&
			      conf.flow_full_pass == 0 && conf.default_drop == 1,
		      "flow %u/%u/%u default_drop %u", conf.flow_capacity, conf.flow_timeout_ms,
		      conf.flow_full_pass, conf.default_drop);
		CHECK(conf.mirror_port == MPE_PORT_NONE, "mirror_port %u", conf.mirror_port);
		free(l.err);
	}
	test_end();
	unlink(rules);
	unlink(bad);
	unlink(mirror);
}

int
main(void)
{
	static const struct test_case others[] = {
		{"a NULL error stream still counts the errors", test_null_error_stream},
		{"mpe_config_defaults: engine defaults, no ports or workers", test_defaults},
		{"mpe_config_shape_name: every shape, and out of range", test_shape_names},
		{"mpe_config_device_primary_only: pcap and af_packet only",
		 test_primary_only_devices},
		{"mpe_config_dump output loads back into the same configuration",
		 test_dump_loads_back},
		{"mpe_config_dump: the workers' queues load back", test_dump_loads_back_queues},
		{"mpe_config_dump: [io N] sections load back, their queues as resolved",
		 test_dump_loads_back_io},
		{"mpe_config_dump: 17 transmitting workers' default queues load back",
		 test_dump_loads_back_17_tx_workers},
		{"a section with 64 unknown keys still checks the 65th key",
		 test_many_keys_all_checked},
		{"tx = workers: the workers' transmit queues count in the mbufs needed",
		 test_mbufs_count_worker_tx_queues},
		{"mbufs left out: what the configuration needs; given: kept", test_mbufs_auto},
		{"mpe_config_dump: ring_size and mbufs left out stay left out",
		 test_dump_loads_back_auto},
		{"a NUL byte: that line refused, the next lines keep their numbers",
		 test_nul_byte},
		{"a FIFO, a device, a directory or a file over 1 MiB: refused, not read",
		 test_not_a_config_file},
		{"a configuration path too long to keep whole: refused", test_path_too_long},
	};

	test_inspection_config();

	run_cases();
	run_key_rows();
	test_run_cases(others, TEST_DIM(others));
	return test_summary();
}
