#!/usr/bin/env bash
# Formats every C and C++ file of relay in place with .clang-format (clang-format 14, Debian 12's),
# or with --check lists the files that differ from it and fails (the ctest "format" runs that).
# Usage: tools/format.sh [--check] [SOURCE_DIR]
set -euo pipefail
check=0
if [[ ${1:-} == --check ]]; then
  check=1
  shift
fi
source_dir=$(cd "${1:-$(dirname "$0")/..}" && pwd)
clang_format=${CLANG_FORMAT:-clang-format}
# The folders relay's own C and C++ live in; build trees and anything else are not relay's.
mapfile -d '' files < <(cd "$source_dir" && find src include tests examples tools bench \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.c' \) -print0 | sort -z)
cd "$source_dir"
if ((check)); then
  bad=()
  for f in "${files[@]}"; do
    if ! "$clang_format" --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
  done
  if ((${#bad[@]})); then
    echo "format: ${#bad[@]} file(s) differ from .clang-format; run tools/format.sh to fix:" >&2
    printf '  %s\n' "${bad[@]}" >&2
    exit 1
  fi
  echo "format: ${#files[@]} files match .clang-format"
else
  "$clang_format" -i "${files[@]}"
fi
