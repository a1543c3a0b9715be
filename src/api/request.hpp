// The object behind relay_request_t: a schedule being executed, an MPI request, or an
// overlapped operation (several of those on duplicated communicators).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "exec/executor.hpp"
#include "overlap/overlap.hpp"
#include "relay/relay.h"

struct relay_request {
  enum class Kind { schedule, mpi, overlap };
  Kind kind = Kind::schedule;
  bool blocking = false;  // started by a blocking call: finished in place
  relay::exec::Executor executor;
  MPI_Request mpi_request = MPI_REQUEST_NULL;
  bool mpi_done = false;
  std::unique_ptr<relay::overlap::Overlap> overlap;
  // Reductions: memory the schedule uses (freed with the request), and the local copies to
  // make when the schedule has completed (reduce_scatter_block's and scatter's own block into
  // recvbuf; alltoall bruck's blocks out of its rotated work buffer).
  struct LocalCopy {
    char* to;
    const char* from;
    std::size_t bytes;
  };
  std::unique_ptr<char[]> scratch;
  std::unique_ptr<char[]> accumulator;
  std::vector<LocalCopy> copies;
  /// Makes the pending local copies, once.
  void finish_locally();
};

/// Blocks until `request` completes (does not free it).
relay_status_t relay_request_finish(relay_request* request, const char* function);

/// How far a schedule has progressed (Executor::events); 0 for other kinds and NULL.
std::int64_t relay_request_events(const relay_request* request);
