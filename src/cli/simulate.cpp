// `relay simulate`: runs one of relay's own commands (`bench bcast`, `bench coll`, `bench gemm`,
// ...) under SimGrid's SMPI on a simulated platform, with the relay program built for SMPI
// (./dev smpi: build-smpi/src/cli/relay-smpi, or installed beside this one). The simulated run
// prints the same tables and writes the same JSON as a real one, marked as simulated; this
// launcher adds what the simulation cost this machine: host seconds and peak memory.
//
// Why a launcher and not a mode of this binary: under SMPI every rank is a copy of the program
// loaded into one simulator process (smpirun), compiled against SMPI's mpi.h; this binary is
// compiled against a real MPI.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/results.hpp"
#include "core/settings.hpp"
#include "gemm/layers.hpp"
#include "layout/process_grid.hpp"

namespace relay::cli {
namespace {

// The signal (Ctrl-C, kill) that asked relay simulate to stop, 0 if none.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void note_stop_signal(int signal) { g_stop_signal = signal; }

namespace fs = std::filesystem;

// The platforms shipped with relay (platforms/*.xml; docs/simulate.md says where each
// figure comes from) and how many ranks each node takes by default.
struct ShippedPlatform {
  const char* name;
  const char* file;
  int ranks_per_node;
  const char* summary;
};
constexpr ShippedPlatform kPlatforms[] = {
    {"tan2014", "tan2014_gige_8x8.xml", 8,
     "tan2014's cluster: 8 nodes x 8 cores, Gigabit Ethernet (run 64 ranks)"},
    {"gige64", "gige_64.xml", 1, "64 nodes, Gigabit Ethernet, one switch"},
    {"gige1024", "gige_1024.xml", 1, "1,024 nodes, Gigabit Ethernet, one switch"},
    {"fattree", "fat_tree_2level.xml", 1, "256 nodes, two-level fat tree, 100 Gbit/s links"},
    {"stampede2", "stampede2_4096.xml", 1,
     "huang2018's Stampede2-like cluster: 4,096 48-core nodes, fat tree, 12 GB/s links"},
    {"ktorus4096", "k_torus_4096.xml", 1, "K-computer-like 3D torus, 4,096 nodes, 5 GB/s links"},
    {"ktorus16384", "k_torus_16384.xml", 1, "K-computer-like 3D torus, 16,384 nodes, 5 GB/s links"},
};

std::string this_program_dir() {
  const std::string exe = this_program_path();
  return exe.empty() ? std::string(".") : exe.substr(0, exe.rfind('/'));
}

std::string first_existing(const std::vector<std::string>& candidates, int mode) {
  for (const auto& c : candidates) {
    if (!c.empty() && access(c.c_str(), mode) == 0) return c;
  }
  return {};
}

// The platform file and its ranks per node: a shipped name, or the path of a SimGrid platform.
struct Platform {
  std::string name, file;
  int ranks_per_node = 1;
};
Platform find_platform(const std::string& given) {
  for (const auto& p : kPlatforms) {
    if (given != p.name) continue;
    const std::string dir = this_program_dir();
    const std::string file = first_existing({dir + "/../share/relay/platforms/" + p.file,
                                             RELAY_SOURCE_DIR "/platforms/" + std::string(p.file)},
                                            R_OK);
    if (file.empty()) throw std::runtime_error(fmt::format("platform file {} not found", p.file));
    return {p.name, file, p.ranks_per_node};
  }
  if (access(given.c_str(), R_OK) == 0) return {given, given, 1};
  std::string names;
  for (const auto& p : kPlatforms) names += fmt::format("{}{}", names.empty() ? "" : ", ", p.name);
  throw std::invalid_argument(fmt::format(
      "--platform: '{}' is neither a shipped platform ({}) nor a readable file", given, names));
}

// Large simulations map each rank's copy of the program: Linux's default limit of 65,530
// mappings ends them with an mmap failure deep inside SimGrid. Estimated generously from what
// a rank of relay-smpi maps (about 40 areas) plus the simulator's own.
void check_map_count(int ranks) {
  std::ifstream in("/proc/sys/vm/max_map_count");
  long long limit = 0;
  if (!(in >> limit)) return;
  const long long needed = 16384 + 64LL * ranks;
  if (limit >= needed) return;
  const long long suggested = std::max(1048576LL, (needed + 1048575) / 1048576 * 1048576);
  throw std::runtime_error(
      fmt::format("vm.max_map_count is {} but {} ranks need about {}: as root, run\n"
                  "  sysctl -w vm.max_map_count={}\n"
                  "(or add vm.max_map_count={} to /etc/sysctl.conf) and try again",
                  limit, ranks, needed, suggested, suggested));
}

// SMPI loads a copy of the program per simulated rank from smpi/tmpdir (smpirun passes
// $TMPDIR, else /tmp) and keeps every copy until the run ends: 4,096 ranks of a 63 MB
// relay-smpi filled 27 GB there and died at rank 1,225 with "only 5636096 bytes copied".
void check_tmp_space(int ranks, const std::string& program) {
  const char* tmpdir = std::getenv("TMPDIR");
  const fs::path dir = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
  std::error_code ec;
  const auto bytes = fs::file_size(program, ec);
  if (ec) return;
  const auto space = fs::space(dir, ec);
  if (ec) return;
  const double needed = static_cast<double>(bytes) * ranks * 1.05;
  if (static_cast<double>(space.available) >= needed) return;
  throw std::runtime_error(fmt::format(
      "SMPI copies {} ({}) into {} once per simulated rank: {} ranks need about {} there, and "
      "{} is free. Set TMPDIR to a directory with room, or build relay-smpi without debug "
      "information (./dev smpi does)",
      program, human_bytes(static_cast<double>(bytes)), dir.string(), ranks, human_bytes(needed),
      human_bytes(static_cast<double>(space.available))));
}

// The JSON file a command writes (--json FILE or --json=FILE), if it writes one.
std::string json_output_of(const std::vector<std::string>& command) {
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (command[i] == "--json" && i + 1 < command.size()) return command[i + 1];
    if (command[i].rfind("--json=", 0) == 0) return command[i].substr(7);
  }
  return {};
}

struct Options {
  std::string platform = "gige64";
  int ranks = 0;
  int ranks_per_node = 0;  // 0: the platform's
  std::string factors = "off";
  double flow_share = 1;  // the most of a link one flow may use (smpi/bw-factor)
  std::string coll_selector = "auto";
  double test_cost_us = 0.1;
  std::string privatization = "mmap";
  std::string placement = "by-slot";
  bool dry_run = false;
  std::vector<std::string> command;
};

// The selector a run uses: auto is ompi below 512 ranks and flat from 512, where SMPI's SMP
// setup of MPI_COMM_WORLD alone would take minutes to hours of host time.
std::string effective_selector(const std::string& given, int ranks) {
  if (given != "auto") return given;
  return ranks < 512 ? "ompi" : "flat";
}

// The proportional set size of a process and its descendants, in KiB (each shared page
// divided among the processes and mappings that share it): what the simulation costs the
// host. The resident set counts a page once per mapping, and SMPI maps its shared
// allocations once per simulated rank. 0 when /proc cannot say.
double proportional_kib(pid_t root) {
  std::vector<std::pair<pid_t, pid_t>> parents;  // (pid, parent)
  for (const auto& entry :
       fs::directory_iterator("/proc", fs::directory_options::skip_permission_denied)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close = line.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    char state = 0;
    int parent = 0;
    if (std::sscanf(line.c_str() + close + 1, " %c %d", &state, &parent) != 2) continue;
    parents.emplace_back(static_cast<pid_t>(std::stol(name)), static_cast<pid_t>(parent));
  }
  std::vector<pid_t> tree{root};
  for (std::size_t i = 0; i < tree.size(); ++i) {
    for (const auto& [pid, parent] : parents) {
      if (parent == tree[i]) tree.push_back(pid);
    }
  }
  double kib = 0;
  for (pid_t pid : tree) {
    std::ifstream rollup(fmt::format("/proc/{}/smaps_rollup", pid));
    for (std::string line; std::getline(rollup, line);) {
      if (line.rfind("Pss:", 0) == 0) {
        kib += std::atof(line.c_str() + 4);
        break;
      }
    }
  }
  return kib;
}

// The node slot of each rank under fibers:RxC:C -- a row-major R x C grid (bench gemm's,
// BLACS's default) whose C layers' fibers sit on consecutive slots (gemm::fiber_major_slots).
// Throws on a placement that is not that or does not fit the ranks. (by-slot needs no slots.)
std::vector<int> placement_slots(const std::string& placement, int ranks) {
  layout::ProcessGrid grid;
  int c = 0;
  char tail = 0;
  if (std::sscanf(placement.c_str(), "fibers:%dx%d:%d%c", &grid.rows, &grid.cols, &c, &tail) != 3 ||
      grid.rows < 1 || grid.cols < 1) {
    throw std::invalid_argument(fmt::format(
        "--placement {}: give by-slot or fibers:RxC:C (a grid and its layer count)", placement));
  }
  if (grid.size() != ranks) {
    throw std::invalid_argument(fmt::format("--placement {}: a {}x{} grid holds {} ranks, not {}",
                                            placement, grid.rows, grid.cols, grid.size(), ranks));
  }
  std::vector<int> slot = gemm::fiber_major_slots(grid, c);
  if (slot.empty()) {
    throw std::invalid_argument(fmt::format(
        "--placement {}: {} layers do not split the {}x{} grid (C = cx * cy, cx dividing the "
        "rows, cy the columns)",
        placement, c, grid.rows, grid.cols));
  }
  return slot;
}

int run(const Options& o) {
  const Platform platform = find_platform(o.platform);
  const int per_node = o.ranks_per_node > 0 ? o.ranks_per_node : platform.ranks_per_node;
  check_map_count(o.ranks);
  const std::string dir = this_program_dir();
  const char* given_binary = core::read_setting(core::Knob::simulate_relay);
  const std::string relay_smpi =
      first_existing({given_binary ? given_binary : "", dir + "/relay-smpi",
                      RELAY_SOURCE_DIR "/build-smpi/src/cli/relay-smpi"},
                     R_OK);
  if (relay_smpi.empty()) {
    throw std::runtime_error(
        "relay-smpi (relay built for SimGrid SMPI) not found: build it with ./dev smpi, or set "
        "RELAY_SIMULATE_RELAY to its path");
  }
  if (o.privatization == "dlopen") check_tmp_space(o.ranks, relay_smpi);
  // SimGrid 3.32 with relay's patch (tools/simgrid/build.sh) when built: Debian's removes each
  // finished small message from a list by a scan of every one in flight, which at 16,384 ranks
  // took nearly all of the host's time. Same simulated results (docs/simulate.md).
  const char* given_smpirun = core::read_setting(core::Knob::simulate_smpirun);
  if (given_smpirun && access(given_smpirun, X_OK) != 0) {
    throw std::runtime_error(
        fmt::format("RELAY_SIMULATE_SMPIRUN: {} is not an executable", given_smpirun));
  }
  const std::string smpirun =
      given_smpirun ? given_smpirun
                    : first_existing({RELAY_SOURCE_DIR "/.deps/simgrid-3.32-relay/bin/smpirun",
                                      "/usr/bin/smpirun", "/usr/local/bin/smpirun"},
                                     X_OK);
  if (smpirun.empty()) {
    throw std::runtime_error("smpirun not found: apt install libsimgrid-dev (SimGrid 3.32)");
  }

  // Hostfile: by-slot, node-0 takes ranks 0 .. per_node-1, and so on, as mpirun's default;
  // another placement names each rank's node, one line per rank in rank order (smpirun gives
  // the hostfile's entries to the ranks in turn).
  const std::vector<int> slots =
      o.placement == "by-slot" ? std::vector<int>{} : placement_slots(o.placement, o.ranks);
  const fs::path hostfile =
      fs::temp_directory_path() / fmt::format("relay-simulate-{}.hosts", getpid());
  {
    std::ofstream out(hostfile);
    if (o.placement == "by-slot") {
      const int nodes = (o.ranks + per_node - 1) / per_node;
      for (int node = 0; node < nodes; ++node) out << "node-" << node << ":" << per_node << "\n";
    } else {
      for (int slot : slots) out << "node-" << slot / per_node << ":1\n";
    }
    if (!out) throw std::runtime_error("cannot write " + hostfile.string());
  }
  // -quiet: smpirun would otherwise keep its unrolled hostfile in the current directory after
  // a failed run (and print its whole command line).
  std::vector<std::string> argv{smpirun,     "-quiet",      "-np",       std::to_string(o.ranks),
                                "-platform", platform.file, "-hostfile", hostfile.string()};
  if (o.factors == "off") {
    // SMPI's default correction factors are not monotone in the message size (measured with
    // SMPI 3.32): comparisons with the model need a plain latency + size / bandwidth network.
    // --flow-share F < 1 bounds each flow at F of its route's bandwidth while several flows
    // still share a link up to all of it (SimGrid's CM02 bounds a flow's rate by the factor
    // times its slowest link; the link's constraint is the plain sum): huang2018 measured one
    // collective at about 30% of a link and several in flight filling it (their Fig. 5).
    argv.emplace_back(fmt::format("--cfg=smpi/bw-factor:0:{:g}", o.flow_share));
    for (const char* cfg : {"--cfg=smpi/lat-factor:0:1", "--cfg=network/crosstraffic:0"}) {
      argv.emplace_back(cfg);
    }
  }
  // Computation is charged explicitly (the GEMM's local multiplications), never measured from
  // the host: the same run gives the same simulated time.
  argv.emplace_back("--cfg=smpi/simulate-computation:no");
  // How each simulated rank gets its own copy of relay's globals. dlopen (smpirun's default)
  // copies relay-smpi into $TMPDIR and loads it once per rank; mmap loads it once and maps each
  // rank's copy of its data segment in when the rank runs: one copy of the code, no files
  // (docs/simulate.md: the host memory of both).
  argv.emplace_back("--cfg=smpi/privatization:" + o.privatization);
  // SMPI 3.32's ompi and mpich selectors send the first MPI_Bcast and MPI_Allreduce on a
  // communicator through its SMP-aware setup (Comm::init_smp: a ring allgather over every rank,
  // P^2 messages, each dearer as P grows). One 8-byte MPI_Allreduce on MPI_COMM_WORLD took
  // 3.7 s of host time on 256 ranks, 18 s on 512 and about 300 s on 1,024, and 6.6 to 14.6 ms
  // of simulated time; with the algorithm named (rdb) 0.5 s and 45 us. The other collectives do
  // not set it up (docs/measurements/issue25_smpi_probes/first_collective.c). 'flat' names
  // binomial_tree and rdb for those two and leaves the rest to the ompi selector.
  const std::string selector = effective_selector(o.coll_selector, o.ranks);
  argv.emplace_back("--cfg=smpi/coll-selector:" +
                    std::string(selector == "mpich" ? "mpich" : "ompi"));
  if (selector == "flat") {
    argv.emplace_back("--cfg=smpi/bcast:binomial_tree");
    argv.emplace_back("--cfg=smpi/allreduce:rdb");
    // The ompi selector's MPI_Barrier (bruck) sends P log2 P zero-byte messages, P at a time,
    // and SimGrid removes each finished one from a list by a linear scan: five barriers on 4,096
    // ranks took 21.7 s of host CPU against 2.1 s with ompi_tree, a fan-in and fan-out of
    // 2 (P - 1) messages (2.9 against 3.7 ms simulated; docs/measurements/smpi_barrier/).
    argv.emplace_back("--cfg=smpi/barrier:ompi_tree");
  }
  // SMPI charges every MPI_Test and MPI_Iprobe 100 us by default, and more after each one that
  // finds nothing (the count is shared by all ranks), so that a polling loop advances the clock.
  // Its MPI_Waitsome tests every other request after the first completion: relay's nonblocking
  // schedules, which wait with MPI_Waitsome, ran 10-30x slower than their blocking twins (8 MiB
  // pipeline on 16 ranks of gige64: 918 ms against 88.7 ms). A real MPI_Test costs about a
  // tenth of a microsecond; charged that, fixed, the two take the same 88.7 ms.
  const std::string test_cost = fmt::format("{:g}", o.test_cost_us * 1e-6);
  argv.emplace_back("--cfg=smpi/test:" + test_cost);
  argv.emplace_back("--cfg=smpi/iprobe:" + test_cost);
  argv.emplace_back("--cfg=smpi/grow-injected-times:no");
  // SMPI also charges each MPI_Wtime 10 ns, a switch of simulated rank each: relay's timers
  // (statistics around every panel, about 170 calls per rank in a 256-rank SUMMA of 8 panels)
  // cost host time for no simulated time of note. No relay loop waits on MPI_Wtime alone.
  argv.emplace_back("--cfg=smpi/wtime:0");
  // Below SMPI's eager limit (smpi/send-is-detached-thresh, 64 KiB) MPI_Send returns at once,
  // but by default the data moves only when the receive is posted: a 1-byte ping-pong measured
  // 150 us per hop on gige64 (100 us of links) when the receiver came late. An eager protocol
  // sends at once; so does SMPI with this threshold (100 us per hop).
  argv.emplace_back("--cfg=smpi/async-small-thresh:65536");
  // SMPI shares a large allocation among ranks by mapping one block of a file over each block
  // of it: one memory mapping per block and rank. With its 1 MiB blocks, 256 ranks of bench
  // gemm at n = 16384 (656 MiB each) needed about 168,000 mappings and died past Linux's
  // default vm.max_map_count (65,530: "Could not map folded virtual memory"); 16 MiB blocks
  // need 16 times fewer, and the shared file stays one block.
  argv.emplace_back("--cfg=smpi/shared-malloc-blocksize:16777216");
  argv.emplace_back("--log=root.thres:warning");
  argv.push_back(relay_smpi);
  argv.insert(argv.end(), o.command.begin(), o.command.end());

  const std::string description = fmt::format(
      "platform {} ({}), {} ranks, {} per node{}, correction factors {}{}, MPI_Test {:g} us, "
      "privatization {}, MPI baseline collectives: {}",
      platform.name, platform.file, o.ranks, per_node,
      o.placement == "by-slot" ? "" : ", placement " + o.placement, o.factors,
      o.flow_share < 1 ? fmt::format(" (a flow at most {:g} of a link)", o.flow_share) : "",
      o.test_cost_us, o.privatization,
      selector == "flat" ? "SMPI's ompi selector, with MPI_Bcast binomial_tree, MPI_Allreduce "
                           "rdb and MPI_Barrier ompi_tree (flat: no SMP setup)"
                         : "SMPI's " + selector + " selector");
  std::printf("# simulated with SimGrid SMPI: %s\n# smpirun: %s\n", description.c_str(),
              smpirun.c_str());
  if (o.dry_run) {
    for (const auto& a : argv) std::printf("%s ", a.c_str());
    std::printf("\n# hostfile (%s):", o.placement.c_str());
    std::ifstream lines(hostfile);
    for (std::string line; std::getline(lines, line);) std::printf(" %s", line.c_str());
    std::printf("\n");
    fs::remove(hostfile);
    return 0;
  }
  std::fflush(stdout);

  setenv(std::string(core::setting(core::Knob::simulate_platform).name).c_str(),
         description.c_str(), 1);
  // Stopped by a signal, relay simulate stops the whole simulation (smpirun and the program
  // it starts, in a process group of their own) and still removes its hostfile.
  struct sigaction on_stop {};
  on_stop.sa_handler = note_stop_signal;
  sigemptyset(&on_stop.sa_mask);
  for (int signal : {SIGINT, SIGTERM, SIGHUP}) sigaction(signal, &on_stop, nullptr);
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error("fork failed");
  if (child == 0) {
    setpgid(0, 0);
    std::vector<char*> args;
    for (auto& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    execv(args[0], args.data());
    std::perror("relay simulate: smpirun");
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  double peak_pss_kib = 0;
  // Reading a process's proportional set walks every page of every mapping, under the lock
  // the simulation needs to map memory: with 1,024 simulated ranks, sampling each second took
  // 17% of the host's CPU time (perf). The next sample waits for 1 s or 20 times the last
  // sample's cost, whichever is longer, which keeps the sampling under 5% of the run.
  auto next_sample = start + std::chrono::milliseconds(200);
  setpgid(child, child);  // as the child does: whichever runs first
  bool stop_sent = false;
  for (;;) {
    if (g_stop_signal != 0 && !stop_sent) {
      kill(-child, g_stop_signal);
      stop_sent = true;
    }
    const pid_t done = wait4(child, &status, WNOHANG, &usage);
    if (done == child) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("wait4 failed");
    if (const auto now = std::chrono::steady_clock::now(); now >= next_sample) {
      peak_pss_kib = std::max(peak_pss_kib, proportional_kib(child));
      const auto cost = std::chrono::steady_clock::now() - now;
      next_sample =
          now + std::max<std::chrono::steady_clock::duration>(std::chrono::seconds(1), 20 * cost);
    }
    usleep(50 * 1000);
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fs::remove(hostfile);
  const double cpu_s = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                       1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
  const double peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss: KiB
  const int code = g_stop_signal != 0  ? 128 + g_stop_signal
                   : WIFEXITED(status) ? WEXITSTATUS(status)
                                       : 128 + WTERMSIG(status);
  if (g_stop_signal != 0) std::printf("# stopped by signal %d\n", static_cast<int>(g_stop_signal));
  // Stopped, smpirun's shell dies before it waits for the simulation: neither's CPU time nor
  // resident set reaches relay simulate.
  const bool stopped = g_stop_signal != 0;
  std::printf(
      "# simulation cost on this host: %.1f s wall, %s CPU, %.0f MiB peak memory "
      "(proportional set, sampled every second or less often; the resident set, which counts "
      "SMPI's shared pages once per rank: %s); exit status %d\n",
      wall_s, stopped ? "unknown (stopped)" : fmt::format("{:.1f} s", cpu_s).c_str(),
      peak_pss_kib / 1024.0, stopped ? "unknown" : fmt::format("{:.0f} MiB", peak_mib).c_str(),
      code);

  const std::string json = json_output_of(o.command);
  if (code == 0 && !json.empty() && fs::exists(json)) {
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(json));
    doc["simulation"] = {
        {"engine", "SimGrid SMPI"},
        {"platform", platform.name},
        {"platform_file", platform.file},
        {"ranks", o.ranks},
        {"ranks_per_node", per_node},
        {"placement", o.placement},
        {"correction_factors", o.factors},
        {"flow_share", o.flow_share},
        {"coll_selector", selector},
        {"mpi_test_cost_us", o.test_cost_us},
        {"privatization", o.privatization},
        {"host_wall_s", wall_s},
        {"host_cpu_s", cpu_s},
        {"host_peak_memory_bytes", peak_pss_kib * 1024.0},
        {"host_peak_resident_bytes", static_cast<double>(usage.ru_maxrss) * 1024.0}};
    write_json_atomic(json, doc);
  }
  return code;
}

}  // namespace

void add_simulate(CLI::App& app, int& exit_code) {
  static Options o;
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Run a relay command (bench bcast, bench coll, bench gemm, ...) on a simulated platform "
      "under SimGrid SMPI (no mpirun)");
  std::string platforms;
  for (const auto& p : kPlatforms) platforms += fmt::format("\n  {:12} {}", p.name, p.summary);
  cmd->add_option("--platform", o.platform,
                  "a shipped platform or a SimGrid platform file:" + platforms)
      ->capture_default_str();
  cmd->add_option("--np", o.ranks, "simulated ranks")->required()->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--ranks-per-node", o.ranks_per_node,
                  "ranks per node, filled in turn (default: the platform's; tan2014: 8)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--placement", o.placement,
                  "which node each rank runs on: by-slot (in turn, as mpirun) or fibers:RxC:C "
                  "(the 2.5D view of a row-major RxC grid with C layers, each fiber's C ranks on "
                  "consecutive nodes: along one ring of a torus)")
      ->capture_default_str();
  cmd->add_option("--flow-share", o.flow_share,
                  "with --factors off: the most of its route's bandwidth one flow may use, in "
                  "(0, 1]; several flows still fill a link (huang2018 measured one collective at "
                  "about 0.3 of a link, Fig. 5)")
      ->check(CLI::Range(1e-3, 1.0))
      ->capture_default_str();
  cmd->add_option("--factors", o.factors,
                  "SMPI's bandwidth/latency correction factors: off (plain latency + size / "
                  "bandwidth, as the model) or smpi (SimGrid's defaults)")
      ->check(CLI::IsMember({"off", "smpi"}))
      ->capture_default_str();
  cmd->add_option("--coll-selector", o.coll_selector,
                  "whose algorithms SMPI's own blocking collectives follow (the mpi baseline): "
                  "ompi, mpich, flat (ompi's, with MPI_Bcast binomial_tree and MPI_Allreduce rdb: "
                  "SMPI's SMP setup of a communicator, which the other two run at the first "
                  "MPI_Bcast or MPI_Allreduce, grows faster than P^2 in host time; and "
                  "MPI_Barrier ompi_tree, whose host time grows as P, bruck's as P^2) or auto "
                  "(ompi below 512 ranks, flat from 512)")
      ->check(CLI::IsMember({"auto", "ompi", "mpich", "flat"}))
      ->capture_default_str();
  cmd->add_option("--test-cost-us", o.test_cost_us,
                  "simulated cost of one MPI_Test or MPI_Iprobe, fixed (SMPI's default, 100 us and "
                  "growing, slows nonblocking schedules 10-30x); more than 0, so that a polling "
                  "loop advances the clock")
      ->check(CLI::Range(1e-6, 1e6))
      ->capture_default_str();
  cmd->add_option(
         "--privatization", o.privatization,
         "how each simulated rank gets its own globals: mmap (one copy of relay-smpi, each "
         "rank's data mapped in when it runs), dlopen (a copy of relay-smpi per rank in "
         "$TMPDIR: more host memory and disk) or no (the ranks share relay-smpi's globals; relay "
         "keeps a rank's own state per rank: no remapping at each switch of rank, the least "
         "host time; docs/simulate.md)")
      ->check(CLI::IsMember({"mmap", "dlopen", "no"}))
      ->capture_default_str();
  cmd->add_flag("--dry-run", o.dry_run,
                "print the smpirun command and the hostfile instead of running it");
  cmd->add_option("command", o.command, "the relay command to simulate, after --")->required();
  cmd->footer(
      "Example: relay simulate --platform gige64 --np 64 -- bench bcast --sizes 8MiB "
      "--algorithms all --policies nonblocking --segments 64KiB --baselines none\n"
      "Needs relay-smpi (./dev smpi) and SimGrid 3.32 (apt install libsimgrid-dev); "
      "docs/simulate.md.");
  cmd->callback([&exit_code] {
    if (o.command.empty() ||
        (o.command[0] != "bench" && o.command[0] != "model" && o.command[0] != "tune")) {
      throw std::invalid_argument(
          "relay simulate: the command must be bench ..., model ... or tune ...");
    }
    if (o.flow_share < 1 && o.factors != "off") {
      throw std::invalid_argument(
          "relay simulate: --flow-share sets SMPI's bandwidth factor: it needs --factors off");
    }
    exit_code = run(o);
  });
}

}  // namespace relay::cli
