# SPDX-License-Identifier: BSD-3-Clause
"""One measurement each: the engine (either build) and every reference program.

Every rate is measured the same way, whatever runs: start, wait until it forwards, let it
warm up, read the sink port's transmitted packets (DPDK telemetry /ethdev/stats) twice,
`duration` seconds apart by the tool's monotonic clock, and divide. The engine's own
counters (/mpe/stats, /mpe/workers) are read at the same two moments. Resident memory is
read from /proc at the second moment, for every process of the run.

Lcores, on a machine of two CPUs (CPU 0 and 1): every datapath lcore the engine or a
reference polls is placed the same way -- the first one on CPU 0, the second one on CPU 1 --
and each main lcore, which only supervises, on CPU 1.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time

from procs import BenchError, Group, Telemetry, alive, rss_kib

NCPU = os.cpu_count() or 1


def cpu(n):
    return n % NCPU


def line_rtt_ns(costs):
    """Round trip in ns of a cache line between cpu(0) and cpu(1), by @costs (mpe-costs
    switch, run on those two CPUs only); None where it cannot say."""
    if costs is None or NCPU < 2:
        return None
    pair = {cpu(0), cpu(1)}
    try:
        r = subprocess.run([costs, "switch", "-r", "1", "-k", "1000", "-t", "10", "--json"],
                           capture_output=True, text=True, timeout=30,
                           preexec_fn=lambda: os.sched_setaffinity(0, pair))
        rows = json.loads(r.stdout)["modes"]["switch"]["rows"]
        row = next(x for x in rows if x["key"] == "line_threads_2cpu")
        return float(row["median"]) if row.get("measured") else None
    except (OSError, ValueError, KeyError, StopIteration, subprocess.TimeoutExpired):
        return None


def null_vdevs():
    return ["net_null0", "net_null1"]


def pcap_vdevs(pcap):
    # port 1 is the sink: it transmits and never produces packets
    return ["net_pcap0,rx_pcap=%s,infinite_rx=1" % pcap, "net_null1,no-rx=1"]


def vdevs_of(source, inputs):
    return null_vdevs() if source == "null" else pcap_vdevs(inputs["pcap"])


def sink_ports(source):
    """Ports whose transmitted packets are the sink's rate: both null ports forward to each
    other; with a capture only port 1 transmits."""
    return [0, 1] if source == "null" else [1]


def switches(pids):
    """How many times the threads of @pids were taken off their CPU while still runnable
    (nonvoluntary context switches, from /proc): a lcore that gives its CPU to another one
    with sched_yield(), or is preempted. A lcore that sleeps (voluntary switches) is not
    counted: the main lcore and the control thread do that."""
    n = 0
    for pid in pids:
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:  # gone meanwhile
            continue
        for tid in tids:
            try:
                with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                    for line in f:
                        if line.startswith("nonvoluntary_ctxt_switches:"):
                            n += int(line.split()[1])
            except (OSError, ValueError):
                continue
    return n


def sample(tel, ports, mpe=False, pids=None):
    s = {"t": time.monotonic(), "tx": 0, "rx": 0}
    if pids is not None:
        s["switches"] = switches(pids)
    for p in ports:
        st = tel.get("/ethdev/stats,%d" % p)
        s["tx"] += st["opackets"]
    for p in (0, 1):
        s["rx"] += tel.get("/ethdev/stats,%d" % p)["ipackets"]
    if mpe:
        s["stats"] = tel.get("/mpe/stats")
        s["workers"] = tel.workers()
        # each worker's busy cycles are in its detail only (the page has no room for them)
        for wid, w in s["workers"].items():
            c = tel.get("/mpe/workers,%s" % wid).get("cycles")
            if c is not None:
                w["cycles"] = c
    s["t_end"] = time.monotonic()
    return s


def memory(roles):
    """[(role, pid, VmRSS KiB, HugetlbPages KiB)] and the VmRSS total."""
    out = []
    for role, pid in roles:
        m = rss_kib(pid)
        out.append((role, pid, m["rss"], m["huge"]))
    total = sum(r[2] or 0 for r in out)
    return out, total


def measure(group, tel, ports, warmup, duration, mpe=False, pids=None):
    """The rates over @duration seconds after @warmup; with @pids, also how often their
    threads gave up their CPU (switches_ps, see switches())."""
    time.sleep(warmup)
    group.check_alive()
    s0 = sample(tel, ports, mpe, pids)
    time.sleep(duration)
    s1 = sample(tel, ports, mpe, pids)
    group.check_alive()
    dt = s1["t"] - s0["t"]
    res = {"sink_pps": (s1["tx"] - s0["tx"]) / dt, "rx_pps": (s1["rx"] - s0["rx"]) / dt,
           "seconds": dt}
    if pids is not None:
        res["switches_ps"] = (s1["switches"] - s0["switches"]) / dt
    return res, s0, s1


def mpe_config(case, inputs):
    """The engine's INI for one case."""
    lines = ["; written by mpe-bench for case %s" % case["name"], "[engine]",
             "shape = %s" % case["shape"]]
    if case.get("io", 1) == 1:
        lines.append("io_lcore = 1")
    for k, v in case.get("engine_keys", {}).items():
        lines.append("%s = %s" % (k, v.format(**inputs)))
    if case["source"] == "null":
        lines += ["", "[port 0]", "device = net_null0", "peer = 1",
                  "", "[port 1]", "device = net_null1", "peer = 0"]
    else:
        lines += ["", "[port 0]", "device = net_pcap0", "peer = 1",
                  "", "[port 1]", "device = net_null1", "peer = 0", "rx = off"]
    for w, stages in enumerate(case["workers"]):
        lines += ["", "[worker %d]" % w, "lcore = %d" % (w + 2), "cpu = %d" % cpu(w),
                  "stages = %s" % ", ".join(stages)]
        if "queues" in case:
            lines.append("queue = %d" % case["queues"][w])
    # several I/O lcores ("io": 2): lcore 1 and IO2_LCORE, the ports' queues dealt out
    if case.get("io", 1) == 2:
        lines += ["", "[io 0]", "lcore = 1", "", "[io 1]", "lcore = %d" % IO2_LCORE]
    return "\n".join(lines) + "\n"


# the second I/O lcore's id: above the workers'; on the CPU of worker 0, as the first is on
# worker 1's
IO2_LCORE = 6


def mpe_lcores(nworkers, nio=1):
    ids = ["0@%d" % cpu(1), "1@%d" % cpu(1)]
    ids += ["%d@%d" % (w + 2, cpu(w)) for w in range(nworkers)]
    if nio == 2:
        ids.append("%d@%d" % (IO2_LCORE, cpu(0)))
    return ",".join(ids)


def _deltas(d0, d1):
    return {k: d1[k] - d0.get(k, 0) for k in d1}


def _stage_cpp(w0, w1):
    """Cycles per packet of each stage of each worker over the window (telemetry gives
    cumulative packets and a rounded cumulative cycles per packet)."""
    out = {}

    def cycles(st):
        return st["cycles"] if "cycles" in st else st["packets"] * st["cycles_per_packet"]

    for wid, w in w1.items():
        # the flight recorder's writes (counted whole) as one more stage, "recorder"
        parts = dict(w.get("stages", {}))
        if "recorder" in w:
            parts["recorder"] = w["recorder"]
        for name, st in parts.items():
            old0 = w0.get(wid, {})
            old = (old0.get("recorder") if name == "recorder" else
                   old0.get("stages", {}).get(name)) or {"packets": 0, "cycles": 0}
            p1, p0 = st["packets"], old["packets"]
            if p1 > p0:
                out["w%s.%s" % (wid, name)] = (cycles(st) - cycles(old)) / (p1 - p0)
    return out


def _core_cpp(s0, s1, shape):
    """Cycles per packet of the polling lcores' busy polls over the window, by tier: {"io":
    the I/O lcores' polls that received or moved packets over the packets they received (or
    moved, where the workers receive), "workers": every worker's polls that found packets
    over the packets that entered the workers (a pipeline's first stage: every stage's work on
    one packet), "w0": worker 0's over what it took, ...}. An engine without these counters
    gives {}."""
    out = {}
    io0, io1 = s0["stats"].get("io") or {}, s1["stats"].get("io") or {}
    if "cycles" in io0 and "cycles" in io1:
        den = (s1["stats"]["in"] - s0["stats"]["in"] if "full_polls" in io1
               else io1["moved"] - io0["moved"])
        if den > 0:
            out["io"] = (io1["cycles"] - io0["cycles"]) / den
    cyc = pkts = 0
    for wid, w1 in sorted(s1["workers"].items()):
        w0 = s0["workers"].get(wid)
        if not w0 or "cycles" not in w1 or "cycles" not in w0:
            continue
        d, n = w1["cycles"] - w0["cycles"], w1["rx"] - w0["rx"]
        if n > 0:
            out["w%s" % wid] = d / n
        cyc += d
        if shape != "pipeline" or wid == "0":
            pkts += n
    if pkts > 0:
        out["workers"] = cyc / pkts
    return out


def _waits(s0, s1, hz):
    """Who waited for whom between two samples: {"io.full": share of the I/O lcore's polls
    that found every ring into the workers full, "io.wait": share of the time it spent in
    them, "w0.found": share of worker 0's polls that found packets, "w0.wait": share of the
    time its polls found none, ...}; the times in TSC cycles of @hz (None: no time shares).
    An engine without these counters gives {}."""
    out = {}
    dt = (s1["t"] - s0["t"]) * hz if hz else 0

    def put(key, a, b, num, den):
        if num not in b or num not in a:
            return
        d = b[num] - a[num]
        if den is None:
            if dt > 0:
                out[key] = d / dt
        elif b[den] - a[den] > 0:
            out[key] = d / (b[den] - a[den])

    io0, io1 = s0["stats"].get("io"), s1["stats"].get("io")
    if io0 and io1:
        put("io.full", io0, io1, "full_polls", "polls")
        put("io.wait", io0, io1, "wait_cycles", None)
    for wid, w1 in sorted(s1["workers"].items()):
        w0 = s0["workers"].get(wid)
        if w0 and "polls" in w1:
            put("w%s.found" % wid, w0, w1, "bursts", "polls")
            put("w%s.wait" % wid, w0, w1, "wait_cycles", None)
    return out


def _start_engine(g, build, case, inputs, workdir):
    """Starts the engine of @build on @case in group @g and waits until it runs: its
    primary's Popen (the worker processes' pids join g.extra)."""
    ini = os.path.join(workdir, "%s.ini" % g.prefix)
    with open(ini, "w") as f:
        f.write(mpe_config(case, inputs))
    argv = [os.path.join(build["dir"], "primary", "mpe-primary")]
    argv += g.eal(mpe_lcores(len(case["workers"]), case.get("io", 1)),
                  vdevs_of(case["source"], inputs))
    argv += ["--", "-c", ini]
    prim = g.start("primary", argv)
    log = g.wait_log(prim, "running:", 60)
    g.extra |= {int(x) for x in re.findall(r"spawned pid (\d+)", log)}
    return prim


def run_mpe(build, case, inputs, workdir, warmup, duration):
    """The engine of @build ({'dir', 'model', 'layout'}) on @case."""
    g = Group(workdir, "%s (%s build, %s counters)" % (case["name"], build["model"],
                                                      build["layout"]))
    try:
        prim = _start_engine(g, build, case, inputs, workdir)
        tel = Telemetry(g.prefix)
        try:
            info = tel.get("/mpe/info")
            res, s0, s1 = measure(g, tel, sink_ports(case["source"]), warmup, duration,
                                  mpe=True, pids=[prim.pid] + sorted(g.extra))
            roles = [("primary", prim.pid)]
            if build["model"] == "process":
                for wid, w in sorted(s1["workers"].items()):
                    if w.get("pid", 0) <= 0:
                        continue  # being spawned (-1) or never started: no process
                    roles.append(("worker %s" % wid, w["pid"]))
                    g.extra.add(w["pid"])
            res["memory"], res["rss_kib"] = memory(roles)
        finally:
            tel.close()
        dt = res["seconds"]
        res["engine_pps"] = (s1["stats"]["out"] - s0["stats"]["out"]) / dt
        res["engine_in_pps"] = (s1["stats"]["in"] - s0["stats"]["in"]) / dt
        res["drops"] = _deltas(s0["stats"]["drops"], s1["stats"]["drops"])
        res["stage_cpp"] = _stage_cpp(s0["workers"], s1["workers"])
        res["waits"] = _waits(s0, s1, info.get("tsc_hz"))
        res["core_cpp"] = _core_cpp(s0, s1, case["shape"])
        res["tsc_hz"] = info.get("tsc_hz")
        g.stop(30)
        return res
    finally:
        g.close()


def _signal(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:  # gone meanwhile
            pass


def _hold(g, prim, sig):
    """SIGSTOP or SIGCONT to every process of one engine. The primary stops first, then the
    workers known, then any other process of its file prefix (a worker respawned a moment
    before), until none is left; on the way back the workers continue first. A primary
    already reaped is left alone."""
    prim_alive = prim.poll() is None
    if sig == signal.SIGSTOP:
        if prim_alive:
            os.kill(prim.pid, sig)
        seen = {pid for pid in g.extra if alive(pid)}
        _signal(seen, sig)
        while True:
            new = [pid for pid in g.pids() if pid != prim.pid and pid not in seen]
            if not new:
                return
            _signal(new, sig)
            seen.update(new)
    _signal([pid for pid in g.pids() if pid != prim.pid], sig)
    if prim_alive:
        os.kill(prim.pid, sig)


# the engine's keys in alternating windows (see mpe_program())
ALT_KEYS = {"stall_timeout_ms": "0"}
# a window is measured from this long after its engine continues
ALT_SETTLE = 0.1


def run_mpe_alternating(builds, case, inputs, workdir, warmup, windows, window,
                        settle=ALT_SETTLE):
    """The engines of @builds (two) started side by side on @case (one configuration, or a
    list of one per build, on the same traffic): run_side_by_side() of the two."""
    cases = case if isinstance(case, list) else [case] * len(builds)
    progs = [mpe_program(b, c, inputs, workdir) for b, c in zip(builds, cases)]
    return run_side_by_side(progs, cases[0]["source"], workdir, warmup, windows, window,
                            settle)


def mpe_program(build, case, inputs, workdir):
    """The engine of @build on @case as a program for run_side_by_side(). Started for
    alternating windows, it waits stopped while the other program starts, warms up and runs:
    its primary must not take its workers for hung (ALT_KEYS), nor give up on them."""
    case = dict(case, engine_keys=dict(case.get("engine_keys", {}), **ALT_KEYS))
    return {"tag": "%s (%s build, alternating windows)" % (case["name"], build["model"]),
            "start": lambda g: _start_engine(g, build, case, inputs, workdir), "mpe": True}


def run_side_by_side(progs, source, workdir, warmup, windows, window, settle=ALT_SETTLE):
    """The programs @progs (two: each {"tag", "start": f(Group) -> its first process's Popen,
    once it forwards, "mpe": whether it is the engine}) started side by side on the same
    traffic @source, only one of them running at any time: each is stopped (SIGSTOP) while
    the other runs, @windows windows of @window seconds each, in the order A B, B A, A B, ...
    after a first turn of @warmup seconds each that is not measured. A window starts @settle
    seconds after its program continues. A slow spell of the host then falls on
    neighbouring windows of both alike; what differs between two starts of a program does
    not cancel out, so one call is one start of each.
    Returns {"rates": [[sink pps of each window] per program], "switches": [[switches() per
    second of each window] per program], "leak": the largest share of its own rate that a
    program transmitted while it was meant to be stopped (near 0 when every process of it
    stopped), "restarts": engine worker restarts seen, "tsc_hz": [the TSC's rate each engine
    gives in /mpe/info, None for a program that is not the engine]}."""
    engines = []
    hz = []
    try:
        for pr in progs:
            g = Group(workdir, pr["tag"])
            engines.append([g, None, None, None])
            prim = pr["start"](g)
            engines[-1][1:3] = [prim, Telemetry(g.prefix)]
            hz.append(engines[-1][2].get("/mpe/info").get("tsc_hz") if pr["mpe"] else None)
            _hold(g, prim, signal.SIGSTOP)
        ports = sink_ports(source)
        rates = [[] for _ in engines]
        switched = [[] for _ in engines]  # switches() per second, window by window
        rate = [0.0 for _ in engines]  # its latest rate: the warm-up's, then its last window's
        leak = 0.0
        for k in range(windows + 1):
            order = list(range(len(engines)))
            for i in (order if k % 2 == 0 else order[::-1]):
                g, prim, tel, last = engines[i]
                cont = time.monotonic()
                _hold(g, prim, signal.SIGCONT)
                back = sample(tel, ports)
                if last is not None and rate[i] > 0 and cont - last["stopped"] > window:
                    # after a stop while the other engine ran (not between its own two
                    # windows in a row): what it sent from its last read to this one, beyond
                    # what its rate gives in the time it may have run (until it was stopped,
                    # and from the SIGCONT to this read), as a share of what it would have
                    # sent had it run while stopped: 0 or less, or near 1 if it never stopped
                    ran = (last["stopped"] - last["t"]) + (back["t_end"] - cont)
                    more = back["tx"] - last["tx"] - rate[i] * ran
                    leak = max(leak, more / (rate[i] * (cont - last["stopped"])))
                time.sleep(warmup if k == 0 else settle)
                g.check_alive()
                if k == 0:
                    s1 = sample(tel, ports)
                    rate[i] = (s1["tx"] - back["tx"]) / (s1["t"] - back["t_end"])
                else:
                    pids = [prim.pid] + sorted(g.extra)
                    s0 = sample(tel, ports, pids=pids)
                    time.sleep(window)
                    s1 = sample(tel, ports, pids=pids)
                    dt = s1["t"] - s0["t"]
                    rates[i].append((s1["tx"] - s0["tx"]) / dt)
                    switched[i].append((s1["switches"] - s0["switches"]) / dt)
                    rate[i] = rates[i][-1]
                _hold(g, prim, signal.SIGSTOP)
                s1["stopped"] = time.monotonic()
                engines[i][3] = s1
        restarts = 0
        for (g, prim, tel, _), pr in zip(engines, progs):
            _hold(g, prim, signal.SIGCONT)
            g.check_alive()
            if pr["mpe"]:
                restarts += sum(w.get("restarts", 0) for w in tel.workers().values())
            tel.close()
            g.stop(30)
        return {"rates": rates, "switches": switched, "leak": leak, "restarts": restarts,
                "tsc_hz": hz}
    finally:
        for g, prim, tel, _ in engines:
            if prim is not None:
                _hold(g, prim, signal.SIGCONT)
            if tel is not None:
                tel.close()
            g.close()


# ---------------------------------------------------------------- references

def _measure_reference(g, source, roles, warmup, duration):
    """The sink rate of a running reference, the resident memory of its @roles
    ([(name, pid)]), then stop it."""
    tel = Telemetry(g.prefix)
    try:
        res, _, _ = measure(g, tel, sink_ports(source), warmup, duration)
        res["memory"], res["rss_kib"] = memory(roles)
    finally:
        tel.close()
    g.stop(10)
    return res

def _start_testpmd(g, mode, cores, source, inputs):
    lcores = ",".join(["0@%d" % cpu(1)] + ["%d@%d" % (c + 2, cpu(c)) for c in range(cores)])
    argv = [shutil.which("dpdk-testpmd") or "dpdk-testpmd"]
    argv += g.eal(lcores, vdevs_of(source, inputs))
    argv += ["--", "--forward-mode=%s" % mode, "--nb-cores=%d" % cores,
             "--rxq=%d" % cores, "--txq=%d" % cores, "--no-mlockall",
             "--total-num-mbufs=16384", "--auto-start"]
    # without -i it forwards until stdin gives it a line: a pipe never written to
    p = g.start("testpmd", argv, stdin=subprocess.PIPE)
    g.wait_log(p, "Press enter to exit", 60)
    return [("testpmd", p.pid)]


def _start_symmetric_mp(g, ex, nprocs):
    """DPDK's symmetric_mp: process k polls queue k of both ports (net_null: its datapath
    works in secondaries)."""
    procs = []
    for k in range(nprocs):
        argv = [ex["symmetric_mp"]]
        argv += g.eal("%d@%d" % (k + 2, cpu(k)), null_vdevs() if k == 0 else [],
                      secondary=k > 0)
        if k == 0:
            argv.append("--proc-type=primary")
        argv += ["--", "-p", "3", "--num-procs=%d" % nprocs, "--proc-id=%d" % k]
        p = g.start("proc%d" % k, argv)
        g.wait_log(p, "using queue", 60)
        procs.append(("proc %d" % k, p.pid))
    return procs


def _start_client_server_mp(g, ex, nclients):
    """DPDK's client_server_mp: the server (primary) receives and hands packets round robin
    to client processes over rings; each client transmits itself (net_null)."""
    argv = [ex["mp_server"]] + g.eal("0@%d" % cpu(1), null_vdevs())
    argv += ["--", "-p", "3", "-n", str(nclients)]
    srv = g.start("server", argv)
    g.wait_log(srv, "Finished Process Init", 60)
    roles = [("server", srv.pid)]
    for c in range(nclients):
        argv = [ex["mp_client"]] + g.eal("%d@%d" % (c + 2, cpu(c)), [], secondary=True)
        argv += ["--", "-n", str(c)]
        p = g.start("client%d" % c, argv)
        g.wait_log(p, "Finished Process Init", 60)
        roles.append(("client %d" % c, p.pid))
    return roles


def _start_l3fwd_acl(g, ex, inputs):
    """l3fwd --lookup=acl on the looping capture, one lcore polling port 0. That lcore is
    its main lcore too: l3fwd opens a transmit queue per lcore and net_pcap has one."""
    argv = [ex["l3fwd"]] + g.eal("2@%d" % cpu(0), pcap_vdevs(inputs["pcap"]))
    argv += ["--", "-p", "0x3", "-P", "--config=(0,0,2)", "--lookup=acl",
             "--rule_ipv4=%s" % inputs["l3fwd_rules4"],
             "--rule_ipv6=%s" % inputs["l3fwd_rules6"], "--parse-ptype"]
    p = g.start("l3fwd", argv)
    g.wait_log(p, "entering main loop on lcore", 60)
    return [("l3fwd", p.pid)]


def reference_start(ref, ex, inputs):
    """How reference @ref (an entry of mpe-bench's REFS that forwards) starts: f(Group) ->
    [(role, pid)] of its processes, the first one its primary, once it forwards."""
    k = ref["kind"]
    if k == "testpmd":
        return lambda g: _start_testpmd(g, ref["mode"], ref["cores"], ref["source"], inputs)
    if ex is None:
        raise BenchError("DPDK's examples are not built")
    if k == "symmetric_mp":
        return lambda g: _start_symmetric_mp(g, ex, ref["n"])
    if k == "client_server_mp":
        return lambda g: _start_client_server_mp(g, ex, ref["n"])
    if k == "l3fwd":
        return lambda g: _start_l3fwd_acl(g, ex, inputs)
    raise BenchError("reference %s does not forward packets" % ref["name"])


def run_reference(ref, ex, inputs, workdir, warmup, duration):
    """One run of forwarding reference @ref: its rate and the memory of its processes."""
    start = reference_start(ref, ex, inputs)
    g = Group(workdir, ref["name"])
    try:
        return _measure_reference(g, ref["source"], start(g), warmup, duration)
    finally:
        g.close()


def reference_program(ref, ex, inputs):
    """Reference @ref as a program for run_side_by_side()."""
    start = reference_start(ref, ex, inputs)

    def go(g):
        roles = start(g)
        g.extra |= {pid for _, pid in roles[1:]}
        return next(p for _, p in g.procs if p.pid == roles[0][1])
    return {"tag": "%s (alternating windows)" % ref["name"], "start": go, "mpe": False}


def run_test_acl(inputs, workdir, iters):
    """dpdk-test-acl on the same rules and a trace of the capture's flows: cycles/packet."""
    g = Group(workdir, "dpdk-test-acl")
    try:
        argv = [shutil.which("dpdk-test-acl") or "dpdk-test-acl"]
        argv += g.eal("0@%d" % cpu(0), []) + ["-m", "128"]
        argv += ["--", "--rulesf=%s" % inputs["testacl_rules"],
                 "--tracef=%s" % inputs["trace"], "--rulenum=%d" % inputs["nrules"],
                 "--iter=%d" % iters, "--verbose=0"]
        p = g.start("test-acl", argv)
        try:
            p.wait(timeout=300)
        except subprocess.TimeoutExpired:
            raise BenchError("dpdk-test-acl did not finish within 300 s")
        log = g.log_text(p)
        m = re.search(r"([0-9.]+) cycles/pkt, ([0-9.]+) pkt/sec", log)
        if p.returncode != 0 or not m:
            raise BenchError("dpdk-test-acl failed (status %s):\n%s"
                             % (p.returncode, "\n".join(log.splitlines()[-10:])))
        return {"acl_cpp": float(m.group(1)), "sink_pps": float(m.group(2))}
    finally:
        g.close()


# ---------------------------------------------------------------- DPDK's examples

L3FWD_PATCH_WHAT = ("examples/l3fwd/main.c, one line: the RX offloads of its port_conf, "
                    "RTE_ETH_RX_OFFLOAD_CHECKSUM, become 0, because net_pcap and net_null "
                    "offer no RX offload and l3fwd would refuse to configure them; nothing "
                    "else changes (l3fwd's ACL path reads no checksum flag).")


def patch_l3fwd(main_c):
    with open(main_c) as f:
        src = f.read()
    old = "\t\t.offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,\n"
    if src.count(old) != 1:
        raise BenchError("%s: the line to patch is not as in DPDK 22.11: %s"
                         % (main_c, old.strip()))
    src = src.replace(old, "\t\t.offloads = 0, /* mpe-bench: no RX checksum offload */\n")
    with open(main_c, "w") as f:
        f.write(src)


def build_examples(srcroot, dest, log):
    """Copy DPDK's example sources (dpdk-doc) to @dest, patch l3fwd there, build each with
    its Makefile against libdpdk; returns {binary name: path}."""
    wanted = {
        "mp_server": "multi_process/client_server_mp/mp_server",
        "mp_client": "multi_process/client_server_mp/mp_client",
        "symmetric_mp": "multi_process/symmetric_mp",
        "l3fwd": "l3fwd",
    }
    out = {n: os.path.join(dest, d, "build", n) for n, d in wanted.items()}
    stamp = os.path.join(dest, ".mpe-bench-built")
    if os.path.exists(stamp) and all(os.access(p, os.X_OK) for p in out.values()):
        return out
    if not os.path.isdir(srcroot):
        raise BenchError("%s: no DPDK example sources (install Debian's dpdk-doc)" % srcroot)
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    for d in ("multi_process", "l3fwd", "common"):
        shutil.copytree(os.path.join(srcroot, d), os.path.join(dest, d))
    patch_l3fwd(os.path.join(dest, "l3fwd", "main.c"))
    with open(log, "w") as lf:
        for name, d in wanted.items():
            r = subprocess.run(["make", "-C", os.path.join(dest, d)], stdout=lf,
                               stderr=subprocess.STDOUT)
            if r.returncode != 0 or not os.access(out[name], os.X_OK):
                raise BenchError("building DPDK's example %s failed: see %s" % (d, log))
    open(stamp, "w").close()
    return out
