// Costing a schedule: a discrete-event replay of every rank's program on a machine model.
//
// The same schedules the executor runs are replayed here, so a prediction reflects the real
// order of operations, the dependencies, the executor policy, its window and its per-peer byte
// budget (vadhiyar2004 Fig. 5 evaluates its model over the algorithm's communication schedule in
// the same spirit). The machine (params.hpp) gives each message its PLogP costs:
//   - the sender's CPU spends os(m) issuing it; a rendezvous message (above the machine's
//     eager limit) then waits for its handshake, the control messages' round trip, with the
//     CPU free; then it waits for the sender's output port and
//     the receiver's input port (a node sends one message at a time and receives one at a
//     time: LogP's gap; receives are pre-posted, so nothing else waits);
//   - holding both ports, it spends the fixed part of g(m), then moves the work part at the
//     rate the two nodes' links allow: 1 when a node only sends or only receives; when a node
//     does both, each direction gets min(1, (1 + duplex) / 2) -- duplex = 1 is a full-duplex
//     link, duplex = 0 tan2014 IV.B's even split between receiving and forwarding. A transfer
//     runs at the smaller of its two ends' rates (no redistribution of the unused share: the
//     two directions of a node are the only sharing a one-port model has);
//     With machine.transfer_slots > 0 (shared memory with more ranks than cores), when more
//     transfers than that are in their work phase at once, each runs at slots / count of its
//     rate;
//   - it arrives L(m) after the ports are released, and completes at the receiver after or(m).
// With machine.shared_link there are no ports: a ready message starts at once, its fixed part
// of g is a delay holding no bandwidth, and every node's outgoing and incoming bandwidth is
// split among its transfers in their work phase by max-min fairness (out and in 1 each, both
// together 1 + duplex), as SimGrid's flows and TCP's connections share a link.
// A send completes (frees its window slot and budget; in the blocking policy, lets the rank go
// on) when its ports are released. A combine step (reductions) keeps its rank's CPU busy for
// machine.combine(bytes) once the receives it needs are complete: in program order with the
// rank's other steps in the blocking policy; in the nonblocking policy in order among
// combines, before the sends that can start at the same moment (as the executor's
// local_steps), and sends that need it wait for it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/params.hpp"
#include "schedule/policy.hpp"
#include "schedule/schedule.hpp"

namespace relay::model {

struct Prediction {
  double time_s = 0;             ///< when the last rank finishes
  std::vector<double> finish_s;  ///< per rank
  long long messages = 0;
};

/// The executor's limits the replay honours.
struct ReplayLimits {
  int window = 16;                      ///< sends in flight per rank
  std::int64_t peer_bytes = 64 * 1024;  ///< bytes in flight to one peer (one larger
                                        ///< message always allowed); 0 = one message
};

/// Replays `schedule` on `machine` with the executor's `policy` and limits. Throws
/// std::logic_error if the schedule cannot complete (a deadlock or a mismatched message).
Prediction replay(const schedule::Schedule& schedule, schedule::Policy policy,
                  const ReplayLimits& limits, const Machine& machine);

/// Shorthand with the default per-peer budget.
inline Prediction replay(const schedule::Schedule& schedule, schedule::Policy policy, int window,
                         const Machine& machine) {
  return replay(schedule, policy, ReplayLimits{window, 64 * 1024}, machine);
}

}  // namespace relay::model
