#include "schedule/schedule.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <utility>

namespace relay::schedule {

void RankProgram::add_recv(int peer, std::int64_t offset, std::int64_t bytes) {
  recv_steps.push_back(static_cast<std::int32_t>(steps.size()));
  steps.push_back(Step{StepKind::recv, peer, 0, offset, bytes});
}

void RankProgram::add_send(int peer, std::int64_t offset, std::int64_t bytes,
                           std::int32_t needs_recvs) {
  send_steps.push_back(static_cast<std::int32_t>(steps.size()));
  steps.push_back(Step{StepKind::send, peer, needs_recvs, offset, bytes});
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
  segment_bytes_ = (segment_bytes <= 0 || segment_bytes >= total_bytes) ? total_bytes
                                                                        : segment_bytes;
  count_ = (total_bytes + segment_bytes_ - 1) / segment_bytes_;
}

std::int64_t Segmentation::length(std::int64_t j) const {
  return std::min(segment_bytes_, total_bytes_ - j * segment_bytes_);
}

std::string check_consistency(const Schedule& schedule) {
  const int size = static_cast<int>(schedule.ranks.size());
  // (from, to) -> byte ranges in order, for sends and receives
  std::map<std::pair<int, int>, std::vector<std::pair<std::int64_t, std::int64_t>>> sends, recvs;
  std::ostringstream err;
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    for (const Step& s : p.steps) {
      if (s.peer < 0 || s.peer >= size || s.peer == r) {
        err << "rank " << r << " has a step with peer " << s.peer;
        return err.str();
      }
      if (s.bytes <= 0 || s.offset < 0) {
        err << "rank " << r << " has a step with offset " << s.offset << " bytes " << s.bytes;
        return err.str();
      }
      if (s.kind == StepKind::send) {
        if (s.needs_recvs < 0 || s.needs_recvs > p.recv_count()) {
          err << "rank " << r << " has a send needing " << s.needs_recvs << " of "
              << p.recv_count() << " receives";
          return err.str();
        }
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

std::string check_completes(const Schedule& schedule) {
  const int size = static_cast<int>(schedule.ranks.size());
  // For every rank, its receives grouped by source in program order: the k-th message from a
  // to b completes the k-th receive at b whose peer is a (MPI's non-overtaking rule).
  std::vector<std::map<int, std::vector<std::int32_t>>> recv_by_peer(size);
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    for (std::int32_t i = 0; i < p.recv_count(); ++i) {
      recv_by_peer[r][p.steps[p.recv_steps[i]].peer].push_back(i);
    }
  }
  std::vector<std::vector<char>> complete(size);
  for (int r = 0; r < size; ++r) complete[r].assign(schedule.ranks[r].recv_count(), 0);
  std::vector<std::int32_t> prefix(size, 0);
  std::vector<std::size_t> next_send(size, 0);
  std::map<std::pair<int, int>, std::size_t> delivered;
  bool progressed = true;
  while (progressed) {
    progressed = false;
    for (int r = 0; r < size; ++r) {
      const RankProgram& p = schedule.ranks[r];
      while (next_send[r] < p.send_steps.size()) {
        const Step& s = p.steps[p.send_steps[next_send[r]]];
        if (s.needs_recvs > prefix[r]) break;
        auto& k = delivered[{r, s.peer}];
        const auto& matching = recv_by_peer[s.peer][r];
        if (k >= matching.size()) return "a send has no matching receive";
        complete[s.peer][matching[k]] = 1;
        ++k;
        while (prefix[s.peer] < schedule.ranks[s.peer].recv_count() &&
               complete[s.peer][prefix[s.peer]]) {
          ++prefix[s.peer];
        }
        ++next_send[r];
        progressed = true;
      }
    }
  }
  for (int r = 0; r < size; ++r) {
    const RankProgram& p = schedule.ranks[r];
    if (next_send[r] != p.send_steps.size() || prefix[r] != p.recv_count()) {
      std::ostringstream err;
      err << "stuck: rank " << r << " completed " << prefix[r] << "/" << p.recv_count()
          << " receives and " << next_send[r] << "/" << p.send_steps.size() << " sends";
      return err.str();
    }
  }
  return {};
}

}  // namespace relay::schedule
