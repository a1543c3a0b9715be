// The searches on synthetic curves: several local minima (MGD/SMGD must look past the first),
// pruning that keeps the winner, memoisation, and the model-guided search.
#include <gtest/gtest.h>

#include <cmath>

#include "tune/search.hpp"

using relay::tune::Axis;
using relay::tune::SearchResult;

namespace {

std::vector<std::int64_t> segments(int n) {
  std::vector<std::int64_t> s;
  for (int i = 0; i < n; ++i) s.push_back(std::int64_t{1024} << i);
  return s;
}

// A curve per algorithm over segment indices; the cost of a measurement grows as segments
// shrink (more messages), as on a real machine. A raced measurement of a configuration
// worse than the race's bound (or better than its floor) stops early: a third of the cost.
// bounds and floors (if given) record the races.
relay::tune::Measure curves(const std::vector<std::vector<double>>& t, int* calls = nullptr,
                            std::vector<double>* bounds = nullptr,
                            std::vector<double>* floors = nullptr) {
  return [t, calls, bounds, floors](int a, int s, const relay::tune::Race& race, double& cost) {
    if (calls != nullptr) ++*calls;
    if (bounds != nullptr) bounds->push_back(race.above);
    if (floors != nullptr) floors->push_back(race.below);
    const bool stopped = t[a][s] > race.above || t[a][s] < race.below;
    cost = t[a][s] * (1.0 + 10.0 / (1 + s)) * (stopped ? 1.0 / 3 : 1.0);
    return t[a][s];
  };
}

relay::tune::Predict table(const std::vector<std::vector<double>>& t) {
  return [t](int a, int s) { return t[a][s]; };
}

}  // namespace

TEST(Search, MgdLooksPastTheFirstMinimum) {
  // Descending from the right: a local minimum at index 9, a bump at 8 and 7, then the
  // descent resumes to the global minimum at 5.
  const std::vector<std::vector<double>> t = {{12, 11, 10, 9, 6, 2, 2.5, 7, 6.5, 3, 4, 5}};
  const std::vector<Axis> axes = {{"a", segments(12)}};
  const auto mgd = relay::tune::search_mgd(axes, curves(t));
  EXPECT_EQ(mgd.best.segment, 5);
  EXPECT_DOUBLE_EQ(mgd.best.time_s, 2);
  EXPECT_EQ(mgd.experiments, 10);  // stopped before the expensive smallest segments
  const auto smgd = relay::tune::search_smgd(axes, curves(t));
  EXPECT_EQ(smgd.best.segment, 5);
  // With no patience both stop at the first minimum: the test can fail.
  relay::tune::SearchOptions strict;
  strict.patience = 0;
  EXPECT_EQ(relay::tune::search_mgd(axes, curves(t), strict).best.segment, 9);
}

TEST(Search, SmgdPrunesHopelessAlgorithmsAndKeepsTheWinner) {
  std::vector<std::vector<double>> t(4, std::vector<double>(12));
  for (int s = 0; s < 12; ++s) {
    const double x = s - 6.0;
    t[0][s] = 10 + 0.2 * x * x;              // best: minimum 10 at index 6
    t[1][s] = 30 + 0.2 * x * x;              // 3x worse everywhere
    t[2][s] = 11 + 0.1 * (s - 9) * (s - 9);  // close competitor, minimum at 9
    t[3][s] = 50 - s;                        // falls steadily but stays far behind
  }
  std::vector<Axis> axes;
  for (const char* n : {"a", "b", "c", "d"}) axes.push_back({n, segments(12)});
  const auto ex = relay::tune::search_exhaustive(axes, curves(t));
  const auto mgd = relay::tune::search_mgd(axes, curves(t));
  const auto smgd = relay::tune::search_smgd(axes, curves(t));
  EXPECT_EQ(ex.experiments, 48);
  EXPECT_DOUBLE_EQ(ex.best.time_s, 10);
  EXPECT_DOUBLE_EQ(mgd.best.time_s, 10);
  EXPECT_DOUBLE_EQ(smgd.best.time_s, 10);
  EXPECT_LT(smgd.experiments, mgd.experiments);
  EXPECT_LT(smgd.cost_s, mgd.cost_s);
  EXPECT_LT(mgd.cost_s, ex.cost_s);
  // Every path point is distinct (memoised) and the best is on the path.
  for (std::size_t i = 0; i < smgd.path.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      EXPECT_FALSE(smgd.path[i].axis == smgd.path[j].axis &&
                   smgd.path[i].segment == smgd.path[j].segment);
    }
  }
}

TEST(Search, UnsegmentedAlgorithmsAndModelGuided) {
  const std::vector<std::vector<double>> t = {{5}, {7, 4, 6}};
  const std::vector<Axis> axes = {{"mpi", {0}}, {"pipeline", segments(3)}};
  EXPECT_DOUBLE_EQ(relay::tune::search_smgd(axes, curves(t)).best.time_s, 4);
  // A model that ranks the true best second: measuring its top 2 finds it.
  const std::vector<std::vector<double>> model = {{1}, {9, 2, 8}};
  relay::tune::SearchOptions o;
  o.top_k = 2;
  int calls = 0;
  const auto g = relay::tune::search_model_guided(axes, table(model), curves(t, &calls), o);
  EXPECT_EQ(calls, 2);
  EXPECT_DOUBLE_EQ(g.best.time_s, 4);
  EXPECT_THROW(relay::tune::search_mgd({}, curves(t)), std::invalid_argument);
}

TEST(Search, SmgdSearchesVariantsNearTheirAlgorithmsBest) {
  // Axis 1 (the blocking policy, say) varies axis 0: the same valley, 5% lower at its floor.
  std::vector<std::vector<double>> t(2, std::vector<double>(12));
  for (int s = 0; s < 12; ++s) {
    const double x = s - 7.0;
    t[0][s] = 10 + 0.5 * x * x;
    t[1][s] = 9.5 + 0.6 * x * x;
  }
  std::vector<Axis> axes = {{"a/nonblocking", segments(12)}, {"a/blocking", segments(12), 0}};
  const auto ex = relay::tune::search_exhaustive(axes, curves(t));
  const auto smgd = relay::tune::search_smgd(axes, curves(t));
  EXPECT_DOUBLE_EQ(ex.best.time_s, 9.5);
  EXPECT_DOUBLE_EQ(smgd.best.time_s, 9.5);
  int on_variant = 0;
  for (const auto& p : smgd.path) on_variant += p.axis == 1 ? 1 : 0;
  EXPECT_LE(on_variant, 3);  // its best, one step each way: no scan of its own
  // Without the variant link the variant is scanned from its largest segment like the rest.
  axes[1].variant_of = -1;
  int scanned = 0;
  for (const auto& p : relay::tune::search_smgd(axes, curves(t)).path)
    scanned += p.axis == 1 ? 1 : 0;
  EXPECT_GT(scanned, on_variant);
  // A variant of nothing, or of a variant, is refused.
  axes[1].variant_of = 5;
  EXPECT_THROW(relay::tune::search_smgd(axes, curves(t)), std::invalid_argument);
}

TEST(Search, SmgdSearchesTheVariantsOfEveryNearTie) {
  // Three algorithms within 3% of each other (a flat, noisy top); the third one's variant is
  // the best by 20%. The top two alone would miss it.
  const std::vector<std::vector<double>> t = {{10.0, 10.1}, {10.1, 10.2}, {10.3, 10.4},
                                              {20, 20},     {20, 20},     {8.0, 8.3}};
  std::vector<Axis> axes = {{"a/nb", segments(2)},   {"b/nb", segments(2)},
                            {"c/nb", segments(2)},   {"a/b", segments(2), 0},
                            {"b/b", segments(2), 1}, {"c/b", segments(2), 2}};
  relay::tune::SearchOptions o;
  EXPECT_DOUBLE_EQ(relay::tune::search_smgd(axes, curves(t), o).best.time_s, 8.0);
  o.variant_within = 1.0;  // the top two only
  EXPECT_DOUBLE_EQ(relay::tune::search_smgd(axes, curves(t), o).best.time_s, 10.0);
  o.variant_within = 1.02;  // c is 3% off: not a near tie at 2%
  EXPECT_DOUBLE_EQ(relay::tune::search_smgd(axes, curves(t), o).best.time_s, 10.0);
}

TEST(Search, SmgdUsesTheModelsShapeAndRacesAgainstTheBest) {
  // Axis 1 falls slowly and never gets within 1.2x of axis 0's best. The gradient needs two
  // points of it to prune; a model with the right shape (three times too slow) prunes it at
  // the first.
  std::vector<std::vector<double>> t(2, std::vector<double>(12));
  for (int s = 0; s < 12; ++s) {
    t[0][s] = 10 + 0.3 * (s - 8.0) * (s - 8.0);
    t[1][s] = 14 + 0.1 * s;
  }
  std::vector<std::vector<double>> model = t;
  for (auto& row : model) {
    for (auto& v : row) v *= 3;
  }
  const std::vector<Axis> axes = {{"a", segments(12)}, {"b", segments(12)}};
  std::vector<double> bounds;
  const auto shaped = relay::tune::search_smgd(axes, curves(t, nullptr, &bounds), {}, table(model));
  const auto gradient = relay::tune::search_smgd(axes, curves(t));
  EXPECT_DOUBLE_EQ(shaped.best.time_s, 10);
  EXPECT_DOUBLE_EQ(gradient.best.time_s, 10);
  int b_shaped = 0, b_gradient = 0;
  for (const auto& p : shaped.path) b_shaped += p.axis == 1 ? 1 : 0;
  for (const auto& p : gradient.path) b_gradient += p.axis == 1 ? 1 : 0;
  EXPECT_EQ(b_shaped, 1);
  EXPECT_GE(b_gradient, 2);
  // SMGD races every measurement but the first against 1.2 x the best so far; exhaustive and
  // MGD measure fully.
  ASSERT_FALSE(bounds.empty());
  EXPECT_TRUE(std::isinf(bounds.front()));
  for (std::size_t i = 1; i < bounds.size(); ++i) EXPECT_TRUE(std::isfinite(bounds[i]));
  bounds.clear();
  relay::tune::search_mgd(axes, curves(t, nullptr, &bounds));
  for (double b : bounds) EXPECT_TRUE(std::isinf(b));
}

TEST(Search, NoiseDoesNotProlongADescentOnAFlatCurve) {
  // A flat curve with 1% jitter: every other point is a "new best" by a hair.
  std::vector<std::vector<double>> t(1, std::vector<double>(14));
  for (int s = 0; s < 14; ++s) t[0][s] = 10 * (1 - 0.001 * (13 - s) + (s % 2 ? 0.01 : 0));
  const std::vector<Axis> axes = {{"flat", segments(14)}};
  relay::tune::SearchOptions exact;
  exact.noise = 0;
  const auto strict = relay::tune::search_smgd(axes, curves(t), exact);
  const auto tolerant = relay::tune::search_smgd(axes, curves(t));
  EXPECT_EQ(strict.experiments, 14);   // always finds a hair's gain: walks the whole axis
  EXPECT_EQ(tolerant.experiments, 4);  // the first, patience (2) more, and the one that ends it
  EXPECT_LE(tolerant.best.time_s, t[0][13]);
}

TEST(Search, ModelBestPrefersTheLargestSegmentAmongNearTies) {
  // Axis 0's curve is flat within 0.5% from index 1 to 4; axis 1 is unsegmented and 5% worse.
  const std::vector<std::vector<double>> model = {{12, 10.05, 10.0, 10.03, 10.04, 11}, {10.5}};
  const std::vector<Axis> axes = {{"pipeline", segments(6)}, {"mpi", {0}}};
  const auto r = relay::tune::search_model_best(axes, table(model));
  EXPECT_EQ(r.best.axis, 0);
  EXPECT_EQ(r.best.segment, 4);  // the largest within 1% of 10.0
  EXPECT_EQ(r.experiments, 0);
  EXPECT_EQ(relay::tune::search_model_best(axes, table(model), 0.0).best.segment, 2);
  // Within 6%, the unsegmented axis counts as the largest segment.
  EXPECT_EQ(relay::tune::search_model_best(axes, table(model), 0.06).best.axis, 1);
}

TEST(Search, ConfirmationPoolTakesTheFastestThenRivalAxesBest) {
  using relay::tune::Point;
  // Axis 0 holds the three fastest; axis 1's best (11) is within 1.25x of 10, axis 2's (13) is
  // not; axis 3's best (12) comes after axis 1's. A point measured twice counts once.
  const std::vector<Point> measured = {{0, 1, 10.0}, {0, 2, 10.2}, {0, 1, 10.1},
                                       {0, 3, 10.4}, {1, 0, 11.0}, {1, 1, 11.5},
                                       {3, 2, 12.0}, {2, 0, 13.0}, {0, 4, 14.0}};
  const auto pool = relay::tune::confirmation_pool(measured, 3);
  ASSERT_EQ(pool.fastest, 3);
  ASSERT_EQ(pool.points.size(), 5u);
  EXPECT_EQ(pool.points[0].segment, 1);
  EXPECT_EQ(pool.points[1].segment, 2);
  EXPECT_EQ(pool.points[2].segment, 3);
  EXPECT_EQ(pool.points[3].axis, 1);
  EXPECT_EQ(pool.points[3].segment, 0);
  EXPECT_EQ(pool.points[4].axis, 3);
  // At most `fastest` rivals; none when no other axis comes close.
  EXPECT_EQ(relay::tune::confirmation_pool(measured, 1).points.size(), 2u);
  EXPECT_EQ(relay::tune::confirmation_pool(measured, 3, 1.05).points.size(), 3u);
  EXPECT_TRUE(relay::tune::confirmation_pool({}, 3).points.empty());
  // It counts with its latest value: an estimate (9.0) measured again in full (10.9) is not
  // among the three fastest.
  EXPECT_DOUBLE_EQ(pool.points[0].time_s, 10.1);
  std::vector<Point> remeasured = measured;
  remeasured.insert(remeasured.begin(), {0, 5, 9.0});
  remeasured.push_back({0, 5, 10.9});
  const auto latest = relay::tune::confirmation_pool(remeasured, 3);
  for (int i = 0; i < latest.fastest; ++i)
    EXPECT_NE(latest.points[static_cast<std::size_t>(i)].segment, 5);
}

TEST(Search, SmgdScansInTheModelsOrderSoTheRaceBoundIsLowEarly) {
  // Axis 2 is the fastest at its largest segment and the model says so; the scan measures it
  // first, so the other two are raced against 1.2 x its time from their first measurement.
  std::vector<std::vector<double>> t = {{30, 31, 32}, {40, 41, 42}, {9, 10, 11}};
  const std::vector<Axis> axes = {{"a", segments(3)}, {"b", segments(3)}, {"c", segments(3)}};
  std::vector<double> bounds;
  const auto shaped = relay::tune::search_smgd(axes, curves(t, nullptr, &bounds), {}, table(t));
  ASSERT_GE(shaped.path.size(), 3U);
  EXPECT_EQ(shaped.path[0].axis, 2);
  EXPECT_TRUE(std::isinf(bounds[0]));
  EXPECT_DOUBLE_EQ(bounds[1], 1.2 * 11);
  EXPECT_DOUBLE_EQ(bounds[2], 1.2 * 11);
  EXPECT_DOUBLE_EQ(shaped.best.time_s, 9);
  // Without a model the scan keeps the axes' order; unpredicted axes come last.
  bounds.clear();
  relay::tune::search_smgd(axes, curves(t, nullptr, &bounds));
  EXPECT_TRUE(std::isinf(bounds[0]));
  EXPECT_DOUBLE_EQ(bounds[1], 1.2 * 32);
  const auto partial = relay::tune::search_smgd(
      axes, curves(t), {}, [&](int a, int s) { return a == 2 ? -1.0 : t[a][s]; });
  EXPECT_EQ(partial.path[0].axis, 0);
  EXPECT_EQ(partial.path[2].axis, 2);
  EXPECT_DOUBLE_EQ(partial.best.time_s, 9);
}

TEST(Search, RaceStopsAfterOneCallOnlyWhenTwoSamplesAgree) {
  using relay::tune::race_length;
  using relay::tune::race_stops;
  const double inf = relay::tune::kNoBound;
  const std::vector<double> slow = {5, 5, 5};
  // Long calls (3 planned): the warm-up and the first iteration both above the bound stop it.
  EXPECT_TRUE(race_stops(slow, 1, 5, {4}, 3));
  EXPECT_EQ(race_length(slow, 5, {4}, 3), 1U);
  // A fast warm-up (or a fast first call) is not enough evidence: the median rule, at 3.
  EXPECT_FALSE(race_stops(slow, 1, 3, {4}, 3));
  EXPECT_FALSE(race_stops(slow, 2, 3, {4}, 3));
  EXPECT_EQ(race_length(slow, 3, {4}, 3), 3U);
  // Short calls (more planned) are never judged by one: the median rule.
  const std::vector<double> slow5 = {5, 5, 5, 5, 5};
  EXPECT_FALSE(race_stops(slow5, 1, 5, {4}, 5));
  EXPECT_EQ(race_length(slow5, 5, {4}, 5), 3U);
  const std::vector<double> one_slow = {9, 2, 2, 2, 2};
  EXPECT_EQ(race_length(one_slow, 2, {4}, 5), 5U);  // one slow call of five: measured in full
  // No bound, or below it: never stops.
  EXPECT_EQ(race_length(slow5, 5, {inf}, 5), slow5.size());
  EXPECT_EQ(race_length(slow5, 5, {6}, 5), slow5.size());
  EXPECT_FALSE(race_stops(slow5, 0, 5, {4}, 5));
  EXPECT_FALSE(race_stops(slow5, 6, 5, {4}, 5));
  // Past 16 iterations the median is looked at every 8th only.
  std::vector<double> drift(40, 1.0);
  for (std::size_t i = 10; i < drift.size(); ++i) drift[i] = 3;
  EXPECT_EQ(race_length(drift, 1, {2}, 40),
            24U);  // the median of 21 or more first exceeds 2 at 21; checked at 24
}

TEST(Search, SmgdRacesADescentsNextPointAgainstItsOwnBest) {
  // One algorithm, minimum 10 at index 4; past it the patience points need not be exact.
  const std::vector<std::vector<double>> t = {{16, 14, 12, 11, 10, 13, 15, 17}};
  const std::vector<Axis> axes = {{"a", segments(8)}};
  std::vector<double> bounds;
  const auto r = relay::tune::search_smgd(axes, curves(t, nullptr, &bounds));
  EXPECT_DOUBLE_EQ(r.best.time_s, 10);
  // 17 15 13 10, then 11, 12 (patience 2) and 14 that ends it; then 10 again, exactly: it
  // was a clear gain over 13, measured roughly.
  ASSERT_EQ(r.path.size(), 8U);
  EXPECT_TRUE(std::isinf(bounds[0]));
  EXPECT_DOUBLE_EQ(bounds[1], 17 * 1.03);  // below 1.2 x 17: the descent's own best decides
  EXPECT_DOUBLE_EQ(bounds[4], 10 * 1.03);
  EXPECT_DOUBLE_EQ(bounds[5], 10 * 1.03);
  EXPECT_DOUBLE_EQ(bounds[6], 10 * 1.03);
}

TEST(Search, SmgdVariantWalkEndsOnAGainWithinTheNoise) {
  // The variant's curve is flat near the base's best (index 4): 1% steps are noise, and the
  // walk ends after one of them each way -- the price: a real 1% slope is not followed -- and
  // with noise 0 it walks on to the floor at index 0.
  const std::vector<std::vector<double>> t = {{14, 13, 12, 11, 10, 11, 12, 13},
                                              {9.6, 9.7, 9.8, 9.9, 10, 9.9, 9.8, 9.7}};
  const std::vector<Axis> axes = {{"a/nb", segments(8)}, {"a/b", segments(8), 0}};
  int variant_points = 0;
  const auto tolerant = relay::tune::search_smgd(axes, curves(t));
  for (const auto& p : tolerant.path) variant_points += p.axis == 1 ? 1 : 0;
  EXPECT_EQ(variant_points, 3);  // the start and one step each way
  relay::tune::SearchOptions exact;
  exact.noise = 0;
  const auto strict = relay::tune::search_smgd(axes, curves(t), exact);
  EXPECT_DOUBLE_EQ(strict.best.time_s, 9.6);
}

TEST(Search, RaceStopsBelowAFloorAsAboveABound) {
  using relay::tune::Race;
  using relay::tune::race_length;
  using relay::tune::race_stops;
  const double inf = relay::tune::kNoBound;
  // Long calls: the warm-up and the first call both below the floor stop it; one of them
  // above is not enough evidence.
  const std::vector<double> fast = {2, 2, 2};
  EXPECT_TRUE(race_stops(fast, 1, 2, Race{inf, 3}, 3));
  EXPECT_FALSE(race_stops(fast, 1, 4, Race{inf, 3}, 3));
  EXPECT_EQ(race_length(fast, 4, Race{inf, 3}, 3), 3U);
  // Short calls: the median of 3.
  const std::vector<double> fast5 = {2, 4, 2, 2, 2};
  EXPECT_EQ(race_length(fast5, 2, Race{inf, 3}, 5), 3U);
  // ... by their mean: one slow call among them counts (their median, 2, would stop it at 3).
  const std::vector<double> one_slow = {2, 6, 2, 2, 2};
  EXPECT_EQ(race_length(one_slow, 2, Race{inf, 3}, 5), 5U);
  // Between the floor and the bound: measured in full.
  EXPECT_EQ(race_length(fast5, 2, Race{5, 1}, 5), fast5.size());
}

TEST(Search, SmgdMeasuresAClearGainOnlyRoughlyAndItsChoiceExactly) {
  // One algorithm falling steeply to its minimum 10 at index 3: the points on the way down are
  // each clearly better than the best before them (raced against a floor: an estimate will
  // do), the minimum is too, so it is measured again, exactly, when the descent ends.
  const std::vector<std::vector<double>> t = {{13, 12, 11, 10, 20, 40, 80, 160}};
  const std::vector<Axis> axes = {{"a", segments(8)}};
  std::vector<double> bounds, floors;
  const auto r = relay::tune::search_smgd(axes, curves(t, nullptr, &bounds, &floors));
  EXPECT_DOUBLE_EQ(r.best.time_s, 10);
  EXPECT_EQ(r.best.segment, 3);
  EXPECT_EQ(r.experiments, 8);
  // 160 (the scan: exact), 80 40 20 10 (floors at 0.97 x the best before), 11 12 13 (worse:
  // raced), then 10 again with no floor.
  ASSERT_EQ(floors.size(), 9U);
  EXPECT_DOUBLE_EQ(floors[0], 0);
  EXPECT_DOUBLE_EQ(floors[1], 160 * 0.97);
  EXPECT_DOUBLE_EQ(floors[4], 20 * 0.97);
  EXPECT_DOUBLE_EQ(floors[5], 10 * 0.97);
  EXPECT_DOUBLE_EQ(floors[8], 0);
  EXPECT_EQ(r.path.back().segment, 3);
  // The floors make it cheaper than racing above a bound only.
  double exact_all = 0;
  for (int s = 0; s < 8; ++s) {
    double c = 0;
    curves(t)(0, s, {}, c);
    exact_all += c;
  }
  EXPECT_LT(r.cost_s, exact_all);
}

TEST(Search, SmgdMeasuresAgainAnEstimateThatWouldBeTheChoice) {
  // A measure whose rough estimates (stopped below a floor) read 20% low, as a lucky call can:
  // index 3 (12) reads 9.6 and looks like the minimum; the descent ends on it, measures it
  // again, exactly, and the choice is the real minimum, index 1, which the descent measured.
  const std::vector<std::vector<double>> t = {{10.5, 10, 10.2, 12, 30}};
  const std::vector<Axis> axes = {{"a", segments(5)}};
  std::vector<int> calls(5, 0);
  const relay::tune::Measure lucky = [&](int a, int s, const relay::tune::Race& race,
                                         double& cost) {
    cost = 1;
    ++calls[static_cast<std::size_t>(s)];
    return t[a][s] < race.below ? 0.8 * t[a][s] : t[a][s];
  };
  const auto r = relay::tune::search_smgd(axes, lucky);
  EXPECT_EQ(calls[3], 2);
  EXPECT_EQ(r.best.segment, 1);
  EXPECT_DOUBLE_EQ(r.best.time_s, 10);
  EXPECT_EQ(r.experiments, 5);
}

TEST(Search, ModelIsAThirdWitnessForAOneCallRace) {
  using relay::tune::Race;
  using relay::tune::race_stops;
  // Short calls (5 planned): the warm-up and the first call above the bound stop it only when
  // the model puts it there too.
  const std::vector<double> slow5 = {5, 5, 5, 5, 5};
  EXPECT_FALSE(race_stops(slow5, 1, 5, Race{4}, 5));
  EXPECT_TRUE(race_stops(slow5, 1, 5, Race{4, 0, true}, 5));
  EXPECT_FALSE(race_stops(slow5, 1, 3, Race{4, 0, true}, 5));  // a fast warm-up disagrees
  // SMGD asks it of the scan where the model's shape puts a point above the bound: axis 1 is
  // predicted (and is) 3x axis 0; axis 2 is predicted like axis 0.
  const std::vector<std::vector<double>> t = {{10, 11}, {30, 33}, {12, 13}};
  const std::vector<std::vector<double>> model = {{20, 22}, {60, 66}, {20, 22}};
  const std::vector<Axis> axes = {{"a", segments(2)}, {"b", segments(2)}, {"c", segments(2)}};
  std::vector<std::pair<int, bool>> scans;
  const relay::tune::Measure m = [&](int a, int s, const Race& race, double& cost) {
    cost = 1;
    if (s == 1) scans.emplace_back(a, race.model_above);
    return t[a][s];
  };
  relay::tune::search_smgd(axes, m, {}, table(model));
  ASSERT_EQ(scans.size(), 3U);
  EXPECT_EQ(scans[0], std::make_pair(0, false));  // the first: no bound yet
  EXPECT_EQ(scans[1], std::make_pair(2, false));
  EXPECT_EQ(scans[2], std::make_pair(1, true));
  scans.clear();
  // No model: no witness. (And b, far behind, has its floor above the bound -- 0.97 x 33
  // against 1.2 x 10: its next point, 30, is both; it is hopeless, above the bound, not an
  // estimate to measure again when the descent ends -- once, that looped forever.)
  relay::tune::search_smgd(axes, m);
  for (const auto& [a, witness] : scans) EXPECT_FALSE(witness);
}
