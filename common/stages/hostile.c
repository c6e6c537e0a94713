/* SPDX-License-Identifier: BSD-3-Clause */
/* hostile: a stage for tests only (built with -Dtest_stages=true; hostile_off.c otherwise),
 * which behaves as a parser an attacker has taken over. On a trigger packet, a UDP datagram
 * to port MPE_HOSTILE_PORT whose payload is "mpe-hostile ATTEMPT [ARG]" (test_trigger.h), it
 * makes that one attempt, saying before and after what it tried:
 *   read            open /etc/passwd for reading
 *   create          create /tmp/mpe-hostile.<primary pid>
 *   connect PORT    open a TCP socket and connect it to 127.0.0.1:PORT
 *   exec            execve /bin/sh (which would create /tmp/mpe-hostile-exec.<primary pid>)
 *   ptrace          attach to the primary with ptrace
 *   capset          raise every capability
 * Every packet goes on, triggers included. It attacks only from a worker whose sandbox is on
 * (its slot says so): never from the thread build's lcores nor from an unlocked worker.
 * See docs/sandbox.md and tests/mp/life_sandbox.sh.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>

#include <rte_mbuf.h>

#include "log.h"
#include "stage.h"
#include "stages.h"
#include "test_trigger.h"

#define MPE_HOSTILE_PORT 4919

static const struct mpe_test_trigger trigger = MPE_TEST_TRIGGER(MPE_HOSTILE_PORT, "mpe-hostile ");

/* What happened to the attempt: blocked with an errno (the worker goes on), or not. */
static void
outcome(const struct mpe_stage_ctx *ctx, const char *what, int rc)
{
	if (rc < 0)
		MPE_LOG(WARNING, worker, "worker %u: hostile: %s: blocked (%s)", ctx->worker_id,
			what, strerror(errno));
	else
		MPE_LOG(ERR, worker, "worker %u: hostile: %s: NOT BLOCKED", ctx->worker_id, what);
}

static void
attempt(const struct mpe_stage_ctx *ctx, const char *cmd, size_t len)
{
	const int primary = ctx->shm->primary_pid;
	char arg[32] = "", what[96], path[64];
	const char *sp = memchr(cmd, ' ', len);
	size_t word = sp != NULL ? (size_t)(sp - cmd) : len;
	int fd, rc;

	if (sp != NULL)
		snprintf(arg, sizeof(arg), "%.*s", (int)(len - word - 1), sp + 1);
	snprintf(what, sizeof(what), "%.*s%s%s", (int)word, cmd, arg[0] ? " " : "", arg);
	MPE_LOG(WARNING, worker, "worker %u: hostile: trying %s", ctx->worker_id, what);
	if (word == 4 && memcmp(cmd, "read", 4) == 0) {
		fd = open("/etc/passwd", O_RDONLY);
		outcome(ctx, "open /etc/passwd", fd);
		if (fd >= 0)
			close(fd);
	} else if (word == 6 && memcmp(cmd, "create", 6) == 0) {
		snprintf(path, sizeof(path), "/tmp/mpe-hostile.%d", primary);
		fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0600);
		outcome(ctx, "create a file in /tmp", fd);
		if (fd >= 0)
			close(fd);
	} else if (word == 7 && memcmp(cmd, "connect", 7) == 0) {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons((uint16_t)atoi(arg)),
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};

		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0) {
			outcome(ctx, "open a TCP socket", fd);
			return;
		}
		rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
		outcome(ctx, "connect to 127.0.0.1", rc);
		close(fd);
	} else if (word == 4 && memcmp(cmd, "exec", 4) == 0) {
		char script[96];
		char *const argv[] = {(char *)(uintptr_t)"sh", (char *)(uintptr_t)"-c", script, NULL};

		snprintf(script, sizeof(script), "touch /tmp/mpe-hostile-exec.%d", primary);
		rc = execve("/bin/sh", argv, NULL);
		outcome(ctx, "execve /bin/sh", rc);
	} else if (word == 6 && memcmp(cmd, "ptrace", 6) == 0) {
		rc = (int)ptrace(PTRACE_ATTACH, primary, NULL, NULL);
		outcome(ctx, "ptrace the primary", rc);
		if (rc == 0)
			ptrace(PTRACE_DETACH, primary, NULL, NULL);
	} else if (word == 6 && memcmp(cmd, "capset", 6) == 0) {
		struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3};
		struct __user_cap_data_struct data[2];

		memset(data, 0xff, sizeof(data));
		rc = (int)syscall(SYS_capset, &hdr, data);
		outcome(ctx, "raise every capability", rc);
	} else {
		MPE_LOG(WARNING, worker, "worker %u: hostile: unknown attempt '%s'", ctx->worker_id,
			what);
	}
}

static uint16_t
hostile_burst(struct mpe_stage_ctx *ctx, struct rte_mbuf **pkts, uint16_t n)
{
	const char *sandbox = ctx->shm->workers[ctx->worker_id].status.sandbox;
	const char *cmd;
	size_t len;
	uint16_t i;

	for (i = 0; i < n; i++) {
		cmd = mpe_test_trigger_match(&trigger, pkts[i], &len);
		if (cmd == NULL || len == 0 || len > 64)
			continue;
		if (strncmp(sandbox, "seccomp", 7) != 0) {
			MPE_LOG(WARNING, worker, "worker %u: hostile: sandbox not applied (%s): "
				"no attempt", ctx->worker_id, sandbox[0] ? sandbox : "none");
			continue;
		}
		attempt(ctx, cmd, len);
	}
	return n;
}

const struct mpe_stage_ops mpe_stage_hostile_ops = {
	.burst = hostile_burst,
};
