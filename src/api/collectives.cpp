// Over 500 lines: nine C entry points and their nonblocking forms on one path (checks,
// agreement, buffers, start).
// relay_reduce, relay_allreduce, relay_allgather, relay_allgatherv, relay_reduce_scatter_block,
// relay_gather, relay_scatter, relay_alltoall, relay_barrier and their nonblocking forms:
// argument checks (every rank, before any message), the optional collective agreement, then
// MPI's own call (`mpi`) or a cached schedule run by the executor over an accumulator, with
// combines done by MPI_Reduce_local.
//
// The accumulator (where each collective's schedule runs) and the buffer rules are the
// collective's traits (coll/traits.cpp); this file applies them.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <memory>
#include <vector>

#include "api/block_layout.hpp"
#include "api/checks.hpp"
#include "api/request.hpp"
#include "api/shared_state.hpp"
#include "coll/invoke.hpp"
#include "coll/program_cache.hpp"
#include "coll/reduction/reduction.hpp"
#include "coll/select.hpp"
#include "core/status.hpp"
#include "exec/compute.hpp"

namespace {

using relay::coll::Collective;
using relay::core::fail;

// Argument positions in each C signature (0: the function has no such argument).
using Positions = relay::coll::ArgumentPositions;
Positions positions(Collective c) { return relay::coll::traits(c).positions; }

struct Args {
  Collective collective;
  const void* sendbuf;
  void* recvbuf;
  int count;
  MPI_Datatype datatype;
  MPI_Op op;
  int root;
  MPI_Comm comm;
  const relay_coll_options_t* options;
  // allgatherv (count and datatype are sendcount and sendtype)
  const int* recvcounts = nullptr;
  const int* displs = nullptr;
  MPI_Datatype recvtype = MPI_DATATYPE_NULL;
};

struct Call {
  relay::api::TypeInfo type;       // allgatherv: recvtype's
  relay::api::TypeInfo send_type;  // allgatherv
  relay::api::BlockLayout layout;  // allgatherv
  int size = 0;
  int rank = 0;
  bool commutative = true;
  std::int64_t bytes = 0;             // the accumulator
  relay::core::RelayEnvironment env;  // read once per call
  relay::coll::Config config;
};

// After the arguments: the configuration, and the datatypes relay's schedules can move.
relay_status_t resolve(const char* fn, const Args& a, Call& call) {
  const Positions pos = positions(a.collective);
  const relay::coll::Call cc{a.collective, call.size, call.bytes,
                             std::max<std::int64_t>(1, call.type.size), call.commutative};
  if (auto st = relay::coll::resolve(call.env, a.options, cc, fn, pos.options, pos.op, call.config);
      st != RELAY_SUCCESS) {
    return st;
  }
  if (call.config.algorithm->build == nullptr) return RELAY_SUCCESS;
  const bool v = a.collective == Collective::allgatherv;
  const bool send_contiguous = !v || a.sendbuf == MPI_IN_PLACE || call.send_type.contiguous;
  if (!call.type.contiguous || !send_contiguous) {
    return fail(RELAY_ERR_DATATYPE,
                "{}: argument {} ({}) is not contiguous; relay's schedules "
                "move contiguous bytes (use algorithm mpi, or a contiguous type)",
                fn, v ? (call.type.contiguous ? 3 : 7) : 4,
                v ? (call.type.contiguous ? "sendtype" : "recvtype") : "datatype");
  }
  return RELAY_SUCCESS;
}

relay_status_t check_allgatherv(const char* fn, const Args& a, Call& call);

relay_status_t check_arguments(const char* fn, const Args& a, Call& call) {
  if (a.collective == Collective::allgatherv) return check_allgatherv(fn, a, call);
  const Positions pos = positions(a.collective);
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  const bool no_data = !relay::coll::moves_data(a.collective);  // the barrier
  if (a.count < 0) {
    return fail(RELAY_ERR_COUNT, "{}: argument 3 ({} = {}) is negative", fn,
                a.collective == Collective::reduce_scatter_block ? "recvcount" : "count", a.count);
  }
  if (no_data) {
    call.type = relay::api::TypeInfo{1, 0, true};  // one byte of "entered"
  } else if (auto st = relay::api::check_datatype(fn, 4, a.datatype, a.count, call.type);
             st != RELAY_SUCCESS) {
    return st;
  }
  call.send_type = call.type;  // one datatype for both buffers
  if (pos.op != 0) {
    if (auto st = relay::api::check_op(fn, pos.op, a.op, call.commutative); st != RELAY_SUCCESS) {
      return st;
    }
  }
  if (auto st = relay::api::check_comm(fn, pos.comm, a.comm, call.size, call.rank);
      st != RELAY_SUCCESS) {
    return st;
  }
  if (pos.root != 0 && (a.root < 0 || a.root >= call.size)) {
    return fail(RELAY_ERR_ROOT,
                "{}: argument {} (root = {}) is not a rank of the communicator "
                "(size {})",
                fn, pos.root, a.root, call.size);
  }
  const bool has_data = a.count > 0 && call.type.size > 0 && call.type.true_lb == 0;
  const bool in_place = a.sendbuf == MPI_IN_PLACE;
  // MPI's buffer rules for this rank (the collective's traits).
  const relay::coll::BufferRules& r = relay::coll::traits(a.collective).buffers;
  const bool is_root = call.rank == a.root;
  const bool send_significant = relay::coll::includes(r.send, is_root);
  const bool recv_significant = relay::coll::includes(r.recv, is_root);
  if (send_significant && in_place && !relay::coll::includes(r.send_in_place, is_root)) {
    if (a.collective == Collective::scatter) {
      return fail(RELAY_ERR_BUFFER,
                  "{}: argument 1 (sendbuf) is MPI_IN_PLACE at the root (the "
                  "root of a scatter passes recvbuf = MPI_IN_PLACE instead)",
                  fn);
    }
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 1 (sendbuf) is MPI_IN_PLACE on rank {}, which "
                "is not the root ({})",
                fn, call.rank, a.root);
  }
  if (send_significant && !in_place && a.sendbuf == nullptr && has_data) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 1 (sendbuf) is NULL but count = {} > 0", fn,
                a.count);
  }
  if (recv_significant && a.recvbuf == MPI_IN_PLACE &&
      !relay::coll::includes(r.recv_in_place, is_root)) {
    if (a.collective == Collective::scatter) {
      return fail(RELAY_ERR_BUFFER,
                  "{}: argument 2 (recvbuf) is MPI_IN_PLACE on rank {}, which "
                  "is not the root ({})",
                  fn, call.rank, a.root);
    }
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 2 (recvbuf) is MPI_IN_PLACE (only sendbuf may "
                "be)",
                fn);
  }
  if (recv_significant && a.recvbuf == nullptr && has_data) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 2 (recvbuf) is NULL but count = {} > 0", fn,
                a.count);
  }
  call.bytes = no_data ? 1
                       : static_cast<std::int64_t>(a.count) * call.type.size *
                             (relay::coll::has_blocks(a.collective) ? call.size : 1);
  return resolve(fn, a, call);
}

// allgatherv's arguments: (sendbuf 1, sendcount 2, sendtype 3, recvbuf 4, recvcounts 5, displs 6,
// recvtype 7, comm 8, options 9), the counts and types checked before the buffers, as above.
relay_status_t check_allgatherv(const char* fn, const Args& a, Call& call) {
  if (auto st = relay::api::check_mpi(fn); st != RELAY_SUCCESS) return st;
  const bool in_place = a.sendbuf == MPI_IN_PLACE;  // sendcount and sendtype are ignored
  if (!in_place && a.count < 0) {
    return fail(RELAY_ERR_COUNT, "{}: argument 2 (sendcount = {}) is negative", fn, a.count);
  }
  if (!in_place) {
    if (auto st = relay::api::check_datatype(fn, 3, a.datatype, a.count, call.send_type);
        st != RELAY_SUCCESS) {
      return st;
    }
  }
  // Displacements count in extents: the recvtype is contiguous only if its extent is its size,
  // whatever the counts (hence "2 elements").
  if (auto st = relay::api::check_datatype(fn, 7, a.recvtype, 2, call.type); st != RELAY_SUCCESS) {
    return st;
  }
  if (auto st = relay::api::check_comm(fn, 8, a.comm, call.size, call.rank); st != RELAY_SUCCESS) {
    return st;
  }
  if (auto st =
          relay::api::check_block_layout(fn, a.recvcounts, 5, a.displs, 6, call.size, call.layout);
      st != RELAY_SUCCESS) {
    return st;
  }
  const std::int64_t mine = call.layout.counts[static_cast<std::size_t>(call.rank)];
  const std::int64_t send_bytes = std::int64_t{a.count} * call.send_type.size;
  if (!in_place && send_bytes != mine * call.type.size) {
    if (a.datatype == a.recvtype) {
      return fail(RELAY_ERR_COUNT,
                  "{}: argument 2 (sendcount = {}) differs from recvcounts[{}] "
                  "= {} (argument 5)",
                  fn, a.count, call.rank, mine);
    }
    return fail(RELAY_ERR_COUNT,
                "{}: argument 2 (sendcount = {}, {} bytes of sendtype) differs "
                "from recvcounts[{}] = {} ({} bytes of recvtype)",
                fn, a.count, send_bytes, call.rank, mine, mine * call.type.size);
  }
  if (!in_place && a.sendbuf == nullptr && send_bytes > 0) {
    return fail(RELAY_ERR_BUFFER, "{}: argument 1 (sendbuf) is NULL but sendcount = {} > 0", fn,
                a.count);
  }
  call.bytes = call.layout.total * call.type.size;
  if (a.recvbuf == MPI_IN_PLACE) {
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 4 (recvbuf) is MPI_IN_PLACE (only sendbuf may "
                "be)",
                fn);
  }
  if (a.recvbuf == nullptr && call.bytes > 0) {
    return fail(RELAY_ERR_BUFFER,
                "{}: argument 4 (recvbuf) is NULL but the recvcounts add up "
                "to {} > 0",
                fn, call.layout.total);
  }
  return resolve(fn, a, call);
}

relay_status_t agree(const char* fn, const Args& a, relay_status_t local, const Call& call) {
  const auto& c = call.config;
  const long long counts = a.collective == Collective::allgatherv && local == RELAY_SUCCESS
                               ? relay::api::counts_hash(call.layout.counts, call.type.size)
                               : 0;
  const long long values[7] = {call.bytes,
                               a.root,
                               c.algorithm != nullptr ? c.algorithm->id : -1,
                               c.segment_bytes,
                               c.fanout * 4 + static_cast<int>(c.policy),
                               call.commutative ? 1 : 0,
                               counts};
  static const char* const names[7] = {"message size in bytes",
                                       "root",
                                       "algorithm",
                                       "segment_bytes",
                                       "fanout/policy",
                                       "op's commutativity",
                                       "recvcounts (hash of the block sizes in bytes)"};
  return relay::api::agree(fn, a.comm, local, values, names, 7);
}

// MPICH 4.0.2's MPI_Reduce crashes with MPI_IN_PLACE at a root other than 0 from about 1000
// ints on (MPI_Ireduce does not): with MPICH a reduce to a root other than 0 goes through
// MPI_Ireduce and waits, on every rank (a blocking and a nonblocking call do not match).
bool mpich_reduce_in_place_bug(const Args& a) {
#ifdef MPICH_VERSION
  return a.collective == Collective::reduce && a.root != 0;
#else
  (void)a;
  return false;
#endif
}

relay_status_t start_mpi(const char* fn, const Args& a, MPI_Comm comm, relay_request* r) {
  bool b = r->blocking && !mpich_reduce_in_place_bug(a);
  int rc = MPI_SUCCESS;
  int call_size = 0;
  if (a.collective == Collective::allgatherv) MPI_Comm_size(comm, &call_size);
  if (call_size == 1) {
    // MPICH 4.0.2's MPI_(I)Allgatherv on one process writes at the start of recvbuf,
    // ignoring displs[0]; the copy it stands for, done here, is right with every MPI.
    MPI_Aint lb = 0, extent = 0;
    MPI_Type_get_extent(a.recvtype, &lb, &extent);
    if (a.sendbuf != MPI_IN_PLACE) {
      rc = MPI_Sendrecv(a.sendbuf, a.count, a.datatype, 0, 0,
                        static_cast<char*>(a.recvbuf) + a.displs[0] * extent, a.recvcounts[0],
                        a.recvtype, 0, 0, comm, MPI_STATUS_IGNORE);
    }
    b = true;  // complete: nothing is left in flight
  } else {
    relay::coll::Buffers buffers;
    buffers.send = a.sendbuf;
    buffers.recv = a.recvbuf;
    buffers.count = a.count;
    buffers.type = a.datatype;
    buffers.op = a.op;
    buffers.root = a.root;
    buffers.recvcounts = a.recvcounts;
    buffers.displs = a.displs;
    buffers.recvtype = a.recvtype;
    rc = relay::coll::invoke_mpi(a.collective, buffers, comm, b ? nullptr : &r->mpi_request);
  }
  if (rc != MPI_SUCCESS) {
    return fail(RELAY_ERR_MPI, "{}: MPI's {} failed ({})", fn, relay::coll::to_string(a.collective),
                rc);
  }
  r->kind = relay_request::Kind::mpi;
  r->mpi_done = b;
  return RELAY_SUCCESS;
}

// The request's memory, lent to the collective's accumulator (coll::Traits::prepare), and its
// local copies. A timing simulation makes none: its buffers are pages every simulated rank
// shares and nobody reads (exec::scratch_is_shared; writing them sent SMPI's shared file to
// disk over and over, docs/simulate.md).
class RequestWorkspace final : public relay::coll::Workspace {
 public:
  explicit RequestWorkspace(relay_request* r) : r_(r) {}
  char* work(std::int64_t bytes) override {
    return r_->accumulator.get(static_cast<std::size_t>(std::max<std::int64_t>(1, bytes)));
  }
  void copy_now(char* to, const char* from, std::int64_t bytes) override {
    if (bytes > 0 && !values_unused_) std::memcpy(to, from, static_cast<std::size_t>(bytes));
  }
  void copy_at_end(char* to, const char* from, std::int64_t bytes) override {
    if (!values_unused_) r_->copies.push_back({to, from, static_cast<std::size_t>(bytes)});
  }

 private:
  relay_request* r_;
  const bool values_unused_ = relay::exec::scratch_is_shared();
};

// Where the schedule runs (see the top of this file): the collective's own rule, on the
// caller's buffers past their datatypes' true lower bounds.
relay::coll::Accumulator prepare_accumulator(const Args& a, const Call& call,
                                             const relay::schedule::RankProgram& program,
                                             relay_request* r) {
  relay::coll::AccumulatorArgs args;
  args.send_in_place = a.sendbuf == MPI_IN_PLACE;
  args.recv_in_place = a.recvbuf == MPI_IN_PLACE;
  if (a.sendbuf != nullptr && !args.send_in_place) {
    args.send = const_cast<char*>(static_cast<const char*>(a.sendbuf)) + call.send_type.true_lb;
  }
  if (a.recvbuf != nullptr && !args.recv_in_place) {
    args.recv = static_cast<char*>(a.recvbuf) + call.type.true_lb;
  }
  args.rank = call.rank;
  args.root = a.root;
  args.size = call.size;
  args.block_bytes = static_cast<std::int64_t>(a.count) * call.type.size;
  args.total_bytes = call.bytes;
  args.elem_bytes = call.type.size;
  args.algorithm_id = call.config.algorithm->id;
  args.receives = program.recv_count() > 0;
  args.block_counts = &call.layout.counts;
  args.block_displs = &call.layout.displs;
  args.block_base = call.layout.base;
  RequestWorkspace workspace(r);
  return relay::coll::traits(a.collective).prepare(args, workspace);
}

relay_status_t start(const char* fn, const Args& a, relay_request* request) {
  relay::core::clear_last_error();
  // The communicator's state first (collective on first use, with its configuration check):
  // every rank with a usable communicator gets there, whatever its other arguments.
  relay::exec::CommState* state = nullptr;
  if (relay::api::usable_comm(a.comm)) {
    if (auto st = relay::api::shared_state(fn, a.comm, &state); st != RELAY_SUCCESS) return st;
  }
  Call call;
  relay_status_t st = check_arguments(fn, a, call);
  // stored_check: options->check may hold any int (check_arguments has reported it).
  const bool collective_check =
      relay::api::wants_collective_check(relay::coll::stored_check(a.options), call.env);
  if (collective_check && st != RELAY_ERR_COMM) st = agree(fn, a, st, call);
  if (st != RELAY_SUCCESS) return st;
  const relay::coll::Config& c = call.config;
  if (relay::core::log_enabled()) {
    relay::core::log_line(fmt::format("{} bytes={} ranks={} root={} commutative={} {}", fn,
                                      call.bytes, call.size, a.root, call.commutative ? 1 : 0,
                                      relay::coll::to_string(c)));
  }
  if (c.algorithm->build == nullptr) return start_mpi(fn, a, state->comm, request);

  relay::coll::Shape shape;
  shape.size = call.size;
  shape.root = positions(a.collective).root != 0 ? a.root : 0;
  shape.elem_bytes = std::max<std::int64_t>(1, call.type.size);
  shape.bytes = (relay::coll::moves_data(a.collective) ? a.count : 1) * shape.elem_bytes;
  shape.segment_bytes = c.segment_bytes;
  shape.commutative = call.commutative;
  shape.fanout = c.fanout;
  shape.blocks = relay::coll::has_blocks(a.collective);
  shape.block_counts = call.layout.counts;  // prepare_accumulator reads the layout too
  shape.block_displs = call.layout.displs;
  auto program = relay::coll::cached_program(*c.algorithm, shape, call.rank);
  const relay::coll::Accumulator accumulator = prepare_accumulator(a, call, *program, request);
  relay::exec::Combiner combiner{a.op, a.datatype, shape.elem_bytes, accumulator.receive_into};
  if (combiner.scratch == nullptr && program->scratch_bytes > 0) {
    combiner.scratch = request->scratch.get(static_cast<std::size_t>(program->scratch_bytes));
  }
  switch (relay::coll::traits(a.collective).combine) {
    case relay::coll::Combine::caller_op:
      break;
    case relay::coll::Combine::replace:
      combiner.op = MPI_REPLACE;
      break;
    case relay::coll::Combine::byte_or:
      combiner.op = MPI_BOR;
      combiner.datatype = MPI_BYTE;
      break;
  }
  request->kind = relay_request::Kind::schedule;
  if (const relay_status_t started =
          request->executor.start(std::move(program), accumulator.buffer, state->comm,
                                  state->next_tag(), c.policy, c.max_requests, combiner);
      started != RELAY_SUCCESS) {
    return fail(started, "{}: {}", fn, request->executor.error());
  }
  return RELAY_SUCCESS;
}

relay_status_t run(const char* fn, const Args& a) {
  relay::api::BlockingRequest request;
  const relay_status_t st = start(fn, a, request.get());
  if (st != RELAY_SUCCESS) return st;
  return relay_request_finish(request.get(), fn);
}

relay_status_t run_nonblocking(const char* fn, const Args& a, relay_request_t* request,
                               int position) {
  relay::core::clear_last_error();
  if (request == nullptr) {
    return fail(RELAY_ERR_REQUEST, "{}: argument {} (request) is NULL", fn, position);
  }
  *request = RELAY_REQUEST_NULL;
  auto r = std::make_unique<relay_request>();
  const relay_status_t st = start(fn, a, r.get());
  if (st != RELAY_SUCCESS) return st;
  *request = r.release();
  return RELAY_SUCCESS;
}

// The collectives of relay_coll_options_t (all but broadcast, which has relay_bcast_*).
bool known(relay_collective_t c) { return c >= RELAY_COLL_REDUCE && c <= RELAY_COLL_ALLGATHERV; }

}  // namespace

extern "C" {

void relay_coll_options_init_sized(relay_coll_options_t* options, size_t struct_size) {
  relay::coll::init_options(options, struct_size);
}

relay_status_t relay_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm,
                            const relay_coll_options_t* options) {
  return run("relay_reduce",
             Args{Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, options});
}

relay_status_t relay_ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, int root, MPI_Comm comm,
                             const relay_coll_options_t* options, relay_request_t* request) {
  return run_nonblocking(
      "relay_ireduce",
      Args{Collective::reduce, sendbuf, recvbuf, count, datatype, op, root, comm, options}, request,
      9);
}

relay_status_t relay_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_allreduce",
             Args{Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, options});
}

relay_status_t relay_iallreduce(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                const relay_coll_options_t* options, relay_request_t* request) {
  return run_nonblocking(
      "relay_iallreduce",
      Args{Collective::allreduce, sendbuf, recvbuf, count, datatype, op, 0, comm, options}, request,
      8);
}

relay_status_t relay_allgather(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_allgather", Args{Collective::allgather, sendbuf, recvbuf, count, datatype,
                                     MPI_OP_NULL, 0, comm, options});
}

relay_status_t relay_iallgather(const void* sendbuf, void* recvbuf, int count,
                                MPI_Datatype datatype, MPI_Comm comm,
                                const relay_coll_options_t* options, relay_request_t* request) {
  return run_nonblocking(
      "relay_iallgather",
      Args{Collective::allgather, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, 0, comm, options},
      request, 7);
}

relay_status_t relay_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, const int recvcounts[], const int displs[],
                                MPI_Datatype recvtype, MPI_Comm comm,
                                const relay_coll_options_t* options) {
  return run("relay_allgatherv", Args{Collective::allgatherv, sendbuf, recvbuf, sendcount, sendtype,
                                      MPI_OP_NULL, 0, comm, options, recvcounts, displs, recvtype});
}

relay_status_t relay_iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm,
                                 const relay_coll_options_t* options, relay_request_t* request) {
  return run_nonblocking("relay_iallgatherv",
                         Args{Collective::allgatherv, sendbuf, recvbuf, sendcount, sendtype,
                              MPI_OP_NULL, 0, comm, options, recvcounts, displs, recvtype},
                         request, 10);
}

relay_status_t relay_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          const relay_coll_options_t* options) {
  return run("relay_reduce_scatter_block", Args{Collective::reduce_scatter_block, sendbuf, recvbuf,
                                                recvcount, datatype, op, 0, comm, options});
}

relay_status_t relay_ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           const relay_coll_options_t* options,
                                           relay_request_t* request) {
  return run_nonblocking("relay_ireduce_scatter_block",
                         Args{Collective::reduce_scatter_block, sendbuf, recvbuf, recvcount,
                              datatype, op, 0, comm, options},
                         request, 8);
}

relay_status_t relay_gather(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            int root, MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_gather", Args{Collective::gather, sendbuf, recvbuf, count, datatype,
                                  MPI_OP_NULL, root, comm, options});
}

relay_status_t relay_igather(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             int root, MPI_Comm comm, const relay_coll_options_t* options,
                             relay_request_t* request) {
  return run_nonblocking(
      "relay_igather",
      Args{Collective::gather, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, root, comm, options},
      request, 8);
}

relay_status_t relay_scatter(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                             int root, MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_scatter", Args{Collective::scatter, sendbuf, recvbuf, count, datatype,
                                   MPI_OP_NULL, root, comm, options});
}

relay_status_t relay_iscatter(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              int root, MPI_Comm comm, const relay_coll_options_t* options,
                              relay_request_t* request) {
  return run_nonblocking("relay_iscatter",
                         Args{Collective::scatter, sendbuf, recvbuf, count, datatype, MPI_OP_NULL,
                              root, comm, options},
                         request, 8);
}

relay_status_t relay_alltoall(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                              MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_alltoall", Args{Collective::alltoall, sendbuf, recvbuf, count, datatype,
                                    MPI_OP_NULL, 0, comm, options});
}

relay_status_t relay_ialltoall(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                               MPI_Comm comm, const relay_coll_options_t* options,
                               relay_request_t* request) {
  return run_nonblocking(
      "relay_ialltoall",
      Args{Collective::alltoall, sendbuf, recvbuf, count, datatype, MPI_OP_NULL, 0, comm, options},
      request, 7);
}

relay_status_t relay_barrier(MPI_Comm comm, const relay_coll_options_t* options) {
  return run("relay_barrier", Args{Collective::barrier, nullptr, nullptr, 0, MPI_BYTE, MPI_OP_NULL,
                                   0, comm, options});
}

relay_status_t relay_ibarrier(MPI_Comm comm, const relay_coll_options_t* options,
                              relay_request_t* request) {
  return run_nonblocking(
      "relay_ibarrier",
      Args{Collective::barrier, nullptr, nullptr, 0, MPI_BYTE, MPI_OP_NULL, 0, comm, options},
      request, 3);
}

relay_status_t relay_coll_describe(relay_collective_t collective, int count, MPI_Datatype datatype,
                                   MPI_Op op, int root, MPI_Comm comm,
                                   const relay_coll_options_t* options, char* text, size_t size) {
  relay::core::clear_last_error();
  if (!known(collective)) {
    return fail(RELAY_ERR_OPTIONS,
                "relay_coll_describe: argument 1 (collective = {}) is not a "
                "collective",
                static_cast<int>(collective));
  }
  static char dummy;
  const auto c = static_cast<Collective>(collective);
  // allgatherv: every rank's block taken to be count elements, one after the other.
  std::vector<int> counts, displs;
  int ranks = 0;
  if (c == Collective::allgatherv && comm != MPI_COMM_NULL &&
      MPI_Comm_size(comm, &ranks) == MPI_SUCCESS) {
    counts.assign(static_cast<std::size_t>(ranks), count);
    for (int i = 0; i < ranks; ++i) {  // beyond INT_MAX MPI_Allgatherv cannot place it either
      displs.push_back(
          static_cast<int>(std::min<long long>(INT_MAX, 1LL * i * std::max(count, 0))));
    }
  }
  Call call;
  const relay_status_t st = check_arguments(
      "relay_coll_describe",
      Args{c, &dummy, &dummy, count, datatype, positions(c).op != 0 ? op : MPI_OP_NULL, root, comm,
           options, counts.data(), displs.data(), datatype},
      call);
  if (st != RELAY_SUCCESS) return st;
  relay::api::copy_text(relay::coll::to_string(call.config), text, size);
  return RELAY_SUCCESS;
}

const char* relay_collective_name(relay_collective_t collective) {
  if (!known(collective) && collective != RELAY_COLL_BCAST) return nullptr;
  return relay::coll::to_string(static_cast<Collective>(collective)).data();
}

const char* relay_coll_algorithm_name(relay_collective_t collective, int algorithm) {
  if (!known(collective)) return nullptr;
  if (algorithm == 0) return "auto";
  const auto* a = relay::coll::find_algorithm(static_cast<Collective>(collective), algorithm);
  return a != nullptr ? a->name.data() : nullptr;
}

relay_status_t relay_coll_algorithm_from_name(relay_collective_t collective, const char* name,
                                              int* algorithm) {
  if (!known(collective) || name == nullptr || algorithm == nullptr) {
    return fail(RELAY_ERR_ALGORITHM, "relay_coll_algorithm_from_name: invalid argument");
  }
  if (std::strcmp(name, "auto") == 0) {
    *algorithm = 0;
    return RELAY_SUCCESS;
  }
  const auto* a =
      relay::coll::find_algorithm(static_cast<Collective>(collective), std::string_view(name));
  if (a == nullptr) {
    return fail(RELAY_ERR_ALGORITHM, "'{}' is not a {} algorithm", name,
                relay::coll::to_string(static_cast<Collective>(collective)));
  }
  *algorithm = a->id;
  return RELAY_SUCCESS;
}

}  // extern "C"
