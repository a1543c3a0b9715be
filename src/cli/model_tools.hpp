// Shared by relay model, relay tune and the benchmarks: the model's time for one broadcast
// configuration.
#pragma once

#include <cstdint>
#include <string>

#include "model/params.hpp"

namespace relay::cli {

/// Replays `algorithm`'s schedule (root `root`, `segment` bytes, 0 = unsegmented) under the
/// executor `policy` on `machine`; -1 for an algorithm without a schedule (mpi).
double predict_bcast(const model::Machine& machine, const std::string& algorithm,
                     const std::string& policy, int ranks, int root, std::int64_t bytes,
                     std::int64_t segment, int window);

}  // namespace relay::cli
