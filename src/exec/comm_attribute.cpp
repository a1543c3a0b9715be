#include "exec/comm_attribute.hpp"

#include <vector>

namespace relay::exec {

void CommAttribute::release(void* value) {
  PerRank& me = ranks_.mine();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (me.live.erase(value) == 0) return;  // already freed by the finalize hook
  }
  release_(value);
}

int CommAttribute::delete_fn(MPI_Comm, int, void* value, void* self) {
  static_cast<CommAttribute*>(self)->release(value);
  return MPI_SUCCESS;
}

int CommAttribute::finalize_fn(MPI_Comm, int, void*, void* self) {
  auto* attribute = static_cast<CommAttribute*>(self);
  PerRank& me = attribute->ranks_.mine();  // MPI_Finalize runs in the finalizing rank
  std::vector<void*> live;
  {
    std::lock_guard<std::mutex> lock(attribute->mutex_);
    live.assign(me.live.begin(), me.live.end());
  }
  for (void* v : live) attribute->release(v);
  return MPI_SUCCESS;
}

relay_status_t CommAttribute::init(PerRank*& mine, std::string& error) {
  mine = &ranks_.mine();
  PerRank& me = *mine;
  std::call_once(me.once, [this, &me] {
    me.init_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &me.keyval, this);
    if (me.init_rc != MPI_SUCCESS) return;
    int self_key = MPI_KEYVAL_INVALID;
    me.init_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_fn, &self_key, this);
    if (me.init_rc == MPI_SUCCESS) me.init_rc = MPI_Comm_set_attr(MPI_COMM_SELF, self_key, nullptr);
  });
  if (me.init_rc != MPI_SUCCESS) {
    error = "could not create relay's communicator attribute";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::get(MPI_Comm comm, void** value, std::string& error) {
  PerRank* me = nullptr;
  return get(comm, value, me, error);
}

relay_status_t CommAttribute::get(MPI_Comm comm, void** value, PerRank*& me, std::string& error) {
  *value = nullptr;
  if (auto st = init(me, error); st != RELAY_SUCCESS) return st;
  int found = 0;
  if (MPI_Comm_get_attr(comm, me->keyval, value, &found) != MPI_SUCCESS) {
    error = "MPI_Comm_get_attr failed";
    return RELAY_ERR_MPI;
  }
  if (!found) *value = nullptr;
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::set(MPI_Comm comm, void* value, std::string& error) {
  PerRank* me = nullptr;
  const relay_status_t st = init(me, error);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    me->live.insert(value);
  }
  if (st != RELAY_SUCCESS) {
    release(value);
    return st;
  }
  if (MPI_Comm_set_attr(comm, me->keyval, value) != MPI_SUCCESS) {
    release(value);
    error = "MPI_Comm_set_attr failed";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::remove(MPI_Comm comm, std::string& error) {
  void* value = nullptr;
  PerRank* me = nullptr;
  if (auto st = get(comm, &value, me, error); st != RELAY_SUCCESS || value == nullptr) return st;
  if (MPI_Comm_delete_attr(comm, me->keyval) != MPI_SUCCESS) {  // calls delete_fn: frees value
    error = "MPI_Comm_delete_attr failed";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::exec
