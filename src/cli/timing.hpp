// Timing an MPI operation the way relay's benchmarks do: warm-up iterations, then barrier-
// separated timed iterations, each timed as the slowest rank's time.
#pragma once

#include <mpi.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <vector>

namespace relay::cli {

/// The most timed iterations (--iterations, --max-iterations): each one's time is kept, and
/// 2^31 of them asked for 16 GiB on every rank.
inline constexpr int kMaxIterations = 1000000;

struct IterationArgs {
  int iterations = 0;  ///< timed iterations; 0 = enough for min_time_s
  int warmup = 2;
  double min_time_s = 0.2;
  int max_iterations = 1000;
};

/// Runs op(false) `warmup` times; the slowest rank's warm-up time decides the iteration count
/// (rank 0's choice, shared) unless it is fixed; then times op(true) that many times, each
/// after a barrier. Returns each timed iteration's maximum over the ranks of comm (seconds).
/// Collective over comm; op may do nothing on ranks that do not take part.
std::vector<double> time_iterations(MPI_Comm comm, const IterationArgs& args,
                                    const std::function<void(bool timed)>& op);

/// avg_us, min_us, max_us and iterations of the times (seconds) into row.
void add_times(nlohmann::json& row, const std::vector<double>& times_s);

}  // namespace relay::cli
