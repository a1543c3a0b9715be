#include "coll/bcast/select.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <cstdlib>
#include <cstring>

#include "core/status.hpp"
#include "schedule/schedule.hpp"
#include "core/units.hpp"
#include "topology/tree.hpp"
#include "tune/active.hpp"

namespace relay::coll {
std::string to_string(const BcastConfig& c) {
  return fmt::format("algorithm={} policy={} segment_bytes={} fanout={} max_requests={}{}",
                     c.algorithm != nullptr ? c.algorithm->name : "?",
                     c.policy == exec::Policy::blocking ? "blocking" : "nonblocking",
                     c.segment_bytes, c.fanout, c.max_requests,
                     c.automatic ? " (auto: " + c.table_rule.origin() + ")" : std::string());
}

// Until a tuning table exists (issue 4), `auto` takes the algorithm whose closed form is
// cheapest on a built-in alpha-beta machine: binomial, ceil(log2 P)(alpha + beta S) (tan2014
// eq. 2); pipeline with the segment count that minimises (n + P - 2)(alpha + beta S / n)
// (tan2014 eq. 4), n* = sqrt((P - 2) beta S / alpha); scatter_allgather,
// (log2 P + P - 1) alpha + 2 beta S (P - 1) / P. The constants describe an MPI shared-memory
// transport of this class of machine (about 5 us and 5 GB/s per message); docs/bcast.md shows
// the measurements. relay tune (issue 4) replaces them with measured ones.
namespace {
constexpr double kAutoAlphaS = 5e-6;
constexpr double kAutoBetaSPerByte = 0.2e-9;
}  // namespace

const BcastAlgorithm& auto_bcast_algorithm(int size, std::int64_t total_bytes,
                                           std::int64_t elem_bytes, std::int64_t& segment_bytes) {
  segment_bytes = 0;
  const auto& binomial = *find_bcast_algorithm(RELAY_BCAST_BINOMIAL);
  if (size <= 2 || total_bytes <= 0) return binomial;
  const double a = kAutoAlphaS, bs = kAutoBetaSPerByte * static_cast<double>(total_bytes);
  const double p = size;
  const double t_binomial = topology::ceil_log2(size) * (a + bs);
  const double t_scatter = (topology::ceil_log2(size) + p - 1) * a + 2 * bs * (p - 1) / p;
  const std::int64_t elems = std::max<std::int64_t>(1, total_bytes / elem_bytes);
  const auto n = static_cast<std::int64_t>(std::clamp(std::round(std::sqrt((p - 2) * bs / a)), 1.0,
                                                      static_cast<double>(elems)));
  // Whole elements per segment, and whole pages once that large (copies like alignment), so
  // the segment count may come out a little below n.
  std::int64_t segment = (elems + n - 1) / n * elem_bytes;
  const std::int64_t quantum = std::lcm<std::int64_t>(4096, elem_bytes);
  if (segment > quantum) segment = (segment + quantum - 1) / quantum * quantum;
  const double pieces = std::ceil(static_cast<double>(total_bytes) / static_cast<double>(segment));
  const double t_pipeline = (pieces + p - 2) * (a + bs / pieces);
  if (t_pipeline < t_binomial && t_pipeline <= t_scatter) {
    segment_bytes = segment;
    return *find_bcast_algorithm(RELAY_BCAST_PIPELINE);
  }
  if (t_scatter < t_binomial) return *find_bcast_algorithm(RELAY_BCAST_SCATTER_ALLGATHER);
  return binomial;
}

relay_status_t resolve_bcast(const core::RelayEnvironment& env, const relay_bcast_options_t* options,
                             int size,
                             std::int64_t total_bytes, std::int64_t elem_bytes,
                             const char* function, int position, BcastConfig& config) {
  relay_bcast_options_t o;
  // The caller's enum fields as the integers stored there, before anything below reads one as
  // its enum type (a stored 99 is undefined behaviour to load: UBSan).
  if (auto st = read_options(options, o, function, position); st != RELAY_SUCCESS) return st;

  // Environment overrides.
  if (const char* v = env.get(core::Knob::op_algorithm, "BCAST")) {
    if (relay_bcast_algorithm_from_name(v, &o.algorithm) != RELAY_SUCCESS) {
      return core::fail(RELAY_ERR_OPTIONS,
                        "{}: RELAY_BCAST_ALGORITHM='{}' is not an algorithm (relay algorithms)",
                        function, v);
    }
  }
  CommonOptions common{o.policy, o.segment_bytes, o.fanout, o.max_requests, o.check};
  if (auto st = apply_environment(env, "BCAST", function, common); st != RELAY_SUCCESS) return st;
  o.policy = common.policy;
  o.segment_bytes = common.segment_bytes;
  o.fanout = common.fanout;
  o.max_requests = common.max_requests;
  o.check = common.check;

  // Validation, naming the field (the algorithm was checked as stored, and the environment's
  // name resolves to a registered one or fails above).
  if (auto st = validate(common, elem_bytes, function, position); st != RELAY_SUCCESS) return st;

  config = BcastConfig{};
  config.automatic = o.algorithm == RELAY_BCAST_AUTO;
  std::int64_t auto_segment = 0;
  if (config.automatic) {
    // A tuning table first, then the model, then (inside the model) binomial.
    auto known = [](const tune::Rule& rule) {
      return find_bcast_algorithm(rule.choice.algorithm) != nullptr;
    };
    tune::AutoRule chosen;
    if (auto st = tune::auto_rule("bcast", size, total_bytes, known, chosen); st != RELAY_SUCCESS) {
      return st;
    }
    if (chosen.rule != nullptr) {
      config.algorithm = find_bcast_algorithm(chosen.rule->choice.algorithm);
      tune::take_choice(*chosen.rule, auto_segment, o.policy, o.fanout);
    } else {
      config.algorithm = &auto_bcast_algorithm(size, total_bytes, elem_bytes, auto_segment);
    }
    config.table_rule = std::move(chosen);
  } else {
    config.algorithm = find_bcast_algorithm(o.algorithm);
  }
  config.policy = o.policy == RELAY_POLICY_BLOCKING ? exec::Policy::blocking
                                                    : exec::Policy::nonblocking;
  if (o.segment_bytes == RELAY_SEGMENT_DEFAULT) {
    config.segment_bytes = config.automatic ? auto_segment : config.algorithm->default_segment_bytes;
    // Defaults must also be whole elements: round down, but never to zero.
    if (elem_bytes > 0 && config.segment_bytes > 0) {
      config.segment_bytes = std::max(elem_bytes, config.segment_bytes / elem_bytes * elem_bytes);
    }
  } else {
    config.segment_bytes = o.segment_bytes;
  }
  if (config.segment_bytes >= total_bytes) config.segment_bytes = 0;
  config.fanout = config.algorithm->uses_fanout
                      ? (o.fanout > 0 ? o.fanout : config.algorithm->default_fanout)
                      : config.algorithm->default_fanout;
  config.max_requests = o.max_requests > 0 ? o.max_requests : kDefaultMaxRequests;
  config.check = o.check == RELAY_CHECK_COLLECTIVE ? RELAY_CHECK_COLLECTIVE : RELAY_CHECK_LOCAL;
  if (config.algorithm->build == nullptr) {  // `mpi`: segments, fanout and policy do not apply
    config.segment_bytes = 0;
    config.fanout = 1;
  }
  if (config.segment_bytes > 0 &&
      (total_bytes - 1) / config.segment_bytes + 1 > schedule::kMaxSegments) {
    return core::fail(RELAY_ERR_SEGMENT, "{}: segment_bytes = {} cuts {} bytes into {} segments; "
                      "relay plans at most {} per call (each is a step of every rank's "
                      "schedule): use segments of at least {} bytes", function,
                      config.segment_bytes, total_bytes, (total_bytes - 1) / config.segment_bytes + 1,
                      schedule::kMaxSegments, (total_bytes - 1) / schedule::kMaxSegments + 1);
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::coll
