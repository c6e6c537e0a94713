# SPDX-License-Identifier: BSD-3-Clause
"""Test frames for the mp tests' captures, standard library only: Ethernet, IPv4, then UDP
(or TCP), and classic pcap files of them. Import with PYTHONPATH=$MPDIR (lib.sh)."""
import struct


def csum(b):
    """The Internet checksum of @b (an even number of bytes)."""
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    s = (s >> 16) + (s & 0xffff)
    return ~(s + (s >> 16)) & 0xffff


def frame(src, sport, dport, payload, proto=17):
    """A frame from @src (10.0.0.@src, or 4 address bytes) to 10.0.1.1, UDP (@proto 17) or TCP
    (6), padded to 60 bytes."""
    if proto == 17:
        l4 = struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload
    else:
        l4 = struct.pack("!HHIIBBHHH", sport, dport, 1, 0, 0x50, 0x18, 1024, 0, 0) + payload
    addr = bytes([10, 0, 0, src]) if isinstance(src, int) else bytes(src)
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, 0, 64, proto, 0, addr,
                     bytes([10, 0, 1, 1]))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    f = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + ip + l4
    return f + b"\0" * max(0, 60 - len(f))


def pcap(path, frames):
    """@frames into a classic pcap at @path, one microsecond apart."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i // 1000000, i % 1000000, len(fr), len(fr)) + fr)
