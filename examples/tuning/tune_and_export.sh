#!/usr/bin/env bash
# The tuner's decision table used by relay's `auto`, and exported to the MPI library.
#
#   examples/tuning/tune_and_export.sh RELAY RELAY_EXAMPLE_BCAST OUT_DIR MPIEXEC [mpiexec args...]
#   e.g. examples/tuning/tune_and_export.sh build/src/cli/relay build/examples/relay_example_bcast \
#          out mpiexec -n 4 --oversubscribe
#
# 1. relay model measure: this machine's point-to-point parameters (a few seconds);
# 2. relay tune: the best broadcast per size by the model-guided search, written as a table;
# 3. an unchanged program (relay_example_bcast with algorithm auto) run with
#    RELAY_TUNING_FILE=table.json: the configuration it prints names the table's rule;
# 4. relay table --openmpi / --mpich: the same table for the MPI library's own MPI_Bcast (Open
#    MPI: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename
#    FILE; MPICH: MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE), then the example with its
#    `mpi` algorithm under it.
set -euo pipefail
relay=$1 example=$2 out=$3
shift 3
launch=("$@")
mkdir -p "$out"
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1

"${launch[@]}" "$relay" model measure --sizes 1KiB,64KiB,1MiB --max-seconds 0.05 --quiet \
  --output "$out/params.json"
"${launch[@]}" "$relay" tune --operation bcast --sizes 64KiB,1MiB --methods model,mgd \
  --table-method mgd --params "$out/params.json" --output "$out/table.json" --quiet
echo "== the table relay tune wrote ($out/table.json):"
"$relay" table "$out/table.json"

echo "== an unchanged program's auto broadcast follows it (RELAY_TUNING_FILE):"
"${launch[@]}" env RELAY_TUNING_FILE="$out/table.json" "$example" auto 1048576 | tee "$out/auto.txt"
grep -q "(auto: table .*rule" "$out/auto.txt" || { echo "auto did not follow the table" >&2; exit 1; }

library=$("$relay" --version | sed -n 's/^MPI (running): //p')
case $library in
*"Open MPI"*)
  "$relay" table "$out/table.json" --openmpi "$out/openmpi-rules.txt"
  echo "== MPI_Bcast itself under the exported rules:"
  "${launch[@]}" --mca coll_tuned_use_dynamic_rules 1 \
    --mca coll_tuned_dynamic_rules_filename "$out/openmpi-rules.txt" "$example" mpi 1048576
  ;;
*MPICH*)
  "$relay" table "$out/table.json" --mpich "$out/mpich-selection.json"
  echo "== MPI_Bcast itself under the exported selection:"
  "${launch[@]}" env MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE="$out/mpich-selection.json" \
    "$example" mpi 1048576
  ;;
*) echo "== $library: no export for this MPI library" ;;
esac
