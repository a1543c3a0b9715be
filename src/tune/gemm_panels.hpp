// relay tune --for-gemm: the broadcast of a GEMM's panels, chosen by running the GEMM.
//
// A panel broadcast measured alone is not what the GEMM sees: there every process of a row
// (column) broadcasts its part of the panel at once, while the local multiply holds the CPU
// that relay's schedules (or MPI's) need to pass messages on. On the emulated cluster (8 nodes
// at 250 Mbit/s, block 32) MPI's own broadcast made the GEMM 1.06-1.16x faster than the
// broadcast the closed form chose (docs/gemm.md). So each candidate broadcast runs the whole
// multiplication -- square n x n x n on the caller's grid, block size and look-ahead --
// interleaved over repetitions (medians of the slowest process's time), and the fastest
// becomes the decision table's choice for the broadcasts that GEMM made: their communicator
// sizes (a process row, a process column), their largest sizes in bytes as grid points,
// ranges meeting at geometric means between grid points as relay tune's do.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/table.hpp"
#include "relay/gemm.h"

namespace relay::tune {

/// One way to broadcast the panels.
struct PanelCandidate {
  std::string name;  ///< as printed and in the results: "mpi", "pipeline 128KiB"
  std::string algorithm;
  std::string policy = "nonblocking";
  long long segment_bytes = 0;  ///< 0: unsegmented
};

/// `algorithms` (broadcast algorithm names) with segmentable ones once per segment size.
std::vector<PanelCandidate> panel_candidates(const std::vector<std::string>& algorithms,
                                             const std::vector<long long>& segments);

struct GemmTuneOptions {
  std::vector<long long> sizes;  ///< n of each square multiplication
  long long block = 64;          ///< block size of A, B and C (both dimensions)
  int lookahead = 1;
  long long panel_width = 0;  ///< 0: the GEMM's default
  int pieces = 0;             ///< 0: the GEMM's default
  MPI_Datatype type = MPI_DOUBLE;
  std::vector<PanelCandidate> candidates;
  int reps = 3;
  /// Called with the bytes a process needs before anything is allocated (collective; throws
  /// to refuse on every process alike).
  std::function<void(double bytes, const std::string& what)> check_memory;
};

struct GemmTuneEvents {
  /// One multiplication done (on every process).
  std::function<void(long long n, const PanelCandidate& candidate, int rep, double seconds)>
      measured;
  /// One size's results (its entry of "sizes" in the results document), on every process.
  std::function<void(const nlohmann::json& size_doc)> size_done;
};

struct GemmTuneResult {
  coll::Table table;       ///< rules for the broadcasts the GEMMs made
  nlohmann::json results;  ///< relay.tune.gemm/1: every time measured, each size's choice
};

/// Collective over `comm`, the communicator `grid` was made from. Throws std::runtime_error (the
/// same on every process) when a multiplication fails.
GemmTuneResult tune_gemm_panels(MPI_Comm comm, relay_grid_t grid, const GemmTuneOptions& options,
                                const GemmTuneEvents& events);

}  // namespace relay::tune
