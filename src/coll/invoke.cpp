#include "coll/invoke.hpp"

namespace relay::coll {

relay_status_t invoke(Collective collective, const Buffers& b, MPI_Comm comm,
                      const relay_bcast_options_t* bcast_options, const relay_coll_options_t* o) {
  const MPI_Datatype recvtype = b.recvtype != MPI_DATATYPE_NULL ? b.recvtype : b.type;
  switch (collective) {
    case Collective::bcast:
      return relay_bcast(b.recv, b.count, b.type, b.root, comm, bcast_options);
    case Collective::reduce:
      return relay_reduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm, o);
    case Collective::allreduce:
      return relay_allreduce(b.send, b.recv, b.count, b.type, b.op, comm, o);
    case Collective::allgather:
      return relay_allgather(b.send, b.recv, b.count, b.type, comm, o);
    case Collective::reduce_scatter_block:
      return relay_reduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm, o);
    case Collective::gather:
      return relay_gather(b.send, b.recv, b.count, b.type, b.root, comm, o);
    case Collective::scatter:
      return relay_scatter(b.send, b.recv, b.count, b.type, b.root, comm, o);
    case Collective::alltoall:
      return relay_alltoall(b.send, b.recv, b.count, b.type, comm, o);
    case Collective::barrier:
      return relay_barrier(comm, o);
    case Collective::allgatherv:
      return relay_allgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs, recvtype,
                              comm, o);
  }
  return RELAY_ERR_INTERNAL;  // not reached: every collective is handled above
}

int invoke_mpi(Collective collective, const Buffers& b, MPI_Comm comm, MPI_Request* r) {
  const MPI_Datatype recvtype = b.recvtype != MPI_DATATYPE_NULL ? b.recvtype : b.type;
  switch (collective) {
    case Collective::bcast:
      return r ? MPI_Ibcast(b.recv, b.count, b.type, b.root, comm, r)
               : MPI_Bcast(b.recv, b.count, b.type, b.root, comm);
    case Collective::reduce:
      return r ? MPI_Ireduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm, r)
               : MPI_Reduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm);
    case Collective::allreduce:
      return r ? MPI_Iallreduce(b.send, b.recv, b.count, b.type, b.op, comm, r)
               : MPI_Allreduce(b.send, b.recv, b.count, b.type, b.op, comm);
    case Collective::allgather:
      return r ? MPI_Iallgather(b.send, b.count, b.type, b.recv, b.count, b.type, comm, r)
               : MPI_Allgather(b.send, b.count, b.type, b.recv, b.count, b.type, comm);
    case Collective::reduce_scatter_block:
      return r ? MPI_Ireduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm, r)
               : MPI_Reduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm);
    case Collective::gather:
      return r ? MPI_Igather(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm, r)
               : MPI_Gather(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm);
    case Collective::scatter:
      return r ? MPI_Iscatter(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm, r)
               : MPI_Scatter(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm);
    case Collective::alltoall:
      return r ? MPI_Ialltoall(b.send, b.count, b.type, b.recv, b.count, b.type, comm, r)
               : MPI_Alltoall(b.send, b.count, b.type, b.recv, b.count, b.type, comm);
    case Collective::barrier:
      return r ? MPI_Ibarrier(comm, r) : MPI_Barrier(comm);
    case Collective::allgatherv:
      return r ? MPI_Iallgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs, recvtype,
                                 comm, r)
               : MPI_Allgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs, recvtype,
                                comm);
  }
  return MPI_ERR_OTHER;  // not reached: every collective is handled above
}

}  // namespace relay::coll
