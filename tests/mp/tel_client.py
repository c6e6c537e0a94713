#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A minimal client of DPDK's telemetry socket (v2), standard library only.

Usage: tel_client.py PREFIX COMMAND[,PARAMS]     e.g. tel_client.py mpe /mpe/workers
Prints the JSON of the reply's value (the reply is {COMMAND: VALUE}). Exits 1 with a message
on stderr when no engine serves the socket, 2 on bad usage, 3 on a bad reply.
"""
import json
import os
import socket
import sys

RUNTIME_DIR = os.environ.get("MPE_DPDK_RUNTIME", "/var/run/dpdk")
TIMEOUT_S = 5.0


def fail(code, msg):
    print("tel_client: " + msg, file=sys.stderr)
    sys.exit(code)


def main(argv):
    if len(argv) != 3:
        fail(2, "usage: tel_client.py PREFIX COMMAND[,PARAMS] (for example: /mpe/workers)")
    prefix, cmd = argv[1], argv[2]
    path = os.path.join(RUNTIME_DIR, prefix, "dpdk_telemetry.v2")
    if not os.path.exists(path):
        fail(1, "%s: no such socket: no DPDK primary runs with --file-prefix %s "
             "(or it runs with --no-telemetry)" % (path, prefix))
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    sock.settimeout(TIMEOUT_S)
    try:
        sock.connect(path)
    except OSError as e:
        fail(1, "%s: cannot connect: %s: the primary of prefix %s is gone" %
             (path, e.strerror or e, prefix))
    try:
        # the greeting: {"version": ..., "pid": ..., "max_output_len": N}
        greeting = json.loads(sock.recv(4096).decode())
        bufsize = int(greeting.get("max_output_len", 16384))
        sock.send(cmd.encode())
        raw = sock.recv(bufsize)
    except socket.timeout:
        fail(1, "%s: no answer within %.0f s" % (path, TIMEOUT_S))
    except (OSError, ValueError) as e:
        fail(3, "%s: bad exchange: %s" % (path, e))
    finally:
        sock.close()
    if not raw:
        fail(3, "%s: the server closed the connection without answering %s" % (path, cmd))
    try:
        reply = json.loads(raw.decode())
    except ValueError as e:
        fail(3, "reply to %s is not JSON (%s): %r" % (cmd, e, raw[:200]))
    # the reply is keyed by the command without its parameters ("/help,/mpe/info": "/help")
    key = cmd.split(",", 1)[0]
    if not isinstance(reply, dict) or key not in reply:
        fail(3, "reply to %s does not hold the command: %r" % (cmd, raw[:200]))
    if reply[key] is None:
        # what DPDK answers for an unknown command, or when the command's callback failed
        fail(3, "%s: unknown command, or it failed in the engine (see its log); "
             "/ lists the commands" % cmd)
    print(json.dumps(reply[key], indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
