/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-primary: reads and checks the configuration, creates every shared object (memzone,
 * mbuf pool, rings, ports), runs the port I/O lcore, starts the workers and supervises them,
 * and on SIGINT/SIGTERM drains and tears everything down in order. Each step is a module of
 * its own (args, objects, port, launch, io, supervise); this file runs them in order, on the
 * main lcore, and is the only place that exits on an EAL failure.
 * Usage: mpe-primary [EAL args] -- -c FILE [--check] [--no-spawn] [--idle-exit MS] ...
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>

#include "args.h"
#include "config.h"
#include "context.h"
#include "io.h"
#include "launch.h"
#include "log.h"
#include "notify.h"
#include "objects.h"
#include "port.h"
#include "runtime.h"
#include "shm_ops.h"
#include "supervise.h"
#include "telemetry.h"

static struct mpe_primary primary;

/* The EAL, on the arguments before "--", as the primary process of its file prefix; the
 * prefix as the EAL took it, however it was written, into p->file_prefix: the workers get
 * the same. Exits on failure. */
static void
eal_start(struct mpe_primary *p, int argc, char **argv, char *runtime_dir, size_t size)
{
	const char *base;

	if (rte_eal_init(argc, argv) < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n", rte_errno != 0 ?
			 rte_strerror(rte_errno) : "see the EAL's messages above");
	snprintf(runtime_dir, size, "%s", rte_eal_get_runtime_dir());
	base = strrchr(runtime_dir, '/');
	base = base != NULL ? base + 1 : runtime_dir;
	if (strlen(base) >= sizeof(p->file_prefix))
		rte_exit(EXIT_FAILURE, "--file-prefix of %zu characters: at most %zu\n",
			 strlen(base), sizeof(p->file_prefix) - 1);
	snprintf(p->file_prefix, sizeof(p->file_prefix), "%s", base);
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		rte_exit(EXIT_FAILURE, "mpe-primary must run as the primary process (another "
			 "primary uses --file-prefix %s?)\n", p->file_prefix);
	if (mpe_runtime_arm(runtime_dir) < 0)
		MPE_LOG(WARNING, engine, "no hugepage file of this process found: a forced exit "
			"(second signal) removes the runtime directory only");
}

/* After the EAL's cleanup: what it leaves on disk. */
static void
eal_stop(const char *runtime_dir)
{
	/* the EAL leaves the files of memory still mapped at exit: note them while it can */
	struct mpe_runtime_files *huge = mpe_runtime_files_collect();

	rte_eal_cleanup();
	mpe_runtime_files_unlink(huge);
	mpe_runtime_remove_dir(runtime_dir);
}

static int
start_workers(struct mpe_primary *p, const struct mpe_conf *conf)
{
	unsigned int w;
	int rc = 0;

	for (w = 0; rc == 0 && w < conf->nb_workers; w++)
		rc = mpe_launch_start(p, w);
	if (rc < 0)
		MPE_LOG(ERR, engine, "worker %u: %s", w - 1, p->shm->workers[w - 1].status.error);
	if (rc == 0)
		rc = mpe_launch_standby_start(p);
	return rc;
}

/* Every I/O lcore, each prepared before any is launched: a failure stops the start with its
 * cause and no loop running. */
static int
start_io(struct mpe_primary *p, const struct mpe_conf *conf)
{
	unsigned int k;
	int rc;

	for (k = 0; k < conf->nb_io; k++) {
		rc = mpe_io_prepare(p, k);
		if (rc < 0) {
			MPE_LOG(ERR, engine, "I/O lcore %u: cannot start: %s", conf->io[k].lcore,
				strerror(-rc));
			return rc;
		}
	}
	for (k = 0; k < conf->nb_io; k++) {
		rc = rte_eal_remote_launch(mpe_io_main, p->io[k], conf->io[k].lcore);
		if (rc != 0) {
			MPE_LOG(ERR, engine, "I/O lcore %u: cannot launch: %s", conf->io[k].lcore,
				strerror(-rc));
			return rc;
		}
		p->io_launched[k] = 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct mpe_primary *p = &primary;
	struct mpe_args a = {0};
	struct mpe_conf *conf;
	char runtime_dir[PATH_MAX];
	int rc, started = 0;

	conf = calloc(1, sizeof(*conf));
	if (conf == NULL)
		return 1;
	/* Everything about the configuration is known before the EAL touches hugepages. */
	rc = mpe_args_parse(argc, argv, &a, p) < 0 || mpe_args_config(&a, conf) < 0;
	if (rc == 0 && !a.check)
		mpe_args_base_default(&a.nb_eal, &argv);
	if (rc == 0 && !a.check &&
	    (mpe_args_check_eal(a.nb_eal, argv) < 0 || mpe_launch_eal_args(a.nb_eal, argv) < 0))
		rc = 1;
	if (rc != 0 || a.check) {
		free(conf);
		return rc;
	}

	mpe_supervise_signals(p);
	eal_start(p, a.nb_eal, argv, runtime_dir, sizeof(runtime_dir));
	MPE_LOG(INFO, engine, "mpe %s, %s build, shape %s, %u workers, config %s",
		MPE_BUILD_ID, mpe_launch_model, mpe_config_shape_name(conf->shape),
		conf->nb_workers, a.config);
	if (conf->sandbox && mpe_launch_model_id == 0)
		MPE_LOG(INFO, engine, "sandbox: on: each worker process locks itself down once "
			"attached and says what it applied (sandbox = off in [engine] to disable)");
	{
		uint64_t wd = mpe_notify_init();

		if (wd != 0)
			MPE_LOG(INFO, engine, "systemd: watchdog of %" PRIu64 " ms: the supervision "
				"loop pings every %" PRIu64 " ms", wd / 1000, wd / 2000);
	}

	rc = mpe_objects_create(p, conf);
	if (rc == 0)
		rc = mpe_port_init_all(p);
	if (rc == 0) {
		int trc = mpe_telemetry_init(p);

		if (trc < 0)
			MPE_LOG(WARNING, engine, "telemetry: /mpe commands not available: %s",
				strerror(-trc));
	}
	if (rc == 0) {
		started = 1;
		rc = start_workers(p, conf);
	}
	if (rc == 0)
		rc = mpe_supervise_wait_ready(p);
	if (rc == 0 && mpe_config_io_used(conf))
		rc = start_io(p, conf);
	if (rc == 0)
		mpe_supervise_run(p);

	if (mpe_supervise_shutdown(p, started) > 0)
		rc = -ECHILD;
	mpe_port_close_all(p);
	mpe_objects_free(p);
	eal_stop(runtime_dir);
	free(conf);
	return rc == 0 ? 0 : 1;
}
