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
  /// From peer into scratch[scratch_offset, +bytes), never combined: scratch is then a second
  /// output buffer (alltoall receives into recvbuf this way). `offset` is the sender's range.
  void recv_to_scratch(int peer, std::int64_t offset, std::int64_t scratch_offset,
                       std::int64_t bytes);

  /// Part of a received message copied into the buffer: received[from, +bytes) to
  /// buffer[to, +bytes).
  struct Piece {
    std::int64_t from, to, bytes;
  };
  /// buffer[send_offset, +bytes) to send_peer, and from recv_peer the bytes it sends from its
  /// range [recv_offset, +bytes): into scratch slots, then spread over the buffer by one
  /// combine step per piece (and segment) -- unpacking, with a combiner whose op is
  /// MPI_REPLACE (a copy; alltoall bruck). Segments interleaved as in exchange().
  void exchange_unpack(int send_peer, std::int64_t send_offset, int recv_peer,
                       std::int64_t recv_offset, std::int64_t bytes,
                       const std::vector<Piece>& pieces);

  /// Where a receive lands.
  enum class Into { buffer, combine, scratch };
  /// A send and a receive at once, their segments interleaved so that the blocking policy and
  /// small windows cannot deadlock a ring or a pairwise exchange. scratch_offset is used with
  /// Into::scratch.
  void exchange(int send_peer, std::int64_t send_offset, std::int64_t send_bytes, int recv_peer,
                std::int64_t recv_offset, std::int64_t recv_bytes, Into into,
                bool received_left = true, std::int64_t scratch_offset = 0);

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
  void recv_piece(int peer, std::int64_t offset, std::int64_t bytes, Into into, bool left,
                  std::int64_t scratch_offset);
  int recv_to_slot(Step recv);  // appends the receive into the next slot; returns the slot
  void combine_from_slot(int slot, std::int64_t from, std::int64_t offset, std::int64_t bytes,
                         bool left);

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
