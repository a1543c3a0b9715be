// The lookups of the one registry (the traits rows: coll/traits.cpp).
#include "coll/registry.hpp"

#include <algorithm>

namespace relay::coll {

std::int64_t Shape::buffer_bytes() const {
  if (block_counts.empty()) return (blocks ? size : 1) * bytes;
  std::int64_t end = 0;
  for (int i = 0; i < size; ++i) {
    if (block_bytes(i) > 0) end = std::max(end, block_offset(i) + block_bytes(i));
  }
  return end;
}

const Algorithm* find_algorithm(Collective c, int id) {
  for (const auto& a : algorithms(c)) {
    if (a.id == id) return &a;
  }
  return nullptr;
}

const Algorithm* find_algorithm(Collective c, std::string_view name) {
  for (const auto& a : algorithms(c)) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

schedule::Schedule build_schedule(const Algorithm& algorithm, const Shape& shape) {
  schedule::Schedule s;
  s.ranks.reserve(static_cast<std::size_t>(shape.size));
  for (int r = 0; r < shape.size; ++r) s.ranks.push_back(algorithm.build(shape, r));
  return s;
}

}  // namespace relay::coll
