// The broadcast catalogue: every algorithm is a schedule builder registered by name.
//
// Dispatch, the command line, the test matrix and (later) the tuner all read the registry, so
// a newly registered algorithm is executed, listed, benchmarked and tested without new code.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "relay/relay.h"
#include "schedule/schedule.hpp"
#include "topology/tree.hpp"

namespace relay::coll {

/// Everything a broadcast schedule depends on (the cache key, less the rank).
struct BcastShape {
  int size = 1;                     ///< ranks in the communicator
  int root = 0;
  std::int64_t total_bytes = 0;     ///< message size
  std::int64_t elem_bytes = 1;      ///< datatype size: blocks never split an element
  std::int64_t segment_bytes = 0;   ///< 0 = unsegmented
  int fanout = 1;
};

/// The bytes per message a builder uses: the segment size, or the whole message when
/// unsegmented, never more than schedule::kMaxMessageBytes.
inline std::int64_t effective_segment_bytes(const BcastShape& shape) {
  const std::int64_t segment = shape.segment_bytes > 0 ? shape.segment_bytes : shape.total_bytes;
  return segment < schedule::kMaxMessageBytes ? segment : schedule::kMaxMessageBytes;
}

using BcastBuilder = schedule::RankProgram (*)(const BcastShape& shape, int rank);

struct BcastAlgorithm {
  relay_bcast_algorithm_t id;
  std::string_view name;
  std::string_view summary;             ///< one line for --help and docs
  BcastBuilder build;                   ///< nullptr for `mpi` (runs MPI_Bcast)
  std::int64_t default_segment_bytes;   ///< when the caller leaves it to relay; 0 = none
  bool uses_fanout;
  int default_fanout;
};

/// All registered broadcast algorithms, in id order (`auto` is not one: it chooses one).
const std::vector<BcastAlgorithm>& bcast_algorithms();
/// The entry for an id, or nullptr (also for RELAY_BCAST_AUTO).
const BcastAlgorithm* find_bcast_algorithm(relay_bcast_algorithm_t id);
/// The entry for a canonical name, or nullptr.
const BcastAlgorithm* find_bcast_algorithm(std::string_view name);

/// A segmented broadcast down a tree: for each segment j, receive it from the parent, then
/// forward it to each child. The engine behind linear, chain, binary, kary, binomial, pipeline.
schedule::RankProgram build_bcast_tree(topology::TreeKind kind, const BcastShape& shape,
                                       int rank);
schedule::RankProgram build_bcast_scatter_allgather(const BcastShape& shape, int rank);

/// Every rank's program (for the model and the consistency tests).
schedule::Schedule build_bcast_schedule(const BcastAlgorithm& algorithm, const BcastShape& shape);

}  // namespace relay::coll
