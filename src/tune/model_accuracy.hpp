// How well the model chooses, judged on a benchmark's sweep (vadhiyar2004 Table 2): per
// algorithm and policy swept over several segments, the segment the model predicts best
// against the fastest measured; and the model's choice among every modelled configuration
// (what relay tune --methods model would choose) against the fastest of them. Each pick can be
// measured again head to head with the fastest beside it, so that the verdict is not the
// sweep's luckiest row.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "measure/sweep.hpp"

namespace relay::tune {

/// The model's pick among some configurations of one size, and the fastest measured of them.
struct ModelPick {
  std::string algorithm, policy;  ///< the curve's; empty for the choice among all
  std::vector<int> configs;       ///< the configurations compared (indices)
  int pick = -1;                  ///< the model's choice
  int fastest = -1;               ///< the sweep's fastest
  /// Measured again head to head (the pick first), when confirmation was asked for.
  std::vector<int> again;
  double confirmed_x_best = 0;          ///< the pick / the fastest of `again`, round by round
  double fastest_confirmed_x_best = 0;  ///< the same for the sweep's fastest (the floor)
  nlohmann::json confirmation = nlohmann::json::array();  ///< per configuration of `again`
};

/// The model's picks of one size.
struct ModelAccuracy {
  std::vector<ModelPick> curves;  ///< per algorithm and policy with two segments or more
  bool has_choice = false;        ///< two algorithm-policy pairs or more: `choice` is set
  ModelPick choice;               ///< among all modelled configurations
};

/// Judges the model on one size: `rows[ci]` is configuration ci's combined row (avg_us and,
/// where the model costs it, predicted_us; the same on every rank); `modelled[ci]` says which
/// configurations to judge. With confirm_n > 0, each pick and the confirm_n fastest beside it
/// are measured again for `rounds` rounds (rank 0's lists shared). Collective over comm.
ModelAccuracy judge_model(MPI_Comm comm, const std::vector<measure::SweepConfig>& configs,
                          std::int64_t bytes, const std::vector<nlohmann::json>& rows,
                          const std::vector<bool>& modelled, int confirm_n, int rounds, bool quiet,
                          const measure::MeasureRow& measure);

}  // namespace relay::tune
