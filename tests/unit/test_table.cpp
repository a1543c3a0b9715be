// Decision tables: lookup and interpolation edges, the JSON round trip, and malformed tables
// (truncated, wrong types, overlapping ranges, huge numbers, random mutations) rejected with
// errors that name the problem. Issue 23: hostile files (deep nesting, duplicate keys, NUL
// bytes, devices and FIFOs, huge rule lists) fail cleanly and quickly; tests/fuzz goes further.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <random>
#include <thread>

#include "coll/table.hpp"

using nlohmann::json;
using relay::coll::Rule;
using relay::coll::Table;

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
  t.rules = relay::coll::rules_from_grid("bcast", 2, 8,
                                         {{1024, choice("binomial", 0)},
                                          {65536, choice("scatter_allgather", 0)},
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

// Table::parse's error for a table's text, "" when it loads.
std::string parse_error_of(const std::string& text) {
  try {
    Table::parse(text);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

// Table::load's error for a path, "" when it loads.
std::string load_error_of(const std::string& path) {
  try {
    Table::load(path);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void write_file(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST(Table, GridRangesMeetAtTheGeometricMean) {
  const auto t = Table::from_json(valid_doc());
  ASSERT_EQ(t.rules.size(), 3u);
  EXPECT_EQ(t.rules[0].min_bytes, 0);
  EXPECT_EQ(t.rules[0].max_bytes, 8192);  // sqrt(1024 * 65536)
  EXPECT_EQ(t.rules[1].min_bytes, 8193);
  EXPECT_EQ(t.rules[1].max_bytes, 741455);  // floor(sqrt(65536 * 8 Mi))
  EXPECT_EQ(t.rules[2].max_bytes, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(t.lookup("bcast", 4, 0)->choice.algorithm, "binomial");
  EXPECT_EQ(t.lookup("bcast", 4, 8192)->choice.algorithm, "binomial");
  EXPECT_EQ(t.lookup("bcast", 4, 8193)->choice.algorithm, "scatter_allgather");
  EXPECT_EQ(t.lookup("bcast", 8, 741456)->choice.algorithm, "pipeline");
  EXPECT_EQ(t.lookup("bcast", 2, std::numeric_limits<std::int64_t>::max())->choice.segment_bytes,
            65536);
  EXPECT_EQ(t.lookup("bcast", 1, 100), nullptr);  // comm sizes outside the range
  EXPECT_EQ(t.lookup("bcast", 9, 100), nullptr);
  EXPECT_EQ(t.lookup("reduce", 4, 100), nullptr);  // another operation
}

TEST(Table, AdjacentGridPointsAndDuplicates) {
  const auto rules = relay::coll::rules_from_grid(
      "bcast", 1, 4, {{2, choice("linear", 0)}, {1, choice("binary", 0)}, {2, choice("chain", 0)}});
  // Sorted; ranges never overlap and cover [0, max]. (The last range ends at the largest
  // int64: no "max + 1" after it, which overflowed under UBSan.)
  ASSERT_FALSE(rules.empty());
  EXPECT_EQ(rules.front().min_bytes, 0);
  EXPECT_EQ(rules.back().max_bytes, std::numeric_limits<std::int64_t>::max());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    EXPECT_GE(rules[i].max_bytes, rules[i].min_bytes);
    if (i > 0) {
      EXPECT_EQ(rules[i].min_bytes - 1, rules[i - 1].max_bytes);
    }
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
        case 0:
          s[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          s.erase(at, 1 + rng() % 8);
          break;
        default:
          s.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
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

// --- issue 23: never a wrong answer, a crash or a hang ---

TEST(Table, DeepNestingIsAnErrorNotACrash) {
  // 100,000 levels in the free-form "machine" (200 KB, schema-valid): the recursive copy of the
  // parsed document overflowed the stack, through RELAY_TUNING_FILE too.
  constexpr int kLevels = 100000;
  std::string text = R"({"schema": "relay.tuning/1", "rules": [], "machine": )";
  for (int i = 0; i < kLevels; ++i) text += R"({"a":)";
  text += "{}" + std::string(kLevels, '}') + "}";
  const std::string path = ::testing::TempDir() + "relay_table_deep.json";
  write_file(path, text);
  const std::string error = load_error_of(path);
  EXPECT_TRUE(contains(error, path + ": machine: nesting deeper than " +
                                  std::to_string(relay::coll::kMaxTableDepth)))
      << error;
  std::remove(path.c_str());
  // Deep arrays, and a deep "notes", alike.
  EXPECT_TRUE(contains(parse_error_of(R"({"schema": "relay.tuning/1", "rules": [], "notes": )" +
                                      std::string(kLevels, '[') + std::string(kLevels, ']') + "}"),
                       "notes: nesting deeper than"));
  EXPECT_TRUE(contains(parse_error_of(std::string(kLevels, '[')), "nesting deeper than"));

  // A document built in memory that deep: from_json measures it without recursing.
  json deep = json::object();
  for (int i = 0; i < kLevels; ++i) {
    json outer = json::object();
    outer["a"] = std::move(deep);
    deep = std::move(outer);
  }
  auto doc = valid_doc();
  doc["machine"] = std::move(deep);
  EXPECT_TRUE(contains(error_of(doc), "machine: nesting deeper than"));

  // At the limit it loads: the document is level 1, so "machine" may hold limit - 1 levels.
  const int machine_levels = relay::coll::kMaxTableDepth - 1;
  std::string nested;
  for (int i = 1; i < machine_levels; ++i) nested += R"({"a":)";
  nested += "{}" + std::string(static_cast<std::size_t>(machine_levels - 1), '}');
  const std::string at_limit = R"({"schema": "relay.tuning/1", "rules": [], "machine": )" + nested;
  EXPECT_EQ(parse_error_of(at_limit + "}"), "");
  EXPECT_TRUE(
      contains(parse_error_of(R"({"schema": "relay.tuning/1", "rules": [], "machine": {"b":)" +
                              nested + "}}"),
               "machine: nesting deeper than"));
}

TEST(Table, OverlapCheckIsNotQuadratic) {
  // 200,000 rules of one operation that do not overlap: the check of every rule against each
  // earlier one took about a minute (60,000 rules: 4.7 s). Only the required fields, to keep
  // the document small (about 100 MB).
  constexpr int kRules = 200000;
  json doc = {{"schema", relay::coll::kTableSchema}, {"rules", json::array()}};
  auto& rules = doc["rules"];
  for (int i = 0; i < kRules; ++i) {
    const int ranks = 1 + i % 100;  // sizes interleave, so the sweep keeps many ranges open
    const std::int64_t bytes = std::int64_t{i / 100} * 10;
    rules.push_back({{"operation", "bcast"},
                     {"algorithm", "binomial"},
                     {"comm_size", {ranks, ranks}},
                     {"bytes", {bytes, bytes + 9}}});
  }
  const auto start = std::chrono::steady_clock::now();
  const auto t = Table::from_json(doc);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(t.rules.size(), static_cast<std::size_t>(kRules));
  // About 0.3 s (a few with the sanitizers); checking 2e10 pairs took about a minute.
  EXPECT_LT(seconds, 30.0) << seconds;
}

TEST(Table, OverlapErrorNamesTheSamePairAsBefore) {
  // The error names the pair a check of each rule against every earlier one met first: the
  // first rule that overlaps an earlier one, and the first earlier rule it overlaps.
  std::mt19937 rng(2023);
  const char* operations[] = {"bcast", "reduce"};
  int overlapping_tables = 0;
  for (int trial = 0; trial < 400; ++trial) {
    Table t;
    const int n = 2 + static_cast<int>(rng() % 30);
    for (int i = 0; i < n; ++i) {
      Rule r = choice("binomial", 0);
      r.operation = operations[rng() % 2];
      r.min_ranks = 1 + static_cast<int>(rng() % 8);
      r.max_ranks = r.min_ranks + static_cast<int>(rng() % 3);
      r.min_bytes = static_cast<std::int64_t>(rng() % 200);
      r.max_bytes = r.min_bytes + static_cast<std::int64_t>(rng() % 20);
      t.rules.push_back(r);
    }
    std::string expected;
    for (std::size_t i = 0; i < t.rules.size() && expected.empty(); ++i) {
      for (std::size_t j = 0; j < i && expected.empty(); ++j) {
        const Rule& a = t.rules[j];
        const Rule& b = t.rules[i];
        if (a.operation == b.operation && a.min_ranks <= b.max_ranks &&
            b.min_ranks <= a.max_ranks && a.min_bytes <= b.max_bytes &&
            b.min_bytes <= a.max_bytes) {
          expected = "rules[" + std::to_string(i) + "]: overlaps rules[" + std::to_string(j) +
                     "] (" + b.operation + ", comm_size [" +
                     std::to_string(std::max(a.min_ranks, b.min_ranks)) + ", " +
                     std::to_string(std::min(a.max_ranks, b.max_ranks)) + "], bytes [" +
                     std::to_string(std::max(a.min_bytes, b.min_bytes)) + ", " +
                     std::to_string(std::min(a.max_bytes, b.max_bytes)) + "])";
        }
      }
    }
    overlapping_tables += expected.empty() ? 0 : 1;
    EXPECT_EQ(error_of(t.to_json()), expected) << "trial " << trial;
  }
  EXPECT_GT(overlapping_tables, 100);
  EXPECT_LT(overlapping_tables, 400);
}

TEST(Table, DuplicateKeysAreRejected) {
  // A valid rule list followed by "rules": [] loaded as a valid empty table (the last won).
  const std::string rules = valid_doc()["rules"].dump();
  const std::string error =
      parse_error_of(R"({"schema": "relay.tuning/1", "rules": )" + rules + R"(, "rules": []})");
  EXPECT_TRUE(contains(error, "duplicate key \"rules\"")) << error;
  // At any level, naming where.
  auto doc = valid_doc();
  std::string text = doc.dump();
  const std::string first = R"("algorithm":")";
  text.insert(text.find(first), R"("algorithm":"linear",)");
  EXPECT_TRUE(contains(parse_error_of(text), "rules[0]: duplicate key \"algorithm\""))
      << parse_error_of(text);
  EXPECT_TRUE(contains(
      parse_error_of(
          R"({"schema": "relay.tuning/1", "rules": [], "machine": {"a": {"x": 1, "x": 2}}})"),
      "machine.a: duplicate key \"x\""));
  EXPECT_TRUE(contains(
      parse_error_of(R"({"schema": "relay.tuning/1", "schema": "relay.tuning/1", "rules": []})"),
      "duplicate key \"schema\""));
  // The same key in different objects is fine.
  EXPECT_EQ(
      parse_error_of(R"({"schema": "relay.tuning/1", "rules": [], "machine": {"a": {"a": 1}}})"),
      "");
}

TEST(Table, NulBytesAndTrailingBytesAreRejected) {
  const std::string text = valid_doc().dump();
  ASSERT_EQ(parse_error_of(text), "");
  ASSERT_EQ(parse_error_of(" \t\r\n" + text + " \n\t\r "), "");  // whitespace is fine
  // nlohmann's lexer stops at a NUL: whatever followed it was never looked at.
  std::string nul = text + std::string(1, '\0') + "garbage";
  EXPECT_TRUE(contains(parse_error_of(nul), "NUL byte at offset " + std::to_string(text.size())))
      << parse_error_of(nul);
  const std::string path = ::testing::TempDir() + "relay_table_nul.json";
  write_file(path, nul);
  EXPECT_TRUE(contains(load_error_of(path), path + ": a NUL byte"));
  std::remove(path.c_str());
  EXPECT_TRUE(contains(parse_error_of(text + std::string(1, '\0')), "NUL byte"));
  EXPECT_TRUE(contains(parse_error_of(text + "x"), "not valid JSON"));
  EXPECT_TRUE(contains(parse_error_of(text + text), "not valid JSON"));
}

TEST(Table, IntegersAsTheSchemaDefinesThem) {
  // JSON Schema's "integer": a number with no fractional part, however written.
  auto with = [](const char* field, const std::string& value) {
    std::string text = valid_doc().dump();
    const std::string key = std::string("\"") + field + "\":";
    const std::size_t at = text.find(key) + key.size();
    if (std::string(field) == "comm_size" || std::string(field) == "bytes") {
      // the first element of the range
      text.replace(at + 1, text.find(',', at) - at - 1, value);
    } else {
      text.replace(at, text.find_first_of(",}", at) - at, value);
    }
    return text;
  };
  for (const std::string v : {"2", "2.0", "2e0", "0.2e1", "2.000", "20e-1"}) {
    const std::string text = with("comm_size", v);
    EXPECT_EQ(parse_error_of(text), "") << text;
    if (parse_error_of(text).empty()) {
      EXPECT_EQ(Table::parse(text).rules[0].min_ranks, 2);
    }
  }
  EXPECT_EQ(Table::parse(with("segment_bytes", "1e3")).rules[0].choice.segment_bytes, 1000);
  EXPECT_EQ(Table::parse(with("fanout", "4.0")).rules[0].choice.fanout, 4);
  EXPECT_EQ(Table::parse(with("bytes", "-0.0")).rules[0].min_bytes, 0);
  EXPECT_TRUE(contains(parse_error_of(with("comm_size", "1.5")),
                       "rules[0].comm_size[0]: expected an integer, got 1.5"));
  EXPECT_TRUE(
      contains(parse_error_of(with("fanout", "2.5e0")), "rules[0].fanout: expected an integer"));
  // Range checks hold, and a huge double is out of range, not converted (undefined behaviour).
  EXPECT_TRUE(contains(parse_error_of(with("bytes", "1e30")),
                       "rules[0].bytes[0]: 1e+30 is out of range [0, 9223372036854775807]"));
  EXPECT_TRUE(contains(parse_error_of(with("bytes", "-1e30")), "out of range"));
  EXPECT_TRUE(contains(parse_error_of(with("bytes", "9223372036854775808.0")), "out of range"));
  EXPECT_TRUE(contains(parse_error_of(with("bytes", "9223372036854775808")), "out of range"));
  EXPECT_TRUE(contains(parse_error_of(with("segment_bytes", "1099511627777.0")), "out of range"));
  EXPECT_TRUE(contains(parse_error_of(with("comm_size", "0.0")), "out of range [1, 2147483647]"));
  EXPECT_TRUE(contains(parse_error_of(with("comm_size", "2147483648e0")), "out of range"));
  EXPECT_TRUE(contains(parse_error_of(with("comm_size", "1e400")), "not valid JSON"));
  auto doc = valid_doc();
  doc["rules"][0]["bytes"][0] = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(contains(error_of(doc), "rules[0].bytes[0]: expected an integer, got inf"));
  doc["rules"][0]["bytes"][0] = std::nan("");
  EXPECT_TRUE(contains(error_of(doc), "rules[0].bytes[0]: expected an integer"));
  doc = valid_doc();
  doc["$schema"] = 5;  // the schema says string
  EXPECT_TRUE(contains(error_of(doc), "$schema: expected a string"));
}

TEST(Table, OnlyRegularFilesAreRead) {
  // /dev/zero was read until bad_alloc (the size was checked after reading); a FIFO blocked.
  EXPECT_TRUE(
      contains(load_error_of("/dev/zero"), "/dev/zero: is a character device, not a regular file"));
  EXPECT_TRUE(contains(load_error_of("/"), "/: is a directory"));
  EXPECT_TRUE(contains(load_error_of(::testing::TempDir() + "relay_no_such_table.json"),
                       "cannot open (No such file or directory)"));

  const std::string fifo = ::testing::TempDir() + "relay_table_fifo";
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto loading = std::async(std::launch::async, [&] { return load_error_of(fifo); });
  if (loading.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    ADD_FAILURE() << "loading a FIFO blocked";
    // Let the blocked reader go: a writer that opens and closes gives it end of file.
    const int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  }
  EXPECT_TRUE(contains(loading.get(), fifo + ": is a FIFO, not a regular file"));
  std::remove(fifo.c_str());

  // Larger than the limit: refused from its size, before reading (a sparse file).
  const std::string big = ::testing::TempDir() + "relay_table_big.json";
  write_file(big, valid_doc().dump());
  ASSERT_EQ(::truncate(big.c_str(), relay::coll::kMaxTableFileBytes + 1), 0);
  EXPECT_TRUE(contains(load_error_of(big), big + ": larger than 64 MiB (67108865 bytes)"))
      << load_error_of(big);
  // At the limit it is read (and then fails on the NUL bytes truncate padded it with).
  ASSERT_EQ(::truncate(big.c_str(), relay::coll::kMaxTableFileBytes), 0);
  EXPECT_TRUE(contains(load_error_of(big), "NUL byte")) << load_error_of(big);
  std::remove(big.c_str());
}

TEST(Table, OnErrorPolicyValues) {
  using relay::coll::OnTableError;
  EXPECT_EQ(relay::coll::on_table_error(nullptr), OnTableError::fail);
  EXPECT_EQ(relay::coll::on_table_error(""), OnTableError::fail);
  EXPECT_EQ(relay::coll::on_table_error("defaults"), OnTableError::defaults);
  for (const char* garbage : {"default", "DEFAULTS", "defaults ", "ignore", "1"}) {
    try {
      relay::coll::on_table_error(garbage);
      ADD_FAILURE() << "RELAY_TUNING_ON_ERROR=" << garbage << " was taken";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_TRUE(contains(what, "RELAY_TUNING_ON_ERROR=\"" + std::string(garbage) + "\"")) << what;
      EXPECT_TRUE(contains(what, "defaults")) << what;
    }
  }
}
