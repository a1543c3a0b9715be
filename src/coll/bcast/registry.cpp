// The broadcast registry. Each entry: what the algorithm is, when it wins, its alpha-beta cost
// (P ranks, S bytes, n segments), and how it is built.

#include "coll/bcast/bcast.hpp"

namespace relay::coll {
namespace {

using topology::TreeKind;

// linear: the root sends the whole message to each rank in turn. Wins for tiny P or as a
// reference; cost (P-1)(alpha + beta S). Segmented, the receivers overlap with later sends.
schedule::RankProgram bcast_linear(const BcastShape& s, int rank) {
  return build_bcast_tree(TreeKind::linear, s, rank);
}
// chain: `fanout` chains hanging off the root. Unsegmented it is a store-and-forward chain,
// cost (P-1)(alpha + beta S); segment it to pipeline (with fanout 1 that is `pipeline`).
schedule::RankProgram bcast_chain(const BcastShape& s, int rank) {
  return build_bcast_tree(TreeKind::chain, s, rank);
}
// binary: complete binary tree. Depth log2 P, two sends per stage; segmented, it pipelines
// with cost about 2 (log2 P + n - 1)(alpha + beta S/n).
schedule::RankProgram bcast_binary(const BcastShape& s, int rank) {
  BcastShape k = s;
  k.fanout = 2;
  return build_bcast_tree(TreeKind::kary, k, rank);
}
// binomial: the latency-optimal tree, cost ceil(log2 P)(alpha + beta S). Wins for small
// messages; for large ones every byte crosses log2 P links in sequence.
schedule::RankProgram bcast_binomial(const BcastShape& s, int rank) {
  return build_bcast_tree(TreeKind::binomial, s, rank);
}
// pipeline: one chain cut into n segments, cost (n + P - 2)(alpha + beta S/n) (tan2014 eq. 4),
// which tends to beta S for large S: the bandwidth-optimal broadcast of tan2014.
schedule::RankProgram bcast_pipeline(const BcastShape& s, int rank) {
  BcastShape k = s;
  k.fanout = 1;
  return build_bcast_tree(TreeKind::chain, k, rank);
}
// kary: complete k-ary tree (k = fanout): between binomial (latency) and chain (bandwidth).
schedule::RankProgram bcast_kary(const BcastShape& s, int rank) {
  return build_bcast_tree(TreeKind::kary, s, rank);
}

}  // namespace

const std::vector<BcastAlgorithm>& bcast_algorithms() {
  static const std::vector<BcastAlgorithm> registry = {
      {RELAY_BCAST_LINEAR, "linear", "root sends to every rank (flat tree)", bcast_linear, 0,
       false, 1},
      {RELAY_BCAST_CHAIN, "chain", "fanout chains from the root (store-and-forward unless "
       "segmented)", bcast_chain, 0, true, 1},
      {RELAY_BCAST_BINARY, "binary", "binary tree", bcast_binary, 0, false, 2},
      {RELAY_BCAST_BINOMIAL, "binomial", "binomial tree (latency-optimal)", bcast_binomial, 0,
       false, 1},
      {RELAY_BCAST_PIPELINE, "pipeline", "segmented chain (bandwidth-optimal, tan2014)",
       bcast_pipeline, 64 * 1024, false, 1},
      {RELAY_BCAST_SCATTER_ALLGATHER, "scatter_allgather",
       "binomial scatter + ring allgather (large messages)", build_bcast_scatter_allgather, 0,
       false, 1},
      {RELAY_BCAST_KARY, "kary", "k-ary tree, k = fanout", bcast_kary, 0, true, 4},
      {RELAY_BCAST_MPI, "mpi", "the MPI library's MPI_Bcast (baseline)", nullptr, 0, false, 1},
  };
  return registry;
}

const BcastAlgorithm* find_bcast_algorithm(relay_bcast_algorithm_t id) {
  for (const auto& a : bcast_algorithms()) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

const BcastAlgorithm* find_bcast_algorithm(std::string_view name) {
  for (const auto& a : bcast_algorithms()) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

schedule::Schedule build_bcast_schedule(const BcastAlgorithm& algorithm,
                                        const BcastShape& shape) {
  schedule::Schedule s;
  s.ranks.reserve(shape.size);
  for (int r = 0; r < shape.size; ++r) s.ranks.push_back(algorithm.build(shape, r));
  return s;
}

}  // namespace relay::coll
