// The energy of a measured region over every node of a communicator (issue 31): one process per
// node (MPI_COMM_TYPE_SHARED, its node rank 0) reads its node's meter (energy.hpp) before and
// after the region, and the joules are summed over nodes, package and DRAM apart. Leaders whose
// meters read the same counters (emulated nodes of one machine: one kernel, one set of RAPL
// zones) count once. A domain any counted node cannot read is unavailable for the whole sum.
#pragma once

#include <mpi.h>

#include <array>
#include <memory>
#include <string>

#include "measure/energy.hpp"

namespace relay::measure {

/// One region's energy over all nodes.
struct RegionEnergy {
  EnergyJoules joules;  ///< summed over the counted nodes, per domain
  double seconds = 0;   ///< the slowest counting leader's time from begin() to end()
};

/// MPI_Allreduce's signature: how NodeEnergy sums over ranks (the caller may pass a cheaper one
/// for a simulation: exec::allreduce, which this module does not include).
using AllreduceFn = int (*)(const void*, void*, int, MPI_Datatype, MPI_Op, MPI_Comm);

class NodeEnergy {
 public:
  /// Collective over comm, which it keeps and frees (a duplicate the caller made for it).
  /// `leads_node`: this rank is its node's first (the caller knows the node:
  /// exec::node_comm). `meter` is read on counting leaders only. `allreduce` makes its sums.
  NodeEnergy(MPI_Comm own_comm, bool leads_node, std::unique_ptr<EnergyMeter> meter,
             AllreduceFn allreduce = &MPI_Allreduce);
  ~NodeEnergy();
  NodeEnergy(const NodeEnergy&) = delete;
  NodeEnergy& operator=(const NodeEnergy&) = delete;

  /// Local: a counting leader reads its counters; the other ranks do nothing. Call before the
  /// region's first barrier, so that no rank of the node has started it.
  void begin();
  /// Local: the counters at the end. Call once every rank of the node has finished the region
  /// (after a barrier or an allreduce over the ranks running it).
  void end();
  /// Collective: the last region's joules summed over nodes and its seconds, the same on every
  /// rank. A domain unavailable on any counted node is unavailable, with the reason of the
  /// lowest such rank (kept as first_unavailable too). Where no leader's meter reads at all
  /// (EnergyMeter::reads), local: every domain unavailable, 0 seconds measured.
  RegionEnergy result();

  /// Nodes counted: node leaders with distinct counters.
  int nodes() const { return nodes_; }
  /// The meter, as its describe() says: "RAPL (/sys/class/powercap)".
  const std::string& describe() const { return description_; }
  /// The first reason a result had no figure for `d` ("" if every result had one): a results
  /// document says it once.
  const std::string& first_unavailable(EnergyDomain d) const {
    return first_unavailable_[static_cast<std::size_t>(d)];
  }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  AllreduceFn allreduce_ = &MPI_Allreduce;
  std::unique_ptr<EnergyMeter> meter_;
  std::string description_;
  bool counts_ = false;
  // No counting leader's meter reads (a simulation): every result is unavailable for the
  // reasons kept here, known without a message.
  bool silent_ = false;
  std::array<std::string, kEnergyDomains> silent_reasons_;
  int nodes_ = 0;
  EnergyReading before_, after_;
  double t_before_ = 0, t_after_ = 0;
  std::array<std::string, kEnergyDomains> first_unavailable_;
};

}  // namespace relay::measure
