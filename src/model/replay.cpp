#include "model/replay.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>

namespace relay::model {
namespace {

constexpr double kUnknown = -1.0;
constexpr double kNever = std::numeric_limits<double>::infinity();

enum class Phase { queued, fixed, work, done };

struct Message {
  int src = 0, dst = 0;
  std::int64_t bytes = 0;
  std::int32_t recv_ordinal = 0;  // at dst
  MessageCost cost;
  double issued = 0;  // the sender's CPU is done issuing it (os)
  double ready = 0;   // may take the ports (after os; a rendezvous: and the handshake)
  Phase phase = Phase::queued;
  double fixed_end = 0;
  double work_left = 0;  // seconds at full rate
  double rate = 0;
  double end = 0;  // projected end of the work phase
};

struct RankState {
  // nonblocking
  std::size_t next_send = 0;
  int in_flight = 0;
  double cpu_free = 0;
  std::vector<std::int64_t> peer_bytes;
  // blocking
  std::size_t cursor = 0;
  double clock = 0;
  int active_send = -1;
  std::int32_t recvs_seen = 0;
  // nonblocking: combines run in order on the CPU (cpu_free) once their receives are in
  std::size_t next_combine = 0;
  std::vector<double> combine_done;  // per combine ordinal; kUnknown until it is run
  std::int32_t combines_prefix = 0;  // combines [0, prefix) complete by the current time
  // both
  std::vector<double> recv_done;  // per receive ordinal; kUnknown until its message ends
  std::int32_t prefix = 0;        // receives [0, prefix) complete by the current time
  double last = 0;                // latest completion of anything on this rank
  std::vector<int> out_queue;     // issued messages waiting for the ports, in issue order
};

// A shared link (Machine::shared_link): the transfers in their work phase split every node's
// outgoing and incoming bandwidth (1 each, at most 1 + duplex for both) by max-min fairness
// (progressive filling: the most contended resource fixes its transfers' equal shares, which
// the other resources then lose, and so on), as SimGrid's flow model and TCP's connections.
void share_links(std::vector<Message>& msgs, const std::vector<int>& active, int P, double duplex) {
  std::vector<double> capacity(3 * static_cast<std::size_t>(P));
  std::vector<int> users(capacity.size(), 0);
  for (int r = 0; r < P; ++r) {
    capacity[r] = capacity[P + r] = 1.0;  // out, in
    capacity[2 * P + r] = 1.0 + duplex;   // both directions of the node
  }
  std::vector<int> open;
  auto resources = [P](const Message& msg) {
    return std::array<int, 4>{msg.src, P + msg.dst, 2 * P + msg.src, 2 * P + msg.dst};
  };
  for (int id : active) {
    if (msgs[id].phase != Phase::work) continue;
    open.push_back(id);
    for (int res : resources(msgs[id])) ++users[res];
  }
  while (!open.empty()) {
    int tightest = -1;
    double share = kNever;
    for (std::size_t res = 0; res < capacity.size(); ++res) {
      if (users[res] > 0 && capacity[res] / users[res] < share) {
        share = capacity[res] / users[res];
        tightest = static_cast<int>(res);
      }
    }
    share = std::max(0.0, share);
    for (std::size_t i = 0; i < open.size();) {
      Message& msg = msgs[open[i]];
      const auto uses = resources(msg);
      if (std::find(uses.begin(), uses.end(), tightest) == uses.end()) {
        ++i;
        continue;
      }
      msg.rate = share;
      for (int res : uses) {
        capacity[res] -= share;
        --users[res];
      }
      open[i] = open.back();
      open.pop_back();
    }
  }
}

}  // namespace

Prediction replay(const schedule::Schedule& schedule, schedule::Policy policy,
                  const ReplayLimits& limits, const Machine& m) {
  const int P = static_cast<int>(schedule.ranks.size());
  const int window = std::max(1, limits.window);
  std::vector<RankState> st(P);
  // The k-th message a -> b completes the k-th receive at b whose peer is a.
  std::vector<std::map<int, std::vector<std::int32_t>>> recv_by_peer(P);
  std::map<std::pair<int, int>, std::size_t> sent;
  for (int r = 0; r < P; ++r) {
    const auto& p = schedule.ranks[r];
    st[r].recv_done.assign(p.recv_steps.size(), kUnknown);
    st[r].combine_done.assign(p.combine_steps.size(), kUnknown);
    st[r].peer_bytes.assign(P, 0);
    for (std::int32_t i = 0; i < p.recv_count(); ++i) {
      recv_by_peer[r][p.steps[p.recv_steps[i]].peer].push_back(i);
    }
  }
  std::vector<Message> msgs;
  std::vector<int> active;  // messages holding ports
  std::vector<int> out_busy(P, -1), in_busy(P, -1);
  // Combines (reductions) keep their rank's CPU busy for machine.combine(bytes), in program
  // order, once the receives they need are complete (receives are taken as pre-posted).
  std::priority_queue<double, std::vector<double>, std::greater<>> times;
  double t = 0;

  auto issue = [&](int r, const schedule::Step& step) {
    auto& k = sent[{r, step.peer}];
    const auto& matching = recv_by_peer[step.peer][r];
    if (k >= matching.size()) {
      throw std::logic_error("replay: rank " + std::to_string(r) + " sends to rank " +
                             std::to_string(step.peer) + " more messages than it receives");
    }
    Message msg;
    msg.src = r;
    msg.dst = step.peer;
    msg.bytes = step.bytes;
    msg.recv_ordinal = matching[k++];
    msg.cost = m.cost(step.bytes);
    msg.issued = t + msg.cost.send_overhead_s;
    msg.ready = msg.issued + msg.cost.handshake_s;
    msgs.push_back(msg);
    st[r].out_queue.push_back(static_cast<int>(msgs.size()) - 1);
    times.push(msg.ready);
    return static_cast<int>(msgs.size()) - 1;
  };
  auto complete_prefix = [&](RankState& s) {
    while (s.prefix < static_cast<std::int32_t>(s.recv_done.size()) &&
           s.recv_done[s.prefix] != kUnknown && s.recv_done[s.prefix] <= t) {
      ++s.prefix;
    }
    while (s.combines_prefix < static_cast<std::int32_t>(s.combine_done.size()) &&
           s.combine_done[s.combines_prefix] != kUnknown &&
           s.combine_done[s.combines_prefix] <= t) {
      ++s.combines_prefix;
    }
  };
  auto budget_allows = [&](const RankState& s, const schedule::Step& step) {
    const std::int64_t in = s.peer_bytes[step.peer];
    return in == 0 || in + step.bytes <= limits.peer_bytes;
  };

  // Starts what can start at time t; returns whether anything changed.
  auto start_all = [&]() {
    bool any = false;
    for (int r = 0; r < P; ++r) {
      const auto& p = schedule.ranks[r];
      RankState& s = st[r];
      complete_prefix(s);
      if (policy == schedule::Policy::nonblocking) {
        // As the executor's local_steps: combines that can run, then sends that can start.
        while (s.next_combine < p.combine_steps.size() && s.cpu_free <= t) {
          const schedule::Step& step = p.steps[p.combine_steps[s.next_combine]];
          if (step.needs_recvs > s.prefix) break;
          s.cpu_free = t + m.combine.at(step.bytes);
          s.combine_done[s.next_combine++] = s.cpu_free;
          times.push(s.cpu_free);
          complete_prefix(s);
          any = true;
        }
        while (s.next_send < p.send_steps.size() && s.cpu_free <= t && s.in_flight < window) {
          const schedule::Step& step = p.steps[p.send_steps[s.next_send]];
          if (step.needs_recvs > s.prefix || step.needs_combines > s.combines_prefix ||
              !budget_allows(s, step)) {
            break;
          }
          issue(r, step);
          s.cpu_free = msgs.back().issued;
          ++s.in_flight;
          s.peer_bytes[step.peer] += step.bytes;
          ++s.next_send;
          any = true;
        }
        if (s.cpu_free > t) times.push(s.cpu_free);
      } else {
        while (s.cursor < p.steps.size() && s.active_send < 0) {
          const schedule::Step& step = p.steps[s.cursor];
          if (step.kind == schedule::StepKind::combine) {  // local: the rank's clock moves on
            s.clock += m.combine.at(step.bytes);           // from when the rank got here
            if (s.clock > t) times.push(s.clock);
            ++s.cursor;
            any = true;
            continue;
          }
          if (step.kind == schedule::StepKind::recv) {
            const double done = s.recv_done[s.recvs_seen];
            if (done == kUnknown || done > t) break;
            s.clock = std::max(s.clock, done);
            ++s.recvs_seen;
            ++s.cursor;
          } else {
            if (s.clock > t) break;
            s.active_send = issue(r, step);
          }
          any = true;
        }
      }
    }
    // Ports: each free output port takes the first ready message whose receiver is free. On a
    // shared link every ready message starts at once (its rate is set below).
    for (int r = 0; r < P && m.shared_link; ++r) {
      auto& q = st[r].out_queue;
      for (auto it = q.begin(); it != q.end();) {
        Message& msg = msgs[*it];
        if (msg.ready > t) {
          ++it;
          continue;
        }
        msg.work_left = msg.cost.port_work_s;
        msg.phase = msg.cost.port_fixed_s > 0 ? Phase::fixed : Phase::work;
        msg.fixed_end = t + msg.cost.port_fixed_s;
        if (msg.phase == Phase::fixed) times.push(msg.fixed_end);
        active.push_back(*it);
        it = q.erase(it);
        any = true;
      }
    }
    for (int r = 0; r < P && !m.shared_link; ++r) {
      if (out_busy[r] >= 0) continue;
      auto& q = st[r].out_queue;
      for (auto it = q.begin(); it != q.end(); ++it) {
        Message& msg = msgs[*it];
        if (msg.ready > t || in_busy[msg.dst] >= 0) continue;
        out_busy[r] = in_busy[msg.dst] = *it;
        msg.work_left = msg.cost.port_work_s;
        if (msg.cost.port_fixed_s > 0) {
          msg.phase = Phase::fixed;
          msg.fixed_end = t + msg.cost.port_fixed_s;
          times.push(msg.fixed_end);
        } else {
          msg.phase = Phase::work;
        }
        active.push_back(*it);
        q.erase(it);
        any = true;
        break;
      }
    }
    return any;
  };

  auto finish = [&](Message& msg) {
    msg.phase = Phase::done;
    out_busy[msg.src] = in_busy[msg.dst] = -1;
    RankState& d = st[msg.dst];
    const double arrive = t + msg.cost.latency_s + msg.cost.recv_overhead_s;
    d.recv_done[msg.recv_ordinal] = arrive;
    d.last = std::max(d.last, arrive);
    times.push(arrive);
    RankState& s = st[msg.src];
    s.last = std::max(s.last, t);
    if (policy == schedule::Policy::nonblocking) {
      --s.in_flight;
      s.peer_bytes[msg.dst] -= msg.bytes;
    } else {
      s.clock = t;
      s.active_send = -1;
      ++s.cursor;
    }
  };

  std::vector<double> cap(P);
  std::vector<char> sending(P), receiving(P);
  for (;;) {
    while (start_all()) {
    }
    // Rates of the transfers in their work phase.
    if (m.shared_link) share_links(msgs, active, P, m.duplex);
    std::fill(sending.begin(), sending.end(), 0);
    std::fill(receiving.begin(), receiving.end(), 0);
    for (int id : active) {
      if (msgs[id].phase == Phase::work) sending[msgs[id].src] = receiving[msgs[id].dst] = 1;
    }
    const double shared = std::min(1.0, (1.0 + m.duplex) / 2.0);
    for (int r = 0; r < P; ++r) cap[r] = sending[r] && receiving[r] ? shared : 1.0;
    // The machine's limit on concurrent transfers (cores copying on shared memory).
    double slots_share = 1.0;
    if (m.transfer_slots > 0) {
      const auto working = std::count_if(active.begin(), active.end(),
                                         [&](int id) { return msgs[id].phase == Phase::work; });
      if (static_cast<double>(working) > m.transfer_slots)
        slots_share = m.transfer_slots / static_cast<double>(working);
    }
    double next = kNever;
    while (!times.empty() && times.top() <= t) times.pop();
    if (!times.empty()) next = times.top();
    for (int id : active) {
      Message& msg = msgs[id];
      if (msg.phase != Phase::work) continue;
      msg.rate = (m.shared_link ? msg.rate : std::min(cap[msg.src], cap[msg.dst])) * slots_share;
      msg.end = t + msg.work_left / msg.rate;
      next = std::min(next, msg.end);
    }
    if (next == kNever) break;
    const double dt = next - t;
    for (int id : active) {
      if (msgs[id].phase == Phase::work) msgs[id].work_left -= msgs[id].rate * dt;
    }
    t = next;
    for (std::size_t i = 0; i < active.size();) {
      Message& msg = msgs[active[i]];
      if (msg.phase == Phase::fixed && msg.fixed_end <= t) {
        msg.phase = Phase::work;
        msg.end = t + msg.work_left;
      }
      if (msg.phase == Phase::work && msg.end <= t) {
        finish(msg);
        active[i] = active.back();
        active.pop_back();
        continue;
      }
      ++i;
    }
  }

  Prediction out;
  out.messages = static_cast<long long>(msgs.size());
  out.finish_s.assign(P, 0);
  for (int r = 0; r < P; ++r) {
    const auto& p = schedule.ranks[r];
    RankState& s = st[r];
    const bool complete =
        policy == schedule::Policy::blocking
            ? s.cursor == p.steps.size()
            : s.next_send == p.send_steps.size() && s.next_combine == p.combine_steps.size();
    for (double d : s.recv_done) {
      if (d == kUnknown) {
        throw std::logic_error("replay: rank " + std::to_string(r) +
                               " waits for a message never sent");
      }
    }
    if (!complete || !s.out_queue.empty()) {
      throw std::logic_error("replay: rank " + std::to_string(r) + " is stuck");
    }
    out.finish_s[r] = std::max({s.last, s.clock, s.cpu_free});
    out.time_s = std::max(out.time_s, out.finish_s[r]);
  }
  return out;
}

}  // namespace relay::model
