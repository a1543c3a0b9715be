#include "exec/executor.hpp"

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

#include <fmt/format.h>

#include "core/settings.hpp"
#include "core/units.hpp"
#include "exec/compute.hpp"

namespace relay::exec {

namespace {

// The executor's two pacing knobs, read once per process. A value that does not parse is an
// error of every call (in start), never a silent default.
struct Pacing {
  long idle_sleep_ns = 0;
  std::int64_t peer_bytes_limit = 64 * 1024;
  std::string error;  // why a variable was refused; empty when both are usable
};

const Pacing& pacing() {
  static const Pacing p = [] {
    Pacing r;
    // RELAY_IDLE_SLEEP_US: when set (> 0), a rank waiting for messages polls and sleeps this
    // long between polls instead of spinning inside MPI. On machines where ranks share cores
    // with the kernel's packet processing (the emulated cluster: 8 ranks and all TCP traffic
    // on 2 CPUs), spinning ranks starve the network; 0 (the default) leaves waiting to MPI.
    if (const char* v = core::read_setting(core::Knob::idle_sleep_us)) {
      const auto us = core::parse_integer(v, 0, 1000000);
      if (us) {
        r.idle_sleep_ns = static_cast<long>(*us) * 1000L;
      } else {
        r.error = fmt::format(
            "RELAY_IDLE_SLEEP_US='{}' is not a whole number of microseconds "
            "in [0, 1000000]",
            v);
      }
    }
    // RELAY_PEER_BYTES_IN_FLIGHT: the byte budget of sends in flight to one peer (see
    // executor.hpp); a whole number of bytes or a size like 64KiB, 0 = one message at a time.
    if (const char* v = core::read_setting(core::Knob::peer_bytes_in_flight)) {
      const auto bytes = core::parse_bytes(v);
      if (bytes && *bytes >= 0) {
        r.peer_bytes_limit = static_cast<std::int64_t>(*bytes);
      } else if (r.error.empty()) {
        r.error = fmt::format(
            "RELAY_PEER_BYTES_IN_FLIGHT='{}' is not a size in bytes (65536, "
            "64KiB, 0)",
            v);
      }
    }
    return r;
  }();
  return p;
}

void idle_sleep() {
  const long ns = pacing().idle_sleep_ns;  // nanosleep takes nanoseconds below one second only
  timespec t{static_cast<time_t>(ns / 1000000000L), ns % 1000000000L};
  nanosleep(&t, nullptr);
}

}  // namespace

const std::string& pacing_error() { return pacing().error; }

bool idle_is_paced() { return pacing().idle_sleep_ns > 0; }

void idle_pause() {
  if (pacing().idle_sleep_ns > 0) idle_sleep();
}

using schedule::Step;
using schedule::StepKind;

relay_status_t Executor::mpi_failed(int code, const char* call) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  error_ = std::string(call) + " failed: " + text;
  return RELAY_ERR_MPI;
}

relay_status_t Executor::start(std::shared_ptr<const schedule::RankProgram> program, char* buffer,
                               MPI_Comm comm, int tag, Policy policy, int max_requests,
                               const Combiner& combiner) {
  program_ = std::move(program);
  error_.clear();
  if (!pacing().error.empty()) {
    error_ = pacing().error;
    cursor_ = 0;
    return RELAY_ERR_OPTIONS;
  }
  combiner_ = combiner;
  buffer_ = buffer;
  comm_ = comm;
  tag_ = tag;
  policy_ = policy;
  max_requests_ = max_requests < 1 ? 1 : max_requests;
  const auto recvs = static_cast<std::size_t>(program_->recv_count());
  const int slots = 2 * max_requests_;
  requests_.assign(slots, MPI_REQUEST_NULL);
  slot_step_.assign(slots, -1);
  completed_.assign(slots, 0);
  statuses_.resize(static_cast<std::size_t>(slots));
  free_recv_slots_.clear();
  free_send_slots_.clear();
  free_recv_slots_.reserve(max_requests_);
  free_send_slots_.reserve(max_requests_);
  for (int s = max_requests_ - 1; s >= 0; --s) free_recv_slots_.push_back(s);
  for (int s = slots - 1; s >= max_requests_; --s) free_send_slots_.push_back(s);
  recv_done_.assign(recvs, 0);
  send_done_.assign(program_->send_steps.size(), 0);
  int comm_size = 1;
  MPI_Comm_size(comm_, &comm_size);
  peer_bytes_.assign(static_cast<std::size_t>(comm_size), 0);
  peer_bytes_limit_ = pacing().peer_bytes_limit;
  first_slot_ = recvs == 0 ? max_requests_ : 0;
  end_slot_ = program_->send_steps.empty() ? max_requests_ : slots;
  recvs_posted_ = recv_prefix_ = sends_started_ = sends_done_ = cursor_ = 0;
  send_prefix_ = combines_done_ = 0;
  cursor_send_active_ = false;
  mismatch_ = false;
  error_.clear();
  if (policy_ == Policy::blocking) return post_receives();
  // Nonblocking: besides posting the receives, the sends that need none (a root's) leave now,
  // as MPI_Isend's would, not at the first progress or wait: two ranks broadcasting to each
  // other otherwise sent one panel after the other (docs/gemm.md, "a broadcast's root sending
  // at the call").
  return local_steps();
}

bool Executor::waits_with_others() const { return policy_ != Policy::blocking && !idle_is_paced(); }

bool Executor::polls_help_others() const {
  if (program_ == nullptr) return false;
  return sends_done_ < program_->send_count() || recvs_posted_ < program_->recv_count();
}

void Executor::in_flight(std::vector<MPI_Request>& requests, std::vector<int>& slots) const {
  for (int slot = first_slot_; slot < end_slot_; ++slot) {
    if (requests_[slot] == MPI_REQUEST_NULL) continue;
    requests.push_back(requests_[slot]);
    slots.push_back(slot);
  }
}

bool Executor::done() const {
  if (policy_ == Policy::blocking) {
    return cursor_ == static_cast<std::int32_t>(program_->steps.size());
  }
  return recv_prefix_ == program_->recv_count() &&
         sends_done_ == static_cast<std::int32_t>(program_->send_steps.size()) &&
         combines_done_ == program_->combine_count();
}

relay_status_t Executor::post_receives() {
  const schedule::RankProgram& p = *program_;
  while (recvs_posted_ < p.recv_count() && !free_recv_slots_.empty()) {
    const int slot = free_recv_slots_.back();
    const Step& s = p.steps[p.recv_steps[recvs_posted_]];
    if (!ready(s)) break;
    free_recv_slots_.pop_back();
    char* target = s.to_scratch ? combiner_.scratch + s.scratch_offset : buffer_ + s.offset;
    const int rc = MPI_Irecv(target, static_cast<int>(s.bytes), MPI_BYTE, s.peer,
                             wire_tag(tag_, s.bytes), comm_, &requests_[slot]);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Irecv");
    slot_step_[slot] = recvs_posted_++;
  }
  return RELAY_SUCCESS;
}

relay_status_t Executor::start_sends() {
  const schedule::RankProgram& p = *program_;
  const auto sends = static_cast<std::int32_t>(p.send_steps.size());
  while (sends_started_ < sends && !free_send_slots_.empty()) {
    const Step& s = p.steps[p.send_steps[sends_started_]];
    if (s.needs_recvs > recv_prefix_ || s.needs_combines > combines_done_) break;
    std::int64_t& in_flight = peer_bytes_[s.peer];
    if (in_flight > 0 && in_flight + s.bytes > peer_bytes_limit_) break;
    const int slot = free_send_slots_.back();
    free_send_slots_.pop_back();
    const int rc = MPI_Isend(buffer_ + s.offset, static_cast<int>(s.bytes), MPI_BYTE, s.peer,
                             wire_tag(tag_, s.bytes), comm_, &requests_[slot]);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Isend");
    in_flight += s.bytes;
    slot_step_[slot] = sends_started_++;
  }
  return RELAY_SUCCESS;
}

void Executor::complete_slot(int slot, const MPI_Status& status) {
  if (slot < max_requests_) {
    check_received(slot_step_[slot], status);
    recv_done_[slot_step_[slot]] = 1;
    while (recv_prefix_ < program_->recv_count() && recv_done_[recv_prefix_]) ++recv_prefix_;
    free_recv_slots_.push_back(slot);
  } else {
    const schedule::RankProgram& p = *program_;
    const Step& s = p.steps[p.send_steps[slot_step_[slot]]];
    peer_bytes_[s.peer] -= s.bytes;
    send_completed(slot_step_[slot]);
    free_send_slots_.push_back(slot);
  }
  slot_step_[slot] = -1;
  requests_[slot] = MPI_REQUEST_NULL;
}

// A longer message than the step expects cannot arrive (MPI reports truncation); a shorter one
// is silent in MPI and would leave stale bytes in the buffer.
void Executor::check_received(std::int32_t ordinal, const MPI_Status& status) {
  if (mismatch_) return;  // the first one is the one to report
  const schedule::RankProgram& p = *program_;
  const Step& s = p.steps[p.recv_steps[ordinal]];
  int received = 0;
  MPI_Get_count(&status, MPI_BYTE, &received);
  if (received == s.bytes) return;
  mismatch_ = true;
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  error_ = fmt::format(
      "rank {} received {} bytes from rank {} where its schedule expects {} "
      "(receive {} of {}): the ranks ran different schedules -- a different "
      "segment size, algorithm, fanout, root or tuning table on some rank "
      "(RELAY_CHECK=collective finds this before any data moves)",
      rank, received, s.peer, s.bytes, ordinal + 1, p.recv_count());
}

relay_status_t Executor::finished() { return mismatch_ ? RELAY_ERR_MISMATCH : RELAY_SUCCESS; }

void Executor::send_completed(std::int32_t ordinal) {
  ++sends_done_;
  send_done_[ordinal] = 1;
  const auto sends = static_cast<std::int32_t>(send_done_.size());
  while (send_prefix_ < sends && send_done_[send_prefix_]) ++send_prefix_;
}

// buffer = received (op) buffer, or buffer (op) received (then through the scratch slot: MPI
// has no reduction into its first operand); with MPI_REPLACE, buffer = received.
relay_status_t Executor::combine(const Step& s) {
  if (shared_scratch_) {
    // A timing simulation: the operands are pages every simulated rank shares, their values
    // nobody reads. Writing them made the host's kernel write the shared file back to disk
    // again and again (ranks waiting on it, the simulation's CPU idle); the arithmetic costs no
    // simulated time either way (SMPI charges no host time here: docs/simulate.md).
    ++combines_done_;
    return RELAY_SUCCESS;
  }
  char* accumulator = buffer_ + s.offset;
  char* received = combiner_.scratch + s.scratch_offset;
  if (combiner_.op == MPI_REPLACE) {
    std::memcpy(accumulator, received, static_cast<std::size_t>(s.bytes));
    ++combines_done_;
    return RELAY_SUCCESS;
  }
  const int count = static_cast<int>(s.bytes / combiner_.elem_bytes);
  const int rc =
      s.received_left
          ? MPI_Reduce_local(received, accumulator, count, combiner_.datatype, combiner_.op)
          : MPI_Reduce_local(accumulator, received, count, combiner_.datatype, combiner_.op);
  if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Reduce_local");
  if (!s.received_left) std::memcpy(accumulator, received, static_cast<std::size_t>(s.bytes));
  ++combines_done_;
  return RELAY_SUCCESS;
}

relay_status_t Executor::run_combines(bool& advanced) {
  const schedule::RankProgram& p = *program_;
  while (combines_done_ < p.combine_count()) {
    const Step& s = p.steps[p.combine_steps[combines_done_]];
    if (!ready(s)) break;
    if (auto st = combine(s); st != RELAY_SUCCESS) return st;
    advanced = true;
  }
  return RELAY_SUCCESS;
}

relay_status_t Executor::local_steps() {
  bool advanced = true;
  while (advanced) {
    advanced = false;
    if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
    if (auto st = run_combines(advanced); st != RELAY_SUCCESS) return st;
    if (auto st = start_sends(); st != RELAY_SUCCESS) return st;
  }
  return RELAY_SUCCESS;
}

// Blocking policy: completes the step at the cursor if it can. Receive ordinals are reached
// in order, so the cursor's receive is the first one not yet complete.
relay_status_t Executor::blocking_step(bool may_block, bool& advanced) {
  advanced = false;
  const schedule::RankProgram& p = *program_;
  if (cursor_ == static_cast<std::int32_t>(p.steps.size())) return RELAY_SUCCESS;
  const Step& s = p.steps[cursor_];
  if (s.kind == StepKind::combine) {
    if (auto st = combine(s); st != RELAY_SUCCESS) return st;
    // A combine frees a scratch slot (or a range) that later receives wait for.
    if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
  } else if (s.kind == StepKind::recv) {
    const std::int32_t ordinal = recv_prefix_;
    if (recvs_posted_ <= ordinal) {
      if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
    }
    int slot = 0;
    while (slot < max_requests_ && slot_step_[slot] != ordinal) ++slot;
    if (slot == max_requests_) {
      error_ = "executor: the next receive was not pre-posted";
      return RELAY_ERR_INTERNAL;
    }
    int flag = 1;
    MPI_Status& status = statuses_[0];
    const int rc = may_block ? MPI_Wait(&requests_[slot], &status)
                             : test_one(&requests_[slot], &flag, &status);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, may_block ? "MPI_Wait" : "MPI_Test");
    if (!flag) return RELAY_SUCCESS;
    complete_slot(slot, status);
    if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
  } else if (may_block && !cursor_send_active_) {
    const int rc = MPI_Send(buffer_ + s.offset, static_cast<int>(s.bytes), MPI_BYTE, s.peer,
                            wire_tag(tag_, s.bytes), comm_);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Send");
    send_completed(sends_done_);
    if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
  } else {
    const int slot = max_requests_;
    if (!cursor_send_active_) {
      const int rc = MPI_Isend(buffer_ + s.offset, static_cast<int>(s.bytes), MPI_BYTE, s.peer,
                               wire_tag(tag_, s.bytes), comm_, &requests_[slot]);
      if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Isend");
      cursor_send_active_ = true;
    }
    int flag = 1;
    const int rc = may_block ? MPI_Wait(&requests_[slot], MPI_STATUS_IGNORE)
                             : test_one(&requests_[slot], &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) return mpi_failed(rc, may_block ? "MPI_Wait" : "MPI_Test");
    if (!flag) return RELAY_SUCCESS;
    cursor_send_active_ = false;
    send_completed(sends_done_);
    if (auto st = post_receives(); st != RELAY_SUCCESS) return st;
  }
  ++cursor_;
  advanced = true;
  return RELAY_SUCCESS;
}

relay_status_t Executor::progress(bool& done_now, bool poll) {
  if (policy_ == Policy::blocking) {
    bool advanced = true;
    while (advanced) {
      if (auto st = blocking_step(false, advanced); st != RELAY_SUCCESS) return st;
    }
    done_now = done();
    return done_now ? finished() : RELAY_SUCCESS;
  }
  if (auto st = local_steps(); st != RELAY_SUCCESS) return st;
  if (poll && !done()) {
    int count = 0;
    const int rc = test_some(end_slot_ - first_slot_, requests_.data() + first_slot_, &count,
                             completed_.data(), statuses_.data());
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Testsome");
    for (int i = 0; i < count && count != MPI_UNDEFINED; ++i) {
      complete_slot(first_slot_ + completed_[i], statuses_[i]);
    }
    if (auto st = local_steps(); st != RELAY_SUCCESS) return st;
  }
  done_now = done();
  return done_now ? finished() : RELAY_SUCCESS;
}

relay_status_t Executor::wait() {
  if (pacing().idle_sleep_ns > 0) {
    for (;;) {
      bool now_done = false;
      const std::int64_t before = events();
      if (auto st = progress(now_done); st != RELAY_SUCCESS) return st;
      if (now_done) return finished();
      if (events() == before) idle_sleep();
    }
  }
  if (policy_ == Policy::blocking) {
    bool advanced = true;
    while (!done()) {
      if (auto st = blocking_step(true, advanced); st != RELAY_SUCCESS) return st;
    }
    return finished();
  }
  for (;;) {
    if (auto st = local_steps(); st != RELAY_SUCCESS) return st;
    if (done()) return finished();
    int count = 0;
    const int rc = wait_some(end_slot_ - first_slot_, requests_.data() + first_slot_, &count,
                             completed_.data(), statuses_.data());
    if (rc != MPI_SUCCESS) return mpi_failed(rc, "MPI_Waitsome");
    if (count == MPI_UNDEFINED) {
      error_ = "executor: nothing in flight but the program is not complete";
      return RELAY_ERR_INTERNAL;
    }
    for (int i = 0; i < count; ++i) complete_slot(first_slot_ + completed_[i], statuses_[i]);
  }
}

}  // namespace relay::exec
