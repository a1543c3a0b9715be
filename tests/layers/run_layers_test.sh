#!/usr/bin/env bash
# The layer check (tools/check_layers.py): the tree passes; an include of a module above, and a
# folder missing from docs/design.md's Modules table, and a CMake library declaring a module its
# row does not list, each fail it naming the file.
# Usage: run_layers_test.sh SOURCE_DIR PYTHON
set -euo pipefail
source_dir=$1
python=${2:-python3}
check="$source_dir/tools/check_layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "run_layers_test: FAILED: $*" >&2; exit 1; }

"$python" "$check" --design "$source_dir/docs/design.md" --src "$source_dir/src" \
  --cmake "$source_dir/src/CMakeLists.txt" || fail "the tree itself breaks the layers"

cp -r "$source_dir/src" "$tmp/src"
echo '#include "tune/session.hpp"' >> "$tmp/src/coll/registry.cpp"
if "$python" "$check" --design "$source_dir/docs/design.md" --src "$tmp/src" 2> "$tmp/err"; then
  fail "coll including tune passed"
fi
grep -q "coll/registry.cpp:.*coll includes tune/" "$tmp/err" || fail "no file and rule in: $(cat "$tmp/err")"

rm -rf "$tmp/src" && cp -r "$source_dir/src" "$tmp/src" && mkdir "$tmp/src/newmodule"
if "$python" "$check" --design "$source_dir/docs/design.md" --src "$tmp/src" 2> "$tmp/err"; then
  fail "a folder missing from the table passed"
fi
grep -q "src/newmodule/: not in the Modules table" "$tmp/err" || fail "unexpected: $(cat "$tmp/err")"
sed 's/^relay_module(overlap USES /relay_module(overlap USES tune /' "$source_dir/src/CMakeLists.txt" \
  > "$tmp/CMakeLists.txt"
if "$python" "$check" --design "$source_dir/docs/design.md" --src "$source_dir/src" \
     --cmake "$tmp/CMakeLists.txt" 2> "$tmp/err"; then
  fail "a module library declaring a module above passed"
fi
grep -q "relay_module(overlap) USES .*tune.*docs/design.md says" "$tmp/err" ||
  fail "unexpected: $(cat "$tmp/err")"
echo "run_layers_test: passed"
