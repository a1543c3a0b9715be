// Runs one rank's program on MPI point-to-point.
//
// Receives are always pre-posted, up to `max_requests` ahead, so a sender never waits for a late
// receive and speed does not depend on MPI's eager limit (amestoy2001). Two policies:
//   blocking    -- the rank performs its steps one at a time, in program order: wait for
//                  segment j, send it to each child in turn (each send completes before the
//                  next step). The papers' blocking pipeline.
//   nonblocking -- a step starts as soon as the receives it needs have completed; up to
//                  `max_requests` sends are in flight, so segment j is forwarded while j+1..
//                  arrive.
// Reductions add combine steps (MPI_Reduce_local of a scratch slot into the buffer): they run
// in program order, locally, as soon as their dependencies allow (see schedule.hpp); receives
// are posted in program order once the scratch slot or buffer range they write is free.
// Nothing is allocated per step: per-execution arrays are sized once in start().
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "exec/compute.hpp"
#include "relay/relay.h"
#include "schedule/policy.hpp"
#include "schedule/schedule.hpp"

namespace relay::exec {

using schedule::Policy;  // the executor's policies are shared vocabulary (schedule/policy.hpp)

/// Sleeps RELAY_IDLE_SLEEP_US microseconds when that is set (> 0), else returns at once: what
/// a rank waiting for messages does between polls that found nothing to do.
void idle_pause();

/// Whether RELAY_IDLE_SLEEP_US is set (> 0): waits then poll and sleep between polls instead of
/// blocking in MPI, whose waits keep the core busy (the emulated cluster's ranks share cores).
bool idle_is_paced();

/// Why RELAY_IDLE_SLEEP_US or RELAY_PEER_BYTES_IN_FLIGHT cannot be used (empty when both can):
/// Executor::start then fails with RELAY_ERR_OPTIONS.
const std::string& pacing_error();

/// What combine steps need: the operation, its datatype (elem_bytes each, contiguous) and the
/// scratch memory (program.scratch_bytes) that receives of operands land in. MPI_REPLACE (which
/// MPI_Reduce_local does not take) makes a combine a plain copy of the received bytes.
struct Combiner {
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  std::int64_t elem_bytes = 1;
  char* scratch = nullptr;
};

class Executor {
 public:
  /// Starts running `program` over `buffer` on `comm` with message tag `tag`. On error returns
  /// RELAY_ERR_MPI and leaves a description in error().
  ///
  /// Every receive's size is checked against its step: a message shorter than the schedule
  /// expects means the sender ran another schedule (a different segment size, algorithm or
  /// tuning table on that rank). The program still runs to its end -- returning early would
  /// leave MPI requests writing into the caller's memory -- and then wait()/progress() return
  /// RELAY_ERR_MISMATCH naming the first such receive, never success over wrong data.
  relay_status_t start(std::shared_ptr<const schedule::RankProgram> program, char* buffer,
                       MPI_Comm comm, int tag, Policy policy, int max_requests,
                       const Combiner& combiner = Combiner{});
  /// Advances without blocking; sets done when every step has completed. Without `poll`, only
  /// the steps that completions already delivered (completed_elsewhere) allow: no MPI call
  /// asks whether others have completed.
  relay_status_t progress(bool& done, bool poll = true);
  /// Blocks until every step has completed.
  relay_status_t wait();
  bool done() const;
  /// Whether a wait over several operations at once (relay_waitall) may complete this one's
  /// MPI requests: not in the blocking policy (it completes its own requests in program
  /// order), nor when RELAY_IDLE_SLEEP_US asks for polling.
  bool waits_with_others() const;
  /// The blocking policy: steps one at a time, in program order, each inside its own wait.
  bool in_program_order() const { return policy_ == Policy::blocking; }
  /// Whether a poll can still move something for other ranks: a send not yet complete (MPI
  /// may need the sender's calls to push it), or a receive not yet posted (posting it early is
  /// what keeps senders independent of the eager limit). When neither, only this operation's own
  /// completion is left to find, which its wait finds as well.
  bool polls_help_others() const;
  /// For such a wait: appends the MPI requests in flight and their slots. Call after progress().
  void in_flight(std::vector<MPI_Request>& requests, std::vector<int>& slots) const;
  /// A request in_flight() gave completed in the caller's MPI wait (which freed it).
  void completed_elsewhere(int slot, const MPI_Status& status) { complete_slot(slot, status); }
  /// Lets go of the program; the bookkeeping keeps its memory for the next start().
  void release() { program_.reset(); }
  /// Steps completed so far (receives, sends, combines): grows whenever progress advanced.
  std::int64_t events() const {
    return static_cast<std::int64_t>(recv_prefix_) + sends_done_ + cursor_ + combines_done_;
  }
  const std::string& error() const { return error_; }

 private:
  relay_status_t post_receives();
  relay_status_t start_sends();
  relay_status_t run_combines(bool& advanced);
  relay_status_t combine(const schedule::Step& step);
  relay_status_t local_steps();  // receives, combines and sends that may start, until none
  bool ready(const schedule::Step& step) const {
    return step.needs_recvs <= recv_prefix_ && step.needs_combines <= combines_done_ &&
           step.needs_sends <= send_prefix_;
  }
  void send_completed(std::int32_t ordinal);
  void complete_slot(int slot, const MPI_Status& status);
  void check_received(std::int32_t ordinal, const MPI_Status& status);
  relay_status_t finished();  // the status of a program that ran to its end
  relay_status_t blocking_step(bool may_block, bool& advanced);
  relay_status_t mpi_failed(int code, const char* call);

  std::shared_ptr<const schedule::RankProgram> program_;
  char* buffer_ = nullptr;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int tag_ = 0;
  Policy policy_ = Policy::nonblocking;
  int max_requests_ = 1;
  Combiner combiner_;
  // exec::scratch_is_shared(), read once: combines then only count (executor.cpp, combine).
  const bool shared_scratch_ = scratch_is_shared();

  // Slots [0, max_requests) hold receives, [max_requests, 2 max_requests) sends. Completion calls
  // scan only [first_slot_, end_slot_): a root never receives and a leaf never sends, and every
  // slot scanned costs MPI a check on each progress pass.
  std::vector<MPI_Request> requests_;
  int first_slot_ = 0;
  int end_slot_ = 0;
  std::vector<std::int32_t> slot_step_;  // step in the slot; for receives, its ordinal
  std::vector<std::int32_t> free_recv_slots_;
  std::vector<std::int32_t> free_send_slots_;
  std::vector<int> completed_;          // scratch for MPI_Waitsome / MPI_Testsome
  std::vector<MPI_Status> statuses_;    // their statuses: receives' sizes are checked
  std::vector<std::int8_t> recv_done_;  // per receive ordinal
  std::vector<std::int8_t> send_done_;  // per send ordinal
  // Bytes in flight per peer. A send to a peer starts when nothing is in flight to it or when
  // the bytes in flight would stay within peer_bytes_limit_ (RELAY_PEER_BYTES_IN_FLIGHT,
  // default 64 KiB). Two large messages to the same peer share one link: in flight together
  // they interleave, so segment j arrives (and is forwarded) later than if it went alone and a
  // pipeline loses its rhythm -- measured on the emulated cluster (4 nodes, 250 Mbit/s, 1 MiB,
  // 64 KiB segments): 42 ms with one send per peer in flight, 47 ms with 2, 54 ms with 4,
  // 112 ms with 16 (max_requests); the link alone takes 36 ms. Small messages, on the other hand,
  // need several in flight to hide MPI's per-message cost: on shared memory, 16 MiB in 4 KiB
  // segments took 21.2 ms with one in flight and 16.6 ms with 16 (a plain MPI_Isend loop with
  // 16 in flight: 16.4-18.3 ms). A byte budget serves both. Receives stay pre-posted up to
  // max_requests either way, so speed does not depend on MPI's eager limit, and sends to different
  // peers (tree children) still overlap.
  std::int64_t peer_bytes_limit_ = 0;
  std::vector<std::int64_t> peer_bytes_;

  std::int32_t recvs_posted_ = 0;   // receive ordinals [0, recvs_posted_) are posted
  std::int32_t recv_prefix_ = 0;    // receive ordinals [0, recv_prefix_) have completed
  std::int32_t sends_started_ = 0;  // send ordinals [0, sends_started_) are started
  std::int32_t sends_done_ = 0;
  std::int32_t send_prefix_ = 0;     // send ordinals [0, send_prefix_) have completed
  std::int32_t combines_done_ = 0;   // combines run in program order
  std::int32_t cursor_ = 0;          // blocking: first step not yet completed
  bool cursor_send_active_ = false;  // blocking: the cursor's send is in flight
  bool mismatch_ = false;            // a receive got another size than its step: error_ says
  std::string error_;
};

}  // namespace relay::exec
