// The duplicated communicators of huang2018's nonblocking overlap. Part c of an overlapped
// operation on communicator C runs on duplicate c of C: an MPI_Comm_dup made the first time an
// operation needs it, kept on C as an MPI attribute, and freed when C is freed (or at
// MPI_Finalize) -- never made per call. Each duplicate also carries the queue that orders the
// operations started on it (overlap.hpp says why).
#pragma once

#include <mpi.h>

#include <deque>
#include <string>

#include "relay/relay.h"

namespace relay::overlap {

struct Stage;

struct DupComm {
  MPI_Comm comm = MPI_COMM_NULL;
  std::deque<Stage*> queue;  ///< stages to start on comm, in the order they were posted
};

/// Makes sure duplicates 0..n-1 of comm exist, creating the missing ones in index order
/// (collective over comm, like MPI_Comm_dup, when it creates any), together with relay's own
/// state on each (its private duplicate), so that no later call has to create anything while
/// operations are in flight.
relay_status_t prepare_dups(MPI_Comm comm, int n, std::string& error);

/// Duplicate `index` of comm; prepare_dups(comm, n > index) must have succeeded.
DupComm& dup(MPI_Comm comm, int index);

}  // namespace relay::overlap
