// The relay command: benchmarks and tools around the library. Run the MPI ones under mpirun.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>
#include "cli/cli11.hpp"

#include <unistd.h>

#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "coll/registry.hpp"
#include "core/settings.hpp"
#include "core/units.hpp"
#include "relay/relay.h"

namespace relay::cli {

void ensure_mpi() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
}

std::string this_program_path() {
  char exe[4096] = {};
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  return n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : std::string();
}

int launcher_rank() {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    if (const char* v = std::getenv(name)) return std::atoi(v);
  }
  return 0;
}

int launcher_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"}) {
    if (const char* v = std::getenv(name)) return std::max(1, std::atoi(v));
  }
  return 1;
}

void add_algorithms(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand("algorithms", "List the registered algorithms");
  cmd->callback([&exit_code] {
    std::printf(
        "bcast algorithms (use these names in options, RELAY_BCAST_ALGORITHM, --algorithms):\n");
    std::printf("  %-18s %s\n", "auto", "relay chooses by message size and ranks (docs/bcast.md)");
    for (const auto& a : coll::algorithms(coll::Collective::bcast)) {
      std::printf("  %-18s %s%s\n", std::string(a.name).c_str(), std::string(a.summary).c_str(),
                  a.default_segment_bytes > 0 ? " [segmented by default]" : "");
    }
    for (coll::Collective c : coll::kCollectives) {
      if (c == coll::Collective::bcast) continue;  // listed above
      std::printf("\n%s algorithms (options, RELAY_%s_ALGORITHM):\n",
                  std::string(coll::to_string(c)).c_str(),
                  std::string(coll::env_prefix(c)).c_str());
      std::printf("  %-18s %s\n", "auto", "relay chooses (docs/collectives.md)");
      for (const auto& a : coll::algorithms(c)) {
        std::printf("  %-18s %s%s\n", std::string(a.name).c_str(), std::string(a.summary).c_str(),
                    a.default_segment_bytes > 0 ? " [segmented by default]" : "");
      }
    }
    exit_code = 0;
  });
}

// `relay cluster ...` is the emulated-cluster script (tools/cluster/relay-cluster): installed
// beside the relay command, or found in the source tree of a build.
std::string cluster_script() {
  std::vector<std::string> candidates;
  if (const char* p = core::read_setting(core::Knob::cluster_script)) candidates.emplace_back(p);
  if (const std::string exe = this_program_path(); !exe.empty()) {
    candidates.push_back(exe.substr(0, exe.rfind('/')) + "/relay-cluster");
  }
  candidates.emplace_back(RELAY_SOURCE_DIR "/tools/cluster/relay-cluster");
  for (const auto& script : candidates) {
    if (access(script.c_str(), X_OK) == 0) return script;
  }
  return "";
}

int run_cluster(const std::vector<std::string>& args) {
  const std::string script = cluster_script();
  if (script.empty()) {
    std::fprintf(stderr, "relay cluster: relay-cluster not found (set RELAY_CLUSTER_SCRIPT)\n");
    return 1;
  }
  std::vector<char*> argv{const_cast<char*>(script.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  execv(script.c_str(), argv.data());
  std::fprintf(stderr, "relay cluster: cannot run %s\n", script.c_str());
  return 1;
}

}  // namespace relay::cli

namespace relay::cli {

// `relay bench <what> ... --cluster`: the same command on the emulated cluster, launched by
// `relay cluster run -- <this program> bench <what> ...` (ranks: the cluster's nodes x ranks
// per node). Returns -1 when --cluster is not asked for.
int rerun_on_cluster(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  const auto flag = std::find(args.begin(), args.end(), std::string("--cluster"));
  if (args.empty() || args[0] != "bench" || flag == args.end()) return -1;
  if (args.size() > 1 && args[1] == "eager") return -1;  // launches its own runs
  if (core::read_setting(core::Knob::cluster_job) != nullptr) {
    std::fprintf(stderr, "relay: --cluster inside a cluster run\n");
    return kExitUsage;
  }
  args.erase(flag);
  const std::string exe = this_program_path();
  if (exe.empty()) {
    std::fprintf(stderr, "relay: --cluster: cannot find this program's path\n");
    return kExitFailure;
  }
  // A benchmark may run long: relay cluster run's hang timeout is 1 hour here unless
  // RELAY_CLUSTER_TIMEOUT (seconds) says otherwise.
  const char* timeout = core::read_setting(core::Knob::cluster_timeout);
  std::vector<std::string> run{"run", "--timeout", timeout ? timeout : "3600", "--", exe};
  run.insert(run.end(), args.begin(), args.end());
  return run_cluster(run);
}

}  // namespace relay::cli

int main(int argc, char** argv) {
  if (const int rc = relay::cli::rerun_on_cluster(argc, argv); rc >= 0) return rc;
  CLI::App app{
      "relay: fast collectives on MPI point-to-point for distributed dense linear algebra"};
  app.require_subcommand(1);
  app.set_version_flag(
      "--version", [] { return std::string(relay_build_info()); },
      "print relay's version, the MPI it was built for and runs, its BLAS");
  app.footer(
      std::string("Sizes (--sizes, --segments, RELAY_*_SEGMENT_BYTES ...) in bytes; ") +
      relay::core::kByteUnitsHelp +
      ".\n"
      "Exit status: 0 success, 1 a failure, 2 a usage error (an option or argument refused).\n"
      "Environment: RELAY_<OP>_ALGORITHM, _POLICY, _SEGMENT_BYTES, _FANOUT, _MAX_REQUESTS\n"
      "override the library's options; RELAY_CHECK=collective makes argument checks\n"
      "collective; RELAY_LOG=1 logs choices. relay env lists every RELAY_* variable.");
  int exit_code = 0;
  CLI::App* bench = app.add_subcommand("bench", "Benchmarks (run under mpirun)");
  bench->require_subcommand(1);
  relay::cli::add_bench_bcast(*bench, exit_code);
  relay::cli::add_bench_coll(*bench, exit_code);
  relay::cli::add_bench_gemm(*bench, exit_code);
  relay::cli::add_bench_overlap(*bench, exit_code);
  relay::cli::add_bench_symm(*bench, exit_code);
  relay::cli::add_bench_solve(*bench, exit_code);
  relay::cli::add_bench_eager(*bench, exit_code);
  relay::cli::add_algorithms(app, exit_code);
  relay::cli::add_model(app, exit_code);
  relay::cli::add_tune(app, exit_code);
  relay::cli::add_env(app, exit_code);
  relay::cli::add_simulate(app, exit_code);
  relay::cli::add_purify(app, exit_code);
  relay::cli::add_profile(app, exit_code);
  // Every command's floating-point options finite and >= 0, its result files in existing
  // directories: added here, after every command is registered.
  relay::cli::add_shared_checks(app);
  CLI::App* cluster = app.add_subcommand(
      "cluster",
      "Emulated cluster on this machine: up, run, check, status, down (needs root; "
      "relay cluster --help, docs/cluster.md)");
  cluster->prefix_command();
  cluster->set_help_flag();  // --help goes to the script
  cluster->callback(
      [cluster, &exit_code] { exit_code = relay::cli::run_cluster(cluster->remaining()); });
  const bool quiet = relay::cli::launcher_rank() != 0;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11's statuses (105 a refused value, 106 a missing option, 109 an extra argument ...)
    // are all usage errors; --help and --version end with status 0.
    int initialized = 0;
    MPI_Initialized(&initialized);
    const int code = quiet ? e.get_exit_code() : app.exit(e);
    std::fflush(stdout);
    std::fflush(stderr);
    exit_code = code == 0 ? 0 : relay::cli::kExitUsage;
    // The command line is the same on every rank, so every rank refuses it here, before any
    // MPI call. A quiet rank that exited at once could make mpirun stop the job before rank 0's
    // message left it (seen: 1 launch in 30 lost the message). The ranks leave together, after
    // rank 0 has printed.
    if (!initialized && relay::cli::launcher_size() > 1) {
      MPI_Init(nullptr, nullptr);
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } catch (const std::invalid_argument& e) {  // an argument refused once the command ran
    if (!quiet) std::fprintf(stderr, "relay: error: %s\n", e.what());
    exit_code = relay::cli::kExitUsage;
  } catch (const relay::cli::AgreedError& e) {
    if (!quiet) std::fprintf(stderr, "relay: error: %s\n", e.what());
    exit_code = relay::cli::kExitFailure;
  } catch (const std::exception& e) {
    // Perhaps this rank's alone (std::bad_alloc, say): the others would wait for it in their
    // next collective, and it for them in MPI_Finalize. Every failing rank says so, and the
    // launch stops.
    int initialized = 0, finalized = 0, size = 1, rank = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) {
      MPI_Comm_size(MPI_COMM_WORLD, &size);
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    if (size > 1) {
      std::fprintf(stderr, "relay: error on rank %d: %s (stopping every rank)\n", rank, e.what());
      std::fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, relay::cli::kExitFailure);
    }
    if (!quiet) std::fprintf(stderr, "relay: error: %s\n", e.what());
    exit_code = relay::cli::kExitFailure;
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (initialized && !finalized) MPI_Finalize();
  return exit_code;
}
