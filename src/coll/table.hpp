// Decision tables: what `auto` runs, per {operation, communicator size, message size}.
//
// A table is versioned JSON (schema: schemas/relay-tuning-table.schema.json; "schema":
// "relay.tuning/1"), written by relay tune and read here. Every rule maps an inclusive range of
// communicator sizes and an inclusive range of message bytes of one operation to a choice
// (algorithm, policy, segment_bytes, fanout). Between the sizes relay tune measured, a table's
// ranges meet at the geometric mean of neighbouring grid points, so a size not measured takes
// the choice of the nearer one on a log scale -- that is the interpolation. Loading validates
// everything and names the first problem (file, rule index, field); rules of one operation must
// not overlap, so a lookup has one answer.
//
// A file is untrusted input (issue 23): whatever it holds, loading gives a valid table or a
// std::runtime_error -- never a crash, a hang or a half-read table. Beyond the schema, a file
// must be a regular file of at most kMaxTableFileBytes with no NUL byte and nothing but
// whitespace after the document, may not nest objects and arrays deeper than kMaxTableDepth
// levels, and may not repeat a key within an object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace relay::coll {

inline constexpr const char* kTableSchema = "relay.tuning/1";
/// The largest table file read (a table of 100,000 rules takes about 20 MiB).
inline constexpr std::int64_t kMaxTableFileBytes = std::int64_t{64} << 20;
/// The deepest nesting of objects and arrays a table may have, the document itself being level
/// 1 (a rule's ranges are at level 4; "machine" and "notes" are free-form). Copying, comparing
/// and printing a JSON value recurse once per level: without a limit a 200 KB file of nested
/// brackets overflowed the stack.
inline constexpr int kMaxTableDepth = 64;

struct Choice {
  std::string algorithm;  ///< canonical name of the operation's algorithm
  std::string policy = "nonblocking";
  std::int64_t segment_bytes = 0;  ///< 0 = unsegmented
  int fanout = 0;                  ///< 0 = the algorithm's default
};

struct Rule {
  std::string operation;  ///< "bcast", ...
  int min_ranks = 1, max_ranks = 1;
  std::int64_t min_bytes = 0, max_bytes = 0;
  Choice choice;
  std::string source;       ///< how it was found: exhaustive, mgd, smgd, model, ...
  double measured_s = -1;   ///< the choice's measured time at the grid point, if any
  double predicted_s = -1;  ///< the model's time, if any
};

class Table {
 public:
  /// Validates and builds a table from parsed JSON. Throws std::runtime_error naming the
  /// problem ("rules[3].max_bytes: ...").
  static Table from_json(const nlohmann::json& doc);
  /// Parses and validates the text of a table file (strictly: see the top of this file). Throws
  /// std::runtime_error naming the problem.
  static Table parse(const std::string& text);
  /// Reads (a regular file of at most kMaxTableFileBytes), parses and validates a file: what
  /// relay_tuning_load and RELAY_TUNING_FILE use. Throws std::runtime_error starting with the
  /// path.
  static Table load(const std::string& path);
  nlohmann::json to_json() const;
  /// Writes atomically (temporary file, then rename). Throws std::runtime_error.
  void save(const std::string& path) const;

  /// The rule for a call, or nullptr when none covers it.
  const Rule* lookup(const std::string& operation, int ranks, std::int64_t bytes) const;

  std::vector<Rule> rules;
  nlohmann::json machine = nlohmann::json::object();  ///< where it was measured (free form)
  std::string created;                                ///< ISO date
};

/// Builds rules from choices at measured grid points of one operation and communicator-size
/// range: ranges meet at the geometric mean of neighbouring sizes; the first starts at 0, the
/// last is open (to the largest int64).
std::vector<Rule> rules_from_grid(const std::string& operation, int min_ranks, int max_ranks,
                                  const std::vector<std::pair<std::int64_t, Rule>>& points);

/// Algorithm names an operation accepts in a table (the registries'), empty if the operation
/// is unknown to this build.
std::vector<std::string> table_algorithms(const std::string& operation);

/// What to do when RELAY_TUNING_FILE names a table that cannot be used.
enum class OnTableError {
  fail,      ///< unset or empty: `auto` calls fail with RELAY_ERR_TUNING
  defaults,  ///< "defaults": warn once and choose by the model
};
/// Reads RELAY_TUNING_ON_ERROR's value (nullptr when unset). Throws std::runtime_error naming
/// the variable and the values it takes on anything else. (Here rather than in active.cpp so
/// that the unit tests, which link the internals without the library, reach it.)
OnTableError on_table_error(const char* value);

}  // namespace relay::coll
