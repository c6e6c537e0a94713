# SPDX-License-Identifier: BSD-3-Clause
"""Inputs of one benchmark run: the looping capture, its flows, and one rule set written in
the three syntaxes that read it (mpe, dpdk-test-acl, l3fwd --lookup=acl), plus the trace of
the capture's flows that dpdk-test-acl classifies.

The rule set (RULES rules, IPv4):
  - one exact 5-tuple "count" rule for each of the first flows of the capture (up to half
    the set), so that the lookups the engine does are real matches;
  - "drop" rules on 172.16.0.0/12 hosts and port ranges that no packet of the capture
    matches, filling the set up to RULES - 1;
  - a last catch-all "allow" rule of the lowest priority.
No packet is dropped by a rule, so every implementation forwards all it receives.
For l3fwd, whose '@' rules deny and 'R' rules route, the drop rules become '@' lines and
the count and allow rules become 'R' routes to port 1: the same RULES entries in one ACL
context. dpdk-test-acl reads the same lines without action (priority is file order, so they
are written highest priority first).
"""
import random
import socket
import struct
import subprocess

from procs import BenchError

RULES = 1000


def make_pcap(pcapgen, path, packets, flows, seed=7):
    """IPv4 only (l3fwd's ACL lookup and dpdk-test-acl's trace read IPv4 here), 64..512 bytes."""
    cmd = [pcapgen, "-o", path, "-n", str(packets), "-f", str(flows), "--ipv6", "0",
           "--sizes", "64,128,512", "--seed", str(seed)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError("mpe-pcapgen failed: %s" % (r.stderr.strip() or r.stdout.strip()))


def read_flows(path):
    """Distinct IPv4 5-tuples (src, dst, sport, dport, proto) of a capture, in first-seen
    order; addresses as 32-bit host-order integers."""
    flows = {}
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24:
            raise BenchError("%s: not a capture" % path)
        magic = struct.unpack("<I", head[:4])[0]
        end = "<" if magic in (0xa1b2c3d4, 0xa1b23c4d) else ">"
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            incl = struct.unpack(end + "IIII", rec)[2]
            frame = f.read(incl)
            off = 12
            ethertype = struct.unpack("!H", frame[off:off + 2])[0]
            while ethertype in (0x8100, 0x88a8):
                off += 4
                ethertype = struct.unpack("!H", frame[off:off + 2])[0]
            ip = off + 2
            if ethertype != 0x0800 or len(frame) < ip + 20:
                continue
            ihl = (frame[ip] & 0x0f) * 4
            proto = frame[ip + 9]
            src, dst = struct.unpack("!II", frame[ip + 12:ip + 20])
            sport = dport = 0
            if proto in (6, 17, 132) and len(frame) >= ip + ihl + 4:
                sport, dport = struct.unpack("!HH", frame[ip + ihl:ip + ihl + 4])
            flows.setdefault((src, dst, sport, dport, proto), None)
    return list(flows)


def _ip(v):
    return socket.inet_ntoa(struct.pack("!I", v))


def rule_set(flows, n=RULES, seed=11):
    """[(src, slen, dst, dlen, sp_lo, sp_hi, dp_lo, dp_hi, proto, pmask, action, prio)],
    highest priority first."""
    rng = random.Random(seed)
    rules = []
    exact = flows[:n // 2]
    for i, (s, d, sp, dp, pr) in enumerate(exact):
        rules.append((s, 32, d, 32, sp, sp, dp, dp, pr, 0xff, "count", 100000 - i))
    base = 0xac100000  # 172.16.0.0/12: never in the capture (10.0.0.0/8)
    while len(rules) < n - 1:
        i = len(rules)
        src = base | rng.randrange(1 << 20)
        slen = rng.choice((32, 28, 24, 20))
        src &= (0xffffffff << (32 - slen)) & 0xffffffff
        lo = rng.randrange(0, 60000)
        rules.append((src, slen, 0, rng.choice((0, 8, 16)), 0, 65535, lo,
                      lo + rng.randrange(0, 5000), rng.choice((6, 17)), 0xff, "drop",
                      50000 - i))
    rules.append((0, 0, 0, 0, 0, 65535, 0, 65535, 0, 0, "allow", 1))
    return rules


def _five(r):
    s, sl, d, dl, spl, sph, dpl, dph, pr, pm = r[:10]
    return "%s/%d %s/%d %d : %d %d : %d %d/0x%02x" % (_ip(s), sl, _ip(d), dl, spl, sph, dpl,
                                                      dph, pr, pm)


def write_rules(rules, mpe_path, testacl_path, l3fwd4_path, l3fwd6_path):
    with open(mpe_path, "w") as f:
        f.write("# mpe-bench: %d rules, l3fwd ACL syntax + action + priority\n" % len(rules))
        for r in rules:
            f.write("@%s %s %d\n" % (_five(r), r[10], r[11]))
    with open(testacl_path, "w") as f:
        f.write("# mpe-bench: the same rules for dpdk-test-acl, highest priority first\n")
        for r in rules:
            f.write("@%s\n" % _five(r))
    with open(l3fwd4_path, "w") as f:
        f.write("# mpe-bench: the same rules for l3fwd --lookup=acl: drop = '@', "
                "count/allow = route to port 1\n")
        for r in rules:
            if r[10] == "drop":
                f.write("@%s\n" % _five(r))
            else:
                f.write("R%s 1\n" % _five(r))
    with open(l3fwd6_path, "w") as f:
        f.write("# mpe-bench: l3fwd needs an IPv6 file too; the capture has no IPv6\n")
        f.write("R0:0:0:0:0:0:0:0/0 0:0:0:0:0:0:0:0/0 0 : 65535 0 : 65535 0x00/0x00 1\n")


def write_trace(flows, path):
    """dpdk-test-acl's trace: one 5-tuple a line, numbers in C syntax."""
    with open(path, "w") as f:
        for s, d, sp, dp, pr in flows:
            f.write("0x%08x 0x%08x %d %d %d\n" % (s, d, sp, dp, pr))
