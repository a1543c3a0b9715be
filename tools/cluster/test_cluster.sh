#!/usr/bin/env bash
# End-to-end test of the emulated cluster (tools/cluster/relay-cluster), for ctest:
#   1. brings up 4 nodes at 250 Mbit/s with 2 slots per node (cluster name "ctest", so a
#      developer's own cluster is left alone);
#   2. `check`: bandwidth within 10% of the configured rate's prediction, and proof that
#      traffic between nodes crosses the shaped links: a 4 MiB message takes at least
#      4 MiB / 250 Mbit/s, and node 0's shaper counted at least the bytes rank 0 sent;
#   3. an MPI broadcast correctness check on 8 ranks, 2 per node, with placement checked
#      (distinct host names and /dev/shm per node, shared within a node);
#   4. `down`, then checks that no namespace, state or process of the cluster is left.
# Always tears down (trap). Exit status: 0 pass, 77 skipped (reason printed), other = fail.
#
# Environment: RELAY_CLUSTER_CHECK_BIN  measuring program (default: relay-cluster builds it)
#              RELAY_CLUSTER_TEST_PROGRAM  command also run on the 8 ranks after the built-in
#                                          broadcast check (ctest: relay's C API test, every
#                                          algorithm through relay_bcast); must exit 0
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly TOOL=$HERE/relay-cluster
readonly NAME=ctest NODES=4 RATE=250mbit RATE_BPS=250000000 RPN=2 REPS=3 BYTES=4194304
readonly STARTED=$SECONDS
UP=""
WORK=""

log() { printf 'test_cluster: %s\n' "$*"; }
skip() {
  log "SKIPPED: $*"
  exit 77
}
fail() {
  log "FAIL: $*" >&2
  exit 1
}
cluster() { "$TOOL" --name "$NAME" "$@"; }

finish() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n $UP ]]; then
    log "tearing down"
    cluster down || rc=1
    local left
    left=$(ip netns list | awk '{ print $1 }' | grep "^relay-$NAME-" || true)
    [[ -z $left ]] || {
      log "FAIL: namespaces left after down: $left" >&2
      rc=1
    }
    [[ ! -e /run/relay-cluster/$NAME ]] || {
      log "FAIL: state left after down: /run/relay-cluster/$NAME" >&2
      rc=1
    }
  fi
  [[ -z $WORK ]] || rm -rf "$WORK"
  case $rc in
    0) log "PASSED in $((SECONDS - STARTED)) s" ;;
    77) ;;
    *) log "FAILED (exit $rc) after $((SECONDS - STARTED)) s" ;;
  esac
  exit "$rc"
}

[[ $(id -u) -eq 0 ]] || skip "needs root (network namespaces, veth links, qdiscs)"
command -v mpirun >/dev/null 2>&1 || skip "Open MPI's mpirun is not installed"
[[ -x $TOOL ]] || fail "$TOOL is missing or not executable"

trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
WORK=$(mktemp -d)

# A cluster of this name can only be left over from an interrupted run of this test.
status_rc=0
cluster status >/dev/null 2>&1 || status_rc=$?
if ((status_rc != 3)); then
  log "removing the '$NAME' cluster left by an earlier run"
  cluster down
fi

bin=$(cluster check --print-binary) || fail "no measuring program"

log "up: $NODES nodes at $RATE, $RPN slots per node"
up_rc=0
cluster up --nodes "$NODES" --rate "$RATE" --ranks-per-node "$RPN" || up_rc=$?
((up_rc != 77)) || skip "relay-cluster cannot make namespaces on this machine (see above)"
((up_rc == 0)) || fail "relay-cluster up failed (exit $up_rc)"
UP=1
cluster status >"$WORK/status" || {
  cat "$WORK/status"
  fail "status does not report a healthy cluster"
}

sent_by_node0() { # bytes node 0's egress shaper has passed
  tc -n "relay-$NAME-n0" -s class show dev relay-eth classid 1:1 | awk '$1 == "Sent" { print $2 }'
}

log "check: bandwidth against the configured rate"
before=$(sent_by_node0)
check_rc=0
cluster check --reps "$REPS" --bytes "$BYTES" --tolerance 10 --raw "$WORK/raw" || check_rc=$?
after=$(sent_by_node0)
[[ -s $WORK/raw ]] || fail "check produced no measurements"
((check_rc == 0)) || fail "check: a figure is more than 10% off the prediction (table above)"
result() { awk -v k="$1" '$1 == "result" && $2 == k { print $3; exit }' "$WORK/raw"; }
oneway=$(result pingpong_oneway)
bandwidth=$(result pingpong_bandwidth)
nodes_seen=$(result placement_nodes)
[[ -n $oneway && -n $bandwidth ]] || fail "check output lacks the ping-pong results"
((nodes_seen == NODES)) || fail "check ran on $nodes_seen distinct hosts, expected $NODES"
awk -v t="$oneway" -v b="$BYTES" -v r="$RATE_BPS" 'BEGIN { exit !(t >= 8 * b / r) }' ||
  fail "a $BYTES-byte message took $oneway s between nodes, less than size/rate: the link is not shaped"
awk -v bw="$bandwidth" -v r="$RATE_BPS" 'BEGIN { exit !(bw <= 1.02 * r) }' ||
  fail "ping-pong bandwidth $bandwidth bit/s exceeds the configured $RATE_BPS bit/s"
# rank 0 (node 0) sent REPS+1 ping-pong messages and REPS+1 broadcasts of at least BYTES each
minimum=$((2 * (REPS + 1) * BYTES))
(((after - before) >= minimum)) ||
  fail "node 0's shaper passed $((after - before)) bytes during check, expected at least $minimum"
log "ok: one-way $oneway s >= size/rate, $bandwidth bit/s <= rate, node 0's shaper passed $((after - before)) bytes"

log "run's RELAY_IDLE_SLEEP_US: 0 up to 2 ranks per CPU, 20 above, a given value kept"
cpus=$(getconf _NPROCESSORS_ONLN)
sleep_of() { # np [VAR=VALUE]: the value run --dry-run reports
  env -u RELAY_IDLE_SLEEP_US ${2:+"$2"} "$TOOL" --name "$NAME" run --np "$1" --dry-run -- true |
    awk -F= '/^# RELAY_IDLE_SLEEP_US=/ { print $2 }'
}
if ((2 * cpus + 1 <= NODES * RPN)); then
  [[ $(sleep_of $((2 * cpus + 1))) == 20 ]] || fail "run --np $((2 * cpus + 1)) on $cpus CPUs does not sleep"
fi
[[ $(sleep_of 1) == 0 ]] || fail "run --np 1 sleeps"
[[ $(sleep_of 1 RELAY_IDLE_SLEEP_US=7) == 7 ]] || fail "run replaced a given RELAY_IDLE_SLEEP_US"

log "broadcast correctness on $((NODES * RPN)) ranks, $RPN per node"
run_rc=0
cluster run --np $((NODES * RPN)) --timeout 300 --retries 1 -- "$bin" placement,verify \
  >"$WORK/verify" 2>&1 || run_rc=$?
grep -v '^placement rank' "$WORK/verify" || true
((run_rc == 0)) || fail "broadcast check failed (exit $run_rc)"
grep -qx 'result placement_nodes 4 count' "$WORK/verify" || fail "ranks are not on 4 nodes"
grep -qx 'result placement_max_ranks_per_node 2 count' "$WORK/verify" ||
  fail "ranks are not 2 per node"
grep -qx 'result verify_errors 0 count' "$WORK/verify" || fail "wrong broadcast data"
if [[ -n ${RELAY_CLUSTER_TEST_PROGRAM:-} ]]; then
  log "$RELAY_CLUSTER_TEST_PROGRAM on $((NODES * RPN)) ranks, $RPN per node"
  read -r -a program <<<"$RELAY_CLUSTER_TEST_PROGRAM"
  cluster run --np $((NODES * RPN)) --timeout 300 --retries 1 -- "${program[@]}" ||
    fail "$RELAY_CLUSTER_TEST_PROGRAM failed on the cluster"
fi

log "down"
UP=""
cluster down
left=$(ip netns list | awk '{ print $1 }' | grep "^relay-$NAME-" || true)
[[ -z $left ]] || fail "namespaces left after down: $left"
[[ ! -e /run/relay-cluster/$NAME ]] || fail "state left after down"
