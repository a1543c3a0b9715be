// The first relay call on a communicator checks, once, that its ranks would choose alike.
//
// relay's schedules are only correct when every rank runs the same one. Ranks choose from their
// arguments, their RELAY_* environment and the tuning table RELAY_TUNING_FILE names; arguments
// are each call's (RELAY_CHECK=collective agrees on them), but the environment and the table are
// the process's, and a difference there -- two table files, RELAY_BCAST_SEGMENT_BYTES set on one
// node -- made a pipelined broadcast return success with wrong bytes. So the creation of relay's
// per-communicator state (collective anyway: it duplicates the communicator) carries one small
// allreduce of a fingerprint of both, and a difference is an error on every rank.
#pragma once

#include <mpi.h>

#include <cstdint>

#include "exec/comm_state.hpp"
#include "relay/relay.h"

namespace relay::api {

/// A hash of what makes ranks choose schedules alike: the RELAY_* variables that pick
/// algorithms, segments, fanouts and checks (not those that only pace a rank, such as
/// RELAY_PEER_BYTES_IN_FLIGHT, or log), and the active tuning table's rules and whether it
/// could be loaded (its content, not its path).
std::uint64_t choice_fingerprint();

/// exec::comm_state, with the agreement above on first use: RELAY_ERR_MISMATCH on every rank
/// when fingerprints differ. `fn` names the calling function in messages.
relay_status_t shared_state(const char* fn, MPI_Comm comm, exec::CommState** state);

}  // namespace relay::api
