#!/usr/bin/env bash
# Installs relay from a build tree into a temporary prefix, then builds and runs two consumers:
# a CMake project using find_package(relay), and a C program built with pkg-config.
# usage: run_package_test.sh BUILD_DIR SOURCE_DIR MPIEXEC MPICC [MPIEXEC_FLAGS...]
set -euo pipefail
build=$1 source=$2 mpiexec=$3 mpicc=$4
shift 4
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
echo "package test passed"
