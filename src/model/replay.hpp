// Costing a schedule: a discrete-event replay of every rank's program on a machine model.
//
// The same schedules the executor runs are replayed here, so a prediction reflects the real
// order of operations, the dependencies, the executor policy and its window (vadhiyar2004 Fig. 5
// evaluates its model over the algorithm's communication schedule in the same spirit).
//
// Machine model (a port model in the Hockney/LogGP family):
//   - a message of m bytes occupies the sender's output port and the receiver's input port for
//     alpha + beta * m seconds (Hockney: alpha is the per-message start-up that cannot overlap);
//   - it then needs `latency` more seconds in flight (LogP's L) before it has arrived;
//   - the sender's CPU spends send_overhead to start it, the receiver's CPU recv_overhead to
//     complete it (PLogP's os and or);
//   - input and output ports are independent (full duplex). A shared link (tan2014 IV.B's even
//     split between receiving and forwarding) needs bandwidth sharing between concurrent
//     transfers, not port serialisation -- which lets an upstream rank flood its neighbour and
//     degrade a pipeline to store-and-forward -- and is left to issue 4.
// Receives are assumed pre-posted (the executor pre-posts them), so a transfer starts as soon as
// the send is issued and both ports are free.
#pragma once

#include <vector>

#include "exec/executor.hpp"
#include "schedule/schedule.hpp"

namespace relay::model {

struct Machine {
  double alpha_s = 0;            ///< per-message port time, seconds
  double beta_s_per_byte = 0;    ///< seconds per byte (1 / bandwidth)
  double latency_s = 0;          ///< flight time after the ports are released
  double send_overhead_s = 0;    ///< sender CPU per message
  double recv_overhead_s = 0;    ///< receiver CPU per message
};

struct Prediction {
  double time_s = 0;                 ///< when the last rank finishes
  std::vector<double> finish_s;      ///< per rank
  long long messages = 0;
};

/// Replays `schedule` on `machine` with the executor's `policy` and send window. Throws
/// std::logic_error if the schedule cannot complete (a deadlock or a mismatched message).
Prediction replay(const schedule::Schedule& schedule, exec::Policy policy, int window,
                  const Machine& machine);

}  // namespace relay::model
