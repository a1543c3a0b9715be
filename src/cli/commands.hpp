// The relay command's subcommands. Each add_* registers one on the CLI11 app; its callback
// runs the command (under MPI where needed) and sets exit_code.
#pragma once

#include <CLI/CLI.hpp>

namespace relay::cli {

/// Initialises MPI on first use (commands like --help and `algorithms` never need it).
void ensure_mpi();
/// This process's rank as the launcher sees it (0 when not launched by mpirun/srun), so that
/// only one rank prints help and errors.
int launcher_rank();

void add_bench_bcast(CLI::App& bench, int& exit_code);
void add_bench_coll(CLI::App& bench, int& exit_code);
void add_bench_gemm(CLI::App& bench, int& exit_code);
void add_bench_overlap(CLI::App& bench, int& exit_code);
void add_algorithms(CLI::App& app, int& exit_code);
void add_model(CLI::App& app, int& exit_code);
void add_tune(CLI::App& app, int& exit_code);

}  // namespace relay::cli
