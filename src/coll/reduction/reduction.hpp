// The catalogue of collectives other than broadcast: reduce, allreduce, allgather,
// reduce_scatter_block, gather, scatter, alltoall and barrier, every algorithm a schedule
// builder registered by name, like the broadcasts (coll/bcast).
//
// Dispatch, `relay algorithms`, the test matrix and the model read the registry, so a newly
// registered algorithm is executed, listed, tested and costed without new code.
//
// The buffer a program addresses (its accumulator) holds, on entry, this rank's contribution:
//   reduce, allreduce       count elements; on exit the result (at the root for reduce)
//   allgather               size blocks of count elements; on entry block `rank` is this rank's
//   allgatherv              size blocks, block r of block_counts[r] elements at element
//                           block_displs[r] (empty vectors: count each, one after the other);
//                           on entry block `rank` is this rank's; bytes between blocks are
//                           never addressed
//   reduce_scatter_block    size blocks of count elements (the input); on exit block `rank`
//                           is reduced (the API copies it out)
//   gather, scatter         size blocks of count elements: on entry this rank's block
//                           (gather) or, at the root, all blocks (scatter)
//   alltoall                linear: size blocks to send (read only); received blocks land
//                           in the scratch, which the API points at recvbuf. bruck: its own
//                           work buffer (BruckAlltoallLayout), which the API fills from
//                           sendbuf and whose first size blocks it copies to recvbuf
//   barrier                 one byte, OR-combined: a barrier is an allreduce of "who has
//                           entered", so the schedule checks verify it like any reduction
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
  reduce_scatter_block = RELAY_COLL_REDUCE_SCATTER_BLOCK,
  gather = RELAY_COLL_GATHER,
  scatter = RELAY_COLL_SCATTER,
  alltoall = RELAY_COLL_ALLTOALL,
  barrier = RELAY_COLL_BARRIER,
  allgatherv = RELAY_COLL_ALLGATHERV
};

/// Every collective of this catalogue, in enum order.
inline constexpr Collective kCollectives[] = {
    Collective::reduce,  Collective::allreduce, Collective::allgather,
    Collective::reduce_scatter_block, Collective::gather, Collective::scatter,
    Collective::alltoall, Collective::barrier, Collective::allgatherv};

/// "reduce", "allreduce", "allgather", "reduce_scatter_block", "gather", ...
std::string_view to_string(Collective collective);
/// "REDUCE", ... as in the RELAY_<OP>_* environment variables.
std::string_view env_prefix(Collective collective);

/// Whether the buffer is size blocks (all but reduce, allreduce and barrier; CollShape::blocks).
inline bool has_blocks(Collective c) {
  return c != Collective::reduce && c != Collective::allreduce && c != Collective::barrier;
}
/// Whether the collective has a root (reduce, gather, scatter).
inline bool has_root(Collective c) {
  return c == Collective::reduce || c == Collective::gather || c == Collective::scatter;
}

/// Everything a program depends on (the cache key, less the rank).
struct CollShape {
  int size = 1;
  int root = 0;                    ///< reduce, gather, scatter
  std::int64_t count = 0;          ///< elements: the vector (reduce, allreduce), a block (others)
  std::int64_t elem_bytes = 1;
  std::int64_t segment_bytes = 0;  ///< 0 = unsegmented
  bool commutative = true;
  int fanout = 1;                  ///< chains of reduce `chain`
  bool blocks = false;             ///< size blocks of count (all but reduce, allreduce, barrier)
  /// allgatherv: elements of each rank's block, and where it starts (elements from the start of
  /// the buffer; normalized by the API so that the first non-empty block starts at 0 and empty
  /// blocks at 0). Empty: uniform blocks of `count`. Part of the cache key.
  std::vector<std::int64_t> block_counts, block_displs;

  /// Bytes of block i (blocks only).
  std::int64_t block_bytes(int i) const {
    return (block_counts.empty() ? count : block_counts[static_cast<std::size_t>(i)]) * elem_bytes;
  }
  /// Byte offset of block i in the buffer (blocks only).
  std::int64_t block_offset(int i) const {
    return (block_displs.empty() ? i * count : block_displs[static_cast<std::size_t>(i)]) *
           elem_bytes;
  }
  /// Bytes of the buffer the program addresses.
  std::int64_t buffer_bytes() const;
};

/// alltoall bruck's work buffer at `rank` (rooted.cpp), of blocks of block_bytes. Position i
/// (1 <= i < size) is the block that travels i ranks forward, in round k (distance 2^k) for each
/// bit k of i. It consists of:
///   final    size blocks in recvbuf's order: block s is the one from rank s (s = rank on entry,
///            the others as their last round delivers them);
///   area(k)  for round k, the positions with bit k set in ascending order: what round k sends
///            as one message. On entry the positions whose lowest set bit is k hold this rank's
///            block (rank + i) % size; the others are filled as earlier rounds deliver them.
struct BruckAlltoallLayout {
  BruckAlltoallLayout(int size, std::int64_t block_bytes);
  int rounds() const { return rounds_; }
  /// Positions with bit k set (round k's message, in blocks).
  std::int64_t count(int k) const;
  std::int64_t area(int k) const { return area_[static_cast<std::size_t>(k)]; }
  /// The byte offset of position i in area(k) (bit k of i set).
  std::int64_t at(int k, int position) const;
  /// The first round >= k that moves position i (its lowest set bit >= k), -1 if none.
  static int round_from(int k, int position);
  /// The whole work buffer.
  std::int64_t bytes() const { return area_.back(); }

  int size;
  std::int64_t block;

 private:
  int rounds_ = 0;
  std::vector<std::int64_t> area_;  // rounds_ + 1 offsets
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

  /// Whether it runs itself on `size` ranks (else its `fallback` runs).
  bool runs_on(int size) const { return !needs_power_of_two || (size & (size - 1)) == 0; }
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
schedule::RankProgram allgatherv_gather_bcast(const CollShape& shape, int rank);
// Recursive halving and doubling (reduction_halving.cpp).
schedule::RankProgram reduce_rabenseifner(const CollShape& shape, int rank);
schedule::RankProgram allreduce_rabenseifner(const CollShape& shape, int rank);
schedule::RankProgram allreduce_recursive_doubling(const CollShape& shape, int rank);
schedule::RankProgram reduce_scatter_recursive_halving(const CollShape& shape, int rank);
schedule::RankProgram allgather_recursive_doubling(const CollShape& shape, int rank);
// Gather, scatter, alltoall, barrier (rooted.cpp).
schedule::RankProgram gather_linear(const CollShape& shape, int rank);
schedule::RankProgram gather_binomial(const CollShape& shape, int rank);
schedule::RankProgram scatter_linear(const CollShape& shape, int rank);
schedule::RankProgram scatter_binomial(const CollShape& shape, int rank);
schedule::RankProgram alltoall_linear(const CollShape& shape, int rank);
schedule::RankProgram alltoall_bruck(const CollShape& shape, int rank);
schedule::RankProgram barrier_dissemination(const CollShape& shape, int rank);
// Rings and Bruck (reduction_ring.cpp).
schedule::RankProgram allreduce_ring(const CollShape& shape, int rank);
schedule::RankProgram reduce_scatter_ring(const CollShape& shape, int rank);
schedule::RankProgram allgather_ring(const CollShape& shape, int rank);  // also allgatherv
schedule::RankProgram allgather_bruck(const CollShape& shape, int rank);

}  // namespace relay::coll
