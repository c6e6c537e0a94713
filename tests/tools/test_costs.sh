#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Tests of mpe-costs: every mode in its --quick size with --json, checked for shape and sanity
# (positive, finite, ordered where physics orders them, seed figures present), not for speed;
# bad arguments; SIGINT/SIGTERM during a mode stop and reap everything and exit 130.
# Usage: test_costs.sh PATH/TO/mpe-costs        (prints "ok"/"not ok" lines, then a tally)
set -uo pipefail

if [[ $# -ne 1 || ! -x $1 ]]; then
	echo "usage: $0 PATH/TO/mpe-costs (executable)" >&2
	exit 2
fi
bin=$1
if ! command -v python3 >/dev/null; then
	echo "$0: python3 is needed to read the JSON output" >&2
	exit 2
fi

. "$(dirname "$0")/lib.sh"
# Every process the tool starts inherits this tag in its environment (only the tool's, not
# this script's), so a leftover is found even after it was reparented.
tag="mpe-costs-test-$$-$RANDOM$RANDOM"
run() {
	MPE_COSTS_TEST_TAG=$tag TMPDIR=$work "$bin" "$@"
}

# Processes still carrying the tag (zombies have no readable environment; the tool reaps).
leftovers() {
	local f
	for f in /proc/[0-9]*/environ; do
		if grep -qzx "MPE_COSTS_TEST_TAG=$tag" "$f" 2>/dev/null; then
			f=${f#/proc/}
			echo "${f%/environ}"
		fi
	done
}

# The JSON checker: reads one document, prints ok/not ok lines of its own.
cat >"$work/check.py" <<'EOF'
import json
import math
import sys

path, modes = sys.argv[1], sys.argv[2].split(',')
results = []


def check(name, cond):
    results.append((name, bool(cond)))


try:
    with open(path) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    print('not ok - %s: one JSON object on stdout (%s)' % (path, e))
    sys.exit(0)

tag = '+'.join(modes)
check('%s: tool, quick, not interrupted' % tag,
      doc.get('tool') == 'mpe-costs' and doc.get('quick') is True and
      doc.get('interrupted') is False)
host = doc.get('host', {})
check('%s: host: CPUs, kernel, CPU model, THP, busy share' % tag,
      host.get('cpus_online', 0) >= 1 and host.get('cpus_usable', 0) >= 1 and
      host.get('kernel') and host.get('cpu_model') and host.get('thp') and
      0 <= host.get('busy_before_pct', -1) <= 100)
lim = doc.get('limits', {})
check('%s: limits read' % tag,
      all(lim.get(k, 0) > 0 for k in ('pid_max', 'threads_max', 'max_map_count',
                                      'mem_available_kib')))
got = doc.get('modes', {})
check('%s: exactly the modes asked for' % tag, sorted(got) == sorted(modes))

rows = {}
for m in modes:
    md = got.get(m, {})
    check('%s: status ok, parameters, busy shares' % m,
          md.get('status') == 'ok' and md.get('params') and
          md.get('busy', {}).get('wall_s', 0) > 0 and
          all(0 <= md['busy'].get(k, -1) <= 100
              for k in ('total_pct', 'self_pct', 'others_pct')))
    bad = []
    for r in md.get('rows', []):
        rows[(m, r.get('key'))] = r
        if not all(k in r for k in ('key', 'what', 'unit', 'measured', 'n', 'median', 'p99',
                                    'min', 'max', 'mean', 'note', 'seed')):
            bad.append('%s: keys' % r.get('key'))
            continue
        if r['measured']:
            v = [r[k] for k in ('median', 'p99', 'min', 'max', 'mean')]
            # a share of CPU time may round to 0 in a --quick repetition; a time or rate not
            zero_ok = r['unit'] == '%'
            if r['n'] < 1 or not all(isinstance(x, (int, float)) and math.isfinite(x) and
                                     (x >= 0 if zero_ok else x > 0) for x in v):
                bad.append('%s: not positive and finite: %s' % (r['key'], v))
            elif not (r['min'] <= r['median'] <= r['p99'] <= r['max'] and
                      r['min'] <= r['mean'] <= r['max']):
                bad.append('%s: min <= median <= p99 <= max broken: %s' % (r['key'], v))
        elif not r['note']:
            bad.append('%s: not measured and no reason given' % r['key'])
    check('%s: every row well-formed, positive, finite, ordered%s' %
          (m, (' (' + '; '.join(bad) + ')') if bad else ''), not bad and md.get('rows'))


def row(m, k):
    return rows.get((m, k))


def med(m, k):
    r = row(m, k)
    return r['median'] if r and r['measured'] else None


# Orders use the fastest repetition: background load only ever adds time, so on a busy host
# the minimum is the figure physics orders.
def fastest(m, k):
    r = row(m, k)
    return r['min'] if r and r['measured'] else None


def has_seed(m, k, file_prefix, value):
    r = row(m, k)
    s = r and r['seed']
    return bool(s) and s['file'].startswith(file_prefix) and s['tag'] == 'seed ' + file_prefix \
        and abs(s['value'] - value) < 1e-6 and s['figure']


def measured(m, *keys):
    return all(row(m, k) and row(m, k)['measured'] for k in keys)


def le(a, b, slack=1.0):
    return a is not None and b is not None and a <= b * slack


thp = host.get('thp') in ('always', 'madvise')
two_cpus = host.get('cpus_usable', 1) > 1

if 'create' in modes:
    m = 'create'
    check('create: every method measured',
          measured(m, 'pthread_create_join', 'fork_exit_wait', 'vfork_exit_wait',
                   'posix_spawn_true', 'clone_thread_flags', 'fork_over_thread', 'fork_mem_0',
                   'fork_mem_quarter_4k', 'fork_mem_full_4k', 'bulk_thread_join',
                   'bulk_thread_detach', 'bulk_fork', 'bulk_fork_over_thread'))
    check('create: seed 003 42.6 us and 95.8 us, seed 002 29 us, seed 000 0.18 ms',
          has_seed(m, 'pthread_create_join', '003', 42.6) and
          has_seed(m, 'fork_exit_wait', '003', 95.8) and
          has_seed(m, 'bulk_thread_detach', '002', 29) and
          has_seed(m, 'bulk_fork', '000', 180))
    check('create: vfork <= fork', le(fastest(m, 'vfork_exit_wait'), fastest(m, 'fork_exit_wait')))
    check('create: fork with the most memory touched >= fork with none',
          le(fastest(m, 'fork_mem_0'), fastest(m, 'fork_mem_full_4k')))
    # --quick touches a few MiB: a quarter and all of it differ by less than the noise of a
    # shared 2-CPU machine, so only an inversion by half is an error here
    check('create: fork with a quarter touched is not much slower than with all (4 KiB pages)',
          le(fastest(m, 'fork_mem_quarter_4k'), fastest(m, 'fork_mem_full_4k'), 1.5))
    if thp:
        # at the quick sizes the two forks are close: 20% for a host busy with other work
        check('create: THP rows measured with huge pages, fork with THP <= with 4 KiB pages',
              measured(m, 'fork_mem_quarter_thp', 'fork_mem_full_thp') and
              not row(m, 'fork_mem_full_thp')['note'].startswith('0 of') and
              le(fastest(m, 'fork_mem_full_thp'), fastest(m, 'fork_mem_full_4k'), 1.2))
    else:
        check('create: THP rows say they could not be measured',
              not row(m, 'fork_mem_full_thp')['measured'] and
              'could not be measured' in row(m, 'fork_mem_full_thp')['note'])

if 'memory' in modes:
    m = 'memory'
    check('memory: every row measured',
          measured(m, 'vmsize_default', 'vmrss_default', 'vmpte_default', 'kstack_default',
                   'vmsize_small', 'vmrss_small', 'vmpte_small', 'kstack_small',
                   'vmsize_over_vmrss_default'))
    check('memory: seed 003 8 MB and ~8.5 KB',
          has_seed(m, 'vmsize_default', '003', 8192) and
          has_seed(m, 'vmrss_default', '003', 8.5))
    check('memory: VmRSS per thread << VmSize per thread with the default stack',
          le(med(m, 'vmrss_default') or 0, med(m, 'vmsize_default'), 0.1))
    stack_kib = lim.get('rlimit_stack', 0) // 1024
    small = got.get(m, {}).get('params', {}).get('stack-kib', 0)
    if stack_kib > small:
        check('memory: VmSize per thread ~ the stack; small stack < default stack',
              le(0.9 * stack_kib, med(m, 'vmsize_default')) and
              le(med(m, 'vmsize_small'), med(m, 'vmsize_default')))

if 'switch' in modes:
    m = 'switch'
    check('switch: one-CPU rows and the user-space switch measured',
          measured(m, 'pipe_threads_1cpu', 'pipe_procs_1cpu', 'kernel_switch', 'user_switch'))
    check('switch: cross-CPU rows measured iff two CPUs are usable',
          measured(m, 'pipe_threads_2cpu', 'pipe_procs_2cpu', 'line_threads_2cpu') == two_cpus)
    check('switch: a cache line crosses CPUs faster than a pipe round trip through the kernel',
          not two_cpus or
          le(fastest(m, 'line_threads_2cpu'), (fastest(m, 'pipe_threads_2cpu') or 0) * 1000))
    check('switch: seed 002 3.63 us, 1.8 us and 171 ns',
          has_seed(m, 'pipe_threads_1cpu', '002', 3.63) and
          has_seed(m, 'kernel_switch', '002', 1.8) and has_seed(m, 'user_switch', '002', 171))
    check('switch: a user-space switch < a pipe round trip through the kernel',
          le(fastest(m, 'user_switch'), (fastest(m, 'pipe_threads_1cpu') or 0) * 1000))

if 'sleepqps' in modes:
    m = 'sleepqps'
    check('sleepqps: rates, shares and ceilings measured',
          measured(m, 'wakeups_per_s', 'wakeups_asked', 'cpu_busy_pct', 'cpu_own_pct',
                   'threads_ceiling_small', 'threads_ceiling_512k'))
    check('sleepqps: seed 001 ~250 000/s and ~240 000 threads',
          has_seed(m, 'wakeups_per_core', '001', 250000) and
          has_seed(m, 'threads_ceiling_512k', '001', 240000))
    check('sleepqps: wake-ups never exceed what the sleeps allow',
          le(med(m, 'wakeups_per_s'), med(m, 'wakeups_asked'), 1.1))
    check('sleepqps: busy shares are shares',
          le(row(m, 'cpu_busy_pct')['max'], 100) and le(row(m, 'cpu_own_pct')['median'], 110))
    # where both ceilings are the host's thread limit, they differ only by what other
    # processes started or ended meanwhile: 1% of slack
    check('sleepqps: ceiling below pid_max and threads-max; smaller stacks never lower it',
          le(med(m, 'threads_ceiling_512k'), min(lim['pid_max'], lim['threads_max'])) and
          le(med(m, 'threads_ceiling_512k'), med(m, 'threads_ceiling_small'), 1.01))

if 'print' in modes:
    m = 'print'
    check('print: processes, threads and their ratio measured',
          measured(m, 'print_procs', 'print_threads', 'print_procs_over_threads'))
    check('print: seed 000 figure', has_seed(m, 'print_procs_over_threads', '000', 1))
    check('print: every output file held every line',
          'exactly' in row(m, 'print_threads')['note'])

if 'accept' in modes:
    m = 'accept'
    designs = ('iterative', 'fork', 'prefork', 'thread', 'prethread')
    check('accept: every design measured',
          measured(m, *[d + '_conn_per_s' for d in designs]) and
          measured(m, *[d + '_cpu_per_conn' for d in designs]))
    check('accept: seed 000 Stevens figures',
          has_seed(m, 'fork_over_prefork_cpu', '000', 504.2 / 21.5) and
          row(m, 'fork_cpu_per_conn')['seed']['figure'] == '504.2 s CPU' and
          row(m, 'prefork_cpu_per_conn')['seed']['figure'] == '21.5 s CPU')
    check('accept: a fork per connection costs the server more CPU than a preforked child',
          le(fastest(m, 'prefork_cpu_per_conn'), fastest(m, 'fork_cpu_per_conn')))

if len(modes) > 1:
    summ = doc.get('summary', [])
    check('all: side-by-side summary refers to real rows',
          summ and all((s['mode'], s['key']) in rows for s in summ))

for name, good in results:
    print('%s - %s' % ('ok' if good else 'not ok', name))
EOF

# Reads the checker's lines into the tally.
tally() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) not_ok "${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done
}

json_mode() {
	local modes=$1 out="$work/$2.json" err="$work/$2.err" rc
	shift 2
	run "$@" --quick --json >"$out" 2>"$err"
	rc=$?
	if [[ $rc -eq 0 ]]; then
		ok "$* --quick --json exits 0"
	else
		not_ok "$* --quick --json exits 0 (rc $rc: $(tail -n 2 "$err"))"
	fi
	tally < <(python3 "$work/check.py" "$out" "$modes")
}

for m in create memory switch sleepqps print accept; do
	json_mode "$m" "$m" "$m"
done
json_mode create,memory,switch,sleepqps,print,accept all all
if [[ -z $(leftovers) ]]; then
	ok "no process left behind by the runs above"
else
	not_ok "no process left behind by the runs above ($(leftovers))"
fi

# Human tables: the seed figure next to the host's, with its source file named.
out=$(run --quick memory 2>&1)
if grep -q "seed 003: 8 MB" <<<"$out" && grep -q "003_f3cbb7b5cab8ffa3.txt" <<<"$out" &&
	grep -q "CPUs online" <<<"$out" && grep -q "busy" <<<"$out"; then
	ok "human output: host, busy share, seed figure and its file"
else
	not_ok "human output: host, busy share, seed figure and its file"
fi
if run --help | grep -q "Usage: mpe-costs"; then
	ok "--help prints the usage and exits 0"
else
	not_ok "--help prints the usage and exits 0"
fi

# Bad arguments: non-zero exit and a message that says what is wrong.
refuses() {
	local name=$1 want=$2 rc
	shift 2
	run "$@" >"$work/bad.out" 2>"$work/bad.err"
	rc=$?
	if [[ $rc -ne 0 ]] && grep -qi -- "$want" "$work/bad.err"; then
		ok "refused: $name"
	else
		not_ok "refused: $name (rc $rc, stderr: $(head -c 200 "$work/bad.err"))"
	fi
}
pid_max=$(cat /proc/sys/kernel/pid_max)
avail_mib=$(($(awk '/^MemAvailable:/ {print $2}' /proc/meminfo) / 1024))
refuses "unknown mode" "unknown mode" bogus
refuses "no mode" "exactly one MODE"
refuses "-n abc" "threads" -n abc memory
refuses "-n 0" "threads" -n 0 memory
refuses "--reps beyond its bound" "reps" --reps 99999999999 create
refuses "an option the mode does not take" "does not apply" --lines 5 create
refuses "--sink neither file nor null" "sink" --sink tape print
refuses "more threads than pid_max" "pid_max\|threads" -n $((pid_max + 1)) sleepqps
refuses "more memory than MemAvailable" "MemAvailable\|mem-mib" -m $((avail_mib + 1)) create
refuses "print beyond its task cap" "at most" -n 20000 -l 1 print

# Interrupted mid-mode: exit 130 within a few seconds, nothing left running.
interrupt() {
	local sig=$1 name=$2 start pid rc kids t
	shift 2
	MPE_COSTS_TEST_TAG=$tag TMPDIR=$work "$bin" "$@" >"$work/int.out" 2>"$work/int.err" &
	pid=$!
	# wait for the mode to have started something of its own
	for t in $(seq 1 50); do
		[[ -n $(ps -o pid= --ppid "$pid") ]] && break
		sleep 0.1
	done
	sleep 0.7
	kids=$(ps -eo pid=,pgid=,ppid= | awk -v p="$pid" '$3 == p || $2 == p {print $1}')
	for k in $(ps -o pid= --ppid "$pid"); do
		kids="$kids $(ps -eo pid=,pgid= | awk -v g="$k" '$2 == g {print $1}')"
	done
	kids=$(tr ' ' '\n' <<<"$kids" | grep . | sort -u)
	start=$(date +%s%N)
	kill -"$sig" "$pid"
	for t in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid"
		not_ok "SIG$sig during $name: still running after 10 s"
		wait "$pid"
		return
	fi
	wait "$pid"
	rc=$?
	t=$((($(date +%s%N) - start) / 1000000))
	if [[ $rc -eq 130 && $t -lt 5000 ]]; then
		ok "SIG$sig during $name: exit 130 in $t ms"
	else
		not_ok "SIG$sig during $name: exit 130 within 5 s (rc $rc after $t ms)"
	fi
	local alive=""
	for k in $kids; do
		[[ $k != "$pid" ]] && kill -0 "$k" 2>/dev/null && alive="$alive $k"
	done
	alive="$alive $(leftovers)"
	if [[ -z ${alive// /} && -z $(ls -A "$work" | grep '^mpe-costs\.') ]]; then
		ok "SIG$sig during $name: no process and no temporary file left ($(wc -w <<<"$kids") seen running)"
	else
		not_ok "SIG$sig during $name: left behind:${alive} $(ls -A "$work" | grep '^mpe-costs\.')"
	fi
}
interrupt INT sleepqps -n 300 -d 30000 sleepqps
interrupt INT accept -c 1000000 -r 1 accept
interrupt TERM print -n 64 -l 20000 -r 20 print
interrupt INT create -r 100000 -b 100000 create
interrupt INT all all

finish
