#include "coll/select.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "core/status.hpp"
#include "schedule/schedule.hpp"

namespace relay::coll {

std::string to_string(const Config& c) {
  std::string note;
  if (c.automatic) note = " (auto: " + c.table_rule.origin() + ")";
  if (c.requested != nullptr) {
    note += fmt::format(" ({} needs a power-of-two size: ran {})", c.requested->name,
                        c.algorithm->name);
  }
  return fmt::format("algorithm={} policy={} segment_bytes={} fanout={} max_requests={}{}",
                     c.algorithm != nullptr ? c.algorithm->name : "?",
                     c.policy == schedule::Policy::blocking ? "blocking" : "nonblocking",
                     c.segment_bytes, c.fanout, c.max_requests, note);
}

namespace {

// The caller's options, whichever struct they came in, once their stored enums are checked.
struct Requested {
  int algorithm = 0;  // 0: auto
  CommonOptions common;
};

relay_status_t resolve_requested(const core::RelayEnvironment& env, Requested o, const Call& call,
                                 const char* function, int position, int op_position,
                                 Config& config) {
  const std::string_view prefix = env_prefix(call.collective);
  if (const char* v = env.get(core::Knob::op_algorithm, prefix)) {
    const Algorithm* named = find_algorithm(call.collective, std::string_view(v));
    if (std::strcmp(v, "auto") == 0) {
      o.algorithm = 0;
    } else if (named != nullptr) {
      o.algorithm = named->id;
    } else {
      // The broadcast's message predates the others' and is kept as it was.
      const std::string what = call.collective == Collective::bcast
                                   ? std::string("an algorithm")
                                   : fmt::format("a {} algorithm", to_string(call.collective));
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not {} (relay algorithms)", function,
                        core::setting_name(core::Knob::op_algorithm, prefix), v, what);
    }
  }
  CommonOptions& common = o.common;
  if (auto st = apply_environment(env, prefix, function, common); st != RELAY_SUCCESS) return st;
  if (o.algorithm != 0 && find_algorithm(call.collective, o.algorithm) == nullptr) {
    return core::fail(RELAY_ERR_ALGORITHM,
                      "{}: argument {} (options->algorithm = {}) is not a "
                      "{} algorithm",
                      function, position, o.algorithm, to_string(call.collective));
  }
  if (auto st = validate(common, call.elem_bytes, function, position); st != RELAY_SUCCESS) {
    return st;
  }

  config = Config{};
  config.automatic = o.algorithm == 0;
  std::int64_t chosen_segment = RELAY_SEGMENT_DEFAULT;
  if (config.automatic) {
    // A tuning table first (a rule whose choice cannot keep a non-commutative op in order is
    // passed over), then the closed form.
    const Algorithm* from_table = nullptr;
    auto usable = [&](const coll::Rule& rule) {
      from_table = find_algorithm(call.collective, rule.choice.algorithm);
      return from_table != nullptr && (call.commutative || from_table->keeps_rank_order);
    };
    coll::AutoRule chosen;
    if (auto st = coll::auto_rule(std::string(to_string(call.collective)), call.size, call.bytes,
                                  usable, chosen);
        st != RELAY_SUCCESS) {
      return st;
    }
    if (chosen.rule != nullptr) {
      coll::take_choice(*chosen.rule, chosen_segment, common.policy, common.fanout);
      config.algorithm = from_table;
    } else {
      const ClosedFormChoice choice = closed_form(call);
      config.algorithm = choice.algorithm;
      chosen_segment = choice.segment_bytes;
    }
    config.table_rule = std::move(chosen);
  } else {
    config.algorithm = find_algorithm(call.collective, o.algorithm);
  }
  if (!call.commutative && !config.algorithm->keeps_rank_order) {
    return core::fail(RELAY_ERR_OP,
                      "{}: argument {} (op) is not commutative and {} {} reorders "
                      "operands (use one that keeps rank order, mpi, or auto)",
                      function, op_position, to_string(call.collective), config.algorithm->name);
  }
  if (!config.algorithm->runs_on(call.size)) {
    config.requested = config.algorithm;
    config.algorithm = find_algorithm(call.collective, config.algorithm->fallback);
  }
  config.policy = common.policy == RELAY_POLICY_BLOCKING ? schedule::Policy::blocking
                                                         : schedule::Policy::nonblocking;
  if (common.segment_bytes == RELAY_SEGMENT_DEFAULT) {
    config.segment_bytes = chosen_segment != RELAY_SEGMENT_DEFAULT
                               ? chosen_segment
                               : config.algorithm->default_segment_bytes;
    // Defaults must also be whole elements: round down, but never to zero.
    if (config.segment_bytes > 0) {
      config.segment_bytes =
          std::max(call.elem_bytes, config.segment_bytes / call.elem_bytes * call.elem_bytes);
    }
  } else {
    config.segment_bytes = common.segment_bytes;
  }
  if (config.segment_bytes >= call.bytes) config.segment_bytes = 0;
  config.fanout = config.algorithm->uses_fanout && common.fanout > 0
                      ? common.fanout
                      : config.algorithm->default_fanout;
  config.max_requests = common.max_requests > 0 ? common.max_requests : kDefaultMaxRequests;
  config.check =
      common.check == RELAY_CHECK_COLLECTIVE ? RELAY_CHECK_COLLECTIVE : RELAY_CHECK_LOCAL;
  if (config.algorithm->build == nullptr) {  // `mpi`: segments, fanout and policy do not apply
    config.segment_bytes = 0;
    config.fanout = 1;
  }
  if (config.segment_bytes > 0 &&
      (call.bytes - 1) / config.segment_bytes + 1 > schedule::kMaxSegments) {
    return core::fail(RELAY_ERR_SEGMENT,
                      "{}: segment_bytes = {} cuts {} bytes into {} segments; "
                      "relay plans at most {} per call (each is a step of every rank's "
                      "schedule): use segments of at least {} bytes",
                      function, config.segment_bytes, call.bytes,
                      (call.bytes - 1) / config.segment_bytes + 1, schedule::kMaxSegments,
                      (call.bytes - 1) / schedule::kMaxSegments + 1);
  }
  return RELAY_SUCCESS;
}

}  // namespace

relay_status_t resolve(const core::RelayEnvironment& env, const relay_bcast_options_t* options,
                       const Call& call, const char* function, int position, Config& config) {
  relay_bcast_options_t o;
  // The caller's struct as far as its struct_size reaches, and its enum fields as the integers
  // stored there, before anything below reads one as its enum type (a stored 99 is undefined
  // behaviour to load: UBSan).
  if (auto st = read_options(options, o, function, position); st != RELAY_SUCCESS) return st;
  const Requested requested{static_cast<int>(o.algorithm),
                            {o.policy, o.segment_bytes, o.fanout, o.max_requests, o.check}};
  return resolve_requested(env, requested, call, function, position, 0, config);
}

relay_status_t resolve(const core::RelayEnvironment& env, const relay_coll_options_t* options,
                       const Call& call, const char* function, int position, int op_position,
                       Config& config) {
  relay_coll_options_t o;
  // As far as its struct_size reaches; policy and check as the integers stored there, before
  // anything reads them as enums.
  if (auto st = read_options(options, o, function, position); st != RELAY_SUCCESS) return st;
  const Requested requested{o.algorithm,
                            {o.policy, o.segment_bytes, o.fanout, o.max_requests, o.check}};
  return resolve_requested(env, requested, call, function, position, op_position, config);
}

}  // namespace relay::coll
