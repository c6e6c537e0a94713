#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes the seed corpora of the two fuzzers: tests/fuzz/corpus/decode/ (one small frame per
protocol and header layout the decoder knows, and one per malformation reason) and
tests/fuzz/corpus/rules/ (rules files: valid ones of both families, and one per kind of bad
line). Deterministic; files it does not name (inputs a fuzzer found) are left alone.
Usage: tests/fuzz/make-corpus.py [OUTPUT_DIR]   (default: the corpus/ folder next to it)
"""
import os
import struct
import sys

MAC_DST = bytes.fromhex("020000000002")
MAC_SRC = bytes.fromhex("020000000001")
V4_SRC = bytes([10, 0, 0, 1])
V4_DST = bytes([10, 0, 0, 2])
V6_SRC = bytes.fromhex("20010db8000000000000000000000001")
V6_DST = bytes.fromhex("20010db8000000000000000000000002")

TCP, UDP, ICMP, ICMPV6, SCTP, UDPLITE, GRE = 6, 17, 1, 58, 132, 136, 47
HOPOPTS, ROUTING, FRAGMENT, ESP, AH, DSTOPTS, NONE = 0, 43, 44, 50, 51, 60, 59


def eth(l3, etype, tags=(), pad=0):
    """Ethernet header, (tpid, tci) tags, ether type, the L3 bytes and zero padding."""
    b = MAC_DST + MAC_SRC
    for tpid, tci in tags:
        b += struct.pack("!HH", tpid, tci)
    return b + struct.pack("!H", etype) + l3 + bytes(pad)


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def ipv4(proto, l4, ihl=5, frag=0, total=None, ver=4):
    """IPv4 header (options are NOPs) followed by @l4; @total overrides the length field."""
    opts = b"\x01" * (ihl * 4 - 20) if ihl >= 5 else b""
    total = 20 + len(opts) + len(l4) if total is None else total
    h = struct.pack("!BBHHHBBH4s4s", ver << 4 | ihl, 0, total, 0x1234, frag, 64, proto, 0,
                    V4_SRC, V4_DST) + opts
    h = h[:10] + struct.pack("!H", csum(h)) + h[12:]
    return h + l4


def ipv6(nh, body, plen=None, ver=6):
    """IPv6 fixed header followed by @body (extension headers and upper layer)."""
    plen = len(body) if plen is None else plen
    return struct.pack("!IHBB16s16s", ver << 28, plen, nh, 64, V6_SRC, V6_DST) + body


def ext(nh, length=0):
    """Hop-by-hop, routing or destination options header: (length + 1) * 8 bytes of PadN."""
    size = (length + 1) * 8
    return struct.pack("!BB", nh, length) + b"\x01" + bytes([size - 4]) + bytes(size - 4)


def routing(nh):
    """Routing header type 0 with no addresses left (segments left 0)."""
    return struct.pack("!BBBB", nh, 0, 0, 0) + bytes(4)


def ah(nh, length=4):
    """Authentication header of (length + 2) * 4 bytes."""
    size = (length + 2) * 4
    return struct.pack("!BBHII", nh, length, 0, 0x100, 1) + bytes(size - 12)


def frag6(nh, offset=0, more=0):
    return struct.pack("!BBHI", nh, 0, offset << 3 | more, 0xBEEF0001)


def tcp(sport=1024, dport=80, flags=0x02, doff=5, payload=b""):
    opts = b"\x01" * (doff * 4 - 20) if doff >= 5 else b""
    return struct.pack("!HHIIBBHHH", sport, dport, 1, 0, doff << 4, flags, 65535, 0,
                       0) + opts + payload


def udp(sport=5353, dport=53, payload=b"", ulen=None):
    ulen = 8 + len(payload) if ulen is None else ulen
    return struct.pack("!HHHH", sport, dport, ulen, 0) + payload


def icmp(typ=8, code=0, payload=b"ping"):
    return struct.pack("!BBHHH", typ, code, 0, 0xABCD, 1) + payload


def sctp(sport=2905, dport=2905, payload=b""):
    return struct.pack("!HHII", sport, dport, 0x11223344, 0) + payload


V4 = 0x0800
V6 = 0x86DD
VLAN = 0x8100
QINQ = 0x88A8
DATA = b"\xab" * 16

GOOD_FRAMES = {
    "l2-arp": eth(struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + bytes(20), 0x0806),
    "l2-lldp-padded": eth(bytes(10), 0x88CC, pad=36),
    "ipv4-tcp": eth(ipv4(TCP, tcp(flags=0x18, payload=DATA)), V4),
    "ipv4-tcp-options": eth(ipv4(TCP, tcp(doff=8)), V4),
    "ipv4-tcp-doff15": eth(ipv4(TCP, tcp(doff=15)), V4),
    "ipv4-udp": eth(ipv4(UDP, udp(payload=DATA)), V4),
    "ipv4-udp-padded": eth(ipv4(UDP, udp(payload=b"abcd")), V4, pad=14),
    "ipv4-icmp": eth(ipv4(ICMP, icmp()), V4),
    "ipv4-sctp": eth(ipv4(SCTP, sctp(payload=DATA)), V4),
    "ipv4-udplite": eth(ipv4(UDPLITE, udp(ulen=8)), V4),
    "ipv4-gre": eth(ipv4(GRE, DATA), V4),
    "ipv4-icmpv6-proto": eth(ipv4(ICMPV6, icmp()), V4),
    "ipv4-options-ihl6-tcp": eth(ipv4(TCP, tcp(), ihl=6), V4),
    "ipv4-options-ihl15-udp": eth(ipv4(UDP, udp(), ihl=15), V4),
    "ipv4-frag-first-udp": eth(ipv4(UDP, udp(payload=DATA, ulen=1480), frag=0x2000), V4),
    "ipv4-frag-first-tcp": eth(ipv4(TCP, tcp(payload=b"12345678"), frag=0x2000), V4),
    "ipv4-frag-middle": eth(ipv4(UDP, DATA * 2, frag=0x2000 | 185), V4),
    "ipv4-frag-last": eth(ipv4(TCP, b"abc", frag=370), V4),
    "ipv4-df-tcp": eth(ipv4(TCP, tcp(), frag=0x4000), V4),
    "vlan-ipv4-tcp": eth(ipv4(TCP, tcp()), V4, tags=[(VLAN, 42)]),
    "vlan-arp": eth(bytes(28), 0x0806, tags=[(VLAN, 7)]),
    "qinq-ipv4-udp": eth(ipv4(UDP, udp()), V4, tags=[(QINQ, 100), (VLAN, 42)]),
    "qinq-ipv6-tcp": eth(ipv6(TCP, tcp()), V6, tags=[(QINQ, 100), (VLAN, 200)]),
    "ipv6-tcp": eth(ipv6(TCP, tcp(dport=443, payload=DATA)), V6),
    "ipv6-udp": eth(ipv6(UDP, udp(payload=DATA)), V6),
    "ipv6-icmpv6": eth(ipv6(ICMPV6, icmp(128)), V6),
    "ipv6-sctp": eth(ipv6(SCTP, sctp()), V6),
    "ipv6-icmp-proto": eth(ipv6(ICMP, icmp()), V6),
    "ipv6-no-next": eth(ipv6(NONE, b""), V6),
    "ipv6-esp": eth(ipv6(ESP, struct.pack("!II", 0x100, 1) + DATA), V6),
    "ipv6-hopopts-udp": eth(ipv6(HOPOPTS, ext(UDP) + udp()), V6),
    "ipv6-hopopts-long-tcp": eth(ipv6(HOPOPTS, ext(TCP, 3) + tcp()), V6),
    "ipv6-routing-dstopts-tcp": eth(ipv6(ROUTING, routing(DSTOPTS) + ext(TCP) + tcp()), V6),
    "ipv6-ah-tcp": eth(ipv6(AH, ah(TCP) + tcp()), V6),
    "ipv6-hopopts-ah-esp": eth(ipv6(HOPOPTS, ext(AH) + ah(ESP) + DATA), V6),
    "ipv6-frag-first-tcp": eth(ipv6(FRAGMENT, frag6(TCP, 0, 1) + tcp()), V6),
    "ipv6-frag-first-udp": eth(ipv6(FRAGMENT, frag6(UDP, 0, 1) + udp(ulen=1000)), V6),
    "ipv6-frag-nonfirst": eth(ipv6(FRAGMENT, frag6(TCP, 3, 0) + DATA), V6),
    "ipv6-frag-atomic-udp": eth(ipv6(FRAGMENT, frag6(UDP, 0, 0) + udp()), V6),
    "ipv6-frag-dstopts-tcp": eth(ipv6(FRAGMENT, frag6(DSTOPTS, 0, 1) + ext(TCP) + tcp()), V6),
    "ipv6-eight-ext-udp": eth(ipv6(DSTOPTS, b"".join(ext(DSTOPTS) for _ in range(7)) +
                                   ext(UDP) + udp()), V6),
    "vlan-ipv6-icmpv6": eth(ipv6(ICMPV6, icmp(135)), V6, tags=[(VLAN, 5)]),
}

TCP4 = eth(ipv4(TCP, tcp()), V4)
UDP6 = eth(ipv6(UDP, udp()), V6)

# One frame per reason of enum mpe_decode_bad, named after mpe_decode_bad_name().
BAD_FRAMES = {
    "bad-short_l2": TCP4[:13],
    "bad-short_l2-empty": b"",
    "bad-short_l2-vlan-cut": eth(b"", V4, tags=[(VLAN, 1)])[:16],
    "bad-vlan_depth": eth(ipv4(TCP, tcp()), V4, tags=[(QINQ, 1), (VLAN, 2), (VLAN, 3)]),
    "bad-short_ipv4": TCP4[:14 + 19],
    "bad-short_ipv4-options-cut": eth(ipv4(TCP, b"", ihl=8), V4)[:14 + 24],
    "bad-ipv4_version": eth(ipv4(TCP, tcp(), ver=6), V4),
    "bad-ipv4_ihl": eth(ipv4(TCP, tcp(), ihl=4) + bytes(4), V4),
    "bad-ipv4_total_len": eth(ipv4(TCP, tcp(), total=41), V4),
    "bad-ipv4_total_len-below-ihl": eth(ipv4(TCP, tcp(), total=19), V4),
    "bad-ipv4_frag_oversize": eth(ipv4(UDP, DATA * 2, frag=0x1FFF), V4),
    "bad-short_ipv6": UDP6[:14 + 39],
    "bad-ipv6_version": eth(ipv6(UDP, udp(), ver=4), V6),
    "bad-ipv6_payload_len": eth(ipv6(UDP, udp(payload=b"abcd"), plen=13), V6),
    "bad-ipv6_ext_short": eth(ipv6(HOPOPTS, ext(UDP, 2)[:8] + udp()), V6),
    "bad-ipv6_ext_short-ah": eth(ipv6(AH, ah(TCP, 20)[:24] + tcp()), V6),
    "bad-ipv6_ext_chain": eth(ipv6(DSTOPTS, b"".join(ext(DSTOPTS) for _ in range(8)) +
                                   ext(UDP) + udp()), V6),
    "bad-short_tcp": eth(ipv4(TCP, tcp(), total=39), V4),
    "bad-tcp_doff": eth(ipv4(TCP, tcp(doff=4)), V4),
    "bad-tcp_doff-beyond": eth(ipv4(TCP, tcp()[:12] + b"\x60" + tcp()[13:]), V4, pad=40),
    "bad-short_udp": eth(ipv4(UDP, udp(), total=27), V4),
    "bad-udp_len": eth(ipv4(UDP, udp(ulen=7)), V4),
    "bad-udp_len-beyond": eth(ipv6(UDP, udp(payload=DATA, ulen=25)), V6, pad=20),
    "bad-short_icmp": eth(ipv6(ICMPV6, icmp(128, payload=b""), plen=4), V6),
    "bad-short_sctp": eth(ipv4(SCTP, sctp(), total=31), V4),
}

GOOD = "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
GOOD6 = "@2001:db8::/32 ::/0 1024 : 65535 443 : 443 6/0xff count 20\n"

RULES = {
    "ipv4-one.txt": GOOD,
    "ipv6-one.txt": GOOD6,
    "example.txt": (
        "# comment\n"
        "@0.0.0.0/0 0.0.0.0/0 0 : 65535 23 : 23 6/0xff drop 100\n"
        "@0.0.0.0/0 192.0.2.0/24 0 : 65535 53 : 53 17/0xff count 50\n"
        "\n"
        "   @10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 0/0x00 allow 10\n"
        "@::/0 ::/0 0 : 65535 0 : 65535 58/0xff allow 1000\n"
        "@2001:db8:bad::/64 ::/0 0 : 65535 0 : 65535 0/0 drop 10\n"
        "@192.0.2.0/24 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff mirror 30\n"),
    "crlf-tabs-no-final-newline.txt": (
        "\t# tabbed comment\r\n@1.2.3.4/32\t5.6.7.8/32 1 : 2 3 : 4 17/255 allow 7\r\n"
        "@fe80::1/128 ff02::1/128 546 : 546 547 : 547 17/0xff count 3"),
    "bounds.txt": (
        "@255.255.255.255/32 0.0.0.0/0 65535 : 65535 0 : 0 255/0xff drop 536870911\n"
        "@ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128 ::/0 0 : 0 65535 : 65535 0/0 allow 1\n"
        "@::ffff:192.0.2.1/96 ::1/127 0x0 : 0xffff 0 : 0 0x11/0x0f count 0x1fffffff\n"),
    "host-bits.txt": "@10.1.2.3/8 192.168.1.77/20 0 : 65535 0 : 65535 7/0x03 allow 5\n",
    "comments-only.txt": "# nothing\n\n   \n\t# still nothing\n",
    "empty.txt": "",
    "nul-byte.txt": GOOD[:20] + "\0" + GOOD[21:],
    "bad-no-at.txt": GOOD[1:],
    "bad-few-fields.txt": "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop\n@\n",
    "bad-trailing.txt": GOOD[:-1] + " # comment\n",
    "bad-address.txt": (
        "@10.0.0.300/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
        "@2001:db8:::1/64 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
        "@10.0.0.1 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"),
    "bad-prefix-length.txt": (
        "@10.0.0.0/33 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
        "@::/129 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n"
        "@::/0 ::/ 0 : 65535 0 : 65535 6/0xff drop 1\n"
        "@10.0.0.0/-1 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff drop 1\n"),
    "bad-families.txt": "@10.0.0.0/8 ::/0 0 : 65535 0 : 65535 6/0xff drop 1\n",
    "bad-ports.txt": (
        "@10.0.0.0/8 0.0.0.0/0 65536 : 65535 0 : 65535 6/0xff drop 1\n"
        "@10.0.0.0/8 0.0.0.0/0 0 - 65535 0 : 65535 6/0xff drop 1\n"
        "@10.0.0.0/8 0.0.0.0/0 100 : 99 0 : 65535 6/0xff drop 1\n"
        "@::/0 ::/0 0 : 65535 0 : http 6/0xff drop 1\n"),
    "bad-protocol.txt": (
        "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6 drop 1\n"
        "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 256/0xff drop 1\n"
        "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0x100 drop 1\n"
        "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 tcp/0xfg drop 1\n"),
    "bad-action.txt": "@10.0.0.0/8 0.0.0.0/0 0 : 65535 0 : 65535 6/0xff DROP 1\n",
    "bad-priority.txt": (
        "@::/0 ::/0 0 : 65535 0 : 65535 6/0xff drop 0\n"
        "@::/0 ::/0 0 : 65535 0 : 65535 6/0xff drop 536870912\n"
        "@::/0 ::/0 0 : 65535 0 : 65535 6/0xff drop +5\n"
        "@::/0 ::/0 0 : 65535 0 : 65535 6/0xff drop 99999999999999999999999\n"),
    "mixed-good-and-bad.txt": "# header\n" + GOOD + "garbage\n" + GOOD6 + "@\n" + GOOD,
}


def write(folder, name, data):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    for name, frame in {**GOOD_FRAMES, **BAD_FRAMES}.items():
        write(os.path.join(out, "decode"), name, frame)
    for name, text in RULES.items():
        write(os.path.join(out, "rules"), name, text.encode())
    print("%d frames, %d rules files in %s" %
          (len(GOOD_FRAMES) + len(BAD_FRAMES), len(RULES), out))


if __name__ == "__main__":
    main()
