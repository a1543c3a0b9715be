#include "coll/predict.hpp"

#include <algorithm>

#include "coll/registry.hpp"
#include "model/replay.hpp"

namespace relay::coll {

std::optional<schedule::Schedule> bcast_schedule(const std::string& algorithm, int ranks, int root,
                                                 std::int64_t bytes, std::int64_t segment,
                                                 int fanout) {
  const auto* alg = coll::find_algorithm(coll::Collective::bcast, algorithm);
  if (alg == nullptr || alg->build == nullptr) return std::nullopt;
  coll::Shape shape;
  shape.size = ranks;
  shape.root = root;
  shape.bytes = bytes;
  shape.segment_bytes = segment >= bytes ? 0 : segment;
  shape.fanout = fanout > 0 ? fanout : alg->default_fanout;
  return coll::build_schedule(*alg, shape);
}

double predict_bcast(const model::Machine& machine, const std::string& algorithm,
                     const std::string& policy, int ranks, int root, std::int64_t bytes,
                     std::int64_t segment, int max_requests, int fanout) {
  const auto schedule = bcast_schedule(algorithm, ranks, root, bytes, segment, fanout);
  if (!schedule) return -1;
  return model::replay(
             *schedule,
             policy == "blocking" ? schedule::Policy::blocking : schedule::Policy::nonblocking,
             max_requests, machine)
      .time_s;
}

std::int64_t coll_call_bytes(coll::Collective collective, int ranks, std::int64_t bytes,
                             int elem_bytes) {
  if (!coll::moves_data(collective)) return 1;
  const std::int64_t unit =
      static_cast<std::int64_t>(elem_bytes) * (coll::has_blocks(collective) ? ranks : 1);
  return std::max<std::int64_t>(1, bytes / unit) * unit;
}

std::optional<schedule::Schedule> coll_schedule(coll::Collective collective,
                                                const std::string& algorithm, int ranks, int root,
                                                std::int64_t bytes, int elem_bytes,
                                                std::int64_t segment, int fanout) {
  const auto* alg = coll::find_algorithm(collective, algorithm);
  if (alg == nullptr || alg->build == nullptr) return std::nullopt;
  // The shape the library builds for such a call (api/collectives.cpp), segments rounded down
  // to whole elements as coll::resolve rounds its defaults.
  coll::Shape shape;
  shape.size = ranks;
  shape.root = coll::has_root(collective) ? root : 0;
  shape.blocks = coll::has_blocks(collective);
  shape.elem_bytes = coll::moves_data(collective) ? elem_bytes : 1;
  shape.bytes =
      (coll::moves_data(collective) ? bytes / shape.elem_bytes / (shape.blocks ? ranks : 1) : 1) *
      shape.elem_bytes;
  if (segment > 0)
    segment = std::max(shape.elem_bytes, segment / shape.elem_bytes * shape.elem_bytes);
  shape.segment_bytes = segment >= bytes ? 0 : segment;
  shape.fanout = alg->uses_fanout && fanout > 0 ? fanout : 1;
  return coll::build_schedule(*alg, shape);
}

double predict_coll(const model::Machine& machine, coll::Collective collective,
                    const std::string& algorithm, const std::string& policy, int ranks, int root,
                    std::int64_t bytes, int elem_bytes, std::int64_t segment, int max_requests,
                    int fanout) {
  const auto schedule =
      coll_schedule(collective, algorithm, ranks, root, bytes, elem_bytes, segment, fanout);
  if (!schedule) return -1;
  return model::replay(
             *schedule,
             policy == "blocking" ? schedule::Policy::blocking : schedule::Policy::nonblocking,
             max_requests, machine)
      .time_s;
}

}  // namespace relay::coll
