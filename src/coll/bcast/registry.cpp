// The broadcast rows of the registry. Each entry: what the algorithm is, when it wins, its
// alpha-beta cost (P ranks, S bytes, n segments), and how it is built.

#include <algorithm>
#include <cmath>
#include <numeric>

#include "coll/bcast/bcast.hpp"

namespace relay::coll {
namespace {

using topology::TreeKind;

// linear: the root sends the whole message to each rank in turn. Wins for tiny P or as a
// reference; cost (P-1)(alpha + beta S). Segmented, the receivers overlap with later sends.
schedule::RankProgram bcast_linear(const Shape& s, int rank) {
  return build_bcast_tree(TreeKind::linear, s, rank);
}
// chain: `fanout` chains hanging off the root. Unsegmented it is a store-and-forward chain,
// cost (P-1)(alpha + beta S); segment it to pipeline (with fanout 1 that is `pipeline`).
schedule::RankProgram bcast_chain(const Shape& s, int rank) {
  return build_bcast_tree(TreeKind::chain, s, rank);
}
// binary: complete binary tree. Depth log2 P, two sends per stage; segmented, it pipelines
// with cost about 2 (log2 P + n - 1)(alpha + beta S/n).
schedule::RankProgram bcast_binary(const Shape& s, int rank) {
  Shape k = s;
  k.fanout = 2;
  return build_bcast_tree(TreeKind::kary, k, rank);
}
// binomial: the latency-optimal tree, cost ceil(log2 P)(alpha + beta S). Wins for small
// messages; for large ones every byte crosses log2 P links in sequence.
schedule::RankProgram bcast_binomial(const Shape& s, int rank) {
  return build_bcast_tree(TreeKind::binomial, s, rank);
}
// pipeline: one chain cut into n segments, cost (n + P - 2)(alpha + beta S/n) (tan2014 eq. 4),
// which tends to beta S for large S: the bandwidth-optimal broadcast of tan2014.
schedule::RankProgram bcast_pipeline(const Shape& s, int rank) {
  Shape k = s;
  k.fanout = 1;
  return build_bcast_tree(TreeKind::chain, k, rank);
}
// kary: complete k-ary tree (k = fanout): between binomial (latency) and chain (bandwidth).
schedule::RankProgram bcast_kary(const Shape& s, int rank) {
  return build_bcast_tree(TreeKind::kary, s, rank);
}

}  // namespace

const std::vector<Algorithm>& bcast_algorithms() {
  const RowsOf row{Collective::bcast};
  static const std::vector<Algorithm> registry = {
      row(RELAY_BCAST_LINEAR, "linear", bcast_linear)
          .summary("root sends to every rank (flat tree)"),
      row(RELAY_BCAST_CHAIN, "chain", bcast_chain)
          .summary("fanout chains from the root (store-and-forward unless segmented)")
          .fanout_tunable(1),
      row(RELAY_BCAST_BINARY, "binary", bcast_binary).summary("binary tree").fixed_fanout(2),
      row(RELAY_BCAST_BINOMIAL, "binomial", bcast_binomial)
          .summary("binomial tree (latency-optimal)"),
      row(RELAY_BCAST_PIPELINE, "pipeline", bcast_pipeline)
          .summary("segmented chain (bandwidth-optimal, tan2014)")
          .default_segment_bytes(64 * 1024),
      // scatter_allgather: its cost and when it wins head bcast_scatter_allgather.cpp.
      row(RELAY_BCAST_SCATTER_ALLGATHER, "scatter_allgather", build_bcast_scatter_allgather)
          .summary("binomial scatter + ring allgather (large messages)"),
      row(RELAY_BCAST_KARY, "kary", bcast_kary).summary("k-ary tree, k = fanout").fanout_tunable(4),
      row(RELAY_BCAST_MPI, "mpi", nullptr).summary("the MPI library's MPI_Bcast (baseline)"),
  };
  return registry;
}

// Without a tuning table rule, `auto` takes the algorithm whose closed form is cheapest on a
// built-in alpha-beta machine: binomial, ceil(log2 P)(alpha + beta S) (tan2014 eq. 2); pipeline
// with the segment count that minimises (n + P - 2)(alpha + beta S / n) (tan2014 eq. 4),
// n* = sqrt((P - 2) beta S / alpha); scatter_allgather, (log2 P + P - 1) alpha + 2 beta S
// (P - 1) / P. The constants describe an MPI shared-memory transport of this class of machine
// (about 5 us and 5 GB/s per message); docs/bcast.md shows the measurements. relay tune
// replaces them with measured ones in a table.
namespace {
constexpr double kAutoAlphaS = 5e-6;
constexpr double kAutoBetaSPerByte = 0.2e-9;
}  // namespace

ClosedFormChoice bcast_closed_form(const Call& call) {
  const int size = call.size;
  const std::int64_t total_bytes = call.bytes, elem_bytes = call.elem_bytes;
  const Algorithm* binomial = find_algorithm(Collective::bcast, RELAY_BCAST_BINOMIAL);
  if (size <= 2 || total_bytes <= 0) return {binomial, 0};
  const double a = kAutoAlphaS, bs = kAutoBetaSPerByte * static_cast<double>(total_bytes);
  const double p = size;
  const double t_binomial = topology::ceil_log2(size) * (a + bs);
  const double t_scatter = (topology::ceil_log2(size) + p - 1) * a + 2 * bs * (p - 1) / p;
  const std::int64_t elems = std::max<std::int64_t>(1, total_bytes / elem_bytes);
  const auto n = static_cast<std::int64_t>(
      std::clamp(std::round(std::sqrt((p - 2) * bs / a)), 1.0, static_cast<double>(elems)));
  // Whole elements per segment, and whole pages once that large (copies like alignment), so
  // the segment count may come out a little below n.
  std::int64_t segment = (elems + n - 1) / n * elem_bytes;
  const std::int64_t quantum = std::lcm<std::int64_t>(4096, elem_bytes);
  if (segment > quantum) segment = (segment + quantum - 1) / quantum * quantum;
  const double pieces = std::ceil(static_cast<double>(total_bytes) / static_cast<double>(segment));
  const double t_pipeline = (pieces + p - 2) * (a + bs / pieces);
  if (t_pipeline < t_binomial && t_pipeline <= t_scatter) {
    return {find_algorithm(Collective::bcast, RELAY_BCAST_PIPELINE), segment};
  }
  if (t_scatter < t_binomial) {
    return {find_algorithm(Collective::bcast, RELAY_BCAST_SCATTER_ALLGATHER), 0};
  }
  return {binomial, 0};
}

}  // namespace relay::coll
