#include "tune/table.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>

#include "coll/bcast/bcast.hpp"
#include "coll/reduction/reduction.hpp"

namespace relay::tune {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxSegment = std::int64_t{1} << 40;
constexpr std::int64_t kMaxRanks = std::numeric_limits<int>::max();
constexpr std::uintmax_t kMaxFileBytes = 64u << 20;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

std::int64_t integer(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer()) bad(where, "expected an integer, got " + std::string(v.type_name()));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) {
    bad(where, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi) {
    bad(where, std::to_string(x) + " is out of range [" + std::to_string(lo) + ", " +
                   std::to_string(hi) + "]");
  }
  return x;
}

std::pair<std::int64_t, std::int64_t> range(const json& v, const std::string& where,
                                            std::int64_t lo, std::int64_t hi) {
  if (!v.is_array() || v.size() != 2) bad(where, "expected [min, max]");
  const auto a = integer(v[0], where + "[0]", lo, hi);
  const auto b = integer(v[1], where + "[1]", lo, hi);
  if (a > b) bad(where, "min " + std::to_string(a) + " > max " + std::to_string(b));
  return {a, b};
}

std::string text(const json& v, const std::string& where) {
  if (!v.is_string()) bad(where, "expected a string, got " + std::string(v.type_name()));
  return v.get<std::string>();
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

Rule parse_rule(const json& r, const std::string& where) {
  static const std::set<std::string> known = {"operation", "comm_size", "bytes", "algorithm",
                                              "policy", "segment_bytes", "fanout", "source",
                                              "measured_s", "predicted_s"};
  if (!r.is_object()) bad(where, "expected an object");
  for (const auto& item : r.items()) {
    if (known.count(item.key()) == 0) bad(where + "." + item.key(), "unknown field");
  }
  for (const char* key : {"operation", "comm_size", "bytes", "algorithm"}) {
    if (!r.contains(key)) bad(where, std::string("missing \"") + key + "\"");
  }
  Rule rule;
  rule.operation = text(r["operation"], where + ".operation");
  const auto algorithms = table_algorithms(rule.operation);
  if (algorithms.empty()) {
    bad(where + ".operation", "\"" + rule.operation + "\" is not an operation this relay tunes");
  }
  const auto ranks = range(r["comm_size"], where + ".comm_size", 1, kMaxRanks);
  rule.min_ranks = static_cast<int>(ranks.first);
  rule.max_ranks = static_cast<int>(ranks.second);
  const auto bytes = range(r["bytes"], where + ".bytes", 0, kMaxBytes);
  rule.min_bytes = bytes.first;
  rule.max_bytes = bytes.second;
  rule.choice.algorithm = text(r["algorithm"], where + ".algorithm");
  if (std::find(algorithms.begin(), algorithms.end(), rule.choice.algorithm) == algorithms.end()) {
    bad(where + ".algorithm", "\"" + rule.choice.algorithm + "\" is not a " + rule.operation +
                                  " algorithm (" + join(algorithms) + ")");
  }
  if (r.contains("policy")) {
    rule.choice.policy = text(r["policy"], where + ".policy");
    if (rule.choice.policy != "blocking" && rule.choice.policy != "nonblocking") {
      bad(where + ".policy", "\"" + rule.choice.policy + "\" is not blocking or nonblocking");
    }
  }
  if (r.contains("segment_bytes")) {
    rule.choice.segment_bytes = integer(r["segment_bytes"], where + ".segment_bytes", 0, kMaxSegment);
  }
  if (r.contains("fanout")) {
    rule.choice.fanout = static_cast<int>(integer(r["fanout"], where + ".fanout", 0, 1 << 20));
  }
  if (r.contains("source")) rule.source = text(r["source"], where + ".source");
  for (const char* key : {"measured_s", "predicted_s"}) {
    if (!r.contains(key)) continue;
    const auto& v = r[key];
    if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0) {
      bad(where + "." + key, "expected a number >= 0");
    }
    (std::string(key) == "measured_s" ? rule.measured_s : rule.predicted_s) = v.get<double>();
  }
  return rule;
}

}  // namespace

std::vector<std::string> table_algorithms(const std::string& operation) {
  std::vector<std::string> names;
  if (operation == "bcast") {
    for (const auto& a : coll::bcast_algorithms()) names.emplace_back(a.name);
  }
  for (auto c : coll::kCollectives) {
    if (operation != coll::to_string(c)) continue;
    for (const auto& a : coll::coll_algorithms(c)) names.emplace_back(a.name);
  }
  return names;
}

Table Table::from_json(const json& doc) {
  if (!doc.is_object()) bad("table", "expected a JSON object");
  if (!doc.contains("schema")) bad("table", "missing \"schema\" (not a relay tuning table?)");
  const std::string schema = text(doc["schema"], "schema");
  if (schema != kTableSchema) {
    bad("schema", "\"" + schema + "\" is not supported (this relay reads " + kTableSchema + ")");
  }
  static const std::set<std::string> known = {"$schema", "schema", "machine", "created", "rules",
                                              "notes"};
  for (const auto& item : doc.items()) {
    if (known.count(item.key()) == 0) bad(item.key(), "unknown field");
  }
  if (!doc.contains("rules")) bad("table", "missing \"rules\"");
  if (!doc["rules"].is_array()) bad("rules", "expected an array");
  Table t;
  if (doc.contains("machine")) {
    if (!doc["machine"].is_object()) bad("machine", "expected an object");
    t.machine = doc["machine"];
  }
  if (doc.contains("created")) t.created = text(doc["created"], "created");
  const auto& rules = doc["rules"];
  for (std::size_t i = 0; i < rules.size(); ++i) {
    t.rules.push_back(parse_rule(rules[i], "rules[" + std::to_string(i) + "]"));
  }
  for (std::size_t i = 0; i < t.rules.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      const Rule& a = t.rules[j];
      const Rule& b = t.rules[i];
      if (a.operation == b.operation && a.min_ranks <= b.max_ranks && b.min_ranks <= a.max_ranks &&
          a.min_bytes <= b.max_bytes && b.min_bytes <= a.max_bytes) {
        bad("rules[" + std::to_string(i) + "]",
            "overlaps rules[" + std::to_string(j) + "] (" + b.operation + ", comm_size [" +
                std::to_string(std::max(a.min_ranks, b.min_ranks)) + ", " +
                std::to_string(std::min(a.max_ranks, b.max_ranks)) + "], bytes [" +
                std::to_string(std::max(a.min_bytes, b.min_bytes)) + ", " +
                std::to_string(std::min(a.max_bytes, b.max_bytes)) + "])");
      }
    }
  }
  return t;
}

Table Table::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string content = buffer.str();
  if (content.size() > kMaxFileBytes) throw std::runtime_error(path + ": larger than 64 MiB");
  json doc;
  try {
    doc = json::parse(content);
  } catch (const json::exception& e) {
    throw std::runtime_error(path + ": not valid JSON (" + e.what() + ")");
  }
  try {
    return from_json(doc);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

json Table::to_json() const {
  json rules_json = json::array();
  for (const Rule& r : rules) {
    json j = {{"operation", r.operation},
              {"comm_size", {r.min_ranks, r.max_ranks}},
              {"bytes", {r.min_bytes, r.max_bytes}},
              {"algorithm", r.choice.algorithm},
              {"policy", r.choice.policy},
              {"segment_bytes", r.choice.segment_bytes},
              {"fanout", r.choice.fanout}};
    if (!r.source.empty()) j["source"] = r.source;
    if (r.measured_s >= 0) j["measured_s"] = r.measured_s;
    if (r.predicted_s >= 0) j["predicted_s"] = r.predicted_s;
    rules_json.push_back(std::move(j));
  }
  json doc = {{"schema", kTableSchema}, {"machine", machine}, {"rules", rules_json}};
  if (!created.empty()) doc["created"] = created;
  return doc;
}

void Table::save(const std::string& path) const {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(tmp + ": cannot write");
    out << to_json().dump(2) << '\n';
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": write failed");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(path + ": cannot rename the temporary file into place");
  }
}

const Rule* Table::lookup(const std::string& operation, int ranks, std::int64_t bytes) const {
  for (const Rule& r : rules) {
    if (r.operation == operation && ranks >= r.min_ranks && ranks <= r.max_ranks &&
        bytes >= r.min_bytes && bytes <= r.max_bytes) {
      return &r;
    }
  }
  return nullptr;
}

std::vector<Rule> rules_from_grid(const std::string& operation, int min_ranks, int max_ranks,
                                  const std::vector<std::pair<std::int64_t, Rule>>& points_in) {
  auto points = points_in;
  std::sort(points.begin(), points.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Rule> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    Rule r = points[i].second;
    r.operation = operation;
    r.min_ranks = min_ranks;
    r.max_ranks = max_ranks;
    r.min_bytes = i == 0 ? 0 : out.back().max_bytes + 1;
    if (i + 1 == points.size()) {
      r.max_bytes = kMaxBytes;
    } else {
      const double a = std::max<double>(1.0, static_cast<double>(points[i].first));
      const double b = std::max<double>(1.0, static_cast<double>(points[i + 1].first));
      r.max_bytes = std::max<std::int64_t>(points[i].first,
                                           static_cast<std::int64_t>(std::floor(std::sqrt(a * b))));
      if (r.max_bytes >= points[i + 1].first) r.max_bytes = points[i + 1].first - 1;
    }
    if (r.max_bytes < r.min_bytes) continue;  // duplicate grid point
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace relay::tune
