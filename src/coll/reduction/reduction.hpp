// The collectives other than broadcast: reduce, allreduce, allgather, allgatherv,
// reduce_scatter_block, gather, scatter, alltoall and barrier -- their registry rows, closed
// forms and builders (the registry itself: coll/registry.hpp).
//
// The buffer a program addresses (its accumulator) holds, on entry, this rank's contribution
// (Shape::bytes is the vector or one block; "count elements" is Shape::elements()):
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
#include <vector>

#include "coll/registry.hpp"
#include "schedule/builder.hpp"
#include "schedule/schedule.hpp"

namespace relay::coll {

// The rows of each collective of this family (registry.cpp), in id order, and what its `auto`
// takes without a tuning-table rule (the closed forms of docs/collectives.md).
const std::vector<Algorithm>& reduce_algorithms();
const std::vector<Algorithm>& allreduce_algorithms();
const std::vector<Algorithm>& allgather_algorithms();
const std::vector<Algorithm>& allgatherv_algorithms();
const std::vector<Algorithm>& reduce_scatter_block_algorithms();
const std::vector<Algorithm>& gather_algorithms();
const std::vector<Algorithm>& scatter_algorithms();
const std::vector<Algorithm>& alltoall_algorithms();
const std::vector<Algorithm>& barrier_algorithms();
ClosedFormChoice reduce_closed_form(const Call& call);
ClosedFormChoice allreduce_closed_form(const Call& call);
ClosedFormChoice allgather_closed_form(const Call& call);
ClosedFormChoice allgatherv_closed_form(const Call& call);
ClosedFormChoice reduce_scatter_block_closed_form(const Call& call);
ClosedFormChoice gather_closed_form(const Call& call);
ClosedFormChoice scatter_closed_form(const Call& call);
ClosedFormChoice alltoall_closed_form(const Call& call);
ClosedFormChoice barrier_closed_form(const Call& call);

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

// Builders, by family (the registry names them).
// Trees (reduction_tree.cpp): segmented tree reduce, reduce + broadcast, gather + broadcast.
schedule::RankProgram reduce_linear(const Shape& shape, int rank);
schedule::RankProgram reduce_chain(const Shape& shape, int rank);
schedule::RankProgram reduce_pipeline(const Shape& shape, int rank);
schedule::RankProgram reduce_binary(const Shape& shape, int rank);
schedule::RankProgram reduce_binomial(const Shape& shape, int rank);
schedule::RankProgram allreduce_reduce_bcast(const Shape& shape, int rank);
schedule::RankProgram allgather_gather_bcast(const Shape& shape, int rank);
schedule::RankProgram allgatherv_gather_bcast(const Shape& shape, int rank);
// Recursive halving and doubling (reduction_halving.cpp).
schedule::RankProgram reduce_rabenseifner(const Shape& shape, int rank);
schedule::RankProgram allreduce_rabenseifner(const Shape& shape, int rank);
schedule::RankProgram allreduce_recursive_doubling(const Shape& shape, int rank);
schedule::RankProgram reduce_scatter_recursive_halving(const Shape& shape, int rank);
schedule::RankProgram allgather_recursive_doubling(const Shape& shape, int rank);
// Gather, scatter, alltoall, barrier (rooted.cpp).
schedule::RankProgram gather_linear(const Shape& shape, int rank);
schedule::RankProgram gather_binomial(const Shape& shape, int rank);
schedule::RankProgram scatter_linear(const Shape& shape, int rank);
schedule::RankProgram scatter_binomial(const Shape& shape, int rank);
schedule::RankProgram alltoall_linear(const Shape& shape, int rank);
schedule::RankProgram alltoall_bruck(const Shape& shape, int rank);
schedule::RankProgram barrier_dissemination(const Shape& shape, int rank);
// Rings and Bruck (reduction_ring.cpp).
schedule::RankProgram allreduce_ring(const Shape& shape, int rank);
schedule::RankProgram reduce_scatter_ring(const Shape& shape, int rank);
schedule::RankProgram allgather_ring(const Shape& shape, int rank);  // also allgatherv
schedule::RankProgram allgather_bruck(const Shape& shape, int rank);

}  // namespace relay::coll
