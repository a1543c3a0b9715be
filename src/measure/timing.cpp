#include "measure/timing.hpp"

#include <algorithm>

#include "measure/node_energy.hpp"

namespace relay::measure {

Timed time_iterations(MPI_Comm comm, const IterationArgs& a,
                      const std::function<void(bool timed)>& op, const EarlyStop& stop,
                      NodeEnergy* energy) {
  Timed out;
  const double t_start = MPI_Wtime();
  double warm = 0;
  for (int i = 0; i < a.warmup; ++i) {
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    op(false);
    warm = std::max(warm, MPI_Wtime() - t0);
  }
  MPI_Allreduce(&warm, &out.warmup_s, 1, MPI_DOUBLE, MPI_MAX, comm);
  // Converted only once in range: a nan (from a --min-time nan the options once let through)
  // passed std::clamp and made a count of billions.
  double wanted = a.min_time_s / std::max(out.warmup_s, 1e-7);
  if (!(wanted >= a.min_iterations)) wanted = a.min_iterations;
  const int cap = std::clamp(a.max_iterations, 1, kMaxIterations);
  int n = a.iterations > 0 ? std::min(a.iterations, kMaxIterations)
                           : static_cast<int>(std::min(wanted, static_cast<double>(cap)));
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  out.planned = static_cast<std::size_t>(n);
  out.setup_s = MPI_Wtime() - t_start;
  if (energy != nullptr) energy->begin();
  if (!stop) {
    std::vector<double> t(static_cast<std::size_t>(n));
    for (auto& ti : t) {
      MPI_Barrier(comm);
      const double t0 = MPI_Wtime();
      op(true);
      ti = MPI_Wtime() - t0;
    }
    if (energy != nullptr) {  // every rank of the node done
      MPI_Barrier(comm);
      energy->end();
    }
    out.times_s.resize(t.size());
    MPI_Allreduce(t.data(), out.times_s.data(), n, MPI_DOUBLE, MPI_MAX, comm);
    return out;
  }
  for (int i = 0; i < n; ++i) {
    const double w0 = MPI_Wtime();
    MPI_Barrier(comm);
    const double t0 = MPI_Wtime();
    op(true);
    double t = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);  // outside the timed part
    out.times_s.push_back(slowest);
    out.walls_s.push_back(MPI_Wtime() - w0);
    if (stop(out.times_s, out.warmup_s, out.planned)) {
      out.stopped_early = i + 1 < n;
      break;
    }
  }
  if (energy != nullptr) energy->end();  // after the allreduce: every rank done
  // Every rank charges the slowest rank's walls, so that all agree on every cost.
  std::vector<double> mine = out.walls_s, agreed(out.walls_s.size() + 1);
  mine.push_back(out.setup_s);
  MPI_Allreduce(mine.data(), agreed.data(), static_cast<int>(agreed.size()), MPI_DOUBLE, MPI_MAX,
                comm);
  out.setup_s = agreed.back();
  agreed.pop_back();
  out.walls_s = agreed;
  return out;
}

OsuLatency time_osu(MPI_Comm comm, int iterations, int warmup, const std::function<void()>& op,
                    NodeEnergy* energy) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  double timer_s = 0;
  for (int i = 0; i < iterations + warmup; ++i) {
    if (energy != nullptr && i == warmup) {  // the warm-up's barriers are behind every rank
      energy->begin();
      MPI_Barrier(comm);
    }
    const double start = MPI_Wtime();
    op();
    const double stop = MPI_Wtime();
    if (i >= warmup) timer_s += stop - start;
    MPI_Barrier(comm);
  }
  MPI_Barrier(comm);
  if (energy != nullptr) {
    if (iterations <= 0) energy->begin();  // an empty region
    energy->end();
  }
  const double latency_us = iterations > 0 ? timer_s * 1e6 / iterations : 0.0;
  OsuLatency out;
  out.iterations = iterations;
  // OSU reduces to rank 0; every rank gets the figures here (each row is agreed everywhere).
  MPI_Allreduce(&latency_us, &out.min_us, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(&latency_us, &out.max_us, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(&latency_us, &out.avg_us, 1, MPI_DOUBLE, MPI_SUM, comm);
  out.avg_us /= size;
  return out;
}

}  // namespace relay::measure
