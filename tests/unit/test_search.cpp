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
// shrink (more messages), as on a real machine.
relay::tune::Measure curves(const std::vector<std::vector<double>>& t, int* calls = nullptr) {
  return [t, calls](int a, int s, double& cost) {
    if (calls != nullptr) ++*calls;
    cost = t[a][s] * (1.0 + 10.0 / (1 + s));
    return t[a][s];
  };
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
    t[0][s] = 10 + 0.2 * x * x;             // best: minimum 10 at index 6
    t[1][s] = 30 + 0.2 * x * x;             // 3x worse everywhere
    t[2][s] = 11 + 0.1 * (s - 9) * (s - 9); // close competitor, minimum at 9
    t[3][s] = 50 - s;                       // falls steadily but stays far behind
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
  const auto g = relay::tune::search_model_guided(axes, curves(model), curves(t, &calls), o);
  EXPECT_EQ(calls, 2);
  EXPECT_DOUBLE_EQ(g.best.time_s, 4);
  EXPECT_THROW(relay::tune::search_mgd({}, curves(t)), std::invalid_argument);
}
