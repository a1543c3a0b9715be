// The library's measurement and tuning without the command line: the point-to-point parameter
// measurement (measure::measure_p2p, read into a model by model::params_document), the one
// timing loop with and without a stop rule, and a small tuning session (tune::run_session) of
// a broadcast and of an allreduce, whose tables every rank agrees on and the loader accepts.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coll/table.hpp"
#include "measure/p2p_params.hpp"
#include "measure/timing.hpp"
#include "model/params.hpp"
#include "mpi_test.hpp"
#include "tune/session.hpp"

namespace {

using relay::test::all_ranks;
using relay::test::world_rank;
using relay::test::world_size;

// Every rank holds the same text.
bool same_everywhere(const std::string& text) {
  unsigned long long length = text.size(), shortest = 0, longest = 0;
  MPI_Allreduce(&length, &shortest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&length, &longest, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  if (shortest != longest) return false;
  std::string root = text;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  return all_ranks(root == text);
}

TEST(P2pParams, MeasuresEverySizeAndMakesAModel) {
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  relay::measure::P2pOptions o;
  o.sizes = {4096, 64, 0, 1024, 64};  // unsorted, a duplicate and a 0: measured as 64, 1024, 4096
  o.max_seconds = 0.02;
  o.max_samples = 20;
  o.quiet = true;
  double checked_bytes = 0;
  o.check_memory = [&](double bytes, const std::string&) { checked_bytes = bytes; };
  const auto m = relay::measure::measure_p2p(MPI_COMM_WORLD, o);
  EXPECT_TRUE(all_ranks(checked_bytes >= 4 * 4096)) << "the buffers were not announced";
  if (world_rank() == 0) {
    ASSERT_EQ(m.rows.size(), 3U);
    EXPECT_EQ(m.rows[0].bytes, 64);
    EXPECT_EQ(m.rows[2].bytes, 4096);
    for (const auto& r : m.rows) {
      EXPECT_GT(r.rtt_s, 0) << r.bytes;
      EXPECT_GE(r.latency_s, 0) << r.bytes;
      EXPECT_GT(r.rtt_samples, 0U) << r.bytes;
    }
    EXPECT_GE(m.duplex, 0);
    EXPECT_LE(m.duplex, 1);
    EXPECT_FALSE(m.combine.empty());
    const auto doc = relay::model::params_document(m, nlohmann::json::object());
    EXPECT_EQ(doc["schema"], relay::model::kParamsSchema);
    const auto machine = relay::model::machine_from_json(doc, true);
    EXPECT_EQ(machine.plogp.rows().size(), 3U);
    EXPECT_GT(machine.cost(1024).port_fixed_s + machine.cost(1024).port_work_s, 0);
  }
}

TEST(P2pParams, RefusesBadOptionsOnEveryRank) {
  relay::measure::P2pOptions o;
  o.sizes = {0};
  o.quiet = true;
  EXPECT_THROW(relay::measure::measure_p2p(MPI_COMM_WORLD, o), std::invalid_argument);
  o.sizes = {1024};
  o.peer = world_size();  // not a rank
  EXPECT_THROW(relay::measure::measure_p2p(MPI_COMM_WORLD, o), std::invalid_argument);
}

TEST(Timing, CountsAndStopsAlikeOnEveryRank) {
  relay::measure::IterationArgs args;
  args.warmup = 1;
  args.min_time_s = 0;  // the fewest iterations
  int calls = 0;
  const auto plain = relay::measure::time_iterations(MPI_COMM_WORLD, args, [&](bool) { ++calls; });
  EXPECT_EQ(plain.times_s.size(), static_cast<std::size_t>(relay::measure::kMinTimedIterations));
  EXPECT_EQ(calls, relay::measure::kMinTimedIterations + 1);
  EXPECT_TRUE(plain.walls_s.empty());
  args.iterations = 9;
  const auto stopped = relay::measure::time_iterations(
      MPI_COMM_WORLD, args, [](bool) {},
      [](const std::vector<double>& times_s, double, std::size_t) { return times_s.size() == 3; });
  EXPECT_EQ(stopped.planned, 9U);
  EXPECT_EQ(stopped.times_s.size(), 3U);
  EXPECT_EQ(stopped.walls_s.size(), 3U);
  EXPECT_TRUE(stopped.stopped_early);
  EXPECT_TRUE(same_everywhere(nlohmann::json(stopped.times_s).dump() +
                              nlohmann::json(stopped.walls_s).dump()));
}

relay::tune::SessionOptions small_session() {
  relay::tune::SessionOptions o;
  o.policies = {"nonblocking"};
  o.segments = {1024};
  o.methods = {"exhaustive", "mgd"};
  o.table_method = "mgd";
  o.min_time_s = 0.001;
  o.confirm = 2;
  o.confirm_rounds = 2;
  o.quiet = true;
  return o;
}

TEST(TuneSession, BroadcastTableAgreedAndLoadable) {
  auto o = small_session();
  o.algorithms = {"binomial", "pipeline"};
  o.sizes = {4096, 16384};
  std::vector<std::int64_t> reported;
  relay::tune::SessionEvents events;
  events.size_done = [&](const nlohmann::json& size) {
    reported.push_back(size["size_bytes"].get<std::int64_t>());
  };
  EXPECT_FALSE(relay::tune::needs_model(o, world_size()));
  const auto result = relay::tune::run_session(MPI_COMM_WORLD, o, events);
  EXPECT_EQ(reported, (std::vector<std::int64_t>{4096, 16384}));
  EXPECT_EQ(result.results["schema"], "relay.tune/1");
  EXPECT_EQ(result.results["operation"], "bcast");
  EXPECT_EQ(result.results["sizes"].size(), 2U);
  for (const auto& size : result.results["sizes"]) {
    ASSERT_EQ(size["methods"].size(), 2U);
    EXPECT_EQ(size["methods"][0]["method"], "exhaustive");
    EXPECT_GT(size["methods"][0]["experiments"].get<int>(), 0);
  }
  ASSERT_FALSE(result.table.rules.empty());
  for (const auto& rule : result.table.rules) {
    EXPECT_EQ(rule.operation, "bcast");
    EXPECT_EQ(rule.min_ranks, world_size());
    EXPECT_TRUE(rule.choice.algorithm == "binomial" || rule.choice.algorithm == "pipeline")
        << rule.choice.algorithm;
  }
  const auto text = result.table.to_json().dump();
  EXPECT_NO_THROW(relay::coll::Table::from_json(nlohmann::json::parse(text)));
  // The table only: the results carry each rank's own measured times, agreed but not verbatim.
  EXPECT_TRUE(same_everywhere(nlohmann::json(result.table.rules.size()).dump() +
                              result.table.rules.front().choice.algorithm));
}

TEST(TuneSession, AllreduceWithModelForOtherRankCounts) {
  if (world_size() < 2) GTEST_SKIP() << "the quick model measurement needs 2 ranks";
  auto o = small_session();
  o.collective = relay::coll::Collective::allreduce;
  o.algorithms = {"ring", "recursive_doubling"};
  o.sizes = {8192};
  o.predict_ranks = {world_size(), 16};  // its own count is measured, not predicted
  ASSERT_TRUE(relay::tune::needs_model(o, world_size()));
  bool measured_model = false;
  relay::tune::SessionEvents events;
  events.model_measured = [&](double seconds) { measured_model = seconds > 0; };
  const auto result = relay::tune::run_session(MPI_COMM_WORLD, o, events);
  EXPECT_TRUE(all_ranks(measured_model));
  EXPECT_EQ(result.results["operation"], "allreduce");
  EXPECT_EQ(result.results["model"], "measured by relay tune (quick)");
  bool predicted_16 = false;
  for (const auto& rule : result.table.rules) {
    EXPECT_EQ(rule.operation, "allreduce");
    if (rule.min_ranks == 16) predicted_16 = rule.source == "model";
  }
  EXPECT_TRUE(predicted_16) << "no model rule for 16 ranks";
}

TEST(TuneSession, RefusesWhatCannotRun) {
  auto o = small_session();
  o.algorithms = {"binomial"};
  o.sizes = {4096};
  o.table_method = "smgd";  // not among the methods
  EXPECT_THROW(relay::tune::run_session(MPI_COMM_WORLD, o), std::invalid_argument);
  o.table_method = "mgd";
  o.root = world_size();
  EXPECT_THROW(relay::tune::run_session(MPI_COMM_WORLD, o), std::invalid_argument);
}

}  // namespace
