// Shapes the unit tests build often.
#pragma once

#include <cstdint>

#include "coll/registry.hpp"

namespace relay::test {

/// A broadcast's shape: ranks, root, message bytes, element bytes, segment bytes, fanout.
inline coll::Shape bcast_shape(int size, int root, std::int64_t bytes, std::int64_t elem_bytes,
                               std::int64_t segment_bytes, int fanout) {
  coll::Shape s;
  s.size = size;
  s.root = root;
  s.bytes = bytes;
  s.elem_bytes = elem_bytes;
  s.segment_bytes = segment_bytes;
  s.fanout = fanout;
  return s;
}

}  // namespace relay::test
