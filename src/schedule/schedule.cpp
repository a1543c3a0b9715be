#include "schedule/schedule.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>
#include <utility>

namespace relay::schedule {

void RankProgram::add_recv(int peer, std::int64_t offset, std::int64_t bytes) {
  recv_steps.push_back(static_cast<std::int32_t>(steps.size()));
  Step s;
  s.kind = StepKind::recv;
  s.peer = peer;
  s.offset = offset;
  s.bytes = bytes;
  steps.push_back(s);
}

void RankProgram::add(const Step& step) {
  const auto index = static_cast<std::int32_t>(steps.size());
  switch (step.kind) {
    case StepKind::send:
      send_steps.push_back(index);
      break;
    case StepKind::recv:
      recv_steps.push_back(index);
      break;
    case StepKind::combine:
      combine_steps.push_back(index);
      break;
  }
  steps.push_back(step);
}

void RankProgram::add_send(int peer, std::int64_t offset, std::int64_t bytes,
                           std::int32_t needs_recvs) {
  send_steps.push_back(static_cast<std::int32_t>(steps.size()));
  Step s;
  s.kind = StepKind::send;
  s.peer = peer;
  s.needs_recvs = needs_recvs;
  s.offset = offset;
  s.bytes = bytes;
  steps.push_back(s);
}

std::int64_t RankProgram::bytes_sent() const {
  std::int64_t total = 0;
  for (auto i : send_steps) total += steps[i].bytes;
  return total;
}

Segmentation::Segmentation(std::int64_t total_bytes, std::int64_t segment_bytes)
    : total_bytes_(total_bytes) {
  if (total_bytes <= 0) {
    segment_bytes_ = 0;
    count_ = 0;
    return;
  }
  segment_bytes_ =
      (segment_bytes <= 0 || segment_bytes >= total_bytes) ? total_bytes : segment_bytes;
  count_ = (total_bytes + segment_bytes_ - 1) / segment_bytes_;
}

std::int64_t Segmentation::length(std::int64_t j) const {
  return std::min(segment_bytes_, total_bytes_ - j * segment_bytes_);
}

bool operator==(const Step& a, const Step& b) {
  return a.kind == b.kind && a.to_scratch == b.to_scratch && a.received_left == b.received_left &&
         a.peer == b.peer && a.needs_recvs == b.needs_recvs &&
         a.needs_combines == b.needs_combines && a.needs_sends == b.needs_sends &&
         a.offset == b.offset && a.bytes == b.bytes && a.scratch_offset == b.scratch_offset;
}

bool operator==(const RankProgram& a, const RankProgram& b) {
  return a.scratch_bytes == b.scratch_bytes && a.steps == b.steps;
}

bool operator==(const Schedule& a, const Schedule& b) { return a.ranks == b.ranks; }

std::uint64_t fingerprint(const Schedule& schedule) {
  std::uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](std::int64_t v) {
    for (int byte = 0; byte < 8; ++byte) {
      h ^= static_cast<std::uint64_t>(v >> (8 * byte)) & 0xffU;
      h *= 1099511628211ULL;
    }
  };
  for (const auto& p : schedule.ranks) {
    mix(-1);  // rank boundary: {a}{bc} and {ab}{c} differ
    mix(p.scratch_bytes);
    for (const auto& s : p.steps) {
      mix(static_cast<std::int64_t>(s.kind) | (std::int64_t{s.to_scratch} << 8) |
          (std::int64_t{s.received_left} << 9));
      mix(s.peer);
      mix(s.needs_recvs);
      mix(s.needs_combines);
      mix(s.needs_sends);
      mix(s.offset);
      mix(s.bytes);
      mix(s.scratch_offset);
    }
  }
  return h;
}

std::string check_consistency(const Schedule& schedule) {
  const int size = static_cast<int>(schedule.ranks.size());
  // (from, to) -> byte ranges in order, for sends and receives
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> sends, recvs;
  std::ostringstream err;
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    for (const Step& s : p.steps) {
      if (s.bytes <= 0 || s.offset < 0 || s.scratch_offset < 0) {
        err << "rank " << r << " has a step with offset " << s.offset << " bytes " << s.bytes;
        return err.str();
      }
      if (s.needs_recvs < 0 || s.needs_recvs > p.recv_count() || s.needs_combines < 0 ||
          s.needs_combines > p.combine_count() || s.needs_sends < 0 ||
          s.needs_sends > p.send_count()) {
        err << "rank " << r << " has a step whose dependencies are out of range";
        return err.str();
      }
      if ((s.kind == StepKind::combine || s.to_scratch) &&
          s.scratch_offset + s.bytes > p.scratch_bytes) {
        err << "rank " << r << " addresses scratch beyond its " << p.scratch_bytes << " bytes";
        return err.str();
      }
      if (s.kind == StepKind::combine) continue;
      if (s.peer < 0 || s.peer >= size || s.peer == r) {
        err << "rank " << r << " has a step with peer " << s.peer;
        return err.str();
      }
      if (s.kind == StepKind::send) {
        sends[{r, s.peer}].emplace_back(s.offset, s.bytes);
      } else {
        recvs[{s.peer, r}].emplace_back(s.offset, s.bytes);
      }
    }
  }
  for (const auto& [pair, list] : sends) {
    auto it = recvs.find(pair);
    const std::size_t n_recv = it == recvs.end() ? 0 : it->second.size();
    if (n_recv != list.size()) {
      err << "rank " << pair.first << " sends " << list.size() << " messages to rank "
          << pair.second << " which receives " << n_recv;
      return err.str();
    }
    for (std::size_t k = 0; k < list.size(); ++k) {
      if (list[k] != it->second[k]) {
        err << "message " << k << " from rank " << pair.first << " to rank " << pair.second
            << ": sent [" << list[k].first << ", +" << list[k].second << ") received ["
            << it->second[k].first << ", +" << it->second[k].second << ")";
        return err.str();
      }
    }
  }
  for (const auto& [pair, list] : recvs) {
    if (sends.find(pair) == sends.end()) {
      err << "rank " << pair.second << " receives " << list.size() << " messages from rank "
          << pair.first << " which sends none";
      return err.str();
    }
  }
  return {};
}

namespace {

// The state of one rank in check_completes.
struct SimRank {
  std::int32_t recvs_posted = 0, recv_prefix = 0, sends_started = 0, send_prefix = 0;
  std::int32_t combines = 0, cursor = 0;
  std::vector<char> recv_done, send_done;
  std::vector<std::int32_t> ordinal;  // per step: its ordinal among the steps of its kind
};

bool ready(const Step& s, const SimRank& st) {
  return s.needs_recvs <= st.recv_prefix && s.needs_combines <= st.combines &&
         s.needs_sends <= st.send_prefix;
}

}  // namespace

std::string check_completes(const Schedule& schedule, int window, bool blocking) {
  const int size = static_cast<int>(schedule.ranks.size());
  const std::int32_t limit = window > 0 ? window : std::numeric_limits<std::int32_t>::max();
  // The k-th message from a to b matches the k-th receive at b whose peer is a (MPI's
  // non-overtaking rule): message ordinals per pair, receive ordinals by source.
  std::vector<std::map<int, std::vector<std::int32_t>>> recv_by_peer(size);
  std::vector<std::vector<std::int32_t>> send_ordinal_to_peer(size);
  std::vector<std::vector<std::int32_t>> recv_ordinal_from_peer(size);
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    std::map<int, std::int32_t> seen;
    for (std::int32_t i = 0; i < p.recv_count(); ++i) {
      const int peer = p.steps[p.recv_steps[i]].peer;
      recv_by_peer[r][peer].push_back(i);
      recv_ordinal_from_peer[r].push_back(seen[peer]++);
    }
    seen.clear();
    for (std::int32_t i = 0; i < p.send_count(); ++i) {
      send_ordinal_to_peer[r].push_back(seen[p.steps[p.send_steps[i]].peer]++);
    }
  }
  std::vector<SimRank> st(size);
  for (int r = 0; r < size; ++r) {
    st[r].recv_done.assign(schedule.ranks[r].recv_count(), 0);
    st[r].send_done.assign(schedule.ranks[r].send_count(), 0);
    const RankProgram& p = schedule.ranks[r];
    st[r].ordinal.assign(p.steps.size(), 0);
    for (std::int32_t i = 0; i < p.recv_count(); ++i) st[r].ordinal[p.recv_steps[i]] = i;
    for (std::int32_t i = 0; i < p.send_count(); ++i) st[r].ordinal[p.send_steps[i]] = i;
  }
  // Receives posted at b, by (source, ordinal from that source).
  std::vector<std::map<int, std::int32_t>> posted_from(size);
  // Sends started from a to b (by message ordinal) not yet matched: (send ordinal at a).
  std::map<std::pair<int, int>, std::vector<std::int32_t>> started;
  auto advance = [](std::vector<char>& done, std::int32_t& prefix) {
    while (prefix < static_cast<std::int32_t>(done.size()) && done[prefix]) ++prefix;
  };
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (int r = 0; r < size; ++r) {
      const RankProgram& p = schedule.ranks[r];
      SimRank& s = st[r];
      // Post receives in order.
      while (s.recvs_posted < p.recv_count() && s.recvs_posted - s.recv_prefix < limit &&
             ready(p.steps[p.recv_steps[s.recvs_posted]], s)) {
        const int peer = p.steps[p.recv_steps[s.recvs_posted]].peer;
        posted_from[r][peer] = recv_ordinal_from_peer[r][s.recvs_posted] + 1;
        ++s.recvs_posted;
        progressed = true;
      }
      if (blocking) {
        // One step at a time; a send is started only at the cursor.
        while (s.cursor < static_cast<std::int32_t>(p.steps.size())) {
          const Step& step = p.steps[s.cursor];
          if (step.kind == StepKind::combine) {
            if (!ready(step, s)) break;
            ++s.combines;
          } else if (step.kind == StepKind::recv) {
            if (!s.recv_done[s.ordinal[s.cursor]]) break;
          } else {
            const std::int32_t ordinal = s.ordinal[s.cursor];
            if (ordinal == s.sends_started) {
              started[{r, step.peer}].push_back(ordinal);
              ++s.sends_started;
              progressed = true;
            }
            if (!s.send_done[ordinal]) break;
          }
          ++s.cursor;
          progressed = true;
        }
      } else {
        while (s.combines < p.combine_count() && ready(p.steps[p.combine_steps[s.combines]], s)) {
          ++s.combines;
          progressed = true;
        }
        // Start sends in order, within the window and one in flight per peer.
        while (s.sends_started < p.send_count() && s.sends_started - s.send_prefix < limit) {
          const Step& step = p.steps[p.send_steps[s.sends_started]];
          if (!ready(step, s)) break;
          auto& list = started[{r, step.peer}];
          bool busy = false;
          for (std::int32_t k = s.send_prefix; k < s.sends_started && !busy; ++k) {
            busy = !s.send_done[k] && p.steps[p.send_steps[k]].peer == step.peer;
          }
          if (busy) break;
          list.push_back(s.sends_started++);
          progressed = true;
        }
      }
    }
    // Match started sends with posted receives (rendezvous: both sides complete together).
    for (auto& [pair, list] : started) {
      const int from = pair.first, to = pair.second;
      std::vector<std::int32_t> left;
      for (std::int32_t send : list) {
        const std::int32_t k = send_ordinal_to_peer[from][send];
        auto it = posted_from[to].find(from);
        if (it == posted_from[to].end() || it->second <= k) {
          left.push_back(send);
          continue;
        }
        const auto& matching = recv_by_peer[to][from];
        if (static_cast<std::size_t>(k) >= matching.size()) return "a send has no matching receive";
        st[to].recv_done[matching[k]] = 1;
        st[from].send_done[send] = 1;
        progressed = true;
      }
      list.swap(left);
    }
    for (int r = 0; r < size; ++r) {
      advance(st[r].recv_done, st[r].recv_prefix);
      advance(st[r].send_done, st[r].send_prefix);
    }
  }
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    const SimRank& s = st[r];
    if (s.recv_prefix != p.recv_count() || s.send_prefix != p.send_count() ||
        s.combines != p.combine_count()) {
      std::ostringstream err;
      err << "stuck: rank " << r << " completed " << s.recv_prefix << "/" << p.recv_count()
          << " receives, " << s.send_prefix << "/" << p.send_count() << " sends and " << s.combines
          << "/" << p.combine_count() << " combines";
      return err.str();
    }
  }
  return {};
}

}  // namespace relay::schedule
