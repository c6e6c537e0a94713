# SPDX-License-Identifier: BSD-3-Clause
"""DPDK processes of one benchmark run: start, stop, clean up, read.

Every process started here runs with --no-pci (vdevs only) and a file prefix of its own
("mpeb_<tool pid>_<n>"), in a session of its own so that a Ctrl-C reaches only the tool.
A Group owns the processes of one prefix; Group.close() ends them by pid (SIGINT, then
SIGKILL), then removes the prefix's hugepage files and runtime directory. close_all() does
that for every group still open and runs from a finally block and from the signal handlers.
"""
import json
import os
import signal
import socket
import subprocess
import time

HUGEDIR = os.environ.get("MPE_HUGEDIR", "/dev/hugepages")
RUNDIR = "/var/run/dpdk"

_groups = []
_seq = [0]


class BenchError(Exception):
    """A step of the benchmark failed; the message says which and why."""


def new_prefix():
    _seq[0] += 1
    return "mpeb_%d_%d" % (os.getpid(), _seq[0])


def alive(pid):
    """A process that exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return st not in ("Z", "X")


def rss_kib(pid):
    """VmRSS and HugetlbPages of @pid in KiB (hugetlbfs pages are not part of VmRSS)."""
    out = {"rss": None, "huge": None}
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    out["rss"] = int(line.split()[1])
                elif line.startswith("HugetlbPages:"):
                    out["huge"] = int(line.split()[1])
    except OSError:
        pass
    return out


def _prefix_pids(prefix):
    """Pids whose command line carries this file prefix (workers may rename themselves, so
    the callers also track the pids they were told about)."""
    pids = []
    needle = ("--file-prefix=%s" % prefix, "--file-prefix\0%s\0" % prefix)
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d) as f:
                cmd = f.read()
        except OSError:
            continue
        if needle[0] + "\0" in cmd or needle[1] in cmd:
            pids.append(int(d))
    return pids


class Group:
    """The processes of one file prefix."""

    def __init__(self, workdir, tag):
        self.prefix = new_prefix()
        self.workdir = workdir
        self.tag = tag
        self.procs = []     # (name, Popen)
        self.extra = set()  # pids learnt otherwise (spawned workers)
        self.closed = False
        _groups.append(self)

    def eal(self, lcores, vdevs, secondary=False):
        args = ["--no-pci", "--file-prefix=%s" % self.prefix, "--lcores", lcores,
                "--log-level=lib.eal:warning"]
        if secondary:
            args.append("--proc-type=secondary")
        for v in vdevs:
            args += ["--vdev", v]
        return args

    def start(self, name, argv, stdin=None):
        log = open(os.path.join(self.workdir, "%s.%s.log" % (self.prefix, name)), "w")
        try:
            # line-buffered stdout (stdbuf execs the program: same pid), so that the lines
            # waited for reach the log when they are printed
            p = subprocess.Popen(["stdbuf", "-oL"] + argv, stdout=log, stderr=subprocess.STDOUT,
                                 stdin=stdin if stdin is not None else subprocess.DEVNULL,
                                 start_new_session=True)
        except OSError as e:
            raise BenchError("%s: cannot start %s: %s" % (self.tag, argv[0], e))
        finally:
            log.close()
        p.bench_log = log.name
        p.bench_argv = argv
        self.procs.append((name, p))
        return p

    def log_text(self, p):
        try:
            with open(p.bench_log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def wait_log(self, p, text, timeout):
        """Wait until @text shows in @p's log; BenchError when @p dies or time runs out."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            log = self.log_text(p)
            if text in log:
                return log
            if p.poll() is not None:
                raise BenchError("%s: %s exited with status %s before '%s'; last lines:\n%s"
                                 % (self.tag, os.path.basename(p.bench_argv[0]),
                                    p.returncode, text, tail(log)))
            time.sleep(0.05)
        raise BenchError("%s: no '%s' from %s within %d s; last lines:\n%s"
                         % (self.tag, text, os.path.basename(p.bench_argv[0]), timeout,
                            tail(self.log_text(p))))

    def check_alive(self):
        for name, p in self.procs:
            if p.poll() is not None:
                raise BenchError("%s: %s exited with status %s during the measurement; "
                                 "last lines:\n%s" % (self.tag, name, p.returncode,
                                                      tail(self.log_text(p))))

    def pids(self):
        pids = {p.pid for _, p in self.procs if p.poll() is None}
        pids |= {pid for pid in self.extra if alive(pid)}
        pids |= set(_prefix_pids(self.prefix))
        return sorted(pid for pid in pids if alive(pid))

    def stop(self, timeout=20.0):
        """SIGINT to every process this group started, in reverse order (secondaries
        first), and wait; returns nothing, close() ends whatever is left."""
        for _, p in reversed(self.procs):
            if p.poll() is None:
                try:
                    p.send_signal(signal.SIGINT)
                except OSError:
                    pass
            end = time.monotonic() + timeout
            while p.poll() is None and time.monotonic() < end:
                time.sleep(0.05)

    def close(self):
        if self.closed:
            return
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for _, p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        end = time.monotonic() + 10
        while any(alive(pid) for pid in self.extra) and time.monotonic() < end:
            time.sleep(0.05)
        try:
            for f in os.listdir(HUGEDIR):
                if f.startswith(self.prefix + "map_") or f == self.prefix:
                    os.unlink(os.path.join(HUGEDIR, f))
        except OSError:
            pass
        rundir = os.path.join(RUNDIR, self.prefix)
        if os.path.isdir(rundir):
            for root, dirs, files in os.walk(rundir, topdown=False):
                for f in files:
                    try:
                        os.unlink(os.path.join(root, f))
                    except OSError:
                        pass
                for d in dirs:
                    try:
                        os.rmdir(os.path.join(root, d))
                    except OSError:
                        pass
            try:
                os.rmdir(rundir)
            except OSError:
                pass
        self.closed = True
        if self in _groups:
            _groups.remove(self)


def close_all():
    for g in list(_groups):
        g.close()


def tail(text, n=15):
    return "\n".join(text.rstrip().splitlines()[-n:])


class Telemetry:
    """A client of DPDK's telemetry socket (v2) of one file prefix."""

    def __init__(self, prefix, timeout=10.0):
        path = os.path.join(RUNDIR, prefix, "dpdk_telemetry.v2")
        end = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.sock.settimeout(5.0)
                self.sock.connect(path)
                break
            except OSError as e:
                self.sock.close()
                if time.monotonic() > end:
                    raise BenchError("%s: no telemetry: %s" % (path, e))
                time.sleep(0.1)
        hello = json.loads(self.sock.recv(4096).decode())
        self.bufsize = int(hello.get("max_output_len", 16384))

    def get(self, cmd):
        try:
            self.sock.send(cmd.encode())
            raw = self.sock.recv(self.bufsize)
        except OSError as e:  # the program died, or stopped answering
            raise BenchError("telemetry %s: %s" % (cmd, e))
        try:
            val = json.loads(raw.decode())[cmd.split(",", 1)[0]]
        except (ValueError, KeyError) as e:
            raise BenchError("telemetry %s: bad reply (%s): %r" % (cmd, e, raw[:200]))
        if val is None:
            raise BenchError("telemetry %s: no such command or it failed" % cmd)
        return val

    def workers(self):
        """/mpe/workers with every page (the engine sends a few workers per reply; "next"
        says where the following page starts)."""
        v = self.get("/mpe/workers")
        while isinstance(v.get("next"), int):
            first = v.pop("next")
            more = self.get("/mpe/workers,from=%d" % first)
            if str(first) not in more or more.get("next", first + 1) <= first:
                raise BenchError("telemetry /mpe/workers,from=%d: not the page announced"
                                 % first)
            v.update(more)
        return v

    def close(self):
        self.sock.close()


def install_signal_handlers():
    """SIGINT and SIGTERM end the run: KeyboardInterrupt unwinds to the finally blocks."""
    def handler(sig, frame):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)
