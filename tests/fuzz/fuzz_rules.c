/* SPDX-License-Identifier: BSD-3-Clause */
/* libFuzzer harness of common/packet/rules.c: every input is the text of a rules file,
 * loaded from a memfd (no file on disk) with and without an error stream. What rules.h promises is checked:
 * messages one per bad line as "path:line: reason", and rules that print back to themselves.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_errno.h>

#include "pkt.h"
#include "rules.h"

/* A rules file in memory: its fd and the path mpe_rules_load() opens it by. */
struct memfile {
	int fd;
	char path[64];
};

static struct memfile input, reprint;

static void __attribute__((noreturn, format(printf, 1, 2))) broken(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_rules: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

#define EXPECT(cond)                                                                               \
	do {                                                                                       \
		if (!(cond))                                                                       \
			broken("%s", #cond);                                                       \
	} while (0)

static void
memfile_open(struct memfile *m, const char *name)
{
	m->fd = memfd_create(name, MFD_CLOEXEC);
	if (m->fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
}

static void
memfile_set(struct memfile *m, const void *data, size_t size)
{
	size_t done = 0;

	if (ftruncate(m->fd, 0) != 0)
		abort();
	while (done < size) {
		ssize_t n = pwrite(m->fd, (const char *)data + done, size - done, (off_t)done);

		if (n <= 0)
			abort();
		done += (size_t)n;
	}
}

/* Lines as getline() sees them: a last line without '\n' counts. */
static unsigned int
count_lines(const uint8_t *data, size_t size)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < size; i++)
		n += data[i] == '\n';
	return n + (size > 0 && data[size - 1] != '\n');
}

/* Every message is one line "path:N: reason", N increasing (one message per bad line). */
static void
check_messages(const char *path, const char *msg, size_t msg_len, unsigned int lines)
{
	size_t plen = strlen(path);
	unsigned long prev = 0;
	const char *s = msg;

	EXPECT(msg_len > 0 && strlen(msg) == msg_len && msg[msg_len - 1] == '\n');
	while (*s != '\0') {
		const char *eol = strchr(s, '\n');
		unsigned long line;
		char *end;

		EXPECT(strncmp(s, path, plen) == 0 && s[plen] == ':');
		line = strtoul(s + plen + 1, &end, 10);
		EXPECT(end[0] == ':' && end[1] == ' ' && end + 2 < eol);
		if (line <= prev || line > lines)
			broken("message for line %lu after line %lu, %u lines: %.*s", line, prev,
			       lines, (int)(eol - s), s);
		prev = line;
		s = eol + 1;
	}
}

/* No bit set beyond the first @len (an IPv4 address leaves bytes 4 to 15 zero as well). */
static int
prefix_clean(const uint8_t addr[16], unsigned int len)
{
	unsigned int bit;

	for (bit = len; bit < 128; bit++)
		if (addr[bit / 8] & (0x80 >> (bit % 8)))
			return 0;
	return 1;
}

/* Field by field: struct copies need not copy the padding. */
static int
same_rule(const struct mpe_rule *a, const struct mpe_rule *b)
{
	return a->family == b->family && a->src_len == b->src_len && a->dst_len == b->dst_len &&
	       a->proto == b->proto && a->proto_mask == b->proto_mask && a->action == b->action &&
	       a->sport_lo == b->sport_lo && a->sport_hi == b->sport_hi &&
	       a->dport_lo == b->dport_lo && a->dport_hi == b->dport_hi &&
	       a->priority == b->priority && memcmp(a->src, b->src, 16) == 0 &&
	       memcmp(a->dst, b->dst, 16) == 0;
}

static void
check_rule(const struct mpe_rule *r, uint32_t prev_line, unsigned int lines)
{
	unsigned int max = r->family == MPE_FLOW_IPV4 ? 32 : 128;

	EXPECT(r->family == MPE_FLOW_IPV4 || r->family == MPE_FLOW_IPV6);
	EXPECT(r->src_len <= max && r->dst_len <= max);
	/* bits beyond the prefix cleared; IPv4 uses the first 4 bytes only */
	EXPECT(prefix_clean(r->src, r->src_len));
	EXPECT(prefix_clean(r->dst, r->dst_len));
	EXPECT((r->proto & ~r->proto_mask) == 0);
	EXPECT(strcmp(mpe_rule_action_name(r->action), "?") != 0); /* a known action */
	EXPECT(r->sport_lo <= r->sport_hi && r->dport_lo <= r->dport_hi);
	EXPECT(r->priority >= RTE_ACL_MIN_PRIORITY && r->priority <= RTE_ACL_MAX_PRIORITY);
	EXPECT(r->line > prev_line && r->line <= lines);
}

/* The rule in the file syntax; returns the length written. */
static int
print_rule(const struct mpe_rule *r, char *buf, size_t size)
{
	int af = r->family == MPE_FLOW_IPV4 ? AF_INET : AF_INET6;
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];

	EXPECT(inet_ntop(af, r->src, src, sizeof(src)) != NULL);
	EXPECT(inet_ntop(af, r->dst, dst, sizeof(dst)) != NULL);
	return snprintf(buf, size, "@%s/%u %s/%u %u : %u %u : %u %u/0x%02x %s %u\n", src,
			r->src_len, dst, r->dst_len, r->sport_lo, r->sport_hi, r->dport_lo,
			r->dport_hi, r->proto, r->proto_mask, mpe_rule_action_name(r->action),
			r->priority);
}

/* Printing the rules and loading the text again gives the same rules, one per line. */
static void
check_reprint(const struct mpe_rules *rs)
{
	uint32_t n = mpe_rules_count(rs), i;
	struct mpe_rules *again;
	char *text, *s;

	text = malloc((size_t)n * 160 + 1);
	if (text == NULL)
		abort();
	s = text;
	for (i = 0; i < n; i++)
		s += print_rule(mpe_rules_get(rs, i), s, 160);
	memfile_set(&reprint, text, (size_t)(s - text));
	again = mpe_rules_load(reprint.path, stderr);
	if (again == NULL)
		broken("printed rules do not load again:\n%s", text);
	EXPECT(mpe_rules_count(again) == n);
	for (i = 0; i < n; i++) {
		const struct mpe_rule *a = mpe_rules_get(rs, i);

		if (!same_rule(a, mpe_rules_get(again, i))) {
			print_rule(a, text, 160);
			broken("rule %u reads back differently: %s", i, text);
		}
		EXPECT(mpe_rules_get(again, i)->line == i + 1);
	}
	mpe_rules_free(again);
	free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int lines = count_lines(data, size);
	struct mpe_rules *rs, *quiet;
	uint32_t i, n, v4 = 0, prev = 0;
	char *msg = NULL;
	size_t msg_len = 0;
	int err_rs, err_quiet;
	FILE *err;

	if (input.path[0] == '\0') {
		memfile_open(&input, "fuzz_rules_input");
		memfile_open(&reprint, "fuzz_rules_reprint");
	}
	memfile_set(&input, data, size);

	err = open_memstream(&msg, &msg_len);
	if (err == NULL)
		abort();
	rte_errno = 0;
	rs = mpe_rules_load(input.path, err);
	err_rs = rte_errno;
	fclose(err);
	/* without an error stream the outcome is the same */
	rte_errno = 0;
	quiet = mpe_rules_load(input.path, NULL);
	err_quiet = rte_errno;
	EXPECT((rs == NULL) == (quiet == NULL));

	if (rs == NULL) {
		EXPECT(err_rs == EINVAL && err_quiet == EINVAL);
		check_messages(input.path, msg, msg_len, lines);
		free(msg);
		return 0;
	}
	EXPECT(msg_len == 0);
	free(msg);
	n = mpe_rules_count(rs);
	EXPECT(mpe_rules_count(quiet) == n);
	for (i = 0; i < n; i++) {
		const struct mpe_rule *r = mpe_rules_get(rs, i);

		EXPECT(r != NULL);
		EXPECT(same_rule(r, mpe_rules_get(quiet, i)) &&
		       r->line == mpe_rules_get(quiet, i)->line);
		check_rule(r, prev, lines);
		prev = r->line;
		v4 += r->family == MPE_FLOW_IPV4;
	}
	EXPECT(mpe_rules_get(rs, n) == NULL);
	EXPECT(mpe_rules_count_family(rs, MPE_FLOW_IPV4) == v4);
	EXPECT(mpe_rules_count_family(rs, MPE_FLOW_IPV6) == n - v4);
	EXPECT(mpe_rules_count_family(rs, 0) == 0);
	check_reprint(rs);
	mpe_rules_free(quiet);
	mpe_rules_free(rs);
	return 0;
}
