// The one catalogue of collective algorithms: every collective (broadcast included) and every
// algorithm of it, each a schedule builder registered by name in a row of named fields.
//
// Dispatch, `relay algorithms`, the tuning-table validator, the test matrices, the model and
// the tuner all read it, so a newly registered algorithm is executed, listed, tested, costed
// and tuned without new code. Rows live beside their builders' family (coll/bcast/registry.cpp,
// coll/reduction/registry.cpp); one row of traits per collective (traits()) says where.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "relay/relay.h"
#include "schedule/schedule.hpp"

namespace relay::coll {

/// The values of relay_collective_t.
enum class Collective {
  reduce = RELAY_COLL_REDUCE,
  allreduce = RELAY_COLL_ALLREDUCE,
  allgather = RELAY_COLL_ALLGATHER,
  reduce_scatter_block = RELAY_COLL_REDUCE_SCATTER_BLOCK,
  gather = RELAY_COLL_GATHER,
  scatter = RELAY_COLL_SCATTER,
  alltoall = RELAY_COLL_ALLTOALL,
  barrier = RELAY_COLL_BARRIER,
  allgatherv = RELAY_COLL_ALLGATHERV,
  bcast = RELAY_COLL_BCAST
};

/// Every collective, broadcast first (the order `relay algorithms` lists them in).
inline constexpr Collective kCollectives[] = {Collective::bcast,
                                              Collective::reduce,
                                              Collective::allreduce,
                                              Collective::allgather,
                                              Collective::reduce_scatter_block,
                                              Collective::gather,
                                              Collective::scatter,
                                              Collective::alltoall,
                                              Collective::barrier,
                                              Collective::allgatherv};

/// Everything a program depends on (the cache key, less the rank and the algorithm), in bytes.
struct Shape {
  int size = 1;  ///< ranks in the communicator
  int root = 0;  ///< bcast, reduce, gather, scatter
  /// The vector (bcast, reduce, allreduce, barrier) or, with `blocks`, one rank's block.
  std::int64_t bytes = 0;
  /// The datatype's size: segments and blocks never split an element, and combines work on
  /// whole elements of the op.
  std::int64_t elem_bytes = 1;
  std::int64_t segment_bytes = 0;  ///< 0 = unsegmented
  int fanout = 1;                  ///< chains or children per node, where an algorithm uses it
  bool commutative = true;         ///< the op's (reductions)
  bool blocks = false;             ///< size blocks of `bytes` (Traits::has_blocks)
  /// allgatherv: elements of each rank's block, and where it starts (elements from the start of
  /// the buffer; normalized by the API so that the first non-empty block starts at 0 and empty
  /// blocks at 0). Empty: uniform blocks of `bytes`. Part of the cache key.
  std::vector<std::int64_t> block_counts, block_displs;

  /// Elements of the vector, or of one block.
  std::int64_t elements() const { return bytes / elem_bytes; }
  /// Bytes of block i (blocks only).
  std::int64_t block_bytes(int i) const {
    return block_counts.empty() ? bytes : block_counts[static_cast<std::size_t>(i)] * elem_bytes;
  }
  /// Byte offset of block i in the buffer (blocks only).
  std::int64_t block_offset(int i) const {
    return block_displs.empty() ? i * bytes
                                : block_displs[static_cast<std::size_t>(i)] * elem_bytes;
  }
  /// Bytes of the buffer the program addresses.
  std::int64_t buffer_bytes() const;
};

/// The bytes per message a broadcast builder uses: the segment size, or the whole message when
/// unsegmented, never more than schedule::kMaxMessageBytes.
inline std::int64_t effective_segment_bytes(const Shape& shape) {
  const std::int64_t segment = shape.segment_bytes > 0 ? shape.segment_bytes : shape.bytes;
  return segment < schedule::kMaxMessageBytes ? segment : schedule::kMaxMessageBytes;
}

using Builder = schedule::RankProgram (*)(const Shape& shape, int rank);

/// One registered algorithm. Rows are written with named fields (Row below).
struct Algorithm {
  Collective collective = Collective::bcast;
  int id = 0;                              ///< the C enum value (RELAY_BCAST_PIPELINE, ...)
  std::string_view name;                   ///< canonical: API, CLI, JSON, logs, tests
  std::string_view summary;                ///< one line for `relay algorithms` and docs
  Builder build = nullptr;                 ///< nullptr for `mpi` (runs the MPI library's call)
  std::int64_t default_segment_bytes = 0;  ///< when the caller leaves it to relay; 0 = none
  bool uses_fanout = false;                ///< the caller's fanout applies
  int default_fanout = 1;                  ///< the fanout when the caller's does not apply or is 0
  bool keeps_rank_order = true;            ///< accepts non-commutative ops
  bool needs_power_of_two = false;         ///< otherwise runs `fallback` (logged)
  int fallback = 0;                        ///< id run instead when a restriction fails

  /// Whether it runs itself on `size` ranks (else its `fallback` runs).
  bool runs_on(int size) const { return !needs_power_of_two || (size & (size - 1)) == 0; }
};

/// A registry row with named fields (RowsOf below writes them shorter):
///   Row(Collective::reduce, RELAY_REDUCE_CHAIN, "chain", reduce_chain)
///       .summary("fanout chains into the root (segment to pipeline)").fanout_tunable(1)
/// Fields not named keep Algorithm's defaults.
class Row {
 public:
  Row(Collective collective, int id, std::string_view name, Builder build) {
    a_.collective = collective;
    a_.id = id;
    a_.name = name;
    a_.build = build;
  }
  Row summary(std::string_view text) const {
    return with([&](Algorithm& a) { a.summary = text; });
  }
  Row default_segment_bytes(std::int64_t bytes) const {
    return with([&](Algorithm& a) { a.default_segment_bytes = bytes; });
  }
  /// The fanout it always uses (binary: 2); the caller's does not apply.
  Row fixed_fanout(int fanout) const {
    return with([&](Algorithm& a) { a.default_fanout = fanout; });
  }
  /// The caller's fanout applies; `fallback_fanout` when it is 0.
  Row fanout_tunable(int fallback_fanout) const {
    return with([&](Algorithm& a) {
      a.uses_fanout = true;
      a.default_fanout = fallback_fanout;
    });
  }
  /// Combines operands out of rank order: refuses non-commutative ops.
  Row reorders_operands() const {
    return with([](Algorithm& a) { a.keeps_rank_order = false; });
  }
  /// Runs on power-of-two sizes only; `fallback` (an id of the same collective) runs otherwise.
  Row power_of_two_else(int fallback) const {
    return with([&](Algorithm& a) {
      a.needs_power_of_two = true;
      a.fallback = fallback;
    });
  }
  operator Algorithm() const { return a_; }  // implicit: rows convert into the registry's vector

 private:
  template <class Set>
  Row with(Set set) const {
    Row r = *this;
    set(r.a_);
    return r;
  }
  Algorithm a_;
};

/// The rows of one collective: `const RowsOf row{Collective::reduce};` then
/// `row(RELAY_REDUCE_CHAIN, "chain", reduce_chain).summary(...)`.
struct RowsOf {
  Collective collective;
  Row operator()(int id, std::string_view name, Builder build) const {
    return Row(collective, id, name, build);
  }
};

/// The call a configuration is resolved for.
struct Call {
  Collective collective = Collective::bcast;
  int size = 1;
  std::int64_t bytes = 0;  ///< the data moved (all blocks; allgatherv: the sum of them)
  std::int64_t elem_bytes = 1;
  bool commutative = true;  ///< the op's; true without one
};

/// What `auto` takes without a tuning-table rule: an algorithm and, when the closed form chose
/// one, a segment size (RELAY_SEGMENT_DEFAULT: the algorithm's default).
struct ClosedFormChoice {
  const Algorithm* algorithm = nullptr;
  std::int64_t segment_bytes = RELAY_SEGMENT_DEFAULT;
};

/// Where a collective's C entry point (relay_<name>) takes each argument, counting from 1; 0:
/// it has no such argument. Error messages name arguments by position.
struct ArgumentPositions {
  int op, root, comm, options;
};

/// Which ranks an argument, or a result, concerns.
enum class Ranks : std::uint8_t { none, root, all };
/// Whether `ranks` includes a rank that is (or is not) the root.
inline bool includes(Ranks ranks, bool is_root) {
  return ranks == Ranks::all || (ranks == Ranks::root && is_root);
}

/// MPI's buffer rules: on which ranks sendbuf and recvbuf are significant, and where either may
/// be MPI_IN_PLACE (the API checks the arguments by them, on every rank).
struct BufferRules {
  Ranks send, recv, send_in_place, recv_in_place;
};

/// What recvbuf holds after the call: on which ranks, and whether all `size` blocks (else one
/// block, or the vector).
struct ResultRule {
  Ranks at;
  bool all_blocks;
};

/// How the executor combines what a step receives into the accumulator.
enum class Combine : std::uint8_t {
  caller_op,  ///< the reductions: the caller's MPI_Op
  replace,    ///< data moved to its place (MPI_REPLACE: bruck's unpacking)
  byte_or     ///< the barrier's one byte, OR-ed
};

/// The arguments of any collective, in MPI's terms. Those a collective does not take are
/// ignored (a barrier takes none of them).
struct Buffers {
  const void* send = nullptr;  ///< sendbuf (bcast: unused)
  void* recv = nullptr;        ///< recvbuf; bcast: the one buffer
  int count = 0;               ///< as the C call takes it (per rank for the block collectives)
  MPI_Datatype type = MPI_BYTE;
  MPI_Op op = MPI_OP_NULL;  ///< reductions
  int root = 0;             ///< bcast, reduce, gather, scatter
  /// allgatherv: recvcounts, displs and recvtype (MPI_DATATYPE_NULL: `type`).
  const int* recvcounts = nullptr;
  const int* displs = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
};

/// Memory an accumulator may need beyond the caller's buffers, held by the request.
class Workspace {
 public:
  /// Uninitialized bytes (at least 1), valid until the request completes; one per call.
  virtual char* work(std::int64_t bytes) = 0;
  /// A local copy made now (the caller's data into the accumulator before the schedule runs).
  virtual void copy_now(char* to, const char* from, std::int64_t bytes) = 0;
  /// A local copy made when the schedule has completed (results moved out of a work buffer).
  virtual void copy_at_end(char* to, const char* from, std::int64_t bytes) = 0;

 protected:
  ~Workspace() = default;
};

/// One call's buffers as the API checked them, for preparing the schedule's accumulator.
/// Pointers are past the datatype's true lower bound; NULL where not given or MPI_IN_PLACE.
struct AccumulatorArgs {
  char* send = nullptr;
  char* recv = nullptr;
  bool send_in_place = false, recv_in_place = false;
  int rank = 0, root = 0, size = 1;
  std::int64_t block_bytes = 0;  ///< count x element: the vector, or one rank's block
  std::int64_t total_bytes = 0;  ///< everything the call moves (Call::bytes)
  std::int64_t elem_bytes = 1;
  int algorithm_id = 0;
  bool receives = false;  ///< the rank's program receives something
  /// allgatherv: the blocks in elements (BlockLayout) and the first non-empty block's offset.
  const std::vector<std::int64_t>* block_counts = nullptr;
  const std::vector<std::int64_t>* block_displs = nullptr;
  std::int64_t block_base = 0;
};

/// Where the rank's program runs: the buffer its steps address and, where not the request's
/// own scratch, where its receives land before they are combined.
struct Accumulator {
  char* buffer = nullptr;
  char* receive_into = nullptr;
};

/// One row per collective: what every part of relay that is not an algorithm needs to know.
/// Adding a collective is its algorithms' file (builders and registry rows), its C entry point
/// and one row here (coll/traits.cpp).
struct Traits {
  Collective collective;
  std::string_view name;        ///< "bcast", "reduce", ...: API, CLI, JSON, tables
  std::string_view env_prefix;  ///< "BCAST", ... as in the RELAY_<OP>_* environment variables
  bool has_root;                ///< bcast, reduce, gather, scatter
  bool has_blocks;              ///< the buffer is size blocks (Shape::blocks)
  /// false: no data, whatever the count (the barrier: one byte of "entered", OR-ed).
  bool moves_data;
  ArgumentPositions positions;  ///< in relay_<name>
  BufferRules buffers;          ///< where sendbuf, recvbuf and MPI_IN_PLACE are significant
  ResultRule result;            ///< what recvbuf holds after the call
  Combine combine;              ///< how received data joins the accumulator
  const std::vector<Algorithm>& (*algorithms)();      ///< its registry rows, in id order
  ClosedFormChoice (*closed_form)(const Call& call);  ///< `auto` without a table rule
  /// relay_<name>(...) with these buffers: bcast_options for a broadcast, options otherwise.
  relay_status_t (*invoke)(const Buffers& b, MPI_Comm comm,
                           const relay_bcast_options_t* bcast_options,
                           const relay_coll_options_t* options);
  /// MPI_<Name>(...), or MPI_I<name> when `request` is not NULL; MPI's error code.
  int (*invoke_mpi)(const Buffers& b, MPI_Comm comm, MPI_Request* request);
  /// Where the rank's schedule runs, and the work buffers and final copies it needs.
  Accumulator (*prepare)(const AccumulatorArgs& args, Workspace& workspace);
};

/// The traits of a collective.
const Traits& traits(Collective collective);

/// "bcast", "reduce", "allreduce", "allgather", "reduce_scatter_block", "gather", ...
inline std::string_view to_string(Collective c) { return traits(c).name; }
/// "BCAST", "REDUCE", ... as in the RELAY_<OP>_* environment variables.
inline std::string_view env_prefix(Collective c) { return traits(c).env_prefix; }
/// Whether the buffer is size blocks (all but bcast, reduce, allreduce and barrier).
inline bool has_blocks(Collective c) { return traits(c).has_blocks; }
/// Whether the call moves the caller's data (all but the barrier, which moves one byte).
inline bool moves_data(Collective c) { return traits(c).moves_data; }
/// Whether the collective combines with an MPI_Op (reduce, allreduce, reduce_scatter_block).
inline bool has_op(Collective c) { return traits(c).positions.op != 0; }
/// Whether the collective has a root (bcast, reduce, gather, scatter).
inline bool has_root(Collective c) { return traits(c).has_root; }
/// The collective of a canonical name, if it is one.
std::optional<Collective> find_collective(std::string_view name);

/// The registered algorithms of a collective, in id order (`auto` is not one: it chooses one).
inline const std::vector<Algorithm>& algorithms(Collective c) { return traits(c).algorithms(); }
/// The entry for an id, or nullptr (also for 0, `auto`).
const Algorithm* find_algorithm(Collective collective, int id);
/// The entry for a canonical name, or nullptr.
const Algorithm* find_algorithm(Collective collective, std::string_view name);

/// Every rank's program (for the model and the consistency tests).
schedule::Schedule build_schedule(const Algorithm& algorithm, const Shape& shape);

}  // namespace relay::coll
