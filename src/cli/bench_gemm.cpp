// Over 500 lines: one command with its ScaLAPACK baseline, checks and tables (the GEMM: src/gemm).
// relay bench gemm: times relay_gemm over broadcast schemes and look-ahead depths, next to
// Debian ScaLAPACK's p?gemm on the same distributed matrices in the same run (the baseline of
// tan2014 Table IV), with the local BLAS rate of one core measured first (the peak).
//
// Every repetition runs every configuration once, interleaved, so slow drifts of the machine
// hit all of them alike; a row reports medians over repetitions, and its ratio to ScaLAPACK is
// the median of the per-repetition ratios (paired). A call's time is the maximum over ranks;
// its split into broadcast / local GEMM / wait is the maximum over ranks of each part.
#include <mpi.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <limits>
#include <new>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "core/blas_library.hpp"
#include "core/settings.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "exec/host_memory.hpp"
#include "gemm/bound.hpp"
#include "layout/block_cyclic.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"
#include "relay/gemm.h"

#ifdef RELAY_HAVE_SCALAPACK
#include "scalapack/prototypes.h"
#include "scalapack/serving.hpp"
#endif

namespace relay::cli {
namespace {

// What relay_gemm accepts (gemm/arguments.cpp: RELAY_GEMM_PANEL_WIDTH, _LOOKAHEAD, _PIECES).
constexpr long long kMaxPanel = 1LL << 30;
constexpr int kMaxLookahead = 64;
constexpr int kMaxPieces = 4096;

// A --pieces value as the table shows it when several were asked for.
std::string pieces_label(int asked) {
  return asked == 0 ? std::string("pieces=auto") : fmt::format("pieces={}", asked);
}

struct Args : ResultArgs {
  std::string sizes = "4096";
  std::string grid;  // "RxC"; default: the squarest grid of the launch
  long long block = 64;
  long long panel = 0;
  std::string algorithms = "2d";
  std::string schemes = "all";
  std::string segment = "128KiB";
  std::string lookaheads = "0,1";
  std::string pieces = "0";
  std::string precision = "d";
  int reps = 5;
  bool no_scalapack = false;
  double start_jitter_us = -1;  // < 0: 100 in a simulation, 0 in a real run
  double link_gbits = 0;        // 0: RELAY_LINK_BITS_PER_S, else the simulated platform's
};

// A simulation has no noise: ranks leave a barrier in the same pattern every time, and where
// broadcasts contend for links that pattern decides the order flows get them in for the
// whole run, so a figure from one start pattern depended on what had run before it. Under
// simulation each rank of each repetition starts after a delay drawn in [0, jitter) from
// (rank, repetition), the same for every configuration of that repetition, and medians over
// repetitions are what counts.
double start_delay_s(int rank, int rep, double jitter_us) {
  std::uint64_t x = (static_cast<std::uint64_t>(rank) << 32) + static_cast<std::uint64_t>(rep) +
                    0x9e3779b97f4a7c15ULL;  // splitmix64
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return jitter_us * 1e-6 * static_cast<double>(x >> 11) / 9007199254740992.0;  // / 2^53
}

// A scheme: how the panels are broadcast.
struct Scheme {
  std::string name;
  relay_bcast_algorithm_t algorithm = RELAY_BCAST_BINOMIAL;
  relay_policy_t policy = RELAY_POLICY_DEFAULT;
  long long segment = 0;
  relay_gemm_panel_broadcasts_t panels = RELAY_GEMM_PANELS_DEFAULT;
};

// tan2014 Table IV's three schemes plus MPI's own broadcast; any other "algorithm:policy"
// (for example scatter_allgather:nonblocking) also works.
std::vector<Scheme> parse_schemes(const std::string& text, long long segment) {
  std::vector<std::string> names;
  const std::vector<std::string> table4 = {"binomial", "pipeline-blocking", "pipeline-nonblocking",
                                           "mpi"};
  std::string item;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      if (item == "all") {
        names.insert(names.end(), table4.begin(), table4.end());
      } else if (!item.empty()) {
        names.push_back(item);
      }
      item.clear();
    } else {
      item += text[i];
    }
  }
  std::vector<Scheme> out;
  for (const auto& name : names) {
    Scheme s;
    s.name = name;
    std::string algo = name, policy;
    if (const auto slash = name.find('/'); slash != std::string::npos) {
      const std::string panels = name.substr(slash + 1);
      if (panels == "per_owner") {
        s.panels = RELAY_GEMM_PANELS_PER_OWNER;
      } else if (panels == "per_block") {
        s.panels = RELAY_GEMM_PANELS_PER_BLOCK;
      } else {
        throw std::invalid_argument("--schemes: '" + name + "': after '/' comes per_owner or " +
                                    "per_block (one broadcast per owner or per k block)");
      }
      algo = name.substr(0, slash);
    }
    // "@SIZE": this scheme's own segment (several sizes compared in one paired run).
    std::optional<long long> own_segment;
    if (const auto at = algo.find('@'); at != std::string::npos) {
      own_segment = core::parse_bytes(algo.substr(at + 1));
      if (!own_segment || *own_segment <= 0) {
        throw std::invalid_argument("--schemes: '" + name + "': after '@' comes a segment size " +
                                    "like 32KiB");
      }
      algo = algo.substr(0, at);
    }
    if (const auto sep = algo.find_first_of(":-"); sep != std::string::npos) {
      policy = algo.substr(sep + 1);
      algo = algo.substr(0, sep);
    }
    if (relay_bcast_algorithm_from_name(algo.c_str(), &s.algorithm) != RELAY_SUCCESS) {
      throw std::invalid_argument("--schemes: unknown broadcast algorithm '" + algo +
                                  "' (relay algorithms lists them)");
    }
    if (!policy.empty() && relay_policy_from_name(policy.c_str(), &s.policy) != RELAY_SUCCESS) {
      throw std::invalid_argument("--schemes: unknown policy '" + policy +
                                  "' (blocking or nonblocking)");
    }
    s.segment = s.algorithm == RELAY_BCAST_PIPELINE ? segment : RELAY_SEGMENT_DEFAULT;
    if (s.algorithm == RELAY_BCAST_BINOMIAL) s.segment = 0;
    if (own_segment) {
      if (s.algorithm == RELAY_BCAST_MPI || s.algorithm == RELAY_BCAST_BINOMIAL) {
        throw std::invalid_argument("--schemes: '" + name + "': " + algo +
                                    " takes no segment size");
      }
      s.segment = *own_segment;
    }
    out.push_back(s);
  }
  if (out.empty()) throw std::invalid_argument("--schemes: no scheme given");
  return out;
}

// A distributed algorithm of relay_gemm, with its layers resolved for this grid.
struct Algorithm {
  std::string name;  // as printed: "2d", "2.5d:4", "3d"
  relay_gemm_algorithm_t algorithm = RELAY_GEMM_2D;
  int layers = 1;
  int layer_rows = 1, layer_cols = 1;
};

// What relay_gemm_plan says `algorithm` with `layers` runs on `grid`.
relay_gemm_report_t plan_of(relay_grid_t grid, relay_gemm_algorithm_t algorithm, int layers) {
  relay_gemm_options_t o;
  relay_gemm_options_init(&o);
  o.algorithm = algorithm;
  o.layers = layers;
  relay_gemm_report_t plan;
  relay_gemm_report_init(&plan);
  if (relay_gemm_plan(grid, &o, &plan) != RELAY_SUCCESS)
    throw std::runtime_error(relay_last_error());
  return plan;
}

// The c >= 2 that 2.5D can run with on `grid`, for messages.
std::string layer_choices(relay_grid_t grid, int size) {
  std::string out;
  for (int c = 2; c <= size; ++c) {
    if (plan_of(grid, RELAY_GEMM_25D, c).algorithm == RELAY_GEMM_25D) {
      out += (out.empty() ? "" : ", ") + std::to_string(c);
    }
  }
  return out.empty() ? "none" : out;
}

// "2d", "2.5d" (the default c), "2.5d:C", "3d", comma-separated; refused (on every rank alike)
// when the grid does not split into the layers asked for.
std::vector<Algorithm> parse_algorithms(const std::string& text, relay_grid_t grid) {
  int rows = 0, cols = 0;
  relay_grid_info(grid, &rows, &cols, nullptr, nullptr);
  const std::string grid_text = fmt::format("{}x{}", rows, cols);
  std::vector<Algorithm> out;
  for (const std::string& item : split_list(text)) {
    Algorithm a;
    a.name = item;
    int layers = 0;
    if (item == "auto") {  // the model's choice, said in the row's name once it ran
      a.algorithm = RELAY_GEMM_AUTO;
      a.layers = 0;
      out.push_back(a);
      continue;
    }
    if (item == "3d") {
      a.algorithm = RELAY_GEMM_3D;
    } else if (item.rfind("2.5d", 0) == 0) {
      a.algorithm = RELAY_GEMM_25D;
      if (item != "2.5d") {
        const auto c = item.size() > 5 && item[4] == ':'
                           ? core::parse_integer(item.substr(5), 2, 65536)
                           : std::nullopt;
        if (!c) {
          throw std::invalid_argument("--algorithms: '" + item +
                                      "' is not 2.5d or 2.5d:C (C >= 2)");
        }
        layers = static_cast<int>(*c);
      }
    } else if (item != "2d") {
      throw std::invalid_argument("--algorithms: '" + item +
                                  "' is not 2d, 2.5d, 2.5d:C, 3d or auto");
    }
    const relay_gemm_report_t plan = plan_of(grid, a.algorithm, layers);
    if (plan.algorithm != a.algorithm) {
      throw std::invalid_argument(fmt::format(
          "--algorithms: {} cannot run on the {} grid ({}; 2.5d:C runs for C in: {})", item,
          grid_text,
          layers > 0
              ? fmt::format("it does not split into {} layers", layers)
              : std::string(a.algorithm == RELAY_GEMM_3D ? "no layer count near P^(1/3) divides it"
                                                         : "no c <= min(4, P^(1/3)) divides it"),
          layer_choices(grid, rows * cols)));
    }
    a.layers = plan.layers;
    a.layer_rows = plan.layer_rows;
    a.layer_cols = plan.layer_cols;
    if (a.algorithm == RELAY_GEMM_25D) a.name = fmt::format("2.5d:{}", a.layers);
    out.push_back(a);
  }
  if (out.empty()) throw std::invalid_argument("--algorithms: no algorithm given");
  return out;
}

std::vector<int> parse_int_list(const std::string& text, const char* what, int min, int max) {
  std::vector<int> out;
  std::string item;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      const auto v = core::parse_integer(item, min, max);
      if (!v)
        throw std::invalid_argument(
            fmt::format("{}: '{}' is not an integer in [{}, {}]", what, item, min, max));
      out.push_back(static_cast<int>(*v));
      item.clear();
    } else {
      item += text[i];
    }
  }
  return out;
}

template <class T>
MPI_Datatype mpi_type();
template <>
MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <>
MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <>
MPI_Datatype mpi_type<std::complex<float>>() {
  return MPI_C_FLOAT_COMPLEX;
}
template <>
MPI_Datatype mpi_type<std::complex<double>>() {
  return MPI_C_DOUBLE_COMPLEX;
}

class Bench {
 public:
  explicit Bench(const Args& a) : a_(a) {}
  int run();

 private:
  void check_memory(const std::vector<long long>& sizes);
  template <class T>
  void run_size(long long n, nlohmann::json& rows);
  // Under simulation: this rank's start delay of repetition `rep` (start_delay_s), charged.
  void start_delay(int rep) const {
    if (jitter_us_ > 0) {
      exec::charge_flops(start_delay_s(rank_, rep, jitter_us_) * exec::charged_gflops() * 1e9);
    }
  }

  void find_node_and_link();

  const Args& a_;
  std::unique_ptr<measure::NodeEnergy> energy_;  // one reader per node (bench_energy)
  std::unique_ptr<MachineCpu> cpu_;              // one reader per machine
  double jitter_us_ = 0;
  std::vector<int> node_members_;  // world ranks on this rank's node (MPI_COMM_TYPE_SHARED)
  double link_bytes_per_s_ = 0;    // each direction; 0 unknown
  std::string link_from_;
  int rank_ = 0, size_ = 1, rows_ = 1, cols_ = 1;
  relay_grid_t grid_ = RELAY_GRID_NULL;
  int ctxt_ = -1;
  double peak_core_ = 0.0;
  int cores_ = 1;
  std::vector<Algorithm> algorithms_;
  std::vector<Scheme> schemes_;
  std::vector<int> lookaheads_;
  std::vector<int> pieces_;  // the local update's pieces asked for (0: auto)
};

// The ranks of this rank's node, and the link rate: --link-gbits, else RELAY_LINK_BITS_PER_S
// (relay cluster run sets it), else the simulated platform's route; else unknown.
void Bench::find_node_and_link() {
  MPI_Comm node = MPI_COMM_NULL;
  if (exec::node_comm(MPI_COMM_WORLD, &node) != MPI_SUCCESS) {
    throw std::runtime_error("bench gemm: the node's ranks could not be found (MPI)");
  }
  int node_size = 1;
  MPI_Comm_size(node, &node_size);
  node_members_.assign(static_cast<std::size_t>(node_size), 0);
  MPI_Allgather(&rank_, 1, MPI_INT, node_members_.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  std::sort(node_members_.begin(), node_members_.end());
  if (a_.link_gbits > 0) {
    link_bytes_per_s_ = a_.link_gbits * 1e9 / 8;
    link_from_ = "--link-gbits";
  } else if (const char* v = core::read_setting(core::Knob::link_bits_per_s)) {
    char* end = nullptr;
    const double bits = std::strtod(v, &end);
    if (end == v || *end != '\0' || !(bits > 0) || !std::isfinite(bits)) {
      throw std::invalid_argument(
          fmt::format("RELAY_LINK_BITS_PER_S='{}' is not a positive number of bits per second", v));
    }
    link_bytes_per_s_ = bits / 8;
    link_from_ = "RELAY_LINK_BITS_PER_S";
  } else if (const double rate = exec::link_bytes_per_s(); rate > 0) {
    link_bytes_per_s_ = rate;
    link_from_ = "the simulated platform";
  }
}

template <class T>
void Bench::run_size(long long n, nlohmann::json& rows) {
  int myrow = 0, mycol = 0;
  relay_grid_info(grid_, nullptr, nullptr, &myrow, &mycol);
  const long long nb = a_.block;
  auto local_count = [&](long long len, int p, int np) {  // source 0
    return static_cast<long long>(layout::fortran::numroc(len, nb, p, 0, np));
  };
  const long long mloc = local_count(n, myrow, rows_), nloc = local_count(n, mycol, cols_);
  const long long lld = std::max(1LL, mloc);
  const relay_matrix_desc_t desc{n, n, nb, nb, 0, 0, 0, 0, lld};
  std::mt19937_64 rng(static_cast<std::uint64_t>(rank_) + 1);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const std::size_t elems = static_cast<std::size_t>(lld * std::max(1LL, nloc));
  exec::DataVector<T> A, B, C, C2;  // shared pages in a simulation (exec/compute.hpp)
  try {  // run() checked the memory; where that could not be read, a failure still says why
    A.resize(elems);
    B.resize(elems);
    C.resize(elems);  // zero unless charged (exec::DataVector): values never read there
    C2.resize(elems);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format(
        "relay bench gemm: cannot allocate the 4 local matrices of n={} on rank {} "
        "({}; std::bad_alloc)",
        n, rank_, human_bytes(4.0 * static_cast<double>(elems) * static_cast<double>(sizeof(T)))));
  }
  if (!exec::compute_is_charged()) {  // charged: no value is ever read
    for (auto& x : A) x = T(static_cast<float>(u(rng)));
    for (auto& x : B) x = T(static_cast<float>(u(rng)));
  }
  const T alpha(1), beta(0);
  const double nd = static_cast<double>(n);
  const double flops = gemm::flops_per_fma(a_.precision[0]) * nd * nd * nd;

  struct Series {
    const Algorithm* algorithm = nullptr;
    const Scheme* scheme = nullptr;
    int lookahead = 0;
    int pieces_asked = 0;  // --pieces (0: auto)
    std::vector<double> time, bcast, compute, wait, replicate, reduce, ratio, predicted;
    std::vector<double> cpu;      // the busiest machine's CPU busy share per repetition
    measure::EnergyTotal energy;  // every repetition's call
    std::string ran;              // auto: what it chose ("2.5d:4"; several if the choice changed)
    long long workspace = 0, layered = 0;
    int aligned = 1;
    int pieces = 0;  // the local update's pieces per panel (report->pieces; the last rep's)
  };
  std::vector<Series> series;
  for (const auto& a : algorithms_) {
    for (const auto& s : schemes_) {
      for (int L : lookaheads_) {
        // 3D gathers a layer's whole slab in one step: there is nothing to look ahead to.
        if (a.algorithm == RELAY_GEMM_3D && L != lookaheads_.front()) continue;
        for (int pieces : pieces_) {
          // ... nor to cut its one multiply for.
          if (a.algorithm == RELAY_GEMM_3D && pieces != pieces_.front()) continue;
          Series row;
          row.algorithm = &a;
          row.scheme = &s;
          row.lookahead = a.algorithm == RELAY_GEMM_3D ? 0 : L;
          row.pieces_asked = pieces;
          series.push_back(row);
        }
      }
    }
  }
  std::vector<double> scalapack_times, scalapack_cpu;
  measure::EnergyTotal scalapack_energy;
  // A call's energy: its node leaders read before the barrier that starts it and after the
  // allreduce that follows it (every rank done).
  auto add_energy = [this](measure::EnergyTotal& total) {
    energy_->end();
    const measure::RegionEnergy e = energy_->result();
    total.add(e.joules, e.seconds, 1);
  };
  const bool with_scalapack = ctxt_ >= 0;
  const int total_runs = a_.reps * static_cast<int>(series.size() + (with_scalapack ? 1 : 0));
  measure::Progress reporter(rank_ == 0 && !a_.quiet, fmt::format("n={} ", n),
                             static_cast<std::size_t>(total_runs));
  auto progress = [&](const std::string& what, double seconds) {
    reporter.step(fmt::format("{} {:.3f} s", what, seconds));
  };
  for (int rep = 0; rep < a_.reps; ++rep) {
    double scalapack_time = 0.0;
#ifdef RELAY_HAVE_SCALAPACK
    if (with_scalapack) {
      const int ni = static_cast<int>(n), nbi = static_cast<int>(nb), one = 1;
      const int d[9] = {1, ctxt_, ni, ni, nbi, nbi, 0, 0, static_cast<int>(lld)};
      // ScaLAPACK's own: this program's p?gemm_ are relay's (for relay bench solve).
      relay_pgemm_fn fn =
          scalapack::scalapack_pgemm(std::is_same_v<T, float>                 ? "psgemm_"
                                     : std::is_same_v<T, double>              ? "pdgemm_"
                                     : std::is_same_v<T, std::complex<float>> ? "pcgemm_"
                                                                              : "pzgemm_");
      cpu_->begin();
      energy_->begin();
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      start_delay(rep);
      fn("N", "N", &ni, &ni, &ni, &alpha, A.data(), &one, &one, d, B.data(), &one, &one, d, &beta,
         C2.data(), &one, &one, d);
      double t = MPI_Wtime() - t0;
      exec::allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      add_energy(scalapack_energy);
      scalapack_cpu.push_back(cpu_->end());
      scalapack_time = t;
      scalapack_times.push_back(t);
      progress("scalapack", t);
    }
#endif
    for (Series& row : series) {
      {
        const Scheme& s = *row.scheme;
        const int L = row.lookahead;
        relay_bcast_options_t bcast;
        relay_bcast_options_init(&bcast);
        bcast.algorithm = s.algorithm;
        bcast.policy = s.policy;
        bcast.segment_bytes = s.segment;
        relay_gemm_options_t o;
        relay_gemm_options_init(&o);
        o.bcast = &bcast;
        o.panel_width = a_.panel;
        o.lookahead = L;
        o.pieces = row.pieces_asked;
        o.panel_broadcasts = s.panels;
        o.algorithm = row.algorithm->algorithm;
        o.layers = row.algorithm->layers;
        relay_gemm_report_t report;
        relay_gemm_report_init(&report);
        o.report = &report;
        relay_gemm_stats_t st;
        int info = 0;
        cpu_->begin();
        energy_->begin();
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        start_delay(rep);
        const relay_status_t rc =
            relay_gemm('N', 'N', n, n, n, mpi_type<T>(), &alpha, A.data(), 0, 0, &desc, B.data(), 0,
                       0, &desc, &beta, C.data(), 0, 0, &desc, grid_, &o, &info, &st);
        double t = MPI_Wtime() - t0;
        if (rc != RELAY_SUCCESS) throw std::runtime_error(relay_last_error());
        const std::string ran = report.algorithm == RELAY_GEMM_25D
                                    ? fmt::format("2.5d:{}", report.layers)
                                : report.algorithm == RELAY_GEMM_3D ? "3d"
                                                                    : "2d";
        if (row.algorithm->algorithm == RELAY_GEMM_AUTO) {
          if (row.ran.find(ran) == std::string::npos) row.ran += (row.ran.empty() ? "" : "|") + ran;
        } else if (report.algorithm != row.algorithm->algorithm ||
                   report.layers != row.algorithm->layers) {
          throw std::runtime_error(fmt::format("relay_gemm ran {} with {} layers, not {}",
                                               report.algorithm, report.layers,
                                               row.algorithm->name));
        }
        // One allreduce (each is a dear collective over every simulated rank); byte counts
        // are exact as doubles below 2^53.
        double parts[9] = {t,
                           st.bcast_s,
                           st.compute_s,
                           st.wait_s,
                           report.replicate_s,
                           report.reduce_s,
                           report.predicted_s,
                           static_cast<double>(st.workspace_bytes),
                           static_cast<double>(report.layered_bytes)};
        exec::allreduce(MPI_IN_PLACE, parts, 9, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        const long long bytes[2] = {static_cast<long long>(parts[7]),
                                    static_cast<long long>(parts[8])};
        add_energy(row.energy);
        row.cpu.push_back(cpu_->end());
        row.time.push_back(parts[0]);
        row.bcast.push_back(parts[1]);
        row.compute.push_back(parts[2]);
        row.wait.push_back(parts[3]);
        row.replicate.push_back(parts[4]);
        row.reduce.push_back(parts[5]);
        row.predicted.push_back(parts[6]);
        row.workspace = bytes[0];
        row.layered = bytes[1];
        row.pieces = report.pieces;
        row.aligned = st.aligned_a && st.aligned_b;
        if (scalapack_time > 0) row.ratio.push_back(scalapack_time / parts[0]);
        progress(fmt::format("{} {} L={}{}", row.algorithm->name, s.name, L,
                             pieces_.size() > 1 ? " " + pieces_label(row.pieces_asked) : ""),
                 parts[0]);
      }
    }
  }
  const double peak_total = peak_core_ * cores_;
  gemm::BoundInputs bound_of;
  bound_of.rows = rows_;
  bound_of.cols = cols_;
  bound_of.n = n;
  for (int r = 0; r < rows_; ++r) bound_of.row_rows.push_back(local_count(n, r, rows_));
  for (int c = 0; c < cols_; ++c) bound_of.col_cols.push_back(local_count(n, c, cols_));
  bound_of.node_ranks = node_members_;
  bound_of.rank = rank_;
  bound_of.elem_bytes = static_cast<double>(sizeof(T));
  bound_of.fma_flops = gemm::flops_per_fma(a_.precision[0]);
  bound_of.core_gflops = peak_core_;
  bound_of.link_bytes_per_s = link_bytes_per_s_;
  const gemm::Bound lim = gemm::multiplication_bound(bound_of, MPI_COMM_WORLD);
  const double bound_max = std::max(lim.links_s, lim.blas_s), bound_sum = lim.links_s + lim.blas_s;
  // The bound is 2D SUMMA's data movement: the layered algorithms move less (that is their
  // point), so their rows carry no x_bound.
  auto emit = [&](const std::string& algorithm, const std::string& ran, const std::string& scheme,
                  int L, double t, double model, double bc, double comp, double w, double repl,
                  double red, double ratio, long long ws, long long layered, int pieces,
                  int pieces_asked, const std::vector<double>& cpu,
                  const measure::EnergyTotal& energy) {
    const bool bounded = algorithm == "2d" || algorithm == "scalapack";
    nlohmann::json r;
    r["algorithm"] = algorithm;
    if (!ran.empty()) r["ran"] = ran;
    r["n"] = n;
    r["grid"] = fmt::format("{}x{}", rows_, cols_);
    r["block"] = nb;
    r["panel"] = a_.panel;
    r["precision"] = a_.precision;
    r["scheme"] = scheme;
    r["lookahead"] = L;
    if (pieces > 0) {
      r["pieces"] = pieces;
      r["pieces_requested"] = pieces_asked;
    }
    r["time_s"] = t;
    if (model > 0) r["predicted_s"] = model;
    r["gflops"] = flops / t / 1e9;
    if (peak_total > 0) r["pct_peak"] = 100.0 * flops / t / 1e9 / peak_total;  // else not timed
    r["bcast_s"] = bc;
    r["compute_s"] = comp;
    r["wait_s"] = w;
    r["replicate_s"] = repl;
    r["reduce_s"] = red;
    r["speedup_vs_scalapack"] = ratio;
    r["workspace_bytes"] = ws;
    r["layered_bytes"] = layered;
    if (link_bytes_per_s_ > 0 && bounded) r["bound_links_s"] = lim.links_s;  // absent: unknown
    r["bound_blas_s"] = lim.blas_s;
    r["bound_ranks_per_core"] = lim.ranks_per_core;
    if (link_bytes_per_s_ > 0 && bound_max > 0 && bounded) {
      r["time_over_bound"] = t / bound_max;
      r["time_over_bound_sum"] = t / bound_sum;
    }
    cpu_to_row(r, cpu);
    energy.to_row(r);
    rows.push_back(r);
    if (rank_ == 0) {
      auto times = [&](double b) {
        return b > 0 ? fmt::format("{:.2f}x", t / b) : std::string("-");
      };
      const std::string label = ran.empty() ? algorithm : algorithm + ":" + ran;
      // Several --pieces: the scheme's column says which (the JSON's pieces says what ran).
      const std::string shown_scheme =
          pieces > 0 && pieces_.size() > 1 ? scheme + " " + pieces_label(pieces_asked) : scheme;
      std::printf(
          "%-12s %-30s %3d %10.3f %8s %9.2f %8s %8.3f %9.3f %9.3f %9.3f %8.3f %8.1f %12s %8s "
          "%8s %6s%s\n",
          label.c_str(), shown_scheme.c_str(), L, t,
          model > 0 ? fmt::format("{:.3f}", model).c_str() : "-", flops / t / 1e9,
          peak_total > 0 ? fmt::format("{:.1f}%", 100.0 * flops / t / 1e9 / peak_total).c_str()
                         : "-",
          repl, bc, comp, w, red, static_cast<double>(ws + layered) / 1048576.0,
          ratio > 0 ? fmt::format("{:.3f}x", ratio).c_str() : "-",
          link_bytes_per_s_ > 0 && bounded ? times(bound_max).c_str() : "-",
          link_bytes_per_s_ > 0 && bounded ? times(bound_sum).c_str() : "-", cpu_cell(r).c_str(),
          energy_cells(r).c_str());
    }
  };
  if (rank_ == 0) {
    std::printf(
        "\n# n=%lld grid %dx%d block %lld panel %s precision %s, %d reps (medians)%s; "
        "peak: %s\n",
        n, rows_, cols_, nb, a_.panel > 0 ? std::to_string(a_.panel).c_str() : "default",
        a_.precision.c_str(), a_.reps,
        jitter_us_ > 0 ? fmt::format(", ranks start within {:g} us", jitter_us_).c_str() : "",
        peak_core_ > 0 ? fmt::format("{:.2f} GFLOP/s per core x {} cores = {:.2f} GFLOP/s",
                                     peak_core_, cores_, peak_total)
                             .c_str()
                       : "not timed (RELAY_SIMULATE_COMPUTE=real: the simulated clock does not "
                         "see the BLAS calls, and %peak is not given)");
    const std::string sharing =
        lim.ranks_per_core > 1
            ? fmt::format("; {:g} ranks per core: ranks of one machine share its cores",
                          lim.ranks_per_core)
            : std::string();
    const std::string blas = peak_core_ > 0
                                 ? fmt::format("BLAS {:.3f} s (at {:.2f} GFLOP/s per core{})",
                                               lim.blas_s, peak_core_, sharing)
                                 : std::string("BLAS not timed");
    if (link_bytes_per_s_ > 0) {
      std::printf(
          "# bound: links %.3f s (the busiest node receives %s and sends %s at least once, at "
          "%s/s each way, from %s), %s; x_bound = time / max(links, BLAS), x_sum = time / "
          "(links + BLAS)\n",
          lim.links_s, human_bytes(lim.in_bytes).c_str(), human_bytes(lim.out_bytes).c_str(),
          human_bytes(link_bytes_per_s_).c_str(), link_from_.c_str(), blas.c_str());
    } else {
      std::printf(
          "# bound: %s; links unknown (--link-gbits or RELAY_LINK_BITS_PER_S give the rate)\n",
          blas.c_str());
    }
    std::printf("%s\n", energy_note(*energy_, "per multiplication (mean over the reps)").c_str());
    for (const auto& a : algorithms_) {
      if (a.algorithm == RELAY_GEMM_2D || a.algorithm == RELAY_GEMM_AUTO) continue;
      std::printf("# %s: %d layers of %dx%d\n", a.name.c_str(), a.layers, a.layer_rows,
                  a.layer_cols);
    }
    std::printf("%-12s %-30s %3s %10s %8s %9s %8s %8s %9s %9s %9s %8s %8s %12s %8s %8s %6s%s\n",
                "algorithm", "scheme", "L", "time_s", "model_s", "GFLOP/s", "%peak", "repl_s",
                "bcast_s", "gemm_s", "wait_s", "reduce_s", "mem_MiB", "vs_scalapack", "x_bound",
                "x_sum", "cpu%", energy_titles().c_str());
  }
  if (with_scalapack) {
    const double t = measure::median(scalapack_times);
    emit("scalapack", "", "pdgemm", 0, t, 0, 0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, scalapack_cpu,
         scalapack_energy);
  }
  for (const auto& s : series) {
    emit(s.algorithm->name, s.ran, s.scheme->name, s.lookahead, measure::median(s.time),
         measure::median(s.predicted), measure::median(s.bcast), measure::median(s.compute),
         measure::median(s.wait), measure::median(s.replicate), measure::median(s.reduce),
         s.ratio.empty() ? 0.0 : measure::median(s.ratio), s.workspace, s.layered, s.pieces,
         s.pieces_asked, s.cpu, s.energy);
  }
  if (rank_ == 0) {
    std::printf(
        "mem_MiB: buffers per rank beyond the matrices (the most on any rank): panels in flight, "
        "and for 2.5d/3d A's and B's k-slabs and C's partial sums; model_s: relay's model's time "
        "for what ran (docs/gemm.md, RELAY_MODEL_PARAMS); auto:X ran X; cpu%%: the busiest "
        "machine's CPUs busy during the call, all of them, every process and the kernel "
        "(/proc/stat; a rank polling in a wait counts as busy, one sleeping between polls, "
        "RELAY_IDLE_SLEEP_US, does not)\n");
    std::fflush(stdout);
  }
}

// What this rank will allocate, said on rank 0 before anything is allocated and checked
// against the node's available memory (require_memory: every rank refuses together): the four
// local matrices (A, B, C and ScaLAPACK's copy of C, 4 n^2 / P elements), the panels in flight
// ((lookahead + 1) x panel width x (local rows + local columns), twice: one broadcast per owner
// stages them) and, on rank 0, the three
// matrices of the one-core peak measurement. n = 100000 on one rank wanted 298 GiB and ended
// in a bare std::bad_alloc, or, just below what the kernel refuses at once, in its OOM killer.
void Bench::check_memory(const std::vector<long long>& sizes) {
  int myrow = 0, mycol = 0;
  relay_grid_info(grid_, nullptr, nullptr, &myrow, &mycol);
  const double elem = a_.precision == "s" ? 4 : a_.precision == "d" || a_.precision == "c" ? 8 : 16;
  const long long nb = a_.block;
  const int max_lookahead = *std::max_element(lookaheads_.begin(), lookaheads_.end());
  double need = 0;
  long long worst_n = sizes.front();
  for (long long n : sizes) {
    auto local = [&](int p, int np) {  // NUMROC, as run_size counts, in doubles against overflow
      const double blocks = static_cast<double>(n / nb), extra = static_cast<double>(n % nb);
      double c = std::floor(blocks / np) * static_cast<double>(nb);
      const double rest = std::fmod(blocks, np);
      if (p < rest)
        c += static_cast<double>(nb);
      else if (p == rest)
        c += extra;
      return c;
    };
    const double mloc = local(myrow, rows_), nloc = local(mycol, cols_);
    const double width =
        static_cast<double>(std::min(n, a_.panel > 0 ? a_.panel : nb * ((256 + nb - 1) / nb)));
    // The layered algorithms' buffers: A's and B's k-slabs (one 2D share each), C's partial
    // sums (c shares) and the layer's panels (3D: the whole slab, k / c wide).
    double layered = 0;
    for (const auto& a : algorithms_) {
      if (a.algorithm == RELAY_GEMM_2D) continue;
      const double lrows = mloc * rows_ / a.layer_rows, lcols = nloc * cols_ / a.layer_cols;
      const double lwidth = a.algorithm == RELAY_GEMM_3D
                                ? std::ceil(static_cast<double>(n) / a.layers)
                                : std::min(width * (max_lookahead + 1), static_cast<double>(n));
      layered = std::max(layered, (2 + a.layers) * std::max(1.0, mloc) * std::max(1.0, nloc) +
                                      2 * lwidth * (lrows + lcols));
    }
    const double bytes = (4 * std::max(1.0, mloc) * std::max(1.0, nloc) +
                          std::max(2 * (max_lookahead + 1) * width * (mloc + nloc), layered)) *
                         elem;
    if (bytes > need) {
      need = bytes;
      worst_n = n;
    }
  }
  if (rank_ == 0) {
    const double peak_n = static_cast<double>(
        std::max(256LL, std::min<long long>(2048, *std::max_element(sizes.begin(), sizes.end()))));
    need += 3 * peak_n * peak_n * elem;
  }
  double most = 0;
  exec::allreduce(&need, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (exec::compute_is_charged()) {
    // A simulation with computations charged: matrices and panels live on pages every
    // simulated rank shares (exec/compute.hpp); the host needs next to nothing per rank.
    if (rank_ == 0) {
      std::printf(
          "# memory: %s per rank in a real run (n=%lld); here on shared pages (a simulation, "
          "computations charged)\n",
          human_bytes(most).c_str(), worst_n);
      std::fflush(stdout);
    }
    return;
  }
  if (rank_ == 0) {
    const std::int64_t available = exec::available_memory_bytes();
    std::printf(
        "# memory: up to %s per rank (n=%lld: A, B, C and a copy of C, 4 n^2 / %d elements, "
        "the panels in flight and the 2.5d/3d slabs and partial sums); %s available on this "
        "node\n",
        human_bytes(most).c_str(), worst_n, size_,
        available >= 0 ? human_bytes(static_cast<double>(available)).c_str() : "unknown");
    // The kernels the BLAS chose set the peak and every time below: said with the figures.
    const std::string blas = core::running_blas_library();
    if (!blas.empty()) std::printf("# BLAS: %s\n", blas.c_str());
    std::fflush(stdout);
  }
  require_memory(MPI_COMM_WORLD, need,
                 fmt::format("relay bench gemm --n {} on a {}x{} grid", worst_n, rows_, cols_));
}

int Bench::run() {
  ensure_mpi();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  grid_shape(a_.grid, size_, rows_, cols_);
  if (a_.block < 1) throw std::invalid_argument("--block must be >= 1");
  const bool simulated = exec::compute_is_charged();
  if (a_.start_jitter_us > 0 && !simulated) {
    throw std::invalid_argument(
        "--start-jitter-us applies to simulations only (relay simulate): a real run has its own "
        "noise");
  }
  jitter_us_ = a_.start_jitter_us >= 0 ? a_.start_jitter_us : simulated ? 100.0 : 0.0;
  std::vector<long long> sizes;
  for (int v : parse_int_list(a_.sizes, "--n", 1, std::numeric_limits<int>::max()))
    sizes.push_back(v);
  const auto seg = core::parse_bytes(a_.segment);
  if (!seg)
    throw std::invalid_argument("--segment '" + a_.segment + "' is not a size like 128KiB (" +
                                core::kByteUnitsHelp + ")");
  schemes_ = parse_schemes(a_.schemes, *seg);

  lookaheads_ = parse_int_list(a_.lookaheads, "--lookahead", 0, kMaxLookahead);
  pieces_ = parse_int_list(a_.pieces, "--pieces", 0, kMaxPieces);
  if (a_.precision != "s" && a_.precision != "d" && a_.precision != "c" && a_.precision != "z") {
    throw std::invalid_argument("--precision must be s, d, c or z");
  }
  if (relay_grid_create(MPI_COMM_WORLD, rows_, cols_, 'R', &grid_) != RELAY_SUCCESS) {
    throw std::runtime_error(relay_last_error());
  }
  algorithms_ = parse_algorithms(a_.algorithms, grid_);
  check_memory(sizes);
  find_node_and_link();
  energy_ = bench_energy(MPI_COMM_WORLD);
  cpu_ = std::make_unique<MachineCpu>(MPI_COMM_WORLD);
#ifdef RELAY_HAVE_SCALAPACK
  if (!a_.no_scalapack) {
    Cblacs_get(0, 0, &ctxt_);
    Cblacs_gridinit(&ctxt_, "Row", rows_, cols_);
  }
#endif
  cores_ = gemm::usable_cores(MPI_COMM_WORLD);
  const long long peak_n = std::min<long long>(2048, *std::max_element(sizes.begin(), sizes.end()));
  nlohmann::json rows = nlohmann::json::array();
  auto each = [&](auto tag) {
    using T = decltype(tag);
    peak_core_ =
        gemm::measure_core_gflops(a_.precision[0], std::max(256LL, peak_n), MPI_COMM_WORLD);
    for (long long n : sizes) run_size<T>(n, rows);
  };
  if (a_.precision == "s") each(float{});
  if (a_.precision == "d") each(double{});
  if (a_.precision == "c") each(std::complex<float>{});
  if (a_.precision == "z") each(std::complex<double>{});
  nlohmann::json doc;
  doc["schema"] = "relay.bench.gemm/1";  // schemas/relay-bench-gemm.schema.json
  doc["benchmark"] = "gemm";
  doc["machine"] = machine_description(MPI_COMM_WORLD);
  doc["peak_gflops_per_core"] = peak_core_;
  doc["cores_used"] = cores_;
  doc["start_jitter_us"] = jitter_us_;
  doc["energy"] = energy_document(*energy_, "per multiplication (mean over the reps)");
  doc["rows"] = rows;
#ifdef RELAY_HAVE_SCALAPACK
  if (ctxt_ >= 0) Cblacs_gridexit(ctxt_);
#endif
  relay_grid_free(&grid_);
  energy_.reset();
  if (rank_ != 0) return 0;
  return write_results(doc, a_.json_path, a_.plot_path, "gemm.py", "relay bench gemm");
}

}  // namespace

void add_bench_gemm(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand(
      "gemm", "Distributed GEMM: relay's broadcast schemes and look-ahead vs ScaLAPACK's p?gemm");
  cmd->footer(
      "Run under mpirun, one BLAS thread per rank (OPENBLAS_NUM_THREADS=1).\n"
      "Memory per rank beyond A, B, C: (lookahead + 1) x panel x (local rows + local columns)\n"
      "elements for the panels (printed as 'workspace'), plus, for a transposed or differently\n"
      "blocked operand, its redistribution buffers of the same order. The benchmark itself\n"
      "holds A, B, C and a copy of C for ScaLAPACK: 4 n^2 / P elements per rank.");
  cmd->add_option("--n", args->sizes, "matrix sizes n (M = N = K), comma-separated")
      ->capture_default_str();
  cmd->add_option("--grid", args->grid, "process grid RxC (default: the squarest for the ranks)");
  cmd->add_option("--block", args->block, "block size MB = NB")
      ->check(CLI::Range(1LL, kMaxPanel))
      ->capture_default_str();
  cmd->add_option("--panel", args->panel,
                  "panel width in k indices (0 = the default: a multiple of the block >= 256)")
      ->check(CLI::Range(0LL, kMaxPanel))
      ->capture_default_str();
  cmd->add_option("--algorithms", args->algorithms,
                  "distributed algorithms, comma-separated: 2d, 2.5d (c: the largest dividing "
                  "the grid <= min(4, P^(1/3))), 2.5d:C (C layers), 3d (c closest to P^(1/3)), "
                  "auto (the model's choice for each size)")
      ->capture_default_str();
  cmd->add_option("--schemes", args->schemes,
                  "panel broadcasts: binomial, pipeline-blocking, pipeline-nonblocking, mpi, any "
                  "algorithm[:policy], each optionally @SIZE (its own pipeline segment, e.g. "
                  "pipeline-nonblocking@32KiB) and /per_owner (the default: one broadcast "
                  "per owner per panel) or /per_block (one per k block); 'all' = the first four")
      ->capture_default_str();
  cmd->add_option("--segment", args->segment, "pipeline segment size")->capture_default_str();
  cmd->add_option("--lookahead", args->lookaheads,
                  "look-ahead depths, comma-separated (0.." + std::to_string(kMaxLookahead) + ")")
      ->capture_default_str();
  cmd->add_option("--pieces", args->pieces,
                  "local update pieces per panel, comma-separated (0 = auto: the model's count "
                  "with look-ahead, 1 without; docs/gemm.md)")
      ->capture_default_str();
  cmd->add_option("--precision", args->precision, "s, d, c or z")
      ->check(CLI::IsMember({"s", "d", "c", "z"}))
      ->capture_default_str();
  cmd->add_option("--reps", args->reps, "repetitions (interleaved; medians reported)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--no-scalapack", args->no_scalapack, "skip ScaLAPACK's p?gemm baseline");
  cmd->add_option("--link-gbits", args->link_gbits,
                  "a node's link rate, Gbit/s each way, for the link bound printed with each run "
                  "(default: RELAY_LINK_BITS_PER_S, which relay cluster run sets, else a simulated "
                  "platform's; unknown otherwise)")
      ->check(CLI::Range(0.0, 1e6));
  cmd->add_option("--start-jitter-us", args->start_jitter_us,
                  "simulations only: each rank starts each repetition after a delay drawn in [0, "
                  "this) from (rank, repetition), the same for every configuration, as noise "
                  "would (a simulation has none, and contended broadcasts depend on the ranks' "
                  "start pattern); default 100 in a simulation, 0 turns it off")
      ->check(CLI::Range(0.0, 1e6));
  add_result_options(cmd, *args, "");
  // Errors go to main: bad arguments exit 2, failures 1 (a failure on some ranks only stops
  // the launch).
  cmd->callback([args, &exit_code] {
    check_result_args(*args);
    exit_code = Bench(*args).run();
  });
}

}  // namespace relay::cli
