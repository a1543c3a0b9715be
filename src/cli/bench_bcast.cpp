// relay bench bcast: times broadcasts over sweeps of sizes x algorithms x policies x segments,
// next to two hand-written baselines measured in the same run:
//   hand_loop -- a plain MPI_Isend/MPI_Irecv chain pipeline with the same segments and max_requests
//                (what relay's `pipeline` should cost if relay added nothing on top of MPI)
//   p2p       -- one MPI_Send/MPI_Recv of the whole message between the root and its neighbour
//                (the bandwidth of one link, the ceiling of any broadcast)
//   blocking_chain -- the naive chain pipeline amestoy2001 measured: blocking MPI_Recv then
//                MPI_Send per segment, no receive posted ahead, so above MPI's eager limit each
//                send waits for the next rank to reach its receive (relay bench eager)
// An iteration is barrier-separated and its time is the maximum over ranks.
#include <mpi.h>

#include <fmt/format.h>
#include <algorithm>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>
#include "cli/cli11.hpp"

#include "cli/bench_common.hpp"
#include "cli/checks.hpp"
#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "coll/options.hpp"
#include "coll/predict.hpp"
#include "coll/registry.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "measure/stats.hpp"
#include "model/params.hpp"
#include "relay/relay.h"

namespace relay::cli {
namespace {

struct Args : SweepArgs {
  Args() { sizes = "1B:16MiB"; }
  std::string baselines = "all";
  int fanout = 0;
};

using Config = BenchConfig;

// A rank's place in the chain rooted at `root` of the hand-written baselines.
struct ChainPlace {
  ChainPlace(MPI_Comm comm, int root) {
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    v = (rank - root + size) % size;
    prev = (rank - 1 + size) % size;
    next = (rank + 1) % size;
  }
  bool first() const { return v == 0; }
  bool last() const { return v == size - 1; }
  int rank = 0, size = 1, v = 0, prev = 0, next = 0;
};

// The hand-written chain pipeline: W receives pre-posted, at most W sends in flight.
void hand_loop(char* buf, std::int64_t bytes, std::int64_t segment, int max_requests, int root,
               MPI_Comm comm) {
  const ChainPlace c(comm, root);
  if (c.size == 1 || bytes == 0) return;
  if (segment <= 0 || segment > bytes) segment = bytes;
  const std::int64_t n = (bytes + segment - 1) / segment;
  auto len = [&](std::int64_t j) {
    return static_cast<int>(std::min(segment, bytes - j * segment));
  };
  std::vector<MPI_Request> rreq(max_requests, MPI_REQUEST_NULL),
      sreq(max_requests, MPI_REQUEST_NULL);
  if (!c.first()) {
    for (std::int64_t j = 0; j < std::min<std::int64_t>(max_requests, n); ++j) {
      MPI_Irecv(buf + j * segment, len(j), MPI_BYTE, c.prev, 7, comm, &rreq[j % max_requests]);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const auto w = static_cast<std::size_t>(j % max_requests);
    if (!c.first()) {
      MPI_Wait(&rreq[w], MPI_STATUS_IGNORE);
      if (j + max_requests < n) {
        MPI_Irecv(buf + (j + max_requests) * segment, len(j + max_requests), MPI_BYTE, c.prev, 7,
                  comm, &rreq[w]);
      }
    }
    if (!c.last()) {
      MPI_Wait(&sreq[w], MPI_STATUS_IGNORE);
      MPI_Isend(buf + j * segment, len(j), MPI_BYTE, c.next, 7, comm, &sreq[w]);
    }
  }
  MPI_Waitall(max_requests, sreq.data(), MPI_STATUSES_IGNORE);
}

// The naive blocking chain: each segment received (MPI_Recv) and then forwarded (MPI_Send).
// Below the eager limit a send returns once buffered; above it, it returns only when the next
// rank has posted the matching receive, which that rank does after its own send of the segment
// before: the pipeline then advances in lock step (amestoy2001 Tables 6 and 8).
void blocking_chain(char* buf, std::int64_t bytes, std::int64_t segment, int root, MPI_Comm comm) {
  const ChainPlace c(comm, root);
  if (c.size == 1 || bytes == 0) return;
  if (segment <= 0 || segment > bytes) segment = bytes;
  for (std::int64_t off = 0; off < bytes; off += segment) {
    const int len = static_cast<int>(std::min(segment, bytes - off));
    if (!c.first()) MPI_Recv(buf + off, len, MPI_BYTE, c.prev, 9, comm, MPI_STATUS_IGNORE);
    if (!c.last()) MPI_Send(buf + off, len, MPI_BYTE, c.next, 9, comm);
  }
}

void p2p(char* buf, std::int64_t bytes, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1) return;
  const int peer = (root + 1) % size;
  if (rank == root) MPI_Send(buf, static_cast<int>(bytes), MPI_BYTE, peer, 8, comm);
  if (rank == peer)
    MPI_Recv(buf, static_cast<int>(bytes), MPI_BYTE, root, 8, comm, MPI_STATUS_IGNORE);
}

unsigned char pattern(std::int64_t i) { return static_cast<unsigned char>((i * 131 + 17) & 0xff); }

class Bench : public SweepBench {
 public:
  explicit Bench(const Args& a) : SweepBench(a), a_(a) {}

  int run();

 private:
  relay_bcast_options_t options(const Config& c) const;
  std::function<relay_status_t()> operation(const Config& c, char* buf, std::int64_t bytes);
  bool verify(const Config& c, std::int64_t bytes, std::string& error);
  nlohmann::json measure(const Config& c, std::int64_t bytes) override;
  void add_prediction(nlohmann::json& row) const override;

  const Args& a_;
  std::vector<char> buffer_;
};

relay_bcast_options_t Bench::options(const Config& c) const {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  relay_bcast_algorithm_from_name(c.algorithm.c_str(), &o.algorithm);
  if (c.policy != "-") relay_policy_from_name(c.policy.c_str(), &o.policy);
  o.segment_bytes = c.algorithm == "auto" ? RELAY_SEGMENT_DEFAULT : c.segment_bytes;
  o.fanout = a_.fanout;
  o.max_requests = a_.max_requests;
  return o;
}

std::function<relay_status_t()> Bench::operation(const Config& c, char* buf, std::int64_t bytes) {
  if (c.algorithm == "hand_loop") {
    return [=] {
      hand_loop(buf, bytes, c.segment_bytes, a_.max_requests, a_.root, comm_);
      return RELAY_SUCCESS;
    };
  }
  if (c.algorithm == "blocking_chain") {
    return [=] {
      blocking_chain(buf, bytes, c.segment_bytes, a_.root, comm_);
      return RELAY_SUCCESS;
    };
  }
  if (c.algorithm == "p2p") {
    return [=] {
      p2p(buf, bytes, a_.root, comm_);
      return RELAY_SUCCESS;
    };
  }
  const relay_bcast_options_t o = options(c);
  const int count = static_cast<int>(bytes);
  return [=] { return relay_bcast(buf, count, MPI_BYTE, a_.root, comm_, &o); };
}

// One broadcast of a known pattern; every rank checks what it got.
bool Bench::verify(const Config& c, std::int64_t bytes, std::string& error) {
  for (std::int64_t i = 0; i < bytes; ++i)
    buffer_[i] = static_cast<char>(rank_ == a_.root ? pattern(i) : 0);
  const relay_status_t st = operation(c, buffer_.data(), bytes)();
  int ok = st == RELAY_SUCCESS;
  if (!ok) error = relay_last_error();
  const bool receives = c.algorithm != "p2p" || rank_ == (a_.root + 1) % size_;
  for (std::int64_t i = 0; ok && receives && i < bytes; ++i) {
    if (static_cast<unsigned char>(buffer_[i]) != pattern(i)) {
      ok = 0;
      error = fmt::format("rank {} byte {} is wrong", rank_, i);
    }
  }
  int all = 0;
  exec::allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
  if (!all && error.empty()) error = "another rank received wrong data";
  return all == 1;
}

nlohmann::json Bench::measure(const Config& c, std::int64_t bytes) {
  nlohmann::json row = {{"operation", "bcast"}, {"algorithm", c.algorithm},
                        {"policy", c.policy},   {"segment_bytes", c.segment_bytes},
                        {"ranks", size_},       {"root", a_.root},
                        {"size_bytes", bytes},  {"max_requests", a_.max_requests},
                        {"fanout", a_.fanout}};
  if (c.algorithm != "hand_loop" && c.algorithm != "p2p" && c.algorithm != "blocking_chain") {
    const relay_bcast_options_t o = options(c);
    char text[256] = {};
    relay_bcast_describe(static_cast<int>(bytes), MPI_BYTE, a_.root, comm_, &o, text, sizeof text);
    row["resolved"] = text;
  }
  std::string error;
  if (!verify(c, bytes, error)) {
    row["error"] = error;
    return row;
  }
  auto op = operation(c, buffer_.data(), bytes);
  add_timing(row, bytes, [&op](bool) { op(); });
  return row;
}

// The replay's time for the configuration the row ran (for auto: what it resolved to), and
// predicted / measured. Baselines and mpi have no schedule and get no prediction.
void Bench::add_prediction(nlohmann::json& row) const {
  if (!machine_ || !row.contains("avg_us")) return;
  std::string algorithm = row["algorithm"].get<std::string>();
  std::string policy = row["policy"].get<std::string>();
  std::int64_t segment = row["segment_bytes"].get<std::int64_t>();
  int fanout = a_.fanout;
  if (row.contains("resolved")) {  // "algorithm=A policy=P segment_bytes=S fanout=F ..."
    const std::string text = row["resolved"].get<std::string>();
    auto field = [&](const std::string& key) { return resolved_field(text, key); };
    algorithm = field("algorithm");
    policy = field("policy");
    segment = std::stoll("0" + field("segment_bytes"));
    fanout = std::stoi("0" + field("fanout"));
  }
  const double t =
      coll::predict_bcast(*machine_, algorithm, policy, size_, a_.root,
                          row["size_bytes"].get<std::int64_t>(), segment, a_.max_requests, fanout);
  if (t < 0) return;
  row["predicted_us"] = t * 1e6;
  row["predicted_over_measured"] = t * 1e6 / row["avg_us"].get<double>();
}

int Bench::run() {
  std::vector<std::string> relay_names = {"auto"};
  for (const auto& alg : coll::algorithms(coll::Collective::bcast))
    relay_names.emplace_back(alg.name);
  const auto sizes = parse_size_list(a_.sizes);
  const auto names = parse_name_list(a_.algorithms, relay_names, "broadcast algorithm");
  const auto policies = parse_name_list(a_.policies, {"blocking", "nonblocking"}, "policy");
  const auto segments = parse_size_list(a_.segments);
  const auto baselines =
      a_.baselines == "none"
          ? std::vector<std::string>{}
          : parse_name_list(a_.baselines, {"hand_loop", "p2p", "blocking_chain"}, "baseline");
  if (a_.root < 0 || a_.root >= size_) {
    throw std::invalid_argument(fmt::format("--root {} is not a rank (0..{})", a_.root, size_ - 1));
  }
  std::vector<Config> configs;
  for (const auto& name : names) {
    const auto* alg = coll::find_algorithm(coll::Collective::bcast, name);
    // `mpi` has no policy or segments; `auto` picks its own (from the table or the model).
    if ((alg != nullptr && alg->build == nullptr) || name == "auto") {
      configs.push_back({name, "-", 0});
      continue;
    }
    for (const auto& policy : policies) {
      for (auto seg : segments) configs.push_back({name, policy, seg});
    }
  }
  for (const auto& b : baselines) {
    if (b == "p2p") {
      configs.push_back({b, "-", 0});
    } else {
      for (auto seg : segments)
        configs.push_back({b, b == "blocking_chain" ? "blocking" : "nonblocking", seg});
    }
  }
  const std::int64_t largest = *std::max_element(sizes.begin(), sizes.end());
  if (largest > std::numeric_limits<int>::max()) {  // relay_bcast and MPI count bytes in an int
    throw std::invalid_argument(
        fmt::format("--sizes: {} is more bytes than an MPI count holds (at most {})",
                    core::format_bytes(largest), std::numeric_limits<int>::max()));
  }
  require_memory(comm_, static_cast<double>(largest),
                 fmt::format("relay bench bcast (a buffer of the largest size, {})",
                             core::format_bytes(largest)));
  buffer_.assign(static_cast<std::size_t>(largest), 0);
  nlohmann::json doc = {{"schema", "relay.bench.bcast/1"}, {"machine", machine_description(comm_)}};
  doc["rows"] = nlohmann::json::array();
  const long failed = sweep(
      configs, sizes,
      [this](const Config& c) {
        return fmt::format("# bcast {} ranks={} root={} max_requests={} rounds={}", label(c), size_,
                           a_.root, a_.max_requests, a_.rounds);
      },
      doc);
  model_accuracy(configs, sizes, doc, [](const Config& c) {
    const auto* alg = coll::find_algorithm(coll::Collective::bcast, c.algorithm);
    return alg != nullptr && alg->build != nullptr;  // not auto, mpi or the baselines
  });
  return finish(doc, failed, "relay bench bcast", "bcast.py");
}

}  // namespace

void add_bench_bcast(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand(
      "bcast", "Time broadcasts: sizes x algorithms x policies x segments, with baselines");
  cmd->footer(
      "Run under mpirun, e.g.\n"
      "  mpirun -np 4 relay bench bcast --sizes 8MiB --algorithms all --segments 8KiB,64KiB\n"
      "Each configuration prints an OSU-style table; an iteration is barrier-separated and timed "
      "as\n"
      "the maximum over ranks. Baselines: hand_loop = plain MPI_Isend/MPI_Irecv chain pipeline\n"
      "with the same segments and max_requests; p2p = one MPI_Send of the whole message to one "
      "rank;\nblocking_chain = the naive chain: MPI_Recv then MPI_Send per segment, nothing "
      "pre-posted.");
  add_sweep_axes(cmd, *args, "message sizes: list and/or power-of-two ranges",
                 "relay algorithms (or auto), or all");
  cmd->add_option("--baselines", args->baselines, "hand_loop, p2p, blocking_chain, all or none")
      ->capture_default_str();
  cmd->add_option("--fanout", args->fanout, "fanout for chain/kary (0 = default)")
      ->check(CLI::Range(0, coll::kMaxFanout));
  add_sweep_timing(cmd, *args);
  add_sweep_output(
      cmd, *args,
      "parameter file from relay model measure: print the model's time next to each row, and "
      "per algorithm the segment it predicts best against the fastest measured");
  set_sweep_callback<Bench>(cmd, args, exit_code);
}

}  // namespace relay::cli
