// The one timing loop of relay's benchmarks and its tuner: warm-up calls, then barrier-
// separated timed calls, each timed as the slowest rank's time, as many as a minimum time asks
// for (at least min_iterations, at most a cap).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace relay::measure {

class NodeEnergy;  // measure/node_energy.hpp

/// The most timed iterations (--iterations, --max-iterations): each one's time is kept, and
/// 2^31 of them asked for 16 GiB on every rank.
inline constexpr int kMaxIterations = 1000000;
/// The fewest timed iterations a minimum time gives, however slow the warm-up was (relay
/// bench's; relay tune plans 3, so that a long call's race can stop after one: search.hpp).
inline constexpr int kMinTimedIterations = 5;

struct IterationArgs {
  int iterations = 0;  ///< timed iterations; 0 = enough for min_time_s
  int warmup = 2;
  double min_time_s = 0.2;
  int max_iterations = 1000;
  int min_iterations = kMinTimedIterations;  ///< the fewest that min_time_s gives
};

/// What time_iterations measured; the same on every rank but setup_s without a stop rule.
struct Timed {
  std::vector<double> times_s;  ///< each timed iteration's slowest rank
  /// Wall seconds per timed iteration, barrier included, slowest rank (with a stop rule only;
  /// empty otherwise).
  std::vector<double> walls_s;
  double warmup_s = 0;  ///< the slowest rank's longest warm-up call
  double setup_s = 0;  ///< barriers, warm-up, agreeing on the count (slowest rank with a stop rule)
  std::size_t planned = 0;     ///< timed iterations the minimum time asked for
  bool stopped_early = false;  ///< the stop rule ended it before `planned`
};

/// Whether to stop after the timed iterations so far (times_s, agreed over ranks), given the
/// warm-up's time and the planned count.
using EarlyStop =
    std::function<bool(const std::vector<double>& times_s, double warmup_s, std::size_t planned)>;

/// Runs op(false) `warmup` times, each after a barrier; the slowest rank's warm-up time decides
/// the iteration count (rank 0's choice, shared) unless it is fixed; then times op(true) that
/// many times, each after a barrier. Without `stop` the times are agreed once at the end (as
/// relay bench has always timed); with it, after every iteration (outside the timed part), so
/// that every rank stops at the same one, and the walls are kept. Collective over comm; op may
/// do nothing on ranks that do not take part. With `energy`, its region is the timed
/// iterations, barriers included (begin() before the first, end() after the last and a
/// barrier); the caller takes energy->result().
Timed time_iterations(MPI_Comm comm, const IterationArgs& args,
                      const std::function<void(bool timed)>& op, const EarlyStop& stop = nullptr,
                      NodeEnergy* energy = nullptr);

/// OSU micro-benchmarks' counts (osu_util.h): below and above 8 KiB.
inline constexpr std::int64_t kOsuLargeMessageBytes = 8192;
inline constexpr int kOsuIterations = 1000, kOsuIterationsLarge = 100;
inline constexpr int kOsuWarmup = 200, kOsuWarmupLarge = 10;

/// What osu_bcast and OSU's other collective latency tests report, with their meaning: each
/// rank times its own calls (MPI_Wtime around the call, a barrier after each, `warmup` calls
/// not counted), its latency is its mean over `iterations`; Avg is the mean of the ranks'
/// latencies, Min and Max the smallest and largest of them. Microseconds, the same on every
/// rank. Collective over comm.
struct OsuLatency {
  double avg_us = 0, min_us = 0, max_us = 0;
  int iterations = 0;
};
/// With `energy`, its region is the `iterations` timed calls and the barriers after them.
OsuLatency time_osu(MPI_Comm comm, int iterations, int warmup, const std::function<void()>& op,
                    NodeEnergy* energy = nullptr);

}  // namespace relay::measure
