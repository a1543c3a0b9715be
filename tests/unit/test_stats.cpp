// Statistics of timings: median, quantiles, spread, the relative line fit and the paired
// comparison of configurations measured in rounds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "measure/stats.hpp"

using relay::measure::fit_line_relative;
using relay::measure::median;
using relay::measure::paired_relative;
using relay::measure::quantile;
using relay::measure::relative_spread;

TEST(Stats, MedianOddEvenEmpty) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(median({}), 0);
}

TEST(Stats, QuantileAndSpread) {
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.0), 1);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 1.0), 5);
  EXPECT_DOUBLE_EQ(quantile({1, 2, 3, 4, 5}, 0.25), 2);
  // One huge outlier does not move the interquartile spread much.
  EXPECT_NEAR(relative_spread({10, 10, 10, 10, 1000}), 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(relative_spread({5}), 0);
}

TEST(Stats, FitLineRelativeRecoversExactLine) {
  std::vector<double> x = {1, 10, 100, 1000}, y;
  for (double v : x) y.push_back(2e-6 + 3e-9 * v);
  double a = 0, b = 0;
  ASSERT_TRUE(fit_line_relative(x, y, a, b));
  EXPECT_NEAR(a, 2e-6, 1e-12);
  EXPECT_NEAR(b, 3e-9, 1e-15);
  EXPECT_FALSE(fit_line_relative({1, 1}, {2, 3}, a, b));  // no distinct x
}

TEST(Stats, PairedRelativeCancelsDriftBetweenRounds) {
  // Configuration 1 is really 10% slower than 0 and 2; the machine's speed drifts by 2x
  // between rounds, which makes raw medians of the rounds useless for a 10% question.
  const std::vector<double> drift = {1.0, 2.0, 1.0, 1.7, 1.2, 2.0, 1.1};
  std::vector<std::vector<double>> t(3);
  for (double d : drift) {
    t[0].push_back(100 * d);
    t[1].push_back(110 * d);
    t[2].push_back(100 * d);
  }
  const auto rel = paired_relative(t).relative;
  ASSERT_EQ(rel.size(), 3u);
  EXPECT_NEAR(rel[1] / rel[0], 1.10, 1e-12);
  EXPECT_NEAR(rel[2] / rel[0], 1.00, 1e-12);
  // One round in which configuration 0 alone was disturbed does not change its rank.
  t[0][3] *= 3;
  const auto rel2 = paired_relative(t).relative;
  EXPECT_NEAR(rel2[1] / rel2[0], 1.10, 1e-12);
  EXPECT_TRUE(paired_relative({}).relative.empty());
}

TEST(Stats, InterleavedRoundsMeasureEachOncePerRoundInShuffledOrders) {
  std::vector<std::size_t> visits;
  const auto t = relay::measure::interleaved_rounds(4, 3, 7, [&](std::size_t c) {
    visits.push_back(c);
    return static_cast<double>(c) + 0.5;
  });
  ASSERT_EQ(t.size(), 4u);
  for (std::size_t c = 0; c < 4; ++c)
    EXPECT_EQ(t[c], std::vector<double>(3, static_cast<double>(c) + 0.5));
  ASSERT_EQ(visits.size(), 12u);
  for (int r = 0; r < 3; ++r) {  // every round visits every configuration once
    std::vector<std::size_t> round(visits.begin() + 4 * r, visits.begin() + 4 * r + 4);
    std::sort(round.begin(), round.end());
    EXPECT_EQ(round, (std::vector<std::size_t>{0, 1, 2, 3}));
  }
  // The same seed gives the same orders (every rank agrees).
  std::vector<std::size_t> again;
  relay::measure::interleaved_rounds(4, 3, 7, [&](std::size_t c) {
    again.push_back(c);
    return 0.0;
  });
  EXPECT_EQ(again, visits);
}
