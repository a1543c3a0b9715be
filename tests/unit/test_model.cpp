// The schedule replay against hand-computed cases and the papers' closed forms on an
// alpha-beta machine: tan2014 eq. (2) (binomial) and eq. (4) (pipeline), linear, and the
// scatter-allgather bound.
#include <gtest/gtest.h>

#include <cmath>

#include "coll/registry.hpp"
#include "model/replay.hpp"
#include "shapes.hpp"
#include "topology/tree.hpp"

using relay::coll::Shape;
using relay::model::Machine;
using relay::model::replay;
using relay::schedule::Policy;
using relay::test::bcast_shape;

namespace {

relay::schedule::Schedule bcast(const char* name, Shape shape) {
  return relay::coll::build_schedule(
      *relay::coll::find_algorithm(relay::coll::Collective::bcast, name), shape);
}

Machine alpha_beta(double alpha, double beta) {
  Machine m;
  m.alpha_s = alpha;
  m.beta_s_per_byte = beta;
  return m;
}

constexpr double kAlpha = 20e-6;  // 20 us per message
constexpr double kBeta = 1e-8;    // 100 MB/s

}  // namespace

TEST(Model, OneMessageCostsEveryTerm) {
  Machine m = alpha_beta(kAlpha, kBeta);
  m.latency_s = 3e-6;
  m.send_overhead_s = 1e-6;
  m.recv_overhead_s = 2e-6;
  const auto s = bcast("linear", bcast_shape(2, 0, 1000, 1, 0, 1));
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
      const auto s = bcast("pipeline", bcast_shape(P, P / 2, n * seg, 1, seg, 1));
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
      const auto b = replay(bcast("binomial", bcast_shape(P, root, S, 1, 0, 1)),
                            Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta));
      EXPECT_NEAR(b.time_s, relay::topology::ceil_log2(P) * hop, 1e-12) << "P " << P;
      const auto l = replay(bcast("linear", bcast_shape(P, root, S, 1, 0, 1)), Policy::nonblocking,
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
    const auto sa = replay(bcast("scatter_allgather", bcast_shape(P, 0, S, 1, 0, 1)),
                           Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta));
    EXPECT_LE(sa.time_s, bound * (1 + 1e-12)) << "P " << P;
    // No broadcast beats sending every byte once: beta S.
    EXPECT_GE(sa.time_s, kBeta * S) << "P " << P;
    if (P >= 4) {
      const auto b = replay(bcast("binomial", bcast_shape(P, 0, S, 1, 0, 1)), Policy::nonblocking,
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

TEST(Model, ScatterAllgatherTwoRanksWithinItsClosedForm) {
  // P = 2: the scatter moves one half (alpha + beta S/2), the ring one more half at most.
  const std::int64_t S = 1 << 20;
  const auto sa = replay(bcast("scatter_allgather", bcast_shape(2, 0, S, 1, 0, 1)),
                         Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta));
  const double closed = 1 * kAlpha + kBeta * S / 2.0 + 1 * (kAlpha + kBeta * S / 2.0);
  EXPECT_LE(sa.time_s, closed * (1 + 1e-12));
  EXPECT_GE(sa.time_s, kAlpha + kBeta * S / 2.0);
}

TEST(Model, SharedLinkHalvesTheForwardingRanksRate) {
  // tan2014 IV.B: when a forwarding rank's send and receive split one link evenly, the
  // pipeline's steady state takes two units per segment instead of one.
  const std::int64_t seg = 65536;
  const int n = 64;
  for (int P : {3, 5, 8}) {
    const auto s = bcast("pipeline", bcast_shape(P, 0, n * seg, 1, seg, 1));
    Machine full = alpha_beta(0, kBeta);
    Machine half = full;
    half.duplex = 0;
    const double t_full = replay(s, Policy::nonblocking, 16, full).time_s;
    const double t_half = replay(s, Policy::nonblocking, 16, half).time_s;
    const double unit = kBeta * seg;
    EXPECT_NEAR(t_full, (n + P - 2) * unit, 1e-12);
    EXPECT_GT(t_half, 1.9 * n * unit) << "P " << P;
    EXPECT_LT(t_half, (2 * n + 2 * P) * unit) << "P " << P;
  }
  // Two ranks: nobody forwards, so sharing changes nothing.
  const auto two = bcast("pipeline", bcast_shape(2, 0, n * seg, 1, seg, 1));
  Machine half = alpha_beta(kAlpha, kBeta);
  half.duplex = 0;
  EXPECT_NEAR(replay(two, Policy::nonblocking, 16, half).time_s, n * (kAlpha + kBeta * seg), 1e-12);
}

TEST(Model, PerPeerByteBudgetSerialisesIssueOverheads) {
  // Four 64 KiB segments to one peer, os = 1 us, port time 10 us. With the executor's 64 KiB
  // budget the next send is issued only when the previous one has left: 4 x (1 + 10) us. With
  // an unlimited budget the issues overlap the transfers: 1 + 4 x 10 us.
  Machine m = alpha_beta(10e-6, 0);
  m.send_overhead_s = 1e-6;
  const auto s = bcast("pipeline", bcast_shape(2, 0, 4 * 65536, 1, 65536, 1));
  EXPECT_NEAR(replay(s, Policy::nonblocking, {16, 65536}, m).time_s, 44e-6, 1e-12);
  EXPECT_NEAR(replay(s, Policy::nonblocking, {16, 1 << 30}, m).time_s, 41e-6, 1e-12);
}

TEST(Model, PlogpTableCostsPerSize) {
  // os, or, g, L from a table: g's smallest value is the fixed port part, the rest moves at
  // the link rate; between rows values are interpolated.
  using relay::model::PlogpRow;
  using relay::model::PlogpTable;
  Machine m;
  m.plogp = PlogpTable({{1, 1e-6, 2e-6, 4e-6, 3e-6}, {1025, 3e-6, 4e-6, 104e-6, 5e-6}});
  const auto c = m.cost(513);
  EXPECT_NEAR(c.send_overhead_s, 2e-6, 1e-15);
  EXPECT_NEAR(c.recv_overhead_s, 3e-6, 1e-15);
  EXPECT_NEAR(c.port_fixed_s, 4e-6, 1e-15);
  EXPECT_NEAR(c.port_work_s, 50e-6, 1e-15);
  EXPECT_NEAR(c.latency_s, 4e-6, 1e-15);
  // Beyond the last row g grows with the last slope (100 us per KiB).
  EXPECT_NEAR(m.cost(2049).port_work_s, 200e-6, 1e-12);
  const auto s = bcast("linear", bcast_shape(2, 0, 513, 1, 0, 1));
  EXPECT_NEAR(replay(s, Policy::blocking, 4, m).time_s, 2e-6 + 4e-6 + 50e-6 + 4e-6 + 3e-6, 1e-12);
  EXPECT_THROW(PlogpTable({{1, -1, 0, 0, 0}}), std::invalid_argument);
  EXPECT_THROW(PlogpTable({{1, 0, 0, 0, 0}, {1, 0, 0, 0, 0}}), std::invalid_argument);
}

TEST(Model, RendezvousMessagesWaitForTheHandshake) {
  // A control message costs the smallest row end to end: 1 + 2 + 1 + 1 = 5 us; a rendezvous
  // message (above the 1 KiB eager limit) waits for two of them before its data moves.
  using relay::model::PlogpTable;
  Machine m;
  m.plogp = PlogpTable({{1, 1e-6, 1e-6, 2e-6, 1e-6}, {1 << 20, 1e-6, 1e-6, 2e-6 + 1e-3, 1e-6}});
  m.eager_limit_bytes = 1024;
  EXPECT_DOUBLE_EQ(m.cost(1024).handshake_s, 0);
  EXPECT_DOUBLE_EQ(m.cost(1025).handshake_s, 10e-6);
  const double g = m.cost(4096).port_fixed_s + m.cost(4096).port_work_s;
  const auto one = bcast("linear", bcast_shape(2, 0, 4096, 1, 0, 1));
  for (Policy policy : {Policy::blocking, Policy::nonblocking}) {
    EXPECT_NEAR(replay(one, policy, 4, m).time_s, 1e-6 + 10e-6 + g + 1e-6 + 1e-6, 1e-12);
  }
  // Eight segments to one peer: a blocking sender waits for each handshake in turn, a
  // nonblocking one has them in flight together while the ports move the data.
  const auto eight = bcast("linear", bcast_shape(2, 0, 8 * 4096, 1, 4096, 1));
  const relay::model::ReplayLimits unlimited{16, 1 << 30};
  EXPECT_NEAR(replay(eight, Policy::blocking, unlimited, m).time_s, 8 * (1e-6 + 10e-6 + g) + 2e-6,
              1e-12);
  EXPECT_NEAR(replay(eight, Policy::nonblocking, unlimited, m).time_s, 1e-6 + 10e-6 + 8 * g + 2e-6,
              1e-12);
  m.eager_limit_bytes = -1;  // every message eager
  EXPECT_NEAR(replay(eight, Policy::blocking, unlimited, m).time_s, 8 * (1e-6 + g) + 2e-6, 1e-12);
}

TEST(Model, TransferSlotsShareTheRateOfConcurrentTransfers) {
  // A pipeline over 8 ranks keeps 7 hops busy at once; on a machine that moves only 2 at full
  // rate (2 cores copying), its steady state takes 7/2 units per segment instead of one.
  const std::int64_t seg = 65536;
  const int n = 64, P = 8;
  const auto s = bcast("pipeline", bcast_shape(P, 0, n * seg, 1, seg, 1));
  Machine free = alpha_beta(0, kBeta);
  Machine two = free;
  two.transfer_slots = 2;
  Machine seven = free;
  seven.transfer_slots = 7;
  const double unit = kBeta * seg;
  const double t_free = replay(s, Policy::nonblocking, 16, free).time_s;
  const double t_two = replay(s, Policy::nonblocking, 16, two).time_s;
  EXPECT_NEAR(t_free, (n + P - 2) * unit, 1e-12);
  EXPECT_NEAR(replay(s, Policy::nonblocking, 16, seven).time_s, t_free, 1e-12);  // never binds
  EXPECT_GT(t_two, 3.5 * n * unit * 0.999);
  EXPECT_LT(t_two, (3.5 * n + P) * unit);
  // With a per-message cost, the limit moves the best segment size up: more segments buy
  // concurrency the machine does not have.
  auto best_segment = [&](const Machine& m) {
    std::int64_t best = 0;
    double best_t = 1e300;
    for (std::int64_t sg = 4096; sg <= n * seg; sg *= 2) {
      const double t = replay(bcast("pipeline", bcast_shape(P, 0, n * seg, 1, sg, 1)),
                              Policy::nonblocking, 16, m)
                           .time_s;
      if (t < best_t) best_t = t, best = sg;
    }
    return best;
  };
  Machine free_a = alpha_beta(kAlpha, kBeta), two_a = free_a;
  two_a.transfer_slots = 2;
  EXPECT_GT(best_segment(two_a), best_segment(free_a));
}

TEST(Model, SharedLinkSplitsASendersBandwidthAmongItsMessages) {
  // A binomial broadcast of m on 4 ranks, unsegmented, nonblocking: the root posts its sends to
  // ranks 2 and 1 at once. One port: they go one after the other (the first child has it after
  // one transfer, u, and forwards at once: 2u in all). A shared link: both take 2u, then rank
  // 1's forward to rank 3 another u: 3u. Blocking sends one at a time either way: 2u.
  const std::int64_t m_bytes = 1 << 20;
  const auto s = bcast("binomial", bcast_shape(4, 0, m_bytes, 1, 0, 1));
  Machine port = alpha_beta(0, kBeta);
  Machine link = port;
  link.shared_link = true;
  const double u = kBeta * m_bytes;
  EXPECT_NEAR(replay(s, Policy::nonblocking, 16, port).time_s, 2 * u, 1e-12);
  EXPECT_NEAR(replay(s, Policy::nonblocking, 16, link).time_s, 3 * u, 1e-12);
  EXPECT_NEAR(replay(s, Policy::blocking, 16, link).time_s, 2 * u, 1e-12);
  // A pipeline has one message per link at a time: the same either way.
  const auto chain = bcast("pipeline", bcast_shape(8, 0, 64 * 65536, 1, 65536, 1));
  EXPECT_NEAR(replay(chain, Policy::nonblocking, 16, link).time_s,
              replay(chain, Policy::nonblocking, 16, port).time_s, 1e-12);
  // The latency part of a message holds no bandwidth on a shared link: two messages of alpha
  // plus u each, posted together, end at alpha + 2u (one port: alpha + u, then again: 2 alpha +
  // 2u).
  Machine link_a = alpha_beta(kAlpha, kBeta);
  link_a.shared_link = true;
  const auto two = bcast("linear", bcast_shape(3, 0, m_bytes, 1, 0, 1));
  EXPECT_NEAR(replay(two, Policy::nonblocking, 16, link_a).time_s, kAlpha + 2 * u, 1e-12);
  EXPECT_NEAR(replay(two, Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta)).time_s,
              2 * kAlpha + 2 * u, 1e-12);
}

TEST(Model, ParameterFileRoundTripAndErrors) {
  nlohmann::json doc = {
      {"schema", relay::model::kParamsSchema},
      {"hockney", {{"alpha_s", 5e-6}, {"beta_s_per_byte", 1e-9}}},
      {"duplex", 0.5},
      {"plogp",
       {{{"bytes", 1}, {"os_s", 1e-6}, {"or_s", 1e-6}, {"g_s", 2e-6}, {"latency_s", 1e-6}}}}};
  const auto m = relay::model::machine_from_json(doc, true);
  EXPECT_DOUBLE_EQ(m.alpha_s, 5e-6);
  EXPECT_DOUBLE_EQ(m.duplex, 0.5);
  EXPECT_FALSE(m.plogp.empty());
  EXPECT_TRUE(relay::model::machine_from_json(doc, false).plogp.empty());
  // The eager limit: a rendezvous above it; at or past the table's largest size (every size
  // measured was eager) no limit; with the Hockney fit none either (no control message cost).
  EXPECT_EQ(m.eager_limit_bytes, -1);
  auto eager = doc;
  eager["plogp"].push_back(
      {{"bytes", 4096}, {"os_s", 1e-6}, {"or_s", 1e-6}, {"g_s", 4e-6}, {"latency_s", 1e-6}});
  eager["eager_limit_bytes"] = 1024;
  EXPECT_EQ(relay::model::machine_from_json(eager, true).eager_limit_bytes, 1024);
  EXPECT_EQ(relay::model::machine_from_json(eager, false).eager_limit_bytes, -1);
  eager["eager_limit_bytes"] = 4096;
  EXPECT_EQ(relay::model::machine_from_json(eager, true).eager_limit_bytes, -1);
  for (const nlohmann::json& wrong :
       {nlohmann::json(-1), nlohmann::json(1.5), nlohmann::json("64KiB")}) {
    eager["eager_limit_bytes"] = wrong;
    EXPECT_THROW(relay::model::machine_from_json(eager, true), std::runtime_error) << wrong;
  }
  auto bad = doc;
  bad["hockney"]["alpha_s"] = "fast";
  EXPECT_THROW(relay::model::machine_from_json(bad, true), std::runtime_error);
  bad = doc;
  bad["schema"] = "something else";
  EXPECT_THROW(relay::model::machine_from_json(bad, true), std::runtime_error);
  EXPECT_DOUBLE_EQ(m.transfer_slots, 0);  // absent: no limit
  auto slots = doc;
  slots["transfer_slots"] = 2.5;
  EXPECT_DOUBLE_EQ(relay::model::machine_from_json(slots, true).transfer_slots, 2.5);
  slots["transfer_slots"] = 0.5;
  EXPECT_THROW(relay::model::machine_from_json(slots, true), std::runtime_error);
  bad = doc;
  bad["plogp"][0]["bytes"] = 1.5;
  EXPECT_THROW(relay::model::machine_from_json(bad, true), std::runtime_error);
  EXPECT_FALSE(m.shared_link);  // absent: one port
  auto sends = doc;
  sends["sends_to_two_peers"] = "shared_link";
  EXPECT_TRUE(relay::model::machine_from_json(sends, true).shared_link);
  sends["sends_to_two_peers"] = "one_at_a_time";
  EXPECT_FALSE(relay::model::machine_from_json(sends, false).shared_link);
  sends["sends_to_two_peers"] = "fair";
  EXPECT_THROW(relay::model::machine_from_json(sends, true), std::runtime_error);
  EXPECT_TRUE(m.combine.empty());  // absent: combines are free
  auto combine = doc;
  combine["combine"]["rows"] =
      nlohmann::json::array({{{"bytes", 1024}, {"s", 1e-6}}, {{"bytes", 2048}, {"s", 3e-6}}});
  const auto c = relay::model::machine_from_json(combine, false);  // with the Hockney fit too
  EXPECT_DOUBLE_EQ(c.combine.at(1536), 2e-6);                      // interpolated
  EXPECT_DOUBLE_EQ(c.combine.at(4096), 7e-6);                      // the last slope beyond
  EXPECT_DOUBLE_EQ(c.combine.at(512), 1e-6);                       // the first row below
  EXPECT_DOUBLE_EQ(c.combine.at(0), 0);
  combine["combine"]["rows"][1]["s"] = -1;
  EXPECT_THROW(relay::model::machine_from_json(combine, true), std::runtime_error);
  combine["combine"]["rows"][1]["s"] = 3e-6;
  combine["combine"]["rows"][1]["bytes"] = 1024;  // two rows of one size
  EXPECT_THROW(relay::model::machine_from_json(combine, true), std::runtime_error);
  combine["combine"]["rows"] = "none";
  EXPECT_THROW(relay::model::machine_from_json(combine, true), std::runtime_error);
}

// The other collectives are costed from the same registry schedules (relay model predict
// --operation): rings on a full-duplex alpha-beta machine take (P - 1) steps per phase, each
// of one block (combines cost nothing on this machine: it has no combine table).
TEST(Model, RingAllgatherAndAllreduceMatchTheirClosedForms) {
  using relay::coll::Collective;
  for (int P : {2, 3, 5, 8}) {
    relay::coll::Shape shape;
    shape.size = P;
    shape.elem_bytes = 8;
    shape.bytes = 8 * 1000;  // allgather: 1000 elements per block
    shape.blocks = true;
    const auto gather = relay::coll::build_schedule(
        *relay::coll::find_algorithm(Collective::allgather, "ring"), shape);
    const double block = kAlpha + kBeta * 8000;
    EXPECT_NEAR(replay(gather, Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta)).time_s,
                (P - 1) * block, 1e-12)
        << "allgather ring, P " << P;
    shape.blocks = false;
    shape.bytes = 8 * 1000 * P;  // allreduce: the vector, P blocks of 1000 elements
    const auto reduce = relay::coll::build_schedule(
        *relay::coll::find_algorithm(Collective::allreduce, "ring"), shape);
    EXPECT_NEAR(replay(reduce, Policy::nonblocking, 16, alpha_beta(kAlpha, kBeta)).time_s,
                2 * (P - 1) * block, 1e-12)
        << "allreduce ring, P " << P;
  }
}

// Combines keep their rank's CPU busy: in ring allreduce each of the P - 1 reduce-scatter steps
// combines the received block before the next send can read it, so the time grows by (P - 1)
// combines of one block in both policies; a two-rank reduce ends with the root's one combine.
TEST(Model, CombineCostsLieOnTheCriticalPath) {
  using relay::coll::Collective;
  constexpr double kGamma = 2e-9;  // seconds per byte combined
  Machine m = alpha_beta(kAlpha, kBeta);
  m.combine = relay::model::CpuCostTable({{8000, 8000 * kGamma}, {16000, 16000 * kGamma}});
  for (int P : {2, 3, 5, 8}) {
    relay::coll::Shape shape;
    shape.size = P;
    shape.elem_bytes = 8;
    shape.bytes = 8 * 1000 * P;
    const auto ring = relay::coll::build_schedule(
        *relay::coll::find_algorithm(Collective::allreduce, "ring"), shape);
    const double block = kAlpha + kBeta * 8000;
    for (Policy policy : {Policy::blocking, Policy::nonblocking}) {
      EXPECT_NEAR(replay(ring, policy, 16, m).time_s, 2 * (P - 1) * block + (P - 1) * 8000 * kGamma,
                  1e-12)
          << "allreduce ring, P " << P
          << (policy == Policy::blocking ? " blocking" : " nonblocking");
    }
  }
  relay::coll::Shape two;
  two.size = 2;
  two.elem_bytes = 8;
  two.bytes = 8 * 1000;
  const auto reduce = relay::coll::build_schedule(
      *relay::coll::find_algorithm(Collective::reduce, "binomial"), two);
  for (Policy policy : {Policy::blocking, Policy::nonblocking}) {
    EXPECT_NEAR(replay(reduce, policy, 16, m).time_s, kAlpha + kBeta * 8000 + 8000 * kGamma, 1e-12);
  }
}
