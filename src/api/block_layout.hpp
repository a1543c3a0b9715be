// The receive layout of a collective with blocks of per-rank sizes (allgatherv): recvcounts and
// displs checked and turned into the schedule's block vectors (coll::Shape).
#pragma once

#include <cstdint>
#include <vector>

#include "relay/relay.h"

namespace relay::api {

/// Blocks in elements, shifted so that the first non-empty block starts at 0 (empty blocks at
/// 0): the program then depends on the layout's shape only, and the accumulator starts
/// `base` elements into recvbuf.
struct BlockLayout {
  std::vector<std::int64_t> counts, displs;
  std::int64_t base = 0;   ///< displs[i] - the normalized displs[i], for the non-empty blocks
  std::int64_t total = 0;  ///< sum of counts
};

/// recvcounts (argument counts_position) and displs (displs_position) of `size` ranks: neither
/// NULL, no negative count, no two non-empty blocks overlapping. Fills `layout` on success.
relay_status_t check_block_layout(const char* function, const int* recvcounts, int counts_position,
                                  const int* displs, int displs_position, int size,
                                  BlockLayout& layout);

/// A hash of the counts (in bytes of elem_bytes each), for the collective argument check:
/// every rank must pass the same recvcounts.
long long counts_hash(const std::vector<std::int64_t>& counts, std::int64_t elem_bytes);

}  // namespace relay::api
