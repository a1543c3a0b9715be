// relay bench solve (issue 31): ScaLAPACK's own LU (pdgesv), Cholesky (pdposv) and QR (pdgels)
// solvers, unchanged, each run with ScaLAPACK's pdgemm_ and pdsyrk_ and with relay's,
// interleaved in one process: the drop-in's entry points are linked into this program and
// exported, so the solvers' calls reach them, and scalapack/serving.hpp says who serves each
// run. Per run: the solve's time (the slowest process), the time its processes spent in
// p?gemm_ and p?syrk_ (the multiplications: tan2014 Table I's share; Cholesky's are p?syrk_),
// the residual of the solution, and the energy where the machine has counters.
//
// Every repetition runs both servers on the same matrices (restored from a copy, untimed), in
// alternating order, so drifts of the machine hit both alike; ratios are the medians of the
// per-repetition ratios (paired). A warm-up solve per server comes first: relay's first call on
// a grid builds its communicators and measures what its model needs.
#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"

#ifdef RELAY_HAVE_SCALAPACK
#include "exec/compute.hpp"
#include "scalapack/prototypes.h"
#include "scalapack/serving.hpp"
#endif

namespace relay::cli {
namespace {

struct Args : ResultArgs {
  std::string sizes = "2048";
  std::string grid;  // "RxC"; default: the squarest grid of the launch
  int block = 64;
  std::string solvers = "lu,cholesky,qr";
  int nrhs = 1;
  int reps = 3;
  int warmup = 1;
};

// One solver: its ScaLAPACK routine, its flops (the leading term, n^3 scaled) and what tan2014
// Table I measured for it (the share of the run spent in matrix multiplication).
struct Solver {
  const char* name;
  const char* routine;
  double flops_per_n3;
  double tan2014_share;
  int tan2014_nb;
};
constexpr Solver kSolvers[] = {
    {"lu", "pdgesv", 2.0 / 3.0, 0.895, 32},
    {"cholesky", "pdposv", 1.0 / 3.0, 0.920, 128},
    {"qr", "pdgels", 4.0 / 3.0, 0.724, 256},
};

// A distributed n x cols matrix: its descriptor and this process's column-major local part.
struct Local {
  int desc[9] = {};
  int rows = 0, cols = 0;  // local
  std::vector<double> data;
};

class Bench {
 public:
  explicit Bench(const Args& a) : a_(a) {}
  int run();

 private:
#ifdef RELAY_HAVE_SCALAPACK
  Local make(int n, int cols) const;
  void fill(Local& m, int n, const Solver& s, bool rhs) const;
  double solve(const Solver& s, int n, Local& A, Local& B, std::vector<int>& ipiv,
               std::vector<double>& work);
  double residual(int n, const Local& A0, const Local& B0, const Local& X);
  void run_size(int n, nlohmann::json& rows);
#endif

  const Args& a_;
  int rank_ = 0, size_ = 1, rows_ = 1, cols_ = 1;
  int ctxt_ = -1, myrow_ = 0, mycol_ = 0;
  std::vector<const Solver*> solvers_;
  std::unique_ptr<measure::NodeEnergy> energy_;
  std::unique_ptr<MachineCpu> cpu_;  // one reader per machine
  std::unique_ptr<measure::Progress> progress_;
};

#ifdef RELAY_HAVE_SCALAPACK

// A matrix entry as a function of its global indices alone, so the matrix is the same whatever
// the grid and block size: uniform in [-0.5, 0.5) (splitmix64 of the pair).
double entry(std::uint64_t i, std::uint64_t j, std::uint64_t salt) {
  std::uint64_t x = (i << 32) ^ j ^ (salt * 0x9e3779b97f4a7c15ULL);
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<double>(x >> 11) / 9007199254740992.0 - 0.5;
}

Local Bench::make(int n, int cols) const {
  Local m;
  const int zero = 0;
  m.rows = numroc_(&n, &a_.block, &myrow_, &zero, &rows_);
  m.cols = numroc_(&cols, &a_.block, &mycol_, &zero, &cols_);
  const int lld = std::max(1, m.rows);
  int info = 0;
  descinit_(m.desc, &n, &cols, &a_.block, &a_.block, &zero, &zero, &ctxt_, &lld, &info);
  if (info != 0) throw std::runtime_error(fmt::format("descinit_ failed: INFO = {}", info));
  m.data.assign(static_cast<std::size_t>(lld) * static_cast<std::size_t>(std::max(1, m.cols)), 0.0);
  return m;
}

// A (rhs false): random for LU and QR; for Cholesky symmetric with n added on the diagonal,
// positive definite since every row's other entries sum to less than n in magnitude. B (rhs
// true): random.
void Bench::fill(Local& m, int n, const Solver& s, bool rhs) const {
  const bool spd = std::string(s.name) == "cholesky" && !rhs;
  const std::size_t lld = static_cast<std::size_t>(std::max(1, m.rows));
  const int nb = a_.block;
  for (int lj = 0; lj < m.cols; ++lj) {
    const std::uint64_t gj =
        static_cast<std::uint64_t>(((lj / nb) * cols_ + mycol_) * nb + lj % nb);
    for (int li = 0; li < m.rows; ++li) {
      const std::uint64_t gi =
          static_cast<std::uint64_t>(((li / nb) * rows_ + myrow_) * nb + li % nb);
      double v;
      if (rhs) {
        v = entry(gi, gj, 2);
      } else if (spd) {
        v = entry(std::min(gi, gj), std::max(gi, gj), 1) + (gi == gj ? n : 0.0);
      } else {
        v = entry(gi, gj, 1);
      }
      m.data[static_cast<std::size_t>(lj) * lld + static_cast<std::size_t>(li)] = v;
    }
  }
}

// One solve, timed between a barrier and the slowest process; A and B are overwritten (the
// factors and the solution). Returns this process's seconds; throws on INFO != 0 (every
// process: ScaLAPACK's INFO is global).
double Bench::solve(const Solver& s, int n, Local& A, Local& B, std::vector<int>& ipiv,
                    std::vector<double>& work) {
  const int one = 1;
  int info = 0;
  const std::string name = s.name;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (name == "lu") {
    pdgesv_(&n, &a_.nrhs, A.data.data(), &one, &one, A.desc, ipiv.data(), B.data.data(), &one, &one,
            B.desc, &info);
  } else if (name == "cholesky") {
    pdposv_("L", &n, &a_.nrhs, A.data.data(), &one, &one, A.desc, B.data.data(), &one, &one, B.desc,
            &info);
  } else {
    const int lwork = static_cast<int>(work.size());
    pdgels_("N", &n, &n, &a_.nrhs, A.data.data(), &one, &one, A.desc, B.data.data(), &one, &one,
            B.desc, work.data(), &lwork, &info);
  }
  const double seconds = MPI_Wtime() - t0;
  if (info != 0) {
    throw AgreedError(fmt::format("{} returned INFO = {} (n = {}, block {}, grid {}x{})", s.routine,
                                  info, n, a_.block, rows_, cols_));
  }
  return seconds;
}

// ScaLAPACK's own check (its pdgesv test): ||A x - b||_inf / (||A||_inf ||x||_inf n eps), with
// ScaLAPACK's own pdgemm_ for the product whoever served the solve.
double Bench::residual(int n, const Local& A0, const Local& B0, const Local& X) {
  static relay_pgemm_fn pdgemm = scalapack::scalapack_pgemm("pdgemm_");
  Local R = B0;
  const int one = 1;
  const double minus_one = -1.0, plus_one = 1.0;
  pdgemm("N", "N", &n, &a_.nrhs, &n, &minus_one, A0.data.data(), &one, &one, A0.desc, X.data.data(),
         &one, &one, X.desc, &plus_one, R.data.data(), &one, &one, R.desc);
  std::vector<double> work(static_cast<std::size_t>(std::max(A0.rows, A0.cols)) + 2 * a_.block);
  const double r = pdlange_("I", &n, &a_.nrhs, R.data.data(), &one, &one, R.desc, work.data());
  const double a = pdlange_("I", &n, &n, A0.data.data(), &one, &one, A0.desc, work.data());
  const double x = pdlange_("I", &n, &a_.nrhs, X.data.data(), &one, &one, X.desc, work.data());
  const double eps = std::numeric_limits<double>::epsilon();
  return r / (a * x * n * eps);
}

void Bench::run_size(int n, nlohmann::json& rows) {
  for (const Solver* sp : solvers_) {
    const Solver& s = *sp;
    Local A0 = make(n, n), B0 = make(n, a_.nrhs);
    fill(A0, n, s, false);
    fill(B0, n, s, true);
    Local A = A0, B = B0;
    std::vector<int> ipiv(static_cast<std::size_t>(A0.rows + a_.block));
    std::vector<double> work(1);
    if (std::string(s.name) == "qr") {  // pdgels's workspace query
      const int one = 1, query = -1;
      int info = 0;
      double size = 0;
      pdgels_("N", &n, &n, &a_.nrhs, A.data.data(), &one, &one, A.desc, B.data.data(), &one, &one,
              B.desc, &size, &query, &info);
      work.assign(static_cast<std::size_t>(size) + 1, 0.0);
    }
    struct Series {
      Series(const char* name, scalapack::Server who) : by(name), server(who) {}
      const char* by;
      scalapack::Server server;
      std::vector<double> time, gemm, share, resid, cpu;
      long long calls = 0, by_relay = 0;
      std::string config;
      measure::EnergyTotal energy;
    };
    // relay's row is the drop-in as an application gets it (RELAY_SCALAPACK_FORWARD decides).
    Series series[2] = {{"scalapack", scalapack::Server::scalapack},
                        {"relay", scalapack::Server::settings}};
    std::vector<double> ratio;  // per repetition: ScaLAPACK's time / relay's
    auto once = [&](Series& r, bool timed) {
      A.data = A0.data;
      B.data = B0.data;
      scalapack::serve_with(r.server);
      scalapack::reset_call_totals();
      if (timed) {
        cpu_->begin();
        energy_->begin();
      }
      const double mine = solve(s, n, A, B, ipiv, work);
      double slowest = mine;
      exec::allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (timed) {
        energy_->end();
        const measure::RegionEnergy e = energy_->result();
        r.energy.add(e.joules, e.seconds, 1);
        r.cpu.push_back(cpu_->end());
      }
      const scalapack::CallTotals totals = scalapack::call_totals();
      scalapack::serve_with(scalapack::Server::settings);
      // The share: time in p?gemm_ over the solve's, summed over the processes.
      double sums[2] = {totals.seconds, mine};
      exec::allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      long long counts[2] = {totals.calls, totals.by_relay};
      exec::allreduce(MPI_IN_PLACE, counts, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      const double resid = residual(n, A0, B0, B);
      if (!timed) return slowest;
      r.time.push_back(slowest);
      r.gemm.push_back(sums[0] / size_);
      r.share.push_back(sums[1] > 0 ? sums[0] / sums[1] : 0.0);
      r.resid.push_back(resid);
      r.calls = counts[0];
      r.by_relay = counts[1];
      if (!totals.last_config.empty()) r.config = totals.last_config;
      if (progress_) progress_->step(fmt::format("{} {} {:.3f} s", s.name, r.by, slowest));
      return slowest;
    };
    for (int w = 0; w < a_.warmup; ++w) {
      for (Series& r : series) once(r, false);
    }
    for (int rep = 0; rep < a_.reps; ++rep) {
      const int first = rep % 2;  // alternate the order
      const double t_first = once(series[first], true);
      const double t_second = once(series[1 - first], true);
      const double t_scalapack = first == 0 ? t_first : t_second;
      const double t_relay = first == 0 ? t_second : t_first;
      ratio.push_back(t_scalapack / t_relay);
    }
    // relay's configuration as rank 0 saw it (the processes agree: the choice is collective).
    const double flops = s.flops_per_n3 * static_cast<double>(n) * n * n;
    for (Series& r : series) {
      nlohmann::json row;
      row["solver"] = s.name;
      row["routine"] = s.routine;
      row["n"] = n;
      row["block"] = a_.block;
      row["nrhs"] = a_.nrhs;
      row["grid"] = fmt::format("{}x{}", rows_, cols_);
      row["ranks"] = size_;
      row["pgemm_by"] = r.by;
      row["time_s"] = measure::median(r.time);
      row["times_s"] = r.time;
      row["gflops"] = flops / measure::median(r.time) / 1e9;
      row["pgemm_s"] = measure::median(r.gemm);
      row["pgemm_share"] = measure::median(r.share);
      row["pgemm_calls"] = r.calls / size_;
      row["pgemm_calls_by_relay"] = r.by_relay / size_;
      row["tan2014_share"] = s.tan2014_share;
      row["tan2014_block"] = s.tan2014_nb;
      row["residual"] = *std::max_element(r.resid.begin(), r.resid.end());
      row["vs_scalapack"] = r.server == scalapack::Server::scalapack ? 1.0 : measure::median(ratio);
      row["relay_config"] = r.config;
      cpu_to_row(row, r.cpu);
      r.energy.to_row(row);
      rows.push_back(row);
    }
  }
}

#endif  // RELAY_HAVE_SCALAPACK

int Bench::run() {
  ensure_mpi();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#ifndef RELAY_HAVE_SCALAPACK
  throw AgreedError(
      "relay bench solve needs ScaLAPACK: this relay was built without it (apt install "
      "libscalapack-openmpi-dev or libscalapack-mpich-dev, then rebuild)");
#else
  grid_shape(a_.grid, size_, rows_, cols_);
  std::vector<std::string> all;
  for (const Solver& s : kSolvers) all.emplace_back(s.name);
  for (const std::string& name : parse_name_list(a_.solvers, all, "--solvers")) {
    for (const Solver& s : kSolvers) {
      if (name == s.name) solvers_.push_back(&s);
    }
  }
  const std::vector<int> sizes =
      parse_int_list(a_.sizes, 1, std::numeric_limits<int>::max() / 2, "--n");
  // Per process: A and its copy, B, its copy and the residual's, the solvers' workspaces (of
  // the order of a block column); rank 0 says it before anything is allocated.
  const int n_max = *std::max_element(sizes.begin(), sizes.end());
  const double local_rows = std::ceil(static_cast<double>(n_max) / a_.block / rows_) * a_.block;
  const double local_cols = std::ceil(static_cast<double>(n_max) / a_.block / cols_) * a_.block;
  const double need = 8.0 * (2 * local_rows * local_cols + 3 * local_rows * a_.nrhs +
                             4.0 * a_.block * (local_rows + local_cols));
  if (rank_ == 0 && !a_.quiet) {
    std::printf(
        "# memory per process: %s (A and a copy, B, a copy and the residual, "
        "workspaces) at n = %d\n",
        human_bytes(need).c_str(), n_max);
  }
  require_memory(MPI_COMM_WORLD, need,
                 fmt::format("relay bench solve --n {} on a {}x{} grid", n_max, rows_, cols_));
  energy_ = bench_energy(MPI_COMM_WORLD);
  cpu_ = std::make_unique<MachineCpu>(MPI_COMM_WORLD);
  Cblacs_get(0, 0, &ctxt_);
  Cblacs_gridinit(&ctxt_, "Row", rows_, cols_);
  int r = 0, c = 0;
  Cblacs_gridinfo(ctxt_, &r, &c, &myrow_, &mycol_);
  const std::size_t total = sizes.size() * solvers_.size() * 2 * static_cast<std::size_t>(a_.reps);
  progress_ = std::make_unique<measure::Progress>(rank_ == 0 && !a_.quiet, "solve ", total);
  nlohmann::json rows = nlohmann::json::array();
  for (int n : sizes) run_size(n, rows);
  progress_.reset();
  Cblacs_gridexit(ctxt_);

  if (rank_ == 0) {
    std::printf(
        "\n# relay bench solve: ScaLAPACK's solvers with ScaLAPACK's pdgemm_ and pdsyrk_ and "
        "with relay's, "
        "grid %dx%d, block %d, %d right-hand side%s, %d reps (medians; vs_scalapack: median of "
        "the paired ratios, > 1 = relay faster)\n",
        rows_, cols_, a_.block, a_.nrhs, a_.nrhs == 1 ? "" : "s", a_.reps);
    std::printf("%s\n", energy_note(*energy_, "per solve (mean over the reps)").c_str());
    std::printf("%-9s %6s %-9s %9s %8s %9s %7s %9s %13s %9s %12s %6s%s\n", "solver", "n",
                "served_by", "time_s", "GFLOP/s", "mult_s", "share", "relay/all", "tan2014_share",
                "residual", "vs_scalapack", "cpu%", energy_titles().c_str());
    for (const auto& row : rows) {
      std::printf(
          "%-9s %6d %-9s %9.3f %8.2f %9.3f %6.1f%% %9s %7.1f%% nb=%-3d %9.2e %11.3fx %6s%s\n",
          row["solver"].get<std::string>().c_str(), row["n"].get<int>(),
          row["pgemm_by"].get<std::string>().c_str(), row["time_s"].get<double>(),
          row["gflops"].get<double>(), row["pgemm_s"].get<double>(),
          100 * row["pgemm_share"].get<double>(),
          fmt::format("{}/{}", row["pgemm_calls_by_relay"].get<long long>(),
                      row["pgemm_calls"].get<long long>())
              .c_str(),
          100 * row["tan2014_share"].get<double>(), row["tan2014_block"].get<int>(),
          row["residual"].get<double>(), row["vs_scalapack"].get<double>(), cpu_cell(row).c_str(),
          energy_cells(row).c_str());
    }
    std::printf(
        "served_by: who served the p?gemm_ and p?syrk_ calls (the multiplications); mult_s: "
        "seconds per process in them; share: their time over the solve's, summed over the "
        "processes (tan2014 Table I: its cluster and block sizes); relay/all: the calls per "
        "process relay served / all (relay's drop-in hands one panel step on one node to "
        "ScaLAPACK's own unless RELAY_SCALAPACK_FORWARD=relay); residual: ||A x - b|| / (||A|| "
        "||x|| n eps), the worst rep; cpu%%: the busiest machine's CPUs busy during the solve "
        "(/proc/stat, every process and the kernel; a polling wait counts as busy)\n");
    for (const auto& row : rows) {
      if (row["pgemm_by"] != "relay") continue;
      if (row["pgemm_calls"].get<long long>() == 0) {
        // Debian's ScaLAPACK 2.2: pdgels's PDLARFB multiplies with local DGEMM.
        std::printf(
            "# %s n=%d: %s made no p?gemm_ or p?syrk_ call; both rows ran the same code, and "
            "their ratio is this run's noise\n",
            row["solver"].get<std::string>().c_str(), row["n"].get<int>(),
            row["routine"].get<std::string>().c_str());
      } else if (!row["relay_config"].get<std::string>().empty()) {
        std::printf("# relay's drop-in, %s n=%d, its last call: %s\n",
                    row["solver"].get<std::string>().c_str(), row["n"].get<int>(),
                    row["relay_config"].get<std::string>().c_str());
      }
    }
    std::fflush(stdout);
  }
  nlohmann::json doc;
  doc["schema"] = "relay.bench.solve/1";  // schemas/relay-bench-solve.schema.json
  doc["benchmark"] = "solve";
  doc["machine"] = machine_description(MPI_COMM_WORLD);
  doc["energy"] = energy_document(*energy_, "per solve (mean over the reps)");
  doc["rows"] = rows;
  energy_.reset();
  if (rank_ != 0) return 0;
  return write_results(doc, a_.json_path, a_.plot_path, "solve.py", "relay bench solve");
#endif
}

}  // namespace

void add_bench_solve(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand(
      "solve",
      "ScaLAPACK's LU, Cholesky and QR solvers with ScaLAPACK's pdgemm_ and pdsyrk_ and with "
      "relay's "
      "(tan2014 Table I)");
  cmd->footer(
      "Run under mpirun, one BLAS thread per rank (OPENBLAS_NUM_THREADS=1). Each solve runs\n"
      "with ScaLAPACK's own pdgemm_ and pdsyrk_ and with relay's, interleaved, on the same\n"
      "matrices (LU multiplies with pdgemm_, Cholesky with pdsyrk_); the\n"
      "solvers themselves are ScaLAPACK's, unchanged (pdgesv, pdposv, pdgels).");
  cmd->add_option("--n", args->sizes, "matrix sizes n, comma-separated")->capture_default_str();
  cmd->add_option("--grid", args->grid, "process grid RxC (default: the squarest for the ranks)");
  cmd->add_option("--block", args->block, "block size MB = NB")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--solvers", args->solvers, "lu, cholesky, qr, comma-separated, or all")
      ->capture_default_str();
  cmd->add_option("--nrhs", args->nrhs, "right-hand sides")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--reps", args->reps, "timed repetitions per server (interleaved; medians)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "untimed solves per server first")
      ->check(CLI::Range(0, 100))
      ->capture_default_str();
  add_result_options(cmd, *args, "");
  cmd->callback([args, &exit_code] {
    check_result_args(*args);
    exit_code = Bench(*args).run();
  });
}

}  // namespace relay::cli
