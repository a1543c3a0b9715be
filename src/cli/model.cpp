// relay model measure: point-to-point parameters of this machine (measure/p2p_params), printed
// and written as JSON (model/params). relay model predict: the replay's time for collective
// configurations (tune/predict), from such a file.
#include <mpi.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "coll/options.hpp"
#include "coll/predict.hpp"
#include "coll/registry.hpp"
#include "core/units.hpp"
#include "exec/host_memory.hpp"
#include "measure/p2p_params.hpp"
#include "measure/timing.hpp"
#include "model/params.hpp"

namespace relay::cli {
namespace {

// relay model predict: process counts as relay tune --predict-ranks takes them, and element
// sizes up to 1 MiB (a derived datatype's).
constexpr int kMaxPredictRanks = 1 << 20;
constexpr int kMaxElemBytes = 1 << 20;

/// What relay model measure measures, and how long it insists (measure::P2pOptions, as typed).
struct P2pMeasureArgs {
  std::string sizes = "1B:16MiB,3KiB,12KiB,48KiB,96KiB,192KiB,768KiB,3MiB";
  int peer = 1;
  double spread = 0.05;
  double max_seconds = 1.0;
  int max_samples = 200;
  std::string pairs = "auto";
  std::string cycle = "0";
  std::string output = "model.json";
  bool quiet = false;
};

measure::P2pOptions p2p_options(const P2pMeasureArgs& a, MPI_Comm comm) {
  measure::P2pOptions o;
  o.sizes = parse_size_list(a.sizes);
  o.peer = a.peer;
  o.max_spread = a.spread;
  o.max_seconds = a.max_seconds;
  o.max_samples = a.max_samples;
  o.pairs = a.pairs;
  const auto cycle_bytes = core::parse_bytes(a.cycle);
  if (!cycle_bytes || *cycle_bytes < 0) {
    throw std::invalid_argument("--cycle '" + a.cycle + "' is not a size (0 = reuse one buffer)");
  }
  o.cycle_bytes = *cycle_bytes;
  o.quiet = a.quiet;
  o.check_memory = [comm](double bytes, const std::string& what) {
    require_memory(comm, bytes, what);
  };
  return o;
}

void print_params(const nlohmann::json& doc) {
  std::printf("# point-to-point parameters, ranks %d and %d", doc["pair"][0].get<int>(),
              doc["pair"][1].get<int>());
  if (doc.contains("pairs")) {
    std::printf(", %s (%s)",
                doc["pairs"] == "concurrent" ? "all ranks in pairs at once" : "the pair alone",
                doc.value("pairs_reason", std::string()).c_str());
  }
  std::printf("\n");
  std::printf("%-10s %12s %8s %10s %10s %12s %10s %6s\n", "# Size", "RTT/2(us)", "spread", "os(us)",
              "or(us)", "g(us)", "L(us)", "eager");
  for (const auto& r : doc["plogp"]) {
    std::printf("%-10s %12.2f %7.1f%% %10.2f %10.2f %12.2f %10.2f %6s\n",
                core::format_bytes(r["bytes"].get<std::int64_t>()).c_str(),
                r["rtt_s"].get<double>() / 2 * 1e6, r["rtt_spread"].get<double>() * 100,
                r["os_s"].get<double>() * 1e6, r["or_s"].get<double>() * 1e6,
                r["g_s"].get<double>() * 1e6, r["latency_s"].get<double>() * 1e6,
                r["eager"].get<bool>() ? "yes" : "no");
  }
  int over = 0;
  double worst = 1;
  for (const auto& r : doc["plogp"]) {
    if (r.contains("over_rtt")) {
      ++over;
      worst = std::max(worst, r["over_rtt"].get<double>());
    }
  }
  if (over > 0) {
    std::printf(
        "# at %d sizes os + g + or exceed RTT/2 (up to %.2fx; L = 0 there): the model costs one "
        "message "
        "more than the ping-pong measured (g and or both hold the transfer of a rendezvous "
        "message)\n",
        over, worst);
  }
  std::printf(
      "# Hockney fit: alpha %.2f us, beta %.4f ns/B (%.0f MB/s); eager limit about %s; "
      "duplex %.2f%s (1 = full duplex, 0 = one shared link)\n",
      doc["hockney"]["alpha_s"].get<double>() * 1e6,
      doc["hockney"]["beta_s_per_byte"].get<double>() * 1e9,
      doc["hockney"]["bandwidth_MBps"].get<double>(),
      core::format_bytes(doc["eager_limit_bytes"].get<std::int64_t>()).c_str(),
      doc["duplex"].get<double>(),
      doc.contains("duplex_spread")
          ? fmt::format(" (interquartile range of {} paired samples {:.2f})",
                        measure::kDuplexSamples, doc["duplex_spread"].get<double>())
                .c_str()
          : "");
  if (doc.contains("combine") && !doc["combine"]["rows"].empty()) {
    std::printf("# combine (MPI_Reduce_local, doubles, MPI_SUM):");
    const auto& crows = doc["combine"]["rows"];
    for (std::size_t i = 0; i < crows.size(); ++i) {
      const auto bytes = crows[i]["bytes"].get<std::int64_t>();
      if (bytes == 1024 || bytes == 65536 || bytes == 1048576 || i + 1 == crows.size()) {
        std::printf(" %s %.2f us", core::format_bytes(bytes).c_str(),
                    crows[i]["s"].get<double>() * 1e6);
      }
    }
    std::printf("\n");
  }
  if (doc.value("two_peers_first_ratio", 0.0) > 0) {
    std::printf("# sends to two peers at once: the first took %.2fx one alone: %s\n",
                doc["two_peers_first_ratio"].get<double>(),
                doc.value("sends_to_two_peers", "") == "shared_link"
                    ? "they share the node's link (sends_to_two_peers shared_link)"
                    : "one at a time at the full rate (sends_to_two_peers one_at_a_time)");
  }
  if (doc.contains("transfer_slots")) {
    const double slots = doc["transfer_slots"].get<double>();
    std::printf(
        "# all ranks in pairs at once: %.2fx one pair's time; transfer slots %s\n",
        doc.value("concurrent_slowdown", 1.0),
        slots > 0 ? fmt::format("{:.2f} (transfers that move at full rate together)", slots).c_str()
                  : "no limit");
  }
}

struct PredictArgs {
  std::string params;
  std::string operation = "bcast";
  int elem_bytes = 8;
  int ranks = 8;
  int root = 0;
  std::string sizes = "8MiB";
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "0,1KiB:1MiB";
  int max_requests = 16;
  bool hockney = false;
  double duplex = -1;
  std::string sends;  // empty: the parameter file's
  std::string json_path;
};

int run_predict(const PredictArgs& a) {
  auto machine = read_machine("--params", a.params, !a.hockney, a.duplex);
  if (!a.sends.empty()) machine.shared_link = a.sends == "shared_link";
  if (a.ranks < 1) throw std::invalid_argument("--ranks must be >= 1");
  if (a.root < 0 || a.root >= a.ranks) {
    throw std::invalid_argument(
        fmt::format("--root {} is not a rank (0..{})", a.root, a.ranks - 1));
  }
  if (a.elem_bytes < 1) throw std::invalid_argument("--elem-bytes must be >= 1");
  const auto collective = parse_operation(a.operation);
  std::vector<std::string> names;
  if (collective) {
    for (const auto& alg : coll::algorithms(*collective)) {
      if (alg.build != nullptr) names.emplace_back(alg.name);
    }
  } else {
    for (const auto& alg : coll::algorithms(coll::Collective::bcast)) {
      if (alg.build != nullptr) names.emplace_back(alg.name);
    }
  }
  const auto algorithms = parse_name_list(
      a.algorithms, names, fmt::format("modelled {} algorithm (mpi has no schedule)", a.operation));
  const auto policies = parse_name_list(a.policies, {"blocking", "nonblocking"}, "policy");
  const auto sizes = parse_size_list(a.sizes);
  const auto segments = parse_size_list(a.segments);
  nlohmann::json rows = nlohmann::json::array();
  std::printf("# predicted %s times, %d ranks, root %d, %s model (%s), %s\n", a.operation.c_str(),
              a.ranks, a.root, a.hockney ? "Hockney" : "PLogP", a.params.c_str(),
              machine.shared_link
                  ? "messages to several peers share the node's link (max-min fair)"
                  : "a node sends one message at a time and receives one at a time");
  if (machine.eager_limit_bytes >= 0) {
    std::printf(
        "# messages above %s are rendezvous: each waits %.2f us for its handshake (a control "
        "message's round "
        "trip) before its data moves\n",
        core::format_bytes(machine.eager_limit_bytes).c_str(),
        machine.cost(machine.eager_limit_bytes + 1).handshake_s * 1e6);
  }
  if (collective && coll::moves_data(*collective)) {
    std::printf(
        "# sizes are the data a call moves, as relay's tables count them: the vector (reduce, "
        "allreduce) or all "
        "ranks' blocks together (the others), in elements of %d bytes\n",
        a.elem_bytes);
  }
  if (collective && coll::has_op(*collective)) {
    if (machine.combine.empty()) {
      std::printf(
          "# combining received data (the op) is free here: %s has no combine timings (files "
          "written by relay model measure now have them)\n",
          a.params.c_str());
    } else {
      const auto& last = machine.combine.rows().back();
      std::printf(
          "# combines cost what MPI_Reduce_local of doubles with MPI_SUM took (%.3f ns/B at %s)\n",
          last.second / static_cast<double>(last.first) * 1e9,
          core::format_bytes(last.first).c_str());
    }
  }
  std::printf("%-10s %-22s %-12s %-9s %14s\n", "# Size", "Algorithm", "Policy", "Segment",
              "Predicted(us)");
  for (auto requested : sizes) {
    std::int64_t bytes = requested;
    if (collective) bytes = coll::coll_call_bytes(*collective, a.ranks, requested, a.elem_bytes);
    for (const auto& name : algorithms) {
      if (collective) {
        const auto* alg = coll::find_algorithm(*collective, name);
        if (!alg->runs_on(a.ranks)) {
          std::printf("# %s needs a power-of-two process count; relay runs %s instead\n",
                      name.c_str(),
                      std::string(coll::find_algorithm(*collective, alg->fallback)->name).c_str());
          continue;
        }
      }
      for (const auto& policy : policies) {
        for (auto seg : segments) {
          if (seg >= bytes && seg != 0) continue;
          const double t =
              collective ? coll::predict_coll(machine, *collective, name, policy, a.ranks, a.root,
                                              bytes, a.elem_bytes, seg, a.max_requests)
                         : coll::predict_bcast(machine, name, policy, a.ranks, a.root, bytes, seg,
                                               a.max_requests);
          std::printf("%-10s %-22s %-12s %-9s %14.2f\n", core::format_bytes(bytes).c_str(),
                      name.c_str(), policy.c_str(),
                      seg > 0 ? core::format_bytes(seg).c_str() : "none", t * 1e6);
          rows.push_back({{"operation", a.operation},
                          {"size_bytes", bytes},
                          {"algorithm", name},
                          {"policy", policy},
                          {"segment_bytes", seg},
                          {"predicted_us", t * 1e6}});
        }
      }
    }
  }
  return write_results(
      {{"schema", "relay.model.predict/1"},
       {"params", a.params},
       {"operation", a.operation},
       {"ranks", a.ranks},
       {"model", a.hockney ? "hockney" : "plogp"},
       {"sends_to_two_peers", machine.shared_link ? "shared_link" : "one_at_a_time"},
       {"rows", rows}},
      a.json_path, "", "", "relay model predict");
}

// A replay holds every rank's steps: about ranks x segments of them (256 ranks x 8192 segments
// of 1 KiB took 0.5 GB and 54 s), so large --ranks with small --segments can outgrow the
// memory. Unlimited, the process grows until the kernel's OOM killer ends it; with its address
// space capped at what it maps now plus what the machine has available, the allocation fails
// instead and the command says why.
void limit_memory_to_available() {
  const std::int64_t available = exec::available_memory_bytes();
  long long mapped_pages = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) return;
  const bool read = std::fscanf(statm, "%lld", &mapped_pages) == 1;
  std::fclose(statm);
  if (!read || available <= 0) return;
  const auto want = static_cast<rlim_t>(mapped_pages * sysconf(_SC_PAGESIZE) + available);
  rlimit limit{};
  if (getrlimit(RLIMIT_AS, &limit) != 0) return;
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur <= want) return;  // already lower
  limit.rlim_cur = want;
  setrlimit(RLIMIT_AS, &limit);
}

}  // namespace

model::Machine read_machine(const std::string& option, const std::string& path, bool use_plogp,
                            double duplex_override) {
  try {
    return model::machine_from_json(model::read_params_file(path), use_plogp, duplex_override);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("{} {}: {}", option, path, e.what()));
  }
}

std::optional<coll::Collective> parse_operation(const std::string& name) {
  if (name == "bcast") return std::nullopt;
  std::vector<std::string> names = {"bcast"};
  for (auto c : coll::kCollectives) {
    if (c == coll::Collective::bcast) continue;  // named first, returned as nullopt above
    if (coll::to_string(c) == name) return c;
    names.emplace_back(coll::to_string(c));
  }
  throw std::invalid_argument(
      fmt::format("--operation {} is not one of {}", name, fmt::join(names, ", ")));
}

void add_model(CLI::App& app, int& exit_code) {
  CLI::App* model = app.add_subcommand(
      "model", "Measure point-to-point parameters; predict collective and GEMM times");
  model->require_subcommand(1);

  auto m = std::make_shared<P2pMeasureArgs>();
  CLI::App* measure_cmd = model->add_subcommand(
      "measure",
      "Measure ping-pong, os, or, g, L and the eager limit between two ranks (run under mpirun)");
  measure_cmd->footer(
      "Example: mpirun -np 2 relay model measure --output model.json\n"
      "Each quantity is repeated until the interquartile spread is under --spread (or a cap);\n"
      "L = RTT/2 - os - g - or (at least 0), so that the model reproduces the ping-pong where\n"
      "os + g + or fit in RTT/2; rows where they do not are marked (over_rtt, and printed).");
  measure_cmd
      ->add_option("--sizes", m->sizes,
                   "message sizes (lists and power-of-two ranges)" + std::string(kSizesHelpUnits))
      ->capture_default_str();
  measure_cmd->add_option("--peer", m->peer, "the rank measured against rank 0")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  measure_cmd
      ->add_option("--spread", m->spread,
                   "stop once the relative interquartile spread is below this")
      ->check(finite_in(0.0))
      ->capture_default_str();
  measure_cmd->add_option("--max-seconds", m->max_seconds, "cap per quantity and size")
      ->check(finite_in(0.0))
      ->capture_default_str();
  measure_cmd->add_option("--max-samples", m->max_samples, "cap per quantity and size")
      ->check(CLI::Range(1, measure::kMaxIterations))
      ->capture_default_str();
  measure_cmd->add_option("--output,-o", m->output, "parameter file (JSON) to write")
      ->capture_default_str();
  measure_cmd
      ->add_option("--pairs", m->pairs,
                   "who measures at a time: lone (rank 0 and --peer; the others wait), concurrent "
                   "(all ranks in pairs at once, rank 0's pair reported: costs include what ranks "
                   "sharing cores and memory do to each other during a collective), auto "
                   "(concurrent when a host runs more ranks than it has cores)")
      ->check(CLI::IsMember({"auto", "lone", "concurrent"}))
      ->capture_default_str();
  measure_cmd
      ->add_option("--cycle", m->cycle,
                   "messages take successive parts of a buffer this large per rank (at least twice "
                   "the largest size), so that no size is served from a cache (as IMB's "
                   "-off_cache); 0 = reuse one buffer")
      ->capture_default_str();
  measure_cmd->add_flag_callback(
      "--concurrent", [m] { m->pairs = "concurrent"; }, "same as --pairs concurrent");
  measure_cmd->add_flag("--quiet", m->quiet, "no progress on stderr");
  measure_cmd->callback([m, &exit_code] {
    ensure_mpi();
    const auto measured = measure::measure_p2p(MPI_COMM_WORLD, p2p_options(*m, MPI_COMM_WORLD));
    const nlohmann::json machine = machine_description(MPI_COMM_WORLD);  // collective
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    exit_code = 0;
    if (rank == 0) {
      const auto doc = model::params_document(measured, machine);
      print_params(doc);
      exit_code = write_results(doc, m->output, "", "", "relay model measure");
    }
  });

  add_model_gemm(*model, exit_code);

  auto p = std::make_shared<PredictArgs>();
  CLI::App* predict = model->add_subcommand(
      "predict", "Predict collective times from a parameter file (no MPI needed)");
  predict->footer(
      "Example: relay model predict --params model.json --ranks 8 --sizes 8MiB --segments "
      "0,8KiB:1MiB\n"
      "         relay model predict --params model.json --operation allreduce --ranks 6 --sizes "
      "1MiB");
  predict->add_option("--params", p->params, "parameter file from relay model measure")
      ->required()
      ->check(CLI::ExistingFile);
  predict
      ->add_option(
          "--operation", p->operation,
          "bcast, or a collective of `relay algorithms` (reduce, allreduce, allgather, ...)")
      ->capture_default_str();
  predict
      ->add_option("--elem-bytes", p->elem_bytes,
                   "element size of the reductions and gathers (8: double)")
      ->check(CLI::Range(1, kMaxElemBytes))
      ->capture_default_str();
  predict->add_option("--ranks", p->ranks, "process count")
      ->check(CLI::Range(1, kMaxPredictRanks))
      ->capture_default_str();
  predict->add_option("--root", p->root, "root rank (0 .. --ranks - 1)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  predict->add_option("--sizes", p->sizes, "message sizes" + std::string(kSizesHelpUnits))
      ->capture_default_str();
  predict->add_option("--algorithms", p->algorithms, "algorithms (all = every one with a schedule)")
      ->capture_default_str();
  predict->add_option("--policies", p->policies, "blocking, nonblocking or all")
      ->capture_default_str();
  predict->add_option("--segments", p->segments, "segment sizes; 0 = unsegmented")
      ->capture_default_str();
  add_max_requests_option(predict, p->max_requests, coll::kMaxMaxRequests,
                          "requests in flight per rank");
  predict->add_flag("--hockney", p->hockney, "use the Hockney fit instead of the PLogP table");
  predict
      ->add_option("--duplex", p->duplex,
                   "override link sharing: 1 full duplex .. 0 one shared link (default: the "
                   "parameter file's)")
      ->check(finite_in(0.0, 1.0));
  predict
      ->add_option("--sends", p->sends,
                   "override how a node's messages to several peers move: one_at_a_time (one "
                   "port) or shared_link (together, max-min fair; TCP, SimGrid) (default: the "
                   "parameter file's sends_to_two_peers, else one_at_a_time)")
      ->check(CLI::IsMember({"one_at_a_time", "shared_link"}));
  predict->add_option("--json", p->json_path, "write rows as JSON here");
  predict->callback([p, &exit_code] {
    limit_memory_to_available();
    try {
      exit_code = run_predict(*p);
    } catch (const std::bad_alloc&) {
      throw AgreedError(fmt::format(
          "relay model predict: out of memory replaying schedules on {} ranks (a replay "
          "holds about ranks x segments steps): use fewer --ranks or larger --segments",
          p->ranks));
    }
  });
}

}  // namespace relay::cli
