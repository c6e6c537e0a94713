/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/packet/rules.c: the rules file format.
 * Each case writes text to a temporary file, loads it with the messages captured, and checks
 * either the parsed rules or the exact messages ("path:line: reason", one per bad line).
 * No EAL: parsing needs none.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_acl.h>
#include <rte_errno.h>

#include "pkt.h"
#include "rules.h"
#include "test.h"

struct loaded {
	char path[200];
	struct mpe_rules *rules;
	int err_no; /* rte_errno when rules == NULL */
	char *err;  /* everything printed to the error stream */
	size_t err_len;
};


static void
load_path(struct loaded *l)
{
	FILE *mem;

	l->err = NULL;
	l->err_len = 0;
	mem = open_memstream(&l->err, &l->err_len);
	if (mem == NULL) {
		perror("open_memstream");
		exit(2);
	}
	rte_errno = 0;
	l->rules = mpe_rules_load(l->path, mem);
	l->err_no = rte_errno;
	fclose(mem);
}

/* Load @len bytes of @text (NULL: a file that does not exist). */
static void
load_bytes(const char *text, size_t len, struct loaded *l)
{
	const char *dir = getenv("TMPDIR");
	int fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	snprintf(l->path, sizeof(l->path), "%s/mpe_test_rules_XXXXXX.txt", dir);
	fd = mkstemps(l->path, 4);
	if (fd < 0) {
		perror("mkstemps");
		exit(2);
	}
	if (text != NULL)
		test_write_all(fd, text, len);
	else
		unlink(l->path);
	close(fd);
	load_path(l);
	if (text != NULL)
		unlink(l->path);
}

static void
load_text(const char *text, struct loaded *l)
{
	load_bytes(text, text != NULL ? strlen(text) : 0, l);
}

static void
unload(struct loaded *l)
{
	mpe_rules_free(l->rules);
	free(l->err);
}


/* The load failed with EINVAL and printed exactly @expect ('$' for the path). */
static void
check_errors(const struct loaded *l, const char *expect)
{
	char want[4096];

	test_expand(expect, '$', l->path, want, sizeof(want));
	CHECK(l->rules == NULL, "loaded, expected a failure");
	CHECK(l->err_no == EINVAL, "rte_errno %d, expected EINVAL", l->err_no);
	CHECK(l->err != NULL && strcmp(l->err, want) == 0, "messages:\n%s\nexpected:\n%s",
	      l->err != NULL ? l->err : "(none)", want);
}

static int
loaded_ok(const struct loaded *l, uint32_t count)
{
	if (!CHECK(l->rules != NULL, "failed (rte_errno %d):\n%s", l->err_no,
		   l->err != NULL ? l->err : ""))
		return 0;
	CHECK(l->err_len == 0, "messages on success:\n%s", l->err);
	return CHECK(mpe_rules_count(l->rules) == count, "%u rules, expected %u",
		     mpe_rules_count(l->rules), count);
}

static int
addr_is(const uint8_t *a, const char *text)
{
	uint8_t want[16] = {0};

	if (inet_pton(strchr(text, ':') != NULL ? AF_INET6 : AF_INET, text, want) != 1)
		return 0;
	return memcmp(a, want, 16) == 0;
}

/* ---- valid files ---- */

static void
test_ipv4_rule(void)
{
	const struct mpe_rule *r;
	struct loaded l;

	load_text("@10.0.0.0/8 192.168.1.0/24 1024 : 65535 80 : 80 6/0xff drop 100\n", &l);
	if (loaded_ok(&l, 1)) {
		r = mpe_rules_get(l.rules, 0);
		CHECK(r->family == MPE_FLOW_IPV4, "family %u", r->family);
		CHECK(addr_is(r->src, "10.0.0.0") && r->src_len == 8, "src /%u", r->src_len);
		CHECK(addr_is(r->dst, "192.168.1.0") && r->dst_len == 24, "dst /%u", r->dst_len);
		CHECK(r->sport_lo == 1024 && r->sport_hi == 65535, "sport %u:%u", r->sport_lo,
		      r->sport_hi);
		CHECK(r->dport_lo == 80 && r->dport_hi == 80, "dport %u:%u", r->dport_lo,
		      r->dport_hi);
		CHECK(r->proto == 6 && r->proto_mask == 0xff, "proto %u/%u", r->proto,
		      r->proto_mask);
		CHECK(r->action == MPE_RULE_DROP, "action %u", r->action);
		CHECK(r->priority == 100, "priority %u", r->priority);
		CHECK(r->line == 1, "line %u", r->line);
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_IPV4) == 1 &&
			      mpe_rules_count_family(l.rules, MPE_FLOW_IPV6) == 0,
		      "family counts");
		CHECK(mpe_rules_get(l.rules, 1) == NULL, "rule 1 exists");
	}
	unload(&l);
}

static void
test_ipv6_rule(void)
{
	const struct mpe_rule *r;
	struct loaded l;

	load_text("@2001:db8::/32 ::/0 0 : 65535 0 : 65535 17/0xff count 5\n", &l);
	if (loaded_ok(&l, 1)) {
		r = mpe_rules_get(l.rules, 0);
		CHECK(r->family == MPE_FLOW_IPV6, "family %u", r->family);
		CHECK(addr_is(r->src, "2001:db8::") && r->src_len == 32, "src /%u", r->src_len);
		CHECK(addr_is(r->dst, "::") && r->dst_len == 0, "dst /%u", r->dst_len);
		CHECK(r->sport_lo == 0 && r->sport_hi == 65535, "sport");
		CHECK(r->dport_lo == 0 && r->dport_hi == 65535, "dport");
		CHECK(r->proto == 17 && r->proto_mask == 0xff, "proto");
		CHECK(r->action == MPE_RULE_COUNT, "action %u", r->action);
		CHECK(r->priority == 5, "priority %u", r->priority);
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_IPV6) == 1, "v6 count");
	}
	unload(&l);
}

static void
test_mixed_with_comments(void)
{
	static const char text[] = "# a comment\n"
				   "\n"
				   "   \t\n"
				   "  # an indented comment\n"
				   "@1.2.3.4/32 5.6.7.8/32 1 : 2 3 : 4 1/0xff allow 1\n"
				   "@fe80::1/128 ff02::/16 0 : 0 65535 : 65535 58/0xff drop 7\r\n"
				   "\t@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 0/0x00 count 3\n"
				   "@::/0 ::/0 0 : 65535 0 : 65535 0/0 allow 2"; /* no newline */
	static const uint8_t families[] = {4, 6, 4, 6};
	static const uint8_t actions[] = {MPE_RULE_ALLOW, MPE_RULE_DROP, MPE_RULE_COUNT,
					  MPE_RULE_ALLOW};
	static const uint32_t lines[] = {5, 6, 7, 8};
	static const uint32_t prios[] = {1, 7, 3, 2};
	struct loaded l;
	uint32_t i;

	load_text(text, &l);
	if (loaded_ok(&l, 4)) {
		for (i = 0; i < 4; i++) {
			const struct mpe_rule *r = mpe_rules_get(l.rules, i);

			CHECK(r->family == families[i], "rule %u: family %u", i, r->family);
			CHECK(r->action == actions[i], "rule %u: action %u", i, r->action);
			CHECK(r->line == lines[i], "rule %u: line %u", i, r->line);
			CHECK(r->priority == prios[i], "rule %u: priority %u", i, r->priority);
		}
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_IPV4) == 2, "v4 count");
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_IPV6) == 2, "v6 count");
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_L2) == 0, "L2 count");
		CHECK(addr_is(mpe_rules_get(l.rules, 1)->dst, "ff02::"), "v6 dst");
	}
	unload(&l);
}

static void
test_bounds_accepted(void)
{
	char text[256];
	struct loaded l;
	const struct mpe_rule *r;

	snprintf(text, sizeof(text),
		 "@255.255.255.255/32 0.0.0.0/0 65535 : 65535 0 : 0 255/0xff allow %u\n"
		 "@ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128 ::/0 0 : 65535 0 : 65535 0/0 "
		 "drop 1\n",
		 (unsigned int)RTE_ACL_MAX_PRIORITY);
	load_text(text, &l);
	if (loaded_ok(&l, 2)) {
		r = mpe_rules_get(l.rules, 0);
		CHECK(r->priority == RTE_ACL_MAX_PRIORITY, "priority %u", r->priority);
		CHECK(r->sport_lo == 65535 && r->dport_hi == 0, "ports");
		CHECK(r->proto == 255, "proto %u", r->proto);
		r = mpe_rules_get(l.rules, 1);
		CHECK(r->src_len == 128 && r->priority == 1, "v6 /%u prio %u", r->src_len,
		      r->priority);
	}
	unload(&l);
}

static void
test_host_bits_cleared(void)
{
	struct loaded l;
	const struct mpe_rule *r;

	load_text("@10.1.2.3/12 192.168.1.77/0 0 : 65535 0 : 65535 7/0x0e allow 1\n"
		  "@2001:db8:ffff:ffff::1/33 2001:db8::1/127 0 : 65535 0 : 65535 0/0 allow 1\n",
		  &l);
	if (loaded_ok(&l, 2)) {
		r = mpe_rules_get(l.rules, 0);
		CHECK(addr_is(r->src, "10.0.0.0"), "v4 src not masked");
		CHECK(addr_is(r->dst, "0.0.0.0"), "v4 dst not masked");
		CHECK(r->proto == 6 && r->proto_mask == 0x0e, "proto %u/%u", r->proto,
		      r->proto_mask);
		r = mpe_rules_get(l.rules, 1);
		CHECK(addr_is(r->src, "2001:db8:8000::"), "v6 src not masked");
		CHECK(addr_is(r->dst, "2001:db8::"), "v6 dst not masked");
	}
	unload(&l);
}

static void
test_empty_and_comment_only(void)
{
	struct loaded l;

	load_text("", &l);
	if (loaded_ok(&l, 0))
		CHECK(mpe_rules_get(l.rules, 0) == NULL, "rule 0 in an empty set");
	unload(&l);
	load_text("# nothing\n\n#@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n", &l);
	loaded_ok(&l, 0);
	unload(&l);
}

/* Exactly MPE_RULES_MAX rules load; one more is refused on its line, once, and the lines
 * after it are still checked. */
static void
test_max_rules(void)
{
	static const char rule[] = "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n";
	size_t rl = strlen(rule), n = (size_t)MPE_RULES_MAX + 3;
	char *text = malloc(rl * n + 64), *p;
	struct loaded l;
	size_t i;
	char want[512];

	if (!CHECK(text != NULL, "malloc"))
		return;
	for (i = 0, p = text; i < MPE_RULES_MAX; i++, p += rl)
		memcpy(p, rule, rl + 1);
	load_bytes(text, (size_t)(p - text), &l);
	loaded_ok(&l, MPE_RULES_MAX);
	unload(&l);

	for (; i < n; i++, p += rl)
		memcpy(p, rule, rl + 1);
	strcpy(p, "@bad\n");
	load_text(text, &l);
	snprintf(want, sizeof(want),
		 "$:%u: more than %u rules\n$:%u: 1 fields, expected 11: '@src/len dst/len "
		 "sport_lo : sport_hi dport_lo : dport_hi proto/mask action priority'\n",
		 MPE_RULES_MAX + 1, MPE_RULES_MAX, (unsigned int)n + 1);
	check_errors(&l, want);
	unload(&l);
	free(text);
}

static void
test_missing_file(void)
{
	struct loaded l;

	load_text(NULL, &l);
	CHECK(l.rules == NULL, "loaded a missing file");
	CHECK(l.err_no == ENOENT, "rte_errno %d, expected ENOENT", l.err_no);
	{
		char want[256];

		test_expand("$: No such file or directory\n", '$', l.path, want, sizeof(want));
		CHECK(l.err != NULL && strcmp(l.err, want) == 0, "message: %s",
		      l.err != NULL ? l.err : "(none)");
	}
	unload(&l);
}

static void
test_nul_byte(void)
{
	static const char text[] = "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
				   "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\0x\n";
	struct loaded l;

	load_bytes(text, sizeof(text) - 1, &l);
	check_errors(&l, "$:2: NUL byte in the line\n");
	unload(&l);
}

/* A rules path that names no regular file: refused at once, never read (a FIFO without a
 * writer would block the reader, /dev/zero never ends). */
static void
test_not_regular(void)
{
	const char *dir = getenv("TMPDIR");
	char fifo[200];
	const char *paths[] = {fifo, "/dev/zero", "/dev/null", NULL};
	unsigned int i;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	snprintf(fifo, sizeof(fifo), "%s/mpe_test_rules_fifo_%d", dir, (int)getpid());
	if (!CHECK(mkfifo(fifo, 0600) == 0, "mkfifo %s: %s", fifo, strerror(errno)))
		return;
	paths[3] = dir;
	for (i = 0; i < RTE_DIM(paths); i++) {
		struct loaded l;
		char want[256];

		snprintf(l.path, sizeof(l.path), "%s", paths[i]);
		load_path(&l);
		snprintf(want, sizeof(want), "%s: not a regular file\n", paths[i]);
		CHECK(l.rules == NULL && l.err_no == EINVAL, "%s: loaded, or rte_errno %d",
		      paths[i], l.err_no);
		CHECK(l.err != NULL && strcmp(l.err, want) == 0, "message: %s",
		      l.err != NULL ? l.err : "(none)");
		unload(&l);
	}
	unlink(fifo);
}

/* A file larger than MPE_RULES_FILE_MAX is refused before it is read; a line of
 * MPE_RULES_LINE_MAX characters is read, one character more is refused. */
static void
test_size_limits(void)
{
	char *text = malloc(2 * MPE_RULES_LINE_MAX + 64);
	struct loaded l;
	char want[512];
	int fd;

	if (!CHECK(text != NULL, "malloc"))
		return;
	snprintf(l.path, sizeof(l.path), "%s/mpe_test_rules_XXXXXX.txt",
		 getenv("TMPDIR") != NULL && getenv("TMPDIR")[0] != '\0' ? getenv("TMPDIR") : "/tmp");
	fd = mkstemps(l.path, 4);
	if (!CHECK(fd >= 0, "mkstemps: %s", strerror(errno))) {
		free(text);
		return;
	}
	/* sparse: nothing is written */
	CHECK(ftruncate(fd, (off_t)MPE_RULES_FILE_MAX + 1) == 0, "ftruncate");
	close(fd);
	load_path(&l);
	snprintf(want, sizeof(want), "%s: %u bytes, more than the %u allowed\n", l.path,
		 MPE_RULES_FILE_MAX + 1, MPE_RULES_FILE_MAX);
	CHECK(l.rules == NULL && l.err_no == EFBIG, "loaded, or rte_errno %d", l.err_no);
	CHECK(l.err != NULL && strcmp(l.err, want) == 0, "message: %s",
	      l.err != NULL ? l.err : "(none)");
	unlink(l.path);
	unload(&l);

	/* "#xxx...": a comment of MPE_RULES_LINE_MAX characters, then one of one more */
	memset(text, 'x', 2 * MPE_RULES_LINE_MAX + 2);
	text[0] = '#';
	text[MPE_RULES_LINE_MAX] = '\n';
	text[MPE_RULES_LINE_MAX + 1] = '#';
	strcpy(text + 2 * MPE_RULES_LINE_MAX + 2, "\n");
	load_text(text, &l);
	snprintf(want, sizeof(want), "$:2: line longer than %u characters\n", MPE_RULES_LINE_MAX);
	check_errors(&l, want);
	unload(&l);
	/* the same line, one character shorter and without its newline at the end of the file */
	text[2 * MPE_RULES_LINE_MAX + 1] = '\0';
	load_text(text, &l);
	CHECK(l.rules != NULL && mpe_rules_count(l.rules) == 0, "refused:\n%s",
	      l.err != NULL ? l.err : "");
	unload(&l);
	free(text);
}

/* The null error stream: still fails. */
static void
test_null_stream(void)
{
	char path[] = "/tmp/mpe_test_rules_null_XXXXXX";
	int fd = mkstemp(path);

	if (!CHECK(fd >= 0, "mkstemp"))
		return;
	test_write_all(fd, "@x\n", 3);
	close(fd);
	rte_errno = 0;
	CHECK(mpe_rules_load(path, NULL) == NULL && rte_errno == EINVAL, "rte_errno %d",
	      rte_errno);
	unlink(path);
}

static void
test_action_names(void)
{
	CHECK(strcmp(mpe_rule_action_name(MPE_RULE_ALLOW), "allow") == 0, "allow");
	CHECK(strcmp(mpe_rule_action_name(MPE_RULE_DROP), "drop") == 0, "drop");
	CHECK(strcmp(mpe_rule_action_name(MPE_RULE_COUNT), "count") == 0, "count");
	CHECK(strcmp(mpe_rule_action_name(200), "?") == 0, "out of range");
}

/* The commented example shipped in tests/unit/data. The source path is the compiler's
 * __FILE__, absolute or relative to the build root (the test binary is in <build>/tests/unit). */
static void
test_example_file(void)
{
	char exe[PATH_MAX], dir[PATH_MAX];
	const char *env = getenv("MPE_TEST_DATA");
	struct loaded l;
	ssize_t n;
	char *s;

	snprintf(dir, sizeof(dir), "%s", __FILE__);
	s = strrchr(dir, '/');
	if (s != NULL)
		*s = '\0';
	else
		snprintf(dir, sizeof(dir), ".");
	if (env != NULL) {
		snprintf(l.path, sizeof(l.path), "%s/rules-example.txt", env);
	} else if (dir[0] == '/') {
		snprintf(l.path, sizeof(l.path), "%s/data/rules-example.txt", dir);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (!CHECK(n > 0, "readlink /proc/self/exe"))
			return;
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(l.path, sizeof(l.path), "%s/../../%s/data/rules-example.txt", exe, dir);
	}
	load_path(&l);
	if (CHECK(l.rules != NULL, "%s: rte_errno %d:\n%s", l.path, l.err_no,
		  l.err != NULL ? l.err : "")) {
		CHECK(mpe_rules_count_family(l.rules, MPE_FLOW_IPV4) > 0 &&
			      mpe_rules_count_family(l.rules, MPE_FLOW_IPV6) > 0,
		      "example holds both families");
		CHECK(l.err_len == 0, "messages: %s", l.err);
	}
	unload(&l);
}

/* ---- invalid lines: exact messages ---- */

#define SYNTAX                                                                               \
	"'@src/len dst/len sport_lo : sport_hi dport_lo : dport_hi proto/mask action "        \
	"priority'"
#define GOOD "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"

struct bad_case {
	const char *name;
	const char *text;
	const char *expect; /* all messages, '$' for the path */
};

static const struct bad_case bad_cases[] = {
	{"no '@'", "10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: a rule starts with '@': expected " SYNTAX "\n"},
	{"too few fields", GOOD "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop\n",
	 "$:2: 10 fields, expected 11: " SYNTAX "\n"},
	{"no fields after '@'", "@\n", "$:1: 0 fields, expected 11: " SYNTAX "\n"},
	{"trailing garbage", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1 x y\n",
	 "$:1: trailing garbage after the priority: 'x'\n"},
	{"trailing comment", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1 # no\n",
	 "$:1: trailing garbage after the priority: '#'\n"},
	{"bad IPv4 source", "@10.0.0.300/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: bad IPv4 address '10.0.0.300'\n"},
	{"short IPv4 source", "@10.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: bad IPv4 address '10.0.0'\n"},
	{"bad IPv6 source", "@2001:db8:::1/64 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: bad IPv6 address '2001:db8:::1'\n"},
	{"bad IPv4 destination", "@10.0.0.0/8 host/32 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: destination: bad IPv4 address 'host'\n"},
	{"bad IPv6 destination", "@::/0 2001:dg8::/32 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: destination: bad IPv6 address '2001:dg8::'\n"},
	{"source without length", "@10.0.0.1 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: expected '<address>/<prefix length>', got '10.0.0.1'\n"},
	{"destination without length", "@::/0 ::1 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: destination: expected '<address>/<prefix length>', got '::1'\n"},
	{"IPv4 prefix length 33", "@10.0.0.0/33 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: prefix length '33' out of range 0..32\n"},
	{"IPv4 destination length 99",
	 "@10.0.0.0/8 0.0.0.0/99 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: destination: prefix length '99' out of range 0..32\n"},
	{"IPv6 prefix length 129", "@::/129 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: prefix length '129' out of range 0..128\n"},
	{"negative prefix length", "@10.0.0.0/-1 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source: prefix length '-1' is not a number\n"},
	{"empty prefix length", "@::/0 ::/ 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: destination: prefix length '' is not a number\n"},
	{"IPv4 source, IPv6 destination", "@10.0.0.0/8 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source is IPv4 but destination is IPv6: one family per rule\n"},
	{"IPv6 source, IPv4 destination",
	 "@2001:db8::/32 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source is IPv6 but destination is IPv4: one family per rule\n"},
	{"source port low above 65535",
	 "@10.0.0.0/8 0.0.0.0/0 65536 : 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source port low: '65536' out of range 0..65535\n"},
	{"source port high not a number",
	 "@10.0.0.0/8 0.0.0.0/0 0 : http 0 : 65535 6/0xff drop 1\n",
	 "$:1: source port high: 'http' is not a number\n"},
	{"destination port high above 65535",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 70000 6/0xff drop 1\n",
	 "$:1: destination port high: '70000' out of range 0..65535\n"},
	{"destination port low negative",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 -1 : 80 6/0xff drop 1\n",
	 "$:1: destination port low: '-1' is not a number\n"},
	{"source ports without ':'", "@10.0.0.0/8 0.0.0.0/0 0 - 65535 0 : 65535 6/0xff drop 1\n",
	 "$:1: source ports: expected ':' between low and high, got '-'\n"},
	{"destination ports without ':'",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 to 65535 6/0xff drop 1\n",
	 "$:1: destination ports: expected ':' between low and high, got 'to'\n"},
	{"ports written without blanks",
	 "@10.0.0.0/8 0.0.0.0/0 0:65535 0:65535 6/0xff drop 1\n",
	 "$:1: 7 fields, expected 11: " SYNTAX "\n"},
	{"source ports low above high", "@10.0.0.0/8 0.0.0.0/0 100 : 99 0 : 65535 6/0xff drop 1\n",
	 "$:1: source ports: low 100 above high 99\n"},
	{"destination ports low above high",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 65535 : 0 6/0xff drop 1\n",
	 "$:1: destination ports: low 65535 above high 0\n"},
	{"protocol without mask", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6 drop 1\n",
	 "$:1: protocol: expected '<proto>/<mask>', got '6'\n"},
	{"protocol 256", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 256/0xff drop 1\n",
	 "$:1: protocol: '256' out of range 0..255\n"},
	{"protocol not a number", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 tcp/0xff drop 1\n",
	 "$:1: protocol: 'tcp' is not a number\n"},
	{"protocol mask 0x100", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0x100 drop 1\n",
	 "$:1: protocol mask: '0x100' out of range 0..0xff\n"},
	{"protocol mask not a number",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xfg drop 1\n",
	 "$:1: protocol mask: '0xfg' is not a number\n"},
	{"unknown action", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff deny 1\n",
	 "$:1: action: unknown 'deny' (allow, drop, count or mirror)\n"},
	{"action in capitals", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff DROP 1\n",
	 "$:1: action: unknown 'DROP' (allow, drop, count or mirror)\n"},
	{"priority 0", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 0\n",
	 "$:1: priority: '0' out of range 1..536870911\n"},
	{"priority above RTE_ACL_MAX_PRIORITY",
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 536870912\n",
	 "$:1: priority: '536870912' out of range 1..536870911\n"},
	{"priority not a number", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop high\n",
	 "$:1: priority: 'high' is not a number\n"},
	{"priority with a sign", "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop +5\n",
	 "$:1: priority: '+5' is not a number\n"},
	{"every bad line of a file is reported, good lines between",
	 "# header\n" GOOD "@10.0.0.0/40 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n" GOOD
	 "\n"
	 "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff reject 1\n"
	 "garbage\n" GOOD "@::/0 ::/0 5 : 4 0 : 65535 6/0xff drop 1\n"
	 "@::/0 ::/0 0 : 65535 0 : 65535 6/0xff drop 0\n",
	 "$:3: source: prefix length '40' out of range 0..32\n"
	 "$:6: action: unknown 'reject' (allow, drop, count or mirror)\n"
	 "$:7: a rule starts with '@': expected " SYNTAX "\n"
	 "$:9: source ports: low 5 above high 4\n"
	 "$:10: priority: '0' out of range 1..536870911\n"},
};

static void
run_bad_cases(void)
{
	size_t i;

	for (i = 0; i < TEST_DIM(bad_cases); i++) {
		struct loaded l;

		test_begin("refused: %s", bad_cases[i].name);
		load_text(bad_cases[i].text, &l);
		check_errors(&l, bad_cases[i].expect);
		unload(&l);
		test_end();
	}
}

int
main(void)
{
	static const struct test_case cases[] = {
		{"an IPv4 rule: every field", test_ipv4_rule},
		{"an IPv6 rule: every field", test_ipv6_rule},
		{"both families, comments, blank lines, CRLF, no final newline: ids in file order",
		 test_mixed_with_comments},
		{"bounds of every number are accepted", test_bounds_accepted},
		{"host bits beyond the prefix and protocol bits outside the mask are cleared",
		 test_host_bits_cleared},
		{"an empty file and a comment-only file hold no rules",
		 test_empty_and_comment_only},
		{"MPE_RULES_MAX rules load; the next one is refused once", test_max_rules},
		{"a missing file: ENOENT and path: reason", test_missing_file},
		{"a NUL byte in a line is refused", test_nul_byte},
		{"a NULL error stream still fails", test_null_stream},
		{"a FIFO, a device or a directory is refused, not read", test_not_regular},
		{"the limits of the file's size and of a line", test_size_limits},
		{"mpe_rule_action_name", test_action_names},
		{"tests/unit/data/rules-example.txt loads", test_example_file},
	};

	test_run_cases(cases, TEST_DIM(cases));
	run_bad_cases();
	return test_summary();
}
