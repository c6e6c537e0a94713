/* SPDX-License-Identifier: BSD-3-Clause */
/* Rules file parser: one rule per line, l3fwd ACL syntax plus action and priority.
 * Every line is checked and every bad one reported; the load fails once, at the end.
 * Runs in one process, needs no EAL; the result is private malloc'd memory.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <rte_acl.h>
#include <rte_common.h>
#include <rte_errno.h>

#include "parse.h"
#include "pkt.h"
#include "rules.h"
#include "textfile.h"

/* "@src/len dst/len slo : shi dlo : dhi proto/mask action priority" */
enum fld {
	F_SRC,
	F_DST,
	F_SPORT_LO,
	F_SPORT_DLM,
	F_SPORT_HI,
	F_DPORT_LO,
	F_DPORT_DLM,
	F_DPORT_HI,
	F_PROTO,
	F_ACTION,
	F_PRIO,
	F_NUM,
};

#define RULE_SYNTAX                                                                          \
	"'@src/len dst/len sport_lo : sport_hi dport_lo : dport_hi proto/mask action priority'"

static const char *const action_names[] = {
	[MPE_RULE_ALLOW] = "allow",
	[MPE_RULE_DROP] = "drop",
	[MPE_RULE_COUNT] = "count",
	[MPE_RULE_MIRROR] = "mirror",
};

struct mpe_rules {
	uint32_t nb;
	uint32_t nb_family[2]; /* IPv4, IPv6 */
	uint32_t cap;
	struct mpe_rule *rules;
};

struct parser {
	const char *path;
	FILE *err;
	unsigned int line;
	unsigned int errors;
};

static void __rte_format_printf(2, 3)
report(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	p->errors++;
	if (p->err == NULL)
		return;
	if (p->line > 0)
		fprintf(p->err, "%s:%u: ", p->path, p->line);
	else
		fprintf(p->err, "%s: ", p->path);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
}

/* Clear the bits of @addr (@bytes long) beyond the first @len. */
static void
mask_prefix(uint8_t *addr, unsigned int bytes, unsigned int len)
{
	unsigned int i;

	for (i = 0; i < bytes; i++) {
		if (len >= 8 * (i + 1))
			continue;
		if (len <= 8 * i)
			addr[i] = 0;
		else
			addr[i] &= (uint8_t)(0xff << (8 * (i + 1) - len));
	}
}

/* "addr/len" into @addr and @len; @family gets 4 or 6. */
static int
parse_prefix(struct parser *p, const char *what, char *tok, uint8_t *family, uint8_t addr[16],
	     uint8_t *len)
{
	char *slash = strrchr(tok, '/');
	uint64_t v, max;
	int rc, af;

	if (slash == NULL) {
		report(p, "%s: expected '<address>/<prefix length>', got '%s'", what, tok);
		return -EINVAL;
	}
	*slash = '\0';
	af = strchr(tok, ':') != NULL ? AF_INET6 : AF_INET;
	memset(addr, 0, 16);
	if (inet_pton(af, tok, addr) != 1) {
		report(p, "%s: bad %s address '%s'", what, af == AF_INET ? "IPv4" : "IPv6", tok);
		return -EINVAL;
	}
	*family = af == AF_INET ? MPE_FLOW_IPV4 : MPE_FLOW_IPV6;
	max = af == AF_INET ? 32 : 128;
	rc = mpe_parse_uint(slash + 1, 0, max, &v);
	if (rc == -ERANGE) {
		report(p, "%s: prefix length '%s' out of range 0..%u", what, slash + 1,
		       (unsigned int)max);
		return rc;
	}
	if (rc < 0) {
		report(p, "%s: prefix length '%s' is not a number", what, slash + 1);
		return rc;
	}
	*len = (uint8_t)v;
	mask_prefix(addr, max / 8, *len);
	return 0;
}

static int
parse_num(struct parser *p, const char *what, const char *tok, uint64_t max, const char *maxs,
	  uint64_t *out)
{
	int rc = mpe_parse_uint(tok, 0, max, out);

	if (rc == -ERANGE)
		report(p, "%s: '%s' out of range 0..%s", what, tok, maxs);
	else if (rc < 0)
		report(p, "%s: '%s' is not a number", what, tok);
	return rc;
}

/* "lo : hi" from three tokens. */
static int
parse_ports(struct parser *p, const char *what, char **tok, uint16_t *lo, uint16_t *hi)
{
	char name[32];
	uint64_t l, h;

	snprintf(name, sizeof(name), "%s port low", what);
	if (parse_num(p, name, tok[0], UINT16_MAX, "65535", &l) < 0)
		return -EINVAL;
	if (strcmp(tok[1], ":") != 0) {
		report(p, "%s ports: expected ':' between low and high, got '%s'", what, tok[1]);
		return -EINVAL;
	}
	snprintf(name, sizeof(name), "%s port high", what);
	if (parse_num(p, name, tok[2], UINT16_MAX, "65535", &h) < 0)
		return -EINVAL;
	if (l > h) {
		report(p, "%s ports: low %s above high %s", what, tok[0], tok[2]);
		return -EINVAL;
	}
	*lo = (uint16_t)l;
	*hi = (uint16_t)h;
	return 0;
}

/* One rule line, '@' included, into @r. Reports the first problem of the line. */
static int
parse_rule(struct parser *p, char *s, struct mpe_rule *r)
{
	static const char blanks[] = " \t\r\n\v\f";
	char *tok[F_NUM + 1], *save = NULL, *t;
	unsigned int n = 0, i;
	uint8_t dfam = 0;
	uint64_t v, m;
	char *slash;

	if (*s != '@') {
		report(p, "a rule starts with '@': expected " RULE_SYNTAX);
		return -EINVAL;
	}
	for (t = strtok_r(s + 1, blanks, &save); t != NULL && n <= F_NUM;
	     t = strtok_r(NULL, blanks, &save))
		tok[n++] = t;
	if (n < F_NUM) {
		report(p, "%u fields, expected %u: " RULE_SYNTAX, n, F_NUM);
		return -EINVAL;
	}
	if (n > F_NUM) {
		report(p, "trailing garbage after the priority: '%s'", tok[F_NUM]);
		return -EINVAL;
	}

	memset(r, 0, sizeof(*r));
	r->line = p->line;
	if (parse_prefix(p, "source", tok[F_SRC], &r->family, r->src, &r->src_len) < 0 ||
	    parse_prefix(p, "destination", tok[F_DST], &dfam, r->dst, &r->dst_len) < 0)
		return -EINVAL;
	if (dfam != r->family) {
		report(p, "source is IPv%u but destination is IPv%u: one family per rule",
		       r->family, dfam);
		return -EINVAL;
	}
	if (parse_ports(p, "source", &tok[F_SPORT_LO], &r->sport_lo, &r->sport_hi) < 0 ||
	    parse_ports(p, "destination", &tok[F_DPORT_LO], &r->dport_lo, &r->dport_hi) < 0)
		return -EINVAL;

	slash = strchr(tok[F_PROTO], '/');
	if (slash == NULL) {
		report(p, "protocol: expected '<proto>/<mask>', got '%s'", tok[F_PROTO]);
		return -EINVAL;
	}
	*slash = '\0';
	if (parse_num(p, "protocol", tok[F_PROTO], UINT8_MAX, "255", &v) < 0 ||
	    parse_num(p, "protocol mask", slash + 1, UINT8_MAX, "0xff", &m) < 0)
		return -EINVAL;
	r->proto = (uint8_t)(v & m);
	r->proto_mask = (uint8_t)m;

	for (i = 0; i < RTE_DIM(action_names); i++)
		if (strcmp(tok[F_ACTION], action_names[i]) == 0)
			break;
	if (i == RTE_DIM(action_names)) {
		report(p, "action: unknown '%s' (allow, drop, count or mirror)", tok[F_ACTION]);
		return -EINVAL;
	}
	r->action = (uint8_t)i;

	switch (mpe_parse_uint(tok[F_PRIO], RTE_ACL_MIN_PRIORITY, RTE_ACL_MAX_PRIORITY, &v)) {
	case 0: break;
	case -ERANGE:
		report(p, "priority: '%s' out of range %u..%u", tok[F_PRIO],
		       (unsigned int)RTE_ACL_MIN_PRIORITY, (unsigned int)RTE_ACL_MAX_PRIORITY);
		return -EINVAL;
	default:
		report(p, "priority: '%s' is not a number", tok[F_PRIO]);
		return -EINVAL;
	}
	r->priority = (uint32_t)v;
	return 0;
}

static int
append(struct mpe_rules *rs, const struct mpe_rule *r)
{
	if (rs->nb == rs->cap) {
		uint32_t cap = rs->cap == 0 ? 64 : rs->cap * 2;
		struct mpe_rule *n = realloc(rs->rules, (size_t)cap * sizeof(*n));

		if (n == NULL)
			return -ENOMEM;
		rs->rules = n;
		rs->cap = cap;
	}
	rs->rules[rs->nb++] = *r;
	rs->nb_family[r->family == MPE_FLOW_IPV6]++;
	return 0;
}

struct mpe_rules *
mpe_rules_load(const char *path, FILE *err)
{
	struct parser p = {.path = path, .err = err};
	struct mpe_rules *rs;
	char *buf = NULL, why[128];
	size_t size = 0, total = 0;
	ssize_t len;
	int rc = 0, too_many = 0;
	FILE *f;

	f = mpe_textfile_open(path, MPE_RULES_FILE_MAX, why, sizeof(why));
	if (f == NULL) {
		rc = errno;
		report(&p, "%s", why);
		rte_errno = rc;
		return NULL;
	}
	rs = calloc(1, sizeof(*rs));
	if (rs == NULL) {
		fclose(f);
		rte_errno = ENOMEM;
		return NULL;
	}
	while ((len = getline(&buf, &size, f)) >= 0) {
		struct mpe_rule r;
		char *s = buf;

		p.line++;
		total += (size_t)len;
		if (total > MPE_RULES_FILE_MAX) {
			report(&p, "the file grew beyond %u bytes while read", MPE_RULES_FILE_MAX);
			rc = EFBIG;
			break;
		}
		if ((size_t)len != strlen(buf)) {
			report(&p, "NUL byte in the line");
			continue;
		}
		if (len > MPE_RULES_LINE_MAX + 1 ||
		    (len == MPE_RULES_LINE_MAX + 1 && buf[len - 1] != '\n')) {
			report(&p, "line longer than %u characters", MPE_RULES_LINE_MAX);
			continue;
		}
		s += strspn(s, " \t\r\n\v\f");
		if (*s == '\0' || *s == '#')
			continue;
		if (parse_rule(&p, s, &r) < 0)
			continue;
		if (rs->nb == MPE_RULES_MAX) {
			/* once: the lines after are still checked */
			if (!too_many)
				report(&p, "more than %u rules", MPE_RULES_MAX);
			too_many = 1;
			continue;
		}
		if (append(rs, &r) < 0) {
			rc = ENOMEM;
			break;
		}
	}
	if (rc == 0 && (ferror(f) || !feof(f))) {
		/* getline() fails without an error on the stream when it runs out of memory */
		rc = ferror(f) && errno != 0 ? errno : ENOMEM;
		p.line = 0;
		report(&p, "read error: %s", strerror(rc));
	}
	free(buf);
	fclose(f);
	if (rc == 0 && p.errors > 0)
		rc = EINVAL;
	if (rc != 0) {
		mpe_rules_free(rs);
		rte_errno = rc;
		return NULL;
	}
	return rs;
}

void
mpe_rules_free(struct mpe_rules *r)
{
	if (r == NULL)
		return;
	free(r->rules);
	free(r);
}

uint32_t
mpe_rules_count(const struct mpe_rules *r)
{
	return r->nb;
}

uint32_t
mpe_rules_count_family(const struct mpe_rules *r, uint8_t family)
{
	if (family == MPE_FLOW_IPV4)
		return r->nb_family[0];
	if (family == MPE_FLOW_IPV6)
		return r->nb_family[1];
	return 0;
}

const struct mpe_rule *
mpe_rules_get(const struct mpe_rules *r, uint32_t id)
{
	return id < r->nb ? &r->rules[id] : NULL;
}

const char *
mpe_rule_action_name(uint8_t action)
{
	return action < RTE_DIM(action_names) ? action_names[action] : "?";
}
