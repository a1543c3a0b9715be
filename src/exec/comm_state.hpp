// Per-communicator state relay keeps: a private duplicate of the user's communicator, so that
// relay's messages never match the application's, and a sequence number that gives each
// operation its own tag, so that several nonblocking operations can be in flight at once.
// The state hangs off the user's communicator as an MPI attribute: created by the first relay
// call on it (collective, like MPI_Comm_dup), freed when the user frees the communicator or
// at MPI_Finalize.
#pragma once

#include <mpi.h>

#include <functional>
#include <string>

#include "relay/relay.h"

namespace relay::exec {

struct CommState {
  MPI_Comm comm = MPI_COMM_NULL;  ///< relay's private duplicate
  int size = 0;
  int rank = 0;
  unsigned next_sequence = 0;
  /// The tag of the next operation; every rank calls operations in the same order.
  int next_tag();
};

/// Runs on every rank when a state is created, over its new duplicate; a failure (reported
/// through relay_last_error()) leaves no state behind, so the next call tries again.
using OnCreate = std::function<relay_status_t(MPI_Comm duplicate)>;

/// The state of `user_comm`, created on first use. Collective on first use only.
relay_status_t comm_state(MPI_Comm user_comm, CommState** state, std::string& error,
                          const OnCreate& on_create = nullptr);

}  // namespace relay::exec
