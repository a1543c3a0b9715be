// The registry rows of reduce, allreduce, allgather, allgatherv, reduce_scatter_block, gather,
// scatter, alltoall and barrier, and the closed forms `auto` follows without a tuning-table
// rule. Each row: name, what it is, builder, default segment, restrictions. Costs and combine
// orders head the builders (reduction_tree.cpp, reduction_halving.cpp, reduction_ring.cpp,
// rooted.cpp).
#include "coll/reduction/reduction.hpp"

namespace relay::coll {
namespace {

constexpr std::int64_t kPipelineSegment = 64 * 1024;

}  // namespace

const std::vector<Algorithm>& reduce_algorithms() {
  const RowsOf row{Collective::reduce};
  static const std::vector<Algorithm> r = {
      row(RELAY_REDUCE_LINEAR, "linear", reduce_linear)
          .summary("root receives and combines every vector"),
      row(RELAY_REDUCE_CHAIN, "chain", reduce_chain)
          .summary("fanout chains into the root (segment to pipeline)")
          .fanout_tunable(1),
      row(RELAY_REDUCE_PIPELINE, "pipeline", reduce_pipeline)
          .summary("one segmented chain (bandwidth-optimal tree)")
          .default_segment_bytes(kPipelineSegment),
      row(RELAY_REDUCE_BINARY, "binary", reduce_binary)
          .summary("binary tree (commutative ops)")
          .reorders_operands(),
      row(RELAY_REDUCE_BINOMIAL, "binomial", reduce_binomial)
          .summary("binomial tree (latency-optimal)"),
      row(RELAY_REDUCE_RABENSEIFNER, "rabenseifner", reduce_rabenseifner)
          .summary("recursive halving + binomial gather (large vectors, commutative ops)")
          .reorders_operands(),
      row(RELAY_REDUCE_MPI, "mpi", nullptr).summary("the MPI library's MPI_Reduce (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& allreduce_algorithms() {
  const RowsOf row{Collective::allreduce};
  static const std::vector<Algorithm> r = {
      row(RELAY_ALLREDUCE_REDUCE_BCAST, "reduce_bcast", allreduce_reduce_bcast)
          .summary("binomial reduce to rank 0 + binomial broadcast"),
      row(RELAY_ALLREDUCE_RECURSIVE_DOUBLING, "recursive_doubling", allreduce_recursive_doubling)
          .summary("whole-vector exchanges with rank ^ 2^k (small vectors)"),
      row(RELAY_ALLREDUCE_RING, "ring", allreduce_ring)
          .summary("ring reduce-scatter + ring allgather (large vectors, commutative ops)")
          .reorders_operands(),
      row(RELAY_ALLREDUCE_RABENSEIFNER, "rabenseifner", allreduce_rabenseifner)
          .summary("recursive halving + recursive doubling (large vectors, commutative ops)")
          .reorders_operands(),
      row(RELAY_ALLREDUCE_MPI, "mpi", nullptr)
          .summary("the MPI library's MPI_Allreduce (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& allgather_algorithms() {
  const RowsOf row{Collective::allgather};
  static const std::vector<Algorithm> r = {
      row(RELAY_ALLGATHER_RING, "ring", allgather_ring).summary("ring (large blocks)"),
      row(RELAY_ALLGATHER_RECURSIVE_DOUBLING, "recursive_doubling", allgather_recursive_doubling)
          .summary("pairwise exchanges of doubling ranges (P a power of two, else bruck)")
          .power_of_two_else(RELAY_ALLGATHER_BRUCK),
      row(RELAY_ALLGATHER_BRUCK, "bruck", allgather_bruck)
          .summary("Bruck's log-round allgather, any P (small blocks)"),
      row(RELAY_ALLGATHER_GATHER_BCAST, "gather_bcast", allgather_gather_bcast)
          .summary("binomial gather to rank 0 + binomial broadcast"),
      row(RELAY_ALLGATHER_MPI, "mpi", nullptr)
          .summary("the MPI library's MPI_Allgather (baseline)"),
  };
  return r;
}

// allgatherv's ring is allgather's (its blocks are the shape's), segmented by default: a block
// much larger than the others then travels the ring a segment at a time instead of being stored
// and forwarded whole at every step.
const std::vector<Algorithm>& allgatherv_algorithms() {
  const RowsOf row{Collective::allgatherv};
  static const std::vector<Algorithm> r = {
      row(RELAY_ALLGATHERV_RING, "ring", allgather_ring)
          .summary("ring forwarding blocks of any sizes (large totals)")
          .default_segment_bytes(kPipelineSegment),
      row(RELAY_ALLGATHERV_GATHER_BCAST, "gather_bcast", allgatherv_gather_bcast)
          .summary("binomial gather of the blocks to rank 0 + binomial broadcast of the "
                   "others' blocks (small totals)"),
      row(RELAY_ALLGATHERV_MPI, "mpi", nullptr)
          .summary("the MPI library's MPI_Allgatherv (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& reduce_scatter_block_algorithms() {
  const RowsOf row{Collective::reduce_scatter_block};
  static const std::vector<Algorithm> r = {
      row(RELAY_REDUCE_SCATTER_RING, "ring", reduce_scatter_ring)
          .summary("ring reduce-scatter (large blocks, commutative ops)")
          .reorders_operands(),
      row(RELAY_REDUCE_SCATTER_RECURSIVE_HALVING, "recursive_halving",
          reduce_scatter_recursive_halving)
          .summary("recursive halving, any P (commutative ops)")
          .reorders_operands(),
      row(RELAY_REDUCE_SCATTER_MPI, "mpi", nullptr)
          .summary("the MPI library's MPI_Reduce_scatter_block (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& gather_algorithms() {
  const RowsOf row{Collective::gather};
  static const std::vector<Algorithm> r = {
      row(RELAY_GATHER_LINEAR, "linear", gather_linear)
          .summary("every rank sends its block to the root"),
      row(RELAY_GATHER_BINOMIAL, "binomial", gather_binomial)
          .summary("subtrees' blocks up a binomial tree"),
      row(RELAY_GATHER_MPI, "mpi", nullptr).summary("the MPI library's MPI_Gather (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& scatter_algorithms() {
  const RowsOf row{Collective::scatter};
  static const std::vector<Algorithm> r = {
      row(RELAY_SCATTER_LINEAR, "linear", scatter_linear)
          .summary("the root sends every rank its block"),
      row(RELAY_SCATTER_BINOMIAL, "binomial", scatter_binomial)
          .summary("subtrees' blocks down a binomial tree"),
      row(RELAY_SCATTER_MPI, "mpi", nullptr).summary("the MPI library's MPI_Scatter (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& alltoall_algorithms() {
  const RowsOf row{Collective::alltoall};
  static const std::vector<Algorithm> r = {
      row(RELAY_ALLTOALL_LINEAR, "linear", alltoall_linear)
          .summary("pairwise exchange in P-1 steps"),
      row(RELAY_ALLTOALL_BRUCK, "bruck", alltoall_bruck)
          .summary("Bruck's ceil(log2 P) rounds of about half the blocks, any P (small blocks)"),
      row(RELAY_ALLTOALL_MPI, "mpi", nullptr).summary("the MPI library's MPI_Alltoall (baseline)"),
  };
  return r;
}

const std::vector<Algorithm>& barrier_algorithms() {
  const RowsOf row{Collective::barrier};
  static const std::vector<Algorithm> r = {
      row(RELAY_BARRIER_DISSEMINATION, "dissemination", barrier_dissemination)
          .summary("ceil(log2 P) rounds of one byte to rank + 2^k, any P"),
      row(RELAY_BARRIER_BINOMIAL, "binomial", allreduce_reduce_bcast)
          .summary("binomial gather to rank 0 + binomial broadcast (allreduce reduce_bcast of "
                   "one byte)"),
      row(RELAY_BARRIER_MPI, "mpi", nullptr).summary("the MPI library's MPI_Barrier (baseline)"),
  };
  return r;
}

// Without a tuning table rule, `auto` follows the closed forms of Thakur, Rabenseifner and
// Gropp (2005): latency-bound algorithms below 64 KiB (or on at most 2 ranks), bandwidth-bound
// ones above; a non-commutative op gets an algorithm that keeps rank order.
namespace {
constexpr std::int64_t kSmallBytes = 64 * 1024;
bool small(const Call& call) { return call.bytes < kSmallBytes || call.size <= 2; }
ClosedFormChoice pick(const Call& call, int id) { return {find_algorithm(call.collective, id)}; }
}  // namespace

ClosedFormChoice reduce_closed_form(const Call& call) {
  if (small(call)) return pick(call, RELAY_REDUCE_BINOMIAL);
  return pick(call, call.commutative ? RELAY_REDUCE_RABENSEIFNER : RELAY_REDUCE_PIPELINE);
}
ClosedFormChoice allreduce_closed_form(const Call& call) {
  if (small(call)) return pick(call, RELAY_ALLREDUCE_RECURSIVE_DOUBLING);
  return pick(call, call.commutative ? RELAY_ALLREDUCE_RABENSEIFNER : RELAY_ALLREDUCE_REDUCE_BCAST);
}
ClosedFormChoice allgather_closed_form(const Call& call) {
  return pick(call, small(call) ? RELAY_ALLGATHER_BRUCK : RELAY_ALLGATHER_RING);
}
ClosedFormChoice reduce_scatter_block_closed_form(const Call& call) {
  if (!call.commutative) return pick(call, RELAY_REDUCE_SCATTER_MPI);
  return pick(call,
              small(call) ? RELAY_REDUCE_SCATTER_RECURSIVE_HALVING : RELAY_REDUCE_SCATTER_RING);
}
// Gather and scatter are binomial at every size.
ClosedFormChoice gather_closed_form(const Call& call) { return pick(call, RELAY_GATHER_BINOMIAL); }
ClosedFormChoice scatter_closed_form(const Call& call) {
  return pick(call, RELAY_SCATTER_BINOMIAL);
}
// MPICH's rule: Bruck for blocks of at most 256 bytes, P >= 8.
ClosedFormChoice alltoall_closed_form(const Call& call) {
  return pick(call, call.size >= 8 && call.bytes / call.size <= 256 ? RELAY_ALLTOALL_BRUCK
                                                                    : RELAY_ALLTOALL_LINEAR);
}
ClosedFormChoice barrier_closed_form(const Call& call) {
  return pick(call, RELAY_BARRIER_DISSEMINATION);
}
// allgatherv: gather_bcast for a total under 64 KiB on more than 4 ranks (2 ceil(log2 P)
// latencies instead of the ring's P - 1), else the segmented ring.
ClosedFormChoice allgatherv_closed_form(const Call& call) {
  return pick(call, call.bytes < kSmallBytes && call.size > 4 ? RELAY_ALLGATHERV_GATHER_BCAST
                                                              : RELAY_ALLGATHERV_RING);
}

}  // namespace relay::coll
