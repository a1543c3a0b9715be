// What relay bench bcast and relay bench coll share: the options of a sweep of sizes x
// algorithms x policies x segments, and the printing of what the library measured and judged
// (measure/sweep: the sweep and the confirmation; tune/model_accuracy: the model's picks): the
// OSU-style tables, the summary, the confirmation and the model's accuracy.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/commands.hpp"
#include "measure/energy.hpp"
#include "measure/node_energy.hpp"
#include "measure/sweep.hpp"
#include "measure/timing.hpp"
#include "model/params.hpp"
#include "relay/relay.h"

namespace relay::cli {

/// The most rounds (--rounds, --confirm-rounds): every round's rows are kept.
inline constexpr int kMaxRounds = 1000;

/// The options every sweep benchmark takes (each command sets its own default sizes).
struct SweepArgs {
  std::string sizes;
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "0,8KiB,64KiB,512KiB";
  int max_requests = 16;
  int root = 0;
  measure::IterationArgs timing;
  int rounds = 1;
  int confirm = 0;  // re-measure the sweep's fastest N per size, and auto
  int confirm_rounds = 9;
  std::string json_path;
  std::string plot_path;
  std::string model_path;  // parameter file: print the model's time next to each row
  int model_confirm = 2;   // with --model: each curve's fastest N and the model's picks again
  bool quiet = false;
  // The OSU micro-benchmarks' flags: -m [MIN:]MAX (sizes), --osu (their timing and table), -f
  // (their full table); -i and -x are --iterations and --warmup.
  std::string osu_sizes;
  bool osu = false;
  bool full = false;
  bool warmup_given = false;  // -x/--warmup on the command line (else OSU's own with --osu)
};

/// --sizes, --algorithms, --policies, --segments.
void add_sweep_axes(CLI::App* cmd, SweepArgs& a, const std::string& sizes_help,
                    const std::string& algorithms_help);
/// --max-requests, --root, --iterations, --warmup, --min-time, --max-iterations, --confirm,
/// --confirm-rounds.
void add_sweep_timing(CLI::App* cmd, SweepArgs& a);
/// --iterations, --warmup, --min-time, --max-iterations (also relay bench overlap's).
void add_iteration_options(CLI::App* cmd, measure::IterationArgs& t);

/// The broadcast and reduce options of SymmSquareCube's collectives (relay bench symm, relay
/// purify): MPI's own for `mpi`, relay's defaults otherwise.
struct SymmCollectives {
  relay_bcast_options_t bcast;
  relay_coll_options_t reduce;
  relay_coll_options_t allreduce;  ///< Algorithm 6's D^2
};
SymmCollectives symm_collectives(const std::string& parts);

/// avg_us, min_us, max_us and iterations of the times (seconds) into row.
void add_times(nlohmann::json& row, const std::vector<double>& times_s);
/// --rounds, --json, --plot, --model, --model-confirm, --quiet and --cluster (listed for --help;
/// main.cpp relaunches `relay bench <what> --cluster` before parsing).
void add_sweep_output(CLI::App* cmd, SweepArgs& a, const std::string& model_help);
/// --json, --plot (`plot_help`: what it draws), --quiet and --cluster (listed for --help) of
/// the benchmarks that are not sweeps (gemm, overlap, symm, solve).
struct ResultArgs {
  std::string json_path;
  std::string plot_path;
  bool quiet = false;
};
void add_result_options(CLI::App* cmd, ResultArgs& a, const std::string& plot_help);
/// The process grid of --grid RxC (`text`), or the squarest of `ranks` when empty; throws
/// std::invalid_argument when it is not RxC or does not hold `ranks`.
void grid_shape(const std::string& text, int ranks, int& rows, int& cols);
/// The MPI type of a --precision letter: s, d, c or z (MPI_FLOAT, MPI_DOUBLE,
/// MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX); throws std::invalid_argument for anything else.
MPI_Datatype precision_type(const std::string& precision);
/// Throws CLI::ValidationError for --plot without --json.
void check_result_args(const ResultArgs& a);
/// Throws CLI::ValidationError for --plot without --json or a bad -m; turns -m into --sizes.
void check_sweep_args(SweepArgs& a);

/// Runs the command: checks the options, starts MPI, and runs a `Bench` made from them.
template <class Bench, class Args>
void set_sweep_callback(CLI::App* cmd, const std::shared_ptr<Args>& args, int& exit_code) {
  cmd->callback([cmd, args, &exit_code] {
    args->warmup_given = cmd->get_option("--warmup")->count() > 0;
    check_sweep_args(*args);
    ensure_mpi();
    Bench bench_run(*args);
    exit_code = bench_run.run();
  });
}

/// The energy meter of relay bench (issue 31, docs/energy.md), collective over comm: RAPL
/// under RELAY_POWERCAP_ROOT (default /sys/class/powercap) read by one process per node; none in
/// a simulation.
std::unique_ptr<measure::NodeEnergy> bench_energy(MPI_Comm comm);
/// The energy columns of a table: their titles, and a row's cells (each number "%.4g", or
/// "unavailable" where the row's field is null), 11 wide each, with a leading space.
std::string energy_titles();
std::string energy_cells(const nlohmann::json& row);
/// "# energy: ..." for above the tables: the meter, the nodes it sums over, what the columns
/// hold (`per`: "per call"), and once per domain why it is unavailable.
std::string energy_note(const measure::NodeEnergy& energy, const std::string& per);
/// A results document's "energy": the meter, the nodes counted, what the row fields hold, and
/// per domain null or the reason its fields are null.
nlohmann::json energy_document(const measure::NodeEnergy& energy, const std::string& per);

/// How busy the machines' CPUs were during a measured call: one rank per machine (the ranks
/// sharing its cores, exec::machine_comm) reads /proc/stat before and after, and a call's
/// figure is the busiest machine's share of CPU time not idle, over all its CPUs (every
/// process and the kernel's network processing). Well below 1: the ranks waited idle. Near
/// 1: the CPUs were the limit, or ranks polled while waiting (MPI's blocking waits poll;
/// relay's sleep between polls with RELAY_IDLE_SLEEP_US, as relay cluster run sets with more
/// than 2 ranks per CPU).
/// Collective construction over comm; unavailable (never read, no message) in a simulation.
class MachineCpu {
 public:
  explicit MachineCpu(MPI_Comm comm);
  /// Local: the machine's leader reads the counters. Before the call's first barrier.
  void begin();
  /// Collective over comm: the busiest machine's busy share since begin(), the same on every
  /// rank; -1 when unavailable or the call was too short for the counters' ticks. After every
  /// rank of the call has finished it.
  double end();

 private:
  MPI_Comm comm_;
  bool leads_ = false, available_ = false;
  unsigned long long busy_ = 0, total_ = 0;
};

/// A row's `machine_cpu_busy` from a call's MachineCpu::end() shares (their median); absent
/// where it is negative (not read, or calls too short for /proc/stat's ticks).
void cpu_to_row(nlohmann::json& row, const std::vector<double>& shares);
/// The row's cpu% cell ("97%", or "-" without the field).
std::string cpu_cell(const nlohmann::json& row);

/// One configuration of a sweep.
using BenchConfig = measure::SweepConfig;

/// "algorithm=A policy=P segment=S".
std::string label(const BenchConfig& c);

/// The value of `key` in a describe line "algorithm=A policy=P segment_bytes=S ..." ("" if
/// absent).
std::string resolved_field(const std::string& text, const std::string& key);

/// One row per combination and size, fastest first, with each row's time relative to the best.
void print_summary(const nlohmann::json& rows);

using measure::MeasureRow;

/// Per configuration (rank 0 prints): `header(config)` and an OSU-style table, with the
/// model's columns when `with_model`; every combined row, passed through add_prediction, is
/// appended to doc["rows"] on every rank. Returns how many rows failed.
long print_tables(MPI_Comm comm, const SweepArgs& a, const std::vector<BenchConfig>& configs,
                  const std::vector<std::int64_t>& sizes,
                  const std::vector<std::vector<nlohmann::json>>& measured, bool with_model,
                  const std::function<std::string(const BenchConfig&)>& header,
                  const std::function<void(nlohmann::json&)>& add_prediction, nlohmann::json& doc);

/// --confirm N: the sweep's fastest N per size (and auto) measured again head to head for
/// --confirm-rounds rounds and compared round by round (measure::confirm_fastest); rank 0
/// prints the tables and fills doc["confirmation"]. Collective over comm.
void confirm_fastest(MPI_Comm comm, const SweepArgs& a, const std::vector<BenchConfig>& configs,
                     const std::vector<std::int64_t>& sizes,
                     const std::vector<std::vector<nlohmann::json>>& measured,
                     const MeasureRow& measure, nlohmann::json& doc);

/// A sweep benchmark on a duplicate of MPI_COMM_WORLD: the command measures one configuration
/// (measure) and costs it with the model (add_prediction); the sweep, its tables, the summary,
/// the confirmation and the results files are the same for every command.
class SweepBench {
 public:
  explicit SweepBench(const SweepArgs& a);
  virtual ~SweepBench();
  SweepBench(const SweepBench&) = delete;
  SweepBench& operator=(const SweepBench&) = delete;

 protected:
  /// One configuration at one size: a row with avg_us (or error), agreed over ranks.
  virtual nlohmann::json measure(const BenchConfig& c, std::int64_t bytes) = 0;
  /// predicted_us and predicted_over_measured into a measured row, where the model has it.
  virtual void add_prediction(nlohmann::json& row) const = 0;

  /// Times op (time_iterations) into row: avg_us, min_us, max_us, iterations, bandwidth_MBps
  /// (bytes / avg), and the energy of the timed calls (EnergyTotal::to_row).
  void add_timing(nlohmann::json& row, std::int64_t bytes,
                  const std::function<void(bool)>& op) const;
  /// The energy of the region energy_ just measured, `calls` calls, into row.
  void add_energy(nlohmann::json& row, long calls) const;
  /// measure_sweep, print_tables (a table per configuration under `header`), print_summary
  /// and, with --confirm, confirm_fastest; fills doc (doc["rows"]: configuration-major, each
  /// configuration's sizes in order); returns the failed rows.
  long sweep(const std::vector<BenchConfig>& configs, const std::vector<std::int64_t>& sizes,
             const std::function<std::string(const BenchConfig&)>& header, nlohmann::json& doc);
  /// With --model, after sweep (from its rows in doc["rows"]), per size: for each algorithm and
  /// policy swept over several segments (the configurations `modelled` accepts), the segment
  /// the model predicts best against the fastest measured, and the model's choice among all of
  /// them against the fastest of all; with --model-confirm N, each pick and the N fastest beside
  /// it measured again head to head. Rank 0 prints; doc["model_accuracy"] and
  /// doc["model_choice"]. Collective over comm_.
  void model_accuracy(const std::vector<BenchConfig>& configs,
                      const std::vector<std::int64_t>& sizes, nlohmann::json& doc,
                      const std::function<bool(const BenchConfig&)>& modelled);
  /// The exit code: 1 on every rank when rows failed (said on stderr), else what writing
  /// the JSON and the plot (python/<script>) returned on rank 0.
  int finish(const nlohmann::json& doc, long failed, const std::string& command,
             const std::string& script) const;

  const SweepArgs& sweep_args_;
  std::optional<model::Machine> machine_;  // --model
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::unique_ptr<measure::NodeEnergy> energy_;
  int rank_ = 0, size_ = 1;
};

}  // namespace relay::cli
