// Searches for the best {algorithm, segment size} of one operation at one message size and
// process count (vadhiyar2004 section 4): exhaustive, MGD, SMGD, and model-guided.
//
// The searches see only a callback that measures one configuration (or predicts it), so the
// same code runs on MPI (relay tune), on the model, and on synthetic curves in the unit tests.
// Every search memoises: a configuration is measured at most once.
//
// MGD (modified gradient descent): per algorithm, start at the largest segment and walk
// towards smaller ones while time falls; at a rise, do not stop at the first minimum: keep
// going for `patience` more points and resume the descent if one of them beats the best.
// SMGD (scanning MGD): measure every algorithm's largest segment first (the scan), then
// always advance the algorithm whose predicted next time is lowest -- the prediction extends
// its current rate of change (vadhiyar2004: "rates of change of gradients ... predict values
// and thus prune more intelligently") -- and drop an algorithm once even its predicted value is
// worse than `threshold` times the best found so far (their "simple threshold mechanism"),
// once it has two points (a rate of change) to predict from.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace relay::tune {

/// One algorithm's search axis: its segment sizes, ascending (a single 0 if unsegmented).
struct Axis {
  std::string name;
  std::vector<std::int64_t> segments;
};

struct Point {
  int axis = -1;
  int segment = -1;  ///< index into the axis' segments
  double time_s = 0;
};

struct SearchResult {
  Point best;
  int experiments = 0;          ///< distinct configurations measured
  double cost_s = 0;            ///< sum of what the measure callback reported as its cost
  std::vector<Point> path;      ///< every measurement, in order
};

/// Measures configuration (axis, segment index): returns its time and sets cost_s to the
/// seconds the measurement took (for searches on synthetic curves, any consistent cost).
using Measure = std::function<double(int axis, int segment, double& cost_s)>;

struct SearchOptions {
  int patience = 2;          ///< MGD/SMGD: points past a minimum before giving up
  double threshold = 1.5;    ///< SMGD: drop an algorithm predicted worse than this x best
  int top_k = 3;             ///< model-guided: candidates measured
};

SearchResult search_exhaustive(const std::vector<Axis>& axes, const Measure& measure);
SearchResult search_mgd(const std::vector<Axis>& axes, const Measure& measure,
                        const SearchOptions& options = {});
SearchResult search_smgd(const std::vector<Axis>& axes, const Measure& measure,
                         const SearchOptions& options = {});
/// Ranks all configurations by `predict` (free) and measures only the best `top_k`.
SearchResult search_model_guided(const std::vector<Axis>& axes, const Measure& predict,
                                 const Measure& measure, const SearchOptions& options = {});

}  // namespace relay::tune
