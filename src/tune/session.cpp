// Over 500 lines: one session's steps in the order they run (measure, search, confirm, table).
#include "tune/session.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "coll/invoke.hpp"
#include "coll/predict.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"
#include "measure/progress.hpp"
#include "measure/stats.hpp"
#include "measure/timing.hpp"
#include "relay/relay.h"

namespace relay::tune {
namespace {

struct Candidate {
  std::string algorithm, policy;
  std::vector<std::int64_t> segments;  // ascending; the last (0) is unsegmented
};

// One configuration's measurement: the slowest rank's time of every timed iteration and the
// wall time each took (barrier included), so that a search which would have stopped early
// can be charged what stopping early costs, also when it reads a measurement another method
// made in full.
struct Measured {
  double time_s = 0;
  double setup_s = 0;              // barrier, warm-up, agreeing on the count
  double warm_s = 0;               // the warm-up call, slowest rank (a sample for the race)
  std::size_t planned = 0;         // timed iterations --min-time asked for
  std::vector<double> iterations;  // slowest rank's time per timed iteration
  std::vector<double> walls;       // wall seconds per timed iteration, barrier included
  bool partial = false;            // stopped early by a race (above its bound or below its floor)
  Race race;                       // the race it ran under

  // Timed iterations before a race stops (race_stops), all if none.
  std::size_t stop_after(const Race& r) const {
    return race_length(iterations, warm_s, r, planned);
  }
  // Whether this measurement answers a question under race r: a full one answers all; an
  // early-stopped one the questions it settles (race_settles).
  bool answers(const Race& r) const { return !partial || race_settles(time_s, race, r); }
  // What a measurement raced under r reports and costs.
  double time_under(const Race& r) const {
    const auto k = stop_after(r);
    return k == iterations.size() ? time_s : race_estimate(iterations, k, r);
  }
  double cost_under(const Race& r) const {
    const auto k = static_cast<long>(stop_after(r));
    return std::accumulate(walls.begin(), walls.begin() + k, setup_s);
  }
};

class Tuner {
 public:
  Tuner(MPI_Comm comm, const SessionOptions& o, const SessionEvents& events)
      : a_(o), events_(events) {
    MPI_Comm_dup(comm, &comm_);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~Tuner() { MPI_Comm_free(&comm_); }
  Tuner(const Tuner&) = delete;
  Tuner& operator=(const Tuner&) = delete;
  SessionResult run();

 private:
  Measured measure(const Candidate& axis, std::int64_t segment, std::int64_t bytes,
                   const Race& race);
  std::vector<std::pair<Candidate, std::string>> drop_twins(std::vector<Candidate>& axes,
                                                            std::int64_t bytes) const;
  void confirm(const std::vector<Candidate>& axes, std::int64_t bytes,
               const std::vector<Point>& path, const model::Machine& machine, coll::Rule& rule,
               nlohmann::json& size_doc);

  // The schedule a configuration of the tuned operation runs (nullopt: none, mpi).
  std::optional<schedule::Schedule> schedule_of(const Candidate& axis, std::int64_t bytes,
                                                std::int64_t segment) const;
  // The model's time for a configuration of the tuned operation (-1: no schedule, mpi).
  double predict(const model::Machine& machine, const Candidate& axis, int ranks, int root,
                 std::int64_t bytes, std::int64_t segment) const;

  const SessionOptions& a_;
  const SessionEvents& events_;
  MPI_Comm comm_;
  int rank_ = 0, size_ = 1;
  std::optional<coll::Collective> collective_;  // nullopt: bcast
  std::vector<char> buffer_;
  std::vector<double> send_, recv_;   // the other collectives: MPI_DOUBLE, MPI_SUM
  std::vector<int> counts_, displs_;  // allgatherv
};

// One configuration: warm-up, then enough barrier-separated iterations for --min-time; its
// time is the mean over iterations of the slowest rank -- what relay bench reports, so that the
// table optimises what the benchmark shows (under oversubscription the two differ by up to 2x:
// a descheduled rank stretches some iterations, more for some algorithms than others) -- and
// its cost the wall time spent. Both are agreed over ranks, so every rank takes the same
// search decisions. Under a race (SMGD) it stops as race_stops says: after the first
// iteration if it and the warm-up are both above the race's bound (where at most 3 are planned,
// or the model puts it there too) or both below its floor (at most 3 planned); else once the
// median of 3 or more is above the bound, or their mean below the floor.
Measured Tuner::measure(const Candidate& axis, std::int64_t segment, std::int64_t bytes,
                        const Race& race) {
  relay_bcast_options_t o;
  relay_bcast_options_init(&o);
  relay_coll_options_t co;
  relay_coll_options_init(&co);
  if (!collective_) {
    relay_bcast_algorithm_from_name(axis.algorithm.c_str(), &o.algorithm);
    relay_policy_from_name(axis.policy.c_str(), &o.policy);
    o.segment_bytes = segment;
    o.max_requests = a_.max_requests;
  } else {
    relay_coll_algorithm_from_name(static_cast<relay_collective_t>(*collective_),
                                   axis.algorithm.c_str(), &co.algorithm);
    relay_policy_from_name(axis.policy.c_str(), &co.policy);
    co.segment_bytes = segment;
    co.max_requests = a_.max_requests;
  }
  const int count = static_cast<int>(bytes);
  // The vector (reduce, allreduce) or one rank's block (the others), in doubles; run() made
  // `bytes` whole blocks of doubles.
  const int elems =
      collective_ ? static_cast<int>(bytes / 8 / (coll::has_blocks(*collective_) ? size_ : 1)) : 0;
  if (collective_ == coll::Collective::allgatherv) {  // uniform blocks, set up once, not per call
    counts_.assign(static_cast<std::size_t>(size_), elems);
    displs_.resize(static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) displs_[static_cast<std::size_t>(r)] = r * elems;
  }
  // The broadcast moves `count` bytes; the others `elems` doubles, summed.
  coll::Buffers buffers;
  buffers.root = a_.root;
  if (!collective_) {
    buffers.recv = buffer_.data();
    buffers.count = count;
    buffers.type = MPI_BYTE;
  } else {
    buffers.send = send_.data();
    buffers.recv = recv_.data();
    buffers.count = elems;
    buffers.type = MPI_DOUBLE;
    buffers.op = MPI_SUM;
    buffers.recvcounts = counts_.data();
    buffers.displs = displs_.data();
  }
  const coll::Collective which = collective_ ? *collective_ : coll::Collective::bcast;
  auto call = [&]() { return coll::invoke(which, buffers, comm_, &o, &co); };
  // One warm-up call, whose time is also a sample for the race; then the timing loop of
  // relay bench, its times agreed after every iteration so that every rank stops alike, from 3
  // iterations (race_stops stops a long call after one where at most 3 are planned).
  measure::IterationArgs timing;
  timing.warmup = 1;
  timing.min_iterations = 3;
  timing.min_time_s = a_.min_time_s;
  const measure::Timed t = measure::time_iterations(
      comm_, timing,
      [&](bool timed) {
        if (call() != RELAY_SUCCESS && !timed) throw std::runtime_error(relay_last_error());
      },
      [&](const std::vector<double>& times_s, double warm_s, std::size_t planned) {
        return race_stops(times_s, times_s.size(), warm_s, race, planned);
      });
  Measured m;
  m.warm_s = t.warmup_s;
  m.planned = t.planned;
  m.race = race;
  m.setup_s = t.setup_s;
  m.iterations = t.times_s;
  m.walls = t.walls_s;
  m.partial = t.stopped_early;
  m.time_s = m.partial ? race_estimate(m.iterations, m.iterations.size(), race)
                       : std::accumulate(m.iterations.begin(), m.iterations.end(), 0.0) /
                             static_cast<double>(m.iterations.size());
  return m;
}

double Tuner::predict(const model::Machine& machine, const Candidate& axis, int ranks, int root,
                      std::int64_t bytes, std::int64_t segment) const {
  if (!collective_)
    return coll::predict_bcast(machine, axis.algorithm, axis.policy, ranks, root, bytes, segment,
                               a_.max_requests);
  const auto* alg = coll::find_algorithm(*collective_, axis.algorithm);
  if (alg == nullptr || !alg->runs_on(ranks)) return -1;  // its fallback runs there
  return coll::predict_coll(machine, *collective_, axis.algorithm, axis.policy, ranks, root,
                            coll::coll_call_bytes(*collective_, ranks, bytes, 8), 8, segment,
                            a_.max_requests);
}

std::optional<schedule::Schedule> Tuner::schedule_of(const Candidate& axis, std::int64_t bytes,
                                                     std::int64_t segment) const {
  if (!collective_) return coll::bcast_schedule(axis.algorithm, size_, a_.root, bytes, segment);
  const auto* alg = coll::find_algorithm(*collective_, axis.algorithm);
  if (alg == nullptr || !alg->runs_on(size_)) return std::nullopt;
  return coll::coll_schedule(*collective_, axis.algorithm, size_, a_.root,
                             coll::coll_call_bytes(*collective_, size_, bytes, 8), 8, segment);
}

std::string describe(const Candidate& axis, std::int64_t segment) {
  if (axis.algorithm == "mpi") return "mpi";
  return fmt::format("{} {} {}", axis.algorithm, axis.policy,
                     segment > 0 ? core::format_bytes(segment) : "unsegmented");
}

// Without a parameter file: a short relay model measure at the sizes the replay will cost
// (every candidate segment and message size, plus small ones), its PLogP table shared by all
// ranks, so that every rank's searches take the same decisions.
model::Machine quick_model(MPI_Comm comm, const std::vector<std::int64_t>& message_sizes,
                           const std::vector<std::int64_t>& segments, bool quiet,
                           const measure::MemoryCheck& check_memory) {
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
  measure::P2pOptions o;
  o.sizes = sizes;
  o.max_seconds = 0.1;
  o.max_samples = 60;
  o.quiet = quiet;
  o.check_memory = check_memory;
  const auto measured = measure::measure_p2p(comm, o);
  std::string text =
      rank == 0 ? model::params_document(measured, nlohmann::json::object()).dump() : std::string();
  int n = static_cast<int>(text.size());
  MPI_Bcast(&n, 1, MPI_INT, 0, comm);
  text.resize(static_cast<std::size_t>(n));
  MPI_Bcast(text.data(), n, MPI_CHAR, 0, comm);
  return model::machine_from_json(nlohmann::json::parse(text), true);
}

// Drops from `axes` every candidate whose schedules equal an earlier one's at every segment
// size, under the same policy; returns each dropped one with the name it is measured as.
std::vector<std::pair<Candidate, std::string>> Tuner::drop_twins(std::vector<Candidate>& axes,
                                                                 std::int64_t bytes) const {
  std::vector<std::pair<Candidate, std::string>> twins;
  // Fingerprints first (a schedule can be megabytes); schedules compared where they agree.
  std::vector<std::vector<std::optional<std::uint64_t>>> prints(axes.size());
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (auto seg : axes[i].segments) {
      const auto sched = schedule_of(axes[i], bytes, seg);
      prints[i].push_back(sched ? std::optional<std::uint64_t>(schedule::fingerprint(*sched))
                                : std::nullopt);
    }
  }
  auto same = [&](std::size_t i, std::size_t k) {
    if (axes[k].policy != axes[i].policy || axes[k].segments != axes[i].segments) return false;
    for (std::size_t si = 0; si < axes[i].segments.size(); ++si) {
      if (!prints[i][si] || prints[i][si] != prints[k][si]) return false;
    }
    for (std::size_t si = 0; si < axes[i].segments.size(); ++si) {
      if (*schedule_of(axes[i], bytes, axes[i].segments[si]) !=
          *schedule_of(axes[k], bytes, axes[k].segments[si])) {
        return false;
      }
    }
    return true;
  };
  std::vector<Candidate> kept;
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
      twins.emplace_back(axes[i], axes[*twin].algorithm);
      continue;
    }
    kept.push_back(axes[i]);
    kept_index.push_back(i);
  }
  axes = std::move(kept);
  return twins;
}

// Measures the pool of the table method's search `path` again, head to head, into
// size_doc["confirmation"], and makes the fastest on re-test the size's `rule`.
void Tuner::confirm(const std::vector<Candidate>& axes, std::int64_t bytes,
                    const std::vector<Point>& path, const model::Machine& machine, coll::Rule& rule,
                    nlohmann::json& size_doc) {
  const ConfirmationPool pool = confirmation_pool(path, a_.confirm);
  const std::vector<Point>& pick = pool.points;
  if (pick.size() > 1) {
    const double t0 = MPI_Wtime();
    const auto times =
        measure::interleaved_rounds(pick.size(), a_.confirm_rounds, 7, [&](std::size_t i) {
          return measure(axes[pick[i].axis], axes[pick[i].axis].segments[pick[i].segment], bytes,
                         Race{})
              .time_s;
        });
    double seconds = MPI_Wtime() - t0;
    exec::allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
    const auto paired = measure::paired_relative(times);
    const auto& relative = paired.relative;
    const double reference = paired.reference;
    const auto best = static_cast<std::size_t>(std::min_element(relative.begin(), relative.end()) -
                                               relative.begin());
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t i = 0; i < pick.size(); ++i) {
      const Candidate& ax = axes[pick[i].axis];
      const auto seg = ax.segments[pick[i].segment];
      rows.push_back({{"algorithm", ax.algorithm},
                      {"policy", ax.policy},
                      {"segment_bytes", seg},
                      {"search_us", pick[i].time_s * 1e6},
                      {"confirmed_us", relative[i] * reference * 1e6},
                      {"x_best", relative[i] / relative[best]},
                      {"round_us", times[i]},
                      {"rival", static_cast<int>(i) >= pool.fastest}});
    }
    size_doc["confirmation"] = {{"method", a_.table_method},
                                {"rounds", a_.confirm_rounds},
                                {"seconds", seconds},
                                {"rows", rows}};
    const Candidate& ax = axes[pick[best].axis];
    rule.choice.algorithm = ax.algorithm;
    rule.choice.policy = ax.policy;
    rule.choice.segment_bytes = ax.segments[pick[best].segment];
    rule.measured_s = relative[best] * reference;
    const double pred =
        this->predict(machine, ax, size_, a_.root, bytes, rule.choice.segment_bytes);
    rule.predicted_s = pred >= 0 ? pred : -1;
    rule.source = a_.table_method + "+confirmed";
  }
}

SessionResult Tuner::run() {
  collective_ = a_.collective;
  const std::string op = operation_name(collective_);
  auto algorithms = a_.algorithms;
  if (collective_) {
    // An algorithm that would run its fallback here: measuring it would label the fallback's
    // time with its name in the table.
    std::vector<std::string> kept;
    for (const auto& name : algorithms) {
      if (!coll::find_algorithm(*collective_, name)->runs_on(size_)) {
        if (events_.skipped) events_.skipped(name);
      } else {
        kept.push_back(name);
      }
    }
    algorithms = kept;
    if (algorithms.empty())
      throw std::invalid_argument("--algorithms: none of them runs on " + std::to_string(size_) +
                                  " ranks");
  }
  const auto& policies = a_.policies;
  auto sizes = a_.sizes;
  if (collective_) {
    // As tables count a call: the vector or all blocks, in whole doubles (whole blocks).
    for (auto& b : sizes) b = coll::coll_call_bytes(*collective_, size_, b, 8);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.empty()) throw std::invalid_argument("no sizes to tune");
  const auto& candidate_segments = a_.segments;
  const auto& methods = a_.methods;
  if (std::find(methods.begin(), methods.end(), a_.table_method) == methods.end()) {
    throw std::invalid_argument("--table-method " + a_.table_method + " is not among --methods");
  }
  if (a_.root < 0 || a_.root >= size_) throw std::invalid_argument("--root is not a rank");
  std::vector<int> predict_ranks;
  for (int r : a_.predict_ranks) {
    if (r != size_) predict_ranks.push_back(r);
  }
  model::Machine machine;
  std::string model_source = "none";
  double model_seconds = 0;
  if (needs_model(a_, size_)) {
    if (a_.machine) {
      machine = *a_.machine;
      model_source = a_.machine_source;
    } else {
      if (events_.measuring_model) events_.measuring_model();
      const double t0 = MPI_Wtime();
      machine = quick_model(comm_, sizes, candidate_segments, a_.quiet, a_.check_memory);
      model_seconds = MPI_Wtime() - t0;
      model_source = "measured by relay tune (quick)";
      // Once per machine, for every size, operation and method: not charged to one search.
      if (events_.model_measured) events_.model_measured(model_seconds);
    }
  }
  if (collective_) {
    send_.assign(static_cast<std::size_t>(sizes.back() / 8 + 1), 1.0);
    recv_.assign(static_cast<std::size_t>(sizes.back() / 8 + 1), 0.0);
  } else {
    buffer_.assign(static_cast<std::size_t>(sizes.back()), 1);
  }
  std::size_t expected = 0;  // configurations to measure, about (twins are measured once)
  for (auto bytes : sizes) {
    std::size_t per = 0;
    for (auto s : candidate_segments) per += (s > 0 && s < bytes) ? 1 : 0;
    expected += (algorithms.size() * policies.size()) * (per + 1);
  }
  measure::Progress progress(comm_, a_.quiet, "", expected, true);
  nlohmann::json results = {{"schema", "relay.tune/1"},
                            {"machine", a_.machine_description},
                            {"operation", op},
                            {"ranks", size_},
                            {"model", model_source},
                            {"model_measuring_s", model_seconds},
                            {"sizes", nlohmann::json::array()}};
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
  const SearchOptions& so = a_.search;

  for (auto bytes : sizes) {
    std::vector<Candidate> axes;
    for (const auto& alg : algorithms) {
      if (alg == "mpi" || (collective_ && !coll::moves_data(*collective_))) {
        // mpi has no segments or policy of relay's; a barrier moves one byte.
        if (alg == "mpi") {
          axes.push_back({alg, "nonblocking", {0}});
          continue;
        }
        for (const auto& pol : policies) axes.push_back({alg, pol, {0}});
        continue;
      }
      for (const auto& pol : policies) {
        Candidate axis{alg, pol, {}};
        for (auto s : candidate_segments) {
          if (s > 0 && s < bytes) axis.segments.push_back(s);
        }
        std::sort(axis.segments.begin(), axis.segments.end());
        axis.segments.erase(std::unique(axis.segments.begin(), axis.segments.end()),
                            axis.segments.end());
        axis.segments.push_back(0);  // unsegmented: the largest "segment"
        axes.push_back(axis);
      }
    }
    // An algorithm whose schedules equal an earlier one's at every segment size, under the same
    // policy, is the same experiment (on 4 ranks chain with fanout 1 is pipeline, kary with
    // fanout 4 is linear): searched once, under the earlier name, by every method.
    nlohmann::json same_schedules = nlohmann::json::array();
    for (const auto& twin : drop_twins(axes, bytes)) {
      same_schedules.push_back({{"algorithm", twin.first.algorithm},
                                {"policy", twin.first.policy},
                                {"as", twin.second}});
      expected -= std::min(expected, twin.first.segments.size());
      progress.set_total(std::max(expected, progress.done()));
    }
    // The blocking policy of an algorithm is a variant of its nonblocking one (SMGD searches
    // it near the nonblocking curve's minimum), when both are asked for.
    std::vector<Axis> search_axes;
    for (const auto& ax : axes) {
      Axis sa{ax.algorithm + "/" + ax.policy, ax.segments, -1};
      if (ax.policy == "blocking") {
        for (std::size_t b = 0; b < axes.size(); ++b) {
          if (axes[b].algorithm == ax.algorithm && axes[b].policy == "nonblocking")
            sa.variant_of = static_cast<int>(b);
        }
      }
      search_axes.push_back(sa);
    }
    // Measurements are shared between the methods; each method is charged what its own
    // measurement would have cost ("as if measured alone"), racing included.
    std::map<std::pair<int, int>, Measured> cache;
    const Measure live = [&](int axis, int seg, const Race& race, double& cost) {
      auto key = std::make_pair(axis, seg);
      auto it = cache.find(key);
      if (it == cache.end() || !it->second.answers(race)) {
        const Measured m = measure(axes[axis], axes[axis].segments[seg], bytes, race);
        progress.step(fmt::format("{} {}", core::format_bytes(bytes),
                                  describe(axes[axis], axes[axis].segments[seg])));
        it = cache.insert_or_assign(key, m).first;
      }
      cost = it->second.cost_under(race);
      return it->second.time_under(race);
    };
    const Predict predict = [&](int axis, int seg) {
      return this->predict(machine, axes[axis], size_, a_.root, bytes,
                           axes[axis].segments[seg]);  // mpi: -1, none
    };
    nlohmann::json size_doc = {{"size_bytes", bytes},
                               {"methods", nlohmann::json::array()},
                               {"axes", nlohmann::json::array()},
                               {"same_schedules", same_schedules}};
    std::map<std::string, SearchResult> found;
    for (const auto& method : methods) {
      SearchResult r;
      if (method == "exhaustive") r = search_exhaustive(search_axes, live);
      if (method == "mgd") r = search_mgd(search_axes, live, so);
      if (method == "smgd")
        r = search_smgd(search_axes, live, so, !a_.smgd_gradient ? predict : nullptr);
      if (method == "guided") r = search_model_guided(search_axes, predict, live, so);
      if (method == "model") {
        // Free: the model's own choice, measured once to report how good it is.
        r = search_model_best(search_axes, predict);
        if (!std::isfinite(r.best.time_s))
          throw std::invalid_argument(
              "--methods model: the model predicts none of the configurations");
        double ignored = 0;
        r.best.time_s = live(r.best.axis, r.best.segment, Race{}, ignored);
        r.experiments = 0;
        r.cost_s = 0;
      }
      found[method] = r;
    }
    progress.end_line();
    const bool have_ex = found.count("exhaustive") > 0;
    const double ex_best = have_ex ? found["exhaustive"].best.time_s : 0;
    for (const auto& method : methods) {
      const auto& r = found[method];
      const Candidate& ax = axes[r.best.axis];
      const std::int64_t seg = ax.segments[r.best.segment];
      const double pred = this->predict(machine, ax, size_, a_.root, bytes, seg);
      nlohmann::json path = nlohmann::json::array();
      for (const auto& p : r.path) {
        path.push_back({{"algorithm", axes[p.axis].algorithm},
                        {"policy", axes[p.axis].policy},
                        {"segment_bytes", axes[p.axis].segments[p.segment]},
                        {"time_us", p.time_s * 1e6}});
      }
      size_doc["methods"].push_back({{"method", method},
                                     {"experiments", r.experiments},
                                     {"measuring_s", r.cost_s},
                                     {"algorithm", ax.algorithm},
                                     {"policy", ax.policy},
                                     {"segment_bytes", seg},
                                     {"time_us", r.best.time_s * 1e6},
                                     {"x_best", have_ex ? r.best.time_s / ex_best : 0.0},
                                     {"path", path}});
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
      confirm(axes, bytes, found[a_.table_method].path, machine, grid.back().second, size_doc);
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
        if (needs_model(a_, size_)) {
          const double t = this->predict(machine, axes[ai], size_, a_.root, bytes, seg);
          if (t >= 0) p["predicted_us"] = t * 1e6;
        }
        points.push_back(p);
      }
      size_doc["axes"].push_back(
          {{"algorithm", axes[ai].algorithm}, {"policy", axes[ai].policy}, {"points", points}});
    }
    results["sizes"].push_back(size_doc);
    if (events_.size_done) events_.size_done(size_doc);
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
  table.rules = rules_from_grid(op, size_, size_, grid);
  for (auto& [p, points] : predicted_grid) {
    for (auto& r : rules_from_grid(op, p, p, points)) table.rules.push_back(r);
  }
  return {table, results};
}

}  // namespace

bool needs_model(const SessionOptions& o, int ranks) {
  const auto uses = [&](const char* method) {
    return std::find(o.methods.begin(), o.methods.end(), method) != o.methods.end();
  };
  const bool other_ranks = std::any_of(o.predict_ranks.begin(), o.predict_ranks.end(),
                                       [&](int r) { return r != ranks; });
  return other_ranks || uses("model") || (!o.smgd_gradient && uses("smgd")) || uses("guided");
}

std::string operation_name(const std::optional<coll::Collective>& collective) {
  return collective ? std::string(coll::to_string(*collective)) : std::string("bcast");
}

SessionResult run_session(MPI_Comm comm, const SessionOptions& options,
                          const SessionEvents& events) {
  Tuner tuner(comm, options, events);
  return tuner.run();
}

}  // namespace relay::tune
