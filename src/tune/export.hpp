// Exports of a decision table for the MPI libraries' own tuning mechanisms, so that a tuning
// run helps applications that call MPI_Bcast directly.
//   Open MPI 4.1 coll/tuned: the classic dynamic rules text file (coll_tuned_use_dynamic_rules
//     1, coll_tuned_dynamic_rules_filename FILE). Algorithm ids as `ompi_info --all` lists them
//     for coll_tuned_bcast_algorithm: 1 basic_linear, 2 chain, 3 pipeline, 4 split_binary_tree,
//     5 binary_tree, 6 binomial, 7 knomial, 8 scatter_allgather, 9 scatter_allgather_ring.
//   MPICH 4.0 collective selection JSON (MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE): the file
//     replaces MPICH's whole built-in selection tree, so the other collectives are copied from a
//     base (the installed library's built-in JSON, or a file) and only "collective=bcast" is
//     rewritten. MPICH 4.0 has no pipelined or k-ary blocking bcast and no segment size in the
//     file: those choices map to the nearest MPICH algorithm, and the export says so.
// Both choose a rule by the largest communicator-size and message-size thresholds not above the
// call's, so a rule's minimum is what they keep; relay's policy (blocking/nonblocking) has no
// counterpart.
#pragma once

#include <string>

#include "coll/table.hpp"

namespace relay::tune {

/// Writes the Open MPI rules file (atomically); returns notes on approximations, one per line.
std::string export_openmpi(const coll::Table& table, const std::string& path);
/// Writes the MPICH JSON (atomically); `base` = "" finds the installed MPICH's built-in JSON.
/// Returns notes. Throws std::runtime_error when there is no base to start from.
std::string export_mpich(const coll::Table& table, const std::string& path,
                         const std::string& base);

}  // namespace relay::tune
