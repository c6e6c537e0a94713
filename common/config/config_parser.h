/* SPDX-License-Identifier: BSD-3-Clause */
/* The configuration parser's state, private to common/config/: the parser (config.c) fills
 * it, the checks across keys (config_check.c) report through it. report() and loc_line() are
 * static inline so that the library exports no unprefixed name. One process, one thread.
 */
#ifndef MPE_CONFIG_PARSER_H
#define MPE_CONFIG_PARSER_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_cfgfile.h>
#include <rte_common.h>

#include "config.h"

#define MAX_LOCS 1024

/* Where each section and key was seen: filled by the text pass. */
struct loc {
	char sect[CFG_NAME_LEN];
	char key[CFG_NAME_LEN]; /* "" for the section line */
	int line;
};

struct parser {
	const char *path;
	FILE *err;
	int errors;
	struct loc locs[MAX_LOCS];
	unsigned int nb_locs;
};

/* One error: "file:line: key: reason" (no line: "file: ", no key: no "key: "), counted. */
static inline void __rte_format_printf(4, 5)
report(struct parser *p, int line, const char *key, const char *fmt, ...)
{
	va_list ap;

	p->errors++;
	if (p->err == NULL)
		return;
	if (line > 0)
		fprintf(p->err, "%s:%d: ", p->path, line);
	else
		fprintf(p->err, "%s: ", p->path);
	if (key != NULL)
		fprintf(p->err, "%s: ", key);
	va_start(ap, fmt);
	vfprintf(p->err, fmt, ap);
	va_end(ap);
	fputc('\n', p->err);
}

/* The line section @sect (key "") or its key @key was seen on, 0 when not seen. */
static inline int
loc_line(const struct parser *p, const char *sect, const char *key)
{
	unsigned int i;

	for (i = 0; i < p->nb_locs; i++)
		if (strcmp(p->locs[i].sect, sect) == 0 && strcmp(p->locs[i].key, key) == 0)
			return p->locs[i].line;
	return 0;
}

/* Every check across keys and sections, once every value is read: fills in what depends on
 * other keys (nb_ports, nb_workers, queues, peers, mbufs), resolves the rules file and reports
 * what contradicts. @seen_port, @seen_worker and @seen_io: the sections read. */
void mpe_config_check(struct parser *p, struct mpe_conf *c, const uint8_t *seen_port,
		      const uint8_t *seen_worker, const uint8_t *seen_io);

#endif /* MPE_CONFIG_PARSER_H */
