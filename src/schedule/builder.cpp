#include "schedule/builder.hpp"

#include <algorithm>

namespace relay::schedule {

ProgramBuilder::ProgramBuilder(std::int64_t buffer_bytes, std::int64_t elem_bytes,
                               std::int64_t segment_bytes, bool commutative)
    : commutative_(commutative) {
  const std::int64_t elem = std::max<std::int64_t>(1, elem_bytes);
  const std::int64_t cap = kMaxMessageBytes / elem * elem;
  segment_ = segment_bytes > 0 ? std::min(segment_bytes, cap) : cap;
  slot_bytes_ = std::max<std::int64_t>(elem, std::min(segment_, buffer_bytes));
  slots_ = static_cast<int>(
      std::clamp<std::int64_t>(kScratchBudgetBytes / slot_bytes_, 2, kMaxScratchSlots));
  slot_free_after_.assign(static_cast<std::size_t>(slots_), 0);
  regions_[0] = Marks{};
}

void ProgramBuilder::split(std::int64_t at) {
  auto it = regions_.upper_bound(at);
  --it;  // the interval containing `at` (regions_ always has key 0)
  if (it->first != at) regions_.emplace_hint(std::next(it), at, it->second);
}

ProgramBuilder::Marks ProgramBuilder::query(std::int64_t offset, std::int64_t bytes) const {
  Marks m;
  auto it = regions_.upper_bound(offset);
  --it;
  for (; it != regions_.end() && it->first < offset + bytes; ++it) {
    m.recv = std::max(m.recv, it->second.recv);
    m.combine = std::max(m.combine, it->second.combine);
    m.send = std::max(m.send, it->second.send);
  }
  return m;
}

void ProgramBuilder::mark(std::int64_t offset, std::int64_t bytes, std::int32_t Marks::*field,
                          std::int32_t value) {
  split(offset);
  split(offset + bytes);
  for (auto it = regions_.find(offset); it != regions_.end() && it->first < offset + bytes; ++it) {
    it->second.*field = std::max(it->second.*field, value);
  }
}

void ProgramBuilder::send_piece(int peer, std::int64_t offset, std::int64_t bytes) {
  const Marks m = query(offset, bytes);
  Step s;
  s.kind = StepKind::send;
  s.peer = peer;
  s.needs_recvs = m.recv;
  s.needs_combines = m.combine;
  s.offset = offset;
  s.bytes = bytes;
  program_.add(s);
  mark(offset, bytes, &Marks::send, program_.send_count());
}

void ProgramBuilder::recv_piece(int peer, std::int64_t offset, std::int64_t bytes, Into into,
                                bool left, std::int64_t scratch_offset) {
  const Marks m = query(offset, bytes);
  Step r;
  r.kind = StepKind::recv;
  r.peer = peer;
  r.offset = offset;
  r.bytes = bytes;
  if (into == Into::scratch) {
    r.to_scratch = true;
    r.scratch_offset = scratch_offset;
    program_.add(r);
    program_.scratch_bytes = std::max(program_.scratch_bytes, scratch_offset + bytes);
    return;
  }
  if (into == Into::buffer) {
    r.needs_sends = m.send;
    r.needs_combines = m.combine;
    program_.add(r);
    mark(offset, bytes, &Marks::recv, program_.recv_count());
    return;
  }
  const int slot = recv_to_slot(r);
  combine_from_slot(slot, 0, offset, bytes, left);
}

int ProgramBuilder::recv_to_slot(Step r) {
  const int slot = next_slot_;
  next_slot_ = (next_slot_ + 1) % slots_;
  r.to_scratch = true;
  r.scratch_offset = slot * slot_bytes_;
  r.needs_combines = slot_free_after_[slot];
  program_.add(r);
  program_.scratch_bytes = std::max(program_.scratch_bytes, (slot + 1) * slot_bytes_);
  return slot;
}

void ProgramBuilder::combine_from_slot(int slot, std::int64_t from, std::int64_t offset,
                                       std::int64_t bytes, bool left) {
  const Marks m = query(offset, bytes);
  Step c;
  c.kind = StepKind::combine;
  c.peer = -1;
  c.received_left = commutative_ || left;
  c.needs_recvs = std::max(program_.recv_count(), m.recv);
  c.needs_sends = m.send;
  c.needs_combines = m.combine;
  c.offset = offset;
  c.bytes = bytes;
  c.scratch_offset = slot * slot_bytes_ + from;
  program_.add(c);
  mark(offset, bytes, &Marks::combine, program_.combine_count());
  slot_free_after_[slot] = program_.combine_count();
}

void ProgramBuilder::exchange_unpack(int send_peer, std::int64_t send_offset, int recv_peer,
                                     std::int64_t recv_offset, std::int64_t bytes,
                                     const std::vector<Piece>& pieces) {
  for (std::int64_t done = 0; done < bytes; done += segment_) {
    const std::int64_t n = std::min(segment_, bytes - done);
    send_piece(send_peer, send_offset + done, n);
    Step r;
    r.kind = StepKind::recv;
    r.peer = recv_peer;
    r.offset = recv_offset + done;
    r.bytes = n;
    const int slot = recv_to_slot(r);
    for (const Piece& p : pieces) {  // the part of each piece inside [done, done + n)
      const std::int64_t lo = std::max(p.from, done), hi = std::min(p.from + p.bytes, done + n);
      if (lo < hi) combine_from_slot(slot, lo - done, p.to + (lo - p.from), hi - lo, true);
    }
  }
}

void ProgramBuilder::send(int peer, std::int64_t offset, std::int64_t bytes) {
  exchange(peer, offset, bytes, -1, 0, 0, Into::buffer);
}

void ProgramBuilder::recv(int peer, std::int64_t offset, std::int64_t bytes) {
  exchange(-1, 0, 0, peer, offset, bytes, Into::buffer);
}

void ProgramBuilder::recv_combine(int peer, std::int64_t offset, std::int64_t bytes,
                                  bool received_left) {
  exchange(-1, 0, 0, peer, offset, bytes, Into::combine, received_left);
}

void ProgramBuilder::recv_to_scratch(int peer, std::int64_t offset, std::int64_t scratch_offset,
                                     std::int64_t bytes) {
  exchange(-1, 0, 0, peer, offset, bytes, Into::scratch, true, scratch_offset);
}

void ProgramBuilder::exchange(int send_peer, std::int64_t send_offset, std::int64_t send_bytes,
                              int recv_peer, std::int64_t recv_offset, std::int64_t recv_bytes,
                              Into into, bool received_left, std::int64_t scratch_offset) {
  if (send_peer < 0) send_bytes = 0;
  if (recv_peer < 0) recv_bytes = 0;
  for (std::int64_t done = 0; done < send_bytes || done < recv_bytes; done += segment_) {
    if (done < send_bytes) {
      send_piece(send_peer, send_offset + done, std::min(segment_, send_bytes - done));
    }
    if (done < recv_bytes) {
      recv_piece(recv_peer, recv_offset + done, std::min(segment_, recv_bytes - done), into,
                 received_left, scratch_offset + done);
    }
  }
}

}  // namespace relay::schedule
