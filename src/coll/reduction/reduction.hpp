// The reduction and gather catalogue: reduce, allreduce, allgather and reduce_scatter_block,
// every algorithm a schedule builder registered by name, like the broadcasts (coll/bcast).
//
// Dispatch, `relay algorithms`, the test matrix and the model read the registry, so a newly
// registered algorithm is executed, listed, tested and costed without new code.
//
// The buffer a program addresses (its accumulator) holds, on entry, this rank's contribution:
//   reduce, allreduce       count elements; on exit the result (at the root for reduce)
//   allgather               size blocks of count elements; on entry block `rank` is this rank's
//   reduce_scatter_block    size blocks of count elements (the input); on exit block `rank`
//                           is reduced (the API copies it out)
// Combine order (deterministic for a given size and root; docs/collectives.md):
// with a commutative op every combine is received (op) accumulated, in the order the algorithm
// header states; with a non-commutative op the algorithms that keep rank order combine so that
// the result is x_0 (op) x_1 (op) ... (op) x_{size-1}; the others refuse such ops.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "relay/relay.h"
#include "schedule/builder.hpp"
#include "schedule/schedule.hpp"

namespace relay::coll {

/// The values of relay_collective_t.
enum class Collective {
  reduce = RELAY_COLL_REDUCE,
  allreduce = RELAY_COLL_ALLREDUCE,
  allgather = RELAY_COLL_ALLGATHER,
  reduce_scatter_block = RELAY_COLL_REDUCE_SCATTER_BLOCK
};

/// "reduce", "allreduce", "allgather", "reduce_scatter_block".
std::string_view to_string(Collective collective);
/// "REDUCE", ... as in the RELAY_<OP>_* environment variables.
std::string_view env_prefix(Collective collective);

/// Everything a program depends on (the cache key, less the rank).
struct CollShape {
  int size = 1;
  int root = 0;                    ///< reduce only
  std::int64_t count = 0;          ///< elements: the vector (reduce, allreduce), a block (others)
  std::int64_t elem_bytes = 1;
  std::int64_t segment_bytes = 0;  ///< 0 = unsegmented
  bool commutative = true;
  int fanout = 1;                  ///< chains of reduce `chain`
  bool blocks = false;             ///< allgather, reduce_scatter_block: size blocks of count
  /// Bytes of the buffer the program addresses.
  std::int64_t buffer_bytes() const { return (blocks ? size : 1) * count * elem_bytes; }
};

using CollBuilder = schedule::RankProgram (*)(const CollShape& shape, int rank);

struct CollAlgorithm {
  Collective collective;
  int id;                                ///< the C enum value (RELAY_REDUCE_BINOMIAL, ...)
  std::string_view name;
  std::string_view summary;              ///< one line for `relay algorithms` and docs
  CollBuilder build;                     ///< nullptr for `mpi`
  std::int64_t default_segment_bytes;    ///< when the caller leaves it to relay; 0 = none
  bool keeps_rank_order;                 ///< accepts non-commutative ops
  bool needs_power_of_two;               ///< otherwise runs `fallback` (logged)
  int fallback;                          ///< id run instead when a restriction fails
  bool uses_fanout;
};

/// The registered algorithms of a collective, in id order (`auto` is not one).
const std::vector<CollAlgorithm>& coll_algorithms(Collective collective);
const CollAlgorithm* find_coll_algorithm(Collective collective, int id);
const CollAlgorithm* find_coll_algorithm(Collective collective, std::string_view name);

/// Every rank's program (for the model and the consistency tests).
schedule::Schedule build_coll_schedule(const CollAlgorithm& algorithm, const CollShape& shape);

// Builders, by family (the registry names them).
// Trees (reduction_tree.cpp): segmented tree reduce, reduce + broadcast, gather + broadcast.
schedule::RankProgram reduce_linear(const CollShape& shape, int rank);
schedule::RankProgram reduce_chain(const CollShape& shape, int rank);
schedule::RankProgram reduce_pipeline(const CollShape& shape, int rank);
schedule::RankProgram reduce_binary(const CollShape& shape, int rank);
schedule::RankProgram reduce_binomial(const CollShape& shape, int rank);
schedule::RankProgram allreduce_reduce_bcast(const CollShape& shape, int rank);
schedule::RankProgram allgather_gather_bcast(const CollShape& shape, int rank);
// Recursive halving and doubling (reduction_halving.cpp).
schedule::RankProgram reduce_rabenseifner(const CollShape& shape, int rank);
schedule::RankProgram allreduce_rabenseifner(const CollShape& shape, int rank);
schedule::RankProgram allreduce_recursive_doubling(const CollShape& shape, int rank);
schedule::RankProgram reduce_scatter_recursive_halving(const CollShape& shape, int rank);
schedule::RankProgram allgather_recursive_doubling(const CollShape& shape, int rank);
// Rings and Bruck (reduction_ring.cpp).
schedule::RankProgram allreduce_ring(const CollShape& shape, int rank);
schedule::RankProgram reduce_scatter_ring(const CollShape& shape, int rank);
schedule::RankProgram allgather_ring(const CollShape& shape, int rank);
schedule::RankProgram allgather_bruck(const CollShape& shape, int rank);

}  // namespace relay::coll
