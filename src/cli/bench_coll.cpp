// relay bench coll --operation OP: times a collective other than broadcast (reduce, allreduce,
// allgather, reduce_scatter_block, gather, scatter, alltoall, barrier, allgatherv) over sweeps
// of sizes x algorithms x policies x segments, the way relay bench bcast times broadcasts, on
// doubles with MPI_SUM as relay tune measures them. `mpi` (the MPI library's own collective)
// is the baseline. Every configuration is first checked against the MPI library's collective
// on the same inputs. An iteration is barrier-separated and its time is the maximum over ranks.
#include <mpi.h>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <algorithm>
#include <cstdio>
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
#include "coll/invoke.hpp"
#include "coll/predict.hpp"
#include "coll/registry.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "model/params.hpp"
#include "relay/relay.h"

namespace relay::cli {
namespace {

using coll::Collective;

struct Args : SweepArgs {
  Args() { sizes = "1KiB:4MiB"; }
  std::string operation;
};

// Small integers (0..16): every sum over ranks is exact in any order; ranks' inputs differ at
// every index and consecutive elements differ, so a block from the wrong rank or at the wrong
// offset shows.
double input_value(int rank, std::size_t i) {
  return static_cast<double>((rank * 5 + static_cast<int>(i % 4096) * 3) % 17);
}

class Bench : public SweepBench {
 public:
  explicit Bench(const Args& a) : SweepBench(a), a_(a) {}

  int run();

 private:
  std::vector<std::string> algorithm_names(nlohmann::json& left_out) const;
  relay_coll_options_t options(const BenchConfig& c) const;
  int elements(std::int64_t bytes) const;
  std::size_t result_elements(int n) const;
  void set_counts(int n);
  coll::Buffers buffers(int n, double* out);
  relay_status_t call_relay(const relay_coll_options_t& o, int n, double* out);
  void call_mpi(int n, double* out);
  bool verify(const BenchConfig& c, std::int64_t bytes, std::string& error);
  nlohmann::json measure(const BenchConfig& c, std::int64_t bytes) override;
  void add_prediction(nlohmann::json& row) const override;

  const Args& a_;
  Collective op_ = Collective::reduce;
  std::string name_;
  std::vector<double> send_, recv_, reference_;
  std::vector<int> counts_, displs_;  // allgatherv: uniform blocks
};

// The operation's algorithms the user asked for. `all` leaves out those that would run their
// fallback on this process count (their rows would carry the fallback's time under their
// name); one named explicitly is timed anyway, and a note says what runs.
std::vector<std::string> Bench::algorithm_names(nlohmann::json& left_out) const {
  std::vector<std::string> own = {"auto"};
  for (const auto& alg : coll::algorithms(op_)) own.emplace_back(alg.name);
  std::vector<std::string> explicit_names;
  std::string item;
  for (std::size_t at = 0; at <= a_.algorithms.size(); ++at) {
    if (at < a_.algorithms.size() && a_.algorithms[at] != ',') {
      item += a_.algorithms[at];
      continue;
    }
    if (!item.empty() && item != "all" && std::find(own.begin(), own.end(), item) == own.end()) {
      // Another operation's algorithm: say whose, rather than only "unknown".
      std::vector<std::string> owners;
      for (auto c : coll::kCollectives) {
        if (c != op_ && c != coll::Collective::bcast && coll::find_algorithm(c, item) != nullptr) {
          owners.emplace_back(coll::to_string(c));
        }
      }
      if (coll::find_algorithm(coll::Collective::bcast, item) != nullptr)
        owners.emplace_back("bcast");
      if (!owners.empty()) {
        throw std::invalid_argument(
            fmt::format("--algorithms: '{}' is an algorithm of {}, not of {} ({} "
                        "algorithms: {}, all)",
                        item, fmt::join(owners, ", "), name_, name_, fmt::join(own, ", ")));
      }
    }
    if (item != "all") explicit_names.push_back(item);
    item.clear();
  }
  const auto parsed = parse_name_list(a_.algorithms, own, name_ + " algorithm");
  std::vector<std::string> names;
  for (const auto& name : parsed) {
    if (std::find(names.begin(), names.end(), name) != names.end()) continue;  // "all,ring"
    const auto* alg = coll::find_algorithm(op_, name);
    if (alg != nullptr && !alg->runs_on(size_)) {
      const std::string fallback(coll::find_algorithm(op_, alg->fallback)->name);
      const bool named =
          std::find(explicit_names.begin(), explicit_names.end(), name) != explicit_names.end();
      if (rank_ == 0) {
        if (named) {
          std::printf(
              "# %s %s needs a power-of-two process count: on %d ranks relay runs %s instead; "
              "timed "
              "because it was named (its rows measure %s; see their resolved field)\n",
              name_.c_str(), name.c_str(), size_, fallback.c_str(), fallback.c_str());
        } else {
          std::printf(
              "# %s %s needs a power-of-two process count: left out on %d ranks (relay would run "
              "%s "
              "instead; name it in --algorithms to time that)\n",
              name_.c_str(), name.c_str(), size_, fallback.c_str());
        }
      }
      if (!named) {
        left_out.push_back({{"algorithm", name}, {"fallback", fallback}});
        continue;
      }
    }
    names.push_back(name);
  }
  if (names.empty())
    throw std::invalid_argument(fmt::format("--algorithms: none of them runs on {} ranks", size_));
  return names;
}

relay_coll_options_t Bench::options(const BenchConfig& c) const {
  relay_coll_options_t o;
  relay_coll_options_init(&o);
  relay_coll_algorithm_from_name(static_cast<relay_collective_t>(op_), c.algorithm.c_str(),
                                 &o.algorithm);
  if (c.policy != "-") relay_policy_from_name(c.policy.c_str(), &o.policy);
  o.segment_bytes = c.algorithm == "auto" ? RELAY_SEGMENT_DEFAULT : c.segment_bytes;
  o.max_requests = a_.max_requests;
  return o;
}

// The count of a call moving `bytes` as tables count them: the vector (reduce, allreduce) or
// one rank's block (the others), in doubles; run() made `bytes` whole blocks.
int Bench::elements(std::int64_t bytes) const {
  return static_cast<int>(bytes / 8 / (coll::has_blocks(op_) ? size_ : 1));
}

// How many doubles of the output this rank receives from a call of count n (the collective's
// result rule).
std::size_t Bench::result_elements(int n) const {
  const coll::ResultRule result = coll::traits(op_).result;
  if (!coll::includes(result.at, rank_ == a_.root)) return 0;
  return static_cast<std::size_t>(n) * static_cast<std::size_t>(result.all_blocks ? size_ : 1);
}

void Bench::set_counts(int n) {
  counts_.assign(static_cast<std::size_t>(size_), n);
  displs_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) displs_[static_cast<std::size_t>(r)] = r * n;
}

// The arguments of a call of count n: doubles summed, the root, allgatherv's uniform blocks.
coll::Buffers Bench::buffers(int n, double* out) {
  coll::Buffers b;
  b.send = send_.data();
  b.recv = out;
  b.count = n;
  b.type = MPI_DOUBLE;
  b.op = MPI_SUM;
  b.root = a_.root;
  b.recvcounts = counts_.data();
  b.displs = displs_.data();
  return b;
}

relay_status_t Bench::call_relay(const relay_coll_options_t& o, int n, double* out) {
  return coll::invoke(op_, buffers(n, out), comm_, nullptr, &o);
}

// The MPI library's own collective on the same inputs: the reference of verify().
void Bench::call_mpi(int n, double* out) { coll::invoke_mpi(op_, buffers(n, out), comm_, nullptr); }

// One call of relay's and one of MPI's on the same inputs; every rank that receives a result
// compares the two exactly, and the ranks agree, so that all report the same row.
bool Bench::verify(const BenchConfig& c, std::int64_t bytes, std::string& error) {
  const int n = elements(bytes);
  for (std::size_t i = 0; i < send_.size(); ++i) send_[i] = input_value(rank_, i);
  std::fill(recv_.begin(), recv_.end(), -1.0);
  std::fill(reference_.begin(), reference_.end(), -2.0);
  const relay_status_t st = call_relay(options(c), n, recv_.data());
  int ok = st == RELAY_SUCCESS;
  if (!ok) error = relay_last_error();
  for (std::size_t i = 0; i < send_.size(); ++i)
    send_[i] = input_value(rank_, i);  // as MPI gets them
  call_mpi(n, reference_.data());
  const std::size_t check = result_elements(n);
  for (std::size_t i = 0; ok && i < check; ++i) {
    if (recv_[i] != reference_[i]) {
      ok = 0;
      error = fmt::format("rank {} element {} is {}, MPI's {} gives {}", rank_, i, recv_[i], name_,
                          reference_[i]);
    }
  }
  int all = 0;
  exec::allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
  if (all) return true;
  // Every rank reports the lowest failing rank's reason.
  int first = ok ? size_ : rank_, lowest = 0;
  exec::allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, comm_);
  int length = rank_ == lowest ? static_cast<int>(error.size()) : 0;
  MPI_Bcast(&length, 1, MPI_INT, lowest, comm_);
  error.resize(static_cast<std::size_t>(length));
  MPI_Bcast(error.data(), length, MPI_CHAR, lowest, comm_);
  return false;
}

nlohmann::json Bench::measure(const BenchConfig& c, std::int64_t bytes) {
  const int n = elements(bytes);
  nlohmann::json row = {{"operation", name_},
                        {"algorithm", c.algorithm},
                        {"policy", c.policy},
                        {"segment_bytes", c.segment_bytes},
                        {"ranks", size_},
                        {"root", coll::has_root(op_) ? nlohmann::json(a_.root) : nlohmann::json()},
                        {"size_bytes", bytes},
                        {"count", n},
                        {"max_requests", a_.max_requests}};
  const relay_coll_options_t o = options(c);
  char text[256] = {};
  if (relay_coll_describe(static_cast<relay_collective_t>(op_), n, MPI_DOUBLE, MPI_SUM, a_.root,
                          comm_, &o, text, sizeof text) == RELAY_SUCCESS) {
    row["resolved"] = text;
  }
  if (op_ == Collective::allgatherv) set_counts(n);
  std::string error;
  if (!verify(c, bytes, error)) {
    row["error"] = error;
    return row;
  }
  add_timing(row, bytes, [&](bool) { call_relay(o, n, recv_.data()); });
  return row;
}

// The replay's time for the configuration the row ran (what relay_coll_describe says it
// resolved to: auto's choice, or the fallback of an algorithm that cannot run on this count),
// and predicted / measured. mpi has no schedule and gets no prediction.
void Bench::add_prediction(nlohmann::json& row) const {
  if (!machine_ || !row.contains("avg_us") || !row.contains("resolved")) return;
  const std::string text = row["resolved"].get<std::string>();
  const std::string algorithm = resolved_field(text, "algorithm");
  const auto* alg = coll::find_algorithm(op_, algorithm);
  if (alg == nullptr || alg->build == nullptr || !alg->runs_on(size_)) return;
  const std::int64_t bytes = coll::moves_data(op_) ? row["size_bytes"].get<std::int64_t>() : 1;
  const double t =
      coll::predict_coll(*machine_, op_, algorithm, resolved_field(text, "policy"), size_, a_.root,
                         bytes, 8, std::stoll("0" + resolved_field(text, "segment_bytes")),
                         a_.max_requests, std::stoi("0" + resolved_field(text, "fanout")));
  if (t < 0) return;
  row["predicted_us"] = t * 1e6;
  row["predicted_over_measured"] = t * 1e6 / row["avg_us"].get<double>();
}

int Bench::run() {
  if (a_.operation == "bcast") {
    throw std::invalid_argument(
        "--operation bcast: broadcasts have their own benchmark, relay bench bcast");
  }
  try {
    op_ = *parse_operation(a_.operation);  // not bcast: a collective or an exception
  } catch (const std::invalid_argument&) {
    // parse_operation's list names bcast too, which this command leaves to bench bcast.
    std::vector<std::string> names;
    for (auto c : coll::kCollectives) {
      if (c != coll::Collective::bcast) names.emplace_back(coll::to_string(c));
    }
    throw std::invalid_argument(
        fmt::format("--operation {} is not one of {} (broadcasts: relay bench bcast)", a_.operation,
                    fmt::join(names, ", ")));
  }
  name_ = std::string(coll::to_string(op_));
  if (a_.root < 0 || a_.root >= size_) {
    throw std::invalid_argument(fmt::format("--root {} is not a rank (0..{})", a_.root, size_ - 1));
  }
  nlohmann::json left_out = nlohmann::json::array();
  const auto names = algorithm_names(left_out);
  const auto policies = parse_name_list(a_.policies, {"blocking", "nonblocking"}, "policy");
  auto segments = parse_size_list(a_.segments);
  for (auto s : segments) {
    if (s % 8 != 0) {
      throw std::invalid_argument(
          fmt::format("--segments: {} bytes is not a whole number of doubles (8 bytes)", s));
    }
  }
  std::vector<std::int64_t> sizes;
  if (!coll::moves_data(op_)) {
    // A barrier moves no data: one row per configuration, and segments change nothing.
    sizes = {0};
    segments = {0};
    if (rank_ == 0)
      std::printf(
          "# barrier moves no data: one row per configuration (size 0; --sizes and --segments are "
          "not used)\n");
  } else {
    // As tables count a call (relay tune, relay model predict): the vector (reduce, allreduce)
    // or all ranks' blocks together, in whole doubles (whole blocks).
    std::vector<std::string> rounded;
    for (auto b : parse_size_list(a_.sizes)) {
      const auto used = coll::coll_call_bytes(op_, size_, b, 8);
      if (used / 8 > std::numeric_limits<int>::max()) {
        throw std::invalid_argument(
            fmt::format("--sizes: {} is more doubles than an MPI count holds (at most {})",
                        core::format_bytes(b), std::numeric_limits<int>::max()));
      }
      if (used != b) rounded.push_back(fmt::format("{} -> {}", b, used));
      sizes.push_back(used);
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    if (rank_ == 0) {
      std::printf(
          "# sizes: the data a call moves, as relay's tables count it: %s, in whole doubles%s\n",
          coll::has_blocks(op_) ? fmt::format("all {} ranks' blocks together", size_).c_str()
                                : "the vector",
          rounded.empty() ? ""
                          : fmt::format(" (rounded: {} bytes)", fmt::join(rounded, ", ")).c_str());
    }
  }
  std::vector<BenchConfig> configs;
  for (const auto& name : names) {
    const auto* alg = coll::find_algorithm(op_, name);
    // `mpi` has no policy or segments; `auto` picks its own (from the table or the defaults).
    if (alg == nullptr || alg->build == nullptr) {
      configs.push_back({name, "-", 0});
      continue;
    }
    for (const auto& policy : policies) {
      for (auto seg : segments) configs.push_back({name, policy, seg});
    }
  }
  const auto largest = static_cast<std::size_t>(sizes.back() / 8 + 1);
  require_memory(comm_, 3.0 * static_cast<double>(largest) * 8,
                 fmt::format("relay bench coll (3 buffers of the largest size, {})",
                             core::format_bytes(sizes.back())));
  send_.assign(largest, 0.0);
  recv_.assign(largest, 0.0);
  reference_.assign(largest, 0.0);
  nlohmann::json doc = {{"schema", "relay.bench.coll/1"},
                        {"operation", name_},
                        {"machine", machine_description(comm_)}};
  doc["left_out"] = left_out;
  doc["rows"] = nlohmann::json::array();
  const long failed = sweep(
      configs, sizes,
      [this](const BenchConfig& c) {
        return fmt::format("# {} {} ranks={}{} max_requests={} rounds={}", name_, label(c), size_,
                           coll::has_root(op_) ? fmt::format(" root={}", a_.root) : "",
                           a_.max_requests, a_.rounds);
      },
      doc);
  model_accuracy(configs, sizes, doc, [this](const BenchConfig& c) {
    const auto* alg = coll::find_algorithm(op_, c.algorithm);
    return alg != nullptr && alg->build != nullptr;  // not auto or mpi
  });
  return finish(doc, failed, "relay bench coll", "bcast.py");
}

}  // namespace

void add_bench_coll(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand("coll",
                                       "Time a collective other than broadcast (--operation): "
                                       "sizes x algorithms x policies x segments, "
                                       "checked against the MPI library's");
  cmd->footer(
      "Run under mpirun, e.g.\n"
      "  mpirun -np 4 relay bench coll --operation allreduce --sizes 64KiB,1MiB --algorithms all\n"
      "Doubles with MPI_SUM. Sizes are the data a call moves as relay's tables count it: the\n"
      "vector (reduce, allreduce) or all ranks' blocks together (the others), rounded down to "
      "whole\n"
      "blocks of doubles; a barrier has one row per configuration. Each configuration is checked\n"
      "against the MPI library's collective first, then prints an OSU-style table; an iteration "
      "is\n"
      "barrier-separated and timed as the maximum over ranks. mpi = the MPI library's collective.");
  cmd->add_option("--operation", args->operation,
                  "reduce, allreduce, allgather, reduce_scatter_block, gather, scatter, alltoall, "
                  "barrier or "
                  "allgatherv (broadcasts: relay bench bcast)")
      ->required();
  add_sweep_axes(
      cmd, *args,
      "data a call moves (the vector, or all ranks' blocks): list and/or power-of-two ranges",
      "the operation's algorithms (relay algorithms), auto, mpi, or all (all leaves out those that "
      "need "
      "a power-of-two process count on other counts)");
  add_sweep_timing(cmd, *args);
  add_sweep_output(
      cmd, *args,
      "parameter file from relay model measure: print the model's time next to each row, per "
      "algorithm the segment it predicts best against the fastest measured, and its choice "
      "among all against the fastest");
  set_sweep_callback<Bench>(cmd, args, exit_code);
}

}  // namespace relay::cli
