// Brute-force reference for the layout tests: deal a dimension out block by block and record,
// for every global index, its block, owner and local index. Deliberately naive (a walk, no
// formulas) so that it shares no arithmetic with src/layout.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "layout/block_cyclic.hpp"

namespace relay::layout::test {

struct BruteMap {
  int nprocs = 1;
  std::vector<int64_t> block;  // block id of each global index
  std::vector<int> owner;      // owner of each global index (-1: replicated)
  std::vector<int64_t> local;  // local index on the owner (the global index when replicated)

  int64_t size() const { return static_cast<int64_t>(owner.size()); }
  bool holds(int proc, int64_t g) const { return owner[g] == -1 || owner[g] == proc; }
  // Indices of [start, start + n) held by `proc`, counted one by one.
  int64_t count(int proc, int64_t start, int64_t n) const {
    int64_t c = 0;
    for (int64_t g = start; g < start + n; ++g) c += holds(proc, g) ? 1 : 0;
    return c;
  }
};

// The first n indices of `dim`, dealt out block by block.
inline BruteMap brute_map(const BlockCyclic& dim, int64_t n) {
  BruteMap map;
  map.nprocs = dim.nprocs;
  std::vector<int64_t> next_local(static_cast<size_t>(dim.nprocs), 0);
  int64_t g = 0;
  for (int64_t b = 0; g < n; ++b) {
    const int proc = dim.source == -1 ? -1 : static_cast<int>((dim.source + b) % dim.nprocs);
    const int64_t size = b == 0 ? dim.first_block : dim.block;
    for (int64_t k = 0; k < size && g < n; ++k, ++g) {
      map.block.push_back(b);
      map.owner.push_back(proc);
      map.local.push_back(proc == -1 ? g : next_local[static_cast<size_t>(proc)]++);
    }
  }
  return map;
}

// "fb=2 nb=3 src=1 P=3", for failure messages.
inline std::string describe(const BlockCyclic& dim) {
  return "fb=" + std::to_string(dim.first_block) + " nb=" + std::to_string(dim.block) +
         " src=" + std::to_string(dim.source) + " P=" + std::to_string(dim.nprocs);
}

// Calls fn for every dimension with nprocs in [1, max_procs], source in [-1, nprocs), block in
// [1, max_block] and first_block in [1, max_first]: the exhaustive sweep of the tests.
inline void for_each_dim(int max_procs, int64_t max_block, int64_t max_first,
                         const std::function<void(const BlockCyclic&)>& fn) {
  for (int p = 1; p <= max_procs; ++p) {
    for (int src = -1; src < p; ++src) {
      for (int64_t nb = 1; nb <= max_block; ++nb) {
        for (int64_t fb = 1; fb <= max_first; ++fb) fn(BlockCyclic{fb, nb, src, p});
      }
    }
  }
}

}  // namespace relay::layout::test
