// The schedule: one rank's ordered point-to-point steps, with their dependencies.
//
// An algorithm is a schedule; the executor runs it on MPI, the model costs it, the simulator
// runs it at scale. A step moves a byte range of the rank's buffer (the broadcast's buffer, a
// reduction's accumulator), or combines one. Three kinds:
//   send    -- send buffer[offset, +bytes) to peer;
//   recv    -- receive bytes from peer into buffer[offset, +bytes), or, with `to_scratch`, into
//              scratch[scratch_offset, +bytes) (then `offset` names the buffer range the data
//              belongs to: what the consistency check compares with the sender's range);
//   combine -- buffer[offset, +bytes) = scratch[scratch_offset, +bytes) (op) buffer[...]
//              with MPI_Reduce_local (`received_left`), or buffer (op) scratch when the received
//              operand must stay on the right (non-commutative ops in rank order); a copy of
//              the scratch range when the executor's combiner is MPI_REPLACE (alltoall bruck
//              unpacks a received message this way, into several places of the buffer).
// Dependencies are prefixes, one counter each, so the executor stays allocation-free per step:
// a step may start once this rank's first `needs_recvs` receives, first `needs_combines`
// combines and first `needs_sends` sends (each in program order) have completed. Broadcasts
// use only needs_recvs on sends (segment j is forwarded after it arrived). Reductions also
// need: a send after the combine that produced its data; a combine after the receive that
// delivered its operand and after every send still reading the range it overwrites; a receive
// into a scratch slot after the combine that last read that slot; a receive into the buffer
// after the sends reading that range. Combines run in program order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relay::schedule {

enum class StepKind : std::uint8_t { send, recv, combine };

struct Step {
  StepKind kind = StepKind::send;
  bool to_scratch = false;    ///< recv: lands in scratch at scratch_offset
  bool received_left = true;  ///< combine: buffer = scratch (op) buffer; else buffer (op) scratch
  std::int32_t peer = 0;      ///< rank in the communicator (-1 for a combine)
  std::int32_t needs_recvs = 0;     ///< receives (in program order) that must complete first
  std::int32_t needs_combines = 0;  ///< combines that must complete first
  std::int32_t needs_sends = 0;     ///< sends (in program order) that must complete first
  std::int64_t offset = 0;          ///< byte offset into the buffer
  std::int64_t bytes = 0;           ///< bytes moved, > 0
  std::int64_t scratch_offset = 0;  ///< recv with to_scratch, combine: offset into scratch
};

/// What one rank does, in program order. `recv_steps` / `send_steps` index into `steps` and
/// give each direction's order, which is also MPI's matching order between two ranks.
struct RankProgram {
  std::vector<Step> steps;
  std::vector<std::int32_t> recv_steps;
  std::vector<std::int32_t> send_steps;
  std::vector<std::int32_t> combine_steps;
  std::int64_t scratch_bytes = 0;  ///< scratch the steps address (0 for broadcasts)

  void add_recv(int peer, std::int64_t offset, std::int64_t bytes);
  void add_send(int peer, std::int64_t offset, std::int64_t bytes, std::int32_t needs_recvs);
  /// Appends a fully described step (reductions; see schedule/builder.hpp) to its index list.
  void add(const Step& step);
  std::int32_t recv_count() const { return static_cast<std::int32_t>(recv_steps.size()); }
  std::int32_t send_count() const { return static_cast<std::int32_t>(send_steps.size()); }
  std::int32_t combine_count() const { return static_cast<std::int32_t>(combine_steps.size()); }
  std::int64_t bytes_sent() const;
};

/// Every rank's program: what the model and the consistency checks read.
struct Schedule {
  std::vector<RankProgram> ranks;
};

/// Equal programs: the same steps in the same order (the index lists follow from the steps).
/// Two configurations with equal schedules are the same experiment (relay tune measures such
/// algorithms once: chain with fanout 1 is pipeline, kary with fanout >= P-1 is linear).
bool operator==(const Step& a, const Step& b);
bool operator==(const RankProgram& a, const RankProgram& b);
bool operator==(const Schedule& a, const Schedule& b);
inline bool operator!=(const Schedule& a, const Schedule& b) { return !(a == b); }
/// A 64-bit hash of every step of every rank (FNV-1a): equal schedules have equal
/// fingerprints, so a search can keep one number per configuration instead of its schedule
/// (an 8 MiB broadcast in 1 KiB segments is megabytes of steps) and compare schedules only
/// where the fingerprints agree.
std::uint64_t fingerprint(const Schedule& schedule);

/// Checks that the programs of all ranks fit together: for every ordered pair (a, b), the k-th
/// send from a to b and the k-th receive at b from a move the same byte range; dependency
/// prefixes are in range; no rank sends to or receives from itself. Returns "" if consistent,
/// else a description of the first problem.
std::string check_consistency(const Schedule& schedule);

/// Whether the schedule completes under the executor's nonblocking policy with `window`
/// receives posted and `window` sends in flight per rank (0 = unlimited), receives posted in
/// program order once their dependencies allow, combines run in order, and every send
/// rendezvous (complete only once its receive is posted) with at most one in flight per peer:
/// the strictest conditions the executor can meet. With `blocking`, the blocking policy: each
/// rank performs its steps one at a time in program order (receives still pre-posted up to
/// the window). Returns "" or a description of the stuck state.
std::string check_completes(const Schedule& schedule, int window = 0, bool blocking = false);

/// Splits [0, total_bytes) into segments of `segment_bytes` (the last may be shorter);
/// segment_bytes == 0 or >= total_bytes gives a single segment; total_bytes == 0 gives none.
class Segmentation {
 public:
  Segmentation(std::int64_t total_bytes, std::int64_t segment_bytes);
  std::int64_t count() const { return count_; }
  std::int64_t segment_bytes() const { return segment_bytes_; }
  std::int64_t offset(std::int64_t j) const { return j * segment_bytes_; }
  std::int64_t length(std::int64_t j) const;

 private:
  std::int64_t total_bytes_;
  std::int64_t segment_bytes_;
  std::int64_t count_;
};

/// The largest message the executor sends in one MPI call; longer steps are split, so that
/// counts stay within MPI's int and messages over 2 GiB work.
inline constexpr std::int64_t kMaxMessageBytes = std::int64_t{1} << 30;

/// The most segments one call may cut its message into. Every segment is a step or two of
/// every rank's program (48 bytes each, plus the executor's per-step bookkeeping): 1-byte
/// segments of an 8 MiB broadcast took 0.9 GB and 10 s per rank to plan. 2^18 segments keep a
/// program under about 30 MB and still allow 32-byte segments at 8 MiB, 4 KiB ones at 1 GiB.
inline constexpr std::int64_t kMaxSegments = std::int64_t{1} << 18;

}  // namespace relay::schedule
