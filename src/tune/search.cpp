#include "tune/search.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace relay::tune {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Memoising wrapper that records the path and the cost.
class Recorder {
 public:
  Recorder(const Measure& measure, SearchResult& result) : measure_(measure), result_(result) {
    result_.best.time_s = kInf;
  }
  double operator()(int axis, int segment) {
    const auto key = std::make_pair(axis, segment);
    if (auto it = seen_.find(key); it != seen_.end()) return it->second;
    double cost = 0;
    const double t = measure_(axis, segment, cost);
    seen_[key] = t;
    ++result_.experiments;
    result_.cost_s += cost;
    result_.path.push_back({axis, segment, t});
    if (t < result_.best.time_s) result_.best = {axis, segment, t};
    return t;
  }

 private:
  const Measure& measure_;
  SearchResult& result_;
  std::map<std::pair<int, int>, double> seen_;
};

void check(const std::vector<Axis>& axes) {
  if (axes.empty()) throw std::invalid_argument("search: no algorithms to search");
  for (const auto& a : axes) {
    if (a.segments.empty()) throw std::invalid_argument("search: " + a.name + " has no segment sizes");
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

void step(Descent& d, double t, int patience) {
  d.previous = d.last;
  d.last = t;
  if (t < d.best) {
    d.best = t;
    d.worse = 0;
  } else if (++d.worse > patience) {
    d.done = true;
  }
  if (--d.next < 0) d.done = true;
}

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
                         const SearchOptions& o) {
  check(axes);
  SearchResult r;
  Recorder rec(measure, r);
  const int n = static_cast<int>(axes.size());
  std::vector<Descent> d(n);
  // The scan: every algorithm at its largest segment.
  for (int a = 0; a < n; ++a) {
    d[a].next = static_cast<int>(axes[a].segments.size()) - 1;
    const int s = d[a].next;
    step(d[a], rec(a, s), o.patience);
  }
  for (;;) {
    // Predicted next value: the last one moved on by the current rate of change (a ratio, so
    // that curves of very different magnitudes compare), never below half the last value.
    int pick = -1;
    double pick_value = kInf;
    for (int a = 0; a < n; ++a) {
      if (d[a].done) continue;
      double ratio = 1.0;
      if (std::isfinite(d[a].previous) && d[a].previous > 0) ratio = d[a].last / d[a].previous;
      const double predicted = d[a].last * std::clamp(ratio, 0.5, 2.0);
      const double hope = std::min(predicted, d[a].best);
      // Only with a rate of change known (two points) is a prediction worth pruning on.
      if (std::isfinite(d[a].previous) && hope > o.threshold * r.best.time_s) {
        d[a].done = true;  // pruned
        continue;
      }
      if (predicted < pick_value) {
        pick_value = predicted;
        pick = a;
      }
    }
    if (pick < 0) break;
    const int s = d[pick].next;
    step(d[pick], rec(pick, s), o.patience);
  }
  return r;
}

SearchResult search_model_guided(const std::vector<Axis>& axes, const Measure& predict,
                                 const Measure& measure, const SearchOptions& o) {
  check(axes);
  std::vector<Point> all;
  for (int a = 0; a < static_cast<int>(axes.size()); ++a) {
    for (int s = 0; s < static_cast<int>(axes[a].segments.size()); ++s) {
      double ignored = 0;
      all.push_back({a, s, predict(a, s, ignored)});
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
