// Argument checks shared by every collective's C entry points.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/environment.hpp"
#include "relay/relay.h"

namespace relay::api {

/// What check_datatype learns about a valid datatype.
struct TypeInfo {
  std::int64_t size = 0;   ///< bytes of data per element
  MPI_Aint true_lb = 0;    ///< where its data starts
  bool contiguous = true;  ///< count elements are count * size bytes without gaps
};

/// MPI must be initialized and not finalized.
relay_status_t check_mpi(const char* function);
/// Why this program's MPI library cannot run relay (built for the other MPI family); empty if
/// it can. Asked once per process.
const std::string& mpi_mismatch();
/// Not MPI_DATATYPE_NULL and valid (argument `position`).
relay_status_t check_datatype(const char* function, int position, MPI_Datatype datatype, int count,
                              TypeInfo& info);
/// Not MPI_COMM_NULL, not an inter-communicator (argument `position`); sets size and rank.
relay_status_t check_comm(const char* function, int position, MPI_Comm comm, int& size, int& rank);

/// MPI is running and comm is a valid intra-communicator: relay may call MPI on it.
bool usable_comm(MPI_Comm comm);

/// Not MPI_OP_NULL and valid (argument `position`); sets commutative.
relay_status_t check_op(const char* function, int position, MPI_Op op, bool& commutative);

/// The buffers of a reduction, arguments 1 (sendbuf) and 2 (recvbuf).
struct ReductionBuffers {
  const void* sendbuf;
  void* recvbuf;
  int count;
  bool has_data;  ///< count > 0 elements of a type with data (a NULL buffer is then wrong)
  int rank;
  int root;       ///< the one rank that may pass sendbuf = MPI_IN_PLACE; -1: every rank may
  bool receives;  ///< recvbuf is significant on this rank
};
/// sendbuf MPI_IN_PLACE only where allowed, neither buffer NULL where it carries data, recvbuf
/// never MPI_IN_PLACE.
relay_status_t check_reduction_buffers(const char* function, const ReductionBuffers& b);

/// Whether to agree collectively on the arguments (RELAY_CHECK_COLLECTIVE in the options, or
/// RELAY_CHECK=collective when the options leave it to the environment). Decided before any
/// other check, so that ranks whose arguments are wrong still join the agreement.
bool wants_collective_check(relay_check_t option, const relay::core::RelayEnvironment& env);

/// With RELAY_CHECK_COLLECTIVE: one allreduce tells every rank whether any rank failed its
/// local checks and whether all ranks resolved the same `values` (named by `names`, at most
/// 8). Returns the local status, another rank's failure, or RELAY_ERR_MISMATCH.
relay_status_t agree(const char* function, MPI_Comm comm, relay_status_t local,
                     const long long* values, const char* const* names, int n);

/// Copies `line` into text (at most size bytes, NUL-terminated; nothing if text is NULL).
void copy_text(const std::string& line, char* text, std::size_t size);

}  // namespace relay::api
