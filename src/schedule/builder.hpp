// Writing a rank's program for reductions and gathers: the builder cuts every transfer into
// segments, gives received operands scratch slots, and derives every dependency from the byte
// ranges the steps touch, so that an algorithm is written as plain "send this, receive and
// combine that" in program order and cannot forget a hazard:
//   - a send waits for the receive or combine that last wrote its range (read after write);
//   - a receive into the buffer, and a combine, wait for the sends still reading their range
//     (write after read) and for the combines that wrote it before;
//   - a receive into a scratch slot waits for the combine that last read that slot.
// Scratch is a ring of slots of one segment each (at most kMaxScratchSlots, and about
// kScratchBudgetBytes in total): receives run that many combines ahead.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "schedule/schedule.hpp"

namespace relay::schedule {

class ProgramBuilder {
 public:
  static constexpr int kMaxScratchSlots = 16;
  static constexpr std::int64_t kScratchBudgetBytes = std::int64_t{64} << 20;

  /// A program over a buffer of buffer_bytes, elements of elem_bytes, messages of at most
  /// segment_bytes (0 = unsegmented; always at most kMaxMessageBytes, whole elements). With
  /// `commutative`, every combine takes the received operand on the left (no copy).
  ProgramBuilder(std::int64_t buffer_bytes, std::int64_t elem_bytes, std::int64_t segment_bytes,
                 bool commutative);

  /// buffer[offset, +bytes) to peer, segment by segment.
  void send(int peer, std::int64_t offset, std::int64_t bytes);
  /// From peer into buffer[offset, +bytes).
  void recv(int peer, std::int64_t offset, std::int64_t bytes);
  /// From peer into scratch, then combined into buffer[offset, +bytes): buffer = received (op)
  /// buffer when received_left (or the op is commutative), else buffer (op) received.
  void recv_combine(int peer, std::int64_t offset, std::int64_t bytes, bool received_left);
  /// A send and a receive (combined or not) at once, their segments interleaved so that the
  /// blocking policy and small windows cannot deadlock a ring or a pairwise exchange.
  void exchange(int send_peer, std::int64_t send_offset, std::int64_t send_bytes, int recv_peer,
                std::int64_t recv_offset, std::int64_t recv_bytes, bool combine,
                bool received_left);

  RankProgram finish() { return std::move(program_); }

 private:
  struct Marks {
    std::int32_t recv = 0;     // receive prefix that wrote the range
    std::int32_t combine = 0;  // combine prefix that wrote it
    std::int32_t send = 0;     // send prefix still reading it
  };
  Marks query(std::int64_t offset, std::int64_t bytes) const;
  void mark(std::int64_t offset, std::int64_t bytes, std::int32_t Marks::*field,
            std::int32_t value);
  void split(std::int64_t at);
  void send_piece(int peer, std::int64_t offset, std::int64_t bytes);
  void recv_piece(int peer, std::int64_t offset, std::int64_t bytes, bool combine, bool left);

  RankProgram program_;
  std::int64_t segment_;
  bool commutative_;
  std::int64_t slot_bytes_;
  int slots_;
  int next_slot_ = 0;
  std::vector<std::int32_t> slot_free_after_;  // combine prefix that last read each slot
  std::map<std::int64_t, Marks> regions_;      // start -> marks, covering [0, buffer)
};

}  // namespace relay::schedule
