/* SPDX-License-Identifier: BSD-3-Clause */
/* The catalogue of packet stages (stage_info.h). Read-only data; safe from any process. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "stage_info.h"
/* MPE_TEST_STAGES, 1 or 0: whether test-only stages may be named (meson writes it from the
 * test_stages option) */
#include "test_stages.h"

static const struct mpe_stage_info catalogue[MPE_STAGE_MAX] = {
	[MPE_STAGE_FWD] = {
		.name = "fwd",
		.help = "send to the peer of the receiving port; rewrite MACs if dst_mac is set",
		.gives = MPE_STAGE_ROUTE,
	},
	[MPE_STAGE_FLOWHASH] = {
		.name = "flowhash",
		.help = "compute the symmetric flow hash of each packet",
		.gives = MPE_STAGE_OTHER_HASH,
		.reads_headers = 1,
	},
	[MPE_STAGE_PARSE] = {
		.name = "parse",
		.help = "decode L2 to L4; count malformed frames by reason and drop them (or pass)",
		.gives = MPE_STAGE_PARSED | MPE_STAGE_KEY_HASH,
		.reads_headers = 1,
	},
	[MPE_STAGE_FLOW] = {
		.name = "flow",
		.help = "account packets to flows in the worker's flow table (needs parse)",
		/* it finds a flow by the hash parse gave the flow's key */
		.needs = MPE_STAGE_PARSED | MPE_STAGE_KEY_HASH,
		.reads_time = 1, /* last seen, expiry */
	},
	[MPE_STAGE_ACL] = {
		.name = "acl",
		.help = "classify with the rules file; drop, allow, count or mirror (needs parse)",
		.needs = MPE_STAGE_PARSED | MPE_STAGE_RULES,
	},
	[MPE_STAGE_BURN] = {
		.name = "burn",
		.help = "spend burn_cycles TSC cycles on each packet (emulates heavier work)",
	},
	[MPE_STAGE_HOSTILE] = {
		.name = "hostile",
		.help = "tests only: on a trigger packet, attempt what an attacker who owns the "
			"worker would (docs/sandbox.md)",
		.test_only = 1,
	},
	[MPE_STAGE_FAULT] = {
		.name = "fault",
		.help = "tests only: crash the worker on a trigger packet (docs/recorder.md)",
		.test_only = 1,
	},
};

/* Test-only stages are named only in a test build; --help-config and messages never list
 * them. */
static int
nameable(unsigned int i)
{
	return !catalogue[i].test_only || MPE_TEST_STAGES;
}

int
mpe_stage_find(const char *name, size_t len)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(catalogue); i++)
		if (nameable(i) && strlen(catalogue[i].name) == len &&
		    strncmp(catalogue[i].name, name, len) == 0)
			return (int)i;
	return -ENOENT;
}

const struct mpe_stage_info *
mpe_stage_info(unsigned int id)
{
	return id < RTE_DIM(catalogue) ? &catalogue[id] : NULL;
}

const struct mpe_stage_info *
mpe_stage_giver(uint8_t what)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(catalogue); i++)
		if (catalogue[i].gives & what)
			return &catalogue[i];
	return NULL;
}

const char *
mpe_stage_list(void)
{
	static char list[256];
	size_t off = 0;
	unsigned int i;

	if (list[0] != '\0')
		return list;
	for (i = 0; i < RTE_DIM(catalogue) && off < sizeof(list); i++)
		if (!catalogue[i].test_only)
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
						off ? ", " : "", catalogue[i].name);
	return list;
}
