/* mpe-primary: reads and checks the configuration, creates every shared object (memzone,
 * mbuf pool, rings, ports), runs the port I/O lcore, starts the workers and supervises them,
 * and on SIGINT/SIGTERM drains and tears everything down in order.
 * Usage: mpe-primary [EAL args] -- -c FILE [--check] [--no-spawn] [--idle-exit MS] ...
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_memory.h>

#include "config.h"
#include "context.h"
#include "dump.h"
#include "inspect.h"
#include "io.h"
#include "launch.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "pool.h"
#include "port.h"
#include "runtime.h"
#include "shm_ops.h"
#include "stage.h"
#include "stats.h"
#include "supervise.h"
#include "telemetry.h"
#include "worker_log.h"

#define SUPERVISE_PERIOD_US 10000
#define STOP_TIMEOUT_MS 3000

volatile sig_atomic_t mpe_primary_stop;
static struct mpe_primary primary;

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL args] -- -c FILE [options]\n"
	       "       %s --check -c FILE\n"
	       "  -c, --config FILE    engine configuration (INI)\n"
	       "      --check          validate the configuration and exit (no EAL, no hugepages)\n"
	       "      --no-spawn       do not start worker processes: print their command lines\n"
	       "                       and wait for an operator to start them\n"
	       "      --secondary PATH mpe-secondary to spawn (default: next to mpe-primary)\n"
	       "      --idle-exit MS   stop after MS milliseconds without a received packet\n"
	       "      --print-config   print the configuration as the engine runs it\n"
	       "      --help-config    every configuration key, as a table\n"
	       "  -h, --help           this text\n",
	       prog, prog);
}

/* A stop signal that comes again within this long is the same request sent twice, not a
 * second one: GNU timeout, for one, signals the program and then its process group. */
#define SIGNAL_REPEAT_NS 250000000

static uint64_t
signal_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
	return (uint64_t)ts.tv_sec * 1000000000 + (uint64_t)ts.tv_nsec;
}

static void
on_signal(int sig)
{
	static uint64_t first_ns;

	if (mpe_primary_stop && signal_now_ns() - first_ns < SIGNAL_REPEAT_NS)
		return;
	if (mpe_primary_stop) {
		static const char msg[] = "mpe: second signal: forcing exit\n";

		mpe_launch_kill_all(&primary);
		/* teardown will not run: what the EAL leaves on disk goes now */
		mpe_runtime_remove_now();
		if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
			_exit(130);
		_exit(130);
	}
	first_ns = signal_now_ns();
	mpe_primary_stop = sig;
}

void
mpe_primary_abort(struct mpe_primary *p, const char *why)
{
	MPE_LOG(ERR, engine, "%s: stopping the engine now, without waiting for its lcores; "
		"packets in flight are lost", why);
	mpe_launch_kill_all(p);
	mpe_worker_log_fini();
	mpe_stats_summary(p->shm, stdout);
	fflush(stdout);
	/* no rte_eal_cleanup() and no return through main: both would wait for, or free
	 * mbufs into, what is stuck */
	mpe_runtime_files_unlink(mpe_runtime_files_collect());
	mpe_runtime_remove_dir(rte_eal_get_runtime_dir());
	MPE_LOG(ERR, engine, "stopped: the hugepage files and %s are removed; exit 1",
		rte_eal_get_runtime_dir());
	fflush(stderr);
	_exit(EXIT_FAILURE);
}

static void
on_sighup(int sig)
{
	(void)sig;
	mpe_inspect_reload_requested = 1;
}

struct app_opts {
	const char *config;
	int check;
	int print_config;
};

static int
twice(const char *option)
{
	fprintf(stderr, "mpe-primary: %s given twice\n", option);
	return -EINVAL;
}

static int
parse_app_args(int argc, char **argv, struct app_opts *o, struct mpe_primary *p)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"check", no_argument, NULL, 'k'},
		{"no-spawn", no_argument, NULL, 'n'},	  {"secondary", required_argument, NULL, 's'},
		{"idle-exit", required_argument, NULL, 'i'},
		{"print-config", no_argument, NULL, 'P'}, {"help", no_argument, NULL, 'h'},
		{"help-config", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	uint64_t v;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (o->config != NULL)
				return twice("-c/--config");
			o->config = optarg;
			break;
		case 's':
			if (p->secondary_path != NULL)
				return twice("--secondary");
			p->secondary_path = optarg;
			break;
		case 'k': o->check = 1; break;
		case 'n': p->no_spawn = 1; break;
		case 'P': o->print_config = 1; break;
		case 'i':
			if (mpe_parse_uint(optarg, 1, 86400000, &v) < 0) {
				fprintf(stderr, "mpe-primary: --idle-exit: '%s' is not a number of "
					"milliseconds between 1 and 86400000\n", optarg);
				return -EINVAL;
			}
			p->idle_exit_ms = (unsigned int)v;
			break;
		case 'h': usage(argv[0]); exit(0);
		case 'H': mpe_config_help(stdout); exit(0);
		case ':':
			fprintf(stderr, "mpe-primary: %s needs a value\n", argv[optind - 1]);
			return -EINVAL;
		default:
			fprintf(stderr, "mpe-primary: unknown option '%s' (see --help)\n",
				argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mpe-primary: unexpected argument '%s'\n", argv[optind]);
		return -EINVAL;
	}
	if (o->config == NULL) {
		fprintf(stderr, "mpe-primary: no configuration: give -c FILE (see --help)\n");
		return -EINVAL;
	}
	return 0;
}

/* @val is one of the "|"-separated words of @list. */
static int
word_in(const char *list, const char *val)
{
	size_t vl = strlen(val);

	while (vl > 0 && list != NULL) {
		if (strncmp(list, val, vl) == 0 && (list[vl] == '|' || list[vl] == '\0'))
			return 1;
		list = strchr(list, '|');
		if (list != NULL)
			list++;
	}
	return 0;
}

/* EAL options the engine cannot run with. Worker processes attach to the primary's hugepage
 * files and runtime directory; without them they fail much later, with errors that name
 * other causes. Returns 0, or -EINVAL after saying which option and why. */
static int
refuse_eal_args(int argc, char **argv)
{
	static const struct {
		const char *name;
		const char *allowed; /* values that are fine, "|"-separated */
		int takes_next;      /* "--name VALUE" as well as "--name=VALUE" */
		const char *why;
	} refused[] = {
		{"--in-memory", NULL, 0, "it keeps no hugepage files and no runtime directory, "
		 "and worker processes attach to both"},
		{"--no-shconf", NULL, 0, "it shares no configuration with other processes, and "
		 "worker processes attach to it"},
		{"--huge-unlink", "existing|never", 0, "it removes the hugepage files that worker "
		 "processes map (=existing and =never keep them)"},
		{"--no-huge", NULL, 0, "worker processes map the primary's memory from hugepage "
		 "files"},
		{"--proc-type", "primary|auto", 1, "mpe-primary is the primary process; worker "
		 "processes are mpe-secondary"},
	};
	/* long EAL options that begin like one of the above: not abbreviations of it */
	static const char *const others[] = {"--huge-dir", "--huge-worker-stack", "--no-hpet",
					     "--no-pci", "--no-telemetry"};
	int i;
	unsigned int k, j;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i], *val = NULL;
		size_t alen = strcspn(a, "=");
		int other = 0;

		if (strncmp(a, "--", 2) != 0 || alen < 4)
			continue;
		for (j = 0; j < RTE_DIM(others); j++)
			other |= alen <= strlen(others[j]) && strncmp(a, others[j], alen) == 0;
		for (k = 0; k < RTE_DIM(refused); k++) {
			const char *o = refused[k].name;

			/* the EAL takes unambiguous abbreviations of its long options */
			if (alen > strlen(o) || strncmp(a, o, alen) != 0 ||
			    (alen < strlen(o) && other))
				continue;
			if (a[alen] == '=')
				val = a + alen + 1;
			else if (refused[k].takes_next && i + 1 < argc)
				val = argv[i + 1];
			if (refused[k].allowed != NULL && val != NULL &&
			    word_in(refused[k].allowed, val))
				break;
			fprintf(stderr, "mpe-primary: EAL option '%s%s%s' cannot be used: %s\n", a,
				val != NULL && a[alen] != '=' ? " " : "",
				val != NULL && a[alen] != '=' ? val : "", refused[k].why);
			return -EINVAL;
		}
	}
	return 0;
}

/* EAL options every worker process needs too, so that it sees the same memory and devices.
 * They are passed on as written, so they must be written in full: the EAL also takes a
 * prefix of a long option ("--no-p"), which this scan would miss. */
static int
collect_fwd_args(struct mpe_primary *p, int argc, char **argv)
{
	static const char *const with_value[] = {"-a", "--allow", "-b", "--block",
						 "--base-virtaddr", "--huge-dir", "--log-level",
						 "--iova-mode", "-d", "--file-prefix"};
	static const char *const flags[] = {"--no-pci", "--legacy-mem",
					    "--single-file-segments", "--match-allocations"};
	int i, n;
	unsigned int k;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];
		size_t alen = strcspn(a, "=");

		n = 0;
		for (k = 0; k < RTE_DIM(with_value); k++) {
			const char *o = with_value[k];
			size_t len = strlen(o);

			if (strcmp(a, o) == 0 && i + 1 < argc) /* "--allow X" */
				n = 2;
			else if ((o[1] == '-' && strncmp(a, o, len) == 0 && a[len] == '=') ||
				 (o[1] != '-' && a[0] == '-' && a[1] == o[1] && a[2] != '\0'))
				n = 1; /* "--allow=X", "-aX" */
			else if (o[1] == '-' && alen > 2 && alen < len && strncmp(a, o, alen) == 0)
				goto abbreviated;
			else
				continue;
			break;
		}
		for (k = 0; n == 0 && k < RTE_DIM(flags); k++) {
			if (strcmp(a, flags[k]) == 0)
				n = 1;
			else if (alen > 2 && alen < strlen(flags[k]) &&
				 strncmp(a, flags[k], alen) == 0)
				goto abbreviated;
		}
		if (n == 0)
			continue;
		/* the prefix is passed on as the EAL took it (main(), after rte_eal_init) */
		if (strncmp(a, "--file-prefix", strlen("--file-prefix")) != 0) {
			if (p->nb_fwd_args + n > MPE_MAX_FWD_ARGS) {
				fprintf(stderr, "mpe-primary: more than %d EAL arguments to pass on "
					"to the workers\n", MPE_MAX_FWD_ARGS);
				return -E2BIG;
			}
			p->fwd_args[p->nb_fwd_args++] = argv[i];
			if (n == 2)
				p->fwd_args[p->nb_fwd_args++] = argv[i + 1];
		}
		i += n - 1;
	}
	return 0;
abbreviated:
	for (k = 0; k < RTE_DIM(with_value) + RTE_DIM(flags); k++) {
		const char *o = k < RTE_DIM(with_value) ? with_value[k] :
			flags[k - RTE_DIM(with_value)];

		if (o[1] == '-' && strncmp(argv[i], o, strcspn(argv[i], "=")) == 0)
			break;
	}
	fprintf(stderr, "mpe-primary: '%s': write the EAL option %s in full: worker processes "
		"are given it as written\n", argv[i],
		k < RTE_DIM(with_value) ? with_value[k] : flags[k - RTE_DIM(with_value)]);
	return -EINVAL;
}

static int
check_config(const struct app_opts *o, struct mpe_conf *conf)
{
	int rc = mpe_config_load(o->config, conf, stderr);

	if (rc < 0) {
		fprintf(stderr, "%s: %d error%s\n", o->config, -rc, rc == -1 ? "" : "s");
		return rc;
	}
	return 0;
}

/* The shape's rings, as [producer, consumer]: a worker's id or MPE_END_IO. */
static unsigned int
ring_ends(const struct mpe_conf *conf, int ends[][2])
{
	unsigned int i, n = 0;

	if (conf->shape == MPE_SHAPE_PIPELINE) {
		for (i = 0; i <= conf->nb_workers; i++) {
			if (i == conf->nb_workers && mpe_config_worker_transmits(conf, i - 1))
				break; /* the last worker transmits itself */
			if (i == 0 && mpe_config_worker_receives(conf, 0))
				continue; /* the first worker receives itself */
			ends[n][0] = i == 0 ? MPE_END_IO : (int)i - 1;
			ends[n][1] = i == conf->nb_workers ? MPE_END_IO : (int)i;
			n++;
		}
	} else if (conf->shape == MPE_SHAPE_DISTRIBUTOR) {
		for (i = 0; i < conf->nb_workers; i++) {
			ends[n][0] = MPE_END_IO, ends[n][1] = (int)i, n++;
			if (!mpe_config_worker_transmits(conf, i))
				ends[n][0] = (int)i, ends[n][1] = MPE_END_IO, n++;
		}
	}
	return n;
}

/* Whether the lcore at ring end @end shares its CPU with another polling lcore. */
static int
end_shares_cpu(const struct mpe_primary *p, int end)
{
	return end == MPE_END_IO ? p->io_yield_idle : (int)p->shm->workers[end].ctl.yield_idle;
}

/* Ring lengths. A lcore that shares its CPU with another polling lcore is off it while the
 * other runs, and takes it over when its input ring is half full (the I/O lcore) or when the
 * other's input ring is empty (a worker): its input ring must hold what comes in meanwhile,
 * and how long it is sets how often the CPU changes hands. Every handover costs both builds,
 * the process build a little more (a change of address space). With ring_size left out, a
 * ring into such a lcore is MPE_DEF_SHARED_RING_SIZE long, and the pool grows to fill it
 * unless mbufs is given; a ring into a lcore with a CPU of its own keeps ring_size. Where
 * the hugepages cannot hold the larger pool, create_objects goes back to ring_size. */
static void
size_rings(struct mpe_primary *p, int ends[][2], unsigned int n, uint32_t *sizes)
{
	struct mpe_conf *conf = &p->shm->conf;
	uint32_t longer = RTE_MAX(conf->ring_size, (uint32_t)MPE_DEF_SHARED_RING_SIZE);
	uint64_t slots = 0, need;
	unsigned int i, nb_long = 0, nb_listed = 0;
	char names[192] = "", more[32] = "";
	size_t off = 0;

	for (i = 0; i < n; i++) {
		char name[RTE_RING_NAMESIZE];

		sizes[i] = conf->ring_size;
		if (conf->ring_size_auto && end_shares_cpu(p, ends[i][1]) &&
		    longer > conf->ring_size) {
			sizes[i] = longer;
			nb_long++;
			mpe_names_ring(name, sizeof(name), ends[i][0], ends[i][1]);
			/* whole names only; the log says how many more */
			if (off + strlen(name) + 2 < sizeof(names)) {
				off += (size_t)snprintf(names + off, sizeof(names) - off, "%s%s",
							off ? ", " : "", name);
				nb_listed++;
			}
		}
		slots += sizes[i];
	}
	if (nb_long == 0)
		return;
	if (nb_listed < nb_long)
		snprintf(more, sizeof(more), " and %u more", nb_long - nb_listed);
	need = mpe_config_mbufs_need(conf, slots) + p->mbufs_held;
	if (need > conf->mbufs && (!conf->mbufs_auto || mpe_config_mbufs_auto(need) == 0)) {
		MPE_LOG(NOTICE, engine, "mbufs = %u cannot fill %u-slot rings into lcores that "
			"share a CPU (%" PRIu64 " needed): every ring holds ring_size = %u, and the "
			"CPU changes hands more often", conf->mbufs, longer, need, conf->ring_size);
		for (i = 0; i < n; i++)
			sizes[i] = conf->ring_size;
		return;
	}
	if (need > conf->mbufs)
		conf->mbufs = mpe_config_mbufs_auto(need);
	MPE_LOG(NOTICE, engine, "ring_size not given: %u slots (not %u) for %s%s, into lcores "
		"that share a CPU with another polling lcore, so that it changes hands less often; "
		"mbufs %u", longer, conf->ring_size, names, more, conf->mbufs);
}

static int
create_rings(struct mpe_primary *p, int ends[][2], unsigned int n, const uint32_t *sizes)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		char name[RTE_RING_NAMESIZE];

		mpe_names_ring(name, sizeof(name), ends[i][0], ends[i][1]);
		/* one producer and one consumer per edge: a dead worker cannot leave a
		 * multi-producer ring half-updated for everybody else */
		p->rings[i] = rte_ring_create(name, sizes[i], rte_socket_id(),
					      RING_F_SP_ENQ | RING_F_SC_DEQ);
		p->ring_consumer[i] = ends[i][1];
		if (p->rings[i] == NULL) {
			MPE_LOG(ERR, engine, "ring %s: %s", name, rte_strerror(rte_errno));
			return -rte_errno;
		}
		p->nb_rings = i + 1;
	}
	return 0;
}

/* The mbuf pool; the private area carries what the parse stage decoded to the stages
 * after it. */
static struct rte_mempool *
create_pool(const struct mpe_primary *p, const struct mpe_conf *conf)
{
	return rte_pktmbuf_pool_create(MPE_NAME_POOL, p->shm->conf.mbufs, conf->mbuf_cache,
				       MPE_PKT_PRIV_SIZE,
				       (uint16_t)(conf->mbuf_data + RTE_PKTMBUF_HEADROOM),
				       rte_socket_id());
}

/* A port's device that keeps mbufs of the pool for itself (net_pcap's infinite_rx holds its
 * whole capture) leaves that many fewer for the queues, rings and caches: a pool left to the
 * engine grows by them; a given one that cannot hold both is said to be short. */
static void
hold_for_devices(struct mpe_primary *p)
{
	struct mpe_conf *conf = &p->shm->conf;
	uint64_t need;
	char who[256];

	p->mbufs_held = mpe_port_mbufs_held(conf, who, sizeof(who));
	if (p->mbufs_held == 0)
		return;
	need = mpe_config_mbufs_need(conf, (uint64_t)mpe_config_nb_rings(conf) * conf->ring_size) +
	       p->mbufs_held;
	if (need > conf->mbufs && conf->mbufs_auto && mpe_config_mbufs_auto(need) != 0) {
		conf->mbufs = mpe_config_mbufs_auto(need);
		MPE_LOG(NOTICE, engine, "net_pcap keeps its capture in the pool (infinite_rx; "
			"%s mbufs): mbufs %u", who, conf->mbufs);
	} else if (need > conf->mbufs) {
		MPE_LOG(WARNING, engine, "mbufs = %u: net_pcap keeps %" PRIu64 " of them "
			"(infinite_rx; %s), and the queues, rings and caches may take "
			"%" PRIu64 " more", conf->mbufs, p->mbufs_held, who, need - p->mbufs_held);
	} else {
		MPE_LOG(INFO, engine, "net_pcap keeps its capture in the pool (infinite_rx; %s "
			"mbufs)", who);
	}
}

static void mark_shared_cpus(struct mpe_primary *p);
static void warn_not_isolated(const struct mpe_primary *p);

/* Shared memory, then where the workers run (the ring lengths depend on it), the pool and
 * the rings. */
static int
create_objects(struct mpe_primary *p, const struct mpe_conf *conf)
{
	static const struct rte_mbuf_dynfield meta_desc = {
		.name = MPE_META_NAME,
		.size = sizeof(struct mpe_meta),
		.align = __alignof__(struct mpe_meta),
	};
	int ends[2 * MPE_MAX_WORKERS][2];
	uint32_t sizes[2 * MPE_MAX_WORKERS], mbufs;
	unsigned int n, i;
	int off, rc;

	off = rte_mbuf_dynfield_register(&meta_desc);
	if (off < 0) {
		MPE_LOG(ERR, engine, "mbuf field %s: %s", MPE_META_NAME, rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->shm = mpe_shm_create(conf, mpe_launch_model_id);
	if (p->shm == NULL) {
		MPE_LOG(ERR, engine, "memzone %s: %s", MPE_NAME_SHM, rte_strerror(rte_errno));
		return -rte_errno;
	}
	p->shm->meta_offset = off;
	rc = mpe_launch_check(p);
	if (rc < 0)
		return rc;
	warn_not_isolated(p);
	mark_shared_cpus(p);
	hold_for_devices(p);
	n = ring_ends(&p->shm->conf, ends);
	mbufs = p->shm->conf.mbufs;
	size_rings(p, ends, n, sizes);
	p->pool = create_pool(p, conf);
	if (p->pool == NULL && rte_errno == ENOMEM && p->shm->conf.mbufs != mbufs) {
		MPE_LOG(NOTICE, engine, "no hugepage memory for %u mbufs: every ring holds "
			"ring_size = %u, and the pool %u mbufs (give ring_size to choose)",
			p->shm->conf.mbufs, conf->ring_size, mbufs);
		p->shm->conf.mbufs = mbufs;
		for (i = 0; i < n; i++)
			sizes[i] = conf->ring_size;
		p->pool = create_pool(p, conf);
	}
	if (p->pool == NULL) {
		MPE_LOG(ERR, engine, "mbuf pool of %u: %s", p->shm->conf.mbufs,
			rte_strerror(rte_errno));
		return -rte_errno;
	}
	mpe_pool_mapped = p->pool;
	if (mpe_inspect_init(p) < 0)
		return -EINVAL;
	return create_rings(p, ends, n, sizes);
}

/* Polling lcores that share a CPU (more lcores than CPUs, as on a small test host) would each
 * spin through its time slice while the other one has the packets: such lcores give the CPU
 * away after a poll that found nothing. Lcores on CPUs of their own never make that call. */
static void
mark_shared_cpus(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	cpu_set_t io_cpus, both;
	unsigned int i, j;
	int io = mpe_config_io_used(conf);

	CPU_ZERO(&io_cpus);
	if (io)
		io_cpus = rte_lcore_cpuset(conf->io_lcore);
	for (i = 0; i < conf->nb_workers; i++) {
		int shared = 0;

		CPU_AND(&both, &p->cpus[i], &io_cpus);
		shared = io && CPU_COUNT(&both) > 0;
		for (j = 0; j < conf->nb_workers && !shared; j++) {
			CPU_AND(&both, &p->cpus[i], &p->cpus[j]);
			shared = j != i && CPU_COUNT(&both) > 0;
		}
		p->shm->workers[i].ctl.yield_idle = (uint32_t)shared;
		CPU_AND(&both, &p->cpus[i], &io_cpus);
		if (io && CPU_COUNT(&both) > 0) {
			p->io_yield_idle = 1;
			p->io_shares[i] = 1;
		}
		if (shared)
			MPE_LOG(NOTICE, engine, "worker %u: lcore %u shares its CPU with another "
				"polling lcore: it yields the CPU when a poll finds nothing", i,
				conf->workers[i].lcore);
	}
	if (p->io_yield_idle)
		MPE_LOG(NOTICE, engine, "I/O lcore %u shares its CPU with a worker: it yields the "
			"CPU when a loop moves nothing, or when that worker's input ring fills",
			conf->io_lcore);
}

/* NIC-bound hosts isolate the CPUs their polling lcores run on; say so when they do not. */
static void
warn_not_isolated(const struct mpe_primary *p)
{
	char buf[1024] = "";
	cpu_set_t iso;
	unsigned int i;
	FILE *f = fopen("/sys/devices/system/cpu/isolated", "r");

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	if (mpe_parse_cpulist(buf, &iso) < 0)
		CPU_ZERO(&iso);
	for (i = 0; i < p->shm->conf.nb_workers; i++) {
		cpu_set_t both;

		CPU_AND(&both, &p->cpus[i], &iso);
		if (!CPU_EQUAL(&both, &p->cpus[i]))
			MPE_LOG(WARNING, engine, "worker %u: lcore %u runs on CPUs not isolated "
				"from the kernel scheduler (isolcpus): expect jitter", i,
				p->shm->conf.workers[i].lcore);
	}
}

static int
wait_ready(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t hz = rte_get_timer_hz(), start = rte_get_timer_cycles();
	uint64_t deadline = start + hz * conf->ready_timeout_ms / 1000, next_note = start + 5 * hz;
	unsigned int i, ready;

	for (;;) {
		mpe_launch_reap(p);
		ready = 0;
		for (i = 0; i < conf->nb_workers; i++) {
			struct mpe_worker_status *st = &p->shm->workers[i].status;

			if (st->state == MPE_WORKER_READY || st->state == MPE_WORKER_RUNNING) {
				ready++;
				continue;
			}
			if (st->state == MPE_WORKER_FAILED || !mpe_launch_alive(p, i)) {
				MPE_LOG(ERR, engine, "worker %u: did not become ready: %s", i,
					st->error[0] ? st->error : "ended before attaching");
				return -ECHILD;
			}
		}
		if (ready == conf->nb_workers)
			return 0;
		if (mpe_primary_stop)
			return -EINTR;
		if (!p->no_spawn && rte_get_timer_cycles() > deadline) {
			for (i = 0; i < conf->nb_workers; i++)
				if (p->shm->workers[i].status.state == MPE_WORKER_STARTING)
					MPE_LOG(ERR, engine, "worker %u: not ready after %u ms "
						"(ready_timeout_ms): still attaching", i,
						conf->ready_timeout_ms);
			return -ETIMEDOUT;
		}
		if (p->no_spawn && rte_get_timer_cycles() > next_note) {
			MPE_LOG(NOTICE, engine, "--no-spawn: %u of %u workers attached; waiting",
				ready, conf->nb_workers);
			next_note += 5 * hz;
		}
		rte_delay_us_sleep(SUPERVISE_PERIOD_US);
	}
}

static uint64_t
packets_in(const struct mpe_shared *shm)
{
	struct mpe_totals t;

	mpe_stats_totals(shm, &t);
	return t.in;
}

static void
supervise(struct mpe_primary *p)
{
	uint64_t hz = rte_get_timer_hz(), last_in = 0, last_change = rte_get_timer_cycles();
	uint64_t period = hz * p->shm->conf.stats_period_ms / 1000, next_stats = last_change + period;

	while (!mpe_primary_stop) {
		uint64_t now, in;

		rte_delay_us_sleep(SUPERVISE_PERIOD_US);
		p->shm->primary_heartbeat++;
		mpe_launch_tick(p);
		mpe_inspect_tick(p);
		mpe_dump_poll(p);
		now = rte_get_timer_cycles();
		if (period != 0 && now >= next_stats) {
			char line[1024];

			mpe_stats_line(p->shm, line, sizeof(line));
			MPE_LOG(INFO, engine, "stats: %.3f s %s",
				(double)(now - p->shm->start_tsc) / (double)p->shm->tsc_hz, line);
			next_stats += period;
			if (next_stats < now)
				next_stats = now + period;
		}
		if (p->idle_exit_ms == 0)
			continue;
		in = packets_in(p->shm);
		if (in != last_in) {
			last_in = in;
			last_change = now;
		} else if (now - last_change > hz * p->idle_exit_ms / 1000) {
			MPE_LOG(INFO, engine, "no packet received for %u ms: stopping",
				p->idle_exit_ms);
			break;
		}
	}
}

/* Rings are empty and nothing waits in the I/O lcore. */
static int
drained(const struct mpe_primary *p)
{
	unsigned int i;

	if (p->shm->io.pending != 0)
		return 0;
	for (i = 0; i < p->nb_rings; i++) {
		int c = p->ring_consumer[i];

		/* a ring whose worker is down will not drain: shutdown counts what it holds */
		if (c >= 0 && p->shm->workers[c].ctl.down)
			continue;
		if (rte_ring_count(p->rings[i]) != 0)
			return 0;
	}
	return 1;
}

/* Packets in the input rings of workers that are down: shutdown counts them. */
static uint64_t
held_for_down(const struct mpe_primary *p)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < p->nb_rings; i++) {
		int c = p->ring_consumer[i];

		if (c >= 0 && p->shm->workers[c].ctl.down)
			n += rte_ring_count(p->rings[i]);
	}
	return n;
}

/* Receiving has stopped; done when every packet that came in has left or been counted:
 * empty rings alone do not say that a worker holds no burst (one the scheduler took the CPU
 * from holds it for milliseconds). Twice in a row, 2 ms apart, as the counters of different
 * writers are read one after the other. Packets a worker took into a device call it died in
 * are counted in_doubt: neither out nor dropped, they are not waited for. */
static void
drain(struct mpe_primary *p)
{
	const struct mpe_conf *conf = &p->shm->conf;
	uint64_t hz = rte_get_timer_hz();
	uint64_t deadline = rte_get_timer_cycles() + hz * conf->drain_timeout_ms / 1000;
	unsigned int stable = 0;
	struct mpe_totals t;

	p->shm->run_state = MPE_RUN_DRAIN;
	mpe_stats_totals(p->shm, &t);
	while (stable < 2 && rte_get_timer_cycles() < deadline) {
		rte_delay_us_sleep(2000);
		p->shm->primary_heartbeat++;
		/* a worker that dies now is reclaimed at once, not at the end of the timeout */
		mpe_launch_reap(p);
		mpe_stats_totals(p->shm, &t);
		if (drained(p) && t.in == t.out + t.dropped + t.in_doubt + held_for_down(p))
			stable++;
		else
			stable = 0;
	}
	if (stable < 2) {
		unsigned int i;

		MPE_LOG(WARNING, engine, "drain: not finished after %u ms (drain_timeout_ms): "
			"%u packets pending in the I/O lcore, %" PRId64 " neither sent nor "
			"counted; what is left is counted as shutdown drops", conf->drain_timeout_ms,
			p->shm->io.pending, (int64_t)(t.in - t.out - t.dropped));
		for (i = 0; i < p->nb_rings; i++)
			if (rte_ring_count(p->rings[i]) != 0)
				MPE_LOG(WARNING, engine, "drain: ring %s holds %u", p->rings[i]->name,
					rte_ring_count(p->rings[i]));
	}
}

/* Whatever is left in a ring after the workers stopped is freed and counted. */
static void
empty_rings(struct mpe_primary *p)
{
	struct rte_mbuf *pkts[64];
	unsigned int i, n;

	for (i = 0; i < p->nb_rings; i++)
		while ((n = rte_ring_sc_dequeue_burst(p->rings[i], (void **)pkts, RTE_DIM(pkts),
						     NULL)) > 0) {
			rte_pktmbuf_free_bulk(pkts, n);
			p->shm->io.io.drops[MPE_DROP_SHUTDOWN] += n;
		}
}

/* Undo whatever was set up, in order; safe at any point of start-up.
 * Returns how many workers failed (died, or refused to start). */
static unsigned int
teardown(struct mpe_primary *p, int workers_started)
{
	unsigned int i, failed = 0;

	if (p->shm != NULL) {
		const struct mpe_conf *conf = &p->shm->conf;

		/* a pipeline whose first worker receives drains its rings with no I/O lcore */
		if ((p->io_launched || (conf->shape == MPE_SHAPE_PIPELINE && workers_started)) &&
		    p->shm->run_state == MPE_RUN_ACTIVE)
			drain(p);
		if (workers_started)
			mpe_launch_stop_all(p, STOP_TIMEOUT_MS);
		else
			mpe_worker_log_fini(); /* started by mpe_launch_check, before the ports */
		p->shm->run_state = MPE_RUN_STOP;
		if (p->io_launched) {
			rte_eal_wait_lcore(conf->io_lcore);
			p->io_launched = 0;
		}
		mpe_io_release(p);
		empty_rings(p);
		if (workers_started) {
			mpe_stats_summary(p->shm, stdout);
			mpe_inspect_report(stdout);
		}
		fflush(stdout);
		mpe_telemetry_fini();
		mpe_inspect_fini(p);
		for (i = 0; i < conf->nb_workers; i++)
			if (p->shm->workers[i].status.state == MPE_WORKER_FAILED) {
				MPE_LOG(ERR, engine, "worker %u failed: %s", i,
					p->shm->workers[i].status.error);
				failed++;
			}
	}
	mpe_port_close_all(p);
	for (i = 0; i < p->nb_rings; i++)
		rte_ring_free(p->rings[i]);
	p->nb_rings = 0;
	if (p->pool != NULL) {
		unsigned int missing, twice;

		/* every queue is empty and every port stopped: nothing may hold an mbuf now, and
		 * the pool must hold each exactly once */
		if (mpe_pool_audit(p->pool, &missing, &twice) < 0) {
			missing = rte_mempool_in_use_count(p->pool);
			twice = 0;
		}
		if (twice != 0)
			MPE_LOG(ERR, engine, "mempool: %u entries of the pool repeat an mbuf: "
				"it would have handed them out twice", twice);
		if (missing != 0)
			MPE_LOG(WARNING, engine, "mempool: %u mbufs still in use at exit: lost",
				missing);
		if (missing == 0 && twice == 0)
			MPE_LOG(INFO, engine, "mempool: every mbuf back in the pool, once");
		mpe_pool_mapped = NULL;
		rte_mempool_free(p->pool);
		p->pool = NULL;
	}
	if (p->shm != NULL) {
		mpe_shm_free(p->shm);
		p->shm = NULL;
	}
	return failed;
}

int
main(int argc, char **argv)
{
	struct mpe_primary *p = &primary;
	struct app_opts o = {0};
	struct mpe_conf *conf;
	char runtime_dir[PATH_MAX];
	struct mpe_runtime_files *huge;
	int sep, rc, started = 0, i;
	unsigned int w;

	conf = calloc(1, sizeof(*conf));
	if (conf == NULL)
		return 1;
	/* Application options follow "--"; --check needs no EAL at all. */
	for (sep = 1; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check") == 0 || strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "--help-config") == 0)
			break;
	if (i < argc && sep == argc) /* mpe-primary --check -c FILE, without "--" */
		sep = 0;
	if (sep == argc) {
		fprintf(stderr, "mpe-primary: no engine options: give [EAL args] -- -c FILE "
			"(see --help)\n");
		return 1;
	}
	argv[sep] = argv[0];
	rc = parse_app_args(argc - sep, argv + sep, &o, p);
	argv[sep] = (char *)(uintptr_t)"--";
	if (rc < 0)
		return 1;
	if (o.check) {
		rc = check_config(&o, conf);
		if (rc == 0) {
			printf("%s: OK: shape %s, %u ports, %u workers\n", o.config,
			       mpe_config_shape_name(conf->shape), conf->nb_ports, conf->nb_workers);
			if (o.print_config)
				mpe_config_dump(conf, stdout);
		}
		return rc == 0 ? 0 : 1;
	}
	/* Everything about the configuration is known before the EAL touches hugepages. */
	if (check_config(&o, conf) < 0)
		return 1;
	if (o.print_config)
		mpe_config_dump(conf, stdout);
	if (refuse_eal_args(sep, argv) < 0 || collect_fwd_args(p, sep, argv) < 0)
		return 1;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, mpe_dump_on_signal);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, on_sighup);

	rc = rte_eal_init(sep, argv);
	if (rc < 0)
		rte_exit(EXIT_FAILURE, "EAL initialisation failed: %s\n", rte_errno != 0 ?
			 rte_strerror(rte_errno) : "see the EAL's messages above");
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	/* the prefix as the EAL took it, however it was written: the workers get the same */
	{
		const char *base = strrchr(runtime_dir, '/');

		base = base != NULL ? base + 1 : runtime_dir;
		if (strlen(base) >= sizeof(p->file_prefix))
			rte_exit(EXIT_FAILURE, "--file-prefix of %zu characters: at most %zu\n",
				 strlen(base), sizeof(p->file_prefix) - 1);
		snprintf(p->file_prefix, sizeof(p->file_prefix), "%s", base);
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		rte_exit(EXIT_FAILURE, "mpe-primary must run as the primary process (another "
			 "primary uses --file-prefix %s?)\n", p->file_prefix);
	if (mpe_runtime_arm(runtime_dir) < 0)
		MPE_LOG(WARNING, engine, "no hugepage file of this process found: a forced exit "
			"(second signal) removes the runtime directory only");

	MPE_LOG(INFO, engine, "mpe %s, %s build, shape %s, %u workers, config %s",
		MPE_BUILD_ID, mpe_launch_model, mpe_config_shape_name(conf->shape),
		conf->nb_workers, o.config);
	rc = 0;
	if (mpe_config_io_used(conf) &&
	    (!rte_lcore_is_enabled(conf->io_lcore) || conf->io_lcore == rte_get_main_lcore())) {
		MPE_LOG(ERR, engine, "io_lcore %u is %s: enable it with -l/--lcores and keep it off "
			"the main lcore", conf->io_lcore,
			conf->io_lcore == rte_get_main_lcore() ? "the main lcore" : "not enabled");
		rc = -EINVAL;
	}
	if (rc == 0)
		rc = create_objects(p, conf);
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
		for (w = 0; rc == 0 && w < conf->nb_workers; w++)
			rc = mpe_launch_start(p, w);
		if (rc < 0)
			MPE_LOG(ERR, engine, "worker %u: %s", w - 1,
				p->shm->workers[w - 1].status.error);
	}
	if (rc == 0)
		rc = wait_ready(p);
	if (rc == 0 && mpe_config_io_used(conf)) {
		rc = mpe_io_prepare(p);
		if (rc < 0)
			MPE_LOG(ERR, engine, "I/O lcore %u: cannot start: %s", conf->io_lcore,
				strerror(-rc));
	}
	if (rc == 0 && mpe_config_io_used(conf)) {
		rc = rte_eal_remote_launch(mpe_io_main, p, conf->io_lcore);
		if (rc == 0)
			p->io_launched = 1;
		else
			MPE_LOG(ERR, engine, "I/O lcore %u: cannot launch: %s", conf->io_lcore,
				strerror(-rc));
	}
	if (rc == 0) {
		p->shm->run_state = MPE_RUN_ACTIVE;
		MPE_LOG(INFO, engine, "running: %u workers ready; SIGINT or SIGTERM stops",
			conf->nb_workers);
		supervise(p);
		MPE_LOG(INFO, engine, "stopping: draining rings, then workers, then ports");
	}
	if (teardown(p, started) > 0)
		rc = -ECHILD;
	/* the EAL leaves the files of memory still mapped at exit: note them while it can */
	huge = mpe_runtime_files_collect();
	rte_eal_cleanup();
	mpe_runtime_files_unlink(huge);
	mpe_runtime_remove_dir(runtime_dir);
	free(conf);
	return rc == 0 ? 0 : 1;
}
