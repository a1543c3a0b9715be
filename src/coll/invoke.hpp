// Running one collective on given buffers, by its Collective value: relay's (through the C API,
// so a caller measures exactly what applications get) or the MPI library's own (the `mpi`
// algorithm and every benchmark's reference). The one place, besides the C entry points
// themselves, that knows each collective's C signature: the benchmarks and the tuner call
// these instead of switching on the collective.
#pragma once

#include <mpi.h>

#include "coll/registry.hpp"
#include "relay/relay.h"

namespace relay::coll {

/// relay_<collective>(...) with these buffers: `bcast_options` for a broadcast, `options` for
/// the others (NULL: defaults). Blocking.
relay_status_t invoke(Collective collective, const Buffers& buffers, MPI_Comm comm,
                      const relay_bcast_options_t* bcast_options,
                      const relay_coll_options_t* options);

/// MPI_<Collective>(...) with these buffers; nonblocking (MPI_I<collective>) when `request` is
/// not NULL. Returns MPI's error code.
int invoke_mpi(Collective collective, const Buffers& buffers, MPI_Comm comm, MPI_Request* request);

}  // namespace relay::coll
