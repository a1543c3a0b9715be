// relay tune: finds the best {algorithm, policy, segment size} per message size on this
// communicator by exhaustive search, MGD, SMGD, the model alone and model-guided search, reports
// what each cost and how good its choice is, and writes a decision table (relay.tuning/1).
// relay table check / export: validate a table; write it as an Open MPI coll/tuned dynamic
// rules file and an MPICH collective selection JSON.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

#include "cli/commands.hpp"
#include "cli/model_tools.hpp"
#include "cli/results.hpp"
#include "cli/sweep.hpp"
#include "coll/registry.hpp"
#include "core/units.hpp"
#include "measure/stats.hpp"
#include "model/params.hpp"
#include "relay/relay.h"
#include "tune/export.hpp"
#include "tune/search.hpp"
#include "coll/table.hpp"

namespace relay::cli {
namespace {

struct TuneArgs {
  std::string operation = "bcast";
  std::string sizes = "64KiB,1MiB,8MiB";
  std::string algorithms = "all";
  std::string policies = "all";
  std::string segments = "1KiB:4MiB";
  std::string methods = "exhaustive,mgd,smgd,model,guided";
  std::string table_method = "smgd";
  std::string params;
  std::string predict_ranks;
  std::string output = "relay-tuning.json";
  std::string json_path;
  std::string plot_path;
  double min_time = 0.05;
  int window = 16;
  int root = 0;
  int top_k = 3;
  double threshold = 1.2;
  double noise = 0.03;
  int variant_top = 2;
  double variant_within = 1.10;
  int patience = 2;
  int confirm = 4;
  int confirm_rounds = 7;
  bool smgd_gradient = false;
  bool quiet = false;
};

struct Axis {
  std::string algorithm, policy;
  std::vector<std::int64_t> segments;  // ascending; the last (0) is unsegmented
};

// One configuration's measurement: the slowest rank's time of every timed iteration and the
// wall time each took (barrier included), so that a search which would have stopped early
// can be charged what stopping early costs, also when it reads a measurement another method
// made in full.
struct Measured {
  double time_s = 0;
  double setup_s = 0;               // barrier, warm-up, agreeing on the count
  double warm_s = 0;                // the warm-up call, slowest rank (a sample for the race)
  std::size_t planned = 0;          // timed iterations --min-time asked for
  std::vector<double> iterations;   // slowest rank's time per timed iteration
  std::vector<double> walls;        // wall seconds per timed iteration, barrier included
  bool partial = false;             // stopped early by a race (above its bound or below its floor)
  tune::Race race;                  // the race it ran under

  // Timed iterations before a race stops (tune::race_stops), all if none.
  std::size_t stop_after(const tune::Race& r) const { return tune::race_length(iterations, warm_s, r, planned); }
  // Whether this measurement answers a question under race r: a full one answers all; an
  // early-stopped one the questions it settles (tune::race_settles).
  bool answers(const tune::Race& r) const { return !partial || tune::race_settles(time_s, race, r); }
  // What a measurement raced under r reports and costs.
  double time_under(const tune::Race& r) const {
    const auto k = stop_after(r);
    return k == iterations.size() ? time_s : tune::race_estimate(iterations, k, r);
  }
  double cost_under(const tune::Race& r) const {
    const auto k = static_cast<long>(stop_after(r));
    return std::accumulate(walls.begin(), walls.begin() + k, setup_s);
  }
};

class Tuner {
 public:
  explicit Tuner(const TuneArgs& a) : a_(a) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~Tuner() { MPI_Comm_free(&comm_); }
  int run();

 private:
  Measured measure(const Axis& axis, std::int64_t segment, std::int64_t bytes, const tune::Race& race);
  void progress(const std::string& what);

  // The schedule a configuration of the tuned operation runs (nullopt: none, mpi).
  std::optional<schedule::Schedule> schedule_of(const Axis& axis, std::int64_t bytes, std::int64_t segment) const;
  // The model's time for a configuration of the tuned operation (-1: no schedule, mpi).
  double predict(const model::Machine& machine, const Axis& axis, int ranks, int root, std::int64_t bytes,
                 std::int64_t segment) const;

  const TuneArgs& a_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::optional<coll::Collective> collective_;  // nullopt: bcast
  std::vector<char> buffer_;
  std::vector<double> send_, recv_;             // the other collectives: MPI_DOUBLE, MPI_SUM
  std::vector<int> counts_, displs_;            // allgatherv
  std::size_t measured_ = 0, expected_ = 0;
  double started_ = 0;
};

// One configuration: warm-up, then enough barrier-separated iterations for --min-time; its
// time is the mean over iterations of the slowest rank -- what relay bench reports, so that the
// table optimises what the benchmark shows (under oversubscription the two differ by up to 2x:
// a descheduled rank stretches some iterations, more for some algorithms than others) -- and
// its cost the wall time spent. Both are agreed over ranks, so every rank takes the same
// search decisions. Under a race (SMGD) it stops as tune::race_stops says: after the first
// iteration if it and the warm-up are both above the race's bound (where at most 3 are planned,
// or the model puts it there too) or both below its floor (at most 3 planned); else once the
// median of 3 or more is above the bound, or their mean below the floor.
Measured Tuner::measure(const Axis& axis, std::int64_t segment, std::int64_t bytes, const tune::Race& race) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  relay_coll_options_t co;
  relay_coll_options_init(&co);
  if (!collective_) {
    relay_bcast_algorithm_from_name(axis.algorithm.c_str(), &o.algorithm);
    relay_policy_from_name(axis.policy.c_str(), &o.policy);
    o.segment_bytes = segment;
    o.max_requests = a_.window;
  } else {
    relay_coll_algorithm_from_name(static_cast<relay_collective_t>(*collective_), axis.algorithm.c_str(), &co.algorithm);
    relay_policy_from_name(axis.policy.c_str(), &co.policy);
    co.segment_bytes = segment;
    co.max_requests = a_.window;
  }
  const int count = static_cast<int>(bytes);
  // The vector (reduce, allreduce) or one rank's block (the others), in doubles; run() made
  // `bytes` whole blocks of doubles.
  const int elems = collective_ ? static_cast<int>(bytes / 8 / (coll::has_blocks(*collective_) ? size_ : 1)) : 0;
  if (collective_ == coll::Collective::allgatherv) {  // uniform blocks, set up once, not per call
    counts_.assign(static_cast<std::size_t>(size_), elems);
    displs_.resize(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) displs_[static_cast<std::size_t>(r)] = r * elems;
  }
  auto call = [&]() -> relay_status_t {
    if (!collective_) return relay_bcast(buffer_.data(), count, MPI_BYTE, a_.root, comm_, &o);
    double* in = send_.data();
    double* out = recv_.data();
    switch (*collective_) {
      case coll::Collective::reduce: return relay_reduce(in, out, elems, MPI_DOUBLE, MPI_SUM, a_.root, comm_, &co);
      case coll::Collective::allreduce: return relay_allreduce(in, out, elems, MPI_DOUBLE, MPI_SUM, comm_, &co);
      case coll::Collective::allgather: return relay_allgather(in, out, elems, MPI_DOUBLE, comm_, &co);
      case coll::Collective::reduce_scatter_block:
        return relay_reduce_scatter_block(in, out, elems, MPI_DOUBLE, MPI_SUM, comm_, &co);
      case coll::Collective::gather: return relay_gather(in, out, elems, MPI_DOUBLE, a_.root, comm_, &co);
      case coll::Collective::scatter: return relay_scatter(in, out, elems, MPI_DOUBLE, a_.root, comm_, &co);
      case coll::Collective::alltoall: return relay_alltoall(in, out, elems, MPI_DOUBLE, comm_, &co);
      case coll::Collective::barrier: return relay_barrier(comm_, &co);
      case coll::Collective::allgatherv:
        return relay_allgatherv(in, elems, MPI_DOUBLE, out, counts_.data(), displs_.data(), MPI_DOUBLE, comm_, &co);
      case coll::Collective::bcast: break;  // collective_ is nullopt for bcast (above)
    }
    return RELAY_ERR_ALGORITHM;  // not reached: every collective is handled above
  };
  const double t_start = MPI_Wtime();
  MPI_Barrier(comm_);
  double warm = MPI_Wtime();
  if (call() != RELAY_SUCCESS) {
    throw std::runtime_error(relay_last_error());
  }
  warm = MPI_Wtime() - warm;
  double slowest = 0;
  MPI_Allreduce(&warm, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm_);
  // Capped as relay bench caps its iterations (1000). A lower cap left 64 KiB broadcasts on 4
  // oversubscribed ranks measured for 9 ms, two scheduler time slices, and the search chose by
  // which configuration was lucky with them.
  int n = static_cast<int>(std::clamp(a_.min_time / std::max(slowest, 1e-7), 3.0, 1000.0));
  MPI_Bcast(&n, 1, MPI_INT, 0, comm_);
  Measured m;
  m.warm_s = slowest;
  m.planned = static_cast<std::size_t>(n);
  m.race = race;
  m.setup_s = MPI_Wtime() - t_start;
  for (int i = 0; i < n; ++i) {
    const double w0 = MPI_Wtime();
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    call();
    double t = MPI_Wtime() - t0, tmax = 0;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, comm_);  // outside the timed part
    m.iterations.push_back(tmax);
    m.walls.push_back(MPI_Wtime() - w0);
    if (tune::race_stops(m.iterations, m.iterations.size(), m.warm_s, race, m.planned)) {
      m.partial = i + 1 < n;
      break;
    }
  }
  // Every rank charges the slowest rank's walls, so that all agree on every cost.
  std::vector<double> agreed(m.walls.size() + 1);
  m.walls.push_back(m.setup_s);
  MPI_Allreduce(m.walls.data(), agreed.data(), static_cast<int>(agreed.size()), MPI_DOUBLE, MPI_MAX, comm_);
  m.setup_s = agreed.back();
  agreed.pop_back();
  m.walls = agreed;
  m.time_s = m.partial ? tune::race_estimate(m.iterations, m.iterations.size(), race)
                       : std::accumulate(m.iterations.begin(), m.iterations.end(), 0.0) /
                             static_cast<double>(m.iterations.size());
  return m;
}

void Tuner::progress(const std::string& what) {
  ++measured_;
  if (rank_ != 0 || a_.quiet) return;
  const double elapsed = MPI_Wtime() - started_;
  const std::size_t left = expected_ > measured_ ? expected_ - measured_ : 0;
  std::fprintf(stderr, "\r[%zu/~%zu] %-44s %.0f s elapsed, about %.0f s left   ", measured_,
               expected_, what.c_str(), elapsed,
               elapsed / static_cast<double>(measured_) * static_cast<double>(left));
}

double Tuner::predict(const model::Machine& machine, const Axis& axis, int ranks, int root, std::int64_t bytes,
                      std::int64_t segment) const {
  if (!collective_) return predict_bcast(machine, axis.algorithm, axis.policy, ranks, root, bytes, segment, a_.window);
  const auto* alg = coll::find_algorithm(*collective_, axis.algorithm);
  if (alg == nullptr || !alg->runs_on(ranks)) return -1;  // its fallback runs there
  return predict_coll(machine, *collective_, axis.algorithm, axis.policy, ranks, root,
                      coll_call_bytes(*collective_, ranks, bytes, 8), 8, segment, a_.window);
}

std::optional<schedule::Schedule> Tuner::schedule_of(const Axis& axis, std::int64_t bytes, std::int64_t segment) const {
  if (!collective_) return bcast_schedule(axis.algorithm, size_, a_.root, bytes, segment);
  const auto* alg = coll::find_algorithm(*collective_, axis.algorithm);
  if (alg == nullptr || !alg->runs_on(size_)) return std::nullopt;
  return coll_schedule(*collective_, axis.algorithm, size_, a_.root, coll_call_bytes(*collective_, size_, bytes, 8), 8,
                       segment);
}

std::string describe(const Axis& axis, std::int64_t segment) {
  if (axis.algorithm == "mpi") return "mpi";
  return fmt::format("{} {} {}", axis.algorithm, axis.policy,
                     segment > 0 ? core::format_bytes(segment) : "unsegmented");
}

model::Machine quick_model(MPI_Comm comm, const std::vector<std::int64_t>& message_sizes,
                           const std::vector<std::int64_t>& segments, bool quiet);

int Tuner::run() {
  collective_ = parse_operation(a_.operation);
  const std::string& op = a_.operation;
  auto algorithms = parse_name_list(a_.algorithms, coll::table_algorithms(op),
                                    collective_ ? op + " algorithm" : "broadcast algorithm");
  if (collective_) {
    // An algorithm that would run its fallback here: measuring it would label the fallback's
    // time with its name in the table.
    std::vector<std::string> kept;
    for (const auto& name : algorithms) {
      if (!coll::find_algorithm(*collective_, name)->runs_on(size_)) {
        if (rank_ == 0) std::printf("# %s %s needs a power-of-two process count: not tuned on %d ranks\n", op.c_str(), name.c_str(), size_);
      } else {
        kept.push_back(name);
      }
    }
    algorithms = kept;
    if (algorithms.empty()) throw std::invalid_argument("--algorithms: none of them runs on " + std::to_string(size_) + " ranks");
  }
  const auto policies = parse_name_list(a_.policies, {"blocking", "nonblocking"}, "policy");
  auto sizes = parse_size_list(a_.sizes);
  if (collective_) {
    // As tables count a call: the vector or all blocks, in whole doubles (whole blocks).
    for (auto& b : sizes) b = coll_call_bytes(*collective_, size_, b, 8);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  auto candidate_segments = parse_size_list(a_.segments);
  const auto methods = parse_name_list(a_.methods, {"exhaustive", "mgd", "smgd", "model", "guided"}, "method");
  if (std::find(methods.begin(), methods.end(), a_.table_method) == methods.end()) {
    throw std::invalid_argument("--table-method " + a_.table_method + " is not among --methods");
  }
  if (a_.root < 0 || a_.root >= size_) throw std::invalid_argument("--root is not a rank");
  std::vector<int> predict_ranks;
  if (!a_.predict_ranks.empty()) {
    for (auto r : parse_size_list(a_.predict_ranks)) {
      if (r < 1 || r > (1 << 20)) throw std::invalid_argument("--predict-ranks: a process count is out of range");
      if (r != size_) predict_ranks.push_back(static_cast<int>(r));
    }
  }
  const bool need_model = !predict_ranks.empty() ||
                          std::count(methods.begin(), methods.end(), "model") ||
                          (!a_.smgd_gradient && std::count(methods.begin(), methods.end(), "smgd")) ||
                          std::count(methods.begin(), methods.end(), "guided");
  model::Machine machine;
  std::string model_source = "none";
  double model_seconds = 0;
  if (need_model) {
    if (!a_.params.empty()) {
      machine = model::machine_from_json(model::read_params_file(a_.params), true);
      model_source = a_.params;
    } else {
      if (rank_ == 0 && !a_.quiet) std::fprintf(stderr, "relay tune: no --params: measuring point-to-point parameters first\n");
      const double t0 = MPI_Wtime();
      machine = quick_model(comm_, sizes, candidate_segments, a_.quiet);
      model_seconds = MPI_Wtime() - t0;
      model_source = "measured by relay tune (quick)";
      // Once per machine, for every size, operation and method: not charged to one search.
      if (rank_ == 0) {
        std::printf("# model parameters measured in %.1f s (once; `relay model measure` + --params "
                    "reuses them)\n", model_seconds);
      }
    }
  }
  if (collective_) {
    send_.assign(static_cast<std::size_t>(sizes.back() / 8 + 1), 1.0);
    recv_.assign(static_cast<std::size_t>(sizes.back() / 8 + 1), 0.0);
  } else {
    buffer_.assign(static_cast<std::size_t>(sizes.back()), 1);
  }
  started_ = MPI_Wtime();
  for (auto bytes : sizes) {
    std::size_t per = 0;
    for (auto s : candidate_segments) per += (s > 0 && s < bytes) ? 1 : 0;
    expected_ += (algorithms.size() * policies.size()) * (per + 1);
  }
  nlohmann::json results = {{"schema", "relay.tune/1"}, {"machine", machine_description(comm_)},
                            {"operation", op}, {"ranks", size_}, {"model", model_source}, {"model_measuring_s", model_seconds}, {"sizes", nlohmann::json::array()}};
  coll::Table table;
  table.machine = results["machine"];
  {
    char date[32] = {};
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    table.created = date;
  }
  std::vector<std::pair<std::int64_t, coll::Rule>> grid;
  std::map<int, std::vector<std::pair<std::int64_t, coll::Rule>>> predicted_grid;
  tune::SearchOptions so;
  so.patience = a_.patience;
  so.threshold = a_.threshold;
  so.noise = a_.noise;
  so.variant_top = a_.variant_top;
  so.variant_within = a_.variant_within;
  so.top_k = a_.top_k;

  for (auto bytes : sizes) {
    std::vector<Axis> axes;
    for (const auto& alg : algorithms) {
      if (alg == "mpi" || (collective_ && *collective_ == coll::Collective::barrier)) {
        // mpi has no segments or policy of relay's; a barrier moves one byte.
        if (alg == "mpi") {
          axes.push_back({alg, "nonblocking", {0}});
          continue;
        }
        for (const auto& pol : policies) axes.push_back({alg, pol, {0}});
        continue;
      }
      for (const auto& pol : policies) {
        Axis axis{alg, pol, {}};
        for (auto s : candidate_segments) {
          if (s > 0 && s < bytes) axis.segments.push_back(s);
        }
        std::sort(axis.segments.begin(), axis.segments.end());
        axis.segments.erase(std::unique(axis.segments.begin(), axis.segments.end()), axis.segments.end());
        axis.segments.push_back(0);  // unsegmented: the largest "segment"
        axes.push_back(axis);
      }
    }
    // An algorithm whose schedules equal an earlier one's at every segment size, under the same
    // policy, is the same experiment (on 4 ranks chain with fanout 1 is pipeline, kary with
    // fanout 4 is linear): searched once, under the earlier name, by every method.
    nlohmann::json same_schedules = nlohmann::json::array();
    {
      // Fingerprints first (a schedule can be megabytes); schedules compared where they agree.
      std::vector<std::vector<std::optional<std::uint64_t>>> prints(axes.size());
      for (std::size_t i = 0; i < axes.size(); ++i) {
        for (auto seg : axes[i].segments) {
          const auto sched = schedule_of(axes[i], bytes, seg);
          prints[i].push_back(sched ? std::optional<std::uint64_t>(schedule::fingerprint(*sched)) : std::nullopt);
        }
      }
      auto same = [&](std::size_t i, std::size_t k) {
        if (axes[k].policy != axes[i].policy || axes[k].segments != axes[i].segments) return false;
        for (std::size_t si = 0; si < axes[i].segments.size(); ++si) {
          if (!prints[i][si] || prints[i][si] != prints[k][si]) return false;
        }
        for (std::size_t si = 0; si < axes[i].segments.size(); ++si) {
          if (*schedule_of(axes[i], bytes, axes[i].segments[si]) != *schedule_of(axes[k], bytes, axes[k].segments[si])) {
            return false;
          }
        }
        return true;
      };
      std::vector<Axis> kept;
      std::vector<std::size_t> kept_index;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        std::optional<std::size_t> twin;
        for (std::size_t k : kept_index) {
          if (same(i, k)) {
            twin = k;
            break;
          }
        }
        if (twin) {
          same_schedules.push_back({{"algorithm", axes[i].algorithm}, {"policy", axes[i].policy},
                                    {"as", axes[*twin].algorithm}});
          if (rank_ == 0) {
            std::printf("# %s: %s %s runs the same schedules as %s %s on %d ranks: measured once, as %s\n",
                        core::format_bytes(bytes).c_str(), axes[i].algorithm.c_str(), axes[i].policy.c_str(),
                        axes[*twin].algorithm.c_str(), axes[*twin].policy.c_str(), size_, axes[*twin].algorithm.c_str());
          }
          expected_ -= std::min(expected_, axes[i].segments.size());
          continue;
        }
        kept.push_back(axes[i]);
        kept_index.push_back(i);
      }
      axes = std::move(kept);
    }
    // The blocking policy of an algorithm is a variant of its nonblocking one (SMGD searches
    // it near the nonblocking curve's minimum), when both are asked for.
    std::vector<tune::Axis> search_axes;
    for (const auto& ax : axes) {
      tune::Axis sa{ax.algorithm + "/" + ax.policy, ax.segments, -1};
      if (ax.policy == "blocking") {
        for (std::size_t b = 0; b < axes.size(); ++b) {
          if (axes[b].algorithm == ax.algorithm && axes[b].policy == "nonblocking") sa.variant_of = static_cast<int>(b);
        }
      }
      search_axes.push_back(sa);
    }
    // Measurements are shared between the methods; each method is charged what its own
    // measurement would have cost ("as if measured alone"), racing included.
    std::map<std::pair<int, int>, Measured> cache;
    const tune::Measure live = [&](int axis, int seg, const tune::Race& race, double& cost) {
      auto key = std::make_pair(axis, seg);
      auto it = cache.find(key);
      if (it == cache.end() || !it->second.answers(race)) {
        const Measured m = measure(axes[axis], axes[axis].segments[seg], bytes, race);
        progress(fmt::format("{} {}", core::format_bytes(bytes), describe(axes[axis], axes[axis].segments[seg])));
        it = cache.insert_or_assign(key, m).first;
      }
      cost = it->second.cost_under(race);
      return it->second.time_under(race);
    };
    const tune::Predict predict = [&](int axis, int seg) {
      return this->predict(machine, axes[axis], size_, a_.root, bytes, axes[axis].segments[seg]);  // mpi: -1, none
    };
    nlohmann::json size_doc = {{"size_bytes", bytes}, {"methods", nlohmann::json::array()},
                               {"axes", nlohmann::json::array()}, {"same_schedules", same_schedules}};
    std::map<std::string, tune::SearchResult> found;
    for (const auto& method : methods) {
      tune::SearchResult r;
      if (method == "exhaustive") r = tune::search_exhaustive(search_axes, live);
      if (method == "mgd") r = tune::search_mgd(search_axes, live, so);
      if (method == "smgd") r = tune::search_smgd(search_axes, live, so, !a_.smgd_gradient ? predict : nullptr);
      if (method == "guided") r = tune::search_model_guided(search_axes, predict, live, so);
      if (method == "model") {
        // Free: the model's own choice, measured once to report how good it is.
        r = tune::search_model_best(search_axes, predict);
        if (!std::isfinite(r.best.time_s)) throw std::invalid_argument("--methods model: the model predicts none of the configurations");
        double ignored = 0;
        r.best.time_s = live(r.best.axis, r.best.segment, tune::Race{}, ignored);
        r.experiments = 0;
        r.cost_s = 0;
      }
      found[method] = r;
    }
    if (rank_ == 0 && !a_.quiet) std::fprintf(stderr, "\n");
    const bool have_ex = found.count("exhaustive") > 0;
    const double ex_best = have_ex ? found["exhaustive"].best.time_s : 0;
    const double ex_cost = have_ex ? found["exhaustive"].cost_s : 0;
    if (rank_ == 0) {
      std::printf("# %s %s on %d ranks: tuning methods (x best = measured time of the choice / "
                  "exhaustive best; speed-up = exhaustive measurement seconds / the method's)\n",
                  op.c_str(), core::format_bytes(bytes).c_str(), size_);
      std::printf("%-11s %11s %14s %-40s %12s %8s %9s\n", "# Method", "Experiments", "Measuring(s)",
                  "Choice", "Time(us)", "x best", "Speed-up");
    }
    for (const auto& method : methods) {
      const auto& r = found[method];
      const Axis& ax = axes[r.best.axis];
      const std::int64_t seg = ax.segments[r.best.segment];
      const double pred = this->predict(machine, ax, size_, a_.root, bytes, seg);
      nlohmann::json path = nlohmann::json::array();
      for (const auto& p : r.path) {
        path.push_back({{"algorithm", axes[p.axis].algorithm}, {"policy", axes[p.axis].policy},
                        {"segment_bytes", axes[p.axis].segments[p.segment]}, {"time_us", p.time_s * 1e6}});
      }
      size_doc["methods"].push_back({{"method", method}, {"experiments", r.experiments},
                                     {"measuring_s", r.cost_s}, {"algorithm", ax.algorithm},
                                     {"policy", ax.policy}, {"segment_bytes", seg},
                                     {"time_us", r.best.time_s * 1e6},
                                     {"x_best", have_ex ? r.best.time_s / ex_best : 0.0},
                                     {"path", path}});
      if (rank_ == 0) {
        std::printf("%-11s %11d %14.2f %-40s %12.1f %8s %9s\n", method.c_str(), r.experiments, r.cost_s,
                    describe(ax, seg).c_str(), r.best.time_s * 1e6,
                    have_ex ? fmt::format("{:.3f}", r.best.time_s / ex_best).c_str() : "-",
                    have_ex && r.cost_s > 0 ? fmt::format("{:.1f}x", ex_cost / r.cost_s).c_str() : "-");
      }
      if (method == a_.table_method) {
        coll::Rule rule;
        rule.choice.algorithm = ax.algorithm;
        rule.choice.policy = ax.policy;
        rule.choice.segment_bytes = seg;
        rule.source = method;
        rule.measured_s = r.best.time_s;
        if (pred >= 0) rule.predicted_s = pred;
        grid.emplace_back(bytes, rule);
      }
    }
    // Confirmation: the table method's fastest configurations measured again in interleaved
    // rounds and compared round by round. A search measures each configuration once, and the
    // fastest of many noisy measurements is faster than its configuration really is (the
    // winner's curse); the rule the table keeps should be the one that is fastest on re-test.
    if (a_.confirm > 1 && grid.size() > 0 && grid.back().first == bytes) {
      const auto& r = found[a_.table_method];
      const tune::ConfirmationPool pool = tune::confirmation_pool(r.path, a_.confirm);
      const std::vector<tune::Point>& pick = pool.points;
      if (pick.size() > 1) {
        const double t0 = MPI_Wtime();
        const auto times = measure::interleaved_rounds(pick.size(), a_.confirm_rounds, 7, [&](std::size_t i) {
          return measure(axes[pick[i].axis], axes[pick[i].axis].segments[pick[i].segment], bytes, tune::Race{}).time_s;
        });
        double seconds = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
        const auto paired = measure::paired_relative(times);
        const auto& relative = paired.relative;
        const double reference = paired.reference;
        const auto best = static_cast<std::size_t>(std::min_element(relative.begin(), relative.end()) - relative.begin());
        nlohmann::json rows = nlohmann::json::array();
        if (rank_ == 0) {
          std::printf("# confirmation of %s's %d fastest and %zu other algorithms' best (within 1.25x), head to head in %d "
                      "rounds (%.2f s, not in the speed-ups above)\n", a_.table_method.c_str(), pool.fastest,
                      pick.size() - static_cast<std::size_t>(pool.fastest), a_.confirm_rounds, seconds);
          std::printf("%-11s %-40s %12s %14s %8s\n", "# Place", "Configuration", "Search(us)", "Confirmed(us)", "x best");
        }
        for (std::size_t i = 0; i < pick.size(); ++i) {
          const Axis& ax = axes[pick[i].axis];
          const auto seg = ax.segments[pick[i].segment];
          rows.push_back({{"algorithm", ax.algorithm}, {"policy", ax.policy}, {"segment_bytes", seg},
                          {"search_us", pick[i].time_s * 1e6}, {"confirmed_us", relative[i] * reference * 1e6},
                          {"x_best", relative[i] / relative[best]}, {"round_us", times[i]},
                          {"rival", static_cast<int>(i) >= pool.fastest}});
          if (rank_ == 0) {
            std::printf("%-11s %-40s %12.1f %14.1f %8.3f%s\n",
                        static_cast<int>(i) < pool.fastest ? fmt::format("{}", i + 1).c_str() : "rival", describe(ax, seg).c_str(),
                        pick[i].time_s * 1e6, relative[i] * reference * 1e6, relative[i] / relative[best],
                        i == best ? "  <- the table's" : "");
          }
        }
        size_doc["confirmation"] = {{"method", a_.table_method}, {"rounds", a_.confirm_rounds}, {"seconds", seconds},
                                    {"rows", rows}};
        coll::Rule& rule = grid.back().second;
        const Axis& ax = axes[pick[best].axis];
        rule.choice.algorithm = ax.algorithm;
        rule.choice.policy = ax.policy;
        rule.choice.segment_bytes = ax.segments[pick[best].segment];
        rule.measured_s = relative[best] * reference;
        const double pred = this->predict(machine, ax, size_, a_.root, bytes, rule.choice.segment_bytes);
        rule.predicted_s = pred >= 0 ? pred : -1;
        rule.source = a_.table_method + "+confirmed";
      }
    }
    // Every configuration measured, with the model's prediction: measured vs predicted curves.
    for (std::size_t ai = 0; ai < axes.size(); ++ai) {
      nlohmann::json points = nlohmann::json::array();
      for (std::size_t si = 0; si < axes[ai].segments.size(); ++si) {
        const auto seg = axes[ai].segments[si];
        nlohmann::json p = {{"segment_bytes", seg}};
        if (auto it = cache.find({static_cast<int>(ai), static_cast<int>(si)}); it != cache.end()) {
          p["time_us"] = it->second.time_s * 1e6;
          if (it->second.partial) p["stopped_early"] = true;  // SMGD raced it: an estimate
        }
        if (need_model) {
          const double t = this->predict(machine, axes[ai], size_, a_.root, bytes, seg);
          if (t >= 0) p["predicted_us"] = t * 1e6;
        }
        points.push_back(p);
      }
      size_doc["axes"].push_back({{"algorithm", axes[ai].algorithm}, {"policy", axes[ai].policy}, {"points", points}});
    }
    if (rank_ == 0) std::printf("\n");
    results["sizes"].push_back(size_doc);
    // Process counts not measured: the model's choice.
    for (int p : predict_ranks) {
      double best = 1e300;
      coll::Rule rule;
      for (const auto& ax : axes) {
        if (ax.algorithm == "mpi") continue;
        for (auto seg : ax.segments) {
          const double t = this->predict(machine, ax, p, 0, bytes, seg);
          if (t >= 0 && t < best) {
            best = t;
            rule.choice = {ax.algorithm, ax.policy, seg, 0};
            rule.predicted_s = t;
          }
        }
      }
      rule.source = "model";
      if (best < 1e300) predicted_grid[p].emplace_back(bytes, rule);
    }
  }
  table.rules = coll::rules_from_grid(op, size_, size_, grid);
  for (auto& [p, points] : predicted_grid) {
    for (auto& r : coll::rules_from_grid(op, p, p, points)) table.rules.push_back(r);
  }
  if (rank_ != 0) return 0;
  coll::Table::from_json(table.to_json());  // what relay_tuning_load will accept
  table.save(a_.output);
  std::printf("# wrote %s (%zu rules; load with RELAY_TUNING_FILE=%s or relay_tuning_load)\n",
              a_.output.c_str(), table.rules.size(), a_.output.c_str());
  return write_results(results, a_.json_path, a_.plot_path, "plot_tune.py", "relay tune");
}

// Without a parameter file: a short relay model measure at the sizes the replay will cost
// (every candidate segment and message size, plus small ones), its PLogP table shared by all
// ranks, so that every rank's searches take the same decisions.
model::Machine quick_model(MPI_Comm comm, const std::vector<std::int64_t>& message_sizes,
                           const std::vector<std::int64_t>& segments, bool quiet) {
  int rank = 0, size = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  if (size < 2) return {};
  std::vector<std::int64_t> sizes = {1, 64, 1024};
  for (auto s : message_sizes) sizes.push_back(s);
  for (auto s : segments) {
    if (s > 0) sizes.push_back(s);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  P2pMeasureArgs a;
  a.sizes = fmt::format("{}", fmt::join(sizes, ","));
  a.max_seconds = 0.1;
  a.max_samples = 60;
  a.quiet = quiet;
  std::string text = measure_params(a, comm).dump();
  int n = static_cast<int>(text.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(n));
  MPI_Bcast(text.data(), n, MPI_CHAR, 0, comm);
  return model::machine_from_json(nlohmann::json::parse(text), true);
}

struct TableArgs {
  std::string file;
  std::string openmpi;
  std::string mpich;
  std::string mpich_base;
};

}  // namespace

void add_tune(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<TuneArgs>();
  CLI::App* cmd = app.add_subcommand("tune", "Find the best configuration of a collective (broadcast by default) per size on this communicator and write a decision table (run under mpirun)");
  cmd->footer(
      "Example: mpirun -np 4 relay tune --sizes 64KiB,1MiB,8MiB --output table.json\n"
      "         mpirun -np 4 relay tune --operation allreduce --sizes 8KiB,1MiB --output table.json\n"
      "Methods: exhaustive (every configuration), mgd and smgd (vadhiyar2004's modified and\n"
      "scanning gradient descents from the largest segment), model (the replay's best, measured\n"
      "once to report it), guided (measure the model's --top-k). The table takes --table-method's\n"
      "choice per size; sizes between grid points take the nearer one on a log scale. Use the\n"
      "table with RELAY_TUNING_FILE=table.json (auto then follows it; RELAY_LOG=1 shows the rule).");
  cmd->add_option("--operation", a->operation, "bcast, or a collective of `relay algorithms` (reduce, allreduce, allgather, ...; doubles, MPI_SUM)")->capture_default_str();
  cmd->add_option("--sizes", a->sizes, "message sizes (grid points); other than bcast, the data a call moves: the vector (reduce, allreduce) or all ranks' blocks")->capture_default_str();
  cmd->add_option("--algorithms", a->algorithms, "the operation's algorithms, or all")->capture_default_str();
  cmd->add_option("--policies", a->policies, "blocking, nonblocking or all")->capture_default_str();
  cmd->add_option("--segments", a->segments, "candidate segment sizes (unsegmented is always one)")->capture_default_str();
  cmd->add_option("--methods", a->methods, "exhaustive, mgd, smgd, model, guided (comma list)")->capture_default_str();
  cmd->add_option("--table-method", a->table_method, "whose choices go into the table")->capture_default_str();
  cmd->add_option("--params", a->params, "model parameters from relay model measure (else a quick measurement)")->check(CLI::ExistingFile);
  cmd->add_option("--predict-ranks", a->predict_ranks, "process counts not measured: add the model's choices for them");
  cmd->add_option("--output,-o", a->output, "decision table to write")->capture_default_str();
  cmd->add_option("--json", a->json_path, "every measurement, prediction and search path as JSON");
  cmd->add_option("--plot", a->plot_path, "PNG: measured vs predicted over segment sizes, search paths (needs --json)");
  cmd->add_option("--min-time", a->min_time, "seconds of timed iterations per configuration")->capture_default_str();
  cmd->add_option("--window", a->window, "requests in flight per rank")->check(CLI::Range(1, 65536))->capture_default_str();
  cmd->add_option("--root", a->root, "root rank")->capture_default_str();
  cmd->add_option("--top-k", a->top_k, "guided: candidates measured")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_option("--threshold", a->threshold, "smgd: prune algorithms predicted worse than this x best, and stop measuring a configuration once it is")->check(CLI::Range(1.0, 100.0))->capture_default_str();
  cmd->add_option("--noise", a->noise, "smgd: relative gains below this do not count as improvements")->check(CLI::Range(0.0, 0.5))->capture_default_str();
  cmd->add_option("--variant-top", a->variant_top, "smgd: the best algorithms whose other policy is searched")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--variant-within", a->variant_within, "smgd: ... and every other algorithm whose best is within this x the best")->check(CLI::Range(1.0, 100.0))->capture_default_str();
  cmd->add_option("--confirm", a->confirm, "measure the table method's fastest N configurations per size, and up to N other algorithm/policy pairs' best within 1.25x of them, again, head to head, and take the best (0: take its choice as found)")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_option("--confirm-rounds", a->confirm_rounds, "rounds of that confirmation")->check(CLI::PositiveNumber)->capture_default_str();
  cmd->add_flag("--smgd-gradient", a->smgd_gradient, "smgd: predict from measured rates of change only (vadhiyar2004), not from the model's curve shapes");
  cmd->add_option("--patience", a->patience, "mgd/smgd: points past a minimum before stopping")->check(CLI::NonNegativeNumber)->capture_default_str();
  cmd->add_flag("--quiet", a->quiet, "no progress on stderr");
  cmd->callback([a, &exit_code] {
    if (!a->plot_path.empty() && a->json_path.empty()) throw CLI::ValidationError("--plot", "needs --json");
    ensure_mpi();
    Tuner t(*a);
    exit_code = t.run();
  });

  auto t = std::make_shared<TableArgs>();
  CLI::App* table = app.add_subcommand("table", "Check a decision table, or export it for Open MPI and MPICH");
  table->add_option("file", t->file, "decision table (relay.tuning/1)")->required();
  table->add_option("--openmpi", t->openmpi, "write an Open MPI coll/tuned dynamic rules file here");
  table->add_option("--mpich", t->mpich, "write an MPICH collective selection JSON here");
  table->add_option("--mpich-base", t->mpich_base, "MPICH JSON whose other collectives are kept (default: the installed MPICH's built-in one, if found)");
  table->footer(
      "Open MPI: mpirun --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_dynamic_rules_filename FILE\n"
      "MPICH:    MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE=FILE mpiexec ...\n"
      "Without --openmpi/--mpich, checks the table and prints its rules.");
  table->callback([t, &exit_code] {
    const auto tab = coll::Table::load(t->file);
    std::printf("%s: valid (%zu rules)\n", t->file.c_str(), tab.rules.size());
    std::printf("%-10s %-14s %-26s %-18s %-12s %-10s %s\n", "# Op", "Ranks", "Bytes", "Algorithm", "Policy", "Segment", "Source");
    for (const auto& r : tab.rules) {
      std::printf("%-10s %-14s %-26s %-18s %-12s %-10s %s\n", r.operation.c_str(),
                  fmt::format("{}-{}", r.min_ranks, r.max_ranks).c_str(),
                  fmt::format("{}-{}", r.min_bytes,
                              r.max_bytes == std::numeric_limits<std::int64_t>::max()
                                  ? std::string("max") : std::to_string(r.max_bytes)).c_str(),
                  r.choice.algorithm.c_str(),
                  r.choice.policy.c_str(),
                  r.choice.segment_bytes > 0 ? core::format_bytes(r.choice.segment_bytes).c_str() : "none",
                  r.source.c_str());
    }
    if (!t->openmpi.empty()) {
      const auto notes = tune::export_openmpi(tab, t->openmpi);
      std::printf("# wrote %s\n%s", t->openmpi.c_str(), notes.c_str());
    }
    if (!t->mpich.empty()) {
      const auto notes = tune::export_mpich(tab, t->mpich, t->mpich_base);
      std::printf("# wrote %s\n%s", t->mpich.c_str(), notes.c_str());
    }
    exit_code = 0;
  });
}

}  // namespace relay::cli
