// The schedule: one rank's ordered point-to-point steps, with their dependencies.
//
// An algorithm is a schedule; the executor runs it on MPI, the model (later) costs it, the
// simulator runs it at scale. A step moves a byte range of the user's buffer. Dependencies are
// expressed as a receive prefix: a step may start once this rank's first `needs_recvs` receives
// (in program order) have completed. That is exact for trees (segment j is forwarded after it
// arrived) and rings (a block is forwarded after it arrived), and it is cheap to track: one
// counter instead of a dependency graph, so the executor stays allocation-free per step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace relay::schedule {

enum class StepKind : std::uint8_t { send, recv };

struct Step {
  StepKind kind = StepKind::send;
  std::int32_t peer = 0;         ///< rank in the communicator
  std::int32_t needs_recvs = 0;  ///< receives (in program order) that must complete first
  std::int64_t offset = 0;       ///< byte offset into the buffer
  std::int64_t bytes = 0;        ///< bytes moved, > 0
};

/// What one rank does, in program order. `recv_steps` / `send_steps` index into `steps` and
/// give each direction's order, which is also MPI's matching order between two ranks.
struct RankProgram {
  std::vector<Step> steps;
  std::vector<std::int32_t> recv_steps;
  std::vector<std::int32_t> send_steps;

  void add_recv(int peer, std::int64_t offset, std::int64_t bytes);
  void add_send(int peer, std::int64_t offset, std::int64_t bytes, std::int32_t needs_recvs);
  std::int32_t recv_count() const { return static_cast<std::int32_t>(recv_steps.size()); }
  std::int64_t bytes_sent() const;
};

/// Every rank's program: what the model and the consistency checks read.
struct Schedule {
  std::vector<RankProgram> ranks;
};

/// Checks that the programs of all ranks fit together: for every ordered pair (a, b), the k-th
/// send from a to b and the k-th receive at b from a move the same byte range; dependency
/// prefixes are in range; no rank sends to or receives from itself. Returns "" if consistent,
/// else a description of the first problem.
std::string check_consistency(const Schedule& schedule);

/// Whether the schedule completes: a replay where receives are always posted, sends complete
/// when received, and a step starts when its receive prefix is complete (the nonblocking
/// policy with unlimited requests). Returns "" or a description of the stuck state.
std::string check_completes(const Schedule& schedule);

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

}  // namespace relay::schedule
