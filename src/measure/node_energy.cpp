#include "measure/node_energy.hpp"

#include <climits>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace relay::measure {

NodeEnergy::NodeEnergy(MPI_Comm own_comm, bool leads_node, std::unique_ptr<EnergyMeter> meter,
                       AllreduceFn allreduce)
    : comm_(own_comm),
      allreduce_(allreduce),
      meter_(std::move(meter)),
      description_(meter_->describe()) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm_, &rank);
  MPI_Comm_size(comm_, &size);
  // Per rank: whether it leads its node, and a hash of its meter's identity (0: unique).
  const std::string identity = leads_node ? meter_->identity() : std::string();
  const std::uint64_t mine[2] = {leads_node ? 1u : 0u,
                                 identity.empty() ? 0u : std::hash<std::string>{}(identity) | 1u};
  // Without an identity anywhere every leader counts: no allgather, whose P^2 bytes (4 GiB on
  // 16,384 simulated ranks) would be the largest thing in a simulation. One sum tells whether
  // any rank has an identity, whether any leader's meter reads, and how many ranks lead.
  const long long mine_counts[3] = {mine[1] != 0 ? 1 : 0, leads_node && meter_->reads() ? 1 : 0,
                                    leads_node ? 1 : 0};
  long long counts[3] = {0, 0, 0};  // ranks with an identity, leaders that read, leaders
  allreduce_(mine_counts, counts, 3, MPI_LONG_LONG, MPI_SUM, comm_);
  if (counts[0] == 0) {
    nodes_ = static_cast<int>(counts[2]);
    counts_ = leads_node;
    // Then no result needs a message: each one cost a simulated run of bench gemm seven
    // collectives over every rank per repetition (three allreduces, a broadcast pair per
    // unavailable domain).
    silent_ = counts[1] == 0;
    if (silent_) {
      const EnergyReading reading = meter_->read();
      for (std::size_t d = 0; d < kEnergyDomains; ++d) {
        silent_reasons_[d] = nodes_ == 0 ? std::string("no node counted") : reading[d].unavailable;
      }
    }
    return;
  }
  std::vector<std::uint64_t> all(2 * static_cast<std::size_t>(size));
  MPI_Allgather(mine, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, comm_);
  for (int r = 0; r < size; ++r) {
    const std::uint64_t leads = all[2 * r], id = all[2 * r + 1];
    bool seen = false;
    for (int q = 0; q < r && id != 0 && !seen; ++q) seen = all[2 * q] != 0 && all[2 * q + 1] == id;
    const bool counted = leads != 0 && !seen;
    nodes_ += counted ? 1 : 0;
    if (r == rank) counts_ = counted;
  }
}

NodeEnergy::~NodeEnergy() { MPI_Comm_free(&comm_); }

void NodeEnergy::begin() {
  if (!counts_ || silent_) return;
  before_ = meter_->read();
  t_before_ = MPI_Wtime();
}

void NodeEnergy::end() {
  if (!counts_ || silent_) return;
  after_ = meter_->read();
  t_after_ = MPI_Wtime();
}

RegionEnergy NodeEnergy::result() {
  if (silent_) {
    RegionEnergy out;
    for (std::size_t d = 0; d < kEnergyDomains; ++d) {
      out.joules[d].unavailable = silent_reasons_[d];
      if (first_unavailable_[d].empty()) first_unavailable_[d] = silent_reasons_[d];
    }
    return out;
  }
  int rank = 0;
  MPI_Comm_rank(comm_, &rank);
  const EnergyJoules mine = counts_ ? energy_between(before_, after_) : EnergyJoules{};
  double joules[kEnergyDomains] = {}, seconds = counts_ ? t_after_ - t_before_ : 0.0;
  int missing[kEnergyDomains];  // the lowest rank without the domain (INT_MAX: none)
  for (std::size_t d = 0; d < kEnergyDomains; ++d) {
    const bool lacks = counts_ && !mine[d].joules;
    joules[d] = counts_ && mine[d].joules ? *mine[d].joules : 0.0;
    missing[d] = lacks ? rank : INT_MAX;
  }
  RegionEnergy out;
  allreduce_(MPI_IN_PLACE, joules, kEnergyDomains, MPI_DOUBLE, MPI_SUM, comm_);
  allreduce_(MPI_IN_PLACE, missing, kEnergyDomains, MPI_INT, MPI_MIN, comm_);
  allreduce_(&seconds, &out.seconds, 1, MPI_DOUBLE, MPI_MAX, comm_);
  for (std::size_t d = 0; d < kEnergyDomains; ++d) {
    if (nodes_ > 0 && missing[d] == INT_MAX) {
      out.joules[d].joules = joules[d];
      continue;
    }
    // The reason, from the lowest rank that has it.
    std::string reason = nodes_ == 0 ? std::string("no node counted") : mine[d].unavailable;
    if (nodes_ > 0) {
      int length = static_cast<int>(reason.size());
      MPI_Bcast(&length, 1, MPI_INT, missing[d], comm_);
      reason.resize(static_cast<std::size_t>(length));
      MPI_Bcast(reason.data(), length, MPI_CHAR, missing[d], comm_);
    }
    out.joules[d].unavailable = reason;
    if (first_unavailable_[d].empty()) first_unavailable_[d] = reason;
  }
  return out;
}

}  // namespace relay::measure
