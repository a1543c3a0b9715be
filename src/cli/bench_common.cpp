// Over 500 lines: what every relay bench command shares -- the sweep over configurations, the
// head-to-head confirmation, the model's accuracy table, option parsing and printing. The
// sweep and confirmation loops are measurement logic still to move into src/measure (issue 24).
#include "cli/bench_common.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <utility>

#include "cli/checks.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "coll/options.hpp"
#include "core/units.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"

namespace relay::cli {

void add_sweep_axes(CLI::App* cmd, SweepArgs& a, const std::string& sizes_help,
                    const std::string& algorithms_help) {
  cmd->add_option("--sizes", a.sizes, sizes_help + kSizesHelpUnits)->capture_default_str();
  cmd->add_option("--algorithms", a.algorithms, algorithms_help)->capture_default_str();
  cmd->add_option("--policies", a.policies, "blocking, nonblocking, or all")->capture_default_str();
  cmd->add_option("--segments", a.segments, "segment sizes; 0 = unsegmented")
      ->capture_default_str();
}

void add_sweep_timing(CLI::App* cmd, SweepArgs& a) {
  add_max_requests_option(cmd, a.max_requests, coll::kMaxMaxRequests,
                          "max requests in flight per direction");
  cmd->add_option("--root", a.root, "root rank")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_iteration_options(cmd, a.timing);
  cmd->add_option("--confirm", a.confirm,
                  "after the sweep, measure its fastest N configurations per size (and auto) "
                  "again, head to head")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--confirm-rounds", a.confirm_rounds, "rounds of the confirmation")
      ->check(CLI::Range(1, kMaxRounds))
      ->capture_default_str();
}

SymmCollectives symm_collectives(const std::string& parts) {
  SymmCollectives c;
  relay_bcast_options_init(&c.bcast);
  relay_coll_options_init(&c.reduce);
  if (parts == "mpi") {
    relay_bcast_algorithm_from_name("mpi", &c.bcast.algorithm);
    relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, "mpi", &c.reduce.algorithm);
  }
  return c;
}

void add_iteration_options(CLI::App* cmd, measure::IterationArgs& t) {
  cmd->add_option("--iterations", t.iterations, "timed iterations (0 = enough for --min-time)")
      ->check(CLI::Range(0, measure::kMaxIterations));
  cmd->add_option("--warmup", t.warmup, "untimed iterations first")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--min-time", t.min_time_s,
                  "seconds of timed iterations per row when --iterations is 0")
      ->check(finite_in(0.0))
      ->capture_default_str();
  cmd->add_option("--max-iterations", t.max_iterations, "cap on automatic iterations")
      ->check(CLI::Range(1, measure::kMaxIterations))
      ->capture_default_str();
}

void add_sweep_output(CLI::App* cmd, SweepArgs& a, const std::string& model_help) {
  cmd->add_option("--rounds", a.rounds,
                  "measure every configuration this many times, interleaved; report the median")
      ->check(CLI::Range(1, kMaxRounds))
      ->capture_default_str();
  cmd->add_option("--json", a.json_path, "write rows as JSON here");
  cmd->add_option("--plot", a.plot_path, "draw a PNG here (needs --json and matplotlib)");
  cmd->add_option("--model", a.model_path, model_help)->check(CLI::ExistingFile);
  cmd->add_option("--model-confirm", a.model_confirm,
                  "with --model: the model's picks and the N fastest beside each measured again "
                  "head to head, "
                  "--confirm-rounds rounds (0: no confirmation)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--quiet", a.quiet, "no progress on stderr");
  // Handled before parsing (main.cpp): listed here for --help.
  cmd->add_flag("--cluster",
                "run on the emulated cluster (relay cluster up first): relaunches this command "
                "with relay cluster run, one rank per slot (hang timeout: RELAY_CLUSTER_TIMEOUT, "
                "default 3600 s)");
}

void check_sweep_args(const SweepArgs& a) {
  if (!a.plot_path.empty() && a.json_path.empty()) {
    throw CLI::ValidationError("--plot", "needs --json");
  }
}

void add_times(nlohmann::json& row, const std::vector<double>& t) {
  const double avg = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  row["avg_us"] = avg * 1e6;
  row["min_us"] = *std::min_element(t.begin(), t.end()) * 1e6;
  row["max_us"] = *std::max_element(t.begin(), t.end()) * 1e6;
  row["iterations"] = static_cast<int>(t.size());
}

std::string label(const BenchConfig& c) {
  return fmt::format("algorithm={} policy={} segment={}", c.algorithm, c.policy,
                     c.segment_bytes > 0 ? core::format_bytes(c.segment_bytes) : "none");
}

std::string resolved_field(const std::string& text, const std::string& key) {
  const auto at = text.find(key + "=");
  if (at == std::string::npos) return std::string();
  const auto from = at + key.size() + 1;
  return text.substr(from, text.find(' ', from) - from);
}

// One row per combination and size, fastest first, with each row's time relative to the best.
void print_summary(const nlohmann::json& rows) {
  std::vector<std::int64_t> sizes;
  for (const auto& r : rows) {
    if (std::find(sizes.begin(), sizes.end(), r["size_bytes"].get<std::int64_t>()) == sizes.end()) {
      sizes.push_back(r["size_bytes"].get<std::int64_t>());
    }
  }
  std::printf("# Summary: every combination, fastest first (x best = time / fastest time)\n");
  std::printf("%-12s %-18s %-12s %-9s %12s %10s %8s %12s\n", "# Size", "Algorithm", "Policy",
              "Segment", "Avg(us)", "MB/s", "x best", "Model(us)");
  for (auto size : sizes) {
    std::vector<const nlohmann::json*> list;
    for (const auto& r : rows) {
      if (r["size_bytes"].get<std::int64_t>() == size && r.contains("avg_us")) list.push_back(&r);
    }
    std::sort(list.begin(), list.end(), [](auto* x, auto* y) {
      return (*x)["avg_us"].template get<double>() < (*y)["avg_us"].template get<double>();
    });
    for (const auto* r : list) {
      const auto seg = (*r)["segment_bytes"].get<std::int64_t>();
      std::printf("%-12lld %-18s %-12s %-9s %12.2f %10.2f %8.3f %12s\n",
                  static_cast<long long>(size), (*r)["algorithm"].get<std::string>().c_str(),
                  (*r)["policy"].get<std::string>().c_str(),
                  seg > 0 ? core::format_bytes(seg).c_str() : "none", (*r)["avg_us"].get<double>(),
                  (*r)["bandwidth_MBps"].get<double>(),
                  (*r)["avg_us"].get<double>() / (*list.front())["avg_us"].get<double>(),
                  r->contains("predicted_us")
                      ? fmt::format("{:.2f}", (*r)["predicted_us"].get<double>()).c_str()
                      : "-");
    }
  }
}

// One row from several rounds: the median of the rounds' averages, the extreme min and max,
// the iterations summed, and every round's average kept for the record.
nlohmann::json combine_rounds(const std::vector<nlohmann::json>& rounds) {
  nlohmann::json row = rounds.front();
  if (row.contains("error") || rounds.size() == 1) return row;
  std::vector<double> avgs;
  int iterations = 0;
  for (const auto& r : rounds) {
    if (r.contains("error")) return r;
    avgs.push_back(r["avg_us"].get<double>());
    row["min_us"] = std::min(row["min_us"].get<double>(), r["min_us"].get<double>());
    row["max_us"] = std::max(row["max_us"].get<double>(), r["max_us"].get<double>());
    iterations += r["iterations"].get<int>();
  }
  row["round_avg_us"] = avgs;
  const double median = measure::median(avgs);
  row["avg_us"] = median;
  row["iterations"] = iterations;
  row["bandwidth_MBps"] = median > 0 ? row["size_bytes"].get<double>() / median : 0.0;
  return row;
}

std::vector<std::vector<nlohmann::json>> measure_sweep(MPI_Comm comm, const SweepArgs& a,
                                                       const std::vector<BenchConfig>& configs,
                                                       const std::vector<std::int64_t>& sizes,
                                                       const MeasureRow& measure) {
  // Rounds: every configuration is measured once per round, so slow drifts of the machine
  // affect all of them alike; a row reports the median over rounds of each round's average.
  measure::Progress progress(comm, a.quiet, "",
                             configs.size() * sizes.size() * static_cast<std::size_t>(a.rounds));
  std::vector<std::vector<nlohmann::json>> measured(configs.size() * sizes.size());
  // Each round visits the configurations in its own order (the same on every rank: a fixed
  // seed per round), so that no configuration always runs right after the same neighbour or
  // first in a round: with 4 ranks on 2 cores the first configuration of every round ran up to
  // 1.6x slower than the same configuration elsewhere in the round.
  std::vector<std::size_t> order(configs.size());
  for (int round = 0; round < a.rounds; ++round) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (a.rounds > 1)
      std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(round) + 1));
    for (std::size_t ci : order) {
      for (std::size_t si = 0; si < sizes.size(); ++si) {
        measured[ci * sizes.size() + si].push_back(measure(configs[ci], sizes[si]));
        progress.step();
      }
    }
  }
  return measured;
}

long print_tables(MPI_Comm comm, const std::vector<BenchConfig>& configs,
                  const std::vector<std::int64_t>& sizes,
                  const std::vector<std::vector<nlohmann::json>>& measured, bool with_model,
                  const std::function<std::string(const BenchConfig&)>& header,
                  const std::function<void(nlohmann::json&)>& add_prediction, nlohmann::json& doc) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    if (rank == 0) {
      std::printf("%s\n", header(configs[ci]).c_str());
      std::printf("%-12s %12s %12s %12s %11s %10s%s\n", "# Size", "Avg(us)", "Min(us)", "Max(us)",
                  "Iterations", "MB/s", with_model ? "    Model(us) Model/meas" : "");
    }
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      nlohmann::json row = combine_rounds(measured[ci * sizes.size() + si]);
      add_prediction(row);
      const auto bytes = sizes[si];
      doc["rows"].push_back(row);
      if (rank != 0) continue;
      if (row.contains("error")) {
        std::printf("%-12lld ERROR: %s\n", static_cast<long long>(bytes),
                    row["error"].get<std::string>().c_str());
        continue;
      }
      std::printf("%-12lld %12.2f %12.2f %12.2f %11d %10.2f", static_cast<long long>(bytes),
                  row["avg_us"].get<double>(), row["min_us"].get<double>(),
                  row["max_us"].get<double>(), row["iterations"].get<int>(),
                  row["bandwidth_MBps"].get<double>());
      if (row.contains("predicted_us")) {
        std::printf(" %12.2f %10.3f", row["predicted_us"].get<double>(),
                    row["predicted_over_measured"].get<double>());
      } else if (with_model) {
        std::printf(" %12s %10s", "-", "-");
      }
      std::printf("\n");
    }
    if (rank == 0) std::printf("\n");
  }
  // Every rank knows which rows failed (verification agrees over all ranks).
  return static_cast<long>(
      std::count_if(doc["rows"].begin(), doc["rows"].end(),
                    [](const nlohmann::json& r) { return r.contains("error"); }));
}

// Confirmation (--confirm N): the fastest row of a sweep of many noisy rows is faster than its
// configuration really is (the winner's curse: with 4 ranks on 2 cores, seven spellings of one
// unsegmented broadcast of 64 KiB ranged 41-53 us in one sweep), so a choice made elsewhere --
// auto, following a table -- is judged against the sweep's fastest N per size measured again,
// head to head with it, for --confirm-rounds rounds in a new order each round, and compared
// round by round (measure::paired_relative).
void confirm_fastest(MPI_Comm comm, const SweepArgs& a, const std::vector<BenchConfig>& configs,
                     const std::vector<std::int64_t>& sizes,
                     const std::vector<std::vector<nlohmann::json>>& measured,
                     const MeasureRow& measure, nlohmann::json& doc) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  doc["confirmation"] = nlohmann::json::array();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    // Every rank holds the same rows (times are agreed over ranks); rank 0's order is shared.
    std::vector<std::pair<double, int>> ranked;
    int auto_index = -1;
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const nlohmann::json row = combine_rounds(measured[ci * sizes.size() + si]);
      if (configs[ci].algorithm == "auto") auto_index = static_cast<int>(ci);
      if (row.contains("avg_us"))
        ranked.emplace_back(row["avg_us"].get<double>(), static_cast<int>(ci));
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<int> pick;
    for (const auto& r : ranked) {
      if (static_cast<int>(pick.size()) < a.confirm) pick.push_back(r.second);
    }
    if (auto_index >= 0 && std::find(pick.begin(), pick.end(), auto_index) == pick.end())
      pick.push_back(auto_index);
    int n = static_cast<int>(pick.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm);
    pick.resize(static_cast<std::size_t>(n));
    MPI_Bcast(pick.data(), n, MPI_INT, 0, comm);
    std::vector<std::vector<nlohmann::json>> again(pick.size());
    measure::Progress progress(comm, a.quiet,
                               "confirmation, " + core::format_bytes(sizes[si]) + " ",
                               pick.size() * static_cast<std::size_t>(a.confirm_rounds));
    measure::interleaved_rounds(pick.size(), a.confirm_rounds, 1001, [&](std::size_t i) {
      again[i].push_back(measure(configs[pick[i]], sizes[si]));
      progress.step();
      return again[i].back().value("avg_us", 0.0);
    });
    if (rank != 0) continue;
    // Paired: each configuration's time relative to its round's median, so that the machine's
    // drift between rounds (as large as 2x at 8 MiB here) cancels.
    std::vector<nlohmann::json> rows;
    std::vector<std::vector<double>> times;
    for (std::size_t i = 0; i < pick.size(); ++i) {
      nlohmann::json row = combine_rounds(again[i]);
      row["sweep_avg_us"] =
          combine_rounds(measured[static_cast<std::size_t>(pick[i]) * sizes.size() + si])
              .value("avg_us", 0.0);
      if (row.contains("avg_us")) {
        times.push_back(row.contains("round_avg_us")
                            ? row["round_avg_us"].get<std::vector<double>>()
                            : std::vector<double>{row["avg_us"].get<double>()});
      }
      rows.push_back(row);
    }
    if (times.size() == rows.size()) {
      const auto paired = measure::paired_relative(times);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i]["relative_to_round"] = paired.relative[i];
        rows[i]["avg_us"] = paired.relative[i] * paired.reference;
      }
    }
    std::sort(rows.begin(), rows.end(), [](const nlohmann::json& x, const nlohmann::json& y) {
      return x.value("avg_us", 1e300) < y.value("avg_us", 1e300);
    });
    std::printf("\n# Confirmation, %s: the sweep's fastest %d%s measured again, %d rounds\n",
                core::format_bytes(sizes[si]).c_str(), a.confirm,
                auto_index >= 0 ? " and auto" : "", a.confirm_rounds);
    std::printf(
        "# Confirmed = median over rounds of the time / the round's median over these rows,\n"
        "# times the median round (a drift between rounds slows all rows of a round alike)\n");
    std::printf("%-18s %-12s %-9s %12s %14s %8s\n", "# Algorithm", "Policy", "Segment", "Sweep(us)",
                "Confirmed(us)", "x best");
    const double best = rows.front().value("avg_us", 0.0);
    for (auto& row : rows) {
      if (!row.contains("avg_us")) continue;
      const auto seg = row["segment_bytes"].get<std::int64_t>();
      std::printf(
          "%-18s %-12s %-9s %12.2f %14.2f %8.3f\n", row["algorithm"].get<std::string>().c_str(),
          row["policy"].get<std::string>().c_str(),
          seg > 0 ? core::format_bytes(seg).c_str() : "none", row["sweep_avg_us"].get<double>(),
          row["avg_us"].get<double>(), row["avg_us"].get<double>() / best);
      row["x_best"] = row["avg_us"].get<double>() / best;
      doc["confirmation"].push_back(row);
    }
  }
}

SweepBench::SweepBench(const SweepArgs& a) : sweep_args_(a) {
  // Every rank reads the same file and fails alike: a usage error naming the option, before
  // the communicator is made.
  if (!a.model_path.empty()) machine_ = read_machine("--model", a.model_path, true);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

SweepBench::~SweepBench() { MPI_Comm_free(&comm_); }

void SweepBench::add_timing(nlohmann::json& row, std::int64_t bytes,
                            const std::function<void(bool)>& op) const {
  add_times(row, measure::time_iterations(comm_, sweep_args_.timing, op).times_s);
  const double avg = row["avg_us"].get<double>() * 1e-6;
  row["bandwidth_MBps"] = avg > 0 ? static_cast<double>(bytes) / avg / 1e6 : 0.0;
}

long SweepBench::sweep(const std::vector<BenchConfig>& configs,
                       const std::vector<std::int64_t>& sizes,
                       const std::function<std::string(const BenchConfig&)>& header,
                       nlohmann::json& doc) {
  const MeasureRow measure_row = [this](const BenchConfig& c, std::int64_t bytes) {
    return measure(c, bytes);
  };
  const auto measured = measure_sweep(comm_, sweep_args_, configs, sizes, measure_row);
  const long failed = print_tables(
      comm_, configs, sizes, measured, machine_.has_value(), header,
      [this](nlohmann::json& row) { add_prediction(row); }, doc);
  if (rank_ == 0) print_summary(doc["rows"]);
  if (sweep_args_.confirm > 0)
    confirm_fastest(comm_, sweep_args_, configs, sizes, measured, measure_row, doc);
  return failed;
}

// Model accuracy (with --model): per size and per algorithm and policy swept over several
// segment sizes, the segment the model predicts best (the largest within 1% of its best
// prediction, as relay tune's model method takes it) against the fastest measured one
// (vadhiyar2004 Table 2); and the model's choice among every modelled configuration (what
// relay tune --methods model would choose) against the fastest of them. With --model-confirm N,
// each pick and the N fastest beside it are measured again head to head for --confirm-rounds
// rounds and compared round by round, so that the verdict is not the sweep's luckiest row.
void SweepBench::model_accuracy(const std::vector<BenchConfig>& configs,
                                const std::vector<std::int64_t>& sizes, nlohmann::json& doc,
                                const std::function<bool(const BenchConfig&)>& modelled) {
  if (!machine_) return;
  if (doc["rows"].size() != configs.size() * sizes.size()) {
    throw std::logic_error(
        "model_accuracy: expected the sweep's rows, one per configuration and size");
  }
  doc["model_accuracy"] = nlohmann::json::array();
  doc["model_choice"] = nlohmann::json::array();
  const int confirm_n = sweep_args_.model_confirm;
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    struct Curve {
      std::string algorithm, policy;  // "" for the choice among all configurations
      std::vector<int> rows;          // config indices
      int pick = -1, fastest = -1;
      std::vector<int> again;  // config indices measured head to head, the pick first
    };
    std::vector<Curve> curves;
    Curve overall;
    // The rows print_tables combined and costed, configuration-major as measured (the replay
    // is not run a second time).
    const auto& table_rows = doc["rows"];
    auto row = [&](int ci) -> const nlohmann::json& {
      return table_rows[static_cast<std::size_t>(ci) * sizes.size() + si];
    };
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const BenchConfig& c = configs[ci];
      if (!modelled(c) || !row(static_cast<int>(ci)).contains("predicted_us")) continue;
      auto it = std::find_if(curves.begin(), curves.end(), [&](const Curve& k) {
        return k.algorithm == c.algorithm && k.policy == c.policy;
      });
      if (it == curves.end())
        it = curves.insert(curves.end(), Curve{c.algorithm, c.policy, {}, -1, -1, {}});
      it->rows.push_back(static_cast<int>(ci));
      overall.rows.push_back(static_cast<int>(ci));
    }
    auto time = [&](int ci) { return row(ci)["avg_us"].get<double>(); };
    auto pred = [&](int ci) { return row(ci)["predicted_us"].get<double>(); };
    // Unsegmented (0) and segments not below the message are the same largest "segment".
    auto effective = [&](int ci) {
      const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
      return s <= 0 || s >= sizes[si] ? sizes[si] : s;
    };
    auto choose_again = [&](Curve& k) {
      if (confirm_n <= 0) return;
      std::vector<int> by_time = k.rows;
      std::stable_sort(by_time.begin(), by_time.end(),
                       [&](int x, int y) { return time(x) < time(y); });
      k.again.push_back(k.pick);
      for (int ci : by_time) {
        if (static_cast<int>(k.again.size()) > confirm_n) break;
        if (ci != k.pick) k.again.push_back(ci);
      }
    };
    // The choice among all needs two algorithm-policy pairs; a curve needs two segments.
    const bool choice = overall.rows.size() >= 2 && curves.size() >= 2;
    curves.erase(std::remove_if(curves.begin(), curves.end(),
                                [](const Curve& k) { return k.rows.size() < 2; }),
                 curves.end());
    for (auto& k : curves) {
      double best_pred = 1e300;
      for (int ci : k.rows) best_pred = std::min(best_pred, pred(ci));
      for (int ci : k.rows) {
        if (pred(ci) <= best_pred * 1.01 && (k.pick < 0 || effective(ci) > effective(k.pick)))
          k.pick = ci;
        if (k.fastest < 0 || time(ci) < time(k.fastest)) k.fastest = ci;
      }
      choose_again(k);
    }
    // Across algorithms there is no "larger segment" to prefer among near ties: the lowest
    // prediction is the choice, as relay tune's model method makes it.
    if (choice) {
      for (int ci : overall.rows) {
        if (overall.pick < 0 || pred(ci) < pred(overall.pick)) overall.pick = ci;
        if (overall.fastest < 0 || time(ci) < time(overall.fastest)) overall.fastest = ci;
      }
      choose_again(overall);
    }
    std::vector<int> all_again;
    for (const auto& k : curves) all_again.insert(all_again.end(), k.again.begin(), k.again.end());
    all_again.insert(all_again.end(), overall.again.begin(), overall.again.end());
    // Every rank measures the same configurations in the same order (rank 0's lists).
    int n = static_cast<int>(all_again.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm_);
    all_again.resize(static_cast<std::size_t>(n));
    MPI_Bcast(all_again.data(), n, MPI_INT, 0, comm_);
    measure::Progress progress(
        comm_, sweep_args_.quiet, "model confirmation, " + core::format_bytes(sizes[si]) + " ",
        all_again.size() * static_cast<std::size_t>(sweep_args_.confirm_rounds));
    const auto round_times = measure::interleaved_rounds(
        all_again.size(), n > 0 ? sweep_args_.confirm_rounds : 0, 2003, [&](std::size_t i) {
          const double us = measure(configs[static_cast<std::size_t>(all_again[i])], sizes[si])
                                .value("avg_us", 0.0);
          progress.step();
          return us;
        });
    if (rank_ != 0 || (curves.empty() && !choice)) continue;
    std::size_t at = 0;
    auto config_json = [&](int ci) {
      const BenchConfig& c = configs[static_cast<std::size_t>(ci)];
      return nlohmann::json{
          {"algorithm", c.algorithm}, {"policy", c.policy}, {"segment_bytes", c.segment_bytes}};
    };
    // The pick's time relative to the fastest of its head-to-head group, round by round; and
    // the same for the sweep's own fastest (in the group by construction): how well the
    // sweep's measurement itself reproduces, the floor under any pick's figure.
    struct Confirmed {
      double pick = 0, fastest = 0;
    };
    auto confirm = [&](const Curve& k, nlohmann::json& j) -> std::optional<Confirmed> {
      if (k.again.empty()) return std::nullopt;
      std::vector<std::vector<double>> t(
          round_times.begin() + static_cast<long>(at),
          round_times.begin() + static_cast<long>(at + k.again.size()));
      at += k.again.size();
      const auto rel = measure::paired_relative(t).relative;
      const double best = *std::min_element(rel.begin(), rel.end());
      Confirmed c{rel.front() / best, 0};
      nlohmann::json again = nlohmann::json::array();
      for (std::size_t i = 0; i < k.again.size(); ++i) {
        nlohmann::json entry = config_json(k.again[i]);
        entry["relative"] = rel[i] / best;
        entry["round_us"] = t[i];
        again.push_back(entry);
        if (k.again[i] == k.fastest) c.fastest = rel[i] / best;
      }
      if (c.fastest <= 0)
        throw std::logic_error("model_accuracy: the sweep's fastest was not confirmed");
      j["confirmed_x_best"] = c.pick;
      j["fastest_confirmed_x_best"] = c.fastest;
      j["confirmation"] = again;
      return c;
    };
    auto seg_text = [&](int ci) {
      const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
      return s > 0 ? core::format_bytes(s) : std::string("none");
    };
    if (!curves.empty()) {
      std::printf(
          "\n# Model accuracy, %s: per algorithm and policy, the segment the model predicts best "
          "against the fastest measured (x best = the model's pick / the fastest)%s\n",
          core::format_bytes(sizes[si]).c_str(),
          n > 0 ? fmt::format(";\n# confirmed: the pick and the curve's fastest {} measured again "
                              "head to head, {} rounds, compared round by round (Fastest conf. = "
                              "the sweep's fastest "
                              "confirmed the same way: how far the sweep itself reproduces)",
                              confirm_n, sweep_args_.confirm_rounds)
                      .c_str()
                : "");
      std::printf("%-18s %-12s %-13s %12s %12s %-13s %12s %8s%s\n", "# Algorithm", "Policy",
                  "Model's pick", "Predicted", "Measured", "Fastest", "Measured", "x best",
                  n > 0 ? "  Confirmed  Fastest conf." : "");
      for (const auto& k : curves) {
        nlohmann::json j = {
            {"size_bytes", sizes[si]},
            {"algorithm", k.algorithm},
            {"policy", k.policy},
            {"model_segment_bytes", configs[static_cast<std::size_t>(k.pick)].segment_bytes},
            {"model_predicted_us", pred(k.pick)},
            {"model_measured_us", time(k.pick)},
            {"fastest_segment_bytes", configs[static_cast<std::size_t>(k.fastest)].segment_bytes},
            {"fastest_us", time(k.fastest)},
            {"x_best", time(k.pick) / time(k.fastest)}};
        const auto confirmed = confirm(k, j);
        std::printf(
            "%-18s %-12s %-13s %12.2f %12.2f %-13s %12.2f %8.3f%s\n", k.algorithm.c_str(),
            k.policy.c_str(), seg_text(k.pick).c_str(), pred(k.pick), time(k.pick),
            seg_text(k.fastest).c_str(), time(k.fastest), time(k.pick) / time(k.fastest),
            confirmed
                ? fmt::format("  {:9.3f}  {:13.3f}", confirmed->pick, confirmed->fastest).c_str()
                : "");
        doc["model_accuracy"].push_back(j);
      }
    }
    if (!choice) continue;
    auto name = [&](int ci) {
      const BenchConfig& c = configs[static_cast<std::size_t>(ci)];
      return fmt::format("{} {} {}", c.algorithm, c.policy, seg_text(ci));
    };
    nlohmann::json model = config_json(overall.pick), fastest = config_json(overall.fastest);
    model["predicted_us"] = pred(overall.pick);
    model["measured_us"] = time(overall.pick);
    fastest["measured_us"] = time(overall.fastest);
    nlohmann::json j = {{"size_bytes", sizes[si]},
                        {"model", model},
                        {"fastest", fastest},
                        {"x_best", time(overall.pick) / time(overall.fastest)}};
    const auto confirmed = confirm(overall, j);
    std::printf(
        "%s# The model's choice among all %zu configurations: %s, predicted %.2f us, measured %.2f "
        "us; the fastest: %s, "
        "%.2f us; x best %.3f%s\n",
        curves.empty() ? "\n" : "", overall.rows.size(), name(overall.pick).c_str(),
        pred(overall.pick), time(overall.pick), name(overall.fastest).c_str(),
        time(overall.fastest), time(overall.pick) / time(overall.fastest),
        confirmed ? fmt::format(", confirmed {:.3f} (the fastest: {:.3f})", confirmed->pick,
                                confirmed->fastest)
                        .c_str()
                  : "");
    doc["model_choice"].push_back(j);
  }
}

int SweepBench::finish(const nlohmann::json& doc, long failed, const std::string& command,
                       const std::string& script) const {
  const int rc = failed > 0 ? 1 : 0;
  if (rank_ != 0) return rc;
  if (failed > 0) {
    std::fprintf(stderr, "%s: %d configurations failed (ERROR rows above)\n", command.c_str(),
                 static_cast<int>(failed));
  }
  return std::max(
      rc, write_results(doc, sweep_args_.json_path, sweep_args_.plot_path, script, command));
}

}  // namespace relay::cli
