#!/usr/bin/env bash
# SimGrid 3.32 (Debian 12's version) built with relay's one patch, for simulations of 16,384
# ranks (docs/simulate.md, "SimGrid with relay's patch"). relay simulate uses it when it exists
# (or RELAY_SIMULATE_SMPIRUN names another smpirun); relay-smpi needs no rebuild: the patch
# changes no public header and keeps the library's name, libsimgrid.so.3.32.
#
# The patch (activity-list.patch): SimGrid 3.32 keeps every detached communication in flight
# (each SMPI message under smpi/send-is-detached-thresh, 64 KiB) in one std::list and removes
# each finished one with a scan of that list; at 16,384 ranks with 32 KiB panels the scan took
# 89% of the host's time (perf, 2026-12-07). The patch
# removes in constant time and keeps the list's order, so simulated results do not change.
#
# Usage: tools/simgrid/build.sh [PREFIX]   (default .deps/simgrid-3.32-relay beside this checkout)
# Source: SimGrid's release on PyPI (the registry this project may reach), checked by SHA-256.
# About 7 minutes on 2 cores; needs Debian's build tools and libboost-dev (./dev installs them).
set -euo pipefail
case ${1:-} in
  -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  -*) echo "tools/simgrid/build.sh: unknown option $1 (--help)" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=${1:-$root/.deps/simgrid-3.32-relay}
version=3.32
sha256=3cc752a28deb2ae42cd51cc835a572f13201702dc94545ced0e77c657231cd76
work=$root/.deps/simgrid-build
jobs=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)

if [[ -x $prefix/bin/smpirun && -f $prefix/.relay-patch.sha256 ]] &&
   [[ $(cat "$prefix/.relay-patch.sha256") == $(sha256sum < "$here/activity-list.patch") ]]; then
  echo "SimGrid $version with relay's patch is already in $prefix" >&2
  exit 0
fi
mkdir -p "$work"
tarball=$work/simgrid-$version.tar.gz
if [[ ! -s $tarball ]] || ! echo "$sha256  $tarball" | sha256sum -c --quiet - 2>/dev/null; then
  echo "downloading SimGrid $version's source from PyPI" >&2
  # pip from a virtual environment of its own: Debian's python3 has no pip of its own.
  [[ -x $work/venv/bin/pip ]] || python3 -m venv "$work/venv"
  rm -f "$tarball"
  "$work/venv/bin/pip" download -q --no-deps --no-binary :all: "simgrid==$version" -d "$work"
fi
echo "$sha256  $tarball" | sha256sum -c --quiet - ||
  { echo "SimGrid's source does not have the expected SHA-256: $tarball" >&2; exit 1; }
rm -rf "$work/simgrid-$version" "$work/build"
tar xzf "$tarball" -C "$work"
patch -d "$work/simgrid-$version" -p1 < "$here/activity-list.patch"
# Debian's SMPI without what relay does not use (Fortran, Python, Java, MSG, model checking);
# LTO off: the same code, a link that fits in memory beside other work.
# From inside the build directory: SimGrid's configure leaves a test program in the current one.
mkdir -p "$work/build"
cd "$work/build"
cmake -S "$work/simgrid-$version" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$prefix" -Denable_smpi=ON -Denable_fortran=OFF -Denable_python=OFF \
  -Denable_lto=OFF -Denable_documentation=OFF -Denable_java=OFF -Denable_msg=OFF \
  -Denable_model-checking=OFF > "$work/configure.log"
cmake --build "$work/build" -j "$jobs"
cmake --install "$work/build" > "$work/install.log"
sha256sum < "$here/activity-list.patch" > "$prefix/.relay-patch.sha256"
echo "SimGrid $version with relay's patch: $prefix/bin/smpirun" >&2
