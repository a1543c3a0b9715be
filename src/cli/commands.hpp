// The relay command's subcommands. Each add_* registers one on the CLI11 app; its callback
// runs the command (under MPI where needed) and sets exit_code.
#pragma once

#include <stdexcept>
#include <string>
#include "cli/cli11.hpp"

namespace relay::cli {

/// Exit statuses of every command: 0 success; 1 a failure (a run that went wrong, a result
/// that cannot be written, too little memory); 2 a usage error (an option or argument refused,
/// where possible before anything runs). A command throws std::invalid_argument for a usage
/// error found once it runs; main maps CLI11's own statuses (105, 106, 109 ...) to 2.
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

/// A failure that every rank of the launch reaches together (decided by a collective, such
/// as require_memory): main reports it on rank 0 and ends normally with kExitFailure. Any
/// other exception may have reached one rank only, whose partners would wait for it forever
/// in their next collective: main then stops the launch (MPI_Abort).
struct AgreedError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Initialises MPI on first use (commands like --help and `algorithms` never need it).
void ensure_mpi();
/// The emulated cluster's script (relay-cluster: RELAY_CLUSTER_SCRIPT, beside this program, or
/// the source tree's), or "" if none is found.
std::string cluster_script();
/// The path of this program (/proc/self/exe), or "" if it cannot be read: commands that run
/// relay's other programs look for them beside it.
std::string this_program_path();
/// This process's rank as the launcher sees it (0 when not launched by mpirun/srun), so that
/// only one rank prints help and errors.
int launcher_rank();
/// The number of processes the launcher started (1 when not launched by mpirun/srun).
int launcher_size();

void add_bench_bcast(CLI::App& bench, int& exit_code);
void add_bench_coll(CLI::App& bench, int& exit_code);
void add_bench_gemm(CLI::App& bench, int& exit_code);
void add_bench_overlap(CLI::App& bench, int& exit_code);
void add_bench_symm(CLI::App& bench, int& exit_code);
void add_bench_solve(CLI::App& bench, int& exit_code);
void add_bench_eager(CLI::App& bench, int& exit_code);
void add_algorithms(CLI::App& app, int& exit_code);
void add_model(CLI::App& app, int& exit_code);
/// relay model gemm (model_gemm.cpp), a subcommand of relay model.
void add_model_gemm(CLI::App& model, int& exit_code);
void add_tune(CLI::App& app, int& exit_code);
void add_env(CLI::App& app, int& exit_code);
void add_simulate(CLI::App& app, int& exit_code);
void add_purify(CLI::App& app, int& exit_code);
void add_profile(CLI::App& app, int& exit_code);

}  // namespace relay::cli
