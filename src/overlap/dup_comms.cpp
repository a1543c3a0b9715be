#include "overlap/dup_comms.hpp"

#include <memory>
#include <vector>

#include "exec/comm_attribute.hpp"
#include "exec/comm_state.hpp"
#include "exec/compute.hpp"

namespace relay::overlap {
namespace {

struct DupSet {
  std::vector<std::unique_ptr<DupComm>> dups;
};

void free_set(void* value) {
  auto* set = static_cast<DupSet*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  for (auto& d : set->dups) {
    if (!finalized && d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
  }
  delete set;
}

exec::CommAttribute& sets() {
  static exec::CommAttribute attribute(free_set);
  return attribute;
}

DupSet* find(MPI_Comm comm) {
  void* value = nullptr;
  std::string ignored;
  sets().get(comm, &value, ignored);
  return static_cast<DupSet*>(value);
}

}  // namespace

relay_status_t prepare_dups(MPI_Comm comm, int n, std::string& error) {
  DupSet* set = find(comm);
  if (set == nullptr) {
    set = new DupSet;
    if (auto st = sets().set(comm, set, error); st != RELAY_SUCCESS) return st;
  }
  while (static_cast<int>(set->dups.size()) < n) {
    auto d = std::make_unique<DupComm>();
    if (exec::dup_comm(comm, &d->comm) != MPI_SUCCESS) {
      error = "MPI_Comm_dup failed";
      return RELAY_ERR_MPI;
    }
    exec::CommState* state = nullptr;
    const MPI_Comm made = d->comm;
    set->dups.push_back(std::move(d));
    if (auto st = exec::comm_state(made, &state, error); st != RELAY_SUCCESS) return st;
  }
  return RELAY_SUCCESS;
}

DupComm& dup(MPI_Comm comm, int index) {
  return *find(comm)->dups[static_cast<std::size_t>(index)];
}

}  // namespace relay::overlap
