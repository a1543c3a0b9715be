#include "exec/comm_state.hpp"

#include <mutex>
#include <set>

namespace relay::exec {
namespace {

int g_keyval = MPI_KEYVAL_INVALID;
std::mutex g_mutex;
std::set<CommState*> g_live;  // states not freed yet: freed at MPI_Finalize at the latest

void free_state(CommState* state) {
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_live.erase(state) == 0) return;  // already freed by the finalize hook
  }
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
  delete state;
}

int delete_state(MPI_Comm, int, void* value, void*) {
  free_state(static_cast<CommState*>(value));
  return MPI_SUCCESS;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while MPI still works: free every
// duplicate there rather than in MPI_COMM_WORLD's callbacks, which may run too late.
int finalize_hook(MPI_Comm, int, void*, void*) {
  std::set<CommState*> live;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    live = g_live;
  }
  for (CommState* s : live) free_state(s);
  return MPI_SUCCESS;
}

relay_status_t init_keyval(std::string& error) {
  static std::once_flag once;
  static int rc = MPI_SUCCESS;
  std::call_once(once, [] {
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_state, &g_keyval, nullptr);
    if (rc != MPI_SUCCESS) return;
    int self_key = MPI_KEYVAL_INVALID;
    rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_hook, &self_key, nullptr);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_attr(MPI_COMM_SELF, self_key, nullptr);
  });
  if (rc != MPI_SUCCESS) {
    error = "could not create relay's communicator attribute";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

}  // namespace

int CommState::next_tag() {
  // Tags 1..30000: MPI guarantees MPI_TAG_UB >= 32767.
  return 1 + static_cast<int>(next_sequence++ % 30000u);
}

relay_status_t comm_state(MPI_Comm user_comm, CommState** state, std::string& error) {
  if (auto st = init_keyval(error); st != RELAY_SUCCESS) return st;
  void* value = nullptr;
  int found = 0;
  if (MPI_Comm_get_attr(user_comm, g_keyval, &value, &found) != MPI_SUCCESS) {
    error = "MPI_Comm_get_attr failed";
    return RELAY_ERR_MPI;
  }
  if (found) {
    *state = static_cast<CommState*>(value);
    return RELAY_SUCCESS;
  }
  auto* s = new CommState;
  if (MPI_Comm_dup(user_comm, &s->comm) != MPI_SUCCESS) {
    delete s;
    error = "MPI_Comm_dup failed";
    return RELAY_ERR_MPI;
  }
  MPI_Comm_size(s->comm, &s->size);
  MPI_Comm_rank(s->comm, &s->rank);
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live.insert(s);
  }
  if (MPI_Comm_set_attr(user_comm, g_keyval, s) != MPI_SUCCESS) {
    free_state(s);
    error = "MPI_Comm_set_attr failed";
    return RELAY_ERR_MPI;
  }
  *state = s;
  return RELAY_SUCCESS;
}

}  // namespace relay::exec
