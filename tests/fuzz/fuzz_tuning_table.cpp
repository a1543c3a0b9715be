// A deterministic mutation fuzzer for decision tables (issue 23): gcc has no libFuzzer and this
// machine has no clang, so this program makes the inputs itself. From the seed tables of a
// corpus (tests/fuzz/corpus) it makes --count inputs with a fixed --seed -- structured mutations
// of the parsed document (fields removed, swapped, retyped, duplicated keys, deep nesting, huge
// and fractional numbers, many rules, overlaps, unicode) and byte-level ones (flips, inserts,
// deletes, truncation, NUL bytes, trailing bytes) -- writes each to a file and loads it with
// coll::Table::load, the function relay_tuning_load and RELAY_TUNING_FILE use.
//
// It fails (exit 1) on any other outcome than a table or a std::runtime_error, on an accepted
// table that does not survive its own round trip or whose lookups disagree with its rules, and
// when it ran fewer inputs than --count (--seconds ran out first). A watchdog ends it (exit 3)
// when one input takes longer than --hang-seconds; a crash leaves the input being loaded in the
// file printed at the start. With --dump-dir it writes every input and the loader's verdict to
// DIR/inputs.bin for check_against_schema.py, which compares the verdicts with a JSON Schema
// validator's:
//   "<index> <input bytes> <A|R> <message bytes>\n" <input> <message> "\n"
// (the message: the error, or the accepted table as relay writes it).
//
//   fuzz_tuning_table --corpus DIR [--count N] [--seed S] [--seconds T] [--dump-dir DIR]
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/table.hpp"

namespace {

using nlohmann::json;
using relay::coll::Table;
using Clock = std::chrono::steady_clock;

struct Options {
  long long count = 100000;
  std::uint64_t seed = 1;
  double seconds = 0;  // 0: no limit
  double hang_seconds = 60;
  std::string corpus;
  std::string dump_dir;
};

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "fuzz_tuning_table: %s\nusage: fuzz_tuning_table --corpus DIR [--count N] "
               "[--seed S] [--seconds T] [--hang-seconds T] [--dump-dir DIR]\n",
               why.c_str());
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) usage(a + " needs a value");
    const std::string v = argv[++i];
    try {
      if (a == "--count") {
        o.count = std::stoll(v);
      } else if (a == "--seed") {
        o.seed = std::stoull(v);
      } else if (a == "--seconds") {
        o.seconds = std::stod(v);
      } else if (a == "--hang-seconds") {
        o.hang_seconds = std::stod(v);
      } else if (a == "--corpus") {
        o.corpus = v;
      } else if (a == "--dump-dir") {
        o.dump_dir = v;
      } else {
        usage("unknown option " + a);
      }
    } catch (const std::logic_error&) {
      usage(a + " " + v + ": not a number");
    }
  }
  if (o.corpus.empty()) usage("--corpus is required");
  if (o.count < 1) usage("--count must be at least 1");
  if (o.seconds < 0 || o.hang_seconds <= 0) usage("--seconds and --hang-seconds must be positive");
  return o;
}

// --- randomness: one generator, so a seed gives the same inputs on every run ---

class Random {
 public:
  explicit Random(std::uint64_t seed) : engine_(seed) {}
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(engine_() % n); }
  bool chance(int percent) { return below(100) < static_cast<std::size_t>(percent); }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) {  // inclusive, hi - lo small
    return lo + static_cast<std::int64_t>(below(static_cast<std::size_t>(hi - lo + 1)));
  }

 private:
  std::mt19937_64 engine_;
};

const std::vector<std::string> kOperations = {
    "bcast",  "reduce",  "allreduce", "allgather", "allgatherv", "reduce_scatter_block",
    "gather", "scatter", "alltoall",  "barrier"};
const std::vector<std::string> kAlgorithms = {"linear",
                                              "chain",
                                              "binary",
                                              "binomial",
                                              "pipeline",
                                              "scatter_allgather",
                                              "kary",
                                              "mpi",
                                              "rabenseifner",
                                              "reduce_bcast",
                                              "recursive_doubling",
                                              "ring",
                                              "bruck",
                                              "gather_bcast",
                                              "recursive_halving",
                                              "dissemination",
                                              "auto",
                                              "fastest",
                                              "Binomial",
                                              ""};
const std::vector<std::string> kRuleFields = {"operation",  "comm_size",     "bytes",  "algorithm",
                                              "policy",     "segment_bytes", "fanout", "source",
                                              "measured_s", "predicted_s"};
const std::vector<std::string> kTopFields = {"$schema", "schema", "machine",
                                             "created", "rules",  "notes"};
// Numbers at and around every limit, and the forms JSON Schema counts as integers.
const std::vector<std::string> kNumbers = {"0",
                                           "-0",
                                           "1",
                                           "-1",
                                           "2",
                                           "8",
                                           "1.0",
                                           "2.0",
                                           "1e0",
                                           "1E0",
                                           "10e-1",
                                           "0.1e1",
                                           "1e3",
                                           "1.5",
                                           "0.5",
                                           "-0.0",
                                           "0.0",
                                           "1e-400",
                                           "2147483647",
                                           "2147483648",
                                           "2147483647.0",
                                           "2.147483647e9",
                                           "-2147483648",
                                           "9223372036854775807",
                                           "9223372036854775808",
                                           "9223372036854775807.0",
                                           "9.223372036854775807e18",
                                           "-9223372036854775808",
                                           "-9223372036854775809",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "123456789012345678901234567890",
                                           "1e30",
                                           "-1e30",
                                           "1e308",
                                           "1.7976931348623157e308",
                                           "1e309",
                                           "1e400",
                                           "-1e400",
                                           "1099511627776",
                                           "1099511627777",
                                           "1099511627776.0",
                                           "1048576",
                                           "1048577",
                                           "1048576.0",
                                           "4.000000000000001",
                                           "3.9999999999999999",
                                           "65536",
                                           "1e19",
                                           "0.000001",
                                           "1" + std::string(400, '0')};
// String literals as they appear in the text (valid, escaped, malformed).
const std::vector<std::string> kStrings = {"\"bcast\"",
                                           "\"b\\u0063ast\"",
                                           "\"bcast \"",
                                           "\"BCAST\"",
                                           "\"\"",
                                           "\"\\u0000\"",
                                           "\"bc\\u0000ast\"",
                                           "\"relay.tuning/1\"",
                                           "\"relay.tuning/2\"",
                                           "\"nonblocking\"",
                                           "\"blocking\"",
                                           "\"binomial\"",
                                           "\"mpi\"",
                                           "\"h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80\"",
                                           "\"\\ud83d\\ude00\"",
                                           "\"\\ud800\"",
                                           "\"\\udc00x\"",
                                           "\"\\ud800\\u0041\"",
                                           "\"\xff\"",
                                           "\"\xc0\xaf\"",
                                           "\"\xed\xa0\x80\"",
                                           "\"\xf4\x90\x80\x80\"",
                                           "\"\xe2\x82\"",
                                           "\"tab\there\"",
                                           "\"\\x41\"",
                                           "\"\\u12\"",
                                           "\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"",
                                           "\"\xef\xbb\xbf\""};
const std::string kJsonBytes = "{}[]\",:0123456789-+.eE \t\r\nabcdeflnrstu\\";

// --- the document's text, written with variations json::dump does not make ---

// Strings a mutation leaves in the document for the writer to replace: by deep nesting, or by a
// number literal json cannot hold (1e400, 1e309, 400 digits).
const std::string kDeepMarker =
    "\x01"
    "deep"
    "\x01";
const std::string kRawMarker =
    "\x01"
    "raw:";

struct Writer {
  Random& rng;
  int duplicate_in = -1;  // the object (in writing order) that gets a key twice
  int objects = 0;
  int integer_forms = 0;  // percent of integers written as 2.0, 2e0, ...
  int escapes = 0;        // percent of string characters written as \uXXXX
  bool pretty = false;

  void string(const std::string& s, std::string& out) {
    if (escapes == 0) {
      out += json(s).dump();
      return;
    }
    out += '"';
    for (unsigned char c : s) {
      if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && rng.chance(escapes)) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        const std::string one = json(std::string(1, static_cast<char>(c)))
                                    .dump(-1, ' ', false, json::error_handler_t::ignore);
        out += c >= 0x80 ? std::string(1, static_cast<char>(c)) : one.substr(1, one.size() - 2);
      }
    }
    out += '"';
  }

  // Deep nesting: near the limit, or far beyond it.
  void deep(std::string& out) {
    const std::size_t limit = relay::coll::kMaxTableDepth;
    const std::size_t levels = rng.chance(5)    ? 100000
                               : rng.chance(20) ? 1000 + rng.below(4000)
                                                : limit - 6 + rng.below(10);
    if (rng.chance(50)) {
      for (std::size_t i = 0; i < levels; ++i)
        out += rng.chance(90) ? "{\"a\":" : "{\"k\":1,\"a\":";
      out += "{}" + std::string(levels, '}');
    } else {
      out += std::string(levels, '[') + std::string(levels, ']');
    }
  }

  void integer(const std::string& digits, std::string& out) {
    if (integer_forms == 0 || !rng.chance(integer_forms)) {
      out += digits;
      return;
    }
    switch (rng.below(5)) {
      case 0:
        out += digits + ".0";
        break;
      case 1:
        out += digits + "e0";
        break;
      case 2:
        out += digits + "0e-1";
        break;
      case 3:
        out += digits + ".000E+00";
        break;
      default:
        out += digits + "00e-2";
        break;
    }
  }

  void value(const json& v, std::string& out, int indent) {
    const std::string pad =
        pretty ? "\n" + std::string(static_cast<std::size_t>(indent) + 2, ' ') : "";
    const std::string end_pad =
        pretty ? "\n" + std::string(static_cast<std::size_t>(indent), ' ') : "";
    switch (v.type()) {
      case json::value_t::object: {
        const int me = objects++;
        out += '{';
        bool first = true;
        auto member = [&](const std::string& k, const json& x) {
          out += (first ? "" : ",") + pad;
          first = false;
          string(k, out);
          out += pretty ? ": " : ":";
          value(x, out, indent + 2);
        };
        for (const auto& item : v.items()) member(item.key(), item.value());
        if (me == duplicate_in && !v.empty()) {
          // the same key again, with its own or another member's value
          auto it = v.begin();
          std::advance(it, static_cast<long>(rng.below(v.size())));
          auto other = v.begin();
          std::advance(other, static_cast<long>(rng.below(v.size())));
          member(it.key(), rng.chance(50) ? it.value() : other.value());
        }
        out += (first ? "" : end_pad) + "}";
        break;
      }
      case json::value_t::array: {
        out += '[';
        for (std::size_t i = 0; i < v.size(); ++i) {
          out += (i ? "," : "") + pad;
          value(v[i], out, indent + 2);
        }
        out += (v.empty() ? "" : end_pad) + "]";
        break;
      }
      case json::value_t::number_integer:
      case json::value_t::number_unsigned:
        integer(v.dump(), out);
        break;
      case json::value_t::string: {
        const auto& s = v.get_ref<const std::string&>();
        if (s.rfind(kRawMarker, 0) == 0) {
          out += s.substr(kRawMarker.size());  // a literal json cannot hold (1e400)
        } else if (s == kDeepMarker) {
          deep(out);
        } else {
          string(s, out);
        }
        break;
      }
      default:
        out += v.dump();
        break;
    }
  }
};

// --- structured mutations of a parsed table ---

json interesting_number(Random& rng) {
  const std::string& literal = rng.pick(kNumbers);
  json n = json::parse(literal, nullptr, false);
  return n.is_discarded() ? json(kRawMarker + literal) : n;
}

json interesting_value(Random& rng) {
  switch (rng.below(10)) {
    case 0:
      return nullptr;
    case 1:
      return rng.chance(50);
    case 3:
      return rng.pick(kAlgorithms);
    case 4:
      return json::array();
    case 5:
      return json::object();
    case 6:
      return json::array({rng.between(0, 9), rng.between(0, 9)});
    case 7:
      return json::array({1, 2, 3});
    case 8:
      return rng.pick(kOperations);
    case 9:
      return json(kDeepMarker);
    default:
      return interesting_number(rng);
  }
}

// Some value of the document to change: the document, a top-level field, a rule or a field of
// one.
json* some_value(json& doc, Random& rng) {
  if (!doc.is_object() || doc.empty() || rng.chance(5)) return &doc;
  auto it = doc.begin();
  std::advance(it, static_cast<long>(rng.below(doc.size())));
  json* v = &it.value();
  if (!v->is_array() || v->empty() || rng.chance(20)) return v;
  v = &(*v)[rng.below(v->size())];
  if (!v->is_object() || v->empty() || rng.chance(20)) return v;
  it = v->begin();
  std::advance(it, static_cast<long>(rng.below(v->size())));
  v = &it.value();
  if (v->is_array() && !v->empty() && rng.chance(60)) v = &(*v)[rng.below(v->size())];
  return v;
}

json* some_rule(json& doc, Random& rng) {
  if (!doc.is_object() || !doc.contains("rules") || !doc["rules"].is_array() ||
      doc["rules"].empty()) {
    return nullptr;
  }
  auto& rules = doc["rules"];
  json* r = &rules[rng.below(rules.size())];
  return r->is_object() ? r : nullptr;
}

json some_rule_of(Random& rng, const json* like) {
  json r = like != nullptr ? *like : json::object();
  r["operation"] = rng.pick(kOperations);
  const auto names = relay::coll::table_algorithms(r["operation"].get<std::string>());
  r["algorithm"] = names.empty() ? "mpi" : rng.pick(names);
  const auto lo = rng.between(1, 8);
  r["comm_size"] = {lo, lo + rng.between(0, 8)};
  const auto b = rng.between(0, 1 << 20);
  r["bytes"] = {b, b + rng.between(0, 1 << 20)};
  return r;
}

// A table of many rules, from relay's own grid (non-overlapping), sometimes with one overlap.
json many_rules(Random& rng) {
  Table t;
  const int ops = static_cast<int>(rng.between(1, 3));
  const int sizes = static_cast<int>(rng.between(1, 6));
  const int points = static_cast<int>(rng.between(2, 16));
  for (int o = 0; o < ops; ++o) {
    const std::string op = kOperations[static_cast<std::size_t>(o)];
    const auto names = relay::coll::table_algorithms(op);
    for (int s = 0; s < sizes; ++s) {
      std::vector<std::pair<std::int64_t, relay::coll::Rule>> grid;
      for (int p = 0; p < points; ++p) {
        relay::coll::Rule r;
        r.choice.algorithm = rng.pick(names);
        r.choice.segment_bytes = rng.chance(30) ? std::int64_t{1} << rng.between(10, 20) : 0;
        r.source = "fuzz";
        grid.push_back({std::int64_t{1} << rng.between(0, 40), r});
      }
      const auto rules = relay::coll::rules_from_grid(op, 2 * s + 1, 2 * s + 2, grid);
      t.rules.insert(t.rules.end(), rules.begin(), rules.end());
    }
  }
  json doc = t.to_json();
  auto& rules = doc["rules"];
  if (rng.chance(30) && rules.size() > 1) {  // one rule reaching into its neighbour
    auto& r = rules[rng.below(rules.size() - 1)];
    const auto hi = r["bytes"][1].get<std::int64_t>();
    if (hi < std::numeric_limits<std::int64_t>::max() - 2) r["bytes"][1] = hi + rng.between(0, 2);
  }
  if (rng.chance(30)) {  // and in another order
    std::vector<json> v(rules.begin(), rules.end());
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
    rules = v;
  }
  return doc;
}

void mutate_document(json& doc, Random& rng, Writer& writer) {
  switch (rng.below(20)) {
    case 0: {  // a field removed
      json* v = some_value(doc, rng);
      if (v->is_object() && !v->empty()) {
        auto it = v->begin();
        std::advance(it, static_cast<long>(rng.below(v->size())));
        v->erase(it);
      } else if (v->is_array() && !v->empty()) {
        v->erase(rng.below(v->size()));
      }
      break;
    }
    case 1: {  // a required field removed from a rule
      if (json* r = some_rule(doc, rng)) r->erase(rng.pick(kRuleFields));
      break;
    }
    case 2:
      *some_value(doc, rng) = interesting_value(rng);
      break;
    case 3: {  // two values swapped: top-level fields, or fields of rules (never one inside
               // the other)
      json *a = nullptr, *b = nullptr;
      if (rng.chance(30)) {
        a = &doc[rng.pick(kTopFields)];
        b = &doc[rng.pick(kTopFields)];
      } else if (json* r1 = some_rule(doc, rng), *r2 = some_rule(doc, rng); r1 && r2) {
        a = &(*r1)[rng.pick(kRuleFields)];
        b = &(*r2)[rng.pick(kRuleFields)];
      }
      if (a != nullptr && a != b) std::swap(*a, *b);
      break;
    }
    case 4: {  // an unknown field
      json* v = rng.chance(50) ? &doc : some_rule(doc, rng);
      if (v != nullptr && v->is_object()) {
        (*v)[rng.chance(50) ? "segmnet_bytes" : rng.pick(kTopFields) + "_"] =
            interesting_value(rng);
      }
      break;
    }
    case 5: {  // a field of a rule set from another field's list
      if (json* r = some_rule(doc, rng)) (*r)[rng.pick(kRuleFields)] = interesting_value(rng);
      break;
    }
    case 6: {  // a rule copied, maybe shifted, maybe overlapping
      json* r = some_rule(doc, rng);
      if (r == nullptr) break;
      json copy = *r;
      if (rng.chance(60) && copy.contains("bytes") && copy["bytes"].is_array() &&
          copy["bytes"].size() == 2 && copy["bytes"][1].is_number_integer()) {
        const auto hi = copy["bytes"][1].get<std::int64_t>();
        if (hi < std::numeric_limits<std::int64_t>::max() - 10) {
          const auto shift = rng.between(0, 2);
          copy["bytes"] = {hi + shift, hi + shift + rng.between(0, 5)};
        }
      }
      auto& rules = doc["rules"];
      rules.insert(rules.begin() + static_cast<long>(rng.below(rules.size() + 1)), copy);
      break;
    }
    case 7: {  // a rule's operation or algorithm changed
      if (json* r = some_rule(doc, rng)) {
        if (rng.chance(50)) {
          (*r)["operation"] = rng.pick(kOperations);
        } else {
          (*r)["algorithm"] = rng.pick(kAlgorithms);
        }
      }
      break;
    }
    case 8: {  // a range reversed, widened, shortened or lengthened
      json* r = some_rule(doc, rng);
      if (r == nullptr) break;
      json& range = (*r)[rng.chance(50) ? "comm_size" : "bytes"];
      if (!range.is_array()) break;
      switch (rng.below(4)) {
        case 0:
          if (range.size() == 2) std::swap(range[0], range[1]);
          break;
        case 1:
          range.push_back(rng.between(0, 100));
          break;
        case 2:
          if (!range.empty()) range.erase(range.size() - 1);
          break;
        default:
          if (range.size() == 2) range[1] = range[0];
          break;
      }
      break;
    }
    case 9: {  // a number somewhere set to an interesting one
      json* r = some_rule(doc, rng);
      if (r == nullptr) break;
      const std::string field = rng.pick(kRuleFields);
      const json n = interesting_number(rng);
      if ((field == "comm_size" || field == "bytes") && (*r)[field].is_array() &&
          !(*r)[field].empty()) {
        (*r)[field][rng.below((*r)[field].size())] = n;
      } else {
        (*r)[field] = n;
      }
      break;
    }
    case 10: {  // deep nesting, near the limit or far beyond it
      json* v = rng.chance(70)   ? &doc["machine"]
                : rng.chance(50) ? &doc["notes"]
                                 : some_value(doc, rng);
      *v = kDeepMarker;
      break;
    }
    case 11:
      writer.duplicate_in = static_cast<int>(rng.below(6));
      break;
    case 12:
      writer.integer_forms = static_cast<int>(rng.between(10, 100));
      break;
    case 13:
      writer.escapes = static_cast<int>(rng.between(5, 50));
      break;
    case 14:
      doc = many_rules(rng);
      break;
    case 15: {  // a rule added
      json* like = some_rule(doc, rng);
      if (doc.is_object() && doc.contains("rules") && doc["rules"].is_array()) {
        doc["rules"].push_back(some_rule_of(rng, like));
      }
      break;
    }
    case 16: {  // the machine and notes: free form, any content
      json m = json::object();
      m["mpi"] = "Open MPI 4.1.4";
      m["hosts"] = {
          "n\xc3\xb6"
          "de1",
          "node2"};
      m["ranks_per_host"] = rng.between(1, 64);
      m["nested"] = {{"a", {{"b", {1, 2.5, nullptr, true}}}}};
      doc[rng.chance(70) ? "machine" : "notes"] = rng.chance(80) ? m : interesting_value(rng);
      break;
    }
    case 17:
      doc["schema"] = rng.chance(50) ? json("relay.tuning/1") : interesting_value(rng);
      break;
    case 18: {  // the rules shuffled
      if (!doc.is_object() || !doc.contains("rules") || !doc["rules"].is_array()) break;
      auto& rules = doc["rules"];
      for (std::size_t i = rules.size(); i > 1; --i) std::swap(rules[i - 1], rules[rng.below(i)]);
      break;
    }
    default:
      writer.pretty = !writer.pretty;
      break;
  }
}

// --- byte-level mutations of the text ---

void mutate_bytes(std::string& s, Random& rng) {
  if (s.empty()) s = "{";
  const std::size_t at = rng.below(s.size() + 1);
  switch (rng.below(14)) {
    case 0:
      if (at < s.size()) s[at] = static_cast<char>(s[at] ^ (1 << rng.below(8)));
      break;
    case 1:
      if (at < s.size()) s[at] = kJsonBytes[rng.below(kJsonBytes.size())];
      break;
    case 2:
      s.insert(at, 1, kJsonBytes[rng.below(kJsonBytes.size())]);
      break;
    case 3:
      s.insert(at, 1, static_cast<char>(rng.below(256)));
      break;
    case 4:
      s.erase(std::min(at, s.size()), 1 + rng.below(16));
      break;
    case 5: {  // a span duplicated elsewhere
      const std::size_t from = rng.below(s.size());
      const std::string span = s.substr(from, 1 + rng.below(64));
      s.insert(rng.below(s.size() + 1), span);
      break;
    }
    case 6:
      s.resize(at);
      break;  // truncated
    case 7:   // a NUL byte, maybe with more after it
      s.insert(at, rng.chance(50) ? std::string(1, '\0') : std::string(1, '\0') + "{\"x\":1}");
      break;
    case 8:
      s += rng.pick(std::vector<std::string>{" ", "\n", "\t\r\n ", "x", "{}", "]", ",", "\x0b",
                                             "\xc2\xa0", "\f", "/**/", "//"});
      break;
    case 9:
      s.insert(0, rng.chance(80) ? "\xef\xbb\xbf" : "\xef\xbb");
      break;    // a BOM
    case 10: {  // a number replaced by an interesting one
      std::size_t p = s.find_first_of("0123456789", at);
      if (p == std::string::npos) p = s.find_first_of("0123456789");
      if (p == std::string::npos) break;
      std::size_t b = p;
      while (b > 0 && std::strchr("0123456789.eE+-", s[b - 1]) != nullptr) --b;
      std::size_t e = p;
      while (e < s.size() && std::strchr("0123456789.eE+-", s[e]) != nullptr) ++e;
      s.replace(b, e - b, rng.pick(kNumbers));
      break;
    }
    case 11: {  // a string replaced by an interesting literal
      const std::size_t b = s.find('"', at);
      if (b == std::string::npos) break;
      std::size_t e = b + 1;
      while (e < s.size() && s[e] != '"') e += s[e] == '\\' ? 2 : 1;
      if (e >= s.size()) break;
      s.replace(b, e - b + 1, rng.pick(kStrings));
      break;
    }
    case 12:
      s.insert(at, rng.pick(std::vector<std::string>{" ", "\n", "\t", "\r", "\x0b", "\f"}));
      break;
    default: {  // a "key": value pair repeated in its object
      const std::size_t k = s.find("\":", at);
      if (k == std::string::npos) break;
      const std::size_t b = s.rfind('"', k - 1 < s.size() ? k - 1 : 0);
      const std::size_t e = s.find_first_of(",}", k);
      if (b == std::string::npos || e == std::string::npos) break;
      s.insert(e, "," + s.substr(b, e - b));
      break;
    }
  }
}

std::string make_input(const std::vector<std::string>& corpus, Random& rng) {
  std::string text = rng.pick(corpus);
  json doc = json::parse(text, nullptr, false);
  if (!doc.is_discarded() && rng.chance(85)) {
    Writer writer{rng};
    const int mutations = 1 + static_cast<int>(rng.below(3));
    for (int m = 0; m < mutations; ++m) {
      // A document that is not an object (after "the document set to 5") takes no fields:
      // json throws, and the mutation is skipped.
      try {
        mutate_document(doc, rng, writer);
      } catch (const json::exception&) {
      }
    }
    text.clear();
    writer.value(doc, text, 0);
    if (rng.chance(25)) mutate_bytes(text, rng);
  } else {
    const int mutations = 1 + static_cast<int>(rng.below(4));
    for (int m = 0; m < mutations; ++m) mutate_bytes(text, rng);
  }
  return text;
}

// --- checks of an accepted table ---

// "" when the table is consistent: it survives its own round trip, and each rule is what a
// lookup at its corner finds (its rules do not overlap).
std::string check_accepted(const Table& t) {
  const json doc = t.to_json();
  if (Table::parse(doc.dump()).to_json() != doc) return "the table changed on its round trip";
  const std::size_t n = std::min<std::size_t>(t.rules.size(), 64);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& r = t.rules[i];
    if (r.min_ranks > r.max_ranks || r.min_bytes > r.max_bytes) return "a reversed range";
    for (const auto& [ranks, bytes] :
         {std::pair{r.min_ranks, r.min_bytes}, std::pair{r.max_ranks, r.max_bytes}}) {
      if (t.lookup(r.operation, ranks, bytes) != &r) {
        return "rules[" + std::to_string(i) + "] is not what a lookup at its corner finds";
      }
    }
  }
  return "";
}

// --- the watchdog: one input that takes too long is a hang ---

std::atomic<long long> current_input{-1};
std::atomic<long long> current_start_ns{0};

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = parse_options(argc, argv);

  std::vector<std::string> corpus;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(o.corpus)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // the directory's order is not deterministic
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    corpus.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (corpus.empty()) usage(o.corpus + ": no seed tables");

  // The input goes to memory when it can: on ext4 rewriting one file over and over makes the
  // kernel write it out each time, four fifths of the run.
  const std::string work_dir = ::access("/dev/shm", W_OK) == 0
                                   ? "/dev/shm"
                                   : std::filesystem::temp_directory_path().string();
  const std::string input_path =
      work_dir + "/fuzz_tuning_table." + std::to_string(::getpid()) + ".input.json";
  std::FILE* dump = nullptr;
  if (!o.dump_dir.empty()) {
    std::filesystem::create_directories(o.dump_dir);
    dump = std::fopen((o.dump_dir + "/inputs.bin").c_str(), "wb");
    if (dump == nullptr) usage(o.dump_dir + "/inputs.bin: cannot write");
  }
  std::printf("fuzz_tuning_table: seed %" PRIu64
              ", %zu seed tables from %s, up to %lld inputs%s;"
              " the input being loaded is %s\n",
              o.seed, corpus.size(), o.corpus.c_str(), o.count,
              o.seconds > 0 ? (" or " + std::to_string(o.seconds) + " s").c_str() : "",
              input_path.c_str());
  std::fflush(stdout);

  std::atomic<bool> done{false};
  std::thread watchdog([&] {
    while (!done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const long long i = current_input.load();
      const double held = static_cast<double>(now_ns() - current_start_ns.load()) * 1e-9;
      if (i >= 0 && held > o.hang_seconds) {
        std::fprintf(stderr,
                     "fuzz_tuning_table: HANG: input %lld still loading after %.0f s "
                     "(it is in %s)\n",
                     i, held, input_path.c_str());
        std::_Exit(3);
      }
    }
  });

  Random rng(o.seed);
  const auto start = Clock::now();
  long long inputs = 0, accepted = 0, rejected = 0, failures = 0;
  double slowest_s = 0;
  long long slowest = -1;
  for (; inputs < o.count; ++inputs) {
    if (o.seconds > 0 && std::chrono::duration<double>(Clock::now() - start).count() > o.seconds) {
      break;
    }
    const std::string text = make_input(corpus, rng);
    {
      std::ofstream out(input_path, std::ios::binary | std::ios::trunc);
      out << text;
      if (!out) usage(input_path + ": cannot write");
    }
    bool ok = false;
    std::string message;
    current_start_ns = now_ns();
    current_input = inputs;
    try {
      const Table t = Table::load(input_path);
      ok = true;
      message = t.to_json().dump();
      if (const std::string wrong = check_accepted(t); !wrong.empty()) {
        ++failures;
        std::fprintf(stderr, "fuzz_tuning_table: input %lld: accepted, but %s\n", inputs,
                     wrong.c_str());
      }
    } catch (const std::runtime_error& e) {
      message = e.what();
      if (message.rfind(input_path + ": ", 0) != 0) {
        ++failures;
        std::fprintf(stderr,
                     "fuzz_tuning_table: input %lld: the error does not start with the "
                     "path: %s\n",
                     inputs, message.c_str());
      }
      message.erase(0, input_path.size() + 2);
    } catch (const std::exception& e) {
      ++failures;
      message = std::string("UNEXPECTED EXCEPTION: ") + e.what();
      std::fprintf(stderr, "fuzz_tuning_table: input %lld: %s\n", inputs, message.c_str());
    }
    const double took_s = static_cast<double>(now_ns() - current_start_ns.load()) * 1e-9;
    current_input = -1;
    if (took_s > slowest_s) {
      slowest_s = took_s;
      slowest = inputs;
    }
    ++(ok ? accepted : rejected);
    if (dump != nullptr) {
      std::fprintf(dump, "%lld %zu %c %zu\n", inputs, text.size(), ok ? 'A' : 'R', message.size());
      std::fwrite(text.data(), 1, text.size(), dump);
      std::fwrite(message.data(), 1, message.size(), dump);
      std::fputc('\n', dump);
      std::fflush(dump);  // complete up to the input that crashes, if one does
    }
  }
  done = true;
  watchdog.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  if (dump != nullptr && std::fclose(dump) != 0) usage(o.dump_dir + "/inputs.bin: write failed");
  std::remove(input_path.c_str());

  std::printf(
      "fuzz_tuning_table: %lld inputs in %.1f s (%.0f/s): accepted %lld, rejected %lld; "
      "failures %lld; slowest input %lld (%.3f s)\n",
      inputs, seconds, static_cast<double>(inputs) / seconds, accepted, rejected, failures, slowest,
      slowest_s);
  if (inputs < o.count) {
    std::printf(
        "fuzz_tuning_table: FAILED: ran %lld of the %lld inputs asked for in %.0f s "
        "(--seconds)\n",
        inputs, o.count, o.seconds);
    return 1;
  }
  if (failures > 0) {
    std::printf("fuzz_tuning_table: FAILED: %lld inputs had a wrong outcome (above)\n", failures);
    return 1;
  }
  return 0;
}
