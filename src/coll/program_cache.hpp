// The programs of recent calls, one cache for every collective: applications repeat the same
// few calls (a GEMM's panel broadcasts), so building a schedule leaves the hot path.
#pragma once

#include <memory>

#include "coll/registry.hpp"
#include "schedule/schedule.hpp"

namespace relay::coll {

/// This rank's program of `algorithm` for `shape`: the cached one for the same algorithm, shape
/// and rank, else built (then cached). Thread-safe; the program stays alive while it runs even
/// if the cache lets go of it.
std::shared_ptr<const schedule::RankProgram> cached_program(const Algorithm& algorithm,
                                                            const Shape& shape, int rank);

}  // namespace relay::coll
