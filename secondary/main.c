/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-secondary: one worker process. Attaches to the primary's memory, proves that the layout
 * and the mapping agree, checks that it runs on its configured lcore, then runs the shared
 * worker loop until told to stop or until the primary is gone.
 * Usage: mpe-secondary --proc-type=secondary --file-prefix P --lcores L@CPU [...] -- --worker N
 */
#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
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
#include <rte_memory.h>
#include <rte_string_fns.h>

#include "log.h"
#include "log_pipe.h"
#include "parse.h"
#include "runtime.h"
#include "sandbox.h"
#include "shm_ops.h"
#include "stage.h"
#include "worker.h"

extern char **environ;

static void
on_signal(int sig)
{
	mpe_worker_stop_requested = sig;
}

/* Refuse to run, once attached. Not rte_exit(): its rte_eal_cleanup() would, in a secondary,
 * close devices the primary still uses (net_pcap links go down). */
static void __rte_noreturn __rte_format_printf(1, 2)
refuse(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "mpe-secondary: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(EXIT_FAILURE);
}

/* The EAL of a process that did not attach may have made an empty runtime directory. */
static void
remove_empty_runtime_dir(void)
{
	const char *dir = rte_eal_get_runtime_dir();

	if (dir != NULL && dir[0] != '\0')
		rmdir(dir);
}

/* The EAL's messages while it attaches go to stdout as its own console stream sends them, and
 * one that says it could not map something where the primary has it is remembered: its shared
 * config ("... please use '--base-virtaddr' option") or an area at a fixed address ("Cannot get
 * a virtual area at requested address"). */
static int eal_named_base;

static ssize_t
eal_log_write(void *cookie, const char *buf, size_t size)
{
	static const char *const clash[] = {"base-virtaddr", "at requested address"};
	unsigned int i;

	RTE_SET_USED(cookie);
	for (i = 0; i < RTE_DIM(clash); i++)
		if (memmem(buf, size, clash[i], strlen(clash[i])) != NULL)
			eal_named_base = 1;
	size = fwrite(buf, 1, size, stdout);
	fflush(stdout);
	return (ssize_t)size;
}

/* rte_eal_init(), its messages through eal_log_write() */
static int
eal_init(int argc, char **argv)
{
	static const cookie_io_functions_t eal_log_io = {.write = eal_log_write};
	FILE *eal_log = fopencookie(NULL, "w", eal_log_io);
	int rc;

	if (eal_log != NULL) {
		setvbuf(eal_log, NULL, _IOLBF, 0);
		rte_openlog_stream(eal_log);
	}
	rc = rte_eal_init(argc, argv);
	/* the EAL's own console stream from here on */
	rte_openlog_stream(NULL);
	if (eal_log != NULL)
		fclose(eal_log);
	return rc;
}

/* rte_eal_init() failed with @err (rte_errno): say why in terms of what to do. Where a primary
 * is alive (it holds the lock on its config file), the memory is there; if this process could
 * not map it where the primary has it (the EAL said so, or gave ENOMEM, its error for the
 * memory segments), a mapping of its own (a library, the heap, a sanitizer's
 * shadow) sits at those addresses, and the cure is a --base-virtaddr for the primary that is
 * free in both (docs/operations.md#address-space). */
static void
attach_failed(int err)
{
	const char *dir = rte_eal_get_runtime_dir();
	char cfg[PATH_MAX];
	int alive = 0;

	if (dir != NULL && dir[0] != '\0' &&
	    snprintf(cfg, sizeof(cfg), "%s/config", dir) < (int)sizeof(cfg))
		alive = rte_eal_primary_proc_alive(cfg);
	remove_empty_runtime_dir();
	if (!alive)
		fprintf(stderr, "mpe-secondary: cannot attach to a primary: %s: is mpe-primary "
			"running with the same --file-prefix?\n",
			err != 0 ? rte_strerror(err) : "EAL initialisation failed");
	else if (eal_named_base || err == ENOMEM)
		fprintf(stderr, "mpe-secondary: cannot map the primary's shared memory at the "
			"primary's addresses: something else of this process is mapped there (the "
			"EAL's message above says where); start mpe-primary with --base-virtaddr "
			"ADDR, an address free in both (docs/operations.md#address-space)\n");
	else
		fprintf(stderr, "mpe-secondary: cannot attach to the running primary: %s (the "
			"EAL's message above says why)\n", rte_strerror(err));
}

/* --worker N; --log-fd FD and --spawned when spawned by the primary (a pipe for its output,
 * and the slot it may take: one the primary spawns for). */
static unsigned int
parse_worker_id(int argc, char **argv, int *log_fd, int *spawned)
{
	static const struct option longopts[] = {
		{"worker", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
		{"log-fd", required_argument, NULL, 'l'}, {"spawned", no_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	uint64_t id = UINT64_MAX, fd;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (id != UINT64_MAX)
				refuse("--worker given twice");
			if (mpe_parse_uint(optarg, 0, MPE_MAX_WORKERS - 1, &id) < 0)
				refuse("--worker: '%s' is not a worker number between 0 and %d",
				       optarg, MPE_MAX_WORKERS - 1);
			break;
		case 'l':
			if (*log_fd >= 0)
				refuse("--log-fd given twice");
			if (mpe_parse_uint(optarg, 3, 1023, &fd) < 0 || fcntl((int)fd, F_GETFD) < 0)
				refuse("--log-fd: '%s' is not an open descriptor above 2", optarg);
			*log_fd = (int)fd;
			break;
		case 's':
			*spawned = 1;
			break;
		case 'h':
			printf("Usage: mpe-secondary --proc-type=secondary --file-prefix PREFIX "
			       "--lcores LCORE@CPU [EAL args] -- --worker N [--log-fd FD] "
			       "[--spawned]\n"
			       "  --log-fd FD  where to log once stdout, a pipe to the primary, "
			       "breaks\n"
			       "  --spawned    started by the primary (not by hand, --no-spawn)\n");
			exit(0);
		case ':':
			refuse("%s needs a value", argv[optind - 1]);
			break;
		default:
			refuse("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		refuse("unexpected argument '%s'", argv[optind]);
	if (id == UINT64_MAX)
		refuse("no worker number: give -- --worker N");
	return (unsigned int)id;
}

/* The thread id of the EAL's multi-process thread (rte_mp_handle), 0 when not found. */
static pid_t
mp_thread(void)
{
	char path[64], comm[32];
	struct dirent *e;
	pid_t tid = 0;
	DIR *d = opendir("/proc/self/task");

	while (d != NULL && tid == 0 && (e = readdir(d)) != NULL) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) != NULL && strncmp(comm, "rte_mp_handle", 13) == 0)
			tid = (pid_t)atoi(e->d_name);
		fclose(f);
	}
	if (d != NULL)
		closedir(d);
	return tid;
}

/* Once attached and its stages set up, before its first packet: the worker gives up what it
 * no longer needs (docs/sandbox.md), or refuses to run when the lock-down fails half way. What
 * was applied goes into its slot (telemetry, mpe-ctl) and its log. @piped: its log goes
 * through the primary's pipe; else the EAL's own log stream, which writes to stdout and to
 * syslog (a socket the filter refuses to open again), is replaced by stdout alone. */
static void
lock_down(struct mpe_shared *shm, struct mpe_worker_slot *slot, unsigned int id, int piped)
{
	struct mpe_sandbox_spec spec = {
		.runtime_dir = rte_eal_get_runtime_dir(),
		.primary_pid = shm->primary_pid,
		.blocked_syscall = &slot->status.blocked_syscall,
	};
	char err[160];
	int rc;

	slot->status.blocked_syscall = -1;
	if (rte_eal_iova_mode() == RTE_IOVA_PA)
		spec.keep_admin_tid = mp_thread();
	if (shm->conf.worker_uid != MPE_UID_NONE) {
		spec.switch_user = 1;
		spec.uid = (uid_t)shm->conf.worker_uid;
		spec.gid = (gid_t)shm->conf.worker_gid;
	}
	if (!shm->conf.sandbox) {
		rte_strscpy(slot->status.sandbox, "off", sizeof(slot->status.sandbox));
		MPE_LOG(NOTICE, worker, "worker %u: sandbox: off (sandbox = off in [engine])", id);
		return;
	}
	if (!piped) {
		/* a stream of its own: stdout's buffering was settled by its first use */
		int fd = dup(STDOUT_FILENO);
		FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

		fflush(stdout);
		if (out != NULL) {
			setvbuf(out, NULL, _IOLBF, 0);
			rte_openlog_stream(out);
		} else {
			rte_openlog_stream(stderr);
		}
	}
	rc = mpe_sandbox_apply(&spec, slot->status.sandbox, sizeof(slot->status.sandbox), err,
			       sizeof(err));
	if (rc < 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "sandbox: %s", err);
		slot->status.state = MPE_WORKER_FAILED;
		refuse("worker %u: sandbox: %s (sandbox = off in [engine] runs workers without "
		       "it)", id, err);
	}
	if (spec.switch_user)
		MPE_LOG(INFO, worker, "worker %u: sandbox: runs as %s (uid %u, gid %u)", id,
			shm->conf.worker_user, shm->conf.worker_uid, shm->conf.worker_gid);
	MPE_LOG(INFO, worker, "worker %u: sandbox: %s, %d system calls allowed%s%s", id,
		slot->status.sandbox, rc, strstr(slot->status.sandbox, "landlock") != NULL ? "" :
		"; WARNING: no Landlock in this kernel: files and TCP not restricted",
		spec.keep_admin_tid != 0 ? "; IOVA as PA: the multi-process thread keeps "
		"CAP_SYS_ADMIN, to read the physical address of memory the primary adds later" : "");
}

/* The primary died and could not clean up: the last worker to leave removes the engine's
 * hugepage files and runtime directory. Workers take turns under a lock; each one first
 * marks itself as leaving, so that two leaving at once cannot both wait for the other. */
static void
clean_after_primary(struct mpe_shared *shm, unsigned int id)
{
	char dir[PATH_MAX], lock[PATH_MAX + 16];
	unsigned int i;
	int fd;

	shm->workers[id].status.state = MPE_WORKER_EXITED;
	rte_mb();
	rte_strscpy(dir, rte_eal_get_runtime_dir(), sizeof(dir));
	if (shm->conf.worker_uid != MPE_UID_NONE && shm->conf.sandbox) {
		/* the directories are root's: the next primary of this prefix clears them */
		fprintf(stderr, "mpe-secondary: worker %u: the primary died; running as %s, it "
			"leaves its hugepage files and %s to the next primary\n", id,
			shm->conf.worker_user, dir);
		return;
	}
	snprintf(lock, sizeof(lock), "%s/config", dir);
	fd = open(lock, O_RDONLY);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < shm->conf.nb_workers; i++) {
		const struct mpe_worker_status *st = &shm->workers[i].status;

		if (i != id && st->pid > 0 && st->state != MPE_WORKER_EXITED &&
		    st->state != MPE_WORKER_FAILED && !mpe_worker_process_gone(st->pid)) {
			close(fd); /* another worker still runs: it will clean up */
			return;
		}
	}
	mpe_runtime_files_unlink(mpe_runtime_files_collect());
	mpe_runtime_remove_dir(dir);
	close(fd);
	fprintf(stderr, "mpe-secondary: worker %u: last to leave after the primary: removed its "
		"hugepage files and %s\n", id, dir);
}

/* A worker attaches only where the primary waits for it (it printed or spawned its command
 * line): after a death the primary first repairs the rings and the pool the last instance
 * left, and an instance that attached meanwhile would work on them with it. */
static void
refuse_unexpected(const struct mpe_shared *shm, struct mpe_worker_slot *slot, unsigned int id,
		  int spawned)
{
	/* the primary's own instance takes a slot it spawns for, one started by hand a slot it
	 * waits for */
	const pid_t want = spawned ? MPE_PID_SPAWNING : 0;
	pid_t was = want;

	if (slot->ctl.stop)
		refuse("worker %u: the engine is stopping", id);
	switch (slot->status.state) {
	case MPE_WORKER_STARTING:
		/* one instance only */
		if (!__atomic_compare_exchange_n(&slot->status.pid, &was, getpid(), 0,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
			if (was == MPE_PID_SPAWNING)
				refuse("worker %u: the primary starts this worker itself (it runs "
				       "without --no-spawn): start none by hand", id);
			if (spawned && was == 0)
				refuse("worker %u: --spawned, but the primary waits for an instance "
				       "started by hand (--no-spawn)", id);
			refuse("worker %u: another instance, pid %d, is attaching", id, (int)was);
		}
		/* a stop that began meanwhile may not have seen the claim: give it back */
		if (slot->ctl.stop || shm->run_state >= MPE_RUN_DRAIN) {
			__atomic_store_n(&slot->status.pid, want, __ATOMIC_SEQ_CST);
			refuse("worker %u: the engine is stopping", id);
		}
		return;
	case MPE_WORKER_NONE:
		refuse("worker %u: not expected yet: the primary starts its workers, or with "
		       "--no-spawn prints their command lines, once its ports are set up", id);
		break;
	case MPE_WORKER_RESTARTING:
		refuse("worker %u: its last instance died and is being recovered: the primary "
		       "respawns it, or with --no-spawn prints its command line again", id);
		break;
	case MPE_WORKER_FAILED:
		if (slot->ctl.dead)
			refuse("worker %u: left down for good (%s): its traffic goes nowhere; "
			       "restart the engine to bring it back", id, slot->status.error);
		refuse("worker %u: failed (%s): restart the engine", id, slot->status.error);
		break;
	default:
		refuse("worker %u: its last instance (pid %d) has ended and the primary has not "
		       "recovered it yet: start it once the primary prints its command line again",
		       id, slot->status.pid);
	}
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
	int rc, ret = EXIT_SUCCESS, log_fd = -1, spawned = 0, sig, piped = 0;

	setproctitle_init(argc, argv, environ);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* our output may be a pipe to the primary: once it is gone, writes fail, nothing more */
	signal(SIGPIPE, SIG_IGN);
	rc = eal_init(argc, argv);
	if (rc < 0) {
		attach_failed(rte_errno);
		return EXIT_FAILURE;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY) {
		/* it became a primary of its own: undo that entirely */
		char dir[PATH_MAX];

		rte_strscpy(dir, rte_eal_get_runtime_dir(), sizeof(dir));
		rte_eal_cleanup();
		mpe_runtime_remove_dir(dir);
		fprintf(stderr, "mpe-secondary: must start with --proc-type=secondary\n");
		return EXIT_FAILURE;
	}
	argc -= rc;
	argv += rc;
	id = parse_worker_id(argc, argv, &log_fd, &spawned);
	if (log_fd >= 0) {
		rc = mpe_log_pipe_init(id, log_fd);
		piped = rc == 0;
		if (rc < 0)
			fprintf(stderr, "mpe-secondary: worker %u: log stream: %s\n", id,
				strerror(-rc));
	}

	shm = mpe_shm_lookup(MPE_SHM_LAYOUT_VERSION, sizeof(struct mpe_shared), err, sizeof(err));
	if (shm == NULL)
		refuse("worker %u: refusing to run: %s", id, err);
	if (strcmp(shm->build_id, MPE_BUILD_ID) != 0)
		MPE_LOG(WARNING, worker, "worker %u: primary build %s, this build %s", id,
			shm->build_id, MPE_BUILD_ID);
	if (rte_mbuf_dynfield_lookup(MPE_META_NAME, NULL) != shm->meta_offset)
		refuse("worker %u: mbuf field %s not where the primary put it",
			 id, MPE_META_NAME);
	if (id >= shm->conf.nb_workers)
		refuse("worker %u: not configured (the engine has %u workers)",
			 id, shm->conf.nb_workers);
	slot = &shm->workers[id];
	wc = &shm->conf.workers[id];
	lcore = rte_lcore_id();
	/* mempool caches are per lcore id and shared by all processes: never share one */
	if (lcore != wc->lcore)
		refuse("worker %u: configured for lcore %u but started as lcore %u: start it with "
		       "--lcores %u@CPU", id, wc->lcore, lcore, wc->lcore);
	if ((slot->status.state == MPE_WORKER_READY || slot->status.state == MPE_WORKER_RUNNING) &&
	    slot->status.pid > 0 && slot->status.pid != getpid() &&
	    kill(slot->status.pid, 0) == 0)
		refuse("worker %u: already running as pid %d", id,
			 slot->status.pid);
	if (shm->run_state >= MPE_RUN_DRAIN)
		refuse("worker %u: the engine is stopping", id);
	refuse_unexpected(shm, slot, id, spawned);

	w = calloc(1, sizeof(*w));
	if (w == NULL)
		refuse("worker %u: out of memory", id);
	slot->status.error[0] = '\0';
	slot->status.pid = getpid();
	rc = mpe_worker_init(w, shm, id, slot->status.error, sizeof(slot->status.error));
	if (rc < 0) {
		slot->status.state = MPE_WORKER_FAILED;
		refuse("worker %u: %s", id, slot->status.error);
	}
	for (s = 0; s < wc->nb_stages && off < sizeof(stages); s++)
		off += (size_t)snprintf(stages + off, sizeof(stages) - off, "%s%s", s ? "," : "",
					mpe_stage_info(wc->stages[s])->name);
	/* ps shows the whole title; top and the kernel show the 15-character thread name */
	setproctitle("-mpe-worker %u [%s] lcore %u", id, stages, lcore);
	snprintf(err, sizeof(err), "mpe-worker %u", id);
	pthread_setname_np(pthread_self(), err);
	lock_down(shm, slot, id, piped);
	slot->status.state = MPE_WORKER_READY;

	rc = mpe_worker_main(w);
	sig = rc == 0 && mpe_worker_left_on_signal(w) ? mpe_worker_stop_requested : 0;
	if (sig != 0)
		snprintf(slot->status.error, sizeof(slot->status.error),
			 "left on %s while the engine runs", mpe_worker_signal_name(sig));
	slot->status.state = rc == 0 ? MPE_WORKER_EXITED : MPE_WORKER_FAILED;
	if (rc != 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "left its loop: %s",
			 strerror(-rc));
		ret = EXIT_FAILURE;
	}
	mpe_worker_fini(w);
	free(w);
	if (rc == -ESRCH)
		clean_after_primary(shm, id);
	/* Its burst is finished and its hand empty; ending by the signal itself tells the
	 * primary (and a shell that started it) that nobody asked it to stop. */
	if (sig != 0) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	/* No rte_eal_cleanup(): in a secondary it would stop ports the primary still uses
	 * (net_pcap). The primary owns and removes every shared object. */
	return ret;
}
