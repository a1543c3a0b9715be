// The library's measurement and tuning without the command line: the point-to-point parameter
// measurement (measure::measure_p2p, read into a model by model::params_document), the one
// timing loop with and without a stop rule, and a small tuning session (tune::run_session) of
// a broadcast and of an allreduce, whose tables every rank agrees on and the loader accepts;
// the benchmarks' sweep, its confirmation and the judgement of the model's picks
// (measure/sweep, tune/model_accuracy) on a scripted "measurement".
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "coll/table.hpp"
#include "measure/p2p_params.hpp"
#include "measure/sweep.hpp"
#include "measure/timing.hpp"
#include "model/params.hpp"
#include "mpi_test.hpp"
#include "tune/model_accuracy.hpp"
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

// A scripted measurement: a configuration's time is its segment in KiB plus its round (how
// often it has been measured), the same on every rank, so that every result is known.
struct Script {
  int calls = 0;
  std::vector<std::string> seen;
  nlohmann::json operator()(const relay::measure::SweepConfig& c, std::int64_t bytes) {
    ++calls;
    seen.push_back(c.algorithm + "/" + std::to_string(c.segment_bytes));
    const double us = static_cast<double>(c.segment_bytes) / 1024 +
                      (c.algorithm == "auto" ? 0.5 : 0.0) +
                      static_cast<double>(std::count(seen.begin(), seen.end(), seen.back()) - 1);
    return {{"algorithm", c.algorithm},
            {"policy", c.policy},
            {"segment_bytes", c.segment_bytes},
            {"size_bytes", bytes},
            {"avg_us", us},
            {"min_us", us},
            {"max_us", us},
            {"iterations", 1}};
  }
};

TEST(Sweep, RoundsInTheirOwnOrderCombinedByMedian) {
  const std::vector<relay::measure::SweepConfig> configs = {
      {"a", "blocking", 4096}, {"b", "blocking", 1024}, {"c", "blocking", 2048}};
  Script script;
  const auto measured = relay::measure::measure_sweep(
      MPI_COMM_WORLD, 3, true, configs, {64, 128},
      [&](const relay::measure::SweepConfig& c, std::int64_t b) { return script(c, b); });
  EXPECT_EQ(script.calls, 3 * 3 * 2);
  ASSERT_EQ(measured.size(), 6u);
  // Configuration b at 128 bytes: measured in rounds 0, 1, 2 as 1+1, 1+3, 1+5 (its second size
  // follows its first each round): the median of the rounds is 4.
  const nlohmann::json b = relay::measure::combine_rounds(measured[1 * 2 + 1]);
  EXPECT_DOUBLE_EQ(b["avg_us"].get<double>(), 4.0);
  EXPECT_EQ(b["iterations"].get<int>(), 3);
  EXPECT_EQ(b["round_avg_us"].size(), 3u);
  // Not every round in the same order.
  const std::vector<std::string> r0(script.seen.begin(), script.seen.begin() + 6),
      r1(script.seen.begin() + 6, script.seen.begin() + 12),
      r2(script.seen.begin() + 12, script.seen.end());
  EXPECT_FALSE(r0 == r1 && r1 == r2);
  // A failed round fails the row.
  EXPECT_TRUE(relay::measure::combine_rounds({b, {{"error", "x"}}}).contains("error"));
}

TEST(Sweep, ConfirmationTakesTheFastestAndAuto) {
  const std::vector<relay::measure::SweepConfig> configs = {
      {"a", "blocking", 4096}, {"b", "blocking", 1024}, {"auto", "-", 8192}, {"c", "-", 2048}};
  std::vector<nlohmann::json> sweep_rows;
  Script first;
  for (const auto& c : configs) sweep_rows.push_back(first(c, 64));
  Script again;
  const auto confirmed = relay::measure::confirm_fastest(
      MPI_COMM_WORLD, 2, 3, true, configs, 64, sweep_rows,
      [&](const relay::measure::SweepConfig& c, std::int64_t b) { return again(c, b); });
  EXPECT_TRUE(confirmed.includes_auto);
  ASSERT_EQ(confirmed.rows.size(), 3u);  // b and c (the fastest two), and auto
  EXPECT_EQ(again.calls, 3 * 3);
  EXPECT_EQ(confirmed.rows[0]["algorithm"], "b");
  EXPECT_EQ(confirmed.rows[1]["algorithm"], "c");
  EXPECT_EQ(confirmed.rows[2]["algorithm"], "auto");
  EXPECT_DOUBLE_EQ(confirmed.rows[0]["x_best"].get<double>(), 1.0);
  // Paired: every round is 1 us slower than the last for all alike, which cancels: b is
  // (1 + r) / (2 + r) of the round's median (c) in round r, so its median ratio is 2/3.
  EXPECT_NEAR(confirmed.rows[0]["relative_to_round"].get<double>(), 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(confirmed.rows[2]["sweep_avg_us"].get<double>(), 8.5);
}

TEST(ModelAccuracy, PicksTheLargestSegmentWithinOnePercentAndTheLowestOverall) {
  const std::vector<relay::measure::SweepConfig> configs = {
      {"pipeline", "blocking", 8192}, {"pipeline", "blocking", 65536}, {"pipeline", "blocking", 0},
      {"binomial", "blocking", 0},    {"binomial", "blocking", 65536}, {"mpi", "-", 0}};
  // predicted, measured
  const double figures[][2] = {{100, 90}, {100.5, 95}, {150, 80}, {60, 70}, {61, 75}, {0, 50}};
  std::vector<nlohmann::json> rows;
  for (const auto& f : figures) rows.push_back({{"avg_us", f[1]}, {"predicted_us", f[0]}});
  rows[5].erase("predicted_us");  // the model does not cost MPI's own
  const std::vector<bool> modelled = {true, true, true, true, true, true};
  Script again;
  const auto judged = relay::tune::judge_model(
      MPI_COMM_WORLD, configs, 1 << 20, rows, modelled, 1, 2, true,
      [&](const relay::measure::SweepConfig& c, std::int64_t b) { return again(c, b); });
  ASSERT_EQ(judged.curves.size(), 2u);
  const auto& pipeline = judged.curves[0];
  EXPECT_EQ(pipeline.pick, 1);     // 64 KiB: within 1% of 8 KiB's prediction, and larger
  EXPECT_EQ(pipeline.fastest, 2);  // unsegmented measured fastest
  EXPECT_EQ(pipeline.again, (std::vector<int>{1, 2}));
  // binomial: unsegmented is the largest "segment", 64 KiB within 1% of it is not preferred.
  EXPECT_EQ(judged.curves[1].pick, 3);
  ASSERT_TRUE(judged.has_choice);
  EXPECT_EQ(judged.choice.pick, 3);     // the lowest prediction among all
  EXPECT_EQ(judged.choice.fastest, 3);  // 70 us: mpi was not modelled
  EXPECT_EQ(judged.choice.configs.size(), 5u);
  // Confirmed with the script: 64 KiB (64 us) against unsegmented (0 us, + the round) ...
  EXPECT_GT(pipeline.confirmed_x_best, 1.0);
  EXPECT_DOUBLE_EQ(pipeline.fastest_confirmed_x_best, 1.0);
  EXPECT_EQ(pipeline.confirmation.size(), 2u);
  // ... and without confirmation nothing is measured again.
  Script none;
  const auto unconfirmed = relay::tune::judge_model(
      MPI_COMM_WORLD, configs, 1 << 20, rows, modelled, 0, 2, true,
      [&](const relay::measure::SweepConfig& c, std::int64_t b) { return none(c, b); });
  EXPECT_EQ(none.calls, 0);
  EXPECT_TRUE(unconfirmed.curves[0].again.empty());
}

}  // namespace
