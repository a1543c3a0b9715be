#include "cli/results.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "core/blas_library.hpp"
#include "core/mpi_library.hpp"
#include "core/settings.hpp"
#include "relay/relay.h"

namespace relay::cli {
namespace fs = std::filesystem;

bool is_simulation() {
  const std::string lib = core::running_mpi_library();
  return lib.find("SMPI") != std::string::npos || lib.find("SimGrid") != std::string::npos;
}

std::vector<std::string> host_names(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  // The root's buffer alone: P names on every rank are P^2 in a simulation, where all ranks
  // share one host (16,384 simulated ranks: 27 GB, the OOM killer at the end of a finished
  // GEMM sweep).
  std::vector<char> all(rank == 0 ? static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME : 1);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, comm);
  std::vector<std::string> names;
  if (rank != 0) return names;
  for (int r = 0; r < size; ++r) {
    names.emplace_back(&all[static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME]);
  }
  return names;
}

nlohmann::json machine_description(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const std::vector<std::string> hosts = host_names(comm);
  nlohmann::json m;
  if (rank != 0) return m;
  std::map<std::string, int> per_host;
  for (const std::string& host : hosts) ++per_host[host];
  const std::string lib = core::running_mpi_library();
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  auto env = [](const char* name) -> nlohmann::json {
    const char* v = std::getenv(name);
    return v != nullptr ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  m["mpi_library"] = lib;
  const std::string blas = core::running_blas_library();
  m["blas_library"] = blas.empty() ? nlohmann::json(nullptr) : nlohmann::json(blas);
  // Under SimGrid (relay simulate), every figure is a simulated one: said in every result file.
  if (is_simulation()) {
    const char* platform = core::read_setting(core::Knob::simulate_platform);
    m["simulated"] = platform != nullptr ? platform : "SimGrid SMPI";
  }
  m["ranks"] = size;
  m["hosts"] = per_host;
  m["date"] = date;
  m["relay_version"] = relay_version();
  m["cores_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  m["OPENBLAS_NUM_THREADS"] = env("OPENBLAS_NUM_THREADS");
  m["OMP_NUM_THREADS"] = env("OMP_NUM_THREADS");
  return m;
}

namespace {

// The directory a result file goes to must exist: relay never creates directories (as root,
// a typo once made a top-level one). output_file() checks this before the run; here for the
// callers that write without that option.
fs::path existing_directory(const fs::path& target) {
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw std::runtime_error("cannot write " + target.string() + ": directory '" + dir.string() +
                             "' does not exist (relay does not create directories)");
  }
  return dir;
}

// A temporary name in the target's directory (a rename is atomic only within a file
// system), hidden, ending like the target (the plot scripts take the format from it).
fs::path temporary_beside(const fs::path& target) {
  const fs::path dir = existing_directory(target);
  return dir / ("." + target.filename().string() + ".tmp." + std::to_string(getpid()) +
                target.extension().string());
}

// Renames temp over target; on failure removes temp and throws naming both.
void commit(const fs::path& temp, const fs::path& target) {
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp, ec);
    throw std::runtime_error("cannot rename " + temp.string() + " to " + target.string() + ": " +
                             ec.message());
  }
}

}  // namespace

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
  const fs::path target(path);
  const fs::path temp = temporary_beside(target);
  const std::string text = doc.dump(2) + "\n";
  // Written and flushed to the disk before the rename: a run killed (or a machine that stops)
  // at any point leaves the old file or the whole new one, never a truncated one.
  FILE* out = std::fopen(temp.c_str(), "w");
  if (out == nullptr)
    throw std::runtime_error("cannot write " + temp.string() + ": " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), out) == text.size() &&
                  std::fflush(out) == 0 && fsync(fileno(out)) == 0;
  const int err = errno;
  if (std::fclose(out) != 0 || !ok) {
    std::error_code ec;
    fs::remove(temp, ec);
    throw std::runtime_error("error writing " + temp.string() + ": " +
                             std::strerror(ok ? errno : err));
  }
  commit(temp, target);
}

namespace {

// The plot scripts are the Python package's relay.plot modules (python/relay/plot), installed
// flat under share/relay/python for the command line; each also runs as a file.
std::string find_script(const std::string& script) {
  std::vector<fs::path> dirs;
  if (const char* d = core::read_setting(core::Knob::python_dir)) dirs.emplace_back(d);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "relay" / "python");
  dirs.emplace_back(RELAY_SOURCE_DIR "/python/relay/plot");
  for (const auto& d : dirs) {
    if (fs::exists(d / script)) return (d / script).string();
  }
  return {};
}

bool python_has_matplotlib(const std::string& python) {
  const std::string cmd = "'" + python + "' -c 'import matplotlib' >/dev/null 2>&1";
  return std::system(cmd.c_str()) == 0;
}

}  // namespace

std::string run_plot_script(const std::string& script, const std::string& json_path,
                            const std::string& png_path) {
  const std::string path = find_script(script);
  if (path.empty()) return "cannot find " + script + " (set RELAY_PYTHON_DIR)";
  std::vector<std::string> pythons;
  if (const char* p = core::read_setting(core::Knob::python)) pythons.emplace_back(p);
  pythons.insert(pythons.end(), {"/usr/bin/python3", "python3"});
  for (const auto& python : pythons) {
    if (!python_has_matplotlib(python)) continue;
    // Drawn beside the target and renamed over it, as the JSON is written.
    try {
      const fs::path temp = temporary_beside(png_path);
      const std::string cmd =
          "'" + python + "' '" + path + "' '" + json_path + "' -o '" + temp.string() + "'";
      const int rc = std::system(cmd.c_str());
      std::error_code ec;
      if (rc == 0 && fs::exists(temp, ec)) {
        commit(temp, png_path);
        return {};
      }
      fs::remove(temp, ec);
      return "plot script failed: " + cmd;
    } catch (const std::exception& e) {
      return e.what();
    }
  }
  return "no Python with matplotlib found (apt-get install python3-matplotlib, or set "
         "RELAY_PYTHON)";
}

int write_results(const nlohmann::json& doc, const std::string& json_path,
                  const std::string& plot_path, const std::string& script,
                  const std::string& command) {
  if (json_path.empty()) return 0;
  // Reported here, not thrown: rank 0 writes once the other ranks are done, and an exception
  // would stop them all (main's guard against a rank failing alone).
  try {
    write_json_atomic(json_path, doc);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", command.c_str(), e.what());
    return 1;
  }
  std::printf("# wrote %s\n", json_path.c_str());
  if (plot_path.empty()) return 0;
  const std::string err = run_plot_script(script, json_path, plot_path);
  if (!err.empty()) {
    std::fprintf(stderr, "%s: %s\n", command.c_str(), err.c_str());
    return 1;
  }
  std::printf("# wrote %s\n", plot_path.c_str());
  return 0;
}

}  // namespace relay::cli
