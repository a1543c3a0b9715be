// Block-cyclic index maps (see block_cyclic.hpp).
//
// Everything follows from one picture: block 0 covers [0, f), block b >= 1 covers
// [f + (b-1)*nb, f + b*nb), and block b belongs to the process at distance b mod P from the
// source. A process at distance d holds blocks d, d+P, d+2P, ..., so the number of its blocks
// among blocks 0 .. b-1 is floor(b/P) + (d < b mod P), and only the process at distance 0 holds
// the odd-sized block 0.
#include "layout/block_cyclic.hpp"

namespace relay::layout {

namespace {

// Distance of `proc` from the source along the dimension, in [0, nprocs).
int64_t distance(const BlockCyclic& dim, int proc) {
  const int64_t p = dim.nprocs;
  return ((static_cast<int64_t>(proc) - dim.source) % p + p) % p;
}

// Global index where block b (>= 1) begins.
int64_t block_begin(const BlockCyclic& dim, int64_t b) {
  return dim.first_block + (b - 1) * dim.block;
}

}  // namespace

std::optional<std::string> block_cyclic_error(const BlockCyclic& dim) {
  if (dim.first_block < 1) {
    return "first block size = " + std::to_string(dim.first_block) + ", must be at least 1";
  }
  if (dim.block < 1) return "block size = " + std::to_string(dim.block) + ", must be at least 1";
  if (dim.nprocs < 1) {
    return "process count = " + std::to_string(dim.nprocs) + ", must be at least 1";
  }
  if (dim.source < -1 || dim.source >= dim.nprocs) {
    return "source process = " + std::to_string(dim.source) + ", must be -1 or in [0, " +
           std::to_string(dim.nprocs) + ")";
  }
  return std::nullopt;
}

int64_t block_of(const BlockCyclic& dim, int64_t g) {
  if (g < dim.first_block) return 0;
  return (g - dim.first_block) / dim.block + 1;
}

int64_t block_end(const BlockCyclic& dim, int64_t g) {
  return dim.first_block + block_of(dim, g) * dim.block;
}

int owner(const BlockCyclic& dim, int64_t g) {
  if (is_replicated(dim)) return -1;
  return static_cast<int>((dim.source + block_of(dim, g)) % dim.nprocs);
}

int64_t to_local(const BlockCyclic& dim, int64_t g) {
  if (is_replicated(dim) || g < dim.first_block) return g;
  const int64_t b = block_of(dim, g);
  const int64_t offset = g - block_begin(dim, b);
  const int64_t earlier = b / dim.nprocs;  // blocks of the owner before block b
  if (b % dim.nprocs == 0) return dim.first_block + (earlier - 1) * dim.block + offset;
  return earlier * dim.block + offset;
}

int64_t to_global(const BlockCyclic& dim, int proc, int64_t l) {
  if (is_replicated(dim)) return l;
  const int64_t d = distance(dim, proc);
  if (d == 0) {
    if (l < dim.first_block) return l;
    const int64_t rest = l - dim.first_block;
    const int64_t b = (rest / dim.block + 1) * dim.nprocs;
    return block_begin(dim, b) + rest % dim.block;
  }
  const int64_t b = d + (l / dim.block) * dim.nprocs;
  return block_begin(dim, b) + l % dim.block;
}

int64_t local_start(const BlockCyclic& dim, int proc, int64_t g) {
  if (is_replicated(dim)) return g;
  const int64_t d = distance(dim, proc);
  if (g <= dim.first_block) return d == 0 ? g : 0;
  const int64_t b = block_of(dim, g);  // g is inside block b (b >= 1)
  const int64_t offset = g - block_begin(dim, b);
  const int64_t owned = b / dim.nprocs + (d < b % dim.nprocs ? 1 : 0);  // among blocks < b
  const int64_t whole = d == 0 ? dim.first_block + (owned - 1) * dim.block : owned * dim.block;
  return whole + (b % dim.nprocs == d ? offset : 0);
}

int64_t local_count(const BlockCyclic& dim, int proc, int64_t n) {
  return local_start(dim, proc, n);
}

int64_t local_count(const BlockCyclic& dim, int proc, int64_t start, int64_t n) {
  return local_start(dim, proc, start + n) - local_start(dim, proc, start);
}

BlockCyclic subrange(const BlockCyclic& dim, int64_t start) {
  BlockCyclic sub = dim;
  sub.first_block = block_end(dim, start) - start;
  sub.source = owner(dim, start);
  return sub;
}

namespace fortran {

int64_t numroc(int64_t n, int64_t nb, int iproc, int isrcproc, int nprocs) {
  return local_count(BlockCyclic{nb, nb, isrcproc, nprocs}, iproc, n);
}

int indxg2p(int64_t indxglob, int64_t nb, int /*iproc*/, int isrcproc, int nprocs) {
  return owner(BlockCyclic{nb, nb, isrcproc, nprocs}, indxglob - 1);
}

int64_t indxg2l(int64_t indxglob, int64_t nb, int /*iproc*/, int /*isrcproc*/, int nprocs) {
  return to_local(BlockCyclic{nb, nb, 0, nprocs}, indxglob - 1) + 1;
}

int64_t indxl2g(int64_t indxloc, int64_t nb, int iproc, int isrcproc, int nprocs) {
  return to_global(BlockCyclic{nb, nb, isrcproc, nprocs}, iproc, indxloc - 1) + 1;
}

}  // namespace fortran

}  // namespace relay::layout
