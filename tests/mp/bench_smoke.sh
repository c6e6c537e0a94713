#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# mpe-bench --quick: the outputs exist and are well formed (never the speed), and the tool
# leaves no process, hugepage file or runtime directory behind. The other build (thread
# when this is the process build, and the reverse) is found next to this one, or built by
# the tool in its cache.
. "$(dirname "$0")/lib.sh"

TOP=$(cd "$(dirname "$0")/../.." && pwd)
out=$TMP/out
"$TOP/tools/mpe-bench" --quick --out "$out" "--$MODEL-build" "$BUILD" > "$TMP/bench.log" 2>&1 &
bench=$!
wait "$bench" && rc=0 || rc=$?
check "mpe-bench --quick exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || tail -30 "$TMP/bench.log"

for f in bench.md headline.md bench.csv summary.csv alternate.csv bench.png; do
	check "$f written" [ -s "$out/$f" ]
done
check "bench.md and headline.md say a --quick run is a smoke run" \
	cond 'grep -q "Smoke run" "$out/bench.md" && grep -q "Smoke run" "$out/headline.md"'

if python3 - "$out" "$TOP" > "$TMP/check.log" 2>&1 <<'PY'
import csv, struct, sys
out = sys.argv[1]
bad = []
raw = list(csv.DictReader(open(out + "/bench.csv")))
for impl in ("process", "thread"):
    ok = [r for r in raw if r["case"] == "fwd-rss-1w" and r["impl"] == impl and r["status"] == "ok"]
    if not ok:
        bad.append("bench.csv: no measurement of fwd-rss-1w in the %s build" % impl)
    for r in ok:
        for k in ("sink_mpps", "engine_out_mpps", "seconds", "rss_kib"):
            try:
                float(r[k])
            except ValueError:
                bad.append("bench.csv: %s %s: %s is not a number: %r" % (r["case"], impl, k, r[k]))
        if not r["stage_cycles_per_packet"].startswith("w0.fwd="):
            bad.append("bench.csv: no cycles per packet of stage fwd: %r" % r["stage_cycles_per_packet"])
        try:
            if float(r["switches_per_s"]) < 0:
                raise ValueError
        except ValueError:
            bad.append("bench.csv: switches_per_s is not a rate: %r" % r["switches_per_s"])
        if len(r["memory"].split()) != (2 if impl == "process" else 1):
            bad.append("bench.csv: memory of every engine process: %r" % r["memory"])
# who waits for whom: the distributor's I/O lcore and worker, shares of their polls and of
# the time (a share of time a little over 1 from the clocks' reading points)
for r in raw:
    if r["case"] != "fwd-dist-1w" or r["status"] != "ok":
        continue
    try:
        sh = dict((k, float(v)) for k, v in (kv.split("=") for kv in r["waits"].split()))
    except ValueError:
        sh = {}
    if sorted(sh) != ["io.full", "io.wait", "w0.found", "w0.wait"] or \
            not all(0 <= v <= 1.2 for v in sh.values()):
        bad.append("bench.csv: fwd-dist-1w %s: waits %r" % (r["impl"], r["waits"]))
waits = open(out + "/bench.md").read().split("## Who waits for whom\n")
if len(waits) != 2 or "| forward-only, distributor, 1 worker | null | " not in \
        waits[1].split("\n## ")[0]:
    bad.append("bench.md: no section on who waits, with the distributor in it")
# the CPU placement probe before every run (two CPUs or more)
# the run order: every row has its position, the rows are in that order, and a
# configuration's thread run comes right after its process run
try:
    seqs = [int(r["seq"]) for r in raw]
    if seqs != list(range(1, len(raw) + 1)):
        bad.append("bench.csv: seq is not the rows' order: %r" % seqs)
    pos = {(r["round"], r["case"], r["impl"]): int(r["seq"]) for r in raw}
    for (rnd, case, impl), q in pos.items():
        if impl == "process" and pos.get((rnd, case, "thread")) != q + 1:
            bad.append("bench.csv: %s round %s: the thread run is not next to the process run"
                       % (case, rnd))
except (KeyError, ValueError) as e:
    bad.append("bench.csv: no seq column of integers: %s" % e)
if "`--seed " not in open(out + "/bench.md").read():
    bad.append("bench.md: the seed of the run order is not given")
# the order itself, on more configurations and rounds than a quick run has
import importlib.machinery, importlib.util
spec = importlib.util.spec_from_loader("mpe_bench", importlib.machinery.SourceFileLoader(
    "mpe_bench", sys.argv[2] + "/tools/mpe-bench"))
mb = importlib.util.module_from_spec(spec)
sys.path.insert(0, sys.argv[2] + "/tools/bench")
spec.loader.exec_module(mb)
cs = [{"name": "c%d" % i, "impls": ["process", "thread"]} for i in range(6)]
rs = [{"name": "r%d" % i} for i in range(3)]
def names(runs):
    return [(rnd, item["name"], impl) for rnd, _, item, impl in runs]
order = names(mb.run_order(cs, rs, 4, 7))
if order != names(mb.run_order(cs, rs, 4, 7)):
    bad.append("run_order: one seed, two orders")
rounds = [[(n, i) for rnd, n, i in order if rnd == k] for k in range(1, 5)]
want = sorted([(c["name"], i) for c in cs for i in c["impls"]] + [(r["name"], None) for r in rs])
for k, rr in enumerate(rounds, 1):
    if sorted(rr, key=str) != sorted(want, key=str):
        bad.append("run_order: round %d does not run everything once: %r" % (k, rr))
    for j, (n, i) in enumerate(rr):
        if i == "process" and (j + 1 >= len(rr) or rr[j + 1] != (n, "thread")):
            bad.append("run_order: round %d: %s's thread run is not next to its process run" % (k, n))
if len({tuple(n for n, _ in rr) for rr in rounds}) == 1:
    bad.append("run_order: every round in the same order")
import os
if (os.cpu_count() or 1) >= 2:
    for r in raw:
        if r["status"] != "ok":
            continue
        try:
            if not float(r["line_rtt_ns"]) > 0:
                raise ValueError
        except ValueError:
            bad.append("bench.csv: %s %s: line_rtt_ns is not a round trip: %r"
                       % (r["case"], r["impl"], r["line_rtt_ns"]))
    if "## CPU placement" not in open(out + "/bench.md").read():
        bad.append("bench.md: no CPU placement section")
text = open(out + "/bench.md").read()
if "## Slow runs\n" not in text or "| forward-only, rss, 1 worker | " not in text.split(
        "## Slow runs\n")[-1]:
    bad.append("bench.md: no slow-run section with fwd-rss-1w in it")
summ = list(csv.DictReader(open(out + "/summary.csv")))
cases = {(r["case"], r["impl"]) for r in summ}
for want in (("fwd-rss-1w", "process"), ("fwd-rss-1w", "thread"),
             ("ref", "testpmd macswap 1 core"), ("ref", "dpdk-test-acl")):
    if want not in cases:
        bad.append("summary.csv: no row for %s %s" % want)
for r in summ:
    if r["case"] == "fwd-rss-1w" and r["impl"] == "process":
        for k in ("ratio_process_thread", "ratio_testpmd"):
            try:
                float(r[k])
            except ValueError:
                bad.append("summary.csv: %s is not a ratio: %r" % (k, r[k]))
# the alternating windows: one start of fwd-rss-1w, each window a rate of both builds and
# their ratio, and its line in bench.md's section
# (--quick: one start, the process build started first, two windows each; each engine
# stopped while the other ran, so that it sent next to nothing then)
allalt = [r for r in csv.DictReader(open(out + "/alternate.csv")) if r["case"] == "fwd-rss-1w"]
alt = [r for r in allalt if r["pair"] == "process/thread"]
if [(r["start"], r["first"], r["window"], r["status"]) for r in alt] != [
        ("1", "process", "1", "ok"), ("1", "process", "2", "ok")]:
    bad.append("alternate.csv: not two good windows of fwd-rss-1w: %r" % alt)
# and the control: two engines of the process build, engine 1 started first
ctl = [r for r in allalt if r["pair"] == "process/process"]
if [(r["start"], r["first"], r["window"], r["status"]) for r in ctl] != [
        ("1", "1", "1", "ok"), ("1", "1", "2", "ok")]:
    bad.append("alternate.csv: not two good control windows of fwd-rss-1w: %r" % ctl)
ratios = []
for r in alt + ctl:
    try:
        p, t, q = float(r["a_mpps"]), float(r["b_mpps"]), float(r["ratio"])
        if not (p > 0 and t > 0 and abs(q / (p / t) - 1) < 1e-3):
            raise ValueError
        if not 0 <= float(r["stopped_leak"]) < 0.05:
            raise ValueError
        if float(r["a_switches_per_s"]) < 0 or float(r["b_switches_per_s"]) < 0:
            raise ValueError
        if r["pair"] == "process/thread":
            ratios.append(q)
    except ValueError:
        bad.append("alternate.csv: a window without two rates, their ratio and a small "
                   "stopped leak: %r" % r)
sec = open(out + "/bench.md").read().split("## Process against thread in alternating windows\n")
line = [x for x in (sec[1].split("\n## ")[0].splitlines() if len(sec) == 2 else [])
        if x.startswith("| forward-only, rss, 1 worker | null | ")]
if len(ratios) == 2 and (len(line) != 1 or line[0].split(" | ")[2] != "%.3f" % (
        (ratios[0] + ratios[1]) / 2)):
    bad.append("bench.md: the alternating section's fwd-rss-1w line is not the median of "
               "its windows: %r" % line)
# CPU handovers: every configuration alternated has its line; fwd-rss-1w's lcores each have
# a CPU of their own, so it is not run again with ring_size given
sec = open(out + "/bench.md").read().split("## CPU handovers\n")
line = [x for x in (sec[1].split("\n## ")[0].splitlines() if len(sec) == 2 else [])
        if x.startswith("| forward-only, rss, 1 worker | null | ")]
if len(line) != 1 or not line[0].endswith(" | – | not run | – |"):
    bad.append("bench.md: no CPU handovers line for fwd-rss-1w, not run again: %r" % line)
if [r for r in allalt if r["pair"].startswith("process/thread, ring_size")]:
    bad.append("alternate.csv: fwd-rss-1w ran again with ring_size given")
# from 1 worker to 2: the quick run has rss with 1 worker and with 2 on queues 3 and 6
for impl in ("process", "thread"):
    if not [r for r in raw if r["case"] == "fwd-rss-2w-apart" and r["impl"] == impl
            and r["status"] == "ok"]:
        bad.append("bench.csv: no measurement of fwd-rss-2w-apart in the %s build" % impl)
sec = open(out + "/bench.md").read().split("## From 1 worker to 2\n")
line = [x for x in (sec[1].split("\n## ")[0].splitlines() if len(sec) == 2 else [])
        if x.startswith("| forward-only, rss, 1 worker | forward-only, rss, 2 workers on "
                        "queues 3 and 6 | ")]
# its ratios: each build's over the rounds, then side by side (the median over the one start,
# and that start's)
side = {}
for r in csv.DictReader(open(out + "/alternate.csv")):
    if r["pair"].endswith(": 2 workers/1 worker"):
        side.setdefault(r["pair"].split(":")[0], []).append(r)
try:
    cells = line[0].strip(" |").split(" | ")[2:] if len(line) == 1 else []
    if len(cells) != 4 or not all(float(x) > 0 for x in cells[:2]):
        raise ValueError
    for impl, cell in zip(("process", "thread"), cells[2:]):
        rs = side.get(impl, [])
        med = sorted(float(r["ratio"]) for r in rs)
        want = "%.2f (%.2f)" % ((med[0] + med[1]) / 2, (med[0] + med[1]) / 2) if len(rs) == 2 \
            else None
        if cell != want:
            bad.append("bench.md: 1 to 2 workers side by side, %s: %r, not the median of its "
                       "windows (%r)" % (impl, cell, want))
except ValueError:
    bad.append("bench.md: no 1 to 2 workers line for rss with four ratios: %r" % line)
# side by side: one start of each build, the 2-worker engine first, two windows, each the
# 2-worker engine's rate over the 1-worker engine's, both of that build
for impl in ("process", "thread"):
    rs = side.get(impl, [])
    if [(r["case"], r["start"], r["first"], r["window"], r["status"]) for r in rs] != [
            ("fwd-rss-2w-apart", "1", "2w", "1", "ok"),
            ("fwd-rss-2w-apart", "1", "2w", "2", "ok")]:
        bad.append("alternate.csv: not two good side-by-side windows of 2 workers against 1 in "
                   "the %s build: %r" % (impl, rs))
        continue
    for r in rs:
        try:
            a, b, q = float(r["a_mpps"]), float(r["b_mpps"]), float(r["ratio"])
            if not (a > 0 and b > 0 and abs(q / (a / b) - 1) < 1e-3):
                raise ValueError
        except ValueError:
            bad.append("alternate.csv: a side-by-side window without two rates and their "
                       "ratio: %r" % r)
def side_rows(suffix):
    """alternate.csv's rows of the pairs that end in @suffix, by what the pair starts with."""
    by = {}
    for r in csv.DictReader(open(out + "/alternate.csv")):
        if r["pair"].endswith(suffix):
            by.setdefault(r["pair"].split(suffix)[0].rstrip(":/ "), []).append(r)
    return by


def section_cells(title, start, skip):
    """The cells after the first @skip of bench.md's line that starts with @start in the
    section @title."""
    sec = open(out + "/bench.md").read().split("## %s\n" % title)
    line = [x for x in (sec[1].split("\n## ")[0].splitlines() if len(sec) == 2 else [])
            if x.startswith(start)]
    return line[0].strip(" |").split(" | ")[skip:] if len(line) == 1 else []


def two_windows(rs, case, first, what, cell):
    """@rs must be one start of @case, @first started first, two good windows, each with two
    rates, their ratio and a small stopped leak; @cell, bench.md's, their median."""
    if [(r["case"], r["start"], r["first"], r["window"], r["status"]) for r in rs] != [
            (case, "1", first, "1", "ok"), (case, "1", first, "2", "ok")]:
        bad.append("alternate.csv: not two good windows of %s: %r" % (what, rs))
        return
    try:
        qs = []
        for r in rs:
            a, b, q = float(r["a_mpps"]), float(r["b_mpps"]), float(r["ratio"])
            if not (a > 0 and b > 0 and abs(q / (a / b) - 1) < 1e-3):
                raise ValueError
            if not 0 <= float(r["stopped_leak"]) < 0.05:
                raise ValueError
            qs.append(q)
    except ValueError:
        bad.append("alternate.csv: a window of %s without two rates, their ratio and a small "
                   "stopped leak: %r" % (what, rs))
        return
    m = (qs[0] + qs[1]) / 2
    if cell is not None and cell != "%.2f (%.2f)" % (m, m):
        bad.append("bench.md: %s: %r, not the median of its windows %r" % (what, cell, qs))


# against the references side by side: the quick run has fwd-rss-1w and testpmd macswap on
# one lcore; one start of each build with it, the engine started first, two windows, each
# the engine's rate over testpmd's, testpmd stopped while the engine ran; bench.md's line
# gives the median of the windows and the rounds' ratios
vs = side_rows("/testpmd macswap 1 core")
cells = section_cells("Against the references, side by side",
                      "| forward-only, rss, 1 worker | null | testpmd macswap 1 core | ", 3)
if len(cells) != 3:
    bad.append("bench.md: no line of fwd-rss-1w against testpmd side by side with three "
               "cells: %r" % cells)
for k, impl in enumerate(("process", "thread")):
    two_windows(vs.get(impl, []), "fwd-rss-1w", impl, "the %s build against testpmd" % impl,
                cells[k] if cells else None)
if cells:
    summ = {(r["case"], r["impl"]): r for r in csv.DictReader(open(out + "/summary.csv"))}
    want = ", ".join(summ.get(("fwd-rss-1w", i), {}).get("ratio_testpmd", "?")
                     for i in ("process", "thread"))
    if cells[2] != want:
        bad.append("bench.md: the rounds' ratios to testpmd %r, summary.csv's %r"
                   % (cells[2], want))
# pool size side by side: the quick run's full-dist-1w gives mbufs = 8191; one start of each
# build against itself on the default pool, mbufs given first, two windows, each the rate
# with 8191 over the rate with the default pool
pool = side_rows(": mbufs given/default")
cells = section_cells("Pool size, side by side",
                      "| full inspection, distributor, 1 worker | capture | 8191 | ", 3)
if len(cells) != 2:
    bad.append("bench.md: no line of full-dist-1w against the default pool with two cells: %r"
               % cells)
for k, impl in enumerate(("process", "thread")):
    two_windows(pool.get(impl, []), "full-dist-1w", "given",
                "the %s build against its default pool" % impl, cells[k] if cells else None)
# recorder on against off side by side: the quick run's fwd-rss-1w and full-dist-1w, one start
# of each build against itself with recorder = off, the recorder on first, two windows, each
# the rate with the recorder over the rate without; and the cycles a packet, tsc_hz / rate on
# - tsc_hz / rate off in each window, the median of the two. full-dist-1w's start, on the
# capture, may fail the stopped-engine check on a busy host, as its start against the default
# pool may: then its cells must say so. And the recorder's cycles as the worker counts them, the
# round's figure of stage "recorder" in bench.csv, > 0: the recorder is on in the rounds
rec = side_rows(": recorder on/off")
for label, case, traffic in (("forward-only, rss, 1 worker", "fwd-rss-1w", "null"),
                             ("full inspection, distributor, 1 worker", "full-dist-1w",
                              "capture")):
    cells = section_cells("Recorder on against off, side by side",
                          "| %s | %s | " % (label, traffic), 2)
    if len(cells) != 6:
        bad.append("bench.md: no line of %s recorder on against off with six cells: %r"
                   % (case, cells))
    for k, impl in enumerate(("process", "thread")):
        kv = dict(x.split("=") for r in raw if r["case"] == case and r["impl"] == impl
                  and r["status"] == "ok" for x in r["stage_cycles_per_packet"].split())
        ran = any(r["case"] == case and r["impl"] == impl and r["status"] == "ok" for r in raw)
        if ran and ("w0.recorder" not in kv or float(kv["w0.recorder"]) <= 0):
            bad.append("bench.csv: %s %s: no cycles of the recorder counted in worker 0: %r"
                       % (case, impl, kv))
        elif ran and len(cells) == 6 and cells[4 + k] != "%.1f" % float(kv["w0.recorder"]):
            bad.append("bench.md: %s %s: the recorder's cycles in the worker %r, not the "
                       "round's %s" % (case, impl, cells[4 + k], kv["w0.recorder"]))
        rs = [r for r in rec.get(impl, []) if r["case"] == case]
        if case == "full-dist-1w" and len(rs) == 2 and all(
                r["status"].endswith("of its rate while stopped") for r in rs):
            if not cells or cells[k] != "n/a (2 failed)" or cells[2 + k] != "n/a (2 failed)":
                bad.append("bench.md: %s %s failed, its cells do not say so: %r"
                           % (case, impl, cells))
            continue
        two_windows(rs, case, "on", "%s in the %s build, recorder on against off"
                    % (case, impl), cells[k] if cells else None)
        try:
            cy = [float(r["tsc_hz"]) / (float(r["a_mpps"]) * 1e6) -
                  float(r["tsc_hz"]) / (float(r["b_mpps"]) * 1e6) for r in rs]
            want = "%.1f (%.1f)" % (((cy[0] + cy[1]) / 2,) * 2)
        except (ValueError, ZeroDivisionError, IndexError):
            bad.append("alternate.csv: %s %s recorder on/off: two windows with tsc_hz and two "
                       "rates: %r" % (case, impl, rs))
            continue
        if cells and cells[2 + k] != want:
            bad.append("bench.md: %s %s: cycles a packet %r, not tsc_hz / rate on - tsc_hz / "
                       "rate off of its windows (%r)" % (case, impl, cells[2 + k], want))
md = open(out + "/bench.md").read().splitlines()
tables = 0
for i, line in enumerate(md):
    if line.startswith("|---"):
        tables += 1
        cols = md[i - 1].count("|")
        j = i + 1
        while j < len(md) and md[j].startswith("|"):
            if md[j].count("|") != cols:
                bad.append("bench.md line %d: %d cells where the header has %d" % (j + 1, md[j].count("|"), cols))
            j += 1
        if j == i + 1:
            bad.append("bench.md line %d: a table without rows" % (i + 1))
if tables < 2:
    bad.append("bench.md: %d tables, expected the engine's and the references'" % tables)
png = open(out + "/bench.png", "rb").read()
if png[:8] != b"\x89PNG\r\n\x1a\n" or png[12:16] != b"IHDR":
    bad.append("bench.png: not a PNG")
else:
    w, h = struct.unpack(">II", png[16:24])
    if w < 100 or h < 100:
        bad.append("bench.png: %dx%d" % (w, h))
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
then
	ok "bench.csv, summary.csv, alternate.csv, bench.md and bench.png are well formed"
else
	not_ok "outputs malformed"; cat "$TMP/check.log"
fi

left=$(ls "$HUGEDIR" /var/run/dpdk 2>/dev/null | grep "^mpeb_${bench}_" || true)
check "nothing of mpe-bench left (hugepage files, runtime directories)" [ -z "$left" ]
left=$(for d in /proc/[0-9]*; do tr '\0' ' ' < "$d/cmdline" 2>/dev/null | grep -q "mpeb_${bench}_" && echo "${d#/proc/}"; done || true)
check "no process of mpe-bench left" [ -z "$left" ]
finish
