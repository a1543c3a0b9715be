// The traits of every collective (one row each) and the lookups of the one registry.
#include "coll/registry.hpp"

#include <algorithm>

#include "coll/bcast/bcast.hpp"
#include "coll/reduction/reduction.hpp"

namespace relay::coll {

std::int64_t Shape::buffer_bytes() const {
  if (block_counts.empty()) return (blocks ? size : 1) * bytes;
  std::int64_t end = 0;
  for (int i = 0; i < size; ++i) {
    if (block_bytes(i) > 0) end = std::max(end, block_offset(i) + block_bytes(i));
  }
  return end;
}

namespace {

using C = Collective;

// collective, name, env prefix, has_root, has_blocks, argument positions {op, root, comm,
// options} in relay_<name>, rows, closed form.
const Traits kTraits[] = {
    {C::bcast, "bcast", "BCAST", true, false, {0, 4, 5, 6}, bcast_algorithms, bcast_closed_form},
    {C::reduce,
     "reduce",
     "REDUCE",
     true,
     false,
     {5, 6, 7, 8},
     reduce_algorithms,
     reduce_closed_form},
    {C::allreduce,
     "allreduce",
     "ALLREDUCE",
     false,
     false,
     {5, 0, 6, 7},
     allreduce_algorithms,
     allreduce_closed_form},
    {C::allgather,
     "allgather",
     "ALLGATHER",
     false,
     true,
     {0, 0, 5, 6},
     allgather_algorithms,
     allgather_closed_form},
    {C::reduce_scatter_block,
     "reduce_scatter_block",
     "REDUCE_SCATTER_BLOCK",
     false,
     true,
     {5, 0, 6, 7},
     reduce_scatter_block_algorithms,
     reduce_scatter_block_closed_form},
    {C::gather,
     "gather",
     "GATHER",
     true,
     true,
     {0, 5, 6, 7},
     gather_algorithms,
     gather_closed_form},
    {C::scatter,
     "scatter",
     "SCATTER",
     true,
     true,
     {0, 5, 6, 7},
     scatter_algorithms,
     scatter_closed_form},
    {C::alltoall,
     "alltoall",
     "ALLTOALL",
     false,
     true,
     {0, 0, 5, 6},
     alltoall_algorithms,
     alltoall_closed_form},
    {C::barrier,
     "barrier",
     "BARRIER",
     false,
     false,
     {0, 0, 1, 2},
     barrier_algorithms,
     barrier_closed_form},
    {C::allgatherv,
     "allgatherv",
     "ALLGATHERV",
     false,
     true,
     {0, 0, 8, 9},
     allgatherv_algorithms,
     allgatherv_closed_form},
};

}  // namespace

const Traits& traits(Collective c) {
  for (const Traits& t : kTraits) {
    if (t.collective == c) return t;
  }
  return kTraits[0];  // unreachable for a Collective value
}

std::optional<Collective> find_collective(std::string_view name) {
  for (const Traits& t : kTraits) {
    if (t.name == name) return t.collective;
  }
  return std::nullopt;
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
