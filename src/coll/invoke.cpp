#include "coll/invoke.hpp"

namespace relay::coll {

relay_status_t invoke(Collective collective, const Buffers& b, MPI_Comm comm,
                      const relay_bcast_options_t* bcast_options, const relay_coll_options_t* o) {
  return traits(collective).invoke(b, comm, bcast_options, o);
}

int invoke_mpi(Collective collective, const Buffers& b, MPI_Comm comm, MPI_Request* r) {
  return traits(collective).invoke_mpi(b, comm, r);
}

}  // namespace relay::coll
