#!/usr/bin/env bash
# Signals to `relay-cluster run` (issue 23), for ctest: on a 2-node cluster (name "ctestsig",
# so a developer's own cluster is left alone), a run of a program that would last 300 s is
# stopped by
#   1. SIGINT to the process group, as Ctrl-C in a terminal sends it (default --timeout);
#   2. SIGINT to the script's process only;
#   3. SIGTERM to the script's process;
#   4. SIGTERM with --timeout 0 (no `timeout` between the script and mpirun);
#   5. SIGHUP to the script's process;
#   6. with a relay command given: Ctrl-C to `relay cluster run` (the command execs the script).
# Each time the command must exit 130, 143 or 129 within 5 s, with no process of the run left
# (mpirun, daemons, ranks: everything carrying its RELAY_CLUSTER_JOB tag), no temporary file
# left in the cluster's state directory, and the cluster still up (`run` did not make it).
# Before the fix, SIGINT did nothing until --timeout (600 s) and SIGTERM left mpirun and the
# ranks running. Always tears down (trap). Exit status: 0 pass, 77 skipped, other = fail.
#
# Usage: test_cluster_signals.sh [RELAY_COMMAND]
# Environment: RELAY_CLUSTER_SCRIPT  the relay-cluster under test (default: the one beside this)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOOL=${RELAY_CLUSTER_SCRIPT:-$HERE/relay-cluster}
readonly TOOL NAME=ctestsig RELAY=${1:-}
readonly STATE_DIR=/run/relay-cluster/$NAME
readonly LIMIT_S=5
UP=""
WORK=""

log() { printf 'test_cluster_signals: %s\n' "$*"; }
skip() {
  log "SKIPPED: $*"
  exit 77
}
fail() {
  log "FAIL: $*" >&2
  [[ -z $WORK || ! -s $WORK/run.out ]] || sed 's/^/  run: /' "$WORK/run.out" >&2
  exit 1
}
cluster() { "$TOOL" --name "$NAME" "$@"; }

# Live processes of any run on this cluster (their environment carries the run's tag).
run_pids() {
  grep -lsz -- "^RELAY_CLUSTER_JOB=$NAME-" /proc/[0-9]*/environ | cut -d/ -f3 || true
}
ranks_running() { # how many ranks (sleep) of a run are alive
  local pid n=0
  for pid in $(run_pids); do
    [[ $(cat "/proc/$pid/comm" 2>/dev/null) != sleep ]] || n=$((n + 1))
  done
  echo "$n"
}

finish() {
  local rc=$? left=()
  trap - EXIT INT TERM
  mapfile -t left < <(run_pids)
  if ((${#left[@]})); then # only after a failure: stop what the failed case left
    kill -KILL "${left[@]}" 2>/dev/null || true
  fi
  if [[ -n $UP ]]; then
    cluster down >/dev/null || rc=1
    [[ ! -e $STATE_DIR ]] || {
      log "FAIL: state left after down: $STATE_DIR" >&2
      rc=1
    }
  fi
  [[ -z $WORK ]] || rm -rf "$WORK"
  case $rc in
    0) log "PASSED" ;;
    77) ;;
    *) log "FAILED (exit $rc)" ;;
  esac
  exit "$rc"
}

[[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces, veth links, qdiscs)"
command -v mpirun >/dev/null 2>&1 || skip "Open MPI's mpirun is not installed"
[[ -x $TOOL ]] || fail "$TOOL is missing or not executable"
[[ -z $RELAY || -x $RELAY ]] || fail "relay command $RELAY is not executable"

trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
WORK=$(mktemp -d)

status_rc=0
cluster status >/dev/null 2>&1 || status_rc=$?
if ((status_rc != 3)); then
  log "removing the '$NAME' cluster left by an earlier run"
  cluster down >/dev/null
fi
up_rc=0
cluster up --nodes 2 --rate 1gbit >"$WORK/up.out" 2>&1 || up_rc=$?
((up_rc != 77)) || skip "relay-cluster cannot make namespaces on this machine: $(tail -n 1 "$WORK/up.out")"
((up_rc == 0)) || fail "relay-cluster up failed (exit $up_rc): $(cat "$WORK/up.out")"
UP=1

# Job control: each case runs in a process group of its own, like a terminal's foreground job,
# and without it bash would start the command with SIGINT ignored (which cannot be trapped).
set -m

signal_case() { # description, signal, pid|group, expected status, command...
  local what=$1 sig=$2 target=$3 want=$4 pid tries rc=0 start left temps
  shift 4
  "$@" >"$WORK/run.out" 2>&1 &
  pid=$!
  for ((tries = 0; tries < 150; tries++)); do # up to 30 s for the launch
    (($(ranks_running) >= 2)) && break
    kill -0 "$pid" 2>/dev/null || fail "$what: the run ended before its ranks started"
    sleep 0.2
  done
  (($(ranks_running) >= 2)) || fail "$what: the 2 ranks did not start within 30 s"
  start=$(date +%s%N)
  if [[ $target == group ]]; then kill "-$sig" -- "-$pid"; else kill "-$sig" "$pid"; fi
  for ((tries = 0; tries < LIMIT_S * 10; tries++)); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL -- "-$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    fail "$what: relay-cluster run still running ${LIMIT_S} s after SIG$sig"
  fi
  wait "$pid" || rc=$?
  local ms=$((($(date +%s%N) - start) / 1000000))
  ((rc == want)) || fail "$what: exit status $rc, expected $want"
  left=$(run_pids | tr '\n' ' ')
  [[ -z ${left// /} ]] || fail "$what: processes of the run left after SIG$sig: $(for p in $left; do printf '%s(%s) ' "$p" "$(cat "/proc/$p/comm" 2>/dev/null)"; done)"
  temps=$(find "$STATE_DIR" -maxdepth 1 -name 'hostfile.*' | tr '\n' ' ')
  [[ -z $temps ]] || fail "$what: temporary files left: $temps"
  cluster status >/dev/null || fail "$what: the cluster is no longer healthy after the run was stopped"
  log "ok: $what: exit $rc after $ms ms, nothing of the run left, cluster still up"
}

# The script itself, not the function cluster (whose background job would be a subshell).
run=("$TOOL" --name "$NAME" run)
signal_case "Ctrl-C (SIGINT to the process group)" INT group 130 "${run[@]}" -- sleep 300
signal_case "SIGINT to relay-cluster's process" INT pid 130 "${run[@]}" -- sleep 300
signal_case "SIGTERM to relay-cluster's process" TERM pid 143 "${run[@]}" -- sleep 300
signal_case "SIGTERM, --timeout 0" TERM pid 143 "${run[@]}" --timeout 0 -- sleep 300
signal_case "SIGHUP to relay-cluster's process" HUP pid 129 "${run[@]}" -- sleep 300
if [[ -n $RELAY ]]; then # the relay command execs the script: the same process
  signal_case "Ctrl-C to relay cluster run" INT group 130 \
    env RELAY_CLUSTER_SCRIPT="$TOOL" "$RELAY" cluster --name "$NAME" run -- sleep 300
fi
