// The model's time for one configuration of a collective, named as relay's tables name it
// ({algorithm, policy, segment bytes}): the schedule the library builds for such a call,
// replayed on a machine's parameters. Used by the tuner, relay model predict, the benchmarks'
// model columns and the GEMM's automatic choice (gemm/cost.hpp). It lives in coll, not model:
// it needs the algorithm catalogue, and the model must not know the catalogue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "coll/registry.hpp"
#include "model/params.hpp"
#include "schedule/schedule.hpp"

namespace relay::coll {

/// The schedule relay_bcast runs for `algorithm` (root `root`, `segment` bytes, 0 =
/// unsegmented, fanout 0 = the algorithm's default); nullopt without one (mpi).
std::optional<schedule::Schedule> bcast_schedule(const std::string& algorithm, int ranks, int root,
                                                 std::int64_t bytes, std::int64_t segment,
                                                 int fanout = 0);

/// Replays `algorithm`'s schedule (root `root`, `segment` bytes, 0 = unsegmented) under the
/// executor `policy` with `max_requests` in flight on `machine` (fanout 0 = the algorithm's
/// default); -1 for an algorithm without a schedule (mpi).
double predict_bcast(const model::Machine& machine, const std::string& algorithm,
                     const std::string& policy, int ranks, int root, std::int64_t bytes,
                     std::int64_t segment, int max_requests, int fanout = 0);

/// The bytes relay's tables count for a call of `collective` on `ranks` ranks moving about
/// `bytes`: the vector (reduce, allreduce) or all blocks together (the others), rounded down to
/// whole elements (whole blocks), at least one; 1 for a barrier.
std::int64_t coll_call_bytes(coll::Collective collective, int ranks, std::int64_t bytes,
                             int elem_bytes);

/// As bcast_schedule, for a collective of the reduction/gather catalogue (as predict_coll).
std::optional<schedule::Schedule> coll_schedule(coll::Collective collective,
                                                const std::string& algorithm, int ranks, int root,
                                                std::int64_t bytes, int elem_bytes,
                                                std::int64_t segment, int fanout = 0);

/// As predict_bcast, for a collective of the reduction/gather catalogue: `bytes` as
/// coll_call_bytes returns them, elements of `elem_bytes`, commutative op. -1 without a schedule.
double predict_coll(const model::Machine& machine, coll::Collective collective,
                    const std::string& algorithm, const std::string& policy, int ranks, int root,
                    std::int64_t bytes, int elem_bytes, std::int64_t segment, int max_requests,
                    int fanout = 0);

}  // namespace relay::coll
