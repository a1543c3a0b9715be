#!/usr/bin/env bash
# Installs relay from a build tree, twice -- `cmake --install` into a temporary prefix, and the
# Debian package (`cpack -G DEB`, unpacked with dpkg-deb into a clean directory) -- and on each
# builds and runs its consumers: a C++ and a C-only CMake project using find_package(relay); a C
# program built with pkg-config, by the MPI wrapper and by the plain C compiler; an unchanged
# Fortran ScaLAPACK program calling only pdgesv, with relay's drop-in linked first (pkg-config
# relay-scalapack and the CMake target relay::scalapack, under --as-needed) and preloaded, each
# checked to run relay's pdgemm_ (RELAY_LOG); and, where the other MPI family is installed, a
# program of that family linked to this relay, which must fail on every rank naming both.
# usage: run_package_test.sh BUILD_DIR SOURCE_DIR MPIEXEC MPICC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 source=$2 mpiexec=$3 mpicc=$4
shift 4
flags=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scalapack=$(sed -n 's/^RELAY_SCALAPACK_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")
mpif90=$(dirname "$mpicc")/$(basename "$mpicc" | sed 's/mpicc/mpif90/')

# Every consumer of one installed prefix `inst`, built under `out`.
check_install() {
  local inst=$1 out=$2 label=$3
  mkdir -p "$out"
  echo "== $label: $inst"
  for f in include/relay/relay.h include/relay/relay.hpp bin/relay lib/cmake/relay/relayConfig.cmake \
           lib/pkgconfig/relay.pc; do
    [ -e "$inst/$f" ] || { echo "not installed: $f" >&2; exit 1; }
  done
  ls "$inst"/lib/librelay.so* >/dev/null
  "$inst/bin/relay" --version
  "$inst/bin/relay" algorithms >/dev/null

  cmake -S "$source/tests/package" -B "$out/consumer" -G Ninja \
    -DCMAKE_PREFIX_PATH="$inst" -DMPI_C_COMPILER="$mpicc" >/dev/null
  cmake --build "$out/consumer" >/dev/null
  ran_logged "C++ consumer (CMake)" "$out/consumer/consumer" "relay_bcast"

  export PKG_CONFIG_PATH="$inst/lib/pkgconfig"
  # shellcheck disable=SC2046
  "$mpicc" -o "$out/pc_consumer" "$source/tests/package/consumer_pkgconfig.c" \
    $(pkg-config --cflags --libs relay) -Wl,-rpath,"$inst/lib"
  ran_logged "C consumer (pkg-config, MPI wrapper)" "$out/pc_consumer" "relay_bcast"
  # relay.pc requires its MPI's pkg-config module: a plain C compiler finds mpi.h.
  # shellcheck disable=SC2046
  cc -o "$out/pc_plain" "$source/tests/package/consumer_pkgconfig.c" \
    $(pkg-config --cflags --libs relay) -Wl,-rpath,"$inst/lib"
  ran_logged "C consumer (pkg-config, plain cc)" "$out/pc_plain" "relay_bcast"

  cmake -S "$source/tests/package/c_only" -B "$out/c_only" -G Ninja \
    -DCMAKE_PREFIX_PATH="$inst" -DMPI_C_COMPILER="$mpicc" >/dev/null
  cmake --build "$out/c_only" >/dev/null
  ran_logged "C consumer (C-only CMake project)" "$out/c_only/c_consumer" "relay_bcast"

  # The drop-in. Each process logs to its own file (mpiexec interleaves streams).
  if [ -n "$scalapack" ] && [ -e "$inst/lib/librelay_scalapack.so" ]; then
    # Every Fortran name mangling of the four routines (pdgemm_, pdgemm, PDGEMM, ...). The
    # symbols are read once: `nm | grep -q` under pipefail fails when grep stops nm early.
    local symbols
    symbols=$(nm -D --defined-only "$inst/lib/librelay_scalapack.so")
    for name in psgemm pdgemm pcgemm pzgemm; do
      upper=$(echo "$name" | tr a-z A-Z)
      for symbol in "${name}_" "$name" "$upper"; do
        grep -qw "$symbol" <<<"$symbols" ||
          { echo "librelay_scalapack does not export $symbol" >&2; exit 1; }
      done
    done
    # shellcheck disable=SC2046
    "$mpif90" -o "$out/pdgesv_pc" "$source/examples/dropin/pdgesv_only.f90" \
      $(pkg-config --libs relay-scalapack) "$scalapack"
    ran_relay "Fortran pdgesv, linked first (pkg-config relay-scalapack)" "$out/pdgesv_pc"
    cmake -S "$source/tests/package/fortran" -B "$out/fortran" -G Ninja \
      -DCMAKE_PREFIX_PATH="$inst" -DMPI_C_COMPILER="$mpicc" \
      -DMPI_Fortran_COMPILER="$mpif90" -DSCALAPACK_LIBRARY="$scalapack" \
      -DRELAY_SOURCE_DIR="$source" >/dev/null
    cmake --build "$out/fortran" >/dev/null
    ran_relay "Fortran pdgesv, linked first (CMake relay::scalapack)" "$out/fortran/pdgesv_only"
    "$mpif90" -o "$out/pdgesv_plain" "$source/examples/dropin/pdgesv_only.f90" "$scalapack"
    ran_relay "Fortran pdgesv, preloaded" "$out/pdgesv_plain" \
      LD_PRELOAD="$inst/lib/librelay_scalapack.so"
  fi

  # The other MPI family's program linked to this relay: a clear error on every rank, no hang.
  local other_cc="" other_exec="" built_for
  built_for=$(sed -n 's/^set(relay_MPI "\(.*\)").*/\1/p' "$inst/lib/cmake/relay/relayConfig.cmake")
  if [ "$built_for" = openmpi ]; then
    other_cc=mpicc.mpich other_exec=mpiexec.mpich
  elif [ "$built_for" = mpich ]; then
    other_cc=mpicc.openmpi other_exec=mpiexec.openmpi
  fi
  if [ -n "$other_cc" ] && command -v "$other_cc" >/dev/null && command -v "$other_exec" >/dev/null; then
    "$other_cc" -o "$out/mismatch" "$source/tests/package/mpi_mismatch.c" \
      -I"$inst/include" -L"$inst/lib" -lrelay -Wl,-rpath,"$inst/lib"
    local other_flags=()
    [ "$other_exec" = mpiexec.openmpi ] && other_flags=(--oversubscribe)
    # (Open MPI's launcher refuses root without these; CI runs as root.)
    timeout 60 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      "$other_exec" -n 2 "${other_flags[@]}" "$out/mismatch" > "$out/mismatch.out" 2>&1 ||
      { cat "$out/mismatch.out"; echo "MPI mismatch: the program failed or hung" >&2; exit 1; }
    [ "$(grep -c "relay was built for .* but this program runs" "$out/mismatch.out")" -eq 2 ] ||
      { cat "$out/mismatch.out"; echo "MPI mismatch: not said on every rank" >&2; exit 1; }
    head -1 "$out/mismatch.out"
    echo "MPI mismatch: said on both ranks"
  fi
}

# Runs `program` on 2 ranks with RELAY_LOG=1, each rank's stderr in a file of its own (mpiexec
# interleaves streams): it must succeed and every rank must log relay's `marker`. Prints the
# program's first line and how many times relay logged it. [env...]: more variables.
logged_dir="$work/logged"
ran_logged() {  # label program marker [env...]
  local label=$1 program=$2 marker=$3
  shift 3
  mkdir -p "$logged_dir"
  rm -f "$logged_dir"/err.*
  timeout 120 "$mpiexec" -n 2 "${flags[@]}" env RELAY_LOG=1 "$@" \
    sh -c 'exec "$@" 2>"$0/err.$$"' "$logged_dir" "$program" > "$logged_dir/out" ||
    { cat "$logged_dir/out" "$logged_dir"/err.*; echo "$label: exited $?" >&2; exit 1; }
  for f in "$logged_dir"/err.*; do
    grep -q "relay.*$marker" "$f" || { echo "$label: no log of relay's $marker ($f)" >&2; exit 1; }
  done
  echo "$label: $(head -1 "$logged_dir/out"); RELAY_LOG shows relay's $marker on every rank" \
    "($(cat "$logged_dir"/err.* | grep -c "relay.*$marker") lines)"
}

# The Fortran pdgesv program: its solution right, and relay's pdgemm_ on every rank (forced: on
# one node the drop-in hands pdgesv's one-panel-step updates to ScaLAPACK's own by default).
ran_relay() {  # label program [env...]
  local label=$1 program=$2
  shift 2
  ran_logged "$label" "$program" "PDGEMM: .*relay's p?gemm" RELAY_SCALAPACK_FORWARD=relay "$@"
  grep -q "pdgesv_only: solution correct" "$logged_dir/out" ||
    { cat "$logged_dir/out"; echo "$label: wrong solution" >&2; exit 1; }
}

cmake --install "$build" --prefix "$work/usr" >/dev/null
check_install "$work/usr" "$work/cmake_install" "cmake --install"

# The Debian package, unpacked into a clean directory (no root, nothing installed on the host):
# the prefix it installs to, relocated.
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null; then
  (cd "$build" && cpack -G DEB -B "$work/deb" >/dev/null)
  deb=$(ls "$work"/deb/relay-*.deb)
  dpkg-deb -f "$deb" Package Version Depends
  dpkg-deb -x "$deb" "$work/debroot"
  inst=$(dirname "$(dirname "$(find "$work/debroot" -path '*/bin/relay' | head -1)")")
  case "$inst" in
    */usr/lib/*/relay-openmpi | */usr/lib/*/relay-mpich) ;;
    *) echo "the package installs to $inst, not /usr/lib/<multiarch>/relay-<mpi>" >&2; exit 1 ;;
  esac
  check_install "$inst" "$work/deb_install" "the Debian package $(basename "$deb")"
fi
echo "package test passed"
