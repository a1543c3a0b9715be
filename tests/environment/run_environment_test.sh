#!/usr/bin/env bash
# The table of RELAY_* variables (src/core/settings.cpp), `relay env` (which prints it) and
# docs/environment.md agree: the same names, types, defaults and rank agreement, both ways, so
# a row added to the table but not to the docs (or the reverse) fails here. And `relay env`
# shows the values set, warns about unknown RELAY_* names (a misspelt knob), exits as the
# other commands do; `relay --help` points at it.
# Usage: run_environment_test.sh RELAY DOCS_ENVIRONMENT_MD
relay=$1 docs=$2
. "$(dirname "$0")/../cli_test_common.sh"
# Runs relay with no RELAY_* variable but those given (NAME=value ...), stdout and stderr apart.
clean() {
  local unset=()
  while IFS='=' read -r name _; do unset+=(-u "$name"); done < <(env | grep '^RELAY_')
  timeout 60 env "${unset[@]}" "$@" >"$out" 2>"$work/err"
}

# 1. The rows: "name|type|default|ranks" from relay env and from the docs' tables.
clean "$relay" env; rc=$?
[ "$rc" -eq 0 ] || fail "relay env exited $rc"
awk '/^RELAY_/ { name = $1; next }
     name != "" && /^    type: / {
       sub(/^    type: /, ""); n = split($0, f, "; ")
       type = f[1]; def = f[2]; sub(/^default: /, "", def); ranks = f[4]; sub(/^ranks: /, "", ranks)
       print name "|" type "|" def "|" ranks; name = "" }' "$out" | sort >"$work/table"
[ -s "$work/table" ] || fail "relay env printed no variables"
grep -E '^\| `RELAY_' "$docs" |
  awk -F' *\\| *' '{ name = $2; gsub(/`/, "", name); print name "|" $3 "|" $4 "|" $5 }' |
  sort >"$work/docs"
if ! diff -u "$work/table" "$work/docs" >"$work/diff"; then
  cp "$work/diff" "$out"
  fail "relay env (the table, -) and $docs (+) disagree: add or fix the rows"
fi

# 2. Values set, and unknown names warned about, exit 0.
clean RELAY_BCAST_POLICY=blocking RELAY_BCAST_SEGMENT=4KiB RELAY_FOO_POLICY=x RELAY_CHECK= \
  "$relay" env; rc=$?
[ "$rc" -eq 0 ] || fail "relay env with unknown variables exited $rc"
grep -qx '  RELAY_BCAST_POLICY=blocking' "$out" || fail "relay env does not show RELAY_BCAST_POLICY's value"
grep -q 'warning: RELAY_BCAST_SEGMENT is set' "$work/err" || { cp "$work/err" "$out"; fail "no warning for RELAY_BCAST_SEGMENT"; }
grep -q 'warning: RELAY_FOO_POLICY is set' "$work/err" || { cp "$work/err" "$out"; fail "no warning for RELAY_FOO_POLICY (no such collective)"; }
if grep -q 'RELAY_BCAST_POLICY\|RELAY_CHECK' "$work/err"; then cp "$work/err" "$out"; fail "a known variable warned about"; fi

# 3. Usage errors exit 2; --help mentions the command.
clean "$relay" env extra; rc=$?
[ "$rc" -eq 2 ] || fail "relay env extra exited $rc, expected 2"
clean "$relay" --help; rc=$?
[ "$rc" -eq 0 ] || fail "relay --help exited $rc"
grep -q '^  env ' "$out" || fail "relay --help does not list env"
echo "PASS: table, relay env and $docs agree"
