#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mpe-bench's reading of slow runs (tools/bench/report.py), on made-up rows: which runs it
counts slow, and the process/thread ratio over the rounds left; and its summary of the
alternating windows."""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..",
                                "tools", "bench"))
sys.dont_write_bytecode = True
import report  # noqa: E402

failed = 0


def check(cond, what):
    global failed
    print(("ok - " if cond else "not ok - ") + what)
    failed += not cond


def row(rnd, case, impl, mpps, cycles, status="ok"):
    return {"round": rnd, "case": case, "impl": impl, "status": status,
            "sink_mpps": "%.4f" % mpps,
            "stage_cycles_per_packet": " ".join("%s=%.1f" % kv for kv in cycles.items())}


rows = [
    # a distributor worker: round 2's thread run has its first stage three times as dear
    row(1, "dist", "process", 48.0, {"w0.fwd": 4.0}),
    row(1, "dist", "thread", 47.0, {"w0.fwd": 3.8}),
    row(2, "dist", "process", 46.0, {"w0.fwd": 4.1}),
    row(2, "dist", "thread", 18.0, {"w0.fwd": 12.0}),
    row(3, "dist", "process", 44.0, {"w0.fwd": 4.2}),
    row(3, "dist", "thread", 44.0, {"w0.fwd": 4.0}),
    # one or two cycles: twice as dear, but within the sampling's reach
    row(1, "rss", "process", 66.0, {"w0.fwd": 1.0}),
    row(1, "rss", "thread", 60.0, {"w0.fwd": 2.0}),
    # over SLOW_EXCESS more, but under SLOW_FACTOR times: not slow
    row(1, "full", "process", 14.0, {"w0.parse": 50.0, "w0.flow": 50.0}),
    row(1, "full", "thread", 13.0, {"w0.parse": 70.0, "w0.flow": 51.0}),
    # the worst stage named; a failed run is not looked at
    row(1, "pipe", "process", 40.0, {"w0.fwd": 10.0, "w1.fwd": 4.0}),
    row(1, "pipe", "thread", 20.0, {"w0.fwd": 16.0, "w1.fwd": 20.0}),
    row(2, "pipe", "process", 0.0, {"w0.fwd": 90.0}, status="error: died"),
    row(2, "pipe", "thread", 30.0, {"w0.fwd": 10.0, "w1.fwd": 4.0}),
]
s = report.Summary(rows)

slow = report.slow_runs(s, "dist")
check(list(slow) == [(2, "thread")], "dist: round 2's thread run is slow, no other (%s)"
      % sorted(slow))
check(slow.get((2, "thread")) == ("w0.fwd", 12.0, 3.8),
      "dist: named with its stage, cycles and the cheapest run's (%s)"
      % (slow.get((2, "thread")),))
fp = report.fast_paired(s, "dist", slow)
check(fp is not None and fp["n"] == 2 and abs(fp["median"] - (48 / 47 + 1.0) / 2) < 1e-9,
      "dist: process/thread over rounds 1 and 3 only (%s)" % (fp,))
every = s.paired("dist", "process", "thread")
check(every["n"] == 3 and abs(every["max"] - 46 / 18) < 1e-9,
      "dist: every round still in the plain ratio (%s)" % (every,))
check(report.slow_runs(s, "rss") == {}, "rss: 2 cycles against 1 is not slow")
check(report.slow_runs(s, "full") == {}, "full: 70 against 50 is not slow (under 1.5 times)")
slow = report.slow_runs(s, "pipe")
check(list(slow) == [(1, "thread")] and slow[(1, "thread")][0] == "w1.fwd",
      "pipe: the stage furthest above its cheapest named, the failed run left alone (%s)"
      % (slow,))
check(report.fast_paired(s, "pipe", slow) is None, "pipe: no round left to pair")
check(report.slow_runs(s, "nothing") == {}, "a configuration with no runs: none slow")

text = "\n".join(report.slow_text(s, [{"name": "dist", "label": "distributor"},
                                      {"name": "pipe", "label": "pipeline"},
                                      {"name": "fs", "label": "false sharing", "fs": True}]))
check("## Slow runs" in text and "| distributor | 2 thread: w0.fwd 12 (4) | " in text,
      "bench.md's section lists the slow run")
check("| pipeline | 1 thread: w1.fwd 20 (4) | 2.00 | n/a (no such round) |" in text,
      "and says when no round is left")
check("false sharing" not in text, "the false-sharing configurations are not in it")

# who waits for whom: the engine's poll counters and wait cycles turned into shares over a
# window, and their medians over the rounds in bench.md
import runners  # noqa: E402

s0 = {"t": 10.0, "stats": {"io": {"polls": 1000, "full_polls": 100, "wait_cycles": 5000}},
      "workers": {"0": {"polls": 500, "bursts": 400, "wait_cycles": 0},
                  "1": {"polls": 10, "bursts": 10, "wait_cycles": 7}}}
s1 = {"t": 12.0, "stats": {"io": {"polls": 3000, "full_polls": 1900, "wait_cycles": 1005000}},
      "workers": {"0": {"polls": 1500, "bursts": 650, "wait_cycles": 200000},
                  "1": {"polls": 10, "bursts": 10, "wait_cycles": 7}}}
sh = runners._waits(s0, s1, 1000000)
want = {"io.full": 0.9, "io.wait": 0.5, "w0.found": 0.25, "w0.wait": 0.1, "w1.wait": 0.0}
check(sh.keys() == want.keys() and all(abs(sh[k] - want[k]) < 1e-9 for k in want),
      "waits: I/O lcore full on 1800 of 2000 polls and 1 of 2 s, worker 0 found packets on "
      "250 of 1000 polls and waited 0.2 of 2 s; worker 1 did not poll: no poll share (%s)"
      % sh)
sh = runners._waits(s0, s1, None)
check("io.wait" not in sh and "io.full" in sh, "waits: no clock rate, no time shares (%s)" % sh)
check(runners._waits({"t": 0, "stats": {}, "workers": {"0": {"rx": 1}}},
                     {"t": 1, "stats": {}, "workers": {"0": {"rx": 2}}}, 1000) == {},
      "waits: an engine without the counters gives none")


def wrow(rnd, impl, shares, status="ok"):
    return {"round": rnd, "case": "dist", "impl": impl, "status": status, "sink_mpps": "1",
            "waits": " ".join("%s=%.3f" % kv for kv in sorted(shares.items()))}


ws = report.Summary([wrow(1, "process", {"io.wait": 0.9, "w0.wait": 0.2, "w0.found": 0.5}),
                     wrow(2, "process", {"io.wait": 0.7, "w0.wait": 0.4, "w0.found": 0.5}),
                     wrow(3, "process", {"io.wait": 0.8, "w0.wait": 0.3, "w0.found": 0.5}),
                     wrow(4, "process", {"io.wait": 0.0, "w0.wait": 1.0}, "error: died"),
                     wrow(1, "thread", {"io.wait": 0.5, "w0.wait": 0.6}),
                     {"round": 1, "case": "rss", "impl": "process", "status": "ok",
                      "waits": "w0.found=1.000 w0.wait=0.010 w1.wait=0.020"}])
med = ws.waits("dist", "process")
check(abs(med["io.wait"] - 0.8) < 1e-9 and abs(med["w0.wait"] - 0.3) < 1e-9,
      "waits: median over the rounds that ran, a failed one left out (%s)" % med)
text = "\n".join(report.waits_text(ws, [
    {"name": "dist", "label": "distributor", "traffic": "null"},
    {"name": "rss", "label": "rss", "traffic": "null"},
    {"name": "none", "label": "not run", "traffic": "null"},
    {"name": "dist", "label": "fs", "fs": True}]))
check("## Who waits for whom" in text and "| distributor | null | 80% | w0 30% | 50% | w0 60% |"
      in text, "bench.md: who waits, per build (%s)" % text.splitlines()[:5])
check("| rss | null | – | w0 1%, w1 2% | – | – |" in text,
      "bench.md: no I/O lcore in rss, a build without figures is a dash")
check("not run" not in text and "| fs |" not in text,
      "a configuration without shares, and the false-sharing ones, are left out")
check(report.waits_text(report.Summary([]), [{"name": "dist", "label": "d"}]) == [],
      "no section when nothing has shares")

# from 1 worker to 2: each build's median with 2 over its median with 1; a pair with a
# configuration that did not run is left out
two = report.Summary(rows + [row(1, "rss2", "process", 120.0, {}),
                             row(2, "rss2", "process", 130.0, {}),
                             row(3, "rss2", "process", 110.0, {}),
                             row(1, "rss2", "thread", 99.0, {})])
text = "\n".join(report.scaling_text(two, [{"name": "rss", "label": "rss 1"},
                                           {"name": "rss2", "label": "rss 2"}],
                                     [("rss", "rss2"), ("rss", "gone")]))
check("## From 1 worker to 2" in text and "| rss 1 | rss 2 | 1.82 | 1.65 |" in text
      and "gone" not in text, "scaling: 120/66 and 99/60, the pair that did not run left out "
      "(%s)" % text.splitlines()[2:5])
# side by side: the 2-worker engine's windows over the 1-worker engine's, per build; each
# start's median, and the median over starts; a failed start is counted, not measured
sp = report.scale_pair("process")
side = [report.alt_row(1, "rss2", "1w", 1, (180e6, 100e6), pair=sp),
        report.alt_row(1, "rss2", "1w", 2, (190e6, 100e6), pair=sp),
        report.alt_row(2, "rss2", "2w", 1, (170e6, 100e6), pair=sp),
        report.alt_row(2, "rss2", "2w", 2, (172e6, 100e6), pair=sp),
        report.alt_row(3, "rss2", "1w", None, None, "error: no engine", pair=sp),
        report.alt_row(1, "rss2", "1w", 1, (1.0, 1.0), pair=report.PAIR)]
text = "\n".join(report.scaling_text(two, [{"name": "rss", "label": "rss 1"},
                                           {"name": "rss2", "label": "rss 2"}],
                                     [("rss", "rss2")], side, {"alternate": 3, "windows": 2}))
check("| rss 1 | rss 2 | 1.82 | 1.65 | 1.78 (1.85, 1.71; 1 failed) | – |" in text
      and "3 starts of 2 windows each" in text,
      "scaling side by side: starts 1.85 and 1.71, their median 1.78, one start failed, no "
      "thread rows (%s)" % text.splitlines()[4:5])
check(report.alt_summary(side, "rss2") is not None
      and report.alt_summary(side, "rss2")["windows"] == 1,
      "scaling side by side: its windows stay out of the process/thread ratio")
check(report.scaling_text(two, [{"name": "rss", "label": "rss 1"}], [("rss", "rss2")]) == [],
      "scaling: no pair ran, no section")
check(report.scaling_text(two, [{"name": "rss", "label": "rss 1"},
                                {"name": "rss2", "label": "rss 2", "na": "no such key"}],
                          [("rss", "rss2")]) == [],
      "scaling: a configuration this engine lacks leaves its pair out")

# against a reference side by side: each build's windows over the reference's, the median
# over starts and each start's; next to it the rounds' ratio of medians; a configuration
# without such rows is left out
ref = [row(1, "ref", "tp", 70.0, {}), row(2, "ref", "tp", 72.0, {}),
       row(3, "ref", "tp", 68.0, {})]
ag = report.Summary(rows + ref)
pp, tp = report.ref_pair("process", "tp"), report.ref_pair("thread", "tp")
vs = [report.alt_row(1, "rss", "process", 1, (60e6, 100e6), pair=pp),
      report.alt_row(1, "rss", "process", 2, (62e6, 100e6), pair=pp),
      report.alt_row(2, "rss", "reference", 1, (90e6, 100e6), pair=pp),
      report.alt_row(1, "rss", "thread", 1, (50e6, 100e6), pair=tp),
      report.alt_row(2, "rss", "reference", None, None, "error: no testpmd", pair=tp),
      report.alt_row(1, "rss", "process", 1, (1.0, 1.0), pair=report.PAIR)]
cs = [{"name": "rss", "label": "rss 1", "traffic": "null"},
      {"name": "dist", "label": "dist 1", "traffic": "null"}]
text = "\n".join(report.ref_side_text(ag, cs, [("rss", "tp"), ("dist", "tp")], vs,
                                      {"alternate": 2, "windows": 2}))
check("## Against the references, side by side" in text
      and "| rss 1 | null | tp | 0.76 (0.61, 0.90) | 0.50 (0.50; 1 failed) | 0.94, 0.86 |"
      in text and "dist 1" not in text and "2 starts of 2 windows each" in text,
      "against a reference: starts 0.61 and 0.90, thread one start and one failed, rounds "
      "66/70 and 60/70, the pair without rows left out (%s)" % text.splitlines()[4:5])
check(report.alt_summary(vs, "rss")["windows"] == 1,
      "against a reference: its windows stay out of the process/thread ratio")
check(report.ref_side_text(ag, cs, [("rss", "tp")], [], {"alternate": 0}) == [],
      "against a reference: nothing ran side by side, no section")

# pool size side by side: each build with its mbufs over itself on the default pool, the
# median over starts and each start's, a failed window counted; a configuration that did
# not run against the default pool is left out
gp, gt = report.pool_pair("process"), report.pool_pair("thread")
pool = [report.alt_row(1, "full", "given", 1, (12e6, 10e6), pair=gp),
        report.alt_row(1, "full", "given", 2, (11.2e6, 10e6), pair=gp),
        report.alt_row(2, "full", "default", 1, (10e6, 10e6), pair=gp),
        report.alt_row(1, "full", "given", 1, (9e6, 10e6), pair=gt),
        report.alt_row(1, "full", "given", 2, (0, 10e6), pair=gt),
        report.alt_row(1, "full", "given", 1, (1.0, 1.0), pair=report.PAIR)]
pcs = [{"name": "full", "label": "full 1", "traffic": "capture",
        "engine_keys": {"mbufs": "8191"}}, {"name": "dist", "label": "dist 1"}]
text = "\n".join(report.pool_text(pcs, ["full", "dist"], pool,
                                  {"alternate": 2, "windows": 2}))
check("## Pool size, side by side" in text
      and "| full 1 | capture | 8191 | 1.08 (1.16, 1.00) | 0.90 (0.90; 1 failed) |" in text
      and "dist 1" not in text and "default pool: 8191 mbufs" in text,
      "pool size: process starts 1.16 and 1.00, thread one window and one without packets, "
      "the configuration without rows left out (%s)" % text.splitlines()[4:5])
check(report.alt_summary(pool, "full")["windows"] == 1,
      "pool size: its windows stay out of the process/thread ratio")
check(report.pool_text(pcs, ["full"], vs, {"alternate": 2, "windows": 2}) == [],
      "pool size: nothing ran against the default pool, no section")

# recorder on against off side by side: each build's rate with the recorder over its rate
# without, the median over starts and each start's, a failed window counted; and the TSC
# cycles a packet that makes, tsc_hz / rate on - tsc_hz / rate off window by window, the
# median of each start's windows, then over the starts; a configuration that did not run
# against recorder = off is left out
rp, rt = report.recorder_pair("process"), report.recorder_pair("thread")
hz = 2000000000
rec = [report.alt_row(1, "full", "on", 1, (20e6, 25e6), pair=rp, tsc_hz=hz),
       report.alt_row(1, "full", "on", 2, (20e6, 25e6), pair=rp, tsc_hz=hz),
       report.alt_row(2, "full", "off", 1, (25e6, 25e6), pair=rp, tsc_hz=hz),
       report.alt_row(1, "full", "on", 1, (10e6, 12.5e6), pair=rt, tsc_hz=hz),
       report.alt_row(1, "full", "on", 2, (0, 10e6), pair=rt, tsc_hz=hz),
       report.alt_row(1, "full", "on", 1, (1.0, 1.0), pair=report.PAIR)]
check(rec[0]["tsc_hz"] == "2000000000" and rec[-1]["tsc_hz"] == ""
      and "tsc_hz" in report.ALT_FIELDS,
      "recorder: alternate.csv's rows carry the engine's tsc_hz where it gave one")
text = "\n".join(report.recorder_text(pcs, ["full", "dist"], rec,
                                      {"alternate": 2, "windows": 2}))
check("## Recorder on against off, side by side" in text
      and "| configuration | traffic | process, recorder on/off | thread, recorder on/off | "
      "process, cycles/pkt on − off | thread, cycles/pkt on − off | process, cycles/pkt in "
      "the worker | thread, cycles/pkt in the worker |" in text
      and "| full 1 | capture | 0.90 (0.80, 1.00) | 0.80 (0.80; 1 failed) | 10.0 (20.0, 0.0) "
      "| 40.0 (40.0; 1 failed) | – | – |" in text
      and "dist 1" not in text and "2 starts of 2 windows each" in text
      and "`recorder = off`" in text and "tsc_hz / rate" in text and "`/mpe/info`" in text,
      "recorder: process starts 0.80 and 1.00 (20 and 0 cycles), thread one window of 40 "
      "cycles and one without packets, the configuration without rows left out (%s)"
      % text.splitlines()[4:5])
# the workers' own count of the recorder's cycles: the median over the rounds that ran, per
# worker, where the rounds counted it
rs = report.Summary([row(1, "full", "process", 20.0, {"w0.acl": 11.0, "w0.recorder": 8.0}),
                     row(2, "full", "process", 20.0, {"w0.recorder": 9.0, "w1.recorder": 4.0}),
                     row(3, "full", "process", 20.0, {"w0.recorder": 30.0}, status="error"),
                     row(1, "full", "thread", 20.0, {"w0.acl": 11.0})])
text = "\n".join(report.recorder_text(pcs, ["full"], rec, {"alternate": 2, "windows": 2}, rs))
check("| 40.0 (40.0; 1 failed) | 8.5, 4.0 | – |" in text and "`/mpe/workers`" in text,
      "recorder: in the worker, process w0 8.0 and 9.0 (a failed round left out), w1 4.0; "
      "thread without the counter (%s)" % text.splitlines()[4:5])
check(report.alt_summary(rec, "full")["windows"] == 1,
      "recorder: its windows stay out of the process/thread ratio")
check(report.recorder_text(pcs, ["full"], pool, {"alternate": 2, "windows": 2}) == [],
      "recorder: nothing ran against recorder = off, no section")
nohz = [report.alt_row(1, "full", "on", 1, (20e6, 25e6), pair=rp)]
check("| full 1 | capture | 0.80 (0.80) | – | n/a (no tsc_hz) | – | – | – |" in
      report.recorder_text(pcs, ["full"], nohz, {"alternate": 1, "windows": 2}),
      "recorder: windows without tsc_hz give no cycles, one build alone the other's cells –")
md = report.markdown(report.Summary([row(1, "full", "process", 20.0, {}),
                                     row(1, "full", "thread", 20.0, {})]), pcs[:1], [],
                     {"command": "c", "host": "h", "rounds": 1, "seed": 1, "duration": 1.0,
                      "warmup": 0.5, "pcap_desc": "p", "alt_rows": rec,
                      "recorder_side": ["full"], "side_starts": 2, "windows": 2})
check("## Recorder on against off, side by side" in md
      and "| full 1 | capture | 0.90 (0.80, 1.00) | 0.80 (0.80; 1 failed) | 10.0 (20.0, 0.0) "
      "| 40.0 (40.0; 1 failed) |" in md,
      "recorder: bench.md has the section when its pairs ran")
hl = report.headline(report.Summary([]), pcs[:1], [],
                     {"command": "c", "host": "h", "alt_rows": rec})
check("recorder" not in hl and "| process build / thread build, every configuration | 1.000 |"
      in hl, "recorder: headline.md takes nothing of its rows but the process/thread window")

# the engine's configuration for a case with queues: each worker on its own
sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..",
                                "tools", "bench"))
import runners  # noqa: E402
ini = runners.mpe_config({"name": "q", "shape": "rss", "source": "null",
                          "workers": [["fwd"], ["fwd"]], "queues": [3, 6]}, {})
ws = ini.split("[worker ")[1:]
check(len(ws) == 2 and "\nqueue = 3\n" in ws[0] and "\nqueue = 6\n" in ws[1],
      "the engine's configuration gives each worker its queue (%r)" % ws)
check("queue" not in runners.mpe_config({"name": "n", "shape": "rss", "source": "null",
                                         "workers": [["fwd"]]}, {}),
      "no queue key unless the case has queues")

# alternating windows: per start the median of its window ratios, then the median of the
# starts; a failed start is counted, not averaged in
alt = [report.alt_row(1, "dist", "process", k, r) for k, r in
       enumerate([(50e6, 49e6), (20e6, 21e6), (48e6, 50e6)], 1)]
alt += [report.alt_row(2, "dist", "thread", k, r) for k, r in
        enumerate([(51e6, 50e6), (50e6, 50e6)], 1)]
alt += [report.alt_row(3, "dist", "process", None, None, "error: died"),
        report.alt_row(1, "rss", "process", 1, (60e6, 0.0))]
a = report.alt_summary(alt, "dist")
check(a is not None and [round(x, 4) for x in a["starts"]] == [0.96, 1.01],
      "alternating: each start's median window ratio (%s)" % (a,))
check(a is not None and abs(a["median"] - 0.985) < 1e-9 and a["windows"] == 5
      and a["errors"] == 1 and abs(a["min"] - 20 / 21) < 1e-3 and abs(a["max"] - 1.02) < 1e-3,
      "alternating: median over the starts, every window's range, the failed start counted")
z = report.alt_summary(alt, "rss")
check(z is not None and z["windows"] == 0 and z["errors"] == 1 and alt[-1]["ratio"] == ""
      and alt[-1]["status"] != "ok", "alternating: a window in which a build sent nothing "
      "has no ratio and fails (%s, %s)" % (z, alt[-1]))
check(report.alt_summary(alt, "nothing") is None, "alternating: no row, no summary")
r = report.alt_row(1, "x", "thread", 1, (0.0, 50e6), "error: 3 worker restarts", 0.01)
check(r["status"] == "error: 3 worker restarts" and r["ratio"] == "" and
      r["stopped_leak"] == "0.0100", "alternating: a failed start's window keeps its reason")
text = "\n".join(report.alternate_text(alt, [{"name": "dist", "label": "distributor"},
                                             {"name": "rss", "label": "rss"}],
                                       {"alternate": 3, "window": 0.5, "windows": 3,
                                        "warmup": 1.0, "settle": 0.1}))
check("| distributor | – | 0.985 | 0.960, 1.010 (1 failed) | – | 0.95–1.02 (5 windows) | n/a "
      "| – | – |" in text and "| rss | – | n/a | 1 failed | – | – | n/a | – | – |" in text
      and "Rows with an interval" not in text and "Every row's starts" not in text,
      "bench.md's alternating section (%s)" % text.splitlines()[-6:])
# the control's rows: a column of their own, never mixed with the builds'
ctl = alt + [report.alt_row(1, "dist", "1", k, r, pair=report.CONTROL) for k, r in
             enumerate([(50e6, 50e6), (49e6, 50e6), (60e6, 50e6)], 1)]
a = report.alt_summary(ctl, "dist")
check(a is not None and a["median"] == 0.985 and a["windows"] == 5,
      "alternating: the control's rows left out of process/thread (%s)" % (a,))
k = report.alt_summary(ctl, "dist", report.CONTROL)
check(k is not None and k["starts"] == [1.0] and k["errors"] == 0,
      "control: its own median (%s)" % (k,))
text = "\n".join(report.alternate_text(ctl, [{"name": "dist", "label": "distributor"}],
                                       {"alternate": 3, "window": 0.5, "windows": 3,
                                        "warmup": 1.0, "settle": 0.1, "control": 1}))
check("| distributor | – | 0.985 | 0.960, 1.010 (1 failed) | – | 0.95–1.02 (5 windows) | 1.000 "
      "| 1.000 | – |" in text and "runs once the same way" in text,
      "bench.md's alternating section with the control (%s)" % text.splitlines()[-4:])

# the interval of a median over starts: the sign test's, from order statistics
check(report.median_interval([1.0] * 5) is None, "interval: 5 starts give none at 95%")
iv = report.median_interval([1.03, 0.97, 1.00, 1.01, 0.99, 1.02])
check(iv is not None and iv[:2] == (0.97, 1.03) and abs(iv[2] - (1 - 2 / 64)) < 1e-12,
      "interval: 6 starts, from the least to the greatest (%s)" % (iv,))
xs = [1 + i / 100 for i in range(20)]  # 1.00 .. 1.19, given out of order
iv = report.median_interval(xs[::-1])
check(iv is not None and iv[:2] == (xs[5], xs[14]) and abs(iv[2] - (1 - 2 * 21700 / 2 ** 20))
      < 1e-12, "interval: 20 starts, the 6th smallest to the 6th largest (%s)" % (iv,))
iv = report.median_interval(xs[:9])
check(iv is not None and iv[:2] == (xs[1], xs[7]) and abs(iv[2] - (1 - 20 / 512)) < 1e-12,
      "interval: 9 starts, the 2nd smallest to the 2nd largest (%s)" % (iv,))
check([report.band_verdict(x) for x in ((0.98, 1.02), (0.985, 1.021), (0.95, 0.979),
                                        (1.021, 1.2), (0.9, 1.1), None)]
      == ["within", "not resolved", "outside", "outside", "not resolved", None],
      "interval against the band: within, across an edge, outside either side")
# how many starts would resolve a row. By hand: logarithms -0.02 -0.01 0 0 0.01 0.02, median 0,
# absolute deviations' median 0.01, sigma 0.014826; nearer edge ln 1.02 = 0.019803 away;
# (2 * 1.959964 * sqrt(pi / 2) * 0.014826 / 0.019803)^2 = 13.53, so 14
check(report.starts_to_resolve([math.exp(x) for x in (-0.02, -0.01, 0, 0, 0.01, 0.02)]) == 14,
      "starts to resolve: 6 starts worked by hand")
check([report.starts_to_resolve(x) for x in ([1.0, 1.1] * 2 + [1.05], [1.0] * 8,
                                             [0.97, 0.99, 0.98, 0.98, 0.99, 0.97])]
      == [None, None, None], "starts to resolve: none from 5 starts, no spread, a median on "
      "an edge")
# in bench.md: a median a hair from an edge gives "over"; a row whose starts mostly tie gives
# no figure at all, though its interval crosses an edge
edge = [report.alt_row(k, "dist", "process", 1, (r * 50e6, 50e6))
        for k, r in enumerate([0.95, 0.97, 0.9799, 0.9801, 0.99, 1.01], 1)]
tied = [report.alt_row(k, "rss", "process", 1, (r * 50e6, 50e6))
        for k, r in enumerate([0.90, 0.91, 0.92, 0.93, 0.94, 0.95] + [1.0] * 11
                              + [1.05, 1.06, 1.07, 1.08], 1)]
text = "\n".join(report.alternate_text(edge + tied, [{"name": "dist", "label": "dist"},
                                                     {"name": "rss", "label": "rss"}],
                                       {"alternate": 21, "window": 0.5, "windows": 1,
                                        "warmup": 1.0, "settle": 0.1}))
check(report.starts_to_resolve([0.95, 0.97, 0.9799, 0.9801, 0.99, 1.01]) > 10 ** 5
      and "| 0.950–1.010 (not resolved: over 100000 starts) |" in text
      and "| 0.950–1.000 (not resolved) |" in text,
      "starts to resolve: written over 100000 above it, left out without a figure (%s)" % [
          x for x in text.splitlines() if x.startswith("| dist") or x.startswith("| rss")])
# what it promises, on starts drawn at random (log-normal, sigma 0.03): at its estimate most
# intervals resolve, at a quarter of it few do; on both sides of the band
rnd = random.Random(5)
for centre, verdict in ((1.0, "within"), (0.955, "outside")):
    def draw(n):
        return [centre * math.exp(rnd.gauss(0, 0.03)) for _ in range(n)]
    need = report.starts_to_resolve(draw(2001))
    share = {}
    for n in (need // 4, need):
        share[n] = sum(report.band_verdict(report.median_interval(draw(n))) == verdict
                       for _ in range(200)) / 200
    check(need is not None and share[need] >= 0.85 and share[need // 4] <= 0.35,
          "starts to resolve: median %.3f, about %s starts: %s resolve %s" % (
              centre, need, share, verdict))
# 21 starts a row: the starts' range, each interval and where it lies, the tally
many = []
for st in range(1, 22):
    p = 0.99 + 0.001 * st  # process/thread 0.991 .. 1.011: within the band
    many += [report.alt_row(st, "dist", "process", k, (p * 50e6, 50e6)) for k in (1, 2)]
    many += [report.alt_row(st, "pipe", "process", k, ((0.9 + 0.01 * st) * 50e6, 50e6))
             for k in (1, 2)]  # 0.91 .. 1.11: across both edges
    many += [report.alt_row(st, "rss", "process", k, ((0.9 + 0.001 * st) * 50e6, 50e6))
             for k in (1, 2)]  # 0.901 .. 0.921: below the band
    many += [report.alt_row(st, "dist", "1", k, ((0.9 + 0.01 * st) * 50e6, 50e6),
                            pair=report.CONTROL) for k in (1, 2)]  # holds 1
    many += [report.alt_row(st, "rss", "1", k, ((1.1 + 0.001 * st) * 50e6, 50e6),
                            pair=report.CONTROL) for k in (1, 2)]  # misses 1
mcs = [{"name": n, "label": n + " label"} for n in ("dist", "pipe", "rss")]
text = "\n".join(report.alternate_text(many, mcs, {"alternate": 21, "window": 0.5,
                                                  "windows": 2, "warmup": 1.0,
                                                  "settle": 0.1, "control": 21}))
check("| dist label | – | 1.001 | 21 starts: 0.991–1.011 | 0.996–1.006 (within) | "
      "0.99–1.01 (42 windows) | 1.010 | 21 starts: 0.910–1.110 | 0.960–1.060 (holds 1) |"
      # pipe: median 1.01, 0.0099 from the edge in logarithms, sigma 0.075: about 1409 starts
      in text and "| pipe label | – | 1.010 | 21 starts: 0.910–1.110 | 0.960–1.060 (not "
      "resolved: about 1409 starts) |" in text
      and "| rss label | – | 0.911 | 21 starts: 0.901–0.921 | "
      "0.906–0.916 (outside) |" in text and "| 1.111 | 21 starts: 1.101–1.121 | 1.106–1.116 "
      "(misses 1) |" in text and "Rows with an interval: process/thread 1 within the band, "
      "1 not resolved, 1 outside; the control's interval holds 1 on 1, misses it on 1." in text
      # every row's starts together: 63 of process/thread, the 32nd the median; 42 control
      and "drawn from the table's rows: process/thread 0.992 over 63 starts, interval "
      "0.930–1.000 (not resolved); the control " in text
      and "over 42 starts, interval 1.050–1.108 (misses 1)." in text,
      "bench.md's alternating section with 21 starts a row (%s)" % [
          x for x in text.splitlines() if x.startswith("| ") or x.startswith("Rows")
          or x.startswith("Every")])

# mpe-bench's alternating start on a stand-in for the engines: whichever build starts first,
# each window's process and thread rates land in their own columns; a leak or a restart
# fails the start; every configuration runs once per start, in a new order each start
import contextlib  # noqa: E402
import importlib.machinery  # noqa: E402
import importlib.util  # noqa: E402
top = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")
spec = importlib.util.spec_from_loader("mpe_bench", importlib.machinery.SourceFileLoader(
    "mpe_bench", os.path.join(top, "tools", "mpe-bench")))
mb = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mb)
fake = {"leak": 0.001, "restarts": 0}

# --side-starts: the other side-by-side pairs' starts, as many as --alternate unless given
args = [mb.parse_args(x) for x in (["--alternate", "5"], ["--alternate", "5", "--side-starts",
                                                          "0"], ["--quick"])]
check([(a.alternate, a.control, a.side_starts) for a in args] == [(5, 5, 5), (5, 5, 0),
                                                                   (1, 1, 1)],
      "--side-starts: as --alternate by default, 0 when given 0 (%s)" % [
          (a.alternate, a.control, a.side_starts) for a in args])
try:
    with open(os.devnull, "w") as dn, contextlib.redirect_stderr(dn):
        mb.parse_args(["--side-starts", "-1"])
    check(False, "--side-starts -1 refused")
except SystemExit as e:
    check(e.code == 2, "--side-starts -1 refused (exit %s)" % e.code)


def fake_alternating(builds, case, ins, work, warmup, windows, window):
    rate = {"process": 60e6, "thread": 50e6}
    return {"rates": [[rate[b["model"]]] * windows for b in builds],
            "leak": fake["leak"], "restarts": fake["restarts"]}


mb.runners.run_mpe_alternating = fake_alternating
mb.log = lambda msg: None
builds = {"process": {"model": "process"}, "thread": {"model": "thread"}}
args = type("A", (), {"warmup": 1.0, "windows": 2, "window": 0.5})()
c = {"name": "fwd-rss-1w"}
for st in (1, 2):
    got = mb.run_alternating(c, st, builds, {}, "/nonexistent", args)
    check([(r["pair"], r["first"], r["a_mpps"], r["b_mpps"], r["status"]) for r in got] ==
          [("process/thread", "process" if st == 1 else "thread", "60.0000", "50.0000",
            "ok")] * 2,
          "run_alternating, start %d: the rates in their builds' columns (%s)" % (st, got))


def fake_control(builds, case, ins, work, warmup, windows, window):
    # the engine started first sends 40 Mpps, the other 20
    check(len(builds) == 2 and all(b["model"] == "process" for b in builds),
          "control: two engines of the process build (%s)" % (builds,))
    return {"rates": [[40e6] * windows, [20e6] * windows], "leak": 0.0, "restarts": 0}


mb.runners.run_mpe_alternating = fake_control
for st in (1, 2):
    got = mb.run_alternating(c, st, builds, {}, "/nonexistent", args, mb.report.CONTROL)
    want = ("1", "40.0000", "20.0000") if st == 1 else ("2", "20.0000", "40.0000")
    check([(r["pair"], r["first"], r["a_mpps"], r["b_mpps"]) for r in got] ==
          [("process/process",) + want] * 2,
          "control, start %d: engine 1 over engine 2, 1 started first in odd starts (%s)"
          % (st, got))
mb.runners.run_mpe_alternating = fake_alternating
fake["leak"] = 0.5
got = mb.run_alternating(c, 1, builds, {}, "/nonexistent", args)
check(all(r["status"].startswith("error: an engine sent 50%") for r in got),
      "run_alternating: an engine that went on while stopped fails the start")
fake["leak"], fake["restarts"] = 0.001, 2
got = mb.run_alternating(c, 1, builds, {}, "/nonexistent", args)
check(all(r["status"] == "error: 2 worker restarts" for r in got),
      "run_alternating: a worker restart fails the start")
cs = [{"name": "c%d" % i} for i in range(6)]
order = [(st, x["name"]) for st, x in mb.alternate_order(cs, 3, 7)]
per = [[n for s2, n in order if s2 == st] for st in (1, 2, 3)]
check(all(sorted(p) == sorted(x["name"] for x in cs) for p in per) and len(set(map(tuple, per)))
      > 1 and order == [(st, x["name"]) for st, x in mb.alternate_order(cs, 3, 7)],
      "alternate_order: each configuration once per start, new orders, one per seed")

# CPU handovers: which configurations run again with ring_size given, and the section's lines
def alt(case, pair, start, ratio, sw_a, sw_b, status="ok"):
    return report.alt_row(start, case, "process", 1, (ratio * 10e6, 10e6), status, 0.0, pair,
                          (sw_a, sw_b))


hrows = [alt("pipe", report.PAIR, 1, 0.97, 26000, 25000),
         alt("pipe", report.PAIR, 1, 0.98, 27000, 26000),
         alt("pipe", report.CONTROL, 1, 1.0, 26000, 26000),
         alt("rss", report.PAIR, 1, 1.01, 12, 9),
         # one build above the mark, the other under: not a CPU shared by two pollers
         alt("dist", report.PAIR, 1, 1.0, 5000, 400),
         # failed windows do not count
         alt("cap", report.PAIR, 1, 1.0, 30000, 30000, status="error: died"),
         alt("cap", report.PAIR, 2, 1.0, 200, 300)]
hc = [{"name": n, "label": n + " label"} for n in ("pipe", "rss", "dist", "cap")]
check([c["name"] for c in report.handover_cases(hrows, hc)] == ["pipe"],
      "handover_cases: only the configuration over the mark in both builds (%s)"
      % [c["name"] for c in report.handover_cases(hrows, hc)])
check(report.alt_switches(hrows, "pipe") == (26500, 25500) and
      report.alt_switches(hrows, "cap") == (200, 300) and
      report.alt_switches(hrows, "none") is None,
      "alt_switches: medians over a pair's good windows")
hrows += [alt("pipe", report.RING, 1, 1.01, 4000, 3900), alt("pipe", report.RING, 1, 1.03,
                                                           4200, 4100),
          alt("pipe", report.RING, 2, 1.00, 4100, 4000)]
text = report.handover_text(hrows, hc, {"handover": 2})
check("| pipe label | – | 26500, 25500 | 0.975 | 4100, 4000 | 1.010 | 1.020, 1.000 |" in text and
      "| rss label | – | 12, 9 | 1.010 | – | not run | – |" in text and
      "ran again, 2 times the same way, with ring_size = %d" % report.RING_SIZE
      in " ".join(text),
      "handover_text: switches and ratios at both ring sizes (%s)" % text[-6:])
check(report.alt_summary(hrows, "pipe")["starts"] == [0.975],
      "alt_summary: windows with ring_size given stay out of the other windows' ratio")

# README's headline table (headline.md), on made-up rows: every comparison a row, every row as
# many cells as the header, side by side where that ran, the rounds otherwise, n/a when absent
def hl_row(case, impl, mpps):
    return row(1, case, impl, mpps, {"w0.fwd": 4.0})


hl_raw = [hl_row("fwd-rss-1w", "process", 80.0), hl_row("fwd-rss-1w", "thread", 88.0),
          hl_row("fwd-rss-2w-apart", "process", 160.0),
          hl_row("fwd-rss-2w-apart", "thread", 150.0),
          hl_row("fwd-dist-1w", "process", 60.0), hl_row("fwd-dist-1w", "thread", 50.0),
          hl_row("ref", "testpmd macswap 1 core", 100.0),
          hl_row("ref", "client_server_mp 1 client", 40.0)]
hl_cases = [{"name": n, "label": n, "traffic": "null"}
            for n in ("fwd-rss-1w", "fwd-rss-2w-apart", "fwd-dist-1w")]
hl_alt = []
for st, (p, t) in enumerate([(0.95, 0.97), (0.93, 0.99), (0.94, 0.98)], 1):
    hl_alt += [report.alt_row(st, "fwd-rss-1w", "process", 1, (p * 1e6, 1e6), pair=ref)
               for ref in [report.ref_pair("process", "testpmd macswap 1 core")]]
    hl_alt += [report.alt_row(st, "fwd-rss-1w", "thread", 1, (t * 1e6, 1e6), pair=ref)
               for ref in [report.ref_pair("thread", "testpmd macswap 1 core")]]
    for c, x in (("fwd-rss-1w", 1.0 + st / 100), ("fwd-dist-1w", 1.0 - st / 100)):
        hl_alt.append(report.alt_row(st, c, "process", 1, (x * 1e6, 1e6)))
for quick in (False, True):
    hl = report.headline(report.Summary(hl_raw), hl_cases, [],
                         {"command": "tools/mpe-bench --out x", "host": "a host",
                          "alt_rows": hl_alt, "quick": quick})
    check(hl.endswith(" |\n"), "headline: ends with the table and one newline")
    hl = hl.splitlines()
    table = [ln for ln in hl if ln.startswith("|")]
    ncells = [ln.count("|") for ln in table]
    check(len(table) == 2 + len(report.HEADLINE_REFS) + len(report.HEADLINE_SCALING) + 1 and
          set(ncells) == {5} and table[1] == "|---|---|---|---|" and
          all(ln.endswith(" |") for i, ln in enumerate(table) if i != 1) and
          hl[-1] == table[-1],
          "headline: a header, a separator and one row per comparison, 4 cells each (%s)"
          % ncells)
    text = "\n".join(hl)
    check("| forward-only, rss, 1 worker × testpmd macswap, 1 lcore | 0.94× | 0.98× | "
          "side by side, median of 3 starts |" in text,
          "headline: a reference side by side in both builds gives the starts' median")
    check("| forward-only, distributor, 1 worker × client_server_mp, 1 client | 1.50× | 1.25× "
          "| medians of the rounds |" in text and
          "| forward-only, rss, 1 → 2 workers (queues 3 and 6) | 2.00× | 1.70× | medians of "
          "the rounds |" in text,
          "headline: without side-by-side starts, the rounds' medians divided")
    check("| full inspection, distributor, 1 worker × l3fwd --lookup=acl | n/a | n/a | not run |"
          in text and "(queues 0 and 1) | n/a | n/a | not run |" in text,
          "headline: a comparison whose configuration did not run is n/a")
    check("| process build / thread build, every configuration | 1.000 (95%: 0.970–1.030, not "
          "resolved) | – | alternating windows, median of 6 starts over 2 configurations |"
          in text,
          "headline: process/thread over every configuration's starts together")
    check(("Smoke run" in text) == quick and "`tools/mpe-bench --out x` on a host" in text,
          "headline: the command and host, and a smoke run said to be one (quick=%s)" % quick)
many = [report.alt_row(st, "fwd-rss-1w", "p", 1, ((0.99 + st / 1000) * 1e6, 1e6))
        for st in range(1, 21)]
hl = report.headline(report.Summary(hl_raw), hl_cases, [],
                     {"command": "c", "host": "h", "alt_rows": many})
check("| 1.000 (95%: 0.996–1.005, within) | – | alternating windows, median of 20 starts over "
      "1 configuration |" in hl, "headline: 20 starts give process/thread an interval")

# runners.switches(): two processes on one CPU, each giving it to the other, are counted;
# a process asleep is not
import runners  # noqa: E402
import signal  # noqa: E402
import time  # noqa: E402


def child(fn):
    pid = os.fork()
    if pid == 0:
        try:
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
            fn()
        finally:
            os._exit(0)
    return pid


def yielder():
    end = time.monotonic() + 5
    while time.monotonic() < end:
        os.sched_yield()


kids = [child(yielder), child(yielder), child(lambda: time.sleep(5))]
try:
    time.sleep(0.2)
    n0 = [runners.switches([k]) for k in kids]
    time.sleep(0.5)
    n1 = [runners.switches([k]) for k in kids]
    both = runners.switches(kids[:2])
finally:
    for k in kids:
        os.kill(k, signal.SIGKILL)
        os.waitpid(k, 0)
check(n1[0] - n0[0] > 100 and n1[1] - n0[1] > 100 and n1[2] - n0[2] == 0 and
      both >= n1[0] + n1[1],
      "switches: two processes yielding one CPU to each other gave it up hundreds of times "
      "in 0.5 s, a sleeping one never (%s, %s)" % (n0, n1))
check(runners.switches([kids[0]]) == 0, "switches: a process gone counts nothing")

# --- the capacity model ------------------------------------------------------------------------
check(abs(report.line_pps(10e9, 64) - 14.88e6) < 0.01e6 and
      abs(report.line_pps(100e9, 64) - 148.81e6) < 0.01e6 and
      abs(report.line_pps(10e9, report.IMIX_BYTES) - 3.344e6) < 0.001e6,
      "line rates: 14.88 and 148.81 Mpps of 64 bytes at 10 and 100 GbE, 3.344 of IMIX at 10")
check(report.cores_needed(14.88e6, 100, 2e9) == 1 and report.cores_needed(20e6, 100, 2e9) == 1
      and report.cores_needed(20.1e6, 100, 2e9) == 2 and report.cores_needed(1e6, 0, 2e9) == 0,
      "cores needed: 20 Mpps of 100 cycles fill one core of 2 GHz exactly, a little more two")
dist2 = {"name": "d2", "shape": "distributor", "workers": [["fwd"], ["fwd"]]}
dist2io2 = dict(dist2, io=2)
rss1 = {"name": "r1", "shape": "rss", "workers": [["fwd"]]}
pipe = {"name": "p", "shape": "pipeline", "workers": [["fwd"], ["fwd"]],
        "engine_keys": {"rx": "workers", "tx": "workers"}}
check(report.tiers(dist2) == (1, 2) and report.tiers(dist2io2) == (2, 2) and
      report.tiers(rss1) == (0, 1) and report.tiers(pipe) == (0, 2),
      "tiers: I/O lcores and workers of each shape")
own = report.model_pps(dist2io2, {"io": 100, "workers": 50}, 2e9, 4)
shared = report.model_pps(dist2, {"io": 60, "workers": 40}, 2e9, 2)
check(own == (40e6, "own") and shared == (40e6, "shared") and
      report.model_pps(rss1, {"workers": 25}, 2e9, 2) == (80e6, "own") and
      report.model_pps(dist2, {"workers": 40}, 2e9, 4)[0] is None,
      "model: the slower tier with a CPU each, the CPUs' cycles over both tiers' when shared, "
      "nothing without a tier's figure (%s, %s)" % (own, shared))


def crow(rnd, case, impl, mpps, core, hz=2e9):
    return {"round": rnd, "case": case, "impl": impl, "status": "ok", "sink_mpps": "%.4f" % mpps,
            "tsc_hz": "%d" % hz,
            "core_cycles_per_packet": " ".join("%s=%.1f" % kv for kv in core.items())}


crows = [crow(r, "d1", "process", m, {"io": io, "workers": w})
         for r, m, io, w in ((1, 19.0, 98, 101), (2, 18.0, 99, 100), (3, 1.0, 500, 900))]
d1 = {"name": "d1", "label": "dist one", "traffic": "null", "shape": "distributor",
      "workers": [["fwd"]]}
text = "\n".join(report.capacity_text(report.Summary(crows), [d1], {"cpus": 2}))
line = [x for x in text.splitlines() if x.startswith("| dist one")]
# medians: io 99, workers 101; 2 GHz: 20.2 and 19.8 Mpps a core; the model 19.80, measured 18
check(len(line) == 1 and "| 99, 101 | 20.2, 19.8 | 19.80 (a CPU each) | 18.00 | 0.91 |" in line[0]
      and line[0].endswith("| 1 + 1, 2 + 2, 8 + 8 | 1 + 1, 1 + 1, 2 + 2 |"),
      "capacity: the medians, each core's rate, the model against the measured, the cores "
      "each line rate needs (%s)" % line)
check(report.capacity_text(report.Summary([crow(1, "d1", "process", 5.0, {})]), [d1],
                           {"cpus": 2}) == [],
      "capacity: no section without the tiers' figures")

print("%d failed" % failed)
sys.exit(1 if failed else 0)
