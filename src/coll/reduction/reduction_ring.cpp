// Rings and Bruck: the bandwidth-optimal reduce-scatter and allgather, and Bruck's
// latency-optimal allgather for any P.
//
// ring reduce-scatter (P blocks, one per rank): in step s = 0..P-2 rank v sends block
// (v - s - 1) mod P to v + 1 and receives block (v - s - 2) mod P from v - 1, combining it
// (received (op) accumulated); after P - 1 steps v holds block v reduced over every rank.
// Block b is thus combined in the ring order b+1, b+2, ..., b (mod P): deterministic, but not
// rank order, so commutative ops only. Cost (P-1)(alpha + (beta + gamma) S/P).
// ring allgather: in step s rank v sends block (v - s) mod P to v + 1 and receives block
// (v - s - 1) mod P from v - 1. Cost (P-1)(alpha + beta S/P). allgatherv runs the same ring over
// blocks of any sizes and places (an empty block is no message): step s then takes as long as
// its largest block, (P-1) alpha + sum_s max_v beta |block (v - s)|, which is (P-1)(alpha + beta
// L) when one block of L bytes dominates; segmented (allgatherv's default), that block is
// forwarded a segment at a time, tending to beta L + (P-1)(alpha + beta segment).
// Segments of a step are interleaved send/receive, so the blocking policy cannot deadlock.
#include <algorithm>

#include "coll/reduction/reduction.hpp"

namespace relay::coll {
namespace {

using schedule::ProgramBuilder;

struct Ring {
  const Shape& shape;
  int size, rank;
  int block(int b) const { return ((b % size) + size) % size; }
  // Block-shaped (allgather, allgatherv, reduce_scatter_block): the shape's blocks, of any
  // sizes and places. Vector-shaped (allreduce): P blocks of about count/P elements.
  std::int64_t begin(int b) const {
    return shape.blocks ? shape.block_offset(b) : b * shape.elements() / size * shape.elem_bytes;
  }
  std::int64_t length(int b) const {
    return shape.blocks ? shape.block_bytes(b) : begin(b + 1) - begin(b);
  }
  int right() const { return (rank + 1) % size; }
  int left() const { return (rank - 1 + size) % size; }
};

Ring ring_of(const Shape& s, int rank) { return Ring{s, s.size, rank}; }

void ring_reduce_scatter(ProgramBuilder& b, const Ring& r) {
  for (int step = 0; step + 1 < r.size; ++step) {
    const int out = r.block(r.rank - step - 1), in = r.block(r.rank - step - 2);
    b.exchange(r.right(), r.begin(out), r.length(out), r.left(), r.begin(in), r.length(in),
               ProgramBuilder::Into::combine);
  }
}

void ring_allgather(ProgramBuilder& b, const Ring& r) {
  for (int step = 0; step + 1 < r.size; ++step) {
    const int out = r.block(r.rank - step), in = r.block(r.rank - step - 1);
    b.exchange(r.right(), r.begin(out), r.length(out), r.left(), r.begin(in), r.length(in),
               ProgramBuilder::Into::buffer);
  }
}

ProgramBuilder builder(const Shape& s) {
  return ProgramBuilder(s.buffer_bytes(), s.elem_bytes, s.segment_bytes, s.commutative);
}

}  // namespace

// ring allreduce: ring reduce-scatter, then ring allgather. Cost 2 (P-1) alpha
// + 2 beta S (P-1)/P + gamma S (P-1)/P: the bandwidth-optimal allreduce for large vectors.
schedule::RankProgram allreduce_ring(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.buffer_bytes() <= 0) return b.finish();
  const Ring r = ring_of(s, rank);
  ring_reduce_scatter(b, r);
  ring_allgather(b, r);
  return b.finish();
}

schedule::RankProgram reduce_scatter_ring(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.buffer_bytes() <= 0) return b.finish();
  ring_reduce_scatter(b, ring_of(s, rank));
  return b.finish();
}

schedule::RankProgram allgather_ring(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  if (s.size <= 1 || s.buffer_bytes() <= 0) return b.finish();
  ring_allgather(b, ring_of(s, rank));
  return b.finish();
}

// bruck allgather: in round k (d = 2^k < P) rank v sends the m = min(d, P - d) blocks
// [v, v + m) mod P it holds to v - d and receives [v + d, v + d + m) mod P from v + d. Blocks
// land at their final place (no rotation copy); a range that wraps is two messages. Cost
// ceil(log2 P) alpha + beta S (P-1)/P for any P: small blocks.
schedule::RankProgram allgather_bruck(const Shape& s, int rank) {
  ProgramBuilder b = builder(s);
  const std::int64_t block = s.bytes;
  const int P = s.size;
  if (P <= 1 || block <= 0) return b.finish();
  // Blocks [first, first + m) mod P as at most two byte ranges.
  auto pieces = [&](int first, int m, std::int64_t(&offset)[2], std::int64_t(&length)[2]) {
    first %= P;
    const int head = std::min(m, P - first);
    offset[0] = first * block;
    length[0] = head * block;
    offset[1] = 0;
    length[1] = (m - head) * block;
  };
  for (int d = 1; d < P; d *= 2) {
    const int m = std::min(d, P - d);
    std::int64_t so[2], sl[2], ro[2], rl[2];
    pieces(rank, m, so, sl);
    pieces(rank + d, m, ro, rl);
    const int to = (rank - d + P) % P, from = (rank + d) % P;
    for (int i = 0; i < 2; ++i) {
      b.exchange(to, so[i], sl[i], from, ro[i], rl[i], ProgramBuilder::Into::buffer);
    }
  }
  return b.finish();
}

}  // namespace relay::coll
