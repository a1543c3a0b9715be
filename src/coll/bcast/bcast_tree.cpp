// Segmented tree broadcast: the one engine behind every tree-shaped broadcast.
//
// Program of a rank with parent p and children c1..ck, for segments 0..n-1:
//   recv seg j from p; send seg j to c1; ...; send seg j to ck
// Segment j's sends need the first j+1 receives. With the nonblocking policy, segment j+1
// arrives while segment j is forwarded: the pipeline of tan2014.
// Cost (alpha-beta, S bytes, n segments, depth d, fanout k): about
//   (d + n - 1) * k * (alpha + beta S / n)   for k sends per stage on one link.
#include <algorithm>

#include "coll/bcast/bcast.hpp"

namespace relay::coll {

schedule::RankProgram build_bcast_tree(topology::TreeKind kind, const Shape& shape, int rank) {
  schedule::RankProgram program;
  if (shape.size <= 1 || shape.bytes <= 0) return program;
  const topology::TreeNode node =
      topology::tree_node(kind, shape.size, shape.root, rank, std::max(1, shape.fanout));
  const schedule::Segmentation segs(shape.bytes, effective_segment_bytes(shape));
  const bool has_parent = node.parent >= 0;
  program.steps.reserve(static_cast<std::size_t>(segs.count()) *
                        (node.children.size() + (has_parent ? 1 : 0)));
  for (std::int64_t j = 0; j < segs.count(); ++j) {
    if (has_parent) program.add_recv(node.parent, segs.offset(j), segs.length(j));
    const auto needs = has_parent ? static_cast<std::int32_t>(j + 1) : 0;
    for (int child : node.children) program.add_send(child, segs.offset(j), segs.length(j), needs);
  }
  return program;
}

}  // namespace relay::coll
