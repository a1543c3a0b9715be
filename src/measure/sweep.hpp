// The sweep of relay bench bcast and bench coll: every configuration at every size, in rounds
// (each round in its own order), rows combined over rounds; and the confirmation of a sweep's
// fastest configurations, measured again head to head and compared round by round.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace relay::measure {

/// One configuration of a sweep.
struct SweepConfig {
  std::string algorithm;  ///< relay algorithm name, or a baseline
  std::string policy;     ///< "blocking", "nonblocking", or "-" where it does not apply
  std::int64_t segment_bytes = 0;
};

/// Measures one configuration at one size: a row with avg_us (or error), agreed over ranks.
using MeasureRow = std::function<nlohmann::json(const SweepConfig&, std::int64_t bytes)>;

/// One row from several rounds: the median of the rounds' averages, the extreme min and max,
/// the iterations summed, every round's average kept (round_avg_us), the energy over all
/// rounds (EnergyTotal::to_row's fields); an error row if any round failed.
nlohmann::json combine_rounds(const std::vector<nlohmann::json>& rounds);

/// The sweep: every configuration at every size once per round, each round in its own order
/// (the same on every rank); returns measured[ci * sizes.size() + si], one row per round.
/// Progress on stderr unless quiet. Collective over comm.
std::vector<std::vector<nlohmann::json>> measure_sweep(MPI_Comm comm, int rounds, bool quiet,
                                                       const std::vector<SweepConfig>& configs,
                                                       const std::vector<std::int64_t>& sizes,
                                                       const MeasureRow& measure);

/// The confirmation of one size: the sweep's fastest `fastest_n` configurations (and `auto`,
/// when swept) measured again for `rounds` rounds in a new order each round.
struct Confirmation {
  bool includes_auto = false;
  /// Fastest first: each configuration's combined row with sweep_avg_us (its sweep row),
  /// relative_to_round, avg_us (paired: the median over rounds of its time / the round's
  /// median, times the median round) and x_best (avg_us / the fastest's).
  std::vector<nlohmann::json> rows;
};

/// Confirms the fastest of `sweep_rows` (combined rows of one size, one per configuration, the
/// same on every rank). Rank 0's choice is shared; every rank returns the same rows.
/// Collective over comm.
Confirmation confirm_fastest(MPI_Comm comm, int fastest_n, int rounds, bool quiet,
                             const std::vector<SweepConfig>& configs, std::int64_t bytes,
                             const std::vector<nlohmann::json>& sweep_rows,
                             const MeasureRow& measure);

}  // namespace relay::measure
