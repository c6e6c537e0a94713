/* SPDX-License-Identifier: BSD-3-Clause */
/* The primary's side of the inspection stages: the flow table of each worker that runs the
 * flow stage, the rule set generations of the acl stage, and their live replacement.
 *
 * Reload: the new rules are read and built by the caller (the telemetry thread, or the
 * supervising loop after SIGHUP) while the old set stays in force; on any error nothing
 * changes and every error goes back to the caller. Then the new set is published in
 * shm->ruleset with one store, and the old one waits in `retired` with an RCU token. Workers
 * pick up the new set at their next burst and report quiescent after every loop iteration;
 * the supervising loop frees a retired set once rte_rcu_qsbr_check says every worker online
 * has reported since. Nothing waits: a stalled worker only delays the free.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_memzone.h>
#include <rte_rcu_qsbr.h>

#include "context.h"
#include "flow.h"
#include "inspect.h"
#include "log.h"
#include "notify.h"
#include "names.h"
#include "ruleset.h"
#include "stage.h"

#define RETIRED_MAX 64

struct retired {
	struct mpe_ruleset *rs;
	uint64_t token;
};

static struct {
	pthread_mutex_t lock; /* reloads, frees and readers of rule sets */
	struct mpe_primary *p;
	const struct rte_memzone *qsbr_mz;
	struct mpe_flow_table *flows[MPE_MAX_WORKERS];
	uint32_t generation; /* of the set in force; 0: none */
	struct retired retired[RETIRED_MAX];
	unsigned int nb_retired;
	struct mpe_inspect_file files[MPE_INSPECT_FILES];
	unsigned int nb_files;
	uint64_t reloads, reload_errors;
} insp = {.lock = PTHREAD_MUTEX_INITIALIZER};

volatile sig_atomic_t mpe_inspect_reload_requested;

static int
worker_runs(const struct mpe_conf *conf, unsigned int w, const char *stage)
{
	int idx = mpe_stage_find(stage, strlen(stage));
	unsigned int s;

	for (s = 0; s < conf->workers[w].nb_stages; s++)
		if (conf->workers[w].stages[s] == idx)
			return 1;
	return 0;
}

static int
uses_acl(const struct mpe_conf *conf)
{
	unsigned int w;

	for (w = 0; w < conf->nb_workers; w++)
		if (worker_runs(conf, w, "acl"))
			return 1;
	return 0;
}

/* Read @file and build generation insp.generation + 1 from it. Errors go to @err. */
static struct mpe_ruleset *
build(const struct mpe_conf *conf, const char *file, FILE *err)
{
	struct mpe_ruleset *rs;
	struct mpe_rules *r;
	uint32_t i, mirrors = 0;

	r = mpe_rules_load(file, err); /* reports every problem itself */
	if (r == NULL)
		return NULL;
	for (i = 0; i < mpe_rules_count(r); i++)
		mirrors += mpe_rules_get(r, i)->action == MPE_RULE_MIRROR;
	if (mirrors > 0 && conf->mirror_port == MPE_PORT_NONE) {
		fprintf(err, "%s: %u mirror rules, but the engine has no mirror_port\n", file,
			mirrors);
		mpe_rules_free(r);
		rte_errno = EINVAL;
		return NULL;
	}
	rs = mpe_ruleset_create(insp.generation + 1, r, file,
				conf->default_drop ? MPE_RULE_DROP : MPE_RULE_ALLOW,
				conf->nb_workers);
	if (rs == NULL)
		fprintf(err, "%s: cannot build the rule set (%u rules): %s\n", file,
			mpe_rules_count(r), rte_strerror(rte_errno));
	mpe_rules_free(r);
	return rs;
}

/* A generation is about to be freed: add what it classified to its file's total. */
static void
record_retired(const struct mpe_ruleset *rs)
{
	uint64_t packets = 0;
	unsigned int i;

	for (i = 0; i <= rs->nb_rules; i++)
		packets += mpe_ruleset_hits(rs, i);
	for (i = 0; i < insp.nb_files; i++)
		if (strcmp(insp.files[i].file, rs->file) == 0)
			break;
	if (i == insp.nb_files) {
		/* the last entry collects every file beyond the first ones */
		if (insp.nb_files == MPE_INSPECT_FILES) {
			i = MPE_INSPECT_FILES - 1;
		} else {
			snprintf(insp.files[i].file, MPE_PATH_LEN, "%s",
				 i == MPE_INSPECT_FILES - 1 ? "(other)" : rs->file);
			insp.nb_files++;
		}
	}
	insp.files[i].packets += packets;
}

int
mpe_inspect_init(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	struct rte_rcu_qsbr *qs;
	size_t size = rte_rcu_qsbr_get_memsize(MPE_MAX_WORKERS);
	unsigned int w;

	insp.p = p;
	insp.qsbr_mz = rte_memzone_reserve_aligned(MPE_NAME_QSBR, size, SOCKET_ID_ANY, 0,
						   RTE_CACHE_LINE_SIZE);
	if (insp.qsbr_mz == NULL) {
		MPE_LOG(ERR, engine, "memzone %s: %s", MPE_NAME_QSBR, rte_strerror(rte_errno));
		return -rte_errno;
	}
	qs = insp.qsbr_mz->addr;
	if (rte_rcu_qsbr_init(qs, MPE_MAX_WORKERS) != 0) {
		MPE_LOG(ERR, engine, "rcu qsbr: %s", rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->shm->qsbr = qs;

	for (w = 0; w < conf->nb_workers; w++) {
		char name[MPE_FLOW_NAME_MAX + 1];

		if (!worker_runs(conf, w, "flow"))
			continue;
		snprintf(name, sizeof(name), MPE_NAME_FLOW_FMT, w);
		insp.flows[w] = mpe_flow_table_create(name, conf->flow_capacity,
						      rte_get_tsc_hz() / 1000 *
							      conf->flow_timeout_ms,
						      p->place.flow_socket[w]);
		if (insp.flows[w] == NULL) {
			MPE_LOG(ERR, engine, "worker %u: flow table of %u flows: %s", w,
				conf->flow_capacity, rte_strerror(rte_errno));
			return -rte_errno;
		}
	}
	if (uses_acl(conf)) {
		struct mpe_ruleset *rs = build(conf, conf->rules, stderr);

		if (rs == NULL)
			return -EINVAL;
		insp.generation = rs->generation;
		__atomic_store_n(&p->shm->ruleset, rs, __ATOMIC_RELEASE);
		MPE_LOG(INFO, engine, "rules: %s: %u rules, generation %u, default %s", rs->file,
			rs->nb_rules, rs->generation, mpe_rule_action_name(rs->default_action));
	}
	return 0;
}

int
mpe_inspect_reload(const char *file, FILE *err, uint32_t *generation, uint32_t *nb_rules)
{
	struct mpe_primary *p = insp.p;
	struct mpe_ruleset *old, *rs;
	char joined[MPE_PATH_LEN];
	int rc = 0;

	if (p == NULL || p->shm == NULL)
		return -ENODEV;
	if (file != NULL && file[0] != '\0' && file[0] != '/') {
		/* relative: from the configuration file's directory, as its rules key */
		const char *cpath = p->shm->conf.path, *slash = strrchr(cpath, '/');

		if (mpe_config_relative(cpath, file, joined, sizeof(joined)) < 0) {
			fprintf(err, "%.40s...: a path of %zu characters once joined to the "
				"configuration's directory: at most %d\n", file,
				(slash != NULL ? (size_t)(slash - cpath) + 1 : 0) + strlen(file),
				MPE_PATH_LEN - 1);
			return -ENAMETOOLONG;
		}
		file = joined;
	}
	if (file != NULL && strlen(file) >= MPE_PATH_LEN) {
		/* a rule set keeps its file's path, for the next reload */
		fprintf(err, "%.40s...: a path of %zu characters: at most %d\n", file, strlen(file),
			MPE_PATH_LEN - 1);
		return -ENAMETOOLONG;
	}
	pthread_mutex_lock(&insp.lock);
	mpe_notify_reloading();
	old = p->shm->ruleset;
	if (old == NULL) {
		fprintf(err, "no worker runs the acl stage: nothing to reload\n");
		rc = -ENOENT;
		goto out;
	}
	if (insp.nb_retired == RETIRED_MAX) {
		fprintf(err, "%u replaced rule sets still wait for a stalled worker: try later\n",
			insp.nb_retired);
		rc = -EBUSY;
		goto out;
	}
	rs = build(&p->shm->conf, file != NULL && file[0] != '\0' ? file : old->file, err);
	if (rs == NULL) {
		insp.reload_errors++;
		rc = -EINVAL;
		goto out;
	}
	insp.generation = rs->generation;
	__atomic_store_n(&p->shm->ruleset, rs, __ATOMIC_RELEASE);
	/* workers that read the old pointer hold it until their next quiescent report */
	insp.retired[insp.nb_retired].rs = old;
	insp.retired[insp.nb_retired].token = rte_rcu_qsbr_start(p->shm->qsbr);
	insp.nb_retired++;
	insp.reloads++;
	*generation = rs->generation;
	*nb_rules = rs->nb_rules;
	MPE_LOG(INFO, engine, "rules: %s: %u rules in force as generation %u", rs->file,
		rs->nb_rules, rs->generation);
	if (rs->nb_rules == 0)
		MPE_LOG(WARNING, engine, "rules: %s: no rule in the file: every packet gets the "
			"default action (%s)", rs->file, mpe_rule_action_name(rs->default_action));
out:
	{
		char status[96];

		/* the manager waits for READY=1 after RELOADING=1, whatever came of it */
		snprintf(status, sizeof(status), rc == 0 ? "rules: generation %u in force" :
			 "rules: reload refused; generation %u stays in force", insp.generation);
		mpe_notify_reloaded(status);
	}
	pthread_mutex_unlock(&insp.lock);
	return rc;
}

/* Free the retired sets no worker can hold any more, in order. */
static void
reclaim(struct mpe_primary *p)
{
	unsigned int i = 0, j;

	while (i < insp.nb_retired &&
	       rte_rcu_qsbr_check(p->shm->qsbr, insp.retired[i].token, false) == 1) {
		record_retired(insp.retired[i].rs);
		mpe_ruleset_free(insp.retired[i].rs);
		i++;
	}
	for (j = 0; i > 0 && j + i < insp.nb_retired; j++)
		insp.retired[j] = insp.retired[j + i];
	insp.nb_retired -= i;
}

void
mpe_inspect_tick(struct mpe_primary *p)
{
	if (mpe_inspect_reload_requested) {
		char *msg = NULL;
		size_t len = 0;
		FILE *err = open_memstream(&msg, &len);
		uint32_t gen, nb;

		mpe_inspect_reload_requested = 0;
		if (err != NULL) {
			int rc = mpe_inspect_reload(NULL, err, &gen, &nb);

			fclose(err);
			if (rc < 0)
				MPE_LOG(ERR, engine, "SIGHUP: rules not reloaded, the old ones stay:\n%s",
					msg != NULL ? msg : "");
			free(msg);
		}
	}
	if (p->shm == NULL || p->shm->qsbr == NULL || insp.nb_retired == 0)
		return;
	/* a reload building its set holds the lock for long (rte_acl): the supervision loop
	 * does not wait for it, deaths come first; the next tick frees what is left */
	if (pthread_mutex_trylock(&insp.lock) != 0)
		return;
	reclaim(p);
	pthread_mutex_unlock(&insp.lock);
}

void
mpe_inspect_worker_gone(struct mpe_primary *p, unsigned int id)
{
	/* a dead worker reports nothing any more: no reclaim may wait for it. A respawned
	 * one registers and comes online again. */
	if (p->shm != NULL && p->shm->qsbr != NULL)
		rte_rcu_qsbr_thread_offline(p->shm->qsbr, id);
}

void
mpe_inspect_fini(struct mpe_primary *p)
{
	unsigned int i;

	pthread_mutex_lock(&insp.lock);
	if (p->shm != NULL) {
		struct mpe_ruleset *rs = p->shm->ruleset;

		p->shm->ruleset = NULL;
		for (i = 0; i < insp.nb_retired; i++)
			mpe_ruleset_free(insp.retired[i].rs);
		insp.nb_retired = 0;
		mpe_ruleset_free(rs);
		p->shm->qsbr = NULL;
	}
	for (i = 0; i < MPE_MAX_WORKERS; i++) {
		mpe_flow_table_free(insp.flows[i]);
		insp.flows[i] = NULL;
	}
	if (insp.qsbr_mz != NULL)
		rte_memzone_free(insp.qsbr_mz);
	insp.qsbr_mz = NULL;
	insp.p = NULL;
	pthread_mutex_unlock(&insp.lock);
}

/* After the workers stopped: what each rules file classified over the engine's life, every
 * generation counted (freed, waiting to be freed, in force). */
void
mpe_inspect_report(FILE *out)
{
	struct mpe_inspect_file files[MPE_INSPECT_FILES];
	const struct mpe_ruleset *rs;
	unsigned int nf, i, k;

	pthread_mutex_lock(&insp.lock);
	rs = insp.p != NULL && insp.p->shm != NULL ? insp.p->shm->ruleset : NULL;
	if (rs == NULL) {
		pthread_mutex_unlock(&insp.lock);
		return;
	}
	nf = insp.nb_files;
	memcpy(files, insp.files, sizeof(files));
	for (i = 0; i <= insp.nb_retired; i++) {
		const struct mpe_ruleset *g = i < insp.nb_retired ? insp.retired[i].rs : rs;
		uint64_t packets = 0;

		for (k = 0; k <= g->nb_rules; k++)
			packets += mpe_ruleset_hits(g, k);
		for (k = 0; k < nf && strcmp(files[k].file, g->file) != 0; k++)
			;
		if (k == nf) {
			if (nf == MPE_INSPECT_FILES) {
				k = nf - 1;
			} else {
				snprintf(files[k].file, sizeof(files[k].file), "%s", g->file);
				files[k].packets = 0;
				nf++;
			}
		}
		files[k].packets += packets;
	}
	fprintf(out, "  acl rule sets: generation %u in force, %" PRIu64 " reloads, %" PRIu64
		" refused\n", rs->generation, insp.reloads, insp.reload_errors);
	for (k = 0; k < nf; k++)
		fprintf(out, "    classified by %s: %" PRIu64 "\n", files[k].file, files[k].packets);
	pthread_mutex_unlock(&insp.lock);
}

void
mpe_inspect_lock(void)
{
	pthread_mutex_lock(&insp.lock);
}

void
mpe_inspect_unlock(void)
{
	pthread_mutex_unlock(&insp.lock);
}

const struct mpe_ruleset *
mpe_inspect_ruleset(void)
{
	return insp.p != NULL && insp.p->shm != NULL ? insp.p->shm->ruleset : NULL;
}

const struct mpe_flow_table *
mpe_inspect_flows(unsigned int worker)
{
	return worker < MPE_MAX_WORKERS ? insp.flows[worker] : NULL;
}

unsigned int
mpe_inspect_files(const struct mpe_inspect_file **files)
{
	*files = insp.files;
	return insp.nb_files;
}

void
mpe_inspect_counts(uint64_t *reloads, uint64_t *errors, unsigned int *retired)
{
	*reloads = insp.reloads;
	*errors = insp.reload_errors;
	*retired = insp.nb_retired;
}
