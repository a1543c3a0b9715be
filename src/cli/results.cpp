#include "cli/results.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "relay/relay.h"

namespace relay::cli {
namespace fs = std::filesystem;

nlohmann::json machine_description(MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(host, &length);
  std::vector<char> all(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(host, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
             MPI_CHAR, 0, comm);
  nlohmann::json m;
  if (rank != 0) return m;
  std::map<std::string, int> per_host;
  for (int r = 0; r < size; ++r) ++per_host[std::string(&all[r * MPI_MAX_PROCESSOR_NAME])];
  char library[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  MPI_Get_library_version(library, &length);
  std::string lib(library);
  lib = lib.substr(0, lib.find('\n'));
  while (!lib.empty() && (lib.back() == ',' || lib.back() == ' ')) lib.pop_back();
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  auto env = [](const char* name) -> nlohmann::json {
    const char* v = std::getenv(name);
    return v != nullptr ? nlohmann::json(v) : nlohmann::json(nullptr);
  };
  m["mpi_library"] = lib;
  m["ranks"] = size;
  m["hosts"] = per_host;
  m["date"] = date;
  m["relay_version"] = relay_version();
  m["cores_online"] = sysconf(_SC_NPROCESSORS_ONLN);
  m["OPENBLAS_NUM_THREADS"] = env("OPENBLAS_NUM_THREADS");
  m["OMP_NUM_THREADS"] = env("OMP_NUM_THREADS");
  return m;
}

void write_json_atomic(const std::string& path, const nlohmann::json& doc) {
  const fs::path target(path);
  if (target.has_parent_path()) fs::create_directories(target.parent_path());
  const fs::path temp = target.string() + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temp);
    if (!out) throw std::runtime_error("cannot write " + temp.string());
    out << doc.dump(2) << '\n';
    out.flush();
    if (!out) throw std::runtime_error("error writing " + temp.string());
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    fs::remove(temp);
    throw std::runtime_error("cannot rename " + temp.string() + " to " + path + ": " + ec.message());
  }
}

namespace {

std::string find_script(const std::string& script) {
  std::vector<fs::path> dirs;
  if (const char* d = std::getenv("RELAY_PYTHON_DIR")) dirs.emplace_back(d);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "relay" / "python");
  dirs.emplace_back(RELAY_SOURCE_DIR "/python");
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
  if (const char* p = std::getenv("RELAY_PYTHON")) pythons.emplace_back(p);
  pythons.insert(pythons.end(), {"/usr/bin/python3", "python3"});
  for (const auto& python : pythons) {
    if (!python_has_matplotlib(python)) continue;
    const std::string cmd = "'" + python + "' '" + path + "' '" + json_path + "' -o '" +
                            png_path + "'";
    const int rc = std::system(cmd.c_str());
    if (rc == 0) return {};
    return "plot script failed: " + cmd;
  }
  return "no Python with matplotlib found (apt-get install python3-matplotlib, or set "
         "RELAY_PYTHON)";
}

int write_results(const nlohmann::json& doc, const std::string& json_path,
                  const std::string& plot_path, const std::string& script,
                  const std::string& command) {
  if (json_path.empty()) return 0;
  write_json_atomic(json_path, doc);
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
