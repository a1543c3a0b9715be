// Searches for the best {algorithm, segment size} of one operation at one message size and
// process count (vadhiyar2004 section 4): exhaustive, MGD, SMGD, and model-guided.
//
// The searches see only a callback that measures one configuration (or predicts it), so the
// same code runs on MPI (relay tune), on the model, and on synthetic curves in the unit tests.
// Every search memoises: a configuration is measured at most once (an early-stopped one again
// only if a later question needs it exactly).
//
// MGD (modified gradient descent): per algorithm, start at the largest segment and walk
// towards smaller ones while time falls; at a rise, do not stop at the first minimum: keep
// going for `patience` more points and resume the descent if one of them beats the best.
// SMGD (scanning MGD): measure every algorithm's largest segment first (the scan; with a
// model, in the order of its predictions there, so the race's bound is low early), then
// always advance the algorithm whose predicted next time is lowest, and drop an algorithm once
// even its most hopeful predicted value is worse than `threshold` times the best found so far
// (vadhiyar2004: "rates of change ... predict values and thus prune more intelligently", and
// "a simple threshold mechanism"). The prediction is the model's curve shape when a model is
// given -- the measured value scaled by the model's ratio between segment sizes, which is
// right where the model's absolute times are not -- else the measured rate of change (two
// points needed before pruning). Three refinements of the paper's method, each measured on
// relay tune's sweeps (docs/tuning.md):
// - Variants: an axis may be a variant of another (the same algorithm under the other
//   executor policy). Variants are not scanned; once the scan and descents are done, the
//   variants of the `variant_top` best algorithms, and of any other within `variant_within` of
//   the best, are tried at their best segment and walked while they improve (by more than
//   `noise`). Policy changes a
//   curve near its minimum, not where the minimum is; where several algorithms tie (4 within 3%
//   at 1 MiB on 4 ranks of 2 cores) the top two by a noisy measurement are a coin toss.
// - Noise: a point must beat an algorithm's best by more than `noise` (relative) to reset its
//   patience, so measurement jitter on a flat curve does not prolong the descent.
// - Racing: SMGD asks for each measurement only to `threshold` x the best so far (a descent's
//   or a variant walk's next point only to `noise` above its own best: worse, it just ends the
//   walk or counts towards the patience); the measurement may stop early once it is clearly
//   worse (relay tune: race_stops below) and return that estimate. A descent's next point is
//   also raced against a floor, `noise` below its own best: clearly better, it only says "go
//   on", and its digits do not matter unless it ends as the descent's best -- then it is
//   measured again, exactly (as is the final choice). On the way down a steep curve, most
//   points are such clear gains.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace relay::tune {

/// One algorithm's search axis: its segment sizes, ascending (a single 0 if unsegmented).
struct Axis {
  std::string name;
  std::vector<std::int64_t> segments;
  int variant_of = -1;  ///< SMGD: index of the axis this one varies (searched near its best)
};

struct Point {
  int axis = -1;
  int segment = -1;  ///< index into the axis' segments
  double time_s = 0;
};

struct SearchResult {
  Point best;
  int experiments = 0;      ///< distinct configurations measured
  double cost_s = 0;        ///< sum of what the measure callback reported as its cost
  std::vector<Point> path;  ///< every measurement, in order
};

inline constexpr double kNoBound = std::numeric_limits<double>::infinity();

/// What the caller of a measurement needs to know exactly: its time only if it lies between
/// `below` and `above`. Outside, the measurement may stop early and return an estimate (above
/// `above`, or below `below`). The default asks for the exact time.
struct Race {
  double above = kNoBound;   ///< SMGD: threshold x the best so far, or a descent's own best + noise
  double below = 0;          ///< SMGD: a descent's own best - noise (a clear gain needs no digits)
  bool model_above = false;  ///< the model's shape puts it above `above` too (see race_stops)
};

/// Measures configuration (axis, segment index) under a race: returns its time and sets
/// cost_s to the seconds the measurement took (for searches on synthetic curves, any
/// consistent cost).
using Measure = std::function<double(int axis, int segment, const Race& race, double& cost_s)>;
/// The model's time of (axis, segment), free; negative or non-finite where it has none.
using Predict = std::function<double(int axis, int segment)>;

struct SearchOptions {
  int patience = 2;              ///< MGD/SMGD: points past a minimum before giving up
  double threshold = 1.2;        ///< SMGD: drop an algorithm predicted worse than this x best
  double noise = 0.03;           ///< SMGD: smaller relative gains do not count as improvements
  int variant_top = 2;           ///< SMGD: the best algorithms whose variants are searched ...
  double variant_within = 1.10;  ///< ... and every other one whose best is within this x the best
  int top_k = 3;                 ///< model-guided: candidates measured
};

SearchResult search_exhaustive(const std::vector<Axis>& axes, const Measure& measure);
SearchResult search_mgd(const std::vector<Axis>& axes, const Measure& measure,
                        const SearchOptions& options = {});
/// shape: the model (optional), for predictions; without it, measured rates of change.
SearchResult search_smgd(const std::vector<Axis>& axes, const Measure& measure,
                         const SearchOptions& options = {}, const Predict& shape = nullptr);
/// The model's choice, free: among the configurations predicted within `tolerance` (relative)
/// of the best, the one with the largest segment (0 = unsegmented counts as largest) -- fewer
/// messages, so less exposure to per-message costs a model underrates. Where a model's curve
/// is flat its argmin is a coin toss: on the emulated cluster the replay put a chain's 2 KiB
/// and 32 KiB segments 0.6% apart, and 2 KiB ran 1.2x slower. experiments = 0.
SearchResult search_model_best(const std::vector<Axis>& axes, const Predict& predict,
                               double tolerance = 0.01);
/// Ranks all configurations by `predict` (free) and measures only the best `top_k`.
SearchResult search_model_guided(const std::vector<Axis>& axes, const Predict& predict,
                                 const Measure& measure, const SearchOptions& options = {});

/// The race rule of a measurement under `race` (SMGD) that planned `planned` timed iterations:
/// whether it stops after its first i (iterations[0..i)). Where the calls are so long that
/// --min-time asks for no more than 3, the median rule below would measure them all; then it
/// stops after the first once both samples it has -- the warm-up call and that iteration --
/// are above race.above (or both below race.below): at 8 MiB on the emulated cluster a call
/// takes 0.3-0.9 s, and the scan of every algorithm at its slowest, largest segment was half
/// of SMGD's measuring. Short calls are not judged by one: on shared memory the first 64 KiB
/// broadcast after the warm-up ran 33 us where the mean of hundreds was 25 us -- unless the
/// model is a third witness (race.model_above): then the warm-up and the first call above the
/// bound stop it whatever the plan (that 64 KiB mpi broadcast has no model). Otherwise it
/// stops at a checkpoint (the first 16 iterations, then every 8th) once the median of 3 or
/// more is above race.above, or their mean below race.below (a slow call among them counts).
bool race_stops(const std::vector<double>& iterations, std::size_t i, double warm_s,
                const Race& race, std::size_t planned);
/// The number of iterations a race keeps: the first i at which race_stops, else all of them.
std::size_t race_length(const std::vector<double>& iterations, double warm_s, const Race& race,
                        std::size_t planned);
/// What a race stopped after its first k iterations reports, as race_stops judged them: their
/// median where it is above race.above, else (below race.below) their mean.
double race_estimate(const std::vector<double>& iterations, std::size_t k, const Race& race);
/// Whether a time t that a race `ran` stopped early at also answers a question under race
/// `asked`: above its bound it is above any lower one (hopeless, even where it is below the
/// floor too); below its floor, below any higher floor.
bool race_settles(double t, const Race& ran, const Race& asked);

/// What a confirmation measures again, from the points a search measured (a point measured
/// twice with its latest value: an estimate, then in full): the `fastest` fastest
/// distinct configurations, then the best of each other axis that came within `within` (x) of
/// the fastest, best first, at most `fastest` of those. A search's fastest few are often
/// neighbouring segments of one algorithm, measured back to back under the same conditions; a
/// rival axis measured once, at an unlucky moment, gets its re-test too.
struct ConfirmationPool {
  std::vector<Point> points;  ///< the fastest first, then the rivals
  int fastest = 0;            ///< how many of them are the fastest
};
ConfirmationPool confirmation_pool(std::vector<Point> path, int fastest, double within = 1.25);

}  // namespace relay::tune
