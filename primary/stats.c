/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter totals and the summary printed when the engine stops. */
#include <inttypes.h>
#include <string.h>

#include "decode.h"
#include "flow.h"
#include "names.h"
#include "ruleset.h"
#include "stage.h"
#include "stats.h"

static const char *const drop_names[MPE_DROP_MAX] = {
	[MPE_DROP_RING_FULL] = "ring_full", [MPE_DROP_TX_FULL] = "tx_full",
	[MPE_DROP_NO_MBUF] = "no_mbuf",	    [MPE_DROP_VERDICT] = "verdict",
	[MPE_DROP_NO_ROUTE] = "no_route",   [MPE_DROP_SHUTDOWN] = "shutdown",
	[MPE_DROP_WORKER_DIED] = "worker_died", [MPE_DROP_WORKER_DOWN] = "worker_down",
	[MPE_DROP_QUARANTINE] = "quarantine",
};

const char *
mpe_stats_drop_name(unsigned int reason)
{
	return reason < MPE_DROP_MAX ? drop_names[reason] : "?";
}

static void
add_drops(struct mpe_totals *t, const struct mpe_counters *c)
{
	unsigned int r;

	for (r = 0; r < MPE_DROP_MAX; r++) {
		t->drops[r] += c->drops[r];
		t->dropped += c->drops[r];
	}
}

/* @a += @b, counter by counter (every field of struct mpe_counters is a uint64_t). */
static void
counters_add(struct mpe_counters *a, const struct mpe_counters *b)
{
	uint64_t *x = (uint64_t *)(void *)a;
	const uint64_t *y = (const uint64_t *)(const void *)b;
	size_t i;

	for (i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] += y[i];
}

/* The I/O lcores' @nb stats @io[] added up into @sum (running: how many run). */
void
mpe_io_sum(const struct mpe_io_stats *io, unsigned int nb, struct mpe_io_stats *sum)
{
	unsigned int k, i;

	memset(sum, 0, sizeof(*sum));
	for (k = 0; k < nb; k++) {
		counters_add(&sum->io, &io[k].io);
		for (i = 0; i < MPE_MAX_PORTS; i++)
			counters_add(&sum->port[i], &io[k].port[i]);
		sum->mirrored += io[k].mirrored;
		sum->mirror_drops += io[k].mirror_drops;
		sum->yields_fill += io[k].yields_fill;
		sum->full_polls += io[k].full_polls;
		sum->pending += io[k].pending;
		sum->running += io[k].running;
	}
}

void
mpe_stats_totals(const struct mpe_shared *shm, struct mpe_totals *t)
{
	const struct mpe_conf *conf = &shm->conf;
	struct mpe_io_stats io;
	unsigned int i;

	memset(t, 0, sizeof(*t));
	/* with no I/O lcore, io[0] holds what shutdown found in the rings */
	mpe_io_sum(shm->io, RTE_MAX(conf->nb_io, (uint16_t)1), &io);
	/* workers that poll the ports count what they received, those that transmit
	 * themselves what they sent; the I/O lcore counts the rest on its ports */
	for (i = 0; i < conf->nb_workers; i++) {
		const struct mpe_counters *c = MPE_SHM_WORKER_CNT(shm, i);

		if (mpe_config_worker_receives(conf, i))
			t->in += c->rx;
		if (mpe_config_worker_transmits(conf, i))
			t->out += c->tx;
		add_drops(t, c);
		t->in_doubt += shm->workers[i].ctl.in_doubt;
	}
	if (conf->shape != MPE_SHAPE_RSS) {
		for (i = 0; i < conf->nb_ports; i++) {
			t->in += io.port[i].rx;
			/* the mirror port sends copies: not packets of the stream */
			if (i != conf->mirror_port)
				t->out += io.port[i].tx;
		}
	}
	add_drops(t, &io.io);
	add_drops(t, &shm->sup);
}

static void
print_counters(FILE *out, const char *what, const struct mpe_counters *c, uint64_t tsc_hz)
{
	unsigned int r;

	fprintf(out, "  %-28s rx %" PRIu64 " tx %" PRIu64, what, c->rx, c->tx);
	for (r = 0; r < MPE_DROP_MAX; r++)
		if (c->drops[r] != 0)
			fprintf(out, " %s %" PRIu64, drop_names[r], c->drops[r]);
	if (c->rx > 0 && c->cycles > 0)
		fprintf(out, " cycles/pkt %.1f", (double)c->cycles / (double)c->rx);
	fputc('\n', out);
	(void)tsc_hz;
}

static const char *const state_names[] = {"none",   "starting", "ready",     "running",
					  "exited", "failed",   "restarting"};

const char *
mpe_stats_state_name(uint32_t state)
{
	return state < RTE_DIM(state_names) ? state_names[state] : "?";
}

void
mpe_stats_line(const struct mpe_shared *shm, char *buf, size_t size)
{
	const struct mpe_conf *conf = &shm->conf;
	struct mpe_totals t;
	size_t off;
	unsigned int i;

	mpe_stats_totals(shm, &t);
	off = (size_t)snprintf(buf, size, "in %" PRIu64 " out %" PRIu64 " dropped %" PRIu64,
			       t.in, t.out, t.dropped);
	for (i = 0; i < conf->nb_workers && off < size; i++) {
		const struct mpe_worker_slot *slot = &shm->workers[i];

		off += (size_t)snprintf(buf + off, size - off, " | w%u %s rx %" PRIu64 " tx %" PRIu64,
					i, mpe_stats_state_name(slot->status.state),
					MPE_SHM_WORKER_CNT(shm, i)->rx, MPE_SHM_WORKER_CNT(shm, i)->tx);
	}
}

static void
print_malformed(FILE *out, const struct mpe_worker_slot *slot)
{
	unsigned int r, any = 0;

	for (r = 0; r < MPE_DECODE_BAD_MAX; r++) {
		if (slot->malformed[r] == 0)
			continue;
		fprintf(out, "%s %s %" PRIu64, any ? "" : "    malformed:", mpe_decode_bad_name(r),
			slot->malformed[r]);
		any = 1;
	}
	if (any)
		fputc('\n', out);
}

/* The rule set in force with its hits, each flow table's counters, mirror copies. */
static void
print_inspection(const struct mpe_shared *shm, FILE *out)
{
	const struct mpe_conf *conf = &shm->conf;
	const struct mpe_ruleset *rs = shm->ruleset;
	struct mpe_io_stats io;
	uint64_t mirrored, mirror_drops;
	unsigned int i;

	mpe_io_sum(shm->io, conf->nb_io, &io);
	mirrored = io.mirrored;
	mirror_drops = io.mirror_drops;
	if (rs != NULL) {
		fprintf(out, "  acl: generation %u, %u rules from %s\n", rs->generation, rs->nb_rules,
			rs->file);
		fprintf(out, "    hits: default (%s) %" PRIu64,
			mpe_rule_action_name(rs->default_action), mpe_ruleset_hits(rs, 0));
		for (i = 0; i < rs->nb_rules; i++) {
			uint64_t h = mpe_ruleset_hits(rs, i + 1);

			if (h != 0)
				fprintf(out, ", rule %u (line %u, %s) %" PRIu64, i, rs->rules[i].line,
					mpe_rule_action_name(rs->rules[i].action), h);
		}
		fputc('\n', out);
	}
	for (i = 0; i < conf->nb_workers; i++) {
		const struct mpe_inspect_counters *in = &shm->workers[i].insp;
		char name[MPE_FLOW_NAME_MAX + 1];
		const struct mpe_flow_table *ft;
		struct mpe_flow_stats st;

		mirrored += in->mirrored;
		mirror_drops += in->mirror_drops;
		if (in->acl_lookups + in->acl_cached > 0)
			fprintf(out, "  worker %u acl: classified %" PRIu64 ", from the flow entry %"
				PRIu64 "\n", i, in->acl_lookups, in->acl_cached);
		snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, i);
		ft = mpe_flow_table_lookup(name);
		if (ft == NULL)
			continue;
		mpe_flow_table_stats(ft, &st);
		fprintf(out, "  worker %u flows: active %" PRIu64 " created %" PRIu64 " expired %"
			PRIu64 " table_full %" PRIu64 " (capacity %u)\n", i, st.active, st.inserted,
			st.expired, st.table_full, ft->capacity);
	}
	if (conf->mirror_port != MPE_PORT_NONE)
		fprintf(out, "  mirror (port %u): copies %" PRIu64 " not sent %" PRIu64 "\n",
			conf->mirror_port, mirrored, mirror_drops);
}

void
mpe_stats_summary(const struct mpe_shared *shm, FILE *out)
{
	const struct mpe_conf *conf = &shm->conf;
	struct mpe_io_stats io;
	struct mpe_totals t;
	unsigned int i, s;
	char what[64];

	fprintf(out, "mpe summary (%s build, shape %s, %u workers)\n",
		shm->worker_model ? "thread" : "process", mpe_config_shape_name(conf->shape),
		conf->nb_workers);
	mpe_io_sum(shm->io, conf->nb_io, &io);
	for (i = 0; i < conf->nb_ports; i++) {
		snprintf(what, sizeof(what), "port %u (%s)", i, conf->ports[i].device);
		if (mpe_config_io_used(conf))
			print_counters(out, what, &io.port[i], shm->tsc_hz);
		else
			fprintf(out, "  %s\n", what);
	}
	/* with no I/O lcore, what shutdown found in the rings is still counted in io[0] */
	for (i = 0; conf->shape != MPE_SHAPE_RSS && i < RTE_MAX(conf->nb_io, (uint16_t)1); i++) {
		if (mpe_config_io_used(conf))
			snprintf(what, sizeof(what), "io (lcore %u)", conf->io[i].lcore);
		else
			snprintf(what, sizeof(what), "rings (no I/O lcore)");
		print_counters(out, what, &shm->io[i].io, shm->tsc_hz);
		if (shm->io[i].yields_fill != 0)
			fprintf(out, "    gave its CPU %" PRIu64 " times to a worker on it whose input "
				"ring was half full\n", shm->io[i].yields_fill);
	}
	for (i = 0; i < conf->nb_workers; i++) {
		const struct mpe_worker_slot *slot = &shm->workers[i];
		uint32_t st = slot->status.state;

		snprintf(what, sizeof(what), "worker %u (lcore %u, %s)", i, slot->ctl.lcore,
			 mpe_stats_state_name(st));
		print_counters(out, what, MPE_SHM_WORKER_CNT(shm, i), shm->tsc_hz);
		if (slot->ctl.restarts > 0 || slot->ctl.dead)
			fprintf(out, "    restarts %u%s, lost in its hands %" PRIu64 ", last recovery "
				"%.1f ms, last end: %s\n", slot->ctl.restarts,
				slot->ctl.dead ? " (down for good)" : "", slot->ctl.lost,
				slot->ctl.last_recover_us / 1000.0, slot->ctl.last_cause);
		if (slot->ctl.takeovers > 0)
			fprintf(out, "    takeovers %u (by standbys), last outage %" PRIu64 " us\n",
				slot->ctl.takeovers, slot->ctl.last_outage_us);
		print_malformed(out, slot);
		for (s = 0; s < conf->workers[i].nb_stages; s++) {
			const struct mpe_counters *sc = &slot->stage_cnt[s];

			if (sc->rx == 0)
				continue;
			fprintf(out, "    stage %-10s packets %" PRIu64 " cycles/pkt %.1f\n",
				mpe_stage_info(conf->workers[i].stages[s])->name, sc->rx,
				(double)sc->cycles / (double)sc->rx);
		}
		if (slot->rec_cnt.rx > 0)
			fprintf(out, "    recorder   packets %" PRIu64 " cycles/pkt %.1f\n",
				slot->rec_cnt.rx,
				(double)slot->rec_cnt.cycles / (double)slot->rec_cnt.rx);
	}
	if (conf->cycles_sample > 1)
		fprintf(out, "  cycles/pkt: estimates, from one non-empty burst in %u timed "
			"(cycles_sample)\n", conf->cycles_sample);
	print_inspection(shm, out);
	mpe_stats_totals(shm, &t);
	fprintf(out, "total: in %" PRIu64 " out %" PRIu64 " dropped %" PRIu64, t.in, t.out,
		t.dropped);
	for (i = 0; i < MPE_DROP_MAX; i++)
		if (t.drops[i] != 0)
			fprintf(out, " %s %" PRIu64, drop_names[i], t.drops[i]);
	if (t.in_doubt != 0)
		fprintf(out, " in_doubt %" PRIu64, t.in_doubt);
	fprintf(out, " unaccounted %" PRId64 "\n",
		(int64_t)(t.in - t.out - t.dropped - t.in_doubt));
}
