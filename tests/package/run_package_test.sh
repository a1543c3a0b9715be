#!/usr/bin/env bash
# Installs relay from a build tree into a temporary prefix, then builds and runs its consumers:
# a C++ and a C-only CMake project using find_package(relay); a C program built with
# pkg-config, by the MPI wrapper and by the plain C compiler; an unchanged Fortran ScaLAPACK
# program calling only pdgesv, with relay's drop-in linked first (pkg-config relay-scalapack and
# the CMake target relay::scalapack, under --as-needed) and preloaded from the prefix, each
# checked to run relay's pdgemm_ (RELAY_LOG); and, where the other MPI family is installed, a
# program of that family linked to this relay, which must fail on every rank naming both.
# usage: run_package_test.sh BUILD_DIR SOURCE_DIR MPIEXEC MPICC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 source=$2 mpiexec=$3 mpicc=$4
shift 4
flags=("$@")
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix/usr" >/dev/null
for f in include/relay/relay.h include/relay/relay.hpp bin/relay lib/cmake/relay/relayConfig.cmake \
         lib/pkgconfig/relay.pc; do
  [ -e "$prefix/usr/$f" ] || { echo "not installed: $f" >&2; exit 1; }
done
ls "$prefix"/usr/lib/librelay.so* >/dev/null
"$prefix/usr/bin/relay" --version
"$prefix/usr/bin/relay" algorithms >/dev/null

cmake -S "$source/tests/package" -B "$prefix/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$prefix/consumer" >/dev/null
"$mpiexec" -n 2 "$@" "$prefix/consumer/consumer"

export PKG_CONFIG_PATH="$prefix/usr/lib/pkgconfig"
# shellcheck disable=SC2046
"$mpicc" -o "$prefix/pc_consumer" "$source/tests/package/consumer_pkgconfig.c" \
  $(pkg-config --cflags --libs relay) -Wl,-rpath,"$prefix/usr/lib"
"$mpiexec" -n 2 "$@" "$prefix/pc_consumer"
# relay.pc requires its MPI's pkg-config module: a plain C compiler finds mpi.h.
# shellcheck disable=SC2046
cc -o "$prefix/pc_plain" "$source/tests/package/consumer_pkgconfig.c" \
  $(pkg-config --cflags --libs relay) -Wl,-rpath,"$prefix/usr/lib"
"$mpiexec" -n 2 "$@" "$prefix/pc_plain"

cmake -S "$source/tests/package/c_only" -B "$prefix/c_only" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix/usr" -DMPI_C_COMPILER="$mpicc" >/dev/null
cmake --build "$prefix/c_only" >/dev/null
"$mpiexec" -n 2 "$@" "$prefix/c_only/c_consumer"
echo "C-only CMake consumer: ok"

# The drop-in, from the prefix. Each process logs to its own file (mpiexec interleaves streams).
scalapack=$(sed -n 's/^RELAY_SCALAPACK_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")
if [ -n "$scalapack" ] && [ -e "$prefix/usr/lib/librelay_scalapack.so" ]; then
  mpif90=$(dirname "$mpicc")/$(basename "$mpicc" | sed 's/mpicc/mpif90/')
  logs="$prefix/logs"
  mkdir -p "$logs"
  ran_relay() {  # label program [env...]: correct, and relay's pdgemm_ ran on every process
    local label=$1 program=$2
    shift 2
    rm -f "$logs"/err.*
    timeout 120 "$mpiexec" -n 2 "${flags[@]}" env RELAY_LOG=1 "$@" \
      sh -c 'exec "$@" 2>"$0/err.$$"' "$logs" "$program" > "$logs/out" ||
      { cat "$logs/out" "$logs"/err.*; echo "$label: exited $?" >&2; exit 1; }
    grep -q "pdgesv_only: solution correct" "$logs/out" || { cat "$logs/out"; exit 1; }
    for f in "$logs"/err.*; do
      grep -q "relay PDGEMM" "$f" || { echo "$label: relay's pdgemm_ did not run ($f)" >&2; exit 1; }
    done
    echo "$label: solution correct, relay's pdgemm_ ran on every process" \
      "($(cat "$logs"/err.* | grep -c "relay PDGEMM") calls)"
  }
  # shellcheck disable=SC2046
  "$mpif90" -o "$prefix/pdgesv_pc" "$source/tests/package/pdgesv_only.f90" \
    $(pkg-config --libs relay-scalapack) "$scalapack"
  ran_relay "Fortran pdgesv, linked first (pkg-config relay-scalapack)" "$prefix/pdgesv_pc"
  cmake -S "$source/tests/package/fortran" -B "$prefix/fortran" -G Ninja \
    -DCMAKE_PREFIX_PATH="$prefix/usr" -DMPI_C_COMPILER="$mpicc" \
    -DMPI_Fortran_COMPILER="$mpif90" -DSCALAPACK_LIBRARY="$scalapack" >/dev/null
  cmake --build "$prefix/fortran" >/dev/null
  ran_relay "Fortran pdgesv, linked first (CMake relay::scalapack)" "$prefix/fortran/pdgesv_only"
  "$mpif90" -o "$prefix/pdgesv_plain" "$source/tests/package/pdgesv_only.f90" "$scalapack"
  ran_relay "Fortran pdgesv, preloaded" "$prefix/pdgesv_plain" \
    LD_PRELOAD="$prefix/usr/lib/librelay_scalapack.so"
fi

# The other MPI family's program linked to this relay: a clear error on every rank, no hang.
other_cc="" other_exec=""
built_for=$(sed -n 's/^set(relay_MPI "\(.*\)").*/\1/p' "$prefix/usr/lib/cmake/relay/relayConfig.cmake")
if [ "$built_for" = openmpi ]; then
  other_cc=mpicc.mpich other_exec=mpiexec.mpich
elif [ "$built_for" = mpich ]; then
  other_cc=mpicc.openmpi other_exec=mpiexec.openmpi
fi
if [ -n "$other_cc" ] && command -v "$other_cc" >/dev/null && command -v "$other_exec" >/dev/null; then
  "$other_cc" -o "$prefix/mismatch" "$source/tests/package/mpi_mismatch.c" \
    -I"$prefix/usr/include" -L"$prefix/usr/lib" -lrelay -Wl,-rpath,"$prefix/usr/lib"
  other_flags=()
  [ "$other_exec" = mpiexec.openmpi ] && other_flags=(--oversubscribe)
  # (Open MPI's launcher refuses root without these; CI runs as root.)
  timeout 60 env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
    "$other_exec" -n 2 "${other_flags[@]}" "$prefix/mismatch" > "$prefix/mismatch.out" 2>&1 ||
    { cat "$prefix/mismatch.out"; echo "MPI mismatch: the program failed or hung" >&2; exit 1; }
  [ "$(grep -c "relay was built for .* but this program runs" "$prefix/mismatch.out")" -eq 2 ] ||
    { cat "$prefix/mismatch.out"; echo "MPI mismatch: not said on every rank" >&2; exit 1; }
  head -1 "$prefix/mismatch.out"
  echo "MPI mismatch: said on both ranks"
fi
echo "package test passed"
