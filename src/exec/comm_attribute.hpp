// Values that hang off communicators as MPI attributes (relay's private duplicate, the
// duplicates of the overlap helper): set on first use, freed when the user frees the
// communicator, and at MPI_Finalize at the latest -- MPI deletes MPI_COMM_SELF's attributes
// first, while MPI still works, and that is where the values still alive are freed, rather
// than in MPI_COMM_WORLD's callbacks, which may run too late.
#pragma once

#include <mpi.h>

#include <mutex>
#include <set>
#include <string>

#include "exec/compute.hpp"
#include "relay/relay.h"

namespace relay::exec {

class CommAttribute {
 public:
  /// Frees one value (MPI may already be finalized: check MPI_Finalized before MPI calls).
  using Release = void (*)(void* value);
  explicit CommAttribute(Release free_value) : release_(free_value) {}
  CommAttribute(const CommAttribute&) = delete;
  CommAttribute& operator=(const CommAttribute&) = delete;

  /// The value set on comm, or nullptr.
  relay_status_t get(MPI_Comm comm, void** value, std::string& error);
  /// Sets value on comm; from now on it is freed with comm or at MPI_Finalize. On error the
  /// value has been freed already.
  relay_status_t set(MPI_Comm comm, void* value, std::string& error);
  /// Deletes the value set on comm, freeing it now (so that another can be set); without one,
  /// does nothing.
  relay_status_t remove(MPI_Comm comm, std::string& error);

 private:
  void release(void* value);  // once per value, whoever comes first
  static int delete_fn(MPI_Comm, int, void* value, void* self);
  static int finalize_fn(MPI_Comm, int, void*, void* self);

  // One rank's keyval and values. Per rank (exec::rank_key): without SMPI's privatization
  // the simulated ranks share this object, and one rank's finalize hook must free its own
  // values only. In a real run there is one.
  struct PerRank {
    std::once_flag once;
    int init_rc = MPI_SUCCESS;
    int keyval = MPI_KEYVAL_INVALID;
    std::set<void*> live;  // values not freed yet
  };
  /// This rank's keyval, its attribute hooks set up at the first call.
  relay_status_t init(PerRank*& me, std::string& error);
  /// get(), handing back this rank's entry too (remove's keyval: one lookup per call).
  relay_status_t get(MPI_Comm comm, void** value, PerRank*& me, std::string& error);

  Release release_;
  std::mutex mutex_;  // guards every PerRank's `live`; never held across MPI
  RankLocal<PerRank> ranks_;
};

}  // namespace relay::exec
