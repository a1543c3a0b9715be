#include "cli/timing.hpp"

#include <algorithm>
#include <numeric>

namespace relay::cli {

std::vector<double> time_iterations(MPI_Comm comm, const IterationArgs& a,
                                    const std::function<void(bool timed)>& op) {
  double warm = 0;
  for (int i = 0; i < a.warmup; ++i) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    op(false);
    warm = std::max(warm, MPI_Wtime() - t0);
  }
  double slowest = 0;
  MPI_Allreduce(&warm, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
  // Converted only once in range: a nan (from a --min-time nan the options once let through)
  // passed std::clamp and made a count of billions.
  double wanted = a.min_time_s / std::max(slowest, 1e-7);
  if (!(wanted >= 5.0)) wanted = 5.0;
  const int cap = std::clamp(a.max_iterations, 1, kMaxIterations);
  int n = a.iterations > 0 ? std::min(a.iterations, kMaxIterations)
                           : static_cast<int>(std::min(wanted, static_cast<double>(cap)));
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  std::vector<double> t(static_cast<std::size_t>(n)), tmax(static_cast<std::size_t>(n));
  for (auto& ti : t) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    op(true);
    ti = MPI_Wtime() - t0;
  }
  MPI_Allreduce(t.data(), tmax.data(), n, MPI_DOUBLE, MPI_MAX, comm);
  return tmax;
}

void add_times(nlohmann::json& row, const std::vector<double>& t) {
  const double avg = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  row["avg_us"] = avg * 1e6;
  row["min_us"] = *std::min_element(t.begin(), t.end()) * 1e6;
  row["max_us"] = *std::max_element(t.begin(), t.end()) * 1e6;
  row["iterations"] = static_cast<int>(t.size());
}

}  // namespace relay::cli
