#include "exec/comm_state.hpp"

#include "exec/comm_attribute.hpp"
#include "exec/compute.hpp"

namespace relay::exec {
namespace {

void free_state(void* value) {
  auto* state = static_cast<CommState*>(value);
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
  delete state;
}

CommAttribute& states() {
  static CommAttribute attribute(free_state);
  return attribute;
}

}  // namespace

int CommState::next_tag() {
  // Tags 1..30000: MPI guarantees MPI_TAG_UB >= 32767.
  return 1 + static_cast<int>(next_sequence++ % 30000u);
}

relay_status_t comm_state(MPI_Comm user_comm, CommState** state, std::string& error,
                          const OnCreate& on_create) {
  void* value = nullptr;
  if (auto st = states().get(user_comm, &value, error); st != RELAY_SUCCESS) return st;
  if (value != nullptr) {
    *state = static_cast<CommState*>(value);
    return RELAY_SUCCESS;
  }
  auto* s = new CommState;
  if (dup_comm(user_comm, &s->comm) != MPI_SUCCESS) {
    delete s;
    error = "MPI_Comm_dup failed";
    return RELAY_ERR_MPI;
  }
  MPI_Comm_size(s->comm, &s->size);
  MPI_Comm_rank(s->comm, &s->rank);
  if (on_create) {
    if (auto st = on_create(s->comm); st != RELAY_SUCCESS) {
      MPI_Comm_free(&s->comm);
      delete s;
      return st;
    }
  }
  if (auto st = states().set(user_comm, s, error); st != RELAY_SUCCESS) return st;
  *state = s;
  return RELAY_SUCCESS;
}

}  // namespace relay::exec
