/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-secondary: one worker process. Attaches to the primary's memory, proves that the layout
 * and the mapping agree, checks that it runs on its configured lcore, then runs the shared
 * worker loop until told to stop or until the primary is gone.
 * Usage: mpe-secondary --proc-type=secondary --file-prefix P --lcores L@CPU [...] -- --worker N
 * A standby (-- --standby K) attaches the same way, locks down, and sleeps until the primary
 * hands it a dead worker's place (docs/standby.md).
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
#include <linux/futex.h>
#include <sys/syscall.h>

#include <bsd/unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_cycles.h>
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
#include "version.h"
#include "worker.h"

extern char **environ;

static void
on_signal(int sig)
{
	mpe_worker_stop_requested = sig;
}

/* Where a signal that ends this process is written before it does (the slot of the worker it
 * serves): the primary sees the death the moment the polling thread is gone, before the
 * kernel has told it how the process ended (docs/standby.md#seeing-a-death-at-once). */
static volatile int32_t *end_signal_at;

static void
on_fatal(int sig)
{
	if (end_signal_at != NULL)
		*end_signal_at = sig;
	raise(sig); /* SA_RESETHAND: the default action, at once (SA_NODEFER) */
}

/* Every signal whose default ends the process, but those the worker handles itself (SIGINT,
 * SIGTERM: a stop), SIGSYS (the sandbox's report), SIGKILL and SIGSTOP (no handler). */
static void
catch_fatal(void)
{
	static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGQUIT,
				   SIGHUP, SIGUSR1, SIGUSR2, SIGALRM, SIGVTALRM, SIGPROF,
				   SIGXCPU, SIGXFSZ, SIGPWR, SIGSTKFLT, SIGIO};
	struct sigaction sa = {.sa_handler = on_fatal, .sa_flags = SA_RESETHAND | SA_NODEFER};
	unsigned int i;

	sigemptyset(&sa.sa_mask);
	for (i = 0; i < RTE_DIM(sigs); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* From here to its end, the polling thread holds worker @slot's life mutex (shm.h): its
 * death, whatever the signal, releases it at once. The last holder's death left it
 * inconsistent: made consistent, it is ours. */
static void
hold_life(struct mpe_worker_slot *slot, const char *who)
{
	int rc;

	slot->status.end_signal = 0;
	end_signal_at = &slot->status.end_signal;
	rc = pthread_mutex_lock(&slot->status.life);
	if (rc == EOWNERDEAD)
		rc = pthread_mutex_consistent(&slot->status.life);
	if (rc != 0)
		MPE_LOG(WARNING, worker, "%s: its life mutex: %s: the primary sees its death when "
			"the process has ended", who, strerror(rc));
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

static void
usage(void)
{
	printf("Usage: mpe-secondary --proc-type=secondary --file-prefix PREFIX "
	       "--lcores LCORE@CPU [EAL args] -- {--worker N | --standby K} [--log-fd FD] "
	       "[--spawned]\n"
	       "A worker of the engine whose mpe-primary runs with the same --file-prefix; the\n"
	       "primary starts it (or prints its command line, with --no-spawn).\n"
	       "  -w, --worker N  be worker N of the configuration, on its lcore\n"
	       "      --standby K attach, then wait parked to take a dead worker's place\n"
	       "                  (spawned by the primary)\n"
	       "      --log-fd FD where to log once stdout, a pipe to the primary, breaks\n"
	       "      --spawned   started by the primary (not by hand, --no-spawn)\n"
	       "  -h, --help      this text (first argument, or after --)\n"
	       "      --version   the version and the worker model built\n"
	       "See mpe-secondary(8), mpe-primary(8).\n");
}

/* --worker N, or --standby K (@standby set); --log-fd FD and --spawned when spawned by the
 * primary (a pipe for its output, and the slot it may take: one the primary spawns for). */
static unsigned int
parse_worker_id(int argc, char **argv, int *log_fd, int *spawned, int *standby)
{
	static const struct option longopts[] = {
		{"worker", required_argument, NULL, 'w'}, {"help", no_argument, NULL, 'h'},
		{"log-fd", required_argument, NULL, 'l'}, {"spawned", no_argument, NULL, 's'},
		{"standby", required_argument, NULL, 'S'}, {NULL, 0, NULL, 0},
	};
	uint64_t id = UINT64_MAX, fd;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":w:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			if (id != UINT64_MAX)
				refuse(*standby ? "--worker with --standby: give one" :
				       "--worker given twice");
			if (mpe_parse_uint(optarg, 0, MPE_MAX_WORKERS - 1, &id) < 0)
				refuse("--worker: '%s' is not a worker number between 0 and %d",
				       optarg, MPE_MAX_WORKERS - 1);
			break;
		case 'S':
			if (id != UINT64_MAX)
				refuse(*standby ? "--standby given twice" : "--standby with --worker: "
				       "give one");
			if (mpe_parse_uint(optarg, 0, MPE_MAX_STANDBY - 1, &id) < 0)
				refuse("--standby: '%s' is not a standby number between 0 and %d",
				       optarg, MPE_MAX_STANDBY - 1);
			*standby = 1;
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
			usage();
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
		refuse("no worker number: give -- --worker N (or --standby K)");
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
/* Where a lock-down reports: a worker's slot, or a standby's. */
struct lock_report {
	const char *who; /* "worker 2", "standby 0" */
	volatile int32_t *blocked_syscall;
	char *sandbox; /* what was applied */
	size_t sandbox_size;
	char *error;
	size_t error_size;
	volatile uint32_t *state;
};

static void
lock_down(struct mpe_shared *shm, const struct lock_report *r, int standby, int piped)
{
	struct mpe_sandbox_spec spec = {
		.runtime_dir = rte_eal_get_runtime_dir(),
		.primary_pid = shm->primary_pid,
		.blocked_syscall = r->blocked_syscall,
		.standby = standby,
	};
	const char *id = r->who;
	char err[160];
	int rc;

	*r->blocked_syscall = -1;
	if (rte_eal_iova_mode() == RTE_IOVA_PA)
		spec.keep_admin_tid = mp_thread();
	if (shm->conf.worker_uid != MPE_UID_NONE) {
		spec.switch_user = 1;
		spec.uid = (uid_t)shm->conf.worker_uid;
		spec.gid = (gid_t)shm->conf.worker_gid;
	}
	if (!shm->conf.sandbox) {
		rte_strscpy(r->sandbox, "off", r->sandbox_size);
		MPE_LOG(NOTICE, worker, "%s: sandbox: off (sandbox = off in [engine])", id);
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
	rc = mpe_sandbox_apply(&spec, r->sandbox, r->sandbox_size, err, sizeof(err));
	if (rc < 0) {
		snprintf(r->error, r->error_size, "sandbox: %s", err);
		*r->state = MPE_WORKER_FAILED;
		refuse("%s: sandbox: %s (sandbox = off in [engine] runs workers without it)", id,
		       err);
	}
	if (spec.switch_user)
		MPE_LOG(INFO, worker, "%s: sandbox: runs as %s (uid %u, gid %u)", id,
			shm->conf.worker_user, shm->conf.worker_uid, shm->conf.worker_gid);
	MPE_LOG(INFO, worker, "%s: sandbox: %s, %d system calls allowed%s%s", id,
		r->sandbox, rc, strstr(r->sandbox, "landlock") != NULL ? "" :
		"; WARNING: no Landlock in this kernel: files and TCP not restricted",
		spec.keep_admin_tid != 0 ? "; IOVA as PA: the multi-process thread keeps "
		"CAP_SYS_ADMIN, to read the physical address of memory the primary adds later" : "");
}

/* The primary died and could not clean up: the last worker to leave removes the engine's
 * hugepage files and runtime directory. Workers take turns under a lock; each one first
 * marks itself as leaving, so that two leaving at once cannot both wait for the other. */
static void
clean_after_primary(struct mpe_shared *shm, volatile uint32_t *state, const char *who)
{
	char dir[PATH_MAX], lock[PATH_MAX + 16];
	unsigned int i;
	int fd;

	*state = MPE_WORKER_EXITED;
	rte_mb();
	rte_strscpy(dir, rte_eal_get_runtime_dir(), sizeof(dir));
	if (shm->conf.worker_uid != MPE_UID_NONE && shm->conf.sandbox) {
		/* the directories are root's: the next primary of this prefix clears them */
		fprintf(stderr, "mpe-secondary: %s: the primary died; running as %s, it "
			"leaves its hugepage files and %s to the next primary\n", who,
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
	for (i = 0; i < shm->conf.nb_workers + shm->conf.standby; i++) {
		const int standby = i >= shm->conf.nb_workers;
		const volatile uint32_t *st = standby ?
			&shm->standby[i - shm->conf.nb_workers].state : &shm->workers[i].status.state;
		pid_t pid = standby ? shm->standby[i - shm->conf.nb_workers].pid :
				      shm->workers[i].status.pid;

		if (st != state && pid > 0 && pid != getpid() && *st != MPE_WORKER_EXITED &&
		    *st != MPE_WORKER_FAILED && !mpe_worker_process_gone(pid)) {
			close(fd); /* another worker still runs: it will clean up */
			return;
		}
	}
	mpe_runtime_files_unlink(mpe_runtime_files_collect());
	mpe_runtime_remove_dir(dir);
	close(fd);
	fprintf(stderr, "mpe-secondary: %s: last to leave after the primary: removed its "
		"hugepage files and %s\n", who, dir);
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

/* Worker @id, attached, its stages set up and locked down: poll until told to stop, or until
 * the primary is gone. Returns the process's exit status (or ends it by the stop signal). */
static int
run_worker(struct mpe_shared *shm, struct mpe_worker *w, unsigned int id, const char *who)
{
	struct mpe_worker_slot *slot = &shm->workers[id];
	int rc, sig, ret = EXIT_SUCCESS;

	rc = mpe_worker_main(w);
	sig = rc == 0 && mpe_worker_left_on_signal(w) ? mpe_worker_stop_requested : 0;
	if (sig != 0)
		snprintf(slot->status.error, sizeof(slot->status.error),
			 "left on %s while the engine runs", mpe_worker_signal_name(sig));
	/* an end the primary asked for, or an error it is told of: the process exits, the
	 * mutex goes back unheld; one by a signal keeps it, and says which */
	if (sig != 0)
		slot->status.end_signal = sig;
	else
		pthread_mutex_unlock(&slot->status.life);
	slot->status.state = rc == 0 ? MPE_WORKER_EXITED : MPE_WORKER_FAILED;
	if (rc != 0) {
		snprintf(slot->status.error, sizeof(slot->status.error), "left its loop: %s",
			 strerror(-rc));
		ret = EXIT_FAILURE;
	}
	mpe_worker_fini(w);
	free(w);
	if (rc == -ESRCH)
		clean_after_primary(shm, &slot->status.state, who);
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

/* The process title and thread name of worker @id: ps shows the whole title, top and the
 * kernel the 15-character thread name. */
static void
name_worker(const struct mpe_shared *shm, unsigned int id)
{
	const struct mpe_worker_conf *wc = &shm->conf.workers[id];
	char stages[96] = "", name[32];
	size_t off = 0;
	unsigned int s;

	for (s = 0; s < wc->nb_stages && off < sizeof(stages); s++)
		off += (size_t)snprintf(stages + off, sizeof(stages) - off, "%s%s", s ? "," : "",
					mpe_stage_info(wc->stages[s])->name);
	setproctitle("-mpe-worker %u [%s] lcore %u", id, stages, rte_lcore_id());
	snprintf(name, sizeof(name), "mpe-worker %u", id);
	pthread_setname_np(pthread_self(), name);
}

#define STANDBY_CHECK_MS 100 /* a parked standby looks at the primary this often */
#define PRIMARY_GONE_WORD (MPE_STANDBY_STOP - 1) /* park(): no word, the primary is gone */

/* Parked: asleep on the standby word until the primary writes a worker's number there, or
 * tells it to leave; every STANDBY_CHECK_MS it looks whether the primary still runs. */
static uint32_t
park(struct mpe_shared *shm, struct mpe_standby_slot *sb)
{
	const struct timespec ts = {0, STANDBY_CHECK_MS * 1000000L};
	uint32_t word;

	while ((word = __atomic_load_n(&sb->word, __ATOMIC_ACQUIRE)) == MPE_STANDBY_PARKED) {
		/* not FUTEX_PRIVATE: the word is in memory the primary maps too */
		if (syscall(SYS_futex, &sb->word, FUTEX_WAIT, MPE_STANDBY_PARKED, &ts, NULL, 0) < 0 &&
		    errno == ETIMEDOUT && mpe_worker_process_gone(shm->primary_pid))
			return PRIMARY_GONE_WORD;
		if (mpe_worker_stop_requested && shm->run_state != MPE_RUN_ACTIVE)
			return MPE_STANDBY_STOP;
	}
	return word;
}

/* A standby: attached and locked down ahead of need, it sleeps until the primary hands it a
 * dead worker's place (docs/standby.md). It keeps its own lcore id, and with it its own
 * mempool cache: one lcore id, one process, through every takeover. */
static int
standby_main(struct mpe_shared *shm, unsigned int k, int spawned, int piped)
{
	struct mpe_standby_slot *sb = &shm->standby[k];
	const pid_t want = MPE_PID_SPAWNING;
	struct mpe_worker_slot *slot;
	struct mpe_worker *w;
	char who[32], took[32];
	uint64_t handed_tsc;
	pid_t was = want;
	cpu_set_t cpus;
	uint32_t word;
	unsigned int id;
	int rc;

	snprintf(who, sizeof(who), "standby %u", k);
	if (!spawned)
		refuse("%s: a standby is started by the primary only", who);
	if (k >= shm->conf.standby)
		refuse("%s: not configured (standby = %u)", who, shm->conf.standby);
	if (rte_lcore_id() != sb->lcore)
		refuse("%s: given lcore %u, started as lcore %u", who, sb->lcore, rte_lcore_id());
	if (sb->state != MPE_WORKER_STARTING ||
	    !__atomic_compare_exchange_n(&sb->pid, &was, getpid(), 0, __ATOMIC_SEQ_CST,
					 __ATOMIC_SEQ_CST))
		refuse("%s: not expected now (another instance, pid %d?)", who, (int)was);
	if (shm->run_state >= MPE_RUN_DRAIN || sb->word == MPE_STANDBY_STOP)
		refuse("%s: the engine is stopping", who);
	setproctitle("-mpe-standby %u lcore %u", k, rte_lcore_id());
	pthread_setname_np(pthread_self(), who);
	{
		struct lock_report r = {who, &sb->blocked_syscall, sb->sandbox,
					sizeof(sb->sandbox), sb->error, sizeof(sb->error),
					&sb->state};

		lock_down(shm, &r, 1, piped);
	}
	sb->state = MPE_WORKER_READY;
	MPE_LOG(INFO, worker, "%s: attached on lcore %u and parked", who, rte_lcore_id());

	word = park(shm, sb);
	if (word == MPE_STANDBY_STOP || word == PRIMARY_GONE_WORD || word > MPE_MAX_WORKERS) {
		if (word == PRIMARY_GONE_WORD)
			clean_after_primary(shm, &sb->state, who);
		sb->state = MPE_WORKER_EXITED;
		return EXIT_SUCCESS;
	}
	/* what it needs of its standby slot, then the slot is let go: the primary starts the
	 * next standby in it once it reads RUNNING */
	handed_tsc = sb->handed_tsc;
	memcpy(&cpus, sb->cpus, RTE_MIN(sizeof(cpus), sizeof(sb->cpus)));
	sb->woke_tsc = rte_rdtsc();
	rte_wmb();
	sb->state = MPE_WORKER_RUNNING;
	id = word - 1;
	slot = &shm->workers[id];
	snprintf(took, sizeof(took), "worker %u", id);
	/* the primary gave it the slot (pid), and the lcore id it keeps (its cache) */
	if (id >= shm->conf.nb_workers || slot->status.pid != getpid() ||
	    slot->ctl.lcore != rte_lcore_id())
		refuse("%s: handed worker %u, whose slot is not ready for it", who, id);
	mpe_sandbox_report_to(&slot->status.blocked_syscall);
	mpe_log_pipe_id(id);
	/* sched_setaffinity alone: rte_thread_set_affinity() would also look up the CPUs' NUMA
	 * node in sysfs, which the sandbox closes; the lcore keeps the socket id it attached
	 * with (the main lcore's) */
	rc = pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	if (rc != 0)
		MPE_LOG(WARNING, worker, "%s: taking worker %u's place: cannot move to its CPUs: "
			"%s; polling where it is", who, id, strerror(rc));
	w = calloc(1, sizeof(*w));
	if (w == NULL) {
		slot->status.state = MPE_WORKER_FAILED;
		refuse("%s: taking worker %u's place: out of memory", who, id);
	}
	rte_strscpy(slot->status.sandbox, sb->sandbox, sizeof(slot->status.sandbox));
	slot->status.error[0] = '\0';
	rc = mpe_worker_init(w, shm, id, slot->status.error, sizeof(slot->status.error));
	if (rc < 0) {
		slot->status.state = MPE_WORKER_FAILED;
		refuse("%s: taking worker %u's place: %s", who, id, slot->status.error);
	}
	name_worker(shm, id);
	hold_life(slot, took);
	slot->status.state = MPE_WORKER_READY;
	MPE_LOG(INFO, worker, "%s: takes worker %u's place, %.0f us after the primary handed it "
		"over", who, id, (double)(rte_rdtsc() - handed_tsc) * 1e6 / (double)shm->tsc_hz);
	return run_worker(shm, w, id, took);
}

int
main(int argc, char **argv)
{
	struct mpe_shared *shm;
	struct mpe_worker *w;
	struct mpe_worker_slot *slot;
	char err[160], who[32];
	unsigned int id, lcore;
	int rc, log_fd = -1, spawned = 0, piped = 0, standby = 0;

	setproctitle_init(argc, argv, environ);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* our output may be a pipe to the primary: once it is gone, writes fail, nothing more */
	signal(SIGPIPE, SIG_IGN);
	catch_fatal();
	/* before the EAL, which would answer --help with its own options */
	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage();
		return EXIT_SUCCESS;
	}
	mpe_version_exit(argc, argv, "mpe-secondary");
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
	id = parse_worker_id(argc, argv, &log_fd, &spawned, &standby);
	snprintf(who, sizeof(who), "%s %u", standby ? "standby" : "worker", id);
	if (log_fd >= 0) {
		rc = mpe_log_pipe_init(id, log_fd);
		piped = rc == 0;
		if (rc < 0)
			fprintf(stderr, "mpe-secondary: %s: log stream: %s\n", who, strerror(-rc));
	}

	shm = mpe_shm_lookup(MPE_SHM_LAYOUT_VERSION, sizeof(struct mpe_shared), err, sizeof(err));
	if (shm == NULL)
		refuse("%s: refusing to run: %s", who, err);
	if (strcmp(shm->build_id, MPE_BUILD_ID) != 0)
		MPE_LOG(WARNING, worker, "%s: primary build %s, this build %s", who,
			shm->build_id, MPE_BUILD_ID);
	if (rte_mbuf_dynfield_lookup(MPE_META_NAME, NULL) != shm->meta_offset)
		refuse("%s: mbuf field %s not where the primary put it", who, MPE_META_NAME);
	if (standby)
		return standby_main(shm, id, spawned, piped);
	if (id >= shm->conf.nb_workers)
		refuse("worker %u: not configured (the engine has %u workers)",
			 id, shm->conf.nb_workers);
	slot = &shm->workers[id];
	lcore = rte_lcore_id();
	/* mempool caches are per lcore id and shared by all processes: never share one */
	if (lcore != slot->ctl.lcore)
		refuse("worker %u: configured for lcore %u but started as lcore %u: start it with "
		       "--lcores %u@CPU", id, slot->ctl.lcore, lcore, slot->ctl.lcore);
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
	name_worker(shm, id);
	{
		struct lock_report r = {who, &slot->status.blocked_syscall, slot->status.sandbox,
					sizeof(slot->status.sandbox), slot->status.error,
					sizeof(slot->status.error), &slot->status.state};

		lock_down(shm, &r, 0, piped);
	}
	hold_life(slot, who);
	slot->status.state = MPE_WORKER_READY;
	return run_worker(shm, w, id, who);
}
