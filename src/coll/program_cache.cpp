#include "coll/program_cache.hpp"

#include "schedule/cache.hpp"

namespace relay::coll {
namespace {

// Everything a program depends on. The algorithm is a registry row: rows never move, so its
// address names it.
struct ProgramKey {
  const Algorithm* algorithm;
  int rank;
  Shape shape;
  bool operator==(const ProgramKey& o) const {
    const Shape& a = shape;
    const Shape& b = o.shape;
    return algorithm == o.algorithm && rank == o.rank && a.size == b.size && a.root == b.root &&
           a.bytes == b.bytes && a.elem_bytes == b.elem_bytes &&
           a.segment_bytes == b.segment_bytes && a.fanout == b.fanout &&
           a.commutative == b.commutative && a.blocks == b.blocks &&
           a.block_counts == b.block_counts && a.block_displs == b.block_displs;
  }
};

}  // namespace

std::shared_ptr<const schedule::RankProgram> cached_program(const Algorithm& algorithm,
                                                            const Shape& shape, int rank) {
  // The capacity of the two caches this one replaced (broadcasts', the others').
  static schedule::ProgramCache<ProgramKey> cache(128);
  return cache.get(ProgramKey{&algorithm, rank, shape},
                   [&] { return algorithm.build(shape, rank); });
}

}  // namespace relay::coll
