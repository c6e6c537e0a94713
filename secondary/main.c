/* mpe-secondary: one worker process. Attaches to the primary's memory, proves that the layout
 * and the mapping agree, checks that it runs on its configured lcore, then runs the shared
 * worker loop until told to stop or until the primary is gone.
 * Usage: mpe-secondary --proc-type=secondary --file-prefix P --lcores L@CPU [...] -- --worker N
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bsd/unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf_dyn.h>

#include "log.h"
#include "parse.h"
#include "shm_ops.h"
#include "stage.h"
#include "worker.h"

extern char **environ;

static void
on_signal(int sig)
{
	mpe_worker_stop_requested = sig;
}

static unsigned int
parse_worker_id(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"worker", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	uint64_t id = UINT64_MAX;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (mpe_parse_uint(optarg, 0, MPE_MAX_WORKERS - 1, &id) < 0)
				rte_exit(EXIT_FAILURE, "--worker: '%s' is not a worker number "
					 "between 0 and %d\n", optarg, MPE_MAX_WORKERS - 1);
			break;
		case 'h':
			printf("Usage: mpe-secondary --proc-type=secondary --file-prefix PREFIX "
			       "--lcores LCORE@CPU [EAL args] -- --worker N\n");
			exit(0);
		default:
			rte_exit(EXIT_FAILURE, "unknown option '%s'\n", argv[optind - 1]);
		}
	}
	if (id == UINT64_MAX)
		rte_exit(EXIT_FAILURE, "no worker number: give -- --worker N\n");
	return (unsigned int)id;
}

int
main(int argc, char **argv)
{
	struct mpe_shared *shm;
	struct mpe_worker *w;
	struct mpe_worker_slot *slot;
	const struct mpe_worker_conf *wc;
	char err[160], stages[96] = "";
	unsigned int id, lcore, s;
	size_t off = 0;
	int rc, ret = EXIT_SUCCESS;

	setproctitle_init(argc, argv, environ);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = rte_eal_init(argc, argv);
	if (rc < 0)
		rte_exit(EXIT_FAILURE, "cannot attach to the primary: %s (is mpe-primary running "
			 "with the same --file-prefix?)\n", rte_strerror(rte_errno));
	if (rte_eal_process_type() != RTE_PROC_SECONDARY)
		rte_exit(EXIT_FAILURE, "mpe-secondary must start with --proc-type=secondary\n");
	argc -= rc;
	argv += rc;
	id = parse_worker_id(argc, argv);

	shm = mpe_shm_lookup(MPE_SHM_LAYOUT_VERSION, sizeof(struct mpe_shared), err, sizeof(err));
	if (shm == NULL)
		rte_exit(EXIT_FAILURE, "worker %u: refusing to run: %s\n", id, err);
	if (strcmp(shm->build_id, MPE_BUILD_ID) != 0)
		MPE_LOG(WARNING, worker, "worker %u: primary build %s, this build %s", id,
			shm->build_id, MPE_BUILD_ID);
	if (rte_mbuf_dynfield_lookup(MPE_META_NAME, NULL) != shm->meta_offset)
		rte_exit(EXIT_FAILURE, "worker %u: mbuf field %s not where the primary put it\n",
			 id, MPE_META_NAME);
	if (id >= shm->conf.nb_workers)
		rte_exit(EXIT_FAILURE, "worker %u: not configured (the engine has %u workers)\n",
			 id, shm->conf.nb_workers);
	slot = &shm->workers[id];
	wc = &shm->conf.workers[id];
	lcore = rte_lcore_id();
	/* mempool caches are per lcore id and shared by all processes: never share one */
	if (lcore != wc->lcore)
		rte_exit(EXIT_FAILURE, "worker %u: configured for lcore %u but started as lcore %u: "
			 "start it with --lcores %u@CPU\n", id, wc->lcore, lcore, wc->lcore);
	if ((slot->status.state == MPE_WORKER_READY || slot->status.state == MPE_WORKER_RUNNING) &&
	    slot->status.pid > 0 && slot->status.pid != getpid() &&
	    kill(slot->status.pid, 0) == 0)
		rte_exit(EXIT_FAILURE, "worker %u: already running as pid %d\n", id,
			 slot->status.pid);
	if (shm->run_state >= MPE_RUN_DRAIN)
		rte_exit(EXIT_FAILURE, "worker %u: the engine is stopping\n", id);

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		rte_exit(EXIT_FAILURE, "worker %u: out of memory\n", id);
	slot->status.error[0] = '\0';
	slot->status.pid = getpid();
	rc = mpe_worker_init(w, shm, id, slot->status.error, sizeof(slot->status.error));
	if (rc < 0) {
		slot->status.state = MPE_WORKER_FAILED;
		rte_exit(EXIT_FAILURE, "worker %u: %s\n", id, slot->status.error);
	}
	for (s = 0; s < wc->nb_stages && off < sizeof(stages); s++)
		off += (size_t)snprintf(stages + off, sizeof(stages) - off, "%s%s", s ? "," : "",
					mpe_stage_get(wc->stages[s])->name);
	/* ps shows the whole title; top and the kernel show the 15-character thread name */
	setproctitle("-mpe-worker %u [%s] lcore %u", id, stages, lcore);
	snprintf(err, sizeof(err), "mpe-worker %u", id);
	pthread_setname_np(pthread_self(), err);
	slot->status.state = MPE_WORKER_READY;

	rc = mpe_worker_main(w);
	slot->status.state = rc == 0 ? MPE_WORKER_EXITED : MPE_WORKER_FAILED;
	if (rc != 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "left its loop: %s",
			 strerror(-rc));
		ret = EXIT_FAILURE;
	}
	mpe_worker_fini(w);
	free(w);
	/* No rte_eal_cleanup(): in a secondary it would stop ports the primary still uses
	 * (net_pcap). The primary owns and removes every shared object. */
	return ret;
}
