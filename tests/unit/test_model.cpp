// The schedule replay against hand-computed cases and the papers' closed forms on an
// alpha-beta machine: tan2014 eq. (2) (binomial) and eq. (4) (pipeline), linear, and the
// scatter-allgather bound.
#include <gtest/gtest.h>

#include <cmath>

#include "coll/bcast/bcast.hpp"
#include "model/replay.hpp"
#include "topology/tree.hpp"

using relay::coll::BcastShape;
using relay::exec::Policy;
using relay::model::Machine;
using relay::model::replay;

namespace {

relay::schedule::Schedule bcast(const char* name, BcastShape shape) {
  return relay::coll::build_bcast_schedule(*relay::coll::find_bcast_algorithm(name), shape);
}

Machine alpha_beta(double alpha, double beta) {
  Machine m;
  m.alpha_s = alpha;
  m.beta_s_per_byte = beta;
  return m;
}

constexpr double kAlpha = 20e-6;   // 20 us per message
constexpr double kBeta = 1e-8;     // 100 MB/s

}  // namespace

TEST(Model, OneMessageCostsEveryTerm) {
  Machine m = alpha_beta(kAlpha, kBeta);
  m.latency_s = 3e-6;
  m.send_overhead_s = 1e-6;
  m.recv_overhead_s = 2e-6;
  const auto s = bcast("linear", BcastShape{2, 0, 1000, 1, 0, 1});
  for (Policy policy : {Policy::blocking, Policy::nonblocking}) {
    const auto p = replay(s, policy, 4, m);
    EXPECT_DOUBLE_EQ(p.time_s, 1e-6 + kAlpha + 1000 * kBeta + 3e-6 + 2e-6);
    EXPECT_EQ(p.messages, 1);
  }
}

TEST(Model, PipelineMatchesTan2014Eq4) {
  // (n + P - 2) steps of (alpha + beta S/n): the last of n segments leaves the root after n
  // steps and crosses P - 2 more links (tan2014 writes n + P - 1 counting the processes after
  // the root as P).
  for (int P = 2; P <= 12; ++P) {
    for (int n = 1; n <= 16; ++n) {
      const std::int64_t seg = 4096;
      const auto s = bcast("pipeline", BcastShape{P, P / 2, n * seg, 1, seg, 1});
      const double expected = (n + P - 2) * (kAlpha + kBeta * static_cast<double>(seg));
      for (Policy policy : {Policy::nonblocking, Policy::blocking}) {
        const auto p = replay(s, policy, 16, alpha_beta(kAlpha, kBeta));
        EXPECT_NEAR(p.time_s, expected, 1e-12) << "P " << P << " n " << n;
      }
    }
  }
}

TEST(Model, BinomialMatchesTan2014Eq2AndLinearIsSequential) {
  const std::int64_t S = 1 << 20;
  const double hop = kAlpha + kBeta * static_cast<double>(S);
  for (int P = 1; P <= 33; ++P) {
    for (int root : {0, P / 2, P - 1}) {
      const auto b = replay(bcast("binomial", BcastShape{P, root, S, 1, 0, 1}), Policy::nonblocking,
                            16, alpha_beta(kAlpha, kBeta));
      EXPECT_NEAR(b.time_s, relay::topology::ceil_log2(P) * hop, 1e-12) << "P " << P;
      const auto l = replay(bcast("linear", BcastShape{P, root, S, 1, 0, 1}), Policy::nonblocking,
                            16, alpha_beta(kAlpha, kBeta));
      EXPECT_NEAR(l.time_s, (P - 1) * hop, 1e-12) << "P " << P;
    }
  }
}

TEST(Model, ScatterAllgatherWithinItsClosedFormAndBeatsBinomialForLargeMessages) {
  const std::int64_t S = 8 << 20;
  for (int P : {2, 4, 8, 16, 32}) {
    const double bound = relay::topology::ceil_log2(P) * kAlpha + kBeta * S * (P - 1.0) / P +
                         (P - 1) * (kAlpha + kBeta * S / P);
    const auto sa = replay(bcast("scatter_allgather", BcastShape{P, 0, S, 1, 0, 1}),
                           Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta));
    EXPECT_LE(sa.time_s, bound * (1 + 1e-12)) << "P " << P;
    // No broadcast beats sending every byte once: beta S.
    EXPECT_GE(sa.time_s, kBeta * S) << "P " << P;
    if (P >= 4) {
      const auto b = replay(bcast("binomial", BcastShape{P, 0, S, 1, 0, 1}), Policy::nonblocking,
                            16, alpha_beta(kAlpha, kBeta));
      EXPECT_LT(sa.time_s, b.time_s) << "P " << P;
    }
  }
}

TEST(Model, DetectsSchedulesThatCannotComplete) {
  relay::schedule::Schedule s;
  s.ranks.resize(2);
  s.ranks[0].add_recv(1, 0, 10);
  s.ranks[1].add_recv(0, 0, 10);
  EXPECT_THROW(replay(s, Policy::nonblocking, 4, alpha_beta(kAlpha, kBeta)), std::logic_error);
  EXPECT_THROW(replay(s, Policy::blocking, 4, alpha_beta(kAlpha, kBeta)), std::logic_error);
}
