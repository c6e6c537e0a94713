/* SPDX-License-Identifier: BSD-3-Clause */
/* The trigger packets of the test-only stages (hostile, fault; built with -Dtest_stages=true
 * only): an IPv4 UDP datagram to a port of the stage's whose payload begins with a prefix of
 * its. Pure functions of the packet; safe from any worker. Private to common/stages/.
 */
#ifndef MPE_TEST_TRIGGER_H
#define MPE_TEST_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include <rte_mbuf.h>

/* What a stage's trigger looks like. */
struct mpe_test_trigger {
	const char *prefix; /* what the UDP payload begins with, "mpe-hostile " say */
	size_t prefix_len;
	uint16_t port; /* UDP destination port, host order */
};

/* A trigger to UDP @port whose payload begins with the string literal @prefix. */
#define MPE_TEST_TRIGGER(port_, prefix_)                                                           \
	{                                                                                          \
		.prefix = (prefix_), .prefix_len = sizeof(prefix_) - 1, .port = (port_)            \
	}

/* The rest of @m's payload after @t's prefix when @m is a trigger of @t, its length in *@len
 * (trailing newlines and NULs left out, the UDP length bounding it); NULL for any other
 * packet, which costs a few loads and compares. Reads the first segment only. */
const char *mpe_test_trigger_match(const struct mpe_test_trigger *t, const struct rte_mbuf *m,
				   size_t *len);

#endif
