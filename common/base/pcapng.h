/* SPDX-License-Identifier: BSD-3-Clause */
/* A pcapng writer with one comment per packet (DPDK 22.11's rte_pcapng writes none), for the
 * flight recorder's dumps and the quarantine file. No stdio, no allocation: it may run in a
 * fatal-signal handler. One writer per file; a writer is not shared between threads.
 */
#ifndef MPE_PCAPNG_H
#define MPE_PCAPNG_H

#include <stdint.h>

/* Longest comment and interface name written, in bytes; longer ones are cut. */
#define MPE_PCAPNG_TEXT_MAX 1024

struct mpe_pcapng {
	int fd;
	uint32_t snaplen;
};

/* Open @path: a new file (created 0600, truncated) with a Section Header Block (shb_userappl
 * "mpe") and one Interface Description Block (LINKTYPE_ETHERNET, @snaplen, if_name @if_name
 * when not NULL, if_tsresol 9: nanoseconds); or, with @append and a non-empty file at @path,
 * the same file positioned at its end, after checking that it begins with a pcapng Section
 * Header Block of this host's byte order (else -EINVAL): new packets go to its interface 0.
 * A @snaplen of 0 means no limit, as in pcapng. Returns 0 or -errno. */
int mpe_pcapng_open(struct mpe_pcapng *w, const char *path, int append, uint32_t snaplen,
		    const char *if_name);

/* One Enhanced Packet Block on interface 0: @data[0..cap) (cap is cut to snaplen), original
 * length @len, timestamp @ts_ns (nanoseconds since the epoch), and an opt_comment option
 * holding @comment when it is not NULL or empty (UTF-8, cut to 1024 bytes, not inside a
 * character). -EINVAL if @cap exceeds @len. Returns 0 or -errno (a short write is an error,
 * -EIO, and leaves a partial block at the end of the file). */
int mpe_pcapng_packet(struct mpe_pcapng *w, uint64_t ts_ns, const void *data, uint32_t cap,
		      uint32_t len, const char *comment);

/* Close; returns 0 or -errno. */
int mpe_pcapng_close(struct mpe_pcapng *w);

#endif
