/* The engine's telemetry commands (/mpe/info, /mpe/stats, /mpe/workers, /mpe/rings,
 * /mpe/config), served by DPDK's telemetry threads in the primary (one thread per client).
 * Concurrency: the callbacks run beside the main lcore, the I/O lcore and the workers. They
 * only read shared memory and ring headers, never ask a worker anything and never wait for
 * one, so they answer while a worker is stopped or dead. Counters are read while they move:
 * a reply is not one snapshot. The only state written here is the heartbeat-age table, under
 * a private lock that no other thread of the engine takes.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ring.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "config.h"
#include "log.h"
#include "primary.h"
#include "shm_ops.h"
#include "stage.h"
#include "stats.h"

/* Every dict and array built here stays within the library's limits by construction. */
_Static_assert(2 * MPE_MAX_WORKERS <= RTE_TEL_MAX_DICT_ENTRIES, "/mpe/rings, /mpe/workers");
_Static_assert(MPE_MAX_WORKERS <= RTE_TEL_MAX_ARRAY_ENTRIES, "/mpe/info lcores");
_Static_assert(MPE_MAX_PORTS <= RTE_TEL_MAX_DICT_ENTRIES, "/mpe/stats ports");
_Static_assert(MPE_DROP_MAX <= RTE_TEL_MAX_DICT_ENTRIES, "drops");
_Static_assert(MPE_MAX_STAGES <= RTE_TEL_MAX_DICT_ENTRIES, "stages");

static struct mpe_primary *tel_primary; /* set by init, cleared by fini, under open_lock */

/* Held for reading by every command while it runs; fini takes it for writing, so teardown
 * frees nothing under a command still reading. */
static rte_rwlock_t open_lock = RTE_RWLOCK_INITIALIZER;

/* When each worker's heartbeat was last seen to change, by any telemetry request. */
static struct {
	rte_spinlock_t lock;
	uint64_t beat[MPE_MAX_WORKERS];
	uint64_t seen_tsc[MPE_MAX_WORKERS]; /* when beat[] last changed; 0: never looked */
} beats = {.lock = RTE_SPINLOCK_INITIALIZER};

/* The shared state while it may be read; NULL before init and once teardown has begun
 * (run state STOP), after which rings and the memzone are freed. */
static const struct mpe_shared *
engine(void)
{
	const struct mpe_shared *shm;

	if (tel_primary == NULL)
		return NULL;
	shm = __atomic_load_n(&tel_primary->shm, __ATOMIC_ACQUIRE);
	if (shm == NULL || shm->run_state == MPE_RUN_STOP)
		return NULL;
	return shm;
}

/* Hand @child to @d under @name: freed with @d, or now if it could not be added. */
static int
add_child(struct rte_tel_data *d, const char *name, struct rte_tel_data *child)
{
	int rc = rte_tel_data_add_dict_container(d, name, child, 0);

	if (rc < 0)
		rte_tel_data_free(child);
	return rc;
}

static struct rte_tel_data *
new_dict(void)
{
	struct rte_tel_data *d = rte_tel_data_alloc();

	if (d != NULL)
		rte_tel_data_start_dict(d);
	return d;
}

static uint64_t
per_packet(uint64_t cycles, uint64_t packets)
{
	return packets == 0 ? 0 : cycles / packets;
}

/* Every drop reason, zeros included, so that a client sees the same keys every time. */
static int
add_drops(struct rte_tel_data *d, const uint64_t drops[MPE_DROP_MAX])
{
	struct rte_tel_data *c = new_dict();
	unsigned int r;

	if (c == NULL)
		return -ENOMEM;
	for (r = 0; r < MPE_DROP_MAX; r++)
		rte_tel_data_add_dict_u64(c, mpe_stats_drop_name(r), drops[r]);
	return add_child(d, "drops", c);
}

static int
cmd_info(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_conf *conf;
	struct rte_tel_data *lcores;
	unsigned int i;

	if (shm == NULL)
		return -ENODEV;
	conf = &shm->conf;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", MPE_BUILD_ID);
	rte_tel_data_add_dict_string(d, "model", shm->worker_model ? "thread" : "process");
	rte_tel_data_add_dict_string(d, "shape", mpe_config_shape_name(conf->shape));
	rte_tel_data_add_dict_u64(d, "workers", conf->nb_workers);
	rte_tel_data_add_dict_int(d, "io_lcore",
				  conf->shape == MPE_SHAPE_RSS ? -1 : (int)conf->io_lcore);
	lcores = rte_tel_data_alloc();
	if (lcores == NULL)
		return -ENOMEM;
	rte_tel_data_start_array(lcores, RTE_TEL_U64_VAL);
	for (i = 0; i < conf->nb_workers; i++)
		rte_tel_data_add_array_u64(lcores, conf->workers[i].lcore);
	if (add_child(d, "lcores", lcores) < 0)
		return -ENOMEM;
	rte_tel_data_add_dict_u64(
		d, "uptime_s", shm->tsc_hz == 0 ? 0 : (rte_rdtsc() - shm->start_tsc) / shm->tsc_hz);
	rte_tel_data_add_dict_int(d, "primary_pid", shm->primary_pid);
	return 0;
}

static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_conf *conf;
	struct rte_tel_data *ports;
	struct mpe_totals t;
	unsigned int i;
	int rc;

	if (shm == NULL)
		return -ENODEV;
	conf = &shm->conf;
	mpe_stats_totals(shm, &t);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "in", t.in);
	rte_tel_data_add_dict_u64(d, "out", t.out);
	rte_tel_data_add_dict_u64(d, "dropped", t.dropped);
	rc = add_drops(d, t.drops);
	if (rc < 0)
		return rc;
	/* in the rss shape the workers poll the ports: no per-port counters exist */
	if (conf->shape == MPE_SHAPE_RSS)
		return 0;
	ports = new_dict();
	if (ports == NULL)
		return -ENOMEM;
	for (i = 0; i < conf->nb_ports; i++) {
		struct rte_tel_data *port = new_dict();
		char key[8];

		if (port == NULL) {
			rte_tel_data_free(ports);
			return -ENOMEM;
		}
		snprintf(key, sizeof(key), "%u", i);
		rte_tel_data_add_dict_string(port, "device", conf->ports[i].device);
		rte_tel_data_add_dict_u64(port, "rx", shm->io.port[i].rx);
		rte_tel_data_add_dict_u64(port, "tx", shm->io.port[i].tx);
		if (add_child(ports, key, port) < 0) {
			rte_tel_data_free(ports);
			return -ENOMEM;
		}
	}
	return add_child(d, "ports", ports);
}

/* Worker @id's heartbeat into @beat, and the milliseconds since it last changed as seen by
 * telemetry requests: the first request that looks at a worker reports 0. The heartbeat and
 * the time are read under the lock, so that concurrent clients see time move forward. */
static uint64_t
heartbeat_age_ms(unsigned int id, const struct mpe_worker_slot *slot, uint64_t hz, uint64_t *beat)
{
	uint64_t now, age, per_ms = hz / 1000 ? hz / 1000 : 1;

	rte_spinlock_lock(&beats.lock);
	*beat = slot->status.heartbeat;
	now = rte_rdtsc();
	if (beats.seen_tsc[id] == 0 || beats.beat[id] != *beat) {
		beats.beat[id] = *beat;
		beats.seen_tsc[id] = now;
	}
	age = (now - beats.seen_tsc[id]) / per_ms;
	rte_spinlock_unlock(&beats.lock);
	return age;
}

/* The telemetry library refuses dict keys with other characters than these. */
static int
valid_key(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '/')
			return 0;
	return 1;
}

/* Stage counters of one worker: name -> {packets, cycles_per_packet}. A stage that appears
 * twice in a worker's list gets its position appended ("burn_2"), keys being unique; a name
 * the library would refuse becomes "stage<position>". */
static int
add_stages(struct rte_tel_data *w, const struct mpe_worker_conf *wc,
	   const struct mpe_worker_slot *slot)
{
	struct rte_tel_data *stages = new_dict();
	unsigned int s, k;

	if (stages == NULL)
		return -ENOMEM;
	for (s = 0; s < wc->nb_stages && s < MPE_MAX_STAGES; s++) {
		const struct mpe_counters *sc = &slot->stage_cnt[s];
		const char *name = mpe_stage_get(wc->stages[s])->name;
		struct rte_tel_data *st = new_dict();
		char key[RTE_TEL_MAX_STRING_LEN];

		if (st == NULL) {
			rte_tel_data_free(stages);
			return -ENOMEM;
		}
		snprintf(key, sizeof(key), "%s", name);
		for (k = 0; k < s; k++)
			if (wc->stages[k] == wc->stages[s])
				snprintf(key, sizeof(key), "%s_%u", name, s);
		if (!valid_key(key))
			snprintf(key, sizeof(key), "stage%u", s);
		rte_tel_data_add_dict_u64(st, "packets", sc->rx);
		rte_tel_data_add_dict_u64(st, "cycles_per_packet", per_packet(sc->cycles, sc->rx));
		if (add_child(stages, key, st) < 0) {
			rte_tel_data_free(stages);
			return -ENOMEM;
		}
	}
	return add_child(w, "stages", stages);
}

static int
add_worker(struct rte_tel_data *d, const struct mpe_shared *shm, unsigned int id)
{
	const struct mpe_worker_slot *slot = &shm->workers[id];
	const struct mpe_worker_conf *wc = &shm->conf.workers[id];
	struct rte_tel_data *w = new_dict();
	char key[8], cause[sizeof(slot->ctl.last_cause)];
	uint64_t beat, age;

	if (w == NULL)
		return -ENOMEM;
	/* the primary may rewrite the cause while we read it: copy, then terminate */
	memcpy(cause, slot->ctl.last_cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	age = heartbeat_age_ms(id, slot, shm->tsc_hz, &beat);
	rte_tel_data_add_dict_int(w, "pid", slot->status.pid);
	rte_tel_data_add_dict_u64(w, "lcore", wc->lcore);
	rte_tel_data_add_dict_string(w, "state", mpe_stats_state_name(slot->status.state));
	rte_tel_data_add_dict_u64(w, "heartbeat", beat);
	rte_tel_data_add_dict_u64(w, "heartbeat_age_ms", age);
	rte_tel_data_add_dict_u64(w, "rx", slot->cnt.rx);
	rte_tel_data_add_dict_u64(w, "tx", slot->cnt.tx);
	if (add_drops(w, slot->cnt.drops) < 0) {
		rte_tel_data_free(w);
		return -ENOMEM;
	}
	rte_tel_data_add_dict_u64(w, "restarts", slot->ctl.restarts);
	rte_tel_data_add_dict_u64(w, "lost", slot->ctl.lost);
	rte_tel_data_add_dict_string(w, "last_cause", cause);
	rte_tel_data_add_dict_u64(w, "last_recover_ms", slot->ctl.last_recover_us / 1000);
	rte_tel_data_add_dict_int(w, "down", slot->ctl.down != 0);
	rte_tel_data_add_dict_int(w, "dead", slot->ctl.dead != 0);
	rte_tel_data_add_dict_u64(w, "cycles_per_packet",
				  per_packet(slot->cnt.cycles, slot->cnt.rx));
	if (add_stages(w, wc, slot) < 0) {
		rte_tel_data_free(w);
		return -ENOMEM;
	}
	snprintf(key, sizeof(key), "%u", id);
	return add_child(d, key, w);
}

static int
cmd_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	unsigned int i;
	int rc;

	if (shm == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	for (i = 0; i < shm->conf.nb_workers && i < MPE_MAX_WORKERS; i++) {
		rc = add_worker(d, shm, i);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int
cmd_rings(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_primary *p = tel_primary;
	unsigned int i;

	if (engine() == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	for (i = 0; i < p->nb_rings && i < RTE_DIM(p->rings); i++) {
		const struct rte_ring *r = p->rings[i];
		struct rte_tel_data *c = new_dict();

		if (c == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_u64(c, "count", rte_ring_count(r));
		rte_tel_data_add_dict_u64(c, "capacity", rte_ring_get_capacity(r));
		rte_tel_data_add_dict_u64(c, "free", rte_ring_free_count(r));
		if (add_child(d, r->name, c) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The configuration as INI text, one string. The telemetry library takes a single string of
 * at most RTE_TEL_MAX_SINGLE_STRING_LEN - 1 bytes; a longer text (not reachable with today's
 * limits: about 7 KiB at most) is sent as an array of lines instead, each at most
 * RTE_TEL_MAX_STRING_LEN - 1 bytes and RTE_TEL_MAX_ARRAY_ENTRIES of them. */
static int
cmd_config(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	char *text = NULL, *line, *save = NULL;
	unsigned int n = 0;
	size_t len = 0;
	FILE *f;

	if (shm == NULL)
		return -ENODEV;
	f = open_memstream(&text, &len);
	if (f == NULL)
		return -errno;
	mpe_config_dump(&shm->conf, f);
	if (fclose(f) != 0 || text == NULL) {
		free(text);
		return -ENOMEM;
	}
	if (len < RTE_TEL_MAX_SINGLE_STRING_LEN) {
		rte_tel_data_string(d, text);
		free(text);
		return 0;
	}
	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		if (n == RTE_TEL_MAX_ARRAY_ENTRIES - 1) {
			rte_tel_data_add_array_string(d, "; (truncated: too many lines)");
			break;
		}
		rte_tel_data_add_array_string(d, line);
		n++;
	}
	free(text);
	return 0;
}

/* The commands as registered: each runs under open_lock (telemetry callbacks take no
 * context, so one wrapper is made per command). */
#define LOCKED(fn)                                                                          \
	static int fn##_locked(const char *cmd, const char *params, struct rte_tel_data *d)  \
	{                                                                                   \
		int rc;                                                                     \
                                                                                            \
		rte_rwlock_read_lock(&open_lock);                                          \
		rc = fn(cmd, params, d);                                                    \
		rte_rwlock_read_unlock(&open_lock);                                        \
		return rc;                                                                  \
	}

LOCKED(cmd_info)
LOCKED(cmd_stats)
LOCKED(cmd_workers)
LOCKED(cmd_rings)
LOCKED(cmd_config)

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help; /* the library keeps RTE_TEL_MAX_STRING_LEN - 1 bytes */
} commands[] = {
	{"/mpe/info", cmd_info_locked,
	 "Engine: version, model, shape, workers, io_lcore (-1: rss), lcores, uptime_s, "
	 "primary_pid. No parameters"},
	{"/mpe/stats", cmd_stats_locked,
	 "Totals: in, out, dropped, drops by reason; ports rx/tx (ring shapes). No parameters"},
	{"/mpe/workers", cmd_workers_locked,
	 "Per worker id: pid, state, heartbeat(_age_ms), rx, tx, drops, restarts, stages. "
	 "No parameters"},
	{"/mpe/rings", cmd_rings_locked, "Per ring name: count, capacity, free. No parameters"},
	{"/mpe/config", cmd_config_locked, "The running configuration as INI text. No parameters"},
};

void
mpe_telemetry_fini(void)
{
	rte_rwlock_write_lock(&open_lock);
	tel_primary = NULL;
	rte_rwlock_write_unlock(&open_lock);
}

int
mpe_telemetry_init(struct mpe_primary *p)
{
	unsigned int i;
	int rc;

	if (p == NULL || p->shm == NULL)
		return -EINVAL;
	tel_primary = p;
	for (i = 0; i < RTE_DIM(commands); i++) {
		rc = rte_telemetry_register_cmd(commands[i].cmd, commands[i].fn, commands[i].help);
		if (rc < 0) {
			MPE_LOG(WARNING, engine, "telemetry: %s: cannot register: %s",
				commands[i].cmd, strerror(-rc));
			return rc;
		}
	}
	return 0;
}
