// Tree reductions: the segmented engine behind reduce linear, chain, pipeline, binary and
// binomial, and the trees inside allreduce reduce_bcast and allgather gather_bcast.
//
// Tree reduce, for each segment j: receive segment j from every child (in ascending virtual
// rank: the smallest binomial subtree, which finishes first, first) and combine it into the
// accumulator, then send segment j to the parent. With the nonblocking policy segment j+1
// arrives while segment j is combined and forwarded: the pipelined reduce of the papers.
// Cost (alpha-beta-gamma, S bytes in n segments, depth d, k children):
//   (d + n - 1) (k (alpha + beta S/n) + k gamma S/n).
// Combine order: at each node, acc = x_node, then each child's partial result in ascending
// virtual rank. A commutative op combines received (op) acc. A non-commutative op is reduced
// over the tree rooted at rank 0 (virtual = real ranks) with acc = acc (op) child, which is
// rank order for linear, chain and binomial (their subtrees are contiguous rank ranges,
// combined left to right); rank 0 then sends the result to the root.
#include <algorithm>

#include "coll/reduction/reduction.hpp"
#include "topology/tree.hpp"

namespace relay::coll {
namespace {

using schedule::ProgramBuilder;
using topology::by_virtual_rank;
using topology::TreeKind;

// Reduces buffer[0, bytes) to `root` over a tree of `kind`, segment by segment.
void tree_reduce(ProgramBuilder& b, TreeKind kind, int size, int root, int rank, int fanout,
                 std::int64_t bytes, std::int64_t segment) {
  const topology::TreeNode node = topology::tree_node(kind, size, root, rank, std::max(1, fanout));
  const std::vector<int> children = by_virtual_rank(node.children, root, size);
  const schedule::Segmentation segs(bytes, segment);
  for (std::int64_t j = 0; j < segs.count(); ++j) {
    for (int child : children) b.recv_combine(child, segs.offset(j), segs.length(j), false);
    if (node.parent >= 0) b.send(node.parent, segs.offset(j), segs.length(j));
  }
}

// Broadcasts buffer[0, bytes) from `root` down a tree of `kind`, segment by segment.
void tree_bcast(ProgramBuilder& b, TreeKind kind, int size, int root, int rank, std::int64_t bytes,
                std::int64_t segment) {
  const topology::TreeNode node = topology::tree_node(kind, size, root, rank);
  const schedule::Segmentation segs(bytes, segment);
  for (std::int64_t j = 0; j < segs.count(); ++j) {
    if (node.parent >= 0) b.recv(node.parent, segs.offset(j), segs.length(j));
    for (int child : node.children) b.send(child, segs.offset(j), segs.length(j));
  }
}

std::int64_t segment_of(const Shape& s) {
  return s.segment_bytes > 0 ? s.segment_bytes : schedule::kMaxMessageBytes;
}

ProgramBuilder builder(const Shape& s) {
  return ProgramBuilder(s.buffer_bytes(), s.elem_bytes, s.segment_bytes, s.commutative);
}

// A rooted reduce over a tree of `kind`; non-commutative ops go over the tree rooted at 0
// (rank order), then to the root.
schedule::RankProgram reduce_over(TreeKind kind, const Shape& s, int rank, int fanout) {
  ProgramBuilder b = builder(s);
  const std::int64_t bytes = s.buffer_bytes();
  if (s.size <= 1 || bytes <= 0) return b.finish();
  const int tree_root = s.commutative ? s.root : 0;
  tree_reduce(b, kind, s.size, tree_root, rank, fanout, bytes, segment_of(s));
  if (tree_root != s.root) {
    if (rank == tree_root) b.send(s.root, 0, bytes);
    if (rank == s.root) b.recv(tree_root, 0, bytes);
  }
  return b.finish();
}

}  // namespace

// linear: every rank sends its vector to the root, which combines them in rank order. Cost
// (P-1)(alpha + beta S + gamma S) at the root; a reference, and fine for tiny P.
schedule::RankProgram reduce_linear(const Shape& s, int rank) {
  return reduce_over(TreeKind::linear, s, rank, 1);
}
// chain: `fanout` chains into the root; segmented, each chain pipelines.
schedule::RankProgram reduce_chain(const Shape& s, int rank) {
  return reduce_over(TreeKind::chain, s, rank, s.fanout);
}
// pipeline: one segmented chain, cost (n + P - 2)(alpha + (beta + gamma) S/n): tends to
// (beta + gamma) S for large S -- the bandwidth-optimal tree reduce.
schedule::RankProgram reduce_pipeline(const Shape& s, int rank) {
  return reduce_over(TreeKind::chain, s, rank, 1);
}
// binary: complete binary tree, two receives per stage; commutative ops only.
schedule::RankProgram reduce_binary(const Shape& s, int rank) {
  return reduce_over(TreeKind::kary, s, rank, 2);
}
// binomial: the latency-optimal tree, ceil(log2 P)(alpha + beta S + gamma S).
schedule::RankProgram reduce_binomial(const Shape& s, int rank) {
  return reduce_over(TreeKind::binomial, s, rank, 1);
}

// reduce_bcast: binomial reduce to rank 0, then binomial broadcast, both segmented. Cost
// 2 ceil(log2 P)(alpha + beta S) + ceil(log2 P) gamma S; keeps rank order (tree rooted at 0).
schedule::RankProgram allreduce_reduce_bcast(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  const std::int64_t bytes = s.buffer_bytes();
  if (s.size <= 1 || bytes <= 0) return b.finish();
  tree_reduce(b, TreeKind::binomial, s.size, 0, rank, 1, bytes, segment_of(s));
  tree_bcast(b, TreeKind::binomial, s.size, 0, rank, bytes, segment_of(s));
  return b.finish();
}

// gather_bcast: binomial gather of the blocks to rank 0 (vrank v sends its subtree's
// contiguous blocks [v, v + subtree) to its parent), then a binomial broadcast of all P blocks.
// Cost ceil(log2 P) alpha + beta S (P-1)/P for the gather, ceil(log2 P)(alpha + beta S) for
// the broadcast (S = P blocks): for small blocks.
schedule::RankProgram allgather_gather_bcast(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  const std::int64_t block = s.bytes;
  if (s.size <= 1 || block <= 0) return b.finish();
  const topology::TreeNode node = topology::tree_node(TreeKind::binomial, s.size, 0, rank);
  for (int child : by_virtual_rank(node.children, 0, s.size)) {
    b.recv(child, child * block, topology::binomial_subtree_size(child, s.size) * block);
  }
  if (node.parent >= 0) {
    b.send(node.parent, rank * block, topology::binomial_subtree_size(rank, s.size) * block);
  }
  tree_bcast(b, TreeKind::binomial, s.size, 0, rank, s.buffer_bytes(), segment_of(s));
  return b.finish();
}

// allgatherv gather_bcast: the binomial tree rooted at rank 0 (vrank = rank; the subtree of v
// is the rank range [v, v + subtree(v))), moving each block as its own messages (blocks lie
// anywhere in the buffer, and may lie elsewhere on another rank: one message per block keeps
// the message boundaries a function of the counts alone). Gather: v receives its children's
// subtrees' blocks (children in ascending rank, blocks in ascending rank), then sends its own
// subtree's to its parent. Broadcast: for each block in ascending rank, v receives it from its
// parent unless it is in v's subtree, and sends it to each child whose subtree lacks it. Every
// rank thus receives each block once: S - (its subtree's bytes) from the parent in the
// broadcast. Empty blocks are no messages. Cost about ceil(log2 P) alpha_tree + beta S (P-1)/P
// for the gather and 2 beta S at an inner node of the broadcast, with up to P messages per
// edge: for small totals, where ring's P-1 steps of alpha dominate.
schedule::RankProgram allgatherv_gather_bcast(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.buffer_bytes() <= 0) return b.finish();
  const topology::TreeNode node = topology::tree_node(TreeKind::binomial, s.size, 0, rank);
  auto subtree_end = [&](int v) { return v + topology::binomial_subtree_size(v, s.size); };
  auto move = [&](int peer, int first, int last, bool send) {  // blocks [first, last)
    for (int i = first; i < last; ++i) {
      if (s.block_bytes(i) == 0) continue;
      if (send) {
        b.send(peer, s.block_offset(i), s.block_bytes(i));
      } else {
        b.recv(peer, s.block_offset(i), s.block_bytes(i));
      }
    }
  };
  for (int child : by_virtual_rank(node.children, 0, s.size)) {
    move(child, child, subtree_end(child), false);
  }
  if (node.parent >= 0) move(node.parent, rank, subtree_end(rank), true);
  for (int i = 0; i < s.size; ++i) {
    if (s.block_bytes(i) == 0) continue;
    if (node.parent >= 0 && (i < rank || i >= subtree_end(rank))) {
      move(node.parent, i, i + 1, false);
    }
    for (int child : node.children) {
      if (i < child || i >= subtree_end(child)) move(child, i, i + 1, true);
    }
  }
  return b.finish();
}

}  // namespace relay::coll
