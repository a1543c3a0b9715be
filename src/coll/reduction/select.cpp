#include "coll/reduction/select.hpp"

#include <algorithm>
#include <string>

#include "core/status.hpp"
#include "schedule/schedule.hpp"
#include "tune/active.hpp"
#include "tune/table.hpp"

namespace relay::coll {

std::string to_string(const CollConfig& c) {
  std::string note;
  if (c.automatic) note = " (auto: " + c.table_rule.origin() + ")";
  if (c.requested != nullptr) {
    note += fmt::format(" ({} needs a power-of-two size: ran {})", c.requested->name,
                        c.algorithm->name);
  }
  return fmt::format("algorithm={} policy={} segment_bytes={} fanout={} max_requests={}{}",
                     c.algorithm != nullptr ? c.algorithm->name : "?",
                     c.policy == exec::Policy::blocking ? "blocking" : "nonblocking",
                     c.segment_bytes, c.fanout, c.max_requests, note);
}

// Without a tuning table rule, `auto` follows the closed forms of
// Thakur, Rabenseifner and Gropp (2005): latency-bound algorithms below 64 KiB, bandwidth-bound
// ones above; a non-commutative op gets an algorithm that keeps rank order. Gather and scatter
// are binomial at every size, barrier dissemination. allgatherv: gather_bcast for a total under
// 64 KiB on more than 4 ranks (2 ceil(log2 P) latencies instead of the ring's P - 1), else the
// segmented ring.
const CollAlgorithm& auto_coll_algorithm(const CollCall& call) {
  constexpr std::int64_t kSmall = 64 * 1024;
  const bool small = call.bytes < kSmall || call.size <= 2;
  auto pick = [&](int id) -> const CollAlgorithm& {
    return *find_coll_algorithm(call.collective, id);
  };
  switch (call.collective) {
    case Collective::reduce:
      if (small) return pick(RELAY_REDUCE_BINOMIAL);
      return pick(call.commutative ? RELAY_REDUCE_RABENSEIFNER : RELAY_REDUCE_PIPELINE);
    case Collective::allreduce:
      if (small) return pick(RELAY_ALLREDUCE_RECURSIVE_DOUBLING);
      return pick(call.commutative ? RELAY_ALLREDUCE_RABENSEIFNER : RELAY_ALLREDUCE_REDUCE_BCAST);
    case Collective::allgather:
      return pick(small ? RELAY_ALLGATHER_BRUCK : RELAY_ALLGATHER_RING);
    case Collective::reduce_scatter_block:
      if (!call.commutative) return pick(RELAY_REDUCE_SCATTER_MPI);
      return pick(small ? RELAY_REDUCE_SCATTER_RECURSIVE_HALVING : RELAY_REDUCE_SCATTER_RING);
    case Collective::gather: return pick(RELAY_GATHER_BINOMIAL);
    case Collective::scatter: return pick(RELAY_SCATTER_BINOMIAL);
    case Collective::alltoall:  // MPICH's rule: Bruck for blocks of at most 256 bytes, P >= 8
      return pick(call.size >= 8 && call.bytes / call.size <= 256 ? RELAY_ALLTOALL_BRUCK
                                                                  : RELAY_ALLTOALL_LINEAR);
    case Collective::barrier: return pick(RELAY_BARRIER_DISSEMINATION);
    case Collective::allgatherv:
      return pick(call.bytes < kSmall && call.size > 4 ? RELAY_ALLGATHERV_GATHER_BCAST
                                                       : RELAY_ALLGATHERV_RING);
  }
  return pick(0);
}

relay_status_t resolve_coll(const core::RelayEnvironment& env, const relay_coll_options_t* options,
                            const CollCall& call,
                            const char* function, int position, int op_position,
                            CollConfig& config) {
  relay_coll_options_t o;
  // policy and check as the integers stored there, before anything reads them as enums.
  if (auto st = read_options(options, o, function, position); st != RELAY_SUCCESS) return st;
  const std::string_view prefix = env_prefix(call.collective);
  if (const char* v = env.get(core::Knob::op_algorithm, prefix)) {
    if (relay_coll_algorithm_from_name(static_cast<relay_collective_t>(call.collective), v,
                                       &o.algorithm) != RELAY_SUCCESS) {
      return core::fail(RELAY_ERR_OPTIONS, "{}: {}='{}' is not a {} algorithm (relay algorithms)",
                        function, core::setting_name(core::Knob::op_algorithm, prefix), v,
                        to_string(call.collective));
    }
  }
  CommonOptions common{o.policy, o.segment_bytes, o.fanout, o.max_requests, o.check};
  if (auto st = apply_environment(env, prefix, function, common); st != RELAY_SUCCESS) {
    return st;
  }
  if (o.algorithm != 0 && find_coll_algorithm(call.collective, o.algorithm) == nullptr) {
    return core::fail(RELAY_ERR_ALGORITHM, "{}: argument {} (options->algorithm = {}) is not a "
                      "{} algorithm", function, position, o.algorithm, to_string(call.collective));
  }
  if (auto st = validate(common, call.elem_bytes, function, position); st != RELAY_SUCCESS) {
    return st;
  }

  config = CollConfig{};
  config.automatic = o.algorithm == 0;
  std::int64_t table_segment = RELAY_SEGMENT_DEFAULT;
  if (config.automatic) {
    // A tuning table first (a rule whose choice cannot keep a non-commutative op in order is
    // passed over), then the closed forms.
    const CollAlgorithm* from_table = nullptr;
    auto usable = [&](const tune::Rule& rule) {
      from_table = find_coll_algorithm(call.collective, rule.choice.algorithm);
      return from_table != nullptr && (call.commutative || from_table->keeps_rank_order);
    };
    tune::AutoRule chosen;
    if (auto st = tune::auto_rule(std::string(to_string(call.collective)), call.size, call.bytes,
                                  usable, chosen);
        st != RELAY_SUCCESS) {
      return st;
    }
    if (chosen.rule != nullptr) {
      tune::take_choice(*chosen.rule, table_segment, common.policy, common.fanout);
    }
    config.algorithm = chosen.rule != nullptr ? from_table : &auto_coll_algorithm(call);
    config.table_rule = std::move(chosen);
  } else {
    config.algorithm = find_coll_algorithm(call.collective, o.algorithm);
  }
  if (!call.commutative && !config.algorithm->keeps_rank_order) {
    return core::fail(RELAY_ERR_OP, "{}: argument {} (op) is not commutative and {} {} reorders "
                      "operands (use one that keeps rank order, mpi, or auto)", function,
                      op_position, to_string(call.collective), config.algorithm->name);
  }
  if (!config.algorithm->runs_on(call.size)) {
    config.requested = config.algorithm;
    config.algorithm = find_coll_algorithm(call.collective, config.algorithm->fallback);
  }
  config.policy = common.policy == RELAY_POLICY_BLOCKING ? exec::Policy::blocking
                                                         : exec::Policy::nonblocking;
  if (common.segment_bytes == RELAY_SEGMENT_DEFAULT) {
    config.segment_bytes = table_segment != RELAY_SEGMENT_DEFAULT
                               ? table_segment : config.algorithm->default_segment_bytes;
    if (config.segment_bytes > 0) {
      config.segment_bytes =
          std::max(call.elem_bytes, config.segment_bytes / call.elem_bytes * call.elem_bytes);
    }
  } else {
    config.segment_bytes = common.segment_bytes;
  }
  if (config.segment_bytes >= call.bytes) config.segment_bytes = 0;
  config.fanout = config.algorithm->uses_fanout && common.fanout > 0 ? common.fanout : 1;
  config.max_requests = common.max_requests > 0 ? common.max_requests : kDefaultMaxRequests;
  config.check = common.check == RELAY_CHECK_COLLECTIVE ? RELAY_CHECK_COLLECTIVE
                                                        : RELAY_CHECK_LOCAL;
  if (config.algorithm->build == nullptr) {
    config.segment_bytes = 0;
    config.fanout = 1;
  }
  if (config.segment_bytes > 0 &&
      (call.bytes - 1) / config.segment_bytes + 1 > schedule::kMaxSegments) {
    return core::fail(RELAY_ERR_SEGMENT, "{}: segment_bytes = {} cuts {} bytes into {} segments; "
                      "relay plans at most {} per call (each is a step of every rank's "
                      "schedule): use segments of at least {} bytes", function,
                      config.segment_bytes, call.bytes, (call.bytes - 1) / config.segment_bytes + 1,
                      schedule::kMaxSegments, (call.bytes - 1) / schedule::kMaxSegments + 1);
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::coll
