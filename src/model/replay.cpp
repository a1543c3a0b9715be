#include "model/replay.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

namespace relay::model {
namespace {

constexpr double kUnknown = -1.0;
constexpr double kNever = std::numeric_limits<double>::infinity();

struct RankState {
  std::size_t next_send = 0;   // ordinal among send steps (nonblocking)
  std::size_t cursor = 0;      // program position (blocking)
  double cpu_free = 0;         // when the CPU can issue the next operation
  double clock = 0;            // blocking: completion of the previous step
  std::vector<double> recv_done;       // per receive ordinal; kUnknown until matched
  std::vector<double> send_complete;   // per send ordinal
  std::int32_t prefix = 0;             // receives [0, prefix) are known
  std::vector<double> prefix_time;     // [k]: when receives [0, k] had all completed
  std::int32_t recvs_seen = 0;         // blocking: receive ordinal at the cursor
};

}  // namespace

Prediction replay(const schedule::Schedule& schedule, exec::Policy policy, int window,
                  const Machine& m) {
  const int P = static_cast<int>(schedule.ranks.size());
  window = std::max(1, window);
  std::vector<RankState> st(P);
  // k-th message a -> b completes the k-th receive at b whose peer is a.
  std::vector<std::map<int, std::vector<std::int32_t>>> recv_by_peer(P);
  std::map<std::pair<int, int>, std::size_t> sent;
  for (int r = 0; r < P; ++r) {
    const auto& p = schedule.ranks[r];
    st[r].recv_done.assign(p.recv_steps.size(), kUnknown);
    st[r].send_complete.assign(p.send_steps.size(), kUnknown);
    for (std::int32_t i = 0; i < p.recv_count(); ++i) {
      recv_by_peer[r][p.steps[p.recv_steps[i]].peer].push_back(i);
    }
  }
  std::vector<double> out_free(P, 0), in_free(P, 0);
  // Combines (reductions) are local work of zero cost here: a send that needs the first c
  // combines needs the receives those combines need. Receives are taken as pre-posted.
  std::vector<std::vector<std::int32_t>> combine_needs(P);
  for (int r = 0; r < P; ++r) {
    const auto& p = schedule.ranks[r];
    std::int32_t most = 0;
    combine_needs[r].push_back(0);
    for (auto i : p.combine_steps) combine_needs[r].push_back(most = std::max(most, p.steps[i].needs_recvs));
  }
  auto needs_recvs = [&](int r, const schedule::Step& step) {
    return std::max(step.needs_recvs, combine_needs[r][step.needs_combines]);
  };

  auto advance_prefix = [&](RankState& s) {
    while (s.prefix < static_cast<std::int32_t>(s.recv_done.size()) && s.recv_done[s.prefix] != kUnknown) {
      const double before = s.prefix > 0 ? s.prefix_time[s.prefix - 1] : 0.0;
      s.prefix_time.push_back(std::max(before, s.recv_done[s.prefix]));
      ++s.prefix;
    }
  };
  // Blocking: complete receives at the cursor whose data has arrived.
  auto advance_blocking = [&](int r) {
    const auto& p = schedule.ranks[r];
    RankState& s = st[r];
    while (s.cursor < p.steps.size() && p.steps[s.cursor].kind == schedule::StepKind::combine) ++s.cursor;
    while (s.cursor < p.steps.size() && p.steps[s.cursor].kind == schedule::StepKind::recv) {
      const double done = s.recv_done[s.recvs_seen];
      if (done == kUnknown) return;
      s.clock = std::max(s.clock, done);
      ++s.recvs_seen;
      ++s.cursor;
      while (s.cursor < p.steps.size() && p.steps[s.cursor].kind == schedule::StepKind::combine) ++s.cursor;
    }
  };
  // The next send of rank r, and when it could be issued, or kNever if not determined yet.
  auto candidate = [&](int r, const schedule::Step*& step) -> double {
    const auto& p = schedule.ranks[r];
    RankState& s = st[r];
    if (policy == exec::Policy::blocking) {
      advance_blocking(r);
      if (s.cursor >= p.steps.size()) return kNever;
      if (p.steps[s.cursor].kind == schedule::StepKind::recv) return kNever;  // data not here yet
      step = &p.steps[s.cursor];
      return s.clock;
    }
    if (s.next_send >= p.send_steps.size()) return kNever;
    step = &p.steps[p.send_steps[s.next_send]];
    advance_prefix(s);
    const std::int32_t needs = needs_recvs(r, *step);
    if (needs > s.prefix) return kNever;
    double t = std::max(s.cpu_free, needs > 0 ? s.prefix_time[needs - 1] : 0.0);
    if (s.next_send >= static_cast<std::size_t>(window)) {
      t = std::max(t, s.send_complete[s.next_send - window]);
    }
    return t;
  };

  Prediction out;
  for (;;) {
    int best = -1;
    double best_start = kNever;
    double best_issue = 0;
    const schedule::Step* best_step = nullptr;
    for (int r = 0; r < P; ++r) {
      const schedule::Step* step = nullptr;
      const double issue = candidate(r, step);
      if (issue == kNever) continue;
      const double start = std::max({issue + m.send_overhead_s, out_free[r], in_free[step->peer]});
      if (start < best_start) {
        best_start = start;
        best_issue = issue;
        best = r;
        best_step = step;
      }
    }
    if (best < 0) break;
    const schedule::Step& step = *best_step;
    const double busy = m.alpha_s + m.beta_s_per_byte * static_cast<double>(step.bytes);
    const double end = best_start + busy;
    out_free[best] = end;
    in_free[step.peer] = end;
    auto& k = sent[{best, step.peer}];
    const auto& matching = recv_by_peer[step.peer][best];
    if (k >= matching.size()) {
      throw std::logic_error("replay: rank " + std::to_string(best) + " sends to rank " +
                             std::to_string(step.peer) + " more messages than it receives");
    }
    st[step.peer].recv_done[matching[k++]] = end + m.latency_s + m.recv_overhead_s;
    ++out.messages;
    RankState& s = st[best];
    if (policy == exec::Policy::blocking) {
      s.clock = end;
      ++s.cursor;
    } else {
      s.cpu_free = best_issue + m.send_overhead_s;
      s.send_complete[s.next_send++] = end;
    }
  }
  out.finish_s.assign(P, 0);
  for (int r = 0; r < P; ++r) {
    const auto& p = schedule.ranks[r];
    RankState& s = st[r];
    if (policy == exec::Policy::blocking) advance_blocking(r);
    const bool complete = policy == exec::Policy::blocking
                              ? s.cursor == p.steps.size()
                              : s.next_send == p.send_steps.size();
    double finish = std::max(s.clock, s.cpu_free);
    for (double t : s.recv_done) {
      if (t == kUnknown) {
        throw std::logic_error("replay: rank " + std::to_string(r) + " waits for a message never sent");
      }
      finish = std::max(finish, t);
    }
    if (!complete) throw std::logic_error("replay: rank " + std::to_string(r) + " is stuck");
    for (double t : s.send_complete) finish = std::max(finish, t);
    out.finish_s[r] = finish;
    out.time_s = std::max(out.time_s, finish);
  }
  return out;
}

}  // namespace relay::model
