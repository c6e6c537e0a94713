#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The sandbox key against the kernel (docs/sandbox.md), by --check (no EAL):
#   - --check says what this kernel supports and what the workers would get;
#   - on a kernel without seccomp filters (MPE_SANDBOX_PROBE=noseccomp makes the probe say so),
#     `sandbox = on` given is refused at its file:line; left to its default, the sandbox is
#     off with a notice;
#   - without Landlock (MPE_SANDBOX_PROBE=nolandlock): a warning, the rest of the sandbox;
#   - a value that is not on/off is refused at its line;
#   - worker_user: a user this host does not have, root, or the sandbox off: refused at its
#     line;
#   - --help-config never lists a test-only stage (hostile).
# Thread build: nothing to lock; --check says so and refuses nothing.
. "$(dirname "$0")/lib.sh"

# conf [LINES...]: a valid configuration whose [engine] section holds LINES (line 2 on)
conf() {
	printf '[engine]\n'
	for l in "$@"; do printf '%s\n' "$l"; done
	printf '[port 0]\ndevice = net_null0\n[port 1]\ndevice = net_null1\n[worker 0]\nlcore = 2\n'
}
conf > "$TMP/default.ini"
conf "shape = pipeline" "sandbox = on" > "$TMP/on.ini"
conf "sandbox = maybe" > "$TMP/bad.ini"
conf "worker_user = mpe-no-such-user" > "$TMP/nouser.ini"
conf "shape = pipeline" "worker_user = root" > "$TMP/root.ini"
conf "sandbox = off" "worker_user = nobody" > "$TMP/useroff.ini"

# run NAME ENV... -- ARGS...: mpe-primary ARGS with ENV, output in $TMP/NAME.out, status in rc
run() {
	local name=$1 envs=()
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	rc=0
	env "${envs[@]}" "$PRIMARY" "$@" > "$TMP/$name.out" 2>&1 || rc=$?
}

run bad -- --check -c "$TMP/bad.ini"
check "sandbox = maybe: refused at its line" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/bad.ini:2: sandbox: .maybe. is not on/off" "$TMP/bad.out"'
# into a file first: grep -q leaving a pipe early would fail the writer (pipefail)
"$PRIMARY" --help-config > "$TMP/help-config.out"
check "--help-config lists the sandbox key" \
	grep -q "^| \[engine\] | sandbox | on, off | on |" "$TMP/help-config.out"
check "--help-config never lists the hostile stage" \
	cond '! grep -q hostile "$TMP/help-config.out"'

if [ "$MODEL" = thread ]; then
	run on MPE_SANDBOX_PROBE=noseccomp -- --check -c "$TMP/on.ini"
	check "thread build: sandbox = on is not refused, --check says it does not apply" \
		cond '[ "$rc" = 0 ] && grep -q "^sandbox: not applicable in the thread build" "$TMP/on.out"'
	run nouser -- --check -c "$TMP/nouser.ini"
	check "thread build: worker_user does not apply, and is not looked up" \
		cond '[ "$rc" = 0 ] && grep -q "^worker_user: not applicable in the thread build" "$TMP/nouser.out"'
	finish
	exit $?
fi

run default -- --check -c "$TMP/default.ini"
check "--check says what this kernel supports" \
	cond '[ "$rc" = 0 ] && grep -q "^sandbox: on: .*; this kernel: seccomp filters yes, Landlock" "$TMP/default.out"'
sed 's/^/# /' "$TMP/default.out"
run on MPE_SANDBOX_PROBE=noseccomp -- --check -c "$TMP/on.ini"
check "no seccomp: sandbox = on refused at file:line" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/on.ini:3: sandbox: on, but this kernel has no seccomp filters" "$TMP/on.out"'
run nouser -- --check -c "$TMP/nouser.ini"
check "worker_user: a user this host does not have, refused at its line" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/nouser.ini:2: worker_user: no user .mpe-no-such-user. on this host" "$TMP/nouser.out"'
run root -- --check -c "$TMP/root.ini"
check "worker_user: root refused at its line" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/root.ini:3: worker_user: .root. is root (uid 0)" "$TMP/root.out"'
run useroff -- --check -c "$TMP/useroff.ini"
check "worker_user with sandbox = off: refused at its line" \
	cond '[ "$rc" = 1 ] && grep -q "^$TMP/useroff.ini:3: worker_user: the switch is part of the workers. lock-down, and sandbox is off" "$TMP/useroff.out"'
run nosec MPE_SANDBOX_PROBE=noseccomp -- --check -c "$TMP/default.ini"
check "no seccomp, sandbox left out: off, with a notice" \
	cond '[ "$rc" = 0 ] && grep -q "sandbox: off: this kernel has no seccomp filters" "$TMP/nosec.out" &&
	grep -q "^sandbox: off;" "$TMP/nosec.out"'
run noll MPE_SANDBOX_PROBE=nolandlock -- --check -c "$TMP/on.ini"
check "no Landlock: a warning, and the rest of the sandbox" \
	cond '[ "$rc" = 0 ] && grep -q "warning: sandbox: this kernel has no Landlock" "$TMP/noll.out" &&
	grep -q "^sandbox: on: no_new_privs, no capabilities, seccomp (no Landlock)" "$TMP/noll.out"'
finish
