// Over 500 lines: one reader of untrusted input, with every check the loader makes (issue 23).
#include "coll/table.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "coll/registry.hpp"

namespace relay::coll {
namespace {

using nlohmann::json;

constexpr std::int64_t kMaxBytes = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxSegment = std::int64_t{1} << 40;
constexpr std::int64_t kMaxRanks = std::numeric_limits<int>::max();
// 2^63 as a double, exactly: the first double an int64 cannot hold.
constexpr double kTwoTo63 = 9223372036854775808.0;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  throw std::runtime_error(where + ": " + what);
}

std::string out_of_range(const std::string& value, std::int64_t lo, std::int64_t hi) {
  return value + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

// JSON Schema's "integer" is any number with no fractional part, so 1000, 1000.0 and 1e3 are
// the same integer; 1.5 is not one. A double is range-checked before it is converted (converting
// 1e30 to an int64 is undefined).
std::int64_t integer(const json& v, const std::string& where, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number()) bad(where, "expected an integer, got " + std::string(v.type_name()));
  std::int64_t x = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi)) bad(where, out_of_range(std::to_string(u), lo, hi));
    x = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
  } else {
    const double d = v.get<double>();
    if (!std::isfinite(d) || std::floor(d) != d) {
      bad(where, "expected an integer, got " + fmt::format("{}", d));
    }
    if (d < -kTwoTo63 || d >= kTwoTo63) bad(where, out_of_range(fmt::format("{}", d), lo, hi));
    x = static_cast<std::int64_t>(d);
  }
  if (x < lo || x > hi) bad(where, out_of_range(std::to_string(x), lo, hi));
  return x;
}

// How deeply `v` nests objects and arrays (a scalar: 0, [] or {}: 1), counted without recursion
// (and without looking deeper than `limit` + 1).
int nesting_depth(const json& v, int limit) {
  int deepest = 0;
  std::vector<std::pair<const json*, int>> pending{{&v, 1}};
  while (!pending.empty()) {
    const auto [value, depth] = pending.back();
    pending.pop_back();
    if (!value->is_structured()) continue;
    deepest = std::max(deepest, depth);
    if (depth > limit) break;
    for (const auto& child : *value) pending.emplace_back(&child, depth + 1);
  }
  return deepest;
}

std::string nesting_error() {
  return "nesting deeper than " + std::to_string(kMaxTableDepth) + " levels of objects and arrays";
}

// A value quoted for a message: JSON-escaped, and cut short when long.
std::string shown(const std::string& s) {
  constexpr std::size_t kMaxShown = 64;
  const bool cut = s.size() > kMaxShown;
  return json(cut ? s.substr(0, kMaxShown) : s)
             .dump(-1, ' ', false, json::error_handler_t::replace) +
         (cut ? "..." : "");
}

// Builds a document from nlohmann's SAX events instead of json::parse, to refuse what
// json::parse lets through: a key twice in one object (json::parse keeps the last, so a valid
// rule list followed by "rules": [] was an empty table) and nesting deeper than kMaxTableDepth.
// Iterative like nlohmann's own parser, so a deep document costs no stack.
class StrictReader final : public json::json_sax_t {
 public:
  json take() { return std::move(root_); }
  const std::string& error() const { return error_; }

  bool null() override { return scalar(json(nullptr)); }
  bool boolean(bool b) override { return scalar(json(b)); }
  bool number_integer(json::number_integer_t x) override { return scalar(json(x)); }
  bool number_unsigned(json::number_unsigned_t x) override { return scalar(json(x)); }
  bool number_float(json::number_float_t x, const json::string_t&) override {
    return scalar(json(x));
  }
  bool string(json::string_t& s) override { return scalar(json(std::move(s))); }
  bool binary(json::binary_t&) override { return fail("binary data is not JSON"); }
  bool start_object(std::size_t) override { return open(json::value_t::object); }
  bool start_array(std::size_t) override { return open(json::value_t::array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(json::string_t& k) override {
    Level& level = open_.back();
    if (level.value->contains(k)) return fail(path(), "duplicate key " + shown(k));
    level.key = k;
    level.slot = &(*level.value)[k];
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const json::exception& e) override {
    return fail(std::string("not valid JSON (") + e.what() + ")");
  }

 private:
  struct Level {
    json* value = nullptr;
    std::string name;       // how its parent reaches it: ".machine", "[3]"
    std::size_t items = 0;  // an array's elements so far
    std::string key;        // an object's latest key
    json* slot = nullptr;   // where the value of that key goes
  };

  // Where a problem is, as "rules[3].bytes" ("" at the top).
  std::string path() const {
    std::string out;
    for (const Level& level : open_) out += level.name;
    return out.empty() || out[0] != '.' ? out : out.substr(1);
  }

  bool fail(const std::string& what) {
    error_ = what;
    return false;
  }
  bool fail(const std::string& where, const std::string& what) {
    return fail(where.empty() ? what : where + ": " + what);
  }

  json* place(json&& v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    Level& level = open_.back();
    if (level.value->is_array()) {
      ++level.items;
      level.value->push_back(std::move(v));
      return &level.value->back();
    }
    json* at = level.slot;
    *at = std::move(v);
    level.slot = nullptr;
    return at;
  }
  bool scalar(json&& v) {
    place(std::move(v));
    return true;
  }

  bool open(json::value_t type) {
    if (open_.size() >= static_cast<std::size_t>(kMaxTableDepth)) {
      // Name only the top-level field: the path of a deep value is as long as it is deep.
      const std::string& top = open_[1].name;  // ".machine" or, in an array, "[0]"
      return fail(top[0] == '.' ? top.substr(1) : top, nesting_error());
    }
    std::string name;
    if (!open_.empty()) {
      const Level& parent = open_.back();
      name = parent.value->is_array() ? "[" + std::to_string(parent.items) + "]" : "." + parent.key;
    }
    json* value = place(json(type));
    open_.emplace_back();
    open_.back().value = value;
    open_.back().name = std::move(name);
    return true;
  }
  bool close() {
    open_.pop_back();
    return true;
  }

  json root_;
  std::vector<Level> open_;
  std::string error_;
};

// Reads a table file: a regular file only (/dev/zero never ends, a FIFO's open waits for a
// writer), its size checked before reading, and never more than the limit + 1 bytes.
std::string read_table_file(const std::string& path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::runtime_error(path + ": cannot open (" + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    throw std::runtime_error(path + ": cannot stat (" + std::strerror(errno) + ")");
  }
  if (!S_ISREG(st.st_mode)) {
    const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                       : S_ISFIFO(st.st_mode) ? "a FIFO"
                       : S_ISCHR(st.st_mode)  ? "a character device"
                       : S_ISBLK(st.st_mode)  ? "a block device"
                       : S_ISSOCK(st.st_mode) ? "a socket"
                                              : "not a regular file";
    throw std::runtime_error(path + ": is " + kind + ", not a regular file (a table is a file " +
                             "relay tune wrote)");
  }
  const std::string too_large =
      path + ": larger than " + std::to_string(kMaxTableFileBytes >> 20) + " MiB";
  if (st.st_size > kMaxTableFileBytes) {
    throw std::runtime_error(too_large + " (" + std::to_string(st.st_size) + " bytes)");
  }
  // st_size may be stale or 0 (files in /proc): read to the end, but no more than limit + 1.
  std::string content(static_cast<std::size_t>(st.st_size) + 1, '\0');
  std::size_t have = 0;
  for (;;) {
    if (have == content.size()) {
      if (content.size() > static_cast<std::size_t>(kMaxTableFileBytes)) {
        throw std::runtime_error(too_large);
      }
      content.resize(std::min<std::size_t>(2 * content.size() + 4096,
                                           static_cast<std::size_t>(kMaxTableFileBytes) + 1));
    }
    const ssize_t n = ::read(fd, &content[have], content.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(path + ": cannot read (" + std::strerror(errno) + ")");
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  content.resize(have);
  return content;
}

// The rules [0, count) of one operation that overlap, by a sweep over communicator sizes that
// keeps the byte ranges of the rules covering the current size (disjoint, or the sweep has
// stopped) ordered: a new rule can only overlap its neighbours there. O(count log count).
bool any_overlap(const std::vector<Rule>& rules, std::size_t count) {
  struct Event {
    int operation;
    std::int64_t ranks;  // where it happens: a rule starts at min_ranks, ends after max_ranks
    bool starts;         // ends sort first: [1, 4] and [5, 8] do not overlap
    std::size_t rule;
  };
  std::map<std::string, int> operations;
  std::vector<Event> events;
  events.reserve(2 * count);
  for (std::size_t i = 0; i < count; ++i) {
    const int op =
        operations.emplace(rules[i].operation, static_cast<int>(operations.size())).first->second;
    events.push_back({op, rules[i].min_ranks, true, i});
    events.push_back({op, std::int64_t{rules[i].max_ranks} + 1, false, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.operation, a.ranks, a.starts, a.rule) <
           std::tie(b.operation, b.ranks, b.starts, b.rule);
  });
  std::map<std::int64_t, std::size_t> covering;  // min_bytes -> rule, of the current operation
  for (const Event& e : events) {
    const Rule& r = rules[e.rule];
    if (!e.starts) {
      covering.erase(r.min_bytes);
      continue;
    }
    auto next = covering.lower_bound(r.min_bytes);
    if (next != covering.end() && rules[next->second].min_bytes <= r.max_bytes) return true;
    if (next != covering.begin() && rules[std::prev(next)->second].max_bytes >= r.min_bytes) {
      return true;
    }
    covering.emplace_hint(next, r.min_bytes, e.rule);
  }
  return false;
}

bool overlap(const Rule& a, const Rule& b) {
  return a.operation == b.operation && a.min_ranks <= b.max_ranks && b.min_ranks <= a.max_ranks &&
         a.min_bytes <= b.max_bytes && b.min_bytes <= a.max_bytes;
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

// The algorithm names of each operation, looked up once per table rather than once per rule.
using AlgorithmNames = std::map<std::string, std::vector<std::string>>;

Rule parse_rule(const json& r, const std::string& where, AlgorithmNames& names) {
  static const std::set<std::string> known = {"operation",  "comm_size",     "bytes",  "algorithm",
                                              "policy",     "segment_bytes", "fanout", "source",
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
  auto found = names.find(rule.operation);
  if (found == names.end()) {
    found = names.emplace(rule.operation, table_algorithms(rule.operation)).first;
  }
  const auto& algorithms = found->second;
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
    rule.choice.segment_bytes =
        integer(r["segment_bytes"], where + ".segment_bytes", 0, kMaxSegment);
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
  if (const auto collective = coll::find_collective(operation)) {
    for (const auto& a : coll::algorithms(*collective)) names.emplace_back(a.name);
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
  static const std::set<std::string> known = {"$schema", "schema", "machine",
                                              "created", "rules",  "notes"};
  for (const auto& item : doc.items()) {
    if (known.count(item.key()) == 0) bad(item.key(), "unknown field");
    // A document built in memory may be as deep as it likes; the copy below recurses.
    if (nesting_depth(item.value(), kMaxTableDepth) + 1 > kMaxTableDepth) {
      bad(item.key(), nesting_error());
    }
  }
  if (doc.contains("$schema")) text(doc["$schema"], "$schema");
  if (!doc.contains("rules")) bad("table", "missing \"rules\"");
  if (!doc["rules"].is_array()) bad("rules", "expected an array");
  Table t;
  if (doc.contains("machine")) {
    if (!doc["machine"].is_object()) bad("machine", "expected an object");
    t.machine = doc["machine"];
  }
  if (doc.contains("created")) t.created = text(doc["created"], "created");
  const auto& rules = doc["rules"];
  t.rules.reserve(rules.size());
  AlgorithmNames names;
  for (std::size_t i = 0; i < rules.size(); ++i) {
    t.rules.push_back(parse_rule(rules[i], "rules[" + std::to_string(i) + "]", names));
  }
  if (any_overlap(t.rules, t.rules.size())) {
    // Name the pair a check of each rule against every earlier one meets first: the first rule
    // that overlaps an earlier one (the shortest prefix with an overlap ends there), and the
    // first earlier rule it overlaps.
    std::size_t clean = 1, overlapping = t.rules.size();  // prefix lengths
    while (overlapping - clean > 1) {
      const std::size_t mid = clean + (overlapping - clean) / 2;
      (any_overlap(t.rules, mid) ? overlapping : clean) = mid;
    }
    const std::size_t i = overlapping - 1;
    std::size_t j = 0;
    while (!overlap(t.rules[j], t.rules[i])) ++j;
    const Rule& a = t.rules[j];
    const Rule& b = t.rules[i];
    bad("rules[" + std::to_string(i) + "]",
        "overlaps rules[" + std::to_string(j) + "] (" + b.operation + ", comm_size [" +
            std::to_string(std::max(a.min_ranks, b.min_ranks)) + ", " +
            std::to_string(std::min(a.max_ranks, b.max_ranks)) + "], bytes [" +
            std::to_string(std::max(a.min_bytes, b.min_bytes)) + ", " +
            std::to_string(std::min(a.max_bytes, b.max_bytes)) + "])");
  }
  return t;
}

Table Table::parse(const std::string& text) {
  // nlohmann's lexer takes a NUL for the end of the input: "{...}\0anything" parsed as "{...}".
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    throw std::runtime_error("a NUL byte at offset " + std::to_string(nul) +
                             " (a table is JSON text)");
  }
  StrictReader reader;
  // strict: nothing but whitespace may follow the document.
  if (!json::sax_parse(text, &reader, json::input_format_t::json, true)) {
    throw std::runtime_error(reader.error());
  }
  return from_json(reader.take());
}

Table Table::load(const std::string& path) {
  const std::string content = read_table_file(path);
  try {
    return parse(content);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path + ": " + e.what());
  }
}

OnTableError on_table_error(const char* value) {
  if (value == nullptr || *value == '\0') return OnTableError::fail;
  if (std::strcmp(value, "defaults") == 0) return OnTableError::defaults;
  throw std::runtime_error("RELAY_TUNING_ON_ERROR=" + shown(value) +
                           " is not a choice (unset it to fail when RELAY_TUNING_FILE cannot be "
                           "used, or set it to defaults to warn and choose by the model)");
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
      const double mean = std::floor(std::sqrt(a * b));
      // Compared as a double first: near 2^63 the mean may not fit an int64.
      r.max_bytes = mean >= static_cast<double>(points[i + 1].first)
                        ? points[i + 1].first - 1
                        : std::max<std::int64_t>(points[i].first, static_cast<std::int64_t>(mean));
      if (r.max_bytes >= points[i + 1].first) r.max_bytes = points[i + 1].first - 1;
    }
    if (r.max_bytes < r.min_bytes) continue;  // duplicate grid point
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace relay::coll
