#include "api/block_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/status.hpp"

namespace relay::api {

using core::fail;

relay_status_t check_block_layout(const char* fn, const int* recvcounts, int counts_position,
                                  const int* displs, int displs_position, int size,
                                  BlockLayout& layout) {
  if (recvcounts == nullptr) {
    return fail(RELAY_ERR_COUNT, "{}: argument {} (recvcounts) is NULL", fn, counts_position);
  }
  if (displs == nullptr) {
    return fail(RELAY_ERR_BUFFER, "{}: argument {} (displs) is NULL", fn, displs_position);
  }
  const auto n = static_cast<std::size_t>(size);
  layout = BlockLayout{};
  layout.counts.assign(recvcounts, recvcounts + n);
  layout.displs.assign(displs, displs + n);
  std::int64_t base = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < size; ++i) {
    if (recvcounts[i] < 0) {
      return fail(RELAY_ERR_COUNT, "{}: argument {} (recvcounts[{}] = {}) is negative", fn,
                  counts_position, i, recvcounts[i]);
    }
    layout.total += recvcounts[i];
    if (recvcounts[i] > 0) base = std::min<std::int64_t>(base, displs[i]);
  }
  // Non-empty blocks in the order of their displacements: each must end before the next.
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  const auto empty = [&](int i) { return recvcounts[i] == 0; };
  order.erase(std::remove_if(order.begin(), order.end(), empty), order.end());
  std::sort(order.begin(), order.end(),
            [&](int a, int b) { return displs[a] != displs[b] ? displs[a] < displs[b] : a < b; });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const int a = order[k - 1], b = order[k];
    if (std::int64_t{displs[a]} + recvcounts[a] > displs[b]) {
      return fail(RELAY_ERR_BUFFER,
                  "{}: argument {} (displs) makes the blocks of ranks {} "
                  "(displs[{}] = {}, recvcounts[{}] = {}) and {} (displs[{}] = {}) overlap",
                  fn, displs_position, a, a, displs[a], a, recvcounts[a], b, b, displs[b]);
    }
  }
  layout.base = order.empty() ? 0 : base;
  for (std::size_t i = 0; i < n; ++i) {
    layout.displs[i] = layout.counts[i] > 0 ? layout.displs[i] - layout.base : 0;
  }
  return RELAY_SUCCESS;
}

long long counts_hash(const std::vector<std::int64_t>& counts, std::int64_t elem_bytes) {
  std::uint64_t h = 1469598103934665603ULL;  // FNV-1a over the block sizes in bytes
  for (std::int64_t c : counts) {
    h ^= static_cast<std::uint64_t>(c * elem_bytes);
    h *= 1099511628211ULL;
  }
  return static_cast<long long>(h >> 1);  // agree() also negates: keep it far from LLONG_MIN
}

}  // namespace relay::api
