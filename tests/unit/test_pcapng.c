/* SPDX-License-Identifier: BSD-3-Clause */
/* Unit tests of common/base/pcapng.c: a file written, then appended to, read back block by
 * block by a reader of this file's own (types, lengths, padding, trailers, options, bytes);
 * refusals to append to what is not this host's pcapng; write errors. No EAL.
 * With --write FILE, only writes the file tests/tools/test_pcapng_tshark.sh gives tshark, and
 * prints what tshark must show of each packet.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "pcapng.h"
#include "test.h"

#define SNAPLEN	  128
#define IF_NAME	  "net_ring0" /* 9 bytes: its option is padded */
#define TS_BASE	  1700000000123456789ull
#define MAX_PKTS  128
#define BIG	  1600

struct pkt {
	uint32_t cap, len; /* as given to the writer */
	uint64_t ts;
	const char *comment;
	size_t comment_want; /* bytes of it the file must hold */
};

static char dir[64];
static char long1024[1025], long1500[1501], utf8_cut[1100];

struct text {
	const char *s;
	size_t want;
};

/* Comments by packet number: none, short ones of every length modulo 4, UTF-8, and long ones
 * cut to 1024 bytes, or 1023 where byte 1024 is inside a two-byte character. */
static struct text texts[] = {
	{NULL, 0}, {"", 0}, {"a", 1}, {"ab", 2}, {"abc", 3}, {"abcd", 4}, {"abcde", 5},
	{"h\xc3\xa9llo w\xc3\xb6rld \xe2\x82\xac", 17}, {long1024, 1024}, {long1500, 1024},
	{utf8_cut, 1023},
};

static void
make_texts(void)
{
	size_t i;

	for (i = 0; i < 1024; i++)
		long1024[i] = (char)('A' + i % 26);
	for (i = 0; i < 1500; i++)
		long1500[i] = (char)('a' + i % 26);
	memset(utf8_cut, 'u', 1023);
	memcpy(utf8_cut + 1023, "\xc3\xa9tail", 7); /* e-acute at bytes 1023 and 1024 */
}

static uint8_t
byte_of(uint64_t ts, uint32_t i)
{
	return (uint8_t)(ts * 7 + i * 31 + (i >> 8));
}

static void
fill(uint8_t *buf, const struct pkt *p)
{
	uint32_t i;

	for (i = 0; i < p->cap; i++)
		buf[i] = byte_of(p->ts, i);
}

static uint32_t
pad4(uint32_t n)
{
	return (n + 3) & ~3u;
}

/* Packets of lengths 0..70 and a few up to 1600, one cut by its caller, then @n_append more. */
static unsigned int
make_pkts(struct pkt *pkts, unsigned int *n_append)
{
	static const uint32_t big[] = {127, 128, 129, 1500, 1514, BIG};
	unsigned int n = 0, i;

	for (i = 0; i <= 70; i++)
		pkts[n++] = (struct pkt){.cap = i, .len = i};
	for (i = 0; i < TEST_DIM(big); i++)
		pkts[n++] = (struct pkt){.cap = big[i], .len = big[i]};
	pkts[n++] = (struct pkt){.cap = 60, .len = 1514};
	*n_append = n;
	for (i = 0; i < 13; i++)
		pkts[n++] = (struct pkt){.cap = 3 + i * 97, .len = 3 + i * 97};
	*n_append = n - *n_append;
	for (i = 0; i < n; i++) {
		/* A step of about a second: the low word wraps, the high word changes */
		pkts[i].ts = TS_BASE + (uint64_t)i * 1000000007ull;
		pkts[i].comment = texts[i % TEST_DIM(texts)].s;
		pkts[i].comment_want = texts[i % TEST_DIM(texts)].want;
	}
	return n;
}

static int
write_pkts(const char *path, int append, const struct pkt *pkts, unsigned int n)
{
	static uint8_t buf[BIG];
	struct mpe_pcapng w;
	unsigned int i;
	int rc;

	rc = mpe_pcapng_open(&w, path, append, SNAPLEN, append ? "ignored" : IF_NAME);
	if (!CHECK(rc == 0, "open %s append %d: %d", path, append, rc))
		return -1;
	for (i = 0; i < n; i++) {
		fill(buf, &pkts[i]);
		rc = mpe_pcapng_packet(&w, pkts[i].ts, buf, pkts[i].cap, pkts[i].len,
				       pkts[i].comment);
		if (!CHECK(rc == 0, "packet %u: %d", i, rc))
			return -1;
	}
	rc = mpe_pcapng_close(&w);
	return CHECK(rc == 0, "close: %d", rc) ? 0 : -1;
}

/* The reader. */

static uint32_t
rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint16_t
rd16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static int
zero(const uint8_t *p, size_t n)
{
	while (n-- > 0)
		if (*p++ != 0)
			return 0;
	return 1;
}

struct opt {
	uint16_t code, len;
	const uint8_t *val;
};

/* The options in [p, end): each padded with zeros, opt_endofopt last and only there. Returns
 * how many (opt_endofopt not counted), -1 if malformed. */
static int
read_opts(const uint8_t *p, const uint8_t *end, struct opt *opts, int max)
{
	int n = 0;

	if (p == end)
		return 0;
	while (CHECK(end - p >= 4, "option header past the options' end")) {
		struct opt o = {rd16(p), rd16(p + 2), p + 4};

		if (o.code == 0)
			return CHECK(o.len == 0 && p + 4 == end, "opt_endofopt not last, not empty")
				       ? n : -1;
		if (!CHECK(end - o.val >= pad4(o.len), "option %u of %u bytes past the end",
			   o.code, o.len) ||
		    !CHECK(zero(o.val + o.len, pad4(o.len) - o.len), "option %u: padding",
			   o.code) ||
		    !CHECK(n < max, "more than %d options", max))
			return -1;
		opts[n++] = o;
		p = o.val + pad4(o.len);
	}
	return -1;
}

/* The block at @off: a type, a length that is a multiple of 4 within the file and the same
 * length at its end. Returns its length, 0 if malformed. */
static uint32_t
read_block(const uint8_t *f, size_t size, size_t off, uint32_t type)
{
	uint32_t blen;

	if (!CHECK(size - off >= 12, "block at %zu: %zu bytes left", off, size - off))
		return 0;
	blen = rd32(f + off + 4);
	if (!CHECK(rd32(f + off) == type, "block at %zu: type %#x, expected %#x", off,
		   rd32(f + off), type) ||
	    !CHECK(blen >= 12 && blen % 4 == 0 && blen <= size - off,
		   "block at %zu: length %u", off, blen) ||
	    !CHECK(rd32(f + off + blen - 4) == blen, "block at %zu: trailer %u, length %u", off,
		   rd32(f + off + blen - 4), blen))
		return 0;
	return blen;
}

static size_t
check_headers(const uint8_t *f, size_t size)
{
	struct opt o[4];
	uint32_t blen;
	size_t off;

	blen = read_block(f, size, 0, 0x0A0D0D0A);
	if (!CHECK(blen == 40, "SHB length %u", blen))
		return 0;
	CHECK(rd32(f + 8) == 0x1A2B3C4D, "byte-order magic %#x", rd32(f + 8));
	CHECK(rd16(f + 12) == 1 && rd16(f + 14) == 0, "version %u.%u", rd16(f + 12), rd16(f + 14));
	CHECK(rd32(f + 16) == UINT32_MAX && rd32(f + 20) == UINT32_MAX, "section length not -1");
	if (CHECK(read_opts(f + 24, f + blen - 4, o, 4) == 1, "SHB options"))
		CHECK(o[0].code == 4 && o[0].len == 3 && memcmp(o[0].val, "mpe", 3) == 0,
		      "shb_userappl: code %u length %u", o[0].code, o[0].len);
	off = blen;
	blen = read_block(f, size, off, 1);
	if (!CHECK(blen == 16 + 4 + pad4(strlen(IF_NAME)) + 8 + 8, "IDB length %u", blen))
		return 0;
	CHECK(rd16(f + off + 8) == 1 && rd16(f + off + 10) == 0, "link type %u, reserved %u",
	      rd16(f + off + 8), rd16(f + off + 10));
	CHECK(rd32(f + off + 12) == SNAPLEN, "snaplen %u", rd32(f + off + 12));
	if (CHECK(read_opts(f + off + 16, f + off + blen - 4, o, 4) == 2, "IDB options")) {
		CHECK(o[0].code == 2 && o[0].len == strlen(IF_NAME) &&
			      memcmp(o[0].val, IF_NAME, o[0].len) == 0,
		      "if_name: code %u length %u", o[0].code, o[0].len);
		CHECK(o[1].code == 9 && o[1].len == 1 && o[1].val[0] == 9,
		      "if_tsresol: code %u length %u", o[1].code, o[1].len);
	}
	return off + blen;
}

/* Enhanced Packet Block @i at @off; returns its length, 0 if it does not hold @p. */
static uint32_t
check_epb(const uint8_t *f, size_t size, size_t off, unsigned int i, const struct pkt *p)
{
	uint32_t cap = p->cap < SNAPLEN ? p->cap : SNAPLEN, blen, j;
	const uint8_t *b = f + off;
	struct opt o[2];
	int nopt;

	blen = read_block(f, size, off, 6);
	if (!CHECK(blen == 32 + pad4(cap) + (p->comment_want ? 8 + pad4(p->comment_want) : 0),
		   "packet %u: block length %u", i, blen))
		return 0;
	CHECK(rd32(b + 8) == 0, "packet %u: interface %u", i, rd32(b + 8));
	CHECK(((uint64_t)rd32(b + 12) << 32 | rd32(b + 16)) == p->ts, "packet %u: timestamp", i);
	CHECK(rd32(b + 20) == cap && rd32(b + 24) == p->len, "packet %u: cap %u len %u", i,
	      rd32(b + 20), rd32(b + 24));
	for (j = 0; j < cap; j++)
		if (!CHECK(b[28 + j] == byte_of(p->ts, j), "packet %u: byte %u", i, j))
			break;
	CHECK(zero(b + 28 + cap, pad4(cap) - cap), "packet %u: data padding", i);
	nopt = read_opts(b + 28 + pad4(cap), b + blen - 4, o, 2);
	if (p->comment_want == 0)
		CHECK(nopt == 0, "packet %u: %d options, none expected", i, nopt);
	else if (CHECK(nopt == 1, "packet %u: %d options, a comment expected", i, nopt))
		CHECK(o[0].code == 1 && o[0].len == p->comment_want &&
			      memcmp(o[0].val, p->comment, p->comment_want) == 0,
		      "packet %u: comment: code %u length %u, expected %zu bytes", i, o[0].code,
		      o[0].len, p->comment_want);
	return blen;
}

static uint8_t *
load(const char *path, size_t *size)
{
	static uint8_t data[1 << 20];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return NULL;
	n = read(fd, data, sizeof(data));
	close(fd);
	if (n < 0 || (size_t)n == sizeof(data))
		return NULL;
	*size = (size_t)n;
	return data;
}

static void
path_of(char *path, size_t len, const char *name)
{
	snprintf(path, len, "%s/%s", dir, name);
}

static void
test_write_append_read_back(void)
{
	static struct pkt pkts[MAX_PKTS];
	unsigned int n, n_append, first, i;
	char path[128];
	struct stat st;
	uint8_t *f;
	size_t size = 0, off;
	uint32_t blen;

	n = make_pkts(pkts, &n_append);
	first = n - n_append;
	path_of(path, sizeof(path), "packets.pcapng");
	if (write_pkts(path, 0, pkts, first) < 0 || write_pkts(path, 1, pkts + first, n_append) < 0)
		return;
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "mode %o", st.st_mode & 0777);
	f = load(path, &size);
	if (!CHECK(f != NULL, "cannot read %s back", path))
		return;
	off = check_headers(f, size);
	if (off == 0)
		return;
	for (i = 0; i < n; i++, off += blen) {
		blen = check_epb(f, size, off, i, &pkts[i]);
		if (blen == 0)
			return;
	}
	CHECK(off == size, "%zu bytes after the last packet (no second header on append)",
	      size - off);
}

/* A new file replaces what was at its path; appending to nothing starts a file. */
static void
test_truncate_and_append_to_nothing(void)
{
	struct mpe_pcapng w;
	char path[128];
	uint8_t *f;
	size_t size = 0;
	int fd;

	path_of(path, sizeof(path), "old.pcapng");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	test_write_all(fd, "some old bytes that a new capture replaces", 42);
	close(fd);
	CHECK(mpe_pcapng_open(&w, path, 0, SNAPLEN, IF_NAME) == 0, "open");
	CHECK(mpe_pcapng_close(&w) == 0 && w.fd == -1, "close");
	f = load(path, &size);
	CHECK(f != NULL && check_headers(f, size) == size, "headers only");
	CHECK(mpe_pcapng_close(&w) == -EBADF, "second close");

	path_of(path, sizeof(path), "new.pcapng");
	CHECK(mpe_pcapng_open(&w, path, 1, SNAPLEN, IF_NAME) == 0, "append to a missing file");
	CHECK(mpe_pcapng_close(&w) == 0, "close");
	f = load(path, &size);
	CHECK(f != NULL && check_headers(f, size) == size, "headers only");
}

/* What is not a pcapng of this host's byte order is left alone. */
static void
test_append_refused(void)
{
	static const char text[] = "this is text, not a capture\n";
	uint8_t swapped[12] = {0x0A, 0x0D, 0x0D, 0x0A, 0, 0, 0, 28, 0, 0, 0, 0};
	uint32_t magic = 0x1A2B3C4D;
	struct mpe_pcapng w = {.fd = 7};
	char path[128];
	struct stat st;
	int fd, rc;

	path_of(path, sizeof(path), "text.pcapng");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	test_write_all(fd, text, sizeof(text) - 1);
	close(fd);
	rc = mpe_pcapng_open(&w, path, 1, SNAPLEN, NULL);
	CHECK(rc == -EINVAL && w.fd == -1, "text: rc %d fd %d", rc, w.fd);
	CHECK(stat(path, &st) == 0 && st.st_size == sizeof(text) - 1, "text file changed");

	path_of(path, sizeof(path), "short.pcapng");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	test_write_all(fd, "\x0a\x0d\x0d\x0a", 4);
	close(fd);
	rc = mpe_pcapng_open(&w, path, 1, SNAPLEN, NULL);
	CHECK(rc == -EINVAL, "4 bytes: rc %d", rc);

	/* The other byte order's magic */
	path_of(path, sizeof(path), "swapped.pcapng");
	magic = __builtin_bswap32(magic);
	memcpy(swapped + 8, &magic, 4);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	test_write_all(fd, (const char *)swapped, sizeof(swapped));
	close(fd);
	rc = mpe_pcapng_open(&w, path, 1, SNAPLEN, NULL);
	CHECK(rc == -EINVAL, "swapped magic: rc %d", rc);

	rc = mpe_pcapng_open(&w, "/nonexistent-dir/x.pcapng", 0, SNAPLEN, NULL);
	CHECK(rc == -ENOENT, "missing directory: rc %d", rc);
}

static void
test_bad_packet(void)
{
	static const uint8_t data[64];
	struct mpe_pcapng w;
	char path[128];
	int rc;

	path_of(path, sizeof(path), "bad.pcapng");
	if (!CHECK(mpe_pcapng_open(&w, path, 0, 0, NULL) == 0, "open"))
		return;
	rc = mpe_pcapng_packet(&w, 1, data, 64, 60, NULL);
	CHECK(rc == -EINVAL, "cap over len: rc %d", rc);
	rc = mpe_pcapng_packet(&w, 1, NULL, 4, 60, NULL);
	CHECK(rc == -EINVAL, "no data: rc %d", rc);
	rc = mpe_pcapng_packet(&w, 1, NULL, 0, 60, "empty");
	CHECK(rc == 0, "nothing captured: rc %d", rc);
	mpe_pcapng_close(&w);
}

/* A device that takes nothing, and a file size limit that cuts a block short. */
static void
test_write_errors(void)
{
	static const uint8_t data[100];
	struct mpe_pcapng w;
	struct rlimit old, lim;
	char path[128];
	struct stat st;
	int rc;

	rc = mpe_pcapng_open(&w, "/dev/full", 0, SNAPLEN, NULL);
	CHECK(rc == -ENOSPC, "/dev/full: rc %d", rc);

	path_of(path, sizeof(path), "limit.pcapng");
	if (!CHECK(mpe_pcapng_open(&w, path, 0, SNAPLEN, NULL) == 0, "open") ||
	    !CHECK(fstat(w.fd, &st) == 0, "fstat"))
		return;
	signal(SIGXFSZ, SIG_IGN);
	getrlimit(RLIMIT_FSIZE, &old);
	lim = old;
	lim.rlim_cur = (rlim_t)st.st_size + 50;
	if (CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, "setrlimit")) {
		rc = mpe_pcapng_packet(&w, 1, data, sizeof(data), sizeof(data), NULL);
		CHECK(rc == -EIO, "short write: rc %d", rc);
		rc = mpe_pcapng_packet(&w, 1, data, sizeof(data), sizeof(data), NULL);
		CHECK(rc == -EFBIG, "no room at all: rc %d", rc);
		setrlimit(RLIMIT_FSIZE, &old);
	}
	signal(SIGXFSZ, SIG_DFL);
	mpe_pcapng_close(&w);
}

/* --write FILE: a file of two halves (written, then appended to) for tshark, and one line per
 * packet on stdout: frame.len, frame.cap_len, frame.time_epoch, frame.comment, the bytes. */
static int
write_for_tshark(const char *path)
{
	static const uint32_t lens[] = {60, 1, 13, 14, 64, 127, 128, 129, 1514, 61};
	static struct pkt pkts[TEST_DIM(lens)];
	static uint8_t buf[BIG];
	unsigned int i, half = TEST_DIM(lens) / 2;
	uint32_t j, cap;

	make_texts();
	for (i = 0; i < TEST_DIM(lens); i++) {
		pkts[i] = (struct pkt){.cap = lens[i], .len = lens[i],
				       .ts = TS_BASE + (uint64_t)i * 1000000007ull,
				       .comment = texts[i + 1].s,
				       .comment_want = texts[i + 1].want};
	}
	if (write_pkts(path, 0, pkts, half) < 0 ||
	    write_pkts(path, 1, pkts + half, TEST_DIM(lens) - half) < 0)
		return 1;
	for (i = 0; i < TEST_DIM(lens); i++) {
		cap = pkts[i].cap < SNAPLEN ? pkts[i].cap : SNAPLEN;
		printf("%u\t%u\t%" PRIu64 ".%09" PRIu64 "\t%.*s\t", pkts[i].len, cap,
		       pkts[i].ts / 1000000000, pkts[i].ts % 1000000000,
		       (int)pkts[i].comment_want, pkts[i].comment ? pkts[i].comment : "");
		fill(buf, &pkts[i]);
		for (j = 0; j < cap; j++)
			printf("%02x", buf[j]);
		putchar('\n');
	}
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct test_case cases[] = {
		{"packets of 0..1600 bytes, comments of 0..1500 bytes, appended to: read back",
		 test_write_append_read_back},
		{"a new file replaces the old, appending to nothing starts a file",
		 test_truncate_and_append_to_nothing},
		{"appending to text, a stub or the other byte order is -EINVAL",
		 test_append_refused},
		{"cap over len and missing data are -EINVAL", test_bad_packet},
		{"write errors: -ENOSPC from a full device, -EIO for a short write",
		 test_write_errors},
	};
	int rc;

	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return write_for_tshark(argv[2]);
	make_texts();
	snprintf(dir, sizeof(dir), "%s/test_pcapng.XXXXXX", "/tmp");
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_run_cases(cases, TEST_DIM(cases));
	rc = test_summary();
	if (rc == 0) {
		static const char *const names[] = {"packets", "old", "new", "text", "short",
						    "swapped", "bad", "limit"};
		char path[128];
		size_t i;

		for (i = 0; i < TEST_DIM(names); i++) {
			snprintf(path, sizeof(path), "%s/%s.pcapng", dir, names[i]);
			unlink(path);
		}
		rmdir(dir);
	} else {
		printf("# files left in %s\n", dir);
	}
	return rc;
}
