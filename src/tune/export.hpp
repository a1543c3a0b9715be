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
// counterpart. The rules apply to the communicator sizes the table covers and no others: Open
// MPI's file ends each range with an entry of algorithm 0 (its own fixed decision), MPICH's
// sends the sizes outside them to the base's own bcast tree.
#pragma once

#include <string>

#include "coll/table.hpp"

namespace relay::tune {

/// What an export says beside the file it wrote.
struct ExportNotes {
  std::string notes;    ///< "# note: ..." lines: approximations, what it covers
  std::string warning;  ///< non-empty when the file changes nothing (every rule is `mpi`)
};

/// Writes the Open MPI rules file (atomically).
ExportNotes export_openmpi(const coll::Table& table, const std::string& path);
/// Writes the MPICH JSON (atomically); `base` = "" finds the installed MPICH's built-in JSON.
/// Throws std::runtime_error when there is no base to start from.
ExportNotes export_mpich(const coll::Table& table, const std::string& path,
                         const std::string& base);

}  // namespace relay::tune
