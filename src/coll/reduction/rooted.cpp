// Gather, scatter, alltoall and barrier schedules.
//
// Gather and scatter address size blocks in rank order. A binomial subtree is a contiguous range
// of virtual ranks, which wraps around the end of the buffer when the root is not 0: it moves
// as at most two messages (both ends cut it the same way). Gather and scatter are mirror
// images: the same transfers, received instead of sent and in the opposite order.
#include <algorithm>

#include "coll/reduction/reduction.hpp"
#include "topology/tree.hpp"

namespace relay::coll {
namespace {

using schedule::ProgramBuilder;
using topology::TreeKind;

ProgramBuilder builder(const Shape& s) {
  return ProgramBuilder(s.buffer_bytes(), s.elem_bytes, s.segment_bytes, s.commutative);
}

// Moves the blocks of virtual ranks [v, v + n) (rooted at s.root) to or from `peer`: received
// (gather towards the root, scatter away from it) or sent.
void move_blocks(ProgramBuilder& b, const Shape& s, bool receive, int peer, int v, int n) {
  const std::int64_t block = s.bytes;
  const int first = topology::real_rank(v, s.root, s.size);
  const int head = std::min(n, s.size - first);  // up to the end of the buffer, then from 0
  const std::int64_t offset[2] = {first * block, 0};
  const std::int64_t length[2] = {head * block, (n - head) * block};
  for (int i = 0; i < 2; ++i) {
    if (receive) {
      b.recv(peer, offset[i], length[i]);
    } else {
      b.send(peer, offset[i], length[i]);
    }
  }
}

// Linear: the root exchanges each rank's block with it, in virtual rank order.
schedule::RankProgram rooted_linear(const Shape& s, int rank, bool gather) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.bytes <= 0) return b.finish();
  const int v = topology::virtual_rank(rank, s.root, s.size);
  if (v != 0) {
    move_blocks(b, s, !gather, s.root, v, 1);
    return b.finish();
  }
  for (int w = 1; w < s.size; ++w) {
    move_blocks(b, s, gather, topology::real_rank(w, s.root, s.size), w, 1);
  }
  return b.finish();
}

// Binomial: each vrank v holds (gather: collects, scatter: is handed) the blocks of its subtree
// [v, v + subtree); gather receives its children's subtrees, smallest (first done) first, then
// sends its own up; scatter receives its own, then hands the children theirs, largest first.
schedule::RankProgram rooted_binomial(const Shape& s, int rank, bool gather) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.bytes <= 0) return b.finish();
  const topology::TreeNode node = topology::tree_node(TreeKind::binomial, s.size, s.root, rank);
  const int v = topology::virtual_rank(rank, s.root, s.size);
  auto with_parent = [&] {
    if (node.parent >= 0) {
      move_blocks(b, s, !gather, node.parent, v, topology::binomial_subtree_size(v, s.size));
    }
  };
  if (!gather) with_parent();
  const std::vector<int> children =
      gather ? topology::by_virtual_rank(node.children, s.root, s.size) : node.children;
  for (int child : children) {
    const int c = topology::virtual_rank(child, s.root, s.size);
    move_blocks(b, s, gather, child, c, topology::binomial_subtree_size(c, s.size));
  }
  if (gather) with_parent();
  return b.finish();
}

// Positions in [1, n) with bit k set.
std::int64_t with_bit(int k, std::int64_t n) {
  const std::int64_t d = std::int64_t{1} << k;
  return (n >> (k + 1)) * d + std::max<std::int64_t>(0, (n & (2 * d - 1)) - d);
}

}  // namespace

BruckAlltoallLayout::BruckAlltoallLayout(int size_, std::int64_t block_bytes)
    : size(size_), block(block_bytes), rounds_(topology::ceil_log2(size_)) {
  area_.push_back(size * block);
  for (int k = 0; k < rounds_; ++k) area_.push_back(area_.back() + count(k) * block);
}

std::int64_t BruckAlltoallLayout::count(int k) const { return with_bit(k, size); }

std::int64_t BruckAlltoallLayout::at(int k, int position) const {
  return area(k) + with_bit(k, position) * block;
}

int BruckAlltoallLayout::round_from(int k, int position) {
  for (; (position >> k) != 0; ++k) {
    if ((position >> k) & 1) return k;
  }
  return -1;
}

// gather linear: every rank sends its block to the root, which receives them in virtual rank
// order. Cost (P-1)(alpha + beta S/P) at the root.
schedule::RankProgram gather_linear(const Shape& s, int rank) {
  return rooted_linear(s, rank, true);
}

// gather binomial: ceil(log2 P) alpha + beta S (P-1)/P at the root; vrank v holds up to its
// subtree's blocks (the API gives every rank a buffer of P blocks).
schedule::RankProgram gather_binomial(const Shape& s, int rank) {
  return rooted_binomial(s, rank, true);
}

// scatter linear: the root sends each rank its block, in virtual rank order. Cost
// (P-1)(alpha + beta S/P) at the root.
schedule::RankProgram scatter_linear(const Shape& s, int rank) {
  return rooted_linear(s, rank, false);
}

// scatter binomial: ceil(log2 P) alpha + beta S (P-1)/P from the root.
schedule::RankProgram scatter_binomial(const Shape& s, int rank) {
  return rooted_binomial(s, rank, false);
}

// alltoall linear (pairwise exchange): in step k = 1..P-1 rank r sends block r+k to rank r+k
// and receives block r from rank r-k, straight into its place in recvbuf (the scratch), so
// every step pairs each rank with a different partner and no receiver is flooded. Cost
// (P-1)(alpha + beta S/P), S = P blocks.
schedule::RankProgram alltoall_linear(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  const std::int64_t block = s.bytes;
  if (s.size <= 1 || block <= 0) return b.finish();
  for (int k = 1; k < s.size; ++k) {
    const int to = (rank + k) % s.size, from = (rank - k + s.size) % s.size;
    b.exchange(to, to * block, block, from, rank * block, block, ProgramBuilder::Into::scratch,
               true, from * block);
  }
  return b.finish();
}

// alltoall bruck (Bruck, Ho, Kipnis, Upfal and Weathersby 1997): the block for rank r + i
// travels i ranks forward, 2^k in round k for every bit k of i. Round k sends, as one message
// to rank + 2^k, area(k) of the work buffer (BruckAlltoallLayout): every block whose distance
// has bit k set, about half of them. The message from rank - 2^k lands in a scratch slot and is
// unpacked by copies (combines with MPI_REPLACE): each block into the area of the next round
// that moves it, or, after its last round, into the final blocks in recvbuf's order. Cost
// ceil(log2 P)(alpha + beta S/2) + the copies, S = P blocks: fewer messages than pairwise
// exchange, more bytes; for small blocks. Work buffer: P + about ceil(log2 P) P/2 blocks.
schedule::RankProgram alltoall_bruck(const Shape& s, int rank) {
  const BruckAlltoallLayout layout(s.size, s.bytes);
  ProgramBuilder b(layout.bytes(), s.elem_bytes, s.segment_bytes, true);
  if (s.size <= 1 || layout.block <= 0) return b.finish();
  for (int k = 0; k < layout.rounds(); ++k) {
    const int d = 1 << k;
    std::vector<ProgramBuilder::Piece> pieces;
    for (int i = d; i < s.size; ++i) {
      if ((i & d) == 0) continue;
      const int next = BruckAlltoallLayout::round_from(k + 1, i);
      const std::int64_t from = layout.at(k, i) - layout.area(k);
      const std::int64_t to =
          next >= 0 ? layout.at(next, i) : (rank - i + s.size) % s.size * layout.block;
      if (!pieces.empty() && pieces.back().from + pieces.back().bytes == from &&
          pieces.back().to + pieces.back().bytes == to) {
        pieces.back().bytes += layout.block;
      } else {
        pieces.push_back({from, to, layout.block});
      }
    }
    b.exchange_unpack((rank + d) % s.size, layout.area(k), (rank - d + s.size) % s.size,
                      layout.area(k), layout.count(k) * layout.block, pieces);
  }
  return b.finish();
}

// barrier dissemination (Hensgen, Finkel and Manber 1988): in round d = 1, 2, 4, ... < P rank r
// signals r + d and hears from r - d; ceil(log2 P) rounds of one byte, any P. As a schedule it
// is an OR-allreduce of one byte of "who has entered" (ranks are heard from more than once when
// P is not a power of two, which OR absorbs): after the rounds every rank has heard,
// transitively, from every rank's entry. Cost ceil(log2 P) alpha.
schedule::RankProgram barrier_dissemination(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1) return b.finish();
  for (int d = 1; d < s.size; d *= 2) {
    b.exchange((rank + d) % s.size, 0, 1, (rank - d + s.size) % s.size, 0, 1,
               ProgramBuilder::Into::combine);
  }
  return b.finish();
}

}  // namespace relay::coll
