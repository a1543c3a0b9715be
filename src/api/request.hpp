// The object behind relay_request_t: either a schedule being executed or an MPI request.
#pragma once

#include <mpi.h>

#include "exec/executor.hpp"
#include "relay/relay.h"

struct relay_request {
  enum class Kind { schedule, mpi };
  Kind kind = Kind::schedule;
  bool blocking = false;  // started by a blocking call: finished in place
  relay::exec::Executor executor;
  MPI_Request mpi_request = MPI_REQUEST_NULL;
  bool mpi_done = false;
};

/// Blocks until `request` completes (does not free it).
relay_status_t relay_request_finish(relay_request* request, const char* function);
