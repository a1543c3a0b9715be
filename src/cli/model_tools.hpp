// Shared by relay model, relay tune and the benchmarks: the model's time for one broadcast
// configuration.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <mpi.h>
#include <nlohmann/json.hpp>

#include "coll/reduction/reduction.hpp"
#include "model/params.hpp"
#include "schedule/schedule.hpp"

namespace relay::cli {

/// What relay model measure measures, and how long it insists.
struct P2pMeasureArgs {
  std::string sizes = "1B:16MiB,3KiB,12KiB,48KiB,96KiB,192KiB,768KiB,3MiB";
  int peer = 1;
  double spread = 0.05;     ///< stop once the relative interquartile spread is below this
  double max_seconds = 1.0;  ///< cap per quantity and size
  int max_samples = 200;     ///< cap per quantity and size
  /// Who measures at a time: "lone" (rank 0 and peer; the others wait), "concurrent" (every
  /// rank, in pairs; rank 0's pair reported) or "auto" (concurrent when some host runs more
  /// ranks than it has cores, lone otherwise; see measure_params).
  std::string pairs = "auto";
  /// With a size: messages take successive parts of a buffer this large per rank (at least
  /// twice the largest size), so that no size is served from a cache (IMB's -off_cache);
  /// 0 = one buffer reused by every message, as ping-pong benchmarks do.
  std::string cycle = "0";
  std::string output = "model.json";
  bool quiet = false;
};

/// The machine of a parameter file given to `option` (--model, --params); a file that cannot
/// be read or is not one throws std::invalid_argument naming the option and the file (a usage
/// error, alike on every rank).
model::Machine read_machine(const std::string& option, const std::string& path, bool use_plogp,
                            double duplex_override = -1);

/// Point-to-point parameters between rank 0 and `peer` (relay.model.params/1 JSON on rank 0,
/// empty elsewhere). Collective over `comm`; throws std::invalid_argument on bad arguments.
nlohmann::json measure_params(const P2pMeasureArgs& a, MPI_Comm comm);

/// The schedule relay_bcast runs for `algorithm` (root `root`, `segment` bytes, 0 =
/// unsegmented, fanout 0 = the algorithm's default); nullopt without one (mpi).
std::optional<schedule::Schedule> bcast_schedule(const std::string& algorithm, int ranks, int root,
                                                 std::int64_t bytes, std::int64_t segment, int fanout = 0);

/// Replays `algorithm`'s schedule (root `root`, `segment` bytes, 0 = unsegmented) under the
/// executor `policy` on `machine` (fanout 0 = the algorithm's default); -1 for an algorithm without a schedule (mpi).
double predict_bcast(const model::Machine& machine, const std::string& algorithm,
                     const std::string& policy, int ranks, int root, std::int64_t bytes,
                     std::int64_t segment, int window, int fanout = 0);

/// The collective an `--operation` names; nullopt for "bcast". Throws std::invalid_argument
/// listing the names for anything else.
std::optional<coll::Collective> parse_operation(const std::string& name);

/// The bytes relay's tables count for a call of `collective` on `ranks` ranks moving about
/// `bytes`: the vector (reduce, allreduce) or all blocks together (the others), rounded down to
/// whole elements (whole blocks), at least one; 1 for a barrier.
std::int64_t coll_call_bytes(coll::Collective collective, int ranks, std::int64_t bytes, int elem_bytes);

/// As bcast_schedule, for a collective of the reduction/gather catalogue (as predict_coll).
std::optional<schedule::Schedule> coll_schedule(coll::Collective collective, const std::string& algorithm, int ranks,
                                                int root, std::int64_t bytes, int elem_bytes, std::int64_t segment,
                                                int fanout = 0);

/// As predict_bcast, for a collective of the reduction/gather catalogue: `bytes` as
/// coll_call_bytes returns them, elements of `elem_bytes`, commutative op. -1 without a schedule.
double predict_coll(const model::Machine& machine, coll::Collective collective, const std::string& algorithm,
                    const std::string& policy, int ranks, int root, std::int64_t bytes, int elem_bytes,
                    std::int64_t segment, int window, int fanout = 0);

}  // namespace relay::cli
