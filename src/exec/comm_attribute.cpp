#include "exec/comm_attribute.hpp"

#include <vector>

namespace relay::exec {

void CommAttribute::release(void* value) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (live_.erase(value) == 0) return;  // already freed by the finalize hook
  }
  release_(value);
}

int CommAttribute::delete_fn(MPI_Comm, int, void* value, void* self) {
  static_cast<CommAttribute*>(self)->release(value);
  return MPI_SUCCESS;
}

int CommAttribute::finalize_fn(MPI_Comm, int, void*, void* self) {
  auto* me = static_cast<CommAttribute*>(self);
  std::vector<void*> live;
  {
    std::lock_guard<std::mutex> lock(me->mutex_);
    live.assign(me->live_.begin(), me->live_.end());
  }
  for (void* v : live) me->release(v);
  return MPI_SUCCESS;
}

relay_status_t CommAttribute::init(std::string& error) {
  std::call_once(once_, [this] {
    init_rc_ = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &keyval_, this);
    if (init_rc_ != MPI_SUCCESS) return;
    int self_key = MPI_KEYVAL_INVALID;
    init_rc_ = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, finalize_fn, &self_key, this);
    if (init_rc_ == MPI_SUCCESS) init_rc_ = MPI_Comm_set_attr(MPI_COMM_SELF, self_key, nullptr);
  });
  if (init_rc_ != MPI_SUCCESS) {
    error = "could not create relay's communicator attribute";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::get(MPI_Comm comm, void** value, std::string& error) {
  *value = nullptr;
  if (auto st = init(error); st != RELAY_SUCCESS) return st;
  int found = 0;
  if (MPI_Comm_get_attr(comm, keyval_, value, &found) != MPI_SUCCESS) {
    error = "MPI_Comm_get_attr failed";
    return RELAY_ERR_MPI;
  }
  if (!found) *value = nullptr;
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::set(MPI_Comm comm, void* value, std::string& error) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_.insert(value);
  }
  if (auto st = init(error); st != RELAY_SUCCESS) {
    release(value);
    return st;
  }
  if (MPI_Comm_set_attr(comm, keyval_, value) != MPI_SUCCESS) {
    release(value);
    error = "MPI_Comm_set_attr failed";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

relay_status_t CommAttribute::remove(MPI_Comm comm, std::string& error) {
  void* value = nullptr;
  if (auto st = get(comm, &value, error); st != RELAY_SUCCESS || value == nullptr) return st;
  if (MPI_Comm_delete_attr(comm, keyval_) != MPI_SUCCESS) {  // calls delete_fn: frees value
    error = "MPI_Comm_delete_attr failed";
    return RELAY_ERR_MPI;
  }
  return RELAY_SUCCESS;
}

}  // namespace relay::exec
