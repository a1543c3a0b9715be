// The broadcast family: its registry rows (registry.cpp, each with its cost and when it wins),
// the segmented tree engine behind the tree-shaped ones and scatter_allgather.
#pragma once

#include <vector>

#include "coll/registry.hpp"
#include "topology/tree.hpp"

namespace relay::coll {

/// The broadcast rows of the registry, in id order.
const std::vector<Algorithm>& bcast_algorithms();
/// `auto` without a tuning table: the cheapest closed form on a built-in alpha-beta machine,
/// with a segment size (0 = unsegmented, else whole elements) for the pipeline.
ClosedFormChoice bcast_closed_form(const Call& call);

/// A segmented broadcast down a tree: for each segment j, receive it from the parent, then
/// forward it to each child. The engine behind linear, chain, binary, kary, binomial, pipeline.
schedule::RankProgram build_bcast_tree(topology::TreeKind kind, const Shape& shape, int rank);
schedule::RankProgram build_bcast_scatter_allgather(const Shape& shape, int rank);

}  // namespace relay::coll
