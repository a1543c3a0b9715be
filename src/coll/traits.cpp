// One row of traits per collective: its name, arguments and buffer rules, how it is called
// (relay's C entry point and the MPI library's own), and where its schedule's accumulator is.
// Everything in relay that is not an algorithm reads these rows instead of switching on the
// collective: the API's checks and accumulators, the benchmarks, the tuner.
#include <cstring>
#include <iterator>

#include "coll/bcast/bcast.hpp"
#include "coll/reduction/reduction.hpp"
#include "coll/registry.hpp"

namespace relay::coll {

namespace {

using C = Collective;

MPI_Datatype recvtype_of(const Buffers& b) {
  return b.recvtype != MPI_DATATYPE_NULL ? b.recvtype : b.type;
}

// This rank's block in a buffer of size blocks.
std::int64_t mine(const AccumulatorArgs& a) { return a.rank * a.block_bytes; }

// bcast: the one buffer, read at the root, written elsewhere.
Accumulator bcast_accumulator(const AccumulatorArgs& a, Workspace&) { return {a.recv, nullptr}; }

// reduce: recvbuf at the root (sendbuf copied in unless in place); sendbuf itself at a rank
// that only sends (a leaf: read only); else a copy of it.
Accumulator reduce_accumulator(const AccumulatorArgs& a, Workspace& w) {
  if (a.rank == a.root) {
    if (!a.send_in_place) w.copy_now(a.recv, a.send, a.total_bytes);
    return {a.recv, nullptr};
  }
  if (!a.receives) return {a.send, nullptr};
  char* acc = w.work(a.total_bytes);
  w.copy_now(acc, a.send, a.total_bytes);
  return {acc, nullptr};
}

Accumulator allreduce_accumulator(const AccumulatorArgs& a, Workspace& w) {
  if (!a.send_in_place) w.copy_now(a.recv, a.send, a.total_bytes);
  return {a.recv, nullptr};
}

Accumulator allgather_accumulator(const AccumulatorArgs& a, Workspace& w) {
  if (!a.send_in_place) w.copy_now(a.recv + mine(a), a.send, a.block_bytes);
  return {a.recv, nullptr};
}

// A copy of sendbuf (or recvbuf in place), whose block `rank` is copied to recvbuf at the end.
Accumulator reduce_scatter_block_accumulator(const AccumulatorArgs& a, Workspace& w) {
  char* acc = a.recv;
  if (!a.send_in_place) w.copy_now(acc = w.work(a.total_bytes), a.send, a.total_bytes);
  w.copy_at_end(a.recv, acc + mine(a), a.block_bytes);
  return {acc, nullptr};
}

// recvbuf at the root; elsewhere a work buffer of size blocks holding this rank's.
Accumulator gather_accumulator(const AccumulatorArgs& a, Workspace& w) {
  if (a.rank == a.root) {
    if (!a.send_in_place) w.copy_now(a.recv + mine(a), a.send, a.block_bytes);
    return {a.recv, nullptr};
  }
  char* acc = w.work(a.total_bytes);
  w.copy_now(acc + mine(a), a.send, a.block_bytes);
  return {acc, nullptr};
}

// sendbuf at the root (read only); elsewhere a work buffer whose block `rank` is copied out.
Accumulator scatter_accumulator(const AccumulatorArgs& a, Workspace& w) {
  if (a.rank == a.root) {
    if (!a.recv_in_place) w.copy_now(a.recv, a.send + mine(a), a.block_bytes);
    return {a.send, nullptr};
  }
  char* acc = w.work(a.total_bytes);
  w.copy_at_end(a.recv, acc + mine(a), a.block_bytes);
  return {acc, nullptr};
}

// linear: sendbuf (read only; a copy of recvbuf in place), receiving into recvbuf itself;
// bruck: its work buffer (BruckAlltoallLayout) filled from sendbuf, whose first size blocks are
// copied to recvbuf at the end.
Accumulator alltoall_accumulator(const AccumulatorArgs& a, Workspace& w) {
  const char* blocks = a.send_in_place ? a.recv : a.send;
  if (a.algorithm_id == RELAY_ALLTOALL_BRUCK) {
    const BruckAlltoallLayout layout(a.size, a.block_bytes);
    char* acc = w.work(layout.bytes());
    w.copy_now(acc + mine(a), blocks + mine(a), a.block_bytes);
    for (int i = 1; i < a.size; ++i) {  // block rank + i where its first round sends it
      w.copy_now(acc + layout.at(layout.round_from(0, i), i),
                 blocks + (a.rank + i) % a.size * a.block_bytes, a.block_bytes);
    }
    w.copy_at_end(a.recv, acc, a.total_bytes);
    return {acc, nullptr};
  }
  if (a.send_in_place) {
    char* acc = w.work(a.total_bytes);
    w.copy_now(acc, a.recv, a.total_bytes);
    return {acc, a.recv};
  }
  w.copy_now(a.recv + mine(a), a.send + mine(a), a.block_bytes);
  return {a.send, a.recv};  // only read; receives land in recvbuf
}

// One byte of "entered", OR-combined.
Accumulator barrier_accumulator(const AccumulatorArgs&, Workspace& w) {
  char* acc = w.work(1);
  acc[0] = 0;
  return {acc, nullptr};
}

// recvbuf from its first non-empty block on (api/block_layout.hpp), this rank's block copied in.
Accumulator allgatherv_accumulator(const AccumulatorArgs& a, Workspace& w) {
  const std::int64_t e = a.elem_bytes;
  char* acc = a.recv + a.block_base * e;
  const auto i = static_cast<std::size_t>(a.rank);
  const std::int64_t count = (*a.block_counts)[i];
  if (!a.send_in_place && count > 0) w.copy_now(acc + (*a.block_displs)[i] * e, a.send, count * e);
  return {acc, nullptr};
}

constexpr Ranks none = Ranks::none, root = Ranks::root, all = Ranks::all;
// MPI's rules for the collectives that read sendbuf and write recvbuf everywhere.
constexpr BufferRules kEverywhere{all, all, all, none};

// In the order of relay_collective_t's values (1, 2, ...): traits() indexes it.
constexpr Traits kTraits[] = {
    {C::reduce,
     "reduce",
     "REDUCE",
     true,
     false,
     true,
     {5, 6, 7, 8},
     {all, root, root, none},
     {root, false},
     Combine::caller_op,
     reduce_algorithms,
     reduce_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_reduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Ireduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm, r)
                : MPI_Reduce(b.send, b.recv, b.count, b.type, b.op, b.root, comm);
     },
     reduce_accumulator},
    {C::allreduce,
     "allreduce",
     "ALLREDUCE",
     false,
     false,
     true,
     {5, 0, 6, 7},
     kEverywhere,
     {all, false},
     Combine::caller_op,
     allreduce_algorithms,
     allreduce_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_allreduce(b.send, b.recv, b.count, b.type, b.op, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Iallreduce(b.send, b.recv, b.count, b.type, b.op, comm, r)
                : MPI_Allreduce(b.send, b.recv, b.count, b.type, b.op, comm);
     },
     allreduce_accumulator},
    {C::allgather,
     "allgather",
     "ALLGATHER",
     false,
     true,
     true,
     {0, 0, 5, 6},
     kEverywhere,
     {all, true},
     Combine::caller_op,
     allgather_algorithms,
     allgather_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_allgather(b.send, b.recv, b.count, b.type, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Iallgather(b.send, b.count, b.type, b.recv, b.count, b.type, comm, r)
                : MPI_Allgather(b.send, b.count, b.type, b.recv, b.count, b.type, comm);
     },
     allgather_accumulator},
    {C::reduce_scatter_block,
     "reduce_scatter_block",
     "REDUCE_SCATTER_BLOCK",
     false,
     true,
     true,
     {5, 0, 6, 7},
     kEverywhere,
     {all, false},
     Combine::caller_op,
     reduce_scatter_block_algorithms,
     reduce_scatter_block_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_reduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Ireduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm, r)
                : MPI_Reduce_scatter_block(b.send, b.recv, b.count, b.type, b.op, comm);
     },
     reduce_scatter_block_accumulator},
    {C::gather,
     "gather",
     "GATHER",
     true,
     true,
     true,
     {0, 5, 6, 7},
     {all, root, root, none},
     {root, true},
     Combine::caller_op,
     gather_algorithms,
     gather_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_gather(b.send, b.recv, b.count, b.type, b.root, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Igather(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm, r)
                : MPI_Gather(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm);
     },
     gather_accumulator},
    {C::scatter,
     "scatter",
     "SCATTER",
     true,
     true,
     true,
     {0, 5, 6, 7},
     {root, all, none, root},
     {all, false},
     Combine::caller_op,
     scatter_algorithms,
     scatter_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_scatter(b.send, b.recv, b.count, b.type, b.root, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Iscatter(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm, r)
                : MPI_Scatter(b.send, b.count, b.type, b.recv, b.count, b.type, b.root, comm);
     },
     scatter_accumulator},
    {C::alltoall,
     "alltoall",
     "ALLTOALL",
     false,
     true,
     true,
     {0, 0, 5, 6},
     kEverywhere,
     {all, true},
     Combine::replace,
     alltoall_algorithms,
     alltoall_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_alltoall(b.send, b.recv, b.count, b.type, comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Ialltoall(b.send, b.count, b.type, b.recv, b.count, b.type, comm, r)
                : MPI_Alltoall(b.send, b.count, b.type, b.recv, b.count, b.type, comm);
     },
     alltoall_accumulator},
    {C::barrier,
     "barrier",
     "BARRIER",
     false,
     false,
     false,
     {0, 0, 1, 2},
     {none, none, none, none},
     {none, false},
     Combine::byte_or,
     barrier_algorithms,
     barrier_closed_form,
     [](const Buffers&, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) { return relay_barrier(comm, o); },
     [](const Buffers&, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Ibarrier(comm, r) : MPI_Barrier(comm);
     },
     barrier_accumulator},
    {C::allgatherv,
     "allgatherv",
     "ALLGATHERV",
     false,
     true,
     true,
     {0, 0, 8, 9},
     // recvbuf is never MPI_IN_PLACE (the API says so in allgatherv's own words).
     kEverywhere,
     {all, true},
     Combine::caller_op,
     allgatherv_algorithms,
     allgatherv_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t*,
        const relay_coll_options_t* o) {
       return relay_allgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs,
                               recvtype_of(b), comm, o);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Iallgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs,
                                  recvtype_of(b), comm, r)
                : MPI_Allgatherv(b.send, b.count, b.type, b.recv, b.recvcounts, b.displs,
                                 recvtype_of(b), comm);
     },
     allgatherv_accumulator},
    {C::bcast,
     "bcast",
     "BCAST",
     true,
     false,
     true,
     {0, 4, 5, 6},
     // The one buffer is recvbuf (relay_bcast's `buffer`).
     {none, all, none, none},
     {all, false},
     Combine::caller_op,
     bcast_algorithms,
     bcast_closed_form,
     [](const Buffers& b, MPI_Comm comm, const relay_bcast_options_t* bo,
        const relay_coll_options_t*) {
       return relay_bcast(b.recv, b.count, b.type, b.root, comm, bo);
     },
     [](const Buffers& b, MPI_Comm comm, MPI_Request* r) {
       return r ? MPI_Ibcast(b.recv, b.count, b.type, b.root, comm, r)
                : MPI_Bcast(b.recv, b.count, b.type, b.root, comm);
     },
     bcast_accumulator},
};

constexpr bool in_value_order() {
  for (std::size_t i = 0; i < std::size(kTraits); ++i) {
    if (static_cast<std::size_t>(kTraits[i].collective) != i + 1) return false;
  }
  return true;
}
static_assert(in_value_order(), "kTraits: row i is the collective of value i + 1");

}  // namespace

// Read several times per call (checks, accumulator, combine): an index, not a search.
const Traits& traits(Collective c) { return kTraits[static_cast<std::size_t>(c) - 1]; }

std::optional<Collective> find_collective(std::string_view name) {
  for (const Traits& t : kTraits) {
    if (t.name == name) return t.collective;
  }
  return std::nullopt;
}

}  // namespace relay::coll
