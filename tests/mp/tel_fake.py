#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A stand-in for a DPDK telemetry server (v2), for testing mpe-ctl without an engine.

Usage: tel_fake.py MODE RUNDIR PREFIX
Serves RUNDIR/dpdk/PREFIX/dpdk_telemetry.v2 (the path the EAL uses when RUNTIME_DIRECTORY is
RUNDIR) one client after another until killed. MODE:
  other     a DPDK application without /mpe/ commands
  big       every /mpe/ reply is larger than a client may take
  garbage   every /mpe/ reply is not JSON
  old       an engine from before /mpe/acl, /mpe/flows, /mpe/reload, /mpe/dump: /mpe/workers
            ignores its parameter
  contract  every command as the engine answers it, with fixed values: /mpe/acl in pages of
            one rule, /mpe/workers in pages of one worker, /mpe/flows,<worker> (worker 1 has
            no flow table), /mpe/reload[,FILE], /mpe/workers,<id>, and /mpe/dump as its
            contract says (the engine lacks it yet); /mpe/info says 3 workers, the other commands know 2, so that a worker id can pass
            the client's check and still get no answer
  reloading as contract, but the rules are reloaded (generation 3 to 4) right after a
            client's first /mpe/acl request
  shrinking as reloading, but generation 4 has one rule only: the second page, asked for by
            the first, lies past its end and has no rules (as the engine answers)
  pageloop  as contract, but /mpe/workers,from=1 answers the first page again
"""
import json
import os
import socket
import sys

MAX_OUTPUT_LEN = 16384
BASE = ["/", "/help", "/info", "/ethdev/list", "/eal/params"]
MPE = ["/mpe/config", "/mpe/info", "/mpe/rings", "/mpe/stats", "/mpe/workers"]
MPE_NEW = ["/mpe/acl", "/mpe/dump", "/mpe/flows", "/mpe/reload"]
DROPS = ["ring_full", "tx_full", "no_mbuf", "verdict", "no_route", "shutdown", "worker_died",
         "worker_down", "quarantine"]


def drops(**nonzero):
    return {r: nonzero.get(r, 0) for r in DROPS}


def worker(wid, rx):
    return {"pid": 4000 + wid, "lcore": 2 + wid, "state": "running", "heartbeat": 99,
            "heartbeat_age_ms": 1, "rx": rx, "tx": rx - 5, "polls": 4 * rx, "bursts": rx // 2,
            "wait_cycles": 1500000000 * (wid + 1), "drops": drops(verdict=5),
            "restarts": 0, "lost": 0, "last_cause": "", "last_recover_ms": 0, "down": 0,
            "dead": 0, "cycles_per_packet": 300,
            "stages": {"parse": {"packets": rx, "cycles_per_packet": 200},
                       "acl": {"packets": rx, "cycles_per_packet": 90}}}


def flow(proto, a, b, pkts, nbytes, flags, first, last):
    return {"proto": proto, "a": a, "b": b, "packets_ab": pkts[0], "packets_ba": pkts[1],
            "bytes_ab": nbytes[0], "bytes_ba": nbytes[1], "tcp_flags_ab": flags[0],
            "tcp_flags_ba": flags[1], "first_ms": first, "last_ms": last}


def flows(wid):
    if wid == 1:
        return {"worker": 1, "capacity": 0}
    # not sorted by bytes: the client sorts
    return {"worker": wid, "capacity": 65536, "active": 3, "inserted": 10, "expired": 7,
            "full": 0, "lookups": 99, "cache_hits": 80, "resets": 0, "top": {
                "0": flow(17, "10.0.0.1:53", "10.9.0.1:5353", [2, 2], [200, 300], ["", ""],
                          100, 600),
                "1": flow(6, "10.0.0.2:1234", "10.9.0.2:80", [10, 8], [9000, 700],
                          ["SA", "A"], 0, 2500),
                "2": flow(47, "10.0.0.3:0", "10.9.0.3:0", [1, 0], [64, 0], ["", ""], 10, 10)}}


RULES = [{"line": 3, "priority": 10, "action": "drop", "hits": 42,
          "rule": "@10.0.0.0/8 0.0.0.0/0 0 : 65535 80 : 80 6/0xff"},
         {"line": 4, "priority": 5, "action": "count", "hits": 5,
          "rule": "@0.0.0.0/0 0.0.0.0/0 0 : 65535 0 : 65535 17/0xff"}]


def contract(cmd, param, rundir, prefix, generation=3, rules=RULES):
    if cmd == "/mpe/info":
        return {"version": "fake", "model": "process", "shape": "distributor", "workers": 3,
                "io_lcore": 1, "lcores": [2, 3, 4], "uptime_s": 5, "primary_pid": os.getpid(),
                "tsc_hz": 3000000000}
    if cmd == "/mpe/stats":
        return {"in": 300, "out": 290, "dropped": 10, "drops": drops(verdict=10),
                "io": {"polls": 1000, "moved": 290, "cycles": 600000000, "full_polls": 600,
                       "wait_cycles": 300000000},
                "ports": {"0": {"device": "net_pcap0", "rx": 300, "tx": 0},
                          "1": {"device": "net_null1", "rx": 0, "tx": 290}}}
    if cmd == "/mpe/workers":  # one worker per page
        if param is None:
            return {"0": worker(0, 100), "next": 1}
        if param == "from=1":
            return {"1": worker(1, 200)}
        if param not in ("0", "1"):
            return None
        w = {"id": int(param), **worker(int(param), 100 * (int(param) + 1))}
        w["malformed"] = {"bad_ihl": 1, "truncated": 2}
        w["inspect"] = {"acl_lookups": 7, "acl_cached": 93}
        return w
    if cmd == "/mpe/rings":
        return {"mpe_io_w0": {"count": 1, "capacity": 1023, "free": 1022}}
    if cmd == "/mpe/config":
        return "[engine]\nshape = distributor\n"
    if cmd == "/mpe/acl":  # one rule per page
        first = int(param) if param else 0
        v = {"generation": generation, "file": "/etc/mpe/rules.acl", "nb_rules": len(rules),
             "default_action": "allow", "default_hits": 7, "reloads": 2, "reload_errors": 1,
             "retired_pending": 0,
             "rules": {str(first): rules[first]} if first < len(rules) else {},
             "retired_files": ["/etc/mpe/rules.acl"], "retired_packets": [1000]}
        if first + 1 < len(rules):
            v["next"] = first + 1
        return v
    if cmd == "/mpe/flows":
        return flows(int(param)) if param in ("0", "1") else None
    if cmd == "/mpe/reload":
        if param is not None and param.endswith("bad.rules"):
            return {"ok": 0, "errors": ["%s:3: bad address '10.0.0/33'" % param,
                                        "%s:7: unknown action 'dorp'" % param]}
        return {"ok": 1, "generation": 4, "rules": 2, "file": param or "/etc/mpe/rules.acl"}
    if cmd == "/mpe/dump":
        path = os.path.join(rundir, "dpdk", prefix, "mpe-dump-1.txt")
        with open(path, "w") as f:
            f.write("fake dump\n")
        return {"path": path}
    return None


def serve(conn, mode, rundir, prefix):
    conn.send(json.dumps({"version": "DPDK 22.11.fake", "pid": os.getpid(),
                          "max_output_len": MAX_OUTPUT_LEN}).encode())
    commands = BASE + (MPE if mode != "other" else []) + \
        (MPE_NEW if mode in ("contract", "reloading", "shrinking", "pageloop") else [])
    if mode == "old":
        mode = "contract"  # with the commands of an old engine
    acl_requests = 0
    while True:
        req = conn.recv(1024).decode()
        if not req:
            return
        cmd, _, param = req.partition(",")
        param = param if "," in req else None
        if cmd == "/":
            value = sorted(commands)
        elif cmd == "/info":
            value = {"version": "DPDK 22.11.fake", "pid": os.getpid(),
                     "max_output_len": MAX_OUTPUT_LEN}
        elif cmd not in commands:
            value = None
        elif mode == "big":
            value = {"x%d" % i: "y" * 100 for i in range(1000)}
        elif mode == "garbage":
            conn.send(b'{"' + cmd.encode() + b'": {"in": 1,')
            continue
        else:
            acl_requests += cmd == "/mpe/acl"
            reloaded = mode in ("reloading", "shrinking") and acl_requests > 1
            value = contract(cmd, param, rundir, prefix, 4 if reloaded else 3,
                             RULES[:1] if reloaded and mode == "shrinking" else RULES)
            if cmd == "/mpe/workers" and "/mpe/acl" not in commands:
                value = {"0": worker(0, 100), "1": worker(1, 200)}
            elif cmd == "/mpe/workers" and mode == "pageloop" and param == "from=1":
                value = {"0": worker(0, 100), "next": 1}
        conn.send(json.dumps({cmd: value}).encode())


def main(argv):
    mode, rundir, prefix = argv[1], argv[2], argv[3]
    path = os.path.join(rundir, "dpdk", prefix, "dpdk_telemetry.v2")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    srv.bind(path + ".tmp")
    srv.listen(4)
    os.rename(path + ".tmp", path)  # appears when it accepts
    while True:
        conn, _ = srv.accept()
        try:
            serve(conn, mode, rundir, prefix)
        except OSError:
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
