// Benchmark results: the machine they were measured on, JSON written so that a crash can never
// leave a half-written file, and the PNG plots drawn by the Python scripts.
#pragma once

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace relay::cli {

/// Whether this run is a SimGrid SMPI simulation (relay simulate): its MPI library says so.
bool is_simulation();

/// MPI library and version, hosts and ranks per host, date, relay version, thread settings.
/// Collective over comm; the result is complete on rank 0.
nlohmann::json machine_description(MPI_Comm comm);

/// Every rank's MPI_Get_processor_name in rank order, on rank 0 of `comm` (empty elsewhere).
/// Collective over comm.
std::vector<std::string> host_names(MPI_Comm comm);

/// Writes `doc` to `path` via a temporary file in the same directory, flushed to the disk, and
/// a rename, so that a killed run leaves the old file or the new one, never a truncated one.
/// Never creates directories: a missing one is an error. Throws std::runtime_error naming the
/// path (and the missing directory) on failure.
void write_json_atomic(const std::string& path, const nlohmann::json& doc);

/// Runs python/<script> on a JSON results file to draw `png_path` (into a temporary file
/// renamed over it). Returns "" on success, else why it failed (no Python with matplotlib,
/// script missing, script error).
std::string run_plot_script(const std::string& script, const std::string& json_path,
                            const std::string& png_path);

/// A command's results: doc to json_path (if not empty, atomically), then the PNG plot_path (if
/// not empty) drawn by python/<script>; prints "# wrote PATH" for each. Returns 0, or 1 when
/// the JSON could not be written or the plot failed (the reason on stderr, prefixed with
/// `command`). Call it on one rank once the others are done with it.
int write_results(const nlohmann::json& doc, const std::string& json_path,
                  const std::string& plot_path, const std::string& script,
                  const std::string& command);

}  // namespace relay::cli
