// The registries of reduce, allreduce, allgather, allgatherv, reduce_scatter_block, gather,
// scatter, alltoall and barrier. Each entry: name, what it is, builder, default segment,
// restrictions.
// Costs and combine orders are in the builders' headers (reduction_tree.cpp,
// reduction_halving.cpp, reduction_ring.cpp, rooted.cpp).
#include <algorithm>

#include "coll/reduction/reduction.hpp"

namespace relay::coll {

std::string_view to_string(Collective c) {
  switch (c) {
    case Collective::reduce: return "reduce";
    case Collective::allreduce: return "allreduce";
    case Collective::allgather: return "allgather";
    case Collective::reduce_scatter_block: return "reduce_scatter_block";
    case Collective::gather: return "gather";
    case Collective::scatter: return "scatter";
    case Collective::alltoall: return "alltoall";
    case Collective::barrier: return "barrier";
    case Collective::allgatherv: return "allgatherv";
  }
  return "unknown";
}

std::string_view env_prefix(Collective c) {
  switch (c) {
    case Collective::reduce: return "REDUCE";
    case Collective::allreduce: return "ALLREDUCE";
    case Collective::allgather: return "ALLGATHER";
    case Collective::reduce_scatter_block: return "REDUCE_SCATTER_BLOCK";
    case Collective::gather: return "GATHER";
    case Collective::scatter: return "SCATTER";
    case Collective::alltoall: return "ALLTOALL";
    case Collective::barrier: return "BARRIER";
    case Collective::allgatherv: return "ALLGATHERV";
  }
  return "UNKNOWN";
}

std::int64_t CollShape::buffer_bytes() const {
  if (block_counts.empty()) return (blocks ? size : 1) * count * elem_bytes;
  std::int64_t end = 0;
  for (int i = 0; i < size; ++i) {
    if (block_bytes(i) > 0) end = std::max(end, block_offset(i) + block_bytes(i));
  }
  return end;
}

namespace {

constexpr std::int64_t kPipelineSegment = 64 * 1024;

const std::vector<CollAlgorithm>& reduce_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::reduce, RELAY_REDUCE_LINEAR, "linear", "root receives and combines every vector",
       reduce_linear, 0, true, false, 0, false},
      {C::reduce, RELAY_REDUCE_CHAIN, "chain", "fanout chains into the root (segment to "
       "pipeline)", reduce_chain, 0, true, false, 0, true},
      {C::reduce, RELAY_REDUCE_PIPELINE, "pipeline", "one segmented chain (bandwidth-optimal "
       "tree)", reduce_pipeline, kPipelineSegment, true, false, 0, false},
      {C::reduce, RELAY_REDUCE_BINARY, "binary", "binary tree (commutative ops)", reduce_binary,
       0, false, false, 0, false},
      {C::reduce, RELAY_REDUCE_BINOMIAL, "binomial", "binomial tree (latency-optimal)",
       reduce_binomial, 0, true, false, 0, false},
      {C::reduce, RELAY_REDUCE_RABENSEIFNER, "rabenseifner", "recursive halving + binomial "
       "gather (large vectors, commutative ops)", reduce_rabenseifner, 0, false, false, 0, false},
      {C::reduce, RELAY_REDUCE_MPI, "mpi", "the MPI library's MPI_Reduce (baseline)", nullptr, 0,
       true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& allreduce_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::allreduce, RELAY_ALLREDUCE_REDUCE_BCAST, "reduce_bcast", "binomial reduce to rank 0 + "
       "binomial broadcast", allreduce_reduce_bcast, 0, true, false, 0, false},
      {C::allreduce, RELAY_ALLREDUCE_RECURSIVE_DOUBLING, "recursive_doubling", "whole-vector "
       "exchanges with rank ^ 2^k (small vectors)", allreduce_recursive_doubling, 0, true, false,
       0, false},
      {C::allreduce, RELAY_ALLREDUCE_RING, "ring", "ring reduce-scatter + ring allgather (large "
       "vectors, commutative ops)", allreduce_ring, 0, false, false, 0, false},
      {C::allreduce, RELAY_ALLREDUCE_RABENSEIFNER, "rabenseifner", "recursive halving + "
       "recursive doubling (large vectors, commutative ops)", allreduce_rabenseifner, 0, false,
       false, 0, false},
      {C::allreduce, RELAY_ALLREDUCE_MPI, "mpi", "the MPI library's MPI_Allreduce (baseline)",
       nullptr, 0, true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& allgather_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::allgather, RELAY_ALLGATHER_RING, "ring", "ring (large blocks)", allgather_ring, 0, true,
       false, 0, false},
      {C::allgather, RELAY_ALLGATHER_RECURSIVE_DOUBLING, "recursive_doubling", "pairwise "
       "exchanges of doubling ranges (P a power of two, else bruck)",
       allgather_recursive_doubling, 0, true, true, RELAY_ALLGATHER_BRUCK, false},
      {C::allgather, RELAY_ALLGATHER_BRUCK, "bruck", "Bruck's log-round allgather, any P (small "
       "blocks)", allgather_bruck, 0, true, false, 0, false},
      {C::allgather, RELAY_ALLGATHER_GATHER_BCAST, "gather_bcast", "binomial gather to rank 0 + "
       "binomial broadcast", allgather_gather_bcast, 0, true, false, 0, false},
      {C::allgather, RELAY_ALLGATHER_MPI, "mpi", "the MPI library's MPI_Allgather (baseline)",
       nullptr, 0, true, false, 0, false},
  };
  return r;
}

// allgatherv's ring is allgather's (its blocks are the shape's), segmented by default: a block
// much larger than the others then travels the ring a segment at a time instead of being stored
// and forwarded whole at every step.
const std::vector<CollAlgorithm>& allgatherv_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::allgatherv, RELAY_ALLGATHERV_RING, "ring", "ring forwarding blocks of any sizes "
       "(large totals)", allgather_ring, kPipelineSegment, true, false, 0, false},
      {C::allgatherv, RELAY_ALLGATHERV_GATHER_BCAST, "gather_bcast", "binomial gather of the "
       "blocks to rank 0 + binomial broadcast of the others' blocks (small totals)",
       allgatherv_gather_bcast, 0, true, false, 0, false},
      {C::allgatherv, RELAY_ALLGATHERV_MPI, "mpi", "the MPI library's MPI_Allgatherv (baseline)",
       nullptr, 0, true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& reduce_scatter_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::reduce_scatter_block, RELAY_REDUCE_SCATTER_RING, "ring", "ring reduce-scatter (large "
       "blocks, commutative ops)", reduce_scatter_ring, 0, false, false, 0, false},
      {C::reduce_scatter_block, RELAY_REDUCE_SCATTER_RECURSIVE_HALVING, "recursive_halving",
       "recursive halving, any P (commutative ops)", reduce_scatter_recursive_halving, 0, false,
       false, 0, false},
      {C::reduce_scatter_block, RELAY_REDUCE_SCATTER_MPI, "mpi", "the MPI library's "
       "MPI_Reduce_scatter_block (baseline)", nullptr, 0, true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& gather_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::gather, RELAY_GATHER_LINEAR, "linear", "every rank sends its block to the root",
       gather_linear, 0, true, false, 0, false},
      {C::gather, RELAY_GATHER_BINOMIAL, "binomial", "subtrees' blocks up a binomial tree",
       gather_binomial, 0, true, false, 0, false},
      {C::gather, RELAY_GATHER_MPI, "mpi", "the MPI library's MPI_Gather (baseline)", nullptr, 0,
       true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& scatter_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::scatter, RELAY_SCATTER_LINEAR, "linear", "the root sends every rank its block",
       scatter_linear, 0, true, false, 0, false},
      {C::scatter, RELAY_SCATTER_BINOMIAL, "binomial", "subtrees' blocks down a binomial tree",
       scatter_binomial, 0, true, false, 0, false},
      {C::scatter, RELAY_SCATTER_MPI, "mpi", "the MPI library's MPI_Scatter (baseline)", nullptr,
       0, true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& alltoall_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::alltoall, RELAY_ALLTOALL_LINEAR, "linear", "pairwise exchange in P-1 steps",
       alltoall_linear, 0, true, false, 0, false},
      {C::alltoall, RELAY_ALLTOALL_BRUCK, "bruck", "Bruck's ceil(log2 P) rounds of about half "
       "the blocks, any P (small blocks)", alltoall_bruck, 0, true, false, 0, false},
      {C::alltoall, RELAY_ALLTOALL_MPI, "mpi", "the MPI library's MPI_Alltoall (baseline)",
       nullptr, 0, true, false, 0, false},
  };
  return r;
}

const std::vector<CollAlgorithm>& barrier_registry() {
  using C = Collective;
  static const std::vector<CollAlgorithm> r = {
      {C::barrier, RELAY_BARRIER_DISSEMINATION, "dissemination", "ceil(log2 P) rounds of one "
       "byte to rank + 2^k, any P", barrier_dissemination, 0, true, false, 0, false},
      {C::barrier, RELAY_BARRIER_BINOMIAL, "binomial", "binomial gather to rank 0 + binomial "
       "broadcast (allreduce reduce_bcast of one byte)", allreduce_reduce_bcast, 0, true, false,
       0, false},
      {C::barrier, RELAY_BARRIER_MPI, "mpi", "the MPI library's MPI_Barrier (baseline)", nullptr,
       0, true, false, 0, false},
  };
  return r;
}

}  // namespace

const std::vector<CollAlgorithm>& coll_algorithms(Collective c) {
  switch (c) {
    case Collective::reduce: return reduce_registry();
    case Collective::allreduce: return allreduce_registry();
    case Collective::allgather: return allgather_registry();
    case Collective::reduce_scatter_block: return reduce_scatter_registry();
    case Collective::gather: return gather_registry();
    case Collective::scatter: return scatter_registry();
    case Collective::alltoall: return alltoall_registry();
    case Collective::barrier: return barrier_registry();
    case Collective::allgatherv: return allgatherv_registry();
  }
  return reduce_registry();
}

const CollAlgorithm* find_coll_algorithm(Collective c, int id) {
  for (const auto& a : coll_algorithms(c)) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

const CollAlgorithm* find_coll_algorithm(Collective c, std::string_view name) {
  for (const auto& a : coll_algorithms(c)) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

schedule::Schedule build_coll_schedule(const CollAlgorithm& algorithm, const CollShape& shape) {
  schedule::Schedule s;
  s.ranks.reserve(static_cast<std::size_t>(shape.size));
  for (int r = 0; r < shape.size; ++r) s.ranks.push_back(algorithm.build(shape, r));
  return s;
}

}  // namespace relay::coll
