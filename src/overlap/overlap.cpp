#include "overlap/overlap.hpp"

#include <algorithm>

#include "core/status.hpp"
#include "exec/executor.hpp"

namespace relay::overlap {
namespace {

// Starts the stages at the head of `dup`'s queue whose dependency has completed.
void pump(DupComm& dup) {
  while (!dup.queue.empty()) {
    Stage* s = dup.queue.front();
    if (s->after != nullptr && s->after->state != StageState::done) return;
    dup.queue.pop_front();
    s->owner->start_stage(*s);
  }
}

void unqueue(Stage& s) {
  auto& q = s.dup->queue;
  q.erase(std::remove(q.begin(), q.end(), &s), q.end());
}

// Advances `s`: tests it if running; if queued, starts it when it may, else advances what it
// waits for -- the head of its queue (another operation's stage) or its own first stage.
// Blockers were always posted earlier, so the chain is finite; the depth bound only keeps a
// long chain of operations from deepening the stack: the next pass continues from there.
void drive(Stage& s, bool& moved, int depth) {
  if (s.state == StageState::running) {
    s.owner->test_stage(s, moved);
    return;
  }
  if (s.state != StageState::queued || depth > 32) return;
  pump(*s.dup);
  if (s.state != StageState::queued) {
    moved = true;
    return;
  }
  Stage* blocker = s.dup->queue.front() != &s ? s.dup->queue.front() : s.after;
  if (blocker != nullptr) drive(*blocker, moved, depth + 1);
  pump(*s.dup);
}

}  // namespace

PartRange part_range(int count, int n, int c) {
  const int base = count / n, extra = count % n;
  PartRange r;
  r.count = base + (c < extra ? 1 : 0);
  r.first = static_cast<std::int64_t>(base) * c + std::min(c, extra);
  return r;
}

Overlap::Overlap(const char* function, double t0, relay_overlap_part_times_t* times,
                 EventsFn events)
    : function_(function), t0_(t0), times_(times), events_(events) {}

Overlap::~Overlap() {
  for (auto& s : stages_) {
    if (s->state == StageState::queued) unqueue(*s);
  }
}

void Overlap::add_part(int count, DupComm* first_dup, StartFn first, DupComm* second_dup,
                       StartFn second) {
  PartStages p;
  p.count = count;
  const int index = static_cast<int>(parts_.size());
  if (count > 0) {
    auto make = [&](DupComm* dup, StartFn start) {
      auto s = std::make_unique<Stage>();
      s->owner = this;
      s->part = index;
      s->dup = dup;
      s->start = std::move(start);
      stages_.push_back(std::move(s));
      return stages_.back().get();
    };
    p.first = make(first_dup, std::move(first));
    if (second) {
      p.second = make(second_dup, std::move(second));
      p.second->after = p.first;
      p.first->next = p.second;
    }
  }
  parts_.push_back(p);
}

relay_status_t Overlap::post() {
  // All first stages, then all second stages: Algorithm 2's order, the same on every rank.
  for (const auto& p : parts_) {
    if (p.first != nullptr) p.first->dup->queue.push_back(p.first);
  }
  for (const auto& p : parts_) {
    if (p.second != nullptr) p.second->dup->queue.push_back(p.second);
  }
  for (const auto& p : parts_) {
    if (p.first != nullptr) pump(*p.first->dup);
  }
  if (status_ == RELAY_SUCCESS) return RELAY_SUCCESS;
  return wait();  // what did start completes on every rank: then report the failure
}

void Overlap::start_stage(Stage& s) {
  s.post_start_s = now();
  const relay_status_t st = s.start(s.dup->comm, &s.request);
  s.posted_s = now();
  if (st != RELAY_SUCCESS) {
    failed(s, st);
    return;
  }
  s.state = StageState::running;
}

void Overlap::test_stage(Stage& s, bool& moved) {
  const std::int64_t before = events_(s.request);
  int flag = 0;
  const relay_status_t st = relay_test(&s.request, &flag);
  if (st != RELAY_SUCCESS) {
    failed(s, st);
    moved = true;
    return;
  }
  if (!flag) {
    moved = moved || events_(s.request) != before;
    return;
  }
  s.state = StageState::done;
  s.done_s = now();
  moved = true;
  if (s.next != nullptr) pump(*s.next->dup);
}

// The first failure is the operation's; stages not started yet never start (the failure is
// the same on every rank: bad options or MPI errors), started ones run to completion.
void Overlap::failed(Stage& s, relay_status_t status) {
  if (status_ == RELAY_SUCCESS) {
    status_ = status;
    error_ = fmt::format("{}: part {} of {}: {}", function_, s.part + 1, parts_.size(),
                         relay_last_error());
  }
  s.state = StageState::done;
  for (auto& other : stages_) {
    if (other->state == StageState::queued) {
      unqueue(*other);
      other->state = StageState::done;
    }
  }
}

void Overlap::finish() {
  finished_ = true;
  if (times_ == nullptr) return;
  for (std::size_t c = 0; c < parts_.size(); ++c) {
    const PartStages& p = parts_[c];
    relay_overlap_part_times_t t{p.count, 0, 0, 0, 0, 0, 0};
    if (p.first != nullptr) {
      const Stage* last = p.second != nullptr ? p.second : p.first;
      t = {p.count,
           p.first->post_start_s,
           p.first->posted_s,
           p.first->done_s,
           p.second != nullptr ? p.second->post_start_s : -1.0,
           p.second != nullptr ? p.second->posted_s : -1.0,
           last->done_s};
    }
    times_[c] = t;
  }
}

relay_status_t Overlap::step(bool& done, bool& moved) {
  for (auto& s : stages_) drive(*s, moved, 0);
  done = std::all_of(stages_.begin(), stages_.end(),
                     [](const auto& s) { return s->state == StageState::done; });
  if (!done) return RELAY_SUCCESS;
  if (!finished_) finish();
  if (status_ != RELAY_SUCCESS) return core::fail(status_, "{}", error_);
  return RELAY_SUCCESS;
}

relay_status_t Overlap::progress(bool& done) {
  bool moved = false;
  return step(done, moved);
}

relay_status_t Overlap::wait() {
  for (;;) {
    bool done = false, moved = false;
    if (auto st = step(done, moved); st != RELAY_SUCCESS || done) return st;
    if (!moved) exec::idle_pause();
  }
}

}  // namespace relay::overlap
