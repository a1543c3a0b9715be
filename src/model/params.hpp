// Point-to-point parameters the model costs messages with: a Hockney alpha-beta pair, or a
// PLogP table measured per message size (relay model measure), and how a node's send and
// receive streams share its bandwidth.
//
// One message of m bytes, as the replay (replay.hpp) costs it:
//   - the sender's CPU is busy os(m) to issue it (PLogP's send overhead);
//   - it then holds the sender's output port and the receiver's input port for g(m) (PLogP's
//     gap: the interval between back-to-back messages; Hockney: alpha + beta m). g(m) is cut into
//     a fixed part, which needs the ports but no bandwidth (alpha; with a table, g of the
//     smallest size measured), and a work part, g(m) minus the fixed part, which is moved at the
//     rate the node's links allow (1 when alone; less when shared, see `duplex`);
//   - it needs L(m) more to arrive (flight latency), and the receiver's CPU or(m) to complete;
//   - above the eager limit (eager_limit_bytes, measured by relay model measure: the first size
//     whose MPI_Send waits for the receiver) it is a rendezvous: before it may take the ports,
//     its request to send goes to the receiver and the acknowledgement comes back, a round trip
//     of two control messages costed as the table's smallest size end to end (handshake_s).
//     They hold no ports: a control message is a packet or two, which interleave with data on
//     a link rather than wait for a whole message. A blocking sender sits idle for the round
//     trip on every send, a nonblocking one keeps its other sends moving; on the 8-node
//     emulated cluster (TCP eager limit 64 KiB including the header) binary blocking with 64 KiB
//     segments ran 681 ms against 590-615 ms at 16-32 KiB, a bump the model lacked without it.
// A combine step of a reduction (schedule.hpp) of m bytes keeps its rank's CPU busy for
// combine(m): MPI_Reduce_local of doubles with MPI_SUM, timed per size by relay model measure
// (linear interpolation between sizes, the last two sizes' slope beyond them); a file without
// those timings makes combines free.
// An isolated message therefore costs os + g + L + or end to end, which is how relay model
// measure derives L from the ping-pong: L(m) = RTT(m)/2 - os(m) - g(m) - or(m), at least 0, so
// that the model reproduces the measured ping-pong by construction -- where os + g + or fit in
// RTT/2. A rendezvous message's data moves while its receive runs, so g and or both contain
// the transfer (the receiver's copy on shared memory, the stream on TCP) and exceed it (2-3x
// here): an isolated message then costs more than the ping-pong, and relay model measure marks
// those rows (over_rtt). Taking the overlap out of or made the picks worse (docs/tuning.md),
// also with the handshake modelled: predictions came within 0.68-1.10x of the cluster's
// measured times (0.86-1.85x with it), but binomial and kary picks moved to 4 MiB, up to 1.47x
// their best. Several large sends from one node share its TCP link at once where the one-port
// replay serialises them; the overlap left in or seems to stand in for that.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/p2p_params.hpp"

namespace relay::model {

/// PLogP parameters at one message size, seconds.
struct PlogpRow {
  std::int64_t bytes = 0;
  double send_overhead_s = 0;  ///< os(m)
  double recv_overhead_s = 0;  ///< or(m)
  double gap_s = 0;            ///< g(m)
  double latency_s = 0;        ///< L(m)
};

/// Rows sorted by size; values between two sizes are interpolated linearly in bytes; below the
/// first size the first row applies; above the last, g grows with the slope of the last two rows
/// (the asymptotic bandwidth) and the other parameters stay at the last row's values.
class PlogpTable {
 public:
  PlogpTable() = default;
  /// Throws std::invalid_argument unless sizes are distinct, >= 0, and values finite, >= 0.
  explicit PlogpTable(std::vector<PlogpRow> rows);
  bool empty() const { return rows_.empty(); }
  const std::vector<PlogpRow>& rows() const { return rows_; }
  PlogpRow at(std::int64_t bytes) const;

 private:
  std::vector<PlogpRow> rows_;
};

/// Seconds of CPU per call at measured sizes (combines of reductions), interpolated like the
/// PLogP table: linearly between sizes, the first row's time below the first size, the last two
/// rows' slope above the last. Empty = free.
class CpuCostTable {
 public:
  CpuCostTable() = default;
  /// Throws std::invalid_argument unless sizes are distinct, > 0, and times finite, >= 0.
  explicit CpuCostTable(std::vector<std::pair<std::int64_t, double>> rows);
  bool empty() const { return rows_.empty(); }
  const std::vector<std::pair<std::int64_t, double>>& rows() const { return rows_; }
  /// 0 for 0 bytes.
  double at(std::int64_t bytes) const;

 private:
  std::vector<std::pair<std::int64_t, double>> rows_;
};

/// What one message costs (see the file comment).
struct MessageCost {
  double send_overhead_s = 0;
  double recv_overhead_s = 0;
  double port_fixed_s = 0;  ///< holds the ports, needs no bandwidth
  double port_work_s = 0;   ///< seconds at the full link rate
  double latency_s = 0;
  /// Rendezvous (bytes above the machine's eager limit): the control messages' round trip
  /// (request to send, then the receiver's acknowledgement) before the data may take the ports.
  double handshake_s = 0;
};

struct Machine {
  double alpha_s = 0;          ///< per-message port time, seconds
  double beta_s_per_byte = 0;  ///< seconds per byte (1 / bandwidth)
  double latency_s = 0;        ///< flight time after the ports are released
  double send_overhead_s = 0;  ///< sender CPU per message
  double recv_overhead_s = 0;  ///< receiver CPU per message
  /// How a node's outgoing and incoming transfers share bandwidth: each direction alone runs at
  /// the full rate; both together may use at most (1 + duplex) times it. 1 = full duplex
  /// (independent directions), 0 = one shared link split between them (tan2014 IV.B: the
  /// forwarding rank's send and receive each get half). Transfers to several peers: see
  /// shared_link.
  double duplex = 1.0;
  /// How many transfers the machine moves at full rate at once (0 = no limit). On shared
  /// memory moving data is a CPU copy, so with more ranks than cores only about as many copies
  /// progress as there are cores; when more transfers are in their work phase, all of them
  /// slow to transfer_slots / count of the rate (processor sharing). Measured by relay model
  /// measure (all ranks in pairs at once against one pair alone); 0 where no contention shows,
  /// as between the nodes of a network, whose links are separate.
  double transfer_slots = 0;
  /// How a node's messages in flight to several peers move. false (one port, LogP): one at a
  /// time, in the order they became ready, each at the full rate -- shared memory, and the
  /// model's default. true (a shared link, as TCP's connections or SimGrid's flows): all at
  /// once, each node's outgoing and incoming bandwidth split among its transfers by max-min
  /// fairness, the fixed part of g a delay that holds no bandwidth. Measured by relay model
  /// measure with 3 or more ranks (one rank sends to two peers at once: whether the first
  /// message takes one transfer's time or two).
  bool shared_link = false;
  /// When not empty, per-size os/or/g/L replace the five constants above.
  PlogpTable plogp;
  /// CPU time of a combine step by its bytes; empty: combines are free.
  CpuCostTable combine;
  /// Messages larger than this are rendezvous messages (-1: every message is eager). Needs the
  /// PLogP table (the control messages are costed as its smallest size).
  std::int64_t eager_limit_bytes = -1;

  MessageCost cost(std::int64_t bytes) const;
};

/// Hockney fit of one-way times t(m) = alpha + beta m (relative least squares).
struct HockneyFit {
  double alpha_s = 0;
  double beta_s_per_byte = 0;
  bool ok = false;
};
HockneyFit fit_hockney(const std::vector<std::int64_t>& bytes,
                       const std::vector<double>& one_way_s);

/// The schema name of model parameter files written by relay model measure.
inline constexpr const char* kParamsSchema = "relay.model.params/1";

/// Reads a parameter file's JSON into a Machine: the PLogP table when `use_plogp` and the file
/// has one, else the Hockney fit; `duplex` from the file unless overridden (>= 0). Throws
/// std::runtime_error naming the field that is missing or wrong.
Machine machine_from_json(const nlohmann::json& doc, bool use_plogp, double duplex_override = -1);
/// A parameter file (relay.model.params/1) from a measurement made on rank 0 of its
/// communicator, with the Hockney fit of its one-way times (RTT/2) and `machine` (the
/// description of the machine measured, as relay's results carry it).
nlohmann::json params_document(const measure::P2pMeasurement& measured,
                               const nlohmann::json& machine);
/// Reads and parses a parameter file. Throws std::runtime_error naming the file and problem.
nlohmann::json read_params_file(const std::string& path);

}  // namespace relay::model
