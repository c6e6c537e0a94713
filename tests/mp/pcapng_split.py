#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reads a pcapng capture (what dpdk-dumpcap writes), standard library only.

Usage: pcapng_split.py FILE.pcapng [OUTDIR]
Prints one line per interface: "NAME HARDWARE PACKETS": the interface's if_name and
if_hardware options ("dpdk:0 vdev-net_ring0 100" from dpdk-dumpcap; "if<N>" and "-" when
absent). With OUTDIR, also writes each interface's packets as OUTDIR/NAME.pcap, ":" made "_"
(classic pcap, microsecond timestamps), in capture order. Exits 1 on a malformed file.
"""
import os
import struct
import sys

SHB, IDB, EPB, SPB = 0x0A0D0D0A, 1, 6, 3
BYTE_ORDER_MAGIC = 0x1A2B3C4D


def fail(msg):
    print("pcapng_split: " + msg, file=sys.stderr)
    sys.exit(1)


def options(body, endian):
    """(code, value) of each option in @body."""
    off = 0
    while off + 4 <= len(body):
        code, length = struct.unpack_from(endian + "HH", body, off)
        off += 4
        if code == 0:
            return
        yield code, body[off:off + length]
        off += (length + 3) & ~3


def main(argv):
    if len(argv) not in (2, 3):
        fail("usage: pcapng_split.py FILE.pcapng [OUTDIR]")
    data = open(argv[1], "rb").read()
    endian, off = "<", 0
    ifaces = []  # [name, linktype, tsresol divisor, [(ts_us, caplen, len, bytes)], hardware]
    while off + 12 <= len(data):
        btype = struct.unpack_from("<I", data, off)[0]
        if btype == SHB:
            magic = struct.unpack_from("<I", data, off + 8)[0]
            endian = "<" if magic == BYTE_ORDER_MAGIC else ">"
            ifaces = []  # interface ids restart in every section
        btype, blen = struct.unpack_from(endian + "II", data, off)
        if blen < 12 or off + blen > len(data):
            fail("block at offset %d: bad length %d" % (off, blen))
        body = data[off + 8:off + blen - 4]
        if btype == IDB:
            linktype = struct.unpack_from(endian + "H", body, 0)[0]
            name, hw, div = "if%d" % len(ifaces), "-", 1000000
            for code, val in options(body[8:], endian):
                if code == 2:
                    name = val.split(b"\0")[0].decode(errors="replace")
                elif code == 15:
                    hw = val.split(b"\0")[0].decode(errors="replace")
                elif code == 9 and val:
                    r = val[0]
                    div = 2 ** (r & 0x7F) if r & 0x80 else 10 ** r
            ifaces.append([name, linktype, div, [], hw])
        elif btype == EPB:
            iface, hi, lo, caplen, wlen = struct.unpack_from(endian + "IIIII", body, 0)
            if iface >= len(ifaces):
                fail("packet of undeclared interface %d" % iface)
            ts = (hi << 32 | lo) * 1000000 // ifaces[iface][2]
            ifaces[iface][3].append((ts, caplen, wlen, body[20:20 + caplen]))
        elif btype == SPB:
            if not ifaces:
                fail("simple packet block before any interface")
            wlen = struct.unpack_from(endian + "I", body, 0)[0]
            pkt = body[4:4 + wlen]
            ifaces[0][3].append((0, len(pkt), wlen, pkt))
        off += blen
    if off != len(data):
        fail("%d bytes of garbage at the end" % (len(data) - off))
    for name, linktype, _, pkts, hw in ifaces:
        print("%s %s %d" % (name, hw, len(pkts)))
        if len(argv) == 3:
            with open(os.path.join(argv[2], name.replace(":", "_") + ".pcap"), "wb") as out:
                out.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, linktype))
                for ts, caplen, wlen, pkt in pkts:
                    # DPDK 22.11's timestamps can lie beyond 2106: keep the low 32 bits
                    out.write(struct.pack("<IIII", (ts // 1000000) & 0xFFFFFFFF, ts % 1000000,
                                          caplen, wlen))
                    out.write(pkt)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
