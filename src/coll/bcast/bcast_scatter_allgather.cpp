// scatter_allgather: binomial scatter of P blocks, then a ring allgather (van de Geijn).
//
// When it wins: large messages on many ranks. Every rank sends and receives about 2 S (P-1)/P
// bytes instead of S log2 P, so for S >> P alpha / beta it beats every tree but the pipeline.
// Cost: alpha (log2 P + P - 1) + 2 beta S (P-1)/P.
//
// Blocks: ceil(count / P) elements each (the last ones may be short or empty). After the
// scatter, vrank v holds blocks [v, v + subtree(v)) of the binomial tree. In ring step s, v
// sends block (v - s) mod P to v+1 and receives block (v - s - 1) mod P from v-1 -- but only
// blocks the receiver does not hold yet, which both sides know; so no byte is received twice
// and no receive ever targets memory another send of ours is reading. Each transfer is cut
// into segments; a segment is forwarded as soon as the receive that delivered it completes.
#include <algorithm>
#include <utility>

#include "coll/bcast/bcast.hpp"

namespace relay::coll {
namespace {

struct Blocks {
  std::int64_t block_bytes;
  std::int64_t total;
  std::int64_t begin(int b) const { return std::min(total, b * block_bytes); }
  std::int64_t end(int b) const { return std::min(total, (b + 1) * block_bytes); }
};

// Where each received byte range of a block arrived: (end offset, receive index), ascending.
using Arrivals = std::vector<std::vector<std::pair<std::int64_t, std::int32_t>>>;

// Receive prefix a rank needs before it may send [x, y), which lies within one block or,
// during the scatter, within a range whose receives arrived in ascending order.
std::int32_t needs_for(const Arrivals& arrivals, const Blocks& blocks, int nblocks,
                       std::int64_t y) {
  const int b = std::min(nblocks - 1, static_cast<int>((y - 1) / blocks.block_bytes));
  const auto& list = arrivals[b];
  for (const auto& [end, index] : list) {
    if (end > y - 1) return index + 1;
  }
  return 0;  // the root: everything is present from the start
}

void add_recvs(schedule::RankProgram& program, Arrivals& arrivals, const Blocks& blocks, int peer,
               std::int64_t x, std::int64_t y, std::int64_t segment) {
  for (std::int64_t a = x; a < y; a += segment) {
    const std::int64_t b = std::min(y, a + segment);
    const std::int32_t index = program.recv_count();
    program.add_recv(peer, a, b - a);
    for (auto blk = a / blocks.block_bytes; blk * blocks.block_bytes < b; ++blk) {
      arrivals[blk].emplace_back(std::min(b, blocks.end(static_cast<int>(blk))), index);
    }
  }
}

void add_sends(schedule::RankProgram& program, const Arrivals& arrivals, const Blocks& blocks,
               int nblocks, int peer, std::int64_t x, std::int64_t y, std::int64_t segment) {
  for (std::int64_t a = x; a < y; a += segment) {
    const std::int64_t b = std::min(y, a + segment);
    program.add_send(peer, a, b - a, needs_for(arrivals, blocks, nblocks, b));
  }
}

}  // namespace

schedule::RankProgram build_bcast_scatter_allgather(const Shape& shape, int rank) {
  schedule::RankProgram program;
  const int P = shape.size;
  if (P <= 1 || shape.bytes <= 0) return program;
  const std::int64_t count = shape.bytes / shape.elem_bytes;
  const Blocks blocks{((count + P - 1) / P) * shape.elem_bytes, shape.bytes};
  const std::int64_t segment = effective_segment_bytes(shape);
  const int v = topology::virtual_rank(rank, shape.root, P);
  auto real = [&](int vr) { return topology::real_rank(vr, shape.root, P); };
  auto holds = [&](int vr, int blk) {  // after the scatter
    return blk >= vr && blk < vr + topology::binomial_subtree_size(vr, P);
  };
  Arrivals arrivals(P);

  // Binomial scatter: receive my subtree's blocks, then hand each child its subtree's blocks.
  const topology::TreeNode node =
      topology::tree_node(topology::TreeKind::binomial, P, shape.root, rank);
  const int mine = topology::binomial_subtree_size(v, P);
  if (node.parent >= 0) {
    add_recvs(program, arrivals, blocks, node.parent, blocks.begin(v), blocks.end(v + mine - 1),
              segment);
  }
  for (int child : node.children) {
    const int c = topology::virtual_rank(child, shape.root, P);
    const int sub = topology::binomial_subtree_size(c, P);
    add_sends(program, arrivals, blocks, P, child, blocks.begin(c), blocks.end(c + sub - 1),
              segment);
  }

  // Ring allgather over vranks; sends before receives in each step, so that the blocking
  // policy (one operation at a time, next receive pre-posted) cannot deadlock.
  const int right = (v + 1) % P;
  const int left = (v - 1 + P) % P;
  for (int s = 0; s < P - 1; ++s) {
    const int out = ((v - s) % P + P) % P;
    const int in = ((v - s - 1) % P + P) % P;
    if (!holds(right, out) && blocks.end(out) > blocks.begin(out)) {
      add_sends(program, arrivals, blocks, P, real(right), blocks.begin(out), blocks.end(out),
                segment);
    }
    if (!holds(v, in) && blocks.end(in) > blocks.begin(in)) {
      add_recvs(program, arrivals, blocks, real(left), blocks.begin(in), blocks.end(in), segment);
    }
  }
  return program;
}

}  // namespace relay::coll
