/* SPDX-License-Identifier: BSD-3-Clause */
/* Configuration parser: the table of keys and the INI reader.
 * rte_cfgfile reads the values; a first pass over the text finds syntax errors and the line
 * of every section and key, so that each message reads "file:line: key: reason". Every error
 * is collected; the caller fails once, before any EAL object is created (the checks across
 * keys are config_check.c's). Runs in one process.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>
#include <rte_mempool.h>

#include "config.h"
#include "config_parser.h"
#include "parse.h"
#include "stage_info.h"
#include "textfile.h"

/* rte_cfgfile reads lines into CFG_NAME_LEN + CFG_VALUE_LEN + 4 bytes: stay inside that */
#define LINE_MAX_LEN (CFG_NAME_LEN + CFG_VALUE_LEN)
/* a configuration is a few kilobytes; it is read twice (the text pass, then rte_cfgfile) */
#define CONFIG_FILE_MAX (1u << 20)

enum sect { SECT_ENGINE, SECT_PORT, SECT_WORKER, SECT_IO };

enum ktype {
	T_UINT,
	T_POW2,
	T_BOOL,
	T_SHAPE,
	T_STR,
	T_MAC,
	T_STAGES,
	T_CPU,
	T_DROPPASS,
	T_ALLOWDROP,
	T_WARNREFUSE,
	T_TXMODE,
	T_IORX,
	T_POOLS,
};

/* One row per key: where it lives, its type, bounds and default (Redis' static_configs). */
struct key_def {
	enum sect sect;
	const char *key;
	enum ktype type;
	uint64_t min, max, def;
	size_t off, size;
	int required;
	const char *help;
};

#define ENG(k, t, mn, mx, d, f, h)                                                          \
	{ SECT_ENGINE, k, t, mn, mx, d, offsetof(struct mpe_conf, f),                       \
	  sizeof(((struct mpe_conf *)0)->f), 0, h }
#define PRT(k, t, mn, mx, d, f, r, h)                                                       \
	{ SECT_PORT, k, t, mn, mx, d, offsetof(struct mpe_port_conf, f),                    \
	  sizeof(((struct mpe_port_conf *)0)->f), r, h }
#define WRK(k, t, mn, mx, d, f, r, h)                                                       \
	{ SECT_WORKER, k, t, mn, mx, d, offsetof(struct mpe_worker_conf, f),                \
	  sizeof(((struct mpe_worker_conf *)0)->f), r, h }
#define IOL(k, t, mn, mx, d, f, r, h)                                                       \
	{ SECT_IO, k, t, mn, mx, d, offsetof(struct mpe_io_conf, f),                        \
	  sizeof(((struct mpe_io_conf *)0)->f), r, h }

static const struct key_def keys[] = {
	ENG("shape", T_SHAPE, 0, 2, MPE_SHAPE_PIPELINE, shape, "pipeline, distributor or rss"),
	ENG("burst", T_UINT, 1, MPE_MAX_BURST, MPE_DEF_BURST, burst, "packets per burst"),
	ENG("ring_size", T_POW2, 64, 65536, MPE_DEF_RING_SIZE, ring_size,
	    "slots per ring between stages; not given: 8192 for a ring into a lcore that "
	    "shares its CPU with another polling lcore"),
	ENG("mbufs", T_UINT, 1023, MPE_MAX_MBUFS, MPE_DEF_MBUFS, mbufs,
	    "mbufs in each pool; not given: what the rings, queues and caches need, if more"),
	ENG("mbuf_cache", T_UINT, 0, RTE_MEMPOOL_CACHE_MAX_SIZE, MPE_DEF_MBUF_CACHE, mbuf_cache,
	    "per-lcore mempool cache"),
	ENG("mbuf_data", T_UINT, 256, 65535 - RTE_PKTMBUF_HEADROOM, MPE_DEF_MBUF_DATA, mbuf_data,
	    "data room per mbuf, after the headroom"),
	ENG("rx_desc", T_UINT, 32, 32768, MPE_DEF_RX_DESC, rx_desc, "RX descriptors per queue"),
	ENG("tx_desc", T_UINT, 32, 32768, MPE_DEF_TX_DESC, tx_desc, "TX descriptors per queue"),
	ENG("io_lcore", T_UINT, 1, RTE_MAX_LCORE - 1, MPE_DEF_IO_LCORE, io_lcore,
	    "lcore of the primary's port I/O loop"),
	ENG("backpressure", T_BOOL, 0, 1, 0, backpressure,
	    "a full ring stalls its producer instead of dropping"),
	ENG("ready_timeout_ms", T_UINT, 100, 600000, MPE_DEF_READY_TIMEOUT_MS, ready_timeout_ms,
	    "how long a worker may take to attach"),
	ENG("drain_timeout_ms", T_UINT, 0, 600000, MPE_DEF_DRAIN_TIMEOUT_MS, drain_timeout_ms,
	    "how long shutdown waits for rings to empty"),
	ENG("restart", T_BOOL, 0, 1, 1, restart, "respawn a worker process that died"),
	ENG("restart_max", T_UINT, 0, 100000, MPE_DEF_RESTART_MAX, restart_max,
	    "respawns allowed within restart_window_ms; then the worker stays down"),
	ENG("restart_window_ms", T_UINT, 100, 86400000, MPE_DEF_RESTART_WINDOW_MS,
	    restart_window_ms, "window of restart_max"),
	ENG("restart_backoff_ms", T_UINT, 0, 60000, MPE_DEF_RESTART_BACKOFF_MS, restart_backoff_ms,
	    "delay before a respawn, doubled for each respawn in the window"),
	ENG("standby", T_UINT, 0, MPE_MAX_STANDBY, 0, standby,
	    "worker processes kept attached and parked, each ready to take a dead worker's place "
	    "in under a millisecond (process build)"),
	ENG("carry", T_BOOL, 0, 1, 1, carry,
	    "the burst a worker killed from outside held goes to its replacement (its standby, "
	    "or the process respawned for it), which finishes it; its stages log what they "
	    "count, to put back (process build)"),
	ENG("stall_timeout_ms", T_UINT, 0, 600000, MPE_DEF_STALL_TIMEOUT_MS, stall_timeout_ms,
	    "kill a worker whose heartbeat stopped this long (0: never)"),
	ENG("stats_period_ms", T_UINT, 0, 3600000, 0, stats_period_ms,
	    "print a line of counters this often (0: never)"),
	ENG("malformed", T_DROPPASS, 0, 1, 0, malformed_pass,
	    "what the parse stage does with a malformed frame (counted either way)"),
	ENG("burn_cycles", T_UINT, 0, 10000000, 1000, burn_cycles,
	    "TSC cycles the burn stage spends on each packet"),
	ENG("cycles_sample", T_UINT, 1, 1024, MPE_DEF_CYCLES_SAMPLE, cycles_sample,
	    "workers time one non-empty burst in this many for cycles per packet (1: every one)"),
	ENG("rules", T_STR, 1, MPE_PATH_LEN - 1, 0, rules,
	    "rules file of the acl stage (relative to this file's directory)"),
	ENG("default_action", T_ALLOWDROP, 0, 1, 0, default_drop,
	    "what the acl stage does with a packet no rule matches"),
	ENG("flow_capacity", T_UINT, 8, 1u << 24, MPE_DEF_FLOW_CAPACITY, flow_capacity,
	    "flows in each worker's flow table"),
	ENG("flow_timeout_ms", T_UINT, 0, 86400000, MPE_DEF_FLOW_TIMEOUT_MS, flow_timeout_ms,
	    "a flow idle this long leaves the table (0: never)"),
	ENG("flow_full", T_DROPPASS, 0, 1, 1, flow_full_pass,
	    "what the flow stage does with a packet of a new flow when the table is full"),
	ENG("tx", T_TXMODE, 0, 1, 0, tx_workers,
	    "who transmits: io (the I/O lcore) or workers (each on a queue of its own)"),
	ENG("rx", T_TXMODE, 0, 1, 0, rx_workers,
	    "who polls the ports in a pipeline: io (the I/O lcore) or workers (the first one)"),
	ENG("sandbox", T_BOOL, 0, 1, 1, sandbox,
	    "each worker process locks itself down once attached: seccomp, Landlock, no "
	    "capabilities (process build)"),
	ENG("worker_user", T_STR, 1, MPE_USER_LEN - 1, 0, worker_user,
	    "user the worker processes switch to as they lock down (process build, sandbox = "
	    "on); not given: they stay the primary's user"),
	ENG("recorder", T_BOOL, 0, 1, 1, recorder,
	    "each worker keeps its last packets, dumped as pcapng on demand and at its death"),
	ENG("recorder_packets", T_POW2, 64, 65536, MPE_DEF_RECORDER_PACKETS, recorder_packets,
	    "packets each worker's flight recorder holds (at least twice burst)"),
	ENG("recorder_snap", T_UINT, 16, MPE_MAX_RECORDER_SNAP, MPE_DEF_RECORDER_SNAP,
	    recorder_snap, "bytes of each packet the flight recorder keeps"),
	ENG("quarantine_after", T_UINT, 0, 1000, MPE_DEF_QUARANTINE_AFTER, quarantine_after,
	    "fault deaths of workers holding a flow's packets before the flow is blocked "
	    "(0: never)"),
	ENG("mirror_port", T_UINT, 0, MPE_MAX_PORTS - 1, MPE_PORT_NONE, mirror_port,
	    "port that gets a copy of every packet a mirror rule matches"),
	ENG("numa", T_WARNREFUSE, 0, 1, 0, numa_refuse,
	    "a polling lcore on another socket than a port it polls or transmits to: warned "
	    "about at start, or the start refused"),
	ENG("pools", T_POOLS, 0, 1, 0, pools_per_port,
	    "mbuf pools: socket (one on each socket a receiving port is on, each port's queues "
	    "taking mbufs from their socket's) or port (one for each receiving port, so that no "
	    "port's traffic takes another's mbufs); each holds `mbufs`"),
	PRT("device", T_STR, 1, MPE_DEVNAME_LEN - 1, 0, device, 1, "ethdev name"),
	PRT("peer", T_UINT, 0, MPE_MAX_PORTS - 1, MPE_PORT_NONE, peer, 0,
	    "port that transmits what this port receives"),
	PRT("rx_queues", T_UINT, 1, MPE_MAX_QUEUES, 0, rx_queues, 0, "RX queues"),
	PRT("rx", T_BOOL, 0, 1, 1, rx, 0, "poll this port for received packets"),
	PRT("dst_mac", T_MAC, 0, 0, 0, dst_mac, 0, "destination MAC of frames sent out here"),
	WRK("lcore", T_UINT, 1, RTE_MAX_LCORE - 1, 0, lcore, 1, "lcore id of the worker"),
	WRK("cpu", T_CPU, 0, CPU_SETSIZE - 1, MPE_CPU_ANY, cpu, 0, "CPU the lcore runs on"),
	WRK("stages", T_STAGES, 0, 0, 0, stages, 0, "stages the worker runs, in order"),
	WRK("queue", T_UINT, 0, MPE_MAX_QUEUES - 1, MPE_QUEUE_AUTO, queue, 0,
	    "queue of every port the worker owns: rss: the RX queue it polls and the TX queue it "
	    "sends on; tx = workers: the TX queue"),
	IOL("lcore", T_UINT, 1, RTE_MAX_LCORE - 1, 0, lcore, 1,
	    "lcore id of an I/O lcore (with [io N] sections, in place of engine io_lcore)"),
	IOL("rx", T_IORX, 0, 0, 0, rxq, 0,
	    "what it receives from: PORT (every RX queue of it) or PORT:QUEUE, comma-separated; "
	    "no [io N] gives rx: the RX queues dealt out in turn"),
	IOL("tx", T_BOOL, 0, 1, 1, tx, 0,
	    "it transmits what came in through it, on a TX queue of its own of every port "
	    "(off: receive only; another I/O lcore transmits); a pipeline with rx = workers: "
	    "one I/O lcore transmits everything, [io 0] unless another says on"),
};

static const char *const shape_names[] = {"pipeline", "distributor", "rss"};

static char *
trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

static void
add_loc(struct parser *p, const char *sect, const char *key, int line)
{
	int prev = loc_line(p, sect, key);

	if (prev > 0) {
		if (key[0] == '\0')
			report(p, line, NULL, "[%s]: section repeated (first at line %d)", sect, prev);
		else
			report(p, line, key, "repeated in [%s] (first at line %d)", sect, prev);
		return;
	}
	if (p->nb_locs == MAX_LOCS) {
		report(p, line, NULL, "too many lines with content (at most %d)", MAX_LOCS);
		return;
	}
	snprintf(p->locs[p->nb_locs].sect, CFG_NAME_LEN, "%s", sect);
	snprintf(p->locs[p->nb_locs].key, CFG_NAME_LEN, "%s", key);
	p->locs[p->nb_locs++].line = line;
}

/* The text pass: syntax, duplicates, and the line of everything. */
static int
scan_text(struct parser *p, FILE *f)
{
	char *buf = NULL;
	char sect[CFG_NAME_LEN] = "";
	int line = 0, start = p->errors;
	size_t size = 0;
	ssize_t len;

	while ((len = getline(&buf, &size, f)) >= 0) {
		char *s, *eq, *c;

		line++;
		if ((size_t)len != strlen(buf)) {
			report(p, line, NULL, "NUL byte in the line");
			continue;
		}
		if (line == 1 && strncmp(buf, "\xef\xbb\xbf", 3) == 0) {
			/* what some editors write first; DPDK's INI reader takes it for text */
			report(p, line, NULL, "the file begins with a UTF-8 byte order mark: save it "
			       "without one");
			free(buf);
			return -EINVAL;
		}
		if (len > LINE_MAX_LEN + 1 || (len == LINE_MAX_LEN + 1 && buf[len - 1] != '\n')) {
			report(p, line, NULL, "line longer than %d characters", LINE_MAX_LEN);
			continue;
		}
		c = strchr(buf, ';');
		if (c != NULL)
			*c = '\0';
		s = trim(buf);
		if (*s == '\0')
			continue;
		if (*s == '#') {
			report(p, line, NULL, "comments start with ';'");
			continue;
		}
		if (*s == '[') {
			char *end = strchr(s, ']');

			if (end == NULL || end[1] != '\0') {
				report(p, line, NULL, "section header must be '[name]' alone on its line");
				continue;
			}
			*end = '\0';
			s = trim(s + 1);
			if (*s == '\0' || strlen(s) >= CFG_NAME_LEN) {
				report(p, line, NULL, "section name empty or longer than %d",
				       CFG_NAME_LEN - 1);
				continue;
			}
			snprintf(sect, sizeof(sect), "%s", s);
			add_loc(p, sect, "", line);
			continue;
		}
		eq = strchr(s, '=');
		if (eq == NULL) {
			report(p, line, NULL, "expected 'key = value' or '[section]'");
			continue;
		}
		*eq = '\0';
		s = trim(s);
		if (*s == '\0' || strlen(s) >= CFG_NAME_LEN) {
			report(p, line, NULL, "key empty or longer than %d", CFG_NAME_LEN - 1);
			continue;
		}
		if (strlen(trim(eq + 1)) >= CFG_VALUE_LEN) {
			report(p, line, s, "value longer than %d", CFG_VALUE_LEN - 1);
			continue;
		}
		if (sect[0] == '\0') {
			report(p, line, s, "key outside of any section");
			continue;
		}
		add_loc(p, sect, s, line);
	}
	if (ferror(f) || !feof(f)) /* getline() fails without ferror() when out of memory */
		report(p, 0, NULL, "read error: %s", strerror(ferror(f) ? errno : ENOMEM));
	free(buf);
	return p->errors == start ? 0 : -EINVAL;
}

static void
store(void *base, const struct key_def *k, uint64_t v)
{
	uint8_t *dst = (uint8_t *)base + k->off;

	switch (k->size) {
	case 1: *dst = (uint8_t)v; break;
	case 2: *(uint16_t *)dst = (uint16_t)v; break;
	case 4: *(uint32_t *)dst = (uint32_t)v; break;
	default: *(uint64_t *)dst = v; break;
	}
}

static int
parse_stages(struct parser *p, int line, const char *value, struct mpe_worker_conf *w)
{
	const char *s = value;
	int bad = 0;

	w->nb_stages = 0;
	while (*s != '\0') {
		size_t len, end;
		int idx;

		while (isspace((unsigned char)*s))
			s++;
		len = strcspn(s, ",");
		for (end = len; end > 0 && isspace((unsigned char)s[end - 1]); end--)
			;
		if (end == 0) {
			/* "a,,b", ",a", "a," : a stage left out, or one comma too many */
			report(p, line, "stages", "an empty item in the list '%s'", value);
			return -EINVAL;
		}
		idx = mpe_stage_find(s, end);
		if (idx < 0) {
			report(p, line, "stages", "unknown stage '%.*s' (known: %s)", (int)end, s,
			       mpe_stage_list());
			bad = 1;
		} else if (w->nb_stages == MPE_MAX_STAGES) {
			report(p, line, "stages", "more than %d stages", MPE_MAX_STAGES);
			return -EINVAL;
		} else {
			w->stages[w->nb_stages++] = (uint8_t)idx;
		}
		s += len;
		if (*s == ',' && *++s == '\0') {
			report(p, line, "stages", "an empty item in the list '%s'", value);
			return -EINVAL;
		}
	}
	if (!bad && w->nb_stages == 0) {
		report(p, line, "stages", "empty list");
		return -EINVAL;
	}
	return bad ? -EINVAL : 0;
}

/* "0, 1:2" -> every RX queue of port 0 (rx_all; the queues are known once every section is
 * read), queue 2 of port 1. Ports and queues are checked against the ports later. */
static void
parse_io_rx(struct parser *p, int line, const char *value, struct mpe_io_conf *io)
{
	const char *s = value;

	io->rx_given = 1;
	while (*s != '\0') {
		char item[32], *colon;
		size_t len = strcspn(s, ",");
		uint64_t port, q;

		if (len >= sizeof(item)) {
			report(p, line, "rx", "'%.*s' is not PORT or PORT:QUEUE", (int)len, s);
			return;
		}
		memcpy(item, s, len);
		item[len] = '\0';
		colon = strchr(item, ':');
		if (colon != NULL)
			*colon = '\0';
		if (mpe_parse_uint(trim(item), 0, MPE_MAX_PORTS - 1, &port) < 0 ||
		    (colon != NULL && mpe_parse_uint(trim(colon + 1), 0, MPE_MAX_QUEUES - 1, &q) < 0)) {
			if (colon != NULL)
				*colon = ':';
			report(p, line, "rx", "'%s' is not PORT or PORT:QUEUE (ports 0..%d, queues "
			       "0..%d)", trim(item), MPE_MAX_PORTS - 1, MPE_MAX_QUEUES - 1);
			return;
		}
		if (colon == NULL ? (io->rx_all >> port) & 1 : (io->rxq[port] >> q) & 1) {
			report(p, line, "rx", "'%s' is named twice in the list '%s'", trim(item),
			       value);
			return;
		}
		if (colon == NULL)
			io->rx_all |= (uint16_t)(1u << port);
		else
			io->rxq[port] |= (uint16_t)(1u << q);
		s += len;
		if (*s == ',' && *++s == '\0') {
			report(p, line, "rx", "an empty item in the list '%s'", value);
			return;
		}
	}
	if (s == value)
		report(p, line, "rx", "empty list (leave rx out for an I/O lcore that only "
		       "transmits)");
}

static void
parse_value(struct parser *p, const struct key_def *k, void *base, const char *sect,
	    const char *value)
{
	int line = loc_line(p, sect, k->key);
	uint64_t v;
	int rc;

	switch (k->type) {
	case T_UINT:
	case T_CPU:
	case T_POW2:
		rc = mpe_parse_uint(value, k->min, k->max, &v);
		if (rc == -ERANGE)
			report(p, line, k->key, "'%s' out of range: must be between %" PRIu64
			       " and %" PRIu64, value, k->min, k->max);
		else if (rc < 0)
			report(p, line, k->key, "'%s' is not a whole number", value);
		else if (k->type == T_POW2 && !rte_is_power_of_2((uint32_t)v))
			report(p, line, k->key, "%" PRIu64 " is not a power of 2", v);
		else
			store(base, k, v);
		return;
	case T_BOOL:
		rc = mpe_parse_bool(value);
		if (rc < 0)
			report(p, line, k->key, "'%s' is not on/off, yes/no, true/false or 1/0",
			       value);
		else
			store(base, k, (uint64_t)rc);
		return;
	case T_SHAPE:
		for (v = 0; v < RTE_DIM(shape_names); v++)
			if (strcmp(value, shape_names[v]) == 0)
				break;
		if (v == RTE_DIM(shape_names))
			report(p, line, k->key, "'%s' is not one of pipeline, distributor, rss",
			       value);
		else
			store(base, k, v);
		return;
	case T_DROPPASS:
		if (strcmp(value, "drop") == 0 || strcmp(value, "pass") == 0)
			store(base, k, value[0] == 'p');
		else
			report(p, line, k->key, "'%s' is not drop or pass", value);
		return;
	case T_TXMODE:
		if (strcmp(value, "io") == 0 || strcmp(value, "workers") == 0)
			store(base, k, value[0] == 'w');
		else
			report(p, line, k->key, "'%s' is not io or workers", value);
		return;
	case T_POOLS:
		if (strcmp(value, "socket") == 0 || strcmp(value, "port") == 0)
			store(base, k, value[0] == 'p');
		else
			report(p, line, k->key, "'%s' is not socket or port", value);
		return;
	case T_WARNREFUSE:
		if (strcmp(value, "warn") == 0 || strcmp(value, "refuse") == 0)
			store(base, k, value[0] == 'r');
		else
			report(p, line, k->key, "'%s' is not warn or refuse", value);
		return;
	case T_ALLOWDROP:
		if (strcmp(value, "allow") == 0 || strcmp(value, "drop") == 0)
			store(base, k, value[0] == 'd');
		else
			report(p, line, k->key, "'%s' is not allow or drop", value);
		return;
	case T_STR:
		if (strlen(value) < k->min || strlen(value) > k->max)
			report(p, line, k->key, "length must be between %" PRIu64 " and %" PRIu64,
			       k->min, k->max);
		else
			snprintf((char *)base + k->off, k->size, "%s", value);
		return;
	case T_MAC:
		if (mpe_parse_mac(value, (uint8_t *)base + k->off) < 0)
			report(p, line, k->key, "'%s' is not a MAC address like 02:00:00:00:00:01",
			       value);
		else
			((struct mpe_port_conf *)base)->has_dst_mac = 1;
		return;
	case T_STAGES:
		parse_stages(p, line, value, base);
		return;
	case T_IORX:
		parse_io_rx(p, line, value, base);
		return;
	}
}

static void
apply_defaults(enum sect sect, void *base)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(keys); i++)
		if (keys[i].sect == sect && keys[i].type != T_STR && keys[i].type != T_MAC &&
		    keys[i].type != T_STAGES && keys[i].type != T_IORX)
			store(base, &keys[i], keys[i].def);
	if (sect == SECT_WORKER) {
		struct mpe_worker_conf *w = base;

		w->nb_stages = 1;
		w->stages[0] = MPE_STAGE_FWD;
	}
}

void
mpe_config_defaults(struct mpe_conf *conf)
{
	memset(conf, 0, sizeof(*conf));
	apply_defaults(SECT_ENGINE, conf);
	conf->worker_uid = MPE_UID_NONE;
	conf->worker_gid = MPE_UID_NONE;
}

const char *
mpe_config_shape_name(uint32_t shape)
{
	return shape < RTE_DIM(shape_names) ? shape_names[shape] : "?";
}

/* "port 3" -> SECT_PORT, 3. Returns -EINVAL for anything else. */
static int
classify(struct parser *p, const char *name, enum sect *sect, unsigned int *idx)
{
	static const struct {
		const char *word;
		enum sect sect;
		unsigned int max;
	} kinds[] = {{"port", SECT_PORT, MPE_MAX_PORTS}, {"worker", SECT_WORKER, MPE_MAX_WORKERS},
		     {"io", SECT_IO, MPE_MAX_IO}};
	int line = loc_line(p, name, "");
	char canon[CFG_NAME_LEN];
	unsigned int i;
	uint64_t v;

	if (strcmp(name, "engine") == 0) {
		*sect = SECT_ENGINE;
		*idx = 0;
		return 0;
	}
	for (i = 0; i < RTE_DIM(kinds); i++) {
		size_t len = strlen(kinds[i].word);

		if (strncmp(name, kinds[i].word, len) != 0 || !isspace((unsigned char)name[len]))
			continue;
		if (mpe_parse_uint(trim((char *)(uintptr_t)(name + len)), 0, kinds[i].max - 1,
				   &v) < 0) {
			report(p, line, NULL, "[%s]: %s number must be between 0 and %u", name,
			       kinds[i].word, kinds[i].max - 1);
			return -EINVAL;
		}
		/* one spelling per section, so that "[port 00]" cannot shadow "[port 0]" */
		snprintf(canon, sizeof(canon), "%s %u", kinds[i].word, (unsigned int)v);
		if (strcmp(name, canon) != 0) {
			report(p, line, NULL, "[%s]: write it as [%s]", name, canon);
			return -EINVAL;
		}
		*sect = kinds[i].sect;
		*idx = (unsigned int)v;
		return 0;
	}
	report(p, line, NULL, "[%s]: unknown section (known: [engine], [port N], [worker N], "
	       "[io N])", name);
	return -EINVAL;
}

static const struct key_def *
find_key(enum sect sect, const char *name)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(keys); i++)
		if (keys[i].sect == sect && strcmp(keys[i].key, name) == 0)
			return &keys[i];
	return NULL;
}

static void
load_section(struct parser *p, struct rte_cfgfile *cfg, const char *name, struct mpe_conf *conf,
	     uint8_t *seen_port, uint8_t *seen_worker, uint8_t *seen_io)
{
	struct rte_cfgfile_entry *entries;
	unsigned int idx, i;
	enum sect sect;
	void *base;
	int n;

	if (classify(p, name, &sect, &idx) < 0)
		return;
	if (sect == SECT_PORT) {
		base = &conf->ports[idx];
		seen_port[idx] = 1;
		conf->ports[idx].line = loc_line(p, name, "");
	} else if (sect == SECT_WORKER) {
		base = &conf->workers[idx];
		seen_worker[idx] = 1;
		conf->workers[idx].line = loc_line(p, name, "");
	} else if (sect == SECT_IO) {
		base = &conf->io[idx];
		seen_io[idx] = 1;
		conf->io[idx].line = loc_line(p, name, "");
	} else {
		base = conf;
	}
	if (sect != SECT_ENGINE)
		apply_defaults(sect, base);

	n = rte_cfgfile_section_num_entries(cfg, name);
	entries = calloc(n > 0 ? (size_t)n : 1, sizeof(*entries));
	if (entries == NULL) {
		report(p, loc_line(p, name, ""), NULL, "[%s]: out of memory", name);
		return;
	}
	n = rte_cfgfile_section_entries(cfg, name, entries, n);
	for (i = 0; i < (unsigned int)n; i++) {
		const struct key_def *k = find_key(sect, entries[i].name);

		if (k == NULL) {
			report(p, loc_line(p, name, entries[i].name), entries[i].name,
			       "unknown key in [%s]", name);
			continue;
		}
		parse_value(p, k, base, name, entries[i].value);
	}
	free(entries);
	for (i = 0; i < RTE_DIM(keys); i++)
		if (keys[i].sect == sect && keys[i].required &&
		    !rte_cfgfile_has_entry(cfg, name, keys[i].key))
			report(p, loc_line(p, name, ""), keys[i].key, "missing in [%s] (%s)", name,
			       keys[i].help);
}

int
mpe_config_load(const char *path, struct mpe_conf *conf, FILE *err)
{
	struct parser *p;
	struct rte_cfgfile *cfg;
	uint8_t seen_port[MPE_MAX_PORTS] = {0}, seen_worker[MPE_MAX_WORKERS] = {0};
	uint8_t seen_io[MPE_MAX_IO] = {0};
	char (*names)[CFG_NAME_LEN], why[128];
	int i, n, rc;
	FILE *f;

	mpe_config_defaults(conf);
	snprintf(conf->path, sizeof(conf->path), "%s", path);
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->path = path;
	p->err = err;
	/* kept whole: relative rules files and reloads are found from its directory */
	if (strlen(path) >= sizeof(conf->path)) {
		report(p, 0, NULL, "a path of %zu characters: at most %zu", strlen(path),
		       sizeof(conf->path) - 1);
		goto out;
	}

	f = mpe_textfile_open(path, CONFIG_FILE_MAX, why, sizeof(why));
	if (f == NULL) {
		report(p, 0, NULL, "cannot open: %s", why);
		goto out;
	}
	rc = scan_text(p, f);
	fclose(f);
	if (rc < 0)
		goto out;

	cfg = rte_cfgfile_load(path, CFG_FLAG_EMPTY_VALUES);
	if (cfg == NULL) {
		report(p, 0, NULL, "cannot be parsed as INI");
		goto out;
	}
	n = rte_cfgfile_num_sections(cfg, NULL, 0);
	names = calloc(n > 0 ? n : 1, sizeof(*names));
	if (names == NULL) {
		rte_cfgfile_close(cfg);
		free(p);
		return -ENOMEM;
	}
	{
		char *ptrs[MAX_LOCS];

		for (i = 0; i < n && i < MAX_LOCS; i++)
			ptrs[i] = names[i];
		n = rte_cfgfile_sections(cfg, ptrs, RTE_MIN(n, MAX_LOCS));
	}
	for (i = 0; i < n; i++)
		load_section(p, cfg, names[i], conf, seen_port, seen_worker, seen_io);
	free(names);
	rte_cfgfile_close(cfg);
	conf->sandbox_line = loc_line(p, "engine", "sandbox");
	conf->standby_line = loc_line(p, "engine", "standby");
	conf->worker_user_line = loc_line(p, "engine", "worker_user");
	mpe_config_check(p, conf, seen_port, seen_worker, seen_io);
out:
	rc = p->errors;
	free(p);
	return rc == 0 ? 0 : -rc;
}

void
mpe_config_dump(const struct mpe_conf *c, FILE *out)
{
	unsigned int i, j;

	/* a key left out is written as a comment, so that the text loads back the same */
	fprintf(out, "[engine]\nshape = %s\nburst = %u\n%sring_size = %u\n%smbufs = %u\n"
		"mbuf_cache = %u\nmbuf_data = %u\nrx_desc = %u\ntx_desc = %u\n%sio_lcore = %u\n"
		"backpressure = %s\nready_timeout_ms = %u\ndrain_timeout_ms = %u\nrestart = %s\n"
		"restart_max = %u\nrestart_window_ms = %u\nrestart_backoff_ms = %u\n"
		"stall_timeout_ms = %u\nstats_period_ms = %u\nburn_cycles = %u\ncycles_sample = %u\n"
		"malformed = %s\n",
		mpe_config_shape_name(c->shape), c->burst, c->ring_size_auto ? "; " : "",
		c->ring_size, c->mbufs_auto ? "; " : "", c->mbufs, c->mbuf_cache,
		c->mbuf_data, c->rx_desc, c->tx_desc, c->nb_io && !c->io_implicit ? "; " : "",
		c->io_lcore, c->backpressure ? "on" : "off",
		c->ready_timeout_ms, c->drain_timeout_ms, c->restart ? "on" : "off", c->restart_max,
		c->restart_window_ms, c->restart_backoff_ms, c->stall_timeout_ms,
		c->stats_period_ms, c->burn_cycles, c->cycles_sample,
		c->malformed_pass ? "pass" : "drop");
	if (c->rules[0] != '\0')
		fprintf(out, "rules = %s\n", c->rules);
	fprintf(out, "default_action = %s\nflow_capacity = %u\nflow_timeout_ms = %u\n"
		"flow_full = %s\ntx = %s\nrx = %s\nsandbox = %s\nrecorder = %s\n"
		"recorder_packets = %u\nrecorder_snap = %u\nquarantine_after = %u\nstandby = %u\n"
		"carry = %s\nnuma = %s\npools = %s\n",
		c->default_drop ? "drop" : "allow", c->flow_capacity, c->flow_timeout_ms,
		c->flow_full_pass ? "pass" : "drop", c->tx_workers ? "workers" : "io",
		c->rx_workers ? "workers" : "io", c->sandbox ? "on" : "off",
		c->recorder ? "on" : "off", c->recorder_packets, c->recorder_snap,
		c->quarantine_after, c->standby, c->carry ? "on" : "off",
		c->numa_refuse ? "refuse" : "warn", c->pools_per_port ? "port" : "socket");
	if (c->worker_user[0] != '\0')
		fprintf(out, "worker_user = %s\n", c->worker_user);
	if (c->mirror_port != MPE_PORT_NONE)
		fprintf(out, "mirror_port = %u\n", c->mirror_port);
	for (i = 0; i < c->nb_ports; i++) {
		const struct mpe_port_conf *pc = &c->ports[i];

		fprintf(out, "\n[port %u]\ndevice = %s\npeer = %u\nrx_queues = %u\nrx = %s\n", i,
			pc->device, pc->peer, pc->rx_queues, pc->rx ? "on" : "off");
		if (pc->has_dst_mac)
			fprintf(out, "dst_mac = %02x:%02x:%02x:%02x:%02x:%02x\n", pc->dst_mac[0],
				pc->dst_mac[1], pc->dst_mac[2], pc->dst_mac[3], pc->dst_mac[4],
				pc->dst_mac[5]);
	}
	for (i = 0; i < c->nb_workers; i++) {
		const struct mpe_worker_conf *w = &c->workers[i];

		fprintf(out, "\n[worker %u]\nlcore = %u\n", i, w->lcore);
		if (w->cpu != MPE_CPU_ANY)
			fprintf(out, "cpu = %u\n", w->cpu);
		if (w->queue != MPE_QUEUE_AUTO && w->queue != i) /* the id: the default */
			fprintf(out, "queue = %u\n", w->queue);
		fprintf(out, "stages = ");
		for (j = 0; j < w->nb_stages; j++)
			fprintf(out, "%s%s", j ? "," : "", mpe_stage_info(w->stages[j])->name);
		fputc('\n', out);
	}
	for (i = 0; !c->io_implicit && i < c->nb_io; i++) {
		const struct mpe_io_conf *io = &c->io[i];
		const char *sep = "";

		fprintf(out, "\n[io %u]\nlcore = %u\n", i, io->lcore);
		/* as resolved, every queue by its number: loaded back, every section that
		 * polls one gives rx, and together they cover every queue */
		for (j = 0; j < c->nb_ports; j++) {
			unsigned int q;

			for (q = 0; q < MPE_MAX_QUEUES; q++)
				if ((io->rxq[j] >> q) & 1) {
					fprintf(out, "%s%u:%u", *sep ? "," : "rx = ", j, q);
					sep = ",";
				}
		}
		if (*sep != '\0')
			fputc('\n', out);
		fprintf(out, "tx = %s\n", io->tx ? "on" : "off");
	}
}

void
mpe_config_help(FILE *out)
{
	static const char *const sect_names[] = {"[engine]", "[port N]", "[worker N]", "[io N]"};
	unsigned int i;

	fprintf(out, "| section | key | values | default | meaning |\n|---|---|---|---|---|\n");
	for (i = 0; i < RTE_DIM(keys); i++) {
		const struct key_def *k = &keys[i];
		char range[64], def[32];

		switch (k->type) {
		case T_UINT:
		case T_CPU:
			snprintf(range, sizeof(range), "%" PRIu64 "..%" PRIu64, k->min, k->max);
			break;
		case T_POW2:
			snprintf(range, sizeof(range), "power of 2, %" PRIu64 "..%" PRIu64, k->min,
				 k->max);
			break;
		case T_BOOL: snprintf(range, sizeof(range), "on, off"); break;
		case T_SHAPE: snprintf(range, sizeof(range), "pipeline, distributor, rss"); break;
		case T_DROPPASS: snprintf(range, sizeof(range), "drop, pass"); break;
		case T_ALLOWDROP: snprintf(range, sizeof(range), "allow, drop"); break;
		case T_WARNREFUSE: snprintf(range, sizeof(range), "warn, refuse"); break;
		case T_POOLS: snprintf(range, sizeof(range), "socket, port"); break;
		case T_TXMODE: snprintf(range, sizeof(range), "io, workers"); break;
		case T_STR:
			snprintf(range, sizeof(range), "text, %" PRIu64 "..%" PRIu64 " chars", k->min,
				 k->max);
			break;
		case T_MAC: snprintf(range, sizeof(range), "MAC address"); break;
		case T_STAGES: snprintf(range, sizeof(range), "list of: %s", mpe_stage_list()); break;
		case T_IORX: snprintf(range, sizeof(range), "list of PORT, PORT:QUEUE"); break;
		}
		if (k->required)
			snprintf(def, sizeof(def), "required");
		else if (k->type == T_BOOL)
			snprintf(def, sizeof(def), "%s", k->def ? "on" : "off");
		else if (k->type == T_SHAPE)
			snprintf(def, sizeof(def), "%s", shape_names[k->def]);
		else if (k->type == T_DROPPASS)
			snprintf(def, sizeof(def), "%s", k->def ? "pass" : "drop");
		else if (k->type == T_WARNREFUSE)
			snprintf(def, sizeof(def), "%s", k->def ? "refuse" : "warn");
		else if (k->type == T_POOLS)
			snprintf(def, sizeof(def), "%s", k->def ? "port" : "socket");
		else if (k->type == T_ALLOWDROP)
			snprintf(def, sizeof(def), "%s", k->def ? "drop" : "allow");
		else if (k->type == T_TXMODE)
			snprintf(def, sizeof(def), "io; rss: workers");
		else if (k->type == T_STR)
			snprintf(def, sizeof(def), "none");
		else if (strcmp(k->key, "mirror_port") == 0)
			snprintf(def, sizeof(def), "none");
		else if (k->type == T_STAGES)
			snprintf(def, sizeof(def), "fwd");
		else if (k->type == T_IORX)
			snprintf(def, sizeof(def), "dealt out");
		else if (k->type == T_MAC)
			snprintf(def, sizeof(def), "no rewrite");
		else if (strcmp(k->key, "peer") == 0)
			snprintf(def, sizeof(def), "N xor 1");
		else if (strcmp(k->key, "rx_queues") == 0)
			snprintf(def, sizeof(def), "1; rss: highest queue + 1");
		else if (strcmp(k->key, "queue") == 0)
			snprintf(def, sizeof(def), "worker id");
		else if (k->type == T_CPU)
			snprintf(def, sizeof(def), "chosen");
		else
			snprintf(def, sizeof(def), "%" PRIu64, k->def);
		fprintf(out, "| %s | %s | %s | %s | %s |\n", sect_names[k->sect], k->key, range, def,
			k->help);
	}
}
