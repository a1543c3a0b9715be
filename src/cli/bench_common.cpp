// What every relay bench sweep shares: option parsing, and the printing of the sweep's tables,
// the summary, the confirmation (measure/sweep) and the model's accuracy (tune/model_accuracy).
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
#include "exec/compute.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"
#include "measure/sweep.hpp"
#include "tune/model_accuracy.hpp"

namespace relay::cli {

void add_sweep_axes(CLI::App* cmd, SweepArgs& a, const std::string& sizes_help,
                    const std::string& algorithms_help) {
  CLI::Option* sizes =
      cmd->add_option("--sizes", a.sizes, sizes_help + kSizesHelpUnits)->capture_default_str();
  cmd->add_option("-m,--message-size", a.osu_sizes,
                  "[MIN:]MAX: the powers of two from MIN (default 1) to MAX bytes, as OSU's -m "
                  "(instead of --sizes)")
      ->excludes(sizes);
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
  relay_coll_options_init(&c.allreduce);
  if (parts == "mpi") {
    relay_bcast_algorithm_from_name("mpi", &c.bcast.algorithm);
    relay_coll_algorithm_from_name(RELAY_COLL_REDUCE, "mpi", &c.reduce.algorithm);
    relay_coll_algorithm_from_name(RELAY_COLL_ALLREDUCE, "mpi", &c.allreduce.algorithm);
  }
  return c;
}

void add_iteration_options(CLI::App* cmd, measure::IterationArgs& t) {
  cmd->add_option("-i,--iterations", t.iterations,
                  "timed iterations (0 = enough for --min-time; with --osu, OSU's 1000, or 100 "
                  "above 8 KiB)")
      ->check(CLI::Range(0, measure::kMaxIterations));
  cmd->add_option("-x,--warmup", t.warmup,
                  "untimed iterations first (with --osu and not given: OSU's 200, or 10 above "
                  "8 KiB)")
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
  cmd->add_flag("--osu", a.osu,
                "time and print as the OSU micro-benchmarks do (osu_bcast, osu_allreduce, ...): "
                "each rank's mean latency over its own calls, Avg/Min/Max over ranks");
  cmd->add_flag("-f,--full", a.full,
                "with --osu, OSU's full table: Min and Max latency and iterations too");
  // Handled before parsing (main.cpp): listed here for --help.
  cmd->add_flag("--cluster",
                "run on the emulated cluster (relay cluster up first): relaunches this command "
                "with relay cluster run, one rank per slot (hang timeout: RELAY_CLUSTER_TIMEOUT, "
                "default 3600 s)");
}

void add_result_options(CLI::App* cmd, ResultArgs& a, const std::string& plot_help) {
  cmd->add_option("--json", a.json_path, "write the rows as JSON here (atomically)");
  cmd->add_option("--plot", a.plot_path,
                  "draw a PNG here" + plot_help + " (needs --json and matplotlib)");
  cmd->add_flag("--quiet", a.quiet, "no progress on stderr");
  // Handled before parsing (main.cpp): listed here for --help.
  cmd->add_flag("--cluster",
                "run on the emulated cluster (relay cluster up first): relaunches this command "
                "with relay cluster run, one rank per slot (hang timeout: RELAY_CLUSTER_TIMEOUT, "
                "default 3600 s)");
}

void grid_shape(const std::string& text, int ranks, int& rows, int& cols) {
  if (!text.empty()) {
    if (std::sscanf(text.c_str(), "%dx%d", &rows, &cols) != 2 || rows < 1 || cols < 1) {
      throw std::invalid_argument("--grid '" + text + "' is not RxC (for example 2x3)");
    }
  } else {
    rows = 1;
    for (int r = 1; r * r <= ranks; ++r) {
      if (ranks % r == 0) rows = r;
    }
    cols = ranks / rows;
  }
  if (rows * cols != ranks) {
    throw std::invalid_argument(fmt::format("--grid {}x{} needs {} ranks; launched with {}", rows,
                                            cols, rows * cols, ranks));
  }
}

MPI_Datatype precision_type(const std::string& precision) {
  if (precision == "s") return MPI_FLOAT;
  if (precision == "d") return MPI_DOUBLE;
  if (precision == "c") return MPI_C_FLOAT_COMPLEX;
  if (precision == "z") return MPI_C_DOUBLE_COMPLEX;
  throw std::invalid_argument("--precision must be s, d, c or z");
}

void check_result_args(const ResultArgs& a) {
  if (!a.plot_path.empty() && a.json_path.empty()) {
    throw CLI::ValidationError("--plot", "needs --json");
  }
}

void check_sweep_args(SweepArgs& a) {
  if (!a.plot_path.empty() && a.json_path.empty()) {
    throw CLI::ValidationError("--plot", "needs --json");
  }
  if (!a.osu_sizes.empty()) {  // OSU's -m [MIN:]MAX: the powers of two from MIN (1) to MAX
    const auto colon = a.osu_sizes.find(':');
    const std::string lo = colon == std::string::npos ? "1" : a.osu_sizes.substr(0, colon);
    const std::string hi = colon == std::string::npos ? a.osu_sizes : a.osu_sizes.substr(colon + 1);
    const auto min_bytes = core::parse_bytes(lo), max_bytes = core::parse_bytes(hi);
    if (!min_bytes || !max_bytes || *min_bytes < 1 || *max_bytes < *min_bytes) {
      throw CLI::ValidationError(
          "-m", "'" + a.osu_sizes + "' is not [MIN:]MAX with 1 <= MIN <= MAX (bytes, as OSU's -m)");
    }
    a.sizes = fmt::format("{}:{}", *min_bytes, *max_bytes);
  }
  if (a.full && !a.osu) throw CLI::ValidationError("-f", "is --osu's full table: add --osu");
}

void add_times(nlohmann::json& row, const std::vector<double>& t) {
  const double avg = std::accumulate(t.begin(), t.end(), 0.0) / static_cast<double>(t.size());
  row["avg_us"] = avg * 1e6;
  row["min_us"] = *std::min_element(t.begin(), t.end()) * 1e6;
  row["max_us"] = *std::max_element(t.begin(), t.end()) * 1e6;
  row["iterations"] = static_cast<int>(t.size());
}

std::unique_ptr<measure::NodeEnergy> bench_energy(MPI_Comm comm) {
  std::unique_ptr<measure::EnergyMeter> meter;
  if (is_simulation()) {
    meter = std::make_unique<measure::NoMeter>("a simulation (relay simulate): no energy counters");
  } else {
    meter = std::make_unique<measure::RaplMeter>(measure::powercap_root());
  }
  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0;
  if (exec::node_comm(comm, &node) != MPI_SUCCESS)
    throw std::runtime_error("bench: the node's ranks could not be found (MPI)");
  MPI_Comm_rank(node, &node_rank);
  MPI_Comm_free(&node);
  MPI_Comm own = MPI_COMM_NULL;
  if (exec::dup_comm(comm, &own) != MPI_SUCCESS)
    throw std::runtime_error("bench: MPI_Comm_dup failed");
  return std::make_unique<measure::NodeEnergy>(own, node_rank == 0, std::move(meter),
                                               &exec::allreduce);
}

MachineCpu::MachineCpu(MPI_Comm comm) : comm_(comm) {
  int readable = 0;
  if (!is_simulation()) {
    MPI_Comm machine = exec::machine_comm(comm);
    int machine_rank = 0;
    MPI_Comm_rank(machine, &machine_rank);
    MPI_Comm_free(&machine);
    unsigned long long busy = 0, total = 0;
    leads_ = machine_rank == 0;
    // Every leader must read, or no figure is a machine's whole.
    readable = leads_ ? (exec::machine_cpu_ticks(busy, total) ? 1 : 0) : 1;
  }
  int all = 0;
  exec::allreduce(&readable, &all, 1, MPI_INT, MPI_MIN, comm);
  available_ = all == 1;
}

void MachineCpu::begin() {
  if (available_ && leads_ && !exec::machine_cpu_ticks(busy_, total_)) busy_ = total_ = 0;
}

double MachineCpu::end() {
  if (!available_) return -1;
  // /proc/stat counts clock ticks (10 ms each on most kernels): a call shorter than a few
  // of them on every CPU has no share worth printing (a 1 ms call read 0%).
  constexpr unsigned long long kFewestTicks = 10;
  double share = -1;
  unsigned long long busy = 0, total = 0;
  if (leads_ && total_ > 0 && exec::machine_cpu_ticks(busy, total) &&
      total >= total_ + kFewestTicks) {
    share = static_cast<double>(busy - busy_) / static_cast<double>(total - total_);
  }
  double most = -1;
  exec::allreduce(&share, &most, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return most;
}

void cpu_to_row(nlohmann::json& row, const std::vector<double>& shares) {
  if (shares.empty()) return;
  const double share = measure::median(shares);
  if (share >= 0) row["machine_cpu_busy"] = share;
}

std::string cpu_cell(const nlohmann::json& row) {
  return row.contains("machine_cpu_busy")
             ? fmt::format("{:.0f}%", 100 * row["machine_cpu_busy"].get<double>())
             : std::string("-");
}

namespace {

constexpr const char* kEnergyFields[] = {"energy_package_J", "energy_dram_J", "power_package_W",
                                         "power_dram_W"};

}  // namespace

std::string energy_titles() {
  return fmt::format(" {:>11} {:>11} {:>11} {:>11}", "Pkg(J)", "DRAM(J)", "Pkg(W)", "DRAM(W)");
}

std::string energy_cells(const nlohmann::json& row) {
  std::string out;
  for (const char* f : kEnergyFields) {
    const auto it = row.find(f);
    out += fmt::format(" {:>11}", it != row.end() && it->is_number()
                                      ? fmt::format("{:.4g}", it->get<double>())
                                      : std::string("unavailable"));
  }
  return out;
}

std::string energy_note(const measure::NodeEnergy& energy, const std::string& per) {
  std::string out = fmt::format(
      "# energy: {}, summed over {} node{}; Pkg(J), DRAM(J): joules {}; Pkg(W), DRAM(W): "
      "average watts",
      energy.describe(), energy.nodes(), energy.nodes() == 1 ? "" : "s", per);
  const std::string& package = energy.first_unavailable(measure::EnergyDomain::package);
  const std::string& dram = energy.first_unavailable(measure::EnergyDomain::dram);
  if (!package.empty() && package == dram) return out + ";\n#   unavailable: " + package;
  if (!package.empty()) out += ";\n#   package unavailable: " + package;
  if (!dram.empty()) out += ";\n#   dram unavailable: " + dram;
  return out;
}

nlohmann::json energy_document(const measure::NodeEnergy& energy, const std::string& per) {
  nlohmann::json unavailable;
  for (measure::EnergyDomain d : measure::kAllEnergyDomains) {
    const std::string& why = energy.first_unavailable(d);
    unavailable[std::string(measure::to_string(d))] =
        why.empty() ? nlohmann::json(nullptr) : nlohmann::json(why);
  }
  return {{"meter", energy.describe()},
          {"nodes", energy.nodes()},
          {"per", per},
          {"unavailable", unavailable}};
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

long print_tables(MPI_Comm comm, const SweepArgs& a, const std::vector<BenchConfig>& configs,
                  const std::vector<std::int64_t>& sizes,
                  const std::vector<std::vector<nlohmann::json>>& measured, bool with_model,
                  const std::function<std::string(const BenchConfig&)>& header,
                  const std::function<void(nlohmann::json&)>& add_prediction, nlohmann::json& doc) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0 && !a.osu) {
    std::printf(
        "# Avg/Min/Max(us): every timed call starts after a barrier and is timed as the slowest "
        "rank's time;\n# Avg is the mean over the timed calls, Min and Max the fastest and "
        "slowest call (OSU's Avg/Min/Max\n# are over ranks of each rank's mean: --osu)\n");
  }
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    if (rank == 0 && a.osu) {
      // osu_bcast's columns and meaning (osu_util: "%-*d%*.*f" and, with -f, min, max, iters).
      std::printf(
          "%s\n# OSU-style (--osu): each rank's mean latency over its own calls; Avg "
          "over ranks, Min and Max of them\n",
          header(configs[ci]).c_str());
      std::printf("%-10s%18s%s\n", "# Size", "Avg Latency(us)",
                  a.full ? "   Min Latency(us)   Max Latency(us)  Iterations" : "");
    } else if (rank == 0) {
      std::printf("%s\n", header(configs[ci]).c_str());
      std::printf("%-12s %12s %12s %12s %11s %10s%s%s\n", "# Size", "Avg(us)", "Min(us)", "Max(us)",
                  "Iterations", "MB/s", energy_titles().c_str(),
                  with_model ? "    Model(us) Model/meas" : "");
    }
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      nlohmann::json row = measure::combine_rounds(measured[ci * sizes.size() + si]);
      add_prediction(row);
      const auto bytes = sizes[si];
      doc["rows"].push_back(row);
      if (rank != 0) continue;
      if (row.contains("error")) {
        std::printf("%-12lld ERROR: %s\n", static_cast<long long>(bytes),
                    row["error"].get<std::string>().c_str());
        continue;
      }
      if (a.osu) {
        std::printf("%-10lld%18.2f", static_cast<long long>(bytes), row["avg_us"].get<double>());
        if (a.full) {
          std::printf("%18.2f%18.2f%12d", row["min_us"].get<double>(), row["max_us"].get<double>(),
                      row["iterations"].get<int>());
        }
        std::printf("\n");
        continue;
      }
      std::printf("%-12lld %12.2f %12.2f %12.2f %11d %10.2f", static_cast<long long>(bytes),
                  row["avg_us"].get<double>(), row["min_us"].get<double>(),
                  row["max_us"].get<double>(), row["iterations"].get<int>(),
                  row["bandwidth_MBps"].get<double>());
      std::printf("%s", energy_cells(row).c_str());
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

void confirm_fastest(MPI_Comm comm, const SweepArgs& a, const std::vector<BenchConfig>& configs,
                     const std::vector<std::int64_t>& sizes,
                     const std::vector<std::vector<nlohmann::json>>& measured,
                     const MeasureRow& measure, nlohmann::json& doc) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  doc["confirmation"] = nlohmann::json::array();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    std::vector<nlohmann::json> sweep_rows;
    for (std::size_t ci = 0; ci < configs.size(); ++ci)
      sweep_rows.push_back(measure::combine_rounds(measured[ci * sizes.size() + si]));
    const measure::Confirmation confirmed = measure::confirm_fastest(
        comm, a.confirm, a.confirm_rounds, a.quiet, configs, sizes[si], sweep_rows, measure);
    if (rank != 0) continue;
    std::printf("\n# Confirmation, %s: the sweep's fastest %d%s measured again, %d rounds\n",
                core::format_bytes(sizes[si]).c_str(), a.confirm,
                confirmed.includes_auto ? " and auto" : "", a.confirm_rounds);
    std::printf(
        "# Confirmed = median over rounds of the time / the round's median over these rows,\n"
        "# times the median round (a drift between rounds slows all rows of a round alike)\n");
    std::printf("%-18s %-12s %-9s %12s %14s %8s\n", "# Algorithm", "Policy", "Segment", "Sweep(us)",
                "Confirmed(us)", "x best");
    for (const auto& row : confirmed.rows) {
      if (!row.contains("x_best")) continue;
      const auto seg = row["segment_bytes"].get<std::int64_t>();
      std::printf(
          "%-18s %-12s %-9s %12.2f %14.2f %8.3f\n", row["algorithm"].get<std::string>().c_str(),
          row["policy"].get<std::string>().c_str(),
          seg > 0 ? core::format_bytes(seg).c_str() : "none", row["sweep_avg_us"].get<double>(),
          row["avg_us"].get<double>(), row["x_best"].get<double>());
      doc["confirmation"].push_back(row);
    }
  }
}

SweepBench::SweepBench(const SweepArgs& a) : sweep_args_(a) {
  // Every rank reads the same file and fails alike: a usage error naming the option, before
  // the communicator is made.
  if (!a.model_path.empty()) machine_ = read_machine("--model", a.model_path, true);
  if (exec::dup_comm(MPI_COMM_WORLD, &comm_) != MPI_SUCCESS) {
    throw std::runtime_error("bench: MPI_Comm_dup failed");
  }
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  energy_ = bench_energy(comm_);
}

SweepBench::~SweepBench() {
  energy_.reset();  // frees its duplicate of comm_ first
  MPI_Comm_free(&comm_);
}

void SweepBench::add_energy(nlohmann::json& row, long calls) const {
  const measure::RegionEnergy region = energy_->result();
  measure::EnergyTotal total;
  total.add(region.joules, region.seconds, calls);
  total.to_row(row);
}

void SweepBench::add_timing(nlohmann::json& row, std::int64_t bytes,
                            const std::function<void(bool)>& op) const {
  if (sweep_args_.osu) {  // OSU's timing, counts and meaning (measure::time_osu)
    const bool large = bytes > measure::kOsuLargeMessageBytes;
    const auto& t = sweep_args_.timing;
    const int iterations = t.iterations > 0 ? t.iterations
                           : large          ? measure::kOsuIterationsLarge
                                            : measure::kOsuIterations;
    const int warmup = sweep_args_.warmup_given ? t.warmup
                       : large                  ? measure::kOsuWarmupLarge
                                                : measure::kOsuWarmup;
    const measure::OsuLatency l = measure::time_osu(
        comm_, iterations, warmup, [&op] { op(true); }, energy_.get());
    add_energy(row, l.iterations);
    row["timing"] = "osu";
    row["avg_us"] = l.avg_us;
    row["min_us"] = l.min_us;
    row["max_us"] = l.max_us;
    row["iterations"] = l.iterations;
    row["bandwidth_MBps"] = l.avg_us > 0 ? static_cast<double>(bytes) / l.avg_us : 0.0;
    return;
  }
  const measure::Timed timed =
      measure::time_iterations(comm_, sweep_args_.timing, op, nullptr, energy_.get());
  add_times(row, timed.times_s);
  add_energy(row, static_cast<long>(timed.times_s.size()));
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
  const auto measured = measure::measure_sweep(comm_, sweep_args_.rounds, sweep_args_.quiet,
                                               configs, sizes, measure_row);
  const std::string per =
      sweep_args_.osu ? "per call (in the JSON: --osu prints OSU's columns)" : "per call";
  if (rank_ == 0) std::printf("%s\n", energy_note(*energy_, per).c_str());
  doc["energy"] = energy_document(*energy_, per);
  const long failed = print_tables(
      comm_, sweep_args_, configs, sizes, measured, machine_.has_value(), header,
      [this](nlohmann::json& row) { add_prediction(row); }, doc);
  if (rank_ == 0) print_summary(doc["rows"]);
  if (sweep_args_.confirm > 0)
    confirm_fastest(comm_, sweep_args_, configs, sizes, measured, measure_row, doc);
  return failed;
}

// Model accuracy (with --model): per size, the model's picks judged on the sweep's rows
// (tune::judge_model), printed and recorded.
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
  const MeasureRow measure_row = [this](const BenchConfig& c, std::int64_t bytes) {
    return measure(c, bytes);
  };
  std::vector<bool> judged;
  for (const auto& c : configs) judged.push_back(modelled(c));
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    // The rows print_tables combined and costed, configuration-major as measured (the replay
    // is not run a second time).
    std::vector<nlohmann::json> rows;
    for (std::size_t ci = 0; ci < configs.size(); ++ci)
      rows.push_back(doc["rows"][ci * sizes.size() + si]);
    const tune::ModelAccuracy judged_size =
        tune::judge_model(comm_, configs, sizes[si], rows, judged, confirm_n,
                          sweep_args_.confirm_rounds, sweep_args_.quiet, measure_row);
    const auto& curves = judged_size.curves;
    if (rank_ != 0 || (curves.empty() && !judged_size.has_choice)) continue;
    auto time = [&](int ci) { return rows[static_cast<std::size_t>(ci)]["avg_us"].get<double>(); };
    auto pred = [&](int ci) {
      return rows[static_cast<std::size_t>(ci)]["predicted_us"].get<double>();
    };
    auto config_json = [&](int ci) {
      const BenchConfig& c = configs[static_cast<std::size_t>(ci)];
      return nlohmann::json{
          {"algorithm", c.algorithm}, {"policy", c.policy}, {"segment_bytes", c.segment_bytes}};
    };
    auto seg_text = [&](int ci) {
      const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
      return s > 0 ? core::format_bytes(s) : std::string("none");
    };
    auto add_confirmation = [](const tune::ModelPick& k, nlohmann::json& j) {
      if (k.again.empty()) return;
      j["confirmed_x_best"] = k.confirmed_x_best;
      j["fastest_confirmed_x_best"] = k.fastest_confirmed_x_best;
      j["confirmation"] = k.confirmation;
    };
    const bool confirming = confirm_n > 0;
    if (!curves.empty()) {
      std::printf(
          "\n# Model accuracy, %s: per algorithm and policy, the segment the model predicts best "
          "against the fastest measured (x best = the model's pick / the fastest)%s\n",
          core::format_bytes(sizes[si]).c_str(),
          confirming
              ? fmt::format(";\n# confirmed: the pick and the curve's fastest {} measured again "
                            "head to head, {} rounds, compared round by round (Fastest conf. = "
                            "the sweep's fastest "
                            "confirmed the same way: how far the sweep itself reproduces)",
                            confirm_n, sweep_args_.confirm_rounds)
                    .c_str()
              : "");
      std::printf("%-18s %-12s %-13s %12s %12s %-13s %12s %8s%s\n", "# Algorithm", "Policy",
                  "Model's pick", "Predicted", "Measured", "Fastest", "Measured", "x best",
                  confirming ? "  Confirmed  Fastest conf." : "");
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
        add_confirmation(k, j);
        std::printf("%-18s %-12s %-13s %12.2f %12.2f %-13s %12.2f %8.3f%s\n", k.algorithm.c_str(),
                    k.policy.c_str(), seg_text(k.pick).c_str(), pred(k.pick), time(k.pick),
                    seg_text(k.fastest).c_str(), time(k.fastest), time(k.pick) / time(k.fastest),
                    !k.again.empty() ? fmt::format("  {:9.3f}  {:13.3f}", k.confirmed_x_best,
                                                   k.fastest_confirmed_x_best)
                                           .c_str()
                                     : "");
        doc["model_accuracy"].push_back(j);
      }
    }
    if (!judged_size.has_choice) continue;
    const tune::ModelPick& overall = judged_size.choice;
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
    add_confirmation(overall, j);
    std::printf(
        "%s# The model's choice among all %zu configurations: %s, predicted %.2f us, measured %.2f "
        "us; the fastest: %s, "
        "%.2f us; x best %.3f%s\n",
        curves.empty() ? "\n" : "", overall.configs.size(), name(overall.pick).c_str(),
        pred(overall.pick), time(overall.pick), name(overall.fastest).c_str(),
        time(overall.fastest), time(overall.pick) / time(overall.fastest),
        !overall.again.empty()
            ? fmt::format(", confirmed {:.3f} (the fastest: {:.3f})", overall.confirmed_x_best,
                          overall.fastest_confirmed_x_best)
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
