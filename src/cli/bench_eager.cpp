// relay bench eager (issue 31, amestoy2001 Tables 6 and 8): the same broadcasts under several MPI
// eager limits. The limit is fixed when MPI starts, so this command is not an MPI program: it
// launches `relay bench bcast` once per limit and round (mpirun, or relay cluster run with
// --cluster), with the MPI library's eager-limit variables in the environment, the limits
// interleaved round by round so drifts of the machine hit them alike, and prints per
// configuration the median time under each limit and the spread across limits:
// (slowest - fastest) / fastest. relay's schedules pre-post their receives, so their time should
// not depend on the limit; the naive blocking chain (blocking_chain) and MPI's own broadcast
// are measured beside them. With --gemm it also launches `relay bench gemm` per limit and round:
// ScaLAPACK's PDGEMM (BLACS broadcasts: blocking sends and receives) beside relay's schemes.
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "core/units.hpp"
#include "measure/stats.hpp"
#include "relay/relay.h"

namespace relay::cli {
namespace {

namespace fs = std::filesystem;

struct Args : ResultArgs {
  std::string limits = "4KiB,64KiB,1MiB";
  std::string sizes = "8MiB";
  std::string algorithms = "pipeline,mpi";
  std::string policies = "blocking,nonblocking";
  std::string segments = "64KiB";
  std::string baselines = "blocking_chain,hand_loop";
  int ranks = 4;
  int rounds = 3;
  std::string min_time = "0.2";
  bool cluster = false;
  std::string mpirun = "mpirun";
  std::vector<std::string> mpirun_flags;
  // The GEMM under each limit (none without --gemm).
  std::string gemm_sizes;
  std::string gemm_grid;
  int gemm_block = 64;
  std::string gemm_schemes = "pipeline-nonblocking,mpi";
  std::string gemm_lookahead = "1";
  int gemm_reps = 3;
  bool gemm_no_scalapack = false;
};

// The variables that set the eager limit of the MPI library relay was built with: Open MPI's
// ob1 takes the limit of the transport (TCP between nodes, vader within one); MPICH's ch3
// device (Debian's MPICH 4.0 is ch3:nemesis) its own and nemesis's shared-memory one, a ch4
// build its OFI one (the names are in libmpich's strings).
std::vector<std::string> limit_variables() {
  const std::string library = relay_build_info();
  if (library.find("Open MPI") != std::string::npos) {
    return {"OMPI_MCA_btl_tcp_eager_limit", "OMPI_MCA_btl_vader_eager_limit"};
  }
  return {"MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ",
          "MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE"};
}

// Runs argv with the variables set, its output into `log`; returns its exit status (128 +
// signal if killed).
int run_with(const std::vector<std::string>& argv,
             const std::vector<std::pair<std::string, std::string>>& env, const fs::path& log) {
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("relay bench eager: fork failed");
  if (pid == 0) {
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (std::freopen(log.c_str(), "w", stdout) == nullptr || dup2(fileno(stdout), 2) < 0)
      _exit(126);
    std::vector<char*> args;
    for (const auto& s : argv) args.push_back(const_cast<char*>(s.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    std::fprintf(stderr, "relay bench eager: cannot run %s\n", argv[0].c_str());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("relay bench eager: waitpid failed");
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

// A broadcast configuration: algorithm, policy, segment bytes, size bytes.
using RowKey = std::tuple<std::string, std::string, std::int64_t, std::int64_t>;
// A GEMM configuration: algorithm (scalapack or 2d), scheme, look-ahead, n.
using GemmKey = std::tuple<std::string, std::string, int, std::int64_t>;

// One figure of configuration `key` under limit `l` (of `limits`), the configurations kept in
// the order they first appeared.
template <class Key>
void record(std::map<Key, std::vector<std::vector<double>>>& times, std::vector<Key>& order,
            const Key& key, std::size_t l, std::size_t limits, double value) {
  auto& slot = times[key];
  if (slot.empty()) {
    slot.resize(limits);
    order.push_back(key);
  }
  slot[l].push_back(value);
}

// Runs one launch (relay bench `what`) under an eager limit and reads the JSON it wrote next to
// its log in `dir`; a failed launch is this command's error, with the launch's output.
nlohmann::json launch_and_read(const std::string& what, const std::vector<std::string>& argv,
                               const std::vector<std::pair<std::string, std::string>>& env,
                               const fs::path& json, std::int64_t limit) {
  const fs::path log = fs::path(json).replace_extension(".log");
  const int rc = run_with(argv, env, log);
  if (rc != 0) {
    std::ifstream text(log);
    const std::string output((std::istreambuf_iterator<char>(text)),
                             std::istreambuf_iterator<char>());
    const std::string message = fmt::format(
        "relay bench eager: relay bench {} under eager limit {} exited {} (launched: {}); its "
        "output:\n{}",
        what, core::format_bytes(limit), rc, fmt::join(argv, " "),
        output.size() > 4000 ? output.substr(output.size() - 4000) : output);
    // Its usage errors (an algorithm or size it refused) are this command's.
    if (rc == kExitUsage) throw std::invalid_argument(message);
    throw std::runtime_error(message);
  }
  std::ifstream in(json);
  return nlohmann::json::parse(in);
}

// relay bench gemm's command line for --gemm.
std::vector<std::string> gemm_arguments(const Args& a, const std::string& exe,
                                        const std::string& json) {
  std::vector<std::string> argv = {exe,
                                   "bench",
                                   "gemm",
                                   "--n",
                                   a.gemm_sizes,
                                   "--block",
                                   std::to_string(a.gemm_block),
                                   "--schemes",
                                   a.gemm_schemes,
                                   "--lookahead",
                                   a.gemm_lookahead,
                                   "--reps",
                                   std::to_string(a.gemm_reps),
                                   "--quiet",
                                   "--json",
                                   json};
  if (!a.gemm_grid.empty()) {
    argv.push_back("--grid");
    argv.push_back(a.gemm_grid);
  }
  if (a.gemm_no_scalapack) argv.push_back("--no-scalapack");
  return argv;
}

// The medians of one configuration under each limit (`per_round[l]`: one figure per round),
// printed in `unit`s per `scale` of the figure, and its spread; fills the JSON row's "limits"
// (`field` and `field`'s rounds per limit) and "spread".
void summarize(const std::vector<std::vector<double>>& per_round,
               const std::vector<std::int64_t>& limits, const char* field, const char* rounds_field,
               double scale, nlohmann::json& row) {
  nlohmann::json per_limit = nlohmann::json::array();
  double fastest = 0, slowest = 0;
  bool complete = true;
  for (std::size_t l = 0; l < limits.size(); ++l) {
    const auto& v = per_round[l];
    if (v.empty()) {
      complete = false;
      std::printf(" %14s", "-");
      continue;
    }
    const double median = measure::median(v);
    fastest = fastest == 0 ? median : std::min(fastest, median);
    slowest = std::max(slowest, median);
    per_limit.push_back({{"eager_limit_bytes", limits[l]}, {field, median}, {rounds_field, v}});
    std::printf(" %14.2f", median * scale);
  }
  row["limits"] = per_limit;
  if (complete && fastest > 0) {
    row["spread"] = (slowest - fastest) / fastest;
    std::printf(" %7.1f%%\n", 100 * (slowest - fastest) / fastest);
  } else {
    std::printf(" %8s\n", "-");
  }
}

int run(const Args& a) {
  const std::vector<std::int64_t> limits = parse_size_list(a.limits);
  if (limits.size() < 2) throw std::invalid_argument("--limits: give at least two eager limits");
  for (std::int64_t l : limits) {
    if (l <= 0) throw std::invalid_argument("--limits: an eager limit must be more than 0 bytes");
  }
  const std::string exe = this_program_path();
  if (exe.empty()) throw std::runtime_error("relay bench eager: cannot find this program's path");
  std::vector<std::string> launch;
  if (a.cluster) {
    const std::string script = cluster_script();
    if (script.empty()) {
      throw std::runtime_error("relay bench eager --cluster: relay-cluster not found");
    }
    launch = {script, "run", "--np", std::to_string(a.ranks), "--"};
  } else {
    launch = {a.mpirun, "-n", std::to_string(a.ranks)};
    launch.insert(launch.end(), a.mpirun_flags.begin(), a.mpirun_flags.end());
  }
  const std::vector<std::string> variables = limit_variables();
  char dir_template[] = "/tmp/relay-eager-XXXXXX";
  if (mkdtemp(dir_template) == nullptr)
    throw std::runtime_error("relay bench eager: mkdtemp failed");
  const fs::path dir(dir_template);
  struct Cleanup {
    fs::path d;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(d, ec);
    }
  } cleanup{dir};

  // times[key][limit index]: one median per round.
  std::map<RowKey, std::vector<std::vector<double>>> times;
  std::vector<RowKey> order;
  std::map<GemmKey, std::vector<std::vector<double>>> gemm_times;
  std::vector<GemmKey> gemm_order;
  std::string gemm_grid = a.gemm_grid;  // as the launched runs report it
  nlohmann::json machine;
  const int total = a.rounds * static_cast<int>(limits.size());
  int done = 0;
  for (int round = 0; round < a.rounds; ++round) {
    for (std::size_t li = 0; li < limits.size(); ++li) {
      // Each round starts with a different limit, so that none always runs first.
      const std::size_t l = (li + static_cast<std::size_t>(round)) % limits.size();
      const std::string limit = std::to_string(limits[l]);
      const fs::path json = dir / fmt::format("r{}_l{}.json", round, l);
      std::vector<std::string> argv = launch;
      for (const std::string& s :
           {exe, std::string("bench"), std::string("bcast"), std::string("--sizes"), a.sizes,
            std::string("--algorithms"), a.algorithms, std::string("--policies"), a.policies,
            std::string("--segments"), a.segments, std::string("--baselines"), a.baselines,
            std::string("--min-time"), a.min_time, std::string("--quiet"), std::string("--json"),
            json.string()}) {
        argv.push_back(s);
      }
      std::vector<std::pair<std::string, std::string>> env;
      for (const auto& v : variables) env.emplace_back(v, limit);
      if (!a.quiet) {
        std::fprintf(stderr, "relay bench eager [%d/%d]: eager limit %s, round %d\n", ++done, total,
                     core::format_bytes(limits[l]).c_str(), round + 1);
      }
      const nlohmann::json doc = launch_and_read("bcast", argv, env, json, limits[l]);
      if (machine.is_null()) machine = doc["machine"];
      for (const auto& row : doc["rows"]) {
        if (!row.contains("avg_us")) continue;
        const RowKey key{row["algorithm"].get<std::string>(), row["policy"].get<std::string>(),
                         row["segment_bytes"].get<std::int64_t>(),
                         row["size_bytes"].get<std::int64_t>()};
        record(times, order, key, l, limits.size(), row["avg_us"].get<double>());
      }
      if (a.gemm_sizes.empty()) continue;
      const fs::path gemm_json = dir / fmt::format("gemm_r{}_l{}.json", round, l);
      std::vector<std::string> gemm_argv = launch;
      for (const std::string& s : gemm_arguments(a, exe, gemm_json.string())) {
        gemm_argv.push_back(s);
      }
      if (!a.quiet) {
        std::fprintf(stderr, "relay bench eager [%d/%d]: the GEMM under eager limit %s\n", done,
                     total, core::format_bytes(limits[l]).c_str());
      }
      const nlohmann::json gemm_doc = launch_and_read("gemm", gemm_argv, env, gemm_json, limits[l]);
      for (const auto& row : gemm_doc["rows"]) {
        if (!row.contains("time_s")) continue;
        const GemmKey key{row["algorithm"].get<std::string>(), row["scheme"].get<std::string>(),
                          row["lookahead"].get<int>(), row["n"].get<std::int64_t>()};
        record(gemm_times, gemm_order, key, l, limits.size(), row["time_s"].get<double>());
      }
      if (gemm_grid.empty() && gemm_doc["rows"].size() > 0) {
        gemm_grid = gemm_doc["rows"][0].value("grid", std::string());
      }
    }
  }

  nlohmann::json rows = nlohmann::json::array();
  std::printf(
      "# relay bench eager: broadcasts on %d ranks%s under eager limits %s (%s), %d round%s "
      "(medians), limits interleaved\n",
      a.ranks, a.cluster ? " (emulated cluster)" : "", a.limits.c_str(),
      fmt::format("{}", fmt::join(variables, ", ")).c_str(), a.rounds, a.rounds == 1 ? "" : "s");
  std::printf("%-16s %-12s %9s %9s", "algorithm", "policy", "segment", "size");
  for (std::int64_t l : limits) {
    std::printf(" %14s", fmt::format("ms@{}", core::format_bytes(l)).c_str());
  }
  std::printf(" %8s\n", "spread");
  for (const RowKey& key : order) {
    const auto& [algorithm, policy, segment, size] = key;
    nlohmann::json row = {{"algorithm", algorithm},
                          {"policy", policy},
                          {"segment_bytes", segment},
                          {"size_bytes", size}};
    std::printf("%-16s %-12s %9s %9s", algorithm.c_str(), policy.c_str(),
                segment > 0 ? core::format_bytes(segment).c_str() : "-",
                core::format_bytes(size).c_str());
    summarize(times[key], limits, "avg_us", "rounds_us", 1e-3, row);
    rows.push_back(row);
  }
  std::printf(
      "spread: (slowest - fastest) / fastest over the limits; blocking_chain: MPI_Recv then "
      "MPI_Send per segment (amestoy2001's naive pipeline); hand_loop: MPI_Isend/MPI_Irecv with "
      "receives pre-posted\n");
  nlohmann::json gemm_rows = nlohmann::json::array();
  if (!gemm_order.empty()) {
    std::printf(
        "\n# the GEMM under the same limits: relay bench gemm --grid %s --block %d, %d "
        "repetitions per launch (their median), medians over the rounds\n",
        gemm_grid.c_str(), a.gemm_block, a.gemm_reps);
    std::printf("%-16s %-26s %2s %7s", "algorithm", "scheme", "L", "n");
    for (std::int64_t l : limits) {
      std::printf(" %14s", fmt::format("ms@{}", core::format_bytes(l)).c_str());
    }
    std::printf(" %8s\n", "spread");
    for (const GemmKey& key : gemm_order) {
      const auto& [algorithm, scheme, lookahead, n] = key;
      nlohmann::json row = {{"algorithm", algorithm}, {"scheme", scheme},
                            {"lookahead", lookahead}, {"n", n},
                            {"grid", gemm_grid},      {"block", a.gemm_block}};
      std::printf("%-16s %-26s %2d %7lld", algorithm.c_str(), scheme.c_str(), lookahead,
                  static_cast<long long>(n));
      summarize(gemm_times[key], limits, "time_s", "rounds_s", 1e3, row);
      gemm_rows.push_back(row);
    }
    std::printf(
        "scalapack: ScaLAPACK's PDGEMM, its BLACS broadcasts blocking MPI_Send/MPI_Recv "
        "trees; 2d: relay's SUMMA with the scheme's panel broadcasts\n");
  }
  std::fflush(stdout);
  nlohmann::json doc;
  doc["schema"] = "relay.bench.eager/1";  // schemas/relay-bench-eager.schema.json
  doc["benchmark"] = "eager";
  doc["machine"] = machine;
  doc["ranks"] = a.ranks;
  doc["cluster"] = a.cluster;
  doc["variables"] = variables;
  doc["eager_limits_bytes"] = limits;
  doc["rounds"] = a.rounds;
  doc["rows"] = rows;
  if (!gemm_order.empty()) doc["gemm_rows"] = gemm_rows;
  return write_results(doc, a.json_path, a.plot_path, "eager.py", "relay bench eager");
}

}  // namespace

void add_bench_eager(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand(
      "eager",
      "Broadcasts (and with --gemm the GEMM) under several MPI eager limits: relay's schedules, "
      "the naive blocking chain, MPI's own, ScaLAPACK (amestoy2001)");
  cmd->footer(
      "Not under mpirun: launches relay bench bcast once per limit and round, with the MPI\n"
      "library's eager-limit variables set (Open MPI: OMPI_MCA_btl_tcp_eager_limit and\n"
      "OMPI_MCA_btl_vader_eager_limit). With --cluster each launch is relay cluster run (relay\n"
      "cluster up first); otherwise --mpirun with --mpirun-flag. With --gemm N it also\n"
      "launches relay bench gemm per limit and round: ScaLAPACK's PDGEMM (BLACS's blocking\n"
      "send/receive trees) beside relay's schemes, in a second table (JSON gemm_rows).");
  cmd->add_option("--limits", args->limits, "eager limits, comma-separated (at least two)")
      ->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "message sizes")->capture_default_str();
  cmd->add_option("--algorithms", args->algorithms, "relay algorithms, or mpi, comma-separated")
      ->capture_default_str();
  cmd->add_option("--policies", args->policies, "policies of relay's algorithms")
      ->capture_default_str();
  cmd->add_option("--segments", args->segments, "segment sizes")->capture_default_str();
  cmd->add_option("--baselines", args->baselines,
                  "blocking_chain, hand_loop, p2p, all or none (relay bench bcast's)")
      ->capture_default_str();
  cmd->add_option("--np", args->ranks, "ranks per launch")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--rounds", args->rounds, "launches per limit (interleaved; medians)")
      ->check(CLI::Range(1, kMaxRounds))
      ->capture_default_str();
  cmd->add_option("--min-time", args->min_time, "relay bench bcast --min-time (seconds)")
      ->capture_default_str();
  cmd->add_option("--mpirun", args->mpirun, "the launcher without --cluster")
      ->capture_default_str();
  cmd->add_option("--mpirun-flag", args->mpirun_flags,
                  "a flag for the launcher (repeat: --mpirun-flag=--oversubscribe)");
  cmd->add_option("--gemm", args->gemm_sizes,
                  "also the GEMM under each limit: relay bench gemm at these n (comma-separated; "
                  "none by default)");
  cmd->add_option("--gemm-grid", args->gemm_grid,
                  "the GEMM's grid RxC (default: relay bench "
                  "gemm's, the squarest)");
  cmd->add_option("--gemm-block", args->gemm_block, "the GEMM's block size")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--gemm-schemes", args->gemm_schemes,
                  "the GEMM's panel broadcasts (relay bench gemm --schemes)")
      ->capture_default_str();
  cmd->add_option("--gemm-lookahead", args->gemm_lookahead,
                  "the GEMM's look-ahead depths (relay bench gemm --lookahead)")
      ->capture_default_str();
  cmd->add_option("--gemm-reps", args->gemm_reps, "the GEMM's repetitions per launch")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_flag("--gemm-no-scalapack", args->gemm_no_scalapack,
                "leave ScaLAPACK's PDGEMM out of the GEMM runs");
  add_result_options(cmd, *args, " of the time under each limit");
  // Replaces the shared --cluster (which relaunches an MPI command): this one is handled here.
  cmd->remove_option(cmd->get_option("--cluster"));
  cmd->add_flag("--cluster", args->cluster,
                "launch each run with relay cluster run (the emulated cluster, relay cluster up "
                "first)");
  cmd->callback([args, &exit_code] {
    check_result_args(*args);
    exit_code = run(*args);
  });
}

}  // namespace relay::cli
