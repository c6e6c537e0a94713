/* SPDX-License-Identifier: BSD-3-Clause */
/* mpe-costs "accept": Stevens' server designs (UNP vol. 1, ch. 30) over loopback - iterative
 * baseline, fork per connection, preforked, thread per connection, prethreaded - each in a
 * runner process, driven by a client of C threads in this process; connections per second
 * and the server's CPU time per connection.
 */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "costs.h"

#define MODE                "accept"
#define REPLY_BYTES         4000 /* what each of Stevens' clients asks for */
#define BACKLOG             1024
#define READY_TIMEOUT_MS    10000
#define RESULT_TIMEOUT_MS   20000
#define CLIENT_IO_TIMEOUT_S 5
#define STOP_GRACE_MS       2000

static const char request[] = "GET 4000\n";

enum design { D_ITERATIVE, D_FORK, D_PREFORK, D_THREAD, D_PRETHREAD, D_COUNT };

static const struct seed_ref seed_fork_cpu = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", "504.2 s CPU", 0,
	"Stevens, Solaris 2.5.1: fork per client, CPU over the iterative server"};
static const struct seed_ref seed_prefork_cpu = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", "21.5 s CPU", 0,
	"Stevens, Solaris 2.5.1: preforked, CPU over the iterative server"};
static const struct seed_ref seed_cpu_ratio = {"000_cf04fa0e9ffcd556.txt", "seed 000", "23.5x",
					       504.2 / 21.5,
					       "504.2 / 21.5, Stevens' table as quoted"};
static const struct seed_ref seed_pool = {
	"000_cf04fa0e9ffcd556.txt", "seed 000", "~1x (no advantage)", 1,
	"pools are complex and 'no more efficient': create per connection freely"};

static const struct {
	const char *key;
	const char *what;
} designs[D_COUNT] = {
	[D_ITERATIVE] = {"iterative", "iterative server (baseline)"},
	[D_FORK] = {"fork", "fork per connection"},
	[D_PREFORK] = {"prefork", "preforked, each calls accept"},
	[D_THREAD] = {"thread", "thread per connection"},
	[D_PRETHREAD] = {"prethread", "prethreaded, each calls accept"},
};

struct job {
	enum design d;
	int lfd;
	int ctl;   /* read end: EOF means stop */
	int ready; /* write end: one byte when the pool is up */
	int ctl_w; /* the other ends, closed in the runner */
	int ready_r;
	unsigned int pool;
};

struct result {
	int err;
	uint64_t served;
	double cpu_s;
};

/* Runner state; the counter lives in shared memory so forked servers count too. */
static uint64_t *served;
static int thread_live;
static int listen_fd;

static void
serve(int fd)
{
	char buf[REPLY_BYTES];
	size_t got = 0, sent = 0;
	ssize_t n;

	while (got < sizeof(request) - 1) {
		n = read(fd, buf + got, sizeof(request) - 1 - got);
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got == sizeof(request) - 1) {
		memset(buf, 'x', sizeof(buf));
		while (sent < sizeof(buf)) {
			n = send(fd, buf + sent, sizeof(buf) - sent, MSG_NOSIGNAL);
			if (n <= 0)
				break;
			sent += (size_t)n;
		}
		if (sent == sizeof(buf))
			__atomic_add_fetch(served, 1, __ATOMIC_RELAXED);
	}
	close(fd);
}

static void *
conn_thread(void *arg)
{
	serve((int)(intptr_t)arg);
	__atomic_sub_fetch(&thread_live, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The body of a preforked child or a prethreaded thread; ends when the socket is shut. */
static void
accept_loop(void)
{
	for (;;) {
		int fd = accept(listen_fd, NULL, NULL);

		if (fd >= 0)
			serve(fd);
		else if (errno != EINTR && errno != ECONNABORTED)
			return;
	}
}

static void *
pool_thread(void *arg)
{
	accept_loop();
	return arg;
}

static void
reap_nohang(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

/* iterative, fork and thread per connection: one acceptor that also watches the stop pipe */
static int
dispatch_loop(const struct job *j)
{
	struct pollfd p[2] = {{.fd = j->lfd, .events = POLLIN}, {.fd = j->ctl, .events = POLLIN}};
	pthread_attr_t attr;
	int rc = 0;

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (;;) {
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			rc = errno;
			break;
		}
		if (p[1].revents)
			break;
		fd = accept(j->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		if (j->d == D_ITERATIVE) {
			serve(fd);
		} else if (j->d == D_FORK) {
			pid_t pid = fork();

			if (pid == 0) {
				close(j->lfd);
				serve(fd);
				_exit(0);
			}
			close(fd);
			if (pid < 0) {
				rc = errno;
				break;
			}
			reap_nohang();
		} else {
			pthread_t t;

			__atomic_add_fetch(&thread_live, 1, __ATOMIC_RELAXED);
			rc = pthread_create(&t, &attr, conn_thread, (void *)(intptr_t)fd);
			if (rc != 0) {
				__atomic_sub_fetch(&thread_live, 1, __ATOMIC_RELAXED);
				close(fd);
				break;
			}
		}
	}
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	while (__atomic_load_n(&thread_live, __ATOMIC_ACQUIRE) > 0)
		usleep(1000);
	pthread_attr_destroy(&attr);
	return rc;
}

static int
pool_loop(const struct job *j)
{
	pid_t *pids = calloc(j->pool, sizeof(*pids));
	pthread_t *tids = calloc(j->pool, sizeof(*tids));
	unsigned int i, made = 0;
	uint64_t end;
	char c = 1;
	int rc = 0;

	if (pids == NULL || tids == NULL)
		return ENOMEM;
	for (i = 0; i < j->pool; i++) {
		if (j->d == D_PREFORK) {
			pids[i] = fork();
			if (pids[i] == 0) {
				child_setup();
				accept_loop();
				_exit(0);
			}
			if (pids[i] < 0) {
				rc = errno;
				break;
			}
		} else {
			rc = pthread_create(&tids[i], NULL, pool_thread, NULL);
			if (rc != 0)
				break;
		}
		made++;
	}
	if (rc == 0)
		write_full(j->ready, &c, 1);
	while (rc == 0 && read(j->ctl, &c, 1) < 0 && errno == EINTR)
		;
	/* shutting the listening socket wakes every accept, in this process and the children */
	shutdown(j->lfd, SHUT_RDWR);
	if (j->d == D_PRETHREAD) {
		for (i = 0; i < made; i++)
			pthread_join(tids[i], NULL);
	} else {
		end = now_ns() + STOP_GRACE_MS * 1000000ULL;
		for (i = 0; i < made; i++) {
			while (waitpid(pids[i], NULL, WNOHANG) == 0) {
				if (now_ns() > end)
					kill(pids[i], SIGKILL);
				usleep(1000);
			}
		}
	}
	free(pids);
	free(tids);
	return rc;
}

static int
run_server(void *arg, int wfd)
{
	const struct job *j = arg;
	struct result res = {0};
	char c = 1;

	served = mmap(NULL, sizeof(*served), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	if (served == MAP_FAILED) {
		res.err = errno;
		return write_full(wfd, &res, sizeof(res));
	}
	close(j->ctl_w);
	close(j->ready_r);
	listen_fd = j->lfd;
	if (j->d == D_PREFORK || j->d == D_PRETHREAD) {
		res.err = pool_loop(j);
	} else {
		write_full(j->ready, &c, 1);
		res.err = dispatch_loop(j);
	}
	res.served = *served;
	res.cpu_s = self_cpu_s();
	return write_full(wfd, &res, sizeof(res));
}

struct client {
	struct sockaddr_in addr;
	int64_t remaining;
	uint64_t ok, failed;
	int done;
};

static void *
client_thread(void *arg)
{
	struct client *c = arg;
	struct timeval tv = {.tv_sec = CLIENT_IO_TIMEOUT_S};
	struct linger lg = {.l_onoff = 1, .l_linger = 0};
	char buf[REPLY_BYTES];

	while (__atomic_sub_fetch(&c->remaining, 1, __ATOMIC_RELAXED) >= 0 && !g_stop) {
		size_t got = 0;
		ssize_t n;
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		bool ok = false;

		if (fd < 0) {
			__atomic_add_fetch(&c->failed, 1, __ATOMIC_RELAXED);
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		if (connect(fd, (struct sockaddr *)&c->addr, sizeof(c->addr)) == 0 &&
		    send(fd, request, sizeof(request) - 1, MSG_NOSIGNAL) ==
			    (ssize_t)(sizeof(request) - 1)) {
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				got += (size_t)n;
			ok = got == REPLY_BYTES && n == 0;
		}
		/* reset instead of FIN: no TIME_WAIT left behind, on either side */
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
		__atomic_add_fetch(ok ? &c->ok : &c->failed, 1, __ATOMIC_RELAXED);
	}
	__atomic_add_fetch(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static int
listen_loopback(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(addr, 0, sizeof(*addr));
	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 ||
	    listen(fd, BACKLOG) < 0 || getsockname(fd, (struct sockaddr *)addr, &len) < 0) {
		fprintf(stderr, "%s: %s: loopback listen: %s\n", PROG, MODE, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static int
wait_ready(int fd)
{
	uint64_t end = now_ns() + READY_TIMEOUT_MS * 1000000ULL;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char c;

	while (!g_stop && now_ns() < end) {
		if (poll(&p, 1, 50) > 0)
			return read(fd, &c, 1) == 1 ? 0 : -EIO;
	}
	return g_stop ? -EINTR : -ETIMEDOUT;
}

/* One run of one design: conn/s and server CPU µs per connection. */
static int
one_run(enum design d, unsigned int pool, unsigned int clients, uint64_t conns, double *cps,
	double *cpu_us)
{
	struct job j = {.d = d, .pool = pool};
	struct client c = {.remaining = (int64_t)conns};
	pthread_t *tids = calloc(clients, sizeof(*tids));
	int ctl[2] = {-1, -1}, ready[2] = {-1, -1}, rfd = -1, rc = 0;
	unsigned int i, made = 0;
	sigset_t all, old;
	struct result res;
	uint64_t t0, t1;
	pid_t pid = -1;

	if (tids == NULL)
		return -ENOMEM;
	j.lfd = listen_loopback(&c.addr);
	if (j.lfd < 0 || pipe(ctl) < 0 || pipe(ready) < 0) {
		rc = -EIO;
		goto out;
	}
	j.ctl = ctl[0];
	j.ready = ready[1];
	j.ctl_w = ctl[1];
	j.ready_r = ready[0];
	pid = runner_start(run_server, &j, &rfd);
	close(ctl[0]);
	close(ready[1]);
	close(j.lfd);
	ctl[0] = ready[1] = j.lfd = -1;
	if (pid < 0) {
		rc = -EAGAIN;
		goto out;
	}
	rc = wait_ready(ready[0]);
	if (rc < 0)
		goto out;
	/* signals go to this thread only, which watches the stop flag while clients run */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	t0 = now_ns();
	for (i = 0; i < clients; i++) {
		if (pthread_create(&tids[i], NULL, client_thread, &c) != 0)
			break;
		made++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	while ((unsigned int)__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) < made) {
		if (g_stop) {
			runner_kill(pid, rfd); /* the server's sockets close; clients unblock */
			pid = -1;
			rfd = -1;
			break;
		}
		usleep(2000);
	}
	t1 = now_ns();
	for (i = 0; i < made; i++)
		pthread_join(tids[i], NULL);
	if (g_stop) {
		rc = -EINTR;
		goto out;
	}
	close(ctl[1]);
	ctl[1] = -1;
	rc = runner_finish(pid, rfd, &res, sizeof(res), RESULT_TIMEOUT_MS);
	pid = -1;
	rfd = -1;
	if (rc < 0)
		goto out;
	if (made < clients || res.err != 0 || c.failed > 0 || res.served != conns) {
		fprintf(stderr,
			"%s: %s: %s: %u of %u clients, %llu ok, %llu failed, %llu served%s%s\n",
			PROG, MODE, designs[d].what, made, clients, (unsigned long long)c.ok,
			(unsigned long long)c.failed, (unsigned long long)res.served,
			res.err ? ": " : "", res.err ? strerror(res.err) : "");
		rc = -EIO;
		goto out;
	}
	*cps = (double)conns / ((double)(t1 - t0) / 1e9);
	*cpu_us = res.cpu_s * 1e6 / (double)conns;
out:
	if (pid > 0)
		runner_kill(pid, rfd);
	for (i = 0; i < 2; i++) {
		if (ctl[i] >= 0)
			close(ctl[i]);
		if (ready[i] >= 0)
			close(ready[i]);
	}
	if (j.lfd >= 0)
		close(j.lfd);
	free(tids);
	return rc;
}

static void
ratio(const char *key, const char *what, const char *unit, double num, double den, bool ok,
      const struct seed_ref *seed, const char *why)
{
	struct row *r = row_add(key, what, unit, seed);

	r->headline = true;
	if (ok && den > 0 && num > 0)
		row_value(r, num / den);
	else
		row_skip(r, "%s", why);
}

int
mode_accept(const struct opts *o)
{
	unsigned int reps = (unsigned int)o->v[P_REPS], rep, done[D_COUNT] = {0};
	unsigned int pool = (unsigned int)o->v[P_POOL], clients = (unsigned int)o->v[P_CLIENTS];
	uint64_t conns = o->v[P_CONNS];
	double *cps[D_COUNT] = {NULL}, *cpu[D_COUNT] = {NULL};
	const struct row *c[D_COUNT], *u[D_COUNT];
	char what[ROW_WHAT_LEN], key[ROW_KEY_LEN];
	double base, f, p;
	struct row *r;
	enum design d;
	int rc;

	rc = check_tasks(MODE, (uint64_t)pool + 2 * clients + 2, "server and client tasks");
	if (rc < 0)
		return rc;
	for (d = 0; d < D_COUNT; d++) {
		cps[d] = calloc(reps, sizeof(double));
		cpu[d] = calloc(reps, sizeof(double));
		if (cps[d] == NULL || cpu[d] == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}
	for (rep = 0; rep < reps && !budget_over(); rep++) {
		for (d = 0; d < D_COUNT && !budget_over(); d++) {
			rc = one_run(d, pool, clients, conns, &cps[d][done[d]], &cpu[d][done[d]]);
			if (rc < 0)
				goto out;
			done[d]++;
		}
	}
	for (d = 0; d < D_COUNT; d++) {
		snprintf(key, sizeof(key), "%s_conn_per_s", designs[d].key);
		snprintf(what, sizeof(what), "%s: conn/s", designs[d].what);
		r = row_add(key, what, "conn/s", NULL);
		r->headline = d != D_ITERATIVE;
		row_set(r, cps[d], done[d]);
		c[d] = r;
		snprintf(key, sizeof(key), "%s_cpu_per_conn", designs[d].key);
		snprintf(what, sizeof(what), "%s: server CPU/conn", designs[d].what);
		r = row_add(key, what, "us",
			    d == D_FORK      ? &seed_fork_cpu
			    : d == D_PREFORK ? &seed_prefork_cpu
					     : NULL);
		row_set(r, cpu[d], done[d]);
		u[d] = r;
	}
	base = u[D_ITERATIVE]->s.median;
	f = u[D_FORK]->s.median - base;
	p = u[D_PREFORK]->s.median - base;
	snprintf(what, sizeof(what), "fork per conn ÷ preforked, CPU over iterative");
	ratio("fork_over_prefork_cpu", what, "x", f, p,
	      u[D_FORK]->measured && u[D_PREFORK]->measured, &seed_cpu_ratio,
	      "preforked used no more CPU than the iterative baseline, within noise");
	ratio("prefork_over_fork_cps", "preforked ÷ fork per conn, connections/s", "x",
	      c[D_PREFORK]->s.median, c[D_FORK]->s.median,
	      c[D_PREFORK]->measured && c[D_FORK]->measured, &seed_pool, "needs both figures");
	ratio("prethread_over_thread_cps", "prethreaded ÷ thread per conn, connections/s", "x",
	      c[D_PRETHREAD]->s.median, c[D_THREAD]->s.median,
	      c[D_PRETHREAD]->measured && c[D_THREAD]->measured, &seed_pool, "needs both figures");
	ratio("thread_over_fork_cps", "thread per conn ÷ fork per conn, connections/s", "x",
	      c[D_THREAD]->s.median, c[D_FORK]->s.median,
	      c[D_THREAD]->measured && c[D_FORK]->measured, NULL, "needs both figures");
out:
	for (d = 0; d < D_COUNT; d++) {
		free(cps[d]);
		free(cpu[d]);
	}
	return g_stop ? -EINTR : rc;
}
