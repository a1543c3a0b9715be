// Recursive halving and doubling (Thakur, Rabenseifner and Gropp 2005), for any P.
//
// Non-powers of two fold first: with pow2 the largest power of two <= P and extra = P - pow2,
// each even rank r < 2 extra sends its whole vector to r + 1, which combines it (x_r on the
// left) and stands for both; ranks >= 2 extra stand for themselves. The pow2 survivors get new
// ranks nr in rank order, and the vector is cut into P blocks (one per rank, count/P elements
// each, the first ones a little shorter when P does not divide count; some empty when
// count < P): new block nr is the blocks of the ranks nr stands for, so every range of new
// blocks is one contiguous byte range. At the end results unfold the same way.
//
// Recursive halving (reduce-scatter): in round mask = pow2/2, ..., 1, nr keeps the half of
// its current block range on its side of mask, sends the other half to nr ^ mask and
// combines the half it receives (the lower new rank's data on the left): after log2 pow2
// rounds nr holds new block nr reduced over every rank. Recursive doubling (allgather) runs
// the rounds backwards, exchanging the aligned range of `mask` new blocks each holds.
// Costs (P a power of two, S bytes): rabenseifner allreduce 2 log2 P alpha + 2 beta S (P-1)/P
// + gamma S (P-1)/P; recursive_doubling allreduce log2 P (alpha + beta S + gamma S); the fold
// adds alpha + beta S (+ gamma S) before and alpha + beta S after.
#include <algorithm>

#include "coll/reduction/reduction.hpp"

namespace relay::coll {
namespace {

using schedule::ProgramBuilder;

struct Fold {
  int pow2 = 1;
  int extra = 0;
  explicit Fold(int size) {
    while (pow2 * 2 <= size) pow2 *= 2;
    extra = size - pow2;
  }
  /// -1 for an even rank that folds into its odd neighbour.
  int new_rank(int rank) const {
    if (rank >= 2 * extra) return rank - extra;
    return rank % 2 == 1 ? rank / 2 : -1;
  }
  int real(int nr) const { return nr < extra ? 2 * nr + 1 : nr + extra; }
  /// First original block of new block nr, for nr in [0, pow2] (pow2 gives P).
  int first_block(int nr) const { return nr < extra ? 2 * nr : nr + extra; }
};

class Halving {
 public:
  Halving(const Shape& s, int rank)
      : s_(s),
        rank_(rank),
        fold_(s.size),
        nr_(fold_.new_rank(rank)),
        b_(s.buffer_bytes(), s.elem_bytes, s.segment_bytes, s.commutative) {}

  ProgramBuilder& builder() { return b_; }
  int new_rank() const { return nr_; }
  const Fold& fold() const { return fold_; }
  std::int64_t bytes() const { return s_.buffer_bytes(); }

  /// Byte offset of original block `block` (block in [0, P]).
  std::int64_t block_begin(int block) const {
    if (s_.blocks) return block * s_.bytes;
    return block * s_.elements() / s_.size * s_.elem_bytes;
  }
  /// Bytes of new blocks [lo, hi).
  std::int64_t begin(int lo) const { return block_begin(fold_.first_block(lo)); }
  std::int64_t length(int lo, int hi) const { return begin(hi) - begin(lo); }

  /// Even ranks of the first 2 extra send everything to their odd neighbour, which combines.
  void fold_in() {
    if (rank_ >= 2 * fold_.extra) return;
    if (rank_ % 2 == 0) {
      b_.send(rank_ + 1, 0, bytes());
    } else {
      b_.recv_combine(rank_ - 1, 0, bytes(), true);
    }
  }
  /// Odd ranks of the first 2 extra send [offset, +length) back to their even neighbour.
  void fold_out(std::int64_t offset_for_even, std::int64_t length) {
    if (rank_ >= 2 * fold_.extra) return;
    if (rank_ % 2 == 1) {
      b_.send(rank_ - 1, offset_for_even, length);
    } else {
      b_.recv(rank_ + 1, offset_for_even, length);
    }
  }
  /// Recursive halving: afterwards new rank nr holds new block nr, reduced.
  void halve() {
    if (nr_ < 0) return;
    int lo = 0, hi = fold_.pow2;
    for (int mask = fold_.pow2 / 2; mask >= 1; mask /= 2) {
      const int partner = nr_ ^ mask;
      const int half = (hi - lo) / 2;
      const bool upper = (nr_ & mask) != 0;
      const int send_lo = upper ? lo : lo + half, keep_lo = upper ? lo + half : lo;
      const int peer = fold_.real(partner);
      b_.exchange(peer, begin(send_lo), length(send_lo, send_lo + half), peer, begin(keep_lo),
                  length(keep_lo, keep_lo + half), ProgramBuilder::Into::combine, partner < nr_);
      lo = keep_lo;
      hi = keep_lo + half;
    }
  }
  /// Recursive doubling of the reduced new blocks: afterwards every survivor holds all.
  void double_up() {
    if (nr_ < 0) return;
    for (int mask = 1; mask < fold_.pow2; mask *= 2) {
      const int partner = nr_ ^ mask;
      const int mine = nr_ & ~(mask - 1), theirs = partner & ~(mask - 1);
      const int peer = fold_.real(partner);
      b_.exchange(peer, begin(mine), length(mine, mine + mask), peer, begin(theirs),
                  length(theirs, theirs + mask), ProgramBuilder::Into::buffer);
    }
  }

 private:
  const Shape& s_;
  int rank_;
  Fold fold_;
  int nr_;
  ProgramBuilder b_;
};

}  // namespace

// rabenseifner reduce: recursive halving, then a binomial gather of the reduced blocks to the
// root (in new ranks relative to the root's: at round mask a rank whose relative rank has bit
// mask as its lowest set bit sends the `mask` blocks it holds and is done). A folded-away root
// gets the result from its odd neighbour. Cost 2 log2 P alpha + 2 beta S (P-1)/P
// + gamma S (P-1)/P: for large vectors. Commutative ops only.
schedule::RankProgram reduce_rabenseifner(const Shape& s, int rank) {
  Halving h(s, rank);
  if (s.size <= 1 || h.bytes() <= 0) return h.builder().finish();
  h.fold_in();
  h.halve();
  const int holder = h.fold().new_rank(s.root) >= 0 ? s.root : s.root + 1;
  const int nr = h.new_rank();
  if (nr >= 0) {
    const int relative = nr ^ h.fold().new_rank(holder);
    for (int mask = 1; mask < h.fold().pow2; mask *= 2) {
      const int partner = nr ^ mask;
      const int peer = h.fold().real(partner);
      if (relative & mask) {
        const int mine = nr & ~(mask - 1);
        h.builder().send(peer, h.begin(mine), h.length(mine, mine + mask));
        break;
      }
      const int theirs = partner & ~(mask - 1);
      h.builder().recv(peer, h.begin(theirs), h.length(theirs, theirs + mask));
    }
  }
  if (holder != s.root) {
    if (rank == holder) h.builder().send(s.root, 0, h.bytes());
    if (rank == s.root) h.builder().recv(holder, 0, h.bytes());
  }
  return h.builder().finish();
}

// rabenseifner allreduce: recursive halving then recursive doubling. Commutative ops only.
schedule::RankProgram allreduce_rabenseifner(const Shape& s, int rank) {
  Halving h(s, rank);
  if (s.size <= 1 || h.bytes() <= 0) return h.builder().finish();
  h.fold_in();
  h.halve();
  h.double_up();
  h.fold_out(0, h.bytes());
  return h.builder().finish();
}

// recursive_doubling allreduce: log2 P rounds, each exchanging and combining the whole vector
// with nr ^ mask (the lower new rank's data on the left, so every rank computes the same
// value and non-commutative ops keep rank order). For small vectors.
schedule::RankProgram allreduce_recursive_doubling(const Shape& s, int rank) {
  Halving h(s, rank);
  if (s.size <= 1 || h.bytes() <= 0) return h.builder().finish();
  h.fold_in();
  if (h.new_rank() >= 0) {
    for (int mask = 1; mask < h.fold().pow2; mask *= 2) {
      const int partner = h.new_rank() ^ mask;
      const int peer = h.fold().real(partner);
      h.builder().exchange(peer, 0, h.bytes(), peer, 0, h.bytes(), ProgramBuilder::Into::combine,
                           partner < h.new_rank());
    }
  }
  h.fold_out(0, h.bytes());
  return h.builder().finish();
}

// recursive_halving reduce_scatter_block: recursive halving over the P blocks; a folded-away
// even rank gets its block from its odd neighbour. Cost log2 P alpha + beta S (P-1)/P
// + gamma S (P-1)/P (S = P blocks). Commutative ops only.
schedule::RankProgram reduce_scatter_recursive_halving(const Shape& s, int rank) {
  Halving h(s, rank);
  if (s.size <= 1 || h.bytes() <= 0) return h.builder().finish();
  h.fold_in();
  h.halve();
  const std::int64_t block = s.bytes;
  h.fold_out((rank - rank % 2) * block, block);
  return h.builder().finish();
}

// recursive_doubling allgather: log2 P rounds exchanging the aligned range of `mask` blocks
// each rank holds with rank ^ mask. Cost log2 P alpha + beta S (P-1)/P. P a power of two
// (the registry runs bruck otherwise).
schedule::RankProgram allgather_recursive_doubling(const Shape& s, int rank) {
  if ((s.size & (s.size - 1)) != 0) return allgather_bruck(s, rank);
  Halving h(s, rank);
  if (s.size <= 1 || h.bytes() <= 0) return h.builder().finish();
  h.double_up();
  return h.builder().finish();
}

}  // namespace relay::coll
