// relay profile -- PROGRAM ARGS: an unchanged MPI program run with relay's ScaLAPACK library
// (librelay_scalapack) preloaded, which records every p?gemm_ and p?syrk_ call
// (scalapack/profile.hpp); then the time and calls in them against the whole run, per process and
// in total, and the calls grouped by shape. Launched like the program (mpirun -np 4 relay profile
// -- ./app): each rank runs its copy of the program as a child and uses no MPI itself; the ranks
// meet through files in one directory, where the launcher's rank 0 reads them all and prints.
// docs/profile.md.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "core/settings.hpp"

namespace relay::cli {
namespace {

namespace fs = std::filesystem;

struct ProfileArgs {
  std::string forward = "auto";
  std::string dir;
  std::string json_path;
  double wait_s = 120;
  bool keep = false;
  std::vector<std::string> command;
};

// librelay_scalapack: RELAY_PROFILE_LIBRARY, else the installed one beside this program's
// prefix, else the build tree's.
std::string scalapack_library() {
  std::vector<std::string> candidates;
  if (const char* p = core::read_setting(core::Knob::profile_library)) candidates.emplace_back(p);
  if (const std::string exe = this_program_path(); !exe.empty()) {
    const fs::path prefix = fs::path(exe).parent_path().parent_path();
    candidates.push_back((prefix / RELAY_INSTALL_LIBDIR / "librelay_scalapack.so").string());
  }
#ifdef RELAY_SCALAPACK_BUILD_LIBRARY
  candidates.emplace_back(RELAY_SCALAPACK_BUILD_LIBRARY);
#endif
  for (const auto& c : candidates) {
    if (access(c.c_str(), R_OK) == 0) return c;
  }
  return "";
}

// Runs the program with the drop-in preloaded; returns its exit status (128 + signal if killed)
// and its wall time.
int run_child(const ProfileArgs& a, const std::string& library, const std::string& dir,
              double& wall_s) {
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("relay profile: fork failed");
  if (pid == 0) {
    const char* old = std::getenv("LD_PRELOAD");
    const std::string preload = old != nullptr && *old ? library + ":" + old : library;
    setenv("LD_PRELOAD", preload.c_str(), 1);
    setenv("RELAY_PROFILE_DIR", dir.c_str(), 1);
    setenv("RELAY_SCALAPACK_FORWARD", a.forward.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& s : a.command) argv.push_back(const_cast<char*>(s.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "relay profile: cannot run %s\n", a.command[0].c_str());
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error("relay profile: waitpid failed");
  }
  wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// Rank 0: waits for every rank's run file, then reads the call records.
nlohmann::json collect(const ProfileArgs& a, const std::string& dir, int size) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(a.wait_s);
  nlohmann::json processes = nlohmann::json::array();
  for (int r = 0; r < size; ++r) {
    const fs::path run = fs::path(dir) / fmt::format("run.{}.json", r);
    while (!fs::exists(run)) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error(fmt::format(
            "relay profile: no result from rank {} within {} s in {} (ranks on other nodes need "
            "--dir on a file system they share)",
            r, a.wait_s, dir));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    nlohmann::json p = read_json(run);
    const fs::path calls = fs::path(dir) / fmt::format("calls.{}.json", r);
    p["groups"] = fs::exists(calls) ? read_json(calls)["groups"] : nlohmann::json::array();
    processes.push_back(p);
  }
  return processes;
}

// Groups sort by routine, then by decreasing size (numbers zero-padded, then reversed).
std::string shape_key(const nlohmann::json& g) {
  constexpr long long kBig = 999999999999LL;
  return fmt::format("{}|{:012}|{:012}|{:012}|{}{}|{}x{}|{}|{}x{}|{}",
                     g["routine"].get<std::string>(), kBig - g["m"].get<long long>(),
                     kBig - g["n"].get<long long>(), kBig - g["k"].get<long long>(),
                     g["transa"].get<std::string>(), g["transb"].get<std::string>(),
                     g["mb"].get<long long>(), g["nb"].get<long long>(), g["kb"].get<long long>(),
                     g["grid"][0].get<int>(), g["grid"][1].get<int>(),
                     g["served_by"].get<std::string>());
}

// The report: per process, in total, and the calls grouped by shape over all processes.
nlohmann::json report(const ProfileArgs& a, const nlohmann::json& processes) {
  double wall_sum = 0, gemm_sum = 0;
  long long calls_sum = 0;
  std::map<std::string, nlohmann::json> shapes;
  std::printf("# relay profile: %s on %zu processes; p?gemm_ and p?syrk_ served by %s\n",
              fmt::format("{}", fmt::join(a.command, " ")).c_str(), processes.size(),
              a.forward == "relay"  ? "relay (librelay_scalapack preloaded)"
              : a.forward == "auto" ? "relay's drop-in (librelay_scalapack preloaded: relay, "
                                      "except one panel step on one node; see each shape)"
                                    : "ScaLAPACK (forwarded by librelay_scalapack)");
  std::printf("%-9s %10s %12s %8s %8s %6s\n", "# Process", "Run(s)", "Mult(s)", "Share", "Calls",
              "Exit");
  for (const auto& p : processes) {
    double gemm_s = 0;
    long long calls = 0;
    for (const auto& g : p["groups"]) {
      gemm_s += g["seconds"].get<double>();
      calls += g["calls"].get<long long>();
      nlohmann::json& s = shapes[shape_key(g)];
      if (s.is_null()) {
        s = g;
        s["processes"] = 0;
        s["seconds"] = 0.0;
        s["calls"] = 0;
      }
      s["processes"] = s["processes"].get<int>() + 1;
      s["seconds"] = s["seconds"].get<double>() + g["seconds"].get<double>();
      s["calls"] = s["calls"].get<long long>() + g["calls"].get<long long>();
      for (const auto& [config, n] : g["configs"].items())
        s["configs"][config] = n.get<long long>();
    }
    const double wall = p["wall_s"].get<double>();
    wall_sum += wall;
    gemm_sum += gemm_s;
    calls_sum += calls;
    std::printf("%-9d %10.3f %12.3f %7.1f%% %8lld %6d\n", p["rank"].get<int>(), wall, gemm_s,
                wall > 0 ? 100 * gemm_s / wall : 0.0, calls, p["exit_code"].get<int>());
  }
  std::printf("%-9s %10.3f %12.3f %7.1f%% %8lld\n", "all", wall_sum, gemm_sum,
              wall_sum > 0 ? 100 * gemm_sum / wall_sum : 0.0, calls_sum);
  std::printf(
      "# Run(s): the program's wall time on the process; Mult(s): time inside p?gemm_ and "
      "p?syrk_ calls;\n# Share = Mult / Run; 'all' sums over processes\n\n");
  std::printf(
      "# p?gemm_ and p?syrk_ calls by shape (all processes; Time(s): mean per process; Trans: "
      "TRANSA TRANSB, or for p?syrk_ TRANS UPLO)\n");
  std::printf("%-7s %-5s %7s %7s %7s %9s %5s %7s %-9s %7s %9s  %s\n", "# Call", "Trans", "M", "N",
              "K", "MBxNB", "KB", "Grid", "Served", "Calls", "Time(s)", "Configuration");
  nlohmann::json shape_rows = nlohmann::json::array();
  for (auto& [key, s] : shapes) {
    const int procs = s["processes"].get<int>();
    std::string configs;
    for (const auto& [config, n] : s["configs"].items()) {
      if (!configs.empty()) configs += "; ";
      configs += config;
    }
    std::printf("%-7s %-5s %7lld %7lld %7lld %9s %5lld %7s %-9s %7lld %9.4f  %s\n",
                s["routine"].get<std::string>().c_str(),
                (s["transa"].get<std::string>() + s["transb"].get<std::string>()).c_str(),
                s["m"].get<long long>(), s["n"].get<long long>(), s["k"].get<long long>(),
                fmt::format("{}x{}", s["mb"].get<long long>(), s["nb"].get<long long>()).c_str(),
                s["kb"].get<long long>(),
                fmt::format("{}x{}", s["grid"][0].get<int>(), s["grid"][1].get<int>()).c_str(),
                s["served_by"].get<std::string>().c_str(), s["calls"].get<long long>() / procs,
                s["seconds"].get<double>() / procs, configs.empty() ? "-" : configs.c_str());
    shape_rows.push_back(s);
  }
  if (shapes.empty()) std::printf("# (no p?gemm_ or p?syrk_ call)\n");
  return {{"schema", "relay.profile/1"},
          {"command", a.command},
          {"served_by", a.forward},
          {"processes", processes},
          {"shapes", shape_rows},
          {"total", {{"run_s", wall_sum}, {"pgemm_s", gemm_sum}, {"calls", calls_sum}}}};
}

int run_profile(const ProfileArgs& a) {
  const int rank = launcher_rank();
  const int size = launcher_size();
  const std::string library = scalapack_library();
  if (library.empty()) {
    if (rank == 0)
      std::fprintf(stderr,
                   "relay profile: librelay_scalapack not found (install relay with ScaLAPACK, or "
                   "set RELAY_PROFILE_LIBRARY)\n");
    return kExitFailure;
  }
  // Ranks of one launch on one node share their parent (mpirun, orted, hydra's proxy).
  const std::string dir = !a.dir.empty()
                              ? a.dir
                              : fmt::format("{}/relay-profile-{}",
                                            std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp",
                                            static_cast<long>(getppid()));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "relay profile: cannot create %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return kExitFailure;
  }
  double wall_s = 0;
  const int exit_code = run_child(a, library, dir, wall_s);
  write_json_atomic((fs::path(dir) / fmt::format("run.{}.json", rank)).string(),
                    {{"rank", rank}, {"wall_s", wall_s}, {"exit_code", exit_code}});
  if (rank != 0) return exit_code;
  try {
    const nlohmann::json processes = collect(a, dir, size);
    const nlohmann::json doc = report(a, processes);
    if (!a.json_path.empty()) {
      write_json_atomic(a.json_path, doc);
      std::printf("# wrote %s\n", a.json_path.c_str());
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return exit_code != 0 ? exit_code : kExitFailure;
  }
  if (!a.keep && a.dir.empty()) fs::remove_all(dir, ec);
  return exit_code;
}

}  // namespace

void add_profile(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Run an unchanged MPI program with relay's ScaLAPACK library and report the time and calls "
      "in p?gemm_ and p?syrk_ (launch it as the program: mpirun -np 4 relay profile -- ./app)");
  cmd->add_option("--forward", args->forward,
                  "who serves p?gemm_ and p?syrk_: auto (the drop-in as an application gets "
                  "it: relay, except one panel step on a grid within one node), relay (relay "
                  "always) or scalapack (ScaLAPACK's own, measured the same way)")
      ->check(CLI::IsMember({"auto", "relay", "scalapack"}))
      ->capture_default_str();
  cmd->add_option("--dir", args->dir,
                  "directory where the ranks leave their records (default: one per launch under "
                  "$TMPDIR; give a shared one when ranks run on several nodes)");
  cmd->add_option("--json", args->json_path, "write the report as JSON (relay.profile/1)");
  cmd->add_option("--wait", args->wait_s, "seconds rank 0 waits for the other ranks' records")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--keep", args->keep, "keep the records in --dir's default directory");
  cmd->add_option("command", args->command, "the program and its arguments (after --)")->required();
  cmd->footer(
      "Example: mpirun -np 4 relay profile -- ./pdgesv_app 4096\n"
      "         mpirun -np 4 relay profile --forward scalapack -- ./pdgesv_app 4096\n"
      "The program must call p?gemm_ through the dynamic linker (linked with ScaLAPACK as a "
      "shared library), as programs built with Debian's ScaLAPACK are. docs/profile.md");
  cmd->callback([args, &exit_code] { exit_code = run_profile(*args); });
}

}  // namespace relay::cli
