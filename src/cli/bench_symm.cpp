// relay bench symm: huang2018's SymmSquareCube benchmark (their Tables I-III): Algorithm 4
// (baseline, blocking collectives) against Algorithm 5 (n_dup overlapped parts) on a p x p x p
// mesh, each with MPI's and relay's collectives, the time split into the local multiplications
// and the three communication phases. Repetitions are interleaved (every configuration once,
// then again), medians reported; every configuration is checked once against a matrix whose
// square and cube are known in closed form before it is timed.
#include <mpi.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/cli11.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "exec/compute.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"
#include "relay/overlap.h"
#include "relay/symm.h"

namespace relay::cli {
namespace {

struct Args : ResultArgs {
  std::string sizes = "1024";
  std::string algorithms;  // empty: baseline,overlap on a cube, cannon on a layered mesh
  std::string n_dups = "1,2,4,8";
  std::string parts = "mpi,relay";
  std::string in_flight = "2";
  std::string precision = "d";
  int reps = 3;
  int ranks_per_node = 1;
  int layers = 0;  // c of a q x q x c mesh; 0: the p x p x p cube
};

struct Config {
  std::string algorithm;  // baseline, overlap, cannon
  std::string parts;      // mpi, relay
  int n_dup = 1;
  int in_flight = 0;  // overlap: parts sent at once (relay_symm_options_t.parts_in_flight)
};

std::string label(const Config& c) {
  if (c.algorithm == "baseline") return fmt::format("baseline {}", c.parts);
  if (c.algorithm == "cannon") return fmt::format("cannon {} n_dup={}", c.parts, c.n_dup);
  return fmt::format("overlap {} n_dup={} in_flight={}", c.parts, c.n_dup, c.in_flight);
}

// D = a I + b u u^T with u a unit vector of varying entries: D^2 = a^2 I + (2ab + b^2) u u^T
// and D^3 = a^3 I + (3a^2 b + 3ab^2 + b^3) u u^T, known at every entry without a reference
// product. Every block holds different values, so a misplaced block is seen.
struct Known {
  double a = 0.6, b = 0.5, norm = 1;
  long long n;
  explicit Known(long long size) : n(size) {
    double s = 0;
    for (long long g = 0; g < n; ++g) s += raw(g) * raw(g);
    norm = std::sqrt(s);
  }
  static double raw(long long g) { return 1.0 + 0.5 * std::sin(0.7 * static_cast<double>(g)); }
  double u(long long g) const { return raw(g) / norm; }
  double d(long long r, long long c) const { return (r == c ? a : 0.0) + b * u(r) * u(c); }
  double d2(long long r, long long c) const {
    return (r == c ? a * a : 0.0) + (2 * a * b + b * b) * u(r) * u(c);
  }
  double d3(long long r, long long c) const {
    return (r == c ? a * a * a : 0.0) + (3 * a * a * b + 3 * a * b * b + b * b * b) * u(r) * u(c);
  }
};

class Bench {
 public:
  explicit Bench(const Args& a) : a_(a) {
    MPI_Comm_dup(MPI_COMM_WORLD, &world_);
    MPI_Comm_rank(world_, &rank_);
    MPI_Comm_size(world_, &size_);
    cpu_ = std::make_unique<MachineCpu>(world_);
    // huang2018 Table III fills ceil(p^3 / PPN) nodes, the last one partly (125 ranks on 63
    // nodes of 2): K need not divide the ranks, only not exceed them.
    if (a.ranks_per_node < 1 || a.ranks_per_node > size_) {
      throw std::invalid_argument(fmt::format(
          "--ranks-per-node {} must be between 1 and the {} ranks", a.ranks_per_node, size_));
    }
    if (a.layers > 0) {
      int q = 1;
      while ((q + 1) * (q + 1) * a.layers <= size_) ++q;
      if (q * q * a.layers != size_) {
        throw std::invalid_argument(
            fmt::format("--layers {}: {} ranks are not q x q x {} for any q (q^2 {} ranks)",
                        a.layers, size_, a.layers, a.layers));
      }
      if (relay_mesh_create_layered(world_, q, a.layers, &mesh_) != RELAY_SUCCESS) {
        throw std::runtime_error(relay_last_error());
      }
    } else if (relay_mesh_create(world_, 0, &mesh_) != RELAY_SUCCESS) {
      throw std::invalid_argument(fmt::format(
          "relay bench symm runs on a p x p x p mesh: {} ranks are not a cube (1, 8, 27, 64, "
          "...); --layers C runs Algorithm 6 on a q x q x C mesh",
          size_));
    }
    relay_mesh_info(mesh_, &p_, &i_, &j_, &k_);
    relay_mesh_layers(mesh_, &c_);
    single_ = a.precision == "s";
  }
  ~Bench() {
    relay_mesh_free(&mesh_);
    MPI_Comm_free(&world_);
  }
  int run();

 private:
  template <class T>
  nlohmann::json run_size(long long n, const std::vector<Config>& configs,
                          measure::Progress& progress);
  template <class T>
  relay_status_t call(long long n, const Config& c, const T* d, T* d2, T* d3, long long ld,
                      relay_symm_stats_t& stats) const;

  const Args& a_;
  MPI_Comm world_ = MPI_COMM_NULL;
  std::unique_ptr<MachineCpu> cpu_;  // one reader per machine (bench_common.hpp)
  relay_mesh_t mesh_ = RELAY_MESH_NULL;
  int rank_ = 0, size_ = 1, p_ = 1, i_ = 0, j_ = 0, k_ = 0, c_ = 1;
  bool single_ = false;
};

template <class T>
relay_status_t Bench::call(long long n, const Config& c, const T* d, T* d2, T* d3, long long ld,
                           relay_symm_stats_t& stats) const {
  const SymmCollectives collectives = symm_collectives(c.parts);
  relay_symm_options_t o;
  relay_symm_options_init(&o);
  o.algorithm = c.algorithm == "baseline" ? RELAY_SYMM_BASELINE
                : c.algorithm == "cannon" ? RELAY_SYMM_CANNON
                                          : RELAY_SYMM_OVERLAP;
  o.n_dup = c.n_dup;
  o.parts_in_flight = c.in_flight;
  o.bcast = &collectives.bcast;
  o.reduce = &collectives.reduce;
  o.allreduce = &collectives.allreduce;
  o.check_symmetry = 0;  // checked once per size, outside the timings
  return relay_symm_square_cube(mesh_, n, single_ ? MPI_FLOAT : MPI_DOUBLE, d, ld, d2, ld, d3, ld,
                                &o, &stats);
}

template <class T>
nlohmann::json Bench::run_size(long long n, const std::vector<Config>& configs,
                               measure::Progress& progress) {
  long long r0 = 0, rows = 0, c0 = 0, cols = 0;
  relay_mesh_block(n, p_, i_, &r0, &rows);
  relay_mesh_block(n, p_, j_, &c0, &cols);
  const long long ld = std::max(1LL, rows);
  const auto elems = static_cast<std::size_t>(k_ == 0 ? ld * std::max(1LL, cols) : 1);
  const double side = static_cast<double>((n + p_ - 1) / p_);
  // The caller's three blocks and the call's own (at most six of the largest block).
  require_memory(world_, (3.0 * static_cast<double>(elems) + 6.0 * side * side) * sizeof(T),
                 fmt::format("relay bench symm, n = {}", n));
  exec::DataVector<T> d(elems), d2(elems), d3(elems);
  const bool charged = exec::compute_is_charged();
  const Known known(n);
  if (k_ == 0 && !charged) {
    for (long long c = 0; c < cols; ++c) {
      for (long long r = 0; r < rows; ++r) {
        d[static_cast<std::size_t>(c * ld + r)] = static_cast<T>(known.d(r0 + r, c0 + c));
      }
    }
  }
  // The symmetry check once (the timed calls skip it), then each configuration checked.
  nlohmann::json rows_json = nlohmann::json::array();
  std::vector<bool> ok(configs.size(), true);
  std::vector<std::string> errors(configs.size());
  const double tolerance = single_ ? 1e-4 : 1e-10;
  // (Under simulation with computations charged the values are not real: nothing to check.)
  for (std::size_t x = 0; x < configs.size() && !charged; ++x) {
    relay_symm_stats_t stats{};
    relay_status_t st = call<T>(n, configs[x], d.data(), d2.data(), d3.data(), ld, stats);
    double worst = 0;
    if (st == RELAY_SUCCESS && k_ == 0) {
      for (long long c = 0; c < cols; ++c) {
        for (long long r = 0; r < rows; ++r) {
          const auto l = static_cast<std::size_t>(c * ld + r);
          worst = std::max(worst, std::fabs(static_cast<double>(d2[l]) - known.d2(r0 + r, c0 + c)));
          worst = std::max(worst, std::fabs(static_cast<double>(d3[l]) - known.d3(r0 + r, c0 + c)));
        }
      }
    }
    double all_worst = 0;
    int failed = st != RELAY_SUCCESS ? 1 : 0, any_failed = 0;
    exec::allreduce(&worst, &all_worst, 1, MPI_DOUBLE, MPI_MAX, world_);
    exec::allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, world_);
    if (any_failed) {
      ok[x] = false;
      errors[x] = failed ? relay_last_error() : "failed on another rank";
    } else if (!(all_worst <= tolerance)) {
      ok[x] = false;
      errors[x] = fmt::format("D^2 or D^3 off by {:.3g} (tolerance {:.1g})", all_worst, tolerance);
    }
  }
  // Interleaved repetitions: every configuration once per round.
  std::vector<std::vector<relay_symm_stats_t>> runs(configs.size());
  std::vector<std::vector<double>> cpu(configs.size());  // the busiest machine's CPU share
  for (int rep = 0; rep < a_.reps; ++rep) {
    for (std::size_t x = 0; x < configs.size(); ++x) {
      if (!ok[x]) continue;
      relay_symm_stats_t stats{};
      cpu_->begin();
      MPI_Barrier(world_);
      const relay_status_t st = call<T>(n, configs[x], d.data(), d2.data(), d3.data(), ld, stats);
      int failed = st != RELAY_SUCCESS ? 1 : 0, any = 0;
      exec::allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, world_);
      if (any) {
        ok[x] = false;
        errors[x] = failed ? relay_last_error() : "failed on another rank";
        continue;
      }
      // The call's time is the slowest process's; its split the mean over processes (the
      // slowest of each part would not add up: a process waiting in one phase for another's
      // multiplication shows it in that phase).
      double mine[5] = {stats.total_s, stats.compute_s, stats.distribute_s, stats.square_s,
                        stats.cube_s};
      double sum[5];
      double most = 0;
      exec::allreduce(mine, sum, 5, MPI_DOUBLE, MPI_SUM, world_);
      exec::allreduce(&stats.total_s, &most, 1, MPI_DOUBLE, MPI_MAX, world_);
      relay_symm_stats_t kept{};
      kept.total_s = most;
      kept.compute_s = sum[1] / size_;
      kept.distribute_s = sum[2] / size_;
      kept.square_s = sum[3] / size_;
      kept.cube_s = sum[4] / size_;
      runs[x].push_back(kept);
      cpu[x].push_back(cpu_->end());
      progress.step(fmt::format("n={} {} (repetition {})", n, label(configs[x]), rep + 1));
    }
  }
  const double flops =
      4.0 * static_cast<double>(n) * static_cast<double>(n) * static_cast<double>(n);
  for (std::size_t x = 0; x < configs.size(); ++x) {
    nlohmann::json row = {{"n", n},
                          {"mesh", fmt::format("{}x{}x{}", p_, p_, c_)},
                          {"ranks", size_},
                          {"ranks_per_node", a_.ranks_per_node},
                          {"nodes", (size_ + a_.ranks_per_node - 1) / a_.ranks_per_node},
                          {"algorithm", configs[x].algorithm},
                          {"parts", configs[x].parts},
                          {"n_dup", configs[x].n_dup},
                          {"parts_in_flight", configs[x].in_flight},
                          {"precision", a_.precision}};
    if (!ok[x]) {
      row["error"] = errors[x];
      rows_json.push_back(row);
      continue;
    }
    auto median = [&](double relay_symm_stats_t::*field) {
      std::vector<double> v;
      for (const auto& s : runs[x]) v.push_back(s.*field);
      return measure::median(v);
    };
    const double t = median(&relay_symm_stats_t::total_s);
    row["time_s"] = t;
    row["gflops"] = t > 0 ? flops / t * 1e-9 : 0.0;
    row["compute_s"] = median(&relay_symm_stats_t::compute_s);
    row["distribute_s"] = median(&relay_symm_stats_t::distribute_s);
    row["square_s"] = median(&relay_symm_stats_t::square_s);
    row["cube_s"] = median(&relay_symm_stats_t::cube_s);
    std::vector<double> all;
    for (const auto& s : runs[x]) all.push_back(s.total_s);
    row["times_s"] = all;
    cpu_to_row(row, cpu[x]);
    rows_json.push_back(row);
  }
  // Speed-up over the baseline with the same collectives.
  for (auto& row : rows_json) {
    if (!row.contains("time_s")) continue;
    for (const auto& base : rows_json) {
      if (base["algorithm"] == "baseline" && base["parts"] == row["parts"] &&
          base.contains("time_s")) {
        row["x_baseline"] = base["time_s"].get<double>() / row["time_s"].get<double>();
      }
    }
  }
  return rows_json;
}

int Bench::run() {
  const auto sizes = parse_int_list(a_.sizes, 1, std::numeric_limits<int>::max(), "--n value");
  const bool cube = c_ == p_;
  // "all" on a layered mesh is what runs there: cannon.
  const std::string names = a_.algorithms.empty() ? (cube ? "baseline,overlap" : "cannon")
                            : (!cube && a_.algorithms == "all") ? "cannon"
                                                                : a_.algorithms;
  const auto algorithms = parse_name_list(names, {"baseline", "overlap", "cannon"}, "algorithm");
  for (const auto& al : algorithms) {
    if (!cube && al != "cannon") {
      throw std::invalid_argument(fmt::format(
          "--algorithms {}: {} needs a p x p x p mesh; this one is {}x{}x{} (only cannon runs on "
          "it)",
          names, al, p_, p_, c_));
    }
    if (al == "cannon" && p_ % c_ != 0) {
      throw std::invalid_argument(fmt::format(
          "cannon needs the layers to divide the layer's side: the mesh is {}x{}x{}", p_, p_, c_));
    }
  }
  const auto parts = parse_name_list(a_.parts, {"mpi", "relay"}, "kind of collectives");
  const auto n_dups = parse_int_list(a_.n_dups, 1, RELAY_OVERLAP_MAX_DUP, "--n-dup value");
  const auto in_flights =
      parse_int_list(a_.in_flight, 1, RELAY_OVERLAP_MAX_DUP, "--in-flight value");
  std::vector<Config> configs;
  for (const auto& pt : parts) {
    for (const auto& al : algorithms) {
      if (al == "baseline") {
        configs.push_back({al, pt, 1, 0});
      } else if (al == "cannon") {
        for (int d : n_dups) configs.push_back({al, pt, d, 0});
      } else {
        for (int d : n_dups) {
          std::vector<int> seen;  // a window of n_dup or more is "all at once": one row
          for (int w : in_flights) {
            const int effective = std::min(w, d);
            if (std::find(seen.begin(), seen.end(), effective) != seen.end()) continue;
            seen.push_back(effective);
            configs.push_back({al, pt, d, effective});
          }
        }
      }
    }
  }
  nlohmann::json doc = {{"schema", "relay.bench.symm/1"}, {"machine", machine_description(world_)}};
  doc["mesh"] = fmt::format("{}x{}x{}", p_, p_, c_);
  doc["ranks_per_node"] = a_.ranks_per_node;
  doc["simulated_compute"] = exec::compute_is_charged();
  doc["rows"] = nlohmann::json::array();
  measure::Progress progress(world_, a_.quiet, "",
                             sizes.size() * configs.size() * static_cast<std::size_t>(a_.reps));
  int failed = 0;
  for (const long long n : sizes) {
    const nlohmann::json rows =
        single_ ? run_size<float>(n, configs, progress) : run_size<double>(n, configs, progress);
    for (const auto& r : rows) {
      doc["rows"].push_back(r);
      if (r.contains("error")) ++failed;
    }
  }
  progress.end_line();
  if (rank_ != 0) return failed > 0 ? 1 : 0;
  std::printf(
      "# SymmSquareCube (huang2018): D^2 and D^3 on a %dx%dx%d mesh, %d ranks (%d per node), "
      "precision %s, %d repetitions interleaved, medians; seconds: the call's time is "
      "the slowest process's, its split the mean over processes\n",
      p_, p_, c_, size_, a_.ranks_per_node, a_.precision.c_str(), a_.reps);
  std::printf(
      "# distribute = D down the fibers and along the rows; square = D^2 reduced and "
      "broadcast; cube = D^3 reduced, D^2 and D^3 returned; x_base = the baseline with "
      "the same collectives / this; flight = overlap's parts sent at once; cpu%% = the busiest "
      "machine's CPUs busy during the call (/proc/stat; a polling wait counts as busy)\n"
      "# cannon (Algorithm 6): distribute = D down the fibers and the skew; square = the "
      "Cannon steps' waits and D^2's allreduce; cube = the second skew, steps' waits and D^3's "
      "reduction\n");
  std::printf("%-7s %-9s %-6s %5s %6s %10s %9s %10s %12s %10s %10s %7s %5s\n", "n", "algorithm",
              "parts", "n_dup", "flight", "time_s", "GFLOP/s", "compute_s", "distribute_s",
              "square_s", "cube_s", "x_base", "cpu%");
  for (const auto& r : doc["rows"]) {
    if (r.contains("error")) {
      std::printf("%-7lld %-9s %-6s %5d %6d ERROR: %s\n", r["n"].get<long long>(),
                  r["algorithm"].get<std::string>().c_str(), r["parts"].get<std::string>().c_str(),
                  r["n_dup"].get<int>(), r["parts_in_flight"].get<int>(),
                  r["error"].get<std::string>().c_str());
      continue;
    }
    std::printf(
        "%-7lld %-9s %-6s %5d %6s %10.4f %9.2f %10.4f %12.4f %10.4f %10.4f %7s %5s\n",
        r["n"].get<long long>(), r["algorithm"].get<std::string>().c_str(),
        r["parts"].get<std::string>().c_str(), r["n_dup"].get<int>(),
        r["algorithm"] != "overlap" ? "-" : std::to_string(r["parts_in_flight"].get<int>()).c_str(),
        r["time_s"].get<double>(), r["gflops"].get<double>(), r["compute_s"].get<double>(),
        r["distribute_s"].get<double>(), r["square_s"].get<double>(), r["cube_s"].get<double>(),
        r.contains("x_baseline") ? fmt::format("{:.3f}", r["x_baseline"].get<double>()).c_str()
                                 : "-",
        cpu_cell(r).c_str());
  }
  std::fflush(stdout);
  if (failed > 0) std::fprintf(stderr, "relay bench symm: %d rows failed (ERROR above)\n", failed);
  const int written = write_results(doc, a_.json_path, a_.plot_path, "symm.py", "relay bench symm");
  return std::max(failed > 0 ? 1 : 0, written);
}

}  // namespace

void add_bench_symm(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand(
      "symm",
      "SymmSquareCube (huang2018): D^2 and D^3 on a p x p x p mesh (baseline vs overlap) or a "
      "q x q x c mesh (2.5D with Cannon steps)");
  cmd->footer(
      "Run under mpirun on a cube of ranks (8, 27, 64, ...), one BLAS thread per rank:\n"
      "  mpirun -np 8 relay bench symm --n 2048 --n-dup 1,2,4,8\n"
      "On the emulated cluster (8 nodes, huang2018 Table I's setting at 250 Mbit/s):\n"
      "  relay cluster up --nodes 8 --rate 250mbit\n"
      "  relay bench symm --n 4096 --cluster\n"
      "Rows: baseline = huang2018 Algorithm 4 (blocking collectives one after the other);\n"
      "overlap = Algorithm 5 (every block in n_dup parts, each on its own duplicated\n"
      "communicators, forwarded part by part); cannon = Algorithm 6 (2.5D: q / c Cannon\n"
      "steps per layer, the fiber collectives in n_dup parts), on the cube or, with\n"
      "--layers C, on a q x q x C mesh (mpirun -np 18 relay bench symm --layers 2 --n 2048).\n"
      "parts: mpi = MPI_Bcast/MPI_Reduce/MPI_Allreduce and their\n"
      "nonblocking forms, relay = relay's schedules (auto). GFLOP/s counts 4 n^3 flops.\n"
      "With K ranks per node (relay cluster up --ranks-per-node K) pass --ranks-per-node K:\n"
      "huang2018's multiple-PPN overlap (their Table III) is the same mesh over fewer nodes.\n"
      "Memory per rank: about 9 (n / p)^2 elements on the plane k = 0, 6 elsewhere.");
  cmd->add_option("--n", args->sizes, "matrix sizes n, comma-separated")->capture_default_str();
  cmd->add_option("--algorithms", args->algorithms,
                  "baseline, overlap, cannon, or all (default: baseline,overlap on a cube, cannon "
                  "on a layered mesh)");
  cmd->add_option("--layers", args->layers,
                  "C: a q x q x C mesh (q^2 C ranks, C dividing q) for cannon; 0 = the p x p x p "
                  "cube")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--n-dup", args->n_dups, "overlap's and cannon's part counts (1..64)")
      ->capture_default_str();
  cmd->add_option("--parts", args->parts, "collectives: mpi, relay, or all")->capture_default_str();
  cmd->add_option("--in-flight", args->in_flight,
                  "overlap: parts a process sends at once, comma-separated (n_dup or more = all "
                  "at once, as huang2018)")
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "d or s")
      ->check(CLI::IsMember({"s", "d"}))
      ->capture_default_str();
  cmd->add_option("--reps", args->reps, "repetitions (interleaved; medians reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option(
         "--ranks-per-node", args->ranks_per_node,
         "K consecutive ranks per node, recorded with the results (Table III); the last node may "
         "hold fewer (huang2018: ceil(p^3 / K) nodes)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  add_result_options(cmd, *args, "");
  cmd->callback([args, &exit_code] {
    check_result_args(*args);
    ensure_mpi();
    Bench run(*args);
    exit_code = run.run();
  });
}

}  // namespace relay::cli
