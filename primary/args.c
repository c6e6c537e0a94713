/* SPDX-License-Identifier: BSD-3-Clause */
/* The command line of mpe-primary: the engine's options after "--" (--help, --help-config,
 * --check, ...), the configuration they name, and the rules for the EAL arguments before "--":
 * those the engine refuses, and those it passes on to the workers, which must be written in
 * full. Main thread only, before the EAL starts: messages go to stdout and stderr. */
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_common.h>
#include <rte_mempool.h>

#include "args.h"
#include "config.h"
#include "context.h"
#include "launch.h"
#include "parse.h"
#include "sandbox.h"
#include "version.h"

static void
usage(const char *prog)
{
	const char *name = strrchr(prog, '/') != NULL ? strrchr(prog, '/') + 1 : prog;

	printf("Usage: %s [EAL args] -- -c FILE [options]\n"
	       "  or:  %s --check -c FILE\n"
	       "  -c, --config FILE      engine configuration (INI)\n"
	       "      --check            validate the configuration and exit (no EAL, no\n"
	       "                         hugepages)\n"
	       "      --no-spawn         do not start worker processes: print their command\n"
	       "                         lines and wait for an operator to start them\n"
	       "      --secondary PATH   mpe-secondary to spawn (default: next to mpe-primary)\n"
	       "      --idle-exit MS     stop after MS milliseconds without a received packet\n"
	       "      --print-config     print the configuration as the engine runs it\n"
	       "      --help-config      every configuration key, as a table\n"
	       "  -h, --help             this text\n"
	       "      --version          the version and the worker model built\n"
	       "EAL args: DPDK's EAL options; the workers are started with those they need.\n"
	       "See mpe-primary(8), mpe.ini(5), mpe.rules(5).\n",
	       name, name);
}

static int
twice(const char *option)
{
	fprintf(stderr, "mpe-primary: %s given twice\n", option);
	return -EINVAL;
}

static int
parse_options(int argc, char **argv, struct mpe_args *o, struct mpe_primary *p)
{
	static const struct option longopts[] = {
		{"config", required_argument, NULL, 'c'}, {"check", no_argument, NULL, 'k'},
		{"no-spawn", no_argument, NULL, 'n'},	  {"secondary", required_argument, NULL, 's'},
		{"idle-exit", required_argument, NULL, 'i'},
		{"print-config", no_argument, NULL, 'P'}, {"help", no_argument, NULL, 'h'},
		{"help-config", no_argument, NULL, 'H'}, {"version", no_argument, NULL, 'V'},
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
		case 'V': mpe_version_print("mpe-primary"); exit(0);
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

void
mpe_args_base_default(int *nb_eal, char ***argv)
{
#ifdef MPE_BASE_VIRTADDR_DEFAULT
	static char opt[] = "--base-virtaddr=" MPE_BASE_VIRTADDR_DEFAULT;
	static char *args[256]; /* the EAL keeps pointers into its arguments */
	const int n = *nb_eal;
	int i;

	for (i = 1; i < n && strcmp((*argv)[i], "--") != 0; i++)
		if (strncmp((*argv)[i], "--base-virtaddr", strlen("--base-virtaddr")) == 0)
			return;
	if (n + 2 > (int)RTE_DIM(args)) {
		fprintf(stderr, "mpe-primary: sanitizer build: more than %zu EAL arguments, "
			"--base-virtaddr not added\n", RTE_DIM(args) - 2);
		return;
	}
	args[0] = (*argv)[0];
	args[1] = opt;
	for (i = 1; i < n; i++)
		args[i + 1] = (*argv)[i];
	*argv = args;
	*nb_eal = n + 1;
	fprintf(stderr, "mpe-primary: sanitizer build: the EAL's memory from %s, above the "
		"sanitizer's shadow memory (--base-virtaddr to choose; "
		"docs/operations.md#address-space)\n", MPE_BASE_VIRTADDR_DEFAULT);
#else
	RTE_SET_USED(nb_eal);
	RTE_SET_USED(argv);
#endif
}

/* EAL options every worker process needs too, so that it sees the same memory and devices.
 * They are passed on as written, so they must be written in full: the EAL also takes a
 * prefix of a long option ("--no-p"), which this scan would miss. */
int
mpe_args_eal_forwarded(int argc, char **argv, char **out, int max)
{
	static const char *const with_value[] = {"-a", "--allow", "-b", "--block",
						 "--base-virtaddr", "--huge-dir", "--log-level",
						 "--iova-mode", "-d", "--file-prefix"};
	static const char *const flags[] = {"--no-pci", "--legacy-mem",
					    "--single-file-segments", "--match-allocations"};
	int i, n, nb = 0;
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
			if (nb + n > max) {
				fprintf(stderr, "mpe-primary: more than %d EAL arguments to pass on "
					"to the workers\n", max);
				return -E2BIG;
			}
			if (out != NULL) {
				out[nb] = argv[i];
				if (n == 2)
					out[nb + 1] = argv[i + 1];
			}
			nb += n;
		}
		i += n - 1;
	}
	return nb;
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

int
mpe_args_check_eal(int argc, char **argv)
{
	int rc = refuse_eal_args(argc, argv);

	if (rc == 0)
		rc = mpe_args_eal_forwarded(argc, argv, NULL, MPE_MAX_FWD_ARGS);
	return rc < 0 ? rc : 0;
}

/* The workers' sandbox against what this kernel offers (docs/sandbox.md). `sandbox = on` given
 * on a kernel without seccomp filters is refused at its line; left to its default there, the
 * sandbox is off, with a notice. No Landlock: a warning, and the rest of the sandbox. The
 * thread build has no worker process to lock: it says so. --check says what the kernel has. */
static int
check_sandbox(const struct mpe_args *a, struct mpe_conf *conf)
{
	struct mpe_sandbox_support s;
	char kernel[128];

	mpe_sandbox_probe(&s);
	mpe_sandbox_describe(&s, kernel, sizeof(kernel));
	if (mpe_launch_model_id != 0) {
		if (a->check)
			printf("sandbox: not applicable in the thread build (the workers are threads "
			       "of the primary); this kernel: %s\n", kernel);
		return 0;
	}
	if (conf->sandbox && !s.seccomp) {
		if (conf->sandbox_line > 0) {
			fprintf(stderr, "%s:%d: sandbox: on, but this kernel has no seccomp filters "
				"(%s): set sandbox = off\n", a->config, conf->sandbox_line, kernel);
			return -ENOTSUP;
		}
		fprintf(stderr, "mpe-primary: sandbox: off: this kernel has no seccomp filters "
			"(%s)\n", kernel);
		conf->sandbox = 0;
	}
	if (conf->sandbox && s.landlock_abi == 0)
		fprintf(stderr, "mpe-primary: warning: sandbox: this kernel has no Landlock: the "
			"workers' files and TCP are not restricted, the rest of the sandbox is "
			"applied\n");
	if (a->check)
		printf("sandbox: %s; this kernel: %s\n", !conf->sandbox ? "off" :
		       s.landlock_abi > 0 ? "on: no_new_privs, no capabilities, Landlock, seccomp" :
		       "on: no_new_privs, no capabilities, seccomp (no Landlock)", kernel);
	return 0;
}

/* `worker_user`: a user of this host other than root, and the sandbox on (the switch is part
 * of the lock-down). Its ids go to shared memory with the configuration. The thread build has
 * no worker process to switch: it says so. */
static int
check_worker_user(const struct mpe_args *a, struct mpe_conf *conf)
{
	struct passwd pw, *found = NULL;
	char buf[1024];
	int rc;

	if (conf->worker_user[0] == '\0')
		return 0;
	if (mpe_launch_model_id != 0) {
		if (a->check)
			printf("worker_user: not applicable in the thread build (the workers are "
			       "threads of the primary)\n");
		return 0;
	}
	rc = getpwnam_r(conf->worker_user, &pw, buf, sizeof(buf), &found);
	if (found == NULL) {
		fprintf(stderr, "%s:%d: worker_user: no user '%s' on this host%s%s\n", a->config,
			conf->worker_user_line, conf->worker_user, rc != 0 ? ": " : "",
			rc != 0 ? strerror(rc) : "");
		return -EINVAL;
	}
	if (pw.pw_uid == 0) {
		fprintf(stderr, "%s:%d: worker_user: '%s' is root (uid 0): name an unprivileged "
			"user, or leave worker_user out\n", a->config, conf->worker_user_line,
			conf->worker_user);
		return -EINVAL;
	}
	if (!conf->sandbox) {
		fprintf(stderr, "%s:%d: worker_user: the switch is part of the workers' lock-down, "
			"and sandbox is off\n", a->config, conf->worker_user_line);
		return -EINVAL;
	}
	conf->worker_uid = pw.pw_uid;
	conf->worker_gid = pw.pw_gid;
	if (a->check)
		printf("worker_user: %s (uid %u, gid %u)\n", conf->worker_user, conf->worker_uid,
		       conf->worker_gid);
	return 0;
}

/* `standby`: worker processes to keep parked, so the thread build has none; at most one per
 * worker (more are never needed at once), and a takeover is a restart: restart must be on. */
static int
check_standby(const struct mpe_args *a, const struct mpe_conf *conf)
{
	if (conf->standby == 0)
		return 0;
	if (mpe_launch_model_id != 0) {
		fprintf(stderr, "%s:%d: standby: the thread build has no worker process to keep "
			"ready (a worker that crashes takes the engine down): build with "
			"-Dworker_model=process, or leave standby out\n", a->config,
			conf->standby_line);
		return -EINVAL;
	}
	if (conf->standby > conf->nb_workers) {
		fprintf(stderr, "%s:%d: standby: %u for %u worker%s: at most one per worker\n",
			a->config, conf->standby_line, conf->standby, conf->nb_workers,
			conf->nb_workers == 1 ? "" : "s");
		return -EINVAL;
	}
	if (!conf->restart) {
		fprintf(stderr, "%s:%d: standby: a standby takes a dead worker's place, and "
			"restart is off\n", a->config, conf->standby_line);
		return -EINVAL;
	}
	if (a->check)
		printf("standby: %u worker process%s attached and parked, each on an lcore id of "
		       "its own\n", conf->standby, conf->standby == 1 ? "" : "es");
	return 0;
}

/* --check with several I/O lcores: what each polls, and whether it transmits. */
static void
print_io(const struct mpe_conf *conf)
{
	unsigned int k, i, q;

	for (k = 0; k < conf->nb_io; k++) {
		const char *sep = "";

		printf("I/O lcore %u ([io %u]): receives from", conf->io[k].lcore, k);
		for (i = 0; i < conf->nb_ports; i++)
			for (q = 0; q < MPE_MAX_QUEUES; q++)
				if ((conf->io[k].rxq[i] >> q) & 1) {
					printf("%s port %u queue %u", sep, i, q);
					sep = ",";
				}
		if (*sep == '\0')
			printf(" nothing");
		if (conf->io[k].tx)
			printf("; transmits on TX queue %u of every port\n",
			       mpe_config_io_txq(conf, k));
		else if (conf->tx_workers)
			printf("; the workers transmit\n");
		else if (mpe_config_io_rx(conf, k))
			printf("; what it receives leaves through [io %u]\n",
			       mpe_config_io_tx_of(conf, k));
		else
			printf("; transmits nothing\n");
	}
	if (mpe_config_pipe_lanes(conf) > 1)
		printf("pipeline lanes: %u, one to each I/O lcore that transmits, with a ring "
		       "between each two workers\n", mpe_config_pipe_lanes(conf));
}

/* --check: the mbuf pools and which port receives into which. It runs no EAL and knows no
 * sockets: the pools per socket, and where each pool, ring and flow table goes, are decided at
 * start (the start log's "placement:" line). */
static void
print_pools(const struct mpe_conf *conf)
{
	static struct mpe_placement pl;
	static struct mpe_topology t;
	unsigned int i, k;

	if (!conf->pools_per_port) {
		printf("mbuf pools: one on each socket a receiving port is on, which the start "
		       "finds (pools = socket)\n");
		return;
	}
	for (i = 0; i < RTE_DIM(t.lcore_socket); i++)
		t.lcore_socket[i] = MPE_SOCKET_UNKNOWN;
	for (i = 0; i < RTE_DIM(t.port_socket); i++)
		t.port_socket[i] = MPE_SOCKET_UNKNOWN;
	mpe_place(conf, &t, NULL, 0, &pl);
	printf("mbuf pools: %u (pools = port), each on its port's socket:", pl.nb_pools);
	for (k = 0; k < pl.nb_pools; k++) {
		char name[RTE_MEMPOOL_NAMESIZE];

		unsigned int nb = 0;

		mpe_names_pool(name, sizeof(name), k);
		printf("%s %s for port", k > 0 ? "," : "", name);
		for (i = 0; i < conf->nb_ports; i++)
			if (conf->ports[i].rx && pl.port_pool[i] == k) {
				printf(" %u", i);
				nb++;
			}
		if (nb == 0)
			printf("s that do not receive");
	}
	printf("\n");
}

int
mpe_args_config(const struct mpe_args *a, struct mpe_conf *conf)
{
	int rc = mpe_config_load(a->config, conf, stderr);

	if (rc == 0 && check_sandbox(a, conf) < 0)
		rc = -1;
	if (rc == 0 && check_worker_user(a, conf) < 0)
		rc = -1;
	if (rc == 0 && check_standby(a, conf) < 0)
		rc = -1;
	if (rc < 0) {
		fprintf(stderr, "%s: %d error%s\n", a->config, -rc, rc == -1 ? "" : "s");
		return rc;
	}
	if (a->check)
		printf("%s: OK: shape %s, %u ports, %u workers\n", a->config,
		       mpe_config_shape_name(conf->shape), conf->nb_ports, conf->nb_workers);
	if (a->check && conf->nb_io > 1)
		print_io(conf);
	if (a->check)
		print_pools(conf);
	if (a->print_config)
		mpe_config_dump(conf, stdout);
	return 0;
}

int
mpe_args_parse(int argc, char **argv, struct mpe_args *a, struct mpe_primary *p)
{
	int sep, rc, i;

	/* Application options follow "--"; --check needs no EAL at all. */
	for (sep = 1; sep < argc && strcmp(argv[sep], "--") != 0; sep++)
		;
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--check") == 0 || strcmp(argv[i], "-h") == 0 ||
		    strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "--help-config") == 0 ||
		    strcmp(argv[i], "--version") == 0)
			break;
	if (i < argc && sep == argc) /* mpe-primary --check -c FILE, without "--" */
		sep = 0;
	if (sep == argc) {
		fprintf(stderr, "mpe-primary: no engine options: give [EAL args] -- -c FILE "
			"(see --help)\n");
		return -EINVAL;
	}
	argv[sep] = argv[0];
	rc = parse_options(argc - sep, argv + sep, a, p);
	argv[sep] = (char *)(uintptr_t)"--";
	a->nb_eal = sep;
	return rc;
}
