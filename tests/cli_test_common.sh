# Sourced by the shell tests of the relay command (after they read their arguments): stops on
# unset variables and failed pipelines, makes a scratch directory $work removed on exit, and
# defines fail, which prints why and the last command's output ($out), and exits 1.
set -uo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/out
fail() { echo "FAIL: $*"; echo "--- output ---"; cat "$out"; exit 1; }
