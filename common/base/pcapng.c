/* SPDX-License-Identifier: BSD-3-Clause */
/* The pcapng writer (draft-ietf-opsawg-pcapng): one section in this host's byte order, one
 * Ethernet interface, Enhanced Packet Blocks with an optional comment. A block is one writev()
 * over stack buffers and the caller's bytes; open, read, lseek, fstat and close are the only
 * other calls, all async-signal-safe. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pcapng.h"

#define BLOCK_SHB        0x0A0D0D0Au
#define BYTE_ORDER_MAGIC 0x1A2B3C4Du
enum { BLOCK_IDB = 1, BLOCK_EPB = 6, LINKTYPE_ETHERNET = 1 };
enum { OPT_ENDOFOPT = 0, OPT_COMMENT = 1, OPT_IF_NAME = 2, OPT_USERAPPL = 4, OPT_IF_TSRESOL = 9 };

/* Bodies and options end on a 32-bit boundary, padded with zeros. */
#define PAD(n) ((4u - ((n) & 3u)) & 3u)

static const uint8_t zeros[4];

/* The whole Section Header Block: its one option is shb_userappl "mpe" (3 bytes and a pad). */
struct shb {
	uint32_t type, total, magic;
	uint16_t major, minor;
	int64_t section_len; /* -1: not given, the file may grow */
	uint16_t appl_code, appl_len;
	char appl[4];
	uint32_t endofopt, total_again;
};
_Static_assert(sizeof(struct shb) == 40, "the SHB is packed");

struct idb_head {
	uint32_t type, total;
	uint16_t linktype, reserved;
	uint32_t snaplen;
};

/* if_tsresol 9 (one byte, padded), opt_endofopt and the trailing total length. */
struct idb_tail {
	uint16_t tsresol_code, tsresol_len;
	uint8_t tsresol, pad[3];
	uint32_t endofopt, total_again;
};

struct epb_head {
	uint32_t type, total, interface, ts_high, ts_low, cap, len;
};

/* Bytes of @s to write: up to MPE_PCAPNG_TEXT_MAX, not ending inside a UTF-8 character. */
static uint32_t
text_len(const char *s)
{
	size_t n;

	if (s == NULL)
		return 0;
	n = strnlen(s, MPE_PCAPNG_TEXT_MAX + 1);
	if (n > MPE_PCAPNG_TEXT_MAX) {
		n = MPE_PCAPNG_TEXT_MAX;
		while (n > 0 && ((uint8_t)s[n] & 0xC0) == 0x80)
			n--;
	}
	return (uint32_t)n;
}

/* One block of @total bytes, all of it or an error: a short write is -EIO. */
static int
write_block(int fd, const struct iovec *iov, int n, uint32_t total)
{
	ssize_t done = writev(fd, iov, n);

	if (done < 0)
		return -errno;
	return (size_t)done == total ? 0 : -EIO;
}

static int
write_headers(int fd, uint32_t snaplen, const char *if_name)
{
	struct shb shb = {
		.type = BLOCK_SHB, .total = sizeof(shb), .magic = BYTE_ORDER_MAGIC,
		.major = 1, .minor = 0, .section_len = -1,
		.appl_code = OPT_USERAPPL, .appl_len = 3, .appl = "mpe",
		.endofopt = OPT_ENDOFOPT, .total_again = sizeof(shb),
	};
	uint32_t name_len = text_len(if_name);
	uint32_t total = sizeof(struct idb_head) + sizeof(struct idb_tail) +
			 (name_len > 0 ? 4 + name_len + PAD(name_len) : 0);
	uint16_t name_opt[2] = {OPT_IF_NAME, (uint16_t)name_len};
	struct idb_head head = {.type = BLOCK_IDB, .total = total,
				.linktype = LINKTYPE_ETHERNET, .snaplen = snaplen};
	struct idb_tail tail = {.tsresol_code = OPT_IF_TSRESOL, .tsresol_len = 1, .tsresol = 9,
				.total_again = total};
	struct iovec iov[5];
	int n = 0, rc;

	iov[0] = (struct iovec){&shb, sizeof(shb)};
	rc = write_block(fd, iov, 1, sizeof(shb));
	if (rc < 0)
		return rc;
	iov[n++] = (struct iovec){&head, sizeof(head)};
	if (name_len > 0) {
		iov[n++] = (struct iovec){name_opt, sizeof(name_opt)};
		iov[n++] = (struct iovec){(void *)if_name, name_len};
		iov[n++] = (struct iovec){(void *)zeros, PAD(name_len)};
	}
	iov[n++] = (struct iovec){&tail, sizeof(tail)};
	return write_block(fd, iov, n, total);
}

/* An existing file is appended to only if it starts with a section in this host's order. */
static int
check_header(int fd)
{
	uint32_t start[3];
	ssize_t n;

	n = read(fd, start, sizeof(start));
	if (n < 0)
		return -errno;
	if (n != (ssize_t)sizeof(start) || start[0] != BLOCK_SHB || start[2] != BYTE_ORDER_MAGIC)
		return -EINVAL;
	return lseek(fd, 0, SEEK_END) < 0 ? -errno : 0;
}

int
mpe_pcapng_open(struct mpe_pcapng *w, const char *path, int append, uint32_t snaplen,
		const char *if_name)
{
	struct stat st;
	int fd, rc;

	w->fd = -1;
	w->snaplen = snaplen;
	/* Appending reads the file's first bytes; a new file is truncated */
	fd = open(path, O_CREAT | O_CLOEXEC | (append ? O_RDWR : O_WRONLY | O_TRUNC), 0600);
	if (fd < 0)
		return -errno;
	if (append && fstat(fd, &st) < 0)
		rc = -errno;
	else if (append && st.st_size > 0)
		rc = check_header(fd);
	else
		rc = write_headers(fd, snaplen, if_name);
	if (rc < 0) {
		close(fd);
		return rc;
	}
	w->fd = fd;
	return 0;
}

int
mpe_pcapng_packet(struct mpe_pcapng *w, uint64_t ts_ns, const void *data, uint32_t cap,
		  uint32_t len, const char *comment)
{
	uint32_t clen = text_len(comment);
	struct epb_head head;
	uint32_t tail[2]; /* opt_endofopt (code 0, length 0), the total length again */
	uint16_t opt[2] = {OPT_COMMENT, (uint16_t)clen};
	struct iovec iov[7];
	uint64_t total;
	int n = 0;

	if (cap > len || (data == NULL && cap > 0))
		return -EINVAL;
	if (w->snaplen != 0 && cap > w->snaplen)
		cap = w->snaplen;
	total = sizeof(head) + (uint64_t)cap + PAD(cap) + 4;
	if (clen > 0)
		total += 4 + clen + PAD(clen) + 4;
	if (total > UINT32_MAX)
		return -ERANGE;
	tail[0] = OPT_ENDOFOPT;
	tail[1] = (uint32_t)total;
	head = (struct epb_head){.type = BLOCK_EPB, .total = (uint32_t)total, .interface = 0,
				 .ts_high = (uint32_t)(ts_ns >> 32), .ts_low = (uint32_t)ts_ns,
				 .cap = cap, .len = len};
	iov[n++] = (struct iovec){&head, sizeof(head)};
	iov[n++] = (struct iovec){(void *)data, cap};
	iov[n++] = (struct iovec){(void *)zeros, PAD(cap)};
	if (clen > 0) {
		iov[n++] = (struct iovec){opt, sizeof(opt)};
		iov[n++] = (struct iovec){(void *)comment, clen};
		iov[n++] = (struct iovec){(void *)zeros, PAD(clen)};
	}
	/* Without options, no opt_endofopt */
	iov[n++] = clen > 0 ? (struct iovec){tail, 8} : (struct iovec){&tail[1], 4};
	return write_block(w->fd, iov, n, (uint32_t)total);
}

int
mpe_pcapng_close(struct mpe_pcapng *w)
{
	int rc = close(w->fd); /* -EBADF if closed already */

	w->fd = -1;
	return rc < 0 ? -errno : 0;
}
