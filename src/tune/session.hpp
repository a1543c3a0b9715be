// A tuning session: on this communicator, for each message size, find the best
// {algorithm, policy, segment size} of one collective by each search method asked for
// (exhaustive, MGD, SMGD, the model alone, model-guided), charge each method what its
// measurements cost, confirm the table method's choice head to head, and build a decision
// table (relay.tuning/1) with the results document (relay.tune/1) that explains it. relay tune
// parses its options into SessionOptions, runs it and prints what it reports.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/registry.hpp"
#include "coll/table.hpp"
#include "measure/p2p_params.hpp"
#include "model/params.hpp"
#include "tune/search.hpp"

namespace relay::tune {

struct SessionOptions {
  std::optional<coll::Collective> collective;  ///< nullopt: broadcast
  std::vector<std::string> algorithms;         ///< the operation's (table_algorithms), mpi included
  std::vector<std::string> policies;           ///< "blocking", "nonblocking"
  /// Grid points, bytes; other than broadcast, the data a call moves (the vector, or all
  /// ranks' blocks), rounded to whole doubles (whole blocks) by the session.
  std::vector<std::int64_t> sizes;
  std::vector<std::int64_t> segments;  ///< candidate segment sizes (unsegmented always one)
  std::vector<std::string> methods;    ///< exhaustive, mgd, smgd, model, guided
  std::string table_method = "smgd";   ///< whose choices go into the table
  /// Model parameters; without them and where a method needs the model, a quick
  /// point-to-point measurement first (measure::measure_p2p).
  std::optional<model::Machine> machine;
  std::string machine_source;      ///< where `machine` came from (results' "model")
  std::vector<int> predict_ranks;  ///< process counts not measured: the model's choices
  double min_time_s = 0.05;        ///< seconds of timed iterations per configuration
  int max_requests = 16;
  int root = 0;
  SearchOptions search;
  int confirm = 4;  ///< see relay tune --confirm
  int confirm_rounds = 7;
  bool smgd_gradient = false;  ///< SMGD predicts from measured rates of change only
  bool quiet = false;          ///< no progress on stderr
  nlohmann::json machine_description =
      nlohmann::json::object();       ///< results' and table's "machine"
  measure::MemoryCheck check_memory;  ///< for the quick measurement's buffers (optional)
};

/// What a session says as it goes, on every rank (print on one); each may be empty.
struct SessionEvents {
  /// An algorithm left out: it needs a power-of-two process count and would run its fallback.
  std::function<void(const std::string& algorithm)> skipped;
  /// The quick point-to-point measurement starts, and has taken `seconds`.
  std::function<void()> measuring_model;
  std::function<void(double seconds)> model_measured;
  /// One size done: its entry of the results' "sizes" (methods, confirmation, same_schedules).
  std::function<void(const nlohmann::json& size_results)> size_done;
};

struct SessionResult {
  coll::Table table;       ///< every size's rule, and the model's for predict_ranks
  nlohmann::json results;  ///< relay.tune/1: every measurement, prediction and search path
};

/// Runs the session on (a duplicate of) `comm`; every rank takes the same decisions and
/// returns the same table. Collective; throws std::invalid_argument on options that cannot
/// run here (table method not among the methods, a root that is not a rank, no algorithm
/// that runs on this many ranks, no configuration the model predicts for --methods model).
SessionResult run_session(MPI_Comm comm, const SessionOptions& options,
                          const SessionEvents& events = {});

/// Whether the session needs the model on `ranks` ranks: for the model and guided methods,
/// SMGD's curve shapes, or process counts other than `ranks` (read a parameter file only then).
bool needs_model(const SessionOptions& options, int ranks);

/// The name of the operation tuned ("bcast" or the collective's).
std::string operation_name(const std::optional<coll::Collective>& collective);

}  // namespace relay::tune
