// Decision tables: lookup and interpolation edges, the JSON round trip, and malformed tables
// (truncated, wrong types, overlapping ranges, huge numbers, random mutations) rejected with
// errors that name the problem.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <random>

#include "tune/table.hpp"

using nlohmann::json;
using relay::tune::Rule;
using relay::tune::Table;

namespace {

Rule choice(const char* algorithm, std::int64_t segment) {
  Rule r;
  r.choice.algorithm = algorithm;
  r.choice.segment_bytes = segment;
  r.source = "test";
  return r;
}

json valid_doc() {
  Table t;
  t.rules = relay::tune::rules_from_grid(
      "bcast", 2, 8,
      {{1024, choice("binomial", 0)}, {65536, choice("scatter_allgather", 0)},
       {8 << 20, choice("pipeline", 65536)}});
  t.created = "2026-11-23";
  return t.to_json();
}

std::string error_of(const json& doc) {
  try {
    Table::from_json(doc);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Table, GridRangesMeetAtTheGeometricMean) {
  const auto t = Table::from_json(valid_doc());
  ASSERT_EQ(t.rules.size(), 3u);
  EXPECT_EQ(t.rules[0].min_bytes, 0);
  EXPECT_EQ(t.rules[0].max_bytes, 8192);           // sqrt(1024 * 65536)
  EXPECT_EQ(t.rules[1].min_bytes, 8193);
  EXPECT_EQ(t.rules[1].max_bytes, 741455);         // floor(sqrt(65536 * 8 Mi))
  EXPECT_EQ(t.rules[2].max_bytes, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(t.lookup("bcast", 4, 0)->choice.algorithm, "binomial");
  EXPECT_EQ(t.lookup("bcast", 4, 8192)->choice.algorithm, "binomial");
  EXPECT_EQ(t.lookup("bcast", 4, 8193)->choice.algorithm, "scatter_allgather");
  EXPECT_EQ(t.lookup("bcast", 8, 741456)->choice.algorithm, "pipeline");
  EXPECT_EQ(t.lookup("bcast", 2, std::numeric_limits<std::int64_t>::max())->choice.segment_bytes,
            65536);
  EXPECT_EQ(t.lookup("bcast", 1, 100), nullptr);   // comm sizes outside the range
  EXPECT_EQ(t.lookup("bcast", 9, 100), nullptr);
  EXPECT_EQ(t.lookup("reduce", 4, 100), nullptr);  // another operation
}

TEST(Table, AdjacentGridPointsAndDuplicates) {
  const auto rules = relay::tune::rules_from_grid(
      "bcast", 1, 4, {{2, choice("linear", 0)}, {1, choice("binary", 0)}, {2, choice("chain", 0)}});
  // Sorted; ranges never overlap and cover [0, max].
  std::int64_t next = 0;
  for (const auto& r : rules) {
    EXPECT_EQ(r.min_bytes, next);
    EXPECT_GE(r.max_bytes, r.min_bytes);
    next = r.max_bytes + 1;
  }
  EXPECT_NO_THROW(Table::from_json(Table{rules, json::object(), ""}.to_json()));
}

TEST(Table, RoundTripThroughAFile) {
  const auto t = Table::from_json(valid_doc());
  const std::string path = ::testing::TempDir() + "relay_table_roundtrip.json";
  t.save(path);
  const auto back = Table::load(path);
  EXPECT_EQ(back.to_json(), t.to_json());
  std::remove(path.c_str());
}

TEST(Table, MalformedTablesNameTheProblem) {
  auto doc = valid_doc();
  EXPECT_NE(error_of(json::array()).find("expected a JSON object"), std::string::npos);
  doc.erase("schema");
  EXPECT_NE(error_of(doc).find("missing \"schema\""), std::string::npos);
  doc = valid_doc();
  doc["schema"] = "relay.tuning/2";
  EXPECT_NE(error_of(doc).find("not supported"), std::string::npos);
  doc = valid_doc();
  doc["rules"][1]["bytes"][0] = "8KiB";
  EXPECT_NE(error_of(doc).find("rules[1].bytes[0]: expected an integer"), std::string::npos);
  doc = valid_doc();
  doc["rules"][0]["bytes"][1] = 1e300;
  EXPECT_NE(error_of(doc).find("rules[0].bytes[1]"), std::string::npos);
  doc = valid_doc();
  doc["rules"][0]["bytes"][1] = json::parse("18446744073709551615");
  EXPECT_NE(error_of(doc).find("out of range"), std::string::npos);
  doc = valid_doc();
  doc["rules"][2]["segment_bytes"] = -1;
  EXPECT_NE(error_of(doc).find("rules[2].segment_bytes"), std::string::npos);
  doc = valid_doc();
  doc["rules"][2]["algorithm"] = "fastest";
  EXPECT_NE(error_of(doc).find("is not a bcast algorithm"), std::string::npos);
  doc = valid_doc();
  doc["rules"][2]["policy"] = "eager";
  EXPECT_NE(error_of(doc).find("rules[2].policy"), std::string::npos);
  doc = valid_doc();
  doc["rules"][0]["comm_size"] = {8, 2};
  EXPECT_NE(error_of(doc).find("min 8 > max 2"), std::string::npos);
  doc = valid_doc();
  doc["rules"][0]["operation"] = "gossip";
  EXPECT_NE(error_of(doc).find("not an operation"), std::string::npos);
  doc = valid_doc();
  doc["rules"][1]["segmnet_bytes"] = 4096;
  EXPECT_NE(error_of(doc).find("rules[1].segmnet_bytes: unknown field"), std::string::npos);
  doc = valid_doc();
  doc["rules"][1]["bytes"] = {0, 100};  // overlaps rules[0]
  EXPECT_NE(error_of(doc).find("rules[1]: overlaps rules[0]"), std::string::npos);
  doc = valid_doc();
  doc["rules"][1]["comm_size"] = {9, 16};  // another size range: no overlap
  EXPECT_EQ(error_of(doc), "");
}

TEST(Table, TruncatedAndMissingFiles) {
  const std::string text = valid_doc().dump();
  const std::string path = ::testing::TempDir() + "relay_table_truncated.json";
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, text.size() / 2, text.size() - 1}) {
    std::ofstream(path, std::ios::trunc) << text.substr(0, cut);
    try {
      Table::load(path);
      ADD_FAILURE() << "a table cut at " << cut << " bytes loaded";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    }
  }
  std::remove(path.c_str());
  EXPECT_THROW(Table::load(path + ".missing"), std::runtime_error);
}

TEST(Table, FuzzedTablesLoadOrFailCleanly) {
  // Random byte mutations of a valid table: every outcome is a valid table whose rules do not
  // overlap, or a std::runtime_error -- never a crash or another exception type.
  const std::string text = valid_doc().dump();
  std::mt19937 rng(12345);
  const std::string alphabet = "{}[]\",:0123456789-+.eE abcnulltrue";
  int loaded = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0: s[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: s.erase(at, 1 + rng() % 8); break;
        default: s.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
      if (s.empty()) s = "{";
    }
    json doc;
    try {
      doc = json::parse(s);
    } catch (const json::exception&) {
      continue;  // Table::load reports these as "not valid JSON"
    }
    try {
      const auto t = Table::from_json(doc);
      ++loaded;
      for (std::size_t a = 0; a < t.rules.size(); ++a) {
        EXPECT_LE(t.rules[a].min_bytes, t.rules[a].max_bytes);
        EXPECT_LE(t.rules[a].min_ranks, t.rules[a].max_ranks);
      }
    } catch (const std::runtime_error&) {
    }
  }
  EXPECT_GT(loaded, 0);  // some mutations (e.g. of digits) stay valid
}
