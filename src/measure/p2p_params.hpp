// Point-to-point parameters of this machine between rank 0 and a peer: ping-pong, PLogP's os,
// or, g and L, the eager/rendezvous switch, link sharing (duplex), concurrent transfers
// (transfer slots) and the cost of a combine, each repeated until stable. The model fits and
// reads them (model/params.hpp: params_document, machine_from_json).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace relay::measure {

/// Paired samples of link sharing (duplex) after a warm-up pair.
inline constexpr int kDuplexSamples = 11;

/// Called before the buffers are allocated with what this rank is about to allocate, for
/// `what` (said in a refusal); throws to refuse. Collective over the measured communicator.
using MemoryCheck = std::function<void(double bytes_per_rank, const std::string& what)>;

/// What to measure, and how long to insist.
struct P2pOptions {
  std::vector<std::int64_t> sizes;  ///< message sizes, bytes (sorted, 0 dropped, by measure_p2p)
  int peer = 1;                     ///< the rank measured against rank 0
  double max_spread = 0.05;         ///< stop once the relative interquartile spread is below this
  double max_seconds = 1.0;         ///< cap per quantity and size
  int max_samples = 200;            ///< cap per quantity and size
  /// Who measures at a time: "lone" (rank 0 and peer; the others wait), "concurrent" (every
  /// rank, in pairs; rank 0's pair reported) or "auto" (concurrent when some host runs more
  /// ranks than it has cores, lone otherwise).
  std::string pairs = "auto";
  /// > 0: messages take successive parts of a buffer this large per rank (at least twice the
  /// largest size), so that no size is served from a cache (IMB's -off_cache); 0 = reuse one.
  std::int64_t cycle_bytes = 0;
  bool quiet = false;        ///< no progress on stderr
  MemoryCheck check_memory;  ///< optional
};

/// One message size, rank 0 and its partner.
struct P2pRow {
  std::int64_t bytes = 0;
  double rtt_s = 0, rtt_spread = 0;
  std::size_t rtt_samples = 0;
  double os_s = 0, or_s = 0, g_s = 0, g_spread = 0;
  double latency_s = 0;  ///< RTT/2 - os - g - or, at least 0
  double over_rtt = 0;   ///< (os + g + or) / (RTT/2) where above 1; 0 otherwise
  bool eager = false;
  bool stable = false;  ///< RTT and g met the spread bound
};

struct CombineRow {
  std::int64_t bytes = 0;
  double s = 0;  ///< MPI_Reduce_local of doubles, MPI_SUM, median seconds per call
  double spread = 0;
};

struct P2pMeasurement {
  int peer = 1;
  bool concurrent = false;  ///< every rank measured in pairs at once
  std::string pairs_reason;
  std::int64_t cycle_bytes = 0;  ///< the cycled buffer's bytes; 0 without cycling
  std::vector<P2pRow> rows;      ///< by size
  std::int64_t eager_limit_bytes = 0;
  double duplex = 1, duplex_spread = 0;
  double transfer_slots = 0;  ///< 0: no limit
  double concurrent_slowdown = 1;
  /// Rank 0 sends to two peers at once: the first message's time over one message alone
  /// (median of paired samples): about 1 when a node sends one message at a time at the full
  /// rate, about 2 when the two share its link. 0: not measured (fewer than 3 ranks).
  double two_peers_first_ratio = 0;
  std::vector<CombineRow> combine;
};

/// Measures; the result is complete on rank 0 (elsewhere empty). Collective over `comm`;
/// throws std::invalid_argument on bad options (fewer than 2 ranks, a peer out of range,
/// no size above 0, a size beyond an MPI count, an unknown `pairs`).
P2pMeasurement measure_p2p(MPI_Comm comm, const P2pOptions& options);

}  // namespace relay::measure
