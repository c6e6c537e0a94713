# SPDX-License-Identifier: BSD-3-Clause
"""What one run measured, in three files: bench.md (tables), bench.csv (every measurement,
one row each) with summary.csv (one row per configuration and implementation), and
bench.png (bar chart, median with min-max error bars, drawn by gnuplot).

Ratios are always between medians of the same run. A figure that could not be measured
is written as "n/a" with the reason in the notes, never estimated.
"""
import csv
import math
import os
import statistics
import subprocess
import textwrap

from procs import BenchError

DROP_REASONS = ["ring_full", "tx_full", "no_mbuf", "verdict", "no_route", "shutdown",
                "worker_died", "worker_down", "quarantine"]
RAW_FIELDS = ["round", "seq", "case", "impl", "traffic", "status", "seconds", "sink_mpps",
              "engine_out_mpps", "engine_in_mpps", "port_rx_mpps", "rss_kib", "memory",
              "stage_cycles_per_packet", "acl_cycles_per_packet", "line_rtt_ns",
              "switches_per_s", "waits", "core_cycles_per_packet", "tsc_hz"] + \
             ["drops_" + r for r in DROP_REASONS]
SUMMARY_FIELDS = ["case", "impl", "traffic", "n", "median_mpps", "min_mpps", "max_mpps",
                  "ratio_process_thread", "ratio_testpmd", "testpmd_ref", "ratio_peer",
                  "peer_ref", "rss_kib_median", "stage_cycles_per_packet", "status"]


def mpps(pps):
    return None if pps is None else pps / 1e6


def raw_row(rnd, seq, case, impl, traffic, res, status="ok"):
    r = {"round": rnd, "seq": seq, "case": case, "impl": impl, "traffic": traffic,
         "status": status}
    if res:
        r["seconds"] = "%.3f" % res["seconds"] if "seconds" in res else ""
        for k, src in (("sink_mpps", "sink_pps"), ("engine_out_mpps", "engine_pps"),
                       ("engine_in_mpps", "engine_in_pps"), ("port_rx_mpps", "rx_pps")):
            r[k] = "%.4f" % mpps(res[src]) if src in res else ""
        r["rss_kib"] = res.get("rss_kib", "")
        r["memory"] = " ".join("%s:%s:%s" % (role.replace(" ", ""), pid, kib)
                               for role, pid, kib, _ in res.get("memory", []))
        r["stage_cycles_per_packet"] = " ".join(
            "%s=%.1f" % kv for kv in sorted(res.get("stage_cpp", {}).items()))
        r["acl_cycles_per_packet"] = "%.1f" % res["acl_cpp"] if "acl_cpp" in res else ""
        r["line_rtt_ns"] = "%.1f" % res["line_rtt_ns"] if res.get("line_rtt_ns") else ""
        r["switches_per_s"] = "%.0f" % res["switches_ps"] if "switches_ps" in res else ""
        r["waits"] = " ".join("%s=%.3f" % kv for kv in sorted(res.get("waits", {}).items()))
        r["core_cycles_per_packet"] = " ".join(
            "%s=%.1f" % kv for kv in sorted(res.get("core_cpp", {}).items()))
        r["tsc_hz"] = "%d" % res["tsc_hz"] if res.get("tsc_hz") else ""
        for d in DROP_REASONS:
            r["drops_" + d] = res.get("drops", {}).get(d, "")
    return r


def _f(row, key):
    try:
        return float(row[key])
    except (KeyError, ValueError, TypeError):
        return None


class Summary:
    """Medians and ratios over the raw rows of one run."""

    def __init__(self, rows):
        self.rows = rows
        self.groups = {}
        for r in rows:
            self.groups.setdefault((r["case"], r["impl"]), []).append(r)

    def stat(self, case, impl, key="sink_mpps"):
        rs = self.groups.get((case, impl), [])
        vals = [v for v in (_f(r, key) for r in rs if r["status"] == "ok") if v is not None]
        if not vals:
            why = sorted({r["status"] for r in rs if r["status"] != "ok"})
            return None, ("; ".join(why) if why else "not run")
        return {"median": statistics.median(vals), "min": min(vals), "max": max(vals),
                "n": len(vals)}, "ok"

    def median(self, case, impl, key="sink_mpps"):
        s, _ = self.stat(case, impl, key)
        return s["median"] if s else None

    def _medians(self, case, impl, of):
        """Median over the rounds that ran of each key of of(row)."""
        per = {}
        for r in self.groups.get((case, impl), []):
            if r["status"] != "ok":
                continue
            for k, v in of(r).items():
                per.setdefault(k, []).append(v)
        return {k: statistics.median(v) for k, v in per.items()}

    def stage_cpp(self, case, impl):
        """Median over rounds of each stage's cycles per packet."""
        return self._medians(case, impl, stage_cycles)

    def core_cpp(self, case, impl):
        """Median over rounds of each tier's cycles per packet (see runners._core_cpp)."""
        return self._medians(case, impl, core_cycles)

    def waits(self, case, impl):
        """Median over rounds of each share of waits() (see runners._waits)."""
        return self._medians(case, impl, waits)

    def paired(self, case, a, b, key="sink_mpps", skip=()):
        """Ratio a / b round by round (the two ran one after the other), over the rounds
        both ran, leaving out the runs in @skip ((round, impl) pairs): median, min, max.
        Drifts of the host between rounds cancel out."""
        def by_round(impl):
            return {r["round"]: _f(r, key) for r in self.groups.get((case, impl), [])
                    if r["status"] == "ok" and _f(r, key) and (r["round"], impl) not in skip}
        ra, rb = by_round(a), by_round(b)
        rs = [ra[k] / rb[k] for k in ra if k in rb]
        if not rs:
            return None
        return {"median": statistics.median(rs), "min": min(rs), "max": max(rs),
                "n": len(rs)}

    def rss(self, case, impl):
        vals = [_f(r, "rss_kib") for r in self.groups.get((case, impl), [])
                if r["status"] == "ok"]
        vals = [v for v in vals if v is not None]
        return statistics.median(vals) if vals else None


def ratio(a, b):
    return None if a is None or b is None or b == 0 else a / b


def fmt_ratio(x):
    return "n/a" if x is None else "%.2f" % x


def fmt_paired(p):
    if p is None:
        return "n/a"
    if p["n"] == 1:
        return fmt_ratio(p["median"])
    return "%s (%s–%s)" % (fmt_ratio(p["median"]), fmt_ratio(p["min"]), fmt_ratio(p["max"]))


def fmt_stat(s, why):
    if s is None:
        return "n/a (%s)" % why
    return "%.2f (%.2f–%.2f)" % (s["median"], s["min"], s["max"])


def fmt_kib(v):
    return "n/a" if v is None else "%d" % round(v)


def fmt_cpp(d):
    return ", ".join("%s %.0f" % (k, v) for k, v in sorted(d.items())) or "n/a"


# the most an engine may send while it waits stopped, as a share of its rate: stopped, it
# sends nothing, and what it sends in the moments it runs around a stop (until the SIGSTOP,
# and from the SIGCONT to the telemetry read) is already taken off
ALT_LEAK_MAX = 0.05

ALT_FIELDS = ["pair", "start", "case", "first", "window", "a_mpps", "b_mpps", "ratio",
              "a_switches_per_s", "b_switches_per_s", "stopped_leak", "status", "tsc_hz"]
# the pairs of engines that take turns: the two builds, and the control, two engines of the
# process build (engine 1 and engine 2), which shows what the method reads where nothing
# differs
PAIR = "process/thread"
CONTROL = "process/process"
# the two builds again, on the configurations whose lcores hand a CPU to each other often,
# with ring_size = RING_SIZE given: every ring that long. Left out, as in every other run,
# ring_size makes a ring into a lcore that shares its CPU SHARED_RING_SIZE long, so that the CPU
# changes hands less often; these starts show what that is worth
RING_SIZE = 1024
SHARED_RING_SIZE = 8192
# the engine's pool when mbufs is left out and the configuration needs no more
# (MPE_DEF_MBUFS, common/config/config.h)
DEFAULT_MBUFS = 8191
RING = "process/thread, ring_size %d" % RING_SIZE
# one build with 2 workers against itself with 1 worker, in alternating windows: the rate of
# the 2-worker engine over that of the 1-worker engine, rows under the 2-worker configuration


def scale_pair(model):
    return "%s: 2 workers/1 worker" % model


# one build against a reference program, in alternating windows: the engine's rate over the
# reference's, rows under the engine's configuration


def ref_pair(model, ref):
    return "%s/%s" % (model, ref)


# one build with the pool its configuration gives (mbufs) against itself with the default
# pool, in alternating windows: the rate with mbufs given over that with the default,
# rows under the configuration


def pool_pair(model):
    return "%s: mbufs given/default" % model


# one configuration with the workers' sandbox on (its default) against itself with sandbox =
# off, in the process build (the thread build has no sandbox), in alternating windows: the
# rate with the sandbox over that without, rows under the configuration
SANDBOX_PAIR = "process: sandbox on/off"
CARRY_PAIR = "process: carry on/off"


# one configuration with the flight recorder on (its default) against itself with recorder =
# off, in one build, in alternating windows: the rate with the recorder over that without,
# rows under the configuration


def recorder_pair(model):
    return "%s: recorder on/off" % model


# how often an engine's threads must give up their CPU, a second, in both builds, for its
# configuration to run again with ring_size given: a lcore on a CPU of its own is taken off
# it a few hundred times a second at most (timer ticks, the host's own work); one that shares
# its CPU with another polling lcore, thousands of times
HANDOVER_MIN = 1000


def alt_row(start, case, first, window, rates, status="ok", leak=None, pair=PAIR,
            switched=None, tsc_hz=None):
    """One row of alternate.csv: window @window of an alternating start of @pair (@first:
    the engine started first: a build, or "1" or "2" in the control), @rates = (a pps, b pps)
    in it (process and thread; in the control engine 1 and engine 2), @switched the same for
    the times per second its threads gave up their CPU, @leak the start's largest share of an
    engine's rate sent while it was stopped, @tsc_hz the TSC's rate as engine a gives it
    (/mpe/info; None: a is not the engine). A window in which an engine sent nothing has no
    ratio and fails."""
    r = {"pair": pair, "start": start, "case": case, "first": first, "window": window or "",
         "a_mpps": "", "b_mpps": "", "ratio": "", "a_switches_per_s": "",
         "b_switches_per_s": "",
         "stopped_leak": "" if leak is None else "%.4f" % leak, "status": status,
         "tsc_hz": "" if tsc_hz is None else "%d" % tsc_hz}
    if switched is not None:
        r["a_switches_per_s"], r["b_switches_per_s"] = ("%.0f" % x for x in switched)
    if rates is not None:
        p, t = rates
        r["a_mpps"] = "%.4f" % mpps(p)
        r["b_mpps"] = "%.4f" % mpps(t)
        if p > 0 and t > 0:
            r["ratio"] = "%.4f" % (p / t)
        elif status == "ok":
            r["status"] = "error: no packets in the window"
    return r


def write_alt_csv(rows, outdir):
    _write_rows(os.path.join(outdir, "alternate.csv"), ALT_FIELDS, rows)


# process/thread's target band, and the confidence of the interval each row's median over its
# starts gets (median_interval())
BAND = (0.98, 1.02)
INTERVAL_LEVEL = 0.95
# a start's figures in bench.md's cells, up to this many starts; beyond, their range
STARTS_LISTED = 9
# starts_to_resolve() figures above this are written "over" it
STARTS_SHOWN = 100000


def median_interval(xs, level=INTERVAL_LEVEL):
    """(lo, hi, confidence): an interval that holds the median of the distribution @xs are
    drawn from (the starts' figures, each start independent of the others) with at least
    @level confidence, whatever that distribution: from the k-th smallest of @xs to the k-th
    largest, k as large as @level allows (the sign test's interval: the median lies below
    the k-th smallest only if k - 1 or fewer of the n values do, probability
    P(Binomial(n, 1/2) <= k - 1), and as much above). None when too few values give any
    such interval (under 6 for 0.95)."""
    x = sorted(xs)
    n, best = len(x), None
    for k in range(1, n // 2 + 1):
        tail = sum(math.comb(n, i) for i in range(k)) / 2 ** n
        if 1 - 2 * tail < level:
            break
        best = (x[k - 1], x[n - k], 1 - 2 * tail)
    return best


def starts_to_resolve(starts, band=BAND, level=INTERVAL_LEVEL):
    """About how many starts a row whose starts gave @starts would take for its interval
    (median_interval()) to lie clear of @band's nearer edge, were the starts to go on
    spreading as these do around the median they give. The median of n starts has about
    sqrt(pi/2) * sigma / sqrt(n) for standard error; at the n returned, the interval's
    half-width, z times that, is half the distance d between this median and the edge, so
    that a median of n starts lies within d/2 of the true one, and its interval clear of the
    edge, with the confidence @level gives, if the true median is the one these starts give.
    In logarithms, so that a ratio and its inverse lie equally far from 1. sigma: the median
    absolute deviation of the starts' logarithms times 1.4826, a standard deviation where
    starts spread normally, and one that a few starts in a slow spell of the host do not
    pull out. The figure is no better than d: a row is not resolved because its median lies
    within a few of its standard errors of an edge, so d is about as uncertain as it is
    large, and n goes as 1/d^2. From 20 starts it can be ten times too small or too large,
    and a median near an edge gives the largest and least certain figures (alternate_text()
    writes those above STARTS_SHOWN as "over"). None with under 6 starts, when they do not
    spread, or when their median lies on an edge."""
    if len(starts) < 6 or min(starts) <= 0:
        return None
    logs = [math.log(x) for x in starts]
    mid = statistics.median(logs)
    sigma = 1.4826 * statistics.median(abs(x - mid) for x in logs)
    margin = min(abs(mid - math.log(band[0])), abs(mid - math.log(band[1])))
    if sigma <= 0 or margin <= 0:
        return None
    z = statistics.NormalDist().inv_cdf(0.5 + level / 2)
    return math.ceil((2 * z * math.sqrt(math.pi / 2) * sigma / margin) ** 2)


def band_verdict(iv, band=BAND):
    """Where interval @iv (median_interval()) lies against @band: "within" (wholly inside
    it), "outside" (wholly out of it), "not resolved" (across an edge); None without @iv."""
    if iv is None:
        return None
    if band[0] <= iv[0] and iv[1] <= band[1]:
        return "within"
    if iv[1] < band[0] or iv[0] > band[1]:
        return "outside"
    return "not resolved"


def alt_summary(rows, case, pair=PAIR):
    """@pair's ratio (process/thread, or the control's) of @case from its alternating starts:
    {"starts": [median of the window ratios of each start], "median": median of those,
    "min", "max": over every window, "windows": how many, "errors": failed rows (a start
    that failed whole, or a window), "interval": median_interval() of the starts}; None when
    @case has no row."""
    per, every, errors = {}, [], 0
    for r in rows:
        if r["case"] != case or r["pair"] != pair:
            continue
        if r["status"] != "ok":
            errors += 1
            continue
        x = float(r["ratio"])
        per.setdefault(int(r["start"]), []).append(x)
        every.append(x)
    if not every:
        return {"starts": [], "median": None, "min": None, "max": None, "windows": 0,
                "errors": errors, "interval": None} if errors else None
    starts = [statistics.median(v) for _, v in sorted(per.items())]
    return {"starts": starts, "median": statistics.median(starts), "min": min(every),
            "max": max(every), "windows": len(every), "errors": errors,
            "interval": median_interval(starts)}


def _starts_cell(a):
    """The starts' figures of alt_summary() @a: each, or their range when there are many."""
    xs = a["starts"]
    cell = (", ".join("%.3f" % x for x in xs) if len(xs) <= STARTS_LISTED else
            "%d starts: %.3f–%.3f" % (len(xs), min(xs), max(xs)))
    return cell + (" (%d failed)" % a["errors"] if a["errors"] else "")


def interval_what(a, control):
    """Where alt_summary() @a's interval lies: against BAND (band_verdict()), or for the
    @control, "holds 1" or "misses 1"; None without an interval."""
    iv = a["interval"]
    if iv is None or not control:
        return band_verdict(iv)
    return "holds 1" if iv[0] <= 1 <= iv[1] else "misses 1"


def alternate_text(rows, cases, meta):
    """bench.md's section on the alternating starts."""
    n = meta["alternate"]
    L = ["## Process against thread in alternating windows", "",
         "After the rounds, each configuration ran %s with both builds started side by "
         "side and only one of them running at any time: each stopped (SIGSTOP) while the "
         "other ran a window of %.2f s (measured from %.1f s after it continued), %d windows "
         "each, in the order A B, B A, A B, ..., after a first turn of %.1f s each that is not "
         "measured; the build started first changes from one start to the next, and the "
         "engines run with stall_timeout_ms = 0. A slow spell of the host that lasts longer "
         "than a pair of windows falls on both of them; what differs from one start of a "
         "program to the next does not cancel out, hence several starts. Per start: the median "
         "of its window ratios. A start fails when an engine sent over %.0f%% of its rate "
         "while stopped or a worker restarted. alternate.csv has every window." % (
             "once" if n == 1 else "not at all (`--alternate 0`)" if n == 0 else
             "%d times" % n, meta["window"], meta["settle"],
             meta["windows"],
             meta["warmup"], 100 * ALT_LEAK_MAX), "",
         "| configuration | traffic | process/thread, median over starts | each start | "
         "%.0f%% interval | every window (min–max) | control: process/process, median over "
         "starts | each start | %.0f%% interval |" % (100 * INTERVAL_LEVEL,
                                                     100 * INTERVAL_LEVEL),
         "|---|---|---|---|---|---|---|---|---|"]
    tally = {PAIR: {}, CONTROL: {}}
    pooled = {PAIR: [], CONTROL: []}  # every row's starts
    for c in cases:
        if c.get("fs") or c.get("na"):
            continue
        cells = []
        for pair in (PAIR, CONTROL):
            a = alt_summary(rows, c["name"], pair)
            if a is None or not a["windows"]:
                cells += ["n/a", "%d failed" % a["errors"] if a else "–", "–", "–"]
                continue
            pooled[pair] += a["starts"]
            what, iv = interval_what(a, pair == CONTROL), a["interval"]
            if what:
                tally[pair][what] = tally[pair].get(what, 0) + 1
            if what == "not resolved":
                need = starts_to_resolve(a["starts"])
                if need and need > STARTS_SHOWN:
                    what += ": over %d starts" % STARTS_SHOWN
                elif need:
                    what += ": about %d starts" % need
            cells += ["%.3f" % a["median"], _starts_cell(a),
                      "%.3f–%.3f (%s)" % (iv[0], iv[1], what) if what else "–",
                      "%.2f–%.2f (%d windows)" % (a["min"], a["max"], a["windows"])]
        del cells[-1]  # the control's every-window range: in alternate.csv only
        L.append("| %s | %s | %s |" % (c["label"], c.get("traffic", "–"), " | ".join(cells)))
    L += ["", "Interval: from the k-th smallest start to the k-th largest, k as large as "
          "leaves at least %.0f%% confidence that the row's median (over as many starts as "
          "one likes) lies within, whatever the spread of a start (the sign test's "
          "interval; 6 starts or more). Process/thread is *within* the target band "
          "%.2f–%.2f when its interval is, *outside* when its interval misses the band, *not "
          "resolved* when it crosses an edge: the host's noise is too wide for the starts that "
          "ran; *about N starts*: roughly how many starts would resolve it, were they to go "
          "on spreading as these did around the median they gave (from the median absolute "
          "deviation of their logarithms and that median's distance to the nearer edge). That "
          "distance is itself uncertain, and N goes as its inverse square: from 20 starts, N "
          "can be ten times too small or too large. The control's interval should hold 1." % (
              100 * INTERVAL_LEVEL, BAND[0], BAND[1]), ""]
    if tally[PAIR] or tally[CONTROL]:
        t, k = tally[PAIR], tally[CONTROL]
        L += ["Rows with an interval: process/thread %d within the band, %d not resolved, %d "
              "outside; the control's interval holds 1 on %d, misses it on %d." % (
                  t.get("within", 0), t.get("not resolved", 0), t.get("outside", 0),
                  k.get("holds 1", 0), k.get("misses 1", 0)), ""]
    every = {pr: {"starts": pooled[pr], "interval": median_interval(pooled[pr])}
             for pr in pooled}
    if every[PAIR]["interval"] is not None:
        cells = []
        for pr, name in ((PAIR, "process/thread"), (CONTROL, "the control")):
            e = every[pr]
            if e["interval"] is not None:
                cells.append("%s %.3f over %d starts, interval %.3f–%.3f (%s)" % (
                    name, statistics.median(e["starts"]), len(e["starts"]),
                    e["interval"][0], e["interval"][1], interval_what(e, pr == CONTROL)))
        L += ["Every row's starts together, as the starts of one configuration drawn from "
              "the table's rows: %s." % "; ".join(cells), ""]
    L += ["The control (%s) runs %s the same way with two engines of the process build "
          "in place of the two builds (the engine whose rate is divided changes from one start "
          "to the next as the build started first does): where nothing differs, the spread "
          "of its starts around 1 is what this host lets the method tell apart." % (
              "`--control`", "once" if meta.get("control", 0) == 1 else
              "%d times" % meta.get("control", 0)) if meta.get("control") else
          "No control starts (`--control 0`).", ""]
    return L


def alt_switches(rows, case, pair=PAIR):
    """(a, b): the median over @pair's good windows of @case of how often each engine's
    threads gave up their CPU, a second; None without such windows."""
    a, b = [], []
    for r in rows:
        if r["case"] != case or r["pair"] != pair or r["status"] != "ok":
            continue
        try:
            x, y = float(r["a_switches_per_s"]), float(r["b_switches_per_s"])
        except (KeyError, ValueError):
            continue
        a.append(x)
        b.append(y)
    return (statistics.median(a), statistics.median(b)) if a else None


def handover_cases(rows, cases):
    """The configurations of @cases whose threads gave up their CPU HANDOVER_MIN times a
    second or more in both builds, in the alternating windows of @rows."""
    out = []
    for c in cases:
        sw = alt_switches(rows, c["name"])
        if sw is not None and min(sw) >= HANDOVER_MIN:
            out.append(c)
    return out


def handover_text(rows, cases, meta):
    """bench.md's section on lcores that share a CPU."""
    L = ["## CPU handovers", "",
         "Where an I/O lcore and a worker share a CPU, each gives it to the other with "
         "sched_yield(): the I/O lcore when the worker's input ring is half full, the worker "
         "when that ring is empty. Between two threads that is a change of thread; between "
         "two processes, a change of address space too. *CPU given up* is how often the "
         "engine's threads were taken off their CPU while they could run (nonvoluntary "
         "context switches, /proc/PID/task/TID/status), a second, median over the "
         "alternating windows above. " + (
             "With ring_size left out, as in every run above, the engine makes each ring "
             "into a lcore that shares its CPU %d long, so that the CPU changes hands after "
             "more packets each time. Each configuration at %d a second or more in both "
             "builds ran again, %s the same way, with ring_size = %d given: every ring that "
             "long, as into lcores with CPUs of their own." % (
                 SHARED_RING_SIZE, HANDOVER_MIN, "once" if meta["handover"] == 1 else
                 "%d times" % meta["handover"], RING_SIZE)
             if meta.get("handover") else
             "No configuration ran again with ring_size given (`--no-handover`)."), "",
         "| configuration | traffic | CPU given up /s: process, thread | process/thread | "
         "ring_size %d everywhere: CPU given up /s | process/thread, median over starts | "
         "each start |"
         % RING_SIZE, "|---|---|---|---|---|---|---|"]
    for c in cases:
        if c.get("fs") or c.get("na"):
            continue
        sw = alt_switches(rows, c["name"])
        a = alt_summary(rows, c["name"])
        cells = ["%.0f, %.0f" % sw if sw else "n/a",
                 "%.3f" % a["median"] if a and a["windows"] else "n/a"]
        big = alt_summary(rows, c["name"], RING)
        if big is None:
            cells += ["–", "not run" if sw and min(sw) < HANDOVER_MIN else "–", "–"]
        elif not big["windows"]:
            cells += ["n/a", "n/a", "%d failed" % big["errors"]]
        else:
            sw2 = alt_switches(rows, c["name"], RING)
            cells += ["%.0f, %.0f" % sw2 if sw2 else "n/a", "%.3f" % big["median"],
                      "%s%s" % (", ".join("%.3f" % x for x in big["starts"]),
                                " (%d failed)" % big["errors"] if big["errors"] else "")]
        L.append("| %s | %s | %s |" % (c["label"], c.get("traffic", "–"), " | ".join(cells)))
    L.append("")
    return L


def _write_rows(path, fields, rows, extrasaction="raise"):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction=extrasaction)
        w.writeheader()
        w.writerows(rows)


def write_csv(rows, summary_rows, outdir):
    _write_rows(os.path.join(outdir, "bench.csv"), RAW_FIELDS, rows, extrasaction="ignore")
    _write_rows(os.path.join(outdir, "summary.csv"), SUMMARY_FIELDS, summary_rows)


def summarise(rows, cases, refs):
    """Summary rows (for summary.csv) and the same figures for the tables."""
    s = Summary(rows)
    out = []
    for c in cases:
        for impl in c["impls"]:
            st, why = s.stat(c["name"], impl)
            pt = None
            if impl.startswith("process"):
                pt = s.paired(c["name"], impl, impl.replace("process", "thread"))
                pt = pt["median"] if pt else None
            tp = c.get("testpmd")
            peer = c.get("peer")
            out.append({
                "case": c["name"], "impl": impl, "traffic": c["traffic"],
                "n": st["n"] if st else 0,
                "median_mpps": "%.4f" % st["median"] if st else "",
                "min_mpps": "%.4f" % st["min"] if st else "",
                "max_mpps": "%.4f" % st["max"] if st else "",
                "ratio_process_thread": fmt_ratio(pt) if pt is not None else "",
                "ratio_testpmd": fmt_ratio(ratio(s.median(c["name"], impl),
                                                 s.median("ref", tp))) if tp else "",
                "testpmd_ref": tp or "",
                "ratio_peer": fmt_ratio(ratio(s.median(c["name"], impl),
                                              s.median("ref", peer))) if peer else "",
                "peer_ref": peer or "",
                "rss_kib_median": fmt_kib(s.rss(c["name"], impl)),
                "stage_cycles_per_packet": fmt_cpp(s.stage_cpp(c["name"], impl)),
                "status": why,
            })
    for r in refs:
        st, why = s.stat("ref", r["name"])
        out.append({
            "case": "ref", "impl": r["name"], "traffic": r["traffic"],
            "n": st["n"] if st else 0,
            "median_mpps": "%.4f" % st["median"] if st else "",
            "min_mpps": "%.4f" % st["min"] if st else "",
            "max_mpps": "%.4f" % st["max"] if st else "",
            "ratio_process_thread": "", "ratio_testpmd": "", "testpmd_ref": "",
            "ratio_peer": "", "peer_ref": "",
            "rss_kib_median": fmt_kib(s.rss("ref", r["name"])),
            "stage_cycles_per_packet": fmt_cpp(
                {"acl": s.median("ref", r["name"], "acl_cycles_per_packet")})
            if r["name"] == "dpdk-test-acl" and st else "",
            "status": why,
        })
    return s, out


def markdown(s, cases, refs, meta):
    L = []
    L.append("# mpe-bench: process build vs thread build")
    L.append("")
    if meta.get("quick"):
        L.append("**Smoke run** (`--quick`: one short round of a few configurations): its "
                 "figures show that the tool works, not how fast the engine is.")
        L.append("")
    L.append("Command: `%s`  " % meta["command"])
    L.append("Host: %s  " % meta["host"])
    L.append("Rounds: %d of %.1f s each (after %.1f s of warm-up), builds interleaved "
             "(process, thread, process, thread, ...). Each round takes the configurations "
             "and references in a new random order (seed %d: `--seed %d` repeats it; column "
             "`seq` of bench.csv is the position of each run); a configuration's process and "
             "thread runs are always neighbours. Figures: packets per second at the sink, in "
             "millions: median (min–max) over the rounds." %
             (meta["rounds"], meta["duration"], meta["warmup"], meta["seed"], meta["seed"]))
    L.append("")
    L.append("Traffic: **null** = `net_null` ports 0 and 1, both receiving (the driver makes "
             "empty 64-byte frames, no traffic source is measured) and each forwarding to "
             "the other, both discarding what they transmit; **capture** = `net_pcap` port "
             "0 replaying %s in a loop (`infinite_rx=1`) into a `net_null` sink." %
             meta["pcap_desc"])
    L.append("")
    L.append("## The engine")
    L.append("")
    L.append("| configuration | traffic | process Mpps | thread Mpps | process/thread | "
             "× testpmd | × peer (peer) | RSS KiB process | RSS KiB thread | "
             "cycles/pkt per stage, process | thread | drops (process, thread) |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        if c.get("fs"):
            continue
        n = c["name"]
        sp, wp = s.stat(n, "process")
        st, wt = s.stat(n, "thread")
        mp, mt = s.median(n, "process"), s.median(n, "thread")
        tp = c.get("testpmd")
        peer = c.get("peer")
        tpr = ("%s (%s)" % (fmt_ratio(ratio(mp, s.median("ref", tp))),
                            fmt_ratio(ratio(mt, s.median("ref", tp))))) if tp else "–"
        per = ("%s / %s (%s)" % (fmt_ratio(ratio(mp, s.median("ref", peer))),
                                 fmt_ratio(ratio(mt, s.median("ref", peer))), peer)
               if peer else "–")
        drops = "%s, %s" % (drop_text(s, n, "process"), drop_text(s, n, "thread"))
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            c["label"], c["traffic"], fmt_stat(sp, wp), fmt_stat(st, wt),
            fmt_paired(s.paired(n, "process", "thread")), tpr, per,
            fmt_kib(s.rss(n, "process")),
            fmt_kib(s.rss(n, "thread")), fmt_cpp(s.stage_cpp(n, "process")),
            fmt_cpp(s.stage_cpp(n, "thread")), drops))
    L.append("")
    L.append("process/thread: the two builds' rates divided round by round (they run one "
             "after the other), median (min–max) over the rounds. "
             "× testpmd: the process build's median over testpmd's (the thread build's in "
             "brackets), testpmd in `macswap` mode with as many forwarding lcores as the "
             "configuration has workers, on the same traffic. × peer: process / thread over "
             "the peer named. RSS: VmRSS of every engine process, summed (primary and each "
             "worker process; the one process of the thread build); hugepage memory is "
             "shared and not in VmRSS.")
    L.append("")
    L += scaling_text(s, cases, meta.get("scaling", []), meta.get("alt_rows", []), meta)
    L += ref_side_text(s, cases, meta.get("ref_side", []), meta.get("alt_rows", []), meta)
    L += pool_text(cases, meta.get("pool_side", []), meta.get("alt_rows", []), meta)
    L += sandbox_text(cases, meta.get("sandbox_side", []), meta.get("alt_rows", []), meta)
    L += carry_text(cases, meta.get("carry_side", []), meta.get("alt_rows", []), meta)
    L += recorder_text(cases, meta.get("recorder_side", []), meta.get("alt_rows", []), meta,
                       s)
    fs = [c for c in cases if c.get("fs")]
    if fs:
        L.append("## False sharing: per-worker counters on shared cache lines")
        L.append("")
        L.append("| configuration | build | padded counters Mpps | shared-line counters Mpps "
                 "| shared / padded |")
        L.append("|---|---|---|---|---|")
        for c in fs:
            for model in ("process", "thread"):
                a, wa = s.stat(c["name"], model)
                b, wb = s.stat(c["name"], model + "/shared")
                L.append("| %s | %s | %s | %s | %s |" % (
                    c["label"], model, fmt_stat(a, wa), fmt_stat(b, wb),
                    fmt_ratio(ratio(s.median(c["name"], model + "/shared"),
                                    s.median(c["name"], model)))))
        L.append("")
    L.append("## References, same run")
    L.append("")
    L.append("| reference | traffic | Mpps | RSS KiB | what it is |")
    L.append("|---|---|---|---|---|")
    for r in refs:
        if r["name"] == "dpdk-test-acl":
            st, why = s.stat("ref", r["name"], "acl_cycles_per_packet")
            val = ("%.1f cycles/pkt (%.1f–%.1f)" % (st["median"], st["min"], st["max"])
                   if st else "n/a (%s)" % why)
        else:
            st, why = s.stat("ref", r["name"])
            val = fmt_stat(st, why)
        L.append("| %s | %s | %s | %s | %s |" % (r["name"], r["traffic"], val,
                                                  fmt_kib(s.rss("ref", r["name"])), r["what"]))
    L.append("")
    acl_case = meta.get("acl_case")
    if acl_case:
        ta = s.median("ref", "dpdk-test-acl", "acl_cycles_per_packet")
        L.append("## ACL lookup cost")
        L.append("")
        L.append("| | cycles/pkt | × dpdk-test-acl |")
        L.append("|---|---|---|")
        L.append("| dpdk-test-acl, same rules, trace of the capture's flows | %s | 1.00 |"
                 % ("n/a" if ta is None else "%.1f" % ta))
        for impl in ("process", "thread"):
            cpp = s.stage_cpp(acl_case, impl)
            acl = [v for k, v in cpp.items() if k.endswith(".acl")]
            v = statistics.median(acl) if acl else None
            L.append("| mpe acl stage, %s build (%s) | %s | %s |" % (
                impl, acl_case, "n/a" if v is None else "%.1f" % v,
                fmt_ratio(ratio(v, ta))))
        L.append("")
    if meta.get("alternate") or meta.get("control"):
        L += alternate_text(meta.get("alt_rows", []), cases, meta)
    if meta.get("alternate"):
        L += handover_text(meta.get("alt_rows", []), cases, meta)
    L += waits_text(s, cases)
    L += capacity_text(s, cases, meta)
    L += placement_text(s.rows)
    L += slow_text(s, cases)
    if meta.get("notes"):
        L.append("## Notes")
        L.append("")
        for n in meta["notes"]:
            L.append("- " + n)
        L.append("")
    return "\n".join(L)


# README's headline table (headline.md): (label, configuration, reference) of each engine
# against a reference program, and (label, 1-worker configuration, 2-worker configuration)
# of each step from 1 worker to 2
HEADLINE_REFS = [
    ("forward-only, rss, 1 worker × testpmd macswap, 1 lcore", "fwd-rss-1w",
     "testpmd macswap 1 core"),
    ("full inspection, distributor, 1 worker × l3fwd --lookup=acl", "full-dist-1w",
     "l3fwd --lookup=acl"),
    ("forward-only, distributor, 1 worker × client_server_mp, 1 client", "fwd-dist-1w",
     "client_server_mp 1 client"),
    ("forward-only, distributor, 2 workers × client_server_mp, 2 clients", "fwd-dist-2w",
     "client_server_mp 2 clients"),
]
HEADLINE_SCALING = [
    ("forward-only, rss, 1 → 2 workers (queues 3 and 6)", "fwd-rss-1w", "fwd-rss-2w-apart"),
    ("forward-only, rss, 1 → 2 workers (queues 0 and 1)", "fwd-rss-1w", "fwd-rss-2w"),
]


def _wrapped(text):
    """@text as lines of at most 96 columns (README's prose), then a blank line."""
    return textwrap.wrap(text, 96, break_long_words=False, break_on_hyphens=False) + [""]


def _headline_cells(alt_rows, pair_of, rounds_of):
    """The process and thread cells of one headline row and how they were measured: side by
    side (the median over the starts of @pair_of(model) in @alt_rows, rows of one
    configuration) where that ran in both builds, else the rounds' medians divided
    (@rounds_of(model)), else n/a."""
    side = []
    for m in MODELS:
        per = [r for r in alt_rows if r["pair"] == pair_of(m)]
        a = alt_summary(per, per[0]["case"], pair_of(m)) if per else None
        side.append(a if a and a["windows"] else None)
    if all(side):
        n = min(len(a["starts"]) for a in side)
        return (["%.2f×" % a["median"] for a in side],
                "side by side, median of %d start%s" % (n, "" if n == 1 else "s"))
    rounds = [rounds_of(m) for m in MODELS]
    if all(x is not None for x in rounds):
        return ["%.2f×" % x for x in rounds], "medians of the rounds"
    return ["n/a", "n/a"], "not run"


MODELS = ("process", "thread")


def headline(s, cases, refs, meta):
    """headline.md: a few rows of one run for README, from the same data as bench.md."""
    alt_rows = meta.get("alt_rows", [])
    ran = {c["name"] for c in cases if not c.get("na") and not c.get("fs")}
    L = []
    if meta.get("quick"):
        L += _wrapped("**Smoke run** (`--quick`: one short round of a few configurations): "
                      "these figures show that the tool works, not how fast the engine is.")
    L += _wrapped("Measured by `%s` on %s." % (meta["command"], meta["host"]))
    L += ["| comparison | process build | thread build | how |", "|---|---|---|---|"]
    for label, case, ref in HEADLINE_REFS:
        if case in ran:
            def rounds_of(m, case=case, ref=ref):
                return ratio(s.median(case, m), s.median("ref", ref))
            cells, how = _headline_cells(
                [r for r in alt_rows if r["case"] == case],
                lambda m, ref=ref: ref_pair(m, ref), rounds_of)
        else:
            cells, how = ["n/a", "n/a"], "not run"
        L.append("| %s | %s | %s | %s |" % (label, cells[0], cells[1], how))
    for label, one, two in HEADLINE_SCALING:
        if one in ran and two in ran:
            def rounds_of(m, one=one, two=two):
                return ratio(s.median(two, m), s.median(one, m))
            cells, how = _headline_cells(
                [r for r in alt_rows if r["case"] == two], scale_pair, rounds_of)
        else:
            cells, how = ["n/a", "n/a"], "not run"
        L.append("| %s | %s | %s | %s |" % (label, cells[0], cells[1], how))
    starts, nconf = [], 0
    for c in cases:
        if c["name"] in ran:
            a = alt_summary(alt_rows, c["name"], PAIR)
            starts += a["starts"] if a else []
            nconf += 1 if a and a["starts"] else 0
    iv = median_interval(starts)
    if starts:
        fig = "%.3f" % statistics.median(starts)
        if iv:
            fig += " (%.0f%%: %.3f–%.3f, %s)" % (100 * INTERVAL_LEVEL, iv[0], iv[1],
                                                 band_verdict(iv))
        how = "alternating windows, median of %d start%s over %d configuration%s" % (
            len(starts), "" if len(starts) == 1 else "s", nconf, "" if nconf == 1 else "s")
    else:
        fig, how = "n/a", "not run"
    L.append("| process build / thread build, every configuration | %s | – | %s |" % (fig, how))
    L.append("")
    return "\n".join(L)


# A run is slow when one of its stages costs over SLOW_FACTOR times that stage's cheapest run
# of the same configuration (either build): the mode in which the first touch of what the
# other CPU wrote costs double or more. It must also cost SLOW_EXCESS cycles per packet more:
# between one and two cycles the sampling decides, not the host.
SLOW_FACTOR = 1.5
SLOW_EXCESS = 4.0


def _kv(row, field):
    """{key: float} of a raw row's "key=value key=value" field."""
    return {k: float(v) for k, v in (kv.split("=") for kv in (row.get(field) or "").split())}


def stage_cycles(row):
    """{"w0.parse": 52.1, ...} of one raw row."""
    return _kv(row, "stage_cycles_per_packet")


def waits(row):
    """{"io.wait": 0.41, "w0.found": 0.14, "w0.wait": 0.03, ...} of one raw row."""
    return _kv(row, "waits")


def core_cycles(row):
    """{"io": 61.0, "workers": 40.2, "w0": 40.2, ...} of one raw row."""
    return _kv(row, "core_cycles_per_packet")


# The capacity model's line rates: a frame of B bytes takes B + 20 on the wire (preamble, start
# delimiter, inter-frame gap); IMIX is the simple 7:4:1 mix of 64, 570 and 1518-byte frames
LINKS = [("10 GbE", 10e9), ("25 GbE", 25e9), ("100 GbE", 100e9)]
IMIX_BYTES = (7 * 64 + 4 * 570 + 1518) / 12


def line_pps(bits_per_s, frame_bytes):
    """Frames a second of @frame_bytes that fill a link of @bits_per_s."""
    return bits_per_s / 8 / (frame_bytes + 20)


def cores_needed(pps, cpp, hz):
    """Cores of @hz cycles a second that @pps packets a second of @cpp cycles each keep busy,
    rounded up (0 for no work)."""
    return max(0, math.ceil(pps * cpp / hz - 1e-9))


def tiers(case):
    """(I/O lcores, workers) of @case: the polling lcores of each tier; rss has no I/O lcore,
    nor has a pipeline whose stages drive the ports."""
    ports_by_workers = (case.get("engine_keys") or {}).get("rx") == "workers"
    nio = 0 if case["shape"] == "rss" or ports_by_workers else case.get("io", 1)
    return nio, len(case["workers"])


def model_pps(case, core, hz, cpus):
    """The model's rate of @case on a host of @cpus CPUs at @hz, from its tiers' cycles per
    packet @core ({"io", "workers"}): with a CPU for each polling lcore, the slower tier,
    each tier's lcores sharing its packets evenly; with fewer CPUs, those CPUs' cycles over
    every tier's cycles a packet. (rate, "own" or "shared"); (None, why) where a tier that
    polls has no figure."""
    nio, nw = tiers(case)
    if (nio and "io" not in core) or "workers" not in core or not hz:
        return None, "no figure"
    if nio + nw <= cpus:
        rates = [nw * hz / core["workers"]] + ([nio * hz / core["io"]] if nio else [])
        return min(rates), "own"
    return cpus * hz / (core["workers"] + (core["io"] if nio else 0)), "shared"


def capacity_text(s, cases, meta):
    """The capacity model: each configuration's cycles per packet by tier (process build,
    median over the rounds), the rate one core of each tier moves, the model's rate on this
    host against the rate measured, and the cores each line rate needs."""
    cpus = meta.get("cpus") or 1
    L, hzs = [], []
    for c in cases:
        if c.get("fs") or c.get("na"):
            continue
        core = s.core_cpp(c["name"], "process")
        hz = s.median(c["name"], "process", "tsc_hz")
        if "workers" not in core or not hz:
            continue
        hzs.append(hz)
        nio, nw = tiers(c)
        io = core.get("io") if nio else None
        if not L:
            L += ["## Capacity", "",
                  "| configuration | traffic | cycles/pkt: I/O lcores, workers | Mpps a core: "
                  "I/O, worker | model here | measured | measured/model | cores (I/O + "
                  "workers) for %s, 64 B | the same, IMIX |" % ", ".join(n for n, _ in LINKS),
                  "|---|---|---|---|---|---|---|---|---|"]
        rate, how = model_pps(c, core, hz, cpus)
        got = s.median(c["name"], "process")
        need = []
        for frame in (64, IMIX_BYTES):
            need.append(", ".join("%d + %d" % (
                cores_needed(line_pps(bits, frame), io, hz) if io else 0,
                cores_needed(line_pps(bits, frame), core["workers"], hz)) for _, bits in LINKS))
        L.append("| %s | %s | %s, %.0f | %s, %.1f | %s | %s | %s | %s | %s |" % (
            c["label"], c["traffic"], "%.0f" % io if io else "–", core["workers"],
            "%.1f" % (hz / io / 1e6) if io else "–", hz / core["workers"] / 1e6,
            "%.2f (%s)" % (rate / 1e6, "a CPU each" if how == "own" else "%d CPUs shared"
                           % cpus) if rate else "–",
            "%.2f" % got if got else "–",
            fmt_ratio(ratio(got * 1e6, rate)) if got and rate else "–", need[0], need[1]))
    if L:
        L += ["", "Cycles/pkt: TSC cycles of the busy polls of each tier over the packets "
              "through it, from the engine's telemetry (`cycles` and `in` or `moved` of "
              "`/mpe/stats` for the I/O lcores, each worker's `cycles` of `/mpe/workers,W`), "
              "process build, median over the rounds; a pipeline's workers add up every "
              "stage a packet passes. Mpps a core: `tsc_hz` (%.2f GHz here) over those "
              "cycles. Model here: with a CPU for each polling lcore, the slower tier, its "
              "lcores sharing the packets evenly; with fewer CPUs than polling lcores (%d "
              "here), the CPUs' cycles over both tiers' cycles a packet. Cores: what each "
              "tier needs at line rate, rounded up, for 64-byte frames and for IMIX (7:4:1 "
              "of 64, 570 and 1518 bytes, %.1f on average), 20 bytes of preamble and gap a "
              "frame, at this host's clock and costs. docs/scaling.md says what the model "
              "assumes." % (statistics.median(hzs) / 1e9, cpus, IMIX_BYTES), ""]
    return L


def fmt_share(x):
    return "–" if x is None else "%.0f%%" % (100 * x)


def waits_text(s, cases):
    """Who waits for whom: per configuration and build, the median share of the time the I/O
    lcore spent finding every ring into the workers full, and each worker finding its input
    empty."""
    L = []
    for c in cases:
        if c.get("fs") or c.get("na"):
            continue
        cells, any_share = [], False
        for impl in ("process", "thread"):
            sh = s.waits(c["name"], impl)
            any_share = any_share or any(k.endswith(".wait") for k in sh)
            ws = ", ".join("%s %s" % (k.split(".")[0], fmt_share(v))
                           for k, v in sorted(sh.items())
                           if k.endswith(".wait") and k.startswith("w")) or "–"
            cells += [fmt_share(sh.get("io.wait")), ws]
        if not any_share:
            continue
        if not L:
            L += ["## Who waits for whom", "",
                  "| configuration | traffic | process: I/O lcore waits for the workers | "
                  "process: workers wait for packets | thread: I/O lcore | thread: workers |",
                  "|---|---|---|---|---|---|"]
        L.append("| %s | %s | %s |" % (c["label"], c["traffic"], " | ".join(cells)))
    if L:
        L += ["", "Shares of the measured time, from the engine's telemetry, median over the "
              "rounds: the I/O lcore's polls on which every ring into the workers was full, so "
              "that it left the ports alone (`wait_cycles` of `/mpe/stats`), and each "
              "worker's polls that found its input empty (`wait_cycles` of `/mpe/workers`), "
              "in TSC cycles of `/mpe/info`'s `tsc_hz`. A lcore that waits little is the one "
              "the others wait for; in shape rss the workers poll the ports and no I/O lcore "
              "runs. bench.csv's `waits` also has the shares of polls (`io.full`, "
              "`wN.found`: polls that found packets).", ""]
    return L


def slow_runs(s, case):
    """The runs of @case (process and thread builds) in which a stage cost over SLOW_FACTOR
    times its cheapest run of the case: {(round, impl): (stage, cycles, cheapest)}, the
    stage furthest above its cheapest for each."""
    rows = [r for impl in ("process", "thread") for r in s.groups.get((case, impl), [])
            if r["status"] == "ok"]
    best = {}
    for r in rows:
        for k, v in stage_cycles(r).items():
            best[k] = min(v, best.get(k, v))
    out = {}
    for r in rows:
        worst = None
        for k, v in stage_cycles(r).items():
            if v > SLOW_FACTOR * best[k] and v - best[k] >= SLOW_EXCESS and (
                    worst is None or v / best[k] > worst[1] / worst[2]):
                worst = (k, v, best[k])
        if worst:
            out[(r["round"], r["impl"])] = worst
    return out


def fast_paired(s, case, slow):
    """process / thread over the rounds in which neither build's run of @case was slow."""
    return s.paired(case, "process", "thread", skip=slow)


def slow_text(s, cases):
    """Per configuration: its slow runs, and process/thread over the rounds without one."""
    L = ["## Slow runs", "",
         "A run is counted slow when one of its stages cost over %.1f times that stage's "
         "cheapest run of the configuration, in either build, and at least %.0f cycles per "
         "packet more. On a virtual machine whose host moves "
         "its CPUs, a configuration that hands packets from one CPU to the other has runs in "
         "which the first stage to touch what the other CPU wrote costs double or more; such "
         "a run says more about the host than about the build. Only a slow mode that shows in "
         "a stage's cost is found here: a driver or host that is slower while the stages "
         "cost the same is not. The process/thread figures "
         "of the tables above count every round; the last column here leaves out the rounds "
         "with a slow run." % (SLOW_FACTOR, SLOW_EXCESS), "",
         "| configuration | slow runs: round, build, stage, cycles/pkt (cheapest) | "
         "process/thread, every round | process/thread, rounds without a slow run |",
         "|---|---|---|---|"]
    for c in cases:
        if c.get("fs"):
            continue
        slow = slow_runs(s, c["name"])
        runs = "; ".join("%s %s: %s %.0f (%.0f)" % (rnd, impl, k, v, b)
                         for (rnd, impl), (k, v, b) in sorted(slow.items())) or "none"
        fp = fast_paired(s, c["name"], slow)
        L.append("| %s | %s | %s | %s |" % (
            c["label"], runs, fmt_paired(s.paired(c["name"], "process", "thread")),
            "%s, %d round%s" % (fmt_paired(fp), fp["n"], "" if fp["n"] == 1 else "s")
            if fp else "n/a (no such round)"))
    L.append("")
    return L


def _starts_text(meta):
    """How many alternating starts of how many windows each ran side by side."""
    n = meta.get("side_starts", meta.get("alternate")) if meta else 0
    if not n:
        return "none in this run"
    return "%d start%s of %d windows each" % (n, "" if n == 1 else "s", meta["windows"])


def _side_cell(a):
    """A cell of the side-by-side scaling: the median over starts, then each start."""
    if a is None:
        return "–"
    if not a["windows"]:
        return "n/a (%d failed)" % a["errors"]
    return "%.2f (%s%s)" % (a["median"], ", ".join("%.2f" % x for x in a["starts"]),
                            "; %d failed" % a["errors"] if a["errors"] else "")


def ref_side_text(s, cases, pairs, alt_rows, meta):
    """Against the references, side by side: for each (configuration, reference) of @pairs
    that ran in alternating windows (@alt_rows, pairs ref_pair()), each build's rate over the
    reference's, next to the same ratio from the rounds."""
    ran = {c["name"]: c for c in cases if not c.get("na")}
    side = {(r["case"], r["pair"]) for r in alt_rows}
    models = ("process", "thread")
    L = []
    for cn, ref in pairs:
        if cn not in ran or not any((cn, ref_pair(m, ref)) in side for m in models):
            continue
        if not L:
            L += ["## Against the references, side by side", "",
                  "| configuration | traffic | reference | process × reference, side by side "
                  "| thread × reference, side by side | rounds: process, thread |",
                  "|---|---|---|---|---|---|"]
        cells = [_side_cell(alt_summary(alt_rows, cn, ref_pair(m, ref))) for m in models]
        cells.append("%s, %s" % tuple(fmt_ratio(ratio(s.median(cn, m), s.median("ref", ref)))
                                      for m in models))
        L.append("| %s | %s | %s | %s |" % (ran[cn]["label"], ran[cn].get("traffic", "–"),
                                             ref, " | ".join(cells)))
    if L:
        L += ["", "Side by side: the engine of one build and the reference program started "
              "together on the same traffic and lcores and run in alternating windows as "
              "the two builds are above (%s), so that both see the same host: the engine's "
              "rate over the reference's, the median over the starts, and in brackets each "
              "start's median window ratio. Rounds: the engine's median over the reference's "
              "median, from runs minutes apart." % (
                  _starts_text(meta)), ""]
    return L


def _side_section(cases, names, alt_rows, pairs, title, columns, cells, footer):
    """A section of configurations each run against itself with one thing changed: a row for
    each of @names that ran and has rows of one of @pairs in @alt_rows, its label, its traffic
    and cells(name); headed "## @title" and @columns (after configuration and traffic), then
    @footer. [] when none has."""
    ran = {c["name"]: c for c in cases if not c.get("na")}
    side = {(r["case"], r["pair"]) for r in alt_rows}
    rows = ["| %s | %s | %s |" % (ran[cn]["label"], ran[cn].get("traffic", "–"),
                                  " | ".join(cells(cn)))
            for cn in names if cn in ran and any((cn, p) in side for p in pairs)]
    if not rows:
        return []
    return (["## " + title, "", "| configuration | traffic | %s |" % " | ".join(columns),
             "|---" * (len(columns) + 2) + "|"] + rows + ["", footer, ""])


def pool_text(cases, names, alt_rows, meta):
    """Pool size, side by side: for each configuration of @names that ran against itself on
    the default pool (@alt_rows, pairs pool_pair()), each build's rate with its mbufs over
    the rate with the default pool."""
    ran = {c["name"]: c for c in cases if not c.get("na")}
    models = ("process", "thread")
    return _side_section(
        cases, names, alt_rows, [pool_pair(m) for m in models], "Pool size, side by side",
        ["mbufs", "process, mbufs given/default", "thread, mbufs given/default"],
        lambda cn: [ran[cn].get("engine_keys", {}).get("mbufs", "–")] +
        [_side_cell(alt_summary(alt_rows, cn, pool_pair(m))) for m in models],
        "The configuration with the mbufs it gives and the same configuration with "
        "mbufs left out (the engine's default pool: %d mbufs, or more where its rings, "
        "queues, caches and a replayed capture need them) started together "
        "in one build and run in alternating windows as the two builds are (section "
        "\"Process against thread in alternating windows\", %s): "
        "the rate with mbufs given over the rate with the default pool, the median over "
        "the starts, and in brackets each start's median window ratio." % (
            DEFAULT_MBUFS, _starts_text(meta)))


def sandbox_text(cases, names, alt_rows, meta):
    """Sandbox on against off, side by side: for each configuration of @names that ran against
    itself with sandbox = off (@alt_rows, pair SANDBOX_PAIR), the process build's rate with
    the workers' sandbox over its rate without."""
    return _side_section(
        cases, names, alt_rows, [SANDBOX_PAIR], "Sandbox on against off, side by side",
        ["process, sandbox on/off"],
        lambda cn: [_side_cell(alt_summary(alt_rows, cn, SANDBOX_PAIR))],
        "The configuration with the workers' sandbox on (its default: no "
        "capabilities, Landlock, a seccomp allowlist; docs/sandbox.md) and the same "
        "with `sandbox = off`, started together in the process build and run in "
        "alternating windows as the two builds are (section \"Process against thread in "
        "alternating windows\", %s): the rate with the sandbox over the rate without, "
        "the median over the starts, and in brackets each start's median window ratio. "
        "The packet path makes no system call, so the filter never runs on it." % (
            _starts_text(meta)))


def carry_text(cases, names, alt_rows, meta):
    """Carry on against off, side by side: for each configuration of @names that ran against
    itself with carry = off (@alt_rows, pair CARRY_PAIR), the process build's rate with the
    undo log over its rate without, and the TSC cycles a packet that makes."""
    return _side_section(
        cases, names, alt_rows, [CARRY_PAIR], "Carry on against off, side by side",
        ["process, carry on/off", "process, cycles/pkt on − off"],
        lambda cn: [_side_cell(alt_summary(alt_rows, cn, CARRY_PAIR)),
                    _cycles_cell(cycles_summary(alt_rows, cn, CARRY_PAIR))],
        "The configuration with `carry = on` (its default: a worker killed from "
        "outside leaves its burst to its replacement, and while a burst is in the "
        "stages every counter it moves is logged first, to be put back; "
        "docs/recovery.md) and the same with `carry = off`, started together in the "
        "process build and run in alternating windows as the two builds are (section "
        "\"Process against thread in alternating windows\", %s): the rate with the log "
        "over the rate without, the median over the starts, and in brackets each "
        "start's median window ratio; cycles/pkt as in the recorder's section. The "
        "thread build logs nothing." % (_starts_text(meta)))


def cycles_summary(rows, case, pair):
    """@pair's cost in TSC cycles a packet of @case from its alternating starts: in each good
    window, tsc_hz / a's rate - tsc_hz / b's rate (tsc_hz / rate: the TSC cycles of the run's
    time that one packet at the sink takes), {"starts": [median of each start's windows],
    "median": median of those, "windows": how many, "errors": failed rows, "no_hz": good
    windows without tsc_hz}; None when @case has no row of @pair."""
    per, errors, no_hz, n = {}, 0, 0, 0
    for r in rows:
        if r["case"] != case or r["pair"] != pair:
            continue
        if r["status"] != "ok":
            errors += 1
            continue
        hz = _f(r, "tsc_hz")
        if not hz:
            no_hz += 1
            continue
        a, b = _f(r, "a_mpps") * 1e6, _f(r, "b_mpps") * 1e6
        per.setdefault(int(r["start"]), []).append(hz / a - hz / b)
        n += 1
    if not per and not errors and not no_hz:
        return None
    starts = [statistics.median(v) for _, v in sorted(per.items())]
    return {"starts": starts, "median": statistics.median(starts) if starts else None,
            "windows": n, "errors": errors, "no_hz": no_hz}


def _cycles_cell(a):
    """A cell of cycles_summary() @a: the median over starts, then each start's."""
    if a is None:
        return "–"
    if not a["windows"]:
        return "n/a (%s)" % "; ".join(
            x for x in ("%d failed" % a["errors"] if a["errors"] else "",
                        "no tsc_hz" if a["no_hz"] else "") if x)
    return "%.1f (%s%s)" % (a["median"], ", ".join("%.1f" % x for x in a["starts"]),
                            "; %d failed" % a["errors"] if a["errors"] else "")


def _rec_worker_cell(s, case, impl):
    """The recorder's cycles per packet as the workers count them (stage "recorder" of
    stage_cpp), the median over the rounds, each worker's; "–" where none was counted."""
    cpp = s.stage_cpp(case, impl) if s is not None else {}
    got = sorted((k, v) for k, v in cpp.items() if k.endswith(".recorder"))
    return ", ".join("%.1f" % v for _, v in got) if got else "–"


def recorder_text(cases, names, alt_rows, meta, s=None):
    """Recorder on against off, side by side: for each configuration of @names that ran
    against itself with recorder = off (@alt_rows, pairs recorder_pair()), each build's rate
    with the flight recorder over its rate without, the TSC cycles a packet that makes; and
    from the rounds (@s, a Summary), the cycles its writes take as each worker counts them."""
    models = ("process", "thread")
    return _side_section(
        cases, names, alt_rows, [recorder_pair(m) for m in models],
        "Recorder on against off, side by side",
        ["process, recorder on/off", "thread, recorder on/off",
         "process, cycles/pkt on − off", "thread, cycles/pkt on − off",
         "process, cycles/pkt in the worker", "thread, cycles/pkt in the worker"],
        lambda cn: [_side_cell(alt_summary(alt_rows, cn, recorder_pair(m))) for m in models] +
        [_cycles_cell(cycles_summary(alt_rows, cn, recorder_pair(m))) for m in models] +
        [_rec_worker_cell(s, cn, m) for m in models],
        "The configuration with the flight recorder on (its default: each worker "
        "copies the first `recorder_snap` bytes of every packet it takes, 128 as the "
        "configurations leave it out, into a ring in shared memory) and the same with "
        "`recorder = off`, started together in one build and run in alternating windows "
        "as the two builds are (section \"Process against thread in alternating "
        "windows\", %s), in each build. On/off: the rate with the recorder over the rate "
        "without, the median over the starts, and in brackets each start's median window "
        "ratio. Cycles/pkt: in each pair of neighbouring windows, tsc_hz / rate with the "
        "recorder less tsc_hz / rate without, tsc_hz the TSC's rate the engine gives in "
        "`/mpe/info` (column `tsc_hz` of alternate.csv): the TSC cycles of the run's "
        "time that each packet at the sink takes more with the recorder; the median over "
        "the starts of each start's median over its windows, and in brackets each "
        "start's. It is derived from the two rates, not counted in the worker: where "
        "another lcore than the worker limits the rate, what the recorder costs the "
        "worker need not show in it. In the worker: the TSC cycles of its writes per "
        "packet, timed in the worker as its stages are (counter `recorder` of "
        "`/mpe/workers`, on one burst in cycles_sample), the median over the rounds "
        "(the recorder on, as the configurations leave it), one figure per worker: "
        "what the recorder itself takes, without what it may make other work pay in "
        "the cache." % (_starts_text(meta)))


def scaling_text(s, cases, pairs, alt_rows=(), meta=None):
    """From 1 worker to 2: for each (one worker, two workers) pair of configurations that
    ran, each build's median over the rounds with 2 workers over its median with 1, and
    where the pair also ran side by side (@alt_rows, pairs scale_pair()), the median over
    those starts of each start's median window ratio."""
    ran = {c["name"]: c for c in cases if not c.get("na")}
    side = {(r["case"], r["pair"]) for r in alt_rows}
    models = ("process", "thread")
    L = []
    for one, two in pairs:
        if one not in ran or two not in ran:
            continue
        if not L:
            L += ["## From 1 worker to 2", "",
                  "| 1 worker | 2 workers | process, rounds | thread, rounds | process, side "
                  "by side | thread, side by side |", "|---|---|---|---|---|---|"]
        cells = [fmt_ratio(ratio(s.median(two, m), s.median(one, m))) for m in models]
        cells += [_side_cell(alt_summary(alt_rows, two, scale_pair(m)))
                  if (two, scale_pair(m)) in side else "–" for m in models]
        L.append("| %s | %s | %s |" % (ran[one]["label"], ran[two]["label"], " | ".join(cells)))
    if L:
        L += ["", "Rounds: median rate with 2 workers over the median with 1, each build on "
              "its own; the two configurations run minutes apart, so a change of the host's "
              "speed in between moves the ratio. Side by side: the 2-worker and 1-worker "
              "engines of one build started together and run in alternating windows as the "
              "two builds are above (%s), so that both see the same host; the median over "
              "the starts, and in brackets each start's median window ratio. In shape rss "
              "each worker has a CPU of its own; in the distributor the I/O lcore shares a "
              "CPU with worker 1 on a 2-CPU host." % (
                  _starts_text(meta)), ""]
    return L


def placement_text(rows):
    """Where the host put the two CPUs, as the cache line round trip measured before each
    run shows it: runs that found it slow are listed, since every figure of a configuration
    that hands packets from one CPU to the other drops with it."""
    rtts = [(r, _f(r, "line_rtt_ns")) for r in rows]
    rtts = [(r, v) for r, v in rtts if v]
    if not rtts:
        return []
    fast = min(v for _, v in rtts)
    slow = [(r, v) for r, v in rtts if v > 2 * fast]
    L = ["## CPU placement", "",
         "Before each run, `mpe-costs switch` bounces a cache line between the two CPUs the "
         "runs use: round trip %.0f ns at the fastest, %.0f ns median, %.0f ns at the "
         "slowest (column `line_rtt_ns` of bench.csv). A virtual machine's host may move "
         "its virtual CPUs while it runs; a packet handed from one CPU to the other (the "
         "distributor and pipeline shapes, or a reference with two lcores) pays this "
         "trip for every cache line it brings along, so those figures drop with it." %
         (fast, sorted(v for _, v in rtts)[len(rtts) // 2], max(v for _, v in rtts)), ""]
    if slow:
        L.append("Runs that found the round trip over twice the fastest (%d of %d):" %
                 (len(slow), len(rtts)))
        L.append("")
        L.append("| round | configuration | build or reference | line round trip ns | "
                 "Mpps |")
        L.append("|---|---|---|---|---|")
        for r, v in slow:
            name = r["impl"] if r["case"] == "ref" else r["case"]
            L.append("| %s | %s | %s | %.0f | %s |" % (
                r["round"], name, "reference" if r["case"] == "ref" else r["impl"], v,
                r.get("sink_mpps") or "-"))
    else:
        L.append("No run found it over twice the fastest: the placement held for the whole "
                 "run.")
    L.append("")
    return L


def drop_text(s, case, impl):
    tot = {}
    for r in s.groups.get((case, impl), []):
        if r["status"] != "ok":
            continue
        for d in DROP_REASONS:
            v = _f(r, "drops_" + d)
            if v:
                tot[d] = tot.get(d, 0) + v
    if not s.groups.get((case, impl)):
        return "n/a"
    return " ".join("%s %d" % kv for kv in sorted(tot.items())) or "0"


def chart(s, cases, refs, outdir):
    """bench.png: per configuration, process, thread and its peer (or testpmd)."""
    dat = os.path.join(outdir, "bench.dat")
    rows = []
    for c in cases:
        if c.get("fs"):
            for layout, suffix in (("padded", ""), ("shared lines", "/shared")):
                cols = []
                for impl in ("process" + suffix, "thread" + suffix):
                    st, _ = s.stat(c["name"], impl)
                    cols += ([st["median"], st["min"], st["max"]] if st else [0, 0, 0])
                rows.append(("%s %s" % (c["name"], layout), cols + [0, 0, 0]))
            continue
        cols = []
        ref = c.get("peer")
        if ref is None or s.stat("ref", ref)[0] is None:
            ref = c.get("testpmd")
        for case, impl in ((c["name"], "process"), (c["name"], "thread"), ("ref", ref)):
            st, _ = s.stat(case, impl) if impl else (None, "")
            cols += ([st["median"], st["min"], st["max"]] if st else [0, 0, 0])
        rows.append((c["name"], cols))
    # the references that no configuration is compared with get a bar of their own
    shown = {c.get("peer") or c.get("testpmd") for c in cases if not c.get("fs")}
    for r in refs:
        if r["name"] == "dpdk-test-acl":  # classifications, not forwarded packets
            continue
        st, _ = s.stat("ref", r["name"])
        if r["name"] not in shown and st:
            rows.append((r["name"], [0, 0, 0, 0, 0, 0, st["median"], st["min"], st["max"]]))
    if not rows:
        raise BenchError("nothing was measured: no chart")
    with open(dat, "w") as f:
        f.write("# case process(med min max) thread(med min max) reference(med min max)\n")
        for name, cols in rows:
            f.write('"%s" %s\n' % (name, " ".join("%.4f" % v for v in cols)))
    gp = os.path.join(outdir, "bench.gp")
    with open(gp, "w") as f:
        f.write("""set terminal pngcairo size 1200,600 font ",10"
set output '%s'
set title "mpe-bench: packets per second at the sink (median, min-max bars)"
set ylabel "Mpps"
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set xtics rotate by -25
set key top right
set rmargin 12
set bmargin 9
set yrange [0:*]
set grid ytics
plot '%s' using 2:3:4:xtic(1) title "process build", \\
     '' using 5:6:7 title "thread build", \\
     '' using 8:9:10 title "reference (peer, or testpmd macswap)"
""" % (os.path.join(outdir, "bench.png"), dat))
    r = subprocess.run(["gnuplot", gp], capture_output=True, text=True)
    if r.returncode != 0:
        raise BenchError("gnuplot failed: %s" % r.stderr.strip())
