#include "tune/search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "measure/stats.hpp"

namespace relay::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Memoising wrapper that records the path and the cost.
class Recorder {
 public:
  Recorder(const Measure& measure, SearchResult& result) : measure_(measure), result_(result) {
    result_.best.time_s = kInf;
  }
  double operator()(int axis, int segment, double bound = kNoBound) {
    const auto key = std::make_pair(axis, segment);
    auto it = seen_.find(key);
    // An early-stopped value answers any question whose bound it exceeds.
    if (it != seen_.end() && (!it->second.partial || it->second.time > bound)) {
      return it->second.time;
    }
    double cost = 0;
    const double t = measure_(axis, segment, bound, cost);
    if (it == seen_.end()) ++result_.experiments;
    seen_[key] = {t, t > bound};
    result_.cost_s += cost;
    result_.path.push_back({axis, segment, t});
    if (t < result_.best.time_s) result_.best = {axis, segment, t};
    return t;
  }
  bool seen(int axis, int segment) const { return seen_.count({axis, segment}) > 0; }

 private:
  struct Seen {
    double time;
    bool partial;
  };
  const Measure& measure_;
  SearchResult& result_;
  std::map<std::pair<int, int>, Seen> seen_;
};

void check(const std::vector<Axis>& axes) {
  if (axes.empty()) throw std::invalid_argument("search: no algorithms to search");
  for (std::size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].segments.empty()) throw std::invalid_argument("search: " + axes[a].name + " has no segment sizes");
    const int v = axes[a].variant_of;
    if (v >= static_cast<int>(axes.size()) || v == static_cast<int>(a) ||
        (v >= 0 && axes[v].variant_of >= 0)) {
      throw std::invalid_argument("search: " + axes[a].name + " is a variant of no searched axis");
    }
  }
}

// One algorithm's descent state (MGD and SMGD).
struct Descent {
  int next = 0;            // index to measure next (descending); -1 when finished
  double best = kInf;
  double last = kInf, previous = kInf;
  int worse = 0;           // points since the last improvement
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
    std::stable_sort(scan.begin(), scan.end(), [&](int x, int y) { return at_largest(x) < at_largest(y); });
  }
  for (int a : scan) {
    const int s = d[a].next;
    step(d[a], rec(a, s, bound()), o.patience, o.noise);
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
    // A descent needs a point's exact time only if it may improve its algorithm's best (by
    // more than the noise): a worse one only counts towards the patience.
    const int s = d[pick].next;
    step(d[pick], rec(pick, s, std::min(bound(), d[pick].best * (1 + o.noise))), o.patience, o.noise);
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
    int at = -1;
    double base_best = kInf;
    for (const auto& p : r.path) {
      if (p.axis == base && p.time_s < base_best) {
        base_best = p.time_s;
        at = p.segment;
      }
    }
    const std::int64_t segment = axes[base].segments[at];
    for (int v = 0; v < n; ++v) {
      if (axes[v].variant_of != base) continue;
      const auto& seg = axes[v].segments;
      int start = 0;  // the variant's segment nearest the algorithm's best
      for (int s = 0; s < static_cast<int>(seg.size()); ++s) {
        const auto distance = [&](std::int64_t x) {
          return x == 0 || segment == 0 ? (x == segment ? 0.0 : kInf)
                                        : std::abs(std::log(static_cast<double>(x) / static_cast<double>(segment)));
        };
        if (distance(seg[s]) < distance(seg[start])) start = s;
      }
      const double t0 = rec(v, start, bound());
      for (int dir : {-1, +1}) {
        int s = start;
        double t = t0;
        while (s + dir >= 0 && s + dir < static_cast<int>(seg.size()) && !rec.seen(v, s + dir)) {
          const double next = rec(v, s + dir, std::min(bound(), t * (1 + o.noise)));
          if (next >= t * (1 - o.noise)) break;  // a gain within the noise is no reason to go on
          s += dir;
          t = next;
        }
      }
    }
  }
  return r;
}

bool race_stops(const std::vector<double>& iterations, std::size_t i, double warm_s, double bound_s,
                std::size_t planned) {
  if (!std::isfinite(bound_s) || i == 0 || i > iterations.size()) return false;
  if (i == 1) return planned <= 3 && std::min(warm_s, iterations[0]) > bound_s;
  if (i < 3 || (i > 16 && i % 8 != 0)) return false;
  return measure::median({iterations.begin(), iterations.begin() + static_cast<long>(i)}) > bound_s;
}

std::size_t race_length(const std::vector<double>& iterations, double warm_s, double bound_s, std::size_t planned) {
  for (std::size_t i = 1; i <= iterations.size(); ++i) {
    if (race_stops(iterations, i, warm_s, bound_s, planned)) return i;
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
  auto larger = [](std::int64_t x, std::int64_t y) { return (x == 0 ? INT64_MAX : x) > (y == 0 ? INT64_MAX : y); };
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = 0; s < static_cast<int>(axes[a].segments.size()); ++s) {
      const double t = predict(a, s);
      if (!usable(t) || t > lowest * (1 + tolerance)) continue;
      const bool first = !std::isfinite(r.best.time_s);
      if (first || larger(axes[a].segments[s], axes[r.best.axis].segments[r.best.segment]) ||
          (axes[a].segments[s] == axes[r.best.axis].segments[r.best.segment] && t < r.best.time_s)) {
        r.best = {a, s, t};
      }
    }
  }
  return r;
}

ConfirmationPool confirmation_pool(std::vector<Point> measured, int fastest, double within) {
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
