// relay tune: runs a tuning session (tune/session) on MPI_COMM_WORLD -- the best {algorithm,
// policy, segment size} per message size by exhaustive search, MGD, SMGD, the model alone and
// model-guided search -- prints what each cost and how good its choice is, and writes the
// decision table (relay.tuning/1).
// relay table check / export: validate a table; write it as an Open MPI coll/tuned dynamic
// rules file and an MPICH collective selection JSON.
#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "coll/table.hpp"
#include "core/units.hpp"
#include "measure/progress.hpp"
#include "model/params.hpp"
#include "relay/gemm.h"
#include "tune/export.hpp"
#include "tune/gemm_panels.hpp"
#include "tune/session.hpp"

namespace relay::cli {
namespace {

struct TuneArgs {
  std::string operation = "bcast";
  std::string sizes = "64KiB,1MiB,8MiB";
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "1KiB:4MiB";
  std::string methods = "exhaustive,mgd,smgd,model,guided";
  std::string table_method = "smgd";
  std::string params;
  std::string predict_ranks;
  std::string output = "relay-tuning.json";
  std::string json_path;
  std::string plot_path;
  double min_time = 0.05;
  int max_requests = 16;
  int root = 0;
  int top_k = 3;
  double threshold = 1.2;
  double noise = 0.03;
  int variant_top = 2;
  double variant_within = 1.10;
  int patience = 2;
  int confirm = 4;
  int confirm_rounds = 7;
  bool smgd_gradient = false;
  bool quiet = false;
  // --for-gemm
  bool for_gemm = false;
  std::string gemm_sizes = "4096";
  std::string grid;  // "RxC"; default: the squarest grid of the launch
  long long block = 64;
  int lookahead = 1;
  long long panel = 0;
  int pieces = 0;
  int reps = 3;
  std::string precision = "d";
};

// The options of the collective tuning session that --for-gemm does not use, and the GEMM's
// that only it does: given with the other mode, refused (not silently ignored).
const char* const kSessionOnly[] = {
    "--operation",     "--policies",       "--methods",       "--table-method", "--params",
    "--predict-ranks", "--plot",           "--min-time",      "--max-requests", "--root",
    "--top-k",         "--threshold",      "--noise",         "--variant-top",  "--variant-within",
    "--confirm",       "--confirm-rounds", "--smgd-gradient", "--patience"};
const char* const kGemmOnly[] = {"--n",     "--grid",   "--block", "--lookahead",
                                 "--panel", "--pieces", "--reps",  "--precision"};

// The session's options from the command line's (the lists parsed, the parameter file read
// where the session needs the model).
tune::SessionOptions session_options(const TuneArgs& a, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  tune::SessionOptions o;
  o.collective = parse_operation(a.operation);
  o.algorithms = parse_name_list(a.algorithms, coll::table_algorithms(a.operation),
                                 o.collective ? a.operation + " algorithm" : "broadcast algorithm");
  o.policies = parse_name_list(a.policies, {"blocking", "nonblocking"}, "policy");
  o.sizes = parse_size_list(a.sizes);
  o.segments = parse_size_list(a.segments);
  o.methods =
      parse_name_list(a.methods, {"exhaustive", "mgd", "smgd", "model", "guided"}, "method");
  o.table_method = a.table_method;
  if (!a.predict_ranks.empty()) {
    for (auto r : parse_size_list(a.predict_ranks)) {
      if (r < 1 || r > (1 << 20))
        throw std::invalid_argument("--predict-ranks: a process count is out of range");
      o.predict_ranks.push_back(static_cast<int>(r));
    }
  }
  o.min_time_s = a.min_time;
  o.max_requests = a.max_requests;
  o.root = a.root;
  o.search.patience = a.patience;
  o.search.threshold = a.threshold;
  o.search.noise = a.noise;
  o.search.variant_top = a.variant_top;
  o.search.variant_within = a.variant_within;
  o.search.top_k = a.top_k;
  o.confirm = a.confirm;
  o.confirm_rounds = a.confirm_rounds;
  o.smgd_gradient = a.smgd_gradient;
  o.quiet = a.quiet;
  if (!a.params.empty() && tune::needs_model(o, size)) {
    o.machine = model::machine_from_json(model::read_params_file(a.params), true);
    o.machine_source = a.params;
  }
  o.check_memory = [comm](double bytes, const std::string& what) {
    require_memory(comm, bytes, what);
  };
  return o;
}

std::string describe(const nlohmann::json& config) {
  const auto algorithm = config["algorithm"].get<std::string>();
  if (algorithm == "mpi") return "mpi";
  const auto segment = config["segment_bytes"].get<std::int64_t>();
  return fmt::format("{} {} {}", algorithm, config["policy"].get<std::string>(),
                     segment > 0 ? core::format_bytes(segment) : "unsegmented");
}

// One size's report, from its entry of the results: the algorithms measured once for another
// of the same schedules, each method's choice and cost, and the confirmation.
void print_size(const nlohmann::json& size_doc, const std::string& op, int ranks) {
  const auto bytes = size_doc["size_bytes"].get<std::int64_t>();
  for (const auto& twin : size_doc["same_schedules"]) {
    const auto policy = twin["policy"].get<std::string>();
    const auto as = twin["as"].get<std::string>();
    std::printf("# %s: %s %s runs the same schedules as %s %s on %d ranks: measured once, as %s\n",
                core::format_bytes(bytes).c_str(), twin["algorithm"].get<std::string>().c_str(),
                policy.c_str(), as.c_str(), policy.c_str(), ranks, as.c_str());
  }
  std::printf(
      "# %s %s on %d ranks: tuning methods (x best = measured time of the choice / "
      "exhaustive best; speed-up = exhaustive measurement seconds / the method's)\n",
      op.c_str(), core::format_bytes(bytes).c_str(), ranks);
  std::printf("%-11s %11s %14s %-40s %12s %8s %9s\n", "# Method", "Experiments", "Measuring(s)",
              "Choice", "Time(us)", "x best", "Speed-up");
  const auto& methods = size_doc["methods"];
  const auto exhaustive = std::find_if(methods.begin(), methods.end(), [](const nlohmann::json& m) {
    return m["method"] == "exhaustive";
  });
  const bool have_ex = exhaustive != methods.end();
  const double ex_cost = have_ex ? (*exhaustive)["measuring_s"].get<double>() : 0;
  for (const auto& m : methods) {
    const double cost_s = m["measuring_s"].get<double>();
    std::printf("%-11s %11d %14.2f %-40s %12.1f %8s %9s\n", m["method"].get<std::string>().c_str(),
                m["experiments"].get<int>(), cost_s, describe(m).c_str(),
                m["time_us"].get<double>(),
                have_ex ? fmt::format("{:.3f}", m["x_best"].get<double>()).c_str() : "-",
                have_ex && cost_s > 0 ? fmt::format("{:.1f}x", ex_cost / cost_s).c_str() : "-");
  }
  if (size_doc.contains("confirmation")) {
    const auto& c = size_doc["confirmation"];
    const auto& rows = c["rows"];
    const auto fastest = static_cast<std::size_t>(std::count_if(
        rows.begin(), rows.end(), [](const nlohmann::json& r) { return !r["rival"].get<bool>(); }));
    // The table's: the first of the lowest (x best 1).
    std::size_t best = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      if (rows[i]["x_best"].get<double>() < rows[best]["x_best"].get<double>()) best = i;
    }
    std::printf(
        "# confirmation of %s's %zu fastest and %zu other algorithms' best (within 1.25x), head to "
        "head in %d "
        "rounds (%.2f s, not in the speed-ups above)\n",
        c["method"].get<std::string>().c_str(), fastest, rows.size() - fastest,
        c["rounds"].get<int>(), c["seconds"].get<double>());
    std::printf("%-11s %-40s %12s %14s %8s\n", "# Place", "Configuration", "Search(us)",
                "Confirmed(us)", "x best");
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto& r = rows[i];
      std::printf("%-11s %-40s %12.1f %14.1f %8.3f%s\n",
                  i < fastest ? fmt::format("{}", i + 1).c_str() : "rival", describe(r).c_str(),
                  r["search_us"].get<double>(), r["confirmed_us"].get<double>(),
                  r["x_best"].get<double>(), i == best ? "  <- the table's" : "");
    }
  }
  std::printf("\n");
}

int run_tune(const TuneArgs& a) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  tune::SessionOptions o = session_options(a, comm);
  o.machine_description = machine_description(comm);  // collective
  tune::SessionEvents events;
  const std::string op = tune::operation_name(o.collective);
  if (rank == 0) {
    events.skipped = [&](const std::string& name) {
      std::printf("# %s %s needs a power-of-two process count: not tuned on %d ranks\n", op.c_str(),
                  name.c_str(), size);
    };
    events.measuring_model = [&] {
      if (!a.quiet)
        std::fprintf(stderr,
                     "relay tune: no --params: measuring point-to-point parameters first\n");
    };
    events.model_measured = [](double seconds) {
      std::printf(
          "# model parameters measured in %.1f s (once; `relay model measure` + --params "
          "reuses them)\n",
          seconds);
    };
    events.size_done = [&](const nlohmann::json& size_doc) { print_size(size_doc, op, size); };
  }
  const tune::SessionResult result = tune::run_session(comm, o, events);
  if (rank != 0) return 0;
  coll::Table::from_json(result.table.to_json());  // what relay_tuning_load will accept
  result.table.save(a.output);
  std::printf("# wrote %s (%zu rules; load with RELAY_TUNING_FILE=%s or relay_tuning_load)\n",
              a.output.c_str(), result.table.rules.size(), a.output.c_str());
  return write_results(result.results, a.json_path, a.plot_path, "tune.py", "relay tune");
}

// relay tune --for-gemm: the GEMM run with each candidate panel broadcast (tune/gemm_panels).
int run_tune_gemm(const TuneArgs& a, bool segments_given) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, size = 1, rows = 1, cols = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  grid_shape(a.grid, size, rows, cols);
  tune::GemmTuneOptions o;
  for (auto n : parse_size_list(a.gemm_sizes)) {
    if (n < 1 || n > std::numeric_limits<int>::max())
      throw std::invalid_argument("--n: a matrix size is out of range");
    o.sizes.push_back(n);
  }
  o.type = precision_type(a.precision);
  o.block = a.block;
  o.lookahead = a.lookahead;
  o.panel_width = a.panel;
  o.pieces = a.pieces;
  o.reps = a.reps;
  // "all": tan2014's broadcasts, the trees and MPI's own (the GEMM's broadcasts are many and
  // concurrent: every algorithm of the registry but chain and kary, whose fanout is a second
  // axis, by default).
  const std::vector<std::string> algorithms =
      a.algorithms == "all"
          ? std::vector<std::string>{"mpi",     "linear", "binomial", "binary", "scatter_allgather",
                                     "pipeline"}
          : parse_name_list(a.algorithms, coll::table_algorithms("bcast"), "broadcast algorithm");
  std::vector<long long> segments;
  for (auto s : parse_size_list(segments_given ? a.segments : std::string("32KiB,128KiB,512KiB")))
    segments.push_back(s);
  o.candidates = tune::panel_candidates(algorithms, segments);
  o.check_memory = [comm](double bytes, const std::string& what) {
    require_memory(comm, bytes, what);
  };
  relay_grid_t grid = RELAY_GRID_NULL;
  if (relay_grid_create(comm, rows, cols, 'R', &grid) != RELAY_SUCCESS)
    throw std::runtime_error(relay_last_error());
  measure::Progress progress(
      rank == 0 && !a.quiet, "",
      o.sizes.size() * static_cast<std::size_t>(a.reps) * o.candidates.size());
  tune::GemmTuneEvents events;
  events.measured = [&](long long n, const tune::PanelCandidate& c, int, double seconds) {
    progress.step(fmt::format("n={} {} {:.3f} s", n, c.name, seconds));
  };
  events.size_done = [&](const nlohmann::json& doc) {
    if (rank != 0) return;
    progress.end_line();
    std::printf(
        "\n# n=%lld grid %s block %lld L=%d precision %s: the multiplication with each panel "
        "broadcast, %d reps interleaved (medians of the slowest process's time)\n",
        doc["n"].get<long long>(), doc["grid"].get<std::string>().c_str(), a.block, a.lookahead,
        a.precision.c_str(), a.reps);
    std::printf("%-24s %10s %8s\n", "# broadcast", "time_s", "x_best");
    for (const auto& c : doc["candidates"]) {
      const bool chosen = c["name"] == doc["choice"];
      std::printf("%-24s %10.3f %8.3f%s\n", c["name"].get<std::string>().c_str(),
                  c["median_s"].get<double>(), c["x_best"].get<double>(),
                  chosen ? "  <- the table's" : "");
    }
    for (const auto& pb : doc["panel_broadcasts"]) {
      const auto bytes = pb["largest_bytes"].get<long long>();
      const std::string operand = pb["operand"].get<std::string>();
      const char* along = operand == "A" ? "rows" : "columns";
      const int ranks = pb["ranks"].get<int>();
      if (bytes > 0) {
        std::printf("# %s's panels: broadcast along process %s of %d ranks, the largest %s\n",
                    operand.c_str(), along, ranks, core::format_bytes(bytes).c_str());
      } else if (ranks > 0) {
        std::printf("# %s's panels: not broadcast (process %s of %d rank)\n", operand.c_str(),
                    along, ranks);
      } else {
        std::printf("# %s's panels: not broadcast (redistributed by all-to-all)\n",
                    operand.c_str());
      }
    }
    std::fflush(stdout);
  };
  tune::GemmTuneResult result;
  try {
    result = tune::tune_gemm_panels(comm, grid, o, events);
  } catch (...) {
    relay_grid_free(&grid);
    throw;
  }
  relay_grid_free(&grid);
  result.table.machine = machine_description(comm);  // collective
  result.results["machine"] = result.table.machine;
  if (rank != 0) return 0;
  coll::Table::from_json(result.table.to_json());  // what relay_tuning_load will accept
  result.table.save(a.output);
  std::printf(
      "# wrote %s (%zu rules for the GEMM's panel broadcasts; with RELAY_TUNING_FILE=%s, "
      "relay_gemm's and pdgemm_'s auto follows them: RELAY_LOG=1 shows the rule)\n",
      a.output.c_str(), result.table.rules.size(), a.output.c_str());
  return write_results(result.results, a.json_path, "", "", "relay tune --for-gemm");
}

struct TableArgs {
  std::string file;
  std::string openmpi;
  std::string mpich;
  std::string mpich_base;
};

}  // namespace

void add_tune(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* cmd =
      app.add_subcommand("tune",
                         "Find the best configuration of a collective (broadcast by default) per "
                         "size on this communicator and write a decision table (run under mpirun)");
  cmd->footer(
      "Example: mpirun -np 4 relay tune --sizes 64KiB,1MiB,8MiB --output table.json\n"
      "         mpirun -np 4 relay tune --operation allreduce --sizes 8KiB,1MiB --output "
      "table.json\n"
      "Methods: exhaustive (every configuration), mgd and smgd (vadhiyar2004's modified and\n"
      "scanning gradient descents from the largest segment), model (the replay's best, measured\n"
      "once to report it), guided (measure the model's --top-k). The table takes --table-method's\n"
      "choice per size; sizes between grid points take the nearer one on a log scale. Use the\n"
      "table with RELAY_TUNING_FILE=table.json (auto then follows it; RELAY_LOG=1 shows the "
      "rule).");
  cmd->add_option("--operation", a->operation,
                  "bcast, or a collective of `relay algorithms` (reduce, allreduce, allgather, "
                  "...; doubles, MPI_SUM)")
      ->capture_default_str();
  cmd->add_option("--sizes", a->sizes,
                  "message sizes (grid points); other than bcast, the data a call moves: the "
                  "vector (reduce, allreduce) or all ranks' blocks")
      ->capture_default_str();
  cmd->add_option("--algorithms", a->algorithms, "the operation's algorithms, or all")
      ->capture_default_str();
  cmd->add_option("--policies", a->policies, "blocking, nonblocking or all")->capture_default_str();
  cmd->add_option("--segments", a->segments, "candidate segment sizes (unsegmented is always one)")
      ->capture_default_str();
  cmd->add_option("--methods", a->methods, "exhaustive, mgd, smgd, model, guided (comma list)")
      ->capture_default_str();
  cmd->add_option("--table-method", a->table_method, "whose choices go into the table")
      ->capture_default_str();
  cmd->add_option("--params", a->params,
                  "model parameters from relay model measure (else a quick measurement)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--predict-ranks", a->predict_ranks,
                  "process counts not measured: add the model's choices for them");
  cmd->add_option("--output,-o", a->output, "decision table to write")->capture_default_str();
  cmd->add_option("--json", a->json_path, "every measurement, prediction and search path as JSON");
  cmd->add_option("--plot", a->plot_path,
                  "PNG: measured vs predicted over segment sizes, search paths (needs --json)");
  cmd->add_option("--min-time", a->min_time, "seconds of timed iterations per configuration")
      ->capture_default_str();
  add_max_requests_option(cmd, a->max_requests, 65536, "requests in flight per rank");
  cmd->add_option("--root", a->root, "root rank")->capture_default_str();
  cmd->add_option("--top-k", a->top_k, "guided: candidates measured")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--threshold", a->threshold,
                  "smgd: prune algorithms predicted worse than this x best, and stop measuring a "
                  "configuration once it is")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--noise", a->noise,
                  "smgd: relative gains below this do not count as improvements")
      ->check(CLI::Range(0.0, 0.5))
      ->capture_default_str();
  cmd->add_option("--variant-top", a->variant_top,
                  "smgd: the best algorithms whose other policy is searched")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--variant-within", a->variant_within,
                  "smgd: ... and every other algorithm whose best is within this x the best")
      ->check(CLI::Range(1.0, 100.0))
      ->capture_default_str();
  cmd->add_option("--confirm", a->confirm,
                  "measure the table method's fastest N configurations per size, and up to N other "
                  "algorithm/policy pairs' best within 1.25x of them, again, head to head, and "
                  "take the best (0: take its choice as found)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("--confirm-rounds", a->confirm_rounds, "rounds of that confirmation")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("--smgd-gradient", a->smgd_gradient,
                "smgd: predict from measured rates of change only (vadhiyar2004), not from the "
                "model's curve shapes");
  cmd->add_option("--patience", a->patience, "mgd/smgd: points past a minimum before stopping")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "no progress on stderr");
  cmd->add_flag("--for-gemm", a->for_gemm,
                "choose the GEMM's panel broadcast by running the GEMM (square n x n x n on "
                "--grid, --block, --lookahead) with each of --algorithms (pipeline once per "
                "--segments size, default 32KiB,128KiB,512KiB) and write the fastest as the rules "
                "of the broadcasts it made (docs/tuning.md)");
  cmd->add_option("--n", a->gemm_sizes, "--for-gemm: matrix sizes (comma list)")
      ->capture_default_str();
  cmd->add_option("--grid", a->grid, "--for-gemm: process grid RxC (default: the squarest)");
  cmd->add_option("--block", a->block, "--for-gemm: block size of A, B and C")
      ->check(CLI::Range(1LL, 1LL << 30))
      ->capture_default_str();
  cmd->add_option("--lookahead", a->lookahead, "--for-gemm: panels broadcast ahead")
      ->check(CLI::Range(0, 64))
      ->capture_default_str();
  cmd->add_option("--panel", a->panel, "--for-gemm: panel width (0: the GEMM's default)")
      ->check(CLI::Range(0LL, 1LL << 30))
      ->capture_default_str();
  cmd->add_option("--pieces", a->pieces,
                  "--for-gemm: pieces of the local multiply (0: the GEMM's default)")
      ->check(CLI::Range(0, 4096))
      ->capture_default_str();
  cmd->add_option("--reps", a->reps, "--for-gemm: repetitions of each candidate, interleaved")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--precision", a->precision, "--for-gemm: s, d, c or z")->capture_default_str();
  cmd->callback([a, cmd, &exit_code] {
    if (a->for_gemm) {
      for (const char* name : kSessionOnly) {
        if (cmd->count(name) > 0) throw CLI::ValidationError(name, "does not apply to --for-gemm");
      }
    } else {
      for (const char* name : kGemmOnly) {
        if (cmd->count(name) > 0) throw CLI::ValidationError(name, "applies to --for-gemm only");
      }
    }
    if (!a->plot_path.empty() && a->json_path.empty())
      throw CLI::ValidationError("--plot", "needs --json");
    ensure_mpi();
    exit_code = a->for_gemm ? run_tune_gemm(*a, cmd->count("--segments") > 0) : run_tune(*a);
  });

  auto t = std::make_shared<TableArgs>();
  CLI::App* table =
      app.add_subcommand("table", "Check a decision table, or export it for Open MPI and MPICH");
  table->add_option("file", t->file, "decision table (relay.tuning/1)")->required();
  table->add_option("--openmpi", t->openmpi,
                    "write an Open MPI coll/tuned dynamic rules file here");
  table->add_option("--mpich", t->mpich, "write an MPICH collective selection JSON here");
  table->add_option("--mpich-base", t->mpich_base,
                    "MPICH JSON whose other collectives are kept (default: the installed MPICH's "
                    "built-in one, if found)");
  table->footer(
      "Open MPI: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca "
      "coll_tuned_dynamic_rules_filename FILE\n"
      "MPICH:    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE mpiexec ...\n"
      "Without --openmpi/--mpich, checks the table and prints its rules.");
  table->callback([t, &exit_code] {
    const auto tab = coll::Table::load(t->file);
    std::printf("%s: valid (%zu rules)\n", t->file.c_str(), tab.rules.size());
    std::printf("%-10s %-14s %-26s %-18s %-12s %-10s %s\n", "# Op", "Ranks", "Bytes", "Algorithm",
                "Policy", "Segment", "Source");
    for (const auto& r : tab.rules) {
      std::printf(
          "%-10s %-14s %-26s %-18s %-12s %-10s %s\n", r.operation.c_str(),
          fmt::format("{}-{}", r.min_ranks, r.max_ranks).c_str(),
          fmt::format("{}-{}", r.min_bytes,
                      r.max_bytes == std::numeric_limits<std::int64_t>::max()
                          ? std::string("max")
                          : std::to_string(r.max_bytes))
              .c_str(),
          r.choice.algorithm.c_str(), r.choice.policy.c_str(),
          r.choice.segment_bytes > 0 ? core::format_bytes(r.choice.segment_bytes).c_str() : "none",
          r.source.c_str());
    }
    if (!t->openmpi.empty()) {
      const auto notes = tune::export_openmpi(tab, t->openmpi);
      std::printf("# wrote %s\n%s", t->openmpi.c_str(), notes.notes.c_str());
      if (!notes.warning.empty())
        std::fprintf(stderr, "relay table: warning: %s: %s\n", t->openmpi.c_str(),
                     notes.warning.c_str());
    }
    if (!t->mpich.empty()) {
      const auto notes = tune::export_mpich(tab, t->mpich, t->mpich_base);
      std::printf("# wrote %s\n%s", t->mpich.c_str(), notes.notes.c_str());
      if (!notes.warning.empty())
        std::fprintf(stderr, "relay table: warning: %s: %s\n", t->mpich.c_str(),
                     notes.warning.c_str());
    }
    exit_code = 0;
  });
}

}  // namespace relay::cli
