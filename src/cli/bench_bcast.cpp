// relay bench bcast: times broadcasts over sweeps of sizes x algorithms x policies x segments,
// next to two hand-written baselines measured in the same run:
//   hand_loop -- a plain MPI_Isend/MPI_Irecv chain pipeline with the same segments and window
//                (what relay's `pipeline` should cost if relay added nothing on top of MPI)
//   p2p       -- one MPI_Send/MPI_Recv of the whole message between the root and its neighbour
//                (the bandwidth of one link, the ceiling of any broadcast)
// An iteration is barrier-separated and its time is the maximum over ranks.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <numeric>
#include <random>
#include <cstdio>
#include <fmt/format.h>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "cli/timing.hpp"
#include "coll/bcast/bcast.hpp"
#include "core/units.hpp"
#include "measure/stats.hpp"
#include "model/params.hpp"
#include "relay/relay.h"

namespace relay::cli {
namespace {

struct Args {
  std::string sizes = "1B:16MiB";
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "0,8KiB,64KiB,512KiB";
  std::string baselines = "all";
  int fanout = 0;
  int window = 16;
  int root = 0;
  IterationArgs timing;
  int rounds = 1;
  int confirm = 0;          // re-measure the sweep's fastest N per size, and auto
  int confirm_rounds = 9;
  int model_confirm = 2;    // with --model: each curve's fastest N and the model's pick again
  std::string json_path;
  std::string plot_path;
  std::string model_path;  // parameter file: print the model's time next to each row
  bool quiet = false;
};

struct Config {
  std::string algorithm;  // relay algorithm name, or a baseline
  std::string policy;     // "blocking", "nonblocking", or "-" where it does not apply
  std::int64_t segment_bytes = 0;
};

// The hand-written chain pipeline: W receives pre-posted, at most W sends in flight.
void hand_loop(char* buf, std::int64_t bytes, std::int64_t segment, int window, int root,
               MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1 || bytes == 0) return;
  const int v = (rank - root + size) % size;
  const int prev = (rank - 1 + size) % size, next = (rank + 1) % size;
  if (segment <= 0 || segment > bytes) segment = bytes;
  const std::int64_t n = (bytes + segment - 1) / segment;
  auto len = [&](std::int64_t j) { return static_cast<int>(std::min(segment, bytes - j * segment)); };
  std::vector<MPI_Request> rreq(window, MPI_REQUEST_NULL), sreq(window, MPI_REQUEST_NULL);
  if (v != 0) {
    for (std::int64_t j = 0; j < std::min<std::int64_t>(window, n); ++j) {
      MPI_Irecv(buf + j * segment, len(j), MPI_BYTE, prev, 7, comm, &rreq[j % window]);
    }
  }
  for (std::int64_t j = 0; j < n; ++j) {
    const auto w = static_cast<std::size_t>(j % window);
    if (v != 0) {
      MPI_Wait(&rreq[w], MPI_STATUS_IGNORE);
      if (j + window < n) {
        MPI_Irecv(buf + (j + window) * segment, len(j + window), MPI_BYTE, prev, 7, comm, &rreq[w]);
      }
    }
    if (v != size - 1) {
      MPI_Wait(&sreq[w], MPI_STATUS_IGNORE);
      MPI_Isend(buf + j * segment, len(j), MPI_BYTE, next, 7, comm, &sreq[w]);
    }
  }
  MPI_Waitall(window, sreq.data(), MPI_STATUSES_IGNORE);
}

void p2p(char* buf, std::int64_t bytes, int root, MPI_Comm comm) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size == 1) return;
  const int peer = (root + 1) % size;
  if (rank == root) MPI_Send(buf, static_cast<int>(bytes), MPI_BYTE, peer, 8, comm);
  if (rank == peer) MPI_Recv(buf, static_cast<int>(bytes), MPI_BYTE, root, 8, comm, MPI_STATUS_IGNORE);
}

unsigned char pattern(std::int64_t i) { return static_cast<unsigned char>((i * 131 + 17) & 0xff); }

class Bench {
 public:
  explicit Bench(const Args& a) : a_(a) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
    if (!a_.model_path.empty()) {
      machine_ = model::machine_from_json(model::read_params_file(a_.model_path), true);
    }
  }
  ~Bench() { MPI_Comm_free(&comm_); }

  int run();

 private:
  relay_bcast_options_t options(const Config& c) const;
  std::function<relay_status_t()> operation(const Config& c, char* buf, std::int64_t bytes);
  bool verify(const Config& c, std::int64_t bytes, std::string& error);
  nlohmann::json measure(const Config& c, std::int64_t bytes);
  void add_prediction(nlohmann::json& row) const;
  void confirm(const std::vector<Config>& configs, const std::vector<std::int64_t>& sizes,
               const std::vector<std::vector<nlohmann::json>>& measured, nlohmann::json& doc);
  void model_accuracy(const std::vector<Config>& configs, const std::vector<std::int64_t>& sizes,
                      const std::vector<std::vector<nlohmann::json>>& measured, nlohmann::json& doc);

  const Args& a_;
  std::optional<model::Machine> machine_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::vector<char> buffer_;
};

relay_bcast_options_t Bench::options(const Config& c) const {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  relay_bcast_algorithm_from_name(c.algorithm.c_str(), &o.algorithm);
  if (c.policy != "-") relay_policy_from_name(c.policy.c_str(), &o.policy);
  o.segment_bytes = c.algorithm == "auto" ? RELAY_SEGMENT_DEFAULT : c.segment_bytes;
  o.fanout = a_.fanout;
  o.max_requests = a_.window;
  return o;
}

std::function<relay_status_t()> Bench::operation(const Config& c, char* buf, std::int64_t bytes) {
  if (c.algorithm == "hand_loop") {
    return [=] { hand_loop(buf, bytes, c.segment_bytes, a_.window, a_.root, comm_); return RELAY_SUCCESS; };
  }
  if (c.algorithm == "p2p") {
    return [=] { p2p(buf, bytes, a_.root, comm_); return RELAY_SUCCESS; };
  }
  const relay_bcast_options_t o = options(c);
  const int count = static_cast<int>(bytes);
  return [=] { return relay_bcast(buf, count, MPI_BYTE, a_.root, comm_, &o); };
}

// One broadcast of a known pattern; every rank checks what it got.
bool Bench::verify(const Config& c, std::int64_t bytes, std::string& error) {
  for (std::int64_t i = 0; i < bytes; ++i) buffer_[i] = static_cast<char>(rank_ == a_.root ? pattern(i) : 0);
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
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
  if (!all && error.empty()) error = "another rank received wrong data";
  return all == 1;
}

nlohmann::json Bench::measure(const Config& c, std::int64_t bytes) {
  nlohmann::json row = {{"operation", "bcast"}, {"algorithm", c.algorithm}, {"policy", c.policy},
                        {"segment_bytes", c.segment_bytes}, {"ranks", size_}, {"root", a_.root},
                        {"size_bytes", bytes}, {"max_requests", a_.window}, {"fanout", a_.fanout}};
  if (c.algorithm != "hand_loop" && c.algorithm != "p2p") {
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
  add_times(row, time_iterations(comm_, a_.timing, [&op](bool) { op(); }));
  const double avg = row["avg_us"].get<double>() * 1e-6;
  row["bandwidth_MBps"] = avg > 0 ? static_cast<double>(bytes) / avg / 1e6 : 0.0;
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
    auto field = [&](const std::string& key) {
      const auto at = text.find(key + "=");
      if (at == std::string::npos) return std::string();
      const auto from = at + key.size() + 1;
      return text.substr(from, text.find(' ', from) - from);
    };
    algorithm = field("algorithm");
    policy = field("policy");
    segment = std::stoll("0" + field("segment_bytes"));
    fanout = std::stoi("0" + field("fanout"));
  }
  const double t = predict_bcast(*machine_, algorithm, policy, size_, a_.root,
                                 row["size_bytes"].get<std::int64_t>(), segment, a_.window, fanout);
  if (t < 0) return;
  row["predicted_us"] = t * 1e6;
  row["predicted_over_measured"] = t * 1e6 / row["avg_us"].get<double>();
}

// One row per combination and size, fastest first, with each row's time relative to the best.
void print_summary(const nlohmann::json& rows) {
  std::vector<std::int64_t> sizes;
  for (const auto& r : rows) {
    if (std::find(sizes.begin(), sizes.end(), r["size_bytes"].get<std::int64_t>()) == sizes.end()) {
      sizes.push_back(r["size_bytes"].get<std::int64_t>());
    }
  }
  std::printf("# Summary: every combination, fastest first (x best = time / fastest time)\n");
  std::printf("%-12s %-18s %-12s %-9s %12s %10s %8s %12s\n", "# Size", "Algorithm", "Policy", "Segment",
              "Avg(us)", "MB/s", "x best", "Model(us)");
  for (auto size : sizes) {
    std::vector<const nlohmann::json*> list;
    for (const auto& r : rows) {
      if (r["size_bytes"].get<std::int64_t>() == size && r.contains("avg_us")) list.push_back(&r);
    }
    std::sort(list.begin(), list.end(), [](auto* x, auto* y) {
      return (*x)["avg_us"].template get<double>() < (*y)["avg_us"].template get<double>();
    });
    for (const auto* r : list) {
      const auto seg = (*r)["segment_bytes"].get<std::int64_t>();
      std::printf("%-12lld %-18s %-12s %-9s %12.2f %10.2f %8.3f %12s\n", static_cast<long long>(size),
                  (*r)["algorithm"].get<std::string>().c_str(), (*r)["policy"].get<std::string>().c_str(),
                  seg > 0 ? core::format_bytes(seg).c_str() : "none", (*r)["avg_us"].get<double>(),
                  (*r)["bandwidth_MBps"].get<double>(),
                  (*r)["avg_us"].get<double>() / (*list.front())["avg_us"].get<double>(),
                  r->contains("predicted_us") ? fmt::format("{:.2f}", (*r)["predicted_us"].get<double>()).c_str() : "-");
    }
  }
}

// One row from several rounds: the median of the rounds' averages, the extreme min and max,
// the iterations summed, and every round's average kept for the record.
nlohmann::json combine_rounds(const std::vector<nlohmann::json>& rounds) {
  nlohmann::json row = rounds.front();
  if (row.contains("error") || rounds.size() == 1) return row;
  std::vector<double> avgs;
  int iterations = 0;
  for (const auto& r : rounds) {
    if (r.contains("error")) return r;
    avgs.push_back(r["avg_us"].get<double>());
    row["min_us"] = std::min(row["min_us"].get<double>(), r["min_us"].get<double>());
    row["max_us"] = std::max(row["max_us"].get<double>(), r["max_us"].get<double>());
    iterations += r["iterations"].get<int>();
  }
  row["round_avg_us"] = avgs;
  std::sort(avgs.begin(), avgs.end());
  const std::size_t n = avgs.size();
  const double median = n % 2 ? avgs[n / 2] : 0.5 * (avgs[n / 2 - 1] + avgs[n / 2]);
  row["avg_us"] = median;
  row["iterations"] = iterations;
  row["bandwidth_MBps"] = median > 0 ? row["size_bytes"].get<double>() / median : 0.0;
  return row;
}

std::string label(const Config& c) {
  return fmt::format("algorithm={} policy={} segment={}", c.algorithm, c.policy,
                     c.segment_bytes > 0 ? core::format_bytes(c.segment_bytes) : "none");
}

// Confirmation (--confirm N): the fastest row of a sweep of many noisy rows is faster than its
// configuration really is (the winner's curse: with 4 ranks on 2 cores, seven spellings of one
// unsegmented broadcast of 64 KiB ranged 41-53 us in one sweep), so a choice made elsewhere --
// auto, following a table -- is judged against the sweep's fastest N per size measured again,
// head to head with it, for --confirm-rounds rounds in a new order each round, and compared
// round by round (measure::paired_relative).
void Bench::confirm(const std::vector<Config>& configs, const std::vector<std::int64_t>& sizes,
                    const std::vector<std::vector<nlohmann::json>>& measured, nlohmann::json& doc) {
  doc["confirmation"] = nlohmann::json::array();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    // Every rank holds the same rows (times are agreed over ranks); rank 0's order is shared.
    std::vector<std::pair<double, int>> ranked;
    int auto_index = -1;
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const nlohmann::json row = combine_rounds(measured[ci * sizes.size() + si]);
      if (configs[ci].algorithm == "auto") auto_index = static_cast<int>(ci);
      if (row.contains("avg_us")) ranked.emplace_back(row["avg_us"].get<double>(), static_cast<int>(ci));
    }
    std::sort(ranked.begin(), ranked.end());
    std::vector<int> pick;
    for (const auto& r : ranked) {
      if (static_cast<int>(pick.size()) < a_.confirm) pick.push_back(r.second);
    }
    if (auto_index >= 0 && std::find(pick.begin(), pick.end(), auto_index) == pick.end()) pick.push_back(auto_index);
    int n = static_cast<int>(pick.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm_);
    pick.resize(static_cast<std::size_t>(n));
    MPI_Bcast(pick.data(), n, MPI_INT, 0, comm_);
    std::vector<std::vector<nlohmann::json>> again(pick.size());
    measure::interleaved_rounds(pick.size(), a_.confirm_rounds, 1001, [&](std::size_t i) {
      again[i].push_back(measure(configs[pick[i]], sizes[si]));
      return again[i].back().value("avg_us", 0.0);
    });
    if (rank_ != 0) continue;
    // Paired: each configuration's time relative to its round's median, so that the machine's
    // drift between rounds (as large as 2x at 8 MiB here) cancels.
    std::vector<nlohmann::json> rows;
    std::vector<std::vector<double>> times;
    for (std::size_t i = 0; i < pick.size(); ++i) {
      nlohmann::json row = combine_rounds(again[i]);
      row["sweep_avg_us"] = combine_rounds(measured[static_cast<std::size_t>(pick[i]) * sizes.size() + si]).value("avg_us", 0.0);
      if (row.contains("avg_us")) {
        times.push_back(row.contains("round_avg_us") ? row["round_avg_us"].get<std::vector<double>>()
                                                     : std::vector<double>{row["avg_us"].get<double>()});
      }
      rows.push_back(row);
    }
    if (times.size() == rows.size()) {
      const auto paired = measure::paired_relative(times);
      for (std::size_t i = 0; i < rows.size(); ++i) {
        rows[i]["relative_to_round"] = paired.relative[i];
        rows[i]["avg_us"] = paired.relative[i] * paired.reference;
      }
    }
    std::sort(rows.begin(), rows.end(), [](const nlohmann::json& x, const nlohmann::json& y) {
      return x.value("avg_us", 1e300) < y.value("avg_us", 1e300);
    });
    std::printf("\n# Confirmation, %s: the sweep's fastest %d%s measured again, %d rounds\n",
                core::format_bytes(sizes[si]).c_str(), a_.confirm, auto_index >= 0 ? " and auto" : "",
                a_.confirm_rounds);
    std::printf("# Confirmed = median over rounds of the time / the round's median over these rows,\n"
                "# times the median round (a drift between rounds slows all rows of a round alike)\n");
    std::printf("%-18s %-12s %-9s %12s %14s %8s\n", "# Algorithm", "Policy", "Segment", "Sweep(us)",
                "Confirmed(us)", "x best");
    const double best = rows.front().value("avg_us", 0.0);
    for (auto& row : rows) {
      if (!row.contains("avg_us")) continue;
      const auto seg = row["segment_bytes"].get<std::int64_t>();
      std::printf("%-18s %-12s %-9s %12.2f %14.2f %8.3f\n", row["algorithm"].get<std::string>().c_str(),
                  row["policy"].get<std::string>().c_str(), seg > 0 ? core::format_bytes(seg).c_str() : "none",
                  row["sweep_avg_us"].get<double>(), row["avg_us"].get<double>(), row["avg_us"].get<double>() / best);
      row["x_best"] = row["avg_us"].get<double>() / best;
      doc["confirmation"].push_back(row);
    }
  }
}

// Model accuracy (with --model): per size and per algorithm and policy swept over several
// segment sizes, the segment the model predicts best (the largest within 1% of its best
// prediction, as relay tune's model method takes it) against the fastest measured one
// (vadhiyar2004 Table 2). With --model-confirm N, the model's pick and that curve's N fastest are
// measured again head to head for --confirm-rounds rounds and compared round by round, so that
// the verdict is not the sweep's luckiest row.
void Bench::model_accuracy(const std::vector<Config>& configs, const std::vector<std::int64_t>& sizes,
                           const std::vector<std::vector<nlohmann::json>>& measured, nlohmann::json& doc) {
  doc["model_accuracy"] = nlohmann::json::array();
  for (std::size_t si = 0; si < sizes.size(); ++si) {
    struct Curve {
      std::string algorithm, policy;
      std::vector<int> rows;  // config indices
      int pick = -1, fastest = -1;
      std::vector<int> again;  // config indices measured head to head
    };
    std::vector<Curve> curves;
    std::vector<nlohmann::json> rows(configs.size());
    for (std::size_t ci = 0; ci < configs.size(); ++ci) {
      const Config& c = configs[ci];
      const auto* alg = coll::find_bcast_algorithm(c.algorithm);
      if (alg == nullptr || alg->build == nullptr) continue;  // auto, mpi, baselines
      rows[ci] = combine_rounds(measured[ci * sizes.size() + si]);
      add_prediction(rows[ci]);
      if (!rows[ci].contains("predicted_us")) continue;
      auto it = std::find_if(curves.begin(), curves.end(), [&](const Curve& k) { return k.algorithm == c.algorithm && k.policy == c.policy; });
      if (it == curves.end()) it = curves.insert(curves.end(), Curve{c.algorithm, c.policy, {}, -1, -1, {}});
      it->rows.push_back(static_cast<int>(ci));
    }
    auto time = [&](int ci) { return rows[static_cast<std::size_t>(ci)]["avg_us"].get<double>(); };
    auto pred = [&](int ci) { return rows[static_cast<std::size_t>(ci)]["predicted_us"].get<double>(); };
    // Unsegmented (0) and segments not below the message are the same largest "segment".
    auto effective = [&](int ci) {
      const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
      return s <= 0 || s >= sizes[si] ? sizes[si] : s;
    };
    std::vector<int> all_again;
    for (auto& k : curves) {
      if (k.rows.size() < 2) continue;
      double best_pred = 1e300;
      for (int ci : k.rows) best_pred = std::min(best_pred, pred(ci));
      for (int ci : k.rows) {
        if (pred(ci) <= best_pred * 1.01 && (k.pick < 0 || effective(ci) > effective(k.pick))) k.pick = ci;
        if (k.fastest < 0 || time(ci) < time(k.fastest)) k.fastest = ci;
      }
      if (a_.model_confirm > 0) {
        std::vector<int> by_time = k.rows;
        std::stable_sort(by_time.begin(), by_time.end(), [&](int x, int y) { return time(x) < time(y); });
        k.again.push_back(k.pick);
        for (int ci : by_time) {
          if (static_cast<int>(k.again.size()) > a_.model_confirm) break;
          if (ci != k.pick) k.again.push_back(ci);
        }
        for (int ci : k.again) all_again.push_back(ci);
      }
    }
    // Every rank measures the same configurations in the same order (rank 0's lists).
    int n = static_cast<int>(all_again.size());
    MPI_Bcast(&n, 1, MPI_INT, 0, comm_);
    all_again.resize(static_cast<std::size_t>(n));
    MPI_Bcast(all_again.data(), n, MPI_INT, 0, comm_);
    const auto round_times = measure::interleaved_rounds(all_again.size(), n > 0 ? a_.confirm_rounds : 0, 2003, [&](std::size_t i) {
      return measure(configs[static_cast<std::size_t>(all_again[i])], sizes[si]).value("avg_us", 0.0);
    });
    if (rank_ != 0 || curves.empty()) continue;
    std::printf("\n# Model accuracy, %s: per algorithm and policy, the segment the model predicts best "
                "against the fastest measured (x best = the model's pick / the fastest)%s\n",
                core::format_bytes(sizes[si]).c_str(),
                n > 0 ? fmt::format(";\n# confirmed: the pick and the curve's fastest {} measured again "
                                    "head to head, {} rounds, compared round by round", a_.model_confirm, a_.confirm_rounds).c_str() : "");
    std::printf("%-18s %-12s %-13s %12s %12s %-13s %12s %8s%s\n", "# Algorithm", "Policy", "Model's pick",
                "Predicted", "Measured", "Fastest", "Measured", "x best", n > 0 ? "  Confirmed" : "");
    auto seg_text = [&](int ci) {
      const auto s = configs[static_cast<std::size_t>(ci)].segment_bytes;
      return s > 0 ? core::format_bytes(s) : std::string("none");
    };
    std::size_t at = 0;
    for (const auto& k : curves) {
      if (k.rows.size() < 2) continue;
      nlohmann::json j = {{"size_bytes", sizes[si]}, {"algorithm", k.algorithm}, {"policy", k.policy},
                          {"model_segment_bytes", configs[static_cast<std::size_t>(k.pick)].segment_bytes},
                          {"model_predicted_us", pred(k.pick)}, {"model_measured_us", time(k.pick)},
                          {"fastest_segment_bytes", configs[static_cast<std::size_t>(k.fastest)].segment_bytes},
                          {"fastest_us", time(k.fastest)}, {"x_best", time(k.pick) / time(k.fastest)}};
      std::string confirmed;
      if (!k.again.empty()) {
        std::vector<std::vector<double>> t(round_times.begin() + static_cast<long>(at),
                                           round_times.begin() + static_cast<long>(at + k.again.size()));
        at += k.again.size();
        const auto rel = measure::paired_relative(t).relative;
        const double best = *std::min_element(rel.begin(), rel.end());
        j["confirmed_x_best"] = rel.front() / best;  // the pick is first
        nlohmann::json again = nlohmann::json::array();
        for (std::size_t i = 0; i < k.again.size(); ++i) {
          again.push_back({{"segment_bytes", configs[static_cast<std::size_t>(k.again[i])].segment_bytes},
                           {"relative", rel[i] / best}, {"round_us", t[i]}});
        }
        j["confirmation"] = again;
        confirmed = fmt::format("  {:9.3f}", rel.front() / best);
      }
      std::printf("%-18s %-12s %-13s %12.2f %12.2f %-13s %12.2f %8.3f%s\n", k.algorithm.c_str(), k.policy.c_str(),
                  seg_text(k.pick).c_str(), pred(k.pick), time(k.pick), seg_text(k.fastest).c_str(),
                  time(k.fastest), time(k.pick) / time(k.fastest), confirmed.c_str());
      doc["model_accuracy"].push_back(j);
    }
  }
}

int Bench::run() {
  std::vector<std::string> relay_names = {"auto"};
  for (const auto& alg : coll::bcast_algorithms()) relay_names.emplace_back(alg.name);
  const auto sizes = parse_size_list(a_.sizes);
  const auto names = parse_name_list(a_.algorithms, relay_names, "broadcast algorithm");
  const auto policies = parse_name_list(a_.policies, {"blocking", "nonblocking"}, "policy");
  const auto segments = parse_size_list(a_.segments);
  const auto baselines = a_.baselines == "none"
                             ? std::vector<std::string>{}
                             : parse_name_list(a_.baselines, {"hand_loop", "p2p"}, "baseline");
  if (a_.root < 0 || a_.root >= size_) {
    throw std::invalid_argument(fmt::format("--root {} is not a rank (0..{})", a_.root, size_ - 1));
  }
  std::vector<Config> configs;
  for (const auto& name : names) {
    const auto* alg = coll::find_bcast_algorithm(name);
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
      for (auto seg : segments) configs.push_back({b, "nonblocking", seg});
    }
  }
  buffer_.assign(static_cast<std::size_t>(*std::max_element(sizes.begin(), sizes.end())), 0);
  nlohmann::json doc = {{"schema", "relay.bench.bcast/1"}, {"machine", machine_description(comm_)}};
  doc["rows"] = nlohmann::json::array();
  // Rounds: every configuration is measured once per round, so slow drifts of the machine
  // affect all of them alike; a row reports the median over rounds of each round's average.
  const std::size_t total = configs.size() * sizes.size() * static_cast<std::size_t>(a_.rounds);
  std::size_t done = 0;
  const double start = MPI_Wtime();
  std::vector<std::vector<nlohmann::json>> measured(configs.size() * sizes.size());
  // Each round visits the configurations in its own order (the same on every rank: a fixed
  // seed per round), so that no configuration always runs right after the same neighbour or
  // first in a round: with 4 ranks on 2 cores the first configuration of every round ran up to
  // 1.6x slower than the same configuration elsewhere in the round.
  std::vector<std::size_t> order(configs.size());
  for (int round = 0; round < a_.rounds; ++round) {
    std::iota(order.begin(), order.end(), std::size_t{0});
    if (a_.rounds > 1) std::shuffle(order.begin(), order.end(), std::mt19937(static_cast<unsigned>(round) + 1));
    for (std::size_t ci : order) {
      for (std::size_t si = 0; si < sizes.size(); ++si) {
        measured[ci * sizes.size() + si].push_back(measure(configs[ci], sizes[si]));
        ++done;
        if (rank_ == 0 && !a_.quiet) {
          const double elapsed = MPI_Wtime() - start;
          std::fprintf(stderr, "\r[%zu/%zu] %.0f s elapsed, about %.0f s left   ", done, total,
                       elapsed, elapsed / static_cast<double>(done) * static_cast<double>(total - done));
          if (done == total) std::fprintf(stderr, "\n");
        }
      }
    }
  }
  for (std::size_t ci = 0; ci < configs.size(); ++ci) {
    const Config& c = configs[ci];
    if (rank_ == 0) {
      std::printf("# bcast %s ranks=%d root=%d window=%d rounds=%d\n", label(c).c_str(), size_,
                  a_.root, a_.window, a_.rounds);
      std::printf("%-12s %12s %12s %12s %11s %10s%s\n", "# Size", "Avg(us)", "Min(us)", "Max(us)",
                  "Iterations", "MB/s", machine_ ? "    Model(us) Model/meas" : "");
    }
    for (std::size_t si = 0; si < sizes.size(); ++si) {
      nlohmann::json row = combine_rounds(measured[ci * sizes.size() + si]);
      add_prediction(row);
      const auto bytes = sizes[si];
      if (rank_ != 0) continue;
      if (row.contains("error")) {
        std::printf("%-12lld ERROR: %s\n", static_cast<long long>(bytes), row["error"].get<std::string>().c_str());
      } else {
        std::printf("%-12lld %12.2f %12.2f %12.2f %11d %10.2f", static_cast<long long>(bytes),
                    row["avg_us"].get<double>(), row["min_us"].get<double>(), row["max_us"].get<double>(),
                    row["iterations"].get<int>(), row["bandwidth_MBps"].get<double>());
        if (row.contains("predicted_us")) {
          std::printf(" %12.2f %10.3f", row["predicted_us"].get<double>(), row["predicted_over_measured"].get<double>());
        } else if (machine_) {
          std::printf(" %12s %10s", "-", "-");
        }
        std::printf("\n");
      }
      doc["rows"].push_back(row);
    }
    if (rank_ == 0) std::printf("\n");
  }
  // Every rank knows which rows failed (verify agrees over all ranks): all exit non-zero.
  const auto failed = std::count_if(doc["rows"].begin(), doc["rows"].end(),
                                    [](const nlohmann::json& r) { return r.contains("error"); });
  int rc = failed > 0 ? 1 : 0;
  if (rank_ == 0) print_summary(doc["rows"]);
  if (a_.confirm > 0) confirm(configs, sizes, measured, doc);
  if (machine_) model_accuracy(configs, sizes, measured, doc);
  if (rank_ != 0) return rc;
  if (failed > 0) std::fprintf(stderr, "relay bench bcast: %d configurations failed (ERROR rows above)\n", static_cast<int>(failed));
  return std::max(rc, write_results(doc, a_.json_path, a_.plot_path, "plot_bcast.py",
                                     "relay bench bcast"));
}

}  // namespace

void add_bench_bcast(CLI::App& bench, int& exit_code) {
  auto args = std::make_shared<Args>();
  CLI::App* cmd = bench.add_subcommand("bcast", "Time broadcasts: sizes x algorithms x policies x segments, with baselines");
  cmd->footer(
      "Run under mpirun, e.g.\n"
      "  mpirun -np 4 relay bench bcast --sizes 8MiB --algorithms all --segments 8KiB,64KiB\n"
      "Each configuration prints an OSU-style table; an iteration is barrier-separated and timed as\n"
      "the maximum over ranks. Baselines: hand_loop = plain MPI_Isend/MPI_Irecv chain pipeline\n"
      "with the same segments and window; p2p = one MPI_Send of the whole message to one rank.");
  cmd->add_option("--sizes", args->sizes, "message sizes: list and/or power-of-two ranges")->capture_default_str();
  cmd->add_option("--algorithms", args->algorithms, "relay algorithms (or auto), or all")->capture_default_str();
  cmd->add_option("--policies", args->policies, "blocking, nonblocking, or all")->capture_default_str();
  cmd->add_option("--segments", args->segments, "segment sizes; 0 = unsegmented")->capture_default_str();
  cmd->add_option("--baselines", args->baselines, "hand_loop, p2p, all or none")->capture_default_str();
  cmd->add_option("--fanout", args->fanout, "fanout for chain/kary (0 = default)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--window", args->window, "max requests in flight per direction")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd->add_option("--root", args->root, "root rank")->capture_default_str();
  cmd->add_option("--iterations", args->timing.iterations, "timed iterations (0 = enough for --min-time)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--warmup", args->timing.warmup, "untimed iterations first")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--min-time", args->timing.min_time_s, "seconds of timed iterations per row when --iterations is 0")->capture_default_str();
  cmd->add_option("--max-iterations", args->timing.max_iterations, "cap on automatic iterations")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--confirm", args->confirm, "after the sweep, measure its fastest N configurations per size (and auto) again, head to head")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--confirm-rounds", args->confirm_rounds, "rounds of the confirmation")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--model-confirm", args->model_confirm, "with --model: the model's pick and each curve's fastest N measured again head to head, --confirm-rounds rounds (0: no confirmation)")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--rounds", args->rounds, "measure every configuration this many times, interleaved; report the median")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--json", args->json_path, "write rows as JSON here");
  cmd->add_option("--plot", args->plot_path, "draw a PNG here (needs --json and matplotlib)");
  cmd->add_option("--model", args->model_path,
                  "parameter file from relay model measure: print the model's time next to each row, and "
                  "per algorithm the segment it predicts best against the fastest measured")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--quiet", args->quiet, "no progress on stderr");
  // Handled before parsing (main.cpp): listed here for --help.
  cmd->add_flag("--cluster",
                "run on the emulated cluster (relay cluster up first): relaunches this command "
                "with relay cluster run, one rank per slot (hang timeout: RELAY_CLUSTER_TIMEOUT, "
                "default 3600 s)");
  cmd->callback([args, &exit_code] {
    if (!args->plot_path.empty() && args->json_path.empty()) {
      throw CLI::ValidationError("--plot", "needs --json");
    }
    ensure_mpi();
    Bench bench_run(*args);
    exit_code = bench_run.run();
  });
}

}  // namespace relay::cli
