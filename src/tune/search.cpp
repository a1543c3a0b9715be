#include "tune/search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "measure/stats.hpp"

namespace relay::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Memoising wrapper that records the path and the cost. Its best is the best of the latest
// values: a value estimated in a race below its floor is replaced when measured exactly.
class Recorder {
 public:
  Recorder(const Measure& measure, SearchResult& result) : measure_(measure), result_(result) {
    result_.best.time_s = kInf;
  }
  double operator()(int axis, int segment, const Race& race = {}) {
    const auto key = std::make_pair(axis, segment);
    auto it = seen_.find(key);
    // An early-stopped value answers any question it settles (race_settles).
    if (it != seen_.end() &&
        (!it->second.partial() || race_settles(it->second.time, it->second.race, race))) {
      return it->second.time;
    }
    double cost = 0;
    const double t = measure_(axis, segment, race, cost);
    if (it == seen_.end()) ++result_.experiments;
    seen_[key] = {t, race};
    result_.cost_s += cost;
    result_.path.push_back({axis, segment, t});
    result_.best = {-1, -1, kInf};
    for (const auto& [k, v] : seen_) {
      if (v.time < result_.best.time_s) result_.best = {k.first, k.second, v.time};
    }
    return t;
  }
  bool seen(int axis, int segment) const { return seen_.count({axis, segment}) > 0; }
  /// Whether (axis, segment) holds an estimate from a race stopped below its floor.
  bool below_floor(int axis, int segment) const {
    auto it = seen_.find({axis, segment});
    return it != seen_.end() && it->second.partial() && it->second.time <= it->second.race.above;
  }
  /// The axis' best measured point by the latest values (segment -1 if none).
  Point best_of(int axis) const {
    Point p{axis, -1, kInf};
    for (const auto& [k, v] : seen_) {
      if (k.first == axis && v.time < p.time_s) p = {axis, k.second, v.time};
    }
    return p;
  }

 private:
  struct Seen {
    double time;
    Race race;  // the race it was measured under
    // Stopped early, above the race's bound or below its floor: an estimate.
    bool partial() const { return time > race.above || time < race.below; }
  };
  const Measure& measure_;
  SearchResult& result_;
  std::map<std::pair<int, int>, Seen> seen_;
};

void check(const std::vector<Axis>& axes) {
  if (axes.empty()) throw std::invalid_argument("search: no algorithms to search");
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].segments.empty())
      throw std::invalid_argument("search: " + axes[a].name + " has no segment sizes");
    const int v = axes[a].variant_of;
    if (v >= static_cast<int>(axes.size()) || v == static_cast<int>(a) ||
        (v >= 0 && axes[v].variant_of >= 0)) {
      throw std::invalid_argument("search: " + axes[a].name + " is a variant of no searched axis");
    }
  }
}

// One algorithm's descent state (MGD and SMGD).
struct Descent {
  int next = 0;  // index to measure next (descending); -1 when finished
  double best = kInf;
  double last = kInf, previous = kInf;
  int worse = 0;  // points since the last improvement
  bool done = false;
};

void step(Descent& d, double t, int patience, double noise = 0) {
  d.previous = d.last;
  d.last = t;
  if (t < d.best * (1 - noise)) {
    d.worse = 0;
  } else if (++d.worse > patience) {
    d.done = true;
  }
  d.best = std::min(d.best, t);
  if (--d.next < 0) d.done = true;
}

bool usable(double t) { return std::isfinite(t) && t > 0; }

}  // namespace

SearchResult search_exhaustive(const std::vector<Axis>& axes, const Measure& measure) {
  check(axes);
  SearchResult r;
  Recorder rec(measure, r);
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = static_cast<int>(axes[a].segments.size()) - 1; s >= 0; --s) rec(a, s);
  }
  return r;
}

SearchResult search_mgd(const std::vector<Axis>& axes, const Measure& measure,
                        const SearchOptions& o) {
  check(axes);
  SearchResult r;
  Recorder rec(measure, r);
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    Descent d;
    d.next = static_cast<int>(axes[a].segments.size()) - 1;
    while (!d.done) {
      const int s = d.next;
      step(d, rec(a, s), o.patience);
    }
  }
  return r;
}

SearchResult search_smgd(const std::vector<Axis>& axes, const Measure& measure,
                         const SearchOptions& o, const Predict& shape) {
  check(axes);
  SearchResult r;
  Recorder rec(measure, r);
  const int n = static_cast<int>(axes.size());
  auto bound = [&] { return o.threshold * r.best.time_s; };
  std::vector<Descent> d(n);
  // An axis' best, measured exactly where it was an estimate below a floor (unless, measured,
  // it is hopeless: worse than threshold x the best).
  auto settle = [&](int a) {
    for (Point p = rec.best_of(a); p.segment >= 0 && rec.below_floor(a, p.segment);
         p = rec.best_of(a)) {
      rec(a, p.segment, {bound()});
    }
    d[a].best = rec.best_of(a).time_s;
  };
  // Whether the model's shape puts (a, s) above `above`: the reference point's measured time
  // scaled by the model's ratio between the two.
  auto model_above = [&](int a, int s, const Point& ref, double above) {
    if (!shape || ref.axis < 0 || ref.segment < 0 || !std::isfinite(above)) return false;
    const double here = shape(a, s), there = shape(ref.axis, ref.segment);
    return usable(here) && usable(there) && ref.time_s * here / there > above;
  };
  // The scan: every algorithm (not the variants) at its largest segment. With a model, in
  // the order of its predictions there (unpredicted last), so that the best so far -- the
  // race's bound -- is low from the start and the slow rest of the scan stops early.
  std::vector<int> scan;
  for (int a = 0; a < n; ++a) {
    d[a].next = static_cast<int>(axes[a].segments.size()) - 1;
    if (axes[a].variant_of >= 0) {
      d[a].done = true;
    } else {
      scan.push_back(a);
    }
  }
  if (shape) {
    auto at_largest = [&](int a) {
      const double t = shape(a, d[a].next);
      return usable(t) ? t : kInf;
    };
    std::stable_sort(scan.begin(), scan.end(),
                     [&](int x, int y) { return at_largest(x) < at_largest(y); });
  }
  for (int a : scan) {
    const int s = d[a].next;
    step(d[a], rec(a, s, {bound(), 0, model_above(a, s, r.best, bound())}), o.patience, o.noise);
  }
  for (;;) {
    int pick = -1;
    double pick_value = kInf;
    for (int a = 0; a < n; ++a) {
      if (d[a].done) continue;
      const int current = d[a].next + 1;  // the last point measured
      const double model_now = shape ? shape(a, current) : -1;
      double predicted = 0, hope = 0;
      bool can_prune = false;
      if (usable(model_now) && usable(shape(a, d[a].next))) {
        // The model's shape: its ratios scale the measured value; the hope is the model's
        // lowest point still ahead on this axis, scaled the same way.
        double lowest = kInf;
        for (int s = d[a].next; s >= 0; --s) {
          const double m = shape(a, s);
          if (usable(m)) lowest = std::min(lowest, m);
        }
        predicted = d[a].last * shape(a, d[a].next) / model_now;
        hope = std::min(d[a].best, d[a].last * lowest / model_now);
        can_prune = true;
      } else {
        // The measured rate of change (a ratio, so that curves of very different magnitudes
        // compare), within [0.5, 2]; pruning needs two points.
        double ratio = 1.0;
        if (std::isfinite(d[a].previous) && d[a].previous > 0) ratio = d[a].last / d[a].previous;
        predicted = d[a].last * std::clamp(ratio, 0.5, 2.0);
        hope = std::min(predicted, d[a].best);
        can_prune = std::isfinite(d[a].previous);
      }
      if (can_prune && hope > bound()) {
        d[a].done = true;  // pruned
        continue;
      }
      if (predicted < pick_value) {
        pick_value = predicted;
        pick = a;
      }
    }
    if (pick < 0) break;
    // A descent needs a point's exact time only where it is within the noise of its
    // algorithm's best: a worse one only counts towards the patience, and a clearly better one
    // only says "go on" -- the next point will be measured anyway. A descent's best is
    // measured exactly once it ends (settle).
    const int s = d[pick].next;
    const double own = d[pick].best;
    // (An algorithm far behind the best has its floor above the bound; a point between the
    // two is above the bound, hopeless, whatever it gains on its own best.)
    Race race{std::min(bound(), own * (1 + o.noise)), std::isfinite(own) ? own * (1 - o.noise) : 0};
    race.model_above =
        model_above(pick, s, race.above < bound() ? rec.best_of(pick) : r.best, race.above);
    step(d[pick], rec(pick, s, race), o.patience, o.noise);
    if (d[pick].done) settle(pick);
  }
  // Variants of the best algorithms: start at the algorithm's best segment, walk each way
  // while the variant improves.
  std::vector<std::pair<double, int>> ranked;
  for (int a = 0; a < n; ++a) {
    if (axes[a].variant_of < 0 && std::isfinite(d[a].best)) ranked.emplace_back(d[a].best, a);
  }
  std::sort(ranked.begin(), ranked.end());
  for (int i = 0; i < static_cast<int>(ranked.size()); ++i) {
    const int base = ranked[i].second;
    if (ranked[i].first > bound()) break;
    if (i >= o.variant_top && !(ranked[i].first <= o.variant_within * ranked.front().first)) break;
    const std::int64_t segment = axes[base].segments[rec.best_of(base).segment];
    for (int v = 0; v < n; ++v) {
      if (axes[v].variant_of != base) continue;
      const auto& seg = axes[v].segments;
      int start = 0;  // the variant's segment nearest the algorithm's best
      for (int s = 0; s < static_cast<int>(seg.size()); ++s) {
        const auto distance = [&](std::int64_t x) {
          return x == 0 || segment == 0
                     ? (x == segment ? 0.0 : kInf)
                     : std::abs(std::log(static_cast<double>(x) / static_cast<double>(segment)));
        };
        if (distance(seg[s]) < distance(seg[start])) start = s;
      }
      const double t0 = rec(v, start, {bound()});
      for (int dir : {-1, +1}) {
        int s = start;
        double t = t0;
        while (s + dir >= 0 && s + dir < static_cast<int>(seg.size()) && !rec.seen(v, s + dir)) {
          const double next = rec(v, s + dir, {std::min(bound(), t * (1 + o.noise))});
          if (next >= t * (1 - o.noise)) break;  // a gain within the noise is no reason to go on
          s += dir;
          t = next;
        }
      }
    }
  }
  // The choice is an exact measurement.
  for (Point p = r.best; p.axis >= 0 && rec.below_floor(p.axis, p.segment); p = r.best)
    rec(p.axis, p.segment);
  return r;
}

bool race_stops(const std::vector<double>& iterations, std::size_t i, double warm_s,
                const Race& race, std::size_t planned) {
  const bool above = std::isfinite(race.above), below = race.below > 0;
  if ((!above && !below) || i == 0 || i > iterations.size()) return false;
  if (i == 1) {
    return (above && (planned <= 3 || race.model_above) &&
            std::min(warm_s, iterations[0]) > race.above) ||
           (below && planned <= 3 && std::max(warm_s, iterations[0]) < race.below);
  }
  if (i < 3 || (i > 16 && i % 8 != 0)) return false;
  // Above a bound: the median, so that one slow call does not stop it. Below a floor: the
  // mean, so that one slow call does (race_estimate reports them the same way).
  const std::vector<double> first(iterations.begin(), iterations.begin() + static_cast<long>(i));
  return (above && measure::median(first) > race.above) ||
         (below &&
          std::accumulate(first.begin(), first.end(), 0.0) / static_cast<double>(i) < race.below);
}

double race_estimate(const std::vector<double>& iterations, std::size_t k, const Race& race) {
  // The mean below a floor is what a full measurement reports, not the median of a skewed
  // few, which reads low and sets the next points' races.
  const std::vector<double> first(iterations.begin(), iterations.begin() + static_cast<long>(k));
  const double median = measure::median(first);
  return median > race.above
             ? median
             : std::accumulate(first.begin(), first.end(), 0.0) / static_cast<double>(k);
}

bool race_settles(double t, const Race& ran, const Race& asked) {
  if (t > ran.above) return t > asked.above;
  return t < ran.below && t < asked.below;
}

std::size_t race_length(const std::vector<double>& iterations, double warm_s, const Race& race,
                        std::size_t planned) {
  for (std::size_t i = 1; i <= iterations.size(); ++i) {
    if (race_stops(iterations, i, warm_s, race, planned)) return i;
  }
  return iterations.size();
}

SearchResult search_model_best(const std::vector<Axis>& axes, const Predict& predict,
                               double tolerance) {
  check(axes);
  double lowest = kInf;
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = 0; s < static_cast<int>(axes[a].segments.size()); ++s) {
      const double t = predict(a, s);
      if (usable(t)) lowest = std::min(lowest, t);
    }
  }
  SearchResult r;
  r.best = {0, 0, kInf};
  auto larger = [](std::int64_t x, std::int64_t y) {
    return (x == 0 ? INT64_MAX : x) > (y == 0 ? INT64_MAX : y);
  };
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = 0; s < static_cast<int>(axes[a].segments.size()); ++s) {
      const double t = predict(a, s);
      if (!usable(t) || t > lowest * (1 + tolerance)) continue;
      const bool first = !std::isfinite(r.best.time_s);
      if (first || larger(axes[a].segments[s], axes[r.best.axis].segments[r.best.segment]) ||
          (axes[a].segments[s] == axes[r.best.axis].segments[r.best.segment] &&
           t < r.best.time_s)) {
        r.best = {a, s, t};
      }
    }
  }
  return r;
}

ConfirmationPool confirmation_pool(std::vector<Point> path, int fastest, double within) {
  // A point measured again (an estimate, then in full) counts with its latest value.
  std::vector<Point> measured;
  for (auto p = path.rbegin(); p != path.rend(); ++p) {
    if (std::none_of(measured.begin(), measured.end(), [&](const Point& q) {
          return q.axis == p->axis && q.segment == p->segment;
        })) {
      measured.push_back(*p);
    }
  }
  std::reverse(measured.begin(), measured.end());
  std::stable_sort(measured.begin(), measured.end(),
                   [](const Point& x, const Point& y) { return x.time_s < y.time_s; });
  std::vector<Point> pool;
  auto has = [&pool](const Point& p, bool same_axis) {
    return std::any_of(pool.begin(), pool.end(), [&](const Point& q) {
      return q.axis == p.axis && (same_axis || q.segment == p.segment);
    });
  };
  for (const Point& p : measured) {
    if (static_cast<int>(pool.size()) == fastest) break;
    if (!has(p, false)) pool.push_back(p);
  }
  ConfirmationPool out{{}, static_cast<int>(pool.size())};
  if (pool.empty()) return out;
  const double limit = pool.front().time_s * within;
  int rivals = 0;
  for (const Point& p : measured) {  // fastest first: the first of an axis is its best
    if (rivals == fastest || !(p.time_s <= limit)) break;
    if (!has(p, true)) {
      pool.push_back(p);
      ++rivals;
    }
  }
  out.points = std::move(pool);
  return out;
}

SearchResult search_model_guided(const std::vector<Axis>& axes, const Predict& predict,
                                 const Measure& measure, const SearchOptions& o) {
  check(axes);
  std::vector<Point> all;
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = 0; s < static_cast<int>(axes[a].segments.size()); ++s) {
      const double t = predict(a, s);
      all.push_back({a, s, usable(t) ? t : kInf});  // unpredicted (mpi): last
    }
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Point& x, const Point& y) { return x.time_s < y.time_s; });
  SearchResult r;
  Recorder rec(measure, r);
  for (int i = 0; i < std::min<int>(o.top_k, static_cast<int>(all.size())); ++i) {
    rec(all[i].axis, all[i].segment);
  }
  return r;
}

}  // namespace relay::tune
