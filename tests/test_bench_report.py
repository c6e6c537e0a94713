#!/usr/bin/env python3
"""mpe-bench's reading of slow runs (tools/bench/report.py), on made-up rows: which runs it
counts slow, and the process/thread ratio over the rounds left."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "tools",
                                "bench"))
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

print("%d failed" % failed)
sys.exit(1 if failed else 0)
