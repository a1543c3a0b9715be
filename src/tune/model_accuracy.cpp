#include "tune/model_accuracy.hpp"

#include <algorithm>
#include <stdexcept>

#include "core/units.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"

namespace relay::tune {

ModelAccuracy judge_model(MPI_Comm comm, const std::vector<measure::SweepConfig>& configs,
                          std::int64_t bytes, const std::vector<nlohmann::json>& rows,
                          const std::vector<bool>& modelled, int confirm_n, int rounds, bool quiet,
                          const measure::MeasureRow& measure) {
  ModelAccuracy out;
  ModelPick& overall = out.choice;
  std::vector<ModelPick>& curves = out.curves;
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    const measure::SweepConfig& c = configs[ci];
    if (!modelled[ci] || !rows[ci].contains("predicted_us") || !rows[ci].contains("avg_us"))
      continue;
    auto it = std::find_if(curves.begin(), curves.end(), [&](const ModelPick& k) {
      return k.algorithm == c.algorithm && k.policy == c.policy;
    });
    if (it == curves.end()) {
      it = curves.insert(curves.end(), ModelPick{});
      it->algorithm = c.algorithm;
      it->policy = c.policy;
    }
    it->configs.push_back(static_cast<int>(ci));
    overall.configs.push_back(static_cast<int>(ci));
  }
  auto time = [&](int ci) { return rows[static_cast<std::size_t>(ci)]["avg_us"].get<double>(); };
  auto pred = [&](int ci) {
    return rows[static_cast<std::size_t>(ci)]["predicted_us"].get<double>();
  };
  // Unsegmented (0) and segments not below the message are the same largest "segment".
  auto effective = [&](int ci) {
    const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
    return s <= 0 || s >= bytes ? bytes : s;
  };
  auto choose_again = [&](ModelPick& k) {
    if (confirm_n <= 0) return;
    std::vector<int> by_time = k.configs;
    std::stable_sort(by_time.begin(), by_time.end(),
                     [&](int x, int y) { return time(x) < time(y); });
    k.again.push_back(k.pick);
    for (int ci : by_time) {
      if (static_cast<int>(k.again.size()) > confirm_n) break;
      if (ci != k.pick) k.again.push_back(ci);
    }
  };
  // The choice among all needs two algorithm-policy pairs; a curve needs two segments.
  out.has_choice = overall.configs.size() >= 2 && curves.size() >= 2;
  curves.erase(std::remove_if(curves.begin(), curves.end(),
                              [](const ModelPick& k) { return k.configs.size() < 2; }),
               curves.end());
  // Within a curve, the largest segment predicted within 1% of the best (relay tune's model
  // method: a longer segment is fewer messages for the same predicted time).
  for (auto& k : curves) {
    double best_pred = 1e300;
    for (int ci : k.configs) best_pred = std::min(best_pred, pred(ci));
    for (int ci : k.configs) {
      if (pred(ci) <= best_pred * 1.01 && (k.pick < 0 || effective(ci) > effective(k.pick)))
        k.pick = ci;
      if (k.fastest < 0 || time(ci) < time(k.fastest)) k.fastest = ci;
    }
    choose_again(k);
  }
  // Across algorithms there is no "larger segment" to prefer among near ties: the lowest
  // prediction is the choice, as relay tune's model method makes it.
  if (out.has_choice) {
    for (int ci : overall.configs) {
      if (overall.pick < 0 || pred(ci) < pred(overall.pick)) overall.pick = ci;
      if (overall.fastest < 0 || time(ci) < time(overall.fastest)) overall.fastest = ci;
    }
    choose_again(overall);
  }
  std::vector<int> all_again;
  for (const auto& k : curves) all_again.insert(all_again.end(), k.again.begin(), k.again.end());
  all_again.insert(all_again.end(), overall.again.begin(), overall.again.end());
  // Every rank measures the same configurations in the same order (rank 0's lists).
  const std::size_t own = all_again.size();
  int n = static_cast<int>(own);
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  all_again.resize(static_cast<std::size_t>(n));
  MPI_Bcast(all_again.data(), n, MPI_INT, 0, comm);
  measure::Progress progress(comm, quiet, "model confirmation, " + core::format_bytes(bytes) + " ",
                             all_again.size() * static_cast<std::size_t>(rounds));
  const auto round_times =
      measure::interleaved_rounds(all_again.size(), n > 0 ? rounds : 0, 2003, [&](std::size_t i) {
        const double us =
            measure(configs[static_cast<std::size_t>(all_again[i])], bytes).value("avg_us", 0.0);
        progress.step();
        return us;
      });
  // The pick's time relative to the fastest of its head-to-head group, round by round; and
  // the same for the sweep's own fastest (in the group by construction): how well the sweep's
  // measurement itself reproduces, the floor under any pick's figure.
  std::size_t at = 0;
  auto confirm = [&](ModelPick& k) {
    if (k.again.empty()) return;
    std::vector<std::vector<double>> t(
        round_times.begin() + static_cast<long>(at),
        round_times.begin() + static_cast<long>(at + k.again.size()));
    at += k.again.size();
    const auto rel = measure::paired_relative(t).relative;
    const double best = *std::min_element(rel.begin(), rel.end());
    k.confirmed_x_best = rel.front() / best;
    for (std::size_t i = 0; i < k.again.size(); ++i) {
      const measure::SweepConfig& c = configs[static_cast<std::size_t>(k.again[i])];
      k.confirmation.push_back({{"algorithm", c.algorithm},
                                {"policy", c.policy},
                                {"segment_bytes", c.segment_bytes},
                                {"relative", rel[i] / best},
                                {"round_us", t[i]}});
      if (k.again[i] == k.fastest) k.fastest_confirmed_x_best = rel[i] / best;
    }
    if (k.fastest_confirmed_x_best <= 0)
      throw std::logic_error("judge_model: the sweep's fastest was not confirmed");
  };
  // (Every rank holds the same rows, so its own lists are rank 0's; a rank whose lists were not
  // would leave its picks unconfirmed rather than read another's times.)
  if (own == static_cast<std::size_t>(n) && n > 0) {
    for (auto& k : curves) confirm(k);
    confirm(overall);
  }
  return out;
}

}  // namespace relay::tune
