/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine's telemetry commands (/mpe/info, /mpe/stats, /mpe/workers, /mpe/rings,
 * /mpe/config), served by DPDK's telemetry threads in the primary (one thread per client).
 * Concurrency: the callbacks run beside the main lcore, the I/O lcore and the workers. They
 * only read shared memory and ring headers, never ask a worker anything and never wait for
 * one, so they answer while a worker is stopped or dead. Counters are read while they move:
 * a reply is not one snapshot. The only state written here is the heartbeat-age table, under
 * a private lock that no other thread of the engine takes.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_atomic.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_ring.h>
#include <rte_rwlock.h>
#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "config.h"
#include "context.h"
#include "dump.h"
#include "flow.h"
#include "inspect.h"
#include "log.h"
#include "quarantine.h"
#include "record.h"
#include "ruleset.h"
#include "shm_ops.h"
#include "stage.h"
#include "stats.h"
#include "telemetry.h"

/* Every dict and array built here stays within the library's limits by construction. */
_Static_assert(MPE_MAX_RINGS <= RTE_TEL_MAX_DICT_ENTRIES, "/mpe/rings");
_Static_assert(MPE_MAX_WORKERS <= RTE_TEL_MAX_DICT_ENTRIES, "/mpe/workers");
_Static_assert(MPE_MAX_WORKERS <= RTE_TEL_MAX_ARRAY_ENTRIES, "/mpe/info lcores");
_Static_assert(MPE_MAX_PORTS <= RTE_TEL_MAX_DICT_ENTRIES, "/mpe/stats ports");
_Static_assert(MPE_DROP_MAX <= RTE_TEL_MAX_DICT_ENTRIES, "drops");
_Static_assert(MPE_MAX_STAGES <= RTE_TEL_MAX_DICT_ENTRIES, "stages");

/* rte_telemetry_register_cmd refuses a help text of RTE_TEL_MAX_STRING_LEN bytes or more:
 * a longer literal does not compile (array of negative size). */
#define HELP(s) ((s) + 0 * sizeof(char[sizeof(s) < RTE_TEL_MAX_STRING_LEN ? 1 : -1]))

/* The library keeps strings of at most RTE_TEL_MAX_STRING_LEN - 1 bytes and refuses longer
 * ones (E2BIG): a longer text (a long path, a rule with two full IPv6 addresses) is sent cut,
 * ending in "...", never dropped or cut silently. @buf holds RTE_TEL_MAX_STRING_LEN bytes. */
static const char *
fit(const char *s, char *buf)
{
	if (strlen(s) < RTE_TEL_MAX_STRING_LEN)
		return s;
	snprintf(buf, RTE_TEL_MAX_STRING_LEN, "%.*s...", RTE_TEL_MAX_STRING_LEN - 4, s);
	return buf;
}

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
	unsigned int i, k, parked;

	if (shm == NULL)
		return -ENODEV;
	conf = &shm->conf;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "version", MPE_BUILD_ID);
	rte_tel_data_add_dict_string(d, "model", shm->worker_model ? "thread" : "process");
	rte_tel_data_add_dict_string(d, "shape", mpe_config_shape_name(conf->shape));
	rte_tel_data_add_dict_u64(d, "workers", conf->nb_workers);
	rte_tel_data_add_dict_int(d, "io_lcore",
				  mpe_config_io_used(conf) ? (int)conf->io_lcore : -1);
	/* the workers', then every I/O lcore ([io N] sections; io_lcore is the first) */
	for (k = 0; k < 2; k++) {
		unsigned int n = k == 0 ? conf->nb_workers : conf->nb_io;

		lcores = rte_tel_data_alloc();
		if (lcores == NULL)
			return -ENOMEM;
		rte_tel_data_start_array(lcores, RTE_TEL_U64_VAL);
		for (i = 0; i < n; i++)
			rte_tel_data_add_array_u64(lcores, k == 0 ? conf->workers[i].lcore :
								    conf->io[i].lcore);
		if (add_child(d, k == 0 ? "lcores" : "io_lcores", lcores) < 0)
			return -ENOMEM;
	}
	rte_tel_data_add_dict_u64(
		d, "uptime_s", shm->tsc_hz == 0 ? 0 : (rte_rdtsc() - shm->start_tsc) / shm->tsc_hz);
	rte_tel_data_add_dict_int(d, "primary_pid", shm->primary_pid);
	rte_tel_data_add_dict_u64(d, "tsc_hz", shm->tsc_hz); /* the unit of every *cycles* */
	rte_tel_data_add_dict_u64(d, "pools", shm->nb_pools); /* mbuf pools (mpe_names_pool) */
	/* standby worker processes: configured, and parked now (ready to take over) */
	for (i = 0, parked = 0; i < conf->standby; i++)
		parked += shm->standby[i].state == MPE_WORKER_READY;
	rte_tel_data_add_dict_u64(d, "standby", conf->standby);
	rte_tel_data_add_dict_u64(d, "standby_parked", parked);
	return 0;
}

static int
cmd_stats(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_conf *conf;
	struct rte_tel_data *ports, *io;
	struct mpe_totals t;
	uint64_t full;
	struct mpe_io_stats sum;
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
	rte_tel_data_add_dict_u64(d, "in_doubt", t.in_doubt);
	rc = add_drops(d, t.drops);
	if (rc < 0)
		return rc;
	/* with no I/O lcore the workers poll the ports: no per-port counters exist */
	if (!mpe_config_io_used(conf))
		return 0;
	/* the I/O lcore's loop, the polls on which it left the ports alone because the workers
	 * had no room, and their TSC cycles: the time it waited for the workers. A loop that
	 * only transmits (the pipeline's first worker receives) never waits so: those two are
	 * left out rather than shown as 0, which would read as never waiting. full_polls is
	 * read before polls, which the loop counts first: never more full polls than polls. */
	io = new_dict();
	if (io == NULL)
		return -ENOMEM;
	/* of every I/O lcore, added up */
	for (i = 0, full = 0; i < conf->nb_io; i++)
		full += shm->io[i].full_polls;
	rte_smp_rmb();
	mpe_io_sum(shm->io, conf->nb_io, &sum);
	rte_tel_data_add_dict_u64(io, "polls", sum.io.polls);
	/* packets the loops moved from the workers' rings to the ports, and the TSC cycles of
	 * their polls that received or moved packets (a loop that only receives times one in
	 * cycles_sample): over what the I/O lcores received, or moved when they do not
	 * receive, their cost per packet */
	rte_tel_data_add_dict_u64(io, "moved", sum.io.rx);
	rte_tel_data_add_dict_u64(io, "cycles", sum.io.cycles);
	if (mpe_config_io_receives(conf)) {
		rte_tel_data_add_dict_u64(io, "full_polls", full);
		rte_tel_data_add_dict_u64(io, "wait_cycles", sum.io.wait_cycles);
	}
	rc = add_child(d, "io", io);
	if (rc < 0)
		return rc;
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
		rte_tel_data_add_dict_u64(port, "rx", sum.port[i].rx);
		rte_tel_data_add_dict_u64(port, "tx", sum.port[i].tx);
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
		const char *name = mpe_stage_info(wc->stages[s])->name;
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

/* Worker @id's fields into the started dict @w. */
static int
fill_worker(struct rte_tel_data *w, const struct mpe_shared *shm, unsigned int id)
{
	const struct mpe_worker_slot *slot = &shm->workers[id];
	const struct mpe_worker_conf *wc = &shm->conf.workers[id];
	const struct mpe_counters *cnt = MPE_SHM_WORKER_CNT(shm, id);
	char cause[sizeof(slot->ctl.last_cause)], sandbox[sizeof(slot->status.sandbox)];
	uint64_t beat, age;

	/* the primary may rewrite the cause while we read it: copy, then terminate */
	memcpy(cause, slot->ctl.last_cause, sizeof(cause));
	cause[sizeof(cause) - 1] = '\0';
	/* and a new instance its sandbox */
	memcpy(sandbox, slot->status.sandbox, sizeof(sandbox));
	sandbox[sizeof(sandbox) - 1] = '\0';
	age = heartbeat_age_ms(id, slot, shm->tsc_hz, &beat);
	rte_tel_data_add_dict_int(w, "pid", slot->status.pid);
	rte_tel_data_add_dict_u64(w, "lcore", slot->ctl.lcore);
	rte_tel_data_add_dict_string(w, "state", mpe_stats_state_name(slot->status.state));
	rte_tel_data_add_dict_u64(w, "heartbeat", beat);
	rte_tel_data_add_dict_u64(w, "heartbeat_age_ms", age);
	rte_tel_data_add_dict_u64(w, "rx", cnt->rx);
	rte_tel_data_add_dict_u64(w, "tx", cnt->tx);
	/* polls of its input, those that found packets, and the TSC cycles of the polls that
	 * found none (tsc_hz in /mpe/info): the time it waited for what feeds it */
	rte_tel_data_add_dict_u64(w, "polls", cnt->polls);
	rte_tel_data_add_dict_u64(w, "bursts", cnt->bursts);
	rte_tel_data_add_dict_u64(w, "wait_cycles", cnt->wait_cycles);
	if (add_drops(w, cnt->drops) < 0)
		return -ENOMEM;
	rte_tel_data_add_dict_u64(w, "restarts", slot->ctl.restarts);
	rte_tel_data_add_dict_u64(w, "lost", slot->ctl.lost);
	rte_tel_data_add_dict_u64(w, "in_doubt", slot->ctl.in_doubt);
	rte_tel_data_add_dict_u64(w, "carried", slot->ctl.carried);
	rte_tel_data_add_dict_string(w, "last_cause", cause);
	rte_tel_data_add_dict_u64(w, "last_recover_ms", slot->ctl.last_recover_us / 1000);
	/* standbys (docs/standby.md): deaths one took over from, and the last outage, from the
	 * death seen to the next instance's first burst */
	rte_tel_data_add_dict_u64(w, "takeovers", slot->ctl.takeovers);
	rte_tel_data_add_dict_u64(w, "last_outage_us", slot->ctl.last_outage_us);
	rte_tel_data_add_dict_int(w, "down", slot->ctl.down != 0);
	rte_tel_data_add_dict_int(w, "dead", slot->ctl.dead != 0);
	/* what its sandbox applied ("" while it attaches), and how often it killed it */
	rte_tel_data_add_dict_string(w, "sandbox", sandbox);
	rte_tel_data_add_dict_u64(w, "sandbox_kills", slot->ctl.sandbox_kills);
	/* deaths by a fault signal, and the packets they left in its stages (quarantined) */
	rte_tel_data_add_dict_u64(w, "fault_deaths", slot->ctl.fault_deaths);
	rte_tel_data_add_dict_u64(w, "quarantined", slot->ctl.quarantined);
	rte_tel_data_add_dict_u64(w, "cycles_per_packet",
				  per_packet(cnt->cycles, cnt->rx));
	/* the cycles above and the stages' are timed on one non-empty burst in this many */
	rte_tel_data_add_dict_u64(w, "cycles_sample", shm->conf.cycles_sample);
	if (slot->ctl.rec != NULL) {
		/* its flight recorder's writes, timed as the stages are */
		struct rte_tel_data *r = new_dict();

		if (r == NULL)
			return -ENOMEM;
		rte_tel_data_add_dict_u64(r, "packets", slot->rec_cnt.rx);
		rte_tel_data_add_dict_u64(r, "cycles", slot->rec_cnt.cycles);
		rte_tel_data_add_dict_u64(r, "cycles_per_packet",
					  per_packet(slot->rec_cnt.cycles, slot->rec_cnt.rx));
		if (add_child(w, "recorder", r) < 0)
			return -ENOMEM;
	}
	return add_stages(w, wc, slot);
}

static int
add_worker(struct rte_tel_data *d, const struct mpe_shared *shm, unsigned int id)
{
	struct rte_tel_data *w = new_dict();
	char key[8];

	if (w == NULL)
		return -ENOMEM;
	if (fill_worker(w, shm, id) < 0) {
		rte_tel_data_free(w);
		return -ENOMEM;
	}
	snprintf(key, sizeof(key), "%u", id);
	return add_child(d, key, w);
}

/* A worker number from a command's parameter: 0 or -EINVAL. */
static int
param_worker(const struct mpe_shared *shm, const char *params, unsigned int *id)
{
	char *end;
	unsigned long v;

	if (params == NULL || !isdigit((unsigned char)params[0]))
		return -EINVAL;
	v = strtoul(params, &end, 10);
	if (*end != '\0' || v >= shm->conf.nb_workers)
		return -EINVAL;
	*id = (unsigned int)v;
	return 0;
}

/* One worker in detail: what /mpe/workers says of it, malformed frames by reason and the
 * inspection stages' counters. */
static int
worker_detail(const struct mpe_shared *shm, unsigned int id, struct rte_tel_data *d)
{
	const struct mpe_worker_slot *slot = &shm->workers[id];
	const struct mpe_inspect_counters *in = &slot->insp;
	struct rte_tel_data *bad, *insp;
	unsigned int r;

	if (fill_worker(d, shm, id) < 0)
		return -ENOMEM;
	/* when the primary saw its last death, CLOCK_MONOTONIC (mpe-chaos: the time from its
	 * signal); in the detail only, which the 16 KiB page of 8 workers has no room for */
	rte_tel_data_add_dict_u64(d, "last_death_ns", slot->ctl.died_ns);
	/* the TSC cycles of its polls that found packets (estimated from one in cycles_sample):
	 * between two readings, over the packets taken, its cost per packet over that time */
	rte_tel_data_add_dict_u64(d, "cycles", MPE_SHM_WORKER_CNT(shm, id)->cycles);
	bad = new_dict();
	if (bad == NULL)
		return -ENOMEM;
	for (r = 1; r < MPE_DECODE_BAD_MAX; r++)
		rte_tel_data_add_dict_u64(bad, mpe_decode_bad_name(r), slot->malformed[r]);
	if (add_child(d, "malformed", bad) < 0)
		return -ENOMEM;
	insp = new_dict();
	if (insp == NULL)
		return -ENOMEM;
	rte_tel_data_add_dict_u64(insp, "acl_lookups", in->acl_lookups);
	rte_tel_data_add_dict_u64(insp, "acl_cached", in->acl_cached);
	rte_tel_data_add_dict_u64(insp, "flow_full", in->flow_full);
	rte_tel_data_add_dict_u64(insp, "mirrored", in->mirrored);
	rte_tel_data_add_dict_u64(insp, "mirror_drops", in->mirror_drops);
	return add_child(d, "inspect", insp);
}

/* Workers per /mpe/workers reply. The library drops, without a word, whatever does not fit
 * its 16 KiB reply; a worker at its largest (every counter at 20 digits, MPE_MAX_STAGES
 * stages, the longest cause) takes about 1.7 KB, so this many always fit. */
#define WORKERS_PER_REPLY 8

/* /mpe/workers[,from=FIRST]: workers FIRST.. (at most WORKERS_PER_REPLY; "next" says where
 * the following page starts). /mpe/workers,W: worker W in detail. */
static int
cmd_workers(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	unsigned int i, first = 0, nb;
	int rc;

	if (shm == NULL)
		return -ENODEV;
	nb = RTE_MIN(shm->conf.nb_workers, (unsigned int)MPE_MAX_WORKERS);
	rte_tel_data_start_dict(d);
	if (params != NULL && strncmp(params, "from=", 5) == 0) {
		if (param_worker(shm, params + 5, &first) < 0)
			return -EINVAL;
	} else if (params != NULL && params[0] != '\0') {
		if (param_worker(shm, params, &i) < 0)
			return -EINVAL;
		rte_tel_data_add_dict_u64(d, "id", i);
		return worker_detail(shm, i, d);
	}
	for (i = first; i < nb; i++) {
		if (i - first == WORKERS_PER_REPLY) {
			rte_tel_data_add_dict_u64(d, "next", i);
			break;
		}
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

#define ACL_RULES_PER_REPLY 48
#define FLOWS_TOP 10

/* /mpe/acl[,FIRST]: the rule set in force and its hits summed over the workers, rules
 * FIRST.. (at most ACL_RULES_PER_REPLY; "next" says where the following page starts), and
 * what the generations replaced so far classified, per rules file. */
static int
cmd_acl(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_ruleset *rs;
	const struct mpe_inspect_file *files;
	struct rte_tel_data *rules, *fnames, *fpackets;
	uint64_t reloads, errors;
	unsigned long first = 0;
	unsigned int retired, nf, i;
	char *end, cut[RTE_TEL_MAX_STRING_LEN];
	int rc = 0;

	if (shm == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0') {
		if (!isdigit((unsigned char)params[0]))
			return -EINVAL;
		first = strtoul(params, &end, 10);
		if (*end != '\0')
			return -EINVAL;
	}
	rte_tel_data_start_dict(d);
	mpe_inspect_lock();
	rs = mpe_inspect_ruleset();
	if (rs == NULL) {
		mpe_inspect_unlock();
		rte_tel_data_add_dict_u64(d, "generation", 0);
		rte_tel_data_add_dict_string(d, "file", "");
		return 0;
	}
	mpe_inspect_counts(&reloads, &errors, &retired);
	rte_tel_data_add_dict_u64(d, "generation", rs->generation);
	rte_tel_data_add_dict_string(d, "file", fit(rs->file, cut));
	rte_tel_data_add_dict_u64(d, "nb_rules", rs->nb_rules);
	rte_tel_data_add_dict_string(d, "default_action", mpe_rule_action_name(rs->default_action));
	rte_tel_data_add_dict_u64(d, "default_hits", mpe_ruleset_hits(rs, 0));
	rte_tel_data_add_dict_u64(d, "reloads", reloads);
	rte_tel_data_add_dict_u64(d, "reload_errors", errors);
	rte_tel_data_add_dict_u64(d, "retired_pending", retired);
	rules = new_dict();
	if (rules == NULL) {
		mpe_inspect_unlock();
		return -ENOMEM;
	}
	for (i = (unsigned int)RTE_MIN(first, (unsigned long)rs->nb_rules);
	     i < rs->nb_rules && rc == 0; i++) {
		const struct mpe_rule *r = &rs->rules[i];
		struct rte_tel_data *one;
		char key[16], text[2 * RTE_TEL_MAX_STRING_LEN];

		if (i - first == ACL_RULES_PER_REPLY) {
			rte_tel_data_add_dict_u64(d, "next", i);
			break;
		}
		one = new_dict();
		if (one == NULL) {
			rc = -ENOMEM;
			break;
		}
		mpe_rule_format(r, text, sizeof(text));
		rte_tel_data_add_dict_u64(one, "line", r->line);
		rte_tel_data_add_dict_u64(one, "priority", r->priority);
		rte_tel_data_add_dict_string(one, "action", mpe_rule_action_name(r->action));
		rte_tel_data_add_dict_u64(one, "hits", mpe_ruleset_hits(rs, i + 1));
		rte_tel_data_add_dict_string(one, "rule", fit(text, cut));
		snprintf(key, sizeof(key), "%u", i);
		rc = add_child(rules, key, one);
	}
	nf = mpe_inspect_files(&files);
	mpe_inspect_unlock();
	if (rc < 0 || add_child(d, "rules", rules) < 0)
		return -ENOMEM;
	/* replaced generations, summed per rules file */
	fnames = rte_tel_data_alloc();
	fpackets = rte_tel_data_alloc();
	if (fnames == NULL || fpackets == NULL) {
		rte_tel_data_free(fnames);
		rte_tel_data_free(fpackets);
		return -ENOMEM;
	}
	rte_tel_data_start_array(fnames, RTE_TEL_STRING_VAL);
	rte_tel_data_start_array(fpackets, RTE_TEL_U64_VAL);
	for (i = 0; i < nf; i++) {
		rte_tel_data_add_array_string(fnames, fit(files[i].file, cut));
		rte_tel_data_add_array_u64(fpackets, files[i].packets);
	}
	if (add_child(d, "retired_files", fnames) < 0)
		return -ENOMEM;
	return add_child(d, "retired_packets", fpackets);
}

static void
tcp_flag_letters(uint8_t f, char *buf)
{
	static const char letters[] = "FSRPAUEC";
	unsigned int i, n = 0;

	for (i = 0; i < 8; i++)
		if (f & (1u << i))
			buf[n++] = letters[i];
	buf[n] = '\0';
}

static void
endpoint(const struct mpe_flow_key *k, int dst, char *buf, size_t size)
{
	char addr[INET6_ADDRSTRLEN];

	if (inet_ntop(k->family == MPE_FLOW_IPV6 ? AF_INET6 : AF_INET, dst ? k->dst : k->src,
		      addr, sizeof(addr)) == NULL)
		snprintf(addr, sizeof(addr), "?");
	snprintf(buf, size, k->family == MPE_FLOW_IPV6 ? "[%s]:%u" : "%s:%u", addr,
		 ntohs(dst ? k->dport : k->sport));
}

/* /mpe/flows,W: worker W's flow table counters and its FLOWS_TOP flows by bytes. "a" is the
 * endpoint that sent the flow's first packet; _ab counts a to b, _ba the other way. */
static int
cmd_flows(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_flow *top[FLOWS_TOP];
	const struct mpe_flow_table *t;
	struct mpe_flow_stats st;
	struct rte_tel_data *list;
	uint64_t per_ms;
	unsigned int id;
	int n, i;

	if (shm == NULL)
		return -ENODEV;
	if (param_worker(shm, params, &id) < 0)
		return -EINVAL;
	per_ms = shm->tsc_hz / 1000 ? shm->tsc_hz / 1000 : 1;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "worker", id);
	t = mpe_inspect_flows(id);
	if (t == NULL) {
		rte_tel_data_add_dict_u64(d, "capacity", 0);
		return 0;
	}
	mpe_flow_table_stats(t, &st);
	rte_tel_data_add_dict_u64(d, "capacity", t->capacity);
	rte_tel_data_add_dict_u64(d, "active", st.active);
	rte_tel_data_add_dict_u64(d, "inserted", st.inserted);
	rte_tel_data_add_dict_u64(d, "expired", st.expired);
	rte_tel_data_add_dict_u64(d, "full", st.table_full);
	rte_tel_data_add_dict_u64(d, "lookups", st.lookups);
	rte_tel_data_add_dict_u64(d, "cache_hits", st.cache_hits);
	rte_tel_data_add_dict_u64(d, "resets", st.resets);
	rte_tel_data_add_dict_u64(d, "unhash_miss", st.unhash_miss);
	n = mpe_flow_top(t, FLOWS_TOP, top);
	list = new_dict();
	if (list == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct mpe_flow *f = top[i];
		struct rte_tel_data *one = new_dict();
		char a[64], b[64], key[8], fl[9];
		int rev = f->fwd_from_dst;

		if (one == NULL) {
			rte_tel_data_free(list);
			return -ENOMEM;
		}
		endpoint(&f->key, rev, a, sizeof(a));
		endpoint(&f->key, !rev, b, sizeof(b));
		rte_tel_data_add_dict_u64(one, "proto", f->key.proto);
		rte_tel_data_add_dict_string(one, "a", a);
		rte_tel_data_add_dict_string(one, "b", b);
		rte_tel_data_add_dict_u64(one, "packets_ab", f->pkts[MPE_FLOW_DIR_FWD]);
		rte_tel_data_add_dict_u64(one, "packets_ba", f->pkts[MPE_FLOW_DIR_REV]);
		rte_tel_data_add_dict_u64(one, "bytes_ab", f->bytes[MPE_FLOW_DIR_FWD]);
		rte_tel_data_add_dict_u64(one, "bytes_ba", f->bytes[MPE_FLOW_DIR_REV]);
		tcp_flag_letters(f->tcp_flags[MPE_FLOW_DIR_FWD], fl);
		rte_tel_data_add_dict_string(one, "tcp_flags_ab", fl);
		tcp_flag_letters(f->tcp_flags[MPE_FLOW_DIR_REV], fl);
		rte_tel_data_add_dict_string(one, "tcp_flags_ba", fl);
		rte_tel_data_add_dict_u64(one, "first_ms", (f->first_seen - shm->start_tsc) / per_ms);
		rte_tel_data_add_dict_u64(one, "last_ms", (f->last_seen - shm->start_tsc) / per_ms);
		snprintf(key, sizeof(key), "%d", i);
		if (add_child(list, key, one) < 0) {
			rte_tel_data_free(list);
			return -ENOMEM;
		}
	}
	return add_child(d, "top", list);
}

#define RELOAD_ERRORS_MAX 64

/* /mpe/reload[,FILE]: read and build FILE (or the file in force), put it in force. The reply
 * says ok, or lists every error (the old rules stay). */
static int
cmd_reload(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct rte_tel_data *errs;
	char *msg = NULL, *line, *save = NULL, cut[RTE_TEL_MAX_STRING_LEN];
	uint32_t gen = 0, nb = 0;
	unsigned int n = 0;
	size_t len = 0;
	FILE *err;
	int rc;

	if (engine() == NULL)
		return -ENODEV;
	err = open_memstream(&msg, &len);
	if (err == NULL)
		return -ENOMEM;
	rc = mpe_inspect_reload(params, err, &gen, &nb);
	fclose(err);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "ok", rc == 0);
	if (rc == 0) {
		const struct mpe_ruleset *rs;

		rte_tel_data_add_dict_u64(d, "generation", gen);
		rte_tel_data_add_dict_u64(d, "rules", nb);
		mpe_inspect_lock();
		rs = mpe_inspect_ruleset();
		if (rs != NULL)
			rte_tel_data_add_dict_string(d, "file", fit(rs->file, cut));
		mpe_inspect_unlock();
		free(msg);
		return 0;
	}
	errs = rte_tel_data_alloc();
	if (errs == NULL) {
		free(msg);
		return -ENOMEM;
	}
	rte_tel_data_start_array(errs, RTE_TEL_STRING_VAL);
	for (line = msg != NULL ? strtok_r(msg, "\n", &save) : NULL; line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		/* the engine's log has every one, whole */
		MPE_LOG(WARNING, engine, "rules reload refused: %s", line);
		if (n < RELOAD_ERRORS_MAX)
			rte_tel_data_add_array_string(errs, fit(line, cut));
		else if (n == RELOAD_ERRORS_MAX)
			rte_tel_data_add_array_string(errs, "(more errors: see the engine's log)");
		n++;
	}
	free(msg);
	return add_child(d, "errors", errs);
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

/* Writes a debug dump (dump.c) and answers {"path": FILE}, or {"error": REASON}. */
static int
cmd_dump(const char *cmd, const char *params, struct rte_tel_data *d)
{
	char path[PATH_MAX], msg[RTE_TEL_MAX_STRING_LEN];
	int rc;

	if (engine() == NULL)
		return -ENODEV;
	rte_tel_data_start_dict(d);
	rc = mpe_dump_write(tel_primary, path, sizeof(path));
	if (rc < 0) {
		snprintf(msg, sizeof(msg), "cannot write the dump: %s", strerror(-rc));
		rte_tel_data_add_dict_string(d, "error", msg);
		return 0;
	}
	MPE_LOG(INFO, engine, "dump: written to %s (telemetry)", path);
	if (strlen(path) >= RTE_TEL_MAX_STRING_LEN)
		rte_tel_data_add_dict_string(d, "error", "dump written, but its path is too long "
					     "for a telemetry string: see the engine's log");
	else
		rte_tel_data_add_dict_string(d, "path", path);
	return 0;
}

/* /mpe/record,W: worker W's flight recorder into a pcapng file in the runtime directory;
 * answers {"path": FILE, "packets": N}, or {"error": REASON}. */
static int
cmd_record(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	char path[PATH_MAX], msg[RTE_TEL_MAX_STRING_LEN];
	unsigned int id;
	int n;

	if (shm == NULL)
		return -ENODEV;
	if (param_worker(shm, params, &id) < 0)
		return -EINVAL;
	rte_tel_data_start_dict(d);
	n = mpe_record_file(tel_primary, id, path, sizeof(path));
	if (n < 0) {
		snprintf(msg, sizeof(msg), "worker %u: %s", id, n == -ENOENT ?
			 "recorder = off" : strerror(-n));
		rte_tel_data_add_dict_string(d, "error", msg);
		return 0;
	}
	rte_tel_data_add_dict_string(d, "path", fit(path, msg));
	rte_tel_data_add_dict_u64(d, "packets", (uint64_t)n);
	return 0;
}

/* Flows the quarantine knows, per entry index: flow, state (suspect, blocked), deaths,
 * quarantined, blocked (packets dropped since it was blocked); and the file. */
static int
cmd_quarantine(const char *cmd, const char *params, struct rte_tel_data *d)
{
	const struct mpe_shared *shm = engine();
	const struct mpe_quarantine *q;
	struct rte_tel_data *flows;
	char key[16], text[128], buf[RTE_TEL_MAX_STRING_LEN];
	unsigned int i, nb;

	if (shm == NULL)
		return -ENODEV;
	if (params != NULL && params[0] != '\0')
		return -EINVAL;
	q = &shm->quar;
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_u64(d, "quarantine_after", shm->conf.quarantine_after);
	rte_tel_data_add_dict_u64(d, "blocked", q->blocked);
	rte_tel_data_add_dict_u64(d, "untracked", q->full);
	snprintf(text, sizeof(text), "%s/%s", rte_eal_get_runtime_dir(), MPE_QUARANTINE_FILE);
	rte_tel_data_add_dict_string(d, "file", fit(text, buf));
	flows = new_dict();
	if (flows == NULL)
		return -ENOMEM;
	nb = RTE_MIN(__atomic_load_n(&q->nb, __ATOMIC_ACQUIRE), (uint32_t)MPE_QUARANTINE_FLOWS);
	for (i = 0; i < nb; i++) {
		const struct mpe_qflow *e = &q->flows[i];
		uint32_t state = __atomic_load_n(&e->state, __ATOMIC_ACQUIRE);
		struct rte_tel_data *f;

		if (state == MPE_QFLOW_FREE)
			continue;
		f = new_dict();
		if (f == NULL) {
			rte_tel_data_free(flows);
			return -ENOMEM;
		}
		mpe_quarantine_flow_text(&e->key, text, sizeof(text));
		rte_tel_data_add_dict_string(f, "flow", fit(text, buf));
		rte_tel_data_add_dict_string(f, "state", state == MPE_QFLOW_BLOCKED ? "blocked" :
					     "suspect");
		rte_tel_data_add_dict_u64(f, "deaths", e->deaths);
		rte_tel_data_add_dict_u64(f, "quarantined", e->quarantined);
		rte_tel_data_add_dict_u64(f, "blocked_packets",
					  mpe_quarantine_blocked_packets(tel_primary, i));
		rte_tel_data_add_dict_string(f, "last_signal", sigabbrev_np(e->last_signal) != NULL ?
					     sigabbrev_np(e->last_signal) : "?");
		rte_tel_data_add_dict_u64(f, "last_worker", e->last_worker);
		snprintf(key, sizeof(key), "%u", i);
		if (add_child(flows, key, f) < 0) {
			rte_tel_data_free(flows);
			return -ENOMEM;
		}
	}
	return add_child(d, "flows", flows);
}

/* /mpe/quarantine_clear,N|all: release flow N (its index in /mpe/quarantine), or all;
 * answers {"released": BLOCKED FLOWS, "forgotten": SUSPECTS} or {"error": REASON}. */
static int
cmd_quarantine_clear(const char *cmd, const char *params, struct rte_tel_data *d)
{
	unsigned int forgotten;
	char *end;
	unsigned long v;
	int entry = -1, n;

	if (engine() == NULL)
		return -ENODEV;
	if (params == NULL || params[0] == '\0')
		return -EINVAL;
	if (strcmp(params, "all") != 0) {
		if (!isdigit((unsigned char)params[0]))
			return -EINVAL;
		v = strtoul(params, &end, 10);
		if (*end != '\0' || v >= MPE_QUARANTINE_FLOWS)
			return -EINVAL;
		entry = (int)v;
	}
	rte_tel_data_start_dict(d);
	n = mpe_quarantine_clear(tel_primary, entry, &forgotten);
	if (n < 0) {
		rte_tel_data_add_dict_string(d, "error", entry < 0 ? "no flow is quarantined" :
					     "no such flow in the quarantine");
		return 0;
	}
	rte_tel_data_add_dict_u64(d, "released", (uint64_t)n);
	rte_tel_data_add_dict_u64(d, "forgotten", forgotten);
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
LOCKED(cmd_acl)
LOCKED(cmd_flows)
LOCKED(cmd_reload)
LOCKED(cmd_dump)
LOCKED(cmd_record)
LOCKED(cmd_quarantine)
LOCKED(cmd_quarantine_clear)

static const struct {
	const char *cmd;
	telemetry_cb fn;
	const char *help; /* the library keeps RTE_TEL_MAX_STRING_LEN - 1 bytes */
} commands[] = {
	{"/mpe/info", cmd_info_locked,
	 HELP("Engine: version, model, shape, workers, io_lcore[s] (-1: none), lcores, "
	 "uptime_s, primary_pid, tsc_hz, pools, standby[_parked]")},
	{"/mpe/stats", cmd_stats_locked,
	 HELP("Totals: in, out, dropped, drops; ports rx/tx; io polls, moved, cycles, "
	 "full_polls, wait_cycles (ring shapes)")},
	{"/mpe/workers", cmd_workers_locked,
	 HELP("Per worker: pid, state, rx, tx, polls, wait_cycles, drops, stages; 8 a reply, "
	 "from=N, 'next'. W: worker W, malformed too")},
	{"/mpe/rings", cmd_rings_locked, HELP("Per ring name: count, capacity, free. No parameters")},
	{"/mpe/config", cmd_config_locked, HELP("The running configuration as INI text. No parameters")},
	{"/mpe/acl", cmd_acl_locked,
	 HELP("Rule set in force: generation, file, default action, hits per rule from rule N on "
	 "(parameter N, default 0)")},
	{"/mpe/flows", cmd_flows_locked,
	 HELP("Flow table of worker W (parameter): counters and the top flows by bytes")},
	{"/mpe/reload", cmd_reload_locked,
	 HELP("Reload the rules (parameter: another rules file); ok, or every error")},
	{"/mpe/dump", cmd_dump_locked,
	 HELP("Write a debug dump in the runtime directory; returns its path. No parameters")},
	{"/mpe/record", cmd_record_locked,
	 HELP("Worker W's flight recorder (parameter W) as pcapng in the runtime directory; "
	 "returns its path and packets")},
	{"/mpe/quarantine", cmd_quarantine_locked,
	 HELP("Flows the quarantine knows: flow, state, deaths, quarantined, blocked_packets. "
	 "No parameters")},
	{"/mpe/quarantine_clear", cmd_quarantine_clear_locked,
	 HELP("Release quarantined flow N (parameter, its index in /mpe/quarantine), or 'all'")},
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
